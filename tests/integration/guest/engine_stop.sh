#!/bin/bash
# fio's own stop always works, even when the target stops answering: Ctrl-C (SIGINT), SIGTERM,
# runtime expiry and fio's --timeout end the job within a bound, in process and thread mode,
# poll and event completion, and no job process outlives the fio that started it.
# The target "stops answering" by a device-mapper device under namespace 1, suspended: the
# controller stays up (admin commands work) while every I/O hangs.  And the other way round: a
# lane whose commands a live target answers late, while another lane of its subsystem still
# completes, is waited for (dm-delay under part of the namespace).
. "$(dirname "$0")/lib.sh"
# The engine's bound is ~1.5 s (50 ms to notice, 750 ms grace for commands in flight, short
# teardown steps); this emulated machine adds fio's own reaping and scheduling noise.
LIMIT_MS=${STOP_LIMIT_MS:-5000}
NSCFG=/sys/kernel/config/nvmet/subsystems/$NQN/namespaces/1
DM=tbstall
export DM_DISABLE_UDEV=1          # no udev in the guest: libdevmapper makes the nodes itself


modprobe dm_mod
backing=$(cat "$NSCFG/device_path")
sectors=$(blockdev --getsz "$backing")
echo 0 > "$NSCFG/enable"
dmsetup create --noudevsync "$DM" --table "0 $sectors linear $backing 0"
echo -n "/dev/mapper/$DM" > "$NSCFG/device_path"
echo 1 > "$NSCFG/enable"
echo "namespace 1 now on /dev/mapper/$DM over $backing ($sectors sectors)"

# wait_gone PID MS: 0 once PID has exited (reaped by us or not ours), within MS
wait_gone() {
	local pid=$1 until=$(( $(now_ms) + $2 ))
	while kill -0 "$pid" 2>/dev/null; do
		[ "$(now_ms)" -lt "$until" ] || return 1
		sleep 0.05
	done
	return 0
}

# leftovers NAME: processes of the job named NAME still alive
leftovers() { pgrep -f -- "--name=$1 " || true; }

# start_job NAME ARGS...: fio in the background; returns when the lane has started I/O
start_job() {
	local name=$1
	shift
	FIO_PID=""
	fio $NVMEOF --name=$name --rw=randread --bs=4k --size=16m --iodepth=8 --eta=never "$@" \
		>"$WORK/$name.log" 2>&1 &
	FIO_PID=$!
	local i
	for i in $(seq 200); do
		grep -q "^nvmeof: $name: " "$WORK/$name.log" && break
		sleep 0.1
	done
	START_MS=$(now_ms)             # the lane is up: fio's runtime runs from about here
	sleep 1                        # I/O flows
}

stall()   { dmsetup suspend "$DM"; sleep 1; }    # in-flight I/O drains, new I/O hangs
unstall() { dmsetup resume "$DM"; }

# why_bad NAME STALLED: after fio NAME ended, what is wrong (prints nothing when all is well):
# a job process left behind; with a stalled target no line saying what it left unanswered;
# with a live one, commands given up.
why_bad() {
	local name=$1 st=$2
	sleep 0.2
	if [ -n "$(leftovers "$name")" ]; then
		echo "job process(es) left: $(leftovers "$name" | xargs echo)"
	elif [ "$st" = 1 ] && ! grep -q "nvmeof: $name: lane failed: job stopped with [1-9]" "$WORK/$name.log"; then
		echo "no line saying what the target left unanswered"
	elif [ "$st" = 0 ] && grep -q "lane failed" "$WORK/$name.log"; then
		echo "a live target's commands were given up: $(grep -m1 'lane failed' "$WORK/$name.log")"
	fi
}

# judge NAME STALLED OK-TEXT [WHY]: PASS with OK-TEXT unless WHY (or why_bad) says otherwise;
# a failure shows the job's log and kills what is left of it.
judge() {
	local name=$1 st=$2 text=$3 why=${4:-}
	[ -n "$why" ] || why=$(why_bad "$name" "$st")
	if [ -z "$why" ]; then
		ok "$name: $text"
		return
	fi
	bad "$name" "$why"
	sed 's/^/    | /' "$WORK/$name.log" | tail -8
	kill -9 "$FIO_PID" $(leftovers "$name") 2>/dev/null
	wait "$FIO_PID" 2>/dev/null
}

