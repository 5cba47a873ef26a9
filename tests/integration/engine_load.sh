#!/bin/bash
# Loading the engine into fio (no fabric needed): the options are listed with help text, and
# an engine built for another fio version is refused with one clear line.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
ENG=$REPO/build/libfio_nvmeof.so
WRONG=$REPO/build/tests/libfio_nvmeof_wrongver.so
pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "PASS $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

help=$(fio --enghelp="$ENG" 2>&1); rc=$?
for opt in traddr trsvcid adrfam subnqn nsid host_traddr hostnqn hostid connect_timeout \
	   inline_data completion poll_us io_timeout kato ctrl_loss_tmo reconnect_delay \
	   retry_on_reconnect nvmeof_mem cuda_device gpu_reg gpudirect; do
	if [ $rc = 0 ] && echo "$help" | grep -qE "^$opt +: [A-Za-z]"; then
		ok "enghelp lists $opt"
	else
		bad "enghelp lists $opt (rc=$rc)"
	fi
done
echo "$help" | sed 's/^/    | /'

fio_ver=$(fio --version)
out=$(fio --enghelp="$WRONG" 2>&1); rc=$?
if [ $rc != 0 ] && echo "$out" | grep -q "fio-nvmeof: built for fio-0.0-not-this-fio but this fio is $fio_ver"; then
	ok "enghelp refuses an engine built for another fio"
else
	bad "enghelp refuses an engine built for another fio (rc=$rc)"; echo "$out" | sed 's/^/    | /'
fi
out=$(fio --name=j --ioengine=external:"$WRONG" --filename=x --size=1m 2>&1); rc=$?
if [ $rc != 0 ] && echo "$out" | grep -q "fio-nvmeof: built for fio-0.0-not-this-fio but this fio is $fio_ver: rebuild"; then
	ok "a job refuses to load an engine built for another fio"
else
	bad "a job refuses to load an engine built for another fio (rc=$rc)"; echo "$out" | sed 's/^/    | /'
fi
# Bad GPU option values fail the job file with a line naming the option, before anything runs
# (no target, no CUDA needed).
gpu_bad() { # VALUE REGEX
	out=$(fio --parse-only --name=j --ioengine=external:"$ENG" --traddr=192.0.2.1 \
		--subnqn=nqn.2026-12.io.example:parse --nvmeof_mem=cuda "$1" 2>&1); rc=$?
	if [ $rc != 0 ] && echo "$out" | grep -qE "$2"; then
		ok "$1 refused: $(echo "$out" | grep -m1 -E "$2")"
	else
		bad "$1 refused (rc=$rc)"; echo "$out" | sed 's/^/    | /'
	fi
}
gpu_bad --cuda_device=gpu0 "nvmeof: cuda_device 'gpu0': entry 1 is not a device ordinal"
gpu_bad --cuda_device=0,1, "nvmeof: cuda_device '0,1,': entry 3 is not a device ordinal"
gpu_bad --cuda_device=0/1 "nvmeof: cuda_device '0/1': unexpected '/' after entry 1"
gpu_bad --gpu_dev_ids=0:x "nvmeof: cuda_device '0:x': entry 2 is not a device ordinal"
gpu_bad --cuda_device=4096 "nvmeof: cuda_device '4096': entry 1 is larger than 1023"
gpu_bad --gpu_reg=both 'fio: failed parsing gpu_reg=both'
gpu_bad --gpudirect=maybe 'fio: failed parsing gpudirect=maybe'
gpu_bad --nvmeof_mem=gpu 'fio: failed parsing nvmeof_mem=gpu'
out=$(fio --parse-only --name=j --ioengine=external:"$ENG" --traddr=192.0.2.1 \
	--subnqn=nqn.2026-12.io.example:parse --nvmeof_mem=cuda --cuda_device=0,1,2,3 \
	--gpu_reg=peermem --gpudirect=0 2>&1) && ok "good GPU option values parse" ||
	{ bad "good GPU option values parse"; echo "$out" | sed 's/^/    | /'; }
