#!/bin/bash
# tests/bench/cpu_split.sh (a measurement, docs/benchmarks.md "Four jobs writing: one CPU idles"): its
# refusals on the host, then one short round in the testbed.  The round must print the kernel's
# line and each variant's with every CPU's busy and softirq share and the deferred work
# (tasklets, work items) by callback, and a variant whose fio fails must be reported as failed
# in its line and in the medians, never measured.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
T=$REPO/tests/bench/cpu_split.sh
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
pass=0 fail=0
check() {   # check NAME WHY-IF-FAILED CONDITION...: one PASS or FAIL line
	local name=$1 why=$2
	shift 2
	if "$@"; then pass=$((pass + 1)); echo "PASS $name"
	else fail=$((fail + 1)); echo "FAIL $name: $why"; fi
}
ok()  { check "$1" "" true; }
bad() { check "$1" "$2" false; }

# Refusals, before any testbed boots: each line of the table is ARGS|MESSAGE; the tool must
# exit 2 with that one line.
while IFS='|' read -r args msg; do
	# shellcheck disable=SC2086  # ARGS is a list
	out=$("$T" $args 2>&1); rc=$?
	check "refused: $args" "exit $rc, output: $out" \
		test "$rc:$out" = "2:cpu_split.sh: $msg"
done <<'REFUSALS'
--rounds 0|--rounds must be a positive integer, not '0'
--rounds x|--rounds must be a positive integer, not 'x'
--runtime -1|--runtime must be a positive integer, not '-1'
foo|unknown argument 'foo' (see --help)
--job|--job needs a value
REFUSALS
out=$("$T" --help 2>&1) && printf '%s\n' "$out" | grep -q '^usage: tests/bench/cpu_split.sh' &&
	ok help || bad help "exit $?: $out"

out=$("$T" --rounds 1 --runtime 1 --job "--bs=4k --rw=randread --iodepth=4 --numjobs=2" \
	event=--completion=event broken=--completion=nosuch 2>&1)
rc=$?
log() { printf '%s\n' "$out" | grep -v '^\[' | sed 's/^/    | /' | tail -20; }
if [ $rc != 0 ]; then
	bad run "exit $rc"; log
else
	cpus='cpu0 +[0-9]+% \(si +[0-9]+%\) \| cpu1 +[0-9]+% \(si +[0-9]+%\)'
	for v in kernel event; do
		if printf '%s\n' "$out" | grep -qE "^$v +iops +[1-9][0-9]* +ctx/io [0-9.]+ +busy +[0-9]+% +$cpus +TASKLET softirqs/io [0-9.]+ +tasklets/io "; then
			ok "run: $v's line has IOPS and both CPUs"
		else bad "run: $v's line" "not found"; log; fi
	done
	# deferred work by callback, counted with hist triggers set once and cleared per run.  On
	# every kernel the target's completions run as work items (ib_cq_poll_work) under both
	# initiators; Soft-RoCE's own tasks show as tasklets where this kernel defers them so (6.1),
	# while 6.12 defers them as work items, if at all, and runs no tasklet on this path.
	lines=$(printf '%s\n' "$out" | sed '/^-- medians/,$d' | grep -E '^(kernel|event) +iops ')
	case $(printf '%s\n' "$out" | sed -n 's/^guest kernel [^ ]*: Soft-RoCE defers its queue-pair tasks as //p') in
	tasklets)
		[ "$(printf '%s\n' "$lines" | grep -cE ' tasklets/io ([a-z0-9_:]+ [0-9.]+ )*rdma_rxe:rxe_do_task [0-9.]+')" = 2 ] &&
			ok "run: Soft-RoCE defers as tasklets here: rxe_do_task counted in the kernel's and event's lines" ||
			{ bad "run: tasklets by callback" "rdma_rxe:rxe_do_task missing from a line"; log; };;
	"work items")
		[ "$(printf '%s\n' "$lines" | grep -cE ' tasklets/io (none|([a-z0-9_:]+ [0-9.]+ )+) +work/io ')" = 2 ] &&
			ok "run: Soft-RoCE defers as work items here: tasklets counted in both lines (none expected from Soft-RoCE)" ||
			{ bad "run: tasklets by callback" "not counted in a line"; log; };;
	*)	bad "run: which way Soft-RoCE defers" "no 'guest kernel' line naming tasklets or work items"; log;;
	esac
	[ "$(printf '%s\n' "$lines" | grep -cE ' work/io ([a-z0-9_:]+ [0-9.]+ +)*ib_core:ib_cq_poll_work [0-9.]+')" = 2 ] &&
		ok "run: the target's completion work (ib_cq_poll_work) counted in the kernel's and event's lines" ||
		{ bad "run: work items by callback" "ib_core:ib_cq_poll_work missing from a line"; log; }
	printf '%s\n' "$out" | grep -qE 'cpu_split\.sh: line [0-9]+:' &&
		{ bad "run: shell errors" "$(printf '%s\n' "$out" | grep -m1 -E 'cpu_split\.sh: line [0-9]+:')"; log; } ||
		ok "run: no shell errors"
	printf '%s\n' "$out" | grep -qE '^broken +.*fio exited [1-9]' &&
		ok "run: the failing variant's line says fio failed" ||
		{ bad "run: the failing variant's line" "not found"; log; }
	med=$(printf '%s\n' "$out" | sed -n '/^-- medians/,$p')
	printf '%s\n' "$med" | grep -qE '^kernel +iops +[1-9][0-9]* \(1\.00x\).* failed 0$' &&
	printf '%s\n' "$med" | grep -qE '^event +iops +[1-9][0-9]* \([0-9.]+x\) +busy +[0-9]+% +idlest CPU +[0-9]+%.* failed 0$' &&
	printf '%s\n' "$med" | grep -qE '^broken +iops +nan .* failed 1$' &&
		ok "run: medians for each, the failing variant counted failed and not measured" ||
		{ bad "run: medians" "not as expected"; log; }
fi
echo "bench_cpu_split: $pass passed, $fail failed"
[ $fail = 0 ]
