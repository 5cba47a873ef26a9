#!/bin/bash
# Ctrl-C, SIGTERM, runtime and --timeout stop the engine's jobs even when the target stops
# answering (namespace on a suspended device-mapper device), and no job process outlives fio.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
exec "$REPO/tests/testbed/testbed.sh" --ns-mb 64 --cmd-timeout 600 --boot-timeout 700 \
	-- "$REPO/tests/integration/guest/engine_stop.sh"
