#!/bin/bash
# spdk_build.sh - scripts/spdk.sh (make spdk) on the host, no testbed: each way it refuses (no
# source, both sources, a directory that is no SPDK tree, a missing tarball) in one line with
# exit 1 and nothing built; --if-source without a source says the SPDK suites are skipped and
# exits 0; the project's patches apply to the shared SPDK release; and where SPDK is built, a
# second run with the same inputs does no work and --where names the build.
# Exit 0 pass, 1 fail, 77 skip.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
SPDK=$REPO/scripts/spdk.sh
T=$(mktemp -d "${TMPDIR:-/tmp}/spdk_build.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "PASS $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -z "${2:-}" ] || printf '%s\n' "$2" | sed 's/^/    | /'; }

# run [VAR=value...] [--where|--if-source]: spdk.sh in an empty private cache; sets OUT and RC
run() {
	OUT=$(cd "$T" && env -u SPDK_DIR -u SPDK_TARBALL FIO_NVMEOF_CACHE="$T/cache" \
		SPDK_SOURCES_DIR="$T/no-sources" "$@" 2>&1); RC=$?
}
# refused NAME REGEX: exit 1, exactly one line, matching REGEX, nothing in the cache
refused() {
	if [ "$RC" = 1 ] && [ "$(wc -l <<<"$OUT")" = 1 ] && grep -qE "$2" <<<"$OUT" &&
		! compgen -G "$T/cache/spdk/spdk-*" >/dev/null; then
		ok "$1: $OUT"
	else
		bad "$1 (rc=$RC)" "$OUT"
	fi
}

run "$SPDK"
refused "no source" '^spdk: no SPDK source: .*SPDK_TARBALL=.*SPDK_DIR='
run "$SPDK" --if-source
if [ "$RC" = 0 ] && grep -q 'the SPDK suites are skipped' <<<"$OUT"; then ok "--if-source, no source: $OUT"; else bad "--if-source, no source (rc=$RC)" "$OUT"; fi
run "$SPDK" --where
refused "--where, nothing built" '^spdk: not built: make spdk'
mkdir -p "$T/not-spdk"
run SPDK_DIR="$T/not-spdk" "$SPDK"
refused "SPDK_DIR not an SPDK tree" "^spdk: SPDK_DIR=$T/not-spdk: not an SPDK tree"
run SPDK_TARBALL="$T/none.tar.gz" "$SPDK"
refused "SPDK_TARBALL missing" "^spdk: SPDK_TARBALL=$T/none.tar.gz: no such file"
run SPDK_DIR="$T/not-spdk" SPDK_TARBALL="$T/none.tar.gz" "$SPDK"
refused "both sources" '^spdk: give SPDK_DIR or SPDK_TARBALL, not both'
run "$SPDK" --bogus
if [ "$RC" = 2 ] && grep -q usage <<<"$OUT"; then ok "unknown argument: usage, exit 2"; else bad "unknown argument (rc=$RC)" "$OUT"; fi

# the patches against the shared release, where it is here
shared=$(ls -1 "${SPDK_SOURCES_DIR:-$REPO/../shared/spdk-sources}"/spdk-v*.tar.gz 2>/dev/null | sort -V | tail -1)
if [ -n "$shared" ] && command -v patch >/dev/null; then
	mkdir "$T/src" && tar -xzf "$shared" -C "$T/src"
	top=$(echo "$T"/src/*)
	for p in "$REPO"/scripts/spdk-patches/*.patch; do
		if out=$(patch -d "$top" -p1 --dry-run -f < "$p" 2>&1); then
			ok "${p##*/} applies to $(basename "$shared")"
		else
			bad "${p##*/} applies to $(basename "$shared")" "$out"
		fi
	done
else
	echo "note: no shared SPDK release (or no patch(1)) here: the patches were not tried"
fi

# the real cache, where make spdk has built: a second run does no work
if where=$(FIO_NVMEOF_CACHE=${FIO_NVMEOF_CACHE:-$REPO/.cache} "$SPDK" --where 2>/dev/null); then
	stamp=$(stat -c '%i %Y' "$where" "$where/.ready")
	t0=$(date +%s)
	out=$(cd "$REPO" && env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make --no-print-directory spdk 2>&1); rc=$?
	# the same directory, whichever way the two name it (a .cache reached through a symlink)
	built=$(sed -n 's/^spdk: built: \(.*\) (cached.*/\1/p' <<<"$out" | head -1)
	if [ $rc = 0 ] && [ -n "$built" ] && [ "$(readlink -f "$built")" = "$(readlink -f "$where")" ] &&
	   [ "$stamp" = "$(stat -c '%i %Y' "$where" "$where/.ready")" ]; then
		ok "make spdk again: cached, no work ($(( $(date +%s) - t0 )) s): ${out##*$'\n'}"
	else
		bad "make spdk again: cached (rc=$rc)" "$out"
	fi
	if [ -x "$where/bin/nvmf_tgt" ] && ! ldd "$where/bin/nvmf_tgt" "$where/fio/spdk_nvme" | grep -q 'not found'; then
		ok "--where: $where has nvmf_tgt and the fio plugin, every library found"
	else
		bad "--where: $where" "$(ldd "$where/bin/nvmf_tgt" "$where/fio/spdk_nvme" 2>&1 | grep 'not found')"
	fi
else
	echo "note: SPDK not built in this clone: the cache was not checked"
fi

echo "spdk_build: $pass passed, $fail failed"
[ $fail = 0 ] || exit 1
exit 0
