/* nvmf_queue.c - command slots, command IDs and completion matching for one queue. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nvmf_err.h"
#include "nvmf_queue.h"

uint64_t nvmf_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* The same clock as nvmf_now_us, read straight into ms (the flush stamps every posted
 * command with it: one scaling, not two). */
uint64_t nvmf_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The queue becomes unusable with err and the reason, unless it already is: the first error
 * and its reason stay.  Returns the queue's error. */
#define nvmf_queue_fail(q, err, ...)                                                        \
	((q)->fatal ? (q)->fatal                                                            \
		    : ((q)->fatal = nvmf_errf((q)->fatal_msg, sizeof((q)->fatal_msg), (err), \
					      __VA_ARGS__)))

int nvmf_queue_abandon(struct nvmf_queue *q, int err, const char *msg)
{
	return nvmf_queue_fail(q, err, "%s", msg);
}

static void *nvmf_zalloc_aligned(size_t size)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, size ? size : 1))
		return NULL;
	memset(p, 0, size);
	return p;
}

int nvmf_queue_init(struct nvmf_queue *q, uint16_t qid, unsigned depth)
{
	memset(q, 0, sizeof(*q));
	/* CIDs carry the slot in the low bits: 2..4096 slots leaves generation bits. */
	if (depth < 2 || depth > 4096)
		return -EINVAL;
	q->qid = qid;
	q->depth = depth;
	q->max_inflight = depth - 1;
	while ((1u << q->slot_bits) < depth)
		q->slot_bits++;
	q->slot_mask = (1u << q->slot_bits) - 1;
	q->sqes = nvmf_zalloc_aligned(depth * sizeof(*q->sqes));
	q->rsps = nvmf_zalloc_aligned(depth * sizeof(*q->rsps));
	q->dsm = nvmf_zalloc_aligned(depth * sizeof(*q->dsm));
	q->reqs = calloc(depth, sizeof(*q->reqs));
	q->free_slots = calloc(depth, sizeof(*q->free_slots));
	q->send_descs = calloc(depth, sizeof(*q->send_descs));
	q->wcs = calloc(2 * depth, sizeof(*q->wcs));
	q->recv_idx = calloc(depth, sizeof(*q->recv_idx));
	if (!q->sqes || !q->rsps || !q->dsm || !q->reqs || !q->free_slots ||
	    !q->send_descs || !q->wcs || !q->recv_idx) {
		nvmf_queue_fini(q);
		return -ENOMEM;
	}
	/* Hand out low slots first (stack): keeps the hot capsules in few cache lines. */
	for (unsigned i = 0; i < depth; i++) {
		q->free_slots[i] = depth - 1 - i;
		q->reqs[i].slot = (uint16_t)i;
	}
	q->nr_free = depth;
	return 0;
}

void nvmf_queue_fini(struct nvmf_queue *q)
{
	if (!q)
		return;
	free(q->sqes);
	free(q->rsps);
	free(q->dsm);
	free(q->reqs);
	free(q->free_slots);
	free(q->send_descs);
	free(q->wcs);
	free(q->recv_idx);
	q->sqes = NULL;
	q->rsps = NULL;
	q->dsm = NULL;
	q->reqs = NULL;
	q->free_slots = NULL;
	q->send_descs = NULL;
	q->wcs = NULL;
	q->recv_idx = NULL;
}

void nvmf_queue_attach(struct nvmf_queue *q, const struct nvmf_xport_ops *ops, void *xctx)
{
	q->ops = ops;
	q->xctx = xctx;
}

void nvmf_queue_set_complete(struct nvmf_queue *q, nvmf_complete_fn fn, void *arg)
{
	q->complete = fn;
	q->complete_arg = arg;
}

void nvmf_queue_set_data_keys(struct nvmf_queue *q, uint32_t lkey, uint32_t rkey)
{
	q->data_keys = 1;
	q->data_lkey = lkey;
	q->data_rkey = rkey;
}

int nvmf_queue_post_recvs(struct nvmf_queue *q)
{
	int rc;

	for (unsigned i = 0; i < q->depth; i++)
		q->recv_idx[i] = i;
	q->nr_recv_idx = 0;
	rc = q->ops->post_recvs(q->xctx, q->recv_idx, q->depth);
	if (rc)
		return nvmf_queue_fail(q, rc, "posting %u receive buffers failed: %s", q->depth,
				       strerror(-rc));
	return 0;
}

static __attribute__((noinline, cold)) int nvmf_queue_repost_failed(struct nvmf_queue *q, int rc,
								     unsigned n)
{
	return nvmf_queue_fail(q, rc, "queue %u: reposting %u receive buffer(s) failed: %s", q->qid,
			       n, strerror(-rc));
}

/* Post again the receive buffers whose responses were copied out, as one chain. */
static inline int nvmf_queue_repost_recvs(struct nvmf_queue *q)
{
	unsigned n = q->nr_recv_idx;
	int rc;

	q->nr_recv_idx = 0;
	rc = q->ops->post_recvs(q->xctx, q->recv_idx, n);
	return rc ? nvmf_queue_repost_failed(q, rc, n) : 0;
}

