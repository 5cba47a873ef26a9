#!/bin/bash
# Multipath in the guest: $NQN on port 1 ($TARGET_PORT) and on a second port (4421) on the same
# Soft-RoCE address.  Every run verifies its data with fio's verify; the fault cases change the
# target under a running job and check that no error reached fio, that the engine said what
# it did, and that mp_stats recorded the failover with its recovery time.
. "$(dirname "$0")/lib.sh"
PORT2=$NVMET_CFG/ports/2
P1="$TARGET_IP:$TARGET_PORT" P2="$TARGET_IP:4421"
MP="--ioengine=external:$ENG --traddr=$TARGET_IP:$TARGET_PORT,$TARGET_IP:4421 --subnqn=$NQN"

port2_on() {
	mkdir "$PORT2"
	echo rdma > "$PORT2/addr_trtype"; echo ipv4 > "$PORT2/addr_adrfam"
	echo "$TARGET_IP" > "$PORT2/addr_traddr"; echo 4421 > "$PORT2/addr_trsvcid"
	ln -s "$NVMET_CFG/subsystems/$NQN" "$PORT2/subsystems/$NQN"
	sleep 1
}
port2_off() { rm "$PORT2/subsystems/$NQN"; rmdir "$PORT2"; }
ana() { echo "$2" > "$NVMET_CFG/ports/$1/ana_groups/1/ana_state"; }

port2_on
grep -q . "$NVMET_CFG/ports/1/ana_groups/1/ana_state" ||
	{ bad ana-configfs "no ports/1/ana_groups/1/ana_state on this kernel"; suite_end engine_mpath; }

# ---- each policy, verified; where the I/O went -------------------------------------------
VERIFY="--name=mp --rw=randwrite --bs=4k --size=8m --iodepth=16 --verify=crc32c --do_verify=1"
for pol in numa round-robin queue-depth; do
	run_fio "mp-$pol" w $MP --mp_policy=$pol $VERIFY
	line=$(grep -o 'multipath .*' "$WORK/mp-$pol.log" | head -1)
	n1=$(echo "$line" | grep -o "$P1 [0-9]* I/Os" | awk '{print $2}')
	n2=$(echo "$line" | grep -o "$P2 [0-9]* I/Os" | awk '{print $2}')
	grep -q "2 paths, mp_policy $pol" "$WORK/mp-$pol.log" ||
		bad "mp-$pol-startline" "no '2 paths, mp_policy $pol' line"
	case $pol in
	numa)   [ "${n1:-0}" -gt 0 ] && [ "${n2:-x}" = 0 ] && ok "numa: every I/O on path 1 ($line)" ||
			bad mp-numa-spread "want all on path 1: $line" ;;
	*)      [ "${n1:-0}" -gt 100 ] && [ "${n2:-0}" -gt 100 ] && ok "$pol: both paths carried I/O ($n1, $n2)" ||
			bad "mp-$pol-spread" "want both paths used: $line" ;;
	esac
done

# ---- a running job while the target changes under it ---------------------------------------
# FAULT_AT seconds into a 10 s verified random-write job, run FAULT; RESTORE at RESTORE_AT.
JOB="--name=mpf --rw=randwrite --bs=4k --size=16m --iodepth=16 --verify=crc32c
	--verify_backlog=64 --time_based --runtime=10 --ctrl_loss_tmo=30s --reconnect_delay=300ms"
fault_run() {   # NAME FAULT RESTORE EXTRA [MAX_QUIET_MS]   (the paths: $FAULT_MP, or $MP)
	local name=$1 fault=$2 restore=$3 extra=$4 maxq=${5:-0} rc
	rm -f "$WORK/$name.mp.json"
	timeout -k 5 120 fio --output-format=json --output="$WORK/$name.json" ${FAULT_MP:-$MP} $JOB $extra \
		--mp_stats="$WORK/$name.mp.json" >"$WORK/$name.log" 2>&1 &
	local pid=$!
	sleep 3; eval "$fault"
	sleep 3; eval "$restore"
	wait $pid; rc=$?
	fio_judge "$name" w $rc
	if ! python3 - "$WORK/$name.mp.json" "$maxq" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
maxq = int(sys.argv[2])
assert len(recs) == 1, "want one record, got %d" % len(recs)
r = recs[0]
assert r["failovers"] >= 1, "no failover recorded"
ev = r["events"][0]
assert ev["recovered"], "the failover never recovered: %s" % ev
# a disconnect is seen when it happens (the keep-alive thread sleeps on the CM channels), not
# after a command has waited (the job thread's own CM check needs 50 ms of silence)
assert not maxq or ev["quiet_before_ms"] < maxq, \
    "the path was silent %d ms before it was declared lost (want < %d)" % (ev["quiet_before_ms"], maxq)
print("failover: %s; %d I/Os moved; recovery %d ms (silent %d ms before)" % (
    ev["why"], ev["ios_moved"], ev["recovery_ms"], ev["quiet_before_ms"]))
PY
	then bad "$name-stats" "mp_stats: $(cat "$WORK/$name.mp.json" 2>&1 | head -c 600)"; fi
}

