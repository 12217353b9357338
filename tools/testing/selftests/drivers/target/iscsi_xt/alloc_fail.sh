#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Allocation failures: iscsi_xt built with IXT_FAULT_INJECT=1 (make
# kselftest) fails the Nth allocation, or the Nth of one named site, as
# /sys/kernel/debug/iscsi_xt/fault/fail says (fault.c). Every site is
# made to fail at least once:
#
# - module init (insmod with fault_site=SITE fault_nth=N): insmod fails
#   with ENOMEM, nothing is left loaded, no object its init allocated is
#   left (SLUB's allocation traces: do_one_initcall() in the stack), then
#   the module loads; the iSER module's init the same way;
# - configfs: the mkdir of a target, a TPG or a portal, and "echo 1" to a
#   portal's iser, fail at each of their sites, and work right after;
# - the raw initiator ixt_alloc_walk.py over TCP: a discovery session
#   with SendTargets; a login with mutual CHAP; a login with a 64 KiB
#   write read back, a NOP-Out held behind a CmdSN hole, a 32-byte CDB,
#   an ABORT TASK of a CmdSN never received, a LUN RESET, a NOP-Out with
#   data and a logout. For each, a clean run counts the allocations and
#   their sites, then every allocation N = 1, 2, ... fails in turn; the
#   same for a login, a bidirectional XDWRITEREAD(10) and a logout to a
#   LUN of a TCMU backstore (ixt_tcmu.py serves it; without
#   target_core_user that walk SKIPs). Each
#   run must end in RFC 7143's answer (a Login Response with an error
#   status, a Reject, a SCSI Response other than GOOD, a TMF Response
#   other than Function complete), in success, or with the connection
#   closed, never without an answer within 10 s; then no session may be
#   left, every cache line must be back in the pool, and an unarmed run
#   must succeed;
# - the same login, 512 KiB write (RDMA READs into registered MRs) and
#   read, LUN RESET, NOP-Out and logout over iSER (ixt_iser_raw.py's
#   client, pyverbs), the first allocation of each site of the transport
#   and of the command buffers failing (with IXT_ALLOC_FULL=1, which make
#   check-full sets, the first, second and last of every site); skipped
#   without pyverbs or an RDMA device.
#
# After each transport no object of iscsi_xt, iscsi_xt_iser or the
# target core is left behind (slub_debug=U; the unit attentions a LUN
# RESET leaves cleared with TEST UNIT READY first), nor an RDMA resource of
# iscsi_xt_iser; every cache line is back, and both modules unload.
# IXT_ALLOC_OWNED=1 counts the objects after every run as well (slow).

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_module
ixt_require_cmd python3
ixt_require_initiator
ko=${IXT_KO:-$(modinfo -n iscsi_xt)}
[ "$(modinfo -F ixt_fault_inject "$ko")" = Y ] ||
	ixt_skip_all "$ko is built without IXT_FAULT_INJECT=1 (make kselftest builds it with)"

tgt=iqn.2026-11.org.example.allocfail:rd
ctgt=iqn.2026-11.org.example.allocfail:chap
port=3260
portal=$IXT_ADDR4_T:$port
hba=$IXT_CFS/core/rd_mcp_83
rd=$hba/ixt_alloc
tpg=$IXT_FABRIC/$tgt/tpgt_1
ctpg=$IXT_FABRIC/$ctgt/tpgt_1
fault=/sys/kernel/debug/iscsi_xt/fault
chap=alloc-user:alloc-secret-1234:alloc-target:alloc-tsecret-5678
full=${IXT_ALLOC_FULL:-}
owners=(iscsi_xt target_core_mod)
walk_out=
res0=
btgt=iqn.2026-11.org.example.allocfail:bidi
btpg=$IXT_FABRIC/$btgt/tpgt_1
tcmu=$IXT_CFS/core/user_83/ixt_alloc_bidi
tcmu_handler=

trap 'bidi_gone; ixt_cleanup' EXIT
ixt_work

