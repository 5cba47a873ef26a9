#!/bin/bash
# The engine against SPDK's nvmf_tgt (testbed --spdk: port $SPDK_PORT, $SPDK_NQN, ns 1 with 4 KiB
# blocks, ns 2 with 512 B blocks, malloc bdevs), and SPDK's fio plugin as a peer on both targets.
# Every data job runs fio's verify; fio's JSON is parsed strictly (run_fio).
. "$(dirname "$0")/lib.sh"
S="--ioengine=external:$ENG --traddr=$TARGET_IP --trsvcid=$SPDK_PORT --subnqn=$SPDK_NQN"
# SPDK's second subsystem: an AIO namespace that outlives a restart, no Dataset Management
S2="--ioengine=external:$ENG --traddr=$TARGET_IP --trsvcid=$SPDK_PORT --subnqn=$SPDK_NQN2"
V="--verify=crc32c --do_verify=1 --verify_fatal=1"
STANDIN_DIR=$REPO/build/cuda-standin
spdk_log() { spdk-target logs; }

# ---- the verify matrix --------------------------------------------------------------------
BSS="--bssplit=4k/40:16k/20:128k/20:1m/10:2m/10"
for qd in 1 32 128; do
	run_fio "matrix-randwrite-qd$qd" rw $S --name=m --rw=randwrite $BSS --size=32m --iodepth=$qd $V
done
run_fio matrix-randrw-thread-numjobs4 rw $S --thread=1 --name=m --rw=randrw --rwmixread=50 $BSS \
	--size=16m --offset_increment=16m --numjobs=4 --iodepth=16 $V --group_reporting
run_fio matrix-randrw-process-numjobs4 rw $S --name=m --rw=randrw --rwmixread=50 $BSS \
	--size=16m --offset_increment=16m --numjobs=4 --iodepth=16 $V --group_reporting
run_fio matrix-512b-lba rw $S --nsid=2 --name=m --rw=randwrite --bssplit=512/30:4k/30:64k/40 \
	--size=16m --iodepth=32 $V

# ---- options that change what goes on the wire --------------------------------------------
for q in 2 auto; do
	for pick in auto balance cpu; do
		run_fio "io_queues-$q-$pick" rw $S --io_queues=$q --io_queue_pick=$pick --thread=1 \
			--name=q --rw=randwrite --bs=8k --size=8m --offset_increment=8m --numjobs=2 \
			--iodepth=16 $V
	done
done
for c in poll event hybrid; do
	run_fio "completion-$c" rw $S --completion=$c --name=c --rw=randwrite --bs=4k --size=8m \
		--iodepth=8 $V
done
# in-capsule data: SPDK's transport offers 8192 bytes (this start), then 0 (a restart below);
# small writes on the 512-byte namespace, iodepth 4 (auto keeps them in-capsule there)
icd() { grep -m1 -oE 'in-capsule [0-9]+ B( of [0-9]+ offered \([^)]*\))?,' "$WORK/$1.log"; }
inline_case() {   # inline_case NAME MODE WANT: a verified job; its start line says WANT
	run_fio "$1" rw $S --nsid=2 --inline_data=$2 --name=i --rw=randwrite \
		--bssplit=512/30:4k/30:8k/20:16k/20 --size=8m --iodepth=4 $V
	[ "$(icd "$1")" = "$3" ] && ok "$1: start line '$3'" || bad "$1: start line" "'$(icd "$1")', want '$3'"
}
inline_case inline-on-icd8192 on "in-capsule 8192 B,"
inline_case inline-auto-icd8192 auto "in-capsule 8192 B,"
inline_case inline-off-icd8192 off "in-capsule 0 B,"
# trim reads back as zeroes (malloc bdevs zero what is unmapped); flush after every 16 writes
run_fio trim-write w $S --name=t --rw=write --bs=64k --size=4m --iodepth=8 --buffer_pattern=0xa5
run_fio trim-trim t $S --name=t --rw=trim --bs=64k --size=4m --iodepth=8
run_fio trim-readback r $S --name=t --rw=read --bs=64k --size=4m --iodepth=8 \
	--verify=pattern --verify_pattern=0 --do_verify=1 --verify_fatal=1
run_fio flush rw $S --name=f --rw=randwrite --bs=4k --size=8m --iodepth=8 --fsync=16 $V
# keep-alive across idle gaps longer than the KATO (SPDK arms a timer, in 10 s units)
run_fio kato-idle r $S --kato=2000 --name=k --rw=randread --bs=4k --size=4m --iodepth=4 \
	--number_ios=20 --thinktime=12s --thinktime_blocks=16

