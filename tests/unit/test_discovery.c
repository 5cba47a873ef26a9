/* test_discovery.c - the discovery service.
 *
 * nvmf_discover_via against scripted discovery controllers (no fabric): the log read whole
 * while its GENCTR holds still, re-read when it moves (between header and entries, or between
 * two Get Log Page commands inside an entry), given up after NVMF_DISCOVERY_TRIES reads, a
 * short log refused, a referral back to the same controller followed once.  The logs are raw
 * bytes at the offsets of NVMe-oF 1.1 5.3.
 *
 * nvmf_disc_paths: the job's transport's entries only (RDMA, or TCP), the others counted,
 * duplicates once, the one subsystem taken when none is named, several refused naming them.
 * nvmf_discover_via over TCP: the connection asks TCP; referrals over that transport are
 * followed, over another listed only. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "nvmf_discovery.h"

#include "check.h"

static struct nvmf_disc_entry ent(uint8_t trtype, uint8_t subtype, const char *nqn,
				  const char *addr, const char *port)
{
	struct nvmf_disc_entry e;

	memset(&e, 0, sizeof(e));
	e.trtype = trtype;
	e.subtype = subtype;
	snprintf(e.subnqn, sizeof(e.subnqn), "%s", nqn);
	snprintf(e.traddr, sizeof(e.traddr), "%s", addr);
	snprintf(e.trsvcid, sizeof(e.trsvcid), "%s", port);
	return e;
}

/* ---- scripted discovery controllers behind struct nvmf_disc_source ---- */

#define DC_MAX_GENS 6
#define DC_MAX_CMDS 64
#define DC_LOG_MAX  (1024 * 6)

struct dc_call {
	uint64_t offset;
	size_t   len;
};

struct dc {
	const char *traddr, *trsvcid;          /* where it listens */
	uint8_t     log[DC_MAX_GENS][DC_LOG_MAX]; /* its log in each generation, raw bytes */
	size_t      sent[DC_MAX_GENS];         /* bytes of it a read returns; zeros past them */
	/* The generation current at each Get Log Page command (the last one after the table).  A
	 * read goes out in commands of `page` bytes (0: one command), as the lane pages by its
	 * buffer and MDTS, so the log can move on between two commands of one read. */
	unsigned    gen_at[DC_MAX_CMDS];
	unsigned    ngen_at;
	size_t      page;
	unsigned    cmds, opens, closes;
	struct dc_call calls[DC_MAX_CMDS];     /* nvmf_disc_source reads, in order */
	unsigned    ncalls;
	struct nvmf_lane_opts seen;            /* the last open's options */
	char        seen_traddr[64], seen_trsvcid[40];
};

static struct dc *fabric[4];
static unsigned nfabric;
static unsigned dc_overflow; /* the script was too small: a test bug */

static void put16(uint8_t *b, size_t off, uint16_t v) { b[off] = (uint8_t)v; b[off + 1] = (uint8_t)(v >> 8); }
static void put64(uint8_t *b, size_t off, uint64_t v)
{
	for (unsigned i = 0; i < 8; i++)
		b[off + i] = (uint8_t)(v >> (8 * i));
}

/* One 1024-byte entry at e: TRTYPE 0, ADRFAM 1, SUBTYPE 2, TRSVCID 32, SUBNQN 256, TRADDR 512. */
static void raw_entry(uint8_t *e, uint8_t trtype, uint8_t subtype, const char *nqn,
		      const char *addr, const char *port)
{
	memset(e, 0, 1024);
	e[0] = trtype ? trtype : NVMF_TRTYPE_RDMA;
	e[1] = NVMF_ADRFAM_IPV4;
	e[2] = subtype;
	put16(e, 6, 0xffff);               /* CNTLID: dynamic */
	memcpy(e + 32, port, strlen(port));
	memcpy(e + 256, nqn, strlen(nqn));
	memcpy(e + 512, addr, strlen(addr));
}

struct raw_ent {
	uint8_t subtype;
	const char *nqn, *addr, *port;
	uint8_t trtype;                    /* 0: RDMA */
};

/* Generation g of d's log: GENCTR, NUMREC, RECFMT 0 at 0/8/16, then `have` of the entries (a
 * log with have < numrec is short). */
static void dc_log(struct dc *d, unsigned g, uint64_t genctr, uint64_t numrec,
		   const struct raw_ent *e, unsigned have)
{
	uint8_t *b = d->log[g];

	memset(b, 0, DC_LOG_MAX);
	put64(b, 0, genctr);
	put64(b, 8, numrec);
	put16(b, 16, 0);
	for (unsigned i = 0; i < have; i++)
		raw_entry(b + 1024 + 1024 * i, e[i].trtype, e[i].subtype, e[i].nqn, e[i].addr,
			  e[i].port);
	d->sent[g] = 1024 + 1024 * (size_t)have;
}

