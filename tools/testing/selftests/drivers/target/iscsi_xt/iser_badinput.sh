#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What ib_iser never sends, sent by the raw iSER initiator ixt_iser_raw.py
# (rdma-core's pyverbs, an RC QP through the RDMA CM on soft-RoCE rxe0),
# each case asserting the target's answer (RFC 7145, RFC 7143) and the
# rate-limited kernel log line that says why:
# - connection requests without the iSER CM header, whose header lacks
#   ZBVA_NOT_SUP, or with no responder resources (the target could not
#   read a write's data), are rejected (RDMA_CM_EVENT_REJECTED); so are those past
#   max_login_conns (1, one connection in login), before the target
#   builds anything for them (its PD, CQ, QP and receive buffers' fault
#   injection sites count no allocation); and one whose second login
#   receive buffer fails (a fault injection): the receive its queue pair
#   flushes closes nothing (no warning in the kernel log);
# - a login, NOP and logout, 64 KiB written (RDMA READs) and read back
#   (RDMA WRITEs) work: the client is sound;
# - messages of 10 and 60 bytes (shorter than the iSER header and BHS),
#   iSER flags other than iSCSI control (Hello, 0x00), a BHS announcing
#   more data or AHS than the Send carried: the connection is closed;
# - writes whose solicited data the target's RDMA READ cannot reach (a
#   wrong STag, a VA 4 KiB before the end of the buffer, an expected
#   length over the buffer its STag names): remote access error, closed,
#   the blocks (a pattern written and read back over iSER first) and
#   their neighbours unchanged; the same for a write naming a buffer
#   whose MR the initiator deregistered before sending it;
# - a READ whose iSER header names no read buffer (no RSV): closed, and
#   no SCSI Response goes after the Data-In that could not;
# - immediate data over FirstBurstLength: Reject 0x04, the session goes
#   on; an unsolicited Data-Out past FirstBurstLength, or two whose
#   DataSNs are swapped (offset 0 DataSN 1): Reject 0x04, closed; each
#   leaves the LUN unchanged;
# - immediate data of 1000 bytes of a 1024-byte write (the rest fetched),
#   and 4000 immediate, 96 unsolicited and 4096 fetched bytes of 8 KiB:
#   written and read back equal;
# - MaxOutstandingUnexpectedPDUs=4 and 64 immediate NOP-Outs back to back:
#   all answered, in order; 128 NOP-Outs and READs past MaxCmdSN: dropped
#   silently, the session goes on; NOP-Out ping data of up to 8192 bytes
#   echoed;
# - a second connection (MaxConnections=2) joining the session with 40
#   receive buffers (the module's recv_depth): the session's window comes
#   down to the 24 commands it can take, on both connections;
# - two connections accepted: each of the target's two queue pairs is in
#   a protection domain of its own (rdma res: two PDs of iscsi_xt_iser),
#   so that no queue pair reaches another connection's READ sinks;
# - a receive backlog (the next cache line allocation failing as an empty
#   pool would: a write put off, 8 NOP-Outs behind it) cut by a
#   disconnect, 16 times: the teardown cancels the receive work before
#   it drops the backlog (no list corruption in the kernel log);
# - ABORT TASK of a 4 MiB write while its RDMA READs are in flight (the
#   descriptor builder at 1 SGE and 4 KiB per work request, a send queue
#   of 4): Function complete, or Task does not exist after the write's
#   response;
# - a 2 MiB write (512 RDMA READs, the builder as for the abort) whose
#   MR the initiator deregisters right after the command, and one whose
#   connection it tears down: the blocks hold the old pattern or the
#   whole write, never a mix, their neighbours unchanged;
# - a NOP-Out as Send with Invalidate of an MR of the target's (every
#   connection registers its READ sinks: force_reg, as over iWARP): closed,
#   logged and counted (remote_invs);
# - a peer that stops posting receives (its connection request asking for
#   RNR retries for ever): 4 receives left after its login, then 8 NOP-Out
#   pings, 8 immediate TURs and a 4 MiB READ: the target's fifth Send
#   meets RNR NAKs until the target's own RNR retry count (6) runs out,
#   which rxe0 counts and the target logs, and the connection ends within
#   20 s (6 retries of the 655.36 ms RNR timer: 3.93 s, and room for
#   TCG); its session goes, every cache line is back in the pool, and
#   another session reads all the while and after (on rxe0 only: iWARP
#   has no RNR);
# - a login with RDMAExtensions=No: Login Response 0x0200, closed; one
#   without the key: the target offers RDMAExtensions=Yes and holds the
#   transition to full feature phase until it is answered; digests
#   offered: "None" for CRC32C,None, "Reject" for CRC32C, no digest used.
# Each connection the target closed took its session along. Then the
# cases that close a connection or flood it, the abort and the cut
# writes, once more,
# must leave no object of the target's modules behind (with
# slub_debug=U), every cache line is back in the pool, the RDMA
# resources of iscsi_xt_iser are back to what they were, open-iscsi
# still logs in over iSER and reads the LUN, and the modules unload.
# Runs on whichever device the VM put on veth0: rxe0, or siw0 in make
# check-full (IXT_RDMA=siw), where every READ sink is registered anyway.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_cmd dd
ixt_require_pyverbs
ixt_require_initiator
ixt_require_iser
[ "$IXT_TARGET" = xt ] ||
	ixt_skip_all "iser_badinput.sh reads iscsi_xt's own state (the pool)"