fault_run mp-ana-flip "ana 1 inaccessible" "ana 1 optimized" ""
# the target's ANA change notices reached path 1's lane (its AER, kept outstanding)
n=$(python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).readline()); print(r["paths"][0]["ana_notices"])' "$WORK/mp-ana-flip.mp.json" 2>&1)
[ "${n:-0}" -ge 2 ] 2>/dev/null && ok "ANA change notices on path 1: $n, one per flip (Asynchronous Event Request)" ||
	bad mp-ana-aen "path 1 got $n ANA change notice(s), want one per flip (2)"
grep -q "path $P1 leaves the I/O\|path $P1: ANA group 1 now inaccessible" "$WORK/mp-ana-flip.log" &&
	ok "ANA inaccessible: I/O left path 1: $(grep -m1 -o "path $P1[^;]*" "$WORK/mp-ana-flip.log")" ||
	bad mp-ana-leave "no line saying I/O left path 1"
grep -q "path $P1: ANA group 1 now optimized: rejoins" "$WORK/mp-ana-flip.log" &&
	ok "ANA optimized again: path 1 rejoins" || bad mp-ana-rejoin "no rejoin line"

fault_run mp-port-removed "port_off" "port_on" "" 50
grep -q "path $P1 lost: " "$WORK/mp-port-removed.log" &&
	ok "port removed: $(grep -m1 -o "path $P1 lost: [^;]*; [0-9]* I/O(s) moved" "$WORK/mp-port-removed.log")" ||
	bad mp-port-lost "no 'path ... lost' line"
grep -q "path $P1 reconnected after" "$WORK/mp-port-removed.log" &&
	ok "port back: $(grep -m1 -o "path $P1 reconnected after [0-9]* ms" "$WORK/mp-port-removed.log")" ||
	bad mp-port-back "path 1 never reconnected"

# Port 1 back without in-capsule data (param_inline_data_size 0): the path rejoins, and the
# writes staged from then on go keyed (the limits are the smallest of the connected paths', the
# returning one's as it came back), so the target refuses none of them.
port_on_noinline() {
	mkdir "$NVMET_PORT"
	echo rdma > "$NVMET_PORT/addr_trtype"; echo ipv4 > "$NVMET_PORT/addr_adrfam"
	echo "$TARGET_IP" > "$NVMET_PORT/addr_traddr"; echo "$TARGET_PORT" > "$NVMET_PORT/addr_trsvcid"
	echo 0 > "$NVMET_PORT/param_inline_data_size"
	ln -s "$NVMET_CFG/subsystems/$NQN" "$NVMET_PORT/subsystems/$NQN"
	ln -s "$NVMET_CFG/subsystems/$NQN2" "$NVMET_PORT/subsystems/$NQN2"
	sleep 1
}
fault_run mp-back-smaller "port_off" "port_on_noinline" "--inline_data=on"
# (nvmet sizes its receive buffers per RDMA device, so this target would take the in-capsule
# data anyway: the engine's own line is what shows the limits followed the returning path)
n=$(grep -o "path $P1 reconnected after [0-9]* ms" "$WORK/mp-back-smaller.log" | head -1)
[ -n "$n" ] && grep -q "in-capsule 4096 B" "$WORK/mp-back-smaller.log" &&
	grep -q "path $P1 came back with smaller limits: .* in-capsule data up to 0 B (was [0-9]*, 4096)" "$WORK/mp-back-smaller.log" &&
	ok "port back with in-capsule 0 (was 4096): $n; $(grep -m1 -o 'in-capsule data up to 0 B (was [0-9]*, 4096)' "$WORK/mp-back-smaller.log"); verify clean" ||
	bad mp-back-smaller "$(grep -m2 -E 'in-capsule|reconnected' "$WORK/mp-back-smaller.log" | cut -c1-200 | tr '\n' ' ')"