static void dc_reset(struct dc *d, const char *traddr, const char *trsvcid)
{
	memset(d, 0, sizeof(*d));
	d->traddr = traddr;
	d->trsvcid = trsvcid;
}

static unsigned dc_gen(const struct dc *d, unsigned cmd)
{
	if (!d->ngen_at)
		return 0;
	return d->gen_at[cmd < d->ngen_at ? cmd : d->ngen_at - 1];
}

static int dc_open(void *ctx, const struct nvmf_lane_opts *o, void **conn, char *why,
		   size_t whylen)
{
	(void)ctx;
	for (unsigned i = 0; i < nfabric; i++) {
		struct dc *d = fabric[i];

		if (strcmp(d->traddr, o->traddr) || strcmp(d->trsvcid, o->trsvcid))
			continue;
		d->opens++;
		d->seen = *o;
		snprintf(d->seen_traddr, sizeof(d->seen_traddr), "%s", o->traddr);
		snprintf(d->seen_trsvcid, sizeof(d->seen_trsvcid), "%s", o->trsvcid);
		*conn = d;
		return 0;
	}
	snprintf(why, whylen, "connection refused");
	return -ECONNREFUSED;
}

static int dc_get_log(void *conn, uint64_t offset, void *buf, size_t len)
{
	struct dc *d = conn;
	uint8_t *out = buf;
	size_t page = d->page ? d->page : len;

	if (d->ncalls < DC_MAX_CMDS)
		d->calls[d->ncalls++] = (struct dc_call){ offset, len };
	else
		dc_overflow++;
	for (size_t done = 0; done < len; done += page) {
		unsigned g = dc_gen(d, d->cmds++);

		for (size_t i = done; i < len && i < done + page; i++) {
			uint64_t at = offset + i;

			out[i] = at < d->sent[g] ? d->log[g][at] : 0;
		}
	}
	return 0;
}

static const char *dc_err(void *conn)
{
	(void)conn;
	return "no error";
}

static void dc_close(void *conn)
{
	((struct dc *)conn)->closes++;
}

static const struct nvmf_disc_source dc_source = {
	.open = dc_open, .get_log = dc_get_log, .err = dc_err, .close = dc_close,
};

static struct dc dc1;

static int discover(const char *traddr, struct nvmf_disc_entry **e, unsigned *nr,
		    uint64_t *gen, char *err, size_t errlen)
{
	struct nvmf_lane_opts o;

	memset(&o, 0, sizeof(o));
	o.traddr = traddr;
	o.subnqn = "nqn.not-used";
	o.kato_ms = 5000;
	o.io_queues = 4;
	return nvmf_discover_via(&dc_source, &o, e, nr, gen, err, errlen);
}

/* A log read in one go: header, entries, header (offsets 0, 1024, 0), over an admin-only
 * connection to the discovery NQN at port 8009. */
static void test_discover_stable(void)
{
	static const struct raw_ent e[] = {
		{ NVMF_SUBTYPE_NVME, "nqn.a", "10.0.0.1", "4420", 0 },
		{ NVMF_SUBTYPE_NVME, "nqn.a", "10.0.0.2", "4421", 0 },
	};
	struct nvmf_disc_entry *got;
	unsigned nr;
	uint64_t gen;
	char err[256];
	int rc;

	dc_reset(&dc1, "10.0.0.1", "8009");
	dc_log(&dc1, 0, 5, 2, e, 2);
	fabric[0] = &dc1;
	nfabric = 1;
	rc = discover("10.0.0.1", &got, &nr, &gen, err, sizeof(err));
	CHECK_EQ(rc, 0);
	CHECK_EQ(nr, 2);
	CHECK_EQ(gen, 5);
	CHECK_EQ(dc1.opens, 1);
	CHECK_EQ(dc1.closes, 1);
	CHECK_STR(dc1.seen.subnqn, NVMF_DISCOVERY_NQN);
	CHECK_STR(dc1.seen_trsvcid, "8009");
	CHECK_EQ(dc1.seen.no_io_queue, 1);
	CHECK_EQ(dc1.seen.kato_ms, 0);
	CHECK_EQ(dc1.seen.io_queues, 0);
	CHECK_EQ(dc1.ncalls, 3);
	CHECK_EQ(dc1.calls[0].offset, 0);
	CHECK_EQ(dc1.calls[0].len, 1024);
	CHECK_EQ(dc1.calls[1].offset, 1024);
	CHECK_EQ(dc1.calls[1].len, 2048);
	CHECK_EQ(dc1.calls[2].offset, 0);
	CHECK_EQ(dc1.calls[2].len, 1024);
	if (rc == 0 && nr == 2) {
		CHECK_STR(got[1].subnqn, "nqn.a");
		CHECK_STR(got[1].traddr, "10.0.0.2");
		CHECK_STR(got[1].trsvcid, "4421");
		CHECK_EQ(got[1].from_referral, 0);
	}
	free(got);
}

