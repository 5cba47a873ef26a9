#!/usr/bin/env python3
"""Check an nvmeof-compare --failover output directory against the raw files, without the
tool's code: each run's longest stall recomputed from its fio completion log
(fio/failover_clat.1.log: the first comma field of each line is the completion's wall clock in
ms, log_unix_epoch=1) and the fault's time (fault_ms in the run's report.json), the engine's
recovery and I/Os moved from its mp_stats (fio/failover.mp.json, JSON lines), then the medians
and ratio in report.json and the table in report.md; errors and verify failures must be 0.

usage: compare_failover_check.py OUTDIR [--fault port|ana|link]
Prints PASS/FAIL lines (SKIP for an initiator the tool did not run, saying why); exit 0 when
nothing failed."""
import argparse
import json
import os
import statistics
import sys

FAULT_WORDS = {"port": "removed, then re-created", "ana": "inaccessible, then optimized",
               "link": "set down for good"}
fails = 0


def check(cond, what):
    global fails
    print(("PASS " if cond else "FAIL ") + what)
    if not cond:
        fails += 1
    return cond


def stall(clat_log, fault_ms):
    """The longest time without a completion from FAULT_MS on: over consecutive completions
    a, b with b >= fault, the largest b - max(a, fault)."""
    t = []
    with open(clat_log) as f:
        for line in f:
            if line.strip():
                t.append(int(line.split(",")[0]))
    t.sort()
    best, prev = None, None
    for b in t:
        if b >= fault_ms:
            gap = b - max(prev, fault_ms) if prev is not None else b - fault_ms
            best = gap if best is None else max(best, gap)
        prev = b
    return best, len(t)


def cell(vals):
    """report.md's list of per-run numbers: '-' for a run without one."""
    return ", ".join("-" if v is None else str(v) for v in vals)


def mp_numbers(path):
    """(recovery_ms: the longest recovered event's, ios_moved, events) of the last record."""
    with open(path) as f:
        recs = [json.loads(l) for l in f if l.strip()]
    r = recs[-1]
    ev = r.get("events") or []
    rec = [e["recovery_ms"] for e in ev if e.get("recovered")]
    return (max(rec) if rec else None), r.get("ios_moved"), ev


def check_run(out, run, fault):
    """The run's checks; its longest stall recomputed (None where it cannot be)."""
    try:
        return check_run_files(out, run, fault)
    except (OSError, ValueError, KeyError, TypeError, IndexError) as e:
        check(False, "%s: its raw files: %s: %s" % (run["dir"], type(e).__name__, e))
        return None


