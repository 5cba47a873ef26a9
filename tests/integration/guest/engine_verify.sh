#!/bin/bash
# Data-path proof against the kernel NVMe/RDMA target: fio verify through the engine.
. "$(dirname "$0")/lib.sh"
V="--verify_fatal=1 --do_verify=1"
S=16m

# verify kinds x directions
for v in crc32c md5 pattern; do
	vo="--verify=$v"; [ $v = pattern ] && vo="--verify=pattern --verify_pattern=0x5aa5c33c"
	run_fio "write-$v"     rw $NVMEOF --name=w --rw=write --bs=64k --size=$S --iodepth=8 $vo $V
	run_fio "randwrite-$v" rw $NVMEOF --name=w --rw=randwrite --bs=4k --size=$S --iodepth=16 $vo $V
done
# randrw with verify: a written region, then mixed traffic verified inline
run_fio randrw-crc32c rw $NVMEOF --name=w --rw=randrw --rwmixread=50 --bs=8k --size=$S \
	--iodepth=16 --verify=crc32c --verify_backlog=64 --verify_fatal=1 --number_ios=2048

# block sizes from 512 B to 4 MiB (MDTS is 1 MiB: 2m and 4m split into several commands)
# (512 B over 4 MiB: 8192 I/Os each way is coverage enough, and 32 MiB of them took 50 s)
for bs in 512 4k 128k 1m 2m 4m; do
	ns=1 size=32m; [ $bs = 512 ] && ns=$NS_512 size=4m
	run_fio "bs-$bs" rw $NVMEOF --nsid=$ns --name=w --rw=write --bs=$bs --size=$size --iodepth=4 \
		--verify=crc32c $V
done
run_fio bsrange rw $NVMEOF --name=w --rw=randwrite --bsrange=4k-2m --size=32m --iodepth=8 \
	--verify=crc32c $V
run_fio bssplit rw $NVMEOF --name=w --rw=randwrite --bssplit=4k/50:64k/30:1m/15:3m/5 --size=32m \
	--iodepth=8 --verify=md5 $V

# queue depths
for qd in 1 2 32 128; do
	run_fio "iodepth-$qd" rw $NVMEOF --name=w --rw=randwrite --bs=4k --size=8m --iodepth=$qd \
		--iodepth_batch_submit=$(( qd > 8 ? 8 : 1 )) --verify=crc32c $V
done

# lanes: numjobs in process and thread mode, each job its own region
for mode in process thread; do
	t=""; [ $mode = thread ] && t="--thread=1"
	for nj in 2 4; do
		run_fio "numjobs-$nj-$mode" rw $NVMEOF $t --name=w --rw=randwrite --bs=4k --size=4m \
			--offset_increment=4m --numjobs=$nj --iodepth=8 --verify=crc32c $V --group_reporting
	done
done

# the 512-byte-LBA namespace
run_fio lba512-randwrite rw $NVMEOF --nsid=$NS_512 --name=w --rw=randwrite --bs=512 --size=4m \
	--iodepth=16 --verify=crc32c $V

# the lane negotiated in-capsule writes with this port (4 KiB)
fio $NVMEOF --name=w --rw=randwrite --bs=4k --size=1m --iodepth=4 >"$WORK/startline.log" 2>&1
if grep -q 'nvmeof: w: .* in-capsule 4096 B' "$WORK/startline.log"; then
	ok "in-capsule 4096 B negotiated: $(grep -m1 'nvmeof: w:' "$WORK/startline.log")"
else
	bad "in-capsule negotiation" "no 'in-capsule 4096 B' in the start line"
	sed 's/^/    | /' "$WORK/startline.log" | head
fi
fio $NVMEOF --inline_data=off --name=w --rw=randwrite --bs=4k --size=1m --iodepth=4 >"$WORK/startline2.log" 2>&1
grep -q 'nvmeof: w: .* in-capsule 0 B' "$WORK/startline2.log" && ok "inline_data=off reports in-capsule 0 B" ||
	bad "inline_data=off" "start line does not say in-capsule 0 B"

