#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Raw iSER initiator for the iscsi_xt kselftests (rdma-core's pyverbs).

It connects through the RDMA CM with or without the iSER CM header, sends
iSER messages (the iSER header, a BHS built by ixt_iscsi.py, data) as RDMA
Sends -- short, with unknown iSER flags, announcing more than they carry
-- and exposes its write and read buffers by STag and address, right or
wrong, and checks the target's answer (RFC 7145, RFC 7143):

    ixt_iser_raw.py --target IQN [--host ADDR] [--repeat N] CASE...

runs the named cases (see --list) and prints one line per case; the exit
status is 0 when the target answered every case as expected. The case
silent, with --initiator and --answer SECONDS, is iser_keepalive.sh's
initiator that stops answering the target's NOP-Ins after SECONDS. Needs
python3-pyverbs (/usr/bin/python3) and the RDMA device the target's
portal listens on (soft-RoCE rxe0 in the VM, or soft-iWARP siw0).
"""

import json
import os
import select
import signal
import struct
import subprocess
import sys
import time

import pyverbs.cm_enums as ce
import pyverbs.enums as e
from pyverbs.cmid import CMID, AddrInfo, CMEvent, CMEventChannel, ConnParam
from pyverbs.cq import CQ
from pyverbs.mr import MR
from pyverbs.pyverbs_error import PyverbsError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

from ixt_iscsi import (
    ANSWER_SECS, BLOCK, F_FINAL, F_READ, F_WRITE, FFP, LOGIN_T, OPER,
    RESERVED_TAG, SEC, SLOW, LS_INIT_ERR, OP_LOGIN_RSP, OP_NOP_IN, OP_REJECT,
    OP_SCSI_RSP, OP_TMF_RSP,
    DECLARATIVE, REASON_PROTOCOL_ERROR, Connection, Fail, Pdu, cdb10, data_out,
    expect, kmsg_mark, kmsg_since, login_flags, nop_out, op_keys, scsi_cmd,
    tmf_req, Cases, good, joined_to, login_checked, nop_logout, pattern_kept,
    pool_field, pool_free, pool_free_settled, read_back, slab_checked)

# The iSER CM header (include/scsi/iser.h, RFC 7145).
ISER_ZBVA_NOT_SUP, ISER_SEND_W_INV_NOT_SUP = 0x80, 0x40
# The iSER header: flags, 3 reserved, write STag and VA, read STag and VA.
ISCSI_CTRL, ISER_HELLO, ISER_WSV, ISER_RSV = 0x10, 0x20, 0x08, 0x04
ISER_HDR = struct.Struct('>B3xIQIQ')
HDRS = ISER_HDR.size + 48

# What the initiator declares: its receive buffers hold that much data.
RECV_DSL = 8192
SLOT = 16384            # one receive or send buffer: headers, AHS, data
NR_RECV = 64
NR_SEND = 128
DATA_BUF = 4 << 20      # the write and read buffer

# Keys of an iSER login (RFC 7145): no MaxRecvDataSegmentLength.
def iser_keys(**changes):
    """The keys of an iSER login, with op_keys()'s @changes."""
    keys = dict(MaxRecvDataSegmentLength=None, RDMAExtensions='Yes',
                TargetRecvDataSegmentLength=str(RECV_DSL),
                InitiatorRecvDataSegmentLength=str(RECV_DSL))
    return op_keys(**{**keys, **changes})


ISER_KEYS = iser_keys()

# Where on the LUN (512-byte blocks) the writes go.
RW_LBA = 16
BAD_LBA = 1024          # writes that fail, BAD_BLOCKS long, GUARD either side
BAD_BLOCKS = 128
GUARD = 16
ABORT_LBA = 8192        # 4 MiB

ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_READ |
          e.IBV_ACCESS_REMOTE_WRITE)


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout()


def rdma_cm_fds():
    """The descriptors of this process open on /dev/infiniband/rdma_cm."""
    fds = set()
    for fd in os.listdir('/proc/self/fd'):
        try:
            if os.readlink(f'/proc/self/fd/{fd}').endswith('/rdma_cm'):
                fds.add(int(fd))
        except OSError:
            pass
    return fds


class Rejected(Exception):
    """The connection request was answered by an RDMA CM event other than
    the connect response (or, over iWARP, established)."""


