# lib.sh - shared by the guest-side integration suites (sourced inside the testbed guest).
# Each check prints "PASS name" or "FAIL name: why"; suite_end prints the totals and exits.
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
ENG=${ENG:-$REPO/build/libfio_nvmeof.so}
WORK=$(mktemp -d /tmp/suite.XXXXXX)
CHECK_JSON="python3 $REPO/tests/integration/fio_json_check.py"
FIO_TIMEOUT=${FIO_TIMEOUT:-300}
NVMEOF="--ioengine=external:$ENG --traddr=$TARGET_IP --subnqn=$NQN"
# the engine's test build, for the cases that set a FIO_NVMEOF_TEST_* knob
ENG_KNOBS=${ENG_KNOBS:-$REPO/build/tests/libfio_nvmeof_knobs.so}
NVMEOF_KNOBS="--ioengine=external:$ENG_KNOBS --traddr=$TARGET_IP --subnqn=$NQN"
pass=0 fail=0
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# [Ns]: seconds since the suite started, so the slow checks show when the suite is trimmed
ok()  { pass=$((pass + 1)); echo "PASS $1 [${SECONDS}s]"; }
# each failure is named again at the suite's end: a long suite's middle is what a truncated CI
# log leaves out
bad() {
	fail=$((fail + 1)); echo "FAIL $1: $2 [${SECONDS}s]"
	failed_lines+="${failed_lines:+$'\n'}  FAIL $1: $(printf '%s' "$2" | head -3 | cut -c1-240)"
}

# show_log FILE N: the engine's give-up lines first (a job that gives up 32 commands prints 64
# io_u lines after them, which push them out of any tail), then the log's last N lines.
show_log() {
	grep -m4 '^nvmeof: .*: lane failed: ' "$1" | sed 's/^/    | first: /'
	sed 's/^/    | /' "$1" | tail -"$2"
}

# log_gist FILE: the first line of a fio log that says what went wrong, for a one-line reason
log_gist() {
	grep -m1 -iE 'lane failed|error|fail|bad|verify|timeout|refus' "$1" | cut -c1-200
}

# run_fio NAME EXPECT [fio args...]: fio must exit 0 with no job error, and the directions in
# EXPECT (letters r, w, t) must have moved bytes, per fio's JSON output.
run_fio() {
	local name=$1 expect=$2
	shift 2
	fio_exec "$name" "$@"
	fio_judge "$name" "$expect" $?
}

# fio_exec NAME [fio args...]: fio with JSON output to $WORK/NAME.json, its log in NAME.log
fio_exec() {
	local name=$1
	shift
	timeout -k 5 "$FIO_TIMEOUT" fio --output-format=json --output="$WORK/$name.json" "$@" \
		>"$WORK/$name.log" 2>&1
}

# fio_judge NAME EXPECT RC: run_fio's verdict on a run fio_exec made
fio_judge() {
	local name=$1 expect=$2 rc=$3 why
	if [ "$rc" != 0 ]; then
		bad "$name" "fio exited $rc: $(log_gist "$WORK/$name.log")"
		show_log "$WORK/$name.log" 15
		return
	fi
	if why=$($CHECK_JSON "$WORK/$name.json" "$expect" 2>&1); then
		ok "$name ($why)"
	else
		bad "$name" "$why"
		show_log "$WORK/$name.log" 10
	fi
}

# expect_fail NAME REGEX [fio args...]: fio must exit non-zero, print a line matching REGEX,
# and not crash (no signal exit, no sanitizer/abort text).
expect_fail() {
	local name=$1 re=$2 rc
	shift 2
	timeout -k 5 "$FIO_TIMEOUT" fio "$@" >"$WORK/$name.log" 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		bad "$name" "fio exited 0"
	elif [ $rc -ge 124 ]; then
		bad "$name" "fio exited $rc (timeout or signal)"
	elif grep -qiE 'segmentation|core dumped|AddressSanitizer|Assertion' "$WORK/$name.log"; then
		bad "$name" "crash text in output"
	elif ! grep -qE "$re" "$WORK/$name.log"; then
		bad "$name" "no line matching /$re/"
	else
		ok "$name: $(grep -m1 -E "$re" "$WORK/$name.log")"
		return
	fi
	show_log "$WORK/$name.log" 15
}