# the queue pairs' ACK timeout: the RDMA CM's (RoCE: 2^19 x 4.096 us), or ack_timeout's, as the
# device holds it (ibv_query_qp)
if grep -qE 'nvmeof: w: .*, ACK timeout [0-9.]+ (s|ms)' "$WORK/startline.log"; then
	ok "default ACK timeout shown: $(grep -m1 -oE 'ACK timeout [0-9.]+ (s|ms)' "$WORK/startline.log")"
else
	bad "default ACK timeout" "the start line shows none"
fi
fio $NVMEOF --ack_timeout=14 --name=w --rw=randwrite --bs=4k --size=1m --iodepth=4 >"$WORK/ack.log" 2>&1
grep -q 'nvmeof: w: .*, ACK timeout 67 ms' "$WORK/ack.log" && ok "ack_timeout=14: the queue pairs hold 67 ms" ||
	{ bad "ack_timeout=14" "the start line does not say ACK timeout 67 ms"; grep -m1 'nvmeof: w:' "$WORK/ack.log" | sed 's/^/    | /'; }

# in-capsule writes off by option (the target offers 4 KiB)
run_fio inline-off rw $NVMEOF --inline_data=off --name=w --rw=randwrite --bs=4k --size=8m \
	--iodepth=16 --verify=crc32c $V

# event completion mode
run_fio completion-event rw $NVMEOF --completion=event --name=w --rw=randwrite --bs=4k --size=8m \
	--iodepth=16 --verify=crc32c $V

# hybrid completion: spin poll_us after activity, then sleep on the completion channel
run_fio completion-hybrid rw $NVMEOF --completion=hybrid --poll_us=50 --name=w --rw=randwrite \
	--bs=4k --size=8m --iodepth=16 --verify=crc32c $V
run_fio completion-hybrid-qd1 rw $NVMEOF --completion=hybrid --name=w --rw=randwrite --bs=4k \
	--size=2m --iodepth=1 --verify=crc32c $V

# delay_submit: a commit with commands in flight is posted at the next getevents, in one chain
# with the other I/Os committed meanwhile.  fio's submit histogram counts the I/Os each post
# hands it (iodepth_submit: 1-4 under "4", 5-8 under "8", ...): chains of more than 4 appear
# only when posts are held back (the job's first 32 I/Os go out as 1 + 31), never with 0.
run_fio delay-submit-on rw $NVMEOF --name=w --rw=randwrite --bs=4k --size=8m --iodepth=32 \
	--verify=crc32c $V
run_fio delay-submit-off rw $NVMEOF --delay_submit=0 --name=w --rw=randwrite --bs=4k --size=8m \
	--iodepth=32 --verify=crc32c $V
over4() { python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["jobs"][0]["iodepth_submit"]
print(round(sum(v for k,v in s.items() if k not in ("0","4")), 3))' "$WORK/$1.json" 2>/dev/null; }
on=$(over4 delay-submit-on) off=$(over4 delay-submit-off)
if [ -n "$on" ] && [ -n "$off" ] && awk -v a="$on" -v b="$off" 'BEGIN{exit !(a > 0 && b == 0)}'; then
	ok "delay_submit: posts of more than 4 I/Os $on% with it, $off% without"
else
	bad "delay_submit" "posts of more than 4 I/Os: '$on'% with it (want > 0), '$off'% without (want 0)"
fi

# submit_batch: held I/Os go out once that many wait (or none is in flight).  fio hands out one
# completion per getevents and commits one I/O after each, so with submit_batch=1 posts are
# of 1-4 I/Os ("4"); with 8 most posts carry 5-8 ("8").  64 KiB I/Os keep the target busy, so
# the "none in flight" rule (which posts at once) rarely fires.  Both jobs verify their data.
run_fio submit-batch-8 rw $NVMEOF --submit_batch=8 --name=w --rw=randwrite --bs=64k --size=16m \
	--iodepth=32 --verify=crc32c $V
run_fio submit-batch-1 rw $NVMEOF --submit_batch=1 --name=w --rw=randwrite --bs=64k --size=16m \
	--iodepth=32 --verify=crc32c $V
bucket8() { python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["jobs"][0]["iodepth_submit"]["8"], 3))' \
	"$WORK/$1.json" 2>/dev/null; }
