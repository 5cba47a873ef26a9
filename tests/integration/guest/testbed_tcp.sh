#!/bin/bash
# The testbed's NVMe/TCP listeners, proved with initiators other than the engine (run by
# tests/integration/testbed_tcp.sh): the kernel target's TCP port ($TARGET_TCP_PORT, beside its
# RDMA port on the same address) and, with --spdk, SPDK's ($SPDK_TCP_PORT).  For each target:
# the kernel initiator (nvme connect -t tcp) with fio libaio verify on its block device, then
# disconnect; SPDK's fio plugin (trtype=TCP) writing, then verifying.  SPDK's log is checked
# for warnings.
. "$(dirname "$0")/lib.sh"
V="--verify=crc32c --do_verify=1 --verify_fatal=1"
if [ -s /etc/nvme/hostnqn ]; then HOSTNQN=$(cat /etc/nvme/hostnqn)
else HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:$(cat /proc/sys/kernel/random/uuid); fi

# ---- the kernel target's TCP port, as configfs and the socket table have it ----------------
tcp_port_dir=""
for p in "$NVMET_CFG"/ports/*; do
	[ "$(cat "$p/addr_trtype")" = tcp ] && [ "$(cat "$p/addr_trsvcid")" = "$TARGET_TCP_PORT" ] &&
		[ "$(cat "$p/addr_traddr")" = "$TARGET_IP" ] && tcp_port_dir=$p
done
if [ -z "${TARGET_TCP_PORT:-}" ] || [ -z "$tcp_port_dir" ]; then
	bad kernel-tcp-port "no nvmet tcp port at $TARGET_IP:${TARGET_TCP_PORT:-<TARGET_TCP_PORT unset>}"
elif [ "$(ls "$tcp_port_dir/subsystems" | sort | tr '\n' ' ')" != "$(printf '%s\n' "$NQN" "$NQN2" | sort | tr '\n' ' ')" ]; then
	bad kernel-tcp-port "port ${tcp_port_dir##*/} links $(ls "$tcp_port_dir/subsystems" | tr '\n' ' '), want $NQN $NQN2"
elif ! grep -q "$(printf ':%04X 00000000:0000 0A' "$TARGET_TCP_PORT")" /proc/net/tcp; then
	bad kernel-tcp-port "nothing listens on tcp port $TARGET_TCP_PORT"
else
	ok "kernel-tcp-port: nvmet port ${tcp_port_dir##*/} tcp $TARGET_IP:$TARGET_TCP_PORT with $NQN and $NQN2, listening"
fi

