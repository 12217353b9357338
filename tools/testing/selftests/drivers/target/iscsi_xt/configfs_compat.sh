#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The configfs tree of iscsi_xt is LIO's: build one configuration (two
# targets, two TPGs, LUNs on rd_mcp and on iblock over null_blk, ACLs with
# one-way and mutual CHAP, IPv4, IPv6 and wildcard portals, iSER (turned
# on, off and on again, and on an address no RDMA device has), discovery
# auth, changed attributes and parameters) with plain mkdir/echo/ln, once
# on LIO's iscsi_target_mod and once on iscsi_xt, each on a freshly loaded
# target core, then compare:
#
# - the two trees: every path, its type and permissions, and every
#   attribute's value, except those listed in ixt_runtime below;
# - a list of probe writes, valid and invalid: the same ones must succeed,
#   fail with the same errno and leave the same value behind;
# - on iscsi_xt, every refused write leaves the value as it was and logs a
#   line.
#
# The differences are printed as KTAP comments ("-" LIO, "+" iscsi_xt).
#
# Deliberate differences, not probed: a CHAP credential written with a
# trailing newline keeps it in LIO (and then never matches), iscsi_xt
# drops it; LIO truncates an over-long TPG credential, iscsi_xt refuses
# it; LIO counts any credential starting with "NULL" as unset, iscsi_xt
# only "NULL"; numbers beyond 32 bits give ERANGE in LIO, EINVAL here;
# LIO listens on a portal (and checks iSER has an RDMA device) as soon as
# it is made, iscsi_xt once its listeners exist.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_module
ixt_require_cmd python3 diff
ixt_loaded && ixt_skip_all "iscsi_xt is already loaded"
[ -d /sys/module/iscsi_target_mod ] && ixt_skip_all "iscsi_target_mod is loaded"
modinfo -n iscsi_target_mod >/dev/null 2>&1 ||
	ixt_skip_all "LIO's iscsi_target_mod is not available"
modinfo -n null_blk >/dev/null 2>&1 || ixt_skip_all "needs null_blk"

# Values that are not configuration: the module's own name and version,
# and the time a mapped LUN was made (the target core's, in jiffies).
ixt_runtime=(
	'^lio_version$'
	'/fabric_statistics/iscsi_instance/(vendor|version)$'
	'/statistics/scsi_auth_intr/creation_time$'
)

excludes=()
for x in "${ixt_runtime[@]}"; do
	excludes+=(--exclude "$x")
done
dir=$(dirname "$(realpath "$0")")
core=$IXT_CFS/core
addr4=${IXT_ADDR4_T:-192.0.2.1}
addr6=${IXT_ADDR6_T:-2001:db8::1}
# The initiator's end of the test network: no RDMA device has it.
addri=${IXT_ADDR4_I:-192.0.2.2}
t1=iqn.2026-11.org.example:cfs1
t2=iqn.2026-11.org.example:cfs2
ini1=iqn.2026-11.org.example.vm:ini1
ini2=iqn.2026-11.org.example.vm:ini2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Every configuration step goes through these: a failure is recorded in
# $err and the build goes on.
step() {
	"$@" 2>>"$err" || echo "FAILED: $*" >>"$err"
}

put() {
	local value=$1 path=$2

	printf '%s' "$value" 2>>"$err" >"$path" ||
		echo "FAILED: $path <- $value" >>"$err"
}

# The target core with its two backstores, fresh: device and port
# indexes are global counters of target_core_mod.
core_load() {
	local d

	step modprobe target_core_mod
	step modprobe target_core_iblock
	[ -b /dev/nullb0 ] || step ixt_null_blk nr_devices=1
	d=$core/rd_mcp_0/rd0
	step mkdir -p "$d"
	put rd_pages=2048 "$d/control"
	put 1 "$d/enable"
	put 6a4b9a52-0cf0-4d3c-9d2e-000000000001 "$d/wwn/vpd_unit_serial"
	d=$core/iblock_0/nb0
	step mkdir -p "$d"
	put udev_path=/dev/nullb0 "$d/control"
	put 1 "$d/enable"
	put 6a4b9a52-0cf0-4d3c-9d2e-000000000002 "$d/wwn/vpd_unit_serial"
}

core_unload() {
	local m

	step rmdir "$core/rd_mcp_0/rd0" "$core/rd_mcp_0"
	step rmdir "$core/iblock_0/nb0" "$core/iblock_0"
	for m in $(lsmod | awk '$1 ~ /^target_core_/ && $1 != "target_core_mod" { print $1 }'); do
		step rmmod "$m"
	done
	step rmmod target_core_mod
}

