#!/bin/bash
# testbed_selfcheck.sh - check the testbed harness itself (tests/testbed/testbed.sh):
#   1. argv (spaces, quotes, empty, glob), cwd, exported environment (the TCP port listening),
#      --connect with --backing file and --inline-data-size 0 (LBA sizes 4096/512, sizes,
#      INLINE_DATA_SIZE=0), TESTBED_OUT written back to the host (--out), and the command's exit code (7) returned
#   2. --cmd-timeout: a command that sleeps past it returns 124
#   3. a target setup failure (TESTBED_FAULT=setup) returns 126 and names the step
#   4. a boot that cannot finish within --boot-timeout returns 125 "guest never booted"
#   5. a usage error returns 2 without booting
#   6. SIGTERM during boot: exit 143 and no qemu left behind
#   7. a kernel panic while booting: booted again up to TESTBED_BOOT_TRIES, then 125
# Four short boots (~20 s each here).  Exit 0 PASS, 1 FAIL.
set -uo pipefail
SELF=$(readlink -f "$0")
REPO=$(cd "$(dirname "$SELF")/../.." && pwd)
TESTBED=$REPO/tests/testbed/testbed.sh

# ------------------------------------------------------------------ inside the guest (check 1)
if [ "${1:-}" = --in-guest ]; then
	shift
	bad=0
	expect() {  # expect WHAT GOT WANT
		if [ "$2" = "$3" ]; then echo "  ok   $1 = '$2'"; else echo "  BAD  $1 = '$2', want '$3'"; bad=1; fi
	}
	want_pwd=$1; shift
	expect argc "$#" 4
	expect 'argv[1]' "${1-}" 'a b'
	expect 'argv[2]' "${2-}" "it's \$HOME \"q\""
	expect 'argv[3]' "${3-}" ''
	expect 'argv[4]' "${4-}" '*'
	expect cwd "$PWD" "$want_pwd"
	expect NQN "$NQN" nqn.2026-12.io.fio-nvmeof:testbed
	expect NQN2 "$NQN2" nqn.2026-12.io.fio-nvmeof:testbed2
	expect TARGET "$TARGET_IP:$TARGET_PORT" 10.99.0.1:4420
	expect TARGET_TCP_PORT "${TARGET_TCP_PORT:-} $(grep -c "$(printf ':%04X 00000000:0000 0A' "${TARGET_TCP_PORT:-0}")" /proc/net/tcp)" "4420 1"
	expect NS "$NS_4K/$NS_512/$NS_MB" 1/2/64
	expect INLINE_DATA_SIZE "$INLINE_DATA_SIZE" 0
	expect TESTBED_BACKING "$TESTBED_BACKING" file
	expect RDMA_DEV "$(cat "/sys/class/infiniband/$RDMA_DEV/ports/1/state" 2>/dev/null)" "4: ACTIVE"
	expect RDMA_DEV2 "$RDMA_DEV2 $(cat "/sys/class/infiniband/$RDMA_DEV2/ports/1/state" 2>/dev/null)" "rxe1 4: ACTIVE"
	expect TARGET_IP2 "$TARGET_IP2 $(cat "/sys/class/net/$TESTBED_NETDEV2/operstate" 2>/dev/null)" "10.99.1.1 unknown"
	expect 'ns1 LBA' "$(cat "/sys/block/${NVME_DEV#/dev/}/queue/logical_block_size")" 4096
	expect 'ns2 LBA' "$(cat "/sys/block/${NVME_DEV_512#/dev/}/queue/logical_block_size")" 512
	expect 'ns2 bytes' "$(blockdev --getsize64 "$NVME_DEV_512")" $((64 << 20))
	testbed-target-status > /dev/null
	expect testbed-target-status $? 0
	echo "written in the guest" > "$TESTBED_OUT/from-guest"
	[ $bad = 0 ] || exit 1
	exit 7            # the harness must hand this back unchanged
fi

# ------------------------------------------------------------------ on the host
RUNS=$(mkdir -p "$REPO/build/testbed" && mktemp -d "$REPO/build/testbed/selfcheck.XXXXXX") || exit 1
export TESTBED_RUNS=$RUNS
fails=0
start=$(date +%s)

section() { echo "== $* [t=$(($(date +%s) - start))s]"; }
check() {  # check NAME CONDITION...
	local name=$1; shift
	if "$@"; then echo "ok    $name"; else echo "FAIL  $name"; fails=$((fails + 1)); fi
}
has() { grep -qF -- "$2" "$1" || { echo "      (no line '$2' in $1:)"; tail -n 8 "$1" | sed 's/^/      | /'; return 1; }; }
no_qemu_left() {
	local p
	for p in $(pgrep qemu-system 2>/dev/null); do
		grep -qF "$RUNS" "/proc/$p/cmdline" 2>/dev/null && { echo "      qemu $p still running"; return 1; }
	done
	return 0
}
tb() {  # tb LOG ARGS...: run the testbed, output to LOG, return its exit code
	local log=$1; shift
	"$TESTBED" "$@" > "$log" 2>&1
}

section "1. argv, cwd, environment, --connect --backing file --inline-data-size 0, exit code 7"
out=$RUNS/out1
(cd "$REPO/tests" && tb "$RUNS/1.log" --connect --backing file --inline-data-size 0 --ns-mb 64 --out "$out" \
	-- "$SELF" --in-guest "$REPO/tests" 'a b' "it's \$HOME \"q\"" '' '*')
rc=$?
grep -E '^  (ok|BAD) ' "$RUNS/1.log"
check "1: exit code 7 passed through (got $rc)" [ $rc = 7 ]
check "1: message 'command failed rc=7'" has "$RUNS/1.log" "testbed: command failed rc=7"
check "1: TESTBED_OUT written back to the host" grep -q "written in the guest" "$out/from-guest"
check "1: no qemu left" no_qemu_left

section "2. --cmd-timeout 5 with 'sleep 600'"
tb "$RUNS/2.log" --cmd-timeout 5 -- sleep 600
rc=$?
check "2: exit code 124 (got $rc)" [ $rc = 124 ]
check "2: message 'command timed out after 5 s'" has "$RUNS/2.log" "testbed: command timed out after 5 s"
check "2: no qemu left" no_qemu_left

section "3. injected target setup failure"
TESTBED_FAULT=setup tb "$RUNS/3.log" -- true
rc=$?
check "3: exit code 126 (got $rc)" [ $rc = 126 ]
check "3: message names the failed step" has "$RUNS/3.log" "testbed: target setup failed: injected fault"
check "3: no qemu left" no_qemu_left

section "4. --boot-timeout 3 (too short to boot)"
tb "$RUNS/4.log" --boot-timeout 3 -- true
rc=$?
check "4: exit code 125 (got $rc)" [ $rc = 125 ]
check "4: message 'guest never booted'" has "$RUNS/4.log" "testbed: guest never booted"
check "4: no qemu left" no_qemu_left

section "5. usage error"
tb "$RUNS/5.log" --backing bogus -- true
rc=$?
check "5: exit code 2 (got $rc)" [ $rc = 2 ]

section "6. SIGTERM while the guest boots"
"$TESTBED" -- sleep 600 > "$RUNS/6.log" 2>&1 &
tbpid=$!
for _ in $(seq 600); do grep -q 'testbed-initramfs: up' "$RUNS/6.log" && break; sleep 0.2; done
kill -TERM "$tbpid"
wait "$tbpid"
rc=$?
check "6: exit code 143 (got $rc)" [ $rc = 143 ]
check "6: no qemu left" no_qemu_left

section "7. a guest kernel that panics while booting is booted again (TESTBED_FAULT=boot-panic)"
TESTBED_FAULT=boot-panic TESTBED_BOOT_TRIES=2 tb "$RUNS/7.log" -- true
rc=$?
check "7: exit code 125 (got $rc)" [ $rc = 125 ]
check "7: the second boot said, with the first one's log" \
	grep -qE 'booting again \(try 2 of 2; .*/console\.boot1\.log\)' "$RUNS/7.log"
check "7: no third boot" [ "$(grep -c 'booting again' "$RUNS/7.log")" = 1 ]
check "7: message 'guest never booted'" has "$RUNS/7.log" "testbed: guest never booted"
check "7: no qemu left" no_qemu_left

secs=$(($(date +%s) - start))
if [ $fails = 0 ]; then
	rm -rf "$RUNS"
	echo "PASS: testbed_selfcheck (${secs}s)"
	exit 0
fi
echo "FAIL: testbed_selfcheck: $fails check(s) failed (${secs}s); logs and run directories in $RUNS"
exit 1
