#!/usr/bin/env python3
"""Checks for tests/integration/tools_qualify.sh (not a suite itself: run by it).

  tools_qualify_check.py steady             the steady-state math on known series
  tools_qualify_check.py report OUT VERDICT  OUT/report.json against the raw fio JSON files in
                                             OUT/fio (read here with json, not the tool's code),
                                             the verdict, report.md and the plots

Exit 0 with one summary line, or 1 with the reasons."""
import glob
import json
import os
import sys

sys.dont_write_bytecode = True      # no __pycache__ in the checkout
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))


def fail(msg):
    print(msg)
    sys.exit(1)


def steady():
    from nvmeof import qualify_steady as q
    bad = []
    # (series, steady?) - by hand: avg, range, least-squares slope over x = 0..4
    cases = [
        ([100, 101, 99, 100, 100], True),      # flat
        ([100, 100, 125, 100, 100], False),    # avg 105, range 25 > 21; slope 0: data excursion only
        ([100, 102, 104, 106, 108], True),     # avg 104, range 8 <= 20.8; fit rises 8 <= 10.4
        ([100, 103, 106, 109, 112], False),    # avg 106, range 12 <= 21.2; fit rises 12 > 10.6: slope only
        ([112, 109, 106, 103, 100], False),    # the same falling
        ([0, 0, 0, 0, 0], False),              # nothing measured is not steady
    ]
    for ys, want in cases:
        got = q.check_window(ys)["steady"]
        if got != want:
            bad.append("check_window(%s) = %s, want %s" % (ys, got, want))
    c = q.check_window([100, 103, 106, 109, 112])
    if abs(c["slope"] - 3.0) > 1e-9 or abs(c["slope_excursion"] - 12.0) > 1e-9 or abs(c["avg"] - 106) > 1e-9:
        bad.append("slope/avg of the ramp: %s" % c)
    # steady from round 3 on: windows 1-5 ([50..]) and 2-6 (avg 96, range 21 > 19.2) are not
    e = q.evaluate([50, 80, 100, 101, 99, 100, 100])
    if not (e["reached"] and e["window_first"] == 3 and e["window_last"] == 7):
        bad.append("evaluate(steady at round 3-7) = %s" % e)
    e = q.evaluate([100, 150, 100, 150, 100, 150])
    if e["reached"] or (e["window_first"], e["window_last"]) != (2, 6):
        bad.append("evaluate(oscillating) = %s (want not reached, window 2-6)" % e)
    e = q.evaluate([100, 100, 100])
    if e["reached"] or (e["window_first"], e["window_last"]) != (1, 3):
        bad.append("evaluate(3 rounds) = %s (want not reached: fewer rounds than the window)" % e)
    if q.is_steady_now([100, 100, 100, 100]) or not q.is_steady_now([1, 100, 100, 100, 100, 100]):
        bad.append("is_steady_now")
    if bad:
        fail("steady-state math: " + "; ".join(bad))
    print("steady-state math: %d windows and 4 series as computed by hand" % len(cases))


# ------------------------------------------------------------------ report vs raw fio JSON
def raw_doc(path):
    text = open(path).read()
    return json.loads(text[text.index("{"):])["jobs"][0]


def raw_numbers(job):
    """iops summed over directions; p50/p99/mean of lat_ns of the busiest direction (us)."""
    dirs = [d for d in ("read", "write", "trim") if d in job]
    busiest = max(dirs, key=lambda d: job[d]["total_ios"])
    lat = job[busiest]["lat_ns"]
    pct = {float(k): v / 1000.0 for k, v in lat.get("percentile", {}).items()}
    return {"iops": sum(job[d]["iops"] for d in dirs),
            "bw_mib_s": sum(job[d]["bw_bytes"] for d in dirs) / 1048576.0,
            "lat_mean_us": lat["mean"] / 1000.0,
            "p50_lat_us": pct.get(50.0), "p99_lat_us": pct.get(99.0), "p99.9_lat_us": pct.get(99.9)}


def snia(ys):
    n = len(ys)
    avg = sum(ys) / n
    xm = (n - 1) / 2.0
    slope = sum((x - xm) * (y - avg) for x, y in enumerate(ys)) / sum((x - xm) ** 2 for x in range(n))
    return max(ys) - min(ys) <= 0.2 * avg and abs(slope) * (n - 1) <= 0.1 * avg


def close(a, b):
    if a is None or b is None or isinstance(a, str) or isinstance(b, str):
        return a == b
    return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))


