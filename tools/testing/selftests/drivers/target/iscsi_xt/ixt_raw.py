#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Raw iSCSI initiator over TCP for the iscsi_xt kselftests (stdlib only).

It sends what open-iscsi never sends -- bad opcodes, stage codes, keys,
lengths, tags and sequence numbers, commands and Data-Outs out of order --
and checks the target's exact answer (RFC 7143), with the client of
ixt_iscsi.py:

    ixt_raw.py --target IQN [--host ADDR] [--repeat N] CASE...

runs the named cases (see --list) and prints one line per case; the exit
status is 0 when the target answered every case as expected.

The cases with unsolicited data, DataPDUInOrder=No, DataSequenceInOrder=No
or several outstanding R2Ts need a TPG that allows them: its param/
InitialR2T=No, DataPDUInOrder=No, DataSequenceInOrder=No and
MaxOutstandingR2T=4, which change nothing for an initiator that does not
ask for them. They fail, saying so, against a TPG that does not.
"""

import contextlib
import inspect
import os
import socket
import struct
import sys
import threading
import time

from ixt_iscsi import (
    ANSWER_SECS, BLOCK, F_CONT, F_FINAL, F_WRITE, FFP, LOGIN_T, OPER, SEC,
    LS_INIT_ERR, LS_MISSING_FIELDS, LS_NO_SESSION, LS_NO_VERSION,
    LS_TGT_NOT_FOUND, OP_LOGIN_RSP, OP_NOP_IN, OP_R2T, OP_REJECT, OP_SCSI_RSP,
    OP_TMF_RSP, OP_VENDOR1, REASON_CMD_NOT_SUPPORTED, REASON_INVALID_FIELD,
    REASON_PROTOCOL_ERROR, RESERVED_TAG, Connection, Fail, bhs, cdb10,
    data_out, decode_keys, encode_keys, expect, in_order, interleaved,
    login_flags, login_req, logout_req, nop_out, op_keys, reverse, scsi_cmd,
    text_req, tmf_req,
    F_READ, F_STATUS, F_UNDERFLOW, F_OVERFLOW, LS_TOO_MANY_CONNS,
    OP_DATA_IN, OP_LOGOUT_RSP, Cases, good, joined_to, kmsg_mark, kmsg_since,
    login_checked, no_data, nop_logout, pattern_kept, pool_field, pool_free,
    pool_free_settled, read_back, slab_checked, Unread, SLOW)

# Where on the LUN (512-byte blocks) the writes go. The cases run one at a
# time and each writes what it reads back.
RW_LBA = 16             # ffp_write_read: 64 KiB
BAD_LBA = 1024          # writes that fail, BAD_BLOCKS long, GUARD either side
BAD_BLOCKS = 128
GUARD = 16
REORDER_LBA = 2048      # two 32 KiB writes, back to back
UNORDERED_LBA = 4096    # up to 256 KiB
STREAM_LBA = 6144       # ffp_dataout_timeout_per_write: 4 KiB writes
DUP_ITT_LBA = 8192      # ffp_abort_dup_itt: eight 4 KiB writes, past STREAM_LBA's
POOL_LBA = 65536        # ffp_pool_dry_set_full: 24 MiB, past tcp_window's fio
WINDOW_LBA = 114688     # ffp_window_holds_commands: 12 KiB, after POOL_LBA's
REOPEN_LBA = 114712     # ffp_window_reopens: a window of 4 KiB writes, up to 1 MiB
TURN_LBA = POOL_LBA     # ffp_pool_waits_in_turn: 19.5 MiB, then 1 MiB and 4 KiB

# Where fault.c's knobs are (a module built with IXT_FAULT_INJECT=1).
FAULT = '/sys/kernel/debug/iscsi_xt/fault'

# Negotiated keys the cases below ask for.
UNORDERED = op_keys(DataPDUInOrder='No')
UNSOL = op_keys(InitialR2T='No', ImmediateData='Yes', FirstBurstLength='16384')
UNSOL_UNORDERED = op_keys(InitialR2T='No', ImmediateData='Yes',
                          FirstBurstLength='65536', DataPDUInOrder='No')
SEQ_UNORDERED = op_keys(DataPDUInOrder='No', DataSequenceInOrder='No',
                        MaxOutstandingR2T='4', MaxBurstLength='65536')

# The cases: each raises Fail, or returns what it saw for the log line.
CASES = Cases()
case = CASES.case


def table(entries):
    """Registers one case per entry of @entries, {name: (what, *args)}:
    the decorated fn(ctx, *args) runs it, and fn's docstring, formatted
    with what= and fn's parameters, documents it."""
    def register(fn):
        names = list(inspect.signature(fn).parameters)[1:]
        for name, (what, *args) in entries.items():
            def run(ctx, args=tuple(args)):
                return fn(ctx, *args)
            run.__doc__ = fn.__doc__.format(what=what, **dict(zip(names, args)))
            CASES[name] = run
        return fn
    return register


def connect(ctx):
    return Connection(ctx.host, ctx.port, initiator=ctx.initiator)


def unread(ctx):
    return Unread(ctx.host, ctx.port, initiator=ctx.initiator)


@contextlib.contextmanager
def small_send_buffers():
    """TCP send buffers of 4 KiB (net.ipv4.tcp_wmem) for the connections
    made meanwhile, the target's included: what the target sends a peer
    that reads nothing then waits in its own send queue, not in its
    socket's buffer, which over loopback (the raw client runs in the
    target's VM, MSS 64 KiB) grows to MiBs, tens of thousands of small
    PDUs."""
    path = '/proc/sys/net/ipv4/tcp_wmem'
    with open(path) as f:
        old = f.read()
    with open(path, 'w') as f:
        f.write('4096 4096 4096')
    try:
        yield
    finally:
        with open(path, 'w') as f:
            f.write(old)


def logged_in(ctx, keys=None, **want):
    """A connection logged in offering @keys, whose negotiation gave the
    values @want (key=value) asks for."""
    return login_checked(connect(ctx), ctx.target, keys, **want)


def login_refused(conn, rsp, status):
    """A Login Response with @status, then the connection closes."""
    expect(rsp is not None and rsp.op == OP_LOGIN_RSP,
           f'expected a Login Response, got {rsp}')
    expect(rsp.status == status,
           f'status 0x{rsp.status:04x}, expected 0x{status:04x}')
    conn.expect_closed()
    return f'Login Response 0x{status:04x}, connection closed'


def rejected(conn, hdr, reason, closed):
    """A Reject with @reason that returns @hdr; then the connection closes,
    or goes on: a NOP-Out with the CmdSN the rejected PDU did not take
    (RFC 7143 section 7.3) is answered first, and a Logout ends it."""
    rej = conn.recv_expect(OP_REJECT)
    expect(rej.reason == reason,
           f'Reject reason 0x{rej.reason:02x}, expected 0x{reason:02x}')
    expect(rej.data[:48] == hdr, 'the Reject does not carry the header')
    if closed:
        conn.expect_closed()
        return f'Reject 0x{reason:02x}, connection closed'
    conn.nop()
    conn.logout()
    return f'Reject 0x{reason:02x}, session still usable'


def lun_unchanged(ctx, body, lba=BAD_LBA, blocks=BAD_BLOCKS):
    """Runs body(), a write to @blocks blocks at @lba that never gets all
    its data: fills them and GUARD blocks either side with a fresh pattern
    first, and reads them back on a new session after: the failed write
    changed none of them. Returns body()'s result."""
    return pattern_kept(lambda: logged_in(ctx), body, lba, blocks, GUARD)


# First Login Requests refused: flags, text ({i}/{t}: the names; LEAD: the
# leading keys), status and login_req() arguments.
LEAD = b'InitiatorName={i}\0TargetName={t}\0SessionType=Normal\0AuthMethod=None\0'
SEC_T = login_flags(SEC, OPER, transit=True)
LOGIN_REFUSALS = {
    'login_csg_ffp': ('CSG full feature phase', login_flags(FFP, FFP, True),
                      LEAD, LS_INIT_ERR, {}),
    'login_nsg_reserved': ('T with the reserved NSG 2', login_flags(SEC, 2, True),
                           LEAD, LS_INIT_ERR, {}),
    'login_nsg_backwards': ('T with NSG before CSG', login_flags(OPER, SEC, True),
                            LEAD, LS_INIT_ERR, {}),
    'login_transit_and_continue': ('both T and C', login_flags(SEC, OPER, True, True),
                                   LEAD, LS_INIT_ERR, {}),
    'login_version': ('Version-min 1', SEC_T, LEAD, LS_NO_VERSION,
                      {'vmin': 1, 'vmax': 1}),
    'login_key_no_equals': ('a key without "="', SEC_T,
                            LEAD + b'AuthMethodNone\0', LS_INIT_ERR, {}),
    'login_key_no_nul': ('text without the last NUL', SEC_T,
                         LEAD + b'X-org.example.Last=1', LS_INIT_ERR, {}),
    'login_key_not_utf8': ('a key not in UTF-8', SEC_T,
                           LEAD + b'X-\xff\xfe=1\0', LS_INIT_ERR, {}),
    'login_value_not_utf8': ('a value not in UTF-8', SEC_T,
                             LEAD + b'InitiatorAlias=\xc3\x28\0', LS_INIT_ERR, {}),
    'login_key_twice': ('AuthMethod twice', SEC_T, LEAD + b'AuthMethod=None\0',
                        LS_INIT_ERR, {}),
    'login_unknown_key_twice': ('an X- key twice', SEC_T,
                                LEAD + b'X-org.example.K=1\0X-org.example.K=2\0',
                                LS_INIT_ERR, {}),
    'login_missing_initiator': ('no InitiatorName', SEC_T,
                                b'TargetName={t}\0AuthMethod=None\0',
                                LS_MISSING_FIELDS, {}),
    'login_unknown_target': ('an unknown TargetName', SEC_T,
                             LEAD.replace(b'{t}', b'{t}.nonexistent'),
                             LS_TGT_NOT_FOUND, {}),
}


@table(LOGIN_REFUSALS)
def login_refusal(ctx, flags, text, status, kw):
    """First Login Request with {what}: 0x{status:04x}."""
    conn = connect(ctx)
    text = text.replace(b'{i}', conn.initiator.encode())
    text = text.replace(b'{t}', ctx.target.encode())
    return login_refused(conn, conn.login_pdu(flags, text, **kw), status)


@case
def case_login_logout(ctx):
    """A whole login, a NOP exchange, a Logout."""
    return nop_logout(logged_in(ctx))


@case
def case_login_tsih_unknown(ctx):
    """A login with the TSIH of no session (a connection to add to it)
    goes through its security stage and is refused at its end with
    0x020a (session does not exist): the session is looked for once the
    login has authenticated, so that a peer learns nothing before of
    which sessions exist. Before, its first request was refused."""
    conn = connect(ctx)
    rsp = conn.login_pdu(SEC_T, conn.leading_keys(ctx.target), tsih=0x7777)
    expect(rsp is not None and rsp.op == OP_LOGIN_RSP and rsp.status == 0,
           f'the security stage: {rsp}, expected it to pass')
    return login_refused(conn, conn.login_pdu(login_flags(OPER, FFP, True),
                                              [], tsih=0x7777),
                         LS_NO_SESSION)


@case
def case_login_nop_first(ctx):
    """A NOP-Out as the first PDU: 0x0200."""
    conn = connect(ctx)
    conn.send_pdu(nop_out(1, 1, 0, imm=True))
    return login_refused(conn, conn.recv_pdu(), LS_INIT_ERR)


@case
def case_login_vendor_first(ctx):
    """A vendor-specific opcode as the first PDU: 0x0200."""
    conn = connect(ctx)
    conn.send_pdu(bhs(OP_VENDOR1, F_FINAL, itt=1), b'vendor')
    return login_refused(conn, conn.recv_pdu(), LS_INIT_ERR)


@case
def case_login_isid_changes(ctx):
    """The ISID changes in the second Login Request: 0x0200."""
    conn = connect(ctx)
    rsp = conn.login_pdu(login_flags(SEC, OPER), conn.leading_keys(ctx.target))
    expect(rsp is not None and rsp.status == 0, f'first request: {rsp}')
    conn.isid ^= 1
    return login_refused(conn, conn.login_pdu(SEC_T, []), LS_INIT_ERR)


@case
def case_login_unknown_keys(ctx):
    """Unknown and X- keys are answered NotUnderstood; the login goes on."""
    conn = connect(ctx)
    extra = [('X-org.example.Foo', 'bar'), ('FooBarKey', '1')]
    got = dict(conn.login(ctx.target, extra=extra))
    for k, _ in extra:
        expect(got.get(k) == 'NotUnderstood', f'{k} answered {got.get(k)}')
    conn.logout()
    return 'both answered NotUnderstood, logged in and out'


