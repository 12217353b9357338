# SPDX-License-Identifier: GPL-2.0
"""What an unauthenticated host can make a target hold, read or log.

A raw initiator over TCP (the client of ixt_iscsi.py) for tcp_hostile.sh:

    ixt_hostile.py --target IQN [--host ADDR] [--conns N] CASE...

runs the named cases (see --list) and prints one line per case; the exit
status is 0 when the target kept every bound.

pin_vendor, pin_login_cmd: --conns connections, each a BHS announcing a
data segment of 0xffffff bytes and then a few bytes of it, held open: a
vendor-specific opcode (0x1c) and a SCSI Command, both refused in the
login phase. The vmalloc areas of iscsi_xt (/proc/vmallocinfo) may grow
by less than PIN_VMALLOC_BOUND a connection and MemAvailable
(/proc/meminfo) drop by less than PIN_AVAIL_BOUND a connection; the
target must not buffer a data segment over the login phase's
MaxRecvDataSegmentLength (8192), let alone 16 MiB of one.

varlen_cdb_no_ahs, varlen_cdb_short_ahs: a variable-length CDB (opcode
0x7f) whose ADDITIONAL CDB LENGTH (byte 7) is 252, a 260-byte CDB, with no
Extended CDB AHS and with one of 4 bytes: CHECK CONDITION, ILLEGAL
REQUEST, INVALID FIELD IN CDB (24h/00h), and the session goes on.

discovery_cap: DISCOVERY_MAX discovery sessions held open at once; one
more is refused at its login with status 0x0302 (out of resources), and
once one of them has logged out a new one gets in.

login_unread: --conns connections with a small receive buffer that read
nothing, each sending UNREAD_REQUESTS Login Requests (T=0) of
UNREAD_KEYS unknown keys, each answered with a NotUnderstood per key
(8 KiB),
then a NOP-Out, which fails the login. The target reads no Login Request
while a Login Response is queued, so MemAvailable drops by less than
UNREAD_AVAIL_BOUND a connection meanwhile; and within LOGIN_TIMEOUT +
UNREAD_MARGIN seconds every one is reset and a new discovery session
gets in (a failed login whose response never goes out used to hold its
place in the bound on logins for ever).

discovery_idle: DISCOVERY_MAX discovery sessions that send nothing once
logged in are each closed by the target within DISCOVERY_IDLE +
DISCOVERY_MARGIN seconds of the last login, and then a new one gets in
(they used to hold the bound on discovery sessions for as long as they
stayed); the target declared a MaxRecvDataSegmentLength of 8192 at most
to each, though they declared theirs first (LIO's quirk made it 262144).

logout_unread: a normal session (demo mode) with a small receive buffer
sends LOGOUT_PINGS immediate NOP-Outs of PING_LEN bytes without reading
their echoes, then a Logout: the target's socket of the connection is
gone (but for an orphan closing, or TIME-WAIT) within LOGOUT_WAIT +
LAST_PDU_SECS + LOGOUT_MARGIN seconds; the Logout Response, queued
behind the echoes, never goes out, and the connection used to stay, its
echoes with it, for ever.

name_newline: an InitiatorName, then a TargetName, holding a newline and
a forged log line: the login is refused with 0x0200 (initiator error),
and no kernel log line holds the forged text (names were logged, and
the InitiatorName kept in last_fail_name, before they were checked).

login_fair: from one host (the first of --sources), --conns idle
connections, every place of the bound on connections in login; another
connection of that host is closed at accept, while a discovery login
from a second host (the second of --sources) gets in: the first host's
oldest connection gives its place up and is reset (one host used to keep
every other out of login for as long as it reconnected).

discovery_fair: from the first host, DISCOVERY_MAX discovery sessions,
every place of the bound on them; a discovery login from the second
host gets in, and the first host's oldest session is reset.

lun_flood: 300 TEST UNIT READYs on LUN 7, which the session does not
map: each answered CHECK CONDITION, LOGICAL UNIT NOT SUPPORTED, and no
message of the kernel log more often than printk_ratelimited() lets a
call site log (the target core logged each such command, unlimited).

chap_relay: on --chap-target (TPG credentials --chap, USER:SECRET:
MUSER:MSECRET, mutual), one login gets the target's challenge and waits;
a second login answers its own challenge with the right secret and asks
mutual CHAP with the first's challenge as its CHAP_C: refused with
0x0201, no CHAP_R (the target answered it, which relays the target's
answer to the first login wherever the mutual secret is another
initiator's secret). A login with a challenge of its own gets the right
CHAP_R.

chap_fail_delay: a wrong CHAP_R is answered 0x0201 CHAP_FAIL_DELAY
seconds later at the soonest, the connection closed after; the right
one logs in (online guessing of a secret was one round trip a guess).

flood: --conns connections, --parallel at a time, in turn a login to an
unknown target, a discovery session (SendTargets=All, Logout), a login
to the TPG cut off in the middle, a normal session (demo mode) cut off
without a Logout, and a vendor opcode with a data segment in the login
phase. Every one must get its answer, and no message of the kernel log
(/dev/kmsg, names and numbers masked: about one a call site) may come
more often than printk_ratelimited() lets a call site log: 10 lines in
5 s, so at most 30 in any 10 s.
"""

import hashlib
import os
import re
import socket
import subprocess
import sys
import threading
import time

from ixt_iscsi import (
    F_FINAL, FFP, LOGIN_T, OP_LOGIN_RSP, OP_SCSI_RSP, OP_TMF_RSP, OP_VENDOR1,
    OPER, SEC, Cases, Connection, Fail, bhs, cdb10, encode_keys, expect,
    kmsg_mark, kmsg_since, login_flags, login_req, logout_req, nop_out,
    scsi_cmd, tmf_req)

