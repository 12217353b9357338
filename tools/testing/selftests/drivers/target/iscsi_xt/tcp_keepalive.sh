#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The ACL shows its live session's parameters (param/) and counters
# (fabric_statistics/iscsi_sess_stats: commands, responses, data read),
# and nothing once it logs out.
# The target watches its initiators: with the ACL's nopin_timeout and
# nopin_response_timeout at 3 s, an idle session (the initiator sends no
# NOP-Out of its own) gets a NOP-In every 3 s, which open-iscsi answers,
# so the session stays. When the initiator goes silent (a tc filter drops
# every packet of port 3260: initiator and target share the VM, so the
# traffic runs over lo), the NOP-In goes unanswered and the target drops
# the connection and ends the session after 3 s, logging why and counting
# a connection timeout; once the filter is gone the initiator logs in
# again and reads.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_module
ixt_require_cmd dd tc
ixt_require_initiator

tgt=iqn.2026-11.org.example.ka:t
portal=$IXT_ADDR4_T:3260
rd=$IXT_CFS/core/rd_mcp_79/ixt_ka
tpg=$IXT_FABRIC/$tgt/tpgt_1
acl=$tpg/acls/$IXT_INITIATOR

node() {
	iscsiadm -m node -T $tgt -p "$portal" "$@" >/dev/null 2>&1
}

block_port() {
	tc qdisc add dev lo root handle 1: prio &&
	tc filter add dev lo parent 1: protocol ip prio 1 u32 \
		match ip sport 3260 0xffff action drop &&
	tc filter add dev lo parent 1: protocol ip prio 2 u32 \
		match ip dport 3260 0xffff action drop
}

klog_count() {
	ixt_klog_since_mark | grep -c "$1"
}

ixt_begin 10
ixt_load || ktap_exit_fail_msg "cannot load iscsi_xt"

mkdir -p "$rd" && echo rd_pages=1024 >"$rd/control" && echo 1 >"$rd/enable"
mkdir -p "$tpg/lun/lun_0" && ln -s "$rd" "$tpg/lun/lun_0/rd"
mkdir "$tpg/np/$portal"
echo 0 >"$tpg/attrib/authentication"
mkdir "$acl" "$acl/lun_0" && ln -s "$tpg/lun/lun_0" "$acl/lun_0/map"
echo 3 >"$acl/attrib/nopin_timeout"
echo 3 >"$acl/attrib/nopin_response_timeout"
echo 1 >"$tpg/enable"

node -o new
node -o update -n node.conn[0].timeo.noop_out_interval -v 0
node -o update -n node.conn[0].timeo.noop_out_timeout -v 0
node -o update -n node.session.timeo.replacement_timeout -v 60
ixt_check "the initiator logs in" node --login
d=$(ixt_session_disks 1 | head -n 1)
ss=$acl/fabric_statistics/iscsi_sess_stats
rx0=$(cat "$ss/txdata_octs")
dd if="$d" of=/dev/null bs=64k count=16 iflag=direct 2>/dev/null
ixt_check "the ACL shows its session's parameters and counters" \
	eval '[ "$(cat "$acl/param/MaxBurstLength")" -gt 0 ] &&
	      [ "$(cat "$ss/indx")" -gt 0 ] && [ "$(cat "$ss/cmd_pdus")" -ge 16 ] &&
	      [ "$(cat "$ss/txdata_octs")" -ge $((rx0 + 1048576)) ] &&
	      [ "$(cat "$ss/rsp_pdus")" -ge 16 ]'
sleep 12
ixt_check "NOP-Ins of an idle session are answered: it stays 12 s" \
	eval '[ "$(klog_count "closing the connection")" -eq 0 ] &&
	      [ "$(klog_count "normal session of .*closed")" -eq 0 ]'

ixt_check "the initiator goes silent (tc drops port 3260 on lo)" block_port
for ((i = 0; i < 30; i++)); do
	[ "$(klog_count "normal session of .*closed")" -ge 1 ] && break
	sleep 1
done
ixt_check "a dead initiator is dropped: NOP-In unanswered" \
	eval 'ixt_klog_since_mark | grep -q "no answer to NOP-In from .* in 3 s, closing the connection"'
ixt_check "... its session ended, $i s after it went silent" \
	[ "$(klog_count "normal session of .*closed")" -ge 1 ]
ixt_check "... and counted as a connection timeout" \
	[ "$(cat "$IXT_FABRIC/$tgt/fabric_statistics/iscsi_sess_err/cxn_errors")" -eq 1 ]
tc qdisc del dev lo root
# The initiator sends no NOP-Out of its own: a read makes it notice.
timeout 90 dd if="$d" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null &
for ((i = 0; i < 60; i++)); do
	[ "$(klog_count "normal session TSIH .* logged in")" -ge 2 ] && break
	sleep 1
done
ixt_check "the initiator logs in again once it can" \
	eval '[ "$(klog_count "normal session TSIH .* logged in")" -ge 2 ] &&
	      iscsiadm -m session -P3 2>/dev/null | grep -q "Attached scsi disk"'
ixt_check "the initiator logs out" node --logout
ixt_check "... and the ACL shows no session" \
	eval '[ "$(cat "$acl/param/MaxBurstLength")" = "No Active iSCSI Session" ] &&
	      [ -z "$(cat "$ss/cmd_pdus")" ]'
node -o delete
wait
rm "$acl/lun_0/map" "$tpg/lun/lun_0/rd"
rmdir "$acl/lun_0" "$acl" "$tpg/lun/lun_0" "$tpg/np/$portal" "$tpg" \
	"$IXT_FABRIC/$tgt"
rmdir "$rd" "$(dirname "$rd")"
ixt_unload
ixt_finish
