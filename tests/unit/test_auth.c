/* test_auth.c - DH-HMAC-CHAP (lib/nvmf_auth.c): the DHHC-1 secret format, the transformation and
 * the responses against known answers computed apart (auth_kat.h, from gen_auth_kat.py with
 * Python's hashlib/hmac; and keys nvme-cli 2.3's gen-dhchap-key transformed), DH between two
 * key pairs, and the host's exchange against a scripted controller: well-behaved (each hash,
 * null and FFDHE groups, uni- and bidirectional) and hostile (wrong lengths, unexpected
 * messages, replayed sequence numbers, wrong transaction IDs, Failure1, a wrong R2). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "nvmf_auth.h"
#include "nvmf_spec.h"

#include "check.h"
#include "auth_kat.h"
#include "scripted_peer.h"

static void pattern(uint8_t *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)((seed * 31 + i * 7 + (i >> 3)) & 0xff);
}

static void test_secret_kat(void)
{
	struct nvmf_auth_key k;
	char err[256];

	for (size_t i = 0; i < sizeof(kat_secrets) / sizeof(kat_secrets[0]); i++) {
		const struct kat_secret *s = &kat_secrets[i];

		CHECK_EQ(nvmf_auth_secret_parse(s->text, &k, "dhchap_secret", err, sizeof(err)), 0);
		CHECK_EQ(k.len, s->len);
		CHECK_EQ(k.hash, s->hash);
		CHECK(!memcmp(k.key, s->key, s->len));
	}
	/* surrounding blanks (a line read from a file) */
	CHECK_EQ(nvmf_auth_secret_parse("  DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:\n",
					&k, "dhchap_secret", err, sizeof(err)), 0);
	CHECK_EQ(k.len, 32);
	CHECK_EQ(k.key[31], 31);
	nvmf_auth_key_clear(&k);
	CHECK_EQ(k.len, 0);
	/* CRC-32 check value ("123456789") */
	CHECK_EQ(nvmf_auth_crc32((const uint8_t *)"123456789", 9), 0xcbf43926u);
}

static void test_secret_bad(void)
{
	static const struct { const char *text, *words; } bad[] = {
		{ "", "is not a DH-HMAC-CHAP secret" },
		{ "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR", "is not a DH-HMAC-CHAP secret" },
		{ "DHHC-2:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:", "is not a DH-HMAC-CHAP" },
		{ "DHHC-1:04:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:", "transformation 04" },
		{ "DHHC-1:0x:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:", "two hex digits" },
		{ "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR", "ending in ':'" },
		{ "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:x", "text follows" },
		{ "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaS:", "CRC-32 does not match" },
		{ "DHHC-1:00:BAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:", "CRC-32 does not match" },
		{ "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+Kfia:", "wrong length" },
		{ "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMU:", "17-byte key" },
		{ "DHHC-1:00:AAEC*wQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:", "base64" },
	};
	struct nvmf_auth_key k;
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		CHECK_EQ(nvmf_auth_secret_parse(bad[i].text, &k, "dhchap_ctrl_secret", err,
						sizeof(err)), -EINVAL);
		if (!strstr(err, bad[i].words))
			fprintf(stderr, "secret %zu: '%s' lacks '%s'\n", i, err, bad[i].words);
		CHECK(strstr(err, bad[i].words) != NULL);
		CHECK(strstr(err, "dhchap_ctrl_secret") != NULL);
		CHECK(strstr(err, "AAECAwQF") == NULL && strstr(err, "KfiaR") == NULL);
		CHECK(strchr(err, '\n') == NULL);
		CHECK_EQ(k.len, 0);
	}
}

static void test_transform_kat(void)
{
	uint8_t out[NVMF_AUTH_KEY_MAX];
	struct nvmf_auth_key k;
	size_t len;
	char err[256];

	for (size_t i = 0; i < sizeof(kat_transforms) / sizeof(kat_transforms[0]); i++) {
		const struct kat_transform *t = &kat_transforms[i];

		CHECK_EQ(nvmf_auth_secret_parse(kat_secrets[t->idx].text, &k, "s", err, sizeof(err)), 0);
		CHECK_EQ(nvmf_auth_transform(&k, t->nqn, out, &len), 0);
		CHECK_EQ(len, t->len);
		CHECK(!memcmp(out, t->out, t->len));
	}
}

/* nvme-cli 2.3: `nvme gen-dhchap-key --secret=<00 01 02 ...> --hmac=N --nqn=<nqn>` prints the
 * secret already transformed (its DHHC-1 form's key is HMAC-<hash>(secret, nqn ||
 * "NVMe-over-Fabrics")): a second, independent implementation's answers. */
static void test_transform_nvme_cli(void)
{
	static const struct { unsigned hash, len; const char *cli; } v[] = {
		{ 1, 32, "DHHC-1:00:+MBYwByzWkgWTGurZ1CuXQNN7AFG9H30O77p0fvHdDIPBqCN:" },
		{ 2, 48, "DHHC-1:00:gEGDJ/alrKVUFSa7bon5PP3Vwmd8Fuj4zhAk029EjjyLk9P+7F4PtN9R0UbdolsdsGiPeA==:" },
		{ 3, 64, "DHHC-1:00:a57+1fXBlC1xFxxmflTiAU1dddgDQrVsArgmewXvlR7b9OzNBUlYW4lXZi9JXDlK2aErXGefNl+d9HJHEO0iLeHgxrs=:" },
	};
	struct nvmf_auth_key k, want;
	uint8_t out[NVMF_AUTH_KEY_MAX];
	size_t len;
	char err[256];

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		memset(&k, 0, sizeof(k));
		for (unsigned b = 0; b < v[i].len; b++)
			k.key[b] = (uint8_t)b;
		k.len = (uint8_t)v[i].len;
		k.hash = (uint8_t)v[i].hash;
		/* (the cli printed 01/02/03; parsed as 00 here to read its bytes as they are) */
		CHECK_EQ(nvmf_auth_secret_parse(v[i].cli, &want, "cli", err, sizeof(err)), 0);
		CHECK_EQ(nvmf_auth_transform(&k, "nqn.2024-01.io.example:kat-host", out, &len), 0);
		CHECK_EQ(len, v[i].len);
		CHECK(!memcmp(out, want.key, len));
	}
}

