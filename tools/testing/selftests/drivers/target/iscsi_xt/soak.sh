#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Soak: fio write+verify on several sessions for $IXT_SOAK_SECONDS (600 by
# default) while faults strike at random intervals, the module's counters
# sampled over time, and a verdict at the end. Not part of make check:
# make soak DURATION=S runs it (scripts/soak.sh).
#
# Four verified sessions of open-iscsi, each to a target of its own and
# each running an fio loop on its LUN 0 for the whole soak (random 64 KiB
# writes over 8 MiB, iodepth 8, CRC32C, verify_fatal, each run a new
# seed): TCP to a ramdisk, TCP to iblock over a memory-backed null_blk,
# and the same two over iSER (SKIPped with the reason when iSER cannot
# run here). Their replacement_timeout is 300 s: what a fault breaks is
# retried, not failed. A fifth TCP session, to a LUN with bad blocks, is
# only for the backend errors.
#
# One fault at a time, at random gaps (20 to 90 s; 10 to 30 s in a run
# shorter than 1800 s, so that it sees every kind), the kinds dealt from
# a shuffled deck so that each comes up as often as the others, seeded
# ($IXT_SOAK_SEED, else random; printed); $IXT_SOAK_KINDS, a list of
# kinds, deals only those:
#   conn_cut       ss -K of one TCP connection, the initiator's or the
#                  target's side: the session logs in again
#   netem          20 s of 1% loss, 2 +- 1 ms delay, 10% reordered, 1%
#                  duplicated on lo's port 3260 (soft-RoCE bypasses qdiscs)
#   blackhole      15 s of 100% loss, longer than the TCP ACLs' NOP-In
#                  timeout (3 s + 3 s): the target's keepalive closes the
#                  connections, the sessions log in again when it ends
#   tpg_toggle     a verified target's TPG disabled for 3 s (the disable
#                  returns within 5 s) and enabled: its session logs in again
#   login_storm    20 CHAP logins and logouts of the raw initiator against
#                  a target of their own
#   raw_death      the raw initiator killed in the middle of a write's
#                  Data-Out, against a target of its own: its session ends
#   targetcli      a LUN and an ACL added and removed through a targetcli
#                  shell kept open, on a target of their own
#   backend_error  READ(10) of bad blocks of the fifth session's LUN gets
#                  CHECK CONDITION, the blocks beside them write and read
#   lun_reset      sg_reset -d of a verified disk
#   iscsid_death   iscsid killed and a TCP session's socket cut: the target
#                  ends the session; iscsid, started again, recovers it
# After each, every session is logged in again before the next gap
# starts. Each fault is logged with its time in faults.log.
#
# Every 30 s a line of soak.tsv: seconds since the start, the fault in
# progress, each verified loop's runs, fio errors, cache lines in use and
# the pool's exhaustions (debugfs iscsi_xt/pool), the target's sessions
# (debugfs iscsi_xt/sessions), the initiator's logged-in sessions, the
# slab objects of the target's modules (ixt_owned_objects, at most a
# tenth of the time spent on it) and MemAvailable. Both files land in
# $IXT_OUT (build/vm/soak/ on the host).
#
# Verdict: every loop verified every run; each kind of fault that struck
# recovered every time; no I/O error on the verified disks; memory flat:
# the modules' objects with the sessions up and fio paused, after the
# faults, within $owned_bound of the level after warm-up, and
# MemAvailable within $mem_bound_mib MiB of it; after logout and the
# configuration cleared, every cache line back, no object left behind
# since before the configuration, the RDMA resources of the iSER
# transport back; the modules unload; the kernel log clean. A summary
# paragraph ends the output (and summary.txt).

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_module
ixt_require_cmd fio ss sg_raw sg_reset tc python3 targetcli pkill
ixt_require_initiator
[ "$IXT_TARGET" = xt ] || ixt_skip_all "soak.sh reads iscsi_xt's own state (debugfs)"
modprobe -q sch_netem || ixt_skip_all "needs sch_netem"
modprobe -q target_core_iblock || ixt_skip_all "target_core_iblock unavailable"
modprobe -n -q null_blk || ixt_skip_all "null_blk unavailable"

duration=${IXT_SOAK_SECONDS:-600}
seed=${IXT_SOAK_SEED:-$(((RANDOM << 15) | RANDOM))}
if [ "$duration" -lt 1800 ]; then
	gap_min=10 gap_max=30
