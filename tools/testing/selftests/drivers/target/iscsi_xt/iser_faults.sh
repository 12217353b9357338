#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Faults during IO over iSER lose no data, leak nothing, and neither oops
# nor hang. open-iscsi over iSER (ib_iser on soft-RoCE rxe0, or on
# soft-iWARP siw0 with IXT_RDMA=siw as make check-full runs it; initiator
# and target in the same VM) runs fio with CRC32C verification (random
# 64 KiB writes, libaio, O_DIRECT, iodepth 8, each batch read back while
# later ones are written) on a ramdisk LUN of target A, again and again
# while faults strike; every run must end without an error or a
# mismatch:
# (1) a second iSER session, to target B, logs in, writes and verifies
#     2 MiB of its own LUN and logs out, three times;
# (2) the RDMA device goes (rdma link delete rxe0): the target closes the
#     connection (no connected RDMA CM id of iscsi_xt_iser is left on the
#     portal, target A has no session in configfs or in debugfs); the
#     device comes back (rdma link add rxe0): the target listens on the
#     portal again and says so in the kernel log, and the initiator logs
#     in again by itself (replacement_timeout 120 s: the block layer sees
#     no error meanwhile);
# (3) the TPG is disabled for 3 s and enabled again: the disable returns
#     within 5 s and the initiator logs in again;
# (4) two LUN resets (sg_reset -d) succeed and the target carries them
#     out;
# (5) rmmod iscsi_xt_iser is refused while a portal serves iSER and rmmod
#     iscsi_xt while a session is logged in; the session still writes
#     and verifies, then logs out, and no RDMA connection of the target
#     is left.
# At the end no I/O error reached the initiator's block layer, the
# target's RDMA resources (PDs, CQs, QPs, cm_ids, MRs) are back to what
# they were before the first login, every cache line is back in the
# pool, no slab object of the target's modules is left behind once the
# configuration is cleared (with slub_debug=U), and both modules unload.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_cmd fio sg_reset numfmt
ixt_require_initiator
ixt_require_iser
[ "$IXT_TARGET" = xt ] ||
	ixt_skip_all "iser_faults.sh reads iscsi_xt's own state (debugfs, the pool)"

pre=iqn.2026-11.org.example.iserfaults
tgt_a=$pre:a
tgt_b=$pre:b
portal=$IXT_ADDR4_T:3260
hba=$IXT_CFS/core/rd_mcp_81
dbg_sessions=/sys/kernel/debug/iscsi_xt/sessions
# The VM's RDMA device: soft-RoCE rxe0, or siw0 with IXT_RDMA=siw.
rxe=${IXT_RDMA_DEV:-rxe0}
rxe_type=${IXT_RDMA:-rxe}
rxe_netdev=veth0
ixt_work

# The RDMA device, back if a failed step left it deleted.
rxe_back() {
	rdma link show "$rxe/1" >/dev/null 2>&1 ||
		rdma link add "$rxe" type "$rxe_type" netdev "$rxe_netdev"
}

cleanup() {
	ixt_fio_loop_stop
	wait
	rxe_back
	ixt_iser_logout "$tgt_a" "$portal"
	ixt_iser_logout "$tgt_b" "$portal"
	ixt_node iser "$tgt_a" "$portal" -o delete
	ixt_node iser "$tgt_b" "$portal" -o delete
	[ -d "$IXT_FABRIC" ] && ixt_cfs_clear
	ixt_target_unload
	ixt_work_rm
} 2>/dev/null
trap cleanup EXIT

