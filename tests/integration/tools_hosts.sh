#!/bin/bash
# --hosts (fio client/server mode) of tools/nvmeof-compare and tools/nvmeof-qualify: host-only
# refusals of nvmeof-qualify's --hosts (nvmeof-compare's are in tools_compare_cli.sh), then one
# testbed boot (guest/tools_hosts.sh): two fio servers on the guest's loopback, both tools run
# there against the kernel target as the client of both.  Exit 0 pass, 1 fail, 77 skip.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
Q=$REPO/tools/nvmeof-qualify
W=$(mktemp -d /tmp/tools_hosts.XXXXXX)
trap '[ $fail = 0 ] && rm -rf "$W"' EXIT
pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "PASS $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }
[ -f "$REPO/build/libfio_nvmeof.so" ] || { echo "SKIP: build/libfio_nvmeof.so not built"; exit 77; }
command -v fio >/dev/null || { echo "SKIP: fio not installed"; exit 77; }

# usage_case NAME REGEX ARGS...: exit 2, exactly one line on stderr matching REGEX, nothing run
usage_case() {
	local name=$1 re=$2 rc; shift 2
	rm -rf "$W/u"
	"$Q" "$@" --out "$W/u" >"$W/u.stdout" 2>"$W/u.stderr"; rc=$?
	if [ $rc != 2 ]; then bad "$name" "exit $rc, want 2: $(cat "$W/u.stderr" "$W/u.stdout" | head -3)"
	elif [ "$(wc -l <"$W/u.stderr")" != 1 ] || ! grep -qE "$re" "$W/u.stderr"; then
		bad "$name" "stderr is not one line matching /$re/: $(head -3 "$W/u.stderr")"
	elif [ -e "$W/u" ] || [ -s "$W/u.stdout" ]; then bad "$name" "something ran (out dir or output)"
	else ok "$name: $(cat "$W/u.stderr")"; fi
}
REAL="--traddr 192.0.2.1 --subnqn nqn.2016-06.io.spdk:cnode1 --destructive --size 1M"
usage_case "qualify --hosts, kernel initiator" '^nvmeof-qualify: --hosts is for --initiator engine' \
	$REAL --initiator kernel --hosts h1,h2
usage_case "qualify --hosts, testbed mode" '^nvmeof-qualify: --hosts needs a real target' --hosts h1,h2
usage_case "qualify --hosts, empty list" "^nvmeof-qualify: --hosts: no hosts in ','" $REAL --hosts ,
usage_case "qualify --hosts, same host twice" '^nvmeof-qualify: --hosts: host h1:8765 given twice' \
	$REAL --hosts h1,h1:8765
usage_case "qualify --hosts, too small a slice" '^nvmeof-qualify: --size 128k: less than 128 KiB per host' \
	$REAL --hosts h1,h2 --size 128k
usage_case "qualify --hosts, no --destructive" '^nvmeof-qualify: refusing to run' \
	--traddr 192.0.2.1 --subnqn nqn.x --hosts h1,h2

t0=$(date +%s)
"$REPO/tests/testbed/testbed.sh" --ns-mb 64 --cmd-timeout 600 --boot-timeout 720 --out "$W/tb" \
	-- "$REPO/tests/integration/guest/tools_hosts.sh"
rc=$?
if [ $rc = 0 ]; then ok "testbed: guest/tools_hosts.sh ($(($(date +%s) - t0)) s)"
else bad "testbed: guest/tools_hosts.sh" "exit $rc ($(($(date +%s) - t0)) s; outputs kept in $W/tb)"; fi
echo "tools_hosts: $pass passed, $fail failed"
[ $fail = 0 ]
