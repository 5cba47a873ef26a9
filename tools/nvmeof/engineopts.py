"""What the tools ask of the engine they run: which options the built engine offers, and the
stop grace they give it (shared by tools/nvmeof-compare and tools/nvmeof-qualify)."""
import re
import subprocess

# stop_grace (ms) of the tools' engine runs.  The kernel initiator's runs wait for every I/O in
# flight at the runtime's end; the engine's automatic grace (about a second after the last
# completion) gives up on a loaded target's stragglers and fails the run.  10 s is longer than
# any tail the testbed's loaded rows show (4.7 s), well under the per-run slack; a run whose
# target died still ends, this long after the last completion, with the job's error.
STOP_GRACE_MS = 10000


def engine_has_option(fio, engine, name):
    """True when the engine offers option NAME: fio --enghelp lists it (fio 3.33's enghelp cannot
    load an external engine: then the option's name is looked for in the engine's binary), so an
    older engine build can still be run."""
    try:
        p = subprocess.run([fio, "--enghelp=external:%s" % engine], capture_output=True, text=True, timeout=30)
        if p.returncode == 0 and re.search(r"^\s*%s\s*:" % re.escape(name), p.stdout, re.M):
            return True
        if p.returncode == 0 and p.stdout.strip() and "not loadable" not in p.stdout + p.stderr:
            return False
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        with open(engine, "rb") as f:
            return (name.encode() + b"\0") in f.read()
    except OSError:
        return False
