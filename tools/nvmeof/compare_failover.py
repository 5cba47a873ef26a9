"""nvmeof-compare --failover: the same fault against the engine's multipath and the kernel's
native NVMe multipath (nvme-cli connects every path), measured the same way.

Each run is one `tools/nvmeof-qualify --workloads failover` (the measure is qualify's: fio's
per-I/O completion log, the longest time without a completion from the fault on; the
engine's recovery and I/Os moved from its mp_stats; see docs/qualify.md), run as a child
process per initiator per repeat, engine and kernel alternating.  In the testbed the tool
boots it once and runs this half inside it (--in-testbed); against a real target here.

Output directory: plan.json (mode "failover", the settings), runs.jsonl (one record per
run, appended as each ends), runs/INITIATOR-rN/ (that run's qualify output: report.json,
report.md, fio/, plots/, qualify.log), report.json, report.md, report.txt.  See
docs/compare.md, "Failover: the same fault, engine and kernel multipath"."""
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time

from . import compare_run, qualify, qualify_failover

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(TOOLS)
QUALIFY = os.path.join(TOOLS, "nvmeof-qualify")
PROG = "nvmeof-compare"
INITIATORS = ("engine", "kernel")
# defaults as nvmeof-qualify's failover workload
DEFAULTS = {"fault_at": 10, "restore_at": 20, "failover_runtime": 30, "mp_policy": "numa", "qd": 32}
# a run beyond the failover job itself: qualify's setup, connecting, the fault and restore
# commands, fio's start and stop under emulation, the kernel's disconnect
RUN_SLACK_S = 90
# the most a run may take beyond --failover-runtime before it is stopped (qualify's own fio
# limit is runtime + 300 s; its connects and commands have their own limits)
RUN_LIMIT_SLACK_S = 600
OUT_FILES = ("plan.json", "runs.jsonl", "report.md", "report.json", "report.txt")


def die(msg, code=2):
    print("%s: %s" % (PROG, msg), file=sys.stderr)
    sys.exit(code)


def say(msg):
    print("compare: " + msg, flush=True)


def add_options(p):
    """compare's parser: the "failover" group (defaults None, so that each can be refused
    without --failover; DEFAULTS fills them in)."""
    g = p.add_argument_group("failover (--failover: the same fault, engine and kernel multipath; "
                             "docs/compare.md)")
    g.add_argument("--failover", action="store_true",
                   help="run nvmeof-qualify's failover workload (a verified 4 KiB randrw job over several paths, "
                        "one path broken and mended under it) for the engine and the kernel's native multipath, "
                        "--repeat times each, alternating; the longest stall side by side")
    g.add_argument("--fault", choices=qualify_failover.FAULTS,
                   help="testbed: port (nvmet port 1 removed, then re-created; default), ana or link")
    g.add_argument("--fault-cmd", metavar="CMD", help="real target: shell command that breaks one path")
    g.add_argument("--restore-cmd", metavar="CMD", help="real target: shell command that mends it")
    g.add_argument("--fault-at", type=int, metavar="S", help="seconds after fio starts (10)")
    g.add_argument("--restore-at", type=int, metavar="S", help="seconds after fio starts (20)")
    g.add_argument("--failover-runtime", type=int, metavar="S", help="seconds of each run (30)")
    g.add_argument("--mp-policy", choices=qualify_failover.POLICIES,
                   help="engine mp_policy / kernel iopolicy (numa)")
    g.add_argument("--qd", type=int, help="queue depth of the failover job (32)")


FAILOVER_ONLY = ("fault", "fault_cmd", "restore_cmd", "fault_at", "restore_at", "failover_runtime", "mp_policy", "qd")


def opt_name(attr):
    return "--" + attr.replace("_", "-")


def refuse_without_failover(a):
    """The matrix modes: a failover option there is a mistake, not something to ignore."""
    for k in FAILOVER_ONLY:
        if getattr(a, k) is not None:
            die("%s is for --failover" % opt_name(k))


