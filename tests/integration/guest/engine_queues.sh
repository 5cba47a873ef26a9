#!/bin/bash
# Guest half of engine_queues.sh (see there).
. "$(dirname "$0")/lib.sh"
CFG=/sys/kernel/config/nvmet
PORT=$CFG/ports/1
V="--verify=crc32c --do_verify=1 --verify_fatal=1"

# per_queue NAME: the engine's per-queue command counts, one line ("a b c d"), from its log
per_queue() { sed -n 's/.*commands posted per I\/O queue: *//p' "$WORK/$1.log" | head -1; }

# spread NAME N: the start line says N queues, and every one of the N carried commands
spread() {
	local name=$1 n=$2 counts
	counts=$(per_queue "$name")
	if ! grep -qE "nvmeof: [a-z0-9-]+: .*, $n I/O queues of [0-9]+ \(controller grants [0-9]+\)" "$WORK/$name.log"; then
		bad "$name-spread" "no start line with $n I/O queues"; sed 's/^/    | /' "$WORK/$name.log" | head -5
	elif [ "$(echo $counts | wc -w)" != "$n" ] || echo " $counts " | grep -q ' 0 '; then
		bad "$name-spread" "commands per queue: '$counts' (want $n queues, each used)"
	else
		ok "$name-spread: $(grep -m1 -oE '[0-9]+ I/O queues of [0-9]+ \(controller grants [0-9]+\)' "$WORK/$name.log"); commands per queue: $counts"
	fi
}

# verified data over 4 queues, each completion mode; mixed sizes across the 1 MiB MDTS.
# io_queue_pick=balance spreads over all 4 whichever CPU the job runs on (the testbed's auto
# picks by CPU: a job that stays on one CPU uses that CPU's queues only)
B="--io_queue_pick=balance"
for m in poll event hybrid; do
	run_fio "q4-$m" rw $NVMEOF --name=q4 --io_queues=4 $B --completion=$m --rw=randwrite \
		--bsrange=4k-2m --size=32m --iodepth=32 $V
	spread "q4-$m" 4
done
# trims: each queue's DSM ranges under its own key, read by the target
run_fio q4-trim t $NVMEOF --name=q4trim --io_queues=4 $B --rw=randtrim --bs=64k --size=16m --iodepth=16
spread q4-trim 4
# thread mode, numjobs 2: each lane its own 4 queues
run_fio q4-threads rw $NVMEOF --name=q4t --thread=1 --numjobs=2 --offset_increment=16m \
	--io_queues=4 $B --rw=randwrite --bs=8k --size=16m --iodepth=16 $V
spread q4-threads 4

# pick_line NAME JOB WANT: the start line's queue part ends with WANT
pick_line() {
	if grep -qE "nvmeof: $2: .*, [0-9]+ I/O queues of [0-9]+ \(controller grants [0-9]+\), $3, " "$WORK/$1.log"; then
		ok "$1-line: $(grep -m1 -oE '[0-9]+ I/O queues of [0-9]+ \(controller grants [0-9]+\), [^,]+' "$WORK/$1.log")"
	else
		bad "$1-line" "start line without '$3': $(grep -m1 "nvmeof: $2:" "$WORK/$1.log" | cut -c1-300)"
	fi
}
# io_queue_pick=cpu, the job's set CPUs 0 and 1 and 4 queues: CPU 0 posts to queues 0 and 2,
# CPU 1 to 1 and 3.  Where the scheduler runs a job is its own choice, so the test knob
# FIO_NVMEOF_TEST_CPU makes the job post as if from CPU 1: queues 1 and 3 only, both used; the
# data verifies, each completion mode
for m in poll event hybrid; do
	FIO_NVMEOF_TEST_CPU=1 run_fio "pick-cpu-$m" rw $NVMEOF_KNOBS --name=pc --io_queues=4 --io_queue_pick=cpu \
		--cpus_allowed=0,1 --completion=$m --rw=randwrite --bsrange=4k-256k --size=16m --iodepth=32 $V
	counts=$(per_queue "pick-cpu-$m")
	if [[ "$counts" =~ ^0\ [1-9][0-9]*\ 0\ [1-9][0-9]*$ ]]; then
		ok "pick-cpu-$m-queues: commands per queue: $counts"
	else
		bad "pick-cpu-$m-queues" "commands per queue: '$counts' (want queues 1 and 3 only, both used)"
	fi
done
pick_line pick-cpu-poll pc 'by CPU AS IF ON ONE CPU \(test knob\)'
run_fio pick-balance-pinned rw $NVMEOF --name=pb --io_queues=2 $B --cpus_allowed=1 \
	--rw=randwrite --bs=4k --size=16m --iodepth=32 $V
spread pick-balance-pinned 2
pick_line pick-balance-pinned pb 'least busy first'
# the job on CPU 1 alone: a set of one CPU has every queue, least busy first (no knob)
run_fio pick-cpu-q4-1cpu rw $NVMEOF --name=pc4 --io_queues=4 --io_queue_pick=cpu --cpus_allowed=1 \
	--rw=randwrite --bs=4k --size=16m --iodepth=32 $V
