#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Registered RDMA READ sinks (iser_reg.c): on iWARP the sink of an RDMA
# READ must be a memory region, so each READ the descriptor builder makes
# (in page-list mode) goes after a fast registration of an MR from the
# connection's pool; the force_reg parameter does the same on soft-RoCE.
# open-iscsi over iSER, a ramdisk LUN and an iblock LUN over null_blk,
# fio writing random blocks of 4 KiB to 4 MiB with CRC32C verification:
# (1) rxe0 with force_reg: the connection holds its MR pool (64 MRs, in
#     rdma res), every RDMA READ went into a registered MR.
# (2) rxe0 with a pool of one MR (dbg_mr_pool=1) and a send queue of 4:
#     fetches wait for the MR and continue (mr_waits), data verified.
# (3) rxe0 without force_reg: no MR, no registration; then 1 MiB writes
#     at iodepth 32 through the 20 MiB cache-line pool the test loads
#     iscsi_xt with: commands find the pool dry and wait in the receive
#     backlog until the pool wakes the connection, data verified.
# (4) siw0 (soft-iWARP): registration without any parameter, 64 MRs.
# (5) siw0 with one MR and a send queue of 4, as (2).
# Then the initiator logs out, iscsi_xt_iser holds no PD, CQ, QP or MR,
# every cache line is back in the pool, no slab
# object of the target's modules is left, and the modules unload.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_cmd fio
ixt_require_initiator
ixt_require_iser
modprobe -q target_core_iblock || ixt_skip_all "target_core_iblock unavailable"
modprobe -n -q null_blk || ixt_skip_all "null_blk unavailable"
[ "$IXT_TARGET" = xt ] || ixt_skip_all "iser_reg.sh reads iscsi_xt's own counters"
[ -f "${IXT_SIW_KO:-}" ] ||
	ixt_skip_all "soft-iWARP is not built (${IXT_SIW_KO:-IXT_SIW_KO unset}): scripts/setup.sh builds it"

tgt=iqn.2026-11.org.example.iser:reg
portal=$IXT_ADDR4_T:3260
tpg=$IXT_FABRIC/$tgt/tpgt_1
rd=$IXT_CFS/core/rd_mcp_81/ixt_reg_rd
ib=$IXT_CFS/core/iblock_81/ixt_reg_nb
hba=$IXT_CFS/core/rd_mcp_81
iser_params=/sys/module/iscsi_xt_iser/parameters
owners=(iscsi_xt iscsi_xt_iser target_core_mod)
disk=()
region=(0 0)
ixt_work

cleanup() {
	ixt_cleanup
	rmmod null_blk
	ixt_use_rxe
	rmmod ib_iser && modprobe ib_iser
} >/dev/null 2>&1
trap cleanup EXIT

# login: a fresh iSER login; disk[] the disks of LUN 0 and LUN 1.
login() {
	ixt_iser_logout "$tgt" "$portal"
	ixt_iser_login "$tgt" "$portal" || return 1
	disk[0]=$(ixt_target_disk "$tgt" 0) && disk[1]=$(ixt_target_disk "$tgt" 1)
}

# mrs: the MRs iscsi_xt_iser holds.
mrs() {
	rdma res show mr 2>/dev/null | grep -cF '[iscsi_xt_iser]'
}

mrs_is() {
	[ "$(mrs)" = "$1" ]
}

# mrs_are N: iscsi_xt_iser holds N MRs, within 10 s (the connection
# before a fresh login may still be releasing its pool); shows how many
# otherwise.
mrs_are() {
	ixt_wait 10 mrs_is "$1" && return 0
	ktap_print_msg "iscsi_xt_iser holds $(mrs) MRs, not $1"
	return 1
}

# on_dev DEV: the session's connection is on RDMA device DEV.
on_dev() {
	ixt_rdma_cm CONNECT "$portal" | grep -q "link $1/" && return 0
	ktap_print_msg "no connected RDMA CM id of $1 on $portal: $(rdma res show cm_id 2>&1 | tr '\n' ';')"
	return 1
}

