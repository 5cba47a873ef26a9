/* test_queue.c - the queue's protocol logic (lib/nvmf_queue.c) driven by a scripted peer:
 * slots and command IDs, staging and flushing, the two-halves completion rule, and the error
 * paths a misbehaving target or transport produces.  SQE/CQE contents are checked and written
 * as raw bytes at NVMe spec offsets. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nvmf_queue.h"
#include "nvmf_spec.h"

#include "check.h"
#include "scripted_peer.h"

static struct scripted_peer peer;

/* Completion callback log. */
struct cb_log {
	unsigned         calls;
	struct nvmf_req *req[64];
	uint16_t         cid[64];
	uint8_t          cqe[64][16];
	int              put;     /* put the request from the callback */
};

static void record_complete(struct nvmf_queue *q, struct nvmf_req *req, void *arg)
{
	struct cb_log *log = arg;

	if (log->calls < 64) {
		log->req[log->calls] = req;
		log->cid[log->calls] = req->cid;
		memcpy(log->cqe[log->calls], &req->cqe, 16);
	}
	log->calls++;
	CHECK_EQ(req->state, NVMF_REQ_COMPLETE);
	if (log->put)
		nvmf_queue_put(q, req);
}

/* A queue with the peer attached and all receive buffers posted. */
static void setup(struct nvmf_queue *q, unsigned depth, struct cb_log *log)
{
	CHECK_EQ(nvmf_queue_init(q, 1, depth), 0);
	sp_attach(&peer, q);
	if (log) {
		memset(log, 0, sizeof(*log));
		nvmf_queue_set_complete(q, record_complete, log);
	}
	CHECK_EQ(nvmf_queue_post_recvs(q), 0);
}

static struct nvmf_req *get_flush_cmd(struct nvmf_queue *q, uint32_t nsid)
{
	struct nvmf_req *r = nvmf_queue_get(q, NULL);

	CHECK(r != NULL);
	if (r)
		nvme_cmd_flush(nvmf_req_sqe(q, r), nsid);
	return r;
}

/* n flush commands on nsid 1, staged and posted in one chain: 0, or -1 (a slot was missing). */
static int stage_flushes(struct nvmf_queue *q, struct nvmf_req **r, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		r[i] = get_flush_cmd(q, 1);
		if (!r[i])
			return -1;
		nvmf_queue_stage(q, r[i], NULL, 0, 0);
	}
	CHECK_EQ(nvmf_queue_flush(q), (int)n);
	return 0;
}

static int contains(const char *hay, const char *needle)
{
	return hay && strstr(hay, needle) != NULL;
}

static void test_init_bounds(void)
{
	struct nvmf_queue q;
	static const unsigned bad[] = { 0, 1, 4097, 65536 };
	static const unsigned good[] = { 2, 3, 4, 64, 100, 4096 };

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ(nvmf_queue_init(&q, 1, bad[i]), -EINVAL);
		CHECK(q.sqes == NULL && q.reqs == NULL);
		nvmf_queue_fini(&q); /* safe after a failed init */
	}
	for (unsigned i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		unsigned d = good[i];

		CHECK_EQ(nvmf_queue_init(&q, 7, d), 0);
		CHECK_EQ(q.depth, d);
		CHECK_EQ(q.qid, 7);
		CHECK_EQ(q.max_inflight, d - 1);
		CHECK_EQ(nvmf_queue_available(&q), d - 1);
		CHECK((1u << q.slot_bits) >= d);
		CHECK(q.sqes && q.rsps && q.dsm && q.reqs);
		CHECK_EQ((uintptr_t)q.sqes % 64, 0);
		CHECK_EQ(q.fatal, 0);
		nvmf_queue_fini(&q);
		CHECK(q.sqes == NULL);
		nvmf_queue_fini(&q); /* twice is harmless */
	}
	nvmf_queue_fini(NULL);
}

static void test_available_accounting(void)
{
	struct nvmf_queue q;
	struct nvmf_req *r[8];
	int ctxv[4];

	setup(&q, 4, NULL);
	for (unsigned i = 0; i < 3; i++) {
		CHECK_EQ(nvmf_queue_available(&q), 3 - i);
		r[i] = nvmf_queue_get(&q, &ctxv[i]);
		CHECK(r[i] != NULL);
		if (!r[i])
			goto out;
		CHECK(r[i]->ctx == &ctxv[i]);
		CHECK_EQ(r[i]->state, NVMF_REQ_STAGED);
		CHECK(nvmf_req_slot(&q, r[i]) < 4);
	}
	/* depth 4 holds at most 3: a full NVMe queue of depth N holds N-1 */
	CHECK_EQ(nvmf_queue_available(&q), 0);
	CHECK(nvmf_queue_get(&q, NULL) == NULL);
	CHECK_EQ(q.nr_inflight, 3);
	nvmf_queue_put(&q, r[1]);
	CHECK_EQ(nvmf_queue_available(&q), 1);
	CHECK_EQ(r[1]->state, NVMF_REQ_FREE);
	nvmf_queue_put(&q, r[1]); /* putting a free request again changes nothing */
	CHECK_EQ(nvmf_queue_available(&q), 1);
	CHECK_EQ(q.nr_inflight, 2);
	r[1] = nvmf_queue_get(&q, NULL);
	CHECK(r[1] != NULL);
	CHECK_EQ(nvmf_queue_available(&q), 0);
	for (unsigned i = 0; i < 3; i++)
		if (r[i])
			nvmf_queue_put(&q, r[i]);
	CHECK_EQ(nvmf_queue_available(&q), 3);
	CHECK_EQ(q.nr_inflight, 0);
out:
	nvmf_queue_fini(&q);
}

