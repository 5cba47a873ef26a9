#!/bin/bash
# The library's includes run downward only: each lib/ module has a layer, and a file may
# include its own module's header and those of lower layers, never a higher one (the lane
# must not reach up into the memory backends, the transport not into the lane).  Host only.
# LIB_DIR (default: this checkout's lib/) lets the check read another tree.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
LIB=${LIB_DIR:-$REPO/lib}
pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "PASS $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

# module -> layer, lowest first: the error formatter everything uses; wire formats, plain-data modules and sysfs facts; the conventions shim and
# the CUDA loader; command slots; I/O, the transports' seam and authentication on a queue; the
# transports (RDMA, TCP); the lane;
# the memory backends and discovery (both use the lane).
declare -A layer=(
	[nvmf_spec]=0 [nvmf_policy]=0 [nvmf_trid]=0 [nvmf_alive]=0 [nvmf_cpuq]=0
	[nvmf_cuda_api]=0 [nvmf_sysfs]=0 [nvmf_crc32c]=0
	[nvmf_err]=-1
	[nvmf_host]=1 [nvmf_shim]=1 [nvmf_mpath]=1
	[nvmf_cuda]=2 [nvmf_queue]=2
	[nvmf_io]=3 [nvmf_fabric]=3 [nvmf_auth]=3
	[nvmf_rdma]=4 [nvmf_tcp]=4
	[nvmf_lane]=5
	[nvmf_mem]=6 [nvmf_mem_lane]=6 [nvmf_discovery]=6
)
# files of one module under other names
declare -A owner=([nvmf_mem_lane]=nvmf_mem)

for f in "$LIB"/*.[ch]; do
	base=$(basename "$f"); mod=${base%.*}
	if [ -z "${layer[$mod]+x}" ]; then
		bad "$base: no layer for module $mod (add it to ${0##*/})"
		continue
	fi
	while read -r inc; do
		imod=${inc%.h}
		[ "$imod" = "$mod" ] || [ "$imod" = "${owner[$mod]:-}" ] && continue
		if [ -z "${layer[$imod]+x}" ]; then
			bad "$base includes $inc, which has no layer"
		elif [ "${layer[$imod]}" -ge "${layer[$mod]}" ]; then
			bad "$base (layer ${layer[$mod]}) includes $inc (layer ${layer[$imod]}): includes run downward only"
		else
			ok "$base -> $inc"
		fi
	done < <(sed -n 's/^#include "\(nvmf_[a-z_]*\.h\)".*/\1/p' "$f")
done
[ $pass -gt 12 ] || bad "only $pass includes checked in $LIB"
echo "lib_layers: $pass passed, $fail failed"
[ $fail = 0 ]
