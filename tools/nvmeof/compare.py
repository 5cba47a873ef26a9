"""tools/nvmeof-compare: one job matrix through every NVMe/RDMA initiator found (this engine,
the kernel nvme-rdma initiator with libaio and io_uring, SPDK's fio plugin when named), against
the testbed (default) or a real target; fio's JSON per run, report.md/report.json/plots.
--failover instead runs one fault against the engine and the kernel's native multipath
(compare_failover.py).  See docs/compare.md."""
import argparse
import os
import shutil
import subprocess
import sys
import time

from . import clientserver
from . import compare_failover
from . import compare_matrix as cm
from . import compare_report
from . import compare_run
from . import engineopts

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROG = "nvmeof-compare"


# what the tool sets in every engine job itself: --engine-opt may not name these
ENGINE_OPTS_RESERVED = dict(
    engineopts.RESERVED, completion="the initiator variant (engine-poll, engine-event, engine-hybrid)",
    io_queues="the -qauto variants", nvmeof_mem="the -gpu and -staged variants",
    gpudirect="the -gpu and -staged variants", cuda_device="--cuda-device",
    transport="the -tcp variants (engine-tcp)", hdr_digest="--hdr-digest", data_digest="--data-digest")


def check_cuda(a):
    """--cuda-device LIST (and --cuda-lib DIR): None without; else {"device": LIST, "lib": DIR or
    None}, checked before anything runs (fio's parser takes the list as the engine's cuda_device)."""
    if a.cuda_device is None:
        if a.cuda_lib:
            die("--cuda-lib is for the GPU memory variants: give --cuda-device too")
        return None
    try:
        lib = engineopts.check_cuda_lib(a.cuda_lib) if a.cuda_lib else None
        if os.path.isfile(a.engine):
            engineopts.check_cuda_option("--cuda-device", "cuda_device", a.cuda_device, a.fio, a.engine)
    except engineopts.EngineOptError as e:
        die(str(e))
    return {"device": a.cuda_device, "lib": lib}


def die(msg, code=2):
    print("%s: %s" % (PROG, msg), file=sys.stderr)
    sys.exit(code)


