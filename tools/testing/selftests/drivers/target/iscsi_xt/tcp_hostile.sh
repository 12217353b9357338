#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What a host that never authenticates can make the target hold, read and
# log, over TCP, with the raw initiator ixt_hostile.py (its cases say what
# each asserts):
# - pin_vendor, pin_login_cmd: $pin connections in the login phase, each
#   a BHS announcing a 16 MiB data segment (a vendor-specific opcode; a
#   SCSI Command) and a few bytes of it, held open: iscsi_xt's vmalloc
#   areas grow by less than 64 KiB a connection and MemAvailable drops by
#   less than 256 KiB a connection (a data segment over the login phase's
#   8 KiB closes the connection before anything is allocated for it);
# - varlen_cdb_no_ahs, varlen_cdb_short_ahs: a variable-length CDB whose
#   byte 7 makes it 260 bytes long, with 16 of them or 20 received:
#   CHECK CONDITION, INVALID FIELD IN CDB, the session goes on (the
#   target core would otherwise copy 260 bytes from a 16- or 20-byte
#   buffer);
# - discovery_cap: 64 discovery sessions held open at once, the next one
#   refused at login with "out of resources" (0x0302), and one more let
#   in after one of them logged out;
# - discovery_idle: 64 discovery sessions silent once logged in, each
#   closed by the target within 30 + 10 s, then a new one let in; the
#   target declared MaxRecvDataSegmentLength 8192 at most to each;
# - login_unread: $pin connections that read nothing, each sending 20
#   Login Requests of 120 unknown keys without T (7.8 KB of answer
#   each), then a NOP-Out that fails the login: MemAvailable drops by
#   less than 384 KiB a connection (the target reads no Login Request
#   while a Login Response is queued), and within login_timeout + 15 s
#   they are reset and a discovery login gets in;
# - logout_unread: a session that leaves the echoes of 100 NOP-Outs of
#   8 KiB unread, then logs out: the target's socket of it is gone
#   within 5 + 10 + 10 s (its commands waited for, its Logout Response's
#   deadline, a margin);
# - name_newline: an InitiatorName, then a TargetName, holding a newline
#   and a forged log line: refused with 0x0200, nothing forged logged;
# - lun_flood: 300 TEST UNIT READYs on a LUN the session does not map:
#   each CHECK CONDITION, LOGICAL UNIT NOT SUPPORTED; no message logged
#   more often than printk_ratelimited() allows a call site;
# - login_fair: from $IXT_ADDR4_I, $pin idle connections, every place in
#   login; its next connection closed at accept, while a discovery login
#   from $IXT_ADDR4_T gets in, the first host's oldest connection reset
#   for it (before: closed at accept, the first host keeping every other
#   out of login);
# - discovery_fair: from $IXT_ADDR4_I, 64 discovery sessions, every place;
#   a discovery login from $IXT_ADDR4_T gets in, the first host's oldest
#   session reset for it (before: refused with 0x0302);
# - abort_flood: 200 immediate ABORT TASKs of a task that is done: at
#   most 32 and 4 a second after reach the target core, which logs a
#   line for each ("task does not exist"), the others "Function
#   rejected"; one carried out again 2 s later (before: all 200, a line
#   each);
# - chap_relay: on a second target with TPG credentials and mutual CHAP,
#   a login whose CHAP_C is another login's outstanding challenge is
#   refused 0x0201 without the target's answer (before: answered, which
#   relays that answer to the other login); its own challenge is
#   answered;
# - chap_fail_delay: a wrong CHAP_R is answered 0x0201 2 s later, so 64
#   places in login make at most 32 guesses a second (before: at once);
# - flood: $flood connections, 8 at a time: logins to an unknown target,
#   discovery sessions, logins and normal sessions (demo mode) cut off,
#   vendor opcodes in the login phase; no message they cause is logged
#   more often than printk_ratelimited() allows a call site (10 lines in
#   5 s, so at most 30 in any 10 s).
# The TPG: a ramdisk LUN in demo mode, login_timeout 15 s (the default);
# the CHAP target's: no LUN, demo mode, TPG credentials.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_module
ixt_require_cmd python3 ss
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug

tgt=iqn.2026-11.org.example.hostile:rd
portal=$IXT_ADDR4_T:3260
rd=$IXT_CFS/core/rd_mcp_79/ixt_hostile
tpg=$IXT_FABRIC/$tgt/tpgt_1
ctgt=iqn.2026-11.org.example.hostile:chap
ctpg=$IXT_FABRIC/$ctgt/tpgt_1
chap=ixt-user:ixt-secret-12:ixt-target:ixt-mutual-12
pin=64
flood=300
cases=(pin_vendor pin_login_cmd varlen_cdb_no_ahs varlen_cdb_short_ahs discovery_cap
	login_unread logout_unread discovery_idle name_newline lun_flood login_fair
	discovery_fair abort_flood chap_relay chap_fail_delay flood)

cleanup() {
	ixt_cleanup
}
trap cleanup EXIT

# raw CASE...: run ixt_hostile.py against the TPG; its lines in $raw_out.
raw() {
	raw_out=$(timeout $((600 * IXT_SLOW)) python3 "$ixt_libdir/ixt_hostile.py" \
		--target "$tgt" --host "$IXT_ADDR4_T" --conns "$pin" \
		--sources "$IXT_ADDR4_I,$IXT_ADDR4_T" --chap-target "$ctgt" \
		--chap "$chap" "$@" 2>&1)
}

ixt_begin $((${#cases[@]} + 2))
ixt_load || ktap_exit_fail_msg "cannot load iscsi_xt"
{
	mkdir -p "$rd" && echo rd_pages=2048 >"$rd/control" &&
		echo 1 >"$rd/enable" && mkdir -p "$tpg/lun/lun_0" &&
		ln -s "$rd" "$tpg/lun/lun_0/ixt_hostile" &&
		mkdir "$tpg/np/$portal" &&
		echo 0 >"$tpg/attrib/authentication" &&
		echo 1 >"$tpg/attrib/generate_node_acls" &&
		echo 1 >"$tpg/enable"
} || ktap_exit_fail_msg "cannot configure the target"
{
	mkdir -p "$ctpg/np/$portal" &&
		echo 1 >"$ctpg/attrib/authentication" &&
		echo 1 >"$ctpg/attrib/generate_node_acls" &&
		IFS=: read -r u s mu ms <<<"$chap" &&
		echo "$u" >"$ctpg/auth/userid" &&
		echo "$s" >"$ctpg/auth/password" &&
		echo "$mu" >"$ctpg/auth/userid_mutual" &&
		echo "$ms" >"$ctpg/auth/password_mutual" &&
		echo 1 >"$ctpg/enable"
} || ktap_exit_fail_msg "cannot configure the CHAP target"

ixt_raw_cases "${cases[@]:0:15}"
pin=$flood ixt_raw_cases flood

ixt_check "no session is left" ixt_sessions_gone 20
ixt_cfs_clear
ixt_unload
ixt_check "iscsi_xt unloads" [ ! -d /sys/module/iscsi_xt ]
ixt_finish
