#!/bin/bash
# tools/nvmeof-qualify (the qualification tool): host-only checks (the SNIA steady-state math on
# known series, the failover numbers on a synthetic completion log, gates-file errors naming
# FILE:LINE, the --destructive refusal and the failover workload's usage errors, stop-loss on a
# verify failure against a local file, a failover run against a local file whose fault command
# stops fio for 0.5 s: failover_ms sees it and a gate fails), then two testbed boots:
#   1. the tool's own testbed mode (engine): tiny sizes, 1 s rounds, generous gates -> PASS,
#      exit 0, report.md/json and plots, every measured value equal to what this test computes
#      from the raw fio JSON files; with the failover workload (the tool adds port 4421 and
#      removes port 1 5 s into a 12 s run): failover_ms, recovery_ms and the I/Os moved equal
#      what this test recomputes from the raw completion log and mp_stats;
#   2. one guest script (guest/tools_qualify.sh): the kernel initiator (the tool's own nvme
#      connect/disconnect) with one gate set to fail -> exit 1, that gate named FAIL; the kernel
#      initiator's native multipath under the same port removal (--fault-cmd); the engine under
#      the tool's own --fault ana (port 1's ANA group inaccessible, then optimized); stop-loss
#      on a verify failure (the file-backed namespace corrupted between write and read-back) and
#      on an error (a namespace that does not exist): stopped early, saying why.
# Exit 0 pass, 1 fail, 77 skip.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
Q=$REPO/tools/nvmeof-qualify
CHECK="python3 $REPO/tests/integration/tools_qualify_check.py"
W=$(mktemp -d "$REPO/build/tools_qualify.XXXXXX")
trap 'rm -rf "$W"' EXIT
pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "PASS $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }

[ -f "$REPO/build/libfio_nvmeof.so" ] || { echo "SKIP: build/libfio_nvmeof.so not built"; exit 77; }
command -v fio >/dev/null || { echo "SKIP: fio not installed"; exit 77; }

# ------------------------------------------------------------------ host only
if why=$($CHECK steady 2>&1); then ok "$why"; else bad "steady-state math" "$why"; fi
if why=$($CHECK failover-math 2>&1); then ok "$why"; else bad "failover math" "$why"; fi

# usage_case NAME REGEX ARGS...: exit 2, exactly one line on stderr matching REGEX, nothing run
usage_case() {
	local name=$1 re=$2 rc; shift 2
	rm -rf "$W/u"
	"$Q" "$@" --out "$W/u" >"$W/u.stdout" 2>"$W/u.stderr"; rc=$?
	if [ $rc != 2 ]; then bad "$name" "exit $rc, want 2: $(cat "$W/u.stderr" "$W/u.stdout" | head -3)"
	elif [ "$(wc -l <"$W/u.stderr")" != 1 ] || ! grep -qE "$re" "$W/u.stderr"; then
		bad "$name" "stderr is not one line matching /$re/: $(head -3 "$W/u.stderr")"
	elif [ -e "$W/u" ] || [ -s "$W/u.stdout" ]; then bad "$name" "something ran (out dir or output)"
	else ok "$name: $(cat "$W/u.stderr")"; fi
}
# --hosts refusals (fio client/server mode: the engine on a real target only)
HOSTS_REAL="--traddr 192.0.2.1 --subnqn nqn.2016-06.io.spdk:cnode1 --destructive --size 1M"
usage_case "qualify --hosts, kernel initiator" '^nvmeof-qualify: --hosts is for --initiator engine' \
	$HOSTS_REAL --initiator kernel --hosts h1,h2
usage_case "qualify --hosts, testbed mode" '^nvmeof-qualify: --hosts needs a real target' --hosts h1,h2
usage_case "qualify --hosts, empty list" "^nvmeof-qualify: --hosts: no hosts in ','" $HOSTS_REAL --hosts ,
usage_case "qualify --hosts, same host twice" '^nvmeof-qualify: --hosts: host h1:8765 given twice' \
	$HOSTS_REAL --hosts h1,h1:8765
usage_case "qualify --hosts, too small a slice" '^nvmeof-qualify: --size 128k: less than 128 KiB per host' \
	$HOSTS_REAL --hosts h1,h2 --size 128k
usage_case "qualify --hosts, no --destructive" '^nvmeof-qualify: refusing to run' \
	--traddr 192.0.2.1 --subnqn nqn.x --hosts h1,h2


