#!/bin/bash
# debsrc.sh - mirror apt's enabled 'deb' sources as 'deb-src' entries, so that `apt-get source`
# can fetch the fio source package.  Reads both source formats: one-line files (sources.list,
# sources.list.d/*.list) and deb822 files (sources.list.d/*.sources); writes one deb822 file.
# Every candidate is parsed by apt itself (no network) before it is installed.
#
# Usage: scripts/debsrc.sh [--root DIR] COMMAND
#   --root DIR      the apt configuration directory to read (default /etc/apt): DIR/sources.list
#                   and DIR/sources.list.d/ (files named as apt accepts them: [A-Za-z0-9_.-]).
#   has-src         exit 0 if an enabled deb-src entry exists there, 1 if none does.
#   generate        print deb822 deb-src stanzas mirroring every enabled deb entry (ignores
#                   commented lines, 'Enabled: no' stanzas, stanzas that already list deb-src,
#                   cdrom: sources and this script's own output file).
#   validate FILE   apt parses FILE alone, then FILE together with DIR's sources, and FILE
#                   yields at least one deb-src index; on failure print what apt said, exit 1.
#   install [OUT]   if has-src: write nothing.  Otherwise generate, validate and write OUT
#                   (default DIR/sources.list.d/fio-nvmeof-deb-src.sources); exit 1 without
#                   writing if there is nothing to mirror or apt rejects the candidate.
# apt runs as `apt-get indextargets --no-release-info` with Dir::Etc::SourceList,
# Dir::Etc::SourceParts and Dir::State::Lists pointed at temporary files: it reads only the
# candidate and writes nothing of the system's.
set -euo pipefail

