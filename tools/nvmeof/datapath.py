"""What the engine says its buffers were, per job, from its own lines (the tools record it per
run so a report shows the data path each run really took, not the one asked for).

The start line's buffer part (engine/nvmeof_buffers.c, lib/nvmf_mem.c nvmf_mem_describe):
  host memory:  "...; the target may RDMA-read and write the buffers"
  CUDA memory:  "...; buffers: CUDA device 0 (PCI, NUMA n), GPUDirect via peermem (why not
                 dma-buf), cuFlushGPUDirectRDMAWrites after reads; RDMA device rxe0 (PCI or
                 no PCI device, NUMA n)[; WARNING: the GPU is on NUMA node ...]; benchmark
                 mode: no copies (...); the target may RDMA-... them"
                or "staged through registered host memory", followed, where gpudirect=auto
                fell back to it, by " (gpudirect=auto, GPUDirect unavailable: WHY)", and
                "data mode: ..." / "staged mode: ..." for the copies.
The closing line of a job with CUDA memory (engine/fio_nvmeof.c):
  "nvmeof: JOB: CUDA copies: data host->device N (B bytes, T ms), data device->host N (...),
   staged device->host N (...), staged host->device N (...), flushes N (T ms)"."""
import re

# an engine start line: over RDMA it says what the target may RDMA-read or write, over NVMe/TCP
# that the data travels in the PDUs; with GPU memory either names the buffers
START = re.compile(r"^nvmeof: (?P<job>[^:]+): .*cntlid \d+ .*(?:; the target may RDMA-|; buffers: |"
                   r"; data travels in the PDUs)")
BUFFERS = re.compile(r"; buffers: CUDA device (?P<dev>\d+) \((?P<pci>[^,]*), NUMA (?P<numa>[^)]*)\), "
                     r"(?P<how>GPUDirect via (?P<via>dma-buf|peermem)|staged through registered host memory|"
                     r"GPUDirect \(not registered yet\))")
FALLBACK = re.compile(r"staged through registered host memory \(gpudirect=auto, GPUDirect unavailable: "
                      r"(?P<why>.*?)\); (?:RDMA device |benchmark mode|data mode|staged mode)")
RDMA = re.compile(r"; RDMA device (?P<dev>[^ ]+) \((?P<pci>[^,]*), NUMA (?P<numa>[^)]*)\)")
MODE = re.compile(r"; (?P<mode>benchmark|data|staged) mode: ")
COPIES = re.compile(r"^nvmeof: (?P<job>[^:]+): CUDA copies: (?P<rest>.*)$")
COPY_ITEM = re.compile(r"(?P<name>(?:data|staged) (?:host->device|device->host)) (?P<n>\d+) "
                       r"\((?P<bytes>\d+) bytes, (?P<ms>[0-9.]+) ms\)")
FLUSH_ITEM = re.compile(r"flushes (?P<n>\d+) \((?P<ms>[0-9.]+) ms\)")
COPY_KINDS = ("data host->device", "data device->host", "staged host->device", "staged device->host")


def _numa(s):
    return int(s) if s.isdigit() else None


def of_line(line):
    """One start line's buffers: a dict, or None when LINE is not an engine start line.
    Keys: job, memory (host|cuda), gpudirect (dma-buf|peermem|staged|none, None for host),
    mode (benchmark|data|staged), flush, fallback (why gpudirect=auto staged, else None),
    cuda_device, gpu_pci, gpu_numa, rdma_dev, rdma_pci, rdma_numa, numa_differs."""
    m = START.match(line)
    if not m:
        return None
    d = {"job": m.group("job"), "memory": "host", "gpudirect": None, "mode": None, "flush": None,
         "fallback": None}
    b = BUFFERS.search(line)
    if b:
        d.update(memory="cuda", cuda_device=int(b.group("dev")), gpu_pci=b.group("pci"),
                 gpu_numa=_numa(b.group("numa")))
        d["gpudirect"] = b.group("via") if b.group("via") else ("staged" if b.group("how").startswith("staged")
                                                                 else "none")
        d["flush"] = "cuFlushGPUDirectRDMAWrites after reads" in line
        mm = MODE.search(line)
        d["mode"] = mm.group("mode") if mm else None
        fb = FALLBACK.search(line)
        d["fallback"] = fb.group("why") if fb else None
        r = RDMA.search(line)
        if r:
            d.update(rdma_dev=r.group("dev"), rdma_pci=r.group("pci"), rdma_numa=_numa(r.group("numa")))
        d["numa_differs"] = "; WARNING: the GPU is on NUMA node" in line
    return d