LOCAL="--initiator kernel --dev $W/dev.img --destructive --size 1M"
i=0
while IFS='|' read -r re line; do
	i=$((i + 1)); g=$W/bad$i.gates
	printf '# a comment\nerrors == 0\n%s\n' "$line" >"$g"
	usage_case "gates error: $line" "^nvmeof-qualify: $g:3: $re" $LOCAL --gates "$g"
done <<'CASES'
unknown metric 'p98_lat_us'|p98_lat_us randread qd32 <= 5
unknown workload 'randscan'|iops randscan qd32 >= 5
unknown operator '=>'|iops randread qd32 => 5
unknown operator '<='|steady_state randread qd32 <= reached
queue depth 'q32'|iops randread q32 >= 5
value 'lots'|iops randread qd32 >= lots
steady_state value 'yes'|steady_state randread qd32 == yes
steady_state is measured on|steady_state seqread qd8 == reached
errors is a whole-run metric|errors randread qd32 == 0
iops needs a workload|iops >= 5
expected 'METRIC|iops randread >= 5
workload randread qd16 is not measured|iops randread qd16 >= 5
CASES
usage_case "qualify --engine-opt, kernel initiator" '^nvmeof-qualify: --engine-opt is for --initiator engine' \
	$LOCAL --engine-opt nvmeof_mem=cuda
usage_case "qualify --engine-opt, a bad value" '^nvmeof-qualify: --engine-opt gpudirect=7: fio refuses it' \
	--size 1M --engine-opt gpudirect=7
usage_case "qualify --engine-opt, set by the tool" '^nvmeof-qualify: --engine-opt mp_stats=x: the tool sets mp_stats' \
	--size 1M --engine-opt mp_stats=x
usage_case "gates file missing" "^nvmeof-qualify: $W/none.gates: cannot read" $LOCAL --gates "$W/none.gates"
usage_case "real target without --destructive" "refusing to run: .*namespace 1 of nqn.x at 10.0.0.1:4420; add --destructive" \
	--traddr 10.0.0.1 --subnqn nqn.x --size 16M
usage_case "kernel --dev without --destructive" "refusing to run: .*add --destructive" \
	--initiator kernel --dev "$W/dev.img" --size 16M
usage_case "--rounds-max below the window" "rounds-max 3: at least 5" $LOCAL --rounds-max 3
usage_case "--size not a multiple of 128 KiB" "multiple of 128 KiB" --size 100k
# the failover workload's refusals
TWO="--traddr 192.0.2.1:4420,192.0.2.1:4421 --subnqn nqn.x --destructive --size 1M"
usage_case "failover on a real target without --fault-cmd" '^nvmeof-qualify: --workloads failover on a real target needs --fault-cmd CMD' \
	$TWO --workloads failover
usage_case "failover on a real target with one path" '^nvmeof-qualify: --workloads failover needs several paths .*got one: 192.0.2.1:4420' \
	--traddr 192.0.2.1 --subnqn nqn.x --destructive --workloads failover --fault-cmd true
usage_case "--fault-cmd without the failover workload" '^nvmeof-qualify: --fault-cmd is for the failover workload' \
	$TWO --workloads randread --fault-cmd true
usage_case "--fault on a real target" "^nvmeof-qualify: --fault is the built-in testbed's own fault" \
	$TWO --workloads failover --fault-cmd true --fault ana
usage_case "--fault-cmd in testbed mode" '^nvmeof-qualify: --fault-cmd and --restore-cmd are for a real target' \
	--workloads failover --fault-cmd true
usage_case "--restore-at before --fault-at" '^nvmeof-qualify: --restore-at 4: after --fault-at \(5\)' \
	$TWO --workloads failover --fault-cmd true --fault-at 5 --restore-at 4
usage_case "--restore-at at the run's end" '^nvmeof-qualify: --restore-at 8: .*--failover-runtime 8' \
	$TWO --workloads failover --fault-cmd true --fault-at 2 --restore-at 8 --failover-runtime 8
usage_case "failover with --hosts" '^nvmeof-qualify: --workloads failover is not for --hosts' \
	$TWO --workloads failover --fault-cmd true --hosts h1,h2
usage_case "--traddr list with an empty path" '^nvmeof-qualify: --traddr 192.0.2.1,: path 2 is empty' \
	--traddr 192.0.2.1, --subnqn nqn.x --destructive
