#!/bin/bash
# fio's output stays exactly what fio writes: json, json+ and terse parse strictly (the whole
# output, no skipping to the first brace), to a file and to stdout, in process and thread
# mode; the engine's start line still reaches the user (stderr) in every mode; the kernel
# target logs no warning about the engine's connections.
. "$(dirname "$0")/lib.sh"
J="--name=o --rw=randwrite --bs=4k --size=1m --iodepth=4 --verify=crc32c --do_verify=1"

# check_output NAME FORMAT FILE: FILE is exactly fio's document in FORMAT
check_output() {
	python3 - "$2" "$3" <<'PY'
import json, sys
fmt, path = sys.argv[1], sys.argv[2]
text = open(path).read()
if fmt in ("json", "json+"):
    try:
        d = json.loads(text)           # strict: the whole text is one document
    except ValueError as e:
        sys.exit("not JSON (%s); it begins %r" % (e, text[:100]))
    jobs = d.get("jobs") or sys.exit("no jobs")
    j = jobs[0]
    if j.get("error") or j["write"]["io_bytes"] <= 0:
        sys.exit("job error %s or no bytes written" % j.get("error"))
    if fmt == "json+" and "bins" not in j["write"]["clat_ns"]:
        sys.exit("json+ without latency bins")
    print("%s: %d job(s), %d KiB written" % (fmt, len(jobs), j["write"]["io_bytes"] >> 10))
else:
    lines = [l for l in text.split("\n") if l]
    if not lines:
        sys.exit("empty terse output")
    for l in lines:
        f = l.split(";")
        # terse v3: version;fio version;jobname;groupid;error;... (130 fields and more)
        if f[0] != "3" or not f[1].startswith("fio-") or len(f) < 100:
            sys.exit("not a terse v3 line: %r" % l[:100])
    f = lines[0].split(";")
    if f[2] != "o" or f[4] != "0":
        sys.exit("terse job %r error %r" % (f[2], f[4]))
    print("terse: %d line(s) of %d fields" % (len(lines), len(f)))
PY
}

for mode in process thread; do
	t=""; [ $mode = thread ] && t="--thread=1"
	for fmt in json json+ terse; do
		for dest in file stdout; do
			name="$fmt-$dest-$mode"
			out=$WORK/$name.out
			if [ $dest = file ]; then
				timeout -k 5 "$FIO_TIMEOUT" fio --output-format=$fmt --output="$out" $NVMEOF $t $J \
					>"$WORK/$name.stdout" 2>"$WORK/$name.stderr"
			else
				timeout -k 5 "$FIO_TIMEOUT" fio --output-format=$fmt $NVMEOF $t $J \
					>"$out" 2>"$WORK/$name.stderr"
			fi
			rc=$?
			if [ $rc != 0 ]; then
				bad "$name" "fio exited $rc"; sed 's/^/    | /' "$WORK/$name.stderr" | tail -5
			elif ! why=$(check_output "$name" "$fmt" "$out" 2>&1); then
				bad "$name" "$why"
			elif [ $dest = file ] && [ -s "$WORK/$name.stdout" ]; then
				bad "$name" "stdout not empty with --output: $(head -c 100 "$WORK/$name.stdout")"
			elif ! grep -q '^nvmeof: o: nqn.*cntlid' "$WORK/$name.stderr"; then
				bad "$name" "the engine's start line did not reach stderr"
			else
				ok "$name ($why; start line on stderr)"
			fi
		done
	done
	# normal format: fio's report on stdout, the start line on stderr
	name="normal-$mode"
	fio $NVMEOF $t $J >"$WORK/$name.stdout" 2>"$WORK/$name.stderr"
	if grep -q '^o: (groupid=0' "$WORK/$name.stdout" && grep -q '^nvmeof: o: nqn.*cntlid' "$WORK/$name.stderr"; then
		ok "$name (fio's report on stdout, start line on stderr)"
	else
		bad "$name" "fio's normal report or the start line is missing"
	fi
done

# a failing job with JSON on stdout: the JSON still parses, the engine's error is on stderr
fio --output-format=json --ioengine=external:$ENG --traddr=$TARGET_IP --subnqn=$NQN --nsid=9 \
	--name=o --rw=read --bs=4k --size=64k >"$WORK/err.out" 2>"$WORK/err.stderr"
if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$WORK/err.out" 2>/dev/null &&
   grep -qE '^nvmeof: [^ ]+: namespace 9 ' "$WORK/err.stderr"; then
	ok "json-stdout-failed-job (JSON parses; error on stderr: $(grep -m1 '^nvmeof:' "$WORK/err.stderr"))"
else
	bad "json-stdout-failed-job" "stdout is not JSON or the error line is not on stderr"
	sed 's/^/    | /' "$WORK/err.out" "$WORK/err.stderr" | head -10
fi

# the kernel target took every connection without a warning (initiator_depth 0: the host
# never issues RDMA READs)
warn=$(dmesg | grep -iE 'nvmet|rdma' | grep -iE 'warn|responder|initiator|invalid|fail' || true)
if [ -z "$warn" ]; then
	ok "kernel target log: no warnings ($(dmesg | grep -c 'nvmet: creating') controllers created)"
else
	bad "kernel target log" "$(echo "$warn" | head -3)"
fi
# 32 namespace probes (one forked child per job, from fio's process while its helper thread
# prints the ETA line every 250 ms, its shortest) all finish: the child does what fio's own
# job processes do after the same fork (nvmeof_files.c says why that is safe).
run_fio probes-under-status r $NVMEOF --name=pr --rw=read --bs=4k --size=64k --numjobs=32 \
	--number_ios=1 --eta=always --eta-interval=250ms --group_reporting=1
n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"][0]["read"]["total_ios"])' \
	"$WORK/probes-under-status.json" 2>/dev/null)
[ "${n:-0}" = 32 ] && ok "probes-under-status: 32 jobs probed and read once each" ||
	bad "probes-under-status" "${n:-no} reads of 32"

# read_iolog replay keeps the log's timing: fio waits each logged gap from the last issue
# (td->last_issue), which an engine that stamps its own issue times must set, as io_uring
# does; without it fio never waited.  11 reads 100 ms apart (v3 timestamps, usec): about 1 s
# (fio's own offset bookkeeping trims a little; without the waits it is a few ms).
log=$WORK/replay.iolog
{
	echo "fio version 3 iolog"; echo "0 rp add"; echo "0 rp open"
	for i in $(seq 0 10); do echo "$((i * 100000)) rp read $((i * 4096)) 4096"; done
	echo "1000000 rp close"
} >"$log"
run_fio replay-timing r $NVMEOF --name=rp --read_iolog="$log" --iodepth=1
ms=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"][0]; print(j["job_runtime"], j["read"]["total_ios"])' \
	"$WORK/replay-timing.json" 2>/dev/null)
read -r rt ios <<<"$ms"
if [ "${ios:-0}" = 11 ] && [ "${rt:-0}" -ge 800 ]; then
	ok "replay-timing: 11 logged reads 100 ms apart took $rt ms (fio waited from the engine's issue times)"
else
	bad "replay-timing" "11 reads 100 ms apart: job_runtime ${rt:-?} ms, ${ios:-?} reads (want >= 800 ms, 11)"
fi
suite_end engine_output
