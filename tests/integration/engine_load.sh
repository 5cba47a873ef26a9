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
	   inline_data completion nvmeof_mem; do
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