static void test_cid_unique(void)
{
	struct nvmf_queue q;
	struct nvmf_req *r[128];
	uint16_t prev_cid[128];
	unsigned depth = 64, n = 0;

	setup(&q, depth, NULL);
	/* all in-flight CIDs distinct, and distinct slots */
	for (n = 0; n < depth - 1; n++) {
		r[n] = nvmf_queue_get(&q, NULL);
		CHECK(r[n] != NULL);
		if (!r[n])
			break;
	}
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = i + 1; j < n; j++) {
			CHECK(r[i]->cid != r[j]->cid);
			CHECK(r[i] != r[j]);
		}
	for (unsigned i = 0; i < n; i++)
		nvmf_queue_put(&q, r[i]);

	/* reuse: the same slot comes back with a different CID, over many cycles and
	 * with several requests in flight, and CIDs stay unique among those in flight */
	memset(prev_cid, 0, sizeof(prev_cid));
	for (unsigned i = 0; i < depth; i++)
		prev_cid[i] = 0xffff;
	{
		unsigned seen_reuse = 0;
		struct nvmf_req *held[5] = { 0 };

		srand(12345);
		for (unsigned iter = 0; iter < 20000; iter++) {
			unsigned k = (unsigned)rand() % 5;

			if (held[k]) {
				nvmf_queue_put(&q, held[k]);
				held[k] = NULL;
				continue;
			}
			held[k] = nvmf_queue_get(&q, NULL);
			CHECK(held[k] != NULL);
			if (!held[k])
				continue;
			unsigned s = nvmf_req_slot(&q, held[k]);

			if (prev_cid[s] != 0xffff) {
				seen_reuse++;
				if (held[k]->cid == prev_cid[s])
					CHECK(held[k]->cid != prev_cid[s]);
			}
			prev_cid[s] = held[k]->cid;
			/* the CID's slot bits name the slot */
			CHECK_EQ(held[k]->cid & ((1u << q.slot_bits) - 1), s);
			for (unsigned j = 0; j < 5; j++)
				if (j != k && held[j] && held[j]->cid == held[k]->cid)
					CHECK(held[j]->cid != held[k]->cid);
		}
		CHECK(seen_reuse > 1000);
		for (unsigned j = 0; j < 5; j++)
			if (held[j])
				nvmf_queue_put(&q, held[j]);
	}
	nvmf_queue_fini(&q);
}

/* One slot reused through every generation, several times over: its CID never repeats the
 * previous one, never is the reserved 0xFFFF, and always names the slot in its low bits. */
static void test_cid_generation_wraps(void)
{
	static const unsigned depths[] = { 2, 3, 64, 4096 };

	for (unsigned di = 0; di < sizeof(depths) / sizeof(depths[0]); di++) {
		struct nvmf_queue q;
		unsigned bad = 0, wraps = 0;
		uint16_t prev;
		struct nvmf_req *r;

		CHECK_EQ(nvmf_queue_init(&q, 1, depths[di]), 0);
		r = nvmf_queue_get(&q, NULL);
		if (!r) {
			CHECK(r != NULL);
			nvmf_queue_fini(&q);
			continue;
		}
		prev = r->cid;
		nvmf_queue_put(&q, r);
		for (unsigned i = 0; i < 3 * 65536u; i++) {
			r = nvmf_queue_get(&q, NULL);
			if (!r)
				break;
			bad += r->cid == prev || r->cid == 0xffff ||
			       (r->cid & ((1u << q.slot_bits) - 1)) != nvmf_req_slot(&q, r);
			wraps += r->cid < prev;
			prev = r->cid;
			nvmf_queue_put(&q, r);
		}
		CHECK_EQ(bad, 0);
		CHECK(wraps >= 3);
		nvmf_queue_fini(&q);
	}
}

/* A slot buried under another slot in the free list while that other slot cycles many times
 * must still come back with a CID different from its previous one: otherwise a late response
 * to its previous command would be taken for the new command's. */
static void test_cid_changes_after_many_other_commands(void)
{
	/* a shared generation counter repeats a slot's CID after 2^(16 - slot_bits) commands:
	 * 1024 at depth 64, 16 at depth 4096 */
	static const unsigned depths[] = { 3, 64, 4096 };
	static const unsigned max_cycles[] = { 300, 1100, 40 };

	for (unsigned di = 0; di < sizeof(depths) / sizeof(depths[0]); di++) {
		unsigned depth = depths[di];
		unsigned bad = 0;

		for (unsigned cycles = 0; cycles < max_cycles[di]; cycles++) {
			struct nvmf_queue q;
			struct nvmf_req *a, *b;
			uint16_t a_cid;
			unsigned a_slot;

			CHECK_EQ(nvmf_queue_init(&q, 1, depth), 0);
			b = nvmf_queue_get(&q, NULL);
			a = nvmf_queue_get(&q, NULL);
			if (!a || !b) {
				CHECK(a && b);
				nvmf_queue_fini(&q);
				break;
			}
			a_cid = a->cid;
			a_slot = nvmf_req_slot(&q, a);
			nvmf_queue_put(&q, a);
			nvmf_queue_put(&q, b);  /* b's slot now above a's */
			for (unsigned c = 0; c < cycles; c++) {
				b = nvmf_queue_get(&q, NULL);
				nvmf_queue_put(&q, b);
			}
			b = nvmf_queue_get(&q, NULL);
			a = nvmf_queue_get(&q, NULL);
			if (a && nvmf_req_slot(&q, a) == a_slot && a->cid == a_cid)
				bad++;
			CHECK(a && b && a->cid != b->cid);
			nvmf_queue_fini(&q);
		}
		if (bad)
			fprintf(stderr, "depth %u: slot reused with its previous CID in %u cases\n",
				depth, bad);
		CHECK_EQ(bad, 0);
	}
}

