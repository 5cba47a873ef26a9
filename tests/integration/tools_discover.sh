#!/bin/bash
# tools/nvmeof-discover against a real discovery service (its arguments are checked on the host
# by tools_discover_cli.sh): one testbed boot (guest/tools_discover.sh): the kernel target's
# discovery log on two and three ports, a referral, nvme-cli's view of the same log, and an
# address with no target.  Exit 0 pass, 1 fail, 77 skip.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
W=$(mktemp -d /tmp/tools_discover.XXXXXX)
pass=0 fail=0
trap '[ $fail = 0 ] && rm -rf "$W"' EXIT
ok()  { pass=$((pass + 1)); echo "PASS $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }
[ -x "$REPO/build/nvmeof-discover" ] || { echo "SKIP: build/nvmeof-discover not built"; exit 77; }

t0=$(date +%s)
"$REPO/tests/testbed/testbed.sh" --ns-mb 16 --cmd-timeout 600 --boot-timeout 720 --out "$W/tb" \
	-- "$REPO/tests/integration/guest/tools_discover.sh"
rc=$?
if [ $rc = 0 ]; then ok "testbed: guest/tools_discover.sh ($(($(date +%s) - t0)) s)"
else bad "testbed: guest/tools_discover.sh" "exit $rc ($(($(date +%s) - t0)) s; outputs kept in $W/tb)"; fi
echo "tools_discover: $pass passed, $fail failed"
[ $fail = 0 ]
