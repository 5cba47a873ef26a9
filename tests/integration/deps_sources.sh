#!/bin/bash
# deps_sources.sh - `make deps` on the host (no VM, no network, never writes /etc/apt):
# scripts/debsrc.sh mirrors deb entries as deb-src for a table of real-world apt
# configurations (Debian 12/13 and Ubuntu defaults, a debootstrap one-liner, [options],
# commented and disabled entries, mixed formats, an existing deb-src): the exact deb822
# output, apt itself parsing every output (isolated: Dir::Etc::SourceList/SourceParts and
# Dir::State::Lists point into a temporary directory), and negative controls showing that
# the apt check rejects a malformed entry and that nothing is written then.
# Exit 0 pass, 1 fail, 77 skip.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
DEBSRC=$REPO/scripts/debsrc.sh
OWN=fio-nvmeof-deb-src.sources
pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "PASS $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -z "${2:-}" ] || printf '%s\n' "$2" | sed 's/^/    | /'; }

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

if [ "$etc_before" = "$(etc_apt_state)" ]; then ok "/etc/apt unchanged"; else bad "/etc/apt unchanged" "$(diff <(echo "$etc_before") <(etc_apt_state))"; fi
echo "deps_sources: $pass passed, $fail failed"
[ $fail = 0 ] || exit 1
[ $pass -gt 0 ] || { echo "SKIP: nothing could run"; exit 77; }
exit 0
