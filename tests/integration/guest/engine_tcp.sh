#!/bin/bash
# The engine over NVMe/TCP against the kernel target's TCP port (nvmet_tcp) (SPDK's TCP target:
# spdk_interop.sh): fio verify over block sizes (past MDTS), queue depths, lanes in
# process and thread mode, digests, in-capsule vs R2T writes, completion modes, trim and flush,
# GPU buffers (stand-in driver: staged), faults (port removed, Ctrl-C) and a reconnect.
. "$(dirname "$0")/lib.sh"
V="--verify_fatal=1 --do_verify=1"
TCP_PORT=${TARGET_TCP_PORT:-}
[ -n "$TCP_PORT" ] || { echo "SKIP: the testbed exports no TARGET_TCP_PORT (no nvmet_tcp port)"; exit 77; }
T="$NVMEOF --transport=tcp --trsvcid=$TCP_PORT"

# the kernel target's TCP port directory in configfs (the one whose addr_trtype is tcp)
TCP_PORT_DIR=$(grep -l '^tcp$' "$NVMET_CFG"/ports/*/addr_trtype 2>/dev/null | head -1)
TCP_PORT_DIR=${TCP_PORT_DIR%/addr_trtype}

# the start line names the transport, the digests and where it connected
fio $T --name=w --rw=randwrite --bs=4k --size=1m --iodepth=4 >"$WORK/start.log" 2>&1
want="via NVMe/TCP (header digest off, data digest off) (10."
if grep -qF "$want" "$WORK/start.log" && grep -q "data travels in the PDUs" "$WORK/start.log" &&
   grep -q "fabric: NVMe/TCP, " "$WORK/start.log"; then
	ok "start line: $(grep -m1 -o 'via NVMe/TCP[^;]*' "$WORK/start.log")"
else
	bad "start line" "no '$want' (or the buffers/fabric words): $(grep -m1 'nvmeof: w:' "$WORK/start.log" | cut -c1-300)"
	sed 's/^/    | /' "$WORK/start.log" | tail -5
fi

# verify kinds x directions
run_fio write-crc32c rw $T --name=w --rw=write --bs=64k --size=16m --iodepth=8 --verify=crc32c $V
run_fio randwrite-md5 rw $T --name=w --rw=randwrite --bs=4k --size=16m --iodepth=16 --verify=md5 $V
run_fio randrw-crc32c rw $T --name=w --rw=randrw --rwmixread=50 --bs=8k --size=16m --iodepth=16 \
	--verify=crc32c --verify_backlog=64 --verify_fatal=1 --number_ios=2048

# block sizes to 2 MiB (past the target's MDTS: several commands, several C2HData and R2Ts)
for bs in 512 4k 128k 1m 2m; do
	ns=1 size=32m; [ $bs = 512 ] && ns=$NS_512 size=4m
	run_fio "bs-$bs" rw $T --nsid=$ns --name=w --rw=write --bs=$bs --size=$size --iodepth=4 \
		--verify=crc32c $V
done
run_fio bsrange rw $T --name=w --rw=randwrite --bsrange=4k-2m --size=32m --iodepth=8 \
	--verify=crc32c $V

# the job's closing NVMe/TCP line: its shape, and the C2HData it counted (per I/O times the
# I/Os) is the 32 MiB bs-128k's verify read back
l=$(grep -m1 '^nvmeof: w: NVMe/TCP: ' "$WORK/bs-128k.log")
re='^nvmeof: w: NVMe/TCP: ([0-9.]+) receive calls, ([0-9.]+) send calls per I/O; ([0-9.]+) KiB per I/O copied from the receive buffer, ([0-9.]+) KiB read straight in \(([0-9]+)% of received data copied\); ([0-9]+) I/Os$'
if [[ $l =~ $re ]] && awk -v c="${BASH_REMATCH[3]}" -v s="${BASH_REMATCH[4]}" \
	-v n="${BASH_REMATCH[6]}" 'BEGIN { k = (c + s) * n; exit !(k > 32768 * 0.99 && k < 32768 * 1.01) }'
then
	ok "closing line: ${l#nvmeof: w: }"
else
	bad "closing line" "bs-128k: '$l' (want its shape, and 32 MiB of C2HData counted)"
fi

# queue depths to 128
for qd in 1 32 128; do
	run_fio "iodepth-$qd" rw $T --name=w --rw=randwrite --bs=4k --size=8m --iodepth=$qd \
		--iodepth_batch_submit=$(( qd > 8 ? 8 : 1 )) --verify=crc32c $V
done

# lanes: numjobs 4 in process and thread mode, each job its own region
for mode in process thread; do
	t=""; [ $mode = thread ] && t="--thread=1"
	run_fio "numjobs-4-$mode" rw $T $t --name=w --rw=randwrite --bs=16k --size=4m \
		--offset_increment=4m --numjobs=4 --iodepth=16 --verify=crc32c $V --group_reporting
done

# digests: header, data, both; the start line says which
for d in hdr:--hdr_digest=1 data:--data_digest=1 both:"--hdr_digest=1 --data_digest=1"; do
	n=${d%%:*} opt=${d#*:}
	# shellcheck disable=SC2086
	run_fio "digest-$n" rw $T $opt --name=w --rw=randwrite --bs=64k --bsrange=4k-256k --size=16m \
		--iodepth=16 --verify=crc32c $V
done
if grep -qF "header digest on, data digest on" "$WORK/digest-both.log"; then
	ok "digests: the start line says header digest on, data digest on"
else
	bad "digests" "digest-both's start line does not say both are on"
fi

# in-capsule writes (up to the port's in-capsule size: IOCCSZ) and R2T writes (larger ones,
# answered by H2CData); inline_data=off is refused on TCP (the kernel and SPDK hosts never
# send a write that fits the capsule by R2T, and the kernel target never answered one)
run_fio incapsule-4k rw $T --name=w --rw=randwrite --bs=4k --size=8m --iodepth=16 \
	--verify=crc32c $V
run_fio r2t-64k rw $T --name=w --rw=randwrite --bs=64k --size=16m --iodepth=16 --verify=crc32c $V
icd=$(grep -m1 -oE 'in-capsule [0-9]+ B' "$WORK/incapsule-4k.log")
if [ -n "$icd" ] && [ "${icd//[!0-9]/}" -ge 4096 ] && [ "${icd//[!0-9]/}" -lt 65536 ]; then
	ok "in-capsule vs R2T: '$icd' offered, so 4 KiB writes go in the capsule and 64 KiB by R2T"
else
	bad "in-capsule vs R2T" "the start line says '$icd' (want 4096..65535 B)"
fi
expect_fail inline-off-refused "inline_data=off with transport=tcp" $T --inline_data=off --name=w \
	--rw=randwrite --bs=4k --size=1m

# completion modes: sleeping in poll() on the sockets
run_fio completion-event rw $T --completion=event --name=w --rw=randwrite --bs=4k --size=8m \
	--iodepth=16 --verify=crc32c $V
run_fio completion-hybrid rw $T --completion=hybrid --poll_us=50 --name=w --rw=randwrite \
	--bs=4k --size=8m --iodepth=16 --verify=crc32c $V

# several I/O queues per lane
run_fio io-queues-4 rw $T --io_queues=4 --name=w --rw=randwrite --bs=4k --size=8m --iodepth=32 \
	--verify=crc32c $V

# trim reads back zeroes; flush
run_fio trim-reads-zero rwt $T --name=w --rw=write --bs=64k --size=8m --iodepth=4 \
	--name=t --stonewall --rw=randtrim --bs=4k --size=8m --iodepth=8 \
	--name=r --stonewall --rw=read --bs=64k --size=8m --iodepth=4 --verify=pattern \
	--verify_pattern=0 --verify_fatal=1 --do_verify=1
run_fio fsync rw $T --name=w --rw=randwrite --bs=4k --size=4m --iodepth=8 --fsync=8 \
	--verify=crc32c $V

# an SPDK plugin style filename: trtype=TCP selects the transport without transport=
tid="trtype=TCP adrfam=IPv4 traddr=$TARGET_IP trsvcid=$TCP_PORT subnqn=${NQN//:/\\:} ns=1"
run_fio spdk-filename rw --ioengine=external:$ENG "--filename=$tid" --name=w --rw=randwrite \
	--bs=4k --size=4m --iodepth=8 --verify=crc32c $V
expect_fail trtype-disagrees "says trtype=TCP but transport=rdma" --ioengine=external:$ENG \
	"--filename=$tid" --transport=rdma --name=w --rw=randread --bs=4k --size=1m
expect_fail digest-on-rdma "hdr_digest=1 needs transport=tcp" $NVMEOF --hdr_digest=1 --name=w \
	--rw=randread --bs=4k --size=1m

# GPU buffers over TCP: staged through host memory (stand-in driver: logic, not GPUDirect)
STANDIN_DIR=${STANDIN_DIR:-$REPO/build/cuda-standin}
if [ -e "$STANDIN_DIR/libcuda.so.1" ]; then
	LD_LIBRARY_PATH=$STANDIN_DIR run_fio gpu-staged rw $T --nvmeof_mem=cuda --name=w \
		--rw=randwrite --bs=64k --bsrange=4k-256k --size=16m --iodepth=16 --verify=crc32c $V
	if grep -q 'staged through host memory (NVMe/TCP has no GPUDirect)' "$WORK/gpu-staged.log"; then
		ok "gpu-staged: the start line says staged (NVMe/TCP has no GPUDirect)"
	else
		bad "gpu-staged" "no 'staged through host memory (NVMe/TCP has no GPUDirect)' in the start line"
	fi
	LD_LIBRARY_PATH=$STANDIN_DIR expect_fail gpu-reg-dmabuf "gpu_reg=dmabuf needs transport=rdma" \
		$T --nvmeof_mem=cuda --gpu_reg=dmabuf --name=w --rw=randread --bs=4k --size=1m
else
	bad gpu-staged "no $STANDIN_DIR/libcuda.so.1 (make builds it)"
fi

# ---- faults ------------------------------------------------------------------------------
tcp_port_off() { rm "$TCP_PORT_DIR/subsystems/$NQN" "$TCP_PORT_DIR/subsystems/$NQN2"; }
tcp_port_on()  {
	ln -s "$NVMET_CFG/subsystems/$NQN" "$TCP_PORT_DIR/subsystems/$NQN"
	ln -s "$NVMET_CFG/subsystems/$NQN2" "$TCP_PORT_DIR/subsystems/$NQN2"
	sleep 1
}
# wait_lanes NAME N: until N start lines are in the log (30 s at most)
wait_lanes() {
	local i
	for i in $(seq 300); do
		[ "$(grep -c "^nvmeof: $1: " "$WORK/$1.log")" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}
# fault NAME BREAK RESTORE REGEX BOUND_MS: four lanes; BREAK; fio must end within BOUND_MS,
# non-zero, with a line matching REGEX, its JSON whole, and nothing left running
fault() {
	local name=$1 brk=$2 restore=$3 re=$4 bound=$5 t0 took rc
	fio $T --name=$name --rw=randrw --bs=16k --size=8m --offset_increment=8m --numjobs=4 \
		--iodepth=8 --time_based --runtime=120 --io_timeout=3000 --eta=never \
		--output-format=json --output="$WORK/$name.json" >"$WORK/$name.log" 2>&1 &
	local pid=$!
	wait_lanes "$name" 4
	sleep 2
	t0=$(now_ms)
	$brk
	while kill -0 $pid 2>/dev/null && [ $(( $(now_ms) - t0 )) -lt $((bound + 20000)) ]; do
		sleep 0.05
	done
	took=$(( $(now_ms) - t0 ))
	kill -9 $pid 2>/dev/null
	wait $pid; rc=$?
	$restore
	if pgrep -f -- "--name=$name " >/dev/null; then
		bad "$name" "fio processes left behind"; pkill -9 -f -- "--name=$name "
	elif [ $rc = 0 ] || [ $rc -ge 124 ]; then
		bad "$name" "fio exited $rc after ${took} ms"; sed 's/^/    | /' "$WORK/$name.log" | tail -6
	elif ! grep -qE "$re" "$WORK/$name.log"; then
		bad "$name" "no line matching /$re/"; sed 's/^/    | /' "$WORK/$name.log" | tail -6
	elif [ $took -gt "$bound" ]; then
		bad "$name" "fio ended ${took} ms after the fault (bound $bound ms)"
	elif ! python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$WORK/$name.json" 2>/dev/null; then
		bad "$name" "fio's JSON does not parse"
	else
		ok "$name: rc $rc ${took} ms after the fault: $(grep -m1 -E "$re" "$WORK/$name.log" | cut -c1-200)"
	fi
}
# the target removes the subsystems from its TCP port: nvmet closes the connections
fault port-removed tcp_port_off tcp_port_on 'nvmeof: port-removed: lane failed: .*(closed|reset|disconnect|ECONNRESET|connection)' 8000

# Ctrl-C: fio stops, the engine ends its lanes, the JSON is whole
fio $T --name=ctrlc --rw=randrw --bs=16k --size=8m --offset_increment=8m --numjobs=2 --iodepth=8 \
	--time_based --runtime=120 --eta=never --output-format=json --output="$WORK/ctrlc.json" \
	>"$WORK/ctrlc.log" 2>&1 &
pid=$!
wait_lanes ctrlc 2
sleep 2
t0=$(now_ms)
kill -INT $pid
while kill -0 $pid 2>/dev/null && [ $(( $(now_ms) - t0 )) -lt 20000 ]; do sleep 0.05; done
took=$(( $(now_ms) - t0 ))
kill -9 $pid 2>/dev/null
wait $pid; rc=$?
# fio writes "fio: terminating on signal 2" ahead of its JSON (any engine does): past it, the
# JSON must parse, with reads counted, and no lane may have given up
json_after_signal() {
	python3 - "$1" <<'PY'
import json, sys
text = "".join(l for l in open(sys.argv[1]) if not l.startswith("fio: terminating on signal"))
j = json.loads(text)
assert sum(x["read"]["io_bytes"] for x in j["jobs"]) > 0, "no reads counted"
PY
}
if json_after_signal "$WORK/ctrlc.json" 2>/dev/null && [ $took -lt 10000 ] &&
   ! pgrep -f -- "--name=ctrlc " >/dev/null && ! grep -q 'lane failed' "$WORK/ctrlc.log"; then
	ok "ctrl-c: fio ended ${took} ms after SIGINT (rc $rc), nothing given up, JSON parses past fio's signal line"
else
	bad "ctrl-c" "fio took ${took} ms (rc $rc), or its JSON is broken"; tail -5 "$WORK/ctrlc.log" | sed 's/^/    | /'
fi

# the port goes for 3 s under a verified write; the lane reconnects and resubmits
fio $T --name=rc --rw=randwrite --bs=16k --size=16m --iodepth=8 --rate_iops=250 --verify=crc32c \
	--do_verify=1 --verify_fatal=1 --ctrl_loss_tmo=20000 --reconnect_delay=500 \
	--retry_on_reconnect=1 --io_timeout=5000 --eta=never --output-format=json \
	--output="$WORK/rc.json" >"$WORK/rc.log" 2>&1 &
pid=$!
wait_lanes rc 1
sleep 1
tcp_port_off
sleep 3
tcp_port_on
wait $pid; rc=$?
if [ $rc = 0 ] && grep -q 'nvmeof: rc: reconnected after' "$WORK/rc.log"; then
	ok "reconnect: rc 0, verify clean: $(grep -m1 'reconnected after' "$WORK/rc.log" | cut -c1-160)"
else
	bad "reconnect" "fio exited $rc, $(grep -c 'reconnected after' "$WORK/rc.log") reconnect line(s)"
	tail -8 "$WORK/rc.log" | sed 's/^/    | /'
fi

suite_end engine_tcp