def report(out, verdict):
    bad = []
    rep = json.load(open(os.path.join(out, "report.json")))
    if rep["verdict"] != verdict:
        bad.append("verdict %s, want %s" % (rep["verdict"], verdict))
    expect = {}     # workload key -> numbers computed here
    nround = 0
    for key, wl in rep["workloads"].items():
        base = key.replace(" ", "-")
        if "rounds" in wl:
            files = sorted(glob.glob(os.path.join(out, "fio", base + "-r[0-9][0-9].json")))
            if len(files) != len(wl["rounds"]) or not files:
                bad.append("%s: %d round files, report has %d rounds" % (key, len(files), len(wl["rounds"])))
                continue
            nums = [raw_numbers(raw_doc(f)) for f in files]
            ys = [x["iops"] for x in nums]
            for r, y in zip(wl["rounds"], ys):
                if not close(r["iops"], y):
                    bad.append("%s round %d: report %s IOPS, fio JSON %s" % (key, r["round"], r["iops"], y))
            # the window: the first steady window of 5, else the last 5 rounds
            first = None
            for end in range(5, len(ys) + 1):
                if snia(ys[end - 5:end]):
                    first = end - 4
                    break
            reached = first is not None
            if first is None:
                first = max(1, len(ys) - 4)
            last = first + 4 if reached else len(ys)
            ss = wl["steady_state"]
            if (ss["reached"], ss["window_first"], ss["window_last"]) != (reached, first, last):
                bad.append("%s: steady state %s rounds %s-%s, computed here %s %s-%s" % (
                    key, ss["reached"], ss["window_first"], ss["window_last"], reached, first, last))
            w = nums[first - 1:last]
            expect[key] = {"iops": sum(x["iops"] for x in w) / len(w),
                           "bw_mib_s": sum(x["bw_mib_s"] for x in w) / len(w),
                           "lat_mean_us": sum(x["lat_mean_us"] for x in w) / len(w),
                           "p99_lat_us": max(x["p99_lat_us"] for x in w),
                           "p99.9_lat_us": max(x["p99.9_lat_us"] for x in w),
                           "p50_lat_us": max(x["p50_lat_us"] for x in w),
                           "steady_state": "reached" if reached else "not_reached"}
            nround += len(ys)
            if not os.path.getsize(os.path.join(out, wl.get("plot_svg", "-"))) or \
               not os.path.getsize(os.path.join(out, wl.get("plot_png", "-"))):
                bad.append("%s: plots missing" % key)
        else:
            expect[key] = raw_numbers(raw_doc(os.path.join(out, "fio", base + ".json")))
        for k, v in expect[key].items():
            got = (wl.get("metrics") or {}).get(k) if k != "steady_state" else v
            if not close(got, v):
                bad.append("%s %s: report %s, fio JSON %s" % (key, k, got, v))
    ngates = 0
    for g in rep["gates"]:
        if g["workload"] is None:
            continue
        want = expect.get(g["workload"], {}).get(g["metric"])
        m = g["measured"]
        if (isinstance(want, str) and m != want) or (not isinstance(want, str) and not close(m, want)):
            bad.append("gate %s: measured %s, computed here %s" % (g["gate"], m, want))
        ngates += 1
    # every engine run waits for the stragglers of a time-based run as the kernel's does
    # (stop_grace); kernel runs get no engine option
    want_grace = rep["initiator"] == "engine"
    for run in rep["runs"]:
        if ("--stop_grace=10000" in run["cmd"].split()) != want_grace:
            bad.append("run %s: stop_grace=10000 %s" % (run["name"], "missing" if want_grace else "in a kernel run"))
    md = open(os.path.join(out, "report.md")).read()
    for g in rep["gates"]:
        if "`%s`" % g["gate"] not in md or g["result"] not in md:
            bad.append("report.md lacks gate %s" % g["gate"])
    if "Overall: **%s**" % verdict not in md:
        bad.append("report.md lacks 'Overall: **%s**'" % verdict)
    if ".svg)" not in md and nround:
        bad.append("report.md embeds no SVG plot")
    if bad:
        fail("report %s: " % out + "; ".join(bad))
    print("report %s: %s; %d workloads (%d rounds) and %d gate values equal the fio JSON; %d %s runs%s" % (
        out, rep["verdict"], len(expect), nround, ngates, len(rep["runs"]), rep["initiator"],
        " with stop_grace=10000" if want_grace else ""))


if __name__ == "__main__":
    if sys.argv[1] == "steady":
        steady()
    elif sys.argv[1] == "report":
        report(sys.argv[2], sys.argv[3])
    else:
        fail("usage")
