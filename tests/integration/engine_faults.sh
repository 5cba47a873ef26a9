#!/bin/bash
# Faults in the testbed: keep-alive across idle time and its loss, a target that stops
# answering (io_timeout), the target disappearing four ways mid-run, fio's error counters.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
exec "$REPO/tests/testbed/testbed.sh" --ns-mb 64 --cmd-timeout 900 --boot-timeout 1000 \
	-- "$REPO/tests/integration/guest/engine_faults.sh"
