// SPDX-License-Identifier: GPL-2.0
/* iscsi_xt: storage for the key=value text of Login and Text PDUs. */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "conn.h"
#include "fault.h"

/**
 * ixt_reqbuf_append() - add the data segment of one PDU to a request
 * @req: the request being reassembled.
 * @data: the data segment.
 * @len: bytes at @data.
 *
 * Context: Process context.
 * Return: 0, -E2BIG when the request would exceed %IXT_TEXT_MAX_LEN
 * bytes, -ENOMEM.
 */
int ixt_reqbuf_append(struct ixt_reqbuf *req, const void *data, u32 len)
{
	char *buf;

	if (!len)
		return 0;
	if (len > IXT_TEXT_MAX_LEN - req->len)
		return -E2BIG;
	if (req->len + len > req->size) {
		u32 size = clamp(2 * req->size, req->len + len,
				 (u32)IXT_TEXT_MAX_LEN);

		buf = kvrealloc(req->buf, size, GFP_KERNEL);
		if (!buf)
			return -ENOMEM;
		req->buf = buf;
		req->size = size;
	}
	memcpy(req->buf + req->len, data, len);
	req->len += len;
	return 0;
}

/**
 * ixt_reqbuf_free() - free a request buffer
 * @req: the request; left empty and reusable.
 *
 * Context: Process context.
 */
void ixt_reqbuf_free(struct ixt_reqbuf *req)
{
	kvfree(req->buf);
	*req = (struct ixt_reqbuf){ };
}

/**
 * ixt_rsp_alloc() - give a response buffer its storage
 * @rsp: the buffer, unused or freed.
 * @size: bytes of storage.
 *
 * Context: Process context.
 * Return: 0 or -ENOMEM.
 */
int ixt_rsp_alloc(struct ixt_text_buf *rsp, u32 size)
{
	char *data = ixt_fault(IXT_FAULT_TEXT_BUF) ? NULL :
		     kvmalloc(size, GFP_KERNEL);

	if (!data)
		return -ENOMEM;
	ixt_text_buf_init(rsp, data, size);
	return 0;
}

/**
 * ixt_rsp_free() - free the storage of a response buffer
 * @rsp: the buffer; left without storage.
 *
 * Context: Process context.
 */
void ixt_rsp_free(struct ixt_text_buf *rsp)
{
	kvfree(rsp->data);
	*rsp = (struct ixt_text_buf){ };
}
