#!/bin/bash
# In-band authentication (DH-HMAC-CHAP) against SPDK's nvmf_tgt in the testbed: its subsystem
# $SPDK_AUTH_NQN admits two hosts with keys nvme gen-dhchap-key made (tests/testbed/bin/
# spdk-target). Uni- and bidirectional, each hash, three DH groups, RDMA and TCP, the secret file;
# a wrong key, no key and a wrong controller key each fail in one line with nothing moved; a
# restart of nvmf_tgt mid-job: the lane reconnects and authenticates again.
# Skipped (77) with the reason when no SPDK is built and no SPDK source is at hand.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
if ! where=$("$REPO/scripts/spdk.sh" --where 2>&1); then
	echo "SKIP: ${where#spdk: } (no SPDK source here: SPDK_TARBALL= or SPDK_DIR=, or ../shared/spdk-sources)"
	exit 77
fi
exec "$REPO/tests/testbed/testbed.sh" --spdk --ns-mb 32 --mem 3072 --cmd-timeout 600 \
	--boot-timeout 800 -- "$REPO/tests/integration/guest/engine_auth.sh"
