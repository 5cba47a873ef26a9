#!/bin/bash
# --hosts of tools/nvmeof-compare and tools/nvmeof-qualify inside the testbed (run by
# tests/integration/tools_hosts.sh): two fio servers on the guest's loopback (ports 8765, 8766),
# each running the engine against the kernel target with its own connections and lanes; the
# tools run here in real-target mode (TARGET_IP) as the fio client of both.
#   a. nvmeof-compare, one row, engine-poll, 2 s, repeat 1: report.json's per-host and combined
#      numbers equal those this script reads itself from the client's raw JSON (fio's per-server
#      entries and its "All clients" entry), CPU us/IO not measured, report.md's per-host rows;
#   b. nvmeof-qualify, tiny sizes and rounds, generous gates: exit 0 (PASS), per-host numbers
#      in report.json/report.md, fill and verify each host on its own half of the working set.
. "$(dirname "$0")/lib.sh"
A=127.0.0.1:8765 B=127.0.0.1:8766

trap stop_servers EXIT
start_server $A || suite_end tools_hosts
start_server $B || suite_end tools_hosts
REAL="--traddr $TARGET_IP --trsvcid $TARGET_PORT --subnqn $NQN"

# a. nvmeof-compare
printf 'rw=randread bs=4k qd=4 name=rr\n' >"$WORK/one.m"
C=$TESTBED_OUT/compare
t0=$(date +%s)
timeout -k 5 300 "$REPO/tools/nvmeof-compare" $REAL --nsid 1 --hosts $A,$B --initiators engine-poll \
	--matrix "$WORK/one.m" --repeat 1 --runtime 2 --no-prefill --out "$C" >"$WORK/compare.out" 2>&1
rc=$?
if [ $rc != 0 ]; then
	bad "compare --hosts" "exit $rc"; sed 's/^/    | /' "$WORK/compare.out" | tail -25
elif ! why=$(python3 - "$C" "$A" "$B" <<'PY' 2>&1
import json, os, sys
out, hosts = sys.argv[1], sys.argv[2:]
rep = json.load(open(os.path.join(out, "report.json")))
def fail(m):
    print(m); sys.exit(1)
if rep.get("hosts") != hosts:
    fail("report.json hosts %r" % rep.get("hosts"))
cell = rep["cells"][0]
if cell["status"] != "ok":
    fail("cell status %s: %s" % (cell["status"], cell["note"]))
raw = open(os.path.join(out, cell["per_run"][0]["json"])).read()
# the client's stdout: the servers' text lines, then one JSON document starting a line
i = raw.index("\n{") + 1 if not raw.startswith("{") else 0
doc = json.JSONDecoder().raw_decode(raw, i)[0]
stats = doc["client_stats"]
def nums(j):
    d = [j.get(x) or {} for x in ("read", "write", "trim")]
    main = max(d, key=lambda x: x.get("total_ios", 0))
    pct = main["lat_ns"].get("percentile")      # fio 3.33's "All clients" has none
    return {"iops": sum(x.get("iops", 0) for x in d),
            "ios": sum(x.get("total_ios", 0) for x in d),
            "p99": pct["99.000000"] / 1000.0 if pct else None,
            "p50": pct["50.000000"] / 1000.0 if pct else None}
allc = [j for j in stats if j["jobname"] == "All clients"]
if len(allc) != 1:
    fail("%d 'All clients' entries" % len(allc))
want = {"all": nums(allc[0])}
for h in hosts:
    host, port = h.split(":")
    js = [j for j in stats if j["jobname"] != "All clients" and j["hostname"] == host and int(j["port"]) == int(port)]
    if len(js) != 1:
        fail("%s: %d job entries in the raw JSON" % (h, len(js)))
    want[h] = nums(js[0])
    if not want[h]["ios"]:
        fail("%s: no I/O" % h)
# a combined percentile fio left out is the worst host's (an upper bound), per the README
for k in ("p99", "p50"):
    if want["all"][k] is None:
        want["all"][k] = max(want[h][k] for h in hosts)
got = {"all": cell["median"]}
got.update(cell.get("hosts") or {})
def close(a, b):
    return a is not None and abs(a - b) <= 1e-6 * max(1.0, abs(b))
for k, w in want.items():
    g = got.get(k)
    if g is None:
        fail("report.json has no numbers for %s (has %s)" % (k, sorted(got)))
    for key, gk in (("iops", "iops"), ("p99", "lat_p99_us"), ("p50", "lat_p50_us")):
        if not close(g[gk], w[key]):
            fail("%s %s: report.json %r, raw JSON %r" % (k, gk, g[gk], w[key]))
    if g["cpu_us_per_io"] is not None:
        fail("%s: CPU us/IO %r, expected not measured" % (k, g["cpu_us_per_io"]))
if want["all"]["ios"] != want[hosts[0]]["ios"] + want[hosts[1]]["ios"]:
    fail("All clients I/Os %d != the hosts' %d + %d" % (want["all"]["ios"], want[hosts[0]]["ios"], want[hosts[1]]["ios"]))
md = open(os.path.join(out, "report.md")).read()
for h in hosts:
    if "engine-poll on %s |" % h not in md:
        fail("report.md: no row for %s" % h)
if "CPU us/IO is not measured" not in md:
    fail("report.md does not say CPU us/IO is not measured")
print("combined %.1f IOPS (%d I/Os) = %s; p99 %.1f us; per host and combined equal the raw JSON"
      % (want["all"]["iops"], want["all"]["ios"],
         " + ".join("%s %.1f" % (h, want[h]["iops"]) for h in hosts), want["all"]["p99"]))
PY
); then
	bad "compare --hosts" "$why"; sed 's/^/    | /' "$WORK/compare.out" | tail -15
