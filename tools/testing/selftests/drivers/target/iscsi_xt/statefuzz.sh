#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The stateful fuzzer in the VM, over TCP: ixt_statefuzz.py walks session
# after session for $IXT_STATEFUZZ_SECONDS (60) seconds through the states
# of one session of up to four connections (MaxConnections 2 to 4): CmdSN
# holes filled from other connections, ABORT TASK, LUN RESET and the
# other task management functions against held and in-flight commands,
# Data-Out for aborted tasks, Logouts of one connection while the others
# carry IO, connections dropped (also in the middle of a PDU) and
# reinstated, sessions reinstated, ExpStatSN games; valid at heart, a few
# of its PDUs mutated (its docstring says what it does). It writes only
# to the blocks [4 MiB, 8 MiB) of LUN 0, a 20 MiB ramdisk, which
# open-iscsi fills with a pattern first. After the run:
#
# - no session in which nothing was mutated got an answer no request
#   asked for, nor left a request unanswered (the fuzzer's "odd answer"
#   and "unanswered" lines);
# - the module holds no session within 30 s (debugfs sessions: only its
#   header) and every cache line is back in the pool;
# - open-iscsi logs in, the pattern outside the fuzzer's blocks reads back
#   unchanged, and fio writes and verifies 8 MiB;
#
# and at the end no object of the module or the target core is left
# behind, the module unloads, and the kernel log is clean (slub_debug=FZPU
# and KFENCE in the VM, as for mutate.sh). The kernel log lines of the
# paths the run took (task management, CmdSNs of aborted tasks taken as
# received, reinstatements, duplicates dropped) are counted as KTAP
# diagnostics; they are rate limited, so the counts are lower bounds.
#
# The seed is drawn, printed and settable ($IXT_STATEFUZZ_SEED); with it,
# "ixt_statefuzz.py --seed N --first K --sessions 1 -v" plays session K
# again: $IXT_STATEFUZZ_ARGS adds such options to the fuzzer's command
# line (Documentation/testing.rst).

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_cmd "$ixt_py" dd cmp fio
ixt_require_initiator
ixt_require_module

tgt=iqn.2026-11.org.example.statefuzz:rd
portal=$IXT_ADDR4_T:3260
tpg=$IXT_FABRIC/$tgt/tpgt_1
rd=$IXT_CFS/core/rd_mcp_87/ixt_statefuzz
seconds=${IXT_STATEFUZZ_SECONDS:-60}
seed=${IXT_STATEFUZZ_SEED:-$((RANDOM << 15 | RANDOM))}
owners=(iscsi_xt target_core_mod)
lun_mib=20
# The fuzzer's blocks, [fuzz_mib, fuzz_end_mib) MiB; fio's after the check.
fuzz_mib=4
fuzz_end_mib=8
fio_mib=12

cleanup() {
	ixt_cleanup
}
trap cleanup EXIT

# login: open-iscsi logged in over TCP; sets disk.
login() {
	ixt_login default "$tgt" "$portal" && disk=$(ixt_target_disk "$tgt" 0)
}

logout() {
	ixt_logout default "$tgt" "$portal"
	disk=
}

# fuzz: ixt_fuzz with the test's settings and $IXT_STATEFUZZ_ARGS.
fuzz() {
	local extra

	read -ra extra <<<"${IXT_STATEFUZZ_ARGS:-}"
	ixt_fuzz ixt_statefuzz.py "$tgt" "$seed" "$seconds" $fuzz_mib \
		$fuzz_end_mib "${extra[@]}"
}

# The kernel log lines of the paths the fuzzer took, since MARK.
klog_paths() {
	local log=$IXT_WORK/klog n what pattern

	dmesg | sed -n "/$1/,\$p" >"$log"
	while IFS='|' read -r what pattern; do
		n=$(grep -cE "$pattern" "$log")
		ktap_print_msg "kernel log: $n $what"
	done <<'EOF'
task management functions|iscsi_xt: .*: task management function
CmdSNs of aborted tasks taken as received|never came: taken as received
connection reinstatements|reinstating connection CID
session reinstatements|reinstating session TSIH
CmdSNs received twice|received twice, dropped
CmdSNs outside the window|outside 0x[0-9a-f]+\.\.0x[0-9a-f]+, dropped
bad Data-Outs|bad Data-Out
normal sessions closed|normal session of .* closed
EOF
}

ixt_begin 10
ktap_print_msg "kernel debug options: $(grep -oE '(slub_debug|kfence\.sample_interval)=[^ ]*' /proc/cmdline | paste -sd ' ')"
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
ixt_work || ktap_exit_fail_msg "no work directory"
head -c ${lun_mib}M /dev/urandom >"$IXT_WORK/pattern"
ixt_load || ktap_exit_fail_msg "cannot load iscsi_xt"
# What the fuzzer's sessions may ask for: unsolicited data, Data-Outs and
# sequences in any order, several R2Ts, up to four connections.
ixt_rd_lun0 "$tpg" "$rd" $((lun_mib << 8)) &&
	echo No >"$tpg/param/InitialR2T" &&
	echo No >"$tpg/param/DataPDUInOrder" &&
	echo No >"$tpg/param/DataSequenceInOrder" &&
	echo 4 >"$tpg/param/MaxOutstandingR2T" &&
	echo 4 >"$tpg/param/MaxConnections" &&
	echo 5 >"$tpg/attrib/login_timeout" &&
	ixt_demo_tpg "$tpg" "$portal" ||
	ktap_exit_fail_msg "cannot set up the target"
ixt_owned_mark "${owners[@]}"

ixt_check "open-iscsi writes the pattern over the LUN" \
	eval 'login && ixt_pattern_written "$disk" "$IXT_WORK/pattern"'
logout
mark="ixt-statefuzz: fuzzing $$ $RANDOM"
echo "$mark" >/dev/kmsg
ixt_check "the fuzzer ran ${seconds} s (seed $seed) without breaking" fuzz
klog_paths "$mark"
# Its "odd answer" and "unanswered" lines: what the target did wrong in a
# session where nothing was mutated.
ixt_check "no session without mutations got an odd answer or lost a request" \
	eval '! grep -E "^(odd answer|unanswered) in session" "$IXT_WORK/fuzz.out"'
ixt_check "no session left in the module within 30 s" ixt_sessions_gone 30
ixt_check "every cache line is back in the pool" ixt_pool_all_free
ixt_check "open-iscsi logs in again" login
ixt_check "the LUN outside the fuzzer's blocks is unchanged" \
	eval 'ixt_pattern_kept "$disk" "$IXT_WORK/pattern" $lun_mib $fuzz_mib $fuzz_end_mib'
ixt_check "fio writes and verifies 8 MiB" eval 'ixt_fio_verified "$disk" $fio_mib'
logout

ixt_cfs_clear
ixt_owned_check "by the fuzzing, once the configuration is gone" \
	"${owners[@]}"
ixt_check "the target unloads" ixt_target_unload
ixt_finish