printf 'failover_ms <= 2000\n' >"$W/fo-none.gates"
usage_case "failover_ms gate without the failover workload" "^nvmeof-qualify: $W/fo-none.gates:1: failover_ms is measured by the failover workload" \
	$TWO --workloads randread --gates "$W/fo-none.gates"
printf 'failover_ms failover qd32 <= 2000\n' >"$W/fo-wl.gates"
usage_case "failover_ms gate with a workload" "^nvmeof-qualify: $W/fo-wl.gates:1: failover_ms is a whole-run metric" \
	$TWO --workloads failover --fault-cmd true --gates "$W/fo-wl.gates"

# stop-loss on a local file (kernel initiator path, libaio): the file corrupted between the
# verify pass's writes and its read-back
truncate -s 8M "$W/dev.img"
"$Q" $LOCAL --workloads randread,verify --precondition none --rounds-max 5 --round-time 1 --out "$W/local" \
	--verify-pause-cmd "dd if=/dev/urandom of=$W/dev.img bs=4k count=1 seek=40 conv=notrunc status=none" \
	>"$W/local.out" 2>&1; rc=$?
stop=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); s=r["stopped"] or {}; print(r["verdict"], r["verify_failures"], s.get("run"), s.get("reason"))' "$W/local/report.json" 2>&1)
if [ $rc = 1 ] && [[ $stop == "FAIL 1 verify-read verify failure: "*"verify failed"* ]] &&
   grep -q "FAIL verify_failures == 0" "$W/local.out" && grep -q "stopped early at verify-read" "$W/local.out"; then
	ok "stop-loss (local file): exit 1, $(grep -m1 'stopped early' "$W/local.out" | cut -c1-160)"
else
	bad "stop-loss (local file)" "exit $rc; $stop"; sed 's/^/    | /' "$W/local.out" | tail -15
fi

# the failover workload against a local file (kernel initiator path, libaio): the fault command
# stops this run's fio (found by its own output file) for 0.5 s; failover_ms must see the stall,
# equal what the check recomputes from the raw log, and fail a gate of 100 ms
truncate -s 8M "$W/fo.img"
printf 'failover_ms <= 100      # fails: fio stopped for 0.5 s\nfailover_ms <= 60000\n' >"$W/fo.gates"
"$Q" --initiator kernel --dev "$W/fo.img" --destructive --size 8M --qd 8 --precondition none --workloads failover \
	--fault-at 1 --restore-at 2 --failover-runtime 3 --gates "$W/fo.gates" --out "$W/fo" --restore-cmd true \
	--fault-cmd "p=\$(pgrep -f -- '[-]-output=$W/fo/fio/failover.json'); date +%s%3N >$W/fo.stamp; kill -STOP \$p; sleep 0.5; kill -CONT \$p" \
	>"$W/fo.out" 2>&1; rc=$?
res=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["verdict"], " ".join(g["result"] for g in r["gates"]), r["workloads"]["failover"]["failover"]["failover_ms"])' "$W/fo/report.json" 2>&1)
if [ $rc != 1 ] || [[ $res != "FAIL FAIL PASS PASS PASS "* ]] || ! grep -q '^qualify: FAIL failover_ms <= 100 (.*fo.gates:1): measured' "$W/fo.out"; then
	bad "failover, local file, fio stopped 0.5 s" "exit $rc; $res"; sed 's/^/    | /' "$W/fo.out" | tail -12
elif [ "${res##* }" -lt 450 ]; then
	bad "failover, local file, fio stopped 0.5 s" "failover_ms ${res##* }, want >= 450"
elif ! why=$($CHECK failover "$W/fo" "$W/fo.stamp" 2>&1); then
	bad "failover, local file: report" "$why"
else
	ok "failover, local file, fio stopped 0.5 s at 1 s: exit 1, gate failover_ms <= 100 FAIL; $why"
fi

# a fault before fio's first completion (a fio that takes 2 s to start) measures nothing: an error
printf '#!/bin/sh\nsleep 2\nexec fio "$@"\n' >"$W/slowfio"; chmod +x "$W/slowfio"
"$Q" --initiator kernel --dev "$W/fo.img" --destructive --size 8M --qd 8 --precondition none --workloads failover \
	--fio "$W/slowfio" --fault-at 1 --restore-at 2 --failover-runtime 3 --fault-cmd true --out "$W/fo-early" \
	>"$W/fo-early.out" 2>&1; rc=$?
