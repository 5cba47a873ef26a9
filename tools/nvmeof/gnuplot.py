"""Plots through gnuplot (Debian's gnuplot-nox): one gnuplot script drawn twice, as SVG (for
report.md) and PNG.  gnuplot rather than matplotlib: it is one small binary, so the plots do
not depend on which python3 runs the tools (a pyenv or venv python does not see Debian's
python3-matplotlib), and it writes both formats itself."""
import os
import shutil
import subprocess

TERMINALS = (
    ("svg", "set terminal svg size 800,480 dynamic font 'sans,12' background rgb 'white'"),
    ("png", "set terminal pngcairo size 1000,600 font 'sans,11'"),
)


def available():
    return shutil.which("gnuplot") is not None


def draw(base, script, data=None):
    """Draw SCRIPT (gnuplot commands after the terminal/output lines) to BASE.svg and BASE.png.
    DATA: {name: text}: files written beside BASE as BASE.NAME.dat, which the script names by
    the placeholder {NAME} (e.g. plot '{lat}' using 1:2).  Returns the two paths; raises
    RuntimeError with gnuplot's own words when it fails."""
    if not available():
        raise RuntimeError("gnuplot not found (Debian package gnuplot-nox)")
    files = {}
    for name, text in (data or {}).items():
        path = "%s.%s.dat" % (base, name)
        with open(path, "w") as f:
            f.write(text)
        files[name] = path
    body = script
    for name, path in files.items():
        body = body.replace("{%s}" % name, path.replace("'", "''"))
    outs = []
    for ext, term in TERMINALS:
        out = "%s.%s" % (base, ext)
        full = "%s\nset output '%s'\n%s\nunset output\n" % (term, out.replace("'", "''"), body)
        p = subprocess.run(["gnuplot"], input=full, text=True, capture_output=True)
        if p.returncode != 0 or not os.path.exists(out) or os.path.getsize(out) == 0:
            raise RuntimeError("gnuplot failed for %s: %s" % (out, (p.stderr or "").strip()[-400:]))
        outs.append(out)
    return outs