def parser():
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", help="output directory (default build/compare/YYYYmmdd-HHMMSS)")
    p.add_argument("--initiators", help="comma list of variants (engine-poll, engine-event, engine-hybrid, "
                   "engine-{poll,event,hybrid}-qauto, kernel-libaio, kernel-io_uring, spdk; NVMe/TCP: "
                   "engine-tcp, kernel-tcp, spdk-tcp) or kinds (engine, kernel, spdk: RDMA; tcp: the three "
                   "TCP ones); default: all RDMA ones found")
    p.add_argument("--repeat", type=int, default=3, help="runs of each row per initiator, median reported (3)")
    # None: unset, so that --failover can refuse it (its run length is --failover-runtime)
    p.add_argument("--runtime", type=int, help="seconds per run (10)")
    p.add_argument("--size", default="64m", help="region every job uses, from offset 0 (64m)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--matrix", help="matrix file (format in docs/compare.md / compare_matrix.py)")
    g.add_argument("--bench", action="store_true", help="the bench matrix (make bench): 4 KiB random read and write at QD 1, 8, 32, 128, 128 KiB and 1 MiB sequential read at QD 8, numjobs 1 and 4")
    g.add_argument("--quick", action="store_true", help="tiny matrix: 4k randread QD1 and QD8")
    p.add_argument("--engine", default=os.path.join(REPO, "build", "libfio_nvmeof.so"), help="the engine .so")
    p.add_argument("--spdk-plugin", help="SPDK's fio plugin (spdk_nvme): adds the spdk initiator; "
                   "default: the one `make spdk` built, where it did")
    p.add_argument("--engine-opt", action="append", metavar="KEY=VALUE",
                   help="an option of the engine for every engine run (repeatable), e.g. nvmeof_mem=cuda; "
                        "checked against the engine's options and fio's parser before anything runs")
    p.add_argument("--cuda-device", metavar="N[,M...]",
                   help="the GPU(s) of the engine's GPU memory variants (the engine's cuda_device: a list spreads "
                        "jobs over GPUs); adds engine-MODE-gpu (GPUDirect) and engine-MODE-staged to the default "
                        "initiators")
    p.add_argument("--cuda-lib", metavar="DIR",
                   help="directory with the libcuda.so.1 the GPU memory variants load (LD_LIBRARY_PATH for their "
                        "runs; default: the system's)")
    p.add_argument("--require-gpudirect", action="store_true",
                   help="a GPUDirect (-gpu) run whose engine start lines do not all say GPUDirect via dma-buf or "
                        "peermem fails, naming the data path it took (needs --cuda-device and a -gpu initiator)")
    p.add_argument("--fio", default="fio", help="fio binary (fio on PATH)")
    p.add_argument("--fio-slack", type=int, default=60,
                   help="seconds a fio may take beyond --runtime before it is killed (60)")
    p.add_argument("--no-prefill", action="store_true",
                   help="do not write the region once before the runs (a prefill needs writes allowed)")
    t = p.add_argument_group("real target (all of traddr, subnqn, nsid; otherwise the testbed)")
    t.add_argument("--traddr")
    t.add_argument("--trsvcid", default="4420")
    t.add_argument("--subnqn")
    t.add_argument("--nsid", type=int)
    t.add_argument("--tcp-port", type=int, help="a real target's NVMe/TCP port, for the -tcp initiators "
                   "(default 4420; the testbed's are its own)")
    t.add_argument("--hdr-digest", action="store_true",
                   help="NVMe/TCP header digest on every -tcp run (engine hdr_digest=1, nvme connect "
                        "--hdr_digest, SPDK's digest_enable)")
    t.add_argument("--data-digest", action="store_true",
                   help="NVMe/TCP data digest on every -tcp run (engine data_digest=1, nvme connect "
                        "--data_digest, SPDK's digest_enable)")
    t.add_argument("--hostnqn")
    t.add_argument("--rdma-dev", help="RDMA device whose counters are read (default: all)")
    t.add_argument("--destructive", action="store_true",
                   help="allow write rows (and the prefill) on the named namespace of a real target")
    t.add_argument("--hosts", metavar="H1,H2:PORT,...",
                   help="run the engine rows through fio's client/server mode on these hosts (each runs "
                        "`fio --server` and connects to the real target itself; same job file to every host): "
                        "per-host and combined numbers. Engine initiators only (kernel/spdk refused); needs a "
                        "real target; CPU us/IO is not measured (it is local /proc/stat)")
    p.add_argument("--targets", help="testbed targets, comma list: nvmet (the kernel target), spdk-tgt "
                   "(SPDK's nvmf_tgt, built by make spdk); default: both where SPDK is built. Against "
                   "spdk-tgt run the engine and SPDK's plugin (without --initiators: engine-poll and spdk), "
                   "their columns named INITIATOR@spdk-tgt")
    p.add_argument("--testbed-smp", type=int, default=2, help="testbed guest vCPUs (2)")
    p.add_argument("--dry-run", action="store_true", help="print the plan and exit")
    p.add_argument("--report-only", metavar="DIR", help="(re)make the report of an output directory")
    p.add_argument("--in-testbed", action="store_true", help=argparse.SUPPRESS)
    compare_failover.add_options(p)
    return p