# stop_case NAME SIGNAL STALL ARGS...: signal fio; it must be gone within LIMIT_MS and leave
# no job process behind.  STALL=1: the target stopped answering first.
stop_case() {
	local name=$1 sig=$2 st=$3 t0 rc
	shift 3
	start_job "$name" --time_based --runtime=120 "$@"
	[ "$st" = 1 ] && stall
	t0=$(now_ms)
	kill -"$sig" "$FIO_PID"
	if wait_gone "$FIO_PID" "$LIMIT_MS"; then
		t0=$(( $(now_ms) - t0 ))
		wait "$FIO_PID"; rc=$?
		judge "$name" "$st" "fio exited $rc $t0 ms after SIG$sig"
	else
		judge "$name" "$st" "" "fio still running $LIMIT_MS ms after SIG$sig"
	fi
	[ "$st" = 1 ] && unstall
	return 0
}

# runtime_case NAME ARGS...: the target stops answering at ~1 s of a 5 s run; fio must end
# within LIMIT_MS of the runtime's end
runtime_case() {
	local name=$1 rc ran why=""
	shift
	start_job "$name" --time_based "$@"
	stall
	if wait_gone "$FIO_PID" $(( 5000 + LIMIT_MS + 20000 )); then
		ran=$(( $(now_ms) - START_MS ))
		wait "$FIO_PID"; rc=$?
		[ $ran -le $((5000 + LIMIT_MS)) ] || why="fio ended $ran ms after the lane started: past the 5 s runtime + $LIMIT_MS ms"
		judge "$name" 1 "fio exited $rc $ran ms after the lane started (runtime 5 s)" "$why"
	else
		judge "$name" 1 "" "fio still running long after its 5 s runtime"
	fi
	unstall
}

# grace_case NAME GRACE_MS ARGS...: as runtime_case, with stop_grace=GRACE_MS: the commands in
# flight are waited for that long after the runtime's end (not the automatic ~1 s), then given
# up with a line that names stop_grace
grace_case() {
	local name=$1 grace=$2 rc ran why=""
	shift 2
	start_job "$name" --time_based --stop_grace=$grace "$@"
	stall
	if wait_gone "$FIO_PID" $(( 5000 + grace + LIMIT_MS + 20000 )); then
		ran=$(( $(now_ms) - START_MS ))
		wait "$FIO_PID"; rc=$?
		if [ $ran -lt $((5000 + grace - 500)) ] || [ $ran -gt $((5000 + grace + LIMIT_MS)) ]; then
			why="fio ended $ran ms after the lane started: want 5 s runtime + $grace ms stop_grace (+ up to $LIMIT_MS ms)"
		elif ! grep -q "nvmeof: $name: lane failed: job stopped with [1-9].* unanswered $grace ms after the last completion (stop_grace)" "$WORK/$name.log"; then
			why="no line giving the commands up after $grace ms (stop_grace)"
		fi
		judge "$name" 1 "fio exited $rc $ran ms after the lane started (runtime 5 s, stop_grace $grace ms)" "$why"
	else
		judge "$name" 1 "" "fio still running long after its 5 s runtime and $grace ms stop_grace"
	fi
	unstall
}

for mode in process thread; do
	t=""; [ $mode = thread ] && t="--thread=1"
	for cpl in poll event; do
		stop_case "int-$mode-$cpl" INT 1 $t --completion=$cpl
	done
	stop_case "term-$mode-poll" TERM 1 $t
	stop_case "int-live-$mode" INT 0 $t     # control: a live target's commands complete
done
runtime_case runtime-process-poll --runtime=5
runtime_case runtime-thread-event --thread=1 --completion=event --runtime=5
runtime_case timeout-option-process --timeout=5
grace_case stop-grace-4s 4000 --runtime=5

# fio's main process killed outright: the job process must not live on (busy-polling) as an
# orphan.  Process mode only (threads die with their process).
for cpl in poll event; do
	name=orphan-$cpl
	start_job "$name" --time_based --runtime=120 --completion=$cpl
	stall
	kill -9 "$FIO_PID"
	wait "$FIO_PID" 2>/dev/null
	t0=$(now_ms)
	until=$((t0 + LIMIT_MS))
	while [ -n "$(leftovers "$name")" ] && [ "$(now_ms)" -lt $until ]; do sleep 0.05; done
	left=$(leftovers "$name")
	if [ -z "$left" ]; then
		ok "$name: the job process ended $(( $(now_ms) - t0 )) ms after fio was killed"
	else
		bad "$name" "job process $left still alive $LIMIT_MS ms after fio was killed"
		kill -9 $left 2>/dev/null
	fi
	unstall
done

