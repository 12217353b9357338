#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# data.sh tcp|iser: the data path with open-iscsi over one transport,
# proved by fio; run as tcp_data.sh and iser_data.sh (soft-RoCE rxe0,
# or siw0 with IXT_RDMA=siw).
#
# The same for both: two LUNs on one demo-mode TPG, a ramdisk (rd_mcp)
# and iblock over a memory-backed null_blk, take random writes of 512
# bytes, 4 KiB, 64 KiB and 1 MiB at iodepth 1 and 32, and every block is
# read back with its CRC32C right (each cell writes an 8 MiB region of
# its own, so that data an earlier cell left cannot pass). Then ext4 on
# the iblock LUN: mkfs, a tree of files written and synced, and after a
# fresh login fsck finds it clean and every file reads back with its
# sha256. Three more logins negotiate other settings, iscsiadm shows
# each negotiated value, and fio verifies 64 KiB and 1 MiB writes under
# each: ImmediateData=No with InitialR2T=Yes (every byte solicited);
# MaxBurstLength 16 KiB, FirstBurstLength 8 KiB, InitialR2T=No and
# ImmediateData=No (unsolicited Data-Out, then many R2Ts per command);
# ImmediateData with a FirstBurstLength of 512 bytes (an unaligned split
# between immediate and solicited data). At the end the session logs
# out, the modules unload with every cache line back in the pool, and
# the target rejected no PDU.
#
# Over TCP only: two more logins, with header and data digests, and with
# the TPG's MaxXmitDataSegmentLength at 4 KiB (which the target declares
# as its MaxRecvDataSegmentLength, as LIO does) and InitialR2T=No
# (immediate data, unsolicited and solicited Data-Out all in 4 KiB PDUs).
#
# Over iSER only (it reads iscsi_xt's own counters: not with
# IXT_TARGET=lio): 4 MiB writes too (the iSER initiator reloaded with
# max_sectors=8192, above its default 512 KiB). Data-In leaves as RDMA
# WRITEs from the cache lines, solicited Data-Out comes in as RDMA READs
# straight into them, and each response invalidates the initiator's
# STag (Send with Invalidate, counted in debugfs); a read's response
# goes in the same post as its last RDMA WRITEs, chained behind them
# (counted in debugfs too). The debugfs cost file counts 16 direct
# writes of 64 KiB read back under two of the logins: 1 MiB each way, no
# byte copied out (RDMA WRITEs), and in only the immediate data (from
# the receive buffers; RDMA READs fetch the rest): none when every byte
# is solicited, 512 bytes a command with the unaligned split. With the
# iSER module's recv_depth at 40, the session's command window is cut to
# the 24 commands its receive buffers can take. Last, the descriptor
# builder's limits are shrunk with the iSER module's debug parameters (1
# SGE and 4 KiB per work request, a send queue of 4): the debugfs
# counters show that transfers were divided and continued after waiting
# for send queue slots, and fio still verifies every block.

. "$(dirname "$0")/lib.sh"

transport=${1:-}
case $transport in
tcp)	iface=default hba=78 nb_sectors=2048 ;;
iser)	iface=iser hba=79 nb_sectors=8192 ;;
*)	echo "usage: data.sh tcp|iser" >&2; exit 2 ;;
esac

ixt_require_root
ixt_require_cmd fio mkfs.ext4 fsck.ext4 sha256sum
ixt_require_initiator
if [ "$transport" = iser ]; then
	ixt_require_iser
	[ "$IXT_TARGET" = xt ] || ixt_skip_all "iser_data.sh reads iscsi_xt's own counters"
else
	ixt_require_module
fi
modprobe -q target_core_iblock || ixt_skip_all "target_core_iblock unavailable"
modprobe -n -q null_blk || ixt_skip_all "null_blk unavailable"