out=$(fio --parse-only --name=j --ioengine=external:"$ENG" --traddr=192.0.2.1 \
	--subnqn=nqn.2026-12.io.example:parse --nvmeof_mem=cuda --gpu_dev_ids=0:1:2:3 2>&1) &&
	ok "gpu_dev_ids=0:1:2:3 (fio's libcufile spelling) parses" ||
	{ bad "gpu_dev_ids=0:1:2:3 parses"; echo "$out" | sed 's/^/    | /'; }

# Times: milliseconds, or a number with a unit (ms, s, m, h).  fio's integer parser would have
# read 10k as 10240 and 10m as 10 MiB of milliseconds; a time option refuses them.
time_bad() { # ARG REGEX
	out=$(fio --parse-only --name=j --ioengine=external:"$ENG" --traddr=192.0.2.1 \
		--subnqn=nqn.2026-12.io.example:parse "$1" 2>&1); rc=$?
	if [ $rc != 0 ] && echo "$out" | grep -qE "$2"; then
		ok "$1 refused: $(echo "$out" | grep -m1 -E "$2")"
	else
		bad "$1 refused (rc=$rc)"; echo "$out" | sed 's/^/    | /'
	fi
}
time_bad --kato=10k 'nvmeof: kato=10k is not a time: give milliseconds \(kato=5000\) or a number with a unit: ms, s, m or h'
time_bad --ctrl_loss_tmo=10x 'nvmeof: ctrl_loss_tmo=10x is not a time'
time_bad --io_timeout=30sec 'nvmeof: io_timeout=30sec is not a time'
time_bad --connect_timeout= 'nvmeof: connect_timeout= is not a time'
time_bad --keep_alive_tmo=2h 'nvmeof: kato=2h is out of range: give 0..3600000 milliseconds'
time_bad --reconnect_delay=5ms 'nvmeof: reconnect_delay=5ms is out of range: give 10..3600000'
time_bad --stop_grace=2d 'nvmeof: stop_grace=2d is not a time'
out=$(fio --parse-only --name=j --ioengine=external:"$ENG" --traddr=192.0.2.1 \
	--subnqn=nqn.2026-12.io.example:parse --kato=15s --keep_alive_tmo=15000 \
	--ctrl_loss_tmo=10m --reconnect_delay=500ms --io_timeout=30S --stop_grace=1h \
	--connect_timeout=5000ms 2>&1) && ok "times with units parse (15s, 10m, 500ms, 30S, 1h)" ||
	{ bad "times with units parse"; echo "$out" | sed 's/^/    | /'; }

# The test knobs (FIO_NVMEOF_TEST_*) are in the test build of the engine only: the engine users
# load reads no such variable and carries no knob's name.
KNOBS=$REPO/build/tests/libfio_nvmeof_knobs.so
if grep -q FIO_NVMEOF_TEST_ "$ENG"; then
	bad "the engine carries test knobs: $(grep -ao 'FIO_NVMEOF_TEST_[A-Z_]*' "$ENG" | sort -u | tr '\n' ' ')"
else
	ok "the engine carries no test knob"
fi
if [ -f "$KNOBS" ]; then
	grep -q FIO_NVMEOF_TEST_KEEPALIVE_OFF "$KNOBS" && grep -q FIO_NVMEOF_TEST_CPU "$KNOBS" &&
		ok "the test build has its knobs" || bad "the test build $KNOBS lacks its knobs"
else
	bad "the test build $KNOBS is missing (make integration builds it)"
fi

# Every shipped job file parses with the engine loaded (run from the repository root).
cd "$REPO" || exit 1
for j in jobs/*.fio; do
	if out=$(TRADDR=192.0.2.1 SUBNQN=nqn.2026-12.io.example:parse fio --parse-only "$j" 2>&1); then
		ok "job file $j parses"
	else
		bad "job file $j parses"; echo "$out" | sed 's/^/    | /'
	fi
done
echo "engine_load: $pass passed, $fail failed"
[ $fail = 0 ]
