/* scripted_peer.h - a scripted transport behind struct nvmf_xport_ops for unit tests.
 *
 * It plays the RDMA verbs and the target at once, with no hardware:
 *   - post_sends: records every descriptor (slot, wr_id, in-capsule addr/len/lkey) plus a COPY
 *     of the slot's 64 SQE bytes as they were at post time, and which post_sends call (batch)
 *     carried it.  Optionally fails (post_sends_rc) or answers by itself (auto_send_ok,
 *     auto_respond).
 *   - post_recvs: records each (re)posted receive buffer and tracks which buffers are posted,
 *     counting double posts (a buffer posted again while still posted) and the calls (chains).
 *   - poll: hands back the completions the test injected, in injection order, at most
 *     poll_batch (if set) per call.
 * The test injects SEND completions (ok / error status) and RECV completions whose 16 raw CQE
 * bytes it composes at spec offsets (result 0..7, cid 12..13, status 14..15); they land in
 * q->rsps[idx] of a receive buffer that is currently posted, the way a real RECV would.
 *
 * Header-only; everything is static (the project builds with -Wmissing-prototypes). */
#ifndef FIO_NVMEOF_TESTS_SCRIPTED_PEER_H
#define FIO_NVMEOF_TESTS_SCRIPTED_PEER_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "nvmf_queue.h"

#define SP_MAX_SENDS  1024
#define SP_MAX_RECVS  8192
#define SP_MAX_WCS    1024
#define SP_MAX_DEPTH  4096

struct sp_send {
	unsigned    batch;      /* index of the post_sends call that carried it (0-based) */
	unsigned    pos;        /* position inside that call */
	unsigned    slot;
	uint64_t    wr_id;
	const void *inline_addr;
	uint32_t    inline_len;
	uint32_t    inline_lkey;
	uint8_t     sqe[64];    /* the capsule's SQE bytes at post time */
};

struct sp_pending {
	struct nvmf_wc wc;
	int            has_cqe;   /* receive: copy cqe into q->rsps[idx] */
	unsigned       idx;
	uint8_t        cqe[16];
};

struct scripted_peer {
	struct nvmf_queue *q;

	/* post_sends */
	struct sp_send sends[SP_MAX_SENDS];
	unsigned       nr_sends;
	unsigned       post_sends_calls;
	unsigned       last_batch_n;
	int            post_sends_rc;   /* returned (without recording) when nonzero */
	int            auto_send_ok;    /* queue a successful SEND completion per posted capsule */
	int            auto_respond;    /* also queue a response: the CID from the SQE bytes */
	uint16_t       auto_status;     /* raw status word for auto responses */
	uint64_t       auto_result;
	/* Called with each capsule's SQE bytes as it is posted, before the auto completions: a
	 * test plays the target's side of the data there (the keyed SGL names this process's
	 * memory) and may set auto_status for this capsule's answer. */
	void         (*on_capsule)(struct scripted_peer *p, const uint8_t sqe[64]);
	void          *user;

	/* post_recv */
	unsigned       recv_log[SP_MAX_RECVS];
	unsigned       nr_recv_log;
	unsigned       post_recv_calls;   /* post_recvs calls (each posts a chain) */
	unsigned       last_recv_batch_n; /* buffers in the last post_recvs call */
	uint8_t        recv_posted[SP_MAX_DEPTH];
	unsigned       recv_double_posts;
	unsigned       recv_bad_idx;
	int            post_recv_rc;

	/* poll */
	struct sp_pending pend[SP_MAX_WCS];
	unsigned       pend_head, pend_tail;
	unsigned       poll_calls;
	int            poll_batch;      /* >0: at most this many per poll */
	int            poll_rc;         /* returned when nonzero */
	unsigned       overflow;        /* the peer's own tables overflowed: a test bug */
};

static inline struct scripted_peer *sp_of(void *ctx)
{
	return (struct scripted_peer *)ctx;
}

/* Raw CQE bytes at NVMe spec offsets. */
static inline void sp_cqe_bytes(uint8_t b[16], uint16_t cid, uint16_t status, uint64_t result)
{
	memset(b, 0, 16);
	for (unsigned i = 0; i < 8; i++)
		b[i] = (uint8_t)(result >> (8 * i));
	b[12] = (uint8_t)cid;
	b[13] = (uint8_t)(cid >> 8);
	b[14] = (uint8_t)status;
	b[15] = (uint8_t)(status >> 8);
}

/* The raw CQE status word: phase bit 0, SC bits 8:1, SCT bits 11:9, DNR bit 15. */
static inline uint16_t sp_status(unsigned sct, unsigned sc, unsigned dnr)
{
	return (uint16_t)(((sc & 0xffu) << 1) | ((sct & 0x7u) << 9) | ((dnr & 1u) << 15));
}

static inline int sp_push(struct scripted_peer *p, const struct sp_pending *e)
{
	if (p->pend_tail - p->pend_head >= SP_MAX_WCS) {
		p->overflow++;
		return -1;
	}
	p->pend[p->pend_tail++ % SP_MAX_WCS] = *e;
	return 0;
}

/* Inject a SEND completion for slot (status 0: success). */
static inline void sp_send_done(struct scripted_peer *p, unsigned slot, int status)
{
	struct sp_pending e;

	memset(&e, 0, sizeof(e));
	e.wc.wr_id = NVMF_WRID_SEND | slot;
	e.wc.status = status;
	e.wc.is_recv = 0;
	sp_push(p, &e);
}

/* Lowest receive buffer that is posted right now; -1 if none. */
static inline int sp_posted_buf(const struct scripted_peer *p)
{
	unsigned depth = p->q ? p->q->depth : 0;

	for (unsigned i = 0; i < depth && i < SP_MAX_DEPTH; i++)
		if (p->recv_posted[i])
			return (int)i;
	return -1;
}

