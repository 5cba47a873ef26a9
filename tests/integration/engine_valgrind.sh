#!/bin/bash
# The engine under valgrind memcheck against the kernel target (see the guest script).
REPO=$(cd "$(dirname "$0")/../.." && pwd)
command -v valgrind >/dev/null || { echo "engine_valgrind: valgrind is missing: run 'make deps'"; exit 1; }
exec "$REPO/tests/testbed/testbed.sh" --ns-mb 64 --cmd-timeout 1500 --boot-timeout 1600 \
	-- "$REPO/tests/integration/guest/engine_valgrind.sh"
