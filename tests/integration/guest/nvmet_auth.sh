#!/bin/bash
# DH-HMAC-CHAP against the kernel target (nvmet, CONFIG_NVME_TARGET_AUTH): a third subsystem that
# admits two hosts by key, on the testbed's RDMA and TCP ports. nvmet picks the hash and the
# group each host is configured with (configfs dhchap_hash, dhchap_dhgroup), read at every
# Connect, so each case sets them first. Every data job verifies; its start line must say what
# was negotiated; no key text may appear in any output.
. "$(dirname "$0")/lib.sh"
CFG=$NVMET_CFG
AUTH_NQN=nqn.2026-12.io.fio-nvmeof:testbed-auth
H1=nqn.2014-08.org.nvmexpress:uuid:0a0a0a0a-0000-4000-8000-00000000b001
H2=nqn.2014-08.org.nvmexpress:uuid:0a0a0a0a-0000-4000-8000-00000000b002
RDMA_PORT=$CFG/ports/1 TCP_PORT_DIR=$CFG/ports/10

echo "guest kernel $(uname -r)"

# ---- the subsystem: a 32 MiB file namespace, no host admitted but by key -----------------------
mkdir -p /run/auth-ns && mount -t tmpfs -o size=40M tmpfs /run/auth-ns &&
	truncate -s 32M /run/auth-ns/ns1 || { bad setup "cannot make the namespace file"; suite_end nvmet_auth; }
S=$CFG/subsystems/$AUTH_NQN
mkdir "$S" && echo 0 > "$S/attr_allow_any_host" && mkdir "$S/namespaces/1" &&
	echo -n /run/auth-ns/ns1 > "$S/namespaces/1/device_path" &&
	echo 1 > "$S/namespaces/1/buffered_io" && echo 1 > "$S/namespaces/1/enable" ||
	{ bad setup "cannot create $AUTH_NQN"; suite_end nvmet_auth; }
for h in "$H1" "$H2"; do mkdir -p "$CFG/hosts/$h"; done
if [ ! -e "$CFG/hosts/$H1/dhchap_key" ]; then
	echo "SKIP: the guest kernel $(uname -r) has no nvmet authentication (CONFIG_NVME_TARGET_AUTH: no dhchap_key in configfs)"
	exit 77
fi
ok "guest kernel $(uname -r): nvmet has dhchap_key, dhchap_ctrl_key, dhchap_hash, dhchap_dhgroup"

# keys as a user makes them: nvme gen-dhchap-key, transformed (01, 02) or not (00)
K1=$(nvme gen-dhchap-key --hmac=1 --nqn="$H1" | tr -d '\n')
K2=$(nvme gen-dhchap-key --hmac=2 --key-length=48 --nqn="$H2" | tr -d '\n')
C2=$(nvme gen-dhchap-key --hmac=0 --nqn="$AUTH_NQN" | tr -d '\n')
case $K1$K2$C2 in *DHHC-1:01:*DHHC-1:02:*DHHC-1:00:*) ok "keys (01, 02, 00) made by $(nvme version)";;
	*) bad keys "nvme gen-dhchap-key did not make DHHC-1 keys"; suite_end nvmet_auth;; esac
printf '%s\n' "$K1" > "$CFG/hosts/$H1/dhchap_key"
printf '%s\n' "$K2" > "$CFG/hosts/$H2/dhchap_key"
printf '%s\n' "$C2" > "$CFG/hosts/$H2/dhchap_ctrl_key"
for h in "$H1" "$H2"; do ln -s "$CFG/hosts/$h" "$S/allowed_hosts/$h"; done
ln -s "$S" "$RDMA_PORT/subsystems/$AUTH_NQN" && ln -s "$S" "$TCP_PORT_DIR/subsystems/$AUTH_NQN" ||
	{ bad setup "cannot link $AUTH_NQN to the ports"; suite_end nvmet_auth; }

