#!/bin/bash
# Failure paths against the kernel target: wrong subnqn, absent namespace, nothing listening,
# unreachable address, missing/bad options, shapes the engine refuses, I/O past the end.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
exec "$REPO/tests/testbed/testbed.sh" --ns-mb 64 --cmd-timeout 600 --boot-timeout 700 \
	-- "$REPO/tests/integration/guest/engine_errors.sh"
