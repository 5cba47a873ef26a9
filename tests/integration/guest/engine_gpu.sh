#!/bin/bash
# nvmeof_mem=cuda against the kernel NVMe/RDMA target, with the stand-in CUDA driver
# (tests/cuda-standin, loaded by LD_LIBRARY_PATH exactly as a real libcuda.so.1 would be).
# The stand-in keeps "device memory" in host memory: this proves the engine's logic and the
# target's RDMA into driver-allocated memory, never GPUDirect itself.
. "$(dirname "$0")/lib.sh"
STANDIN_DIR=${STANDIN_DIR:-$REPO/build/cuda-standin}
LOGCHECK="python3 $REPO/tests/integration/cuda_log_check.py"
V="--verify_fatal=1 --do_verify=1"
J="--name=g --rw=randread --bs=4k --size=1m --iodepth=4"
CUDA="--nvmeof_mem=cuda"

[ -e "$STANDIN_DIR/libcuda.so.1" ] || { bad standin "no $STANDIN_DIR/libcuda.so.1 (make cuda-standin)"; suite_end engine_gpu; }

# the stand-in for everything below unless a case says otherwise
export LD_LIBRARY_PATH=$STANDIN_DIR

# log_check CASE CHECK [ARG]: the call log of CASE passes CHECK
log_check() {
	local name=$1 what=$2 arg=${3:-} out
	if out=$($LOGCHECK "$what" "$WORK/$name.cuda" "$arg" 2>&1); then
		ok "$name: $what: $out"
	else
		bad "$name: $what" "$out"
	fi
}

# gpu_fio CASE EXPECT [fio args]: a job that must pass, with its call log in $WORK/CASE.cuda;
# afterwards nothing is left allocated or retained.
gpu_fio() {
	local name=$1
	rm -f "$WORK/$name.cuda"
	NVMF_STANDIN_LOG=$WORK/$name.cuda run_fio "$@"
	log_check "$name" balanced
}

startline() { grep -m1 -oE 'buffers: .*' "$WORK/$1.log"; }

# copies_check CASE MODE: CASE's closing "CUDA copies" line agrees with what fio counted
copies_check() {
	local out
	if out=$(python3 "$REPO/tests/integration/cuda_copies_check.py" "$2" "$WORK/$1.log" \
		 "$WORK/$1.json" 2>&1); then
		ok "$1: CUDA copies ($2): $out"
	else
		bad "$1: CUDA copies ($2)" "$out; $(grep -m1 'CUDA copies' "$WORK/$1.log")"
	fi
}

# ---- verify through GPU buffers: GPUDirect (gpudirect=1) and staged (gpudirect=0) ----
for gd in 1 0; do
	m=gpudirect; [ $gd = 0 ] && m=staged
	G="$CUDA --gpudirect=$gd"
	gpu_fio "$m-crc32c-4k-qd1" rw $NVMEOF $G --name=w --rw=randwrite --bs=4k --size=4m \
		--iodepth=1 --verify=crc32c $V
	gpu_fio "$m-md5-128k-qd32" rw $NVMEOF $G --name=w --rw=randwrite --bs=128k --size=32m \
		--iodepth=32 --verify=md5 $V
	# 2 MiB: two commands per I/O (MDTS 1 MiB) into one device buffer
	gpu_fio "$m-crc32c-2m-qd4" rw $NVMEOF $G --name=w --rw=write --bs=2m --size=32m \
		--iodepth=4 --verify=crc32c $V
	# more commands than queue slots: I/Os wait in the engine's backlog
	gpu_fio "$m-bssplit-qd128" rw $NVMEOF $G --name=w --rw=randrw --rwmixread=50 \
		--bssplit=4k/40:64k/20:1m/20:2m/20 --size=64m --iodepth=128 --verify=crc32c $V
	gpu_fio "$m-event" rw $NVMEOF $G --completion=event --name=w --rw=randwrite --bs=8k \
		--size=8m --iodepth=16 --verify=crc32c $V
	for mode in process thread; do
		t=""; [ $mode = thread ] && t="--thread=1"
		# four lanes sharing device 0 (in thread mode: one process, one primary context
		# retained four times, each lane's calls in its own thread)
		gpu_fio "$m-numjobs4-$mode" rw $NVMEOF $G $t --name=w --rw=randwrite --bs=16k \
			--size=4m --offset_increment=4m --numjobs=4 --iodepth=8 --verify=crc32c $V \
			--group_reporting
	done
	[ $m = gpudirect ] && log_check "$m-md5-128k-qd32" flushed batched
	[ $m = staged ] && log_check "$m-md5-128k-qd32" staged
	# the closing line counts every copy: one per io_u of each kind the mode makes
	copies_check "$m-crc32c-4k-qd1" $m
	copies_check "$m-md5-128k-qd32" $m