# tcp_ns NQN NSID: the kernel initiator's /dev/nvmeXnY of NSID of NQN (kernel_tcp asserts that
# its controller is a TCP one)
tcp_ns() {
	local d
	for d in /sys/block/nvme*n*; do
		[ -e "$d" ] || continue
		case ${d##*/} in nvme*c*n*) continue;; esac    # multipath path devices
		[ "$(cat "$d/nsid" 2>/dev/null)" = "$2" ] && [ "$(cat "$d/device/subsysnqn" 2>/dev/null)" = "$1" ] ||
			continue
		echo "/dev/${d##*/}"; return 0
	done
	return 1
}

# kernel_tcp NAME PORT NQN: nvme connect -t tcp, a verified libaio job on ns 1 (its LBA 4096
# asserted, the controller's transport asserted tcp), nvme disconnect, the device gone
kernel_tcp() {
	local name=$1 port=$2 nqn=$3 dev="" i ctrl out
	if ! out=$(timeout 60 nvme connect -t tcp -a "$TARGET_IP" -s "$port" -n "$nqn" --hostnqn="$HOSTNQN" 2>&1); then
		bad "$name" "nvme connect -t tcp -a $TARGET_IP -s $port -n $nqn: $out"; return
	fi
	for i in $(seq 100); do dev=$(tcp_ns "$nqn" 1) && break; sleep 0.1; done
	if [ -z "$dev" ]; then
		bad "$name" "connected, but no namespace 1 of $nqn in /sys/block"
	else
		ctrl=$(cat "/sys/block/${dev#/dev/}/device/transport" 2>/dev/null)
		[ -z "$ctrl" ] && ctrl=$(cat /sys/block/"${dev#/dev/}"/device/*/transport 2>/dev/null | head -1)
		if [ "$ctrl" != tcp ]; then
			bad "$name" "$dev's controller transport is '$ctrl', want tcp"
		elif [ "$(cat "/sys/block/${dev#/dev/}/queue/logical_block_size")" != 4096 ]; then
			bad "$name" "$dev: LBA $(cat "/sys/block/${dev#/dev/}/queue/logical_block_size"), want 4096"
		else
			run_fio "$name" rw --name=k --filename="$dev" --ioengine=libaio --direct=1 \
				--rw=randwrite --bssplit=4k/50:128k/50 --size=16m --iodepth=16 $V
		fi
	fi
	if ! out=$(timeout 60 nvme disconnect -n "$nqn" 2>&1); then
		bad "$name-disconnect" "nvme disconnect -n $nqn: $out"
	elif [ -n "$dev" ] && [ -e "$dev" ] && sleep 1 && [ -e "$dev" ]; then
		bad "$name-disconnect" "$dev still there after nvme disconnect"
	else
		ok "$name-disconnect: $out"
	fi
}

modprobe nvme-tcp
kernel_tcp kernel-initiator-kernel-target "$TARGET_TCP_PORT" "$NQN"

if [ -z "${SPDK_BUILD:-}" ]; then
	echo "SKIP SPDK's TCP listener and fio plugin: no SPDK in this testbed (testbed.sh --spdk)"
	echo "testbed_tcp: $pass passed, $fail failed"
	[ $fail = 0 ] && exit 77
	exit 1
fi
if grep -q "NVMe/TCP Target Listening on $TARGET_IP port $SPDK_TCP_PORT" "$(spdk-target log)"; then
	ok "spdk-tcp-listener: nvmf_tgt listens for NVMe/TCP on $TARGET_IP:$SPDK_TCP_PORT"
else
	bad spdk-tcp-listener "no 'NVMe/TCP Target Listening on $TARGET_IP port $SPDK_TCP_PORT' in $(spdk-target log)"
fi
kernel_tcp kernel-initiator-spdk-target "$SPDK_TCP_PORT" "$SPDK_NQN"

# ---- SPDK's fio plugin over TCP, on both targets ---------------------------------------------
# Written by one fio, read back and verified by a second (a read-only job with verify= checks
# every block it reads).  Not one fio's write-then-verify: the plugin frees its queue before a
# verify pass (verify_only too) and connects qid 1 again at once, which nvmet-tcp, releasing
# the old queue in the background, refused in 5 tries of 6 here.  Each fio opens its file once,
# on a controller of its own, so that race does not arise (plugin_fio still retries it).
tcp_trid() { printf 'trtype=TCP adrfam=IPv4 traddr=%s trsvcid=%s subnqn=%s ns=1' "$TARGET_IP" "$1" "$(esc "$2")"; }
plugin_tcp() {   # plugin_tcp NAME PORT NQN
	local job=(--ioengine=spdk --thread=1 --filename="$(tcp_trid "$2" "$3")" --name=p --bs=64k
		--size=16m --iodepth=16 --verify=crc32c)
	plugin_fio "$1-write" w "${job[@]}" --rw=write --do_verify=0
	plugin_fio "$1-verify" r "${job[@]}" --rw=read --verify_fatal=1
}
plugin_tcp plugin-tcp-kernel-target "$TARGET_TCP_PORT" "$NQN"
plugin_tcp plugin-tcp-spdk-target "$SPDK_TCP_PORT" "$SPDK_NQN"

# ---- SPDK's own log: warnings and errors from these runs fail the suite ----------------------
spdk-target logs > "$WORK/spdk.log"
unexpected=$(grep -E '\*(ERROR|WARNING)\*' "$WORK/spdk.log" || true)
if [ -z "$unexpected" ]; then
	ok "SPDK's log: no warning or error line"
else
	bad "SPDK's log: warnings or errors" "$(echo "$unexpected" | sort | uniq -c | sort -rn | head -10)"
fi
suite_end testbed_tcp
