#!/bin/bash
# Several I/O queues per lane (io_queues): verified data over 4 queues in every completion
# mode, split I/Os, auto sized by the job's CPUs, which queue an I/O goes to (io_queue_pick: least
# busy, or the queues of the CPU the job runs on), a controller granting fewer, the lane lost
# and reconnected with all its queues.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
exec "$REPO/tests/testbed/testbed.sh" --ns-mb 64 --cmd-timeout 600 --boot-timeout 700 \
	-- "$REPO/tests/integration/guest/engine_queues.sh"
