#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Stateful fuzzer of iSCSI sessions of several connections (MC/S) for the
iscsi_xt kselftests.

    ixt_statefuzz.py --target IQN --lba-range START:END [--seed N]
                     [--seconds S] [--first K] [--sessions N]
                     [--host ADDR] [--lun N] [--timeout S] [-v]

Session after session for --seconds, each a random walk through the states
of one session of up to four connections (MaxConnections 2 to 4,
ErrorRecoveryLevel 0), its moves those of an initiator, valid at heart:

- WRITE(10) with immediate data, unsolicited Data-Out (InitialR2T=No) and
  solicited Data-Out, the Data-Outs queued and sent later, a few at a
  time, interleaved with other requests and other connections, now and
  then a PDU sent in part and finished later; READ(10) and other
  read-only commands, a few of them immediate; NOP-Outs immediate or not,
  pings or not; Text Requests;
- CmdSN holes: a request given the next CmdSN is kept back, the target
  holds those after it, and the hole is filled later, from any
  connection, by that request or by a NOP-Out with its CmdSN;
- ABORT TASK of a task held behind a hole, of one in flight (a write
  waiting for Data-Out among them), of one never sent (by its CmdSN), of
  one already answered, or of none; ABORT TASK SET, CLEAR TASK SET,
  LOGICAL UNIT RESET, CLEAR ACA, TARGET WARM RESET; from any connection,
  mostly immediate; then at times the aborted write's Data-Out all the
  same (unsolicited, or for its last R2T), or the never-sent request
  late;
- connections joining the session, a login with the CID of a live
  connection (connection reinstatement), a Logout of one connection
  (reason "close connection", of its own CID or another's, or of none;
  immediate or behind the holes; "remove for recovery" too), a
  connection dropped (FIN, RST, a half close, or cut in the middle of a
  PDU) with commands and Data-Out outstanding, a new leading login with
  the session's ISID (session reinstatement) while the old session's
  connections still send;
- ExpStatSN lagging behind, or ahead of, the StatSN received;

and at its end a session Logout, a Logout of each connection, or every
connection dropped. A small rate of the PDUs (the session's mutation
rate, 0 to 3%) get field mutations of the kind ixt_mutate.py makes (its
Mutator) or go twice. The target closing a connection is an answer: the
walk goes on with the connections left, and a session left without any
logs in again with its ISID or ends. Answers are read with short
timeouts (--timeout); requests left unanswered make the session fill the
CmdSN hole the target reports, then give them up.

Writes go only to the blocks [START, END) of the LUN: a mutated CDB that
would write anywhere else is given a read-only opcode.