# ---- stand-in GPU memory (proves the engine's logic against SPDK, not GPUDirect) -------------
if [ -e "$STANDIN_DIR/libcuda.so.1" ]; then
	for gd in 1 0; do
		LD_LIBRARY_PATH=$STANDIN_DIR run_fio "cuda-gpudirect$gd" rw $S --nvmeof_mem=cuda \
			--gpudirect=$gd --name=g --rw=randwrite --bssplit=4k/50:128k/30:1m/20 --size=16m \
			--iodepth=16 $V
	done
else
	bad cuda "no $STANDIN_DIR/libcuda.so.1 (make cuda-standin)"
fi

# ---- NVMe/TCP: the engine against SPDK's TCP transport (SPDK_TCP_PORT) ----------------------
ST="--ioengine=external:$ENG --transport=tcp --traddr=$TARGET_IP --trsvcid=$SPDK_TCP_PORT --subnqn=$SPDK_NQN"
for qd in 1 32 128; do
	run_fio "tcp-randwrite-qd$qd" rw $ST --name=m --rw=randwrite $BSS --size=32m --iodepth=$qd $V
done
run_fio tcp-randrw-thread-numjobs4 rw $ST --thread=1 --name=m --rw=randrw --rwmixread=50 $BSS \
	--size=8m --offset_increment=8m --numjobs=4 --iodepth=16 $V --group_reporting
run_fio tcp-digests rw $ST --hdr_digest=1 --data_digest=1 --name=m --rw=randwrite $BSS --size=16m \
	--iodepth=16 $V
run_fio tcp-512b-lba rw $ST --nsid=2 --name=m --rw=randwrite --bssplit=512/30:4k/30:64k/40 \
	--size=8m --iodepth=16 $V
if [ -e "$STANDIN_DIR/libcuda.so.1" ]; then
	LD_LIBRARY_PATH=$STANDIN_DIR run_fio tcp-cuda-staged rw $ST --nvmeof_mem=cuda --name=g \
		--rw=randwrite --bssplit=4k/50:128k/30:1m/20 --size=16m --iodepth=16 $V
	grep -q 'staged through host memory (NVMe/TCP has no GPUDirect)' "$WORK/tcp-cuda-staged.log" &&
		ok "tcp-cuda-staged: the start line says staged (NVMe/TCP has no GPUDirect)" ||
		bad tcp-cuda-staged "the start line does not say staged through host memory"
fi

# ---- SPDK's fio plugin, the peer: thread=1, its transport ID, preloaded (lib.sh: plugin_fio) --
peer() {   # peer NAME TRANSPORT-ID fio-args...: the plugin's verified job must pass
	local name=$1 trid=$2
	shift 2
	plugin_fio "$name" rw --ioengine=spdk --thread=1 --filename="$trid" "$@"
}
peer plugin-spdk-target "trtype=RDMA adrfam=IPv4 traddr=$TARGET_IP trsvcid=$SPDK_PORT subnqn=$(esc "$SPDK_NQN") ns=1" \
	--name=p --rw=randwrite --bssplit=4k/50:128k/50 --size=16m --iodepth=16 $V
# On the kernel target, written by one fio and verified by a second: in one fio the plugin
# frees its queue before the verify pass and connects qid 1 again at once, which nvmet, still
# releasing the old queue in the background, refuses ("qid 1 has already been created"; all
# three tries failed in a run on a loaded machine).  A fio of its own gets a new controller.
kernel_trid="trtype=RDMA adrfam=IPv4 traddr=$TARGET_IP trsvcid=$TARGET_PORT subnqn=$(esc "$NQN") ns=1"
plugin_fio plugin-kernel-target-write w --ioengine=spdk --thread=1 --filename="$kernel_trid" \
	--name=p --rw=write --bs=128k --size=16m --iodepth=16 --verify=crc32c --do_verify=0
plugin_fio plugin-kernel-target-verify r --ioengine=spdk --thread=1 --filename="$kernel_trid" \
	--name=p --rw=read --bs=128k --size=16m --iodepth=16 --verify=crc32c --verify_fatal=1
# what the engine wrote, the plugin verifies (fio's verify_only: the same job, nothing written)
run_fio cross-engine-writes w $S --name=x --rw=write --bs=128k --size=8m --iodepth=8 \
	--verify=crc32c --do_verify=0
