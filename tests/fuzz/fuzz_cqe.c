/* fuzz_cqe.c - libFuzzer target: response capsules and completions as the target and the
 * transport deliver them, into a queue with commands outstanding (lib/nvmf_queue.c behind the
 * scripted peer of the unit tests).
 *
 * The input is a script.  Byte 0 picks the queue depth (2..33); then each op byte selects:
 *   post k commands | SEND completion (ok or failed) for a slot | a response capsule of 16
 *   input bytes (any CID, SQHD, status) with an input-chosen byte_len | a response that
 *   answers an outstanding command with input-chosen SQHD and status | process().
 * A model kept here, from what was injected, checks what the queue does:
 *   - a command completes only after its SEND completion and a response carrying its CID
 *     were both injected, and at most once;
 *   - slot accounting stays whole (free + in flight = depth);
 *   - an error is a negative errno with a one-line message, and it sticks. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmf_queue.h"
#include "nvmf_spec.h"

#include "scripted_peer.h"

#include "fuzz_assert.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_DEPTH 33

static struct scripted_peer peer;

/* What was injected for the command now in each slot. */
struct slot_model {
	int      posted;     /* sent and not yet completed */
	uint16_t cid;
	int      send_seen;  /* a successful SEND completion was injected */
	int      rsp_seen;   /* a response with this CID and >= 16 bytes was injected */
};

static struct slot_model model[MAX_DEPTH];
static unsigned completions;

struct input {
	const uint8_t *p;
	size_t         left;
};

static uint8_t next(struct input *in)
{
	if (!in->left)
		return 0;
	in->left--;
	return *in->p++;
}

static void on_complete(struct nvmf_queue *q, struct nvmf_req *req, void *arg)
{
	unsigned slot = nvmf_req_slot(q, req);

	(void)arg;
	FUZZ_ASSERT(slot < q->depth);
	FUZZ_ASSERT(req->state == NVMF_REQ_COMPLETE);
	FUZZ_ASSERT(req->done == (NVMF_REQ_SEND_DONE | NVMF_REQ_RSP_DONE));
	/* the two-halves rule, against the injections rather than the queue's own flags */
	FUZZ_ASSERT(model[slot].posted);
	FUZZ_ASSERT(model[slot].cid == req->cid);
	FUZZ_ASSERT(model[slot].send_seen);
	FUZZ_ASSERT(model[slot].rsp_seen);
	FUZZ_ASSERT(le16toh(req->cqe.cid) == req->cid);
	model[slot].posted = 0;
	completions++;
	nvmf_queue_put(q, req);
}

static void check_accounting(const struct nvmf_queue *q)
{
	FUZZ_ASSERT(q->nr_free + q->nr_inflight == q->depth);
	FUZZ_ASSERT(q->nr_inflight <= q->max_inflight);
	FUZZ_ASSERT(q->nr_staged == 0);
}

static int process(struct nvmf_queue *q, int *fatal_seen)
{
	int rc = nvmf_queue_process(q);

	if (rc < 0) {
		FUZZ_ASSERT(q->fatal == rc);
		FUZZ_ASSERT(q->fatal_msg[0] != 0);
		FUZZ_ASSERT(strchr(q->fatal_msg, '\n') == NULL);
		FUZZ_ASSERT(strlen(q->fatal_msg) < sizeof(q->fatal_msg));
		if (*fatal_seen)
			FUZZ_ASSERT(rc == *fatal_seen);  /* sticky: the first error stays */
		*fatal_seen = rc;
	} else {
		FUZZ_ASSERT(!*fatal_seen);
		FUZZ_ASSERT(q->fatal == 0);
	}
	check_accounting(q);
	return rc;
}

/* Let the queue reap everything injected so far (it reaps 2 * depth per call). */
static void drain(struct nvmf_queue *q, int *fatal_seen)
{
	while (sp_pending_count(&peer) && !q->fatal)
		process(q, fatal_seen);
}

/* Room in the peer's ring for one more injection: drain first when nearly full. */
static void make_room(struct nvmf_queue *q, int *fatal_seen)
{
	if (sp_pending_count(&peer) >= SP_MAX_WCS - 2)
		drain(q, fatal_seen);
	/* a fatal queue stops polling: drop what it will never read */
	if (sp_pending_count(&peer) >= SP_MAX_WCS - 2)
		peer.pend_head = peer.pend_tail;
}

static void inject_response(struct nvmf_queue *q, const uint8_t b[16], uint32_t byte_len,
			    int *fatal_seen)
{
	int idx = sp_posted_buf(&peer);
	uint16_t cid = (uint16_t)(b[12] | (b[13] << 8));
	unsigned slot;

	if (idx < 0)
		return;  /* no receive posted: the HCA would not deliver one (RNR) */
	make_room(q, fatal_seen);
	sp_recv_raw_on(&peer, (unsigned)idx, b, byte_len, 0);
	slot = cid & ((1u << q->slot_bits) - 1);
	if (byte_len >= 16 && slot < q->depth && model[slot].posted && model[slot].cid == cid)
		model[slot].rsp_seen = 1;
}

