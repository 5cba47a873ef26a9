"""Running one fio job file on several initiator hosts at once: fio's client/server mode.

On each host a fio server runs (``fio --server`` or ``fio --server=ip:ADDR,PORT``); one client
(``fio --client=H1 job.fio --client=H2 job.fio``) sends the job file to every server, each
server runs it with its own engine instance (its own connections, lanes and queues), and the
client merges the results into one JSON document:

    {"fio version": ..., "client_stats": [job, job, ..., {"jobname": "All clients", ...}],
     "disk_util": [...]}

Every job object of "client_stats" carries "hostname" and "port" (the server it came from, as
given on the client's command line, not resolved).  The "All clients" entry, present when the
servers sent more than one job result in all, is fio's sum over every job of every server
(sum_thread_stats: I/Os and bytes added, latency min/max/mean merged, but - fio 3.33 - no
"percentile" table in its lat_ns/clat_ns (see fill_percentiles()); runtime the longest job's,
so its IOPS is all I/Os over the longest runtime - the sum of the hosts' IOPS only when they
ran for the same time, e.g. time_based); its "hostname"/"port" are those of the last server to
report, so it is recognised by its name.

The client's stdout also holds text the servers sent, each line prefixed with "<server's host
name> ": fio's own job description lines ("NAME: (g=0): rw=..."), "Starting N process(es)",
empty lines, error lines (fio's and the engine's) - unless the servers themselves were started
with --output-format=json, which silences fio's informational lines there.  The engine keeps
its own informational lines (the start line) on the server's stderr.  parse() skips the text.

Use (what a tool's ``--hosts h1,h2:8766`` does):

    hosts = parse_hosts("h1,h2:8766")              # ["h1", "h2:8766"]
    cmd = ["fio", "--output-format=json"] + client_args(hosts, ["job.fio"])
    rc, doc, out, err = run(hosts, ["job.fio"])     # doc: the client's JSON (None if none)
    per_host, combined = split_results(doc)         # {"h1:8765": [job...], ...}, [job...]
    rows = report_rows(doc, hosts)  # [("h1:8765", metrics), ..., ("all hosts", metrics)]

Host syntax: "HOST" (fio's default port 8765), "HOST:PORT", "[IPV6]:PORT", or fio's own
--client strings passed through ("ip:HOST,PORT", "ip6:ADDR,PORT", "sock:PATH", "HOST,PORT").
host_key(spec) gives the key of that host in split_results() ("HOST:PORT", "[IPV6]:PORT",
"sock:PATH").  The client reads the job file and expands ${VAR} in it with the client's own
environment before sending it (fio's read_ini_data()): every server gets the same text.  To
give each host its own target (subnqn, traddr, offset), give each host its own job file
(client_args() takes a dict), or use fio's --remote-config (a file on the server)."""
import json
import subprocess

from . import fiojson

DEFAULT_PORT = 8765          # fio's fio_net_port
ALL_CLIENTS = "All clients"  # the jobname fio gives its sum over all servers
COMBINED_LABEL = "all hosts"


def parse_host(spec):
    """(kind, host, port) of one host spec: kind "ip", "ip6" or "sock" (port 0, host = path).
    ValueError on an empty host or a port outside 1..65535."""
    s = spec.strip()
    if not s:
        raise ValueError("empty host")
    if s.startswith("sock:"):
        if not s[5:]:
            raise ValueError("sock: without a path")
        return "sock", s[5:], 0
    kind, port = "ip", None
    for pre in ("ip4:", "ip6:", "ip:"):
        if s.startswith(pre):
            kind = "ip6" if pre == "ip6:" else "ip"
            s = s[len(pre):]
            break
    else:
        if s.startswith("["):                       # [v6] or [v6]:port
            end = s.find("]")
            if end < 0:
                raise ValueError("%r: no closing ]" % spec)
            rest = s[end + 1:]
            kind, s = "ip6", s[1:end]
            if rest:
                if not rest.startswith(":"):
                    raise ValueError("%r: expected [ADDR]:PORT" % spec)
                port = rest[1:]
        elif s.count(":") == 1 and "," not in s:    # host:port
            s, port = s.split(":")
        elif s.count(":") > 1 and "," not in s:     # bare IPv6 address
            kind = "ip6"
    if port is None and "," in s:                   # fio's HOST,PORT
        s, port = s.rsplit(",", 1)
    if not s:
        raise ValueError("%r: no host" % spec)
    if port is None or port == "":
        p = DEFAULT_PORT
    else:
        try:
            p = int(port)
        except ValueError:
            raise ValueError("%r: port %r is not a number" % (spec, port)) from None
        if not 1 <= p <= 65535:
            raise ValueError("%r: port %d out of range" % (spec, p))
    return kind, s, p


def _key(host, port):
    if port == 0:
        return "sock:%s" % host
    return ("[%s]:%d" if ":" in host else "%s:%d") % (host, port)


def host_key(spec):
    """The key of host SPEC in split_results(): "HOST:PORT", "[IPV6]:PORT" or "sock:PATH"."""
    kind, host, port = parse_host(spec)
    return _key(host, port) if kind != "sock" else "sock:%s" % host


def client_spec(spec):
    """fio's --client value for host SPEC: "ip:HOST,PORT", "ip6:ADDR,PORT" or "sock:PATH"."""
    kind, host, port = parse_host(spec)
    if kind == "sock":
        return "sock:%s" % host
    return "%s:%s,%d" % (kind, host, port)


