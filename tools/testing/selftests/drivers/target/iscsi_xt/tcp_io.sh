#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Full feature phase with open-iscsi over TCP: the initiator scans the
# LUN of a ramdisk (INQUIRY, REPORT LUNS, READ CAPACITY...), reads it
# whole with O_DIRECT in requests larger than one Data-In PDU, writes a
# pattern in requests of 4 KiB (immediate data), 64 KiB (immediate data
# then R2Ts) and 1 MiB (many R2Ts, several cache lines) and reads it back
# equal, answers pass NOP exchanges, and the session logs out and the
# module unloads cleanly with every cache line back in the pool. Header and data digests
# (CRC32C) are on, so every PDU after login carries both. The debugfs cost
# file counts exactly, with the target idle and reset: 16 direct writes of
# 64 KiB are 16 commands and 1 MiB received, each byte copied once (by the
# socket into the cache lines), in ceil(64 KiB / line_size) lines each;
# reading them back is 1 MiB sent, each byte copied once more (by
# sendmsg).

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_module
ixt_require_cmd dd
ixt_require_initiator

tgt=iqn.2026-11.org.example.io:rd
portal=$IXT_ADDR4_T:3260
rd=$IXT_CFS/core/rd_mcp_77/ixt_io
tpg=$IXT_FABRIC/$tgt/tpgt_1

node() {
	iscsiadm -m node -T $tgt -p "$portal" "$@" >/dev/null 2>&1
}

ixt_begin 14
ixt_load || ktap_exit_fail_msg "cannot load iscsi_xt"

mkdir -p "$rd" && echo rd_pages=2048 >"$rd/control" && echo 1 >"$rd/enable"
mkdir -p "$tpg/lun/lun_0" && ln -s "$rd" "$tpg/lun/lun_0/ixt_io"
mkdir "$tpg/np/$portal"
echo 0 >"$tpg/attrib/authentication"
echo 1 >"$tpg/attrib/generate_node_acls"
echo 0 >"$tpg/attrib/demo_mode_write_protect"
echo 1 >"$tpg/enable"

node -o new
node -o update -n node.conn[0].timeo.noop_out_interval -v 1
node -o update -n node.conn[0].iscsi.HeaderDigest -v CRC32C
node -o update -n node.conn[0].iscsi.DataDigest -v CRC32C
ixt_check "the initiator logs in" node --login
ixt_check "with header and data digests" \
	eval 'iscsiadm -m session -P2 | grep -q "HeaderDigest: CRC32C" &&
	      iscsiadm -m session -P2 | grep -q "DataDigest: CRC32C"'
d=$(ixt_session_disks 1 | head -n 1)
d=${d#/dev/}
ixt_check "the LUN shows up as a disk ($d)" [ -n "$d" ]
ixt_check "its size is the ramdisk's" \
	[ "$(cat "/sys/block/$d/size" 2>/dev/null)" -eq 16384 ]
ixt_check "the whole disk reads with O_DIRECT in 1 MiB requests" \
	eval 'dd if=/dev/$d of=/dev/null bs=1M iflag=direct 2>/dev/null &&
	      [ "$(dd if=/dev/$d bs=1M iflag=direct 2>/dev/null | tr -d "\0" | wc -c)" -eq 0 ]'

pat=$(mktemp)
head -c 1M /dev/urandom >"$pat"
mib=1048576
line_size=$(cat /sys/module/iscsi_xt/parameters/line_size)
lines=$((16 * ((65536 + line_size - 1) / line_size)))
# cost_write: with the target idle and the cost file reset, 16 direct
# writes of 64 KiB of the pattern, counted.
cost_write() {
	ixt_cost_reset &&
		dd if="$pat" of="/dev/$d" bs=64k oflag=direct 2>/dev/null &&
		ixt_cost_is cmds=16 payload_rx_bytes=$mib payload_tx_bytes=0 \
			    copied_rx_bytes=$mib copied_tx_bytes=0 lines=$lines
}
# cost_read COPIED_OUT: likewise, the pattern read back equal in 16
# direct reads of 64 KiB, with COPIED_OUT bytes copied by sendmsg.
cost_read() {
	ixt_cost_reset &&
		cmp <(dd if="/dev/$d" bs=64k count=16 iflag=direct 2>/dev/null) "$pat" &&
		ixt_cost_is cmds=16 payload_rx_bytes=0 payload_tx_bytes=$mib \
			    copied_rx_bytes=0 copied_tx_bytes="$1" lines=$lines
}
ixt_check "cost: 16 writes of 64 KiB: 1 MiB in, each byte copied once, $lines lines" \
	cost_write
ixt_check "cost: reading them back: 1 MiB out, each byte copied once by sendmsg" \
	cost_read $mib
head -c 8M /dev/urandom >"$pat"
for bs in 4k 64k 1M; do
	ixt_check "8 MiB written in $bs requests read back equal" \
		eval 'dd if="$pat" of=/dev/$d bs=$bs oflag=direct 2>/dev/null &&
		      cmp <(dd if=/dev/$d bs=1M count=8 iflag=direct 2>/dev/null) "$pat"'
	head -c 8M /dev/urandom >"$pat"
done
rm -f "$pat"
sleep 3
ixt_check "the initiator logs out" node --logout
node -o delete
rm "$tpg/lun/lun_0/ixt_io"
rmdir "$tpg/lun/lun_0" "$tpg/np/$portal" "$tpg" "$IXT_FABRIC/$tgt"
rmdir "$rd" "$(dirname "$rd")"
ixt_check "every cache line is back in the pool" ixt_pool_all_free
ixt_unload
ixt_check "iscsi_xt unloads" [ ! -d /sys/module/iscsi_xt ]
ixt_check "nothing was rejected" eval '! ixt_klog_since_mark | grep -q "rejecting"'
ixt_finish