static void test_stage_flush(void)
{
	struct nvmf_queue q;
	struct nvmf_req *a, *b, *c;
	static uint8_t inl[512];

	setup(&q, 8, NULL);
	a = get_flush_cmd(&q, 1);
	b = get_flush_cmd(&q, 2);
	c = get_flush_cmd(&q, 3);
	if (!a || !b || !c)
		goto out;
	/* stamp with a recognizable garbage CID first: staging must overwrite bytes 2..3 */
	memset(&nvmf_req_sqe(&q, b)->bytes[2], 0xab, 2);
	/* staging order b, c, a (not slot order) */
	nvmf_queue_stage(&q, b, NULL, 0, 0);
	nvmf_queue_stage(&q, c, inl, 512, 0x1234);
	nvmf_queue_stage(&q, a, NULL, 0, 0);
	CHECK_EQ(raw_le(nvmf_req_sqe(&q, b), 2, 2), b->cid);
	CHECK_EQ(raw_le(nvmf_req_sqe(&q, a), 2, 2), a->cid);
	CHECK_EQ(raw_le(nvmf_req_sqe(&q, c), 2, 2), c->cid);
	CHECK_EQ(peer.post_sends_calls, 0); /* staging posts nothing */

	CHECK_EQ(nvmf_queue_flush(&q), 3);
	CHECK_EQ(peer.post_sends_calls, 1);
	CHECK_EQ(peer.last_batch_n, 3);
	CHECK_EQ(peer.nr_sends, 3);
	if (peer.nr_sends == 3) {
		struct nvmf_req *order[3] = { b, c, a };
		uint32_t nsid[3] = { 2, 3, 1 };

		for (unsigned i = 0; i < 3; i++) {
			unsigned slot = nvmf_req_slot(&q, order[i]);

			CHECK_EQ(peer.sends[i].batch, 0);
			CHECK_EQ(peer.sends[i].pos, i);
			CHECK_EQ(peer.sends[i].slot, slot);
			CHECK_EQ(peer.sends[i].wr_id, NVMF_WRID_SEND | slot);
			CHECK_EQ(sp_send_cid(&peer, i), order[i]->cid);
			CHECK_EQ(peer.sends[i].sqe[0], NVME_CMD_FLUSH);
			CHECK_EQ(raw_le(peer.sends[i].sqe, 4, 4), nsid[i]);
			CHECK_EQ(order[i]->state, NVMF_REQ_INFLIGHT);
		}
		CHECK(peer.sends[0].inline_addr == NULL);
		CHECK_EQ(peer.sends[0].inline_len, 0);
		CHECK(peer.sends[1].inline_addr == inl);
		CHECK_EQ(peer.sends[1].inline_len, 512);
		CHECK_EQ(peer.sends[1].inline_lkey, 0x1234);
		CHECK(peer.sends[2].inline_addr == NULL);
	}
	/* nothing staged: no post */
	CHECK_EQ(nvmf_queue_flush(&q), 0);
	CHECK_EQ(peer.post_sends_calls, 1);
	/* a second batch is its own call */
	c = get_flush_cmd(&q, 9);
	if (c) {
		nvmf_queue_stage(&q, c, NULL, 0, 0);
		CHECK_EQ(nvmf_queue_flush(&q), 1);
		CHECK_EQ(peer.post_sends_calls, 2);
		CHECK_EQ(peer.nr_sends, 4);
		CHECK_EQ(peer.sends[3].batch, 1);
		CHECK_EQ(raw_le(peer.sends[3].sqe, 4, 4), 9);
	}
out:
	nvmf_queue_fini(&q);
}

/* one command, the two halves in the given order */
static void complete_one(int rsp_first, int same_poll)
{
	struct nvmf_queue q;
	struct cb_log log;
	struct nvmf_req *r;
	unsigned slot;
	uint16_t st = sp_status(NVME_SCT_MEDIA, 0x81, 1);

	setup(&q, 8, &log);
	r = get_flush_cmd(&q, 1);
	if (!r)
		goto out;
	slot = nvmf_req_slot(&q, r);
	nvmf_queue_stage(&q, r, NULL, 0, 0);
	CHECK_EQ(nvmf_queue_flush(&q), 1);
	CHECK_EQ(nvmf_queue_process(&q), 0); /* nothing yet */

	if (rsp_first)
		sp_respond(&peer, r->cid, st, 0x1122334455667788ull);
	else
		sp_send_done(&peer, slot, 0);
	if (!same_poll) {
		CHECK_EQ(nvmf_queue_process(&q), 0);
		CHECK_EQ(log.calls, 0);
		CHECK_EQ(r->state, NVMF_REQ_INFLIGHT);
	}
	if (rsp_first)
		sp_send_done(&peer, slot, 0);
	else
		sp_respond(&peer, r->cid, st, 0x1122334455667788ull);
	CHECK_EQ(nvmf_queue_process(&q), 1);
	CHECK_EQ(q.fatal, 0);
	CHECK_EQ(log.calls, 1);
	CHECK(log.req[0] == r);
	CHECK_EQ(log.cid[0], r->cid);
	/* the response as received, raw */
	CHECK_EQ(raw_le(log.cqe[0], 0, 8), 0x1122334455667788ull);
	CHECK_EQ(raw_le(log.cqe[0], 12, 2), r->cid);
	CHECK_EQ(raw_le(log.cqe[0], 14, 2), st);
	CHECK_EQ(nvme_status_code(le16toh(r->cqe.status)), (NVME_SCT_MEDIA << 8) | 0x81);
	CHECK_EQ(r->state, NVMF_REQ_COMPLETE);
	/* never again */
	CHECK_EQ(nvmf_queue_process(&q), 0);
	CHECK_EQ(log.calls, 1);
	nvmf_queue_put(&q, r);
	CHECK_EQ(nvmf_queue_available(&q), 7);
out:
	nvmf_queue_fini(&q);
}

static void test_two_halves(void)
{
	complete_one(0, 0);
	complete_one(1, 0);
	complete_one(0, 1);
	complete_one(1, 1);
}

