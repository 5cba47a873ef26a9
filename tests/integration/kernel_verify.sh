#!/bin/bash
# kernel_verify.sh - the reference integration test: the Linux kernel NVMe/RDMA initiator
# (nvme-rdma) against the testbed's kernel target, fio libaio write + crc32c read-verify on the
# 4 KiB-LBA namespace and on the 512 B-LBA namespace.  Later comparisons (the userspace engine)
# run the same passes beside it.
#
# On the host it boots the testbed (tests/testbed/testbed.sh --connect) and runs itself inside
# the guest with --in-guest.  Testbed options may be given through the TESTBED_* environment
# variables (e.g. TESTBED_BACKING=file).  fio's JSON reports land in $TESTBED_OUT/kernel_verify/
# (kept with TESTBED_KEEP=1 or TESTBED_OUT_DIR=dir).
# Exit: 0 PASS, 1 FAIL (including a testbed that could not run: the message says why).
set -uo pipefail
SELF=$(readlink -f "$0")
REPO=$(cd "$(dirname "$SELF")/../.." && pwd)

if [ "${1:-}" != --in-guest ]; then
	start=$(date +%s)
	"$REPO/tests/testbed/testbed.sh" --connect -- "$SELF" --in-guest
	rc=$?
	secs=$(($(date +%s) - start))
	if [ $rc = 0 ]; then
		echo "PASS: kernel_verify (kernel nvme-rdma, fio libaio verify=crc32c on 4K and 512 namespaces; ${secs}s)"
		exit 0
	fi
	echo "FAIL: kernel_verify (testbed exit $rc after ${secs}s; see the messages above)"
	exit 1
fi

# ------------------------------------------------------------------ inside the testbed guest
: "${NVME_DEV:?not connected}" "${NVME_DEV_512:?not connected}" "${TESTBED_OUT:?not in the testbed}"
RESULTS=$TESTBED_OUT/kernel_verify
mkdir -p "$RESULTS"
failed=""

# check_report NAME: fio's JSON must show bytes written, the same bytes read back (the verify
# phase) and no error.
check_report() {
	python3 - "$RESULTS/$1.json" <<'EOF'
import json, sys
text = open(sys.argv[1]).read()
job = json.loads(text[text.index("{"):])["jobs"][0]     # skip any non-JSON lines before it
w, r, err = job["write"]["io_bytes"], job["read"]["io_bytes"], job["error"]
print("  %-12s written %6.1f MiB (%6.0f IOPS), read back + verified %6.1f MiB (%6.0f IOPS), error %d"
      % (job["jobname"], w / 2**20, job["write"]["iops"], r / 2**20, job["read"]["iops"], err))
sys.exit(0 if w > 0 and r == w and err == 0 else 1)
EOF
}

# verify_pass NAME DEVICE RW BS OFFSET SIZE: write SIZE bytes at OFFSET, then read every block
# back and check its crc32c (fio's verify phase runs after the writes: size based, not timed).
verify_pass() {
	local name=$1 dev=$2 rw=$3 bs=$4 offset=$5 size=$6
	echo "--- $name: $rw bs=$bs offset=$offset size=$size on $dev"
	fio --name="$name" --filename="$dev" \
		--ioengine=libaio --direct=1 --iodepth=16 \
		--rw="$rw" --bs="$bs" --offset="$offset" --size="$size" \
		--verify=crc32c --do_verify=1 --verify_fatal=1 \
		--output-format=json --output="$RESULTS/$name.json" --eta=never
	local rc=$?
	if [ $rc = 0 ] && check_report "$name"; then
		return 0
	fi
	echo "  $name: FAILED (fio exit $rc)"
	cat "$RESULTS/$name.json" 2>/dev/null | head -c 2000
	failed="$failed $name"
}

echo "kernel initiator: ns $NS_4K = $NVME_DEV (4096-byte LBA), ns $NS_512 = $NVME_DEV_512 (512-byte LBA)"
verify_pass ns4k-4k     "$NVME_DEV"     randwrite 4k   0    32m
verify_pass ns4k-128k   "$NVME_DEV"     write     128k 64m  64m
verify_pass ns512-4k    "$NVME_DEV_512" randwrite 4k   0    32m
verify_pass ns512-128k  "$NVME_DEV_512" write     128k 64m  64m
verify_pass ns512-512   "$NVME_DEV_512" randwrite 512  128m 4m

if dmesg | grep -iE 'nvme.*(error|timeout|reset|abort)' | tail -n 5 | grep .; then
	echo "(kernel messages above, for information)"
fi
if [ -n "$failed" ]; then
	echo "kernel_verify: failed passes:$failed"
	exit 1
fi
echo "kernel_verify: all passes verified"