static void test_response_kat(void)
{
	static uint8_t dh[1024];
	uint8_t out[NVMF_AUTH_HASH_MAX];

	for (size_t i = 0; i < sizeof(kat_responses) / sizeof(kat_responses[0]); i++) {
		const struct kat_response *r = &kat_responses[i];
		int host = !strcmp(r->role, "HostHost");

		pattern(dh, r->dhlen, r->dhseed);
		CHECK_EQ(nvmf_auth_response(r->hash, r->key, r->keylen, r->chal, r->seq, r->tid, 0,
					    r->role, host ? KAT_HOSTNQN : KAT_SUBNQN,
					    host ? KAT_SUBNQN : KAT_HOSTNQN, dh, r->dhlen, out), 0);
		CHECK(!memcmp(out, r->out, nvmf_auth_hash_len(r->hash)));
	}
	CHECK_EQ(nvmf_auth_response(7, dh, 32, dh, 1, 1, 0, "HostHost", "a", "b", NULL, 0, out),
		 -EINVAL);
}

static void test_dh(void)
{
	static uint8_t pa[1024], pb[1024], sa[1024], sb[1024];

	for (unsigned g = NVMF_AUTH_DHGROUP_2048; g <= NVMF_AUTH_DHGROUP_8192; g++) {
		struct nvmf_auth_dh *a = NULL, *b = NULL;
		size_t n = nvmf_auth_dhgroup_len(g);

		CHECK_EQ(nvmf_auth_dh_new(g, &a, pa, n), 0);
		CHECK_EQ(nvmf_auth_dh_new(g, &b, pb, n), 0);
		if (!a || !b)
			continue;
		CHECK(memcmp(pa, pb, n));
		CHECK_EQ(nvmf_auth_dh_derive(a, pb, n, sa, n), 0);
		CHECK_EQ(nvmf_auth_dh_derive(b, pa, n, sb, n), 0);
		CHECK(!memcmp(sa, sb, n));
		/* hostile public values: 0, 1, all ones (> p), the wrong length */
		memset(pb, 0, n);
		CHECK_EQ(nvmf_auth_dh_derive(a, pb, n, sa, n), -EINVAL);
		pb[n - 1] = 1;
		CHECK_EQ(nvmf_auth_dh_derive(a, pb, n, sa, n), -EINVAL);
		memset(pb, 0xff, n);
		CHECK_EQ(nvmf_auth_dh_derive(a, pb, n, sa, n), -EINVAL);
		CHECK_EQ(nvmf_auth_dh_derive(a, pa, n - 1, sa, n - 1), -EINVAL);
		nvmf_auth_dh_free(a);
		nvmf_auth_dh_free(b);
	}
	{
		struct nvmf_auth_dh *x = NULL;

		CHECK_EQ(nvmf_auth_dh_new(0, &x, pa, 0), -EINVAL);
		CHECK_EQ(nvmf_auth_dh_new(6, &x, pa, 256), -EINVAL);
		CHECK_EQ(nvmf_auth_dh_new(1, &x, pa, 255), -EINVAL);
		CHECK(x == NULL);
	}
}

/* ---- a scripted controller ------------------------------------------------------------- */

enum sc_fault {
	SC_OK = 0,
	SC_TID,            /* the challenge names another transaction */
	SC_WRONG_MSG,      /* Success1 where the challenge belongs */
	SC_HL,             /* hash length not the hash's */
	SC_DHVLEN,         /* DH value length not the group's */
	SC_HASH_UNKNOWN,   /* hash ID 07h */
	SC_GROUP_UNKNOWN,  /* DH group 09h */
	SC_SEQ0,           /* sequence number 0 */
	SC_SEQ_REPLAY,     /* the S1 of the previous exchange again */
	SC_FAILURE1_NEG,   /* Failure1 where the challenge belongs */
	SC_WRONG_KEY,      /* the controller's host key differs: Failure1 after the reply */
	SC_WRONG_R2,       /* bidirectional: R2 under another controller key */
	SC_NO_RVALID,      /* bidirectional: Success1 without R2 */
	SC_S1_TID,         /* Success1 for another transaction */
	SC_RECV_FAILS,     /* Authentication Receive fails (the command's status) */
	SC_SEND_FAILS,     /* Authentication Send fails */
	SC_DH_ZERO,        /* the controller's DH value is 0 */
	SC_HANGUP,         /* the connection ends instead of the answer to the reply */
	SC_HANGUP_F1,      /* Failure1's data lands, then the connection ends (no response) */
	SC_NEG_HANGUP,     /* the connection ends instead of the answer to the negotiation */
	SC_NEG_HANGUP_F1,  /* the negotiation's Failure1 lands, then the connection ends */
};

