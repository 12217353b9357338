#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Configuration changes under IO, made as an admin makes them: through one
# targetcli shell kept open, while fio writes and verifies a LUN through
# open-iscsi. A round for each transport of $IXT_TRANSPORTS ("tcp iser" by
# default; iSER SKIPs with the reason when it cannot run) and each object
# of the target in turn, the LUN, the ACL, the portal and the TPG:
#
# - open-iscsi logs in with one-way CHAP (the ACL's credentials), reads
#   back the 4 MiB that the round before wrote at 32 MiB (the ramdisk
#   backstore stays throughout) and writes new ones;
# - while fio writes and verifies the first 8 MiB again and again,
#   targetcli deletes the object; the command returns within 30 s and the
#   object is gone from configfs;
# - what the IO does then, within 60 s and never hanging:
#     LUN     targetcli removes the ACL's mapped LUN, then the LUN: the
#             next commands get CHECK CONDITION, LOGICAL UNIT NOT
#             SUPPORTED, and fio stops with an I/O error (EREMOTEIO);
#     ACL     targetcli removes the mapped LUN first (the same answer to
#             the commands that come before the ACL goes), then the ACL:
#             the target ends its session and refuses the initiator's
#             logins, which fails the IO after its replacement timeout
#             (5 s here): fio stops with an I/O error;
#     portal  the listener stops; the session accepted through it goes
#             on, and fio keeps verifying;
#     TPG     targetcli removes its LUNs, ACLs and portals, then the TPG:
#             as for the ACL;
#   never a verification failure;
# - the initiator logs out and targetcli deletes the target: the module
#   holds no session and every cache line is back in the pool;
# - targetcli creates the target again, which the next round logs in to.
#
# At the end the recreated target serves a verified fio run, and once it is
# deleted no object of the target's modules or the target core is left
# behind.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_cmd targetcli fio cmp
ixt_require_initiator
ixt_require_module

tgt=iqn.2026-11.org.example.churn:t
portal=$IXT_ADDR4_T:3260
g=/iscsi/$tgt/tpg1
tpg=$IXT_FABRIC/$tgt/tpgt_1
rd=ixt_churn
user=churn-user
secret=churn-secret-0123
keep_mib=32		# where each round reads the last one's data back
transports=${IXT_TRANSPORTS:-tcp iser}
kinds=(LUN ACL portal TPG)
owners=(iscsi_xt target_core_mod)
per_round=6

cleanup() {
	ixt_fio_loop_stop
	ixt_tcli_close
	timeout -k 5 30 iscsiadm -m session -u
	ixt_cleanup
} >/dev/null 2>&1
trap cleanup EXIT

# config: the targetcli commands that make the target: LUN 0 on the
# ramdisk, a portal (serving iSER too when the transport is there), and an
# ACL for this initiator with CHAP credentials, LUN 0 mapped.
config() {
	echo "/iscsi create $tgt"
	echo "$g/luns create /backstores/ramdisk/$rd"
	echo "$g/portals create $IXT_ADDR4_T 3260"
	[ -z "$iser" ] && echo "$g/portals/$portal enable_iser true"
	echo "$g set attribute authentication=1 generate_node_acls=0"
	echo "$g/acls create $IXT_INITIATOR"
	echo "$g/acls/$IXT_INITIATOR set auth userid=$user password=$secret"
}

# create: targetcli makes the target; configfs shows all of it.
create() {
	local cmds

	mapfile -t cmds < <(config)
	ixt_tcli_do 60 "${cmds[@]}" &&
		[ -d "$tpg/acls/$IXT_INITIATOR/lun_0" ] &&
		[ "$(cat "$tpg/acls/$IXT_INITIATOR/auth/userid")" = "$user" ] &&
		[ -d "$tpg/np/$portal" ] && [ "$(cat "$tpg/enable")" = 1 ] &&
		{ [ -n "$iser" ] || [ "$(cat "$tpg/np/$portal/iser")" = 1 ]; } &&
		return 0
	ixt_show_tail "$IXT_WORK/tcli/targetcli.log"
	return 1
}

