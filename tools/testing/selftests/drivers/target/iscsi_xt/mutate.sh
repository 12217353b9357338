#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The mutating fuzzer in the VM, over each transport of $IXT_TRANSPORTS
# ("tcp iser" by default; iSER SKIPs with the reason when it cannot run):
# ixt_mutate.py opens session after session for $IXT_MUTATE_SECONDS (60)
# seconds, valid at heart, whose PDUs get random field mutations,
# truncations, swaps, duplicates and data changes (its docstring says
# which), a fraction of the logins mutated too. It writes only to the
# blocks [4 MiB, 8 MiB) of LUN 0, a 20 MiB ramdisk, which open-iscsi
# fills with a pattern first. After the run:
#
# - the module holds no session within 30 s (debugfs sessions: only its
#   header) and every cache line is back in the pool;
# - open-iscsi logs in over the same transport, the pattern outside the
#   fuzzer's blocks reads back unchanged, and fio writes and verifies
#   8 MiB;
#
# and at the end no object of the modules or the target core is left
# behind, the modules unload, and the kernel log is clean: the VM boots
# with slub_debug=FZPU (red zones, poisoning, sanity checks, allocation
# tracking) and kfence.sample_interval=10 (scripts/vm/run.sh -d, which
# scripts/kselftest.sh uses), so a use after free, an overrun or a double
# free the mutations provoke is reported there.
#
# The seed is drawn, printed and settable ($IXT_MUTATE_SEED); with it
# and the transport, "ixt_mutate.py --seed N --first K --sessions 1 -v"
# plays session K again: $IXT_MUTATE_ARGS adds such options to the
# fuzzer's command line (Documentation/testing.rst).

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_cmd "$ixt_py" dd cmp fio
ixt_require_initiator
ixt_require_module

tgt=iqn.2026-11.org.example.mutate:rd
portal=$IXT_ADDR4_T:3260
tpg=$IXT_FABRIC/$tgt/tpgt_1
rd=$IXT_CFS/core/rd_mcp_86/ixt_mutate
transports=${IXT_TRANSPORTS:-tcp iser}
seconds=${IXT_MUTATE_SECONDS:-60}
seed=${IXT_MUTATE_SEED:-$((RANDOM << 15 | RANDOM))}
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

# Why iSER cannot run here, or nothing when it can: ixt_iser_missing, and
# what the raw iSER initiator needs besides.
iser_missing() {
	local why m

	why=$(ixt_iser_missing)
	[ -n "$why" ] && { echo "$why"; return; }
	"$ixt_py" -c 'import pyverbs.cmid' 2>/dev/null ||
		{ echo "no pyverbs for $ixt_py (python3-pyverbs)"; return; }
	for m in ib_uverbs rdma_ucm; do
		modprobe -q $m || { echo "no $m (RDMA from user space)"; return; }
	done
}

# login IFACE: open-iscsi logged in through IFACE; sets disk.
login() {
	ixt_login "$1" "$tgt" "$portal" && disk=$(ixt_target_disk "$tgt" 0)
}

logout() {
	ixt_logout "$1" "$tgt" "$portal"
	disk=
}

# fuzz TRANSPORT: ixt_fuzz over TRANSPORT with the test's settings and
# $IXT_MUTATE_ARGS.
fuzz() {
	local extra

	read -ra extra <<<"${IXT_MUTATE_ARGS:-}"
	ixt_fuzz ixt_mutate.py "$tgt" "$seed" "$seconds" $fuzz_mib \
		$fuzz_end_mib --transport "$1" "${extra[@]}"
}

# run TRANSPORT: the guard pattern, the fuzzer, and the checks.
run() {
	local t=$1 iface=${1/tcp/default}

	if [ "$t" = iser ] && [ -n "$iser" ]; then
		ixt_skip_n $per_transport "iSER: $iser"
		return
	fi
	ixt_check "$t: open-iscsi writes the pattern over the LUN" \
		eval 'login "$iface" && ixt_pattern_written "$disk" "$IXT_WORK/pattern"'
	logout "$iface"
	ixt_check "$t: the fuzzer ran ${seconds} s (seed $seed) without breaking" \
		fuzz "$t"
	ixt_check "$t: no session left in the module within 30 s" ixt_sessions_gone 30
	ixt_check "$t: every cache line is back in the pool" ixt_pool_all_free
	ixt_check "$t: open-iscsi logs in again" login "$iface"
	ixt_check "$t: the LUN outside the fuzzer's blocks is unchanged" \
		eval 'ixt_pattern_kept "$disk" "$IXT_WORK/pattern" $lun_mib $fuzz_mib $fuzz_end_mib'
	ixt_check "$t: fio writes and verifies 8 MiB" eval 'ixt_fio_verified "$disk" $fio_mib'
	logout "$iface"
}

iser=$(iser_missing)
per_transport=7
read -ra tlist <<<"$transports"
ixt_begin $((per_transport * ${#tlist[@]} + 2))
ktap_print_msg "kernel debug options: $(grep -oE '(slub_debug|kfence\.sample_interval)=[^ ]*' /proc/cmdline | paste -sd ' ')"
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
ixt_work || ktap_exit_fail_msg "no work directory"
head -c ${lun_mib}M /dev/urandom >"$IXT_WORK/pattern"
if [ -z "$iser" ]; then
	ixt_target_load && owners+=(iscsi_xt_iser)
else
	ixt_load
fi || ktap_exit_fail_msg "cannot load iscsi_xt"
iser_on=0
[ -z "$iser" ] && iser_on=1
# What the fuzzer's sessions may ask for: unsolicited data, Data-Outs and
# sequences in any order, several R2Ts, a second connection.
ixt_rd_lun0 "$tpg" "$rd" $((lun_mib << 8)) &&
	echo No >"$tpg/param/InitialR2T" &&
	echo No >"$tpg/param/DataPDUInOrder" &&
	echo No >"$tpg/param/DataSequenceInOrder" &&
	echo 4 >"$tpg/param/MaxOutstandingR2T" &&
	echo 2 >"$tpg/param/MaxConnections" &&
	echo 5 >"$tpg/attrib/login_timeout" &&
	ixt_demo_tpg "$tpg" "$portal" $iser_on ||
	ktap_exit_fail_msg "cannot set up the target"
ixt_owned_mark "${owners[@]}"

for t in "${tlist[@]}"; do
	run "$t"
done

ixt_cfs_clear
ixt_owned_check "by the fuzzing, once the configuration is gone" \
	"${owners[@]}"
ixt_check "the target unloads" ixt_target_unload
ixt_finish
