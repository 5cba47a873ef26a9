"""tools/nvmeof-qualify: qualify an NVMe-oF RDMA target (and an initiator) with fio.

Precondition (sequential fill of twice the working set), the random workloads in rounds until
steady state (SNIA PTS, see qualify_steady) or --rounds-max, 128 KiB sequential read and write,
QD1 latency, a full verify pass, and on request a failover run (a fault injected under a
verified job over several paths); with --mem cuda every engine run in GPU memory, the data path
each took (from the engine's start lines) reported and gated (mem, gpudirect); gates from a
file; report.md and report.json in --out.
Exit 0 PASS, 1 FAIL, 2 usage error.  See docs/qualify.md."""
import argparse
import glob
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import uuid

from . import clientserver, datapath, engineopts, fiojson, gnuplot, qualify_failover, qualify_gates, qualify_steady
from .engineopts import STOP_GRACE_MS, EngineOptError, engine_has_option, parse_engine_opts

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(TOOLS)
SELF = os.path.join(TOOLS, "nvmeof-qualify")
ALL_WORKLOADS = ("randread", "randwrite", "randrw", "seqread", "seqwrite", "lat", "verify", "failover")
# failover is asked for by name: it needs several paths and, on a real target, a fault command
DEFAULT_WORKLOADS = ALL_WORKLOADS[:-1]
EX_PASS, EX_FAIL, EX_USAGE = 0, 1, 2
VERIFY_BS = "128k"
SEQ_BS = "128k"
FAILOVER_CTRL_LOSS_TMO = 600     # s: the kernel's default; a path comes back when the target does
FAILOVER_RECONNECT_DELAY = 1     # s: both initiators try a lost path again every second
RAND_BS = "4k"


# what the tool sets in the engine's runs itself: --engine-opt may not name these
ENGINE_OPTS_RESERVED = dict(
    engineopts.RESERVED, traddr="the paths: --traddr", host_traddr="the testbed's paths", mp_policy="--mp-policy",
    mp_stats="the failover run's record", ctrl_loss_tmo="the failover run", reconnect_delay="the failover run",
    nvmeof_mem="--mem", cuda_device="--cuda-device", gpudirect="--gpudirect", transport="--transport")


class Usage(Exception):
    pass


class Interrupted(Exception):
    def __init__(self, signum):
        super().__init__("interrupted by signal %d" % signum)
        self.signum = signum


def say(msg):
    print("qualify: " + msg, flush=True)


def parse_size(s):
    m = re.fullmatch(r"\s*([0-9]+)\s*([kKmMgGtT]?)(i?[bB])?\s*", s or "")
    if not m:
        raise Usage("--size %r: a number of bytes with an optional K/M/G/T suffix (e.g. 16M)" % s)
    n = int(m.group(1)) << (10 * " KMGT".index((m.group(2) or " ").upper()))
    if n <= 0 or n % (128 << 10):
        raise Usage("--size %s: must be a positive multiple of 128 KiB" % s)
    return n


def build_parser():
    p = argparse.ArgumentParser(
        prog="nvmeof-qualify",
        description="Qualify an NVMe-oF RDMA target: precondition, steady-state random "
                    "workloads, sequential, QD1 latency, verify; gates; report.md/report.json. "
                    "Exit 0 PASS, 1 FAIL, 2 usage error.")
    t = p.add_argument_group("target (default: the built-in testbed, tests/testbed/testbed.sh)")
    t.add_argument("--traddr", help="a real target's RDMA address (the qualification runs here), or a comma "
                                    "list of paths to the subsystem, ADDR[:PORT],ADDR[:PORT] (multipath: the "
                                    "engine's traddr list; the kernel initiator connects each)")
    t.add_argument("--trsvcid", default="4420", help="port of a path without one (default 4420)")
    t.add_argument("--subnqn", help="subsystem NQN")
    t.add_argument("--nsid", type=int, default=1, help="namespace (default 1)")
    t.add_argument("--hostnqn", help="host NQN (default: the engine's / nvme-cli's)")
    t.add_argument("--destructive", action="store_true",
                   help="required with --traddr or --dev: the qualification overwrites the working set")
    t.add_argument("--dev", help="kernel initiator: an already connected block device (no nvme connect)")
    p.add_argument("--initiator", choices=("engine", "kernel"), default="engine",
                   help="engine (this project's fio engine, default) or kernel (nvme-rdma, fio libaio)")
    p.add_argument("--transport", choices=("rdma", "tcp"), default="rdma",
                   help="the engine's fabric: rdma (default) or tcp (the engine's transport=tcp on every run; "
                        "the testbed's TCP port, or --trsvcid on a real target)")
    p.add_argument("--hosts", metavar="H1,H2:PORT,...",
                   help="run every workload on all these hosts at once through fio's client/server mode "
                        "(each runs `fio --server` and connects to --traddr itself): gates on the combined "
                        "numbers, per-host numbers in the report; engine initiator and --traddr only")
    p.add_argument("--size", default="1G", help="working set from offset 0 (default 1G; multiple of 128 KiB)")
    p.add_argument("--precondition", choices=("fill", "none"), default="fill",
                   help="fill: sequential 128 KiB writes over twice the working set (default); none")
    p.add_argument("--rounds-max", type=int, default=25, help="most rounds per random workload (default 25, at least 5)")
    p.add_argument("--round-time", type=int, default=60, help="seconds per round (default 60)")
    p.add_argument("--runtime", type=int, default=60, help="seconds of the sequential and QD1 runs (default 60)")
    p.add_argument("--qd", type=int, default=32, help="queue depth of the random workloads (default 32)")
    p.add_argument("--seq-qd", type=int, default=8, help="queue depth of the sequential runs, fill and verify (default 8)")
    p.add_argument("--workloads", default=",".join(DEFAULT_WORKLOADS),
                   help="comma list from %s (default all but failover)" % ",".join(ALL_WORKLOADS))
    p.add_argument("--gates", help="gates file (default: errors == 0, verify_failures == 0 only)")
    p.add_argument("--out", default="qualify-out", help="output directory (default ./qualify-out)")
    p.add_argument("--engine", default=os.path.join(REPO, "build", "libfio_nvmeof.so"), help="engine .so")
    p.add_argument("--engine-opt", action="append", metavar="KEY=VALUE",
                   help="an option of the engine for every run (repeatable), e.g. completion=event or, with --mem "
                        "cuda, gpu_reg=peermem; checked "
                        "against the engine's options and fio's parser before anything runs")
    p.add_argument("--fio", default="fio", help="fio binary (default fio)")
    g = p.add_argument_group("GPU memory (engine initiator)")
    g.add_argument("--mem", choices=("host", "cuda"), default="host",
                   help="the engine's buffers in every run: host memory (default) or cuda (GPU memory, the "
                        "engine's nvmeof_mem=cuda; the data path each run took is in the report)")
    g.add_argument("--cuda-device", metavar="N[,M...]",
                   help="--mem cuda: the engine's cuda_device, the GPU or a list (one per lane; default the "
                        "engine's, 0)")
    g.add_argument("--gpudirect", choices=("0", "1", "auto"),
                   help="--mem cuda: the engine's gpudirect: 1 the target moves data to and from GPU memory, "
                        "0 staged through host memory, auto GPUDirect where the memory registers, else staged "
                        "(default the engine's, 1)")
    g.add_argument("--cuda-lib", metavar="DIR",
                   help="--mem cuda: directory with the libcuda.so.1 the engine's runs load (prepended to their "
                        "LD_LIBRARY_PATH)")
    g.add_argument("--require-gpudirect", action="store_true",
                   help="--mem cuda: the gate gpudirect == used (every engine run took GPUDirect, via dma-buf "
                        "or peermem; a staged run fails it)")
    p.add_argument("--verify-pause-cmd",
                   help="shell command run between the verify pass's writes and its read-back "
                        "(e.g. restart the target: the data must survive)")
    f = p.add_argument_group("failover workload (--workloads ...,failover)")
    f.add_argument("--fault-cmd", metavar="CMD",
                   help="real target: shell command (/bin/sh) that breaks one path, run --fault-at s after fio "
                        "starts (required with failover and --traddr or --dev)")
    f.add_argument("--restore-cmd", metavar="CMD", help="real target: shell command that mends it, run at --restore-at")
    f.add_argument("--fault", choices=qualify_failover.FAULTS,
                   help="built-in testbed: port (nvmet port 1 removed, then re-created; default), ana "
                        "(its ANA group made inaccessible, then optimized) or link (the first path on a "
                        "Soft-RoCE device of its own, whose link is set down for good)")
    f.add_argument("--fault-at", type=int, default=10, help="seconds after fio starts (default 10)")
    f.add_argument("--restore-at", type=int, default=20, help="seconds after fio starts (default 20)")
    f.add_argument("--failover-runtime", type=int, default=30, help="seconds of the failover run (default 30)")
    f.add_argument("--mp-policy", choices=qualify_failover.POLICIES, default="numa",
                   help="engine mp_policy / kernel iopolicy over the paths (default numa)")
    p.add_argument("--testbed-timeout", type=int, help="testbed boot limit, s (default: from the sizes)")
    p.add_argument("--in-testbed", action="store_true", help=argparse.SUPPRESS)
    return p