struct sctl {
	enum sc_fault fault;
	uint8_t  hash_id, dhg_id;
	struct nvmf_auth_key host_key, ctrl_key;   /* what the controller holds */
	uint8_t  buf[NVMF_AUTH_MSG_MAX];
	unsigned sends, recvs;
	uint32_t s1;
	uint16_t tid;
	uint8_t  c1[64];
	struct nvmf_auth_dh *dh;
	uint8_t  dhs[1024];
	size_t   dhlen;
	int      host_ok;          /* R1 verified */
	int      got_success2;
	uint8_t  failure2_rce;     /* 0: none received */
	uint8_t  neg[72];
	uint32_t neg_len;
	uint8_t  r2[64];
	int      r2_valid;
};

static const char *sc_hostnqn = KAT_HOSTNQN, *sc_subnqn = KAT_SUBNQN;

static int sc_send(void *ctx, uint32_t len, char *why, size_t whylen)
{
	struct sctl *c = ctx;
	const uint8_t *m = c->buf;
	size_t hl = nvmf_auth_hash_len(c->hash_id);

	c->sends++;
	if (c->fault == SC_SEND_FAILS) {
		snprintf(why, whylen, "status Authentication Required");
		return -EIO;
	}
	if (m[0] == NVMF_AUTH_TYPE_COMMON && m[1] == NVMF_AUTH_ID_NEGOTIATE) {
		CHECK_EQ(len, 72);
		memcpy(c->neg, m, 72);
		c->neg_len = len;
		c->tid = (uint16_t)raw_le(m, 4, 2);
		return 0;
	}
	if (m[0] == NVMF_AUTH_TYPE_COMMON && m[1] == NVMF_AUTH_ID_FAILURE2) {
		CHECK_EQ(len, 8);
		c->failure2_rce = m[7];
		return 0;
	}
	if (m[0] == NVMF_AUTH_TYPE_DHCHAP && m[1] == NVMF_AUTH_ID_REPLY) {
		uint8_t key[64], want[64];
		size_t klen;
		uint16_t dhvlen = (uint16_t)raw_le(m, 10, 2);

		CHECK_EQ(raw_le(m, 4, 2), c->tid);
		CHECK_EQ(m[6], hl);
		CHECK_EQ(len, 16 + 2 * hl + dhvlen);
		CHECK_EQ(dhvlen, nvmf_auth_dhgroup_len(c->dhg_id));
		if (c->dhg_id) {
			CHECK_EQ(nvmf_auth_dh_derive(c->dh, m + 16 + 2 * hl, dhvlen, c->dhs, dhvlen), 0);
			c->dhlen = dhvlen;
		}
		CHECK_EQ(nvmf_auth_transform(&c->host_key, sc_hostnqn, key, &klen), 0);
		CHECK_EQ(nvmf_auth_response(c->hash_id, key, klen, c->c1, c->s1, c->tid, 0,
					    "HostHost", sc_hostnqn, sc_subnqn, c->dhs, c->dhlen,
					    want), 0);
		c->host_ok = !memcmp(want, m + 16, hl);
		if (m[8]) {   /* CVALID: compute R2 over C2 and S2 */
			CHECK(raw_le(m, 12, 4) != 0);
			CHECK_EQ(nvmf_auth_transform(&c->ctrl_key, sc_subnqn, key, &klen), 0);
			CHECK_EQ(nvmf_auth_response(c->hash_id, key, klen, m + 16 + hl,
						    (uint32_t)raw_le(m, 12, 4), c->tid, 0,
						    "Controller", sc_subnqn, sc_hostnqn, c->dhs,
						    c->dhlen, c->r2), 0);
			c->r2_valid = 1;
		} else {
			CHECK_EQ(raw_le(m, 12, 4), 0);
		}
		return 0;
	}
	if (m[0] == NVMF_AUTH_TYPE_DHCHAP && m[1] == NVMF_AUTH_ID_SUCCESS2) {
		CHECK_EQ(len, 16);
		CHECK_EQ(raw_le(m, 4, 2), c->tid);
		c->got_success2 = 1;
		return 0;
	}
	CHECK(!"the host sent a message the controller does not know");
	return -EIO;
}

static void sc_failure1(struct sctl *c, uint16_t tid, uint8_t rce)
{
	memset(c->buf, 0, 8);
	c->buf[0] = NVMF_AUTH_TYPE_COMMON;
	c->buf[1] = NVMF_AUTH_ID_FAILURE1;
	nvmf_put_le16(c->buf + 4, tid);
	c->buf[6] = NVMF_AUTH_RC_FAILURE;
	c->buf[7] = rce;
}