acl_create() {
	local tpg=$1 acl=$1/acls/$2

	step mkdir "$acl"
	step mkdir "$acl/lun_0" "$acl/lun_1"
	step ln -s "$tpg/lun/lun_0" "$acl/lun_0/map0"
	step ln -s "$tpg/lun/lun_1" "$acl/lun_1/map1"
	put 1 "$acl/lun_1/write_protect"
}

build() {
	local tpg acl f=$IXT_FABRIC

	step mkdir "$f"
	put 0 "$f/cpus_allowed_list"
	put disc-user "$f/discovery_auth/userid"
	put disc-secret-01 "$f/discovery_auth/password"
	put disc-target "$f/discovery_auth/userid_mutual"
	put disc-target-secret "$f/discovery_auth/password_mutual"
	put 1 "$f/discovery_auth/enforce_discovery_auth"

	# Target 1, TPG 1: explicit ACLs, CHAP, changed attributes and keys.
	tpg=$f/$t1/tpgt_1
	step mkdir -p "$tpg"
	step mkdir "$tpg/lun/lun_0" "$tpg/lun/lun_1"
	step ln -s "$core/rd_mcp_0/rd0" "$tpg/lun/lun_0/rd0"
	step ln -s "$core/iblock_0/nb0" "$tpg/lun/lun_1/nb0"
	step mkdir "$tpg/np/$addr4:3260" "$tpg/np/[$addr6]:3260"
	put 1 "$tpg/np/$addr4:3260/iser"
	put 20 "$tpg/attrib/login_timeout"
	put 32 "$tpg/attrib/default_cmdsn_depth"
	put 1 "$tpg/attrib/default_erl"
	put 0 "$tpg/attrib/demo_mode_discovery"
	put 1 "$tpg/attrib/t10_pi"
	put 3 "$tpg/attrib/fabric_prot_type"
	put 0 "$tpg/attrib/tpg_enabled_sendtargets"
	put 0 "$tpg/attrib/login_keys_workaround"
	put 1 "$tpg/attrib/prod_mode_write_protect"
	put CRC32C,None "$tpg/param/HeaderDigest"
	put CRC32C "$tpg/param/DataDigest"
	put 4 "$tpg/param/MaxConnections"
	put cfs-alias "$tpg/param/TargetAlias"
	put No "$tpg/param/InitialR2T"
	put No "$tpg/param/ImmediateData"
	put 65536 "$tpg/param/MaxRecvDataSegmentLength"
	put 131072 "$tpg/param/MaxXmitDataSegmentLength"
	put 524288 "$tpg/param/MaxBurstLength"
	put 131072 "$tpg/param/FirstBurstLength"
	put 4 "$tpg/param/DefaultTime2Wait"
	put 30 "$tpg/param/DefaultTime2Retain"
	put 4 "$tpg/param/MaxOutstandingR2T"
	put 1 "$tpg/param/ErrorRecoveryLevel"
	acl_create "$tpg" "$ini1"
	acl=$tpg/acls/$ini1
	put ini1-user "$acl/auth/userid"
	put ini1-secret-01 "$acl/auth/password"
	put 128 "$acl/cmdsn_depth"
	put group-a "$acl/tag"
	put 10 "$acl/attrib/dataout_timeout"
	put 3 "$acl/attrib/dataout_timeout_retries"
	put 20 "$acl/attrib/nopin_timeout"
	put 40 "$acl/attrib/nopin_response_timeout"
	put 1 "$acl/attrib/random_datain_pdu_offsets"
	put 1 "$acl/attrib/random_datain_seq_offsets"
	put 1 "$acl/attrib/random_r2t_offsets"
	put 1 "$acl/attrib/authentication"
	acl_create "$tpg" "$ini2"
	acl=$tpg/acls/$ini2
	put ini2-user "$acl/auth/userid"
	put ini2-secret-01 "$acl/auth/password"
	put ini2-target "$acl/auth/userid_mutual"
	put ini2-target-secret "$acl/auth/password_mutual"
	put 2 "$acl/attrib/default_erl"
	put 1 "$tpg/enable"

	# Target 1, TPG 2: demo mode, TPG-wide mutual CHAP, wildcard portal.
	tpg=$f/$t1/tpgt_2
	step mkdir "$tpg"
	step mkdir "$tpg/lun/lun_0" "$tpg/lun/lun_1"
	step ln -s "$core/rd_mcp_0/rd0" "$tpg/lun/lun_0/rd0"
	step ln -s "$core/iblock_0/nb0" "$tpg/lun/lun_1/nb0"
	step mkdir "$tpg/np/0.0.0.0:3261"
	put 1 "$tpg/attrib/generate_node_acls"
	put 0 "$tpg/attrib/authentication"
	put 0 "$tpg/attrib/demo_mode_write_protect"
	put tpg-user "$tpg/auth/userid"
	put tpg-secret-01 "$tpg/auth/password"
	put tpg-target "$tpg/auth/userid_mutual"
	put tpg-target-secret "$tpg/auth/password_mutual"
	put 1 "$tpg/enable"

	# Target 2: a disabled TPG with an IPv6 portal, a portal on an
	# address without an RDMA device, and an unset ACL.
	tpg=$f/$t2/tpgt_7
	step mkdir -p "$tpg"
	step mkdir "$tpg/np/[$addr6]:3262" "$tpg/np/$addri:3263"
	step mkdir "$tpg/acls/$ini1"
	put NULL "$tpg/acls/$ini1/auth/userid"
	put NULL "$tpg/acls/$ini1/tag"
}