tgt=iqn.2026-11.org.example.iserbad:rd
portal=$IXT_ADDR4_T:3260
tpg=$IXT_FABRIC/$tgt/tpgt_1
hba=$IXT_CFS/core/rd_mcp_82
rd=$hba/ixt_iser_bad
iser_params=/sys/module/iscsi_xt_iser/parameters
owners=(iscsi_xt iscsi_xt_iser target_core_mod)
ixt_work

cases_cm=(cm_no_header cm_zbva cm_no_reads login_cap_first accept_fail_flush
	login_fails_in_accept)
cases_msg=(login_logout msg_10_bytes msg_60_bytes msg_not_ctrl msg_short_data)
cases_fetch=(write_read read_no_rsv write_bad_stag write_va_outside write_edtl_over_buffer
	write_stag_invalidated)
cases_unsol=(imm_over_fbl unsol_over_fbl unsol_swapped_datasn imm_unaligned
	abort_unsol_pending)
cases_ffp=(text_over_send nop_data nop_flood cmdsn_flood mcs_window_limit pd_per_conn
	backlog_disconnect read_rsp_after_close)
cases_login=(login_rdma_ext_no login_rdma_ext_unanswered login_digests)
cases=("${cases_cm[@]}" "${cases_msg[@]}" "${cases_fetch[@]}"
	"${cases_unsol[@]}" "${cases_ffp[@]}" "${cases_login[@]}")
# The second round: the cases that end a connection in the middle of
# something, or flood it.
cases_again=(msg_10_bytes msg_not_ctrl msg_short_data write_bad_stag
	write_edtl_over_buffer write_stag_invalidated unsol_over_fbl imm_over_fbl nop_flood cmdsn_flood
	login_rdma_ext_no)

# small_builder on|off: the descriptor builder at its smallest, so that
# a 4 MiB write takes a thousand RDMA READs, posted four at a time; or
# back to the defaults. Taken by the connections that come after.
small_builder() {
	local sge=0 len=0 depth=256

	[ "$1" = on ] && sge=1 len=4096 depth=4
	echo $sge >"$iser_params/dbg_max_sge" &&
		echo $len >"$iser_params/dbg_max_wr_len" &&
		echo $depth >"$iser_params/send_depth"
}