# pool_dry_cell: fio verifies 64 MiB of 1 MiB writes at iodepth 32 on
# LUN 1, more than the pool holds at once; commands found it dry.
pool_dry_cell() {
	local dry0 dry

	dry0=$(ixt_pool_field exhausted)
	ixt_fio_verify "${disk[1]}" 512M 65536 1M 32 || return 1
	dry=$(($(ixt_pool_field exhausted) - dry0))
	ktap_print_msg "commands found the pool dry $dry times"
	[ "$dry" -gt 0 ]
}

# snap: remember the counters; grew NAME: by how much NAME grew since.
declare -A c0
snap() {
	local n

	for n in rdma_reads reg_mrs mr_waits; do
		c0[$n]=$(ixt_iser_stat $n)
	done
}

grew() {
	echo $(($(ixt_iser_stat "$1") - c0[$1]))
}

# every_read_registered: since snap, READs were posted and each went
# into a registered MR.
every_read_registered() {
	local r m

	r=$(grew rdma_reads) m=$(grew reg_mrs)
	ktap_print_msg "$r RDMA READs, $m registrations"
	[ "$r" -gt 0 ] && [ "$r" = "$m" ]
}

# cells NAME: fio verifies 4 KiB at iodepth 32 and 64 KiB at iodepth 8
# on LUN 0, 1 MiB at iodepth 4 and 4 MiB at iodepth 2 on LUN 1.
cells() {
	ixt_check "$1: LUN 0: fio random writes verified, bs=4k iodepth=32" \
		ixt_fio_cell 0 4k 32 2048
	ixt_check "$1: LUN 0: fio random writes verified, bs=64k iodepth=8" \
		ixt_fio_cell 0 64k 8 4096
	ixt_check "$1: LUN 1: fio random writes verified, bs=1M iodepth=4" \
		ixt_fio_cell 1 1M 4 8192
	ixt_check "$1: LUN 1: fio random writes verified, bs=4M iodepth=2" \
		ixt_fio_cell 1 4M 2 8192
}

# tiny NAME DEV: a fresh login with one MR and a send queue of 4: fio
# verifies 64 KiB and 1 MiB writes, fetches waited for the MR.
tiny() {
	# shellcheck disable=SC2034 # the checks eval it
	local dev=$2

	echo 1 >"$iser_params/dbg_mr_pool"
	echo 4 >"$iser_params/send_depth"
	ixt_check "$1: a fresh login on $2 with one MR and a send queue of 4" \
		eval 'login && on_dev "$dev" && mrs_are 1'
	snap
	ixt_check "$1: LUN 0: fio random writes verified, bs=64k iodepth=8" \
		ixt_fio_cell 0 64k 8 4096
	ixt_check "$1: LUN 1: fio random writes verified, bs=1M iodepth=4" \
		ixt_fio_cell 1 1M 4 8192
	ixt_check "$1: fetches waited for the MR and went on ($(grew mr_waits) times)" \
		eval '[ "$(grew mr_waits)" -gt 0 ] && every_read_registered'
	echo 0 >"$iser_params/dbg_mr_pool"
	echo 256 >"$iser_params/send_depth"
}

ixt_begin 32
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
# The initiator's largest command, 4 MiB, for the 4 MiB cells.
rmmod ib_iser 2>/dev/null
modprobe ib_iser max_sectors=8192 || ktap_exit_fail_msg "cannot load ib_iser"
ixt_load pool_mb=20 && ixt_target_load ||
	ktap_exit_fail_msg "cannot load iscsi_xt and its iSER transport"
ixt_null_blk nr_devices=1 memory_backed=1 gb=1 max_sectors=8192 ||
	ktap_exit_fail_msg "cannot load null_blk"
