/* test_tcp.c - the NVMe/TCP transport (lib/nvmf_tcp.c) against a scripted target on the other
 * end of a socketpair: the target's bytes are composed and checked at spec offsets, never
 * through lib/'s structs.  Also CRC32C and the connect path over loopback TCP. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "nvmf_crc32c.h"
#include "nvmf_lane.h"
#include "nvmf_queue.h"
#include "nvmf_spec.h"
#include "nvmf_tcp.h"

#include "check.h"

#define QID 1

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

/* ---- the scripted target ------------------------------------------------------------------ */

static void tgt_write(int fd, const void *buf, size_t n)
{
	const uint8_t *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w <= 0) {
			CHECK(!"target write failed");
			return;
		}
		p += w;
		n -= (size_t)w;
	}
}

/* Exactly n bytes from the host, reaping the queue meanwhile (it writes what its ring holds
 * from reaps): 0, or -1 after 3 s. */
static int tgt_read(struct nvmf_queue *q, int fd, void *buf, size_t n)
{
	uint8_t *p = buf;
	uint64_t deadline = now_ms() + 3000;

	while (n) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (poll(&pfd, 1, 1) > 0) {
			r = recv(fd, p, n, MSG_DONTWAIT);
			if (r > 0) {
				p += r;
				n -= (size_t)r;
				continue;
			}
		}
		if (q)
			nvmf_queue_process(q);
		if (now_ms() > deadline) {
			fprintf(stderr, "target: %zu bytes missing\n", n);
			return -1;
		}
	}
	return 0;
}

static size_t tgt_avail(int fd, uint8_t *buf, size_t cap)
{
	ssize_t r = recv(fd, buf, cap, MSG_DONTWAIT);

	return r > 0 ? (size_t)r : 0;
}

static void icresp_bytes(uint8_t *b, uint16_t pfv, uint8_t cpda, uint8_t dgst, uint32_t maxh2c)
{
	memset(b, 0, 128);
	b[0] = 0x01;
	b[2] = 128;
	put32(b + 4, 128);
	put16(b + 8, pfv);
	b[10] = cpda;
	b[11] = dgst;
	put32(b + 12, maxh2c);
}

/* PDU builders: return the PDU's length. */
static size_t pdu_rsp(uint8_t *b, int hd, uint16_t cid, uint16_t status)
{
	memset(b, 0, 28);
	b[0] = 0x05;
	b[1] = hd ? 0x01 : 0;
	b[2] = 24;
	put32(b + 4, 24 + (hd ? 4 : 0));
	put16(b + 8 + 10, QID);       /* SQID */
	put16(b + 8 + 12, cid);
	put16(b + 8 + 14, status);
	if (hd)
		put32(b + 24, nvmf_crc32c(b, 24));
	return 24 + (hd ? 4 : 0);
}

static size_t pdu_c2h(uint8_t *b, int hd, int dd, uint16_t cid, uint32_t datao, const void *data,
		      uint32_t datal, uint8_t flags)
{
	unsigned pdo = 24 + (hd ? 4 : 0);

	memset(b, 0, pdo);
	b[0] = 0x07;
	b[1] = (uint8_t)(flags | (hd ? 0x01 : 0) | (dd ? 0x02 : 0));
	b[2] = 24;
	b[3] = (uint8_t)pdo;
	put32(b + 4, pdo + datal + (dd ? 4 : 0));
	put16(b + 8, cid);
	put32(b + 12, datao);
	put32(b + 16, datal);
	if (hd)
		put32(b + 24, nvmf_crc32c(b, 24));
	memcpy(b + pdo, data, datal);
	if (dd)
		put32(b + pdo + datal, nvmf_crc32c(data, datal));
	return pdo + datal + (dd ? 4 : 0);
}

static size_t pdu_r2t(uint8_t *b, int hd, uint16_t cid, uint16_t ttag, uint32_t r2to, uint32_t r2tl)
{
	memset(b, 0, 28);
	b[0] = 0x09;
	b[1] = hd ? 0x01 : 0;
	b[2] = 24;
	put32(b + 4, 24 + (hd ? 4 : 0));
	put16(b + 8, cid);
	put16(b + 10, ttag);
	put32(b + 12, r2to);
	put32(b + 16, r2tl);
	if (hd)
		put32(b + 24, nvmf_crc32c(b, 24));
	return 24 + (hd ? 4 : 0);
}

/* ---- the host side ------------------------------------------------------------------------ */

struct conn {
	struct nvmf_queue *q;
	int                tfd;
	int                hd, dd;
	uint8_t            icreq[128];
	char               err[256];
	int                rc;
};

struct conn_opts {
	unsigned entries;
	int      hd, dd;
	uint8_t  cpda;
	uint32_t maxh2c;
	int      sndbuf;     /* 0: the default */
	int      tcp;        /* a loopback TCP connection instead of a socketpair */
	int      rcvbuf;     /* the target's receive buffer (tcp), 0: the default */
};

/* A loopback TCP connection: the host's end in *host, the target's in *tgt; 0, or -1 where
 * this machine has no loopback TCP. */
static int tcp_pair(int rcvbuf, int *host, int *tgt)
{
	struct sockaddr_in a;
	socklen_t al = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0);

	*host = *tgt = -1;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	/* the accepted socket inherits the buffer, set before the handshake fixes the window */
	if (l >= 0 && rcvbuf)
		setsockopt(l, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &al) ||
	    (*host = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    connect(*host, (struct sockaddr *)&a, sizeof(a)) || (*tgt = accept(l, NULL, NULL)) < 0) {
		if (*host >= 0)
			close(*host);
		if (l >= 0)
			close(l);
		return -1;
	}
	close(l);
	return 0;
}

static int conn_open(struct conn *c, const struct conn_opts *o)
{
	struct nvmf_fabric_params p;
	uint8_t ic[128];
	int sv[2];

	memset(c, 0, sizeof(*c));
	if (o->tcp ? tcp_pair(o->rcvbuf, &sv[0], &sv[1]) : socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return -1;
	if (o->sndbuf)
		setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &o->sndbuf, sizeof(o->sndbuf));
	icresp_bytes(ic, 0, o->cpda, (uint8_t)((o->hd ? 1 : 0) | (o->dd ? 2 : 0)),
		     o->maxh2c ? o->maxh2c : 65536);
	tgt_write(sv[1], ic, sizeof(ic));
	memset(&p, 0, sizeof(p));
	p.qid = QID;
	p.entries = o->entries ? o->entries : 8;
	p.timeout_ms = 2000;
	p.hdr_digest = o->hd;
	p.data_digest = o->dd;
	c->tfd = sv[1];
	c->hd = o->hd;
	c->dd = o->dd;
	c->rc = nvmf_tcp_queue_create_fd(&c->q, sv[0], &p, c->err, sizeof(c->err));
	if (c->rc) {
		fprintf(stderr, "conn_open: %s\n", c->err);
		close(sv[1]);
		return -1;
	}
	return tgt_read(NULL, c->tfd, c->icreq, sizeof(c->icreq));
}

static void conn_close(struct conn *c)
{
	nvmf_fabric_tcp.destroy(c->q, 0);
	close(c->tfd);
}

static struct nvmf_req *submit_rw(struct nvmf_queue *q, uint8_t opc, void *buf, uint32_t len,
				  int in_capsule)
{
	struct nvmf_req *r = nvmf_queue_get(q, NULL);

	if (!r)
		return NULL;
	if (nvme_cmd_rw_sgl(nvmf_req_sqe(q, r), opc, 1, 0, len / 512 ? len / 512 : 1, !in_capsule,
			    in_capsule ? 0 : (uint64_t)(uintptr_t)buf, len, 0x1234))
		return NULL;
	if (in_capsule)
		nvmf_queue_stage(q, r, buf, len, 0);
	else
		nvmf_queue_stage(q, r, NULL, 0, 0);
	CHECK_EQ(nvmf_queue_flush(q), 1);
	return r;
}

/* Reap until req completes or the queue fails: 0, the queue's error, or -ETIMEDOUT. */
static int reap_until(struct nvmf_queue *q, struct nvmf_req *req)
{
	uint64_t deadline = now_ms() + 3000;

	while (now_ms() < deadline) {
		int rc = nvmf_queue_process(q);

		if (rc < 0)
			return rc;
		if (req && req->state == NVMF_REQ_COMPLETE)
			return 0;
		if (!req && q->nr_inflight == 0)
			return 0;
		usleep(200);
	}
	return -ETIMEDOUT;
}

static int reap_n(struct nvmf_queue *q, int times)
{
	int rc = 0;

	while (times-- && rc >= 0)
		rc = nvmf_queue_process(q);
	return rc;
}

/* The capsule the host sent (no in-capsule data): 72 bytes (+ header digest). */
static int read_capsule(struct conn *c, uint8_t *cap)
{
	return tgt_read(c->q, c->tfd, cap, 72 + (c->hd ? 4 : 0));
}

static uint16_t capsule_cid(const uint8_t *cap)
{
	return (uint16_t)raw_le(cap, 8 + 2, 2);
}

/* A buffer with 64 guard bytes on each side. */
#define GUARD 64
struct gbuf {
	uint8_t *base;
	uint8_t *p;
	size_t   len;
};

static void gbuf_init(struct gbuf *g, size_t len)
{
	g->base = malloc(len + 2 * GUARD);
	g->p = g->base + GUARD;
	g->len = len;
	memset(g->base, 0xee, len + 2 * GUARD);
}

static int gbuf_guards_ok(const struct gbuf *g)
{
	for (size_t i = 0; i < GUARD; i++)
		if (g->base[i] != 0xee || g->p[g->len + i] != 0xee)
			return 0;
	return 1;
}

static void pattern(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 7 + seed + (i >> 8));
}

/* ---- tests -------------------------------------------------------------------------------- */

static void test_crc32c(void)
{
	uint8_t z[32], f[32], inc[32], dec[32], big[1000];
	const char *s = "123456789";
	uint32_t st;

	memset(z, 0, sizeof(z));
	memset(f, 0xff, sizeof(f));
	for (unsigned i = 0; i < 32; i++) {
		inc[i] = (uint8_t)i;
		dec[i] = (uint8_t)(31 - i);
	}
	CHECK_EQ(nvmf_crc32c(s, 9), 0xE3069283u);
	CHECK_EQ(nvmf_crc32c(z, 32), 0x8A9136AAu);
	CHECK_EQ(nvmf_crc32c(f, 32), 0x62A8AB43u);
	CHECK_EQ(nvmf_crc32c(inc, 32), 0x46DD794Eu);
	CHECK_EQ(nvmf_crc32c(dec, 32), 0x113FDB5Cu);
	CHECK_EQ(nvmf_crc32c_final(nvmf_crc32c_update_sw(NVMF_CRC32C_INIT, s, 9)), 0xE3069283u);
	CHECK_EQ(nvmf_crc32c_final(nvmf_crc32c_update_sw(NVMF_CRC32C_INIT, z, 32)), 0x8A9136AAu);
	CHECK_EQ(nvmf_crc32c_final(nvmf_crc32c_update_sw(NVMF_CRC32C_INIT, f, 32)), 0x62A8AB43u);
	CHECK_EQ(nvmf_crc32c(s, 0), 0);
	/* in pieces at odd offsets, either implementation, equals the whole */
	pattern(big, sizeof(big), 3);
	for (unsigned cut = 0; cut < 20; cut++) {
		st = nvmf_crc32c_update(NVMF_CRC32C_INIT, big, cut);
		st = nvmf_crc32c_update_sw(st, big + cut, 333);
		st = nvmf_crc32c_update(st, big + cut + 333, sizeof(big) - cut - 333);
		CHECK_EQ(nvmf_crc32c_final(st), nvmf_crc32c(big, sizeof(big)));
		CHECK_EQ(nvmf_crc32c_final(nvmf_crc32c_update_sw(NVMF_CRC32C_INIT, big + cut, 977)),
			 nvmf_crc32c(big + cut, 977));
	}
}

static void test_icreq_bytes(void)
{
	struct conn_opts o = { .hd = 1, .dd = 0 };
	struct conn c;

	CHECK(conn_open(&c, &o) == 0);
	if (!c.q)
		return;
	CHECK_EQ(c.icreq[0], 0x00);                /* ICReq */
	CHECK_EQ(c.icreq[1], 0);                   /* flags */
	CHECK_EQ(c.icreq[2], 128);                 /* HLEN */
	CHECK_EQ(c.icreq[3], 0);                   /* PDO */
	CHECK_EQ(raw_le(c.icreq, 4, 4), 128);      /* PLEN */
	CHECK_EQ(raw_le(c.icreq, 8, 2), 0);        /* PFV 1.0 */
	CHECK_EQ(c.icreq[10], 0);                  /* HPDA */
	CHECK_EQ(c.icreq[11], 0x01);               /* DGST: header digest only */
	CHECK_EQ(raw_le(c.icreq, 12, 4), 0);       /* MAXR2T 0: one R2T per command */
	for (unsigned i = 16; i < 128; i++)
		CHECK_EQ(c.icreq[i], 0);
	conn_close(&c);

	o.hd = 1;
	o.dd = 1;
	CHECK(conn_open(&c, &o) == 0);
	CHECK_EQ(c.icreq[11], 0x03);
	if (c.q) {
		struct nvmf_tcp_negotiated n;

		nvmf_tcp_queue_negotiated(c.q, &n);
		CHECK(n.hdgst && n.ddgst);
		CHECK_EQ(n.maxh2cdata, 65536);
		conn_close(&c);
	}
}

