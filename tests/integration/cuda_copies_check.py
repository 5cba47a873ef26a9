#!/usr/bin/env python3
"""cuda_copies_check.py MODE LOG JSON: the engine's closing 'CUDA copies' line(s) in LOG agree
with the I/O fio counted in JSON (one job, or group_reporting).  Each io_u is one copy of its
length (bs fixed: JSON's bs), whatever commands it took on the wire.

  staged     gpudirect=0 with verify: every write copied host->device (fio's data) and
             device->staging; every read staging->device and device->host; no flush
  gpudirect  gpudirect=1 with verify: host->device per write, device->host per read, nothing
             staged, at least one flush and at most one per read (once per reaped batch)
  benchmark  gpudirect=1, fio neither fills nor checks the data: no copies at all, flushes as
             in gpudirect
Prints one line of what it found; exit 1 with the first disagreement."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from nvmeof import datapath  # noqa: E402


def size(s):
    """fio's '4k' / '128K' / '1m' / '4096' as bytes."""
    s = s.strip().lower()
    mul = {"k": 1 << 10, "m": 1 << 20}.get(s[-1:], 1)
    return int(s.rstrip("km")) * mul


def main():
    mode, log, js = sys.argv[1:4]
    with open(log, errors="replace") as f:
        c = datapath.copies(f.read())
    if c is None:
        sys.exit("no 'nvmeof: JOB: CUDA copies:' line in %s" % log)
    with open(js) as f:
        text = f.read()
    doc = json.loads(text[text.index("{"):])
    w = sum(j["write"]["total_ios"] for j in doc["jobs"])
    r = sum(j["read"]["total_ios"] for j in doc["jobs"])
    opts = dict(doc.get("global options") or {}, **(doc["jobs"][0].get("job options") or {}))
    bs = size(opts["bs"]) if "bs" in opts else None
    want = {"staged": {"data host->device": w, "staged device->host": w,
                       "staged host->device": r, "data device->host": r},
            "gpudirect": {"data host->device": w, "data device->host": r,
                          "staged device->host": 0, "staged host->device": 0},
            "benchmark": {k: 0 for k in datapath.COPY_KINDS}}[mode]
    errs = []
    for k, n in want.items():
        if c[k]["n"] != n:
            errs.append("%s: %d copies, fio counted %d I/Os" % (k, c[k]["n"], n))
        elif bs and c[k]["bytes"] != n * bs:
            errs.append("%s: %d bytes, want %d x %d" % (k, c[k]["bytes"], n, bs))
    fl = c["flushes"]["n"]
    if mode == "staged" and fl:
        errs.append("staged, yet %d flushes" % fl)
    if mode != "staged" and r and not 1 <= fl <= r:
        errs.append("%d flushes for %d reads (want 1..reads)" % (fl, r))
    if errs:
        sys.exit("; ".join(errs))
    print("writes %d, reads %d: %s; flushes %d" % (
        w, r, ", ".join("%s %d (%d B, %.3f ms)" % (k, c[k]["n"], c[k]["bytes"], c[k]["ms"])
                        for k in datapath.COPY_KINDS), fl))


if __name__ == "__main__":
    main()
