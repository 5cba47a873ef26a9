#!/bin/bash
# tools/nvmeof-qualify inside the testbed (run by tests/integration/tools_qualify.sh, booted
# with --backing file): the kernel initiator with one gate set to fail and interrupted by
# SIGTERM; the kernel initiator's native multipath under the failover workload (port 1 removed
# by --fault-cmd, as the tool's testbed mode does for the engine); stop-loss on a verify failure
# and on an error; GPU memory through the stand-in driver (--mem cuda --cuda-lib): the data path
# and the mem/gpudirect gates, passing with GPUDirect via peermem and failing
# --require-gpudirect when dma-buf, the only registration allowed, is unavailable.
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

# 1c. failover, kernel initiator: the tool connects both ports (native multipath), the fault
# command removes port 1 5 s into a 12 s verified run (and stamps the time), the restore command
# re-creates it at 8 s; measured as the engine is (the longest completion gap from the fault on)
PORT2=$NVMET_CFG/ports/2
mkdir "$PORT2" && echo rdma >"$PORT2/addr_trtype" && echo ipv4 >"$PORT2/addr_adrfam" &&
	echo "$TARGET_IP" >"$PORT2/addr_traddr" && echo 4421 >"$PORT2/addr_trsvcid" &&
	ln -s "$NVMET_CFG/subsystems/$NQN" "$PORT2/subsystems/$NQN" || bad "failover, kernel: port 2" "configfs refused it"
cat >"$WORK/fault.sh" <<EOF
date +%s%3N >$WORK/fault.stamp
rm $NVMET_PORT/subsystems/$NQN $NVMET_PORT/subsystems/$NQN2 && rmdir $NVMET_PORT
EOF
cat >"$WORK/restore.sh" <<EOF
mkdir $NVMET_PORT && echo rdma >$NVMET_PORT/addr_trtype && echo ipv4 >$NVMET_PORT/addr_adrfam &&
	echo $TARGET_IP >$NVMET_PORT/addr_traddr && echo $TARGET_PORT >$NVMET_PORT/addr_trsvcid &&
	ln -s $NVMET_CFG/subsystems/$NQN $NVMET_PORT/subsystems/$NQN &&
	ln -s $NVMET_CFG/subsystems/$NQN2 $NVMET_PORT/subsystems/$NQN2
EOF
printf 'failover_ms <= 8000\n' >"$WORK/fo.gates"
sleep 1
"$Q" --traddr "$TARGET_IP:$TARGET_PORT,$TARGET_IP:4421" --subnqn "$NQN" --destructive --size 8M \
	--initiator kernel --precondition none --workloads failover --fault-at 5 --restore-at 8 --failover-runtime 12 \
	--fault-cmd "sh $WORK/fault.sh" --restore-cmd "sh $WORK/restore.sh" \
	--gates "$WORK/fo.gates" --out "$TESTBED_OUT/fo-kernel" >"$WORK/fo-kernel.out" 2>&1; rc=$?
left=$(grep -l "^$NQN\$" /sys/class/nvme/nvme*/subsysnqn 2>/dev/null)
[ -e "$NVMET_PORT" ] || port_on
if [ $rc != 0 ]; then
	bad "failover, kernel multipath" "exit $rc, want 0"; sed 's/^/    | /' "$WORK/fo-kernel.out" | tail -25
# the head is named by the kernel (nvme<subsystem>n<head instance>): n1 on 6.1, n2 was seen on
# 6.12 (issue 42); the tool finds it by nsid and subsysnqn, so any such name is right
elif ! grep -qE '^qualify: kernel initiator: /dev/nvme[0-9]+n[0-9]+ over 2 paths \(nvme[0-9]+ nvme[0-9]+\)' "$WORK/fo-kernel.out"; then
	bad "failover, kernel multipath" "no line saying the namespace has 2 paths"; sed 's/^/    | /' "$WORK/fo-kernel.out" | head -8