done

# The dma-buf path runs as far as this guest kernel lets it. The stand-in exports a dma-buf
# through /dev/udmabuf (Debian 13's 6.12 has it, Debian 12's 6.1 does not); Soft-RoCE then
# refuses ibv_reg_dmabuf_mr. Either way the engine must fall back to peermem and say why.
if [ -e /dev/udmabuf ]; then
	DMABUF_CASE="exported through /dev/udmabuf, the registration refused by Soft-RoCE"
	DMABUF_WHY='dma-buf: ibv_reg_dmabuf_mr: [0-9]+ bytes of dma-buf fd [0-9]+: Operation not supported \(the RDMA device or its driver cannot map dma-bufs\)'
else
	DMABUF_CASE="export refused (no /dev/udmabuf in this guest)"
	DMABUF_WHY='dma-buf: cuMemGetHandleForAddressRange: CUDA_ERROR_NOT_SUPPORTED \(operation not supported\)'
fi
ok "dma-buf case on $(uname -r): $DMABUF_CASE"

# export_log CASE: the call log of CASE shows the dma-buf export this kernel allows
export_log() {
	local log=$WORK/$1.cuda n
	if [ -e /dev/udmabuf ]; then
		n=$(grep -cE '\] cuMemGetHandleForAddressRange .*-> fd [0-9]+ -> CUDA_SUCCESS' "$log")
		[ "$n" -ge 1 ] && ok "$1: dma-buf exported $n time(s), each fd closed (balanced)" ||
			bad "$1: dma-buf export" "no successful cuMemGetHandleForAddressRange in $log"
	else
		grep -qE '\] cuMemGetHandleForAddressRange .*/dev/udmabuf.* -> CUDA_ERROR_NOT_SUPPORTED' "$log" &&
			ok "$1: dma-buf export refused: no /dev/udmabuf" ||
			bad "$1: dma-buf export" "no refused cuMemGetHandleForAddressRange in $log"
	fi
}

# the start line says how the buffers are registered and what is copied
sl=$(startline gpudirect-md5-128k-qd32)
if echo "$sl" | grep -qE "GPUDirect via peermem \($DMABUF_WHY\)" &&
   echo "$sl" | grep -q 'data mode: host->device before writes, device->host after reads'; then
	ok "start line: dma-buf $DMABUF_CASE, peermem used, data mode: $sl"
else
	bad "start line (GPUDirect, verify; dma-buf $DMABUF_CASE)" "got: $sl"
fi
export_log gpudirect-md5-128k-qd32
sl=$(startline staged-md5-128k-qd32)
echo "$sl" | grep -q 'staged through registered host memory.*staged mode' &&
	ok "start line says staged: $sl" || bad "start line (staged)" "got: $sl"

# ---- several GPUs: job i takes cuda_device entry i mod n ----
NVMF_STANDIN_DEVICES=2 gpu_fio devices-0-1 w $NVMEOF $CUDA --cuda_device=0,1 --thread=1 \
	--name=w --rw=randwrite --bs=4k --size=2m --offset_increment=2m --numjobs=4 --iodepth=4 \
	--verify=crc32c $V
log_check devices-0-1 devices 0,1
n0=$(grep -c 'buffers: CUDA device 0 ' "$WORK/devices-0-1.log")
n1=$(grep -c 'buffers: CUDA device 1 ' "$WORK/devices-0-1.log")
[ "$n0" = 2 ] && [ "$n1" = 2 ] && ok "numjobs=4 over cuda_device=0,1: two lanes on each device" ||
	bad "cuda_device=0,1" "device 0: $n0 lanes, device 1: $n1 lanes (want 2 and 2)"