/* several commands answered out of order, callback puts them, slots come back */
static void test_many_out_of_order(void)
{
	struct nvmf_queue q;
	struct cb_log log;
	struct nvmf_req *r[6];
	int done[6] = { 0 };

	setup(&q, 8, &log);
	log.put = 1;
	for (unsigned i = 0; i < 6; i++) {
		r[i] = get_flush_cmd(&q, i + 1);
		if (!r[i])
			goto out;
		nvmf_queue_stage(&q, r[i], NULL, 0, 0);
	}
	CHECK_EQ(nvmf_queue_flush(&q), 6);
	CHECK_EQ(peer.post_sends_calls, 1);
	/* responses 5,3,1 first with status = index; sends for all; then 4,2,0 */
	for (int i = 5; i >= 0; i -= 2)
		sp_respond(&peer, r[i]->cid, sp_status(0, (unsigned)i + 1, 0), (uint64_t)i);
	for (unsigned i = 0; i < 6; i++)
		sp_send_done(&peer, nvmf_req_slot(&q, r[i]), 0);
	peer.poll_batch = 2; /* the completions come back over several polls */
	{
		int total = 0, rc;

		for (int spin = 0; spin < 20 && (rc = nvmf_queue_process(&q)) >= 0; spin++)
			total += rc;
		CHECK_EQ(total, 3);
		CHECK_EQ(log.calls, 3);
	}
	for (int i = 4; i >= 0; i -= 2)
		sp_respond(&peer, r[i]->cid, sp_status(0, (unsigned)i + 1, 0), (uint64_t)i);
	{
		int total = 0, rc;

		for (int spin = 0; spin < 20 && (rc = nvmf_queue_process(&q)) >= 0; spin++)
			total += rc;
		CHECK_EQ(total, 3);
	}
	CHECK_EQ(q.fatal, 0);
	CHECK_EQ(log.calls, 6);
	for (unsigned k = 0; k < log.calls && k < 6; k++) {
		/* result carries the index; the status SC says the same */
		uint64_t i = raw_le(log.cqe[k], 0, 8);

		CHECK(i < 6);
		if (i >= 6)
			continue;
		CHECK_EQ(log.cid[k], r[i]->cid);
		CHECK_EQ(raw_le(log.cqe[k], 14, 2), sp_status(0, (unsigned)i + 1, 0));
		done[i]++;
	}
	for (unsigned i = 0; i < 6; i++)
		CHECK_EQ(done[i], 1);
	CHECK_EQ(nvmf_queue_available(&q), 7);
	CHECK_EQ(peer.recv_double_posts, 0);
	CHECK_EQ(peer.overflow, 0);
out:
	nvmf_queue_fini(&q);
}

static void check_fatal_unknown(struct nvmf_queue *q, struct cb_log *log, unsigned calls_before)
{
	int rc = nvmf_queue_process(q);

	CHECK_EQ(rc, -EPROTO);
	CHECK_EQ(q->fatal, -EPROTO);
	CHECK(contains(q->fatal_msg, "unknown command ID"));
	if (!contains(q->fatal_msg, "unknown command ID"))
		fprintf(stderr, "  fatal_msg: %s\n", q->fatal_msg);
	CHECK_EQ(log->calls, calls_before);
	/* sticky: the queue stays unusable */
	CHECK_EQ(nvmf_queue_process(q), -EPROTO);
	CHECK_EQ(nvmf_queue_flush(q), -EPROTO);
	CHECK_EQ(nvmf_queue_available(q), 0);
	CHECK(nvmf_queue_get(q, NULL) == NULL);
}

static void test_unknown_cid_never_issued(void)
{
	struct nvmf_queue q;
	struct cb_log log;
	struct nvmf_req *r;

	/* a CID no command ever had */
	setup(&q, 8, &log);
	r = get_flush_cmd(&q, 1);
	if (!r)
		goto out;
	nvmf_queue_stage(&q, r, NULL, 0, 0);
	nvmf_queue_flush(&q);
	sp_send_done(&peer, nvmf_req_slot(&q, r), 0);
	sp_respond(&peer, (uint16_t)(r->cid ^ 0x0100), 0, 0); /* same slot, other generation */
	check_fatal_unknown(&q, &log, 0);
	CHECK_EQ(q.stat_unknown_cid, 1);
	CHECK_EQ(r->state, NVMF_REQ_INFLIGHT);
	nvmf_queue_fini(&q);

	/* a CID naming a slot that is free */
	setup(&q, 8, &log);
	r = get_flush_cmd(&q, 1);
	if (!r)
		goto out;
	nvmf_queue_stage(&q, r, NULL, 0, 0);
	nvmf_queue_flush(&q);
	{
		unsigned other = (nvmf_req_slot(&q, r) + 1) % 8;

		sp_respond(&peer, (uint16_t)((1u << q.slot_bits) | other), 0, 0);
	}
	check_fatal_unknown(&q, &log, 0);
	nvmf_queue_fini(&q);

	/* slot bits beyond the depth (depth 5 uses 3 slot bits: slot 7 does not exist) */
	setup(&q, 5, &log);
	sp_respond(&peer, 0x0007, 0, 0);
	check_fatal_unknown(&q, &log, 0);
	nvmf_queue_fini(&q);

	/* CID 0xffff on an idle queue */
	setup(&q, 4096, &log);
	sp_respond(&peer, 0xffff, 0, 0);
	check_fatal_unknown(&q, &log, 0);
	nvmf_queue_fini(&q);

	/* a response for a command that is staged but not posted yet */
	setup(&q, 8, &log);
	r = get_flush_cmd(&q, 1);
	if (!r)
		goto out;
	nvmf_queue_stage(&q, r, NULL, 0, 0);
	sp_respond(&peer, r->cid, 0, 0);
	check_fatal_unknown(&q, &log, 0);
out:
	nvmf_queue_fini(&q);
}

