#!/bin/bash
# The engine over NVMe/TCP against the kernel target's TCP port (nvmet_tcp) (SPDK's TCP target:
# spdk_interop.sh): fio verify over block sizes (past MDTS), queue depths, lanes in
# process and thread mode, digests, in-capsule vs R2T writes, completion modes, trim and flush,
# GPU buffers (stand-in driver: staged), faults (port removed, Ctrl-C) and a reconnect; then
# discovery over TCP (a second TCP port, referrals of both transports, tools/nvmeof-discover
# beside nvme-cli) and multipath over two TCP ports (policies, port removed, ANA, both lost).
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

# the job's closing NVMe/TCP line: its shape; the C2HData it counted (per I/O times the I/Os)
# is the 32 MiB bs-128k's verify read back, and its 32 MiB of writes went by reference (128 KiB
# H2CData payloads are spliced from fio's buffers, not copied into the socket)
l=$(grep -m1 '^nvmeof: w: NVMe/TCP: ' "$WORK/bs-128k.log")
re='^nvmeof: w: NVMe/TCP: ([0-9.]+) receive calls, ([0-9.]+) send calls per I/O; ([0-9.]+) KiB per I/O copied from the receive buffer, ([0-9.]+) KiB read straight in \(([0-9]+)% of received data copied\), ([0-9.]+) KiB per I/O moved back after a wrong guess; ([0-9.]+) KiB per I/O sent by reference \(spliced\), ([0-9.]+) KiB copied into the socket; ([0-9]+) I/Os$'
if [[ $l =~ $re ]] && awk -v c="${BASH_REMATCH[3]}" -v s="${BASH_REMATCH[4]}" \
	-v z="${BASH_REMATCH[7]}" -v n="${BASH_REMATCH[9]}" 'BEGIN { k = (c + s) * n; w = z * n
		exit !(k > 32768 * 0.99 && k < 32768 * 1.01 && w > 32768 * 0.99 && w < 32768 * 1.01) }'
then
	ok "closing line: ${l#nvmeof: w: }"
else
	bad "closing line" "bs-128k: '$l' (want its shape, 32 MiB of C2HData counted and 32 MiB spliced)"
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

# ---- discovery over TCP --------------------------------------------------------------------
# A second TCP port (id 11, :4430) serves $NQN alone.  nvmet answers discovery on every port,
# listing that port's subsystems and referrals: port 11 lists $NQN only; port 10 lists $NQN and
# $NQN2, and with a TCP referral to port 11 the second path too.
TCP2=4430 TCP2_DIR=$NVMET_CFG/ports/11
TP1="$TARGET_IP:$TCP_PORT" TP2="$TARGET_IP:$TCP2"
TE="--ioengine=external:$ENG --transport=tcp"
tcp2_on() {
	mkdir "$TCP2_DIR"
	echo tcp > "$TCP2_DIR/addr_trtype"; echo ipv4 > "$TCP2_DIR/addr_adrfam"
	echo "$TARGET_IP" > "$TCP2_DIR/addr_traddr"; echo $TCP2 > "$TCP2_DIR/addr_trsvcid"
	ln -s "$NVMET_CFG/subsystems/$NQN" "$TCP2_DIR/subsystems/$NQN"
	local _
	for _ in $(seq 100); do
		grep -q "$(printf ':%04X 00000000:0000 0A' $TCP2)" /proc/net/tcp && return 0
		sleep 0.1
	done
	bad tcp2-listen "nvmet-tcp does not listen on :$TCP2"
}
# mkref PORTDIR NAME TRTYPE TRSVCID PORTID: a referral on that port to this address
mkref() {
	local r=$1/referrals/$2
	mkdir "$r" && echo "$3" >"$r/addr_trtype" && echo ipv4 >"$r/addr_adrfam" &&
		echo "$TARGET_IP" >"$r/addr_traddr" && echo "$4" >"$r/addr_trsvcid" &&
		echo "$5" >"$r/addr_portid" && echo 1 >"$r/enable"
}
tcp2_on
DJOB="--name=disc --rw=randwrite --bs=4k --size=1m --iodepth=8 --verify=crc32c $V"
# the discovery connection takes the job's digests too
run_fio disc-tcp-one w $TE --discovery="$TP2" --hdr_digest=1 --data_digest=1 $DJOB
grep -q "discovery $TP2 (generation [0-9]*): 1 TCP path(s) of [0-9]* record(s)$" "$WORK/disc-tcp-one.log" &&
	grep -q "via NVMe/TCP (header digest on, data digest on) ($TARGET_IP" "$WORK/disc-tcp-one.log" &&
	ok "discovery over TCP, port 11, no subnqn: $(grep -m1 -o 'discovery 10[^;]*' "$WORK/disc-tcp-one.log")" ||
	bad disc-tcp-one-line "$(grep -m2 -E 'discovery|via' "$WORK/disc-tcp-one.log" | cut -c1-200 | tr '\n' ' ')"
