#!/bin/bash
# jobs/quickstart.fio and jobs/spdk-compatible.fio through the engine against the kernel target.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
exec "$REPO/tests/testbed/testbed.sh" --ns-mb 128 --cmd-timeout 600 --boot-timeout 700 \
	-- "$REPO/tests/integration/guest/jobs_run.sh"