def is_failover_dir(out):
    for f in ("plan.json", "report.json"):
        try:
            with open(os.path.join(out, f)) as fh:
                return json.load(fh).get("mode") == "failover"
        except (OSError, ValueError, AttributeError):
            continue
    return False


# ------------------------------------------------------------------ the plan
def check(a):
    """Refuse, with one line and exit 2, what does not fit --failover; fill in the defaults.
    Checked before anything boots or runs."""
    for k, name in (("matrix", "--matrix"), ("bench", "--bench"), ("quick", "--quick"), ("hosts", "--hosts"),
                    ("targets", "--targets"), ("spdk_plugin", "--spdk-plugin"), ("no_prefill", "--no-prefill"),
                    ("runtime", "--runtime"), ("cuda_device", "--cuda-device"), ("cuda_lib", "--cuda-lib"),
                    ("require_gpudirect", "--require-gpudirect"), ("tcp_port", "--tcp-port"),
                    ("hdr_digest", "--hdr-digest"), ("data_digest", "--data-digest")):
        if getattr(a, k):
            die("%s does not go with --failover (it runs qualify's failover job%s)" % (
                name, "; its length is --failover-runtime" if k == "runtime" else
                " with host memory" if k.startswith(("cuda", "require"))
                else " over RDMA" if k.startswith(("tcp", "hdr", "data"))
                else ", not a job matrix"))
    for k, v in DEFAULTS.items():
        if getattr(a, k) is None:
            setattr(a, k, v)
    if a.repeat < 1:
        die("--repeat must be at least 1")
    want = [x.strip() for x in (a.initiators or ",".join(INITIATORS)).split(",") if x.strip()]
    for w in want:
        if w not in INITIATORS:
            die("--failover compares the engine and the kernel initiator (native multipath): --initiators "
                "takes engine, kernel or both, not %r" % w)
    if not want:
        die("--initiators names no initiator")
    a.fo_initiators = [x for x in INITIATORS if x in want]
    if a.engine_opt and "engine" not in a.fo_initiators:
        die("--engine-opt: no engine initiator runs (--initiators %s)" % ",".join(a.fo_initiators))
    a.fo_chosen = bool(a.initiators)
    real = any(x is not None for x in (a.traddr, a.subnqn, a.nsid))
    if real and not (a.traddr and a.subnqn and a.nsid):
        die("a real target needs --traddr, --subnqn and --nsid (the namespace to use, named explicitly)")
    a.fo_real = real and not a.in_testbed
    if a.fo_real:
        if a.fault is not None:
            die("--fault is the testbed's own fault; on a real target give --fault-cmd CMD (and --restore-cmd CMD)")
        if not a.fault_cmd:
            die("--failover on a real target needs --fault-cmd CMD (a shell command that breaks one path, run "
                "--fault-at s into each run; --restore-cmd CMD mends it)")
        try:
            paths = qualify_failover.parse_paths(a.traddr, str(a.trsvcid))
        except ValueError as e:
            die("--traddr %s: %s" % (a.traddr, e))
        if len(paths) < 2:
            die("--failover needs several paths to the subsystem: --traddr ADDR:PORT,ADDR:PORT (got one: %s)"
                % qualify_failover.path_name(paths[0]))
        if not a.destructive:
            die("refusing: the failover job writes (a verified 70/30 random mix) to %s nsid %d; pass "
                "--destructive to allow writes to that namespace" % (a.subnqn, a.nsid))
    else:
        if a.fault_cmd or a.restore_cmd:
            die("--fault-cmd and --restore-cmd are for a real target (--traddr); the testbed injects "
                "--fault port|ana|link itself")
        if a.fault is None:
            a.fault = "port"
    if "engine" in a.fo_initiators and not os.path.isfile(a.engine):
        die("engine %s not found (run make, or --engine PATH)" % a.engine)
    qualify_check(a)


