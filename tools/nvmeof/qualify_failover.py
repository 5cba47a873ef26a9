"""The failover workload of tools/nvmeof-qualify: the paths, the fault, and the numbers.

A verified mixed job runs over every path while a fault command runs at a set time (and a
restore command later).  Measured the same way for the engine and the kernel initiator, from
fio's per-I/O completion log (write_lat_log with log_avg_msec=0 and log_unix_epoch=1, so each
line's time is the wall clock in ms of one completion):

  failover_ms   the longest time without a completion from the fault on: over consecutive
                completions a, b with b >= fault, max(b - max(a, fault)); None when no I/O
                completed after the fault
  timeline      completions counted in 100 ms bins from fio's start, as IOPS

fio's log_avg_msec is one setting for all of a job's logs: averaged over 100 ms the completion
log would lose the per-I/O times failover_ms needs, so the 100 ms IOPS timeline is counted from
the same per-I/O log (what write_iops_log with log_avg_msec=100 reports) rather than from a
second run.  The engine also writes mp_stats (one JSON object per job): recovery_ms (the
declared loss to the first completion on another path) and the I/Os moved come from it."""
import json
import os
import re
from array import array

BIN_MS = 100
TESTBED_PORT2 = "4421"
NVMET = "/sys/kernel/config/nvmet"
POLICIES = ("numa", "round-robin", "queue-depth")
FAULTS = ("port", "ana", "link")


def parse_paths(traddr, default_port):
    """--traddr's comma list -> [(addr, port)]: ADDR, ADDR:PORT, [V6ADDR]:PORT, V6ADDR (a path
    without a port takes DEFAULT_PORT).  ValueError says what is wrong."""
    out = []
    for i, p in enumerate((traddr or "").split(","), 1):
        p = p.strip()
        if not p:
            raise ValueError("path %d is empty" % i)
        m = re.fullmatch(r"\[([^\]]+)\](?::([0-9]+))?", p)
        if m:
            addr, port = m.group(1), m.group(2) or default_port
        elif p.count(":") == 1:
            addr, port = p.split(":")
        else:
            addr, port = p, default_port
        if not addr or not re.fullmatch(r"[0-9]+", str(port)) or not 0 < int(port) < 65536:
            raise ValueError("path %d %r: want ADDR[:PORT] with a port 1-65535" % (i, p))
        if (addr, str(port)) in out:
            raise ValueError("path %s:%s given twice" % (addr, port))
        out.append((addr, str(port)))
    return out


def path_name(p):
    return ("[%s]:%s" if ":" in p[0] else "%s:%s") % p


# ------------------------------------------------------------------ the numbers
def completion_times(path):
    """The times (ms) of every entry of a fio log, sorted (one job's log is in completion order
    already; sorted anyway).  An array of int64: a fast target's log has millions of lines."""
    t = array("q")
    last, ordered = None, True
    with open(path, errors="replace") as f:
        for line in f:
            head = line.split(",", 1)[0].strip()
            if not head:
                continue
            v = int(head)
            if last is not None and v < last:
                ordered = False
            t.append(v)
            last = v
    if not ordered:
        t = array("q", sorted(t))
    return t


def longest_gap(times, fault_ms):
    """failover_ms: (gap_ms, gap_start_ms, gap_end_ms) of the longest time without a
    completion from FAULT_MS on, or (None, None, None) when nothing completed after it."""
    best = (None, None, None)
    prev = None
    for b in times:
        if b >= fault_ms:
            start = fault_ms if prev is None or prev < fault_ms else prev
            if best[0] is None or b - start > best[0]:
                best = (b - start, start, b)
        prev = b
    return best