# What a connection of pin_* may add: vmalloc areas of iscsi_xt, and
# kernel memory of any kind as MemAvailable sees it (a socket pair, the
# login state and its 16 KiB response buffer, well under it).
PIN_VMALLOC_BOUND = 64 << 10
PIN_AVAIL_BOUND = 256 << 10
PIN_DLENGTH = 0xffffff
PIN_SENT = 16           # bytes of the data segment sent
VARLEN_CDB_LEN = 260    # 8 + 252
DISCOVERY_MAX = 64      # session.c: IXT_MAX_DISCOVERY_SESSIONS
LOGIN_TIMEOUT = 15      # the TPG's login_timeout, the one of discovery
DISCOVERY_IDLE = 30     # conn.c: IXT_DISCOVERY_IDLE_SECS
SLOW = int(os.environ.get('IXT_SLOW', '1'))
# login_unread: a connection's requests (about 130 KiB) fit in its socket
# buffers and the target's; the responses to them (UNREAD_KEYS unknown
# keys of UNREAD_KEY_LEN characters, NotUnderstood each: 7800 bytes, one
# PDU) do not. Few enough requests that the target reads them all well
# within the login timeout under TCG, as it did before the fix. The MSS
# of a network (UNREAD_MSS), not lo's 64 KiB: the target's send buffer
# would grow to 4 MiB, and take every response. The bound: a queued
# response, the requests not read and the socket buffers of both ends.
UNREAD_REQUESTS = 20
UNREAD_KEYS = 120
UNREAD_KEY_LEN = 50
UNREAD_RCVBUF = 4096
UNREAD_MSS = 1400
UNREAD_AVAIL_BOUND = 384 << 10
UNREAD_MARGIN = 15 * SLOW
# logout_unread: 800 KiB of echoes, under the send queue's 1 MiB.
LOGOUT_PINGS = 100
PING_LEN = 8192
LOGOUT_WAIT = 5         # session.c: IXT_REINSTATE_WAIT_SECS
LAST_PDU_SECS = 10      # conn.c: IXT_CONN_LAST_PDU_SECS
LOGOUT_MARGIN = 10 * SLOW
DISCOVERY_MARGIN = 10 * SLOW

CASES = Cases()
case = CASES.case


def vmalloc_of(module):
    """Bytes of the vmalloc areas whose caller is in @module."""
    total = 0
    with open('/proc/vmallocinfo') as f:
        for line in f:
            if f'[{module}]' not in line:
                continue
            for word in line.split():
                if word.startswith('pages='):
                    total += int(word[6:]) * 4096
    return total


def mem_available():
    with open('/proc/meminfo') as f:
        for line in f:
            if line.startswith('MemAvailable:'):
                return int(line.split()[1]) << 10
    raise OSError('no MemAvailable in /proc/meminfo')


def still_open(sock):
    """Whether the target has not closed @sock (nor sent anything)."""
    sock.setblocking(False)
    try:
        return sock.recv(1, socket.MSG_PEEK) != b''
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        sock.setblocking(True)


def pin(ctx, hdr, what):
    """@ctx.conns connections, each sending @hdr announcing PIN_DLENGTH
    bytes and PIN_SENT of them, measured a few seconds later."""
    vm0, avail0 = vmalloc_of('iscsi_xt'), mem_available()
    socks = []
    try:
        for _ in range(ctx.conns):
            s = socket.create_connection((ctx.host, ctx.port), timeout=10)
            h = bytearray(hdr)
            h[5:8] = PIN_DLENGTH.to_bytes(3, 'big')
            s.sendall(bytes(h) + bytes(PIN_SENT))
            socks.append(s)
        # Let the target's receive work see every one (TCG is slow).
        time.sleep(ctx.settle)
        vm1, avail1 = vmalloc_of('iscsi_xt'), mem_available()
        held = sum(still_open(s) for s in socks)
    finally:
        for s in socks:
            s.close()
        # The next case needs the slots of the bound on logins back.
        end = time.monotonic() + 15
        while (vmalloc_of('iscsi_xt') > vm0 + PIN_VMALLOC_BOUND and
               time.monotonic() < end):
            time.sleep(0.5)
        time.sleep(1)
    grew, dropped = vm1 - vm0, avail0 - avail1
    seen = (f'{what}: {ctx.conns} connections, {held} still open; '
            f'iscsi_xt vmalloc {grew >> 10:+d} KiB, MemAvailable '
            f'{-dropped >> 10:+d} KiB')
    expect(grew < ctx.conns * PIN_VMALLOC_BOUND,
           f'{seen}: vmalloc over {ctx.conns} x {PIN_VMALLOC_BOUND >> 10} KiB')
    expect(dropped < ctx.conns * PIN_AVAIL_BOUND,
           f'{seen}: MemAvailable dropped over {ctx.conns} x '
           f'{PIN_AVAIL_BOUND >> 10} KiB')
    return seen


@case
def case_pin_vendor(ctx):
    """A vendor-specific opcode (0x1c) announcing 16 MiB of data, in the
    login phase, on --conns connections: nothing like 16 MiB held each."""
    return pin(ctx, bhs(OP_VENDOR1 | 0x40, F_FINAL, itt=1), 'vendor opcode')


@case
def case_pin_login_cmd(ctx):
    """A SCSI Command announcing 16 MiB of immediate data, in the login
    phase, on --conns connections: nothing like 16 MiB held each."""
    return pin(ctx, scsi_cmd(F_FINAL | 0x20, 1, PIN_DLENGTH, 1, 0,
                             cdb10(0x2a, 0, 1)), 'SCSI Command in login')


def logged_in(ctx):
    conn = Connection(ctx.host, ctx.port, initiator=ctx.initiator)
    conn.login(ctx.target)
    return conn


