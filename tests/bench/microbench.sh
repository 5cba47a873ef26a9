#!/bin/sh
# microbench.sh - run by `make microbench`: the timing table, then instructions per I/O in lib/
# under callgrind.  MICROBENCH: the binary; MB_COUNT / MB_WARMUP: I/Os per timed case;
# MB_CG_COUNT / MB_CG_WARMUP: I/Os per callgrind run.  Everything runs under nice -n 10: the
# numbers are the engine's cost, not a contest with whatever else the machine runs.
set -eu
BIN=${MICROBENCH:-build/bench/microbench}
OUTDIR=${MB_OUTDIR:-$(dirname "$BIN")/callgrind}
COUNT=${MB_COUNT:-200000}
WARMUP=${MB_WARMUP:-20000}
CG_COUNT=${MB_CG_COUNT:-20000}
CG_WARMUP=${MB_CG_WARMUP:-2000}

echo "== wall clock: ns per I/O (lib + in-process peer + loop), $COUNT I/Os per case after $WARMUP warm-up"
nice -n 10 "$BIN" -n "$COUNT" -w "$WARMUP"

if ! command -v valgrind >/dev/null 2>&1; then
	echo "== callgrind: SKIP: valgrind is not installed (apt-get install valgrind)"
	exit 0
fi

# One callgrind run per case and pass.  --zero-before/--dump-after=mb_measured keep only the
# measured loop (the warm-up and teardown are left out); the dump's "summary:" line is its Ir.
#   all: everything in the measured loop: lib + peer + the loop's own bookkeeping.
#   lib: collection toggled on at each lib entry point the loop calls and off again inside
#        each callback lib makes into the bench (the peer's transport ops, the done
#        callback), so exactly lib/'s instructions are counted, the peer excluded.
# Per I/O: that Ir divided by the I/Os completed inside the measured loop (the binary prints
# that count; it is CG_COUNT, or a few more at depth when the last poll reaps a batch).
LIB_TOGGLES="--toggle-collect=nvmf_io_submit --toggle-collect=nvmf_io_backlog_pump
 --toggle-collect=nvmf_queue_flush --toggle-collect=nvmf_queue_process
 --toggle-collect=mb_post_sends --toggle-collect=mb_post_recvs --toggle-collect=mb_poll
 --toggle-collect=mb_io_done --toggle-collect=mb_backlog_staged"
mkdir -p "$OUTDIR"
cg() { # case pass extra-args...: prints "ios Ir"
	c=$1; pass=$2; shift 2
	rm -f "$OUTDIR/$c.$pass" "$OUTDIR/$c.$pass".*
	ios=$(nice -n 10 valgrind -q --tool=callgrind --callgrind-out-file="$OUTDIR/$c.$pass" \
		--zero-before=mb_measured --dump-after=mb_measured "$@" \
		"$BIN" -c "$c" -n "$CG_COUNT" -w "$CG_WARMUP" | awk -v c="$c" '$1 == c { print $4 }')
	ir=$(awk '/^summary:/ { print $2 }' "$OUTDIR/$c.$pass.1")
	echo "$ios $ir"
}
echo "== callgrind: instructions per I/O, $CG_COUNT I/Os per case after $CG_WARMUP warm-up"
printf '%-16s %10s %12s %12s %8s\n' case ios "lib Ir/io" "all Ir/io" "lib %"
for c in $("$BIN" -l); do
	r=$(cg "$c" all)
	ios_all=${r% *} ir_all=${r#* }
	# shellcheck disable=SC2086 # the toggles are separate words
	r=$(cg "$c" lib --collect-atstart=no $LIB_TOGGLES)
	ios_lib=${r% *} ir_lib=${r#* }
	if [ -z "$ios_all" ] || [ -z "$ir_all" ] || [ -z "$ios_lib" ] || [ -z "$ir_lib" ]; then
		echo "microbench: callgrind run for $c failed (files in $OUTDIR)" >&2
		exit 1
	fi
	awk -v c="$c" -v n="$ios_lib" -v l="$ir_lib" -v na="$ios_all" -v a="$ir_all" \
		'BEGIN { printf "%-16s %10d %12.1f %12.1f %7.1f%%\n", c, n, l / n, a / na, 100 * (l / n) / (a / na) }'
done