else
	gap_min=20 gap_max=90
fi
period=30		# seconds between samples
owned_bound=32		# objects the modules may hold more after the faults
mem_bound_mib=128	# MemAvailable may drop by this much

pre=iqn.2026-11.org.example.soak
portal=$IXT_ADDR4_T:3260
rd=$IXT_CFS/core/rd_mcp_95
ib=$IXT_CFS/core/iblock_95
nullb=/sys/kernel/config/nullb
storm_ini=iqn.2026-11.org.example:soak-storm
raw_ini=iqn.2026-11.org.example:soak-raw
cfg_ini=iqn.2026-11.org.example:soak-cfg
bad_lba=8192		# the bad LUN's null_blk: 8 bad blocks from here
dbg=/sys/kernel/debug/iscsi_xt
owners=(iscsi_xt target_core_mod)
kinds=(conn_cut netem blackhole tpg_toggle login_storm raw_death targetcli
	backend_error lun_reset iscsid_death)
# The deck: every kind, or those $IXT_SOAK_KINDS names (to chase one).
read -ra dealt <<<"${IXT_SOAK_KINDS:-${kinds[*]}}"
for k in "${dealt[@]}"; do
	[[ " ${kinds[*]} " == *" $k "* ]] ||
		ixt_skip_all "IXT_SOAK_KINDS: no fault $k (${kinds[*]})"
done
# The verified sessions: name, transport, backstore.
names=(tcp-rd tcp-nb iser-rd iser-nb)
declare -A transport=([tcp-rd]=tcp [tcp-nb]=tcp [iser-rd]=iser [iser-nb]=iser)
declare -A disk=() loop=()
live=()			# the verified sessions that run
sampler=

tgt() { echo "$pre:$1"; }
tpg_of() { echo "$IXT_FABRIC/$(tgt "$1")/tpgt_1"; }

cleanup() {
	local n

	[ -n "$IXT_WORK" ] && touch "$IXT_WORK/stop" "$IXT_WORK/stop_sampler"
	[ -n "$sampler" ] && kill "$sampler" 2>/dev/null
	ixt_tcli_close
	for n in "${!loop[@]}"; do
		kill "${loop[$n]}" 2>/dev/null
	done
	[ -n "$sampler" ] && wait "$sampler" 2>/dev/null
	ixt_netem_off
	pgrep -x iscsid >/dev/null || ixt_iscsid_start
	timeout -k 5 60 iscsiadm -m session -u >/dev/null 2>&1
	ixt_cleanup
	for n in "$nullb"/ixt_soak_*; do
		[ -d "$n" ] && echo 0 >"$n/power" && rmdir "$n"
	done 2>/dev/null
}
trap cleanup EXIT

# say TEXT: a KTAP diagnostic, and a line of faults.log, with the time.
say() {
	ktap_print_msg "soak: T+${SECONDS}s $*"
	echo "T+${SECONDS}s $*" >>"$results/faults.log"
}

# null_dev NAME [BADBLOCKS]: a memory-backed null_blk of 64 MiB, /dev/NAME.
null_dev() {
	mkdir "$nullb/$1" && echo 1 >"$nullb/$1/memory_backed" &&
		echo 64 >"$nullb/$1/size" &&
		{ [ -z "${2:-}" ] || echo "$2" >"$nullb/$1/badblocks"; } &&
		echo 1 >"$nullb/$1/power" && ixt_wait 10 test -b "/dev/$1"
}

# store rd NAME PAGES | store ib NAME DEV: a backstore.
store() {
	case $1 in
	rd)	mkdir -p "$rd/$2" && echo "rd_pages=$3" >"$rd/$2/control" &&
			echo 1 >"$rd/$2/enable" ;;
	ib)	mkdir -p "$ib/$2" && echo "udev_path=$3" >"$ib/$2/control" &&
			echo 1 >"$ib/$2/enable" ;;
	esac
}

# target NAME STORE ISER: target NAME's TPG with STORE as LUN 0, a portal
# on $portal (serving iSER too when ISER is 1), authentication off; its
# ACLs are the caller's, the TPG not enabled yet.
target() {
	local tpg

	tpg=$(tpg_of "$1")
	mkdir -p "$tpg/lun/lun_0" && ln -s "$2" "$tpg/lun/lun_0/${2##*/}" &&
		mkdir "$tpg/np/$portal" &&
		{ [ "$3" = 0 ] || echo 1 >"$tpg/np/$portal/iser"; } &&
		echo 0 >"$tpg/attrib/authentication"
}

