#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What open-iscsi never sends, sent by the raw initiator ixt_raw.py over
# TCP, each case asserting the target's exact answer (RFC 7143): Login
# Requests with bad opcodes, stage codes, versions, TSIH, ISID or text
# (answered by a Login Response with the right status, then closed), a
# login that reinstates a live session (same ISID: the old one closed), a
# 17th session of one initiator (refused 0x0302 until one of its 16 logs
# out: sessions_per_initiator), too long login text in parts and in one
# PDU, a Login Response too long for
# one PDU (sent in parts with C, each fetched), ErrorRecoveryLevel=2
# answered 0, logins that stall (closed at the login timeout) or break
# off; in full feature phase, unsupported
# opcodes and malformed commands (Reject, the session going on), Data-Out
# with a bad TTT, offset or DataSN (also two Data-Outs in offset order
# whose DataSNs are swapped, DataPDUInOrder=Yes and No), overlapping or
# repeated data with DataPDUInOrder=No, unsolicited data beyond
# FirstBurstLength (Reject, then closed), data segments over
# MaxRecvDataSegmentLength (closed), what must be dropped silently
# (Data-Out for no command, CmdSN outside the window, NOP-Out with the
# reserved ITT), requests past a CmdSN gap held and answered in CmdSN
# order once it is filled, two writes sent in
# reverse CmdSN order (with R2Ts, and with immediate and unsolicited data),
# ABORT TASK of a write waiting for its Data-Out (Function complete, no
# response for the task), ABORT TASK and LUN RESET of a write held
# behind a CmdSN hole (answered at once, the write dropped when the hole
# closes), ABORT TASK SET and CLEAR TASK SET answered "not supported"
# and TARGET WARM RESET "rejected", aborting nothing, ABORT TASK of a
# CmdSN never received (taken as received, its late copy dropped), a
# wrong header digest (closed at once) and a wrong data digest in
# immediate data and in a Data-Out (Reject 0x02, then closed; each
# counted), a write whose R2T is never answered (closed after
# dataout_timeout, also while 4 KiB writes of its connection complete
# meanwhile: the timeout is each write's), a write whose unsolicited
# Data-Out never comes (InitialR2T=No, no R2T: closed after
# dataout_timeout too, also when an unmapped LUN answered it at once),
# a write whose immediate data stops halfway (closed after
# dataout_timeout, its lines back),
# a CmdSN hole left open with
# a write held behind it and the NOP-Ins answered (closed after
# nopin_timeout + nopin_response_timeout, 45 s), connections that die
# in the middle of data; each
# write that fails leaves its blocks and their neighbours as they were.
# Writes read back equal with and without digests, and with Data-Outs
# out of order: DataPDUInOrder=No (solicited and unsolicited, backwards
# and shuffled) and DataSequenceInOrder=No (four R2Ts outstanding,
# answered latest first). R2Ts ask for whole bursts, runs of table
# entries over several cache lines, one ending inside a line, and
# 3000-byte Data-Outs that straddle lines land in both (in order and
# out of order). A 32-byte CDB in an Extended CDB AHS (WRITE
# SAME(32) on a fileio LUN) reaches the target core whole; reads report
# underflow and overflow residuals (an underflow at the end of an iblock
# LUN too; writes: scsi_conformance.sh). Two connections of one session
# (MaxConnections=2): a write on the second waits for the CmdSN the first
# still owes, its unsolicited Data-Out kept meanwhile; one connection logs
# the other out; a third is refused (0x0206); one lost without Logout takes
# the session down (ERL0); a login with a live CID replaces it; ABORT
# TASK and LUN RESET on one of a write waiting for Data-Out on the other
# answered at once, both connections going on; a write held behind the
# hole on one, aborted from the other, dropped when the other closes the
# hole while the data segment of its unsolicited Data-Out is still on
# the way: the data lands in its own buffer, not in the lines a write of
# the other connection took meanwhile (read back equal); a NOP-Out held
# on one that is then reset: the session fails and nothing writes to the
# freed connection (both checked with SLUB's validate of every kmalloc
# cache and the kernel log); a write held behind the hole on one whose
# send queue is full (NOP-In echoes unread), delivered from the other:
# its R2T waits for room, the write untimed past dataout_timeout, and
# comes once the queue drains, the write then succeeding. Text Requests
# in full feature phase: keys of the login only answered Reject, unknown
# ones NotUnderstood, a new MaxRecvDataSegmentLength obeyed by the
# Data-In PDUs that follow, a key twice rejected (0x04). Then the whole set
# again, five times, must leave
# no object of the module or the target core (counted by allocation site)
# and no cache line behind, open-iscsi still logs in and reads the LUN,
# and the module unloads.
#
# The TPG allows what the cases ask for and no initiator has to take:
# InitialR2T=No, DataPDUInOrder=No, DataSequenceInOrder=No,
# MaxOutstandingR2T=4, MaxConnections=2, ErrorRecoveryLevel=2 (which
# logins get as 0); it declares MaxRecvDataSegmentLength 8192 (its
# MaxXmitDataSegmentLength, as LIO), under the 256 KiB
# (MaxBurstLength) an R2T asks for, so that a Data-Out can break that
# limit alone.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_module
ixt_require_cmd python3 dd losetup truncate
ixt_require_initiator

