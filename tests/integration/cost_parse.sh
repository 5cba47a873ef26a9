#!/bin/bash
# make cost's arithmetic on the host (no testbed, nothing runs): tools/nvmeof/cost.py's callgrind
# out parser on hand-written files (name compression, the inclusive cost after each calls= line
# left out of self cost, per-object and per-group sums, call counts by callee object and name,
# a file whose self costs do not add up to its totals refused), the strace -ff counting and the
# choice of the job thread, and the difference method, each asserted with exact numbers.  NVMe/TCP:
# the calls into libc's memcpy variants by calling object with their inclusive Ir, calls on a
# socket classed as sends and receives (EAGAIN apart), io_submit/io_getevents as aio, the job
# threads of RDMA, TCP and libaio jobs in one process, the TCP job files, the per-I/O numbers of
# engine-tcp and of kernel-tcp (no callgrind: n/a), and the report's TCP table.
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

# NVMe/TCP: the engine copies with libc's memmove variant (4 calls, 400 inclusive), calls
# readv and polls its transport 3 times; SPDK's library calls memcpy (2, 100) and polls its
# qpair twice (a recursive entry, named '2); fio calls the variant once (30); libc's own
# __memcpy_chk calls it once (20: libc's, not counted as a caller).  Self: engine 200, spdk
# 100, fio 10, libc 5 + 450 + 60 + 100 = 615; 925 in all.
cat > "$WORK/c.cg" <<'CG'
positions: line
events: Ir
ob=(1) /work/main/build/libfio_nvmeof.so
fl=(1) nvmf_tcp.c
fn=(1) nvmf_tcp_rx_consume
1 200
cob=(2) /usr/lib/x86_64-linux-gnu/libc.so.6
cfi=(2) ???
cfn=(2) __memmove_avx_unaligned_erms
calls=4 0
2 400
cob=(2)
cfi=(2)
cfn=(3) readv
calls=2 0
3 60
fn=(8) fio_nvmeof_getevents
4 0
cfn=(9) nvmf_tcp_poll
calls=3 0
4 0

ob=(3) /usr/lib/spdk/libspdk_nvme.so.15.0
fl=(3) nvme_tcp.c
fn=(4) nvme_tcp_read_data
1 100
cfn=(10) nvme_tcp_qpair_process_completions'2
calls=2 0
1 0
cob=(2)
cfi=(2)
cfn=(5) memcpy
calls=2 0
2 100

ob=(4) /usr/bin/fio
fl=(4) fio.c
fn=(6) td_io_queue
1 10
cob=(2)
cfi=(2)
cfn=(2)
calls=1 0
2 30

ob=(2)
fl=(2)
fn=(7) __memcpy_chk
0 5
cfn=(2)
calls=1 0
0 20
fn=(2)
0 450
fn=(3)
0 60
fn=(5)
0 100

totals: 925
CG

