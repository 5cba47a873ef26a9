#!/bin/bash
# device-check.sh - the CUDA layer against a real NVIDIA driver, on a machine with a GPU and
# its driver but possibly no RDMA device, no fio, no rdma-core headers and no package registry:
# gcc and this repository are all it needs.  It builds lib/nvmf_cuda.c, lib/nvmf_mem.c and the
# unit tests with a minimal compile line, runs tests/unit/test_cuda.c against the real
# libcuda.so.1 (NVMF_TEST_REAL_DRIVER=1: contexts in threads and forked children, allocation
# and 64 KiB alignment, dma-buf export, copies byte for byte in GPUDirect and staged modes, the
# flush), checks lib/nvmf_cuda_api.h against the machine's cuda.h when it has one, runs the
# same unit test against the stand-in driver for comparison, measures what each GPU buffer
# mode costs the host per I/O on the real driver (tests/gpu/mode_cost.c: GPUDirect in
# benchmark and data mode, staged), and prints a summary.  Where the machine can also reach a
# target (NVMEOF_TRADDR, NVMEOF_SUBNQN, NVMEOF_NSID set, fio and an RDMA device here, the
# engine built), it runs a short nvmeof-compare of the three memory modes: host, GPUDirect
# and staged, with --require-gpudirect, reads only.
#
# Exit: 0 all passed, 1 something failed, 77 no NVIDIA driver here (nothing to check).
# Bounded: every step under `timeout`; the whole script well under 10 minutes.
# Usage: tests/gpu/device-check.sh [OUTDIR]   (default build/gpu-check)
set -u
cd "$(dirname "$0")/../.." || exit 1
OUT=${1:-build/gpu-check}
STEP_TIMEOUT=${STEP_TIMEOUT:-240}
results=()
fails=0

say() { printf 'device-check: %s\n' "$*"; }
result() { # NAME STATUS DETAIL
	results+=("$(printf '%-44s %-5s %s' "$1" "$2" "$3")")
	[ "$2" = FAIL ] && fails=$((fails + 1))
	return 0
}

# ---- is there a driver at all? ----
libcuda=""
if command -v ldconfig >/dev/null 2>&1; then
	libcuda=$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 / {print $NF; exit}')
fi
if [ -z "$libcuda" ]; then
	for d in ${LD_LIBRARY_PATH:+${LD_LIBRARY_PATH//:/ }} /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib \
		 /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/aarch64-linux-gnu; do
		[ -e "$d/libcuda.so.1" ] && { libcuda="$d/libcuda.so.1"; break; }
	done
fi
if [ -z "$libcuda" ]; then
	say "SKIP: no NVIDIA driver here (no libcuda.so.1 in the linker cache or the usual" \
	    "directories): this check needs a machine with a GPU and its driver"
	exit 77
fi

CC=${CC:-}
if [ -z "$CC" ]; then
	for c in gcc cc clang; do command -v $c >/dev/null 2>&1 && { CC=$c; break; }; done
fi
if [ -z "$CC" ]; then
	say "FAIL: no C compiler (gcc, cc or clang) on this machine: it is the one thing needed"
	exit 1
fi

# ---- what the machine is ----
say "driver library: $libcuda"
say "kernel: $(uname -r)"
if command -v nvidia-smi >/dev/null 2>&1; then
	timeout 30 nvidia-smi -L 2>&1 | sed 's/^/device-check:   /'
	timeout 30 nvidia-smi --query-gpu=driver_version,pci.bus_id --format=csv,noheader 2>&1 |
		sed 's/^/device-check:   driver, PCI: /'
fi
if [ -r /proc/driver/nvidia/version ]; then
	head -1 /proc/driver/nvidia/version | sed 's/^/device-check:   /'
	grep -qi "open kernel module" /proc/driver/nvidia/version &&
		say "  open GPU kernel modules: yes (dma-buf export possible)" ||
		say "  open GPU kernel modules: not reported (dma-buf export may be refused)"
fi
[ -d /sys/module/nvidia_peermem ] && say "  nvidia_peermem: loaded" || say "  nvidia_peermem: not loaded"
ls /sys/class/infiniband 2>/dev/null | sed 's/^/device-check:   RDMA device: /'

# ---- build: gcc and the repository only (no rdma-core, no fio) ----
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 1
FLAGS="-std=gnu11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Ilib -Itests/unit -Itests/cuda-standin"
LIBSRC="lib/nvmf_cuda.c lib/nvmf_mem.c lib/nvmf_err.c lib/nvmf_sysfs.c"
build() { # NAME OUTPUT ARGS...
	local name=$1 out=$2 log="$OUT/$1.build.log"
	shift 2
	if timeout "$STEP_TIMEOUT" "$CC" "$@" -o "$out" >"$log" 2>&1; then
		result "build $name" ok "$out"
		return 0
	fi
	result "build $name" FAIL "see $log: $(grep -m1 -i error "$log")"
	sed 's/^/    | /' "$log" | tail -20
	return 1
}
run() { # NAME LOG COMMAND...
	local name=$1 log=$2 rc
	shift 2
	timeout "$STEP_TIMEOUT" "$@" >"$log" 2>&1
	rc=$?
	sed 's/^/    | /' "$log"
	case $rc in
	0)   result "$name" ok "$(tail -1 "$log")";;
	77)  result "$name" SKIP "$(grep -m1 -i skip "$log")";;
	124) result "$name" FAIL "timed out after ${STEP_TIMEOUT}s";;
	*)   result "$name" FAIL "rc=$rc: $(grep -m1 -E 'CHECK|failed|error' "$log")";;
	esac
}