def parse_hosts(text):
    """The host specs of a comma-separated --hosts value ("h1,h2:8766,[::1]:8767"), in order.
    fio's own "HOST,PORT" form cannot be used here (the comma separates hosts): give HOST:PORT.
    ValueError on an empty list, a bad spec or the same host twice."""
    hosts = [h.strip() for h in text.split(",") if h.strip()]
    if not hosts:
        raise ValueError("no hosts in %r" % text)
    seen = {}
    for h in hosts:
        k = host_key(h)
        if k in seen:
            raise ValueError("host %s given twice (%r, %r)" % (k, seen[k], h))
        seen[k] = h
    return hosts


def client_args(hosts, job_files):
    """fio's arguments that run JOB_FILES on HOSTS: ["--client=ip:h1,8765", "job.fio",
    "--client=ip:h2,8766", "job.fio"].  JOB_FILES is a path or a list of paths sent to every
    server, or a dict {host spec: path or list} giving each host its own (every host must have
    an entry).  Put the client's own options (--output-format=json, --output=FILE) before."""
    if not hosts:
        raise ValueError("no hosts")
    args = []
    for h in hosts:
        files = job_files.get(h) if isinstance(job_files, dict) else job_files
        if not files:
            raise ValueError("no job file for host %r" % h)
        args.append("--client=%s" % client_spec(h))
        args.extend([files] if isinstance(files, str) else files)
    return args


def command(hosts, job_files, fio="fio", client_opts=()):
    """The whole client command line: FIO --output-format=json CLIENT_OPTS... client_args()."""
    return [fio, "--output-format=json"] + list(client_opts) + client_args(hosts, job_files)


def run(hosts, job_files, fio="fio", client_opts=(), timeout=None):
    """Run the client; (rc, doc, stdout, stderr): doc is the parsed JSON document, or None
    when the output holds none (connection refused, bad job file: see stdout/stderr)."""
    p = subprocess.run(command(hosts, job_files, fio, client_opts), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, errors="replace",
                       timeout=timeout)
    try:
        doc = fiojson.parse(p.stdout)
    except ValueError:
        doc = None
    return p.returncode, doc, p.stdout, p.stderr


def split_results(doc):
    """(per_host, combined) of a client's JSON document: per_host maps host_key-style keys
    ("HOST:PORT") to that server's job objects, in the order fio reported them (one per job, or
    one per group with group_reporting); combined is fio's "All clients" entries, or - when fio
    wrote none (one server that sent a single result) - all job objects.  A document of a plain
    (non-client) fio run, with "jobs", gives ({"local": jobs}, jobs)."""
    if "client_stats" not in doc:
        jobs = doc.get("jobs") or []
        return {"local": list(jobs)}, list(jobs)
    per_host, combined = {}, []
    for job in doc.get("client_stats") or []:
        if job.get("jobname") == ALL_CLIENTS:
            combined.append(job)
            continue
        key = _key(job.get("hostname", ""), int(job.get("port", 0)))
        per_host.setdefault(key, []).append(job)
    if not combined:
        combined = [j for jobs in per_host.values() for j in jobs]
    return per_host, combined


def report_rows(doc, hosts=None):
    """[(label, metrics)]: one row per host (fiojson.sum_jobs over its jobs; label its key),
    then the combined row (label "all hosts"; fio's "All clients" sum, without latency
    percentiles in fio 3.33: fill_percentiles() gives it the worst host's).  Host rows come in the order fio
    reported them, or in the order of HOSTS (the specs given to client_args()) when given;
    then a host without results is a ValueError naming it."""
    per_host, combined = split_results(doc)
    keys = list(per_host)
    if hosts is not None:
        keys = [host_key(h) for h in hosts]
        missing = [k for k in keys if k not in per_host]
        if missing:
            raise ValueError("no results from %s (results from: %s)"
                             % (", ".join(missing), ", ".join(per_host) or "none"))
    rows = [(k, fiojson.sum_jobs(per_host[k])) for k in keys]
    if combined:
        rows.append((COMBINED_LABEL, fiojson.sum_jobs(combined)))
    return rows


def fill_percentiles(rows):
    """Give the combined row of report_rows() (the last) the percentiles fio left out: fio's
    "All clients" entry (fio 3.33) has no "percentile" table, so lat_p*_us are None there.
    Each missing one becomes the worst (largest) host's value - an upper bound of the true
    combined percentile (a mixture's quantile lies between its parts'), right for "<=" gates.
    Returns the keys filled (empty when fio gave them, or with one host)."""
    if len(rows) < 3:
        return []
    comb, hosts = rows[-1][1], [m for _k, m in rows[:-1]]
    filled = []
    for p in fiojson.PERCENTILES:
        k = "lat_p%s_us" % format(p, "g")
        vals = [m.get(k) for m in hosts]
        if comb.get(k) is None and vals and all(v is not None for v in vals):
            comb[k] = max(vals)
            filled.append(k)
    return filled


def text_lines(text):
    """The non-empty lines of a client's stdout outside its JSON document (the servers'
    forwarded text, the client's own notes), in order; all of them when there is no document."""
    span = _doc_span(text)
    if span is None:
        return [l for l in text.split("\n") if l.strip()]
    return [l for chunk in (text[:span[0]], text[span[1]:]) for l in chunk.split("\n")
            if l.strip()]


def _doc_span(text):
    """(start, end) of the document fiojson.parse() finds in TEXT, or None."""
    dec = json.JSONDecoder()
    pos = 0
    while True:
        i = text.find("{", pos)
        if i < 0:
            return None
        if i == 0 or text[i - 1] == "\n":
            try:
                doc, end = dec.raw_decode(text, i)
                if isinstance(doc, dict) and ("jobs" in doc or "client_stats" in doc):
                    return i, end
            except ValueError:
                pass
        pos = i + 1
