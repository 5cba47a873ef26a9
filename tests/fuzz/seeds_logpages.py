#!/usr/bin/env python3
"""Writes the seed corpora of fuzz_ana_log and fuzz_disc_log (tests/fuzz/corpus/<target>/):
a few valid logs and a few cut or bad ones, bytes at the NVMe Base 1.4 (ANA log) and NVMe-oF 1.1
(discovery log) offsets.  Run it again after changing it; the files are committed."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def write(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def ana_hdr(chgcnt, ngrps):
    return struct.pack("<QH6x", chgcnt, ngrps)


def ana_desc(grpid, state, nsids=(), nnsids=None, chgcnt=1):
    n = len(nsids) if nnsids is None else nnsids
    return struct.pack("<IIQB15x", grpid, n, chgcnt, state) + b"".join(struct.pack("<I", x) for x in nsids)


def disc_hdr(genctr, numrec, recfmt=0):
    return struct.pack("<QQH", genctr, numrec, recfmt).ljust(1024, b"\0")


def disc_entry(subtype, trsvcid, subnqn, traddr, trtype=1, adrfam=1):
    e = bytearray(1024)
    struct.pack_into("<BBBBHHHH", e, 0, trtype, adrfam, subtype, 0x04, 1, 0xffff, 32, 0)
    e[32:32 + len(trsvcid)] = trsvcid
    e[256:256 + len(subnqn)] = subnqn
    e[512:512 + len(traddr)] = traddr
    e[768:771] = bytes([1, 1, 1])   # RDMA: connected, not specified, rdma-cm
    return bytes(e)


A = "fuzz_ana_log"
write(A, "empty", b"")
write(A, "short-header", ana_hdr(1, 0)[:15])
write(A, "no-groups", ana_hdr(1, 0))
write(A, "rgo-two-groups", ana_hdr(7, 2) + ana_desc(1, 1) + ana_desc(2, 3))
write(A, "lists-three-groups", ana_hdr(9, 3) + ana_desc(1, 1, (1, 2)) + ana_desc(2, 2) + ana_desc(3, 0xf, (3, 4, 5)))
write(A, "ngrps-past-buffer", ana_hdr(1, 3) + ana_desc(1, 1))
write(A, "nnsids-past-buffer", ana_hdr(1, 1) + ana_desc(1, 1, nnsids=0xffffffff))
write(A, "grpid-0", ana_hdr(1, 1) + ana_desc(0, 1))
write(A, "desc-cut", (ana_hdr(1, 1) + ana_desc(1, 1))[:40])

D = "fuzz_disc_log"
NQN = b"nqn.2026-12.io.fio-nvmeof:testbed"
DISC = b"nqn.2014-08.org.nvmexpress.discovery"
write(D, "empty", b"")
write(D, "short-header", disc_hdr(1, 0)[:1000])
write(D, "no-records", disc_hdr(1, 0))
write(D, "two-subsystems-and-current",
      disc_hdr(5, 3) + disc_entry(2, b"4420", NQN, b"10.0.0.1") + disc_entry(2, b"4420", NQN + b"2", b"10.0.0.1")
      + disc_entry(3, b"4420", DISC, b"10.0.0.1"))
write(D, "referral-space-padded", disc_hdr(2, 1) + disc_entry(1, b"8009".ljust(32), DISC, b"10.0.0.2".ljust(256)))
write(D, "full-fields-no-nul", disc_hdr(2, 1) + disc_entry(2, b"9" * 32, b"q" * 256, b"a" * 256))
write(D, "numrec-past-buffer", disc_hdr(3, 4) + disc_entry(2, b"4420", NQN, b"10.0.0.1") + b"\x01\x01\x02")
write(D, "recfmt-1", disc_hdr(1, 1, recfmt=1) + disc_entry(2, b"4420", NQN, b"10.0.0.1"))
write(D, "numrec-huge", disc_hdr(1, 1 << 40))
write(D, "bad-subtype-and-byte", disc_hdr(1, 2) + disc_entry(9, b"4420", NQN, b"10.0.0.1")
      + disc_entry(2, b"44\n0", NQN, b"10.0.0.1", trtype=3))