def varlen_cdb(ctx, ecdb_len):
    """A 0x7f CDB of VARLEN_CDB_LEN bytes by its byte 7, of which only
    16 + @ecdb_len reach the target: the SCSI Response must be CHECK
    CONDITION, INVALID FIELD IN CDB; then a NOP and a READ(10) still go."""
    conn = logged_in(ctx)
    cdb = bytearray(VARLEN_CDB_LEN)
    cdb[0], cdb[7] = 0x7f, VARLEN_CDB_LEN - 8
    hdr = bytearray(scsi_cmd(F_FINAL, conn.next_itt(), 0, conn.take_cmdsn(),
                             conn.expstatsn, bytes(cdb[:16])))
    itt = int.from_bytes(hdr[16:20], 'big')
    ahs = b''
    if ecdb_len:
        ahs = (ecdb_len + 1).to_bytes(2, 'big') + b'\x01\x00' + \
            bytes(cdb[16:16 + ecdb_len])
        ahs += bytes(-len(ahs) % 4)
        hdr[4] = len(ahs) // 4
    for _ in range(3):
        conn.send_pdu(bytes(hdr) + ahs)
        rsp = conn.recv_expect(OP_SCSI_RSP, itt)
        sense = rsp.sense
        # A unit attention first (the LUN is new to the initiator).
        if not (rsp.scsi_status == 0x02 and sense[2:3] == b'\x06'):
            break
        itt = conn.next_itt()
        hdr[16:20] = itt.to_bytes(4, 'big')
        hdr[24:28] = conn.take_cmdsn().to_bytes(4, 'big')
        hdr[28:32] = conn.expstatsn.to_bytes(4, 'big')
    seen = (f'status 0x{rsp.scsi_status:02x}, sense key '
            f'0x{sense[2] & 0xf if len(sense) > 2 else 0:x}, ASC/ASCQ '
            f'{sense[12:14].hex() if len(sense) > 13 else "none"}')
    expect(rsp.scsi_status == 0x02 and len(sense) > 13 and
           sense[2] & 0xf == 0x05 and sense[12:14] == b'\x24\x00',
           f'{seen}, expected CHECK CONDITION, ILLEGAL REQUEST, 2400')
    conn.nop()
    status, _ = conn.read(0, 1)
    expect(status == 0, f'the READ after it: status 0x{status:02x}')
    conn.logout()
    return f'{seen}; the session goes on'


@case
def case_varlen_cdb_no_ahs(ctx):
    """A 260-byte variable-length CDB (0x7f, byte 7 = 252) with no
    Extended CDB AHS: refused with INVALID FIELD IN CDB, session goes on."""
    return varlen_cdb(ctx, 0)


@case
def case_varlen_cdb_short_ahs(ctx):
    """The same CDB with an Extended CDB AHS of only 4 more bytes: refused
    with INVALID FIELD IN CDB, the session goes on."""
    return varlen_cdb(ctx, 4)


def login_rsp(conn):
    rsp = conn.recv_pdu()
    expect(rsp is not None and rsp.op == OP_LOGIN_RSP, f'login: {rsp}')
    return rsp


def flood_unknown_target(ctx, conn):
    keys = conn.leading_keys(ctx.target + '.nonexistent')
    rsp = conn.login_pdu(login_flags(SEC, OPER, transit=True), keys)
    expect(rsp is not None and rsp.op == OP_LOGIN_RSP and
           rsp.status == 0x0203, f'unknown target: {rsp}')
    conn.expect_closed()


def flood_discovery(ctx, conn):
    keys = [('InitiatorName', conn.initiator), ('SessionType', 'Discovery'),
            ('AuthMethod', 'None')]
    rsp = conn.login_pdu(login_flags(SEC, OPER, transit=True), keys)
    expect(rsp is not None and rsp.op == OP_LOGIN_RSP and rsp.status == 0,
           f'discovery login: {rsp}')
    conn.login_operational([('HeaderDigest', 'None'),
                            ('DataDigest', 'None'),
                            ('MaxRecvDataSegmentLength', '8192')])
    keys, _ = conn.text([('SendTargets', 'All')])
    expect(('TargetName', ctx.target) in keys, f'SendTargets: {keys}')
    conn.logout()


def discovery_login(ctx, conn, got=None):
    """The Login Response's status of a discovery login of @conn, which
    is in full feature phase when that is 0; the keys of the operational
    stage's responses are added to the list @got."""
    keys = [('InitiatorName', conn.initiator), ('SessionType', 'Discovery'),
            ('AuthMethod', 'None')]
    rsp = conn.login_pdu(login_flags(SEC, OPER, transit=True), keys)
    expect(rsp is not None and rsp.op == OP_LOGIN_RSP,
           f'discovery login: {rsp}')
    if rsp.status:
        return rsp.status
    keys = [('HeaderDigest', 'None'), ('DataDigest', 'None'),
            ('MaxRecvDataSegmentLength', '8192')]
    for _ in range(4):
        rsp = conn.login_pdu(login_flags(OPER, FFP, transit=True), keys)
        expect(rsp is not None and rsp.op == OP_LOGIN_RSP,
               f'discovery login, operational stage: {rsp}')
        if got is not None:
            got += rsp.keys
        if rsp.status or (rsp.flags & LOGIN_T and rsp.flags & 3 == FFP):
            return rsp.status
        # Offers of the target: take their first values.
        keys = [(k, v.split(',')[0]) for k, v in rsp.keys]
    raise Fail(f'discovery login, operational stage did not end: {rsp}')