def qualify_args(a, initiator):
    """The nvmeof-qualify command line of one run (less --out / TESTBED_OUT)."""
    q = [sys.executable, QUALIFY, "--workloads", "failover", "--initiator", initiator, "--precondition", "none",
         "--size", a.size, "--qd", str(a.qd), "--fault-at", str(a.fault_at), "--restore-at", str(a.restore_at),
         "--failover-runtime", str(a.failover_runtime), "--mp-policy", a.mp_policy,
         "--engine", a.engine, "--fio", a.fio]
    if a.hostnqn:
        q += ["--hostnqn", a.hostnqn]
    if initiator == "engine":
        # qualify takes the GPU memory options as its own flags (--mem cuda, ...), the rest as is
        q += qualify.mem_args(a.engine_opt)
    if a.fo_real:
        q += ["--traddr", a.traddr, "--trsvcid", str(a.trsvcid), "--subnqn", a.subnqn, "--nsid", str(a.nsid),
              "--destructive", "--fault-cmd", a.fault_cmd]
        if a.restore_cmd:
            q += ["--restore-cmd", a.restore_cmd]
    else:
        q[2:2] = ["--in-testbed"]
        q += ["--fault", a.fault]
    return q


def qualify_check(a):
    """qualify's own checks (times, size, queue depth) on the command each run will get, so
    that they speak before anything boots.  The testbed's commands are checked as the host
    would give them (no --in-testbed: that skips the checks of a run inside the guest)."""
    for ini in a.fo_initiators:
        argv = [x for x in qualify_args(a, ini)[2:] if x != "--in-testbed"]
        try:
            qa = qualify.build_parser().parse_args(argv)
            qualify.check_args(qa)
        except qualify.Usage as e:
            die(str(e))


def plan_of(a):
    return {"mode": "failover", "tool": PROG, "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "initiators": a.fo_initiators, "initiators_chosen": a.fo_chosen, "repeat": a.repeat,
            "order": [[ini, r] for r in range(1, a.repeat + 1) for ini in a.fo_initiators],
            "settings": {"size": a.size, "qd": a.qd, "fault_at_s": a.fault_at, "restore_at_s": a.restore_at,
                         "runtime_s": a.failover_runtime, "mp_policy": a.mp_policy,
                         "job": "4 KiB randrw 70/30, verify=crc32c, over every path (nvmeof-qualify failover)"},
            "fault": {"testbed": a.fault, "fault_cmd": a.fault_cmd, "restore_cmd": a.restore_cmd},
            "target": ({"testbed": False, "traddr": a.traddr, "trsvcid": str(a.trsvcid), "subnqn": a.subnqn,
                        "nsid": a.nsid, "hostnqn": a.hostnqn} if a.fo_real else
                       {"testbed": True, "subnqn": os.environ.get("NQN"), "traddr": os.environ.get("TARGET_IP"),
                        "trsvcid": os.environ.get("TARGET_PORT"), "nsid": 1}),
            "engine": a.engine, "engine_opts": a.engine_opt or [], "fio": a.fio}


def fault_text(plan):
    f = plan["fault"]
    return ("testbed fault %s" % f["testbed"]) if f.get("testbed") else "--fault-cmd %s" % f["fault_cmd"]


