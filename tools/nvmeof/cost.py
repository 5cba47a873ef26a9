"""The per-I/O costs the emulator does not move: instructions (valgrind's callgrind), CQ polls,
system calls and doorbells in the fio job thread (strace), this engine beside SPDK's fio plugin,
against the kernel target and SPDK's.  Run by tests/bench/cost.sh (`make cost`).  Over RDMA by
default; the NVMe/TCP initiators (engine-tcp, spdk-tcp, kernel-tcp) when asked for by name: their
sends and receives on the socket in place of the doorbell, libc's memcpy calls as the copies,
and for the kernel initiator (libaio on nvme connect -t tcp's block device) the job thread's
system calls only (the kernel's own work is invisible to callgrind).

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
    ("write-128k-qd8", "write", "128k", 8),
)
INITIATORS = ("engine", "spdk", "engine-tcp", "spdk-tcp", "kernel-tcp")
# make cost's default: the RDMA initiators (the TCP ones add about as much time again)
DEFAULT_INITIATORS = ("engine", "spdk")
TCP_INITIATORS = ("engine-tcp", "spdk-tcp", "kernel-tcp")
# The order of one fio process's jobs: SPDK's plugin registers its engine only until a job of
# its own starts, so its jobs come last.
CASE_ORDER = ("engine", "engine-tcp", "kernel-tcp", "spdk", "spdk-tcp")
TARGETS = ("kernel", "spdk")
# The provider functions one CQ poll enters: ibv_poll_cq() is an inline call through the
# context's ops, so both the engine (lib/nvmf_rdma.c) and SPDK's nvme_rdma land in rxe_poll_cq;
# the extended-CQ interface (ibv_start_poll) would land in rxe_start_poll.  Debian's provider
# is stripped: callgrind names it by its address, which tests/bench/cost_provider.c finds
# (ops.poll_cq) in the guest; that name is added to these.
POLL_FNS = ("rxe_poll_cq", "rxe_start_poll")
# NVMe/TCP has no CQ: a poll is a call into the initiator's receive path, the engine's TCP
# transport poll or SPDK's TCP qpair processing (names as callgrind gives them; "'2" marks a
# recursive entry)
TCP_POLL_FNS = ("nvmf_tcp_poll", "nvme_tcp_qpair_process_completions")
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
# libc's copy functions (memcpy is an IFUNC: callgrind names the variant, e.g.
# __memmove_avx_unaligned_erms; __memcpy_chk where fortified): the calls into them from the
# initiator's own objects are the "copies" evidence.
MEMCPY_RE = re.compile(r"^_*(memcpy|memmove|mempcpy)(_|$)")


def transport_of(initiator):
    """The fabric an initiator of INITIATORS uses: "tcp" for the -tcp ones, else "rdma"."""
    return "tcp" if initiator.endswith("-tcp") else "rdma"


def kind_of(initiator):
    """engine, spdk or kernel."""
    return initiator.split("-", 1)[0]


def under_callgrind(initiator):
    """The kernel initiator's work is in the kernel, invisible to callgrind: strace only."""
    return kind_of(initiator) != "kernel"


