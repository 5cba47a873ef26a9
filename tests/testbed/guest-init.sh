#!/bin/bash
# guest-init.sh - PID 1 of the testbed guest (see README.md).  testbed.sh copies it into the run
# directory, which the initramfs mounts at /.testbed before switch_root onto overlay(host /, tmpfs).
#
# It brings up Soft-RoCE on a dummy netdev, builds the NVMe/RDMA target in configfs, optionally
# connects the kernel initiator, runs /.testbed/cmd.sh under a timeout, writes /.testbed/status
# and powers off.  Everything the host needs to know comes back through /.testbed:
#   status      key=value lines: phase=booted|setup-failed|done, rc=, timed_out=, t_*= (uptimes)
#   setup.log   full output of the target setup; setup.step: the last step started
#   guest.env   the environment handed to the command
#   dmesg.log   the kernel log at shutdown
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb LC_ALL=C
TB=/.testbed
STATUS=$TB/status

uptime_s() { cut -d' ' -f1 /proc/uptime; }
glog() { echo "[testbed-guest $(uptime_s)s] $*"; }
status() { echo "$*" >> "$STATUS"; }
poweroff_now() {
	dmesg > "$TB/dmesg.log" 2>/dev/null
	sync
	umount "$TESTBED_OUT" 2>/dev/null
	umount "$TB" 2>/dev/null
	echo o > /proc/sysrq-trigger
	sleep 10 2>/dev/null
	exit 1    # PID 1 exiting panics the kernel; with panic=-1 and -no-reboot qemu exits anyway
}

# ------------------------------------------------------------------ basic userland
mount -t proc proc /proc
mount -t sysfs sys /sys
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run
# /tmp stays the host's, seen through the overlay (writes land in the guest's tmpfs upper
# layer): a checkout or cache under /tmp (CI clones anywhere) must stay visible.
ln -sfn /proc/self/fd /dev/fd        # busybox switch_root leaves no /dev/fd: bash <(...) needs it
ln -sfn fd/0 /dev/stdin
ln -sfn fd/1 /dev/stdout
ln -sfn fd/2 /dev/stderr
hostname testbed-guest
: > "$STATUS"

# shellcheck source=/dev/null
. "$TB/env" || { glog "cannot read $TB/env"; poweroff_now; }
status "phase=booted"
status "t_booted=$(uptime_s)"
glog "TESTBED_GUEST_UP kernel $(uname -r), $(nproc) cpus, $(awk '/MemTotal/{print int($2/1024)}' /proc/meminfo) MiB"

# ------------------------------------------------------------------ fixed target shape
TARGET_IP=10.99.0.1
TARGET_PORT=4420
# NVMe/TCP beside RDMA: nvmet's TCP port binds a socket, rdma_cm's port space is its own, so
# both transports share 4420 on the same address.  Port id 10: the suites make ports 1-3 their own.
TARGET_TCP_PORT=4420
TCP_PORTID=10
NQN=nqn.2026-12.io.fio-nvmeof:testbed
NQN2=nqn.2026-12.io.fio-nvmeof:testbed2
SPDK_PORT=4421                     # SPDK's nvmf_tgt (--spdk), same address
SPDK_NQN=nqn.2016-06.io.spdk:cnode1
SPDK_NQN2=nqn.2016-06.io.spdk:cnode2
SPDK_TCP_PORT=4431                 # its NVMe/TCP listener: a port of its own, as the brief for the tools has it
NETDEV=tbnet0
RDMA_DEV=rxe0
# A second RDMA device on a netdev and address of its own (no port listens there unless a test
# makes one): multipath over two devices, and a link-down fault that takes only one path.
TARGET_IP2=10.99.1.1
NETDEV2=tbnet1
RDMA_DEV2=rxe1
CFG=/sys/kernel/config/nvmet
NSDIR=/srv/testbed-ns              # tmpfs for --backing file

# Each step name is also written to $TB/setup.step, so that when `set -e` ends the setup the
# host can say which step failed.
step() { echo "--- step: $*"; echo "$*" > "$TB/setup.step"; }

wait_for() {  # wait_for SECONDS TEST...: poll a condition every 0.1 s
	local n=$(($1 * 10)) secs=$1; shift
	while ! "$@"; do
		n=$((n - 1))
		[ $n -gt 0 ] || { echo "timed out after $secs s waiting for: $*"; return 1; }
		sleep 0.1
	done
}