# ------------------------------------------------------------------ main
def main(a):
    a.engine = os.path.abspath(a.engine)
    if "/" in a.fio:
        a.fio = os.path.abspath(a.fio)
    check(a)
    nruns = a.repeat * len(a.fo_initiators)
    if a.dry_run:
        print("%s: failover, %d runs (%s x %d, alternating), %d s each, fault at %d s, restore at %d s; %s; "
              "%s, qd %d, mp-policy %s; target %s" % (
                  PROG, nruns, ",".join(a.fo_initiators), a.repeat, a.failover_runtime, a.fault_at, a.restore_at,
                  "--fault-cmd " + a.fault_cmd if a.fo_real else "testbed fault " + a.fault, a.size, a.qd,
                  a.mp_policy, a.traddr if a.fo_real else "testbed")
              + ("; engine options %s" % " ".join(a.engine_opt) if a.engine_opt else ""))
        return 0
    if a.in_testbed:
        out = os.environ.get("TESTBED_OUT") or die("--in-testbed outside the testbed")
        return execute(a, os.path.abspath(out))
    out = os.path.abspath(a.out or os.path.join(REPO, "build", "compare", time.strftime("%Y%m%d-%H%M%S")))
    os.makedirs(out, exist_ok=True)
    for f in OUT_FILES:
        if os.path.exists(os.path.join(out, f)):
            os.unlink(os.path.join(out, f))
    shutil.rmtree(os.path.join(out, "runs"), ignore_errors=True)
    if a.fo_real:
        return execute(a, out)
    rc = boot(a, out, nruns)
    if rc not in (0, 1):
        print("%s: the testbed run exited %d" % (PROG, rc), file=sys.stderr)
    if rc == 130 or not os.path.exists(os.path.join(out, "plan.json")):
        return rc or 1
    # the guest made the report; remade here only where it could not finish it
    rrc = report(out, remake=not os.path.exists(os.path.join(out, "report.json")))
    return rc if rc not in (0, 1) else rrc