def check_run_files(out, run, fault):
    name = run["dir"]
    rdir = os.path.join(out, name)
    with open(os.path.join(rdir, "report.json")) as f:
        q = json.load(f)
    fo = q["workloads"]["failover"]["failover"]
    check(q["verdict"] == "PASS" and run["qualify_rc"] == 0,
          "%s: qualify PASS, exit 0 (%s, exit %s)" % (name, q["verdict"], run["qualify_rc"]))
    check(q["errors"] == 0 and (fo.get("errors") or 0) == 0 and run["errors"] == 0,
          "%s: 0 errors (qualify %s, fio I/O errors %s)" % (name, q["errors"], fo.get("errors")))
    check(q["verify_failures"] == 0 and run["verify_failures"] == 0,
          "%s: verify clean (%s verify failures)" % (name, q["verify_failures"]))
    if fault:
        check(FAULT_WORDS[fault] in (fo.get("fault") or ""), "%s: the fault is %s: %s" % (name, fault, fo.get("fault")))
    fault_ms = fo.get("fault_ms")
    if not check(fault_ms is not None, "%s: the fault ran (fault_ms %s)" % (name, fault_ms)):
        return None
    gap, n = stall(os.path.join(rdir, "fio", "failover_clat.1.log"), fault_ms)
    check(gap is not None and gap == fo["failover_ms"] == run["failover_ms"],
          "%s: longest stall from the clat log (%d completions) %s ms = qualify's %s = runs.jsonl's %s" % (
              name, n, gap, fo["failover_ms"], run["failover_ms"]))
    if run["initiator"] == "engine":
        rec, moved, ev = mp_numbers(os.path.join(rdir, "fio", "failover.mp.json"))
        check(len(ev) >= 1 and rec is not None, "%s: mp_stats has a recovered failover (%d event(s))" % (name, len(ev)))
        check(rec == fo["recovery_ms"] == run["recovery_ms"] and moved == fo["ios_moved"] == run["ios_moved"],
              "%s: recovery %s ms, %s I/Os moved from mp_stats = qualify's (%s, %s) = runs.jsonl's (%s, %s)" % (
                  name, rec, moved, fo["recovery_ms"], fo["ios_moved"], run["recovery_ms"], run["ios_moved"]))
    else:
        kp = fo.get("kernel_paths") or []
        check(len(kp) >= 2, "%s: the kernel's namespace had %d paths (%s)" % (name, len(kp), " ".join(kp)))
    return gap


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--fault", choices=sorted(FAULT_WORDS))
    a = ap.parse_args()
    with open(os.path.join(a.out, "plan.json")) as f:
        plan = json.load(f)
    with open(os.path.join(a.out, "report.json")) as f:
        rep = json.load(f)
    with open(os.path.join(a.out, "runs.jsonl")) as f:
        runs = [json.loads(l) for l in f if l.strip()]
    with open(os.path.join(a.out, "report.md")) as f:
        md = f.read()
    check(rep.get("mode") == "failover" and plan.get("mode") == "failover",
          "mode failover in plan.json and report.json")
    skipped = plan.get("skipped") or {}
    ran = [i for i in plan["initiators"] if i not in skipped]
    for i, why in skipped.items():
        print("SKIP %s: %s" % (i, why))
    want = [(i, r) for r in range(1, plan["repeat"] + 1) for i in ran]
    got = [(r["initiator"], r["repeat"]) for r in runs]
    check(got == want, "runs in order, initiators alternating: %s" % " ".join("%s-r%d" % x for x in got))
    check(rep["runs"] == runs, "report.json's runs are runs.jsonl's")
    medians = {}
    for ini in ran:
        gaps = [check_run(a.out, r, a.fault) for r in runs if r["initiator"] == ini]
        s = rep["initiators"][ini]
        check(s["failover_ms"] == gaps, "%s: report.json per-run stalls %s" % (ini, gaps))
        measured = [g for g in gaps if g is not None]
        med = statistics.median(measured) if measured else None
        medians[ini] = med
        check(s["median_ms"] == med and s["min_ms"] == min(measured, default=None)
              and s["max_ms"] == max(measured, default=None),
              "%s: median %s, min %s, max %s ms" % (ini, med, min(measured, default=None), max(measured, default=None)))
        check(s["errors"] == 0 and s["verify_failures"] == 0 and s["not_measured"] == 0,
              "%s: report.json errors %s, verify failures %s, not measured %s" % (
                  ini, s["errors"], s["verify_failures"], s["not_measured"]))
        row = [l for l in md.splitlines() if l.startswith("| %s |" % ini)]
        cells = [c.strip() for c in row[0].strip("|").split("|")] if row else []
        medtxt = ("%.1f" % med).rstrip("0").rstrip(".") if isinstance(med, float) else str(med)
        check(len(cells) >= 4 and cells[1] == cell(gaps) and cells[2] == medtxt,
              "%s: report.md row: stalls %s, median %s (%s)" % (ini, cells[1:2], medtxt, row[:1]))
        if ini == "engine":
            rec = [r["recovery_ms"] for r in runs if r["initiator"] == ini]
            check(len(cells) >= 6 and cells[4] == cell(rec),
                  "engine: report.md recovery column %s" % rec)
    e, k = medians.get("engine"), medians.get("kernel")
    ratio = round(e / k, 2) if e is not None and k else None
    check(rep["ratio_engine_kernel_median"] == ratio, "engine/kernel median ratio %s" % ratio)
    check(rep["ok"] is True, "report.json says ok")
    if fails == 0 and "kernel" in medians:
        print("compare_failover_check: engine median %s ms, kernel median %s ms" % (e, k))
    print("compare_failover_check: %s" % ("FAIL (%d)" % fails if fails else "PASS"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