@case
def case_discovery_cap(ctx):
    """DISCOVERY_MAX discovery sessions open at once, then one more:
    refused with 0x0302; after one logs out, another gets in."""
    conns = []
    try:
        for i in range(DISCOVERY_MAX + 1):
            conn = Connection(ctx.host, ctx.port, initiator=ctx.initiator)
            conn.isid = 0x800000000000 | i
            conns.append(conn)
            status = discovery_login(ctx, conn)
            if i < DISCOVERY_MAX:
                expect(status == 0, f'discovery session {i + 1}: status '
                       f'0x{status:04x}')
        expect(status == 0x0302, f'discovery session {DISCOVERY_MAX + 1}: '
               f'status 0x{status:04x}, expected 0x0302')
        conns.pop().close()
        conns[0].logout()
        conns.pop(0).close()
        conn = Connection(ctx.host, ctx.port, initiator=ctx.initiator)
        conns.append(conn)
        # The logged-out session ends in the target's release work.
        for _ in range(20):
            status = discovery_login(ctx, conn)
            if status != 0x0302:
                break
            conn.close()
            time.sleep(0.5)
            conn = conns[-1] = Connection(ctx.host, ctx.port,
                                          initiator=ctx.initiator)
        expect(status == 0, f'a discovery login after a logout: status '
               f'0x{status:04x}')
        keys, _ = conn.text([('SendTargets', 'All')])
        expect(('TargetName', ctx.target) in keys, f'SendTargets: {keys}')
    finally:
        for conn in conns:
            conn.close()
    return (f'{DISCOVERY_MAX} discovery sessions held, the next refused '
            f'with 0x0302, one more in after a logout')


def closed_within(sock, secs):
    """Whether the target closes (or resets) @sock within @secs."""
    end = time.monotonic() + secs
    while time.monotonic() < end:
        if not still_open(sock):
            return True
        time.sleep(0.2)
    return False


def sources(ctx):
    first, second = ctx.sources.split(',')
    return first, second


def discovery_from(ctx, source):
    """flood_discovery() from @source: what went wrong, or None."""
    try:
        conn = Connection(ctx.host, ctx.port, initiator=ctx.initiator,
                          source=source)
        try:
            flood_discovery(ctx, conn)
        finally:
            conn.close()
    except (Fail, OSError) as e:
        return f'{type(e).__name__}: {e}'
    return None


@case
def case_login_fair(ctx):
    """One host holds every place in login; another host still logs in."""
    greedy, other = sources(ctx)
    socks = []
    kmsg = kmsg_mark()
    try:
        for _ in range(ctx.conns):
            socks.append(socket.create_connection(
                (ctx.host, ctx.port), timeout=10,
                source_address=(greedy, 0)))
        time.sleep(ctx.settle)
        held = sum(still_open(s) for s in socks)
        expect(held == ctx.conns, f'{held} of {ctx.conns} idle connections '
               f'from {greedy} open before the test, expected all')
        extra = socket.create_connection((ctx.host, ctx.port), timeout=10,
                                         source_address=(greedy, 0))
        socks.append(extra)
        expect(closed_within(extra, 5 * SLOW),
               f'connection {ctx.conns + 1} from {greedy}: not closed at '
               f'accept with every place in login its host\'s')
        err = discovery_from(ctx, other)
        expect(err is None, f'discovery login from {other} while {greedy} '
               f'holds the {ctx.conns} places in login: {err}')
        expect(closed_within(socks[0], 5 * SLOW),
               f'the oldest connection of {greedy} was not reset')
        held = sum(still_open(s) for s in socks[1:ctx.conns])
        expect(held == ctx.conns - 1, f'{held} of the other '
               f'{ctx.conns - 1} connections of {greedy} open, expected '
               f'all: only one place was needed')
    finally:
        for s in socks:
            s.close()
        lines = [m for _, m in kmsg_since(kmsg) if 'login reset' in m]
        # The next case needs the places back.
        time.sleep(1)
    expect(any(f'has {ctx.conns} of the {ctx.conns}' in m for m in lines),
           f'no "login reset" line naming {ctx.conns} of {ctx.conns}: '
           f'{lines}')
    return (f'{ctx.conns} connections in login from {greedy}, the next '
            f'closed; a discovery session from {other} in, the oldest of '
            f'{greedy} reset: "{lines[0]}"')


@case
def case_discovery_fair(ctx):
    """One host holds every discovery session; another host gets one."""
    greedy, other = sources(ctx)
    conns = []
    try:
        for i in range(DISCOVERY_MAX):
            conn = Connection(ctx.host, ctx.port, initiator=ctx.initiator,
                              source=greedy)
            conn.isid = 0x800000000000 | i
            conns.append(conn)
            status = discovery_login(ctx, conn)
            expect(status == 0, f'discovery session {i + 1} from {greedy}: '
                   f'status 0x{status:04x}')
        err = discovery_from(ctx, other)
        expect(err is None, f'discovery login from {other} while {greedy} '
               f'holds the {DISCOVERY_MAX} discovery sessions: {err}')
        expect(closed_within(conns[0].sock, 5 * SLOW),
               f'the oldest discovery session of {greedy} was not reset')
        held = sum(still_open(c.sock) for c in conns[1:])
        expect(held == DISCOVERY_MAX - 1, f'{held} of the other '
               f'{DISCOVERY_MAX - 1} discovery sessions of {greedy} open, '
               f'expected all')
    finally:
        for conn in conns:
            conn.close()
    return (f'{DISCOVERY_MAX} discovery sessions from {greedy}; one from '
            f'{other} in, the oldest of {greedy} reset')