tgt=iqn.2026-11.org.example.data:$transport
portal=$IXT_ADDR4_T:3260
tpg=$IXT_FABRIC/$tgt/tpgt_1
rd=$IXT_CFS/core/rd_mcp_$hba/ixt_data_rd
ib=$IXT_CFS/core/iblock_$hba/ixt_data_nb
# 128 MiB: LUN 0 takes up to fourteen 8 MiB regions, and iSER's cost
# check the last MiB.
rd_pages=32768
iser_params=/sys/module/iscsi_xt_iser/parameters
mnt=$(mktemp -d)
work=$(mktemp -d)
# The disks of LUN 0 and LUN 1 in the current session, and the next
# unused 8 MiB region of each.
disk=()
region=(0 0)

# The TPG's offer for the login, as the TPG starts: restored before each
# login, which then changes only what it names.
params="HeaderDigest DataDigest InitialR2T ImmediateData MaxRecvDataSegmentLength
	MaxXmitDataSegmentLength MaxBurstLength FirstBurstLength"
declare -A param0

cleanup() {
	mountpoint -q "$mnt" && umount "$mnt"
	rm -rf "$mnt" "$work"
}
trap cleanup EXIT

# login TARGET_SETTINGS [NAME=VALUE...]: log out if logged in, offer the
# TPG's defaults changed by TARGET_SETTINGS ("Key=Value ..."), log in
# through the transport's iface with the node settings given; sets
# disk[] to the disks of LUN 0 and LUN 1.
login() {
	local kv

	ixt_node $iface "$tgt" "$portal" --logout
	for kv in $params; do
		echo "${param0[$kv]}" >"$tpg/param/$kv" || return 1
	done
	for kv in $1; do
		echo "${kv#*=}" >"$tpg/param/${kv%%=*}" || return 1
	done
	shift
	ixt_login $iface "$tgt" "$portal" "$@" || return 1
	disk[0]=$(ixt_target_disk "$tgt" 0) && disk[1]=$(ixt_target_disk "$tgt" 1)
}

if [ "$transport" = iser ]; then
	ixt_begin 58
	# The initiator's largest command, 4 MiB, for the 4 MiB cells.
	rmmod ib_iser 2>/dev/null
	modprobe ib_iser max_sectors=8192 || ktap_exit_fail_msg "cannot load ib_iser"
	ixt_target_load || ktap_exit_fail_msg "cannot load iscsi_xt and its iSER transport"
	iser=1
else
	ixt_begin 48
	ixt_load || ktap_exit_fail_msg "cannot load iscsi_xt"
	iser=0
fi
ixt_null_blk nr_devices=1 memory_backed=1 gb=1 max_sectors=$nb_sectors ||
	ktap_exit_fail_msg "cannot load null_blk"

ixt_data_target "$tpg" "$rd" "$ib" $rd_pages "$portal" $iser ||
	ktap_exit_fail_msg "cannot configure the target"
for p in $params; do
	param0[$p]=$(cat "$tpg/param/$p")
done

ixt_check "the initiator logs in over $transport, both LUNs show up as disks" login ""
ixt_check "the session runs over $transport" \
	eval '[ "$(ixt_sid_transport "$(ixt_sid $transport "$tgt")")" = $transport ]'
ixt_check "their sizes are the ramdisk's and the null_blk's (${disk[*]})" \
	eval '[ "$(cat /sys/block/${disk[0]#/dev/}/size)" -eq $((rd_pages * 8)) ] &&
	      [ "$(cat /sys/block/${disk[1]#/dev/}/size)" -eq $((1 << 21)) ]'

if [ "$transport" = iser ]; then
	w0=$(ixt_iser_stat rdma_writes) r0=$(ixt_iser_stat rdma_reads)
	i0=$(ixt_iser_stat send_invs) c0=$(ixt_iser_stat chained_sends)