# rxe_cnt NAME: a counter of rxe0.
rxe_cnt() {
	cat "/sys/class/infiniband/rxe0/ports/1/hw_counters/$1"
}

# rnr_logged REGEX: the kernel log matches REGEX since rnr_no_recv's
# initiator said it stopped posting receives (its first run).
rnr_logged() {
	ixt_klog_since_mark "ixt_iser_raw: rnr_no_recv: " | grep -qE "$1" &&
		return 0
	ktap_print_msg "no kernel log line since rnr_no_recv stopped posting receives matches: $1"
	return 1
}

# force_reg Y|N: whether the connections that come after register their
# RDMA READ sinks on a device that does not need it (rxe0).
force_reg() {
	echo "$1" >"$iser_params/force_reg"
}

cleanup() {
	small_builder off
	force_reg N
	ixt_iser_logout "$tgt" "$portal"
	ixt_node iser "$tgt" "$portal" -o delete
	[ -d "$IXT_FABRIC" ] && ixt_cfs_clear
	ixt_target_unload
	ixt_work_rm
} 2>/dev/null
trap cleanup EXIT

# raw ARGS...: run ixt_iser_raw.py against the TPG; its lines in $raw_out.
raw() {
	raw_out=$(timeout $((600 * IXT_SLOW)) "$ixt_py" "$ixt_libdir/ixt_iser_raw.py" \
		--target "$tgt" --host "$IXT_ADDR4_T" "$@" 2>&1)
}

# again: the second round, its failures shown.
again() {
	local rc=0

	{ raw "${cases_again[@]}" && small_builder on &&
		raw abort_large_write write_cut_stag write_cut_conn &&
		force_reg Y && raw send_with_invalidate; } || rc=1
	small_builder off
	force_reg N
	[ $rc -eq 0 ] || ixt_raw_print '^ok '
	return $rc
}

res_same() {
	[ "$(ixt_iser_res)" = "$res0" ]
}

# no_session: the TPG lists no session.
no_session() {
	[ -z "$(tr -d '\n' <"$tpg/dynamic_sessions")" ]
}

# logged KLOG-REGEX...: each extended regular expression matches a kernel
# log line since the start.
logged() {
	local re

	for re in "$@"; do
		ixt_klog_since_mark | grep -qE "$re" && continue
		ktap_print_msg "no kernel log line matches: $re"
		return 1
	done
}

# send_abandoned BEFORE: the iSER teardown abandoned one Send more than
# the BEFORE it had (abandoned_sends), within 60 s.
send_abandoned() {
	ixt_wait 60 eval "[ \$(ixt_iser_stat abandoned_sends) -eq $(($1 + 1)) ]" &&
		return 0
	ktap_print_msg "abandoned_sends $(ixt_iser_stat abandoned_sends), $1 before"
	return 1
}

# open_iscsi_reads: open-iscsi logs in over iSER and reads the whole LUN.
open_iscsi_reads() {
	local d

	ixt_iser_login "$tgt" "$portal" && d=$(ixt_target_disk "$tgt" 0) &&
		dd if="$d" of=/dev/null bs=1M iflag=direct 2>/dev/null &&
		ixt_iser_logout "$tgt" "$portal"
}