# make_ns SUBSYS NSID LBA_SIZE TAG: create a backing device/file and the nvmet namespace.
# null backing: memory-backed null_blk (configfs), any LBA size.
# file backing: a file in a tmpfs (served with buffered_io=1).  nvmet's file backend takes the LBA size from the file's
#   inode block size, min(i_blkbits, 12) - 4096 on tmpfs - so a 512-byte namespace is served
#   from a loop device (512-byte sectors) over a tmpfs file instead (block backend).
make_ns() {
	local subsys=$1 nsid=$2 lba=$3 tag=$4 path
	step "namespace $subsys/$nsid ($lba-byte LBA, $TB_BACKING backing)"
	if [ "$TB_BACKING" = null ]; then
		local nb=/sys/kernel/config/nullb/$tag
		mkdir "$nb"
		echo "$NS_MB" > "$nb/size"          # MiB
		echo 1 > "$nb/memory_backed"        # data round-trips: verify works
		echo "$lba" > "$nb/blocksize"
		echo 2 > "$nb/queue_mode"           # blk-mq
		echo 1 > "$nb/discard"              # DSM deallocate really frees: trims read back as zeroes
		echo 1 > "$nb/power"
		# null_blk names a configfs-made disk after the item (6.1); older kernels: nullb<index>
		path=/dev/$tag
		wait_for 10 test -b "$path" || path=/dev/nullb$(cat "$nb/index")
	else
		truncate -s "${NS_MB}M" "$NSDIR/$tag.img"
		if [ "$lba" = 4096 ]; then
			path=$NSDIR/$tag.img
		else
			path=$(losetup --find --show --sector-size "$lba" "$NSDIR/$tag.img")
		fi
	fi
	wait_for 10 test -e "$path"
	mkdir "$CFG/subsystems/$subsys/namespaces/$nsid"
	echo -n "$path" > "$CFG/subsystems/$subsys/namespaces/$nsid/device_path"
	# nvmet opens a file with O_DIRECT unless buffered_io=1; tmpfs (6.1) has no O_DIRECT
	case $path in /dev/*) ;; *) echo 1 > "$CFG/subsystems/$subsys/namespaces/$nsid/buffered_io";; esac
	echo 1 > "$CFG/subsystems/$subsys/namespaces/$nsid/enable"
	echo "ns $subsys/$nsid -> $path"
}

# find_ns NQN NSID: print /dev/nvmeXnY of the kernel initiator's namespace NSID of NQN
find_ns() {
	local d
	for d in /sys/block/nvme*n*; do
		[ -e "$d" ] || continue
		case ${d##*/} in nvme*c*n*) continue;; esac    # multipath path devices
		[ -r "$d/nsid" ] && [ -r "$d/device/subsysnqn" ] || continue
		[ "$(cat "$d/nsid")" = "$2" ] && [ "$(cat "$d/device/subsysnqn")" = "$1" ] || continue
		echo "/dev/${d##*/}"; return 0
	done
	return 1
}