static void post_commands(struct nvmf_queue *q, unsigned k, int *fatal_seen)
{
	unsigned n = 0;

	/* Completions never precede the post of their command: whatever was injected for a
	 * slot's previous command is reaped before the slot can be reused. */
	drain(q, fatal_seen);
	if (q->fatal)
		return;
	for (unsigned i = 0; i < k; i++) {
		struct nvmf_req *r = nvmf_queue_get(q, NULL);
		unsigned slot;

		if (!r)
			break;
		slot = nvmf_req_slot(q, r);
		FUZZ_ASSERT(slot < q->depth);
		FUZZ_ASSERT(!model[slot].posted);
		nvme_cmd_flush(nvmf_req_sqe(q, r), 1);
		nvmf_queue_stage(q, r, NULL, 0, 0);
		memset(&model[slot], 0, sizeof(model[slot]));
		model[slot].posted = 1;
		model[slot].cid = r->cid;
		n++;
	}
	if (n) {
		int rc = nvmf_queue_flush(q);

		FUZZ_ASSERT(rc == (int)n);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	struct nvmf_queue q;
	unsigned depth;
	int fatal_seen = 0;

	if (size < 1)
		return 0;
	depth = 2 + next(&in) % (MAX_DEPTH - 1);
	if (nvmf_queue_init(&q, 1, depth))
		abort();
	sp_attach(&peer, &q);
	memset(model, 0, sizeof(model));
	completions = 0;
	nvmf_queue_set_complete(&q, on_complete, NULL);
	FUZZ_ASSERT(nvmf_queue_post_recvs(&q) == 0);

	while (in.left) {
		uint8_t op = next(&in);

		switch (op % 6) {
		case 0:     /* post 1..4 commands (none once the queue is fatal) */
			post_commands(&q, 1u + (op >> 3) % 4, &fatal_seen);
			break;
		case 1: {   /* SEND completion for a slot: mostly a posted one, sometimes not */
			unsigned slot = next(&in) % (depth + 1);
			int status = (op & 0x80) && (op & 0x40) ? 12 /* retry exceeded */ : 0;

			make_room(&q, &fatal_seen);
			sp_send_done(&peer, slot, status);
			if (slot < depth && model[slot].posted && !status)
				model[slot].send_seen = 1;
			break;
		}
		case 2: {   /* a response capsule of raw input bytes, any length the HCA reports */
			uint8_t b[16];
			uint32_t len;

			for (unsigned i = 0; i < 16; i++)
				b[i] = next(&in);
			len = (op & 0x80) ? next(&in) % 20 : 16;
			inject_response(&q, b, len, &fatal_seen);
			break;
		}
		case 3: {   /* a response for an outstanding command: SQHD, status, result fuzzed */
			unsigned slot = next(&in) % depth;
			uint8_t b[16];

			for (unsigned i = 0; i < 16; i++)
				b[i] = next(&in);
			if (model[slot].posted) {
				b[12] = (uint8_t)model[slot].cid;
				b[13] = (uint8_t)(model[slot].cid >> 8);
			}
			/* keep SQHD mostly in range to get past that check */
			if (!(op & 0x80)) {
				b[8] = (uint8_t)(b[8] % depth);
				b[9] = 0;
			}
			inject_response(&q, b, 16, &fatal_seen);
			break;
		}
		case 4:
			process(&q, &fatal_seen);
			break;
		case 5: {   /* both halves for an outstanding command, in input order */
			unsigned slot = next(&in) % depth;
			uint8_t b[16];
			uint16_t st;

			if (!model[slot].posted)
				break;
			st = next(&in);
			st = (uint16_t)(st | next(&in) << 8);
			sp_cqe_bytes(b, model[slot].cid, st, 0);
			b[8] = (uint8_t)(next(&in) % depth);
			if (op & 0x80) {
				inject_response(&q, b, 16, &fatal_seen);
				make_room(&q, &fatal_seen);
				sp_send_done(&peer, slot, 0);
				model[slot].send_seen = 1;
			} else {
				make_room(&q, &fatal_seen);
				sp_send_done(&peer, slot, 0);
				model[slot].send_seen = 1;
				inject_response(&q, b, 16, &fatal_seen);
			}
			break;
		}
		}
	}
	process(&q, &fatal_seen);
	drain(&q, &fatal_seen);
	/* A queue that is not fatal has completed exactly the commands whose halves both came. */
	if (!fatal_seen) {
		for (unsigned s = 0; s < depth; s++)
			FUZZ_ASSERT(!(model[s].posted && model[s].send_seen && model[s].rsp_seen));
	}
	/* FUZZ_VERBOSE=1: what each input did (to check that a seed does what its name says) */
	if (getenv("FUZZ_VERBOSE"))
		fprintf(stderr, "  depth %u: %u completed; %s\n", depth, completions,
			q.fatal ? q.fatal_msg : "queue healthy");
	nvmf_queue_fini(&q);
	return 0;
}
