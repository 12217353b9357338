# SPDX-License-Identifier: GPL-2.0
TESTS += pdu_test
pdu_test-objs := pdu_test.o ixt_test.o kernel/pdu.o
