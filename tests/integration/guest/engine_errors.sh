#!/bin/bash
# Bad input and failure paths against the kernel target: each one a clear line naming the
# problem, a non-zero fio exit, no crash.
. "$(dirname "$0")/lib.sh"
J="--name=e --rw=randread --bs=4k --size=1m --iodepth=4"
E="--ioengine=external:$ENG"

expect_fail wrong-subnqn 'nvmeof: e: Fabrics Connect to nqn.2026-12.io.fio-nvmeof:nope .*failed: NVMe status 0x1/0x82: Connect Invalid Parameters \(the target does not know subnqn\)' \
	$E --traddr=$TARGET_IP --subnqn=nqn.2026-12.io.fio-nvmeof:nope $J
expect_fail absent-nsid 'nvmeof: e: namespace 9 ' $E --traddr=$TARGET_IP --subnqn=$NQN --nsid=9 $J
expect_fail nothing-listening 'nvmeof: e: queue 0 connect to 10.99.0.1:4999: nothing listens at 10.99.0.1:4999' \
	$E --traddr=$TARGET_IP --trsvcid=4999 --subnqn=$NQN --connect_timeout=3000 $J
expect_fail unreachable-address 'nvmeof: e: queue 0 connect to 10.99.7.7:4420' \
	$E --traddr=10.99.7.7 --subnqn=$NQN --connect_timeout=2000 $J
# host_traddr picks the local side: the guest's own RDMA address works, a foreign one is refused
run_fio host-traddr r $E --traddr=$TARGET_IP --subnqn=$NQN --host_traddr=$TARGET_IP --name=e \
	--rw=read --bs=4k --size=64k --iodepth=4
expect_fail host-traddr-foreign 'nvmeof: e: queue 0 connect to 10.99.0.1:4420: .*(host_traddr|address resolution)' \
	$E --traddr=$TARGET_IP --subnqn=$NQN --host_traddr=10.99.0.77 --connect_timeout=2000 $J
expect_fail no-traddr 'nvmeof: e: traddr is required' $E --subnqn=$NQN $J
expect_fail no-subnqn 'nvmeof: e: subnqn is required' $E --traddr=$TARGET_IP $J
expect_fail bad-traddr "nvmeof: e: traddr 'not-an-address'" $E --traddr=not-an-address --subnqn=$NQN $J
expect_fail bad-hostid "nvmeof: e: hostid 'xyz' is not a UUID" $E --traddr=$TARGET_IP --subnqn=$NQN --hostid=xyz $J
expect_fail bs-not-lba-multiple 'nvmeof: e: bs 2048..2048 \(read\) is not a multiple of namespace 1.s LBA size 4096' \
	$E --traddr=$TARGET_IP --subnqn=$NQN --name=e --rw=randread --bs=2k --size=1m
expect_fail offset-not-lba-multiple 'nvmeof: e: offset 512 is not a multiple' \
	$E --traddr=$TARGET_IP --subnqn=$NQN --name=e --rw=read --bs=4k --size=1m --offset=512
expect_fail two-subsystems 'nvmeof: e: names two subsystems' $E \
	"--filename=trtype=RDMA traddr=$TARGET_IP subnqn=${NQN//:/\\:} ns=1:trtype=RDMA traddr=$TARGET_IP subnqn=${NQN2//:/\\:} ns=1" $J
expect_fail bad-trid 'nvmeof: e: filename .*trtype=PCIe is not supported' $E \
	"--filename=trtype=PCIe traddr=$TARGET_IP subnqn=${NQN//:/\\:}" $J
# I/O past the end of the namespace: fio sizes the file from Identify Namespace and would
# silently do nothing for a job that starts beyond it; the engine refuses it at init.
ns_bytes=$((NS_MB * 1024 * 1024))
expect_fail past-end 'nvmeof: e: offset [0-9]+ is past the end of namespace 1 \([0-9]+ bytes\)' $E --traddr=$TARGET_IP --subnqn=$NQN --name=e \
	--rw=read --bs=4k --offset=$((ns_bytes + 4096)) --size=64k --iodepth=1
# A real NVMe error status from the target: null_blk bad blocks under ns 1 make nvmet fail
# the read; the engine sets io_u->error and fio's errdetails prints the decoded status.
nb=/sys/kernel/config/nullb/s1n1
if [ -w "$nb/badblocks" ]; then
	echo "+0-7" > "$nb/badblocks"        # 512-byte sectors: the first 4 KiB block
	expect_fail nvme-status-errdetails 'fio: NVMe status 0x[0-7]/0x[0-9a-f]{2}: [A-Za-z].* \(Read, nsid 1, slba 0, 1 blocks\)' \
		$E --traddr=$TARGET_IP --subnqn=$NQN --name=e --rw=read --bs=4k --size=4k --iodepth=1
	echo "-0-7" > "$nb/badblocks"
	run_fio after-bad-blocks-cleared r $E --traddr=$TARGET_IP --subnqn=$NQN --name=e --rw=read \
		--bs=4k --size=64k --iodepth=4
else
	bad nvme-status-errdetails "no null_blk badblocks control at $nb (backing ${TESTBED_BACKING:-?})"
fi
suite_end engine_errors