# Remove what build made, children first, as rtslib does.
teardown() {
	local f=$IXT_FABRIC

	[ -d "$f" ] || return 0
	find "$f" -path '*/acls/*' -type l -exec rm {} + 2>>"$err"
	find "$f" -type l -exec rm {} + 2>>"$err"
	step rmdir "$f"/*/tpgt_*/acls/*/lun_*
	step rmdir "$f"/*/tpgt_*/acls/* "$f"/*/tpgt_*/lun/* "$f"/*/tpgt_*/np/*
	step rmdir "$f"/*/tpgt_*
	step rmdir "$f"/iqn.*
	step rmdir "$f"
}

# The probes: what is written, in order, after build. Each side must
# give the same result and read back the same value. Never authentication
# 1 while AuthMethod is exactly "None": LIO 6.12 then writes one byte
# before a stack buffer (iscsit_ta_authentication()), which KASAN reports
# on the debug kernel, turning lockdep off for the rest of the boot.
probes() {
	local a=$t1/tpgt_1/attrib p=$t1/tpgt_1/param
	local acl=$t1/tpgt_1/acls/$ini1 np=$t1/tpgt_1/np/$addr4:3260
	local npi=$t2/tpgt_7/np/$addri:3263

	cat <<-EOF
	cpus_allowed_list	0-1
	cpus_allowed_list	x
	discovery_auth/enforce_discovery_auth	2
	discovery_auth/enforce_discovery_auth	-1
	discovery_auth/authenticate_target	0
	$a/login_timeout	4
	$a/login_timeout	31
	$a/login_timeout	abc
	$a/login_timeout	0x10
	$a/default_cmdsn_depth	0
	$a/default_cmdsn_depth	513
	$a/default_cmdsn_depth	512
	$a/default_erl	3
	$a/fabric_prot_type	2
	$a/t10_pi	2
	$a/generate_node_acls	-1
	$a/authentication	2
	$a/authentication	0
	$p/AuthMethod	None
	$p/AuthMethod	CHAP,None
	$a/authentication	1
	$p/AuthMethod	Kerberos
	$p/AuthMethod	bogus
	$p/HeaderDigest	MD5
	$p/HeaderDigest	None,CRC32C
	$p/DataDigest	crc32c
	$p/MaxConnections	0
	$p/MaxConnections	65536
	$p/MaxConnections	65535
	$p/TargetAlias	a-very-long-alias-$(printf '%0200d' 0)
	$p/InitialR2T	Maybe
	$p/ImmediateData	yes
	$p/MaxRecvDataSegmentLength	511
	$p/MaxRecvDataSegmentLength	16777216
	$p/MaxRecvDataSegmentLength	512
	$p/MaxXmitDataSegmentLength	16777215
	$p/MaxBurstLength	511
	$p/MaxBurstLength	16777215
	$p/FirstBurstLength	600000000
	$p/FirstBurstLength	1024
	$p/DefaultTime2Wait	3601
	$p/DefaultTime2Retain	3601
	$p/DefaultTime2Retain	0
	$p/MaxOutstandingR2T	0
	$p/MaxOutstandingR2T	65536
	$p/DataPDUInOrder	No
	$p/DataSequenceInOrder	No
	$p/ErrorRecoveryLevel	3
	$p/ErrorRecoveryLevel	2
	$p/IFMarker	Yes
	$p/OFMarker	maybe
	$p/IFMarkInt	1
	$p/OFMarkInt	2048~2048
	$np/iser	2
	$np/iser	0
	$np/iser	1
	$npi/iser	1
	$np/cxgbit	1
	$np/cxgbit	0
	$acl/cmdsn_depth	0
	$acl/cmdsn_depth	513
	$acl/attrib/dataout_timeout	1
	$acl/attrib/dataout_timeout	61
	$acl/attrib/dataout_timeout_retries	0
	$acl/attrib/dataout_timeout_retries	16
	$acl/attrib/default_erl	3
	$acl/attrib/nopin_timeout	2
	$acl/attrib/nopin_timeout	0
	$acl/attrib/nopin_timeout	61
	$acl/attrib/nopin_response_timeout	2
	$acl/attrib/nopin_response_timeout	61
	$acl/attrib/random_r2t_offsets	2
	$acl/attrib/authentication	-1
	$acl/attrib/authentication	-2
	$acl/param/MaxBurstLength	4096
	$acl/auth/userid	NULL
	$acl/auth/authenticate_target	1
	$acl/auth/password	$(printf '%0256d' 0)
	$acl/tag	NULL
	$acl/tag	$(printf '%0100d' 0)
	$t1/tpgt_1/enable	2
	EOF
}