port_off; port_on

# Thread mode, and a Command Quiesce Time: nvmet reports none (CQT 0), so the test build's knob
# stands in for a controller that says 1500 ms.  Namespace 3 is a null_blk device that takes
# 200 ms per command, so writes are in flight on path 1 when its port goes.  Those writes must
# not go to the other path before the quiesce time: nothing is posted for 1.5 s, recovery takes
# at least that long, and verify is clean.
SLOWNB=/sys/kernel/config/nullb/mpslow SLOWNS=$NVMET_CFG/subsystems/$NQN/namespaces/3
slow_ns_on() {
	mkdir "$SLOWNB" && echo 64 > "$SLOWNB/size" && echo 1 > "$SLOWNB/memory_backed" &&
		echo 2 > "$SLOWNB/queue_mode" && echo 2 > "$SLOWNB/irqmode" &&
		echo 200000000 > "$SLOWNB/completion_nsec" && echo 1 > "$SLOWNB/power" &&
		for _ in $(seq 50); do [ -b /dev/mpslow ] && break; sleep 0.1; done &&
		mkdir "$SLOWNS" && echo -n /dev/mpslow > "$SLOWNS/device_path" && echo 1 > "$SLOWNS/enable"
}
slow_ns_off() {
	echo 0 > "$SLOWNS/enable"; rmdir "$SLOWNS"; echo 0 > "$SLOWNB/power"; rmdir "$SLOWNB"
}
if slow_ns_on; then
	FAULT_MP="${MP/$ENG/$ENG_KNOBS} --filename=ns=3" FIO_NVMEOF_TEST_CQT_MS=1500 \
		fault_run mp-port-removed-thread "port_off" "port_on" "--thread"
	slow_ns_off
else
	bad mp-slow-ns "cannot make a slow null_blk namespace (irqmode 2, completion_nsec)"
fi
grep -q "path $P1 lost: " "$WORK/mp-port-removed-thread.log" &&
	ok "thread mode: path 1 lost and I/O moved" || bad mp-thread-lost "no 'path ... lost' line"
if grep -q "path $P1 lost: .*I/O waits 1500 ms (the controller's Command Quiesce Time) before its writes go elsewhere" \
		"$WORK/mp-port-removed-thread.log" &&
	python3 - "$WORK/mp-port-removed-thread.mp.json" <<'PY'
import json, sys
ev = json.loads(open(sys.argv[1]).readline())["events"][0]
assert ev["cqt_wait_ms"] == 1500, ev
assert ev["recovery_ms"] >= 1500, "a moved write went out %d ms after the loss" % ev["recovery_ms"]
PY
then ok "Command Quiesce Time 1500 ms: the moved writes waited it out ($(grep -m1 -o '"recovery_ms": [0-9]*' "$WORK/mp-port-removed-thread.mp.json"))"
else bad mp-cqt "no CQT line, or recovery before 1500 ms: $(head -c 400 "$WORK/mp-port-removed-thread.mp.json")"; fi

# GPU buffers on the strict stand-in CUDA driver (this proves the logic, not GPUDirect): the
# same port loss with nvmeof_mem=cuda; every CUDA call balanced at the end.
STANDIN_DIR=$REPO/build/cuda-standin
if [ -e "$STANDIN_DIR/libcuda.so.1" ]; then
	export LD_LIBRARY_PATH=$STANDIN_DIR NVMF_STANDIN_LOG=$WORK/mp-gpu.cuda
	fault_run mp-port-removed-gpu "port_off" "port_on" "--nvmeof_mem=cuda"
	unset LD_LIBRARY_PATH NVMF_STANDIN_LOG
	grep -q "path $P1 lost: " "$WORK/mp-port-removed-gpu.log" && grep -q 'buffers: .*cuda\|CUDA\|GPU' "$WORK/mp-port-removed-gpu.log" &&
		ok "stand-in GPU memory: path 1 lost, I/O moved, verify clean" ||
		bad mp-gpu "$(grep -m2 -E 'buffers|lost' "$WORK/mp-port-removed-gpu.log" | tr '\n' ' ')"
	out=$(python3 "$REPO/tests/integration/cuda_log_check.py" balanced "$WORK/mp-gpu.cuda" "" 2>&1) &&
		ok "stand-in GPU memory: CUDA calls balanced: $out" || bad mp-gpu-balanced "$out"
