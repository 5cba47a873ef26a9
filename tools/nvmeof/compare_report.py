"""The report of tools/nvmeof-compare, made from an output directory (plan.json, runs.jsonl and
the fio JSON files they name): report.json, report.md (one table, the environment, the plots
as SVG images with PNG links), plots/*.{svg,png} and report.txt (the side-by-side table the
command prints at the end).

Numbers: each run's IOPS, bandwidth, total-latency (lat_ns) percentiles, usr+sys CPU, context
switches and errors come from fio's JSON (group_reporting=1: one merged job per run); CPU us per
I/O is the machine's non-idle jiffies (user+nice+system+irq+softirq+steal of /proc/stat's "cpu"
line) from the first job's exec_prerun to the last job's exec_postrun, in microseconds, divided
by the run's I/Os; context switches per I/O are fio's "ctx" (its jobs' voluntary and
involuntary switches together) divided by the run's I/Os.  A cell (row x initiator) shows the
median over its repeats that succeeded, each number on its own (the median IOPS and the median
p99 may come from different repeats)."""
import json
import os
import statistics

from . import compare_matrix as cm
from . import datapath, fiojson
from . import gnuplot

METRICS = ("iops", "mib_s", "lat_p50_us", "lat_p90_us", "lat_p99_us", "lat_p99.9_us",
           "lat_p99.99_us", "usr_sys_cpu", "cpu_us_per_io", "ctx_per_io")
# how report.md and report.txt print each number (the test formats its own numbers the same way)
FORMATS = {"iops": "%.1f", "mib_s": "%.2f", "lat_p50_us": "%.3f", "lat_p90_us": "%.3f",
           "lat_p99_us": "%.3f", "lat_p99.9_us": "%.3f", "lat_p99.99_us": "%.3f",
           "usr_sys_cpu": "%.2f", "cpu_us_per_io": "%.2f", "ctx_per_io": "%.2f", "ratio": "%.2f"}
RATIOS = ("iops", "lat_p99_us", "cpu_us_per_io")
# ratios to SPDK's plugin on the same target (its CPU is not measured: no CPU ratio)
SPDK_RATIOS = ("iops", "lat_p99_us")
# a TCP column against its RDMA twin (the "RDMA vs TCP" table)
TCP_RATIOS = ("iops", "lat_p50_us", "lat_p99_us", "cpu_us_per_io")


def fmt(key, v):
    return "-" if v is None else FORMATS[key] % v


def run_numbers(rec, clk_tck, m=None):
    """The numbers of one run record (see compare_run.summarize); M: other metrics of it (one
    host's of a client/server run: no CPU us/IO)."""
    if m is not None:
        rec = {}
    m = rec["metrics"] if m is None else m
    n = {
        "iops": m["iops"],
        "mib_s": m["bw_bytes"] / 2.0 ** 20,
        "usr_sys_cpu": m["usr_cpu"] + m["sys_cpu"],
        "ios": m["ios"],
        # fio writes total_err only with continue_on_error; otherwise a job stops at its first error
        "errors": m["total_err"] or (1 if m["error"] else 0),
        "cpu_us_per_io": (rec["busy_jiffies"] * 1e6 / clk_tck / m["ios"])
        if rec.get("busy_jiffies") is not None and m["ios"] else None,
        # fio's jobs' context switches per I/O: a job preempted by the work its I/O causes on
        # its own CPU shows here (records written before the tool kept "ctx" have none)
        "ctx_per_io": m["ctx"] / m["ios"] if m.get("ctx") is not None and m["ios"] else None,
    }
    for p in fiojson.PERCENTILES:
        k = "lat_p%s_us" % format(p, "g")
        n[k] = m.get(k)
    return n


def locality(bufs):
    """Where a run's GPU memory and RDMA device were, from its start lines: one phrase per
    distinct placement, or None for host memory."""
    seen = []
    for d in bufs:
        if d.get("memory") != "cuda":
            continue
        n = lambda v: "?" if v is None else str(v)  # noqa: E731
        t = "GPU %s (%s, NUMA %s)" % (d["cuda_device"], d["gpu_pci"], n(d.get("gpu_numa")))
        if d.get("rdma_dev"):
            t += ", RDMA device %s (%s, NUMA %s)" % (d["rdma_dev"], d.get("rdma_pci"), n(d.get("rdma_numa")))
        if d.get("numa_differs"):
            t += ": different NUMA nodes (the engine warned)"
        if t not in seen:
            seen.append(t)
    return "; ".join(seen) or None


