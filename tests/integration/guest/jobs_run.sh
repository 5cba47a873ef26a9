#!/bin/bash
# The shipped job files, run as users run them (from the repository root, TRADDR/SUBNQN set).
. "$(dirname "$0")/lib.sh"
cd "$REPO" || exit 1
export TRADDR=$TARGET_IP SUBNQN=$NQN
# quickstart: a 64 MiB fill, then randread QD32 with every block crc32c-verified
run_fio quickstart rw jobs/quickstart.fio
# spdk-compatible names the testbed's address and subsystem in its transport ID
run_fio spdk-compatible r jobs/spdk-compatible.fio
# gpu-cuda.fio through the stand-in CUDA driver (tests/cuda-standin: host memory behind the
# driver API), its sizes shrunk to the testbed's namespace: the file as shipped, otherwise
sed -e 's/^size=.*/size=16m/' -e 's/^offset_increment=.*/offset_increment=16m/' \
	-e 's/^runtime=.*/runtime=3/' jobs/gpu-cuda.fio >"$WORK/gpu-cuda.fio"
LD_LIBRARY_PATH=$REPO/build/cuda-standin run_fio gpu-cuda rw "$WORK/gpu-cuda.fio"
n=$(grep -c 'buffers: CUDA device 0 .*GPUDirect via peermem' "$WORK/gpu-cuda.log")
[ "$n" -ge 4 ] && ok "gpu-cuda: $n lanes said GPUDirect via peermem on CUDA device 0" ||
	bad gpu-cuda "$n start lines say GPUDirect via peermem (want 4 or more)"
suite_end jobs_run
