#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The admin's path with the Debian package: "apt-get install" of the
# iscsi-xt-dkms package that make deb built (BUILD/deb/) has DKMS build
# and install iscsi_xt and iscsi_xt_iser for the VM's kernel, and puts the
# modprobe.d snippet in place; "modprobe iscsi_target_mod" then loads
# iscsi_xt. targetcli configures a target (a fileio LUN, an ACL with
# mutual CHAP, portals on IPv4 serving iSER too and on IPv6) and saves
# it; open-iscsi writes through it; rtslib's "targetctl clear" tears it
# down, and "targetctl restore", run as the boot unit runs it with no
# target module loaded, brings it back: the same configfs tree, the same
# saved configuration, and open-iscsi reads over TCP and over iSER what
# it wrote before. "apt-get remove" takes the modules and the snippet
# away, after which "modprobe iscsi_target_mod" loads LIO's module again.
# Prints how long DKMS took to build in the VM.
#
# It installs into the system, so it runs only where $IXT_IN_VM says the
# root file system is a throw-away overlay; the package comes from
# $IXT_BUILD/deb (make deb, which make kselftest runs first).

. "$(dirname "$0")/lib.sh"

ixt_require_root
[ -n "${IXT_IN_VM:-}" ] || ixt_skip_all "installs a package into the system: VM only"
version=$(cat "${IXT_TOP:-}/VERSION" 2>/dev/null) ||
	ixt_skip_all "needs the iscsi_xt source tree (\$IXT_TOP/VERSION)"
deb=${IXT_BUILD:-}/deb/iscsi-xt-dkms_${version}_all.deb
[ -f "$deb" ] || ixt_skip_all "$deb is not built (make deb)"
ixt_require_cmd apt-get dpkg dkms targetcli targetctl python3 diff
ixt_require_initiator
[ -S /run/dbus/system_bus_socket ] || ixt_skip_all "targetcli needs the system D-Bus"
dpkg-query -W iscsi-xt-dkms >/dev/null 2>&1 &&
	ixt_skip_all "iscsi-xt-dkms is already installed"

kver=$(uname -r)
moddir=/lib/modules/$kver
[ -d "/usr/src/linux-headers-$kver" ] ||
	ixt_skip_all "needs the headers of $kver (linux-headers-$kver)"
dir=$(dirname "$(realpath "$0")")
addr4=$IXT_ADDR4_T
addr6=$IXT_ADDR6_T
wwn=iqn.2026-11.org.example:pkg1
t=/iscsi/$wwn
tpg=$IXT_FABRIC/$wwn/tpgt_1
user=pkg-user secret=pkg-secret-0001
muser=pkg-target msecret=pkg-target-secret-01
# The boot unit of rtslib-fb (Debian's name for upstream's target.service)
# and the file it restores, which targetcli's saveconfig writes.
unit=$(ls /lib/systemd/system/rtslib-fb-targetctl.service \
	/lib/systemd/system/target.service 2>/dev/null | head -n 1)
[ -n "$unit" ] || ixt_skip_all "rtslib-fb's boot unit (targetctl restore) is not installed"
savefile=$(python3 -c 'import rtslib_fb.root as r; print(r.default_save_file)') ||
	ixt_skip_all "rtslib_fb does not import"
iser_missing=$(ixt_iser_missing)

work=$(mktemp -d)
mini=$work/mini
backstores="target_core_iblock target_core_file target_core_pscsi target_core_user"

# The module tree DKMS installs into and removes from (ixt_mini_modtree):
# what LIO's iSCSI target and ours need (the dependency closure of
# iscsi_target_mod, ib_isert, the backstores the target core loads as it
# creates its first HBA, and the crc32c iscsi_xt asks the crypto API
# for), with the link to the kernel's headers that DKMS builds against.
mini_tree() {
	ixt_mini_modtree "$mini" iscsi_target_mod ib_isert $backstores \
		libcrc32c crc32c_generic
}

