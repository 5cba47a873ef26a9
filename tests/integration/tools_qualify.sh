#!/bin/bash
# tools/nvmeof-qualify (the qualification tool): host-only checks (the SNIA steady-state math on
# known series, the failover numbers on a synthetic completion log, gates-file errors naming
# FILE:LINE, the --destructive refusal and the failover workload's usage errors, stop-loss on a
# verify failure against a local file, a failover run against a local file whose fault command
# stops fio for 0.5 s: failover_ms sees it and a gate fails; GPU memory's refusals (--mem cuda
# with the kernel initiator, --cuda-device/--gpudirect/--cuda-lib/--require-gpudirect without
# it, nvmeof_mem/cuda_device/gpudirect through --engine-opt, the mem and gpudirect gates' bad
# lines) and, through a stand-in fio that prints the engine's start and copies lines, the data
# path in the report and the mem and gpudirect gates recomputed from the raw logs: GPUDirect
# throughout (PASS), the verify pass staged by gpudirect=auto and a run that never started
# (--require-gpudirect FAIL, the reason named), host memory), then two testbed boots:
#   1. the tool's own testbed mode (engine): tiny sizes, 1 s rounds, generous gates -> PASS,
#      exit 0, report.md/json and plots, every measured value equal to what this test computes
#      from the raw fio JSON files; with the failover workload (the tool adds port 4421 and
#      removes port 1 5 s into a 12 s run): failover_ms, recovery_ms and the I/Os moved equal
#      what this test recomputes from the raw completion log and mp_stats;
#   1b. the same over NVMe/TCP (--transport tcp), once the engine has transport=tcp;
#   2. one guest script (guest/tools_qualify.sh): the kernel initiator (the tool's own nvme
#      connect/disconnect) with one gate set to fail -> exit 1, that gate named FAIL; the kernel
#      initiator's native multipath under the same port removal (--fault-cmd); the engine under
#      the tool's own --fault ana (port 1's ANA group inaccessible, then optimized); stop-loss
#      on a verify failure (the file-backed namespace corrupted between write and read-back) and
#      on an error (a namespace that does not exist): stopped early, saying why; --mem cuda
#      through the stand-in libcuda.so.1 (--cuda-lib): GPUDirect via peermem in every run, the
#      mem and gpudirect gates PASS; gpu_reg=dmabuf (Soft-RoCE cannot map a dma-buf) with
#      gpudirect=auto (staged; gpudirect=1, the job failing, on an engine without auto):
#      --require-gpudirect FAILs with the engine's dma-buf reason.
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
if why=$($CHECK mem-args 2>&1); then ok "$why"; else bad "mem_args" "$why"; fi
if why=$($CHECK example-gates "$REPO/jobs/qualify-gpu.gates" 2>&1); then ok "$why"; else bad "jobs/qualify-gpu.gates" "$why"; fi

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
mem value 'gpu' is not host or cuda|mem == gpu
unknown operator '<=' for mem|mem <= cuda
unknown operator '>=' for gpudirect|gpudirect >= used
gpudirect value 'yes' is not used or dma-buf or peermem or staged|gpudirect == yes
mem is a whole-run metric|mem randread qd32 == cuda
gpudirect is a whole-run metric|gpudirect verify qd8 == used
CASES
usage_case "qualify --engine-opt, kernel initiator" '^nvmeof-qualify: --engine-opt is for --initiator engine' \
	$LOCAL --engine-opt nvmeof_mem=cuda
usage_case "qualify --engine-opt, a bad value" '^nvmeof-qualify: --engine-opt gpu_reg=7: fio refuses it' \
	--size 1M --engine-opt gpu_reg=7
usage_case "qualify --engine-opt, set by the tool" '^nvmeof-qualify: --engine-opt mp_stats=x: the tool sets mp_stats' \
	--size 1M --engine-opt mp_stats=x
# GPU memory (--mem cuda): what does not go with it, what needs it, what the tool sets itself
STANDIN=$REPO/build/cuda-standin
usage_case "--mem cuda, kernel initiator" '^nvmeof-qualify: --mem cuda is for --initiator engine' $LOCAL --mem cuda
for o in "--cuda-device 0" "--gpudirect 0" "--cuda-lib $STANDIN" "--require-gpudirect"; do
	usage_case "$o without --mem cuda" "^nvmeof-qualify: ${o%% *} is for GPU memory: add --mem cuda\$" --size 1M $o
done
usage_case "--cuda-lib without libcuda.so.1" "^nvmeof-qualify: --cuda-lib $W: no libcuda.so.1 there" \
	--size 1M --mem cuda --cuda-lib "$W"
usage_case "--cuda-lib with --hosts" "^nvmeof-qualify: --cuda-lib is this host's LD_LIBRARY_PATH: with --hosts" \
	$HOSTS_REAL --hosts h1,h2 --mem cuda --cuda-lib "$STANDIN"
usage_case "--cuda-device not a device" "^nvmeof-qualify: --cuda-device 0,x: fio refuses it: .*cuda_device" \
	--size 1M --mem cuda --cuda-device 0,x
