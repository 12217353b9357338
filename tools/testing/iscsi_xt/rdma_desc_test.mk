# SPDX-License-Identifier: GPL-2.0
TESTS += rdma_desc_test
rdma_desc_test-objs := rdma_desc_test.o ixt_test.o kernel/rdma_desc.o