expect_fail disc-tcp-several "discovery: the log lists 2 subsystems \(.*$NQN.*\): set subnqn" \
	$TE --discovery="$TP1" $DJOB
expect_fail disc-tcp-nothing "discovery at $TARGET_IP:4499: .*connect" $TE \
	--discovery="$TARGET_IP:4499" --subnqn=$NQN --connect_timeout=2s $DJOB

# the tool over TCP: port 10's log, as the kernel initiator's nvme discover reads it
D=$REPO/tools/nvmeof-discover
if [ -s /etc/nvme/hostnqn ]; then HOSTNQN=$(cat /etc/nvme/hostnqn)
else HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:$(cat /proc/sys/kernel/random/uuid); fi
# disc_json NAME ARGS...: the tool's JSON in $WORK/NAME.json; PY: a check over it (r: records)
disc_json() {
	local name=$1
	shift
	timeout -k 5 60 "$D" --transport=tcp --hostnqn="$HOSTNQN" --output-format=json "$@" \
		>"$WORK/$name.json" 2>"$WORK/$name.err"
}
disc_want() {   # NAME FILE PYTHON-EXPR
	local why
	if why=$(python3 - "$2" "$3" <<'PY' 2>&1
import json, sys
r = json.load(open(sys.argv[1]))["records"]
def subs(ref=None):
    return sorted((x["trtype"], x["subnqn"], x["trsvcid"]) for x in r
                  if x["subtype"] == "nvme subsystem" and (ref is None or x["from_referral"] == ref))
if not eval(sys.argv[2]):
    print("does not hold: %s; records: %s" % (sys.argv[2], [(x["trtype"], x["subtype"], x["subnqn"],
          x["trsvcid"], x.get("sectype"), x["from_referral"]) for x in r]))
    sys.exit(1)
PY
	); then ok "$1"; else bad "$1" "$why"; fi
}
if disc_json tool-tcp "$TP1"; then
	disc_want tool-tcp-port10 "$WORK/tool-tcp.json" \
		"subs() == sorted([('tcp', '$NQN', '$TCP_PORT'), ('tcp', '$NQN2', '$TCP_PORT')]) and all(x['trtype'] == 'tcp' and x['sectype'] == 'none' for x in r)"
	if command -v nvme >/dev/null &&
	   timeout -k 5 60 nvme discover -t tcp -a "$TARGET_IP" -s "$TCP_PORT" --hostnqn="$HOSTNQN" \
		-o json >"$WORK/nvme-cli-tcp.json" 2>"$WORK/nvme-cli-tcp.err"; then
		if why=$(python3 - "$WORK/tool-tcp.json" "$WORK/nvme-cli-tcp.json" <<'PY' 2>&1
import json, sys
ours, theirs = (json.load(open(f))["records"] for f in sys.argv[1:3])
keys = ["trtype", "adrfam", "subtype", "portid", "trsvcid", "subnqn", "traddr"]
if all("sectype" in x for x in theirs):    # nvme-cli 2.x prints it for TCP entries
    keys.append("sectype")
norm = lambda recs: sorted(tuple(str(x.get(k, "")).strip() for k in keys) for x in recs)
if norm(ours) != norm(theirs):
    print("ours %s != nvme-cli's %s" % (norm(ours), norm(theirs)))
    sys.exit(1)
print("%d entries, %s compared" % (len(ours), ", ".join(keys)))
PY
		); then ok "tool over TCP: the same entries as nvme discover -t tcp ($why)"
		else bad tool-tcp-nvme-cli "$why"; fi
	else
		echo "SKIP tool-tcp-nvme-cli: no nvme-cli, or nvme discover -t tcp failed: $(head -2 "$WORK/nvme-cli-tcp.err" 2>/dev/null)"
	fi
else
	bad tool-tcp "exit $?: $(head -3 "$WORK/tool-tcp.err")"
fi

# referrals on port 10: to port 11 over TCP (followed) and to RDMA port 1 (listed, not followed)
mkref "$TCP_PORT_DIR" to-tcp2 tcp $TCP2 11 && mkref "$TCP_PORT_DIR" to-rdma1 rdma "$TARGET_PORT" 1 ||
	bad disc-tcp-referral-setup "configfs refused a referral on port 10"
