#!/bin/bash
# bench.sh - `make bench`: boot the testbed once (kernel initiator connected) and compare this
# engine with the kernel NVMe/RDMA initiator (libaio, io_uring) on three read workloads; see
# tests/bench/guest_bench.sh.  Prints the table at the end and copies it to build/bench/last.txt;
# the raw fio JSON, logs and the table stay in build/bench/out/.  A benchmark, not a test:
# nothing is asserted about the numbers; the exit status is non-zero only when a job failed
# (or the testbed did).  Under qemu TCG absolute numbers are noise - compare rows of one run.
#
# env: BENCH_RUNTIME (seconds per job, default 10), BENCH_ENGINE_MODES (default "poll event"),
#      BENCH_FIO_SLACK (default 60), BENCH_SIZE (default 64m) - passed to the guest;
#      TESTBED_* as for tests/testbed/testbed.sh (e.g. TESTBED_SMP, TESTBED_BACKING).
set -uo pipefail
REPO=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
RUNTIME=${BENCH_RUNTIME:-10}
MODES=${BENCH_ENGINE_MODES:-poll event}
SLACK=${BENCH_FIO_SLACK:-60}
SIZE=${BENCH_SIZE:-64m}
DIR=$REPO/build/bench
OUT=$DIR/out

case $RUNTIME in ''|*[!0-9]*|0) echo "bench: BENCH_RUNTIME must be a positive number of seconds" >&2; exit 2;; esac
case $SLACK in ''|*[!0-9]*) echo "bench: BENCH_FIO_SLACK must be a number of seconds" >&2; exit 2;; esac
for m in $MODES; do
	case $m in poll|event|hybrid) ;; *) echo "bench: BENCH_ENGINE_MODES: '$m' is not poll, event or hybrid" >&2; exit 2;; esac
done
[ -f "$REPO/build/libfio_nvmeof.so" ] || { echo "bench: build/libfio_nvmeof.so missing (run make)" >&2; exit 1; }

# Limits: every fio is bounded by runtime + slack; the guest command by all of them together.
nmodes=$(echo $MODES | wc -w)
nruns=$(( 3 * (nmodes + 2) + 2 ))                  # workloads x initiators + fill + probe
CMD_TIMEOUT=$(( nruns * (RUNTIME + SLACK + 5) + 60 ))
BOOT_TIMEOUT=$(( CMD_TIMEOUT + 180 ))

rm -rf "$OUT" && mkdir -p "$OUT" || { echo "bench: cannot create $OUT" >&2; exit 1; }
rm -f "$DIR/last.txt"
echo "bench: $nruns fio runs of ${RUNTIME}s (engine modes: $MODES); log in $DIR/testbed.log"
T0=$(date +%s)
"$REPO/tests/testbed/testbed.sh" --connect --out "$OUT" \
	--cmd-timeout "$CMD_TIMEOUT" --boot-timeout "$BOOT_TIMEOUT" -- \
	env BENCH_RUNTIME="$RUNTIME" BENCH_ENGINE_MODES="$MODES" BENCH_FIO_SLACK="$SLACK" \
	BENCH_SIZE="$SIZE" "$REPO/tests/bench/guest_bench.sh" 2>&1 |
	tee "$DIR/testbed.log" | grep --line-buffered -E '^(bench|testbed):'
rc=${PIPESTATUS[0]}
echo "bench: testbed exited $rc after $(( $(date +%s) - T0 )) s"

if [ -s "$OUT/table.txt" ]; then
	cp "$OUT/table.txt" "$DIR/last.txt"
	echo
	cat "$DIR/last.txt"
	echo
	echo "bench: table saved to $DIR/last.txt; raw fio JSON and logs in $OUT/raw/"
else
	echo "bench: no table was produced (see $DIR/testbed.log)" >&2
	[ $rc != 0 ] || rc=1
fi
exit $rc