cleanup() {
	iscsiadm -m node --logoutall=all >/dev/null 2>&1
	umount "$moddir" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

show_tail() {
	[ -f "$1" ] && ixt_show_tail "$1"
}

# Both modules DKMS built, installed for this kernel, with the version of
# the tree.
dkms_installed() {
	local m ko st

	st=$(dkms status -m iscsi_xt -v "$version" -k "$kver")
	ktap_print_msg "dkms status: $st"
	grep -q ": installed" <<<"$st" || return 1
	for m in iscsi_xt iscsi_xt_iser; do
		ko=$(modinfo -n "$m" 2>/dev/null)
		ktap_print_msg "$m: $ko, version $(modinfo -F version "$m" 2>/dev/null)"
		[[ $ko == "$moddir"/updates/dkms/* ]] &&
			[ "$(modinfo -F version "$m")" = "$version" ] || return 1
	done
}

snippet() {
	dpkg-query -L iscsi-xt-dkms 2>/dev/null | grep -E '/modprobe\.d/iscsi_xt\.conf$'
}

only_xt() {
	{ [ -d "$IXT_FABRIC" ] || mkdir "$IXT_FABRIC"; } &&
		[ -d /sys/module/iscsi_xt ] && [ ! -d /sys/module/iscsi_target_mod ] &&
		[ ! -d /sys/module/ib_isert ] &&
		grep -qx "iscsi_xt iSCSI Target $version" "$IXT_FABRIC/lio_version"
}

# What no configuration is made of: the version, and what the target core
# renews when rtslib restores (statistics, device indexes, the relative
# port IDs given as TPGs are enabled); the backstores' HBA numbers are
# rtslib's pick and are masked in the links. A CHAP credential never set
# reads empty, and "NULL" once rtslib restored it unset (as in LIO): both
# are unset, and read as empty here.
dump() {
	python3 "$dir/cfs_tree.py" dump "$IXT_FABRIC" \
		--exclude '^lio_version$' --exclude '/statistics/' \
		--exclude '/fabric_statistics/iscsi_instance/(vendor|version)$' \
		--exclude '/rtpi$' |
		sed -E -e 's#(/target/core/[a-z_]+_)[0-9]+/#\1N/#' \
			-e 's#^([^[:space:]]*auth/[a-z_]+[[:space:]]+f0[0-7]+[[:space:]]+)NULL\\n$#\1\\n#' >"$1"
}

# What the boot unit's targetctl restore did, from nothing of the target
# loaded ($unloaded): status $rc, iscsi_xt loaded (iscsi_xt_iser too, for
# the iSER portal) and not LIO, the TPG back.
restored() {
	[ "$unloaded" = 1 ] && [ "$rc" -eq 0 ] && only_xt && [ -d "$tpg" ] &&
		{ [ -n "$iser_missing" ] || [ -d /sys/module/iscsi_xt_iser ]; }
}

same() {
	diff -U0 "$1" "$2" >"$work/diff" && return 0
	ixt_show_tail "$work/diff"
	return 1
}

# No target, and no storage object in any HBA of the target core.
nothing_configured() {
	! ls -d "$IXT_FABRIC"/iqn.* "$IXT_CFS"/core/*_[0-9]*/*/ >/dev/null 2>&1
}

# login IFACE: log in through IFACE (default: TCP, iser) with mutual CHAP;
# sets sid and disk.
login() {
	local portal=$addr4:3260 tr=tcp

	[ "$1" = iser ] && tr=iser
	ixt_login "$1" "$wwn" "$portal" node.session.auth.authmethod=CHAP \
		node.session.auth.username="$user" node.session.auth.password="$secret" \
		node.session.auth.username_in="$muser" node.session.auth.password_in="$msecret" ||
		{ ktap_print_msg "login over $tr failed"; return 1; }
	sid=$(ixt_sid "$tr" "$wwn") && disk=$(ixt_sid_disk "$sid" 0) ||
		{ ktap_print_msg "no disk for the $tr session"; return 1; }
	[ "$(ixt_sid_transport "$sid")" = "$tr" ]
}

logout() {
	ixt_node "$1" "$wwn" "$addr4:3260" --logout
}

# reads_back IFACE: a session through IFACE reads the 4 MiB written
# before the clear.
reads_back() {
	local sum

	login "$1" || return 1
	sum=$(dd if="$disk" bs=1M count=4 iflag=direct 2>/dev/null | sha256sum)
	logout "$1"
	[ "$sum" = "$(sha256sum <"$work/data")" ] ||
		{ ktap_print_msg "$1: read back $sum"; return 1; }
}

ixt_begin 15

# ib_iser and everything the initiator side needs is loaded before the
# module tree is swapped for the small one.
[ -n "$iser_missing" ] || modprobe rdma_cm
mini_tree
mount --bind "$mini$moddir" "$moddir"

ktap_print_msg "apt-get install $(basename "$deb"): DKMS builds for $kver"
start=$SECONDS
DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$deb" >"$work/apt-install.log" 2>&1 &
pid=$!
# Progress every minute: apt's last line and the objects DKMS compiled.
while ! ixt_wait 60 eval '! kill -0 "$pid" 2>/dev/null'; do
	ktap_print_msg "$((SECONDS - start)) s: $(tail -n 1 "$work/apt-install.log") ($(find /var/lib/dkms/iscsi_xt -name '*.o' 2>/dev/null | wc -l) objects)"
done
wait "$pid"
rc=$?
took=$((SECONDS - start))
mklog=/var/lib/dkms/iscsi_xt/$version/$kver/$(uname -m)/log/make.log
if [ -f "$mklog" ]; then
	# make.log's second line is the date the build began; its last write
	# is the build's end.
	built=$(($(stat -c %Y "$mklog") - $(date -d "$(sed -n 2p "$mklog")" +%s)))
	ktap_print_msg "DKMS build in the VM: ${built} s (apt-get install: $took s in all)"
else
	ktap_print_msg "apt-get install: $took s, no DKMS make.log"
fi
if [ "$rc" -ne 0 ]; then
	show_tail "$work/apt-install.log"
	show_tail "$mklog"
fi
ixt_check "apt-get install: DKMS built and installed iscsi_xt and iscsi_xt_iser $version for $kver" \
	eval '[ "$rc" -eq 0 ] && dkms_installed'
ixt_check "the package's modprobe.d snippet is in place" \
	eval 'f=$(snippet) && [ -f "$f" ] && grep -q "^install iscsi_target_mod " "$f"'
ixt_check "the package made the target core's PR folder" \
	test -d /etc/rtslib-fb-target/pr

modprobe iscsi_target_mod
ixt_check "modprobe iscsi_target_mod loads iscsi_xt $version, not LIO" only_xt

head -c 4M /dev/urandom >"$work/data"
iser_cmd=
[ -z "$iser_missing" ] && iser_cmd="$t/tpg1/portals/$addr4:3260 enable_iser true"
ixt_tcli "$work" <<EOF
/backstores/fileio create name=pkg0 file_or_dev=$work/pkg0.img size=16M write_back=false
/iscsi create $wwn
$t/tpg1/luns create /backstores/fileio/pkg0
$t/tpg1/portals create $addr4 3260
$iser_cmd
$t/tpg1/portals create $addr6 3260
$t/tpg1 set attribute authentication=1
$t/tpg1/acls create $IXT_INITIATOR
$t/tpg1/acls/$IXT_INITIATOR set auth userid=$user password=$secret mutual_userid=$muser mutual_password=$msecret
saveconfig
EOF
dump "$work/before.tree"
cp "$savefile" "$work/saved.json" 2>/dev/null
ixt_check "targetcli configures the target and saves it to $savefile" \
	eval '[ -d "$tpg/acls/$IXT_INITIATOR/lun_0" ] &&
	      [ -d "$tpg/np/[$addr6]:3260" ] && [ -s "$work/saved.json" ] &&
	      { [ -n "$iser_missing" ] || [ "$(cat "$tpg/np/$addr4:3260/iser")" = 1 ]; }'

ixt_check "open-iscsi logs in over TCP with mutual CHAP and writes 4 MiB" \
	eval 'login default && dd if="$work/data" of="$disk" bs=1M oflag=direct 2>/dev/null &&
	      logout default'

targetctl clear >"$work/clear.log" 2>&1
rc=$?
ixt_check "targetctl clear removes every target and backstore" \
	eval '[ "$rc" -eq 0 ] && nothing_configured'

# As at boot: nothing of the target loaded; the unit's ExecStart lines
# (mkdir of rtslib's directory, targetctl restore) run as they are.
[ -d "$IXT_FABRIC" ] && rmdir "$IXT_FABRIC"
for m in iscsi_xt_iser iscsi_xt $backstores target_core_mod; do
	[ -d "/sys/module/$m" ] && rmmod "$m"
done
unloaded=0
[ -d /sys/module/iscsi_xt ] || [ -d /sys/module/iscsi_target_mod ] || unloaded=1
ktap_print_msg "$(basename "$unit"): $(grep '^ExecStart=' "$unit" | tr '\n' ' ')"
rc=0
while read -r cmd; do
	sh -c "$cmd" >>"$work/restore.log" 2>&1 || rc=$?
done < <(sed -n 's/^ExecStart=-\{0,1\}//p' "$unit")
[ -s "$work/restore.log" ] && show_tail "$work/restore.log"
ixt_check "targetctl restore (the boot unit) loads iscsi_xt, not LIO, and restores" \
	restored
dump "$work/after.tree"
ixt_check "the restored configfs tree is the one saved" \
	same "$work/before.tree" "$work/after.tree"
targetctl save "$work/resaved.json" >/dev/null 2>&1
ixt_saveconfig_canon "$work/saved.json" >"$work/saved.canon"
ixt_saveconfig_canon "$work/resaved.json" >"$work/resaved.canon"
ixt_check "the configuration saved again is the same" \
	same "$work/saved.canon" "$work/resaved.canon"

ixt_check "open-iscsi logs in over TCP with mutual CHAP and reads what it wrote" \
	reads_back default
if [ -n "$iser_missing" ]; then
	ktap_test_skip "open-iscsi reads it over iSER ($iser_missing)"
else
	ixt_check "open-iscsi logs in over iSER with mutual CHAP and reads what it wrote" \
		reads_back iser
fi

targetctl clear >>"$work/clear.log" 2>&1
rc=$?
[ -d "$IXT_FABRIC" ] && rmdir "$IXT_FABRIC"
for m in iscsi_xt_iser iscsi_xt; do
	[ -d "/sys/module/$m" ] && rmmod "$m"
done
ixt_check "targetctl clear tears it down again and both modules unload" \
	eval '[ "$rc" -eq 0 ] && nothing_configured && [ ! -d /sys/module/iscsi_xt ]'

DEBIAN_FRONTEND=noninteractive apt-get remove -y -q iscsi-xt-dkms \
	>"$work/apt-remove.log" 2>&1
rc=$?
[ "$rc" -eq 0 ] || show_tail "$work/apt-remove.log"
ixt_check "apt-get remove takes the modules and the modprobe.d snippet away" \
	eval '[ "$rc" -eq 0 ] && [ -z "$(dkms status -m iscsi_xt)" ] &&
	      [ -z "$(find "$moddir" -name "iscsi_xt*.ko*")" ] &&
	      ! modinfo -n iscsi_xt >/dev/null 2>&1 &&
	      ! ls /lib/modprobe.d/iscsi_xt.conf /etc/modprobe.d/iscsi_xt.conf >/dev/null 2>&1'

modprobe iscsi_target_mod
ixt_check "modprobe iscsi_target_mod loads LIO's module again" \
	eval '[ -d /sys/module/iscsi_target_mod ] && [ ! -d /sys/module/iscsi_xt ]'
[ -d "$IXT_FABRIC" ] && rmdir "$IXT_FABRIC"
rmmod iscsi_target_mod 2>/dev/null

if [ "$KTAP_CNT_FAIL" -gt 0 ]; then
	show_tail "$work/targetcli.log"
	show_tail "$work/clear.log"
fi
ixt_finish
