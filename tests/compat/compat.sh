#!/bin/bash
# compat.sh - the engine against other fio versions.
#
#  1. Builds the engine (-Werror, -Werror=incompatible-pointer-types) against Debian 12's fio
#     3.33 source (.cache/fio-src, from `make deps`) and against upstream fio 3.36, 3.39, 3.42
#     from release tarballs in $FIO_SOURCES_DIR (default: ../shared/fio-sources next to the
#     repository).  Each tarball is unpacked and configured once (./configure --disable-native
#     --prefix=/usr) under .cache/compat/fio-X/; each engine goes to build/compat/fio-X/.  A
#     version whose source cannot be had is skipped, saying so.
#  2. Builds the newest of those fio versions from source (cached: once per tree) and checks,
#     on the host, that it loads the engine built for it (enghelp lists the options) and that
#     an engine built for another fio is refused with one line, in both directions.
#  3. In the testbed (a qemu guest with the kernel NVMe/RDMA target, tests/testbed), runs the
#     engine built for the newest fio under that fio: a crc32c verify job and a job that gets
#     a real NVMe error status (null_blk bad blocks), whose errdetails line fio must print
#     decoded (tests/compat/guest_compat.sh).
#
# Prints one PASS/FAIL/SKIP line per step and "compat: N passed, N failed, N skipped".
# Exit 0 (all that ran passed), 1 (something failed), 77 (nothing could run).
# Environment: FIO_SOURCES_DIR, COMPAT_VERSIONS ("3.36 3.39 3.42"), FIO_NVMEOF_CACHE (.cache),
# COMPAT_JOBS (make -j for the fio binary, 2), CHECK_SUMMARY (append "compat P F S").
set -u
REPO=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
CACHE=${FIO_NVMEOF_CACHE:-$REPO/.cache}
CCACHE=$CACHE/compat
OUTB=$REPO/build/compat
SOURCES=${FIO_SOURCES_DIR:-$REPO/../shared/fio-sources}
VERSIONS=${COMPAT_VERSIONS:-3.36 3.39 3.42}
JOBS=${COMPAT_JOBS:-2}
ENG_CFLAGS="-O2 -g -Werror=incompatible-pointer-types"
OPTS="traddr trsvcid adrfam subnqn nsid host_traddr hostnqn hostid connect_timeout ack_timeout inline_data
      completion poll_us delay_submit submit_batch io_timeout stop_grace kato ctrl_loss_tmo reconnect_delay retry_on_reconnect
      nvmeof_mem cuda_device gpu_reg gpudirect io_queues io_queue_pick"
pass=0 fail=0 skip=0
T0=$(date +%s)

mkdir -p "$CCACHE" "$OUTB/logs" || exit 1
exec 9>"$CCACHE/.lock"
flock 9 || exit 1

ok()   { pass=$((pass + 1)); echo "PASS $1"; }
bad()  { fail=$((fail + 1)); echo "FAIL $1"; }
skp()  { skip=$((skip + 1)); echo "SKIP $1"; }
tail_log() { tail -n "${2:-15}" "$1" | sed 's/^/    | /'; }
secs() { echo "$(($(date +%s) - $1))s"; }
tree_version() { sed -n 's/^FIO_VERSION = //p' "$1/FIO-VERSION-FILE" 2>/dev/null; }