say "building with $CC ($($CC --version 2>/dev/null | head -1))"
have_test=0
build test_cuda "$OUT/test_cuda" $FLAGS -DNVMF_STANDIN_DIR="\"$OUT/cuda-standin\"" \
	tests/unit/test_cuda.c $LIBSRC -ldl -lpthread && have_test=1
have_cost=0
build mode_cost "$OUT/mode_cost" $FLAGS tests/gpu/mode_cost.c $LIBSRC -ldl -lpthread && have_cost=1
have_san=0
SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
if echo 'int main(void){return 0;}' | "$CC" $SAN -x c - -o "$OUT/san-probe" >/dev/null 2>&1; then
	build test_cuda-asan "$OUT/test_cuda-asan" $FLAGS $SAN -DNVMF_STANDIN_DIR='""' \
		tests/unit/test_cuda.c $LIBSRC -ldl -lpthread && have_san=1
fi
have_standin=0
mkdir -p "$OUT/cuda-standin/cuda10" "$OUT/cuda-standin/cuda11.2"
build standin "$OUT/cuda-standin/libcuda.so.1" $FLAGS -fPIC -shared -Wl,-soname,libcuda.so.1 \
	tests/cuda-standin/standin.c -lpthread &&
build standin-cuda10 "$OUT/cuda-standin/cuda10/libcuda.so.1" $FLAGS -fPIC -shared \
	-Wl,-soname,libcuda.so.1 -DNVMF_STANDIN_CUDA10 tests/cuda-standin/standin.c -lpthread &&
build standin-cuda11.2 "$OUT/cuda-standin/cuda11.2/libcuda.so.1" $FLAGS -fPIC -shared \
	-Wl,-soname,libcuda.so.1 -DNVMF_STANDIN_CUDA11_2 tests/cuda-standin/standin.c -lpthread &&
	have_standin=1

cuda_h=""
for d in ${CUDA_INC:-} /usr/local/cuda/include /usr/include /opt/cuda/include; do
	[ -n "$d" ] && [ -r "$d/cuda.h" ] && { cuda_h=$d; break; }
done
if [ -n "$cuda_h" ]; then
	build test_cuda_decls "$OUT/test_cuda_decls" $FLAGS -DHAVE_REAL_CUDA_H -isystem "$cuda_h" \
		tests/unit/test_cuda_decls.c && run "declarations vs $cuda_h/cuda.h" \
		"$OUT/test_cuda_decls.log" "$OUT/test_cuda_decls"
else
	result "declarations vs cuda.h" SKIP "no cuda.h on this machine (CUDA_INC=dir to name one)"
fi

# ---- run against the real driver ----
if [ $have_test = 1 ]; then
	say "test_cuda against the real driver:"
	run "real driver: test_cuda" "$OUT/test_cuda.real.log" \
		env NVMF_TEST_REAL_DRIVER=1 "$OUT/test_cuda"
fi
if [ $have_san = 1 ]; then
	say "test_cuda (ASan/UBSan) against the real driver:"
	# The driver itself is not built with ASan and keeps allocations for the process's life:
	# leak reports from inside it are not ours, so leak checking is off for this run.
	run "real driver: test_cuda asan" "$OUT/test_cuda.real-asan.log" \
		env NVMF_TEST_REAL_DRIVER=1 ASAN_OPTIONS=detect_leaks=0:protect_shadow_gap=0 \
		"$OUT/test_cuda-asan"
else
	result "real driver: test_cuda asan" SKIP "no sanitizer runtime for $CC here"
fi
if [ $have_test = 1 ] && [ $have_standin = 1 ]; then
	say "test_cuda against the stand-in (the same test, for comparison):"
	run "stand-in: test_cuda" "$OUT/test_cuda.standin.log" "$OUT/test_cuda"
fi
if [ $have_cost = 1 ]; then
	say "what each buffer mode costs the host per I/O, real driver (no RDMA: copies and flushes only):"
	run "real driver: mode costs" "$OUT/mode_cost.real.log" "$OUT/mode_cost"
	[ $have_standin = 1 ] && run "stand-in: mode costs" "$OUT/mode_cost.standin.log" \
		env LD_LIBRARY_PATH="$OUT/cuda-standin" "$OUT/mode_cost" 4000
fi

# ---- a short compare of the three memory modes against a real target, where one is reachable ----
if [ -n "${NVMEOF_TRADDR:-}" ] && [ -n "${NVMEOF_SUBNQN:-}" ] && [ -n "${NVMEOF_NSID:-}" ]; then
	if ! command -v fio >/dev/null 2>&1 || [ ! -e build/libfio_nvmeof.so ] ||
	   [ -z "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
		result "compare host / GPUDirect / staged" SKIP "needs fio, an RDMA device and make's engine here"
	else
		printf 'rw=randread bs=4k iodepth=32\nrw=read bs=128k iodepth=8\n' >"$OUT/modes.matrix"
		STEP_TIMEOUT=600 run "compare host / GPUDirect / staged" "$OUT/compare.log" \
			tools/nvmeof-compare --traddr "$NVMEOF_TRADDR" --subnqn "$NVMEOF_SUBNQN" \
			--nsid "$NVMEOF_NSID" --matrix "$OUT/modes.matrix" --runtime 10 --repeat 1 \
			--initiators engine-poll,engine-poll-gpu,engine-poll-staged \
			--cuda-device "${CUDA_DEVICE:-0}" --require-gpudirect --out "$OUT/compare"
	fi
else
	result "compare host / GPUDirect / staged" SKIP "no target named (NVMEOF_TRADDR, NVMEOF_SUBNQN, NVMEOF_NSID)"
fi

echo
say "summary:"
for r in "${results[@]}"; do printf '  %s\n' "$r"; done
if [ $fails -gt 0 ]; then
	say "$fails FAILED (logs under $OUT)"
	exit 1
fi
say "all passed"
exit 0
