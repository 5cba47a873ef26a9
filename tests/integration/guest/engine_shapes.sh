#!/bin/bash
# Other target shapes: file-backed namespaces and a port with in-capsule data disabled
# (inline_data_size 0), where the engine must RDMA-read every write.
. "$(dirname "$0")/lib.sh"
V="--verify=crc32c --verify_fatal=1 --do_verify=1"
[ "${INLINE_DATA_SIZE:-x}" = 0 ] && ok "target port in-capsule size is 0" || bad "target port" "inline is '${INLINE_DATA_SIZE:-unset}', want 0"

run_fio shape-write-4k rw $NVMEOF --name=w --rw=randwrite --bs=4k --size=8m --iodepth=16 $V
run_fio shape-write-512 rw $NVMEOF --nsid=$NS_512 --name=w --rw=randwrite --bs=512 --size=2m --iodepth=16 $V
run_fio shape-write-1m rw $NVMEOF --name=w --rw=write --bs=1m --size=16m --iodepth=4 $V
# The start line reports what the lane negotiated: no in-capsule data on this port.
fio $NVMEOF --name=w --rw=randwrite --bs=4k --size=1m --iodepth=4 >"$WORK/startline.log" 2>&1
if grep -q 'nvmeof: w: .* in-capsule 0 B' "$WORK/startline.log"; then
	ok "engine reports in-capsule 0 B: $(grep -m1 'nvmeof: w:' "$WORK/startline.log")"
else
	bad "engine start line" "no 'in-capsule 0 B' in the output"
	sed 's/^/    | /' "$WORK/startline.log" | head -20
fi
suite_end engine_shapes