# prepare_upstream V: a configured fio-V tree under .cache/compat (once); prints the reason
# and returns 2 when there is no source, 1 when preparing failed.
prepare_upstream() {
	local v=$1 tree=$CCACHE/fio-$1 tgz=$SOURCES/fio-$1.tar.gz work sum
	[ -f "$tree/.ready" ] && return 0
	if [ ! -f "$tgz" ]; then
		echo "no source: $tgz not found (set FIO_SOURCES_DIR)"; return 2
	fi
	if [ -f "$SOURCES/SHA256SUMS" ] && grep -q " fio-$v.tar.gz\$" "$SOURCES/SHA256SUMS"; then
		sum=$(sha256sum "$tgz" | cut -d' ' -f1)
		if ! grep -q "^$sum  fio-$v.tar.gz\$" "$SOURCES/SHA256SUMS"; then
			echo "$tgz does not match $SOURCES/SHA256SUMS"; return 1
		fi
	fi
	rm -rf "$tree"
	work=$(mktemp -d "$CCACHE/.fio-$v.XXXXXX") || return 1
	if ! tar -xzf "$tgz" -C "$work" 2>"$work/tar.err" || [ ! -x "$work/fio-$v/configure" ]; then
		echo "unpacking $tgz failed: $(head -2 "$work/tar.err")"; rm -rf "$work"; return 1
	fi
	if ! (cd "$work/fio-$v" && ./configure --disable-native --prefix=/usr >configure.out 2>&1); then
		echo "./configure failed:"; tail_log "$work/fio-$v/configure.out"; rm -rf "$work"; return 1
	fi
	(cd "$work/fio-$v" && ./FIO-VERSION-GEN >/dev/null 2>&1)
	if [ "$(tree_version "$work/fio-$v")" != "fio-$v" ]; then
		echo "the tree reports '$(tree_version "$work/fio-$v")', not fio-$v"; rm -rf "$work"; return 1
	fi
	mv "$work/fio-$v" "$tree" && rm -rf "$work" && touch "$tree/.ready"
}

# build_engine LABEL V TREE [KEY]: build/compat/KEY/libfio_nvmeof.so against TREE (KEY:
# fio-V; the engine's own tree has its own, as it may be the same version as an upstream one
# with another layout, Debian 13's 3.39).
built=""
build_engine() {
	local label=$1 v=$2 tree=$3 key=${4:-fio-$2} t=$(date +%s) log=$OUTB/logs/build-${4:-fio-$2}.log
	if make -C "$REPO" --no-print-directory BUILD="build/compat/$key" FIO_SRC="$tree" CI=true \
		CFLAGS="$ENG_CFLAGS" engine >"$log" 2>&1; then
		ok "build engine against $label ($(secs "$t"))"
		built="$built $key"
	else
		bad "build engine against $label (-Werror; log $log):"
		grep -E ': (error|warning|fatal error): ' "$log" | head -8 | sed 's/^/    | /'
	fi
}
is_built() { case " $built " in *" $1 "*) return 0;; esac; return 1; }   # is_built KEY
engine_for() { echo "$OUTB/$1/libfio_nvmeof.so"; }                          # engine_for KEY

# ---------------------------------------------------------------- 1. engines for every fio
# the tree the engine is built against: FIO_SRC from make (a configured tree given, or what
# make deps prepared), else the cache's
base_tree=${FIO_SRC:-$CACHE/fio-src}
base_v=""
if [ -f "$base_tree/config-host.h" ]; then
	[ -f "$base_tree/FIO-VERSION-FILE" ] || (cd "$base_tree" && ./FIO-VERSION-GEN >/dev/null 2>&1)
	base_v=$(tree_version "$base_tree"); base_v=${base_v#fio-}
fi
if [ -n "$base_v" ]; then
	build_engine "fio-$base_v (the engine's own fio source, $base_tree)" "$base_v" "$(readlink -f "$base_tree")" base
else
	skp "build engine against the engine's own fio source: no configured source at $base_tree (run 'make deps')"
fi

ready=""
for v in $VERSIONS; do
	t=$(date +%s)
	cached=cached; [ -f "$CCACHE/fio-$v/.ready" ] || cached="unpacked and configured"
	why=$(prepare_upstream "$v"); rc=$?
	[ "$cached" = cached ] || cached="$cached in $(secs "$t")"
	case $rc in
	0) ready="$ready $v"
	   build_engine "fio-$v (upstream, $cached)" "$v" "$CCACHE/fio-$v";;
	2) skp "build engine against fio-$v: $why";;
	*) bad "build engine against fio-$v: preparing the source failed ($(secs "$t")): $why";;
	esac
