#!/bin/bash
# guest_bench.sh - the guest half of `make bench` (run by tests/bench/bench.sh inside the testbed,
# booted with --connect).  Fills the first 64 MiB of namespace 1 once, then runs three workloads
# (4k randread QD1, 4k randread QD32, 128k sequential read QD8) through this engine and through
# the kernel NVMe/RDMA initiator (libaio and io_uring, direct=1 on $NVME_DEV), one workload at a
# time so the rows compared with each other run back to back.  For every run it keeps fio's
# JSON and the guest's non-idle CPU time from /proc/stat twice: around the whole fio process
# (start-up, the engine's connect and teardown included) and around fio's I/O loop only (fio's
# exec_prerun/exec_postrun hooks, which run after the engine's init/connect and before its
# cleanup); report.py turns them into the table ($TESTBED_OUT/table.txt).  Exit 1 if any job failed (io_uring missing in the guest
# is reported in the table, not a failure).  Every fio runs under timeout(1).
#
# env: BENCH_RUNTIME          seconds per job (default 10)
#      BENCH_ENGINE_MODES     the engine's completion= modes to run, each its own row
#                             (default "poll event"; poll is the engine's default)
#      BENCH_FIO_SLACK        seconds a fio may take beyond its runtime before it is killed (60)
#      BENCH_SIZE             region read by every job and filled first (default 64m)
set -u
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ENG=${ENG:-$REPO/build/libfio_nvmeof.so}
RUNTIME=${BENCH_RUNTIME:-10}
MODES=${BENCH_ENGINE_MODES:-poll event}
SLACK=${BENCH_FIO_SLACK:-60}
SIZE=${BENCH_SIZE:-64m}
OUT=${TESTBED_OUT:?run inside the testbed (tests/bench/bench.sh)}
RAW=$OUT/raw
MANIFEST=$OUT/manifest.tsv
HZ=$(getconf CLK_TCK)
FIO_TIMEOUT=$((RUNTIME + SLACK))
failed=0
WORK=$(mktemp -d /tmp/bench.XXXXXX) || exit 1      # fio's cwd: exec_prerun/postrun files land here
trap 'rm -rf "$WORK"' EXIT

mkdir -p "$RAW" || exit 1
: > "$MANIFEST"
log() { echo "bench: $*"; }

: "${TARGET_IP:?}" "${NQN:?}"
if [ -z "${NVME_DEV:-}" ] || [ ! -b "$NVME_DEV" ]; then
	log "NVME_DEV is not set or not a block device: the testbed must be booted with --connect"
	exit 1
fi
[ -f "$ENG" ] || { log "engine $ENG not found (run make)"; exit 1; }

# non-idle jiffies summed over all CPUs: user+nice+system+irq+softirq+steal
busy_jiffies() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }

# stat_delta BEFORE AFTER: "busy total" jiffies between two saved "cpu ..." lines of /proc/stat
stat_delta() {
	[ -s "$1" ] && [ -s "$2" ] || { echo "- -"; return; }
	awk '$1 == "cpu" { b[NR > 1] = $2 + $3 + $4 + $7 + $8 + $9; t[NR > 1] = b[NR > 1] + $5 + $6 }
	     END { print b[1] - b[0], t[1] - t[0] }' "$1" "$2"
}

# Soft-RoCE's own counters: retransmissions (a requester's ACK timer fired) and the duplicate
# packets they cause, and RNR NAKs.  Each retransmission stalls a queue for the QP's ACK
# timeout, so they explain outliers in the table better than the initiator does.
HC=/sys/class/infiniband/${RDMA_DEV:-rxe0}/ports/1/hw_counters
RXE_COUNTERS="completer_retry_err duplicate_request rcvd_rnr_err send_rnr_err out_of_seq_request"
rxe_snap() { local c; for c in $RXE_COUNTERS; do cat "$HC/$c" 2>/dev/null || echo 0; done | xargs echo; }
rxe_delta() {  # BEFORE AFTER (space-separated counter values, same order as RXE_COUNTERS)
	awk -v a="$1" -v b="$2" -v n="$RXE_COUNTERS" 'BEGIN { split(a, x); split(b, y); k = split(n, m);
		for (i = 1; i <= k; i++) printf "%s=%d%s", m[i], y[i] - x[i], i < k ? " " : "\n" }'
}