fi
# KiB per cell: fewer small requests, which the VM is slow to carry.
declare -A cell_kib=([512]=1024 [4k]=4096 [64k]=8192 [1M]=8192 [4M]=8192)
for lun in 0 1; do
	for qd in 1 32; do
		for bs in 512 4k 64k 1M; do
			ixt_check "LUN $lun: fio random writes verified, bs=$bs iodepth=$qd" \
				ixt_fio_cell $lun $bs $qd "${cell_kib[$bs]}"
		done
	done
	if [ "$transport" = iser ]; then
		ixt_check "LUN $lun: fio random writes verified, bs=4M iodepth=4" \
			ixt_fio_cell $lun 4M 4 8192
	fi
done
if [ "$transport" = iser ]; then
	ixt_check "the data moved by RDMA WRITEs and READs ($(($(ixt_iser_stat rdma_writes) - w0)) and $(($(ixt_iser_stat rdma_reads) - r0)))" \
		eval '[ "$(ixt_iser_stat rdma_writes)" -gt "$w0" ] && [ "$(ixt_iser_stat rdma_reads)" -gt "$r0" ]'
	# ib_iser registers every buffer and takes Send with Invalidate; it
	# drops the connection on an invalidation of a STag that is not the
	# command's.
	ixt_check "responses invalidated the initiator's STags ($(($(ixt_iser_stat send_invs) - i0)) Sends with Invalidate)" \
		eval '[ "$(ixt_iser_stat send_invs)" -gt "$i0" ]'
	# fio reads every block back: each read's response is queued right
	# behind its Data-In, and with send queue room to spare goes in one
	# post with the Data-In's last RDMA WRITEs.
	ixt_check "reads chained their responses behind their RDMA WRITEs ($(($(ixt_iser_stat chained_sends) - c0)) chained Sends)" \
		eval '[ "$(ixt_iser_stat chained_sends)" -gt "$c0" ]'
fi

ixt_check "mkfs.ext4 on LUN 1" \
	eval 'mkfs.ext4 -q -F "${disk[1]}" >"$work/mkfs" 2>&1 || { ixt_show_tail "$work/mkfs"; false; }'
ixt_check "a tree of files written, synced and unmounted" \
	eval 'mount "${disk[1]}" "$mnt" && ixt_write_tree "$mnt" "$work/sums" && sync && umount "$mnt"'
# A new session, so that nothing below is read from the initiator's caches.
ixt_check "a fresh login shows both LUNs again" login ""
ixt_check "fsck.ext4 -n -f finds the file system clean" \
	eval 'fsck.ext4 -n -f "${disk[1]}" >"$work/fsck" 2>&1 || { ixt_show_tail "$work/fsck"; false; }'
ixt_check "remounted, every file has its sha256" \
	eval 'mount -o ro "${disk[1]}" "$mnt" && (cd "$mnt" && sha256sum --quiet -c "$work/sums") &&
	      umount "$mnt"'

# scenario NAME TARGET_SETTINGS NODE_SETTINGS NEGOTIATED...: a login with
# those settings shows the NEGOTIATED values, and fio verifies 64 KiB
# writes at iodepth 8 on LUN 0 and 1 MiB writes at iodepth 4 on LUN 1.
scenario() {
	local name=$1 tset=$2 iset=$3

	shift 3
	# shellcheck disable=SC2086
	ixt_check "$name: a fresh login shows both LUNs" login "$tset" $iset
	ixt_check "$name: negotiated $(printf '%s, ' "$@" | sed 's/, $//')" \
		ixt_negotiated "$@"
	ixt_check "$name: LUN 0: fio random writes verified, bs=64k iodepth=8" \
		ixt_fio_cell 0 64k 8 8192
	ixt_check "$name: LUN 1: fio random writes verified, bs=1M iodepth=4" \
		ixt_fio_cell 1 1M 4 8192
}

