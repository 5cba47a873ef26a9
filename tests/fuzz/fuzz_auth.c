/* fuzz_auth.c - libFuzzer target: what a controller sends during DH-HMAC-CHAP, and the secret
 * text a job gives, through lib/nvmf_auth.c.
 *
 * Input: byte 0 picks the way in, the rest is the message (or text):
 *   bits 1:0  0 nvmf_auth_parse_challenge, 1 nvmf_auth_parse_success1, 2 nvmf_auth_secret_parse,
 *             3 a whole nvmf_auth_exchange whose two Authentication Receives hand back the rest
 *             split where bytes 1..2 (little-endian) say (first the challenge, then the
 *             result);
 *   bit 2     the transaction ID the host expects is the message's own (else 0x1234);
 *   bits 4:3  the hash length Success1 is checked against (32, 48, 64, 0);
 *   bit 5     the exchange is bidirectional.
 * Each message arrives in a buffer of exactly its size (NVMF_AUTH_MSG_MAX at most for the
 * exchange, which works in that buffer as the lane's scratch), so reading past it is an ASan
 * error. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmf_auth.h"
#include "nvmf_err.h"
#include "nvmf_spec.h"

#include "fuzz_assert.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fz_peer {
	uint8_t       *buf;
	const uint8_t *msg[2];
	size_t         len[2];
	unsigned       recvs, sends;
};

static int fz_send(void *ctx, uint32_t len, char *why, size_t whylen)
{
	struct fz_peer *p = ctx;

	(void)why;
	(void)whylen;
	FUZZ_ASSERT(len >= 8 && len <= NVMF_AUTH_MSG_MAX);
	p->sends++;
	return 0;
}

static int fz_recv(void *ctx, uint32_t al, char *why, size_t whylen)
{
	struct fz_peer *p = ctx;

	FUZZ_ASSERT(al == NVMF_AUTH_MSG_MAX);
	if (p->recvs >= 2)
		return nvmf_errf(why, whylen, -EIO, "no more messages");
	memset(p->buf, 0, NVMF_AUTH_MSG_MAX);
	memcpy(p->buf, p->msg[p->recvs], p->len[p->recvs]);
	p->recvs++;
	return 0;
}

static void fz_one_line(const char *s, size_t cap)
{
	FUZZ_ASSERT(strnlen(s, cap) < cap);
	FUZZ_ASSERT(strchr(s, '\n') == NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t hls[4] = { 32, 48, 64, 0 };
	struct nvmf_auth_challenge_info ci;
	const uint8_t *m = data + 1, *rv;
	size_t n = size ? size - 1 : 0;
	uint8_t mode, rce = 0, hl;
	uint16_t tid;
	char why[160];
	int rc;

	if (!size)
		return 0;
	mode = data[0];
	hl = hls[(mode >> 3) & 3];
	tid = (mode & 4) && n >= 6 ? nvmf_get_le16(m + 4) : 0x1234;
	why[0] = 0;
	switch (mode & 3) {
	case 0:
		rc = nvmf_auth_parse_challenge(m, n, tid, &ci, &rce, why, sizeof(why));
		FUZZ_ASSERT(rc == 0 || rc == NVMF_AUTH_FAILURE1 || rc == -EPROTO);
		fz_one_line(why, sizeof(why));
		if (rc == 0) {
			FUZZ_ASSERT(ci.hl == nvmf_auth_hash_len(ci.hash_id) && ci.hl);
			FUZZ_ASSERT(ci.dhvlen == nvmf_auth_dhgroup_len(ci.dhg_id));
			FUZZ_ASSERT(ci.c1 == m + 16);
			FUZZ_ASSERT(16u + ci.hl + ci.dhvlen <= n);
			FUZZ_ASSERT(ci.seqnum != 0);
			FUZZ_ASSERT(!ci.dhvlen || ci.dhv == ci.c1 + ci.hl);
		} else {
			FUZZ_ASSERT(why[0] != 0);
		}
		break;
	case 1:
		rc = nvmf_auth_parse_success1(m, n, tid, hl, &rv, &rce, why, sizeof(why));
		FUZZ_ASSERT(rc == 0 || rc == NVMF_AUTH_FAILURE1 || rc == -EPROTO);
		fz_one_line(why, sizeof(why));
		if (rc == 0 && rv)
			FUZZ_ASSERT(rv == m + 16 && 16u + hl <= n);
		if (rc != 0)
			FUZZ_ASSERT(why[0] != 0 && rv == NULL);
		break;
	case 2: {
		struct nvmf_auth_key k;
		char *text = malloc(n + 1);

		if (!text)
			return 0;
		memcpy(text, m, n);
		text[n] = 0;
		rc = nvmf_auth_secret_parse(text, &k, "dhchap_secret", why, sizeof(why));
		FUZZ_ASSERT(rc == 0 || rc == -EINVAL);
		fz_one_line(why, sizeof(why));
		if (rc == 0)
			FUZZ_ASSERT((k.len == 32 || k.len == 48 || k.len == 64) && k.hash <= 3);
		else
			FUZZ_ASSERT(k.len == 0 && why[0]);
		nvmf_auth_key_clear(&k);
		free(text);
		break;
	}
	case 3: {
		static const char secret[] = "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:";
		struct nvmf_auth_session s;
		struct nvmf_auth_ops ops;
		struct fz_peer p;
		char err[256];
		size_t cut;

		if (n > 2 * NVMF_AUTH_MSG_MAX)
			return 0;
		if (n < 2)
			return 0;
		cut = nvmf_get_le16(m);
		m += 2;
		n -= 2;
		if (cut > n)
			cut = n;
		memset(&p, 0, sizeof(p));
		p.msg[0] = m;
		p.len[0] = cut < NVMF_AUTH_MSG_MAX ? cut : NVMF_AUTH_MSG_MAX;
		p.msg[1] = m + cut;
		p.len[1] = n - cut < NVMF_AUTH_MSG_MAX ? n - cut : NVMF_AUTH_MSG_MAX;
		p.buf = malloc(NVMF_AUTH_MSG_MAX);
		if (!p.buf || nvmf_auth_session_init(&s, "nqn.2014-08.org.nvmexpress:uuid:fuzz",
						     "nqn.2024-01.io.example:fuzz")) {
			free(p.buf);
			return 0;
		}
		FUZZ_ASSERT(nvmf_auth_secret_parse(secret, &s.host, "x", err, sizeof(err)) == 0);
		if (mode & 0x20)
			FUZZ_ASSERT(nvmf_auth_secret_parse(secret, &s.ctrl, "x", err, sizeof(err)) == 0);
		/* the message's own transaction ID, so the parse goes past the header */
		if (p.len[0] >= 6)
			s.next_tid = nvmf_get_le16(m + 4);
		ops.buf = p.buf;
		ops.send = fz_send;
		ops.recv = fz_recv;
		ops.ctx = &p;
		err[0] = 0;
		rc = nvmf_auth_exchange(&s, 1, &ops, err, sizeof(err));
		FUZZ_ASSERT(rc == 0 || rc == -EPROTO || rc == -EACCES || rc == -EIO);
		fz_one_line(err, sizeof(err));
		FUZZ_ASSERT(rc == 0 ? err[0] == 0 : strncmp(err, "queue 1: ", 9) == 0);
		/* the buffer is cleansed whatever happened */
		for (size_t i = 0; i < NVMF_AUTH_MSG_MAX; i++)
			FUZZ_ASSERT(p.buf[i] == 0);
		nvmf_auth_session_clear(&s);
		free(p.buf);
		break;
	}
	}
	return 0;
}
