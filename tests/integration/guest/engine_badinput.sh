#!/bin/bash
# Bad input from the user (issue #8): wrong job files and option values, one table line each.
# Every case must print one line naming the option (or job-file field) and the problem, exit
# non-zero, not crash - and write nothing: each case is a write job over an area filled with a
# known pattern beforehand, read back and verified afterwards.
. "$(dirname "$0")/lib.sh"
E="--ioengine=external:$ENG"
S="--traddr=$TARGET_IP --subnqn=$NQN"
PAT=0x5aa5c33c                 # the guarded areas hold this
BADPAT=0xbad0bad0              # what a bad case would write, were it to run
AREA=4m                        # guarded: the first 4 MiB of s1 ns1, s1 ns2, s2 ns1
# A bad case is this write job plus the case's arguments (later ones win).
W="--name=bad --rw=write --bs=4k --size=1m --iodepth=4 --buffer_pattern=$BADPAT --connect_timeout=3000"
esc() { echo "${1//:/\\:}"; }  # fio wants ':' escaped inside a filename
TID1="trtype=RDMA traddr=$TARGET_IP subnqn=$(esc "$NQN") ns=1"
TID2="trtype=RDMA traddr=$TARGET_IP subnqn=$(esc "$NQN2") ns=1"

guarded() { # VERB: fill (write the pattern) or check (read it back, verified)
	local rw=write what=w extra=--do_verify=0 sub ns
	[ "$1" = check ] && { rw=read what=r extra=; }
	for sub_ns in "$NQN 1" "$NQN 2" "$NQN2 1"; do
		read -r sub ns <<<"$sub_ns"
		run_fio "$1-${sub##*:}-ns$ns" $what $E --traddr=$TARGET_IP --subnqn=$sub --nsid=$ns \
			--name=g --rw=$rw --bs=64k --size=$AREA --iodepth=8 --verify=pattern \
			--verify_pattern=$PAT $extra
	done
}

# One line: besides expect_fail's checks, at most one line of the engine's own.
one_line() {
	local n
	n=$(grep -c '^nvmeof: ' "$WORK/$1.log")
	[ "$n" -le 1 ] && return
	bad "$1" "$n lines from the engine, one wanted"
	grep '^nvmeof: ' "$WORK/$1.log" | sed 's/^/    | /'
}
# c NAME REGEX ARGS...: a bad write job given on the command line
c() { local name=$1 re=$2; shift 2; expect_fail "$name" "$re" $E $W "$@"; one_line "$name"; }
# jf NAME REGEX BODY: a bad job file (BODY: printf %b text after a [global] with the write job)
jf() {
	local name=$1 re=$2
	printf '[global]\nioengine=external:%s\nrw=write\nbs=4k\nsize=1m\nbuffer_pattern=%s\n%b' \
		"$ENG" "$BADPAT" "$3" >"$WORK/$name.fio"
	expect_fail "$name" "$re" "$WORK/$name.fio"
	one_line "$name"
}

guarded fill
# Controls: the bad cases' job runs when nothing is wrong with it (away from the guarded area),
# and the check below would see a bad case's write (there, the control's write).
run_fio control-job-runs w $E $W $S --offset=16m
expect_fail control-check-sees-a-write 'got pattern|bad pattern' $E $S --name=g --rw=read \
	--bs=64k --offset=16m --size=1m --verify=pattern --verify_pattern=$PAT