peer_trid="trtype=RDMA adrfam=IPv4 traddr=$TARGET_IP trsvcid=$SPDK_PORT subnqn=$(esc "$SPDK_NQN") ns=1"
plugin_fio cross-plugin-verifies r --ioengine=spdk --thread=1 \
	--filename="$peer_trid" --name=x --rw=write --bs=128k --size=8m --iodepth=8 \
	--verify=crc32c --verify_only=1 --verify_fatal=1

# ---- faults -------------------------------------------------------------------------------
# lanes_up NAME: wait (30 s at most) for the start line in fio NAME's log
lanes_up() {
	local i
	for i in $(seq 300); do
		grep -q "^nvmeof: [a-z0-9-]*: nqn" "$WORK/$1.log" && break
		sleep 0.1
	done
}
# bg NAME fio-args...: fio in the background until its lanes are up; sets PID
bg() {
	local name=$1
	shift
	timeout -k 5 "$FIO_TIMEOUT" fio "$@" --eta=never --output-format=json \
		--output="$WORK/$name.json" >"$WORK/$name.log" 2>&1 &
	PID=$!
	lanes_up "$name"
}
# kill_target NAME JOB fio-args: SIGKILL of nvmf_tgt mid-run: fio ends within the bound,
# non-zero, saying why, nothing left; nvmf_tgt started again after
kill_target() {
	local name=$1 job=$2 rc took t0 L
	shift 2
	bg "$name" "$@" --name="$job" --rw=randrw --bs=16k --size=8m --offset_increment=8m --numjobs=2 \
		--iodepth=8 --time_based --runtime=120 --io_timeout=3000
	sleep 2
	spdk-target kill; t0=$(now_ms)
	wait $PID; rc=$?; took=$(( $(now_ms) - t0 ))
	L=$WORK/$name.log
	if [ $rc != 0 ] && [ $rc -lt 124 ] && [ $took -lt 15000 ] &&
	   grep -qE "^nvmeof: $job: .*(lane failed|connection lost)" "$L" && ! pgrep -f -- "--name=$job " >/dev/null; then
		ok "$name: rc $rc, fio ended ${took} ms after SIGKILL (bound 15000 ms): $(grep -m1 -E "^nvmeof: $job: .*(lane failed|connection lost)" "$L" | cut -c1-160)"
	else
		bad "$name" "rc $rc, ${took} ms after SIGKILL, $(pgrep -fc -- "--name=$job ") process(es) left"
		sed 's/^/    | /' "$L" | tail -8; pkill -9 -f -- "--name=$job "
	fi
	spdk-target start >/dev/null 2>&1 || bad "restart after $name" "$(spdk-target logs | tail -5)"
}
# kill_restart NAME JOB fio-args: killed and restarted while a verified write runs: the lanes
# reconnect, verify passes (the AIO namespace: its data outlives the restart; the malloc ones
# start empty again)
kill_restart() {
	local name=$1 job=$2 rc L
	shift 2
	bg "$name" "$@" --name="$job" --rw=randwrite --bs=16k --size=16m --iodepth=8 --rate_iops=200 $V \
		--ctrl_loss_tmo=90000 --reconnect_delay=1000 --retry_on_reconnect=1 --io_timeout=5000
	sleep 2
	spdk-target kill
	sleep 1
	spdk-target start >/dev/null 2>&1 || bad "restart mid-job ($name)" "$(spdk-target logs | tail -5)"
	wait $PID; rc=$?
	L=$WORK/$name.log
	if [ $rc = 0 ] && grep -q "nvmeof: $job: reconnected after" "$L" && $CHECK_JSON "$WORK/$name.json" rw >/dev/null; then
		ok "$name: rc 0, verify clean: $(grep -m1 'reconnected after' "$L" | cut -c1-160)"
	else
		bad "$name" "rc $rc, $(grep -c 'reconnected after' "$L") reconnect line(s)"; sed 's/^/    | /' "$L" | tail -8
	fi
}
kill_target kill-target kt $S
kill_restart kill-restart kr $S2
# the same over NVMe/TCP: the lane learns of the kill from the socket (its end, or a reset)
kill_target kill-target-tcp ktt $ST
kill_restart kill-restart-tcp krt --ioengine=external:$ENG --transport=tcp --traddr=$TARGET_IP \
	--trsvcid=$SPDK_TCP_PORT --subnqn=$SPDK_NQN2
