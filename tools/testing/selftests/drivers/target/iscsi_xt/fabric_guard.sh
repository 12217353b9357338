#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# iscsi_xt and LIO's iscsi_target_mod both register the LIO fabric "iscsi":
# whichever loads second must be refused, with a kernel log line saying
# why, and leave nothing half-registered; LIO's ib_isert must not bind to
# iscsi_xt either.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_module
ixt_loaded && ixt_skip_all "iscsi_xt is already loaded"
modinfo -n iscsi_target_mod >/dev/null 2>&1 ||
	ixt_skip_all "LIO's iscsi_target_mod is not available"

wwn=iqn.2026-11.org.example:guard
dup_line() {
	ixt_klog_since_mark |
		grep -q "$1: exports duplicate symbol iscsit_register_transport (owned by $2)"
}

lio_refused() {
	! modprobe --ignore-install iscsi_target_mod 2>/dev/null &&
		[ ! -d /sys/module/iscsi_target_mod ]
}

xt_refused() {
	! ixt_load 2>/dev/null && [ ! -d /sys/module/iscsi_xt ]
}

fabric_works() {
	mkdir "$IXT_FABRIC" && mkdir "$IXT_FABRIC/$wwn" &&
		rmdir "$IXT_FABRIC/$wwn" && rmdir "$IXT_FABRIC"
}

ixt_begin 7

# LIO first: we are refused and leave nothing behind.
modprobe --ignore-install iscsi_target_mod
ixt_check "insmod iscsi_xt is refused while iscsi_target_mod is loaded" xt_refused
ixt_check "the kernel log says why" dup_line iscsi_xt iscsi_target_mod
ixt_check "LIO's fabric still works" fabric_works
rmmod iscsi_target_mod

# Us first: LIO is refused, and so is ib_isert.
ixt_load
ixt_check "iscsi_target_mod is refused while iscsi_xt is loaded" lio_refused
ixt_check "the kernel log says why" dup_line iscsi_target_mod iscsi_xt
modprobe --ignore-install ib_isert 2>/dev/null
ixt_check "ib_isert does not bind to iscsi_xt" [ ! -d /sys/module/ib_isert ]
ixt_check "iscsi_xt's fabric still works" fabric_works
ixt_unload

ixt_finish
