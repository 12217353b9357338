# SPDX-License-Identifier: GPL-2.0
"""An iSER initiator that goes silent, for iser_keepalive.sh.

  /usr/bin/python3 ixt_iser_silent.py HOST PORT INITIATOR TARGET ANSWER

Connects over RDMA CM (pyverbs: Debian's python3-pyverbs, hence
/usr/bin/python3), sends the iSER CM header (no zero-based addressing,
no Send with Invalidate), logs in with RDMAExtensions=Yes and answers
the target's NOP-In pings for ANSWER seconds, printing "logged in" and
"ping answered" lines. Then it answers nothing more but keeps its queue
pair and receive buffers: the transport still acknowledges what the
target sends, the iSCSI layer is silent. It prints "closed" when the
target ends the connection (a receive completes with an error) and
exits; it never logs out. Login PDUs, keys and NOP-Out answers come
from ixt_iscsi.py.
"""

import collections
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ixt_iscsi as ix  # noqa: E402
import pyverbs.cm_enums as ce  # noqa: E402
import pyverbs.enums as e  # noqa: E402
from pyverbs.cmid import AddrInfo, CMID, ConnParam  # noqa: E402
from pyverbs.qp import QPCap, QPInitAttr  # noqa: E402

ISER_HDR = 28            # struct iser_ctrl
ISCSI_CTRL = 0x10        # its flags: an iSCSI control-type PDU
ZBVA_NOT_SUP, SEND_W_INV_NOT_SUP = 0x80, 0x40   # struct iser_cm_hdr
RECV_DSEG = 8192
RX_LEN = ISER_HDR + 48 + RECV_DSEG + 1024
NR_RX = 32


class IserConnection(ix.Connection):
    """ixt_iscsi's Connection over one iSER connection: a PDU a Send."""

    def __init__(self, host, port, initiator):   # pylint: disable=super-init-not-called
        self.timeout = 10.0
        self.initiator = initiator
        self.isid = 0x800000000000 | os.getpid() & 0xffffff
        self.hdigest = self.ddigest = False
        self.itt = 0x100
        self.cmdsn = 1
        self.expstatsn = self.maxcmdsn = 0
        self.neg = {}
        self.target_mrdsl = RECV_DSEG
        self.tsih = 0
        self.r2t_batch = 0
        cap = QPCap(max_send_wr=16, max_recv_wr=NR_RX, max_send_sge=1,
                    max_recv_sge=1)
        ai = AddrInfo(dst=host, dst_service=str(port),
                      port_space=ce.RDMA_PS_TCP)
        self.cmid = CMID(creator=ai, qp_init_attr=QPInitAttr(
            qp_type=e.IBV_QPT_RC, cap=cap, sq_sig_all=1))
        self.posted = collections.deque()
        for _ in range(NR_RX):
            self._post_rx(self.cmid.reg_msgs(RX_LEN))
        param = ConnParam(data_len=4)
        param.set_private_data(bytes([ZBVA_NOT_SUP | SEND_W_INV_NOT_SUP, 0, 0, 0]))
        self.cmid.connect(param)

    def _post_rx(self, mr):
        self.cmid.post_recv(mr)
        self.posted.append(mr)

    def close(self):
        self.cmid.close()

    def send(self, raw):
        msg = bytes([ISCSI_CTRL]) + bytes(ISER_HDR - 1) + raw
        mr = self.cmid.reg_msgs(len(msg))
        mr.write(msg, len(msg))
        self.cmid.post_send(mr)
        wc = self.cmid.get_send_comp()
        ix.expect(wc is not None and wc.status == e.IBV_WC_SUCCESS,
                  f'send failed: {wc and wc.status}')

    def _recv_pdu(self, timeout):
        wc = self.cmid.get_recv_comp()
        mr = self.posted.popleft()
        if wc is None or wc.status != e.IBV_WC_SUCCESS:
            return None
        msg = mr.read(wc.byte_len, 0)
        self._post_rx(mr)
        hdr = msg[ISER_HDR:ISER_HDR + 48]
        dlength = int.from_bytes(hdr[5:8], 'big')
        start = ISER_HDR + 48 + hdr[4] * 4
        pdu = ix.Pdu(hdr, msg[start:start + dlength])
        if not (pdu.op == ix.OP_NOP_IN and pdu.itt == ix.RESERVED_TAG):
            self.expstatsn = (pdu.statsn + 1) & 0xffffffff
        if pdu.op != ix.OP_LOGIN_RSP or pdu.flags & 3 == ix.FFP:
            self.maxcmdsn = pdu.maxcmdsn
        return pdu


def main():
    host, port, initiator, target, answer = sys.argv[1:6]
    conn = IserConnection(host, int(port), initiator)
    conn.login(target, op_keys=ix.op_keys(
        MaxRecvDataSegmentLength=None, RDMAExtensions='Yes',
        InitiatorRecvDataSegmentLength=str(RECV_DSEG),
        TargetRecvDataSegmentLength=str(RECV_DSEG),
        MaxOutstandingUnexpectedPDUs='0'))
    print('logged in', flush=True)
    end = time.monotonic() + float(answer)
    while True:
        pdu = conn._recv_pdu(None)
        if pdu is None:
            print('closed', flush=True)
            return 0
        if time.monotonic() < end and conn._ping(pdu):
            print('ping answered', flush=True)
        elif pdu.op == ix.OP_NOP_IN and pdu.ttt != ix.RESERVED_TAG:
            print('ping left unanswered', flush=True)
        else:
            print(f'received {pdu}', flush=True)


if __name__ == '__main__':
    try:
        sys.exit(main())
    except ix.Fail as err:
        print(f'failed: {err}', flush=True)
        sys.exit(1)
