#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Allocation fault walk of iscsi_xt for alloc_fail.sh (raw initiator).

iscsi_xt built with IXT_FAULT_INJECT=1 fails the Nth allocation counted
after "N [SITE]" is written to /sys/kernel/debug/iscsi_xt/fault/fail.
This runs one sequence of requests again and again, each time with
another allocation failing:

    ixt_alloc_walk.py --target IQN --seq SEQ [--transport tcp|iser]
                      [--sites | --nth] ...

SEQ is rw (login, a write through R2Ts (64 KiB) or RDMA READs (512 KiB)
read back, over TCP also a NOP-Out held behind a CmdSN hole, a 32-byte
CDB in an Extended CDB AHS and an ABORT TASK of a CmdSN never received;
a LUN RESET, a NOP-Out with ping data, logout), chap (a login with mutual
CHAP, logout), discovery (a discovery login, SendTargets=All, logout)
bidi (login, a bidirectional XDWRITEREAD(10) of 1 KiB through an R2T
to a TCMU LUN, logout) or tur (login, TEST UNIT READY until GOOD, which
clears the unit attentions the target core holds for the initiator,
logout).
First a clean run counts the allocations (K) and the sites they come
from; then, with --nth, N walks from 1 until the Nth allocation is past
the end of the sequence (K, give or take what runs beside it), then
the first allocation of each site the clean run met and the walk did
not fail (what runs beside the sequence can shift the order), or, with
--sites, the first allocation of each site the clean run met fails
(with --ends its second and last too; --only picks sites by the start
of their names); --count makes the clean run alone.