for kv in nvmeof_mem=cuda:--mem cuda_device=1:--cuda-device gpudirect=0:--gpudirect; do
	usage_case "--engine-opt ${kv%%:*}" "^nvmeof-qualify: --engine-opt ${kv%%:*}: the tool sets ${kv%%=*} itself \(${kv#*:}\)" \
		--size 1M --mem cuda --engine-opt "${kv%%:*}"
done
printf 'gpudirect == used\n' >"$W/gd.gates"
usage_case "gpudirect gate without --mem cuda" "^nvmeof-qualify: $W/gd.gates:1: gpudirect is for GPU memory: add --mem cuda" \
	--size 1M --gates "$W/gd.gates"
printf 'mem == host\n' >"$W/mem.gates"
usage_case "mem gate, kernel initiator" "^nvmeof-qualify: $W/mem.gates:1: mem is read from the engine's start lines" \
	$LOCAL --gates "$W/mem.gates"
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

# GPU memory, the tool's logic without a fabric: a stand-in fio (tools_qualify_check.py fakefio)
# answers the engine's runs with the engine's own start and closing lines, its data path picked
# per run; fio's parser still checks the options (--parse-only, --enghelp, --cmdhelp go to fio)
printf '#!/bin/sh\ncase "$*" in *--parse-only*|*--enghelp*|*--cmdhelp*) exec fio "$@";; esac\nexec %s fakefio "$@"\n' \
	"$CHECK" >"$W/fakefio"; chmod +x "$W/fakefio"
FAKE="--traddr 192.0.2.1 --subnqn nqn.x --destructive --size 1M --rounds-max 5 --round-time 1 --fio $W/fakefio"
printf 'mem == cuda\ngpudirect == used\nmem != host\n' >"$W/gpu.gates"
# fake_case NAME RC CHECK-LINE QF_FAKE [args]: exit RC; the data path in report.json and report.md
# equal what the check recomputes from the runs' logs
fake_case() {
	local name=$1 want=$2 expect=$3 mode=$4 rc why; shift 4
	QF_FAKE=$mode QF_FAKE_COPIES=1 "$Q" $FAKE --out "$W/$name" "$@" >"$W/$name.out" 2>&1; rc=$?
	if [ $rc != "$want" ]; then bad "$name" "exit $rc, want $want"; sed 's/^/    | /' "$W/$name.out" | tail -8; return 1
	elif ! why=$($CHECK datapath "$W/$name" 2>&1); then bad "$name: data path" "$why"; return 1
	elif [ -n "$expect" ] && ! grep -q -- "$expect" "$W/$name.out"; then
		bad "$name" "no line '$expect'"; sed 's/^/    | /' "$W/$name.out" | tail -8; return 1
	fi
	ok "$name: exit $rc; $why"
}
# every run GPUDirect (peermem), the GPU options and the stand-in's directory in every run
fake_case gpu-pass 0 '^qualify: PASS gpudirect == used' "" --mem cuda --cuda-device 0 --cuda-lib "$STANDIN" \
	--engine-opt gpu_reg=peermem --workloads randread,verify --gates "$W/gpu.gates" &&
