/* nvmf_io.c - user I/O to NVMe commands and back. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nvmf_io.h"
#include "nvmf_mpath.h"

#define NVMF_DSM_MAX_NLB 0xffffffffULL  /* a DSM range counts blocks in 32 bits */
#define NVMF_RW_MAX_NLB  0x10000ULL     /* NLB is 16 bits, 0's based */

static uint64_t nvmf_io_blocks_per_cmd(const struct nvmf_io *io, const struct nvmf_io_limits *lim)
{
	uint64_t b;

	switch (io->op) {
	case NVMF_IO_READ:
	case NVMF_IO_WRITE: {
		/* One keyed SGL describes at most 2^24 - 1 bytes, whatever max_xfer says. */
		uint32_t bytes = lim->max_xfer < NVME_SGL_KEYED_MAX_LEN ? lim->max_xfer
									 : NVME_SGL_KEYED_MAX_LEN;

		b = (uint64_t)bytes >> io->lba_shift;
		return b > NVMF_RW_MAX_NLB ? NVMF_RW_MAX_NLB : b;
	}
	case NVMF_IO_TRIM:
		return NVMF_DSM_MAX_NLB;
	default:
		return 0;
	}
}

/* Commands for nlb blocks at per (> 0) blocks each.  No division on the I/O path: an I/O that
 * fits one command is 1, and the per-command limit is a power of two whenever max_xfer is
 * (MDTS is); only a limit that is not one divides. */
static unsigned nvmf_io_div_up(uint64_t nlb, uint64_t per)
{
	if (nlb <= per)
		return nlb ? 1 : 0;
	if (!(per & (per - 1)))
		return (unsigned)((nlb + per - 1) >> __builtin_ctzll(per));
	return (unsigned)((nlb + per - 1) / per);
}

unsigned nvmf_io_nr_cmds(const struct nvmf_io *io, const struct nvmf_io_limits *lim)
{
	uint64_t per;

	if (io->op == NVMF_IO_FLUSH)
		return 1;
	per = nvmf_io_blocks_per_cmd(io, lim);
	if (!per)
		return 0;
	return nvmf_io_div_up(io->nlb, per);
}

unsigned nvmf_io_cmds_for_bytes(uint64_t bytes, const struct nvmf_io_limits *lim)
{
	if (!lim->max_xfer || bytes <= lim->max_xfer)
		return 1;
	return (unsigned)((bytes + lim->max_xfer - 1) / lim->max_xfer);
}

/* A command builder refused a part of io: its SQE is zeroed (opcode 0 is Flush) or incomplete,
 * so nothing of io may be posted.  Give back req (taken, not staged) and the `staged` parts
 * staged before it, newest first: the free list and the staged capsules are as before io. */
static __attribute__((noinline, cold)) int
nvmf_io_unbuild(struct nvmf_queue *q, struct nvmf_io *io, struct nvmf_req *req, unsigned staged,
		int rc)
{
	nvmf_queue_put(q, req);
	while (staged--)
		nvmf_queue_put(q, &q->reqs[q->send_descs[q->nr_staged - 1].slot]);
	io->parts_left = 0;
	return rc;
}

/* Build and stage the n commands of io, per blocks each; the caller checked that n slots are
 * available.  All or nothing: a builder's refusal (a split the clamps above should never give)
 * stages none of them and is returned.  Inlined into both callers: nvmf_io_submit is the
 * per-I/O path. */
