#!/bin/bash
# make cost's arithmetic on the host (no testbed, nothing runs): tools/nvmeof/cost.py's callgrind
# out parser on hand-written files (name compression, the inclusive cost after each calls= line
# left out of self cost, per-object and per-group sums, call counts by callee object and name,
# a file whose self costs do not add up to its totals refused), the strace -ff counting and the
# choice of the job thread, and the difference method, each asserted with exact numbers.
# Exit 0/1, 77 when python3 is missing.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
WORK=$(mktemp -d /tmp/cost-parse.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# fio's main calls the stripped provider's poll (named by address) 7 times, the engine 3 times;
# td_io_queue calls main (no cob=: the caller's object).  Self: fio 150+30, engine 400+20+5+11
# (fi=/fe= switch files, not functions), rxe 1000, libc 64 = 1680.
cat > "$WORK/a.cg" <<'CG'
# callgrind format
version: 1
creator: hand
pid: 1
cmd: fio job.fio
part: 1

positions: line
events: Ir

ob=(1) /usr/bin/fio
fl=(1) fio.c
fn=(1) main
10 100
+2 50
cob=(2) /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so
cfi=(2) ???
cfn=(2) 0x0000000000002500
calls=7 0
12 7000
fn=(3) td_io_queue
5 30
cfn=(1)
calls=1 10
6 150

ob=(3) /work/main/build/libfio_nvmeof.so
fl=(3) nvmf.c
fn=(4) nvmf_io_submit
1 400
fi=(4) inl.h
2 20
fe=(3)
3 5
cob=(2)
cfi=(2)
cfn=(2)
calls=3 0
-1 3000
fn=(5) 'helper
* 11

ob=(2)
fl=(2)
fn=(2)
0 1000

ob=(4) /usr/lib/x86_64-linux-gnu/libc.so.6
fl=(5) memcpy.S
fn=(6) memcpy
1 64

summary: 1680
totals: 1680
CG

# two position columns, two events: Ir is the first event after both positions
cat > "$WORK/b.cg" <<'CG'
positions: instr line
events: Ir Dr
ob=(1) /usr/bin/fio
fl=(1) x.c
fn=(1) f
0x10 3 5 2
+4 * 7
totals: 12 2
CG
# a.cg with one self cost changed: the sum no longer matches totals:
sed 's/^10 100$/10 101/' "$WORK/a.cg" > "$WORK/bad.cg"
# a reference to a name never defined
sed 's/^fn=(6) memcpy$/fn=(9)/' "$WORK/a.cg" > "$WORK/undef.cg"

# strace -ff files of two threads: the job thread posts the doorbells (write on uverbs)
cat > "$WORK/st.100" <<'ST'
clock_nanosleep(CLOCK_REALTIME, 0, {tv_sec=0, tv_nsec=10000000}, NULL) = 0
clock_nanosleep(CLOCK_REALTIME, 0, {tv_sec=0, tv_nsec=10000000}, NULL) = 0
clock_nanosleep(CLOCK_REALTIME, 0, {tv_sec=0, tv_nsec=10000000}, NULL) = 0
clock_nanosleep(CLOCK_REALTIME, 0, {tv_sec=0, tv_nsec=10000000}, NULL) = 0
+++ exited with 0 +++
ST
cat > "$WORK/st.101" <<'ST'
write(5</dev/infiniband/uverbs0>, "\x00\x00", 24) = 24
write(5</dev/infiniband/uverbs0>, "\x00\x00", 24) = 24
poll([{fd=7</dev/infiniband/rdma_cm>, events=POLLIN}], 1, 0) = 0 (Timeout)
write(1</dev/pts/0>, "x", 1) = 1
ioctl(5</dev/infiniband/uverbs0>, RDMA_VERBS_IOCTL, 0x7ffd) = 0
--- SIGUSR1 {si_signo=SIGUSR1} ---
+++ exited with 0 +++
ST

exec python3 - "$REPO/tools" "$WORK" <<'PY'
import json, os, subprocess, sys
sys.dont_write_bytecode = True
tools, work = sys.argv[1:3]
sys.path.insert(0, tools)
from nvmeof import cost

fails = 0
def check(name, got, want):
    global fails
    if got == want:
        print("PASS %s" % name)
    else:
        fails += 1
        print("FAIL %s: got %r, want %r" % (name, got, want))

FIO, ENG = "/usr/bin/fio", "/work/main/build/libfio_nvmeof.so"
RXE, LIBC = "/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so", "/usr/lib/x86_64-linux-gnu/libc.so.6"
POLL = "0x0000000000002500"
a = cost.load_callgrind(os.path.join(work, "a.cg"))
check("total", a["total"], 1680)
check("objects", a["objects"], {FIO: 180, ENG: 436, RXE: 1000, LIBC: 64})
check("functions", a["functions"], {FIO + "\tmain": 150, FIO + "\ttd_io_queue": 30,
                                    ENG + "\tnvmf_io_submit": 425, ENG + "\t'helper": 11,
                                    RXE + "\t" + POLL: 1000, LIBC + "\tmemcpy": 64})
check("calls", a["calls"], {RXE + "\t" + POLL: 10, FIO + "\tmain": 1})
s = cost.summarize_callgrind(a, "libfio_nvmeof.so", list(cost.POLL_FNS) + [POLL])
check("groups", s["groups"], {"fio": 180, "engine": 436, "spdk": 0, "rxe": 1000, "libibverbs": 0,
                              "librdmacm": 0, "libc": 64, "other": 0})
check("polls", s["polls"], 10)
check("polls without the probed address", cost.summarize_callgrind(a)["polls"], 0)
check("engine functions", s["engine_functions"], {"nvmf_io_submit": 425, "'helper": 11})
b = cost.load_callgrind(os.path.join(work, "b.cg"))
check("two positions, two events", (b["total"], b["functions"]), (12, {"/usr/bin/fio\tf": 12}))
for bad, msg in (("bad.cg", "self costs sum to 1681, the file's total is 1680"),
                 ("undef.cg", "fn=(9) used before it is defined")):
    try:
        cost.load_callgrind(os.path.join(work, bad))
        check(bad + " refused", "accepted", msg)
    except cost.CallgrindError as e:
        check(bad + " refused", msg in str(e), True)
# the CLI: one JSON line, exit 0; a refused file: one "cost:" line, exit 1
r = subprocess.run([sys.executable, os.path.join(tools, "nvmeof-cost"), "parse", os.path.join(work, "a.cg")],
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
check("parse CLI", (r.returncode, json.loads(r.stdout)["groups"]["engine"]), (0, 436))
r = subprocess.run([sys.executable, os.path.join(tools, "nvmeof-cost"), "parse", os.path.join(work, "bad.cg")],
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
check("parse CLI refuses", (r.returncode, r.stderr.count("\n"), r.stderr.startswith("cost: ")), (1, 1, True))

# strace: per-name counts, uverbs calls marked, the job thread is the doorbell poster
t100 = cost.strace_thread(os.path.join(work, "st.100"))
t101 = cost.strace_thread(os.path.join(work, "st.101"))
check("strace counts", t101, {"write:uverbs": 2, "poll": 1, "write": 1, "ioctl:uverbs": 1})
check("job thread", cost.job_thread({"100": t100, "101": t101}), "101")
check("job threads in tid order", cost.job_threads({7: t101, 5: dict(t101, poll=9), 6: t100, 9: {"write:uverbs": 1}}, 2), [5, 7])
check("job threads: too few", cost.job_threads({7: t101, 6: t100}, 2), None)
check("job thread without doorbells: most syscalls", cost.job_thread({"100": t100, "102": {"read": 3}}), "100")

# the difference method: start-up cancels exactly
check("per_io", cost.per_io(70000000, 110000000, 2000, 12000), 4000.0)
check("per_io no growth", cost.per_io(5, 9, 2000, 2000), None)
def cg(n, ios, total, eng, polls, fns):
    g = dict.fromkeys(cost.GROUPS, 0)
    g.update(engine=eng, fio=total - eng)
    return {"n": n, "ios": ios, "total": total, "groups": g, "polls": polls, "engine_functions": fns}
def st(n, ios, calls):
    return {"n": n, "ios": ios, "job_syscalls": calls}
r = {"job": "randread-4k-qd32", "initiator": "engine", "target": "kernel",
     "cg": [cg(2000, 2000, 70000000, 2100000, 2000, {"a": 1000000}),
            cg(12000, 12032, 110128000, 12132000, 12032, {"a": 6016000, "b": 100320})],
     "st": [st(2000, 2001, {"write:uverbs": 1000, "clock_nanosleep": 50}),
            st(12000, 12001, {"write:uverbs": 6000, "clock_nanosleep": 50, "poll": 100})]}
d = cost.derive(r)
check("derive total", d["total"], 4000.0)
check("derive engine", d["groups"]["engine"], 1000.0)
check("derive polls", d["polls"], 1.0)
check("derive functions", d["engine_functions"], {"a": 500.0, "b": 10.0})
check("derive syscalls", (d["syscalls"], d["doorbells"], d["other_syscalls"]), (0.51, 0.5, 0.010000000000000009))
check("derive names", d["syscall_names"], {"write:uverbs": 0.5, "clock_nanosleep": 0.0, "poll": 0.01})
check("derive refuses a failed case", cost.derive(dict(r, error="x")), None)
print("%d failed" % fails)
sys.exit(1 if fails else 0)
PY