if n=$(grep -L "^fake-env LD_LIBRARY_PATH=$STANDIN" "$W"/gpu-pass/fio/*.log) && [ -n "$n" ]; then
	bad "gpu-pass: --cuda-lib" "runs without $STANDIN first on LD_LIBRARY_PATH: $n"
elif why=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); o="--nvmeof_mem=cuda --cuda_device=0 --gpu_reg=peermem"
bad=[x["name"] for x in r["runs"] if o not in x["cmd"]]; print("runs %s lack %s" % (bad, o) if bad else "%d runs" % len(r["runs"]))
sys.exit(1 if bad or len(r["runs"]) != 8 else 0)' "$W/gpu-pass/report.json" 2>&1); then
	ok "gpu-pass: $why (precondition, 5 rounds, verify write and read) with nvmeof_mem=cuda cuda_device=0 gpu_reg=peermem, LD_LIBRARY_PATH from --cuda-lib"
else
	bad "gpu-pass: the runs' options" "$why"
fi
# the verify pass staged (gpudirect=auto fell back): --require-gpudirect fails, naming the workload,
# the data path and the engine's reason; the other gates pass, nothing stopped
fake_case gpu-auto-staged 1 '^qualify: FAIL gpudirect == used (--require-gpudirect): measured peermem, staged, limit == used; verify: staged (gpudirect=auto fell back); GPUDirect unavailable: dma-buf: ' \
	verify:auto --mem cuda --require-gpudirect --workloads randread,verify --precondition none &&
if grep -q '^- verify: gpudirect=auto staged through host memory, GPUDirect unavailable: dma-buf: ' "$W/gpu-auto-staged/report.md" &&
   grep -q '^- `gpudirect == used` FAIL: verify: staged (gpudirect=auto fell back); GPUDirect unavailable: dma-buf: ' "$W/gpu-auto-staged/report.md"; then
	ok "gpu-auto-staged: report.md names the failing gate and the fallback's reason"
else
	bad "gpu-auto-staged" "report.md lacks the failing gate's reason or the fallback reason"
fi
# the engine could not register the memory: no start line, the engine's line as the reason
fake_case gpu-no-start 1 "^qualify: FAIL gpudirect == used (--require-gpudirect): measured no start line, limit == used; randread qd32: no start line (run randread-qd32-r01); the engine said: nvmeof: randread-qd32: cannot register .*dma-buf" \
	randread:fail --mem cuda --require-gpudirect --workloads randread,verify --precondition none
# host memory: mem == host passes, and mem != cuda
printf 'mem == host\nmem != cuda\n' >"$W/host.gates"
fake_case host-mem 0 '^qualify: PASS mem != cuda' "" --workloads lat --runtime 1 --precondition none --gates "$W/host.gates"

# --transport tcp: what does not go with it, and every engine run given transport=tcp, the report
# saying so.  Stand-in engines: fio cannot load them, so the tool looks for the option's name in
# the binary (one with NVMe/TCP, one without).
TCP_ENG=$W/engine-tcp.so; printf 'x\0transport\0' >"$TCP_ENG"
NOTCP_ENG=$W/engine-notcp.so; printf 'x\0io_queues\0' >"$NOTCP_ENG"
usage_case "--transport tcp, kernel initiator" '^nvmeof-qualify: --transport tcp is for --initiator engine' \
	$LOCAL --transport tcp
usage_case "--transport tcp, failover workload" '^nvmeof-qualify: --transport tcp: the failover workload makes its second path over RDMA' \
	--engine "$TCP_ENG" $TWO --workloads randread,failover --fault-cmd true --transport tcp
usage_case "--transport tcp, engine without it" "^nvmeof-qualify: --transport tcp: the engine $NOTCP_ENG has no transport option" \
	--engine "$NOTCP_ENG" $FAKE --transport tcp
usage_case "--engine-opt transport" '^nvmeof-qualify: --engine-opt transport=tcp: the tool sets transport itself \(--transport\)' \
	--size 1M --engine-opt transport=tcp
# tcp_case NAME TRANSPORT [args]: the fake runs pass; report.json's transport, every run's command
# with --transport=tcp exactly when TRANSPORT is tcp, report.md's initiator line naming it
tcp_case() {
	local name=$1 tr=$2 rc why; shift 2
	"$Q" $FAKE --engine "$TCP_ENG" --out "$W/$name" --workloads randread,verify --precondition none "$@" \
		>"$W/$name.out" 2>&1; rc=$?
	if [ $rc != 0 ]; then bad "$name" "exit $rc"; sed 's/^/    | /' "$W/$name.out" | tail -8; return; fi
	local over=""; [ "$tr" = tcp ] && over=" over NVMe/TCP"
	if why=$($CHECK transport "$W/$name/report.json" "$tr" 2>&1) &&
		grep -q "^- initiator: engine over NVMe/${tr^^}" "$W/$name/report.md" &&
		grep -q "^qualify: qualifying .* with the engine initiator$over, " "$W/$name.out"; then
		ok "$name: $why; report.md: '$(grep -m1 '^- initiator:' "$W/$name/report.md")'"
	else
		bad "$name" "${why:-report.md or the output of the tool does not name NVMe/${tr^^}}"
	fi
}
tcp_case transport-tcp tcp --transport tcp
tcp_case transport-default rdma

if [ "${TOOLS_QUALIFY_HOST_ONLY:-0}" = 1 ]; then     # the host-only checks alone, no testbed
	echo "tools_qualify: $pass passed, $fail failed (host only)"
	[ $fail = 0 ]; exit $?
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

# ------------------------------------------------------------------ testbed 1b: --transport tcp
# The engine over NVMe/TCP, to the testbed's TCP port: once the engine has its transport option
# (fio --enghelp lists it); every run with transport=tcp, each measured value the raw fio JSON's.
if fio --enghelp="$REPO/build/libfio_nvmeof.so" 2>/dev/null | grep -q '^transport '; then
	printf 'iops randread qd32 >= 1\np99_lat_us randread qd1 <= 60000000\nerrors == 0\nverify_failures == 0\n' >"$W/tcp.gates"
	start=$(date +%s)
	"$Q" --transport tcp --out "$W/tcp" --size 8M --rounds-max 5 --round-time 1 --runtime 1 --gates "$W/tcp.gates" \
		--workloads randread,lat,verify >"$W/tcp.out" 2>&1; rc=$?
	secs=$(($(date +%s) - start))
	if [ $rc != 0 ]; then
		bad "testbed, engine over TCP" "exit $rc after ${secs}s"; grep -v '^\[' "$W/tcp.out" | tail -20 | sed 's/^/    | /'
	elif ! why=$($CHECK report "$W/tcp" PASS 2>&1) || ! why2=$($CHECK transport "$W/tcp/report.json" tcp 2>&1); then
		bad "testbed, engine over TCP: report" "$why ${why2:-}"
	else
		ok "testbed, engine over TCP: exit 0 in ${secs}s; $why; $why2"
	fi
else
	echo "note: the engine has no transport option (fio --enghelp): the NVMe/TCP qualification is not run"
fi

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
