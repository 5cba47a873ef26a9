#!/bin/bash
# tests/gpu/device-check.sh must stay ready for the first machine with a GPU: that machine has
# gcc and this repository, perhaps no rdma-core headers and no fio.  Here, with the stand-in
# driver posing as the real one (first on LD_LIBRARY_PATH), the whole check must build and pass;
# and the sources it builds must not include rdma-core's headers.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
cd "$REPO" || exit 1
STANDIN=$REPO/build/cuda-standin
[ -e "$STANDIN/libcuda.so.1" ] || { echo "FAIL: no $STANDIN/libcuda.so.1 (make cuda-standin)"; exit 1; }
fail=0
src=$(sed -n 's/^LIBSRC="\(.*\)"$/\1/p' tests/gpu/device-check.sh)
[ -n "$src" ] || { echo "FAIL: no LIBSRC= line in tests/gpu/device-check.sh"; exit 1; }
for f in $src tests/unit/test_cuda.c tests/gpu/mode_cost.c; do
	inc=$(gcc -std=gnu11 -D_GNU_SOURCE -Ilib -Itests/unit -Itests/cuda-standin -H -fsyntax-only "$f" 2>&1 |
	      grep -E '/(infiniband|rdma)/' | head -1)
	if [ -n "$inc" ]; then echo "FAIL: $f includes rdma-core's headers:$inc"; fail=1
	else echo "PASS: $f builds without rdma-core's headers"; fi
done
OUT=$(mktemp -d "$REPO/build/gpu-check.XXXXXX") || exit 1
LD_LIBRARY_PATH=$STANDIN timeout 600 bash tests/gpu/device-check.sh "$OUT" > "$OUT/out.log" 2>&1
rc=$?
sed -n '/summary:/,$p' "$OUT/out.log"
if [ $rc != 0 ]; then
	echo "FAIL: device-check.sh with the stand-in exited $rc (kept $OUT)"
	exit 1
fi
grep -q 'real driver: mode costs  *ok' "$OUT/out.log" || { echo "FAIL: no mode costs line"; fail=1; }
rm -rf "$OUT"
[ $fail = 0 ] && echo "PASS gpu_device_check" || exit 1
