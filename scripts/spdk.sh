#!/bin/bash
# spdk.sh - build SPDK's NVMe-oF target (nvmf_tgt) and its fio plugin (spdk_nvme) from a
# release tarball or a tree, against Debian's packaged DPDK and the fio source tree the engine
# is built against, into a cache that a second `make check` reuses.
# Usage: scripts/spdk.sh [--where | --if-source]
#   (none)       build unless the cache already holds this build; print where it is.
#   --where      print the built directory (exit 0), or why there is none (exit 1); builds nothing.
#   --if-source  as (none) where a source is given or found, else say so and exit 0 (make check).
# Where the source comes from, first found:
#   SPDK_DIR=dir        an SPDK tree (release or git checkout; copied, never changed in place)
#   SPDK_TARBALL=file   an SPDK release tarball (spdk-vX.Y.tar.gz)
#   the newest spdk-v*.tar.gz in $SPDK_SOURCES_DIR (default ../shared/spdk-sources)
# The build: the patches in scripts/spdk-patches/ (each says why), configure with RDMA and the
# fio plugin and without what the project does not use, then only the libraries, nvmf_tgt and
# the nvme fio plugin. The result: $FIO_NVMEOF_CACHE/spdk/current/{bin/nvmf_tgt,fio/spdk_nvme,
# lib/} (binaries carry an rpath to lib/), keyed by everything that goes into it.
# Environment: FIO_NVMEOF_CACHE (.cache), FIO_SRC (the configured fio tree; default
# $FIO_NVMEOF_CACHE/fio-src), SPDK_DIR, SPDK_TARBALL, SPDK_SOURCES_DIR, SPDK_JOBS (nproc).
set -euo pipefail

REPO=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
CACHE=${FIO_NVMEOF_CACHE:-$REPO/.cache}
SPDK_CACHE=$CACHE/spdk
PATCHES=$REPO/scripts/spdk-patches
FIO_TREE=${FIO_SRC:-$CACHE/fio-src}
SOURCES=${SPDK_SOURCES_DIR:-$REPO/../shared/spdk-sources}
MODE=${1:-build}
case $MODE in build|--where|--if-source) ;; *) echo "usage: $0 [--where|--if-source]" >&2; exit 2;; esac

say() { echo "spdk: $*"; }
# shellcheck source=common.sh
. "$REPO/scripts/common.sh"
LOG=""
fail() {   # the build's log outlives its work directory
	if [ -n "$LOG" ] && [ -f "$LOG" ]; then cp "$LOG" "$SPDK_CACHE/last-failed-build.log"; fi
	say "$*"; exit 1; }

if [ "$MODE" = --where ]; then
	[ -f "$SPDK_CACHE/current/.ready" ] && [ -x "$SPDK_CACHE/current/bin/nvmf_tgt" ] &&
		[ -f "$SPDK_CACHE/current/fio/spdk_nvme" ] || fail "not built: make spdk (needs an SPDK source: SPDK_TARBALL= or SPDK_DIR=)"
	readlink -f "$SPDK_CACHE/current"
	exit 0
fi

# ---- the source
if [ -n "${SPDK_DIR:-}" ] && [ -n "${SPDK_TARBALL:-}" ]; then fail "give SPDK_DIR or SPDK_TARBALL, not both"; fi
if [ -n "${SPDK_DIR:-}" ]; then
	[ -f "$SPDK_DIR/configure" ] && [ -f "$SPDK_DIR/VERSION" ] ||
		fail "SPDK_DIR=$SPDK_DIR: not an SPDK tree (no configure and VERSION)"
	SRC=$SPDK_DIR
	origin="tree $(readlink -f "$SPDK_DIR")"
	if head=$(git -C "$SPDK_DIR" rev-parse HEAD 2>/dev/null); then
		origin="$origin commit $head"
		git -C "$SPDK_DIR" diff-index --quiet HEAD -- 2>/dev/null || origin="$origin dirty $(date +%s)"
	fi
