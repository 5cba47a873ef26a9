#!/bin/bash
# tools/nvmeof-compare end to end in the testbed: a tiny matrix (4 KiB random read at QD 1 and
# QD 8) through the engine (completion=poll) and the kernel initiator (libaio), 2 s per run,
# 2 repeats.  Then, from fio's own JSON files and the /proc/stat lines the runs left (parsed
# here, not with the tool's code), every number of report.json and of report.md's table is
# recomputed and compared - medians over the repeats included - and the plots (SVG and PNG,
# and the data gnuplot drew them from) are checked.  Also: the repeats alternate the
# initiators, and the kernel controller the tool connected was disconnected. Where make spdk
# built SPDK's fio plugin, its rows are checked the same way (the tool finds the plugin; the
# rows' CPU us/IO is not measured and must say so), and so are the columns against SPDK's
# nvmf_tgt (engine-poll@spdk-tgt, spdk@spdk-tgt: run after every nvmet column, with nvmf_tgt
# stopped until then, their ratios to SPDK's plugin on the same target).  Then NVMe/TCP: kernel-tcp
# and spdk-tcp (engine-tcp once the engine has transport=tcp) beside their RDMA twins.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
command -v gnuplot >/dev/null || { echo "SKIP: gnuplot not found (make deps installs gnuplot-nox)"; exit 77; }
[ -f "$REPO/build/libfio_nvmeof.so" ] || { echo "FAIL: build/libfio_nvmeof.so missing (run make)"; exit 1; }
OUT=$(mktemp -d "$REPO/build/compare-test.XXXXXX") || exit 1
# engine-poll-gpu and engine-poll-staged: the engine with GPU memory (GPUDirect, staged) through the
# stand-in CUDA driver, which proves the tool's logic (the variants' jobs, their data paths and
# copies, their ratios to host memory), not a GPU
VARS=engine-poll,engine-poll-gpu,engine-poll-staged,kernel-libaio COLS=engine-poll,engine-poll-gpu,engine-poll-staged,kernel-libaio
if "$REPO/scripts/spdk.sh" --where >/dev/null 2>&1; then
	VARS=$VARS,spdk COLS=$COLS,spdk,engine-poll@spdk-tgt,engine-poll-gpu@spdk-tgt,engine-poll-staged@spdk-tgt,spdk@spdk-tgt
else echo "note: no SPDK built (make spdk): no spdk rows"; fi
# The engine named by a path relative to the working directory, as a user types it.
# --engine-opt: delay_submit=1 (the engine's default) must reach every engine run's job and no other
(cd "$REPO" && tools/nvmeof-compare --quick --initiators $VARS --runtime 2 --repeat 2 \
	--size 16m --engine build/libfio_nvmeof.so --engine-opt delay_submit=1 --cuda-device 0 \
	--cuda-lib build/cuda-standin --require-gpudirect --out "$OUT") > "$OUT/compare.out" 2>&1
rc=$?
cat "$OUT/compare.out"
case $rc in
0) ;;
123) echo "SKIP: testbed prerequisites missing (see above)"; exit 77;;
*) echo "FAIL: nvmeof-compare exited $rc (kept $OUT)"; exit 1;;
esac
python3 - "$OUT" "$(getconf CLK_TCK)" "$COLS" <<'PY' || { echo "FAIL (kept $OUT)"; exit 1; }
import json, os, re, statistics, sys
out, hz = sys.argv[1], int(sys.argv[2])
ROWS = ["randread-4k-qd1-j1", "randread-4k-qd8-j1"]
VARS = sys.argv[3].split(",")
PCTS = ["50", "90", "99", "99.9", "99.99"]
fails = []
def check(cond, what):
    if not cond:
        fails.append(what)
    return cond

def fio_doc(path):
    text = open(path).read()
    start = 0 if text.startswith("{") else text.index("\n{") + 1   # notes fio may print first
    return json.loads(text[start:])

def stat_busy(line):
    f = [int(x) for x in line.split()[1:]]
    return f[0] + f[1] + f[2] + f[5] + f[6] + f[7]   # user nice system irq softirq steal