mkdir -p "$hba" || ktap_exit_fail_msg "cannot create $hba"
ixt_owned_mark "${owners[@]}"
ixt_data_target "$tpg" "$rd" "$ib" 16384 "$portal" 1 ||
	ktap_exit_fail_msg "cannot configure the target"

# no_conn_res: iscsi_xt_iser holds no resource of a connection (cm_ids
# left out: the listener's, and any login attempt of an initiator still
# retrying a target of an earlier test).
no_conn_res() {
	[ "$(ixt_iser_res | sed 's/ cm_id [0-9]*//')" = "pd 0 cq 0 qp 0 mr 0" ]
}

# (1) soft-RoCE, forced.
echo Y >"$iser_params/force_reg"
ixt_check "rxe0, force_reg: the initiator logs in, the connection holds 64 MRs" \
	eval 'login && on_dev rxe0 && mrs_are 64'
snap
cells "rxe0, force_reg"
ixt_check "rxe0, force_reg: every RDMA READ went into a registered MR" \
	every_read_registered

# (2) One MR.
tiny "rxe0, force_reg, one MR" rxe0

# (3) Not forced: RoCE reads into the local DMA key.
echo N >"$iser_params/force_reg"
ixt_check "rxe0: a fresh login holds no MR" eval 'login && on_dev rxe0 && mrs_are 0'
snap
ixt_check "rxe0: LUN 1: fio random writes verified, bs=1M iodepth=4" \
	ixt_fio_cell 1 1M 4 8192
ixt_check "rxe0: RDMA READs without registration ($(grew rdma_reads) READs, $(grew reg_mrs) registrations)" \
	eval '[ "$(grew rdma_reads)" -gt 0 ] && [ "$(grew reg_mrs)" = 0 ]'
ixt_check "rxe0: 1 MiB writes at iodepth 32 through the 20 MiB pool verified, commands waited for lines" \
	pool_dry_cell

# (4) soft-iWARP: registration because the device needs it. The target
# lets its side of the connection go after the initiator's: rxe0 deleted
# under a live queue pair fails the queue pair (a QP fatal error event)
# and the Send on it ("Send failed: local QP operation error").
ixt_iser_logout "$tgt" "$portal"
ixt_check "siw0 in place of rxe0, once the target let go of the connection" \
	eval 'ixt_wait 30 no_conn_res && ixt_use_siw'
ixt_check "siw0: the initiator logs in over iWARP, the connection holds 64 MRs" \
	eval 'ixt_wait 30 login && on_dev siw0 && mrs_are 64'
snap
cells "siw0"
ixt_check "siw0: every RDMA READ went into a registered MR" every_read_registered

# (5) One MR on iWARP.
tiny "siw0, one MR" siw0

ixt_check "the initiator logs out, iscsi_xt_iser holds no PD, CQ, QP or MR" \
	eval 'ixt_iser_logout "$tgt" "$portal" && ixt_wait 10 no_conn_res ||
	      { ktap_print_msg "$(ixt_iser_res)"; false; }'
ixt_node iser "$tgt" "$portal" -o delete
ixt_check "every cache line is back in the pool" ixt_pool_all_free
ixt_check "the configuration is cleared" eval 'ixt_cfs_clear && rmmod null_blk'
ixt_owned_check "once the configuration is cleared" "${owners[@]}"
ixt_check "iscsi_xt and its iSER transport unload" ixt_target_unload
ixt_check "rxe0 is back on veth0" eval 'ixt_use_rxe && [ -d /sys/class/infiniband/rxe0 ]'
# Kernel warnings are the klog check's (ixt_finish), which leaves out the
# initiator's one known warning: matched here too, that warning failed
# this check when the test was the boot's first to remove a session.
ixt_check "no RDMA work request failed" \
	eval '! ixt_klog_since_mark | grep -E "iscsi_xt_iser: .*failed"'
ixt_finish