elif ! why=$($CHECK failover "$TESTBED_OUT/fo-kernel" "$WORK/fault.stamp" 2>&1); then
	bad "failover, kernel multipath: report" "$why"
elif [ -n "$left" ] || [ "$(grep -c 'nvme disconnect -d nvme[0-9]*: ok' "$WORK/fo-kernel.out")" != 2 ]; then
	bad "failover, kernel multipath" "not both controllers disconnected (left: $left)"
else
	ok "failover, kernel multipath (port 1 removed 5 s in, by --fault-cmd): exit 0; $why"
	echo "QUALIFY_FAILOVER kernel_failover_ms=$(field "$TESTBED_OUT/fo-kernel/report.json" 'r["workloads"]["failover"]["failover"]["failover_ms"]')"
fi
rm "$PORT2/subsystems/$NQN" && rmdir "$PORT2" || bad "failover, kernel: port 2" "could not remove it"

# 1d. failover, engine, the tool's own testbed fault --fault ana (what the tool's testbed mode
# runs in the guest: it adds port 4421 itself, makes port 1's ANA group inaccessible at 5 s and
# optimized at 8 s, and removes port 4421 at the end)
TESTBED_OUT=$TESTBED_OUT/fo-ana "$Q" --in-testbed --workloads failover --fault ana --precondition none --size 8M \
	--fault-at 5 --restore-at 8 --failover-runtime 12 --gates "$WORK/fo.gates" >"$WORK/fo-ana.out" 2>&1; rc=$?
if [ $rc != 0 ]; then
	bad "failover, engine, --fault ana" "exit $rc, want 0"; sed 's/^/    | /' "$WORK/fo-ana.out" | tail -20
elif ! grep -q "path $TARGET_IP:$TARGET_PORT: ANA group 1 now inaccessible\\|path $TARGET_IP:$TARGET_PORT leaves the I/O" "$TESTBED_OUT/fo-ana/fio/failover.log"; then
	bad "failover, engine, --fault ana" "the engine never saw the ANA change: $(grep -m3 nvmeof "$TESTBED_OUT/fo-ana/fio/failover.log" | tr '\n' ' ')"
elif ! why=$($CHECK failover "$TESTBED_OUT/fo-ana" 2>&1); then
	bad "failover, engine, --fault ana: report" "$why"
elif [ -e "$PORT2" ] || [ "$(cat "$NVMET_PORT/ana_groups/1/ana_state")" != optimized ]; then
	bad "failover, engine, --fault ana" "port 4421 left behind or port 1 not optimized again"
else
	ok "failover, engine, --fault ana (the tool's own): exit 0; $why"
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
# 4. GPU memory (--mem cuda) through the stand-in libcuda.so.1 (--cuda-lib; host memory behind
# the driver calls: the tool's logic, not a GPU): every run GPUDirect via peermem (the stand-in
# exports no dma-buf Soft-RoCE could map), the mem and gpudirect gates pass; the data path each
# workload took and the copies as the raw fio logs say (recomputed by the check)
STANDIN=$REPO/build/cuda-standin
printf 'mem == cuda\ngpudirect == used\nerrors == 0\nverify_failures == 0\n' >"$WORK/gpu.gates"
"$Q" $T --mem cuda --cuda-lib "$STANDIN" --workloads randread,verify --rounds-max 5 --gates "$WORK/gpu.gates" \
	--out "$TESTBED_OUT/gpu" >"$WORK/gpu.out" 2>&1; rc=$?
labels=$(field "$TESTBED_OUT/gpu/report.json" '"; ".join("%s: %s" % (k, ",".join(w["labels"])) for k, w in r["data_path"]["workloads"].items())')
want="precondition: gpudirect-peermem/benchmark; randread qd32: gpudirect-peermem/benchmark; verify: gpudirect-peermem/data"
if [ $rc != 0 ]; then
	bad "GPU memory, stand-in driver" "exit $rc, want 0"; sed 's/^/    | /' "$WORK/gpu.out" | tail -20