def resolve_initiators(spec, io_queues, spdk, cuda=False, tcp=False):
    """The variants to run.  CUDA (--cuda-device given): the default set and the kind "engine"
    include the GPU memory variants (GPUDirect and staged); without it they are refused.  TCP:
    the engine has the transport option (engine-tcp needs it)."""
    known = cm.all_variants(True, True) + list(cm.TCP_VARIANTS)
    if not spec:
        v = [x for x in cm.all_variants(io_queues, cuda) if x != "spdk"]
        return v + (["spdk"] if spdk else [])
    out = []
    for w in [x.strip() for x in spec.split(",") if x.strip()]:
        if w in ("engine", "kernel", "spdk") and w != "spdk":
            add = [x for x in cm.all_variants(io_queues, cuda) if cm.variant_kind(x) == w]
        elif w == "tcp":
            # the engine's only where it speaks TCP, SPDK's only where its plugin is: by name, each is refused
            add = [x for x in cm.TCP_VARIANTS if (x != "engine-tcp" or tcp) and (x != "spdk-tcp" or spdk)]
        elif cm.known_variant(w):
            add = [w]
        else:
            die("unknown initiator %r (known: %s; or engine, kernel, tcp)" % (w, ", ".join(known)))
        if cm.engine_parts(w)[1] and not io_queues:
            die("initiator %s needs the engine's io_queues option, which %s lacks" % (w, "this engine"))
        if cm.engine_parts(w)[2] and not cuda:
            die("initiator %s runs the engine with GPU memory: give --cuda-device N (the GPU, or a list "
                "the engine spreads jobs over)" % w)
        if w in ("spdk", "spdk-tcp") and not spdk:
            die("initiator %s needs SPDK's fio plugin: make spdk, or --spdk-plugin=/path/to/spdk_nvme" % w)
        if w == "engine-tcp" and not tcp:
            die("initiator engine-tcp needs the engine's transport option, which this engine lacks (fio "
                "--enghelp does not list it: an engine without NVMe/TCP)")
        out += [x for x in add if x not in out]
    if not out:
        die("--initiators names no initiator")
    return out


def resolve_targets(spec, spdk_target):
    """The testbed's targets to run against, in run order (nvmet first)."""
    if not spec:
        return ["nvmet"] + (["spdk-tgt"] if spdk_target else [])
    want = [x.strip() for x in spec.split(",") if x.strip()]
    for w in want:
        if w not in cm.TARGETS:
            die("--targets: unknown target %r (known: %s)" % (w, ", ".join(cm.TARGETS)))
    if "spdk-tgt" in want and not spdk_target:
        die("--targets spdk-tgt needs SPDK's nvmf_tgt: make spdk")
    return [t for t in cm.TARGETS if t in want]


def size_ok(s):
    try:
        return cm.bs_bytes(s) > 0
    except ValueError:
        return False