# ---- a lane waits while other lanes of its subsystem still complete -------------------------
# After a stop the target drains the lanes' commands in turn: a lane can get nothing back for a
# while although the target answers the others (CI saw 4 jobs of 128 KiB reads, one lane given
# up).  Made certain here: namespace 1's first 8 MiB go through dm-delay (every I/O 4 s late),
# the rest straight.  Job "slow" reads the delayed part (QD4, runtime 2 s, stop_grace=500), job
# "fast" the rest (runtime 6 s): slow's commands come back ~2 s after its stop while fast still
# completes, so slow must end clean.  With fast on the other subsystem, nothing of slow's
# subsystem completes after the stop: slow gives its commands up 500 ms after it (the negative).
OTHERS_DELAY_MS=4000
# job_ios_err JSON JOB: "READ-I/Os ERROR" of JOB; fio writes its error lines into --output
# ahead of the JSON, which tools/nvmeof/fiojson skips
job_ios_err() {
	PYTHONPATH=$REPO python3 - "$1" "$2" <<'PY' 2>/dev/null
import sys
from tools.nvmeof import fiojson
for j in fiojson.load(sys.argv[1])["jobs"]:
    if j["jobname"] == sys.argv[2]:
        print(j["read"]["total_ios"], j["error"])
PY
}
others_case() {
	local name=$1 fast_nqn=$2 want=$3 rc why=""
	shift 3
	timeout -k 5 60 fio $NVMEOF --rw=randread --bs=4k --iodepth=4 --time_based --eta=never \
		--stop_grace=500 --output-format=json --output="$WORK/$name.json" "$@" \
		--name=slow --offset=0 --size=8m --runtime=2 \
		--name=fast --subnqn="$fast_nqn" --offset=16m --size=16m --runtime=6 \
		>"$WORK/$name.log" 2>&1
	rc=$?
	local slow_res fast_res
	slow_res=$(job_ios_err "$WORK/$name.json" slow)
	fast_res=$(job_ios_err "$WORK/$name.json" fast)
	if [ "$want" = clean ]; then
		if [ $rc != 0 ] || grep -q 'lane failed' "$WORK/$name.log"; then
			why="fio exited $rc: $(grep -m1 'lane failed' "$WORK/$name.log")"
		elif [ "$slow_res" != "4 0" ]; then
			why="slow: '$slow_res' (I/Os, error), want its 4 delayed reads completed and no error"
		fi
		[ -z "$why" ] && ok "$name: slow's 4 reads answered $OTHERS_DELAY_MS ms late, 2 s after its stop, while fast completed ($fast_res: I/Os, error)"
	else
		if [ $rc = 0 ]; then
			why="fio exited 0"
		elif ! grep -q "^nvmeof: slow: lane failed: job stopped with 4 command(s), 0 waiting I/O(s) unanswered 500 ms after the last completion (stop_grace)" "$WORK/$name.log"; then
			why="no line giving slow's 4 commands up 500 ms after the stop"
		elif [ "${fast_res#* }" != 0 ] || [ "${fast_res% *}" -lt 100 ] 2>/dev/null; then
			why="fast (other subsystem): '$fast_res' (I/Os, error), want no error"
		fi
		[ -z "$why" ] && ok "$name: $(grep -m1 '^nvmeof: slow: lane failed' "$WORK/$name.log" | cut -c1-150)"
	fi
	if [ -n "$why" ]; then
		bad "$name" "$why"
		show_log "$WORK/$name.log" 8
	fi
}
if modprobe dm_delay 2>/dev/null; then
	printf '0 16384 delay %s 0 %s\n16384 %s linear %s 16384\n' "$backing" $OTHERS_DELAY_MS \
		$((sectors - 16384)) "$backing" | dmsetup reload "$DM" && dmsetup resume "$DM"
	echo "namespace 1: sectors 0-16383 delayed $OTHERS_DELAY_MS ms (dm-delay), the rest linear"
	others_case others-completing-thread "$NQN" clean --thread=1
	others_case others-completing-process "$NQN" clean
	others_case others-other-subsystem "$NQN2" gives-up --thread=1
	echo "0 $sectors linear $backing 0" | dmsetup reload "$DM" && dmsetup resume "$DM"
else
	bad others-completing "modprobe dm_delay failed"
fi

# the target is still fine afterwards
run_fio after-stalls rw $NVMEOF --name=v --rw=randwrite --bs=4k --size=4m --iodepth=8 \
	--verify=crc32c --verify_fatal=1
suite_end engine_stop
