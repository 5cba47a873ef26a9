#!/bin/bash
# In-band authentication (DH-HMAC-CHAP) against the Linux kernel target (nvmet), which needs a
# kernel built with CONFIG_NVME_TARGET_AUTH: Debian 12's 6.1 is not, Debian 13's is, so the
# guest boots Debian 13's kernel (--kernel-suite; NVMET_AUTH_SUITE picks another suite).
# Uni- and bidirectional, each hash, the null group and FFDHE groups, RDMA and TCP; wrong key,
# no key, wrong controller key; the port taken away mid-job: the lane authenticates again.
# Skipped (77) with the reason when that kernel cannot be had (no mirror, no cached copy).
REPO=$(cd "$(dirname "$0")/../.." && pwd)
suite=${NVMET_AUTH_SUITE:-trixie}
"$REPO/tests/testbed/testbed.sh" --kernel-suite "$suite" --ns-mb 32 --cmd-timeout 600 \
	--boot-timeout 800 -- "$REPO/tests/integration/guest/nvmet_auth.sh"
rc=$?
if [ $rc = 123 ]; then
	echo "SKIP: the testbed could not have a guest kernel from Debian $suite (its line above says why)"
	exit 77
fi
exit $rc