static void test_unknown_cid_stale_generation(void)
{
	struct nvmf_queue q;
	struct cb_log log;
	struct nvmf_req *r, *r2;
	uint16_t old_cid;
	unsigned slot;

	setup(&q, 8, &log);
	log.put = 1;
	r = get_flush_cmd(&q, 1);
	if (!r)
		goto out;
	slot = nvmf_req_slot(&q, r);
	old_cid = r->cid;
	nvmf_queue_stage(&q, r, NULL, 0, 0);
	nvmf_queue_flush(&q);
	sp_send_done(&peer, slot, 0);
	sp_respond(&peer, old_cid, 0, 0);
	CHECK_EQ(nvmf_queue_process(&q), 1);
	CHECK_EQ(log.calls, 1);
	/* the slot is reused */
	r2 = get_flush_cmd(&q, 2);
	if (!r2)
		goto out;
	CHECK_EQ(nvmf_req_slot(&q, r2), slot);
	CHECK(r2->cid != old_cid);
	nvmf_queue_stage(&q, r2, NULL, 0, 0);
	nvmf_queue_flush(&q);
	CHECK_EQ(sp_send_cid(&peer, 1), r2->cid);
	sp_send_done(&peer, slot, 0);
	/* a late duplicate of the old response must not complete the new command */
	sp_respond(&peer, old_cid, 0, 0);
	check_fatal_unknown(&q, &log, 1);
	CHECK_EQ(r2->state, NVMF_REQ_INFLIGHT);
	CHECK_EQ(q.stat_unknown_cid, 1);
out:
	nvmf_queue_fini(&q);
}

static void test_unknown_cid_duplicate(void)
{
	struct nvmf_queue q;
	struct cb_log log;
	struct nvmf_req *r;

	/* duplicate before the SEND completion: the first response is recorded, the second is
	 * not a response to anything outstanding */
	setup(&q, 8, &log);
	r = get_flush_cmd(&q, 1);
	if (!r)
		goto out;
	nvmf_queue_stage(&q, r, NULL, 0, 0);
	nvmf_queue_flush(&q);
	sp_respond(&peer, r->cid, 0, 0);
	CHECK_EQ(nvmf_queue_process(&q), 0);
	sp_respond(&peer, r->cid, sp_status(0, 6, 0), 0);
	check_fatal_unknown(&q, &log, 0);
	/* the first response was kept */
	CHECK_EQ(raw_le(&r->cqe, 14, 2), 0);
	nvmf_queue_fini(&q);

	/* duplicate after completion, request still held (COMPLETE) by its owner */
	setup(&q, 8, &log);
	r = get_flush_cmd(&q, 1);
	if (!r)
		goto out;
	nvmf_queue_stage(&q, r, NULL, 0, 0);
	nvmf_queue_flush(&q);
	sp_send_done(&peer, nvmf_req_slot(&q, r), 0);
	sp_respond(&peer, r->cid, 0, 0);
	CHECK_EQ(nvmf_queue_process(&q), 1);
	sp_respond(&peer, r->cid, 0, 0);
	check_fatal_unknown(&q, &log, 1);
	nvmf_queue_fini(&q);

	/* duplicate after completion and put (slot FREE), in the same poll batch */
	setup(&q, 8, &log);
	log.put = 1;
	r = get_flush_cmd(&q, 1);
	if (!r)
		goto out;
	nvmf_queue_stage(&q, r, NULL, 0, 0);
	nvmf_queue_flush(&q);
	sp_send_done(&peer, nvmf_req_slot(&q, r), 0);
	sp_respond(&peer, r->cid, 0, 0);
	sp_respond(&peer, r->cid, 0, 0);
	check_fatal_unknown(&q, &log, 1);
out:
	nvmf_queue_fini(&q);
}

static void test_send_error(void)
{
	struct nvmf_queue q;
	struct cb_log log;
	struct nvmf_req *r;

	setup(&q, 8, &log);
	r = get_flush_cmd(&q, 1);
	if (!r)
		goto out;
	nvmf_queue_stage(&q, r, NULL, 0, 0);
	nvmf_queue_flush(&q);
	sp_respond(&peer, r->cid, 0, 0);
	sp_send_done(&peer, nvmf_req_slot(&q, r), 12 /* IBV_WC_RETRY_EXC_ERR */);
	CHECK(nvmf_queue_process(&q) < 0);
	CHECK(q.fatal < 0);
	CHECK(q.fatal_msg[0] != 0);
	CHECK_EQ(log.calls, 0);
	CHECK(nvmf_queue_process(&q) < 0);
	CHECK_EQ(nvmf_queue_available(&q), 0);
	nvmf_queue_fini(&q);

	/* a SEND completion for a slot with nothing in flight */
	setup(&q, 8, &log);
	sp_send_done(&peer, 3, 0);
	CHECK_EQ(nvmf_queue_process(&q), -EPROTO);
	nvmf_queue_fini(&q);

	/* a SEND completion twice for one command */
	setup(&q, 8, &log);
	r = get_flush_cmd(&q, 1);
	if (!r)
		goto out;
	nvmf_queue_stage(&q, r, NULL, 0, 0);
	nvmf_queue_flush(&q);
	sp_send_done(&peer, nvmf_req_slot(&q, r), 0);
	sp_send_done(&peer, nvmf_req_slot(&q, r), 0);
	CHECK_EQ(nvmf_queue_process(&q), -EPROTO);
	CHECK_EQ(log.calls, 0);
out:
	nvmf_queue_fini(&q);
}

