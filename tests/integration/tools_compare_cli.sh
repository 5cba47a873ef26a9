#!/bin/bash
# tools/nvmeof-compare's refusals, on the host (no testbed, nothing runs): write rows on a real
# target without --destructive, bad --matrix lines, unknown initiators, incomplete target
# addresses, and what does not fit --failover.  Each must exit 2 with one line naming the
# problem, before anything is created.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
T=$REPO/tools/nvmeof-compare
WORK=$(mktemp -d /tmp/compare-cli.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
# a stand-in engine file: the plan only checks that it exists (nothing is loaded or run here)
ENG=$WORK/engine.so; : > "$ENG"
pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "PASS $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }

# refuse NAME REGEX ARGS...: exit 2, exactly one line of output matching REGEX, no --out dir made
refuse() {
	local name=$1 re=$2 out rc
	shift 2
	out=$("$T" --engine "$ENG" --out "$WORK/out-$name" "$@" 2>&1)
	rc=$?
	if [ $rc != 2 ]; then bad "$name" "exit $rc, not 2: $out"
	elif [ "$(printf '%s\n' "$out" | wc -l)" != 1 ]; then bad "$name" "not one line: $out"
	elif ! printf '%s\n' "$out" | grep -qE "$re"; then bad "$name" "no /$re/ in: $out"
	elif [ -e "$WORK/out-$name" ]; then bad "$name" "created the output directory"
	else ok "$name: $out"; fi
}
# accept NAME REGEX ARGS...: --dry-run exits 0 and prints REGEX
accept() {
	local name=$1 re=$2 out rc
	shift 2
	out=$("$T" --engine "$ENG" --dry-run "$@" 2>&1)
	rc=$?
	if [ $rc != 0 ]; then bad "$name" "exit $rc: $out"
	elif ! printf '%s\n' "$out" | grep -qE "$re"; then bad "$name" "no /$re/ in: $out"
	else ok "$name"; fi
}

REAL=(--traddr 192.0.2.1 --subnqn nqn.2016-06.io.spdk:cnode1 --nsid 1 --initiators engine-poll)
refuse real-default-matrix 'refusing: 12 row\(s\) write to nqn.2016-06.io.spdk:cnode1 nsid 1 .*--destructive' "${REAL[@]}"
printf 'rw=randread bs=4k qd=1\nrw=randrw bs=4k qd=8 rwmixread=70\n' > "$WORK/rw.m"
refuse real-randrw 'refusing: 1 row\(s\) write .*randrw-4k-qd8-j1' "${REAL[@]}" --matrix "$WORK/rw.m"
accept real-destructive '24 rows x 1 initiators' "${REAL[@]}" --destructive
printf '# reads only\nrw=randread bs=4k qd=1\n\nrw=read bs=1m qd=8 jobs=4 name=seq1m  # comment\n' > "$WORK/ro.m"
accept real-reads-only 'seq1m: rw=read bs=1m iodepth=8 numjobs=4' "${REAL[@]}" --matrix "$WORK/ro.m"
refuse real-no-nsid 'needs --traddr, --subnqn and --nsid' --traddr 192.0.2.1 --subnqn nqn.x
refuse unknown-initiator "unknown initiator 'kernel-sync'" --initiators engine-poll,kernel-sync --quick
# (an empty cache: no plugin built by make spdk to find)
FIO_NVMEOF_CACHE=$WORK/no-cache refuse spdk-without-plugin "spdk needs SPDK's fio plugin: make spdk, or --spdk-plugin" --initiators spdk --quick
refuse missing-matrix 'nosuch.m: cannot read' --matrix "$WORK/nosuch.m"
# --targets: the testbed's two targets only, each with an initiator that runs against it
refuse targets-unknown ": --targets: unknown target 'spdk' \(known: nvmet, spdk-tgt\)" --quick --targets nvmet,spdk
refuse targets-real ': --targets chooses among the testbed.s targets' "${REAL[@]}" --quick --targets nvmet
FIO_NVMEOF_CACHE=$WORK/no-cache refuse targets-no-spdk ": --targets spdk-tgt needs SPDK's nvmf_tgt: make spdk" \
	--quick --targets spdk-tgt --initiators engine-poll
FIO_NVMEOF_CACHE=$WORK/no-cache accept targets-default-no-spdk 'initiators \(engine-poll,kernel-libaio\) .*target testbed \(nvmet\)$' \
	--quick --initiators engine-poll,kernel-libaio
if "$REPO/scripts/spdk.sh" --where >/dev/null 2>&1; then
	refuse targets-kernel-only ': --targets spdk-tgt: none of the initiators runs against it' \
		--quick --targets spdk-tgt --initiators kernel-libaio
	accept targets-chosen 'initiators \(engine-poll,engine-event,kernel-libaio,spdk,engine-poll@spdk-tgt,engine-event@spdk-tgt,spdk@spdk-tgt\) .*target testbed \(nvmet,spdk-tgt\)$' \
		--quick --initiators engine-poll,engine-event,kernel-libaio,spdk --targets nvmet,spdk-tgt
	accept targets-default '\(.*,spdk,engine-poll@spdk-tgt,spdk@spdk-tgt\) .*\(nvmet,spdk-tgt\)$' --quick
	accept targets-spdk-only '2 rows x 2 initiators \(engine-hybrid@spdk-tgt,spdk@spdk-tgt\)' \
		--quick --targets spdk-tgt --initiators engine-hybrid,kernel-libaio,spdk
else
	echo "note: no SPDK built (make spdk): the spdk-tgt plans are not checked"
fi

# bad matrix files: LINE-CONTENT  EXPECTED-MESSAGE (the bad line is always line 2)
n=0
while IFS='|' read -r line re; do
	n=$((n + 1))
	printf 'rw=read bs=4k qd=1\n%s\n' "$line" > "$WORK/bad$n.m"
	refuse "matrix-$n" "bad$n.m:2: $re" --matrix "$WORK/bad$n.m"
done <<'CASES'
rw=randread bs=4k|iodepth missing
rw=randread bs=4k qd=0|iodepth=0 is not a whole number 1..4096
rw=randread bs=4k qd=8 jobs=x|numjobs=x is not a whole number 1..256
rw=trim bs=4k qd=1|rw=trim is not one of
rw=read bs=4q qd=1|bs '4q' is not a size
rw=read bs=1000 qd=1|bs '1000' is not a multiple of 512 bytes
rw=read bs=4k qd=1 depth=3|unknown key 'depth'
rw=read bs=4k qd=1 qd=2|iodepth given twice
rw=read bs=4k qd=1 rwmixread=50|rwmixread only goes with rw=rw or rw=randrw
rw=read bs=4k qd=1 name=a/b|name=a/b: use 1..64 letters
rw=read bs=4k iodepth|'iodepth' is not key=value
rw=read bs=4k qd=1 name=read-4k-qd1-j1|row name read-4k-qd1-j1 already used on line 1
CASES
: > "$WORK/empty.m"
refuse matrix-empty 'empty.m: no rows' --matrix "$WORK/empty.m"

# --hosts (fio client/server): engine initiators and a real target only; bad host lists
H=(--hosts 127.0.0.1:8765,127.0.0.1:8766)
REALK=(--traddr 192.0.2.1 --subnqn nqn.2016-06.io.spdk:cnode1 --nsid 1 --quick)
refuse hosts-kernel ": --hosts runs only the engine's initiators; refusing kernel-libaio" \
	"${REALK[@]}" "${H[@]}" --initiators engine-poll,kernel-libaio
refuse hosts-testbed ': --hosts needs a real target' --quick "${H[@]}"
refuse hosts-empty ": --hosts: no hosts in ' , '" "${REALK[@]}" --hosts ' , '
refuse hosts-twice ': --hosts: host 127.0.0.1:8765 given twice' "${REALK[@]}" --hosts 127.0.0.1,127.0.0.1:8765
refuse hosts-port ": --hosts: 'h:99999': port 99999 out of range" "${REALK[@]}" --hosts h:99999
accept hosts-engine-default '2 rows x [0-9]+ initiators \(engine-[a-z-]+(,engine-[a-z-]+)*\).*fio servers 127.0.0.1:8765,127.0.0.1:8766' \
	"${REALK[@]}" "${H[@]}"

# --failover (nvmeof-qualify's failover job, engine and kernel multipath): what does not fit it
FO_REAL=(--failover --traddr 192.0.2.1:4420,192.0.2.2:4420 --subnqn nqn.2016-06.io.spdk:cnode1 --nsid 1)
refuse fo-matrix ': --quick does not go with --failover' --failover --quick
refuse fo-bench ': --bench does not go with --failover' --failover --bench
refuse fo-hosts ': --hosts does not go with --failover' "${FO_REAL[@]}" --destructive --fault-cmd true "${H[@]}"
refuse fo-targets ': --targets does not go with --failover' --failover --targets nvmet
refuse fo-runtime ': --runtime does not go with --failover .*--failover-runtime' --failover --runtime 5
refuse fo-initiator ": --failover compares the engine and the kernel initiator .*not 'engine-poll'" \
	--failover --initiators engine,engine-poll
refuse fo-spdk ": --initiators takes engine, kernel or both, not 'spdk'" --failover --initiators spdk
refuse fo-no-failover ': --fault-at is for --failover' --quick --fault-at 3
refuse fo-fault-cmd-testbed ': --fault-cmd and --restore-cmd are for a real target' --failover --fault-cmd 'true'
refuse fo-fault-real ": --fault is the testbed's own fault; on a real target give --fault-cmd" \
	"${FO_REAL[@]}" --destructive --fault port
refuse fo-real-no-cmd ': --failover on a real target needs --fault-cmd CMD' "${FO_REAL[@]}" --destructive
refuse fo-real-one-path ': --failover needs several paths .*got one: 192.0.2.1:4420' \
	--failover --traddr 192.0.2.1:4420 --subnqn nqn.x --nsid 1 --destructive --fault-cmd true
refuse fo-real-destructive ': refusing: the failover job writes .* nqn.2016-06.io.spdk:cnode1 nsid 1; pass --destructive' \
	"${FO_REAL[@]}" --fault-cmd true
refuse fo-times ": --restore-at 2: after --fault-at \(3\) and before the run's end" --failover --fault-at 3 --restore-at 2
refuse fo-fault-late ": --fault-at 10: from 1 s to before the run's end \(--failover-runtime 8\)" \
	--failover --failover-runtime 8
refuse fo-size ': --size 100k: must be a positive multiple of 128 KiB' --failover --size 100k
refuse fo-repeat ': --repeat must be at least 1' --failover --repeat 0
accept fo-testbed '6 runs \(engine,kernel x 3, alternating\), 30 s each, fault at 10 s, restore at 20 s; testbed fault port' \
	--failover
accept fo-real '2 runs \(kernel x 2.*--fault-cmd ssh t down.*target 192.0.2.1:4420,192.0.2.2:4420' \
	"${FO_REAL[@]}" --destructive --fault-cmd 'ssh t down' --initiators kernel --repeat 2

# --engine-opt: checked against the built engine's options and fio's own parser (fio
# --parse-only with the engine loaded), before anything runs
REAL_ENG=$REPO/build/libfio_nvmeof.so
if [ -f "$REAL_ENG" ] && command -v fio >/dev/null; then
	refuse eo-bad-value ': --engine-opt mp_policy=bogus: fio refuses it: fio: failed parsing mp_policy=bogus' \
		--quick --engine "$REAL_ENG" --engine-opt mp_policy=bogus
	refuse eo-range ': --engine-opt delay_submit=7: fio refuses it: .*out of range' \
		--quick --engine "$REAL_ENG" --engine-opt delay_submit=7
	refuse eo-unknown ': --engine-opt nosuch=1: nosuch is not an option of the engine' \
		--quick --engine "$REAL_ENG" --engine-opt nosuch=1
	refuse eo-fio-own ": --engine-opt bs=4k: bs is one of fio's own options" \
		--quick --engine "$REAL_ENG" --engine-opt bs=4k
	refuse eo-reserved ': --engine-opt completion=event: the tool sets completion itself' \
		--quick --engine "$REAL_ENG" --engine-opt completion=event
	refuse eo-twice ': --engine-opt delay_submit=1: delay_submit given twice' \
		--quick --engine "$REAL_ENG" --engine-opt delay_submit=0 --engine-opt delay_submit=1
	refuse eo-form ": --engine-opt 'nvmeof_mem': want KEY=VALUE" --quick --engine "$REAL_ENG" --engine-opt nvmeof_mem
	refuse eo-no-engine ': --engine-opt: no engine initiator runs \(--initiators kernel-libaio\)' \
		--quick --engine "$REAL_ENG" --targets nvmet --initiators kernel-libaio --engine-opt nvmeof_mem=cuda
	refuse fo-eo-reserved ': --engine-opt mp_policy=numa: the tool sets mp_policy itself \(--mp-policy\)' \
		--failover --engine "$REAL_ENG" --engine-opt mp_policy=numa
	refuse fo-eo-no-engine ': --engine-opt: no engine initiator runs \(--initiators kernel\)' \
		--failover --engine "$REAL_ENG" --initiators kernel --engine-opt nvmeof_mem=cuda
	refuse gpu-no-device ': initiator engine-poll-gpu runs the engine with GPU memory: give --cuda-device' \
		--quick --engine "$REAL_ENG" --targets nvmet --initiators engine-poll-gpu
	refuse gpu-bad-device ": --cuda-device x: fio refuses it: nvmeof: cuda_device 'x'" \
		--quick --engine "$REAL_ENG" --cuda-device x
	refuse gpu-lib-missing ': --cuda-lib /nonexistent: no libcuda.so.1 there' \
		--quick --engine "$REAL_ENG" --cuda-device 0 --cuda-lib /nonexistent
	refuse gpu-lib-alone ': --cuda-lib is for the GPU memory variants: give --cuda-device too' \
		--quick --engine "$REAL_ENG" --cuda-lib /tmp
	refuse gpu-unused ': --cuda-device: no GPU memory initiator runs' \
		--quick --engine "$REAL_ENG" --targets nvmet --cuda-device 0 --initiators engine-poll
	refuse gpu-eo-reserved ': --engine-opt gpudirect=0: the tool sets gpudirect itself' \
		--quick --engine "$REAL_ENG" --engine-opt gpudirect=0
	accept gpu-default 'engine-poll-gpu,engine-event-gpu,engine-hybrid-gpu,engine-poll-staged,engine-event-staged,engine-hybrid-staged,kernel-libaio.*GPU memory on CUDA device 0,1$' \
		--quick --engine "$REAL_ENG" --targets nvmet --cuda-device 0,1
	accept gpu-by-name '1 initiators \(engine-event-qauto-staged\)' \
		--quick --engine "$REAL_ENG" --targets nvmet --cuda-device 0 --initiators engine-event-qauto-staged
	refuse gpu-require-none ': --require-gpudirect: no GPUDirect initiator runs' \
		--quick --engine "$REAL_ENG" --targets nvmet --cuda-device 0 --initiators engine-poll-staged --require-gpudirect
	refuse gpu-require-fo ': --require-gpudirect does not go with --failover \(it runs qualify.s failover job with host memory\)' \
		--failover --engine "$REAL_ENG" --require-gpudirect
	refuse gpu-device-fo ': --cuda-device does not go with --failover' \
		--failover --engine "$REAL_ENG" --cuda-device 0
	accept eo-ok 'engine options gpu_reg=auto$' \
		--quick --engine "$REAL_ENG" --engine-opt gpu_reg=auto
	accept fo-eo-ok '; engine options nvmeof_mem=cuda$' --failover --engine "$REAL_ENG" --engine-opt nvmeof_mem=cuda
else
	echo "note: no built engine (make) or no fio: --engine-opt checks not run"
fi
# the job file of an engine run carries them; a kernel run's does not
if out=$(python3 - "$REPO/tools" <<'PY' 2>&1
import sys
sys.path.insert(0, sys.argv[1])
from nvmeof import compare_run
row = {"name": "r", "rw": "randread", "bs": "4k", "iodepth": 1, "numjobs": 1}
t = {"traddr": "192.0.2.1", "trsvcid": "4420", "subnqn": "nqn.x", "nsid": 1}
ctx = {"engine": "/e.so", "target": t, "kernel_dev": "/dev/nvme0n1", "engine_opts": ["nvmeof_mem=cuda", "gpudirect=0"]}
e = compare_run.job_text(row, "engine-poll", ctx, 2, "16m").splitlines()
k = compare_run.job_text(row, "kernel-libaio", ctx, 2, "16m").splitlines()
assert "nvmeof_mem=cuda" in e and "gpudirect=0" in e, e
assert e.index("gpudirect=0") < e.index("[r]"), "not in [global]: %s" % e
assert not any(l.startswith(("nvmeof_mem", "gpudirect")) for l in k), k
ctx["cuda"] = {"device": "0,1", "lib": None}
g = compare_run.job_text(row, "engine-event-gpu", ctx, 2, "16m").splitlines()
st = compare_run.job_text(row, "engine-poll-qauto-staged", ctx, 2, "16m").splitlines()
assert {"completion=event", "nvmeof_mem=cuda", "gpudirect=1", "cuda_device=0,1"} <= set(g), g
assert {"completion=poll", "io_queues=auto", "nvmeof_mem=cuda", "gpudirect=0", "cuda_device=0,1"} <= set(st), st
assert compare_run.run_env("engine-poll-gpu", {"cuda": {"device": "0", "lib": "/x"}})["LD_LIBRARY_PATH"].startswith("/x")
assert compare_run.run_env("engine-poll", {"cuda": {"device": "0", "lib": "/x"}}) is None
print("engine job: the engine options in [global]; kernel job: none; -gpu and -staged jobs: nvmeof_mem, gpudirect, cuda_device; their LD_LIBRARY_PATH")
PY
); then ok "eo-jobfile: $out"; else bad eo-jobfile "$out"; fi
# --require-gpudirect's verdict on a run, from the start lines its log had
if out=$(python3 - "$REPO/tools" <<'PY' 2>&1
import sys
sys.path.insert(0, sys.argv[1])
from nvmeof import compare_run, datapath
S = "nvmeof: r: nqn.x cntlid 1 (Linux, fw 6.1), ns 1: 16 MiB, poll via rxe0 port 1 (a -> b:4420); buffers: CUDA device 0 (0000:3b:00.0, NUMA 0), "
gd = S + "GPUDirect via peermem (dma-buf: no), cuFlushGPUDirectRDMAWrites after reads; RDMA device rxe0 (no PCI device, NUMA ?); benchmark mode: no copies (x); the target may RDMA-read them"
fb = S + "staged through registered host memory (gpudirect=auto, GPUDirect unavailable: cannot register 1 bytes of CUDA device 0 memory for RDMA: dma-buf: nope (really)); RDMA device rxe0 (no PCI device, NUMA ?); staged mode: x; the target may RDMA-read them"
def rec(v, *lines):
    return {"variant": v, "buffers": datapath.of_log("\n".join(lines))}
assert compare_run.not_gpudirect(rec("engine-poll-gpu", gd, gd)) is None
w = compare_run.not_gpudirect(rec("engine-poll-gpu", gd, fb))
assert w == "job r's data path was staged (gpudirect=auto fell back) (cannot register 1 bytes of CUDA device 0 memory for RDMA: dma-buf: nope (really))", w
assert compare_run.not_gpudirect(rec("engine-poll-gpu")) == "no engine start line in the run's log"
assert compare_run.not_gpudirect(rec("engine-poll-staged", fb)) is None      # staged on purpose
assert compare_run.not_gpudirect(rec("engine-poll", fb)) is None
# the engine over NVMe/TCP with host memory: its start line is found (the report's data path)
tcp = ("nvmeof: r: nqn.x cntlid 2 (Linux, fw 6.1.0-57), ns 1: 16 MiB, poll via NVMe/TCP (header digest off, "
       "data digest off) (a -> b:4420); data travels in the PDUs, to and from the buffers; fabric: NVMe/TCP")
t = datapath.of_line(tcp)
assert t is not None and t["memory"] == "host" and t["job"] == "r", t
assert datapath.summary(tcp)[0] == ["host"], datapath.summary(tcp)
print("a -gpu run passes with GPUDirect in every start line, fails on a fallback (naming it) or no start line; -staged and host runs are not judged; an NVMe/TCP start line reads as host memory")
PY
); then ok "require-gpudirect: $out"; else bad require-gpudirect "$out"; fi

# NVMe/TCP columns (engine-tcp, kernel-tcp, spdk-tcp): named, never in the default set; the
# engine's only with its transport option.  A stand-in engine whose binary holds the option
# names stands for an engine with NVMe/TCP (fio cannot load it, so the tool looks in the binary).
TCP_ENG=$WORK/engine-tcp.so; printf 'x\0transport\0hdr_digest\0data_digest\0' > "$TCP_ENG"
NOTCP_ENG=$WORK/engine-notcp.so; printf 'x\0io_queues\0' > "$NOTCP_ENG"
printf 'x\0transport\0' > "$WORK/engine-tcp-only.so"     # TCP, no digest options
REALT=(--traddr 192.0.2.1 --subnqn nqn.2016-06.io.spdk:cnode1 --nsid 1 --quick)
accept tcp-named '2 rows x 4 initiators \(engine-poll,engine-tcp,kernel-libaio,kernel-tcp\) .*target testbed \(nvmet\); NVMe/TCP port 4420$' \
	--engine "$TCP_ENG" --quick --targets nvmet --initiators engine-poll,engine-tcp,kernel-libaio,kernel-tcp
# the kind tcp: the three, less SPDK's where no plugin is built (an empty cache)
FIO_NVMEOF_CACHE=$WORK/no-cache accept tcp-kind '2 initiators \(engine-tcp,kernel-tcp\) .*; NVMe/TCP port 4420$' \
	--engine "$TCP_ENG" --quick --targets nvmet --initiators tcp
FIO_NVMEOF_CACHE=$WORK/no-cache accept tcp-not-default 'initiators \(engine-poll,engine-event,engine-hybrid,kernel-libaio,kernel-io_uring\) .*\(nvmet\)$' \
	--engine "$TCP_ENG" --quick
accept tcp-real-port '1 initiators \(kernel-tcp\) .*target 192.0.2.1; NVMe/TCP port 4430; TCP digests header,data$' \
	--engine "$TCP_ENG" "${REALT[@]}" --initiators kernel-tcp --tcp-port 4430 --hdr-digest --data-digest
refuse tcp-engine-lacks ': initiator engine-tcp needs the engine.s transport option, which this engine lacks' \
	--engine "$NOTCP_ENG" --quick --targets nvmet --initiators engine-tcp
refuse tcp-port-testbed ': --tcp-port is for a real target: the testbed.s TCP ports are its own' \
	--engine "$TCP_ENG" --quick --targets nvmet --initiators kernel-tcp --tcp-port 4430
refuse tcp-port-range ': --tcp-port 70000: not a port number 1..65535' \
	--engine "$TCP_ENG" "${REALT[@]}" --initiators kernel-tcp --tcp-port 70000
refuse tcp-port-unused ': --tcp-port: no -tcp initiator runs \(--initiators kernel-libaio\)' \
	--engine "$TCP_ENG" "${REALT[@]}" --initiators kernel-libaio --tcp-port 4430
refuse tcp-digest-unused ': --data-digest: no -tcp initiator runs \(--initiators engine-poll\)' \
	--engine "$TCP_ENG" --quick --targets nvmet --initiators engine-poll --data-digest
refuse tcp-digest-engine ': --hdr-digest: the engine has no hdr_digest option \(engine-tcp runs\)' \
	--engine "$WORK/engine-tcp-only.so" --quick --targets nvmet --initiators engine-tcp --hdr-digest
refuse tcp-eo-reserved ': --engine-opt transport=tcp: the tool sets transport itself' \
	--engine "$TCP_ENG" --quick --targets nvmet --initiators engine-poll --engine-opt transport=tcp
FIO_NVMEOF_CACHE=$WORK/no-cache refuse tcp-spdk-no-plugin ": initiator spdk-tcp needs SPDK's fio plugin" \
	--engine "$TCP_ENG" --quick --targets nvmet --initiators spdk-tcp
refuse tcp-unknown "unknown initiator 'io_uring-tcp' \(known: .*engine-tcp, kernel-tcp, spdk-tcp; or engine, kernel, tcp\)" \
	--engine "$TCP_ENG" --quick --initiators io_uring-tcp
refuse tcp-failover ': --tcp-port does not go with --failover \(it runs qualify.s failover job over RDMA\)' \
	--failover --tcp-port 4430
if "$REPO/scripts/spdk.sh" --where >/dev/null 2>&1; then
	accept tcp-spdk-tgt '\(engine-tcp,spdk-tcp,engine-tcp@spdk-tgt,spdk-tcp@spdk-tgt\) .*\(nvmet,spdk-tgt\); NVMe/TCP port 4420$' \
		--engine "$TCP_ENG" --quick --initiators engine-tcp,spdk-tcp
fi
# the job files of the TCP columns: the TCP port, transport=tcp and the digests in the engine's,
# nvme-tcp's block device for kernel-tcp (libaio), trtype=TCP and digest_enable in SPDK's
if out=$(python3 - "$REPO/tools" <<'PY' 2>&1
import sys
sys.path.insert(0, sys.argv[1])
from nvmeof import compare_run, compare_matrix as cm
row = {"name": "r", "rw": "randread", "bs": "4k", "iodepth": 1, "numjobs": 1}
t = {"traddr": "192.0.2.1", "trsvcid": "4420", "tcp_trsvcid": "4430", "subnqn": "nqn.x:y", "nsid": 1}
ctx = {"engine": "/e.so", "target": t, "kernel_dev": "/dev/nvme0n1", "kernel_tcp_dev": "/dev/nvme1n1",
       "tcp_digests": ["header", "data"]}
j = lambda v: compare_run.job_text(row, v, ctx, 2, "16m").splitlines()
e, er = j("engine-tcp"), j("engine-poll")
assert {"trsvcid=4430", "transport=tcp", "hdr_digest=1", "data_digest=1", "completion=poll"} <= set(e), e
assert "trsvcid=4420" in er and not any(l.startswith(("transport", "hdr_digest", "data_digest")) for l in er), er
k, kr = j("kernel-tcp"), j("kernel-libaio")
assert {"ioengine=libaio", "filename=/dev/nvme1n1"} <= set(k) and "filename=/dev/nvme0n1" in kr, (k, kr)
s, sr = j("spdk-tcp"), j("spdk")
assert "filename=trtype=TCP adrfam=IPv4 traddr=192.0.2.1 trsvcid=4430 subnqn=nqn.x\\:y ns=1" in s, s
assert "digest_enable=BOTH" in s and not any(l.startswith("digest_enable") for l in sr), (s, sr)
assert any(l.startswith("filename=trtype=RDMA") and "trsvcid=4420" in l for l in sr), sr
ctx["tcp_digests"] = ["data"]
assert "digest_enable=DATA" in j("spdk-tcp@spdk-tgt") and "data_digest=1" in j("engine-tcp") and "hdr_digest=1" not in j("engine-tcp")
assert [cm.rdma_twin(v) for v in ("engine-tcp", "kernel-tcp", "spdk-tcp@spdk-tgt", "engine-poll")] == \
    ["engine-poll", "kernel-libaio", "spdk@spdk-tgt", None]
print("engine-tcp: the TCP port, transport=tcp, the digests; kernel-tcp: libaio on nvme-tcp's device; spdk-tcp: trtype=TCP, digest_enable; the RDMA jobs unchanged")
PY
); then ok "tcp-jobfile: $out"; else bad tcp-jobfile "$out"; fi
# the report's "RDMA vs TCP" table from made-up run records: each TCP column beside its RDMA
# twin with the ratio (IOPS, p50, p99, CPU us/IO); none without a TCP column
if out=$(python3 - "$REPO/tools" "$WORK/tcp-report" <<'PY' 2>&1
import json, os, sys
sys.path.insert(0, sys.argv[1])
from nvmeof import compare_report
out = sys.argv[2]
os.makedirs(out)
variants = ["engine-poll", "engine-tcp", "kernel-libaio", "kernel-tcp"]
env = {"kernel": "k", "fio": "fio-3.33", "cpus": 2, "cpu_model": "m", "hypervisor": False, "numa_nodes": 1,
       "cpu_governor": "n/a", "clk_tck": 100, "rdma": [], "warnings": []}
plan = {"rows": [{"name": "r1", "rw": "randread", "bs": "4k", "iodepth": 1, "numjobs": 1}], "variants": variants,
        "repeat": 1, "runtime": 2, "size": "16m", "env": env, "tcp_digests": ["data"],
        "target": {"testbed": False, "traddr": "192.0.2.1", "trsvcid": "4420", "tcp_trsvcid": "4430",
                   "subnqn": "nqn.x", "nsid": 1}}
num = {"engine-poll": (1000, 10, 40, 200), "engine-tcp": (500, 20, 100, 300),
       "kernel-libaio": (800, 12, 50, 100), "kernel-tcp": (400, 24, 100, 400)}
with open(os.path.join(out, "plan.json"), "w") as f:
    json.dump(plan, f)
with open(os.path.join(out, "runs.jsonl"), "w") as f:
    for v, (iops, p50, p99, busy) in num.items():
        m = {"iops": iops, "bw_bytes": iops * 4096, "usr_cpu": 1, "sys_cpu": 1, "ios": iops * 2, "total_err": 0,
             "error": 0, "ctx": 0, "lat_p50_us": p50, "lat_p99_us": p99}
        f.write(json.dumps({"id": v, "row": "r1", "variant": v, "rep": 1, "rc": 0, "status": "ok", "note": "",
                            "metrics": m, "busy_jiffies": busy}) + "\n")
txt, nbad, _ = compare_report.write(out)
md = open(os.path.join(out, "report.md")).read()
assert nbad == 0, nbad
assert "## RDMA vs TCP" in md and "TCP digests on: data." in md, md
assert "NVMe/TCP port 4430" in md, md
# engine-tcp: 500/1000 IOPS, p50 20/10, p99 100/40, CPU (300/100 s over 1000 I/Os) / (200/100 s over 2000)
want_e = "| r1 | engine-tcp | engine-poll | 500.0 | 1000.0 | 0.50 | 20.000 | 10.000 | 2.00 | 100.000 | 40.000 | 2.50 | 3000.00 | 1000.00 | 3.00 |"
want_k = "| r1 | kernel-tcp | kernel-libaio | 400.0 | 800.0 | 0.50 | 24.000 | 12.000 | 2.00 | 100.000 | 50.000 | 2.00 | 5000.00 | 625.00 | 8.00 |"
assert want_e in md and want_k in md, [l for l in md.splitlines() if l.startswith("| r1 | ") and "tcp |" in l]
assert "r1                       engine-tcp               engine-poll           0.50    2.00    2.50    3.00" in txt, txt
cells = {c["variant"]: c for c in json.load(open(os.path.join(out, "report.json")))["cells"]}
assert cells["engine-tcp"]["ratio"]["iops"] == 500 / 400, cells["engine-tcp"]["ratio"]     # to kernel-tcp
assert cells["engine-poll"]["ratio"]["iops"] == 1000 / 800 and "ratio_rdma" not in cells["engine-poll"]
# without a TCP column: no such table
plan["variants"] = ["engine-poll", "kernel-libaio"]
with open(os.path.join(out, "plan.json"), "w") as f:
    json.dump(plan, f)
compare_report.write(out)
assert "RDMA vs TCP" not in open(os.path.join(out, "report.md")).read()
print("each TCP column beside its RDMA twin, ratios TCP/RDMA of IOPS, p50, p99 and CPU us/IO; a TCP column's kernel ratio to kernel-tcp; no table without TCP")
PY
); then ok "tcp-report: $out"; else bad tcp-report "$out"; fi

echo "tools_compare_cli: $pass passed, $fail failed"
[ $fail = 0 ]