def make_plan(a):
    """Validate everything that can be checked before running; returns the plan."""
    if a.repeat < 1 or a.runtime < 1:
        die("--repeat and --runtime must be at least 1")
    if not size_ok(a.size):
        die("--size %r is not a size like 64m" % a.size)
    real = any(x is not None for x in (a.traddr, a.subnqn, a.nsid))
    if real and not (a.traddr and a.subnqn and a.nsid):
        die("a real target needs --traddr, --subnqn and --nsid (the namespace to use, named explicitly)")
    if a.matrix:
        try:
            rows = cm.load(a.matrix)
        except cm.MatrixError as e:
            die(str(e))
    else:
        rows = cm.bench_matrix() if a.bench else cm.quick_matrix() if a.quick else cm.default_matrix()
    if a.spdk_plugin and not os.path.isfile(a.spdk_plugin):
        die("--spdk-plugin %s: no such file" % a.spdk_plugin)
    io_queues = engineopts.engine_has_option(a.fio, a.engine, "io_queues") if os.path.exists(a.engine) else False
    hosts = None
    if a.hosts is not None:
        try:
            hosts = clientserver.parse_hosts(a.hosts)
        except ValueError as e:
            die("--hosts: %s" % e)
        if not real and not a.in_testbed:
            die("--hosts needs a real target (--traddr, --subnqn, --nsid): the fio servers connect to it themselves")
    cuda = check_cuda(a)
    engine_tcp = engineopts.engine_has_option(a.fio, a.engine, "transport") if os.path.exists(a.engine) else False
    initiators = resolve_initiators(a.initiators or ("engine" if hosts else None), io_queues, a.spdk_plugin,
                                    cuda is not None, engine_tcp)
    if a.targets and (real or hosts):
        die("--targets chooses among the testbed's targets; a real target is --traddr/--subnqn/--nsid")
    tnames = ["nvmet"] if real else resolve_targets(
        a.targets, os.environ.get("SPDK_PORT") if a.in_testbed else built_spdk_target())
    variants = cm.columns(initiators, tnames, chosen=bool(a.initiators))
    for t in tnames:
        if not any(cm.variant_target(v) == t for v in variants):
            die("--targets %s: none of the initiators runs against it (the kernel initiator runs "
                "against nvmet only)" % t)
    if hosts:
        other = [v for v in variants if cm.variant_kind(v) != "engine"]
        if other:
            die("--hosts runs only the engine's initiators; refusing %s (run those without --hosts)"
                % ",".join(other))
    if any(cm.variant_kind(v) == "engine" for v in variants) and not os.path.isfile(a.engine):
        die("engine %s not found (run make, or --engine PATH)" % a.engine)
    tcp = [v for v in variants if cm.transport(v) == "tcp"]
    if a.tcp_port is not None:
        if not 1 <= a.tcp_port <= 65535:
            die("--tcp-port %d: not a port number 1..65535" % a.tcp_port)
        if not real:
            die("--tcp-port is for a real target: the testbed's TCP ports are its own (nvmet 4420, nvmf_tgt 4431)")
        if not tcp:
            die("--tcp-port: no -tcp initiator runs (--initiators %s)" % ",".join(variants))
    for flag, on, key in (("--hdr-digest", a.hdr_digest, "hdr_digest"), ("--data-digest", a.data_digest, "data_digest")):
        if not on:
            continue
        if not tcp:
            die("%s: no -tcp initiator runs (--initiators %s)" % (flag, ",".join(variants)))
        if any(cm.initiator_of(v) == "engine-tcp" for v in tcp) and \
                not engineopts.engine_has_option(a.fio, a.engine, key):
            die("%s: the engine has no %s option (engine-tcp runs)" % (flag, key))
    digests = [k for k, on in (("header", a.hdr_digest), ("data", a.data_digest)) if on]
    engine_opts = []
    if a.engine_opt:
        if not any(cm.variant_kind(v) == "engine" for v in variants):
            die("--engine-opt: no engine initiator runs (--initiators %s)" % ",".join(variants))
        try:
            engine_opts = engineopts.parse_engine_opts(a.engine_opt, a.fio, a.engine, ENGINE_OPTS_RESERVED)
        except engineopts.EngineOptError as e:
            die(str(e))
    if cuda is not None and not any(cm.engine_parts(v)[2] for v in variants):
        die("--cuda-device: no GPU memory initiator runs (--initiators %s; the -gpu and -staged variants "
            "use it)" % ",".join(variants))
    if a.require_gpudirect and not any(cm.engine_parts(v)[2] == "gpu" for v in variants):
        die("--require-gpudirect: no GPUDirect initiator runs (--initiators %s; the -gpu variants need "
            "--cuda-device)" % ",".join(variants))
    wr = [r["name"] for r in rows if cm.writes(r)]
    if real and wr and not a.destructive:
        die("refusing: %d row(s) write to %s nsid %d (%s%s); pass --destructive to allow writes to "
            "that namespace" % (len(wr), a.subnqn, a.nsid, ", ".join(wr[:3]), ", ..." if len(wr) > 3 else ""))
    targets = {}
    if a.in_testbed:
        target = {"testbed": True, "traddr": os.environ["TARGET_IP"],
                  "trsvcid": os.environ.get("TARGET_PORT", "4420"), "subnqn": os.environ["NQN"],
                  "nsid": 1, "rdma_dev": os.environ.get("RDMA_DEV"),
                  "tcp_trsvcid": os.environ.get("TARGET_TCP_PORT", "4420")}
        if "spdk-tgt" in tnames:
            targets["spdk-tgt"] = dict(target, trsvcid=os.environ["SPDK_PORT"], subnqn=os.environ["SPDK_NQN"],
                                       tcp_trsvcid=os.environ.get("SPDK_TCP_PORT", "4431"), spdk=True)
    elif real:
        target = {"testbed": False, "traddr": a.traddr, "trsvcid": a.trsvcid, "subnqn": a.subnqn,
                  "nsid": a.nsid, "hostnqn": a.hostnqn, "rdma_dev": a.rdma_dev,
                  "tcp_trsvcid": str(a.tcp_port or 4420)}
    else:
        target = {"testbed": True, "traddr": "10.99.0.1", "trsvcid": "4420",
                  "subnqn": "nqn.2026-12.io.fio-nvmeof:testbed", "nsid": 1, "rdma_dev": "rxe0",
                  "tcp_trsvcid": "4420"}
        if "spdk-tgt" in tnames:
            targets["spdk-tgt"] = dict(target, trsvcid="4421", subnqn="nqn.2016-06.io.spdk:cnode1",
                                       tcp_trsvcid="4431", spdk=True)
    if "nvmet" in tnames:
        targets["nvmet"] = target
    writes_allowed = target["testbed"] or a.destructive
    return {"rows": rows, "variants": variants, "initiators": initiators, "repeat": a.repeat,
            "runtime": a.runtime, "size": a.size, "target": targets[tnames[0]], "targets": targets,
            "target_order": tnames, "io_queues": io_queues,
            "prefill": writes_allowed and not a.no_prefill, "hosts": hosts,
            "engine_opts": ["%s=%s" % kv for kv in engine_opts], "cuda": cuda, "tcp_digests": digests,
            "require_gpudirect": a.require_gpudirect}


