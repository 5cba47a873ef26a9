#!/bin/bash
# run-tests.sh LABEL PROGRAM... - run each test program (exit 0 pass, 77 skip, else fail),
# print one line per program and a closing "N passed, N failed, N skipped" line.
# Exit 1 if any failed.
label=$1; shift
pass=0 fail=0 skip=0 failed="" checks=""
for t in "$@"; do
	name=${t##*/}
	start=$(date +%s)
	log=$(mktemp)
	"$t" >"$log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	case $rc in
	0)  pass=$((pass + 1)); echo "PASS  $label/$name (${secs}s)";;
	77) skip=$((skip + 1)); echo "SKIP  $label/$name: $(grep -m1 -i 'skip' "$log")";;
	*)  fail=$((fail + 1)); failed="$failed $name"
	    echo "FAIL  $label/$name (rc=$rc, ${secs}s); its output:"
	    sed 's/^/    | /' "$log" | tail -200
	    # the failed checks again at the very end: a CI log cut in its middle keeps its tail
	    checks+=$(grep -m5 -E '^(FAIL|not ok) ' "$log" | cut -c1-300 | sed "s|^|  $name: |")$'\n';;
	esac
	[ -n "${VERBOSE:-}" ] && [ $rc = 0 ] && sed 's/^/    | /' "$log"
	rm -f "$log"
done
echo "$label: $pass passed, $fail failed, $skip skipped"
[ -n "${CHECK_SUMMARY:-}" ] && echo "$label $pass $fail $skip" >> "$CHECK_SUMMARY"
[ $fail = 0 ] || { echo "$label: failed:$failed"; printf '%s' "$checks"; exit 1; }
