# auth_lib.sh - the DH-HMAC-CHAP checks engine_auth (SPDK's target) and nvmet_auth (the kernel
# target) share; sourced after lib.sh, with K1 K2 C2 (the keys in use) and W (the data job's
# fio options) set.

key_marks() {   # the text that marks each key in use: 16 characters of its base64
	local k
	for k in "$K1" "$K2" "$C2"; do
		k=${k#DHHC-1:??:}; k=${k%:}
		printf '%s\n' "${k:0:16}"
	done
}

no_secret() {   # no_secret NAME: no key text in anything the run printed (its log, its JSON)
	local k f
	for k in $(key_marks); do
		for f in "$WORK/$1.log" "$WORK/$1.json"; do
			if [ -e "$f" ] && grep -qF -- "$k" "$f"; then bad "$1: secret" "a key appears in ${f##*/}"; return; fi
		done
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

# secret_outputs NAME fio-args: one authenticated job given its keys inline, run every way fio
# writes: normal, json+ and terse to stdout, json to a file with fio's logs beside it, and
# through fio's server (a client sending a job file): no key text in any file the runs wrote
# (the job file, the input, aside), nor on any stdout or stderr; fio's JSON parses and shows
# each secret option as <hidden> (issue 43: fio printed them under "job options").
secret_outputs() {
	local name=$1 d=$WORK/$1.out k i f hits= port=8799 spid rc1 rc2 rc3
	shift
	rm -rf "$d"; mkdir -p "$d/run" && cd "$d/run" || { bad "$name" "no work directory"; return; }
	fio --output-format=normal,json+,terse "$@" --name=s $W >"$d/1.stdout" 2>"$d/1.stderr"; rc1=$?
	fio --output-format=json --output="$d/run/2.json" --write_bw_log=bw --write_lat_log=lat \
		"$@" --name=s $W >"$d/2.stdout" 2>"$d/2.stderr"; rc2=$?
	# the job file: fio's client sends it to the server as it is (the user's input)
	printf '[s]\n' >"$d/job.fio"
	for k in "$@" $W; do case $k in --*=*) k=${k#--}; printf '%s=%s\n' "${k%%=*}" "${k#*=}";; esac; done >>"$d/job.fio"
	fio --server=ip:127.0.0.1,$port >"$d/srv.stdout" 2>"$d/srv.stderr" &
	spid=$!
	for i in $(seq 60); do grep -q "$(printf ':%04X 00000000:0000 0A' $port)" /proc/net/tcp && break; sleep 0.5; done
	timeout 300 fio --client=ip:127.0.0.1,$port --output-format=json "$d/job.fio" \
		>"$d/3.stdout" 2>"$d/3.stderr"; rc3=$?
	kill $spid 2>/dev/null; wait $spid 2>/dev/null
	cd "$REPO" || true
	[ "$rc1$rc2$rc3" = 000 ] || { bad "$name" "fio exited $rc1 $rc2 $rc3 (direct, to a file, client)"; sed 's/^/    | /' "$d"/*.stderr | tail -8; }
	for k in $(key_marks); do
		f=$(grep -rlF --exclude=job.fio -- "$k" "$d")
		[ -z "$f" ] || hits="$hits $f"
	done
	if [ -n "$hits" ]; then
		bad "$name: secret" "a key appears in:$hits"
	elif ! python3 - "$d/1.stdout" "$d/run/2.json" "$d/3.stdout" <<'PY'
import json, sys
seen = 0
for p in sys.argv[1:]:
    t = open(p).read()
    d = json.JSONDecoder().raw_decode(t[t.index('{\n  "fio version"'):])[0]  # past other lines
    # options before --name are global ones (fio's command line); a job file's are the job's
    for o in [d.get("global options", {})] + [j.get("job options", {})
                                              for j in d.get("client_stats", d.get("jobs", []))]:
        for k in ("dhchap_secret", "dhchap_ctrl_secret"):
            if k in o:
                assert o[k] == "<hidden>", (p, k)
                seen += 1
assert seen >= 3, "job options show no dhchap_secret: %d" % seen
PY
	then
		bad "$name: json" "fio's JSON does not parse, or does not show the secrets as <hidden>"
	else
		ok "$name: no key text in $(find "$d" -type f ! -name job.fio | wc -l) files (stdout, stderr, json, json+, terse, logs, client and server); JSON shows <hidden>"
	fi
}