struct nvmf_req *nvmf_queue_get(struct nvmf_queue *q, void *ctx)
{
	if (!nvmf_queue_available(q))
		return NULL;
	return nvmf_queue_take(q, ctx);
}

void nvmf_queue_unstage(struct nvmf_queue *q, struct nvmf_req *req)
{
	unsigned slot = nvmf_req_slot(q, req);

	for (unsigned i = 0; i < q->nr_staged; i++) {
		if (q->send_descs[i].slot == slot) {
			memmove(&q->send_descs[i], &q->send_descs[i + 1],
				(q->nr_staged - i - 1) * sizeof(q->send_descs[0]));
			q->nr_staged--;
			break;
		}
	}
}

int nvmf_queue_flush(struct nvmf_queue *q)
{
	unsigned n = q->nr_staged;
	uint64_t now;
	int rc;

	if (q->fatal)
		return q->fatal;
	if (!n)
		return 0;
	/* A completion callback that flushes: no capsule before the free receive buffers. */
	if (q->nr_recv_idx && (rc = nvmf_queue_repost_recvs(q)))
		return rc;
	now = nvmf_now_ms();
	for (unsigned i = 0; i < n; i++) {
		struct nvmf_req *req = &q->reqs[q->send_descs[i].slot];

		req->posted_ms = now;
		req->state = NVMF_REQ_INFLIGHT;
	}
	q->nr_staged = 0;
	rc = q->ops->post_sends(q->xctx, q->send_descs, n);
	if (rc)
		return nvmf_queue_fail(q, rc, "posting %u command capsule(s) on queue %u failed: %s",
				       n, q->qid, strerror(-rc));
	return (int)n;
}

static int nvmf_queue_finish_half(struct nvmf_queue *q, struct nvmf_req *req, uint8_t half)
{
	req->done |= half;
	if (req->done != (NVMF_REQ_SEND_DONE | NVMF_REQ_RSP_DONE))
		return 0;
	req->state = NVMF_REQ_COMPLETE;
	if (q->complete)
		q->complete(q, req, q->complete_arg);
	return 1;
}

static int nvmf_queue_on_recv(struct nvmf_queue *q, const struct nvmf_wc *wc, int *completed)
{
	unsigned idx = (unsigned)(wc->wr_id & ~NVMF_WRID_RECV);
	const struct nvme_cqe *rsp;
	struct nvmf_req *req;
	unsigned slot;
	uint16_t cid;

	if (idx >= q->depth)
		return nvmf_queue_fail(q, -EPROTO, "queue %u: receive completion for unknown buffer %u",
				       q->qid, idx);
	if (wc->status)
		return nvmf_queue_fail(q, -EIO, "queue %u: receive failed (transport status %d)",
				       q->qid, wc->status);
	if (wc->byte_len < sizeof(struct nvme_cqe))
		return nvmf_queue_fail(q, -EPROTO,
				       "queue %u: response capsule of %u bytes (expected %zu)",
				       q->qid, wc->byte_len, sizeof(struct nvme_cqe));
	/* The buffer stays ours until it is posted again (after the batch): read it in place. */
	rsp = &q->rsps[idx];
	cid = le16toh(rsp->cid);
	slot = cid & q->slot_mask;
	req = slot < q->depth ? &q->reqs[slot] : NULL;
	if (!req || req->cid != cid || req->state != NVMF_REQ_INFLIGHT ||
	    (req->done & NVMF_REQ_RSP_DONE)) {
		q->stat_unknown_cid++;
		return nvmf_queue_fail(q, -EPROTO,
				       "queue %u: response for unknown command ID 0x%04x (status 0x%04x)",
				       q->qid, cid, le16toh(rsp->status));
	}
	/* The host never asks to disable SQ flow control (Connect CATTR bit 2 is 0), so SQHD
	 * must be an entry of this queue: anything else is a target that does not know the
	 * queue it answers on. */
	if (le16toh(rsp->sqhd) >= q->depth)
		return nvmf_queue_fail(q, -EPROTO,
				       "queue %u: response for command ID 0x%04x reports SQ head %u (the "
				       "queue has %u entries)", q->qid, cid, le16toh(rsp->sqhd), q->depth);
	/* Once copied, the buffer is free again: it is posted again after the batch.  Every one
	 * listed answered a distinct posted command, so they fit (the check is for a bug). */
	if (q->nr_recv_idx >= q->depth)
		return nvmf_queue_fail(q, -EPROTO, "queue %u: more responses than receive buffers",
				       q->qid);
	req->cqe = *rsp;
	q->recv_idx[q->nr_recv_idx++] = idx;
	*completed += nvmf_queue_finish_half(q, req, NVMF_REQ_RSP_DONE);
	return 0;
}