def run_numbers(rid, v):
    d = fio_doc(os.path.join(out, "runs", rid + ".json"))
    check(len(d["jobs"]) == 1, "%s: group_reporting should leave one job, got %d" % (rid, len(d["jobs"])))
    j = d["jobs"][0]
    r = j["read"]
    check(r["total_ios"] > 0 and j["error"] == 0, "%s: no reads or job error" % rid)
    n = {"iops": r["iops"] + j["write"]["iops"] + j["trim"]["iops"],
         "mib_s": (r["bw_bytes"] + j["write"]["bw_bytes"] + j["trim"]["bw_bytes"]) / 1048576.0,
         "usr_sys_cpu": j["usr_cpu"] + j["sys_cpu"]}
    for p in PCTS:
        n["lat_p%s_us" % p] = r["lat_ns"]["percentile"]["%f" % float(p)] / 1000.0
    ios = r["total_ios"] + j["write"]["total_ios"] + j["trim"]["total_ios"]
    if v.startswith("spdk"):   # no exec hooks under the preloaded plugin: no CPU us/IO
        check(not os.path.exists(os.path.join(out, "runs", rid + ".prerun")), "%s: a prerun file" % rid)
        n["cpu_us_per_io"] = None
    else:
        pre = [l for l in open(os.path.join(out, "runs", rid + ".prerun")) if l.startswith("cpu ")]
        post = [l for l in open(os.path.join(out, "runs", rid + ".postrun")) if l.startswith("cpu ")]
        n["cpu_us_per_io"] = (stat_busy(post[-1]) - stat_busy(pre[0])) * 1e6 / hz / ios
    n["ctx_per_io"] = j["ctx"] / ios       # fio's context switches of the (merged) job
    n["errors"] = j.get("total_err", 1 if j["error"] else 0)   # total_err: with continue_on_error
    return n

FMT = {"iops": "%.1f", "mib_s": "%.2f", "usr_sys_cpu": "%.2f", "cpu_us_per_io": "%.2f", "ctx_per_io": "%.2f"}
FMT.update({"lat_p%s_us" % p: "%.3f" for p in PCTS})
expect = {}
for row in ROWS:
    for v in VARS:
        runs = [run_numbers("%s.%s.r%d" % (row, v, k), v) for k in (1, 2)]
        expect[(row, v)] = {k: None if None in [x[k] for x in runs] else statistics.median([x[k] for x in runs])
                            for k in runs[0]}
        expect[(row, v)]["errors"] = sum(x["errors"] for x in runs)
        # a median of two is their mean: check that, too, independently of statistics.median
        m = expect[(row, v)]
        check(abs(m["iops"] - (runs[0]["iops"] + runs[1]["iops"]) / 2) < 1e-6, "median of 2 repeats")

rep = json.load(open(os.path.join(out, "report.json")))
check(rep["baseline"] == "kernel-libaio", "baseline %r" % rep["baseline"])
cells = {(c["row"], c["variant"]): c for c in rep["cells"]}
check(sorted(cells) == sorted(expect), "report.json cells %s" % sorted(cells))
close = lambda a, b: a is None if b is None else a is not None and abs(a - b) <= 1e-9 * max(1.0, abs(b))
for key, e in expect.items():
    c = cells.get(key)
    if not c:
        continue
    check(c["status"] == "ok" and c["ok"] == 2 and c["runs"] == 2, "%s: status %s %s/%s" % (key, c["status"], c["ok"], c["runs"]))
    for k, v in e.items():
        got = c["errors"] if k == "errors" else c["median"].get(k)
        check(close(got, v), "report.json %s %s: %r, fio JSON says %r" % (key, k, got, v))
    # ratios: to the kernel initiator on nvmet only; to SPDK's plugin on the same target
    tgt = key[1].split("@")[1] if "@" in key[1] else None
    b = None if tgt else expect[(key[0], "kernel-libaio")]
    for k in ("iops", "lat_p99_us", "cpu_us_per_io"):
        want = None if e[k] is None or b is None else e[k] / b[k]
        check(close(c["ratio"][k], want), "report.json %s ratio %s: %r, expected %r" % (key, k, c["ratio"][k], want))
    s = expect.get((key[0], "spdk@" + tgt if tgt else "spdk"))
    for k in ("iops", "lat_p99_us"):
        want = s[k] and e[k] / s[k] if s else None
        check(close(c["ratio_spdk"][k], want), "report.json %s spdk ratio %s: %r, expected %r" % (
            key, k, c["ratio_spdk"][k], want))