tgt=iqn.2026-11.org.example.badinput:rd
portal=$IXT_ADDR4_T:3260
rd=$IXT_CFS/core/rd_mcp_78/ixt_bad
fd=$IXT_CFS/core/fileio_78/ixt_bad_fd
fdimg=$(mktemp /tmp/ixt_bad_fd.XXXXXX)
ib=$IXT_CFS/core/iblock_78/ixt_bad_ib
ibimg=$(mktemp /tmp/ixt_bad_ib.XXXXXX)
tpg=$IXT_FABRIC/$tgt/tpgt_1
login_timeout=5
rounds=5

# The cases, in the order they run; the stalls run once, the rest again
# in the leak rounds.
cases_login=(login_logout login_sessions_per_initiator login_nop_first login_vendor_first login_csg_ffp
	login_nsg_reserved login_nsg_backwards login_transit_and_continue
	login_version login_tsih_unknown login_isid_changes login_key_no_equals
	login_key_no_nul login_key_not_utf8 login_value_not_utf8 login_key_twice
	login_unknown_key_twice login_missing_initiator login_unknown_target
	login_unknown_keys login_text_over_64k login_pdu_over_8k login_truncated
	login_reinstate login_rsp_continued login_erl_capped)
cases_ffp=(ffp_write_read ffp_write_read_digests ffp_vendor_opcode
	ffp_target_opcode ffp_login_request ffp_immediate_data_refused
	ffp_scsi_no_direction ffp_data_over_mrdsl ffp_dataout_unknown_ttt
	ffp_dataout_offset_outside ffp_dataout_wrong_datasn
	ffp_dataout_swapped_datasn ffp_unordered_swapped_datasn
	ffp_dataout_over_mrdsl ffp_unordered_dataout_overlap
	ffp_unordered_dataout_twice ffp_unordered_offset_outside
	ffp_unordered_dataout_wrong_datasn ffp_unordered_unsol_outside
	ffp_dataout_unknown_itt ffp_close_in_data_phase
	ffp_close_in_immediate_data ffp_unordered_reverse ffp_unordered_unsol
	ffp_unordered_sequences ffp_runs_across_lines
	ffp_runs_across_lines_unordered ffp_cmdsn_outside_window ffp_cmdsn_gap
	ffp_cmdsn_reorder_writes ffp_cmdsn_reorder_imm ffp_cmdsn_reorder_unsol
	ffp_unsol_reject_cmdsn ffp_nop_reserved_itt ffp_tmf
	ffp_abort_waiting_write ffp_abort_dup_itt ffp_abort_during_reset
	ffp_reset_other_nexus
	ffp_abort_held
	ffp_abort_held_unsol
	ffp_abort_task_set ffp_abort_never_received ffp_header_digest_error
	ffp_data_digest_error ffp_ext_cdb ffp_residual ffp_residual_at_end
	mcs_cmdsn_across
	mcs_limits mcs_reinstate_cid mcs_abort_across mcs_abort_held_dataout
	mcs_held_nop_reset mcs_held_logout_other_conn mcs_second_held_logout
	ffp_text_keys
	ffp_text_key_twice)
cases_stall=(login_stall_connect login_stall_tpg ffp_dataout_timeout
	ffp_dataout_timeout_per_write ffp_unsol_timeout ffp_unsol_timeout_refused
	ffp_immediate_data_stall ffp_cmdsn_hole_timeout mcs_r2t_put_off)

# raw ARGS...: run ixt_raw.py against the TPG; its lines in $raw_out.
raw() {
	raw_out=$(python3 "$ixt_libdir/ixt_raw.py" --target "$tgt" \
		--host "$IXT_ADDR4_T" --login-timeout "$login_timeout" "$@" 2>&1)
}

# rounds N CASE...: the cases N times over; only failures are shown.
rounds() {
	local rc=0

	raw --repeat "$@" || rc=$?
	ixt_raw_print '^ok '
	return $rc
}

node() {
	iscsiadm -m node -T $tgt -p "$portal" "$@" >/dev/null 2>&1
}