static void test_short_and_failed_receive(void)
{
	struct nvmf_queue q;
	struct cb_log log;
	struct nvmf_req *r;
	uint8_t b[16];

	for (uint32_t len = 0; len < 16; len += 5) {
		setup(&q, 8, &log);
		r = get_flush_cmd(&q, 1);
		if (!r) {
			nvmf_queue_fini(&q);
			return;
		}
		nvmf_queue_stage(&q, r, NULL, 0, 0);
		nvmf_queue_flush(&q);
		sp_send_done(&peer, nvmf_req_slot(&q, r), 0);
		sp_cqe_bytes(b, r->cid, 0, 0); /* the bytes would even match */
		sp_recv_raw_on(&peer, 0, b, len, 0);
		CHECK_EQ(nvmf_queue_process(&q), -EPROTO);
		CHECK_EQ(q.fatal, -EPROTO);
		CHECK(contains(q.fatal_msg, "bytes"));
		CHECK_EQ(log.calls, 0);
		nvmf_queue_fini(&q);
	}
	/* len 15: the boundary */
	setup(&q, 8, &log);
	r = get_flush_cmd(&q, 1);
	if (r) {
		nvmf_queue_stage(&q, r, NULL, 0, 0);
		nvmf_queue_flush(&q);
		sp_send_done(&peer, nvmf_req_slot(&q, r), 0);
		sp_cqe_bytes(b, r->cid, 0, 0);
		sp_recv_raw_on(&peer, 0, b, 15, 0);
		CHECK_EQ(nvmf_queue_process(&q), -EPROTO);
		CHECK_EQ(log.calls, 0);
	}
	nvmf_queue_fini(&q);

	/* a failed receive (e.g. flushed) */
	setup(&q, 8, &log);
	sp_recv_raw_on(&peer, 2, NULL, 0, 5 /* IBV_WC_WR_FLUSH_ERR */);
	CHECK(nvmf_queue_process(&q) < 0);
	CHECK(q.fatal < 0);
	nvmf_queue_fini(&q);

	/* a receive completion for a buffer index beyond the queue */
	setup(&q, 8, &log);
	peer.recv_posted[9] = 1;
	sp_recv_raw_on(&peer, 9, NULL, 16, 0);
	CHECK_EQ(nvmf_queue_process(&q), -EPROTO);
	nvmf_queue_fini(&q);

	/* poll failing */
	setup(&q, 8, &log);
	peer.poll_rc = -EIO;
	CHECK_EQ(nvmf_queue_process(&q), -EIO);
	CHECK_EQ(q.fatal, -EIO);
	nvmf_queue_fini(&q);
}

static void test_recv_reposted(void)
{
	struct nvmf_queue q;
	struct cb_log log;
	unsigned depth = 4;

	setup(&q, depth, &log);
	log.put = 1;
	CHECK_EQ(peer.nr_recv_log, depth);
	CHECK_EQ(peer.post_recv_calls, 1);      /* the initial receives: one chain */
	CHECK_EQ(peer.last_recv_batch_n, depth);
	for (unsigned i = 0; i < depth; i++) {
		CHECK_EQ(sp_recv_posts_of(&peer, i), 1);
		CHECK_EQ(peer.recv_posted[i], 1);
	}
	/* 3 rounds of 3 commands: every response's buffer is reposted exactly once */
	for (unsigned round = 0; round < 3; round++) {
		struct nvmf_req *r[3];
		int idx[3];
		unsigned before = peer.nr_recv_log;
		unsigned calls_before = peer.post_recv_calls;

		if (stage_flushes(&q, r, 3))
			goto out;
		for (unsigned i = 0; i < 3; i++) {
			sp_send_done(&peer, nvmf_req_slot(&q, r[i]), 0);
			idx[i] = sp_respond(&peer, r[i]->cid, 0, 0);
			CHECK(idx[i] >= 0);
			CHECK_EQ(peer.recv_posted[idx[i] < 0 ? 0 : idx[i]], 0);
		}
		CHECK_EQ(peer.nr_recv_log, before); /* not before the response is processed */
		CHECK_EQ(nvmf_queue_process(&q), 3);
		CHECK_EQ(peer.nr_recv_log, before + 3);
		/* reaped in one poll: the three buffers go back as one chain, not one call each */
		CHECK_EQ(peer.post_recv_calls, calls_before + 1);
		CHECK_EQ(peer.last_recv_batch_n, 3);
		for (unsigned i = 0; i < 3; i++) {
			CHECK_EQ(peer.recv_log[before + i], (unsigned)idx[i]);
			CHECK_EQ(peer.recv_posted[idx[i] < 0 ? 0 : idx[i]], 1);
		}
	}
	CHECK_EQ(peer.recv_double_posts, 0);
	CHECK_EQ(peer.recv_bad_idx, 0);
	CHECK_EQ(log.calls, 9);
	CHECK_EQ(peer.overflow, 0);
	nvmf_queue_fini(&q);

	/* reposting failing is fatal */
	setup(&q, depth, &log);
	{
		struct nvmf_req *r = get_flush_cmd(&q, 1);

		if (!r)
			goto out;
		nvmf_queue_stage(&q, r, NULL, 0, 0);
		nvmf_queue_flush(&q);
		sp_send_done(&peer, nvmf_req_slot(&q, r), 0);
		sp_respond(&peer, r->cid, 0, 0);
		peer.post_recv_rc = -ENOMEM;
		CHECK_EQ(nvmf_queue_process(&q), -ENOMEM);
		CHECK_EQ(q.fatal, -ENOMEM);
	}
	nvmf_queue_fini(&q);

	/* posting the initial receives failing */
	CHECK_EQ(nvmf_queue_init(&q, 1, depth), 0);
	sp_attach(&peer, &q);
	peer.post_recv_rc = -EAGAIN;
	CHECK_EQ(nvmf_queue_post_recvs(&q), -EAGAIN);
	CHECK_EQ(q.fatal, -EAGAIN);
out:
	nvmf_queue_fini(&q);
}

/* A completion callback that stages and flushes a new command from inside
 * nvmf_queue_process: the receive buffers already consumed in that batch are posted again
 * before the new capsule goes out (the batched re-post must not leave the target without a
 * buffer for the new command's response), and none is posted twice. */
struct reflush {
	struct nvmf_queue *q;
	unsigned           calls;
	unsigned           recvs_at_post;  /* receive buffers posted when the capsule went out */
	unsigned           posted_before;
};

static void reflush_complete(struct nvmf_queue *q, struct nvmf_req *req, void *arg)
{
	struct reflush *rf = arg;
	struct nvmf_req *r;

	nvmf_queue_put(q, req);
	if (rf->calls++)
		return;
	r = get_flush_cmd(q, 9);
	if (!r)
		return;
	nvmf_queue_stage(q, r, NULL, 0, 0);
	rf->posted_before = peer.post_sends_calls;
	CHECK_EQ(nvmf_queue_flush(q), 1);
	rf->recvs_at_post = 0;
	for (unsigned i = 0; i < q->depth; i++)
		rf->recvs_at_post += peer.recv_posted[i];
}

