#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An unmodified targetcli drives iscsi_xt: "ls" shows /iscsi, "create"
# makes a target with an enabled tpg1 and the default portal, "delete"
# removes it, and the module unloads afterwards.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_module
ixt_require_cmd targetcli
[ -S /run/dbus/system_bus_socket ] || ixt_skip_all "targetcli needs the system D-Bus"
ixt_loaded && ixt_skip_all "iscsi_xt is already loaded"
[ -d /sys/module/iscsi_target_mod ] && ixt_skip_all "iscsi_target_mod is loaded"

wwn=iqn.2026-11.org.example:t1
tpg=$IXT_FABRIC/$wwn/tpgt_1

tcli() {
	targetcli "$@" 2>&1 | tee -a "$log"
}

log=$(mktemp)
trap 'rm -f "$log"' EXIT

ixt_begin 7
ixt_load

ixt_check "targetcli ls shows /iscsi" eval 'tcli ls /iscsi | grep -q "^o- iscsi"'
tcli /iscsi create "$wwn" >/dev/null
ixt_check "targetcli creates the target and tpg1 through iscsi_xt" [ -d "$tpg" ]
ixt_check "tpg1 is enabled" [ "$(cat "$tpg/enable" 2>/dev/null)" = 1 ]
ixt_check "the default portal 0.0.0.0:3260 exists" [ -d "$tpg/np/0.0.0.0:3260" ]
ixt_check "targetcli ls lists tpg1" eval 'tcli ls "/iscsi/$wwn" | grep -q "o- tpg1"'
tcli /iscsi delete "$wwn" >/dev/null
ixt_check "targetcli deletes the target" [ ! -d "$IXT_FABRIC/$wwn" ]
ixt_unload
ixt_check "iscsi_xt unloads afterwards" [ ! -d /sys/module/iscsi_xt ]

if [ "$KTAP_CNT_FAIL" -gt 0 ]; then
	while read -r line; do ktap_print_msg "targetcli: $line"; done <"$log"
fi
ixt_finish