def check_args(a):
    a.size_bytes = parse_size(a.size)
    if a.rounds_max < qualify_steady.WINDOW:
        raise Usage("--rounds-max %d: at least %d (the steady-state window)" % (a.rounds_max, qualify_steady.WINDOW))
    for name in ("round_time", "runtime", "qd", "seq_qd"):
        if getattr(a, name) < 1:
            raise Usage("--%s must be >= 1" % name.replace("_", "-"))
    wl = [w.strip() for w in a.workloads.split(",") if w.strip()]
    bad = [w for w in wl if w not in ALL_WORKLOADS]
    if bad or not wl:
        raise Usage("--workloads: unknown %s (known: %s)" % (",".join(bad) or "(empty)", ",".join(ALL_WORKLOADS)))
    a.wl = [w for w in ALL_WORKLOADS if w in wl]
    a.paths = None
    if a.traddr:
        try:
            a.paths = qualify_failover.parse_paths(a.traddr, str(a.trsvcid))
        except ValueError as e:
            raise Usage("--traddr %s: %s" % (a.traddr, e))
    if a.qd == 1 and "randread" in a.wl and "lat" in a.wl:
        raise Usage("--qd 1 makes randread the same workload as lat (randread qd1): pick another --qd")
    if a.traddr or a.dev:
        if a.traddr and a.dev:
            raise Usage("--traddr and --dev exclude each other")
        if a.traddr and not a.subnqn:
            raise Usage("--traddr needs --subnqn")
        if a.dev and a.initiator != "kernel":
            raise Usage("--dev is for --initiator kernel")
        if not a.destructive and not a.in_testbed:
            what = a.dev or "namespace %d of %s at %s" % (a.nsid, a.subnqn, ",".join(
                qualify_failover.path_name(x) for x in a.paths))
            raise Usage("refusing to run: the qualification overwrites %s of %s; add --destructive"
                        % (human(a.size_bytes), what))
    elif a.subnqn and not a.in_testbed:
        raise Usage("--subnqn without --traddr")
    a.host_list = None
    if a.hosts is not None:
        try:
            a.host_list = clientserver.parse_hosts(a.hosts)
        except ValueError as e:
            raise Usage("--hosts: %s" % e)
        if a.initiator != "engine":
            raise Usage("--hosts is for --initiator engine (the kernel initiator runs here only)")
        if not a.traddr:
            raise Usage("--hosts needs a real target (--traddr, --subnqn): the fio servers connect to it themselves")
        if a.size_bytes // len(a.host_list) < (128 << 10):
            raise Usage("--size %s: less than 128 KiB per host for the fill and verify slices" % a.size)
    check_failover_args(a)
    if a.initiator == "engine" and not os.path.exists(a.engine):
        raise Usage("engine %s not found (run make)" % a.engine)
    if a.transport == "tcp":
        if a.initiator != "engine":
            raise Usage("--transport tcp is for --initiator engine (the kernel initiator's fabric is the testbed's "
                        "nvme connect, or the --dev you connected)")
        if "failover" in a.wl:
            raise Usage("--transport tcp: the failover workload makes its second path over RDMA; leave it out "
                        "of --workloads")
        if not engine_has_option(a.fio, a.engine, "transport"):
            raise Usage("--transport tcp: the engine %s has no transport option (fio --enghelp does not list it: "
                        "an engine without NVMe/TCP)" % a.engine)
    check_mem_args(a)
    a.engine_opts = []
    if a.engine_opt:
        if a.initiator != "engine":
            raise Usage("--engine-opt is for --initiator engine")
        try:
            a.engine_opts = parse_engine_opts(a.engine_opt, a.fio, a.engine, ENGINE_OPTS_RESERVED)
        except EngineOptError as e:
            raise Usage(str(e))


def check_mem_args(a):
    """--mem and the GPU memory options: a.cuda_opts, the engine options they make (checked by
    fio's parser with the engine loaded, as --engine-opt is)."""
    a.cuda_opts = []
    if a.mem != "cuda":
        for opt, v in (("--cuda-device", a.cuda_device), ("--gpudirect", a.gpudirect), ("--cuda-lib", a.cuda_lib),
                       ("--require-gpudirect", True if a.require_gpudirect else None)):
            if v is not None:
                raise Usage("%s is for GPU memory: add --mem cuda" % opt)
        return
    if a.initiator != "engine":
        raise Usage("--mem cuda is for --initiator engine (the kernel initiator's buffers are host memory)")
    if a.cuda_lib is not None:
        if a.host_list is not None:
            raise Usage("--cuda-lib is this host's LD_LIBRARY_PATH: with --hosts each fio server loads its own "
                        "libcuda.so.1 (start it with LD_LIBRARY_PATH set)")
        try:
            a.cuda_lib = engineopts.check_cuda_lib(a.cuda_lib)
        except EngineOptError as e:
            raise Usage(str(e))
    a.cuda_opts = [("nvmeof_mem", "cuda")]
    for opt, key, v in (("--cuda-device", "cuda_device", a.cuda_device), ("--gpudirect", "gpudirect", a.gpudirect)):
        if v is None:
            continue
        try:
            engineopts.check_cuda_option(opt, key, v, a.fio, a.engine)
        except EngineOptError as e:
            raise Usage(str(e))
        a.cuda_opts.append((key, v))


MEM_OPTS = {"nvmeof_mem": "--mem", "cuda_device": "--cuda-device", "gpudirect": "--gpudirect"}


def mem_args(specs):
    """For a tool that runs nvmeof-qualify with --engine-opt KEY=VALUE specs of its own (compare
    --failover): the specs qualify sets through its GPU memory flags (nvmeof_mem, cuda_device,
    gpudirect; --engine-opt refuses them) as those flags, the rest as --engine-opt.  Returns the
    argument list."""
    out = []
    for spec in specs or []:
        key, sep, val = spec.partition("=")
        flag = MEM_OPTS.get(key.strip().lstrip("-")) if sep else None
        out += [flag, val] if flag else ["--engine-opt", spec]
    return out


def cuda_env(lib):
    """The environment of the engine's fio runs with --cuda-lib DIR: DIR first on LD_LIBRARY_PATH
    (the engine dlopens libcuda.so.1 in each job); None without."""
    if not lib:
        return None
    return dict(os.environ, LD_LIBRARY_PATH=engineopts.cuda_lib_path(lib))


def check_failover_args(a):
    real = bool(a.traddr or a.dev) and not a.in_testbed
    a.ctrl_loss_tmo = FAILOVER_CTRL_LOSS_TMO
    a.fault_desc = "--fault-cmd: " + a.fault_cmd if a.fault_cmd else None
    if "failover" not in a.wl:
        for opt, v in (("--fault-cmd", a.fault_cmd), ("--restore-cmd", a.restore_cmd), ("--fault", a.fault)):
            if v is not None:
                raise Usage("%s is for the failover workload: add it to --workloads (e.g. --workloads failover)" % opt)
        return
    if a.host_list is not None:
        raise Usage("--workloads failover is not for --hosts (one initiator host, its paths and the fault)")
    if real:
        if a.fault is not None:
            raise Usage("--fault is the built-in testbed's own fault; on a real target give --fault-cmd CMD")
        if not a.fault_cmd:
            raise Usage("--workloads failover on a real target needs --fault-cmd CMD (a shell command that breaks "
                        "one path, run --fault-at s into the run; --restore-cmd CMD mends it)")
        if a.traddr and len(a.paths) < 2:
            raise Usage("--workloads failover needs several paths to the subsystem: --traddr ADDR:PORT,ADDR:PORT "
                        "(got one: %s)" % qualify_failover.path_name(a.paths[0]))
    elif not a.in_testbed and (a.fault_cmd or a.restore_cmd):
        raise Usage("--fault-cmd and --restore-cmd are for a real target (--traddr or --dev); the built-in "
                    "testbed injects --fault port|ana itself")
    if a.fault is None:
        a.fault = "port"
    if a.failover_runtime < 3:
        raise Usage("--failover-runtime %d: at least 3 s" % a.failover_runtime)
    if not 1 <= a.fault_at < a.failover_runtime:
        raise Usage("--fault-at %d: from 1 s to before the run's end (--failover-runtime %d)"
                    % (a.fault_at, a.failover_runtime))
    if not a.fault_at < a.restore_at < a.failover_runtime:
        raise Usage("--restore-at %d: after --fault-at (%d) and before the run's end (--failover-runtime %d)"
                    % (a.restore_at, a.fault_at, a.failover_runtime))


def human(n):
    for unit, sh in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << sh and n % (1 << sh) == 0:
            return "%d %s" % (n >> sh, unit)
    return "%d bytes" % n


def workload_keys(a):
    """The workloads this run measures: [(key, kind)] in run order."""
    keys = []
    for w in a.wl:
        if w in qualify_gates.ROUND_WORKLOADS:
            keys.append(("%s qd%d" % (w, a.qd), w))
        elif w in ("seqread", "seqwrite"):
            keys.append(("%s qd%d" % (w, a.seq_qd), w))
        elif w == "lat":
            keys.append(("randread qd1", w))
    return keys


def load_gates(a):
    gates = qualify_gates.load(a.gates) if a.gates else []
    keys = [k for k, _ in workload_keys(a)]
    for g in gates:
        if g.metric in qualify_gates.FAILOVER_METRICS and "failover" not in a.wl:
            raise qualify_gates.GateError("%s: %s is measured by the failover workload, which this run does not "
                                          "run (add failover to --workloads)" % (g.where, g.metric))
        if g.key is not None and g.key not in keys:
            raise qualify_gates.GateError("%s: workload %s is not measured by this run (measured: %s)"
                                          % (g.where, g.key, ", ".join(keys) or "none"))
    for g in gates:
        if g.metric in qualify_gates.DATAPATH_METRICS and a.initiator != "engine":
            raise qualify_gates.GateError("%s: %s is read from the engine's start lines: the kernel initiator has "
                                          "none (--initiator kernel)" % (g.where, g.metric))
        if g.metric == "gpudirect" and a.mem != "cuda":
            raise qualify_gates.GateError("%s: gpudirect is for GPU memory: add --mem cuda" % g.where)
    if a.require_gpudirect and not any((g.metric, g.op, g.value) == ("gpudirect", "==", "used") for g in gates):
        gates.append(qualify_gates.parse_line("gpudirect == used", "--require-gpudirect"))
    have = {g.metric for g in gates}
    for m in qualify_gates.RUN_METRICS:
        if m not in have:
            g = qualify_gates.parse_line("%s == 0" % m, "implicit")
            gates.append(g)
    return gates