def long_text(n):
    """About n bytes (no more) of well-formed X- keys."""
    out = b''.join(b'X-org.example.K%05d=%s\0' % (i, b'v' * 228)
                   for i in range(n // 250 + 1))
    return out[:n].rsplit(b'\0', 1)[0] + b'\0'


@case
def case_login_text_over_64k(ctx):
    """Login text over 64 KiB in 8 KiB parts with C: each part but the last
    answered by an empty Login Response, the ninth refused with 0x0200."""
    conn = connect(ctx)
    text = encode_keys(conn.leading_keys(ctx.target)) + long_text(9 * 8192)
    for i in range(9):
        rsp = conn.login_pdu(login_flags(SEC, OPER, cont=True),
                             text[i * 8192:(i + 1) * 8192])
        if i == 8:
            return login_refused(conn, rsp, LS_INIT_ERR)
        expect(rsp is not None and rsp.op == OP_LOGIN_RSP and rsp.status == 0
               and not rsp.data and not rsp.flags & (LOGIN_T | F_CONT),
               f'part {i}: {rsp}')
    raise Fail('not reached')


@case
def case_login_pdu_over_8k(ctx):
    """A Login Request over the login's MaxRecvDataSegmentLength (8192):
    the connection closes without an answer."""
    conn = connect(ctx)
    text = encode_keys(conn.leading_keys(ctx.target)) + long_text(8300)
    conn.send_pdu(login_req(SEC_T, conn.isid, 1, 1, 0), text[:8193])
    conn.expect_closed()
    return 'connection closed without an answer'


# The module's sessions_per_initiator default.
SESSIONS_PER_INITIATOR = 64


@case
def case_login_sessions_per_initiator(ctx):
    """One initiator logs in SESSIONS_PER_INITIATOR sessions (ISIDs of
    their own) to the TPG; the next one is refused with 0x0302 (out of
    resources) and its connection closed, and gets in once one of the
    others has logged out."""
    name = ctx.initiator + '-sessions'
    mine = []

    def session(i):
        conn = Connection(ctx.host, ctx.port, initiator=name)
        conn.isid = 0x800000000000 | (os.getpid() & 0xffff) << 8 | i
        return conn

    try:
        for i in range(SESSIONS_PER_INITIATOR):
            mine.append(session(i))
            mine[-1].login(ctx.target)
        extra = session(SESSIONS_PER_INITIATOR)
        try:
            extra.login(ctx.target)
        except Fail as e:
            expect('status 0x0302' in str(e),
                   f'session {SESSIONS_PER_INITIATOR + 1}: {e}')
        else:
            raise Fail(f'{SESSIONS_PER_INITIATOR + 1} sessions of one '
                       'initiator logged in')
        extra.expect_closed()
        mine.pop(0).logout()
        mine.append(session(SESSIONS_PER_INITIATOR))
        mine[-1].login(ctx.target)
        mine[-1].nop(b'in')
    finally:
        for conn in mine:
            try:
                conn.logout()
            except (Fail, OSError):
                pass
    return (f'{SESSIONS_PER_INITIATOR} sessions, the next refused 0x0302, '
            'let in after a logout')


@case
def case_login_erl_capped(ctx):
    """ErrorRecoveryLevel=2 offered to a TPG whose param/ says 2: the
    answer is 0, the only level the target implements."""
    conn = connect(ctx)
    got = dict(conn.login(ctx.target, op_keys(ErrorRecoveryLevel='2')))
    expect(got.get('ErrorRecoveryLevel') == '0',
           f"ErrorRecoveryLevel answered {got.get('ErrorRecoveryLevel')}")
    conn.logout()
    return 'ErrorRecoveryLevel=0'


@case
def case_login_rsp_continued(ctx):
    """A Login Response over 8192 bytes (what an initiator receives in the
    login until it declares more) comes in parts with C set and T clear,
    each fetched by an empty Login Request; the last part has T; every key
    is answered once and the login goes on."""
    conn = connect(ctx)
    # 118 keys of 63 bytes (the longest), 120 pairs with the leading
    # ones, of the 128 a text may hold: 7.9 KiB asked, 9.2 KiB answered.
    name = 'X-org.example.Continued'
    extra = [(f'{name}{i:04d}'.ljust(63, 'k'), '1') for i in range(118)]
    flags = login_flags(SEC, OPER, transit=True)
    rsp = conn.login_pdu(flags, conn.leading_keys(ctx.target) + extra)
    parts = []
    while True:
        expect(rsp is not None and rsp.op == OP_LOGIN_RSP and rsp.status == 0,
               f'part {len(parts)}: {rsp}')
        expect(len(rsp.data) <= 8192, f'part {len(parts)} of {len(rsp.data)} bytes')
        parts.append(rsp)
        if not rsp.flags & F_CONT:
            break
        expect(not rsp.flags & LOGIN_T, f'part {len(parts) - 1} has T and C')
        expect(len(parts) < 4, 'more than 4 parts')
        rsp = conn.login_pdu(flags, b'')
    expect(len(parts) > 1, f'{len(rsp.data)} bytes in one part')
    expect(rsp.flags & LOGIN_T and rsp.flags & 3 == OPER,
           f'the last part does not end the stage: {rsp}')
    keys = decode_keys(b''.join(p.data for p in parts))
    answers = [v for k, v in keys if k.startswith(name)]
    expect(answers == ['NotUnderstood'] * len(extra),
           f'{len(answers)} answers to {len(extra)} keys: {set(answers)}')
    conn.login_operational()
    conn.nop()
    conn.logout()
    total = sum(len(p.data) for p in parts)
    return f'{total} bytes in {len(parts)} parts, logged in and out'


def closed_after(conn, start, low, high):
    conn.expect_closed(timeout=high + 15)
    took = time.monotonic() - start
    expect(low <= took <= high, f'closed after {took:.1f} s, expected {low}..{high} s')
    return f'closed after {took:.1f} s'


@case
def case_login_stall_connect(ctx):
    """Nothing sent: the default login timeout (15 s) closes it."""
    start = time.monotonic()
    return closed_after(connect(ctx), start, 14, 25)


@case
def case_login_stall_tpg(ctx):
    """A first request names the TPG, then nothing: its login_timeout."""
    start = time.monotonic()
    conn = connect(ctx)
    rsp = conn.login_pdu(login_flags(SEC, OPER), conn.leading_keys(ctx.target))
    expect(rsp is not None and rsp.status == 0, f'first request: {rsp}')
    return closed_after(conn, start, ctx.login_timeout - 1, ctx.login_timeout + 5)


@case
def case_login_truncated(ctx):
    """20 bytes of a BHS, then half a data segment: the target survives."""
    conn = connect(ctx)
    conn.send(login_req(SEC_T, conn.isid, 1, 1, 0)[:20])
    conn.close()
    conn = connect(ctx)
    conn.send(login_req(SEC_T, conn.isid, 1, 1, 0)[:5] + b'\0\0\xc8' +
              login_req(SEC_T, conn.isid, 1, 1, 0)[8:] + b'InitiatorName=')
    conn.close()
    return case_login_logout(ctx) + ' after two truncated PDUs'


# PDUs rejected in full feature phase, the session going on: the Reject
# reason, the data segment and the BHS (from the connection).
FFP_REJECTS = {
    'ffp_vendor_opcode': (
        'a vendor-specific opcode', REASON_CMD_NOT_SUPPORTED, b'v' * 16,
        lambda c: bhs(OP_VENDOR1, F_FINAL, itt=c.next_itt(), w24=c.cmdsn)),
    'ffp_target_opcode': (
        'a target opcode', REASON_CMD_NOT_SUPPORTED, b'',
        lambda c: bhs(OP_SCSI_RSP, F_FINAL, itt=c.next_itt(), w24=c.cmdsn)),
    'ffp_login_request': (
        'a Login Request', REASON_PROTOCOL_ERROR, b'',
        lambda c: login_req(login_flags(OPER, FFP, True), c.isid, c.next_itt(),
                            c.cmdsn, c.expstatsn, tsih=c.tsih)),
    'ffp_immediate_data_refused': (
        'immediate data under ImmediateData=No', REASON_PROTOCOL_ERROR,
        b'i' * 512,
        lambda c: scsi_cmd(F_FINAL | F_WRITE, c.next_itt(), 8192, c.cmdsn,
                           c.expstatsn, cdb10(0x2a, 0, 16))),
    'ffp_scsi_no_direction': (
        'a SCSI Command with EDTL but neither R nor W', REASON_INVALID_FIELD, b'',
        lambda c: scsi_cmd(F_FINAL, c.next_itt(), 4096, c.cmdsn, c.expstatsn,
                           cdb10(0x28, 0, 8))),
}


@table(FFP_REJECTS)
def ffp_reject(ctx, reason, data, build):
    """In full feature phase, {what}: Reject 0x{reason:02x}."""
    conn = logged_in(ctx)
    return rejected(conn, conn.send_pdu(build(conn), data), reason, False)


# PDUs dropped silently: the next PDU answers the NOP-Out that follows.
DROPPED = {
    'ffp_dataout_unknown_itt': (
        'unsolicited Data-Out for no command',
        lambda c: [(data_out(0xdead, RESERVED_TAG, c.expstatsn, 0, 0), b'u' * 1000)]),
    'ffp_nop_reserved_itt': (
        'an immediate NOP-Out with the reserved ITT',
        lambda c: [(nop_out(RESERVED_TAG, c.cmdsn, c.expstatsn, imm=True), b'')]),
    'ffp_cmdsn_outside_window': (
        'NOP-Outs past MaxCmdSN, far ahead of and behind ExpCmdSN',
        lambda c: [(nop_out(c.next_itt(), sn & 0xffffffff, c.expstatsn), b'x' * 70)
                   for sn in (c.maxcmdsn + 1, c.cmdsn + 2**30, c.cmdsn - 1)]),
}


@table(DROPPED)
def dropped(ctx, build):
    """In full feature phase, {what}: dropped silently."""
    conn = logged_in(ctx)
    for hdr, data in build(conn):
        conn.send_pdu(hdr, data)
    conn.nop()
    conn.logout()
    return 'dropped, the next NOP-Out answered first'


@case
def case_ffp_data_over_mrdsl(ctx):
    """A NOP-Out over the target's MaxRecvDataSegmentLength: closed."""
    conn = logged_in(ctx)
    n = conn.target_mrdsl + 4
    conn.send_pdu(nop_out(conn.next_itt(), conn.cmdsn, conn.expstatsn), b'x' * n)
    conn.expect_closed()
    return f'{n} bytes over {conn.target_mrdsl}: connection closed'


def write_r2t(ctx, keys=None, lba=0, blocks=16, unsol=False):
    """A logged-in connection with a WRITE(10) sent, and its first R2T.
    With @unsol the command has F=0 and no immediate data: the
    unsolicited data is still due, the R2T solicits what follows it."""
    conn = logged_in(ctx, keys)
    itt = conn.next_itt()
    conn.send_pdu(scsi_cmd(F_WRITE | (0 if unsol else F_FINAL), itt,
                           blocks * BLOCK, conn.take_cmdsn(), conn.expstatsn,
                           cdb10(0x2a, lba, blocks)))
    r2t = conn.recv_expect(OP_R2T, itt)
    first = min(int(conn.neg['FirstBurstLength']), blocks * BLOCK) if unsol else 0
    expect(r2t.w40 == first and r2t.w44 > 2048,
           f'R2T offset {r2t.w40} length {r2t.w44}, expected offset {first}')
    return conn, r2t


def dout(conn, r2t, offset=0, length=512, datasn=0, final=False, ttt=None):
    """A Data-Out of @length bytes for the command of @r2t, by default
    for that R2T (@ttt RESERVED_TAG: unsolicited)."""
    return (data_out(r2t.itt, r2t.ttt if ttt is None else ttt, conn.expstatsn,
                     datasn, offset, final), b'd' * length)


# Data-Outs that break the rules, each in the middle of a 64 KiB write:
# the keys offered, whether the command expects unsolicited data, the
# Reject reason, and the Data-Outs (from the connection and the first R2T),
# the last of them at fault. With DataPDUInOrder=No the first lands in the
# middle of what the R2T asks for.
BAD_DATAOUTS = {
    'ffp_dataout_unknown_ttt': (
        'a TTT never sent', None, False, REASON_INVALID_FIELD,
        lambda c, r: [dout(c, r, ttt=0x1234fff0)]),
    'ffp_dataout_offset_outside': (
        'an offset beyond its R2T', None, False, REASON_PROTOCOL_ERROR,
        lambda c, r: [dout(c, r, offset=r.w44)]),
    'ffp_dataout_wrong_datasn': (
        'DataSN 5 for the second PDU of an R2T', None, False,
        REASON_PROTOCOL_ERROR,
        lambda c, r: [dout(c, r), dout(c, r, offset=512, datasn=5)]),
    'ffp_unordered_dataout_overlap': (
        'DataPDUInOrder=No, data overlapping a PDU received', UNORDERED, False,
        REASON_PROTOCOL_ERROR,
        lambda c, r: [dout(c, r, offset=2048, length=1024),
                      dout(c, r, offset=1024, length=2048, datasn=1)]),
    'ffp_unordered_dataout_twice': (
        'DataPDUInOrder=No, the same data twice', UNORDERED, False,
        REASON_PROTOCOL_ERROR,
        lambda c, r: [dout(c, r, offset=2048), dout(c, r, offset=2048, datasn=1)]),
    'ffp_unordered_offset_outside': (
        'DataPDUInOrder=No, an offset beyond its R2T', UNORDERED, False,
        REASON_PROTOCOL_ERROR,
        lambda c, r: [dout(c, r, offset=2048), dout(c, r, offset=r.w44, datasn=1)]),
    'ffp_unordered_dataout_wrong_datasn': (
        'DataPDUInOrder=No, DataSN 5 for the second PDU of an R2T', UNORDERED,
        False, REASON_PROTOCOL_ERROR,
        lambda c, r: [dout(c, r, offset=2048), dout(c, r, datasn=5)]),
    'ffp_unordered_unsol_outside': (
        'DataPDUInOrder=No, unsolicited data beyond FirstBurstLength',
        op_keys(InitialR2T='No', FirstBurstLength='16384', DataPDUInOrder='No'),
        True, REASON_PROTOCOL_ERROR,
        lambda c, r: [dout(c, r, offset=2048, ttt=RESERVED_TAG),
                      dout(c, r, offset=r.w40, datasn=1, ttt=RESERVED_TAG)]),
}


@table(BAD_DATAOUTS)
def bad_dataout(ctx, keys, unsol, reason, build):
    """Data-Out with {what}: Reject 0x{reason:02x}, closed; the LUN unchanged."""
    def run():
        conn, r2t = write_r2t(ctx, keys, BAD_LBA, BAD_BLOCKS, unsol)
        for hdr, data in build(conn, r2t):
            sent = conn.send_pdu(hdr, data)
        return rejected(conn, sent, reason, closed=True)
    return lun_unchanged(ctx, run)


@table({
    'ffp_dataout_swapped_datasn': ('DataPDUInOrder=Yes', None, {}),
    'ffp_unordered_swapped_datasn': ('DataPDUInOrder=No', UNORDERED,
                                     {'DataPDUInOrder': 'No'}),
})
def swapped_datasn(ctx, keys, want):
    """{what}: a 1 KiB WRITE answered by two 512-byte Data-Outs in offset
    order whose DataSNs are swapped (offset 0 DataSN 1, offset 512 DataSN
    0): DataSN counts the PDUs of a sequence as sent (RFC 7143 section
    11.7.5), so the first is a protocol error: Reject 0x04, closed; the
    LUN unchanged."""
    def run():
        conn = logged_in(ctx, keys, **want)
        itt = conn.next_itt()
        conn.send_pdu(scsi_cmd(F_FINAL | F_WRITE, itt, 2 * BLOCK,
                               conn.take_cmdsn(), conn.expstatsn,
                               cdb10(0x2a, BAD_LBA, 2)))
        r2t = conn.recv_expect(OP_R2T, itt)
        expect(r2t.w40 == 0 and r2t.w44 == 2 * BLOCK,
               f'R2T offset {r2t.w40} length {r2t.w44}')
        first = conn.send_pdu(*dout(conn, r2t, 0, BLOCK, datasn=1))
        try:
            conn.send_pdu(*dout(conn, r2t, BLOCK, BLOCK, datasn=0, final=True))
        except (BrokenPipeError, ConnectionResetError):
            pass                        # closed already, after the first
        return rejected(conn, first, REASON_PROTOCOL_ERROR, closed=True)
    return lun_unchanged(ctx, run)


@case
def case_ffp_dataout_over_mrdsl(ctx):
    """A Data-Out inside its R2T, its data segment longer than the target's
    MaxRecvDataSegmentLength: closed without an answer; the LUN unchanged."""
    def run():
        conn, r2t = write_r2t(ctx, lba=BAD_LBA, blocks=BAD_BLOCKS)
        n = conn.target_mrdsl + BLOCK
        expect(n <= r2t.w44, f'an R2T of {r2t.w44} bytes has no room for {n}')
        conn.send_pdu(*dout(conn, r2t, length=n))
        conn.expect_closed()
        return f'{n} bytes over {conn.target_mrdsl}: connection closed'
    return lun_unchanged(ctx, run)


@case
def case_ffp_close_in_data_phase(ctx):
    """The connection dies inside a Data-Out: the write is aborted, the LUN
    unchanged."""
    def run():
        conn, r2t = write_r2t(ctx, lba=BAD_LBA, blocks=BAD_BLOCKS)
        n = min(r2t.w44, conn.target_mrdsl)
        hdr = data_out(r2t.itt, r2t.ttt, conn.expstatsn, 0, 0)
        conn.send(hdr[:5] + n.to_bytes(3, 'big') + hdr[8:] + b'h' * (n // 2))
        conn.close()
        return case_login_logout(ctx) + ' afterwards'
    return lun_unchanged(ctx, run)


@case
def case_ffp_close_in_immediate_data(ctx):
    """The connection dies inside a command's immediate data; the LUN
    unchanged."""
    def run():
        conn = logged_in(ctx, op_keys(ImmediateData='Yes'))
        hdr = scsi_cmd(F_FINAL | F_WRITE, conn.next_itt(), BAD_BLOCKS * BLOCK,
                       conn.cmdsn, conn.expstatsn,
                       cdb10(0x2a, BAD_LBA, BAD_BLOCKS))
        conn.send(hdr[:5] + (4096).to_bytes(3, 'big') + hdr[8:] + b'i' * 1000)
        conn.close()
        return case_login_logout(ctx) + ' afterwards'
    return lun_unchanged(ctx, run)


@case
def case_ffp_write_read(ctx, keys=None):
    """WRITE(10) of 64 KiB through R2Ts, READ(10) back equal, CmdSN wrapping."""
    conn = connect(ctx)
    conn.cmdsn = 0xfffffffe
    conn.login(ctx.target, keys)
    data = os.urandom(65536)
    good(conn.write(RW_LBA, data))
    read_back(conn, RW_LBA, data)
    conn.nop()
    conn.logout()
    return '64 KiB written and read back equal'


def pool_filled(conn):
    """Two 8 MiB writes of @conn take 16 MiB of a 20 MiB pool (tcp_window.sh
    loads iscsi_xt so) and get their first R2T, and a third is answered
    TASK SET FULL before any Data-Out is sent. Returns {ITT: (R2T, data)}
    of the two held, and the three writes' data and LBAs."""
    size = 8 << 20
    data = [os.urandom(size) for _ in range(3)]
    lba = [POOL_LBA + i * (size // BLOCK) for i in range(3)]
    held = {}
    for i in range(2):
        itt = conn.send_write(lba[i], data[i])
        held[itt] = (conn.recv_expect(OP_R2T, itt), data[i])
    itt = conn.send_write(lba[2], data[2])
    rsp = conn.recv_pdu(timeout=30)
    expect(rsp is not None and rsp.op == OP_SCSI_RSP and rsp.itt == itt and
           rsp.response == 0 and rsp.scsi_status == 0x28,
           f'the third write: expected TASK SET FULL, got {rsp}')
    return held, data, lba


def answer_held(conn, held):
    """The writes @held ({ITT: (R2T, data)}) get their data and succeed."""
    for r2t, d in held.values():
        conn.answer_r2t(r2t, d)
    for rsp in conn.finish_writes({i: d for i, (_, d) in held.items()}).values():
        good(rsp)


@case
def case_ffp_pool_dry_set_full(ctx):
    """With the cache-line pool dry and writes of the connection waiting for
    the Data-Out their R2Ts asked for, the next write is answered TASK SET
    FULL at once rather than put off in front of that data: two 8 MiB
    writes take 16 MiB of a 20 MiB pool (tcp_window.sh loads iscsi_xt so)
    and get their first R2T, and the third is refused before any Data-Out
    is sent. Then the two complete, the third is sent again and completes,
    and all three read back equal."""
    conn = logged_in(ctx, op_keys(InitialR2T='Yes', ImmediateData='No'))
    no_data(conn, bytes(6))             # a unit attention, if any
    held, data, lba = pool_filled(conn)
    answer_held(conn, held)
    good(conn.write(lba[2], data[2]), 'the third write sent again')
    for i in range(3):
        read_back(conn, lba[i], data[i])
    conn.logout()
    return 'TASK SET FULL before any Data-Out; 24 MiB written and read back equal'


def abort_task(conn, itt, cmdsn):
    """An immediate ABORT TASK of the task @itt, of CmdSN @cmdsn, on
    @conn: the TMF Response that answers it says Function complete."""
    tmf = conn.next_itt()
    conn.send_pdu(tmf_req(1, tmf, itt, conn.cmdsn, conn.expstatsn, cmdsn))
    rsp = conn.recv_expect(OP_TMF_RSP, tmf)
    expect(rsp.response == 0, f'TMF Response {rsp.response}, expected 0')


@case
def case_ffp_pool_aborted_writes(ctx):
    """Writes aborted while their R2Ts go unanswered give their cache lines
    back at once, not when the connection goes: eight 8 MiB writes in
    turn, each aborted (ABORT TASK, Function complete) after its first
    R2T, through a 20 MiB pool (tcp_window.sh loads iscsi_xt so). Each
    gets its R2T, none TASK SET FULL, and with all eight aborted every
    line is free, the connection up. The last one's R2T then answered is
    read and dropped and the session goes on (a NOP); a second session's
    8 MiB write reads back equal."""
    keys = op_keys(InitialR2T='Yes', ImmediateData='No')
    conn = logged_in(ctx, keys)
    no_data(conn, bytes(6))             # a unit attention, if any
    data, lines = os.urandom(8 << 20), pool_field('lines')
    for i in range(8):
        itt = conn.send_write(POOL_LBA, data)
        r2t = conn.recv_pdu(timeout=30)
        expect(r2t is not None and r2t.op == OP_R2T and r2t.itt == itt,
               f'aborted write {i + 1}: expected an R2T, got {r2t}')
        abort_task(conn, itt, (conn.cmdsn - 1) & 0xffffffff)
    conn.nop()
    free = pool_free_settled(lines)
    expect(free == lines, f'{free} of {lines} lines free, eight writes aborted')
    conn.answer_r2t(r2t, data)
    conn.nop()
    other = connect(ctx)
    other.isid ^= 1                     # another session
    login_checked(other, ctx.target, keys)
    no_data(other, bytes(6))
    good(other.write(POOL_LBA, data), "the other session's 8 MiB write")
    read_back(other, POOL_LBA, data)
    other.logout()
    conn.logout()
    return (f'8 x 8 MiB aborted: {free} of {lines} lines free at once; the '
            "late Data-Out dropped; another session's 8 MiB written")


@case
def case_ffp_pool_hole_share(ctx):
    """The SCSI Commands a CmdSN hole holds take at most an eighth of the
    cache-line pool, at least one maximal command: with a 20 MiB pool
    (tcp_window.sh loads iscsi_xt so), three 8 MiB writes past a hole
    (CmdSN ExpCmdSN + 1 to + 3) hold the lines of the first only: the two
    others are answered TASK SET FULL at once. Once the hole closes (a
    TEST UNIT READY with the missing CmdSN), the first gets its R2T and
    completes, and every line is back."""
    conn = logged_in(ctx, op_keys(InitialR2T='Yes', ImmediateData='No'))
    no_data(conn, bytes(6))             # a unit attention, if any
    lines, gap = pool_field('lines'), conn.take_cmdsn()
    data = [os.urandom(8 << 20) for _ in range(3)]
    itts = [conn.send_write(POOL_LBA + i * 16384, d)
            for i, d in enumerate(data)]
    nop = conn.next_itt()               # every header is in once answered
    conn.send_pdu(nop_out(nop, conn.cmdsn, conn.expstatsn, imm=True))
    seen = {}
    while nop not in seen:
        pdu = conn.recv_pdu()
        expect(pdu is not None and pdu.itt in itts[1:] + [nop] and
               pdu.itt not in seen, f'with the hole open: {pdu}')
        seen[pdu.itt] = pdu
    held = lines - pool_free()
    expect(held <= 257, f'{held} lines held behind the hole, one 8 MiB '
           'write takes 256')
    tur = conn.next_itt()
    conn.send_pdu(scsi_cmd(F_FINAL, tur, 0, gap, conn.expstatsn, bytes(6)))
    while len(seen) < 5:
        pdu = conn.recv_pdu()
        expect(pdu is not None and pdu.itt in itts + [tur] and
               pdu.itt not in seen, f'once the hole closed: {pdu}')
        seen[pdu.itt] = pdu
    good(seen[tur], 'the TEST UNIT READY that closes the hole')
    expect(seen[itts[0]].op == OP_R2T, f'the first write: {seen[itts[0]]}')
    for i in itts[1:]:
        expect(seen[i].op == OP_SCSI_RSP and seen[i].scsi_status == 0x28,
               f'a write past the share: {seen[i]}, expected TASK SET FULL')
    conn.answer_r2t(seen[itts[0]], data[0])
    good(conn.finish_writes({itts[0]: data[0]})[itts[0]], 'the first write')
    read_back(conn, POOL_LBA, data[0])
    conn.logout()
    free = pool_free_settled(lines)
    expect(free == lines, f'{free} of {lines} lines free at the end')
    return (f'{held} lines held behind the hole for three 8 MiB writes: '
            'the first ran, two TASK SET FULL')


def answered_before_ping(conn):
    """The PDUs @conn gets before the answer to an immediate NOP-Out
    sent now: what the target said to the requests sent before it."""
    nop = conn.next_itt()
    conn.send_pdu(nop_out(nop, conn.cmdsn, conn.expstatsn, imm=True))
    seen = []
    while True:
        pdu = conn.recv_pdu()
        expect(pdu is not None, f'no answer to the NOP-Out, after {seen}')
        if pdu.itt == nop:
            return seen
        seen.append(pdu)


def hole_share(conns, refused):
    """An 8 MiB write past a CmdSN hole of its own on each of @conns (with
    InitialR2T=Yes, ImmediateData=No), in turn: those whose index is in
    @refused are answered TASK SET FULL at once, the others held. Then
    each hole closes (a TEST UNIT READY with the missing CmdSN), the held
    writes complete and read back equal, and every session logs out.
    Returns the lines held with every write sent."""
    lines = pool_free_settled(pool_field('lines'))
    data = [os.urandom(8 << 20) for _ in conns]
    gaps, itts = [], []
    for i, conn in enumerate(conns):
        gaps.append(conn.take_cmdsn())
        itts.append(conn.send_write(POOL_LBA + i * 16384, data[i]))
        seen = answered_before_ping(conn)
        if i in refused:
            expect(len(seen) == 1 and seen[0].itt == itts[i] and
                   seen[0].op == OP_SCSI_RSP and seen[0].scsi_status == 0x28,
                   f'session {i + 1}, its write past the hole: {seen}, '
                   'expected TASK SET FULL')
        else:
            expect(not seen, f'session {i + 1}, its write past the hole: '
                   f'{seen}, expected it held')
    held = lines - pool_free()
    for i, conn in enumerate(conns):
        tur = conn.next_itt()
        conn.send_pdu(scsi_cmd(F_FINAL, tur, 0, gaps[i], conn.expstatsn,
                               bytes(6)))
        # The held write's R2T may come before the TUR's response.
        want = {tur: OP_SCSI_RSP}
        if i not in refused:
            want[itts[i]] = OP_R2T
        seen = {}
        while len(seen) < len(want):
            pdu = conn.recv_pdu()
            expect(pdu is not None and want.get(pdu.itt) == pdu.op and
                   pdu.itt not in seen,
                   f'session {i + 1}, once its hole closed: {pdu}')
            seen[pdu.itt] = pdu
        good(seen[tur], 'the TEST UNIT READY that closes the hole')
        if i in refused:
            continue
        conn.answer_r2t(seen[itts[i]], data[i])
        good(conn.finish_writes({itts[i]: data[i]})[itts[i]],
             f'the write of session {i + 1}')
        read_back(conn, POOL_LBA + i * 16384, data[i])
    for conn in conns:
        conn.logout()
    free = pool_free_settled(lines)
    expect(free == lines, f'{free} of {lines} lines free at the end')
    return held


def hole_sessions(ctx, where):
    """Sessions logged in with InitialR2T=Yes and ImmediateData=No, one
    for each (port, InitiatorName) of @where, each with an ISID of its
    own, their unit attentions taken."""
    keys = op_keys(InitialR2T='Yes', ImmediateData='No')
    conns = []
    for i, (port, name) in enumerate(where):
        conn = Connection(ctx.host, port, initiator=name)
        conn.isid ^= 1 + i              # sessions, not reinstatements
        conns.append(login_checked(conn, ctx.target, keys))
        no_data(conn, bytes(6))         # a unit attention, if any
    return conns


@case
def case_ffp_pool_hole_share_initiator(ctx):
    """The share of ffp_pool_hole_share is an initiator's, over all its
    sessions: with a 20 MiB pool (tcp_window.sh loads iscsi_xt so), an
    8 MiB write past a CmdSN hole in one session holds its lines; in a
    second session of the same initiator, an 8 MiB write past a hole of
    its own is answered TASK SET FULL at once. A session of another
    initiator (demo mode's ACL of its own) still has a share: its 8 MiB
    write past its hole is held. Once each hole closes, the writes held
    complete. Before, each session had a share of its own: one
    initiator's 16 sessions could hold twice the pool behind holes."""
    names = (ctx.initiator, ctx.initiator, ctx.initiator + '-other')
    conns = hole_sessions(ctx, [(ctx.port, name) for name in names])
    held = hole_share(conns, refused={1})
    expect(held <= 2 * 257, f'{held} lines held behind the holes, two '
           '8 MiB writes take 512')
    return (f'{held} lines held behind the holes of 3 sessions, 2 '
            "initiators: the same initiator's second write TASK SET FULL")


# tcp_window.sh's second TPG of the same target: its portal's port, where
# every initiator is let in (demo mode) to LUN 0.
TPG2_PORT = 3261
SESSIONS_PARAM = '/sys/module/iscsi_xt/parameters/sessions_per_initiator'


@case
def case_ffp_pool_hole_share_tpgs(ctx):
    """The share of ffp_pool_hole_share is an initiator's over every TPG
    it logs in to: with a 20 MiB pool (tcp_window.sh loads iscsi_xt so),
    an 8 MiB write past a CmdSN hole in a session of TPG 1 holds its
    lines; in a session of the same initiator in TPG 2 of the target, an
    8 MiB write past a hole is answered TASK SET FULL at once. Once the
    holes close, the held write completes. Before, each TPG's ACL had a
    share of its own: an initiator in 8 TPGs could hold the whole pool."""
    conns = hole_sessions(ctx, [(ctx.port, ctx.initiator),
                                (TPG2_PORT, ctx.initiator)])
    held = hole_share(conns, refused={1})
    return (f'{held} lines held behind the holes of 2 TPGs: the second '
            'write TASK SET FULL')


@case
def case_sessions_per_initiator_tpgs(ctx):
    """sessions_per_initiator bounds an initiator's sessions over every
    TPG: set to 2, a session in TPG 1 and one in TPG 2 of the target log
    in, a third (in TPG 2) is refused with 0x0302 (out of resources) and
    gets in once the one in TPG 1 has logged out. Before, the bound was
    each TPG's."""
    name = ctx.initiator + '-tpgs'
    with open(SESSIONS_PARAM) as f:
        saved = f.read().strip()

    def session(port, i):
        conn = Connection(ctx.host, port, initiator=name)
        conn.isid ^= i
        return conn

    mine = []
    try:
        with open(SESSIONS_PARAM, 'w') as f:
            f.write('2')
        for i, port in enumerate((ctx.port, TPG2_PORT)):
            mine.append(session(port, i + 1))
            mine[-1].login(ctx.target)
        extra = session(TPG2_PORT, 3)
        try:
            extra.login(ctx.target)
        except Fail as e:
            expect('status 0x0302' in str(e), f'the third session: {e}')
        else:
            raise Fail('a third session logged in with '
                       'sessions_per_initiator 2')
        extra.expect_closed()
        mine.pop(0).logout()
        mine.append(session(TPG2_PORT, 4))
        mine[-1].login(ctx.target)
        mine[-1].nop(b'in')
    finally:
        with open(SESSIONS_PARAM, 'w') as f:
            f.write(saved)
        for conn in mine:
            conn.close()
    return ('2 sessions over 2 TPGs, the third refused 0x0302, let in '
            'once one logged out')

@case
def case_ffp_hole_ping_data(ctx):
    """A session holds 256 KiB of the data of NOP-Outs and Text Requests
    past its CmdSN holes (copies: the window bounds their number, not
    their bytes): four 64 KiB pings past a hole are held, and echoed in
    CmdSN order, each with its data, once the hole closes; past a second
    hole, four more are held and the fifth closes the connection, with a
    log line. Before, 63 pings of 256 KiB held 16 MiB a session."""
    conn = logged_in(ctx, op_keys(MaxRecvDataSegmentLength='262144'))
    expect(conn.target_mrdsl >= 65536,
           f"the target's MaxRecvDataSegmentLength {conn.target_mrdsl}")
    for closing in (False, True):
        gap = conn.take_cmdsn()
        pings = {}
        log = kmsg_mark() if closing else None
        for _ in range(5 if closing else 4):
            itt, data = conn.next_itt(), os.urandom(65536)
            conn.send_pdu(nop_out(itt, conn.take_cmdsn(), conn.expstatsn),
                          data)
            pings[itt] = data
        if closing:
            break
        seen = answered_before_ping(conn)
        expect(not seen, f'with the hole open: {seen}, expected all held')
        first = conn.next_itt()
        conn.send_pdu(nop_out(first, gap, conn.expstatsn))
        for itt in [first] + list(pings):
            pdu = conn.recv_expect(OP_NOP_IN, itt)
            expect(pdu.data == pings.get(itt, b''),
                   f'the echo of ITT 0x{itt:08x}: {len(pdu.data)} bytes, '
                   'not its ping data')
    conn.expect_closed(ANSWER_SECS)
    said = [ln for _, ln in kmsg_since(log)
            if 'bytes of requests past a CmdSN hole' in ln]
    expect(said, 'no log line says why the connection closed')
    return (f'4 x 64 KiB pings held and echoed in order; the fifth past a '
            f'hole closed the connection: {said[0]}')


@case
def case_ffp_pool_waits_in_turn(ctx):
    """Commands that find the cache-line pool short wait in turn, across
    sessions. A first session's four writes (1, 8, 8 and 2.5 MiB) wait for
    their Data-Out and hold 19.5 MiB of the 20 MiB pool (tcp_window.sh
    loads iscsi_xt so): 16 lines of 32 KiB are free. A 1 MiB write of a
    second session then waits for lines, and a 4 KiB write of a third,
    which one free line would serve, waits behind it rather than overtake
    it. Once the first session's 1 MiB write is answered, the second
    session's write gets its R2T and, answered, the third's gets its R2T;
    everything completes and reads back equal."""
    keys = op_keys(InitialR2T='Yes', ImmediateData='No')
    sessions = []
    for i in range(3):
        conn = connect(ctx)
        conn.isid ^= i                  # three sessions, not reinstatements
        sessions.append(login_checked(conn, ctx.target, keys))
        no_data(conn, bytes(6))         # a unit attention, if any
    a, b, c = sessions
    sizes = (1 << 20, 8 << 20, 8 << 20, 5 << 19)
    held, lba = {}, TURN_LBA
    for size in sizes:
        data = os.urandom(size)
        itt = a.send_write(lba, data)
        held[itt] = (a.recv_expect(OP_R2T, itt), data, lba)
        lba += size // BLOCK
    free = pool_free()
    expect(0 < free < 32, f'{free} lines free with 19.5 MiB held, expected 16')
    second, third = os.urandom(1 << 20), os.urandom(4096)
    b_itt = b.send_write(lba, second)
    pdu = b.poll_pdu(0.2)
    expect(pdu is None, f'the 1 MiB write did not wait for lines: {pdu}')
    c_itt = c.send_write(lba + 2048, third)
    pdu = c.poll_pdu(0.3)
    expect(pdu is None, f'the 4 KiB write overtook the 1 MiB one: {pdu}')
    first = next(iter(held))
    r2t, data, _ = held[first]
    a.answer_r2t(r2t, data)
    good(a.finish_writes({first: data})[first], 'the first 1 MiB write')
    r2t = b.recv_expect(OP_R2T, b_itt)
    b.answer_r2t(r2t, second)
    good(b.finish_writes({b_itt: second})[b_itt], 'the second session\'s write')
    r2t = c.recv_expect(OP_R2T, c_itt)
    c.answer_r2t(r2t, third)
    good(c.finish_writes({c_itt: third})[c_itt], 'the third session\'s write')
    rest = {i: w for i, w in held.items() if i != first}
    for r2t, data, _ in rest.values():
        a.answer_r2t(r2t, data)
    for rsp in a.finish_writes({i: w[1] for i, w in rest.items()}).values():
        good(rsp)
    for _, data, at in held.values():
        read_back(a, at, data)
    read_back(a, lba, second)
    read_back(a, lba + 2048, third)
    for conn in (a, b, c):
        conn.logout()
    return f'{free} lines free: the 4 KiB write waited behind the 1 MiB one, then both ran'


def sess_row(tsih):
    """The debugfs "sessions" line of the session @tsih, by column name."""
    with open('/sys/kernel/debug/iscsi_xt/sessions') as f:
        head, *rows = [ln.split() for ln in f]
    for row in rows:
        if int(row[0]) == tsih:
            return {k: int(v, 0) for k, v in zip(head, row) if k != 'initiator'}
    raise Fail(f'no session of TSIH {tsih} in debugfs')


def sess_until(tsih, test, secs=3):
    """The session's row once @test(row) holds, or the last one after
    @secs seconds."""
    deadline = time.monotonic() + secs
    while True:
        row = sess_row(tsih)
        if test(row) or time.monotonic() > deadline:
            return row
        time.sleep(0.05)


@case
def case_ffp_pool_caps_every_session(ctx):
    """Pool pressure caps every session's window, not only the one whose
    command found the pool short, and lifts the caps once the windows fit
    again. A first session's two 8 MiB writes wait for their Data-Out and
    hold 16 MiB of the 20 MiB pool (tcp_window.sh loads iscsi_xt so), and
    its third is answered TASK SET FULL. A second session, idle, then has
    its window capped too (debugfs "sessions": its cap and window), at
    the commands of that size its share of the pool holds: 2. Once the
    two writes are answered, both caps go back to the whole window."""
    keys = op_keys(InitialR2T='Yes', ImmediateData='No')
    a, b = (connect(ctx), connect(ctx))
    b.isid ^= 1                         # two sessions, not a reinstatement
    for conn in (a, b):
        login_checked(conn, ctx.target, keys)
        no_data(conn, bytes(6))         # a unit attention, if any
    idle = sess_row(b.tsih)
    expect(idle['cap'] == idle['max_window'] == idle['window'],
           f'before: {idle}')
    held, data, lba = pool_filled(a)
    capped = sess_until(b.tsih, lambda r: r['cap'] < r['max_window'])
    expect(capped['cap'] == capped['window'] == 2,
           f'the idle session under pressure: {capped}, expected cap and window 2')
    own = sess_row(a.tsih)
    expect(own['cap'] == 2, f'the writing session under pressure: {own}')
    answer_held(a, held)
    lifted = sess_until(b.tsih, lambda r: r['cap'] == r['max_window'])
    expect(lifted['cap'] == lifted['max_window'],
           f'the idle session once the writes are done: {lifted}')
    for i in range(2):
        read_back(a, lba[i], data[i])
    for conn in (a, b):
        conn.logout()
    return (f'the idle session capped at {capped["cap"]} of {capped["max_window"]}, '
            f'lifted to {lifted["cap"]} after')


@case
def case_ffp_window_holds_commands(ctx):
    """MaxCmdSN bounds the commands the target holds, not only those it has
    not received (RFC 7143 section 3.2.2.1): each of three writes that wait
    for the Data-Out their R2Ts ask for takes a place of the window, so the
    room an R2T advertises (MaxCmdSN - ExpCmdSN + 1) is the window less the
    writes held. The third is then aborted (ABORT TASK) and its R2T still
    answered, as the initiator must (RFC 7143 section 11.5.1): it has no
    response of its own, yet gives its place back, and once the other two
    are answered the room is the whole window again."""
    conn = logged_in(ctx, op_keys(InitialR2T='Yes', ImmediateData='No'))
    no_data(conn, bytes(6))             # a unit attention, if any
    win = (conn.maxcmdsn - conn.cmdsn + 1) & 0xffffffff
    expect(3 < win < 1 << 16, f'window {win} after the login')
    writes, rooms = {}, []
    for i in range(3):
        data = os.urandom(4096)
        sn = conn.cmdsn
        itt = conn.send_write(WINDOW_LBA + i * 8, data)
        r2t = conn.recv_expect(OP_R2T, itt)
        rooms.append((r2t.maxcmdsn - r2t.expcmdsn + 1) & 0xffffffff)
        writes[itt] = (r2t, data, sn)
    expect(rooms == [win - 1, win - 2, win - 3],
           f'room {rooms} with 1, 2, 3 writes held of a window of {win}')
    last = list(writes)[-1]
    r2t, data, sn = writes.pop(last)
    abort_task(conn, last, sn)
    conn.answer_r2t(r2t, data)
    for r2t, data, _ in writes.values():
        conn.answer_r2t(r2t, data)
    for rsp in conn.finish_writes({i: w[1] for i, w in writes.items()}).values():
        good(rsp)
    # The aborted write lets go once its data is in: a NOP-Out asks.
    deadline = time.monotonic() + 5
    while True:
        conn.nop()
        room = (conn.maxcmdsn - conn.cmdsn + 1) & 0xffffffff
        if room == win or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    expect(room == win, f'room {room} once answered and aborted, window {win}')
    conn.logout()
    return f'room {rooms} with 1, 2, 3 writes held, {room} once one aborted and two answered'


@case
def case_ffp_window_reopens(ctx):
    """A window full of writes that wait for Data-Out closes it (MaxCmdSN
    is ExpCmdSN - 1). One of them aborted (ABORT TASK, its R2T still
    answered) ends without a response, so no response carries the place it
    gives back: the target sends a NOP-In of its own that asks for nothing
    (ITT and TTT reserved, RFC 7143 section 11.19) and opens that place,
    rather than leave the initiator to learn of it from its next NOP-Out."""
    conn = logged_in(ctx, op_keys(InitialR2T='Yes', ImmediateData='No'))
    no_data(conn, bytes(6))             # a unit attention, if any
    win = (conn.maxcmdsn - conn.cmdsn + 1) & 0xffffffff
    expect(1 < win <= 256, f'window {win} after the login')
    writes = {}
    for i in range(win):
        data = os.urandom(4096)
        sn = conn.cmdsn
        itt = conn.send_write(REOPEN_LBA + i * 8, data)
        writes[itt] = (conn.recv_expect(OP_R2T, itt), data, sn)
    r2t, data, sn = writes.pop(itt)
    room = (r2t.maxcmdsn - r2t.expcmdsn + 1) & 0xffffffff
    expect(room == 0, f'room {room} with a window of {win} writes held')
    abort_task(conn, itt, sn)
    conn.answer_r2t(r2t, data)
    start = time.monotonic()
    pdu = conn.poll_pdu(5)
    took = time.monotonic() - start
    expect(pdu is not None and pdu.op == OP_NOP_IN and
           pdu.itt == RESERVED_TAG and pdu.w20 == RESERVED_TAG,
           f'expected a NOP-In that asks for nothing, got {pdu}')
    room = (pdu.maxcmdsn - pdu.expcmdsn + 1) & 0xffffffff
    expect(room == 1, f'room {room} after one write of {win} aborted')
    for r2t, data, _ in writes.values():
        conn.answer_r2t(r2t, data)
    for rsp in conn.finish_writes({i: w[1] for i, w in writes.items()}).values():
        good(rsp)
    conn.logout()
    return (f'window of {win} full; one aborted: a NOP-In after {took:.1f} s '
            f'opened room {room}')


@case
def case_ffp_window_immediate(ctx):
    """Immediate commands take no CmdSN, but a place of the window each:
    with the window full of immediate writes that wait for the Data-Out
    their R2Ts ask for, the next immediate command is answered TASK SET
    FULL (it would otherwise be one more command outside every bound, the
    pool's caps included). MaxCmdSN does not move (ExpCmdSN does not, and
    MaxCmdSN never moves back), so the R2Ts' room stays the window; once
    the writes are answered, the next immediate command finds a place."""
    conn = logged_in(ctx, op_keys(InitialR2T='Yes', ImmediateData='No'))
    no_data(conn, bytes(6))             # a unit attention, if any
    win = (conn.maxcmdsn - conn.cmdsn + 1) & 0xffffffff
    expect(1 < win <= 256, f'window {win} after the login')

    def send_imm_write(i, data):
        itt = conn.next_itt()
        conn.send_pdu(scsi_cmd(F_WRITE | F_FINAL, itt, len(data), conn.cmdsn,
                               conn.expstatsn,
                               cdb10(0x2a, REOPEN_LBA + i * 8,
                                     len(data) // BLOCK), imm=True))
        return itt

    writes = {}
    for i in range(win):
        data = os.urandom(4096)
        itt = send_imm_write(i, data)
        writes[itt] = (conn.recv_expect(OP_R2T, itt), data)
    itt = send_imm_write(win, bytes(4096))
    rsp = conn.recv_pdu()
    expect(rsp is not None and rsp.op == OP_SCSI_RSP and rsp.itt == itt and
           rsp.response == 0 and rsp.scsi_status == 0x28,
           f'immediate write {win + 1} with a window of {win} held: '
           f'expected TASK SET FULL, got {rsp}')
    for r2t, data in writes.values():
        conn.answer_r2t(r2t, data)
    for rsp in conn.finish_writes({i: w[1] for i, w in writes.items()}).values():
        good(rsp)
    data = os.urandom(4096)
    itt = send_imm_write(0, data)
    conn.answer_r2t(conn.recv_expect(OP_R2T, itt), data)
    good(conn.finish_writes({itt: data})[itt],
         'an immediate write once the others were answered')
    conn.logout()
    return (f'{win} immediate writes held the window of {win}; the next '
            f'TASK SET FULL; one more through once they were answered')


# The bound of a connection's send queue, in PDUs (IXT_CONN_TX_MAX_PDUS),
# and what may go past it in the cases below: the Reject that ends the
# connection, NOP-Ins of the watchdog.
TX_MAX_PDUS = 256
TX_SLACK = 4


def queued_peak(tsih, stop, peak):
    """Until @stop is set or the session @tsih is gone, keeps in @peak[0]
    the most PDUs its connections had queued (debugfs "sessions")."""
    while not stop.is_set():
        try:
            peak[0] = max(peak[0], sess_row(tsih)['queued'])
        except (Fail, OSError, ValueError):
            return
        stop.wait(0.01)


@case
def case_ffp_r2t_queue_bound(ctx):
    """R2Ts keep to the send queue's bound. MaxBurstLength 512 (an R2T
    for every 512 bytes), a 4 KiB receive buffer and TCP send buffers of
    4 KiB (small_send_buffers()): four 1 MiB writes get their first R2T,
    then the initiator reads nothing more and answers R2T after R2T
    blind, a 512-byte Data-Out each, their Target Transfer Tags foretold
    from the first (the run's entry counts up in the high half). The
    target reads Data-Out even with its send queue full, so that writes
    end, but the R2Ts it earns wait for room: the PDUs queued (debugfs
    "sessions") stay within the bound, 256, and a Reject or NOP-In more;
    the first Data-Out for an R2T put off, which the target never sent,
    is a protocol error that ends the connection. Before, every burst
    queued an R2T past the bound: up to one per 512 bytes of the writes
    in flight."""
    keys = op_keys(InitialR2T='Yes', ImmediateData='No', MaxBurstLength='512',
                   FirstBurstLength='512')
    size, burst = 1 << 20, 512
    with small_send_buffers():
        conn = login_checked(unread(ctx), ctx.target, keys,
                             MaxBurstLength='512')
        no_data(conn, bytes(6))         # a unit attention, if any
        first = []
        for i in range(4):
            itt = conn.send_write(POOL_LBA + i * (size // BLOCK), bytes(size))
            r2t = conn.recv_expect(OP_R2T, itt)
            expect(r2t.w40 == 0 and r2t.w44 == burst,
                   f'R2T offset {r2t.w40} length {r2t.w44}')
            first.append(r2t)
        stop, peak = threading.Event(), [0]
        watch = threading.Thread(target=queued_peak,
                                 args=(conn.tsih, stop, peak))
        watch.start()
        sent, closed, end = 0, False, time.monotonic() + 60
        chunk = b'd' * burst
        try:
            for run in range(size // burst):
                for r2t in first:
                    ttt = ((((r2t.ttt >> 16) + run) & 0xffff) << 16 |
                           r2t.ttt & 0xffff)
                    conn.send_pdu(data_out(r2t.itt, ttt, conn.expstatsn, 0,
                                           run * burst), chunk)
                    sent += 1
                if time.monotonic() > end:
                    break
            time.sleep(1)               # the last ones read, R2Ts queued
        except OSError:
            closed = True
        finally:
            stop.set()
            watch.join()
        conn.close()
    expect(peak[0] <= TX_MAX_PDUS + TX_SLACK,
           f'{sent} Data-Outs of {burst} bytes answered R2Ts blind: '
           f'{peak[0]} PDUs queued, past the bound of {TX_MAX_PDUS}')
    return (f'{sent} Data-Outs answered R2Ts blind: at most {peak[0]} PDUs '
            f'queued; {"closed" if closed else "still open"}')


@case
def case_ffp_write_read_digests(ctx):
    """ffp_write_read with header and data digests (CRC32C)."""
    keys = op_keys(HeaderDigest='CRC32C', DataDigest='CRC32C')
    return case_ffp_write_read(ctx, keys) + ' with CRC32C digests'


def write_read(ctx, keys, want, size, **how):
    """A write of @size bytes sent as @how says (see Connection.write()),
    under @keys whose outcome @want checks, then read back equal."""
    conn = logged_in(ctx, keys, **want)
    data = os.urandom(size)
    good(conn.write(UNORDERED_LBA, data, **how))
    read_back(conn, UNORDERED_LBA, data)
    conn.logout()
    return conn


@case
def case_ffp_unordered_reverse(ctx):
    """DataPDUInOrder=No: a 128 KiB WRITE, the Data-Outs of each R2T sent
    last first: it succeeds and reads back equal."""
    write_read(ctx, UNORDERED, {'DataPDUInOrder': 'No'}, 131072, order=reverse)
    return '128 KiB, each R2T answered backwards, read back equal'


@case
def case_ffp_unordered_unsol(ctx):
    """DataPDUInOrder=No, InitialR2T=No: a 160 KiB WRITE with 4 KiB of
    immediate data, its unsolicited and solicited Data-Outs in shuffled
    order: it succeeds and reads back equal."""
    write_read(ctx, UNSOL_UNORDERED,
               {'DataPDUInOrder': 'No', 'InitialR2T': 'No', 'ImmediateData': 'Yes'},
               163840, imm=4096, unsol=True, order=interleaved)
    return '160 KiB, unsolicited and solicited data shuffled, read back equal'


@case
def case_ffp_unordered_sequences(ctx):
    """DataPDUInOrder=No, DataSequenceInOrder=No, MaxOutstandingR2T=4: a
    256 KiB WRITE whose outstanding R2Ts are answered latest first, each
    backwards: it succeeds and reads back equal."""
    conn = write_read(ctx, SEQ_UNORDERED,
                      {'DataPDUInOrder': 'No', 'DataSequenceInOrder': 'No',
                       'MaxOutstandingR2T': '4'},
                      262144, order=reverse, latest_first=True)
    expect(conn.r2t_batch > 1, 'never more than one R2T outstanding')
    return (f'256 KiB, up to {conn.r2t_batch} R2Ts answered latest first, '
            'read back equal')


def line_size():
    """The module's cache-line size."""
    with open('/sys/module/iscsi_xt/parameters/line_size') as f:
        return int(f.read())


def runs_write(ctx, ooo):
    """Five cache lines written with 4 KiB of immediate data (half of
    FirstBurstLength in 4 KiB lines), unsolicited data to half a line
    (FirstBurstLength) and bursts of a line and a half (MaxBurstLength),
    all in Data-Outs of 3000 bytes: the first run ends
    at a line boundary, the second in the middle of a line (its last
    piece short), the third starts there; Data-Outs straddle lines. Each
    R2T must ask for one whole burst; the data reads back equal. With
    lines over 32 KiB the sizes are those of 32 KiB lines."""
    lines = line_size()
    # Lines over 32 KiB hold the whole write: the bursts stay 48 KiB.
    line = min(lines, 32768)
    first, burst, size = line // 2, line + line // 2, 5 * line
    keys = {'InitialR2T': 'No', 'ImmediateData': 'Yes',
            'FirstBurstLength': str(first), 'MaxBurstLength': str(burst)}
    if ooo:
        keys['DataPDUInOrder'] = 'No'
    conn = logged_in(ctx, op_keys(**keys), **keys)
    conn.dout_step = 3000
    data = os.urandom(size)
    good(conn.write(UNORDERED_LBA, data, imm=min(4096, first // 2),
                    unsol=True, order=interleaved if ooo else in_order))
    want = [(off, min(burst, size - off)) for off in range(first, size, burst)]
    expect(conn.r2t_log == want, f'R2Ts {conn.r2t_log}, expected {want}')
    read_back(conn, UNORDERED_LBA, data)
    conn.logout()
    return (f'{size // 1024} KiB in {lines // 1024} KiB lines: R2Ts of whole '
            f'{burst // 1024} KiB bursts, 3000-byte Data-Outs across lines, '
            'read back equal')


@case
def case_ffp_runs_across_lines(ctx):
    """R2Ts over runs of table entries, Data-Outs in order."""
    return runs_write(ctx, False)


@case
def case_ffp_runs_across_lines_unordered(ctx):
    """R2Ts over runs of table entries, DataPDUInOrder=No, each sequence's
    Data-Outs interleaved."""
    return runs_write(ctx, True)


@case
def case_ffp_cmdsn_reorder_writes(ctx, keys=None, want=None, imm=0, unsol=False):
    """Two 32 KiB WRITEs, CmdSN n+1 sent before n: the later one waits
    (nothing comes for it), then both succeed, ExpCmdSN covers both, and
    both read back equal (RFC 7143 section 3.2.2.1)."""
    conn = logged_in(ctx, keys, **(want or {}))
    n, size = conn.cmdsn, 32768
    first, second = os.urandom(size), os.urandom(size)
    late = conn.send_write(REORDER_LBA + size // BLOCK, second, imm, unsol,
                           cmdsn=n + 1)
    pdu = conn.poll_pdu(0.5)
    expect(pdu is None, f'before CmdSN 0x{n:08x} came, {pdu}')
    early = conn.send_write(REORDER_LBA, first, imm, unsol, cmdsn=n)
    conn.cmdsn = (n + 2) & 0xffffffff
    conn.timeout = 5.0
    try:
        rsps = conn.finish_writes({early: first, late: second})
    except Fail as e:
        raise Fail(f'{e} (0x{late:08x}: CmdSN n+1, sent first; '
                   f'0x{early:08x}: CmdSN n)') from None
    good(rsps[late], 'the write sent first, CmdSN n+1')
    good(rsps[early], 'the write sent second, CmdSN n')
    read_back(conn, REORDER_LBA, first + second)
    conn.nop()
    conn.logout()
    return 'held until CmdSN n came, both written and read back equal'


@case
def case_ffp_cmdsn_reorder_imm(ctx):
    """ffp_cmdsn_reorder_writes with 4 KiB of immediate data in each
    command (InitialR2T=No, F set: no unsolicited Data-Out)."""
    return case_ffp_cmdsn_reorder_writes(
        ctx, UNSOL, {'InitialR2T': 'No', 'ImmediateData': 'Yes'}, 4096, False)


@case
def case_ffp_cmdsn_reorder_unsol(ctx):
    """ffp_cmdsn_reorder_writes with 4 KiB of immediate data and unsolicited
    Data-Outs up to FirstBurstLength (16 KiB), which follow each command
    at once, its CmdSN in order or not."""
    return case_ffp_cmdsn_reorder_writes(
        ctx, UNSOL, {'InitialR2T': 'No', 'ImmediateData': 'Yes'}, 4096, True)


@case
def case_ffp_tmf(ctx):
    """A TMF Request (ABORT TASK of no task) is answered; the session goes on."""
    conn = logged_in(ctx)
    itt = conn.next_itt()
    conn.send_pdu(tmf_req(1, itt, 0x4242, conn.cmdsn, conn.expstatsn, conn.cmdsn))
    rsp = conn.recv_expect(OP_TMF_RSP, itt)
    conn.nop()
    conn.logout()
    return f'TMF Response {rsp.response}'


@case
def case_ffp_abort_waiting_write(ctx):
    """ABORT TASK of a write whose R2T is unanswered: Function complete,
    no SCSI Response for the task (the next PDU answers a NOP-Out)."""
    conn, r2t = write_r2t(ctx)
    abort_task(conn, r2t.itt, (conn.cmdsn - 1) & 0xffffffff)
    conn.nop()
    conn.logout()
    return 'Function complete, no response for the task'


@case
def case_ffp_abort_dup_itt(ctx):
    """Eight 4 KiB writes that all carry one ITT (RFC 7143 section 11.1
    says an initiator must not; the target accepts them, as LIO does),
    their R2Ts unanswered, then an immediate ABORT TASK of that ITT with
    the fourth's CmdSN as RefCmdSN: it aborts one task, not eight (it
    aborted every write with the ITT, and the seven the target core did
    not mark each looked for the mark every jiffy for 5 s, then were
    answered TASK ABORTED). The core picks a task by its tag alone, maybe
    another of the eight: Function complete, at most two writes aborted
    (TASK ABORTED or no response), the others GOOD once their R2Ts are
    answered, and exactly the GOOD ones on the LUN."""
    conn = logged_in(ctx, op_keys(InitialR2T='Yes', ImmediateData='No'))
    no_data(conn, bytes(6))             # a unit attention, if any
    itt, blocks = conn.next_itt(), 4096 // BLOCK
    datas, sns = [os.urandom(4096) for _ in range(8)], []
    for i, data in enumerate(datas):
        sns.append(conn.take_cmdsn())
        conn.send_pdu(scsi_cmd(F_WRITE | F_FINAL, itt, len(data), sns[-1],
                               conn.expstatsn,
                               cdb10(0x2a, DUP_ITT_LBA + i * blocks, blocks)))
    r2ts = [conn.recv_expect(OP_R2T, itt) for _ in datas]
    tmf = conn.next_itt()
    conn.send_pdu(tmf_req(1, tmf, itt, conn.cmdsn, conn.expstatsn, sns[3]))
    for r2t, data in zip(r2ts, datas):
        conn.answer_r2t(r2t, data)
    statuses, answer = [], None
    end = time.monotonic() + 8 * SLOW
    while (answer is None or len(statuses) < 7) and time.monotonic() < end:
        pdu = conn.poll_pdu(max(0.0, end - time.monotonic()))
        if pdu is None:
            break
        if pdu.op == OP_TMF_RSP and pdu.itt == tmf:
            answer = pdu.response
            continue
        expect(pdu.op == OP_SCSI_RSP and pdu.itt == itt,
               f'expected the writes\' SCSI Responses, got {pdu}')
        statuses.append(pdu.scsi_status)
    gone = statuses.count(0x40) + 8 - len(statuses)
    expect(answer == 0, f'TMF Response {answer}, expected 0 (Function complete)')
    expect(set(statuses) <= {0x00, 0x40} and gone <= 2,
           f'statuses {statuses} of the eight writes: {gone} aborted, '
           'expected one or two')
    landed = sum(conn.read(DUP_ITT_LBA + i * blocks, blocks)[1] == data
                 for i, data in enumerate(datas))
    good_n = statuses.count(0x00)
    expect(landed == good_n, f'{landed} writes on the LUN, {good_n} GOOD')
    conn.nop()
    conn.logout()
    return f'{good_n} of 8 GOOD and on the LUN, {gone} aborted'


def reset_ua_taken(conn):
    """TEST UNIT READY after a LOGICAL UNIT RESET: its unit attention
    (ASC 0x29), which it takes."""
    itt = conn.next_itt()
    conn.send_pdu(scsi_cmd(F_FINAL, itt, 0, conn.take_cmdsn(),
                           conn.expstatsn, bytes(6)))
    rsp = conn.recv_expect(OP_SCSI_RSP, itt)
    expect(rsp.scsi_status == 0x02 and rsp.sense[2] & 0x0f == 0x06 and
           rsp.sense[12] == 0x29,
           f'after the reset, TEST UNIT READY: {rsp}, sense {rsp.sense.hex()}')


@case
def case_ffp_abort_during_reset(ctx):
    """An immediate LOGICAL UNIT RESET while a write waits for its
    Data-Out, then at once an immediate ABORT TASK of that write: the
    reset drains the pending ABORT TASK, which must still get its TMF
    Response (it got none: the initiator waits until it gives the session
    up); then the Data-Out, and the session goes on."""
    conn, r2t = write_r2t(ctx)
    reset, abort = conn.next_itt(), conn.next_itt()
    conn.send_pdu(tmf_req(5, reset, RESERVED_TAG, conn.cmdsn,
                          conn.expstatsn))
    conn.send_pdu(tmf_req(1, abort, r2t.itt, conn.cmdsn, conn.expstatsn,
                          (conn.cmdsn - 1) & 0xffffffff))
    time.sleep(0.5)
    conn.send_pdu(*dout(conn, r2t, 0, r2t.w44, final=True))
    seen = {}
    end = time.monotonic() + 15
    while len(seen) < 2 and time.monotonic() < end:
        pdu = conn.poll_pdu(max(0.0, end - time.monotonic()))
        if pdu is None:
            break
        if pdu.op == OP_TMF_RSP:
            seen[pdu.itt] = pdu.response
    expect(reset in seen and abort in seen,
           f'TMF Responses {seen}: expected both LUN RESET 0x{reset:08x} '
           f'and ABORT TASK 0x{abort:08x}')
    expect(seen[reset] == 0, f'LUN RESET: response {seen[reset]}')
    # The reset's unit attention, which the cases after this one must
    # not meet.
    reset_ua_taken(conn)
    conn.nop()
    conn.logout()
    return (f'LUN RESET response {seen[reset]}, ABORT TASK response '
            f'{seen[abort]}; the unit attention of the reset')


@case
def case_ffp_reset_other_nexus(ctx):
    """A LOGICAL UNIT RESET from another session (another ISID: another
    I_T nexus) while a write of the first waits for Data-Out that comes
    as a trickle, 512 bytes every 0.5 s, within dataout_timeout: the
    target core marks the write aborted and waits for it, so the fabric
    must stop waiting for its data: the reset's TMF Response comes within
    5 s (before, only once the write's data was all in); the write is
    answered TASK ABORTED or not at all; the first session goes on once
    it has sent what its R2T asked for; the LUN unchanged."""
    def body():
        a, r2t = write_r2t(ctx, lba=BAD_LBA, blocks=BAD_BLOCKS)
        b = connect(ctx)
        b.isid ^= 0x5a
        login_checked(b, ctx.target)
        reset = b.next_itt()
        b.send_pdu(tmf_req(5, reset, RESERVED_TAG, b.cmdsn, b.expstatsn))
        sent, rsp, t0 = 0, None, time.monotonic()
        while rsp is None and time.monotonic() < t0 + 5:
            a.send_pdu(*dout(a, r2t, sent, BLOCK, sent // BLOCK))
            sent += BLOCK
            rsp = b.poll_pdu(0.5)
        took = time.monotonic() - t0
        expect(rsp is not None and rsp.op == OP_TMF_RSP and rsp.itt == reset,
               f'no TMF Response to the LUN RESET {took:.1f} s on, '
               f'{sent} bytes of the write trickled: {rsp}')
        expect(rsp.response == 0, f'LUN RESET: response {rsp.response}')
        datasn = sent // BLOCK
        while sent < r2t.w44:
            n = min(a.target_mrdsl, r2t.w44 - sent)
            a.send_pdu(*dout(a, r2t, sent, n, datasn,
                             final=sent + n == r2t.w44))
            sent += n
            datasn += 1
        pdu = a.poll_pdu(2)
        expect(pdu is None or (pdu.op == OP_SCSI_RSP and pdu.itt == r2t.itt and
                               pdu.scsi_status == 0x40),
               f'for the write the reset aborted: {pdu}')
        reset_ua_taken(a)
        a.nop()
        b.nop()
        a.logout()
        b.logout()
        return (f'TMF Response after {took:.1f} s; the write '
                f'{"answered TASK ABORTED" if pdu else "not answered"}')
    return lun_unchanged(ctx, body)


def abort_held(ctx, keys, want, function):
    """A WRITE(10) with CmdSN n+1 sent before n is held; an immediate
    @function (ABORT TASK naming it, or LOGICAL UNIT RESET) is answered
    Function complete at once, ExpCmdSN still n; a NOP-Out with CmdSN n
    then closes the hole: its NOP-In is the next PDU, ExpCmdSN n+2, and
    the write never gets an R2T or a response. After the reset, TEST UNIT
    READY finds its unit attention (ASC 0x29)."""
    conn = logged_in(ctx, keys, **want)
    n = conn.cmdsn
    n1, n2 = (n + 1) & 0xffffffff, (n + 2) & 0xffffffff
    if keys:
        itt = conn.send_write(BAD_LBA, os.urandom(BAD_BLOCKS * BLOCK), 4096,
                              True, cmdsn=n1)
    else:
        itt = conn.next_itt()
        conn.send_pdu(scsi_cmd(F_FINAL | F_WRITE, itt, BAD_BLOCKS * BLOCK,
                               n1, conn.expstatsn,
                               cdb10(0x2a, BAD_LBA, BAD_BLOCKS)))
    pdu = conn.poll_pdu(0.3)
    expect(pdu is None, f'for the write held behind CmdSN 0x{n:08x}: {pdu}')
    t = conn.next_itt()
    conn.send_pdu(tmf_req(function, t, itt, n2, conn.expstatsn, n1))
    rsp = conn.recv_expect(OP_TMF_RSP, t)
    expect(rsp.response == 0 and rsp.expcmdsn == n,
           f'function {function}: TMF Response {rsp.response}, ExpCmdSN '
           f'0x{rsp.expcmdsn:08x}; expected 0 and 0x{n:08x}')
    nop = conn.next_itt()
    conn.send_pdu(nop_out(nop, n, conn.expstatsn))
    pdu = conn.recv_pdu()
    expect(pdu is not None and pdu.op == OP_NOP_IN and pdu.itt == nop and
           pdu.expcmdsn == n2,
           f'after the hole closed: {pdu}, ExpCmdSN '
           f'0x{pdu.expcmdsn if pdu else 0:08x}; expected the NOP-In, '
           f'0x{n2:08x}')
    pdu = conn.poll_pdu(0.3)
    expect(pdu is None, f'for the aborted write: {pdu}')
    conn.cmdsn = n2
    if function == 5:
        reset_ua_taken(conn)
    conn.nop()
    conn.logout()
    return f'function {function}: Function complete, the write dropped'


@case
def case_ffp_abort_held(ctx):
    """ABORT TASK, then LOGICAL UNIT RESET, of a write held behind a CmdSN
    hole (RFC 7143 section 11.5.1): see abort_held(); the LUN unchanged."""
    return lun_unchanged(ctx, lambda: '; '.join(
        abort_held(ctx, None, {}, f) for f in (1, 5)))


@case
def case_ffp_abort_held_unsol(ctx):
    """ffp_abort_held with 4 KiB of immediate data and unsolicited
    Data-Outs up to FirstBurstLength, which land in the held write."""
    return lun_unchanged(ctx, lambda: '; '.join(
        abort_held(ctx, UNSOL, {'InitialR2T': 'No'}, f) for f in (1, 5)))


@case
def case_ffp_abort_task_set(ctx):
    """ABORT TASK SET and CLEAR TASK SET, which the target core does not
    carry out, are answered "not supported" (5), TARGET WARM RESET
    "rejected" (255), and they abort nothing: a write held behind a CmdSN
    hole when they come runs once the hole closes, and reads back."""
    conn = logged_in(ctx)
    data = os.urandom(8 * BLOCK)
    for function, want in ((2, 5), (4, 5), (6, 255)):
        n = conn.cmdsn
        late = conn.send_write(REORDER_LBA, data, cmdsn=(n + 1) & 0xffffffff)
        t = conn.next_itt()
        conn.send_pdu(tmf_req(function, t, RESERVED_TAG,
                              (n + 2) & 0xffffffff, conn.expstatsn))
        rsp = conn.recv_expect(OP_TMF_RSP, t)
        expect(rsp.response == want, f'function {function}: TMF Response '
               f'{rsp.response}, expected {want}')
        early = conn.send_write(REORDER_LBA + 8, data, cmdsn=n)
        conn.cmdsn = (n + 2) & 0xffffffff
        rsps = conn.finish_writes({early: data, late: data})
        good(rsps[late], f'function {function}: the held write')
        good(rsps[early], f'function {function}: the write that closed the hole')
    read_back(conn, REORDER_LBA, data + data)
    conn.nop()
    conn.logout()
    return 'not supported or rejected, the held writes run'


@case
def case_ffp_abort_never_received(ctx):
    """ABORT TASK of a task that never came (RFC 7143 section 11.5.1):
    RefCmdSN n, in the window and before the function's CmdSN n+1, is
    taken as received: Function complete with ExpCmdSN n+1, and a late
    NOP-Out with CmdSN n is dropped. A RefCmdSN before the window gets
    "Task does not exist"."""
    conn = logged_in(ctx)
    n = conn.cmdsn
    n1 = (n + 1) & 0xffffffff
    t = conn.next_itt()
    conn.send_pdu(tmf_req(1, t, 0x4343, n1, conn.expstatsn, n))
    rsp = conn.recv_expect(OP_TMF_RSP, t)
    expect(rsp.response == 0 and rsp.expcmdsn == n1,
           f'TMF Response {rsp.response}, ExpCmdSN 0x{rsp.expcmdsn:08x}; '
           f'expected 0 and 0x{n1:08x}')
    conn.send_pdu(nop_out(conn.next_itt(), n, conn.expstatsn))
    conn.cmdsn = n1
    conn.nop()
    t = conn.next_itt()
    conn.send_pdu(tmf_req(1, t, 0x4444, conn.cmdsn, conn.expstatsn,
                          (conn.cmdsn - 5) & 0xffffffff))
    rsp = conn.recv_expect(OP_TMF_RSP, t)
    expect(rsp.response == 1, f'RefCmdSN before the window: TMF Response '
           f'{rsp.response}, expected 1')
    conn.nop()
    conn.logout()
    return 'CmdSN taken as received, its late copy dropped; Task does not exist before the window'


DIGESTS = op_keys(HeaderDigest='CRC32C', DataDigest='CRC32C',
                  ImmediateData='Yes')


def digest_errors(ctx):
    """The target's count of digest errors (iscsi_sess_err), read from
    configfs: the client runs on the target's machine in the VM."""
    path = (f'/sys/kernel/config/target/iscsi/{ctx.target}/'
            'fabric_statistics/iscsi_sess_err/digest_errors')
    with open(path) as f:
        return int(f.read())


@case
def case_ffp_header_digest_error(ctx):
    """A NOP-Out whose header digest is wrong: the target answers nothing
    and closes the connection (RFC 7143 section 7.8, ErrorRecoveryLevel
    0: not even the PDU's length can be trusted), and counts a digest
    error."""
    before = digest_errors(ctx)
    conn = logged_in(ctx, DIGESTS, HeaderDigest='CRC32C')
    conn.send_pdu(nop_out(conn.next_itt(), conn.take_cmdsn(), conn.expstatsn),
                  corrupt='header')
    conn.expect_closed(5.0)
    after = digest_errors(ctx)
    expect(after == before + 1, f'digest errors {before}, then {after}')
    return 'closed without an answer, one digest error counted'


def data_digest_error(ctx, solicited):
    """A WRITE of BAD_BLOCKS whose immediate data, or whose last Data-Out
    for its first R2T, has a wrong data digest: Reject 0x02 with the PDU's
    header, then the connection closes; one digest error counted."""
    before = digest_errors(ctx)
    conn = logged_in(ctx, DIGESTS, DataDigest='CRC32C', ImmediateData='Yes')
    data, itt = os.urandom(BAD_BLOCKS * BLOCK), conn.next_itt()
    hdr = scsi_cmd(F_FINAL | F_WRITE, itt, len(data), conn.take_cmdsn(),
                   conn.expstatsn, cdb10(0x2a, BAD_LBA, BAD_BLOCKS))
    if solicited:
        conn.send_pdu(hdr)
        r2t = conn.recv_expect(OP_R2T, itt)
        step = conn.target_mrdsl
        offs = list(range(r2t.w40, r2t.w40 + r2t.w44, step))
        for sn, off in enumerate(offs):
            last = sn == len(offs) - 1
            n = min(step, r2t.w40 + r2t.w44 - off)
            sent = conn.send_pdu(data_out(itt, r2t.ttt, conn.expstatsn, sn, off,
                                          final=last), data[off:off + n],
                                 corrupt='data' if last else '')
    else:
        sent = conn.send_pdu(hdr, data[:4096], corrupt='data')
    seen = rejected(conn, sent, 0x02, closed=True)
    after = digest_errors(ctx)
    expect(after == before + 1, f'digest errors {before}, then {after}')
    return f'{"Data-Out" if solicited else "immediate data"}: {seen}'


@case
def case_ffp_data_digest_error(ctx):
    """Data digest errors (RFC 7143 section 7.8) in a write's immediate
    data and in its solicited Data-Out: see data_digest_error(); neither
    write reaches the LUN."""
    return lun_unchanged(ctx, lambda: '; '.join(
        data_digest_error(ctx, s) for s in (False, True)))


@case
def case_ffp_dataout_timeout(ctx):
    """A write whose R2T is never answered: the connection closes after
    the ACL's dataout_timeout (3 s in demo mode), ErrorRecoveryLevel 0."""
    conn, _ = write_r2t(ctx)
    return closed_after(conn, time.monotonic(), 2.5, 8)


def still_open(start, what):
    return Fail(f'still open {time.monotonic() - start:.1f} s on, {what}')


@case
def case_ffp_dataout_timeout_per_write(ctx):
    """An 8 MiB write whose R2T is never answered, while 4 KiB writes on
    the same connection complete one after the other (one every 0.1 s):
    the connection closes after the ACL's dataout_timeout (3 s in demo
    mode) all the same, ErrorRecoveryLevel 0. The timeout is the write's:
    the progress of the others does not keep it waiting, its lines pinned
    (a LUN reset from another session would wait for it as long)."""
    conn = logged_in(ctx, op_keys(InitialR2T='Yes', ImmediateData='No'))
    no_data(conn, bytes(6))             # a unit attention, if any
    big = conn.send_write(0, bytes(8 << 20))
    conn.recv_expect(OP_R2T, big)
    start, done = time.monotonic(), 0
    try:
        while time.monotonic() < start + 15:
            data = os.urandom(4096)
            itt = conn.send_write(STREAM_LBA, data)
            good(conn.finish_writes({itt: data})[itt], f'4 KiB write {done}')
            done += 1
            time.sleep(0.1)
    except (Fail, OSError) as e:
        took = time.monotonic() - start
        expect(2.5 <= took <= 8, f'ended after {took:.1f} s ({e}), '
               'expected closed after 2.5..8 s')
        expect(done > 0, f'closed after {took:.1f} s, no 4 KiB write done')
        return f'closed after {took:.1f} s, {done} 4 KiB writes done meanwhile'
    raise still_open(start, f'{done} 4 KiB writes done meanwhile, the 8 MiB '
                     "write's R2T unanswered")


def closes_within(conn, start, low, high):
    """@conn closes @low to @high seconds after @start, what comes
    meanwhile read (pings answered); returns the time it took and the
    PDUs read."""
    seen = []
    while True:
        try:
            pdu = conn.poll_pdu(max(start + high + 10 - time.monotonic(), 0))
        except (Fail, OSError):         # closed
            break
        if pdu is None:
            raise still_open(start, f'PDUs read: {seen}')
        seen.append(pdu)
    took = time.monotonic() - start
    expect(low <= took <= high,
           f'closed after {took:.1f} s, expected {low}..{high} s')
    return took, seen


@table({
    'ffp_unsol_timeout': ('to LUN 0, which waits for that data', 0),
    'ffp_unsol_timeout_refused': ('to LUN 7, not mapped: answered CHECK '
                                  'CONDITION at once, it still expects the '
                                  'data', 7 << 48),
})
def unsol_timeout(ctx, lun):
    """InitialR2T=No, ImmediateData=No, FirstBurstLength 64 KiB: a 64 KiB
    write {what}, its unsolicited Data-Out never sent (F clear, nothing
    solicited, so no R2T). The connection closes after the ACL's
    dataout_timeout (3 s in demo mode), ErrorRecoveryLevel 0: a write
    that waits for unsolicited data is timed as one that waits for the
    data of its R2Ts, whose slot and lines it holds as long."""
    conn = logged_in(ctx, op_keys(InitialR2T='No', ImmediateData='No',
                                  FirstBurstLength='65536'),
                     InitialR2T='No', FirstBurstLength='65536')
    no_data(conn, bytes(6))             # a unit attention, if any
    itt = conn.next_itt()
    conn.send_pdu(scsi_cmd(F_WRITE, itt, 65536, conn.take_cmdsn(),
                           conn.expstatsn, cdb10(0x2a, STREAM_LBA, 128),
                           lun=lun))
    took, seen = closes_within(conn, time.monotonic(), 2.5, 8)
    rsps = [p for p in seen if p.op == OP_SCSI_RSP and p.itt == itt]
    if lun:
        expect(len(rsps) == 1 and rsps[0].scsi_status == 0x02,
               f'the write to an unmapped LUN: {seen}, expected CHECK '
               'CONDITION')
    else:
        expect(not rsps, f'the write was answered: {rsps}')
    return f'closed after {took:.1f} s' + (', the write answered CHECK '
                                          'CONDITION first' if lun else '')


@case
def case_ffp_immediate_data_stall(ctx):
    """A 1 MiB write whose SCSI Command PDU stops inside its immediate
    data (ImmediateData=Yes; 1000 of its 4096 bytes sent): the 32 lines
    it took at its header are held, and the connection closes after the
    ACL's dataout_timeout (3 s in demo mode), which gives them back.
    Before, only the NOP-In timeouts bounded it (45 s in demo mode; never
    with nopin_timeout 0)."""
    conn = logged_in(ctx, op_keys(ImmediateData='Yes'))
    no_data(conn, bytes(6))             # a unit attention, if any
    lines = pool_free_settled(pool_field('lines'))
    hdr = scsi_cmd(F_FINAL | F_WRITE, conn.next_itt(), 1 << 20,
                   conn.take_cmdsn(), conn.expstatsn,
                   cdb10(0x2a, STREAM_LBA, (1 << 20) // BLOCK))
    conn.send(hdr[:5] + (4096).to_bytes(3, 'big') + hdr[8:] + b'i' * 1000)
    start = time.monotonic()
    time.sleep(1)
    held = lines - pool_free()
    expect(held >= 32, f'{held} lines held by the stalled write, expected 32')
    took = closed_after(conn, start, 2.5, 8)
    free = pool_free_settled(lines)
    expect(free == lines, f'{lines - free} lines still held once closed')
    return f'{held} lines held; {took}, every line back'


@case
def case_ffp_cmdsn_hole_timeout(ctx):
    """A CmdSN hole left open, a 64 KiB write held behind it (its lines
    taken at its header), the NOP-In pings answered: the connection
    closes once the hole has been open for nopin_timeout +
    nopin_response_timeout (45 s in demo mode), ErrorRecoveryLevel 0."""
    conn = logged_in(ctx)
    conn.take_cmdsn()                   # the hole
    conn.send_write(0, b'h' * 65536)
    start = time.monotonic()
    try:
        pdu = conn.poll_pdu(60)         # the pings answered meanwhile
    except (Fail, OSError):             # closed
        took = time.monotonic() - start
        expect(44 <= took <= 52, f'closed after {took:.1f} s, expected 44..52 s')
        return f'closed after {took:.1f} s'
    raise Fail(f'still open 60 s after the hole opened: {pdu}')


@case
def case_ffp_cmdsn_gap(ctx):
    """After a CmdSN gap (a Reject), the command past the gap waits for it,
    and once it is filled ExpCmdSN acknowledges both (RFC 7143 4.2.2.1)."""
    conn = logged_in(ctx)
    gap = conn.cmdsn
    conn.send_pdu(scsi_cmd(F_FINAL | F_WRITE, conn.next_itt(), 8192, gap,
                           conn.expstatsn, cdb10(0x2a, 0, 16)), b'i' * 512)
    conn.recv_expect(OP_REJECT)
    after = conn.next_itt()
    conn.send_pdu(nop_out(after, gap + 1, conn.expstatsn))
    conn.send_pdu(nop_out(conn.next_itt(), gap, conn.expstatsn))
    first, second = conn.recv_expect(OP_NOP_IN), conn.recv_expect(OP_NOP_IN)
    conn.send_pdu(nop_out(conn.next_itt(), gap + 2, conn.expstatsn))
    third = conn.recv_expect(OP_NOP_IN)
    seen = ', '.join(f'0x{p.expcmdsn:08x}' for p in (first, second, third))
    expect(first.itt != after and third.expcmdsn == gap + 3,
           f'answers {"out of" if first.itt == after else "in"} CmdSN order, '
           f'ExpCmdSN {seen}; expected the last 0x{gap + 3:08x}')
    return 'in CmdSN order'


@case
def case_ffp_unsol_reject_cmdsn(ctx):
    """A command rejected for its unsolicited data (F=0 when its immediate
    data fills FirstBurstLength) does not take its CmdSN either (RFC 7143
    section 7.3). Needs a TPG with InitialR2T=No."""
    conn = logged_in(ctx, op_keys(InitialR2T='No', ImmediateData='Yes',
                                  FirstBurstLength='4096'), InitialR2T='No')
    hdr = scsi_cmd(F_WRITE, conn.next_itt(), 16384, conn.cmdsn, conn.expstatsn,
                   cdb10(0x2a, 0, 32))
    return rejected(conn, conn.send_pdu(hdr, b'i' * 4096), REASON_PROTOCOL_ERROR,
                    closed=False)


# Several connections per session (the TPG's MaxConnections is 2).
MCS = op_keys(MaxConnections='2')
MCS_UNSOL = op_keys(MaxConnections='2', InitialR2T='No', ImmediateData='Yes',
                    FirstBurstLength='16384')
MCS_LBA = 2304          # two 32 KiB writes


def data_in_sizes(conn, lba, blocks):
    pdus = []
    status, _ = conn.read(lba, blocks, pdus)
    expect(status == 0, f'read status 0x{status:02x}')
    return [len(p.data) for p in pdus]


@case
def case_ffp_text_keys(ctx):
    """Text Requests in full feature phase: keys of the login only are
    answered Reject, unknown and X- keys NotUnderstood, declarations
    (MaxRecvDataSegmentLength, InitiatorAlias) not at all; SendTargets=
    names this target; a new MaxRecvDataSegmentLength sizes the Data-In
    PDUs from then on."""
    conn = logged_in(ctx)
    sizes = data_in_sizes(conn, 0, 128)
    expect(max(sizes) == 8192, f'Data-In PDUs of {set(sizes)} bytes at first')
    keys, _ = conn.text([('MaxRecvDataSegmentLength', '4096'),
                         ('InitiatorAlias', 'raw-ffp'),
                         ('HeaderDigest', 'None'), ('MaxBurstLength', '65536'),
                         ('X-org.example.Ffp', '1'), ('FooKey', '1'),
                         ('SendTargets', '')])
    got = dict(keys)
    want = {'HeaderDigest': 'Reject', 'MaxBurstLength': 'Reject',
            'X-org.example.Ffp': 'NotUnderstood', 'FooKey': 'NotUnderstood'}
    expect({k: got.get(k) for k in want} == want, f'answers {keys}')
    expect(got.get('TargetName') == ctx.target, f'SendTargets= gave {keys}')
    expect('TargetAddress' in got, f'SendTargets= gave no address: {keys}')
    extra = set(got) - set(want) - {'TargetName', 'TargetAddress'}
    expect(not extra, f'unexpected answers {extra}')
    sizes = data_in_sizes(conn, 0, 128)
    expect(max(sizes) == 4096 and len(sizes) == 16,
           f'{len(sizes)} Data-In PDUs of {set(sizes)} bytes after 4096')
    keys, _ = conn.text([('MaxRecvDataSegmentLength', '1048576')])
    expect(not keys, f'a declaration answered: {keys}')
    sizes = data_in_sizes(conn, 0, 128)
    expect(max(sizes) == 8192,
           f'Data-In PDUs of {set(sizes)} bytes: not the TPG\'s MaxXmitDataSegmentLength')
    conn.nop()
    conn.logout()
    return 'Reject, NotUnderstood, SendTargets; Data-In 8192, 4096, 8192 bytes'


@case
def case_ffp_text_key_twice(ctx):
    """A Text Request with a key twice: Reject 0x04, the session goes on
    with the values it had."""
    conn = logged_in(ctx)
    text = encode_keys([('MaxRecvDataSegmentLength', '4096')] * 2)
    hdr = conn.send_pdu(text_req(conn.next_itt(), conn.cmdsn, conn.expstatsn),
                        text)
    rej = conn.recv_expect(OP_REJECT)
    expect(rej.reason == REASON_PROTOCOL_ERROR and rej.data[:48] == hdr,
           f'{rej}, expected Reject 0x04 with the header')
    sizes = data_in_sizes(conn, 0, 32)
    expect(max(sizes) == 8192, f'Data-In PDUs of {set(sizes)} bytes')
    conn.nop()
    conn.logout()
    return 'Reject 0x04, MaxRecvDataSegmentLength unchanged'


def joined(ctx, lead, keys, cid):
    """A connection @cid added to the session of @lead."""
    return joined_to(connect(ctx), lead, ctx.target, keys, cid)


@case
def case_mcs_cmdsn_across(ctx):
    """Two connections of one session (MaxConnections=2): a WRITE with
    immediate data and unsolicited Data-Out, CmdSN n+1, on the second
    waits (nothing comes for it) until CmdSN n comes on the first; both
    succeed and read back equal. A Logout of the second connection sent
    on the first closes it; the first goes on."""
    a = logged_in(ctx, MCS_UNSOL, MaxConnections='2', InitialR2T='No')
    b = joined(ctx, a, MCS_UNSOL, 1)
    n, size = a.cmdsn, 32768
    first, second = os.urandom(size), os.urandom(size)
    late = b.send_write(MCS_LBA + size // BLOCK, second, 4096, True,
                        cmdsn=n + 1)
    pdu = b.poll_pdu(0.5)
    expect(pdu is None, f'before CmdSN 0x{n:08x} came, {pdu}')
    early = a.send_write(MCS_LBA, first, 4096, True, cmdsn=n)
    a.cmdsn = b.cmdsn = (n + 2) & 0xffffffff
    good(a.finish_writes({early: first})[early], 'CmdSN n, first connection')
    good(b.finish_writes({late: second})[late], 'CmdSN n+1, second connection')
    read_back(a, MCS_LBA, first + second)
    itt = a.next_itt()
    a.send_pdu(logout_req(itt, a.cmdsn, a.expstatsn, reason=1, cid=1))
    rsp = a.recv_expect(OP_LOGOUT_RSP, itt)
    expect(rsp.response == 0, f'logout of CID 1: {rsp}')
    b.expect_closed(5.0)
    a.nop()
    a.logout()
    return 'held across connections until CmdSN n came; CID 1 logged out from CID 0'


def put_off_r2t(ctx):
    """mcs_r2t_put_off's connections and steps, under small send
    buffers."""
    a = logged_in(ctx, MCS, MaxConnections='2')
    no_data(a, bytes(6))                # a unit attention, if any
    b = joined_to(unread(ctx), a, ctx.target, MCS, 1)
    b.itt = 0x10000                     # ITTs are the session's
    n, data = a.cmdsn, os.urandom(65536)
    itt = b.send_write(MCS_LBA, data, cmdsn=n + 1)
    expect(b.poll_pdu(0.3) is None, 'the write held behind the hole answered')
    pings, queued, end = set(), 0, time.monotonic() + 30
    while queued < TX_MAX_PDUS and time.monotonic() < end:
        batch = [b.next_itt() for _ in range(32)]
        b.send(b''.join(b.frame_pdu(nop_out(i, b.cmdsn, b.expstatsn,
                                            imm=True))[1] for i in batch))
        pings.update(batch)
        time.sleep(0.05)
        queued = sess_row(a.tsih)['queued']
    expect(queued >= TX_MAX_PDUS, f'{queued} PDUs queued after '
           f'{len(pings)} NOP-Outs, expected the bound, {TX_MAX_PDUS}')
    nop = a.next_itt()
    a.send_pdu(nop_out(nop, n, a.expstatsn))    # CmdSN n: the write goes
    a.recv_expect(OP_NOP_IN, nop)
    a.cmdsn = b.cmdsn = (n + 2) & 0xffffffff
    time.sleep(0.5)
    full = sess_row(a.tsih)['queued']
    time.sleep(4.5)
    echoes, r2t, rsp, before = set(), None, None, 0
    while rsp is None or echoes != pings:
        pdu = b.recv_pdu()
        expect(pdu is not None,
               f'the connection closed after {len(echoes)} NOP-In echoes, '
               f'{"the R2T answered" if r2t else "no R2T"}')
        if pdu.op == OP_R2T and pdu.itt == itt and r2t is None:
            r2t, before = pdu, len(echoes)
            b.answer_r2t(r2t, data)
        elif pdu.op == OP_SCSI_RSP and pdu.itt == itt and r2t and not rsp:
            rsp = pdu
        else:
            expect(pdu.op == OP_NOP_IN and pdu.itt in pings and
                   pdu.itt not in echoes, f'unexpected {pdu}')
            echoes.add(pdu.itt)
    good(rsp)
    read_back(a, MCS_LBA, data)
    itt = a.next_itt()
    a.send_pdu(logout_req(itt, a.cmdsn, a.expstatsn, reason=1, cid=1))
    expect(a.recv_expect(OP_LOGOUT_RSP, itt).response == 0, 'logout of CID 1')
    b.expect_closed(5.0)
    a.logout()
    return (f'{full} PDUs queued with the R2T put off; it came after '
            f'{before} NOP-In echoes, 5 s on, and the write succeeded')


@case
def case_mcs_r2t_put_off(ctx):
    """An R2T put off while the send queue is full goes out once it
    drains, and its write is not timed meanwhile. Two connections of one
    session, TCP send buffers of 4 KiB (small_send_buffers()); the
    second, with a 4 KiB receive buffer, sends a 64 KiB write with CmdSN
    n+1, which the CmdSN hole holds, then immediate NOP-Outs, and reads
    nothing: their echoes fill its send queue to its bound (256 PDUs,
    debugfs "sessions") and the target stops reading it. CmdSN n, a
    NOP-Out on the first, closes the hole: the write reaches the target
    core from the first connection's receive path and its R2T is put
    off. 5 s later (past dataout_timeout, 3 s: the target holds that R2T,
    the initiator owes nothing yet) the second connection reads again:
    once its queue is down to half, the R2T comes among the echoes, and
    the write, answered, succeeds and reads back equal. Before, the R2T
    went past the bound and the write was timed from it: dataout_timeout
    closed the connection while the R2T waited unread in the queue."""
    with small_send_buffers():
        return put_off_r2t(ctx)


@case
def case_mcs_abort_across(ctx):
    """Two connections of one session: ABORT TASK, then LUN RESET, sent on
    the second, of a write whose R2T the first leaves unanswered: Function
    complete while both connections live (not when dataout_timeout ends
    the session), no SCSI Response for the tasks; the LUN unchanged."""
    def body():
        keys = op_keys(MaxConnections='2')
        a = logged_in(ctx, keys, MaxConnections='2')
        b = joined(ctx, a, keys, 1)
        b.itt = 0x10000                 # ITTs are the session's
        for function in (1, 5):         # ABORT TASK, LOGICAL UNIT RESET
            itt, sn = a.next_itt(), a.take_cmdsn()
            a.send_pdu(scsi_cmd(F_FINAL | F_WRITE, itt, BAD_BLOCKS * BLOCK, sn,
                                a.expstatsn, cdb10(0x2a, BAD_LBA, BAD_BLOCKS)))
            a.recv_expect(OP_R2T, itt)
            b.cmdsn = a.cmdsn
            t = b.next_itt()
            b.send_pdu(tmf_req(function, t, itt, b.cmdsn, b.expstatsn, sn))
            rsp = b.recv_expect(OP_TMF_RSP, t)
            expect(rsp.response == 0,
                   f'function {function}: TMF Response {rsp.response}')
            a.nop()
            b.cmdsn = a.cmdsn
            b.nop()
            a.cmdsn = b.cmdsn
        # The reset leaves a unit attention: taken here, it proves the
        # reset ran.
        itt = a.next_itt()
        a.send_pdu(scsi_cmd(F_FINAL, itt, 0, a.take_cmdsn(), a.expstatsn,
                            bytes(6)))
        rsp = a.recv_expect(OP_SCSI_RSP, itt)
        expect(rsp.scsi_status == 0x02 and rsp.sense[2] & 0x0f == 0x06 and
               rsp.sense[12] == 0x29,
               f'after the reset, TEST UNIT READY: {rsp}, sense {rsp.sense.hex()}')
        a.logout()
        b.expect_closed(5.0)
        return 'ABORT TASK and LUN RESET across connections: Function complete'
    return lun_unchanged(ctx, body)


@case
def case_mcs_abort_held_dataout(ctx):
    """Two connections of one session, InitialR2T=No: a WRITE with CmdSN
    n+1 and F=0 on the first is held; an immediate ABORT TASK of it on the
    second is answered Function complete; the first sends only the header
    of an unsolicited Data-Out for it; a NOP-Out with CmdSN n on the
    second closes the hole, which drops the aborted write; then the first
    sends the Data-Out's data. That data must land in the write's own
    buffer, kept until it is in: a write on the second connection, whose
    buffer is taken in between and half filled when the data comes, reads
    back as sent; the first connection still answers a NOP-Out; the kernel
    logs nothing (no write through freed memory); the LUN unchanged."""
    def body():
        keys = op_keys(MaxConnections='2', InitialR2T='No',
                       FirstBurstLength='16384')
        a = logged_in(ctx, keys, MaxConnections='2', InitialR2T='No')
        b = joined(ctx, a, keys, 1)
        b.itt = 0x10000                 # ITTs are the session's
        log = kmsg_mark()
        n = a.cmdsn
        n1, n2 = (n + 1) & 0xffffffff, (n + 2) & 0xffffffff
        itt = a.next_itt()
        a.send_pdu(scsi_cmd(F_WRITE, itt, BAD_BLOCKS * BLOCK, n1, a.expstatsn,
                            cdb10(0x2a, BAD_LBA, BAD_BLOCKS)))
        pdu = a.poll_pdu(0.3)
        expect(pdu is None, f'for the write held behind CmdSN 0x{n:08x}: {pdu}')
        t = b.next_itt()
        b.send_pdu(tmf_req(1, t, itt, n2, b.expstatsn, n1))
        rsp = b.recv_expect(OP_TMF_RSP, t)
        expect(rsp.response == 0, f'ABORT TASK: TMF Response {rsp.response}')
        size = a.target_mrdsl
        hdr = data_out(itt, RESERVED_TAG, a.expstatsn, 0, 0, final=False)
        a.send(hdr[:5] + size.to_bytes(3, 'big') + hdr[8:])
        time.sleep(0.3)                 # the target placed the header
        nop = b.next_itt()
        b.send_pdu(nop_out(nop, n, b.expstatsn))
        pdu = b.recv_expect(OP_NOP_IN, nop)
        expect(pdu.expcmdsn == n2, f'after the hole closed, ExpCmdSN '
               f'0x{pdu.expcmdsn:08x}, expected 0x{n2:08x}')
        a.cmdsn = b.cmdsn = n2
        # A write whose lines may be the dropped write's, half filled.
        data = os.urandom(2 * size)
        w = b.send_write(MCS_LBA, data)
        r2t = b.recv_expect(OP_R2T, w)
        b.send_pdu(data_out(w, r2t.ttt, b.expstatsn, 0, 0, final=False),
                   data[:size])
        b.nop()
        a.send(b'\xee' * size)          # the held Data-Out's data
        time.sleep(0.3)
        b.send_pdu(data_out(w, r2t.ttt, b.expstatsn, 1, size), data[size:])
        good(b.recv_expect(OP_SCSI_RSP, w), 'the write on the second')
        read_back(b, MCS_LBA, data, 'the write on the second connection')
        a.cmdsn = b.cmdsn
        a.nop()
        slab_checked(log)
        a.logout()
        b.expect_closed(5.0)
        return 'the data landed in the dropped write, nothing else'
    return lun_unchanged(ctx, body)


@case
def case_mcs_held_nop_reset(ctx):
    """Two connections of one session: a NOP-Out with CmdSN n+1 on the
    first is held behind the hole at n; the first is then reset. At ERL0
    the session fails (the second is closed), and the held NOP-Out goes
    with the first connection, not after it: SLUB finds no freed object
    written to once the session is gone; a new session logs in."""
    a = logged_in(ctx, MCS, MaxConnections='2')
    b = joined(ctx, a, MCS, 1)
    b.itt = 0x10000
    log = kmsg_mark()
    n = a.cmdsn
    a.send_pdu(nop_out(a.next_itt(), (n + 1) & 0xffffffff, a.expstatsn))
    pdu = a.poll_pdu(0.3)
    expect(pdu is None, f'for the NOP-Out held behind CmdSN 0x{n:08x}: {pdu}')
    a.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                      struct.pack('ii', 1, 0))
    a.close()                           # a reset, no FIN
    b.expect_closed(5.0)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            sess_row(a.tsih)
        except Fail:
            break
        time.sleep(0.05)
    else:
        raise Fail(f'the session of TSIH {a.tsih} is still there after 5 s')
    time.sleep(1)                       # its end runs on after that
    slab_checked(log)
    return 'session failed, nothing written to freed memory; ' + \
        case_login_logout(ctx)


def held_logout(conn, itt, cmdsn, reason, cid=0):
    """A Logout Request, not immediate: it waits its turn."""
    req = bytearray(logout_req(itt, cmdsn, conn.expstatsn, reason=reason,
                               cid=cid))
    req[0] &= ~0x40
    conn.send_pdu(bytes(req))


def logout_delivered(a, b, n, itt, next_cmdsn):
    """A NOP-Out with CmdSN @n on @b closes the hole that holds @a's
    Logout (@itt): @b's NOP-In comes, @a gets its Logout Response and is
    closed, and @b goes on with CmdSN @next_cmdsn."""
    nop = b.next_itt()
    b.send_pdu(nop_out(nop, n, b.expstatsn))
    b.recv_expect(OP_NOP_IN, nop)
    rsp = a.recv_expect(OP_LOGOUT_RSP, itt)
    expect(rsp.response == 0, f'Logout Response {rsp.response}')
    a.expect_closed(5.0)
    b.cmdsn = next_cmdsn
    b.nop()


@case
def case_mcs_held_logout_other_conn(ctx):
    """Two connections of one session: a Logout of the first, sent on the
    first with CmdSN n+1, is held behind the hole at n; the first's
    receive path is made to wait (fault/stall, rx_hdr) with an immediate
    TEST UNIT READY just read; meanwhile a NOP-Out with CmdSN n on the
    second closes the hole, which delivers the Logout. The TUR, read
    after the Logout Response was queued, is dropped unanswered (RFC 7143
    11.14: nothing after the Logout counts): the first gets the Logout
    Response and is closed; the second goes on; the kernel logs
    nothing."""
    a = logged_in(ctx, MCS, MaxConnections='2')
    b = joined(ctx, a, MCS, 1)
    b.itt = 0x10000
    log = kmsg_mark()
    n = a.cmdsn
    n1 = (n + 1) & 0xffffffff
    out = a.next_itt()
    held_logout(a, out, n1, 1)
    pdu = a.poll_pdu(0.3)
    expect(pdu is None, f'for the Logout held behind CmdSN 0x{n:08x}: {pdu}')
    with open(f'{FAULT}/stall', 'w') as f:
        f.write('1000 rx_hdr')
    tur = a.next_itt()
    a.send_pdu(scsi_cmd(F_FINAL, tur, 0, (n + 2) & 0xffffffff, a.expstatsn,
                        bytes(6), imm=True))
    time.sleep(0.2)                     # the first waits with the TUR read
    logout_delivered(a, b, n, out, (n + 2) & 0xffffffff)
    time.sleep(1)                       # the stall is over
    slab_checked(log)
    b.logout()
    return 'the Logout delivered from the second connection; ' \
        'the TUR read after it dropped'


@case
def case_mcs_second_held_logout(ctx):
    """Two connections of one session: on the first, a Logout of itself
    (CmdSN n+1) and then a Logout of the session (CmdSN n+2), both held
    behind the hole at n; a NOP-Out with CmdSN n on the second closes
    it. The first Logout is answered and closes the first connection;
    the second, which came after it on that connection, is dropped
    unanswered: the second connection, and the session, go on. Before,
    it was acted on from a connection already logged out, and closed
    the second connection with the session."""
    a = logged_in(ctx, MCS, MaxConnections='2')
    b = joined(ctx, a, MCS, 1)
    b.itt = 0x10000
    log = kmsg_mark()
    n = a.cmdsn
    first, second = a.next_itt(), a.next_itt()
    held_logout(a, first, (n + 1) & 0xffffffff, 1)
    held_logout(a, second, (n + 2) & 0xffffffff, 0)
    pdu = a.poll_pdu(0.3)
    expect(pdu is None, f'for the Logouts held behind CmdSN 0x{n:08x}: {pdu}')
    logout_delivered(a, b, n, first, (n + 3) & 0xffffffff)
    slab_checked(log)
    b.logout()
    return 'the first Logout answered, the one after it dropped; the ' \
        'second connection went on'


@case
def case_mcs_limits(ctx):
    """MaxConnections=2: a third connection is refused with 0x0206; a
    connection lost without a Logout (ERL0) takes the session down: the
    other one is closed too."""
    a = logged_in(ctx, MCS, MaxConnections='2')
    b = joined(ctx, a, MCS, 1)
    c = connect(ctx)
    c.isid, c.cmdsn = a.isid, a.cmdsn
    rsp = c.login_pdu(login_flags(SEC, OPER, transit=True),
                      c.leading_keys(ctx.target), tsih=a.tsih, cid=2)
    expect(rsp is not None and rsp.op == OP_LOGIN_RSP and rsp.status == 0,
           f'third connection, security stage: {rsp}')
    rsp = c.login_pdu(login_flags(OPER, FFP, transit=True), MCS,
                      tsih=a.tsih, cid=2)
    login_refused(c, rsp, LS_TOO_MANY_CONNS)
    b.close()
    a.expect_closed(5.0)
    return 'third connection refused 0x0206; a lost one closed the other'


@case
def case_mcs_reinstate_cid(ctx):
    """A login with the CID of a live connection replaces it: the old
    connection is closed, the new one works, a session Logout on the
    first closes both."""
    a = logged_in(ctx, MCS, MaxConnections='2')
    b = joined(ctx, a, MCS, 1)
    c = joined(ctx, a, MCS, 1)
    b.expect_closed(5.0)
    c.nop()
    a.cmdsn = c.cmdsn
    a.nop()
    itt = a.next_itt()
    a.send_pdu(logout_req(itt, a.cmdsn, a.expstatsn, reason=0))
    rsp = a.recv_expect(OP_LOGOUT_RSP, itt)
    expect(rsp.response == 0, f'session logout: {rsp}')
    a.expect_closed()
    c.expect_closed(5.0)
    return 'CID 1 replaced; the session Logout closed both'


@case
def case_login_reinstate(ctx):
    """A leading login with the InitiatorName and ISID of a live session
    (TSIH 0) replaces it (RFC 7143 section 6.3.5): the new session gets
    another TSIH and works, the old connection is closed."""
    old = logged_in(ctx)
    new = connect(ctx)
    new.isid = old.isid
    new.login(ctx.target)
    expect(new.tsih != old.tsih, f'the new session kept TSIH {old.tsih}')
    old.expect_closed(5.0)
    new.nop()
    new.logout()
    return f'TSIH {old.tsih} replaced by TSIH {new.tsih}, old connection closed'


# A 32-byte CDB: WRITE SAME(32) (SBC-4), its last 16 bytes in an Extended
# CDB AHS: AHSLength 17 (a reserved byte and 16 CDB bytes), AHSType 1.
WS32_LBA, WS32_BLOCKS = 200, 16
LUN1 = 1 << 48


def write_same32(conn, lba, blocks, block):
    """WRITE SAME(32) on LUN 1, tried again after a unit attention (the
    LUN is new to the initiator): the SCSI Response."""
    for _ in range(3):
        rsp = write_same32_once(conn, lba, blocks, block)
        if rsp.scsi_status != 0x02 or rsp.sense[2:3] != b'\x06':
            break
    return rsp


def write_same32_once(conn, lba, blocks, block):
    cdb = bytearray(32)
    cdb[0], cdb[7] = 0x7f, 0x18
    cdb[8:10] = (0x000d).to_bytes(2, 'big')
    cdb[12:20] = lba.to_bytes(8, 'big')
    cdb[28:32] = blocks.to_bytes(4, 'big')
    ahs = (17).to_bytes(2, 'big') + b'\x01\x00' + bytes(cdb[16:32])
    hdr = bytearray(scsi_cmd(F_FINAL | F_WRITE, conn.next_itt(), BLOCK,
                             conn.take_cmdsn(), conn.expstatsn, bytes(cdb[:16]),
                             lun=LUN1))
    hdr[4] = len(ahs) // 4
    itt = int.from_bytes(hdr[16:20], 'big')
    conn.send_pdu(bytes(hdr) + ahs)
    return conn.finish_writes({itt: block})[itt]


def read_lun1(conn, lba, blocks):
    itt = conn.next_itt()
    conn.send_pdu(scsi_cmd(F_FINAL | F_READ, itt, blocks * BLOCK,
                           conn.take_cmdsn(), conn.expstatsn,
                           cdb10(0x28, lba, blocks), lun=LUN1))
    buf = bytearray(blocks * BLOCK)
    while True:
        pdu = conn.recv_pdu()
        expect(pdu is not None and pdu.itt == itt, f'reading LUN 1: {pdu}')
        if pdu.op == OP_DATA_IN:
            buf[pdu.w40:pdu.w40 + len(pdu.data)] = pdu.data
        if pdu.op == OP_SCSI_RSP or pdu.flags & F_STATUS:
            expect(pdu.scsi_status == 0, f'reading LUN 1: {pdu}')
            return bytes(buf)


@case
def case_ffp_ext_cdb(ctx):
    """A 32-byte CDB, its last 16 bytes in an Extended CDB AHS: WRITE
    SAME(32) of one block over 16 on LUN 1 (fileio) succeeds, and the 16
    blocks read back as copies of it: the target core saw the whole CDB
    (the block count is in its last bytes)."""
    conn = logged_in(ctx)
    block = os.urandom(BLOCK)
    rsp = write_same32(conn, WS32_LBA, WS32_BLOCKS, block)
    good(rsp, f'WRITE SAME(32), sense {rsp.sense.hex()}')
    back = read_lun1(conn, WS32_LBA, WS32_BLOCKS)
    expect(back == block * WS32_BLOCKS,
           'the blocks WRITE SAME(32) wrote read back different')
    conn.nop()
    conn.logout()
    return 'WRITE SAME(32) through an Extended CDB AHS, 16 blocks read back'


RESID_LBA = 3072


def read_resid(conn, lba, blocks, edtl, lun=0):
    """READ(10) of @blocks of @lun with ExpectedDataTransferLength @edtl:
    the data and the status PDU."""
    itt = conn.next_itt()
    conn.send_pdu(scsi_cmd(F_FINAL | F_READ, itt, edtl, conn.take_cmdsn(),
                           conn.expstatsn, cdb10(0x28, lba, blocks), lun=lun))
    data = b''
    while True:
        pdu = conn.recv_pdu()
        expect(pdu is not None and pdu.itt == itt, f'read: {pdu}')
        if pdu.op == OP_DATA_IN:
            data += pdu.data
        if pdu.op == OP_SCSI_RSP or pdu.flags & F_STATUS:
            return data, pdu


@case
def case_ffp_residual(ctx):
    """Residuals (RFC 7143 section 11.4.5): a READ(10) of 8 blocks with an
    expected length of 16 blocks gets its 4 KiB, U set and residual 4096.
    With 4 blocks (overflow) it gets the first 2 KiB of the 4 KiB, GOOD
    status, O set and residual 2048. (Writes: the resid_ cases.)"""
    conn = logged_in(ctx)
    pattern = os.urandom(8 * BLOCK)
    good(conn.write(RESID_LBA, pattern), 'writing the pattern')
    data, st = read_resid(conn, RESID_LBA, 8, 16 * BLOCK)
    expect(data == pattern and st.scsi_status == 0 and
           st.flags & F_UNDERFLOW and not st.flags & F_OVERFLOW and
           st.w44 == 8 * BLOCK, f'underflow: {len(data)} bytes, {st}, residual {st.w44}')
    data, st = read_resid(conn, RESID_LBA, 8, 4 * BLOCK)
    expect(data == pattern[:4 * BLOCK] and st.scsi_status == 0 and
           st.flags & F_OVERFLOW and not st.flags & F_UNDERFLOW and
           st.w44 == 4 * BLOCK,
           f'overflow: {len(data)} bytes, {st}, residual {st.w44}')
    conn.nop()
    conn.logout()
    return 'read underflow U/4096, overflow truncated O/2048'


BIDI_LBA = 64


def xdwriteread(conn, lba, data, imm=0, disable_write=False, lun=0):
    """XDWRITEREAD(10) of @data at @lba of @lun, its first @imm bytes
    immediate, the rest sent as its R2Ts ask; the Bidirectional Read
    Expected Data Transfer Length is len(@data). Returns (the Data-In
    bytes, the Data-In PDUs, the SCSI Response)."""
    itt = conn.next_itt()
    cdb = bytearray(cdb10(0x53, lba, len(data) // BLOCK))
    if disable_write:
        cdb[1] |= 0x04
    hdr = bytearray(scsi_cmd(F_FINAL | F_WRITE | F_READ, itt, len(data),
                             conn.take_cmdsn(), conn.expstatsn, bytes(cdb),
                             lun=lun))
    ahs = (5).to_bytes(2, 'big') + b'\x02\x00' + len(data).to_bytes(4, 'big')
    hdr[4] = len(ahs) // 4
    conn.send_pdu(bytes(hdr) + ahs, data[:imm])
    buf, pdus = bytearray(len(data)), []
    while True:
        pdu = conn.recv_pdu()
        expect(pdu is not None and pdu.itt == itt, f'XDWRITEREAD: {pdu}')
        if pdu.op == OP_R2T:
            conn.answer_r2t(pdu, data)
        elif pdu.op == OP_DATA_IN:
            pdus.append(pdu)
            buf[pdu.w40:pdu.w40 + len(pdu.data)] = pdu.data
        else:
            expect(pdu.op == OP_SCSI_RSP, f'XDWRITEREAD: {pdu}')
            return bytes(buf), pdus, pdu


def bidi_refused(conn, flags, ahs):
    """A command of @flags with the AHS @ahs: CHECK CONDITION, ILLEGAL
    REQUEST, and nothing else for it."""
    itt = conn.next_itt()
    hdr = bytearray(scsi_cmd(F_FINAL | flags, itt, 8 * BLOCK,
                             conn.take_cmdsn(), conn.expstatsn,
                             cdb10(0x53, BIDI_LBA, 8)))
    hdr[4] = len(ahs) // 4
    conn.send_pdu(bytes(hdr) + ahs)
    rsp = conn.recv_expect(OP_SCSI_RSP, itt)
    expect(rsp.scsi_status == 0x02 and rsp.sense[2] & 0x0f == 0x05,
           f'flags 0x{flags:02x}, AHS {ahs.hex()}: {rsp}, sense {rsp.sense.hex()}')


@case
def case_ffp_bidi(ctx):
    """Bidirectional XDWRITEREAD(10) on a LUN of a TCMU backstore that
    ixt_tcmu.py serves (tcp_bidi.sh): the old blocks XOR the data sent
    come back in Data-In (F on the last, never S), then a SCSI Response,
    GOOD, with no residual; READ(10) finds the data written, or the old
    data with DISABLE_WRITE. 8 KiB solicited by an R2T, 8 KiB with 4 KiB
    immediate, 512 KiB over several cache lines and R2Ts. R and W without
    the AHS, and the AHS with R alone, get CHECK CONDITION; so does
    XDWRITEREAD on LUN 1, a ramdisk, whose backstore runs none."""
    conn = logged_in(ctx, op_keys(ImmediateData='Yes'), ImmediateData='Yes')
    # The LUN is new to the initiator: a unit attention may come first.
    for _ in range(3):
        itt = conn.next_itt()
        conn.send_pdu(scsi_cmd(F_FINAL, itt, 0, conn.take_cmdsn(),
                               conn.expstatsn, bytes(6)))
        rsp = conn.recv_expect(OP_SCSI_RSP, itt)
        if rsp.scsi_status == 0:
            break
    expect(rsp.scsi_status == 0,
           f'TEST UNIT READY: {rsp}, sense {rsp.sense.hex()}')
    old = os.urandom(16 * BLOCK)
    good(conn.write(BIDI_LBA, old), 'WRITE(10) of the old data')
    seen = []
    for size, imm, disable in ((8192, 0, False), (8192, 4096, True),
                               (524288, 0, False)):
        new = os.urandom(size)
        status, before = conn.read(BIDI_LBA, size // BLOCK)
        expect(status == 0, f'READ(10) status 0x{status:02x}')
        got, pdus, rsp = xdwriteread(conn, BIDI_LBA, new, imm, disable)
        want = bytes(a ^ b for a, b in zip(before, new))
        expect(got == want, f'{size} bytes: the Data-In is not old XOR new')
        expect(rsp.response == 0 and rsp.scsi_status == 0 and
               not rsp.flags & 0x1e and rsp.w40 == 0 and rsp.w44 == 0,
               f'{size} bytes: {rsp}, flags 0x{rsp.flags:02x}, '
               f'residuals {rsp.w40}/{rsp.w44}')
        expect(pdus and pdus[-1].flags & F_FINAL and
               not any(p.flags & F_STATUS for p in pdus),
               f'{size} bytes: Data-In flags '
               f'{[hex(p.flags) for p in pdus]}')
        read_back(conn, BIDI_LBA, before if disable else new,
                  f'{size} bytes, after XDWRITEREAD')
        seen.append(f'{size // 1024} KiB in {len(pdus)} Data-In')
    rlength = (5).to_bytes(2, 'big') + b'\x02\x00' + (4096).to_bytes(4, 'big')
    bidi_refused(conn, F_READ | F_WRITE, b'')
    bidi_refused(conn, F_READ, rlength)
    for _ in range(3):      # a unit attention first: LUN 1 is new too
        got, pdus, rsp = xdwriteread(conn, BIDI_LBA, os.urandom(8192), 4096,
                                     lun=LUN1)
        if rsp.sense[2:3] != b'\x06':
            break
    expect(not pdus and rsp.scsi_status == 0x02 and
           rsp.sense[2] & 0x0f == 0x05 and rsp.sense[12] == 0x20,
           f'XDWRITEREAD on the ramdisk: {len(pdus)} Data-In, {rsp}, '
           f'sense {rsp.sense.hex()}')
    conn.nop()
    conn.logout()
    return (f'XDWRITEREAD {", ".join(seen)}; the refusals and the '
            'ramdisk CHECK CONDITION')


LUN2 = 2 << 48
LUN2_BLOCKS = 8192      # LUN 2: iblock over a 4 MiB loop device


@case
def case_ffp_residual_at_end(ctx):
    """A READ(10) of the last block of LUN 2 (iblock over a 4 MiB loop
    device, zeroed) with an expected length of 16 blocks: the block of
    zeros, GOOD, U set and residual 7680. The backend gets a buffer of
    the CDB's length only: given all 16 blocks' worth, iblock reads past
    the end of the device and fails the command."""
    conn = logged_in(ctx)
    for _ in range(3):      # the LUN is new to the initiator: a UA first
        data, st = read_resid(conn, LUN2_BLOCKS - 1, 1, 16 * BLOCK, LUN2)
        if st.scsi_status != 0x02 or st.sense[2:3] != b'\x06':
            break
    expect(data == bytes(BLOCK) and st.scsi_status == 0 and
           st.flags & F_UNDERFLOW and st.w44 == 15 * BLOCK,
           f'{len(data)} bytes, {st}, residual {st.w44}, '
           f'sense {st.sense.hex()}')
    conn.nop()
    conn.logout()
    return 'the last block, U/7680'


CASES.add_write_residuals(logged_in)


@case
def case_hang_mid_write(ctx):
    """A 1 MiB WRITE(10) whose first R2T gets half a Data-Out: then the
    client prints "hanging" and sleeps, for its test to kill it there."""
    conn, r2t = write_r2t(ctx, lba=BAD_LBA, blocks=2048)
    n = min(r2t.w44, conn.target_mrdsl)
    hdr = data_out(r2t.itt, r2t.ttt, conn.expstatsn, 0, 0)
    conn.send(hdr[:5] + n.to_bytes(3, 'big') + hdr[8:] + b'h' * (n // 2))
    print('hanging', flush=True)
    time.sleep(120)
    raise Fail('not killed within 120 s')


@case
def case_login_storm(ctx):
    """--storm sessions one after the other, each a CHAP login as
    --chap USER:SECRET, a NOP and a Logout; says how long they took."""
    user, _, secret = ctx.chap.partition(':')
    t0 = time.monotonic()
    for _ in range(ctx.storm):
        conn = connect(ctx)
        conn.login(ctx.target, chap=(user, secret))
        conn.nop()
        conn.logout()
    return f'{ctx.storm} CHAP logins in {time.monotonic() - t0:.1f} s'


# SPC-2 reservations (RESERVE(6), RELEASE(6)) of LUN 0 by two initiators.
RESERVE6 = bytes([0x16, 0, 0, 0, 0, 0])
RELEASE6 = bytes([0x17, 0, 0, 0, 0, 0])
RESERVATION_CONFLICT = 0x18


def initiator(ctx, name):
    """A session of the initiator --initiator with "-@name" appended."""
    conn = Connection(ctx.host, ctx.port, initiator=f'{ctx.initiator}-{name}')
    return login_checked(conn, ctx.target)


def reserve(conn, status, what):
    rsp = no_data(conn, RESERVE6)
    expect(rsp.scsi_status == status,
           f'{what}: RESERVE(6) status 0x{rsp.scsi_status:02x}, expected '
           f'0x{status:02x}, sense {rsp.sense.hex()}')


def spc2_released(ctx, end, isid=0):
    """Initiator a holds RESERVE(6) of LUN 0 and b's is refused; a's
    session ends as @end(conn) ends it, and a logs in again, with its ISID
    xor @isid: b's RESERVE(6) succeeds, a's is refused, b's RELEASE(6)
    frees the LUN for a."""
    a, b = initiator(ctx, 'a'), initiator(ctx, 'b')
    reserve(a, 0, 'a')
    reserve(b, RESERVATION_CONFLICT, 'b while a holds the LUN')
    how = end(a)
    a = Connection(ctx.host, ctx.port, initiator=f'{ctx.initiator}-a')
    a.isid ^= isid
    a = login_checked(a, ctx.target)
    reserve(b, 0, f'b after a {how} and logged in again' +
            (' with another ISID' if isid else ''))
    reserve(a, RESERVATION_CONFLICT, 'a while b holds the LUN')
    good(no_data(b, RELEASE6), "b's RELEASE(6)")
    reserve(a, 0, 'a after b released')
    good(no_data(a, RELEASE6), "a's RELEASE(6)")
    a.logout()
    b.logout()
    return f'a {how}: its reservation released, b reserved'


@case
def case_spc2_release_on_logout(ctx):
    """SPC-2 reservations: the holder logs out (spc2_released())."""
    def end(conn):
        conn.logout()
        return 'logged out'
    return spc2_released(ctx, end)


@case
def case_spc2_release_on_logout_new_isid(ctx):
    """SPC-2 reservations: the holder logs out and logs in again with
    another ISID, as an initiator that makes a new context for each
    session does (spc2_released())."""
    def end(conn):
        conn.logout()
        return 'logged out'
    return spc2_released(ctx, end, isid=0x10)


@case
def case_spc2_release_at_logout_response(ctx):
    """SPC-2 reservations: once the holder has its Logout Response, its
    reservation is gone: b's RESERVE(6) right after succeeds."""
    a, b = initiator(ctx, 'a'), initiator(ctx, 'b')
    reserve(a, 0, 'a')
    reserve(b, RESERVATION_CONFLICT, 'b while a holds the LUN')
    a.logout()
    reserve(b, 0, 'b right after the Logout Response of a')
    good(no_data(b, RELEASE6), "b's RELEASE(6)")
    b.logout()
    return 'released by the time the Logout Response went out'


@case
def case_spc2_release_on_conn_loss(ctx):
    """SPC-2 reservations: the holder's connection is lost, no Logout, no
    reinstatement (ErrorRecoveryLevel=0, DefaultTime2Retain=0)."""
    def end(conn):
        conn.close()
        return 'lost its connection'
    return spc2_released(ctx, end)


# ro_mapping: where on LUN 0 the writes that must not land go.
RO_LBA = 3072
RO_BLOCKS = 8
DATA_PROTECT, ASC_WRITE_PROTECTED = 0x07, 0x27


def ro_attempts(lba, blocks):
    """(what, flags, edtl, cdb, data) of commands that would change @blocks
    blocks at @lba: data is sent as immediate data (or None); R and W as
    an initiator may set them, whatever the CDB transfers."""
    def ws16(byte1, n=blocks):
        return struct.pack('>BBQIBB', 0x93, byte1, lba, n, 0, 0)
    ws10 = struct.pack('>BBIBHB', 0x41, 0, lba, 0, blocks, 0)
    unmap = struct.pack('>BBIBHB', 0x42, 0, 0, 0, 24, 0)
    unmap_list = struct.pack('>HH4xQI4x', 22, 16, lba, blocks)
    caw = struct.pack('>BBQ3xBBB', 0x89, 0, lba, 1, 0, 0)
    return [
        ('WRITE(10)', F_WRITE, blocks * BLOCK, cdb10(0x2a, lba, blocks),
         bytes(blocks * BLOCK)),
        ('WRITE(10) sent with R', F_READ, blocks * BLOCK,
         cdb10(0x2a, lba, blocks), None),
        ('WRITE SAME(16) sent with R', F_READ, BLOCK, ws16(0), None),
        ('WRITE SAME(10) sent with R', F_READ, BLOCK, ws10, None),
        ('WRITE SAME(16) with UNMAP, no data', 0, 0, ws16(0x08), None),
        ('WRITE SAME(16) with NDOB, no data', 0, 0, ws16(0x01), None),
        ('UNMAP', F_WRITE, 24, unmap, unmap_list),
        ('COMPARE AND WRITE sent with R', F_READ, 2 * BLOCK, caw, None),
    ]


def refused_write_protected(conn, what, flags, edtl, cdb, data, lun=0):
    """Sends one of ro_attempts() to @lun; it must get CHECK CONDITION,
    DATA PROTECT, WRITE PROTECTED (a UNIT ATTENTION taken first)."""
    for _ in range(3):
        itt = conn.next_itt()
        conn.send_pdu(scsi_cmd(F_FINAL | flags, itt, edtl, conn.take_cmdsn(),
                               conn.expstatsn, cdb, lun=lun << 48),
                      data or b'')
        while True:
            pdu = conn.recv_pdu()
            expect(pdu is not None, f'{what}: connection closed')
            expect(pdu.itt == itt and pdu.op in (OP_DATA_IN, OP_SCSI_RSP,
                                                 OP_R2T),
                   f'{what}: unexpected {pdu}')
            expect(pdu.op != OP_R2T, f'{what}: an R2T, as if it would run')
            if pdu.op == OP_SCSI_RSP or pdu.flags & F_STATUS:
                break
        sense = pdu.sense if pdu.op == OP_SCSI_RSP else b''
        if pdu.scsi_status != 0x02 or sense[2] & 0x0f != 0x06:
            break
    expect(pdu.scsi_status == 0x02 and len(sense) > 12 and
           sense[2] & 0x0f == DATA_PROTECT and sense[12] == ASC_WRITE_PROTECTED,
           f'{what}: status 0x{pdu.scsi_status:02x} sense {sense.hex()}, '
           'expected CHECK CONDITION, DATA PROTECT, WRITE PROTECTED')


@case
def case_ro_mapping(ctx):
    """A LUN mapped read-only (the ACL --initiator-ro, its lun_0's
    write_protect) refuses every command that would change it, however R
    and W are set: ro_attempts(), each DATA PROTECT, WRITE PROTECTED, and
    an EXTENDED COPY on its LUN 1, mapped read-write (its destination
    could be LUN 0); the blocks, filled with a pattern by --initiator-rw
    first, read back unchanged after."""
    rw = initiator(ctx, 'rw')
    good(no_data(rw, bytes(6)), 'TEST UNIT READY')
    pattern = os.urandom(RO_BLOCKS * BLOCK)
    good(rw.write(RO_LBA, pattern), 'writing the pattern')
    # Immediate data: the writes carry theirs without an R2T.
    ro = login_checked(Connection(ctx.host, ctx.port,
                                  initiator=f'{ctx.initiator}-ro'),
                       ctx.target, op_keys(ImmediateData='Yes'),
                       ImmediateData='Yes')
    good(no_data(ro, bytes(6)), 'TEST UNIT READY of the read-only mapping')
    seen = []
    for what, flags, edtl, cdb, data in ro_attempts(RO_LBA, RO_BLOCKS):
        refused_write_protected(ro, what, flags, edtl, cdb, data)
        seen.append(what)
    # LUN 1, mapped read-write: a copy's destination could be LUN 0.
    refused_write_protected(ro, 'EXTENDED COPY on LUN 1', 0, 0,
                            bytes([0x83]) + bytes(15), None, lun=1)
    seen.append('EXTENDED COPY on LUN 1')
    ro.logout()
    read_back(rw, RO_LBA, pattern, 'the blocks of the read-only mapping')
    rw.logout()
    return f'refused, the blocks unchanged: {", ".join(seen)}'


def main():
    def options(ap):
        ap.add_argument('--login-timeout', type=int, default=5,
                        help="the TPG's attrib/login_timeout, in seconds")
        ap.add_argument('--chap', default='', metavar='USER:SECRET',
                        help='login_storm: the CHAP credentials')
        ap.add_argument('--storm', type=int, default=100, metavar='N',
                        help='login_storm: how many sessions')
    return CASES.main(__doc__, 'iqn.2026-11.org.example:ixt-raw', options)


if __name__ == '__main__':
    sys.exit(main())
