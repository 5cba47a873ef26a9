#!/bin/bash
# testbed.sh - run a command inside a qemu (TCG) guest that serves a real NVMe/RDMA fabric:
# Debian's own kernel, Soft-RoCE (rdma_rxe) on a dummy netdev and the kernel NVMe/RDMA target
# (nvmet_rdma).  The host's / is the guest's root (virtio-9p, read-only, tmpfs overlay), so
# host-built binaries run unchanged.  See tests/testbed/README.md.
#
# usage: tests/testbed/testbed.sh [options] [--] command [args...]
#   --connect              kernel initiator: nvme connect to subsystem 1, export NVME_DEV (ns 1,
#                          4 KiB LBA) and NVME_DEV_512 (ns 2, 512 B LBA)   [TESTBED_CONNECT=1]
#   --backing null|file    namespace backing store (default null)          [TESTBED_BACKING]
#   --inline-data-size N   port param_inline_data_size, 0 allowed
#                          (default: the kernel's)                         [TESTBED_INLINE_DATA_SIZE]
#   --ns-mb N              namespace size in MiB (default 256)             [TESTBED_NS_MB]
#   --boot-timeout S       limit for the whole qemu run (default 900)      [TESTBED_BOOT_TIMEOUT]
#   --cmd-timeout S        limit for the guest command
#                          (default boot timeout - 60)                     [TESTBED_CMD_TIMEOUT]
#   --mem MiB              guest memory (default 2048)                     [TESTBED_MEM]
#   --smp N                guest vCPUs (default 2)                         [TESTBED_SMP]
#   --out DIR              use DIR (created, kept) as TESTBED_OUT          [TESTBED_OUT_DIR]
#   --keep                 keep the run directory even on success          [TESTBED_KEEP=1]
#   --hugepages MiB        2 MiB hugepages in the guest, hugetlbfs at /dev/hugepages (SPDK's
#                          fio plugin needs them; --spdk sets up its own)  [TESTBED_HUGEPAGES]
#   --kernel-suite SUITE   boot the current kernel of Debian SUITE (e.g. trixie) instead of the
#                          host's own suite's: its package list is fetched into the cache from
#                          the mirror the host's apt uses                  [TESTBED_KERNEL_SUITE]
#   --spdk                 also SPDK's nvmf_tgt (make spdk) on port 4421, beside the kernel
#                          target; exports SPDK_BUILD, SPDK_PORT, SPDK_NQN  [TESTBED_SPDK=1]
#   (a guest kernel that panics before it is up is booted again, up to 3 boots [TESTBED_BOOT_TRIES])
# exit status: the command's, or 124 command timed out, 125 guest never booted / stopped
#   reporting, 126 target setup failed, 123 host prerequisites missing or guest kernel not
#   obtainable, 2 usage error, 130/143 interrupted.
set -uo pipefail

SELF=$(readlink -f "$0")
TBDIR=$(dirname "$SELF")
REPO=$(cd "$TBDIR/../.." && pwd)

EX_USAGE=2 EX_PREREQ=123 EX_TIMEOUT=124 EX_NOBOOT=125 EX_SETUP=126

CONNECT=${TESTBED_CONNECT:-0}
BACKING=${TESTBED_BACKING:-null}
INLINE=${TESTBED_INLINE_DATA_SIZE:-}
NS_MB=${TESTBED_NS_MB:-256}
BOOT_TIMEOUT=${TESTBED_BOOT_TIMEOUT:-900}
CMD_TIMEOUT=${TESTBED_CMD_TIMEOUT:-}
MEM=${TESTBED_MEM:-2048}
SMP=${TESTBED_SMP:-2}
OUT=${TESTBED_OUT_DIR:-}
KEEP=${TESTBED_KEEP:-0}
SPDK=${TESTBED_SPDK:-0}
KSUITE=${TESTBED_KERNEL_SUITE:-}
HUGE_MB=${TESTBED_HUGEPAGES:-0}
BOOT_TRIES=${TESTBED_BOOT_TRIES:-3}
RUNS=${TESTBED_RUNS:-$REPO/build/testbed}               # parent of the per-run directories
CACHE=${FIO_NVMEOF_CACHE:-$REPO/.cache}/testbed         # kernel + initramfs, kept across runs