A="--ioengine=external:$ENG --traddr=$TARGET_IP --subnqn=$AUTH_NQN"
AT="--ioengine=external:$ENG --transport=tcp --traddr=$TARGET_IP --trsvcid=$TARGET_TCP_PORT --subnqn=$AUTH_NQN"
V="--verify=crc32c --do_verify=1 --verify_fatal=1"
W="--rw=randwrite --bs=16k --size=2m --iodepth=8 $V"

# target HOST HASH GROUP: what nvmet will pick for HOST's next Connect
target() {
	echo "hmac($2)" > "$CFG/hosts/$1/dhchap_hash" && echo "$3" > "$CFG/hosts/$1/dhchap_dhgroup" ||
		bad "configfs" "cannot set $2/$3 for $1"
}

. "$(dirname "$0")/auth_lib.sh"

# refusal_tries NAME CHECK RE TRIES fio-args: nvmet 6.12 may answer a refusal, send its data and
# then end the connection, or just end it.  Each try (r*: RDMA, t*: TCP) runs CHECK (expect_fail
# or fail_case) for RE, must end within 6 s (no timeout waited for), and the orders are printed.
refusal_tries() {
	local name=$1 check=$2 re=$3 tries=$4 t X s0 ms orders=
	shift 4
	for t in $tries; do
		case $t in r*) X=$A;; *) X=$AT;; esac
		s0=$(date +%s%N)
		$check "$name-$t" "$re" $X "$@"
		ms=$(( ($(date +%s%N) - s0) / 1000000 ))
		[ $ms -lt 6000 ] || bad "$name-$t" "took $ms ms: the refusal waited for a timeout"
		if grep -q 'instead of answering' "$WORK/$name-$t.log"; then orders="$orders $t:disconnect"
		elif grep -q 'then it ended the connection' "$WORK/$name-$t.log"; then
			orders="$orders $t:data-then-disconnect"
		else orders="$orders $t:answer"; fi
	done
	ok "$name, each order the target took (answer, data then disconnect, disconnect):$orders"
}

# nvmet (6.12) uses the group configured for the host whatever else is offered, but refuses an
# offer that holds only that group when it is the null group ("DH group not usable": its
# selection loop looks for an offered group that differs from the configured one). The kernel
# initiator offers every group, and so does the engine by default: offer all here.
target "$H1" sha256 null
auth_case uni-sha256-null "DH-HMAC-CHAP sha256 null" $A --hostnqn=$H1 --dhchap_secret=$K1 \
	--dhchap_digests=sha256
# nvmet 6.12 ends the connection as it sends that Failure1 (as for a wrong key, below): the reason
# when its data landed first, else the refusal said as such; either at once, never a timeout.
refusal_tries null-only expect_fail "the controller refused the negotiation(: AUTH_Failure1: DH group not usable| \(it ended the connection instead of answering it)" \
	"r1 r2 t1" --hostnqn=$H1 --dhchap_secret=$K1 --dhchap_dhgroups=null --name=n $W
target "$H1" sha384 ffdhe2048
printf '# the host key\n%s\n' "$K1" > "$WORK/h1.secret"; chmod 600 "$WORK/h1.secret"
auth_case uni-sha384-ffdhe2048-file "DH-HMAC-CHAP sha384 ffdhe2048" $A --hostnqn=$H1 \
	--dhchap_secret_file=$WORK/h1.secret --dhchap_digests=sha384 --dhchap_dhgroups=ffdhe2048
target "$H2" sha512 ffdhe3072
auth_case bidi-sha512-ffdhe3072 "DH-HMAC-CHAP sha512 ffdhe3072 bidirectional" $A --hostnqn=$H2 \
	--dhchap_secret=$K2 --dhchap_ctrl_secret=$C2 --dhchap_digests=sha512 --dhchap_dhgroups=ffdhe3072