/* Set-up with a given 128-byte answer (NULL: the target closes; len 0: silence). */
static int icresp_try(const uint8_t *ans, size_t len, int hd, int dd, const struct sockaddr *dst,
		      unsigned timeout_ms, char *err, size_t errlen)
{
	struct nvmf_fabric_params p;
	struct nvmf_queue *q = NULL;
	int sv[2], rc;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return -999;
	if (ans && len)
		tgt_write(sv[1], ans, len);
	if (!ans)
		shutdown(sv[1], SHUT_WR);
	memset(&p, 0, sizeof(p));
	p.qid = 2;
	p.entries = 4;
	p.timeout_ms = timeout_ms;
	p.hdr_digest = hd;
	p.data_digest = dd;
	p.dst = dst;
	err[0] = 0;
	rc = nvmf_tcp_queue_create_fd(&q, sv[0], &p, err, errlen);
	CHECK(rc == 0 || q == NULL);
	if (!rc)
		nvmf_fabric_tcp.destroy(q, 0);
	close(sv[1]);
	return rc;
}

static void test_icresp_refusals(void)
{
	struct sockaddr_in dst;
	uint8_t b[128];
	char err[256];
	int rc;

	memset(&dst, 0, sizeof(dst));
	dst.sin_family = AF_INET;
	dst.sin_port = htons(4420);
	inet_pton(AF_INET, "10.0.0.1", &dst.sin_addr);

	icresp_bytes(b, 0, 0, 0, 8192);
	CHECK_EQ(icresp_try(b, 128, 0, 0, NULL, 1000, err, sizeof(err)), 0);

	icresp_bytes(b, 1, 0, 0, 8192);
	rc = icresp_try(b, 128, 0, 0, (struct sockaddr *)&dst, 1000, err, sizeof(err));
	CHECK_EQ(rc, -EPROTO);
	CHECK(strstr(err, "NVMe/TCP connection to 10.0.0.1:4420: ICResp: PFV 1 ") == err);

	icresp_bytes(b, 0, 0, 0, 1000);
	CHECK_EQ(icresp_try(b, 128, 0, 0, NULL, 1000, err, sizeof(err)), -EPROTO);
	CHECK(strstr(err, "ICResp: MAXH2CDATA 1000") != NULL);

	icresp_bytes(b, 0, 0, 0, 4098);
	CHECK_EQ(icresp_try(b, 128, 0, 0, NULL, 1000, err, sizeof(err)), -EPROTO);
	CHECK(strstr(err, "MAXH2CDATA 4098") != NULL);

	icresp_bytes(b, 0, 32, 0, 8192);
	CHECK_EQ(icresp_try(b, 128, 0, 0, NULL, 1000, err, sizeof(err)), -EPROTO);
	CHECK(strstr(err, "CPDA 32") != NULL);

	/* digests asked for and not granted, and granted unasked */
	icresp_bytes(b, 0, 0, 0x01, 8192);
	CHECK_EQ(icresp_try(b, 128, 1, 1, NULL, 1000, err, sizeof(err)), -EPROTO);
	CHECK(strstr(err, "DGST 0x01 grants header digests only, but the host asked for header "
			  "and data digests") != NULL);
	icresp_bytes(b, 0, 0, 0x02, 8192);
	CHECK_EQ(icresp_try(b, 128, 0, 0, NULL, 1000, err, sizeof(err)), -EPROTO);
	CHECK(strstr(err, "DGST") != NULL);

	icresp_bytes(b, 0, 0, 0, 8192);
	b[0] = 0x05;
	CHECK_EQ(icresp_try(b, 128, 0, 0, NULL, 1000, err, sizeof(err)), -EPROTO);
	CHECK(strstr(err, "PDU type 0x05") != NULL);

	icresp_bytes(b, 0, 0, 0, 8192);
	put32(b + 4, 132);
	CHECK_EQ(icresp_try(b, 128, 0, 0, NULL, 1000, err, sizeof(err)), -EPROTO);
	CHECK(strstr(err, "PLEN 132") != NULL);

	/* a C2HTermReq instead of ICResp */
	memset(b, 0, 24);
	b[0] = 0x03;
	b[2] = 24;
	put32(b + 4, 24);
	put16(b + 8, 0x06);
	CHECK_EQ(icresp_try(b, 24, 0, 0, NULL, 1000, err, sizeof(err)), -ECONNREFUSED);
	CHECK(strstr(err, "unsupported parameter") != NULL);

	CHECK_EQ(icresp_try(NULL, 0, 0, 0, NULL, 1000, err, sizeof(err)), -ECONNRESET);
	CHECK(strstr(err, "closed the connection") != NULL);
	CHECK(strstr(err, "NVMe/TCP connection to a local socket: ICResp:") == err);

	CHECK_EQ(icresp_try(b, 0, 0, 0, NULL, 50, err, sizeof(err)), -ETIMEDOUT);
	CHECK(strstr(err, "no answer within 50 ms") != NULL);

	/* half an ICResp, then nothing */
	icresp_bytes(b, 0, 0, 0, 8192);
	CHECK_EQ(icresp_try(b, 64, 0, 0, NULL, 50, err, sizeof(err)), -ETIMEDOUT);
	CHECK(strstr(err, "no answer within 50 ms") != NULL);
	CHECK(strchr(err, '\n') == NULL);
}

/* A read of 8192 bytes answered by two C2HData PDUs and a response, the stream cut into
 * pieces of `step` bytes (0: all at once; -1: each PDU header alone first). */
static void read_case(int hd, int dd, int step)
{
	struct conn_opts o = { .hd = hd, .dd = dd };
	uint8_t cap[80], stream[3 * 8192], d[8192];
	size_t n = 0, off = 0;
	struct nvmf_req *r;
	struct gbuf g;
	struct conn c;
	uint16_t cid;

	if (conn_open(&c, &o))
		return;
	gbuf_init(&g, 8192);
	pattern(d, sizeof(d), 5);
	r = submit_rw(c.q, NVME_CMD_READ, g.p, 8192, 0);
	CHECK(read_capsule(&c, cap) == 0);
	CHECK_EQ(cap[0], 0x04);
	CHECK_EQ(cap[1], hd ? 0x01 : 0);
	CHECK_EQ(cap[2], 72);
	CHECK_EQ(cap[3], 0);
	CHECK_EQ(raw_le(cap, 4, 4), 72 + (hd ? 4 : 0));
	if (hd)
		CHECK_EQ(raw_le(cap, 72, 4), nvmf_crc32c(cap, 72));
	/* SGL1: transport data block, address 0, length 8192 */
	CHECK_EQ(raw_le(cap, 8 + 24, 8), 0);
	CHECK_EQ(raw_le(cap, 8 + 32, 4), 8192);
	CHECK_EQ(raw_le(cap, 8 + 36, 3), 0);
	CHECK_EQ(cap[8 + 39], 0x5a);
	CHECK_EQ(cap[8 + 0], NVME_CMD_READ);
	cid = capsule_cid(cap);
	CHECK_EQ(cid, r->cid);

	n += pdu_c2h(stream + n, hd, dd, cid, 0, d, 4096, 0);
	n += pdu_c2h(stream + n, hd, dd, cid, 4096, d + 4096, 4096, 0x04);
	n += pdu_rsp(stream + n, hd, cid, 0);
	while (off < n) {
		size_t k = step > 0 ? (size_t)step : n - off;

		if (step < 0) {
			/* header alone, then the data with the next header: the data is read straight
			 * into the buffer */
			size_t hl = 24 + (hd ? 4 : 0);
			size_t pdu = raw_le(stream + off, 4, 4);

			k = off + hl <= n ? hl : n - off;
			tgt_write(c.tfd, stream + off, k);
			reap_n(c.q, 2);
			off += k;
			k = pdu - hl;
			if (k == 0)
				continue;
		}
		if (k > n - off)
			k = n - off;
		tgt_write(c.tfd, stream + off, k);
		off += k;
		CHECK(nvmf_queue_process(c.q) >= 0);
		if (off < n)
			CHECK(r->state != NVMF_REQ_COMPLETE);
	}
	CHECK_EQ(reap_until(c.q, r), 0);
	CHECK(r->state == NVMF_REQ_COMPLETE);
	CHECK_EQ(le16toh(r->cqe.cid), cid);
	CHECK_EQ(le16toh(r->cqe.status), 0);
	CHECK(memcmp(g.p, d, sizeof(d)) == 0);
	CHECK(gbuf_guards_ok(&g));
	nvmf_queue_put(c.q, r);
	free(g.base);
	conn_close(&c);
}

static void test_read_split(void)
{
	read_case(0, 0, 1);     /* every byte alone */
	read_case(0, 0, 7);     /* PDUs split anywhere, several per read */
	read_case(0, 0, 0);     /* all at once */
	read_case(0, 0, -1);    /* headers alone: data read straight into the buffer */
	read_case(1, 1, 1);
	read_case(1, 1, 13);
	read_case(1, 1, -1);
	read_case(1, 0, 0);
	read_case(0, 1, 0);
}

/* Reads one H2CData PDU and checks it against what the R2T asked for. */
static void expect_h2c(struct conn *c, uint16_t cid, uint16_t ttag, uint32_t datao,
		       uint32_t datal, int last, const uint8_t *src, unsigned cpda_align)
{
	unsigned hl = 24 + (c->hd ? 4 : 0);
	unsigned pdo = (hl + cpda_align - 1) / cpda_align * cpda_align;
	uint8_t h[128], dg[4];
	uint8_t *data = malloc(datal);

	CHECK(tgt_read(c->q, c->tfd, h, pdo) == 0);
	CHECK_EQ(h[0], 0x06);
	CHECK_EQ(h[1], (c->hd ? 0x01 : 0) | (c->dd ? 0x02 : 0) | (last ? 0x04 : 0));
	CHECK_EQ(h[2], 24);
	CHECK_EQ(h[3], pdo);
	CHECK_EQ(raw_le(h, 4, 4), pdo + datal + (c->dd ? 4 : 0));
	CHECK_EQ(raw_le(h, 8, 2), cid);
	CHECK_EQ(raw_le(h, 10, 2), ttag);
	CHECK_EQ(raw_le(h, 12, 4), datao);
	CHECK_EQ(raw_le(h, 16, 4), datal);
	if (c->hd)
		CHECK_EQ(raw_le(h, 24, 4), nvmf_crc32c(h, 24));
	for (unsigned i = hl; i < pdo; i++)
		CHECK_EQ(h[i], 0);
	CHECK(tgt_read(c->q, c->tfd, data, datal) == 0);
	CHECK(memcmp(data, src + datao, datal) == 0);
	if (c->dd) {
		CHECK(tgt_read(c->q, c->tfd, dg, 4) == 0);
		CHECK_EQ(raw_le(dg, 0, 4), nvmf_crc32c(data, datal));
	}
	free(data);
}

static void write_r2t_case(int hd, int dd, uint8_t cpda)
{
	struct conn_opts o = { .hd = hd, .dd = dd, .cpda = cpda, .maxh2c = 4096 };
	unsigned align = (cpda + 1u) * 4u;
	uint8_t cap[80], pdu[64], src[16384];
	struct nvmf_req *r;
	struct conn c;
	uint16_t cid;

	if (conn_open(&c, &o))
		return;
	pattern(src, sizeof(src), 9);
	r = submit_rw(c.q, NVME_CMD_WRITE, src, sizeof(src), 0);
	CHECK(read_capsule(&c, cap) == 0);
	CHECK_EQ(cap[8 + 0], NVME_CMD_WRITE);
	CHECK_EQ(cap[3], 0);
	CHECK_EQ(raw_le(cap, 8 + 24, 8), 0);
	CHECK_EQ(raw_le(cap, 8 + 32, 4), 16384);
	CHECK_EQ(cap[8 + 39], 0x5a);
	cid = capsule_cid(cap);
	/* first R2T: 10000 bytes in MAXH2CDATA pieces 4096 + 4096 + 1808 */
	tgt_write(c.tfd, pdu, pdu_r2t(pdu, hd, cid, 0xbeef, 0, 10000));
	expect_h2c(&c, cid, 0xbeef, 0, 4096, 0, src, align);
	expect_h2c(&c, cid, 0xbeef, 4096, 4096, 0, src, align);
	expect_h2c(&c, cid, 0xbeef, 8192, 1808, 1, src, align);
	CHECK(r->state == NVMF_REQ_INFLIGHT);
	/* second R2T: the rest */
	tgt_write(c.tfd, pdu, pdu_r2t(pdu, hd, cid, 0x0102, 10000, 6384));
	expect_h2c(&c, cid, 0x0102, 10000, 4096, 0, src, align);
	expect_h2c(&c, cid, 0x0102, 14096, 2288, 1, src, align);
	tgt_write(c.tfd, pdu, pdu_rsp(pdu, hd, cid, 0));
	CHECK_EQ(reap_until(c.q, r), 0);
	CHECK_EQ(le16toh(r->cqe.status), 0);
	{
		/* H2CData pieces under 64 KiB are copied by sendmsg, none spliced */
		struct nvmf_xport_stats st;

		memset(&st, 0, sizeof(st));
		nvmf_fabric_tcp.stats(c.q, &st);
		CHECK_EQ(st.tx_copied, sizeof(src));
		CHECK_EQ(st.tx_spliced, 0);
	}
	nvmf_queue_put(c.q, r);
	conn_close(&c);
}

