#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TCP portals: a portal listens as soon as its np directory exists (IPv4,
# IPv6, wildcard, an address no interface has yet), TPGs sharing an
# address share one listener that lives until the last of them goes,
# connections beyond max_login_conns are closed at once, a silent
# connection is dropped after the login timeout, and the module unloads
# with a connection still open.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_module
ixt_require_cmd ss /usr/bin/python3
ixt_loaded && ixt_skip_all "iscsi_xt is already loaded"
[ -d /sys/module/iscsi_target_mod ] && ixt_skip_all "iscsi_target_mod is loaded"
[ -n "${IXT_ADDR4_T:-}" ] || ixt_skip_all "needs the VM test network (guest-env.sh)"

t1=$IXT_FABRIC/iqn.2026-11.org.example:portal1
t2=$IXT_FABRIC/iqn.2026-11.org.example:portal2

listening() {
	ss -Hltn "sport = :$2" | awk '{ print $4 }' | grep -qxF "$1:$2"
}

nr_listening() {
	ss -Hltn "sport = :$1" | wc -l
}

# open_conns ADDR PORT N SECONDS: open N connections, then report how many
# the target closed within SECONDS, and how many are still open.
open_conns() {
	/usr/bin/python3 - "$@" <<'PY'
import socket, sys, time
addr, port, n, secs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
socks = [socket.create_connection((addr, port)) for _ in range(n)]
deadline = time.time() + secs
closed = set()
while time.time() < deadline and len(closed) < n:
    for i, s in enumerate(socks):
        if i in closed:
            continue
        s.settimeout(0.05)
        try:
            if s.recv(1) == b"":
                closed.add(i)
        except socket.timeout:
            pass
        except OSError:
            closed.add(i)
print(len(closed), n - len(closed))
PY
}

ixt_begin 12
ixt_load max_login_conns=4 || ktap_exit_fail_msg "cannot load iscsi_xt"
mkdir -p "$t1/tpgt_1/np" "$t2/tpgt_1/np" "$t2/tpgt_2/np"

mkdir "$t1/tpgt_1/np/$IXT_ADDR4_T:3260"
ixt_check "an IPv4 portal listens as soon as it exists" listening "$IXT_ADDR4_T" 3260
mkdir "$t2/tpgt_1/np/$IXT_ADDR4_T:3260"
ixt_check "two TPGs with one address share one listener" [ "$(nr_listening 3260)" -eq 1 ]
rmdir "$t1/tpgt_1/np/$IXT_ADDR4_T:3260"
ixt_check "the listener stays while a TPG still uses it" listening "$IXT_ADDR4_T" 3260
rmdir "$t2/tpgt_1/np/$IXT_ADDR4_T:3260"
ixt_check "the listener goes with the last TPG using it" [ "$(nr_listening 3260)" -eq 0 ]

mkdir "$t1/tpgt_1/np/[$IXT_ADDR6_T]:3260"
ixt_check "an IPv6 portal listens" listening "[$IXT_ADDR6_T]" 3260
mkdir "$t1/tpgt_1/np/0.0.0.0:3261" "$t2/tpgt_2/np/[::]:3261"
ixt_check "wildcard 0.0.0.0 and [::] listen side by side" \
	eval 'listening 0.0.0.0 3261 && listening "[::]" 3261'
# As LIO's (IP_FREEBIND): a floating address, or the other node's in a
# two-node ALUA layout, comes later or never to this host.
ixt_check "a portal on an address no interface has listens, as LIO's" \
	eval 'mkdir "$t1/tpgt_1/np/198.51.100.7:3260" &&
	      listening 198.51.100.7 3260 &&
	      rmdir "$t1/tpgt_1/np/198.51.100.7:3260"'

read -r closed open < <(open_conns "$IXT_ADDR4_T" 3261 10 3)
ixt_check "only max_login_conns=4 connections wait in login ($closed closed, $open open)" \
	eval '[ "$closed" -eq 6 ] && [ "$open" -eq 4 ]'

read -r closed open < <(open_conns "$IXT_ADDR6_T" 3260 1 25)
ixt_check "a connection that sends nothing is dropped by the login timeout" \
	[ "$closed" -eq 1 ]

# A connection stays open while the configuration goes and the module
# unloads: the unload must close it, without hanging.
exec {fd}<>/dev/tcp/"$IXT_ADDR4_T"/3261
rmdir "$t1/tpgt_1/np/[$IXT_ADDR6_T]:3260" "$t1/tpgt_1/np/0.0.0.0:3261" \
	"$t2/tpgt_2/np/[::]:3261"
ixt_check "no listener is left" [ "$(nr_listening 3261)" -eq 0 ]
rmdir "$t1/tpgt_1" "$t2/tpgt_1" "$t2/tpgt_2" "$t1" "$t2"
ixt_unload
ixt_check "iscsi_xt unloads with a connection open" [ ! -d /sys/module/iscsi_xt ]
ixt_check "the open connection was closed" eval 'timeout 3 cat <&"$fd" >/dev/null'
exec {fd}>&-
ixt_finish