done

# ---------------------------------------------------------------- 2. the newest fio, built
new_v=$(for v in $ready; do echo "$v"; done | sort -V | tail -1)
new_fio=""
if [ -z "$new_v" ]; then
	skp "build the newest fio binary: no upstream fio source was available"
else
	tree=$CCACHE/fio-$new_v t=$(date +%s) log=$OUTB/logs/make-fio-$new_v.log
	if [ -f "$tree/.fio-built" ] && [ -x "$tree/fio" ]; then
		ok "build fio-$new_v binary (cached: $tree/fio)"
		new_fio=$tree/fio
	elif make -C "$tree" -j"$JOBS" fio >"$log" 2>&1 && [ "$("$tree/fio" --version 2>&1)" = "fio-$new_v" ]; then
		touch "$tree/.fio-built"
		ok "build fio-$new_v binary (make -j$JOBS fio, $(secs "$t"))"
		new_fio=$tree/fio
	else
		bad "build fio-$new_v binary ($(secs "$t"); log $log):"; tail_log "$log"
	fi
fi

# refused LABEL FIO ENGINE BUILT_FOR RUNNING: the engine is refused with exactly one line,
# both by --enghelp and by a job.
refused() {
	refused_re "$1" "$2" "$3" "fio-nvmeof: built for $4 but this fio is $5: rebuild"
}

# refused_re LABEL FIO ENGINE REGEX: FIO refuses ENGINE with exactly one fio-nvmeof line,
# matching REGEX, at --enghelp and as a job, and exits non-zero.
refused_re() {
	local label=$1 fio=$2 eng=$3 want=$4
	local out rc n what
	for what in enghelp job; do
		if [ $what = enghelp ]; then
			out=$("$fio" --enghelp="$eng" 2>&1); rc=$?
		else
			out=$("$fio" --name=j --ioengine=external:"$eng" --filename=x --size=1m 2>&1); rc=$?
		fi
		n=$(grep -c "^$want" <<<"$out")
		if [ $rc = 0 ] || [ "$n" != 1 ] || [ "$(grep -c '^fio-nvmeof:' <<<"$out")" != 1 ]; then
			bad "$label ($what: rc=$rc, $n matching lines):"; sed 's/^/    | /' <<<"$out" | head -8
			return
		fi
	done
	ok "$label (enghelp and a job: $(grep -m1 "^$want" <<<"$out" | cut -c1-70)...)"
}

if [ -z "$new_fio" ]; then
	skp "load checks under the newest fio: no fio binary built"
elif ! is_built "fio-$new_v"; then
	skp "load checks under fio-$new_v: the engine for fio-$new_v did not build"