def copy_cost(cp, m):
    """A run's host<->GPU copies (datapath.copies: every job's closing line summed) per I/O,
    and the time they took as a share of the jobs' time (jobs x runtime)."""
    tot = datapath.copies_total(cp)
    n, b, ms = tot["n"], tot["bytes"], tot["ms"] + cp["flushes"]["ms"]
    ios = m.get("ios") or 0
    job_ms = (m.get("runtime_ms") or 0) * max(cp.get("jobs", 1), 1)
    return {"copies": n, "bytes": b, "ms": round(ms, 3), "flushes": cp["flushes"]["n"],
            "copies_per_io": n / ios if ios else None, "bytes_per_io": b / ios if ios else None,
            "copy_us_per_io": ms * 1e3 / ios if ios else None,
            "share": ms / job_ms if job_ms else None}


def _num(v, digits, div=1):
    return "-" if v is None else "%.*f" % (digits, v / div)


def _median(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def _ratios(cell, base, keys):
    """CELL's medians over BASE's (a cell, or None: no ratios), for each of KEYS."""
    out = {}
    for k in keys:
        x, y = cell["median"][k], base["median"][k] if base else None
        out[k] = (x / y) if x is not None and y else None
    return out


def aggregate(out):
    with open(os.path.join(out, "plan.json")) as f:
        plan = json.load(f)
    recs = []
    path = os.path.join(out, "runs.jsonl")
    if os.path.exists(path):
        with open(path) as f:
            recs = [json.loads(l) for l in f if l.strip()]
    clk = plan["env"]["clk_tck"]
    variants = plan["variants"]
    base = next((b for b in ("kernel-libaio", "kernel-io_uring")
                 if b in variants and any(r["variant"] == b and r["status"] == "ok" for r in recs)), None)
    cells = []
    for row in plan["rows"]:
        line = {}
        for v in variants:
            rs = [r for r in recs if r["row"] == row["name"] and r["variant"] == v]
            ok = [r for r in rs if r["status"] == "ok"]
            per = []
            for r in rs:
                p = {"rep": r["rep"], "status": r["status"], "json": r.get("json"), "note": r.get("note", ""),
                     "counters": r.get("counters", {})}
                if "data_path" in r:
                    p["data_path"] = r["data_path"]
                    loc = locality(r.get("buffers") or [])
                    if loc:
                        p["locality"] = loc
                if r.get("copies") and r.get("metrics"):
                    p["copies"] = copy_cost(r["copies"], r["metrics"])
                if "metrics" in r:
                    p.update(run_numbers(r, clk))
                if "hosts" in r:
                    p["hosts"] = {h: run_numbers(r, clk, hm) for h, hm in r["hosts"].items()}
                    p["cpu"] = r.get("cpu")
                per.append(p)
            med = {k: _median([p.get(k) for p in per if p["status"] == "ok"]) for k in METRICS}
            hosts = {}
            for p in per:
                for h in p.get("hosts", {}):
                    hosts.setdefault(h, None)
            hosts = {h: {k: _median([p["hosts"][h].get(k) for p in per
                                     if p["status"] == "ok" and h in p.get("hosts", {})]) for k in METRICS}
                     for h in hosts}
            counters = {}
            for p in per:
                for k, d in p["counters"].items():
                    counters[k] = counters.get(k, 0) + d
            status = "ok" if ok and len(ok) == len(rs) else ("unavailable" if rs and all(
                r["status"] == "unavailable" for r in rs) else ("not run" if not rs else (
                    "partial" if ok else "failed")))
            cell = {"row": row["name"], "variant": v, "rw": row["rw"], "bs": row["bs"],
                    "iodepth": row["iodepth"], "numjobs": row["numjobs"], "status": status,
                    "runs": len(rs), "ok": len(ok), "failed": sum(r["status"] == "fail" for r in rs),
                    "errors": sum(p.get("errors", 0) for p in per),
                    "note": "; ".join(sorted({r["note"] for r in rs if r.get("note")})),
                    "median": med, "counters": counters, "per_run": per}
            if hosts:
                cell["hosts"] = hosts      # per-host medians; "median" is the combined row's
            line[v] = cell
            cells.append(cell)
        b = line.get(base) if base else None
        # a TCP column's kernel and SPDK ratios are to their TCP columns, where those ran
        bt = line.get("kernel-tcp")
        bt = bt if bt and bt["ok"] else b
        for v, cell in line.items():
            tcp = cm.transport(v) == "tcp"
            # to the kernel initiator: on the target it ran against (nvmet) only
            cell["ratio"] = _ratios(cell, (bt if tcp else b) if cm.variant_target(v) == "nvmet" else None, RATIOS)
            sb = line.get(cm.on_target("spdk-tcp" if tcp else "spdk", cm.variant_target(v)))
            cell["ratio_spdk"] = _ratios(cell, sb if sb and sb["ok"] else None, SPDK_RATIOS)
            tw = line.get(cm.rdma_twin(v)) if tcp else None
            if tw is not None:
                cell["rdma_twin"] = cm.rdma_twin(v)
                cell["ratio_rdma"] = _ratios(cell, tw if tw["ok"] else None, TCP_RATIOS)
            # a GPU memory variant against the same engine variant with host memory
            hb = line.get(cm.host_twin(v)) if cm.host_twin(v) else None
            if hb is not None:
                cell["ratio_host"] = _ratios(cell, hb if hb["ok"] else None, RATIOS)
    return plan, recs, base, cells


# ------------------------------------------------------------------ plots
def _dat(header, lines):
    out = ["\t".join(header)]
    for l in lines:
        out.append("\t".join(l[:1] + ["NaN" if v is None else repr(float(v)) for v in l[1:]]))
    return "\n".join(out) + "\n"


PLOT_HEAD = "set termoption noenhanced\nset key outside right top\nset grid\n"


def plots(out, plan, cells):
    """Draw the plots; returns [(title, base path relative to OUT)].  Without gnuplot: []."""
    if not gnuplot.available():
        return []
    pdir = os.path.join(out, "plots")
    os.makedirs(pdir, exist_ok=True)
    variants = plan["variants"]
    by = {(c["row"], c["variant"]): c for c in cells}
    have = [v for v in variants if any(by[(r["name"], v)]["ok"] for r in plan["rows"])]
    if not have:
        return []
    made = []
    n = len(have) + 1
    # latency percentiles per initiator, one plot per row
    for row in plan["rows"]:
        lines = []
        for p in fiojson.PERCENTILES:
            k = "lat_p%s_us" % format(p, "g")
            lines.append(["p%s" % format(p, "g")] + [by[(row["name"], v)]["median"][k] for v in have])
        if all(v is None for l in lines for v in l[1:]):
            continue                        # nothing to draw (gnuplot fails on it)
        base = "plots/lat-%s" % row["name"]
        gnuplot.draw(os.path.join(out, base), PLOT_HEAD + (
            "set title 'total latency percentiles: %s (median of repeats)'\nset ylabel 'microseconds'\n"
            "set logscale y\nset xlabel 'percentile'\n"
            "plot for [i=2:%d] '{lat}' using 0:i:xtic(1) with linespoints lw 2 title columnhead(i)\n"
            % (row["name"], n)), {"lat": _dat(["pct"] + have, lines)})
        made.append(("latency percentiles, %s" % row["name"], base))
    # IOPS versus queue depth, one plot per (rw, bs, numjobs)
    groups = {}
    for row in plan["rows"]:
        groups.setdefault((row["rw"], row["bs"], row["numjobs"]), []).append(row)
    for (rw, bs, nj), rows in groups.items():
        rows = sorted(rows, key=lambda r: r["iodepth"])
        lines = [[str(r["iodepth"])] + [by[(r["name"], v)]["median"]["iops"] for v in have] for r in rows]
        base = "plots/iops-qd-%s-%s-j%d" % (rw, bs.lower(), nj)
        gnuplot.draw(os.path.join(out, base), PLOT_HEAD + (
            "set title 'IOPS versus queue depth: %s %s numjobs=%d (median of repeats)'\n"
            "set xlabel 'iodepth'\nset ylabel 'IOPS'\nset logscale x 2\nset yrange [0:*]\n"
            "set offsets graph 0.05, graph 0.05, 0, 0\n"
            "plot for [i=2:%d] '{iops}' using 1:i with linespoints lw 2 pt 7 title columnhead(i)\n"
            % (rw, bs, nj, n)), {"iops": _dat(["iodepth"] + have, lines)})
        made.append(("IOPS versus queue depth, %s %s numjobs=%d" % (rw, bs, nj), base))
    # CPU per I/O, all rows
    # only the initiators measured (not: --hosts, SPDK's preloaded plugin)
    cpu_have = [v for v in have
                if any(by[(r["name"], v)]["median"]["cpu_us_per_io"] is not None for r in plan["rows"])]
    if not cpu_have:
        return made                         # nothing measured: no plot
    n = len(cpu_have) + 1
    lines = [[r["name"]] + [by[(r["name"], v)]["median"]["cpu_us_per_io"] for v in cpu_have] for r in plan["rows"]]
    base = "plots/cpu-per-io"
    gnuplot.draw(os.path.join(out, base), PLOT_HEAD + (
        "set title 'CPU microseconds per I/O, whole machine (median of repeats)'\n"
        "set ylabel 'CPU us per I/O'\nset yrange [0:*]\nset style data histograms\n"
        "set style histogram clustered gap 1\nset style fill solid 0.8 border -1\n"
        "set xtics rotate by -30 left\nset bmargin 8\n"
        "plot for [i=2:%d] '{cpu}' using i:xtic(1) title columnhead(i)\n" % n),
        {"cpu": _dat(["row"] + cpu_have, lines)})
    made.append(("CPU microseconds per I/O", base))
    return made


# ------------------------------------------------------------------ report.md / .json / .txt
def _env_lines(env):
    L = ["- kernel %s; %s; nvme-cli: %s" % (env["kernel"], env["fio"], env.get("nvme_cli") or "n/a"),
         "- %d CPUs (%s)%s; CPU governor: %s; NUMA nodes: %d; CLK_TCK %d" % (
             env["cpus"], env["cpu_model"], ", under a hypervisor" if env["hypervisor"] else "",
             env["cpu_governor"], env["numa_nodes"], env["clk_tck"])]
    for d in env["rdma"]:
        L.append("- RDMA device %s: firmware %s, NUMA node %s%s" % (
            d["name"], d["fw_ver"] or "?", d["numa_node"],
            ", software RDMA on %s" % d["parent"] if d["software"] else ""))
    for w in env["warnings"]:
        L.append("- **warning:** %s" % w)
    return L


def _target_line(plan):
    t = plan["target"]
    if not t.get("testbed"):
        tcp = any(cm.transport(v) == "tcp" for v in plan.get("variants", []))
        return "Target: real target (%s:%s%s, %s, nsid %s)%s%s." % (
            t["traddr"], t["trsvcid"], ", NVMe/TCP port %s" % t.get("tcp_trsvcid") if tcp else "",
            t["subnqn"], t["nsid"],
            ", kernel initiator on %s" % t["kernel_dev"] if t.get("kernel_dev") else "",
            ", kernel-tcp on %s" % t["kernel_tcp_dev"] if t.get("kernel_tcp_dev") else "")
    what = {"nvmet": "the Linux kernel's nvmet_rdma", "spdk-tgt": "SPDK's nvmf_tgt (columns named @spdk-tgt)"}
    ts = plan.get("targets") or {"nvmet": t}
    tcp = any(cm.transport(v) == "tcp" for v in plan.get("variants", []))
    return "Targets: the testbed (qemu TCG, Soft-RoCE): %s." % "; ".join(
        "%s (%s:%s%s, %s, nsid %s%s%s)" % (
            what[n], x["traddr"], x["trsvcid"], ", NVMe/TCP port %s" % x.get("tcp_trsvcid") if tcp else "",
            x["subnqn"], x["nsid"],
            ", kernel initiator on %s" % x["kernel_dev"] if x.get("kernel_dev") else "",
            ", kernel-tcp on %s" % x["kernel_tcp_dev"] if x.get("kernel_tcp_dev") else "")
        for n, x in sorted(ts.items(), key=lambda kv: cm.TARGETS.index(kv[0])))


def markdown(plan, base, cells, made):
    L = ["# nvmeof-compare report", "",
         "%s Matrix: %d rows x %d columns (initiator against target) x %d repeats, %d s per "
         "run, region %s." % (_target_line(plan), len(plan["rows"]), len(plan["variants"]), plan["repeat"],
                              plan["runtime"], plan["size"]) +
         (" Engine options on every engine run: `%s`." % " ".join(plan["engine_opts"])
          if plan.get("engine_opts") else ""), "",
         "Every number is the median over the repeats that succeeded (each column on its own). "
         "Latencies are fio's total latency (lat_ns) percentiles in microseconds; usr+sys is fio's "
         "CPU percentage; CPU us/IO is the whole machine's non-idle CPU time over fio's I/O loop "
         "divided by the I/Os; ctx sw/IO is fio's context switches of its jobs (voluntary and "
         "involuntary) divided by the I/Os. Ratios are to %s on the same target (nvmet only), "
         "and the spdk ratios to SPDK's fio plugin on the same target%s." % (
             base or "the kernel initiator (none ran: no ratios)",
             "; a -tcp column's to kernel-tcp and spdk-tcp, where they ran"
             if any(cm.transport(v) == "tcp" for v in plan["variants"]) else ""), "",
         "## Environment", ""]
    L += _env_lines(plan["env"])
    L += ["", "## Results", "",
          "| row | initiator | runs ok | IOPS | MiB/s | p50 us | p90 us | p99 us | p99.9 us | p99.99 us "
          "| usr+sys % | CPU us/IO | ctx sw/IO | errors | IOPS ratio | p99 ratio | CPU/IO ratio "
          "| IOPS ratio spdk | p99 ratio spdk |",
          "|---|---|---|" + "---:|" * 16]
    for c in cells:
        m, r = c["median"], c["ratio"]
        if c["status"] in ("unavailable", "not run"):
            L.append("| %s | %s | %s: %s |%s" % (c["row"], c["variant"], c["status"], c["note"], " |" * 16))
            continue
        L.append("| %s | %s | %d/%d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d | %s | %s | %s | %s | %s |" % (
            c["row"], c["variant"], c["ok"], c["runs"], fmt("iops", m["iops"]), fmt("mib_s", m["mib_s"]),
            fmt("lat_p50_us", m["lat_p50_us"]), fmt("lat_p90_us", m["lat_p90_us"]),
            fmt("lat_p99_us", m["lat_p99_us"]), fmt("lat_p99.9_us", m["lat_p99.9_us"]),
            fmt("lat_p99.99_us", m["lat_p99.99_us"]), fmt("usr_sys_cpu", m["usr_sys_cpu"]),
            fmt("cpu_us_per_io", m["cpu_us_per_io"]), fmt("ctx_per_io", m["ctx_per_io"]), c["errors"],
            fmt("ratio", r["iops"]),
            fmt("ratio", r["lat_p99_us"]), fmt("ratio", r["cpu_us_per_io"]),
            fmt("ratio", c["ratio_spdk"]["iops"]), fmt("ratio", c["ratio_spdk"]["lat_p99_us"])))
        for h, hm in c.get("hosts", {}).items():
            L.append("| %s | &nbsp;&nbsp;%s on %s | | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | | | | | | |" % (
                c["row"], c["variant"], h, fmt("iops", hm["iops"]), fmt("mib_s", hm["mib_s"]),
                fmt("lat_p50_us", hm["lat_p50_us"]), fmt("lat_p90_us", hm["lat_p90_us"]),
                fmt("lat_p99_us", hm["lat_p99_us"]), fmt("lat_p99.9_us", hm["lat_p99.9_us"]),
                fmt("lat_p99.99_us", hm["lat_p99.99_us"]), fmt("usr_sys_cpu", hm["usr_sys_cpu"]),
                fmt("cpu_us_per_io", hm["cpu_us_per_io"]), fmt("ctx_per_io", hm["ctx_per_io"])))
    if plan.get("hosts"):
        L += ["", "Engine rows ran through fio's client/server mode on %s (the same job file on every "
              "host): each such row is the combined numbers (fio's \"All clients\": I/Os of all hosts over "
              "the longest runtime; its latency percentiles are the worst host's where fio gives none, as fio 3.33's "
              "\"All clients\" does: an upper bound), the rows under it each host's own. "
              "CPU us/IO is not measured there (it is this machine's /proc/stat)." % ", ".join(plan["hosts"])]
    if any(cm.variant_kind(v) == "spdk" for v in plan.get("variants", [])):
        L += ["", "The spdk rows are SPDK's fio plugin, preloaded into fio as SPDK advises (thread=1, its "
              "transport ID as filename). Their CPU us/IO is not measured: fio runs its exec hooks "
              "through /bin/sh, which would inherit the preload and fail to load the plugin."]
    if "spdk-tgt" in (plan.get("targets") or {}):
        L += ["", "The @spdk-tgt columns ran against SPDK's nvmf_tgt in the same guest, after every "
              "nvmet column and with nvmf_tgt started only then (its reactor busy-polls one of the "
              "guest's CPUs): their CPU us/IO includes that reactor's whole CPU, so it is not comparable "
              "with the nvmet columns'. nvmf_tgt's log is spdk-target.log."]
    bad = [c for c in cells if c["status"] in ("failed", "partial")]
    if bad:
        L += ["", "Failed runs:", ""]
        L += ["- %s / %s: %d of %d failed: %s" % (c["row"], c["variant"], c["failed"], c["runs"], c["note"])
              for c in bad]
    dp = {}
    for c in cells:
        for p in c["per_run"]:
            if "data_path" in p:
                seen = dp.setdefault(c["variant"], [])
                seen += [x for x in p["data_path"] or ["no start line"] if x not in seen]
    if dp:
        L += ["", "## Data path", "",
              "The buffers each engine column's runs had, from the engine's own start lines (host memory, "
              "GPUDirect via dma-buf or peermem in benchmark or data mode, or staged), every run of the column:", ""]
        L += ["- %s: %s" % (v, ", ".join(x)) for v, x in dp.items()]
        loc = {}
        for c in cells:
            for p in c["per_run"]:
                if p.get("locality"):
                    seen = loc.setdefault(c["variant"], [])
                    seen += [p["locality"]] if p["locality"] not in seen else []
        if loc:
            L += ["", "Where the GPU memory and the RDMA device were (the start lines' PCI addresses and NUMA "
                  "nodes; ? where the machine does not say):", ""]
            L += ["- %s: %s" % (v, "; ".join(x)) for v, x in loc.items()]
    cps = [(c, [p["copies"] for p in c["per_run"] if p.get("copies")]) for c in cells]
    cps = [(c, x) for c, x in cps if x]
    if cps:
        L += ["", "## Copies between host and GPU memory", "",
              "From each run's closing \"CUDA copies\" lines (every job's, summed; the engine counts each "
              "copy, its bytes and the time spent in it): per I/O, and that time as a share of the jobs' "
              "time (jobs x runtime), median of the runs. GPUDirect in benchmark mode copies nothing; data "
              "mode copies fio's data; staged mode also copies device<->staging per I/O.", "",
              "| initiator | row | copies/IO | KiB copied/IO | copy+flush us/IO | share of job time | flushes |",
              "|---|---|---:|---:|---:|---:|---:|"]
        for c, x in cps:
            med = {k: _median([p[k] for p in x]) for k in ("copies_per_io", "bytes_per_io", "copy_us_per_io",
                                                           "share", "flushes")}
            L.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                c["variant"], c["row"], _num(med["copies_per_io"], 2), _num(med["bytes_per_io"], 1, 1024),
                _num(med["copy_us_per_io"], 2), "-" if med["share"] is None else "%.1f%%" % (100 * med["share"]),
                _num(med["flushes"], 0)))
    gpu = [c for c in cells if "ratio_host" in c]
    if gpu:
        L += ["", "## GPU memory against host memory", "",
              "Each GPU memory column (-gpu: GPUDirect, the target moves data to and from GPU memory; -staged: "
              "through registered host memory) against the same engine column with host memory, row by row "
              "(medians; the data path each run really took is above).", "",
              "| initiator | row | against | IOPS ratio | p99 ratio | CPU/IO ratio |", "|---|---|---|---:|---:|---:|"]
        for c in gpu:
            r = c["ratio_host"]
            L.append("| %s | %s | %s | %s | %s | %s |" % (c["variant"], c["row"], cm.host_twin(c["variant"]),
                                                          *[fmt("ratio", r.get(k)) for k in RATIOS]))
    L += rdma_vs_tcp_md(plan, cells)
    cnt = [c for c in cells if any(c["counters"].values())]
    L += ["", "## RDMA counters", "",
          "Retransmission-type counters of the RDMA device (initiator and target together when they "
          "share it, as in the testbed), summed over the repeats; only cells where one moved:", ""]
    L += ["- %s / %s: %s" % (c["row"], c["variant"], ", ".join(
        "%s=%d" % kv for kv in sorted(c["counters"].items()) if kv[1])) for c in cnt] or ["- none moved"]
    if made:
        L += ["", "## Plots", ""]
        for title, b in made:
            L += ["### %s" % title, "", "![%s](%s.svg)" % (title, b), "", "[PNG](%s.png)" % b, ""]
    else:
        L += ["", "(no plots: gnuplot not found, or no run succeeded)"]
    return "\n".join(L) + "\n"


