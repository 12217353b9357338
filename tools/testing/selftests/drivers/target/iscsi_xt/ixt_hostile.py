# SPDX-License-Identifier: GPL-2.0
"""What an unauthenticated host can make a target hold.

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
"""

import socket
import sys
import time

from ixt_iscsi import F_FINAL, OP_VENDOR1, Cases, bhs, cdb10, expect, scsi_cmd

# What a connection of pin_* may add: vmalloc areas of iscsi_xt, and
# kernel memory of any kind as MemAvailable sees it (a socket pair, the
# login state and its 16 KiB response buffer, well under it).
PIN_VMALLOC_BOUND = 64 << 10
PIN_AVAIL_BOUND = 256 << 10
PIN_DLENGTH = 0xffffff
PIN_SENT = 16           # bytes of the data segment sent

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