# ---- benchmark mode: fio neither fills nor checks the data, so nothing is copied per I/O --
gpu_fio bench-write w $NVMEOF $CUDA --name=w --rw=randwrite --bs=64k --size=16m --iodepth=16
log_check bench-write nocopy
gpu_fio bench-read r $NVMEOF $CUDA --name=r --rw=randread --bs=4k --size=16m --iodepth=32 \
	--number_ios=2000
log_check bench-read nocopy
copies_check bench-read benchmark
startline bench-read | grep -q 'benchmark mode: no copies' &&
	ok "start line says benchmark mode: $(startline bench-read)" ||
	bad "start line (benchmark)" "got: $(startline bench-read)"
# ... and yet writes carry fio's own buffer contents (copied to the device once): the blocks
# written are not zeroes (a target that compresses or dedupes must not see zeroes).
gpu_fio bench-fill w $NVMEOF $CUDA --name=w --rw=write --bs=128k --size=8m --iodepth=4
expect_fail bench-wrote-fio-data 'verify failed' $NVMEOF --name=r --rw=read --bs=128k \
	--size=8m --iodepth=4 --verify=pattern --verify_pattern=0 --verify_fatal=1 --do_verify=1
# fio's data options turn the copies on: buffer_pattern, refill_buffers
gpu_fio pattern-write w $NVMEOF $CUDA --name=w --rw=write --bs=64k --size=8m --iodepth=4 \
	--buffer_pattern=0x1badcafe
startline pattern-write | grep -q 'data mode' && ok "buffer_pattern selects data mode" ||
	bad "buffer_pattern" "start line: $(startline pattern-write)"
run_fio pattern-readback r $NVMEOF --name=r --rw=read --bs=64k --size=8m --iodepth=4 \
	--verify=pattern --verify_pattern=0x1badcafe --verify_fatal=1 --do_verify=1
gpu_fio refill-write w $NVMEOF $CUDA --name=w --rw=write --bs=64k --size=4m --iodepth=4 \
	--refill_buffers=1
startline refill-write | grep -q 'data mode' && ok "refill_buffers selects data mode" ||
	bad "refill_buffers" "start line: $(startline refill-write)"

# ---- registration choices ----
gpu_fio reg-peermem rw $NVMEOF $CUDA --gpu_reg=peermem --name=w --rw=randwrite --bs=4k \
	--size=2m --iodepth=8 --verify=crc32c $V
grep -q cuMemGetHandleForAddressRange "$WORK/reg-peermem.cuda" &&
	bad "gpu_reg=peermem" "dma-buf was tried" || ok "gpu_reg=peermem does not try dma-buf"
NVMF_STANDIN_LOG=$WORK/reg-dmabuf.cuda expect_fail reg-dmabuf \
	"nvmeof: w: cannot register [0-9]+ bytes of CUDA device 0 memory for RDMA: $DMABUF_WHY\$" \
	$NVMEOF $CUDA --gpu_reg=dmabuf --name=w --rw=randwrite --bs=4k --size=2m --iodepth=8
log_check reg-dmabuf balanced
export_log reg-dmabuf
# gpudirect=auto where dma-buf is the only registration allowed and this kernel cannot give
# it: the job stages instead, verify passes, the start line says so and why; the tools'
# datapath parser reads it as a fallback (what their gpudirect gate fails on)
gpu_fio reg-dmabuf-auto rw $NVMEOF $CUDA --gpu_reg=dmabuf --gpudirect=auto --name=w \
	--rw=randwrite --bs=4k --size=2m --iodepth=8 --verify=crc32c $V
sl=$(startline reg-dmabuf-auto)
echo "$sl" | grep -qE "staged through registered host memory \(gpudirect=auto, GPUDirect unavailable: cannot register [0-9]+ bytes of CUDA device 0 memory for RDMA: $DMABUF_WHY\); RDMA device .*staged mode" &&
	ok "gpudirect=auto fell back to staged, saying why: $sl" || bad "gpudirect=auto fallback" "start line: $sl"
copies_check reg-dmabuf-auto staged
fb=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1])
from nvmeof import datapath
ds = datapath.of_log(open(sys.argv[2]).read())
assert ds and all(d["gpudirect"] == "staged" and d["fallback"] and not datapath.gpudirect_used(d) for d in ds), ds
print(datapath.label(ds[0]))' "$REPO/tools" "$WORK/reg-dmabuf-auto.log" 2>&1) &&
	ok "datapath reads the fallback: $fb" || bad "datapath on the fallback" "$fb"