def unread_conn(ctx):
    """A socket to the target with a small receive buffer, never read, a
    send buffer for all it sends, and the MSS of a network."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, UNREAD_RCVBUF)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, UNREAD_MSS)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
    s.settimeout(10)
    s.connect((ctx.host, ctx.port))
    return s


def unread_requests(ctx, isid):
    """UNREAD_REQUESTS Login Requests of the security stage without T,
    each of UNREAD_KEYS unknown keys, then a NOP-Out that fails the
    login, all as one stream of bytes."""
    unknown = [(f'X{i:03d}'.ljust(UNREAD_KEY_LEN, 'x'), '')
               for i in range(UNREAD_KEYS)]
    out = b''
    for i in range(UNREAD_REQUESTS):
        keys = unknown if i else [('InitiatorName', ctx.initiator),
                                  ('SessionType', 'Discovery')] + unknown[2:]
        data = encode_keys(keys)
        h = bytearray(login_req(login_flags(SEC), isid, 1, 1, 0))
        h[5:8] = len(data).to_bytes(3, 'big')
        out += bytes(h) + data + bytes(-len(data) % 4)
    return out + nop_out(0x10, 1, 0, imm=True)


@case
def case_login_unread(ctx):
    """--conns connections that never read, each sending UNREAD_REQUESTS
    Login Requests that are answered with 8 KiB each, then a PDU
    that fails the login: MemAvailable drops by less than
    UNREAD_AVAIL_BOUND a connection, and a discovery login gets in once
    the login timeout reset them."""
    out = unread_requests(ctx, 0x800000000000 | os.getpid() & 0xffffff)
    avail0 = mem_available()
    socks = []
    try:
        for _ in range(ctx.conns):
            s = unread_conn(ctx)
            socks.append(s)
            s.sendall(out)
        time.sleep(ctx.settle + 2)
        dropped = avail0 - mem_available()
        seen = (f'{ctx.conns} connections, MemAvailable '
                f'{-dropped >> 10:+d} KiB')
        t0 = time.monotonic()
        while True:
            conn = Connection(ctx.host, ctx.port, initiator=ctx.initiator)
            try:
                status = discovery_login(ctx, conn)
            except (Fail, OSError):
                status = None
            finally:
                conn.close()
            took = time.monotonic() - t0
            if status == 0:
                break
            expect(took < LOGIN_TIMEOUT + UNREAD_MARGIN,
                   f'{seen}; no discovery login {took:.0f} s later: '
                   f'{"refused" if status is None else hex(status)}')
            time.sleep(1)
        held = sum(still_open(s) for s in socks)
    finally:
        for s in socks:
            s.close()
    expect(dropped < ctx.conns * UNREAD_AVAIL_BOUND,
           f'{seen}: over {ctx.conns} x {UNREAD_AVAIL_BOUND >> 10} KiB')
    return (f'{seen}; a discovery login {took:.0f} s later, '
            f'{held} of them still open')


def target_sock_held(ctx, port):
    """The target's sockets of the connection from @port that are still
    its own: not TIME-WAIT, nor orphans (ino:0) the kernel finishes
    closing (the rule of tcp_faults.sh's target_sock_released)."""
    out = subprocess.run(
        ['ss', '-tnHe', 'state', 'connected', 'exclude', 'time-wait',
         f'( sport = :{ctx.port} and dport = :{port} )'],
        capture_output=True, text=True, check=True).stdout
    return [line for line in out.splitlines()
            if not re.search(r' ino:0( |$)', line)]


@case
def case_logout_unread(ctx):
    """A session that does not read the echoes of LOGOUT_PINGS NOP-Outs
    of PING_LEN bytes, then logs out: the target's socket of it is gone
    within LOGOUT_WAIT + LAST_PDU_SECS + LOGOUT_MARGIN seconds."""
    conn = Connection.__new__(Connection)
    conn.sock = unread_conn(ctx)
    conn.init_session(10.0, ctx.initiator)
    try:
        conn.login(ctx.target)
        port = conn.sock.getsockname()[1]
        expect(target_sock_held(ctx, port),
               f'ss shows no socket of the target from port {port}')
        out = b''
        for _ in range(LOGOUT_PINGS):
            out += conn.frame_pdu(nop_out(conn.next_itt(), conn.cmdsn,
                                          conn.expstatsn, imm=True),
                                  bytes(PING_LEN))[1]
        out += conn.frame_pdu(logout_req(conn.next_itt(), conn.cmdsn,
                                         conn.expstatsn))[1]
        conn.sock.sendall(out)
        t0 = time.monotonic()
        bound = LOGOUT_WAIT + LAST_PDU_SECS + LOGOUT_MARGIN
        first = target_sock_held(ctx, port)
        expect(first, 'the target closed the connection at once: its '
               'Logout Response went out')
        while True:
            held = target_sock_held(ctx, port)
            took = time.monotonic() - t0
            if not held:
                break
            expect(took < bound, f'{took:.0f} s after the Logout the '
                   f'target still holds its socket: {held[0]}')
            time.sleep(0.5)
    finally:
        conn.close()
    return (f'{LOGOUT_PINGS} echoes of {PING_LEN} bytes unread, the '
            f'target\'s socket gone {took:.0f} s after the Logout '
            f'(at first {" ".join(first[0].split()[:3])})')


@case
def case_discovery_idle(ctx):
    """DISCOVERY_MAX discovery sessions that send nothing once logged in
    (MaxRecvDataSegmentLength=8192 declared first): each is closed by the
    target within DISCOVERY_IDLE + DISCOVERY_MARGIN seconds, then a new
    one gets in; the target declared 8192 at most to each."""
    conns, mrdsl = [], set()
    try:
        for i in range(DISCOVERY_MAX):
            conn = Connection(ctx.host, ctx.port, initiator=ctx.initiator)
            conn.isid = 0x800000001000 | i
            conns.append(conn)
            got = []
            status = discovery_login(ctx, conn, got)
            expect(status == 0, f'discovery session {i + 1}: status '
                   f'0x{status:04x}')
            mrdsl |= {int(v) for k, v in got
                      if k == 'MaxRecvDataSegmentLength'}
        t0 = time.monotonic()
        for i, conn in enumerate(conns):
            left = DISCOVERY_IDLE + DISCOVERY_MARGIN - \
                (time.monotonic() - t0)
            try:
                conn.expect_closed(max(left, 1))
            except Fail as err:
                raise Fail(f'discovery session {i + 1}, '
                           f'{time.monotonic() - t0:.0f} s idle: '
                           f'{err}') from None
        took = time.monotonic() - t0
        conn = Connection(ctx.host, ctx.port, initiator=ctx.initiator)
        conns.append(conn)
        status = discovery_login(ctx, conn)
        expect(status == 0, f'a discovery login after them: status '
               f'0x{status:04x}')
        conn.logout()
    finally:
        for conn in conns:
            conn.close()
    expect(mrdsl and max(mrdsl) <= 8192,
           f'the target declared MaxRecvDataSegmentLength {sorted(mrdsl)}'
           f', expected 8192 at most')
    return (f'{DISCOVERY_MAX} idle discovery sessions closed within '
            f'{took:.0f} s of the last login, a new one let in; the '
            f'target\'s MaxRecvDataSegmentLength {sorted(mrdsl)}')


FORGED = 'iscsi_xt: FORGED: normal session TSIH 1 logged in'


@case
def case_name_newline(ctx):
    """An InitiatorName, then a TargetName, with a newline and a forged
    log line: refused with 0x0200, and the forged line never logged."""
    bad = f'iqn.2026-11.org.example:x\n{FORGED}'
    logins = ([('InitiatorName', bad), ('TargetName', ctx.target)],
              [('InitiatorName', ctx.initiator),
               ('TargetName', bad + '.none')])
    fd = kmsg_mark()
    seen = []
    for names in logins:
        conn = Connection(ctx.host, ctx.port, initiator=ctx.initiator)
        try:
            rsp = conn.login_pdu(login_flags(SEC, OPER, transit=True),
                                 names + [('SessionType', 'Normal'),
                                          ('AuthMethod', 'None')])
            expect(rsp is not None and rsp.op == OP_LOGIN_RSP,
                   f'login: {rsp}')
            seen.append(rsp.status)
        finally:
            conn.close()
    time.sleep(1)
    forged = [msg for _, msg in kmsg_since(fd) if 'FORGED' in msg]
    statuses = ', '.join(f'0x{st:04x}' for st in seen)
    expect(not forged, f'statuses {statuses}; logged: {forged[:1]}')
    expect(seen == [0x0200, 0x0200], f'statuses {statuses}, expected 0x0200')
    return 'both refused with 0x0200, nothing forged in the kernel log'


def flood_cut_login(ctx, conn):
    rsp = conn.login_pdu(login_flags(SEC), conn.leading_keys(ctx.target))
    expect(rsp is not None and rsp.op == OP_LOGIN_RSP and rsp.status == 0,
           f'login: {rsp}')
    conn.close()


def flood_cut_session(ctx, conn):
    conn.login(ctx.target)
    conn.close()


def flood_bad_pdu(ctx, conn):
    conn.send_pdu(bhs(OP_VENDOR1 | 0x40, F_FINAL, itt=1), bytes(PIN_SENT))
    rsp = conn.recv_pdu()
    expect(rsp is not None and rsp.op == OP_LOGIN_RSP and
           rsp.status == 0x0200, f'a vendor opcode in login: {rsp}')
    conn.expect_closed()


FLOOD = (flood_unknown_target, flood_discovery, flood_cut_login,
         flood_cut_session, flood_bad_pdu)

# printk_ratelimited(): at most LOG_BURST lines a call site in LOG_INTERVAL
# seconds, and one "callbacks suppressed" line when it let some go; so at
# most LOG_BURST * (W / LOG_INTERVAL + 1) lines of one message in any W
# seconds.
LOG_BURST, LOG_INTERVAL, LOG_WINDOW = 10, 5, 10


def template(msg):
    """@msg with every word holding a digit, a dot or a colon (names,
    addresses, numbers) as #: one template per call site, nearly."""
    return ' '.join('#' if re.search(r'[0-9.:]', w) else w
                    for w in msg.split())


def busiest(lines, window):
    """The template logged most often in any @window seconds, and how
    often."""
    times = {}
    for t, msg in lines:
        times.setdefault(template(msg), []).append(t)
    best, most = '', 0
    for tpl, ts in times.items():
        first = 0
        for last, t in enumerate(ts):
            while t - ts[first] > window:
                first += 1
            if last - first + 1 > most:
                best, most = tpl, last - first + 1
    return best, most, len(times)


def flood_worker(ctx, todo, errors):
    while True:
        try:
            i = todo.pop()
        except IndexError:
            return
        try:
            conn = Connection(ctx.host, ctx.port, initiator=ctx.initiator)
            # Each its own ISID: no session reinstates another.
            conn.isid = 0x800000000000 | (os.getpid() << 10 | i) & 0xffffff
            try:
                FLOOD[i % len(FLOOD)](ctx, conn)
            finally:
                conn.close()
        except (Fail, OSError) as err:
            errors.append(f'{FLOOD[i % len(FLOOD)].__name__}: {err}')


@case
def case_flood(ctx):
    """--conns connections, --parallel at a time: logins to an unknown
    target, discovery sessions, logins and sessions cut off, vendor
    opcodes in the login phase, in turn; each answered as it should be,
    and no message they cause logged more than printk_ratelimited()
    allows (LOG_BURST in LOG_INTERVAL seconds a call site)."""
    fd = kmsg_mark()
    todo, errors = list(range(ctx.conns)), []
    t0 = time.monotonic()
    workers = [threading.Thread(target=flood_worker,
                                args=(ctx, todo, errors))
               for _ in range(ctx.parallel)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    took = time.monotonic() - t0
    time.sleep(1)       # the last sessions' "closed" lines
    lines = kmsg_since(fd)
    tpl, most, sites = busiest(lines, LOG_WINDOW)
    bound = LOG_BURST * (LOG_WINDOW // LOG_INTERVAL + 1)
    seen = (f'{ctx.conns} connections in {took:.1f} s, {len(errors)} not '
            f'answered right; {len(lines)} kernel log lines '
            f'({len(lines) / took:.1f}/s) of {sites} kinds, the busiest '
            f'{most} times in {LOG_WINDOW} s: "{tpl}"')
    expect(not errors, f'{seen}; {errors[0] if errors else ""}')
    expect(most <= bound, f'{seen}: over {bound}')
    return seen


# LUN 7, single level (SAM-5 peripheral device addressing): not mapped.
UNMAPPED_LUN = 7 << 48
LUN_FLOOD = 300


@case
def case_lun_flood(ctx):
    """LUN_FLOOD TEST UNIT READYs on a LUN the session does not map:
    each answered CHECK CONDITION, ILLEGAL REQUEST, LOGICAL UNIT NOT
    SUPPORTED (ASC 0x25), and no message logged more than
    printk_ratelimited() allows a call site."""
    fd = kmsg_mark()
    conn = Connection(ctx.host, ctx.port, initiator=ctx.initiator)
    conn.login(ctx.target)
    t0 = time.monotonic()
    for _ in range(LUN_FLOOD):
        itt = conn.next_itt()
        conn.send_pdu(scsi_cmd(F_FINAL, itt, 0, conn.take_cmdsn(),
                               conn.expstatsn, bytes(6), lun=UNMAPPED_LUN))
        rsp = conn.recv_expect(OP_SCSI_RSP, itt)
        expect(rsp.scsi_status == 0x02 and rsp.sense[2] & 0x0f == 0x05 and
               rsp.sense[12] == 0x25,
               f'TEST UNIT READY on LUN 7: {rsp}, sense {rsp.sense.hex()}')
    took = time.monotonic() - t0
    conn.logout()
    lines = kmsg_since(fd)
    tpl, most, _ = busiest(lines, LOG_WINDOW)
    bound = LOG_BURST * (LOG_WINDOW // LOG_INTERVAL + 1)
    seen = (f'{LUN_FLOOD} commands on LUN 7 in {took:.1f} s; {len(lines)} '
            f'kernel log lines, the busiest {most} times in {LOG_WINDOW} s: '
            f'"{tpl}"')
    expect(most <= bound, f'{seen}: over {bound}')
    return seen


ABORT_FLOOD = 200
# initiator.c: the ABORT TASKs an initiator may send the target core at
# once, and a second after that.
ABORT_BURST, ABORT_PER_SEC = 32, 4
TMF_ABORT_TASK = 1
TMF_RSP_NO_TASK, TMF_RSP_REJECTED = 1, 255


def abort_task(conn, rtt, refcmdsn):
    """An immediate ABORT TASK of ITT @rtt; returns its response code."""
    itt = conn.next_itt()
    conn.send_pdu(tmf_req(TMF_ABORT_TASK, itt, rtt, conn.cmdsn,
                          conn.expstatsn, refcmdsn))
    return conn.recv_expect(OP_TMF_RSP, itt).response


@case
def case_abort_flood(ctx):
    """ABORT_FLOOD immediate ABORT TASKs of a task that is done (a TEST UNIT
    READY answered before): the target core logs a line for each it
    carries out, without a limit, so at most ABORT_BURST of them and
    ABORT_PER_SEC a second after reach it, each answered "task does not
    exist"; the others are answered "Function rejected". The kernel log
    has no more "ABORT_TASK" lines than those. Two seconds later one is
    carried out again. Before, all went to the core, a line each."""
    fd = kmsg_mark()
    conn = Connection(ctx.host, ctx.port, initiator=ctx.initiator)
    conn.login(ctx.target)
    itt, ref = conn.next_itt(), conn.take_cmdsn()
    conn.send_pdu(scsi_cmd(F_FINAL, itt, 0, ref, conn.expstatsn, bytes(6)))
    conn.recv_expect(OP_SCSI_RSP, itt)
    t0 = time.monotonic()
    got = [abort_task(conn, itt, ref) for _ in range(ABORT_FLOOD)]
    took = time.monotonic() - t0
    expect(set(got) <= {TMF_RSP_NO_TASK, TMF_RSP_REJECTED},
           f'responses {sorted(set(got))}, expected 1 or 255')
    done = got.count(TMF_RSP_NO_TASK)
    bound = ABORT_BURST + ABORT_PER_SEC * (int(took) + 1)
    seen = (f'{ABORT_FLOOD} ABORT TASKs in {took:.1f} s: {done} carried '
            f'out, {ABORT_FLOOD - done} rejected')
    expect(ABORT_BURST <= done <= bound, f'{seen}, expected {ABORT_BURST} '
           f'to {bound} carried out')
    time.sleep(2)
    again = abort_task(conn, itt, ref)
    expect(again == TMF_RSP_NO_TASK,
           f'{seen}; 2 s later one answered {again}, expected 1')
    conn.logout()
    lines = [m for _, m in kmsg_since(fd) if 'ABORT_TASK' in m]
    expect(len(lines) <= done + 1,
           f'{seen}; {len(lines)} "ABORT_TASK" lines in the kernel log')
    return f'{seen}; {len(lines)} "ABORT_TASK" lines in the kernel log'


# chap_fail_delay: the least a failed CHAP login waits for its answer
# (the target waits 2 s).
CHAP_FAIL_DELAY = 1.8
LS_AUTH_FAILED = 0x0201


def chap_challenge(conn, target):
    """A CHAP login's security stage on @conn up to the target's
    challenge (CHAP_A=5, MD5): returns (CHAP_I, CHAP_C as bytes)."""
    keys = [(k, 'CHAP' if k == 'AuthMethod' else v)
            for k, v in conn.leading_keys(target)]
    rsp = conn.login_pdu(login_flags(SEC), keys)
    expect(rsp is not None and rsp.op == OP_LOGIN_RSP and rsp.status == 0 and
           ('AuthMethod', 'CHAP') in rsp.keys, f'CHAP offered: {rsp}')
    rsp = conn.login_pdu(login_flags(SEC), [('CHAP_A', '5')])
    expect(rsp is not None and rsp.op == OP_LOGIN_RSP and rsp.status == 0,
           f'CHAP_A: {rsp}')
    got = dict(rsp.keys)
    expect('CHAP_I' in got and 'CHAP_C' in got, f'CHAP challenge: {got}')
    return int(got['CHAP_I']), bytes.fromhex(got['CHAP_C'][2:])


def chap_md5(ident, secret, challenge):
    return hashlib.md5(bytes([ident]) + secret.encode() + challenge).hexdigest()


def chap_answer(conn, ident, chal, user, secret, mutual=None):
    """CHAP_N and CHAP_R for the target's challenge, with CHAP_I=7 and
    CHAP_C=@mutual (bytes) asking mutual CHAP: the Login Response."""
    keys = [('CHAP_N', user), ('CHAP_R', '0x' + chap_md5(ident, secret, chal))]
    if mutual is not None:
        keys += [('CHAP_I', '7'), ('CHAP_C', '0x' + mutual.hex())]
    rsp = conn.login_pdu(login_flags(SEC, OPER, transit=True), keys)
    expect(rsp is not None and rsp.op == OP_LOGIN_RSP,
           f'the answer to CHAP_R: {rsp}')
    return rsp


def chap_conn(ctx, name):
    return Connection(ctx.host, ctx.port, initiator=f'{ctx.initiator}-{name}')


@case
def case_chap_relay(ctx):
    """A second login's CHAP_C is the first's challenge: refused 0x0201,
    no CHAP_R; a challenge of the login's own is answered."""
    user, secret, muser, msecret = ctx.chap.split(':')
    first, second = chap_conn(ctx, 'first'), chap_conn(ctx, 'second')
    try:
        _, c1 = chap_challenge(first, ctx.chap_target)
        i2, c2 = chap_challenge(second, ctx.chap_target)
        rsp = chap_answer(second, i2, c2, user, secret, mutual=c1)
        got = dict(rsp.keys)
        expect(rsp.status == LS_AUTH_FAILED and 'CHAP_R' not in got,
               f"CHAP_C the other login's challenge: status "
               f'0x{rsp.status:04x}, keys {rsp.keys}; expected 0x0201 and '
               'no CHAP_R')
    finally:
        second.close()
        first.close()
    own = chap_conn(ctx, 'own')
    try:
        i3, c3 = chap_challenge(own, ctx.chap_target)
        mine = os.urandom(16)
        rsp = chap_answer(own, i3, c3, user, secret, mutual=mine)
        got = dict(rsp.keys)
        expect(rsp.status == 0 and got.get('CHAP_N') == muser and
               got.get('CHAP_R', '')[2:].lower() == chap_md5(7, msecret, mine),
               f'mutual CHAP with a challenge of its own: {rsp}, {rsp.keys}')
    finally:
        own.close()
    return "another login's challenge refused 0x0201; its own answered"


@case
def case_chap_fail_delay(ctx):
    """A wrong CHAP_R: 0x0201 after CHAP_FAIL_DELAY s at the soonest, the
    connection closed; the right one logs in."""
    user, secret, _, _ = ctx.chap.split(':')
    conn = chap_conn(ctx, 'guess')
    try:
        ident, chal = chap_challenge(conn, ctx.chap_target)
        t0 = time.monotonic()
        rsp = chap_answer(conn, ident, chal, user, secret + 'x')
        wrong = time.monotonic() - t0
        expect(rsp.status == LS_AUTH_FAILED,
               f'a wrong CHAP_R: status 0x{rsp.status:04x}, expected 0x0201')
        expect(wrong >= CHAP_FAIL_DELAY,
               f'a wrong CHAP_R answered after {wrong:.2f} s, expected '
               f'{CHAP_FAIL_DELAY} s at the soonest')
        conn.expect_closed()
    finally:
        conn.close()
    conn = chap_conn(ctx, 'right')
    try:
        ident, chal = chap_challenge(conn, ctx.chap_target)
        t0 = time.monotonic()
        rsp = chap_answer(conn, ident, chal, user, secret)
        right = time.monotonic() - t0
        expect(rsp.status == 0, f'the right CHAP_R: {rsp}')
    finally:
        conn.close()
    return (f'a wrong CHAP_R answered 0x0201 after {wrong:.2f} s, the right '
            f'one after {right:.2f} s')


def main():
    def options(ap):
        ap.add_argument('--conns', type=int, default=64,
                        help='connections a pin_ case or the flood opens')
        ap.add_argument('--parallel', type=int, default=8,
                        help='flood: connections at a time')
        ap.add_argument('--settle', type=float, default=3.0,
                        help='pin_, login_fair: seconds before measuring')
        ap.add_argument('--chap-target', default=None,
                        help='chap_*: a target with TPG CHAP, mutual')
        ap.add_argument('--chap', default='u:s:mu:ms',
                        help='chap_*: USER:SECRET:MUSER:MSECRET of it')
        ap.add_argument('--sources', default='192.0.2.2,192.0.2.1',
                        help='login_fair, discovery_fair: the addresses of '
                        'the greedy host and of the other, comma-separated')
    return CASES.main(__doc__, 'iqn.2026-11.org.example:ixt-hostile',
                      options)


if __name__ == '__main__':
    sys.exit(main())