# ---- the table: case, the line it must print, the job's arguments ------------------------
c no-subnqn             'nvmeof: bad: subnqn is required'                                --traddr=$TARGET_IP
c no-traddr             'nvmeof: bad: traddr is required'                                --subnqn=$NQN
c traddr-unresolvable   "nvmeof: bad: traddr 'no-such-host.invalid': [A-Za-z]"           --traddr=no-such-host.invalid --subnqn=$NQN
c trsvcid-0             "nvmeof: bad: trsvcid '0' is not a port number \(1..65535\)"    $S --trsvcid=0
c trsvcid-70000         "nvmeof: bad: trsvcid '70000' is not a port number \(1..65535\)" $S --trsvcid=70000
c trsvcid-word          "nvmeof: bad: trsvcid 'nvme' is not a port number \(1..65535\)" $S --trsvcid=nvme
c nsid-0                'nvmeof: nsid=0 is out of range: give 1..4294967294'        $S --nsid=0
c nsid-negative         'nvmeof: nsid=-3 is out of range: give 1..4294967294'       $S --nsid=-3
c nsid-broadcast        'nvmeof: nsid=4294967295 is out of range'                   $S --nsid=4294967295
c nsid-absent           'nvmeof: bad: namespace 9 (is not active|of .*Identify failed)'                                     $S --nsid=9
c hostnqn-too-long      'nvmeof: bad: hostnqn is 234 characters long: an NQN has at most 223' $S --hostnqn=nqn.$(printf 'h%.0s' {1..230})
c hostnqn-empty         'fio: failed parsing hostnqn='                              $S --hostnqn=
c hostnqn-malformed     "nvmeof: bad: hostnqn 'host1' is not an NQN: it must start with \"nqn.\"" $S --hostnqn=host1
c hostid-not-uuid       "nvmeof: bad: hostid '1234-5678' is not a UUID"                  $S --hostid=1234-5678
c bs-ns1-4k             'nvmeof: bad: bs 2048..2048 \(write\) is not a multiple of namespace 1.s LBA size 4096' $S --bs=2k
c bs-ns2-512            'nvmeof: bad: bs 256..256 \(write\) is not a multiple of namespace 2.s LBA size 512' $S --nsid=2 --bs=256
c bsrange-ns1           'nvmeof: bad: bs 4096..6144 \(write\) is not a multiple of namespace 1.s LBA size 4096' $S --bsrange=4k-6k --rw=randwrite
c bsrange-ns2           'nvmeof: bad: bs 1000..4096 \(write\) is not a multiple of namespace 2.s LBA size 512' $S --nsid=2 --bsrange=1000-4k --rw=randwrite
c bssplit-ns1           'nvmeof: bad: bssplit size 6144 \(write\) is not a multiple of namespace 1.s LBA size 4096' $S --bssplit=4k/50:6k/50 --rw=randwrite
c bssplit-ns2           'nvmeof: bad: bssplit size 768 \(write\) is not a multiple of namespace 2.s LBA size 512' $S --nsid=2 --bssplit=4k/50:768/50 --rw=randwrite
c offset-ns1            'nvmeof: bad: offset 512 is not a multiple of namespace 1.s LBA size 4096' $S --offset=512
c offset-ns2            'nvmeof: bad: offset 100 is not a multiple of namespace 2.s LBA size 512' $S --nsid=2 --offset=100
c iodepth-65536         'nvmeof: bad: iodepth 65536 is more than the controller takes on one I/O queue: at most [0-9]+ \(CAP.MQES\+1 = [0-9]+ entries, MAXCMD [0-9]+\)' $S --iodepth=65536
c completion-unknown    'fio: failed parsing completion=interrupt'                  $S --completion=interrupt
c inline_data-unknown   'fio: failed parsing inline_data=always'                    $S --inline_data=always
c nvmeof_mem-unknown    'fio: failed parsing nvmeof_mem=gpu'                        $S --nvmeof_mem=gpu
c io_queue_pick-unknown 'fio: failed parsing io_queue_pick=fastest'               $S --io_queue_pick=fastest
c connect_timeout-0     'nvmeof: connect_timeout=0 is out of range: give 1..3600000 milliseconds' $S --connect_timeout=0
c connect_timeout-neg   'nvmeof: connect_timeout=-5 is out of range'                $S --connect_timeout=-5
c ack_timeout-32        'nvmeof: ack_timeout=32 is out of range: give 0..31'       $S --ack_timeout=32
c ack_timeout-neg       'nvmeof: ack_timeout=-1 is out of range'                    $S --ack_timeout=-1
c submit_batch-big      'nvmeof: submit_batch=65537 is out of range: give 0..65536' $S --submit_batch=65537
c stop_grace-big        'nvmeof: stop_grace=86400001 is out of range: give 0..86400000 milliseconds \(0: auto\)' $S --stop_grace=86400001
c io_timeout-0          'nvmeof: io_timeout=0 is out of range: give 10..86400000 milliseconds' $S --io_timeout=0
c io_timeout-neg        'nvmeof: io_timeout=-1 is out of range'                     $S --io_timeout=-1
c io_timeout-absurd     'nvmeof: io_timeout=999999999999 is out of range'           $S --io_timeout=999999999999
c kato-neg              'nvmeof: kato=-1 is out of range: give 0..3600000 milliseconds' $S --kato=-1
c kato-over-max         'nvmeof: kato=3600001 is out of range'                      $S --kato=3600001
c ctrl_loss_tmo-neg     'nvmeof: ctrl_loss_tmo=-1 is out of range: give 0..86400000' $S --ctrl_loss_tmo=-1
c reconnect_delay-0     'nvmeof: reconnect_delay=0 is out of range: give 10..3600000' $S --reconnect_delay=0
c two-subsystems        'nvmeof: bad: names two subsystems'                      "--filename=$TID1:$TID2"
c trid-fc               "nvmeof: bad: filename .*: transport ID: trtype=FC is not supported" "--filename=trtype=FC traddr=$TARGET_IP subnqn=$(esc "$NQN")"
c trid-unknown-key      "nvmeof: bad: filename .*: transport ID: unknown key 'namespace'" "--filename=$TID1 namespace=2"
c trid-missing-equals   "nvmeof: bad: filename .*: transport ID: 'traddr' is not key=value" "--filename=trtype=RDMA traddr subnqn=$(esc "$NQN")"
c trid-key-twice        'nvmeof: bad: filename .*: transport ID: ns is given twice'      "--filename=$TID1 ns=2"
c trid-ns-0             'nvmeof: bad: filename .*: transport ID: ns=0 is not a namespace ID' "--filename=trtype=RDMA traddr=$TARGET_IP subnqn=$(esc "$NQN") ns=0"
c trid-port-70000       "nvmeof: bad: trsvcid '70000' is not a port number"              "--filename=$TID1 trsvcid=70000"
c conflict-subnqn       "nvmeof: bad: filename .* says subnqn=$NQN2 but subnqn=$NQN: give it once" "--filename=$TID2" --subnqn=$NQN
c conflict-traddr       "nvmeof: bad: filename .* says traddr=$TARGET_IP but traddr=10.99.0.2: give it once" "--filename=$TID1" --traddr=10.99.0.2
c conflict-nsid         'nvmeof: bad: filename .* says ns=1 but nsid=2: give it once'    "--filename=$TID1" --nsid=2
c conflict-trsvcid      'nvmeof: bad: filename .* says trsvcid=4420 but trsvcid=4421: give it once' "--filename=$TID1 trsvcid=4420" --trsvcid=4421
c conflict-adrfam       'nvmeof: bad: filename .* says adrfam=IPv4 but adrfam=ipv6: give it once' "--filename=$TID1 adrfam=IPv4" --adrfam=ipv6
c adrfam-ipv6-v4-addr   "nvmeof: bad: traddr '$TARGET_IP' is an IPv4 address but adrfam is ipv6" $S --adrfam=ipv6
c adrfam-unknown        'fio: failed parsing adrfam=ib'                             $S --adrfam=ib
c host_traddr-not-addr  "nvmeof: bad: host_traddr 'eth0': [A-Za-z]"                      $S --host_traddr=eth0
c subnqn-too-long       'nvmeof: bad: subnqn is 304 characters long: an NQN has at most 223' --traddr=$TARGET_IP --subnqn=nqn.$(printf 'q%.0s' {1..300})
c cuda_device-word      "nvmeof: cuda_device 'x': entry 1 is not a device ordinal" $S --cuda_device=x
c gpu_reg-unknown       'fio: failed parsing gpu_reg=bogus'                         $S --gpu_reg=bogus
jf jobfile-no-subnqn    'nvmeof: bad: subnqn is required'                                "[bad]\ntraddr=$TARGET_IP\n"
jf jobfile-hostnqn-empty 'fio: failed parsing hostnqn'                              "[bad]\ntraddr=$TARGET_IP\nsubnqn=$NQN\nhostnqn=\n"
jf jobfile-global-kato  'nvmeof: kato=-1 is out of range'                           "kato=-1\n[bad]\ntraddr=$TARGET_IP\nsubnqn=$NQN\n"
jf jobfile-unescaped-trid "nvmeof: bad: filename .*: transport ID: '${NQN##*:}' is not key=value \(fio cuts filename at ':'" "[bad]\nfilename=trtype=RDMA traddr=$TARGET_IP subnqn=$NQN ns=1\n"
jf jobfile-iodepth-ns2  'nvmeof: bad: iodepth 100000 is more than the controller takes'  "[bad]\ntraddr=$TARGET_IP\nsubnqn=$NQN\nnsid=2\nrw=randwrite\niodepth=100000\n"
# ---- end of the table ----------------------------------------------------------------------

guarded check
suite_end engine_badinput
