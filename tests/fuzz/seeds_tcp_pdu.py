#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_tcp_pdu (tests/fuzz/corpus/fuzz_tcp_pdu/): controller streams
that complete the target's four commands (CIDs 0x0008 read 1024, 0x0009 write 8192 by R2T,
0x000a read 512, 0x000b in-capsule write 512), with and without digests, cut in various ways,
and a few that must fail the queue.  PDU bytes at NVMe/TCP 1.0 offsets.  Run it again after
changing it; the files are committed."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def cfg(hd=0, dd=0, cpda_sel=0):
    return bytes([hd | dd << 1 | cpda_sel << 2])


def hdr(t, flags, hlen, pdo, plen, rest, hd):
    h = struct.pack("<BBBBI", t, flags | (1 if hd else 0), hlen, pdo, plen) + rest
    return h + (struct.pack("<I", crc32c(h)) if hd else b"")


def rsp(cid, hd=0, status=0):
    cqe = struct.pack("<QHHHH", 0, 0, 1, cid, status)
    return hdr(0x05, 0, 24, 0, 24 + 4 * hd, cqe, hd)


def c2h(cid, off, data, flags=0x04, hd=0, dd=0):
    pdo = 24 + 4 * hd
    plen = pdo + len(data) + 4 * dd
    h = hdr(0x07, flags | (2 if dd else 0), 24, pdo, plen,
            struct.pack("<HHII4x", cid, 0, off, len(data)), hd)
    return h + data + (struct.pack("<I", crc32c(data)) if dd else b"")


def r2t(cid, ttag, off, length, hd=0):
    return hdr(0x09, 0, 24, 0, 24 + 4 * hd, struct.pack("<HHII4x", cid, ttag, off, length), hd)


def term(fes, fei):
    return struct.pack("<BBBBIHI10x", 0x03, 0, 24, 0, 24, fes, fei)


def segs(stream, size=255):
    out = b""
    for i in range(0, len(stream), size):
        part = stream[i:i + size]
        out += bytes([len(part)]) + part
    return out


TICK = b"\x00"   # a reap with nothing written: lets H2CData answering an R2T go out


def data(n, seed):
    return bytes((i * 7 + seed) & 0xFF for i in range(n))


def all_four(hd=0, dd=0, size=255):
    d = data(1024, 1)
    s = segs(c2h(8, 0, d[:512], 0, hd, dd) + c2h(8, 512, d[512:], 0x04, hd, dd) + rsp(8, hd),
             size)
    s += segs(r2t(9, 0x77, 0, 8192, hd), size) + TICK + segs(rsp(9, hd), size)
    s += segs(c2h(10, 0, data(512, 2), 0x0C, hd, dd), size)          # LAST|SUCCESS
    s += segs(rsp(11, hd), size)
    return s


def write(name, blob):
    d = os.path.join(HERE, "corpus", "fuzz_tcp_pdu")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(blob)


write("empty", cfg())
write("read-small", cfg() + segs(c2h(10, 0, data(512, 3)) + rsp(10)))
write("read-small-1byte", cfg() + segs(c2h(10, 0, data(512, 3)) + rsp(10), 1))
write("all-four", cfg() + all_four())
write("all-four-cut-31", cfg() + all_four(size=31))
write("all-four-digests", cfg(1, 1) + all_four(1, 1))
write("all-four-hdgst-cpda31", cfg(1, 0, 3) + all_four(1, 0))
write("r2t-two-halves", cfg() + segs(r2t(9, 1, 0, 4096)) + TICK + segs(r2t(9, 2, 4096, 4096)) +
      TICK + segs(rsp(9)))
write("c2h-beyond-buffer", cfg() + segs(c2h(10, 256, data(512, 4))))
write("c2h-unknown-cid", cfg() + segs(c2h(0x18, 0, data(64, 4))))
write("r2t-beyond", cfg() + segs(r2t(9, 1, 4096, 8192)))
write("rsp-during-r2t", cfg() + segs(r2t(9, 1, 0, 8192) + rsp(9)))
write("bad-hdgst", cfg(1, 0) + segs(rsp(8, 1)[:-1] + b"\xff"))
write("bad-ddgst", cfg(0, 1) + segs(c2h(10, 0, data(512, 5), 0x04, 0, 1)[:-1] + b"\xff"))
write("term-req", cfg() + segs(term(2, 0)))
write("unknown-type", cfg() + segs(struct.pack("<BBBBI", 0x0B, 0, 24, 0, 24) + bytes(16)))
write("cut-mid-pdu", cfg() + segs(c2h(8, 0, data(100, 6))[:50]))
