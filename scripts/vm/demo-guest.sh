#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest job of make demo: load iscsi_xt and its iSER transport, configure
# a target with targetcli (a ramdisk LUN and a fileio LUN holding known
# data, a portal that serves TCP and iSER), log in with open-iscsi over
# TCP and read the LUN, then over iSER (soft-RoCE rxe0): read it again,
# make a file system on the other LUN and write files; log in over TCP
# again and check the files written over iSER; print a summary.

set -euo pipefail

. "$IXT_TOP/scripts/vm/guest-env.sh"

wwn=iqn.2026-11.org.example:demo
cfs=/sys/kernel/config/target/iscsi
portal=$IXT_ADDR4_T
img=/run/demo.img
mnt=/run/demo-mnt
initiator=$(sed -n 's/^InitiatorName=//p' /etc/iscsi/initiatorname.iscsi)

say() { printf '\n### %s\n' "$*"; }

# login IFACE: log in through IFACE ("default" is TCP, "iser"); sets disk
# (LUN 0) and fsdisk (LUN 1). The node record comes from a discovery over
# TCP, through IFACE's record: over iSER, the iscsiadm of open-iscsi 2.1.8
# now and then misses the response to its own discovery, whatever the
# target (the kselftests' ixt_discover in lib.sh tells why).
login() {
	local disks

	iscsiadm -m discovery -t st -p "$portal" -I default
	[ "$1" = default ] ||
		iscsiadm -m node -T "$wwn" -p "$portal" -I "$1" -o new
	iscsiadm -m node -T "$wwn" -p "$portal" -I "$1" --login
	disks=$(ixt_session_disks 2) || { echo "no disks for LUNs 0 and 1"; exit 1; }
	disk=$(echo "$disks" | sed -n 1p)
	fsdisk=$(echo "$disks" | sed -n 2p)
	iscsiadm -m session -P 1 | grep -E 'Target:|Iface Transport:|Current Portal:'
}

logout() {
	iscsiadm -m node -T "$wwn" -p "$portal" -I "$1" --logout
	iscsiadm -m node -T "$wwn" -p "$portal" -I "$1" -o delete
}

# read_lun0: "identical" when LUN 0 reads back as the backstore's file.
read_lun0() {
	local got

	got=$(dd if="$disk" bs=1M iflag=direct status=none | sha256sum | cut -d' ' -f1)
	echo "backstore: $want" >&2
	echo "read:      $got" >&2
	[ "$want" = "$got" ] && echo identical || echo DIFFERENT
}

say "insmod iscsi_xt.ko and iscsi_xt_iser.ko"
ixt_insmod
ixt_insmod_iser
modprobe ib_iser
dmesg | grep -E 'iscsi_xt' | tail -n 3
rdma link show

say "configure with targetcli"
dd if=/dev/urandom of="$img" bs=1M count=16 status=none
want=$(sha256sum <"$img" | cut -d' ' -f1)
targetcli <<EOT
/backstores/ramdisk create name=rd0 size=64M
/backstores/fileio create name=data file_or_dev=$img
/iscsi create $wwn
/iscsi/$wwn/tpg1/luns create /backstores/fileio/data lun=0
/iscsi/$wwn/tpg1/luns create /backstores/ramdisk/rd0 lun=1
/iscsi/$wwn/tpg1/portals delete 0.0.0.0 3260
/iscsi/$wwn/tpg1/portals create $portal 3260
/iscsi/$wwn/tpg1/portals/$portal:3260 enable_iser true
/iscsi/$wwn/tpg1/acls create $initiator
/iscsi/$wwn/tpg1 set attribute authentication=0
ls
EOT
rdma res show cm_id | grep LISTEN

say "configfs tree of the target"
find "$cfs/$wwn" -maxdepth 3 | sed "s|^$cfs/||" | sort

say "discovery and login over TCP, read LUN 0"
login default
tcp_read=$(read_lun0)
logout default

say "login over iSER, read LUN 0"
login iser
targetcli sessions detail
iser_read=$(read_lun0)

say "over iSER: mkfs.ext4 on LUN 1, mount, write files"
mkdir -p "$mnt"
mkfs.ext4 -q -F "$fsdisk"
mount "$fsdisk" "$mnt"
mkdir -p "$mnt/tree/a" "$mnt/tree/b"
head -c 24M /dev/urandom >"$mnt/tree/a/big.bin"
for i in $(seq 1 200); do head -c $((i * 97)) /dev/urandom >"$mnt/tree/b/f$i"; done
(cd "$mnt" && find tree -type f -exec sha256sum {} + | sort -k2) >/run/demo.sums
umount "$mnt"
cat /sys/kernel/debug/iscsi_xt_iser/stats
logout iser

say "over TCP again: fsck, mount and check the files written over iSER"
login default
fsck.ext4 -n -f "$fsdisk" >/run/demo.fsck 2>&1 && fsck_ok=clean || fsck_ok=ERRORS
tail -n 1 /run/demo.fsck
mount "$fsdisk" "$mnt"
(cd "$mnt" && sha256sum --quiet -c /run/demo.sums) && fs_ok=identical || fs_ok=DIFFERENT
echo "$(wc -l </run/demo.sums) files, 24 MiB and more: $fs_ok; fsck: $fsck_ok"
umount "$mnt"
logout default

say "summary"
printf '%-32s %s\n' \
	"modules" "iscsi_xt $(cat /sys/module/iscsi_xt/initstate), iscsi_xt_iser $(cat /sys/module/iscsi_xt_iser/initstate)" \
	"fabric version" "$(head -n 1 "$cfs/lio_version")" \
	"target" "$wwn" \
	"portal" "$(ls "$cfs/$wwn/tpgt_1/np" | tr '\n' ' ')(iser $(cat "$cfs/$wwn/tpgt_1/np/$portal:3260/iser"))" \
	"LUNs" "$(ls "$cfs/$wwn/tpgt_1/lun" | tr '\n' ' ')" \
	"16 MiB read over TCP" "$tcp_read" \
	"16 MiB read over iSER" "$iser_read" \
	"ext4 written over iSER" "files $fs_ok read over TCP, fsck $fsck_ok"

say "tear down"
targetcli clearconfig confirm=true >/dev/null
rmdir "$cfs"
rmmod iscsi_xt_iser
rmmod iscsi_xt
echo "iscsi_xt_iser and iscsi_xt unloaded cleanly"
[ "$tcp_read" = identical ] && [ "$iser_read" = identical ] &&
	[ "$fs_ok" = identical ] && [ "$fsck_ok" = clean ]
