"""The gates file of tools/nvmeof-qualify: one gate a line.

    METRIC [WORKLOAD QD] OP VALUE        # comment

  per-workload metrics (WORKLOAD and QD required):
      iops, bw_mib_s, lat_mean_us, p50_lat_us, p90_lat_us, p99_lat_us, p99.9_lat_us,
      p99.99_lat_us                      OP: <= < >= > == !=   VALUE: a number
      steady_state                       OP: == !=             VALUE: reached | not_reached
        (randread, randwrite, randrw only: the workloads run in rounds)
  whole-run metrics (no WORKLOAD):
      errors, verify_failures            OP: <= < >= > == !=   VALUE: a number
      failover_ms, recovery_ms           the same; measured by the failover workload only
        (failover_ms: the longest time without a completion from the fault on, both
        initiators; recovery_ms: the engine's, loss declared to the first completion on
        another path)
      mem                                OP: == !=   VALUE: host | cuda
        (the engine's buffers, from the start line of every job of every engine run:
        == passes when all of them say that memory, != when none does)
      gpudirect                          OP: == !=   VALUE: used | dma-buf | peermem | staged
        (GPU memory only, --mem cuda: == used passes when every start line of every engine
        run says GPUDirect, via dma-buf or peermem; a run that staged through host memory
        (gpudirect=0, or gpudirect=auto falling back) or that has no start line fails it,
        the result naming the workload, the data path and the engine's reason.  dma-buf,
        peermem and staged ask for that one path.  --require-gpudirect adds gpudirect == used)
      A run without a start line (it failed before it connected) fails mem and gpudirect
      gates either way.  Engine initiator only: the kernel initiator prints no start line.
  WORKLOAD: randread randwrite randrw seqread seqwrite   QD: qdN (e.g. qd32)

Blank lines and text after '#' are ignored.  Anything else is an error naming FILE:LINE."""
import re

from . import datapath, read_text

WORKLOAD_METRICS = ("iops", "bw_mib_s", "lat_mean_us", "p50_lat_us", "p90_lat_us",
                    "p99_lat_us", "p99.9_lat_us", "p99.99_lat_us")
RUN_METRICS = ("errors", "verify_failures")
FAILOVER_METRICS = ("failover_ms", "recovery_ms")
STEADY_METRIC = "steady_state"
WORKLOADS = ("randread", "randwrite", "randrw", "seqread", "seqwrite")
ROUND_WORKLOADS = ("randread", "randwrite", "randrw")
NUM_OPS = ("<=", "<", ">=", ">", "==", "!=")
STEADY_VALUES = ("reached", "not_reached")
# whole-run metrics of the engine's data path, read from its start lines (datapath.py)
DATAPATH_METRICS = ("mem", "gpudirect")
DATAPATH_VALUES = {"mem": ("host", "cuda"), "gpudirect": ("used", "dma-buf", "peermem", "staged")}
WORD_OPS = ("==", "!=")


class GateError(Exception):
    """A gates file error: str() is one line 'FILE:LINE: why'."""


class Gate:
    def __init__(self, metric, workload, qd, op, value, where, text):
        self.metric, self.workload, self.qd = metric, workload, qd
        self.op, self.value, self.where, self.text = op, value, where, text

    @property
    def key(self):
        """The workload key as the report names it ('randread qd32'), or None."""
        return None if self.workload is None else "%s qd%d" % (self.workload, self.qd)

    def check(self, measured):
        """PASS/FAIL of MEASURED (None: not measured, which fails)."""
        if measured is None:
            return False
        return compare(measured, self.op, self.value)

    def as_dict(self):
        return {"gate": self.text, "where": self.where, "metric": self.metric,
                "workload": self.key, "op": self.op, "limit": self.value}


def compare(a, op, b):
    return {"<=": a <= b, "<": a < b, ">=": a >= b, ">": a > b, "==": a == b, "!=": a != b}[op]


