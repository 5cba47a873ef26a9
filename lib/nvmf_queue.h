/* nvmf_queue.h - one NVMe/RDMA queue's protocol state: command slots and command IDs,
 * capsule and response buffers, and the rule that a command completes only after both its
 * SEND completion and its response capsule arrived.  The verbs are behind a seam
 * (struct nvmf_xport_ops) so unit tests can drive this logic with a scripted peer. */
#ifndef FIO_NVMEOF_QUEUE_H
#define FIO_NVMEOF_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "nvmf_spec.h"

/* Completion as the transport reports it. */
struct nvmf_wc {
	uint64_t wr_id;
	int      status;    /* 0: success; else the transport's status (ibv_wc_status) */
	int      is_recv;   /* a received capsule (else a SEND completion) */
	uint32_t byte_len;  /* received bytes, for receives */
};

/* One capsule to send: the slot's SQE, optionally followed by in-capsule data. */
struct nvmf_send_desc {
	uint64_t    wr_id;
	unsigned    slot;
	const void *inline_addr;
	uint32_t    inline_len;
	uint32_t    inline_lkey;
};

struct nvmf_xport_ops {
	/* Post n capsule sends as one chain; every one signaled.  Negative errno on failure. */
	int (*post_sends)(void *ctx, const struct nvmf_send_desc *d, unsigned n);
	/* (Re)post the n receive buffers rsps[idx[0..n-1]] as one chain.  Negative errno on
	 * failure. */
	int (*post_recvs)(void *ctx, const unsigned *idx, unsigned n);
	/* Reap up to max completions without blocking: count, or negative errno. */
	int (*poll)(void *ctx, struct nvmf_wc *wc, int max);
};

/* The wr_id tags the queue gives the transport. */
#define NVMF_WRID_RECV (1ULL << 62)
#define NVMF_WRID_SEND (1ULL << 61)

enum nvmf_req_state {
	NVMF_REQ_FREE = 0,
	NVMF_REQ_STAGED,    /* built, waiting for nvmf_queue_flush() */
	NVMF_REQ_INFLIGHT,  /* posted */
	NVMF_REQ_COMPLETE,  /* both halves arrived; owner must nvmf_queue_put() it */
};

#define NVMF_REQ_SEND_DONE 0x1
#define NVMF_REQ_RSP_DONE  0x2

struct nvmf_req {
	void           *ctx;          /* the owner's */
	uint16_t        slot;         /* its index in reqs, sqes, rsps (no pointer division) */
	uint16_t        cid;
	uint8_t         state;        /* enum nvmf_req_state */
	uint8_t         done;         /* NVMF_REQ_*_DONE */
	int             err;          /* negative errno: failed without a response (fail_all) */
	uint64_t        posted_ms;    /* nvmf_now_ms() when its capsule was posted */
	struct nvme_cqe cqe;          /* the response, as received */
};

struct nvmf_queue;
/* Called from nvmf_queue_process() for each command whose SEND and response both arrived.
 * The callback owns the request and must nvmf_queue_put() it (possibly later). */
typedef void (*nvmf_complete_fn)(struct nvmf_queue *q, struct nvmf_req *req, void *arg);

struct nvmf_queue {
	uint16_t               qid;
	unsigned               depth;        /* slots = entries of the submission queue */
	unsigned               max_inflight; /* depth - 1: a full NVMe queue holds depth-1 */
	unsigned               slot_bits;
	unsigned               slot_mask;    /* (1 << slot_bits) - 1: a CID's slot bits */
	struct nvme_sqe       *sqes;         /* capsules, one per slot */
	struct nvme_cqe       *rsps;         /* receive buffers, one per slot */
	struct nvme_dsm_range *dsm;          /* per-slot DSM range (remotely read by the target) */
	uint32_t               dsm_rkey;     /* dsm[]'s key, as the transport registered it */
	struct nvmf_req       *reqs;
	unsigned              *free_slots;
	unsigned               nr_free;
	unsigned               nr_staged;
	unsigned               nr_inflight;  /* staged + posted, not yet put */
	struct nvmf_send_desc *send_descs;   /* the staged capsules, built at stage time */
	struct nvmf_wc        *wcs;
	unsigned              *recv_idx;     /* receive buffers consumed, to be posted again */
	unsigned               nr_recv_idx;
	const struct nvmf_xport_ops *ops;
	void                  *xctx;
	/* The keys of the caller's data area as registered on this queue's RDMA device, when it
	 * has a registration per device (a job's paths on two NICs): I/O staged here takes them
	 * instead of its own lkey/rkey.  data_keys 0: the I/O's own. */
	int                    data_keys;
	uint32_t               data_lkey;
	uint32_t               data_rkey;
	nvmf_complete_fn       complete;     /* NULL: requests stay COMPLETE for the caller */
	void                  *complete_arg;
	int                    fatal;        /* negative errno once the queue is unusable */
	char                   fatal_msg[160];
	uint64_t               stat_unknown_cid;
};

int  nvmf_queue_init(struct nvmf_queue *q, uint16_t qid, unsigned depth);
void nvmf_queue_fini(struct nvmf_queue *q);
void nvmf_queue_attach(struct nvmf_queue *q, const struct nvmf_xport_ops *ops, void *xctx);
void nvmf_queue_set_complete(struct nvmf_queue *q, nvmf_complete_fn fn, void *arg);
void nvmf_queue_set_data_keys(struct nvmf_queue *q, uint32_t lkey, uint32_t rkey);
int  nvmf_queue_post_recvs(struct nvmf_queue *q);