# acl NAME INITIATOR: an ACL of target NAME's TPG with LUN 0.
acl() {
	local tpg a

	tpg=$(tpg_of "$1")
	a=$tpg/acls/$2
	mkdir -p "$a/lun_0" && ln -s "$tpg/lun/lun_0" "$a/lun_0/map"
}

enable() { echo 1 >"$(tpg_of "$1")/enable"; }

configure() {
	local n iser_on=0

	[ -z "$iser" ] && iser_on=1
	ixt_null_blk nr_devices=0 &&
		null_dev ixt_soak_tcp && null_dev ixt_soak_iser &&
		null_dev ixt_soak_bad "+$bad_lba-$((bad_lba + 7))" || return 1
	store rd tcp_rd 8192 && store rd iser_rd 8192 && store rd raw 8192 &&
		store rd storm 1024 && store rd cfg0 1024 && store rd cfg1 1024 &&
		store ib tcp_nb /dev/ixt_soak_tcp &&
		store ib iser_nb /dev/ixt_soak_iser &&
		store ib bad /dev/ixt_soak_bad || return 1
	target tcp-rd "$rd/tcp_rd" 0 && target tcp-nb "$ib/tcp_nb" 0 &&
		target iser-rd "$rd/iser_rd" $iser_on &&
		target iser-nb "$ib/iser_nb" $iser_on &&
		target bad "$ib/bad" 0 && target raw "$rd/raw" 0 &&
		target storm "$rd/storm" 0 && target cfg "$rd/cfg0" 0 || return 1
	for n in "${names[@]}" bad; do
		acl "$n" "$IXT_INITIATOR" || return 1
	done
	# The TCP sessions' keepalive: what finds a black hole.
	for n in tcp-rd tcp-nb; do
		echo 3 >"$(tpg_of "$n")/acls/$IXT_INITIATOR/attrib/nopin_timeout" &&
			echo 3 >"$(tpg_of "$n")/acls/$IXT_INITIATOR/attrib/nopin_response_timeout" ||
			return 1
	done
	acl raw "$raw_ini" &&
		echo 1 >"$(tpg_of storm)/attrib/authentication" &&
		ixt_chap_acl "$(tpg_of storm)" "$storm_ini" storm-user storm-secret-0123 ||
		return 1
	for n in "${names[@]}" bad raw storm cfg; do
		enable "$n" || return 1
	done
}

# login NAME IFACE: the session to target NAME, with recovery rather
# than failure for what the faults break; its disk in ${disk[NAME]}.
login() {
	local t d

	t=$(tgt "$1")
	ixt_login "$2" "$t" "$portal" \
		node.session.timeo.replacement_timeout=300 \
		node.conn[0].timeo.noop_out_interval=0 \
		node.conn[0].timeo.noop_out_timeout=0 || return 1
	d=$(ixt_target_disk "$t" 0) || return 1
	disk[$1]=$d
}

# The targets whose sessions the initiator keeps, set once the
# verified sessions are known. The checks below read sysfs and configfs
# with shell built-ins: a process costs up to a second in the busy VM.
sess_targets=()

# all_logged_in: the initiator has a session to each of $sess_targets,
# logged in.
all_logged_in() {
	local s t st
	local -A up=()

	for s in /sys/class/iscsi_session/session*; do
		read -r t <"$s/targetname" 2>/dev/null || continue
		read -r st <"$s/state" 2>/dev/null || continue
		[ "$st" = LOGGED_IN ] && up[$t]=1
	done
	for t in "${sess_targets[@]}"; do
		[ -n "${up[$t]:-}" ] || return 1
	done
}

# accepts TARGET: the logins TARGET accepted (ixt_accepts, built-ins).
accepts() {
	local n

	read -r n <"$IXT_FABRIC/$1/fabric_statistics/iscsi_login_stats/accepts"
	echo "$n"
}

# accepts_total: the logins the session targets accepted.
accepts_total() {
	local t n m=0

	for t in "${sess_targets[@]}"; do
		read -r n <"$IXT_FABRIC/$t/fabric_statistics/iscsi_login_stats/accepts"
		m=$((m + n))
	done
	echo $m
}