def parse_line(text, where):
    """One gate from TEXT (a line without its comment), or GateError naming WHERE."""
    tok = text.split()
    if len(tok) not in (3, 5):
        raise GateError("%s: expected 'METRIC [WORKLOAD qdN] OP VALUE', got %r" % (where, text))
    metric, op, value = tok[0], tok[-2], tok[-1]
    workload = qd = None
    whole = RUN_METRICS + FAILOVER_METRICS + DATAPATH_METRICS
    known = WORKLOAD_METRICS + whole + (STEADY_METRIC,)
    if metric not in known:
        raise GateError("%s: unknown metric %r (known: %s)" % (where, metric, " ".join(known)))
    if len(tok) == 5:
        if metric in whole:
            raise GateError("%s: %s is a whole-run metric: no workload" % (where, metric))
        workload, qdt = tok[1], tok[2]
        if workload not in WORKLOADS:
            raise GateError("%s: unknown workload %r (known: %s)" % (where, workload, " ".join(WORKLOADS)))
        m = re.fullmatch(r"qd([1-9][0-9]*)", qdt)
        if not m:
            raise GateError("%s: queue depth %r is not qdN (e.g. qd32)" % (where, qdt))
        qd = int(m.group(1))
    elif metric not in whole:
        raise GateError("%s: %s needs a workload and queue depth (e.g. %s randread qd32 ...)" % (
            where, metric, metric))
    if metric == STEADY_METRIC:
        if workload not in ROUND_WORKLOADS:
            raise GateError("%s: steady_state is measured on %s only, not %s" % (
                where, ", ".join(ROUND_WORKLOADS), workload))
        if op not in ("==", "!="):
            raise GateError("%s: unknown operator %r for steady_state (== or !=)" % (where, op))
        if value not in STEADY_VALUES:
            raise GateError("%s: steady_state value %r is not reached or not_reached" % (where, value))
    elif metric in DATAPATH_METRICS:
        if op not in WORD_OPS:
            raise GateError("%s: unknown operator %r for %s (== or !=)" % (where, op, metric))
        if value not in DATAPATH_VALUES[metric]:
            raise GateError("%s: %s value %r is not %s" % (
                where, metric, value, " or ".join(DATAPATH_VALUES[metric])))
    else:
        if op not in NUM_OPS:
            raise GateError("%s: unknown operator %r (known: %s)" % (where, op, " ".join(NUM_OPS)))
        try:
            value = float(value)
        except ValueError:
            raise GateError("%s: value %r is not a number" % (where, value)) from None
        if value != value or value in (float("inf"), float("-inf")):
            raise GateError("%s: value %r is not a finite number" % (where, tok[-1]))
    return Gate(metric, workload, qd, op, value, where, " ".join(tok))


def datapath_result(gate, runs):
    """A mem or gpudirect GATE over the engine's runs.  RUNS: [{"workload", "run", "buffers": the
    run's start lines (datapath.of_log), "said": the engine's first other line, for a run without
    a start line}].  Returns (measured, passed, why): MEASURED what the start lines say, in order
    ("cuda", "peermem", "peermem, staged"; "no start line" for a run without one; None without
    any engine run), WHY (None when it passes) each workload that fails the gate with its data
    path and the engine's reason."""
    if not runs:
        return None, False, "no engine run"
    seen, bad = [], []

    def add(lst, x):
        if x not in lst:
            lst.append(x)
    for r in runs:
        if not r["buffers"]:
            add(seen, "no start line")
            add(bad, "%s: no start line (run %s)%s" % (r["workload"], r["run"],
                                                      "; the engine said: " + r["said"] if r.get("said") else ""))
            continue
        for d in r["buffers"]:
            if gate.metric == "mem":
                add(seen, d["memory"])
                hit = d["memory"] == gate.value
            else:
                add(seen, d["gpudirect"] if d["memory"] == "cuda" else "host")
                hit = datapath.gpudirect_used(d) if gate.value == "used" else \
                    d["memory"] == "cuda" and d["gpudirect"] == gate.value
            if hit != (gate.op == "=="):
                add(bad, "%s: %s%s" % (r["workload"], datapath.label(d),
                                       "; GPUDirect unavailable: " + d["fallback"] if d.get("fallback") else ""))
    return ", ".join(seen), not bad, "; ".join(bad) or None


def parse(text, name):
    """All gates of a gates file's TEXT (NAME is how errors call the file)."""
    gates = []
    for i, line in enumerate(text.split("\n"), 1):
        body = line.split("#", 1)[0].strip()
        if body:
            gates.append(parse_line(body, "%s:%d" % (name, i)))
    return gates


def load(path):
    return parse(read_text(path, GateError), path)