T0=$(date +%s)
ORIG_PWD=$PWD
say() { echo "testbed: $*" >&2; }
usage_error() { say "$*"; say "usage: $0 [options] [--] command [args...]  (see the header of $SELF)"; exit $EX_USAGE; }
is_uint() { case $1 in ''|*[!0-9]*) return 1;; esac; }

# ------------------------------------------------------------------ options
while [ $# -gt 0 ]; do
	opt=$1 val='' has_val=0
	case $opt in --*=*) val=${opt#*=}; opt=${opt%%=*}; has_val=1;; esac
	case $opt in
	--backing|--inline-data-size|--ns-mb|--boot-timeout|--cmd-timeout|--mem|--smp|--out|--hugepages|--kernel-suite)
		if [ $has_val = 0 ]; then
			[ $# -ge 2 ] || usage_error "$opt needs a value"
			val=$2; shift
		fi;;
	esac
	case $opt in
	--connect) CONNECT=1;;
	--no-connect) CONNECT=0;;
	--backing) BACKING=$val;;
	--inline-data-size) INLINE=$val;;
	--ns-mb) NS_MB=$val;;
	--boot-timeout) BOOT_TIMEOUT=$val;;
	--cmd-timeout) CMD_TIMEOUT=$val;;
	--mem) MEM=$val;;
	--smp) SMP=$val;;
	--out) OUT=$val;;
	--keep) KEEP=1;;
	--spdk) SPDK=1;;
	--hugepages) HUGE_MB=$val;;
	--kernel-suite) KSUITE=$val;;
	-h|--help) sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "$SELF"; exit 0;;
	--) shift; break;;
	-*) usage_error "unknown option $1";;
	*) break;;
	esac
	shift
done
[ $# -gt 0 ] || usage_error "no command given (use 'true' to only bring the target up)"

case $BACKING in null|file) ;; *) usage_error "--backing must be null or file, not '$BACKING'";; esac
case $CONNECT in 0|1) ;; *) usage_error "TESTBED_CONNECT must be 0 or 1";; esac
case $KEEP in 0|1) ;; *) usage_error "TESTBED_KEEP must be 0 or 1";; esac
case $SPDK in 0|1) ;; *) usage_error "TESTBED_SPDK must be 0 or 1";; esac
case $KSUITE in *[!a-z0-9-]*) usage_error "--kernel-suite must be a Debian suite name (e.g. trixie), not '$KSUITE'";; esac
is_uint "$HUGE_MB" || usage_error "--hugepages must be a number of MiB, not '$HUGE_MB'"
[ "$INLINE" = default ] && INLINE=
[ -z "$INLINE" ] || is_uint "$INLINE" || usage_error "--inline-data-size must be a number >= 0"
for v in NS_MB BOOT_TIMEOUT MEM SMP BOOT_TRIES; do
	is_uint "${!v}" && [ "${!v}" -gt 0 ] || usage_error "$v must be a positive number, not '${!v}'"
done
if [ -z "$CMD_TIMEOUT" ]; then
	CMD_TIMEOUT=$((BOOT_TIMEOUT > 120 ? BOOT_TIMEOUT - 60 : BOOT_TIMEOUT / 2))
fi
is_uint "$CMD_TIMEOUT" && [ "$CMD_TIMEOUT" -gt 0 ] || usage_error "--cmd-timeout must be a positive number"
[ "$MEM" -ge 512 ] || usage_error "--mem must be at least 512 (MiB)"
[ "$HUGE_MB" -le $((MEM / 2)) ] || usage_error "--hugepages $HUGE_MB is more than half of --mem $MEM"

# ------------------------------------------------------------------ host prerequisites
# The harness installs nothing: `make deps` (scripts/deps.sh) does.
missing=
need() {  # need PACKAGE TOOL...
	local pkg=$1 t; shift
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin command -v "$t" >/dev/null 2>&1 ||
			missing="$missing $t($pkg)"
	done
}
need qemu-system-x86 qemu-system-x86_64
need coreutils timeout mktemp sha256sum
need util-linux flock
need cpio cpio
need gzip gzip
need kmod modprobe depmod
need apt apt-get apt-cache
need dpkg dpkg
need iproute2 ip rdma
need mount losetup
need nvme-cli nvme
BUSYBOX=$(command -v busybox 2>/dev/null || echo /bin/busybox)
if [ ! -x "$BUSYBOX" ] || ldd "$BUSYBOX" >/dev/null 2>&1; then     # must be static
	missing="$missing static-busybox(busybox-static)"