static void test_write_r2t(void)
{
	write_r2t_case(0, 0, 0);
	write_r2t_case(1, 1, 0);
	write_r2t_case(1, 0, 3);     /* data aligned to 16 bytes: PDO 32 */
}

static void incapsule_case(int hd, int dd, uint8_t cpda)
{
	struct conn_opts o = { .hd = hd, .dd = dd, .cpda = cpda };
	unsigned hl = 72 + (hd ? 4 : 0), align = (cpda + 1u) * 4u;
	unsigned pdo = (hl + align - 1) / align * align;
	uint8_t cap[128], data[512], dg[4], pdu[64];
	struct nvmf_req *r;
	struct conn c;

	if (conn_open(&c, &o))
		return;
	pattern(data, sizeof(data), 1);
	r = submit_rw(c.q, NVME_CMD_WRITE, data, sizeof(data), 1);
	CHECK(tgt_read(c.q, c.tfd, cap, pdo) == 0);
	CHECK_EQ(cap[0], 0x04);
	CHECK_EQ(cap[1], (hd ? 0x01 : 0) | (dd ? 0x02 : 0));
	CHECK_EQ(cap[2], 72);
	CHECK_EQ(cap[3], pdo);
	CHECK_EQ(raw_le(cap, 4, 4), pdo + 512 + (dd ? 4 : 0));
	/* SGL1 stays the offset data block: in-capsule data at offset 0 */
	CHECK_EQ(cap[8 + 39], 0x01);
	CHECK_EQ(raw_le(cap, 8 + 24, 8), 0);
	CHECK_EQ(raw_le(cap, 8 + 32, 4), 512);
	if (hd)
		CHECK_EQ(raw_le(cap, 72, 4), nvmf_crc32c(cap, 72));
	for (unsigned i = hl; i < pdo; i++)
		CHECK_EQ(cap[i], 0);
	{
		uint8_t got[512];

		CHECK(tgt_read(c.q, c.tfd, got, sizeof(got)) == 0);
		CHECK(memcmp(got, data, sizeof(data)) == 0);
	}
	if (dd) {
		CHECK(tgt_read(c.q, c.tfd, dg, 4) == 0);
		CHECK_EQ(raw_le(dg, 0, 4), nvmf_crc32c(data, sizeof(data)));
	}
	/* nothing more: no R2T expected, no H2CData */
	CHECK_EQ(tgt_avail(c.tfd, cap, sizeof(cap)), 0);
	tgt_write(c.tfd, pdu, pdu_rsp(pdu, hd, r->cid, 0));
	CHECK_EQ(reap_until(c.q, r), 0);
	nvmf_queue_put(c.q, r);
	conn_close(&c);
}

static void test_incapsule(void)
{
	incapsule_case(0, 0, 0);
	incapsule_case(1, 1, 0);
	incapsule_case(1, 1, 31);   /* PDO 128 */
}

static void test_connect_incapsule(void)
{
	struct conn_opts o = { 0 };
	uint8_t cap[72], got[1024], cd[1024], pdu[64];
	struct nvmf_req *r;
	struct conn c;

	if (conn_open(&c, &o))
		return;
	pattern(cd, sizeof(cd), 77);
	r = nvmf_queue_get(c.q, NULL);
	nvmf_cmd_connect(nvmf_req_sqe(c.q, r), QID, 7, 0);
	CHECK_EQ(nvme_sqe_set_sgl_keyed(nvmf_req_sqe(c.q, r), (uintptr_t)cd, sizeof(cd), 0x99), 0);
	nvmf_queue_stage(c.q, r, NULL, 0, 0);
	CHECK_EQ(nvmf_queue_flush(c.q), 1);
	CHECK(tgt_read(c.q, c.tfd, cap, sizeof(cap)) == 0);
	CHECK_EQ(cap[0], 0x04);
	CHECK_EQ(cap[3], 72);
	CHECK_EQ(raw_le(cap, 4, 4), 72 + 1024);
	CHECK_EQ(cap[8 + 0], 0x7f);
	CHECK_EQ(cap[8 + 4], 0x01);                 /* FCTYPE Connect */
	CHECK_EQ(cap[8 + 39], 0x01);                /* offset data block, not 0x5A */
	CHECK_EQ(raw_le(cap, 8 + 24, 8), 0);
	CHECK_EQ(raw_le(cap, 8 + 32, 4), 1024);
	CHECK_EQ(raw_le(cap, 8 + 42, 2), QID);      /* Connect QID untouched */
	CHECK(tgt_read(c.q, c.tfd, got, sizeof(got)) == 0);
	CHECK(memcmp(got, cd, sizeof(cd)) == 0);
	tgt_write(c.tfd, pdu, pdu_rsp(pdu, 0, r->cid, 0));
	CHECK_EQ(reap_until(c.q, r), 0);
	nvmf_queue_put(c.q, r);

	/* Property Get: a Fabrics command without data keeps no data (transport SGL, length 0) */
	r = nvmf_queue_get(c.q, NULL);
	nvmf_cmd_prop_get(nvmf_req_sqe(c.q, r), 0, 1);
	nvmf_queue_stage(c.q, r, NULL, 0, 0);
	CHECK_EQ(nvmf_queue_flush(c.q), 1);
	CHECK(tgt_read(c.q, c.tfd, cap, sizeof(cap)) == 0);
	CHECK_EQ(raw_le(cap, 4, 4), 72);
	CHECK_EQ(cap[8 + 39], 0x5a);
	CHECK_EQ(raw_le(cap, 8 + 32, 4), 0);
	tgt_write(c.tfd, pdu, pdu_rsp(pdu, 0, r->cid, 0));
	CHECK_EQ(reap_until(c.q, r), 0);
	nvmf_queue_put(c.q, r);

	/* Any keyed host-to-controller data that fits the capsule goes in it, as the kernel and
	 * SPDK hosts send it (Dataset Management's ranges here): no R2T round trip */
	r = nvmf_queue_get(c.q, NULL);
	memset(nvmf_req_sqe(c.q, r), 0, 64);
	nvmf_req_sqe(c.q, r)->opcode = 0x09;
	CHECK_EQ(nvme_sqe_set_sgl_keyed(nvmf_req_sqe(c.q, r), (uintptr_t)cd, 32, 0x99), 0);
	nvmf_queue_stage(c.q, r, NULL, 0, 0);
	CHECK_EQ(nvmf_queue_flush(c.q), 1);
	CHECK(tgt_read(c.q, c.tfd, cap, sizeof(cap)) == 0);
	CHECK_EQ(cap[0], 0x04);
	CHECK_EQ(raw_le(cap, 4, 4), 72 + 32);
	CHECK_EQ(cap[8 + 0], 0x09);
	CHECK_EQ(cap[8 + 39], 0x01);                /* offset data block */
	CHECK_EQ(raw_le(cap, 8 + 32, 4), 32);
	CHECK(tgt_read(c.q, c.tfd, got, 32) == 0);
	CHECK(memcmp(got, cd, 32) == 0);
	tgt_write(c.tfd, pdu, pdu_rsp(pdu, 0, r->cid, 0));
	CHECK_EQ(reap_until(c.q, r), 0);
	nvmf_queue_put(c.q, r);
	conn_close(&c);
}

/* The queue fails on the target's bytes, with a message containing `want`. */
static void expect_fatal(struct conn *c, const void *bytes, size_t n, int err, const char *want)
{
	int rc;

	tgt_write(c->tfd, bytes, n);
	rc = reap_until(c->q, NULL);
	CHECK_EQ(rc, err);
	CHECK_EQ(c->q->fatal, err);
	if (!strstr(c->q->fatal_msg, want)) {
		fprintf(stderr, "fatal_msg \"%s\" lacks \"%s\"\n", c->q->fatal_msg, want);
		CHECK(!"fatal message");
	}
	CHECK(strchr(c->q->fatal_msg, '\n') == NULL);
	/* sticks, and nothing is posted any more */
	CHECK_EQ(nvmf_queue_process(c->q), err);
	nvmf_queue_fail_all(c->q, err, c->q->fatal_msg);
	CHECK_EQ(c->q->nr_inflight, 0);
}

/* After a refused PDU: the target reads an H2CTermReq (the spec's offsets: type 02h, HLEN 24,
 * PDO 0, PLEN, FES at 8, FEI at 10, bytes 14..23 reserved, the refused PDU's header from 24),
 * then the end of the stream: nothing else follows it. */
static void expect_term(struct conn *c, uint16_t fes, uint32_t fei, const uint8_t *hdr,
			size_t hdr_len)
{
	uint8_t t[152 + 1];

	CHECK(hdr_len <= 128);
	if (tgt_read(NULL, c->tfd, t, 24 + hdr_len)) {
		CHECK(!"no H2CTermReq");
		return;
	}
	CHECK_EQ(t[0], 0x02);
	CHECK_EQ(t[1], 0);
	CHECK_EQ(t[2], 24);
	CHECK_EQ(t[3], 0);
	CHECK_EQ(raw_le(t, 4, 4), 24 + hdr_len);
	CHECK_EQ(raw_le(t, 8, 2), fes);
	CHECK_EQ(raw_le(t, 10, 4), fei);
	for (unsigned i = 14; i < 24; i++)
		CHECK_EQ(t[i], 0);
	CHECK(memcmp(t + 24, hdr, hdr_len) == 0);
	CHECK_EQ(recv(c->tfd, t, sizeof(t), 0), 0);
}

/* The queue ended the connection without a word: the stream just ends. */
static void expect_no_term(struct conn *c)
{
	uint8_t t[64];
	struct pollfd pfd = { .fd = c->tfd, .events = POLLIN };

	CHECK_EQ(poll(&pfd, 1, 3000), 1);
	CHECK_EQ(recv(c->tfd, t, sizeof(t), MSG_DONTWAIT), 0);
}

static void test_digest_errors(void)
{
	struct conn_opts o = { .hd = 1, .dd = 1 };
	uint8_t cap[80], pdu[4200], d[4096];
	struct nvmf_req *r;
	struct gbuf g;
	struct conn c;
	size_t n;

	/* a response with a wrong header digest */
	if (conn_open(&c, &o))
		return;
	r = submit_rw(c.q, NVME_CMD_READ, d, 4096, 0);
	CHECK(read_capsule(&c, cap) == 0);
	n = pdu_rsp(pdu, 1, r->cid, 0);
	pdu[24] ^= 1;
	expect_fatal(&c, pdu, n, -EPROTO, "header digest mismatch on a CapsuleResp PDU");
	/* FES 03h, no FEI; the header without its digest */
	expect_term(&c, 0x03, 0, pdu, 24);
	conn_close(&c);

	/* C2HData with a wrong data digest (the header's is right): that read fails with Data
	 * Transfer Error once its response comes, and the queue goes on; the next read, its data
	 * in two PDUs with the second's digest wrong and SUCCESS instead of a response, too; then
	 * a good one.  All arriving at once, then with the header alone first (data and digest
	 * read straight into place). */
	for (int split = 0; split <= 1; split++) {
		struct nvmf_xport_stats st;

		if (conn_open(&c, &o))
			return;
		gbuf_init(&g, 4096);
		pattern(d, sizeof(d), 2);
		r = submit_rw(c.q, NVME_CMD_READ, g.p, 4096, 0);
		CHECK(read_capsule(&c, cap) == 0);
		n = pdu_c2h(pdu, 1, 1, r->cid, 0, d, 4096, 0x04);
		pdu[n - 1] ^= 0x80;
		if (split) {
			tgt_write(c.tfd, pdu, 28);
			CHECK_EQ(nvmf_queue_process(c.q), 0);
			tgt_write(c.tfd, pdu + 28, n - 28);
		} else {
			tgt_write(c.tfd, pdu, n);
		}
		CHECK_EQ(nvmf_queue_process(c.q), 0);
		CHECK(r->state == NVMF_REQ_INFLIGHT);
		tgt_write(c.tfd, pdu, pdu_rsp(pdu, 1, r->cid, 0));
		CHECK_EQ(reap_until(c.q, r), 0);
		/* SCT 0h, SC 04h: status field bits 8:1 of the word */
		CHECK_EQ(le16toh(r->cqe.status) & 0xfffe, 0x0008);
		CHECK(gbuf_guards_ok(&g));
		nvmf_queue_put(c.q, r);

		r = submit_rw(c.q, NVME_CMD_READ, g.p, 4096, 0);
		CHECK(read_capsule(&c, cap) == 0);
		n = pdu_c2h(pdu, 1, 1, r->cid, 0, d, 2048, 0);
		tgt_write(c.tfd, pdu, n);
		n = pdu_c2h(pdu, 1, 1, r->cid, 2048, d + 2048, 2048, 0x04 | 0x08);
		pdu[n - 4] ^= 0x01;
		tgt_write(c.tfd, pdu, n);
		CHECK_EQ(reap_until(c.q, r), 0);
		CHECK_EQ(le16toh(r->cqe.status) & 0xfffe, 0x0008);
		nvmf_queue_put(c.q, r);

		memset(g.p, 0, 4096);
		r = submit_rw(c.q, NVME_CMD_READ, g.p, 4096, 0);
		CHECK(read_capsule(&c, cap) == 0);
		tgt_write(c.tfd, pdu, pdu_c2h(pdu, 1, 1, r->cid, 0, d, 4096, 0x04 | 0x08));
		CHECK_EQ(reap_until(c.q, r), 0);
		CHECK_EQ(le16toh(r->cqe.status), 0);
		CHECK(memcmp(g.p, d, 4096) == 0);
		CHECK(gbuf_guards_ok(&g));
		nvmf_queue_put(c.q, r);
		CHECK_EQ(c.q->fatal, 0);
		memset(&st, 0, sizeof(st));
		nvmf_fabric_tcp.stats(c.q, &st);
		CHECK_EQ(st.ddgst_errors, 2u);
		free(g.base);
		conn_close(&c);
	}

	/* C2HData whose header digest is wrong, in one piece with its data: a speculative read
	 * may have put the data into the read's own buffer (the read fails: its buffer has no
	 * defined contents), never outside it */
	if (conn_open(&c, &o))
		return;
	gbuf_init(&g, 4096);
	r = submit_rw(c.q, NVME_CMD_READ, g.p, 4096, 0);
	CHECK(read_capsule(&c, cap) == 0);
	n = pdu_c2h(pdu, 1, 1, r->cid, 0, d, 4096, 0x04);
	pdu[25] ^= 0x01;
	expect_fatal(&c, pdu, n, -EPROTO, "header digest mismatch on a C2HData PDU");
	expect_term(&c, 0x03, 0, pdu, 24);
	CHECK(gbuf_guards_ok(&g));
	free(g.base);
	conn_close(&c);
}

