#!/bin/bash
# tools/nvmeof-discover's argument handling, on the host (no fabric: nothing is discovered
# here; guest/tools_discover.sh does that in the testbed).  Each bad argument must exit 2 with
# one line on stderr naming it and nothing on stdout; a failure to reach the target exits 1
# with one line.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
T=$REPO/tools/nvmeof-discover
pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "PASS $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }
[ -x "$REPO/build/nvmeof-discover" ] || { echo "SKIP: build/nvmeof-discover is not built (make)"; exit 77; }
W=$(mktemp -d /tmp/discover-cli.XXXXXX)
trap 'rm -rf "$W"' EXIT

# expect NAME RC REGEX ARGS...: exit RC, empty stdout, exactly one stderr line matching REGEX
expect() {
	local name=$1 want=$2 re=$3 rc
	shift 3
	"$T" "$@" >"$W/out" 2>"$W/err"
	rc=$?
	if [ $rc != "$want" ]; then bad "$name" "exit $rc, not $want: $(cat "$W/err")"
	elif [ -s "$W/out" ]; then bad "$name" "wrote to stdout: $(head -2 "$W/out")"
	elif [ "$(wc -l <"$W/err")" != 1 ]; then bad "$name" "not one line: $(cat "$W/err")"
	elif ! grep -qE "$re" "$W/err"; then bad "$name" "no /$re/ in: $(cat "$W/err")"
	else ok "$name: $(cat "$W/err")"; fi
}

expect no-address 2 '^nvmeof-discover: ADDR\[:PORT\] is required'
expect two-addresses 2 "^nvmeof-discover: 10.0.0.2: one ADDR" 10.0.0.1 10.0.0.2
expect unknown-option 2 '^nvmeof-discover: --hdr-digest: unknown option' --hdr-digest 10.0.0.1
expect bad-transport 2 '^nvmeof-discover: --transport=fc: not rdma or tcp' --transport=fc 10.0.0.1
expect transport-no-value 2 '^nvmeof-discover: --transport needs a value' 10.0.0.1 --transport
expect bad-format 2 '^nvmeof-discover: --output-format=xml: not normal or json' --output-format=xml 10.0.0.1
expect format-no-value 2 '^nvmeof-discover: --output-format needs a value' 10.0.0.1 --output-format
expect port-zero 2 "'10.0.0.1:0': PORT is not 1..65535" 10.0.0.1:0
expect port-text 2 "'10.0.0.1:disc': PORT is not 1..65535" 10.0.0.1:disc
expect port-empty 2 "'10.0.0.1:': PORT is not 1..65535" 10.0.0.1:
expect port-big 2 "'10.0.0.1:65536': PORT is not 1..65535" 10.0.0.1:65536
expect v6-unclosed 2 "'\[fe80::1': not ADDR, ADDR:PORT or \[IPv6\]:PORT" '[fe80::1'
expect v6-junk 2 "'\[fe80::1\]x': not ADDR" '[fe80::1]x'
expect empty-address 2 "'': not ADDR" ''
expect hostnqn-empty 2 "^nvmeof-discover: --hostnqn='': not 1..223 characters" --hostnqn= 10.0.0.1
expect hostnqn-long 2 "not 1..223 characters" --hostnqn="nqn.2014-08.org.example:$(printf 'x%.0s' {1..210})" 10.0.0.1
expect host-traddr-empty 2 '^nvmeof-discover: --host-traddr: empty' --host-traddr= 10.0.0.1
# options go anywhere, as nvme-cli's do: one after the address is read as an option
expect option-after-address 2 "^nvmeof-discover: --output-format=xml: not normal or json" 10.0.0.1 --output-format=xml
expect option-after-address-ok 1 "^nvmeof-discover: discovery at no-such-host\.invalid:8009: " no-such-host.invalid --output-format=json
# what cannot be reached: exit 1, one line naming the address (no fabric is needed to fail)
expect unresolvable 1 "^nvmeof-discover: discovery at no-such-host\.invalid:8009: traddr 'no-such-host\.invalid'" \
	no-such-host.invalid
expect unresolvable-port 1 "^nvmeof-discover: discovery at no-such-host\.invalid:4420: " --output-format=json \
	no-such-host.invalid:4420
expect unresolvable-tcp 1 "^nvmeof-discover: discovery at no-such-host\.invalid:8009: traddr 'no-such-host\.invalid'" \
	--transport=tcp no-such-host.invalid
# nothing listens on 127.0.0.1:9 (discard): the TCP connection is refused, named
expect refused-tcp 1 "^nvmeof-discover: discovery at 127\.0\.0\.1:9: NVMe/TCP connection to 127\.0\.0\.1:9: connect: " \
	--transport tcp 127.0.0.1:9
expect unresolvable-v6-port 1 "^nvmeof-discover: discovery at no-such-host\.invalid:4421: " '[no-such-host.invalid]:4421'

out=$("$T" --help 2>&1); rc=$?
if [ $rc = 0 ] && printf '%s\n' "$out" | grep -q '^usage: nvmeof-discover ADDR\[:PORT\]'; then ok "help"
else bad help "exit $rc: $out"; fi

# the wrapper names the missing build instead of failing obscurely
mkdir -p "$W/clone/tools"
cp "$T" "$W/clone/tools/"
out=$("$W/clone/tools/nvmeof-discover" 10.0.0.1 2>&1); rc=$?
if [ $rc = 1 ] && printf '%s\n' "$out" | grep -q 'build/nvmeof-discover is not built: run make'; then ok "wrapper-unbuilt"
else bad wrapper-unbuilt "exit $rc: $out"; fi

echo "tools_discover_cli: $pass passed, $fail failed"
[ $fail = 0 ]
