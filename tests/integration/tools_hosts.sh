#!/bin/bash
# --hosts (fio client/server mode) of tools/nvmeof-compare and tools/nvmeof-qualify (the
# refusals of --hosts are in tools_compare_cli.sh and tools_qualify.sh): one testbed boot
# (guest/tools_hosts.sh): two fio servers on the guest's loopback, both tools run there
# against the kernel target as the client of both.  Exit 0 pass, 1 fail, 77 skip.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
W=$(mktemp -d /tmp/tools_hosts.XXXXXX)
trap '[ $fail = 0 ] && rm -rf "$W"' EXIT
pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "PASS $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }
[ -f "$REPO/build/libfio_nvmeof.so" ] || { echo "SKIP: build/libfio_nvmeof.so not built"; exit 77; }
command -v fio >/dev/null || { echo "SKIP: fio not installed"; exit 77; }

t0=$(date +%s)
"$REPO/tests/testbed/testbed.sh" --ns-mb 64 --cmd-timeout 600 --boot-timeout 720 --out "$W/tb" \
	-- "$REPO/tests/integration/guest/tools_hosts.sh"
rc=$?
if [ $rc = 0 ]; then ok "testbed: guest/tools_hosts.sh ($(($(date +%s) - t0)) s)"
else bad "testbed: guest/tools_hosts.sh" "exit $rc ($(($(date +%s) - t0)) s; outputs kept in $W/tb)"; fi
echo "tools_hosts: $pass passed, $fail failed"
[ $fail = 0 ]