/* The log moves on (GENCTR 7 -> 8, one more entry) after its header was read: the entries read
 * is the new log's first two of three, and the header read after them says so.  The whole log
 * is read again and the new one returned, not two of its entries under the old GENCTR. */
static void test_discover_changes_after_header(void)
{
	static const struct raw_ent old[] = {
		{ NVMF_SUBTYPE_NVME, "nqn.old", "10.0.0.1", "4420", 0 },
		{ NVMF_SUBTYPE_NVME, "nqn.old", "10.0.0.2", "4420", 0 },
	};
	static const struct raw_ent new[] = {
		{ NVMF_SUBTYPE_NVME, "nqn.new", "10.0.0.1", "4420", 0 },
		{ NVMF_SUBTYPE_NVME, "nqn.new", "10.0.0.2", "4420", 0 },
		{ NVMF_SUBTYPE_NVME, "nqn.new", "10.0.0.3", "4420", 0 },
	};
	struct nvmf_disc_entry *got;
	unsigned nr;
	uint64_t gen;
	char err[256];
	int rc;

	dc_reset(&dc1, "10.0.0.1", "8009");
	dc_log(&dc1, 0, 7, 2, old, 2);
	dc_log(&dc1, 1, 8, 3, new, 3);
	dc1.gen_at[0] = 0;                 /* header: GENCTR 7, NUMREC 2 */
	dc1.gen_at[1] = 1;                 /* from the entries on: GENCTR 8 */
	dc1.ngen_at = 2;
	fabric[0] = &dc1;
	nfabric = 1;
	rc = discover("10.0.0.1", &got, &nr, &gen, err, sizeof(err));
	CHECK_EQ(rc, 0);
	CHECK_EQ(gen, 8);
	CHECK_EQ(nr, 3);
	CHECK_EQ(dc1.ncalls, 6);           /* two whole reads */
	CHECK_EQ(dc1.calls[1].len, 2048);
	CHECK_EQ(dc1.calls[4].offset, 1024);
	CHECK_EQ(dc1.calls[4].len, 3072);  /* the second, by the new NUMREC */
	for (unsigned i = 0; rc == 0 && i < nr; i++)
		CHECK_STR(got[i].subnqn, "nqn.new");
	if (rc == 0 && nr == 3)
		CHECK_STR(got[2].traddr, "10.0.0.3");
	free(got);
}

/* Commands of 1536 bytes put a boundary 512 bytes into entry 1, between its SUBNQN and its
 * TRADDR, and the log moves on there (entry 1 goes from nqn.a at 10.0.0.2 to nqn.b at
 * 10.0.0.3): the buffer then holds nqn.a at 10.0.0.3, a path no generation listed.  That read
 * is dropped and the new log returned whole. */
static void test_discover_changes_inside_entry(void)
{
	static const struct raw_ent g0[] = {
		{ NVMF_SUBTYPE_NVME, "nqn.a", "10.0.0.1", "4420", 0 },
		{ NVMF_SUBTYPE_NVME, "nqn.a", "10.0.0.2", "4420", 0 },
	};
	static const struct raw_ent g1[] = {
		{ NVMF_SUBTYPE_NVME, "nqn.a", "10.0.0.1", "4420", 0 },
		{ NVMF_SUBTYPE_NVME, "nqn.b", "10.0.0.3", "4420", 0 },
	};
	struct nvmf_disc_entry *got;
	struct nvmf_addr p[4];
	char nqn[257], err[256];
	unsigned nr, n, other;
	uint64_t gen;
	int rc;

	dc_reset(&dc1, "10.0.0.1", "8009");
	dc_log(&dc1, 0, 1, 2, g0, 2);
	dc_log(&dc1, 1, 2, 2, g1, 2);
	dc1.page = 1536;
	/* commands: header, entries [1024, 2560), entries [2560, 3072), header ... */
	dc1.gen_at[0] = 0;
	dc1.gen_at[1] = 0;
	dc1.gen_at[2] = 1;
	dc1.ngen_at = 3;
	fabric[0] = &dc1;
	nfabric = 1;
	rc = discover("10.0.0.1", &got, &nr, &gen, err, sizeof(err));
	CHECK_EQ(rc, 0);
	CHECK_EQ(gen, 2);
	CHECK_EQ(nr, 2);
	CHECK_EQ(dc1.ncalls, 6);
	if (rc == 0 && nr == 2) {
		CHECK_STR(got[1].subnqn, "nqn.b");
		CHECK_STR(got[1].traddr, "10.0.0.3");
	}
	/* and so nqn.a has one path, not one at 10.0.0.3 */
	if (rc == 0) {
		rc = nvmf_disc_paths(got, nr, 0, "nqn.a", p, 4, &n, nqn, sizeof(nqn), &other, err,
				     sizeof(err));
		CHECK_EQ(rc, 0);
		CHECK_EQ(n, 1);
		CHECK_STR(p[0].traddr, "10.0.0.1");
	}
	free(got);
}

