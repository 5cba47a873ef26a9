#!/bin/bash
# cpu_split.sh - where the guest's CPU goes, per CPU, under the kernel initiator and the engine
# (docs/benchmarks.md: "Four jobs writing: one CPU idles").  Boots the testbed (kernel initiator
# connected), then runs ROUNDS rounds; each round runs the fio job once through the kernel
# initiator (libaio on its namespace) and once per engine variant, alternating, so a noisy
# neighbour hits every variant alike.  A measurement, never a test: it asserts nothing.
#
# usage: tests/bench/cpu_split.sh [--rounds N] [--runtime S] [--job "FIO ARGS"] [NAME="ENGINE ARGS"]...
#   --rounds N     rounds (default 3)
#   --runtime S    seconds per run (default 4)
#   --job ARGS     the fio workload both initiators run (default: 4 KiB randwrite, QD32, numjobs 4)
#   NAME=ARGS      an engine variant: a name and the engine options it adds
#                  (default: event="--completion=event")
# Per run it prints IOPS, fio's context switches per I/O, the guest's busy share, each CPU's
# busy and softirq share (/proc/stat), TASKLET softirqs per I/O (/proc/softirqs), and the
# kernel's deferred work by callback (MODULE:FUNCTION, those run at least 0.01 times per I/O):
# tasklets entered (the irq:tasklet_entry tracepoint) and work items run (workqueue:
# workqueue_execute_start), each counted with a hist trigger where the kernel has it.  Which one
# carries Soft-RoCE's and the target's work depends on the guest kernel: Debian 12's 6.1 runs
# Soft-RoCE's queue-pair tasks as tasklets (rxe_do_task); 6.12 (Debian 13) runs them as work
# items (do_work on rxe_wq, where they are deferred at all) and has no tasklets left on this
# path, while the kernel target's completions run as ib_cq_poll_work on both.  Then per variant
# the medians and the IOPS ratio to the kernel's median.
# Needs build/libfio_nvmeof.so (make) and the testbed's prerequisites (tests/testbed/README.md).
set -uo pipefail

ROUNDS=3 RUNTIME=4 JOB="--bs=4k --rw=randwrite --iodepth=32 --numjobs=4" GUEST=0
VARIANTS=()
while [ $# -gt 0 ]; do
	case $1 in
	--rounds|--runtime|--job) [ $# -ge 2 ] || { echo "cpu_split.sh: $1 needs a value" >&2; exit 2; };;
	esac
	case $1 in
	--rounds) ROUNDS=$2; shift 2;;
	--runtime) RUNTIME=$2; shift 2;;
	--job) JOB=$2; shift 2;;
	--in-guest) GUEST=1; shift;;
	-h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0;;
	*=*) VARIANTS+=("$1"); shift;;
	*) echo "cpu_split.sh: unknown argument '$1' (see --help)" >&2; exit 2;;
	esac