# backstore_is: the ramdisk backstore exists in configfs.
backstore_is() {
	ls -d "$IXT_CFS"/core/rd_mcp_*/"$rd" >/dev/null 2>&1
}

# delete KIND: the targetcli command that deletes the object KIND, and
# the configfs path that goes with it.
delete_cmd() {
	case $1 in
	LUN) echo "$g/luns delete lun0" ;;
	ACL) echo "$g/acls delete $IXT_INITIATOR" ;;
	portal) echo "$g/portals delete $IXT_ADDR4_T 3260" ;;
	TPG) echo "/iscsi/$tgt delete tpg1" ;;
	esac
}

delete_path() {
	case $1 in
	LUN) echo "$tpg/lun/lun_0" ;;
	ACL) echo "$tpg/acls/$IXT_INITIATOR" ;;
	portal) echo "$tpg/np/$portal" ;;
	TPG) echo "$tpg" ;;
	esac
}

# login IFACE: open-iscsi logs in to the target through IFACE with the
# ACL's CHAP credentials; sets sid and disk.
login() {
	ixt_login "$1" "$tgt" "$portal" node.session.auth.authmethod=CHAP \
		node.session.auth.username="$user" \
		node.session.auth.password="$secret" \
		node.session.timeo.replacement_timeout=5 &&
		sid=$(ixt_sid "$2" "$tgt") && disk=$(ixt_sid_disk "$sid" 0)
}

# keep: the 4 MiB at $keep_mib MiB read back as the last round wrote them
# (none at the first), then new ones written there.
keep() {
	dd if="$disk" of="$IXT_WORK/keep.in" bs=1M skip=$keep_mib count=4 \
		iflag=direct status=none || return 1
	if [ -e "$IXT_WORK/keep.out" ] &&
	   ! cmp "$IXT_WORK/keep.out" "$IXT_WORK/keep.in"; then
		ktap_print_msg "the 4 MiB written at $keep_mib MiB the round before read back different"
		return 1
	fi
	head -c 4M /dev/urandom >"$IXT_WORK/keep.out" &&
		dd if="$IXT_WORK/keep.out" of="$disk" bs=1M seek=$keep_mib \
			oflag=direct conv=fsync status=none
}

# io_failed: the fio loop stops by itself within 60 s of $t0 with an I/O
# error, and no run of it found data different from what it wrote.
io_failed() {
	local rc

	if ! ixt_wait 60 eval '! kill -0 "$IXT_FIO_LOOP" 2>/dev/null'; then
		ktap_print_msg "fio still runs 60 s after the deletion"
		ixt_fio_loop_stop
		return 1
	fi
	ixt_fio_loop_end >"$IXT_WORK/fio.out"
	rc=$?
	not_corrupt || return 1
	if [ $rc -eq 0 ]; then
		ktap_print_msg "fio stopped without an error"
		return 1
	fi
	ktap_print_msg "fio stopped $((SECONDS - t0)) s after the deletion:" \
		"$(grep -m1 -iE 'error' "$IXT_WORK/fio.out" | cut -c1-200)"
}

# io_went_on: the fio loop, stopped 5 s after the deletion, verified every
# run.
io_went_on() {
	sleep 5
	ixt_fio_loop_end >"$IXT_WORK/fio.out" ||
		{ not_corrupt; cat "$IXT_WORK/fio.out"; return 1; }
	tail -n 1 "$IXT_WORK/fio.out"
}

# not_corrupt: fio's output shows no verification failure.
not_corrupt() {
	grep -qiE 'verify failed|bad magic|bad header' "$IXT_WORK/fio.out" ||
		return 0
	ktap_print_msg "fio found data different from what it wrote:"
	grep -iE 'verify failed|bad magic|bad header' "$IXT_WORK/fio.out" |
		head -n 5 | while read -r line; do ktap_print_msg "$line"; done
	return 1
}

