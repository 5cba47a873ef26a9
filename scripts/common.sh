# common.sh - sourced by deps.sh and spdk.sh: what both do the same way. Each caller defines
# say() (its own prefix) before using these.

# apt_missing PKG...: the packages of the list not installed, on one line
apt_missing() {
	local p
	for p; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' || echo "$p"
	done | xargs echo
}

# apt_install LOG PKG...: install them as root (the output in LOG, its tail on failure); not
# root: one line naming the command to run. Exits 1 on failure.
apt_install() {
	local log=$1
	shift
	if [ "$(id -u)" != 0 ]; then
		say "missing packages; as root run: apt-get update && apt-get install -y --no-install-recommends $*"
		exit 1
	fi
	say "installing: $*"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" > "$log" 2>&1 || {
		tail -20 "$log"; say "apt-get install failed: $*"; exit 1; }
}

# unpack_tarball FILE WORK: FILE's tree as WORK/src (a release tarball holds one top directory:
# that directory becomes WORK/src); returns non-zero (tar's first lines said) when tar fails
unpack_tarball() {
	local top
	mkdir "$2/unpack"
	tar -xf "$1" -C "$2/unpack" 2> "$2/tar.err" || { head -5 "$2/tar.err"; return 1; }
	top=("$2/unpack"/*)
	if [ ${#top[@]} = 1 ] && [ -d "${top[0]}" ]; then mv "${top[0]}" "$2/src"; else mv "$2/unpack" "$2/src"; fi
}