# report.md: the table row of every cell holds the same numbers, formatted as documented
md = open(os.path.join(out, "report.md")).read()
cols = None
mdrows = {}
for line in md.splitlines():
    if line.startswith("| row |"):
        cols = [x.strip() for x in line.strip("|").split("|")]
    elif cols and line.startswith("| ") and not line.startswith("|---"):
        f = [x.strip() for x in line.strip("|").split("|")]
        mdrows[(f[0], f[1])] = dict(zip(cols, f))
colof = {"iops": "IOPS", "mib_s": "MiB/s", "usr_sys_cpu": "usr+sys %", "cpu_us_per_io": "CPU us/IO",
         "ctx_per_io": "ctx sw/IO"}
colof.update({"lat_p%s_us" % p: "p%s us" % p for p in PCTS})
for key, e in expect.items():
    r = mdrows.get(key)
    if not check(r is not None, "report.md has no row for %s" % (key,)):
        continue
    for k, col in colof.items():
        want = "-" if e[k] is None else FMT[k] % e[k]
        check(r[col] == want, "report.md %s %s: %s, fio JSON says %s" % (key, col, r[col], want))
    check(r["errors"] == str(e["errors"]), "report.md %s errors %s" % (key, r["errors"]))
    check(r["runs ok"] == "2/2", "report.md %s runs ok %s" % (key, r["runs ok"]))
    b = None if "@" in key[1] else expect[(key[0], "kernel-libaio")]
    want = "%.2f" % (e["iops"] / b["iops"]) if b else "-"
    check(r["IOPS ratio"] == want, "report.md %s IOPS ratio %s, expected %s" % (key, r["IOPS ratio"], want))
    s = expect.get((key[0], "spdk@" + key[1].split("@")[1] if "@" in key[1] else "spdk"))
    want = "%.2f" % (e["iops"] / s["iops"]) if s else "-"
    check(r["IOPS ratio spdk"] == want, "report.md %s IOPS ratio spdk %s, expected %s" % (
        key, r["IOPS ratio spdk"], want))

