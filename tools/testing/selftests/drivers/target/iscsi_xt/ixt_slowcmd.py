#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Commands the backend holds for seconds, for tcp_slow_backend.sh
(stdlib only).

    ixt_slowcmd.py --target IQN [--host ADDR] --delay S [--depth N] [--iser] CASE...

LUN 0 is iblock over dm-delay: its first MiB is linear, the rest holds
every write and discard (UNMAP) for --delay seconds, which iblock waits
for in the call (blkdev_issue_discard()). LUN 1 is fileio over dm-delay
holding every read and write: fileio reads and writes in the call. The
cases send such a command and, behind it on the same connection, a
NOP-Out or a fast READ, and check when the answers come: a command the
backend holds must not hold up the connection (the answers behind it
come before the backend lets it go), except where SAM orders it (an
ORDERED command after it waits). With --iser the cases run
over iSER (ixt_iser_raw.py, which needs pyverbs): reads land by RDMA
WRITE, a solicited parameter list is fetched by RDMA READ.
"""

import os
import struct
import sys
import threading
import time

from ixt_iscsi import (
    F_FINAL, F_READ, F_STATUS, F_WRITE, OP_ASYNC, OP_DATA_IN, OP_NOP_IN,
    OP_R2T, OP_LOGOUT_RSP, OP_SCSI_RSP, Cases, Connection, cdb10, data_out, expect,
    login_checked, logout_req, nop_out, op_keys, read_back, scsi_cmd)

ATTR_SIMPLE, ATTR_ORDERED = 1, 2
ASYNC_LOGOUT_REQUEST = 1
LUN0, LUN1 = 0, 1 << 48
SLOW_LBA = 4096                 # past LUN 0's linear first MiB
LONG_LBA = 1 << 20              # its second half, held --long-delay
FAST_LBA = 0                    # inside it
UNMAP_BLOCKS = 2048
IMMEDIATE = {'ImmediateData': 'Yes'}
# Slack on the backend's delay for the clocks (jiffies against monotonic).
SURE = 0.95

CASES = Cases()
case = CASES.case


def login(ctx, changes=None, initiator=None, timeout=None, session=0):
    """A connection logged in with the transport's default keys and the
    @changes (immediate data by default), as --initiator or @initiator,
    each LUN's unit attentions taken (TEST UNIT READY until GOOD); its
    answers may take three times the backend's delay, or @timeout
    seconds. A @session other than 0 changes the ISID: another session
    of the same initiator."""
    changes = IMMEDIATE if changes is None else changes
    kw = dict(timeout=timeout or 3 * ctx.delay + 10,
              initiator=initiator or ctx.initiator)
    if ctx.iser:
        import ixt_iser_raw
        conn = ixt_iser_raw.IserConnection(ctx.host, ctx.port, **kw)
        keys = ixt_iser_raw.iser_keys(**changes)
    else:
        conn = Connection(ctx.host, ctx.port, **kw)
        keys = op_keys(**changes)
    conn.isid ^= session
    login_checked(conn, ctx.target, keys)
    for lun in (LUN0, LUN1):
        for _ in range(4):
            itt = command(conn, bytes(6), lun)
            if conn.recv_expect(OP_SCSI_RSP, itt).scsi_status == 0:
                break
    return conn


def command(conn, cdb, lun, attr=ATTR_SIMPLE, data=b'', read=0, imm=False):
    """Sends a SCSI Command (an immediate one with @imm) with @data as
    immediate data, or reading @read bytes (over iSER into the
    connection's data buffer); returns its ITT."""
    itt = conn.next_itt()
    flags = F_FINAL | (F_WRITE if data else 0) | (F_READ if read else 0)
    cmdsn = conn.cmdsn if imm else conn.take_cmdsn()
    hdr = bytearray(scsi_cmd(flags, itt, len(data) or read, cmdsn,
                             conn.expstatsn, cdb, lun=lun, imm=imm))
    hdr[1] = hdr[1] & ~7 | attr
    if read and hasattr(conn, 'data_mr'):
        import ixt_iser_raw
        conn.send_pdu(bytes(hdr), ctrl=ixt_iser_raw.ctrl_hdr(
            rstag=conn.data_mr.rkey, rva=conn.data_mr.buf))
    else:
        conn.send_pdu(bytes(hdr), data)
    return itt


def unmap_cdb_data(lba, blocks):
    """UNMAP of one range: its CDB and its parameter list."""
    data = struct.pack('>HH4x', 22, 16) + struct.pack('>QI4x', lba, blocks)
    return struct.pack('>BB4xBHB', 0x42, 0, 0, len(data), 0), data


def unmap(conn, attr=ATTR_SIMPLE, imm=False, lba=SLOW_LBA):
    """UNMAP of LUN 0's held range (at @lba), its parameter list as
    immediate data."""
    cdb, data = unmap_cdb_data(lba, UNMAP_BLOCKS)
    return command(conn, cdb, LUN0, attr, data=data, imm=imm)


def fast_read(conn, attr=ATTR_SIMPLE):
    """READ(10) of 8 blocks of LUN 0's linear first MiB."""
    return command(conn, cdb10(0x28, FAST_LBA, 8), LUN0, attr, read=4096)


def nop(conn):
    """An immediate NOP-Out that wants an answer; returns its ITT."""
    itt = conn.next_itt()
    conn.send_pdu(nop_out(itt, conn.cmdsn, conn.expstatsn, imm=True))
    return itt


def answers(conn, itts, start):
    """Receives until each of @itts is answered (NOP-In, SCSI Response,
    or Data-In with status); every SCSI status must be GOOD. Returns
    {ITT: seconds from @start (time.monotonic()) to its answer} and the
    ITTs in the order their answers came."""
    got, order = {}, []
    while len(order) < len(itts):
        pdu = conn.recv_pdu()
        expect(pdu is not None, f'connection closed, answered {order}')
        expect(pdu.itt in itts, f'unexpected {pdu}')
        if pdu.op == OP_DATA_IN and not pdu.flags & F_STATUS:
            continue
        expect(pdu.op in (OP_NOP_IN, OP_SCSI_RSP, OP_DATA_IN), f'unexpected {pdu}')
        if pdu.op != OP_NOP_IN:
            expect(pdu.scsi_status == 0 and (pdu.op == OP_DATA_IN or pdu.response == 0),
                   f'{pdu}, sense {pdu.sense.hex()}')
        got[pdu.itt] = time.monotonic() - start
        order.append(pdu.itt)
    return got, order


def held_for_delay(ctx, got, held):
    """Each ITT of @held was answered (@got: {ITT: seconds}) --delay in at
    least: dm-delay holds a bio from when it gets it, never less."""
    for itt in held:
        expect(got[itt] >= SURE * ctx.delay,
               f'ITT 0x{itt:x} answered after {got[itt]:.2f} s: the backend '
               f'did not hold it {ctx.delay} s, so the case proves nothing')


def timed(ctx, conn, start, held, fast=(), late=()):
    """Answers to @held, each of which the backend holds --delay seconds
    at least (sent after @start), to the ITTs @fast, which must come
    before any backend could have let one of @held go (within --delay of
    @start), and to the ITTs @late, which must wait for one of them (not
    before --delay). Returns the answers' times and order."""
    got, order = answers(conn, list(held) + list(fast) + list(late), start)
    held_for_delay(ctx, got, held)
    for itt in fast:
        expect(got[itt] < ctx.delay,
               f'ITT 0x{itt:x} answered after {got[itt]:.2f} s, not before '
               f'the backend let a held command go ({ctx.delay} s): held up by it')
    for itt in late:
        expect(got[itt] >= SURE * ctx.delay,
               f'ITT 0x{itt:x} answered after {got[itt]:.2f} s: it did not '
               f'wait for the held command ({ctx.delay} s)')
    return got, order


def file_lba(ctx):
    """Where on LUN 1 a case reads or writes: never read before by the
    other transport's run, so never in the page cache."""
    return (1 << 20) + (1 << 12 if ctx.iser else 0)


def spans(got):
    """The answers' times, for the log line."""
    return ', '.join(f'0x{itt:x} {t:.2f} s' for itt, t in got.items())


def done(conn, what):
    conn.logout()
    return what


def behind(ctx, send_held, send_next, late=False, changes=None):
    """Logs in (with @changes, as login()), sends the command
    @send_held(conn) returns the ITT of, then what @send_next(conn)
    sends, and checks when the answers come (timed()): the next one
    before the backend can have let the held command go, or with @late
    not before. Logs out; returns the times for the log line."""
    conn = login(ctx, changes)
    start = time.monotonic()
    held = send_held(conn)
    then = [send_next(conn)]
    got, _ = timed(ctx, conn, start, [held], fast=[] if late else then,
                   late=then if late else [])
    return done(conn, spans(got))


def solicited_unmap(ctx, conn):
    """UNMAP of LUN 0's held range, its parameter list solicited: by an
    R2T, or over iSER by an RDMA READ of the target."""
    cdb, data = unmap_cdb_data(SLOW_LBA, UNMAP_BLOCKS)
    if ctx.iser:
        return conn.send_write(0, data, cdb=cdb, lun=LUN0)
    itt = conn.next_itt()
    conn.send_pdu(scsi_cmd(F_FINAL | F_WRITE, itt, len(data),
                           conn.take_cmdsn(), conn.expstatsn, cdb, lun=LUN0))
    r2t = conn.recv_expect(OP_R2T, itt)
    conn.send_pdu(data_out(itt, r2t.ttt, conn.expstatsn, 0, 0, lun=LUN0), data)
    return itt


@case
def case_unmap_nop(ctx):
    """UNMAP held by the backend, then a NOP-Out: the NOP-In comes before
    the backend lets the UNMAP go."""
    return behind(ctx, unmap, nop)


@case
def case_unmap_r2t_nop(ctx):
    """The same with the parameter list solicited (an R2T, or over iSER an
    RDMA READ): the write runs when its data is in, and the NOP-In still
    comes before the backend lets it go."""
    return behind(ctx, lambda conn: solicited_unmap(ctx, conn), nop,
                  changes={})


@case
def case_unmap_read_passes(ctx):
    """UNMAP held by the backend, then a SIMPLE READ of another range: SAM
    lets it pass, and it does: answered before the backend lets the UNMAP
    go."""
    return behind(ctx, unmap, fast_read)


@case
def case_unmap_then_ordered(ctx):
    """SIMPLE UNMAP held by the backend, then an ORDERED READ: the READ
    is not answered before the backend lets the UNMAP go."""
    return behind(ctx, unmap, lambda conn: fast_read(conn, ATTR_ORDERED),
                  late=True)


@case
def case_fileio_read_nop(ctx):
    """READ of a fileio LUN whose device holds reads, then a NOP-Out: the
    NOP-In comes before the backend lets it go."""
    return behind(ctx, lambda conn: command(
        conn, cdb10(0x28, file_lba(ctx), 8), LUN1, read=4096), nop)


@case
def case_fileio_write_nop(ctx):
    """WRITE of a fileio LUN whose device holds writes (its data
    immediate), then a NOP-Out: the NOP-In comes before the backend lets
    it go."""
    return behind(ctx, lambda conn: command(
        conn, cdb10(0x2a, file_lba(ctx) + 64, 8), LUN1,
        data=b'\xa5' * 4096), nop)


@case
def case_held_bounded(ctx):
    """Three times --depth immediate UNMAPs, then a NOP-Out: each UNMAP
    takes a place of the command window as it arrives (at most --depth,
    less if the slow backend shrank the window), so at most --depth of
    them reach the backend, which holds each --delay; the others are
    answered TASK SET FULL at once, and so is the NOP-Out, which waits for
    none of them. Before, immediate commands took no place: all went to
    the backend, --depth at once, and the NOP-Out waited two delays."""
    conn = login(ctx)
    n = 3 * ctx.depth
    start = time.monotonic()
    sent = [unmap(conn, imm=True) for _ in range(n)]
    ping = nop(conn)
    got, status = {}, {}
    while len(got) < n + 1:
        pdu = conn.recv_pdu()
        expect(pdu is not None, f'connection closed, answered {list(got)}')
        expect(pdu.itt in sent and pdu.op == OP_SCSI_RSP or
               pdu.itt == ping and pdu.op == OP_NOP_IN, f'unexpected {pdu}')
        got[pdu.itt] = time.monotonic() - start
        if pdu.op == OP_SCSI_RSP:
            status[pdu.itt] = pdu.scsi_status
    held = [i for i in sent if status[i] == 0]
    full = [i for i in sent if status[i] == 0x28]
    expect(len(held) + len(full) == n,
           f'statuses {sorted(set(status.values()))}: GOOD or TASK SET FULL '
           f'expected')
    expect(1 <= len(held) <= ctx.depth,
           f'{len(held)} of {n} immediate UNMAPs GOOD with a queue depth of '
           f'{ctx.depth}')
    held_for_delay(ctx, got, held)
    expect(got[ping] < ctx.delay,
           f'NOP-In after {got[ping]:.2f} s: it waited for a held UNMAP')
    return done(conn, f'{len(held)} of {n} UNMAPs held, {len(full)} TASK SET '
                f'FULL, NOP-In after {got[ping]:.2f} s')


# held_fills_no_queue: the UNMAPs of the "-deep" ACL's session (queue
# depth 320), more than a workqueue runs at once on a CPU (256).
DEEP_UNMAPS = 300


def deep_login(ctx, need, session=0, waits=2):
    """A session of the "-deep" ACL (queue depth 320; @session as
    login()'s), whose answers may take @waits times --long-delay, and
    whose window takes @need commands at once, or the case proves
    nothing."""
    conn = login(ctx, initiator=ctx.initiator + '-deep', session=session,
                 timeout=waits * ctx.long_delay + 10)
    room = (conn.maxcmdsn - conn.cmdsn + 1) & 0xffffffff
    expect(room >= need,
           f'a window of {room}, fewer than {need}: the case proves nothing')
    return conn


@case
def case_held_fills_no_queue(ctx):
    """DEEP_UNMAPS UNMAPs of one session (the "-deep" ACL, queue depth
    320), each held by the backend --long-delay in a work item of its
    own: more than a per-CPU workqueue runs at once. Another session's
    NOP-Out is answered within half that all the same: the commands'
    work items do not share a workqueue with the receive paths (before,
    the receive work of every other session waited behind them until the
    backend let some go, 2.05 s with a delay of 2 s)."""
    other = login(ctx)
    deep = deep_login(ctx, DEEP_UNMAPS)
    start = time.monotonic()
    sent = [unmap(deep, lba=LONG_LBA) for _ in range(DEEP_UNMAPS)]
    time.sleep(0.5)                     # each in its work item, held
    ping = nop(other)
    got, _ = answers(other, [ping], start)
    expect(got[ping] < ctx.long_delay / 2,
           f'the other session\'s NOP-In after {got[ping]:.2f} s: it waited '
           f'behind the held UNMAPs')
    held, _ = answers(deep, sent, start)
    expect(held[sent[0]] >= SURE * ctx.long_delay,
           f'the first UNMAP answered after {held[sent[0]]:.2f} s: the backend '
           f'did not hold it {ctx.long_delay} s, so the case proves nothing')
    done(deep, '')
    return done(other, f'{DEEP_UNMAPS} UNMAPs held; the other session\'s '
                f'NOP-In after {got[ping]:.2f} s')


@case
def case_held_other_initiator(ctx):
    """DEEP_UNMAPS UNMAPs in each of two sessions of the "-deep"
    initiator, held by the backend --long-delay: more than the 512 work
    items a workqueue runs at once. Another initiator's TEST UNIT READY,
    which runs in a work item too (not a READ or a WRITE), is answered
    within half that delay all the same: each initiator's work items
    have a workqueue of its own. Before, the module's one workqueue ran
    512 of the UNMAPs, and the TEST UNIT READY waited behind the others
    until the backend let the first go."""
    other = login(ctx)
    deep = [deep_login(ctx, DEEP_UNMAPS, session=i, waits=3) for i in (1, 2)]
    start = time.monotonic()
    sent = [[unmap(conn, lba=LONG_LBA) for _ in range(DEEP_UNMAPS)]
            for conn in deep]
    time.sleep(0.5)                     # each in its work item, held
    tur = command(other, bytes(6), LUN0)
    got, _ = answers(other, [tur], start)
    expect(got[tur] < ctx.long_delay / 2,
           f"the other initiator's TEST UNIT READY after {got[tur]:.2f} s: "
           f'it waited behind the held UNMAPs')
    for conn, itts in zip(deep, sent):
        held, _ = answers(conn, itts, start)
        expect(held[itts[0]] >= SURE * ctx.long_delay,
               f'the first UNMAP answered after {held[itts[0]]:.2f} s: the '
               f'backend did not hold it {ctx.long_delay} s, so the case '
               f'proves nothing')
        done(conn, '')
    return done(other, f'2 x {DEEP_UNMAPS} UNMAPs of one initiator held; '
                f"another's TEST UNIT READY after {got[tur]:.2f} s")


# lend_bounded: iSER's receive buffers a connection lends at most as the
# buffers of writes whose data is all immediate (IXT_ISER_LEND_MAX), and
# more such writes than that, at once.
LEND_MAX = 128
LEND_WRITES = 160
ISER_STATS = '/sys/kernel/debug/iscsi_xt_iser/stats'


def iser_stat(name):
    """A counter of the iSER module's debugfs stats file."""
    with open(ISER_STATS) as f:
        return int(next(ln.split()[1] for ln in f if ln.split()[0] == name))


def lend_writes(conn, lba, data):
    """One WRITE of 4 KiB at @lba on, all immediate data, for each 4 KiB
    of @data; returns their ITTs."""
    return [command(conn, cdb10(0x2a, lba + 8 * i, 8), LUN0,
                    data=data[4096 * i:4096 * (i + 1)])
            for i in range(len(data) // 4096)]


@case
def case_lend_bounded(ctx):
    """iSER only: LEND_WRITES writes of 4 KiB, each all immediate data,
    sent at once on the "-deep" ACL's session (queue depth 320) to LUN
    0's range that holds writes --long-delay: the first LEND_MAX take the
    receive buffer their data came in as their buffer (rx_lent), the
    rest find the connection lending that many already and have their
    data copied into cache lines (rx_lend_full); all GOOD, read back
    equal. Then 8 more writes outside the held range are lent again,
    from the buffers the first gave back."""
    expect(ctx.iser, 'a case of the iSER transport')
    conn = deep_login(ctx, LEND_WRITES)
    data = os.urandom(4096 * LEND_WRITES)
    lent, full = iser_stat('rx_lent'), iser_stat('rx_lend_full')
    start = time.monotonic()
    got, _ = answers(conn, lend_writes(conn, LONG_LBA, data), start)
    lent, full = iser_stat('rx_lent') - lent, iser_stat('rx_lend_full') - full
    first = min(got.values())
    expect(first >= SURE * ctx.long_delay,
           f'the first write answered after {first:.2f} s: the backend did '
           f'not hold them {ctx.long_delay} s, so the case proves nothing')
    expect(lent == LEND_MAX and full == LEND_WRITES - LEND_MAX,
           f'{lent} writes lent their receive buffers and {full} found the '
           f'connection full, expected {LEND_MAX} and '
           f'{LEND_WRITES - LEND_MAX}')
    read_back(conn, LONG_LBA, data)
    again = iser_stat('rx_lent')
    answers(conn, lend_writes(conn, FAST_LBA, data[:8 * 4096]),
            time.monotonic())
    again = iser_stat('rx_lent') - again
    expect(again == 8, f'{again} of 8 later writes lent their buffers')
    return done(conn, f'{lent} lent, {full} copied, all read back; 8 lent '
                f'after')


@case
def case_close_while_held(ctx):
    """UNMAP held by the backend, and the connection closed at once: a new
    session reads LUN 0 while it is still held."""
    conn = login(ctx)
    unmap(conn)
    conn.close()
    conn = login(ctx)
    answers(conn, [fast_read(conn)], time.monotonic())
    return done(conn, 'a new session reads')


@case
def case_logout_asked_while_held(ctx):
    """The TPG disabled while an UNMAP is held: the target asks for a
    logout (Async Message), the client logs out at once, and the Logout
    Response comes before the connection closes (after the UNMAP's
    answer, unless the backend holds it past the logout work's 5 s). Before, the disable closed the connection as soon as the
    session had left the logged-in list, while the logout work still
    waited for the UNMAP, so the Logout Response was never sent: open-
    iscsi then waited its logout timeout (15 s) before another path."""
    enable = f'/sys/kernel/config/target/iscsi/{ctx.target}/tpgt_1/enable'
    conn = login(ctx)
    start = time.monotonic()
    held = unmap(conn)
    time.sleep(0.5)                     # in the backend, held
    disable = threading.Thread(target=lambda: open(enable, 'w').write('0'))
    disable.start()
    try:
        pdu = conn.recv_pdu()
        expect(pdu is not None and pdu.op == OP_ASYNC and
               pdu.hdr[36] == ASYNC_LOGOUT_REQUEST,
               f'expected the Async Message asking for a logout, got {pdu}')
        itt = conn.next_itt()
        conn.send_pdu(logout_req(itt, conn.cmdsn, conn.expstatsn))
        got = {}
        while itt not in got:
            pdu = conn.recv_pdu()
            expect(pdu is not None,
                   f'connection closed after {time.monotonic() - start:.2f} s '
                   f'with no Logout Response (answered: {sorted(got)})')
            expect(pdu.op in (OP_SCSI_RSP, OP_LOGOUT_RSP) and
                   pdu.itt in (held, itt), f'unexpected {pdu}')
            got[pdu.itt] = time.monotonic() - start
        expect(conn.recv_pdu() is None, 'more after the Logout Response')
    finally:
        disable.join()
        with open(enable, 'w') as f:
            f.write('1')
    return f'Logout Response after {got[itt]:.2f} s' + (
        f', the UNMAP answered after {got[held]:.2f} s' if held in got else '')


def options(ap):
    ap.add_argument('--delay', type=float, required=True,
                    help='seconds the LUNs\' backends hold a command')
    ap.add_argument('--long-delay', type=float, required=True,
                    help='seconds the second half of LUN 0 holds a write or discard')
    ap.add_argument('--iser', action='store_true', help='run over iSER')
    ap.add_argument('--depth', type=int, default=4,
                    help='the session\'s queue depth (the TPG\'s default_cmdsn_depth)')


if __name__ == '__main__':
    sys.exit(CASES.main(__doc__, 'iqn.2026-11.org.example:ixt-slowcmd',
                        options))