/* Inject a RECV completion on buffer idx carrying the 16 raw bytes `cqe` and reporting
 * byte_len received bytes (16 for a well-formed response capsule).  The bytes land in
 * q->rsps[idx] now; the buffer is no longer posted until the queue reposts it. */
static inline void sp_recv_raw_on(struct scripted_peer *p, unsigned idx, const uint8_t cqe[16],
				  uint32_t byte_len, int status)
{
	struct sp_pending e;

	memset(&e, 0, sizeof(e));
	e.wc.wr_id = NVMF_WRID_RECV | idx;
	e.wc.status = status;
	e.wc.is_recv = 1;
	e.wc.byte_len = byte_len;
	e.idx = idx;
	if (idx < SP_MAX_DEPTH) {
		if (!p->recv_posted[idx])
			p->overflow++; /* the test sent into a buffer that is not posted */
		p->recv_posted[idx] = 0;
	}
	if (cqe && p->q && idx < p->q->depth) {
		memcpy(&p->q->rsps[idx], cqe, 16);
		memcpy(e.cqe, cqe, 16);
		e.has_cqe = 1;
	}
	sp_push(p, &e);
}

/* Inject a response (on the lowest posted receive buffer); returns the buffer used or -1. */
static inline int sp_respond(struct scripted_peer *p, uint16_t cid, uint16_t status, uint64_t result)
{
	uint8_t b[16];
	int idx = sp_posted_buf(p);

	if (idx < 0) {
		p->overflow++;
		return -1;
	}
	sp_cqe_bytes(b, cid, status, result);
	sp_recv_raw_on(p, (unsigned)idx, b, 16, 0);
	return idx;
}

/* ---- the transport ops ---- */

static int sp_post_sends(void *ctx, const struct nvmf_send_desc *d, unsigned n)
{
	struct scripted_peer *p = sp_of(ctx);
	unsigned batch = p->post_sends_calls++;

	if (p->post_sends_rc)
		return p->post_sends_rc;
	p->last_batch_n = n;
	for (unsigned i = 0; i < n; i++) {
		struct sp_send *s;

		if (p->nr_sends >= SP_MAX_SENDS) {
			p->overflow++;
			break;
		}
		s = &p->sends[p->nr_sends++];
		s->batch = batch;
		s->pos = i;
		s->slot = d[i].slot;
		s->wr_id = d[i].wr_id;
		s->inline_addr = d[i].inline_addr;
		s->inline_len = d[i].inline_len;
		s->inline_lkey = d[i].inline_lkey;
		if (p->q && d[i].slot < p->q->depth)
			memcpy(s->sqe, &p->q->sqes[d[i].slot], 64);
		else
			memset(s->sqe, 0xee, 64);
		if (p->on_capsule)
			p->on_capsule(p, s->sqe);
		if (p->auto_send_ok)
			sp_send_done(p, d[i].slot, 0);
		if (p->auto_respond)
			sp_respond(p, (uint16_t)(s->sqe[2] | (s->sqe[3] << 8)), p->auto_status,
				   p->auto_result);
	}
	return 0;
}

static int sp_post_recvs(void *ctx, const unsigned *idxs, unsigned n)
{
	struct scripted_peer *p = sp_of(ctx);

	p->post_recv_calls++;
	if (p->post_recv_rc)
		return p->post_recv_rc;
	p->last_recv_batch_n = n;
	for (unsigned i = 0; i < n; i++) {
		unsigned idx = idxs[i];

		if (p->nr_recv_log < SP_MAX_RECVS)
			p->recv_log[p->nr_recv_log++] = idx;
		else
			p->overflow++;
		if (idx >= SP_MAX_DEPTH || (p->q && idx >= p->q->depth)) {
			p->recv_bad_idx++;
			continue;
		}
		if (p->recv_posted[idx])
			p->recv_double_posts++;
		p->recv_posted[idx] = 1;
	}
	return 0;
}

static int sp_poll(void *ctx, struct nvmf_wc *wc, int max)
{
	struct scripted_peer *p = sp_of(ctx);
	int n = 0;

	p->poll_calls++;
	if (p->poll_rc)
		return p->poll_rc;
	if (p->poll_batch > 0 && max > p->poll_batch)
		max = p->poll_batch;
	while (n < max && p->pend_head != p->pend_tail)
		wc[n++] = p->pend[p->pend_head++ % SP_MAX_WCS].wc;
	return n;
}

static const struct nvmf_xport_ops sp_ops = {
	.post_sends = sp_post_sends,
	.post_recvs = sp_post_recvs,
	.poll       = sp_poll,
};

/* Reset the peer and attach it to q. */
static inline void sp_attach(struct scripted_peer *p, struct nvmf_queue *q)
{
	memset(p, 0, sizeof(*p));
	p->q = q;
	nvmf_queue_attach(q, &sp_ops, p);
}

static inline unsigned sp_pending_count(const struct scripted_peer *p)
{
	return p->pend_tail - p->pend_head;
}

/* Recorded sends: the i-th one's CID, from its SQE bytes 2..3. */
static inline uint16_t sp_send_cid(const struct scripted_peer *p, unsigned i)
{
	return (uint16_t)(p->sends[i].sqe[2] | (p->sends[i].sqe[3] << 8));
}

/* How many times receive buffer idx was posted. */
static inline unsigned sp_recv_posts_of(const struct scripted_peer *p, unsigned idx)
{
	unsigned n = 0;

	for (unsigned i = 0; i < p->nr_recv_log; i++)
		n += p->recv_log[i] == idx;
	return n;
}

#endif