Every session draws from its own generator, seeded by --seed (printed at
the start) and its number, and each of its moves from a generator seeded
from the session's: --seed N --first K --sessions 1 -v plays session K
again, as far as the target answers the same way (a move that goes
otherwise changes no draw of the next ones), and prints every move,
every PDU sent and every answer. The two lines before the last count
each kind of move and the TMF Responses by function and response; the
last counts sessions, moves, aborts, resets, logouts, drops, Rejects,
timeouts and more. An answer that no request asked for, in a session
without mutations (a response or an R2T for an unknown task, for a task
after its abort's Function complete on the same connection, or for a
task aborted while it was held behind a CmdSN the session still kept
back), is printed as an "odd answer" with the session's trace, and so is
a request it gave up waiting for: both are findings to look at. The exit
status is 0 unless the client itself broke (an exception other than a
network error): the target's health is for the caller to judge.
"""

import collections
import random
import select
import socket
import struct
import sys
import time

from ixt_iscsi import (
    BLOCK, F_CONT, F_FINAL, F_READ, F_STATUS, F_WRITE, IMMEDIATE,
    OP_DATA_IN, OP_DATA_OUT, OP_LOGOUT, OP_LOGOUT_RSP, OP_NOP_IN, OP_NOP_OUT,
    OP_R2T, OP_REJECT, OP_SCSI_CMD, OP_SCSI_RSP, OP_TEXT, OP_TEXT_RSP, OP_TMF,
    OP_TMF_RSP, RESERVED_TAG, Connection, Fail, cdb10, data_out,
    encode_keys, logout_req, nop_out, op_keys, scsi_cmd, text_req, tmf_req)
from ixt_mutate import (OP_ASYNC, OTHER_CDBS, Mutator, Out, field, fuzz_args,
                        fuzz_run)

SN_MASK = 0xffffffff
TMF_ABORT_TASK, TMF_ABORT_TASK_SET, TMF_CLEAR_ACA = 1, 2, 3
TMF_CLEAR_TASK_SET, TMF_LUN_RESET, TMF_WARM_RESET = 4, 5, 6
TMF_NAMES = {TMF_ABORT_TASK: 'ABORT TASK', TMF_ABORT_TASK_SET: 'ABORT TASK SET',
             TMF_CLEAR_ACA: 'CLEAR ACA', TMF_CLEAR_TASK_SET: 'CLEAR TASK SET',
             TMF_LUN_RESET: 'LUN RESET', TMF_WARM_RESET: 'TARGET WARM RESET'}
LOGOUT_SESSION, LOGOUT_CONN, LOGOUT_RECOVERY = 0, 1, 2
SCSI_KINDS = ('write', 'read', 'cdb')
# Requests that take a CmdSN unless sent as immediate.
CMDSN_OPS = (OP_NOP_OUT, OP_SCSI_CMD, OP_TMF, OP_TEXT, OP_LOGOUT)
# The most requests a session keeps waiting for answers.
MAX_OUTSTANDING = 24
COUNTERS = ('sessions', 'actions', 'aborts', 'resets', 'logouts', 'drops',
            'rejects', 'timeouts', 'logins', 'logins_failed', 'joins',
            'conn_reinstated', 'sess_reinstated', 'pdus', 'mutated',
            'holes', 'held', 'abort_held_done', 'sealed', 'abort_unsent_done',
            'abort_inflight_done', 'stale_dataouts', 'late_requests',
            'closed_by_target', 'scsi_rsps', 'check_conditions', 'r2ts',
            'given_up', 'late', 'odd')


def sn_lt(a, b):
    """Serial number arithmetic (RFC 1982) on 32 bits: @a before @b."""
    return a != b and (b - a) & SN_MASK < 0x80000000


def sn_le(a, b):
    return a == b or sn_lt(a, b)


class Task:
    """A request of a session: a SCSI command, NOP-Out, Text, TMF or
    Logout. @want: an answer is due; an aborted, lost or given-up task may
    still be answered, but is not waited for."""

    def __init__(self, kind, itt, cmdsn, immediate):
        self.kind, self.itt, self.cmdsn = kind, itt, cmdsn
        self.immediate = immediate
        self.state = 'new'      # deferred, sent, done, aborted, lost...
        self.want = True
        self.link = None        # the connection it went on
        self.what = kind
        self.data = b''         # a write's data, a NOP-Out's ping data
        self.lba = self.blocks = 0
        self.cdb, self.length = None, 0
        self.imm_wish, self.unsol_wish = 0, False
        self.ttts = []          # the R2Ts' TTTs
        self.ref = []           # a TMF's tasks
        self.reason = self.cid = 0      # a Logout's
        self.tmf_link = None    # where the Function complete of its abort came
        self.held = False       # sent (or aborted) behind a CmdSN hole
        self.abort_sent = False  # an ABORT TASK of it is on the way
        # Aborted while held behind a hole still open when the Function
        # complete came: never delivered, so never answered.
        self.sealed = False

    def __repr__(self):
        return f'{self.what} ITT 0x{self.itt:08x} CmdSN 0x{self.cmdsn:08x}'


class Link:
    """A connection of a session, and what waits to go on it."""

    def __init__(self, sess, conn, cid):
        self.sess, self.conn, self.cid = sess, conn, cid
        self.dataq = collections.deque()    # Outs (Data-Out) not sent yet
        self.partial = b''                  # the rest of a PDU sent in part
        self.alive = True
        self.logging_out = False            # a Logout closes it
        self.expect_close = False           # the target is to close it

    def __repr__(self):
        return f'CID {self.cid} of TSIH {self.sess.tsih}'


class Sess:
    """A session: its connections, CmdSN, and requests."""

    def __init__(self, isid, cmdsn, itt):
        self.isid, self.tsih = isid, 0
        self.links = {}                 # CID: Link
        self.cmdsn = self.expcmdsn = self.maxcmdsn = cmdsn
        self.itt = itt
        self.tasks = {}                 # ITT: Task, every one of the session
        self.deferred = []              # Tasks given a CmdSN, not sent yet
        self.recent = collections.deque(maxlen=16)      # answered tasks
        self.late = []                  # aborted before they were sent
        self.lost_sns = set()           # CmdSNs of Rejected requests
        self.neg = {}
        self.keys = []
        self.resyncs = 0

    def next_itt(self):
        self.itt = (self.itt + 1) & 0x7fffffff or 1
        return self.itt

    def take_cmdsn(self):
        sn = self.cmdsn
        self.cmdsn = (sn + 1) & SN_MASK
        return sn

    def room(self):
        """Whether a non-immediate request fits in the command window."""
        return sn_le(self.cmdsn, self.maxcmdsn)

    def wanted(self):
        return [t for t in self.tasks.values() if t.want and t.state == 'sent']

    def seen(self, pdu):
        """ExpCmdSN and MaxCmdSN of a PDU of the target: the newest."""
        if sn_lt(self.expcmdsn, pdu.expcmdsn):
            self.expcmdsn, self.maxcmdsn = pdu.expcmdsn, pdu.maxcmdsn
        elif pdu.expcmdsn == self.expcmdsn:
            self.maxcmdsn = pdu.maxcmdsn

    def num(self, key, default):
        try:
            return int(self.neg.get(key, default), 0)
        except ValueError:
            return default

    def held_behind(self, t):
        """Whether the non-immediate @t waits behind a CmdSN hole: a
        request kept back, or Rejected, before it."""
        return not t.immediate and (
            any(sn_lt(d.cmdsn, t.cmdsn) for d in self.deferred) or
            any(sn_lt(sn, t.cmdsn) for sn in self.lost_sns))


class StateFuzzer(Mutator):
    """The run: options, counters, and the session loop."""

    def __init__(self, args):
        self.args = args
        self.st = collections.Counter({k: 0 for k in COUNTERS})
        self.moves = collections.Counter()
        self.tmf_rsps = collections.Counter()
        self.start, self.end = args.lba_range
        self.lun = args.lun << 48
        self.rng = None
        self.number = None
        self.sess = None
        self.zombies = []
        self.trace = []
        self.clean = True
        self.dump = False
        self.rate = 0

    def log(self, msg):
        """A line of the session's trace: printed with -v, or at the end
        of a session that saw an odd answer."""
        if self.args.verbose:
            print(msg, flush=True)
        else:
            self.trace.append(msg)

    def odd(self, what):
        """An answer no request asked for: a finding when nothing was
        mutated in the session."""
        if not self.clean:
            return
        self.st['odd'] += 1
        self.log(f'  odd answer: {what}')
        print(f'odd answer in session {self.number} (no mutation sent): {what}',
              flush=True)
        self.dump = True

    # Connections.
    def all_links(self):
        links = list(self.sess.links.values()) if self.sess else []
        return [lk for lk in links + self.zombies if lk.alive]

    def pick_link(self, sess=None):
        """A connection of the session to send on: one that is not being
        logged out, but now and then any."""
        s = sess or self.sess
        if s is None:
            return None
        links = [lk for lk in s.links.values() if lk.alive]
        usable = [lk for lk in links if not lk.logging_out]
        if usable and self.rng.random() >= 0.03:
            links = usable
        return self.rng.choice(links) if links else None

    def session_keys(self):
        """The leading login's keys: what the session negotiates."""
        rng = self.rng
        ch = {}
        mbl = rng.choice((8192, 65536, 262144))
        ch['MaxBurstLength'] = str(mbl)
        ch['FirstBurstLength'] = str(min(mbl, rng.choice((512, 4096, 65536))))
        ch['InitialR2T'] = rng.choice(('Yes', 'No', 'No'))
        ch['ImmediateData'] = rng.choice(('Yes', 'Yes', 'No'))
        ch['DataPDUInOrder'] = rng.choice(('Yes', 'No'))
        ch['DataSequenceInOrder'] = rng.choice(('Yes', 'No'))
        ch['MaxOutstandingR2T'] = str(rng.choice((1, 2, 4)))
        ch['MaxConnections'] = str(rng.choice((2, 3, 4, 4)))
        return op_keys(**ch)

    def link_keys(self, sess):
        """A connection's keys: the session's, and its own
        MaxRecvDataSegmentLength and digests."""
        rng = self.rng
        ch = dict(sess.keys)
        ch['MaxRecvDataSegmentLength'] = str(rng.choice((4096, 8192, 65536)))
        ch['HeaderDigest'] = 'CRC32C' if rng.random() < 0.1 else 'None'
        ch['DataDigest'] = 'CRC32C' if rng.random() < 0.03 else 'None'
        return list(ch.items())

    def login_link(self, sess, cid, leading):
        """A connection @cid logged in to @sess (a leading login when
        @leading); None when the target refused it."""
        a = self.args
        keys = self.link_keys(sess)
        try:
            conn = Connection(a.host, a.port, timeout=a.login_timeout,
                              initiator=a.initiator)
        except OSError as err:
            self.log(f'  connect failed: {err}')
            self.st['logins_failed'] += 1
            return None
        conn.isid, conn.cmdsn = sess.isid, sess.cmdsn
        try:
            conn.login(a.target, keys, tsih=0 if leading else sess.tsih,
                       cid=cid)
        except (Fail, OSError) as err:
            self.log(f'  login of CID {cid} failed: {type(err).__name__}: {err}')
            self.st['logins_failed'] += 1
            self.hard_close(conn)
            return None
        conn.timeout = a.timeout
        self.st['logins'] += 1
        link = Link(sess, conn, cid)
        if leading:
            sess.tsih = conn.tsih
            sess.neg = dict(conn.neg)
            sess.expcmdsn, sess.maxcmdsn = sess.cmdsn, conn.maxcmdsn
        elif sn_lt(sess.maxcmdsn, conn.maxcmdsn):
            sess.maxcmdsn = conn.maxcmdsn
        sess.links[cid] = link
        self.log(f'  logged in {link}: ISID 0x{sess.isid:012x}, '
                 f'MaxCmdSN 0x{sess.maxcmdsn:08x}, MRDSL {conn.target_mrdsl}'
                 f'{", header digest" if conn.hdigest else ""}'
                 f'{", data digest" if conn.ddigest else ""}')
        return link

    def new_session(self):
        """A leading login with the ISID of the run's session: a new
        session, or the reinstatement of the one still there. Returns
        whether it is logged in."""
        rng = self.rng
        old = self.sess
        if old is not None:
            # The old session's connections may still send: zombies.
            self.zombies.extend(lk for lk in old.links.values() if lk.alive)
            for lk in old.links.values():
                lk.expect_close = True
        cmdsn = rng.choice((1, rng.getrandbits(32),
                            (SN_MASK - rng.randrange(40)) & SN_MASK))
        s = Sess(self.isid, cmdsn, rng.randrange(0x1000, 0x7fffff00))
        s.keys = self.session_keys()
        self.sess = s
        return self.login_link(s, rng.choice((0, 0, 0, 1, 5, 0xffff)),
                               True) is not None

    @staticmethod
    def hard_close(conn, rst=True):
        try:
            if rst:
                conn.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                     struct.pack('ii', 1, 0))
            conn.close()
        except OSError:
            pass

    def forget(self, link, rst=False):
        """@link is gone: its socket closed, its requests lost."""
        if not link.alive:
            return
        link.alive = False
        self.hard_close(link.conn, rst)
        s = link.sess
        if s.links.get(link.cid) is link:
            del s.links[link.cid]
        if link in self.zombies:
            self.zombies.remove(link)
        link.dataq.clear()
        link.partial = b''
        self.lose_tasks(link)

    def lose_tasks(self, link):
        """The requests of @link, gone, are not waited for; nor are the
        tasks of its task management functions, which the target may
        have carried out."""
        s = link.sess
        for t in list(s.tasks.values()):
            if t.link is not link or not t.want:
                continue
            t.want, t.state = False, 'lost'
            if t.kind == 'tmf':
                covered = [c for c in s.tasks.values() if c.want and
                           c.state == 'sent' and c.kind in SCSI_KINDS]
            else:
                covered = t.ref if t.kind == 'abort' else []
            for c in covered:
                if c.want and c.state == 'sent':
                    c.want, c.state = False, 'maybe aborted'
                elif c.want and c.state == 'deferred':
                    # Its CmdSN may be taken already: when it goes, it
                    # may be dropped as a duplicate.
                    c.want = False

    def closed(self, link, why):
        """The target closed @link (or cut it in the middle of a PDU)."""
        if link.expect_close or link.logging_out:
            self.log(f'  {link} closed by the target, as asked')
        else:
            self.log(f'  {link} closed by the target: {why}')
            self.st['closed_by_target'] += 1
        self.forget(link)

    # Sending.
    def send_raw(self, link, raw):
        """Sends @raw on @link; False when the link is gone."""
        conn = link.conn
        try:
            conn.sock.settimeout(max(2.0, 2 * self.args.timeout))
            conn.sock.sendall(raw)
            return True
        except (socket.timeout, TimeoutError):
            self.st['timeouts'] += 1
            self.log(f'  sending on {link} timed out: dropped')
            self.forget(link, rst=True)
        except OSError as err:
            self.log(f'  sending on {link}: {type(err).__name__}: {err}')
            self.forget(link)
        return False

    def flush_partial(self, link):
        if not link.partial:
            return True
        raw, link.partial = link.partial, b''
        self.log(f'  > {link.cid}: the rest of a PDU, {len(raw)} bytes')
        return self.send_raw(link, raw)

    def emit(self, link, out, split=False):
        """Sends @out on @link with the link's ExpStatSN (or one lagging
        behind or ahead), any mutation of the session's rate, the link's
        digests; with @split only a part of it, the rest before the next
        PDU of the link. Returns whether the link took it."""
        rng = self.rng
        if not link.alive or not self.flush_partial(link):
            return False
        h = out.hdr
        expstatsn = link.conn.expstatsn
        r = rng.random()
        if r < 0.04:
            expstatsn = (expstatsn - rng.randint(1, 16)) & SN_MASK
            self.moves['expstatsn_lag'] += 1
        elif r < 0.05:
            expstatsn = (expstatsn + rng.choice((1, 2, 64, 0x7fffffff))) & SN_MASK
            self.moves['expstatsn_ahead'] += 1
        h[28:32] = expstatsn.to_bytes(4, 'big')
        twice = False
        if rng.random() < self.rate:
            self.clean = False
            self.st['mutated'] += 1
            if rng.random() < 0.2:
                twice, how = True, 'sent twice'
            else:
                how = self.mutate_fields(out)
            self.log(f'  mutated {out.what}: {how}')
        _, raw = link.conn.frame_pdu(bytes(h) + out.ahs, out.data,
                                     dlength=field(h, 5, 3),
                                     corrupt=out.corrupt)
        if split and len(raw) > 1 and not twice:
            cut = rng.randrange(1, len(raw))
            raw, link.partial = raw[:cut], raw[cut:]
        self.log(f'  > {link.cid}: {out.what}: op 0x{h[0]:02x} itt '
                 f'0x{field(h, 16, 4):08x} w20 0x{field(h, 20, 4):08x} sn '
                 f'0x{field(h, 24, 4):08x} off {field(h, 40, 4)}, {len(raw)} '
                 f'bytes{" (part)" if link.partial else ""}')
        self.st['pdus'] += 1
        return self.send_raw(link, raw * 2 if twice else raw)

    # Receiving.
    def drain(self, wait):
        """Reads what the target sent on every open connection; with
        @wait, waits up to that long for the first PDU. Returns how many
        PDUs came (a close counts)."""
        got = 0
        end = time.monotonic() + wait
        while True:
            links = self.all_links()
            if not links:
                return got
            left = 0 if got else max(0.0, end - time.monotonic())
            ready = select.select([lk.conn.sock for lk in links], [], [],
                                  left)[0]
            if not ready:
                return got
            for lk in links:
                if lk.alive and lk.conn.sock in ready:
                    self.receive(lk)
                    got += 1

    def receive(self, link):
        conn = link.conn
        conn.cmdsn = link.sess.cmdsn
        try:
            pdu = conn._recv_pdu(None)
            if pdu is not None and conn._ping(pdu):
                self.log(f'  < {link.cid}: NOP-In ping, answered')
                return
        except (Fail, OSError) as err:
            self.closed(link, f'{type(err).__name__}: {err}')
            return
        if pdu is None:
            self.closed(link, 'end of stream')
            return
        self.answer(link, pdu)

    def answer(self, link, pdu):
        s, st = link.sess, self.st
        self.log(f'  < {link.cid}: {pdu} StatSN 0x{pdu.statsn:08x} '
                 f'ExpCmdSN 0x{pdu.expcmdsn:08x} MaxCmdSN 0x{pdu.maxcmdsn:08x}')
        s.seen(pdu)
        t = s.tasks.get(pdu.itt)
        op = pdu.op
        if op == OP_REJECT:
            self.rejected(link, pdu)
        elif op == OP_R2T:
            st['r2ts'] += 1
            if t is None or t.kind != 'write':
                self.stray(link, pdu, t)
                return
            t.ttts.append(pdu.ttt)
            if not t.want or t.link is not link:
                self.stray(link, pdu, t)
            elif pdu.w44 == 0 or pdu.w40 + pdu.w44 > len(t.data):
                self.odd(f'R2T offset {pdu.w40} length {pdu.w44} for '
                         f'{len(t.data)} bytes')
            else:
                link.dataq.extend(self.sequence(t, link, pdu.ttt, pdu.w40,
                                                pdu.w40 + pdu.w44))
        elif op == OP_SCSI_RSP or (op == OP_DATA_IN and pdu.flags & F_STATUS):
            st['scsi_rsps'] += 1
            if pdu.scsi_status == 0x02:
                st['check_conditions'] += 1
            self.done(link, pdu, t, SCSI_KINDS)
        elif op == OP_DATA_IN:
            if t is None or t.kind not in ('read', 'cdb') or t.state != 'sent':
                self.stray(link, pdu, t)
        elif op == OP_NOP_IN:
            if pdu.itt != RESERVED_TAG:
                self.done(link, pdu, t, ('nop',))
        elif op == OP_TEXT_RSP:
            if t is not None and pdu.flags & F_CONT and pdu.ttt != RESERVED_TAG:
                self.emit(link, Out(text_req(t.itt, s.cmdsn, 0, ttt=pdu.ttt),
                                    what='Text (continue)'))
            else:
                self.done(link, pdu, t, ('text',))
        elif op == OP_TMF_RSP:
            self.tmf_rsps[(t.what if t else '?', pdu.response)] += 1
            if t is not None and t.want and pdu.response == 0:
                self.tmf_complete(link, t)
            self.done(link, pdu, t, ('abort', 'tmf'))
        elif op == OP_LOGOUT_RSP:
            if t is not None and t.want:
                self.logout_answered(link, t, pdu.response)
            self.done(link, pdu, t, ('logout',))
        elif op == OP_ASYNC:
            self.moves['async_message'] += 1
        else:
            self.odd(f'opcode 0x{op:02x} in full feature phase: {pdu}')

    def done(self, link, pdu, t, kinds):
        """@pdu ends @t."""
        if t is None or t.kind not in kinds:
            self.stray(link, pdu, t)
            return
        if t.state == 'sent' and t.want:
            t.want, t.state = False, 'done'
            link.sess.recent.append(t)
            if t.kind in SCSI_KINDS:
                link.sess.resyncs = 0
        elif t.state == 'done':
            self.odd(f'a second answer for {t}: {pdu}')
        else:
            self.stray(link, pdu, t)

    def stray(self, link, pdu, t):
        """An answer for a task that no longer waits for one, or none."""
        self.st['late'] += 1
        if t is None:
            self.odd(f'an answer for no request: {pdu}')
        elif t.state == 'aborted' and t.sealed:
            self.odd(f'{pdu} for {t}, aborted while held behind a CmdSN hole '
                     'still open')
        elif t.state == 'aborted' and t.tmf_link is link:
            self.odd(f'{pdu} for {t} after the Function complete of its abort')

    def rejected(self, link, pdu):
        """A Reject: the request it names does not take its CmdSN (RFC
        7143 section 7.3), which the next resync fills."""
        s = link.sess
        self.st['rejects'] += 1
        hdr = pdu.data[:48]
        if len(hdr) < 48:
            return
        op, itt, sn = hdr[0] & 0x3f, field(hdr, 16, 4), field(hdr, 24, 4)
        self.log(f'  Reject reason 0x{pdu.reason:02x} of opcode 0x{op:02x} '
                 f'ITT 0x{itt:08x}')
        if op in CMDSN_OPS and not hdr[0] & IMMEDIATE and \
                sn_le(s.expcmdsn, sn) and sn_lt(sn, s.cmdsn):
            s.lost_sns.add(sn)
        t = s.tasks.get(itt)
        if t is not None and t.want and op != OP_DATA_OUT:
            t.want, t.state = False, 'rejected'

    def tmf_complete(self, link, tmf):
        """Function complete: the tasks @tmf covers end unanswered. Those
        of a task set function (LUN RESET...) are the LUN's tasks when it
        ends: the target core's reset also ends the commands that came
        after it in CmdSN order but reached the core before it ran."""
        s, rng = link.sess, self.rng
        covered = tmf.ref
        if tmf.kind == 'tmf':
            covered = [t for t in s.tasks.values() if t.want and
                       t.state == 'sent' and t.kind in SCSI_KINDS]
        for t in covered:
            if not t.want:
                continue
            # Sent before the function: on its connection, nothing of it
            # may come after the Function complete.
            before = t in tmf.ref
            t.want, t.tmf_link = False, link if before else None
            if t in s.deferred:
                # Never sent: the target took its CmdSN as received.
                t.state = 'aborted'
                s.deferred.remove(t)
                self.st['abort_unsent_done'] += 1
                if rng.random() < 0.25:
                    s.late.append(t)
                continue
            t.held = t.held and before
            self.st['abort_held_done' if t.held else 'abort_inflight_done'] += 1
            t.state = 'aborted'
            # An immediate function finds a task still held where it is:
            # held behind a request we still keep back, the task never
            # goes to the target core. ABORT TASK names its CmdSN, which
            # is taken even before the task comes; a task set function
            # finds the tasks that came before it, those of its own
            # connection.
            t.sealed = t.held and tmf.immediate and \
                (tmf.kind == 'abort' or t.link is tmf.link) and any(
                    sn_lt(d.cmdsn, t.cmdsn) and not d.abort_sent
                    for d in s.deferred)
            if t.sealed:
                self.st['sealed'] += 1
            # Its Data-Outs still queued: mostly taken back, else they go.
            lk = t.link
            if lk is not None and rng.random() < 0.7:
                lk.dataq = collections.deque(o for o in lk.dataq
                                             if o.task is not t)

    def logout_answered(self, link, t, response):
        s = link.sess
        self.st['logout_ok' if response == 0 else 'logout_refused'] += 1
        if response != 0:
            for lk in s.links.values():
                if lk.cid == t.cid and t.reason == LOGOUT_CONN:
                    lk.logging_out = False
            return
        if t.reason == LOGOUT_SESSION:
            for lk in s.links.values():
                lk.expect_close = True
        elif t.cid == link.cid:
            link.expect_close = True
        elif t.cid in s.links:
            s.links[t.cid].expect_close = True

    # Requests.
    def sequence(self, t, link, ttt, start, end):
        """The Data-Outs of the write @t for the bytes [@start, @end) on
        @link, in the order the negotiation allows."""
        s = link.sess
        step = link.conn.target_mrdsl
        pieces = [(off, min(step, end - off)) for off in range(start, end, step)]
        if s.neg.get('DataPDUInOrder') == 'No' and self.rng.random() < 0.5:
            self.rng.shuffle(pieces)
        outs = []
        for sn, (off, n) in enumerate(pieces):
            out = Out(data_out(t.itt, ttt, 0, sn, off,
                               final=sn == len(pieces) - 1, lun=self.lun),
                      t.data[off:off + n],
                      what=f'Data-Out {sn} of ITT 0x{t.itt:08x}')
            out.task = t
            outs.append(out)
        return outs

    def new_task(self, kind, immediate=False):
        s = self.sess
        t = Task(kind, s.next_itt(), s.cmdsn if immediate else s.take_cmdsn(),
                 immediate)
        s.tasks[t.itt] = t
        return t

    def make_write(self, immediate=False):
        rng = self.rng
        t = self.new_task('write', immediate)
        span = self.end - self.start
        t.blocks = min(span, rng.choice((1, 8, rng.randint(1, 64),
                                         rng.randint(1, 512))))
        t.lba = rng.randrange(self.start, self.end - t.blocks + 1)
        t.data = self.rand_data(t.blocks * BLOCK)
        if rng.random() < 0.6:
            t.imm_wish = rng.choice((512, len(t.data), 1 << 20))
        t.unsol_wish = rng.random() < 0.7
        t.what = f'WRITE {t.blocks} at {t.lba}'
        return t

    def make_read(self, immediate=False):
        rng = self.rng
        if rng.random() < 0.25:
            t = self.new_task('cdb', immediate)
            t.cdb, t.length = rng.choice(OTHER_CDBS)
            t.what = f'CDB 0x{t.cdb[0]:02x}'
            return t
        t = self.new_task('read', immediate)
        t.blocks = rng.choice((1, 8, rng.randint(1, 512)))
        lba = rng.randrange(self.start, self.end) if rng.random() < 0.9 \
            else rng.getrandbits(32)
        t.cdb, t.length = cdb10(0x28, lba, t.blocks), t.blocks * BLOCK
        t.what = f'READ {t.blocks} at {lba}'
        return t

    def make_nop(self, immediate=False):
        t = self.new_task('nop', immediate)
        t.data = self.rand_data(self.rng.choice((0, 0, 16, 1000)))
        t.what = 'NOP-Out' + (' (immediate)' if immediate else '')
        return t

    def build(self, t, link):
        """The PDUs of @t on @link: the request, and a write's unsolicited
        Data-Outs."""
        s = link.sess
        if t.kind == 'nop':
            hdr = nop_out(t.itt, t.cmdsn, 0, imm=t.immediate)
            return [Out(hdr, t.data[:link.conn.target_mrdsl], what=t.what)]
        if t.kind in ('read', 'cdb'):
            hdr = scsi_cmd(F_FINAL | (F_READ if t.length else 0), t.itt,
                           t.length, t.cmdsn, 0, t.cdb, lun=self.lun,
                           imm=t.immediate)
            return [Out(hdr, what=t.what)]
        n = len(t.data)
        fbl = s.num('FirstBurstLength', 65536)
        imm = 0
        if s.neg.get('ImmediateData') == 'Yes' and t.imm_wish:
            imm = min(n, fbl, link.conn.target_mrdsl, t.imm_wish)
        unsol_end = imm
        if s.neg.get('InitialR2T') == 'No' and t.unsol_wish:
            unsol_end = min(n, fbl)
        hdr = scsi_cmd(F_WRITE | (F_FINAL if unsol_end == imm else 0), t.itt,
                       n, t.cmdsn, 0, cdb10(0x2a, t.lba, t.blocks),
                       lun=self.lun, imm=t.immediate)
        out = Out(hdr, t.data[:imm], what=t.what)
        return [out] + self.sequence(t, link, RESERVED_TAG, imm, unsol_end)

    def send_task(self, t, link, split=None):
        """Sends @t on @link: its request now, its unsolicited Data-Outs
        now or queued."""
        s, rng = link.sess, self.rng
        t.link, t.state = link, 'sent'
        t.held = s.held_behind(t)
        if t.held:
            self.st['held'] += 1
        first, *rest = self.build(t, link)
        if split is None:
            split = rng.random() < 0.05
        if not self.emit(link, first, split=split):
            return False
        if rest and rng.random() < 0.5:
            for out in rest:
                if not self.emit(link, out):
                    return False
        else:
            link.dataq.extend(rest)
        return True

    # Moves. Each returns nothing; the network's failures are answers.
    def op_write(self):
        link = self.pick_link()
        if link:
            self.send_task(self.make_write(self.rng.random() < 0.03), link)

    def op_read(self):
        link = self.pick_link()
        if link:
            self.send_task(self.make_read(self.rng.random() < 0.05), link)

    def op_nop(self):
        s, rng = self.sess, self.rng
        link = self.pick_link()
        if not link:
            return
        if rng.random() < 0.15:
            # No answer wanted: the reserved ITT, immediate.
            self.emit(link, Out(nop_out(RESERVED_TAG, s.cmdsn, 0, imm=True),
                                what='NOP-Out (no answer)'))
            return
        self.send_task(self.make_nop(rng.random() < 0.4 or not s.room()), link)

    def op_text(self):
        s = self.sess
        link = self.pick_link()
        if not link:
            return
        t = self.new_task('text', True)
        keys = self.rng.choice(([('X-org.example.statefuzz', '1')],
                                [('SendTargets', '')]))
        t.link, t.state = link, 'sent'
        self.emit(link, Out(text_req(t.itt, s.cmdsn, 0), encode_keys(keys),
                            what='Text'))

    def op_hole(self):
        """A request given the next CmdSN and kept back: what comes after
        it waits in the target until it is filled."""
        make = self.rng.choice((self.make_write, self.make_write,
                                self.make_read, self.make_nop))
        t = make()
        t.state = 'deferred'
        self.sess.deferred.append(t)
        self.st['holes'] += 1
        self.log(f'  kept back: {t}')
        # Requests past the hole, which the target holds.
        for _ in range(self.rng.choice((0, 1, 1, 2, 3))):
            if not self.sess.room():
                break
            self.rng.choice((self.op_write, self.op_write, self.op_read))()

    def op_fill(self):
        """A hole filled: by its request or, at times, a NOP-Out."""
        s, rng = self.sess, self.rng
        t = s.deferred[0] if rng.random() < 0.6 else rng.choice(s.deferred)
        link = self.pick_link()
        if not link:
            return
        s.deferred.remove(t)
        if t.kind != 'nop' and rng.random() < 0.15:
            t.want, t.state = False, 'replaced'
            nop = Task('nop', s.next_itt(), t.cmdsn, False)
            nop.what = 'NOP-Out (in a kept CmdSN)'
            # An ABORT TASK of the request on its way may have the CmdSN
            # taken as received: the NOP-Out is then a duplicate.
            nop.want = not t.abort_sent
            s.tasks[nop.itt] = nop
            t = nop
        self.send_task(t, link)

    def op_data(self):
        """Some Data-Outs waiting on one connection go."""
        rng = self.rng
        links = [lk for lk in self.sess.links.values()
                 if lk.alive and (lk.dataq or lk.partial)]
        if not links:
            return
        link = rng.choice(links)
        n = len(link.dataq)
        k = rng.choice((1, 1, 2, n, rng.randint(0, n))) if n else 0
        if not self.flush_partial(link):
            return
        for _ in range(k):
            if not link.dataq:
                break
            out = link.dataq.popleft()
            if not out.task.want:
                self.st['stale_dataouts'] += 1
            if not self.emit(link, out):
                return

    def op_partial(self):
        """The next Data-Out of a connection sent in part."""
        links = [lk for lk in self.sess.links.values() if lk.alive and lk.dataq]
        if links:
            link = self.rng.choice(links)
            self.emit(link, link.dataq.popleft(), split=True)

    def op_abort(self):
        """ABORT TASK of a task held behind a hole, in flight, never sent,
        answered already, or of none."""
        s, rng = self.sess, self.rng
        link = self.pick_link()
        if not link:
            return
        sent = [t for t in s.wanted() if t.kind in SCSI_KINDS]
        held = [t for t in sent if s.held_behind(t)]
        waiting = [t for t in sent if t.kind == 'write' and t not in held]
        inflight = [t for t in sent if t not in held and t not in waiting]
        cats = [(c, w, ts) for c, w, ts in
                (('held', 5, held), ('unsent', 3, s.deferred),
                 ('write', 3, waiting), ('inflight', 2, inflight),
                 ('answered', 1, list(s.recent)), ('none', 0.5, [None]))
                if ts]
        cat, _, ts = rng.choices(cats, [w for _, w, _ in cats])[0]
        victim = rng.choice(ts)
        imm = rng.random() < 0.9 or not s.room()
        tmf = self.new_task('abort', imm)
        if victim is None:
            rtt = s.itt + rng.randint(100, 1000)
            # Before ExpCmdSN or the function's own: never taken as a task
            # that did not come.
            ref = rng.choice(((s.expcmdsn - rng.randint(1, 100)) & SN_MASK,
                              tmf.cmdsn))
        else:
            # RefCmdSN of an immediate task: the function's own CmdSN
            # (RFC 7143 section 11.5.5).
            rtt = victim.itt
            ref = tmf.cmdsn if victim.immediate else victim.cmdsn
            tmf.ref = [victim]
            victim.held = cat == 'held'
            victim.abort_sent = True
        tmf.what = f'ABORT TASK ({cat})'
        hdr = bytearray(tmf_req(TMF_ABORT_TASK, tmf.itt, rtt, tmf.cmdsn, 0,
                                refcmdsn=ref, lun=self.lun))
        if not imm:
            hdr[0] &= ~IMMEDIATE
        self.st['aborts'] += 1
        self.moves[f'abort_{cat}'] += 1
        self.log(f'  {tmf.what} of ITT 0x{rtt:08x} RefCmdSN 0x{ref:08x}'
                 f'{"" if imm else " (not immediate)"}')
        tmf.link, tmf.state, tmf.held = link, 'sent', s.held_behind(tmf)
        self.emit(link, Out(hdr, what=tmf.what))

    def op_reset(self):
        """A task management function over the LUN's tasks."""
        s, rng = self.sess, self.rng
        link = self.pick_link()
        if not link:
            return
        function = rng.choices((TMF_LUN_RESET, TMF_ABORT_TASK_SET,
                                TMF_CLEAR_TASK_SET, TMF_CLEAR_ACA,
                                TMF_WARM_RESET), (6, 3, 1, 0.5, 0.5))[0]
        imm = rng.random() < 0.9 or not s.room()
        tmf = self.new_task('tmf', imm)
        tmf.what = TMF_NAMES[function]
        tmf.ref = [t for t in s.wanted() if t.kind in SCSI_KINDS]
        for t in tmf.ref:
            t.held = s.held_behind(t)
        hdr = bytearray(tmf_req(function, tmf.itt, RESERVED_TAG, tmf.cmdsn, 0,
                                lun=self.lun))
        if not imm:
            hdr[0] &= ~IMMEDIATE
        self.st['resets'] += 1
        self.moves[tmf.what] += 1
        tmf.link, tmf.state, tmf.held = link, 'sent', s.held_behind(tmf)
        self.emit(link, Out(hdr, what=tmf.what))

    def op_stale(self):
        """A request the target no longer waits for: the Data-Out of an
        aborted write (unsolicited, or for its last R2T), or a request
        aborted before it was sent, sent now."""
        s, rng = self.sess, self.rng
        if s.late and rng.random() < 0.4:
            t = s.late.pop(rng.randrange(len(s.late)))
            link = self.pick_link()
            if link:
                self.st['late_requests'] += 1
                self.log(f'  sent after its abort: {t}')
                self.send_task(t, link)
                t.want, t.state = False, 'aborted'
            return
        writes = [t for t in s.tasks.values() if t.kind == 'write' and
                  t.state == 'aborted' and t.link and t.link.alive]
        if not writes:
            return
        t = rng.choice(writes)
        link = t.link
        n = min(len(t.data), link.conn.target_mrdsl)
        ttt = t.ttts[-1] if t.ttts and rng.random() < 0.3 else RESERVED_TAG
        out = Out(data_out(t.itt, ttt, 0, 0, 0, lun=self.lun), t.data[:n],
                  what=f'Data-Out of aborted ITT 0x{t.itt:08x}')
        self.st['stale_dataouts'] += 1
        self.emit(link, out)

    def op_logout_conn(self):
        """A Logout of one connection: its own, another's, a CID that is
        not there; or "remove for recovery"."""
        s, rng = self.sess, self.rng
        link = self.pick_link()
        if not link:
            return
        others = [lk for lk in s.links.values() if lk is not link and lk.alive]
        r = rng.random()
        reason, victim = LOGOUT_CONN, None
        if r < 0.45 or (r < 0.85 and not others):
            victim = link
        elif r < 0.85:
            victim = rng.choice(others)
        elif r < 0.93:
            cid = rng.choice([c for c in range(8) if c not in s.links])
        else:
            reason, victim = LOGOUT_RECOVERY, link
        if victim is not None:
            cid = victim.cid
            if reason == LOGOUT_CONN:
                victim.logging_out = True
        imm = rng.random() < 0.8 or not s.room()
        t = self.new_task('logout', imm)
        t.reason, t.cid = reason, cid
        t.what = f'Logout of CID {cid}' + \
            (' for recovery' if reason == LOGOUT_RECOVERY else '')
        hdr = bytearray(logout_req(t.itt, t.cmdsn, 0, reason=reason, cid=cid))
        if not imm:
            hdr[0] &= ~IMMEDIATE
        self.st['logouts'] += 1
        t.link, t.state = link, 'sent'
        self.emit(link, Out(hdr, what=t.what))

    def op_add_conn(self):
        s, rng = self.sess, self.rng
        free = [c for c in range(8) if c not in s.links]
        cid = rng.choice(free) if rng.random() < 0.95 else 0xffff - rng.randrange(4)
        if cid in s.links:
            return
        self.log(f'  CID {cid} joins')
        if self.login_link(s, cid, False):
            self.st['joins'] += 1

    def op_reinstate_conn(self):
        """A login with the CID of a live connection, which it replaces:
        the old one, and what it carried, go."""
        s = self.sess
        old = self.pick_link()
        if not old:
            return
        del s.links[old.cid]
        old.expect_close = True
        self.zombies.append(old)
        self.lose_tasks(old)
        self.log(f'  CID {old.cid} logs in again')
        self.st['conn_reinstated'] += 1
        self.login_link(s, old.cid, False)

    def op_drop(self):
        """A connection dropped: FIN, RST, a half close, or cut in the
        middle of a PDU, with what it carries outstanding."""
        s, rng = self.sess, self.rng
        links = [lk for lk in s.links.values() if lk.alive]
        if not links:
            return
        link = rng.choice(links)
        how = rng.choice(('fin', 'rst', 'half', 'mid', 'mid'))
        self.st['drops'] += 1
        self.moves[f'drop_{how}'] += 1
        self.log(f'  dropping {link}: {how}')
        if how == 'mid':
            if link.dataq:
                self.emit(link, link.dataq.popleft(), split=True)
            elif s.room():
                self.send_task(self.make_write(), link, split=True)
            how = rng.choice(('fin', 'rst'))
        if not link.alive:
            return
        if how == 'half':
            try:
                link.conn.sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            del s.links[link.cid]
            link.expect_close = True
            self.zombies.append(link)
            self.lose_tasks(link)
            return
        if how == 'fin':
            try:
                link.conn.sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass
        self.forget(link, rst=how == 'rst')

    def op_reinstate_sess(self):
        self.st['sess_reinstated'] += 1
        self.log('  a new leading login with the same ISID')
        self.new_session()

    def op_zombie(self):
        """A connection of a session being replaced sends on: a NOP-Out or
        its Data-Outs."""
        rng = self.rng
        link = rng.choice([lk for lk in self.zombies if lk.alive])
        if link.dataq and rng.random() < 0.6:
            self.emit(link, link.dataq.popleft())
        else:
            self.emit(link, Out(nop_out(RESERVED_TAG, link.sess.cmdsn, 0,
                                        imm=True), what='NOP-Out (zombie)'))

    def flush(self, some=False):
        """The Data-Outs queued on the session's connections go: all, or
        with @some only some of them."""
        s, rng = self.sess, self.rng
        for link in list(s.links.values()):
            if not link.alive or not self.flush_partial(link):
                continue
            while link.dataq and link.alive and not (some and rng.random() < 0.3):
                out = link.dataq.popleft()
                if not out.task.want:
                    self.st['stale_dataouts'] += 1
                self.emit(link, out)

    def op_settle(self):
        """What is queued goes, and the answers are waited for."""
        if self.sess.deferred and self.rng.random() < 0.5:
            self.op_fill()
        self.wait_answers(self.rng.random() < 0.3)

    def wait_answers(self, some=False):
        """Waits for the answers the session wants, sending the Data-Outs
        its R2Ts ask for (with @some, at first only some of them); when
        none come, fills the CmdSN hole the target reports (resync), and
        gives up on them after two tries."""
        s = self.sess
        t0 = time.monotonic()
        while s.wanted() and s is self.sess and s.links and \
                time.monotonic() - t0 < 6 * self.args.timeout:
            self.flush(some)
            some = False
            if self.drain(self.args.timeout):
                continue
            if s.deferred:
                return          # held back by us: a later move fills it
            self.st['timeouts'] += 1
            self.log(f'  timeout, {len(s.wanted())} requests unanswered')
            self.resync()

    def resync(self):
        s = self.sess
        link = self.pick_link()
        if not link:
            return
        s.resyncs += 1
        if s.resyncs > 2:
            lost = s.wanted()
            self.log(f'  given up: {lost}')
            self.st['given_up'] += len(lost)
            if self.clean:
                print(f'unanswered in session {self.number} (no mutation sent): '
                      f'{lost}', flush=True)
                self.dump = True
            for t in lost:
                t.want, t.state = False, 'given up'
            s.lost_sns.clear()
            s.resyncs = 0
            return
        # Where is the target's ExpCmdSN? An immediate ping says.
        self.send_task(self.make_nop(True), link, split=False)
        self.drain(self.args.timeout)
        holes = set(s.lost_sns)
        if sn_lt(s.expcmdsn, s.cmdsn) and \
                s.expcmdsn not in {d.cmdsn for d in s.deferred}:
            holes.add(s.expcmdsn)
        s.lost_sns.clear()
        for sn in sorted(holes, key=lambda x: (x - s.expcmdsn) & SN_MASK):
            nop = Task('nop', s.next_itt(), sn, False)
            nop.what = 'NOP-Out (filling a hole)'
            s.tasks[nop.itt] = nop
            nop.link, nop.state, nop.want = link, 'sent', False
            self.emit(link, Out(nop_out(nop.itt, sn, 0), what=nop.what))

    def choose(self):
        """The moves the session's state allows, with their weights."""
        s = self.sess
        room = s.room() and len(s.wanted()) + len(s.deferred) < MAX_OUTSTANDING
        links = [lk for lk in s.links.values() if lk.alive]
        # Moves that end a session of one connection are rarer there.
        single = len(links) < 2
        moves = [(self.op_nop, 6), (self.op_abort, 8), (self.op_reset, 2),
                 (self.op_settle, 6 if room else 25), (self.op_text, 1),
                 (self.op_logout_conn, 0.5 if single else 2),
                 (self.op_drop, 1), (self.op_reinstate_sess, 0.6),
                 (self.op_reinstate_conn, 0.3 if single else 1.5)]
        if room:
            moves += [(self.op_write, 20), (self.op_read, 12),
                      (self.op_hole, 6)]
        if s.deferred:
            moves.append((self.op_fill, 8 + 4 * len(s.deferred) +
                          (30 if not room else 0)))
        if any(lk.dataq or lk.partial for lk in links):
            moves += [(self.op_data, 14), (self.op_partial, 2)]
        if s.late or any(t.kind == 'write' and t.state == 'aborted'
                         for t in s.tasks.values()):
            moves.append((self.op_stale, 2))
        if len(links) < s.num('MaxConnections', 1):
            moves.append((self.op_add_conn, 6 if len(links) == 1 else 3))
        if any(lk.alive for lk in self.zombies):
            moves.append((self.op_zombie, 2))
        return moves

    def finish(self):
        """The end of the session: a session Logout, a Logout of each
        connection, or every connection dropped; then everything closed."""
        s, rng = self.sess, self.rng
        if s is not None and s.links:
            how = rng.choices(('logout', 'each', 'drop'), (5, 1.5, 3.5))[0]
            self.log(f'end: {how}')
            if how == 'drop':
                for link in list(s.links.values()):
                    self.forget(link, rst=rng.random() < 0.5)
            elif how == 'each':
                for link in list(s.links.values()):
                    t = self.new_task('logout', True)
                    t.reason, t.cid, t.what = LOGOUT_CONN, link.cid, 'Logout'
                    t.link, t.state = link, 'sent'
                    link.logging_out = True
                    self.st['logouts'] += 1
                    self.emit(link, Out(logout_req(t.itt, t.cmdsn, 0,
                                                   reason=LOGOUT_CONN,
                                                   cid=link.cid), what=t.what))
            else:
                link = self.pick_link()
                t = self.new_task('logout', True)
                t.reason, t.what = LOGOUT_SESSION, 'Logout (session)'
                t.link, t.state = link, 'sent'
                for lk in s.links.values():
                    lk.logging_out = True
                self.st['logouts'] += 1
                self.emit(link, Out(logout_req(t.itt, t.cmdsn, 0), what=t.what))
            t0 = time.monotonic()
            while self.all_links() and time.monotonic() - t0 < 3 * self.args.timeout:
                if not self.drain(self.args.timeout):
                    break
        for link in self.all_links():
            self.forget(link, rst=rng.random() < 0.5)

    def session(self, number):
        a = self.args
        self.number = number
        self.rng = rng = random.Random(f'{a.seed}:{number}')
        self.rate = rng.choice((0, 0, 0.003, 0.01, 0.02, 0.03))
        self.clean = True
        self.trace, self.dump = [], False
        self.sess, self.zombies = None, []
        self.isid = 0x800000000000 | rng.getrandbits(40)
        moves = rng.randint(20, 150)
        self.st['sessions'] += 1
        self.log(f'session {number}: {moves} moves, mutation rate {self.rate}')
        try:
            # Each move draws from a generator of its own, seeded from the
            # session's: a move that goes otherwise in a replay (an answer
            # came sooner or later) leaves the draws of the next ones as
            # they were.
            self.rng = random.Random(rng.getrandbits(64))
            if not self.new_session():
                return
            for i in range(moves):
                self.rng = random.Random(rng.getrandbits(64))
                if time.monotonic() > self.deadline:
                    break
                if not self.sess.links:
                    # Every connection gone: log in again with the ISID,
                    # or end.
                    if self.rng.random() < 0.3 or not self.new_session():
                        break
                    continue
                fns, weights = zip(*self.choose())
                fn = self.rng.choices(fns, weights)[0]
                name = fn.__name__[3:]
                self.moves[name] += 1
                self.st['actions'] += 1
                self.log(f'move {i}: {name}')
                fn()
                self.drain(0)
            self.rng = random.Random(rng.getrandbits(64))
            self.finish()
        finally:
            for link in self.all_links():
                self.forget(link, rst=True)
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
        moves = ' '.join(f'{k}={v}' for k, v in sorted(self.moves.items()))
        print(f'ixt_statefuzz: moves: {moves}', flush=True)
        tmfs = ' '.join(f'{w.replace(" ", "_")}:{r}={n}'
                        for (w, r), n in sorted(self.tmf_rsps.items()))
        print(f'ixt_statefuzz: TMF responses (function:response=count): {tmfs}',
              flush=True)
        print(f'ixt_statefuzz: seed {a.seed}: '
              + ' '.join(f'{k}={self.st[k]}' for k in COUNTERS)
              + f' in {time.monotonic() - t0:.0f} s', flush=True)


def main():
    args = fuzz_args(__doc__, 'iqn.2026-11.org.example:ixt-statefuzz', 1.0,
                     extra=[(('--login-timeout',),
                             dict(type=float, default=8.0,
                                  help='seconds to wait for a Login Response'))])
    print(f'ixt_statefuzz: seed {args.seed}, {args.seconds:g} s, writes to '
          f'blocks {args.lba_range[0]}-{args.lba_range[1] - 1}', flush=True)
    return fuzz_run('ixt_statefuzz', StateFuzzer(args), lambda fz: fz.number)


if __name__ == '__main__':
    sys.exit(main())