fi
ls /usr/lib/*/libibverbs/librxe-rdmav*.so >/dev/null 2>&1 || missing="$missing librxe(ibverbs-providers)"
if [ -n "$missing" ]; then
	say "missing host tools:$missing - 'make deps' installs them"
	exit $EX_PREREQ
fi
SPDK_BUILD=''
if [ "$SPDK" = 1 ]; then
	SPDK_BUILD=$(FIO_NVMEOF_CACHE=${CACHE%/testbed} "$REPO/scripts/spdk.sh" --where 2>&1) ||
		{ say "--spdk: ${SPDK_BUILD#spdk: }"; exit $EX_PREREQ; }
fi
export PATH=$PATH:/usr/sbin:/sbin

# ------------------------------------------------------------------ process hygiene
TPID='' TAILPID='' CHILD='' RUN='' DONE=0 tmp=''
cleanup() {
	local q
	[ -n "$CHILD" ] && kill "$CHILD" 2>/dev/null
	if [ -n "$TPID" ] && kill -0 "$TPID" 2>/dev/null; then
		kill -TERM "$TPID" 2>/dev/null               # timeout(1) forwards it to qemu
		for _ in $(seq 50); do kill -0 "$TPID" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$TPID" 2>/dev/null
	fi
	if [ -n "$RUN" ] && [ -s "$RUN/qemu.pid" ]; then
		q=$(cat "$RUN/qemu.pid" 2>/dev/null)
		if [ -n "$q" ] && grep -q qemu "/proc/$q/comm" 2>/dev/null; then kill -KILL "$q" 2>/dev/null; fi
	fi
	[ -n "$TAILPID" ] && kill "$TAILPID" 2>/dev/null
	[ -n "$tmp" ] && rm -rf "$tmp" "$tmp.cpio.gz"      # an interrupted cache preparation
	if [ -n "$RUN" ] && [ "$DONE" = 0 ] && [ -d "$RUN" ]; then say "run directory kept: $RUN"; fi
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT
trap 'say "terminated"; exit 143' TERM
trap 'say "hangup"; exit 129' HUP

# bg COMMAND...: run in the background and wait, so INT/TERM traps fire at once
bg() { "$@" & CHILD=$!; wait "$CHILD"; local rc=$?; CHILD=; return $rc; }

# ------------------------------------------------------------------ guest kernel (cached)
mkdir -p "$CACHE" || { say "cannot create the cache directory $CACHE"; exit $EX_PREREQ; }
exec 9> "$CACHE/.lock"
flock -w 1800 9 || { say "timed out waiting for the cache lock $CACHE/.lock"; exit $EX_PREREQ; }

# newest_cached: the newest kernel in the cache (of --kernel-suite's suite when one is given)
newest_cached() {
	local d
	for d in "$CACHE"/kernel-*/.done; do
		[ -f "$d" ] || continue
		d=${d%/.done}
		[ -z "$KSUITE" ] || [ "$(cat "$d/suite" 2>/dev/null)" = "$KSUITE" ] || continue
		echo "${d##*/kernel-}"
	done | sort -V | tail -1
}
# APT_SUITE: apt options that read another suite's package list, kept in the cache (a private
# sources list and lists directory: the host's apt configuration is not touched)
APT_SUITE=()
if [ -n "$KSUITE" ]; then
	adir=$CACHE/apt-$KSUITE
	mirror=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Identifier: Packages' 2>/dev/null |
		awk '$2 !~ /-(security|updates|backports)$/ {print $1; exit}')
	[ -n "$mirror" ] || { say "--kernel-suite $KSUITE: the host's apt names no Debian mirror (run apt-get update)"; exit $EX_PREREQ; }
	mkdir -p "$adir/lists/partial" "$adir/cache/archives/partial"
	echo "deb ${mirror%/} $KSUITE main" > "$adir/sources.list"
	APT_SUITE=(-o "Dir::Etc::sourcelist=$adir/sources.list" -o Dir::Etc::sourceparts=- \
		-o "Dir::State::Lists=$adir/lists" -o "Dir::Cache=$adir/cache" -o APT::Sandbox::User=root)
	# a day-old list still names a kernel the mirror serves; refresh it after that
	if [ -z "$(find "$adir/lists" -maxdepth 1 -name '*_Packages' -mmin -1440 2>/dev/null)" ]; then
		say "fetching Debian $KSUITE's package list (for its kernel; kept in $adir)"
		bg timeout -k 10 300 apt-get -q "${APT_SUITE[@]}" update > "$adir/update.log" 2>&1 ||
			say "apt-get update for $KSUITE failed: $(grep -E '^(E|W):' "$adir/update.log" | head -1)"
	fi
