#!/bin/bash
# fio's client/server mode with the engine: two fio servers on the guest's loopback (ports
# 8765, 8766), one client (--output-format=json) runs a job on both, each server with its own
# job file (its own subsystem and size: the client, not the server, expands ${VAR} in a job
# file, so per-host differences need per-host files).  fio's own text lines (job description,
# "Starting N process(es)", empty lines) reach the client's stdout ahead of its JSON - shown
# with ioengine=null, no engine loaded - and nothing else does: the engine's start line stays
# on the server's stderr (engine/nvmeof_log.c), while its error lines still reach the client.
# tools/nvmeof/clientserver.py reads the output: per-host numbers are the server's own jobs,
# "All clients" their sum.  A server started with --output-format=json sends no informational
# line at all: the client's stdout is pure JSON.  Copies of the client outputs go to
# $TESTBED_OUT/clientserver/ when set (the unit test's fixtures come from there).
. "$(dirname "$0")/lib.sh"
export PYTHONPATH=$REPO${PYTHONPATH:+:$PYTHONPATH}
A=127.0.0.1:8765 B=127.0.0.1:8766 C=127.0.0.1:8767
SIZE_A=1m SIZE_B=2m
KEEP=${TESTBED_OUT:+$TESTBED_OUT/clientserver}
[ -n "$KEEP" ] && mkdir -p "$KEEP"

trap stop_servers EXIT

start_server $A || suite_end engine_clientserver
start_server $B || suite_end engine_clientserver

# job NAME SIZE [NQN]: writes $WORK/NAME-SIZE-SUBSYSTEM.fio, prints its path; one per server
# (the client expands ${VAR} in a job file with its own environment before sending it)
job() {
	local f=$WORK/$1-$2-${3##*:}.fio
	if [ $1 != null ]; then
		printf '[global]\nioengine=external:%s\ntraddr=%s\nsubnqn=%s\nsize=%s\nbs=4k\n' \
			"$ENG" "$TARGET_IP" "$3" "$2" >"$f"
	fi
	case $1 in
	null)   printf '[n]\nioengine=null\nrw=read\nbs=4k\nsize=%s\n' "$2" >"$f";;
	verify) printf '[v]\nrw=randwrite\niodepth=8\nverify=crc32c\ndo_verify=1\n' >>"$f";;
	json)   printf '[r]\nrw=randread\niodepth=4\nnumjobs=2\nthread=1\n' >>"$f";;
	err)    printf '[e]\nnsid=9\nrw=read\n' >>"$f";;
	esac
	# Every job that moves data pauses 2 s after 200 of its 256 (or 512) I/Os: fio's client
	# counts the results it awaits as each server's start message comes in (client.c
	# handle_start/handle_ts), so when one server's job ends before the other's starts, fio
	# writes no "All clients" sum at all (seen in CI with the verify job, and with json before).
	[ $1 != err ] && printf 'thinktime=2s\nthinktime_blocks=200\n' >>"$f"
	echo "$f"
}