spread pick-cpu-q4-1cpu 4
# auto in the testbed (Soft-RoCE, the target on this host): by CPU, and it says why
run_fio pick-auto r $NVMEOF --name=pa --io_queues=2 --rw=randread --bs=4k --size=8m \
	--iodepth=16 --number_ios=4000
pick_line pick-auto pa 'by CPU \(software RDMA device, local target\)'
# QD1 on 3 queues: never more than one outstanding, all the same on queue 0 is fine; the data
# must still verify
run_fio q3-qd1 rw $NVMEOF --name=q3 --io_queues=3 --rw=write --bs=4k --size=4m --iodepth=1 $V

# auto: the CPUs the job may use (fio's cpus_allowed), the controller granting more
run_fio auto-1cpu r $NVMEOF --name=a1 --io_queues=auto --cpus_allowed=0 --rw=randread --bs=4k \
	--size=8m --iodepth=8 --number_ios=2000
if grep -qE 'nvmeof: a1: .*, 1 I/O queues of [0-9]+ \(controller grants [0-9]+\)' "$WORK/auto-1cpu.log"; then
	ok "auto-1cpu: $(grep -m1 -oE '1 I/O queues of [0-9]+ \(controller grants [0-9]+\)' "$WORK/auto-1cpu.log")"
else
	bad auto-1cpu "start line: $(grep -m1 'nvmeof: a1:' "$WORK/auto-1cpu.log" | cut -c1-200)"
fi
ncpu=$(nproc)
run_fio auto-all r $NVMEOF --name=aa --io_queues=auto $B --rw=randread --bs=4k --size=8m \
	--iodepth=16 --number_ios=4000
spread auto-all "$ncpu"

# bad values: one line naming the option
expect_fail io_queues-zero 'nvmeof: io_queues=0: give 1\.\.64 I/O queue pairs, or auto' \
	$NVMEOF --name=b --io_queues=0 --rw=read --bs=4k --size=1m
expect_fail io_queues-65 'nvmeof: io_queues=65: give 1\.\.64' $NVMEOF --name=b --io_queues=65 \
	--rw=read --bs=4k --size=1m
expect_fail io_queues-word 'nvmeof: io_queues=many: give 1\.\.64' $NVMEOF --name=b \
	--io_queues=many --rw=read --bs=4k --size=1m

# a controller that grants fewer: subsystem 2 limited to 2 I/O queues (nvmet attr_qid_max)
QM=$CFG/subsystems/$NQN2/attr_qid_max
if [ -w "$QM" ] && old=$(cat "$QM") && echo 2 > "$QM" 2>/dev/null; then
	N2="--ioengine=external:$ENG --traddr=$TARGET_IP --subnqn=$NQN2"
	expect_fail grants-fewer 'nvmeof: g: io_queues=4: the controller grants 2 I/O queue\(s\) \(Set Features Number of Queues\)' \
		$N2 --name=g --io_queues=4 --rw=read --bs=4k --size=1m
	run_fio grants-fewer-auto rw $N2 --name=ga --io_queues=auto --rw=randwrite --bs=4k --size=8m \
		--iodepth=8 $V
	if [ "$ncpu" -ge 2 ]; then spread grants-fewer-auto 2; fi
	echo "$old" > "$QM"
else
	echo "SKIP grants-fewer: $QM not writable on this kernel"
fi

# the lane lost with 4 queues, then back: in-flight I/O resubmitted, verify clean (port_off,
# port_on: lib.sh)
timeout -k 5 "$FIO_TIMEOUT" fio $NVMEOF --name=rq --io_queues=4 --rw=randwrite --bs=16k \
	--size=16m --iodepth=16 --rate_iops=250 $V --ctrl_loss_tmo=20000 --reconnect_delay=500 \
	--retry_on_reconnect=1 --io_timeout=5000 --eta=never --output-format=json \
	--output="$WORK/reconnect.json" >"$WORK/reconnect.log" 2>&1 &
pid=$!
for i in $(seq 300); do grep -q '^nvmeof: rq: nqn' "$WORK/reconnect.log" && break; sleep 0.1; done
sleep 1; port_off; sleep 2; port_on
wait $pid; rc=$?
if [ $rc = 0 ] && grep -q 'nvmeof: rq: reconnected after' "$WORK/reconnect.log" &&
   $CHECK_JSON "$WORK/reconnect.json" rw >/dev/null; then
	ok "reconnect-4q: rc 0, verify clean: $(grep -m1 'reconnected after' "$WORK/reconnect.log")"
else
	bad reconnect-4q "fio exited $rc"; sed 's/^/    | /' "$WORK/reconnect.log" | tail -10
fi
spread reconnect 4

suite_end engine_queues