static int sc_recv(void *ctx, uint32_t al, char *why, size_t whylen)
{
	struct sctl *c = ctx;
	uint8_t *m = c->buf;
	size_t hl = nvmf_auth_hash_len(c->hash_id);

	CHECK_EQ(al, NVMF_AUTH_MSG_MAX);
	c->recvs++;
	if (c->fault == SC_RECV_FAILS) {
		snprintf(why, whylen, "status Command Sequence Error");
		return -EIO;
	}
	memset(m, 0, NVMF_AUTH_MSG_MAX);
	if (c->recvs == 1) {   /* the challenge */
		size_t gl = nvmf_auth_dhgroup_len(c->dhg_id);

		if (c->fault == SC_FAILURE1_NEG) {
			sc_failure1(c, c->tid, NVMF_AUTH_RCE_HASH_UNUSABLE);
			return 0;
		}
		if (c->fault == SC_NEG_HANGUP || c->fault == SC_NEG_HANGUP_F1) {
			if (c->fault == SC_NEG_HANGUP_F1)
				sc_failure1(c, c->tid, NVMF_AUTH_RCE_DHGROUP_UNUSABLE);
			snprintf(why, whylen, "the target closed the connection of queue 3");
			return -ECONNRESET;
		}
		m[0] = NVMF_AUTH_TYPE_DHCHAP;
		m[1] = c->fault == SC_WRONG_MSG ? NVMF_AUTH_ID_SUCCESS1 : NVMF_AUTH_ID_CHALLENGE;
		nvmf_put_le16(m + 4, c->fault == SC_TID ? (uint16_t)(c->tid + 1) : c->tid);
		m[6] = (uint8_t)(c->fault == SC_HL ? hl - 1 : hl);
		m[8] = c->fault == SC_HASH_UNKNOWN ? 7 : c->hash_id;
		m[9] = c->fault == SC_GROUP_UNKNOWN ? 9 : c->dhg_id;
		nvmf_put_le16(m + 10, (uint16_t)(c->fault == SC_DHVLEN ? gl + 1 : gl));
		if (c->fault != SC_SEQ_REPLAY)
			c->s1++;
		nvmf_put_le32(m + 12, c->fault == SC_SEQ0 ? 0 : c->s1);
		pattern(c->c1, hl, c->s1);
		memcpy(m + 16, c->c1, hl);
		if (c->dhg_id) {
			nvmf_auth_dh_free(c->dh);
			c->dh = NULL;
			CHECK_EQ(nvmf_auth_dh_new(c->dhg_id, &c->dh, m + 16 + hl, gl), 0);
			if (c->fault == SC_DH_ZERO)
				memset(m + 16 + hl, 0, gl);
		}
		return 0;
	}
	/* Success1 or Failure1 */
	if (c->fault == SC_HANGUP || c->fault == SC_HANGUP_F1) {
		if (c->fault == SC_HANGUP_F1)
			sc_failure1(c, c->tid, NVMF_AUTH_RCE_FAILED);
		snprintf(why, whylen, "the target disconnected queue 3 (RDMA CM DISCONNECTED)");
		return -ENOTCONN;
	}
	if (!c->host_ok || c->fault == SC_WRONG_KEY) {
		sc_failure1(c, c->tid, NVMF_AUTH_RCE_FAILED);
		return 0;
	}
	m[0] = NVMF_AUTH_TYPE_DHCHAP;
	m[1] = NVMF_AUTH_ID_SUCCESS1;
	nvmf_put_le16(m + 4, c->fault == SC_S1_TID ? (uint16_t)(c->tid ^ 0x100) : c->tid);
	m[6] = (uint8_t)hl;
	if (c->r2_valid && c->fault != SC_NO_RVALID) {
		m[8] = 1;
		memcpy(m + 16, c->r2, hl);
		if (c->fault == SC_WRONG_R2)
			m[16] ^= 0x40;
	}
	return 0;
}

static const char SECRET_HOST[] = "DHHC-1:01:+MBYwByzWkgWTGurZ1CuXQNN7AFG9H30O77p0fvHdDIPBqCN:";
static const char SECRET_CTRL[] = "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:";

/* The keys on both sides, the controller's per-exchange state reset. */
static void prep(struct sctl *c, struct nvmf_auth_session *s, int bidi)
{
	char e[256];

	CHECK_EQ(nvmf_auth_secret_parse(SECRET_HOST, &c->host_key, "x", e, sizeof(e)), 0);
	CHECK_EQ(nvmf_auth_secret_parse(SECRET_CTRL, &c->ctrl_key, "x", e, sizeof(e)), 0);
	if (!s->host.len)
		CHECK_EQ(nvmf_auth_secret_parse(SECRET_HOST, &s->host, "x", e, sizeof(e)), 0);
	if (bidi && !s->ctrl.len)
		CHECK_EQ(nvmf_auth_secret_parse(SECRET_CTRL, &s->ctrl, "x", e, sizeof(e)), 0);
	c->recvs = c->sends = 0;
	c->host_ok = c->got_success2 = c->r2_valid = 0;
	c->failure2_rce = 0;
	c->dhlen = 0;
}

/* One exchange through the callbacks (the host composes in the controller's buffer): rc;
 * err gets the host's line, *c what the controller saw. */
static int run(struct sctl *c, struct nvmf_auth_session *s, int bidi, char *err, size_t errlen)
{
	struct nvmf_auth_ops ops;

	prep(c, s, bidi);
	ops.buf = c->buf;
	ops.send = sc_send;
	ops.recv = sc_recv;
	ops.ctx = c;
	err[0] = 0;
	return nvmf_auth_exchange(s, 3, &ops, err, errlen);
}

