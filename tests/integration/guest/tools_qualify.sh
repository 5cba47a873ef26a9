#!/bin/bash
# tools/nvmeof-qualify inside the testbed (run by tests/integration/tools_qualify.sh, booted
# with --backing file): the kernel initiator with one gate set to fail and interrupted by
# SIGTERM; stop-loss on a verify failure and on an error.
. "$(dirname "$0")/lib.sh"
Q=$REPO/tools/nvmeof-qualify
CHECK="python3 $REPO/tests/integration/tools_qualify_check.py"
T="--traddr $TARGET_IP --trsvcid $TARGET_PORT --subnqn $NQN --destructive --size 8M --round-time 1 --runtime 1"
field() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@" 2>&1; }

# 1. the kernel initiator (the tool connects and disconnects with nvme-cli), one gate set to fail
cat >"$WORK/fail.gates" <<'G'
iops randread qd32 >= 1
iops randread qd32 >= 1000000000    # fails on purpose
p99_lat_us randread qd1 <= 60000000
G
"$Q" $T --initiator kernel --precondition none --workloads randread,lat --rounds-max 5 \
	--gates "$WORK/fail.gates" --out "$TESTBED_OUT/fail" >"$WORK/fail.out" 2>&1; rc=$?
res=$(field "$TESTBED_OUT/fail/report.json" '" ".join(g["result"] for g in r["gates"])')
left=$(grep -l "^$NQN\$" /sys/class/nvme/nvme*/subsysnqn 2>/dev/null)
if [ $rc != 1 ]; then
	bad "kernel initiator, failing gate" "exit $rc, want 1"; sed 's/^/    | /' "$WORK/fail.out" | tail -20
elif ! grep -q '^qualify: FAIL iops randread qd32 >= 1000000000 (.*fail.gates:2): measured' "$WORK/fail.out" ||
     ! grep -q '^qualify: FAIL (failed: iops randread qd32 >= 1000000000)' "$WORK/fail.out"; then
	bad "kernel initiator, failing gate" "stdout does not name the failing gate"; sed 's/^/    | /' "$WORK/fail.out" | tail -20
elif [ "$res" != "PASS FAIL PASS PASS PASS" ]; then
	bad "kernel initiator, failing gate" "gate results $res, want PASS FAIL PASS PASS PASS"
elif ! grep -q '| `iops randread qd32 >= 1000000000` (.*) | >= 1000000000 | .* | \*\*FAIL\*\* |' "$TESTBED_OUT/fail/report.md"; then
	bad "kernel initiator, failing gate" "report.md has no FAIL row for the gate"
elif ! why=$($CHECK report "$TESTBED_OUT/fail" FAIL 2>&1); then
	bad "kernel initiator, failing gate: report" "$why"
elif [ -n "$left" ]; then
	bad "kernel initiator, failing gate" "still connected afterwards: $left"
elif ! grep -q 'nvme disconnect -d nvme[0-9]*: ok' "$WORK/fail.out"; then
	bad "kernel initiator, failing gate" "no disconnect line"
else
	ok "kernel initiator (nvme connect/disconnect by the tool), one gate failing: exit 1, $(grep -m1 '^qualify: FAIL (failed' "$WORK/fail.out"); $why"
fi

# 1b. SIGTERM while the kernel initiator runs: fio stopped, the controller disconnected, exit 143
"$Q" $T --initiator kernel --precondition none --workloads randread --rounds-max 25 \
	--out "$TESTBED_OUT/term" >"$WORK/term.out" 2>&1 &
qpid=$!
for _ in $(seq 120); do grep -q 'round 1/25:' "$WORK/term.out" && break; sleep 0.5; done
kill -TERM $qpid
wait $qpid; rc=$?
left=$(grep -l "^$NQN\$" /sys/class/nvme/nvme*/subsysnqn 2>/dev/null)
fios=$(ps -eo pid=,args= | grep -c '[f]io --eta=never')
if [ $rc = 143 ] && [ -z "$left" ] && [ "$fios" = 0 ] && grep -q '^qualify: interrupted (signal 15)' "$WORK/term.out" &&
   grep -q 'nvme disconnect -d nvme[0-9]*: ok' "$WORK/term.out"; then
	ok "SIGTERM during the kernel initiator's run: exit 143, fio stopped, $(grep -m1 'nvme disconnect' "$WORK/term.out")"
else
	bad "SIGTERM during the kernel initiator's run" "exit $rc, connected: '$left', fio left: $fios"
	sed 's/^/    | /' "$WORK/term.out" | tail -10
fi

# 2. stop-loss on a verify failure: the namespace's backing file corrupted after the writes
"$Q" $T --workloads verify --precondition none --out "$TESTBED_OUT/verify" \
	--verify-pause-cmd "dd if=/dev/urandom of=/srv/testbed-ns/s1n1.img bs=4k count=2 seek=300 conv=notrunc status=none" \
	>"$WORK/verify.out" 2>&1; rc=$?
stop=$(field "$TESTBED_OUT/verify/report.json" 'r["verdict"], r["verify_failures"], (r["stopped"] or {}).get("run"), (r["stopped"] or {}).get("reason")')
if [ $rc = 1 ] && [[ $stop == "('FAIL', 1, 'verify-read', 'verify failure: "*"verify failed"* ]] &&
   grep -q '^qualify: stopped early at verify-read: verify failure' "$WORK/verify.out" &&
   grep -q '^qualify: FAIL verify_failures == 0 (implicit): measured 1' "$WORK/verify.out"; then
	ok "stop-loss, verify failure (engine): exit 1; $(grep -m1 '^qualify: stopped early' "$WORK/verify.out" | cut -c1-200)"
else
	bad "stop-loss, verify failure" "exit $rc; $stop"; sed 's/^/    | /' "$WORK/verify.out" | tail -20
fi

# 3. stop-loss on an error: a namespace the target does not have; nothing runs after the first run
"$Q" $T --nsid 9 --rounds-max 5 --out "$TESTBED_OUT/error" >"$WORK/error.out" 2>&1; rc=$?
stop=$(field "$TESTBED_OUT/error/report.json" 'r["verdict"], r["errors"], [x["name"] for x in r["runs"]], (r["stopped"] or {}).get("reason")')
if [ $rc = 1 ] && [[ $stop == "('FAIL', 1, ['precondition'], 'error: fio exited "*"namespace 9"* ]] &&
   grep -q '^qualify: FAIL errors == 0 (implicit): measured 1' "$WORK/error.out"; then
	ok "stop-loss, error (engine, nsid 9): exit 1 after one run; $(grep -m1 '^qualify: stopped early' "$WORK/error.out" | cut -c1-200)"
else
	bad "stop-loss, error" "exit $rc; $stop"; sed 's/^/    | /' "$WORK/error.out" | tail -20
fi
suite_end tools_qualify