# ------------------------------------------------------------------ running fio
class Runner:
    def __init__(self, a, out):
        self.a, self.out = a, out
        self.fiodir = os.path.join(out, "fio")
        os.makedirs(self.fiodir, exist_ok=True)
        self.child = None
        self.runs = []
        self.errors = 0
        self.verify_failures = 0
        self.stopped = None
        self.dev = None
        # a time-based run's last commands on a loaded target can take seconds: the kernel
        # initiator waits for them, and so must the engine, or the step ends in an error
        self.stop_grace = a.initiator == "engine" and engine_has_option(a.fio, a.engine, "stop_grace")
        self.env = cuda_env(a.cuda_lib) if a.initiator == "engine" else None

    def target_args(self):
        a = self.a
        if a.initiator == "engine":
            args = ["--ioengine=external:" + a.engine, "--traddr=" + a.traddr,
                    "--trsvcid=" + str(a.trsvcid), "--subnqn=" + a.subnqn, "--nsid=%d" % a.nsid]
            if a.hostnqn:
                args.append("--hostnqn=" + a.hostnqn)
            if getattr(a, "host_traddrs", None):
                args.append("--host_traddr=" + ",".join(a.host_traddrs))
            if self.stop_grace:
                args.append("--stop_grace=%d" % STOP_GRACE_MS)
            if a.transport == "tcp":
                args.append("--transport=tcp")
            return args + ["--%s=%s" % kv for kv in a.cuda_opts + a.engine_opts]
        direct = 1 if os.path.exists(self.dev) and not os.path.isfile(self.dev) else 0
        return ["--ioengine=libaio", "--direct=%d" % direct, "--filename=" + self.dev]

    def host_jobs(self, name, args, sliced):
        """--hosts: the job file(s) of ARGS (fio's --KEY=VALUE options, the first --name=),
        fio/NAME.fio for every host, or with SLICED fio/NAME.HOST-N.fio each covering its own
        1/N of the working set (offset, size in 128 KiB units: fill and verify, where hosts
        writing the same blocks at once would make the check meaningless)."""
        kv = [x[2:].split("=", 1) for x in args]
        hosts = self.a.host_list
        sl = (self.a.size_bytes // len(hosts)) // (128 << 10) * (128 << 10)

        def text(i):
            lines = ["[%s]" % kv[0][1]]
            for k, v in kv[1:]:
                if sliced and k == "size":
                    v = str(sl)
                elif sliced and k == "offset":
                    v = str(i * sl)
                lines.append("%s=%s" % (k, v))
            return "\n".join(lines) + "\n"
        if not sliced:
            path = os.path.join(self.fiodir, name + ".fio")
            with open(path, "w") as f:
                f.write(text(0))
            return path
        files = {}
        for i, h in enumerate(hosts):
            files[h] = os.path.join(self.fiodir, "%s.host%d.fio" % (name, i + 1))
            with open(files[h], "w") as f:
                f.write(text(i))
        return files

    def run(self, name, label, opts, timeout, verify_phase=False, jobname=None, sliced=False, timed=None,
            workload=None):
        """One fio run; returns its record (also kept in self.runs).  Sets self.stopped on the
        first error or verify failure.  With --hosts: fio's client runs the job on every host
        (SLICED: each host on its own part of the working set); "metrics" are the combined
        numbers, "hosts" each host's.  TIMED: [{"name", "at", "cmd"[, "needs"]}] shell commands
        run while fio runs, AT seconds after it started (in order; one whose "needs" ran is run
        when fio ends before its time, or is interrupted); each gets its start and end (wall
        clock, ms), exit status and output file; rec["t0_ms"] is fio's start.  WORKLOAD: the
        workload the run belongs to (default NAME); an engine run gets the data path its start
        lines say (data_path, buffers) and its closing lines' CUDA copies (copies, None without)."""
        jpath = os.path.join(self.fiodir, name + ".json")
        lpath = os.path.join(self.fiodir, name + ".log")
        args = ["--name=" + (jobname or re.sub(r"-r[0-9]+$", "", name))] + self.target_args() + \
               ["--size=%d" % self.a.size_bytes, "--offset=0", "--lat_percentiles=1"] + opts
        hosts = self.a.host_list
        if hosts:
            cmd = [self.a.fio, "--eta=never", "--output-format=json"] + \
                clientserver.client_args(hosts, self.host_jobs(name, args, sliced))
        else:
            cmd = [self.a.fio, "--eta=never", "--output-format=json", "--output=" + jpath] + args
        rec = {"name": name, "label": label, "workload": workload or name, "json": os.path.relpath(jpath, self.out),
               "log": os.path.relpath(lpath, self.out), "cmd": " ".join(shlex.quote(c) for c in cmd)}
        t0 = time.time()
        rec["t0_ms"] = int(t0 * 1000)
        pending = [dict(x) for x in (timed or [])]
        if timed:
            rec["timed"] = pending[:]
        with open(lpath, "w") as log, open(jpath if hosts else os.devnull, "w") as jout:
            # a client's stdout: the servers' text lines, then the JSON (fiojson.parse skips the text)
            self.child = subprocess.Popen(cmd, stdout=jout if hosts else log, stderr=log if hosts else subprocess.STDOUT,
                                          stdin=subprocess.DEVNULL, env=self.env)
            try:
                rc = self.wait_child(t0, timeout, pending, name)
            except subprocess.TimeoutExpired:
                self.child.kill()
                self.child.wait()
                rc = None
            except Interrupted:
                self.kill_child()
                raise
            finally:
                self.child = None
                ran = {x["name"] for x in rec.get("timed", []) if "start_ms" in x}
                for x in pending:
                    if x.get("needs") in ran:
                        x["late"] = True
                        self.timed_cmd(x, name)
        rec["rc"] = rc
        rec["secs"] = round(time.time() - t0, 1)
        with open(lpath, errors="replace") as f:
            logtext = f.read()
        if hosts:
            try:
                with open(jpath, errors="replace") as f:
                    logtext += "\n".join(clientserver.text_lines(f.read())) + "\n"
            except OSError:
                pass
        if self.a.initiator == "engine":
            data_path_of_run(rec, logtext)
        why = None
        m = None
        try:
            doc = fiojson.load(jpath)
            if hosts:
                rows = clientserver.report_rows(doc, hosts)
                if clientserver.fill_percentiles(rows):
                    rec["lat_percentiles"] = "worst host's (fio's All clients has none)"
                rec["hosts"] = dict(rows[:-1])
                m = dict(rows[-1][1])
                for hm in rec["hosts"].values():      # an error on any host is the run's
                    m["error"] = m["error"] or hm["error"]
                m["total_err"] = sum(hm["total_err"] for hm in rec["hosts"].values())
            else:
                m = fiojson.job_metrics(doc["jobs"][0])
            rec["metrics"] = m
        except (OSError, ValueError, KeyError, IndexError) as e:
            why = "no fio JSON report (%s)" % e
        if rc is None:
            why = "fio did not finish within %d s" % timeout
        elif rc != 0 and not why:
            why = "fio exited %d" % rc
        elif rc != 0:
            why = "fio exited %d; %s" % (rc, why)
        if m and not why and (m["error"] or m["total_err"]):
            why = "job error %d (%s), %d I/O errors" % (m["error"], os.strerror(m["error"]) if m["error"] else "-",
                                                         m["total_err"])
        elif m and why and m["error"]:
            why += ": job error %d (%s)" % (m["error"], os.strerror(m["error"]))
        if why:
            lines = [l.strip() for l in logtext.split("\n")
                     if re.search(r"nvmeof:|verify|fio:|error|bad magic", l, re.I) and l.strip()
                     and not re.match(r"nvmeof: \S+: nqn\.\S+ .*cntlid", l.strip())]   # the start line
            # fio's verify complaint first, then the engine's and fio's error lines
            lines.sort(key=lambda l: 0 if re.search(r"verify failed|bad magic|bad header", l) else 1)
            if lines:
                why += "; fio said: " + " | ".join(lines[:3])
            is_verify = verify_phase and (re.search(r"verify|bad magic|bad header", logtext, re.I)
                                          or (m and m["error"] == 84))
            if is_verify:
                self.verify_failures += 1
                rec["verify_failure"] = True
            else:
                self.errors += 1
            rec["error"] = why
            self.stopped = {"run": name, "label": label,
                            "reason": ("verify failure: " if is_verify else "error: ") + why}
        self.runs.append(rec)
        if why:
            say("%s: STOP (%s)" % (label, self.stopped["reason"]))
        else:
            say("%s: %.0f IOPS, %.1f MiB/s, p99 %s us (%.1f s)%s%s" % (
                label, m["iops"], m["bw_bytes"] / 2.0 ** 20, fmt(m.get("lat_p99_us")), rec["secs"],
                "".join("; %s %.0f IOPS" % (k, hm["iops"]) for k, hm in rec.get("hosts", {}).items()),
                "; data path %s" % (", ".join(rec["data_path"]) or "unknown (no start line)")
                if self.a.mem == "cuda" else ""))
        return rec

    def wait_child(self, t0, timeout, pending, name):
        """fio's exit status; runs PENDING's commands at their times on the way (TimeoutExpired
        after TIMEOUT s)."""
        while True:
            el = time.time() - t0
            step = timeout - el
            if pending:
                step = min(step, pending[0]["at"] - el)
            try:
                return self.child.wait(timeout=max(0.01, step))
            except subprocess.TimeoutExpired:
                el = time.time() - t0
                if el >= timeout:
                    raise
                if pending and el >= pending[0]["at"]:
                    self.timed_cmd(pending.pop(0), name)

    def timed_cmd(self, x, name):
        x["out"] = os.path.relpath(os.path.join(self.fiodir, "%s.%s.out" % (name, x["name"])), self.out)
        say("%s: %s command at %.1f s: %s" % (name, x["name"], x["at"], x["cmd"]))
        x["start_ms"] = int(time.time() * 1000)
        with open(os.path.join(self.out, x["out"]), "w") as f:
            try:
                x["rc"] = subprocess.run(["/bin/sh", "-c", x["cmd"]], stdout=f, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, timeout=120).returncode
            except subprocess.TimeoutExpired:
                x["rc"] = None
        x["end_ms"] = int(time.time() * 1000)
        if x["rc"] != 0:
            say("%s: %s command %s" % (name, x["name"], "did not finish in 120 s" if x["rc"] is None
                                       else "exited %d" % x["rc"]))

    def kill_child(self):
        c = self.child
        if c is not None and c.poll() is None:
            c.terminate()
            try:
                c.wait(timeout=10)
            except subprocess.TimeoutExpired:
                c.kill()


def data_path_of_run(rec, logtext):
    """An engine run's data path from its fio log: the start lines' labels and buffers, the
    summed CUDA copies (None: no closing copies line), and, without a start line, the engine's
    first other line (why the job never started)."""
    rec["data_path"], rec["buffers"] = datapath.summary(logtext)
    rec["copies"] = datapath.copies(logtext)
    if not rec["buffers"]:
        said = [l.strip() for l in logtext.split("\n") if l.startswith("nvmeof: ") and not datapath.COPIES.match(l)]
        rec["engine_said"] = said[0] if said else None


def fmt(v, nd=1):
    if v is None:
        return "-"
    if isinstance(v, str):
        return v
    if v == int(v) and abs(v) < 1e15:
        return "%d" % v
    return "%.*f" % (nd, v)


def window_metrics(rounds, first, last, host=None):
    """A round workload's numbers over its measurement window (rounds FIRST..LAST, 1-based):
    IOPS, MiB/s and mean latency averaged over the rounds; percentiles the worst round's.
    HOST: that host's numbers of each round (--hosts) instead of the combined ones."""
    ms = [r["hosts"][host] if host else r["metrics"] for r in rounds[first - 1:last]]
    out = {"iops": sum(m["iops"] for m in ms) / len(ms),
           "bw_mib_s": sum(m["bw_bytes"] for m in ms) / len(ms) / 2.0 ** 20,
           "lat_mean_us": sum(m["lat_mean_us"] or 0 for m in ms) / len(ms)}
    for p in fiojson.PERCENTILES:
        k = "lat_p%s_us" % format(p, "g")
        vals = [m[k] for m in ms if m.get(k) is not None]
        out["p%s_lat_us" % format(p, "g")] = max(vals) if vals else None
    return out


def single_metrics(m):
    out = {"iops": m["iops"], "bw_mib_s": m["bw_bytes"] / 2.0 ** 20, "lat_mean_us": m["lat_mean_us"]}
    for p in fiojson.PERCENTILES:
        out["p%s_lat_us" % format(p, "g")] = m.get("lat_p%s_us" % format(p, "g"))
    return out


def qualify(a, out, gates):
    """Run the suite against the target in A; returns the report dict."""
    r = Runner(a, out)
    if a.initiator == "kernel":
        r.dev = a.dev
    workloads = {}
    tb = lambda secs: ["--time_based=1", "--runtime=%d" % secs]
    seq_to = 3600 + a.size_bytes // (1 << 20)
    keys = workload_keys(a)
    # (label, fn) steps, each a function that runs and returns False to stop
    try:
        if a.precondition == "fill":
            r.run("precondition", "precondition: sequential fill x2",
                  ["--rw=write", "--bs=" + SEQ_BS, "--iodepth=%d" % a.seq_qd, "--loops=2"], seq_to * 2, sliced=True,
                  workload="precondition")
        for key, kind in keys:
            if r.stopped:
                break
            name = key.replace(" ", "-")
            if kind in qualify_gates.ROUND_WORKLOADS:
                opts = ["--rw=" + kind, "--bs=" + RAND_BS, "--iodepth=%d" % a.qd, "--norandommap=1",
                        "--randrepeat=0"] + (["--rwmixread=70"] if kind == "randrw" else []) + tb(a.round_time)
                rounds = []
                for i in range(1, a.rounds_max + 1):
                    rec = r.run("%s-r%02d" % (name, i), "%s round %d/%d" % (key, i, a.rounds_max),
                                opts, a.round_time + 300, workload=key)
                    if r.stopped:
                        break
                    rounds.append(rec)
                    if qualify_steady.is_steady_now([x["metrics"]["iops"] for x in rounds]):
                        break
                series = [x["metrics"]["iops"] for x in rounds]
                ss = qualify_steady.evaluate(series)
                wl = {"kind": kind, "rounds": [{"round": i + 1, "iops": x["metrics"]["iops"], "json": x["json"]}
                                               for i, x in enumerate(rounds)],
                      "steady_state": ss}
                if rounds:
                    wl["metrics"] = window_metrics(rounds, ss["window_first"], ss["window_last"])
                    if a.host_list:
                        wl["hosts"] = {h: window_metrics(rounds, ss["window_first"], ss["window_last"], h)
                                       for h in rounds[0]["hosts"]}
                        for x, y in zip(wl["rounds"], rounds):
                            x["hosts_iops"] = {h: hm["iops"] for h, hm in y["hosts"].items()}
                    say("%s: steady state %s (rounds %d-%d, average %.0f IOPS)" % (
                        key, "reached" if ss["reached"] else "NOT reached",
                        ss["window_first"], ss["window_last"], ss["avg"]))
                workloads[key] = wl
            elif kind in ("seqread", "seqwrite"):
                rec = r.run(name, key + " (128 KiB sequential)",
                            ["--rw=" + kind[3:], "--bs=" + SEQ_BS, "--iodepth=%d" % a.seq_qd] + tb(a.runtime),
                            a.runtime + 300, workload=key)
                workloads[key] = {"kind": kind, "json": rec["json"]}
                if not r.stopped:
                    workloads[key]["metrics"] = single_metrics(rec["metrics"])
                    if a.host_list:
                        workloads[key]["hosts"] = {h: single_metrics(hm) for h, hm in rec["hosts"].items()}
            elif kind == "lat":
                rec = r.run(name, key + " (QD1 latency)",
                            ["--rw=randread", "--bs=" + RAND_BS, "--iodepth=1", "--norandommap=1",
                             "--randrepeat=0"] + tb(a.runtime), a.runtime + 300, workload=key)
                workloads[key] = {"kind": kind, "json": rec["json"]}
                if not r.stopped:
                    workloads[key]["metrics"] = single_metrics(rec["metrics"])
                    if a.host_list:
                        workloads[key]["hosts"] = {h: single_metrics(hm) for h, hm in rec["hosts"].items()}
        if "verify" in a.wl and not r.stopped:
            vopts = ["--rw=write", "--bs=" + VERIFY_BS, "--iodepth=%d" % a.seq_qd, "--verify=crc32c",
                     "--randrepeat=1", "--verify_state_save=0"]
            r.run("verify-write", "verify: write the working set (crc32c)", vopts + ["--do_verify=0"], seq_to,
                  jobname="verify", sliced=True, workload="verify")
            if not r.stopped and a.verify_pause_cmd:
                say("verify: running --verify-pause-cmd: %s" % a.verify_pause_cmd)
                p = subprocess.run(a.verify_pause_cmd, shell=True)
                if p.returncode != 0:
                    r.errors += 1
                    r.stopped = {"run": "verify-pause-cmd", "label": "verify pause command",
                                 "reason": "error: --verify-pause-cmd exited %d" % p.returncode}
                    say("verify pause command: STOP (%s)" % r.stopped["reason"])
            if not r.stopped:
                r.run("verify-read", "verify: read back and check every block",
                      vopts + ["--do_verify=1", "--verify_only=1", "--verify_fatal=1"], seq_to, verify_phase=True,
                      jobname="verify", sliced=True, workload="verify")
        if "failover" in a.wl and not r.stopped:
            workloads["failover"] = run_failover(a, r)
    finally:
        r.kill_child()
    return build_report(a, r, workloads, gates)


def run_failover(a, r):
    """The failover workload: a verified 70/30 random mix over every path for --failover-runtime
    s, the fault command at --fault-at, the restore command at --restore-at; returns the
    workload's record (the failover numbers under "failover")."""
    name = "failover"
    base = os.path.join(r.fiodir, name)
    for f in glob.glob(base + "_*.log") + glob.glob(base + ".mp.json"):
        os.unlink(f)
    opts = ["--rw=randrw", "--rwmixread=70", "--bs=" + RAND_BS, "--iodepth=%d" % a.qd,
            "--verify=crc32c", "--verify_backlog=%d" % max(16, 2 * a.qd), "--verify_state_save=0",
            "--time_based=1", "--runtime=%d" % a.failover_runtime,
            "--write_lat_log=" + base, "--log_avg_msec=0", "--log_unix_epoch=1", "--disable_slat=1"]
    if a.initiator == "engine":
        opts += ["--mp_policy=" + a.mp_policy, "--mp_stats=" + base + ".mp.json",
                 "--ctrl_loss_tmo=%ds" % a.ctrl_loss_tmo, "--reconnect_delay=%ds" % FAILOVER_RECONNECT_DELAY]
    timed = [{"name": "fault", "at": a.fault_at, "cmd": a.fault_cmd}]
    if a.restore_cmd:
        timed.append({"name": "restore", "at": a.restore_at, "cmd": a.restore_cmd, "needs": "fault"})
    rec = r.run(name, "failover (%s, fault at %d s, restore at %d s)" % (a.fault_desc, a.fault_at, a.restore_at),
                opts, a.failover_runtime + 300, verify_phase=True, timed=timed, workload="failover")
    fault = rec["timed"][0]
    restore = rec["timed"][1] if len(rec["timed"]) > 1 else None
    t0 = rec["t0_ms"]
    rel = lambda ms: None if ms is None else round((ms - t0) / 1000.0, 3)
    fo = {"fault": a.fault_desc, "fault_cmd": a.fault_cmd, "restore_cmd": a.restore_cmd,
          "fault_at_s": a.fault_at, "restore_at_s": a.restore_at, "runtime_s": a.failover_runtime,
          "paths": [qualify_failover.path_name(x) for x in a.paths] if a.paths else None,
          "mp_policy": a.mp_policy if a.initiator == "engine" else getattr(a, "kernel_iopolicy", None),
          "fio_start_ms": t0, "fault_ms": fault.get("start_ms"), "restore_ms": (restore or {}).get("start_ms"),
          "fault_s": rel(fault.get("start_ms")), "restore_s": rel((restore or {}).get("start_ms")),
          "fault_rc": fault.get("rc"), "restore_rc": (restore or {}).get("rc"),
          "clat_log": os.path.relpath(base + "_clat.1.log", r.out),
          "failover_ms": None, "recovery_ms": None, "ios_moved": None, "failovers": None,
          "errors": (rec.get("metrics") or {}).get("total_err"), "verify_failures": 1 if rec.get("verify_failure") else 0}
    if a.initiator == "kernel":
        fo["kernel_paths"] = getattr(a, "kernel_paths", None)
    for x in (fault, restore):
        if x is not None and "start_ms" in x and x["rc"] != 0 and not r.stopped:
            r.errors += 1
            r.stopped = {"run": name, "label": "failover %s command" % x["name"],
                         "reason": "error: --%s-cmd %s (output: %s)" % (
                             x["name"], "did not finish in 120 s" if x["rc"] is None else "exited %d" % x["rc"],
                             x["out"])}
            say("failover: STOP (%s)" % r.stopped["reason"])
    if "start_ms" not in fault:
        fo["note"] = "the fault command never ran: fio ended %.1f s after it started" % rec["secs"]
    try:
        times = qualify_failover.completion_times(base + "_clat.1.log")
    except (OSError, ValueError) as e:
        times = None
        fo["note"] = "no completion log: %s" % e
    if times is not None:
        fo["completions"] = len(times)
        fo["first_completion_s"] = rel(times[0]) if times else None
        fo["timeline"] = [[round(x, 3), y] for x, y in qualify_failover.timeline(times, t0)]
        if fo["fault_ms"] is not None and times and fo["fault_ms"] < times[0]:
            fo["note"] = ("the fault ran %.1f s after fio started, before its first completion (%.1f s): fio was "
                          "still starting (connecting); give a later --fault-at" % (fo["fault_s"], fo["first_completion_s"]))
        elif fo["fault_ms"] is not None:
            gap, gs, ge = qualify_failover.longest_gap(times, fo["fault_ms"])
            fo["failover_ms"], fo["gap_from_s"], fo["gap_to_s"] = gap, rel(gs), rel(ge)
            if gap is None:
                fo["note"] = "no I/O completed after the fault"
    if fo.get("note") and not r.stopped:
        # the run did not measure what it is for: an error, as a failed run is
        r.errors += 1
        rec["error"] = "failover not measured: " + fo["note"]
        r.stopped = {"run": name, "label": "failover", "reason": "error: " + rec["error"]}
        say("failover: STOP (%s)" % r.stopped["reason"])
    if a.initiator == "engine" and os.path.exists(base + ".mp.json"):
        try:
            mp = qualify_failover.mp_summary(base + ".mp.json")
            fo.update(recovery_ms=mp["recovery_ms"], ios_moved=mp["ios_moved"], failovers=mp["failovers"],
                      events=mp["events"], path_stats=mp["paths"], mp_stats=os.path.relpath(base + ".mp.json", r.out))
        except (OSError, ValueError, KeyError) as e:
            fo["note"] = "mp_stats unreadable: %s" % e
    if fo["failover_ms"] is not None:
        say("failover: longest time without a completion from the fault on %d ms%s" % (
            fo["failover_ms"], "" if a.initiator != "engine" else "; engine: %s failover(s), recovery %s ms, %s I/Os moved"
            % (fo["failovers"], fmt(fo["recovery_ms"]), fmt(fo["ios_moved"]))))
    wl = {"kind": "failover", "json": rec["json"], "failover": fo}
    if rec.get("metrics") and not rec.get("error"):
        wl["metrics"] = single_metrics(rec["metrics"])
    return wl


def build_report(a, r, workloads, gates):
    measured_run = {"errors": r.errors, "verify_failures": r.verify_failures}
    fo = (workloads.get("failover") or {}).get("failover") or {}
    for m in qualify_gates.FAILOVER_METRICS:
        measured_run[m] = fo.get(m)
    dp_runs = [{"workload": x["workload"], "run": x["name"], "buffers": x["buffers"], "said": x.get("engine_said")}
               for x in r.runs if "buffers" in x]
    results = []
    for g in gates:
        if g.metric in qualify_gates.DATAPATH_METRICS:
            d = g.as_dict()
            d["measured"], ok, why = qualify_gates.datapath_result(g, dp_runs)
            d["result"] = "PASS" if ok else "FAIL"
            if why:
                d["why"] = why
            results.append(d)
            continue
        if g.workload is None:
            val = measured_run[g.metric]
        else:
            wl = workloads.get(g.key)
            if g.metric == qualify_gates.STEADY_METRIC:
                ss = (wl or {}).get("steady_state")
                val = None if not ss or not wl.get("rounds") else ("reached" if ss["reached"] else "not_reached")
            else:
                val = ((wl or {}).get("metrics") or {}).get(g.metric)
        d = g.as_dict()
        d["measured"] = val
        d["result"] = "PASS" if g.check(val) else "FAIL"
        results.append(d)
    verdict = "PASS" if all(d["result"] == "PASS" for d in results) and not r.stopped else "FAIL"
    return {
        "tool": "nvmeof-qualify", "verdict": verdict,
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "target": target_desc(a), "initiator": a.initiator, "transport": a.transport, "hosts": a.host_list,
        "settings": {"engine_opts": ["%s=%s" % kv for kv in a.engine_opts],
                     "mem": a.mem, "cuda_device": a.cuda_device, "gpudirect": a.gpudirect, "cuda_lib": a.cuda_lib,
                     "require_gpudirect": a.require_gpudirect,
                     "size": a.size_bytes, "precondition": a.precondition, "rounds_max": a.rounds_max,
                     "round_time_s": a.round_time, "runtime_s": a.runtime, "qd": a.qd, "seq_qd": a.seq_qd,
                     "workloads": a.wl, "gates_file": a.gates,
                     "failover": {"fault": a.fault_desc, "fault_at_s": a.fault_at, "restore_at_s": a.restore_at,
                                  "runtime_s": a.failover_runtime, "mp_policy": a.mp_policy,
                                  "ctrl_loss_tmo_s": a.ctrl_loss_tmo,
                                  "reconnect_delay_s": FAILOVER_RECONNECT_DELAY} if "failover" in a.wl else None,
                     "steady_state": {"window": qualify_steady.WINDOW,
                                      "data_excursion": qualify_steady.DATA_EXCURSION,
                                      "slope_excursion": qualify_steady.SLOPE_EXCURSION}},
        "stopped": r.stopped, "errors": r.errors, "verify_failures": r.verify_failures,
        "gates": results, "workloads": workloads, "runs": r.runs,
        "data_path": data_path_report(a, r.runs, workloads) if a.initiator == "engine" else None,
    }


def data_path_report(a, runs, workloads):
    """report.json's data_path: the memory asked for, and per workload (in run order: precondition,
    the measured workloads, verify, failover) the data path its engine runs' start lines say,
    their buffers (each distinct one once), the fallback reasons, the runs without a start line,
    and the CUDA copies summed over its runs with their share of its runs' fio runtime.  Each
    measured workload's entry in WORKLOADS gets its labels as data_path too."""
    dp = {"memory": a.mem, "cuda_device": a.cuda_device, "gpudirect": a.gpudirect, "cuda_lib": a.cuda_lib,
          "engine_options": ["%s=%s" % kv for kv in a.cuda_opts], "workloads": {}}
    for x in runs:
        if "buffers" not in x:
            continue
        w = dp["workloads"].setdefault(x["workload"], {
            "runs": [], "labels": [], "buffers": [], "fallback": [], "no_start_line": [], "copies": None,
            "copies_runs": 0, "copies_runtime_ms": 0})
        w["runs"].append(x["name"])
        w["labels"] += [lb for lb in x["data_path"] if lb not in w["labels"]]
        for d in x["buffers"]:
            b = {k: v for k, v in d.items() if k != "job"}
            if b not in w["buffers"]:
                w["buffers"].append(b)
            if d.get("fallback") and d["fallback"] not in w["fallback"]:
                w["fallback"].append(d["fallback"])
        if not x["buffers"]:
            w["no_start_line"].append({"run": x["name"], "engine_said": x.get("engine_said")})
        if x.get("copies"):
            w["copies"] = datapath.sum_copies([w["copies"], x["copies"]])
            w["copies_runs"] += 1
            w["copies_runtime_ms"] += ((x.get("metrics") or {}).get("runtime_ms") or 0)
    for key, w in dp["workloads"].items():
        c = w["copies"]
        if c:
            c["total"] = datapath.copies_total(c)
            rt = w["copies_runtime_ms"]
            w["copies_share"] = round(c["total"]["ms"] / rt, 6) if rt else None
            w["flushes_share"] = round(c["flushes"]["ms"] / rt, 6) if rt else None
        if key in workloads:
            workloads[key]["data_path"] = w["labels"]
    seen = []
    for w in dp["workloads"].values():
        for b in w["buffers"]:
            if b["memory"] != "cuda":
                continue
            loc = {k: b.get(k) for k in ("cuda_device", "gpu_pci", "gpu_numa", "rdma_dev", "rdma_pci", "rdma_numa",
                                         "numa_differs")}
            if loc not in seen:
                seen.append(loc)
    dp["locality"] = seen
    dp["numa_differs"] = any(x["numa_differs"] for x in seen)
    return dp


def target_desc(a):
    if a.in_testbed and a.initiator == "kernel" and a.dev:
        return {"testbed": True, "device": a.dev, "subnqn": a.subnqn, "nsid": a.nsid}
    if a.dev:
        return {"device": a.dev}
    return {"testbed": bool(a.in_testbed), "traddr": a.traddr, "trsvcid": str(a.trsvcid),
            "paths": [qualify_failover.path_name(x) for x in a.paths] if a.paths else None,
            "subnqn": a.subnqn, "nsid": a.nsid, "hostnqn": a.hostnqn}


# ------------------------------------------------------------------ report
def draw_plots(out, rep):
    pdir = os.path.join(out, "plots")
    os.makedirs(pdir, exist_ok=True)
    for key, wl in rep["workloads"].items():
        if not wl.get("rounds"):
            continue
        ss = wl["steady_state"]
        base = os.path.join(pdir, key.replace(" ", "-"))
        rounds = "".join("%d %.6g\n" % (x["round"], x["iops"]) for x in wl["rounds"])
        win = "".join("%d %.6g %.6g %.6g %.6g\n" % (
            x, ss["avg"] * 0.8, ss["avg"] * 1.2, ss["avg"],
            ss["intercept"] + ss["slope"] * (x - ss["window_first"]))
            for x in range(ss["window_first"], ss["window_last"] + 1))
        n = len(wl["rounds"])
        script = "\n".join([
            "set title \"%s: IOPS per round (steady state %s)\"" % (key, "reached" if ss["reached"] else "not reached"),
            "set xlabel 'round'", "set ylabel 'IOPS'", "set grid",
            "set key below horizontal",
            "set xrange [0.5:%g]" % (n + 0.5), "set yrange [0:*]", "set xtics 1",
            "plot '{win}' using 1:2:3 with filledcurves lc rgb '#cfe3f7' title 'window average +-20%', \\",
            "     '{win}' using 1:4 with lines lw 2 dt 2 lc rgb '#1f5fbf' title 'window average', \\",
            "     '{win}' using 1:5 with lines lw 2 lc rgb '#c0392b' title 'best-fit line', \\",
            "     '{rounds}' using 1:2 with linespoints pt 7 ps 1 lw 1 lc rgb 'black' title 'IOPS'",
        ])
        try:
            svg, png = gnuplot.draw(base, script, {"rounds": rounds, "win": win})
            wl["plot_svg"] = os.path.relpath(svg, out)
            wl["plot_png"] = os.path.relpath(png, out)
        except RuntimeError as e:
            wl["plot_error"] = str(e)
            say("plot %s: %s" % (key, e))


def draw_failover_plot(out, rep):
    wl = rep["workloads"].get("failover")
    fo = (wl or {}).get("failover")
    if not fo or not fo.get("timeline"):
        return
    base = os.path.join(out, "plots", "failover-iops")
    title = "failover (%s initiator): IOPS in 100 ms bins; longest gap %s ms" % (rep["initiator"], fmt(fo["failover_ms"]))
    try:
        svg, png = gnuplot.draw(base, qualify_failover.plot_script(title, fo.get("fault_s"), fo.get("restore_s")),
                                {"iops": "".join("%.3f %.6g\n" % (x, y) for x, y in fo["timeline"])})
        fo["plot_svg"] = os.path.relpath(svg, out)
        fo["plot_png"] = os.path.relpath(png, out)
    except RuntimeError as e:
        fo["plot_error"] = str(e)
        say("plot failover: %s" % e)


def failover_md(rep):
    fo = rep["workloads"]["failover"]["failover"]
    eng = rep["initiator"] == "engine"
    L = ["## Failover", "",
         "Fault: %s, at %s s after fio started (planned %d s)%s; a verified 4 KiB 70/30 random mix "
         "(crc32c, verify_backlog) for %d s over %s, %s %s." % (
             fo["fault"], fmt(fo["fault_s"], 2), fo["fault_at_s"],
             "; restore%s at %s s (planned %d s)" % (
                 "" if rep["target"].get("testbed") else " (--restore-cmd: %s)" % fo["restore_cmd"],
                 fmt(fo["restore_s"], 2), fo["restore_at_s"])
             if fo.get("restore_cmd") else "; no restore command",
             fo["runtime_s"], ", ".join(fo["paths"] or ["the given device"]),
             "mp_policy" if eng else "kernel iopolicy", fo.get("mp_policy") or "-"), ""]
    if fo.get("note"):
        L += ["**%s**" % fo["note"], ""]
    L += ["| measure | value |", "|---|---|",
          "| failover_ms: longest time without a completion from the fault on | %s%s |" % (
              fmt(fo["failover_ms"]), " (%s s to %s s)" % (fmt(fo.get("gap_from_s"), 3), fmt(fo.get("gap_to_s"), 3))
              if fo["failover_ms"] is not None else ""),
          "| recovery_ms: the engine's, loss declared to the first completion on another path | %s |" % (
              fmt(fo["recovery_ms"]) if eng else "n/a (kernel)"),
          "| failovers, I/Os moved (engine) | %s, %s |" % ((fmt(fo["failovers"]), fmt(fo["ios_moved"])) if eng
                                                        else ("n/a", "n/a")),
          "| I/O errors (fio total_err) | %s |" % fmt(fo["errors"]),
          "| verify failures | %s |" % fmt(fo["verify_failures"]),
          "| completions logged (the first %s s after fio started) | %s |" % (
              fmt(fo.get("first_completion_s"), 2), fmt(fo.get("completions"))), ""]
    if not eng and fo.get("kernel_paths"):
        L += ["Kernel native multipath over %d controllers (%s)." % (len(fo["kernel_paths"]), " ".join(fo["kernel_paths"])), ""]
    for e in fo.get("events") or []:
        L.append("- path %s lost: %s; %s I/Os moved to %s; recovery %s ms (silent %s ms before)" % (
            e.get("path"), e.get("why"), e.get("ios_moved"), e.get("to_path"),
            e.get("recovery_ms") if e.get("recovered") else "never", e.get("quiet_before_ms")))
    if fo.get("events"):
        L.append("")
    L += ["Measured the same way for the engine and the kernel initiator: fio's per-I/O completion log "
          "([%s](%s), wall-clock ms), the longest gap between completions from the fault on." % (
              fo["clat_log"], fo["clat_log"]), ""]
    if fo.get("plot_svg"):
        L += ["![failover IOPS](%s)" % fo["plot_svg"], "", "[PNG](%s)" % fo["plot_png"], ""]
    elif fo.get("plot_error"):
        L += ["(no plot: %s)" % fo["plot_error"], ""]
    return L


def pct(x):
    return "-" if x is None else "%.2f%%" % (100.0 * x)


def buffers_md(rep):
    """report.md's Buffers section: the memory asked for and the data path each workload took."""
    dp = rep["data_path"]
    asked = "host memory (`--mem host`)" if dp["memory"] == "host" else "GPU memory (`--mem cuda`: %s%s)" % (
        " ".join("`%s`" % x for x in dp["engine_options"]), "; gpudirect: the engine's default (1)"
        if dp["gpudirect"] is None else "")
    L = ["## Buffers: the data path", "",
         "Asked: %s. What each workload's engine runs took, from the engine's start lines (one per job); "
         "copies from its closing `CUDA copies` lines, summed over the workload's runs, their time as a share "
         "of those runs' fio runtime." % asked, "",
         "| workload | runs | data path | copies | bytes copied | copy ms | share of runtime | flushes (ms) |",
         "|---|---|---|---|---|---|---|---|"]
    nocopies = []
    for key, w in dp["workloads"].items():
        c = w["copies"]
        labels = ", ".join(w["labels"]) or "no start line"
        if c:
            L.append("| %s | %d | %s | %d | %d | %.1f | %s | %d (%.1f) |" % (
                key, len(w["runs"]), labels, c["total"]["n"], c["total"]["bytes"], c["total"]["ms"],
                pct(w.get("copies_share")), c["flushes"]["n"], c["flushes"]["ms"]))
        else:
            L.append("| %s | %d | %s | - | - | - | - | - |" % (key, len(w["runs"]), labels))
            if any(b["memory"] == "cuda" for b in w["buffers"]):
                nocopies.append(key)
    L.append("")
    for loc in dp["locality"]:
        L.append("- GPU: CUDA device %s (%s, NUMA %s); RDMA device %s (%s, NUMA %s)%s" % (
            loc["cuda_device"], loc["gpu_pci"], "?" if loc["gpu_numa"] is None else loc["gpu_numa"],
            loc.get("rdma_dev") or "?", loc.get("rdma_pci") or "?",
            "?" if loc.get("rdma_numa") is None else loc["rdma_numa"],
            "; **WARNING: cross-socket**: the GPU and the RDMA device are on different NUMA nodes (bandwidth can "
            "halve)" if loc["numa_differs"] else ""))
    for key, w in dp["workloads"].items():
        for why in w["fallback"]:
            L.append("- %s: gpudirect=auto staged through host memory, GPUDirect unavailable: %s" % (key, why))
        for x in w["no_start_line"]:
            L.append("- %s: run %s has no start line%s" % (key, x["run"], "; the engine said: " + x["engine_said"]
                                                          if x.get("engine_said") else ""))
    for key, w in dp["workloads"].items():
        c = w["copies"]
        if c and c["total"]["n"]:
            L.append("- %s copies: %s" % (key, ", ".join("%s %d (%d bytes, %.1f ms)" % (
                k, c[k]["n"], c[k]["bytes"], c[k]["ms"]) for k in datapath.COPY_KINDS if c[k]["n"])))
    if nocopies:
        L.append("- copies not known for %s: the engine printed no closing `CUDA copies` line" % ", ".join(nocopies))
    L.append("")
    return L


def write_report(out, rep):
    with open(os.path.join(out, "report.json"), "w") as f:
        json.dump(rep, f, indent=1, sort_keys=False)
        f.write("\n")
    L = ["# NVMe-oF qualification: %s" % rep["verdict"], ""]
    s = rep["settings"]
    mem = " (GPU memory: `%s`%s)" % (" ".join(rep["data_path"]["engine_options"]), "; libcuda.so.1 from %s" % s[
        "cuda_lib"] if s.get("cuda_lib") else "") if s.get("mem") == "cuda" and rep.get("data_path") else ""
    t = rep["target"]
    tdesc = t.get("device") or "%s %s ns %s" % (",".join(t.get("paths") or []) or "%s:%s" % (
        t.get("traddr"), t.get("trsvcid")), t.get("subnqn"), t.get("nsid"))
    if t.get("testbed"):
        tdesc += " (built-in testbed)"
    s = rep["settings"]
    L += ["- target: %s" % tdesc, "- initiator: %s over NVMe/%s%s%s%s" % (
              rep["initiator"], {"tcp": "TCP"}.get(rep.get("transport"), "RDMA"), mem, " on the fio servers %s" % ", ".join(
              rep["hosts"]) if rep.get("hosts") else "", "; engine options: `%s`" % " ".join(s["engine_opts"])
              if s.get("engine_opts") else ""),
          "- working set: %s; precondition: %s; rounds: up to %d of %d s; sequential/QD1 runs: %d s; "
          "QD %d random, %d sequential" % (human(s["size"]), s["precondition"], s["rounds_max"], s["round_time_s"],
                                           s["runtime_s"], s["qd"], s["seq_qd"]),
          "- gates: %s%s" % (s["gates_file"] or "(none given: errors == 0, verify_failures == 0)",
                             "; `--require-gpudirect`: gpudirect == used" if s.get("require_gpudirect") else ""),
          "- when: %s" % rep["when"], ""]
    if rep["stopped"]:
        L += ["**Stopped early** at `%s`: %s" % (rep["stopped"]["run"], rep["stopped"]["reason"]), ""]
    L += ["## Gates", "", "| gate | limit | measured | result |", "|---|---|---|---|"]
    for g in rep["gates"]:
        lim = "%s %s" % (g["op"], fmt(g["limit"], 3))
        L.append("| `%s` (%s) | %s | %s | **%s** |" % (g["gate"], g["where"], lim,
                                                    "not measured" if g["measured"] is None else fmt(g["measured"], 3),
                                                    g["result"]))
    why = ["- `%s` %s: %s" % (g["gate"], g["result"], g["why"]) for g in rep["gates"] if g.get("why")]
    if why:
        L += [""] + why
    L += ["", "## Workloads", "",
          "| workload | rounds | steady state | IOPS | MiB/s | mean lat us | p99 us | p99.9 us |",
          "|---|---|---|---|---|---|---|---|"]
    for key, wl in rep["workloads"].items():
        m = wl.get("metrics") or {}
        if wl.get("rounds") is not None:
            ss = wl["steady_state"]
            rds = str(len(wl["rounds"]))
            sst = ("reached (rounds %d-%d)" if ss["reached"] else "not reached (window %d-%d)") % (
                ss["window_first"] or 0, ss["window_last"] or 0) if wl["rounds"] else "-"
        else:
            rds, sst = "1", "n/a"
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            key, rds, sst, fmt(m.get("iops"), 0), fmt(m.get("bw_mib_s"), 1), fmt(m.get("lat_mean_us"), 1),
            fmt(m.get("p99_lat_us"), 1), fmt(m.get("p99.9_lat_us"), 1)))
        for h, hm in (wl.get("hosts") or {}).items():
            L.append("| &nbsp;&nbsp;%s on %s | | | %s | %s | %s | %s | %s |" % (
                key, h, fmt(hm.get("iops"), 0), fmt(hm.get("bw_mib_s"), 1), fmt(hm.get("lat_mean_us"), 1),
                fmt(hm.get("p99_lat_us"), 1), fmt(hm.get("p99.9_lat_us"), 1)))
    if rep.get("hosts"):
        L += ["", "Every workload ran on %s at once (fio's client/server mode; fill and verify each host on its "
              "own 1/%d of the working set): the workload rows and the gates are the combined numbers (fio's "
              "\"All clients\"), the rows under them each host's. fio's \"All clients\" carries no latency percentiles: the combined "
              "percentiles (and their gates) are the worst host's, an upper bound." % (", ".join(rep["hosts"]), len(rep["hosts"]))]
    L += ["", "Round workloads: IOPS, MiB/s and mean latency are the averages over the measurement window; "
          "percentiles are the window's worst round. Latency: fio's total latency (lat_ns) of the direction "
          "that moved the most I/O.", ""]
    if rep.get("data_path"):
        L += buffers_md(rep)
    for key, wl in rep["workloads"].items():
        if not wl.get("rounds"):
            continue
        ss = wl["steady_state"]
        L += ["## Steady state: %s" % key, "",
              "Window rounds %d-%d: average %.1f IOPS; range %.1f (limit %.1f, 20%%); fit-line excursion %.1f "
              "(limit %.1f, 10%%): **%s**." % (ss["window_first"], ss["window_last"], ss["avg"], ss["range"],
                                                ss["range_limit"], ss["slope_excursion"], ss["slope_limit"],
                                                "reached" if ss["reached"] else "not reached"), ""]
        L.append("IOPS per round: " + ", ".join("%d: %.0f" % (x["round"], x["iops"]) for x in wl["rounds"]))
        L.append("")
        if wl.get("plot_svg"):
            L += ["![%s steady state](%s)" % (key, wl["plot_svg"]), "", "[PNG](%s)" % wl["plot_png"], ""]
        elif wl.get("plot_error"):
            L += ["(no plot: %s)" % wl["plot_error"], ""]
    if (rep["workloads"].get("failover") or {}).get("failover"):
        L += failover_md(rep)
    L += ["## Runs", "", "| run | fio exit | seconds | result |", "|---|---|---|---|"]
    for x in rep["runs"]:
        L.append("| [%s](%s) | %s | %s | %s |" % (x["name"], x["json"], x["rc"], x["secs"],
                                                  x.get("error", "ok").replace("|", "/")))
    L += ["", "Overall: **%s**" % rep["verdict"], ""]
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("\n".join(L))