fi
if [ -n "${TESTBED_KERNEL:-}" ]; then
	KV=$TESTBED_KERNEL                                  # e.g. 6.1.0-57-amd64
else
	# linux-image-amd64 depends on the current linux-image-<abi>-amd64 (local apt metadata only)
	KV=$(apt-cache "${APT_SUITE[@]}" depends linux-image-amd64 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/{sub("linux-image-", "", $2); print $2; exit}')
	if [ -z "$KV" ] && [ -n "$KSUITE" ]; then
		say "--kernel-suite $KSUITE: no linux-image-amd64 in its package list (see $adir/update.log)"; exit $EX_PREREQ
	fi
	if [ -z "$KV" ]; then
		KV=$(newest_cached)
		[ -n "$KV" ] || { say "cannot tell which kernel to use: apt-cache knows no linux-image-amd64 (run apt-get update)"; exit $EX_PREREQ; }
	fi
fi
KDIR=$CACHE/kernel-$KV
if [ ! -f "$KDIR/.done" ]; then
	say "downloading the guest kernel linux-image-$KV (once; cached in $KDIR)"
	tmp=$(mktemp -d "$CACHE/.kernel.XXXXXX")
	cd "$tmp" && bg timeout -k 10 900 apt-get "${APT_SUITE[@]}" download -q "linux-image-$KV" > "$tmp/download.log" 2>&1
	dlrc=$?
	cd "$ORIG_PWD" || exit $EX_PREREQ
	if [ $dlrc != 0 ]; then
		fallback=$(newest_cached)
		if [ -n "$fallback" ]; then
			say "download of linux-image-$KV failed; using the cached kernel $fallback"
			rm -rf "$tmp"; tmp=''; KV=$fallback; KDIR=$CACHE/kernel-$KV
		else
			say "apt-get download linux-image-$KV failed: $(grep -E '^(E|W):' "$tmp/download.log" | head -1)"
			rm -rf "$tmp"; exit $EX_PREREQ
		fi
	else
		# Debian 13's kernel package ships its modules in usr/lib/modules (merged /usr):
		# give the unpacked tree the lib -> usr/lib link a merged system has.
		dpkg -x "$tmp"/linux-image-*.deb "$tmp/root" && rm -f "$tmp"/linux-image-*.deb &&
			{ [ -e "$tmp/root/lib" ] || [ ! -d "$tmp/root/usr/lib/modules" ] ||
			  ln -s usr/lib "$tmp/root/lib"; } &&
			depmod -b "$tmp/root" "$KV" && [ -f "$tmp/root/boot/vmlinuz-$KV" ] ||
			{ say "unpacking linux-image-$KV failed"; rm -rf "$tmp"; exit $EX_PREREQ; }
		[ -z "$KSUITE" ] || echo "$KSUITE" > "$tmp/suite"
		rm -rf "$KDIR"; mv "$tmp" "$KDIR"; touch "$KDIR/.done"; tmp=''
	fi
fi
VMLINUZ=$KDIR/root/boot/vmlinuz-$KV

# ------------------------------------------------------------------ initramfs (cached)
# static busybox + virtio/9p/overlay modules + initramfs-init; keyed by their contents
IKEY=$( { cat "$TBDIR/initramfs-init" "$BUSYBOX"; echo "$KV"; } | sha256sum | cut -c1-16)
INITRD=$KDIR/initramfs-$IKEY.cpio.gz
if [ ! -f "$INITRD" ]; then
	say "building the initramfs"
	tmp=$(mktemp -d "$CACHE/.initramfs.XXXXXX")
	mkdir -p "$tmp"/{bin,dev,proc,sys,lower,rw,newroot,mods}
	cp "$BUSYBOX" "$tmp/bin/busybox"
	cp "$TBDIR/initramfs-init" "$tmp/init"; chmod 755 "$tmp/init"
	for m in virtio_pci 9pnet_virtio 9p overlay; do
		modprobe -d "$KDIR/root" -S "$KV" --show-depends "$m" || echo "FAILED $m"
	done > "$tmp/deps" 2>&1
	if grep -q FAILED "$tmp/deps"; then say "initramfs: module lookup failed: $(head -3 "$tmp/deps")"; rm -rf "$tmp"; exit $EX_PREREQ; fi
	awk '$1 == "insmod" && !seen[$2]++ {print $2}' "$tmp/deps" | while read -r ko; do
		cp "$ko" "$tmp/mods/" && basename "$ko" >> "$tmp/mods/order"
	done
	(cd "$tmp" && rm deps && find . | cpio -o -H newc --quiet | gzip -1) > "$tmp.cpio.gz" &&
		mv "$tmp.cpio.gz" "$INITRD" || { say "initramfs build failed"; rm -rf "$tmp" "$tmp.cpio.gz"; exit $EX_PREREQ; }
	rm -rf "$tmp"; tmp=''
fi
flock -u 9; exec 9>&-

# ------------------------------------------------------------------ the run directory
mkdir -p "$RUNS" && RUN=$(mktemp -d "$RUNS/run.XXXXXX") || { say "cannot create a run directory under $RUNS"; exit $EX_PREREQ; }
[ -n "$OUT" ] || OUT=$RUN/out
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || { say "cannot create $OUT"; exit $EX_USAGE; }
cp "$TBDIR/guest-init.sh" "$RUN/guest-init.sh"
{
	printf '%s=%q\n' KV "$KV" MODDIR "$KDIR/root/lib/modules/$KV" TESTBED_REPO "$REPO" \
		TESTBED_OUT "$OUT" HOST_PWD "$ORIG_PWD" TB_CONNECT "$CONNECT" TB_BACKING "$BACKING" \
		TB_INLINE "$INLINE" NS_MB "$NS_MB" CMD_TIMEOUT "$CMD_TIMEOUT" \
		BOOT_TIMEOUT "$BOOT_TIMEOUT" TB_FAULT "${TESTBED_FAULT:-}" SPDK_BUILD "$SPDK_BUILD" \
		TB_HUGE_MB "$HUGE_MB"
} > "$RUN/env"
{
	echo '#!/bin/bash'
	printf 'cd %q || { echo "testbed: cannot cd to %q in the guest"; exit 127; }\n' "$ORIG_PWD" "$ORIG_PWD"
	printf '%q ' "$@"; echo
} > "$RUN/cmd.sh"

# ------------------------------------------------------------------ boot
q9p() { printf '%s' "${1//,/,,}"; }    # qemu option values: a comma is written as ,,
say "run directory $RUN"
[ -z "${TESTBED_KERNEL_LOG:-}" ] || echo "$KV" >> "$TESTBED_KERNEL_LOG"   # make check's summary
say "booting kernel $KV (tcg, $SMP vcpus, $MEM MiB; limits: run ${BOOT_TIMEOUT}s, command ${CMD_TIMEOUT}s)"
# TESTBED_FAULT=boot-panic: no init to run, so the kernel panics before the guest is up
APPEND_FAULT=; [ "${TESTBED_FAULT:-}" = boot-panic ] && APPEND_FAULT=" rdinit=/no-such-init"
QT0=$(date +%s)
boot() {   # one qemu run; sets qrc
	: > "$RUN/console.log"
	rm -f "$RUN/status"
	timeout -k 10 "$BOOT_TIMEOUT" qemu-system-x86_64 \
		-accel tcg,thread=multi,tb-size=256 -machine q35 -cpu max -smp "$SMP" -m "$MEM" \
		-nodefaults -no-user-config -display none -no-reboot -serial stdio \
		-pidfile "$RUN/qemu.pid" \
		-kernel "$VMLINUZ" -initrd "$INITRD" \
		-append "console=ttyS0 rdinit=/init panic=-1 quiet loglevel=4 mitigations=off tsc=reliable$APPEND_FAULT" \
		-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
		-virtfs "local,path=$(q9p "$RUN"),mount_tag=tbrun,security_model=none,multidevs=remap" \
		-virtfs "local,path=$(q9p "$OUT"),mount_tag=tbout,security_model=none,multidevs=remap" \
		< /dev/null > "$RUN/console.log" 2>&1 &
	TPID=$!
	# stream the console (kernel warnings, guest-init lines, the command's output) to stdout
	tail -s 0.3 -n +1 -F --pid="$TPID" "$RUN/console.log" 2>/dev/null | sed -u 's/\r$//' &
	TAILPID=$!
	wait "$TPID"
	qrc=$?
	TPID=
	wait "$TAILPID" 2>/dev/null
	TAILPID=
}
# A guest kernel that panics before it reports up ran nothing of the command: boot it again,
# saying so.  Seen with Debian 13's 6.12 under TCG, rarely: an int3 Oops in code the kernel was
# patching (a static key flipped late in boot) on the other vCPU, the emulator's race, not the
# command's.  Any other failure, and a panic after the guest is up, is reported as it is.
for ((try = 1; ; try++)); do
	boot
	[ -z "$(sed -n 's/^phase=//p' "$RUN/status" 2>/dev/null)" ] && [ "$qrc" = 0 ] &&
		grep -q 'Kernel panic' "$RUN/console.log" && [ "$try" -lt "$BOOT_TRIES" ] || break
	mv "$RUN/console.log" "$RUN/console.boot$try.log"
	why=$(grep -m1 -oE 'Kernel panic - not syncing: .*' "$RUN/console.boot$try.log" | tr -d '\r')
	rip=$(grep -m1 -oE 'RIP: [0-9a-f]+:[^ ]+' "$RUN/console.boot$try.log")
	say "the guest kernel panicked while booting, before the command ran (${why#Kernel panic - not syncing: }${rip:+, $rip}); booting again (try $((try + 1)) of $BOOT_TRIES; $RUN/console.boot$try.log)"
done
QSECS=$(($(date +%s) - QT0))

# ------------------------------------------------------------------ verdict
st() { sed -n "s/^$1=//p" "$RUN/status" 2>/dev/null | tail -1; }
phase=$(st phase)
if [ -n "$(st t_booted)" ]; then
	timing="up $(st t_booted)s"
	[ -z "$(st t_ready)" ] || timing="$timing, target ready $(st t_ready)s"
	[ -z "$(st t_cmd_end)" ] || timing="$timing, command $(st t_cmd_start)s..$(st t_cmd_end)s"
	say "timing (guest uptime): $timing; qemu ran ${QSECS}s, testbed.sh $(($(date +%s) - T0))s"
fi
case $phase in
done)
	rc=$(st rc)
	if [ "$(st timed_out)" = 1 ]; then
		say "command timed out after $(st cmd_timeout) s"; rc=$EX_TIMEOUT
	elif [ "$rc" != 0 ]; then
		say "command failed rc=$rc"
	fi;;
setup-failed)
	say "target setup failed: $(cat "$RUN/setup.step" 2>/dev/null || echo unknown step) (see $RUN/setup.log)"
	rc=$EX_SETUP;;
booted)
	say "guest stopped reporting (qemu exit $qrc after ${QSECS}s; see $RUN/console.log)"
	rc=$EX_NOBOOT;;
*)
	if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
		say "guest never booted within ${BOOT_TIMEOUT}s (see $RUN/console.log)"
	else
		say "guest never booted (qemu exit $qrc; see $RUN/console.log)"
		tail -n 5 "$RUN/console.log" | sed 's/^/testbed:   | /' >&2
	fi
	rc=$EX_NOBOOT;;
esac
if [ "$rc" = 0 ] && [ "$KEEP" = 0 ]; then
	rm -rf "$RUN"
fi
[ "$rc" = 0 ] && [ "$KEEP" = 1 ] && say "run directory kept: $RUN"
DONE=1
[ "$rc" != 0 ] && say "run directory kept: $RUN"
exit "$rc"