ROOT=/etc/apt
if [ "${1:-}" = --root ]; then ROOT=${2:?--root needs a directory}; shift 2; fi
cmd=${1:-}; [ $# -gt 0 ] && shift
OWN=fio-nvmeof-deb-src.sources

say() { echo "debsrc: $*" >&2; }
indent() { awk '!seen[$0]++ { print "    " $0 }' >&2; }   # apt repeats its errors

# The source files apt reads under ROOT, in apt's order (sources.list, then sources.list.d
# sorted bytewise), skipping names apt ignores and, with $1 set, the file named $1.
source_files() {
	local skip=${1:-} n
	[ -f "$ROOT/sources.list" ] && echo "$ROOT/sources.list"
	[ -d "$ROOT/sources.list.d" ] || return 0
	while IFS= read -r n; do
		if [[ $n =~ ^[A-Za-z0-9_.-]+\.(list|sources)$ ]] && [ "$n" != "$skip" ] &&
			[ -f "$ROOT/sources.list.d/$n" ]; then
			echo "$ROOT/sources.list.d/$n"
		fi
	done < <(cd "$ROOT/sources.list.d" && printf '%s\n' * | LC_ALL=C sort)
	return 0
}

# One awk program for both formats (chosen per file by its name); mawk-compatible.
#   mode=gen  print deb-src stanzas; mode=src  exit 0 if an enabled deb-src entry exists.
# shellcheck disable=SC2016  # awk code, not shell
AWK_PROG='
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
function hasword(list, w,   n, a, i) {
	n = split(list, a, /[ \t\n]+/)
	for (i = 1; i <= n; i++) if (a[i] == w) return 1
	return 0
}
function isfalse(v) { v = tolower(trim(v)); return v == "no" || v == "false" || v == "off" || v == "0" || v == "without" || v == "disable" }
# deb822 field name for a one-line option name (apt matches field names case-insensitively).
function fieldname(k,   n, a, i, s) {
	if (k == "arch") return "Architectures"
	if (k == "lang") return "Languages"
	if (k == "target") return "Targets"
	if (k == "pdiffs") return "PDiffs"
	if (k == "inrelease-path") return "InRelease-Path"
	n = split(k, a, "-"); s = ""
	for (i = 1; i <= n; i++) s = s (i > 1 ? "-" : "") toupper(substr(a[i], 1, 1)) substr(a[i], 2)
	return s
}
function warn(msg) { printf "debsrc: %s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr" }

# ---- one-line format
function oneline(line,   i, c, out, inb, type, rest, e, opts, n, w, comps, key, m, o, eq, k, v, suf, body) {
	out = ""; inb = 0
	for (i = 1; i <= length(line); i++) {       # a "#" outside [...] starts a comment
		c = substr(line, i, 1)
		if (c == "[") inb = 1; else if (c == "]") inb = 0; else if (c == "#" && !inb) break
		out = out c
	}
	line = trim(out)
	if (line == "") return
	match(line, /^[^ \t]+/); type = substr(line, 1, RLENGTH); rest = trim(substr(line, RLENGTH + 1))
	if (type == "deb-src") { found_src = 1; return }
	if (type != "deb") return
	opts = ""
	if (substr(rest, 1, 1) == "[") {
		e = index(rest, "]")
		if (!e) { warn("unterminated [options]; entry skipped"); return }
		opts = trim(substr(rest, 2, e - 2)); rest = trim(substr(rest, e + 1))
	}
	n = split(rest, w, /[ \t]+/)
	if (n < 2) { warn("deb entry without URI and suite; skipped"); return }
	if (w[1] ~ /^cdrom:/) return                   # a CD has no source packages to offer
	comps = ""
	for (i = 3; i <= n; i++) comps = comps " " w[i]
	body = "URIs: " w[1] "\nSuites: " w[2] "\n" (comps != "" ? "Components:" comps "\n" : "")
	m = (opts == "") ? 0 : split(opts, o, /[ \t]+/)
	for (i = 1; i <= m; i++) {
		eq = index(o[i], "=")
		if (eq < 2) { warn("option \"" o[i] "\" is not key=value; dropped"); continue }
		k = substr(o[i], 1, eq - 1); v = substr(o[i], eq + 1); suf = ""
		if (k ~ /\+$/) { suf = "-Add"; k = substr(k, 1, length(k) - 1) }
		else if (k ~ /-$/) { suf = "-Remove"; k = substr(k, 1, length(k) - 1) }
		gsub(/,/, " ", v)                          # one-line lists use commas, deb822 spaces
		body = body fieldname(tolower(k)) suf ": " v "\n"
	}
	key = body
	if (key in seen) return                        # the same entry twice: apt would warn
	seen[key] = 1
	if (mode == "gen") printf "# from %s:%d\nTypes: deb-src\n%s\n", FILENAME, FNR, body
}

# ---- deb822 format: collect a stanza (comment lines inside it are dropped), emit at its end
function flush(   types, i, uris) {
	if (nl == 0) return
	types = F["types"]; uris = trim(F["uris"])
	if (!("enabled" in F) || !isfalse(F["enabled"])) {
		if (hasword(types, "deb-src")) found_src = 1
		else if (hasword(types, "deb") && uris !~ /^cdrom:/ && mode == "gen") {
			printf "# from %s:%d\nTypes: deb-src\n", sfile, sline
			for (i = 1; i <= nl; i++) if (K[i] != "types") print L[i]
			print ""
		}
	}
	nl = 0; cur = ""; split("", F); split("", L); split("", K)
}
function deb822(line,   c) {
	if (line == "") { flush(); return }            # only an empty line ends a stanza (as apt)
	if (line ~ /^#/) return
	if (line ~ /^[ \t]/) {                         # continuation of the current field
		if (cur == "") { warn("continuation line outside a field"); return }
		F[cur] = F[cur] "\n" line; L[++nl] = line; K[nl] = cur; return
	}
	c = index(line, ":")
	if (c < 2) { warn("not a field: " line); cur = "?"; L[++nl] = line; K[nl] = cur; return }
	if (nl == 0) { sfile = FILENAME; sline = FNR }
	cur = tolower(substr(line, 1, c - 1))
	F[cur] = substr(line, c + 1); L[++nl] = line; K[nl] = cur
}

FNR == 1 { flush() }
{ sub(/\r$/, "") }
FILENAME ~ /\.sources$/ { deb822($0); next }
{ oneline($0) }
END { flush(); if (mode == "src") exit(found_src ? 0 : 1) }
'

scan() {   # scan MODE [SKIP_NAME]
	local files=()
	mapfile -t files < <(source_files "${2:-}")
	[ ${#files[@]} -gt 0 ] || { [ "$1" = src ] && return 1; return 0; }
	awk -v mode="$1" "$AWK_PROG" "${files[@]}"
}

# apt_check DESC PARTS_DIR LIST_FILE: apt parses exactly those sources, prints what it said on
# failure; the indextargets listing is left in $tmp/targets.
apt_check() {
	local out rc=0
	mkdir -p "$tmp/lists"
	out=$(apt-get -o Dir::Etc::SourceList="$3" -o Dir::Etc::SourceParts="$2" \
		-o Dir::State::Lists="$tmp/lists" indextargets --no-release-info 2>&1 >"$tmp/targets") || rc=$?
	if [ "$rc" != 0 ] || grep -q '^E:' <<<"$out"; then
		say "apt rejects $1 (apt-get indextargets rc=$rc):"
		indent <<<"$out"
		return 1
	fi
	[ -z "$out" ] || indent <<<"$out"    # warnings, notices
	return 0
}

validate() {   # validate FILE
	local file=$1 f n files=()
	[ -f "$file" ] || { say "no such file: $file"; return 1; }
	mkdir -p "$tmp/alone" "$tmp/all"
	cp "$file" "$tmp/alone/$OWN"
	apt_check "the generated entries" "$tmp/alone" /dev/null || return 1
	n=$(grep -c '^Target-Of: deb-src' "$tmp/targets" || true)
	[ "$n" -gt 0 ] || { say "apt parses the generated entries but they give no deb-src index"; return 1; }
	mapfile -t files < <(source_files "$OWN")
	for f in "${files[@]}"; do
		[ "$f" = "$ROOT/sources.list" ] || cp "$f" "$tmp/all/"
	done
	cp "$file" "$tmp/all/$OWN"
	if [ -f "$ROOT/sources.list" ]; then f=$ROOT/sources.list; else f=/dev/null; fi
	apt_check "the generated entries together with $ROOT's sources" "$tmp/all" "$f" || return 1
	return 0
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/debsrc.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

case "$cmd" in
has-src)
	scan src ;;
generate)
	scan gen "$OWN" ;;
validate)
	validate "${1:?validate needs a file}" ;;
install)
	out=${1:-$ROOT/sources.list.d/$OWN}
	if scan src; then say "an enabled deb-src entry exists under $ROOT: nothing written"; exit 0; fi
	scan gen "$OWN" > "$tmp/candidate"
	grep -q '^Types: deb-src' "$tmp/candidate" || { say "no enabled 'deb' source under $ROOT to mirror as deb-src"; exit 1; }
	validate "$tmp/candidate" || { say "nothing written"; exit 1; }
	mkdir -p "$(dirname "$out")"
	cp "$tmp/candidate" "$out.tmp"; chmod 644 "$out.tmp"; mv "$out.tmp" "$out"
	say "wrote $out ($(grep -c '^Types: deb-src' "$out") deb-src entries, checked by apt)" ;;
*)
	sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0" >&2; exit 2 ;;
esac