b8=$(bucket8 submit-batch-8) b1=$(bucket8 submit-batch-1)
if [ -n "$b8" ] && [ -n "$b1" ] && awk -v a="$b8" -v b="$b1" 'BEGIN{exit !(a > 50 && b < 5)}'; then
	ok "submit_batch: posts of 5-8 I/Os $b8% with submit_batch=8, $b1% with 1"
else
	bad "submit_batch" "posts of 5-8 I/Os: '$b8'% with submit_batch=8 (want > 50), '$b1'% with 1 (want < 5)"
fi

# submit_batch=0 (the default) with a software RDMA device and the target on this host (the
# testbed): iodepth/2, here 16, and the start line says so; most posts then carry 9-16 I/Os
# ("16").  An explicit submit_batch (the job above) is not announced.  The job verifies its data.
run_fio submit-batch-auto rw $NVMEOF --name=w --rw=randwrite --bs=64k --size=16m --iodepth=32 \
	--verify=crc32c $V
want_batch='poll (submit batch 16 = iodepth/2: software RDMA device, local target) via'
bucket16=$(python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["jobs"][0]["iodepth_submit"]["16"], 3))' \
	"$WORK/submit-batch-auto.json" 2>/dev/null)
if ! grep -qF "$want_batch" "$WORK/submit-batch-auto.log"; then
	bad "submit_batch auto" "the start line lacks '$want_batch'"
	grep -m1 'nvmeof: w:' "$WORK/submit-batch-auto.log" | sed 's/^/    | /'
elif grep -q 'submit batch' "$WORK/submit-batch-8.log"; then
	bad "submit_batch auto" "submit_batch=8's start line names a batch"
elif [ -z "$bucket16" ] || ! awk -v a="$bucket16" 'BEGIN{exit !(a > 50)}'; then
	bad "submit_batch auto" "posts of 9-16 I/Os: '$bucket16'% (want > 50)"
else
	ok "submit_batch auto: '$want_batch', posts of 9-16 I/Os $bucket16%"
fi

# inline_data=auto with a software RDMA device and the target on this host (the testbed):
# writes go keyed in a job with iodepth above 4, in-capsule up to 4; when fio runs several jobs
# (here numjobs=2, whose clones count) they stay in-capsule up to 16 (docs/benchmarks.md "In-capsule writes
# with Soft-RoCE and a local target"); inline_data=on keeps them in-capsule at any iodepth.
# Every job verifies its data.
for j in auto-qd8:8:1: auto-qd4:4:1: auto-qd16-j2:16:2: auto-qd32-j2:32:2: on-qd32:32:1:--inline_data=on; do
	IFS=: read -r n qd nj opt <<<"$j"
	run_fio "icd-$n" rw $NVMEOF $opt --name=w --rw=randwrite --bs=4k --size=8m --iodepth=$qd \
		--numjobs=$nj --offset_increment=8m --verify=crc32c $V