# run NAME -- fio args...: one fio under timeout, its first job named JOB (first --name=);
# record a manifest line: name, status, rc, json, log, busy jiffies around the fio process,
# wall seconds, note, busy and total jiffies of the I/O loop (exec_prerun..exec_postrun)
run() {
	local name=$1 job='' a j0 j1 t0 t1 rc st note='' loop
	shift
	for a in "$@"; do case $a in --name=*) job=${a#--name=}; break;; esac; done
	rm -f "$WORK"/*.prerun.txt "$WORK"/*.postrun.txt
	local rx0 rx1
	rx0=$(rxe_snap)
	j0=$(busy_jiffies); t0=$(date +%s.%N)
	(cd "$WORK" && exec timeout -k 5 "$FIO_TIMEOUT" fio --output-format=json \
		--output="$RAW/$name.json" "$@" \
		--exec_prerun="head -1 /proc/stat" --exec_postrun="head -1 /proc/stat") \
		> "$RAW/$name.log" 2>&1
	rc=$?
	j1=$(busy_jiffies); t1=$(date +%s.%N)
	rx1=$(rxe_snap)
	printf '  %-28s %s\n' "$name" "$(rxe_delta "$rx0" "$rx1")" >> "$OUT/rxe_counters.txt"
	loop=$(stat_delta "$WORK/$job.prerun.txt" "$WORK/$job.postrun.txt")
	st=ok
	if [ $rc != 0 ]; then
		st=fail
		case $rc in 124|137) note="fio killed by timeout after ${FIO_TIMEOUT}s";; *) note="fio exited $rc";; esac
		failed=$((failed + 1))
		log "FAIL $name: $note; fio said:"
		sed 's/^/bench:   | /' "$RAW/$name.log" | tail -15
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$st" "$rc" "$RAW/$name.json" \
		"$RAW/$name.log" "$((j1 - j0))" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b - a}')" \
		"$note" ${loop% *} ${loop#* } >> "$MANIFEST"
	log "$name: $st (rc $rc, $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b - a}') s)"
	return $rc
}

unavailable() {  # unavailable NAME WHY
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" unavailable - - - 0 0 "$2" - - >> "$MANIFEST"
	log "$1: unavailable: $2"
}

rm -f "$OUT/rxe_counters.txt"
log "runtime ${RUNTIME}s/job, size $SIZE, engine modes: $MODES, $(nproc) vCPUs, CLK_TCK $HZ," \
	"kernel initiator on $NVME_DEV, $(fio --version)"
{
	echo "runtime=$RUNTIME"; echo "size=$SIZE"; echo "hz=$HZ"; echo "ncpu=$(nproc)"
	echo "fio=$(fio --version)"; echo "kernel=$(uname -r)"; echo "backing=${TESTBED_BACKING:-?}"
	echo "nvme_dev=$NVME_DEV"; echo "modes=$MODES"
} > "$OUT/meta.txt"

# ------------------------------------------------------------------ fill (once)
log "filling the first $SIZE of namespace 1 (sequential write, 128k, kernel initiator)"
if ! run fill --name=fill --ioengine=libaio --filename="$NVME_DEV" --direct=1 --rw=write \
	--bs=128k --iodepth=8 --size="$SIZE"; then
	log "the fill failed: reads below may hit unwritten blocks"
fi

# ------------------------------------------------------------------ io_uring in this guest?
uring=1 uring_why=''
if ! timeout -k 5 60 fio --name=probe --ioengine=io_uring --filename="$NVME_DEV" --direct=1 \
	--rw=read --bs=4k --size=4k --io_size=4k > "$RAW/io_uring-probe.log" 2>&1; then
	uring=0
	uring_why="io_uring unavailable in the guest: $(grep -m1 -iE 'io_uring|error|fail' \
		"$RAW/io_uring-probe.log" | tr -s ' \t' ' ' | cut -c1-100)"
	[ "$uring_why" != "io_uring unavailable in the guest: " ] || uring_why="io_uring unavailable in the guest (fio probe failed)"
	log "$uring_why"
fi

# ------------------------------------------------------------------ the workloads
COMMON=(--size="$SIZE" --time_based=1 --runtime="$RUNTIME" --percentile_list=50:99:99.9
	--lat_percentiles=1 --randrepeat=1)
NVMEOF=(--ioengine=external:"$ENG" --traddr="$TARGET_IP" --trsvcid="${TARGET_PORT:-4420}"
	--subnqn="$NQN" --nsid=1)
KERNEL=(--filename="$NVME_DEV" --direct=1)

for wl in randread-4k-qd1 randread-4k-qd32 read-128k-qd8; do
	case $wl in
	randread-4k-qd1)  W=(--rw=randread --bs=4k --iodepth=1);;
	randread-4k-qd32) W=(--rw=randread --bs=4k --iodepth=32);;
	read-128k-qd8)    W=(--rw=read --bs=128k --iodepth=8);;
	esac
	for m in $MODES; do
		run "$wl.engine-$m" --name="$wl" "${COMMON[@]}" "${W[@]}" "${NVMEOF[@]}" --completion="$m"
	done
	run "$wl.kernel-libaio" --name="$wl" "${COMMON[@]}" "${W[@]}" --ioengine=libaio "${KERNEL[@]}"
	if [ $uring = 1 ]; then
		run "$wl.kernel-io_uring" --name="$wl" "${COMMON[@]}" "${W[@]}" --ioengine=io_uring "${KERNEL[@]}"
	else
		unavailable "$wl.kernel-io_uring" "$uring_why"
	fi
done

# ------------------------------------------------------------------ the table
if ! python3 "$REPO/tests/bench/report.py" "$OUT" > "$OUT/table.txt" 2> "$OUT/report.err"; then
	log "report.py failed:"; sed 's/^/bench:   | /' "$OUT/report.err"
	failed=$((failed + 1))
fi
{
	echo
	echo "Soft-RoCE counters per run (device-wide, rxe0: initiator and target QPs together):"
	cat "$OUT/rxe_counters.txt" 2>/dev/null
} >> "$OUT/table.txt"
# report.py also counts a job whose JSON says it failed
grep -q '^FAILED' "$OUT/table.txt" 2>/dev/null && failed=$((failed + 1))
log "done: $failed failure(s); table in $OUT/table.txt"
[ $failed = 0 ]