static inline __attribute__((always_inline)) int
nvmf_io_build(struct nvmf_queue *q, const struct nvmf_io_limits *lim, struct nvmf_io *io,
	      unsigned n, uint64_t per)
{
	uint64_t done_blocks = 0;
	struct nvmf_req *req;
	unsigned i;
	int rc;

	io->parts_left = n;
	io->q = q;
	io->status = 0;
	io->status_opc = 0;
	io->status_dnr = 0;
	io->err = 0;
	if (q->data_keys) {
		io->lkey = q->data_lkey;
		io->rkey = q->data_rkey;
	}
	for (i = 0; i < n; i++) {
		req = nvmf_queue_take(q, io);  /* the caller checked n are free */
		struct nvme_sqe *c = nvmf_req_sqe(q, req);
		uint64_t left = io->nlb - done_blocks;
		uint64_t nlb = left < per ? left : per;
		uint64_t off = done_blocks << io->lba_shift;
		uint32_t len = (uint32_t)(nlb << io->lba_shift);
		/* Only reads and writes have a buffer (flush/trim may pass NULL: no arithmetic on it). */
		uint8_t *data = io->op == NVMF_IO_READ || io->op == NVMF_IO_WRITE ?
				(uint8_t *)io->buf + off : NULL;
		struct nvme_dsm_range *r;

		switch (io->op) {
		case NVMF_IO_FLUSH:
			nvme_cmd_flush(c, io->nsid);  /* the builder sets the no-data descriptor */
			nvmf_queue_stage(q, req, NULL, 0, 0);
			break;
		case NVMF_IO_TRIM:
			r = &q->dsm[nvmf_req_slot(q, req)];
			nvme_dsm_range_set(r, io->slba + done_blocks, (uint32_t)nlb);
			rc = nvme_cmd_dsm_deallocate(c, io->nsid, 1);
			if (!rc)
				rc = nvme_sqe_set_sgl_keyed(c, (uint64_t)(uintptr_t)r, sizeof(*r),
							    q->dsm_rkey);
			if (__builtin_expect(rc, 0))
				goto refused;
			nvmf_queue_stage(q, req, NULL, 0, 0);
			break;
		case NVMF_IO_WRITE:
			if (len <= lim->inline_max) {
				/* In-capsule: a second SGE points into the registered buffer, no copy. */
				rc = nvme_cmd_rw_sgl(c, NVME_CMD_WRITE, io->nsid, io->slba + done_blocks,
						     (uint32_t)nlb, 0, 0, len, 0);
				if (__builtin_expect(rc, 0))
					goto refused;
				nvmf_queue_stage(q, req, data, len, io->lkey);
			} else {
				rc = nvme_cmd_rw_sgl(c, NVME_CMD_WRITE, io->nsid, io->slba + done_blocks,
						     (uint32_t)nlb, 1, (uint64_t)(uintptr_t)data, len,
						     io->rkey);
				if (__builtin_expect(rc, 0))
					goto refused;
				nvmf_queue_stage(q, req, NULL, 0, 0);
			}
			break;
		case NVMF_IO_READ:
			rc = nvme_cmd_rw_sgl(c, NVME_CMD_READ, io->nsid, io->slba + done_blocks,
					     (uint32_t)nlb, 1, (uint64_t)(uintptr_t)data, len, io->rkey);
			if (__builtin_expect(rc, 0))
				goto refused;
			nvmf_queue_stage(q, req, NULL, 0, 0);
			break;
		}
		done_blocks += nlb;
	}
	return 0;
refused:
	return nvmf_io_unbuild(q, io, req, i, rc);
}

int nvmf_io_stage_split(struct nvmf_queue *q, const struct nvmf_io_limits *lim, struct nvmf_io *io,
			unsigned n, uint64_t per)
{
	if (!n || io->op > NVMF_IO_TRIM)
		return -EINVAL;
	/* More commands than the queue ever holds (a controller back from a reconnect with a
	 * smaller queue): waiting for free slots would wait for ever. */
	if (n > q->max_inflight)
		return -E2BIG;
	if (nvmf_queue_available(q) < n)
		return q->fatal ? q->fatal : -EBUSY;
	return nvmf_io_build(q, lim, io, n, per);
}

int nvmf_io_stage(struct nvmf_queue *q, const struct nvmf_io_limits *lim, struct nvmf_io *io)
{
	return nvmf_io_stage_split(q, lim, io, nvmf_io_nr_cmds(io, lim),
				   nvmf_io_blocks_per_cmd(io, lim));
}

