#!/bin/bash
# tools/nvmeof-compare against a "real" target (the testbed's, by address, no --connect): the
# kernel initiator's controller it connected is gone after SIGINT and after SIGTERM in the
# middle of a run (fio stopped too), and a controller that was connected before it ran is
# left connected.  See tests/integration/guest/tools_compare_interrupt.sh.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
exec "$REPO/tests/testbed/testbed.sh" --ns-mb 64 --cmd-timeout 400 --boot-timeout 500 \
	-- "$REPO/tests/integration/guest/tools_compare_interrupt.sh"
