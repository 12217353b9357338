# SPDX-License-Identifier: GPL-2.0
"""What an unauthenticated host can make a target hold or read.

A raw initiator over TCP (the client of ixt_iscsi.py) for tcp_hostile.sh:

    ixt_hostile.py --target IQN [--host ADDR] [--conns N] CASE...

runs the named cases (see --list) and prints one line per case; the exit
status is 0 when the target kept every bound.

pin_vendor, pin_login_cmd: --conns connections, each a BHS announcing a
data segment of 0xffffff bytes and then a few bytes of it, held open: a
vendor-specific opcode (0x1c) and a SCSI Command, both refused in the
login phase. The vmalloc areas of iscsi_xt (/proc/vmallocinfo) may grow
by less than PIN_VMALLOC_BOUND a connection and MemAvailable
(/proc/meminfo) drop by less than PIN_AVAIL_BOUND a connection; the
target must not buffer a data segment over the login phase's
MaxRecvDataSegmentLength (8192), let alone 16 MiB of one.

varlen_cdb_no_ahs, varlen_cdb_short_ahs: a variable-length CDB (opcode
0x7f) whose ADDITIONAL CDB LENGTH (byte 7) is 252, a 260-byte CDB, with no
Extended CDB AHS and with one of 4 bytes: CHECK CONDITION, ILLEGAL
REQUEST, INVALID FIELD IN CDB (24h/00h), and the session goes on.
"""

import socket
import sys
import time

from ixt_iscsi import (
    F_FINAL, OP_SCSI_RSP, OP_VENDOR1, Cases, Connection, bhs, cdb10, expect,
    scsi_cmd)

# What a connection of pin_* may add: vmalloc areas of iscsi_xt, and
# kernel memory of any kind as MemAvailable sees it (a socket pair, the
# login state and its 16 KiB response buffer, well under it).
PIN_VMALLOC_BOUND = 64 << 10
PIN_AVAIL_BOUND = 256 << 10
PIN_DLENGTH = 0xffffff
PIN_SENT = 16           # bytes of the data segment sent
VARLEN_CDB_LEN = 260    # 8 + 252

CASES = Cases()
case = CASES.case


def vmalloc_of(module):
    """Bytes of the vmalloc areas whose caller is in @module."""
    total = 0
    with open('/proc/vmallocinfo') as f:
        for line in f:
            if f'[{module}]' not in line:
                continue
            for word in line.split():
                if word.startswith('pages='):
                    total += int(word[6:]) * 4096
    return total


def mem_available():
    with open('/proc/meminfo') as f:
        for line in f:
            if line.startswith('MemAvailable:'):
                return int(line.split()[1]) << 10
    raise OSError('no MemAvailable in /proc/meminfo')


def still_open(sock):
    """Whether the target has not closed @sock (nor sent anything)."""
    sock.setblocking(False)
    try:
        return sock.recv(1, socket.MSG_PEEK) != b''
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        sock.setblocking(True)


def pin(ctx, hdr, what):
    """@ctx.conns connections, each sending @hdr announcing PIN_DLENGTH
    bytes and PIN_SENT of them, measured a few seconds later."""
    vm0, avail0 = vmalloc_of('iscsi_xt'), mem_available()
    socks = []
    try:
        for _ in range(ctx.conns):
            s = socket.create_connection((ctx.host, ctx.port), timeout=10)
            h = bytearray(hdr)
            h[5:8] = PIN_DLENGTH.to_bytes(3, 'big')
            s.sendall(bytes(h) + bytes(PIN_SENT))
            socks.append(s)
        # Let the target's receive work see every one (TCG is slow).
        time.sleep(ctx.settle)
        vm1, avail1 = vmalloc_of('iscsi_xt'), mem_available()
        held = sum(still_open(s) for s in socks)
    finally:
        for s in socks:
            s.close()
        # The next case needs the slots of the bound on logins back.
        end = time.monotonic() + 15
        while (vmalloc_of('iscsi_xt') > vm0 + PIN_VMALLOC_BOUND and
               time.monotonic() < end):
            time.sleep(0.5)
        time.sleep(1)
    grew, dropped = vm1 - vm0, avail0 - avail1
    seen = (f'{what}: {ctx.conns} connections, {held} still open; '
            f'iscsi_xt vmalloc {grew >> 10:+d} KiB, MemAvailable '
            f'{-dropped >> 10:+d} KiB')
    expect(grew < ctx.conns * PIN_VMALLOC_BOUND,
           f'{seen}: vmalloc over {ctx.conns} x {PIN_VMALLOC_BOUND >> 10} KiB')
    expect(dropped < ctx.conns * PIN_AVAIL_BOUND,
           f'{seen}: MemAvailable dropped over {ctx.conns} x '
           f'{PIN_AVAIL_BOUND >> 10} KiB')
    return seen