# a 128 KiB write by R2T sent by reference: the capsule, the H2CData header, the payload
# vmspliced into the queue's pipe and spliced from it into the socket; a splice between two
# files and a vmsplice to a non-pipe are not sends
cat > "$WORK/st.205" <<'ST'
sendmsg(7<socket:[5151]>, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="\x04", iov_len=72}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, MSG_DONTWAIT|MSG_NOSIGNAL) = 72
sendmsg(7<socket:[5151]>, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="\x06", iov_len=24}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, MSG_DONTWAIT|MSG_NOSIGNAL|MSG_MORE) = 24
vmsplice(12<pipe:[7777]>, [{iov_base="\x01", iov_len=131072}], 1, SPLICE_F_NONBLOCK) = 131072
splice(11<pipe:[7777]>, NULL, 7<socket:[5151]>, NULL, 131072, SPLICE_F_MOVE|SPLICE_F_NONBLOCK) = 131072
splice(3</tmp/a>, NULL, 4</tmp/b>, NULL, 4096, 0) = 4096
vmsplice(3</tmp/a>, [{iov_base="\x01", iov_len=4096}], 1, 0) = -1 EBADF (Bad file descriptor)
ST
# strace -ff files of one fio running an RDMA job, an engine-tcp job, a libaio job: the main
# thread (200), SPDK's admin thread (201: a keep-alive sent), the job threads 202, 203, 204
printf 'clock_nanosleep(CLOCK_REALTIME, 0, {tv_sec=0, tv_nsec=10000000}, NULL) = 0\n' > "$WORK/st.200"
cat > "$WORK/st.201" <<'ST'
sendmsg(9<socket:[4242]>, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="\x04", iov_len=72}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, MSG_DONTWAIT|MSG_NOSIGNAL) = 72
clock_nanosleep(CLOCK_REALTIME, 0, {tv_sec=1, tv_nsec=0}, NULL) = 0
ST
cat > "$WORK/st.202" <<'ST'
write(5</dev/infiniband/uverbs0>, "\x00\x00", 24) = 24
write(5</dev/infiniband/uverbs0>, "\x00\x00", 24) = 24
ST
cat > "$WORK/st.203" <<'ST'
sendmsg(7<socket:[5151]>, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="\x04", iov_len=72}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, MSG_DONTWAIT|MSG_NOSIGNAL) = 72
sendto(7<socket:[5151]>, "\x04", 72, MSG_DONTWAIT|MSG_NOSIGNAL, NULL, 0) = 72
writev(7<TCP:[10.99.0.2:40000->10.99.0.1:4420]>, [{iov_base="\x04", iov_len=72}], 1) = 72
readv(7<socket:[5151]>, [{iov_base="\x05", iov_len=4096}], 1) = 4120
readv(7<socket:[5151]>, [{iov_base="", iov_len=4096}], 1) = -1 EAGAIN (Resource temporarily unavailable)
readv(7<socket:[5151]>, [{iov_base="", iov_len=4096}], 1) = -1 EAGAIN (Resource temporarily unavailable)
recvfrom(7<socket:[5151]>, "\x05", 8192, MSG_DONTWAIT, NULL, NULL) = 24
recvmsg(7<socket:[5151]>, {msg_namelen=0}, MSG_DONTWAIT) = -1 EAGAIN (Resource temporarily unavailable)
write(1</dev/pts/0>, "x", 1) = 1
read(3</proc/stat>, "cpu", 1024) = 3
epoll_wait(8<anon_inode:[eventpoll]>, [], 32, 0) = 0
ST
cat > "$WORK/st.204" <<'ST'
io_submit(0x7f3c5c5a1000, 1, [{aio_data=0, aio_lio_opcode=IOCB_CMD_PREAD, aio_fildes=5</dev/nvme0n1>, aio_buf=0x55d, aio_nbytes=4096, aio_offset=0}]) = 1
io_getevents(0x7f3c5c5a1000, 1, 1, [{data=0, obj=0x55e, res=4096, res2=0}], NULL) = 1
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
check("derive without memcpy counts", (d["memcpy_calls"], d["memcpy_ir"]), (None, None))

# ---- NVMe/TCP ----
SPDKLIB = "/usr/lib/spdk/libspdk_nvme.so.15.0"
MM = "__memmove_avx_unaligned_erms"
c = cost.load_callgrind(os.path.join(work, "c.cg"))
check("tcp total", c["total"], 925)
check("call pairs", c["call_pairs"], {
    ENG + "\tnvmf_tcp_rx_consume\t" + LIBC + "\t" + MM: [4, 400], ENG + "\tnvmf_tcp_rx_consume\t" + LIBC + "\treadv": [2, 60],
    SPDKLIB + "\tnvme_tcp_read_data\t" + LIBC + "\tmemcpy": [2, 100], FIO + "\ttd_io_queue\t" + LIBC + "\t" + MM: [1, 30],
    LIBC + "\t__memcpy_chk\t" + LIBC + "\t" + MM: [1, 20], ENG + "\tfio_nvmeof_getevents\t" + ENG + "\tnvmf_tcp_poll": [3, 0],
    SPDKLIB + "\tnvme_tcp_read_data\t" + SPDKLIB + "\tnvme_tcp_qpair_process_completions'2": [2, 0]})