static void test_exchange_ok(void)
{
	static const uint8_t groups[] = { 0, 1, 2 };
	char err[256];

	for (uint8_t h = 1; h <= 3; h++)
		for (size_t gi = 0; gi < sizeof(groups); gi++)
			for (int bidi = 0; bidi <= 1; bidi++) {
				static struct sctl c;
				struct nvmf_auth_session s;
				int rc;

				memset(&c, 0, sizeof(c));
				c.hash_id = h;
				c.dhg_id = groups[gi];
				c.s1 = 1000;
				CHECK_EQ(nvmf_auth_session_init(&s, sc_hostnqn, sc_subnqn), 0);
				rc = run(&c, &s, bidi, err, sizeof(err));
				if (rc)
					fprintf(stderr, "hash %u group %u bidi %d: %s\n", h,
						groups[gi], bidi, err);
				CHECK_EQ(rc, 0);
				CHECK(c.host_ok);
				CHECK_EQ(c.got_success2, bidi);
				CHECK_EQ(c.failure2_rce, 0);
				CHECK_EQ(c.sends, 2 + bidi);
				CHECK_EQ(c.recvs, 2);
				/* the negotiate offered DH-HMAC-CHAP, 3 hashes, 6 groups */
				CHECK_EQ(c.neg[7], 1);
				CHECK_EQ(c.neg[8], NVMF_AUTH_PROTO_DHCHAP);
				CHECK_EQ(c.neg[10], 3);
				CHECK_EQ(c.neg[11], 6);
				CHECK_EQ(c.neg[12], 1);
				CHECK_EQ(c.neg[14], 3);
				CHECK_EQ(c.neg[42], 0);
				CHECK_EQ(c.neg[47], 5);
				CHECK_EQ(s.hash_id, h);
				CHECK_EQ(s.dhg_id, groups[gi]);
				/* the buffer holds no secret material afterwards */
				{
					unsigned any = 0;

					for (size_t i = 0; i < NVMF_AUTH_MSG_MAX; i++)
						any |= c.buf[i];
					CHECK_EQ(any, 0);
				}
				/* a second exchange on the session: a new transaction ID */
				{
					uint16_t t1 = c.tid;

					CHECK_EQ(run(&c, &s, bidi, err, sizeof(err)), 0);
					CHECK(c.tid != t1);
				}
				nvmf_auth_dh_free(c.dh);
				nvmf_auth_session_clear(&s);
				CHECK_EQ(s.host.len, 0);
			}
}

static void test_exchange_hostile(void)
{
	static const struct {
		enum sc_fault f;
		int bidi;
		int rc;
		uint8_t rce;        /* the host's Failure2 (0: none sent) */
		const char *words;
	} t[] = {
		{ SC_TID, 0, -EPROTO, NVMF_AUTH_RCE_BAD_PAYLOAD, "for transaction" },
		{ SC_WRONG_MSG, 0, -EPROTO, NVMF_AUTH_RCE_BAD_MESSAGE, "where DH-HMAC-CHAP_Challenge was expected" },
		{ SC_HL, 0, -EPROTO, NVMF_AUTH_RCE_BAD_PAYLOAD, "hash length 47 for sha384" },
		{ SC_DHVLEN, 0, -EPROTO, NVMF_AUTH_RCE_BAD_PAYLOAD, "DH value of 257 bytes for ffdhe2048" },
		{ SC_HASH_UNKNOWN, 0, -EPROTO, NVMF_AUTH_RCE_HASH_UNUSABLE, "hash function 07h" },
		{ SC_GROUP_UNKNOWN, 0, -EPROTO, NVMF_AUTH_RCE_DHGROUP_UNUSABLE, "DH group 09h" },
		{ SC_SEQ0, 0, -EPROTO, NVMF_AUTH_RCE_BAD_PAYLOAD, "sequence number 0" },
		{ SC_FAILURE1_NEG, 0, -EACCES, 0, "refused the negotiation: AUTH_Failure1: hash function not usable" },
		{ SC_WRONG_KEY, 0, -EACCES, 0, "refused the host's response (AUTH_Failure1: authentication failed)" },
		{ SC_WRONG_R2, 1, -EACCES, NVMF_AUTH_RCE_FAILED, "failed bidirectional authentication" },
		{ SC_NO_RVALID, 1, -EPROTO, NVMF_AUTH_RCE_BAD_PAYLOAD, "without the controller's response" },
		{ SC_S1_TID, 0, -EPROTO, NVMF_AUTH_RCE_BAD_PAYLOAD, "DH-HMAC-CHAP_Success1 for transaction" },
		{ SC_RECV_FAILS, 0, -EIO, 0, "Authentication Receive (the challenge) failed: status Command Sequence Error" },
		{ SC_SEND_FAILS, 0, -EIO, 0, "Authentication Send (AUTH_Negotiate) failed: status Authentication Required" },
		{ SC_DH_ZERO, 0, -EPROTO, NVMF_AUTH_RCE_BAD_PAYLOAD, "ffdhe2048 with the controller's public value failed" },
		{ SC_HANGUP, 0, -EACCES, 0, "refused the host's response (it ended the connection instead of answering it: the target disconnected queue 3" },
		{ SC_HANGUP_F1, 0, -EACCES, 0, "refused the host's response (AUTH_Failure1: authentication failed, then it ended the connection)" },
		{ SC_NEG_HANGUP, 0, -EACCES, 0, "refused the negotiation (it ended the connection instead of answering it: the target closed the connection of queue 3): do dhchap_digests" },
		{ SC_NEG_HANGUP_F1, 0, -EACCES, 0, "refused the negotiation: AUTH_Failure1: DH group not usable, then it ended the connection" },
	};
	char err[256];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		static struct sctl c;
		struct nvmf_auth_session s;
		int rc;

		memset(&c, 0, sizeof(c));
		c.hash_id = NVMF_AUTH_HASH_SHA384;
		c.dhg_id = t[i].f == SC_DHVLEN || t[i].f == SC_DH_ZERO ? NVMF_AUTH_DHGROUP_2048 : 0;
		c.s1 = 77;
		c.fault = t[i].f;
		CHECK_EQ(nvmf_auth_session_init(&s, sc_hostnqn, sc_subnqn), 0);
		rc = run(&c, &s, t[i].bidi, err, sizeof(err));
		if (rc != t[i].rc || !strstr(err, t[i].words) || c.failure2_rce != t[i].rce)
			fprintf(stderr, "case %zu: rc %d rce %u: %s\n", i, rc, c.failure2_rce, err);
		CHECK_EQ(rc, t[i].rc);
		CHECK(strstr(err, t[i].words) != NULL);
		CHECK(strstr(err, "queue 3: ") == err);
		CHECK_EQ(c.failure2_rce, t[i].rce);
		CHECK(strstr(err, "+MBYw") == NULL && strstr(err, "AAECAw") == NULL);
		CHECK(strchr(err, '\n') == NULL);
		CHECK_EQ(c.got_success2, 0);
		nvmf_auth_dh_free(c.dh);
		nvmf_auth_session_clear(&s);
	}
}

