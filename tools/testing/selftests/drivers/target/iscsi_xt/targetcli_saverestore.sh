#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The real targetcli saves and restores an iscsi_xt configuration: build
# one with targetcli (LUNs on a ramdisk and on null_blk, two TPGs, IPv4,
# IPv6 and wildcard portals, iSER, ACLs with one-way and mutual CHAP,
# changed attributes and parameters, discovery auth), "saveconfig",
# "clearconfig", "restoreconfig", and check that the configfs tree and
# the saved configuration come back the same. Also checks what rtslib
# decides from the tree: read-only ACL parameters stay out of the saved
# file, and unset CHAP credentials are saved empty.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_module
ixt_require_cmd targetcli python3 diff
[ -S /run/dbus/system_bus_socket ] || ixt_skip_all "targetcli needs the system D-Bus"
ixt_loaded && ixt_skip_all "iscsi_xt is already loaded"
[ -d /sys/module/iscsi_target_mod ] && ixt_skip_all "iscsi_target_mod is loaded"
modinfo -n null_blk >/dev/null 2>&1 || ixt_skip_all "needs null_blk"

dir=$(dirname "$(realpath "$0")")
addr4=${IXT_ADDR4_T:-192.0.2.1}
addr6=${IXT_ADDR6_T:-2001:db8::1}
wwn=iqn.2026-11.org.example:sr1
ini1=iqn.2026-11.org.example.vm:ini1
ini2=iqn.2026-11.org.example.vm:ini2
t=/iscsi/$wwn
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Values that are not configuration: the module's version, and what the
# target core renews when rtslib restores: device indexes and creation
# times (statistics), and the relative port IDs it gives TPGs as they are
# enabled (rtpi). The backstores' HBA numbers, which rtslib picks, are
# masked in the links to them.
ixt_runtime=(
	'^lio_version$'
	'/fabric_statistics/iscsi_instance/(vendor|version)$'
	'/statistics/'
	'/rtpi$'
)

excludes=()
for x in "${ixt_runtime[@]}"; do
	excludes+=(--exclude "$x")
done

# One targetcli run for a whole script read from standard input.
tcli() {
	{
		echo "set global auto_save_on_exit=false"
		cat
		echo "exit"
	} | targetcli >>"$work/targetcli.log" 2>&1
}

dump() {
	python3 "$dir/cfs_tree.py" dump "$IXT_FABRIC" "${excludes[@]}" |
		sed -E 's#(/target/core/[a-z_]+_)[0-9]+/#\1N/#' >"$1"
}

show_file() {
	local line

	head -n 200 "$1" | while IFS= read -r line; do
		ktap_print_msg "$line"
	done
}

same() {
	diff -U0 "$1" "$2" | grep -v '^@@' | tail -n +3 >"$work/diff"
	show_file "$work/diff"
	[ ! -s "$work/diff" ]
}

# What rtslib saved for ACL ini1: no "parameters" (param/ is read-only),
# no unset mutual credentials, and the values set.
saved_as_lio() {
	python3 -c '
import json, sys
cfg = json.load(open(sys.argv[1]))
t = [t for t in cfg["targets"] if t["wwn"] == sys.argv[2]][0]
tpg = [g for g in t["tpgs"] if g["tag"] == 1][0]
acl = [a for a in tpg["node_acls"] if a["node_wwn"] == sys.argv[3]][0]
ok = "parameters" not in acl
ok = ok and "chap_mutual_userid" not in acl
ok = ok and acl.get("chap_userid") == "ini1-user"
ok = ok and acl["attributes"]["nopin_timeout"] == 20
ok = ok and tpg["parameters"]["MaxRecvDataSegmentLength"] == "65536"
sys.exit(0 if ok else 1)' "$1" "$wwn" "$ini1"
}

ixt_begin 6
# enable_iser loads the iSER transport on demand where it is installed;
# here it is the build's, loaded beforehand.
ixt_insmod_iser
[ -b /dev/nullb0 ] || ixt_null_blk nr_devices=1

