#!/bin/bash
# Guest half of tools_compare_interrupt.sh (testbed booted without --connect).
. "$(dirname "$0")/lib.sh"
T="$REPO/tools/nvmeof-compare"
TGT=(--traddr "$TARGET_IP" --trsvcid "$TARGET_PORT" --subnqn "$NQN" --nsid 1 --initiators kernel-libaio
	--quick --repeat 1 --no-prefill)
ctrls() {  # kernel controllers of $NQN
	local c n=0
	for c in /sys/class/nvme/nvme*; do
		[ -e "$c/subsysnqn" ] && [ "$(cat "$c/subsysnqn")" = "$NQN" ] && n=$((n + 1))
	done
	echo $n
}
[ "$(ctrls)" = 0 ] || { bad setup "a controller of $NQN exists before the test"; suite_end tools_compare_interrupt; }

for sig in INT TERM; do
	log=$WORK/$sig.log
	"$T" "${TGT[@]}" --runtime 120 --out "$WORK/$sig" > "$log" 2>&1 &
	pid=$!
	for _ in $(seq 600); do grep -q '\[1/2\]' "$log" && break; sleep 0.2; done
	sleep 3                                 # fio is in its I/O loop
	during=$(ctrls) fio_during=$(pgrep -c -x fio)
	kill -$sig $pid
	wait $pid
	rc=$?
	after=$(ctrls)
	sleep 1
	fio_after=$(pgrep -c -x fio)
	if [ "$during" != 1 ]; then bad "sig$sig" "$during controllers while running, expected 1"
	elif [ "$fio_during" = 0 ]; then bad "sig$sig" "no fio was running when the signal came"
	elif [ $rc != 130 ]; then bad "sig$sig" "exit $rc, not 130"
	elif [ "$after" != 0 ]; then bad "sig$sig" "$after controller(s) of $NQN left connected"
	elif [ "$fio_after" != 0 ]; then bad "sig$sig" "$fio_after fio process(es) left"
	elif ! grep -q "interrupted (SIG$sig)" "$log" || ! grep -qE 'nvme disconnect -d nvme[0-9]+: ok' "$log"; then
		bad "sig$sig" "no interrupted/disconnect lines"
	else ok "sig$sig: exit 130, controller disconnected, fio stopped"; continue; fi
	sed 's/^/    | /' "$log" | tail -20
done

# a controller connected before the tool ran stays connected
timeout 120 nvme connect -t rdma -a "$TARGET_IP" -s "$TARGET_PORT" -n "$NQN" >/dev/null 2>&1
for _ in $(seq 100); do [ "$(ctrls)" = 1 ] && [ -n "$(ls /sys/class/nvme/nvme*/nvme*n1 2>/dev/null)" ] && break; sleep 0.2; done
"$T" "${TGT[@]}" --runtime 1 --out "$WORK/pre" > "$WORK/pre.log" 2>&1
rc=$?
if [ $rc = 0 ] && [ "$(ctrls)" = 1 ] && grep -q 'already connected' "$WORK/pre.log"; then
	ok "preconnected: used and left connected"
else
	bad "preconnected" "exit $rc, $(ctrls) controller(s) after"; sed 's/^/    | /' "$WORK/pre.log" | tail -20
fi
nvme disconnect -n "$NQN" >/dev/null 2>&1
suite_end tools_compare_interrupt
