#!/bin/bash
# tools/nvmeof-discover against the kernel target's discovery service, inside the testbed (run
# by tests/integration/tools_discover.sh).  nvmet serves $NQN and $NQN2 on port 1
# ($TARGET_IP:$TARGET_PORT) and answers discovery on every port it has, listing that port's
# subsystems and referrals:
#   a. port 1: both subsystems, rdma/ipv4 at $TARGET_IP:$TARGET_PORT (and the discovery
#      subsystem itself where the kernel lists it), in JSON (python3 parses it) and in the normal
#      output;
#   b. the same entries as the kernel initiator's `nvme discover` (where nvme-cli is there);
#   c. a port 2 (4421) with $NQN alone: discovery there lists $NQN at 4421 and not $NQN2;
#   d. a port 3 on 8009 with $NQN2: ADDR without a port asks 8009;
#   e. a referral from port 1 to port 2 is followed once: port 2's entries appended, marked as
#      from the referral; port 2's own referral back to port 1 is listed, not followed;
#   f. an address with no target (a port nobody listens on): exit 1, one line naming it.
. "$(dirname "$0")/lib.sh"
D=$REPO/tools/nvmeof-discover
DISC_NQN=nqn.2014-08.org.nvmexpress.discovery
if [ -s /etc/nvme/hostnqn ]; then HOSTNQN=$(cat /etc/nvme/hostnqn)
else HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:$(cat /proc/sys/kernel/random/uuid); fi
[ -x "$REPO/build/nvmeof-discover" ] || { bad build "build/nvmeof-discover is not built"; suite_end tools_discover; }

# disc NAME ARGS...: the tool's JSON into $WORK/NAME.json (stderr in NAME.err); 0 when it
# exited 0 and python3 parses what it printed
disc() {
	local name=$1 rc
	shift
	timeout -k 5 60 "$D" --hostnqn="$HOSTNQN" --output-format=json "$@" >"$WORK/$name.json" 2>"$WORK/$name.err"
	rc=$?
	if [ $rc != 0 ]; then bad "$name" "exit $rc: $(head -3 "$WORK/$name.err")"; return 1; fi
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$WORK/$name.json" 2>"$WORK/$name.pyerr" ||
		{ bad "$name" "not JSON: $(tail -1 "$WORK/$name.pyerr")"; return 1; }
}

# want NAME FILE PYTHON-EXPR: the expression, over r (the records) and d (the whole JSON),
# must hold; prints the records when it does not
want() {
	local name=$1 file=$2 expr=$3 why
	if why=$(python3 - "$file" "$expr" <<'PY' 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
r = d["records"]
def subs(port=None, ref=None):
    """the NVMe subsystem entries: (subnqn, traddr, trsvcid) sorted"""
    return sorted((x["subnqn"], x["traddr"], x["trsvcid"]) for x in r
                  if x["subtype"] == "nvme subsystem" and (ref is None or x["from_referral"] == ref))
ok = eval(sys.argv[2])
if not ok:
    print("does not hold: %s; records: %s" % (sys.argv[2],
          [(x["subtype"], x["subnqn"], x["traddr"], x["trsvcid"], x["from_referral"]) for x in r]))
    sys.exit(1)
PY
	); then ok "$name"; else bad "$name" "$why"; fi
}

P1=$NVMET_CFG/ports/1 P2=$NVMET_CFG/ports/2 P3=$NVMET_CFG/ports/3
IP=$TARGET_IP PT=$TARGET_PORT

# a. port 1
if disc port1 "$IP:$PT"; then
	want port1-subsystems "$WORK/port1.json" \
		"subs() == sorted([('$NQN', '$IP', '$PT'), ('$NQN2', '$IP', '$PT')])"
	want port1-rdma-ipv4 "$WORK/port1.json" \
		"all(x['trtype'] == 'rdma' and x['adrfam'] == 'ipv4' and x['rdma_cms'] == 'rdma-cm' for x in r)"
	want port1-only-known-subtypes "$WORK/port1.json" \
		"all(x['subtype'] == 'nvme subsystem' or (x['subtype'] == 'current discovery subsystem' and x['traddr'] == '$IP' and x['trsvcid'] == '$PT') for x in r) and d['numrec'] == len(r) and all(x['from_referral'] == -1 for x in r)"
fi
out=$(timeout -k 5 60 "$D" --hostnqn="$HOSTNQN" "$IP:$PT" 2>&1); rc=$?
if [ $rc = 0 ] && printf '%s\n' "$out" | grep -q '^Discovery Log Number of Records [0-9]*, Generation counter [0-9]*$' &&
	printf '%s\n' "$out" | grep -qx "subnqn:  $NQN2" && printf '%s\n' "$out" | grep -qx "traddr:  $IP" &&
	printf '%s\n' "$out" | grep -qx "trsvcid: $PT"; then ok "port1-normal-output"
else bad port1-normal-output "exit $rc: $(printf '%s\n' "$out" | head -12)"; fi