# walk ARGS...: one ixt_alloc_walk.py run, its lines in $walk_out; only
# the failures and the counts are shown, with the run's time.
walk() {
	local t0=$SECONDS rc=0

	walk_out=$("${py:-python3}" "$ixt_libdir/ixt_alloc_walk.py" \
		--host "$IXT_ADDR4_T" --port $port \
		${IXT_ALLOC_OWNED:+--owned iscsi_xt,iscsi_xt_iser,target_core_mod} \
		"$@" 2>&1) || rc=$?
	grep -vE '^ok ' <<<"$walk_out" | while read -r line; do
		ktap_print_msg "$line"
	done
	ktap_print_msg "$* took $((SECONDS - t0)) s"
	return $rc
}

# clear_ua: a clean run of TEST UNIT READY until GOOD, which frees the
# unit attentions the target core holds for the raw initiator (a LUN
# RESET leaves one on each LUN, of a kind the next run may or may not
# report): the object counts before and after a walk compare without them.
clear_ua() {
	walk --target "$tgt" --seq tur --count ||
		ktap_print_msg "the unit attentions were not cleared"
}

# arm N [SITE]: fail the Nth allocation from now (of SITE).
arm() {
	echo "$1 ${2:-all}" >"$fault/fail"
}

# refused SITE CMD...: with SITE's next allocation failing, CMD fails
# (the target core turns every failure of a fabric's configfs callback
# into EINVAL) and the failure was injected; then CMD succeeds.
refused() {
	local site=$1 n err

	shift
	n=$(cat "$fault/injected")
	arm 1 "$site"
	err=$("$@" 2>&1) && {
		ktap_print_msg "$site: $* succeeded"
		arm 0
		return 1
	}
	arm 0
	[ "$(cat "$fault/injected")" -eq $((n + 1)) ] ||
		{ ktap_print_msg "$site: no failure injected ($err)"; return 1; }
	"$@" || { ktap_print_msg "$site: $* fails unarmed too"; return 1; }
}

# init_refused SITE NTH: insmod with SITE's NTH allocation failing fails
# with ENOMEM, the kernel log says that allocation failed, and nothing
# is left loaded.
init_refused() {
	local err n

	n=$(ixt_klog_count "fault: allocation $2 failed at $1$")
	err=$(ixt_load "${small[@]}" fault_site="$1" fault_nth="$2" 2>&1) && {
		ktap_print_msg "init with $1 #$2 failing loaded"
		ixt_unload
		return 1
	}
	! ixt_loaded && grep -q "Cannot allocate memory" <<<"$err" &&
		[ "$(ixt_klog_count "fault: allocation $2 failed at $1$")" -eq $((n + 1)) ] ||
		{ ktap_print_msg "init with $1 #$2 failing: $err"; return 1; }
}

init_sites() {
	local s ok=0

	for s in pool_arrays:1 pool_arrays:2 pool_arrays:3 pool_cache:1 \
		 pool_pages:1 pool_pages:68 cmd_cache:1 wq:1; do
		init_refused "${s%:*}" "${s#*:}" || ok=1
	done
	ixt_load "${small[@]}" && ixt_unload || ok=1
	return $ok
}

ixt_begin 15

# The smallest pool: twice the largest command (8 MiB, 33 lines when it
# starts inside one) in 68 lines of 256 KiB.
small=(pool_mb=17 line_size=262144)
# Once loaded and unloaded, so that what a first load creates is in the
# baseline.
ixt_load "${small[@]}" && ixt_unload
ixt_init_objects >"$IXT_WORK/init.before"
init_tracked=$?
ixt_check "module init: insmod fails at each of its sites, then loads" \
	init_sites
if [ "$init_tracked" -ne 0 ]; then
	ktap_test_skip "module init: failed loads leave no slab object behind (needs slub_debug=U and debugfs)"
else
	# Exact objects (slub_debug=U), not whole caches, which the rest of
	# the kernel moves as well.
	ixt_check "module init: failed loads leave no slab object behind" \
		ixt_traced_back "allocated by module inits" \
		"$IXT_WORK/init.before" ixt_init_objects
fi

ixt_load || ktap_exit_fail_msg "cannot load iscsi_xt"
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
mkdir -p "$hba/ixt_alloc" && echo rd_pages=1024 >"$rd/control" &&
	echo 1 >"$rd/enable" || ktap_exit_fail_msg "cannot make the ramdisk"