if [ "$transport" = iser ]; then
	mib=1048576
	head -c $mib /dev/urandom >"$work/pat"
	lines=$((16 * ((65536 + $(cat /sys/module/iscsi_xt/parameters/line_size) - 1) /
		$(cat /sys/module/iscsi_xt/parameters/line_size))))

	# cost_rw COPIED_IN: with the target idle and its cost file reset,
	# 16 direct writes of 64 KiB to the last MiB of LUN 0 read back
	# equal, and the file counts 32 commands, 1 MiB each way, COPIED_IN
	# bytes copied in and none out.
	cost_rw() {
		ixt_cost_reset &&
			dd if="$work/pat" of="${disk[0]}" bs=64k seek=2032 oflag=direct 2>/dev/null &&
			cmp <(dd if="${disk[0]}" bs=64k skip=2032 count=16 iflag=direct 2>/dev/null) \
				"$work/pat" &&
			ixt_cost_is cmds=32 payload_rx_bytes=$mib payload_tx_bytes=$mib \
				    copied_rx_bytes="$1" copied_tx_bytes=0 lines=$((2 * lines))
	}

	# cost_imm: with the target idle and its cost file reset, 16 direct
	# writes of 4 KiB and 16 of 8 KiB to the last MiB of LUN 0, each all
	# immediate data under the default settings (8 KiB at most in a
	# Send), read back equal: the file counts 64 commands, 192 KiB each
	# way, no byte copied, and lines for the reads only: every write's
	# buffer is the receive buffer its data came in (rx_lent, one each).
	cost_imm() {
		local ls l0

		ls=$(cat /sys/module/iscsi_xt/parameters/line_size)
		l0=$(ixt_iser_stat rx_lent)
		head -c $((192 * 1024)) /dev/urandom >"$work/imm"
		ixt_cost_reset &&
			dd if="$work/imm" of="${disk[0]}" bs=4k seek=32512 count=16 \
			   oflag=direct 2>/dev/null &&
			dd if="$work/imm" of="${disk[0]}" bs=8k skip=8 seek=16264 count=16 \
			   oflag=direct 2>/dev/null &&
			cmp <(dd if="${disk[0]}" bs=4k skip=32512 count=16 iflag=direct 2>/dev/null;
			      dd if="${disk[0]}" bs=8k skip=16264 count=16 iflag=direct 2>/dev/null) \
				"$work/imm" &&
			ixt_cost_is cmds=64 payload_rx_bytes=196608 payload_tx_bytes=196608 \
				    copied_rx_bytes=0 copied_tx_bytes=0 \
				    lines=$((16 * ((4096 + ls - 1) / ls) + 16 * ((8192 + ls - 1) / ls))) ||
			return 1
		[ $(($(ixt_iser_stat rx_lent) - l0)) -eq 32 ] ||
			{ ktap_print_msg "rx_lent grew by $(($(ixt_iser_stat rx_lent) - l0)), expected 32"; return 1; }
	}

	# max_window: the largest command window of the (only) normal
	# session.
	max_window() {
		awk 'NR > 1 { print $6 }' /sys/kernel/debug/iscsi_xt/sessions
	}
fi
# Still the session of the defaults' fresh login.
if [ "$transport" = iser ]; then
	ixt_check "writes of 4 and 8 KiB, all immediate data: cost: no byte copied, no line taken, the receive buffers lent" \
		cost_imm
fi

if [ "$transport" = tcp ]; then
	scenario "digests" "" \
		"node.conn[0].iscsi.HeaderDigest=CRC32C node.conn[0].iscsi.DataDigest=CRC32C" \
		"HeaderDigest: CRC32C" "DataDigest: CRC32C"
fi
scenario "solicited only" "ImmediateData=No InitialR2T=Yes" \
	"node.session.iscsi.ImmediateData=No node.session.iscsi.InitialR2T=Yes" \
	"ImmediateData: No" "InitialR2T: Yes"
if [ "$transport" = iser ]; then
	ixt_check "solicited only: cost: 1 MiB written and read back, no byte copied" cost_rw 0
