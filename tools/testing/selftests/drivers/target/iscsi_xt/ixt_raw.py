#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Raw iSCSI initiator over TCP for the iscsi_xt kselftests (stdlib only).

It sends what open-iscsi never sends -- bad opcodes, stage codes, keys,
lengths, tags and sequence numbers -- and checks the target's exact answer
(RFC 7143). As a library: PDU builders, CRC32C digests, key=value text and
a Connection that logs in and runs READ(10)/WRITE(10). As a program:

    ixt_raw.py --target IQN [--host ADDR] [--repeat N] CASE...

runs the named cases (see --list) and prints one line per case; the exit
status is 0 when the target answered every case as expected.
"""

import argparse
import os
import socket
import struct
import sys
import time

# Initiator and target opcodes (RFC 7143 section 11.1.1).
OP_NOP_OUT, OP_SCSI_CMD, OP_TMF, OP_LOGIN, OP_TEXT = 0x00, 0x01, 0x02, 0x03, 0x04
OP_DATA_OUT, OP_LOGOUT, OP_VENDOR1 = 0x05, 0x06, 0x1c
OP_NOP_IN, OP_SCSI_RSP, OP_TMF_RSP, OP_LOGIN_RSP = 0x20, 0x21, 0x22, 0x23
OP_TEXT_RSP, OP_DATA_IN, OP_LOGOUT_RSP, OP_R2T, OP_REJECT = 0x24, 0x25, 0x26, 0x31, 0x3f
IMMEDIATE = 0x40
F_FINAL, F_READ, F_WRITE, F_CONT, F_STATUS = 0x80, 0x40, 0x20, 0x40, 0x01
ATTR_SIMPLE = 1
LOGIN_T = 0x80
SEC, OPER, FFP = 0, 1, 3
RESERVED_TAG = 0xffffffff

# Reject reasons (section 11.17.1) and login statuses (section 11.13.5).
REASON_PROTOCOL_ERROR, REASON_CMD_NOT_SUPPORTED, REASON_INVALID_FIELD = 0x04, 0x05, 0x09
LS_INIT_ERR, LS_TGT_NOT_FOUND, LS_NO_VERSION = 0x0200, 0x0203, 0x0205
LS_MISSING_FIELDS, LS_NO_SESSION = 0x0207, 0x020a

BLOCK = 512


class Fail(Exception):
    """The target did not answer as expected."""


def expect(cond, msg):
    if not cond:
        raise Fail(msg)


# CRC32C (Castagnoli, reflected polynomial 0x82f63b78), one table lookup a byte.
def _crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ (0x82f63b78 if c & 1 else 0)
        table.append(c)
    return table


_CRC_TABLE = _crc32c_table()


def crc32c(data):
    c = 0xffffffff
    for b in data:
        c = _CRC_TABLE[(c ^ b) & 0xff] ^ (c >> 8)
    return c ^ 0xffffffff


def digest(data):
    """A digest as it goes on the wire (little-endian, as Linux sends it)."""
    return struct.pack('<I', crc32c(data))


def pad_len(n):
    return -n & 3


# key=value text (section 6.1).
def encode_keys(pairs):
    """[(key, value)] or {key: value} to NUL-terminated key=value bytes."""
    items = pairs.items() if isinstance(pairs, dict) else pairs
    return b''.join(f'{k}={v}'.encode() + b'\0' for k, v in items)


def decode_keys(data):
    """NUL-terminated key=value bytes to [(key, value)]."""
    pairs = []
    for item in data.split(b'\0'):
        if item:
            k, _, v = item.decode(errors='replace').partition('=')
            pairs.append((k, v))
    return pairs


# Basic Header Segments (section 11). Words are named by their offset.
def bhs(op, flags=0, b2=0, b3=0, lun=0, itt=0, w20=0, w24=0, w28=0, w32=0,
        w36=0, w40=0, w44=0, dlength=0, ahs_words=0):
    h = bytearray(48)
    h[0], h[1], h[2], h[3], h[4] = op, flags, b2, b3, ahs_words
    h[5:8] = dlength.to_bytes(3, 'big')
    struct.pack_into('>Q8I', h, 8, lun, itt, w20, w24, w28, w32, w36, w40, w44)
    return bytes(h)


def login_req(flags, isid, itt, cmdsn, expstatsn, tsih=0, cid=0, vmin=0,
              vmax=0):
    return bhs(OP_LOGIN | IMMEDIATE, flags, vmax, vmin, isid << 16 | tsih,
               itt, cid << 16, cmdsn, expstatsn)


def login_flags(csg, nsg=0, transit=False, cont=False):
    return (LOGIN_T if transit else 0) | (F_CONT if cont else 0) | csg << 2 | nsg


def text_req(itt, cmdsn, expstatsn, final=True, ttt=RESERVED_TAG):
    return bhs(OP_TEXT | IMMEDIATE, F_FINAL if final else 0, itt=itt, w20=ttt,
               w24=cmdsn, w28=expstatsn)


def scsi_cmd(flags, itt, edtl, cmdsn, expstatsn, cdb, lun=0, imm=False):
    h = bytearray(bhs(OP_SCSI_CMD | (IMMEDIATE if imm else 0),
                      flags | ATTR_SIMPLE, lun=lun, itt=itt, w20=edtl,
                      w24=cmdsn, w28=expstatsn))
    h[32:48] = cdb.ljust(16, b'\0')
    return bytes(h)


def cdb10(opcode, lba, blocks):
    return struct.pack('>BBIBHB', opcode, 0, lba, 0, blocks, 0)


def data_out(itt, ttt, expstatsn, datasn, offset, final=True, lun=0):
    return bhs(OP_DATA_OUT, F_FINAL if final else 0, lun=lun, itt=itt, w20=ttt,
               w28=expstatsn, w36=datasn, w40=offset)


def nop_out(itt, cmdsn, expstatsn, imm=False, ttt=RESERVED_TAG):
    return bhs(OP_NOP_OUT | (IMMEDIATE if imm else 0), F_FINAL, itt=itt,
               w20=ttt, w24=cmdsn, w28=expstatsn)


def logout_req(itt, cmdsn, expstatsn, reason=0, cid=0):
    return bhs(OP_LOGOUT | IMMEDIATE, F_FINAL | reason, itt=itt, w20=cid << 16,
               w24=cmdsn, w28=expstatsn)


def tmf_req(function, itt, rtt, cmdsn, expstatsn, refcmdsn=0, lun=0):
    return bhs(OP_TMF | IMMEDIATE, F_FINAL | function, lun=lun, itt=itt,
               w20=rtt, w24=cmdsn, w28=expstatsn, w32=refcmdsn)


class Pdu:
    """A PDU received: its BHS fields by name, and its data segment."""

    def __init__(self, hdr, data):
        self.hdr, self.data = hdr, data
        self.op, self.flags = hdr[0] & 0x3f, hdr[1]
        (self.itt, self.w20, self.statsn, self.expcmdsn, self.maxcmdsn,
         self.w36, self.w40, self.w44) = struct.unpack_from('>8I', hdr, 16)
        self.ttt = self.w20

    reason = property(lambda self: self.hdr[2])       # Reject
    response = property(lambda self: self.hdr[2])     # SCSI, TMF, Logout
    scsi_status = property(lambda self: self.hdr[3])  # SCSI Rsp, Data-In
    status = property(lambda self: self.hdr[36] << 8 | self.hdr[37])  # Login
    tsih = property(lambda self: struct.unpack_from('>H', self.hdr, 14)[0])
    keys = property(lambda self: decode_keys(self.data))

    @property
    def sense(self):
        if len(self.data) < 2:
            return b''
        return self.data[2:2 + struct.unpack_from('>H', self.data)[0]]

    def __repr__(self):
        extra = ''
        if self.op == OP_LOGIN_RSP:
            extra = f' status 0x{self.status:04x}'
        elif self.op == OP_REJECT:
            extra = f' reason 0x{self.reason:02x}'
        elif self.op in (OP_SCSI_RSP, OP_TMF_RSP, OP_LOGOUT_RSP):
            extra = f' response {self.response} status 0x{self.scsi_status:02x}'
        return f'<PDU op 0x{self.op:02x} flags 0x{self.flags:02x} itt 0x{self.itt:08x}{extra}>'


DEFAULT_OP_KEYS = [
    ('HeaderDigest', 'None'), ('DataDigest', 'None'),
    ('MaxRecvDataSegmentLength', '8192'), ('InitialR2T', 'Yes'),
    ('ImmediateData', 'No'), ('MaxBurstLength', '262144'),
    ('FirstBurstLength', '65536'), ('MaxOutstandingR2T', '1'),
    ('DataPDUInOrder', 'Yes'), ('DataSequenceInOrder', 'Yes'),
    ('ErrorRecoveryLevel', '0'), ('DefaultTime2Wait', '2'),
    ('DefaultTime2Retain', '0'), ('MaxConnections', '1'),
]


def op_keys(**changes):
    """DEFAULT_OP_KEYS with some values changed, and None to drop a key."""
    keys = [(k, changes.pop(k, v)) for k, v in DEFAULT_OP_KEYS]
    return [(k, v) for k, v in keys if v is not None] + list(changes.items())


# What a target declares and the initiator does not answer.
DECLARATIVE = {'TargetPortalGroupTag', 'TargetAlias', 'TargetAddress',
               'MaxRecvDataSegmentLength'}


class Connection:
    """One TCP connection to the target, with the session's counters."""

    def __init__(self, host, port=3260, timeout=10.0, initiator=None):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.timeout = timeout
        self.initiator = initiator or 'iqn.2026-11.org.example:ixt-raw'
        self.isid = 0x800000000000 | os.getpid() & 0xffffff
        self.hdigest = self.ddigest = False
        self.itt = 0x100
        self.cmdsn = 1
        self.expstatsn = self.maxcmdsn = 0
        self.neg = {}
        self.target_mrdsl = 8192
        self.tsih = 0

    def close(self):
        self.sock.close()

    def next_itt(self):
        self.itt += 1
        return self.itt

    # Raw I/O.
    def send(self, raw):
        self.sock.sendall(raw)

    def send_pdu(self, hdr, data=b'', dlength=None):
        """Send a BHS with its data segment, DataSegmentLength, padding and
        the digests in force; dlength overrides the length announced.
        Returns the BHS as sent."""
        h = bytearray(hdr)
        h[5:8] = (len(data) if dlength is None else dlength).to_bytes(3, 'big')
        out = bytes(h) + (digest(h) if self.hdigest else b'')
        if data:
            padded = data + b'\0' * pad_len(len(data))
            out += padded + (digest(padded) if self.ddigest else b'')
        self.send(out)
        return bytes(h)

    def _recv_exact(self, n, eof_ok=False):
        buf = b''
        while len(buf) < n:
            try:
                chunk = self.sock.recv(n - len(buf))
            except ConnectionResetError:
                chunk = b''
            if not chunk:
                if eof_ok and not buf:
                    return None
                raise Fail(f'connection closed inside a PDU ({len(buf)}/{n} bytes)')
            buf += chunk
        return buf

    def recv_pdu(self, timeout=None):
        """The next PDU, or None when the target closed the connection.
        NOP-In pings of the target (a TTT) are answered and skipped."""
        while True:
            pdu = self._recv_pdu(timeout)
            if not (pdu and pdu.op == OP_NOP_IN and pdu.ttt != RESERVED_TAG):
                return pdu
            self.send_pdu(nop_out(RESERVED_TAG, self.cmdsn, self.expstatsn,
                                  imm=True, ttt=pdu.ttt))

    def _recv_pdu(self, timeout):
        self.sock.settimeout(timeout or self.timeout)
        try:
            hdr = self._recv_exact(48, eof_ok=True)
        except (TimeoutError, socket.timeout):
            raise Fail('no answer from the target') from None
        if hdr is None:
            return None
        ahs = self._recv_exact(hdr[4] * 4) if hdr[4] else b''
        if self.hdigest:
            expect(self._recv_exact(4) == digest(hdr + ahs), 'bad header digest')
        dlength = int.from_bytes(hdr[5:8], 'big')
        data = b''
        if dlength:
            padded = self._recv_exact(dlength + pad_len(dlength))
            if self.ddigest:
                expect(self._recv_exact(4) == digest(padded), 'bad data digest')
            data = padded[:dlength]
        pdu = Pdu(hdr, data)
        carries_status = pdu.op not in (OP_R2T, OP_DATA_IN) or pdu.flags & F_STATUS
        if carries_status and not (pdu.op == OP_NOP_IN and pdu.itt == RESERVED_TAG):
            self.expstatsn = (pdu.statsn + 1) & 0xffffffff
        if pdu.op != OP_LOGIN_RSP or pdu.flags & 3 == FFP:
            self.maxcmdsn = pdu.maxcmdsn
        return pdu

    def recv_expect(self, op, itt=None):
        pdu = self.recv_pdu()
        expect(pdu is not None, f'connection closed, expected opcode 0x{op:02x}')
        expect(pdu.op == op and (itt is None or pdu.itt == itt),
               f'expected opcode 0x{op:02x}, got {pdu}')
        return pdu

    def expect_closed(self, timeout=None):
        """The target closes the connection and sends nothing more."""
        pdu = self.recv_pdu(timeout)
        expect(pdu is None, f'expected the connection closed, got {pdu}')

    # Login (section 6).
    def login_pdu(self, flags, keys, itt=0x1, **kw):
        data = keys if isinstance(keys, bytes) else encode_keys(keys)
        self.send_pdu(login_req(flags, self.isid, itt, self.cmdsn,
                                self.expstatsn, **kw), data)
        return self.recv_pdu()

    def leading_keys(self, target):
        return [('InitiatorName', self.initiator), ('TargetName', target),
                ('SessionType', 'Normal'), ('AuthMethod', 'None')]

    def login(self, target, op_keys=None, extra=None):
        """A whole normal login: the security stage with AuthMethod=None,
        then the operational stage with op_keys, answering what the target
        offers, to full feature phase. Returns the keys the target sent."""
        got = []
        keys = self.leading_keys(target) + (extra or [])
        flags = login_flags(SEC, OPER, transit=True)
        for _ in range(4):
            rsp = self.login_pdu(flags, keys)
            expect(rsp is not None and rsp.op == OP_LOGIN_RSP,
                   f'security stage: {rsp}')
            expect(rsp.status == 0, f'security stage: {rsp}')
            got += rsp.keys
            if rsp.flags & LOGIN_T:
                break
            keys = []
        expect(rsp.flags & LOGIN_T and rsp.flags & 3 == OPER,
               f'security stage did not end: {rsp}')
        keys = list(op_keys if op_keys is not None else DEFAULT_OP_KEYS)
        self.neg = dict(keys)
        flags = login_flags(OPER, FFP, transit=True)
        for _ in range(4):
            rsp = self.login_pdu(flags, keys)
            expect(rsp is not None and rsp.op == OP_LOGIN_RSP and rsp.status == 0,
                   f'operational stage: {rsp}')
            keys = []
            for k, v in rsp.keys:
                got.append((k, v))
                if k == 'MaxRecvDataSegmentLength':
                    self.target_mrdsl = int(v, 0)
                elif k in self.neg:
                    if v not in ('Irrelevant', 'NotUnderstood', 'Reject'):
                        self.neg[k] = v
                elif k not in DECLARATIVE:
                    # An offer of the target: take its (first) value.
                    self.neg[k] = v.split(',')[0]
                    keys.append((k, self.neg[k]))
            if rsp.flags & LOGIN_T and rsp.flags & 3 == FFP:
                break
        expect(rsp.flags & LOGIN_T and rsp.flags & 3 == FFP,
               f'operational stage did not end: {rsp}')
        expect(rsp.tsih != 0, 'the final Login Response carries no TSIH')
        self.tsih = rsp.tsih
        self.hdigest = self.neg.get('HeaderDigest') == 'CRC32C'
        self.ddigest = self.neg.get('DataDigest') == 'CRC32C'
        return got

    # Full feature phase.
    def nop(self, data=b''):
        """A NOP-Out that wants an answer: the next PDU is its NOP-In."""
        itt = self.next_itt()
        self.send_pdu(nop_out(itt, self.cmdsn, self.expstatsn), data)
        self.cmdsn = (self.cmdsn + 1) & 0xffffffff
        pdu = self.recv_expect(OP_NOP_IN, itt)
        expect(pdu.data == data, 'the NOP-In does not echo the ping data')
        expect(pdu.expcmdsn == self.cmdsn,
               f'NOP-In ExpCmdSN 0x{pdu.expcmdsn:08x}, expected 0x{self.cmdsn:08x}')
        return pdu

    def logout(self):
        itt = self.next_itt()
        self.send_pdu(logout_req(itt, self.cmdsn, self.expstatsn))
        rsp = self.recv_expect(OP_LOGOUT_RSP, itt)
        expect(rsp.response == 0, f'logout refused: {rsp}')
        self.expect_closed()

    def write(self, lba, data, imm=b''):
        """WRITE(10) answering every R2T; returns the final SCSI Response."""
        itt = self.next_itt()
        self.send_pdu(scsi_cmd(F_FINAL | F_WRITE, itt, len(data), self.cmdsn,
                               self.expstatsn,
                               cdb10(0x2a, lba, len(data) // BLOCK)), imm)
        self.cmdsn = (self.cmdsn + 1) & 0xffffffff
        while True:
            pdu = self.recv_pdu()
            expect(pdu is not None, 'connection closed during a write')
            if pdu.op == OP_SCSI_RSP and pdu.itt == itt:
                return pdu
            expect(pdu.op == OP_R2T and pdu.itt == itt, f'unexpected {pdu}')
            self.answer_r2t(pdu, data)

    def answer_r2t(self, r2t, data):
        off, end, sn = r2t.w40, r2t.w40 + r2t.w44, 0
        while off < end:
            n = min(end - off, self.target_mrdsl)
            self.send_pdu(data_out(r2t.itt, r2t.ttt, self.expstatsn, sn, off,
                                   final=off + n == end), data[off:off + n])
            off, sn = off + n, sn + 1

    def read(self, lba, blocks):
        """READ(10): returns (status, data)."""
        itt = self.next_itt()
        self.send_pdu(scsi_cmd(F_FINAL | F_READ, itt, blocks * BLOCK, self.cmdsn,
                               self.expstatsn, cdb10(0x28, lba, blocks)))
        self.cmdsn = (self.cmdsn + 1) & 0xffffffff
        buf = bytearray(blocks * BLOCK)
        while True:
            pdu = self.recv_pdu()
            expect(pdu is not None, 'connection closed during a read')
            expect(pdu.itt == itt and pdu.op in (OP_DATA_IN, OP_SCSI_RSP),
                   f'unexpected {pdu}')
            if pdu.op == OP_DATA_IN:
                buf[pdu.w40:pdu.w40 + len(pdu.data)] = pdu.data
                if not pdu.flags & F_STATUS:
                    continue
            return pdu.scsi_status, bytes(buf)


# The cases: each raises Fail, or returns what it saw for the log line.
CASES = {}


def case(fn):
    CASES[fn.__name__[len('case_'):]] = fn
    return fn


def connect(ctx):
    return Connection(ctx.host, ctx.port, initiator=ctx.initiator)


def logged_in(ctx, keys=None):
    conn = connect(ctx)
    conn.login(ctx.target, keys)
    return conn


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
    'login_tsih_unknown': ('a TSIH of no session', SEC_T, LEAD, LS_NO_SESSION,
                           {'tsih': 0x7777}),
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


def _login_refusal(doc, flags, text, status, kw):
    def run(ctx):
        conn = connect(ctx)
        text_ = text.replace(b'{i}', conn.initiator.encode())
        text_ = text_.replace(b'{t}', ctx.target.encode())
        return login_refused(conn, conn.login_pdu(flags, text_, **kw), status)
    run.__doc__ = f'First Login Request with {doc}: 0x{status:04x}.'
    return run


for _name, _args in LOGIN_REFUSALS.items():
    CASES[_name] = _login_refusal(*_args)


@case
def case_login_logout(ctx):
    """A whole login, a NOP exchange, a Logout."""
    conn = logged_in(ctx)
    conn.nop(b'ping')
    conn.logout()
    return f'TSIH {conn.tsih}, NOP answered, logged out'


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


# PDUs rejected in full feature phase, the session going on: the BHS (from
# the connection), its data segment and the Reject reason.
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


def _ffp_reject(doc, reason, data, build):
    def run(ctx):
        conn = logged_in(ctx)
        return rejected(conn, conn.send_pdu(build(conn), data), reason, False)
    run.__doc__ = f'In full feature phase, {doc}: Reject 0x{reason:02x}.'
    return run


for _name, _args in FFP_REJECTS.items():
    CASES[_name] = _ffp_reject(*_args)


@case
def case_ffp_data_over_mrdsl(ctx):
    """A NOP-Out over the target's MaxRecvDataSegmentLength: closed."""
    conn = logged_in(ctx)
    n = conn.target_mrdsl + 4
    conn.send_pdu(nop_out(conn.next_itt(), conn.cmdsn, conn.expstatsn), b'x' * n)
    conn.expect_closed()
    return f'{n} bytes over {conn.target_mrdsl}: connection closed'


def write_r2t(ctx):
    """A logged-in connection with an 8 KiB WRITE(10) and its R2T."""
    conn = logged_in(ctx)
    itt = conn.next_itt()
    conn.send_pdu(scsi_cmd(F_FINAL | F_WRITE, itt, 8192, conn.cmdsn,
                           conn.expstatsn, cdb10(0x2a, 0, 16)))
    conn.cmdsn += 1
    r2t = conn.recv_expect(OP_R2T, itt)
    expect(r2t.w40 == 0 and r2t.w44 > 512, f'R2T offset {r2t.w40} length {r2t.w44}')
    return conn, r2t


def bad_data_out(conn, r2t, reason, **kw):
    args = dict(itt=r2t.itt, ttt=r2t.ttt, expstatsn=conn.expstatsn, datasn=0,
                offset=0, final=False)
    args.update(kw)
    return rejected(conn, conn.send_pdu(data_out(**args), b'd' * 512), reason,
                    closed=True)


@case
def case_ffp_dataout_unknown_ttt(ctx):
    """Data-Out with a TTT never sent: Reject 0x09, closed."""
    conn, r2t = write_r2t(ctx)
    return bad_data_out(conn, r2t, REASON_INVALID_FIELD, ttt=0x1234fff0)


@case
def case_ffp_dataout_offset_outside(ctx):
    """Data-Out beyond its R2T: Reject 0x04, closed."""
    conn, r2t = write_r2t(ctx)
    return bad_data_out(conn, r2t, REASON_PROTOCOL_ERROR, offset=r2t.w44)


@case
def case_ffp_dataout_wrong_datasn(ctx):
    """The second Data-Out of an R2T with DataSN 5: Reject 0x04, closed."""
    conn, r2t = write_r2t(ctx)
    conn.send_pdu(data_out(r2t.itt, r2t.ttt, conn.expstatsn, 0, 0, final=False),
                  b'd' * 512)
    return bad_data_out(conn, r2t, REASON_PROTOCOL_ERROR, datasn=5, offset=512)


@case
def case_ffp_close_in_data_phase(ctx):
    """The connection dies inside a Data-Out: the write is aborted."""
    conn, r2t = write_r2t(ctx)
    conn.send(data_out(r2t.itt, r2t.ttt, conn.expstatsn, 0, 0)[:5] +
              r2t.w44.to_bytes(3, 'big') +
              data_out(r2t.itt, r2t.ttt, conn.expstatsn, 0, 0)[8:] + b'h' * 4000)
    conn.close()
    return case_login_logout(ctx) + ' afterwards'


@case
def case_ffp_close_in_immediate_data(ctx):
    """The connection dies inside a command's immediate data."""
    conn = logged_in(ctx, op_keys(ImmediateData='Yes'))
    hdr = scsi_cmd(F_FINAL | F_WRITE, conn.next_itt(), 8192, conn.cmdsn,
                   conn.expstatsn, cdb10(0x2a, 0, 16))
    conn.send(hdr[:5] + (4096).to_bytes(3, 'big') + hdr[8:] + b'i' * 1000)
    conn.close()
    return case_login_logout(ctx) + ' afterwards'


@case
def case_ffp_write_read(ctx, keys=None):
    """WRITE(10) of 64 KiB through R2Ts, READ(10) back equal, CmdSN wrapping."""
    conn = connect(ctx)
    conn.cmdsn = 0xfffffffe
    conn.login(ctx.target, keys)
    data = os.urandom(65536)
    rsp = conn.write(16, data)
    expect(rsp.response == 0 and rsp.scsi_status == 0, f'write: {rsp}')
    status, back = conn.read(16, len(data) // BLOCK)
    expect(status == 0, f'read status 0x{status:02x}')
    expect(back == data, 'the data read differs from the data written')
    conn.nop()
    conn.logout()
    return '64 KiB written and read back equal'


@case
def case_ffp_write_read_digests(ctx):
    """ffp_write_read with header and data digests (CRC32C)."""
    keys = op_keys(HeaderDigest='CRC32C', DataDigest='CRC32C')
    return case_ffp_write_read(ctx, keys) + ' with CRC32C digests'


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


def _dropped(doc, build):
    def run(ctx):
        conn = logged_in(ctx)
        for hdr, data in build(conn):
            conn.send_pdu(hdr, data)
        conn.nop()
        conn.logout()
        return 'dropped, the next NOP-Out answered first'
    run.__doc__ = f'In full feature phase, {doc}: dropped silently.'
    return run


for _name, _args in DROPPED.items():
    CASES[_name] = _dropped(*_args)


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
    itt = conn.next_itt()
    conn.send_pdu(tmf_req(1, itt, r2t.itt, conn.cmdsn, conn.expstatsn,
                          (conn.cmdsn - 1) & 0xffffffff))
    rsp = conn.recv_expect(OP_TMF_RSP, itt)
    expect(rsp.response == 0, f'TMF Response {rsp.response}, expected 0')
    conn.nop()
    conn.logout()
    return 'Function complete, no response for the task'


@case
def case_ffp_dataout_timeout(ctx):
    """A write whose R2T is never answered: the connection closes after
    the ACL's dataout_timeout (3 s in demo mode), ErrorRecoveryLevel 0."""
    conn, _ = write_r2t(ctx)
    return closed_after(conn, time.monotonic(), 2.5, 8)


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
                                  FirstBurstLength='4096'))
    expect(conn.neg['InitialR2T'] == 'No', 'the TPG has InitialR2T=Yes')
    hdr = scsi_cmd(F_WRITE, conn.next_itt(), 16384, conn.cmdsn, conn.expstatsn,
                   cdb10(0x2a, 0, 32))
    return rejected(conn, conn.send_pdu(hdr, b'i' * 4096), REASON_PROTOCOL_ERROR,
                    closed=False)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--target', help='TargetName of the TPG to test')
    ap.add_argument('--host', default=os.environ.get('IXT_ADDR4_T', '192.0.2.1'))
    ap.add_argument('--port', type=int, default=3260)
    ap.add_argument('--initiator', default='iqn.2026-11.org.example:ixt-raw')
    ap.add_argument('--login-timeout', type=int, default=5,
                    help="the TPG's attrib/login_timeout, in seconds")
    ap.add_argument('--repeat', type=int, default=1)
    ap.add_argument('--list', action='store_true', help='list the cases')
    ap.add_argument('cases', nargs='*', metavar='CASE')
    ctx = ap.parse_args()
    if ctx.list:
        for name, fn in CASES.items():
            print(f'{name}: {(fn.__doc__ or "").split(chr(10))[0]}')
        return 0
    if not ctx.target or not ctx.cases:
        ap.error('--target and at least one CASE are needed')
    failed = 0
    for _ in range(ctx.repeat):
        for name in ctx.cases:
            if name not in CASES:
                ap.error(f'unknown case {name}')
            try:
                print(f'ok {name}: {CASES[name](ctx)}')
            except (Fail, OSError) as e:
                print(f'FAIL {name}: {e}')
                failed += 1
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
