"""Running the matrix of tools/nvmeof-compare where the initiators are (the testbed guest, or
this machine against a real target): the environment, the kernel initiator's connection, and
every fio run through run_fio(), which writes a job file and runs fio on it.

Files in the output directory: plan.json (rows, variants, repeat, target, environment),
runs.jsonl (one record per fio run, appended as each ends), runs/ID.{fio,json,log} and
runs/ID.{prerun,postrun} (the first line of /proc/stat, appended by fio's exec_prerun and
exec_postrun hooks of every job: the I/O loop is from the first prerun line to the last
postrun line)."""
import glob
import json
import os
import platform
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

from . import clientserver
from . import compare_matrix as cm
from . import datapath, engineopts
from . import fiojson
from .engineopts import STOP_GRACE_MS, engine_has_option

PERCENTILE_LIST = "50:90:99:99.9:99.99"
# Soft-RoCE's counters (and similar ones of real HCAs) that explain outliers: retransmissions
# (an ACK timer fired), the duplicates they cause, RNR NAKs, out-of-sequence packets.
COUNTER_RE = re.compile(r"retry|retrans|rnr|out_of_seq|duplicate|timeout", re.I)


def log(msg):
    print("compare: " + msg, flush=True)


class Interrupted(Exception):
    pass


def _on_signal(signum, _frame):
    raise Interrupted(signal.Signals(signum).name)


# ------------------------------------------------------------------ environment
def _read(path, default=None):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def _cmd(argv):
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        return (p.stdout or p.stderr).strip().splitlines()[0] if (p.stdout or p.stderr).strip() else ""
    except (OSError, subprocess.SubprocessError):
        return None


def rdma_devices():
    out = []
    for d in sorted(glob.glob("/sys/class/infiniband/*")):
        name = os.path.basename(d)
        drv = os.path.realpath(os.path.join(d, "device", "driver")) if os.path.exists(
            os.path.join(d, "device", "driver")) else ""
        out.append({
            "name": name,
            "fw_ver": _read(os.path.join(d, "fw_ver"), ""),
            "node_type": _read(os.path.join(d, "node_type"), ""),
            "numa_node": _read(os.path.join(d, "device", "numa_node"), "n/a"),
            "parent": _read(os.path.join(d, "parent"), ""),      # Soft-RoCE: the netdev
            "driver": os.path.basename(drv),
            "software": name.startswith(("rxe", "siw")) or os.path.exists(os.path.join(d, "parent")),
        })
    return out


def environment(fio, rdma_dev=None):
    govs = sorted({_read(p, "?") for p in glob.glob(
        "/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor")})
    cpuinfo = _read("/proc/cpuinfo", "")
    model = re.search(r"^model name\s*:\s*(.*)$", cpuinfo, re.M)
    numa = glob.glob("/sys/devices/system/node/node[0-9]*")
    env = {
        "kernel": platform.release(),
        "fio": _cmd([fio, "--version"]),
        "nvme_cli": _cmd(["nvme", "version"]) if shutil.which("nvme") else None,
        "cpus": os.cpu_count(),
        "cpu_model": model.group(1) if model else "?",
        "hypervisor": bool(re.search(r"^flags\s*:.*\bhypervisor\b", cpuinfo, re.M)),
        "numa_nodes": len(numa) or 1,
        "cpu_governor": ",".join(govs) if govs else "n/a (no cpufreq)",
        "clk_tck": os.sysconf("SC_CLK_TCK"),
        "rdma": rdma_devices(),
        "testbed": os.environ.get("TESTBED") == "1",
    }
    w = []
    if govs and govs != ["performance"]:
        w.append("CPU governor is %s, not performance: clock changes between runs move the numbers"
                 % env["cpu_governor"])
    if env["hypervisor"] or env["testbed"]:
        w.append("running in a virtual machine%s: absolute numbers are not the hardware's; compare "
                 "ratios within one run" % (" (the testbed: qemu TCG emulation)" if env["testbed"] else ""))
    devs = [d for d in env["rdma"] if not rdma_dev or d["name"] == rdma_dev]
    if any(d["software"] for d in devs):
        w.append("software RDMA device (%s): the NIC's work runs on the CPUs and counts in CPU us/IO "
                 "of every initiator" % ",".join(d["name"] for d in devs if d["software"]))
    if env["numa_nodes"] > 1:
        nodes = ",".join("%s:%s" % (d["name"], d["numa_node"]) for d in devs)
        w.append("%d NUMA nodes and fio is not pinned: run it under numactl on the HCA's node (%s) "
                 "for stable numbers" % (env["numa_nodes"], nodes))
    if not env["rdma"]:
        w.append("no RDMA device in /sys/class/infiniband")
    env["warnings"] = w
    return env