# and on RDMA port 1, one to port 11 over TCP: an RDMA discovery does not follow it
mkref "$NVMET_PORT" to-tcp2 tcp $TCP2 11 || bad disc-tcp-referral-setup "configfs refused a referral on port 1"
sleep 1
if disc_json tool-tcp-ref "$TP1"; then
	disc_want tool-tcp-referrals "$WORK/tool-tcp-ref.json" \
		"sorted((x['trtype'], x['trsvcid']) for x in r if x['subtype'] == 'discovery subsystem referral' and x['from_referral'] == -1) == sorted([('tcp', '$TCP2'), ('rdma', '$TARGET_PORT')]) and subs(ref=[i for i, x in enumerate(r) if x['subtype'] == 'discovery subsystem referral' and x['trtype'] == 'tcp'][0]) == [('tcp', '$NQN', '$TCP2')] and len(subs()) == 3"
else
	bad tool-tcp-ref "exit $?: $(head -3 "$WORK/tool-tcp-ref.err")"
fi
run_fio disc-tcp-referral w $TE --discovery="$TP1" --subnqn=$NQN --mp_policy=round-robin $DJOB
grep -q "discovery $TP1 (generation [0-9]*): 2 TCP path(s) of [0-9]* record(s), 1 referral over other transports not followed" "$WORK/disc-tcp-referral.log" &&
	grep -q "multipath round-robin over 2 paths: $TP1 [1-9][0-9]* I/Os, $TP2 [1-9][0-9]* I/Os" "$WORK/disc-tcp-referral.log" &&
	ok "discovery over TCP with referrals: port 11 a second TCP path, both carried I/O; the RDMA referral not followed" ||
	bad disc-tcp-referral-lines "$(grep -m2 -E 'discovery|multipath' "$WORK/disc-tcp-referral.log" | cut -c1-240 | tr '\n' ' ')"
run_fio disc-rdma-tcpref w --ioengine=external:$ENG --discovery="$TARGET_IP:$TARGET_PORT" --subnqn=$NQN $DJOB
grep -q "discovery $TARGET_IP:$TARGET_PORT (generation [0-9]*): 1 RDMA path(s) of [0-9]* record(s), 1 referral over other transports not followed" "$WORK/disc-rdma-tcpref.log" &&
	grep -q "via $RDMA_DEV port" "$WORK/disc-rdma-tcpref.log" &&
	ok "RDMA discovery: its RDMA path only, the TCP referral not followed" ||
	bad disc-rdma-tcpref-line "$(grep -m2 -E 'discovery|via' "$WORK/disc-rdma-tcpref.log" | cut -c1-240 | tr '\n' ' ')"
rmdir "$TCP_PORT_DIR/referrals/to-tcp2" "$TCP_PORT_DIR/referrals/to-rdma1" "$NVMET_PORT/referrals/to-tcp2" 2>/dev/null

# ---- multipath over TCP: $NQN on port 10 (:4420) and port 11 (:4430) ------------------------
MPT="$TE --traddr=$TP1,$TP2 --subnqn=$NQN"
# (numa, the default, is the fault runs' policy below: path 1 carries the I/O until it goes)
MPV="--name=mp --rw=randwrite --bs=4k --size=2m --iodepth=16 --verify=crc32c --do_verify=1"
for pol in round-robin queue-depth; do
	run_fio "mp-tcp-$pol" w $MPT --mp_policy=$pol $MPV
	line=$(grep -o 'multipath .*' "$WORK/mp-tcp-$pol.log" | head -1)
	n1=$(echo "$line" | grep -o "$TP1 [0-9]* I/Os" | awk '{print $2}')
	n2=$(echo "$line" | grep -o "$TP2 [0-9]* I/Os" | awk '{print $2}')
	grep -q "2 paths, mp_policy $pol, .* via TCP .*; NVMe/TCP: nothing registered" "$WORK/mp-tcp-$pol.log" ||
		bad "mp-tcp-$pol-startline" "no '2 paths, mp_policy $pol ... NVMe/TCP' line: $(grep -m1 'paths, mp_policy' "$WORK/mp-tcp-$pol.log" | cut -c1-240)"
	[ "${n1:-0}" -gt 0 ] && [ "${n2:-0}" -gt 0 ] && ok "mp-tcp $pol: both TCP paths carried I/O ($n1, $n2)" ||
		bad "mp-tcp-$pol-spread" "want both paths used: $line"
done

# a verified 6 s random write (numa: path 1 carries it); 1.5 s in FAULT, 1.5 s later RESTORE: no
# error reaches fio, path 2 takes the I/O, mp_stats records the failover, recovered
MPJ="--name=mpf --rw=randwrite --bs=4k --size=16m --iodepth=16 --verify=crc32c --verify_backlog=64
	--time_based --runtime=6 --ctrl_loss_tmo=30s --reconnect_delay=300ms"
