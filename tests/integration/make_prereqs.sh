#!/bin/bash
# make_prereqs.sh - the Makefile's rules name what they need, on the host in a few seconds
# (nothing is built: make -p -q and make -n, in an empty throwaway BUILD):
#  1. `make integration` alone builds the stand-in CUDA driver engine_gpu's guest loads
#     ($(BUILD)/cuda-standin/libcuda.so.1): it is among integration's prerequisites as make
#     read them, and a dry run from an empty BUILD compiles it;
#  2. no variable is expanded before it is defined: make expands a rule's prerequisites when it
#     reads the rule, so a variable defined further down names nothing there, silently (make's
#     --warn-undefined-variables says so; CI alone comes from the environment).
# Exit 0 pass, 1 fail, 77 skip.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
command -v make >/dev/null || { echo "SKIP: no make"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/make_prereqs.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "PASS $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -z "${2:-}" ] || printf '%s\n' "$2" | sed 's/^/    | /'; }

B=$T/build
STANDIN=$B/cuda-standin/libcuda.so.1
# A make of its own: not the flags or command-line variables of a make that runs this suite.
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C "$REPO" BUILD="$B" "$@"; }

# 1. integration's prerequisites, from make's database (-q: nothing runs; it exits 1 since
# nothing is built, which is expected)
mk -p -q integration >"$T/db" 2>"$T/db.err"
prereqs=$(sed -n 's/^integration: *//p' "$T/db" | head -1)
if [ -z "$prereqs" ]; then
	bad "make's database has an integration rule" "$(tail -5 "$T/db.err")"
else
	# not vacuous: the engine is there as it always was
	case " $prereqs " in
	*" $B/libfio_nvmeof.so "*) ok "integration needs the engine ($B/libfio_nvmeof.so)";;
	*) bad "integration needs the engine" "prerequisites: $prereqs";;
	esac
	case " $prereqs " in
	*" $STANDIN "*) ok "integration needs the CUDA stand-in ($STANDIN)";;
	*) bad "integration needs the CUDA stand-in ($STANDIN)" "prerequisites: $prereqs";;
	esac
fi

# 1b. a dry run of `make integration` from an empty BUILD builds the stand-in
if mk -n integration >"$T/dry" 2>&1; then
	if grep -q -- "-o $STANDIN " "$T/dry"; then
		ok "make -n integration (empty BUILD) compiles the CUDA stand-in"
	else
		bad "make -n integration (empty BUILD) compiles the CUDA stand-in" \
			"what it would build: $(grep -o -e '-o [^ ]*' "$T/dry" | sed 's/^-o //' | tr '\n' ' ')"
	fi
else
	bad "make -n integration runs" "$(tail -20 "$T/dry")"
fi

# 2. nothing expanded before it is defined (the rules read, integration's recipes expanded)
mk -n --warn-undefined-variables integration >/dev/null 2>"$T/undef"
undef=$(grep 'warning: undefined variable' "$T/undef" | grep -v "undefined variable 'CI'")
if [ -z "$undef" ]; then
	ok "the Makefile expands no variable before it is defined"
else
	bad "the Makefile expands no variable before it is defined" "$undef"
fi

echo "make_prereqs: $pass passed, $fail failed"
[ "$fail" = 0 ]