def print_environment(env):
    log("environment: kernel %s, %s, %d CPUs (%s), governor %s, NUMA nodes %d, CLK_TCK %d"
        % (env["kernel"], env["fio"], env["cpus"], env["cpu_model"], env["cpu_governor"],
           env["numa_nodes"], env["clk_tck"]))
    for d in env["rdma"]:
        log("RDMA device %s: firmware %s, NUMA node %s%s" % (
            d["name"], d["fw_ver"] or "?", d["numa_node"],
            ", software (on %s)" % d["parent"] if d["software"] else ""))
    for x in env["warnings"]:
        log("WARNING: " + x)


def counters_snapshot(dev):
    out = {}
    for p in sorted(glob.glob("/sys/class/infiniband/%s/ports/*/hw_counters/*" % (dev or "*"))):
        name = os.path.basename(p)
        if COUNTER_RE.search(name):
            v = _read(p)
            if v is not None and v.isdigit():
                key = "%s/%s" % (p.split("/")[4], name) if not dev else name
                out[key] = int(v)
    return out


# ------------------------------------------------------------------ the kernel initiator
def find_block_device(subnqn, nsid):
    for d in sorted(glob.glob("/sys/block/nvme*n*")):
        if re.match(r"^nvme\d+c\d+n\d+$", os.path.basename(d)):
            continue                            # multipath path devices
        if _read(d + "/nsid") == str(nsid) and _read(d + "/device/subsysnqn") == subnqn:
            return "/dev/" + os.path.basename(d)
    return None


def controllers(subnqn, transport="rdma"):
    return {os.path.basename(c) for c in glob.glob("/sys/class/nvme/nvme*")
            if _read(c + "/subsysnqn") == subnqn and _read(c + "/transport") == transport}


