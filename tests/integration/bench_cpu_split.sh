#!/bin/bash
# tests/bench/cpu_split.sh (a measurement, README "Four jobs writing: one CPU idles"): its
# refusals on the host, then one short round in the testbed.  The round must print the kernel's
# line and each variant's with every CPU's busy and softirq share, and a variant whose fio fails
# must be reported as failed in its line and in the medians, never measured.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
T=$REPO/tests/bench/cpu_split.sh
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "PASS $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }

# refuse NAME REGEX ARGS...: exit 2 with one line matching REGEX, before any testbed boots
refuse() {
	local name=$1 re=$2 out rc
	shift 2
	out=$("$T" "$@" 2>&1)
	rc=$?
	if [ $rc != 2 ]; then bad "$name" "exit $rc, not 2: $out"
	elif [ "$(printf '%s\n' "$out" | wc -l)" != 1 ]; then bad "$name" "not one line: $out"
	elif ! printf '%s\n' "$out" | grep -qE -e "$re"; then bad "$name" "no /$re/ in: $out"
	else ok "$name: $out"; fi
}
refuse rounds-zero "--rounds must be a positive integer, not '0'" --rounds 0
refuse rounds-word "--rounds must be a positive integer, not 'x'" --rounds x
refuse runtime-negative "--runtime must be a positive integer, not '-1'" --runtime -1
refuse unknown-argument "unknown argument 'foo'" foo
refuse job-without-value "--job needs a value" --job
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