# add_target TARGET PAGES: a demo-mode target with one TPG whose portal
# serves iSER, and a ramdisk LUN of PAGES pages.
add_target() {
	local tpg=$IXT_FABRIC/$1/tpgt_1 rd=$hba/${1##*:}

	ixt_rd_lun0 "$tpg" "$rd" "$2" &&
		mkdir "$tpg/np/$portal" && echo 1 >"$tpg/np/$portal/iser" &&
		echo 0 >"$tpg/attrib/authentication" &&
		echo 1 >"$tpg/attrib/generate_node_acls" &&
		echo 0 >"$tpg/attrib/demo_mode_write_protect" &&
		echo 1 >"$tpg/enable"
}

# login TARGET PORTAL [NAME=VALUE...]: ixt_iser_login; prints the disk
# of LUN 0 of the session, which must run over iSER.
login() {
	local sid

	ixt_iser_login "$@" && sid=$(ixt_sid iser "$1") &&
		[ "$(ixt_sid_transport "$sid")" = iser ] && ixt_sid_disk "$sid" 0
}

# xt_cm STATE: the RDMA CM ids of iscsi_xt_iser in STATE on the portal.
xt_cm() {
	ixt_rdma_cm "$1" "$portal" | grep -F '[iscsi_xt_iser]'
}

show_cm_ids() {
	ktap_print_msg "cm_ids: $(rdma res show cm_id 2>&1 | tr '\n' ';')"
}

# Session B's part of (1): three rounds of login, write+verify, logout.
b_rounds() {
	local i db

	for i in 1 2 3; do
		db=$(login "$tgt_b" "$portal") ||
			{ ktap_print_msg "B: login $i failed"; return 1; }
		ixt_fio_verify_64k "$db" 0 2M || return 1
		ixt_iser_logout "$tgt_b" "$portal" ||
			{ ktap_print_msg "B: logout $i failed"; return 1; }
	done
}

# (1) Another session logs in and out while A writes.
case_logout_loop() {
	ixt_fio_loop_start "$da"
	ixt_writing "$da"
	ixt_check "session B logs in over iSER, writes and verifies 2 MiB, logs out, 3 times" \
		b_rounds
	ixt_check "target B counted 3 logins and 3 normal logouts" \
		ixt_logins_counted "$tgt_b" 3
	ixt_check "session A's fio runs meanwhile: no error, no mismatch" \
		ixt_fio_loop_end
}

# a_closed: the target closed A's connection: no connected RDMA CM id of
# iscsi_xt_iser on the portal, target A counts no session, its TPG lists
# none, and debugfs lists no session of the initiator.
a_closed() {
	[ -z "$(xt_cm CONNECT)" ] &&
		[ "$(cat "$IXT_FABRIC/$tgt_a/fabric_statistics/iscsi_instance/sessions")" = 0 ] &&
		[ -z "$(tr -d '\n' <"$IXT_FABRIC/$tgt_a/tpgt_1/dynamic_sessions")" ] &&
		! grep -q " $IXT_INITIATOR " "$dbg_sessions"
}

show_a() {
	show_cm_ids
	ktap_print_msg "target A: $(cat "$IXT_FABRIC/$tgt_a/fabric_statistics/iscsi_instance/sessions") sessions; dynamic_sessions: $(tr '\n' ' ' <"$IXT_FABRIC/$tgt_a/tpgt_1/dynamic_sessions")"
	ktap_print_msg "debugfs sessions: $(tr '\n' ';' <"$dbg_sessions")"
}

# listening_again: a listening RDMA CM id of iscsi_xt_iser on the
# portal, and the kernel log line that says it came back.
listening_again() {
	[ -n "$(xt_cm LISTEN)" ] &&
		ixt_klog_since_mark | grep -qF "listening on $portal again (iSER)"
}

# delete_under_io: A's connection shows as a connected cm_id of
# iscsi_xt_iser (what a_closed looks for), and rdma link delete returns
# within 60 s.
delete_under_io() {
	local t0=$SECONDS

	[ -n "$(xt_cm CONNECT)" ] ||
		{ ktap_print_msg "A's connection is not seen"; show_cm_ids; return 1; }
	timeout 60 rdma link delete "$rxe" || return 1
	ktap_print_msg "rdma link delete took $((SECONDS - t0)) s"
}

# (2) The RDMA device deleted under IO, and added again.
case_rdma_gone() {
	local acc

	acc=$(ixt_accepts "$tgt_a")
	ixt_fio_loop_start "$da"
	ixt_writing "$da"
	ixt_check "rdma link delete $rxe while fio writes returns" delete_under_io
	ixt_check "the target closes the connection: no connected cm_id of iscsi_xt_iser, no session of A in configfs or debugfs" \
		eval 'ixt_wait 15 a_closed || { show_a; false; }'
	# An outage long enough for the initiator to try and fail.
	sleep 3
	ixt_check "rdma link add $rxe type $rxe_type netdev $rxe_netdev" \
		rdma link add "$rxe" type "$rxe_type" netdev "$rxe_netdev"
	ixt_check "the target listens on $portal again (LISTEN cm_id, kernel log)" \
		eval 'ixt_wait 15 listening_again || { show_cm_ids; false; }'
	ixt_check "the initiator logs in again by itself" \
		ixt_relogged "$tgt_a" $((acc + 1))
	ixt_writing "$da"
	ixt_check "fio write+verify runs across the outage: no error, no mismatch" \
		ixt_fio_loop_end
}

# (3) The TPG disabled for 3 s and enabled again under IO.
case_tpg_disable() {
	local acc rc

	acc=$(ixt_accepts "$tgt_a")
	ixt_fio_loop_start "$da"
	ixt_writing "$da"
	ixt_timed_write 0 "$IXT_FABRIC/$tgt_a/tpgt_1/enable"
	rc=$?
	ixt_check "disabling TPG A under IO returns in $IXT_TOOK_MS ms (5 s at most)" \
		ixt_disabled_in_time $rc
	sleep 3
	echo 1 >"$IXT_FABRIC/$tgt_a/tpgt_1/enable"
	ixt_check "the initiator logs in again once TPG A is enabled" \
		ixt_relogged "$tgt_a" $((acc + 1))
	ixt_writing "$da"
	ixt_check "fio write+verify runs across the disable: no error, no mismatch" \
		ixt_fio_loop_end
}

# resets N: N LUN resets of A's disk, each while it writes.
resets() {
	local i out

	for ((i = 1; i <= $1; i++)); do
		ixt_writing "$da" || return 1
		out=$(timeout 120 sg_reset -d "$da" 2>&1) || {
			ktap_print_msg "sg_reset -d $da, reset $i: $out"
			return 1
		}
	done
}

# (4) LUN resets under IO.
case_lun_reset() {
	local n

	n=$(ixt_klog_count "task management function 5 on LUN 0")
	ixt_fio_loop_start "$da"
	ixt_check "two LUN resets (sg_reset -d) while fio writes succeed" resets 2
	ixt_check "the target carried both out (task management function 5 on LUN 0)" \
		ixt_klog_grew "task management function 5 on LUN 0" $((n + 2))
	ixt_writing "$da"
	ixt_check "fio write+verify runs across the resets: no error, no mismatch" \
		ixt_fio_loop_end
}

# (5) rmmod with a portal serving iSER and a session logged in.
case_rmmod() {
	ixt_check "rmmod iscsi_xt_iser is refused while a portal serves iSER" \
		ixt_rmmod_refused iscsi_xt_iser
	ixt_check "rmmod iscsi_xt is refused while a session is logged in" \
		ixt_rmmod_refused iscsi_xt
	ixt_check "... and the session still writes and verifies" \
		ixt_fio_verify_64k "$da" 16M 2M
	ixt_check "the initiator logs out of target A, no connected cm_id of iscsi_xt_iser is left" \
		a_logged_out
}

no_xt_conn() {
	[ -z "$(xt_cm CONNECT)" ]
}

a_logged_out() {
	ixt_iser_logout "$tgt_a" "$portal" || return 1
	ixt_wait 10 no_xt_conn && return 0
	show_cm_ids
	return 1
}

res_same() {
	[ "$(ixt_iser_res)" = "$res0" ]
}

res_back() {
	ixt_wait 10 res_same && return 0
	ktap_print_msg "iscsi_xt_iser's RDMA resources: before: $res0, after: $(ixt_iser_res)"
	ktap_print_msg "rdma res show: $(rdma res show 2>&1 | tr '\n' ';')"
	return 1
}

ixt_begin 26
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
ixt_target_load || ktap_exit_fail_msg "cannot load iscsi_xt and its iSER transport"
owners=(iscsi_xt iscsi_xt_iser target_core_mod)
# The first HBA loads the target core's backend modules, which register
# for good: before the snapshot.
mkdir -p "$hba" || ktap_exit_fail_msg "cannot create $hba"
ixt_owned_mark "${owners[@]}"
{
	add_target "$tgt_a" 16384 && add_target "$tgt_b" 1024
} || ktap_exit_fail_msg "cannot configure the targets"
res0=$(ixt_iser_res)

da=$(login "$tgt_a" "$portal" node.session.timeo.replacement_timeout=120)
ixt_check "the initiator logs in to target A over iSER, its LUN shows up ($da)" \
	[ -b "$da" ]
[ -b "$da" ] || ktap_exit_fail_msg "no iSER session to target A"
t0=$SECONDS
case_logout_loop
ktap_print_msg "(1) took $((SECONDS - t0)) s"
t0=$SECONDS
case_rdma_gone
ktap_print_msg "(2) took $((SECONDS - t0)) s"
t0=$SECONDS
case_tpg_disable
ktap_print_msg "(3) took $((SECONDS - t0)) s"
t0=$SECONDS
case_lun_reset
ktap_print_msg "(4) took $((SECONDS - t0)) s"
case_rmmod

ixt_check "no I/O error reached the initiator's block layer" ixt_no_io_error
ixt_node iser "$tgt_a" "$portal" -o delete
ixt_node iser "$tgt_b" "$portal" -o delete
ixt_check "iscsi_xt_iser holds the RDMA resources it held before the first login ($res0)" \
	res_back
ixt_check "every cache line is back in the pool" ixt_pool_all_free
ixt_check "the configuration is cleared" ixt_cfs_clear
ixt_owned_check "once the configuration is cleared" "${owners[@]}"
ixt_check "iscsi_xt and its iSER transport unload" ixt_target_unload
ixt_finish