static void test_protocol_errors(void)
{
	struct conn_opts o = { 0 };
	uint8_t cap[80], pdu[16384], d[8192];
	char want[160];
	struct nvmf_req *r;
	struct gbuf g;
	struct conn c;
	size_t n;

	pattern(d, sizeof(d), 4);

	/* R2T beyond the command */
	if (conn_open(&c, &o))
		return;
	r = submit_rw(c.q, NVME_CMD_WRITE, d, 8192, 0);
	CHECK(read_capsule(&c, cap) == 0);
	snprintf(want, sizeof(want), "queue 1: R2T for command 0x%04x at offset 0+8193 beyond its "
		 "8192-byte buffer", r->cid);
	expect_fatal(&c, pdu, pdu_r2t(pdu, 0, r->cid, 1, 0, 8193), -EPROTO, want);
	expect_term(&c, 0x04, 0, pdu, 24);
	conn_close(&c);

	/* R2T for a read */
	if (conn_open(&c, &o))
		return;
	r = submit_rw(c.q, NVME_CMD_READ, d, 8192, 0);
	CHECK(read_capsule(&c, cap) == 0);
	expect_fatal(&c, pdu, pdu_r2t(pdu, 0, r->cid, 1, 0, 512), -EPROTO,
		     "which has no data for the controller to fetch");
	expect_term(&c, 0x01, 8, pdu, 24);
	conn_close(&c);

	/* R2T with R2TL 0 */
	if (conn_open(&c, &o))
		return;
	r = submit_rw(c.q, NVME_CMD_WRITE, d, 8192, 0);
	CHECK(read_capsule(&c, cap) == 0);
	expect_fatal(&c, pdu, pdu_r2t(pdu, 0, r->cid, 1, 0, 0), -EPROTO, "R2TL 0");
	expect_term(&c, 0x01, 16, pdu, 24);
	conn_close(&c);

	/* C2HData beyond the buffer: the first PDU lands, the second is refused untouched */
	if (conn_open(&c, &o))
		return;
	gbuf_init(&g, 8192);
	r = submit_rw(c.q, NVME_CMD_READ, g.p, 8192, 0);
	CHECK(read_capsule(&c, cap) == 0);
	n = pdu_c2h(pdu, 0, 0, r->cid, 0, d, 8192, 0);
	n += pdu_c2h(pdu + n, 0, 0, r->cid, 8192, d, 4096, 0x04);
	snprintf(want, sizeof(want), "queue 1: C2HData for command 0x%04x at offset 8192+4096 beyond "
		 "its 8192-byte buffer", r->cid);
	expect_fatal(&c, pdu, n, -EPROTO, want);
	CHECK_STR(c.q->fatal_msg, want);
	/* FES 04h, FEI reserved; the second C2HData's header */
	expect_term(&c, 0x04, 0, pdu + 24 + 8192, 24);
	CHECK(memcmp(g.p, d, 8192) == 0);
	CHECK(gbuf_guards_ok(&g));
	free(g.base);
	conn_close(&c);

	/* C2HData out of order */
	if (conn_open(&c, &o))
		return;
	r = submit_rw(c.q, NVME_CMD_READ, d, 8192, 0);
	CHECK(read_capsule(&c, cap) == 0);
	expect_fatal(&c, pdu, pdu_c2h(pdu, 0, 0, r->cid, 4096, d, 4096, 0), -EPROTO,
		     "at offset 4096, expected 0 (data out of order)");
	expect_term(&c, 0x01, 12, pdu, 24);
	conn_close(&c);

	/* C2HData for an unknown command, and for a write */
	if (conn_open(&c, &o))
		return;
	r = submit_rw(c.q, NVME_CMD_READ, d, 8192, 0);
	CHECK(read_capsule(&c, cap) == 0);
	snprintf(want, sizeof(want), "queue 1: C2HData for unknown command 0x%04x", r->cid ^ 0x100);
	expect_fatal(&c, pdu, pdu_c2h(pdu, 0, 0, r->cid ^ 0x100, 0, d, 512, 0), -EPROTO, want);
	CHECK_STR(c.q->fatal_msg, want);
	/* CCCID, byte 8 */
	expect_term(&c, 0x01, 8, pdu, 24);
	conn_close(&c);
	if (conn_open(&c, &o))
		return;
	r = submit_rw(c.q, NVME_CMD_WRITE, d, 8192, 0);
	CHECK(read_capsule(&c, cap) == 0);
	expect_fatal(&c, pdu, pdu_c2h(pdu, 0, 0, r->cid, 0, d, 512, 0), -EPROTO, "which reads no data");
	expect_term(&c, 0x01, 8, pdu, 24);
	conn_close(&c);

	/* a response while an R2T's data is still to be sent */
	if (conn_open(&c, &o))
		return;
	r = submit_rw(c.q, NVME_CMD_WRITE, d, 8192, 0);
	CHECK(read_capsule(&c, cap) == 0);
	/* the R2T and the response arrive in one read: the H2CData is not out yet */
	n = pdu_r2t(pdu, 0, r->cid, 7, 0, 8192);
	n += pdu_rsp(pdu + n, 0, r->cid, 0);
	expect_fatal(&c, pdu, n, -EPROTO, "while its data was still being sent (R2T at 0+8192)");
	/* a PDU sequence error; no H2CData went out ahead of the TermReq */
	expect_term(&c, 0x02, 0, pdu + 24, 24);
	conn_close(&c);

	/* unknown PDU type, a host-to-controller type, bad HLEN */
	if (conn_open(&c, &o))
		return;
	memset(pdu, 0, 24);
	pdu[0] = 0x0b;
	pdu[2] = 24;
	put32(pdu + 4, 24);
	expect_fatal(&c, pdu, 24, -EPROTO, "queue 1: unknown PDU type 0x0b");
	/* the type, byte 0; its whole 24-byte header came with the common one */
	expect_term(&c, 0x01, 0, pdu, 24);
	conn_close(&c);
	if (conn_open(&c, &o))
		return;
	pdu[0] = 0x06;
	expect_fatal(&c, pdu, 24, -EPROTO, "H2CData PDU (type 0x06) from the controller");
	expect_term(&c, 0x01, 0, pdu, 24);
	conn_close(&c);
	if (conn_open(&c, &o))
		return;
	n = pdu_rsp(pdu, 0, 1, 0);
	pdu[2] = 28;
	expect_fatal(&c, pdu, n, -EPROTO, "CapsuleResp PDU with HLEN 28 (expected 24)");
	/* HLEN, byte 2; of the 28 bytes it claims, the 24 that came */
	expect_term(&c, 0x01, 2, pdu, 24);
	conn_close(&c);
	if (conn_open(&c, &o))
		return;
	n = pdu_c2h(pdu, 0, 0, 1, 0, d, 512, 0);
	put32(pdu + 16, 511);
	expect_fatal(&c, pdu, n, -EPROTO, "DATAL 511, but its PLEN 536 leaves 512 data bytes");
	expect_term(&c, 0x01, 16, pdu, 24);
	conn_close(&c);

	/* C2HTermReq */
	if (conn_open(&c, &o))
		return;
	r = submit_rw(c.q, NVME_CMD_READ, d, 8192, 0);
	CHECK(read_capsule(&c, cap) == 0);
	memset(pdu, 0, 24 + 72);
	pdu[0] = 0x03;
	pdu[2] = 24;
	put32(pdu + 4, 24 + 72);
	put16(pdu + 8, 0x01);
	put32(pdu + 10, 2);
	expect_fatal(&c, pdu, 24 + 72, -ECONNABORTED,
		     "C2HTermReq, invalid PDU header field (FES 0x1, FEI 0x2)");
	/* the controller ended it: no TermReq back */
	expect_no_term(&c);
	conn_close(&c);
	/* nor to a malformed one (PDO 4) */
	if (conn_open(&c, &o))
		return;
	pdu[3] = 4;
	expect_fatal(&c, pdu, 24 + 72, -EPROTO, "C2HTermReq PDU with PDO 4 (expected 0)");
	expect_no_term(&c);
	conn_close(&c);

	/* a response for an unknown command: the queue's own words */
	if (conn_open(&c, &o))
		return;
	r = submit_rw(c.q, NVME_CMD_READ, d, 8192, 0);
	CHECK(read_capsule(&c, cap) == 0);
	snprintf(want, sizeof(want), "queue 1: response for unknown command ID 0x%04x (status "
		 "0x0000)", r->cid ^ 0x40);
	expect_fatal(&c, pdu, pdu_rsp(pdu, 0, r->cid ^ 0x40, 0), -EPROTO, want);
	CHECK_STR(c.q->fatal_msg, want);
	/* the CQE's CID: byte 8 + 12 of the CapsuleResp */
	expect_term(&c, 0x01, 20, pdu, 24);
	conn_close(&c);

	/* the target closes */
	if (conn_open(&c, &o))
		return;
	r = submit_rw(c.q, NVME_CMD_READ, d, 8192, 0);
	CHECK(read_capsule(&c, cap) == 0);
	shutdown(c.tfd, SHUT_WR);
	{
		char why[160] = "";

		CHECK_EQ(nvmf_fabric_tcp.conn_check(c.q, why, sizeof(why)), -ENOTCONN);
		CHECK(strstr(why, "closed the connection") != NULL);
	}
	expect_fatal(&c, pdu, 0, -ENOTCONN, "the target at a local socket closed the connection");
	expect_no_term(&c);
	conn_close(&c);
}

static void test_data_success(void)
{
	struct conn_opts o = { 0 };
	uint8_t cap[80], pdu[8192], d[4096];
	struct nvmf_req *r;
	struct gbuf g;
	struct conn c;
	uint16_t cid;

	if (conn_open(&c, &o))
		return;
	gbuf_init(&g, 4096);
	pattern(d, sizeof(d), 8);
	r = submit_rw(c.q, NVME_CMD_READ, g.p, 4096, 0);
	CHECK(read_capsule(&c, cap) == 0);
	cid = r->cid;
	tgt_write(c.tfd, pdu, pdu_c2h(pdu, 0, 0, cid, 0, d, 4096, 0x04 | 0x08));
	CHECK_EQ(reap_until(c.q, r), 0);
	CHECK(r->state == NVMF_REQ_COMPLETE);
	CHECK_EQ(le16toh(r->cqe.cid), cid);
	CHECK_EQ(le16toh(r->cqe.status), 0);
	CHECK_EQ(le16toh(r->cqe.sqid), QID);
	CHECK(memcmp(g.p, d, sizeof(d)) == 0);
	CHECK(gbuf_guards_ok(&g));
	nvmf_queue_put(c.q, r);
	/* SUCCESS without LAST is a protocol error */
	r = submit_rw(c.q, NVME_CMD_READ, g.p, 4096, 0);
	CHECK(read_capsule(&c, cap) == 0);
	expect_fatal(&c, pdu, pdu_c2h(pdu, 0, 0, r->cid, 0, d, 4096, 0x08), -EPROTO,
		     "SUCCESS flag but not LAST");
	expect_term(&c, 0x01, 1, pdu, 24);
	free(g.base);
	conn_close(&c);
}

/* Three 32 KiB in-capsule writes through a small send buffer: the host's socket takes part of
 * them; the rest goes out as the target reads, from later reaps; SEND completions only once
 * a capsule is out entirely. */
