"""The job matrix of tools/nvmeof-compare: rows (one fio workload each) and the variants
(initiators) every row runs through.

Matrix file format (--matrix FILE): one row per line, `key=value` words separated by blanks;
`#` starts a comment; blank lines are skipped.  Keys:
  rw        read | write | randread | randwrite | rw | randrw        (required)
  bs        block size as fio writes it: 4k, 128k, 1m, 512 ...     (required)
  iodepth   1..4096 (alias qd)                                        (required)
  numjobs   1..256 (alias jobs; default 1)
  rwmixread 0..100, only with rw/randrw (default 50)
  name      the row's name (default RW-BS-qdN-jN); letters, digits, . _ -
Example:
  rw=randread bs=4k iodepth=32 numjobs=1
  rw=write    bs=1m qd=8 jobs=4 name=seqwrite-1m
Every error is one line naming the file and line."""
import re

from . import read_text

RWS = ("read", "write", "randread", "randwrite", "rw", "randrw")
KEYS = {"rw": "rw", "bs": "bs", "iodepth": "iodepth", "qd": "iodepth", "numjobs": "numjobs",
        "jobs": "numjobs", "rwmixread": "rwmixread", "name": "name"}
BS_RE = re.compile(r"^([0-9]+)([kmg]?)(i?b?)$", re.I)
NAME_RE = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


class MatrixError(ValueError):
    pass


