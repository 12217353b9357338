#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Two tenants of one target: what one wrote never reaches the other.

    ixt_isolation.py --target IQN [--host ADDR] [--transport tcp|iser]
                     [--rounds N] CASE...

Initiator a (--initiator-a, its own ACL and LUN 0) writes 1 MiB of a
marker, an 8-byte magic repeated, before each command of initiator b
(--initiator-b, another ACL, whose LUN 0 is another backstore, never
written), so that b's commands take cache lines a's writes just gave
back. Each CASE names one of b's commands (see --list), sent with an
allocation length as large as its CDB takes, up to 1 MiB, and as much
Expected Data Transfer Length; it is sent --rounds times, in turn with the
other cases. Every byte b receives is compared with the marker: a case
fails on the first 8 bytes equal to the magic, at any offset.
compare_and_write_read, a COMPARE AND WRITE sent as a read, compares a
block b wrote with the marker: it must be compared with zeroes. The
virt_lun0 cases are initiator c's (--initiator-c, an ACL that maps no
LUN): its LUN 0 is the target core's virtual LUN 0, a ramdisk that
completes READs without writing a byte of their buffer. The case
marker_written reads a's marker back, proving that it is in the lines.
Over TCP (ixt_iscsi.py) or over iSER (ixt_iser_raw.py, pyverbs: its
Data-In lands in a buffer filled with 0xee first). Prints "ok CASE: ..."
or "FAIL CASE: ..." per case; exits 1 if one failed.
"""

import argparse
import struct
import sys

from ixt_iscsi import (BLOCK, F_FINAL, F_READ, F_STATUS, OP_DATA_IN,
                       OP_SCSI_RSP, Connection, Fail, expect, good, no_data,
                       op_keys, scsi_cmd)

MAGIC = b'\xa5\x5aSTALE\xc3'
MIB = 1 << 20
# a writes at LBAs cycling through its LUN's first A_SPAN bytes.
A_SPAN = 8 * MIB

# b's commands: name -> (CDB, Expected Data Transfer Length).
U16, U32 = 0xffff, MIB
# The block of b's LUN (2 MiB) that compare_and_write_read compares,
# past what read10 reads.
CAW_LBA = 3 * MIB // 2 // BLOCK


def _cdb16(opcode, sa, alloc, at=10):
    cdb = bytearray(16)
    cdb[0], cdb[1] = opcode, sa
    struct.pack_into('>I', cdb, at, alloc)
    return bytes(cdb)


def _cdb12(opcode, sa, alloc):
    cdb = bytearray(12)
    cdb[0], cdb[1] = opcode, sa
    struct.pack_into('>I', cdb, 6, alloc)
    return bytes(cdb)


def _inquiry(evpd, page):
    return struct.pack('>BBBHB', 0x12, evpd, page, U16, 0)


def _pr_in(sa):
    return struct.pack('>BB5xHB', 0x5e, sa, U16, 0)


COMMANDS = {
    'receive_copy_results': (_cdb16(0x84, 0x03, U32), U32),
    # Residual overflow, the buffer the expected length; underflow, cut
    # at the allocation length.
    'receive_copy_results_over': (_cdb16(0x84, 0x03, U32), 640 << 10),
    'receive_copy_results_under': (_cdb16(0x84, 0x03, 768 << 10), U32),
    'request_sense': (bytes([0x03, 0, 0, 0, 252, 0]), 252),
    'request_sense_desc': (bytes([0x03, 1, 0, 0, 252, 0]), 252),
    'inquiry': (_inquiry(0, 0), U16),
    'inquiry_vpd_00': (_inquiry(1, 0x00), U16),
    'inquiry_vpd_80': (_inquiry(1, 0x80), U16),
    'inquiry_vpd_83': (_inquiry(1, 0x83), U16),
    'inquiry_vpd_86': (_inquiry(1, 0x86), U16),
    'inquiry_vpd_b0': (_inquiry(1, 0xb0), U16),
    'inquiry_vpd_b1': (_inquiry(1, 0xb1), U16),
    'inquiry_vpd_b2': (_inquiry(1, 0xb2), U16),
    'mode_sense6': (bytes([0x1a, 0, 0x3f, 0, 0xff, 0]), 0xff),
    'mode_sense10': (struct.pack('>BBBxxxxHB', 0x5a, 0, 0x3f, U16, 0), U16),
    'log_sense': (struct.pack('>BBBxxxxHB', 0x4d, 0, 0x40, U16, 0), U16),
    'report_luns': (_cdb12(0xa0, 0, U32), U32),
    'read_capacity10': (bytes([0x25]) + bytes(9), 8),
    'read_capacity16': (_cdb16(0x9e, 0x10, U32), U32),
    'get_lba_status': (_cdb16(0x9e, 0x12, U32), U32),
    'report_target_port_groups': (_cdb12(0xa3, 0x0a, U32), U32),
    'report_supported_opcodes': (_cdb12(0xa3, 0x0c, U32), U32),
    'pr_in_read_keys': (_pr_in(0), U16),
    'pr_in_read_reservation': (_pr_in(1), U16),
    'pr_in_report_capabilities': (_pr_in(2), U16),
    'pr_in_read_full_status': (_pr_in(3), U16),
    # A data CDB: the ramdisk fills every byte from its own pages.
    'read10': (struct.pack('>BBIBHB', 0x28, 0, 0, 0, MIB // BLOCK, 0), MIB),
    # COMPARE AND WRITE of one block, sent with R=1 and W=0: the core
    # compares the block with the first half of the buffer, and runs at
    # once, without Data-Out (see caw_verdict()).
    'compare_and_write_read': (struct.pack('>BBQ3xB2x', 0x89, 0, CAW_LBA, 1),
                               2 * BLOCK),
    # c's: READs of the virtual LUN 0, its 64 blocks (8 pages, rd_nullio).
    'virt_lun0_read10': (struct.pack('>BBIBHB', 0x28, 0, 0, 0, 64, 0),
                         64 * BLOCK),
    'virt_lun0_read16': (struct.pack('>BBQIBB', 0x88, 0, 0, 64, 0, 0),
                         64 * BLOCK),
}
# The cases initiator c sends.
VIRT_LUN0 = ('virt_lun0_read10', 'virt_lun0_read16')


def tcp_read(conn, cdb, edtl):
    """@cdb reading @edtl bytes, on LUN 0 of @conn: (status, data, flags,
    residual, sense); data is what the Data-In PDUs carried, at their
    offsets."""
    itt = conn.next_itt()
    conn.send_pdu(scsi_cmd(F_FINAL | F_READ, itt, edtl, conn.take_cmdsn(),
                           conn.expstatsn, cdb))
    buf = bytearray()
    while True:
        pdu = conn.recv_pdu()
        expect(pdu is not None, 'connection closed during the command')
        expect(pdu.itt == itt and pdu.op in (OP_DATA_IN, OP_SCSI_RSP),
               f'unexpected {pdu}')
        if pdu.op == OP_DATA_IN:
            end = pdu.w40 + len(pdu.data)
            expect(end <= edtl, f'Data-In up to {end} of {edtl} bytes')
            buf[len(buf):end] = bytes(max(0, end - len(buf)))
            buf[pdu.w40:end] = pdu.data
            if not pdu.flags & F_STATUS:
                continue
        sense = pdu.sense if pdu.op == OP_SCSI_RSP else b''
        return pdu.scsi_status, bytes(buf), pdu.flags, pdu.w44, sense


def iser_read(conn, cdb, edtl):
    """As tcp_read(), over iSER: the Data-In lands in the data buffer by
    RDMA WRITE; all @edtl bytes of it are returned."""
    from ixt_iser_raw import ctrl_hdr
    conn.data_mr.write(b'\xee' * edtl, edtl, 0)
    itt = conn.next_itt()
    conn.send_pdu(scsi_cmd(F_FINAL | F_READ, itt, edtl, conn.take_cmdsn(),
                           conn.expstatsn, cdb),
                  ctrl=ctrl_hdr(rstag=conn.data_mr.rkey, rva=conn.data_mr.buf))
    rsp = conn.recv_expect(OP_SCSI_RSP, itt)
    return (rsp.scsi_status, conn.data_mr.read(edtl, 0), rsp.flags, rsp.w44,
            rsp.sense)


class Tenants:
    """Initiators a and b logged in over the transport asked for."""

    def __init__(self, ctx):
        self.ctx = ctx
        if ctx.transport == 'iser':
            from ixt_iser_raw import IserConnection, iser_keys
            self.keys = iser_keys(MaxBurstLength=str(MIB))
            self.new = IserConnection
            self.read = iser_read
        else:
            self.keys = op_keys(MaxBurstLength=str(MIB),
                                MaxRecvDataSegmentLength='262144')
            self.new = Connection
            self.read = tcp_read
        self.a = self.login(ctx.initiator_a)
        self.b = self.login(ctx.initiator_b)
        self.c = (self.login(ctx.initiator_c)
                  if set(VIRT_LUN0) & set(ctx.cases) else None)
        self.marker = MAGIC * (MIB // len(MAGIC))
        self.lba = 0
        self.written = 0

    def login(self, initiator):
        conn = self.new(self.ctx.host, self.ctx.port, initiator=initiator)
        conn.login(self.ctx.target, self.keys)
        expect(conn.neg.get('MaxBurstLength') == str(MIB),
               f'MaxBurstLength {conn.neg.get("MaxBurstLength")}: the TPG '
               f'must allow {MIB}')
        # The UNIT ATTENTION of a new mapping, taken.
        good(no_data(conn, bytes(6)), f'{initiator}: TEST UNIT READY')
        return conn

    def write_marker(self):
        """a writes 1 MiB of the marker; its lines go back to the pool."""
        good(self.a.write(self.lba, self.marker), 'a writing the marker')
        self.lba = (self.lba + MIB // BLOCK) % (A_SPAN // BLOCK)
        self.written += MIB

    def close(self):
        for conn in (self.a, self.b, self.c):
            if not conn:
                continue
            conn.logout()
            conn.close()


def stale(data):
    """Where the magic first is in @data, and how many 8-byte words of
    @data (at the magic's alignment) hold it; (-1, 0) when nowhere."""
    at = data.find(MAGIC)
    if at < 0:
        return -1, 0
    words = sum(1 for i in range(at % 8, len(data) - 7, 8)
                if data[i:i + 8] == MAGIC)
    return at, words


def caw_setup(t):
    """b writes the marker to the block compare_and_write_read compares:
    if the verify data were the lines a just gave back, they would
    compare equal."""
    good(t.b.write(CAW_LBA, t.marker[:BLOCK]), 'b writing the marker')


def caw_verdict(status, sense):
    """None if compare_and_write_read compared its block with zeroes: a
    MISCOMPARE at offset 0, the marker's first byte not zero. Else what
    it compared against, as far as its answer tells."""
    if status == 0:
        return ('GOOD: the block compared equal with the verify data, '
                'the marker a wrote')
    key = sense[2] & 0x0f if len(sense) > 12 else -1
    if status != 0x02 or key != 0x0e or sense[12] != 0x1d:
        return f'status 0x{status:02x}, sense {sense.hex()}: not a MISCOMPARE'
    at = struct.unpack_from('>I', sense, 3)[0]
    if at:
        return (f'MISCOMPARE at offset {at}: the verify data held the '
                f'marker\'s first {at} bytes')
    return None


# What a case needs before (b's own writes) and checks after.
SETUP = {'compare_and_write_read': caw_setup}
VERDICT = {'compare_and_write_read': caw_verdict}


def run(ctx):
    """Runs ctx.cases, ctx.rounds times in turn; prints a line per case."""
    t = Tenants(ctx)
    seen = {name: [0, 0, None] for name in ctx.cases}   # bytes, GOOD, failure
    if 'marker_written' in seen:
        t.write_marker()
        status, back = t.a.read(0, MIB // BLOCK)
        if status != 0 or back != t.marker:
            seen['marker_written'][2] = (f'status 0x{status:02x}, '
                                         f'{back[:16].hex()}...')
        seen['marker_written'][0] = MIB
    for r in range(ctx.rounds):
        for name in ctx.cases:
            if name == 'marker_written' or seen[name][2]:
                continue
            cdb, edtl = COMMANDS[name]
            if name in SETUP:
                SETUP[name](t)
            t.write_marker()
            status, data, flags, resid, sense = t.read(
                t.c if name in VIRT_LUN0 else t.b, cdb, edtl)
            s = seen[name]
            s[0] += len(data)
            s[1] += status == 0
            at, words = stale(data)
            if at >= 0:
                s[2] = (f'round {r + 1}: status 0x{status:02x}, flags '
                        f'0x{flags:02x}, residual {resid}: the marker at '
                        f'byte {at} of {len(data)}, {words * 8} bytes of it '
                        f'({words} words) in all')
            elif name in VERDICT:
                failure = VERDICT[name](status, sense)
                if failure:
                    s[2] = f'round {r + 1}: {failure}'
    t.close()
    failed = 0
    for name in ctx.cases:
        got, ok, failure = seen[name]
        if failure:
            failed += 1
            print(f'FAIL {name}: {failure}', flush=True)
        elif name == 'marker_written':
            print(f'ok {name}: a read its 1 MiB of marker back', flush=True)
        elif name in VERDICT:
            print(f'ok {name}: MISCOMPARE at offset 0 in {ctx.rounds} rounds, '
                  'compared with zeroes, no marker byte', flush=True)
        else:
            print(f'ok {name}: {got} bytes in {ctx.rounds} rounds '
                  f'({ok} GOOD), no marker byte; a wrote {t.written >> 20} '
                  'MiB in all', flush=True)
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--target')
    ap.add_argument('--host', default='192.0.2.1')
    ap.add_argument('--port', type=int, default=3260)
    ap.add_argument('--transport', choices=('tcp', 'iser'), default='tcp')
    ap.add_argument('--initiator-a', default='iqn.2026-11.org.example:ixt-tenant-a')
    ap.add_argument('--initiator-b', default='iqn.2026-11.org.example:ixt-tenant-b')
    ap.add_argument('--initiator-c', default='iqn.2026-11.org.example:ixt-tenant-c')
    ap.add_argument('--rounds', type=int, default=2)
    ap.add_argument('--list', action='store_true')
    ap.add_argument('cases', nargs='*', metavar='CASE')
    ctx = ap.parse_args()
    if ctx.list:
        print('marker_written', *COMMANDS, sep='\n')
        return 0
    if not ctx.target or not ctx.cases:
        ap.error('--target and at least one CASE are needed')
    for name in ctx.cases:
        if name != 'marker_written' and name not in COMMANDS:
            ap.error(f'unknown case {name}')
    errors = (Fail, OSError)
    if ctx.transport == 'iser':
        from ixt_iser_raw import Rejected
        from pyverbs.pyverbs_error import PyverbsError
        errors += (Rejected, PyverbsError)
    try:
        return run(ctx)
    except errors as err:       # a failed login, a lost connection
        for name in ctx.cases:
            print(f'FAIL {name}: {type(err).__name__}: {err}', flush=True)
        return 1


if __name__ == '__main__':
    sys.exit(main())
