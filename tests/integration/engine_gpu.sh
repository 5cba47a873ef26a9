#!/bin/bash
# nvmeof_mem=cuda in the testbed, against the kernel target, with the stand-in CUDA driver
# (build/cuda-standin/libcuda.so.1 over host memory: the engine's logic and the target's RDMA
# into driver-allocated memory, not GPUDirect itself): verify in GPUDirect and staged modes,
# the flush before device->host copies, no copies in benchmark mode, registration fallback,
# several devices, a negative control, and every CUDA failure path.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
exec "$REPO/tests/testbed/testbed.sh" --ns-mb 128 --mem 3072 --cmd-timeout 1200 --boot-timeout 1300 \
	-- "$REPO/tests/integration/guest/engine_gpu.sh"
