# SPDX-License-Identifier: GPL-2.0
"""A raw iSCSI initiator over TCP for the iscsi_xt kselftests (stdlib only).

PDU builders for what an initiator sends, CRC32C digests, key=value text,
and a Connection that logs in, pings and runs READ(10)/WRITE(10): its
Data-Outs split at the target's MaxRecvDataSegmentLength and sent in any
order (DataPDUInOrder=No), immediate and unsolicited data, several writes
in flight with any CmdSN, their R2Ts answered as they come or the latest
first (DataSequenceInOrder=No). Everything that fails raises Fail.
ixt_raw.py holds the cases that use it.
"""

import argparse
import hashlib
import os
import select
import socket
import struct
import time

# How many times slower than Debian's kernel the target's runs (lib.sh's
# IXT_SLOW: 5 on the debug kernel): the default answer timeouts scale.
SLOW = float(os.environ.get('IXT_SLOW', '1'))
ANSWER_SECS = 10.0 * SLOW

# Initiator and target opcodes (RFC 7143 section 11.1.1).
OP_NOP_OUT, OP_SCSI_CMD, OP_TMF, OP_LOGIN, OP_TEXT = 0x00, 0x01, 0x02, 0x03, 0x04
OP_DATA_OUT, OP_LOGOUT, OP_VENDOR1 = 0x05, 0x06, 0x1c
OP_NOP_IN, OP_SCSI_RSP, OP_TMF_RSP, OP_LOGIN_RSP = 0x20, 0x21, 0x22, 0x23
OP_TEXT_RSP, OP_DATA_IN, OP_LOGOUT_RSP, OP_R2T, OP_ASYNC, OP_REJECT = (
    0x24, 0x25, 0x26, 0x31, 0x32, 0x3f)
IMMEDIATE = 0x40
F_FINAL, F_READ, F_WRITE, F_CONT, F_STATUS = 0x80, 0x40, 0x20, 0x40, 0x01
F_OVERFLOW, F_UNDERFLOW = 0x04, 0x02     # SCSI Response and Data-In
ATTR_SIMPLE = 1
LOGIN_T = 0x80
SEC, OPER, FFP = 0, 1, 3
RESERVED_TAG = 0xffffffff

# Reject reasons (section 11.17.1) and login statuses (section 11.13.5).
REASON_PROTOCOL_ERROR, REASON_CMD_NOT_SUPPORTED, REASON_INVALID_FIELD = 0x04, 0x05, 0x09
LS_INIT_ERR, LS_TGT_NOT_FOUND, LS_NO_VERSION = 0x0200, 0x0203, 0x0205
LS_MISSING_FIELDS, LS_NO_SESSION = 0x0207, 0x020a
LS_TOO_MANY_CONNS = 0x0206

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


def wrong(dig, flip):
    """@dig, with its first bit flipped if @flip."""
    return bytes([dig[0] ^ 1]) + dig[1:] if flip else dig


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


# Orders of the Data-Outs of a sequence: each takes and returns a list of
# (offset, length) pieces, in buffer order on the way in.
def in_order(pieces):
    return pieces


def reverse(pieces):
    return pieces[::-1]