done
icd_start() { grep -m1 -oE 'in-capsule [0-9]+ B( of [0-9]+ offered \([^)]*\))?,' "$WORK/icd-$1.log"; }
keyed() { echo "in-capsule 0 B of 4096 offered (iodepth $1 > $2: software RDMA device, local target),"; }
for c in "auto-qd8|$(keyed 8 4)" "auto-qd4|in-capsule 4096 B," "auto-qd16-j2|in-capsule 4096 B," \
	 "auto-qd32-j2|$(keyed 32 16)" "on-qd32|in-capsule 4096 B,"; do
	n=${c%%|*} want=${c#*|}
	if [ "$(icd_start "$n")" = "$want" ]; then
		ok "inline_data $n: '$want'"
	else
		bad "inline_data $n" "start line has '$(icd_start "$n")', want '$want'"
	fi
done

# fio buffer allocators
echo 64 > /proc/sys/vm/nr_hugepages 2>/dev/null
for mem in malloc mmap mmaphuge shmhuge; do
	run_fio "mem-$mem" rw $NVMEOF --mem=$mem --name=w --rw=write --bs=128k --size=8m \
		--iodepth=4 --verify=crc32c $V
done

# trim: deallocated blocks read back as zeroes.  (fio 3.33's trim_verify_zero cannot be used:
# with rw=write fio itself asserts in td_io_queue's fio_ro_check when the trim backlog issues
# trims, and with trimwrite its verify log expects data in blocks it trimmed.)  So: write,
# randtrim everything, then verify every block against an all-zero pattern ...
run_fio trim-reads-zero rwt $NVMEOF --name=w --rw=write --bs=64k --size=8m --iodepth=4 \
	--name=t --stonewall --rw=randtrim --bs=4k --size=8m --iodepth=8 \
	--name=r --stonewall --rw=read --bs=64k --size=8m --iodepth=4 --verify=pattern \
	--verify_pattern=0 --verify_fatal=1 --do_verify=1
# ... and the same zero check must fail on blocks that were written and not trimmed.
expect_fail zero-check-catches-data 'verify failed' $NVMEOF --name=w --rw=write --bs=64k --size=8m \
	--iodepth=4 --name=r --stonewall --rw=read --bs=64k --size=8m --iodepth=4 --verify=pattern \
	--verify_pattern=0 --verify_fatal=1 --do_verify=1
# flush: fsync and fdatasync every few writes
run_fio fsync rw $NVMEOF --name=w --rw=randwrite --bs=4k --size=4m --iodepth=8 --fsync=8 \
	--verify=crc32c $V
run_fio fdatasync rw $NVMEOF --name=w --rw=write --bs=4k --size=4m --iodepth=1 --fdatasync=4 \
	--verify=crc32c $V

# an SPDK plugin style filename (transport ID, fio's \: escaping), no traddr/subnqn options
tid="trtype=RDMA adrfam=IPv4 traddr=$TARGET_IP trsvcid=$TARGET_PORT subnqn=${NQN//:/\\:} ns=$NS_512"
run_fio spdk-filename rw --ioengine=external:$ENG "--filename=$tid" --name=w --rw=randwrite \
	--bs=4k --size=4m --iodepth=8 --verify=crc32c $V
# two namespaces of one subsystem in one job (one lane)
tid1="trtype=RDMA traddr=$TARGET_IP trsvcid=$TARGET_PORT subnqn=${NQN//:/\\:} ns=1"
run_fio two-namespaces rw --ioengine=external:$ENG "--filename=$tid1:$tid" --name=w \
	--rw=randwrite --bs=4k --size=8m --iodepth=8 --verify=crc32c $V
# the second subsystem
run_fio subsystem2 rw --ioengine=external:$ENG --traddr=$TARGET_IP --subnqn=$NQN2 --name=w \
	--rw=randwrite --bs=4k --size=4m --iodepth=8 --verify=crc32c $V

# I/Os whose commands outnumber the queue's slots (MDTS 1 MiB: a 2 MiB I/O is 2 commands; the
# I/O queue holds 127): they wait inside the engine, in order, and verify over the whole area.
# (Before, the engine answered FIO_Q_BUSY and fio 3.33 redrew a re-queued write's verify seed:
# "verify: bad header rand_seed".)  The engine's closing line proves the wait happened.
backlog_job() {  # NAME MODE-ARGS JOB-ARGS...
	local name=$1 mode=$2
	shift 2
	run_fio "$name" rw $NVMEOF $mode --name=b --rw=randrw --rwmixread=50 --size=192m \
		--verify=crc32c --verify_fatal=1 --do_verify=1 "$@"
	if grep -qE "nvmeof: b: [1-9][0-9]* of [0-9]+ I/Os waited for free queue slots" "$WORK/$name.log"; then
		ok "$name: $(grep -m1 -oE '[0-9]+ of [0-9]+ I/Os waited.*' "$WORK/$name.log")"
	else
		bad "$name" "no I/O waited for queue slots: the job did not exercise the backlog"
		sed 's/^/    | /' "$WORK/$name.log" | tail -5
	fi
}
# (each shape in one of fio's modes: the backlog is the engine's own, the same in both)
backlog_job backlog-2m-qd128-process "" --bs=2m --iodepth=128
backlog_job backlog-bssplit-thread --thread=1 --bssplit=4k/25:128k/15:1m/20:2m/40 --iodepth=128

suite_end engine_verify