elif ! why=$($CHECK datapath "$TESTBED_OUT/gpu" 2>&1); then
	bad "GPU memory, stand-in driver: data path" "$why"
elif ! rwhy=$($CHECK report "$TESTBED_OUT/gpu" PASS 2>&1); then
	bad "GPU memory, stand-in driver: report" "$rwhy"
elif [ "$labels" != "$want" ]; then
	bad "GPU memory, stand-in driver" "data paths '$labels', want '$want'"
elif ! grep -q '^qualify: PASS gpudirect == used (.*gpu.gates:2): measured peermem, limit == used$' "$WORK/gpu.out"; then
	bad "GPU memory, stand-in driver" "no PASS line for gpudirect == used"
else
	ok "GPU memory (--mem cuda --cuda-lib, stand-in driver): exit 0, $labels; $why"
fi

# 5. GPUDirect unavailable: gpu_reg=dmabuf, which Soft-RoCE cannot map. With gpudirect=auto the
# engine stages through host memory and says why: --require-gpudirect fails (exit 1) naming the
# workload, the data path and the reason; nothing else fails. An engine without gpudirect=auto
# runs gpudirect=1 instead: the job itself fails (stop-loss), the gate's reason the engine's
# error line (the host suite's stand-in fio covers that case for every engine).
gd_fail() {     # NAME GPUDIRECT WANT-WHY: exit 1, gate gpudirect == used FAIL, its why matching WANT-WHY
	local name=$1 gd=$2 re=$3 rc why res
	"$Q" $T --mem cuda --cuda-lib "$STANDIN" --gpudirect "$gd" --engine-opt gpu_reg=dmabuf --require-gpudirect \
		--workloads verify --precondition none --out "$TESTBED_OUT/$name" >"$WORK/$name.out" 2>&1; rc=$?
	res=$(field "$TESTBED_OUT/$name/report.json" '[(g["result"], g.get("why") or "") for g in r["gates"] if g["gate"] == "gpudirect == used" and g["where"] == "--require-gpudirect"][0]')
	if [ $rc != 1 ]; then
		bad "$name" "exit $rc, want 1"; sed 's/^/    | /' "$WORK/$name.out" | tail -15
	elif ! [[ $res =~ ^\(\'FAIL\',\ [\'\"]$re ]]; then
		bad "$name" "gate gpudirect == used: $res, want FAIL /$re/"
	elif ! grep -q "^- \`gpudirect == used\` FAIL: .*dma-buf" "$TESTBED_OUT/$name/report.md"; then
		bad "$name" "report.md does not say why gpudirect == used failed"
	elif ! why=$($CHECK datapath "$TESTBED_OUT/$name" 2>&1); then
		bad "$name: data path" "$why"
	else
		ok "$name: exit 1, $(grep -m1 '^qualify: FAIL gpudirect == used' "$WORK/$name.out" | cut -c1-260)"
		return 0
	fi
	return 1
}
if fio --parse-only --name=x --ioengine=external:"$ENG" --filename=/dev/null --traddr=192.0.2.1 \
	--subnqn=nqn.2014-08.org.example:x --nvmeof_mem=cuda --gpudirect=auto >/dev/null 2>&1; then
	gd_fail gpudirect-auto-staged auto 'verify: staged \(gpudirect=auto fell back\); GPUDirect unavailable: .*dma-buf' &&
	if ! errs=$(field "$TESTBED_OUT/gpudirect-auto-staged/report.json" 'r["errors"], r["verify_failures"], r["stopped"]') ||
	   [ "$errs" != "(0, 0, None)" ]; then
		bad "gpudirect-auto-staged" "errors, verify failures, stopped: $errs, want (0, 0, None)"
	fi
else
	echo "NOTE: this engine has no gpudirect=auto (fio --parse-only refuses it): gpudirect=1 instead"
	gd_fail gpudirect-1-no-dmabuf 1 'verify: no start line \(run verify-write\); the engine said: nvmeof: verify: .*dma-buf'
fi
suite_end tools_qualify
