#!/bin/bash
# The engine against a second, independent NVMe-oF target: SPDK's nvmf_tgt (make spdk) in the
# testbed beside the kernel target, with fio's verify on every data job: the verify matrix, the
# options that change what goes on the wire, stand-in GPU memory, keep-alive across idle gaps,
# trim and flush, faults (SIGKILL, restart and reconnect, SIGINT), SPDK's own log checked for
# warnings the engine causes, and SPDK's fio plugin as a peer on both targets.
# Skipped (77) with the reason when no SPDK is built and no SPDK source is at hand.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
if ! where=$("$REPO/scripts/spdk.sh" --where 2>&1); then
	echo "SKIP: ${where#spdk: } (no SPDK source here: SPDK_TARBALL= or SPDK_DIR=, or ../shared/spdk-sources)"
	exit 77
fi
exec "$REPO/tests/testbed/testbed.sh" --spdk --ns-mb 256 --mem 4096 --cmd-timeout 1500 \
	--boot-timeout 1700 -- "$REPO/tests/integration/guest/spdk_interop.sh"