# teardown IFACE: the initiator logs out (or gives up a failed session),
# targetcli deletes the target, and the module holds no session and no
# cache line.
teardown() {
	timeout -k 5 30 iscsiadm -m node -T "$tgt" -p "$portal" -I "$1" \
		--logout >/dev/null 2>&1
	ixt_node "$1" "$tgt" "$portal" -o delete
	ixt_tcli_do 30 "/iscsi delete $tgt" && [ ! -d "$IXT_FABRIC/$tgt" ] &&
		ixt_sessions_gone 15 &&
		ixt_wait 10 ixt_pool_all_free
}

# round TRANSPORT KIND: one round, $per_round subtests.
round() {
	local t=$1 kind=$2 iface=${1/tcp/default} what="$1, $2" path

	if [ "$t" = iser ] && [ -n "$iser" ]; then
		ixt_skip_n $per_round "$what: $iser"
		return
	fi
	disk=
	IXT_FIO_LOOP=
	ixt_check "$what: open-iscsi logs in with CHAP" login "$iface" "$t"
	ixt_check "$what: the 4 MiB the round before wrote read back, new ones written" \
		eval '[ -b "$disk" ] && keep'
	if [ -b "$disk" ]; then
		ixt_fio_loop_start "$disk"
		ixt_writing "$disk"
	fi
	t0=$SECONDS
	# shellcheck disable=SC2034 # the check evals it
	path=$(delete_path "$kind")
	ixt_check "$what: targetcli deletes the $kind under IO within 30 s" \
		eval 'ixt_tcli_do 30 "$(delete_cmd "$kind")" && [ ! -e "$path" ]'
	if [ -z "$IXT_FIO_LOOP" ]; then
		ktap_test_fail "$what: no IO ran"
	elif [ "$kind" = portal ]; then
		ixt_check "$what: the session goes on, fio verifies every run" io_went_on
	else
		ixt_check "$what: fio stops with an I/O error within 60 s, no data differs" \
			io_failed
	fi
	ixt_check "$what: logout, targetcli deletes the target: no session, every cache line back" \
		teardown "$iface"
	ixt_check "$what: targetcli creates the target again" create
}

iser=$(ixt_iser_missing)
read -ra tlist <<<"$transports"
ixt_begin $((per_round * ${#kinds[@]} * ${#tlist[@]} + 6))
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
ixt_work || ktap_exit_fail_msg "no work directory"
if [ -z "$iser" ]; then
	ixt_target_load && owners+=(iscsi_xt_iser)
else
	ixt_load
fi || ktap_exit_fail_msg "cannot load iscsi_xt"
ixt_tcli_open "$IXT_WORK/tcli" &&
	ixt_tcli_do 60 "/backstores/ramdisk create name=$rd size=64M" &&
	backstore_is ||
	ktap_exit_fail_msg "targetcli cannot make the backstore"
ixt_owned_mark "${owners[@]}"
ixt_check "targetcli makes the target: LUN, portal, ACL with CHAP" create

for t in "${tlist[@]}"; do
	for kind in "${kinds[@]}"; do
		round "$t" "$kind"
	done
done

ixt_check "the target made again serves a fio run, verified" \
	eval 'login default tcp && ixt_fio_verify "$disk" 0 8192 64k 8'
ixt_check "logout, targetcli deletes the target: no session, every cache line back" \
	teardown default
ixt_owned_check "by the rounds, once the target is deleted" "${owners[@]}"
ixt_check "targetcli deletes the backstore" \
	eval 'ixt_tcli_do 30 "/backstores/ramdisk delete $rd" &&
	      ! backstore_is'
ixt_tcli_close
ixt_check "the target unloads" ixt_target_unload
ixt_finish