/* Try t reads header (command 3t), entries (3t + 1), header (3t + 2); the log moving on at
 * each 3t + 2 changes every try.  settle_last: it stops moving for the last try allowed. */
static void script_moving(struct dc *d, int settle_last)
{
	static const char *addr[] = { "10.0.1.1", "10.0.1.2", "10.0.1.3", "10.0.1.4",
				      "10.0.1.5", "10.0.1.6" };
	unsigned cmds = 3 * NVMF_DISCOVERY_TRIES;

	for (unsigned g = 0; g <= NVMF_DISCOVERY_TRIES; g++) {
		struct raw_ent e = { NVMF_SUBTYPE_NVME, "nqn.a", addr[g], "4420", 0 };

		dc_log(d, g, 100 + g, 1, &e, 1);
	}
	for (unsigned k = 0; k < cmds; k++)
		d->gen_at[k] = (k + 1) / 3;
	if (settle_last)
		d->gen_at[cmds - 1] = d->gen_at[cmds - 2];
	/* past the table the log holds still: a reader with no bound would get it on its next
	 * try and return 0, so the test fails instead of hanging */
	d->ngen_at = cmds;
}

_Static_assert(NVMF_DISCOVERY_TRIES + 1 <= DC_MAX_GENS && 3 * NVMF_DISCOVERY_TRIES <= DC_MAX_CMDS,
	       "the script has room for every try");

static void test_discover_never_settles(void)
{
	struct nvmf_disc_entry *got = (void *)1;
	unsigned nr = 9;
	uint64_t gen = 9;
	char err[256];
	int rc;

	dc_reset(&dc1, "10.0.0.1", "8009");
	script_moving(&dc1, 0);
	fabric[0] = &dc1;
	nfabric = 1;
	rc = discover("10.0.0.1", &got, &nr, &gen, err, sizeof(err));
	CHECK_EQ(rc, -EAGAIN);
	CHECK_EQ(dc1.ncalls, 3 * NVMF_DISCOVERY_TRIES);
	CHECK_EQ(dc1.opens, 1);
	CHECK_EQ(dc1.closes, 1);
	CHECK(got == NULL);
	CHECK_EQ(nr, 0);
	CHECK_EQ(gen, 0);
	CHECK_STR(err, "discovery at 10.0.0.1:8009: the discovery log changed (GENCTR) during "
		  "each of 4 reads");
}

/* It holds still for the last try allowed: that log (the fourth generation) is returned. */
static void test_discover_settles_on_last_try(void)
{
	struct nvmf_disc_entry *got;
	unsigned nr;
	uint64_t gen;
	char err[256];
	int rc;

	dc_reset(&dc1, "10.0.0.1", "8009");
	script_moving(&dc1, 1);
	fabric[0] = &dc1;
	nfabric = 1;
	rc = discover("10.0.0.1", &got, &nr, &gen, err, sizeof(err));
	CHECK_EQ(rc, 0);
	CHECK_EQ(dc1.ncalls, 3 * NVMF_DISCOVERY_TRIES);
	CHECK_EQ(gen, 100 + NVMF_DISCOVERY_TRIES - 1);
	CHECK_EQ(nr, 1);
	if (rc == 0 && nr == 1)
		CHECK_STR(got[0].traddr, "10.0.1.4");
	free(got);
}

/* A header re-read that no longer parses (NUMREC past what this host reads) is a change: the
 * next read's header is refused, named. */
static void test_discover_header_turns_bad(void)
{
	static const struct raw_ent e[] = { { NVMF_SUBTYPE_NVME, "nqn.a", "10.0.0.1", "4420", 0 } };
	struct nvmf_disc_entry *got;
	unsigned nr;
	uint64_t gen;
	char err[256];
	int rc;

	dc_reset(&dc1, "10.0.0.1", "8009");
	dc_log(&dc1, 0, 1, 1, e, 1);
	dc_log(&dc1, 1, 2, 5000, e, 1);
	dc1.gen_at[0] = 0;
	dc1.gen_at[1] = 0;
	dc1.gen_at[2] = 1;
	dc1.ngen_at = 3;
	fabric[0] = &dc1;
	nfabric = 1;
	rc = discover("10.0.0.1", &got, &nr, &gen, err, sizeof(err));
	CHECK_EQ(rc, -EOVERFLOW);
	CHECK_EQ(dc1.ncalls, 4);
	CHECK(got == NULL);
	CHECK_STR(err, "discovery at 10.0.0.1:8009: discovery log NUMREC 5000 (more than the "
		  "4096 records this host reads)");
}