# gpudirect=auto where GPUDirect registers (peermem here): no fallback
gpu_fio auto-peermem rw $NVMEOF $CUDA --gpudirect=auto --name=w --rw=randwrite --bs=4k \
	--size=2m --iodepth=8 --verify=crc32c $V
startline auto-peermem | grep -q 'GPUDirect via peermem' && ! startline auto-peermem | grep -q 'staged' &&
	ok "gpudirect=auto with GPUDirect available: GPUDirect" || bad "gpudirect=auto" "start line: $(startline auto-peermem)"
# the device says it has no dma-buf: said in words, peermem used
NVMF_STANDIN_DMABUF=0 gpu_fio no-dmabuf-attr rw $NVMEOF $CUDA --name=w --rw=randwrite --bs=4k \
	--size=2m --iodepth=8 --verify=crc32c $V
startline no-dmabuf-attr | grep -q 'peermem (dma-buf: the device or driver does not support dma-buf' &&
	ok "no dma-buf support said in words" || bad "no dma-buf" "start line: $(startline no-dmabuf-attr)"
# a device without cuFlushGPUDirectRDMAWrites support: said once in the start line, no flush
NVMF_STANDIN_FLUSH_OPTIONS=0 gpu_fio no-flush rw $NVMEOF $CUDA --name=w --rw=randwrite \
	--bs=4k --size=2m --iodepth=8 --verify=crc32c $V
startline no-flush | grep -q 'no flush after reads: the device does not support cuFlushGPUDirectRDMAWrites' &&
	! grep -q cuFlushGPUDirectRDMAWrites "$WORK/no-flush.cuda" &&
	ok "no flush support: said in the start line, never called" ||
	bad "no flush support" "start line: $(startline no-flush)"

# ---- negative control: the stand-in drops device->host copies, so verify must fail ----
for gd in 1 0; do
	NVMF_STANDIN_DROP_DTOH=1 expect_fail "drop-dtoh-gpudirect$gd" 'verify: bad|verify failed|bad magic' \
		$NVMEOF $CUDA --gpudirect=$gd --name=w --rw=write --bs=64k --size=4m --iodepth=4 \
		--verify=crc32c $V
done

# ---- no driver, bad options: one line each, fio exits non-zero ----
LD_LIBRARY_PATH= expect_fail no-driver 'nvmeof: g: nvmeof_mem=cuda: .*libcuda\.so\.1' $NVMEOF $CUDA $J
expect_fail no-such-device 'nvmeof: g: nvmeof_mem=cuda: CUDA device 3 does not exist: the driver sees 1 device' \
	$NVMEOF $CUDA --cuda_device=3 $J
expect_fail bad-cuda-device "nvmeof: cuda_device '0,x': entry 2 is not a device ordinal" $NVMEOF $CUDA --cuda_device=0,x $J
expect_fail bad-gpu-reg 'fio: failed parsing gpu_reg=sideways' $NVMEOF $CUDA --gpu_reg=sideways $J
expect_fail bad-gpudirect 'fio: failed parsing gpudirect=2' $NVMEOF $CUDA --gpudirect=2 $J
expect_fail bad-nvmeof-mem 'fio: failed parsing nvmeof_mem=gpu' $NVMEOF --nvmeof_mem=gpu $J