/* Free slots that may be taken now (bounded by max_inflight). */
static inline unsigned nvmf_queue_available(const struct nvmf_queue *q)
{
	unsigned room = q->max_inflight - q->nr_inflight;

	if (q->fatal)
		return 0;
	return room < q->nr_free ? room : q->nr_free;
}
/* Take a slot: NULL when none is available.  The SQE is the caller's to build. */
struct nvmf_req *nvmf_queue_get(struct nvmf_queue *q, void *ctx);
/* nvmf_queue_get without the check, for a caller that saw nvmf_queue_available() cover every
 * slot it takes (the I/O path checks once per I/O, not once per command). */
static inline struct nvmf_req *nvmf_queue_take(struct nvmf_queue *q, void *ctx)
{
	unsigned slot = q->free_slots[--q->nr_free];
	struct nvmf_req *req = &q->reqs[slot];
	/* Generation in the bits above the slot, counted per slot (req->cid keeps the slot's
	 * previous CID): the slot's next CID always differs from its previous one, however many
	 * other commands ran in between, so a late response to the previous use is caught. */
	uint16_t cid = (uint16_t)((((unsigned)req->cid | q->slot_mask) + 1) | slot);

	/* the spec reserves CID 0xFFFF: skip that generation */
	req->cid = cid == 0xffff ? (uint16_t)slot : cid;
	req->ctx = ctx;
	req->state = NVMF_REQ_STAGED;
	req->done = 0;
	req->err = 0;
	q->nr_inflight++;
	return req;
}
static inline unsigned nvmf_req_slot(const struct nvmf_queue *q, const struct nvmf_req *r)
{
	(void)q;
	return r->slot;
}
static inline struct nvme_sqe *nvmf_req_sqe(struct nvmf_queue *q, const struct nvmf_req *r)
{
	return &q->sqes[nvmf_req_slot(q, r)];
}
/* Stamp the CID into the built SQE and queue it for the next flush: its send descriptor is
 * built now (in-capsule data: inline_len bytes at inline_addr, key inline_lkey). */
static inline void nvmf_queue_stage(struct nvmf_queue *q, struct nvmf_req *req,
				    const void *inline_addr, uint32_t inline_len,
				    uint32_t inline_lkey)
{
	unsigned slot = nvmf_req_slot(q, req);
	struct nvmf_send_desc *d = &q->send_descs[q->nr_staged++];

	nvme_sqe_set_cid(&q->sqes[slot], req->cid);
	d->wr_id = NVMF_WRID_SEND | slot;
	d->slot = slot;
	d->inline_addr = inline_addr;
	d->inline_len = inline_len;
	d->inline_lkey = inline_lkey;
}
/* Drop a staged request's capsule from the next flush (nvmf_queue_put's slow path). */
void nvmf_queue_unstage(struct nvmf_queue *q, struct nvmf_req *req);
/* Give back a slot (after completion, or a staged request that will not be sent). */
static inline void nvmf_queue_put(struct nvmf_queue *q, struct nvmf_req *req)
{
	if (req->state == NVMF_REQ_FREE)
		return;
	if (req->state == NVMF_REQ_STAGED)
		nvmf_queue_unstage(q, req);
	req->state = NVMF_REQ_FREE;
	req->ctx = NULL;
	q->free_slots[q->nr_free++] = nvmf_req_slot(q, req);
	q->nr_inflight--;
}
/* Post everything staged in one chain: number posted or negative errno. */
int  nvmf_queue_flush(struct nvmf_queue *q);
/* Reap completions: number of commands completed, or negative errno (queue is fatal).  The
 * receive buffers of the responses reaped are posted again together, in one post_recvs
 * call after the batch (and, should a completion callback flush, before any capsule goes out:
 * nvmf_queue_flush posts them first). */
int  nvmf_queue_process(struct nvmf_queue *q);
/* Submit one request and wait (polling) for it, up to timeout_ms; the CQE is copied out and
 * the slot returned.  -ETIMEDOUT marks the queue fatal: the target may still answer. */
int  nvmf_queue_exec(struct nvmf_queue *q, struct nvmf_req *req, unsigned timeout_ms,
		     struct nvme_cqe *cqe_out);
/* The same, sleeping in wait(wait_ctx, ms) (which must reap this queue and return what it
 * completed, or a negative errno) instead of polling: for a thread that waits a long time for
 * few answers, such as the keep-alive thread. */
typedef int (*nvmf_exec_wait_fn)(void *ctx, int timeout_ms);
int  nvmf_queue_exec_wait(struct nvmf_queue *q, struct nvmf_req *req, unsigned timeout_ms,
			  struct nvme_cqe *cqe_out, nvmf_exec_wait_fn wait, void *wait_ctx);

/* Give the queue up (the caller stops waiting for the target): it becomes fatal with err
 * and msg, and every later call reports that.  A queue already fatal keeps its first error. */
int  nvmf_queue_abandon(struct nvmf_queue *q, int err, const char *msg);

/* The oldest posted command still waiting for its completion (NULL: none), for timeouts. */
struct nvmf_req *nvmf_queue_oldest(const struct nvmf_queue *q);

/* Give the queue up and hand back every command it holds (staged or posted): each goes to
 * the completion callback with req->err = err, as if it had completed.  Only once nothing can
 * reach the commands' buffers any more (the transport is dead or shut off): the target must
 * not write into a buffer the caller reuses.  The queue is fatal afterwards (err, msg). */
void nvmf_queue_fail_all(struct nvmf_queue *q, int err, const char *msg);


uint64_t nvmf_now_ms(void);
uint64_t nvmf_now_us(void);   /* CLOCK_MONOTONIC, as nvmf_now_ms */

#endif