def print_summary(rep, out):
    for g in rep["gates"]:
        say("%s %s (%s): measured %s, limit %s %s%s" % (
            g["result"], g["gate"], g["where"], "not measured" if g["measured"] is None else fmt(g["measured"], 3),
            g["op"], fmt(g["limit"], 3), "; " + g["why"] if g.get("why") else ""))
    if rep["stopped"]:
        say("stopped early at %s: %s" % (rep["stopped"]["run"], rep["stopped"]["reason"]))
    failed = [g["gate"] for g in rep["gates"] if g["result"] == "FAIL"]
    say("%s%s; report: %s" % (rep["verdict"], (" (failed: %s)" % "; ".join(failed)) if failed else "",
                              os.path.join(out, "report.md")))


# ------------------------------------------------------------------ kernel initiator (nvme-cli)
def sysfs_ctrls(nqn):
    out = []
    for d in glob.glob("/sys/class/nvme/nvme*"):
        try:
            with open(os.path.join(d, "subsysnqn")) as f:
                if f.read().strip() == nqn:
                    out.append(os.path.basename(d))
        except OSError:
            pass
    return sorted(out)


def find_ns(nqn, nsid):
    for d in sorted(glob.glob("/sys/block/nvme*n*")):
        if re.fullmatch(r"nvme\d+c\d+n\d+", os.path.basename(d)):
            continue
        try:
            with open(os.path.join(d, "nsid")) as f:
                ns = int(f.read())
            with open(os.path.join(d, "device", "subsysnqn")) as f:
                sn = f.read().strip()
        except (OSError, ValueError):
            continue
        if ns == nsid and sn == nqn:
            return "/dev/" + os.path.basename(d)
    return None


