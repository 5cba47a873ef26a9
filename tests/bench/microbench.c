/* microbench.c - the engine's own cost per I/O, apart from the fabric (`make microbench`).
 *
 * Drives lib/ the way engine/fio_nvmeof.c does at a fixed queue depth: nvmf_io_submit per I/O
 * (queue), then the backlog pump and nvmf_queue_flush (commit), then nvmf_queue_process with
 * nvmf_io_complete_req as the completer (getevents); every completed I/O is submitted again,
 * as fio refills its depth.  Behind the transport seam an in-process peer answers each capsule
 * at once: a SEND completion and a success response whose CID is read from the posted SQE
 * bytes.  The peer is a few ring operations per capsule so that lib/ dominates what is timed.
 *
 *   microbench                 timing table: ns per I/O, wall clock over -n I/Os per case
 *   microbench -c CASE         one case only (the callgrind runs use this)
 *   -n COUNT, -w WARMUP        measured and warm-up I/Os per case
 *
 * Under callgrind, --zero-before=mb_measured --dump-after=mb_measured isolates the measured
 * loop from the warm-up and teardown; tests/bench/microbench.sh turns that into instructions
 * per I/O in lib/. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nvmf_io.h"
#include "nvmf_queue.h"
#include "nvmf_spec.h"

#define KiB 1024u
#define MiB (1024u * 1024u)

/* ---- the peer: target and verbs in one, answering every capsule immediately ---- */

struct mb_peer {
	struct nvmf_queue *q;
	unsigned          *recvs;      /* posted receive buffers, FIFO */
	unsigned           r_head, r_tail, r_mask;
	struct nvmf_wc    *wcs;        /* completions not yet polled, FIFO */
	unsigned           w_head, w_tail, w_mask;
	uint16_t           sqhd;
	int                broken;     /* the peer could not answer: a bug, reported */
};