static void test_short_sends(void)
{
	struct conn_opts o = { .sndbuf = 4096, .dd = 1 };
	enum { N = 3, LEN = 32768 };
	static uint8_t data[N][LEN], got[LEN];
	struct nvmf_req *r[N];
	uint8_t h[80], pdu[64], dg[4];
	struct conn c;

	if (conn_open(&c, &o))
		return;
	for (int i = 0; i < N; i++) {
		struct nvmf_req *x = nvmf_queue_get(c.q, NULL);

		pattern(data[i], LEN, (unsigned)i * 11);
		nvme_cmd_rw_sgl(nvmf_req_sqe(c.q, x), NVME_CMD_WRITE, 1, (uint64_t)i * 64, 64, 0, 0,
				LEN, 0);
		nvmf_queue_stage(c.q, x, data[i], LEN, 0);
		r[i] = x;
	}
	CHECK_EQ(nvmf_queue_flush(c.q), N);
	reap_n(c.q, 3);
	/* the last capsule cannot have gone out: the socket holds far less */
	CHECK(!(r[N - 1]->done & NVMF_REQ_SEND_DONE));
	for (int i = 0; i < N; i++) {
		CHECK(tgt_read(c.q, c.tfd, h, 72) == 0);
		CHECK_EQ(h[0], 0x04);
		CHECK_EQ(h[3], 72);
		CHECK_EQ(raw_le(h, 4, 4), 72 + LEN + 4);
		CHECK_EQ(raw_le(h, 8 + 2, 2), r[i]->cid);
		CHECK(tgt_read(c.q, c.tfd, got, LEN) == 0);
		CHECK(memcmp(got, data[i], LEN) == 0);
		CHECK(tgt_read(c.q, c.tfd, dg, 4) == 0);
		CHECK_EQ(raw_le(dg, 0, 4), nvmf_crc32c(data[i], LEN));
	}
	reap_n(c.q, 2);
	for (int i = 0; i < N; i++)
		CHECK(r[i]->done & NVMF_REQ_SEND_DONE);
	{
		/* 32 KiB of in-capsule data each, under the 64 KiB from which data is spliced:
		 * copied by sendmsg, through the small socket buffer in pieces */
		struct nvmf_xport_stats st;

		memset(&st, 0, sizeof(st));
		nvmf_fabric_tcp.stats(c.q, &st);
		CHECK_EQ(st.tx_copied, (uint64_t)N * LEN);
		CHECK_EQ(st.tx_spliced, 0);
	}
	for (int i = 0; i < N; i++)
		tgt_write(c.tfd, pdu, pdu_rsp(pdu, 0, r[i]->cid, 0));
	for (int i = 0; i < N; i++) {
		CHECK_EQ(reap_until(c.q, r[i]), 0);
		nvmf_queue_put(c.q, r[i]);
	}
	conn_close(&c);

	/* H2CData through the small buffer: a 128 KiB write in 64 KiB PDUs, each payload spliced
	 * (vmsplice, then splice in as many pieces as the socket takes), the header before it */
	{
		struct conn_opts o2 = { .sndbuf = 4096, .maxh2c = 65536 };
		static uint8_t src[131072];
		struct nvmf_req *w;

		if (conn_open(&c, &o2))
			return;
		pattern(src, sizeof(src), 99);
		w = submit_rw(c.q, NVME_CMD_WRITE, src, sizeof(src), 0);
		CHECK(read_capsule(&c, h) == 0);
		tgt_write(c.tfd, pdu, pdu_r2t(pdu, 0, w->cid, 0x55, 0, sizeof(src)));
		for (unsigned off = 0; off < sizeof(src); off += 65536)
			expect_h2c(&c, w->cid, 0x55, off, 65536, off + 65536 == sizeof(src), src, 4);
		tgt_write(c.tfd, pdu, pdu_rsp(pdu, 0, w->cid, 0));
		CHECK_EQ(reap_until(c.q, w), 0);
		{
			struct nvmf_xport_stats st;

			memset(&st, 0, sizeof(st));
			nvmf_fabric_tcp.stats(c.q, &st);
			CHECK_EQ(st.tx_spliced, sizeof(src));
			CHECK_EQ(st.tx_copied, 0);
		}
		nvmf_queue_put(c.q, w);
		conn_close(&c);
	}
}

/* No pipe to be had (the process is out of file descriptors): a large H2CData is copied by
 * sendmsg instead, the same bytes on the wire. */
static void test_splice_fallback(void)
{
	struct conn_opts o = { .maxh2c = 65536 };
	static uint8_t src[65536];
	struct nvmf_xport_stats st;
	struct rlimit old, lim;
	uint8_t h[80], pdu[64];
	struct nvmf_req *w;
	struct conn c;
	int probe;

	if (conn_open(&c, &o))
		return;
	pattern(src, sizeof(src), 7);
	CHECK(getrlimit(RLIMIT_NOFILE, &old) == 0);
	probe = dup(0);             /* the lowest free descriptor: the limit ends just past it */
	CHECK(probe >= 0);
	close(probe);
	lim = old;
	lim.rlim_cur = (rlim_t)probe + 1;   /* room for one more descriptor, not for a pipe's two */
	CHECK(setrlimit(RLIMIT_NOFILE, &lim) == 0);
	w = submit_rw(c.q, NVME_CMD_WRITE, src, sizeof(src), 0);
	CHECK(read_capsule(&c, h) == 0);
	tgt_write(c.tfd, pdu, pdu_r2t(pdu, 0, w->cid, 0x77, 0, sizeof(src)));
	expect_h2c(&c, w->cid, 0x77, 0, sizeof(src), 1, src, 4);
	CHECK(setrlimit(RLIMIT_NOFILE, &old) == 0);
	tgt_write(c.tfd, pdu, pdu_rsp(pdu, 0, w->cid, 0));
	CHECK_EQ(reap_until(c.q, w), 0);
	memset(&st, 0, sizeof(st));
	nvmf_fabric_tcp.stats(c.q, &st);
	CHECK_EQ(st.tx_copied, sizeof(src));
	CHECK_EQ(st.tx_spliced, 0);
	nvmf_queue_put(c.q, w);
	conn_close(&c);
}

static void stats_of(struct nvmf_queue *q, struct nvmf_xport_stats *st)
{
	memset(st, 0, sizeof(*st));
	nvmf_fabric_tcp.stats(q, st);
}

/* One write of LEN bytes at SRC answered by a single R2T (TTAG): the H2CData PDU the target
 * reads back carries it all, then the response completes the write. */
static void stats_write_r2t(struct conn *c, const uint8_t *src, uint32_t len, uint16_t ttag)
{
	static uint8_t got[65536];
	uint8_t cap[80], pdu[64], h2c[24];
	struct nvmf_req *r;

	CHECK(len <= sizeof(got));
	r = submit_rw(c->q, NVME_CMD_WRITE, (void *)(uintptr_t)src, len, 0);
	CHECK(tgt_read(NULL, c->tfd, cap, 72) == 0);
	tgt_write(c->tfd, pdu, pdu_r2t(pdu, 0, r->cid, ttag, 0, len));
	CHECK_EQ(nvmf_queue_process(c->q), 0);
	CHECK(tgt_read(NULL, c->tfd, h2c, 24) == 0);
	CHECK_EQ(h2c[0], 0x06);
	CHECK_EQ(raw_le(h2c, 10, 2), ttag);
	CHECK_EQ(raw_le(h2c, 16, 4), len);
	CHECK(tgt_read(NULL, c->tfd, got, len) == 0);
	CHECK(memcmp(got, src, len) == 0);
	tgt_write(c->tfd, pdu, pdu_rsp(pdu, 0, r->cid, 0));
	CHECK_EQ(nvmf_queue_process(c->q), 1);
	nvmf_queue_put(c->q, r);
}

/* The data path's counters, exactly, over a scripted exchange: every readv and sendmsg, and
 * where each C2HData byte went (copied out of the receive buffer, or read straight in). */
static void test_stats(void)
{
	struct conn_opts o = { 0 };
	uint8_t cap[80], pdu[8192 + 64], d[4096], w[8192];
	struct nvmf_xport_stats st;
	struct nvmf_req *r;
	struct gbuf g;
	struct conn c;
	size_t n;

	if (conn_open(&c, &o))
		return;
	/* the ICReq/ICResp exchange is not the data path */
	stats_of(c.q, &st);
	CHECK_EQ(st.rx_calls, 0);
	CHECK_EQ(st.tx_calls, 0);
	gbuf_init(&g, 4096);
	pattern(d, sizeof(d), 3);

	/* a read whose data and response come in one piece: one sendmsg for the capsule; one
	 * (speculative) readv takes it all, the header into its place, the data straight into
	 * the buffer, the response into the receive buffer; it took less than it had room for,
	 * so no second readv looks for more */
	r = submit_rw(c.q, NVME_CMD_READ, g.p, 4096, 0);
	CHECK(tgt_read(NULL, c.tfd, cap, 72) == 0);
	n = pdu_c2h(pdu, 0, 0, r->cid, 0, d, 4096, 0x04);
	n += pdu_rsp(pdu + n, 0, r->cid, 0);
	tgt_write(c.tfd, pdu, n);
	CHECK_EQ(nvmf_queue_process(c.q), 1);
	CHECK(r->state == NVMF_REQ_COMPLETE);
	CHECK(memcmp(g.p, d, 4096) == 0);
	nvmf_queue_put(c.q, r);
	stats_of(c.q, &st);
	CHECK_EQ(st.tx_calls, 1);
	CHECK_EQ(st.rx_calls, 1);
	CHECK_EQ(st.rx_copied, 0);
	CHECK_EQ(st.rx_direct, 4096);
	CHECK_EQ(st.rx_spec, 1);
	CHECK_EQ(st.rx_spec_miss, 0);

	/* the header alone first (one readv with it), then data and response: one readv puts
	 * the data straight into the buffer and the response into the receive buffer; each
	 * read short of its room ends its reap */
	memset(g.p, 0, 4096);
	r = submit_rw(c.q, NVME_CMD_READ, g.p, 4096, 0);
	CHECK(tgt_read(NULL, c.tfd, cap, 72) == 0);
	n = pdu_c2h(pdu, 0, 0, r->cid, 0, d, 4096, 0x04);
	n += pdu_rsp(pdu + n, 0, r->cid, 0);
	tgt_write(c.tfd, pdu, 24);
	CHECK_EQ(nvmf_queue_process(c.q), 0);
	tgt_write(c.tfd, pdu + 24, n - 24);
	CHECK_EQ(nvmf_queue_process(c.q), 1);
	CHECK(r->state == NVMF_REQ_COMPLETE);
	CHECK(memcmp(g.p, d, 4096) == 0);
	CHECK(gbuf_guards_ok(&g));
	nvmf_queue_put(c.q, r);
	stats_of(c.q, &st);
	CHECK_EQ(st.tx_calls, 2);
	CHECK_EQ(st.rx_calls, 3);
	CHECK_EQ(st.rx_copied, 0);
	CHECK_EQ(st.rx_direct, 8192);
	CHECK_EQ(st.rx_spec, 2);

	/* a write by R2T: the capsule (one sendmsg); the R2T (a readv), answered with one
	 * sendmsg of H2CData; the response (a readv).  No C2HData. */
	pattern(w, sizeof(w), 6);
	stats_write_r2t(&c, w, sizeof(w), 3);
	stats_of(c.q, &st);
	CHECK_EQ(st.tx_calls, 4);
	CHECK_EQ(st.rx_calls, 5);
	CHECK_EQ(st.rx_copied, 0);
	CHECK_EQ(st.rx_direct, 8192);
	CHECK_EQ(st.rx_spec, 2);
	CHECK_EQ(st.tx_copied, 8192);   /* under 64 KiB: copied by sendmsg */
	CHECK_EQ(st.tx_spliced, 0);

	/* a 64 KiB write by R2T: the capsule (a sendmsg); the H2CData header (a sendmsg with
	 * MSG_MORE), its payload by reference (a vmsplice into the pipe, a splice into the
	 * socket): four send calls, nothing copied */
	{
		static uint8_t big[65536];

		pattern(big, sizeof(big), 8);
		stats_write_r2t(&c, big, sizeof(big), 4);
		stats_of(c.q, &st);
		CHECK_EQ(st.tx_calls, 8);
		CHECK_EQ(st.rx_calls, 7);
		CHECK_EQ(st.tx_copied, 8192);
		CHECK_EQ(st.tx_spliced, 65536);
	}

	/* a refused PDU: the H2CTermReq is one more sendmsg */
	r = submit_rw(c.q, NVME_CMD_READ, g.p, 4096, 0);
	CHECK(tgt_read(NULL, c.tfd, cap, 72) == 0);
	expect_fatal(&c, pdu, pdu_c2h(pdu, 0, 0, r->cid ^ 0x100, 0, d, 512, 0), -EPROTO,
		     "C2HData for unknown command");
	expect_term(&c, 0x01, 8, pdu, 24);
	stats_of(c.q, &st);
	CHECK_EQ(st.tx_calls, 10);
	CHECK_EQ(st.rx_copied, 0);
	CHECK_EQ(st.rx_spec_miss, 0);
	free(g.base);
	conn_close(&c);
}

/* Counters since *base, exactly; *base becomes the current ones. */
static void stats_delta(struct nvmf_queue *q, struct nvmf_xport_stats *base, uint64_t copied,
			uint64_t direct, uint64_t miss, int line)
{
	struct nvmf_xport_stats st;

	stats_of(q, &st);
	if (st.rx_copied - base->rx_copied != copied || st.rx_direct - base->rx_direct != direct ||
	    st.rx_spec_miss - base->rx_spec_miss != miss) {
		fprintf(stderr, "line %d: copied %llu direct %llu moved back %llu, want %llu %llu "
			"%llu\n", line, (unsigned long long)(st.rx_copied - base->rx_copied),
			(unsigned long long)(st.rx_direct - base->rx_direct),
			(unsigned long long)(st.rx_spec_miss - base->rx_spec_miss),
			(unsigned long long)copied, (unsigned long long)direct,
			(unsigned long long)miss);
		CHECK(!"receive counters");
	}
	*base = st;
}
#define STATS_DELTA(q, b, c, d, m) stats_delta(q, b, c, d, m, __LINE__)