def bs_bytes(bs):
    m = BS_RE.match(bs)
    if not m:
        raise ValueError("bs %r is not a size like 4k, 128k, 1m" % bs)
    n = int(m.group(1)) * {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[m.group(2).lower()]
    if n < 512 or n % 512:
        raise ValueError("bs %r is not a multiple of 512 bytes" % bs)
    return n


def make_row(rw, bs, iodepth, numjobs=1, rwmixread=None, name=None):
    row = {"rw": rw, "bs": bs, "bs_bytes": bs_bytes(bs), "iodepth": int(iodepth),
           "numjobs": int(numjobs)}
    if rwmixread is not None:
        row["rwmixread"] = int(rwmixread)
    row["name"] = name or "%s-%s-qd%d-j%d" % (rw, bs.lower(), row["iodepth"], row["numjobs"])
    return row


def writes(row):
    """True when the row writes to the namespace."""
    return row["rw"] in ("write", "randwrite", "rw", "randrw")


def parse_line(text, where):
    words = text.split("#", 1)[0].split()
    if not words:
        return None
    kv = {}
    for w in words:
        k, eq, v = w.partition("=")
        if not eq or not v:
            raise MatrixError("%s: %r is not key=value" % (where, w))
        if k not in KEYS:
            raise MatrixError("%s: unknown key %r (keys: rw bs iodepth|qd numjobs|jobs rwmixread name)"
                              % (where, k))
        key = KEYS[k]
        if key in kv:
            raise MatrixError("%s: %s given twice" % (where, key))
        kv[key] = v
    for need in ("rw", "bs", "iodepth"):
        if need not in kv:
            raise MatrixError("%s: %s missing" % (where, need))
    if kv["rw"] not in RWS:
        raise MatrixError("%s: rw=%s is not one of %s" % (where, kv["rw"], " ".join(RWS)))
    try:
        bs_bytes(kv["bs"])
    except ValueError as e:
        raise MatrixError("%s: %s" % (where, e)) from None
    for key, lo, hi in (("iodepth", 1, 4096), ("numjobs", 1, 256), ("rwmixread", 0, 100)):
        if key in kv and (not kv[key].isdigit() or not lo <= int(kv[key]) <= hi):
            raise MatrixError("%s: %s=%s is not a whole number %d..%d" % (where, key, kv[key], lo, hi))
    if "rwmixread" in kv and kv["rw"] not in ("rw", "randrw"):
        raise MatrixError("%s: rwmixread only goes with rw=rw or rw=randrw" % where)
    if "name" in kv and not NAME_RE.match(kv["name"]):
        raise MatrixError("%s: name=%s: use 1..64 letters, digits, '.', '_', '-'" % (where, kv["name"]))
    return make_row(kv["rw"], kv["bs"], kv["iodepth"], kv.get("numjobs", 1), kv.get("rwmixread"),
                    kv.get("name"))


def parse(text, source="matrix"):
    rows, names = [], {}
    for n, line in enumerate(text.splitlines(), 1):
        where = "%s:%d" % (source, n)
        row = parse_line(line, where)
        if row is None:
            continue
        if row["name"] in names:
            raise MatrixError("%s: row name %s already used on line %d" % (where, row["name"], names[row["name"]]))
        names[row["name"]] = n
        rows.append(row)
    if not rows:
        raise MatrixError("%s: no rows" % source)
    return rows


def load(path):
    return parse(read_text(path, MatrixError), path)


def _rows(spec):
    return [make_row(*s) for s in spec]


def default_matrix():
    """The default matrix: 4 KiB randread/randwrite at QD 1, 8, 32, 128; 128 KiB and 1 MiB sequential
    read and write at QD 8; each with numjobs 1 and 4."""
    spec = []
    for nj in (1, 4):
        for rw in ("randread", "randwrite"):
            for qd in (1, 8, 32, 128):
                spec.append((rw, "4k", qd, nj))
        for bs in ("128k", "1m"):
            for rw in ("read", "write"):
                spec.append((rw, bs, 8, nj))
    return _rows(spec)


def bench_matrix():
    """The bench matrix (`make bench`): as the default, but the sequential rows read only."""
    return [r for r in default_matrix() if r["rw"] != "write"]


def quick_matrix():
    """`make check`'s tiny matrix: 4 KiB random read at QD 1 and QD 8, one job."""
    return _rows([("randread", "4k", 1, 1), ("randread", "4k", 8, 1)])


# ------------------------------------------------------------------ variants (initiators)
ENGINE_MODES = ("poll", "event", "hybrid")


# The engine's buffer modes as variant suffixes: -gpu GPUDirect (nvmeof_mem=cuda), -staged
# staged through registered host memory (nvmeof_mem=cuda gpudirect=0); none: host memory.
ENGINE_MEMS = ("gpu", "staged")


def all_variants(io_queues, cuda=False):
    """Every variant name this tool knows, in report order.  IO_QUEUES: the engine has the
    io_queues option (then the -qauto variants exist).  CUDA: the GPU memory variants too
    (each completion mode in GPUDirect and staged)."""
    v = ["engine-%s" % m for m in ENGINE_MODES]
    if io_queues:
        v += ["engine-%s-qauto" % m for m in ENGINE_MODES]
    if cuda:
        v += ["engine-%s-%s" % (m, g) for g in ENGINE_MEMS for m in ENGINE_MODES]
    return v + ["kernel-libaio", "kernel-io_uring", "spdk"]


# NVMe/TCP columns, asked for by name only (the default set stays RDMA): each against its RDMA
# twin in the report's "RDMA vs TCP" table.  engine-tcp: the engine with transport=tcp in its
# default completion mode; kernel-tcp: nvme connect -t tcp, fio libaio; spdk-tcp: SPDK's plugin
# with trtype=TCP.
RDMA_TWIN = {"engine-tcp": "engine-poll", "kernel-tcp": "kernel-libaio", "spdk-tcp": "spdk"}
TCP_VARIANTS = tuple(RDMA_TWIN)


def transport(name):
    """The fabric a column runs over: "tcp" for the -tcp variants, else "rdma"."""
    return "tcp" if initiator_of(name) in TCP_VARIANTS else "rdma"


def rdma_twin(name):
    """The RDMA column a TCP column is set against (same target), or None for an RDMA column."""
    t = RDMA_TWIN.get(initiator_of(name))
    return on_target(t, variant_target(name)) if t else None


def known_variant(name):
    if name in all_variants(True, True) or name in TCP_VARIANTS:
        return True
    mode, qauto, mem = engine_parts(name)        # engine-MODE-qauto-gpu|staged: asked for by name
    return mode in ENGINE_MODES and qauto and mem is not None and name == "engine-%s-qauto-%s" % (mode, mem)


def engine_parts(name):
    """An engine variant's (completion mode, io_queues=auto, memory: None, "gpu" or "staged");
    (None, False, None) for another initiator."""
    if initiator_of(name) == "engine-tcp":
        return "poll", False, None      # the engine's default mode, over TCP
    parts = initiator_of(name).split("-")
    if parts[0] != "engine" or len(parts) < 2:
        return None, False, None
    rest = parts[2:]
    mem = rest.pop() if rest and rest[-1] in ENGINE_MEMS else None
    return parts[1], rest == ["qauto"], mem


def host_twin(name):
    """The host-memory variant a GPU memory variant is measured against (None for others)."""
    mode, qauto, mem = engine_parts(name)
    if not mem:
        return None
    t = "engine-%s%s" % (mode, "-qauto" if qauto else "")
    return t if "@" not in name else on_target(t, variant_target(name))


def variant_kind(name):
    return name.split("@", 1)[0].split("-", 1)[0]        # engine | kernel | spdk


# ------------------------------------------------------------------ targets (testbed only)
# A column of the report is an initiator against a target: against the testbed's kernel target
# (nvmet) it is the initiator's name alone, against SPDK's nvmf_tgt the name + "@spdk-tgt".
# The kernel initiator runs against nvmet only (its connection is made once per run).
TARGETS = ("nvmet", "spdk-tgt")


def variant_target(name):
    return name.split("@", 1)[1] if "@" in name else "nvmet"


def initiator_of(name):
    return name.split("@", 1)[0]


def on_target(initiator, target):
    return initiator if target == "nvmet" else "%s@%s" % (initiator, target)


def columns(initiators, targets, chosen=True):
    """The report's columns, target by target: every initiator against nvmet, then the engine's
    and SPDK's plugin against spdk-tgt.  CHOSEN false (no --initiators): against spdk-tgt only
    the engine's default mode (engine-poll) and the plugin, the pair that target is there for."""
    out = []
    for t in targets:
        out += [on_target(i, t) for i in initiators if t == "nvmet" or (
            variant_kind(i) != "kernel" and (chosen or i in ("engine-poll", "spdk")))]
    return out
