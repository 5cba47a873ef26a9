#!/bin/bash
# The shipped job files, run as users run them (from the repository root, TRADDR/SUBNQN set).
. "$(dirname "$0")/lib.sh"
cd "$REPO" || exit 1
export TRADDR=$TARGET_IP SUBNQN=$NQN
# quickstart: a 64 MiB fill, then randread QD32 with every block crc32c-verified
run_fio quickstart rw jobs/quickstart.fio
# spdk-compatible names the testbed's address and subsystem in its transport ID
run_fio spdk-compatible r jobs/spdk-compatible.fio
suite_end jobs_run
