#!/bin/bash
# Memory safety and leaks of the engine with real verbs: fio under valgrind memcheck against
# the kernel target.  Any invalid access, uninitialised use or definitely-lost block in any
# process (fio, its job processes, the namespace probe) fails the check.  Blocks that
# libibverbs/librdmacm keep for the process lifetime are "possibly lost" and not counted.
. "$(dirname "$0")/lib.sh"
VG="valgrind --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 --suppressions=$REPO/tests/integration/fio-own.supp"

vg_check() {  # NAME EXPECTED_FIO_RC fio args...
	local name=$1 want=$2 rc
	shift 2
	timeout -k 5 900 $VG fio "$@" >"$WORK/$name.log" 2>&1
	rc=$?
	local summaries errors
	summaries=$(grep -c 'ERROR SUMMARY:' "$WORK/$name.log")
	errors=$(grep 'ERROR SUMMARY:' "$WORK/$name.log" | grep -vc 'ERROR SUMMARY: 0 errors')
	if [ "$rc" != "$want" ] || [ "$summaries" = 0 ] || [ "$errors" != 0 ]; then
		bad "$name" "fio under valgrind exited $rc (want $want), $errors of $summaries process(es) with errors"
		grep -E -A14 'Invalid|uninitialised|definitely lost in' "$WORK/$name.log" | head -60 | sed 's/^/    | /'
		return
	fi
	ok "$name ($summaries process(es), 0 errors, no definite leaks)"
}

# Each fio under valgrind costs most of a minute to start in the emulated guest, so the cases
# share runs: one in thread mode (lanes with 3 queues in event mode, then the keep-alive
# thread started and stopped with its lane, then GPU buffers through the stand-in CUDA driver
# (tests/cuda-standin) with verify), one in process mode (split writes and trims over 2
# queues), and one whose two jobs must both fail at setup and release everything.
SI=$REPO/build/cuda-standin
LD_LIBRARY_PATH=$SI vg_check thread-mode-lanes-keepalive-cuda 0 $NVMEOF --thread=1 \
	--name=v --rw=randwrite --bs=4k --size=128k --offset_increment=128k --numjobs=2 --iodepth=8 \
	--verify=crc32c --do_verify=1 --verify_fatal=1 --io_queues=3 --completion=event \
	--name=k --stonewall --kato=1000 --rw=randread --bs=4k --size=128k --iodepth=4 \
	--thinktime=1500ms --thinktime_blocks=16 \
	--name=c --stonewall --nvmeof_mem=cuda --rw=randwrite --bs=64k --size=1m --offset_increment=1m \
	--numjobs=2 --iodepth=4 --verify=crc32c --do_verify=1 --verify_fatal=1
vg_check split-and-trim-process-mode 0 $NVMEOF --io_queues=2 --name=v --rw=write --bs=2m --size=4m \
	--iodepth=2 --verify=crc32c --do_verify=1 --name=t --stonewall --rw=randtrim --bs=64k \
	--size=256k --iodepth=4
# a failure after the device allocation (the SYNC_MEMOPS attribute refused), and a block size
# the namespace cannot take: both jobs must say why, each lane released in full (fio exits
# with the number of jobs that failed: 2)
LD_LIBRARY_PATH=$SI NVMF_STANDIN_FAIL=cuPointerSetAttribute:1 vg_check setup-failures 2 \
	$NVMEOF --name=cuda-attach --nvmeof_mem=cuda --rw=randwrite --bs=4k --size=64k \
	--name=bs-refused --rw=randread --bs=2k --size=64k
for why in 'cuPointerSetAttribute\(SYNC_MEMOPS\)' 'bs 2048.*not a multiple'; do
	grep -qE "$why" "$WORK/setup-failures.log" && ok "setup-failures: /$why/ said" ||
		bad "setup-failures" "no line matching /$why/"
done
suite_end engine_valgrind
