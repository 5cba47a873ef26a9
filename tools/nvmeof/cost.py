"""The per-I/O costs the emulator does not move: instructions (valgrind's callgrind), CQ polls,
system calls and doorbells in the fio job thread (strace), this engine beside SPDK's fio plugin,
against the kernel target and SPDK's.  Run by tests/bench/cost.sh (`make cost`).

  run     (in the testbed guest) every job x initiator x target at two I/O counts, N1 and N2;
          the raw counts go to OUT/cost.json, each run's files to OUT/runs/
  report  cost.json -> cost.md and the text table
  parse   one callgrind out file -> its per-object / per-function / call counts as JSON

Per I/O is always (count at N2 - count at N1) / (I/Os at N2 - I/Os at N1), the I/Os as fio's
JSON reports them: start-up and teardown cancel exactly."""
import argparse
import json
import os
import re
import subprocess
import sys
import time

from . import fiojson

# The jobs measured: name, rw, bs, iodepth.
JOBS = (
    ("randread-4k-qd1", "randread", "4k", 1),
    ("randread-4k-qd32", "randread", "4k", 32),
    ("randwrite-4k-qd32", "randwrite", "4k", 32),
    ("read-128k-qd8", "read", "128k", 8),
)
INITIATORS = ("engine", "spdk")
TARGETS = ("kernel", "spdk")
# The provider functions one CQ poll enters: ibv_poll_cq() is an inline call through the
# context's ops, so both the engine (lib/nvmf_rdma.c) and SPDK's nvme_rdma land in rxe_poll_cq;
# the extended-CQ interface (ibv_start_poll) would land in rxe_start_poll.  Debian's provider
# is stripped: callgrind names it by its address, which tests/bench/cost_provider.c finds
# (ops.poll_cq) in the guest; that name is added to these.
POLL_FNS = ("rxe_poll_cq", "rxe_start_poll")
GROUPS = ("fio", "engine", "spdk", "rxe", "libibverbs", "librdmacm", "libc", "other")
GROUP_LABEL = {"fio": "fio", "engine": "engine .so", "spdk": "SPDK libs (nvme, plugin, env, DPDK)",
               "rxe": "rxe provider", "libibverbs": "libibverbs", "librdmacm": "librdmacm",
               "libc": "libc", "other": "other (ld.so, libm, valgrind preload...)"}
# Goals of the issue: engine .so Ir/IO at most this, by iodepth; whole process at most this
# fraction of the SPDK plugin's, by iodepth.
GOAL_ENGINE_IR = {1: 700, 32: 600}
GOAL_RATIO = {1: 0.75, 32: 0.85}
# "No job-thread syscall per I/O beyond the doorbell": a few time-driven ones (a timer, a
# connection-event check) over a run are not per I/O; this much per I/O is.
OTHER_SYSCALL_LIMIT = 0.02


