#!/bin/bash
# valgrind_supp.sh - the suppressions engine_valgrind uses (fio-own.supp) on the host, no
# testbed: glibc's dlopen scope-list leak is reproduced (a dlopen while another thread runs,
# growing an already dlopened object's scope list) and suppressed, while a definite leak of
# the program's own right after such a dlopen stays fatal. Exit 0 pass, 1 fail, 77 skip.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
SUPP=$REPO/tests/integration/fio-own.supp
command -v valgrind >/dev/null || { echo "SKIP: no valgrind (make deps)"; exit 77; }
command -v gcc >/dev/null || { echo "SKIP: no gcc"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/valgrind_supp.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "PASS $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -z "${2:-}" ] || printf '%s\n' "$2" | sed 's/^/    | /'; }

echo 'int base_fn(void) { return 1; }' > "$T/base.c"
echo 'int base_fn(void); int user_fn(void) { return base_fn(); }' > "$T/user.c"
cat > "$T/main.c" <<'C'
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static void *idle(void *arg) { pause(); return arg; }
int main(int argc, char **argv)
{
	const char *dir = argv[1];
	pthread_t t;
	char path[4096];

	pthread_create(&t, NULL, idle, NULL);
	snprintf(path, sizeof(path), "%s/libbase.so", dir);
	if (!dlopen(path, RTLD_NOW))
		return 2;
	/* each user object joins libbase's scope list: past its 4 built-in slots it is grown */
	for (int i = 0; i < 8; i++) {
		snprintf(path, sizeof(path), "%s/libuser%d.so", dir, i);
		if (!dlopen(path, RTLD_NOW))
			return 2;
	}
	if (argc > 2) {   /* the program's own definite leak */
		char *p = malloc(100);
		memset(p, 1, 100);
		p = NULL;
	}
	return 0;
}
C
if ! { gcc -shared -fPIC -o "$T/libbase.so" "$T/base.c" &&
	for i in 0 1 2 3 4 5 6 7; do
		gcc -shared -fPIC -o "$T/libuser$i.so" "$T/user.c" -L"$T" -lbase -Wl,-rpath,"$T" || exit 1
	done && gcc -O0 -o "$T/m" "$T/main.c" -pthread; } >"$T/build.log" 2>&1; then
	bad "build the reproducer" "$(cat "$T/build.log")"; echo "valgrind_supp: $pass passed, $fail failed"; exit 1
fi
VG="valgrind --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99"
glibc=$(ldd --version | head -1)

# vg NAME [SUPP] [ARGS]: rc and the log in $T/NAME.log
vg() { local name=$1 supp=$2; shift 2; $VG ${supp:+--suppressions=$supp} "$T/m" "$T" "$@" >"$T/$name.log" 2>&1; echo $?; }

rc=$(vg bare "")
if [ "$rc" = 99 ] && grep -A4 'definitely lost in' "$T/bare.log" | grep -q 'resize_scopes'; then
	ok "reproduced without suppressions: definitely lost in resize_scopes ($glibc)"
	rc=$(vg supp "$SUPP")
	if [ "$rc" = 0 ] && grep -q 'ERROR SUMMARY: 0 errors' "$T/supp.log" &&
		grep -qE 'suppressed: [1-9][0-9,]* bytes' "$T/supp.log"; then
		ok "fio-own.supp suppresses it (glibc-dlopen-resize-scopes)"
	else
		bad "fio-own.supp suppresses the resize_scopes leak (rc=$rc)" "$(grep -A12 'definitely lost in' "$T/supp.log")"
	fi
elif [ "$rc" = 0 ]; then
	echo "note: $glibc frees the scope list: nothing to suppress here"
else
	bad "the reproducer without suppressions (rc=$rc)" "$(tail -30 "$T/bare.log")"
fi
rc=$(vg own "$SUPP" leak)
if [ "$rc" = 99 ] && grep -A3 'definitely lost in' "$T/own.log" | grep -q 'main'; then
	ok "a definite leak of the program's own after the same dlopens is still fatal"
else
	bad "the program's own leak stays fatal under fio-own.supp (rc=$rc)" "$(tail -30 "$T/own.log")"
fi
echo "valgrind_supp: $pass passed, $fail failed"
[ $fail = 0 ] || exit 1
exit 0