fi
scenario "small bursts" \
	"MaxBurstLength=16384 FirstBurstLength=8192 InitialR2T=No ImmediateData=No" \
	"node.session.iscsi.MaxBurstLength=16384 node.session.iscsi.FirstBurstLength=8192 node.session.iscsi.InitialR2T=No node.session.iscsi.ImmediateData=No" \
	"MaxBurstLength: 16384" "FirstBurstLength: 8192" "InitialR2T: No" "ImmediateData: No"
scenario "unaligned immediate data" "ImmediateData=Yes FirstBurstLength=512" \
	"node.session.iscsi.ImmediateData=Yes node.session.iscsi.FirstBurstLength=512" \
	"ImmediateData: Yes" "FirstBurstLength: 512"
if [ "$transport" = iser ]; then
	ixt_check "unaligned immediate data: cost: 1 MiB written and read back, 512 bytes a write copied" \
		cost_rw 8192
fi
if [ "$transport" = tcp ]; then
	scenario "4 KiB PDUs" "MaxXmitDataSegmentLength=4096 InitialR2T=No" \
		"node.session.iscsi.InitialR2T=No node.session.iscsi.ImmediateData=Yes" \
		"MaxXmitDataSegmentLength: 4096" "InitialR2T: No" "ImmediateData: Yes"
fi

if [ "$transport" = iser ]; then
	# With 40 receive buffers, 16 kept for unexpected PDUs, the session's
	# window is cut to 24 commands, whatever the ACL's queue depth (64).
	echo 40 >"$iser_params/recv_depth"
	ixt_check "40 receives: a fresh login shows both LUNs" login ""
	ixt_check "40 receives: the command window is cut to 24 ($(max_window))" \
		eval '[ "$(max_window)" = 24 ]'
	ixt_check "40 receives: LUN 0: fio random writes verified, bs=4k iodepth=32" \
		ixt_fio_cell 0 4k 32 4096
	echo 512 >"$iser_params/recv_depth"

	# The builder at its smallest: every work request one SGE of at
	# most 4 KiB, and a send queue of 4 work requests.
	echo 1 >"$iser_params/dbg_max_sge"
	echo 4096 >"$iser_params/dbg_max_wr_len"
	echo 4 >"$iser_params/send_depth"
	x0=$(ixt_iser_stat xfers) w0=$(ixt_iser_stat rdma_writes)
	r0=$(ixt_iser_stat rdma_reads) q0=$(ixt_iser_stat sq_waits)
	scenario "small builder limits" "" "" "ImmediateData: Yes"
	ixt_check "LUN 1: fio random writes verified, bs=4M iodepth=2, small builder limits" \
		ixt_fio_cell 1 4M 2 8192
	xfers=$(($(ixt_iser_stat xfers) - x0))
	wrs=$(($(ixt_iser_stat rdma_writes) - w0 + $(ixt_iser_stat rdma_reads) - r0))
	waits=$(($(ixt_iser_stat sq_waits) - q0))
	ixt_check "small builder limits: transfers divided ($wrs work requests for $xfers transfers)" \
		[ "$wrs" -ge $((xfers * 8)) ]
	ixt_check "small builder limits: transfers waited for send queue slots and went on ($waits times)" \
		[ "$waits" -gt 0 ]
	echo 0 >"$iser_params/dbg_max_sge"
	echo 0 >"$iser_params/dbg_max_wr_len"
	echo 256 >"$iser_params/send_depth"
fi

ixt_check "the initiator logs out" ixt_node $iface "$tgt" "$portal" --logout
ixt_node $iface "$tgt" "$portal" -o delete
ixt_cfs_clear
rmmod null_blk
ixt_check "every cache line is back in the pool" ixt_pool_all_free
ixt_check "the target's modules unload" ixt_target_unload
ixt_check "nothing was rejected" eval '! ixt_klog_since_mark | grep -q "rejecting"'
if [ "$transport" = iser ]; then
	rmmod ib_iser && modprobe ib_iser
fi
ixt_finish
