#!/bin/bash
# DH-HMAC-CHAP against SPDK's nvmf_tgt (testbed --spdk; the keys and hosts: tests/testbed/bin/
# spdk-target). Every data job verifies; each start line must say what was negotiated.
. "$(dirname "$0")/lib.sh"
AUTH_NQN=${SPDK_AUTH_NQN:-nqn.2016-06.io.spdk:cnode-auth}
H1=${SPDK_AUTH_HOST1:-nqn.2014-08.org.nvmexpress:uuid:0a0a0a0a-0000-4000-8000-00000000a001}
H2=${SPDK_AUTH_HOST2:-nqn.2014-08.org.nvmexpress:uuid:0a0a0a0a-0000-4000-8000-00000000a002}
KEYS=/run/spdk-target/auth
K1=$(cat "$KEYS/host1.key") K2=$(cat "$KEYS/host2.key") C2=$(cat "$KEYS/ctrl2.key")
A="--ioengine=external:$ENG --traddr=$TARGET_IP --trsvcid=$SPDK_PORT --subnqn=$AUTH_NQN"
AT="--ioengine=external:$ENG --transport=tcp --traddr=$TARGET_IP --trsvcid=$SPDK_TCP_PORT --subnqn=$AUTH_NQN"
V="--verify=crc32c --do_verify=1 --verify_fatal=1"
W="--rw=randwrite --bs=16k --size=2m --iodepth=8 $V"
case $K1$K2$C2 in *DHHC-1:01:*DHHC-1:02:*DHHC-1:00:*) ok "keys (01, 02, 00) made by $(cat "$KEYS/made-by")";;
	*) bad keys "not the DHHC-1 keys spdk-target makes: $(ls -l $KEYS)"; suite_end engine_auth;; esac

# the configuration with cnode-auth (keyring, hosts) starts clean: spdk_interop fails on any
# *ERROR* or *WARNING* in nvmf_tgt's log it does not know (the same known ones excluded here)
startup=$(spdk-target logs | grep -E '\*(ERROR|WARNING)\*' |
	grep -vE 'In capsule data size is set to 256, this is minimum size required to support msdbd=16' |
	grep -vE 'initiator from the Linux kernel between versions 5.4 and 5.12 data corruption may occur' |
	grep -vE 'RDMA is configured to support up to 16 SGL entries while in capsule data is greater than 4KiB' || true)
[ -z "$startup" ] && ok "nvmf_tgt's start logged no error or warning" ||
	bad spdk-startup "$(printf '%s' "$startup" | head -3)"

. "$(dirname "$0")/auth_lib.sh"

auth_case uni-sha256-null "DH-HMAC-CHAP sha256 null" $A --hostnqn=$H1 --dhchap_secret=$K1 \
	--dhchap_digests=sha256 --dhchap_dhgroups=null
printf '# the host key\n%s\n' "$K1" > "$WORK/h1.secret"; chmod 600 "$WORK/h1.secret"
auth_case uni-sha384-ffdhe2048-file "DH-HMAC-CHAP sha384 ffdhe2048" $A --hostnqn=$H1 \
	--dhchap_secret_file=$WORK/h1.secret --dhchap_digests=sha384 --dhchap_dhgroups=ffdhe2048
auth_case bidi-sha512-ffdhe3072 "DH-HMAC-CHAP sha512 ffdhe3072 bidirectional" $A --hostnqn=$H2 \
	--dhchap_secret=$K2 --dhchap_ctrl_secret=$C2 --dhchap_digests=sha512 --dhchap_dhgroups=ffdhe3072
# two I/O queues over TCP: each authenticates
auth_case tcp-bidi-sha256-ffdhe2048-2q "DH-HMAC-CHAP sha256 ffdhe2048 bidirectional" $AT \
	--hostnqn=$H2 --dhchap_secret=$K2 --dhchap_ctrl_secret=$C2 --dhchap_digests=sha256 \
	--dhchap_dhgroups=ffdhe2048 --io_queues=2 --thread=1

# ---- refusals: one line naming what failed; no start line, so nothing moved -----------------
fail_case wrong-key "authentication to $AUTH_NQN failed on queue 0: DH-HMAC-CHAP: the controller refused the host's response \(AUTH_Failure1: authentication failed\)" \
	$A --hostnqn=$H1 --dhchap_secret=$K2
fail_case no-key "failed on queue 0: the controller requires DH-HMAC-CHAP authentication and no dhchap_secret" \
	$A --hostnqn=$H1
fail_case wrong-ctrl-key "failed on queue 0: DH-HMAC-CHAP: the controller failed bidirectional authentication" \
	$A --hostnqn=$H2 --dhchap_secret=$K2 --dhchap_ctrl_secret=$K1

# ---- reconnect: nvmf_tgt killed and started again mid-job; the lane authenticates again --------
reconnect_start reconnect $A --hostnqn=$H2 --dhchap_secret=$K2 --dhchap_ctrl_secret=$C2 \
	--dhchap_digests=sha384 --dhchap_dhgroups=ffdhe2048 --ctrl_loss_tmo=90000
spdk-target kill
sleep 1
spdk-target start >/dev/null 2>&1 || bad "restart mid-job" "$(spdk-target logs | tail -5)"
wait $PID
reconnect_verdict reconnect $?
# SPDK's log: every failure above is the host's doing, named there too; no crash
if spdk-target logs | grep -qiE 'segmentation|assert'; then bad spdk-log "crash text in nvmf_tgt's log"; else ok "spdk-log: no crash text"; fi
suite_end engine_auth