class KernelInitiator:
    """The kernel initiator (nvme-rdma, or nvme-tcp with TRANSPORT "tcp") on the target's
    namespace: connected with nvme-cli unless a controller of that subsystem is already there;
    disconnect() removes only the controllers connect() made (called from a finally and on
    SIGINT/SIGTERM).  DIGESTS ("header", "data"): NVMe/TCP digests asked of nvme connect."""

    def __init__(self, target, transport="rdma", digests=()):
        self.t = target
        self.transport = transport
        self.digests = digests
        self.made = set()
        self.dev = None
        self.why = None

    def connect(self):
        t = self.t
        dev = find_block_device(t["subnqn"], t["nsid"])
        if dev:
            # native multipath puts a second transport's controller under the same namespace:
            # the column would measure whichever path the kernel picks, so refuse it
            other = sorted(c for tr in ("rdma", "tcp") if tr != self.transport for c in controllers(t["subnqn"], tr))
            if other:
                self.why = "%s is connected over another transport (%s): kernel-%s would share its " \
                           "namespace; disconnect it first" % (t["subnqn"], ",".join(other), self.transport)
                return False
            self.dev = dev
            log("kernel initiator: %s already connected (%s), left connected afterwards" % (t["subnqn"], dev))
            return True
        if not shutil.which("nvme"):
            self.why = "nvme-cli (nvme) not found"
            return False
        subprocess.run(["modprobe", "nvme-" + self.transport], capture_output=True)
        before = controllers(t["subnqn"], self.transport)
        port = t["tcp_trsvcid"] if self.transport == "tcp" else t["trsvcid"]
        argv = ["nvme", "connect", "-t", self.transport, "-a", t["traddr"], "-s", str(port),
                "-n", t["subnqn"]]
        argv += ["--hdr_digest"] * ("header" in self.digests) + ["--data_digest"] * ("data" in self.digests)
        if t.get("hostnqn"):
            argv += ["-q", t["hostnqn"]]
        log("kernel initiator: " + " ".join(argv))
        try:
            p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        finally:
            self.made = controllers(t["subnqn"], self.transport) - before
        if p.returncode != 0:
            self.why = "nvme connect failed: " + (p.stderr or p.stdout).strip().replace("\n", " ")[:200]
            return False
        for _ in range(300):
            self.dev = find_block_device(t["subnqn"], t["nsid"])
            if self.dev:
                log("kernel initiator: controller %s, namespace %s on %s"
                    % (",".join(sorted(self.made)) or "?", t["nsid"], self.dev))
                return True
            time.sleep(0.1)
        self.why = "no block device for %s nsid %s after connecting" % (t["subnqn"], t["nsid"])
        return False

    def disconnect(self):
        for c in sorted(self.made):
            p = subprocess.run(["nvme", "disconnect", "-d", c], capture_output=True, text=True, timeout=60)
            log("kernel initiator: nvme disconnect -d %s: %s" % (
                c, "ok" if p.returncode == 0 else (p.stderr or p.stdout).strip()[:200]))
        if self.made:
            self.dev = None
        self.made = set()
        # the namespace must be gone before the other transport connects (one head, two paths)
        for _ in range(100):
            if not find_block_device(self.t["subnqn"], self.t["nsid"]):
                break
            time.sleep(0.1)


# ------------------------------------------------------------------ SPDK's target in the testbed
SPDK_TARGET = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                           "tests", "testbed", "bin", "spdk-target")


def spdk_target(action):
    """tests/testbed/bin/spdk-target ACTION (start, stop, running, logs) in the guest; returns
    (exit status, its output)."""
    try:
        p = subprocess.run([SPDK_TARGET, action], capture_output=True, text=True, timeout=180)
    except (OSError, subprocess.SubprocessError) as e:
        return 1, str(e)
    return p.returncode, (p.stdout + p.stderr).strip()


def spdk_target_phase(target_name):
    """Make the testbed's nvmf_tgt run only while its columns do: its reactor busy-polls one of
    the guest's CPUs, which the other target's runs must not share.  Returns None, or why
    spdk-tgt cannot run."""
    running = spdk_target("running")[0] == 0
    if target_name != "spdk-tgt":
        if running:
            rc, txt = spdk_target("stop")
            log("SPDK's nvmf_tgt stopped while %s runs%s" % (target_name, "" if rc == 0 else ": " + txt))
        return None
    if running:
        return None
    rc, txt = spdk_target("start")
    log(txt.splitlines()[-1] if txt else "spdk-target start exited %d" % rc)
    if rc != 0:
        return "SPDK's nvmf_tgt did not start (spdk-target start exited %d; its log in spdk-target.log)" % rc
    return None


def save_spdk_target_log(out):
    rc, txt = spdk_target("logs")
    if txt:
        with open(os.path.join(out, "spdk-target.log"), "w") as f:
            f.write(txt + "\n")


