#!/bin/bash
# deps.sh - install what the build and the testbed need, and prepare the fio source tree that
# matches the installed fio (Debian ships no fio headers).  Idempotent: once everything is in
# place it does no network work.  Usage: scripts/deps.sh [--check]
#   --check  only report what is missing (exit 1 if anything is), change nothing.
set -euo pipefail

REPO=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
CACHE=${FIO_NVMEOF_CACHE:-$REPO/.cache}
APT_ETC=${FIO_NVMEOF_APT_ETC:-/etc/apt}   # the apt configuration debsrc.sh reads and extends
CHECK_ONLY=0
[ "${1:-}" = --check ] && CHECK_ONLY=1

# build: compiler, rdma-core headers, fio itself; dpkg-dev unpacks the fio source package;
# libaio/libnuma/zlib headers let fio's ./configure see the same features the Debian fio was
# built with (they change struct layouts the engine relies on).
# testbed: qemu (TCG), busybox for the initramfs, rdma-core userland and rxe provider,
# nvme-cli for the kernel-initiator reference, kmod/cpio/iproute2 for the guest setup.
PKGS="gcc make pkg-config libc6-dev dpkg-dev python3 fio
      rdma-core ibverbs-providers libibverbs-dev librdmacm-dev ibverbs-utils rdmacm-utils
      libaio-dev libnuma-dev zlib1g-dev
      qemu-system-x86 busybox-static kmod cpio iproute2 nvme-cli procps valgrind"

say() { echo "deps: $*"; }

missing=$(for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' || echo "$p"
done | xargs echo)

if [ -n "$missing" ]; then
	if [ "$CHECK_ONLY" = 1 ]; then say "missing packages: $missing"; exit 1; fi
	if [ "$(id -u)" != 0 ]; then
		say "missing packages; as root run: apt-get update && apt-get install -y --no-install-recommends $missing"
		exit 1
	fi
	say "installing: $missing"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing \
		> "${TMPDIR:-/tmp}/fio-nvmeof-apt.log" 2>&1 || {
		tail -20 "${TMPDIR:-/tmp}/fio-nvmeof-apt.log"; say "apt-get install failed"; exit 1; }
fi

# ---- fio source tree matching the installed fio
fio_ver=$(fio --version)                          # e.g. fio-3.33
deb_ver=$(dpkg-query -W -f='${Version}' fio)      # e.g. 3.33-3
tree="$CACHE/fio-$deb_ver"
if [ -f "$tree/.ready" ]; then
	ln -sfn "fio-$deb_ver" "$CACHE/fio-src"
	exit 0
fi
if [ "$CHECK_ONLY" = 1 ]; then say "fio source tree for $deb_ver not prepared (run make deps)"; exit 1; fi
[ "$(id -u)" = 0 ] || { say "the fio $deb_ver source tree is not cached; run 'make deps' as root once, or pass FIO_SRC=/path/to/fio-source"; exit 1; }

debsrc() { "$REPO/scripts/debsrc.sh" --root "$APT_ETC" "$@"; }
# apt reads its sources from $APT_ETC (the defaults when that is /etc/apt)
APT_SRC=(-o Dir::Etc::SourceList="$APT_ETC/sources.list" -o Dir::Etc::SourceParts="$APT_ETC/sources.list.d")
if ! debsrc has-src; then
	# Mirror every enabled 'deb' source as 'deb-src'; debsrc.sh has apt check the entries first.
	say "adding deb-src entries to fetch the fio source package"
	debsrc install || { say "could not add a deb-src entry apt accepts; pass FIO_SRC=/path/to/fio-source"; exit 1; }
	if ! apt-get "${APT_SRC[@]}" update -qq > "${TMPDIR:-/tmp}/fio-nvmeof-apt.log" 2>&1; then
		tail -20 "${TMPDIR:-/tmp}/fio-nvmeof-apt.log"
		rm -f "$APT_ETC/sources.list.d/fio-nvmeof-deb-src.sources"
		say "apt-get update failed with the added deb-src entries (removed again)"; exit 1
	fi
fi

work=$(mktemp -d "$CACHE/.fio-src.XXXXXX" 2>/dev/null || { mkdir -p "$CACHE"; mktemp -d "$CACHE/.fio-src.XXXXXX"; })
trap 'rm -rf "$work"' EXIT
say "fetching the fio $deb_ver source package"
(cd "$work" && apt-get "${APT_SRC[@]}" source -qq --download-only "fio=$deb_ver" >/dev/null 2>&1) || {
	say "apt-get source fio=$deb_ver failed (is a deb-src entry for this suite configured?)"; exit 1; }
(cd "$work" && dpkg-source -x ./fio_*.dsc src >dpkg-source.log 2>&1) || { cat "$work/dpkg-source.log"; say "dpkg-source failed"; exit 1; }
say "configuring fio (config-host.h)"
(cd "$work/src" && ./configure --disable-native --prefix=/usr > configure.out 2>&1) || {
	tail -20 "$work/src/configure.out"; say "fio ./configure failed"; exit 1; }
(cd "$work/src" && ./FIO-VERSION-GEN >/dev/null 2>&1 || true)
src_ver=$(sed -n 's/^FIO_VERSION = //p' "$work/src/FIO-VERSION-FILE" 2>/dev/null || true)
if [ "$src_ver" != "$fio_ver" ]; then
	say "fio source reports '$src_ver' but the installed fio is '$fio_ver'"; exit 1
fi
# The engine shares struct layouts with the running fio: features that add fields or union
# members must match what the installed fio links against.
fio_libs=$(ldd "$(command -v fio)")   # captured: grep -q on a pipe trips pipefail
for pair in libaio:CONFIG_LIBAIO libnuma:CONFIG_LIBNUMA librdmacm:CONFIG_RDMA; do
	lib=${pair%%:*} def=${pair#*:}
	linked=0; grep -q "$lib\.so" <<<"$fio_libs" && linked=1
	defined=0; grep -q "^#define $def\$" "$work/src/config-host.h" && defined=1
	if [ "$linked" != "$defined" ]; then
		say "config-host.h $def=$defined but the installed fio links $lib=$linked: layouts would differ"; exit 1
	fi
done
rm -rf "$tree"; mv "$work/src" "$tree"; touch "$tree/.ready"
ln -sfn "fio-$deb_ver" "$CACHE/fio-src"
say "fio source ready: $tree ($fio_ver)"