def kernel_multipath():
    """nvme_core's multipath parameter: Y when the kernel makes one namespace of several paths."""
    try:
        with open("/sys/module/nvme_core/parameters/multipath") as f:
            return f.read().strip()
    except OSError:
        return "absent"


def kernel_connect(a, ctrls):
    """nvme connect to every path (--traddr's list: the kernel's native multipath makes one
    namespace of them); the controllers made are appended to CTRLS as they come (the caller
    disconnects them, also after an error here).  Returns the namespace's block device or None."""
    subprocess.run(["modprobe", "nvme-rdma"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    before = sysfs_ctrls(a.subnqn)
    for _ in range(60 if a.in_testbed and before else 0):
        # an earlier run's controller on a dead path, still being deleted by the kernel
        time.sleep(0.5)
        before = sysfs_ctrls(a.subnqn)
        if not before:
            break
    if before:
        raise Usage("%s is already connected by the kernel (%s): disconnect it first, or give --dev"
                    % (a.subnqn, " ".join(before)))
    paths = a.paths or [(a.traddr, str(a.trsvcid))]
    host = ["--hostnqn=" + a.hostnqn] if a.hostnqn else []
    if len(paths) > 1:
        mp = kernel_multipath()
        if mp != "Y":
            raise RuntimeError("%d paths, but the kernel's native NVMe multipath is off (nvme_core multipath: %s): "
                               "each path would be a device of its own" % (len(paths), mp))
        if not a.hostnqn and not os.path.exists("/etc/nvme/hostnqn"):
            # one host on every path (nvme-cli could make up a different one per connect)
            u = str(uuid.uuid4())
            host = ["--hostnqn=nqn.2014-08.org.nvmexpress:uuid:" + u, "--hostid=" + u]
    if "failover" in a.wl:
        host += ["--reconnect-delay=%d" % FAILOVER_RECONNECT_DELAY, "--ctrl-loss-tmo=%d" % a.ctrl_loss_tmo]
    local = getattr(a, "host_traddrs", None) or [None] * len(paths)
    for (addr, port), src in zip(paths, local):
        cmd = ["nvme", "connect", "-t", "rdma", "-a", addr, "-s", str(port), "-n", a.subnqn] + host
        if src:
            cmd.append("--host-traddr=" + src)
        say("kernel initiator: " + " ".join(cmd))
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        ctrls += [c for c in sysfs_ctrls(a.subnqn) if c not in before and c not in ctrls]
        if p.returncode != 0:
            raise RuntimeError("nvme connect %s:%s failed (exit %d): %s" % (
                addr, port, p.returncode, (p.stderr or p.stdout).strip()))
    dev = None
    for _ in range(60):
        dev = find_ns(a.subnqn, a.nsid)
        if dev and (len(paths) == 1 or len(kernel_ns_paths(dev)) == len(paths)):
            break
        time.sleep(0.5)
    if dev and len(paths) > 1:
        a.kernel_paths = kernel_ns_paths(dev)
        if len(a.kernel_paths) != len(paths):
            raise RuntimeError("%s has %d path(s) (%s), want %d: not one multipath namespace" % (
                dev, len(a.kernel_paths), " ".join(a.kernel_paths), len(paths)))
        pol = "/sys/block/%s/device/iopolicy" % os.path.basename(dev)
        try:
            with open(pol, "w") as f:
                f.write(a.mp_policy)
        except OSError as e:
            say("kernel initiator: cannot set iopolicy %s (%s)" % (a.mp_policy, e.strerror))
        try:
            with open(pol) as f:
                a.kernel_iopolicy = f.read().strip()
        except OSError:
            a.kernel_iopolicy = None
        say("kernel initiator: %s over %d paths (%s), iopolicy %s" % (
            dev, len(a.kernel_paths), " ".join(a.kernel_paths), a.kernel_iopolicy))
    return dev


def kernel_ns_paths(dev):
    """The controllers (paths) under a multipath namespace head's subsystem."""
    return sorted(os.path.basename(d) for d in glob.glob("/sys/block/%s/device/nvme[0-9]*" % os.path.basename(dev))
                  if re.fullmatch(r"nvme[0-9]+", os.path.basename(d)))     # not its namespaces (nvme0n1)


def kernel_disconnect(ctrls):
    for c in ctrls:
        if not os.path.exists("/sys/class/nvme/" + c):
            say("kernel initiator: %s is gone already (the kernel gave the path up)" % c)
            continue
        try:
            p = subprocess.run(["nvme", "disconnect", "-d", c], capture_output=True, text=True, timeout=60)
            res = "ok" if p.returncode == 0 else (p.stderr or p.stdout).strip()
        except subprocess.TimeoutExpired:
            res = "did not return in 60 s (left to the kernel)"
        say("kernel initiator: nvme disconnect -d %s: %s" % (c, res))


# ------------------------------------------------------------------ testbed (host side)
def run_testbed(a, argv):
    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    for f in ("report.json", "report.md"):
        if os.path.exists(os.path.join(out, f)):
            os.unlink(os.path.join(out, f))
    mib = a.size_bytes >> 20
    ns_mb = max(64, mib + 16)
    n_round = sum(1 for w in a.wl if w in qualify_gates.ROUND_WORKLOADS)
    n_single = sum(1 for w in a.wl if w in ("seqread", "seqwrite", "lat"))
    est = 60 + n_round * a.rounds_max * (a.round_time + 15) + n_single * (a.runtime + 15) + 6 * mib
    if "failover" in a.wl:
        est += a.failover_runtime + 60
    boot = a.testbed_timeout or (300 + 2 * est)
    gargs = ["--in-testbed", "--initiator", a.initiator, "--size", str(a.size_bytes),
             "--precondition", a.precondition, "--rounds-max", str(a.rounds_max), "--round-time", str(a.round_time),
             "--runtime", str(a.runtime), "--qd", str(a.qd), "--seq-qd", str(a.seq_qd), "--workloads", ",".join(a.wl),
             "--engine", os.path.abspath(a.engine), "--fio", a.fio, "--transport", a.transport]
    if a.gates:
        gargs += ["--gates", os.path.abspath(a.gates)]
    if a.hostnqn:
        gargs += ["--hostnqn", a.hostnqn]
    if a.nsid != 1:
        gargs += ["--nsid", str(a.nsid)]
    if a.verify_pause_cmd:
        gargs += ["--verify-pause-cmd", a.verify_pause_cmd]
    for x in a.engine_opt or []:
        gargs += ["--engine-opt", x]
    if a.mem != "host":
        gargs += ["--mem", a.mem]
    for opt, v in (("--cuda-device", a.cuda_device), ("--gpudirect", a.gpudirect), ("--cuda-lib", a.cuda_lib)):
        if v is not None:
            gargs += [opt, v]
    if a.require_gpudirect:
        gargs.append("--require-gpudirect")
    if "failover" in a.wl:
        gargs += ["--fault", a.fault, "--fault-at", str(a.fault_at), "--restore-at", str(a.restore_at),
                  "--failover-runtime", str(a.failover_runtime), "--mp-policy", a.mp_policy]
    cmd = [os.path.join(REPO, "tests", "testbed", "testbed.sh"), "--backing", "file", "--ns-mb", str(ns_mb),
           "--out", out, "--boot-timeout", str(boot), "--cmd-timeout", str(boot - 60)]
    if a.initiator == "kernel" and "failover" not in a.wl:
        cmd.append("--connect")     # with failover the tool connects both paths itself
    cmd += ["--", sys.executable, SELF] + gargs
    say("booting the testbed (%s initiator, %d MiB file-backed namespace; limit %d s)" % (a.initiator, ns_mb, boot))
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL)
    try:
        rc = p.wait()
    except Interrupted:
        p.send_signal(signal.SIGTERM)
        p.wait()
        raise
    rj = os.path.join(out, "report.json")
    if rc in (0, 1) and os.path.exists(rj):
        return rc
    say("FAIL: no qualification result: the testbed exited %d (see its messages above)" % rc)
    return EX_FAIL


# ------------------------------------------------------------------ main
def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    a = build_parser().parse_args(argv)

    def on_signal(signum, _frame):
        raise Interrupted(signum)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        check_args(a)
        gates = load_gates(a)
    except (Usage, qualify_gates.GateError) as e:
        print("nvmeof-qualify: %s" % e, file=sys.stderr)
        return EX_USAGE
    try:
        if not a.in_testbed and not a.traddr and not a.dev:
            return run_testbed(a, argv)
        return run_local(a, gates)
    except Interrupted as e:
        say("interrupted (signal %d): stopped" % e.signum)
        return 128 + e.signum


def run_local(a, gates):
    out = os.environ.get("TESTBED_OUT") if a.in_testbed else a.out
    out = os.path.abspath(out)
    os.makedirs(out, exist_ok=True)
    if a.in_testbed:
        a.traddr = a.traddr or os.environ["TARGET_IP"]
        a.trsvcid = os.environ.get("TARGET_TCP_PORT" if a.transport == "tcp" else "TARGET_PORT", a.trsvcid)
        a.subnqn = a.subnqn or os.environ["NQN"]
        a.paths = qualify_failover.parse_paths(a.traddr, str(a.trsvcid))
        if a.initiator == "kernel" and "failover" in a.wl:
            a.dev = None            # not connected by the testbed: the tool connects both paths
        elif a.initiator == "kernel":
            a.dev = os.environ.get("NVME_DEV") or None
            if not a.dev:
                print("nvmeof-qualify: testbed without NVME_DEV (not connected)", file=sys.stderr)
                return EX_FAIL
    ctrls = []
    tb_port2_down = None
    try:
        if a.in_testbed and "failover" in a.wl:
            try:
                setup = qualify_failover.testbed_setup(a.subnqn, a.fault)
            except OSError as e:
                say("FAIL: testbed failover setup: %s" % e)
                return EX_FAIL
            p = subprocess.run(["/bin/sh", "-c", setup["port2_up"]], capture_output=True, text=True)
            if p.returncode != 0:
                say("FAIL: testbed: the second port (%s): %s" % (setup["port2_up"], (p.stderr or p.stdout).strip()))
                return EX_FAIL
            tb_port2_down = setup["port2_down"]
            time.sleep(1)
            a.paths = setup["paths"]
            a.traddr = ",".join(qualify_failover.path_name(x) for x in a.paths)
            a.fault_cmd, a.restore_cmd, a.fault_desc = setup["fault_cmd"], setup["restore_cmd"], setup["what"]
            a.host_traddrs = setup["host_traddr"]
            a.ctrl_loss_tmo = setup["ctrl_loss_tmo"] or a.ctrl_loss_tmo
            say("testbed: paths %s; failover fault: %s" % (a.traddr, a.fault_desc))
        if a.initiator == "kernel" and not a.dev:
            try:
                dev = kernel_connect(a, ctrls)
            except Usage as e:
                print("nvmeof-qualify: %s" % e, file=sys.stderr)
                return EX_USAGE
            except (RuntimeError, subprocess.TimeoutExpired, OSError) as e:
                say("FAIL: %s" % e)
                return EX_FAIL
            if not dev:
                say("FAIL: connected (%s) but namespace %d of %s has no block device" % (
                    " ".join(ctrls), a.nsid, a.subnqn))
                return EX_FAIL
            a.dev = dev
            say("kernel initiator: %s is %s" % (" ".join(ctrls), dev))
        say("qualifying %s with the %s initiator%s, working set %s -> %s" % (
            a.dev or "%s %s ns %d" % (",".join(qualify_failover.path_name(x) for x in a.paths), a.subnqn, a.nsid),
            a.initiator, " over NVMe/TCP" if a.transport == "tcp" else "",
            human(a.size_bytes), out))
        rep = qualify(a, out, gates)
    finally:
        if ctrls:
            kernel_disconnect(ctrls)
        if tb_port2_down:
            # the next run in this guest makes the port again: say why if it stays
            t0 = time.time()
            p = subprocess.run(["/bin/sh", "-c", tb_port2_down], capture_output=True, text=True)
            if p.returncode != 0 or time.time() - t0 > 10:
                say("testbed: removing the second path's port took %.1f s, exit %d: %s" % (
                    time.time() - t0, p.returncode, (p.stderr or p.stdout).strip()[:300]))
    draw_plots(out, rep)
    draw_failover_plot(out, rep)
    write_report(out, rep)
    print_summary(rep, out)
    return EX_PASS if rep["verdict"] == "PASS" else EX_FAIL