def timeline(times, t0_ms, bin_ms=BIN_MS):
    """[(seconds from T0_MS at the bin's start, IOPS in the bin)] from T0_MS to the last
    completion; completions before T0_MS are left out."""
    if not times:
        return []
    n = max(0, (times[-1] - t0_ms) // bin_ms + 1)
    counts = [0] * n
    for t in times:
        if t >= t0_ms:
            counts[(t - t0_ms) // bin_ms] += 1
    return [(i * bin_ms / 1000.0, c * 1000.0 / bin_ms) for i, c in enumerate(counts)]


def mp_summary(path):
    """The engine's mp_stats record (the last line of PATH): failovers, ios_moved, recovery_ms
    (the longest of the recovered failovers; None without one), events, paths."""
    recs = []
    with open(path) as f:
        for line in f:
            if line.strip():
                recs.append(json.loads(line))
    if not recs:
        raise ValueError("%s: no mp_stats record" % path)
    r = recs[-1]
    rec = [e["recovery_ms"] for e in r.get("events", []) if e.get("recovered")]
    return {"policy": r.get("policy"), "failovers": r.get("failovers", 0), "ios_moved": r.get("ios_moved", 0),
            "recovery_ms": max(rec) if rec else None, "events": r.get("events", []),
            "paths": r.get("paths", [])}


# ------------------------------------------------------------------ the testbed's own fault
def sh_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def testbed_port_attrs(port_dir):
    attrs = {}
    for k in ("addr_trtype", "addr_adrfam", "addr_traddr", "addr_trsvcid"):
        with open(os.path.join(port_dir, k)) as f:
            attrs[k] = f.read().strip()
    return attrs


def testbed_port_cmds(port_id, attrs, nqns, cfg=NVMET):
    """(up, down) shell commands that create nvmet port PORT_ID with ATTRS and NQNS linked,
    and that remove it again (the links, then the port: nvmet-rdma stops listening and
    disconnects every controller on it)."""
    p = "%s/ports/%s" % (cfg, port_id)
    up = ["mkdir %s" % sh_quote(p)]
    up += ["echo %s > %s" % (sh_quote(v), sh_quote(p + "/" + k)) for k, v in attrs.items()]
    up += ["ln -s %s %s" % (sh_quote("%s/subsystems/%s" % (cfg, n)), sh_quote("%s/subsystems/%s" % (p, n)))
           for n in nqns]
    down = ["rm %s" % sh_quote("%s/subsystems/%s" % (p, n)) for n in nqns] + ["rmdir %s" % sh_quote(p)]
    return " && ".join(up), " && ".join(down)


# The testbed's link fault: a Soft-RoCE device whose link went down under live queue pairs takes
# no new connection afterwards, and deleting it blocks while anything still holds it (a kernel
# controller reconnecting to it, the target's queues): each link run gets a device of its own
# on a fresh dummy netdev and address, and leaves it behind in the throwaway guest.
LINK_CTRL_LOSS_TMO = 5     # s: the dead path is given up (kernel: its controller deleted) soon


def free_link_slot(cfg=NVMET, net="/sys/class/net"):
    """(n, port_id): the first tbfoN netdev name not in use (N from 1) and an nvmet port ID not
    in use (from 2): one per link run."""
    n = 1
    while os.path.exists(os.path.join(net, "tbfo%d" % n)):
        n += 1
    used = {int(x) for x in os.listdir(os.path.join(cfg, "ports")) if x.isdigit()}
    port = 2
    while port in used:
        port += 1
    return n, port


def testbed_setup(subnqn, fault, cfg=NVMET, net="/sys/class/net"):
    """The testbed's second path and its fault.  Returns a dict: port2_up, port2_down (shell
    commands that create and remove the second path's port, SUBNQN only), fault_cmd,
    restore_cmd, what (one line), paths (the first is the one the fault breaks), host_traddr
    (each path's local address, or None) and ctrl_loss_tmo (seconds, or None: the default).
    FAULT port: port 2 on port 1's address, 4421; port 1 removed, then re-created as it is now
    (every subsystem it has).  ana: the same ports; port 1's ANA group 1 made inaccessible,
    then optimized again.  link: a new dummy netdev tbfoN at 10.99.(10+N).1 with Soft-RoCE
    device rxefoN and an nvmet port on it, first in the path list; its link set down and left
    down (restore_cmd None); removed only as far as it goes at once (the port's subsystem link,
    in the background)."""
    p1 = "%s/ports/1" % cfg
    attrs = testbed_port_attrs(p1)
    nqns = sorted(os.listdir(p1 + "/subsystems"))
    path1 = (attrs["addr_traddr"], attrs["addr_trsvcid"])
    if fault == "link":
        n, port = free_link_slot(cfg, net)
        nd, dev, ip = "tbfo%d" % n, "rxefo%d" % n, "10.99.%d.1" % (10 + n)
        a2 = dict(attrs, addr_traddr=ip)
        up2, _ = testbed_port_cmds(port, a2, [subnqn], cfg)
        up2 = " && ".join(["ip link add %s type dummy" % nd, "ip addr add %s/24 dev %s" % (ip, nd),
                           "ip link set %s up" % nd, "rdma link add %s type rxe netdev %s" % (dev, nd),
                           "sleep 1", up2])
        down2 = "(rm %s) >/dev/null 2>&1 &" % sh_quote("%s/ports/%d/subsystems/%s" % (cfg, port, subnqn))
        # left down: after a flap Soft-RoCE would not take the path back anyway, and a kernel
        # reconnect attempt to the flapped device hangs in the CM for minutes (and with it any
        # nvme disconnect), where one to a device that is down fails at once
        fault_cmd, restore = "ip link set %s down" % nd, None
        what = "the link of %s (Soft-RoCE %s, %s:%s) set down for good" % (nd, dev, ip, attrs["addr_trsvcid"])
        return {"port2_up": up2, "port2_down": down2, "fault_cmd": fault_cmd, "restore_cmd": restore,
                "what": what, "paths": [(ip, attrs["addr_trsvcid"]), path1],
                "host_traddr": [ip, attrs["addr_traddr"]], "ctrl_loss_tmo": LINK_CTRL_LOSS_TMO}
    a2 = dict(attrs, addr_trsvcid=TESTBED_PORT2)
    up2, down2 = testbed_port_cmds(2, a2, [subnqn], cfg)
    if fault == "port":
        restore, fault_cmd = testbed_port_cmds(1, attrs, nqns, cfg)
        what = "nvmet port 1 (%s:%s) removed, then re-created" % path1
    else:
        st = sh_quote(p1 + "/ana_groups/1/ana_state")
        fault_cmd, restore = "echo inaccessible > %s" % st, "echo optimized > %s" % st
        what = "nvmet port 1 (%s:%s) ANA group 1 inaccessible, then optimized" % path1
    return {"port2_up": up2, "port2_down": down2, "fault_cmd": fault_cmd, "restore_cmd": restore,
            "what": what, "paths": [path1, (attrs["addr_traddr"], TESTBED_PORT2)], "host_traddr": None,
            "ctrl_loss_tmo": None}


# ------------------------------------------------------------------ the plot
def plot_script(title, fault_s, restore_s):
    lines = ["set title \"%s\"" % title.replace('"', "'"), "set xlabel 'seconds since fio started'",
             "set ylabel 'IOPS (100 ms bins)'", "set grid", "set key below horizontal", "set yrange [0:*]"]
    if fault_s is not None:
        lines.append("set arrow from %.3f, graph 0 to %.3f, graph 1 nohead lw 2 lc rgb '#c0392b'" % (fault_s, fault_s))
        lines.append("set label 'fault' at %.3f, graph 0.95 offset 0.5,0 tc rgb '#c0392b'" % fault_s)
    if restore_s is not None:
        lines.append("set arrow from %.3f, graph 0 to %.3f, graph 1 nohead lw 2 dt 2 lc rgb '#1f5fbf'"
                     % (restore_s, restore_s))
        lines.append("set label 'restore' at %.3f, graph 0.88 offset 0.5,0 tc rgb '#1f5fbf'" % restore_s)
    lines.append("plot '{iops}' using 1:2 with steps lw 1 lc rgb 'black' title 'IOPS'")
    return "\n".join(lines)
