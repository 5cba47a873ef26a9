#!/bin/bash
# guest_compat.sh FIO ENGINE FIO_VERSION - in the testbed guest: the engine built for another
# fio, under that fio binary, against the kernel NVMe/RDMA target: a crc32c verify job and a
# job that gets a real NVMe error status, which fio's errdetails call must print decoded, GPU
# buffers (stand-in driver) in data and benchmark modes; then the output and stop suites under
# that fio.
# Everything it prints also goes to $TESTBED_OUT/results, which compat.sh reads.
FIO=$1 WANT=$3
ENG=$2   # the engine lib.sh runs
[ -n "${TESTBED_OUT:-}" ] && exec >>"$TESTBED_OUT/results" 2>&1
. "$(dirname "$(readlink -f "$0")")/../integration/guest/lib.sh"

# lib.sh runs `fio` from PATH: put this one first.
BIN=$(mktemp -d /tmp/compat-bin.XXXXXX)
ln -s "$FIO" "$BIN/fio"
PATH=$BIN:$PATH
got=$(fio --version 2>&1)
if [ "$got" = "$WANT" ]; then
	ok "guest runs $WANT ($FIO)"
else
	bad "guest runs $WANT" "fio --version says '$got'"
	suite_end guest_compat
fi

run_fio "$WANT-write-crc32c-verify" rw $NVMEOF --name=v --rw=write --bs=4k --size=8m \
	--iodepth=16 --verify=crc32c --do_verify=1 --verify_fatal=1

# null_blk bad blocks under ns 1 make nvmet fail the read with an NVMe status: fio calls the
# engine's errdetails with this fio's signature and prints what it returns.
nb=/sys/kernel/config/nullb/s1n1
if [ -w "$nb/badblocks" ]; then
	echo "+0-7" > "$nb/badblocks"        # 512-byte sectors: the first 4 KiB block
	expect_fail "$WANT-nvme-status-errdetails" \
		'fio: NVMe status 0x[0-7]/0x[0-9a-f]{2}: [A-Za-z].* \(Read, nsid 1, slba 0, 1 blocks\)' \
		$NVMEOF --name=e --rw=read --bs=4k --size=4k --iodepth=1
	echo "-0-7" > "$nb/badblocks"
else
	bad "$WANT-nvme-status-errdetails" "no null_blk badblocks control at $nb"
fi

# GPU buffers through the stand-in CUDA driver under this fio: whether fio needs the data (and
# so whether anything is copied per I/O) comes from fio's own td->flags and options.
SI=$REPO/build/cuda-standin
LD_LIBRARY_PATH=$SI run_fio "$WANT-cuda-verify" rw $NVMEOF --nvmeof_mem=cuda --name=v \
	--rw=randwrite --bs=16k --size=8m --iodepth=16 --verify=crc32c --do_verify=1 --verify_fatal=1
grep -q 'buffers: CUDA device 0 .*; data mode' "$WORK/$WANT-cuda-verify.log" &&
	ok "$WANT-cuda-verify: verify selects data mode" || bad "$WANT-cuda-verify" "not in data mode"
LD_LIBRARY_PATH=$SI NVMF_STANDIN_LOG=$WORK/bench.cuda run_fio "$WANT-cuda-benchmark" w $NVMEOF \
	--nvmeof_mem=cuda --name=b --rw=write --bs=64k --size=8m --iodepth=8
if why=$(python3 "$REPO/tests/integration/cuda_log_check.py" nocopy "$WORK/bench.cuda" 2>&1); then
	ok "$WANT-cuda-benchmark: $why"
else
	bad "$WANT-cuda-benchmark" "$why"
fi

# The suites a newer fio changed the most for the engine, run as they are under this fio:
# strictly parsed json/json+/terse output, and fio's stop against a target that stops
# answering (fio 3.40 renamed in_ramp_time).  Their lines count in compat.sh's totals.
export ENG PATH
for suite in engine_output engine_stop; do
	"$REPO/tests/integration/guest/$suite.sh" 2>&1 | sed -E "s/^(PASS|FAIL) /\1 $WANT $suite: /"
done
suite_end guest_compat