def rdma_vs_tcp_md(plan, cells):
    """The "RDMA vs TCP" table: each TCP column next to its RDMA twin, row by row (medians), the
    ratio TCP / RDMA after each pair; [] when no TCP column ran."""
    tw = [c for c in cells if "ratio_rdma" in c]
    if not tw:
        return []
    by = {(c["row"], c["variant"]): c for c in cells}
    digests = plan.get("tcp_digests") or []
    L = ["", "## RDMA vs TCP", "",
         "Each NVMe/TCP column against the same initiator over RDMA on the same target (engine-tcp: "
         "engine-poll, kernel-tcp: kernel-libaio, spdk-tcp: spdk), row by row: medians, and the ratio "
         "TCP / RDMA (IOPS above 1: TCP faster; latency and CPU above 1: TCP slower or costlier).%s%s" % (
             " TCP digests on: %s." % ", ".join(digests) if digests else "",
             " In the testbed both run on the guest's CPUs (Soft-RoCE and TCP alike): compare ratios, "
             "not the absolute numbers." if plan["target"].get("testbed") else ""), "",
         "| row | TCP | RDMA | IOPS TCP | IOPS RDMA | ratio | p50 us TCP | p50 us RDMA | ratio "
         "| p99 us TCP | p99 us RDMA | ratio | CPU us/IO TCP | CPU us/IO RDMA | ratio |",
         "|---|---|---|" + "---:|" * 12]
    for c in tw:
        r = by.get((c["row"], c["rdma_twin"]))
        if c["status"] in ("unavailable", "not run") or r is None:
            L.append("| %s | %s | %s | %s: %s |%s" % (c["row"], c["variant"], c["rdma_twin"], c["status"],
                                                        c["note"], " |" * 11))
            continue
        cols = []
        for k in TCP_RATIOS:
            cols += [fmt(k, c["median"][k]), fmt(k, r["median"][k]), fmt("ratio", c["ratio_rdma"][k])]
        L.append("| %s | %s | %s | %s |" % (c["row"], c["variant"], c["rdma_twin"], " | ".join(cols)))
    return L