cs = cost.summarize_callgrind(c)
check("memcpy by caller", cs["memcpy"], {"calls": {"engine": 4, "spdk": 2, "fio": 1},
                                         "ir": {"engine": 400, "spdk": 100, "fio": 30}, "self_ir": 555,
                                         "fns": {"engine": {"nvmf_tcp_rx_consume": [4, 400]},
                                                 "spdk": {"nvme_tcp_read_data": [2, 100]}}})
check("tcp polls", (cs["tcp_polls"], cs["polls"]), (5, 0))
check("libc functions", cs["libc_functions"], {"__memcpy_chk": 5, MM: 450, "readv": 60, "memcpy": 100})
check("memcpy names", [bool(cost.MEMCPY_RE.match(f)) for f in
                       ("memcpy", "__memcpy_avx_unaligned_erms", "__mempcpy_sse2", "memmove", "wmemcpy", "memcmp",
                        "__memcpy_chk", "__wmemcpy_avx2")], [True, True, True, True, False, False, True, False])
sts = {t: cost.strace_thread(os.path.join(work, "st.%d" % t)) for t in range(200, 205)}
check("tcp strace counts", sts[203], {"sendmsg:socket": 1, "sendto:socket": 1, "writev:socket": 1,
                                     "readv:socket": 1, "readv:socket:EAGAIN": 2, "recvfrom:socket": 1,
                                     "recvmsg:socket:EAGAIN": 1, "write": 1, "read": 1, "epoll_wait": 1})
check("tcp classes", cost.classify(sts[203]), {"doorbell": 0, "send": 3, "recv": 5, "recv_eagain": 3, "aio": 0,
                                              "other": 3, "all": 11})
check("aio classes", cost.classify(sts[204]), {"doorbell": 0, "send": 0, "recv": 0, "recv_eagain": 0, "aio": 2,
                                              "other": 0, "all": 2})
st205 = cost.strace_thread(os.path.join(work, "st.205"))
check("splice strace counts", st205, {"sendmsg:socket": 2, "vmsplice:pipe": 1, "splice:socket": 1, "splice": 1,
                                      "vmsplice": 1})
check("splice classes", cost.classify(st205), {"doorbell": 0, "send": 4, "recv": 0, "recv_eagain": 0, "aio": 0,
                                              "other": 2, "all": 6})
check("class names", [cost.syscall_class(n) for n in ("write:uverbs", "write:socket", "write", "read:socket:EAGAIN",
                                                      "io_getevents", "ioctl:uverbs", "poll")],
      ["doorbell", "send", "other", "recv", "aio", "other", "other"])
check("submissions", [cost.submissions(sts[t]) for t in range(200, 205)], [0, 1, 2, 3, 1])
check("job threads: RDMA, TCP, libaio", cost.job_threads(sts, 3), [202, 203, 204])
check("job thread: TCP", cost.job_thread({200: sts[200], 203: sts[203]}), 203)
env = {"TARGET_IP": "10.99.0.1", "TARGET_PORT": "4420", "TARGET_TCP_PORT": "4420", "NQN": "nqn.x:kern",
       "SPDK_PORT": "4421", "SPDK_TCP_PORT": "4431", "SPDK_NQN": "nqn.x:spdk"}
job = ("randread-4k-qd1", "randread", "4k", 1)
check("target_addr", [cost.target_addr(t, i, env) for t, i in (("kernel", "engine-tcp"), ("spdk", "spdk-tcp"), ("spdk", "spdk"))],
      [("10.99.0.1", "4420", "nqn.x:kern"), ("10.99.0.1", "4431", "nqn.x:spdk"), ("10.99.0.1", "4421", "nqn.x:spdk")])