# SPDK's fio plugin (testbed --spdk: SPDK_PLUGIN), thread=1, its transport ID as the filename,
# preloaded into fio and only fio (it needs fio's symbols: preloaded into timeout(1) as well,
# that fails to start): with_plugin CMD... runs CMD with such a fio first on PATH.
with_plugin() {
	if [ ! -x "$WORK/spdk-fio/fio" ]; then
		mkdir -p "$WORK/spdk-fio"
		printf '#!/bin/sh\nLD_PRELOAD=%s exec %s "$@"\n' "$SPDK_PLUGIN" "$(command -v fio)" > "$WORK/spdk-fio/fio"
		chmod +x "$WORK/spdk-fio/fio"
	fi
	PATH=$WORK/spdk-fio:$PATH "$@"
}
# The plugin frees its I/O queue when fio closes the file and connects one with the same qid
# on the same controller when fio opens it again for the verify pass; the kernel target, still
# releasing the old queue, may refuse that Connect ("nvmet: qid 1 has already been created",
# status 0x0c: about 1 suite run in 5 here), and the plugin's open fails while fio exits 0 with
# nothing read.  That is the peer and the kernel target between them, not the engine: such a
# run (both signs present, nothing else) is run again, twice at most, and the check says so;
# so is one whose RDMA CM event came later than the plugin waits (1 s), which a loaded emulator
# does.
plugin_fio() {   # plugin_fio NAME EXPECT fio-args...: run_fio with the plugin preloaded
	local name=$1 expect=$2 try rc mark
	shift 2
	for try in 1 2 3; do
		mark=$(dmesg | wc -l)
		with_plugin fio_exec "$name" "$@"
		rc=$?
		[ $try -lt 3 ] && grep -q 'Cannot allocate nvme io_qpair' "$WORK/$name.log" || break
		if dmesg | tail -n +"$((mark + 1))" | grep -q 'nvmet: qid [0-9]* has already been created'; then
			echo "     $name: the kernel target refused the plugin's reconnect of a qid it was still releasing; again"
		elif grep -q 'RDMA connect error -99' "$WORK/$name.log"; then
			# -EADDRNOTAVAIL: the plugin's own wait for a CM event (1 s by default) ran out, seen
			# with the emulator's CPUs shared by other guests
			echo "     $name: the plugin's wait for an RDMA CM event ran out; again"
		else
			break
		fi
		cp "$WORK/$name.log" "$WORK/$name.try$try.log"
	done
	fio_judge "$name" "$expect" $rc
}
esc() { printf '%s' "${1//:/\\:}"; }   # colons in an NQN are fio's file separator

# The target's RDMA port 1 taken away (both subsystems unlinked) and set up again: how the
# fault suites make the target vanish and come back.
NVMET_CFG=/sys/kernel/config/nvmet
NVMET_PORT=$NVMET_CFG/ports/1
port_off() { rm "$NVMET_PORT/subsystems/$NQN" "$NVMET_PORT/subsystems/$NQN2"; rmdir "$NVMET_PORT"; }
port_on() {
	mkdir "$NVMET_PORT"
	echo rdma > "$NVMET_PORT/addr_trtype"; echo ipv4 > "$NVMET_PORT/addr_adrfam"
	echo "$TARGET_IP" > "$NVMET_PORT/addr_traddr"; echo "$TARGET_PORT" > "$NVMET_PORT/addr_trsvcid"
	ln -s "$NVMET_CFG/subsystems/$NQN" "$NVMET_PORT/subsystems/$NQN"
	ln -s "$NVMET_CFG/subsystems/$NQN2" "$NVMET_PORT/subsystems/$NQN2"
	sleep 1
}

# start_server HOST:PORT [fio options]: a fio server (client/server mode) in the background,
# its stdout and stderr in $WORK/srv-PORT.{out,err}; waits until it listens.  stop_servers
# ends every one started (suites: trap stop_servers EXIT).
pids=""
start_server() {
	local hp=$1 port=${1#*:} i hex
	shift
	fio "$@" --server=ip:${hp%:*},$port \
		>"$WORK/srv-$port.out" 2>"$WORK/srv-$port.err" &
	pids="$pids $!"
	# its "server listening" line sits in stdio's buffer: look for the socket (state 0A)
	hex=$(printf ':%04X 00000000:0000 0A' "$port")
	for i in $(seq 1 120); do
		grep -q "$hex" /proc/net/tcp && return 0
		sleep 0.5
	done
	bad "server $hp" "not listening after 60 s: $(cat "$WORK/srv-$port".* | head -3)"
	return 1
}
stop_servers() {
	local p
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	pids=""
}

suite_end() {
	echo "$1: $pass passed, $fail failed"
	[ -z "$failed_lines" ] || printf '%s: what failed:\n%s\n' "$1" "$failed_lines"
	[ $fail = 0 ]
	exit $?
}
