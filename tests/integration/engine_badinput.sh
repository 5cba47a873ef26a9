#!/bin/bash
# Bad input from the user: a table of wrong job files and option values against the kernel
# target, each one clear line and a non-zero exit, and nothing written to the target.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
exec "$REPO/tests/testbed/testbed.sh" --ns-mb 64 --cmd-timeout 600 --boot-timeout 700 \
	-- "$REPO/tests/integration/guest/engine_badinput.sh"