def text_table(plan, base, cells):
    """The side-by-side table printed at the end (report.txt)."""
    L = ["nvmeof-compare: median of %d repeat(s), %d s per run; ratios (x) to %s, xS to SPDK's plugin, "
         "each on the same target" % (plan["repeat"], plan["runtime"], base or "(no kernel initiator)")]
    hdr = "  %-28s %9s %10s %10s %10s %9s %6s %6s %6s %6s %7s %7s %6s" % (
        "initiator", "IOPS", "p50 us", "p99 us", "p99.9 us", "CPU us/IO", "ctx/IO", "IOPS x", "p99 x",
        "CPU x", "IOPS xS", "p99 xS", "retry")
    rows = {}
    for c in cells:
        rows.setdefault(c["row"], []).append(c)
    for name, cs in rows.items():
        L += ["", "== %s ==" % name, hdr]
        for c in cs:
            if c["status"] in ("unavailable", "not run", "failed"):
                L.append("  %-28s %s%s" % (c["variant"], c["status"], ": " + c["note"] if c["note"] else ""))
                continue
            m, r = c["median"], c["ratio"]
            L.append("  %-28s %9s %10s %10s %10s %9s %6s %6s %6s %6s %7s %7s %6d%s" % (
                c["variant"], fmt("iops", m["iops"]), fmt("lat_p50_us", m["lat_p50_us"]),
                fmt("lat_p99_us", m["lat_p99_us"]), fmt("lat_p99.9_us", m["lat_p99.9_us"]),
                fmt("cpu_us_per_io", m["cpu_us_per_io"]), fmt("ctx_per_io", m["ctx_per_io"]),
                fmt("ratio", r["iops"]),
                fmt("ratio", r["lat_p99_us"]), fmt("ratio", r["cpu_us_per_io"]),
                fmt("ratio", c["ratio_spdk"]["iops"]), fmt("ratio", c["ratio_spdk"]["lat_p99_us"]),
                sum(c["counters"].values()), "" if c["status"] == "ok" else "  (%s)" % c["status"]))
            for h, hm in c.get("hosts", {}).items():
                L.append("    %-26s %9s %10s %10s %10s" % (
                    h, fmt("iops", hm["iops"]), fmt("lat_p50_us", hm["lat_p50_us"]),
                    fmt("lat_p99_us", hm["lat_p99_us"]), fmt("lat_p99.9_us", hm["lat_p99.9_us"])))
    tw = [c for c in cells if c.get("ratio_rdma")]
    if tw:
        L += ["", "== RDMA vs TCP: each TCP column's median over its RDMA twin's ==",
              "  %-24s %-24s %-18s %7s %7s %7s %7s" % ("row", "TCP", "RDMA", "IOPS x", "p50 x", "p99 x", "CPU x")]
        for c in tw:
            r = c["ratio_rdma"]
            L.append("  %-24s %-24s %-18s %7s %7s %7s %7s" % (
                c["row"], c["variant"], c["rdma_twin"], *[fmt("ratio", r[k]) for k in TCP_RATIOS]))
    for w in plan["env"]["warnings"]:
        L.append("WARNING: " + w)
    return "\n".join(L) + "\n"


