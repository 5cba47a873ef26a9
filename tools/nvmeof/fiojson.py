"""Reading fio's JSON output, and the numbers the tools report from it.

fio's --output-format=json output is one JSON document, but a file may also hold text around it:
notes fio prints itself, and in client/server mode (fio --client) the servers' text lines that
the client passes on.  parse() finds the document; job_metrics() turns one job (or one client
aggregate) into the flat numbers of a report row.  Latencies are in microseconds."""
import json

PERCENTILES = (50.0, 90.0, 99.0, 99.9, 99.99)
DIRECTIONS = ("read", "write", "trim")


def parse(text):
    """The fio JSON document in TEXT (a str).  Text lines before or after it are skipped; a
    ValueError says why when there is no document."""
    dec = json.JSONDecoder()
    pos = 0
    last_err = None
    while True:
        i = text.find("{", pos)
        if i < 0:
            break
        # a document starts a line: "{" inside a text line is not one
        if i == 0 or text[i - 1] == "\n":
            try:
                doc, _end = dec.raw_decode(text, i)
                if isinstance(doc, dict) and ("jobs" in doc or "client_stats" in doc):
                    return doc
            except ValueError as e:
                last_err = e
        pos = i + 1
    raise ValueError("no fio JSON document found" + (" (%s)" % last_err if last_err else ""))


def load(path):
    """parse() on the file at PATH; the ValueError names the file."""
    with open(path, errors="replace") as f:
        text = f.read()
    try:
        return parse(text)
    except ValueError as e:
        raise ValueError("%s: %s" % (path, e)) from None


def _pct(lat, p):
    table = (lat or {}).get("percentile") or {}
    for k, v in table.items():
        if abs(float(k) - p) < 1e-9:
            return v / 1000.0
    return None


def job_metrics(job):
    """The flat numbers of one fio job object (an entry of "jobs" or "client_stats"): IOPS and
    bandwidth summed over directions; total-latency (lat_ns) percentiles and mean of the direction
    that did the most I/O (fio keeps them per direction); CPU percentages; context switches
    (fio's "ctx": the job's voluntary and involuntary ones together); errors."""
    dirs = {d: job.get(d) or {} for d in DIRECTIONS}
    main = max(DIRECTIONS, key=lambda d: dirs[d].get("total_ios", 0))
    lat = dirs[main].get("lat_ns") or {}
    m = {
        "iops": sum(dirs[d].get("iops", 0.0) for d in DIRECTIONS),
        "bw_bytes": sum(dirs[d].get("bw_bytes", 0) for d in DIRECTIONS),
        "ios": sum(dirs[d].get("total_ios", 0) for d in DIRECTIONS),
        "io_bytes": sum(dirs[d].get("io_bytes", 0) for d in DIRECTIONS),
        "lat_dir": main,
        "lat_mean_us": lat.get("mean", 0.0) / 1000.0 if lat else None,
        "usr_cpu": job.get("usr_cpu", 0.0),
        "sys_cpu": job.get("sys_cpu", 0.0),
        "ctx": job.get("ctx", 0),
        "error": job.get("error", 0),
        "total_err": job.get("total_err", 0),
        "runtime_ms": max(dirs[d].get("runtime", 0) for d in DIRECTIONS),
    }
    for p in PERCENTILES:
        m["lat_p%s_us" % format(p, "g")] = _pct(lat, p)
    return m


def sum_jobs(jobs):
    """job_metrics over several jobs of one run (numjobs > 1 without group_reporting): IOPS,
    bandwidth, I/Os and errors add up; latencies are those of the job with the most I/O (a
    percentile cannot be added; use group_reporting=1 for fio's merged percentiles)."""
    ms = [job_metrics(j) for j in jobs]
    if not ms:
        raise ValueError("no jobs")
    out = dict(max(ms, key=lambda m: m["ios"]))
    for k in ("iops", "bw_bytes", "ios", "io_bytes", "usr_cpu", "sys_cpu", "ctx", "total_err"):
        out[k] = sum(m[k] for m in ms)
    out["error"] = next((m["error"] for m in ms if m["error"]), 0)
    out["runtime_ms"] = max(m["runtime_ms"] for m in ms)
    return out