class IserConnection(Connection):
    """One iSER connection (RC QP through the RDMA CM), with the session's
    counters of ixt_iscsi.Connection, whose login, NOP, logout and PDU
    checks it reuses: only sending and receiving differ."""

    def __init__(self, host, port=3260, timeout=ANSWER_SECS, initiator=None,
                 cm_hdr=bytes([ISER_ZBVA_NOT_SUP | ISER_SEND_W_INV_NOT_SUP,
                               0, 0, 0]), nr_recv=NR_RECV, resources=16):
        self.init_session(timeout, initiator)
        self.closed = False
        # Receives posted at connect; each message received is posted
        # again while @repost.
        self.nr_recv = nr_recv
        self.repost = True
        self.qp = self.cq = self.pd = self.cmid = None
        self.iwarp = False
        self.mrs = []
        self.rx = []            # (buffer, length) of messages received
        self.send_free = list(range(NR_SEND))
        self.send_errors = []
        before = rdma_cm_fds()
        self.channel = CMEventChannel()
        new = rdma_cm_fds() - before
        self.cm_fd = new.pop() if len(new) == 1 else None
        try:
            self._connect(host, port, cm_hdr, resources)
        except BaseException:
            self.close()
            raise

    def _event(self, timeout):
        """The next RDMA CM event (type, string), or None after @timeout."""
        if self.cm_fd is not None:
            if not select.select([self.cm_fd], [], [], timeout)[0]:
                return None
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, timeout if self.cm_fd is None else 5)
        try:
            ev = CMEvent(self.channel)
        except (Timeout, PyverbsError):
            return None
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
        got = ev.event_type, ev.event_str()
        ev.ack_cm_event()
        return got

    def _wait_event(self, want, timeout=ANSWER_SECS):
        got = self._event(timeout)
        if got is None:
            raise Fail(f'no RDMA CM event within {timeout} s, expected {want}')
        if got[0] != want:
            raise Rejected(got[1])

    def _connect(self, host, port, cm_hdr, resources):
        self.cmid = CMID(creator=self.channel, port_space=ce.RDMA_PS_TCP)
        ai = AddrInfo(dst=host, dst_service=str(port),
                      port_space=ce.RDMA_PS_TCP)
        self.cmid.resolve_addr(ai)
        self._wait_event(ce.RDMA_CM_EVENT_ADDR_RESOLVED)
        self.cmid.resolve_route()
        self._wait_event(ce.RDMA_CM_EVENT_ROUTE_RESOLVED)
        self.pd = self.cmid.pd
        self.cq = CQ(self.cmid.context, 2 * (NR_SEND + NR_RECV), None, None, 0)
        cap = QPCap(max_send_wr=NR_SEND, max_recv_wr=NR_RECV,
                    max_send_sge=1, max_recv_sge=1)
        self.qp = QP(self.pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.cq,
                                         rcq=self.cq, cap=cap), QPAttr())
        self.recv_mr = self._mr(NR_RECV * SLOT)
        self.send_mr = self._mr(NR_SEND * SLOT)
        self.data_mr = self._mr(DATA_BUF)
        param = ConnParam(resources=resources, depth=16, flow_control=1,
                          retry=7, rnr_retry=7, qp_num=self.qp.qp_num,
                          data_len=len(cm_hdr or b''))
        if cm_hdr is not None:
            param.set_private_data(cm_hdr)
        self._qp_to(e.IBV_QPS_INIT)
        for i in range(self.nr_recv):
            self._post_recv(i)
        self.cmid.connect(param)
        got = self._event(10)
        if got is None:
            raise Fail('no RDMA CM event within 10 s, expected the '
                       'connect response or, over iWARP, established')
        # iWARP: the connection is a TCP one, whose CM moves the QP to RTS.
        if got[0] == ce.RDMA_CM_EVENT_ESTABLISHED:
            self.iwarp = True
            return
        if got[0] != ce.RDMA_CM_EVENT_CONNECT_RESPONSE:
            raise Rejected(got[1])
        # RoCE: INIT's access rights (the target's RDMA READs of our
        # buffers) come from the IB CM, which exists once connected: INIT
        # again, or every READ of a write fails with a remote access error.
        self._qp_to(e.IBV_QPS_INIT)
        self._qp_to(e.IBV_QPS_RTR)
        self._qp_to(e.IBV_QPS_RTS)
        self.cmid.establish()

    def _qp_to(self, state):
        attr, mask = self.cmid.init_qp_attr(state)
        self.qp.modify(attr, mask)

    def _mr(self, length, access=ACCESS):
        mr = MR(self.pd, length, access)
        self.mrs.append(mr)
        return mr

    def close(self):
        if self.cmid is not None and not self.closed and self.qp is not None:
            try:
                self.cmid.disconnect()
                self._event(1)
            except PyverbsError:
                pass
        self.closed = True
        for obj in [self.qp] + self.mrs[::-1] + [self.cq, self.cmid,
                                                  self.channel]:
            if obj is not None:
                obj.close()
        self.qp = self.cq = self.cmid = self.channel = None
        self.mrs = []

    def _post_recv(self, i):
        sge = SGE(self.recv_mr.buf + i * SLOT, SLOT, self.recv_mr.lkey)
        self.qp.post_recv(RecvWR(wr_id=i, num_sge=1, sg=[sge]))

    # Completions.
    def _poll(self):
        """Takes what the CQ holds; returns whether it held anything."""
        n, wcs = self.cq.poll(32)
        for wc in wcs[:n]:
            if wc.wr_id < NR_RECV:
                if wc.status == e.IBV_WC_SUCCESS:
                    self.rx.append((wc.wr_id, wc.byte_len))
                else:
                    self.closed = True
            else:
                self.send_free.append(wc.wr_id - NR_RECV)
                if wc.status != e.IBV_WC_SUCCESS:
                    self.send_errors.append(wc.status)
                    self.closed = True
        return n > 0

    def _pump(self, timeout):
        """Polls the CQ and the RDMA CM until a message is received, the
        connection ends, or @timeout seconds pass."""
        end = time.monotonic() + timeout
        while not self.rx:
            if self._poll():
                continue
            if self.closed:
                return
            left = end - time.monotonic()
            if left <= 0:
                return
            got = self._event(min(left, 0.005)) if self.cm_fd is not None \
                else time.sleep(min(left, 0.005))
            if got:
                # Disconnected (or failed): what was sent before is in the CQ.
                time.sleep(0.05)
                self._poll()
                self.closed = True

    def _readable(self, timeout):
        self._pump(timeout)
        return bool(self.rx) or self.closed

    def _recv_pdu(self, timeout):
        self._pump(timeout or self.timeout)
        if not self.rx:
            if self.closed:
                return None
            raise Fail('no answer from the target')
        slot, n = self.rx.pop(0)
        msg = self.recv_mr.read(n, slot * SLOT)
        if self.repost:
            self._post_recv(slot)
        expect(n >= HDRS, f'a {n}-byte message')
        expect(msg[0] & 0xf0 == ISCSI_CTRL, f'iSER flags 0x{msg[0]:02x}')
        hdr = msg[ISER_HDR.size:HDRS]
        ahs = hdr[4] * 4
        dlength = int.from_bytes(hdr[5:8], 'big')
        expect(HDRS + ahs + dlength <= n,
               f'{n}-byte message announcing {ahs} + {dlength} bytes')
        return self._account(Pdu(hdr, msg[HDRS + ahs:HDRS + ahs + dlength]))

    # Sending.
    def send(self, raw, inv=None):
        """One RDMA Send of @raw, as it is; a Send with Invalidate of the
        STag @inv if given."""
        while not self.send_free:
            self._poll()
            expect(not self.closed, 'connection closed')
        slot = self.send_free.pop(0)
        self.send_mr.write(raw, len(raw), slot * SLOT)
        sge = SGE(self.send_mr.buf + slot * SLOT, len(raw), self.send_mr.lkey)
        wr = SendWR(wr_id=NR_RECV + slot, num_sge=1, sg=[sge],
                    send_flags=e.IBV_SEND_SIGNALED,
                    opcode=e.IBV_WR_SEND if inv is None else e.IBV_WR_SEND_WITH_INV)
        if inv is not None:
            # ibv_send_wr's invalidate_rkey shares imm_data's place;
            # libsiw sends wr.rdma.rkey instead: both carry the STag.
            wr.imm_data = inv
            wr.set_wr_rdma(inv, 0)
        self.qp.post_send(wr)

    def send_pdu(self, hdr, data=b'', dlength=None, corrupt='', ctrl=None):
        """Send the iSER header @ctrl (by default ISCSI_CTRL, no STags),
        the BHS with DataSegmentLength (or @dlength) and the data; no
        padding, no digest (RFC 7145). Returns the BHS."""
        h = bytearray(hdr)
        h[5:8] = (len(data) if dlength is None else dlength).to_bytes(3, 'big')
        if ctrl is None:
            ctrl = ctrl_hdr()
        self.send(ctrl + bytes(h) + data)
        return bytes(h)

    # Login and SCSI.
    def login(self, target, op_keys=None, extra=None, tsih=0, cid=0):
        got = super().login(target, ISER_KEYS if op_keys is None else op_keys,
                            extra, tsih, cid)
        self.target_mrdsl = int(self.neg.get('TargetRecvDataSegmentLength',
                                             RECV_DSL))
        return got

    def read(self, lba, blocks, pdus=None, lun=0):
        """READ(10) into the data buffer (RDMA WRITEs of the target):
        returns (status, data)."""
        n = blocks * BLOCK
        self.data_mr.write(b'\xee' * n, n, 0)
        itt = self.next_itt()
        self.send_pdu(scsi_cmd(F_FINAL | F_READ, itt, n, self.take_cmdsn(),
                               self.expstatsn, cdb10(0x28, lba, blocks),
                               lun=lun),
                      ctrl=ctrl_hdr(rstag=self.data_mr.rkey,
                                    rva=self.data_mr.buf))
        rsp = self.recv_expect(OP_SCSI_RSP, itt)
        return rsp.scsi_status, self.data_mr.read(n, 0)

    def send_write(self, lba, data, imm=0, unsol=False, stag=None, va=None,
                   edtl=None, cdb=None, lun=0):
        """WRITE(10) of @data at @lba of @lun (or the CDB @cdb) from the
        data buffer: its first @imm bytes immediate, with @unsol
        (InitialR2T=No) unsolicited Data-Outs up to FirstBurstLength, the
        rest for the target to fetch by RDMA READ at @stag and @va (by
        default the data buffer's, at the first solicited byte). Returns
        the ITT."""
        if data:
            self.data_mr.write(data, len(data), 0)
        edtl = len(data) if edtl is None else edtl
        first = imm
        if unsol:
            first = min(int(self.neg['FirstBurstLength']), edtl)
        itt = self.next_itt()
        ctrl = ctrl_hdr()
        if first < edtl:
            ctrl = ctrl_hdr(self.data_mr.rkey if stag is None else stag,
                            self.data_mr.buf + first if va is None else va)
        if cdb is None:
            cdb = cdb10(0x2a, lba, edtl // BLOCK)
        self.send_pdu(scsi_cmd(F_WRITE | (0 if unsol else F_FINAL), itt, edtl,
                               self.take_cmdsn(), self.expstatsn, cdb,
                               lun=lun),
                      data[:imm], ctrl=ctrl)
        if unsol:
            self.send_sequence(itt, RESERVED_TAG, data, imm, first)
        return itt

    def write(self, lba, data, imm=0, unsol=False, cdb=None, lun=0):
        itt = self.send_write(lba, data, imm, unsol, cdb=cdb, lun=lun)
        return self.recv_expect(OP_SCSI_RSP, itt)


def ctrl_hdr(wstag=None, wva=0, rstag=None, rva=0, flags=ISCSI_CTRL):
    """An iSER header: ISCSI_CTRL, WSV and RSV with the STags given."""
    if wstag is not None:
        flags |= ISER_WSV
    if rstag is not None:
        flags |= ISER_RSV
    return ISER_HDR.pack(flags, wstag or 0, wva, rstag or 0, rva)


# The cases: each raises Fail, or returns what it saw for the log line.
CASES = Cases()
case = CASES.case


def connect(ctx, **kw):
    return IserConnection(ctx.host, ctx.port, initiator=ctx.initiator, **kw)


def logged_in(ctx, keys=None, **want):
    return login_checked(connect(ctx), ctx.target, keys, **want)


def lun_unchanged(ctx, body, lba=BAD_LBA, blocks=BAD_BLOCKS):
    """Runs body(), a write to @blocks blocks at @lba that must not land:
    fills them and GUARD blocks either side with a fresh pattern over iSER
    first (RDMA READs), reads them back on a new session after (RDMA
    WRITEs). Returns body()'s result."""
    return pattern_kept(lambda: logged_in(ctx), body, lba, blocks, GUARD,
                        read_first=True)


def closed(conn, what):
    conn.expect_closed()
    conn.close()
    return f'{what}: connection closed'


def refused(ctx, cm_hdr, what, **kw):
    try:
        conn = connect(ctx, cm_hdr=cm_hdr, **kw)
    except Rejected as err:
        expect(str(err) == 'RDMA_CM_EVENT_REJECTED',
               f'{what}: {err}, expected RDMA_CM_EVENT_REJECTED')
        return f'{what}: RDMA_CM_EVENT_REJECTED'
    conn.close()
    raise Fail(f'{what}: the connection was accepted')


@case
def case_cm_no_header(ctx):
    """A connection request without private data: rejected."""
    return refused(ctx, None, 'no iSER CM header')


@case
def case_cm_zbva(ctx):
    """A connection request whose iSER CM header lacks ZBVA_NOT_SUP (the
    initiator would use zero-based addresses): rejected."""
    return refused(ctx, bytes([ISER_SEND_W_INV_NOT_SUP, 0, 0, 0]),
                   'iSER CM header without ZBVA_NOT_SUP')


@case
def case_cm_no_reads(ctx):
    """A connection request with no responder resources (the target could
    have no RDMA READ in flight, so no write's data could be fetched, and
    each write would hold its lines until the connection went):
    rejected."""
    return refused(ctx, bytes([ISER_ZBVA_NOT_SUP | ISER_SEND_W_INV_NOT_SUP,
                               0, 0, 0]), 'no responder resources',
                   resources=0)


MAX_LOGIN = '/sys/module/iscsi_xt/parameters/max_login_conns'
FAULT = '/sys/kernel/debug/iscsi_xt/fault'
CAP_REFUSED = 4


def stall(ms, site):
    """The next pass through fault.c's stall @site sleeps @ms ms."""
    with open(f'{FAULT}/stall', 'w') as f:
        f.write(f'{ms} {site}\n')


def site_hits(*names):
    """The allocations counted at each fault injection site of @names."""
    with open(f'{FAULT}/sites') as f:
        hits = {w[0]: int(w[1]) for w in map(str.split, f) if len(w) > 1}
    return [hits[n] for n in names]


@case
def case_login_cap_first(ctx):
    """max_login_conns 1 and one connection in login: 4 more connection
    requests are rejected (RDMA_CM_EVENT_REJECTED) before the target
    builds anything for them: no protection domain, completion queue,
    queue pair or receive buffer is allocated (the counts of their fault
    injection sites stay). Each request has a connection of its own in
    login (the cap set to 1 only around it): on a slow kernel (the debug
    one under TCG) four refusals outlast one login's timeout. Then the
    last logs in and out."""
    with open(MAX_LOGIN) as f:
        cap = f.read().strip()
    sites = ('iser_pd', 'iser_cq', 'iser_qp', 'iser_rx')
    grown = [0] * len(sites)
    a = None
    for _ in range(CAP_REFUSED):
        if a:
            a.close()
        a = connect(ctx)
        with open(MAX_LOGIN, 'w') as f:
            f.write('1')
        try:
            before = site_hits(*sites)
            refused(ctx, bytes([ISER_ZBVA_NOT_SUP, 0, 0, 0]),
                    'a connection past max_login_conns')
            after = site_hits(*sites)
        finally:
            with open(MAX_LOGIN, 'w') as f:
                f.write(cap)
        grown = [g + n - b for g, b, n in zip(grown, before, after)]
    built = ', '.join(f'{s} +{g}' for s, g in zip(sites, grown) if g)
    expect(not built, f'allocated for the {CAP_REFUSED} refused: {built}')
    nop_logout(login_checked(a, ctx.target))
    return f'{CAP_REFUSED} requests past max_login_conns refused, nothing built'


@case
def case_accept_fail_flush(ctx):
    """A connection whose setup fails after its first login receive is
    posted (its second receive buffer's allocation made to fail, a fault
    injection build), 4 times: rejected; the receive its queue pair
    flushes as it goes closes nothing (before, it queued the release
    work of a connection the accept path then freed); the shell checks
    the kernel log."""
    try:
        for _ in range(4):
            with open(f'{FAULT}/fail', 'w') as f:
                f.write('2 iser_rx\n')
            refused(ctx, bytes([ISER_ZBVA_NOT_SUP, 0, 0, 0]),
                    'a connection whose receive buffer failed')
    finally:
        with open(f'{FAULT}/fail', 'w') as f:
            f.write('0\n')
    return '4 connections failed at their second receive buffer, rejected'


@case
def case_login_fails_in_accept(ctx):
    """A login refused (an unknown target, 0x0203) while the target's
    accept path has not yet published the connection (stall
    iser_accept, 3 s): the Login Request waits until it has, then the
    answer comes and the connection closes; 22 s on (past the 15 s login
    deadline the publication started) SLUB finds no freed object
    touched and the kernel logs no Oops. Before, the refused login
    closed the connection at once, and the accept path then put the
    connection being freed on the list and under its login deadline,
    which fired into freed memory."""
    log = kmsg_mark()
    stall(3000, 'iser_accept')
    conn = connect(ctx, timeout=10)
    keys = conn.leading_keys(ctx.target + '.none')
    rsp = conn.login_pdu(login_flags(SEC, OPER, transit=True), keys)
    expect(rsp is not None and rsp.op == OP_LOGIN_RSP and
           rsp.status == 0x0203, f'login to an unknown target: {rsp}')
    conn.close()
    time.sleep(22)
    slab_checked(log)
    return nop_logout(logged_in(ctx))


@case
def case_login_logout(ctx):
    """A whole login over iSER, a NOP exchange, a Logout."""
    return nop_logout(logged_in(ctx))


def bad_message(ctx, build, what):
    conn = logged_in(ctx)
    conn.nop()
    conn.send(build(conn))
    return closed(conn, what)


@case
def case_msg_10_bytes(ctx):
    """A 10-byte message, shorter than the iSER header: closed."""
    return bad_message(ctx, lambda c: ctrl_hdr()[:10], '10 bytes')


@case
def case_msg_60_bytes(ctx):
    """A 60-byte message: the iSER header and 32 bytes of BHS: closed."""
    return bad_message(ctx, lambda c: (ctrl_hdr() + nop_out(
        c.next_itt(), c.cmdsn, c.expstatsn))[:60], '60 bytes')


@case
def case_msg_not_ctrl(ctx):
    """An iSER Hello (flags 0x20) in full feature phase, and flags 0x00:
    closed."""
    seen = []
    for flags in (ISER_HELLO, 0):
        seen.append(bad_message(ctx, lambda c: ctrl_hdr(flags=flags) + nop_out(
            c.next_itt(), c.cmdsn, c.expstatsn), f'iSER flags 0x{flags:02x}'))
    return '; '.join(seen)


@case
def case_msg_short_data(ctx):
    """A NOP-Out announcing 4096 bytes of data with 100 sent, and one
    announcing 32 bytes of AHS with none sent: closed."""
    def dlen(c):
        h = bytearray(nop_out(c.next_itt(), c.cmdsn, c.expstatsn))
        h[5:8] = (4096).to_bytes(3, 'big')
        return ctrl_hdr() + bytes(h) + b'n' * 100

    def ahs(c):
        h = bytearray(nop_out(c.next_itt(), c.cmdsn, c.expstatsn))
        h[4] = 8
        return ctrl_hdr() + bytes(h)
    return '; '.join((bad_message(ctx, dlen, '4096 data bytes announced, 100 sent'),
                      bad_message(ctx, ahs, '32 AHS bytes announced, none sent')))


def fetch_refused(ctx, what, stag_va):
    """A write of BAD_BLOCKS whose solicited data the target's RDMA READ
    cannot reach (@stag_va(conn) gives STag, VA and the EDTL): closed,
    the LUN unchanged."""
    def run():
        conn = logged_in(ctx)
        stag, va, edtl = stag_va(conn)
        conn.send_write(BAD_LBA, os.urandom(edtl), stag=stag, va=va)
        return closed(conn, what)
    return lun_unchanged(ctx, run)


@case
def case_write_bad_stag(ctx):
    """A write whose write STag is no key of the initiator's: the RDMA READ
    fails (remote access error), closed, the LUN unchanged."""
    return fetch_refused(ctx, 'wrong STag', lambda c: (
        c.data_mr.rkey ^ 0x5a5a00, c.data_mr.buf, BAD_BLOCKS * BLOCK))


@case
def case_write_va_outside(ctx):
    """A write whose write VA starts 4 KiB before the end of the buffer,
    with 64 KiB to fetch: RDMA READ access error, closed, the LUN
    unchanged."""
    return fetch_refused(ctx, 'VA outside the buffer', lambda c: (
        c.data_mr.rkey, c.data_mr.buf + DATA_BUF - 4096, BAD_BLOCKS * BLOCK))


@case
def case_write_edtl_over_buffer(ctx):
    """A write of 64 KiB whose STag names an 8 KiB buffer: RDMA READ
    access error, closed, the LUN unchanged."""
    def small(c):
        mr = c._mr(8192)
        return mr.rkey, mr.buf, BAD_BLOCKS * BLOCK
    return fetch_refused(ctx, 'EDTL over the buffer', small)


@case
def case_write_stag_invalidated(ctx):
    """A write naming a 64 KiB buffer whose MR the initiator deregistered
    (its STag invalid) before sending the command: the RDMA READ fails,
    closed, the LUN unchanged."""
    def gone(c):
        mr = MR(c.pd, BAD_BLOCKS * BLOCK, ACCESS)
        stag, va = mr.rkey, mr.buf
        mr.close()
        return stag, va, BAD_BLOCKS * BLOCK
    return fetch_refused(ctx, 'STag invalidated before the command', gone)


def target_stag():
    """The STag of the newest MR of iscsi_xt_iser ("rdma res"), or None."""
    try:
        out = subprocess.run(['rdma', '-j', 'res', 'show', 'mr'], text=True,
                             capture_output=True, timeout=10).stdout
        mrs = [m for m in json.loads(out or '[]')
               if 'iscsi_xt_iser' in m.get('comm', '') and 'rkey' in m]
    except (OSError, ValueError, subprocess.SubprocessError):
        return None
    if not mrs:
        return None
    rkey = max(mrs, key=lambda m: m['mrn'])['rkey']
    return int(rkey, 16) if isinstance(rkey, str) else rkey


@case
def case_send_with_invalidate(ctx):
    """A NOP-Out sent as Send with Invalidate of a STag of the target (an
    MR of its pool, read from "rdma res"; the target never advertises
    one): closed."""
    conn = logged_in(ctx)
    conn.nop()
    stag = target_stag()
    expect(stag is not None, 'no MR of iscsi_xt_iser in "rdma res show mr"')
    conn.send(ctrl_hdr() + nop_out(conn.next_itt(), conn.take_cmdsn(),
                                   conn.expstatsn), inv=stag)
    return closed(conn, f'Send with Invalidate of STag 0x{stag:x}')


def target_res(kind):
    """The RDMA objects of @kind (pd, qp, mr) that iscsi_xt_iser holds
    ("rdma res")."""
    out = subprocess.run(['rdma', '-j', 'res', 'show', kind], text=True,
                         capture_output=True, timeout=10).stdout
    return [o for o in json.loads(out or '[]')
            if 'iscsi_xt_iser' in o.get('comm', '')]


@case
def case_pd_per_conn(ctx):
    """Two connections logged in, once the target holds no queue pair or
    PD of earlier ones: each of its two queue pairs has a PD of its own
    ("rdma res": two PDs of iscsi_xt_iser), so that no queue pair can
    reach the MRs of another connection. The kernel does not show which
    PD a kernel queue pair is in, and lists an iWARP one as the RDMA
    CM's: the count of PDs tells. In full feature phase, so that no login
    timeout ends one while the resources are listed (on the debug kernel
    a connection request and a listing take seconds each)."""
    end = time.monotonic() + 30
    while (target_res('qp') or target_res('pd')) and time.monotonic() < end:
        time.sleep(0.2)
    expect(not target_res('qp') and not target_res('pd'),
           'queue pairs or PDs of earlier connections left')
    a = logged_in(ctx)
    b = connect(ctx)
    b.isid ^= 1                         # a session of its own
    login_checked(b, ctx.target)
    qps, pds = len(target_res('qp')), len(target_res('pd'))
    a.logout()
    b.logout()
    expect(pds == 2, f'{pds} PDs of iscsi_xt_iser for two connections '
           f'({qps} queue pairs listed as its), expected 2')
    return f'two connections, two PDs ({qps} queue pairs listed as its)'


# A peer that posts no receives (rnr_no_recv): it keeps RNR_RECVS
# receives posted through its login, then posts none and asks for more
# answers than that.
RNR_RECVS = 4
RNR_NOPS = RNR_TURS = 8
# The target's Sends to it meet RNR NAKs and fail once the target's RNR
# retry count (IXT_ISER_RNR_RETRY, 6) runs out: 7 NAKs, with the RNR
# timer the NAK names between them. soft-RoCE names the min_rnr_timer of
# the peer's QP, 0 for every RC QP of the RDMA CM, which encodes the
# longest, 655.36 ms: 6 x 655.36 ms = 3.93 s. The bound leaves the VM
# (TCG) five times that, and stays well below the 45 s after which the
# watchdog would close a connection whose responses stopped leaving.
RNR_TIMER = 0.65536
RNR_RETRY = 6
RNR_BOUND = 20
# How long the case waits for the end at all, to say when it came.
RNR_WAIT = 60


def kmsg_note(msg):
    """Writes @msg into the kernel log, to time what follows."""
    with open('/dev/kmsg', 'w') as f:
        f.write(f'ixt_iser_raw: {msg}\n')


def rnr_flood(conn, sent):
    """rnr_no_recv's requests: RNR_NOPS pings, RNR_TURS immediate TURs
    and a 4 MiB READ, their ITTs added to @sent as each is posted."""
    for i in range(RNR_NOPS):
        sent.add(conn.next_itt())
        conn.send_pdu(nop_out(conn.itt, conn.take_cmdsn(), conn.expstatsn),
                      f'rnr {i}'.encode())
    for _ in range(RNR_TURS):
        sent.add(conn.next_itt())
        conn.send_pdu(scsi_cmd(F_FINAL, conn.itt, 0, conn.cmdsn,
                               conn.expstatsn, bytes(6), imm=True))
    sent.add(conn.next_itt())
    conn.send_pdu(scsi_cmd(F_FINAL | F_READ, conn.itt, DATA_BUF,
                           conn.take_cmdsn(), conn.expstatsn,
                           cdb10(0x28, 0, DATA_BUF // BLOCK)),
                  ctrl=ctrl_hdr(rstag=conn.data_mr.rkey,
                                rva=conn.data_mr.buf))


@case
def case_rnr_no_recv(ctx):
    """A peer that stops posting receives, whose connection request asks
    for RNR retries for ever (rnr_retry_count 7): logged in with 4
    receives posted, it posts none again and sends 8 NOP-Out pings, 8
    immediate TURs and a 4 MiB READ: 4 answers land, the target's next
    Send meets RNR NAKs until the target's own retry count runs out, and
    the target closes the connection within RNR_BOUND s; another session
    (logged in before) reads all the while, and after."""
    conn = connect(ctx, nr_recv=RNR_RECVS)
    other = None
    try:
        login_checked(conn, ctx.target)
        conn.nop(b'rnr')
        expect(window(conn) > RNR_NOPS + 1,
               f'command window {window(conn)}: too small for the flood')
        other = login_checked(IserConnection(
            ctx.host, ctx.port, initiator=ctx.initiator + '-bystander'),
            ctx.target)
        other.nop(b'bystander')
        conn.repost = False
        fd = kmsg_mark()
        mark = f'rnr_no_recv: TSIH {conn.tsih} stops posting receives'
        kmsg_note(mark)
        sent = set()
        t0 = time.monotonic()
        try:
            rnr_flood(conn, sent)
        except PyverbsError as err:
            # iWARP: our device ended the connection at the first answer
            # it had no receive for, maybe before the flood was posted.
            if not conn.iwarp:
                raise
            note = (f'; the post of request {len(sent)} of '
                    f'{RNR_NOPS + RNR_TURS + 1} failed: {err}')
        else:
            note = ''
        # The other session's NOPs and reads, until the connection ends.
        ended, reads = None, 0
        while ended is None and time.monotonic() - t0 < RNR_WAIT:
            other.nop(b'meanwhile')
            status, _ = other.read(0, 256)
            expect(status == 0, f'the other session: READ status 0x{status:02x}')
            reads += 1
            conn._poll()
            got = conn._event(0.05)
            if got is not None:
                ended = time.monotonic() - t0
                how = got[1]
        conn._poll()
        answers = len(conn.rx)
        for _ in range(answers):
            pdu = conn._recv_pdu(1.0)
            expect(pdu is not None and pdu.itt in sent and
                   pdu.op in (OP_NOP_IN, OP_SCSI_RSP),
                   f'unexpected {pdu}')
        expect(ended is not None,
               f'the target did not close the connection in {RNR_WAIT} s '
               f'({answers} answers landed; the other session read '
               f'{reads} times meanwhile)')
        expect(ended <= RNR_BOUND,
               f'the target closed the connection after {ended:.1f} s, '
               f'over the bound of {RNR_BOUND} s ({RNR_RETRY} RNR retries '
               f'x {RNR_TIMER * 1000:.2f} ms = '
               f'{RNR_RETRY * RNR_TIMER:.2f} s, and margin)')
        expect(answers == RNR_RECVS,
               f'{answers} answers landed, not the {RNR_RECVS} receives '
               'left posted')
        expect(reads > 0, 'the other session read nothing meanwhile')
        status, _ = other.read(0, 2048)
        expect(status == 0, f'the other session after: READ status 0x{status:02x}')
        other.logout()
        # When the target said what, from the kernel log (same clock).
        t = {}
        for ts, line in kmsg_since(fd):
            for key, pat in (('mark', mark),
                             ('rnr', 'RNR retry counter exceeded'),
                             ('closed', f'session of {ctx.initiator}, '
                                        f'TSIH {conn.tsih}, closed')):
                if pat in line and key not in t:
                    t[key] = ts
        target = ', '.join(f'{what} {t[key] - t["mark"]:.2f} s'
                           for key, what in (('rnr', 'RNR error after'),
                                             ('closed', 'session closed after'))
                           if key in t and 'mark' in t)
        return (f'{answers} answers landed, then {how} after {ended:.2f} s '
                f'(bound {RNR_BOUND} s); target: {target or "no log line"}; '
                f'the other session read {reads} times meanwhile, and after'
                f'{note}')
    finally:
        conn.close()
        if other is not None:
            other.close()


IMM = iser_keys(ImmediateData='Yes', FirstBurstLength='4096')
UNSOL = iser_keys(ImmediateData='Yes', InitialR2T='No', FirstBurstLength='4096')


@case
def case_imm_over_fbl(ctx):
    """8 KiB of immediate data with FirstBurstLength 4096: Reject 0x04
    carrying the header; the LUN unchanged."""
    def run():
        conn = logged_in(ctx, IMM, ImmediateData='Yes',
                         FirstBurstLength='4096')
        data = os.urandom(BAD_BLOCKS * BLOCK)
        hdr = scsi_cmd(F_FINAL | F_WRITE, conn.next_itt(), len(data),
                       conn.cmdsn, conn.expstatsn,
                       cdb10(0x2a, BAD_LBA, BAD_BLOCKS))
        sent = conn.send_pdu(hdr, data[:8192], ctrl=ctrl_hdr(
            conn.data_mr.rkey, conn.data_mr.buf + 8192))
        rej = conn.recv_expect(OP_REJECT)
        expect(rej.reason == REASON_PROTOCOL_ERROR and rej.data[:48] == sent,
               f'Reject reason 0x{rej.reason:02x}')
        conn.nop()
        conn.logout()
        return 'Reject 0x04, the session goes on'
    return lun_unchanged(ctx, run)


def unsol_write(ctx):
    """A connection with InitialR2T=No and FirstBurstLength 4096, and the
    ITT of a write of BAD_BLOCKS at BAD_LBA sent on it, its unsolicited
    data to come, the rest to be read from 4 KiB into the data MR."""
    conn = logged_in(ctx, UNSOL, InitialR2T='No', FirstBurstLength='4096')
    itt = conn.next_itt()
    conn.send_pdu(scsi_cmd(F_WRITE, itt, BAD_BLOCKS * BLOCK,
                           conn.take_cmdsn(), conn.expstatsn,
                           cdb10(0x2a, BAD_LBA, BAD_BLOCKS)),
                  ctrl=ctrl_hdr(conn.data_mr.rkey, conn.data_mr.buf + 4096))
    return conn, itt


@case
def case_unsol_over_fbl(ctx):
    """InitialR2T=No, FirstBurstLength 4096: an unsolicited Data-Out of
    4608 bytes at offset 0: Reject 0x04, closed; the LUN unchanged."""
    def run():
        conn, itt = unsol_write(ctx)
        sent = conn.send_pdu(data_out(itt, RESERVED_TAG, conn.expstatsn, 0, 0),
                             b'u' * 4608)
        rej = conn.recv_expect(OP_REJECT)
        expect(rej.reason == REASON_PROTOCOL_ERROR and rej.data[:48] == sent,
               f'Reject reason 0x{rej.reason:02x}')
        return closed(conn, 'Reject 0x04')
    return lun_unchanged(ctx, run)


@case
def case_abort_unsol_pending(ctx):
    """InitialR2T=No, FirstBurstLength 4096: a 64 KiB write whose
    solicited 60 KiB the target fetches (RDMA READs) while its 4 KiB of
    unsolicited data never comes, then ABORT TASK of it: Function
    complete, and its cache lines back in the pool at once, not when the
    connection goes (the initiator may never send that data; before, the
    finished fetch kept them); the connection goes on, the LUN unchanged."""
    def run():
        free = pool_free_settled(pool_field('lines'))
        conn, itt = unsol_write(ctx)
        time.sleep(0.5)                 # the fetch is done
        held = free - pool_free()
        expect(held > 0, 'the write holds no cache lines')
        t = conn.next_itt()
        conn.send_pdu(tmf_req(1, t, itt, conn.cmdsn, conn.expstatsn,
                              (conn.cmdsn - 1) & 0xffffffff))
        rsp = conn.recv_expect(OP_TMF_RSP, t)
        expect(rsp.response == 0, f'ABORT TASK: TMF Response {rsp.response}')
        after = pool_free_settled(free)
        expect(after == free, f'{free - after} of the {held} lines the '
               'aborted write held still taken')
        conn.nop()
        conn.logout()
        return f'{held} lines back at the abort'
    return lun_unchanged(ctx, run)


@case
def case_unsol_swapped_datasn(ctx):
    """InitialR2T=No, FirstBurstLength 4096: two 512-byte unsolicited
    Data-Outs in offset order with their DataSNs swapped (offset 0 DataSN
    1, offset 512 DataSN 0): DataSN counts the PDUs of the sequence as
    sent (RFC 7143 section 11.7.5), so the first is a protocol error:
    Reject 0x04 carrying it, closed; the LUN unchanged."""
    def run():
        conn, itt = unsol_write(ctx)
        sent = conn.send_pdu(data_out(itt, RESERVED_TAG, conn.expstatsn, 1, 0,
                                      final=False), b'u' * BLOCK)
        try:
            conn.send_pdu(data_out(itt, RESERVED_TAG, conn.expstatsn, 0,
                                   BLOCK, final=False), b'v' * BLOCK)
        except OSError:
            pass                        # closed already, after the first
        rej = conn.recv_expect(OP_REJECT)
        expect(rej.reason == REASON_PROTOCOL_ERROR and rej.data[:48] == sent,
               f'Reject reason 0x{rej.reason:02x}')
        return closed(conn, 'Reject 0x04')
    return lun_unchanged(ctx, run)


@case
def case_imm_unaligned(ctx):
    """A write of 1024 bytes, 1000 of them immediate, the last 24 fetched
    by RDMA READ; then 8 KiB with 4000 immediate and unsolicited Data-Out
    up to FirstBurstLength 4096, the rest fetched (InitialR2T=No): both
    succeed and read back equal."""
    conn = logged_in(ctx, IMM, ImmediateData='Yes')
    data = os.urandom(1024)
    good(conn.write(RW_LBA, data, imm=1000), '1000 of 1024 bytes immediate')
    read_back(conn, RW_LBA, data)
    conn.logout()
    conn = logged_in(ctx, UNSOL, InitialR2T='No')
    data = os.urandom(8192)
    good(conn.write(RW_LBA, data, imm=4000, unsol=True),
         '4000 immediate, 96 unsolicited, 4096 fetched')
    read_back(conn, RW_LBA, data)
    conn.logout()
    return 'both written and read back equal'


@case
def case_write_read(ctx):
    """64 KiB written (RDMA READs) and read back (RDMA WRITEs) equal."""
    conn = logged_in(ctx)
    data = os.urandom(128 * BLOCK)
    good(conn.write(RW_LBA, data))
    read_back(conn, RW_LBA, data)
    conn.logout()
    return '64 KiB written and read back'


@case
def case_read_no_rsv(ctx):
    """A READ(10) of 4 KiB whose iSER header names no read buffer (no
    RSV): the target cannot send its Data-In, closes the connection and
    sends nothing more; no SCSI Response, which GOOD would complete the
    read with whatever the initiator's buffer held. Before, the response
    was posted all the same."""
    conn = logged_in(ctx)
    conn.nop()
    itt = conn.next_itt()
    conn.send_pdu(scsi_cmd(F_FINAL | F_READ, itt, 8 * BLOCK,
                           conn.take_cmdsn(), conn.expstatsn,
                           cdb10(0x28, 0, 8)))
    return closed(conn, 'READ without a read STag')


LOSE_SENDS = '/sys/module/iscsi_xt_iser/parameters/dbg_lose_sends'


@case
def case_send_lost(ctx):
    """A Send whose completion never comes (dbg_lose_sends, a fault
    injection build): 64 KiB written, the next Send completion the
    target handles made to be lost (that of the write's response, or of
    the read's), the data read back, then a Logout. The answers arrive
    all the same; the PDU stays the target's, and with a response its
    command, until the teardown abandons the Send (the shell checks
    that)."""
    conn = logged_in(ctx)
    data = os.urandom(128 * BLOCK)
    good(conn.write(RW_LBA, data))
    with open(LOSE_SENDS, 'w') as f:
        f.write('1\n')
    read_back(conn, RW_LBA, data)
    conn.logout()
    return '64 KiB written and read back, one Send completion lost'


# text_over_send: 120 keys of the longest name: the request fits the
# target's 8 KiB, the answer (NotUnderstood each) does not.
LONG_KEYS = [(f'X-org.example.{i:03d}'.ljust(63, 'k'), '1') for i in range(120)]


@case
def case_text_over_send(ctx):
    """InitiatorRecvDataSegmentLength 262144, then a Text Request in full
    feature phase of 120 unknown keys whose answer (NotUnderstood each,
    9 KiB) is longer than what the target sends as one Send (8 KiB): it
    comes in parts (C bit), none over 8 KiB, every key answered, and the
    connection goes on. Before, it went in one Send, and an answer over
    the 12 KiB a Send maps (SendTargets of many targets) closed the
    connection."""
    conn = logged_in(ctx, iser_keys(InitiatorRecvDataSegmentLength='262144'))
    keys, parts = conn.text(LONG_KEYS)
    sizes = [len(p.data) for p in parts]
    expect(len(parts) > 1 and max(sizes) <= RECV_DSL,
           f'Text Response parts of {sizes} bytes')
    expect(keys == [(k, 'NotUnderstood') for k, _ in LONG_KEYS],
           f'{len(keys)} answers, {keys[:2]}...')
    conn.nop()
    conn.logout()
    return f'the answer in {len(parts)} parts of {sizes} bytes'


@case
def case_nop_data(ctx):
    """NOP-Outs with 1, 1000 and 8192 bytes of ping data: each NOP-In
    echoes them."""
    conn = logged_in(ctx)
    for n in (1, 1000, RECV_DSL):
        conn.nop(os.urandom(n))
    conn.logout()
    return 'ping data of 1, 1000 and 8192 bytes echoed'


@case
def case_nop_flood(ctx):
    """MaxOutstandingUnexpectedPDUs=4, then 64 immediate NOP-Outs with ping
    data back to back: every one answered by its NOP-In, in order, and the
    session goes on."""
    keys = ISER_KEYS + [('MaxOutstandingUnexpectedPDUs', '4')]
    conn = logged_in(ctx, keys)
    itts = [conn.next_itt() for _ in range(64)]
    for itt in itts:
        conn.send_pdu(nop_out(itt, conn.cmdsn, conn.expstatsn, imm=True),
                      itt.to_bytes(4, 'big') * 16)
    for itt in itts:
        pdu = conn.recv_expect(OP_NOP_IN)
        expect(pdu.itt == itt and pdu.data == itt.to_bytes(4, 'big') * 16,
               f'{pdu}, expected the NOP-In of ITT 0x{itt:08x}')
    conn.nop()
    conn.logout()
    return (f"MaxOutstandingUnexpectedPDUs={conn.neg.get('MaxOutstandingUnexpectedPDUs')}: "
            '64 NOP-Ins in order')


@case
def case_cmdsn_flood(ctx):
    """64 NOP-Outs and 64 READ(10)s with CmdSNs past MaxCmdSN (up to 2^30
    ahead): no answer to any; then a NOP-Out and a READ(10) in the window
    are answered."""
    conn = logged_in(ctx)
    base = conn.maxcmdsn
    for i in range(64):
        sn = (base + 1 + i * (2**24)) & 0xffffffff
        conn.send_pdu(nop_out(conn.next_itt(), sn, conn.expstatsn), b'f' * 64)
        conn.send_pdu(scsi_cmd(F_FINAL | F_READ, conn.next_itt(), 4096, sn,
                               conn.expstatsn, cdb10(0x28, 0, 8)),
                      ctrl=ctrl_hdr(rstag=conn.data_mr.rkey,
                                    rva=conn.data_mr.buf))
    pdu = conn.poll_pdu(1.0)
    expect(pdu is None, f'answered: {pdu}')
    conn.nop()
    status, _ = conn.read(0, 8)
    expect(status == 0, f'READ(10) status 0x{status:02x}')
    conn.logout()
    return '128 PDUs past MaxCmdSN dropped, the session goes on'


BACKLOG_CUTS = 16


def fault_injected():
    with open(f'{FAULT}/injected') as f:
        return int(f.read())


@case
def case_backlog_disconnect(ctx):
    """A receive backlog cut by a disconnect, 16 times: the next cache
    line allocation made to fail as an empty pool would (pool_get, a
    fault injection build), a 64 KiB write, whose lines the core puts
    off (the receive work retries a jiffy later), 8 NOP-Outs queued
    behind it, and the connection torn down at once, while the receive
    work may be handing the backlog over. The teardown cancels that work
    before it drops the backlog (before, it dropped the list under it:
    list corruption, a BUG() with CONFIG_BUG_ON_DATA_CORRUPTION); the
    shell checks the kernel log, the sessions and the pool after."""
    injected = fault_injected()
    data = os.urandom(128 * BLOCK)
    try:
        for _ in range(BACKLOG_CUTS):
            conn = logged_in(ctx)
            with open(f'{FAULT}/fail', 'w') as f:
                f.write('1 pool_get\n')
            conn.send_write(RW_LBA, data)
            for _ in range(8):
                conn.send_pdu(nop_out(conn.next_itt(), conn.take_cmdsn(),
                                      conn.expstatsn), b'b' * 64)
            conn.close()
    finally:
        with open(f'{FAULT}/fail', 'w') as f:
            f.write('0\n')
    n = fault_injected() - injected
    expect(n > 0, 'no cache line allocation failed: no backlog')
    return f'{BACKLOG_CUTS} connections cut, {n} with a backlog'


@case
def case_read_rsp_after_close(ctx):
    """A 256 KiB READ whose response comes once the connection is going:
    its Data-In queued, the target made to wait before the response
    (stall data_in, 1.5 s) and again before its teardown frees what is
    queued (stall iser_tx_stop, 3 s); the initiator disconnects in
    between. The response, queued after the teardown began, must not be
    freed at once, with its command, while the Data-In still waits on
    the queue with the command's buffer mapped: SLUB finds no freed
    object touched, the kernel logs no Oops, and the LUN reads back as
    written."""
    conn = logged_in(ctx)
    data = os.urandom(512 * BLOCK)
    good(conn.write(RW_LBA, data))
    log = kmsg_mark()
    stall(1500, 'data_in')
    stall(3000, 'iser_tx_stop')
    itt = conn.next_itt()
    conn.send_pdu(scsi_cmd(F_FINAL | F_READ, itt, len(data),
                           conn.take_cmdsn(), conn.expstatsn,
                           cdb10(0x28, RW_LBA, 512)),
                  ctrl=ctrl_hdr(rstag=conn.data_mr.rkey,
                                rva=conn.data_mr.buf))
    time.sleep(0.5)                     # its Data-In queued, the target waits
    conn.close()
    time.sleep(5)                       # both stalls over, the teardown done
    slab_checked(log)
    conn = logged_in(ctx)
    read_back(conn, RW_LBA, data)
    conn.logout()
    return 'the response queued after the teardown began freed after ' \
        'its Data-In'


# The iSER module's receive buffers per connection, read when one is accepted.
RECV_DEPTH = '/sys/module/iscsi_xt_iser/parameters/recv_depth'
# recv_depth 40 less the 16 receives kept for unexpected PDUs, one per
# command (InitialR2T=Yes): the window a connection can take.
JOIN_RECVS, JOIN_WINDOW = 40, 24


def window(conn):
    """The command window @conn was last given: MaxCmdSN - ExpCmdSN + 1,
    every request it sent being answered."""
    return (conn.maxcmdsn - conn.cmdsn + 1) & 0xffffffff


@case
def case_mcs_window_limit(ctx):
    """A second connection (MaxConnections=2) joins the session with 40
    receive buffers (recv_depth), fewer than the session's window needs:
    the window comes down to the 24 commands it can take, on both
    connections, once ExpCmdSN has caught up with the old MaxCmdSN."""
    keys = iser_keys(MaxConnections='2')
    a = logged_in(ctx, keys, MaxConnections='2')
    a.nop()
    before = window(a)
    expect(before > JOIN_WINDOW,
           f'window {before} before the join: nothing to lower')
    with open(RECV_DEPTH) as f:
        depth = f.read().strip()
    with open(RECV_DEPTH, 'w') as f:
        f.write(str(JOIN_RECVS))
    try:
        b = joined_to(connect(ctx), a, ctx.target, keys, 1)
    finally:
        with open(RECV_DEPTH, 'w') as f:
            f.write(depth)
    for _ in range(before + 1):
        b.nop()
    expect(window(b) == JOIN_WINDOW,
           f'window {window(b)} on the joined connection, not {JOIN_WINDOW}')
    a.cmdsn = b.cmdsn
    a.nop()
    expect(window(a) == JOIN_WINDOW,
           f'window {window(a)} on the leading connection, not {JOIN_WINDOW}')
    a.logout()
    b.expect_closed(5.0)
    b.close()
    return f'window {before} before the join, {JOIN_WINDOW} after'


@case
def case_abort_large_write(ctx):
    """ABORT TASK of a 4 MiB write right after it (its RDMA READs in
    flight): the TMF Response comes, Function complete (0) or Task does
    not exist (1, after the write's SCSI Response); the session goes on."""
    conn = logged_in(ctx)
    data = os.urandom(DATA_BUF)
    itt = conn.send_write(ABORT_LBA, data)
    t = conn.next_itt()
    conn.send_pdu(tmf_req(1, t, itt, conn.cmdsn, conn.expstatsn,
                          (conn.cmdsn - 1) & 0xffffffff))
    scsi = None
    while True:
        pdu = conn.recv_pdu(timeout=60 * SLOW)
        expect(pdu is not None, 'connection closed')
        if pdu.op == OP_SCSI_RSP and pdu.itt == itt and scsi is None:
            scsi = pdu
            continue
        expect(pdu.op == OP_TMF_RSP and pdu.itt == t, f'unexpected {pdu}')
        break
    expect(pdu.response in (0, 1), f'TMF Response {pdu.response}')
    expect((pdu.response == 1) == (scsi is not None),
           f'TMF Response {pdu.response}, SCSI Response {scsi}')
    late = conn.poll_pdu(0.5)
    expect(late is None, f'after the TMF Response: {late}')
    conn.nop()
    conn.logout()
    return (f'TMF Response {pdu.response}'
            f'{", after the SCSI Response" if scsi else ", no SCSI Response"}')


# The writes cut while their RDMA READs are in flight (iser_badinput.sh
# puts the descriptor builder at its smallest: 512 READs of 4 KiB).
CUT_LBA = ABORT_LBA
CUT = 2 << 20


def write_cut(ctx, cut, what):
    """A CUT-byte write at CUT_LBA that @cut(conn) interrupts right after
    sending it: the target answers the write or closes the connection,
    and the blocks read back afterwards hold either the pattern written
    before or the whole write, never a mix (the target submits a write
    only once all its data has arrived); their neighbours keep the
    pattern."""
    first, n = CUT_LBA - GUARD, CUT // BLOCK + 2 * GUARD
    pattern = os.urandom(n * BLOCK)
    conn = logged_in(ctx)
    good(conn.write(first, pattern), 'writing the pattern')
    conn.logout()
    data = os.urandom(CUT)
    conn = logged_in(ctx)
    itt = conn.send_write(CUT_LBA, data)
    answer = cut(conn)
    if answer is not None:
        good(answer, 'the write answered before the cut')
    conn.close()
    conn = logged_in(ctx)
    status, back = conn.read(first, n)
    conn.logout()
    g = GUARD * BLOCK
    expect(status == 0, f'read status 0x{status:02x}')
    expect(back[:g] == pattern[:g] and back[-g:] == pattern[-g:],
           'the neighbours of the write changed')
    if back[g:-g] == pattern[g:-g]:
        expect(answer is None, 'answered GOOD, yet the write did not land')
        return f'{what}: the write never landed'
    expect(back[g:-g] == data,
           f'{what}: the blocks hold neither the pattern nor the write')
    return f'{what}: the write landed whole (ITT 0x{itt:x})'


@case
def case_write_cut_stag(ctx):
    """A 2 MiB write whose MR the initiator deregisters right after the
    command (the target's RDMA READs in flight): closed (or answered if
    every READ came first), the blocks hold the old pattern or the
    whole write."""
    def cut(conn):
        conn.data_mr.close()
        pdu = conn.recv_pdu(timeout=30 * SLOW)
        expect(pdu is None or pdu.op == OP_SCSI_RSP, f'unexpected {pdu}')
        return pdu
    return write_cut(ctx, cut, 'MR deregistered under the READs')


@case
def case_write_cut_conn(ctx):
    """A 2 MiB write whose connection the initiator tears down (disconnect,
    QP destroyed) right after the command, the target's RDMA READs and
    registrations in flight: the blocks hold the old pattern or the
    whole write."""
    return write_cut(ctx, lambda conn: conn.close(),
                     'connection torn down under the READs')


def op_login(ctx, keys):
    """The security stage, then one operational request with @keys and T:
    the connection and the answer."""
    conn = connect(ctx)
    rsp = conn.login_pdu(login_flags(SEC, OPER, transit=True),
                         conn.leading_keys(ctx.target))
    expect(rsp is not None and rsp.status == 0 and rsp.flags & LOGIN_T,
           f'security stage: {rsp}')
    return conn, conn.login_pdu(login_flags(OPER, FFP, transit=True), keys)


@case
def case_login_rdma_ext_no(ctx):
    """RDMAExtensions=No over iSER: the outcome No cannot go to full
    feature phase on an iSER connection: Login Response 0x0200, closed."""
    keys = op_keys(MaxRecvDataSegmentLength=None, RDMAExtensions='No')
    conn, rsp = op_login(ctx, keys)
    while rsp is not None and rsp.op == OP_LOGIN_RSP and rsp.status == 0:
        expect(not rsp.flags & LOGIN_T or rsp.flags & 3 != FFP,
               f'logged in with RDMAExtensions=No: {rsp.keys}')
        rsp = conn.login_pdu(login_flags(OPER, FFP, transit=True), b'')
    expect(rsp is not None and rsp.op == OP_LOGIN_RSP and
           rsp.status == LS_INIT_ERR, f'expected 0x0200, got {rsp}')
    conn.expect_closed()
    return 'Login Response 0x0200, closed'


@case
def case_login_rdma_ext_unanswered(ctx):
    """No RDMAExtensions sent: the target offers RDMAExtensions=Yes (and
    its iSER keys) and holds the transition to full feature phase while
    the offers are unanswered (an empty request with T gets T=0 again);
    answered, the login ends in full feature phase and the session
    works."""
    keys = op_keys(MaxRecvDataSegmentLength=None)
    conn, rsp = op_login(ctx, keys)
    expect(rsp is not None and rsp.op == OP_LOGIN_RSP and rsp.status == 0 and
           ('RDMAExtensions', 'Yes') in rsp.keys and not rsp.flags & LOGIN_T,
           f'expected the offer RDMAExtensions=Yes, got {rsp} {rsp and rsp.keys}')
    sent = dict(keys)
    answers = []
    for k, v in rsp.keys:
        if k in sent or k in DECLARATIVE:
            continue
        v = v.split(',')[0]
        if k.endswith('RecvDataSegmentLength'):
            v = str(min(int(v), RECV_DSL))
        answers.append((k, v))
    rsp = conn.login_pdu(login_flags(OPER, FFP, transit=True), b'')
    expect(rsp is not None and rsp.op == OP_LOGIN_RSP and rsp.status == 0 and
           not rsp.flags & LOGIN_T,
           f'the offers unanswered: {rsp}, expected status 0 without T')
    conn.login_operational(answers)
    conn.nop(b'rdma')
    conn.logout()
    return ('offered ' + ', '.join(f'{k}' for k, _ in answers) +
            '; no transition until answered')


@case
def case_login_digests(ctx):
    """HeaderDigest and DataDigest CRC32C,None over iSER: answered None;
    CRC32C alone: answered Reject (iSER has no digests, RFC 7145); both
    logins go on, and the NOP-In's echo shows no digest in it."""
    seen = []
    for offer in ('CRC32C,None', 'CRC32C'):
        keys = [(k, offer if k.endswith('Digest') else v) for k, v in ISER_KEYS]
        conn = connect(ctx)
        got = dict(conn.login(ctx.target, keys))
        want = 'None' if ',' in offer else 'Reject'
        for k in ('HeaderDigest', 'DataDigest'):
            expect(got.get(k) == want, f'{k}={offer} answered {got.get(k)}')
        # A digest of the target would shift the data: the echo checks it.
        conn.nop(b'no digest')
        conn.logout()
        seen.append(f'{offer}: {want}')
    return ', '.join(seen) + '; NOP answered without digests'


@case
def case_silent(ctx):
    """For iser_keepalive.sh: logs in, answers the target's NOP-In pings
    for --answer seconds, then answers nothing more but keeps its queue
    pair up and its receive buffers posted (the transport acknowledges
    what the target sends, the iSCSI layer is silent) until the target
    closes the connection; never logs out. Prints "logged in", then a
    line per PDU received ("ping answered", "ping left unanswered" or
    "received PDU"), then "closed"."""
    conn = logged_in(ctx, ISER_KEYS + [('MaxOutstandingUnexpectedPDUs', '0')])
    print('logged in', flush=True)
    end = time.monotonic() + ctx.answer
    answered = unanswered = 0
    while True:
        if not conn._readable(1.0):
            continue
        pdu = conn._recv_pdu(None)
        if pdu is None:
            break
        if time.monotonic() < end and conn._ping(pdu):
            answered += 1
            print('ping answered', flush=True)
        elif pdu.op == OP_NOP_IN and pdu.ttt != RESERVED_TAG:
            unanswered += 1
            print('ping left unanswered', flush=True)
        else:
            print(f'received {pdu}', flush=True)
    print('closed', flush=True)
    conn.close()
    return (f'{answered} pings answered, {unanswered} left unanswered, '
            'closed by the target')


CASES.add_write_residuals(logged_in)


def main():
    def options(ap):
        ap.add_argument('--answer', type=float, default=float('inf'),
                        metavar='SECONDS',
                        help='silent: answer the NOP-Ins that long (default: always)')
    return CASES.main(__doc__, 'iqn.2026-11.org.example:ixt-iser-raw', options,
                      (Fail, Rejected, OSError, PyverbsError))


if __name__ == '__main__':
    sys.exit(main())
