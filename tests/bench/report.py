#!/usr/bin/env python3
"""report.py OUTDIR - the table of `make bench`, from OUTDIR/manifest.tsv (one line per run,
written by guest_bench.sh), OUTDIR/meta.txt and the fio JSON files the manifest names.
Prints the table on stdout and writes OUTDIR/results.json.  A run whose fio failed, or whose
JSON is missing or reports a job error, is shown as FAILED in its row and listed at the end
on a line starting with FAILED."""
import json
import os
import sys

WORKLOADS = [
    ("randread-4k-qd1", "4 KiB random read, QD1"),
    ("randread-4k-qd32", "4 KiB random read, QD32"),
    ("read-128k-qd8", "128 KiB sequential read, QD8"),
]
BASELINE = "kernel-libaio"


def load_json(path):
    with open(path) as f:
        text = f.read()
    i = text.find("{")          # fio may print notes before the JSON object
    if i < 0:
        raise ValueError("no JSON in %s" % path)
    return json.loads(text[i:])


def pct(clat, key):
    p = (clat or {}).get("percentile") or {}
    for k, v in p.items():
        if abs(float(k) - key) < 1e-6:
            return v / 1000.0
    return None


def parse_run(fields, hz, ncpu):
    name, status, rc, jpath, _log, jiffies, wall, note, lbusy, ltotal = (fields + [""] * 10)[:10]
    r = {"name": name, "status": status, "rc": rc, "note": note, "json": jpath,
         "busy_jiffies": int(jiffies or 0), "wall_s": float(wall or 0),
         "loop_busy_jiffies": int(lbusy) if lbusy.isdigit() else None,
         "loop_total_jiffies": int(ltotal) if ltotal.isdigit() else None}
    if status == "unavailable":
        return r
    try:
        data = load_json(jpath)
        job = data["jobs"][0]
    except Exception as e:  # noqa: BLE001 - any unreadable result is a failed run
        r["status"] = "fail"
        r["note"] = (note + "; " if note else "") + "no usable fio JSON (%s)" % e
        return r
    if job.get("error"):
        r["status"] = "fail"
        r["note"] = (note + "; " if note else "") + "fio job error %s" % job.get("error")
    rd, wr = job["read"], job["write"]
    ios = rd.get("total_ios", 0) + wr.get("total_ios", 0)
    r["ios"] = ios
    r["iops"] = rd.get("iops", 0) + wr.get("iops", 0)
    r["bw_mib"] = (rd.get("bw_bytes", 0) + wr.get("bw_bytes", 0)) / 2**20
    clat = rd.get("clat_ns") if rd.get("total_ios") else wr.get("clat_ns")
    r["p50"], r["p99"], r["p999"] = pct(clat, 50), pct(clat, 99), pct(clat, 99.9)
    lat = rd.get("lat_ns") if rd.get("total_ios") else wr.get("lat_ns")
    r["lat_p50"] = pct(lat, 50)
    r["slat_mean_us"] = ((rd if rd.get("total_ios") else wr).get("slat_ns") or {}).get("mean", 0) / 1000.0
    r["fio_cpu"] = job.get("usr_cpu", 0) + job.get("sys_cpu", 0)
    # whole fio process (start-up, connect, teardown included) and fio's I/O loop only
    r["guest_us_per_io_fio"] = (r["busy_jiffies"] * 1e6 / hz / ios) if ios else None
    lb = r["loop_busy_jiffies"]
    r["guest_us_per_io"] = (lb * 1e6 / hz / ios) if ios and lb is not None else None
    if r["loop_total_jiffies"] is not None:
        r["loop_s"] = r["loop_total_jiffies"] / hz / ncpu
    if r["status"] == "ok" and not ios:
        r["status"] = "fail"
        r["note"] = "no I/O completed"
    return r


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "n/a"
    return "%.2fx" % (a / b)


