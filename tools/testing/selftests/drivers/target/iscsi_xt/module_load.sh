#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Load and unload iscsi_xt repeatedly, each time through the configfs path
# target core takes when targetcli starts (fabric directory, a target and a
# TPG), and check that no slab cache grows with the number of cycles.

. "$(dirname "$0")/lib.sh"

cycles=20

ixt_require_root
ixt_require_module
ixt_loaded && ixt_skip_all "iscsi_xt is already loaded"
[ -d /sys/module/iscsi_target_mod ] && ixt_skip_all "iscsi_target_mod is loaded"

wwn=iqn.2026-11.org.example:load

cycle() {
	ixt_load || return 1
	mkdir "$IXT_FABRIC" &&
		mkdir "$IXT_FABRIC/$wwn" &&
		mkdir "$IXT_FABRIC/$wwn/tpgt_1" &&
		[ -r "$IXT_FABRIC/lio_version" ] &&
		rmdir "$IXT_FABRIC/$wwn/tpgt_1" &&
		rmdir "$IXT_FABRIC/$wwn" || return 1
	ixt_unload && ! ixt_loaded
}

ixt_begin 3

# Warm up once so that caches the first load creates are in the baseline.
cycle
before=$(mktemp)
after=$(mktemp)
trap 'rm -f "$before" "$after"' EXIT
ixt_slab_snapshot >"$before"

ok=1
for ((i = 1; i <= cycles; i++)); do
	if ! cycle; then
		ktap_print_msg "cycle $i failed"
		ok=
		break
	fi
done
ixt_check "load, configure and unload $cycles times" [ -n "$ok" ]

# Frees the kernel defers may trail the last unload (RCU callbacks, such
# as the one that frees a destroyed workqueue's lockdep name): a growth
# counts only if it is still there after up to 10 more snapshots 2 s
# apart. A leak does not go away.
for ((try = 0; try <= 10; try++)); do
	[ "$try" -eq 0 ] || sleep 2
	ixt_slab_snapshot >"$after"
	grown=$(ixt_slab_growth "$before" "$after" "$cycles") && break
done
[ -n "$grown" ] && ktap_print_msg "slab caches that grew: $grown"
ixt_check "no slab cache grows by one object per cycle" [ -z "$grown" ]

ixt_check "the module is gone" [ ! -d /sys/module/iscsi_xt ]
ixt_finish