/* NUMREC 3 with two entries' bytes sent: the third is the zeros a short transfer leaves, and
 * is refused by its (1-based) number rather than returned as an entry. */
static void test_discover_short_log(void)
{
	static const struct raw_ent e[] = {
		{ NVMF_SUBTYPE_NVME, "nqn.a", "10.0.0.1", "4420", 0 },
		{ NVMF_SUBTYPE_NVME, "nqn.a", "10.0.0.2", "4420", 0 },
	};
	struct nvmf_disc_entry *got;
	unsigned nr;
	uint64_t gen;
	char err[256];
	int rc;

	dc_reset(&dc1, "10.0.0.1", "8009");
	dc_log(&dc1, 0, 3, 3, e, 2);
	fabric[0] = &dc1;
	nfabric = 1;
	rc = discover("10.0.0.1", &got, &nr, &gen, err, sizeof(err));
	CHECK_EQ(rc, -EINVAL);
	CHECK_EQ(dc1.ncalls, 3);
	CHECK_EQ(dc1.calls[1].len, 3072);
	CHECK(got == NULL);
	CHECK_EQ(nr, 0);
	CHECK_STR(err, "discovery at 10.0.0.1:8009: entry 3 of 3: discovery log entry: SUBTYPE 0 "
		  "(not 1 referral, 2 NVMe subsystem or 3 current discovery subsystem)");
}

/* A referral back to the controller itself is read once more (the referral's own referrals
 * are listed, not followed): two connections, not a loop. */
static void test_discover_referral_to_self(void)
{
	static const struct raw_ent e[] = {
		{ NVMF_SUBTYPE_NVME, "nqn.a", "10.0.0.1", "4420", 0 },
		{ NVMF_SUBTYPE_REFERRAL, NVMF_DISCOVERY_NQN, "10.0.0.1", "8009", 0 },
	};
	struct nvmf_disc_entry *got;
	struct nvmf_addr p[4];
	char nqn[257], err[256];
	unsigned nr, n, other;
	uint64_t gen;
	int rc;

	dc_reset(&dc1, "10.0.0.1", "8009");
	dc_log(&dc1, 0, 42, 2, e, 2);
	fabric[0] = &dc1;
	nfabric = 1;
	rc = discover("10.0.0.1", &got, &nr, &gen, err, sizeof(err));
	CHECK_EQ(rc, 0);
	CHECK_EQ(dc1.opens, 2);
	CHECK_EQ(dc1.closes, 2);
	CHECK_EQ(dc1.ncalls, 6);
	CHECK_EQ(gen, 42);
	CHECK_EQ(nr, 4);
	if (rc == 0 && nr == 4) {
		CHECK_EQ(got[0].from_referral, 0);
		CHECK_EQ(got[1].from_referral, 0);
		CHECK_EQ(got[1].subtype, NVMF_SUBTYPE_REFERRAL);
		CHECK_EQ(got[2].from_referral, 2);  /* the referral at index 1 */
		CHECK_EQ(got[3].from_referral, 2);
		CHECK_EQ(got[3].subtype, NVMF_SUBTYPE_REFERRAL);
		/* the subsystem listed twice is one path */
		rc = nvmf_disc_paths(got, nr, 0, "nqn.a", p, 4, &n, nqn, sizeof(nqn), &other, err,
				     sizeof(err));
		CHECK_EQ(rc, 0);
		CHECK_EQ(n, 1);
	}
	free(got);
}

/* nvmf_disc_paths with the same arguments but the log, the transport, the subsystem and the
 * room for paths */
#define PATHS(list, count, tr, subnqn, max) \
	nvmf_disc_paths(list, count, tr, subnqn, p, max, &n, nqn, sizeof(nqn), &other, err, \
			sizeof(err))