@case
def case_pin_vendor(ctx):
    """A vendor-specific opcode (0x1c) announcing 16 MiB of data, in the
    login phase, on --conns connections: nothing like 16 MiB held each."""
    return pin(ctx, bhs(OP_VENDOR1 | 0x40, F_FINAL, itt=1), 'vendor opcode')


@case
def case_pin_login_cmd(ctx):
    """A SCSI Command announcing 16 MiB of immediate data, in the login
    phase, on --conns connections: nothing like 16 MiB held each."""
    return pin(ctx, scsi_cmd(F_FINAL | 0x20, 1, PIN_DLENGTH, 1, 0,
                             cdb10(0x2a, 0, 1)), 'SCSI Command in login')


def logged_in(ctx):
    conn = Connection(ctx.host, ctx.port, initiator=ctx.initiator)
    conn.login(ctx.target)
    return conn


def varlen_cdb(ctx, ecdb_len):
    """A 0x7f CDB of VARLEN_CDB_LEN bytes by its byte 7, of which only
    16 + @ecdb_len reach the target: the SCSI Response must be CHECK
    CONDITION, INVALID FIELD IN CDB; then a NOP and a READ(10) still go."""
    conn = logged_in(ctx)
    cdb = bytearray(VARLEN_CDB_LEN)
    cdb[0], cdb[7] = 0x7f, VARLEN_CDB_LEN - 8
    hdr = bytearray(scsi_cmd(F_FINAL, conn.next_itt(), 0, conn.take_cmdsn(),
                             conn.expstatsn, bytes(cdb[:16])))
    itt = int.from_bytes(hdr[16:20], 'big')
    ahs = b''
    if ecdb_len:
        ahs = (ecdb_len + 1).to_bytes(2, 'big') + b'\x01\x00' + \
            bytes(cdb[16:16 + ecdb_len])
        ahs += bytes(-len(ahs) % 4)
        hdr[4] = len(ahs) // 4
    for _ in range(3):
        conn.send_pdu(bytes(hdr) + ahs)
        rsp = conn.recv_expect(OP_SCSI_RSP, itt)
        sense = rsp.sense
        # A unit attention first (the LUN is new to the initiator).
        if not (rsp.scsi_status == 0x02 and sense[2:3] == b'\x06'):
            break
        itt = conn.next_itt()
        hdr[16:20] = itt.to_bytes(4, 'big')
        hdr[24:28] = conn.take_cmdsn().to_bytes(4, 'big')
        hdr[28:32] = conn.expstatsn.to_bytes(4, 'big')
    seen = (f'status 0x{rsp.scsi_status:02x}, sense key '
            f'0x{sense[2] & 0xf if len(sense) > 2 else 0:x}, ASC/ASCQ '
            f'{sense[12:14].hex() if len(sense) > 13 else "none"}')
    expect(rsp.scsi_status == 0x02 and len(sense) > 13 and
           sense[2] & 0xf == 0x05 and sense[12:14] == b'\x24\x00',
           f'{seen}, expected CHECK CONDITION, ILLEGAL REQUEST, 2400')
    conn.nop()
    status, _ = conn.read(0, 1)
    expect(status == 0, f'the READ after it: status 0x{status:02x}')
    conn.logout()
    return f'{seen}; the session goes on'


@case
def case_varlen_cdb_no_ahs(ctx):
    """A 260-byte variable-length CDB (0x7f, byte 7 = 252) with no
    Extended CDB AHS: refused with INVALID FIELD IN CDB, session goes on."""
    return varlen_cdb(ctx, 0)


@case
def case_varlen_cdb_short_ahs(ctx):
    """The same CDB with an Extended CDB AHS of only 4 more bytes: refused
    with INVALID FIELD IN CDB, the session goes on."""
    return varlen_cdb(ctx, 4)


def main():
    def options(ap):
        ap.add_argument('--conns', type=int, default=64,
                        help='connections a pin_ case opens')
        ap.add_argument('--settle', type=float, default=3.0,
                        help='pin_: seconds before measuring')
    return CASES.main(__doc__, 'iqn.2026-11.org.example:ixt-hostile',
                      options)


if __name__ == '__main__':
    sys.exit(main())