# plots: SVG and PNG, non-empty, embedded/linked in report.md; the IOPS plot's data = the medians
plots = ["lat-" + r for r in ROWS] + ["iops-qd-randread-4k-j1", "cpu-per-io"]
for p in plots:
    svg, png = os.path.join(out, "plots", p + ".svg"), os.path.join(out, "plots", p + ".png")
    check(os.path.exists(svg) and "<svg" in open(svg, errors="replace").read(), "%s.svg missing or not SVG" % p)
    check(os.path.exists(png) and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n", "%s.png missing or not PNG" % p)
    check("](plots/%s.svg)" % p in md and "(plots/%s.png)" % p in md, "report.md does not embed %s" % p)
dat = [l.split("\t") for l in open(os.path.join(out, "plots", "iops-qd-randread-4k-j1.iops.dat")).read().splitlines()]
check(dat[0] == ["iodepth"] + VARS, "iops plot data header %r" % dat[0])
for line, row in zip(dat[1:], ROWS):
    for v, x in zip(VARS, line[1:]):
        check(close(float(x), expect[(row, v)]["iops"]), "iops plot %s %s: %s" % (row, v, x))

# the repeats alternate the initiators (repeat 2 starts with the one repeat 1 ended with), target
# by target: every nvmet column's run before the first of spdk-tgt
order = [(r["row"], r["rep"], r["variant"]) for r in map(json.loads, open(os.path.join(out, "runs.jsonl")))]
NV = [v for v in VARS if "@" not in v]
SV = [v for v in VARS if "@" in v]
for row in ROWS:
    for cols in (NV, SV):
        seq = [(rep, v) for rw, rep, v in order if rw == row and v in cols]
        want = [(1, v) for v in cols] + [(2, v) for v in cols[1:] + cols[:1]]
        check(seq == want, "%s run order %s, expected %s" % (row, seq, want))
check([v for _, _, v in order] == sorted([v for _, _, v in order], key=lambda v: "@" in v),
      "a spdk-tgt run before an nvmet one: %s" % [v for _, _, v in order])

# the kernel controller the tool connected was disconnected before the guest ended
log = open(os.path.join(out, "compare.out")).read()
check(re.search(r"nvme disconnect -d nvme\d+: ok", log), "no successful 'nvme disconnect' in the output")
# The engine's runs wait for their stragglers at the runtime's end as the kernel initiator's do:
# stop_grace is in every engine job file, in no kernel one.
for row in ROWS:
    for v in VARS:
        jf = open(os.path.join(out, "runs", "%s.%s.r1.fio" % (row, v))).read()
        want = v.startswith("engine")
        check(("\nstop_grace=10000\n" in jf) == want,
              "%s.%s.r1.fio: stop_grace=10000 %s" % (row, v, "missing" if want else "in a kernel job"))
        port = "4421" if "@spdk-tgt" in v else "4420"
        if not v.startswith("kernel"):
            check(re.search(r"\btrsvcid=%s\b" % port, jf), "%s.%s.r1.fio: not to port %s" % (row, v, port))
N = len(ROWS) * len(VARS) * 2
check(re.search(r"compare: \[%d/%d\] .* elapsed \d+:\d\d, ~\d+:\d\d left" % (N, N), log), "no progress line [%d/%d]" % (N, N))
if "spdk" in VARS:
    check("Their CPU us/IO is not measured" in md, "report.md does not say why the spdk rows have no CPU us/IO")
if SV:
    check("The @spdk-tgt columns ran against SPDK's nvmf_tgt" in md, "report.md does not explain @spdk-tgt")
    check(rep["targets"]["spdk-tgt"]["trsvcid"] == "4421", "report.json targets %r" % rep.get("targets"))
    tl = open(os.path.join(out, "spdk-target.log")).read()
    check("NVMe/RDMA Target Listening on" in tl and "port 4421" in tl, "spdk-target.log has no listening line")
    first_run = log.index("compare: [1/")
    check(0 <= log.find("SPDK's nvmf_tgt stopped while nvmet runs") < first_run,
          "nvmf_tgt was not stopped before the nvmet runs")
    check(os.path.exists(os.path.join(out, "runs", "prefill@spdk-tgt.json")), "no prefill of spdk-tgt's namespace")

import glob
jobs = {p: open(p).read().splitlines() for p in glob.glob(os.path.join(out, "runs", "*.fio"))}
eng = [p for p, l in jobs.items() if any(x.startswith("ioengine=external:") for x in l)]
check(eng and all("delay_submit=1" in jobs[p] for p in eng),
      "--engine-opt delay_submit=1 missing from an engine job: %s" % [p for p in eng if "delay_submit=1" not in jobs[p]])
check(not [p for p, l in jobs.items() if p not in eng and "delay_submit=1" in l], "--engine-opt in a non-engine job")
check("Engine options on every engine run: `delay_submit=1`" in md, "report.md does not name the engine options")
check(json.load(open(os.path.join(out, "plan.json"))).get("engine_opts") == ["delay_submit=1"], "plan.json engine_opts")
# the data path each engine run took, from its own log's start lines (host memory here)
for r in map(json.loads, open(os.path.join(out, "runs.jsonl"))):
    if r["variant"].startswith("engine"):
        lines = [l for l in open(os.path.join(out, "runs", r["id"] + ".log"), errors="replace")
                 if l.startswith("nvmeof: ") and "cntlid" in l and "the target may RDMA-" in l]
        want = r"gpudirect-(dma-buf|peermem)/benchmark" if "-gpu" in r["variant"] else \
            "staged" if "-staged" in r["variant"] else "host"
        check(lines and len(r.get("data_path") or []) == 1 and re.fullmatch(want, r["data_path"][0])
              and len(r.get("buffers", [])) == len(lines),
              "%s: data_path %s, %d buffer record(s) for %d start line(s)" % (
                  r["id"], r.get("data_path"), len(r.get("buffers", [])), len(lines)))
for v in [v for v in VARS if v.startswith("engine")]:
    want = r"gpudirect-(dma-buf|peermem)/benchmark" if "-gpu" in v else "staged" if "-staged" in v else "host"
    check(re.search(r"^- %s: %s$" % (re.escape(v), want), md, re.M), "report.md's data path section: %s not %s" % (v, want))
# the GPU columns' copies: their runs' closing lines (read here with a regex of this test's own):
# GPUDirect in benchmark mode none and 1..reads flushes, staged one staging->device copy per read
# and no flush; the report's copies table and the GPU's placement
KINDS = ("data host->device", "data device->host", "staged host->device", "staged device->host")
for r in map(json.loads, open(os.path.join(out, "runs.jsonl"))):
    if "-gpu" not in r["variant"] and "-staged" not in r["variant"]:
        check("copies" not in r, "%s: host memory with a copies record" % r["id"])
        continue
    log = open(os.path.join(out, "runs", r["id"] + ".log"), errors="replace").read()
    cl = re.findall(r"^nvmeof: [^:]+: CUDA copies: (.*)$", log, re.M)
    ns = dict((k, int(n)) for k, n in re.findall(r"((?:data|staged) \S+) (\d+) \(", " ".join(cl)))
    fl = sum(int(x) for x in re.findall(r"flushes (\d+) \(", " ".join(cl)))
    reads = fio_doc(os.path.join(out, "runs", r["id"] + ".json"))["jobs"][0]["read"]["total_ios"]
    if "-gpu" in r["variant"]:
        want, fl_ok = dict.fromkeys(KINDS, 0), 1 <= fl <= reads
    else:
        want, fl_ok = dict(dict.fromkeys(KINDS, 0), **{"staged host->device": reads}), fl == 0
    check(len(cl) == 1 and ns == want and fl_ok,
          "%s: closing copies line(s) %r (want one, copies %r, %s flushes)" % (
              r["id"], cl, want, "1..%d" % reads if "-gpu" in r["variant"] else "no"))
    c = r.get("copies") or {}
    check(c.get("jobs") == 1 and c.get("flushes", {}).get("n") == fl and
          all(c.get(k, {}).get("n") == want[k] for k in KINDS),
          "%s: runs.jsonl copies %r, the log says %r and %d flushes" % (r["id"], c, ns, fl))
check("## Copies between host and GPU memory" in md, "report.md has no copies section")
for row in ROWS:
    check(re.search(r"^\| engine-poll-gpu \| %s \| 0\.00 \| 0\.0 \| " % row, md, re.M),
          "report.md's copies table: no zero-copy line for engine-poll-gpu %s" % row)
    check(re.search(r"^\| engine-poll-staged \| %s \| 1\.00 \| 4\.0 \| " % row, md, re.M),
          "report.md's copies table: engine-poll-staged %s is not one 4 KiB copy per I/O" % row)
check(re.search(r"^- engine-poll-gpu: GPU 0 \([^,]*, NUMA [^)]*\), RDMA device rxe0 \(", md, re.M),
      "report.md does not place the GPU and the RDMA device")
check("--require-gpudirect" not in md or "Failed runs" not in md, "--require-gpudirect failed a GPUDirect run")
# the GPU memory column's job, and its ratios to the same engine column with host memory
for p, l in jobs.items():
    if ".engine-poll-gpu." in p or ".engine-poll-staged." in p:
        gd = "gpudirect=1" if ".engine-poll-gpu." in p else "gpudirect=0"
        check(all(x in l for x in ("nvmeof_mem=cuda", gd, "cuda_device=0")), "%s: %s" % (p, l))
for row in ROWS:
    for gv in ("engine-poll-gpu", "engine-poll-staged"):
        g, h = expect[(row, gv)], expect[(row, "engine-poll")]
        c = cells[(row, gv)]
        for k in ("iops", "lat_p99_us", "cpu_us_per_io"):
            want = None if g[k] is None or not h[k] else g[k] / h[k]
            check(close(c.get("ratio_host", {}).get(k), want), "%s %s ratio_host %s: %r, expected %r" % (
                row, gv, k, c.get("ratio_host", {}).get(k), want))
        want = "| %s | %s | engine-poll | %.2f |" % (gv, row, g["iops"] / h["iops"])
        check(want in md, "report.md's GPU section lacks %r" % want)

for f in fails:
    print("FAIL " + f)
if fails:
    sys.exit(1)
print("PASS report.json, report.md, %d plots and the run order agree with fio's JSON (%d cells)" % (len(plots), len(expect)))
PY
rm -rf "$OUT"

# ---- NVMe/TCP beside RDMA: kernel-tcp (nvme connect -t tcp) and spdk-tcp (trtype=TCP) against
# their RDMA twins, one 4 KiB QD 8 row; engine-tcp too once the engine has its transport option
# (fio --enghelp lists it).  The "RDMA vs TCP" table recomputed from fio's JSON, the job files'
# ports and transports, and the kernel initiator connected over one transport at a time.
# (against nvmet only: SPDK's TCP listener is testbed_tcp.sh's, and its columns here would add minutes)
TV=kernel-libaio,kernel-tcp
if fio --enghelp="$REPO/build/libfio_nvmeof.so" 2>/dev/null | grep -q '^transport '; then TV=engine-poll,engine-tcp,$TV
else echo "note: the engine has no transport option (fio --enghelp): engine-tcp is not run"; fi
if "$REPO/scripts/spdk.sh" --where >/dev/null 2>&1; then TV=$TV,spdk,spdk-tcp
else echo "note: no SPDK built (make spdk): no spdk-tcp column"; fi
OUT=$(mktemp -d "$REPO/build/compare-tcp-test.XXXXXX") || exit 1
printf 'rw=randread bs=4k qd=8\n' > "$OUT/tcp.matrix"
(cd "$REPO" && tools/nvmeof-compare --matrix "$OUT/tcp.matrix" --initiators $TV --targets nvmet --runtime 2 \
	--repeat 2 --size 16m --out "$OUT") > "$OUT/compare.out" 2>&1
rc=$?
grep -E '^(compare: (kernel initiator|\[)|nvmeof-compare: )' "$OUT/compare.out"
[ $rc = 0 ] || { echo "FAIL: nvmeof-compare (TCP columns) exited $rc (kept $OUT)"; exit 1; }
python3 - "$OUT" "$(getconf CLK_TCK)" <<'PY' || { echo "FAIL (TCP columns; kept $OUT)"; exit 1; }
import json, os, re, statistics, sys
out, hz = sys.argv[1], int(sys.argv[2])
TWIN = {"engine-tcp": "engine-poll", "kernel-tcp": "kernel-libaio", "spdk-tcp": "spdk"}
fails = []
def check(cond, what):
    if not cond:
        fails.append(what)
    return cond
def busy(line):
    f = [int(x) for x in line.split()[1:]]
    return f[0] + f[1] + f[2] + f[5] + f[6] + f[7]
def numbers(rid, v):
    text = open(os.path.join(out, "runs", rid + ".json")).read()
    j = json.loads(text[0 if text.startswith("{") else text.index("\n{") + 1:])["jobs"][0]
    r = j["read"]
    n = {"iops": r["iops"], "lat_p50_us": r["lat_ns"]["percentile"]["50.000000"] / 1000.0,
         "lat_p99_us": r["lat_ns"]["percentile"]["99.000000"] / 1000.0, "cpu_us_per_io": None}
    if not v.startswith("spdk"):
        pre = [l for l in open(os.path.join(out, "runs", rid + ".prerun")) if l.startswith("cpu ")]
        post = [l for l in open(os.path.join(out, "runs", rid + ".postrun")) if l.startswith("cpu ")]
        n["cpu_us_per_io"] = (busy(post[-1]) - busy(pre[0])) * 1e6 / hz / r["total_ios"]
    return n
recs = [json.loads(l) for l in open(os.path.join(out, "runs.jsonl"))]
plan = json.load(open(os.path.join(out, "plan.json")))
row = plan["rows"][0]["name"]
VARS = plan["variants"]
check(all(r["status"] == "ok" for r in recs) and len(recs) == 2 * len(VARS),
      "runs: %s" % [(r["variant"], r["status"], r["note"]) for r in recs])
exp = {}
for v in VARS:
    ns = [numbers(r["id"], v) for r in recs if r["variant"] == v and r["status"] == "ok"]
    exp[v] = {k: None if not ns or None in [x[k] for x in ns] else statistics.median([x[k] for x in ns])
              for k in ("iops", "lat_p50_us", "lat_p99_us", "cpu_us_per_io")}
rep = json.load(open(os.path.join(out, "report.json")))
cells = {c["variant"]: c for c in rep["cells"]}
md = open(os.path.join(out, "report.md")).read()
close = lambda a, b: a is None if b is None else a is not None and abs(a - b) <= 1e-9 * max(1.0, abs(b))
F = {"iops": "%.1f", "lat_p50_us": "%.3f", "lat_p99_us": "%.3f", "cpu_us_per_io": "%.2f"}
tcp = [v for v in VARS if v.split("@")[0] in TWIN]
check(tcp and "## RDMA vs TCP" in md, "no TCP column or no RDMA vs TCP section")
for v in tcp:
    t = TWIN[v.split("@")[0]] + ("@" + v.split("@")[1] if "@" in v else "")
    c = cells[v]
    check(c.get("rdma_twin") == t, "%s: rdma_twin %r, want %r" % (v, c.get("rdma_twin"), t))
    cols = []
    for k in F:
        a, b = exp[v][k], exp[t][k]
        want = None if a is None or not b else a / b
        check(close(c.get("ratio_rdma", {}).get(k), want), "%s ratio_rdma %s: %r, fio JSON says %r" % (
            v, k, c.get("ratio_rdma", {}).get(k), want))
        cols += ["-" if a is None else F[k] % a, "-" if b is None else F[k] % b, "-" if want is None else "%.2f" % want]
    line = "| %s | %s | %s | %s |" % (row, v, t, " | ".join(cols))
    check(line in md, "report.md lacks %r" % line)
# the job files: the TCP port and transport of each column's target; the RDMA ones unchanged
for v in VARS:
    jf = open(os.path.join(out, "runs", "%s.%s.r1.fio" % (row, v))).read()
    tv, on_spdk = v.split("@")[0], v.endswith("@spdk-tgt")
    port = ("4431" if on_spdk else "4420") if tv in TWIN else ("4421" if on_spdk else "4420")
    if tv.startswith("engine"):
        check(("\ntransport=tcp\n" in jf) == (tv in TWIN) and "\ntrsvcid=%s\n" % port in jf, "%s job: %s" % (v, jf))
    elif tv.startswith("spdk"):
        check(re.search(r"\nfilename=trtype=%s adrfam=IPv4 traddr=10\.99\.0\.1 trsvcid=%s " % (
            "TCP" if tv in TWIN else "RDMA", port), jf), "%s job: %s" % (v, jf))
    else:
        check("\nioengine=libaio\n" in jf, "%s job: %s" % (v, jf))
check(rep["targets"]["nvmet"]["tcp_trsvcid"] == "4420", "report.json nvmet %r" % rep["targets"]["nvmet"])
check(list(rep["targets"]) == ["nvmet"], "report.json targets %r" % list(rep["targets"]))
# each kernel run over the transport connected last, the other disconnected first (a run's
# progress line comes before its switch: judged at its "ok:" line)
log = open(os.path.join(out, "compare.out")).read().splitlines()
conn, runs, disc, pending = None, 0, 0, None
for l in log:
    m = re.search(r"kernel initiator: nvme connect -t (\w+) .* -s 4420 ", l)
    if m:
        check(conn is None, "connect -t %s while %s was still connected" % (m.group(1), conn))
        conn = m.group(1)
    if re.search(r"kernel initiator: nvme disconnect -d nvme\d+: ok", l):
        conn, disc = None, disc + 1
    m = re.search(r"compare: \[\d+/\d+\] (\S+) ", l)
    if m:
        pending = m.group(1)
    if l.startswith("compare:   ok: ") and pending and pending.startswith("kernel-"):
        runs += 1
        check(conn == ("tcp" if pending == "kernel-tcp" else "rdma"), "%s ran while %s was connected" % (pending, conn))
check(runs == 4 and disc >= 2 and conn is None, "%d kernel runs, %d disconnects, %s left connected" % (runs, disc, conn))
for f in fails:
    print("FAIL " + f)
if fails:
    sys.exit(1)
print("PASS TCP columns %s: the RDMA vs TCP table and ratios agree with fio's JSON, the jobs' ports and "
      "transports, one kernel transport connected at a time" % ",".join(VARS))
PY
rm -rf "$OUT"
echo "PASS tools_compare"