configfs_sites() {
	local ok=0

	mkdir -p "$IXT_FABRIC"
	refused tiqn mkdir "$IXT_FABRIC/$tgt" || ok=1
	rmdir "$IXT_FABRIC/$tgt"
	refused tiqn_index mkdir "$IXT_FABRIC/$tgt" || ok=1
	refused tpg mkdir "$tpg" || ok=1
	refused np mkdir "$tpg/np/$portal" || ok=1
	rmdir "$tpg/np/$portal"
	refused portal mkdir "$tpg/np/$portal" || ok=1
	rmdir "$tpg/np/$portal"
	refused portal_sock mkdir "$tpg/np/$portal" || ok=1
	rmdir "$tpg/np/$portal"
	refused portal_link mkdir "$tpg/np/$portal" || ok=1
	return $ok
}
ixt_check "configfs: each site's failure refuses the mkdir, which works then" \
	configfs_sites

mkdir -p "$tpg/lun/lun_0" && ln -s "$rd" "$tpg/lun/lun_0/rd" &&
	echo 0 >"$tpg/attrib/authentication" &&
	echo 1 >"$tpg/attrib/generate_node_acls" &&
	echo 0 >"$tpg/attrib/demo_mode_write_protect" &&
	echo 1 >"$tpg/enable" ||
	ktap_exit_fail_msg "cannot set up $tgt"
# The CHAP target: per-TPG mutual CHAP in demo mode, the same portal, no
# LUN (so that the LUN RESETs leave no unit attention for its ACL).
mkdir -p "$ctpg/np/$portal" &&
	echo 1 >"$ctpg/attrib/authentication" &&
	echo 1 >"$ctpg/attrib/generate_node_acls" &&
	IFS=: read -r u s mu ms <<<"$chap" &&
	echo "$u" >"$ctpg/auth/userid" && echo "$s" >"$ctpg/auth/password" &&
	echo "$mu" >"$ctpg/auth/userid_mutual" &&
	echo "$ms" >"$ctpg/auth/password_mutual" &&
	echo 1 >"$ctpg/enable" ||
	ktap_exit_fail_msg "cannot set up $ctgt"

# A first login of each leaves the dynamic ACL that demo mode caches
# (cache_dynamic_acls, as in LIO) in the baseline.
walk --target "$tgt" --seq rw --count &&
	walk --target "$ctgt" --seq chap --chap "$chap" --count ||
	ktap_print_msg "the clean runs failed"
clear_ua
sleep 1
ixt_owned_mark "${owners[@]}"

ixt_check "discovery: every allocation of a SendTargets session fails in turn" \
	walk --target "$tgt" --seq discovery --nth
ixt_check "CHAP: every allocation of a mutual CHAP login fails in turn" \
	walk --target "$ctgt" --seq chap --chap "$chap" --nth
ixt_check "TCP: every allocation of login, IO, TMF and logout fails in turn" \
	walk --target "$tgt" --seq rw --nth

ixt_check "every cache line is back in the pool" ixt_pool_all_free
clear_ua
ixt_owned_check "after the TCP walks" "${owners[@]}"

# bidi: a TCMU backstore served by ixt_tcmu.py (as in tcp_bidi.sh) for the
# one kind of command that needs a second buffer. The TCMU device's own
# objects (its UIO device's sysfs nodes) go when the handler closes it,
# after the walk: only iscsi_xt's are counted.
bidi_walk() {
	ixt_owned_mark iscsi_xt
	mkdir -p "$tcmu" && echo "dev_size=$((1024 * 512))" >"$tcmu/control" &&
		echo 1 >"$tcmu/enable" || return 1
	python3 "$ixt_libdir/ixt_tcmu.py" ixt_alloc_bidi 1024 \
		>"$IXT_WORK/tcmu.log" 2>&1 &
	tcmu_handler=$!
	ixt_wait 60 grep -q '^ready$' "$IXT_WORK/tcmu.log" || return 1
	mkdir -p "$btpg/lun/lun_0" && ln -s "$tcmu" "$btpg/lun/lun_0/tcmu" &&
		ixt_demo_tpg "$btpg" "$portal" || return 1
	walk --target "$btgt" --seq bidi --count &&
		walk --target "$btgt" --seq bidi --nth
}