def own_group(initiator):
    """The report group of the initiator's own code: the engine .so, SPDK's libraries."""
    return {"engine": "engine", "spdk": "spdk"}.get(kind_of(initiator))


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
    "calls": {"cob\\tcfn": count}, "call_pairs": {"ob\\tfn\\tcob\\tcfn": [count, inclusive Ir]}}
    (a call's object is the caller's unless cob= says otherwise; call_pairs keys by the calling
    object and function too); the sum of self costs must equal the file's totals:/summary:."""
    names = {"ob": {}, "fl": {}, "fn": {}}
    kind_of = {"ob": "ob", "cob": "ob", "fl": "fl", "fi": "fl", "fe": "fl", "cfi": "fl",
               "cfl": "fl", "fn": "fn", "cfn": "fn"}
    npos = 1
    events = None
    ob = fn = None
    cob = cfn = None
    after_calls = None
    objects, functions, calls, pairs = {}, {}, {}, {}
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
            if after_calls is not None:
                pairs[after_calls][1] += ir     # the call's inclusive cost: not self cost
                after_calls = None
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
            after_calls = "%s\t%s\t%s" % (ob, fn, key)
            pairs.setdefault(after_calls, [0, 0])[0] += int(parts[0])
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
            "functions": functions, "calls": calls, "call_pairs": pairs}


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
    object's functions and libc's, the calls into the provider's POLL_FNS (in a librxe object),
    and the calls into libc's copy functions (MEMCPY_RE) by calling group: "memcpy": {"calls":
    {group: count}, "ir": {group: inclusive Ir of those calls}, "self_ir": their self Ir in all,
    "fns": {"engine" or "spdk": {calling function: [count, inclusive Ir]}}}."""
    groups = dict.fromkeys(GROUPS, 0)
    for ob, ir in cg["objects"].items():
        groups[group_of(ob, engine_name)] += ir
    engine_fns, libc_fns = {}, {}
    memcpy_self = 0
    for key, ir in cg["functions"].items():
        ob, fn = key.split("\t", 1)
        g = group_of(ob, engine_name)
        if g == "engine":
            engine_fns[fn] = engine_fns.get(fn, 0) + ir
        elif g == "libc":
            libc_fns[fn] = libc_fns.get(fn, 0) + ir
            if MEMCPY_RE.match(fn):
                memcpy_self += ir
    mc_calls, mc_ir, mc_fns = {}, {}, {}
    for key, (n, ir) in cg.get("call_pairs", {}).items():
        caller, caller_fn, cob, cfn = key.split("\t", 3)
        if MEMCPY_RE.match(cfn) and group_of(cob, engine_name) == "libc":
            g = group_of(caller, engine_name)
            if g == "libc":
                continue        # libc's own (a fortified __memcpy_chk into the variant)
            mc_calls[g] = mc_calls.get(g, 0) + n
            mc_ir[g] = mc_ir.get(g, 0) + ir
            if g in ("engine", "spdk"):
                f = mc_fns.setdefault(g, {}).setdefault(caller_fn, [0, 0])
                f[0] += n
                f[1] += ir
    polls = dict.fromkeys(poll_fns, 0)
    tcp_polls = 0
    for key, n in cg["calls"].items():
        ob, fn = key.split("\t", 1)
        if fn in polls and group_of(ob, engine_name) == "rxe":
            polls[fn] += n
        elif fn.split("'", 1)[0] in TCP_POLL_FNS and group_of(ob, engine_name) in ("engine", "spdk"):
            tcp_polls += n
    return {"total": cg["total"], "groups": groups,
            "objects": {os.path.basename(k or "?"): v for k, v in cg["objects"].items()},
            "engine_functions": engine_fns, "libc_functions": libc_fns, "poll_calls": polls,
            "polls": sum(polls.values()), "tcp_polls": tcp_polls,
            "memcpy": {"calls": mc_calls, "ir": mc_ir, "self_ir": memcpy_self, "fns": mc_fns}}


def per_io(c1, c2, ios1, ios2):
    """The difference method: (c2 - c1) / (ios2 - ios1); None when the I/O counts do not grow."""
    if ios2 <= ios1:
        return None
    return (c2 - c1) / (ios2 - ios1)


# ---------------------------------------------------------------- strace -ff output

SYSCALL_RE = re.compile(r"^(?:\d+\s+)?([a-z_][a-z0-9_]*)\((.*)")
UVERBS = "</dev/infiniband/uverbs"
# a socket fd as strace -y shows it (socket:[inode]; -yy and newer straces name the protocol)
SOCKET_RE = re.compile(r"^\s*\d+<(?:socket:|TCP|UDP|UNIX|NETLINK)")
EAGAIN_RE = re.compile(r"=\s+-1\s+EAGAIN\b")
# NVMe/TCP's "doorbell" is a send on the socket; its completions come by receives
SEND_CALLS = ("sendmsg", "sendmmsg", "sendto", "send", "writev", "write", "pwritev", "pwritev2",
              "splice")
# data sent by reference: vmsplice of the buffer into a pipe, then splice from it to the socket
PIPE_RE = re.compile(r"^\s*\d+<pipe:")
RECV_CALLS = ("recvmsg", "recvmmsg", "recvfrom", "recv", "readv", "read", "preadv", "preadv2")
AIO_CALLS = ("io_submit", "io_getevents", "io_pgetevents", "io_uring_enter")
SYSCALL_CLASSES = ("doorbell", "send", "recv", "aio", "other")


def strace_thread(path):
    """Syscall counts by name in one strace -ff file (strace -y: fds carry their paths); a
    write() to a uverbs fd (the provider's send doorbell on Soft-RoCE) is counted as
    "write:uverbs", any other call on a uverbs fd as "NAME:uverbs", a call on a socket as
    "NAME:socket", and one of those that failed with EAGAIN (a receive that found nothing) as
    "NAME:socket:EAGAIN"."""
    counts = {}
    with open(path, errors="replace") as f:
        for line in f:
            m = SYSCALL_RE.match(line)
            if not m:
                continue        # "+++ exited", "--- SIGxxx", "<... resumed>"
            name = m.group(1)
            args = m.group(2).split(",", 3)   # in, off_in, out: as far as a send needs
            first = args[0]
            if name == "splice" and len(args) > 2:
                first = args[2]             # splice(in, off_in, out, ...): sent to "out"
            if name == "vmsplice" and PIPE_RE.match(first):
                name += ":pipe"
            elif first.find(UVERBS) >= 0:
                name += ":uverbs"
            elif SOCKET_RE.match(first):
                name += ":socket"
                if EAGAIN_RE.search(line):
                    name += ":EAGAIN"
            counts[name] = counts.get(name, 0) + 1
    return counts


def syscall_class(name):
    """The class of a name strace_thread counts: "doorbell" (write:uverbs), "send" and "recv"
    (SEND_CALLS, RECV_CALLS on a socket, EAGAIN or not), "aio" (AIO_CALLS: the kernel
    initiator's submit and reap), else "other"."""
    if name == "write:uverbs":
        return "doorbell"
    if name == "vmsplice:pipe":
        return "send"
    parts = name.split(":")
    if len(parts) > 1 and parts[1] == "socket":
        if parts[0] in SEND_CALLS:
            return "send"
        if parts[0] in RECV_CALLS:
            return "recv"
    if name in AIO_CALLS:
        return "aio"
    return "other"


def classify(counts):
    """COUNTS by name -> counts by SYSCALL_CLASSES, plus "recv_eagain" (the receives that found
    nothing) and "all"."""
    out = dict.fromkeys(SYSCALL_CLASSES, 0)
    out["recv_eagain"] = 0
    for k, v in counts.items():
        c = syscall_class(k)
        out[c] += v
        if c == "recv" and k.endswith(":EAGAIN"):
            out["recv_eagain"] += v
    out["all"] = sum(counts.values())
    return out


def submissions(counts):
    """What an I/O's submission costs the job thread, however it reaches the target: doorbells
    (RDMA), sends on a socket (NVMe/TCP in user space), io_submit (the kernel initiator)."""
    c = classify(counts)
    return c["doorbell"] + c["send"] + counts.get("io_submit", 0) + counts.get("io_uring_enter", 0)


def job_thread(threads):
    """The fio job thread among THREADS ({tid: counts}): the one submitting the most (doorbells,
    socket sends, io_submit), then the one with the most system calls (fio's main thread only
    waits and reports)."""
    def key(t):
        c = threads[t]
        return (submissions(c), sum(c.values()))
    return max(threads, key=key) if threads else None


def job_threads(threads, njobs):
    """The job threads of NJOBS stonewalled jobs, in job order: the NJOBS threads submitting
    the most (each job has a thread of its own; fio's main thread and SPDK's DPDK and admin
    threads submit none or a handful: the admin queue's connect and keep-alives), ordered by
    thread id (created in job order).  None when fewer than NJOBS threads submit any."""
    posting = [t for t in threads if submissions(threads[t]) > 0]
    if len(posting) < njobs:
        return None
    if njobs == 1:
        return [job_thread({t: threads[t] for t in posting})]
    top = sorted(posting, key=lambda t: (submissions(threads[t]), sum(threads[t].values())))[-njobs:]
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


# The testbed's ports (guest-init.sh): the kernel target listens for RDMA on TARGET_PORT and for
# TCP on TARGET_TCP_PORT, SPDK's on SPDK_PORT and SPDK_TCP_PORT.
PORT_VARS = {"kernel": {"rdma": "TARGET_PORT", "tcp": "TARGET_TCP_PORT"},
             "spdk": {"rdma": "SPDK_PORT", "tcp": "SPDK_TCP_PORT"}}
NQN_VARS = {"kernel": "NQN", "spdk": "SPDK_NQN"}


def target_addr(target, initiator, env):
    """(address, port, subsystem NQN) of TARGET (kernel, spdk) over INITIATOR's transport."""
    return env["TARGET_IP"], env[PORT_VARS[target][transport_of(initiator)]], env[NQN_VARS[target]]


def job_text(cases, target, n, engine, env, engine_opts=(), kernel_dev=None):
    """One fio job file running CASES ((initiator, job) pairs) one after another (stonewall),
    each for N I/Os, against TARGET; the engine's jobs also get ENGINE_OPTS (key=value);
    kernel-tcp runs libaio on KERNEL_DEV (nvme connect -t tcp's block device)."""
    # io_size past size: a sequential job wraps at the end of its 64 MiB region (512 I/Os
    # of 128 KiB) instead of ending there, so number_ios alone ends every job at N
    out = ["[global]", "thread=1", "numjobs=1", "size=64m", "io_size=1t", "norandommap=1",
           "randrepeat=1", "number_ios=%d" % n, ""]
    for ini, (name, rw, bs, qd) in cases:
        out += ["[%s]" % job_name(ini, (name,)), "rw=%s" % rw, "bs=%s" % bs, "iodepth=%d" % qd, "stonewall"]
        kind, tcp = kind_of(ini), transport_of(ini) == "tcp"
        if kind == "kernel":
            if not kernel_dev:
                raise RuntimeError("%s: no block device (nvme connect -t tcp)" % ini)
            out += ["ioengine=libaio", "filename=%s" % kernel_dev, "direct=1"]
            out.append("")
            continue
        ip, port, nqn = target_addr(target, ini, env)
        if kind == "engine":
            out += ["ioengine=external:%s" % engine, "traddr=%s" % ip, "trsvcid=%s" % port,
                    "subnqn=%s" % nqn, "nsid=1"] + (["transport=tcp"] if tcp else []) + \
                   ["completion=poll"] + list(engine_opts)
        else:
            # fio wants ':' escaped inside a filename
            fn = "trtype=%s adrfam=IPv4 traddr=%s trsvcid=%s subnqn=%s ns=1" % (
                "TCP" if tcp else "RDMA", ip, port, nqn.replace(":", "\\:"))
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


def run_one(kind, cases, target, n, a, env, vg, kernel_dev=None):
    """One fio process running CASES ((initiator, job) pairs, in that order) under callgrind
    (KIND "cg") or strace ("st"); returns {(initiator, job name): raw record}.  One process for
    all: fio's start-up under valgrind in the emulator takes about a minute, the per-job split
    keeps the numbers per job.  SPDK's plugin is preloaded when any case uses it (it only
    registers its engine until a job of its own starts: run its cases last).  KERNEL_DEV: the
    kernel-tcp cases' block device."""
    base = os.path.join(a.out, "runs", "%s-%s-%d" % (target, kind, n))
    d, b = os.path.split(base)
    for old in os.listdir(d):
        if old.startswith(b + "."):
            os.unlink(os.path.join(d, old))
    with open(base + ".fio", "w") as f:
        f.write(job_text(cases, target, n, a.engine, env, a.engine_opts.split(), kernel_dev))
    fio_argv = [a.fio, "--eta=never", "--output-format=json", "--output=%s.json" % base, base + ".fio"]
    e = dict(os.environ)
    preload = ["LD_PRELOAD=%s" % env["SPDK_PLUGIN"]] if any(kind_of(c[0]) == "spdk" for c in cases) else []
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
            raise RuntimeError("%s: fewer than %d threads submitting (doorbells, socket sends, "
                               "io_submit: %s)" % (b, len(cases), {t: submissions(c) for t, c in threads.items()}))
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


def kernel_tcp_initiator(target, env):
    """The kernel initiator over TCP to TARGET's subsystem: nvmeof-compare's (compare_run.
    KernelInitiator: nvme connect -t tcp, the namespace's block device found, disconnect()
    removing only the controllers it made)."""
    from .compare_run import KernelInitiator
    ip, port, nqn = target_addr(target, "kernel-tcp", env)
    return KernelInitiator({"traddr": ip, "trsvcid": port, "tcp_trsvcid": port, "subnqn": nqn,
                            "nsid": 1}, "tcp")


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
        say("bad --jobs/--initiators/--targets (initiators: %s; targets: %s)" % (
            ", ".join(INITIATORS), ", ".join(TARGETS)))
        return 2
    if any(transport_of(i) == "tcp" for i in initiators) and not env.get("TARGET_TCP_PORT"):
        say("TARGET_TCP_PORT is not set: the testbed has no NVMe/TCP port for %s" % ",".join(
            i for i in initiators if transport_of(i) == "tcp"))
        return 2
    if not have_spdk:
        initiators = [i for i in initiators if kind_of(i) != "spdk"]
        targets = [t for t in targets if t != "spdk"]
    elif not env.get("SPDK_TCP_PORT") and "spdk" in targets and any(transport_of(i) == "tcp" for i in initiators):
        say("SPDK_TCP_PORT is not set: SPDK's target has no NVMe/TCP listener here")
        return 2
    initiators = sorted(set(initiators), key=CASE_ORDER.index)
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
    ports = {t: {tr: env.get(v) for tr, v in PORT_VARS[t].items()} for t in targets}
    doc = {"provider_ops": provider, "n1": a.n1, "n2": a.n2, "kernel": os.uname().release, "engine": a.engine,
           "spdk_plugin": env.get("SPDK_PLUGIN") if have_spdk else None,
           "jobs": [list(j) for j in jobs], "initiators": initiators, "targets": targets, "ports": ports,
           "kernel_tcp_dev": {}, "poll_functions": a.poll_fns, "results": [], "failed": []}
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
        cases = [(ini, job) for ini in initiators for job in jobs]   # in CASE_ORDER
        recs = {}
        err, kerr = None, None
        kern = kernel_tcp_initiator(target, env) if "kernel-tcp" in initiators else None
        try:
            if kern is not None:
                if kern.connect():
                    doc["kernel_tcp_dev"][target] = kern.dev
                else:
                    # the other initiators still run; kernel-tcp's cases fail with the reason
                    kerr = "kernel-tcp: %s" % kern.why
                    say("FAILED: the %s target: %s" % (target, kerr))
                    doc["failed"].append("%s target, kernel-tcp" % target)
            for kind in ("cg", "st"):
                run = [c for c in cases if (kind == "st" or under_callgrind(c[0]))
                       and not (kerr and c[0] == "kernel-tcp")]
                if not run:
                    continue
                for n in (a.n1, a.n2):
                    got = run_one(kind, run, target, n, a, env, vg, kern.dev if kern else None)
                    for key, rec in got.items():
                        recs.setdefault(key, {}).setdefault(kind, []).append(rec)
                    say("%s target, %s N=%d: %s I/Os, %.0f s" % (target, kind, n,
                        "/".join(str(r["ios"]) for r in got.values()), next(iter(got.values()))["wall_s"]))
        except (RuntimeError, ValueError, OSError) as e:
            say("FAILED: the %s target: %s" % (target, e))
            err = str(e)
            doc["failed"].append("%s target" % target)
        finally:
            if kern is not None:
                kern.disconnect()
        for ini, job in cases:
            r = {"job": job[0], "initiator": ini, "target": target}
            r.update(recs.get((ini, job[0]), {}))
            if err or (kerr and ini == "kernel-tcp"):
                r["error"] = err or kerr
            doc["results"].append(r)
        save()
    doc["guest_wall_s"] = round(time.monotonic() - t_start)
    save()
    return 1 if doc["failed"] else 0


# ---------------------------------------------------------------- the report

def derive(r):
    """The per-I/O numbers of one result (both runs of each kind present; the kernel
    initiator's has no callgrind runs, and None for every instruction count)."""
    cg_kind = under_callgrind(r["initiator"])
    if "error" in r or len(r.get("st", [])) != 2 or (cg_kind and len(r.get("cg", [])) != 2):
        return None
    s1, s2 = r["st"]
    if s2["ios"] <= s1["ios"]:
        return None   # the job ended before N1 or N2: no difference to take
    d = {"ios": (s1["ios"], s2["ios"]), "total": None, "groups": dict.fromkeys(GROUPS), "polls": None,
         "tcp_polls": None,
         "engine_functions": {}, "libc_functions": {}, "memcpy_calls": None, "memcpy_ir": None,
         "memcpy_self_ir": None, "memcpy_fns": {}}
    if cg_kind:
        c1, c2 = r["cg"]
        if c2["ios"] <= c1["ios"]:
            return None
        d["ios"] = (c1["ios"], c2["ios"])
        pi = lambda x1, x2: per_io(x1, x2, c1["ios"], c2["ios"])  # noqa: E731
        d["total"] = pi(c1["total"], c2["total"])
        d["groups"] = {g: pi(c1["groups"].get(g, 0), c2["groups"].get(g, 0)) for g in GROUPS}
        d["polls"] = pi(c1["polls"], c2["polls"])
        d["tcp_polls"] = pi(c1["tcp_polls"], c2["tcp_polls"]) if "tcp_polls" in c1 and "tcp_polls" in c2 else None
        for k in ("engine_functions", "libc_functions"):
            f1, f2 = c1.get(k, {}), c2.get(k, {})
            d[k] = {f: pi(f1.get(f, 0), f2.get(f, 0)) for f in set(f1) | set(f2)}
        if "memcpy" in c1 and "memcpy" in c2:
            m1, m2, g = c1["memcpy"], c2["memcpy"], own_group(r["initiator"])
            d["memcpy_calls"] = pi(m1["calls"].get(g, 0), m2["calls"].get(g, 0))
            d["memcpy_ir"] = pi(m1["ir"].get(g, 0), m2["ir"].get(g, 0))
            d["memcpy_self_ir"] = pi(m1["self_ir"], m2["self_ir"])
            f1, f2 = m1.get("fns", {}).get(g, {}), m2.get("fns", {}).get(g, {})
            d["memcpy_fns"] = {f: (pi(f1.get(f, [0, 0])[0], f2.get(f, [0, 0])[0]),
                                   pi(f1.get(f, [0, 0])[1], f2.get(f, [0, 0])[1])) for f in set(f1) | set(f2)}
    ps = lambda x1, x2: per_io(x1, x2, s1["ios"], s2["ios"])  # noqa: E731
    j1, j2 = s1["job_syscalls"], s2["job_syscalls"]
    d["syscalls"] = ps(sum(j1.values()), sum(j2.values()))
    d["doorbells"] = ps(j1.get("write:uverbs", 0), j2.get("write:uverbs", 0))
    d["syscall_names"] = {k: ps(j1.get(k, 0), j2.get(k, 0)) for k in set(j1) | set(j2)}
    d["other_syscalls"] = d["syscalls"] - d["doorbells"] if d["syscalls"] is not None else None
    k1, k2 = classify(j1), classify(j2)
    d["syscall_classes"] = {k: ps(k1[k], k2[k]) for k in k1}
    return d


def fmt(v, nd=0):
    if v is None:
        return "-"
    return "{:,.{}f}".format(v, nd)


def _own(d, ini):
    return d["groups"][own_group(ini)]


def _sum_groups(d, names):
    vals = [d["groups"][g] for g in names]
    return None if any(v is None for v in vals) else sum(vals)


# Rows of the tables: (label, f(derived, initiator), decimals, callgrind's): a callgrind row of
# the kernel initiator reads "n/a" (its work is in the kernel, where callgrind does not see).
ROWS = (("whole process", lambda d, i: d["total"], 0, True),
        ("fio", lambda d, i: d["groups"]["fio"], 0, True),
        ("engine .so / SPDK libs", _own, 0, True),
        ("rxe provider", lambda d, i: d["groups"]["rxe"], 0, True),
        ("libibverbs", lambda d, i: d["groups"]["libibverbs"], 0, True),
        ("librdmacm", lambda d, i: d["groups"]["librdmacm"], 0, True),
        ("libc", lambda d, i: d["groups"]["libc"], 0, True),
        ("other", lambda d, i: d["groups"]["other"], 0, True),
        ("memcpy calls / IO from engine .so / SPDK libs", lambda d, i: d["memcpy_calls"], 2, True),
        ("  their Ir / IO", lambda d, i: d["memcpy_ir"], 0, True),
        ("CQ polls / IO", lambda d, i: d["polls"], 2, True),
        ("syscalls / IO, job thread", lambda d, i: d["syscalls"], 2, False),
        ("  doorbells (uverbs write) / IO", lambda d, i: d["doorbells"], 2, False),
        ("  other syscalls / IO", lambda d, i: d["other_syscalls"], 2, False))
TCP_ROWS = (("whole process", lambda d, i: d["total"], 0, True),
            ("fio", lambda d, i: d["groups"]["fio"], 0, True),
            ("engine .so / SPDK libs", _own, 0, True),
            ("libc", lambda d, i: d["groups"]["libc"], 0, True),
            ("other (ld.so, rdma libs...)",
             lambda d, i: _sum_groups(d, ("rxe", "libibverbs", "librdmacm", "other")), 0, True),
            ("memcpy calls / IO from engine .so / SPDK libs", lambda d, i: d["memcpy_calls"], 2, True),
            ("  their Ir / IO", lambda d, i: d["memcpy_ir"], 0, True),
            ("transport polls / IO", lambda d, i: d["tcp_polls"], 2, True),
            ("syscalls / IO, job thread", lambda d, i: d["syscalls"], 2, False),
            ("  sends on the socket / IO", lambda d, i: d["syscall_classes"]["send"], 2, False),
            ("  receives on the socket / IO", lambda d, i: d["syscall_classes"]["recv"], 2, False),
            ("    of which EAGAIN (nothing there)", lambda d, i: d["syscall_classes"]["recv_eagain"], 2, False),
            ("  io_submit + io_getevents / IO", lambda d, i: d["syscall_classes"]["aio"], 2, False),
            ("  other syscalls / IO", lambda d, i: d["syscall_classes"]["other"], 2, False))
# The tables: per transport, its initiators (the cell order) and rows
TABLES = (("rdma", ("engine", "spdk"), ROWS), ("tcp", TCP_INITIATORS, TCP_ROWS))
LABEL = {"spdk": "SPDK plugin"}
TARGET_WORDS = {"kernel": "kernel nvmet", "spdk": "SPDK nvmf_tgt"}
DEFAULT_PORTS = {"kernel": {"rdma": "4420", "tcp": "4420"}, "spdk": {"rdma": "4421", "tcp": "4431"}}


def tables(doc, derived, md):
    """Per target and transport one table: rows as ROWS (TCP_ROWS), a cell per job holding the
    transport's initiators that ran, in TABLES' order, separated by " / "."""
    out = []
    jobs = [j[0] for j in doc["jobs"]]
    for tr, inis, rows_def in TABLES:
        inis = [i for i in inis if i in doc["initiators"]]
        if not inis:
            continue
        for target in doc["targets"]:
            port = (doc.get("ports") or {}).get(target, {}).get(tr) or DEFAULT_PORTS[target][tr]
            out.append("%s target (%s, %s port %s): per I/O, %s" % (
                target, TARGET_WORDS[target], "RDMA" if tr == "rdma" else "NVMe/TCP", port,
                " / ".join(LABEL.get(i, i) for i in inis)))
            head = ["per I/O"] + jobs
            rows = []
            for label, f, nd, cg_row in rows_def:
                row = [label]
                for jn in jobs:
                    cells = []
                    for ini in inis:
                        d = derived.get((jn, ini, target))
                        if cg_row and not under_callgrind(ini):
                            cells.append("n/a")
                        elif d is None:
                            cells.append("FAILED" if (jn, ini, target) in derived else "-")
                        else:
                            cells.append(fmt(f(d, ini), nd))
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
            if tr == "tcp" and "kernel-tcp" in inis:
                out.append("")
                out.append("kernel-tcp: n/a where callgrind counts: the kernel initiator's work (nvme-tcp, "
                           "the block layer, TCP) is in the kernel, not in these counts; only its job "
                           "thread's system calls compare (its CPU per I/O: nvmeof-compare's /proc/stat).")
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
    for ini in ("engine", "engine-tcp"):
        if ini not in doc["initiators"]:
            continue
        for target in doc["targets"]:
            jobs = [j[0] for j in doc["jobs"] if derived.get((j[0], ini, target))]
            if not jobs:
                continue
            ref = derived[(jobs[1] if len(jobs) > 1 else jobs[0], ini, target)]["engine_functions"]
            order = sorted(ref, key=lambda f: -ref[f])[:top]
            out.append("Engine .so functions by self Ir per I/O, %s, %s target (the top %d at %s; difference "
                       "method):" % (ini, target, len(order), jobs[1] if len(jobs) > 1 else jobs[0]))
            out.append("")
            out.append("| function | " + " | ".join(jobs) + " |")
            out.append("|---|" + "---|" * len(jobs))
            for f in order:
                out.append("| `%s` | " % f + " | ".join(fmt(derived[(jn, ini, target)]["engine_functions"].get(f), 0)
                                                         for jn in jobs) + " |")
            out.append("| (all engine .so) | " + " | ".join(fmt(derived[(jn, ini, target)]["groups"]["engine"])
                                                           for jn in jobs) + " |")
            out.append("")
    return out


def libc_functions_table(doc, derived, top=10):
    """NVMe/TCP in user space: libc's functions by self Ir per I/O (the socket calls' wrappers,
    the copies), engine-tcp / spdk-tcp per job, the top TOP of either at any job."""
    out = []
    inis = [i for i in ("engine-tcp", "spdk-tcp") if i in doc["initiators"]]
    jobs = [j[0] for j in doc["jobs"]]
    for target in doc["targets"]:
        ds = {(jn, i): derived.get((jn, i, target)) for jn in jobs for i in inis}
        if not any(ds.values()):
            continue
        best = {}
        for d in ds.values():
            for f, v in (d or {}).get("libc_functions", {}).items():
                best[f] = max(best.get(f, 0), v or 0)
        order = sorted(best, key=lambda f: -best[f])[:top]
        out.append("libc functions by self Ir per I/O, NVMe/TCP, %s target (%s; the top %d):" % (
            target, " / ".join(inis), len(order)))
        out.append("")
        out.append("| function | " + " | ".join(jobs) + " |")
        out.append("|---|" + "---|" * len(jobs))
        for f in order + [None]:
            cells = []
            for jn in jobs:
                cells.append(" / ".join(
                    "-" if not ds[(jn, i)] else fmt(ds[(jn, i)]["groups"]["libc"] if f is None
                                                    else ds[(jn, i)]["libc_functions"].get(f, 0), 0)
                    for i in inis))
            out.append("| %s | " % ("(all libc)" if f is None else "`%s`" % f) + " | ".join(cells) + " |")
        out.append("")
    return out


def memcpy_table(doc, derived, top=6):
    """The copies, NVMe/TCP in user space: the calls into libc's memcpy variants per I/O by the
    engine's or SPDK's calling function, and their inclusive Ir per I/O ("calls (Ir)")."""
    out = []
    jobs = [j[0] for j in doc["jobs"]]
    for ini in ("engine-tcp", "spdk-tcp"):
        for target in doc["targets"]:
            ds = {jn: derived.get((jn, ini, target)) for jn in jobs}
            if not any(d and d.get("memcpy_fns") for d in ds.values()):
                continue
            best = {}
            for d in ds.values():
                for f, (n, _) in (d or {}).get("memcpy_fns", {}).items():
                    best[f] = max(best.get(f, 0), abs(n or 0))
            order = [f for f in sorted(best, key=lambda f: -best[f]) if best[f] >= 0.005][:top]
            out.append("memcpy calls per I/O (their Ir per I/O) by calling function, %s, %s target:" % (ini, target))
            out.append("")
            out.append("| caller | " + " | ".join(jobs) + " |")
            out.append("|---|" + "---|" * len(jobs))
            for f in order:
                out.append("| `%s` | " % f + " | ".join(
                    "-" if not ds[jn] else "%s (%s)" % tuple(fmt(v, nd) for v, nd in zip(
                        ds[jn]["memcpy_fns"].get(f, (0, 0)), (2, 0))) for jn in jobs) + " |")
            out.append("| (all) | " + " | ".join("-" if not ds[jn] else "%s (%s)" % (
                fmt(ds[jn]["memcpy_calls"], 2), fmt(ds[jn]["memcpy_ir"])) for jn in jobs) + " |")
            out.append("")
    return out


def syscall_table(doc, derived):
    out = ["Job-thread system calls per I/O by name (strace -f -ff -y; `write:uverbs` is the RDMA send "
           "doorbell, `NAME:socket` a call on a socket, `:EAGAIN` one that failed with EAGAIN):", ""]
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
    tcp = [i for i in doc["initiators"] if transport_of(i) == "tcp"]
    md = ["# Cost per I/O: engine vs SPDK's fio plugin%s (`make cost`)" % (
        ", over RDMA and NVMe/TCP" if tcp and len(tcp) < len(doc["initiators"]) else
        ", over NVMe/TCP" if tcp else ""), "",
          "Run %s, commit %s, guest kernel %s, SPDK %s; N1=%d, N2=%d I/Os per run, per I/O = "
          "(count at N2 - count at N1) / (I/Os at N2 - I/Os at N1); %s." % (
              time.strftime("%Y-%m-%d"), doc.get("commit", "?"), doc.get("kernel", "?"),
              doc.get("spdk_version") or "not built", doc["n1"], doc["n2"],
              "`make cost` took %d min %02d s" % divmod(int(doc["make_wall_s"]), 60) if "make_wall_s" in doc else "wall time not given"),
          ""]
    if doc.get("skipped"):
        md += ["Skipped: %s" % doc["skipped"], ""]
    md += ["Instructions: valgrind's callgrind, self Ir per object;%s memcpy: the calls from the "
           "initiator's own objects into libc's memcpy/memmove/mempcpy variants and their inclusive Ir. "
           "Syscalls: strace -ff, the job thread (the one submitting the most: doorbells, socket sends, "
           "io_submit)." % (" CQ polls: calls into %s;" % " / ".join(doc["poll_functions"])
                            if len(tcp) < len(doc["initiators"]) else ""), ""]
    if tcp:
        md += ["NVMe/TCP (%s): transport polls are the calls into %s; sends are sendmsg/sendto/writev/write "
               "and splice on the socket and vmsplice into a pipe (data sent by reference), receives readv/recvfrom/recvmsg/read on it; `kernel-tcp` is fio's libaio on the block device of "
               "`nvme connect -t tcp`%s, callgrind not run on it (its work is in the kernel)." % (
                   ", ".join(tcp), " / ".join(TCP_POLL_FNS), " (%s)" % ", ".join("%s target: %s" % kv for kv in sorted(
                       (doc.get("kernel_tcp_dev") or {}).items())) if doc.get("kernel_tcp_dev") else ""), ""]
    md += tables(doc, derived, True)
    md += ["Goals (the RDMA engine's):", ""]
    md += ["- %s: %s" % ("met" if ok else "MISSED", line) for line, ok in g] or ["- none measured (no `engine` column)"]
    md += [""]
    md += engine_functions_table(doc, derived)
    md += libc_functions_table(doc, derived)
    md += memcpy_table(doc, derived)
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
    r.add_argument("--initiators", default=",".join(DEFAULT_INITIATORS),
                   help="comma list of %s" % ", ".join(INITIATORS))
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