jt = cost.job_text([("engine-tcp", job), ("kernel-tcp", job), ("spdk-tcp", job)], "spdk", 600, "/e.so", env,
                   ["io_queues=2"], "/dev/nvme1n1").split("\n")
check("job text engine-tcp", jt[9:21], ["[engine-tcp-randread-4k-qd1]", "rw=randread", "bs=4k", "iodepth=1", "stonewall",
                                        "ioengine=external:/e.so", "traddr=10.99.0.1", "trsvcid=4431",
                                        "subnqn=nqn.x:spdk", "nsid=1", "transport=tcp", "completion=poll"])
check("job text kernel-tcp", jt[23:32], ["[kernel-tcp-randread-4k-qd1]", "rw=randread", "bs=4k", "iodepth=1",
                                         "stonewall", "ioengine=libaio", "filename=/dev/nvme1n1", "direct=1", ""])
check("job text spdk-tcp", jt[37:39], ["ioengine=spdk", "filename=trtype=TCP adrfam=IPv4 traddr=10.99.0.1 "
                                       "trsvcid=4431 subnqn=nqn.x\\:spdk ns=1"])
check("case order", sorted(["spdk-tcp", "kernel-tcp", "spdk", "engine-tcp", "engine"], key=cost.CASE_ORDER.index),
      ["engine", "engine-tcp", "kernel-tcp", "spdk", "spdk-tcp"])

def cgm(n, ios, total, eng, calls, ir, self_ir):
    x = cg(n, ios, total, eng, 0, {})
    x["memcpy"] = {"calls": calls, "ir": ir, "self_ir": self_ir, "fns": {"engine": {"nvmf_tcp_rx_consume": [calls["engine"], ir["engine"]]},
                                                                      "spdk": {"spdk_iovcpy": [ios, ios]}}}
    x["libc_functions"] = {"readv": ios * 30}
    x["tcp_polls"] = ios * 2 + 7
    return x
et = {"job": "randread-4k-qd1", "initiator": "engine-tcp", "target": "kernel",
      "cg": [cgm(1000, 1000, 5000000, 1000000, {"engine": 1000}, {"engine": 50000}, 60000),
             cgm(6000, 6000, 25000000, 6000000, {"engine": 6000, "fio": 5}, {"engine": 300000}, 310000)],
      "st": [st(1000, 1001, {"sendmsg:socket": 1001, "readv:socket": 2002, "readv:socket:EAGAIN": 500,
                             "clock_nanosleep": 10}),
             st(6000, 6001, {"sendmsg:socket": 6001, "readv:socket": 7002, "readv:socket:EAGAIN": 3000,
                             "clock_nanosleep": 10, "poll": 50})]}
de = cost.derive(et)
check("tcp derive Ir", (de["total"], de["groups"]["engine"], de["libc_functions"]), (4000.0, 1000.0, {"readv": 30.0}))
check("tcp derive polls", de["tcp_polls"], 2.0)
check("tcp derive memcpy", (de["memcpy_calls"], de["memcpy_ir"], de["memcpy_self_ir"], de["memcpy_fns"]),
      (1.0, 50.0, 50.0, {"nvmf_tcp_rx_consume": (1.0, 50.0)}))
check("tcp derive syscalls", (de["syscalls"], de["syscall_classes"]),
      (2.51, {"doorbell": 0.0, "send": 1.0, "recv": 1.5, "recv_eagain": 0.5, "aio": 0.0, "other": 0.01, "all": 2.51}))
kt = {"job": "randread-4k-qd1", "initiator": "kernel-tcp", "target": "kernel",
      "st": [st(1000, 1000, {"io_submit": 1000, "io_getevents": 1000, "clock_nanosleep": 3}),
             st(6000, 6000, {"io_submit": 6000, "io_getevents": 7500, "clock_nanosleep": 3})]}
dk = cost.derive(kt)
check("kernel-tcp derive", (dk["total"], dk["groups"]["engine"], dk["memcpy_calls"], dk["syscalls"],
                            dk["syscall_classes"]["aio"], dk["syscall_classes"]["other"], dk["syscall_names"]["io_getevents"]),
      (None, None, None, 2.3, 2.3, 0.0, 1.3))
