"""What the engine says its buffers were, per job, from its start line (the tools record it per
run so a report shows the data path each run really took, not the one asked for).

The start line's buffer part (engine/nvmeof_buffers.c, lib/nvmf_mem.c nvmf_mem_describe):
  host memory:  "...; the target may RDMA-read and write the buffers"
  CUDA memory:  "...; buffers: CUDA device 0 (PCI, NUMA n), GPUDirect via peermem (why not
                 dma-buf), cuFlushGPUDirectRDMAWrites after reads; RDMA device rxe0 (...);
                 benchmark mode: no copies (...); the target may RDMA-... them"
                or "staged through registered host memory", and "data mode: ..." /
                "staged mode: ..." for the copies."""
import re

START = re.compile(r"^nvmeof: (?P<job>[^:]+): .*cntlid \d+ .*(?:; the target may RDMA-|; buffers: )")
BUFFERS = re.compile(r"; buffers: CUDA device (?P<dev>\d+) \((?P<pci>[^,]*), NUMA (?P<numa>[^)]*)\), "
                     r"(?P<how>GPUDirect via (?P<via>dma-buf|peermem)|staged through registered host memory|"
                     r"GPUDirect \(not registered yet\))")
MODE = re.compile(r"; (?P<mode>benchmark|data|staged) mode: ")


def of_line(line):
    """One start line's buffers: a dict, or None when LINE is not an engine start line."""
    m = START.match(line)
    if not m:
        return None
    d = {"job": m.group("job"), "memory": "host", "gpudirect": None, "mode": None, "flush": None}
    b = BUFFERS.search(line)
    if b:
        d.update(memory="cuda", cuda_device=int(b.group("dev")), gpu_pci=b.group("pci"))
        d["gpudirect"] = b.group("via") if b.group("via") else ("staged" if b.group("how").startswith("staged")
                                                                 else "none")
        d["flush"] = "cuFlushGPUDirectRDMAWrites after reads" in line
        mm = MODE.search(line)
        d["mode"] = mm.group("mode") if mm else None
    return d


def of_log(text):
    """Every start line's buffers in a fio log (one per job and lane), in order."""
    return [d for d in (of_line(l) for l in text.splitlines()) if d]


def label(d):
    """One word or so per data path: host, gpudirect-peermem/benchmark, staged/data, ..."""
    if d["memory"] == "host":
        return "host"
    if d["gpudirect"] == "staged":
        return "staged"
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
