#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The admin's path: "make install" puts iscsi_xt and iscsi_xt_iser into
# the module tree with a modprobe.d snippet, after which "modprobe
# iscsi_target_mod" and target core's configfs autoload (mkdir of
# target/iscsi) bring up iscsi_xt, not LIO's module; a portal's iser
# attribute (targetcli's enable_iser) loads iscsi_xt_iser on demand and
# listens, and "modprobe ib_isert" brings up iscsi_xt_iser too. "make
# uninstall" takes it all away again.
#
# Needs the source tree in $IXT_TOP and the kernel's headers; it changes
# /lib/modules and /etc/modprobe.d, so it runs only where $IXT_IN_VM says
# the root file system is a throw-away overlay.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_module
[ -n "${IXT_IN_VM:-}" ] || ixt_skip_all "installs into the system: VM only"
[ -f "${IXT_TOP:-}/Makefile" ] || ixt_skip_all "needs the iscsi_xt source tree"
ixt_loaded && ixt_skip_all "iscsi_xt is already loaded"
[ -d /sys/module/iscsi_target_mod ] && ixt_skip_all "iscsi_target_mod is loaded"

kver=$(uname -r)
moddir=/lib/modules/$kver

# make install goes to a tree of its own (ixt_mini_modtree) that holds
# what LIO's iSCSI modules and ours need: the dependency closure of
# iscsi_target_mod, ib_isert and, for iscsi_xt, libcrc32c with the crc32c
# algorithm it asks the crypto API for; bind-mounted over the real one
# for the duration of the test.
mini_tree() {
	ixt_mini_modtree "$1" iscsi_target_mod ib_isert libcrc32c crc32c_generic
}

installed() {
	[ -n "$(find "/lib/modules/$kver/extra" -name 'iscsi_xt.ko*' 2>/dev/null)" ] &&
		[ -n "$(find "/lib/modules/$kver/extra" -name 'iscsi_xt_iser.ko*' 2>/dev/null)" ] &&
		[ -f /etc/modprobe.d/iscsi_xt.conf ]
}

# A portal on the VM's RDMA address with its iser attribute set: the
# write loads iscsi_xt_iser, which listens on the portal's address.
iser_on_demand() {
	local tpg=$IXT_FABRIC/iqn.2026-11.org.example.install:t1/tpgt_1
	local np=$tpg/np/$IXT_ADDR4_T:3260

	mkdir -p "$np" && echo 1 >"$np/iser" &&
		[ -d /sys/module/iscsi_xt_iser ] &&
		rdma res show cm_id 2>/dev/null | grep -q "LISTEN.*src-addr $IXT_ADDR4_T:3260" &&
		echo 0 >"$np/iser" && rmdir "$np" "$tpg" "${tpg%/*}"
}

only_xt_loaded() {
	ixt_loaded && [ ! -d /sys/module/iscsi_target_mod ]
}

ixt_begin 8

mini=$(mktemp -d)
mini_tree "$mini"
mount --bind "$mini$moddir" "$moddir"
trap 'umount "$moddir"; rm -rf "$mini"' EXIT

# The modules of IXT_KO's tree when it names one (make check-debug's,
# built against the debug kernel), else the repository's.
src=$IXT_TOP
[ -z "${IXT_KO:-}" ] || src=${IXT_KO%/drivers/target/iscsi_xt/iscsi_xt.ko}
make -s -C "$IXT_TOP" install KVER="$kver" MODDIR="$src" >/dev/null
ixt_check "make install puts the module and its modprobe.d snippet in place" installed
ixt_check "make install makes the target core's PR folder" \
	test -d /etc/rtslib-fb-target/pr

modprobe iscsi_target_mod
ixt_check "modprobe iscsi_target_mod brings up iscsi_xt" only_xt_loaded
rmmod iscsi_xt

mkdir "$IXT_FABRIC"
ixt_check "configfs autoload of the iscsi fabric brings up iscsi_xt" only_xt_loaded
ixt_check "setting a portal's iser attribute loads iscsi_xt_iser, which listens" \
	iser_on_demand
rmmod iscsi_xt_iser
modprobe ib_isert
ixt_check "modprobe ib_isert brings up iscsi_xt_iser" \
	eval '[ -d /sys/module/iscsi_xt_iser ] && [ ! -d /sys/module/ib_isert ]'
rmmod iscsi_xt_iser
ixt_unload
ixt_check "iscsi_xt unloads" [ ! -d /sys/module/iscsi_xt ]

make -s -C "$IXT_TOP" uninstall KVER="$kver" >/dev/null
ixt_check "make uninstall removes both" eval '! installed'

ixt_finish