tcp_fault_run() {   # NAME FAULT RESTORE
	local name=$1 rc
	# shellcheck disable=SC2086
	timeout -k 5 120 fio --output-format=json --output="$WORK/$name.json" $MPT $MPJ \
		--mp_stats="$WORK/$name.mp.json" >"$WORK/$name.log" 2>&1 &
	local pid=$!
	for _ in $(seq 100); do grep -q ' 2 paths, mp_policy' "$WORK/$name.log" 2>/dev/null && break; sleep 0.1; done
	sleep 1.5; $2
	sleep 1.5; $3
	wait $pid; rc=$?
	fio_judge "$name" w $rc
	python3 - "$WORK/$name.mp.json" <<'PY' >"$WORK/$name.mpcheck" 2>&1 ||
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert len(recs) == 1, "want one record, got %d" % len(recs)
r = recs[0]
assert r["failovers"] >= 1, "no failover recorded"
ev = r["events"][0]
assert ev["recovered"], "the failover never recovered: %s" % ev
print("failover: %s; %d I/Os moved; recovery %d ms" % (ev["why"], ev["ios_moved"], ev["recovery_ms"]))
PY
		bad "$name-stats" "mp_stats: $(cat "$WORK/$name.mpcheck" "$WORK/$name.mp.json" 2>&1 | head -c 600)"
}
ana10() { echo "$1" > "$TCP_PORT_DIR/ana_groups/1/ana_state"; }
ana10_off() { ana10 inaccessible; }
ana10_on() { ana10 optimized; }

tcp_fault_run mp-tcp-port-removed tcp_port_off tcp_port_on
grep -q "path $TP1 lost: " "$WORK/mp-tcp-port-removed.log" &&
	ok "TCP port removed: $(grep -m1 -o "path $TP1 lost: [^;]*; [0-9]* I/O(s) moved" "$WORK/mp-tcp-port-removed.log")" ||
	bad mp-tcp-port-lost "no 'path $TP1 lost' line"
grep -q "path $TP1 reconnected after" "$WORK/mp-tcp-port-removed.log" &&
	ok "TCP port back: $(grep -m1 -o "path $TP1 reconnected after [0-9]* ms" "$WORK/mp-tcp-port-removed.log")" ||
	bad mp-tcp-port-back "path 1 never reconnected"

if [ -e "$TCP_PORT_DIR/ana_groups/1/ana_state" ]; then
	tcp_fault_run mp-tcp-ana-flip ana10_off ana10_on
	grep -q "path $TP1 leaves the I/O\|path $TP1: ANA group 1 now inaccessible" "$WORK/mp-tcp-ana-flip.log" &&
		ok "TCP ANA inaccessible: I/O left path 1: $(grep -m1 -o "path ${TP1}[^;]*" "$WORK/mp-tcp-ana-flip.log")" ||
		bad mp-tcp-ana-leave "no line saying I/O left path 1"
	grep -q "path $TP1: ANA group 1 now optimized: rejoins" "$WORK/mp-tcp-ana-flip.log" &&
		ok "TCP ANA optimized again: path 1 rejoins" || bad mp-tcp-ana-rejoin "no rejoin line"
else
	bad mp-tcp-ana "no ports/10/ana_groups/1/ana_state"
fi

# both TCP paths gone: the job ends with one line naming each
t0=$(now_ms)
timeout -k 5 120 fio --output-format=json --output="$WORK/mp-tcp-all.json" $MPT --name=all \
	--rw=randread --bs=4k --size=16m --iodepth=8 --time_based --runtime=30 \
	--ctrl_loss_tmo=2s --reconnect_delay=500ms >"$WORK/mp-tcp-all.log" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q ' 2 paths, mp_policy' "$WORK/mp-tcp-all.log" 2>/dev/null && break; sleep 0.1; done
sleep 1; tcp_port_off; rm "$TCP2_DIR/subsystems/$NQN"
wait $pid; rc=$?
tcp_port_on; ln -s "$NVMET_CFG/subsystems/$NQN" "$TCP2_DIR/subsystems/$NQN"
dt=$(( $(now_ms) - t0 ))
if [ $rc != 0 ] && [ $rc -lt 124 ] && grep -q "lane failed: all 2 paths lost: $TP1: .*; $TP2: " "$WORK/mp-tcp-all.log" &&
   [ $dt -lt 20000 ]; then
	ok "both TCP paths lost: fio exited $rc after $dt ms: $(grep -m1 -o 'all 2 paths lost.\{0,160\}' "$WORK/mp-tcp-all.log")"
else
	bad mp-tcp-all-lost "rc $rc after $dt ms (ctrl_loss_tmo 2 s), want the 'all 2 paths lost' line"
	show_log "$WORK/mp-tcp-all.log" 12
fi
rm "$TCP2_DIR/subsystems/$NQN"; rmdir "$TCP2_DIR"

suite_end engine_tcp
