#!/bin/bash
# The engine's data path against the kernel NVMe/RDMA target in the testbed: fio verify over
# directions, verify kinds, block sizes (512 B..4 MiB, past MDTS), queue depths, lanes in
# process and thread mode, both LBA sizes, in-capsule on/off and auto's choice by iodepth, trim,
# flush, SPDK-style names.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
exec "$REPO/tests/testbed/testbed.sh" --ns-mb 256 --mem 3072 --cmd-timeout 1500 --boot-timeout 1600 \
	-- "$REPO/tests/integration/guest/engine_verify.sh"
