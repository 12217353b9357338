#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Mutating raw iSCSI initiator for the iscsi_xt kselftests.

    ixt_mutate.py --target IQN --lba-range START:END [--transport tcp|iser]
                  [--seed N] [--seconds S] [--host ADDR] [--lun N] [-v]

Session after session for --seconds, each a valid one at heart: a login
(of which a fraction is mutated: key text, C, T, CSG and NSG, ISID, TSIH,
CID, version), then a script of valid PDUs -- WRITEs with immediate,
unsolicited and solicited data (R2Ts answered as they come; over iSER the
target's RDMA READs), READs, other read-only commands, NOP-Outs, Text
Requests, ABORT TASK, LUN RESET, a second connection joining the session,
and a Logout or a dropped connection.
Each PDU may get, with the session's mutation rate: field mutations in
the BHS (opcode, flags, TotalAHSLength, DataSegmentLength, LUN, ITT,
TTT/EDTL, CmdSN, ExpStatSN, DataSN, Buffer Offset, CDB bytes; over iSER
the iSER header too), a truncation (fewer bytes than announced, then the
next PDU or a close), a swap with the next PDU, a duplicate, or a change
of its data segment (bytes, length, a wrong digest). Answers are read
with short timeouts; the target closing the connection is an answer.

Writes go only to the blocks [START, END) of the LUN: a CDB that a
mutation made into anything else than a read-only command or a write
inside them is given a read-only opcode instead.

Every session draws from its own generator, seeded by --seed (printed at
the start), the transport and its number: --first N --sessions 1 plays
session N of a run again, as far as the target answers the same way; -v
prints every PDU sent and what was done to it. The last line counts
sessions, PDUs, mutations, Rejects, closes by the target and timeouts.
The exit status is 0 unless the client itself broke (an exception other
than a network error): the target's health is for the caller to judge.
"""

import argparse
import collections
import os
import random
import socket
import struct
import sys
import time
import traceback

from ixt_iscsi import (
    BLOCK, F_CONT, F_FINAL, F_READ, F_STATUS, F_WRITE, IMMEDIATE, LOGIN_T,
    OP_ASYNC, OP_DATA_IN, OP_LOGIN_RSP, OP_LOGOUT_RSP, OP_NOP_IN, OP_R2T,
    OP_REJECT, OP_SCSI_CMD, OP_SCSI_RSP, OP_TEXT_RSP, OP_TMF_RSP,
    RESERVED_TAG, Connection, Fail, cdb10, data_out, digest, encode_keys,
    logout_req, nop_out, op_keys, pad_len, scsi_cmd, text_req, tmf_req,
    wrong)

TMF_ABORT_TASK, TMF_LUN_RESET = 1, 5
# What the data segments carry has none of the bytes a SCSI Command's
# opcode byte may have: should the target lose the PDU boundaries (a
# truncation, a wrong DataSegmentLength), no data of ours reads as a
# command, whose CDB could write anywhere.
NO_COMMAND = bytes(b ^ 0x02 if b & 0x3f == OP_SCSI_CMD else b
                   for b in range(256))

# CDB opcodes a mutated command may carry: none writes to the medium or
# changes state that outlives the session (reservations, mode pages,
# ALUA); unknown ones are refused by the target core.
READ_ONLY_OPS = (
    0x00, 0x03, 0x08, 0x12, 0x1a, 0x25, 0x28, 0x2f, 0x35, 0x4d, 0x5a,
    0x5e, 0x88, 0x8f, 0x91, 0x9e, 0xa0, 0xa3, 0xa8,
    0x02, 0x06, 0xc0, 0xd5, 0xff)
# Read-only commands without or with data to the initiator, and its
# expected length.
OTHER_CDBS = ((bytes(6), 0),                                # TEST UNIT READY
              (b'\x12\0\0\0\xff\0', 255),                   # INQUIRY
              (b'\x25' + bytes(9), 8),                       # READ CAPACITY
              (b'\xa0' + bytes(5) + b'\0\0\x10\0' + bytes(2), 4096),  # REPORT LUNS
              (b'\x1a\0\x3f\0\xff\0', 255),                 # MODE SENSE(6)
              (b'\x35' + bytes(9), 0))                       # SYNCHRONIZE CACHE
# Writes, by CDB length: allowed inside the range the caller gives.
WRITE_OPS = {0x0a: 6, 0x2a: 10, 0x2e: 10, 0xaa: 12, 0xae: 12, 0x8a: 16,
             0x8e: 16}

# BHS fields a mutation changes: name, offset, size.
FIELDS = (('opcode', 0, 1), ('flags', 1, 1), ('byte2', 2, 1),
          ('byte3', 3, 1), ('TotalAHSLength', 4, 1),
          ('DataSegmentLength', 5, 3), ('LUN', 8, 8), ('ITT', 16, 4),
          ('TTT/EDTL', 20, 4), ('CmdSN', 24, 4), ('ExpStatSN', 28, 4),
          ('word32', 32, 4), ('DataSN', 36, 4), ('BufferOffset', 40, 4),
          ('word44', 44, 4), ('CDB', 32, 16))
OPCODES = (0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x10, 0x1c, 0x1e,
           0x20, 0x21, 0x25, 0x31, 0x3c, 0x3f)
MUTATIONS = ('field', 'field', 'field', 'field', 'truncate', 'reorder',
             'duplicate', 'data', 'data')
COUNTERS = ('sessions', 'logins_mutated', 'logins_failed', 'discovery',
            'ffp', 'pdus', 'mutated', 'rejects', 'closed_by_target',
            'timeouts', 'scsi_rsps', 'check_conditions', 'tmf_rsps',
            'r2ts', 'logouts', 'dropped_by_us', 'connect_failed', 'odd')


class Closed(Exception):
    """The target closed the connection."""


class Done(Exception):
    """The session ends here (we close the connection)."""


class Out:
    """A PDU to send: the BHS, AHS and data segment, the iSER header."""

    def __init__(self, hdr, data=b'', ctrl=None, what=''):
        self.hdr = bytearray(hdr)
        self.hdr[5:8] = len(data).to_bytes(3, 'big')
        self.ahs, self.data, self.ctrl, self.what = b'', data, ctrl, what
        self.corrupt = ''


class Cmd:
    """A command, NOP, Text or TMF in flight."""

    def __init__(self, itt, kind, cmdsn, data=b'', base=0):
        self.itt, self.kind, self.cmdsn = itt, kind, cmdsn
        self.data, self.base = data, base
        self.ref = None


def field(h, off, size):
    return int.from_bytes(h[off:off + size], 'big')


def cdb_writes_in(h, start, end):
    """Whether the SCSI Command @h is safe: a read-only opcode, or a write
    inside the blocks [@start, @end)."""
    if h[0] & 0x3f != OP_SCSI_CMD:
        return True
    c = h[32:48]
    if c[0] in READ_ONLY_OPS:
        return True
    size = WRITE_OPS.get(c[0])
    if size == 6:
        lba, n = field(c, 1, 3) & 0x1fffff, c[4] or 256
    elif size == 10:
        lba, n = field(c, 2, 4), field(c, 7, 2)
    elif size == 12:
        lba, n = field(c, 2, 4), field(c, 6, 4)
    elif size == 16:
        lba, n = field(c, 2, 8), field(c, 10, 4)
    else:
        return False
    return n == 0 or (start <= lba and lba + n <= end)


class Mutator:
    """Field mutations of PDUs, of the kind ixt_mutate.py sends, drawn from
    self.rng: a subclass sets self.rng and the blocks writes may go to,
    [self.start, self.end). ixt_statefuzz.py uses it too."""

    def rand_data(self, n):
        """@n random bytes, none of which would open a SCSI Command."""
        return self.rng.randbytes(n).translate(NO_COMMAND)

    def mutate_value(self, old, size):
        rng = self.rng
        top = (1 << 8 * size) - 1
        how = rng.randrange(5)
        if how == 0:
            return old ^ 1 << rng.randrange(8 * size)
        if how == 1:
            return (old + rng.choice((1, -1, 2, -2, 4, -4, 512, -512, 8192,
                                      1 << 16, -(1 << 16)))) & top
        if how == 2:
            return rng.choice((0, 1, top, top >> 1, (top >> 1) + 1,
                               top & 0xffffff, top & 0xffff))
        if how == 3:
            return rng.getrandbits(8 * size)
        return old ^ rng.randint(1, 255) << 8 * rng.randrange(size)

    def mutate_fields(self, out):
        rng = self.rng
        h = out.hdr
        saved_cdb = bytes(h[32:48])
        names = []
        for _ in range(rng.choice((1, 1, 1, 2, 3))):
            name, off, size = rng.choice(FIELDS)
            if name == 'opcode' and rng.random() < 0.6:
                h[0] = rng.choice(OPCODES) | (h[0] & IMMEDIATE) ^ \
                    (IMMEDIATE if rng.random() < 0.2 else 0)
            elif name == 'CDB':
                for _ in range(rng.randint(1, 3)):
                    i = 32 + rng.randrange(16)
                    h[i] = self.mutate_value(h[i], 1)
            elif name == 'TotalAHSLength':
                h[4] = rng.choice((1, 2, 4, 5, rng.randrange(256)))
                if rng.random() < 0.6:
                    out.ahs = self.ahs(h[4] * 4)
            else:
                v = self.mutate_value(field(h, off, size), size)
                h[off:off + size] = v.to_bytes(size, 'big')
            names.append(name)
        if not cdb_writes_in(h, self.start, self.end):
            h[32:48] = saved_cdb
            if not cdb_writes_in(h, self.start, self.end):
                h[32] = rng.choice(READ_ONLY_OPS)
            names.append('(CDB kept read-only)')
        return ','.join(names)

    def ahs(self, n):
        """@n bytes of AHS: an Extended CDB or Bidirectional Read
        Expected Data Transfer Length AHS, or garbage."""
        rng = self.rng
        if n < 4 or rng.random() < 0.3:
            return self.rand_data(n)
        kind = rng.choice((1, 2, 0x3f))
        body = self.rand_data(n - 4)
        return struct.pack('>HBB', rng.choice((n - 3, n - 4, rng.randrange(1 << 16))),
                           kind, 0) + body


class Fuzzer(Mutator):
    """The run: options, counters, and the session loop."""

    def __init__(self, args):
        self.args = args
        self.st = collections.Counter({k: 0 for k in COUNTERS})
        self.kinds = collections.Counter()
        self.start, self.end = args.lba_range
        self.iser = args.transport == 'iser'
        self.net_errors = (Fail, OSError, Closed)
        if self.iser:
            global ixr
            import ixt_iser_raw as ixr
            from pyverbs.pyverbs_error import PyverbsError
            self.net_errors += (PyverbsError, ixr.Rejected)
        self.last_isid = None
        self.trace = []
        self.rng = None
        self.conn = None

    def log(self, msg):
        """A line of the session's trace: printed with -v, or at the end
        of a session that saw an odd answer."""
        if self.args.verbose:
            print(msg, flush=True)
        else:
            self.trace.append(msg)

    # Connections.
    def connect(self):
        a = self.args
        if self.iser:
            conn = ixr.IserConnection(a.host, a.port, timeout=a.timeout,
                                      initiator=a.initiator)
        else:
            conn = Connection(a.host, a.port, timeout=a.timeout,
                              initiator=a.initiator)
        conn.timeout = a.timeout
        rng = self.rng
        if self.last_isid is not None and rng.random() < 0.1:
            conn.isid = self.last_isid      # reinstates a session left behind
        else:
            conn.isid = 0x800000000000 | rng.getrandbits(40)
        self.last_isid = conn.isid
        return conn

    def close(self):
        conn, self.conn = self.conn, None
        if conn is None:
            return
        if not self.iser and self.rng.random() < 0.3:
            try:        # a reset instead of a FIN
                conn.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                     struct.pack('ii', 1, 0))
            except OSError:
                pass
        try:
            conn.close()
        except self.net_errors:
            pass

    # Sending.
    def frame(self, out):
        """@out as it goes on the wire."""
        conn = self.conn
        h = bytes(out.hdr)
        if self.iser:
            raw = (out.ctrl or ixr.ctrl_hdr()) + h + out.ahs + out.data
            return raw[:ixr.SLOT]
        raw = h + out.ahs
        if conn.hdigest:
            raw += wrong(digest(raw), out.corrupt == 'header')
        if out.data:
            padded = out.data + b'\0' * pad_len(len(out.data))
            raw += padded
            if conn.ddigest:
                raw += wrong(digest(padded), out.corrupt == 'data')
        return raw

    def emit(self, out, raw=None):
        if raw is None:
            raw = self.frame(out)
        h = out.hdr
        self.log(f'  > {out.what}: op 0x{h[0]:02x} itt 0x{field(h, 16, 4):08x} '
                 f'w20 0x{field(h, 20, 4):08x} sn 0x{field(h, 24, 4):08x} '
                 f'off {field(h, 40, 4)}, {len(raw)} bytes')
        self.st['pdus'] += 1
        try:
            self.conn.send(raw)
        except (socket.timeout, TimeoutError):
            self.st['timeouts'] += 1
            raise Done() from None
        except (BrokenPipeError, ConnectionResetError):
            raise Closed() from None

    def mutate_data(self, out):
        rng = self.rng
        d = bytearray(out.data)
        how = rng.randrange(5)
        if how == 0 and d:
            for _ in range(rng.randint(1, 8)):
                d[rng.randrange(len(d))] = NO_COMMAND[rng.getrandbits(8)]
            what = 'bytes'
        elif how == 1 and d:
            d = d[:rng.randrange(len(d))]
            what = 'shorter'
        elif how == 2:
            d += self.rand_data(rng.choice((1, 3, 512, 4096, rng.randrange(1, 9000))))
            what = 'longer'
        elif how == 3 and not self.iser:
            d += self.rand_data(self.conn.target_mrdsl + rng.randrange(1, 70000))
            what = 'over MaxRecvDataSegmentLength'
        elif self.conn.hdigest or self.conn.ddigest:
            out.corrupt = rng.choice(('header', 'data'))
            what = f'wrong {out.corrupt} digest'
        elif self.iser:
            ctrl = bytearray(out.ctrl or ixr.ctrl_hdr())
            name, off, size = rng.choice((('flags', 0, 1), ('wstag', 4, 4),
                                          ('wva', 8, 8), ('rstag', 16, 4),
                                          ('rva', 20, 8)))
            v = self.mutate_value(field(ctrl, off, size), size)
            ctrl[off:off + size] = v.to_bytes(size, 'big')
            out.ctrl = bytes(ctrl)
            what = f'iSER {name}'
        else:
            d += self.rand_data(rng.randrange(1, 2000))
            what = 'longer'
        if self.iser:
            d = d[:ixr.SLOT - ixr.HDRS - len(out.ahs)]
        out.data = bytes(d)
        out.hdr[5:8] = len(d).to_bytes(3, 'big')
        return what

    def send_all(self, queue, final=True):
        """Sends the PDUs of @queue, each mutated with the session's
        rate. A PDU to swap with the next is held back, unless @final,
        until there is one."""
        rng = self.rng
        if self.held is not None and (queue or final):
            queue.insert(1 if queue else 0, self.held)
            self.held = None
        while queue:
            out = queue.popleft()
            if rng.random() >= self.rate:
                self.emit(out)
                continue
            kind = rng.choice(MUTATIONS)
            self.st['mutated'] += 1
            self.kinds[kind] += 1
            self.clean = False
            if kind == 'reorder':
                if not queue:
                    if final:
                        self.emit(out)
                    else:
                        self.held = out
                    continue
                nxt = queue.popleft()
                self.log(f'  swapped {out.what} with {nxt.what}')
                self.emit(nxt)
                self.emit(out)
            elif kind == 'duplicate':
                self.log(f'  duplicated {out.what}')
                self.emit(out)
                self.emit(out)
            elif kind == 'truncate':
                raw = self.frame(out)
                cut = rng.randrange(1, len(raw)) if len(raw) > 1 else 0
                self.log(f'  truncated {out.what} to {cut} of {len(raw)} bytes')
                self.emit(out, raw[:cut])
                if rng.random() < 0.5:
                    raise Done()
            elif kind == 'field':
                self.log(f'  mutated {out.what}: {self.mutate_fields(out)}')
                self.emit(out)
            else:
                self.log(f'  mutated {out.what} data: {self.mutate_data(out)}')
                self.emit(out)

    # Receiving.
    def take(self, wait):
        """Takes the PDUs the target sent; with @wait, waits up to the
        timeout for the first. Returns how many came."""
        conn, got = self.conn, 0
        t = self.args.timeout if wait else 0
        while conn._readable(t):
            pdu = conn._recv_pdu(None)
            if pdu is None:
                raise Closed()
            got += 1
            t = 0
            if not conn._ping(pdu):
                self.answer(pdu)
        return got

    def answer(self, pdu):
        self.log(f'  < {pdu}')
        st, cmd = self.st, self.cmds.get(pdu.itt)
        if pdu.op not in (OP_R2T, OP_DATA_IN, OP_REJECT, OP_ASYNC, OP_LOGIN_RSP):
            self.expcmdsn = pdu.expcmdsn
        if pdu.op == OP_REJECT:
            st['rejects'] += 1
            self.expcmdsn = pdu.expcmdsn
        elif pdu.op == OP_R2T:
            st['r2ts'] += 1
            if cmd is None or cmd.kind != 'write':
                self.odd(f'R2T for no write: {pdu}')
                return
            if pdu.w40 + pdu.w44 > len(cmd.data) or pdu.w44 == 0:
                self.odd(f'R2T offset {pdu.w40} length {pdu.w44} for '
                         f'{len(cmd.data)} bytes')
                return
            self.queue.extend(self.sequence(cmd, pdu.ttt, pdu.w40,
                                            pdu.w40 + pdu.w44))
        elif pdu.op == OP_SCSI_RSP:
            st['scsi_rsps'] += 1
            if pdu.scsi_status == 0x02:
                st['check_conditions'] += 1
            self.finished(pdu, cmd, ('write', 'read', 'cdb'))
        elif pdu.op == OP_DATA_IN:
            if cmd is None or cmd.kind not in ('read', 'cdb'):
                self.odd(f'Data-In for no read: {pdu}')
            elif pdu.flags & F_STATUS:
                st['scsi_rsps'] += 1
                self.finished(pdu, cmd, ('read', 'cdb'))
        elif pdu.op == OP_NOP_IN:
            self.finished(pdu, cmd, ('nop',))
        elif pdu.op == OP_TEXT_RSP:
            if cmd is not None and pdu.flags & F_CONT and pdu.ttt != RESERVED_TAG:
                self.queue.append(Out(text_req(pdu.itt, self.conn.cmdsn,
                                               self.conn.expstatsn,
                                               ttt=pdu.ttt), what='Text'))
            else:
                self.finished(pdu, cmd, ('text',))
        elif pdu.op == OP_TMF_RSP:
            st['tmf_rsps'] += 1
            if cmd is not None and cmd.ref and pdu.response == 0:
                # Function complete: the tasks it covers, sent before it,
                # may end unanswered.
                for itt in cmd.ref:
                    self.cmds.pop(itt, None)
            self.finished(pdu, cmd, ('abort', 'lun_reset'))
        elif pdu.op == OP_LOGOUT_RSP:
            st['logouts'] += 1
            self.finished(pdu, cmd, ('logout',))

    def finished(self, pdu, cmd, kinds):
        if cmd is None or cmd.kind not in kinds:
            self.odd(f'an answer for no request of its kind: {pdu}')
            return
        del self.cmds[cmd.itt]

    def odd(self, what):
        """An answer no request asked for: a finding when nothing was
        mutated in the session and no answer was missed."""
        if not self.clean:
            return
        self.st['odd'] += 1
        self.log(f'  odd answer: {what}')
        print(f'odd answer in session {self.number} (no mutation sent): {what}',
              flush=True)
        self.dump = True

    # Requests.
    def sequence(self, cmd, ttt, start, end):
        """The Data-Outs of @cmd for the bytes [@start, @end), as the
        negotiation allows them."""
        conn, rng = self.conn, self.rng
        step = conn.target_mrdsl
        pieces = [(off, min(step, end - off)) for off in range(start, end, step)]
        if conn.neg.get('DataPDUInOrder') == 'No' and rng.random() < 0.5:
            rng.shuffle(pieces)
        return [Out(data_out(cmd.itt, ttt, conn.expstatsn, sn, off,
                             final=sn == len(pieces) - 1, lun=self.lun),
                    cmd.data[off:off + n], what=f'Data-Out {sn}')
                for sn, (off, n) in enumerate(pieces)]

    def num(self, key, default):
        """The negotiated value of the numerical @key."""
        try:
            return int(self.conn.neg.get(key, default), 0)
        except ValueError:
            return default

    def new_cmd(self, kind, immediate=False, **kw):
        conn = self.conn
        itt = conn.next_itt()
        sn = conn.cmdsn if immediate else conn.take_cmdsn()
        cmd = Cmd(itt, kind, sn, **kw)
        self.cmds[itt] = cmd
        return cmd

    def buf(self, n):
        """Over iSER, where in the data buffer a transfer of @n bytes
        goes: a slice of 256 KiB each, in turn."""
        self.slice = (self.slice + 1) % 16
        return self.slice * (256 << 10)

    def op_write(self):
        conn, rng = self.conn, self.rng
        blocks = rng.randint(1, min(512, self.end - self.start))
        lba = rng.randrange(self.start, self.end - blocks + 1)
        data = self.rand_data(blocks * BLOCK)
        n = len(data)
        fbl = self.num('FirstBurstLength', 65536)
        imm = 0
        if conn.neg.get('ImmediateData') == 'Yes' and rng.random() < 0.6:
            imm = min(n, fbl, conn.target_mrdsl, rng.choice((512, n, 1 << 20)))
        unsol_end = imm
        if conn.neg.get('InitialR2T') == 'No' and rng.random() < 0.7:
            unsol_end = min(n, fbl)
        base = self.buf(n) if self.iser else 0
        cmd = self.new_cmd('write', data=data, base=base)
        ctrl = None
        if self.iser:
            conn.data_mr.write(data, n, base)
            if unsol_end < n:
                ctrl = ixr.ctrl_hdr(conn.data_mr.rkey,
                                    conn.data_mr.buf + base + unsol_end)
            else:
                ctrl = ixr.ctrl_hdr()
        hdr = scsi_cmd(F_WRITE | (F_FINAL if unsol_end == imm else 0), cmd.itt,
                       n, cmd.cmdsn, conn.expstatsn, cdb10(0x2a, lba, blocks),
                       lun=self.lun)
        self.queue.append(Out(hdr, data[:imm], ctrl, f'WRITE {blocks} at {lba}'))
        if unsol_end > imm:
            self.queue.extend(self.sequence(cmd, RESERVED_TAG, imm, unsol_end))

    def op_read(self, cdb=None, n=None):
        conn, rng = self.conn, self.rng
        if cdb is None:
            blocks = rng.randint(1, 512)
            lba = rng.randrange(self.start, self.end) if rng.random() < 0.8 \
                else rng.getrandbits(32)
            cdb = cdb10(0x28, lba, blocks)
            n = blocks * BLOCK
        cmd = self.new_cmd('read' if n else 'cdb')
        ctrl = None
        if self.iser:
            ctrl = ixr.ctrl_hdr(rstag=conn.data_mr.rkey,
                                rva=conn.data_mr.buf + self.buf(n)) if n \
                else ixr.ctrl_hdr()
        hdr = scsi_cmd(F_FINAL | (F_READ if n else 0), cmd.itt, n, cmd.cmdsn,
                       conn.expstatsn, cdb, lun=self.lun)
        self.queue.append(Out(hdr, b'', ctrl, f'CDB 0x{cdb[0]:02x}'))

    def op_other(self):
        """A read-only command without or with data to the initiator."""
        cdb, n = self.rng.choice(OTHER_CDBS)
        self.op_read(cdb, n)

    def op_nop(self):
        conn, rng = self.conn, self.rng
        imm = rng.random() < 0.3
        cmd = self.new_cmd('nop', immediate=imm)
        data = self.rand_data(rng.choice((0, 0, 16, rng.randrange(conn.target_mrdsl))))
        self.queue.append(Out(nop_out(cmd.itt, cmd.cmdsn, conn.expstatsn,
                                      imm=imm), data, what='NOP-Out'))

    def op_text(self):
        conn, rng = self.conn, self.rng
        cmd = self.new_cmd('text', immediate=True)
        keys = rng.choice((
            [('SendTargets', 'All')], [('SendTargets', self.args.target)],
            [('X-org.example.mutate', '1')], [('MaxBurstLength', '512')],
            [('MaxRecvDataSegmentLength', str(rng.choice((512, 4096, 65536))))],
            [('TargetAlias', 'x'), ('SendTargets', '')]))
        self.queue.append(Out(text_req(cmd.itt, cmd.cmdsn, conn.expstatsn),
                              encode_keys(keys), what='Text'))

    def op_tmf(self):
        conn, rng = self.conn, self.rng
        tasks = [c for c in self.cmds.values()
                 if c.kind in ('write', 'read', 'cdb')]
        if rng.random() < 0.15:
            covered = {c.itt for c in tasks}
            cmd = self.new_cmd('lun_reset', immediate=True)
            cmd.ref = covered
            hdr = tmf_req(TMF_LUN_RESET, cmd.itt, RESERVED_TAG, cmd.cmdsn,
                          conn.expstatsn, lun=self.lun)
            what = 'LUN RESET'
        else:
            task = rng.choice(tasks) if tasks else None
            cmd = self.new_cmd('abort', immediate=True)
            rtt = task.itt if task else conn.itt - 3
            cmd.ref = {rtt} if task else None
            hdr = tmf_req(TMF_ABORT_TASK, cmd.itt, rtt, cmd.cmdsn,
                          conn.expstatsn,
                          refcmdsn=task.cmdsn if task else conn.cmdsn - 1,
                          lun=self.lun)
            what = 'ABORT TASK'
        self.queue.append(Out(hdr, what=what))

    def op_join(self):
        """A second connection joins the session (MaxConnections=2), pings
        and logs out, or goes without a Logout: the session with it under
        ErrorRecoveryLevel=0."""
        conn, rng = self.conn, self.rng
        if conn.neg.get('MaxConnections') != '2' or self.discovery_session():
            return self.op_nop()
        c2 = self.connect()
        c2.isid, c2.cmdsn = conn.isid, conn.cmdsn
        try:
            c2.login(self.args.target, self.keys, tsih=conn.tsih, cid=1)
            c2.send_pdu(nop_out(c2.next_itt(), conn.cmdsn, c2.expstatsn,
                                imm=True), b'join')
            c2.recv_pdu()
            if rng.random() < 0.5:
                c2.send_pdu(logout_req(c2.next_itt(), conn.cmdsn,
                                       c2.expstatsn, reason=1, cid=1))
                c2.recv_pdu()
            self.log('  a second connection joined')
        except self.net_errors as err:
            self.log(f'  the second connection: {type(err).__name__}: {err}')
        finally:
            c2.close()

    # Sessions.
    def login_keys(self):
        rng = self.rng
        ch = {}
        mbl = rng.choice((512, 8192, 65536, 262144, 1 << 20))
        ch['MaxBurstLength'] = str(mbl)
        ch['FirstBurstLength'] = str(min(mbl, rng.choice((512, 4096, 65536, 262144))))
        ch['InitialR2T'] = rng.choice(('Yes', 'No'))
        ch['ImmediateData'] = rng.choice(('Yes', 'No'))
        ch['DataPDUInOrder'] = rng.choice(('Yes', 'No'))
        ch['DataSequenceInOrder'] = rng.choice(('Yes', 'No'))
        ch['MaxOutstandingR2T'] = str(rng.choice((1, 1, 2, 4)))
        ch['MaxConnections'] = rng.choice(('1', '1', '2'))
        if self.iser:
            return ixr.iser_keys(**ch)
        ch['MaxRecvDataSegmentLength'] = str(rng.choice((512, 4096, 8192, 65536)))
        if rng.random() < 0.1:
            ch['HeaderDigest'] = rng.choice(('CRC32C', 'CRC32C,None'))
        if rng.random() < 0.05:
            ch['DataDigest'] = 'CRC32C'
        return op_keys(**ch)

    def mutate_login_pdu(self, out):
        """One mutation of a Login Request."""
        rng = self.rng
        h = out.hdr
        how = rng.randrange(9)
        if how == 0:
            h[1] ^= rng.choice((LOGIN_T, F_CONT, LOGIN_T | F_CONT))
            return 'T/C'
        if how == 1:
            h[1] = h[1] & 0xf0 | rng.randrange(16)
            return 'CSG/NSG'
        if how == 2:
            h[2], h[3] = rng.randrange(256), rng.randrange(256)
            return 'versions'
        if how == 3:
            h[8:14] = rng.randbytes(6) if rng.random() < 0.7 else bytes(6)
            return 'ISID'
        if how == 4:
            h[14:16] = rng.randbytes(2)
            return 'TSIH'
        if how == 5:
            h[20:22] = rng.randbytes(2)
            return 'CID'
        if how in (6, 7):
            return 'keys: ' + self.mutate_keys(out)
        return self.mutate_fields(out)

    def mutate_keys(self, out):
        rng = self.rng
        items = [i for i in out.data.split(b'\0') if i]
        how = rng.randrange(8)
        if how == 0 and items:
            items.pop(rng.randrange(len(items)))
            what = 'one dropped'
        elif how == 1 and items:
            items.append(rng.choice(items))
            what = 'one twice'
        elif how == 2 and items:
            i = rng.randrange(len(items))
            k = items[i].partition(b'=')[0]
            items[i] = k + b'=' + rng.choice((b'', b'x' * 300, b'0x', b'-1',
                                               b'99999999999', b'\xff\xfe',
                                               b'Yes,No', b'None,CRC32C'))
            what = 'a value'
        elif how == 3:
            items.append(rng.choice((b'NoEquals', b'=NoKey', b'X-y=' + b'z' * 9000,
                                     b'\xc3\x28=1', b'SessionType=Discovery',
                                     b'AuthMethod=CHAP', b'RDMAExtensions=Yes',
                                     b'TargetName=iqn.2026-11.org.example:none')))
            what = 'one added'
        elif how == 4:
            data = bytearray(out.data)
            for _ in range(rng.randint(1, 6)):
                if data:
                    data[rng.randrange(len(data))] = rng.getrandbits(8)
            out.data = bytes(data)
            out.hdr[5:8] = len(data).to_bytes(3, 'big')
            return 'bytes'
        elif how == 5:
            out.data = out.data.rstrip(b'\0')
            out.hdr[5:8] = len(out.data).to_bytes(3, 'big')
            return 'no last NUL'
        else:
            rng.shuffle(items)
            what = 'reordered'
        out.data = b'\0'.join(items) + b'\0'
        out.hdr[5:8] = len(out.data).to_bytes(3, 'big')
        return what

    def login(self):
        """Logs self.conn in with valid keys, one of its PDUs mutated in a
        fraction of the sessions; returns whether it reached full feature
        phase. Discovery sessions in a fraction too."""
        conn, rng, a = self.conn, self.rng, self.args
        discovery = rng.random() < 0.05
        if discovery:
            self.st['discovery'] += 1
            conn.leading_keys = lambda target: [
                ('InitiatorName', conn.initiator), ('SessionType', 'Discovery'),
                ('AuthMethod', 'None')]
        # The PDU mutated: a normal login has two, one a stage.
        victim = rng.choice((0, 0, 1, 1, 2)) if rng.random() < a.login_rate else -1
        sent = [0]

        def send_pdu(hdr, data=b'', dlength=None, corrupt='', ctrl=None):
            out = Out(hdr, data, what='Login')
            if sent[0] == victim:
                self.clean = False
                self.st['logins_mutated'] += 1
                self.st['mutated'] += 1
                if rng.random() < 0.15:
                    raw = self.frame(out)
                    self.kinds['truncate'] += 1
                    self.log(f'  truncated Login to part of {len(raw)} bytes')
                    self.emit(out, raw[:rng.randrange(1, len(raw))])
                    raise Done()
                self.kinds['login'] += 1
                self.log(f'  mutated Login: {self.mutate_login_pdu(out)}')
            sent[0] += 1
            self.emit(out)
            return bytes(out.hdr)

        conn.send_pdu = send_pdu
        self.keys = self.login_keys()
        try:
            conn.login(a.target, self.keys)
        except Fail as err:
            self.log(f'  login failed: {err}')
            self.st['logins_failed'] += 1
            return False
        finally:
            del conn.send_pdu
        self.expcmdsn = conn.cmdsn
        self.st['ffp'] += 1
        if discovery:
            self.op_text()
        return True

    def script(self):
        """The session's requests, its answers read on the way."""
        rng = self.rng
        ops = [(self.op_write, 30), (self.op_read, 25), (self.op_other, 8),
               (self.op_nop, 12), (self.op_text, 5), (self.op_tmf, 6),
               (self.op_join, 2)]
        fns, weights = zip(*ops)
        if self.discovery_session():
            fns, weights = (self.op_text, self.op_nop), (5, 1)
        depth = rng.choice((1, 4, 8))
        conn = self.conn
        for _ in range(rng.randint(1, 24)):
            if time.monotonic() > self.deadline + 5:
                raise Done()
            rng.choices(fns, weights)[0]()
            if rng.random() < 0.6:
                self.send_all(self.queue, final=False)
            self.take(False)
            while self.cmds and (len(self.cmds) > depth or
                                 (conn.maxcmdsn - conn.cmdsn) & 0x80000000):
                self.wait()
        self.send_all(self.queue)
        for _ in range(20):
            if not self.cmds:
                break
            self.wait()

    def discovery_session(self):
        return dict(self.conn.leading_keys('')).get('SessionType') == 'Discovery'

    def wait(self):
        """Waits for answers; when none come, the session fills a CmdSN
        hole a mutation may have left, or ends."""
        self.send_all(self.queue)
        if self.take(True):
            return
        self.st['timeouts'] += 1
        self.clean = False
        self.log(f'  timeout, {len(self.cmds)} requests unanswered')
        if self.rng.random() < 0.5 or self.resynced:
            raise Done()
        self.resynced = True
        self.cmds.clear()
        self.conn.cmdsn = self.expcmdsn
        self.op_nop()

    def logout(self):
        conn = self.conn
        cmd = self.new_cmd('logout', immediate=True)
        self.queue.append(Out(logout_req(cmd.itt, cmd.cmdsn, conn.expstatsn,
                                         reason=self.rng.choice((0, 0, 0, 1, 2))),
                              what='Logout'))
        self.send_all(self.queue)
        try:
            for _ in range(3):
                self.take(True)
        except Closed:
            return
        raise Done()

    def session(self, number):
        a = self.args
        self.number = number
        self.rng = random.Random(f'{a.seed}:{a.transport}:{number}')
        rng = self.rng
        self.rate = rng.choice((0.02, 0.05, 0.1, 0.1, 0.2, 0.3))
        self.clean = True
        self.trace, self.dump = [], False
        self.cmds, self.queue = {}, collections.deque()
        self.held = None
        self.resynced = False
        self.slice = 0
        self.expcmdsn = 0
        self.lun = a.lun << 48
        self.st['sessions'] += 1
        self.log(f'session {number}: mutation rate {self.rate}')
        try:
            self.conn = self.connect()
        except self.net_errors as err:
            self.log(f'  connect failed: {err}')
            self.st['connect_failed'] += 1
            time.sleep(0.5)
            return
        try:
            if self.login():
                self.script()
                if rng.random() < 0.75:
                    self.logout()
                    return
            self.st['dropped_by_us'] += 1
        except Done:
            self.st['dropped_by_us'] += 1
        except self.net_errors as err:
            self.log(f'  closed: {type(err).__name__}: {err}')
            self.st['closed_by_target'] += 1
        finally:
            self.close()
            if self.dump:
                print('\n'.join(self.trace), flush=True)

    def run(self):
        a = self.args
        t0 = time.monotonic()
        self.deadline = t0 + a.seconds
        number = a.first
        while time.monotonic() < self.deadline:
            if a.sessions and number >= a.first + a.sessions:
                break
            self.session(number)
            number += 1
        kinds = ' '.join(f'{k}={v}' for k, v in sorted(self.kinds.items()))
        print(f'ixt_mutate: {a.transport} seed {a.seed}: '
              + ' '.join(f'{k}={self.st[k]}' for k in COUNTERS)
              + f' ({kinds}) in {time.monotonic() - t0:.0f} s', flush=True)


def lba_range(text):
    start, _, end = text.partition(':')
    start, end = int(start, 0), int(end, 0)
    if not 0 <= start < end:
        raise argparse.ArgumentTypeError('START:END with START < END')
    return start, end


def fuzz_args(doc, initiator, timeout, transport=False, extra=()):
    """The command line of a fuzzer (this one, ixt_statefuzz.py): the
    options both take, --transport when TRANSPORT, the (flags, keywords)
    of EXTRA; a seed drawn when none is given."""
    ap = argparse.ArgumentParser(description=doc.split('\n')[0])
    ap.add_argument('--target', required=True, help='TargetName of the TPG')
    ap.add_argument('--host', default=os.environ.get('IXT_ADDR4_T', '192.0.2.1'))
    ap.add_argument('--port', type=int, default=3260)
    if transport:
        ap.add_argument('--transport', choices=('tcp', 'iser'), default='tcp')
    ap.add_argument('--initiator', default=initiator)
    ap.add_argument('--lun', type=int, default=0)
    ap.add_argument('--lba-range', type=lba_range, required=True,
                    metavar='START:END',
                    help='the blocks writes may go to, END excluded')
    ap.add_argument('--seed', type=int, default=None,
                    help='default: drawn, and printed')
    ap.add_argument('--seconds', type=float, default=60)
    ap.add_argument('--first', type=int, default=0,
                    help='the number of the first session')
    ap.add_argument('--sessions', type=int, default=0,
                    help='stop after that many sessions (0: no limit)')
    ap.add_argument('--timeout', type=float, default=timeout,
                    help='seconds to wait for an answer')
    for flags, kw in extra:
        ap.add_argument(*flags, **kw)
    ap.add_argument('-v', '--verbose', action='store_true')
    args = ap.parse_args()
    if args.seed is None:
        args.seed = int.from_bytes(os.urandom(4), 'big')
    return args


def fuzz_run(name, fz, session):
    """FZ run; 1 when it broke, after the traceback and the session
    (SESSION(FZ)) it broke in, printed as NAME's; 0 otherwise."""
    try:
        fz.run()
    except Exception:
        traceback.print_exc()
        print(f'{name}: the client broke in session {session(fz)}',
              flush=True)
        return 1
    return 0


def main():
    args = fuzz_args(__doc__, 'iqn.2026-11.org.example:ixt-mutate', 2.0,
                     transport=True, extra=[
                         (('--login-rate',),
                          dict(type=float, default=0.25,
                               help='the fraction of logins mutated'))])
    print(f'ixt_mutate: seed {args.seed}, {args.transport}, {args.seconds:g} s, '
          f'writes to blocks {args.lba_range[0]}-{args.lba_range[1] - 1}',
          flush=True)
    return fuzz_run('ixt_mutate', Fuzzer(args),
                    lambda fz: fz.rng and fz.number)


if __name__ == '__main__':
    sys.exit(main())
