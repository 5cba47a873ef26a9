#!/bin/bash
# deps.sh - install what the build and the testbed need, and prepare the fio source tree that
# matches the installed fio (Debian ships no fio headers).  Idempotent: once everything is in
# place it does no network work.  Usage: scripts/deps.sh [--check]
#   --check  only report what is missing (exit 1 if anything is), change nothing.
# Where the fio source comes from (the Makefile passes these; see its FIO_SRC comment):
#   default            the Debian source package of the installed fio (apt-get source; a
#                      deb-src entry is added if none exists, scripts/debsrc.sh), prepared in
#                      $CACHE/fio-<debian version>.
#   FIO_SRC=dir        a fio source tree.  Configured (has config-host.h): used as it is,
#                      nothing done here.  Otherwise copied (never changed in place) into
#                      $CACHE/fio-<version>-upstream and prepared there.
#   FIO_TARBALL=file   a fio release tarball, unpacked and prepared the same way.
# A prepared tree is configured like Debian's fio (./configure --disable-native --prefix=/usr),
# must report the installed `fio --version`, and must agree with the installed fio on the
# features that change struct layouts; $CACHE/fio-src then points at it.  Cached: a re-run
# with the same input does no work.
# Environment: FIO_NVMEOF_CACHE (.cache), FIO_SRC, FIO_TARBALL, FIO_NVMEOF_APT_ETC (/etc/apt:
# the apt configuration debsrc.sh reads and extends).
set -euo pipefail

REPO=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
CACHE=${FIO_NVMEOF_CACHE:-$REPO/.cache}
APT_ETC=${FIO_NVMEOF_APT_ETC:-/etc/apt}
GIVEN_SRC=${FIO_SRC:-}
TARBALL=${FIO_TARBALL:-}
CHECK_ONLY=0
[ "${1:-}" = --check ] && CHECK_ONLY=1

# build: compiler, rdma-core headers, OpenSSL's libcrypto (in-band authentication), fio itself; dpkg-dev unpacks the fio source package;
# libaio/libnuma/zlib headers let fio's ./configure see the same features the Debian fio was
# built with (they change struct layouts the engine relies on).
# testbed: qemu (TCG), busybox for the initramfs, rdma-core userland and rxe provider,
# nvme-cli for the kernel-initiator reference, kmod/cpio/iproute2 for the guest setup,
# dmsetup for a namespace that stops answering (the stop suite).
PKGS="gcc make pkg-config libc6-dev dpkg-dev python3 fio
      rdma-core ibverbs-providers libibverbs-dev librdmacm-dev ibverbs-utils rdmacm-utils
      libaio-dev libnuma-dev zlib1g-dev libssl-dev
      qemu-system-x86 busybox-static kmod cpio iproute2 nvme-cli procps valgrind dmsetup gnuplot-nox"

say() { echo "deps: $*"; }
# shellcheck source=common.sh
. "$REPO/scripts/common.sh"

# shellcheck disable=SC2086  # a list of package names
missing=$(apt_missing $PKGS)
if [ -n "$missing" ]; then
	if [ "$CHECK_ONLY" = 1 ]; then say "missing packages: $missing"; exit 1; fi
	# shellcheck disable=SC2086
	apt_install "${TMPDIR:-/tmp}/fio-nvmeof-apt.log" $missing
fi

# ---- the fio source tree matching the installed fio
fio_ver=$(fio --version)                          # e.g. fio-3.33
# Every way the fio source cannot be had ends with the two ways to give it without apt.
no_source() {
	say "$*"
	say "without apt: make deps FIO_SRC=/path/to/fio-source (a $fio_ver tree) or make deps FIO_TARBALL=/path/to/${fio_ver}.tar.gz"
	exit 1
}
# The engine shares struct layouts with the running fio: features that add fields or union
# members must match what the installed fio links against. A fio built from source before
# libnuma-dev or librdmacm-dev was installed links neither: its tree is configured without
# them too. linkage sets fio_libs (ldd of the installed fio) and conf_flags.
fio_libs="" conf_flags=""
OPTIONAL_LIBS="libnuma:--disable-numa librdmacm:--disable-rdma"   # LIB:configure flag without it
linkage() {
	local bin pair lib
	bin=$(command -v fio)
	fio_libs=$(ldd "$bin" 2>&1) || {   # captured: grep -q on a pipe trips pipefail
		say "cannot tell which libraries $bin links (ldd: ${fio_libs##*$'\n'}): give FIO_SRC= the configured tree that fio was built from"
		exit 1; }
	conf_flags="--disable-native --prefix=/usr"
	for pair in $OPTIONAL_LIBS; do
		lib=${pair%%:*}
		grep -q "$lib\.so" <<<"$fio_libs" || conf_flags="$conf_flags ${pair#*:}"
	done
}
tree_version() { sed -n 's/^FIO_VERSION = //p' "$1/FIO-VERSION-FILE" 2>/dev/null || true; }

