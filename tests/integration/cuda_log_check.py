#!/usr/bin/env python3
"""cuda_log_check.py CHECK LOG [ARG] - read the stand-in driver's call log (NVMF_STANDIN_LOG:
one line per CUDA call, "[pid] name args -> RESULT") and check what the engine did.

Checks (each prints a one-line summary; exit 1 with the reason when it does not hold):
  flushed    GPUDirect with fio's data: every device->host copy of a read comes after a
             cuFlushGPUDirectRDMAWrites with nothing but other such copies in between (one
             flush per reaped batch, then the batch's copies), and there are fewer flushes than
             copies when ARG is 'batched' (the flush is per batch, not per I/O).
  nocopy     benchmark mode: per process, the one initial host->device copy of fio's buffer
             area and no other copy at all.
  staged     staged mode: no flush; device->host copies (device -> staging before writes) and
             host->device copies (staging -> device after reads) beyond the initial one.
  balanced   per process: every successful cuMemAlloc_v2 freed, every primary context retained
             released, and no VIOLATION line from the stand-in.
  devices    the primary contexts retained were on exactly the devices in ARG ("0,1").
"""
import re
import sys

LINE = re.compile(r"^\[(\d+)\] (\S+)(.*) -> (\S+)")


def parse(path):
    calls, violations = [], []
    with open(path) as f:
        for raw in f:
            raw = raw.rstrip("\n")
            if "VIOLATION" in raw:
                violations.append(raw)
                continue
            m = LINE.match(raw)
            if m:
                calls.append({"pid": m.group(1), "name": m.group(2), "args": m.group(3),
                              "ok": m.group(4) == "CUDA_SUCCESS", "raw": raw})
    return calls, violations


def copies(calls):
    return [c for c in calls if c["name"] in ("cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2",
                                               "cuFlushGPUDirectRDMAWrites")]


def by_pid(calls):
    out = {}
    for c in calls:
        out.setdefault(c["pid"], []).append(c)
    return out


def check_flushed(calls, arg):
    flushes = dtoh = 0
    for pid, cs in by_pid(copies(calls)).items():
        prev = None
        for c in cs:
            if c["name"] == "cuFlushGPUDirectRDMAWrites":
                flushes += 1
            elif c["name"] == "cuMemcpyDtoH_v2":
                dtoh += 1
                if prev not in ("cuFlushGPUDirectRDMAWrites", "cuMemcpyDtoH_v2"):
                    return "device->host copy not preceded by a flush: %s (before it: %s)" % (
                        c["raw"], prev)
            prev = c["name"]
    if not dtoh or not flushes:
        return "no read was finished (%d flushes, %d device->host copies)" % (flushes, dtoh)
    if arg == "batched" and flushes >= dtoh:
        return "one flush per read (%d flushes, %d copies): not batched" % (flushes, dtoh)
    print("%d device->host copies, each after a flush; %d flushes" % (dtoh, flushes))
    return None


def check_nocopy(calls, arg):
    n = 0
    for pid, cs in by_pid(copies(calls)).items():
        names = [c["name"] for c in cs if c["name"] != "cuFlushGPUDirectRDMAWrites"]
        if names != ["cuMemcpyHtoD_v2"]:
            return "process %s copied %d times (%s...): benchmark mode copies only the " \
                   "initial buffer contents" % (pid, len(names), ", ".join(names[:4]))
        n += 1
    if not n:
        return "no process copied the initial buffer contents"
    print("%d process(es): the initial host->device copy only" % n)
    return None


def check_staged(calls, arg):
    cs = copies(calls)
    if any(c["name"] == "cuFlushGPUDirectRDMAWrites" for c in cs):
        return "a flush in staged mode (the target never writes device memory there)"
    dtoh = sum(c["name"] == "cuMemcpyDtoH_v2" for c in cs)
    htod = sum(c["name"] == "cuMemcpyHtoD_v2" for c in cs) - len(by_pid(cs))
    if dtoh <= 0 or htod <= 0:
        return "staged mode made %d device->host and %d host->device copies per I/O" % (dtoh, htod)
    print("staged: %d device->host, %d host->device copies per I/O, no flush" % (dtoh, htod))
    return None


def check_balanced(calls, arg, violations):
    if violations:
        return "stand-in reported: %s" % violations[0]
    for pid, cs in by_pid(calls).items():
        allocs = sum(c["name"] == "cuMemAlloc_v2" and c["ok"] for c in cs)
        frees = sum(c["name"] == "cuMemFree_v2" and c["ok"] for c in cs)
        retains = sum(c["name"] == "cuDevicePrimaryCtxRetain" and c["ok"] for c in cs)
        releases = sum(c["name"] == "cuDevicePrimaryCtxRelease_v2" and c["ok"] for c in cs)
        if allocs != frees or retains != releases:
            return "process %s: %d allocations, %d freed; %d contexts retained, %d released" % (
                pid, allocs, frees, retains, releases)
    print("%d process(es): every allocation freed, every context released" % len(by_pid(calls)))
    return None


def check_devices(calls, arg):
    seen = sorted({re.search(r"dev=(\d+)", c["args"]).group(1) for c in calls
                   if c["name"] == "cuDevicePrimaryCtxRetain" and c["ok"]}, key=int)
    want = sorted(arg.split(","), key=int)
    if seen != want:
        return "contexts retained on devices %s, expected %s" % (",".join(seen), ",".join(want))
    print("contexts retained on devices %s" % ",".join(seen))
    return None


def main():
    check, path = sys.argv[1], sys.argv[2]
    arg = sys.argv[3] if len(sys.argv) > 3 else ""
    calls, violations = parse(path)
    if not calls:
        print("no CUDA calls in %s" % path)
        return 1
    if check == "balanced":
        why = check_balanced(calls, arg, violations)
    else:
        why = {"flushed": check_flushed, "nocopy": check_nocopy, "staged": check_staged,
               "devices": check_devices}[check](calls, arg)
    if why:
        print(why)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