else
	eng=$(engine_for "fio-$new_v")
	help=$("$new_fio" --enghelp="$eng" 2>&1); rc=$?
	missing=""
	for o in $OPTS; do
		grep -qE "^$o +: [A-Za-z]" <<<"$help" || missing="$missing $o"
	done
	if [ $rc = 0 ] && [ -z "$missing" ]; then
		ok "fio-$new_v --enghelp lists the engine's $(wc -w <<<"$OPTS") options"
	else
		bad "fio-$new_v --enghelp lists the engine's options (rc=$rc, missing:${missing:- none}):"
		sed 's/^/    | /' <<<"$help" | head -8
	fi
	if [ -n "$base_v" ] && is_built base && [ "$base_v" != "$new_v" ]; then
		refused "fio-$new_v refuses the engine built for fio-$base_v" "$new_fio" \
			"$(engine_for base)" "fio-$base_v" "fio-$new_v"
	else
		skp "fio-$new_v refuses an engine built for another fio: no other engine built"
	fi
	# The same release with another thread_options layout (Debian 13's fio 3.39-1 carries an
	# option upstream 3.39 lacks, moving later fields by 4 bytes): the version matches, the
	# layout check (engine/nvmeof_layout.c) must refuse it.
	shifted=$CCACHE/shifted-fio-$new_v log=$OUTB/logs/build-shifted-fio-$new_v.log
	if [ ! -f "$shifted/.ready" ]; then
		rm -rf "$shifted" && cp -a "$CCACHE/fio-$new_v" "$shifted" &&
			sed -i 's/^\tunsigned int use_thread;/\tunsigned int nvmeof_layout_test_pad;\n&/' \
				"$shifted/thread_options.h" &&
			grep -q nvmeof_layout_test_pad "$shifted/thread_options.h" && touch "$shifted/.ready"
	fi
	if [ -f "$shifted/.ready" ] && make -C "$REPO" --no-print-directory \
		BUILD="build/compat/shifted-fio-$new_v" FIO_SRC="$shifted" CI=true engine >"$log" 2>&1; then
		refused_re "fio-$new_v refuses an engine built against fio-$new_v headers with another thread_options layout" \
			"$new_fio" "$OUTB/shifted-fio-$new_v/libfio_nvmeof.so" \
			"fio-nvmeof: built against a fio-$new_v source whose struct layout differs from this fio's (option 'thread' is at offset"
	else
		bad "build an engine against a shifted fio-$new_v layout (log $log)"
	fi
	sys_fio=$(command -v fio || true)
	sys_v=$([ -n "$sys_fio" ] && "$sys_fio" --version 2>/dev/null)
	if [ -n "$sys_v" ] && [ "$sys_v" != "fio-$new_v" ]; then
		refused "$sys_v ($sys_fio) refuses the engine built for fio-$new_v" "$sys_fio" "$eng" \
			"fio-$new_v" "$sys_v"
	else
		skp "the installed fio refuses the engine built for fio-$new_v: no other fio installed"
	fi
fi

# ---------------------------------------------------------------- 3. the testbed
if [ -z "$new_fio" ] || ! is_built "fio-$new_v"; then
	skp "testbed jobs under the newest fio: no fio binary or engine for it"
else
	t=$(date +%s) log=$OUTB/logs/testbed.log out=$OUTB/testbed-out
	rm -rf "$out"; mkdir -p "$out"
	"$REPO/tests/testbed/testbed.sh" --ns-mb 64 --boot-timeout 420 --cmd-timeout 300 --out "$out" \
		-- "$REPO/tests/compat/guest_compat.sh" "$new_fio" "$(engine_for "fio-$new_v")" "fio-$new_v" \
		>"$log" 2>&1
	rc=$?
	res=$out/results
	if [ $rc = 123 ]; then
		skp "testbed jobs under fio-$new_v: $(grep -m1 '^testbed:' "$log")"
	elif [ ! -s "$res" ]; then
		bad "testbed jobs under fio-$new_v: no results (testbed rc=$rc, $(secs "$t"); log $log):"
		grep '^testbed:' "$log" | tail -5 | sed 's/^/    | /'
	else
		while IFS= read -r line; do
			case $line in
			"PASS "*) ok "${line#PASS }";;
			"FAIL "*) bad "${line#FAIL }";;
			"    |"*) echo "$line";;
			esac
		done <"$res"
		if [ $rc != 0 ] && ! grep -q '^FAIL ' "$res"; then
			bad "testbed run under fio-$new_v (rc=$rc; log $log):"
			grep '^testbed:' "$log" | tail -5 | sed 's/^/    | /'
		fi
		echo "     (testbed: $(secs "$t"))"
	fi
fi

echo "compat: $pass passed, $fail failed, $skip skipped ($(secs "$T0"))"
[ -n "${CHECK_SUMMARY:-}" ] && echo "compat $pass $fail $skip" >> "$CHECK_SUMMARY"
[ $fail = 0 ] || exit 1
[ $pass = 0 ] && exit 77
exit 0