def boot(a, out, nruns):
    """The testbed, once, with this tool's guest half inside; its progress lines printed."""
    tb = os.path.join(REPO, "tests", "testbed", "testbed.sh")
    cmd_timeout = nruns * (a.failover_runtime + RUN_SLACK_S) + 120
    ns_mb = max(64, -(-qualify_size(a.size) // 2 ** 20) + 16)
    guest = [sys.executable, os.path.join(TOOLS, "nvmeof-compare"), "--failover", "--in-testbed",
             "--repeat", str(a.repeat), "--size", a.size,
             "--qd", str(a.qd), "--fault", a.fault, "--fault-at", str(a.fault_at), "--restore-at", str(a.restore_at),
             "--failover-runtime", str(a.failover_runtime), "--mp-policy", a.mp_policy,
             "--engine", a.engine, "--fio", a.fio] + (["--hostnqn", a.hostnqn] if a.hostnqn else []) + \
        [x for o in a.engine_opt or [] for x in ("--engine-opt", o)]
    if a.initiators:            # as given: a named initiator that cannot run is a failure, a default one a note
        guest += ["--initiators", a.initiators]
    # verify needs storage that keeps what was written: a file-backed namespace
    cmd = [tb, "--out", out, "--backing", "file", "--smp", str(a.testbed_smp), "--ns-mb", str(ns_mb),
           "--cmd-timeout", str(cmd_timeout), "--boot-timeout", str(cmd_timeout + 240), "--"] + guest
    logp = os.path.join(out, "testbed.log")
    print("%s: failover: %d runs of %d s (%s x %d) in the testbed, fault %s; worst case %d s; console log %s" % (
        PROG, nruns, a.failover_runtime, ",".join(a.fo_initiators), a.repeat, a.fault, cmd_timeout, logp), flush=True)
    return compare_run.run_streamed(cmd, logp, lambda s: s.startswith(("compare:", "testbed:", PROG)) or (
        s.startswith("qualify:") and "STOP" in s))


def qualify_size(s):
    return qualify.parse_size(s)


# ------------------------------------------------------------------ the runs
class Stop(Exception):
    pass


def _on_signal(signum, _frame):
    raise Stop("signal %d" % signum)


def kernel_missing():
    """Why qualify's kernel run cannot work here (None when it can): nvme-cli, and the
    kernel's native NVMe multipath to make one namespace of the paths."""
    if not shutil.which("nvme"):
        return "nvme-cli (nvme) not found"
    try:
        subprocess.run(["modprobe", "nvme-rdma"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        pass                    # not root, or no modprobe: nvme_core may be loaded anyway
    mp = qualify.kernel_multipath()
    if mp != "Y":
        return "the kernel's native NVMe multipath is off (nvme_core multipath: %s)" % mp
    return None


def execute(a, out):
    """Every run, engine and kernel alternating; runs.jsonl as they end; the report."""
    os.makedirs(os.path.join(out, "runs"), exist_ok=True)
    plan = plan_of(a)
    skipped = {}
    if "kernel" in a.fo_initiators:
        why = kernel_missing()
        if why:
            skipped["kernel"] = why
            say("failover kernel: not run: %s" % why)
    plan["skipped"] = skipped
    with open(os.path.join(out, "plan.json"), "w") as f:
        json.dump(plan, f, indent=1)
    manifest = os.path.join(out, "runs.jsonl")
    open(manifest, "w").close()
    old = {s: signal.signal(s, _on_signal) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        for ini, rep in plan["order"]:
            if ini in skipped:
                continue
            rec = one_run(a, out, ini, rep)
            with open(manifest, "a") as f:
                f.write(json.dumps(rec) + "\n")
            say(progress(rec, a.repeat))
    except (Stop, KeyboardInterrupt) as e:
        say("interrupted (%s): stopped" % (e or "SIGINT"))
        report(out, remake=True, quiet=True)
        return 130
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    return report(out, remake=True, quiet=bool(a.in_testbed))


def one_run(a, out, ini, rep):
    """One nvmeof-qualify run; its record from its report.json."""
    name = "%s-r%d" % (ini, rep)
    rdir = os.path.join(out, "runs", name)
    shutil.rmtree(rdir, ignore_errors=True)
    os.makedirs(rdir)
    cmd = qualify_args(a, ini)
    env = dict(os.environ)
    if a.fo_real:
        cmd += ["--out", rdir]
    else:
        env["TESTBED_OUT"] = rdir
    say("failover %s run %d/%d: nvmeof-qualify --workloads failover --initiator %s, output %s" % (
        ini, rep, a.repeat, ini, os.path.relpath(rdir, out)))
    t0 = time.time()
    limit = a.failover_runtime + RUN_LIMIT_SLACK_S
    with open(os.path.join(rdir, "qualify.log"), "w") as log:
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
        try:
            rc = p.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            rc = stop_child(p)
            log.write("\ncompare: qualify did not finish within %d s: stopped\n" % limit)
        except (Stop, KeyboardInterrupt):
            # qualify's own handler disconnects the kernel's paths and removes its port 2
            stop_child(p)
            raise
    return record(out, name, ini, rep, rc, round(time.time() - t0, 1))


def stop_child(p):
    p.send_signal(signal.SIGTERM)
    try:
        return p.wait(timeout=90)
    except subprocess.TimeoutExpired:
        p.kill()
        return p.wait()


def record(out, name, ini, rep, rc, secs):
    rdir = os.path.join("runs", name)
    rec = {"initiator": ini, "repeat": rep, "qualify_rc": rc, "secs": secs, "dir": rdir,
           "verdict": None, "failover_ms": None, "recovery_ms": None, "ios_moved": None, "failovers": None,
           "errors": None, "verify_failures": None, "io_errors": None, "note": None, "stopped": None,
           "report": None, "plot": None}
    try:
        with open(os.path.join(out, rdir, "report.json")) as f:
            q = json.load(f)
    except (OSError, ValueError) as e:
        rec["note"] = "no qualify report (%s; see %s/qualify.log)%s" % (
            getattr(e, "strerror", None) or e, rdir, last_words(os.path.join(out, rdir, "qualify.log")))
        return rec
    fo = ((q.get("workloads") or {}).get("failover") or {}).get("failover") or {}
    rec.update(verdict=q.get("verdict"), errors=q.get("errors"), verify_failures=q.get("verify_failures"),
               stopped=(q.get("stopped") or {}).get("reason"), report=os.path.join(rdir, "report.md"))
    for k in ("failover_ms", "recovery_ms", "ios_moved", "failovers", "note", "fault", "fault_ms", "fault_s",
              "restore_s", "gap_from_s", "gap_to_s", "first_completion_s", "completions", "kernel_paths",
              "mp_policy", "paths"):
        if fo.get(k) is not None:
            rec[k] = fo[k]
    rec["io_errors"] = fo.get("errors")
    for k in ("clat_log", "mp_stats"):
        if fo.get(k):
            rec[k] = os.path.join(rdir, fo[k])
    if fo.get("plot_svg"):
        rec["plot"] = os.path.join(rdir, fo["plot_svg"])
    if rec["failover_ms"] is None and fo.get("fault_s") is not None and fo.get("first_completion_s") is None:
        # qualify says so where fio got as far as a completion log; a fio whose connect the
        # fault broke has none (the engine connects its paths after fio's start)
        rec["hint"] = ("the fault ran %s s after fio started, before any I/O completed: give a later --fault-at"
                       % fo["fault_s"])
    return rec


def last_words(log):
    """qualify's last line (why it stopped before its report), as ': LINE', or ''."""
    try:
        with open(log, errors="replace") as f:
            lines = [l.strip() for l in f if l.strip()]
    except OSError:
        return ""
    return ": " + lines[-1][:300] if lines else ""


def good(rec):
    """The run measured a failover, with no error and a clean verify."""
    return (rec["qualify_rc"] == 0 and rec["failover_ms"] is not None and rec["errors"] == 0
            and rec["verify_failures"] == 0)


def why_not(rec, limit=None):
    """Why a run did not measure a failover cleanly: qualify's stop reason (it says what fio
    said), else its note; with the hint where there is one."""
    why = rec["stopped"] or rec["note"] or "qualify exited %s" % rec["qualify_rc"]
    if limit and len(why) > limit:
        why = why[:limit] + "..."
    return why + ("; " + rec["hint"] if rec.get("hint") else "")


def progress(rec, nrep):
    if rec["failover_ms"] is None:
        what = "longest stall not measured (%s)" % why_not(rec, 240)
    elif rec["initiator"] == "engine":
        what = "longest stall %d ms (recovery %s ms, %s I/Os moved, %s failover(s))" % (
            rec["failover_ms"], _n(rec["recovery_ms"]), _n(rec["ios_moved"]), _n(rec["failovers"]))
    else:
        what = "longest stall %d ms (%s paths)" % (rec["failover_ms"], len(rec.get("kernel_paths") or []) or "?")
    tail = "errors %s, %s" % (_n(rec["errors"]), "verify clean" if rec["verify_failures"] == 0 else
                               "verify FAILED" if rec["verify_failures"] else "verify not run")
    if rec["failover_ms"] is not None and rec["stopped"]:
        tail += "; stopped: %s" % rec["stopped"]
    return "failover %s run %d/%d: %s, %s" % (rec["initiator"], rec["repeat"], nrep, what, tail)


def _n(v):
    return "-" if v is None else str(v)


# ------------------------------------------------------------------ the report
def load(out):
    with open(os.path.join(out, "plan.json")) as f:
        plan = json.load(f)
    runs = []
    try:
        with open(os.path.join(out, "runs.jsonl")) as f:
            runs = [json.loads(l) for l in f if l.strip()]
    except OSError:
        pass
    return plan, runs


def summarize(plan, runs):
    """Per initiator: every run's numbers, the median/min/max of the measured stalls."""
    per = {}
    for ini in plan["initiators"]:
        rs = [r for r in runs if r["initiator"] == ini]
        ms = [r["failover_ms"] for r in rs if r["failover_ms"] is not None]
        per[ini] = {"runs": len(rs), "failover_ms": [r["failover_ms"] for r in rs],
                    "median_ms": statistics.median(ms) if ms else None,
                    "min_ms": min(ms) if ms else None, "max_ms": max(ms) if ms else None,
                    "not_measured": sum(1 for r in rs if r["failover_ms"] is None),
                    "errors": sum(r["errors"] or 0 for r in rs),
                    "verify_failures": sum(r["verify_failures"] or 0 for r in rs),
                    "failed_runs": sum(1 for r in rs if not good(r)),
                    "skipped": (plan.get("skipped") or {}).get(ini)}
        if ini == "engine":
            per[ini].update(recovery_ms=[r["recovery_ms"] for r in rs], ios_moved=[r["ios_moved"] for r in rs],
                            failovers=[r["failovers"] for r in rs])
        else:
            per[ini]["paths"] = [len(r.get("kernel_paths") or []) or None for r in rs]
    e, k = (per.get(x, {}).get("median_ms") for x in INITIATORS)
    ratio = round(e / k, 2) if e is not None and k else None
    return per, ratio


def verdict(plan, runs, per):
    """0: every run measured a failover, no error, verify clean (an initiator named and not
    run is a failure; one skipped by default is a note); 1 otherwise."""
    if not runs:
        return 1
    for ini, s in per.items():
        if s["skipped"] and plan.get("initiators_chosen"):
            return 1
        if not s["skipped"] and s["runs"] < plan["repeat"]:
            return 1
    return 0 if all(good(r) for r in runs) else 1


def fault_desc(plan, runs):
    """The fault as qualify described it (the first run's), else as asked; where the runs'
    differ (the link fault: each run's own device), the first run's, saying so."""
    seen = [r["fault"] for r in runs if r.get("fault")]
    if not seen:
        return fault_text(plan)
    return seen[0] if len(set(seen)) == 1 else "%s (the first run's; each run had its own)" % seen[0]


def report(out, remake=True, quiet=False):
    """Write report.json, report.md and report.txt (when REMAKE; otherwise read report.txt)
    and print the table; the exit status."""
    if not os.path.exists(os.path.join(out, "plan.json")):
        print("%s: no results in %s (plan.json missing)" % (PROG, out), file=sys.stderr)
        return 1
    if remake:
        txt, rc = write(out)
    else:
        try:
            with open(os.path.join(out, "report.json")) as f:
                rc = 0 if json.load(f)["ok"] else 1
            with open(os.path.join(out, "report.txt")) as f:
                txt = f.read()
        except (OSError, ValueError, KeyError):
            txt, rc = write(out)
    if not quiet:
        print()
        print(txt, end="")
        print()
        print("%s: report in %s/report.md, report.json; each run's qualify report in %s/runs/" % (PROG, out, out))
    return rc


def write(out):
    plan, runs = load(out)
    per, ratio = summarize(plan, runs)
    rc = verdict(plan, runs, per)
    rep = {"tool": PROG, "mode": "failover", "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "ok": rc == 0, "fault": fault_desc(plan, runs), "fault_request": plan["fault"],
           "settings": plan["settings"], "target": plan["target"], "repeat": plan["repeat"],
           "initiators": per, "ratio_engine_kernel_median": ratio, "runs": runs,
           "measure": "failover_ms: the longest time without a completion from the fault on, from fio's per-I/O "
                      "completion log (nvmeof-qualify's failover workload, docs/qualify.md)"}
    with open(os.path.join(out, "report.json"), "w") as f:
        json.dump(rep, f, indent=1)
    txt = text_table(rep)
    with open(os.path.join(out, "report.txt"), "w") as f:
        f.write(txt)
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(markdown(rep, txt))
    return txt, rc


def _list(vals):
    return ", ".join(_n(v) for v in vals) or "-"


def _num(v):
    if v is None:
        return "-"
    return ("%.1f" % v).rstrip("0").rstrip(".") if isinstance(v, float) else str(v)


def rows(rep):
    """[(initiator, per run, median, min-max, recovery, moved, errors, verify)] of the table."""
    out = []
    for ini, s in rep["initiators"].items():
        if s["skipped"]:
            out.append((ini, "not run: " + s["skipped"], "-", "-", "-", "-", "-", "-"))
            continue
        mm = "-" if s["min_ms"] is None else "%s-%s" % (s["min_ms"], s["max_ms"])
        out.append((ini, _list(s["failover_ms"]), _num(s["median_ms"]), mm,
                    _list(s["recovery_ms"]) if ini == "engine" else "-",
                    _list(s["ios_moved"]) if ini == "engine" else "-", str(s["errors"]), str(s["verify_failures"])))
    return out


HEAD = ("initiator", "longest stall per run (ms)", "median", "min-max", "recovery (ms)", "I/Os moved",
        "errors", "verify failures")


def text_table(rep):
    st = rep["settings"]
    lines = ["failover: %s" % rep["fault"],
             "  %s, qd %d, fault at %d s, restore at %d s, %d s per run, mp-policy %s, %d repeat(s) alternating" % (
                 st["size"], st["qd"], st["fault_at_s"], st["restore_at_s"], st["runtime_s"], st["mp_policy"],
                 rep["repeat"]), ""]
    tab = [HEAD] + rows(rep)
    w = [max(len(r[i]) for r in tab) for i in range(len(HEAD))]
    for r in tab:
        lines.append("  ".join(c.ljust(w[i]) for i, c in enumerate(r)).rstrip())
    lines.append("")
    lines.append("engine/kernel median stall: %s" % (_num(rep["ratio_engine_kernel_median"])
                                                     if rep["ratio_engine_kernel_median"] is not None else "-"))
    bad = [r for r in rep["runs"] if not good(r)]
    for r in bad:
        lines.append("run %s: %s" % (r["dir"], why_not(r)))
    lines.append("%s" % ("OK: every run measured a failover, no errors, verify clean" if rep["ok"] else "NOT OK"))
    return "\n".join(lines) + "\n"


def markdown(rep, txt):
    st = rep["settings"]
    L = ["# nvmeof-compare --failover", "",
         "Fault: %s; %s, queue depth %d, fault at %d s, restore at %d s, %d s per run, mp-policy %s; %d "
         "repeat(s), engine and kernel alternating. Target: %s." % (
             rep["fault"], st["job"], st["qd"], st["fault_at_s"], st["restore_at_s"], st["runtime_s"],
             st["mp_policy"], rep["repeat"],
             "the testbed" if rep["target"].get("testbed") else "%s (%s nsid %s)" % (
                 rep["target"]["traddr"], rep["target"]["subnqn"], rep["target"]["nsid"])), "",
         "Longest stall: the longest time without a completion from the fault on, from fio's per-I/O "
         "completion log, the same for both initiators (nvmeof-qualify's failover measure, "
         "docs/qualify.md). Recovery (engine): from the declared loss to the first completion on another "
         "path (its mp_stats).", "",
         "| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)]
    for r in rows(rep):
        L.append("| " + " | ".join(c.replace("|", "/") for c in r) + " |")
    L += ["", "engine/kernel median stall: **%s**" % _num(rep["ratio_engine_kernel_median"]), "",
          "## Runs", "", "| run | qualify | longest stall (ms) | gap (s from fio's start) | recovery (ms) | "
          "I/Os moved | errors | verify failures | plot | note |", "|---|---|---:|---|---:|---:|---:|---:|---|---|"]
    for r in rep["runs"]:
        gap = "-" if r.get("gap_from_s") is None else "%s-%s" % (r["gap_from_s"], r["gap_to_s"])
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            "[%s](%s)" % (r["dir"], r["report"]) if r.get("report") else r["dir"],
            "%s (exit %s)" % (r["verdict"] or "-", _n(r["qualify_rc"])), _n(r["failover_ms"]), gap,
            _n(r["recovery_ms"]), _n(r["ios_moved"]), _n(r["errors"]), _n(r["verify_failures"]),
            "[svg](%s)" % r["plot"] if r.get("plot") else "-",
            ("" if good(r) else why_not(r)).replace("|", "/")))
    L += ["", "```", txt.rstrip("\n"), "```", ""]
    return "\n".join(L)
