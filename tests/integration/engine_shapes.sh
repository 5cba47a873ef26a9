#!/bin/bash
# The engine against a file-backed target whose port offers no in-capsule data.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
exec "$REPO/tests/testbed/testbed.sh" --backing file --inline-data-size 0 --ns-mb 64 \
	--cmd-timeout 600 --boot-timeout 700 -- "$REPO/tests/integration/guest/engine_shapes.sh"