done
case $ROUNDS in ''|*[!0-9]*|0) echo "cpu_split.sh: --rounds must be a positive integer, not '$ROUNDS'" >&2; exit 2;; esac
case $RUNTIME in ''|*[!0-9]*|0) echo "cpu_split.sh: --runtime must be a positive integer, not '$RUNTIME'" >&2; exit 2;; esac
[ ${#VARIANTS[@]} -gt 0 ] || VARIANTS=("event=--completion=event")

SELF=$(readlink -f "$0")
REPO=$(cd "$(dirname "$SELF")/../.." && pwd)

if [ "$GUEST" = 0 ]; then
	[ -f "$REPO/build/libfio_nvmeof.so" ] ||
		{ echo "cpu_split.sh: build/libfio_nvmeof.so is missing: run make first" >&2; exit 2; }
	exec "$REPO/tests/testbed/testbed.sh" --connect -- "$SELF" --in-guest --rounds "$ROUNDS" \
		--runtime "$RUNTIME" --job "$JOB" "${VARIANTS[@]}"
fi

# ---- in the guest: lib.sh gives TARGET_IP, NQN, NVME_DEV, ENG ----
. "$REPO/tests/integration/guest/lib.sh"
T=/sys/kernel/tracing
mountpoint -q "$T" || mount -t tracefs none "$T" 2>/dev/null
# which way this kernel's Soft-RoCE defers a queue pair's task (its symbols say: 6.1's tasklet
# function, 6.12's work function on rxe_wq)
rxe_defers=unknown
grep -qE ' rxe_do_task\s+\[rdma_rxe\]' /proc/kallsyms && rxe_defers=tasklets
grep -qE ' do_work\s+\[rdma_rxe\]' /proc/kallsyms && rxe_defers="work items"
echo "guest kernel $(uname -r): Soft-RoCE defers its queue-pair tasks as $rxe_defers"
# deferred work counted by callback: NAME:TRIGGER-FILE:HIST-KEYS, one hist trigger per tracepoint
HISTS=("tasklets:$T/events/irq/tasklet_entry/trigger:hist:keys=func.sym:sort=hitcount"
       "work:$T/events/workqueue/workqueue_execute_start/trigger:hist:keys=function.sym:sort=hitcount")
# A trigger is set once and cleared before each run: setting or removing one patches the
# kernel's code on every CPU, and under TCG the guest has hung in this script's write to the
# trigger (a soft lockup, the other vCPU no longer taking interrupts) when it did so per run.
hist_each() {   # hist_each FUNCTION: FUNCTION NAME FILE KEYS for each trigger
	local h name file keys
	for h in "${HISTS[@]}"; do
		name=${h%%:*} h=${h#*:}; file=${h%%:*} keys=${h#*:}
		"$1" "$name" "$file" "$keys"
	done
}
# hist_missing says which trigger file this kernel lacks; the others then do nothing for it
hist_missing() { [ -w "$2" ] || echo "(no ${2#"$T"/events/} here: $1 by callback are not counted)"; }
hist_set()   { [ ! -w "$2" ] || echo "$3" > "$2"; }
hist_unset() { [ ! -w "$2" ] || echo "!$3" > "$2" 2>/dev/null; }
# appended: opening a trigger file with O_TRUNC (">") removes its triggers
hist_clear() { [ ! -w "$2" ] || echo "$3:clear" >> "$2"; }
hist_read()  { [ ! -w "$2" ] || cat "${2%trigger}hist" > "$WORK/hist.$1" 2>/dev/null; }
hist_each hist_missing
hist_each hist_set
trap 'hist_each hist_unset' EXIT

snap() {   # snap FILE: per-CPU /proc/stat lines and the TASKLET line of /proc/softirqs
	{ grep '^cpu[0-9]' /proc/stat; grep 'TASKLET:' /proc/softirqs; } > "$1"
}

run_one() {   # run_one NAME FIO_ARGS...
	local name=$1; shift
	hist_each hist_clear
	rm -f "$WORK/run.json" "$WORK"/hist.*   # a failed run must not be read as the one before it
	snap "$WORK/before"
	# shellcheck disable=SC2086  # JOB is a list of fio arguments
	fio --name=split --size=200m --time_based --runtime="$RUNTIME" --direct=1 --norandommap \
		--group_reporting --output-format=json --output="$WORK/run.json" $JOB "$@" \
		> "$WORK/run.log" 2>&1
	local rc=$?
	snap "$WORK/after"
	hist_each hist_read
	# One record per run into results (the medians below), and the run's line on stdout.
	PYTHONPATH=$REPO python3 - "$name" "$rc" "$WORK" <<'PY'
import json, re, sys
from tools.nvmeof import fiojson
from tools.nvmeof.compare_run import busy_jiffies
name, rc, work = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def record(rec):
    with open(work + "/results", "a") as f:
        f.write(json.dumps(rec) + "\n")
def stat(path):   # {cpuN: (busy, idle+iowait, softirq)}, TASKLET softirqs per CPU
    cpus, tl = {}, []
    for line in open(path):
        f = line.split()
        if f[0].startswith("cpu"):
            v = [int(x) for x in f[1:]]
            cpus[f[0]] = (busy_jiffies(line), v[3] + v[4], v[6])
        elif f[0] == "TASKLET:":
            tl = [int(x) for x in f[1:]]
    return cpus, tl
try:
    m = fiojson.job_metrics(fiojson.load(work + "/run.json")["jobs"][0])
except (OSError, ValueError, KeyError, IndexError) as e:
    record({"name": name, "error": "fio exited %d, no JSON (%s)" % (rc, e)})
    print("%-14s fio exited %d, no JSON (%s)" % (name, rc, e))
    sys.exit(0)
ios = max(1, m["ios"])
(b0, t0), (b1, t1) = stat(work + "/before"), stat(work + "/after")
cpus, busy_all, tot_all = [], 0, 0
for c in sorted(b0, key=lambda k: int(k[3:])):
    busy, idle, sirq = (b1[c][i] - b0[c][i] for i in range(3))
    tot = max(1, busy + idle)
    busy_all += busy; tot_all += tot
    cpus.append({"cpu": c, "busy": 100.0 * busy / tot, "softirq": 100.0 * sirq / tot})
# a hist line: { func: [ffffffffc0a1b2c0] rxe_do_task [rdma_rxe]   } hitcount:  123
HIST_LINE = re.compile(r"\{\s*\w+:\s*\[[0-9a-f]+\]\s*(\S+)(?:\s+\[(\w+)\])?\s*\}\s*hitcount:\s*(\d+)")
def per_io(kind):   # {MODULE:FUNCTION: runs per I/O} of those run >= 0.01 per I/O; None: not counted
    try:
        lines = open("%s/hist.%s" % (work, kind)).readlines()
    except OSError:
        return None
    counts = {}
    for line in lines:
        h = HIST_LINE.search(line)
        if h:
            key = "%s:%s" % (h.group(2) or "kernel", h.group(1))
            counts[key] = counts.get(key, 0) + int(h.group(3))
    return {k: v / ios for k, v in counts.items() if v / ios >= 0.01}
r = {"name": name, "iops": m["iops"], "ctx_per_io": m["ctx"] / ios,
     "busy": 100.0 * busy_all / max(1, tot_all), "cpus": cpus,
     "tasklet_softirqs_per_io": (sum(t1) - sum(t0)) / ios,
     "tasklets_per_io": per_io("tasklets"), "work_per_io": per_io("work"),
     "error": None if rc == 0 and not m["error"] else "fio exited %d, job error %d" % (rc, m["error"])}
record(r)
def callbacks(d):
    if d is None:
        return "n/a"
    return " ".join("%s %.2f" % kv for kv in sorted(d.items(), key=lambda kv: -kv[1])) or "none"
print("%-14s iops %8.0f  ctx/io %.2f  busy %3.0f%%  %s  TASKLET softirqs/io %.2f  tasklets/io %s  work/io %s%s" % (
    name, r["iops"], r["ctx_per_io"], r["busy"],
    " | ".join("%s %3.0f%% (si %2.0f%%)" % (c["cpu"], c["busy"], c["softirq"]) for c in cpus),
    r["tasklet_softirqs_per_io"], callbacks(r["tasklets_per_io"]), callbacks(r["work_per_io"]),
    "  ERROR: " + r["error"] if r["error"] else ""))
PY
}

echo "job: $JOB, ${RUNTIME}s runs, $ROUNDS rounds; kernel: libaio on $NVME_DEV"
: > "$WORK/results"
for ((r = 1; r <= ROUNDS; r++)); do
	echo "-- round $r"
	run_one kernel --ioengine=libaio --filename="$NVME_DEV"
	for v in "${VARIANTS[@]}"; do
		# shellcheck disable=SC2086  # a variant's options are a list of fio arguments
		run_one "${v%%=*}" $NVMEOF --nsid=1 ${v#*=}
	done
done

echo "-- medians over $ROUNDS rounds (IOPS ratio to the kernel's median; idlest CPU's busy share)"
python3 - "$WORK/results" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
names = list(dict.fromkeys(r["name"] for r in runs))
med = lambda xs: statistics.median(xs) if xs else float("nan")
good = {n: [r for r in runs if r["name"] == n and r.get("cpus") and not r["error"]] for n in names}
kiops = med([r["iops"] for r in good.get("kernel", [])])
for n in names:
    g = good[n]
    iops = med([r["iops"] for r in g])
    def total(kind):   # median of the listed callbacks' sum; n/a where not counted
        xs = [sum(r[kind].values()) for r in g if r.get(kind) is not None]
        return "%.2f" % med(xs) if xs else "n/a"
    print("%-14s iops %8.0f (%.2fx)  busy %3.0f%%  idlest CPU %3.0f%%  TASKLET softirqs/io %.2f  tasklets/io %s  work/io %s  failed %d" % (
        n, iops, iops / kiops if kiops == kiops and kiops else float("nan"),
        med([r["busy"] for r in g]), med([min(c["busy"] for c in r["cpus"]) for r in g]),
        med([r["tasklet_softirqs_per_io"] for r in g]), total("tasklets_per_io"),
        total("work_per_io"), sum(1 for r in runs if r["name"] == n) - len(g)))
PY
rm -rf "$WORK"