def write(out):
    """Make every report file in OUT; returns (text table, number of failed cells)."""
    plan, _recs, base, cells = aggregate(out)
    try:
        made = plots(out, plan, cells)
        plot_err = None
    except RuntimeError as e:
        made, plot_err = [], str(e)
    md = markdown(plan, base, cells, made)
    if plot_err:
        md += "\nPlots failed: %s\n" % plot_err
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(md)
    doc = {"tool": "nvmeof-compare", "rows": plan["rows"], "variants": plan["variants"],
           "repeat": plan["repeat"], "runtime": plan["runtime"], "size": plan["size"],
           "target": plan["target"], "targets": plan.get("targets"), "env": plan["env"], "baseline": base,
           "metrics": list(METRICS),
           "hosts": plan.get("hosts"),
           "cells": cells, "plots": [{"title": t, "svg": b + ".svg", "png": b + ".png"} for t, b in made]}
    with open(os.path.join(out, "report.json"), "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
    txt = text_table(plan, base, cells)
    with open(os.path.join(out, "report.txt"), "w") as f:
        f.write(txt)
    nbad = sum(c["status"] in ("failed", "partial") for c in cells) + (1 if plot_err else 0)
    return txt, nbad, plot_err


__all__ = ["write", "aggregate", "METRICS", "FORMATS", "cm"]