# two I/O queues over TCP: each authenticates; the engine offers everything, nvmet picks
target "$H2" sha256 ffdhe2048
auth_case tcp-bidi-sha256-ffdhe2048-2q "DH-HMAC-CHAP sha256 ffdhe2048 bidirectional" $AT \
	--hostnqn=$H2 --dhchap_secret=$K2 --dhchap_ctrl_secret=$C2 --io_queues=2 --thread=1

# every output fio makes, with the keys given inline: none shows them
secret_outputs outputs $AT --hostnqn=$H2 --dhchap_secret=$K2 --dhchap_ctrl_secret=$C2

# the kernel initiator with the same key against the same configuration: the baseline the
# engine's cases stand beside (it authenticates, its namespace appears, it disconnects)
target "$H1" sha256 ffdhe2048
if out=$(timeout 60 nvme connect -t tcp -a "$TARGET_IP" -s "$TARGET_TCP_PORT" -n "$AUTH_NQN" \
		--hostnqn="$H1" --dhchap-secret="$K1" 2>&1); then
	found=
	for i in $(seq 40); do
		grep -qs "$AUTH_NQN" /sys/class/nvme-subsystem/*/subsysnqn && found=1 && break; sleep 0.25
	done
	nvme disconnect -n "$AUTH_NQN" >/dev/null 2>&1
	[ -n "$found" ] && ok "kernel initiator: nvme connect --dhchap-secret with the same key authenticated" ||
		bad kernel-initiator "connected but no subsystem $AUTH_NQN appeared"
else
	bad kernel-initiator "nvme connect --dhchap-secret failed: $(printf '%s' "$out" | head -1)"
fi

# ---- refusals: one line naming what failed; no start line, so nothing moved -----------------
target "$H1" sha256 ffdhe2048
fail_case wrong-key "authentication to $AUTH_NQN failed on queue 0: DH-HMAC-CHAP: the controller refused the host's response" \
	$A --hostnqn=$H1 --dhchap_secret=$K2
# nvmet 6.12 tears the admin queue down as it answers with Failure1 (its log: "ctrl N fatal
# error occurred!"): the answer arrives, or its data without the response, or nothing before the
# disconnect. Every order is the controller's refusal, said at once: no wait for a timeout.
# Several tries on each transport, each bounded well below the 10 s a command may wait.
refusal_tries wrong-key fail_case "authentication to $AUTH_NQN failed on queue 0: DH-HMAC-CHAP: the controller refused the host's response" \
	"r1 r2 r3 r4 t1 t2" --hostnqn=$H1 --dhchap_secret=$K2
fail_case no-key "failed on queue 0: the controller requires DH-HMAC-CHAP authentication and no dhchap_secret" \
	$A --hostnqn=$H1
target "$H2" sha256 ffdhe2048
fail_case wrong-ctrl-key "failed on queue 0: DH-HMAC-CHAP: the controller failed bidirectional authentication" \
	$A --hostnqn=$H2 --dhchap_secret=$K2 --dhchap_ctrl_secret=$K1
# the kernel target logs each failed authentication (it is the host's doing): nothing worse
if dmesg | grep -qE 'BUG:|Oops|WARNING: CPU'; then bad dmesg "$(dmesg | grep -m1 -E 'BUG:|Oops|WARNING: CPU')"; else ok "dmesg: no BUG, Oops or WARNING"; fi

# ---- reconnect: the subsystem taken off the RDMA port mid-job and put back; the lane
# reconnects and authenticates its queues again
target "$H2" sha384 ffdhe2048
reconnect_start reconnect $A --hostnqn=$H2 --dhchap_secret=$K2 --dhchap_ctrl_secret=$C2 \
	--ctrl_loss_tmo=60000
sleep 2
rm "$RDMA_PORT/subsystems/$AUTH_NQN"
sleep 3
ln -s "$S" "$RDMA_PORT/subsystems/$AUTH_NQN"
wait $PID
reconnect_verdict reconnect $?
suite_end nvmet_auth
