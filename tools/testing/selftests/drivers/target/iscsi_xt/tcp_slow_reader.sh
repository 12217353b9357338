#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Peers that stop reading (ixt_slowreader.py): a connection whose receive
# window stays shut gets immediate NOP-Outs with 8 KiB of ping data, or
# immediate TEST UNIT READYs (neither takes a place in the command
# window), as fast as the target reads them: the kernel's memory grows by
# less than 32 MiB (the target queues 256 PDUs, 1 MiB of their own data,
# then reads nothing more), and the target closes the connection once
# its send queue has not moved for nopin_timeout + nopin_response_timeout
# (3 + 3 s here), or earlier, when a NOP-In goes unanswered. 8 MiB READs
# into a shut window, on an ACL that sends no NOP-In (nopin_timeout 0):
# the connection ends once its send queue stood still for 3 s, and
# another session reads after; every cache line comes back. 8 MiB READs
# in 512-byte Data-Ins (MaxRecvDataSegmentLength 512) into a shut window:
# the kernel's memory grows by less than 4 MiB (a read's Data-In is one
# descriptor, not one per PDU). The same
# READs from peers that read a trickle (4 KiB/s) take the whole pool:
# once another session finds it short, the target closes the trickling
# connection when PDUs it queued 10 s earlier are still unsent, and the
# other session's READ goes through. The same for 8 MiB WRITEs whose
# data comes as a trickle (512 bytes per write every 0.5 s, within
# dataout_timeout): the target closes a trickling connection once a
# write of it is 10 s into its data phase. The keepalive's NOP-In TTTs
# are random, so that a peer which reads nothing cannot answer them. Then no object of the module
# or the target core is left and the module unloads.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_module
ixt_require_cmd python3

tgt=iqn.2026-11.org.example.slow:t
initiator=iqn.2026-11.org.example:ixt-slow
portal=$IXT_ADDR4_T:3260
tpg=$IXT_FABRIC/$tgt/tpgt_1
rd=$IXT_CFS/core/rd_mcp_85/ixt_slow
cases=(nop_flood tur_flood read_flood read_small_pdus read_trickle
	write_trickle nopin_ttt_unpredictable)

cleanup() {
	ixt_cleanup
}
trap cleanup EXIT

raw() {
	raw_out=$(timeout $((300 * IXT_SLOW)) python3 "$ixt_libdir/ixt_slowreader.py" \
		--target "$tgt" --host "$IXT_ADDR4_T" --initiator "$initiator" \
		--stall 6 "$@" 2>&1)
}

ixt_begin $((${#cases[@]} + 4))
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
ixt_load || ktap_exit_fail_msg "cannot load iscsi_xt"
{
	ixt_rd_lun0 "$tpg" "$rd" 4096 && mkdir "$tpg/np/$portal" &&
		echo 0 >"$tpg/attrib/authentication"
} || ktap_exit_fail_msg "cannot configure the target"
for i in "$initiator" "$initiator-other" "$initiator-quiet" \
	"$initiator-trickle"; do
	acl=$tpg/acls/$i
	{
		mkdir -p "$acl/lun_0" && ln -s "$tpg/lun/lun_0" "$acl/lun_0/map" &&
			echo 3 >"$acl/attrib/nopin_timeout" &&
			echo 3 >"$acl/attrib/nopin_response_timeout"
	} || ktap_exit_fail_msg "cannot create the ACL of $i"
done
echo 0 >"$tpg/acls/$initiator-quiet/attrib/nopin_timeout" ||
	ktap_exit_fail_msg "cannot turn the quiet ACL's NOP-Ins off"
# read_trickle's: no NOP-In, and a send queue may stand still for 30 s
# (a trickle wakes the target's sends only once half its socket buffer
# is read).
{
	echo 0 >"$tpg/acls/$initiator-trickle/attrib/nopin_timeout" &&
		echo 30 >"$tpg/acls/$initiator-trickle/attrib/nopin_response_timeout"
} || ktap_exit_fail_msg "cannot set the trickle ACL's timeouts"
echo 1 >"$tpg/enable" || ktap_exit_fail_msg "cannot enable the TPG"
ixt_owned_mark iscsi_xt target_core_mod

ixt_raw_cases "${cases[@]}"
ixt_check "every cache line is back in the pool" ixt_pool_all_free
ixt_check "the target logged why it closed each flooded connection" \
	eval '[ "$(ixt_klog_since_mark | grep -c "no answer to NOP-In\|read nothing of its responses")" -ge 3 ] &&
	      ixt_klog_since_mark | grep -q "slow-quiet: .* read nothing of its responses" &&
	      ixt_klog_since_mark | grep -q "slow-trickle: .* read too slowly" &&
	      ixt_klog_since_mark | grep -q "slow-trickle: .* sends its writes.* data too slowly"'
ixt_cfs_clear
ixt_owned_check "once the configuration is gone" iscsi_xt target_core_mod
ixt_unload
ixt_check "iscsi_xt unloads" [ ! -d /sys/module/iscsi_xt ]
ixt_finish
