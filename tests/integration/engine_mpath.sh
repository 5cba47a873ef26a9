#!/bin/bash
# Multipath against the kernel NVMe/RDMA target: one subsystem on two ports, each policy with
# fio's verify; ANA flipped to inaccessible on the active path mid-run and back; the active
# port removed mid-run and returned; both ports removed (the job ends with one line).
REPO=$(cd "$(dirname "$0")/../.." && pwd)
exec "$REPO/tests/testbed/testbed.sh" --ns-mb 64 --cmd-timeout 900 --boot-timeout 1000 \
	-- "$REPO/tests/integration/guest/engine_mpath.sh"
