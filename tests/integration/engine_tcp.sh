#!/bin/bash
# The engine over NVMe/TCP against the kernel target's TCP port in the testbed: fio verify over
# block sizes, queue depths, lanes, digests, in-capsule vs R2T writes, completion modes, GPU
# stand-in buffers (staged), faults and a reconnect, discovery over TCP, multipath over two TCP
# ports with failover.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
exec "$REPO/tests/testbed/testbed.sh" --ns-mb 256 --mem 3072 --cmd-timeout 1200 --boot-timeout 1300 \
	-- "$REPO/tests/integration/guest/engine_tcp.sh"
