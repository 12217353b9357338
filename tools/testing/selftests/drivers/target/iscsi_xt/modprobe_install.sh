#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The admin's path: "make install" puts iscsi_xt into the module tree with
# a modprobe.d snippet, after which "modprobe iscsi_target_mod" and target
# core's configfs autoload (mkdir of target/iscsi) bring up iscsi_xt, not
# LIO's module. "make uninstall" takes it all away again.
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

# Under emulation depmod's scan of the whole module tree takes minutes:
# install into a tree that holds only what iscsi_target_mod and iscsi_xt
# need (their dependency closure and the builtin lists), bind-mounted over
# the real one for the duration of the test.
mini_tree() {
	local base=$1 tree=$1$moddir f

	mkdir -p "$tree"
	cp "$moddir"/modules.builtin* "$moddir/modules.order" "$tree/"
	modprobe --ignore-install --show-depends iscsi_target_mod |
		awk '$1 == "insmod" { print $2 }' | while read -r f; do
			mkdir -p "$(dirname "$tree/${f#"$moddir"/}")"
			cp "$f" "$tree/${f#"$moddir"/}"
		done
	depmod -b "$base" "$kver"
}

installed() {
	[ -n "$(find "/lib/modules/$kver/extra" -name 'iscsi_xt.ko*' 2>/dev/null)" ] &&
		[ -f /etc/modprobe.d/iscsi_xt.conf ]
}

only_xt_loaded() {
	ixt_loaded && [ ! -d /sys/module/iscsi_target_mod ]
}

ixt_begin 5

mini=$(mktemp -d)
mini_tree "$mini"
mount --bind "$mini$moddir" "$moddir"
trap 'umount "$moddir"; rm -rf "$mini"' EXIT

make -s -C "$IXT_TOP" install KVER="$kver" >/dev/null
ixt_check "make install puts the module and its modprobe.d snippet in place" installed

modprobe iscsi_target_mod
ixt_check "modprobe iscsi_target_mod brings up iscsi_xt" only_xt_loaded
rmmod iscsi_xt

mkdir "$IXT_FABRIC"
ixt_check "configfs autoload of the iscsi fabric brings up iscsi_xt" only_xt_loaded
ixt_unload
ixt_check "iscsi_xt unloads" [ ! -d /sys/module/iscsi_xt ]

make -s -C "$IXT_TOP" uninstall KVER="$kver" >/dev/null
ixt_check "make uninstall removes both" eval '! installed'

ixt_finish