def main():
    out = sys.argv[1]
    meta = {}
    with open(os.path.join(out, "meta.txt")) as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition("=")
            meta[k] = v
    hz = int(meta.get("hz", "100"))
    ncpu = int(meta.get("ncpu", "1") or 1)
    runs = {}
    with open(os.path.join(out, "manifest.tsv")) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if fields and fields[0]:
                runs[fields[0]] = parse_run(fields, hz, ncpu)

    modes = meta.get("modes", "poll").split()
    inits = ["engine-%s" % m for m in modes] + ["kernel-libaio", "kernel-io_uring"]
    L = []
    L.append("fio-nvmeof bench: this engine vs the kernel NVMe/RDMA initiator (%s)" % meta.get("fio", "fio"))
    L.append("  guest: qemu TCG, %s vCPUs, kernel %s, Soft-RoCE loopback, nvmet-rdma target, %s backing;"
             % (meta.get("ncpu", "?"), meta.get("kernel", "?"), meta.get("backing", "?")))
    L.append("  %s s per job, region %s (filled once), kernel initiator on %s, CLK_TCK %d"
             % (meta.get("runtime", "?"), meta.get("size", "?"), meta.get("nvme_dev", "?"), hz))
    L.append("  NOTE: absolute numbers under qemu TCG emulation are noise; only ratios between rows")
    L.append("  of this one run mean anything.")
    L.append("  p50/p99/p99.9 = fio completion latency (clat).  lat p50 = total latency (submit +")
    L.append("  completion): under Soft-RoCE a user-space post_send does protocol work in the")
    L.append("  syscall, so the engine's clat leaves part of the round trip out; compare lat p50 too.")
    L.append("  CPU us/IO = non-idle guest CPU time (user+nice+system+irq+softirq+steal, all vCPUs:")
    L.append("  initiator, target and Soft-RoCE together) / I/Os, over fio's I/O loop (exec_prerun..")
    L.append("  exec_postrun); (whole) = around the whole fio process, start-up/connect included.")
    L.append("  fio cpu % = fio's usr+sys.  engine-poll busy-polls (the engine's default), -event sleeps.")
    hdr = "  %-16s %7s %9s %9s %9s %9s %7s %9s %9s" % (
        "initiator", "IOPS", "p50 us", "p99 us", "p99.9 us", "lat p50", "fio cpu", "CPU us/IO", "(whole)")
    failures = []
    for wl, title in WORKLOADS:
        L.append("")
        L.append("== %s ==" % title)
        L.append(hdr)
        for ini in inits:
            r = runs.get("%s.%s" % (wl, ini))
            if r is None:
                L.append("  %-17s %s" % (ini, "not run"))
                continue
            if r["status"] == "unavailable":
                L.append("  %-17s %s" % (ini, r["note"] or "unavailable"))
                continue
            if r["status"] != "ok":
                failures.append("%s: %s" % (r["name"], r["note"]))
                if "ios" not in r:
                    L.append("  %-17s FAILED (%s)" % (ini, r["note"]))
                    continue
            L.append("  %-16s %7s %9s %9s %9s %9s %6s%% %9s %9s%s" % (
                ini, fmt(r.get("iops"), ".0f"), fmt(r.get("p50"), ".1f"), fmt(r.get("p99"), ".1f"),
                fmt(r.get("p999"), ".1f"), fmt(r.get("lat_p50"), ".1f"), fmt(r.get("fio_cpu"), ".1f"),
                fmt(r.get("guest_us_per_io"), ".1f"), fmt(r.get("guest_us_per_io_fio"), ".1f"),
                "" if r["status"] == "ok" else "  FAILED"))
        base = runs.get("%s.%s" % (wl, BASELINE))
        for m in modes:
            e = runs.get("%s.engine-%s" % (wl, m))
            if not e or not base or e["status"] != "ok" or base["status"] != "ok":
                L.append("  ratio engine-%s / %s: n/a (a run failed)" % (m, BASELINE))
                continue
            L.append("  ratio engine-%s / %s: CPU/IO %s (whole %s), p50 %s (lat p50 %s), IOPS %s" % (
                m, BASELINE, ratio(e.get("guest_us_per_io"), base.get("guest_us_per_io")),
                ratio(e.get("guest_us_per_io_fio"), base.get("guest_us_per_io_fio")),
                ratio(e.get("p50"), base.get("p50")), ratio(e.get("lat_p50"), base.get("lat_p50")),
                ratio(e.get("iops"), base.get("iops"))))
    fill = runs.get("fill")
    L.append("")
    if fill:
        if fill["status"] == "ok":
            L.append("fill: %s written sequentially (128k) in %.1f s" % (meta.get("size", "?"), fill["wall_s"]))
        else:
            failures.append("fill: %s" % fill["note"])
    loops = [r["loop_s"] for n, r in runs.items() if n != "fill" and r.get("loop_s") and r["status"] == "ok"]
    if loops:
        L.append("/proc/stat accounted %.1f..%.1f s per vCPU over the %s s I/O loops (TCG loses ticks:"
                 % (min(loops), max(loops), meta.get("runtime", "?")))
        L.append("  CPU us/IO is low in absolute terms by about that factor; ratios are what count)")
    for f in failures:
        L.append("FAILED %s" % f)
    if not failures:
        L.append("all jobs completed")
    print("\n".join(L))
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"meta": meta, "runs": runs}, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
