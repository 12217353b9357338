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

flood: --conns connections, --parallel at a time, in turn a login to an
unknown target, a discovery session (SendTargets=All, Logout), a login
to the TPG cut off in the middle, a normal session (demo mode) cut off
without a Logout, and a vendor opcode with a data segment in the login
phase. Every one must get its answer, and no message of the kernel log
(/dev/kmsg, names and numbers masked: about one a call site) may come
more often than printk_ratelimited() lets a call site log: 10 lines in
5 s, so at most 30 in any 10 s.
"""

import os
import re
import socket
import sys
import threading
import time

from ixt_iscsi import (
    F_FINAL, FFP, LOGIN_T, OP_LOGIN_RSP, OP_SCSI_RSP, OP_VENDOR1, OPER, SEC, Cases,
    Connection, Fail, bhs, cdb10, expect, kmsg_mark, kmsg_since,
    login_flags, scsi_cmd)

# What a connection of pin_* may add: vmalloc areas of iscsi_xt, and
# kernel memory of any kind as MemAvailable sees it (a socket pair, the
# login state and its 16 KiB response buffer, well under it).
PIN_VMALLOC_BOUND = 64 << 10
PIN_AVAIL_BOUND = 256 << 10
PIN_DLENGTH = 0xffffff
PIN_SENT = 16           # bytes of the data segment sent
VARLEN_CDB_LEN = 260    # 8 + 252
DISCOVERY_MAX = 64      # session.c: IXT_MAX_DISCOVERY_SESSIONS

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


def discovery_login(ctx, conn):
    """The Login Response's status of a discovery login of @conn, which
    is in full feature phase when that is 0."""
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


def main():
    def options(ap):
        ap.add_argument('--conns', type=int, default=64,
                        help='connections a pin_ case or the flood opens')
        ap.add_argument('--parallel', type=int, default=8,
                        help='flood: connections at a time')
        ap.add_argument('--settle', type=float, default=3.0,
                        help='pin_: seconds before measuring')
    return CASES.main(__doc__, 'iqn.2026-11.org.example:ixt-hostile',
                      options)


if __name__ == '__main__':
    sys.exit(main())
