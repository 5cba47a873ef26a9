#!/usr/bin/env python3
"""fio_json_check.py FILE EXPECT - check a fio JSON result: no job reports an error, and each
direction named in EXPECT (r, w, t) moved bytes in total.  Prints a short summary; exit 1 on
failure with the reason."""
import json
import sys


def main():
    path, expect = sys.argv[1], sys.argv[2]
    with open(path) as f:
        text = f.read()
    # Strict: the whole output must be one JSON document (the engine prints nothing into it).
    try:
        data = json.loads(text)
    except ValueError as e:
        print("not JSON (%s); it begins: %r" % (e, text[:120]))
        return 1
    jobs = data.get("jobs", [])
    if not jobs:
        print("no jobs in fio output")
        return 1
    totals = {"r": 0, "w": 0, "t": 0}
    for job in jobs:
        if job.get("error"):
            print("job %s error %s" % (job.get("jobname"), job.get("error")))
            return 1
        totals["r"] += job["read"]["io_bytes"]
        totals["w"] += job["write"]["io_bytes"]
        totals["t"] += job["trim"]["io_bytes"]
    for d in expect:
        if totals[d] <= 0:
            print("no %s bytes moved (totals %s)" % ({"r": "read", "w": "write", "t": "trim"}[d], totals))
            return 1
    print("read %d KiB, write %d KiB, trim %d KiB, %d job(s)" % (
        totals["r"] >> 10, totals["w"] >> 10, totals["t"] >> 10, len(jobs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