else
	bad mp-gpu "no $STANDIN_DIR/libcuda.so.1 (make builds the stand-in)"
fi

# ---- two namespaces in different ANA groups, active/passive the opposite ways -------------------
# Namespace 1 in group 1 (optimized on port 1, non-optimized on port 2), namespace 2 in group 2
# (the other way round), both in one job: each namespace's I/O goes to its optimized path.
# Then both flip at once (group 1 inaccessible on port 1, group 2 inaccessible on port 2) and
# back: each namespace's I/O follows its own group, with no error and verify clean.
G() { echo "$3" > "$NVMET_CFG/ports/$1/ana_groups/$2/ana_state"; }
NS2DIR=$NVMET_CFG/subsystems/$NQN/namespaces/2
if mkdir "$NVMET_CFG/ports/1/ana_groups/2" "$PORT2/ana_groups/2" && echo 2 > "$NS2DIR/ana_grpid"; then
	G 1 1 optimized; G 1 2 non-optimized; G 2 1 non-optimized; G 2 2 optimized
	sleep 1
	FAULT_MP="$MP --filename=ns=1:ns=2 --mp_policy=numa" fault_run mp-ana-groups \
		"G 1 1 inaccessible; G 2 1 optimized; G 2 2 inaccessible; G 1 2 optimized" \
		"G 1 1 optimized; G 2 1 non-optimized; G 2 2 optimized; G 1 2 non-optimized" ""
	L=$WORK/mp-ana-groups.log miss=
	for re in "2 paths, mp_policy numa, ANA groups 1, 2: $P1 cntlid [0-9]* via .*ANA group 1 optimized, group 2 non-optimized); $P2 .*ANA group 1 non-optimized, group 2 optimized)" \
		"path $P1 leaves the I/O: .*ANA group 1 inaccessible\|path $P1: ANA group 1 now inaccessible" \
		"path $P2 leaves the I/O: .*ANA group 2 inaccessible\|path $P2: ANA group 2 now inaccessible" \
		"multipath numa over 2 paths: $P1 [1-9][0-9]* I/Os.*, $P2 [1-9][0-9]* I/Os"; do
		grep -q "$re" "$L" || miss="$miss [$re]"
	done
	grep -q '"ana_groups": \[{"grpid": 1, "state": "optimized"}, {"grpid": 2, "state": "non-optimized"}\]' \
		"$WORK/mp-ana-groups.mp.json" || miss="$miss [mp_stats ana_groups: $(head -c 600 "$WORK/mp-ana-groups.mp.json")]"
	[ -z "$miss" ] &&
		ok "two namespaces, two ANA groups flipped opposite ways: each followed its own group, both paths carried I/O, no error ($(grep -o 'multipath numa over.*' "$L" | head -c 200))" ||
		bad mp-ana-groups-lines "no line matching:$miss; the log: $(grep -m1 -o 'multipath numa.*' "$L")"
	echo 1 > "$NS2DIR/ana_grpid"
	sleep 1
	rmdir "$NVMET_CFG/ports/1/ana_groups/2" "$PORT2/ana_groups/2" ||
		bad mp-ana-groups-cleanup "cannot remove ANA group 2"
else
	bad mp-ana-groups-setup "nvmet took no ANA group 2 (ports/N/ana_groups/2, namespaces/2/ana_grpid)"
fi

