#!/bin/bash
# fio's client/server mode with the engine: two fio servers on the guest's loopback, one
# client with --output-format=json; fio's own lines vs the engine's, per-host and combined
# results read by tools/nvmeof/clientserver.py (see guest/engine_clientserver.sh).
REPO=$(cd "$(dirname "$0")/../.." && pwd)
exec "$REPO/tests/testbed/testbed.sh" --ns-mb 64 --cmd-timeout 400 --boot-timeout 480 \
	-- "$REPO/tests/integration/guest/engine_clientserver.sh"