# relogged ACC SECONDS: within SECONDS the session targets accepted more
# logins than ACC and every session is logged in.
relogged() {
	ixt_wait "$2" relogged_now "$1"
}

relogged_now() { [ "$(accepts_total)" -gt "$1" ] && all_logged_in; }

# target_relogged TARGET ACC: TARGET accepted more logins than ACC and
# every session is logged in.
target_relogged() { [ "$(accepts "$1")" -gt "$2" ] && all_logged_in; }

# fio_loop NAME: ixt_fio_verify_64k on the first 8 MiB of NAME's disk
# again and again until $IXT_WORK/stop exists, counting the runs verified
# and the failures (in IXT_WORK/NAME.runs, .fails; fio's findings in
# .log). Between runs it waits while $IXT_WORK/pause exists, saying so in
# NAME.paused.
fio_loop() {
	local n=$1 runs=0 fails=0 w=$IXT_WORK

	echo 0 >"$w/$n.runs"
	echo 0 >"$w/$n.fails"
	until [ -e "$w/stop" ]; do
		while [ -e "$w/pause" ] && [ ! -e "$w/stop" ]; do
			touch "$w/$n.paused"
			sleep 0.5
		done
		rm -f "$w/$n.paused"
		[ -e "$w/stop" ] && break
		if ixt_fio_verify_64k "${disk[$n]}" 0 8M; then
			runs=$((runs + 1))
			echo $runs >"$w/$n.runs"
		else
			fails=$((fails + 1))
			echo $fails >"$w/$n.fails"
			ktap_print_msg "T+${SECONDS}s: fio on $n (${disk[$n]}) failed"
			sleep 5
		fi
	done >>"$w/$n.log" 2>&1
}

runs_of() { cat "$IXT_WORK/$1.runs" 2>/dev/null || echo 0; }
fails_of() { cat "$IXT_WORK/$1.fails" 2>/dev/null || echo 0; }

# loops_verified: every loop verified a run.
loops_verified() {
	local n

	for n in "${live[@]}"; do
		[ "$(runs_of "$n")" -ge 1 ] || return 1
	done
}

# pause_loops: every loop between two runs, waiting (up to 600 s);
# resume_loops lets them go on.
pause_loops() {
	local n

	touch "$IXT_WORK/pause"
	for n in "${live[@]}"; do
		ixt_wait 600 test -e "$IXT_WORK/$n.paused" || return 1
	done
}

resume_loops() { rm -f "$IXT_WORK/pause"; }

owned_total() {
	ixt_owned_objects "${owners[@]}" >"$IXT_WORK/owned.$1" &&
		awk '{ n += $2 } END { print n + 0 }' "$IXT_WORK/owned.$1"
}

mem_avail() { awk '$1 == "MemAvailable:" { print $2 }' /proc/meminfo; }

# sample_loop: a line of soak.tsv every $period s (plus the time the line
# takes) until $IXT_WORK/stop_sampler exists or it is killed; the slab
# objects only when at least ten times their cost has passed since they
# were last counted.
sample_loop() {
	local n row t0 cost=0 last=-100000 owned errs

	printf 't_s\tfault' >"$results/soak.tsv"
	for n in "${names[@]}"; do
		printf '\tfio_%s' "$n"
	done >>"$results/soak.tsv"
	printf '\tfio_errors\tpool_in_use\tpool_exhausted\ttarget_sessions\tinitiator_logged_in\towned_objects\tmem_available_kib\n' \
		>>"$results/soak.tsv"
	until [ -e "$IXT_WORK/stop_sampler" ]; do
		row="$SECONDS	$(cat "$IXT_WORK/fault_now" 2>/dev/null || echo -)"
		errs=0
		for n in "${names[@]}"; do
			if [ -n "${loop[$n]:-}" ]; then
				row+="	$(runs_of "$n")"
				errs=$((errs + $(fails_of "$n")))
			else
				row+="	-"
			fi
		done
		row+="	$errs	$(($(ixt_pool_field lines) - $(ixt_pool_field free)))"
		row+="	$(ixt_pool_field exhausted)	$(target_sessions)"
		row+="	$(grep -lx LOGGED_IN /sys/class/iscsi_session/session*/state 2>/dev/null | wc -l)"
		owned=-
		if [ $((SECONDS - last)) -ge $((cost * 10)) ]; then
			t0=$SECONDS
			owned=$(owned_total sample) || owned=-
			cost=$((SECONDS - t0))
			last=$SECONDS
		fi
		row+="	$owned	$(mem_avail)"
		echo "$row" >>"$results/soak.tsv"
		sleep $period
	done
}

