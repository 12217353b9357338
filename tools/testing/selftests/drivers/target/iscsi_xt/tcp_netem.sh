#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A bad network under fio write+verify, over TCP. The initiator's and the
# target's addresses are both the VM's, so a session's packets cross lo:
# a prio qdisc on lo sends those of port 3260 through netem.
#
# - Lossy: 1% loss, 2 ms delay with 1 ms jitter, 10% reordered, 1%
#   duplicated, for 20 s: netem drops and duplicates packets, fio goes on.
# - Black hole: 100% loss, longer than the ACL's nopin_timeout +
#   nopin_response_timeout (3 s + 3 s): the target's keepalive finds the
#   connection dead, closes it and ends the session; meanwhile every cache
#   line of its commands is back in the pool. When the hole ends, open-
#   iscsi (replacement_timeout 120 s) logs in again and retries what was
#   in flight.
#
# fio verifies every run throughout, no I/O error reaches the initiator,
# and afterwards no object of the module or the target core is left.
# iSER has no such test: soft-RoCE loops the packets of a session inside
# the driver (see iser_keepalive.sh), where no qdisc sees them.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_module
ixt_require_cmd tc fio
ixt_require_initiator
modprobe -q sch_netem || ixt_skip_all "needs sch_netem"

tgt=iqn.2026-11.org.example.netem:t
portal=$IXT_ADDR4_T:3260
rd=$IXT_CFS/core/rd_mcp_85/ixt_netem
tpg=$IXT_FABRIC/$tgt/tpgt_1
acl=$tpg/acls/$IXT_INITIATOR
owners=(iscsi_xt target_core_mod)

cleanup() {
	ixt_fio_loop_stop
	ixt_netem_off
	ixt_cleanup
}
trap cleanup EXIT

no_session() {
	[ "$(cat "$acl/param/MaxBurstLength")" = "No Active iSCSI Session" ]
}

ixt_begin 11
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
ixt_work || ktap_exit_fail_msg "no work directory"
ixt_load || ktap_exit_fail_msg "cannot load iscsi_xt"
{
	ixt_rd_lun0 "$tpg" "$rd" 16384 && mkdir "$tpg/np/$portal" &&
		echo 0 >"$tpg/attrib/authentication" &&
		mkdir "$acl" "$acl/lun_0" &&
		ln -s "$tpg/lun/lun_0" "$acl/lun_0/map" &&
		echo 3 >"$acl/attrib/nopin_timeout" &&
		echo 3 >"$acl/attrib/nopin_response_timeout" &&
		echo 1 >"$tpg/enable"
} || ktap_exit_fail_msg "cannot configure the target"
ixt_owned_mark "${owners[@]}"

ixt_check "the initiator logs in" \
	ixt_login default "$tgt" "$portal" \
	node.conn[0].timeo.noop_out_interval=0 \
	node.conn[0].timeo.noop_out_timeout=0 \
	node.session.timeo.replacement_timeout=120
d=$(ixt_target_disk "$tgt" 0) || ktap_exit_fail_msg "no disk"
ixt_fio_loop_start "$d"
ixt_writing "$d"

ixt_check "lossy network: netem on port 3260 (1% loss, 2 +- 1 ms, 10% reordered, 1% duplicated)" \
	ixt_netem delay 2ms 1ms loss 1% duplicate 1% reorder 10%
sleep 20
ixt_check "... netem dropped packets, fio still writes" \
	eval 'ktap_print_msg "netem: $(ixt_netem_stat pkt) packets, $(ixt_netem_stat dropped) dropped" &&
	      [ "$(ixt_netem_stat dropped)" -gt 0 ] && ixt_writing "$d"'

ixt_check "black hole: every packet of port 3260 dropped" ixt_netem loss 100%
t0=$SECONDS
ixt_check "... the target's keepalive ends the session" \
	eval 'ixt_wait 30 no_session &&
	      ixt_klog_since_mark | grep -q "no answer to NOP-In from .*, closing the connection" &&
	      ktap_print_msg "session gone $((SECONDS - t0)) s into the hole"'
ixt_check "... every cache line of its commands is back in the pool" \
	ixt_pool_all_free
ixt_netem_off
ixt_check "the hole ends: open-iscsi logs in again" ixt_relogged "$tgt" 2
ixt_check "fio verified every run meanwhile" ixt_fio_loop_end
ixt_check "no I/O error reached the initiator" ixt_no_io_error
ixt_check "the initiator logs out" ixt_node default "$tgt" "$portal" --logout
ixt_node default "$tgt" "$portal" -o delete
ixt_owned_check "by the faults" "${owners[@]}"
ixt_cfs_clear
ixt_unload
ixt_finish