/* Speculative placement: with a read expecting data, a new PDU's readv puts one C2HData
 * header's worth into the header area and what follows into that read's buffer.  Right
 * guesses copy nothing; wrong ones are moved back in stream order.  Every digest setting. */
static void test_spec(void)
{
	static uint8_t pdu[3 * 8192 + 256], d[8192], d2[8192];
	uint8_t cap[80], h2c[28];
	struct nvmf_xport_stats st;
	struct gbuf g, g2;
	struct nvmf_req *r, *r2;
	struct conn c;
	size_t n;

	pattern(d, sizeof(d), 41);
	pattern(d2, sizeof(d2), 77);
	for (int dg = 0; dg < 4; dg++) {
		struct conn_opts o = { .hd = dg & 1, .dd = dg >> 1 };
		int hd = o.hd, dd = o.dd;
		unsigned hl = 24 + (hd ? 4 : 0);

		if (conn_open(&c, &o))
			return;
		stats_of(c.q, &st);

		/* QD1: C2HData, its data and the response in one piece: nothing copied */
		gbuf_init(&g, 4096);
		r = submit_rw(c.q, NVME_CMD_READ, g.p, 4096, 0);
		CHECK(read_capsule(&c, cap) == 0);
		n = pdu_c2h(pdu, hd, dd, r->cid, 0, d, 4096, 0x04);
		n += pdu_rsp(pdu + n, hd, r->cid, 0);
		tgt_write(c.tfd, pdu, n);
		CHECK_EQ(nvmf_queue_process(c.q), 1);
		CHECK(r->state == NVMF_REQ_COMPLETE);
		CHECK(memcmp(g.p, d, 4096) == 0);
		CHECK(gbuf_guards_ok(&g));
		nvmf_queue_put(c.q, r);
		STATS_DELTA(c.q, &st, 0, 4096, 0);

		/* the same stream cut in two at every byte: the data, the CQE; copied only when
		 * the cut is inside the header (the next read is no guess then) */
		for (size_t cut = 1; cut < n; cut++) {
			memset(g.p, 0xee, 4096);
			r = submit_rw(c.q, NVME_CMD_READ, g.p, 4096, 0);
			CHECK(read_capsule(&c, cap) == 0);
			n = pdu_c2h(pdu, hd, dd, r->cid, 0, d, 4096, 0x04);
			n += pdu_rsp(pdu + n, hd, r->cid, 0);
			tgt_write(c.tfd, pdu, cut);
			CHECK_EQ(nvmf_queue_process(c.q), 0);
			tgt_write(c.tfd, pdu + cut, n - cut);
			CHECK_EQ(nvmf_queue_process(c.q), 1);
			CHECK(r->state == NVMF_REQ_COMPLETE);
			CHECK_EQ(le16toh(r->cqe.cid), r->cid);
			CHECK_EQ(r->cqe.status, 0);
			CHECK(memcmp(g.p, d, 4096) == 0);
			CHECK(gbuf_guards_ok(&g));
			nvmf_queue_put(c.q, r);
			STATS_DELTA(c.q, &st, cut < hl ? 4096 : 0, cut < hl ? 0 : 4096, 0);
		}

		/* a response first (an in-capsule write's) while a read is guessed: the read's
		 * header and the first 4096 bytes after it landed in its buffer, moved back */
		memset(g.p, 0xee, 4096);
		r = submit_rw(c.q, NVME_CMD_READ, g.p, 4096, 0);
		CHECK(read_capsule(&c, cap) == 0);
		r2 = submit_rw(c.q, NVME_CMD_WRITE, d2, 512, 1);
		CHECK(tgt_read(c.q, c.tfd, pdu, 72 + (hd ? 4 : 0) + 512 + (dd ? 4 : 0)) == 0);
		n = pdu_rsp(pdu, hd, r2->cid, 0);
		n += pdu_c2h(pdu + n, hd, dd, r->cid, 0, d, 4096, 0x04);
		n += pdu_rsp(pdu + n, hd, r->cid, 0);
		tgt_write(c.tfd, pdu, n);
		CHECK_EQ(nvmf_queue_process(c.q), 2);
		CHECK(r->state == NVMF_REQ_COMPLETE && r2->state == NVMF_REQ_COMPLETE);
		CHECK(memcmp(g.p, d, 4096) == 0);
		CHECK(gbuf_guards_ok(&g));
		nvmf_queue_put(c.q, r);
		nvmf_queue_put(c.q, r2);
		STATS_DELTA(c.q, &st, 4096, 0, 4096);

		/* C2HData for the second read while the first is guessed: the second's data
		 * moved out of the first's buffer; the first's (later, from the receive buffer)
		 * copied */
		gbuf_init(&g2, 4096);
		memset(g.p, 0xee, 4096);
		r = submit_rw(c.q, NVME_CMD_READ, g.p, 4096, 0);
		CHECK(read_capsule(&c, cap) == 0);
		r2 = submit_rw(c.q, NVME_CMD_READ, g2.p, 4096, 0);
		CHECK(read_capsule(&c, cap) == 0);
		n = pdu_c2h(pdu, hd, dd, r2->cid, 0, d2, 4096, 0x04);
		n += pdu_rsp(pdu + n, hd, r2->cid, 0);
		n += pdu_c2h(pdu + n, hd, dd, r->cid, 0, d, 4096, 0x04);
		n += pdu_rsp(pdu + n, hd, r->cid, 0);
		tgt_write(c.tfd, pdu, n);
		CHECK_EQ(nvmf_queue_process(c.q), 2);
		CHECK(r->state == NVMF_REQ_COMPLETE && r2->state == NVMF_REQ_COMPLETE);
		CHECK(memcmp(g.p, d, 4096) == 0);
		CHECK(memcmp(g2.p, d2, 4096) == 0);
		CHECK(gbuf_guards_ok(&g) && gbuf_guards_ok(&g2));
		nvmf_queue_put(c.q, r);
		nvmf_queue_put(c.q, r2);
		STATS_DELTA(c.q, &st, 8192, 0, 4096);

		/* an R2T (for a write) while a read is guessed, the read's PDUs behind it */
		memset(g.p, 0xee, 4096);
		r = submit_rw(c.q, NVME_CMD_READ, g.p, 4096, 0);
		CHECK(read_capsule(&c, cap) == 0);
		r2 = submit_rw(c.q, NVME_CMD_WRITE, d2, 4096, 0);
		CHECK(read_capsule(&c, cap) == 0);
		n = pdu_r2t(pdu, hd, r2->cid, 7, 0, 4096);
		n += pdu_c2h(pdu + n, hd, dd, r->cid, 0, d, 4096, 0x04);
		n += pdu_rsp(pdu + n, hd, r->cid, 0);
		tgt_write(c.tfd, pdu, n);
		CHECK_EQ(nvmf_queue_process(c.q), 1);
		CHECK(r->state == NVMF_REQ_COMPLETE);
		CHECK(memcmp(g.p, d, 4096) == 0);
		CHECK(gbuf_guards_ok(&g));
		CHECK(tgt_read(c.q, c.tfd, h2c, hl) == 0);
		CHECK_EQ(h2c[0], 0x06);
		CHECK(tgt_read(c.q, c.tfd, pdu, 4096 + (dd ? 4 : 0)) == 0);
		CHECK(memcmp(pdu, d2, 4096) == 0);
		tgt_write(c.tfd, pdu, pdu_rsp(pdu, hd, r2->cid, 0));
		CHECK_EQ(reap_until(c.q, r2), 0);
		nvmf_queue_put(c.q, r);
		nvmf_queue_put(c.q, r2);
		STATS_DELTA(c.q, &st, 4096, 0, 4096);

		/* two C2HData PDUs for one read (the PDU shorter than the guess): the first's
		 * data in place, what followed it in the buffer (digest, header, the second's
		 * data) moved back */
		free(g.base);
		gbuf_init(&g, 8192);
		r = submit_rw(c.q, NVME_CMD_READ, g.p, 8192, 0);
		CHECK(read_capsule(&c, cap) == 0);
		n = pdu_c2h(pdu, hd, dd, r->cid, 0, d, 4096, 0);
		n += pdu_c2h(pdu + n, hd, dd, r->cid, 4096, d + 4096, 4096, 0x04);
		n += pdu_rsp(pdu + n, hd, r->cid, 0);
		tgt_write(c.tfd, pdu, n);
		CHECK_EQ(nvmf_queue_process(c.q), 1);
		CHECK(r->state == NVMF_REQ_COMPLETE);
		CHECK(memcmp(g.p, d, 8192) == 0);
		CHECK(gbuf_guards_ok(&g));
		nvmf_queue_put(c.q, r);
		STATS_DELTA(c.q, &st, 4096, 4096, 4096);

		/* the same, the second PDU in a read of its own: both in place (the first's
		 * data digest landed in the buffer, moved back) */
		memset(g.p, 0xee, 8192);
		r = submit_rw(c.q, NVME_CMD_READ, g.p, 8192, 0);
		CHECK(read_capsule(&c, cap) == 0);
		n = pdu_c2h(pdu, hd, dd, r->cid, 0, d, 4096, 0);
		tgt_write(c.tfd, pdu, n);
		CHECK_EQ(nvmf_queue_process(c.q), 0);
		n = pdu_c2h(pdu, hd, dd, r->cid, 4096, d + 4096, 4096, 0x04);
		n += pdu_rsp(pdu + n, hd, r->cid, 0);
		tgt_write(c.tfd, pdu, n);
		CHECK_EQ(nvmf_queue_process(c.q), 1);
		CHECK(memcmp(g.p, d, 8192) == 0);
		CHECK(gbuf_guards_ok(&g));
		nvmf_queue_put(c.q, r);
		STATS_DELTA(c.q, &st, 0, 8192, dd ? 4 : 0);   /* the first's digest was guessed */

		/* C2HData with SUCCESS (no response capsule) */
		memset(g.p, 0xee, 8192);
		r = submit_rw(c.q, NVME_CMD_READ, g.p, 8192, 0);
		CHECK(read_capsule(&c, cap) == 0);
		tgt_write(c.tfd, pdu, pdu_c2h(pdu, hd, dd, r->cid, 0, d, 8192, 0x04 | 0x08));
		CHECK_EQ(nvmf_queue_process(c.q), 1);
		CHECK(r->state == NVMF_REQ_COMPLETE);
		CHECK_EQ(r->cqe.status, 0);
		CHECK(memcmp(g.p, d, 8192) == 0);
		CHECK(gbuf_guards_ok(&g));
		nvmf_queue_put(c.q, r);
		STATS_DELTA(c.q, &st, 0, 8192, 0);

		/* a C2HTermReq while a read is guessed: the queue ends with it, nothing written
		 * outside the read's buffer */
		r = submit_rw(c.q, NVME_CMD_READ, g.p, 8192, 0);
		CHECK(read_capsule(&c, cap) == 0);
		memset(pdu, 0, 24 + 72);
		pdu[0] = 0x03;
		pdu[2] = 24;
		put32(pdu + 4, 24 + 72);
		put16(pdu + 8, 0x01);
		put32(pdu + 10, 2);
		expect_fatal(&c, pdu, 24 + 72, -ECONNABORTED,
			     "C2HTermReq, invalid PDU header field (FES 0x1, FEI 0x2)");
		expect_no_term(&c);
		CHECK(gbuf_guards_ok(&g));
		STATS_DELTA(c.q, &st, 0, 0, 0);
		free(g.base);
		free(g2.base);
		conn_close(&c);
	}
}

/* A refused PDU while a capsule is half written (the socket full): the queue fails at once,
 * never waiting for room, and what reaches the target stays framed: the capsule's bytes, then
 * (as far as the socket took them) the H2CTermReq's, then the end. */
/* Issue 43, item 8: a read answered with less data than it asked for (a short transfer): its
 * buffer, zeroed before (as nvmf_get_log's is), keeps zeros past the data, although the
 * speculative read put the next PDUs (another read's C2HData among them) there first. */
static void test_short_c2h(void)
{
	struct conn_opts o = { 0 };
	static uint8_t a[8192], b[4096], da[4096], db[4096], stream[16384];
	uint8_t cap[80];
	struct nvmf_req *ra, *rb;
	struct conn c;
	size_t n = 0;

	if (conn_open(&c, &o))
		return;
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	pattern(da, sizeof(da), 21);
	pattern(db, sizeof(db), 22);
	ra = submit_rw(c.q, NVME_CMD_READ, a, sizeof(a), 0);
	rb = submit_rw(c.q, NVME_CMD_READ, b, sizeof(b), 0);
	CHECK(read_capsule(&c, cap) == 0);
	CHECK(read_capsule(&c, cap) == 0);
	/* A's first 4 KiB; A's response (it stops there); B's data and response, in one go */
	n = pdu_c2h(stream, 0, 0, ra->cid, 0, da, sizeof(da), 0);
	tgt_write(c.tfd, stream, n);
	CHECK_EQ(reap_n(c.q, 3), 0);
	n = pdu_rsp(stream, 0, ra->cid, 0);
	n += pdu_c2h(stream + n, 0, 0, rb->cid, 0, db, sizeof(db), 0);
	n += pdu_rsp(stream + n, 0, rb->cid, 0);
	tgt_write(c.tfd, stream, n);
	CHECK_EQ(reap_until(c.q, rb), 0);
	CHECK(ra->state == NVMF_REQ_COMPLETE);
	CHECK(memcmp(a, da, sizeof(da)) == 0);
	for (size_t i = 4096; i < sizeof(a); i++)
		if (a[i]) {
			fprintf(stderr, "short_c2h: byte %zu of the short read is 0x%02x, not 0\n", i, a[i]);
			CHECK(a[i] == 0);
			break;
		}
	CHECK(memcmp(b, db, sizeof(db)) == 0);
	{
		struct nvmf_xport_stats st;

		memset(&st, 0, sizeof(st));
		nvmf_fabric_tcp.stats(c.q, &st);
		CHECK(st.rx_spec_miss > 0);     /* the guess did put them there */
	}
	nvmf_queue_put(c.q, ra);
	nvmf_queue_put(c.q, rb);
	conn_close(&c);
}