static void test_disc_paths(void)
{
	struct nvmf_disc_entry e[8];
	struct nvmf_addr p[4];
	char nqn[257], err[256];
	unsigned n, other;
	int rc;

	e[0] = ent(NVMF_TRTYPE_RDMA, NVMF_SUBTYPE_CURRENT, NVMF_DISCOVERY_NQN, "10.0.0.1", "8009");
	e[1] = ent(NVMF_TRTYPE_RDMA, NVMF_SUBTYPE_NVME, "nqn.a", "10.0.0.1", "4420");
	e[2] = ent(NVMF_TRTYPE_TCP, NVMF_SUBTYPE_NVME, "nqn.a", "10.0.0.1", "4420");
	e[3] = ent(NVMF_TRTYPE_RDMA, NVMF_SUBTYPE_NVME, "nqn.a", "10.0.0.2", "4421");
	e[4] = ent(NVMF_TRTYPE_RDMA, NVMF_SUBTYPE_NVME, "nqn.a", "10.0.0.1", "4420"); /* again */
	e[5] = ent(NVMF_TRTYPE_RDMA, NVMF_SUBTYPE_NVME, "nqn.b", "10.0.0.1", "4420");
	e[6] = ent(NVMF_TRTYPE_RDMA, NVMF_SUBTYPE_REFERRAL, "", "10.0.0.9", "8009");

	rc = PATHS(e, 7, NVMF_TRTYPE_RDMA, "nqn.a", 4);
	CHECK(rc == 0 && n == 2 && other == 1);
	CHECK(!strcmp(p[0].traddr, "10.0.0.1") && !strcmp(p[0].trsvcid, "4420"));
	CHECK(!strcmp(p[1].traddr, "10.0.0.2") && !strcmp(p[1].trsvcid, "4421"));
	CHECK(!strcmp(nqn, "nqn.a"));
	/* transport 0 is RDMA */
	rc = PATHS(e, 7, 0, "nqn.a", 4);
	CHECK(rc == 0 && n == 2 && other == 1);

	/* no subnqn: two subsystems listed, refused naming both */
	rc = PATHS(e, 7, NVMF_TRTYPE_RDMA, NULL, 4);
	CHECK(rc == -EINVAL && strstr(err, "2 subsystems (nqn.a, nqn.b)") && strstr(err, "subnqn"));
	/* no subnqn, one subsystem: taken */
	rc = PATHS(e, 5, NVMF_TRTYPE_RDMA, "", 4);
	CHECK(rc == 0 && n == 2 && !strcmp(nqn, "nqn.a"));
	/* a subsystem not listed, or only over TCP */
	rc = PATHS(e, 7, NVMF_TRTYPE_RDMA, "nqn.zz", 4);
	CHECK(rc == -ENOENT && strstr(err, "no RDMA entry for nqn.zz"));
	rc = PATHS(&e[2], 1, NVMF_TRTYPE_RDMA, "nqn.a", 4);
	CHECK(rc == -ENOENT && strstr(err, "only other transports") && other == 1);
	rc = PATHS(e, 1, NVMF_TRTYPE_RDMA, NULL, 4);
	CHECK(rc == -ENOENT && strstr(err, "no NVM subsystem"));
	/* more paths than room; a port that is not one */
	rc = PATHS(e, 7, NVMF_TRTYPE_RDMA, "nqn.a", 1);
	CHECK(rc == -E2BIG && strstr(err, "more than 1 RDMA paths"));
	e[7] = ent(NVMF_TRTYPE_RDMA, NVMF_SUBTYPE_NVME, "nqn.c", "10.0.0.3", "http");
	rc = PATHS(&e[7], 1, NVMF_TRTYPE_RDMA, "nqn.c", 4);
	CHECK(rc == -EINVAL && strstr(err, "entry 1"));
	if (check_failures)
		fprintf(stderr, "  last err: %s\n", err);
}

/* The same log read by a TCP job: its TCP entries are the paths, the RDMA ones of the
 * subsystem are counted as skipped; each message names TCP. */