else
	SRC=${SPDK_TARBALL:-}
	if [ -z "$SRC" ]; then
		SRC=$(ls -1 "$SOURCES"/spdk-v*.tar.gz 2>/dev/null | sort -V | tail -1 || true)
		if [ -z "$SRC" ]; then
			msg="no SPDK source: give a release tarball (make spdk SPDK_TARBALL=/path/to/spdk-vX.Y.tar.gz, from SPDK's GitHub releases) or a tree (SPDK_DIR=/path/to/spdk)"
			[ "$MODE" = --if-source ] && { say "$msg; the SPDK suites are skipped"; exit 0; }
			fail "$msg"
		fi
	fi
	[ -f "$SRC" ] || fail "SPDK_TARBALL=$SRC: no such file"
	origin="tarball $(basename "$SRC") sha256 $(sha256sum < "$SRC" | cut -d' ' -f1)"
fi

# ---- what the build needs: Debian's DPDK, the libraries SPDK's configure looks for, and g++
# (SPDK links its shared libraries with the C++ driver)
PKGS="gcc g++ make pkg-config python3 patch libdpdk-dev libibverbs-dev librdmacm-dev uuid-dev
      libssl-dev libaio-dev libnuma-dev libncurses-dev"
# shellcheck disable=SC2086  # lists of package names
missing=$(apt_missing $PKGS)
# shellcheck disable=SC2086
[ -z "$missing" ] || apt_install "${TMPDIR:-/tmp}/fio-nvmeof-spdk-apt.log" $missing
dpdk_ver=$(pkg-config --modversion libdpdk 2>/dev/null) || fail "pkg-config finds no libdpdk (libdpdk-dev)"
[ -f "$FIO_TREE/config-host.h" ] ||
	fail "no configured fio source at $FIO_TREE for the fio plugin: run make deps first (or give FIO_SRC=)"
fio_ver=$(sed -n 's/^FIO_VERSION = //p' "$FIO_TREE/FIO-VERSION-FILE" 2>/dev/null || true)

# configure: RDMA and the fio plugin; nothing else SPDK builds by default that the project does
# not run. corei7: no AVX-512 in the binaries (the testbed's emulated CPU has none).
CONF=(--with-dpdk --with-rdma --with-fio="$(readlink -f "$FIO_TREE")" --target-arch=corei7
      --disable-unit-tests --disable-tests --without-crypto --without-vhost --without-virtio
      --without-vfio-user --without-ocf --without-xnvme --without-idxd --without-fsdev
      --without-nvme-cuse --without-uring --without-usdt)

# ---- the cache key: everything that goes into the build. RECIPE: raise it when a change to
# this script changes what is built.
RECIPE=1
key=$( {
	echo "source: $origin"
	echo "dpdk: $dpdk_ver"
	echo "fio: $fio_ver $(sha256sum < "$FIO_TREE/config-host.h" | cut -d' ' -f1)"
	echo "cc: $(gcc -dumpfullversion 2>/dev/null)"
	echo "configure: ${CONF[*]}"
	echo "recipe: $RECIPE"
	cat "$PATCHES"/*.patch
} | sha256sum | cut -c1-12)
name=$(basename "${SRC%.tar.gz}")
DEST=$SPDK_CACHE/$name-$key
if [ -f "$DEST/.ready" ]; then
	ln -sfn "${DEST##*/}" "$SPDK_CACHE/current"
	say "built: $DEST (cached; $origin, DPDK $dpdk_ver, fio plugin for $fio_ver)"
	exit 0
fi

mkdir -p "$SPDK_CACHE"
work=$(mktemp -d "$SPDK_CACHE/.work.XXXXXX")
trap 'rm -rf "$work"' EXIT
LOG=$work/build.log
step() {   # step WHAT COMMAND...: run it into the log; on failure its tail and one line
	local what=$1; shift
	say "$what"
	echo "== $what: $*" >> "$LOG"
	"$@" >> "$LOG" 2>&1 || { tail -25 "$LOG"; fail "$what failed (log: $SPDK_CACHE/last-failed-build.log)"; }
}

if [ -n "${SPDK_DIR:-}" ]; then
	say "copying $SPDK_DIR (the copy is patched and built, not your tree)"
	mkdir "$work/src"
	tar -C "$SPDK_DIR" --exclude=./.git --exclude=./build -cf - . | tar -C "$work/src" -xf - ||
		fail "copying SPDK_DIR=$SPDK_DIR failed"
else
	say "unpacking $SRC"
	unpack_tarball "$SRC" "$work" || fail "SPDK_TARBALL=$SRC: cannot unpack it"
	[ -f "$work/src/configure" ] || fail "SPDK_TARBALL=$SRC: no SPDK tree inside (no configure)"
fi
S=$work/src
spdk_ver=$(cat "$S/VERSION" 2>/dev/null || echo "?")

# Each patch is applied where it applies; already applied (a patched tree) is fine; one that
# does not fit this SPDK is said, and the build goes on without it.
for p in "$PATCHES"/*.patch; do
	if patch -d "$S" -p1 --dry-run -s -f < "$p" > /dev/null 2>&1; then
		patch -d "$S" -p1 -s -f < "$p" > /dev/null
		say "patch ${p##*/}: applied"
	elif patch -d "$S" -p1 -R --dry-run -s -f < "$p" > /dev/null 2>&1; then
		say "patch ${p##*/}: already in this tree"
	else
		say "patch ${p##*/}: does not apply to SPDK $spdk_ver (written for v26.01): built without it"
	fi
