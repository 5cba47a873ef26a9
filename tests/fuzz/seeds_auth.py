#!/usr/bin/env python3
"""Seed corpus for tests/fuzz/fuzz_auth.c (see its header for the input layout): challenges for
each hash and a DH group, Success1 with and without a response, Failure1, secrets good and bad,
and whole exchanges (challenge + Success1) that get as far as success.
    python3 tests/fuzz/seeds_auth.py tests/fuzz/corpus/fuzz_auth"""
import base64
import os
import struct
import sys
import zlib

HL = {1: 32, 2: 48, 3: 64}
GL = {0: 0, 1: 256, 2: 384}


def challenge(tid, hid, dhg, seq=7, dhv=None):
    hl = HL[hid]
    gl = GL[dhg]
    if dhv is None:
        dhv = b"\0" * (gl - 1) + b"\x04" if gl else b""
    return struct.pack("<BBHHBBBBHI", 1, 1, 0, tid, hl, 0, hid, dhg, gl, seq) + bytes(range(hl)) + dhv


def success1(tid, hl, rval=None):
    m = struct.pack("<BBHHBBB7x", 1, 3, 0, tid, hl, 0, 1 if rval is not None else 0)
    return m + (rval or b"")


def failure1(tid, rce):
    return struct.pack("<BBHHBB", 0, 0xf1, 0, tid, 1, rce)


def secret(key, hid, crc_ok=True):
    crc = zlib.crc32(key) ^ (0 if crc_ok else 1)
    return ("DHHC-1:%02x:%s:" % (hid, base64.b64encode(key + struct.pack("<I", crc)).decode())).encode()


def exchange(mode, first, second):
    return bytes([mode]) + struct.pack("<H", len(first)) + first + second


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    seeds = {
        "chal-sha256-null": bytes([0]) + challenge(0x1234, 1, 0),
        "chal-sha384-2048-own-tid": bytes([4]) + challenge(0x0042, 2, 1),
        "chal-sha512-3072": bytes([0]) + challenge(0x1234, 3, 2),
        "chal-wrong-tid": bytes([0]) + challenge(0x4321, 1, 0),
        "chal-bad-hl": bytes([0]) + challenge(0x1234, 1, 0)[:6] + b"\x30" + challenge(0x1234, 1, 0)[7:],
        "chal-truncated": bytes([0]) + challenge(0x1234, 2, 1)[:100],
        "chal-failure1": bytes([0]) + failure1(0x1234, 4),
        "succ1-rval-48": bytes([0x09]) + success1(0x1234, 48, bytes(48)),
        "succ1-no-rval": bytes([0x01]) + success1(0x1234, 32),
        "succ1-short": bytes([0x11]) + success1(0x1234, 64, bytes(10)),
        "succ1-failure1": bytes([0x01]) + failure1(0x1234, 1),
        "secret-32": bytes([2]) + secret(bytes(range(32)), 0),
        "secret-48-sha384": bytes([2]) + secret(bytes(range(48)), 2),
        "secret-64-sha512": bytes([2]) + secret(bytes(range(64)), 3),
        "secret-bad-crc": bytes([2]) + secret(bytes(range(32)), 1, False),
        "secret-bad-hash": bytes([2]) + b"DHHC-1:09:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:",
        "secret-empty": bytes([2]),
        "xchg-null-ok": exchange(3, challenge(0x1234, 1, 0), success1(0x1234, 32)),
        "xchg-2048-ok": exchange(3, challenge(0x1234, 2, 1), success1(0x1234, 48)),
        "xchg-bidi-wrong-r2": exchange(0x23, challenge(0x1234, 3, 0), success1(0x1234, 64, bytes(64))),
        "xchg-bidi-no-rvalid": exchange(0x23, challenge(0x1234, 1, 0), success1(0x1234, 32)),
        "xchg-failure1": exchange(3, challenge(0x1234, 1, 0), failure1(0x1234, 1)),
        "xchg-dh-zero": exchange(3, challenge(0x1234, 1, 1, dhv=bytes(256)), success1(0x1234, 32)),
        "xchg-seq0": exchange(3, challenge(0x1234, 1, 0, seq=0), success1(0x1234, 32)),
        "xchg-empty": bytes([3, 0, 0]),
    }
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


main()