tcli <<EOF
/backstores/ramdisk create name=rd0 size=8M
/backstores/block create name=nb0 dev=/dev/nullb0
/iscsi create $wwn
$t/tpg1/luns create /backstores/ramdisk/rd0
$t/tpg1/luns create /backstores/block/nb0
$t/tpg1/portals delete 0.0.0.0 3260
$t/tpg1/portals create $addr4 3260
$t/tpg1/portals/$addr4:3260 enable_iser true
$t/tpg1/portals create $addr6 3260
$t/tpg1 set attribute login_timeout=20 default_erl=1 prod_mode_write_protect=1
$t/tpg1 set parameter MaxRecvDataSegmentLength=65536 HeaderDigest=CRC32C,None TargetAlias=sr-alias
$t/tpg1/acls create $ini1
$t/tpg1/acls/$ini1 set auth userid=ini1-user password=ini1-secret-01
$t/tpg1/acls/$ini1 set attribute nopin_timeout=20 dataout_timeout=10
$t/tpg1/acls/$ini1 set tag=group-a
$t/tpg1/acls create $ini2
$t/tpg1/acls/$ini2 set auth userid=ini2-user password=ini2-secret-01 mutual_userid=ini2-target mutual_password=ini2-target-secret
$t/tpg1/acls/$ini2/mapped_lun1 set write_protect=1
$t create 2
$t/tpg2/luns create /backstores/ramdisk/rd0
$t/tpg2/portals create 0.0.0.0 3261
$t/tpg2 set attribute generate_node_acls=1 authentication=0 demo_mode_write_protect=0
$t/tpg2 set auth userid=tpg-user password=tpg-secret-01
$t/tpg2 enable
/iscsi set discovery_auth enable=1 userid=disc-user password=disc-secret-01 mutual_userid=disc-target mutual_password=disc-target-secret
saveconfig $work/saved.json
EOF
dump "$work/before.tree"
ixt_check "targetcli builds the configuration on iscsi_xt" \
	eval '[ -d "$IXT_FABRIC/$wwn/tpgt_2/np/0.0.0.0:3261" ] &&
	      [ "$(cat "$IXT_FABRIC/$wwn/tpgt_1/np/$addr4:3260/iser")" = 1 ] &&
	      [ -d "$IXT_FABRIC/$wwn/tpgt_1/acls/$ini2/lun_1" ] &&
	      [ -s "$work/saved.json" ]'
ixt_check "saveconfig stores what LIO's tree would make it store" \
	saved_as_lio "$work/saved.json"

tcli <<EOF
clearconfig confirm=True
saveconfig $work/cleared.json
restoreconfig $work/saved.json
saveconfig $work/resaved.json
EOF
ixt_check "clearconfig removes every target" \
	eval 'python3 -c "import json,sys; sys.exit(bool(json.load(open(sys.argv[1]))[\"targets\"]))" "$work/cleared.json"'
dump "$work/after.tree"
ixt_check "restoreconfig brings the same configfs tree back" \
	same "$work/before.tree" "$work/after.tree"
ixt_saveconfig_canon "$work/saved.json" iscsi >"$work/saved.iscsi"
ixt_saveconfig_canon "$work/resaved.json" iscsi >"$work/resaved.iscsi"
ixt_check "the configuration saved again is the same" \
	same "$work/saved.iscsi" "$work/resaved.iscsi"

tcli <<EOF
clearconfig confirm=True
EOF
rmmod iscsi_xt_iser
ixt_unload
ixt_check "iscsi_xt and iscsi_xt_iser unload after clearconfig" \
	eval '[ ! -d /sys/module/iscsi_xt ] && [ ! -d /sys/module/iscsi_xt_iser ]'

if [ "$KTAP_CNT_FAIL" -gt 0 ]; then
	show_file "$work/targetcli.log"
fi
if [ -n "${IXT_CFS_KEEP:-}" ]; then
	mkdir -p "$IXT_CFS_KEEP" && cp "$work"/* "$IXT_CFS_KEEP/"
fi
ixt_finish