# ------------------------------------------------------------------ fio
def job_text(row, variant, ctx, runtime, size):
    """The fio job file for ROW through VARIANT.  CTX: engine, target, kernel_dev, spdk_plugin,
    hooks (prerun/postrun file paths)."""
    t = ctx["target"]
    g = ["[global]", "size=%s" % size, "time_based=1", "runtime=%d" % runtime,
         "group_reporting=1", "lat_percentiles=1", "percentile_list=%s" % PERCENTILE_LIST,
         "randrepeat=1", "norandommap=1"]
    kind = cm.variant_kind(variant)
    tcp = cm.transport(variant) == "tcp"
    variant = cm.initiator_of(variant)
    digests = (ctx.get("tcp_digests") or []) if tcp else []
    port = t["tcp_trsvcid"] if tcp else t["trsvcid"]
    if kind == "engine":
        g += ["ioengine=external:%s" % ctx["engine"], "traddr=%s" % t["traddr"],
              "trsvcid=%s" % port, "subnqn=%s" % t["subnqn"], "nsid=%s" % t["nsid"]]
        if tcp:
            g += ["transport=tcp"] + ["%s_digest=1" % ("hdr" if d == "header" else d) for d in digests]
        if t.get("hostnqn"):
            g.append("hostnqn=%s" % t["hostnqn"])
        mode, qauto, mem = cm.engine_parts(variant)
        g.append("completion=%s" % mode)
        if qauto:
            g.append("io_queues=auto")
        if mem:
            g += ["nvmeof_mem=cuda", "gpudirect=%d" % (mem == "gpu"), "cuda_device=%s" % ctx["cuda"]["device"]]
        if ctx.get("stop_grace"):
            # a 1 MiB numjobs 4 row has multi-second tails after the stop (engineopts)
            g.append("stop_grace=%d" % STOP_GRACE_MS)
        g += ctx.get("engine_opts") or []      # --engine-opt, checked by the plan
    elif kind == "kernel":
        g += ["ioengine=%s" % ("libaio" if tcp else variant.split("-", 1)[1]),
              "filename=%s" % ctx["kernel_tcp_dev" if tcp else "kernel_dev"], "direct=1"]
    elif kind == "spdk":
        fn = "trtype=%s adrfam=IPv4 traddr=%s trsvcid=%s subnqn=%s ns=%s" % (
            "TCP" if tcp else "RDMA", t["traddr"], port, t["subnqn"].replace(":", "\\:"), t["nsid"])
        g += ["ioengine=spdk", "thread=1", "filename=%s" % fn]
        if digests:
            g.append("digest_enable=%s" % ("BOTH" if len(digests) == 2 else digests[0].upper()))
    # CPU hooks; not with SPDK's plugin preloaded: fio runs each hook through /bin/sh, which
    # inherits LD_PRELOAD and fails to load the plugin (it needs fio's symbols), failing the
    # run. Its rows go without CPU us/IO (summarize says so).
    if ctx.get("hooks") and kind != "spdk":
        pre, post = ctx["hooks"]
        g.append("exec_prerun=sh -c %s" % shlex.quote("head -1 /proc/stat >> %s" % shlex.quote(pre)))
        g.append("exec_postrun=sh -c %s" % shlex.quote("head -1 /proc/stat >> %s" % shlex.quote(post)))
    j = ["[%s]" % row["name"], "rw=%s" % row["rw"], "bs=%s" % row["bs"],
         "iodepth=%d" % row["iodepth"], "numjobs=%d" % row["numjobs"]]
    if "rwmixread" in row:
        j.append("rwmixread=%d" % row["rwmixread"])
    return "\n".join(g + [""] + j) + "\n"


def run_streamed(cmd, logp, show):
    """Run CMD (the testbed) with its output to LOGP, printing the lines SHOW(line) wants as they
    come; its exit status.  Ctrl-C stops it (testbed.sh's trap kills qemu) and goes on."""
    with open(logp, "w") as logf:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             errors="replace", stdin=subprocess.DEVNULL)
        try:
            for line in p.stdout:
                logf.write(line)
                logf.flush()
                s = line.rstrip("\n")
                if show(s):
                    print(s, flush=True)
            return p.wait()
        except KeyboardInterrupt:
            p.terminate()
            p.wait()
            raise