static void test_recv_reposted_before_flush_in_callback(void)
{
	struct nvmf_queue q;
	struct nvmf_req *r[3];
	struct reflush rf;
	unsigned depth = 4;

	setup(&q, depth, NULL);
	memset(&rf, 0, sizeof(rf));
	nvmf_queue_set_complete(&q, reflush_complete, &rf);
	if (stage_flushes(&q, r, 3))
		goto out;
	for (unsigned i = 0; i < 3; i++) {
		sp_send_done(&peer, nvmf_req_slot(&q, r[i]), 0);
		CHECK(sp_respond(&peer, r[i]->cid, 0, 0) >= 0);
	}
	CHECK_EQ(nvmf_queue_process(&q), 3);
	CHECK_EQ(rf.calls, 3);
	CHECK_EQ(peer.post_sends_calls, rf.posted_before + 1);
	/* at the new capsule's post the first response's buffer was back: only the two whose
	 * responses were still unreaped were out (without the re-post in flush: three) */
	CHECK_EQ(rf.recvs_at_post, depth - 2);
	CHECK_EQ(peer.nr_recv_log, depth + 3);
	for (unsigned i = 0; i < depth; i++)
		CHECK_EQ(peer.recv_posted[i], 1);
	CHECK_EQ(peer.recv_double_posts, 0);
	CHECK_EQ(q.fatal, 0);
out:
	nvmf_queue_fini(&q);
}

static void test_exec(void)
{
	struct nvmf_queue q;
	struct cb_log log;
	struct nvmf_req *r;
	struct nvme_cqe cqe;
	uint64_t t0, dt;

	/* answered */
	setup(&q, 8, &log);
	peer.auto_send_ok = 1;
	peer.auto_respond = 1;
	peer.auto_status = sp_status(NVME_SCT_CMD_SPECIFIC, 0x02, 0);
	peer.auto_result = 0xabcdef0123456789ull;
	r = get_flush_cmd(&q, 1);
	if (!r)
		goto out;
	memset(&cqe, 0, sizeof(cqe));
	CHECK_EQ(nvmf_queue_exec(&q, r, 1000, &cqe), 0);
	CHECK_EQ(raw_le(&cqe, 0, 8), 0xabcdef0123456789ull);
	CHECK_EQ(raw_le(&cqe, 14, 2), sp_status(NVME_SCT_CMD_SPECIFIC, 0x02, 0));
	CHECK_EQ(raw_le(&cqe, 12, 2), sp_send_cid(&peer, 0));
	CHECK_EQ(peer.post_sends_calls, 1);
	CHECK_EQ(log.calls, 0);                     /* exec does not call back */
	CHECK(q.complete == record_complete);       /* and restores the callback */
	CHECK_EQ(nvmf_queue_available(&q), 7);      /* slot returned */
	CHECK_EQ(q.fatal, 0);
	nvmf_queue_fini(&q);

	/* lost response: the SEND completes, the target never answers */
	setup(&q, 8, &log);
	peer.auto_send_ok = 1;
	r = get_flush_cmd(&q, 1);
	if (!r)
		goto out;
	t0 = nvmf_now_ms();
	CHECK_EQ(nvmf_queue_exec(&q, r, 50, &cqe), -ETIMEDOUT);
	dt = nvmf_now_ms() - t0;
	CHECK(dt >= 50);
	CHECK(dt < 5000);
	CHECK_EQ(q.fatal, -ETIMEDOUT);
	CHECK(contains(q.fatal_msg, "50 ms"));
	CHECK_EQ(nvmf_queue_available(&q), 0);
	CHECK(q.complete == record_complete);
	/* the response arriving late does not resurrect the queue */
	sp_respond(&peer, r->cid, 0, 0);
	CHECK_EQ(nvmf_queue_process(&q), -ETIMEDOUT);
	CHECK_EQ(log.calls, 0);
	nvmf_queue_fini(&q);

	/* an error completion while waiting */
	setup(&q, 8, &log);
	r = get_flush_cmd(&q, 1);
	if (!r)
		goto out;
	sp_send_done(&peer, nvmf_req_slot(&q, r), 0); /* queued before the post: fine here */
	peer.poll_rc = -EIO;
	CHECK_EQ(nvmf_queue_exec(&q, r, 1000, &cqe), -EIO);
out:
	nvmf_queue_fini(&q);
}

/* nvmf_queue_exec_wait (the keep-alive thread's): with nothing there it hands the wait to
 * wait() with the time left, and returns once wait() reaped the answer; it never spins (a
 * wait that sleeps its whole budget is called a handful of times over 60 ms, not thousands). */
struct exec_wait_log {
	struct nvmf_queue *q;
	unsigned           calls;
	int                answer_at;     /* the call that delivers the answer; 0: never */
	int                first_ms;
	uint16_t           cid;
};

static int exec_wait_fn(void *ctx, int timeout_ms)
{
	struct exec_wait_log *w = ctx;
	struct timespec ts = { 0, 0 };

	if (++w->calls == 1)
		w->first_ms = timeout_ms;
	if (w->answer_at && (int)w->calls == w->answer_at) {
		sp_send_done(&peer, w->cid & w->q->slot_mask, 0);
		sp_respond(&peer, w->cid, 0, 0x42);
	} else {
		ts.tv_nsec = (long)timeout_ms * 1000000;   /* asleep for the whole budget */
		nanosleep(&ts, NULL);
	}
	return nvmf_queue_process(w->q);
}