/* The controller sends the S1 of an earlier exchange again: the session refuses it, on any
 * queue and after a reconnect (same session). */
static void test_replay(void)
{
	static struct sctl c;
	struct nvmf_auth_session s;
	char err[256];

	memset(&c, 0, sizeof(c));
	c.hash_id = NVMF_AUTH_HASH_SHA256;
	c.s1 = 5;
	CHECK_EQ(nvmf_auth_session_init(&s, sc_hostnqn, sc_subnqn), 0);
	CHECK_EQ(run(&c, &s, 0, err, sizeof(err)), 0);
	CHECK_EQ(run(&c, &s, 1, err, sizeof(err)), 0);
	c.fault = SC_SEQ_REPLAY;
	CHECK_EQ(run(&c, &s, 0, err, sizeof(err)), -EPROTO);
	CHECK(strstr(err, "repeats sequence number 7 (a replay)") != NULL);
	CHECK_EQ(c.failure2_rce, NVMF_AUTH_RCE_BAD_PAYLOAD);
	nvmf_auth_session_clear(&s);
}

static void test_no_secret(void)
{
	struct nvmf_auth_session s;
	struct nvmf_auth_ops ops;
	static struct sctl c;
	char err[256];

	memset(&c, 0, sizeof(c));
	CHECK_EQ(nvmf_auth_session_init(&s, sc_hostnqn, sc_subnqn), 0);
	ops.buf = c.buf;
	ops.send = sc_send;
	ops.recv = sc_recv;
	ops.ctx = &c;
	CHECK_EQ(nvmf_auth_exchange(&s, 0, &ops, err, sizeof(err)), -EACCES);
	CHECK_STR(err, "queue 0: the controller requires DH-HMAC-CHAP authentication and no "
		  "dhchap_secret (or dhchap_secret_file) was given");
	CHECK_EQ(c.sends, 0);
}

/* The parsers on every prefix of a valid challenge: never past the bytes given. */
static void test_parse_prefixes(void)
{
	uint8_t m[16 + 48 + 384];
	struct nvmf_auth_challenge_info ci;
	uint8_t rce;
	const uint8_t *rv;
	char why[160];

	memset(m, 0, sizeof(m));
	m[0] = 1; m[1] = 1; m[4] = 9; m[6] = 48; m[8] = 2; m[9] = 2;
	nvmf_put_le16(m + 10, 384);
	nvmf_put_le32(m + 12, 3);
	CHECK_EQ(nvmf_auth_parse_challenge(m, sizeof(m), 9, &ci, &rce, why, sizeof(why)), 0);
	CHECK(ci.c1 == m + 16 && ci.dhv == m + 64 && ci.dhvlen == 384 && ci.seqnum == 3);
	for (size_t n = 0; n < sizeof(m); n++)
		CHECK(nvmf_auth_parse_challenge(m, n, 9, &ci, &rce, why, sizeof(why)) < 0);
	m[1] = 3; m[8] = 1;
	CHECK_EQ(nvmf_auth_parse_success1(m, 16 + 48, 9, 48, &rv, &rce, why, sizeof(why)), 0);
	CHECK(rv == m + 16);
	CHECK(nvmf_auth_parse_success1(m, 16 + 47, 9, 48, &rv, &rce, why, sizeof(why)) < 0);
	CHECK(nvmf_auth_parse_success1(m, 16 + 48, 9, 32, &rv, &rce, why, sizeof(why)) < 0);
	m[8] = 0;
	CHECK_EQ(nvmf_auth_parse_success1(m, 16, 9, 48, &rv, &rce, why, sizeof(why)), 0);
	CHECK(rv == NULL);
	CHECK_STR(nvmf_auth_rce_str(0x42), "reason not known");
}

