#!/bin/bash
# deps_sources.sh - `make deps` on the host (no VM, no network, never writes /etc/apt):
#  1. scripts/debsrc.sh mirrors deb entries as deb-src for a table of real-world apt
#     configurations (Debian 12/13 and Ubuntu defaults, a debootstrap one-liner, [options],
#     commented and disabled entries, mixed formats, an existing deb-src): the exact deb822
#     output, apt itself parsing every output (isolated: Dir::Etc::SourceList/SourceParts and
#     Dir::State::Lists point into a temporary directory), and negative controls showing that
#     the apt check rejects a malformed entry and that nothing is written then.
#  2. scripts/deps.sh with FIO_TARBALL / FIO_SRC (a private cache): a version mismatch is
#     refused naming both ways out, a tarball and an unconfigured tree are prepared in the cache
#     (the given tree is not touched) and reused on a re-run, a configured tree is used as is,
#     apt without fio's source names both ways out, and `make deps engine` builds against the
#     prepared copy; the tree is configured to match the libraries the installed fio links
#     (stand-in fio binaries), and refused naming the way out where it cannot be.
# Exit 0 pass, 1 fail, 77 skip.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
DEBSRC=$REPO/scripts/debsrc.sh
DEPS=$REPO/scripts/deps.sh
OWN=fio-nvmeof-deb-src.sources
pass=0 fail=0 skip=0
ok()  { pass=$((pass + 1)); echo "PASS $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -z "${2:-}" ] || printf '%s\n' "$2" | sed 's/^/    | /'; }
skp() { skip=$((skip + 1)); echo "SKIP $1"; }

command -v apt-get >/dev/null || { echo "SKIP: no apt-get on this machine"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/deps_sources.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT

etc_apt_state() {   # what must not change: the machine's own apt sources
	find /etc/apt -maxdepth 2 \( -name sources.list -o -name '*.list' -o -name '*.sources' \) \
		-type f -exec sha256sum {} + 2>/dev/null | sort
	ls -la /etc/apt/sources.list.d 2>/dev/null
}
etc_before=$(etc_apt_state)

# ---------------------------------------------------------------------------------------------
# 1. the conversion
R=""
newroot() { R=$T/apt.$1; mkdir -p "$R/sources.list.d"; }
put() { mkdir -p "$(dirname "$R/$1")"; cat > "$R/$1"; }
# apt_targets ROOT: the deb-src index URIs apt derives from ROOT's sources (isolated).
apt_targets() {
	mkdir -p "$T/lists"
	# shellcheck disable=SC2016  # apt's own $(FIELD) format
	apt-get -o Dir::Etc::SourceList="$1/sources.list" -o Dir::Etc::SourceParts="$1/sources.list.d" \
		-o Dir::State::Lists="$T/lists" indextargets --no-release-info --format '$(TARGET_OF) $(URI)' 2>&1 |
		sed -n 's/^deb-src //p' | sort
}

# expect NAME < expected-output: generate gives exactly that (@R@ = the root), apt accepts it
# alone and with the root's sources, install writes exactly it.
expect() {
	local name=$1 want got rc
	want=$(sed "s|@R@|$R|g")
	got=$("$DEBSRC" --root "$R" generate 2>"$T/err"); rc=$?
	if [ $rc = 0 ] && [ "$got" = "$want" ]; then
		ok "$name: deb-src stanzas as expected"
	else
		bad "$name: deb-src stanzas as expected (rc=$rc)" "$(diff <(echo "$want") <(echo "$got"); cat "$T/err")"
	fi
	printf '%s\n' "$got" > "$T/candidate"
	if out=$("$DEBSRC" --root "$R" validate "$T/candidate" 2>&1); then
		ok "$name: apt parses the output"
	else
		bad "$name: apt parses the output" "$out"
	fi
	if out=$("$DEBSRC" --root "$R" install 2>&1) && [ "$(cat "$R/sources.list.d/$OWN")" = "$got" ]; then
		ok "$name: install writes it"
	else
		bad "$name: install writes it" "$out"
	fi
	if "$DEBSRC" --root "$R" has-src; then ok "$name: has-src after install"; else bad "$name: has-src after install"; fi
}
# expect_nothing NAME: an enabled deb-src entry exists: has-src says so, install writes nothing.
expect_nothing() {
	local name=$1 out before
	before=$(ls -l --time-style=full-iso "$R/sources.list.d"; cat "$R/sources.list.d"/* 2>/dev/null)
	if "$DEBSRC" --root "$R" has-src; then ok "$name: existing deb-src seen"; else bad "$name: existing deb-src seen"; fi
	if out=$("$DEBSRC" --root "$R" install 2>&1) &&
		[ "$before" = "$(ls -l --time-style=full-iso "$R/sources.list.d"; cat "$R/sources.list.d"/* 2>/dev/null)" ] &&
		grep -q 'nothing written' <<<"$out"; then
		ok "$name: nothing written"
	else
		bad "$name: nothing written" "$out"
	fi
}

# Debian 12 container image (docker debian:bookworm): deb822 with comment lines in stanzas.
newroot deb12
put sources.list.d/debian.sources <<'EOF'
Types: deb
# http://snapshot.debian.org/archive/debian/20250520T000000Z
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
# http://snapshot.debian.org/archive/debian-security/20250520T000000Z
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
expect "debian 12 deb822" <<'EOF'
# from @R@/sources.list.d/debian.sources:1
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

# from @R@/sources.list.d/debian.sources:8
Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF

# Debian 13 container image, plus the empty one-line sources.list it ships (comments only).
newroot deb13
put sources.list <<'EOF'
# See /etc/apt/sources.list.d/debian.sources
EOF
put sources.list.d/debian.sources <<'EOF'
Types: deb
# http://snapshot.debian.org/archive/debian/20250811T000000Z
URIs: http://deb.debian.org/debian
Suites: trixie trixie-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.pgp

Types: deb
# http://snapshot.debian.org/archive/debian-security/20250811T000000Z
URIs: http://deb.debian.org/debian-security
Suites: trixie-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.pgp
EOF
expect "debian 13 deb822" <<'EOF'
# from @R@/sources.list.d/debian.sources:1
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie trixie-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.pgp

# from @R@/sources.list.d/debian.sources:8
Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: trixie-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.pgp
EOF

# debootstrap / cloud image: one line in sources.list (issue #6: this became URIs: trixie).
newroot debootstrap
put sources.list <<'EOF'
deb http://deb.debian.org/debian trixie main
EOF
expect "debootstrap one-liner" <<'EOF'
# from @R@/sources.list:1
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
EOF
got=$(apt_targets "$R")
if [ "$got" = "http://deb.debian.org/debian/dists/trixie/main/source/Sources" ]; then
	ok "debootstrap one-liner: apt reads URI, suite and component from the output"
else
	bad "debootstrap one-liner: apt reads URI, suite and component from the output" "$got"
fi

# Debian 12 installer: cdrom line commented and live, deb-src lines commented out, security
# and updates suites, several components, a trailing comment, tabs.
newroot deb12inst
put sources.list <<'EOF'
#deb cdrom:[Debian GNU/Linux 12.5.0 _Bookworm_ - Official amd64 NETINST with firmware 20240210-11:27]/ bookworm contrib main non-free-firmware

deb cdrom:[Debian GNU/Linux 12.5.0 _Bookworm_ - Official amd64 DVD Binary-1 20240210-11:28]/ bookworm contrib main non-free-firmware

deb http://deb.debian.org/debian/ bookworm main non-free-firmware contrib
#deb-src http://deb.debian.org/debian/ bookworm main non-free-firmware contrib

deb http://security.debian.org/debian-security bookworm-security main non-free-firmware contrib
# deb-src http://security.debian.org/debian-security bookworm-security main non-free-firmware contrib

# bookworm-updates, to get updates before a point release is made;
# see https://www.debian.org/doc/manuals/debian-reference/ch02.en.html#_updates_and_backports
deb	http://deb.debian.org/debian/	bookworm-updates main non-free-firmware contrib   # updates
EOF
expect "debian 12 installer one-line, deb-src commented" <<'EOF'
# from @R@/sources.list:5
Types: deb-src
URIs: http://deb.debian.org/debian/
Suites: bookworm
Components: main non-free-firmware contrib

# from @R@/sources.list:8
Types: deb-src
URIs: http://security.debian.org/debian-security
Suites: bookworm-security
Components: main non-free-firmware contrib

# from @R@/sources.list:13
Types: deb-src
URIs: http://deb.debian.org/debian/
Suites: bookworm-updates
Components: main non-free-firmware contrib
EOF

# [options] in one-line entries become deb822 fields (lists: commas become spaces).
newroot options
put sources.list <<'EOF'
deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main contrib non-free non-free-firmware
deb [ arch=amd64,arm64 signed-by=/etc/apt/keyrings/a.gpg,/etc/apt/keyrings/b.gpg check-valid-until=no ] http://archive.example.org/debian bookworm-backports main # backports
deb [arch-=i386 lang+=de trusted=yes] file:/srv/local-repo ./
EOF
expect "one-line [options]" <<'EOF'
# from @R@/sources.list:1
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main contrib non-free non-free-firmware
Architectures: amd64
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

# from @R@/sources.list:2
Types: deb-src
URIs: http://archive.example.org/debian
Suites: bookworm-backports
Components: main
Architectures: amd64 arm64
Signed-By: /etc/apt/keyrings/a.gpg /etc/apt/keyrings/b.gpg
Check-Valid-Until: no

# from @R@/sources.list:3
Types: deb-src
URIs: file:/srv/local-repo
Suites: ./
Architectures-Remove: i386
Languages-Add: de
Trusted: yes
EOF
got=$(apt_targets "$R")
want="file:/srv/local-repo/./Sources
http://archive.example.org/debian/dists/bookworm-backports/main/source/Sources
http://deb.debian.org/debian/dists/bookworm/contrib/source/Sources
http://deb.debian.org/debian/dists/bookworm/main/source/Sources
http://deb.debian.org/debian/dists/bookworm/non-free-firmware/source/Sources
http://deb.debian.org/debian/dists/bookworm/non-free/source/Sources"
if [ "$got" = "$want" ]; then
	ok "one-line [options]: apt reads every entry of the output"
else
	bad "one-line [options]: apt reads every entry of the output" "$(diff <(echo "$want") <(echo "$got"))"
fi

# Ubuntu 24.04: deb822 with a comment block before the first stanza, several suites.
newroot ubuntu2404
put sources.list.d/ubuntu.sources <<'EOF'
# Ubuntu sources have moved to /etc/apt/sources.list.d/ubuntu.sources
## Note, this file is written by cloud-init on first boot of an instance

Types: deb
URIs: http://archive.ubuntu.com/ubuntu/
Suites: noble noble-updates noble-backports
Components: main restricted universe multiverse
Signed-By: /usr/share/keyrings/ubuntu-archive-keyring.gpg

## Ubuntu security updates. Aside from URIs and Suites,
## this should mirror your choices in the previous section.
Types: deb
URIs: http://security.ubuntu.com/ubuntu/
Suites: noble-security
Components: main restricted universe multiverse
Signed-By: /usr/share/keyrings/ubuntu-archive-keyring.gpg
EOF
expect "ubuntu 24.04 deb822" <<'EOF'
# from @R@/sources.list.d/ubuntu.sources:4
Types: deb-src
URIs: http://archive.ubuntu.com/ubuntu/
Suites: noble noble-updates noble-backports
Components: main restricted universe multiverse
Signed-By: /usr/share/keyrings/ubuntu-archive-keyring.gpg

# from @R@/sources.list.d/ubuntu.sources:12
Types: deb-src
URIs: http://security.ubuntu.com/ubuntu/
Suites: noble-security
Components: main restricted universe multiverse
Signed-By: /usr/share/keyrings/ubuntu-archive-keyring.gpg
EOF

# Mixed: one-line sources.list, deb822 files, a third-party .list with options, a disabled
# stanza, a deb-src stanza that is disabled (does not count), files apt ignores by name, and
# an embedded (multi-line) Signed-By key.
newroot mixed
put sources.list <<'EOF'
deb http://deb.debian.org/debian bookworm main
EOF
put sources.list.d/debian.sources <<'EOF'
Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Enabled: no

Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Enabled: no
EOF
put sources.list.d/docker.list <<'EOF'
deb [arch=amd64 signed-by=/etc/apt/keyrings/docker.gpg] https://download.docker.com/linux/debian bookworm stable
EOF
put sources.list.d/google-cloud-sdk.list.disabled <<'EOF'
deb https://packages.cloud.google.com/apt cloud-sdk-bookworm main
EOF
put sources.list.d/nodesource.sources.save <<'EOF'
Types: deb
URIs: https://deb.nodesource.com/node_20.x
Suites: nodistro
Components: main
EOF
put sources.list.d/vendor.sources <<'EOF'
types: deb
uris: https://repo.example.com/apt
suites: stable
components: main
signed-by:
 -----BEGIN PGP PUBLIC KEY BLOCK-----
 .
 mQINBGeIdAEBEADCwIjm44co8IeeuVVzAmu2GrSQ3KC0boH8tiip4ANgMqn5/qxV
 -----END PGP PUBLIC KEY BLOCK-----
EOF
expect "mixed formats and files" <<'EOF'
# from @R@/sources.list:1
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main

# from @R@/sources.list.d/debian.sources:1
Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

# from @R@/sources.list.d/docker.list:1
Types: deb-src
URIs: https://download.docker.com/linux/debian
Suites: bookworm
Components: stable
Architectures: amd64
Signed-By: /etc/apt/keyrings/docker.gpg

# from @R@/sources.list.d/vendor.sources:1
Types: deb-src
uris: https://repo.example.com/apt
suites: stable
components: main
signed-by:
 -----BEGIN PGP PUBLIC KEY BLOCK-----
 .
 mQINBGeIdAEBEADCwIjm44co8IeeuVVzAmu2GrSQ3KC0boH8tiip4ANgMqn5/qxV
 -----END PGP PUBLIC KEY BLOCK-----
EOF

# Existing deb-src entries: nothing is written.
newroot deb13mod                     # Debian 13 after `apt modernize-sources`
put sources.list.d/debian.sources <<'EOF'
# Modernized from /etc/apt/sources.list
Types: deb deb-src
URIs: http://deb.debian.org/debian/
Suites: trixie trixie-updates
Components: main non-free-firmware
Signed-By: /usr/share/keyrings/debian-archive-keyring.pgp
EOF
expect_nothing "Types: deb deb-src"
newroot srclist                      # a one-line deb-src in sources.list.d/*.list
put sources.list.d/debian.sources < "$T/apt.deb12/sources.list.d/debian.sources"
put sources.list.d/src.list <<'EOF'
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main
EOF
expect_nothing "one-line deb-src in sources.list.d"
newroot again                        # make deps ran before: its own file is there
cp "$T/apt.deb12/sources.list.d/"* "$R/sources.list.d/"
expect_nothing "deb-src file from an earlier run"

# Negative controls.
newroot bad
cat > "$T/old-bug.sources" <<'EOF'
Types: deb-src
URIs: trixie
Suites: main
Components:

EOF
if out=$("$DEBSRC" --root "$R" validate "$T/old-bug.sources" 2>&1); then
	bad "the apt check rejects the issue #6 entry (URIs: trixie)" "$out"
elif grep -q 'Malformed entry 1 .*(URI parse)' <<<"$out"; then
	ok "the apt check rejects the issue #6 entry (URIs: trixie) and prints apt's words"
else
	bad "the apt check rejects the issue #6 entry with apt's words" "$out"
fi
put sources.list <<'EOF'
deb trixie main
EOF
if out=$("$DEBSRC" --root "$R" install 2>&1); then
	bad "install refuses what apt rejects" "$out"
elif [ ! -e "$R/sources.list.d/$OWN" ] && grep -q 'Malformed entry' <<<"$out" &&
	grep -q 'nothing written' <<<"$out"; then
	ok "install refuses what apt rejects (a deb line without URI), prints apt's words, writes nothing"
else
	bad "install refuses what apt rejects, writes nothing" "$out"
fi
newroot none
put sources.list <<'EOF'
# deb http://deb.debian.org/debian bookworm main
EOF
put sources.list.d/off.sources <<'EOF'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Enabled: no
EOF
if out=$("$DEBSRC" --root "$R" install 2>&1); then
	bad "nothing enabled to mirror: install fails" "$out"
elif [ ! -e "$R/sources.list.d/$OWN" ] && grep -q "no enabled 'deb' source" <<<"$out"; then
	ok "nothing enabled to mirror (commented line, Enabled: no): install fails, writes nothing"
else
	bad "nothing enabled to mirror: install fails, writes nothing" "$out"
fi

# ---------------------------------------------------------------------------------------------
# 2. deps.sh: FIO_TARBALL / FIO_SRC, in a private cache
fio_ver=$(fio --version 2>/dev/null)
SHARED=${FIO_SOURCES_DIR:-$REPO/../shared/fio-sources}
base=""
if [ -z "$fio_ver" ] || ! command -v gcc >/dev/null; then
	skp "deps.sh cases: no fio or no gcc here (run make deps)"
elif out=$(FIO_NVMEOF_CACHE=$T/empty "$DEPS" --check 2>&1); grep -q 'missing packages' <<<"$out"; then
	skp "deps.sh cases: $out"
else
	base=$(readlink -f "${FIO_NVMEOF_CACHE:-$REPO/.cache}/fio-src")
	if [ ! -f "$base/.ready" ] || [ "$(sed -n 's/^FIO_VERSION = //p' "$base/FIO-VERSION-FILE")" != "$fio_ver" ]; then
		skp "deps.sh cases: no prepared $fio_ver tree to build the fixtures from (run make deps)"
		base=""
	fi
fi
if [ -n "$base" ]; then
	# Fixtures: an unconfigured $fio_ver tree (the Debian one, configure outputs removed), its
	# tarball, and a tarball that reports another version.
	F=$T/fix; mkdir -p "$F"
	cp -a "$base" "$F/$fio_ver"
	(cd "$F/$fio_ver" && rm -rf config-host.h config-host.mak FIO-VERSION-FILE configure.out .ready .pc)
	tar -C "$F" -czf "$F/$fio_ver.tar.gz" "$fio_ver"
	other=$SHARED/fio-3.36.tar.gz other_ver=fio-3.36
	if [ ! -f "$other" ]; then       # no upstream tarball here: one that claims fio-0.1
		cp -a "$F/$fio_ver" "$F/fio-0.1"; echo fio-0.1 > "$F/fio-0.1/version"
		tar -C "$F" -czf "$F/fio-0.1.tar.gz" fio-0.1; other=$F/fio-0.1.tar.gz other_ver=fio-0.1
	fi
	tree_sum() { (cd "$1" && find . -printf '%p %s %T@\n' | sort | sha256sum); }
	given_sum=$(tree_sum "$F/$fio_ver")
	deps() { (cd "$REPO" && env -u FIO_SRC -u FIO_TARBALL FIO_NVMEOF_CACHE="$C" "$@" "$DEPS") 2>&1; }
	both_ways() { grep -q 'make deps FIO_SRC=' <<<"$1" && grep -q 'make deps FIO_TARBALL=' <<<"$1"; }

	C=$T/cache-mismatch
	out=$(deps FIO_TARBALL="$other"); rc=$?
	if [ $rc != 0 ] && grep -q "reports '$other_ver' but the installed fio is '$fio_ver'" <<<"$out" &&
		both_ways "$out" && [ ! -e "$C/fio-src" ] && ! compgen -G "$C/*-upstream" >/dev/null; then
		ok "FIO_TARBALL of $other_ver under $fio_ver: refused, both ways out named, nothing cached"
	else
		bad "FIO_TARBALL of another version refused (rc=$rc)" "$out"
	fi

	C=$T/cache
	up=$C/$fio_ver-upstream
	out=$(deps FIO_TARBALL="$F/$fio_ver.tar.gz"); rc=$?
	if [ $rc = 0 ] && [ -f "$up/.ready" ] && [ -f "$up/config-host.h" ] &&
		[ "$(readlink "$C/fio-src")" = "$fio_ver-upstream" ] &&
		[ "$(sed -n 's/^FIO_VERSION = //p' "$up/FIO-VERSION-FILE")" = "$fio_ver" ] &&
		grep -q "configuring $fio_ver" <<<"$out"; then
		ok "FIO_TARBALL: prepared in $fio_ver-upstream, fio-src points at it"
	else
		bad "FIO_TARBALL: prepared in the cache (rc=$rc)" "$out"
	fi
	stamp=$(stat -c '%i %Y' "$up" "$up/.ready" "$up/config-host.h" 2>/dev/null)
	ln -sfn elsewhere "$C/fio-src"
	out=$(deps FIO_TARBALL="$F/$fio_ver.tar.gz"); rc=$?
	if [ $rc = 0 ] && [ -z "$out" ] && [ "$stamp" = "$(stat -c '%i %Y' "$up" "$up/.ready" "$up/config-host.h")" ] &&
		[ "$(readlink "$C/fio-src")" = "$fio_ver-upstream" ]; then
		ok "FIO_TARBALL re-run: cached, no work (fio-src re-pointed)"
	else
		bad "FIO_TARBALL re-run: cached, no work (rc=$rc)" "$out"
	fi

	out=$(deps FIO_SRC="$F/$fio_ver"); rc=$?
	if [ $rc = 0 ] && grep -q "^tree $F/$fio_ver\$" "$up/.ready" && [ -f "$up/config-host.h" ] &&
		[ ! -e "$F/$fio_ver/config-host.h" ] && [ "$given_sum" = "$(tree_sum "$F/$fio_ver")" ]; then
		ok "FIO_SRC=unconfigured tree: the copy is prepared in the cache, the tree is untouched"
	else
		bad "FIO_SRC=unconfigured tree: copy prepared, tree untouched (rc=$rc)" "$out"
	fi
	out=$(deps FIO_SRC="$F/$fio_ver"); rc=$?
	if [ $rc = 0 ] && [ -z "$out" ]; then ok "FIO_SRC re-run: cached, no work"; else bad "FIO_SRC re-run (rc=$rc)" "$out"; fi

	before=$(ls -A "$C")
	out=$(deps FIO_SRC="$up"); rc=$?
	if [ $rc = 0 ] && grep -q 'the build uses it as it is' <<<"$out" && [ "$before" = "$(ls -A "$C")" ]; then
		ok "FIO_SRC=configured tree: used as it is, nothing prepared"
	else
		bad "FIO_SRC=configured tree: used as it is (rc=$rc)" "$out
before: $before
after: $(ls -A "$C")"
	fi
	out=$(deps FIO_SRC="$F/$fio_ver" FIO_TARBALL="$F/$fio_ver.tar.gz"); rc=$?
	if [ $rc != 0 ] && grep -q 'not both' <<<"$out"; then ok "FIO_SRC and FIO_TARBALL together: refused"; else bad "FIO_SRC and FIO_TARBALL together (rc=$rc)" "$out"; fi

	# A fio built from source before some -dev packages were installed (a stand-in binary on
	# PATH that reports $fio_ver and links only what it is built with): the tree is configured
	# to match it where fio's configure can (--disable-numa, --disable-rdma), refused naming
	# the way out where it cannot (libaio), and prepared again for a fio that links otherwise.
	mkfio() {   # mkfio DIR [LIBS]: DIR/fio, a dynamic executable linking LIBS
		mkdir -p "$1"
		printf '#include <stdio.h>\nint main(void) { puts("%s"); return 0; }\n' "$fio_ver" > "$1/fio.c"
		gcc -o "$1/fio" "$1/fio.c" -Wl,--no-as-needed ${2:-}
	}
	if mkfio "$T/fio-aio" -laio && mkfio "$T/fio-plain"; then
		C=$T/cache-linkage
		up=$C/$fio_ver-upstream
		out=$(deps PATH="$T/fio-aio:$PATH" FIO_TARBALL="$F/$fio_ver.tar.gz"); rc=$?
		if [ $rc = 0 ] && grep -q 'links no libnuma: configuring with --disable-numa' <<<"$out" &&
			grep -q 'links no librdmacm: configuring with --disable-rdma' <<<"$out" &&
			grep -q '^#define CONFIG_LIBAIO$' "$up/config-host.h" &&
			! grep -qE '^#define (CONFIG_LIBNUMA|CONFIG_RDMA)$' "$up/config-host.h" &&
			grep -qx 'configure --disable-native --prefix=/usr --disable-numa --disable-rdma' "$up/.ready"; then
			ok "a fio linking libaio only: tree configured --disable-numa --disable-rdma to match"
		else
			bad "a fio linking libaio only: configured to match (rc=$rc)" "$out"
		fi
		out=$(deps FIO_TARBALL="$F/$fio_ver.tar.gz"); rc=$?
		if [ $rc = 0 ] && grep -q "configuring $fio_ver" <<<"$out" &&
			grep -q '^#define CONFIG_LIBNUMA$' "$up/config-host.h"; then
			ok "the installed fio links otherwise: the cached tree is prepared again (CONFIG_LIBNUMA)"
		else
			bad "the installed fio links otherwise: prepared again (rc=$rc)" "$out"
		fi
		C=$T/cache-plain
		out=$(deps PATH="$T/fio-plain:$PATH" FIO_TARBALL="$F/$fio_ver.tar.gz"); rc=$?
		if [ $rc != 0 ] && grep -q "config-host.h CONFIG_LIBAIO=1 but the installed fio $T/fio-plain/fio links libaio=0: layouts would differ" <<<"$out" &&
			grep -q 'way out: give FIO_SRC= the configured tree that fio was built from, or rebuild that fio' <<<"$out" &&
			[ ! -e "$C/fio-src" ] && ! compgen -G "$C/*-upstream" >/dev/null; then
			ok "a fio linking no libaio: refused, the way out named, nothing cached"
		else
			bad "a fio linking no libaio: refused naming the way out (rc=$rc)" "$out"
		fi
	else
		bad "stand-in fio binaries" "gcc could not build them (libaio-dev?)"
	fi

	# No tree and apt cannot help: a fio built from git (PATH shim), and (as root) a mirror
	# without fio's source package (an apt-get shim failing `source`; deb-src already present
	# in a private apt root, so nothing is written anywhere).
	mkdir -p "$T/shim-fio" "$T/shim-apt" "$T/apt.src/sources.list.d"
	printf '#!/bin/sh\necho fio-3.36-12-gdeadbeef\n' > "$T/shim-fio/fio"
	cat > "$T/shim-apt/apt-get" <<'EOF'
#!/bin/sh
for a; do [ "$a" = source ] && { echo "E: Unable to find a source package for fio" >&2; exit 100; }; done
exec /usr/bin/apt-get "$@"
EOF
	chmod +x "$T/shim-fio/fio" "$T/shim-apt/apt-get"
	cp "$T/apt.srclist/sources.list.d/"* "$T/apt.src/sources.list.d/"
	C=$T/cache-git
	out=$(deps PATH="$T/shim-fio:$PATH"); rc=$?
	if [ $rc != 0 ] && grep -q 'fio-3.36-12-gdeadbeef, not the Debian package' <<<"$out" && both_ways "$out" &&
		grep -q 'fio-3.36-12-gdeadbeef.tar.gz' <<<"$out"; then
		ok "a fio not from the package: refused without touching apt, both ways out named"
	else
		bad "a fio not from the package: both ways out named (rc=$rc)" "$out"
	fi
	C=$T/cache-noapt
	out=$(deps PATH="$T/shim-apt:$PATH" FIO_NVMEOF_APT_ETC="$T/apt.src"); rc=$?
	if [ "$(id -u)" = 0 ]; then want="apt-get source fio=.* failed"; else want="run 'make deps' as root"; fi
	if [ $rc != 0 ] && grep -q "$want" <<<"$out" && both_ways "$out" && [ ! -e "$C/fio-src" ]; then
		ok "apt without fio's source ($want): both ways out named"
	else
		bad "apt without fio's source: both ways out named (rc=$rc)" "$out"
	fi

	# make: an unconfigured FIO_SRC builds against the prepared copy (FIO_SRC resolves to
	# $(CACHE)/fio-src), a configured one as it is; FIO_TARBALL is handed to deps.
	mk() { (cd "$REPO" && env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS -u FIO_SRC -u FIO_TARBALL make --no-print-directory "$@") 2>&1; }
	C=$T/mk/cache
	v1=$(mk -pn CACHE="$C" FIO_SRC="$F/$fio_ver" deps | sed -n 's/^FIO_SRC := //p')
	v2=$(mk -pn CACHE="$C" FIO_SRC="$up" deps | sed -n 's/^FIO_SRC := //p')
	v3=$(mk -n CACHE="$C" FIO_TARBALL=/x/fio.tar.gz deps)
	if [ "$v1" = "$C/fio-src" ] && [ "$v2" = "$up" ] && grep -q "FIO_TARBALL='/x/fio.tar.gz'" <<<"$v3"; then
		ok "Makefile: unconfigured FIO_SRC -> \$(CACHE)/fio-src, configured FIO_SRC as is, FIO_TARBALL to deps"
	else
		bad "Makefile FIO_SRC/FIO_TARBALL selection" "unconfigured: $v1; configured: $v2; $v3"
	fi
	out=$(mk CACHE="$C" BUILD="$T/mk/build" FIO_SRC="$F/$fio_ver" deps engine); rc=$?
	if [ $rc = 0 ] && grep -q -- "-isystem $C/fio-src " <<<"$out" && [ -f "$C/$fio_ver-upstream/.ready" ] &&
		help=$(fio --enghelp="$T/mk/build/libfio_nvmeof.so" 2>&1) && grep -q '^traddr' <<<"$help"; then
		ok "make deps engine FIO_SRC=unconfigured tree: built against the prepared copy, fio loads it"
	else
		bad "make deps engine FIO_SRC=unconfigured tree (rc=$rc)" "$(tail -30 <<<"$out")"
	fi
fi

if [ "$etc_before" = "$(etc_apt_state)" ]; then ok "/etc/apt unchanged"; else bad "/etc/apt unchanged" "$(diff <(echo "$etc_before") <(etc_apt_state))"; fi
echo "deps_sources: $pass passed, $fail failed, $skip skipped"
[ $fail = 0 ] || exit 1
[ $pass -gt 0 ] || { echo "SKIP: nothing could run"; exit 77; }
exit 0