done

JOBS=${SPDK_JOBS:-$(nproc)}
step "configuring SPDK $spdk_ver (DPDK $dpdk_ver, fio plugin for ${fio_ver:-?})" \
	bash -c 'cd "$1" && shift && ./configure --prefix="$1" "${@:2}"' _ "$S" "$DEST" "${CONF[@]}"
grep -q '^CONFIG_FIO_PLUGIN?*=y' "$S/mk/config.mk" || fail "configure did not enable the fio plugin (log: $SPDK_CACHE/last-failed-build.log)"
grep -q '^CONFIG_RDMA?*=y' "$S/mk/config.mk" || fail "configure did not enable RDMA (log: $SPDK_CACHE/last-failed-build.log)"
# Only what the project runs: the libraries and modules, nvmf_tgt, the nvme fio plugin (the
# whole tree builds every app and example: about 3x the time). The rpath lets the binaries
# find SPDK's own shared libraries in DEST/lib without LD_LIBRARY_PATH.
export LDFLAGS="${LDFLAGS:-} -Wl,-rpath,$DEST/lib"
step "preparing build/ and the generated headers" \
	make -C "$S" -j"$JOBS" build_dir include/spdk/config.h include/spdk/version.h
step "building lib/ (make -j$JOBS: the longest step, minutes)" make -C "$S/lib" -j"$JOBS" all
step "building module/" make -C "$S/module" -j"$JOBS" all
if grep -q '^CONFIG_SHARED?*=y' "$S/mk/config.mk"; then
	step "building shared_lib/" make -C "$S/shared_lib" -j"$JOBS" all
fi
step "building nvmf_tgt" make -C "$S/app/nvmf_tgt" -j"$JOBS" all
step "building the nvme fio plugin" make -C "$S/app/fio/nvme" -j"$JOBS" all
[ -x "$S/build/bin/nvmf_tgt" ] || fail "no build/bin/nvmf_tgt after the build (log: $SPDK_CACHE/last-failed-build.log)"
[ -f "$S/build/fio/spdk_nvme" ] || fail "no build/fio/spdk_nvme after the build (log: $SPDK_CACHE/last-failed-build.log)"

# Keep only what runs (the built tree is ~100 MB of objects)
rm -rf "$DEST"
mkdir -p "$DEST/bin" "$DEST/fio" "$DEST/lib"
cp -a "$S/build/bin/nvmf_tgt" "$DEST/bin/"
cp -a "$S/build/fio/spdk_nvme" "$DEST/fio/"
cp -a "$S/build/lib/"*.so* "$DEST/lib/" 2>/dev/null || true
cp "$LOG" "$DEST/build.log"
# what the binaries still lack at run time, checked where they will run from
if miss=$(ldd "$DEST/bin/nvmf_tgt" "$DEST/fio/spdk_nvme" | grep 'not found' | sort -u) && [ -n "$miss" ]; then
	rm -rf "$DEST"; fail "the built binaries miss libraries: $(echo "$miss" | xargs echo)"
fi
{ echo "spdk $spdk_ver"; echo "source: $origin"; echo "dpdk: $dpdk_ver"; echo "fio: $fio_ver";
  echo "configure: ${CONF[*]}"; } > "$DEST/.ready"
ln -sfn "${DEST##*/}" "$SPDK_CACHE/current"
# older builds of this cache go (each is ~40 MB)
for old in "$SPDK_CACHE"/spdk-*; do
	[ "$old" = "$DEST" ] || [ ! -d "$old" ] || rm -rf "$old"
done
say "built: $DEST (SPDK $spdk_ver, DPDK $dpdk_ver, fio plugin for $fio_ver)"