/* Authentication Send/Receive SQEs at spec offsets (raw bytes, not the structs). */
static void test_cmd_bytes(void)
{
	struct nvme_sqe c;

	memset(&c, 0xa5, sizeof(c));
	nvmf_cmd_auth(&c, 1, 1168);
	CHECK_EQ(c.bytes[0], 0x7f);
	CHECK_EQ(c.bytes[4], 0x05);
	CHECK_EQ(c.bytes[40], 0);
	CHECK_EQ(c.bytes[41], 0x01);
	CHECK_EQ(c.bytes[42], 0x01);
	CHECK_EQ(c.bytes[43], 0xe9);
	CHECK_EQ(raw_le(&c, 44, 4), 1168);
	CHECK_EQ(raw_le(&c, 48, 8), 0);
	nvmf_cmd_auth(&c, 0, 4096);
	CHECK_EQ(c.bytes[4], 0x06);
	CHECK_EQ(raw_le(&c, 44, 4), 4096);
	/* TCP's data direction from FCTYPE bits 1:0: Send host to controller, Receive back */
	CHECK_EQ(NVMF_FCTYPE_AUTH_SEND & 3, 1);
	CHECK_EQ(NVMF_FCTYPE_AUTH_RECV & 3, 2);
	CHECK_EQ(NVMF_CONNECT_AUTHREQ_ATR, 0x20000);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_secret_file(void)
{
	char path[] = "/tmp/fio-nvmeof-test_auth.XXXXXX", err[512], text[512];
	struct nvmf_auth_key h, c;
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	close(fd);
	snprintf(text, sizeof(text), "# fio-nvmeof secrets\n\n%s\n%s\n", SECRET_HOST, SECRET_CTRL);
	write_text(path, text);
	CHECK_EQ(nvmf_auth_secret_file(path, &h, &c, err, sizeof(err)), 0);
	CHECK_EQ(h.len, 32);
	CHECK_EQ(h.hash, 1);
	CHECK_EQ(c.len, 32);
	CHECK_EQ(c.hash, 0);
	snprintf(text, sizeof(text), "%s\n", SECRET_HOST);
	write_text(path, text);
	CHECK_EQ(nvmf_auth_secret_file(path, &h, &c, err, sizeof(err)), 0);
	CHECK_EQ(h.len, 32);
	CHECK_EQ(c.len, 0);
	write_text(path, "# nothing\n\n");
	CHECK_EQ(nvmf_auth_secret_file(path, &h, &c, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "holds no secret") != NULL);
	snprintf(text, sizeof(text), "%s\nDHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaS:\n",
		 SECRET_HOST);
	write_text(path, text);
	CHECK_EQ(nvmf_auth_secret_file(path, &h, &c, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "the controller's, line 2") != NULL && strstr(err, "CRC-32") != NULL);
	CHECK(strstr(err, "KfiaS") == NULL && strstr(err, "+MBYw") == NULL);
	CHECK_EQ(h.len, 0);
	snprintf(text, sizeof(text), "%s\n%s\n%s\n", SECRET_HOST, SECRET_CTRL, SECRET_CTRL);
	write_text(path, text);
	CHECK_EQ(nvmf_auth_secret_file(path, &h, &c, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "more than two") != NULL);
	unlink(path);
	CHECK_EQ(nvmf_auth_secret_file(path, &h, &c, err, sizeof(err)), -ENOENT);
	CHECK(strstr(err, "No such file") != NULL);
}

/* dhchap_digests / dhchap_dhgroups: what is offered, and a controller choosing outside it */
static void test_offer_lists(void)
{
	static struct sctl c;
	struct nvmf_auth_session s;
	uint8_t h, g;
	char err[256];

	CHECK_EQ(nvmf_auth_parse_lists("sha256,SHA512", "null,ffdhe3072", &h, &g, err, sizeof(err)), 0);
	CHECK_EQ(h, (1u << 1) | (1u << 3));
	CHECK_EQ(g, (1u << 0) | (1u << 2));
	CHECK_EQ(nvmf_auth_parse_lists(NULL, "", &h, &g, err, sizeof(err)), 0);
	CHECK_EQ(h, 0);
	CHECK_EQ(g, 0);
	CHECK_EQ(nvmf_auth_parse_lists("sha1", NULL, &h, &g, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "dhchap_digests: 'sha1' is not one of sha256, sha384, sha512");
	CHECK_EQ(nvmf_auth_parse_lists(NULL, "ffdhe2048,modp", &h, &g, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "dhchap_dhgroups: 'modp' is not one of null") == err);

	memset(&c, 0, sizeof(c));
	c.hash_id = NVMF_AUTH_HASH_SHA384;
	c.dhg_id = NVMF_AUTH_DHGROUP_3072;
	c.s1 = 9;
	CHECK_EQ(nvmf_auth_session_init(&s, sc_hostnqn, sc_subnqn), 0);
	s.hashes = (uint8_t)((1u << 1) | (1u << 2));
	s.dhgroups = (uint8_t)(1u << 2);
	CHECK_EQ(run(&c, &s, 0, err, sizeof(err)), 0);
	CHECK_EQ(c.neg[10], 2);      /* HALEN */
	CHECK_EQ(c.neg[11], 1);      /* DHLEN */
	CHECK_EQ(c.neg[12], 1);
	CHECK_EQ(c.neg[13], 2);
	CHECK_EQ(c.neg[42], 2);
	/* the controller answers with SHA-512, which was not offered */
	s.hashes = (uint8_t)(1u << 1);
	CHECK_EQ(run(&c, &s, 0, err, sizeof(err)), -EPROTO);
	CHECK(strstr(err, "names hash function sha384, which the host did not offer (dhchap_digests)") != NULL);
	CHECK_EQ(c.failure2_rce, NVMF_AUTH_RCE_HASH_UNUSABLE);
	s.hashes = 0;
	s.dhgroups = (uint8_t)(1u << 0);
	CHECK_EQ(run(&c, &s, 0, err, sizeof(err)), -EPROTO);
	CHECK(strstr(err, "names DH group ffdhe3072, which the host did not offer (dhchap_dhgroups)") != NULL);
	CHECK_EQ(c.failure2_rce, NVMF_AUTH_RCE_DHGROUP_UNUSABLE);
	nvmf_auth_dh_free(c.dh);
	nvmf_auth_session_clear(&s);
}

/* ---- the exchange through a queue: Authentication Send/Receive capsules --------------- */

#define Q_RKEY 0x1234abcdu
static unsigned q_capsules;
static uint16_t q_fail_status;   /* the answer to every Receive when set */

/* The scripted peer's target side: the capsule's keyed SGL names the host's buffer; a Send's
 * message is read from it, a Receive's written into it, before the CQE goes back. */
static void q_capsule(struct scripted_peer *p, const uint8_t *sqe)
{
	struct sctl *c = p->user;
	uint8_t *addr = (uint8_t *)(uintptr_t)raw_le(sqe, 24, 8);
	uint32_t len = (uint32_t)raw_le(sqe, 32, 3);
	char why[160];

	q_capsules++;
	p->auto_status = 0;
	CHECK_EQ(sqe[0], 0x7f);
	CHECK(sqe[4] == 0x05 || sqe[4] == 0x06);
	CHECK_EQ(sqe[39], NVME_SGL_TYPE_KEYED_ADDR);
	CHECK_EQ(raw_le(sqe, 35, 4), Q_RKEY);
	CHECK_EQ(sqe[41], 1);
	CHECK_EQ(sqe[42], 1);
	CHECK_EQ(sqe[43], 0xe9);
	CHECK_EQ(raw_le(sqe, 44, 4), len);
	if (sqe[4] == 0x05) {
		memcpy(c->buf, addr, len);
		if (sc_send(c, len, why, sizeof(why)))
			p->auto_status = sp_status(0, 0x0c, 1);
		return;
	}
	CHECK_EQ(len, NVMF_AUTH_MSG_MAX);
	if (q_fail_status) {
		p->auto_status = q_fail_status;
		return;
	}
	if (sc_recv(c, len, why, sizeof(why)) == 0)
		memcpy(addr, c->buf, len);
	else
		p->auto_status = sp_status(0, 0x0c, 1);
}

static int q_run(struct sctl *c, struct nvmf_auth_session *s, int bidi, uint16_t qid,
		 uint32_t dw0, char *err, size_t errlen)
{
	static struct scripted_peer peer;
	static uint8_t hostbuf[NVMF_AUTH_MSG_MAX];
	struct nvmf_queue q;
	int rc;

	prep(c, s, bidi);
	memset(&peer, 0, sizeof(peer));
	CHECK_EQ(nvmf_queue_init(&q, qid, 8), 0);
	sp_attach(&peer, &q);
	CHECK_EQ(nvmf_queue_post_recvs(&q), 0);
	peer.auto_send_ok = 1;
	peer.auto_respond = 1;
	peer.on_capsule = q_capsule;
	peer.user = c;
	q_capsules = 0;
	err[0] = 0;
	rc = nvmf_auth_after_connect(s, &q, dw0, hostbuf, Q_RKEY, 1000, NULL, NULL, err, errlen);
	CHECK_EQ(q_capsules, peer.nr_sends);
	nvmf_queue_fini(&q);
	return rc;
}

static void test_queue_exchange(void)
{
	static struct sctl c;
	struct nvmf_auth_session s;
	char err[256];

	memset(&c, 0, sizeof(c));
	c.hash_id = NVMF_AUTH_HASH_SHA256;
	c.dhg_id = NVMF_AUTH_DHGROUP_2048;
	c.s1 = 300;
	CHECK_EQ(nvmf_auth_session_init(&s, sc_hostnqn, sc_subnqn), 0);
	/* the admin queue, then an I/O queue of the same controller: bidirectional, ffdhe2048 */
	CHECK_EQ(q_run(&c, &s, 1, 0, NVMF_CONNECT_AUTHREQ_ATR | 0x0001, err, sizeof(err)), 0);
	CHECK(c.host_ok && c.got_success2);
	CHECK_EQ(q_capsules, 5);       /* negotiate, challenge, reply, success1, success2 */
	CHECK_EQ(q_run(&c, &s, 1, 1, NVMF_CONNECT_AUTHREQ_ATR, err, sizeof(err)), 0);
	CHECK(c.host_ok && c.got_success2);
	CHECK_EQ(s.exchanges, 2);
	/* the controller did not ask: nothing sent */
	CHECK_EQ(q_run(&c, &s, 1, 2, 0x0001, err, sizeof(err)), 0);
	CHECK_EQ(q_capsules, 0);
	/* secure channel concatenation asked for: refused, nothing sent */
	CHECK_EQ(q_run(&c, &s, 1, 2, NVMF_CONNECT_AUTHREQ_ATR | NVMF_CONNECT_AUTHREQ_ASCR, err,
		       sizeof(err)), -EPROTONOSUPPORT);
	CHECK(strstr(err, "queue 2: the controller requires authentication with secure channel "
		      "concatenation (TLS)") == err);
	CHECK_EQ(q_capsules, 0);
	/* a wrong key on an I/O queue: Failure1 comes back through the Receive */
	c.fault = SC_WRONG_KEY;
	CHECK_EQ(q_run(&c, &s, 0, 1, NVMF_CONNECT_AUTHREQ_ATR, err, sizeof(err)), -EACCES);
	CHECK(strstr(err, "queue 1: DH-HMAC-CHAP: the controller refused the host's response "
		      "(AUTH_Failure1: authentication failed)") == err);
	/* the Receive itself fails with an NVMe status: named */
	c.fault = SC_OK;
	q_fail_status = sp_status(0, 0x0c, 1);
	CHECK_EQ(q_run(&c, &s, 0, 0, NVMF_CONNECT_AUTHREQ_ATR, err, sizeof(err)), -EACCES);
	if (!strstr(err, "queue 0: DH-HMAC-CHAP: Authentication Receive (the challenge) failed: "))
		fprintf(stderr, "receive status: %s\n", err);
	CHECK(strstr(err, "queue 0: DH-HMAC-CHAP: Authentication Receive (the challenge) failed: ") == err);
	CHECK(strchr(err, '\n') == NULL);
	q_fail_status = 0;
	nvmf_auth_dh_free(c.dh);
	nvmf_auth_session_clear(&s);
}

int main(void)
{
	test_secret_kat();
	test_secret_bad();
	test_transform_kat();
	test_transform_nvme_cli();
	test_response_kat();
	test_dh();
	test_exchange_ok();
	test_exchange_hostile();
	test_replay();
	test_no_secret();
	test_parse_prefixes();
	test_cmd_bytes();
	test_secret_file();
	test_offer_lists();
	test_queue_exchange();
	return check_done("test_auth");
}
