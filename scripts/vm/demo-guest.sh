#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest job of make demo: load iscsi_xt, configure a target with targetcli
# (a ramdisk LUN and a fileio LUN holding known data), log in with
# open-iscsi over TCP, read the LUN and compare it with the data, make a
# file system on the other LUN, write files, check them after a remount,
# and print a summary.

set -euo pipefail

. "$IXT_TOP/scripts/vm/guest-env.sh"

wwn=iqn.2026-11.org.example:demo
cfs=/sys/kernel/config/target/iscsi
portal=$IXT_ADDR4_T
img=/run/demo.img

say() { printf '\n### %s\n' "$*"; }

say "insmod iscsi_xt.ko"
ixt_insmod
dmesg | grep -E 'iscsi_xt' | tail -n 3

say "configure with targetcli"
dd if=/dev/urandom of="$img" bs=1M count=16 status=none
targetcli <<EOT
/backstores/ramdisk create name=rd0 size=64M
/backstores/fileio create name=data file_or_dev=$img
/iscsi create $wwn
/iscsi/$wwn/tpg1/luns create /backstores/fileio/data lun=0
/iscsi/$wwn/tpg1/luns create /backstores/ramdisk/rd0 lun=1
/iscsi/$wwn/tpg1 set attribute authentication=0 demo_mode_write_protect=0 generate_node_acls=1 cache_dynamic_acls=1
ls
EOT

say "configfs tree of the target"
find "$cfs/$wwn" -maxdepth 3 | sed "s|^$cfs/||" | sort

say "discovery and login over TCP"
iscsiadm -m discovery -t st -p "$portal"
iscsiadm -m node -T "$wwn" -p "$portal" --login
disks=$(ixt_session_disks 2) || { echo "no disks for LUNs 0 and 1"; exit 1; }
disk=$(echo "$disks" | sed -n 1p)
disk=${disk#/dev/}
fsdisk=$(echo "$disks" | sed -n 2p)
lsblk -o NAME,SIZE,VENDOR,MODEL "/dev/$disk"

say "read LUN 0 over iSCSI and compare with the backstore"
want=$(sha256sum <"$img" | cut -d' ' -f1)
got=$(dd if="/dev/$disk" bs=1M iflag=direct status=none | sha256sum | cut -d' ' -f1)
echo "backstore: $want"
echo "over TCP:  $got"
[ "$want" = "$got" ] && verdict="identical" || verdict="DIFFERENT"

say "mkfs.ext4 on LUN 1, mount, write files, remount, verify"
mnt=/run/demo-mnt
mkdir -p "$mnt"
mkfs.ext4 -q -F "$fsdisk"
mount "$fsdisk" "$mnt"
mkdir -p "$mnt/tree/a" "$mnt/tree/b"
head -c 24M /dev/urandom >"$mnt/tree/a/big.bin"
for i in $(seq 1 200); do head -c $((i * 97)) /dev/urandom >"$mnt/tree/b/f$i"; done
(cd "$mnt" && find tree -type f -exec sha256sum {} + | sort -k2) >/run/demo.sums
umount "$mnt"
fsck.ext4 -n -f "$fsdisk" >/run/demo.fsck 2>&1 && fsck_ok=clean || fsck_ok=ERRORS
tail -n 1 /run/demo.fsck
mount "$fsdisk" "$mnt"
(cd "$mnt" && sha256sum --quiet -c /run/demo.sums) && fs_ok=identical || fs_ok=DIFFERENT
echo "$(wc -l </run/demo.sums) files, 24 MiB and more, after remount: $fs_ok; fsck: $fsck_ok"
umount "$mnt"

say "summary"
printf '%-28s %s\n' \
	"module" "$(cat /sys/module/iscsi_xt/initstate)" \
	"fabric version" "$(head -n 1 "$cfs/lio_version")" \
	"target" "$wwn" \
	"portals" "$(ls "$cfs/$wwn/tpgt_1/np" | tr '\n' ' ')" \
	"LUNs" "$(ls "$cfs/$wwn/tpgt_1/lun" | tr '\n' ' ')" \
	"login over TCP" "ok, LUN 0 is /dev/$disk" \
	"16 MiB read over TCP" "$verdict" \
	"ext4 on LUN 1 ($fsdisk)" "files $fs_ok after remount, fsck $fsck_ok"
echo "iSER comes with its own issue"

say "log out and tear down"
iscsiadm -m node -T "$wwn" -p "$portal" --logout
targetcli clearconfig confirm=true >/dev/null
rmdir "$cfs"
rmmod iscsi_xt
echo "iscsi_xt unloaded cleanly"
[ "$verdict" = identical ] && [ "$fs_ok" = identical ] && [ "$fsck_ok" = clean ]
