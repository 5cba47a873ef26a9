/* test_hostile.c - what a target sends is input (issue #8): responses, Identify data, CSTS and
 * RDMA CM private data that no well-behaved target sends must end in a clean error (negative
 * errno plus a one-line reason), never in undefined behaviour or a silent success.
 *
 * Queue cases run behind the transport seam with the scripted peer; Identify pages, CQEs and
 * private data are written as raw bytes at spec offsets, never through the structs under test.
 * (Unknown, stale and duplicate command IDs and short receives are in test_queue.c.) */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvmf_io.h"
#include "nvmf_lane.h"
#include "nvmf_queue.h"
#include "nvmf_spec.h"

#include "check.h"
#include "scripted_peer.h"

static struct scripted_peer peer;

static int contains(const char *hay, const char *needle)
{
	int ok = hay && strstr(hay, needle) != NULL;

	if (!ok)
		fprintf(stderr, "  expected \"%s\" in \"%s\"\n", needle, hay ? hay : "(null)");
	return ok;
}

/* ---- queue: responses -------------------------------------------------------------------- */

struct cb_log {
	unsigned calls;
	uint8_t  cqe[16];
};

static void record_complete(struct nvmf_queue *q, struct nvmf_req *req, void *arg)
{
	struct cb_log *log = arg;

	log->calls++;
	memcpy(log->cqe, &req->cqe, 16);
	nvmf_queue_put(q, req);
}

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

/* One Flush posted; NULL (and a failed check) if no slot. */
static struct nvmf_req *post_flush(struct nvmf_queue *q)
{
	struct nvmf_req *r = nvmf_queue_get(q, NULL);

	CHECK(r != NULL);
	if (!r)
		return NULL;
	nvme_cmd_flush(nvmf_req_sqe(q, r), 1);
	nvmf_queue_stage(q, r, NULL, 0, 0);
	CHECK_EQ(nvmf_queue_flush(q), 1);
	return r;
}

/* A response capsule at spec offsets: result 0..7, SQHD 8..9, SQID 10..11, CID 12..13,
 * status 14..15. */
static void cqe_raw(uint8_t b[16], uint16_t cid, uint16_t status, uint16_t sqhd)
{
	sp_cqe_bytes(b, cid, status, 0);
	b[8] = (uint8_t)sqhd;
	b[9] = (uint8_t)(sqhd >> 8);
}

/* Respond to r with the given SQHD after its SEND completed; the process() result. */
static int answer_with_sqhd(struct nvmf_queue *q, struct nvmf_req *r, uint16_t sqhd)
{
	uint8_t b[16];
	int idx = sp_posted_buf(&peer);

	CHECK(idx >= 0);
	if (idx < 0)
		return 0;
	sp_send_done(&peer, nvmf_req_slot(q, r), 0);
	cqe_raw(b, r->cid, 0, sqhd);
	sp_recv_raw_on(&peer, (unsigned)idx, b, 16, 0);
	return nvmf_queue_process(q);
}

static void test_sq_head_out_of_range(void)
{
	static const uint16_t bad[] = { 8, 9, 0x100, 0x7fff, 0xffff };
	struct nvmf_queue q;
	struct cb_log log;
	struct nvmf_req *r;

	/* every entry of an 8-entry queue is a valid head */
	setup(&q, 8, &log);
	for (uint16_t h = 0; h < 8; h++) {
		r = post_flush(&q);
		if (!r)
			break;
		CHECK_EQ(answer_with_sqhd(&q, r, h), 1);
	}
	CHECK_EQ(log.calls, 8);
	CHECK_EQ(q.fatal, 0);
	nvmf_queue_fini(&q);

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[32];

		setup(&q, 8, &log);
		r = post_flush(&q);
		if (!r) {
			nvmf_queue_fini(&q);
			return;
		}
		CHECK_EQ(answer_with_sqhd(&q, r, bad[i]), -EPROTO);
		CHECK_EQ(q.fatal, -EPROTO);
		snprintf(want, sizeof(want), "SQ head %u", bad[i]);
		CHECK(contains(q.fatal_msg, want));
		CHECK(contains(q.fatal_msg, "has 8 entries"));
		CHECK_EQ(log.calls, 0);                 /* the command did not complete */
		CHECK_EQ(r->state, NVMF_REQ_INFLIGHT);
		CHECK_EQ(nvmf_queue_process(&q), -EPROTO);
		CHECK_EQ(nvmf_queue_available(&q), 0);
		nvmf_queue_fini(&q);
	}
}