ixt_begin $((${#cases[@]} + 5 + 15 + 9))
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
ixt_target_load || ktap_exit_fail_msg "cannot load iscsi_xt and its iSER transport"
{
	ixt_rd_lun0 "$tpg" "$rd" 8192 &&
		mkdir "$tpg/np/$portal" && echo 1 >"$tpg/np/$portal/iser" &&
		echo 0 >"$tpg/attrib/authentication" &&
		echo 1 >"$tpg/attrib/generate_node_acls" &&
		echo 0 >"$tpg/attrib/demo_mode_write_protect" &&
		echo No >"$tpg/param/InitialR2T" &&
		echo 2 >"$tpg/param/MaxConnections" &&
		echo 1 >"$tpg/enable"
} || ktap_exit_fail_msg "cannot configure the target"
# The listener's cm_id, and nothing else.
res0=$(ixt_iser_res)

t0=$SECONDS
ixt_raw_cases "${cases[@]}"
ktap_print_msg "the cases took $((SECONDS - t0)) s"

small_builder on
ixt_raw_cases abort_large_write write_cut_stag write_cut_conn
small_builder off
# shellcheck disable=SC2034 # a check evals them
invs0=$(ixt_iser_stat remote_invs)
force_reg Y
ixt_raw_cases send_with_invalidate
force_reg N
# shellcheck disable=SC2034
invs1=$(ixt_iser_stat remote_invs)

# The peer that posts no receives. rxe0 counts the RNR NAKs the target
# received and its work requests that ran out of RNR retries. iWARP has
# no RNR: on siw0 the initiator's device ends the connection at the first
# Send it has no receive for (a TERMINATE). siw may then keep Sends of
# the target queued until the peer closes its socket, which this peer
# never does: the target abandons them 10 s after its drain (logged,
# counted), and the teardown ends all the same; it used to wait for ever,
# about once in five runs.
late0=$(ixt_iser_stat late_flushes) aband0=$(ixt_iser_stat abandoned_sends)
cases_again+=(rnr_no_recv)
if [ "$IXT_RDMA" = siw ]; then
	ixt_raw_cases rnr_no_recv
	ktap_print_msg "late flushes $(($(ixt_iser_stat late_flushes) - late0)), Sends abandoned $(($(ixt_iser_stat abandoned_sends) - aband0))"
	# shellcheck disable=SC2016 # a check evals it
	ixt_check "the peer that posts no receives: its device ended the connection (TERMINATE logged)" \
		eval 'rnr_logged "siw: got TERMINATE"'
else
	rnr_exc0=$(rxe_cnt retry_rnr_exceeded_err) rnr_nak0=$(rxe_cnt rcvd_rnr_err)
	ixt_raw_cases rnr_no_recv
	rnr_exc1=$(rxe_cnt retry_rnr_exceeded_err) rnr_nak1=$(rxe_cnt rcvd_rnr_err)
	ktap_print_msg "rxe0: $((rnr_nak1 - rnr_nak0)) RNR NAKs received, $((rnr_exc1 - rnr_exc0)) work requests out of RNR retries"
	# shellcheck disable=SC2016 # a check evals it
	ixt_check "the peer that posts no receives: a Send of the target ran out of its RNR retries (logged, counted by rxe0)" \
		eval 'rnr_logged "Send failed: RNR retry counter exceeded" &&
		      { [ $((rnr_exc1 - rnr_exc0)) -eq 1 ] &&
			[ $((rnr_nak1 - rnr_nak0)) -ge 7 ] ||
			{ ktap_print_msg "expected 1 work request out of RNR retries after 7 RNR NAKs or more"; false; }; }'
fi
ixt_check "... its session is gone and every cache line is back in the pool" \
	eval 'ixt_sessions_gone 30 && ixt_pool_all_free'

# A device that never completes a Send, made deterministic: the
# dbg_lose_sends parameter (fault injection builds) has the next Send's
# completion ignored. The teardown after the Logout gives up on it 10 s
# after its drain; the command its response holds, and the command's
# lines, go then. It used to wait for ever.
aband0=$(ixt_iser_stat abandoned_sends)
ixt_raw_cases send_lost
# shellcheck disable=SC2016 # a check evals it
ixt_check "a Send never completed: the teardown abandons it (logged, counted), the session ends and every line is back" \
	eval 'send_abandoned "$aband0" && ixt_sessions_gone 10 &&
	      ixt_pool_all_free &&
	      logged "1 signaled work requests not completed 10 s after the queue pair was drained: abandoned"'

ixt_check "no session is left: every connection the target closed took its session along" \
	eval 'ixt_wait 10 no_session || { ktap_print_msg "dynamic_sessions: $(tr "\n" " " <"$tpg/dynamic_sessions")"; false; }'
ixt_check "logged: RDMA connection requests rejected (no header, zero-based addresses, no READs)" \
	logged "RDMA connection request rejected: no iSER CM header" \
	"RDMA connection request rejected: initiator wants zero-based addresses" \
	"RDMA connection request rejected: no responder resources"
ixt_check "logged: messages shorter than the iSER header and BHS (10 and 60 bytes)" \
	logged ": 10-byte message, shorter than" ": 60-byte message, shorter than"
ixt_check "logged: iSER messages 0x20 and 0x00 not supported" \
	logged "iSER message 0x20 not supported" "iSER message 0x00 not supported"
ixt_check "logged: more AHS and data announced than received" \
	logged "opcode 0x00: 4096 bytes of AHS and data announced, 100 received" \
	"opcode 0x00: 32 bytes of AHS and data announced, 0 received"
if [ "$IXT_RDMA" = siw ]; then
	# iWARP: the initiator's device answers a READ it refuses with a
	# TERMINATE (RDMAP, remote protection) and the connection ends: the
	# target's READs flush without a cause of their own.
	ixt_check "logged: the initiator's TERMINATE ended connections under their RDMA READs" \
		logged "siw: got TERMINATE\. layer 0, type 1," \
		"connection lost: .*, commands in progress: [1-9]"
else
	ixt_check "logged: the RDMA READs failed with a remote access error" \
		logged "(RDMA READ|RDMA transfer) failed: remote access error"
fi
ixt_check "logged: the READ without a read STag" \
	logged "ITT 0x[0-9a-f]+ reads 4096 bytes but gave no read STag"
ixt_check "logged: the Rejects of unsolicited data over FirstBurstLength" \
	logged "rejecting opcode 0x01, reason 0x04" "rejecting opcode 0x05, reason 0x04"
ixt_check "logged: the CmdSNs past MaxCmdSN dropped" \
	logged "CmdSN 0x[0-9a-f]+ outside 0x[0-9a-f]+\.\.0x[0-9a-f]+, dropped"
ixt_check "logged: the joining connection's window of 24 commands" \
	logged "command window 24, for the 40 receives posted"
ixt_check "logged: ABORT TASK (task management function 1)" \
	logged "task management function 1 on LUN 0"
ixt_check "logged: the login with RDMAExtensions=No failed (0x0200)" \
	logged "login of iqn\.2026-11\.org\.example:ixt-iser-raw failed, status 0x0200"
ixt_check "logged and counted: the initiator's Send with Invalidate of a target STag" \
	eval 'logged "the initiator invalidated STag 0x[0-9a-f]+, which the target never advertised" &&
	      { [ $((invs1 - invs0)) -eq 1 ] ||
		{ ktap_print_msg "remote_invs went from $invs0 to $invs1"; false; }; }'

sleep 2
ixt_owned_mark "${owners[@]}"
t0=$SECONDS
ixt_check "the cases that close or flood once more, and the abort" again
ktap_print_msg "the second round took $((SECONDS - t0)) s"
ixt_owned_check "by the second round" "${owners[@]}"
ixt_check "every cache line is back in the pool" ixt_pool_all_free
ixt_check "iscsi_xt_iser holds the RDMA resources it held before the first case ($res0)" \
	eval 'ixt_wait 10 res_same || { ktap_print_msg "now: $(ixt_iser_res)"; false; }'
ixt_check "open-iscsi still logs in over iSER and reads the whole LUN" \
	open_iscsi_reads
ixt_node iser "$tgt" "$portal" -o delete
ixt_check "the configuration is cleared" ixt_cfs_clear
ixt_check "iscsi_xt and its iSER transport unload" ixt_target_unload
ixt_finish
