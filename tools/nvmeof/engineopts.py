"""What the tools ask of the engine they run: which options the built engine offers, the stop
grace they give it, and the GPU memory options and driver of its runs (shared by
tools/nvmeof-compare and tools/nvmeof-qualify)."""
import os
import re
import subprocess

# stop_grace (ms) of the tools' engine runs.  The kernel initiator's runs wait for every I/O in
# flight at the runtime's end; the engine's automatic grace (about a second after the last
# completion) gives up on a loaded target's stragglers and fails the run.  10 s is longer than
# any tail the testbed's loaded rows show (4.7 s), well under the per-run slack; a run whose
# target died still ends, this long after the last completion, with the job's error.
STOP_GRACE_MS = 10000


def engine_has_option(fio, engine, name):
    """True when the engine offers option NAME: fio --enghelp lists it (fio 3.33 loads an external
    engine for --enghelp only by its path, newer fio by external:PATH: both are asked).  Where
    neither lists options the option's name is looked for in the engine's binary, so an older
    engine build can still be run; not before, since a name like "transport" is also a string the
    engine holds for other reasons."""
    for spec in (engine, "external:%s" % engine):
        try:
            p = subprocess.run([fio, "--enghelp=%s" % spec], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            continue
        if p.returncode == 0 and re.search(r"^\s*%s\s*:" % re.escape(name), p.stdout, re.M):
            return True
        if p.returncode == 0 and re.search(r"^\w+\s+:", p.stdout, re.M):
            return False                # it listed the engine's options, NAME not among them
    try:
        with open(engine, "rb") as f:
            return (name.encode() + b"\0") in f.read()
    except OSError:
        return False


# what every tool sets in its engine jobs itself (the target, the stop grace): --engine-opt may
# not name these; each tool adds its own
RESERVED = {"traddr": "the target: --traddr", "trsvcid": "the target: --trsvcid", "subnqn": "the target: --subnqn",
            "nsid": "the target: --nsid", "hostnqn": "--hostnqn", "stop_grace": "the tools' stop grace"}


class EngineOptError(Exception):
    pass


def is_fio_option(fio, key):
    """fio's own option (or alias), which fio --cmdhelp describes; an engine's it does not know."""
    try:
        p = subprocess.run([fio, "--cmdhelp=%s" % key], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return p.returncode == 0 and "No such command" not in p.stdout + p.stderr and \
        re.search(r"^\s*%s\s*:|alias:\s*%s\b" % (re.escape(key), re.escape(key)), p.stdout, re.M) is not None


def parse_engine_opts(specs, fio, engine, reserved):
    """--engine-opt KEY=VALUE (repeatable) as [(key, value)], checked before anything runs: KEY
    must be an option of this engine (not one of fio's own, and not one of RESERVED, which the
    tool sets itself), and fio must accept the value (fio --parse-only with the engine loaded:
    its own option parser and the engine's ranges and choices).  EngineOptError: one line."""
    out = []
    for spec in specs or []:
        key, sep, val = spec.partition("=")
        key = key.strip().lstrip("-")
        if not sep or not key or not val:
            raise EngineOptError("--engine-opt %r: want KEY=VALUE (an option of the engine, e.g. "
                                 "nvmeof_mem=cuda)" % spec)
        if key in reserved:
            raise EngineOptError("--engine-opt %s: the tool sets %s itself (%s)" % (spec, key, reserved[key]))
        if any(k == key for k, _ in out):
            raise EngineOptError("--engine-opt %s: %s given twice" % (spec, key))
        if is_fio_option(fio, key):
            raise EngineOptError("--engine-opt %s: %s is one of fio's own options, not the engine's (the "
                                 "tool sets the job itself)" % (spec, key))
        if not engine_has_option(fio, engine, key):
            raise EngineOptError("--engine-opt %s: %s is not an option of the engine %s" % (spec, key, engine))
        out.append((key, val))
    if not out:
        return out
    argv = [fio, "--parse-only", "--name=engine-opt-check", "--ioengine=external:%s" % engine,
            "--filename=/dev/null", "--traddr=192.0.2.1", "--subnqn=nqn.2014-08.org.example:check"]
    argv += ["--%s=%s" % kv for kv in out]
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as e:
        raise EngineOptError("--engine-opt: cannot run %s --parse-only to check the values: %s" % (fio, e))
    if p.returncode != 0:
        text = " ".join((p.stderr + " " + p.stdout).split())
        raise EngineOptError("--engine-opt %s: fio refuses it: %s" % (
            " ".join("%s=%s" % kv for kv in out), text[:300] or "exit %d" % p.returncode))
    return out


def check_cuda_option(flag, key, value, fio, engine):
    """A tool's GPU memory FLAG giving the engine's option KEY=VALUE (with nvmeof_mem=cuda), checked
    by fio's parser with the engine loaded; EngineOptError 'FLAG VALUE: fio refuses it: ...'."""
    try:
        parse_engine_opts(["nvmeof_mem=cuda", "%s=%s" % (key, value)], fio, engine, {})
    except EngineOptError as e:
        raise EngineOptError("%s %s: %s" % (flag, value, str(e).split(": ", 1)[1]))


def check_cuda_lib(lib):
    """--cuda-lib DIR: its absolute path, or EngineOptError when DIR has no libcuda.so.1."""
    if not os.path.isfile(os.path.join(lib, "libcuda.so.1")):
        raise EngineOptError("--cuda-lib %s: no libcuda.so.1 there" % lib)
    return os.path.abspath(lib)


def cuda_lib_path(lib):
    """LD_LIBRARY_PATH for an engine run that loads DIR/libcuda.so.1: LIB first, then this
    process's own (the engine dlopens libcuda.so.1 in each job)."""
    old = os.environ.get("LD_LIBRARY_PATH")
    return lib + (":" + old if old else "")