# SIGINT to fio against a live SPDK target: fio stops at once, its JSON written, nothing left
fio $S --name=si --rw=randread --bs=4k --size=16m --iodepth=16 --time_based --runtime=120 --eta=never \
	--output-format=json --output="$WORK/sigint.json" >"$WORK/sigint.log" 2>&1 &
PID=$!
lanes_up sigint
sleep 2
kill -INT $PID; t0=$(now_ms)
wait $PID; rc=$?; took=$(( $(now_ms) - t0 ))
# fio itself exits 128 and writes "fio: terminating on signal 2" ahead of its JSON (with any
# engine: fio's null engine does the same); past that line the JSON must parse, reads counted
json_after_signal() {
	python3 - "$1" <<'PY'
import json, sys
text = "".join(l for l in open(sys.argv[1]) if not l.startswith("fio: terminating on signal"))
j = json.loads(text)
assert sum(x["read"]["io_bytes"] for x in j["jobs"]) > 0, "no reads counted"
PY
}
if [ $took -lt 10000 ] && json_after_signal "$WORK/sigint.json" >/dev/null 2>&1 && ! pgrep -f -- '--name=si ' >/dev/null &&
   ! grep -q 'lane failed' "$WORK/sigint.log"; then
	ok "sigint: fio ended ${took} ms after SIGINT (rc $rc), nothing given up, its JSON parses past fio's signal line"
else
	bad sigint "rc $rc, ${took} ms after SIGINT"; sed 's/^/    | /' "$WORK/sigint.log" | tail -6
fi
# a namespace without Dataset Management (the AIO bdev): trim refused in one line naming the job
expect_fail trim-no-dsm 'nvmeof: nd: the controller does not support Dataset Management' $S2 --name=nd --rw=trim \
	--bs=64k --size=4m --iodepth=4

# in-capsule size 0 asked of SPDK: what it offers instead, the engine's writes verified
spdk-target stop
if spdk-target start --in-capsule 0 >/dev/null 2>&1; then
	run_fio inline-on-icd0 rw $S --nsid=2 --inline_data=on --name=i --rw=randwrite \
		--bssplit=512/50:4k/50 --size=8m --iodepth=4 $V
	ok "inline-on-icd0: SPDK asked for in-capsule 0 offers: $(icd inline-on-icd0)"
else
	bad "start with in-capsule 0" "$(spdk-target logs | tail -5)"
fi

# ---- SPDK's own log: warnings and errors the engine causes fail the suite ------------------
# Expected, each with its reason (nothing else, from any case above):
#  - "In capsule data size is set to 256, this is minimum size required to support msdbd=16":
#    the restart that asks SPDK for in-capsule 0; SPDK's note on its own configuration
#  - "When used in conjunction with the NVMe-oF initiator from the Linux kernel between versions
#    5.4 and 5.12 data corruption may occur for writes that are not a multiple of 4KiB": SPDK's
#    note on that same in-capsule size (below 4 KiB), about old kernel initiators
#  - "RDMA is configured to support up to 16 SGL entries while in capsule data is greater than
#    4KiB": SPDK's note on its in-capsule size 8192 (the first start), at every connect
#  - "The recv state of tqpair=... is same with the state(6) to be set": SPDK's TCP transport
#    moving a connection to QUIESCING (6) a second time as the host closes it (its socket's end
#    and its disconnect both do); seen at the teardown of a TCP lane, after every command
#    completed (each job around it verified)
spdk_log > "$WORK/spdk.log"
unexpected=$(grep -E '\*(ERROR|WARNING)\*' "$WORK/spdk.log" |
	grep -vE 'In capsule data size is set to 256, this is minimum size required to support msdbd=16' |
	grep -vE 'initiator from the Linux kernel between versions 5.4 and 5.12 data corruption may occur for writes that are not a multiple of 4KiB' |
	grep -vE 'RDMA is configured to support up to 16 SGL entries while in capsule data is greater than 4KiB' |
	grep -vE 'The recv state of tqpair=0x[0-9a-f]+ is same with the state\(6\) to be set' || true)
n=$(grep -cE '\*(ERROR|WARNING)\*' "$WORK/spdk.log")
if [ -z "$unexpected" ]; then
	ok "SPDK's log: $n warning/error line(s), each expected"
else
	bad "SPDK's log: warnings or errors not expected" "$(echo "$unexpected" | sort | uniq -c | sort -rn | head -15)"
fi
cp "$WORK/spdk.log" "$TESTBED_OUT/spdk-interop-nvmf_tgt.log" 2>/dev/null
suite_end spdk_interop
