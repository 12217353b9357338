#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Raw initiators that stop reading, for tcp_slow_reader.sh (stdlib only).

    ixt_slowreader.py --target IQN [--host ADDR] [--stall S] CASE...

A peer whose receive window stays shut makes the target queue its
responses. These cases flood such a connection and check what the
target keeps of it, and that the connection ends; the ACL they log in
with must have nopin_timeout and nopin_response_timeout adding up to
--stall seconds. They run in the target's own VM: they read its memory
figures in /proc/meminfo.
"""

import socket
import sys
import threading
import time

from ixt_iscsi import (
    F_FINAL, F_READ, F_WRITE, OP_NOP_IN, OP_R2T, RESERVED_TAG, Cases,
    Connection, Fail, cdb10, data_out, SLOW, Unread, expect, login_checked,
    nop_out, op_keys, pad_len, pool_free, scsi_cmd)

# Most growth of the kernel's slab and vmalloc memory (KiB) that a flood
# may cause: the target's queue bound (256 PDUs, 1 MiB of their own data)
# and the socket buffers of both ends, with room to spare.
GROWTH_KIB = 32 * 1024
# What a NOP-Out flood sends at most (its echoes would be as much).
FLOOD_BYTES = 128 << 20
FLOOD_SECONDS = 20
PING = bytes(range(256)) * 32           # 8 KiB: the target's MRDSL
TCP_ESTABLISHED = 1                     # tcpi_state, <netinet/tcp.h>

CASES = Cases()
case = CASES.case


def raw_pdu(hdr, data=b''):
    """A PDU as sent without digests: @hdr with its DataSegmentLength,
    then @data padded."""
    h = bytearray(hdr)
    h[5:8] = len(data).to_bytes(3, 'big')
    return bytes(h) + data + b'\0' * pad_len(len(data))


def kernel_kib():
    """Slab and vmalloc memory in use, KiB."""
    seen = {}
    with open('/proc/meminfo') as f:
        for line in f:
            name, value = line.split(':', 1)
            seen[name] = int(value.split()[0])
    return seen['Slab'] + seen['VmallocUsed']


class Shut(Unread):
    """A connection with a tiny receive buffer: once logged in, it stops
    reading, and the target's sends fill it at once."""

    def __init__(self, host, port=3260, timeout=10.0, initiator=None):
        super().__init__(host, port, timeout, initiator)

    def flood(self, pdu, seconds):
        """Sends @pdu(i) for i = 0, 1... until FLOOD_BYTES are out, the
        target stopped reading for a second or closed the connection,
        @seconds at most. Returns the bytes sent and the most the
        kernel's memory grew meanwhile, in KiB."""
        sent, i, end = 0, 0, time.monotonic() + seconds
        base = grown = kernel_kib()
        self.sock.settimeout(1.0)
        while sent < FLOOD_BYTES and time.monotonic() < end:
            out = pdu(i)
            try:
                self.sock.sendall(out)
            except (socket.timeout, OSError):
                break
            sent += len(out)
            i += 1
            if i % 256 == 0:
                grown = max(grown, kernel_kib())
        return sent, max(grown, kernel_kib()) - base

    def closed_within(self, seconds):
        """Whether the target closes or resets the connection within
        @seconds, read from the socket's TCP state: reading what the
        target queued would be the progress it waits for."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            info = self.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO,
                                        8)
            if info[0] != TCP_ESTABLISHED:
                return True
            time.sleep(0.5)
        return False


def shut(ctx):
    conn = login_checked(Shut(ctx.host, ctx.port, initiator=ctx.initiator),
                         ctx.target)
    conn.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    return conn


def bounded(ctx, conn, pdu, what):
    """Floods @conn with @pdu(i) and checks the kernel's memory grew by
    less than GROWTH_KIB meanwhile, then that the target closes the
    connection within the stall time and 10 s (or did already)."""
    sent, grown = conn.flood(pdu, FLOOD_SECONDS)
    expect(grown < GROWTH_KIB,
           f'{sent >> 20} MiB of {what} into a shut window: kernel memory '
           f'grew by {grown >> 10} MiB (bound {GROWTH_KIB >> 10} MiB)')
    expect(conn.closed_within(ctx.stall + 10),
           f'the connection still open {ctx.stall + 10} s after the flood')
    return (f'{sent >> 20} MiB of {what} sent, kernel memory +{grown >> 10} '
            f'MiB, connection closed')


@case
def case_nop_flood(ctx):
    """Immediate NOP-Outs with 8 KiB of ping data into a shut window: the
    echoes the target keeps stay bounded, and the connection ends."""
    conn = shut(ctx)
    sn, exp = conn.cmdsn, conn.expstatsn
    return bounded(ctx, conn, lambda i: raw_pdu(
        nop_out(0x10000 + i, sn, exp, imm=True), PING), 'NOP-Outs')


@case
def case_tur_flood(ctx):
    """Immediate TEST UNIT READYs into a shut window (they take no place
    in the command window): bounded, and the connection ends."""
    conn = shut(ctx)
    sn, exp = conn.cmdsn, conn.expstatsn
    tur = bytes(6)
    return bounded(ctx, conn, lambda i: b''.join(raw_pdu(
        scsi_cmd(F_FINAL, (0x10000 + 256 * i + j) & 0xffffffff, 0, sn, exp,
                 tur, imm=True)) for j in range(256)), 'TEST UNIT READYs')


@case
def case_read_flood(ctx):
    """8 MiB READs, as many as the window takes, into a shut window, from
    the initiator --initiator with "-quiet" appended, whose ACL sends no
    NOP-In (nopin_timeout 0): the connection ends within the stall time
    all the same, and another session reads after."""
    conn = login_checked(Shut(ctx.host, ctx.port,
                              initiator=ctx.initiator + '-quiet'), ctx.target)
    blocks = (8 << 20) // 512
    n = 0
    conn.sock.settimeout(1.0)
    try:
        while n < 64:
            conn.send(raw_pdu(scsi_cmd(F_FINAL | F_READ, 0x10000 + n,
                                       8 << 20, conn.cmdsn + n,
                                       conn.expstatsn,
                                       cdb10(0x28, 0, blocks))))
            n += 1
    except OSError:
        pass
    t0 = time.monotonic()
    expect(conn.closed_within(ctx.stall + 10),
           f'the connection still open {ctx.stall + 10} s after its READs')
    took = time.monotonic() - t0
    other = login_checked(Connection(ctx.host, ctx.port,
                                     initiator=ctx.initiator + '-other'),
                          ctx.target)
    status, _ = other.read(0, 128)
    expect(status == 0, f'the other session read: status 0x{status:02x}')
    other.logout()
    return f'{n} READs of 8 MiB unread, closed after {took:.1f} s'


# read_small_pdus: most growth of the kernel's memory (KiB) with the pool's
# worth of reads queued in 512-byte Data-Ins: socket buffers and a
# descriptor a read. Before, a descriptor each Data-In (128 bytes of slab
# a 512-byte PDU) made it a quarter of the pool, 16 MiB of the default.
SMALL_PDU_GROWTH_KIB = 4 * 1024


@case
def case_read_small_pdus(ctx):
    """8 MiB READs as the pool takes them into a shut window, the
    initiator's MaxRecvDataSegmentLength 512 (16384 Data-In PDUs a read),
    from the quiet ACL: the kernel's slab and vmalloc memory grows by
    less than SMALL_PDU_GROWTH_KIB while their Data-In waits, and the
    connection ends within the stall time."""
    conn = Shut(ctx.host, ctx.port, initiator=ctx.initiator + '-quiet')
    login_checked(conn, ctx.target,
                  op_keys(MaxRecvDataSegmentLength='512'))
    conn.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    blocks = (8 << 20) // 512
    base = grown = kernel_kib()
    conn.sock.settimeout(1.0)
    for n in range(8):
        conn.send(raw_pdu(scsi_cmd(F_FINAL | F_READ, 0x10000 + n, 8 << 20,
                                   conn.cmdsn + n, conn.expstatsn,
                                   cdb10(0x28, 0, blocks))))
    end = time.monotonic() + 4 * SLOW
    while time.monotonic() < end:
        grown = max(grown, kernel_kib())
        time.sleep(0.2)
    grown -= base
    expect(grown < SMALL_PDU_GROWTH_KIB,
           f'8 READs of 8 MiB in 512-byte Data-Ins unread: kernel memory '
           f'grew by {grown} KiB (bound {SMALL_PDU_GROWTH_KIB} KiB)')
    expect(conn.closed_within(ctx.stall + 10),
           f'the connection still open {ctx.stall + 10} s after its READs')
    return f'8 READs of 8 MiB in 512-byte PDUs unread: kernel memory +{grown} KiB'


def trickle(sock, stop, got):
    """Every 0.5 s, reads 2 KiB of @sock, its receive buffer set to
    32 KiB, until @stop is set or the connection ends: 4 KiB/s. The
    window reopens by more than a segment each time, so the target's
    send queue keeps moving (a 4 KiB buffer's window stays shut, and the
    target's zero window probes back off past the stall time). @got[0]
    counts the bytes read."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32768)
    sock.setblocking(False)
    while not stop.wait(0.5):
        try:
            b = sock.recv(2048)
        except BlockingIOError:
            continue
        except OSError:
            return
        if not b:
            return
        got[0] += len(b)


def pool_taken_back(ctx, conns, isid, what, trickle):
    """Two seconds after three trickling connections @conns sent their
    twelve 8 MiB @what, the pool must be short and none of them closed;
    then another session (ISID changed by @isid) sends an 8 MiB READ
    again and again while it gets TASK SET FULL: it must go through
    within 20 s (times IXT_SLOW), and one trickling connection at least
    must be closed. @trickle() says what the trickle did so far, for the
    messages. Returns the lines free under the trickle, the seconds the
    READ took, its tries and the connections closed."""
    blocks = (8 << 20) // 512
    time.sleep(2)
    free = pool_free()
    expect(free < 256, f'{free} lines free under 12 {what} of 8 MiB')
    expect(not any(c.closed_within(0.5) for c in conns),
           f'a trickling connection closed before the pool ran short '
           f'({trickle()})')
    # Without NOP-Ins too: read() takes Data-In and responses only.
    other = Connection(ctx.host, ctx.port, timeout=30,
                       initiator=ctx.initiator + '-trickle')
    other.isid ^= isid
    login_checked(other, ctx.target)
    t0 = time.monotonic()
    tries, status = 0, None
    while time.monotonic() < t0 + 20 * SLOW:
        tries += 1
        status, _ = other.read(0, blocks)
        if status != 0x28:
            break
    took = time.monotonic() - t0
    expect(status == 0,
           f'the other session\'s READ, {tries} tries in {took:.1f} s with '
           f'{free} lines free and the trickle on ({trickle()}): '
           f'status 0x{status:02x}')
    # The pool's lines go to two of the three (the third's commands find
    # none). Both are closed when their periods end at one tick (Debian's
    # kernel); on a slower one, the first closed may free the lines the
    # READ waits for, and the pool is no longer short when the second's
    # period ends.
    shut_down = sum(c.closed_within(1) for c in conns)
    expect(shut_down >= 1,
           f'{shut_down} of 3 trickling connections closed {took:.1f} s on')
    other.logout()
    return free, took, tries, shut_down


def trickled(ctx, what, verb, isid, keys, send, worker):
    """Three connections of the "-trickle" ACL's initiator (ISIDs changed
    by @isid on: a session each), each logged in offering @keys, sending
    what send(conn) sends (four 8 MiB @what), then trickling with
    worker(conn, stop, count) in a thread of its own, which counts the
    bytes it moved (@verb) in count[0]; then pool_taken_back(). Returns
    the case's line."""
    stop, count, conns, threads = threading.Event(), [0], [], []
    try:
        for i in range(3):
            conn = Shut(ctx.host, ctx.port,
                        initiator=ctx.initiator + '-trickle')
            conn.isid ^= isid + i
            conns.append(login_checked(conn, ctx.target, keys))
            send(conn)
            threads.append(threading.Thread(target=worker,
                                            args=(conn, stop, count)))
            threads[-1].start()
        free, took, tries, shut_down = pool_taken_back(
            ctx, conns, isid + 6, what, lambda: f'{count[0]} bytes {verb}')
    finally:
        stop.set()
        for t in threads:
            t.join()
    return (f'{free} lines free under 12 {what} of 8 MiB; the trickle '
            f'{verb} {count[0]} bytes; the other READ through after '
            f'{took:.1f} s, {tries} tries; {shut_down} of 3 connections '
            f'closed')


@case
def case_read_trickle(ctx):
    """A peer that reads a trickle holds the lines of its Data-In no
    longer than the pool can spare them: three connections of the
    "-trickle" ACL's initiator (no NOP-In; a send queue may stand still
    30 s, and a trickle wakes the target's sends only once half its
    socket buffer is read), four 8 MiB READs each (Data-In of 256 KiB:
    132 PDUs, within the send queue's bound of 256), take the default
    pool (64 MiB: two of them get its lines, the third's READs are
    answered TASK SET FULL); each then reads 2 KiB every 0.5 s, so
    that its send queue never stands still. Another session's 8 MiB READ
    finds the pool short (TASK SET FULL, sent again at once): while it
    is, the target closes a trickling connection that holds lines once
    PDUs it held 10 s earlier are still unsent, and the other session's
    READ goes through within 20 s (times IXT_SLOW). Before, it was TASK
    SET FULL for as long as the trickle lasted."""
    blocks = (8 << 20) // 512

    def send(conn):
        for n in range(4):
            conn.send(raw_pdu(scsi_cmd(F_FINAL | F_READ, 0x10000 + n, 8 << 20,
                                       conn.cmdsn + n, conn.expstatsn,
                                       cdb10(0x28, 0, blocks))))

    # Data-In of 256 KiB: 33 PDUs a READ.
    return trickled(ctx, 'READs', 'read', 1,
                    op_keys(MaxRecvDataSegmentLength='262144'), send,
                    lambda conn, stop, n: trickle(conn.sock, stop, n))


def write_trickle(conn, stop, sent):
    """Answers each R2T @conn gets with 512 bytes of Data-Out per write
    every 0.5 s, until @stop is set or the connection ends: every write
    makes progress well within dataout_timeout, and none ends. @sent[0]
    counts the bytes sent."""
    due = {}                            # ITT: [TTT, next offset, DataSN]
    try:
        while not stop.is_set():
            pdu = conn.poll_pdu(0.5)
            while pdu is not None:
                if pdu.op == OP_R2T:
                    due[pdu.itt] = [pdu.ttt, pdu.w40, 0]
                pdu = conn.poll_pdu(0)
            for itt, d in due.items():
                conn.send_pdu(data_out(itt, d[0], conn.expstatsn, d[2], d[1],
                                       False), b'w' * 512)
                d[1] += 512
                d[2] += 1
                sent[0] += 512
    except (OSError, Fail):
        return


@case
def case_write_trickle(ctx):
    """The write-side twin of read_trickle: a peer that sends its writes'
    data as a trickle holds their lines no longer than the pool can spare
    them. Three connections of the "-trickle" ACL's initiator, four
    8 MiB WRITEs each, take the default pool (two get its lines, the
    third's writes are answered TASK SET FULL); each answers its R2Ts
    with 512 bytes of Data-Out per write every 0.5 s, within
    dataout_timeout, so no write is ever overdue. Another session's
    8 MiB READ finds the pool short (TASK SET FULL, sent again at once):
    while it is, the target closes a trickling connection with a write
    10 s into its data phase, and the READ goes through within 20 s
    (times IXT_SLOW). Before, it was TASK SET FULL for as long as the
    trickle lasted."""
    blocks = (8 << 20) // 512

    def send(conn):
        for n in range(4):
            conn.send(raw_pdu(scsi_cmd(F_FINAL | F_WRITE, 0x10000 + n,
                                       8 << 20, conn.cmdsn + n,
                                       conn.expstatsn,
                                       cdb10(0x2a, 0, blocks))))
        conn.cmdsn += 4

    return trickled(ctx, 'WRITEs', 'sent', 9, None, send, write_trickle)


@case
def case_nopin_ttt_unpredictable(ctx):
    """Two NOP-Ins of the target's keepalive: the second's TTT is not the
    first's plus one, so a peer that reads nothing cannot answer them."""
    conn = login_checked(Connection(ctx.host, ctx.port,
                                    initiator=ctx.initiator), ctx.target)
    ttts = []
    end = time.monotonic() + 4 * ctx.stall
    while len(ttts) < 2 and time.monotonic() < end:
        if not conn._readable(1.0):
            continue
        pdu = conn._recv_pdu(None)
        expect(pdu is not None, 'connection closed')
        if pdu.op != OP_NOP_IN or pdu.ttt == RESERVED_TAG:
            continue
        ttts.append(pdu.ttt)
        conn.send_pdu(nop_out(RESERVED_TAG, conn.cmdsn, conn.expstatsn,
                              imm=True, ttt=pdu.ttt))
    expect(len(ttts) == 2, f'NOP-Ins seen: {len(ttts)} of 2')
    expect(ttts[1] != (ttts[0] + 1) & 0xffffffff,
           f'TTTs 0x{ttts[0]:08x} then 0x{ttts[1]:08x}: sequential')
    conn.logout()
    return f'TTTs 0x{ttts[0]:08x}, 0x{ttts[1]:08x}'


def main():
    def options(ap):
        ap.add_argument('--stall', type=int, default=6,
                        help="the ACL's nopin_timeout + nopin_response_timeout")
    return CASES.main(__doc__, 'iqn.2026-11.org.example:ixt-slow', options)


if __name__ == '__main__':
    sys.exit(main())
