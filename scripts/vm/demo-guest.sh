#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest job of make demo: load iscsi_xt, configure a target with a ramdisk
# LUN through targetcli, show the configfs tree and print a summary.

set -euo pipefail

. "$IXT_TOP/scripts/vm/guest-env.sh"

wwn=iqn.2026-11.org.example:demo
cfs=/sys/kernel/config/target/iscsi

say() { printf '\n### %s\n' "$*"; }

say "insmod iscsi_xt.ko"
modprobe target_core_mod
insmod "$IXT_KO"
dmesg | grep -E 'iscsi_xt' | tail -n 3

say "configure with targetcli"
targetcli <<EOT
/backstores/ramdisk create name=rd0 size=64M
/iscsi create $wwn
/iscsi/$wwn/tpg1/luns create /backstores/ramdisk/rd0
/iscsi/$wwn/tpg1 set attribute authentication=0 demo_mode_write_protect=0 generate_node_acls=1
ls
EOT

say "configfs tree of the target"
find "$cfs/$wwn" -maxdepth 4 | sed "s|^$cfs/||" | sort

say "summary"
printf '%-28s %s\n' \
	"module" "$(cat /sys/module/iscsi_xt/initstate 2>/dev/null || echo missing)" \
	"fabric version" "$(cat "$cfs/lio_version" | head -n 1)" \
	"target" "$wwn" \
	"tpg1 enabled" "$(cat "$cfs/$wwn/tpgt_1/enable")" \
	"portals" "$(ls "$cfs/$wwn/tpgt_1/np" | tr '\n' ' ')" \
	"LUNs" "$(ls "$cfs/$wwn/tpgt_1/lun" | tr '\n' ' ')" \
	"LUN 0 backstore" "$(basename "$(readlink -f "$cfs/$wwn/tpgt_1/lun/lun_0/"*/ 2>/dev/null | head -n 1)")"
echo "logins over TCP and iSER, file systems and IO come with the next issues"

say "tear down"
targetcli clearconfig confirm=true >/dev/null
rmdir "$cfs"
rmmod iscsi_xt
echo "iscsi_xt unloaded cleanly"