static void test_term_socket_full(void)
{
	struct conn_opts o = { .sndbuf = 4096 };
	enum { LEN = 32768, CAP = 72 + LEN, ALL = CAP + 48 };
	static uint8_t data[LEN], want[ALL], got[ALL + 64];
	uint8_t bad[24];
	struct nvmf_req *r;
	struct conn c;
	size_t have = 0;
	uint64_t t0;

	if (conn_open(&c, &o))
		return;
	pattern(data, LEN, 5);
	r = nvmf_queue_get(c.q, NULL);
	nvme_cmd_rw_sgl(nvmf_req_sqe(c.q, r), NVME_CMD_WRITE, 1, 0, LEN / 512, 0, 0, LEN, 0);
	nvmf_queue_stage(c.q, r, data, LEN, 0);
	CHECK_EQ(nvmf_queue_flush(c.q), 1);
	CHECK(!(r->done & NVMF_REQ_SEND_DONE));
	memset(bad, 0, sizeof(bad));
	bad[0] = 0x0b;
	bad[2] = 24;
	put32(bad + 4, 24);
	t0 = now_ms();
	expect_fatal(&c, bad, sizeof(bad), -EPROTO, "queue 1: unknown PDU type 0x0b");
	CHECK(now_ms() - t0 < 1000);
	/* what the target can expect at most: the capsule, then the TermReq */
	memset(want, 0, 72);
	want[0] = 0x04;
	want[2] = 72;
	want[3] = 72;
	put32(want + 4, CAP);
	memcpy(want + 8, nvmf_req_sqe(c.q, r), 64);
	memcpy(want + 72, data, LEN);
	want[CAP] = 0x02;
	want[CAP + 2] = 24;
	put32(want + CAP + 4, 48);
	put16(want + CAP + 8, 0x01);
	memcpy(want + CAP + 24, bad, 24);
	for (;;) {
		struct pollfd pfd = { .fd = c.tfd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, 3000) != 1) {
			CHECK(!"the stream never ended");
			break;
		}
		n = recv(c.tfd, got + have, sizeof(got) - have, MSG_DONTWAIT);
		if (n <= 0)
			break;
		have += (size_t)n;
	}
	CHECK(have > 72 && have <= ALL);
	CHECK(memcmp(got, want, have) == 0);
	conn_close(&c);
}

/* The host closing a queue says nothing more: no TermReq, the stream just ends. */
static void test_close_quiet(void)
{
	struct conn_opts o = { 0 };
	uint8_t cap[80], d[4096];
	struct conn c;

	if (conn_open(&c, &o))
		return;
	CHECK(submit_rw(c.q, NVME_CMD_READ, d, 4096, 0) != NULL);
	CHECK(read_capsule(&c, cap) == 0);
	nvmf_fabric_tcp.destroy(c.q, 0);
	expect_no_term(&c);
	close(c.tfd);
}

static void test_kill(void)
{
	struct conn_opts o = { 0 };
	uint8_t cap[80], d[4096];
	struct nvmf_req *r;
	struct conn c;
	char why[160] = "";

	if (conn_open(&c, &o))
		return;
	r = submit_rw(c.q, NVME_CMD_READ, d, 4096, 0);
	CHECK(read_capsule(&c, cap) == 0);
	nvmf_fabric_tcp.kill(c.q);
	/* our own shut-off is no news for the connection check: the reap says it */
	CHECK_EQ(nvmf_fabric_tcp.conn_check(c.q, why, sizeof(why)), 0);
	CHECK_EQ(nvmf_queue_process(c.q), -ECONNABORTED);
	CHECK(strstr(c.q->fatal_msg, "queue 1: the connection to a local socket was shut off") != NULL);
	nvmf_queue_fail_all(c.q, c.q->fatal, c.q->fatal_msg);
	CHECK(r->state == NVMF_REQ_FREE);
	CHECK_EQ(c.q->nr_inflight, 0);
	/* the target sees the end */
	CHECK_EQ(recv(c.tfd, cap, sizeof(cap), 0), 0);
	conn_close(&c);

	if (conn_open(&c, &o))
		return;
	r = submit_rw(c.q, NVME_CMD_READ, d, 4096, 0);
	nvmf_fabric_tcp.kill_why(c.q, -ENOLINK, "queue 1: keep-alive lost");
	CHECK_EQ(nvmf_queue_process(c.q), -ENOLINK);
	CHECK_STR(c.q->fatal_msg, "queue 1: keep-alive lost");
	/* a flush after the kill fails too */
	CHECK(nvmf_queue_flush(c.q) <= 0);
	conn_close(&c);
	nvmf_fabric_tcp.destroy(NULL, 0);
	nvmf_fabric_tcp.kill(NULL);
}

/* Bytes a socket holds: to read (SIOCINQ) or still to send (SIOCOUTQ). */
static int sock_q(int fd, unsigned long req)
{
	int n = -1;

	return ioctl(fd, req, &n) == 0 ? n : -1;
}

/* Issue 43 (1): a killed queue's unsent bytes never leave the host.  A write by R2T whose data
 * the target has not taken (it does not read: its window is closed) waits in the host's
 * socket; the queue is killed, the command handed back, the buffer refilled (fio's next
 * write); then the target reads what comes.  It gets nothing past what it held at the kill:
 * neither the old bytes late (a copied H2CData, arriving after the write went elsewhere) nor
 * the new ones (spliced pages, sent after the refill).  A shutdown() alone (d49602e) let TCP
 * deliver the whole send queue once the target read. */
static void kill_unsent_case(uint32_t len)
{
	struct conn_opts o = { .tcp = 1, .rcvbuf = 4096, .maxh2c = 131072 };
	static uint8_t src[131072], sink[65536];
	uint8_t cap[80], pdu[64];
	struct nvmf_xport_stats st;
	int inq = -2, outq = -2, prev_in = -1, prev_out = -1;
	size_t got = 0;
	struct nvmf_req *w;
	struct conn c;
	uint64_t end;

	if (conn_open(&c, &o)) {
		fprintf(stderr, "no loopback TCP: the kill of unsent data is not tested\n");
		return;
	}
	pattern(src, len, len);
	w = submit_rw(c.q, NVME_CMD_WRITE, src, len, 0);
	CHECK(read_capsule(&c, cap) == 0);
	tgt_write(c.tfd, pdu, pdu_r2t(pdu, 0, w->cid, 0x21, 0, len));
	/* the host sends until the target's window closes, then nothing moves */
	for (int i = 0; i < 400 && (inq != prev_in || outq != prev_out || inq <= 0); i++) {
		prev_in = inq;
		prev_out = outq;
		nvmf_queue_process(c.q);
		usleep(2000);
		inq = sock_q(c.tfd, SIOCINQ);
		outq = sock_q(nvmf_tcp_queue_fd(c.q), SIOCOUTQ);
	}
	memset(&st, 0, sizeof(st));
	nvmf_fabric_tcp.stats(c.q, &st);
	CHECK_EQ(len >= 65536 ? st.tx_spliced : st.tx_copied, (uint64_t)(st.tx_spliced + st.tx_copied));
	/* the case is real: bytes of the write wait in the host's socket */
	CHECK(outq > 0);
	CHECK(inq > 0 && (size_t)inq < len);
	nvmf_fabric_tcp.kill(c.q);
	CHECK(nvmf_queue_process(c.q) < 0);
	nvmf_queue_fail_all(c.q, c.q->fatal, c.q->fatal_msg);
	CHECK(w->state == NVMF_REQ_FREE);
	memset(src, 0xa5, len);
	end = now_ms() + 300;
	while (now_ms() < end) {
		struct pollfd pfd = { .fd = c.tfd, .events = POLLIN };
		ssize_t r;

		if (poll(&pfd, 1, 10) <= 0)
			continue;
		r = recv(c.tfd, sink, sizeof(sink), MSG_DONTWAIT);
		if (r <= 0 && !(r < 0 && (errno == EAGAIN || errno == EINTR)))
			break;
		if (r > 0)
			got += (size_t)r;
	}
	if (got > (size_t)inq)
		fprintf(stderr, "kill_unsent %u: the target got %zu bytes, it held %d at the kill "
			"(%d still at the host)\n", len, got, inq, outq);
	CHECK(got <= (size_t)inq);
	conn_close(&c);
}

static void test_kill_unsent(void)
{
	kill_unsent_case(32768);     /* copied into the socket by sendmsg */
	kill_unsent_case(131072);    /* by reference: vmsplice + splice */
}

static void *kill_thread(void *arg)
{
	usleep(20000);
	nvmf_fabric_tcp.kill_why(arg, -ENOLINK, "queue 1: killed from the keep-alive thread");
	return NULL;
}

/* A kill from another thread while this one reaps: the reap fails with the kill's reason, not
 * with the end of stream the shutdown causes. */
static void test_kill_thread(void)
{
	struct conn_opts o = { 0 };
	uint8_t cap[80], d[4096];
	struct nvmf_req *r;
	struct conn c;
	pthread_t th;
	int rc;

	if (conn_open(&c, &o))
		return;
	r = submit_rw(c.q, NVME_CMD_READ, d, 4096, 0);
	CHECK(read_capsule(&c, cap) == 0);
	pthread_create(&th, NULL, kill_thread, c.q);
	rc = reap_until(c.q, r);
	pthread_join(th, NULL);
	CHECK_EQ(rc, -ENOLINK);
	CHECK_STR(c.q->fatal_msg, "queue 1: killed from the keep-alive thread");
	conn_close(&c);
}

/* An event-mode queue (use_events) on a socketpair, past its ICReq/ICResp: 0, or -1 (no
 * descriptors left, or the queue refused). */
static int event_queue_open(struct nvmf_queue **q, int *tfd)
{
	struct nvmf_fabric_params p;
	uint8_t ic[128];
	char err[256];
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return -1;
	icresp_bytes(ic, 0, 0, 0, 8192);
	tgt_write(sv[1], ic, sizeof(ic));
	memset(&p, 0, sizeof(p));
	p.qid = QID;
	p.entries = 4;
	p.timeout_ms = 1000;
	p.use_events = 1;
	if (nvmf_tcp_queue_create_fd(q, sv[0], &p, err, sizeof(err))) {
		close(sv[1]);
		return -1;
	}
	*tfd = sv[1];
	CHECK(tgt_read(NULL, *tfd, ic, sizeof(ic)) == 0);   /* the ICReq came */
	return 0;
}

struct late_write {
	int     fd;
	uint8_t pdu[64];
	size_t  len;
};

static void *late_write_thread(void *arg)
{
	struct late_write *w = arg;

	usleep(100000);
	tgt_write(w->fd, w->pdu, w->len);
	return NULL;
}

/* Event mode over every queue a job may hold (8 paths x 64: issue 43, item 10, the wait
 * watched 256): the last queue's response wakes the wait long before its timeout. */
static void test_events_512(void)
{
	enum { N = 512 };
	static int tfd[N];
	static struct nvmf_queue *qs[N];
	struct nvmf_queue *const *sets[1] = { qs };
	struct rlimit rl;
	uint8_t cap[80], d[512];
	unsigned n = 0, ns[1];
	struct nvmf_req *r;
	uint64_t t0;
	int c;

	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur < 2 * N + 64) {
		rl.rlim_cur = rl.rlim_max < 4096 ? rl.rlim_max : 4096;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	for (; n < N; n++)
		if (event_queue_open(&qs[n], &tfd[n]))
			break;
	if (n < N) {
		fprintf(stderr, "events_512: only %u queues (descriptors): not tested\n", n);
	} else {
		ns[0] = N;
		struct late_write lw;
		pthread_t th;

		r = submit_rw(qs[N - 1], NVME_CMD_READ, d, 512, 0);
		CHECK(tgt_read(qs[N - 1], tfd[N - 1], cap, 72) == 0);
		/* the response comes while the wait sleeps in poll() */
		lw.fd = tfd[N - 1];
		lw.len = pdu_rsp(lw.pdu, 0, r->cid, 0);
		pthread_create(&th, NULL, late_write_thread, &lw);
		t0 = now_ms();
		c = nvmf_fabric_tcp.sets_wait(sets, ns, 1, 5000);
		pthread_join(th, NULL);
		CHECK_EQ(c, 1);
		CHECK(now_ms() - t0 < 2500);
		nvmf_queue_put(qs[N - 1], r);
		/* and one sleeps the whole timeout when nothing comes */
		t0 = now_ms();
		CHECK_EQ(nvmf_fabric_tcp.sets_wait(sets, ns, 1, 100), 0);
		CHECK(now_ms() - t0 >= 90);
	}
	for (unsigned i = 0; i < n; i++) {
		nvmf_fabric_tcp.destroy(qs[i], 0);
		close(tfd[i]);
	}
}

