#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Writes the seed corpora of the fuzzers into corpus/<target>/.

The seeds are binary, in the layout each harness reads (see the comment
at the top of each <target>_fuzz.c), so they are generated: run this
script after changing a layout, and commit what it writes. It writes the
same files every time. The BHSs are those the raw client of the
kselftests (ixt_iscsi.py) builds; the login texts are the key sets
open-iscsi sends.
"""

import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '../../selftests/drivers/target/iscsi_xt'))
import ixt_iscsi as ix  # noqa: E402


def u8(v):
    return struct.pack('<B', v)


def u16(v):
    return struct.pack('<H', v)


def u32(v):
    return struct.pack('<I', v & 0xffffffff)


def nums(*vals):
    """Numbers as rng() of fuzz.h reads them: four bytes each."""
    return b''.join(u32(v) for v in vals)


def text(pairs):
    return ix.encode_keys(pairs)


def blob(data):
    """What fz_bytes() reads: a two-byte count, then the bytes."""
    return u16(len(data)) + data


def cstr(s):
    """What fz_str() reads: the bytes up to a NUL."""
    return s.encode() + b'\0'


# ---- pdu: BHS, MaxRecvDataSegmentLength, FirstBurstLength, a length,
# two serial numbers, the AHSs.

def pdu_seed(hdr, ahs=b'', mrdsl=8192, fbl=65536):
    return hdr + nums(mrdsl, fbl, 0x1234, 5, 0x80000004) + ahs


def ahs(code, body):
    a = struct.pack('>HB', len(body), code) + body
    return a + b'\0' * ix.pad_len(len(a))


def pdu_seeds():
    isid = 0x023d00000001
    login_keys = text([('InitiatorName', 'iqn.1993-08.org.debian:01:abc'),
                       ('TargetName', 'iqn.2003-01.org.linux-iscsi.t:t1'),
                       ('SessionType', 'Normal'), ('AuthMethod', 'None')])
    login = bytearray(ix.login_req(ix.login_flags(ix.SEC, ix.OPER, True),
                                   isid, 1, 1, 0))
    login[5:8] = len(login_keys).to_bytes(3, 'big')
    write = bytearray(ix.scsi_cmd(ix.F_FINAL | ix.F_WRITE, 2, 8192, 2, 1,
                                  ix.cdb10(0x2a, 0, 16)))
    write[5:8] = (4096).to_bytes(3, 'big')
    bidi = bytearray(ix.scsi_cmd(ix.F_FINAL | ix.F_READ | ix.F_WRITE, 3, 512,
                                 3, 1, ix.cdb10(0x53, 0, 1)))
    extra = ahs(1, b'\0' + bytes(range(16))) + ahs(2, b'\0' + u32(512)[::-1])
    bidi[4] = len(extra) // 4
    snack = bytearray(ix.bhs(0x10, ix.F_FINAL | 1, itt=0xffffffff, w20=7))
    return {
        'login': pdu_seed(bytes(login)),
        'text': pdu_seed(ix.text_req(4, 4, 1)),
        'scsi-read': pdu_seed(ix.scsi_cmd(ix.F_FINAL | ix.F_READ, 5, 4096, 5,
                                          1, ix.cdb10(0x28, 0, 8))),
        'scsi-write-imm': pdu_seed(bytes(write)),
        'scsi-bidi-ahs': pdu_seed(bytes(bidi), extra),
        'data-out': pdu_seed(ix.data_out(2, 0x10001, 1, 0, 4096)),
        'nop-out': pdu_seed(ix.nop_out(0xffffffff, 6, 1, imm=True)),
        'logout': pdu_seed(ix.logout_req(7, 7, 1)),
        'tmf': pdu_seed(ix.tmf_req(1, 8, 2, 8, 1, refcmdsn=2)),
        'snack': pdu_seed(bytes(snack)),
    }


# ---- params: flags, TPGT, configfs writes, then requests: stage, PDUs,
# text, cut points, the initiator's MaxRecvDataSegmentLength.

LEADING, ISER, WORKAROUND = 1, 2, 4
SEC, OPER, FFP = 0, 1, 2        # indexes into the harness's stages[]

INITIATOR = 'iqn.1993-08.org.debian:01:abc'
TARGET = 'iqn.2003-01.org.linux-iscsi.debian.x8664:sn.1234'

OPEN_ISCSI_OP = [
    ('HeaderDigest', 'None,CRC32C'), ('DataDigest', 'None'),
    ('DefaultTime2Wait', '2'), ('DefaultTime2Retain', '0'),
    ('IFMarker', 'No'), ('OFMarker', 'No'), ('ErrorRecoveryLevel', '0'),
    ('InitialR2T', 'No'), ('ImmediateData', 'Yes'),
    ('MaxBurstLength', '16776192'), ('FirstBurstLength', '262144'),
    ('MaxOutstandingR2T', '1'), ('MaxConnections', '1'),
    ('DataPDUInOrder', 'Yes'), ('DataSequenceInOrder', 'Yes'),
    ('MaxRecvDataSegmentLength', '262144'),
]


def store(param, value):
    return u8(param) + blob(value.encode())


def request(stage, pairs, cuts=(), mrdsl=8192):
    data = text(pairs) if isinstance(pairs, list) else pairs
    return (u8(stage) + u8(len(cuts)) + blob(data) +
            b''.join(u16(c) for c in cuts) + u16(mrdsl))


def params_seed(flags, stores, requests, tpgt=1):
    return (u8(flags) + u16(tpgt) + u8(len(stores)) + b''.join(stores) +
            b''.join(requests))


def params_seeds():
    leading = [('InitiatorName', INITIATOR), ('InitiatorAlias', 'debian'),
               ('TargetName', TARGET), ('SessionType', 'Normal')]
    none = leading + [('AuthMethod', 'None')]
    chap = leading + [('AuthMethod', 'CHAP,None')]
    disc = [('InitiatorName', INITIATOR), ('SessionType', 'Discovery'),
            ('AuthMethod', 'None')]
    iser_op = [('RDMAExtensions', 'Yes'),
               ('TargetRecvDataSegmentLength', '8192'),
               ('InitiatorRecvDataSegmentLength', '262144'),
               ('MaxOutstandingUnexpectedPDUs', '0')] + OPEN_ISCSI_OP[:-1]
    whole = text(none)
    return {
        'login-none': params_seed(LEADING, [store(0, 'None')], [
            request(SEC, none), request(OPER, OPEN_ISCSI_OP),
            request(FFP, [('SendTargets', 'All')])]),
        'login-chap': params_seed(LEADING, [store(0, 'CHAP,None')], [
            request(SEC, chap), request(SEC, [('CHAP_A', '7,6,5')]),
            request(SEC, [('CHAP_N', 'user'),
                          ('CHAP_R', '0x' + '5a' * 32)]),
            request(OPER, OPEN_ISCSI_OP)]),
        'login-continued': params_seed(LEADING, [], [
            request(SEC, whole, cuts=(7, len(whole) // 2, len(whole) - 3),
                    mrdsl=48),
            request(OPER, OPEN_ISCSI_OP, cuts=(100, 101), mrdsl=512)]),
        'discovery': params_seed(LEADING, [], [
            request(SEC, disc),
            request(OPER, [('HeaderDigest', 'None'), ('DataDigest', 'None'),
                           ('MaxRecvDataSegmentLength', '32768'),
                           ('DefaultTime2Wait', '2'),
                           ('DefaultTime2Retain', '0')]),
            request(FFP, [('SendTargets', 'All')])]),
        'iser': params_seed(LEADING | ISER, [store(0, 'None')], [
            request(SEC, none), request(OPER, iser_op)]),
        'join': params_seed(WORKAROUND, [store(16, '2'), store(13, '4')], [
            request(OPER, leading + OPEN_ISCSI_OP)]),
        'offer': params_seed(LEADING, [
            store(1, 'CRC32C'), store(4, 'LIO Target'), store(5, 'No'),
            store(9, '0x40000'), store(16, '1'), store(19, '2048~8192')],
            [request(SEC, none), request(OPER, OPEN_ISCSI_OP + [
                ('X-com.example.Key', 'x'), ('iSCSIProtocolLevel', '1'),
                ('TaskReporting', 'RFC3720')])]),
    }


# ---- chap: allowed algorithms, CHAP_A, identifiers used, faults,
# credentials, the random bytes of the challenge, the response, then
# bytes for the decoder alone.

def cred(s):
    return u8(0) if s is None else u8(1) if s == '' else u8(2) + cstr(s)


def chap_seed(chap_a, creds, n_mode, r_mode, mutual=b'\0', allowed=0x10,
              faults=b'\0'):
    """r_mode: bits 0-1 the kind of CHAP_R, the others its encoding."""
    challenge = bytes(range(0x40, 0x61))        # id start, then 32 bytes
    wrong_bit = u16(9) if r_mode & 3 == 2 else b''
    return (u8(allowed) + cstr(chap_a) + u8(0) + faults +
            b''.join(cred(c) for c in creds) + challenge + u8(n_mode) +
            u8(r_mode) + wrong_bit + mutual +
            blob(b'\0\x01\xfe\xff') + u8(1) + u16(64) +     # round trip
            blob(b'0bAAECAw=='))                            # any value


def chap_seeds():
    one_way = ['user', 'secretsecret', None, None]
    mutual = ['user', 'secretsecret', 'target', 'targetsecret']
    # CHAP_I 7, CHAP_C of 1 + 15 bytes, in lowercase hex.
    challenge = b'\x01' + u8(7) + nums(15, 0) + bytes(range(16)) + u8(0)
    return {
        'md5-hex': chap_seed('5', one_way, 1, 1),
        'sha256-list': chap_seed('7,6,5', one_way, 1, 1 | 2 << 2),
        'sha3-b64': chap_seed('8', one_way, 1, 1 | 1 << 2),
        'sha1-mutual': chap_seed('6', mutual, 1, 1, mutual=challenge),
        'reflection': chap_seed('7', mutual, 1, 1, mutual=b'\x02\x00'),
        'reject': chap_seed('0x10,KRB5', one_way, 1, 1),
        'wrong': chap_seed('7,5', one_way, 1, 2, allowed=0x04),
        'fault': chap_seed('7,5', mutual, 1, 1, mutual=challenge,
                           faults=b'\x09\x02'),
    }


# ---- holes, dpt, rdma_desc: the random numbers the models draw.

def model_seeds():
    return {
        'holes': {
            'snq-window': nums(1, 3, 0xfffffff0, 63, 1, 400),
            'snq-wrap': nums(1, 2, 5, 7, 0, 300) + nums(*range(40)),
            'snq-large': nums(1, 0, 100, 255, 1, 511),
            'ranges': nums(0, 400, 3, 200),
            'ranges-tight': nums(0, 512, 0, 255) + nums(*range(0, 96, 3)),
        },
        'dpt': {
            'model': nums(1),
            'model-ooo': nums(2, 1, 1, 0, 5000, 1, 4096, 2, 7, 0x1234, 1),
            'raw': nums(0, 12, 1, 100, 65536, 3000, 1, 4096, 2, 1, 5, 1),
            'raw-invalid': nums(0, 31, 0, 0, 4096, 0, 0, 0, 0),
        },
        'rdma_desc': {
            'plain': nums(0),
            'pages': nums(1),
            'raw': nums(2, 3, 16, 1, 5, 2, 10) + nums(*range(60)),
        },
    }


def write(target, seeds):
    d = os.path.join(HERE, 'corpus', target)
    os.makedirs(d, exist_ok=True)
    for old in os.listdir(d):
        os.unlink(os.path.join(d, old))
    for name, data in seeds.items():
        with open(os.path.join(d, name), 'wb') as f:
            f.write(data)


def main():
    write('pdu', pdu_seeds())
    write('params', params_seeds())
    write('chap', chap_seeds())
    for target, seeds in model_seeds().items():
        write(target, seeds)
    return 0


if __name__ == '__main__':
    sys.exit(main())