int nvmf_io_submit(struct nvmf_queue *q, const struct nvmf_io_limits *lim,
		   struct nvmf_io_backlog *bl, struct nvmf_io *io)
{
	uint64_t per = nvmf_io_blocks_per_cmd(io, lim);
	unsigned n = io->op == NVMF_IO_FLUSH ? 1 : per ? nvmf_io_div_up(io->nlb, per) : 0;

	if (!n || io->op > NVMF_IO_TRIM)
		return -EINVAL;
	if (n > q->max_inflight)
		return -E2BIG;
	if (q->fatal)
		return q->fatal;
	io->lim = lim;
	io->next = NULL;
	/* nvmf_io_stage without counting the commands again. */
	if (!bl->head && nvmf_queue_available(q) >= n) {
		int rc = nvmf_io_build(q, lim, io, n, per);

		return rc ? rc : 1;
	}
	nvmf_io_backlog_add(bl, lim, io, 0);
	return 0;
}

int nvmf_io_post(struct nvmf_queue *const *qs, unsigned nq, uint64_t *cmds, struct nvmf_io **ios,
		 unsigned nr_ios, unsigned *nr_posted)
{
	unsigned posted = 0;
	int first = 0;

	for (unsigned i = 0; i < nq; i++) {
		int rc;

		if (!qs[i]->nr_staged)
			continue;
		if ((rc = nvmf_queue_flush(qs[i])) < 0) {
			if (!first)
				first = rc;
			continue;
		}
		cmds[i] += (unsigned)rc;
	}
	/* Stable partition: a queue that failed is fatal, and nothing staged on a live queue is
	 * left after its flush. */
	if (!first) {
		*nr_posted = nr_ios;
		return 0;
	}
	for (unsigned i = 0; i < nr_ios; i++) {
		struct nvmf_io *io = ios[i];

		if (io->q->fatal)
			continue;
		memmove(&ios[posted + 1], &ios[posted], (i - posted) * sizeof(ios[0]));
		ios[posted++] = io;
	}
	*nr_posted = posted;
	return first;
}

int nvmf_io_backlog_pump_group(struct nvmf_queue *q, struct nvmf_io_backlog *bl, int group,
			       void (*staged)(struct nvmf_io *io, void *arg), void *arg)
{
	struct nvmf_io *prev = NULL, *io = bl->head;
	int n = 0;

	while (io) {
		struct nvmf_io *next = io->next;
		int rc;

		if (group >= 0 && io->group != group) {
			prev = io;
			io = next;
			continue;
		}
		rc = nvmf_io_stage(q, io->lim, io);
		if (rc == -EBUSY)
			break;
		if (rc)
			return rc;
		if (prev)
			prev->next = next;
		else
			bl->head = next;
		if (bl->tail == io)
			bl->tail = prev;
		bl->nr--;
		io->next = NULL;
		staged(io, arg);
		n++;
		io = next;
	}
	return n;
}

int nvmf_io_backlog_pump(struct nvmf_queue *q, struct nvmf_io_backlog *bl,
			 void (*staged)(struct nvmf_io *io, void *arg), void *arg)
{
	return nvmf_io_backlog_pump_group(q, bl, -1, staged, arg);
}

int nvmf_io_may_fail_over(const struct nvmf_io *io)
{
	return nvmf_mp_status_is_path(io->status) && !io->status_dnr;
}

void nvmf_io_complete_req(struct nvmf_queue *q, struct nvmf_req *req, void *completer)
{
	const struct nvmf_io_completer *cpl = completer;
	struct nvmf_io *io = req->ctx;
	uint16_t code = nvme_status_code(le16toh(req->cqe.status));

	if (req->err && !io->err)
		io->err = req->err;
	if (code && !io->status) {
		io->status = code;
		io->status_opc = nvmf_req_sqe(q, req)->opcode;
		io->status_dnr = (uint8_t)nvme_status_dnr(le16toh(req->cqe.status));
	}
	nvmf_queue_put(q, req);
	if (--io->parts_left == 0)
		cpl->done(io, cpl->arg);
}