# client NAME HOST=JOBFILE...: the client, by clientserver.command(); rc in $WORK/NAME.rc
client() {
	local name=$1
	local -a cmd
	shift
	mapfile -t cmd < <(python3 -c 'import sys; from tools.nvmeof import clientserver as c
jobs = dict(a.split("=", 1) for a in sys.argv[1:])
print("\n".join(c.command(list(jobs), jobs)))' "$@")
	timeout -k 5 "$FIO_TIMEOUT" "${cmd[@]}" >"$WORK/$name.out" 2>"$WORK/$name.err"
	echo $? >"$WORK/$name.rc"
	if [ -n "$KEEP" ]; then
		cp "$WORK/$name.out" "$KEEP/$name.stdout"
		cp "$WORK/$name.err" "$KEEP/$name.stderr"
	fi
}

# check NAME MODE [args]: clientserver.py reads $WORK/NAME.out; MODE says what to expect
check() {
	local name=$1
	shift
	python3 - "$WORK/$name.out" "$(cat "$WORK/$name.rc")" "$@" <<'PY'
import json, re, sys
from tools.nvmeof import clientserver as cs, fiojson
path, rc, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
args = sys.argv[4:]
text = open(path).read()
def fail(why):
    print(why); sys.exit(1)
# fio's own informational text: <host> prefix, then a job description, "..." (numjobs > 1),
# "Starting ...", or nothing
FIO_OWN = re.compile(r"^<[^>]*> (|\.\.\.|\S+: \(g=\d+\): rw=\S+, bs=.*, ioengine=\S+, iodepth=\d+"
                     r"|Starting \d+ (process|processes|thread|threads)( and \d+ \S+)?)$")
try:
    doc = fiojson.parse(text)
except ValueError as e:
    fail("no JSON found by fiojson.parse: %s; stdout begins %r" % (e, text[:200]))
lines = cs.text_lines(text)
per_host, combined = cs.split_results(doc)
if mode == "strict":                       # servers in json format: nothing but the document
    try:
        json.loads(text)
    except ValueError as e:
        fail("stdout is not exactly one JSON document (%s); it begins %r" % (e, text[:200]))
    print("stdout is exactly fio's JSON;", end=" ")
    mode = "ok"
if mode in ("ok", "fio-own"):
    if rc != 0:
        fail("client exited %d" % rc)
    other = [l for l in lines if not FIO_OWN.match(l)]
    if other:
        fail("lines that are not fio's own in the client's stdout: %r" % other[:4])
    if mode == "fio-own" and not any("Starting 1 process" in l for l in lines):
        fail("fio's 'Starting 1 process' line missing: %r" % lines[:6])
    # expect: KEY=BYTES[xJOBS] per host, the bytes each of its jobs moved
    want = dict(a.split("=") for a in args)
    if sorted(per_host) != sorted(want):
        fail("hosts %s, expected %s" % (sorted(per_host), sorted(want)))
    total = 0
    for key, spec in want.items():
        nbytes, _, njobs = spec.partition("x")
        nbytes, njobs = int(nbytes), int(njobs or 1)
        jobs = per_host[key]
        if len(jobs) != njobs:
            fail("%s: %d job results, expected %d" % (key, len(jobs), njobs))
        for j in jobs:
            m = fiojson.job_metrics(j)
            moved = max(j[d]["io_bytes"] for d in ("read", "write"))
            if m["error"] or m["total_err"] or moved != nbytes:
                fail("%s: job %s error %s, %d bytes (expected %d)"
                     % (key, j["jobname"], m["error"], moved, nbytes))
        total += nbytes * njobs
    comb = sum(max(j[d]["io_bytes"] for d in ("read", "write")) for j in combined)
    names = [j["jobname"] for j in combined]
    if len(want) > 1 and names != [cs.ALL_CLIENTS]:
        fail("combined entries %r, expected fio's 'All clients'" % names)
    if comb != total:
        fail("combined %d bytes, hosts' sum %d" % (comb, total))
    rows = cs.report_rows(doc)
    print("%d text line(s), all fio's own; %s" % (len(lines), "; ".join(
        "%s %d KiB %.0f IOPS" % (k, m["io_bytes"] >> 10, m["iops"]) for k, m in rows)))
elif mode == "error":                      # the engine's error line reached the client
    if rc == 0:
        fail("client exited 0")
    errs = [l for l in lines if re.match(r"^<[^>]*> nvmeof: [^ ]+: namespace 9 ", l)]
    if len(errs) != len(args):
        fail("%d engine error line(s) in the client's stdout, expected %d: %r"
             % (len(errs), len(args), lines))
    for key in args:
        if not per_host.get(key) or not per_host[key][0].get("error"):
            fail("%s: no job with an error in the JSON" % key)
    print("rc %d, JSON parses, job errors on %s, engine error line(s) forwarded: %s"
          % (rc, ",".join(args), errs[0]))
PY
}

# start_line PORT NQN: the engine's start line is on that server's own stderr, with its NQN
start_line() {
	grep -qE "^nvmeof: [a-z]+: $2 cntlid" "$WORK/srv-$1.err"
}

# 1. fio's own lines, no engine involved
client null $A=$(job null $SIZE_A) $B=$(job null $SIZE_B)
if why=$(check null fio-own "$A=1048576" "$B=2097152"); then
	ok "null engine: fio's own lines reach the client's stdout ahead of its JSON ($why)"
else
	bad "null engine" "$why"
fi
sed -n '1,/^{/p' "$WORK/null.out" | sed 's/^/    | /'

# 2. verify job with the engine on both servers
client verify $A=$(job verify $SIZE_A "$NQN") $B=$(job verify $SIZE_B "$NQN2")
if ! why=$(check verify ok "$A=1048576" "$B=2097152"); then
	bad "verify on two servers" "$why"
	sed 's/^/    | /' "$WORK/verify.out" "$WORK/verify.err" | head -20
elif ! start_line 8765 "$NQN" || ! start_line 8766 "$NQN2"; then
	bad "verify on two servers" "no start line with the server's own subsystem on its stderr"
	sed 's/^/    | /' "$WORK"/srv-876[56].err | head -10
else
	ok "verify on two servers ($why; start lines on the servers' stderr)"
fi

# 3. JSON job, two threads per server: per host two results, fio's sum over all four
client json $A=$(job json $SIZE_A "$NQN") $B=$(job json $SIZE_B "$NQN2")
if why=$(check json ok "$A=1048576x2" "$B=2097152x2"); then
	ok "json job on two servers ($why)"
else
	bad "json job on two servers" "$why"
	sed 's/^/    | /' "$WORK/json.out" "$WORK/json.err" | head -20
fi

# 4. a failing job: the engine's error line still reaches the client, the JSON still parses
client err $A=$(job err 64k "$NQN") $B=$(job err 64k "$NQN2")
if why=$(check err error "$A" "$B"); then
	ok "failing job on two servers ($why)"
else
	bad "failing job on two servers" "$why"; sed 's/^/    | /' "$WORK/err.out" | head -20
fi
stop_servers

# 5. a server started with --output-format=json: the client's stdout is exactly the JSON
start_server $C --output-format=json || suite_end engine_clientserver
client strict $C=$(job verify $SIZE_A "$NQN")
if why=$(check strict strict "$C=1048576"); then
	ok "server in json format ($why)"
else
	bad "server in json format" "$why"; sed 's/^/    | /' "$WORK/strict.out" | head -20
fi
stop_servers
[ -n "$KEEP" ] && cp "$WORK"/srv-*.err "$KEEP"/ 2>/dev/null
suite_end engine_clientserver