# bidi_gone: the handler stopped, the bidi target and the backstore
# removed.
bidi_gone() {
	[ -n "$tcmu_handler" ] && kill "$tcmu_handler" && wait "$tcmu_handler"
	tcmu_handler=
	rm -f "$btpg/lun/lun_0/tcmu"
	rmdir "$btpg/lun/lun_0" "$btpg/np/$portal" "$btpg" "$IXT_FABRIC/$btgt"
	rmdir "$tcmu" "${tcmu%/*}"
} 2>/dev/null

if modprobe -q target_core_user; then
	ixt_check "bidi: every allocation of a login, XDWRITEREAD(10) and logout fails in turn" \
		bidi_walk
	bidi_gone
	ixt_owned_check "after the bidi walk" iscsi_xt
else
	ktap_test_skip "bidi walk (needs the TCMU backstore, target_core_user)"
	ktap_test_skip "no object of iscsi_xt left behind after the bidi walk (no target_core_user)"
fi

# iSER: the same sequence through the raw iSER initiator. An iSER
# connection makes some 500 allocations (its receive and send buffers),
# a run costs over a second under TCG: the first allocation of each site
# of the transport's own, and of cache lines and command buffers (which
# the transport puts off and maps); with IXT_ALLOC_FULL=1 the first,
# second and last allocation of every site.
iser_walk() {
	local how=(--sites --only "iser_,cmd_buf,pool_get")

	[ -n "$full" ] && how=(--sites --ends)
	ixt_insmod_deps "$(ixt_iser_ko)" || return 1
	refused iser_cmd_cache insmod "$(ixt_iser_ko)" || return 1
	echo 0 >"$tpg/np/$portal/iser" &&
		refused iser_listener eval "echo 1 >$tpg/np/$portal/iser" &&
		echo 0 >"$tpg/np/$portal/iser" &&
		refused iser_listen_id eval "echo 1 >$tpg/np/$portal/iser" ||
		return 1
	# Registered READ sinks, as on iWARP: the MR pool's sites too.
	echo 1 >/sys/module/iscsi_xt_iser/parameters/force_reg
	clear_ua
	sleep 1
	ixt_owned_mark iscsi_xt iscsi_xt_iser target_core_mod
	res0=$(ixt_iser_res)
	py=$ixt_py walk --target "$tgt" --seq rw --transport iser "${how[@]}"
}

iser_res_back() {
	[ "$(ixt_iser_res)" = "$res0" ] && return 0
	ktap_print_msg "RDMA resources: $res0 before, $(ixt_iser_res) after"
	return 1
}

iser_skip=
if ! "$ixt_py" -c 'import pyverbs.cmid' 2>/dev/null; then
	iser_skip="needs rdma-core's pyverbs for $ixt_py (python3-pyverbs)"
elif ! ls /sys/class/infiniband/*/ports >/dev/null 2>&1 ||
	! modprobe -q ib_uverbs || ! modprobe -q rdma_ucm ||
	! modprobe -q rdma_cm; then
	iser_skip="needs an RDMA device and RDMA from user space"
elif [ ! -f "$(ixt_iser_ko)" ]; then
	iser_skip="iscsi_xt_iser.ko is not built"
fi
if [ -n "$iser_skip" ]; then
	for t in "iSER walk" "iSER: no object left behind" "iSER: no RDMA resource left"; do
		ktap_test_skip "$t ($iser_skip)"
	done
else
	ixt_check "iSER: module init, the listener, and the sites of login, IO, TMF and logout fail" \
		iser_walk
	clear_ua
	ixt_owned_check "after the iSER walk" iscsi_xt iscsi_xt_iser target_core_mod
	ixt_check "iSER: no RDMA resource of iscsi_xt_iser left" iser_res_back
fi

ktap_print_msg "sites: $(awk '$2 > 0 { printf "%s:%d/%d ", $1, $2, $3 }' "$fault/sites")"
ktap_print_msg "sites never reached: $(awk '$2 == 0 { printf "%s ", $1 }' "$fault/sites")"
ktap_print_msg "failures injected: $(cat "$fault/injected")"
ixt_check "every cache line is back in the pool at the end" ixt_pool_all_free
ixt_cfs_clear
ixt_check "both modules unload" ixt_target_unload
ixt_finish