static void test_disc_paths_tcp(void)
{
	struct nvmf_disc_entry e[8];
	struct nvmf_addr p[4];
	char nqn[257], err[256];
	unsigned n, other;
	int rc;

	e[0] = ent(NVMF_TRTYPE_TCP, NVMF_SUBTYPE_CURRENT, NVMF_DISCOVERY_NQN, "10.0.0.1", "8009");
	e[1] = ent(NVMF_TRTYPE_RDMA, NVMF_SUBTYPE_NVME, "nqn.a", "10.0.0.1", "4420");
	e[2] = ent(NVMF_TRTYPE_TCP, NVMF_SUBTYPE_NVME, "nqn.a", "10.0.0.1", "4420");
	e[3] = ent(NVMF_TRTYPE_TCP, NVMF_SUBTYPE_NVME, "nqn.a", "10.0.0.1", "4430");
	e[4] = ent(NVMF_TRTYPE_TCP, NVMF_SUBTYPE_NVME, "nqn.a", "10.0.0.1", "4420"); /* again */
	e[5] = ent(NVMF_TRTYPE_RDMA, NVMF_SUBTYPE_NVME, "nqn.a", "10.0.0.2", "4421");
	e[6] = ent(NVMF_TRTYPE_TCP, NVMF_SUBTYPE_NVME, "nqn.b", "10.0.0.1", "4420");
	e[7] = ent(NVMF_TRTYPE_FC, NVMF_SUBTYPE_NVME, "nqn.a", "nn-0x1:pn-0x2", "none");

	rc = PATHS(e, 8, NVMF_TRTYPE_TCP, "nqn.a", 4);
	CHECK_EQ(rc, 0);
	CHECK_EQ(n, 2);
	CHECK_EQ(other, 3);                /* two RDMA entries and the FC one */
	CHECK(!strcmp(p[0].traddr, "10.0.0.1") && !strcmp(p[0].trsvcid, "4420"));
	CHECK(!strcmp(p[1].traddr, "10.0.0.1") && !strcmp(p[1].trsvcid, "4430"));
	/* the RDMA job of the same log still takes only its own */
	rc = PATHS(e, 8, NVMF_TRTYPE_RDMA, "nqn.a", 4);
	CHECK(rc == 0 && n == 2 && other == 4);
	CHECK(!strcmp(p[0].traddr, "10.0.0.1") && !strcmp(p[1].traddr, "10.0.0.2"));
	/* nqn.b over TCP only: the RDMA job finds none, named */
	rc = PATHS(e, 8, NVMF_TRTYPE_RDMA, "nqn.b", 4);
	CHECK_EQ(rc, -ENOENT);
	CHECK_STR(err, "discovery: no RDMA entry for nqn.b (only other transports)");
	/* nqn.a's RDMA entries alone, read by a TCP job */
	rc = PATHS(&e[5], 1, NVMF_TRTYPE_TCP, "nqn.a", 4);
	CHECK_EQ(rc, -ENOENT);
	CHECK_STR(err, "discovery: no TCP entry for nqn.a (only other transports)");
	rc = PATHS(e, 8, NVMF_TRTYPE_TCP, "nqn.zz", 4);
	CHECK_STR(err, "discovery: no TCP entry for nqn.zz");
	rc = PATHS(e, 8, NVMF_TRTYPE_TCP, "nqn.a", 1);
	CHECK_EQ(rc, -E2BIG);
	CHECK_STR(err, "discovery: more than 1 TCP paths to nqn.a");
	/* no subnqn: the subsystems over any transport count (nqn.b is TCP, nqn.a both) */
	rc = PATHS(e, 8, NVMF_TRTYPE_TCP, NULL, 4);
	CHECK(rc == -EINVAL && strstr(err, "2 subsystems (nqn.a, nqn.b)"));
	rc = PATHS(&e[6], 1, NVMF_TRTYPE_TCP, NULL, 4);
	CHECK(rc == 0 && n == 1 && !strcmp(nqn, "nqn.b") && !strcmp(p[0].trsvcid, "4420"));
	CHECK_STR(nvmf_disc_transport_word(NVMF_TRTYPE_TCP), "TCP");
	CHECK_STR(nvmf_disc_transport_word(NVMF_TRTYPE_RDMA), "RDMA");
	CHECK_STR(nvmf_disc_transport_word(0), "RDMA");
	if (check_failures)
		fprintf(stderr, "  last err: %s\n", err);
}

/* A TCP discovery: the connection asks TCP (with the job's digests); of two referrals the TCP
 * one is followed over TCP and the RDMA one is listed, not followed, and counted by
 * nvmf_disc_referrals_other.  An RDMA discovery of the same log follows the other one. */
static struct dc dc2, dc3;