# pick ARRAY-NAME: a random element in $picked, drawn from the seeded
# generator (in this shell: a subshell's is seeded anew).
picked=
pick() {
	local -n a=$1

	picked=${a[RANDOM % ${#a[@]}]}
}

# The TCP sessions among the verified ones.
tcp_live() {
	local n

	for n in "${live[@]}"; do
		[ "${transport[$n]}" = tcp ] && echo "$n"
	done
}

# The target's sessions (debugfs); whether there are N at most.
target_sessions() { echo $(($(wc -l <"$dbg/sessions") - 1)); }
sessions_at_most() { [ "$(target_sessions)" -le "$1" ]; }

# --- the faults: each says what it did and returns whether all went as
# it should, every session logged in again.

fault_conn_cut() {
	local side acc killed ports

	acc=$(accepts_total)
	mapfile -t ports < <(ss -tnH state established '( dport = :3260 )' |
		awk '{ n = split($3, a, ":"); print a[n] }')
	[ ${#ports[@]} -gt 0 ] || { say "conn_cut: no TCP connection"; return 1; }
	pick ports
	if [ $((RANDOM % 2)) -eq 0 ]; then
		side=initiator
		killed=$(ss -K -tnH state established "( dport = :3260 and sport = :$picked )")
	else
		side=target
		killed=$(ss -K -tnH state established "( sport = :3260 and dport = :$picked )")
	fi
	say "conn_cut: the $side's socket of the connection from port $picked cut"
	[ -n "$killed" ] || { say "conn_cut: ss -K killed no socket"; return 1; }
	relogged "$acc" 120
}

fault_netem() {
	local ok=0

	ixt_netem delay 2ms 1ms loss 1% duplicate 1% reorder 10% || return 1
	say "netem: 1% loss, 2 +- 1 ms, 10% reordered, 1% duplicated for 20 s"
	sleep 20
	say "netem: $(ixt_netem_stat pkt) packets, $(ixt_netem_stat dropped) dropped"
	ixt_netem_off
	ixt_wait 120 all_logged_in || ok=1
	return $ok
}

fault_blackhole() {
	local acc n0 n1

	acc=$(accepts_total)
	n0=$(ixt_klog_count "no answer to NOP-In")
	ixt_netem loss 100% || return 1
	say "blackhole: every packet of port 3260 dropped for 15 s"
	sleep 15
	n1=$(ixt_klog_count "no answer to NOP-In")
	ixt_netem_off
	say "blackhole: over; the target's keepalive closed $((n1 - n0)) connection(s)"
	[ "$n1" -gt "$n0" ] && relogged "$acc" 120
}

fault_tpg_toggle() {
	local n t acc rc ok=0

	pick live
	n=$picked
	t=$(tgt "$n")
	acc=$(accepts "$t")
	ixt_timed_write 0 "$(tpg_of "$n")/enable"
	rc=$?
	say "tpg_toggle: $n's TPG disabled in $IXT_TOOK_MS ms"
	sleep 3
	echo 1 >"$(tpg_of "$n")/enable" || return 1
	ixt_disabled_in_time $rc ||
		{ say "tpg_toggle: the disable did not return within 5 s"; ok=1; }
	if ixt_wait 120 target_relogged "$t" "$acc"; then
		say "tpg_toggle: $n logged in again"
	else
		say "tpg_toggle: $n did not log in again within 120 s"
		ok=1
	fi
	return $ok
}

fault_login_storm() {
	local t acc out

	t=$(tgt storm)
	acc=$(accepts "$t")
	out=$(timeout 300 python3 "$ixt_libdir/ixt_raw.py" --target "$t" \
		--host "$IXT_ADDR4_T" --initiator "$storm_ini" \
		--chap storm-user:storm-secret-0123 --storm 20 login_storm 2>&1)
	say "login_storm: $(tail -n 1 <<<"$out"), $(($(accepts "$t") - acc)) accepted"
	grep -q "^ok login_storm: 20 CHAP logins" <<<"$out" &&
		[ "$(accepts "$t")" -eq $((acc + 20)) ]
}

raw_session() { awk -v i="$raw_ini" '$2 == i { f = 1 } END { exit !f }' "$dbg/sessions"; }

fault_raw_death() {
	local pid t0

	python3 "$ixt_libdir/ixt_raw.py" --target "$(tgt raw)" \
		--host "$IXT_ADDR4_T" --initiator "$raw_ini" \
		hang_mid_write >"$IXT_WORK/raw.log" 2>&1 &
	pid=$!
	if ! ixt_wait 90 grep -q '^hanging' "$IXT_WORK/raw.log"; then
		kill -KILL $pid 2>/dev/null
		wait $pid 2>/dev/null
		say "raw_death: the raw initiator never got half way: $(tail -n 3 "$IXT_WORK/raw.log" | tr '\n' ' ')"
		return 1
	fi
	kill -KILL $pid
	wait $pid 2>/dev/null
	t0=$SECONDS
	ixt_wait 15 eval '! raw_session' || { say "raw_death: its session is still there 15 s later"; return 1; }
	say "raw_death: killed mid-Data-Out; its session ended $((SECONDS - t0)) s later"
}

fault_targetcli() {
	local t tpg

	t=$(tgt cfg)
	tpg=$(tpg_of cfg)
	ixt_tcli_do 120 "/iscsi/$t/tpg1/luns create /backstores/ramdisk/cfg1 lun=1" \
		"/iscsi/$t/tpg1/acls create $cfg_ini" || return 1
	[ -d "$tpg/lun/lun_1" ] && [ -d "$tpg/acls/$cfg_ini/lun_1" ] ||
		{ say "targetcli: LUN 1 or the ACL did not appear"; return 1; }
	ixt_tcli_do 120 "/iscsi/$t/tpg1/acls delete $cfg_ini" \
		"/iscsi/$t/tpg1/luns delete lun=1" || return 1
	[ ! -e "$tpg/lun/lun_1" ] && [ ! -e "$tpg/acls/$cfg_ini" ] ||
		{ say "targetcli: LUN 1 or the ACL is still there"; return 1; }
	say "targetcli: LUN 1 and an ACL added and removed"
}

fault_backend_error() {
	local d=${disk[bad]}

	! ixt_sg_read "$d" $bad_lba &&
		ixt_check_condition "not ready" "logical unit communication failure" &&
		ixt_sg_write "$d" $((bad_lba - 8)) "$IXT_WORK/pattern" &&
		ixt_sg_read "$d" $((bad_lba - 8)) &&
		cmp -s "$IXT_WORK/read" "$IXT_WORK/pattern" || {
			say "backend_error: not as expected"
			return 1
		}
	say "backend_error: READ(10) of bad blocks got CHECK CONDITION, the blocks before them write and read"
}

fault_lun_reset() {
	local n out

	pick live
	n=$picked
	if ! out=$(timeout 120 sg_reset -d "${disk[$n]}" 2>&1); then
		say "lun_reset: sg_reset -d ${disk[$n]} ($n): $out"
		return 1
	fi
	say "lun_reset: ${disk[$n]} ($n) reset"
}

fault_iscsid_death() {
	local acc killed n_iser

	acc=$(accepts_total)
	n_iser=$((${#live[@]} - $(tcp_live | wc -l)))
	pkill -KILL -x iscsid
	killed=$(ss -K -tnH state established '( dport = :3260 )' | wc -l)
	say "iscsid_death: iscsid killed, $killed initiator socket(s) cut"
	if ! ixt_wait 30 sessions_at_most "$n_iser"; then
		say "iscsid_death: the target still has $(target_sessions) sessions 30 s later"
		ixt_iscsid_start
		return 1
	fi
	say "iscsid_death: the target ended the TCP sessions"
	sleep 2
	ixt_iscsid_start
	relogged "$acc" 120 || return 1
	say "iscsid_death: iscsid started again, every session recovered"
}

# strike KIND: one fault, counted in struck[KIND] and, when it did not
# go as it should, failed[KIND].
declare -A struck=() failed=()
strike() {
	local k=$1 t0=$SECONDS

	echo "$k" >"$IXT_WORK/fault_now"
	struck[$k]=$((${struck[$k]:-0} + 1))
	if ! "fault_$k" || ! ixt_wait 120 all_logged_in; then
		failed[$k]=$((${failed[$k]:-0} + 1))
		say "$k: FAILED"
	fi
	say "$k: done in $((SECONDS - t0)) s"
	echo - >"$IXT_WORK/fault_now"
}

# deal: the kinds of the deck in a random order, in $order.
order=()
deal() {
	local i j x

	order=("${dealt[@]}")
	for ((i = ${#order[@]} - 1; i > 0; i--)); do
		j=$((RANDOM % (i + 1)))
		x=${order[i]} order[i]=${order[j]} order[j]=$x
	done
}

iser=$(ixt_iser_missing)
ixt_begin $((1 + ${#names[@]} + ${#kinds[@]} + 7))
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
ixt_work || ktap_exit_fail_msg "no work directory"
results=${IXT_OUT:-$IXT_WORK}
: >"$results/faults.log"
head -c 4096 /dev/urandom >"$IXT_WORK/pattern"
RANDOM=$seed
ktap_print_msg "soak: $duration s, seed $seed (IXT_SOAK_SEED=$seed repeats the faults' order and gaps), gaps $gap_min-$gap_max s, faults: ${dealt[*]}"
if [ -z "$iser" ]; then
	ixt_target_load
	owners+=(iscsi_xt_iser)
	live=("${names[@]}")
else
	ktap_print_msg "soak: no iSER sessions: $iser"
	ixt_load
	live=(tcp-rd tcp-nb)
fi || ktap_exit_fail_msg "cannot load iscsi_xt"
# targetcli loads the target core's backends it knows (their
# registration is the core's allocation): before the mark, as the shell.
for m in target_core_file target_core_pscsi target_core_user; do
	modprobe -q $m
done
ixt_tcli_open "$IXT_WORK/tcli" || ktap_exit_fail_msg "no targetcli shell"
ixt_owned_mark "${owners[@]}"
res0=$(ixt_iser_res)
configure || ktap_exit_fail_msg "cannot configure the targets"
# The shell was started before the configuration (its start is not to
# count as the configuration's): it reads the tree again.
ixt_tcli_do 120 "/ refresh" || ktap_exit_fail_msg "targetcli does not refresh"

ok=0
for n in "${live[@]}"; do
	if [ "${transport[$n]}" = iser ]; then
		login "$n" iser || ok=1
	else
		login "$n" default || ok=1
	fi
done
login bad default || ok=1
for n in "${live[@]}" bad; do
	sess_targets+=("$(tgt "$n")")
done
ixt_check "${#live[@]} verified sessions and the bad LUN's logged in ($(for n in "${live[@]}"; do printf '%s %s, ' "$n" "${disk[$n]:-none}"; done)bad ${disk[bad]:-none})" \
	test $ok -eq 0
[ $ok -eq 0 ] || ktap_exit_fail_msg "not every session logged in"

for n in "${live[@]}"; do
	fio_loop "$n" &
	loop[$n]=$!
	# Each loop takes its seeds in its subshell: the next, other ones.
	ixt_fio_seed=$((ixt_fio_seed + 100000))
done
# Warm-up: each loop verified a run; then, the loops paused, the level
# the end is compared with.
ixt_wait 600 loops_verified ||
	ktap_print_msg "soak: a loop has not verified its first run within 600 s"
pause_loops || ktap_print_msg "soak: the loops did not pause"
sleep 2
warm_owned=$(owned_total warm)
warm_mem=$(mem_avail)
resume_loops
ktap_print_msg "soak: warm: ${warm_owned:-?} objects of ${owners[*]}, MemAvailable $warm_mem kB"
echo - >"$IXT_WORK/fault_now"
sample_loop &
sampler=$!

start=$SECONDS
end=$((start + duration))
while :; do
	gap=$((gap_min + RANDOM % (gap_max - gap_min + 1)))
	[ $((SECONDS + gap)) -lt "$end" ] || break
	sleep "$gap"
	[ ${#order[@]} -gt 0 ] || deal
	k=${order[0]}
	order=("${order[@]:1}")
	strike "$k"
done
[ "$SECONDS" -lt "$end" ] && sleep $((end - SECONDS))
say "faults over"

ixt_wait 120 all_logged_in || ktap_print_msg "soak: not every session is logged in"
pause_loops || ktap_print_msg "soak: the loops did not pause"
sleep 2
end_owned=$(owned_total end)
end_mem=$(mem_avail)
touch "$IXT_WORK/stop"
resume_loops
for n in "${live[@]}"; do
	wait "${loop[$n]}"
done
touch "$IXT_WORK/stop_sampler"
kill "$sampler" 2>/dev/null
wait "$sampler" 2>/dev/null
sampler=

verified=
for n in "${names[@]}"; do
	if [ -z "${loop[$n]:-}" ]; then
		ktap_test_skip "fio on $n: $iser"
		continue
	fi
	verified+="$n $(runs_of "$n"), "
	ixt_check "fio on $n (${disk[$n]}) verified every run: $(runs_of "$n") runs, $(fails_of "$n") failed" \
		test "$(fails_of "$n")" -eq 0 -a "$(runs_of "$n")" -gt 0
	[ "$(fails_of "$n")" -eq 0 ] || ixt_show_tail "$IXT_WORK/$n.log"
done
faults=
for k in "${kinds[@]}"; do
	if [ "${struck[$k]:-0}" -eq 0 ]; then
		ktap_test_skip "$k: did not strike in this run"
		continue
	fi
	faults+="$k ${struck[$k]}, "
	ixt_check "$k: struck ${struck[$k]} times, recovered every time" \
		test "${failed[$k]:-0}" -eq 0
done

# no_io_error: no I/O error reached a verified disk (the kernel log).
no_io_error() {
	local n bad=

	for n in "${live[@]}"; do
		bad+=$(ixt_klog_since_mark | grep -E "(I/O error|critical medium error).*dev ${disk[$n]#/dev/}\b" | head -n 3)
	done
	[ -z "$bad" ] && return 0
	ktap_print_msg "klog: $bad"
	return 1
}
ixt_check "no I/O error reached the verified disks" no_io_error
grown=$(ixt_owned_growth "$IXT_WORK/owned.warm" "$IXT_WORK/owned.end" $owned_bound)
rc=$?
ktap_print_msg "soak: objects of ${owners[*]}: ${warm_owned:-?} after warm-up, ${end_owned:-?} after the faults"
[ -n "$grown" ] && ktap_print_msg "allocation sites that grew: $(tr '\n' ' ' <<<"$grown")"
ixt_check "memory flat: the modules' objects after the faults within $owned_bound of warm-up's (${warm_owned:-?} -> ${end_owned:-?})" \
	test $rc -eq 0 -a -n "$warm_owned" -a -n "$end_owned"
ixt_check "memory flat: MemAvailable within $mem_bound_mib MiB of warm-up's ($((warm_mem / 1024)) -> $((end_mem / 1024)) MiB)" \
	test $((warm_mem - end_mem)) -lt $((mem_bound_mib * 1024))

timeout -k 5 60 iscsiadm -m session -u >/dev/null 2>&1
iscsiadm -m node -o delete >/dev/null 2>&1
ixt_check "every cache line is back in the pool after logout" ixt_pool_all_free
ixt_tcli_close
ixt_cfs_clear
for n in "$nullb"/ixt_soak_*; do
	echo 0 >"$n/power" && rmdir "$n"
done
rmmod null_blk 2>/dev/null
ixt_owned_check "after logout and the configuration cleared" "${owners[@]}"
if [ -n "$iser" ]; then
	ktap_test_skip "the iSER transport's RDMA resources back: $iser"
else
	ixt_check "the iSER transport's RDMA resources back ($(ixt_iser_res))" \
		test "$(ixt_iser_res)" = "$res0"
fi
ixt_check "the target unloads" ixt_target_unload

total=0 nfailed=0
for k in "${kinds[@]}"; do
	total=$((total + ${struck[$k]:-0}))
	nfailed=$((nfailed + ${failed[$k]:-0}))
done
summary="Soak of $duration s (seed $seed): fio verified ${verified%, } runs"
summary+=" with $(cat "$IXT_WORK"/*.fails 2>/dev/null | awk '{ n += $1 } END { print n + 0 }') failed;"
summary+=" $total faults struck (${faults%, }), $nfailed of them without the recovery they should have had;"
summary+=" objects of ${owners[*]} ${warm_owned:-?} after warm-up, ${end_owned:-?} after the faults;"
summary+=" MemAvailable $((warm_mem / 1024)) MiB after warm-up, $((end_mem / 1024)) MiB after the faults;"
summary+=" $(ixt_klog_since_mark | grep -cE "$ixt_klog_bad") bad kernel log lines;"
summary+=" samples in $results/soak.tsv, faults in $results/faults.log."
ktap_print_msg "$summary"
echo "$summary" >"$results/summary.txt"
ixt_finish
