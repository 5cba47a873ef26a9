#!/bin/bash
# The testbed's NVMe/TCP listeners with the kernel initiator and SPDK's fio plugin, verify on
# every job (guest/testbed_tcp.sh): the kernel target's TCP port always, SPDK's TCP listener
# when SPDK is built.  Without SPDK the kernel target's checks still run and the suite ends 77
# (skipped) when they pass, naming why.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
spdk=--spdk
if ! where=$("$REPO/scripts/spdk.sh" --where 2>&1); then
	echo "SKIP (in part): ${where#spdk: } - SPDK's TCP listener and plugin are not checked"
	spdk=
fi
exec "$REPO/tests/testbed/testbed.sh" $spdk --ns-mb 64 --cmd-timeout 240 --boot-timeout 360 -- \
	"$REPO/tests/integration/guest/testbed_tcp.sh"