def interleaved(pieces):
    """Every second piece first, then the others backwards: out of order,
    with holes between the pieces until the end."""
    return pieces[1::2] + pieces[0::2][::-1]


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

    def __init__(self, host, port=3260, timeout=ANSWER_SECS, initiator=None,
                 source=None):
        self.sock = socket.create_connection(
            (host, port), timeout=timeout,
            source_address=(source, 0) if source else None)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.init_session(timeout, initiator)

    def init_session(self, timeout, initiator):
        """The session's counters and settings, before the login; a
        subclass over another transport calls it from its __init__."""
        self.timeout = timeout
        self.initiator = initiator or 'iqn.2026-11.org.example:ixt-raw'
        self.isid = 0x800000000000 | os.getpid() & 0xffffff
        self.hdigest = self.ddigest = False
        self.itt = 0x100
        self.cmdsn = 1
        self.expstatsn = self.maxcmdsn = 0
        self.neg = {}
        self.target_mrdsl = 8192
        # Bytes a Data-Out carries; None: the target's MRDSL.
        self.dout_step = None
        self.tsih = 0
        self.r2t_batch = 0
        # (Buffer Offset, Desired Data Transfer Length) of each R2T
        # finish_writes() answered.
        self.r2t_log = []

    def close(self):
        self.sock.close()

    def next_itt(self):
        self.itt += 1
        return self.itt

    # Raw I/O.
    def send(self, raw):
        self.sock.sendall(raw)

    def frame_pdu(self, hdr, data=b'', dlength=None, corrupt=''):
        """A BHS (and any AHS after it) with its data segment as it goes
        on the wire: DataSegmentLength, padding and the digests in force;
        dlength overrides the length announced, and corrupt='header' or
        'data' makes that digest wrong. Returns (header as sent, bytes)."""
        h = bytearray(hdr)
        h[5:8] = (len(data) if dlength is None else dlength).to_bytes(3, 'big')
        out = bytes(h) + (wrong(digest(h), corrupt == 'header')
                          if self.hdigest else b'')
        if data:
            padded = data + b'\0' * pad_len(len(data))
            out += padded + (wrong(digest(padded), corrupt == 'data')
                             if self.ddigest else b'')
        return bytes(h), out

    def send_pdu(self, hdr, data=b'', dlength=None, corrupt=''):
        """Send a PDU as frame_pdu() frames it. Returns the header as
        sent."""
        h, out = self.frame_pdu(hdr, data, dlength, corrupt)
        self.send(out)
        return h

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
            if not self._ping(pdu):
                return pdu

    def poll_pdu(self, timeout):
        """The next PDU if one comes within @timeout seconds, else None;
        pings answered and skipped, as for recv_pdu()."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if not self._readable(max(left, 0)):
                return None
            pdu = self._recv_pdu(None)
            expect(pdu is not None, 'connection closed')
            if not self._ping(pdu):
                return pdu

    def _readable(self, timeout):
        """Whether a PDU (or the end of the connection) comes within
        @timeout seconds."""
        return bool(select.select([self.sock], [], [], timeout)[0])

    def _ping(self, pdu):
        """Answers @pdu if it is a NOP-In ping; returns whether it was."""
        if not (pdu and pdu.op == OP_NOP_IN and pdu.ttt != RESERVED_TAG):
            return False
        self.send_pdu(nop_out(RESERVED_TAG, self.cmdsn, self.expstatsn,
                              imm=True, ttt=pdu.ttt))
        return True

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
        return self._account(Pdu(hdr, data))

    def _account(self, pdu):
        """Takes ExpStatSN and MaxCmdSN from a PDU received; returns it."""
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

    def login_chap(self, target, user, secret):
        """The security stage of a login with one-way CHAP (CHAP_A=5,
        MD5; RFC 1994 and RFC 7143 section 12.1.3) as @user with
        @secret, to the operational stage."""
        keys = [(k, 'CHAP' if k == 'AuthMethod' else v)
                for k, v in self.leading_keys(target)]
        rsp = self.login_pdu(login_flags(SEC), keys)
        expect(rsp is not None and rsp.op == OP_LOGIN_RSP and
               rsp.status == 0 and ('AuthMethod', 'CHAP') in rsp.keys,
               f'CHAP offered: {rsp}')
        rsp = self.login_pdu(login_flags(SEC), [('CHAP_A', '5')])
        expect(rsp is not None and rsp.op == OP_LOGIN_RSP and rsp.status == 0,
               f'CHAP_A: {rsp}')
        got = dict(rsp.keys)
        expect(got.get('CHAP_A') == '5' and 'CHAP_I' in got and
               'CHAP_C' in got, f'CHAP challenge: {got}')
        digest = hashlib.md5(bytes([int(got['CHAP_I'])]) + secret.encode() +
                             bytes.fromhex(got['CHAP_C'][2:])).hexdigest()
        rsp = self.login_pdu(login_flags(SEC, OPER, transit=True),
                             [('CHAP_N', user), ('CHAP_R', '0x' + digest)])
        expect(rsp is not None and rsp.op == OP_LOGIN_RSP and
               rsp.status == 0 and rsp.flags & LOGIN_T and
               rsp.flags & 3 == OPER, f'CHAP response: {rsp}')

    def login(self, target, op_keys=None, extra=None, tsih=0, cid=0,
              chap=None):
        """A whole normal login: the security stage with AuthMethod=None
        (or CHAP as @chap, (user, secret), says), then the operational
        stage with op_keys, answering what the target offers, to full
        feature phase. A non-zero @tsih adds the connection, @cid, to that
        session of this ISID. Returns the keys the target sent."""
        if chap:
            self.login_chap(target, *chap)
            return self.login_operational(op_keys, tsih, cid)
        got = []
        keys = self.leading_keys(target) + (extra or [])
        flags = login_flags(SEC, OPER, transit=True)
        for _ in range(4):
            rsp = self.login_pdu(flags, keys, tsih=tsih, cid=cid)
            expect(rsp is not None and rsp.op == OP_LOGIN_RSP,
                   f'security stage: {rsp}')
            expect(rsp.status == 0, f'security stage: {rsp}')
            got += rsp.keys
            if rsp.flags & LOGIN_T:
                break
            keys = []
        expect(rsp.flags & LOGIN_T and rsp.flags & 3 == OPER,
               f'security stage did not end: {rsp}')
        return got + self.login_operational(op_keys, tsih, cid)

    def login_operational(self, op_keys=None, tsih=0, cid=0):
        """The operational stage of a login, once the security stage
        ended, to full feature phase; returns the keys the target sent."""
        got = []
        keys = list(op_keys if op_keys is not None else DEFAULT_OP_KEYS)
        self.neg = dict(keys)
        flags = login_flags(OPER, FFP, transit=True)
        for _ in range(4):
            rsp = self.login_pdu(flags, keys, tsih=tsih, cid=cid)
            expect(rsp is not None and rsp.op == OP_LOGIN_RSP and rsp.status == 0,
                   f'operational stage: {rsp}')
            keys = []
            for k, v in rsp.keys:
                got.append((k, v))
                if k == 'MaxRecvDataSegmentLength':
                    # Reject: the target refused our declaration (one a
                    # fuzzer mutated); it declares its own apart.
                    if v not in ('Irrelevant', 'NotUnderstood', 'Reject'):
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
        self.send_pdu(nop_out(itt, self.take_cmdsn(), self.expstatsn), data)
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

    def take_cmdsn(self):
        """The CmdSN of the next non-immediate request, taken."""
        sn = self.cmdsn
        self.cmdsn = (sn + 1) & 0xffffffff
        return sn

    def send_write(self, lba, data, imm=0, unsol=False, order=in_order,
                   cmdsn=None, cdb=None, lun=0):
        """Send a WRITE(10) of @data at @lba of @lun (or the CDB @cdb,
        with @data as its expected length) with its first @imm bytes as
        immediate data and, with @unsol (InitialR2T=No), its unsolicited
        Data-Outs up to FirstBurstLength in @order. It takes @cmdsn, by
        default the next CmdSN. Returns its ITT; finish_writes() answers
        its R2Ts."""
        itt = self.next_itt()
        sn = self.take_cmdsn() if cmdsn is None else cmdsn
        if cdb is None:
            cdb = cdb10(0x2a, lba, len(data) // BLOCK)
        self.send_pdu(scsi_cmd(F_WRITE | (0 if unsol else F_FINAL), itt,
                               len(data), sn, self.expstatsn, cdb, lun=lun),
                      data[:imm])
        if unsol:
            end = min(int(self.neg['FirstBurstLength']), len(data))
            self.send_sequence(itt, RESERVED_TAG, data, imm, end, order)
        return itt

    def send_sequence(self, itt, ttt, data, start, end, order=in_order):
        """Send the bytes [@start, @end) of @data as one sequence of
        Data-Outs of at most the target's MaxRecvDataSegmentLength (or
        self.dout_step) each, in the offset order @order makes of them:
        DataSN counts them as sent, and the last one sent has F (RFC 7143
        section 11.7)."""
        step = self.dout_step or self.target_mrdsl
        pieces = order([(off, min(step, end - off))
                        for off in range(start, end, step)])
        for sn, (off, n) in enumerate(pieces):
            self.send_pdu(data_out(itt, ttt, self.expstatsn, sn, off,
                                   final=sn == len(pieces) - 1),
                          data[off:off + n])

    def answer_r2t(self, r2t, data, order=in_order):
        self.send_sequence(r2t.itt, r2t.ttt, data, r2t.w40, r2t.w40 + r2t.w44,
                           order)

    def finish_writes(self, writes, order=in_order, latest_first=False):
        """Answer the R2Ts of the writes in flight (@writes: {ITT: data})
        until each has its SCSI Response; returns {ITT: response}. The
        Data-Outs of an R2T go out in @order. With @latest_first, the R2Ts
        that arrive together (MaxOutstandingR2T of them, or none more
        within 0.3 s) are answered in the reverse of their order: the data
        sequences go out of order (DataSequenceInOrder=No);
        self.r2t_batch is then the largest such group."""
        rsps, r2ts = {}, []
        most = int(self.neg.get('MaxOutstandingR2T', 1)) * len(writes)
        self.r2t_batch = 0
        try:
            while len(rsps) < len(writes):
                if not r2ts:
                    pdu = self.recv_pdu()
                    expect(pdu is not None, 'connection closed during a write')
                elif latest_first and len(r2ts) < most:
                    pdu = self.poll_pdu(0.3)
                else:
                    pdu = self.poll_pdu(0)
                if pdu is None:
                    self.r2t_batch = max(self.r2t_batch, len(r2ts))
                    for r2t in reversed(r2ts) if latest_first else r2ts:
                        self.answer_r2t(r2t, writes[r2t.itt], order)
                    r2ts = []
                elif pdu.op == OP_SCSI_RSP and pdu.itt in writes and pdu.itt not in rsps:
                    rsps[pdu.itt] = pdu
                else:
                    expect(pdu.op == OP_R2T and pdu.itt in writes and
                           pdu.itt not in rsps, f'unexpected {pdu}')
                    r2ts.append(pdu)
                    self.r2t_log.append((pdu.w40, pdu.w44))
        except Fail as e:
            left = ', '.join(f'0x{itt:08x}' for itt in writes if itt not in rsps)
            raise Fail(f'{e}; no SCSI Response for ITT {left}') from None
        return rsps

    def write(self, lba, data, imm=0, unsol=False, order=in_order,
              latest_first=False, cdb=None, lun=0):
        """WRITE(10) of @data at @lba (or @cdb, see send_write()), as
        send_write() and finish_writes() send it; returns its SCSI
        Response."""
        itt = self.send_write(lba, data, imm, unsol, order, cdb=cdb, lun=lun)
        return self.finish_writes({itt: data}, order, latest_first)[itt]

    def text(self, keys):
        """An immediate Text Request of @keys ([(key, value)] or bytes),
        its answer fetched to the end: returns (keys, PDUs)."""
        itt = self.next_itt()
        data = keys if isinstance(keys, bytes) else encode_keys(keys)
        ttt, parts = RESERVED_TAG, []
        while True:
            self.send_pdu(text_req(itt, self.cmdsn, self.expstatsn, ttt=ttt),
                          data)
            rsp = self.recv_expect(OP_TEXT_RSP, itt)
            parts.append(rsp)
            if rsp.flags & F_FINAL:
                expect(rsp.ttt == RESERVED_TAG,
                       f'the final Text Response has TTT 0x{rsp.ttt:08x}')
                return decode_keys(b''.join(p.data for p in parts)), parts
            expect(rsp.flags & F_CONT and rsp.ttt != RESERVED_TAG,
                   f'a Text Response neither final nor continued: {rsp}')
            expect(len(parts) < 64, 'a Text Response in over 64 parts')
            ttt, data = rsp.ttt, b''

    def read(self, lba, blocks, pdus=None, lun=0):
        """READ(10) of @lun: returns (status, data); the Data-In PDUs are
        appended to the list @pdus, if given."""
        itt = self.next_itt()
        self.send_pdu(scsi_cmd(F_FINAL | F_READ, itt, blocks * BLOCK,
                               self.take_cmdsn(), self.expstatsn,
                               cdb10(0x28, lba, blocks), lun=lun))
        buf = bytearray(blocks * BLOCK)
        while True:
            pdu = self.recv_pdu()
            expect(pdu is not None, 'connection closed during a read')
            expect(pdu.itt == itt and pdu.op in (OP_DATA_IN, OP_SCSI_RSP),
                   f'unexpected {pdu}')
            if pdu.op == OP_DATA_IN:
                if pdus is not None:
                    pdus.append(pdu)
                buf[pdu.w40:pdu.w40 + len(pdu.data)] = pdu.data
                if not pdu.flags & F_STATUS:
                    continue
            return pdu.scsi_status, bytes(buf)


# The cache-line pool's debugfs file, for the cases that run in the
# target's own VM.

def pool_field(name):
    """The field @name (lines, free...) of the cache-line pool's debugfs
    file."""
    with open('/sys/kernel/debug/iscsi_xt/pool') as f:
        return int(next(ln.split()[1] for ln in f
                        if ln.startswith(name + ' ')))


def pool_free():
    """Free lines of the cache-line pool (debugfs)."""
    return pool_field('free')


def pool_free_settled(lines):
    """The pool's free lines once they are @lines, or after 2 s: what
    the release paths give back may trail the answers by a moment."""
    for _ in range(20):
        free = pool_free()
        if free == lines:
            break
        time.sleep(0.1)
    return free


# The kernel log, for the cases that run in the target's own VM.

def kmsg_mark():
    """/dev/kmsg opened at its end: kmsg_since() reads what follows."""
    fd = os.open('/dev/kmsg', os.O_RDONLY | os.O_NONBLOCK)
    os.lseek(fd, 0, os.SEEK_END)
    return fd


def kmsg_since(fd):
    """The kernel log records since kmsg_mark() gave @fd, which it
    closes: [(seconds since boot, first line of the message)]."""
    out = []
    try:
        while True:
            try:
                rec = os.read(fd, 8192).decode(errors='replace')
            except BlockingIOError:
                break
            except BrokenPipeError:     # overwritten records: skip them
                continue
            head, _, msg = rec.partition(';')
            out.append((int(head.split(',')[2]) / 1e6, msg.split('\n')[0]))
    finally:
        os.close(fd)
    return out


class Unread(Connection):
    """A connection (IPv4) with a 4 KiB receive buffer: once it stops
    reading, what the target sends fills it at once, and the rest waits
    in the target's send queue."""

    def __init__(self, host, port=3260, timeout=ANSWER_SECS, initiator=None):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.settimeout(timeout)
        self.sock.connect((host, port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.init_session(timeout, initiator)


# What the raw initiators' cases share.

def slab_checked(fd):
    """Has SLUB check every kmalloc cache, free objects included (what
    slub_debug=P poisoned when freed must be intact), and fails on what it,
    or anything since kmsg_mark() gave @fd, logged: a write into freed
    memory shows as "Poison overwritten", a KFENCE report or an Oops."""
    base = '/sys/kernel/slab'
    for name in sorted(os.listdir(base)):
        if name.startswith('kmalloc-') and name[8:9].isdigit():
            try:
                with open(f'{base}/{name}/validate', 'w') as f:
                    f.write('1')
            except OSError:
                pass                    # no SLUB debugging: logs only
    bad = [ln.strip() for _, ln in kmsg_since(fd)
           if any(w in ln for w in ('BUG', 'Poison', 'KFENCE', 'Oops',
                                    'general protection', 'WARNING'))]
    expect(not bad, f'the kernel logged: {bad[:3]}')


def login_checked(conn, target, keys=None, **want):
    """Logs @conn in to @target offering @keys; the negotiation must give
    the values @want (key=value) asks for. Returns @conn."""
    conn.login(target, keys)
    for k, v in want.items():
        expect(conn.neg.get(k) == v,
               f'{k} negotiated to {conn.neg.get(k)}, not {v}: the TPG does not allow it')
    return conn


def joined_to(conn, lead, target, keys, cid):
    """@conn logged in as connection @cid of the session of @lead (same
    ISID, its TSIH), its CmdSN the session's. Returns @conn."""
    conn.isid, conn.cmdsn = lead.isid, lead.cmdsn
    conn.login(target, keys, tsih=lead.tsih, cid=cid)
    expect(conn.tsih == lead.tsih,
           f'joined TSIH {conn.tsih}, the session has {lead.tsih}')
    return conn


def nop_logout(conn):
    """A NOP exchange and a Logout on @conn, logged in; what it saw."""
    conn.nop(b'ping')
    conn.logout()
    return f'TSIH {conn.tsih}, NOP answered, logged out'


def good(rsp, what='the write'):
    expect(rsp.response == 0 and rsp.scsi_status == 0,
           f'{what}: {rsp}, sense {rsp.sense.hex()}')


def read_back(conn, lba, data, what='the data read', lun=0):
    status, back = conn.read(lba, len(data) // BLOCK, lun=lun)
    expect(status == 0, f'read status 0x{status:02x}')
    if back != data:
        bad = [i for i in range(0, len(data), BLOCK)
               if back[i:i + BLOCK] != data[i:i + BLOCK]]
        raise Fail(f'{what} differs in {len(bad)} of {len(data) // BLOCK} '
                   f'blocks, the first at LBA {lba + bad[0] // BLOCK}')


def pattern_kept(login, body, lba, blocks, guard, read_first=False):
    """Runs body(), a write to @blocks blocks at @lba that must not land:
    fills them and @guard blocks either side with a fresh pattern first
    (read back at once too with @read_first), on a connection login()
    returns logged in, and reads them back on a new one after. Returns
    body()'s result, and that the LUN is unchanged."""
    first, n = lba - guard, blocks + 2 * guard
    pattern = os.urandom(n * BLOCK)
    conn = login()
    good(conn.write(first, pattern), 'writing the pattern')
    if read_first:
        read_back(conn, first, pattern, 'the pattern')
    conn.logout()
    seen = body()
    conn = login()
    read_back(conn, first, pattern, 'afterwards, the LUN')
    conn.logout()
    return f'{seen}, the LUN unchanged'


# Writes whose Expected Data Transfer Length differs from the transfer
# length of their CDB (RFC 7143 section 11.4.5.1), shared by the raw
# initiators over TCP and over iSER.
WRITE_OPCODES = {'write6': 0x0a, 'write10': 0x2a, 'write12': 0xaa,
                 'write16': 0x8a, 'write_verify10': 0x2e,
                 'write_verify16': 0x8e}
# Expected lengths against a CDB of RESID_BLOCKS blocks: more, fewer whole
# blocks, a part block more than 4 blocks, none.
RESID_BLOCKS = 8
RESID_EDTLS = (12 * BLOCK, 4 * BLOCK, 4 * BLOCK + 256, 0)
WRITE_RESID_LBA = 6144


def no_data(conn, cdb, lun=0):
    """@cdb, a command without data, on @lun: its SCSI Response. A UNIT
    ATTENTION (a LUN or a mapping new to the initiator) is taken and the
    command sent again."""
    for _ in range(3):
        itt = conn.next_itt()
        conn.send_pdu(scsi_cmd(F_FINAL, itt, 0, conn.take_cmdsn(),
                               conn.expstatsn, cdb, lun=lun))
        rsp = conn.recv_expect(OP_SCSI_RSP, itt)
        if rsp.scsi_status != 0x02 or rsp.sense[2] & 0x0f != 0x06:
            break
    return rsp


def write_cdb(opcode, lba, blocks):
    """The CDB of a WRITE-family @opcode of @blocks blocks at @lba."""
    if opcode == 0x0a:
        return struct.pack('>BBHBB', opcode, lba >> 16 & 0x1f, lba & 0xffff,
                           blocks & 0xff, 0)
    if opcode in (0x2a, 0x2e):
        return cdb10(opcode, lba, blocks)
    if opcode == 0xaa:
        return struct.pack('>BBIIBB', opcode, 0, lba, blocks, 0, 0)
    return struct.pack('>BBQIBB', opcode, 0, lba, blocks, 0, 0)


def write_residuals(conn, opcode, lba, lun=0):
    """On @conn, logged in (a UNIT ATTENTION taken first): for each of
    RESID_EDTLS, a write @opcode of RESID_BLOCKS blocks at @lba of @lun
    with that expected length, over blocks filled with a fresh pattern
    first. Each must answer GOOD with U and residual EDTL - CDB length
    when the initiator sends more, O and residual CDB length - EDTL when
    it sends less; the blocks its data covers whole, at most the CDB's,
    hold the new data, and the others, up to 16 blocks past the longer
    of the two, the pattern. Returns what it saw."""
    cdb_len = RESID_BLOCKS * BLOCK
    seen = []
    good(no_data(conn, bytes(6), lun), 'TEST UNIT READY')
    for edtl in RESID_EDTLS:
        span = max(RESID_BLOCKS, -(-edtl // BLOCK)) + 16
        pattern = os.urandom(span * BLOCK)
        good(conn.write(lba, pattern, lun=lun), 'writing the pattern')
        data = os.urandom(edtl)
        rsp = conn.write(lba, data, cdb=write_cdb(opcode, lba, RESID_BLOCKS),
                         lun=lun)
        what = f'EDTL {edtl} for {cdb_len} bytes'
        good(rsp, what)
        flag, resid = ((F_UNDERFLOW, edtl - cdb_len) if edtl > cdb_len else
                       (F_OVERFLOW, cdb_len - edtl))
        flags = rsp.flags & (F_UNDERFLOW | F_OVERFLOW)
        expect(flags == flag and rsp.w44 == resid,
               f'{what}: flags 0x{rsp.flags:02x} residual {rsp.w44}, '
               f'expected {"U" if flag == F_UNDERFLOW else "O"} and {resid}')
        written = min(cdb_len, edtl // BLOCK * BLOCK)
        read_back(conn, lba, data[:written] + pattern[written:],
                  f'{what}: the blocks', lun)
        seen.append(f'{edtl}: {"U" if flag == F_UNDERFLOW else "O"}/{resid}')
    return ', '.join(seen)


class Cases(dict):
    """A raw initiator's cases by name, each fn(ctx) raising Fail or
    returning what it saw for its log line, and its command line."""

    def case(self, fn):
        """Decorator: registers case_NAME as NAME."""
        self[fn.__name__[len('case_'):]] = fn
        return fn

    def add_write_residuals(self, logged_in):
        """Registers the case resid_NAME for each of WRITE_OPCODES:
        write_residuals() at WRITE_RESID_LBA of the LUN --lun names, on a
        connection logged_in(ctx) returns, logged out after."""
        for name, opcode in WRITE_OPCODES.items():
            def run(ctx, opcode=opcode):
                conn = logged_in(ctx)
                seen = write_residuals(conn, opcode, WRITE_RESID_LBA,
                                       ctx.lun << 48)
                conn.logout()
                return seen
            run.__doc__ = (f'{name} of {RESID_BLOCKS} blocks with other '
                           'expected lengths: GOOD, U or O and the residual, '
                           'only the blocks the data covers written')
            self['resid_' + name] = run

    def main(self, doc, initiator, options=None, errors=(Fail, OSError)):
        """Parses the command line (--target, --host, --port, --initiator,
        --repeat, --lun, --list, CASE..., and what @options(parser) adds),
        runs the cases, prints "ok NAME: ..." or "FAIL NAME: ..." for
        each. Returns the exit status: 1 if a case failed."""
        ap = argparse.ArgumentParser(description=doc.split('\n')[0])
        ap.add_argument('--target', help='TargetName of the TPG to test')
        ap.add_argument('--host', default=os.environ.get('IXT_ADDR4_T', '192.0.2.1'))
        ap.add_argument('--port', type=int, default=3260)
        ap.add_argument('--initiator', default=initiator)
        ap.add_argument('--repeat', type=int, default=1)
        ap.add_argument('--lun', type=int, default=0,
                        help='the LUN the resid_ cases write to')
        ap.add_argument('--list', action='store_true', help='list the cases')
        if options:
            options(ap)
        ap.add_argument('cases', nargs='*', metavar='CASE')
        ctx = ap.parse_args()
        if ctx.list:
            for name, fn in self.items():
                print(f'{name}: {(fn.__doc__ or "").split(chr(10))[0]}')
            return 0
        if not ctx.target or not ctx.cases:
            ap.error('--target and at least one CASE are needed')
        failed = 0
        for _ in range(ctx.repeat):
            for name in ctx.cases:
                if name not in self:
                    ap.error(f'unknown case {name}')
                try:
                    print(f'ok {name}: {self[name](ctx)}', flush=True)
                except errors as err:
                    print(f'FAIL {name}: {type(err).__name__}: {err}',
                          flush=True)
                    failed += 1
        return 1 if failed else 0