# ---- paths on two RDMA devices: rxe0 (tbnet0) and rxe1 (tbnet1) ----------------------------
# Port 3 serves $NQN on the second device's address.  fio's buffers are registered once per
# device; host_traddr names each path's local address; the second device's link goes down
# under an idle job (the path on it is lost at once, the next I/O goes to the other).
PORT3=$NVMET_CFG/ports/3 P3="$TARGET_IP2:$TARGET_PORT"
mkdir "$PORT3"
echo rdma > "$PORT3/addr_trtype"; echo ipv4 > "$PORT3/addr_adrfam"
echo "$TARGET_IP2" > "$PORT3/addr_traddr"; echo "$TARGET_PORT" > "$PORT3/addr_trsvcid"
ln -s "$NVMET_CFG/subsystems/$NQN" "$PORT3/subsystems/$NQN"
sleep 1
MP2="--ioengine=external:$ENG --traddr=$P3,$P1 --host_traddr=$TARGET_IP2,$TARGET_IP --subnqn=$NQN"
for mem in host cuda; do
	[ $mem = host ] || [ -e "$REPO/build/cuda-standin/libcuda.so.1" ] || continue
	[ $mem = host ] || export LD_LIBRARY_PATH=$REPO/build/cuda-standin
	run_fio "mp-2dev-$mem" w $MP2 --mp_policy=round-robin --nvmeof_mem=$mem $VERIFY
	unset LD_LIBRARY_PATH
	log=$WORK/mp-2dev-$mem.log
	if grep -q "$P3 cntlid [0-9]* via $RDMA_DEV2 ($TARGET_IP2," "$log" &&
	   grep -q "$P1 cntlid [0-9]* via $RDMA_DEV ($TARGET_IP," "$log" &&
	   grep -q "buffers registered on 2 RDMA devices" "$log" &&
	   grep -q "multipath round-robin over 2 paths: $P3 [1-9][0-9]* I/Os, $P1 [1-9][0-9]* I/Os" "$log"; then
		ok "two RDMA devices ($mem memory): each path on its own, buffers registered on both, both carried verified I/O"
	else
		bad "mp-2dev-$mem" "$(grep -m3 -E 'paths,|multipath|buffers' "$log" | tr '\n' ' ')"
	fi
done
# The second device's link goes down while path 1 (on it) holds nothing: one verified write, then
# 5 s of think time.  With nothing posted, no send fails and no command waits: only the device's
# port event says the path is gone (the keep-alive thread sleeps on it), and the next I/O goes
# to path 2 without an error.  (Soft-RoCE takes no new connection on a device whose link went
# down under live queue pairs, so the path stays lost; the busy case, with the kernel's, is
# nvmeof-compare --failover --fault link below, on a device of its own.)
timeout -k 5 120 fio --output-format=json --output="$WORK/mp-link-idle.json" $MP2 --name=idle \
	--rw=randwrite --bs=4k --size=4m --iodepth=1 --thinktime=5s --thinktime_blocks=1 --number_ios=3 \
	--verify=crc32c --ctrl_loss_tmo=30s --reconnect_delay=300ms >"$WORK/mp-link-idle.log" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q ' 2 paths, mp_policy' "$WORK/mp-link-idle.log" 2>/dev/null && break; sleep 0.2; done
sleep 1; ip link set "$TESTBED_NETDEV2" down
sleep 1; ip link set "$TESTBED_NETDEV2" up
wait $pid
fio_judge mp-link-idle w $?
grep -q "path $P3 lost: the link of $RDMA_DEV2 port [0-9]* is down" "$WORK/mp-link-idle.log" &&
	ok "link down on an idle path: $(grep -m1 -o "path $P3 lost: [^;]*" "$WORK/mp-link-idle.log")" ||
	bad mp-link-idle-why "want 'path $P3 lost: the link of $RDMA_DEV2 ...': $(grep -m1 -o "path $P3 lost: [^;]*\|lane failed.*" "$WORK/mp-link-idle.log")"
grep -q "multipath numa over 2 paths: $P3 [0-9]* I/Os (lost 1x[^)]*) \[not connected at the end: the link of $RDMA_DEV2 .*\], $P1 [1-9][0-9]* I/Os" "$WORK/mp-link-idle.log" &&
	ok "link down: the closing line says why path 1 was not back, path 2 took the I/O" ||
	bad mp-link-idle-end "$(grep -m1 -o 'multipath numa.*' "$WORK/mp-link-idle.log")"
rm "$PORT3/subsystems/$NQN"; rmdir "$PORT3"