def run_env(variant, ctx):
    """The environment a variant's fio needs beyond this one: SPDK's plugin preloaded, or the
    CUDA driver of --cuda-lib for the engine's GPU memory variants."""
    if cm.variant_kind(variant) == "spdk":
        return ctx.get("spdk_env")
    lib = (ctx.get("cuda") or {}).get("lib")
    if cm.engine_parts(variant)[2] and lib:
        return {"LD_LIBRARY_PATH": engineopts.cuda_lib_path(lib)}
    return None


def run_fio(fio, text, base, timeout, env=None, cwd=None, hosts=None):
    """The one place a fio runs: TEXT is written to BASE.fio, fio writes its JSON to BASE.json
    and its other output to BASE.log.  Killed (its process group) after TIMEOUT seconds (rc 124)
    or when this process is interrupted (the exception goes on).  Returns (rc, wall seconds).
    HOSTS (clientserver specs): fio runs as the client of those servers, the same job file to
    each; its stdout (the servers' forwarded text lines, then the JSON with "client_stats") goes
    to BASE.json (fiojson.parse skips the text), its stderr to BASE.log."""
    with open(base + ".fio", "w") as f:
        f.write(text)
    if hosts:
        argv = [fio, "--eta=never", "--output-format=json"] + clientserver.client_args(hosts, base + ".fio")
    else:
        argv = [fio, "--eta=never", "--output-format=json", "--output=%s.json" % base, base + ".fio"]
    e = dict(os.environ)
    e.update(env or {})
    t0 = time.monotonic()
    with open(base + ".log", "w") as logf, open(base + ".json" if hosts else os.devnull, "w") as outf:
        p = subprocess.Popen(argv, stdout=outf if hosts else logf, stderr=logf if hosts else subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, env=e, cwd=cwd, start_new_session=True)
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill(p)
            rc = 124
            logf.write("\ncompare: fio killed after %d s\n" % timeout)
        except BaseException:
            _kill(p)
            raise
    return rc, time.monotonic() - t0


def _kill(p):
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            return
        try:
            p.wait(timeout=10)
            return
        except subprocess.TimeoutExpired:
            continue


def _stat_lines(path):
    txt = _read(path, "")
    return [l for l in txt.splitlines() if l.startswith("cpu ")]


def busy_jiffies(line):
    """Non-idle jiffies of a /proc/stat "cpu" line: user+nice+system+irq+softirq+steal."""
    f = [int(x) for x in line.split()[1:]]
    return f[0] + f[1] + f[2] + f[5] + f[6] + f[7]


def not_gpudirect(rec):
    """Why a GPUDirect (-gpu) run of REC did not have the target move data to and from GPU memory
    in every job, from the engine's start lines; None when it did or the variant is not -gpu."""
    if cm.engine_parts(rec.get("variant", ""))[2] != "gpu":
        return None
    bufs = rec.get("buffers") or []
    if not bufs:
        return "no engine start line in the run's log"
    for d in bufs:
        if not datapath.gpudirect_used(d):
            return "job %s's data path was %s%s" % (d["job"], datapath.label(d),
                                                     " (%s)" % d["fallback"] if d.get("fallback") else "")
    return None