# b. beside the kernel initiator's nvme discover (same host NQN, same port)
if command -v nvme >/dev/null && modprobe nvme-rdma 2>/dev/null; then
	if timeout -k 5 60 nvme discover -t rdma -a "$IP" -s "$PT" --hostnqn="$HOSTNQN" -o json \
		>"$WORK/nvme-cli.json" 2>"$WORK/nvme-cli.err"; then
		if why=$(python3 - "$WORK/port1.json" "$WORK/nvme-cli.json" <<'PY' 2>&1
import json, sys
ours = json.load(open(sys.argv[1]))["records"]
theirs = json.load(open(sys.argv[2]))["records"]
keys = ("trtype", "adrfam", "subtype", "portid", "trsvcid", "subnqn", "traddr")
def norm(recs):
    return sorted(tuple(str(x.get(k, "")).strip() for k in keys) for x in recs)
if norm(ours) != norm(theirs):
    print("ours %s != nvme-cli's %s" % (norm(ours), norm(theirs)))
    sys.exit(1)
print("%d entries" % len(ours))
PY
		); then ok "same-as-nvme-cli ($why)"; else bad same-as-nvme-cli "$why"; fi
	else
		bad same-as-nvme-cli "nvme discover failed: $(head -3 "$WORK/nvme-cli.err")"
	fi
else
	echo "SKIP same-as-nvme-cli: no nvme-cli or nvme-rdma in this guest"
fi

# c. a second port with $NQN alone
mkdir "$P2" && echo rdma >"$P2/addr_trtype" && echo ipv4 >"$P2/addr_adrfam" &&
	echo "$IP" >"$P2/addr_traddr" && echo 4421 >"$P2/addr_trsvcid" &&
	ln -s "$NVMET_CFG/subsystems/$NQN" "$P2/subsystems/$NQN" || bad port2-setup "configfs refused port 2"
sleep 1
if disc port2 "$IP:4421"; then
	want port2-nqn-only "$WORK/port2.json" "subs() == [('$NQN', '$IP', '4421')]"
fi

# d. the default port: a port 3 on 8009 with $NQN2, discovered with ADDR alone
mkdir "$P3" && echo rdma >"$P3/addr_trtype" && echo ipv4 >"$P3/addr_adrfam" &&
	echo "$IP" >"$P3/addr_traddr" && echo 8009 >"$P3/addr_trsvcid" &&
	ln -s "$NVMET_CFG/subsystems/$NQN2" "$P3/subsystems/$NQN2" || bad port3-setup "configfs refused port 3 (8009)"
sleep 1
if disc port8009 "$IP"; then
	want default-port-8009 "$WORK/port8009.json" "subs() == [('$NQN2', '$IP', '8009')]"
fi

# e. referrals: port 1 -> port 2 (followed), port 2 -> port 1 (listed in port 2's log only)
mkref() {   # PORTDIR NAME TRSVCID PORTID
	local r=$1/referrals/$2
	mkdir "$r" && echo rdma >"$r/addr_trtype" && echo ipv4 >"$r/addr_adrfam" &&
		echo "$IP" >"$r/addr_traddr" && echo "$3" >"$r/addr_trsvcid" && echo "$4" >"$r/addr_portid" &&
		echo 1 >"$r/enable"
}
mkref "$P1" to-port2 4421 2 || bad referral-setup "configfs refused the referral on port 1"
mkref "$P2" to-port1 "$PT" 1 || bad referral-setup "configfs refused the referral on port 2"
sleep 1
if disc referral "$IP:$PT"; then
	# the referral entry's index + 1 marks what came through it
	want referral-listed "$WORK/referral.json" \
		"[(x['subnqn'], x['traddr'], x['trsvcid']) for x in r if x['subtype'] == 'discovery subsystem referral' and x['from_referral'] == -1] == [('$DISC_NQN', '$IP', '4421')]"
	want referral-followed "$WORK/referral.json" \
		"subs(ref=-1) == sorted([('$NQN', '$IP', '$PT'), ('$NQN2', '$IP', '$PT')]) and subs(ref=[i for i, x in enumerate(r) if x['subtype'] == 'discovery subsystem referral'][0]) == [('$NQN', '$IP', '4421')]"
	want referral-once "$WORK/referral.json" \
		"[x['trsvcid'] for x in r if x['subtype'] == 'discovery subsystem referral' and x['from_referral'] >= 0] == ['$PT'] and len(subs()) == 3"
fi
# (the referral is gone again: no other case sees it)
rmdir "$P1/referrals/to-port2" "$P2/referrals/to-port1" 2>/dev/null

# f. no target at that address
out=$(timeout -k 5 60 "$D" --hostnqn="$HOSTNQN" "$IP:4999" 2>&1 >/dev/null); rc=$?
if [ $rc = 1 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] &&
	printf '%s\n' "$out" | grep -q "^nvmeof-discover: discovery at $IP:4999: "; then ok "no-target: $out"
else bad no-target "exit $rc (want 1 and one line): $out"; fi

suite_end tools_discover