static unsigned pow2_at_least(unsigned n)
{
	unsigned p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

static int mb_post_sends(void *ctx, const struct nvmf_send_desc *d, unsigned n)
{
	struct mb_peer *p = ctx;
	struct nvmf_queue *q = p->q;

	for (unsigned i = 0; i < n; i++) {
		const uint8_t *sqe = (const uint8_t *)&q->sqes[d[i].slot];
		struct nvme_cqe *cqe;
		struct nvmf_wc *wc;
		unsigned idx;

		/* A response needs a posted receive buffer, as on the wire (else RNR). */
		if (p->r_head == p->r_tail) {
			p->broken = 1;
			return -ENOBUFS;
		}
		idx = p->recvs[p->r_head++ & p->r_mask];
		p->sqhd = (uint16_t)((p->sqhd + 1) % q->depth);
		cqe = &q->rsps[idx];
		cqe->result = 0;
		cqe->sqhd = htole16(p->sqhd);
		cqe->sqid = htole16(q->qid);
		/* The CID as the target sees it: SQE bytes 2..3, little endian. */
		cqe->cid = htole16((uint16_t)(sqe[2] | sqe[3] << 8));
		cqe->status = 0;

		wc = &p->wcs[p->w_tail++ & p->w_mask];
		wc->wr_id = d[i].wr_id;
		wc->status = 0;
		wc->is_recv = 0;
		wc->byte_len = 0;
		wc = &p->wcs[p->w_tail++ & p->w_mask];
		wc->wr_id = NVMF_WRID_RECV | idx;
		wc->status = 0;
		wc->is_recv = 1;
		wc->byte_len = sizeof(struct nvme_cqe);
	}
	return 0;
}

static int mb_post_recvs(void *ctx, const unsigned *idx, unsigned n)
{
	struct mb_peer *p = ctx;

	for (unsigned i = 0; i < n; i++)
		p->recvs[p->r_tail++ & p->r_mask] = idx[i];
	return 0;
}

static int mb_poll(void *ctx, struct nvmf_wc *wc, int max)
{
	struct mb_peer *p = ctx;
	int n = 0;

	while (n < max && p->w_head != p->w_tail)
		wc[n++] = p->wcs[p->w_head++ & p->w_mask];
	return n;
}

static const struct nvmf_xport_ops mb_ops = {
	.post_sends = mb_post_sends,
	.post_recvs = mb_post_recvs,
	.poll       = mb_poll,
};

/* ---- the cases ---- */

struct mb_case {
	const char *name;
	uint8_t     op;
	uint32_t    bytes;
	unsigned    qd;
	uint32_t    max_xfer;    /* MDTS */
	uint32_t    inline_max;  /* 4 KiB: the Linux target's default inline_data_size */
};

static const struct mb_case cases[] = {
	{ "read-4k-qd1",    NVMF_IO_READ,  4 * KiB,   1, 1 * MiB, 4 * KiB },
	{ "read-4k-qd32",   NVMF_IO_READ,  4 * KiB,  32, 1 * MiB, 4 * KiB },
	{ "read-4k-qd128",  NVMF_IO_READ,  4 * KiB, 128, 1 * MiB, 4 * KiB },
	{ "write-4k-qd1",   NVMF_IO_WRITE, 4 * KiB,   1, 1 * MiB, 4 * KiB },
	{ "write-4k-qd32",  NVMF_IO_WRITE, 4 * KiB,  32, 1 * MiB, 4 * KiB },
	{ "write-4k-qd128", NVMF_IO_WRITE, 4 * KiB, 128, 1 * MiB, 4 * KiB },
	{ "read-2m-qd8",    NVMF_IO_READ,  2 * MiB,   8, 1 * MiB, 4 * KiB },
};
#define NR_CASES (sizeof(cases) / sizeof(cases[0]))

#define LBA_SHIFT 9

struct mb_run {
	struct nvmf_queue        q;
	struct mb_peer           peer;
	struct nvmf_io_limits    lim;
	struct nvmf_io_backlog   bl;
	struct nvmf_io_completer cpl;
	struct nvmf_io          *ios;
	struct nvmf_io         **reaped;   /* completed since the last submit round (fio's events) */
	unsigned                 nr_reaped;
	uint64_t                 completed;
	uint64_t                 failed;
	uint64_t                 next_slba;
	uint64_t                 span_blocks;
	int                      err;
};

static void mb_io_done(struct nvmf_io *io, void *arg)
{
	struct mb_run *r = arg;

	if (io->err || io->status)
		r->failed++;
	r->reaped[r->nr_reaped++] = io;
	r->completed++;
}

static void mb_backlog_staged(struct nvmf_io *io, void *arg)
{
	(void)io;
	(void)arg;
}

/* fio's queue + commit for the I/Os in r->reaped (the engine's queue and nvmeof_post). */
static int mb_submit_reaped(struct mb_run *r)
{
	int rc;

	for (unsigned i = 0; i < r->nr_reaped; i++) {
		struct nvmf_io *io = r->reaped[i];

		/* A new offset per I/O, sequential over a span: the cost is the bench's. */
		io->slba = r->next_slba;
		r->next_slba += io->nlb;
		if (r->next_slba >= r->span_blocks)
			r->next_slba = 0;
		rc = nvmf_io_submit(&r->q, &r->lim, &r->bl, io);
		if (rc < 0)
			return rc;
	}
	r->nr_reaped = 0;
	if (r->bl.head) {
		rc = nvmf_io_backlog_pump(&r->q, &r->bl, mb_backlog_staged, r);
		if (rc < 0)
			return rc;
	}
	rc = nvmf_queue_flush(&r->q);
	return rc < 0 ? rc : 0;
}

/* Run until `count` more I/Os completed: getevents (process), then refill and commit. */
static int mb_loop(struct mb_run *r, uint64_t count)
{
	uint64_t until = r->completed + count;

	while (r->completed < until) {
		int rc = nvmf_queue_process(&r->q);

		if (rc < 0)
			return rc;
		if (r->nr_reaped && (rc = mb_submit_reaped(r)) < 0)
			return rc;
	}
	return 0;
}

/* The measured part on its own (noinline: callgrind's --zero-before/--dump-after name it). */
__attribute__((noinline)) int mb_measured(struct mb_run *r, uint64_t count);
__attribute__((noinline)) int mb_measured(struct mb_run *r, uint64_t count)
{
	return mb_loop(r, count);
}

static int mb_setup(struct mb_run *r, const struct mb_case *c, void *buf)
{
	unsigned parts, depth;
	int rc;

	memset(r, 0, sizeof(*r));
	r->lim.max_xfer = c->max_xfer;
	r->lim.inline_max = c->inline_max;
	/* Entries as the lane sizes them (nvmf_io_entries): every part of QD I/Os, plus one. */
	parts = nvmf_io_cmds_for_bytes(c->bytes, &r->lim);
	depth = c->qd * parts + 1;
	rc = nvmf_queue_init(&r->q, 1, depth);
	if (rc)
		return rc;
	r->peer.q = &r->q;
	r->peer.r_mask = pow2_at_least(depth) - 1;
	r->peer.w_mask = pow2_at_least(2 * depth) - 1;
	r->peer.recvs = calloc(r->peer.r_mask + 1, sizeof(*r->peer.recvs));
	r->peer.wcs = calloc(r->peer.w_mask + 1, sizeof(*r->peer.wcs));
	r->ios = calloc(c->qd, sizeof(*r->ios));
	r->reaped = calloc(c->qd, sizeof(*r->reaped));
	if (!r->peer.recvs || !r->peer.wcs || !r->ios || !r->reaped)
		return -ENOMEM;
	nvmf_queue_attach(&r->q, &mb_ops, &r->peer);
	r->cpl.done = mb_io_done;
	r->cpl.arg = r;
	nvmf_queue_set_complete(&r->q, nvmf_io_complete_req, &r->cpl);
	rc = nvmf_queue_post_recvs(&r->q);
	if (rc)
		return rc;
	r->span_blocks = (1ull << 30) >> LBA_SHIFT;
	for (unsigned i = 0; i < c->qd; i++) {
		struct nvmf_io *io = &r->ios[i];

		io->op = c->op;
		io->lba_shift = LBA_SHIFT;
		io->nsid = 1;
		io->nlb = c->bytes >> LBA_SHIFT;
		/* Nothing reads or writes the data: one buffer serves every I/O. */
		io->buf = buf;
		io->lkey = 0x1111;
		io->rkey = 0x2222;
		r->reaped[r->nr_reaped++] = io;   /* the first round submits them all */
	}
	return mb_submit_reaped(r);
}

static void mb_teardown(struct mb_run *r)
{
	nvmf_queue_fini(&r->q);
	free(r->peer.recvs);
	free(r->peer.wcs);
	free(r->ios);
	free(r->reaped);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int run_case(const struct mb_case *c, uint64_t count, uint64_t warmup, void *buf)
{
	struct mb_run r;
	double t0, t1;
	uint64_t start;
	int rc;

	rc = mb_setup(&r, c, buf);
	if (!rc)
		rc = mb_loop(&r, warmup);
	if (rc) {
		fprintf(stderr, "microbench: %s: setup/warm-up failed: %s%s%s\n", c->name,
			strerror(-rc), r.q.fatal ? ": " : "", r.q.fatal ? r.q.fatal_msg : "");
		mb_teardown(&r);
		return 1;
	}
	start = r.completed;
	t0 = now_ns();
	rc = mb_measured(&r, count);
	t1 = now_ns();
	if (rc || r.failed || r.peer.broken) {
		fprintf(stderr, "microbench: %s: %s (failed I/Os %" PRIu64 ", peer %s)%s%s\n", c->name,
			rc ? strerror(-rc) : "ok", r.failed, r.peer.broken ? "broken" : "ok",
			r.q.fatal ? ": " : "", r.q.fatal ? r.q.fatal_msg : "");
		mb_teardown(&r);
		return 1;
	}
	/* ios: completions inside the measured loop, the divisor of the callgrind numbers too. */
	printf("%-16s %4u %8u %10" PRIu64 " %10.1f\n", c->name, c->qd, r.q.depth,
	       r.completed - start, (t1 - t0) / (double)(r.completed - start));
	mb_teardown(&r);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: microbench [-n COUNT] [-w WARMUP] [-c CASE] [-l]\n");
}

int main(int argc, char **argv)
{
	uint64_t count = 200000, warmup = 20000;
	const char *only = NULL;
	void *buf;
	int failed = 0, found = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n") && i + 1 < argc) {
			count = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "-w") && i + 1 < argc) {
			warmup = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "-c") && i + 1 < argc) {
			only = argv[++i];
		} else if (!strcmp(argv[i], "-l")) {
			for (unsigned k = 0; k < NR_CASES; k++)
				printf("%s\n", cases[k].name);
			return 0;
		} else {
			usage();
			return 2;
		}
	}
	if (!count) {
		usage();
		return 2;
	}
	buf = aligned_alloc(4096, 2 * MiB);
	if (!buf)
		return 1;
	printf("%-16s %4s %8s %10s %10s\n", "case", "qd", "entries", "ios", "ns/io");
	for (unsigned k = 0; k < NR_CASES; k++) {
		if (only && strcmp(only, cases[k].name))
			continue;
		found = 1;
		failed |= run_case(&cases[k], count, warmup, buf);
	}
	free(buf);
	if (!found) {
		fprintf(stderr, "microbench: no case %s (-l lists them)\n", only);
		return 2;
	}
	return failed;
}