# ---- the same fault against the kernel's native multipath ------------------------------------
# tools/nvmeof-compare --failover: nvmeof-qualify's failover run (a verified 4 KiB 70/30 random
# mix at QD16 over two paths, numa) for the engine and for the kernel initiator (nvme-cli
# connects both; the namespace's multipath head, numa iopolicy), the fault 5 s in (after both
# initiators' connects, also on a loaded host) and mended 3 s later.  Both measured the same
# way: fio's per-I/O completion log, the longest time without a completion from the fault on
# (the stall an application sees).  The checker recomputes every number from the raw files.
# port: port 1 removed and re-created (qualify makes its own second port, 4421: the suite's is
# taken away for the time).  link: qualify puts the first path on a Soft-RoCE device of its
# own and sets its link down, then up (the path does not come back: see the idle case above).
mp_compare() {   # FAULT: prints MPATH_COMPARE[_LINK] for docs/benchmarks.md
	local fault=$1 cmp=$WORK/cmp-$1 rc crc e_stall e_rec k_stall npaths kstate kwhy tag=
	[ "$fault" = port ] || tag=_$(echo "$fault" | tr a-z A-Z)
	port2_off
	TESTBED_OUT=$cmp timeout -k 10 400 python3 "$REPO/tools/nvmeof-compare" --failover --in-testbed --repeat 1 \
		--fault "$fault" --size 16m --qd 16 --fault-at 5 --restore-at 8 --failover-runtime 10 --engine "$ENG" \
		>"$cmp.log" 2>&1
	rc=$?
	port2_on
	grep '^compare: failover .*: longest\|^compare: failover .*not run' "$cmp.log"
	python3 "$REPO/tests/integration/compare_failover_check.py" "$cmp" --fault "$fault" >"$cmp-check.log" 2>&1
	crc=$?
	# ENGINE_STALL ENGINE_RECOVERY KERNEL_STALL KERNEL_PATHS run|skip [why the kernel was not run]
	read -r e_stall e_rec k_stall npaths kstate kwhy < <(python3 - "$cmp" <<'PY' 2>/dev/null
import json, sys
runs = {r["initiator"]: r for r in map(json.loads, filter(str.strip, open(sys.argv[1] + "/runs.jsonl")))}
skip = json.load(open(sys.argv[1] + "/plan.json")).get("skipped") or {}
e, k = runs.get("engine", {}), runs.get("kernel", {})
v = lambda x: -1 if x is None else x
print(v(e.get("failover_ms")), v(e.get("recovery_ms")), v(k.get("failover_ms")), len(k.get("kernel_paths") or []),
      "skip" if "kernel" in skip else "run", skip.get("kernel", ""))
PY
)
	if [ "$rc" != 0 ] || [ "$crc" != 0 ] || [ -z "$kstate" ]; then
		bad "mpath-compare-$fault" "nvmeof-compare --failover --fault $fault exited $rc, its check $crc: $(grep -m3 '^FAIL' "$cmp-check.log" | tr '\n' ' ')"
		show_log "$cmp.log" 15
		sed 's/^/    | check: /' "$cmp-check.log" | grep FAIL | head -5
	elif [ "$kstate" = run ]; then
		ok "failover ($fault fault): engine longest stall ${e_stall} ms (recovery ${e_rec} ms after the loss was declared); kernel multipath ($npaths paths) longest stall ${k_stall} ms"
		echo "MPATH_COMPARE$tag engine_stall_ms=$e_stall engine_recovery_ms=$e_rec kernel_stall_ms=$k_stall kernel_paths=$npaths"
	else
		echo "SKIP kernel multipath comparison: $kwhy"
		ok "failover ($fault fault): engine longest stall ${e_stall} ms (kernel not compared)"
	fi
}
mp_compare port
mp_compare link
# the engine's own words on the link fault: the path on the downed link lost, and at the end
# still lost, saying why
elog=$WORK/cmp-link/runs/engine-r1/fio/failover.log
grep -q "path 10\.99\.[0-9]*\.1:$TARGET_PORT lost: " "$elog" &&
	ok "link fault, engine: $(grep -m1 -o 'path 10\.99\.[0-9.]*:[0-9]* lost: [^;]*; [0-9]* I/O(s) moved' "$elog")" ||
	bad mp-link-lost "no 'path ... lost' line in $elog"
grep -q "multipath numa over 2 paths: 10\.99\.[0-9.]*:$TARGET_PORT [0-9]* I/Os (lost 1x[^)]*) \[not connected at the end: " "$elog" &&
	ok "link fault, engine: the closing line says why path 1 was not back" ||
	bad mp-link-end "$(grep -m1 -o 'multipath numa.*' "$elog")"