def of_log(text):
    """Every start line's buffers in a fio log (one per job and lane), in order."""
    return [d for d in (of_line(l) for l in text.splitlines()) if d]


def gpudirect_used(d):
    """Did this start line's job have the target move data straight to and from GPU memory?"""
    return d["memory"] == "cuda" and d["gpudirect"] in ("dma-buf", "peermem")


def label(d):
    """One word or so per data path: host, gpudirect-peermem/benchmark, staged/data, ..."""
    if d["memory"] == "host":
        return "host"
    if d["gpudirect"] == "staged":
        return "staged (gpudirect=auto fell back)" if d.get("fallback") else "staged"
    return "gpudirect-%s/%s" % (d["gpudirect"], d["mode"] or "?")


def summary(text):
    """(labels seen, in first-seen order; the per-line dicts) of a fio log's engine start lines."""
    ds = of_log(text)
    seen = []
    for d in ds:
        lb = label(d)
        if lb not in seen:
            seen.append(lb)
    return seen, ds


def copies_of_line(line):
    """One closing 'CUDA copies' line: {job, KIND: {n, bytes, ms} for each of COPY_KINDS,
    flushes: {n, ms}}, or None."""
    m = COPIES.match(line)
    if not m:
        return None
    d = {"job": m.group("job")}
    for it in COPY_ITEM.finditer(m.group("rest")):
        d[it.group("name")] = {"n": int(it.group("n")), "bytes": int(it.group("bytes")),
                               "ms": float(it.group("ms"))}
    f = FLUSH_ITEM.search(m.group("rest"))
    if f:
        d["flushes"] = {"n": int(f.group("n")), "ms": float(f.group("ms"))}
    if any(k not in d for k in COPY_KINDS) or "flushes" not in d:
        return None
    return d


def sum_copies(cs):
    """Copy counts added up (each a copies() result, or a closing line's with jobs 1); the ones
    that are None are skipped; None when none is left.  Every KIND, flushes, jobs."""
    cs = [c for c in cs if c]
    if not cs:
        return None
    tot = {k: {"n": 0, "bytes": 0, "ms": 0.0} for k in COPY_KINDS}
    tot["flushes"] = {"n": 0, "ms": 0.0}
    tot["jobs"] = 0
    for c in cs:
        for k in COPY_KINDS + ("flushes",):
            for f in tot[k]:
                tot[k][f] += c[k][f]
        tot["jobs"] += c.get("jobs", 1)
    for k in COPY_KINDS + ("flushes",):
        tot[k]["ms"] = round(tot[k]["ms"], 3)
    return tot


def copies_total(c):
    """The copies of every kind of a copies() result together: {n, bytes, ms} (flushes apart)."""
    return {"n": sum(c[k]["n"] for k in COPY_KINDS), "bytes": sum(c[k]["bytes"] for k in COPY_KINDS),
            "ms": round(sum(c[k]["ms"] for k in COPY_KINDS), 3)}


def copies(text):
    """The copy counts of every job of a fio log summed: {KIND: {n, bytes, ms}, flushes: {n, ms},
    jobs: how many closing lines}, or None when the log has no 'CUDA copies' line."""
    return sum_copies([copies_of_line(l) for l in text.splitlines()])