def summarize(rec, base, hosts=None, require_gpudirect=False):
    """Add the numbers of fio's JSON and the CPU hooks to run record REC (done on the running
    side so that runs.jsonl is complete by itself; the report recomputes nothing else).  With
    HOSTS (a client/server run): "metrics" are the combined numbers (fio's "All clients"),
    "hosts" {host key: metrics} each server's, and no CPU hooks ran ("cpu": "not measured")."""
    pre, post = _stat_lines(base + ".prerun"), _stat_lines(base + ".postrun")
    if pre and post:
        rec["stat_first_prerun"], rec["stat_last_postrun"] = pre[0], post[-1]
        rec["busy_jiffies"] = busy_jiffies(post[-1]) - busy_jiffies(pre[0])
    elif cm.variant_kind(rec.get("variant", "")) == "spdk":
        rec["cpu"] = "not measured (SPDK's preloaded plugin: fio's exec hooks cannot run)"
    try:
        doc = fiojson.load(base + ".json")
        if hosts:
            rows = clientserver.report_rows(doc, hosts)
            if clientserver.fill_percentiles(rows):
                rec["lat_percentiles"] = "worst host's (fio's All clients has none)"
            rec["hosts"] = dict(rows[:-1])
            rec["cpu"] = "not measured (remote hosts)"
            m = rows[-1][1]
        else:
            m = fiojson.sum_jobs(doc.get("jobs") or doc.get("client_stats") or [])
    except (ValueError, OSError) as e:
        rec["status"] = "fail"
        rec["note"] = (rec.get("note", "") + "; " if rec.get("note") else "") + "no usable fio JSON: %s" % str(e).replace(os.path.dirname(base) + "/", "")
        return rec
    rec["metrics"] = m
    if cm.variant_kind(rec.get("variant", "")) == "engine":
        # the buffers each job's start line says it had: the data path the run really took
        try:
            with open(base + ".log", errors="replace") as f:
                text = f.read()
            rec["data_path"], rec["buffers"] = datapath.summary(text)
            cp = datapath.copies(text)
            if cp:
                rec["copies"] = cp
        except OSError:
            rec["data_path"], rec["buffers"] = [], []
    if rec["rc"] != 0 or m["error"] or any(h["error"] for h in rec.get("hosts", {}).values()):
        rec["status"] = "fail"
    elif require_gpudirect and (why := not_gpudirect(rec)):
        rec["status"] = "fail"
        rec["note"] = (rec.get("note", "") + "; " if rec.get("note") else "") + "--require-gpudirect: " + why
    elif not m["ios"]:
        rec["status"] = "fail"
        rec["note"] = "no I/O completed"
    return rec