# ---- every CUDA failure the engine can meet: one clear line, a non-zero exit, and nothing
# left allocated or retained (the call log balances) ----
# fail CASE SPEC REGEX [extra fio args]: with NVMF_STANDIN_FAIL=SPEC the job fails with a line
# matching REGEX
fail() {
	local name=$1 spec=$2 re=$3
	shift 3
	rm -f "$WORK/$name.cuda"
	NVMF_STANDIN_FAIL=$spec NVMF_STANDIN_LOG=$WORK/$name.cuda expect_fail "$name" "$re" \
		$NVMEOF $CUDA --name=w --rw=write --bs=64k --size=2m --iodepth=4 --verify=crc32c $V "$@"
	grep -q '(injected)' "$WORK/$name.cuda" 2>/dev/null || bad "$name" "the fault was never injected"
	log_check "$name" balanced
}
E='nvmeof: w: nvmeof_mem=cuda: '
fail inject-init    cuInit:1                     "${E}cuInit: CUDA_ERROR_UNKNOWN"
fail inject-count   cuDeviceGetCount:1           "${E}CUDA device 0: cuDeviceGetCount: CUDA_ERROR"
fail inject-get     cuDeviceGet:1                "${E}CUDA device 0: cuDeviceGet: CUDA_ERROR"
fail inject-pci     cuDeviceGetPCIBusId:1        "${E}CUDA device 0: cuDeviceGetPCIBusId: CUDA_ERROR"
fail inject-attr    cuDeviceGetAttribute:2       "${E}CUDA device 0: cuDeviceGetAttribute\\(GPU_DIRECT_RDMA_SUPPORTED\\): CUDA_ERROR"
fail inject-retain  cuDevicePrimaryCtxRetain:1   "${E}CUDA device 0: cuDevicePrimaryCtxRetain: CUDA_ERROR"
fail inject-setcur  cuCtxSetCurrent:1            "${E}CUDA device 0: .*cuCtxSetCurrent.*CUDA_ERROR"
fail inject-alloc   cuMemAlloc_v2:1              'nvmeof: w: CUDA device 0: cuMemAlloc_v2 of [0-9]+ bytes: CUDA_ERROR_OUT_OF_MEMORY'
fail inject-syncmem cuPointerSetAttribute:1      'nvmeof: w: CUDA device 0: cuPointerSetAttribute\(SYNC_MEMOPS\): CUDA_ERROR'
fail inject-initcpy cuMemcpyHtoD_v2:1            'nvmeof: w: CUDA device 0: cuMemcpyHtoD_v2 of the initial [0-9]+ bytes: CUDA_ERROR'
# on the I/O path: a write's host->device copy, a read's flush, a read's device->host copy
fail inject-wcopy   cuMemcpyHtoD_v2:4            'nvmeof: w: CUDA device 0: cuMemcpyHtoD_v2 of 65536 bytes at offset [0-9]+: CUDA_ERROR'
fail inject-flush   cuFlushGPUDirectRDMAWrites:2 'nvmeof: w: CUDA device 0: cuFlushGPUDirectRDMAWrites: CUDA_ERROR'
fail inject-rcopy   cuMemcpyDtoH_v2:3            'nvmeof: w: CUDA device 0: cuMemcpyDtoH_v2 of 65536 bytes at offset [0-9]+: CUDA_ERROR'
fail inject-stage   cuMemcpyDtoH_v2:2            'nvmeof: w: CUDA device 0: cuMemcpyDtoH_v2 of 65536 bytes at offset [0-9]+: CUDA_ERROR' --gpudirect=0
fail inject-lanecur cuCtxGetCurrent:6            'nvmeof: w: CUDA device 0: .*cuCtxGetCurrent.*CUDA_ERROR'
# teardown: the failure is said; what can still be released is
teardown() {
	local name=$1 spec=$2 re=$3
	rm -f "$WORK/$name.cuda"
	NVMF_STANDIN_FAIL=$spec NVMF_STANDIN_LOG=$WORK/$name.cuda timeout -k 5 "$FIO_TIMEOUT" fio \
		$NVMEOF $CUDA --name=w --rw=write --bs=64k --size=2m --iodepth=4 >"$WORK/$name.log" 2>&1
	rc=$?
	if [ $rc -ge 124 ] || grep -qiE 'segmentation|core dumped|Assertion' "$WORK/$name.log"; then
		bad "$name" "fio exited $rc or crashed"
	elif ! grep -qE "$re" "$WORK/$name.log"; then
		bad "$name" "no line matching /$re/"; sed 's/^/    | /' "$WORK/$name.log" | tail -5
	else
		ok "$name: $(grep -m1 -E "$re" "$WORK/$name.log")"
	fi
}
teardown inject-free    cuMemFree_v2:1 'nvmeof: w: releasing buffers: CUDA device 0: cuMemFree_v2: CUDA_ERROR'
grep -q 'cuDevicePrimaryCtxRelease_v2 .*CUDA_SUCCESS' "$WORK/inject-free.cuda" &&
	ok "inject-free: the context is still released" || bad inject-free "context not released"
teardown inject-release cuDevicePrimaryCtxRelease_v2:1 'nvmeof: w: releasing buffers: CUDA device 0: cuDevicePrimaryCtxRelease_v2: CUDA_ERROR'

suite_end engine_gpu