else
	ok "compare --hosts $A,$B ($why; $(($(date +%s) - t0)) s)"
fi

# b. nvmeof-qualify
cat >"$WORK/gen.gates" <<'G'
iops randread qd8 >= 1
p99_lat_us randread qd8 <= 60000000
G
Q=$TESTBED_OUT/qualify
t0=$(date +%s)
timeout -k 5 400 "$REPO/tools/nvmeof-qualify" $REAL --destructive --hosts $A,$B --size 2M --qd 8 \
	--round-time 1 --runtime 1 --rounds-max 5 --workloads randread,verify --gates "$WORK/gen.gates" \
	--out "$Q" >"$WORK/qualify.out" 2>&1
rc=$?
if [ $rc != 0 ]; then
	bad "qualify --hosts" "exit $rc"; sed 's/^/    | /' "$WORK/qualify.out" | tail -25
elif ! why=$(python3 - "$Q" "$A" "$B" <<'PY' 2>&1
import json, os, sys
out, hosts = sys.argv[1], sys.argv[2:]
r = json.load(open(os.path.join(out, "report.json")))
def fail(m):
    print(m); sys.exit(1)
if r["verdict"] != "PASS" or r.get("hosts") != hosts:
    fail("verdict %s, hosts %r" % (r["verdict"], r.get("hosts")))
wl = r["workloads"]["randread qd8"]
if sorted(wl.get("hosts") or {}) != sorted(hosts):
    fail("randread qd8: per-host numbers for %r" % sorted(wl.get("hosts") or {}))
g = [x for x in r["gates"] if x["metric"] == "iops"][0]
if abs(g["measured"] - wl["metrics"]["iops"]) > 1e-6:
    fail("iops gate measured %r, workload's combined %r" % (g["measured"], wl["metrics"]["iops"]))
for run in r["runs"]:
    if sorted(run.get("hosts") or {}) != sorted(hosts):
        fail("run %s: per-host numbers for %r" % (run["name"], sorted(run.get("hosts") or {})))
    if run["name"] in ("precondition", "verify-write", "verify-read"):
        per = [h["io_bytes"] for h in run["hosts"].values()]
        # its half of 2 MiB: written twice (fill), once (verify-write); verify-read reads it and
        # fio's verify_only counts the same bytes as written too
        want = (1 << 20) if run["name"] == "verify-write" else 2 * (1 << 20)
        if per != [want, want]:
            fail("%s: bytes per host %r, expected %d each (its half of 2 MiB)" % (run["name"], per, want))
        for i, off in ((1, 0), (2, 1 << 20)):
            job = open(os.path.join(out, "fio", "%s.host%d.fio" % (run["name"], i))).read().split("\n")
            if "size=%d" % (1 << 20) not in job or "offset=%d" % off not in job:
                fail("%s.host%d.fio: not size=1 MiB at offset %d" % (run["name"], i, off))
md = open(os.path.join(out, "report.md")).read()
for h in hosts:
    if "randread qd8 on %s |" % h not in md:
        fail("report.md: no randread row for %s" % h)
print("PASS, %d rounds, combined %.0f IOPS, %s; fill and verify a half each"
      % (len(wl["rounds"]), wl["metrics"]["iops"],
         ", ".join("%s %.0f" % (h, m["iops"]) for h, m in wl["hosts"].items())))
PY
); then
	bad "qualify --hosts" "$why"; sed 's/^/    | /' "$WORK/qualify.out" | tail -15
else
	ok "qualify --hosts $A,$B ($why; $(($(date +%s) - t0)) s)"
fi
stop_servers
suite_end tools_hosts