static int nvmf_queue_on_send(struct nvmf_queue *q, const struct nvmf_wc *wc, int *completed)
{
	unsigned slot = (unsigned)(wc->wr_id & ~NVMF_WRID_SEND);
	struct nvmf_req *req;

	if (!(wc->wr_id & NVMF_WRID_SEND) || slot >= q->depth)
		return nvmf_queue_fail(q, -EPROTO, "queue %u: send completion with unknown id 0x%llx",
				       q->qid, (unsigned long long)wc->wr_id);
	if (wc->status)
		return nvmf_queue_fail(q, -EIO, "queue %u: command capsule send failed (transport status %d)",
				       q->qid, wc->status);
	req = &q->reqs[slot];
	if (req->state != NVMF_REQ_INFLIGHT || (req->done & NVMF_REQ_SEND_DONE))
		return nvmf_queue_fail(q, -EPROTO, "queue %u: unexpected send completion for slot %u",
				       q->qid, slot);
	*completed += nvmf_queue_finish_half(q, req, NVMF_REQ_SEND_DONE);
	return 0;
}

int nvmf_queue_process(struct nvmf_queue *q)
{
	int completed = 0;
	int n;

	if (q->fatal)
		return q->fatal;
	n = q->ops->poll(q->xctx, q->wcs, (int)(2 * q->depth));
	if (n < 0)
		return nvmf_queue_fail(q, n, "queue %u: polling the completion queue failed: %s",
				       q->qid, strerror(-n));
	for (int i = 0; i < n; i++) {
		const struct nvmf_wc *wc = &q->wcs[i];
		int rc = wc->is_recv ? nvmf_queue_on_recv(q, wc, &completed)
				     : nvmf_queue_on_send(q, wc, &completed);
		if (rc)
			return rc;
	}
	if (q->nr_recv_idx && (n = nvmf_queue_repost_recvs(q)))
		return n;
	return completed;
}

int nvmf_queue_exec(struct nvmf_queue *q, struct nvmf_req *req, unsigned timeout_ms,
		    struct nvme_cqe *cqe_out)
{
	return nvmf_queue_exec_wait(q, req, timeout_ms, cqe_out, NULL, NULL);
}

int nvmf_queue_exec_wait(struct nvmf_queue *q, struct nvmf_req *req, unsigned timeout_ms,
			 struct nvme_cqe *cqe_out, nvmf_exec_wait_fn wait, void *wait_ctx)
{
	uint64_t deadline = nvmf_now_ms() + timeout_ms;
	nvmf_complete_fn saved = q->complete;
	unsigned spins = 0;
	int rc;

	/* Synchronous use: leave the request COMPLETE for us instead of calling back. */
	q->complete = NULL;
	nvmf_queue_stage(q, req, NULL, 0, 0);
	rc = nvmf_queue_flush(q);
	while (rc >= 0 && req->state != NVMF_REQ_COMPLETE) {
		uint64_t now = nvmf_now_ms();

		/* wait() reaps this queue itself, sleeping until something arrives */
		if (wait)
			rc = wait(wait_ctx, now < deadline ? (int)(deadline - now) + 1 : 1);
		else
			rc = nvmf_queue_process(q);
		if (rc < 0 || req->state == NVMF_REQ_COMPLETE)
			break;
		if (nvmf_now_ms() > deadline) {
			/* Answered but the SEND never completed: say so, it is not a lost response. */
			rc = nvmf_queue_fail(q, -ETIMEDOUT,
					     (req->done & NVMF_REQ_RSP_DONE) ?
					     "queue %u: %s command answered, but its capsule's send "
					     "did not complete within %u ms" :
					     "queue %u: no response to %s command within %u ms",
					     q->qid, nvme_opcode_name(nvmf_req_sqe(q, req)->opcode,
								      q->qid == 0),
					     timeout_ms);
			break;
		}
		if (!wait && ++spins > 1000) {
			struct timespec ts = { 0, 20000 };

			nanosleep(&ts, NULL);
		}
	}
	q->complete = saved;
	if (rc < 0)
		return rc;
	if (cqe_out)
		*cqe_out = req->cqe;
	nvmf_queue_put(q, req);
	return 0;
}

struct nvmf_req *nvmf_queue_oldest(const struct nvmf_queue *q)
{
	struct nvmf_req *oldest = NULL;

	if (!q->nr_inflight)
		return NULL;
	for (unsigned i = 0; i < q->depth; i++) {
		struct nvmf_req *r = &q->reqs[i];

		if (r->state == NVMF_REQ_INFLIGHT && (!oldest || r->posted_ms < oldest->posted_ms))
			oldest = r;
	}
	return oldest;
}

void nvmf_queue_fail_all(struct nvmf_queue *q, int err, const char *msg)
{
	nvmf_queue_fail(q, err, "%s", msg);
	q->nr_staged = 0;    /* every staged command is handed back below, never posted */
	for (unsigned i = 0; i < q->depth; i++) {
		struct nvmf_req *r = &q->reqs[i];

		/* COMPLETE ones belong to their owner already (synchronous use). */
		if (r->state != NVMF_REQ_STAGED && r->state != NVMF_REQ_INFLIGHT)
			continue;
		r->err = err;
		memset(&r->cqe, 0, sizeof(r->cqe));
		r->state = NVMF_REQ_COMPLETE;
		if (q->complete)
			q->complete(q, r, q->complete_arg);
		else
			nvmf_queue_put(q, r);
	}
}