def execute(plan, out, args):
    """Run PLAN (rows x variants x repeats) here.  Returns the exit status (0 all ran, 1 a run
    failed)."""
    fio = args.fio
    target = plan["target"]
    rows, variants, repeat = plan["rows"], plan["variants"], plan["repeat"]
    env = environment(fio, target.get("rdma_dev"))
    plan["env"] = env
    print_environment(env)
    os.makedirs(os.path.join(out, "runs"), exist_ok=True)
    manifest = os.path.join(out, "runs.jsonl")
    open(manifest, "w").close()
    work = os.path.join(out, "runs")
    old = {s: signal.signal(s, _on_signal) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    # one kernel initiator per transport its columns use; with both, only one is connected at a
    # time (native multipath would make them two paths of one namespace): switched per run
    ktr = [tr for tr in ("rdma", "tcp") if any(cm.variant_kind(v) == "kernel" and cm.transport(v) == tr
                                               for v in variants)]
    kernels = {tr: KernelInitiator(target, tr, (plan.get("tcp_digests") or ()) if tr == "tcp" else ())
               for tr in ktr}
    kernel = kernels.get("rdma") or kernels.get("tcp") or KernelInitiator(target)
    unavailable = {}
    failed = 0
    ctx = {"engine": args.engine, "target": target, "kernel_dev": None, "kernel_tcp_dev": None,
           "engine_opts": plan.get("engine_opts"), "cuda": plan.get("cuda"), "tcp_digests": plan.get("tcp_digests"),
           "stop_grace": any(cm.variant_kind(v) == "engine" for v in variants)
           and engine_has_option(fio, args.engine, "stop_grace")}
    hosts = plan.get("hosts")
    if hosts:
        log("engine rows through fio's client/server mode on %s (CPU us/IO not measured)" % ",".join(hosts))
    try:
        if ktr:
            if kernel.connect():
                ctx[_dev_key(kernel.transport)] = kernel.dev
                target[_dev_key(kernel.transport)] = kernel.dev
            else:
                log("kernel initiator unavailable: %s" % kernel.why)
                for v in variants:
                    if cm.variant_kind(v) == "kernel" and cm.transport(v) == kernel.transport:
                        unavailable[v] = kernel.why
                failed += 1
            if "kernel-io_uring" in variants and ctx["kernel_dev"]:
                rc, _ = run_fio(fio, "[probe]\nioengine=io_uring\nfilename=%s\ndirect=1\nrw=read\nbs=4k\n"
                                "size=4k\n" % ctx["kernel_dev"], os.path.join(work, "io_uring-probe"), 60)
                if rc != 0:
                    unavailable["kernel-io_uring"] = "io_uring unavailable here (fio probe exited %d)" % rc
                    log(unavailable["kernel-io_uring"])
        if args.spdk_plugin:
            ctx["spdk_env"] = {"LD_PRELOAD": args.spdk_plugin}
        with open(os.path.join(out, "plan.json"), "w") as f:
            json.dump(plan, f, indent=1)
        slack = args.fio_slack
        total = len(rows) * len(variants) * repeat
        n = 0
        t_start = time.monotonic()
        done_walls = []
        targets = plan.get("targets") or {"nvmet": target}
        spdk_tgt = "spdk-tgt" in targets and target.get("testbed")
        for tname in plan.get("target_order") or ["nvmet"]:
            cols = [v for v in variants if cm.variant_target(v) == tname]
            tctx = dict(ctx, target=targets[tname])
            if spdk_tgt:
                why = spdk_target_phase(tname)
                if why:
                    log(why)
                    failed += 1
                    for v in cols:
                        unavailable[v] = why
            if plan["prefill"]:
                pv = next((v for v in cols if v not in unavailable and cm.variant_kind(v) != "spdk"), None)
                if pv and _kernel_switch(pv, kernels, ctx, tctx, target):
                    pv = next((v for v in cols if v not in unavailable and cm.variant_kind(v) == "engine"), None)
                if pv:
                    fill = cm.make_row("write", "128k", 8, 1, name="prefill")
                    text = job_text(fill, pv, tctx, 0, plan["size"]).replace("time_based=1\nruntime=0\n", "")
                    log("prefill: writing the first %s of %s's namespace sequentially through %s" % (
                        plan["size"], tname, cm.initiator_of(pv)))
                    rc, wall = run_fio(fio, text, os.path.join(work, "prefill" if tname == "nvmet" else
                                                               "prefill@" + tname), 600 + slack,
                                       env=run_env(pv, ctx), cwd=work, hosts=hosts)
                    log("prefill: %s (%.1f s)" % ("ok" if rc == 0 else "FAILED rc %d" % rc, wall))
                    failed += rc != 0
            for row in rows:
                for rep in range(repeat):
                    order = cols[rep % len(cols):] + cols[:rep % len(cols)]
                    for v in order:
                        n += 1
                        rid = "%s.%s.r%d" % (row["name"], v, rep + 1)
                        rec = {"id": rid, "row": row["name"], "variant": v, "target": tname, "rep": rep + 1,
                               "rc": None, "status": "ok", "note": ""}
                        if v in unavailable:
                            rec.update(status="unavailable", note=unavailable[v])
                            _append(manifest, rec)
                            continue
                        elapsed = time.monotonic() - t_start
                        left_runs = total - n + 1
                        per = (sum(done_walls) / len(done_walls)) if done_walls else args.runtime + 10
                        log("[%d/%d] %s %s repeat %d/%d: elapsed %s, ~%s left" % (
                            n, total, v, row["name"], rep + 1, repeat, _hms(elapsed), _hms(per * left_runs)))
                        why = _kernel_switch(v, kernels, ctx, tctx, target)
                        if why:
                            failed += 1
                            rec.update(status="fail", note=why)
                            # no second try per run: the later runs of its columns are unavailable
                            for x in variants:
                                if cm.variant_kind(x) == "kernel" and cm.transport(x) == cm.transport(v):
                                    unavailable[x] = why
                            _append(manifest, rec)
                            log("  FAILED %s: %s" % (rid, why))
                            continue
                        base = os.path.join(work, rid)
                        for ext in (".prerun", ".postrun"):
                            if os.path.exists(base + ext):
                                os.unlink(base + ext)
                        c = dict(tctx, hooks=None if hosts else (base + ".prerun", base + ".postrun"))
                        snap0 = counters_snapshot(target.get("rdma_dev"))
                        rc, wall = run_fio(fio, job_text(row, v, c, args.runtime, plan["size"]), base,
                                           args.runtime + slack,
                                           env=run_env(v, ctx),
                                           cwd=work, hosts=hosts)
                        snap1 = counters_snapshot(target.get("rdma_dev"))
                        done_walls.append(wall)
                        rec.update(rc=rc, wall_s=round(wall, 3), json="runs/%s.json" % rid,
                                   counters={k: snap1[k] - snap0.get(k, 0) for k in snap1})
                        if rc != 0:
                            rec["note"] = "fio killed after %d s" % (args.runtime + slack) if rc == 124 \
                                else "fio exited %d" % rc
                        summarize(rec, base, hosts, plan.get("require_gpudirect", False))
                        _append(manifest, rec)
                        if rec["status"] == "ok":
                            m = rec["metrics"]
                            log("  ok: %.0f IOPS, p99 %s us (%.1f s)%s" % (
                                m["iops"], _f(m.get("lat_p99_us")), wall, "".join(
                                    "; %s %.0f IOPS" % (k, h["iops"]) for k, h in rec.get("hosts", {}).items())))
                        else:
                            failed += 1
                            log("  FAILED %s: %s; fio said:" % (rid, rec["note"] or "job error %s" % rec.get(
                                "metrics", {}).get("error")))
                            for line in (_read(base + ".log", "") or "").splitlines()[-10:]:
                                log("  | " + line)
        log("all %d runs done in %s, %d failure(s)" % (total, _hms(time.monotonic() - t_start), failed))
    except Interrupted as e:
        log("interrupted (%s): stopping" % e)
        failed = -1
    finally:
        for k in kernels.values():
            k.disconnect()
        if "spdk-tgt" in (plan.get("targets") or {}) and target.get("testbed"):
            spdk_target("stop")
            save_spdk_target_log(out)
        for s, h in old.items():
            signal.signal(s, h)
    if failed < 0:
        return 130
    return 1 if failed else 0


def _dev_key(transport):
    return "kernel_tcp_dev" if transport == "tcp" else "kernel_dev"


def _kernel_switch(v, kernels, ctx, tctx, target):
    """Before a run of column V: where the kernel initiator runs over both transports, the other
    transport's controllers disconnected and V's connected (its block device in CTX and TCTX).
    Returns None, or why V's kernel initiator is not there."""
    if cm.variant_kind(v) != "kernel" or len(kernels) < 2:
        return None
    tr = cm.transport(v)
    k, other = kernels[tr], kernels["rdma" if tr == "tcp" else "tcp"]
    if other.made:
        other.disconnect()
        ctx[_dev_key(other.transport)] = tctx[_dev_key(other.transport)] = None
    if not k.dev:
        if not k.connect():
            return "kernel initiator over %s unavailable: %s" % (tr, k.why)
        ctx[_dev_key(tr)] = tctx[_dev_key(tr)] = target[_dev_key(tr)] = k.dev
    return None


def _append(path, rec):
    with open(path, "a") as f:
        f.write(json.dumps(rec, sort_keys=True) + "\n")


def _hms(s):
    s = int(s)
    return "%d:%02d:%02d" % (s // 3600, s // 60 % 60, s % 60) if s >= 3600 else "%d:%02d" % (s // 60, s % 60)


def _f(v):
    return "-" if v is None else "%.1f" % v


if __name__ == "__main__":
    sys.exit("compare_run is a module of tools/nvmeof-compare")
