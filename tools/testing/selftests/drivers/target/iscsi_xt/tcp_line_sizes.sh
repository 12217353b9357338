#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# R2Ts over runs of table entries at the line sizes unlike the default
# 32 KiB that every other test uses: iscsi_xt loaded with cache lines of
# 4 KiB (the smallest: a 256 KiB burst runs over 64 lines), 1 MiB (more
# than MaxBurstLength: several bursts to a line) and 4 MiB (the largest,
# the page allocator's largest block on x86-64). At each size:
# - the raw initiator's writes through R2Ts read back equal: in order,
#   DataPDUInOrder=No with unsolicited data, DataSequenceInOrder=No with
#   four R2Ts outstanding, and runs across lines answered with 3000-byte
#   Data-Outs that straddle them (each R2T asks for a whole burst);
# - open-iscsi with its own offer (InitialR2T=No, ImmediateData=Yes,
#   FirstBurstLength 64 KiB, MaxBurstLength 256 KiB), then with small
#   bursts and no immediate data (MaxBurstLength 16 KiB,
#   FirstBurstLength 8 KiB): fio random writes of 4 KiB, 64 KiB and
#   1 MiB at iodepth 8, verified with CRC32C;
# - every cache line back in the pool, and the module unloads.
# Lines of 8 MiB (more than the page allocator gives) and of 48 KiB (not
# a power of two) are refused at load, with a log line that says why.
# The TPG allows what the raw cases ask for (InitialR2T=No,
# DataPDUInOrder=No, DataSequenceInOrder=No, MaxOutstandingR2T=4).

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_module
ixt_require_cmd fio python3
ixt_require_initiator

tgt=iqn.2026-11.org.example.lines:rd
portal=$IXT_ADDR4_T:3260
rd=$IXT_CFS/core/rd_mcp_79/ixt_lines
tpg=$IXT_FABRIC/$tgt/tpgt_1
# Module parameters per size: the pool holds 32 lines at least.
sizes=(4096 1048576 4194304)
declare -A pool_mb=([4096]=64 [1048576]=64 [4194304]=128)
raw_cases=(ffp_write_read ffp_unordered_unsol ffp_unordered_sequences
	ffp_runs_across_lines ffp_runs_across_lines_unordered)
# Two logins of three fio cells, each in a 4 MiB region of its own.
rd_pages=$((${#sizes[@]} * 6 * 1024))
region=0
disk=

node() {
	iscsiadm -m node -T $tgt -p "$portal" "$@" >/dev/null 2>&1
}

# login "Key=Value ...": log out if logged in, set the TPG's MaxBurstLength,
# FirstBurstLength and ImmediateData as given (its own values otherwise)
# and log in with open-iscsi's defaults; sets disk.
login() {
	local kv

	disk=
	node --logout
	node -o delete
	echo 262144 >"$tpg/param/MaxBurstLength"
	echo 65536 >"$tpg/param/FirstBurstLength"
	echo Yes >"$tpg/param/ImmediateData"
	for kv in $1; do
		echo "${kv#*=}" >"$tpg/param/${kv%%=*}" || return 1
	done
	node -o new && node --login || return 1
	disk=$(ixt_session_disks 1 | head -n 1)
	[ -b "$disk" ]
}

# target LINE_SIZE: load the module with that line size and set up the TPG.
target() {
	ixt_load line_size="$1" pool_mb="${pool_mb[$1]}" &&
		ixt_rd_lun0 "$tpg" "$rd" $rd_pages &&
		echo No >"$tpg/param/InitialR2T" &&
		echo No >"$tpg/param/DataPDUInOrder" &&
		echo No >"$tpg/param/DataSequenceInOrder" &&
		echo 4 >"$tpg/param/MaxOutstandingR2T" &&
		ixt_demo_tpg "$tpg" "$portal"
}

untarget() {
	disk=
	node --logout
	node -o delete
	rm -f "$tpg/lun/lun_0/rd"
	rmdir "$tpg/lun/lun_0" "$tpg/np/$portal" "$tpg" "$IXT_FABRIC/$tgt" \
		"$rd" "$(dirname "$rd")" 2>/dev/null
}

# fio_cell BS: ixt_fio_verify of BS at iodepth 8 at the start of the next
# unused 4 MiB region of the disk, over 2 MiB for 4 KiB requests (the VM
# is slow to carry small ones) and the whole region for larger ones
# (ixt_cell_kib: less on a slow kernel).
declare -A cell_kib=([4k]=2048 [64k]=4096 [1M]=4096)
fio_cell() {
	[ -b "$disk" ] &&
		ixt_fio_verify "$disk" "$((region++ * 4))M" \
			"$(ixt_cell_kib "${cell_kib[$1]}" "$1")" "$1" 8
}

# refused LINE_SIZE: the module does not load, and says why.
refused() {
	! ixt_load line_size="$1" 2>/dev/null && [ ! -d /sys/module/iscsi_xt ] &&
		ixt_klog_since_mark | grep -q "line_size=$1: must be a power of two"
}

ixt_begin $((${#sizes[@]} * (${#raw_cases[@]} + 11) + 2))
ixt_check "8 MiB lines are refused" refused 8388608
ixt_check "48 KiB lines are refused" refused 49152

for size in "${sizes[@]}"; do
	kib=$((size / 1024))
	ixt_check "${kib} KiB lines: the module loads and the target is set up" \
		target "$size"
	ixt_check "${kib} KiB lines: the pool's lines are ${size} bytes" \
		grep -qx "$size" /sys/module/iscsi_xt/parameters/line_size
	ixt_raw_cases "${raw_cases[@]}"
	ixt_check "${kib} KiB lines: open-iscsi logs in with its own offer" \
		login ""
	for bs in 4k 64k 1M; do
		ixt_check "${kib} KiB lines: fio bs=$bs verified" \
			fio_cell $bs
	done
	ixt_check "${kib} KiB lines: open-iscsi logs in with small bursts" \
		login "MaxBurstLength=16384 FirstBurstLength=8192 ImmediateData=No"
	for bs in 4k 64k 1M; do
		ixt_check "${kib} KiB lines, 16 KiB bursts: fio bs=$bs verified" \
			fio_cell $bs
	done
	untarget
	ixt_check "${kib} KiB lines: every cache line is back, the module unloads" \
		eval 'ixt_pool_all_free && ixt_unload'
done
ixt_finish