static void test_discover_tcp_referrals(void)
{
	static const struct raw_ent e1[] = {
		{ NVMF_SUBTYPE_NVME, "nqn.a", "10.0.0.1", "4420", NVMF_TRTYPE_TCP },
		{ NVMF_SUBTYPE_REFERRAL, NVMF_DISCOVERY_NQN, "10.0.0.1", "4430", NVMF_TRTYPE_TCP },
		{ NVMF_SUBTYPE_REFERRAL, NVMF_DISCOVERY_NQN, "10.0.0.1", "4421", NVMF_TRTYPE_RDMA },
	};
	static const struct raw_ent e2[] = {     /* behind the TCP referral */
		{ NVMF_SUBTYPE_NVME, "nqn.a", "10.0.0.1", "4430", NVMF_TRTYPE_TCP },
	};
	static const struct raw_ent e3[] = {     /* behind the RDMA referral */
		{ NVMF_SUBTYPE_NVME, "nqn.a", "10.0.0.1", "4421", NVMF_TRTYPE_RDMA },
	};
	struct nvmf_lane_opts o;
	struct nvmf_disc_entry *got;
	struct nvmf_addr p[4];
	char nqn[257], err[256];
	unsigned nr, n, other;
	uint64_t gen;
	int rc;

	dc_reset(&dc1, "10.0.0.1", "4420");
	dc_log(&dc1, 0, 9, 3, e1, 3);
	dc_reset(&dc2, "10.0.0.1", "4430");
	dc_log(&dc2, 0, 1, 1, e2, 1);
	dc_reset(&dc3, "10.0.0.1", "4421");
	dc_log(&dc3, 0, 1, 1, e3, 1);
	fabric[0] = &dc1;
	fabric[1] = &dc2;
	fabric[2] = &dc3;
	nfabric = 3;
	memset(&o, 0, sizeof(o));
	o.trtype = NVMF_TRTYPE_TCP;
	o.hdr_digest = 1;
	o.traddr = "10.0.0.1";
	o.trsvcid = "4420";
	rc = nvmf_discover_via(&dc_source, &o, &got, &nr, &gen, err, sizeof(err));
	CHECK_EQ(rc, 0);
	CHECK_EQ(nr, 4);
	CHECK_EQ(gen, 9);
	CHECK_EQ(dc1.opens, 1);
	CHECK_EQ(dc2.opens, 1);
	CHECK_EQ(dc3.opens, 0);            /* the RDMA referral: not followed */
	CHECK_EQ(dc1.seen.trtype, NVMF_TRTYPE_TCP);
	CHECK_EQ(dc1.seen.hdr_digest, 1);
	CHECK_STR(dc1.seen.subnqn, NVMF_DISCOVERY_NQN);
	CHECK_EQ(dc2.seen.trtype, NVMF_TRTYPE_TCP);
	CHECK_STR(dc2.seen_trsvcid, "4430");
	if (rc == 0 && nr == 4) {
		CHECK_EQ(got[0].trtype, NVMF_TRTYPE_TCP);
		CHECK_EQ(got[2].trtype, NVMF_TRTYPE_RDMA);
		CHECK_EQ(got[3].from_referral, 2);   /* through the referral at index 1 */
		CHECK_STR(got[3].trsvcid, "4430");
		CHECK_EQ(nvmf_disc_referrals_other(got, nr, NVMF_TRTYPE_TCP), 1);
		CHECK_EQ(nvmf_disc_referrals_other(got, nr, NVMF_TRTYPE_RDMA), 1);
		rc = PATHS(got, nr, NVMF_TRTYPE_TCP, "nqn.a", 4);
		CHECK(rc == 0 && n == 2 && other == 0);
		CHECK(!strcmp(p[0].trsvcid, "4420") && !strcmp(p[1].trsvcid, "4430"));
	}
	free(got);

	/* the same service read over RDMA: the RDMA referral is the one followed */
	dc_reset(&dc1, "10.0.0.1", "4420");
	dc_log(&dc1, 0, 9, 3, e1, 3);
	dc_reset(&dc2, "10.0.0.1", "4430");
	dc_log(&dc2, 0, 1, 1, e2, 1);
	dc_reset(&dc3, "10.0.0.1", "4421");
	dc_log(&dc3, 0, 1, 1, e3, 1);
	o.trtype = 0;
	o.hdr_digest = 0;
	rc = nvmf_discover_via(&dc_source, &o, &got, &nr, &gen, err, sizeof(err));
	CHECK_EQ(rc, 0);
	CHECK_EQ(nr, 4);
	CHECK_EQ(dc2.opens, 0);
	CHECK_EQ(dc3.opens, 1);
	CHECK_EQ(dc3.seen.trtype, 0);      /* the base's, as given */
	if (rc == 0 && nr == 4) {
		CHECK_EQ(got[3].from_referral, 3);
		CHECK_EQ(nvmf_disc_referrals_other(got, nr, 0), 1);
		rc = PATHS(got, nr, 0, "nqn.a", 4);
		CHECK(rc == 0 && n == 1 && other == 1 && !strcmp(p[0].trsvcid, "4421"));
	}
	free(got);
	nfabric = 1;
}

int main(void)
{
	test_discover_stable();
	test_discover_changes_after_header();
	test_discover_changes_inside_entry();
	test_discover_never_settles();
	test_discover_settles_on_last_try();
	test_discover_header_turns_bad();
	test_discover_short_log();
	test_discover_referral_to_self();
	CHECK_EQ(dc_overflow, 0);
	test_disc_paths();
	test_disc_paths_tcp();
	test_discover_tcp_referrals();
	CHECK_EQ(dc_overflow, 0);
	return check_done("test_discovery");
}