static void test_exec_wait(void)
{
	struct nvmf_queue q;
	struct cb_log log;
	struct nvmf_req *r;
	struct nvme_cqe cqe;
	struct exec_wait_log w;

	setup(&q, 8, &log);
	r = get_flush_cmd(&q, 1);
	if (!r)
		goto out;
	memset(&w, 0, sizeof(w));
	w.q = &q;
	w.answer_at = 2;
	w.cid = r->cid;
	memset(&cqe, 0, sizeof(cqe));
	CHECK_EQ(nvmf_queue_exec_wait(&q, r, 1000, &cqe, exec_wait_fn, &w), 0);
	CHECK_EQ(w.calls, 2u);                      /* asleep once, then the answer */
	CHECK(w.first_ms > 900 && w.first_ms <= 1001);
	CHECK_EQ(raw_le(&cqe, 0, 8), 0x42);
	CHECK_EQ(nvmf_queue_available(&q), 7);
	nvmf_queue_fini(&q);

	/* no answer: -ETIMEDOUT after the budget, in a few sleeping waits */
	setup(&q, 8, &log);
	r = get_flush_cmd(&q, 1);
	if (!r)
		goto out;
	memset(&w, 0, sizeof(w));
	w.q = &q;
	CHECK_EQ(nvmf_queue_exec_wait(&q, r, 60, &cqe, exec_wait_fn, &w), -ETIMEDOUT);
	CHECK(w.calls >= 1 && w.calls <= 5);
	CHECK(contains(q.fatal_msg, "60 ms"));
out:
	nvmf_queue_fini(&q);
}

static void test_post_sends_fails(void)
{
	struct nvmf_queue q;
	struct nvmf_req *a, *b;

	setup(&q, 8, NULL);
	a = get_flush_cmd(&q, 1);
	b = get_flush_cmd(&q, 2);
	if (!a || !b)
		goto out;
	nvmf_queue_stage(&q, a, NULL, 0, 0);
	nvmf_queue_stage(&q, b, NULL, 0, 0);
	peer.post_sends_rc = -ENOMEM;
	CHECK_EQ(nvmf_queue_flush(&q), -ENOMEM);
	CHECK_EQ(peer.post_sends_calls, 1);
	CHECK_EQ(q.fatal, -ENOMEM);
	CHECK(contains(q.fatal_msg, "2 command capsule"));
	/* no retry of the same capsules on a later flush */
	peer.post_sends_rc = 0;
	CHECK_EQ(nvmf_queue_flush(&q), -ENOMEM);
	CHECK_EQ(peer.post_sends_calls, 1);
	CHECK_EQ(peer.nr_sends, 0);
out:
	nvmf_queue_fini(&q);
}

static void test_put_staged(void)
{
	struct nvmf_queue q;
	struct nvmf_req *a, *b, *c, *d;

	setup(&q, 8, NULL);
	a = get_flush_cmd(&q, 1);
	b = get_flush_cmd(&q, 2);
	c = get_flush_cmd(&q, 3);
	if (!a || !b || !c)
		goto out;
	nvmf_queue_stage(&q, a, NULL, 0, 0);
	nvmf_queue_stage(&q, b, NULL, 0, 0);
	nvmf_queue_stage(&q, c, NULL, 0, 0);
	CHECK_EQ(nvmf_queue_available(&q), 4);
	nvmf_queue_put(&q, b); /* the middle one */
	CHECK_EQ(b->state, NVMF_REQ_FREE);
	CHECK_EQ(nvmf_queue_available(&q), 5);
	CHECK_EQ(nvmf_queue_flush(&q), 2);
	CHECK_EQ(peer.nr_sends, 2);
	if (peer.nr_sends == 2) {
		CHECK_EQ(raw_le(peer.sends[0].sqe, 4, 4), 1);
		CHECK_EQ(raw_le(peer.sends[1].sqe, 4, 4), 3);
		CHECK_EQ(peer.sends[0].slot, nvmf_req_slot(&q, a));
		CHECK_EQ(peer.sends[1].slot, nvmf_req_slot(&q, c));
	}
	/* the freed slot is reused and posted normally, once */
	d = get_flush_cmd(&q, 4);
	if (!d)
		goto out;
	CHECK_EQ(nvmf_req_slot(&q, d), nvmf_req_slot(&q, b));
	nvmf_queue_stage(&q, d, NULL, 0, 0);
	CHECK_EQ(nvmf_queue_flush(&q), 1);
	CHECK_EQ(peer.nr_sends, 3);
	CHECK_EQ(raw_le(peer.sends[2].sqe, 4, 4), 4);

	/* first and last of a staged list */
	a = get_flush_cmd(&q, 5);
	b = get_flush_cmd(&q, 6);
	c = get_flush_cmd(&q, 7);
	if (!a || !b || !c)
		goto out;
	nvmf_queue_stage(&q, a, NULL, 0, 0);
	nvmf_queue_stage(&q, b, NULL, 0, 0);
	nvmf_queue_stage(&q, c, NULL, 0, 0);
	nvmf_queue_put(&q, c);
	nvmf_queue_put(&q, a);
	CHECK_EQ(nvmf_queue_flush(&q), 1);
	CHECK_EQ(peer.nr_sends, 4);
	CHECK_EQ(raw_le(peer.sends[3].sqe, 4, 4), 6);
	/* all staged ones put: nothing to post */
	a = get_flush_cmd(&q, 8);
	if (!a)
		goto out;
	nvmf_queue_stage(&q, a, NULL, 0, 0);
	nvmf_queue_put(&q, a);
	CHECK_EQ(nvmf_queue_flush(&q), 0);
	CHECK_EQ(peer.post_sends_calls, 3);
out:
	nvmf_queue_fini(&q);
}

int main(void)
{
	/* nvmf_queue_exec polls until its deadline: a broken deadline must fail, not hang */
	alarm(120);
	test_init_bounds();
	test_available_accounting();
	test_cid_unique();
	test_cid_generation_wraps();
	test_cid_changes_after_many_other_commands();
	test_stage_flush();
	test_two_halves();
	test_many_out_of_order();
	test_unknown_cid_never_issued();
	test_unknown_cid_stale_generation();
	test_unknown_cid_duplicate();
	test_send_error();
	test_short_and_failed_receive();
	test_recv_reposted();
	test_recv_reposted_before_flush_in_callback();
	test_exec();
	test_exec_wait();
	test_post_sends_fails();
	test_put_staged();
	return check_done("test_queue");
}