static void test_events(void)
{
	struct conn_opts o = { 0 };
	uint8_t cap[80], pdu[64], d[512];
	struct nvmf_queue *qs[1];
	struct nvmf_req *r;
	struct conn c;
	uint64_t t0;
	int fd;

	if (conn_open(&c, &o))
		return;
	/* poll mode (use_events 0): wait reaps once, without sleeping */
	qs[0] = c.q;
	t0 = now_ms();
	CHECK_EQ(nvmf_fabric_tcp.wait(qs, 1, 500), 0);
	CHECK(now_ms() - t0 < 400);
	conn_close(&c);

	/* event mode: a queue made with use_events */
	CHECK_EQ(event_queue_open(&c.q, &c.tfd), 0);
	qs[0] = c.q;
	t0 = now_ms();
	CHECK_EQ(nvmf_fabric_tcp.wait(qs, 1, 60), 0);
	CHECK(now_ms() - t0 >= 50);
	r = submit_rw(c.q, NVME_CMD_READ, d, 512, 0);
	CHECK(read_capsule(&c, cap) == 0);
	tgt_write(c.tfd, pdu, pdu_rsp(pdu, 0, r->cid, 0));
	CHECK_EQ(nvmf_fabric_tcp.wait(qs, 1, 1000), 1);
	nvmf_queue_put(c.q, r);
	/* arm gives the socket; after POLLIN, event reaps */
	r = submit_rw(c.q, NVME_CMD_READ, d, 512, 0);
	fd = nvmf_fabric_tcp.arm(c.q);
	CHECK_EQ(fd, nvmf_tcp_queue_fd(c.q));
	CHECK(read_capsule(&c, cap) == 0);
	tgt_write(c.tfd, pdu, pdu_rsp(pdu, 0, r->cid, 0));
	{
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		CHECK_EQ(poll(&pfd, 1, 1000), 1);
	}
	CHECK_EQ(nvmf_fabric_tcp.event(c.q), 1);
	nvmf_queue_put(c.q, r);
	{
		struct nvmf_queue *const set0[1] = { c.q };
		struct nvmf_queue *const *const sets[1] = { set0 };
		unsigned ns[1] = { 1 };

		CHECK_EQ(nvmf_fabric_tcp.sets_wait(sets, ns, 1, 10), 0);
		CHECK_EQ(nvmf_fabric_tcp.process(qs, 1), 0);
	}
	conn_close(&c);
}

/* ---- the real connect path over loopback -------------------------------------------------- */

struct listener {
	int      lfd;
	uint16_t port;
	uint8_t  icreq[128];
	int      ok;
};

static void *listener_thread(void *arg)
{
	struct listener *l = arg;
	uint8_t ic[128];
	int fd = accept(l->lfd, NULL, NULL);

	if (fd < 0)
		return NULL;
	if (tgt_read(NULL, fd, l->icreq, sizeof(l->icreq)) == 0) {
		/* before the ICResp goes out: the host's create returns as soon as it has it */
		__atomic_store_n(&l->ok, 1, __ATOMIC_RELEASE);
		icresp_bytes(ic, 0, 0, 0, 131072);
		tgt_write(fd, ic, sizeof(ic));
	}
	/* keep the connection until the host closes it */
	while (read(fd, ic, sizeof(ic)) > 0)
		;
	close(fd);
	return NULL;
}

static void test_connect_loopback(void)
{
	struct sockaddr_in a;
	socklen_t al = sizeof(a);
	struct nvmf_fabric_params p;
	struct sockaddr_storage local, peer;
	struct nvmf_queue *q = NULL;
	struct listener l;
	pthread_t th;
	char err[256];
	int rc;

	CHECK_STR(nvmf_fabric_tcp.name, "tcp");
	CHECK_EQ(nvmf_fabric_tcp.trtype, 3);
	memset(&l, 0, sizeof(l));
	l.lfd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (l.lfd < 0 || bind(l.lfd, (struct sockaddr *)&a, sizeof(a)) || listen(l.lfd, 4) ||
	    getsockname(l.lfd, (struct sockaddr *)&a, &al)) {
		fprintf(stderr, "no loopback TCP: connect path not tested\n");
		if (l.lfd >= 0)
			close(l.lfd);
		return;
	}
	l.port = ntohs(a.sin_port);
	pthread_create(&th, NULL, listener_thread, &l);
	memset(&p, 0, sizeof(p));
	p.dst = (struct sockaddr *)&a;
	p.qid = 0;
	p.entries = 4;
	p.timeout_ms = 2000;
	rc = nvmf_fabric_tcp.create(&q, &p, err, sizeof(err));
	CHECK_EQ(rc, 0);
	if (rc)
		fprintf(stderr, "create: %s\n", err);
	if (!rc) {
		char why[160] = "";

		CHECK(__atomic_load_n(&l.ok, __ATOMIC_ACQUIRE));
		CHECK_EQ(l.icreq[0], 0);
		CHECK_EQ(l.icreq[2], 128);
		nvmf_fabric_tcp.addrs(q, &local, &peer);
		CHECK_EQ(peer.ss_family, AF_INET);
		CHECK_EQ(ntohs(((struct sockaddr_in *)&peer)->sin_port), l.port);
		CHECK_EQ(local.ss_family, AF_INET);
		CHECK_EQ(nvmf_fabric_tcp.conn_check(q, why, sizeof(why)), 0);
		nvmf_fabric_tcp.destroy(q, 0);
	}
	pthread_join(th, NULL);
	close(l.lfd);

	/* nothing listens any more: refused, the address and step named */
	q = NULL;
	rc = nvmf_fabric_tcp.create(&q, &p, err, sizeof(err));
	CHECK_EQ(rc, -ECONNREFUSED);
	CHECK(q == NULL);
	{
		char want[96];

		snprintf(want, sizeof(want), "NVMe/TCP connection to 127.0.0.1:%u: connect: ", l.port);
		CHECK(strncmp(err, want, strlen(want)) == 0);
	}
	/* not an IP address */
	{
		struct sockaddr s = { .sa_family = AF_UNIX };

		p.dst = &s;
		CHECK_EQ(nvmf_fabric_tcp.create(&q, &p, err, sizeof(err)), -EAFNOSUPPORT);
	}
}

/* nvme_tcp_ch_parse / nvme_tcp_pdu_parse on their own */
static void test_parsers(void)
{
	struct nvme_tcp_pdu_info info;
	struct nvme_tcp_pdu_fields f;
	uint8_t h[64];
	char why[160];

	pdu_c2h(h, 1, 1, 0x12, 8, "abcd", 4, 0x04);
	CHECK_EQ(nvme_tcp_ch_parse(h, 1, 1, &info, why, sizeof(why)), 0);
	CHECK_EQ(info.hdr_len, 28);
	CHECK_EQ(info.data_len, 4);
	CHECK_EQ(nvme_tcp_pdu_parse(h, &info, &f, why, sizeof(why)), 0);
	CHECK_EQ(f.cccid, 0x12);
	CHECK_EQ(f.off, 8);
	CHECK_EQ(f.len, 4);
	/* the same bytes read without digests negotiated: PLEN then leaves 8 bytes of data */
	CHECK_EQ(nvme_tcp_ch_parse(h, 0, 0, &info, why, sizeof(why)), 0);
	CHECK_EQ(nvme_tcp_pdu_parse(h, &info, &f, why, sizeof(why)), -EPROTO);
	/* DATAL 4 where PLEN leaves 8: the H2CTermReq would name DATAL (byte 16) */
	CHECK_EQ(f.err_fes, 0x01);
	CHECK_EQ(f.err_fei, 16);
	/* PDO inside the header digest: the field at byte 3 */
	h[3] = 24;
	CHECK_EQ(nvme_tcp_ch_parse(h, 1, 1, &info, why, sizeof(why)), -EPROTO);
	CHECK(strstr(why, "PDO 24") != NULL);
	CHECK_EQ(info.err_fes, 0x01);
	CHECK_EQ(info.err_fei, 3);
	/* PLEN with no room for data: byte 4 */
	h[3] = 28;
	put32(h + 4, 32);
	CHECK_EQ(nvme_tcp_ch_parse(h, 1, 1, &info, why, sizeof(why)), -EPROTO);
	CHECK(strstr(why, "PLEN 32") != NULL);
	CHECK_EQ(info.err_fes, 0x01);
	CHECK_EQ(info.err_fei, 4);
	pdu_r2t(h, 0, 1, 2, 3, 4);
	put32(h + 4, 28);
	CHECK_EQ(nvme_tcp_ch_parse(h, 0, 0, &info, why, sizeof(why)), -EPROTO);
	CHECK(strstr(why, "R2T PDU with PLEN 28 (expected 24)") != NULL);
	CHECK_EQ(info.err_fei, 4);
	/* R2TL 0: byte 16 */
	pdu_r2t(h, 0, 1, 2, 3, 0);
	CHECK_EQ(nvme_tcp_ch_parse(h, 0, 0, &info, why, sizeof(why)), 0);
	CHECK_EQ(nvme_tcp_pdu_parse(h, &info, &f, why, sizeof(why)), -EPROTO);
	CHECK_EQ(f.err_fes, 0x01);
	CHECK_EQ(f.err_fei, 16);
	/* an ICResp once set up is out of sequence: FES 02h, no field named */
	h[0] = 0x01;
	CHECK_EQ(nvme_tcp_ch_parse(h, 0, 0, &info, why, sizeof(why)), -EPROTO);
	CHECK(strstr(why, "ICResp") != NULL);
	CHECK_EQ(info.err_fes, 0x02);
	CHECK_EQ(info.err_fei, 0);
	/* a CapsuleResp with HLEN 28: byte 2 */
	pdu_rsp(h, 0, 1, 0);
	h[2] = 28;
	CHECK_EQ(nvme_tcp_ch_parse(h, 0, 0, &info, why, sizeof(why)), -EPROTO);
	CHECK_EQ(info.err_fes, 0x01);
	CHECK_EQ(info.err_fei, 2);
	/* SUCCESS without LAST: the flags, byte 1 */
	pdu_c2h(h, 0, 0, 0x12, 0, "abcd", 4, 0x08);
	CHECK_EQ(nvme_tcp_ch_parse(h, 0, 0, &info, why, sizeof(why)), 0);
	CHECK_EQ(nvme_tcp_pdu_parse(h, &info, &f, why, sizeof(why)), -EPROTO);
	CHECK_EQ(f.err_fes, 0x01);
	CHECK_EQ(f.err_fei, 1);
	CHECK_STR(nvme_tcp_fes_name(3), "header digest error");
	CHECK_STR(nvme_tcp_fes_name(0x99), "unknown fatal error status");
	CHECK_STR(nvme_tcp_pdu_type_name(0x07), "C2HData");
}

/* A path of several whose port has nothing listening: nvmf_lane_connect_or_down gives a lane
 * that is down (1, the reason in err), which a reconnect tries again and destroy frees; a
 * malformed option is still an error with no lane; nvmf_lane_connect gives no lane either. */
static void test_lane_down_at_start(void)
{
	struct sockaddr_in a;
	socklen_t al = sizeof(a);
	struct nvmf_lane_opts lo;
	struct nvmf_lane *lane = (struct nvmf_lane *)&lo;
	char port[16], err[512];
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	/* a port just freed: nothing listens there */
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &al)) {
		fprintf(stderr, "no loopback TCP: lane down at start not tested\n");
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	snprintf(port, sizeof(port), "%u", ntohs(a.sin_port));
	memset(&lo, 0, sizeof(lo));
	lo.trtype = NVMF_TRTYPE_TCP;
	lo.traddr = "127.0.0.1";
	lo.trsvcid = port;
	lo.subnqn = "nqn.2026-12.io.fio-nvmeof:down";
	lo.hostnqn = "nqn.2014-08.org.nvmexpress:uuid:0a0a0a0a-0000-4000-8000-0000000000d0";
	lo.connect_timeout_ms = 1000;
	lo.no_io_queue = 1;
	CHECK_EQ(nvmf_lane_connect_or_down(&lane, &lo, err, sizeof(err)), 1);
	CHECK(lane != NULL);
	CHECK(strstr(err, "127.0.0.1:") != NULL && strstr(err, "connect") != NULL);
	CHECK(nvmf_lane_reconnect(lane, err, sizeof(err)) < 0);
	CHECK(strstr(err, "connect") != NULL);
	nvmf_lane_destroy(lane);

	lane = (struct nvmf_lane *)&lo;
	CHECK(nvmf_lane_connect(&lane, &lo, err, sizeof(err)) < 0);
	CHECK(lane == NULL);
	lo.subnqn = "";
	lane = (struct nvmf_lane *)&lo;
	CHECK_EQ(nvmf_lane_connect_or_down(&lane, &lo, err, sizeof(err)), -EINVAL);
	CHECK(lane == NULL);
	CHECK(strstr(err, "subnqn") != NULL);
}

int main(void)
{
	test_crc32c();
	test_parsers();
	test_icreq_bytes();
	test_icresp_refusals();
	test_read_split();
	test_write_r2t();
	test_incapsule();
	test_connect_incapsule();
	test_digest_errors();
	test_protocol_errors();
	test_data_success();
	test_short_sends();
	test_splice_fallback();
	test_stats();
	test_spec();
	test_short_c2h();
	test_term_socket_full();
	test_close_quiet();
	test_kill();
	test_kill_thread();
	test_kill_unsent();
	test_events();
	test_events_512();
	test_connect_loopback();
	test_lane_down_at_start();
	return check_done("test_tcp");
}
