#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A TCMU user-space backstore for the iscsi_xt kselftests (stdlib only).

    ixt_tcmu.py NAME BLOCKS

serves the TCMU device NAME (target/core/user_*/NAME, enabled) from
memory: BLOCKS blocks of 512 bytes, zeroed. It runs until killed, and
prints "ready" once it has the device's ring.

TCMU backstores are the target core's way to run commands it does not
emulate, bidirectional ones among them (Documentation/target/tcmu-design.rst):
the kernel puts each command on a ring in memory shared through a UIO
device, with its data in the same memory, and this side answers in place.
It runs INQUIRY, TEST UNIT READY, READ CAPACITY(10), READ(10), WRITE(10)
and XDWRITEREAD(10): the old blocks XOR the data sent come back, and the
data sent is written unless DISABLE_WRITE is set (SBC-3). Anything else
gets CHECK CONDITION, ILLEGAL REQUEST, INVALID COMMAND OPERATION CODE.
"""

import glob
import mmap
import os
import struct
import sys
import traceback

BLOCK = 512
TCMU_OP_CMD = 1
TCMU_UFLAG_UNKNOWN_OP = 0x1

# struct tcmu_mailbox: cmdr_off, cmdr_size at 4; cmd_head at 12; cmd_tail
# on its own 64-byte line.
MB_CMDR, MB_HEAD, MB_TAIL = 4, 12, 64
# struct tcmu_cmd_entry: hdr (len_op, cmd_id, kflags, uflags), then req
# (iov_cnt, iov_bidi_cnt, iov_dif_cnt, cdb_off aligned to 8, 2 pads,
# iovs) or rsp (scsi_status, pads, read_len, sense_buffer[96]) in the
# same place.
ENT_UFLAGS, ENT_REQ, ENT_IOV, ENT_SENSE = 7, 8, 48, 16


def find_uio(name):
    """The UIO device whose name is tcm-user/HBA/NAME[/config]."""
    for d in glob.glob('/sys/class/uio/uio*'):
        with open(os.path.join(d, 'name')) as f:
            parts = f.read().strip().split('/')
        if len(parts) >= 3 and parts[0] == 'tcm-user' and parts[2] == name:
            return d
    return None


def sense(key, asc, ascq=0):
    s = bytearray(18)
    s[0], s[2], s[7], s[12], s[13] = 0x70, key, 10, asc, ascq
    return bytes(s)


class Device:
    def __init__(self, uio, blocks):
        with open(os.path.join(uio, 'maps/map0/size')) as f:
            size = int(f.read(), 16)
        self.fd = os.open('/dev/' + os.path.basename(uio), os.O_RDWR)
        self.m = mmap.mmap(self.fd, size)
        self.cmdr_off, self.cmdr_size = struct.unpack_from('<II', self.m,
                                                           MB_CMDR)
        self.disk = bytearray(blocks * BLOCK)
        self.blocks = blocks

    def iovs(self, ent, first, n):
        return [struct.unpack_from('<QQ', self.m, ent + ENT_IOV + 16 * i)
                for i in range(first, first + n)]

    def gather(self, iovs):
        return b''.join(self.m[base:base + n] for base, n in iovs)

    def scatter(self, iovs, data):
        off = 0
        for base, n in iovs:
            chunk = data[off:off + n]
            self.m[base:base + len(chunk)] = chunk
            off += n

    def run(self, cdb, data_out, data_in):
        """Runs one command: returns (status, sense, data for data_in)."""
        op = cdb[0]
        if op == 0x00:                                  # TEST UNIT READY
            return 0, b'', b''
        if op == 0x12:                                  # INQUIRY
            if cdb[1] & 1:
                return 2, sense(5, 0x24), b''
            inq = bytearray(36)
            inq[2], inq[3], inq[4] = 6, 2, 31
            inq[8:36] = b'IXT     TCMU test       0001'
            return 0, b'', bytes(inq)
        if op == 0x25:                                  # READ CAPACITY(10)
            return 0, b'', struct.pack('>II', self.blocks - 1, BLOCK)
        if op in (0x28, 0x2a, 0x53):                    # READ, WRITE, XDWRITEREAD
            lba, n = struct.unpack_from('>I', cdb, 2)[0], \
                struct.unpack_from('>H', cdb, 7)[0]
            if lba + n > self.blocks:
                return 2, sense(5, 0x21), b''
            old = bytes(self.disk[lba * BLOCK:(lba + n) * BLOCK])
            if op == 0x28:
                return 0, b'', old
            new = data_out[:n * BLOCK]
            if len(new) < n * BLOCK:
                return 2, sense(5, 0x24), b''
            if op == 0x2a or not cdb[1] & 0x04:
                self.disk[lba * BLOCK:(lba + n) * BLOCK] = new
            if op == 0x2a:
                return 0, b'', b''
            return 0, b'', bytes(a ^ b for a, b in zip(old, new))
        return 2, sense(5, 0x20), b''

    def handle(self, ent):
        iov_cnt, bidi_cnt, _, cdb_off = struct.unpack_from('<III4xQ', self.m,
                                                           ent + ENT_REQ)
        cdb = bytes(self.m[cdb_off:cdb_off + 16])
        iovs = self.iovs(ent, 0, iov_cnt)
        bidi = self.iovs(ent, iov_cnt, bidi_cnt)
        # Data-Out is in the iovs of a write; a read's iovs take the
        # Data-In; a bidirectional command has both.
        out = self.gather(iovs) if cdb[0] in (0x2a, 0x53) else b''
        status, sns, data = self.run(cdb, out, bidi or iovs)
        if data:
            self.scatter(bidi or iovs, data)
        struct.pack_into('<BBHI', self.m, ent + ENT_REQ, status, 0, 0, 0)
        self.m[ent + ENT_SENSE:ent + ENT_SENSE + 96] = sns.ljust(96, b'\0')

    def serve_ring(self):
        head = struct.unpack_from('<I', self.m, MB_HEAD)[0]
        tail = struct.unpack_from('<I', self.m, MB_TAIL)[0]
        done = tail != head
        while tail != head:
            ent = self.cmdr_off + tail
            len_op = struct.unpack_from('<I', self.m, ent)[0]
            if (len_op & 7) == TCMU_OP_CMD:
                try:
                    self.handle(ent)
                except Exception:           # answered, and shown
                    traceback.print_exc()
                    struct.pack_into('<B', self.m, ent + ENT_REQ, 2)
                    self.m[ent + ENT_SENSE:ent + ENT_SENSE + 18] = \
                        sense(4, 0x44)
            elif len_op & 7:
                self.m[ent + ENT_UFLAGS] |= TCMU_UFLAG_UNKNOWN_OP
            tail = (tail + (len_op & ~7)) % self.cmdr_size
            struct.pack_into('<I', self.m, MB_TAIL, tail)
        if done:
            os.write(self.fd, struct.pack('<I', 0))

    def serve(self):
        while True:
            self.serve_ring()
            os.read(self.fd, 4)         # until the kernel queues more


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split('\n\n')[1])
    uio = find_uio(sys.argv[1])
    if not uio:
        sys.exit(f'no UIO device for TCMU device {sys.argv[1]}')
    dev = Device(uio, int(sys.argv[2]))
    print('ready', flush=True)
    dev.serve()


if __name__ == '__main__':
    main()
