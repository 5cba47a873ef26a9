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
#include "nvmf_rdma.h"
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

/* DNR, More, CRD and the phase bit are status flags: the command completes normally, its
 * code is SCT/SC alone, and the raw word is there for whoever reports it. */
static void test_status_flags(void)
{
	/* SCT 2 (media) SC 0x81, CRD 2, More, DNR, phase */
	const uint16_t st = (uint16_t)(0x8000 | 0x4000 | (2u << 12) | (2u << 9) | (0x81u << 1) | 1);
	struct nvmf_queue q;
	struct cb_log log;
	struct nvmf_req *r;
	char s[160];

	setup(&q, 8, &log);
	r = post_flush(&q);
	if (r) {
		sp_send_done(&peer, nvmf_req_slot(&q, r), 0);
		sp_respond(&peer, r->cid, st, 0);
		CHECK_EQ(nvmf_queue_process(&q), 1);
		CHECK_EQ(q.fatal, 0);
		CHECK_EQ(log.calls, 1);
		CHECK_EQ(raw_le(log.cqe, 14, 2), st);
		CHECK_EQ(nvme_status_code(st), 0x281);
		CHECK_EQ(nvme_status_dnr(st), 1);
		CHECK_EQ(nvme_status_more(st), 1);
		CHECK_EQ(nvme_status_crd(st), 2);
	}
	/* success with the flags set is still success */
	r = post_flush(&q);
	if (r) {
		sp_send_done(&peer, nvmf_req_slot(&q, r), 0);
		sp_respond(&peer, r->cid, 0xc001, 0);
		CHECK_EQ(nvmf_queue_process(&q), 1);
		CHECK_EQ(nvme_status_code((uint16_t)raw_le(log.cqe, 14, 2)), 0);
	}
	/* every bit set: vendor specific 0xff, still just a status */
	r = post_flush(&q);
	if (r) {
		sp_send_done(&peer, nvmf_req_slot(&q, r), 0);
		sp_respond(&peer, r->cid, 0xffff, 0);
		CHECK_EQ(nvmf_queue_process(&q), 1);
		CHECK_EQ(nvme_status_code((uint16_t)raw_le(log.cqe, 14, 2)), 0x7ff);
	}
	CHECK_EQ(q.fatal, 0);
	nvmf_queue_fini(&q);

	/* reported: the flags are named, the code decoded as without them */
	nvme_status_format_raw(s, sizeof(s), st, 0);
	CHECK_STR(s, "NVMe status 0x2/0x81: Unrecovered Read Error (DNR, More, CRD 2)");
	nvme_status_format_raw(s, sizeof(s), (uint16_t)(0x8000 | (1u << 9) | (0x82u << 1)), 1);
	CHECK_STR(s, "NVMe status 0x1/0x82: Connect Invalid Parameters (DNR)");
	nvme_status_format_raw(s, sizeof(s), 0x4001, 0);
	CHECK_STR(s, "NVMe status 0x0/0x00: Successful Completion (More)");
	nvme_status_format_raw(s, sizeof(s), 0x0101, 0);  /* phase alone is not a flag */
	CHECK_STR(s, "NVMe status 0x0/0x80: LBA Out of Range");
	nvme_status_format_raw(s, sizeof(s), 0xffff, 0);
	CHECK_STR(s, "NVMe status 0x7/0xff: Vendor Specific (DNR, More, CRD 3)");
	/* a short buffer truncates, NUL-terminated */
	memset(s, 'x', sizeof(s));
	nvme_status_format_raw(s, 12, st, 0);
	CHECK_EQ(strlen(s), 11);
	CHECK_EQ(s[12], 'x');
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
	struct nvmf_io_limits lim = { .max_xfer = 4096, .inline_max = 0 };
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

/* ---- Identify data ------------------------------------------------------------------------ */

/* CAP at register offsets: MQES 15:0, TO 31:24, MPSMIN 51:48. */
static uint64_t cap_raw(unsigned mqes, unsigned to, unsigned mpsmin)
{
	uint8_t b[8];

	memset(b, 0, sizeof(b));
	b[0] = (uint8_t)mqes;
	b[1] = (uint8_t)(mqes >> 8);
	b[3] = (uint8_t)to;
	b[6] = (uint8_t)(mpsmin & 0xf);
	return raw_le(b, 0, 8);
}

/* What nvmet answers, at the spec's byte offsets. */
static void id_ctrl_page(uint8_t *p)
{
	memset(p, 0, 4096);
	memcpy(p + 4, "0123456789abcdef    ", 20);     /* SN */
	memcpy(p + 24, "Linux", 5);                    /* MN */
	p[77] = 5;                                     /* MDTS */
	nvmf_put_le16(p + 78, 1);                      /* CNTLID */
	nvmf_put_le32(p + 80, 0x00010300);             /* VER */
	p[111] = 1;                                    /* CNTRLTYPE: I/O controller */
	nvmf_put_le16(p + 514, 128);                   /* MAXCMD */
	nvmf_put_le32(p + 516, 1024);                  /* NN */
	nvmf_put_le32(p + 536, 0x00100005);            /* SGLS */
	nvmf_put_le32(p + 1792, 4 + 4096 / 16);        /* IOCCSZ */
	nvmf_put_le32(p + 1796, 1);                    /* IORCSZ */
}

static int ctrl_check(const uint8_t *p, uint64_t cap, char *why, size_t len)
{
	struct nvme_id_ctrl id;

	memcpy(&id, p, sizeof(id));
	return nvmf_id_ctrl_check(&id, cap, why, len);
}

static void check_ctrl_refused(const uint8_t *p, uint64_t cap, const char *field)
{
	char why[160];

	memset(why, 0, sizeof(why));
	CHECK_EQ(ctrl_check(p, cap, why, sizeof(why)), -EPROTO);
	CHECK(contains(why, field));
	CHECK(strchr(why, '\n') == NULL);
}

static void test_id_ctrl_absurd(void)
{
	static uint8_t p[4096];
	const uint64_t cap = cap_raw(127, 15, 0);
	char why[160];

	id_ctrl_page(p);
	strcpy(why, "stale");
	CHECK_EQ(ctrl_check(p, cap, why, sizeof(why)), 0);
	CHECK_STR(why, "");
	CHECK_EQ(ctrl_check(p, cap, NULL, 0), 0);

	/* MDTS: 2^MDTS pages of 2^(12 + MPSMIN) bytes */
	CHECK_EQ(nvmf_mdts_bytes(0, cap), 0);               /* no limit */
	CHECK_EQ(nvmf_mdts_bytes(5, cap), 128 * 1024);
	CHECK_EQ(nvmf_mdts_bytes(5, cap_raw(127, 15, 2)), 512 * 1024);
	CHECK_EQ(nvmf_mdts_bytes(19, cap), 0x80000000u);   /* the largest that fits 32 bits */
	CHECK_EQ(nvmf_mdts_bytes(20, cap), 0);              /* 4 GiB: no limit that matters */
	CHECK_EQ(nvmf_mdts_bytes(255, cap_raw(127, 15, 15)), 0);
	p[77] = 51;                                         /* 2^63 bytes: huge, not absurd */
	CHECK_EQ(ctrl_check(p, cap, why, sizeof(why)), 0);
	p[77] = 52;                                         /* 2^64 bytes */
	check_ctrl_refused(p, cap, "MDTS 52");
	p[77] = 255;
	check_ctrl_refused(p, cap, "MDTS 255");
	p[77] = 36;                                         /* with 128 MiB pages: 2^63 */
	CHECK_EQ(ctrl_check(p, cap_raw(127, 15, 15), why, sizeof(why)), 0);
	p[77] = 37;
	check_ctrl_refused(p, cap_raw(127, 15, 15), "MDTS 37");
	p[77] = 5;

	/* NN 0: no namespace can be used */
	nvmf_put_le32(p + 516, 0);
	check_ctrl_refused(p, cap, "NN 0");
	nvmf_put_le32(p + 516, 1);
	CHECK_EQ(ctrl_check(p, cap, why, sizeof(why)), 0);

	/* IOCCSZ below the 64-byte command, or past a 32-bit byte count */
	for (uint32_t v = 0; v < 4; v++) {
		char f[16];

		nvmf_put_le32(p + 1792, v);
		snprintf(f, sizeof(f), "IOCCSZ %u", v);
		check_ctrl_refused(p, cap, f);
	}
	nvmf_put_le32(p + 1792, 4);
	CHECK_EQ(ctrl_check(p, cap, why, sizeof(why)), 0);
	nvmf_put_le32(p + 1792, 0x0fffffff);
	CHECK_EQ(ctrl_check(p, cap, why, sizeof(why)), 0);
	nvmf_put_le32(p + 1792, 0x10000000);
	check_ctrl_refused(p, cap, "IOCCSZ 268435456");
	nvmf_put_le32(p + 1792, 0xffffffff);
	check_ctrl_refused(p, cap, "IOCCSZ 4294967295");
	nvmf_put_le32(p + 1792, 260);

	/* CAP.MQES 0: a one-entry queue */
	check_ctrl_refused(p, cap_raw(0, 15, 0), "MQES 0");
	CHECK_EQ(ctrl_check(p, cap_raw(1, 15, 0), why, sizeof(why)), 0);

	/* a tiny reason buffer is cut, still terminated */
	nvmf_put_le32(p + 516, 0);
	memset(why, 'x', sizeof(why));
	CHECK_EQ(ctrl_check(p, cap, why, 5), -EPROTO);
	CHECK_STR(why, "NN 0");
	CHECK_EQ(why[5], 'x');
}

static void id_ns_page(uint8_t *p)
{
	memset(p, 0, 4096);
	nvmf_put_le64(p + 0, 0x200000);             /* NSZE */
	nvmf_put_le64(p + 8, 0x200000);             /* NCAP */
	nvmf_put_le64(p + 16, 0x200000);            /* NUSE */
	p[25] = 1;                                  /* NLBAF: two formats */
	p[26] = 0x01;                               /* FLBAS: format 1 */
	p[128 + 2] = 9;                             /* LBAF0: 512 B */
	p[132 + 2] = 12;                            /* LBAF1: 4 KiB */
}

static int ns_check(const uint8_t *p, uint32_t mdts, char *why, size_t len)
{
	struct nvme_id_ns ns;

	memcpy(&ns, p, sizeof(ns));
	return nvmf_id_ns_check(&ns, mdts, why, len);
}

static void check_ns_refused(const uint8_t *p, uint32_t mdts, int err, const char *field)
{
	char why[160];

	memset(why, 0, sizeof(why));
	CHECK_EQ(ns_check(p, mdts, why, sizeof(why)), err);
	CHECK(contains(why, field));
}

static void test_id_ns_absurd(void)
{
	static uint8_t p[4096];
	char why[160];

	id_ns_page(p);
	strcpy(why, "stale");
	CHECK_EQ(ns_check(p, 0, why, sizeof(why)), 0);
	CHECK_STR(why, "");
	CHECK_EQ(ns_check(p, 128 * 1024, NULL, 0), 0);

	/* LBADS: 9..16 only, whatever nvme_id_ns_lba_size would compute */
	for (unsigned lbads = 0; lbads < 64; lbads++) {
		p[132 + 2] = (uint8_t)lbads;
		if (lbads >= 9 && lbads <= 16) {
			CHECK_EQ(ns_check(p, 0, why, sizeof(why)), 0);
		} else {
			char f[32];

			snprintf(f, sizeof(f), "LBADS %u", lbads);
			check_ns_refused(p, 0, -EPROTO, f);
		}
	}
	p[132 + 2] = 255;
	check_ns_refused(p, 0, -EPROTO, "LBADS 255");
	p[132 + 2] = 12;

	/* NSZE 0: an inactive namespace, its own error */
	nvmf_put_le64(p, 0);
	check_ns_refused(p, 0, -ENODEV, "NSZE 0");
	/* NSZE whose byte size overflows 64 bits: 2^52 4 KiB blocks is 2^64 bytes */
	nvmf_put_le64(p, (1ull << 52) - 1);
	CHECK_EQ(ns_check(p, 0, why, sizeof(why)), 0);
	nvmf_put_le64(p, 1ull << 52);
	check_ns_refused(p, 0, -EPROTO, "NSZE 4503599627370496");
	nvmf_put_le64(p, ~0ull);
	check_ns_refused(p, 0, -EPROTO, "NSZE 18446744073709551615");
	nvmf_put_le64(p, 0x200000);

	/* FLBAS naming a format past NLBAF */
	p[26] = 0x02;
	check_ns_refused(p, 0, -EPROTO, "FLBAS 0x02");
	p[25] = 2;
	p[128 + 8 + 2] = 9;
	CHECK_EQ(ns_check(p, 0, why, sizeof(why)), 0);
	p[25] = 1;
	p[26] = 0x01;
	/* with more than 16 formats, FLBAS bits 6:5 are index bits 5:4: 0x61 -> 49 */
	p[25] = 20;
	p[26] = 0x61;
	check_ns_refused(p, 0, -EPROTO, "LBA format 49 of 21");
	p[25] = 1;
	p[26] = 0x01;
	/* NLBAF past the 64 formats there is room for */
	p[25] = 64;
	check_ns_refused(p, 0, -EPROTO, "NLBAF 64");
	p[25] = 255;
	check_ns_refused(p, 0, -EPROTO, "NLBAF 255");
	p[25] = 1;

	/* a block no command can carry */
	check_ns_refused(p, 2048, -EPROTO, "MDTS");
	CHECK_EQ(ns_check(p, 4096, why, sizeof(why)), 0);
	CHECK_EQ(ns_check(p, 0, why, sizeof(why)), 0);
}

/* ---- CSTS: a controller that never gets ready, or fails ------------------------------------ */

struct csts_script {
	const uint32_t *vals;
	unsigned        n;      /* the last value repeats */
	unsigned        reads;
	int             fail_at; /* read index that fails with err (-1: never) */
	int             err;
};

static int csts_read(void *ctx, uint32_t *csts)
{
	struct csts_script *s = ctx;
	unsigned i = s->reads++;

	if (s->fail_at >= 0 && i == (unsigned)s->fail_at)
		return s->err;
	*csts = s->vals[i < s->n ? i : s->n - 1];
	return 0;
}

static int csts_run(const uint32_t *vals, unsigned n, uint32_t mask, uint32_t want,
		    unsigned timeout_ms, unsigned *reads, uint32_t *last, uint64_t *ms)
{
	struct csts_script s = { vals, n, 0, -1, 0 };
	uint64_t t0 = nvmf_now_ms();
	int rc = nvmf_csts_wait(csts_read, &s, mask, want, timeout_ms, last);

	*ms = nvmf_now_ms() - t0;
	*reads = s.reads;
	return rc;
}

static void test_csts(void)
{
	static const uint32_t never[] = { 0 };
	static const uint32_t ready_late[] = { 0, 0, 0, 1 };
	static const uint32_t cfs[] = { 0x2 };
	static const uint32_t cfs_rdy[] = { 0x3 };
	static const uint32_t ones[] = { 0xffffffff };
	static const uint32_t cfs_late[] = { 0, 0, 0, 0, 0x2 };
	static const uint32_t shutdown[] = { 0x5, 0x5, 0x9 };
	unsigned reads;
	uint32_t last;
	uint64_t ms;

	/* never ready: bounded by the timeout, polled meanwhile */
	last = 0xdead;
	CHECK_EQ(csts_run(never, 1, 0x1, 0x1, 40, &reads, &last, &ms), -ETIMEDOUT);
	CHECK(ms >= 40);
	CHECK(ms < 5000);
	CHECK(reads > 2);
	CHECK_EQ(last, 0);

	CHECK_EQ(csts_run(ready_late, 4, 0x1, 0x1, 5000, &reads, &last, &ms), 0);
	CHECK_EQ(reads, 4);
	CHECK_EQ(last, 1);

	/* CFS ends the wait at once, also when RDY is set with it */
	CHECK_EQ(csts_run(cfs, 1, 0x1, 0x1, 5000, &reads, &last, &ms), -EIO);
	CHECK_EQ(reads, 1);
	CHECK_EQ(csts_run(cfs_rdy, 1, 0x1, 0x1, 5000, &reads, &last, &ms), -EIO);
	CHECK_EQ(reads, 1);
	CHECK_EQ(last, 0x3);
	CHECK_EQ(csts_run(ones, 1, 0x1, 0x1, 5000, &reads, &last, &ms), -EIO);
	CHECK_EQ(csts_run(cfs_late, 5, 0x1, 0x1, 10000, &reads, &last, &ms), -EIO);
	CHECK_EQ(reads, 5);
	CHECK(ms < 5000);
	/* the shutdown wait too: SHST complete with CFS is not a clean shutdown */
	CHECK_EQ(csts_run(cfs_rdy, 1, 0xc, 0x0, 5000, &reads, &last, &ms), -EIO);
	CHECK_EQ(csts_run(shutdown, 3, 0xc, 0x8, 5000, &reads, &last, &ms), 0);
	CHECK_EQ(reads, 3);

	/* the read failing (Property Get error, queue timeout) ends the wait with its error */
	{
		struct csts_script s = { never, 1, 0, 2, -ECONNRESET };

		CHECK_EQ(nvmf_csts_wait(csts_read, &s, 0x1, 0x1, 5000, NULL), -ECONNRESET);
		CHECK_EQ(s.reads, 3);
	}
}

/* ---- RDMA CM private data ------------------------------------------------------------------ */

/* An exact-size heap copy, so ASan sees any read past the private data. */
static uint8_t *dup_exact(const uint8_t *b, size_t n)
{
	uint8_t *p = malloc(n ? n : 1);

	if (p && n)
		memcpy(p, b, n);
	return p;
}

static void test_cm_accept(void)
{
	uint8_t raw[196];
	uint16_t crq;
	char why[160];

	/* nothing: the host's own sizes stand */
	crq = 7;
	CHECK_EQ(nvmf_rdma_cm_accept_parse(NULL, 0, &crq, why, sizeof(why)), 0);
	CHECK_EQ(crq, 0);
	CHECK_EQ(nvmf_rdma_cm_accept_parse(NULL, 32, &crq, why, sizeof(why)), 0);
	CHECK_EQ(crq, 0);

	/* truncated: 1..3 bytes */
	memset(raw, 0, sizeof(raw));
	raw[2] = 0x20;
	for (size_t n = 1; n < 4; n++) {
		uint8_t *p = dup_exact(raw, n);
		char want[32];

		crq = 7;
		CHECK_EQ(nvmf_rdma_cm_accept_parse(p, n, &crq, why, sizeof(why)), -EPROTO);
		CHECK_EQ(crq, 0);
		snprintf(want, sizeof(want), "%zu bytes", n);
		CHECK(contains(why, want));
		free(p);
	}
	/* 4 bytes, the spec's 32, and IB CM's zero-padded 196 */
	{
		static const size_t lens[] = { 4, 32, 196 };

		for (unsigned i = 0; i < 3; i++) {
			uint8_t *p;

			raw[0] = 0;
			raw[1] = 0;
			raw[2] = 0x80;                  /* CRQSIZE 0x0180 */
			raw[3] = 0x01;
			p = dup_exact(raw, lens[i]);
			CHECK_EQ(nvmf_rdma_cm_accept_parse(p, lens[i], &crq, why, sizeof(why)), 0);
			CHECK_EQ(crq, 0x180);
			free(p);
		}
	}
	/* all zeros (what a target sending nothing looks like over IB CM): no information */
	memset(raw, 0, sizeof(raw));
	CHECK_EQ(nvmf_rdma_cm_accept_parse(raw, sizeof(raw), &crq, why, sizeof(why)), 0);
	CHECK_EQ(crq, 0);
	/* garbled: a record format this host cannot read */
	raw[0] = 1;
	raw[2] = 0x10;
	crq = 7;
	CHECK_EQ(nvmf_rdma_cm_accept_parse(raw, 32, &crq, why, sizeof(why)), -EPROTO);
	CHECK(contains(why, "RECFMT 1"));
	CHECK_EQ(crq, 0);
	memset(raw, 0xff, 32);
	CHECK_EQ(nvmf_rdma_cm_accept_parse(raw, 32, &crq, why, sizeof(why)), -EPROTO);
	CHECK(contains(why, "RECFMT 65535"));
	CHECK_EQ(nvmf_rdma_cm_accept_parse(raw, 32, &crq, NULL, 0), -EPROTO);
}

static void test_cm_reject(void)
{
	uint8_t raw[255];
	char s[160];

	nvmf_reject_describe(NULL, 0, s, sizeof(s));
	CHECK(contains(s, "no NVMe/RDMA reject data"));
	nvmf_reject_describe(NULL, 148, s, sizeof(s));
	CHECK(contains(s, "no NVMe/RDMA reject data"));
	memset(raw, 0, sizeof(raw));
	raw[2] = 6;
	for (uint8_t n = 0; n < 4; n++) {
		uint8_t *p = dup_exact(raw, n);

		nvmf_reject_describe(p, n, s, sizeof(s));
		CHECK(contains(s, "no NVMe/RDMA reject data"));
		free(p);
	}
	{
		uint8_t *p = dup_exact(raw, 4);

		nvmf_reject_describe(p, 4, s, sizeof(s));
		CHECK_STR(s, "NVMe/RDMA reject: no resources (recfmt 0, sts 6)");
		free(p);
	}
	/* IB CM's 148-byte REJ private data, unknown status */
	raw[2] = 0x34;
	raw[3] = 0x12;
	nvmf_reject_describe(raw, 148, s, sizeof(s));
	CHECK_STR(s, "NVMe/RDMA reject: unknown reject status (recfmt 0, sts 4660)");
	/* garbled record format: the status is not named as if it were format 0 */
	raw[0] = 9;
	raw[2] = 6;
	raw[3] = 0;
	nvmf_reject_describe(raw, 255, s, sizeof(s));
	CHECK_STR(s, "NVMe/RDMA reject in unknown record format 9 (sts 6)");
	/* the caller's buffer is never overrun */
	{
		char *small = malloc(8);

		if (small) {
			nvmf_reject_describe(raw, 4, small, 8);
			CHECK_EQ(strlen(small), 7);
			free(small);
		}
		nvmf_reject_describe(raw, 4, s, 0);
	}
}

int main(void)
{
	/* nvmf_queue_exec and nvmf_csts_wait poll until a deadline: never hang the suite */
	alarm(120);
	test_sq_head_out_of_range();
	test_status_flags();
	test_response_before_send_exec();
	test_response_before_send_io();
	test_id_ctrl_absurd();
	test_id_ns_absurd();
	test_csts();
	test_cm_accept();
	test_cm_reject();
	return check_done("test_hostile");
}