def forward_args(argv):
    """The arguments the guest half gets: ours minus --out (the guest writes to TESTBED_OUT)."""
    out, skip = [], False
    for x in argv:
        if skip:
            skip = False
            continue
        if x == "--out":
            skip = True
            continue
        if x.startswith("--out="):
            continue
        out.append(x)
    return out


def run_testbed(a, plan, out, argv):
    tb = os.path.join(REPO, "tests", "testbed", "testbed.sh")
    nruns = len(plan["rows"]) * len(plan["variants"]) * plan["repeat"]
    cmd_timeout = nruns * (a.runtime + a.fio_slack) + 2 * a.fio_slack + 660   # + connect, probe, prefill
    if "spdk-tgt" in plan["targets"]:
        cmd_timeout += 300 + a.fio_slack         # nvmf_tgt stopped, started again, and its prefill
    boot_timeout = cmd_timeout + 240
    ns_mb = max(256, -(-cm.bs_bytes(a.size) // 2 ** 20))        # the namespaces hold --size
    if "spdk-tgt" in plan["targets"]:
        # nvmf_tgt's malloc namespaces, its buffers and the plugin's memory, all in hugepages
        # that spdk-target sets up (2 x ns + 640 MiB), beside the guest's usual 2 GiB
        spdk = ["--spdk", "--mem", str(2048 + 2 * ns_mb + 640)]
    elif any(cm.variant_kind(v) == "spdk" for v in plan["variants"]):
        # SPDK's plugin wants 2 MiB hugepages (its own memory), taken from a larger guest
        spdk = ["--hugepages", "1024", "--mem", "3072"]
    else:
        spdk = []
    cmd = [tb, "--out", out, "--smp", str(a.testbed_smp), "--ns-mb", str(ns_mb), "--cmd-timeout", str(cmd_timeout),
           "--boot-timeout", str(boot_timeout)] + spdk + ["--",
           sys.executable, os.path.join(REPO, "tools", "nvmeof-compare"), "--in-testbed"] + forward_args(argv) + \
        ([] if a.targets else ["--targets", ",".join(plan["target_order"])])     # the host's choice
    logp = os.path.join(out, "testbed.log")
    print("%s: %d runs of %d s (%d rows x %d initiators x %d repeats) in the testbed; worst case %d s; "
          "console log %s" % (PROG, nruns, a.runtime, len(plan["rows"]), len(plan["variants"]),
                              plan["repeat"], cmd_timeout, logp), flush=True)
    return compare_run.run_streamed(cmd, logp, lambda s: s.startswith(("compare:", "testbed:", PROG)))


def report(out):
    if not os.path.exists(os.path.join(out, "plan.json")):
        print("%s: no results in %s (plan.json missing)" % (PROG, out), file=sys.stderr)
        return 1
    txt, nbad, plot_err = compare_report.write(out)
    print()
    print(txt, end="")
    print()
    if plot_err:
        print("%s: plots failed: %s" % (PROG, plot_err), file=sys.stderr)
    print("%s: report in %s/report.md, report.json, plots/; fio JSON in %s/runs/" % (PROG, out, out))
    return 1 if nbad else 0


def built_spdk_plugin():
    """The fio plugin `make spdk` built (scripts/spdk.sh --where), or None."""
    try:
        r = subprocess.run([os.path.join(REPO, "scripts", "spdk.sh"), "--where"], capture_output=True,
                           text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    plugin = os.path.join(r.stdout.strip(), "fio", "spdk_nvme")
    return plugin if r.returncode == 0 and os.path.isfile(plugin) else None


def built_spdk_target():
    """SPDK's nvmf_tgt as `make spdk` built it (the testbed's --spdk runs it), or None."""
    plugin = built_spdk_plugin()
    tgt = plugin and os.path.join(os.path.dirname(os.path.dirname(plugin)), "bin", "nvmf_tgt")
    return tgt if tgt and os.access(tgt, os.X_OK) else None


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    a = parser().parse_args(argv)
    if a.report_only and compare_failover.is_failover_dir(os.path.abspath(a.report_only)):
        return compare_failover.report(os.path.abspath(a.report_only), remake=True)
    if a.failover:
        return compare_failover.main(a)
    compare_failover.refuse_without_failover(a)
    if a.runtime is None:
        a.runtime = 10
    # fio runs in the run directory: a relative engine, plugin or fio path would miss there
    a.engine = os.path.abspath(a.engine)
    if a.spdk_plugin:
        a.spdk_plugin = os.path.abspath(a.spdk_plugin)
    elif not a.report_only:
        a.spdk_plugin = built_spdk_plugin()
    if "/" in a.fio:
        a.fio = os.path.abspath(a.fio)
    if a.report_only:
        return report(os.path.abspath(a.report_only))
    plan = make_plan(a)
    if a.dry_run:
        print("%s: %d rows x %d initiators (%s) x %d repeats, %d s each; target %s" % (
            PROG, len(plan["rows"]), len(plan["variants"]), ",".join(plan["variants"]), plan["repeat"],
            plan["runtime"], "testbed (%s)" % ",".join(plan["target_order"]) if plan["target"]["testbed"]
            else plan["target"]["traddr"])
              + ("; fio servers %s" % ",".join(plan["hosts"]) if plan["hosts"] else "")
              + ("; engine options %s" % " ".join(plan["engine_opts"]) if plan["engine_opts"] else "")
              + ("; NVMe/TCP port %s" % plan["target"]["tcp_trsvcid"]
                 if any(cm.transport(v) == "tcp" for v in plan["variants"]) else "")
              + ("; TCP digests %s" % ",".join(plan["tcp_digests"]) if plan["tcp_digests"] else "")
              + ("; GPU memory on CUDA device %s%s" % (plan["cuda"]["device"], ", libcuda.so.1 from " +
                                                      plan["cuda"]["lib"] if plan["cuda"]["lib"] else "")
                 if plan["cuda"] else ""))
        for r in plan["rows"]:
            print("  %s: rw=%s bs=%s iodepth=%d numjobs=%d%s" % (
                r["name"], r["rw"], r["bs"], r["iodepth"], r["numjobs"],
                " rwmixread=%d" % r["rwmixread"] if "rwmixread" in r else ""))
        return 0
    if a.in_testbed:
        out = os.environ.get("TESTBED_OUT") or die("--in-testbed outside the testbed")
        return compare_run.execute(plan, out, a)
    out = os.path.abspath(a.out or os.path.join(REPO, "build", "compare", time.strftime("%Y%m%d-%H%M%S")))
    os.makedirs(out, exist_ok=True)
    for f in ("plan.json", "runs.jsonl", "report.md", "report.json", "report.txt"):
        if os.path.exists(os.path.join(out, f)):
            os.unlink(os.path.join(out, f))
    for d in ("runs", "plots"):
        shutil.rmtree(os.path.join(out, d), ignore_errors=True)
    if plan["target"]["testbed"]:
        rc = run_testbed(a, plan, out, argv)
        if rc != 0:
            print("%s: the testbed run exited %d" % (PROG, rc), file=sys.stderr)
    else:
        rc = compare_run.execute(plan, out, a)
    if rc == 130 or not os.path.exists(os.path.join(out, "plan.json")):
        return rc or 1
    rrc = report(out)
    return rc or rrc
