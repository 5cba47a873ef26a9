#!/usr/bin/env python3
"""Checks for tests/integration/tools_qualify.sh (not a suite itself: run by it).

  tools_qualify_check.py steady             the steady-state math on known series
  tools_qualify_check.py report OUT VERDICT  OUT/report.json against the raw fio JSON files in
                                             OUT/fio (read here with json, not the tool's code),
                                             the verdict, report.md and the plots
  tools_qualify_check.py failover-math      the failover numbers (longest completion gap from
                                             the fault on, 100 ms IOPS bins, mp_stats summary,
                                             path lists) on synthetic input, computed by hand
  tools_qualify_check.py failover OUT [STAMP]
                                             OUT's failover section against the raw completion
                                             log and mp_stats (recomputed here); STAMP: a file
                                             with the wall-clock ms the fault command itself
                                             wrote, which the report's fault time must match
  tools_qualify_check.py example-gates FILE a shipped gates file parses and gates mem == cuda,
                                             gpudirect == used
  tools_qualify_check.py mem-args          qualify.mem_args (another tool's --engine-opt list as
                                             qualify's GPU memory flags)
  tools_qualify_check.py fakefio FIO-ARGS...
                                             a stand-in for fio's runs against the engine (no
                                             fabric): the job's JSON, and on stderr the engine's
                                             start line and closing CUDA copies line as the
                                             engine prints them, its data path picked by
                                             QF_FAKE=WHAT:MODE,... (WHAT a --rw value or
                                             "verify", MODE peermem, dma-buf, staged, auto
                                             (gpudirect=auto fell back), host, fail; default
                                             peermem), copies with QF_FAKE_COPIES=1
  tools_qualify_check.py datapath OUT        OUT/report.json's data path (labels per workload,
                                             copies summed, their share of the runtime, the
                                             mem and gpudirect gates) against the raw fio logs,
                                             read here with regular expressions of its own

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


# ------------------------------------------------------------------ failover
def failover_math():
    import tempfile
    from nvmeof import qualify_failover as f
    bad = []
    d = tempfile.mkdtemp()
    log = os.path.join(d, "x_clat.1.log")
    # fio's log lines (time ms, value, ddir, bs, prio); one out of order
    ts = [1000, 1001, 1005, 1001, 1100, 1102, 1500, 1501]
    with open(log, "w") as fh:
        fh.write("".join("%d, %d, %d, 4096, 0\n" % (t, 5000 + i, i % 2) for i, t in enumerate(ts)))
    times = f.completion_times(log)
    if list(times) != sorted(ts):
        bad.append("completion_times = %s" % list(times))
    cases = [  # fault ms -> (gap, from, to) by hand
        (1050, (398, 1102, 1500)),   # gaps from the fault: 1100-1050=50, 2, 398, 1
        (1200, (300, 1200, 1500)),   # inside the long gap: counted from the fault
        (900, (398, 1102, 1500)),    # before the first completion: 100, then the same 398
        (1501, (0, 1501, 1501)),     # the last completion at the fault itself
        (2000, (None, None, None)),  # nothing completed after the fault
    ]
    for fault, want in cases:
        got = f.longest_gap(times, fault)
        if got != want:
            bad.append("longest_gap(fault %d) = %s, want %s" % (fault, got, want))
    want_tl = [(0.0, 40.0), (0.1, 20.0), (0.2, 0.0), (0.3, 0.0), (0.4, 0.0), (0.5, 20.0)]
    if f.timeline(times, 1000) != want_tl:
        bad.append("timeline = %s, want %s" % (f.timeline(times, 1000), want_tl))
    if f.timeline(times, 1050)[0] != (0.0, 20.0):
        bad.append("timeline from 1050: first bin %s, want (0.0, 20.0)" % (f.timeline(times, 1050)[0],))
    mp = os.path.join(d, "mp.json")
    with open(mp, "w") as fh:
        fh.write(json.dumps({"job": "failover", "policy": "numa", "failovers": 2, "ios_moved": 21, "paths": [],
                             "events": [{"path": "a:1", "recovered": True, "recovery_ms": 12, "ios_moved": 16},
                                        {"path": "a:1", "recovered": True, "recovery_ms": 30, "ios_moved": 5},
                                        {"path": "b:2", "recovered": False, "recovery_ms": 0, "ios_moved": 0}]}) + "\n")
    m = f.mp_summary(mp)
    if (m["failovers"], m["ios_moved"], m["recovery_ms"]) != (2, 21, 30):
        bad.append("mp_summary = %s" % m)
    pcases = [("10.0.0.1,10.0.0.2:4421", [("10.0.0.1", "4420"), ("10.0.0.2", "4421")]),
              ("[fe80::1]:4421,fe80::2", [("fe80::1", "4421"), ("fe80::2", "4420")])]
    for text, want in pcases:
        if f.parse_paths(text, "4420") != want:
            bad.append("parse_paths(%s) = %s" % (text, f.parse_paths(text, "4420")))
    for text in ("a,", "a:0", "a:x", "a:4420,a"):
        try:
            f.parse_paths(text, "4420")
            bad.append("parse_paths(%r) accepted" % text)
        except ValueError:
            pass
    if bad:
        fail("failover math: " + "; ".join(bad))
    print("failover math: %d fault times, the 100 ms bins, mp_stats and 6 path lists as computed by hand" % len(cases))


def raw_times(path):
    """The completion times of a fio log, read here (not with the tool's code)."""
    return sorted(int(line.split(",")[0]) for line in open(path) if line.strip())


def failover(out, stamp=None):
    bad = []
    rep = json.load(open(os.path.join(out, "report.json")))
    fo = ((rep["workloads"].get("failover") or {}).get("failover")) or fail("%s: no failover section" % out)
    t = raw_times(os.path.join(out, fo["clat_log"]))
    fault = fo["fault_ms"]
    if fault is None or not t or not t[0] <= fault <= t[-1]:
        bad.append("fault at %s ms is not inside the completion log (%s..%s)" % (fault, t[:1], t[-1:]))
    else:
        gaps = [b - max(a, fault) for a, b in zip([fault] + t, t) if b >= fault]
        want = max(gaps)
        if fo["failover_ms"] != want:
            bad.append("failover_ms %s, the raw log gives %s" % (fo["failover_ms"], want))
        if not fo["failover_ms"] or fo["failover_ms"] <= 0:
            bad.append("failover_ms %s: no gap at all" % fo["failover_ms"])
        if abs((fault - fo["fio_start_ms"]) / 1000.0 - fo["fault_at_s"]) > 1.0:
            bad.append("fault %.3f s after fio started, planned %d" % ((fault - fo["fio_start_ms"]) / 1000.0, fo["fault_at_s"]))
    if stamp:
        st = int(open(stamp).read().split()[0])
        if not 0 <= st - fault <= 1000:
            bad.append("the fault command stamped %d, the report says it started at %s" % (st, fault))
    if fo.get("completions") != len(t):
        bad.append("completions %s, the log has %d" % (fo.get("completions"), len(t)))
    tl = fo.get("timeline") or []
    if sum(y for _, y in tl) / 10.0 != sum(1 for x in t if x >= fo["fio_start_ms"]):
        bad.append("the timeline counts %s completions, the log has %d" % (sum(y for _, y in tl) / 10.0, len(t)))
    job = raw_doc(os.path.join(out, "fio", "failover.json"))
    # fio's JSON has total_err only with continue_on_error; an error otherwise is "error"
    if fo["errors"] != job.get("total_err", 0) or fo["errors"] != 0 or job["error"] != 0:
        bad.append("errors %s, fio JSON total_err %s error %s" % (fo["errors"], job.get("total_err"), job["error"]))
    if fo["verify_failures"] != 0:
        bad.append("verify failures %s" % fo["verify_failures"])
    run = [x for x in rep["runs"] if x["name"] == "failover"]
    args = run[0]["cmd"].split() if run else []
    for want in ("--verify=crc32c", "--rw=randrw", "--log_avg_msec=0", "--log_unix_epoch=1"):
        if want not in args:
            bad.append("the failover run lacks %s" % want)
    if not [x for x in args if x.startswith("--verify_backlog=")]:
        bad.append("the failover run lacks verify_backlog")
    if rep["initiator"] == "engine":
        recs = [json.loads(l) for l in open(os.path.join(out, fo["mp_stats"])) if l.strip()]
        r = recs[-1]
        rec = [e["recovery_ms"] for e in r["events"] if e["recovered"]]
        if r["failovers"] < 1 or not rec:
            bad.append("mp_stats: no recovered failover: %s" % r)
        elif (fo["recovery_ms"], fo["ios_moved"], fo["failovers"]) != (max(rec), r["ios_moved"], r["failovers"]):
            bad.append("recovery_ms/ios_moved/failovers %s/%s/%s, mp_stats %s/%s/%s" % (
                fo["recovery_ms"], fo["ios_moved"], fo["failovers"], max(rec), r["ios_moved"], r["failovers"]))
        if len(r["paths"]) != 2 or any(p["ios"] <= 0 for p in r["paths"][1:2]):
            bad.append("mp_stats paths: want 2, the second carrying I/O: %s" % r["paths"])
    elif fo.get("kernel_paths") is not None and len(fo["kernel_paths"]) != 2:
        bad.append("kernel paths %s, want 2" % fo["kernel_paths"])
    for g in rep["gates"]:
        if g["metric"] in ("failover_ms", "recovery_ms") and g["measured"] != fo[g["metric"]]:
            bad.append("gate %s measured %s, section says %s" % (g["gate"], g["measured"], fo[g["metric"]]))
    md = open(os.path.join(out, "report.md")).read()
    sect = md[md.find("## Failover"):md.find("## Runs")]
    if "## Failover" not in md or "| %s (" % fo["failover_ms"] not in sect:
        bad.append("report.md has no failover section with failover_ms %s" % fo["failover_ms"])
    if rep["initiator"] == "engine" and "| %s |" % fo["recovery_ms"] not in sect:
        bad.append("report.md's failover section lacks recovery_ms %s" % fo["recovery_ms"])
    for k in ("plot_svg", "plot_png"):
        if not fo.get(k) or not os.path.getsize(os.path.join(out, fo[k])):
            bad.append("failover plot %s missing" % k)
    if fo.get("plot_svg") and "](%s)" % fo["plot_svg"] not in sect:
        bad.append("report.md does not embed the failover plot")
    if bad:
        fail("failover %s: " % out + "; ".join(bad))
    if rep["initiator"] == "engine":
        what = "failover_ms %s, recovery_ms %s, I/Os moved %s equal the raw log and mp_stats" % (
            fo["failover_ms"], fo["recovery_ms"], fo["ios_moved"])
    else:
        what = "failover_ms %s equals the raw log (kernel, paths %s)" % (
            fo["failover_ms"], " ".join(fo.get("kernel_paths") or ["-"]))
    print("failover %s (%s): %s; %d completions, 0 errors, verify clean" % (out, rep["initiator"], what, len(t)))


def example_gates(path):
    """A shipped gates file parses, and gates the data path (mem == cuda, gpudirect == used)."""
    from nvmeof import qualify_gates as g
    try:
        gates = g.load(path)
    except g.GateError as e:
        fail(str(e))
    have = {(x.metric, x.op, x.value) for x in gates}
    for want in (("mem", "==", "cuda"), ("gpudirect", "==", "used")):
        if want not in have:
            fail("%s: no gate %s" % (path, " ".join(want)))
    print("%s: %d gates parse, mem == cuda and gpudirect == used among them" % (os.path.basename(path), len(gates)))


def mem_args():
    """qualify.mem_args: another tool's --engine-opt specs as qualify's own flags where it has them."""
    from nvmeof import qualify as q
    cases = [(["nvmeof_mem=cuda", "cuda_device=0,1", "gpu_reg=peermem", "gpudirect=auto"],
              ["--mem", "cuda", "--cuda-device", "0,1", "--engine-opt", "gpu_reg=peermem", "--gpudirect", "auto"]),
             (["completion=event"], ["--engine-opt", "completion=event"]), (None, []),
             (["nvmeof_mem"], ["--engine-opt", "nvmeof_mem"])]
    bad = ["mem_args(%s) = %s, want %s" % (i, q.mem_args(i), w) for i, w in cases if q.mem_args(i) != w]
    if bad:
        fail("; ".join(bad))
    print("mem_args: %d --engine-opt lists as qualify's --mem, --cuda-device, --gpudirect and --engine-opt" % len(cases))


# ------------------------------------------------------------------ data path (GPU memory)
FAKE_NQN = "nqn.2014-08.org.example:fake"
REASON = "dma-buf: cuMemGetHandleForAddressRange: CUDA_ERROR_NOT_SUPPORTED (operation not supported)"


def fakefio(args):
    """fio as the tool runs it, without a target: what the engine would print (start line, copies
    line) and a JSON report of 1000 IOPS, 1 s; the run's LD_LIBRARY_PATH on a line of its own."""
    import random
    opt = dict(a[2:].split("=", 1) for a in args if a.startswith("--") and "=" in a)
    name, rw, out = opt.get("name", "job"), opt.get("rw", "read"), opt.get("output")
    modes = dict(x.split(":", 1) for x in os.environ.get("QF_FAKE", "").split(",") if ":" in x)
    mode = modes.get("verify" if "verify" in opt else rw, "host" if opt.get("nvmeof_mem") != "cuda" else "peermem")
    sys.stderr.write("fake-env LD_LIBRARY_PATH=%s\n" % os.environ.get("LD_LIBRARY_PATH", ""))
    head = "nvmeof: %s: %s cntlid 1 (Linux, fw 6.1), ns 1: 8 MiB, poll via rxe0 port 1 (192.0.2.2 -> 192.0.2.1:4420)" % (
        name, FAKE_NQN)
    gpu = "CUDA device %s (0000:3b:00.0, NUMA 0), " % opt.get("cuda_device", "0").split(",")[0]
    rdma = "; RDMA device rxe0 (0000:5e:00.0, NUMA 1); WARNING: the GPU is on NUMA node 0 and the RDMA device " \
           "on node 1: cross-socket transfers can halve bandwidth"
    data = "verify" in opt
    how = "data mode: host->device before writes, device->host after reads (fio's verify or buffer options need " \
          "the bytes)" if data else "benchmark mode: no copies (fio neither fills nor checks the data)"
    if mode == "fail":
        sys.stderr.write("nvmeof: %s: cannot register 1048576 bytes of CUDA device 0 memory for RDMA: %s\n" % (
            name, REASON))
        sys.exit(1)
    if mode == "host":
        sys.stderr.write(head + "; the target may RDMA-read and write the buffers\n")
    elif mode in ("peermem", "dma-buf"):
        sys.stderr.write(head + "; buffers: " + gpu + "GPUDirect via %s%s, cuFlushGPUDirectRDMAWrites after reads" % (
            mode, " (%s)" % REASON if mode == "peermem" else "") + rdma + "; " + how +
            "; the target may RDMA-read and write them\n")
    else:
        fb = " (gpudirect=auto, GPUDirect unavailable: %s)" % REASON if mode == "auto" else ""
        sys.stderr.write(head + "; buffers: " + gpu + "staged through registered host memory" + fb + rdma +
                         "; staged mode: device<->staging per I/O%s; the target may RDMA-read and write them\n" % (
                             ", and host<->device for fio's data checks" if data else ""))
    d = {"iops": 1000.0, "bw_bytes": 4096000, "total_ios": 1000, "io_bytes": 4096000, "runtime": 1000,
         "lat_ns": {"mean": 100000.0, "percentile": {"50.000000": 90000, "90.000000": 150000, "99.000000": 200000,
                                                     "99.900000": 300000, "99.990000": 400000}}}
    z = {"iops": 0.0, "bw_bytes": 0, "total_ios": 0, "io_bytes": 0, "runtime": 0, "lat_ns": {}}
    reads = "read" in rw or opt.get("verify_only") == "1"
    job = {"jobname": name, "error": 0, "usr_cpu": 1.0, "sys_cpu": 1.0, "ctx": 10,
           "read": d if reads else z, "write": z if reads else d, "trim": z}
    if mode != "host" and os.environ.get("QF_FAKE_COPIES") == "1":
        r = random.Random(out)
        kinds = ["data host->device", "data device->host", "staged device->host", "staged host->device"]
        items = []
        for k in kinds:
            n = r.randint(1, 500) if (k.startswith("staged") and mode in ("staged", "auto")) or \
                (k.startswith("data") and data) else 0
            items.append("%s %d (%d bytes, %.3f ms)" % (k, n, n * 4096, n * r.random() / 10))
        f = r.randint(0, 100) if mode in ("peermem", "dma-buf") else 0
        sys.stderr.write("nvmeof: %s: CUDA copies: %s, flushes %d (%.3f ms)\n" % (name, ", ".join(items), f, f / 1000.0))
    with open(out, "w") as fh:
        json.dump({"fio version": "fio-3.33", "jobs": [job]}, fh)


def transport(path, tr):
    """--transport: report.json names TR, and every run's command has --transport=tcp exactly
    when TR is tcp."""
    r = json.load(open(path))
    if r.get("transport") != tr:
        fail("report.json transport %r, want %r" % (r.get("transport"), tr))
    wrong = [x["name"] for x in r["runs"] if ("--transport=tcp" in x["cmd"]) != (tr == "tcp")]
    if not r["runs"] or wrong:
        fail("runs %s %s --transport=tcp" % (wrong, "lack" if tr == "tcp" else "have"))
    print("%d runs%s --transport=tcp" % (len(r["runs"]), "" if tr == "tcp" else " without"))


def datapath_check(out):
    """report.json's data path against the raw logs: per workload the labels (recomputed here
    from each start line), the copies summed over the runs, their share of the runs' fio
    runtime; each run's command line has the GPU memory options; the mem and gpudirect gates'
    verdicts recomputed."""
    import re
    bad = []
    rep = json.load(open(os.path.join(out, "report.json")))
    dp = rep["data_path"]
    want = {}
    for run in rep["runs"]:
        log = open(os.path.join(out, run["log"]), errors="replace").read()
        starts = re.findall(r"^nvmeof: [^:]+: nqn\S* cntlid \d+ .*$", log, re.M)
        labels = []
        for l in starts:
            m = re.search(r"; buffers: CUDA device \d+ \([^)]*\), (GPUDirect via (dma-buf|peermem)|staged)", l)
            if not m:
                lb = "host"
            elif m.group(2):
                mm = re.search(r"; (benchmark|data) mode: ", l)
                lb = "gpudirect-%s/%s" % (m.group(2), mm.group(1) if mm else "?")
            else:
                lb = "staged (gpudirect=auto fell back)" if "(gpudirect=auto, GPUDirect unavailable: " in l else "staged"
            labels.append(lb)
        w = want.setdefault(run["workload"], {"labels": [], "n": 0, "bytes": 0, "ms": 0.0, "rt": 0, "copies": 0,
                                              "runs": 0, "nostart": 0, "used": [], "mem": []})
        w["runs"] += 1
        w["labels"] += [x for x in labels if x not in w["labels"]]
        w["used"] += [x.startswith("gpudirect-") for x in labels]
        w["mem"] += ["host" if x == "host" else "cuda" for x in labels]
        w["nostart"] += not labels
        cl = re.findall(r"^nvmeof: [^:]+: CUDA copies: (.*)$", log, re.M)
        for c in cl:
            for n, b, ms in re.findall(r"(?:data|staged) \S+ (\d+) \((\d+) bytes, ([0-9.]+) ms\)", c):
                w["n"] += int(n)
                w["bytes"] += int(b)
                w["ms"] += float(ms)
        if cl:
            w["copies"] += 1
            job = raw_doc(os.path.join(out, run["json"]))
            w["rt"] += max(job[d]["runtime"] for d in ("read", "write", "trim"))
        if rep["initiator"] == "engine" and dp["memory"] == "cuda":
            args = run["cmd"].split()
            for o in ["--nvmeof_mem=cuda"] + ["--%s=%s" % (k, dp[k]) for k in ("cuda_device", "gpudirect") if dp[k]]:
                if o not in args:
                    bad.append("run %s lacks %s" % (run["name"], o))
            lib = re.search(r"^fake-env LD_LIBRARY_PATH=(.*)$", log, re.M)
            if dp["cuda_lib"] and lib and lib.group(1).split(":")[0] != dp["cuda_lib"]:
                bad.append("run %s: LD_LIBRARY_PATH %s, want %s first" % (run["name"], lib.group(1), dp["cuda_lib"]))
    if list(want) != list(dp["workloads"]):
        bad.append("workloads %s, the runs have %s" % (list(dp["workloads"]), list(want)))
    ncopies = 0
    for key, w in want.items():
        got = dp["workloads"].get(key) or {}
        if got.get("labels") != w["labels"]:
            bad.append("%s: labels %s, the logs say %s" % (key, got.get("labels"), w["labels"]))
        if len(got.get("runs", [])) != w["runs"] or len(got.get("no_start_line", [])) != w["nostart"]:
            bad.append("%s: runs %s, without a start line %s; the logs: %d, %d" % (
                key, got.get("runs"), got.get("no_start_line"), w["runs"], w["nostart"]))
        c = got.get("copies")
        if not w["copies"]:
            if c is not None:
                bad.append("%s: copies %s, the logs have no copies line" % (key, c))
            continue
        ncopies += 1
        t = (c or {}).get("total") or {}
        if (t.get("n"), t.get("bytes")) != (w["n"], w["bytes"]) or not close(round(t.get("ms", -1), 3), round(w["ms"], 3)):
            bad.append("%s: copies %s, the logs sum to n %d, %d bytes, %.3f ms" % (key, t, w["n"], w["bytes"], w["ms"]))
        share = w["ms"] / w["rt"] if w["rt"] else None
        if share is None or got.get("copies_share") is None or abs(got["copies_share"] - share) > 1e-5:
            bad.append("%s: copies share %s, the logs give %s (%s ms of %s ms)" % (
                key, got.get("copies_share"), share, w["ms"], w["rt"]))
    # the gates, recomputed: every start line of every run, a run without one fails
    allused = [u for w in want.values() for u in w["used"]]
    allmem = [m for w in want.values() for m in w["mem"]]
    nostart = sum(w["nostart"] for w in want.values())
    ngates = 0
    for g in rep["gates"]:
        if g["metric"] not in ("mem", "gpudirect"):
            continue
        ngates += 1
        if g["metric"] == "mem":
            hits = [m == g["limit"] for m in allmem]
        elif g["limit"] == "used":
            hits = allused
        else:
            hits = None
        if hits is None:
            continue
        ok = not nostart and all(h == (g["op"] == "==") for h in hits) and bool(hits)
        if (g["result"] == "PASS") != ok:
            bad.append("gate %s: %s, recomputed %s" % (g["gate"], g["result"], "PASS" if ok else "FAIL"))
        if g["result"] == "FAIL" and not g.get("why"):
            bad.append("gate %s fails without saying why" % g["gate"])
    md = open(os.path.join(out, "report.md")).read()
    sect = md[md.find("## Buffers"):]
    if "## Buffers" not in md:
        bad.append("report.md has no Buffers section")
    for key, w in want.items():
        if "| %s | %d | %s |" % (key, w["runs"], ", ".join(w["labels"]) or "no start line") not in sect:
            bad.append("report.md's Buffers section has no row %s with %s" % (key, w["labels"]))
    for g in rep["gates"]:
        if g.get("why") and "- `%s` %s: %s" % (g["gate"], g["result"], g["why"]) not in md:
            bad.append("report.md does not say why %s failed" % g["gate"])
    if bad:
        fail("data path %s: " % out + "; ".join(bad))
    print("data path %s: %s; %d workloads' data paths (%s) and %d copies sums equal the raw logs; %d mem/gpudirect "
          "gates recomputed" % (out, rep["verdict"], len(want), "; ".join(
              "%s %s" % (k, ",".join(w["labels"]) or "no start line") for k, w in want.items()), ncopies, ngates))


if __name__ == "__main__":
    if sys.argv[1] == "steady":
        steady()
    elif sys.argv[1] == "failover-math":
        failover_math()
    elif sys.argv[1] == "failover":
        failover(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
    elif sys.argv[1] == "example-gates":
        example_gates(sys.argv[2])
    elif sys.argv[1] == "mem-args":
        mem_args()
    elif sys.argv[1] == "transport":
        transport(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "fakefio":
        fakefio(sys.argv[2:])
    elif sys.argv[1] == "datapath":
        datapath_check(sys.argv[2])
    elif sys.argv[1] == "report":
        report(sys.argv[2], sys.argv[3])
    else:
        fail("usage")