setup() {
	set -e
	[ "${TB_FAULT:-}" != setup ] || { step "injected fault (TB_FAULT=setup)"; false; }

	step "kernel modules for $KV"
	mkdir -p "/lib/modules/$KV"
	mount --bind "$MODDIR" "/lib/modules/$KV"
	modprobe configfs
	mount -t configfs configfs /sys/kernel/config
	ip link set lo up

	step "Soft-RoCE $RDMA_DEV on dummy netdev $NETDEV ($TARGET_IP), $RDMA_DEV2 on $NETDEV2 ($TARGET_IP2)"
	# rxe loops packets for its own address back internally: nothing ever leaves the guest.
	modprobe dummy numdummies=0
	modprobe rdma_rxe
	modprobe ib_uverbs
	modprobe rdma_ucm
	local nd ip rd
	for nd in "$NETDEV:$TARGET_IP:$RDMA_DEV" "$NETDEV2:$TARGET_IP2:$RDMA_DEV2"; do
		IFS=: read -r nd ip rd <<< "$nd"
		ip link add "$nd" type dummy
		ip addr add "$ip/24" dev "$nd"
		ip link set "$nd" up
		rdma link add "$rd" type rxe netdev "$nd"
		wait_for 10 test -e "/sys/class/infiniband/$rd"
	done

	step "backing store ($TB_BACKING)"
	if [ "$TB_BACKING" = null ]; then
		modprobe null_blk nr_devices=0
	else
		mkdir -p "$NSDIR"
		mount -t tmpfs -o "size=$((NS_MB * 3 + 16))M" tmpfs "$NSDIR"
		modprobe loop
	fi

	step "nvmet + nvmet-rdma"
	modprobe nvmet
	modprobe nvmet-rdma
	local s
	for s in "$NQN" "$NQN2"; do
		mkdir "$CFG/subsystems/$s"
		echo 1 > "$CFG/subsystems/$s/attr_allow_any_host"
	done
	make_ns "$NQN" 1 4096 s1n1
	make_ns "$NQN" 2 512 s1n2
	make_ns "$NQN2" 1 4096 s2n1

	step "RDMA port 1 $TARGET_IP:$TARGET_PORT"
	local p=$CFG/ports/1
	mkdir "$p"
	echo rdma > "$p/addr_trtype"
	echo ipv4 > "$p/addr_adrfam"
	echo "$TARGET_IP" > "$p/addr_traddr"
	echo "$TARGET_PORT" > "$p/addr_trsvcid"
	if [ -n "$TB_INLINE" ]; then echo "$TB_INLINE" > "$p/param_inline_data_size"; fi
	# Linking the first subsystem enables the port: nvmet-rdma binds and listens right here,
	# and replaces a "transport default" (-1) inline size with its real value.
	ln -s "$CFG/subsystems/$NQN" "$p/subsystems/$NQN"
	ln -s "$CFG/subsystems/$NQN2" "$p/subsystems/$NQN2"
	INLINE_DATA_SIZE=$(cat "$p/param_inline_data_size")
	echo "param_inline_data_size in effect: $INLINE_DATA_SIZE"
	[ -z "$TB_INLINE" ] || [ "$INLINE_DATA_SIZE" = "$TB_INLINE" ] ||
		{ echo "requested inline data size $TB_INLINE, port reports $INLINE_DATA_SIZE"; false; }

	step "TCP port $TCP_PORTID $TARGET_IP:$TARGET_TCP_PORT (nvmet-tcp), kernel initiator nvme-tcp"
	modprobe nvmet-tcp
	# loaded here so that a guest kernel without it fails the setup by name, not a test later
	modprobe nvme-tcp
	p=$CFG/ports/$TCP_PORTID
	mkdir "$p"
	echo tcp > "$p/addr_trtype"
	echo ipv4 > "$p/addr_adrfam"
	echo "$TARGET_IP" > "$p/addr_traddr"
	echo "$TARGET_TCP_PORT" > "$p/addr_trsvcid"
	ln -s "$CFG/subsystems/$NQN" "$p/subsystems/$NQN"
	ln -s "$CFG/subsystems/$NQN2" "$p/subsystems/$NQN2"
	# nvmet-tcp reports a failed bind only in the kernel log: see the socket listen
	wait_for 10 grep -q "$(printf ':%04X 00000000:0000 0A' "$TARGET_TCP_PORT")" /proc/net/tcp

	NVME_DEV='' NVME_DEV_512=''
	if [ "$TB_CONNECT" = 1 ]; then
		step "kernel initiator: nvme connect $NQN"
		modprobe nvme-rdma
		local hostnqn
		if [ -s /etc/nvme/hostnqn ]; then hostnqn=$(cat /etc/nvme/hostnqn)
		else hostnqn=nqn.2014-08.org.nvmexpress:uuid:$(cat /proc/sys/kernel/random/uuid); fi
		timeout 120 nvme connect -t rdma -a "$TARGET_IP" -s "$TARGET_PORT" -n "$NQN" --hostnqn="$hostnqn"
		step "kernel initiator: namespace block devices"
		wait_for 30 find_ns "$NQN" 1
		wait_for 30 find_ns "$NQN" 2
		NVME_DEV=$(find_ns "$NQN" 1)
		NVME_DEV_512=$(find_ns "$NQN" 2)
		local lbs4 lbs512
		lbs4=$(cat "/sys/block/${NVME_DEV#/dev/}/queue/logical_block_size")
		lbs512=$(cat "/sys/block/${NVME_DEV_512#/dev/}/queue/logical_block_size")
		echo "ns 1: $NVME_DEV (LBA $lbs4)   ns 2: $NVME_DEV_512 (LBA $lbs512)"
		[ "$lbs4" = 4096 ] && [ "$lbs512" = 512 ] ||
			{ echo "unexpected LBA sizes: ns1 $lbs4 (want 4096), ns2 $lbs512 (want 512)"; false; }
	fi

	if [ "${TB_HUGE_MB:-0}" -gt 0 ]; then
		step "hugepages: $TB_HUGE_MB MiB in 2 MiB pages at /dev/hugepages"
		"$TESTBED_REPO/tests/testbed/bin/testbed-hugepages" "$TB_HUGE_MB"
	fi
	if [ -n "${SPDK_BUILD:-}" ]; then
		step "SPDK nvmf_tgt on $TARGET_IP:$SPDK_PORT (rdma) and :$SPDK_TCP_PORT (tcp) ($SPDK_NQN)"
		TARGET_IP=$TARGET_IP SPDK_PORT=$SPDK_PORT SPDK_TCP_PORT=$SPDK_TCP_PORT SPDK_NQN=$SPDK_NQN \
			SPDK_NQN2=$SPDK_NQN2 NS_MB=$NS_MB SPDK_BUILD=$SPDK_BUILD "$TESTBED_REPO/tests/testbed/bin/spdk-target" start
	fi

	step "environment for the command"
	{
		printf 'export %s=%q\n' TESTBED 1 TESTBED_OUT "$TESTBED_OUT" TESTBED_BACKING "$TB_BACKING" \
			TESTBED_REPO "$TESTBED_REPO" TARGET_IP "$TARGET_IP" TARGET_PORT "$TARGET_PORT" \
			NQN "$NQN" NQN2 "$NQN2" NS_4K 1 NS_512 2 NS_MB "$NS_MB" RDMA_DEV "$RDMA_DEV" \
			TESTBED_NETDEV "$NETDEV" INLINE_DATA_SIZE "$INLINE_DATA_SIZE" \
			TARGET_IP2 "$TARGET_IP2" RDMA_DEV2 "$RDMA_DEV2" TESTBED_NETDEV2 "$NETDEV2" \
			TARGET_TCP_PORT "$TARGET_TCP_PORT"
		if [ "$TB_CONNECT" = 1 ]; then
			printf 'export %s=%q\n' NVME_DEV "$NVME_DEV" NVME_DEV_512 "$NVME_DEV_512"
		fi
		if [ -n "${SPDK_BUILD:-}" ]; then
			printf 'export %s=%q\n' SPDK_BUILD "$SPDK_BUILD" SPDK_PORT "$SPDK_PORT" SPDK_TCP_PORT "$SPDK_TCP_PORT" \
				SPDK_NQN "$SPDK_NQN" SPDK_NQN2 "$SPDK_NQN2" SPDK_PLUGIN "$SPDK_BUILD/fio/spdk_nvme"
		fi
	} > "$TB/guest.env"
	cat "$TB/guest.env"
}