[ -z "$GIVEN_SRC" ] || [ -z "$TARBALL" ] || { say "give FIO_SRC or FIO_TARBALL, not both"; exit 1; }
if [ -n "$GIVEN_SRC" ] && [ -f "$GIVEN_SRC/config-host.h" ]; then
	# An already configured tree: the build uses it as it is (another fio version included).
	say "FIO_SRC=$GIVEN_SRC is configured (config-host.h): the build uses it as it is"
	exit 0
fi

# prepare SRC DEST ORIGIN LABEL: configure the fio tree SRC (a private copy), check it against
# the installed fio, move it to DEST with ORIGIN in DEST/.ready and point $CACHE/fio-src at it.
# LABEL names the source in messages.
prepare() {
	local src=$1 dest=$2 origin=$3 label=$4 src_ver pair lib def linked defined flag
	if [ ! -x "$src/configure" ] || [ ! -f "$src/FIO-VERSION-GEN" ]; then
		no_source "$label: not a fio source tree (no configure and FIO-VERSION-GEN)"
	fi
	if ! (cd "$src" && sh ./FIO-VERSION-GEN >/dev/null 2>&1); then :; fi
	src_ver=$(tree_version "$src")
	[ "$src_ver" = "$fio_ver" ] ||
		no_source "the fio source ($label) reports '${src_ver:-no version}' but the installed fio is '$fio_ver'"
	[ -n "$fio_libs" ] || linkage
	for pair in $OPTIONAL_LIBS; do
		flag=${pair#*:}
		case " $conf_flags " in *" $flag "*)
			say "the installed fio links no ${pair%%:*}: configuring with $flag to match it";;
		esac
	done
	say "configuring $src_ver (config-host.h: ./configure $conf_flags)"
	# shellcheck disable=SC2086  # a list of flags
	(cd "$src" && ./configure $conf_flags > configure.out 2>&1) || {
		tail -20 "$src/configure.out"; say "fio ./configure failed ($label)"; exit 1; }
	for pair in libaio:CONFIG_LIBAIO libnuma:CONFIG_LIBNUMA librdmacm:CONFIG_RDMA; do
		lib=${pair%%:*} def=${pair#*:}
		linked=0; grep -q "$lib\.so" <<<"$fio_libs" && linked=1
		defined=0; grep -q "^#define $def\$" "$src/config-host.h" && defined=1
		[ "$linked" = "$defined" ] && continue
		say "config-host.h $def=$defined but the installed fio $(command -v fio) links $lib=$linked: layouts would differ ($label)"
		if [ "$linked" = 1 ]; then
			say "way out: install $lib-dev (fio's ./configure did not find $lib) and run make deps again, or give FIO_SRC= the configured tree that fio was built from"
		else
			say "way out: give FIO_SRC= the configured tree that fio was built from, or rebuild that fio now that $lib-dev is installed (its ./configure then finds $lib) and run make deps again"
		fi
		exit 1
	done
	rm -rf "$dest"; mv "$src" "$dest"; echo "$origin" > "$dest/.ready"
	ln -sfn "${dest##*/}" "$CACHE/fio-src"
	say "fio source ready: $dest ($fio_ver, from $label)"
}
new_work() {   # a private directory under $CACHE, removed on exit
	mkdir -p "$CACHE"
	work=$(mktemp -d "$CACHE/.fio-src.XXXXXX")
	trap 'rm -rf "$work"' EXIT
}

# ---- FIO_SRC=dir (unconfigured) or FIO_TARBALL=file: a private copy in the cache
if [ -n "$GIVEN_SRC$TARBALL" ]; then
	if [ -n "$TARBALL" ]; then
		[ -f "$TARBALL" ] || { say "FIO_TARBALL=$TARBALL: no such file"; exit 1; }
		origin="tarball $(readlink -f "$TARBALL") sha256 $(sha256sum < "$TARBALL" | cut -d' ' -f1)"
	else
		[ -d "$GIVEN_SRC" ] || { say "FIO_SRC=$GIVEN_SRC: no such directory"; exit 1; }
		origin="tree $(readlink -f "$GIVEN_SRC")"
		if [ -e "$GIVEN_SRC/.git" ] && head=$(git -C "$GIVEN_SRC" rev-parse HEAD 2>/dev/null); then
			origin="$origin commit $head"
		fi
	fi
	# a tree prepared for a fio that linked other libraries is prepared again
	linkage
	origin="$origin
configure $conf_flags"
	tree="$CACHE/$(tr -c 'A-Za-z0-9._+\n-' _ <<<"$fio_ver")-upstream"
	if [ -f "$tree/.ready" ] && [ "$(cat "$tree/.ready")" = "$origin" ]; then
		[ "$CHECK_ONLY" = 1 ] || ln -sfn "${tree##*/}" "$CACHE/fio-src"
		exit 0
	fi
	if [ "$CHECK_ONLY" = 1 ]; then say "fio source tree from ${TARBALL:-$GIVEN_SRC} not prepared (run make deps)"; exit 1; fi
	new_work
	if [ -n "$TARBALL" ]; then
		say "unpacking $TARBALL"
		unpack_tarball "$TARBALL" "$work" || { say "FIO_TARBALL=$TARBALL: cannot unpack it"; exit 1; }
	else
		say "copying $GIVEN_SRC (the copy is configured, not your tree)"
		mkdir "$work/src"
		tar -C "$GIVEN_SRC" --exclude=./.git -cf - . | tar -C "$work/src" -xf - ||
			{ say "copying FIO_SRC=$GIVEN_SRC failed"; exit 1; }
		# A git checkout names its version with git describe (FIO-VERSION-GEN): the copy has
		# no .git, so it gets the same answer in a 'version' file.
		if [ ! -f "$work/src/version" ] && [ -e "$GIVEN_SRC/.git" ] &&
			v=$(git -C "$GIVEN_SRC" describe --match 'fio-[0-9]*' --abbrev=4 HEAD 2>/dev/null); then
			git -C "$GIVEN_SRC" diff-index --quiet HEAD -- 2>/dev/null || v="$v-dirty"
			echo "$v" > "$work/src/version"
		fi
	fi
	prepare "$work/src" "$tree" "$origin" "${TARBALL:+FIO_TARBALL=$TARBALL}${GIVEN_SRC:+FIO_SRC=$GIVEN_SRC}"
	exit 0
fi

# ---- the Debian source package of the installed fio
deb_ver=$(dpkg-query -W -f='${Version}' fio 2>/dev/null || true)      # e.g. 3.33-3
[ -n "$deb_ver" ] || no_source "fio is not installed as a Debian package: apt has no source for $fio_ver"
tree="$CACHE/fio-$deb_ver"
if [ -f "$tree/.ready" ]; then
	[ "$CHECK_ONLY" = 1 ] || ln -sfn "fio-$deb_ver" "$CACHE/fio-src"
	exit 0
fi
if [ "$CHECK_ONLY" = 1 ]; then say "fio source tree for $deb_ver not prepared (run make deps)"; exit 1; fi
# A fio that is not the package's (built from git, installed by hand) has no Debian source.
up_ver=${deb_ver#*:}; up_ver=${up_ver%-*}
[ "fio-$up_ver" = "$fio_ver" ] ||
	no_source "the installed fio ($(command -v fio)) is $fio_ver, not the Debian package's fio $deb_ver: apt has no source for it"
[ "$(id -u)" = 0 ] || no_source "the fio $deb_ver source tree is not cached: run 'make deps' as root once (it uses apt-get source fio)"

debsrc() { "$REPO/scripts/debsrc.sh" --root "$APT_ETC" "$@"; }
# apt reads its sources from $APT_ETC (the defaults when that is /etc/apt)
APT_SRC=(-o Dir::Etc::SourceList="$APT_ETC/sources.list" -o Dir::Etc::SourceParts="$APT_ETC/sources.list.d")
if ! debsrc has-src; then
	# Mirror every enabled 'deb' source as 'deb-src'; debsrc.sh has apt check the entries first.
	say "adding deb-src entries to fetch the fio source package"
	debsrc install || no_source "could not add a deb-src entry apt accepts"
	if ! apt-get "${APT_SRC[@]}" update -qq > "${TMPDIR:-/tmp}/fio-nvmeof-apt.log" 2>&1; then
		tail -20 "${TMPDIR:-/tmp}/fio-nvmeof-apt.log"
		rm -f "$APT_ETC/sources.list.d/fio-nvmeof-deb-src.sources"
		no_source "apt-get update failed with the added deb-src entries (removed again)"
	fi
fi

new_work
say "fetching the fio $deb_ver source package"
(cd "$work" && apt-get "${APT_SRC[@]}" source -qq --download-only "fio=$deb_ver" >apt-source.log 2>&1) || {
	tail -5 "$work/apt-source.log"
	no_source "apt-get source fio=$deb_ver failed (the mirror has no source package for it, or no deb-src entry covers its suite)"; }
(cd "$work" && dpkg-source -x ./fio_*.dsc src >dpkg-source.log 2>&1) || { cat "$work/dpkg-source.log"; say "dpkg-source failed"; exit 1; }
prepare "$work/src" "$tree" "debian source package fio $deb_ver" "the Debian source package fio $deb_ver"
