#!/bin/bash
# cost.sh - run by `make cost`: the per-I/O costs the emulator does not move (instructions under
# callgrind, CQ polls, job-thread system calls and doorbells under strace), this engine beside
# SPDK's fio plugin, against the kernel target and SPDK's, in one testbed boot.  The guest half
# is tools/nvmeof-cost run; the report (build/cost/cost.md, cost.json) is written here after.
#   COST_OUT (build/cost)   COST_N1 / COST_N2 (1000 / 6000): I/Os of the two runs per case
#   (nvmeof-cost run defaults to 2000 / 12000; under valgrind in the emulator a QD1 I/O takes
#   about 5 ms and fio starts in about a minute, so these keep make cost near 20 minutes)
#   COST_RUN_TIMEOUT (600): seconds one fio process may run (strace's runs of the TCP
#   initiators, which poll the socket with a system call, take longest: about 10 minutes for
#   nine jobs of 2000 I/Os on a loaded host); COST_BOOT_TIMEOUT (3000): the whole testbed boot
#   COST_ENGINE_OPTS: key=value options (blank-separated) added to the engine's jobs
#   (io_queues=4: what polling several queues costs)
#   COST_JOBS, COST_INITIATORS, COST_TARGETS: comma lists to run fewer (default all: the job
#   names in tools/nvmeof/cost.py JOBS; engine,spdk; kernel,spdk).  COST_INITIATORS also takes
#   the NVMe/TCP ones, by name only (they about double the run): engine-tcp (transport=tcp,
#   completion=poll), spdk-tcp (the plugin, trtype=TCP), kernel-tcp (libaio on the block device
#   of nvme connect -t tcp; system calls only), e.g. COST_INITIATORS=engine-tcp,spdk-tcp,kernel-tcp
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
cd "$REPO"
OUT=${COST_OUT:-build/cost}
N1=${COST_N1:-1000}
N2=${COST_N2:-6000}
ENGINE=build/libfio_nvmeof.so
PROBE=build/bench/cost_provider
t0=$(date +%s)

RUN_TIMEOUT=${COST_RUN_TIMEOUT:-600}
for v in N1 N2 RUN_TIMEOUT; do
	case ${!v} in ''|*[!0-9]*) echo "cost: COST_$v=${!v} is not a whole number" >&2; exit 2 ;; esac
done
[ "$N1" -ge 1 ] && [ "$N2" -gt "$N1" ] || { echo "cost: need 1 <= COST_N1 < COST_N2 (got $N1, $N2)" >&2; exit 2; }
# a benchmark without its tools is skipped, not failed (exit 77 like the tests)
command -v valgrind >/dev/null || { echo "cost: SKIP: valgrind is not installed (apt-get install valgrind)"; exit 77; }
command -v strace >/dev/null || { echo "cost: SKIP: strace is not installed (apt-get install strace)"; exit 77; }
for f in "$ENGINE" "$PROBE"; do
	[ -x "$f" ] || [ -f "$f" ] || { echo "cost: $f is not built (make cost builds it)" >&2; exit 2; }
done

# SPDK only where make spdk already built it: without it the engine is measured on the
# kernel target alone and the SPDK columns are skipped, saying why.
SPDK_ARGS=() SPDK_VERSION= SKIPPED=
if where=$(scripts/spdk.sh --where 2>&1); then
	SPDK_ARGS=(--spdk)
	SPDK_VERSION=$(basename "$where" | sed -n 's/^spdk-\(v[^-]*\).*/\1/p')
	SPDK_VERSION=${SPDK_VERSION:-$(basename "$where")}
else
	SKIPPED="SPDK columns (plugin, SPDK target): no SPDK build: $where"
	echo "cost: $SKIPPED"
fi

mkdir -p "$OUT"
rm -rf "$OUT/runs" "$OUT/cost.json" "$OUT/cost.md"
rc=0
# 3 GiB: the SPDK target's hugepages and the plugin's, beside valgrind's fio
tests/testbed/testbed.sh "${SPDK_ARGS[@]}" --mem 3072 --out "$OUT" \
	--boot-timeout "${COST_BOOT_TIMEOUT:-3000}" -- \
	/bin/sh -c 'exec tools/nvmeof-cost run --out "$TESTBED_OUT" --engine "$1" --provider-probe "$2" \
		--n1 "$3" --n2 "$4" ${5:+--jobs "$5"} ${6:+--initiators "$6"} ${7:+--targets "$7"} \
		${8:+--engine-opts "$8"} --run-timeout "$9"' \
	cost "$ENGINE" "$PROBE" "$N1" "$N2" "${COST_JOBS:-}" "${COST_INITIATORS:-}" "${COST_TARGETS:-}" \
	"${COST_ENGINE_OPTS:-}" "$RUN_TIMEOUT" || rc=$?
if [ ! -f "$OUT/cost.json" ]; then
	echo "cost: the guest wrote no $OUT/cost.json (testbed exit $rc)" >&2
	exit 1
fi
wall=$(( $(date +%s) - t0 ))
tools/nvmeof-cost report --out "$OUT" --wall "$wall" --commit "$(git log -1 --format=%h 2>/dev/null || echo '?')" \
	${SPDK_VERSION:+--spdk-version "$SPDK_VERSION"} ${SKIPPED:+--skipped "$SKIPPED"} || { [ "$rc" != 0 ] || rc=1; }
echo "cost: $((wall / 60)) min $((wall % 60)) s"
exit "$rc"