# ------------------------------------------------------------------ target setup
mkdir -p "$TESTBED_OUT"
mount -t 9p -o trans=virtio,version=9p2000.L,rw,cache=none,msize=262144 tbout "$TESTBED_OUT" || {
	echo "mount TESTBED_OUT" > "$TB/setup.step"
	status "phase=setup-failed"; glog "cannot mount TESTBED_OUT"; poweroff_now; }
(setup) > "$TB/setup.log" 2>&1
src=$?
if [ $src != 0 ]; then
	status "phase=setup-failed"
	glog "TESTBED_SETUP_FAILED in step: $(cat "$TB/setup.step" 2>/dev/null) (rc=$src)"
	tail -n 15 "$TB/setup.log"
	poweroff_now
fi
status "t_ready=$(uptime_s)"
# shellcheck source=/dev/null
. "$TB/guest.env"
export PATH=$TESTBED_REPO/tests/testbed/bin:$PATH
glog "TESTBED_TARGET_READY $NQN + $NQN2 on rdma $TARGET_IP:$TARGET_PORT ($RDMA_DEV, $TB_BACKING," \
	"inline $INLINE_DATA_SIZE) and tcp :$TARGET_TCP_PORT${NVME_DEV:+ connected: $NVME_DEV $NVME_DEV_512}$(
	)${SPDK_BUILD:+; SPDK $SPDK_NQN on port $SPDK_PORT (rdma) and $SPDK_TCP_PORT (tcp)}"

# ------------------------------------------------------------------ the command
# Never outlive the host's qemu deadline: keep 30 s for shutdown, reporting and slack.
limit=$CMD_TIMEOUT
left=$(awk -v b="$BOOT_TIMEOUT" -v u="$(uptime_s)" 'BEGIN{print int(b - u - 30)}')
if [ "$left" -lt "$limit" ]; then
	glog "command timeout lowered from $limit s to $left s (boot timeout $BOOT_TIMEOUT s)"
	limit=$((left > 1 ? left : 1))
fi
status "t_cmd_start=$(uptime_s)"
glog "TESTBED_CMD_START (timeout $limit s, cwd $HOST_PWD)"
start=$(date +%s)
timeout -k 10 "$limit" bash "$TB/cmd.sh" < /dev/null
rc=$?
took=$(($(date +%s) - start))
timed_out=0
if [ $rc = 124 ] || { [ $rc = 137 ] && [ $took -ge "$limit" ]; }; then timed_out=1; fi
status "t_cmd_end=$(uptime_s)"
status "cmd_timeout=$limit"
status "timed_out=$timed_out"
status "rc=$rc"
status "phase=done"
glog "TESTBED_CMD_END rc=$rc after $took s$([ $timed_out = 1 ] && echo " (timed out)")"
poweroff_now