# ---- a path down when the job starts ---------------------------------------------------------
# Port 1 absent at the start: the job starts on path 2 (the namespace probe falls to it too),
# says path 1 is down and tries it as a lost path (ctrl_loss_tmo); port 1 comes 10 s in, path 1
# joins, and by the end both paths carried verified I/O, with no error.
port_off
timeout -k 5 120 fio --output-format=json --output="$WORK/mp-start-down.json" $MP \
	--mp_policy=round-robin --name=sd --rw=randwrite --bs=4k --size=16m --iodepth=16 \
	--verify=crc32c --verify_backlog=64 --time_based --runtime=16 --ctrl_loss_tmo=60s \
	--reconnect_delay=500ms >"$WORK/mp-start-down.log" 2>&1 &
pid=$!
sleep 10; port_on
wait $pid
fio_judge mp-start-down w $?
L=$WORK/mp-start-down.log
grep -q "path $P1 down at the start: .*; trying again every 500 ms" "$L" &&
	grep -q "path $P1 down at the start, connected after [0-9]* ms" "$L" &&
	grep -q "multipath round-robin over 2 paths: $P1 [1-9][0-9]* I/Os, $P2 [1-9][0-9]* I/Os" "$L" &&
	ok "path 1 down at the start: the job ran on path 2, path 1 joined when its port came ($(grep -o "connected after [0-9]* ms" "$L"))" ||
	bad mp-start-down-lines "$(grep -E 'down at the start|multipath round' "$L" | tr '\n' ' ' | head -c 700)"
# ctrl_loss_tmo 0: a path that does not answer at the start is not tried again; the job runs on
# the other and says so
run_fio mp-start-gone w --ioengine=external:$ENG --traddr="$TARGET_IP,$TARGET_IP:4499" \
	--subnqn=$NQN --name=sg --rw=randwrite --bs=4k --size=2m --iodepth=8 --verify=crc32c \
	--connect_timeout=2s
grep -q "path $TARGET_IP:4499 down at the start: .*; not tried again (ctrl_loss_tmo 0)" \
	"$WORK/mp-start-gone.log" && ok "ctrl_loss_tmo 0: the absent path named, not tried again" ||
	bad mp-start-gone-line "$(grep -m2 -E 'nvmeof' "$WORK/mp-start-gone.log" | tr '\n' ' ')"
# fio stops the job while a path's reconnect attempt runs (the address is silent: nobody
# answers its ARP, so each attempt takes connect_timeout): the job ends clean, on time, the
# attempt left to its thread and joined at the end (no second thread on that path's lane)
t0=$(now_ms)
run_fio mp-stop-attempt w --ioengine=external:$ENG --traddr="$TARGET_IP,10.99.0.77" \
	--subnqn=$NQN --name=sa --rw=randwrite --bs=4k --size=8m --iodepth=8 --verify=crc32c \
	--verify_backlog=64 --time_based --runtime=4 --ctrl_loss_tmo=60s --reconnect_delay=100ms \
	--connect_timeout=2s
dt=$(( $(now_ms) - t0 ))
grep -q "10.99.0.77:4420 0 I/Os \[not connected at the end: .*fio stopped the job" \
	"$WORK/mp-stop-attempt.log" && [ $dt -lt 15000 ] &&
	ok "stopped during a reconnect attempt: clean, $dt ms ($(grep -o 'fio stopped the job[^]]*' "$WORK/mp-stop-attempt.log" | head -1))" ||
	bad mp-stop-attempt-line "$dt ms; $(grep -m1 -o 'multipath .*' "$WORK/mp-stop-attempt.log")"
# no path answers: refused at the start, each path's reason named
expect_fail mp-start-none "no path answered: path 1 \($TARGET_IP:4498\): .*; path 2 \($TARGET_IP:4499\): " \
	--ioengine=external:$ENG --traddr="$TARGET_IP:4498,$TARGET_IP:4499" --subnqn=$NQN \
	--name=x --rw=read --size=1m --connect_timeout=2s

