#!/bin/bash
# The documentation stays true to the engine: every option fio --enghelp lists (and every alias
# it shows) is in docs/options.md, every option is in the README's table, every relative link
# in README.md and docs/ reaches a file (and a heading, where it names one), README.md stays
# under its limit, and user docs name no issue numbers.  Host only: no fabric needed.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
ENG=$REPO/build/libfio_nvmeof.so
README_MAX_LINES=${README_MAX_LINES:-500}

command -v fio >/dev/null || { echo "SKIP: no fio on PATH"; exit 77; }
[ -f "$ENG" ] || { echo "SKIP: $ENG is not built (make)"; exit 77; }
# fio 3.33's --enghelp takes the path alone (it hands external:PATH to dlopen verbatim)
help=$(fio --enghelp="$ENG" 2>&1) || { echo "FAIL fio --enghelp=$ENG: $help"; exit 1; }
opts=$(echo "$help" | awk '/^[a-z_]+ +: /{print $1}')
[ -n "$opts" ] || { echo "FAIL fio --enghelp listed no options: $help"; exit 1; }
aliases=$(for o in $opts; do fio --enghelp="$ENG,$o" 2>&1 | awk '$1 == "alias:" {print $2}'; done)

exec python3 - "$REPO" "$README_MAX_LINES" "$opts" "$aliases" <<'EOF'
import os, re, sys

repo, limit, opts, aliases = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4].split()
fails = passes = 0

def check(ok, what):
    global fails, passes
    if ok:
        passes += 1
        print("PASS " + what)
    else:
        fails += 1
        print("FAIL " + what)

def read(rel):
    with open(os.path.join(repo, rel), encoding="utf-8") as f:
        return f.read()

docs = ["README.md"] + sorted("docs/" + n for n in os.listdir(os.path.join(repo, "docs"))
                              if n.endswith(".md"))
texts = {d: read(d) for d in docs}

# README's size
n = texts["README.md"].count("\n")
check(n <= limit, "README.md is %d lines (limit %d)" % (n, limit))

# every option and alias: a row of docs/options.md's tables; every option: a row of README's
def rows(text):
    names = set()
    for line in text.splitlines():
        m = re.match(r"\|\s*`([a-z_]+)`(?:\s*\(alias `([a-z_]+)`\)|\s*/\s*`([a-z_]+)`)?\s*\|", line)
        if m:
            names.update(x for x in m.groups() if x)
    return names
opt_rows, readme_rows = rows(texts["docs/options.md"]), rows(texts["README.md"])
for o in opts:
    check(o in opt_rows, "option %s has a row in docs/options.md" % o)
    check(o in readme_rows, "option %s has a row in README.md's table" % o)
for a in aliases:
    check(a in opt_rows, "alias %s is in docs/options.md" % a)
for o in sorted(opt_rows - set(opts) - set(aliases)):
    check(False, "docs/options.md documents `%s`, which fio --enghelp does not list" % o)

# relative links reach a file, and the heading a #fragment names
def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")
def anchors(text):
    out, fence = set(), False
    for line in text.splitlines():
        if line.startswith("```"):
            fence = not fence
        elif not fence and line.startswith("#"):
            out.add(slug(line.lstrip("#")))
    return out
links = 0
for d, text in texts.items():
    body = re.sub(r"```.*?```", "", text, flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", body):
        if re.match(r"[a-z]+:", target):
            continue
        links += 1
        path, _, frag = target.partition("#")
        full = os.path.normpath(os.path.join(repo, os.path.dirname(d), path)) if path else os.path.join(repo, d)
        if not os.path.exists(full):
            check(False, "%s links to %s: no such file" % (d, target))
        elif frag and full.endswith(".md") and frag not in anchors(read(os.path.relpath(full, repo))):
            check(False, "%s links to %s: no such heading" % (d, target))
check(links > 20, "%d relative links in README.md and docs/ checked" % links)

# user docs speak to users: no issue numbers
for d, text in texts.items():
    for i, line in enumerate(text.splitlines(), 1):
        if re.search(r"(?<![\w&])#\d+\b|\bissues? \d+\b", line, re.I):
            check(False, "%s:%d names an issue number: %s" % (d, i, line.strip()[:120]))

print("docs_check: %d passed, %d failed" % (passes, fails))
sys.exit(1 if fails else 0)
EOF