if [ $rc = 1 ] && grep -q '^qualify: stopped early at failover: error: failover not measured: the fault ran 1.0 s after fio started, before its first completion' "$W/fo-early.out" &&
   grep -q '^qualify: FAIL errors == 0 (implicit): measured 1' "$W/fo-early.out"; then
	ok "failover, fault before fio's first completion: exit 1, $(grep -m1 -o 'failover not measured: .\{0,90\}' "$W/fo-early.out")"
else
	bad "failover, fault before fio's first completion" "exit $rc"; sed 's/^/    | /' "$W/fo-early.out" | tail -8
fi

# ------------------------------------------------------------------ testbed 1: the tool's own
cat >"$W/generous.gates" <<'G'
# generous: anything that moved data passes
iops randread qd32 >= 1
iops randwrite qd32 >= 1
p99_lat_us randrw qd32 <= 60000000
bw_mib_s seqread qd8 >= 0.01
bw_mib_s seqwrite qd8 >= 0.01
p99_lat_us randread qd1 <= 60000000   # QD1 latency
lat_mean_us randread qd1 <= 60000000
failover_ms <= 8000                   # engine, port 1 removed 5 s into the run
recovery_ms <= 8000
errors == 0
verify_failures == 0
G
start=$(date +%s)
"$Q" --out "$W/pass" --size 8M --rounds-max 6 --round-time 1 --runtime 1 --gates "$W/generous.gates" \
	--workloads randread,randwrite,randrw,seqread,seqwrite,lat,verify,failover \
	--fault-at 5 --restore-at 8 --failover-runtime 12 >"$W/pass.out" 2>&1; rc=$?
secs=$(($(date +%s) - start))
if [ $rc != 0 ]; then
	bad "testbed, engine, generous gates" "exit $rc after ${secs}s"; grep -v '^\[' "$W/pass.out" | tail -30 | sed 's/^/    | /'
elif ! why=$($CHECK report "$W/pass" PASS 2>&1); then
	bad "testbed, engine, generous gates: report" "$why"
elif ! grep -q '^qualify: PASS; report:' "$W/pass.out"; then
	bad "testbed, engine, generous gates" "no 'qualify: PASS' line"
else
	ok "testbed, engine, generous gates: exit 0 in ${secs}s; $why"
fi
grep '^qualify: .*steady state' "$W/pass.out" | sed 's/^/    /'
if why=$($CHECK failover "$W/pass" 2>&1); then ok "testbed, engine, failover: $why"
else bad "testbed, engine, failover" "$why"; fi
e_fo=$(python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["workloads"]["failover"]["failover"]; print(f["failover_ms"], f["recovery_ms"])' "$W/pass/report.json" 2>/dev/null)

# ------------------------------------------------------------------ testbed 2: one guest script
start=$(date +%s)
"$REPO/tests/testbed/testbed.sh" --backing file --ns-mb 32 --out "$W/tb2" --boot-timeout 900 --cmd-timeout 800 \
	-- "$REPO/tests/integration/guest/tools_qualify.sh" >"$W/tb2.out" 2>&1; rc=$?
secs=$(($(date +%s) - start))
grep -E '^(PASS|FAIL) ' "$W/tb2.out" | while read -r l; do echo "$l"; done
n_ok=$(grep -c '^PASS ' "$W/tb2.out"); n_bad=$(grep -c '^FAIL ' "$W/tb2.out")
pass=$((pass + n_ok)); fail=$((fail + n_bad))
if [ $rc != 0 ] && [ "$n_bad" = 0 ]; then
	bad "testbed 2" "exit $rc after ${secs}s"; tail -30 "$W/tb2.out" | sed 's/^/    | /'
elif [ $rc != 0 ]; then
	tail -40 "$W/tb2.out" | sed 's/^/    | /'
fi
k_fo=$(grep -o 'QUALIFY_FAILOVER kernel_failover_ms=[0-9]*' "$W/tb2.out" | cut -d= -f2)
echo "failover, port 1 removed 5 s into a 12 s run, back at 8 s, same measure: engine failover_ms ${e_fo% *} (recovery_ms ${e_fo#* }), kernel multipath failover_ms ${k_fo:-?}"
echo "tools_qualify: $pass passed, $fail failed (testbed 2: ${secs}s)"
[ $fail = 0 ]