def say(msg):
    print("cost: %s" % msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- callgrind out format

class CallgrindError(ValueError):
    pass


def parse_callgrind(lines):
    """Self cost per object and per (object, function), and call counts per called function,
    from callgrind's out format (LINES: an iterable of str).  Handles name compression
    ("(id) name" defines, "(id)" refers; ob/cob share ids, fl/fi/fe/cfi/cfl share ids, fn/cfn
    share ids), any number of position columns, and the "calls=" lines, whose next cost line
    is the call's inclusive cost and is left out of self cost.  The first event (Ir) is used.
    Returns {"events", "total", "summary", "objects": {ob: Ir}, "functions": {"ob\\tfn": Ir},
    "calls": {"cob\\tcfn": count}} (a call's object is the caller's unless cob= says otherwise); the sum of self costs must equal the file's totals:/summary:."""
    names = {"ob": {}, "fl": {}, "fn": {}}
    kind_of = {"ob": "ob", "cob": "ob", "fl": "fl", "fi": "fl", "fe": "fl", "cfi": "fl",
               "cfl": "fl", "fn": "fn", "cfn": "fn"}
    npos = 1
    events = None
    ob = fn = None
    cob = cfn = None
    after_calls = False
    objects, functions, calls = {}, {}, {}
    total = 0
    summary = None
    totals = None
    for no, raw in enumerate(lines, 1):
        line = raw.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        c = line[0]
        if c.isdigit() or c in "+-*" or (c == "0" and line[1:2] == "x"):
            if events is None:
                raise CallgrindError("line %d: a cost line before the events: line" % no)
            parts = line.split()
            if len(parts) < npos:
                raise CallgrindError("line %d: cost line without %d positions" % (no, npos))
            vals = parts[npos:]
            ir = int(vals[0]) if vals else 0
            if after_calls:
                after_calls = False     # the call's inclusive cost: not self cost
                continue
            if fn is None:
                raise CallgrindError("line %d: cost line before any fn=" % no)
            objects[ob] = objects.get(ob, 0) + ir
            key = "%s\t%s" % (ob, fn)
            functions[key] = functions.get(key, 0) + ir
            total += ir
            continue
        m = re.match(r"([a-z]+)=(.*)$", line)
        if m and m.group(1) in kind_of:
            spec, val = m.group(1), m.group(2).strip()
            table = names[kind_of[spec]]
            cm = re.match(r"\((\d+)\)(?:\s+(.*))?$", val)
            if cm:
                if cm.group(2) is not None:
                    table[cm.group(1)] = cm.group(2)
                elif cm.group(1) not in table:
                    raise CallgrindError("line %d: %s=(%s) used before it is defined" % (no, spec, cm.group(1)))
                val = table[cm.group(1)]
            if spec == "ob":
                ob, fn = val, None
            elif spec == "fn":
                fn = val
            elif spec == "cob":
                cob = val
            elif spec == "cfn":
                cfn = val
            continue
        if line.startswith("calls="):
            parts = line[6:].split()
            if not parts or not parts[0].isdigit():
                raise CallgrindError("line %d: bad calls= line" % no)
            if cfn is None:
                raise CallgrindError("line %d: calls= without cfn=" % no)
            key = "%s\t%s" % (cob if cob is not None else ob, cfn)
            calls[key] = calls.get(key, 0) + int(parts[0])
            after_calls = True
            cob = cfn = None            # both name the target of this one call only
            continue
        if line.startswith("events:"):
            events = line.split(":", 1)[1].split()
            continue
        if line.startswith("positions:"):
            npos = len(line.split(":", 1)[1].split())
            continue
        if line.startswith("summary:"):
            summary = int(line.split()[1])
            continue
        if line.startswith("totals:"):
            totals = int(line.split()[1])
            continue
        # other header lines (version:, creator:, pid:, cmd:, part:, desc:, thread:, jump=...)
    ref = totals if totals is not None else summary
    if ref is None:
        raise CallgrindError("no totals: or summary: line (truncated file?)")
    if ref != total:
        raise CallgrindError("self costs sum to %d, the file's total is %d" % (total, ref))
    return {"events": events, "total": total, "summary": ref, "objects": objects,
            "functions": functions, "calls": calls}


def load_callgrind(path):
    with open(path, errors="replace") as f:
        try:
            return parse_callgrind(f)
        except CallgrindError as e:
            raise CallgrindError("%s: %s" % (path, e)) from None


def group_of(ob, engine_name="libfio_nvmeof.so"):
    """The report group of an object path (callgrind's ob=)."""
    b = os.path.basename(ob or "")
    if b == engine_name:
        return "engine"
    if b == "fio" or b.startswith("fio-"):
        return "fio"
    if b.startswith(("libspdk_", "librte_")) or b == "spdk_nvme":
        return "spdk"
    if b.startswith("librxe"):
        return "rxe"
    if b.startswith("libibverbs"):
        return "libibverbs"
    if b.startswith("librdmacm"):
        return "librdmacm"
    if b.startswith("libc.so") or b.startswith("libc-"):
        return "libc"
    return "other"


def summarize_callgrind(cg, engine_name="libfio_nvmeof.so", poll_fns=POLL_FNS):
    """What cost.json keeps of one callgrind file: totals per group and per object, the engine
    object's functions, the calls into the provider's POLL_FNS (in a librxe object)."""
    groups = dict.fromkeys(GROUPS, 0)
    for ob, ir in cg["objects"].items():
        groups[group_of(ob, engine_name)] += ir
    engine_fns = {}
    for key, ir in cg["functions"].items():
        ob, fn = key.split("\t", 1)
        if group_of(ob, engine_name) == "engine":
            engine_fns[fn] = engine_fns.get(fn, 0) + ir
    polls = dict.fromkeys(poll_fns, 0)
    for key, n in cg["calls"].items():
        ob, fn = key.split("\t", 1)
        if fn in polls and group_of(ob, engine_name) == "rxe":
            polls[fn] += n
    return {"total": cg["total"], "groups": groups,
            "objects": {os.path.basename(k or "?"): v for k, v in cg["objects"].items()},
            "engine_functions": engine_fns, "poll_calls": polls, "polls": sum(polls.values())}


def per_io(c1, c2, ios1, ios2):
    """The difference method: (c2 - c1) / (ios2 - ios1); None when the I/O counts do not grow."""
    if ios2 <= ios1:
        return None
    return (c2 - c1) / (ios2 - ios1)


# ---------------------------------------------------------------- strace -ff output

SYSCALL_RE = re.compile(r"^(?:\d+\s+)?([a-z_][a-z0-9_]*)\((.*)")
UVERBS = "</dev/infiniband/uverbs"


def strace_thread(path):
    """Syscall counts by name in one strace -ff file (strace -y: fds carry their paths); a
    write() to a uverbs fd (the provider's send doorbell on Soft-RoCE) is counted as
    "write:uverbs", any other call on a uverbs fd as "NAME:uverbs"."""
    counts = {}
    with open(path, errors="replace") as f:
        for line in f:
            m = SYSCALL_RE.match(line)
            if not m:
                continue        # "+++ exited", "--- SIGxxx", "<... resumed>"
            name = m.group(1)
            if m.group(2).split(",", 1)[0].find(UVERBS) >= 0:
                name += ":uverbs"
            counts[name] = counts.get(name, 0) + 1
    return counts


def job_thread(threads):
    """The fio job thread among THREADS ({tid: counts}): the one posting the most doorbells,
    then the one with the most system calls (fio's main thread only waits and reports)."""
    def key(t):
        c = threads[t]
        return (c.get("write:uverbs", 0), sum(c.values()))
    return max(threads, key=key) if threads else None


def job_threads(threads, njobs):
    """The job threads of NJOBS stonewalled jobs, in job order: the NJOBS threads posting the
    most doorbells (each job has a thread of its own; fio's main thread and SPDK's DPDK
    threads post none or a handful), ordered by thread id (created in job order).  None when
    fewer than NJOBS threads post any."""
    posting = [t for t in threads if threads[t].get("write:uverbs", 0) > 0]
    if len(posting) < njobs:
        return None
    if njobs == 1:
        return [job_thread({t: threads[t] for t in posting})]
    top = sorted(posting, key=lambda t: (threads[t].get("write:uverbs", 0), sum(threads[t].values())))[-njobs:]
    return sorted(top)


# ---------------------------------------------------------------- the guest run

def valgrind_tool():
    """(tool binary, VALGRIND_LIB, launcher) for running callgrind without the valgrind
    launcher: the SPDK plugin must be preloaded into fio only (it needs fio's symbols), and
    the launcher (a shell script on Debian, then a dynamic binary) would load it first."""
    for d in ("/usr/libexec/valgrind", "/usr/lib/x86_64-linux-gnu/valgrind", "/usr/lib/valgrind"):
        tool = os.path.join(d, "callgrind-amd64-linux")
        if os.access(tool, os.X_OK):
            launcher = "/usr/bin/valgrind.bin" if os.path.exists("/usr/bin/valgrind.bin") else "/usr/bin/valgrind"
            return tool, d, launcher
    return None


def job_name(initiator, job):
    return "%s-%s" % (initiator, job[0])


def job_text(cases, target, n, engine, env, engine_opts=()):
    """One fio job file running CASES ((initiator, job) pairs) one after another (stonewall),
    each for N I/Os, against TARGET; the engine's jobs also get ENGINE_OPTS (key=value)."""
    ip, port, nqn = env["TARGET_IP"], env["TARGET_PORT"], env["NQN"]
    if target == "spdk":
        port, nqn = env["SPDK_PORT"], env["SPDK_NQN"]
    # io_size past size: a sequential job wraps at the end of its 64 MiB region (512 I/Os
    # of 128 KiB) instead of ending there, so number_ios alone ends every job at N
    out = ["[global]", "thread=1", "numjobs=1", "size=64m", "io_size=1t", "norandommap=1",
           "randrepeat=1", "number_ios=%d" % n, ""]
    for ini, (name, rw, bs, qd) in cases:
        out += ["[%s]" % job_name(ini, (name,)), "rw=%s" % rw, "bs=%s" % bs, "iodepth=%d" % qd, "stonewall"]
        if ini == "engine":
            out += ["ioengine=external:%s" % engine, "traddr=%s" % ip, "trsvcid=%s" % port,
                    "subnqn=%s" % nqn, "nsid=1", "completion=poll"] + list(engine_opts)
        else:
            # fio wants ':' escaped inside a filename
            fn = "trtype=RDMA adrfam=IPv4 traddr=%s trsvcid=%s subnqn=%s ns=1" % (ip, port, nqn.replace(":", "\\:"))
            out += ["ioengine=spdk", "filename=%s" % fn]
        out.append("")
    return "\n".join(out)


def fio_ios(path, names):
    """Total I/Os per job name in fio's JSON at PATH (strict: exactly the jobs NAMES, in that
    order, none with an error)."""
    doc = fiojson.load(path)
    jobs = doc.get("jobs")
    if not isinstance(jobs, list) or [j.get("jobname") for j in jobs] != list(names):
        raise ValueError("%s: jobs %s, not %s" % (path, [j.get("jobname") for j in jobs or []], list(names)))
    res = {}
    for j in jobs:
        if j.get("error", 0):
            raise ValueError("%s: %s: job error %s" % (path, j["jobname"], j.get("error")))
        ios = 0
        for d in fiojson.DIRECTIONS:
            v = (j.get(d) or {}).get("total_ios", 0)
            if not isinstance(v, int):
                raise ValueError("%s: %s: %s.total_ios is not an integer" % (path, j["jobname"], d))
            ios += v
        res[j["jobname"]] = ios
    return res


def cg_parts(base, njobs):
    """The callgrind files of one run split with --dump-before=td_io_init (fio's per-job engine
    set-up, once per job): part 1 is fio's start-up, part k+1 job k (with the main thread's
    work meanwhile and the next job's thread set-up), the last (no suffix) ends at exit."""
    d, b = os.path.split(base + ".cg")
    files = [f for f in os.listdir(d) if f == b or f.startswith(b + ".")]
    parts = {}
    for f in files:
        with open(os.path.join(d, f), errors="replace") as fh:
            for line in fh:
                if line.startswith("part:"):
                    parts[int(line.split()[1])] = os.path.join(d, f)
                    break
                if line.startswith(("fn=", "ob=")):
                    break
    if sorted(parts) != list(range(1, njobs + 2)):
        raise RuntimeError("%s: callgrind parts %s, not 1..%d" % (os.path.basename(base), sorted(parts), njobs + 1))
    return [parts[k] for k in range(2, njobs + 2)]


def run_one(kind, cases, target, n, a, env, vg):
    """One fio process running CASES ((initiator, job) pairs, in that order) under callgrind
    (KIND "cg") or strace ("st"); returns {(initiator, job name): raw record}.  One process for
    all: fio's start-up under valgrind in the emulator takes about a minute, the per-job split
    keeps the numbers per job.  SPDK's plugin is preloaded when any case uses it (it only
    registers its engine until a job of its own starts: run its cases last)."""
    base = os.path.join(a.out, "runs", "%s-%s-%d" % (target, kind, n))
    d, b = os.path.split(base)
    for old in os.listdir(d):
        if old.startswith(b + "."):
            os.unlink(os.path.join(d, old))
    with open(base + ".fio", "w") as f:
        f.write(job_text(cases, target, n, a.engine, env, a.engine_opts.split()))
    fio_argv = [a.fio, "--eta=never", "--output-format=json", "--output=%s.json" % base, base + ".fio"]
    e = dict(os.environ)
    preload = ["LD_PRELOAD=%s" % env["SPDK_PLUGIN"]] if any(c[0] == "spdk" for c in cases) else []
    if kind == "cg":
        tool, lib, launcher = vg
        e.update({"VALGRIND_LIB": lib, "VALGRIND_LAUNCHER": launcher})
        if preload:
            e["LD_PRELOAD"] = env["SPDK_PLUGIN"]
        argv = [tool, "--tool=callgrind", "-q", "--dump-before=td_io_init",
                "--callgrind-out-file=%s.cg" % base] + fio_argv
    else:
        # env sets the preload for fio only (strace is a dynamic binary too)
        argv = ["strace", "-f", "-ff", "-y", "-o", base + ".st"] + (["env"] + preload if preload else []) + fio_argv
    t0 = time.monotonic()
    with open(base + ".log", "w") as logf:
        try:
            rc = subprocess.run(argv, stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=e, timeout=a.run_timeout).returncode
        except subprocess.TimeoutExpired:
            rc = 124
    wall = round(time.monotonic() - t0, 1)
    if rc != 0:
        raise RuntimeError("%s: exit %d (see %s.log)" % (b, rc, base))
    names = [job_name(ini, job) for ini, job in cases]
    ios = fio_ios(base + ".json", names)
    recs = {}
    for (ini, job), nm in zip(cases, names):
        recs[(ini, job[0])] = {"n": n, "ios": ios[nm], "wall_s": wall, "base": os.path.relpath(base, a.out)}
    if kind == "cg":
        for key, path in zip(recs, cg_parts(base, len(cases))):
            recs[key]["file"] = os.path.relpath(path, a.out)
            recs[key].update(summarize_callgrind(load_callgrind(path), os.path.basename(a.engine), a.poll_fns))
    else:
        threads = {}
        for fname in os.listdir(d):
            if fname.startswith(b + ".st."):
                threads[int(fname.rsplit(".", 1)[1])] = strace_thread(os.path.join(d, fname))
        jts = job_threads(threads, len(cases))
        if jts is None:
            raise RuntimeError("%s: fewer than %d threads posting doorbells (%s)" % (
                b, len(cases), {t: c.get("write:uverbs", 0) for t, c in threads.items()}))
        totals = {str(k): sum(c.values()) for k, c in threads.items()}
        for key, t in zip(recs, jts):
            recs[key]["threads"] = totals
            recs[key]["job_thread"] = t
            recs[key]["job_syscalls"] = threads[t]
    return recs


def spdk_target(action):
    """spdk-target start/stop, whichever state it is in (start refuses a running one)."""
    up = subprocess.run(["spdk-target", "running"], stdin=subprocess.DEVNULL).returncode == 0
    if up == (action == "start"):
        return
    r = subprocess.run(["spdk-target", action], stdin=subprocess.DEVNULL)
    if r.returncode != 0:
        raise RuntimeError("spdk-target %s: exit %d" % (action, r.returncode))


def cmd_run(a):
    env = dict(os.environ)
    for k in ("TARGET_IP", "TARGET_PORT", "NQN"):
        if not env.get(k):
            say("%s is not set: run inside the testbed (tests/bench/cost.sh)" % k)
            return 2
    vg = valgrind_tool()
    if vg is None:
        say("callgrind's tool binary not found (valgrind not installed?)")
        return 2
    have_spdk = bool(env.get("SPDK_PLUGIN")) and bool(env.get("SPDK_PORT"))
    initiators = [i for i in a.initiators.split(",") if i]
    targets = [t for t in a.targets.split(",") if t]
    jobs = [j for j in JOBS if j[0] in a.jobs.split(",")]
    if not jobs or any(i not in INITIATORS for i in initiators) or any(t not in TARGETS for t in targets):
        say("bad --jobs/--initiators/--targets")
        return 2
    if not have_spdk:
        initiators = [i for i in initiators if i != "spdk"]
        targets = [t for t in targets if t != "spdk"]
    os.makedirs(os.path.join(a.out, "runs"), exist_ok=True)
    a.poll_fns = list(POLL_FNS)
    provider = {}
    if a.provider_probe:
        r = subprocess.run([a.provider_probe], stdout=subprocess.PIPE, universal_newlines=True)
        for line in r.stdout.splitlines():
            p = line.split()
            if len(p) == 3:
                provider[p[2]] = {"object": p[0], "address": p[1]}
        if r.returncode != 0 or "poll_cq" not in provider:
            say("%s: no provider poll_cq found" % a.provider_probe)
            return 2
        a.poll_fns.append(provider["poll_cq"]["address"])
    doc = {"provider_ops": provider,"n1": a.n1, "n2": a.n2, "kernel": os.uname().release, "engine": a.engine,
           "spdk_plugin": env.get("SPDK_PLUGIN") if have_spdk else None,
           "jobs": [list(j) for j in jobs], "initiators": initiators, "targets": targets,
           "poll_functions": a.poll_fns, "results": [], "failed": []}
    out = os.path.join(a.out, "cost.json")

    def save():
        with open(out + ".tmp", "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
        os.replace(out + ".tmp", out)

    t_start = time.monotonic()
    for target in targets:
        if have_spdk:
            # nvmf_tgt's reactor busy-polls a guest CPU: only up while it is the target
            try:
                spdk_target("start" if target == "spdk" else "stop")
            except RuntimeError as e:
                say("FAILED: %s" % e)
                doc["failed"].append(str(e))
                continue
        cases = [(ini, job) for ini in initiators for job in jobs]   # the engine's first
        recs = {}
        err = None
        try:
            for kind in ("cg", "st"):
                for n in (a.n1, a.n2):
                    got = run_one(kind, cases, target, n, a, env, vg)
                    for key, rec in got.items():
                        recs.setdefault(key, {}).setdefault(kind, []).append(rec)
                    say("%s target, %s N=%d: %s I/Os, %.0f s" % (target, kind, n,
                        "/".join(str(r["ios"]) for r in got.values()), next(iter(got.values()))["wall_s"]))
        except (RuntimeError, ValueError, OSError) as e:
            say("FAILED: the %s target: %s" % (target, e))
            err = str(e)
            doc["failed"].append("%s target" % target)
        for ini, job in cases:
            r = {"job": job[0], "initiator": ini, "target": target}
            r.update(recs.get((ini, job[0]), {}))
            if err:
                r["error"] = err
            doc["results"].append(r)
        save()
    doc["guest_wall_s"] = round(time.monotonic() - t_start)
    save()
    return 1 if doc["failed"] else 0


# ---------------------------------------------------------------- the report

def derive(r):
    """The per-I/O numbers of one result (both runs of each kind present)."""
    if "error" in r or len(r.get("cg", [])) != 2 or len(r.get("st", [])) != 2:
        return None
    c1, c2 = r["cg"]
    s1, s2 = r["st"]
    if c2["ios"] <= c1["ios"] or s2["ios"] <= s1["ios"]:
        return None   # the job ended before N1 or N2: no difference to take
    d = {"ios": (c1["ios"], c2["ios"])}
    pi = lambda x1, x2: per_io(x1, x2, c1["ios"], c2["ios"])  # noqa: E731
    d["total"] = pi(c1["total"], c2["total"])
    d["groups"] = {g: pi(c1["groups"].get(g, 0), c2["groups"].get(g, 0)) for g in GROUPS}
    d["polls"] = pi(c1["polls"], c2["polls"])
    fns = set(c1["engine_functions"]) | set(c2["engine_functions"])
    d["engine_functions"] = {f: pi(c1["engine_functions"].get(f, 0), c2["engine_functions"].get(f, 0)) for f in fns}
    ps = lambda x1, x2: per_io(x1, x2, s1["ios"], s2["ios"])  # noqa: E731
    j1, j2 = s1["job_syscalls"], s2["job_syscalls"]
    d["syscalls"] = ps(sum(j1.values()), sum(j2.values()))
    d["doorbells"] = ps(j1.get("write:uverbs", 0), j2.get("write:uverbs", 0))
    d["syscall_names"] = {k: ps(j1.get(k, 0), j2.get(k, 0)) for k in set(j1) | set(j2)}
    d["other_syscalls"] = d["syscalls"] - d["doorbells"] if d["syscalls"] is not None else None
    return d


def fmt(v, nd=0):
    if v is None:
        return "-"
    return "{:,.{}f}".format(v, nd)


ROWS = (("whole process", lambda d: d["total"], 0),
        ("fio", lambda d: d["groups"]["fio"], 0),
        ("engine .so / SPDK libs", None, 0),
        ("rxe provider", lambda d: d["groups"]["rxe"], 0),
        ("libibverbs", lambda d: d["groups"]["libibverbs"], 0),
        ("librdmacm", lambda d: d["groups"]["librdmacm"], 0),
        ("libc", lambda d: d["groups"]["libc"], 0),
        ("other", lambda d: d["groups"]["other"], 0),
        ("CQ polls / IO", lambda d: d["polls"], 2),
        ("syscalls / IO, job thread", lambda d: d["syscalls"], 2),
        ("  doorbells (uverbs write) / IO", lambda d: d["doorbells"], 2),
        ("  other syscalls / IO", lambda d: d["other_syscalls"], 2))


def tables(doc, derived, md):
    """One table per target: rows as ROWS, a column pair engine/SPDK per job."""
    out = []
    jobs = [j[0] for j in doc["jobs"]]
    for target in doc["targets"]:
        out.append("%s target (%s): instructions per I/O (Ir), engine / SPDK plugin" % (
            target, "kernel nvmet, port 4420" if target == "kernel" else "SPDK nvmf_tgt, port 4421"))
        head = ["per I/O"] + jobs
        rows = []
        for label, f, nd in ROWS:
            row = [label]
            for jn in jobs:
                cells = []
                for ini in ("engine", "spdk"):
                    d = derived.get((jn, ini, target))
                    if ini not in doc["initiators"]:
                        continue
                    if d is None:
                        cells.append("FAILED" if (jn, ini, target) in derived else "-")
                        continue
                    if f is None:
                        v = d["groups"]["engine" if ini == "engine" else "spdk"]
                    else:
                        v = f(d)
                    cells.append(fmt(v, nd))
                row.append(" / ".join(cells))
            rows.append(row)
        if md:
            out.append("")
            out.append("| " + " | ".join(head) + " |")
            out.append("|" + "---|" * len(head))
            out += ["| " + " | ".join(r) + " |" for r in rows]
        else:
            w = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
            out.append("  ".join(h.ljust(w[i]) if i == 0 else h.rjust(w[i]) for i, h in enumerate(head)))
            out += ["  ".join(c.ljust(w[i]) if i == 0 else c.rjust(w[i]) for i, c in enumerate(r)) for r in rows]
        out.append("")
    return out


def goals(doc, derived):
    """(line, met) for each of the issue's goals that was measured."""
    res = []
    qd = {j[0]: j[3] for j in doc["jobs"]}
    for target in doc["targets"]:
        for jn, q in qd.items():
            if not jn.endswith("-4k-qd%d" % q) or q not in GOAL_ENGINE_IR:
                continue
            e = derived.get((jn, "engine", target))
            s = derived.get((jn, "spdk", target))
            if e:
                v = e["groups"]["engine"]
                res.append(("%s, %s target: engine .so %s Ir/IO <= %d" % (jn, target, fmt(v), GOAL_ENGINE_IR[q]),
                            v <= GOAL_ENGINE_IR[q]))
            if e and s and s["total"]:
                r = e["total"] / s["total"]
                res.append(("%s, %s target: whole process %s / SPDK %s = %.2fx <= %.2fx" % (
                    jn, target, fmt(e["total"]), fmt(s["total"]), r, GOAL_RATIO[q]), r <= GOAL_RATIO[q]))
        for jn in qd:
            e = derived.get((jn, "engine", target))
            if e and e["other_syscalls"] is not None:
                names = ", ".join("%s %.2f" % (k, v) for k, v in sorted(e["syscall_names"].items(), key=lambda kv: -kv[1])
                                  if k != "write:uverbs" and v >= 0.005)
                res.append(("%s, %s target: job-thread syscalls/IO beyond the doorbell %.3f < %.2f%s" % (
                    jn, target, e["other_syscalls"], OTHER_SYSCALL_LIMIT, " (%s)" % names if names else ""),
                    e["other_syscalls"] < OTHER_SYSCALL_LIMIT))
    return res


def engine_functions_table(doc, derived, top=12):
    out = []
    for target in doc["targets"]:
        jobs = [j[0] for j in doc["jobs"] if derived.get((j[0], "engine", target))]
        if not jobs:
            continue
        ref = derived[(jobs[1] if len(jobs) > 1 else jobs[0], "engine", target)]["engine_functions"]
        order = sorted(ref, key=lambda f: -ref[f])[:top]
        out.append("Engine .so functions by self Ir per I/O, %s target (the top %d at %s; difference method):" % (
            target, len(order), jobs[1] if len(jobs) > 1 else jobs[0]))
        out.append("")
        out.append("| function | " + " | ".join(jobs) + " |")
        out.append("|---|" + "---|" * len(jobs))
        for f in order:
            out.append("| `%s` | " % f + " | ".join(fmt(derived[(jn, "engine", target)]["engine_functions"].get(f), 0)
                                                     for jn in jobs) + " |")
        out.append("| (all engine .so) | " + " | ".join(fmt(derived[(jn, "engine", target)]["groups"]["engine"])
                                                       for jn in jobs) + " |")
        out.append("")
    return out


def syscall_table(doc, derived):
    out = ["Job-thread system calls per I/O by name (strace -f -ff -y; `write:uverbs` is the send doorbell):", ""]
    out.append("| job | initiator | target | syscalls per I/O |")
    out.append("|---|---|---|---|")
    for r in doc["results"]:
        d = derived.get((r["job"], r["initiator"], r["target"]))
        if not d:
            continue
        names = ", ".join("%s %.2f" % (k, v) for k, v in sorted(d["syscall_names"].items(), key=lambda kv: -kv[1])
                          if abs(v) >= 0.005)
        out.append("| %s | %s | %s | %s |" % (r["job"], r["initiator"], r["target"], names or "none"))
    out.append("")
    return out


def cmd_report(a):
    path = os.path.join(a.out, "cost.json")
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        say("%s: %s" % (path, e))
        return 2
    if a.wall is not None:
        doc["make_wall_s"] = a.wall
    if a.spdk_version:
        doc["spdk_version"] = a.spdk_version
    if a.commit:
        doc["commit"] = a.commit
    if a.skipped:
        doc["skipped"] = a.skipped
    with open(path, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
    derived = {}
    for r in doc["results"]:
        derived[(r["job"], r["initiator"], r["target"])] = derive(r)
    g = goals(doc, derived)
    md = ["# Cost per I/O: engine vs SPDK's fio plugin (`make cost`)", "",
          "Run %s, commit %s, guest kernel %s, SPDK %s; N1=%d, N2=%d I/Os per run, per I/O = "
          "(count at N2 - count at N1) / (I/Os at N2 - I/Os at N1); %s." % (
              time.strftime("%Y-%m-%d"), doc.get("commit", "?"), doc.get("kernel", "?"),
              doc.get("spdk_version") or "not built", doc["n1"], doc["n2"],
              "`make cost` took %d min %02d s" % divmod(int(doc["make_wall_s"]), 60) if "make_wall_s" in doc else "wall time not given"),
          ""]
    if doc.get("skipped"):
        md += ["Skipped: %s" % doc["skipped"], ""]
    md += ["Instructions: valgrind's callgrind, self Ir per object; CQ polls: calls into %s. "
           "Syscalls: strace -ff, the job thread (the one posting doorbells)." % " / ".join(doc["poll_functions"]), ""]
    md += tables(doc, derived, True)
    md += ["Goals:", ""]
    md += ["- %s: %s" % ("met" if ok else "MISSED", line) for line, ok in g]
    md += [""]
    md += engine_functions_table(doc, derived)
    md += syscall_table(doc, derived)
    if doc.get("failed"):
        md += ["Failed: " + "; ".join(doc["failed"]), ""]
    with open(os.path.join(a.out, "cost.md"), "w") as f:
        f.write("\n".join(md))
    print("\n".join(tables(doc, derived, False)))
    for line, ok in g:
        print("%s: %s" % ("met   " if ok else "MISSED", line))
    print("cost: report in %s" % os.path.join(a.out, "cost.md"))
    return 1 if doc.get("failed") else 0


def cmd_parse(a):
    try:
        cg = load_callgrind(a.file)
    except (OSError, CallgrindError) as e:
        say(str(e))
        return 1
    s = summarize_callgrind(cg)
    s["functions"] = cg["functions"]
    s["calls"] = cg["calls"]
    s["objects"] = cg["objects"]
    print(json.dumps(s, sort_keys=True))
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(prog="nvmeof-cost", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--out", required=True)
    r.add_argument("--engine", required=True)
    r.add_argument("--fio", default="fio")
    r.add_argument("--n1", type=int, default=2000)
    r.add_argument("--n2", type=int, default=12000)
    r.add_argument("--jobs", default=",".join(j[0] for j in JOBS))
    r.add_argument("--initiators", default=",".join(INITIATORS))
    r.add_argument("--targets", default=",".join(TARGETS))
    r.add_argument("--run-timeout", type=int, default=600)
    r.add_argument("--engine-opts", default="", help="key=value options added to the engine's jobs")
    r.add_argument("--provider-probe", help="tests/bench/cost_provider.c's binary")
    q = sub.add_parser("report")
    q.add_argument("--out", required=True)
    q.add_argument("--wall", type=int)
    q.add_argument("--spdk-version")
    q.add_argument("--commit")
    q.add_argument("--skipped")
    s = sub.add_parser("parse")
    s.add_argument("file")
    a = p.parse_args(argv)
    if a.cmd == "run":
        if a.n1 < 1 or a.n2 <= a.n1:
            say("need 1 <= N1 < N2 (got %d, %d)" % (a.n1, a.n2))
            return 2
        a.out = os.path.abspath(a.out)
        a.engine = os.path.abspath(a.engine)
        return cmd_run(a)
    if a.cmd == "report":
        return cmd_report(a)
    return cmd_parse(a)