check("engine-tcp needs its callgrind runs", cost.derive(dict(et, cg=et["cg"][:1])), None)

# the report: the NVMe/TCP table, kernel-tcp's callgrind rows n/a
rep = os.path.join(work, "rep")
os.makedirs(rep)
with open(os.path.join(rep, "cost.json"), "w") as f:
    json.dump({"n1": 1000, "n2": 6000, "kernel": "6.1", "jobs": [list(job)], "initiators": ["engine-tcp", "kernel-tcp"],
               "targets": ["kernel"], "ports": {"kernel": {"rdma": "4420", "tcp": "4420"}}, "poll_functions": [],
               "kernel_tcp_dev": {"kernel": "/dev/nvme0n1"}, "results": [et, kt], "failed": []}, f)
# beside RDMA's engine (the derive case above): both tables, the goals
mixed = os.path.join(work, "mixed")
os.makedirs(mixed)
with open(os.path.join(mixed, "cost.json"), "w") as f:
    json.dump({"n1": 1000, "n2": 6000, "kernel": "6.1", "jobs": [list(job), ["randread-4k-qd32", "randread", "4k", 32]],
               "initiators": ["engine", "engine-tcp", "kernel-tcp"], "targets": ["kernel"], "poll_functions": ["rxe_poll_cq"],
               "results": [et, kt, r], "failed": []}, f)
rm = subprocess.run([sys.executable, os.path.join(tools, "nvmeof-cost"), "report", "--out", mixed],
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
mm = open(os.path.join(mixed, "cost.md")).read().splitlines() if rm.returncode == 0 else []
check("mixed report rc", (rm.returncode, rm.stderr), (0, ""))
for line in ("kernel target (kernel nvmet, RDMA port 4420): per I/O, engine",
             "|   doorbells (uverbs write) / IO | - | 0.50 |", "| CQ polls / IO | - | 1.00 |",
             "kernel target (kernel nvmet, NVMe/TCP port 4420): per I/O, engine-tcp / kernel-tcp",
             "| whole process | 4,000 / n/a | - / n/a |", "|   sends on the socket / IO | 1.00 / 0.00 | - / - |",
             "- MISSED: randread-4k-qd32, kernel target: engine .so 1,000 Ir/IO <= 600"):
    check("mixed report: " + line, line in mm, True)
r = subprocess.run([sys.executable, os.path.join(tools, "nvmeof-cost"), "report", "--out", rep],
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
md = open(os.path.join(rep, "cost.md")).read().splitlines() if r.returncode == 0 else []
check("report rc", (r.returncode, r.stderr), (0, ""))
for line in ("kernel target (kernel nvmet, NVMe/TCP port 4420): per I/O, engine-tcp / kernel-tcp",
             "| whole process | 4,000 / n/a |", "| engine .so / SPDK libs | 1,000 / n/a |",
             "| memcpy calls / IO from engine .so / SPDK libs | 1.00 / n/a |", "|   their Ir / IO | 50 / n/a |",
             "| syscalls / IO, job thread | 2.51 / 2.30 |", "|   sends on the socket / IO | 1.00 / 0.00 |",
             "|   receives on the socket / IO | 1.50 / 0.00 |", "|     of which EAGAIN (nothing there) | 0.50 / 0.00 |",
             "|   io_submit + io_getevents / IO | 0.00 / 2.30 |", "|   other syscalls / IO | 0.01 / 0.00 |",
             "| `readv` | 30 |", "- none measured (no `engine` column)", "| `nvmf_tcp_rx_consume` | 1.00 (50) |",
             "| transport polls / IO | 2.00 / n/a |"):
    check("report: " + line, line in md, True)
check("report: no RDMA table", any("RDMA port" in x for x in md), False)
print("%d failed" % fails)
sys.exit(1 if fails else 0)
PY
