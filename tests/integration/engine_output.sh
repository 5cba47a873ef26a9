#!/bin/bash
# fio's json/json+/terse output parses strictly with the engine loaded, in process and thread
# mode, to a file and to stdout; the engine's lines go to stderr.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
exec "$REPO/tests/testbed/testbed.sh" --ns-mb 64 --cmd-timeout 600 --boot-timeout 700 \
	-- "$REPO/tests/integration/guest/engine_output.sh"