# side NAME MODULE LOAD...: build on a fresh target core with the fabric
# module MODULE loaded by LOAD, dump and probe, tear down. Leaves
# $work/NAME.{tree,probe}.
side() {
	local module=$2

	side=$1
	shift 2
	err=$work/$side.err
	: >"$err"
	core_load
	step "$@"
	# Else the target core would autoload LIO's module at mkdir.
	if [ ! -d "/sys/module/$module" ]; then
		echo "FAILED: $module is not loaded" >>"$err"
		return
	fi
	build
	python3 "$dir/cfs_tree.py" dump "$IXT_FABRIC" "${excludes[@]}" \
		>"$work/$side.tree"
	probes >"$work/probes"
	python3 "$dir/cfs_tree.py" probe "$IXT_FABRIC" "$work/probes" \
		--nolog "$work/$side.nolog" --log-prefix "iscsi_xt: " \
		>"$work/$side.probe"
	err=$work/$side.teardown.err
	: >"$err"
	teardown
}

show_file() {
	local line

	head -n 200 "$1" | while IFS= read -r line; do
		ktap_print_msg "$line"
	done
}

compare() {
	local what=$1

	if diff -U0 "$work/lio.$what" "$work/ixt.$what" | grep -v '^@@' |
			tail -n +3 >"$work/$what.diff"; [ -s "$work/$what.diff" ]; then
		show_file "$work/$what.diff"
		return 1
	fi
	return 0
}

built() {
	[ -s "$work/$1.err" ] && show_file "$work/$1.err"
	[ ! -s "$work/$1.err" ] && [ -s "$work/$1.tree" ]
}

torn_down() {
	[ -s "$err" ] && show_file "$err"
	[ ! -d /sys/module/iscsi_xt ] && [ ! -s "$err" ]
}

# Refusals by the fabric's own store functions: not the core's "enable",
# not the VFS's EACCES for read-only files.
unlogged() {
	grep -v -P '/enable\t' "$work/ixt.nolog" >"$work/ixt.unlogged"
	show_file "$work/ixt.unlogged"
	[ ! -s "$work/ixt.unlogged" ]
}

ixt_begin 7

# The target core an earlier test of the boot left loaded, its counters
# moved on, unloaded with its backstore modules.
core_fresh() {
	local m

	[ -d /sys/module/target_core_mod ] || return 0
	for m in $(lsmod | awk '$1 ~ /^target_core_/ && $1 != "target_core_mod" { print $1 }'); do
		rmmod "$m" || return 1
	done
	rmmod target_core_mod
}
core_fresh || ktap_exit_fail_msg "cannot unload the target core: $(lsmod | grep target_core)"

# LIO loads ib_isert for iser=1, and cxgbit for the cxgbit probe.
lio_unload() {
	local m

	for m in cxgbit ib_isert iscsi_target_mod; do
		[ -d "/sys/module/$m" ] && step rmmod "$m"
	done
}

side lio iscsi_target_mod modprobe --ignore-install iscsi_target_mod
lio_unload
core_unload
ixt_check "the configuration builds on LIO's iscsi_target_mod" built lio
[ -s "$err" ] && show_file "$err"

side ixt iscsi_xt ixt_insmod_iser
ixt_check "the same configuration builds on iscsi_xt" built ixt
ixt_check "the trees are identical: paths, permissions, values" compare tree
ixt_check "the probe writes give the same results" compare probe
ixt_check "refused writes change nothing on iscsi_xt" \
	eval '! grep -P "\t[A-Z]+ CHANGED\t" "$work/ixt.probe"'
ixt_check "every refused write logs a line on iscsi_xt" unlogged
step rmmod iscsi_xt_iser
step ixt_unload
core_unload
ixt_check "iscsi_xt unloads after the teardown" torn_down

if [ -n "${IXT_CFS_KEEP:-}" ]; then
	mkdir -p "$IXT_CFS_KEEP" && cp "$work"/* "$IXT_CFS_KEEP/"
fi
ixt_finish