Each armed run must end in success (the module got over it: a pool that
was dry for a moment), in the answer RFC 7143 has for the failure (a
Login Response with an error status, a Reject, a SCSI Response other
than GOOD, a TMF Response other than Function complete), or with the
connection closed; never with a wrong answer, data that reads back
wrong, or no answer within the socket's timeout while the connection
stays open. Then no session may be left, every cache line must be back
in the pool, and an unarmed run must succeed. One line per run: "ok N
SITE: what happened" or "FAIL N SITE: why"; the exit status is 1 when
any failed.
"""

import argparse
import hashlib
import os
import socket
import sys
import time

from ixt_iscsi import (
    BLOCK, F_FINAL, F_READ, F_STATUS, F_WRITE, FFP, LOGIN_T, OPER,
    RESERVED_TAG, SEC, OP_DATA_IN, OP_LOGIN_RSP, OP_LOGOUT_RSP, OP_NOP_IN,
    OP_R2T, OP_REJECT, OP_SCSI_RSP, OP_TEXT_RSP, OP_TMF_RSP, Connection,
    Fail, cdb10, decode_keys, encode_keys, login_flags, login_req,
    logout_req, nop_out, op_keys, scsi_cmd, text_req, tmf_req)

FAULT = '/sys/kernel/debug/iscsi_xt/fault'
POOL = '/sys/kernel/debug/iscsi_xt/pool'
SESSIONS = '/sys/kernel/debug/iscsi_xt/sessions'

RW_LBA = 64
RW_BYTES = 65536
# Over iSER: more cache lines than a transfer keeps inline (9).
RW_BYTES_ISER = 524288
# SCSI statuses that answer a failure: CHECK CONDITION, BUSY, TASK SET FULL.
ERROR_STATUS = (0x02, 0x08, 0x28)


class Answer(Exception):
    """The target answered as RFC 7143 says it may when it fails."""


class Closed(Exception):
    """The target closed the connection."""


# The fault injection's files.
def arm(nth, site=None):
    with open(f'{FAULT}/fail', 'w') as f:
        f.write(f'{nth} {site or "all"}\n')


def read_int(path):
    with open(path) as f:
        return int(f.read().split()[0])


def sites():
    """{site: (allocations, failures)} since the module loaded."""
    out = {}
    with open(f'{FAULT}/sites') as f:
        for line in f:
            name, hits, fails = line.split()
            out[name] = (int(hits), int(fails))
    return out


def pool_free():
    """Whether every cache line is back in the pool; waits up to 10 s
    (the network stack may still hold the pages of a Data-In)."""
    for _ in range(50):
        with open(POOL) as f:
            fig = dict(line.split()[:2] for line in f if line.strip())
        if int(fig['lines']) > 0 and fig['free'] == fig['lines']:
            return True
        time.sleep(0.2)
    return False


def no_session():
    """Whether no normal session is left; waits up to 10 s."""
    for _ in range(50):
        with open(SESSIONS) as f:
            if len(f.read().splitlines()) <= 1:
                return True
        time.sleep(0.2)
    return False


# The steps, over ixt_iscsi.Connection or ixt_iser_raw.IserConnection.
def rx(conn, timeout=None):
    """The next PDU; Closed when the connection ends, Answer for a
    Reject."""
    try:
        pdu = conn.recv_pdu(timeout)
    except (ConnectionError, OSError) as err:
        raise Closed(f'connection closed ({err})') from None
    except Fail as err:
        if 'connection closed' in str(err) or 'disconnected' in str(err):
            raise Closed(str(err)) from None
        raise
    if pdu is None:
        raise Closed('connection closed')
    if pdu.op == OP_REJECT:
        raise Answer(f'Reject 0x{pdu.reason:02x}')
    return pdu


def expect_op(pdu, op, itt=None):
    if pdu.op != op or (itt is not None and pdu.itt != itt):
        raise Fail(f'expected opcode 0x{op:02x}, got {pdu}')
    return pdu


def send(conn, hdr, data=b''):
    try:
        conn.send_pdu(hdr, data)
    except (ConnectionError, OSError) as err:
        raise Closed(f'connection closed while sending ({err})') from None


def login_rsp(conn, flags, keys, what, tsih=0):
    """One Login Request; its Login Response, whose status must be 0."""
    data = keys if isinstance(keys, bytes) else encode_keys(keys)
    send(conn, login_req(flags, conn.isid, 0x1, conn.cmdsn, conn.expstatsn,
                         tsih=tsih), data)
    rsp = expect_op(rx(conn), OP_LOGIN_RSP)
    if rsp.status:
        raise Answer(f'{what}: Login Response 0x{rsp.status:04x}')
    return rsp


def chap_response(ident, secret, challenge):
    return hashlib.md5(bytes([ident]) + secret.encode() + challenge).digest()


def login(conn, ctx, session='Normal', op=None):
    """A whole login to full feature phase: the security stage (CHAP
    with ctx.chap, else none), the operational stage offering @op."""
    lead = [('InitiatorName', conn.initiator)]
    if session == 'Normal':
        lead.append(('TargetName', ctx.target))
    lead.append(('SessionType', session))
    if ctx.chap:
        user, secret, muser, msecret = ctx.chap.split(':')
        flags = login_flags(SEC, OPER)
        rsp = login_rsp(conn, flags, lead + [('AuthMethod', 'CHAP')],
                        'AuthMethod')
        rsp = login_rsp(conn, flags, [('CHAP_A', '5')], 'CHAP_A')
        got = dict(rsp.keys)
        ident, chal = int(got['CHAP_I']), bytes.fromhex(got['CHAP_C'][2:])
        mine = os.urandom(16)
        keys = [('CHAP_N', user),
                ('CHAP_R', '0x' + chap_response(ident, secret, chal).hex()),
                ('CHAP_I', '7'), ('CHAP_C', '0x' + mine.hex())]
        rsp = login_rsp(conn, login_flags(SEC, OPER, transit=True), keys,
                        'CHAP_R')
        got = dict(rsp.keys)
        if (got.get('CHAP_N') != muser or got.get('CHAP_R', '')[2:].lower() !=
                chap_response(7, msecret, mine).hex()):
            raise Fail(f'mutual CHAP: the target answered {rsp.keys}')
    else:
        rsp = login_rsp(conn, login_flags(SEC, OPER, transit=True),
                        lead + [('AuthMethod', 'None')], 'security stage')
    if not rsp.flags & LOGIN_T:
        raise Fail(f'security stage did not end: {rsp}')
    keys = op
    for _ in range(4):
        rsp = login_rsp(conn, login_flags(OPER, FFP, transit=True), keys,
                        'operational stage')
        answered = [k for k, _ in (keys or [])]
        for k, v in rsp.keys:
            if k in ('MaxRecvDataSegmentLength',
                     'TargetRecvDataSegmentLength'):
                conn.target_mrdsl = int(v, 0)
        keys = [(k, v.split(',')[0]) for k, v in rsp.keys
                if k not in answered and k not in
                ('TargetPortalGroupTag', 'TargetAlias', 'TargetAddress',
                 'MaxRecvDataSegmentLength')]
        if rsp.flags & LOGIN_T and rsp.flags & 3 == FFP:
            break
    else:
        raise Fail(f'operational stage did not end: {rsp}')
    conn.tsih = rsp.tsih
    conn.neg = dict(op or [])
    conn.maxcmdsn = rsp.maxcmdsn
    return 'logged in'


def scsi_status(rsp, what):
    if rsp.response:
        raise Answer(f'{what}: SCSI Response {rsp.response}')
    if rsp.scsi_status in ERROR_STATUS:
        raise Answer(f'{what}: SCSI status 0x{rsp.scsi_status:02x}')
    if rsp.scsi_status:
        raise Fail(f'{what}: SCSI status 0x{rsp.scsi_status:02x}')


def tcp_write(conn, lba, data):
    itt = conn.next_itt()
    send(conn, scsi_cmd(F_FINAL | F_WRITE, itt, len(data), conn.take_cmdsn(),
                        conn.expstatsn, cdb10(0x2a, lba, len(data) // BLOCK)))
    while True:
        pdu = rx(conn)
        if pdu.op == OP_R2T and pdu.itt == itt:
            try:
                conn.answer_r2t(pdu, data)
            except (ConnectionError, OSError) as err:
                raise Closed(f'closed while sending data ({err})') from None
            continue
        return expect_op(pdu, OP_SCSI_RSP, itt)


def tcp_read(conn, lba, blocks):
    itt = conn.next_itt()
    send(conn, scsi_cmd(F_FINAL | F_READ, itt, blocks * BLOCK,
                        conn.take_cmdsn(), conn.expstatsn,
                        cdb10(0x28, lba, blocks)))
    buf = bytearray(blocks * BLOCK)
    while True:
        pdu = rx(conn)
        if pdu.itt != itt or pdu.op not in (OP_DATA_IN, OP_SCSI_RSP):
            raise Fail(f'unexpected {pdu}')
        if pdu.op == OP_DATA_IN:
            buf[pdu.w40:pdu.w40 + len(pdu.data)] = pdu.data
            if not pdu.flags & F_STATUS:
                continue
        return pdu, bytes(buf)


def iser_write(conn, lba, data):
    itt = conn.send_write(lba, data)
    return expect_op(rx(conn), OP_SCSI_RSP, itt)


def iser_read(conn, lba, blocks):
    from ixt_iser_raw import ctrl_hdr
    n = blocks * BLOCK
    conn.data_mr.write(b'\xee' * n, n, 0)
    itt = conn.next_itt()
    conn.send_pdu(scsi_cmd(F_FINAL | F_READ, itt, n, conn.take_cmdsn(),
                           conn.expstatsn, cdb10(0x28, lba, blocks)),
                  ctrl=ctrl_hdr(rstag=conn.data_mr.rkey,
                                rva=conn.data_mr.buf))
    rsp = expect_op(rx(conn), OP_SCSI_RSP, itt)
    return rsp, conn.data_mr.read(n, 0)


def unit_attention(rsp):
    return rsp.scsi_status == 0x02 and rsp.sense[2:3] == b'\x06'


def nop(conn, data=b''):
    itt = conn.next_itt()
    send(conn, nop_out(itt, conn.take_cmdsn(), conn.expstatsn), data)
    pdu = expect_op(rx(conn), OP_NOP_IN, itt)
    if pdu.data != data:
        raise Fail('the NOP-In does not echo the ping data')


def logout(conn):
    itt = conn.next_itt()
    send(conn, logout_req(itt, conn.cmdsn, conn.expstatsn))
    rsp = expect_op(rx(conn), OP_LOGOUT_RSP, itt)
    if rsp.response:
        raise Answer(f'Logout Response {rsp.response}')
    try:
        pdu = conn.recv_pdu()
    except (ConnectionError, OSError):
        pdu = None
    if pdu is not None:
        raise Fail(f'expected the connection closed after Logout, got {pdu}')


def held_nop(conn):
    """A NOP-Out with CmdSN n+1 before the READ with CmdSN n: the NOP is
    held behind the hole, then both are answered."""
    n = conn.take_cmdsn()
    nop_itt, read_itt = conn.next_itt(), conn.next_itt()
    send(conn, nop_out(nop_itt, conn.take_cmdsn(), conn.expstatsn))
    send(conn, scsi_cmd(F_FINAL | F_READ, read_itt, 8 * BLOCK, n,
                        conn.expstatsn, cdb10(0x28, RW_LBA, 8)))
    want = {nop_itt, read_itt}
    while want:
        pdu = rx(conn)
        if pdu.itt not in want:
            raise Fail(f'unexpected {pdu}')
        if pdu.op == OP_NOP_IN:
            want.discard(pdu.itt)
        elif pdu.op == OP_SCSI_RSP or (pdu.op == OP_DATA_IN and
                                       pdu.flags & F_STATUS):
            scsi_status(pdu, 'READ behind the hole')
            want.discard(pdu.itt)
        elif pdu.op != OP_DATA_IN:
            raise Fail(f'unexpected {pdu}')


def ext_cdb(conn):
    """A 32-byte CDB (READ(32), which the ramdisk refuses): the rest of
    it in an Extended CDB AHS; any SCSI Response will do."""
    cdb = bytearray(32)
    cdb[0], cdb[7] = 0x7f, 0x18
    cdb[8:10] = (0x0009).to_bytes(2, 'big')
    itt = conn.next_itt()
    ahs = (17).to_bytes(2, 'big') + b'\x01\x00' + bytes(cdb[16:32])
    hdr = bytearray(scsi_cmd(F_FINAL, itt, 0, conn.take_cmdsn(),
                             conn.expstatsn, bytes(cdb[:16])))
    hdr[4] = len(ahs) // 4
    send(conn, bytes(hdr) + ahs)
    rsp = expect_op(rx(conn), OP_SCSI_RSP, itt)
    if rsp.response:
        raise Answer(f'32-byte CDB: SCSI Response {rsp.response}')


def tmf(conn, function, rtt, refcmdsn, cmdsn=None):
    itt = conn.next_itt()
    send(conn, tmf_req(function, itt, rtt,
                       conn.cmdsn if cmdsn is None else cmdsn,
                       conn.expstatsn, refcmdsn))
    rsp = expect_op(rx(conn), OP_TMF_RSP, itt)
    if rsp.response:
        raise Answer(f'TMF {function}: TMF Response {rsp.response}')


def abort_never_received(conn):
    """ABORT TASK of CmdSN n, never sent, with CmdSN n+1: taken as
    received; the late NOP-Out with CmdSN n is dropped."""
    n = conn.cmdsn
    n1 = (n + 1) & 0xffffffff
    tmf(conn, 1, 0x4343, n, n1)
    send(conn, nop_out(conn.next_itt(), n, conn.expstatsn))
    conn.cmdsn = n1


def seq_rw(ctx, conn):
    iser = ctx.transport == 'iser'
    login(conn, ctx, op=ctx.op)
    data = os.urandom(RW_BYTES_ISER if iser else RW_BYTES)
    for tries in range(3):
        rsp = (iser_write if iser else tcp_write)(conn, RW_LBA, data)
        if not unit_attention(rsp) or tries == 2:
            break
    scsi_status(rsp, 'WRITE')
    rsp, back = (iser_read if iser else tcp_read)(conn, RW_LBA,
                                                  len(data) // BLOCK)
    scsi_status(rsp, 'READ')
    if back != data:
        raise Fail('the data read back differs from the data written')
    if not iser:
        held_nop(conn)
        ext_cdb(conn)
        abort_never_received(conn)
    tmf(conn, 5, RESERVED_TAG, conn.cmdsn)
    nop(conn, os.urandom(100))
    logout(conn)
    return 'login, write, read, TMF, NOP, logout'


def seq_chap(ctx, conn):
    login(conn, ctx, op=ctx.op)
    logout(conn)
    return 'mutual CHAP login, logout'


def seq_discovery(ctx, conn):
    login(conn, ctx, session='Discovery',
          op=[('HeaderDigest', 'None'), ('DataDigest', 'None')])
    itt = conn.next_itt()
    send(conn, text_req(itt, conn.cmdsn, conn.expstatsn),
         encode_keys([('SendTargets', 'All')]))
    rsp = expect_op(rx(conn), OP_TEXT_RSP, itt)
    names = [v for k, v in decode_keys(rsp.data) if k == 'TargetName']
    if ctx.target not in names:
        raise Fail(f'SendTargets=All gave {decode_keys(rsp.data)}')
    logout(conn)
    return 'discovery login, SendTargets, logout'


def tcp_bidi(conn, lba, data):
    """XDWRITEREAD(10) of @data at @lba, its data solicited by R2Ts, the
    Bidirectional Read Expected Data Transfer Length len(@data): the
    SCSI Response."""
    itt = conn.next_itt()
    hdr = bytearray(scsi_cmd(F_FINAL | F_WRITE | F_READ, itt, len(data),
                             conn.take_cmdsn(), conn.expstatsn,
                             cdb10(0x53, lba, len(data) // BLOCK)))
    ahs = (5).to_bytes(2, 'big') + b'\x02\x00' + len(data).to_bytes(4, 'big')
    hdr[4] = len(ahs) // 4
    send(conn, bytes(hdr) + ahs)
    while True:
        pdu = rx(conn)
        if pdu.itt != itt:
            raise Fail(f'unexpected {pdu}')
        if pdu.op == OP_R2T:
            try:
                conn.answer_r2t(pdu, data)
            except (ConnectionError, OSError) as err:
                raise Closed(f'closed while sending data ({err})') from None
        elif pdu.op != OP_DATA_IN:
            return expect_op(pdu, OP_SCSI_RSP, itt)


def seq_bidi(ctx, conn):
    """For a LUN 0 on a TCMU backstore (tcp_bidi.sh's ixt_tcmu.py), the
    only kind besides pscsi that runs bidirectional commands."""
    login(conn, ctx, op=ctx.op)
    for tries in range(3):
        rsp = tcp_bidi(conn, RW_LBA, os.urandom(2 * BLOCK))
        if not unit_attention(rsp) or tries == 2:
            break
    scsi_status(rsp, 'XDWRITEREAD(10)')
    logout(conn)
    return 'login, XDWRITEREAD(10), logout'


def seq_tur(ctx, conn):
    """TEST UNIT READY until GOOD: every unit attention the target core
    holds for the initiator (a LUN RESET leaves one) is reported, and so
    freed."""
    login(conn, ctx, op=ctx.op)
    for _ in range(8):
        itt = conn.next_itt()
        send(conn, scsi_cmd(F_FINAL, itt, 0, conn.take_cmdsn(),
                            conn.expstatsn, bytes(6)))
        rsp = expect_op(rx(conn), OP_SCSI_RSP, itt)
        if not unit_attention(rsp):
            break
    scsi_status(rsp, 'TEST UNIT READY')
    logout(conn)
    return 'login, TEST UNIT READY until GOOD, logout'


SEQS = {'rw': seq_rw, 'chap': seq_chap, 'discovery': seq_discovery,
        'bidi': seq_bidi, 'tur': seq_tur}


def connect(ctx):
    if ctx.transport == 'iser':
        from ixt_iser_raw import IserConnection
        return IserConnection(ctx.host, ctx.port, timeout=ctx.timeout,
                              initiator=ctx.initiator)
    return Connection(ctx.host, ctx.port, timeout=ctx.timeout,
                      initiator=ctx.initiator)


def run(ctx):
    """One run of the sequence: ('ok' | 'answer' | 'closed' | 'fail',
    what happened)."""
    conn = None
    try:
        try:
            conn = connect(ctx)
        except Exception as err:        # the iSER CM's refusal, say
            if ctx.transport == 'iser' and type(err).__name__ == 'Rejected':
                return 'closed', f'connection request rejected: {err}'
            raise
        conn.isid = 0x800000000000 | int.from_bytes(os.urandom(3), 'big')
        return 'ok', SEQS[ctx.seq](ctx, conn)
    except Answer as err:
        return 'answer', str(err)
    except Closed as err:
        return 'closed', str(err)
    except (Fail, socket.timeout, TimeoutError) as err:
        return 'fail', f'{type(err).__name__}: {err}'
    except Exception as err:            # pyverbs, the iSER client's Timeout
        return 'fail', f'{type(err).__name__}: {err}'
    finally:
        if conn is not None:
            try:
                conn.close()
            except Exception:
                pass


def owned(mods):
    """{cache:site: objects} of the slab objects in use that @mods (module
    names) allocated, from SLUB's user tracking (slub_debug=U), as
    lib.sh's ixt_owned_objects counts them; None without tracking."""
    top = '/sys/kernel/debug/slab'
    tags = [f'[{m}]' for m in mods]
    out = {}
    try:
        caches = os.listdir(top)
    except OSError:
        return None
    for cache in caches:
        # Left out as ixt_owned_objects does, and TCP's TIME_WAIT
        # sockets, which outlive a connection the target closed by 60 s.
        if (cache.startswith(('skbuff_', 'tcp_bind', 'tw_sock_TCP')) or
                cache == 'vmap_area'):
            continue
        try:
            with open(f'{top}/{cache}/alloc_traces') as f:
                text = f.read()
        except OSError:
            continue
        n, site, hit = 0, None, False
        for line in text.splitlines() + ['  0 end']:
            words = line.split()
            if words and words[0].isdigit() and len(words) > 1:
                if n and hit and not site.startswith(
                        'radix_tree_node:__radix_tree_preload'):
                    out[site] = out.get(site, 0) + n
                n, site = int(words[0]), f'{cache}:{words[1]}'
                hit = any(t in line for t in tags)
            elif not hit and any(t in line for t in tags):
                hit = True
                site += '<' + words[0]
    return out


def owned_growth(ctx):
    """The sites that grew since ctx.owned, after up to 5 s (RCU, the
    target core's work items); '' when none did."""
    if ctx.owned is None:
        return ''
    for _ in range(10):
        now = owned(ctx.mods)
        grown = {k: v - ctx.owned.get(k, 0) for k, v in now.items()
                 if v > ctx.owned.get(k, 0)}
        if not grown:
            return ''
        time.sleep(0.5)
    ctx.owned = now
    return 'objects left: ' + ' '.join(f'{k} +{v}' for k, v in grown.items())


def settled(ctx):
    """What is wrong after a run, or ''."""
    if not no_session():
        return 'a session is left'
    if not pool_free():
        return 'cache lines are missing from the pool'
    return owned_growth(ctx) if ctx.mods else ''


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--target', required=True)
    ap.add_argument('--host', default=os.environ.get('IXT_ADDR4_T',
                                                     '192.0.2.1'))
    ap.add_argument('--port', type=int, default=3260)
    ap.add_argument('--initiator', default='iqn.2026-11.org.example:ixt-fault')
    ap.add_argument('--transport', choices=('tcp', 'iser'), default='tcp')
    ap.add_argument('--seq', choices=sorted(SEQS), required=True)
    ap.add_argument('--chap', help='USER:SECRET:MUTUAL_USER:MUTUAL_SECRET')
    ap.add_argument('--timeout', type=float, default=10.0,
                    help='seconds without an answer that fail a run')
    ap.add_argument('--owned', metavar='MODULE,...',
                    help='after each run, no slab object of these modules '
                    'left (slub_debug=U; slow)')
    how = ap.add_mutually_exclusive_group(required=True)
    how.add_argument('--nth', action='store_true',
                     help='fail allocation N = 1, 2, ... to the end')
    how.add_argument('--sites', action='store_true',
                     help="fail each site's first allocation once")
    how.add_argument('--count', action='store_true',
                     help='the clean run alone')
    ap.add_argument('--only', metavar='PREFIX,...',
                    help='--sites: only the sites whose names start so')
    ap.add_argument('--ends', action='store_true',
                    help="--sites: each site's second and last allocation "
                    'too')
    ctx = ap.parse_args()
    ctx.op = None
    if ctx.transport == 'iser':
        from ixt_iser_raw import ISER_KEYS
        ctx.op = ISER_KEYS
    else:
        ctx.op = op_keys()

    ctx.mods = ctx.owned.split(',') if ctx.owned else []
    ctx.owned = None
    arm(0)
    before = sites()
    kind, what = run(ctx)
    k = read_int(f'{FAULT}/count')
    hits = {s: n - before[s][0] for s, (n, _) in sites().items()
            if n > before[s][0]}
    print(f'count {k}: ' + ' '.join(f'{s}={n}' for s, n in sorted(hits.items())),
          flush=True)
    if kind != 'ok' or settled(ctx):
        print(f'FAIL 0 clean: {what} {settled(ctx)}', flush=True)
        return 1
    if ctx.count:
        return 0
    if ctx.mods:
        ctx.owned = owned(ctx.mods)

    if ctx.sites:
        only = tuple(ctx.only.split(',')) if ctx.only else ('',)
        plan = []
        for site, n in sorted(hits.items()):
            if site.startswith(only):
                plan += [(i, site) for i in sorted({1, 2, n} if ctx.ends
                                                   else {1}) if i <= n]
    else:
        plan = [(n, None) for n in range(1, 2 * k + 10)]
    failed = runs = 0
    start, i, topped = sites(), 0, ctx.sites
    while i < len(plan) or not topped:
        if i == len(plan):
            # What runs beside the sequence (the accept work, say) can
            # shift the order: a site the walk never failed fails once.
            topped = True
            now = sites()
            missed = [s for s in sorted(hits) if now[s][1] == start[s][1]]
            if missed:
                print(f'missed: {" ".join(missed)}', flush=True)
            plan += [(1, s) for s in missed]
            continue
        nth, site = plan[i]
        i += 1
        before = sites()
        injected = read_int(f'{FAULT}/injected')
        arm(nth, site)
        t0 = time.monotonic()
        kind, what = run(ctx)
        took = time.monotonic() - t0
        arm(0)
        hit = [s for s, (_, f) in sites().items() if f > before[s][1]]
        where = ','.join(hit) or (site or '-')
        if read_int(f'{FAULT}/injected') == injected:
            if site is not None:
                print(f'ok {nth} {site}: not reached this time', flush=True)
                continue
            # Past the end: nothing failed, so the run must succeed.
            if kind != 'ok':
                print(f'FAIL {nth} -: no failure injected, yet {what}')
                failed += 1
            print(f'end {nth}: past the last allocation', flush=True)
            del plan[i:]
            continue
        runs += 1
        bad = settled(ctx)
        if kind == 'fail' or bad:
            print(f'FAIL {nth} {where}: {what} {bad} ({took:.1f} s)',
                  flush=True)
            failed += 1
            continue
        kind2, what2 = run(ctx)
        bad = settled(ctx)
        if kind2 != 'ok' or bad:
            print(f'FAIL {nth} {where}: {kind}: {what}; then the unarmed '
                  f'run: {what2} {bad}', flush=True)
            failed += 1
            continue
        print(f'ok {nth} {where}: {kind}: {what} ({took:.1f} s)', flush=True)
    print(f'walk: {runs} failures injected, {failed} runs failed', flush=True)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