void nvmf_io_backlog_fail(struct nvmf_io_backlog *bl, int err, const struct nvmf_io_completer *cpl)
{
	while (bl->head) {
		struct nvmf_io *io = bl->head;

		bl->head = io->next;
		io->next = NULL;
		io->err = err;
		io->parts_left = 0;
		cpl->done(io, cpl->arg);
	}
	bl->tail = NULL;
	bl->nr = 0;
}

void nvmf_io_backlog_add(struct nvmf_io_backlog *bl, const struct nvmf_io_limits *lim,
			 struct nvmf_io *io, int at_head)
{
	io->lim = lim;
	if (at_head) {
		io->next = bl->head;
		bl->head = io;
		if (!bl->tail)
			bl->tail = io;
	} else {
		io->next = NULL;
		if (bl->tail)
			bl->tail->next = io;
		else
			bl->head = io;
		bl->tail = io;
	}
	bl->nr++;
}

int nvmf_io_requeue_lost(struct nvmf_queue *const *qs, unsigned nq, struct nvmf_io_backlog *bl,
			 int resubmit, int err, const struct nvmf_io_completer *cpl,
			 struct nvmf_io_lost *out)
{
	struct nvmf_io **ios;
	unsigned slots = 0, nios = 0, nposted = 0;

	memset(out, 0, sizeof(*out));
	for (unsigned qi = 0; qi < nq; qi++)
		slots += qs[qi]->depth;
	ios = calloc(slots ? slots : 1, sizeof(*ios));
	if (!ios)
		return -ENOMEM;
	/* Each I/O once (a split one has several commands, all on one queue): first those with a
	 * command posted, then those only staged, each in slot order. */
	for (int want = NVMF_REQ_INFLIGHT; ; want = NVMF_REQ_STAGED) {
		for (unsigned qi = 0; qi < nq; qi++) {
			struct nvmf_queue *q = qs[qi];

			for (unsigned i = 0; i < q->depth; i++) {
				struct nvmf_req *r = &q->reqs[i];
				unsigned k;

				if (r->state != want)
					continue;
				for (k = 0; k < nios && ios[k] != r->ctx; k++)
					;
				if (k == nios)
					ios[nios++] = r->ctx;
			}
		}
		if (want == NVMF_REQ_STAGED)
			break;
		nposted = nios;
	}
	/* The slots go back without completions: nothing may complete these I/Os again, also
	 * not a teardown that hands back whatever a queue still holds. */
	for (unsigned qi = 0; qi < nq; qi++) {
		struct nvmf_queue *q = qs[qi];

		for (unsigned i = 0; i < q->depth; i++)
			if (q->reqs[i].state == NVMF_REQ_STAGED ||
			    q->reqs[i].state == NVMF_REQ_INFLIGHT)
				nvmf_queue_put(q, &q->reqs[i]);
		q->nr_staged = 0;
	}
	/* Posted: the target may have run them; resubmitted while under the count asked for,
	 * else failed. */
	for (unsigned i = 0; i < nposted; i++) {
		if (ios[i]->resubmits < resubmit)
			continue;
		ios[i]->err = err;
		ios[i]->parts_left = 0;
		cpl->done(ios[i], cpl->arg);
		ios[i] = NULL;
		out->failed++;
	}
	/* Back to the head of the backlog, in the order collected, before anything waiting. */
	for (unsigned i = nios; i-- > 0;) {
		struct nvmf_io *io = ios[i];

		if (!io)
			continue;
		if (i < nposted) {
			io->resubmits++;
			out->resubmitted++;
		} else {
			out->requeued++;
		}
		io->status = 0;
		io->status_dnr = 0;
		io->err = 0;
		nvmf_io_backlog_add(bl, io->lim, io, 1);
	}
	free(ios);
	return 0;
}
