# auth_lib.sh - the DH-HMAC-CHAP checks engine_auth (SPDK's target) and nvmet_auth (the kernel
# target) share; sourced after lib.sh, with K1 K2 C2 (the keys in use) and W (the data job's
# fio options) set.

no_secret() {   # no_secret NAME: no key text in anything the engine printed
	local k
	for k in "$K1" "$K2" "$C2"; do
		k=${k#DHHC-1:??:}; k=${k%:}
		if grep -qF -- "${k:0:16}" "$WORK/$1.log"; then bad "$1: secret" "a key appears in its output"; return; fi
	done
}

# auth_case NAME WANT fio-args: a verified job; its start line says "authenticated: WANT"
auth_case() {
	local name=$1 want=$2
	shift 2
	run_fio "$name" rw "$@" --name=a $W
	grep -q "authenticated: $want[,;]" "$WORK/$name.log" &&
		ok "$name: start line says '$want'" ||
		bad "$name: start line" "$(grep -m1 -o 'authenticated: [^,;]*' "$WORK/$name.log" || echo none), want '$want'"
	no_secret "$name"
}

# fail_case NAME REGEX fio-args: refused in one line naming what failed; no start line, so
# nothing moved
fail_case() {
	local name=$1 re=$2
	shift 2
	expect_fail "$name" "$re" "$@" --name=f $W
	if grep -q '^nvmeof: f: .* cntlid ' "$WORK/$name.log"; then bad "$name" "a start line: the job ran"; fi
	[ "$(grep -cE "$re" "$WORK/$name.log")" -le 2 ] || bad "$name" "the reason printed more than twice"
	no_secret "$name"
}

# reconnect_start NAME fio-args: job r (random reads, paced, reconnecting) in the background
# (its pid in PID), returning once its lane is up (the start line)
reconnect_start() {
	local name=$1 i
	shift
	fio --output-format=json --output="$WORK/$name.json" "$@" --name=r --rw=randread --bs=4k \
		--size=8m --iodepth=4 --rate_iops=300 --reconnect_delay=1000 --retry_on_reconnect=1 \
		--io_timeout=5000 >"$WORK/$name.log" 2>&1 &
	PID=$!
	for i in $(seq 120); do grep -q '^nvmeof: r: .* cntlid ' "$WORK/$name.log" && break; sleep 0.5; done
}

# reconnect_verdict NAME RC: the job ended clean, reconnected, and authenticated its queues
# again (the reconnect line counts them: 4 or more, the first connect's 2 included)
reconnect_verdict() {
	local name=$1 rc=$2 L=$WORK/$1.log line n
	line=$(grep -m1 'nvmeof: r: reconnected after' "$L")
	n=$(printf '%s' "$line" | sed -n 's/.*, \([0-9]*\) queue authentications so far.*/\1/p')
	if [ "$rc" = 0 ] && [ -n "$n" ] && [ "$n" -ge 4 ] && $CHECK_JSON "$WORK/$name.json" r >/dev/null; then
		ok "$name: rc 0, re-authenticated: $(printf '%s' "$line" | cut -c1-200)"
	else
		bad "$name" "rc $rc, line '${line:-none}'"; sed 's/^/    | /' "$L" | tail -8
	fi
	no_secret "$name"
}