/* The rule: a command completes only after BOTH its SEND completion and its response.  A
 * response that arrives first must not let nvmf_queue_exec return (the capsule and its data
 * may still be in the HCA's hands), however long the SEND completion stays away. */
static void test_response_before_send_exec(void)
{
	struct nvmf_queue q;
	struct nvmf_req *r;
	struct nvme_cqe cqe;

	setup(&q, 8, NULL);
	peer.auto_respond = 1;       /* the target answers at once ... */
	peer.auto_send_ok = 0;       /* ... the SEND completion never comes */
	r = nvmf_queue_get(&q, NULL);
	CHECK(r != NULL);
	if (r) {
		nvme_cmd_flush(nvmf_req_sqe(&q, r), 1);
		memset(&cqe, 0xa5, sizeof(cqe));
		CHECK_EQ(nvmf_queue_exec(&q, r, 30, &cqe), -ETIMEDOUT);
		CHECK_EQ(raw_le(&cqe, 12, 2), 0xa5a5);   /* no CQE handed out */
		CHECK_EQ(r->state, NVMF_REQ_INFLIGHT);
		CHECK(r->done & NVMF_REQ_RSP_DONE);      /* the response was seen and held */
		CHECK(!(r->done & NVMF_REQ_SEND_DONE));
		CHECK(contains(q.fatal_msg, "send did not complete within 30 ms"));
	}
	nvmf_queue_fini(&q);
}

struct io_done_log {
	unsigned calls;
	uint16_t status;
};

static void io_done(struct nvmf_io *io, void *arg)
{
	struct io_done_log *l = arg;

	l->calls++;
	l->status = io->status;
}

/* The same rule through a user I/O split into three commands: every response first, then
 * the SEND completions one by one; the I/O is done with the last of them, once. */
static void test_response_before_send_io(void)
{
	static uint8_t buf[3 * 4096];
	struct nvmf_io_limits lim = { .max_xfer = 4096, .inline_max = 0, .dsm_rkey = 0 };
	struct io_done_log dl = { 0, 0 };
	struct nvmf_io_completer cpl = { io_done, &dl };
	struct nvmf_io io;
	struct nvmf_queue q;

	setup(&q, 8, NULL);
	nvmf_queue_set_complete(&q, nvmf_io_complete_req, &cpl);
	memset(&io, 0, sizeof(io));
	io.op = NVMF_IO_READ;
	io.lba_shift = 12;
	io.nsid = 1;
	io.nlb = 3;
	io.buf = buf;
	CHECK_EQ(nvmf_io_stage(&q, &lim, &io), 0);
	CHECK_EQ(nvmf_queue_flush(&q), 3);
	CHECK_EQ(peer.nr_sends, 3);
	if (peer.nr_sends != 3)
		goto out;
	for (unsigned i = 0; i < 3; i++)
		sp_respond(&peer, sp_send_cid(&peer, i),
			   i == 1 ? sp_status(NVME_SCT_MEDIA, 0x81, 1) : 0, 0);
	CHECK_EQ(nvmf_queue_process(&q), 0);
	CHECK_EQ(dl.calls, 0);
	for (unsigned i = 0; i < 3; i++) {
		sp_send_done(&peer, peer.sends[i].slot, 0);
		CHECK_EQ(nvmf_queue_process(&q), 1);
		CHECK_EQ(dl.calls, i == 2 ? 1 : 0);
	}
	CHECK_EQ(dl.status, 0x281);
	CHECK_EQ(q.fatal, 0);
	CHECK_EQ(nvmf_queue_available(&q), 7);
out:
	nvmf_queue_fini(&q);
}

int main(void)
{
	/* nvmf_queue_exec polls until a deadline: never hang the suite */
	alarm(120);
	test_sq_head_out_of_range();
	test_response_before_send_exec();
	test_response_before_send_io();
	return check_done("test_hostile");
}