# ---- both paths gone: the job ends with one line naming each -------------------------------
t0=$(now_ms)
timeout -k 5 120 fio --output-format=json --output="$WORK/mp-all.json" $MP --name=all \
	--rw=randread --bs=4k --size=16m --iodepth=8 --time_based --runtime=30 \
	--ctrl_loss_tmo=3s --reconnect_delay=500ms >"$WORK/mp-all.log" 2>&1 &
pid=$!
# both paths up and I/O running before they go (a fixed sleep lost the race on a loaded host)
for _ in $(seq 100); do grep -q ' 2 paths, mp_policy' "$WORK/mp-all.log" 2>/dev/null && break; sleep 0.2; done
sleep 1; port_off; port2_off
wait $pid; rc=$?
port_on; port2_on
dt=$(( $(now_ms) - t0 ))
if [ $rc != 0 ] && grep -q "lane failed: all 2 paths lost: $P1: .*; $P2: " "$WORK/mp-all.log"; then
	ok "both paths lost: fio exited $rc after $dt ms: $(grep -m1 -o 'all 2 paths lost.\{0,160\}' "$WORK/mp-all.log")"
else
	bad mp-all-lost "rc $rc, want the 'all 2 paths lost' line"; show_log "$WORK/mp-all.log" 15
fi
[ $dt -lt 20000 ] || bad mp-all-lost-time "took $dt ms with ctrl_loss_tmo 3 s"

# ---- discovery: the paths from a discovery service -------------------------------------------
# nvmet's discovery log on a port lists that port's subsystems (and referrals): port 2 lists
# only $NQN; port 1 lists $NQN and $NQN2, and with a referral to port 2 the second path too.
DJOB="--name=disc --rw=randwrite --bs=4k --size=4m --iodepth=8 --verify=crc32c"
run_fio disc-one w --ioengine=external:$ENG --discovery="$TARGET_IP:4421" $DJOB
grep -q "discovery $TARGET_IP:4421 (generation [0-9]*): 1 RDMA path(s)" "$WORK/disc-one.log" &&
	ok "discovery=port 2, no subnqn: the one subsystem it lists, 1 path" ||
	bad disc-one-line "no discovery line: $(grep -m1 'discovery' "$WORK/disc-one.log")"
expect_fail disc-several "discovery: the log lists 2 subsystems \(.*$NQN.*\): set subnqn" \
	--ioengine=external:$ENG --discovery="$TARGET_IP:$TARGET_PORT" $DJOB
ref=$NVMET_CFG/ports/1/referrals/mp-to-port2
mkdir "$ref" && echo rdma >"$ref/addr_trtype" && echo ipv4 >"$ref/addr_adrfam" &&
	echo "$TARGET_IP" >"$ref/addr_traddr" && echo 4421 >"$ref/addr_trsvcid" &&
	echo 2 >"$ref/addr_portid" && echo 1 >"$ref/enable" ||
	bad disc-referral-setup "configfs refused the referral"
sleep 1
run_fio disc-two w --ioengine=external:$ENG --discovery="$TARGET_IP:$TARGET_PORT" \
	--subnqn=$NQN --mp_policy=round-robin $DJOB
grep -q "2 paths, mp_policy round-robin" "$WORK/disc-two.log" &&
	grep -q "multipath round-robin over 2 paths: $P1 [1-9][0-9]* I/Os, $P2 [1-9][0-9]* I/Os" "$WORK/disc-two.log" &&
	ok "discovery with a referral: both ports are paths, both carried I/O" ||
	bad disc-two "$(grep -m2 -E 'discovery|multipath' "$WORK/disc-two.log" | tr '\n' ' ')"
rmdir "$ref" 2>/dev/null
expect_fail disc-and-traddr "discovery=.* and traddr=.*give one" $MP --discovery="$TARGET_IP" $DJOB
expect_fail disc-nothing "connect|nothing listens" --ioengine=external:$ENG \
	--discovery="$TARGET_IP:4499" --subnqn=$NQN --connect_timeout=2s $DJOB

# ---- bad input ------------------------------------------------------------------------------
expect_fail mp-bad-list "traddr: path 2 is empty" --ioengine=external:$ENG \
	--traddr="$TARGET_IP," --subnqn=$NQN --name=x --rw=read --size=1m
expect_fail mp-bad-host "host_traddr lists 3 addresses but traddr 2 path" $MP \
	--host_traddr=a,b,c --name=x --rw=read --size=1m

port2_off
suite_end engine_mpath