ixt_begin $((${#cases_login[@]} + ${#cases_ffp[@]} + ${#cases_stall[@]} + 5))
ixt_load || ktap_exit_fail_msg "cannot load iscsi_xt"

mkdir -p "$rd" && echo rd_pages=2048 >"$rd/control" && echo 1 >"$rd/enable"
mkdir -p "$tpg/lun/lun_0" && ln -s "$rd" "$tpg/lun/lun_0/ixt_bad"
mkdir "$tpg/np/$portal"
echo 0 >"$tpg/attrib/authentication"
echo 1 >"$tpg/attrib/generate_node_acls"
echo 0 >"$tpg/attrib/demo_mode_write_protect"
echo $login_timeout >"$tpg/attrib/login_timeout"
echo No >"$tpg/param/InitialR2T"
echo No >"$tpg/param/DataPDUInOrder"
echo No >"$tpg/param/DataSequenceInOrder"
echo 4 >"$tpg/param/MaxOutstandingR2T"
echo 8192 >"$tpg/param/MaxXmitDataSegmentLength"
echo 2 >"$tpg/param/MaxConnections"
echo 2 >"$tpg/param/ErrorRecoveryLevel"
mkdir -p "$fd" && echo "fd_dev_name=$fdimg,fd_dev_size=4194304" >"$fd/control" &&
	echo 1 >"$fd/enable"
mkdir -p "$tpg/lun/lun_1" && ln -s "$fd" "$tpg/lun/lun_1/ixt_bad_fd"
modprobe -q loop
truncate -s 4M "$ibimg" && loop=$(losetup -f --show "$ibimg") &&
	mkdir -p "$ib" && echo "udev_path=$loop" >"$ib/control" &&
	echo 1 >"$ib/enable" && mkdir -p "$tpg/lun/lun_2" &&
	ln -s "$ib" "$tpg/lun/lun_2/ixt_bad_ib" ||
	ktap_exit_fail_msg "cannot set up the iblock LUN over a loop device"
echo 1 >"$tpg/enable"

ixt_raw_cases "${cases_login[@]}" "${cases_ffp[@]}" "${cases_stall[@]}"

before=$(mktemp)
after=$(mktemp)
tracked=0
for f in /sys/kernel/debug/slab/*/alloc_traces; do
	[ -e "$f" ] && tracked=1 && break
done
sleep 2
ixt_owned_objects iscsi_xt target_core_mod >"$before"
ixt_check "the cases run $rounds times more" \
	rounds $rounds "${cases_login[@]}" "${cases_ffp[@]}"
# Some objects go only after an RCU grace period or a work item (an
# initiator's workqueue frees its pool_workqueues so): up to 10 s.
for ((i = 0; i < 10; i++)); do
	sleep 1
	ixt_owned_objects iscsi_xt target_core_mod >"$after"
	ixt_owned_growth "$before" "$after" $rounds >/dev/null && break
done
if [ "$tracked" -eq 0 ]; then
	ktap_test_skip "no object left behind (needs slub_debug=U and debugfs)"
else
	ktap_print_msg "objects of iscsi_xt and target_core_mod in use:" \
		"$(awk '{n += $2} END {print n + 0}' "$before") before," \
		"$(awk '{n += $2} END {print n + 0}' "$after") after"
	grown=$(ixt_owned_growth "$before" "$after" $rounds)
	[ -n "$grown" ] &&
		ktap_print_msg "allocation sites that grew: $(tr '\n' ' ' <<<"$grown")"
	ixt_check "no object left behind: less than one a round" \
		eval 'ixt_owned_growth "$before" "$after" $rounds >/dev/null'
fi
rm -f "$before" "$after"
ixt_check "every cache line is back in the pool" ixt_pool_all_free

node -o new
node -o update -n node.session.initial_login_retry_max -v 1
ixt_check "open-iscsi still logs in and reads the whole LUN" \
	eval 'node --login && d=$(ixt_session_disks 1 | head -n 1) &&
	      dd if=$d of=/dev/null bs=1M iflag=direct 2>/dev/null'
node --logout
node -o delete

rm "$tpg/lun/lun_0/ixt_bad" "$tpg/lun/lun_1/ixt_bad_fd" \
	"$tpg/lun/lun_2/ixt_bad_ib"
rmdir "$tpg/lun/lun_0" "$tpg/lun/lun_1" "$tpg/lun/lun_2" "$tpg/np/$portal" \
	"$tpg" "$IXT_FABRIC/$tgt"
rmdir "$rd" "$(dirname "$rd")" "$fd" "$(dirname "$fd")" "$ib" \
	"$(dirname "$ib")"
losetup -d "$loop"
rm -f "$fdimg" "$ibimg"
ixt_unload
ixt_check "iscsi_xt unloads" [ ! -d /sys/module/iscsi_xt ]
ixt_finish
