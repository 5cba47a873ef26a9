/* nvmf_auth.c - DH-HMAC-CHAP (TP 8006) for the host: secrets, responses, DH, the exchange. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/dh.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>

#include "nvmf_auth.h"
#include "nvmf_err.h"
#include "nvmf_spec.h"

#define NVMF_DHHC_PREFIX "DHHC-1:"

static const struct { const char *name; size_t len; } nvmf_auth_hashes[] = {
	[NVMF_AUTH_HASH_SHA256] = { "sha256", 32 },
	[NVMF_AUTH_HASH_SHA384] = { "sha384", 48 },
	[NVMF_AUTH_HASH_SHA512] = { "sha512", 64 },
};

static const struct { const char *name; size_t len; } nvmf_auth_groups[] = {
	[NVMF_AUTH_DHGROUP_NULL] = { "null", 0 },
	[NVMF_AUTH_DHGROUP_2048] = { "ffdhe2048", 256 },
	[NVMF_AUTH_DHGROUP_3072] = { "ffdhe3072", 384 },
	[NVMF_AUTH_DHGROUP_4096] = { "ffdhe4096", 512 },
	[NVMF_AUTH_DHGROUP_6144] = { "ffdhe6144", 768 },
	[NVMF_AUTH_DHGROUP_8192] = { "ffdhe8192", 1024 },
};

size_t nvmf_auth_hash_len(unsigned id)
{
	return id >= NVMF_AUTH_HASH_SHA256 && id <= NVMF_AUTH_HASH_SHA512 ? nvmf_auth_hashes[id].len : 0;
}

const char *nvmf_auth_hash_name(unsigned id)
{
	return nvmf_auth_hash_len(id) ? nvmf_auth_hashes[id].name : NULL;
}

size_t nvmf_auth_dhgroup_len(unsigned id)
{
	return id <= NVMF_AUTH_DHGROUP_8192 ? nvmf_auth_groups[id].len : 0;
}

const char *nvmf_auth_dhgroup_name(unsigned id)
{
	return id <= NVMF_AUTH_DHGROUP_8192 ? nvmf_auth_groups[id].name : NULL;
}

const char *nvmf_auth_rce_str(unsigned rce)
{
	switch (rce) {
	case NVMF_AUTH_RCE_FAILED:          return "authentication failed";
	case NVMF_AUTH_RCE_PROTO_UNUSABLE:  return "authentication protocol not usable";
	case NVMF_AUTH_RCE_SCC_MISMATCH:    return "secure channel concatenation mismatch";
	case NVMF_AUTH_RCE_HASH_UNUSABLE:   return "hash function not usable";
	case NVMF_AUTH_RCE_DHGROUP_UNUSABLE: return "DH group not usable";
	case NVMF_AUTH_RCE_BAD_PAYLOAD:     return "incorrect payload";
	case NVMF_AUTH_RCE_BAD_MESSAGE:     return "incorrect protocol message";
	default:                            return "reason not known";
	}
}

/* A checksum, not a cryptographic primitive: bitwise, reflected polynomial 0xEDB88320. */
uint32_t nvmf_auth_crc32(const uint8_t *buf, size_t len)
{
	uint32_t crc = 0xffffffffu;

	for (size_t i = 0; i < len; i++) {
		crc ^= buf[i];
		for (int b = 0; b < 8; b++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
	}
	return ~crc;
}

void nvmf_auth_key_clear(struct nvmf_auth_key *k)
{
	OPENSSL_cleanse(k, sizeof(*k));
}

static int nvmf_b64_char(int c)
{
	return isalnum(c) || c == '+' || c == '/';
}

int nvmf_auth_secret_parse(const char *text, struct nvmf_auth_key *k, const char *what,
			   char *err, size_t errlen)
{
	uint8_t raw[3 * 128 / 4];
	const char *p, *b64, *end;
	size_t n, pad = 0, rawlen;
	unsigned hash;
	int dec, rc = -EINVAL;

	memset(k, 0, sizeof(*k));
	if (!text)
		return nvmf_errf(err, errlen, -EINVAL, "%s: no secret", what);
	while (isspace((unsigned char)*text))
		text++;
	if (strncmp(text, NVMF_DHHC_PREFIX, strlen(NVMF_DHHC_PREFIX)))
		return nvmf_errf(err, errlen, -EINVAL, "%s is not a DH-HMAC-CHAP secret: it must "
				 "read DHHC-1:XX:<base64>: (as nvme gen-dhchap-key writes it)", what);
	p = text + strlen(NVMF_DHHC_PREFIX);
	if (!isxdigit((unsigned char)p[0]) || !isxdigit((unsigned char)p[1]) || p[2] != ':')
		return nvmf_errf(err, errlen, -EINVAL, "%s: the DHHC-1 secret's transformation "
				 "field (after DHHC-1:) must be two hex digits, 00..03", what);
	hash = (unsigned)((isdigit((unsigned char)p[0]) ? p[0] - '0' : 10 + (tolower((unsigned char)p[0]) - 'a')) * 16 +
			  (isdigit((unsigned char)p[1]) ? p[1] - '0' : 10 + (tolower((unsigned char)p[1]) - 'a')));
	if (hash > NVMF_AUTH_HASH_SHA512)
		return nvmf_errf(err, errlen, -EINVAL, "%s: the DHHC-1 secret names transformation "
				 "%02x: only 00 (none), 01 (SHA-256), 02 (SHA-384), 03 (SHA-512) exist",
				 what, hash);
	b64 = p + 3;
	for (end = b64; nvmf_b64_char((unsigned char)*end); end++)
		;
	n = (size_t)(end - b64);
	while (*end == '=' && pad < 2) {
		end++;
		pad++;
	}
	if (*end != ':')
		return nvmf_errf(err, errlen, -EINVAL, "%s: the DHHC-1 secret's key is not base64 "
				 "ending in ':'", what);
	for (p = end + 1; *p; p++)
		if (!isspace((unsigned char)*p))
			return nvmf_errf(err, errlen, -EINVAL, "%s: text follows the DHHC-1 secret's "
					 "closing ':'", what);
	n += pad;
	if (n % 4 || n / 4 * 3 > sizeof(raw))
		return nvmf_errf(err, errlen, -EINVAL, "%s: the DHHC-1 secret's base64 has the wrong "
				 "length (a 32, 48 or 64-byte key and its CRC-32)", what);
	dec = EVP_DecodeBlock(raw, (const unsigned char *)b64, (int)n);
	if (dec < 0 || (size_t)dec < pad) {
		rc = nvmf_errf(err, errlen, -EINVAL, "%s: the DHHC-1 secret's base64 does not decode",
			       what);
		goto out;
	}
	rawlen = (size_t)dec - pad;
	if (rawlen != 36 && rawlen != 52 && rawlen != 68) {
		rc = nvmf_errf(err, errlen, -EINVAL, "%s: the DHHC-1 secret holds a %zu-byte key: "
			       "it must be 32, 48 or 64 bytes (and its CRC-32)", what,
			       rawlen >= 4 ? rawlen - 4 : 0);
		goto out;
	}
	rawlen -= 4;
	if (nvmf_auth_crc32(raw, rawlen) != nvmf_get_le32(raw + rawlen)) {
		rc = nvmf_errf(err, errlen, -EINVAL, "%s: the DHHC-1 secret's CRC-32 does not match "
			       "its key (mistyped or cut?)", what);
		goto out;
	}
	memcpy(k->key, raw, rawlen);
	k->len = (uint8_t)rawlen;
	k->hash = (uint8_t)hash;
	rc = 0;
out:
	OPENSSL_cleanse(raw, sizeof(raw));
	return rc;
}

int nvmf_auth_secret_file(const char *path, struct nvmf_auth_key *host,
			  struct nvmf_auth_key *ctrl, char *err, size_t errlen)
{
	char line[512], what[320], iobuf[4096];
	unsigned n = 0;
	FILE *f;
	int rc = 0;

	memset(host, 0, sizeof(*host));
	memset(ctrl, 0, sizeof(*ctrl));
	if (!(f = fopen(path, "r")))
		return nvmf_errf(err, errlen, -errno, "dhchap_secret_file %s: %s", path,
				 strerror(errno));
	/* stdio reads into this buffer, cleansed below, not into one it frees uncleansed */
	setvbuf(f, iobuf, _IOFBF, sizeof(iobuf));
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		const char *p = line;

		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			continue;
		if (n == 2) {
			rc = nvmf_errf(err, errlen, -EINVAL, "dhchap_secret_file %s: more than two "
				       "secrets (the host's, then the controller's)", path);
			break;
		}
		snprintf(what, sizeof(what), "dhchap_secret_file %s (%s secret)", path,
			 n ? "the controller's, line 2" : "the host's, line 1");
		rc = nvmf_auth_secret_parse(p, n ? ctrl : host, what, err, errlen);
		n++;
	}
	OPENSSL_cleanse(line, sizeof(line));
	fclose(f);
	OPENSSL_cleanse(iobuf, sizeof(iobuf));
	if (rc == 0 && n == 0)
		rc = nvmf_errf(err, errlen, -EINVAL, "dhchap_secret_file %s holds no secret", path);
	if (rc) {
		nvmf_auth_key_clear(host);
		nvmf_auth_key_clear(ctrl);
	}
	return rc;
}

static int nvmf_auth_list(const char *list, const char *what, int groups, uint8_t *mask,
			  char *err, size_t errlen)
{
	const char *p = list;

	*mask = 0;
	if (!list || !*list)
		return 0;
	while (*p) {
		size_t n = strcspn(p, ",");
		unsigned id, found = 0;

		for (id = groups ? 0 : 1; id <= (groups ? 5u : 3u); id++) {
			const char *name = groups ? nvmf_auth_dhgroup_name(id) : nvmf_auth_hash_name(id);

			if (strlen(name) == n && !strncasecmp(p, name, n)) {
				*mask |= (uint8_t)(1u << id);
				found = 1;
			}
		}
		if (!found)
			return nvmf_errf(err, errlen, -EINVAL, "%s: '%.*s' is not one of %s", what,
					 (int)n, p, groups ? "null, ffdhe2048, ffdhe3072, ffdhe4096, "
					 "ffdhe6144, ffdhe8192" : "sha256, sha384, sha512");
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

int nvmf_auth_parse_lists(const char *digests, const char *dhgroups, uint8_t *hashes,
			  uint8_t *groups, char *err, size_t errlen)
{
	int rc = nvmf_auth_list(digests, "dhchap_digests", 0, hashes, err, errlen);

	return rc ? rc : nvmf_auth_list(dhgroups, "dhchap_dhgroups", 1, groups, err, errlen);
}

/* HMAC-<hash> of the parts (NULL-terminated pointer/length pairs) under key. */
static int nvmf_hmac(unsigned hash_id, const uint8_t *key, size_t keylen,
		     const void *const *parts, const size_t *lens, unsigned nparts, uint8_t *out)
{
	const char *name = nvmf_auth_hash_name(hash_id);
	EVP_MAC *mac;
	EVP_MAC_CTX *ctx = NULL;
	OSSL_PARAM params[2];
	size_t outlen = 0;
	int rc = -EIO;

	if (!name)
		return -EINVAL;
	if (!(mac = EVP_MAC_fetch(NULL, "HMAC", NULL)))
		return -EIO;
	if (!(ctx = EVP_MAC_CTX_new(mac)))
		goto out;
	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)name, 0);
	params[1] = OSSL_PARAM_construct_end();
	if (EVP_MAC_init(ctx, key, keylen, params) != 1)
		goto out;
	for (unsigned i = 0; i < nparts; i++)
		if (lens[i] && EVP_MAC_update(ctx, parts[i], lens[i]) != 1)
			goto out;
	if (EVP_MAC_final(ctx, out, &outlen, nvmf_auth_hash_len(hash_id)) != 1 ||
	    outlen != nvmf_auth_hash_len(hash_id))
		goto out;
	rc = 0;
out:
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(mac);
	return rc;
}

int nvmf_auth_transform(const struct nvmf_auth_key *k, const char *nqn, uint8_t *out,
			size_t *outlen)
{
	static const char tail[] = "NVMe-over-Fabrics";
	const void *parts[2] = { nqn, tail };
	size_t lens[2] = { strlen(nqn), sizeof(tail) - 1 };

	if (!k->hash) {
		memcpy(out, k->key, k->len);
		*outlen = k->len;
		return 0;
	}
	*outlen = nvmf_auth_hash_len(k->hash);
	return nvmf_hmac(k->hash, k->key, k->len, parts, lens, 2, out);
}

int nvmf_auth_augment(unsigned hash_id, const uint8_t *chal, const uint8_t *dh, size_t dhlen,
		      uint8_t *out)
{
	const char *name = nvmf_auth_hash_name(hash_id);
	uint8_t hk[NVMF_AUTH_HASH_MAX];
	unsigned hklen = 0;
	const void *parts[1] = { chal };
	size_t lens[1] = { nvmf_auth_hash_len(hash_id) };
	EVP_MD *md;
	int rc = -EIO;

	if (!name)
		return -EINVAL;
	if (!(md = EVP_MD_fetch(NULL, name, NULL)))
		return -EIO;
	if (EVP_Digest(dh, dhlen, hk, &hklen, md, NULL) == 1)
		rc = nvmf_hmac(hash_id, hk, hklen, parts, lens, 1, out);
	EVP_MD_free(md);
	OPENSSL_cleanse(hk, sizeof(hk));
	return rc;
}

int nvmf_auth_response(unsigned hash_id, const uint8_t *key, size_t keylen, const uint8_t *chal,
		       uint32_t seq, uint16_t tid, uint8_t scc, const char *role,
		       const char *nqn1, const char *nqn2, const uint8_t *dh, size_t dhlen,
		       uint8_t *out)
{
	uint8_t aug[NVMF_AUTH_HASH_MAX], seqb[4], tidb[2], zero = 0;
	size_t hl = nvmf_auth_hash_len(hash_id);
	const void *parts[8];
	size_t lens[8];
	int rc;

	if (!hl)
		return -EINVAL;
	if (dhlen) {
		if ((rc = nvmf_auth_augment(hash_id, chal, dh, dhlen, aug)))
			return rc;
		chal = aug;
	}
	nvmf_put_le32(seqb, seq);
	nvmf_put_le16(tidb, tid);
	parts[0] = chal; lens[0] = hl;
	parts[1] = seqb; lens[1] = 4;
	parts[2] = tidb; lens[2] = 2;
	parts[3] = &scc; lens[3] = 1;
	parts[4] = role; lens[4] = strlen(role);
	parts[5] = nqn1; lens[5] = strlen(nqn1);
	parts[6] = &zero; lens[6] = 1;
	parts[7] = nqn2; lens[7] = strlen(nqn2);
	rc = nvmf_hmac(hash_id, key, keylen, parts, lens, 8, out);
	OPENSSL_cleanse(aug, sizeof(aug));
	return rc;
}

/* ---- DH ----------------------------------------------------------------------------------- */

struct nvmf_auth_dh {
	EVP_PKEY *pkey;
	unsigned  dhg_id;
};

void nvmf_auth_dh_free(struct nvmf_auth_dh *dh)
{
	if (!dh)
		return;
	EVP_PKEY_free(dh->pkey);
	OPENSSL_free(dh);
}

int nvmf_auth_dh_new(unsigned dhg_id, struct nvmf_auth_dh **out, uint8_t *pub, size_t publen)
{
	const char *group = nvmf_auth_dhgroup_name(dhg_id);
	struct nvmf_auth_dh *dh;
	EVP_PKEY_CTX *ctx = NULL;
	OSSL_PARAM params[2];
	BIGNUM *bn = NULL;
	int rc = -EIO;

	*out = NULL;
	if (!group || !dhg_id || publen != nvmf_auth_dhgroup_len(dhg_id))
		return -EINVAL;
	if (!(dh = OPENSSL_zalloc(sizeof(*dh))))
		return -ENOMEM;
	dh->dhg_id = dhg_id;
	if (!(ctx = EVP_PKEY_CTX_new_from_name(NULL, "DH", NULL)) || EVP_PKEY_keygen_init(ctx) != 1)
		goto out;
	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, (char *)group, 0);
	params[1] = OSSL_PARAM_construct_end();
	if (EVP_PKEY_CTX_set_params(ctx, params) != 1 || EVP_PKEY_generate(ctx, &dh->pkey) != 1)
		goto out;
	if (EVP_PKEY_get_bn_param(dh->pkey, OSSL_PKEY_PARAM_PUB_KEY, &bn) != 1 ||
	    BN_bn2binpad(bn, pub, (int)publen) != (int)publen)
		goto out;
	*out = dh;
	dh = NULL;
	rc = 0;
out:
	BN_free(bn);
	EVP_PKEY_CTX_free(ctx);
	nvmf_auth_dh_free(dh);
	return rc;
}

int nvmf_auth_dh_derive(struct nvmf_auth_dh *dh, const uint8_t *peer, size_t peerlen,
			uint8_t *secret, size_t seclen)
{
	const char *group = nvmf_auth_dhgroup_name(dh->dhg_id);
	EVP_PKEY_CTX *ctx = NULL, *pctx = NULL;
	EVP_PKEY *peerkey = NULL;
	OSSL_PARAM_BLD *bld = NULL;
	OSSL_PARAM *params = NULL;
	BIGNUM *bn = NULL;
	size_t len = seclen;
	int rc = -EIO;

	if (peerlen != nvmf_auth_dhgroup_len(dh->dhg_id) || seclen != peerlen)
		return -EINVAL;
	if (!(bn = BN_bin2bn(peer, (int)peerlen, NULL)) || !(bld = OSSL_PARAM_BLD_new()) ||
	    OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, group, 0) != 1 ||
	    OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PUB_KEY, bn) != 1 ||
	    !(params = OSSL_PARAM_BLD_to_param(bld)) ||
	    !(pctx = EVP_PKEY_CTX_new_from_name(NULL, "DH", NULL)) ||
	    EVP_PKEY_fromdata_init(pctx) != 1)
		goto out;
	if (EVP_PKEY_fromdata(pctx, &peerkey, EVP_PKEY_PUBLIC_KEY, params) != 1) {
		rc = -EINVAL;
		goto out;
	}
	if (!(ctx = EVP_PKEY_CTX_new(dh->pkey, NULL)) || EVP_PKEY_derive_init(ctx) != 1 ||
	    EVP_PKEY_CTX_set_dh_pad(ctx, 1) <= 0)
		goto out;
	/* OpenSSL checks the peer's value (1 < y < p-1) here: a refusal is the peer's fault. */
	if (EVP_PKEY_derive_set_peer(ctx, peerkey) != 1) {
		rc = -EINVAL;
		goto out;
	}
	if (EVP_PKEY_derive(ctx, secret, &len) != 1 || len != seclen)
		goto out;
	rc = 0;
out:
	EVP_PKEY_CTX_free(ctx);
	EVP_PKEY_CTX_free(pctx);
	EVP_PKEY_free(peerkey);
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	BN_free(bn);
	return rc;
}

/* ---- parsers ------------------------------------------------------------------------------ */

/* The common part: a Failure1, or a message of type/id for transaction tid. */
static int nvmf_auth_check_hdr(const uint8_t *buf, size_t len, uint8_t type, uint8_t id,
			       uint16_t tid, const char *name, uint8_t *rce, char *why,
			       size_t whylen)
{
	if (len < 8) {
		*rce = NVMF_AUTH_RCE_BAD_PAYLOAD;
		return nvmf_errf(why, whylen, -EPROTO, "%zu bytes: too short for any message", len);
	}
	if (buf[0] == NVMF_AUTH_TYPE_COMMON && buf[1] == NVMF_AUTH_ID_FAILURE1) {
		*rce = buf[7];
		if (nvmf_get_le16(buf + 4) != tid)
			return nvmf_errf(why, whylen, NVMF_AUTH_FAILURE1, "AUTH_Failure1 (%s; for "
					 "transaction %u, not this one's %u)",
					 nvmf_auth_rce_str(buf[7]), nvmf_get_le16(buf + 4), tid);
		return nvmf_errf(why, whylen, NVMF_AUTH_FAILURE1, "AUTH_Failure1: %s",
				 buf[6] == NVMF_AUTH_RC_FAILURE ? nvmf_auth_rce_str(buf[7]) :
				 "reason code not known");
	}
	if (buf[0] != type || buf[1] != id) {
		*rce = NVMF_AUTH_RCE_BAD_MESSAGE;
		return nvmf_errf(why, whylen, -EPROTO, "message type %02xh id %02xh where %s was "
				 "expected", buf[0], buf[1], name);
	}
	if (nvmf_get_le16(buf + 4) != tid) {
		*rce = NVMF_AUTH_RCE_BAD_PAYLOAD;
		return nvmf_errf(why, whylen, -EPROTO, "%s for transaction %u, not this one's %u",
				 name, nvmf_get_le16(buf + 4), tid);
	}
	return 0;
}

int nvmf_auth_parse_challenge(const uint8_t *buf, size_t len, uint16_t tid,
			      struct nvmf_auth_challenge_info *ci, uint8_t *rce,
			      char *why, size_t whylen)
{
	const char *name = "DH-HMAC-CHAP_Challenge";
	size_t hl;
	int rc;

	memset(ci, 0, sizeof(*ci));
	if ((rc = nvmf_auth_check_hdr(buf, len, NVMF_AUTH_TYPE_DHCHAP, NVMF_AUTH_ID_CHALLENGE, tid,
				      name, rce, why, whylen)))
		return rc;
	*rce = NVMF_AUTH_RCE_BAD_PAYLOAD;
	if (len < sizeof(struct nvmf_auth_challenge))
		return nvmf_errf(why, whylen, -EPROTO, "%s of %zu bytes: shorter than its header",
				 name, len);
	ci->hl = buf[6];
	ci->hash_id = buf[8];
	ci->dhg_id = buf[9];
	ci->dhvlen = nvmf_get_le16(buf + 10);
	ci->seqnum = nvmf_get_le32(buf + 12);
	if (!(hl = nvmf_auth_hash_len(ci->hash_id))) {
		*rce = NVMF_AUTH_RCE_HASH_UNUSABLE;
		return nvmf_errf(why, whylen, -EPROTO, "%s names hash function %02xh, which the host "
				 "did not offer (SHA-256/384/512 only)", name, ci->hash_id);
	}
	if (!nvmf_auth_dhgroup_name(ci->dhg_id)) {
		*rce = NVMF_AUTH_RCE_DHGROUP_UNUSABLE;
		return nvmf_errf(why, whylen, -EPROTO, "%s names DH group %02xh, which the host did "
				 "not offer (null, ffdhe2048..8192 only)", name, ci->dhg_id);
	}
	if (ci->hl != hl)
		return nvmf_errf(why, whylen, -EPROTO, "%s: hash length %u for %s (%zu)", name,
				 ci->hl, nvmf_auth_hash_name(ci->hash_id), hl);
	if (ci->dhvlen != nvmf_auth_dhgroup_len(ci->dhg_id))
		return nvmf_errf(why, whylen, -EPROTO, "%s: DH value of %u bytes for %s (%zu)", name,
				 ci->dhvlen, nvmf_auth_dhgroup_name(ci->dhg_id),
				 nvmf_auth_dhgroup_len(ci->dhg_id));
	if (sizeof(struct nvmf_auth_challenge) + hl + ci->dhvlen > len)
		return nvmf_errf(why, whylen, -EPROTO, "%s: %zu bytes of challenge and DH value "
				 "past the %zu received", name, hl + ci->dhvlen,
				 len - sizeof(struct nvmf_auth_challenge));
	if (!ci->seqnum)
		return nvmf_errf(why, whylen, -EPROTO, "%s with sequence number 0", name);
	ci->c1 = buf + sizeof(struct nvmf_auth_challenge);
	ci->dhv = ci->dhvlen ? ci->c1 + hl : NULL;
	return 0;
}

int nvmf_auth_parse_success1(const uint8_t *buf, size_t len, uint16_t tid, uint8_t hl,
			     const uint8_t **rval, uint8_t *rce, char *why, size_t whylen)
{
	const char *name = "DH-HMAC-CHAP_Success1";
	int rc;

	*rval = NULL;
	if ((rc = nvmf_auth_check_hdr(buf, len, NVMF_AUTH_TYPE_DHCHAP, NVMF_AUTH_ID_SUCCESS1, tid,
				      name, rce, why, whylen)))
		return rc;
	*rce = NVMF_AUTH_RCE_BAD_PAYLOAD;
	if (len < sizeof(struct nvmf_auth_success1))
		return nvmf_errf(why, whylen, -EPROTO, "%s of %zu bytes: shorter than its header",
				 name, len);
	if (!buf[8])
		return 0;
	if (buf[6] != hl)
		return nvmf_errf(why, whylen, -EPROTO, "%s: hash length %u, not the transaction's %u",
				 name, buf[6], hl);
	if (sizeof(struct nvmf_auth_success1) + (size_t)hl > len)
		return nvmf_errf(why, whylen, -EPROTO, "%s: its response runs past the %zu bytes "
				 "received", name, len);
	*rval = buf + sizeof(struct nvmf_auth_success1);
	return 0;
}

/* ---- the exchange ------------------------------------------------------------------------- */

int nvmf_auth_session_init(struct nvmf_auth_session *s, const char *hostnqn, const char *subnqn)
{
	memset(s, 0, sizeof(*s));
	s->hostnqn = hostnqn;
	s->subnqn = subnqn;
	if (RAND_bytes((unsigned char *)&s->next_tid, sizeof(s->next_tid)) != 1 ||
	    RAND_bytes((unsigned char *)&s->next_s2, sizeof(s->next_s2)) != 1)
		return -EIO;
	return 0;
}

void nvmf_auth_session_clear(struct nvmf_auth_session *s)
{
	nvmf_auth_key_clear(&s->host);
	nvmf_auth_key_clear(&s->ctrl);
}

/* S1 seen before on this session (any queue, any reconnect): a replay. */
static int nvmf_auth_s1_replayed(struct nvmf_auth_session *s, uint32_t s1)
{
	unsigned n = s->s1_n < NVMF_AUTH_S1_SEEN ? s->s1_n : NVMF_AUTH_S1_SEEN;

	for (unsigned i = 0; i < n; i++)
		if (s->s1_seen[i] == s1)
			return 1;
	s->s1_seen[s->s1_n++ % NVMF_AUTH_S1_SEEN] = s1;
	return 0;
}

/* What the exchange keeps while it runs, all cleansed at its end. */
struct nvmf_auth_run {
	uint8_t key[NVMF_AUTH_KEY_MAX];
	uint8_t r1[NVMF_AUTH_HASH_MAX], r2[NVMF_AUTH_HASH_MAX], c2[NVMF_AUTH_HASH_MAX];
	uint8_t pub[NVMF_AUTH_DH_MAX], dhs[NVMF_AUTH_DH_MAX];
};

/* Tell the controller why the host gives up (best effort: the host fails either way). */
static void nvmf_auth_failure2(const struct nvmf_auth_ops *ops, uint16_t tid, uint8_t rce)
{
	struct nvmf_auth_failure f;
	char why[64];

	memset(&f, 0, sizeof(f));
	f.auth_type = NVMF_AUTH_TYPE_COMMON;
	f.auth_id = NVMF_AUTH_ID_FAILURE2;
	f.t_id = htole16(tid);
	f.rc = NVMF_AUTH_RC_FAILURE;
	f.rce = rce;
	memcpy(ops->buf, &f, sizeof(f));
	(void)ops->send(ops->ctx, sizeof(f), why, sizeof(why));
}

struct nvmf_auth_qctx {
	struct nvmf_queue *q;
	uint8_t           *buf;
	uint32_t           rkey;
	unsigned           timeout_ms;
	nvmf_exec_wait_fn  wait;
	void              *wait_ctx;
};

/* Authentication Send (send) of len bytes from the buffer, or Receive of at most len bytes
 * into it, on the queue. */
static int nvmf_auth_qcmd(void *ctx, int send, uint32_t len, char *why, size_t whylen)
{
	struct nvmf_auth_qctx *ac = ctx;
	struct nvmf_req *req = nvmf_queue_get(ac->q, NULL);
	struct nvme_sqe *c;
	struct nvme_cqe cqe;
	char st[128];
	int rc;

	if (!req)
		return nvmf_errf(why, whylen, -EBUSY, "queue %u has no free slot", ac->q->qid);
	c = nvmf_req_sqe(ac->q, req);
	nvmf_cmd_auth(c, send, len);
	nvme_sqe_set_sgl_keyed(c, (uintptr_t)ac->buf, len, ac->rkey);
	rc = nvmf_queue_exec_wait(ac->q, req, ac->timeout_ms, &cqe, ac->wait, ac->wait_ctx);
	if (rc)
		return nvmf_errf(why, whylen, rc, "%s", ac->q->fatal_msg[0] ? ac->q->fatal_msg :
				 strerror(-rc));
	if (nvme_status_code(le16toh(cqe.status))) {
		nvme_status_format_raw(st, sizeof(st), le16toh(cqe.status), 1);
		return nvmf_errf(why, whylen, -EACCES, "%s", st);
	}
	return 0;
}

static int nvmf_auth_qsend(void *ctx, uint32_t len, char *why, size_t whylen)
{
	return nvmf_auth_qcmd(ctx, 1, len, why, whylen);
}

static int nvmf_auth_qrecv(void *ctx, uint32_t al, char *why, size_t whylen)
{
	return nvmf_auth_qcmd(ctx, 0, al, why, whylen);
}

int nvmf_auth_after_connect(struct nvmf_auth_session *s, struct nvmf_queue *q, uint32_t dw0,
			    uint8_t *buf, uint32_t rkey, unsigned timeout_ms,
			    nvmf_exec_wait_fn wait, void *wait_ctx, char *err, size_t errlen)
{
	struct nvmf_auth_qctx ac = { q, buf, rkey, timeout_ms, wait, wait_ctx };
	struct nvmf_auth_ops ops;

	if (dw0 & NVMF_CONNECT_AUTHREQ_ASCR)
		return nvmf_errf(err, errlen, -EPROTONOSUPPORT, "queue %u: the controller requires "
				 "authentication with secure channel concatenation (TLS), which "
				 "fio-nvmeof does not do", q->qid);
	if (!(dw0 & NVMF_CONNECT_AUTHREQ_ATR))
		return 0;
	ops.buf = buf;
	ops.send = nvmf_auth_qsend;
	ops.recv = nvmf_auth_qrecv;
	ops.ctx = &ac;
	return nvmf_auth_exchange(s, q->qid, &ops, err, errlen);
}

/* The errors a queue reports when the target ended its connection (RDMA CM DISCONNECTED, a
 * TCP FIN or reset). */
static int nvmf_auth_conn_gone(int rc)
{
	return rc == -ENOTCONN || rc == -ECONNRESET || rc == -ECONNABORTED || rc == -EPIPE;
}

int nvmf_auth_exchange(struct nvmf_auth_session *s, uint16_t qid, const struct nvmf_auth_ops *ops,
		       char *err, size_t errlen)
{
	struct nvmf_auth_challenge_info ci;
	struct nvmf_auth_negotiate neg;
	struct nvmf_auth_reply rep;
	struct nvmf_auth_success2 s2m;
	struct nvmf_auth_dh *dh = NULL;
	struct nvmf_auth_run *r;
	uint8_t *buf = ops->buf, rce = 0;
	const uint8_t *rval;
	uint16_t tid = s->next_tid++;
	uint32_t seq2 = 0;
	size_t keylen, hl, publen = 0;
	int bidi = s->ctrl.len > 0, rc;
	char why[160];

	if (!s->host.len)
		return nvmf_errf(err, errlen, -EACCES, "queue %u: the controller requires "
				 "DH-HMAC-CHAP authentication and no dhchap_secret (or "
				 "dhchap_secret_file) was given", qid);
	if (!(r = OPENSSL_zalloc(sizeof(*r))))
		return nvmf_errf(err, errlen, -ENOMEM, "queue %u: DH-HMAC-CHAP: out of memory", qid);

	/* AUTH_Negotiate: DH-HMAC-CHAP with every hash and group; the controller picks. */
	memset(&neg, 0, sizeof(neg));
	neg.auth_type = NVMF_AUTH_TYPE_COMMON;
	neg.auth_id = NVMF_AUTH_ID_NEGOTIATE;
	neg.t_id = htole16(tid);
	neg.sc_c = 0;
	neg.napd = 1;
	neg.desc[0].authid = NVMF_AUTH_PROTO_DHCHAP;
	for (unsigned h = NVMF_AUTH_HASH_SHA256; h <= NVMF_AUTH_HASH_SHA512; h++)
		if (!s->hashes || (s->hashes & (1u << h)))
			neg.desc[0].hash_ids[neg.desc[0].halen++] = (uint8_t)h;
	for (unsigned g = NVMF_AUTH_DHGROUP_NULL; g <= NVMF_AUTH_DHGROUP_8192; g++)
		if (!s->dhgroups || (s->dhgroups & (1u << g)))
			neg.desc[0].dh_ids[neg.desc[0].dhlen++] = (uint8_t)g;
	memset(buf, 0, NVMF_AUTH_MSG_MAX);
	memcpy(buf, &neg, sizeof(neg));
	if ((rc = ops->send(ops->ctx, sizeof(neg), why, sizeof(why)))) {
		rc = nvmf_errf(err, errlen, rc, "queue %u: DH-HMAC-CHAP: Authentication Send "
			       "(AUTH_Negotiate) failed: %s", qid, why);
		goto out;
	}

	/* DH-HMAC-CHAP_Challenge, or Failure1 when the controller allows nothing offered.  nvmet
	 * 6.12 ends the connection as it sends that Failure1 too (see the result below). */
	memset(buf, 0, NVMF_AUTH_MSG_MAX);
	if ((rc = ops->recv(ops->ctx, NVMF_AUTH_MSG_MAX, why, sizeof(why)))) {
		if (nvmf_auth_conn_gone(rc)) {
			char fw[96];

			if (nvmf_auth_parse_challenge(buf, NVMF_AUTH_MSG_MAX, tid, &ci, &rce, fw,
						      sizeof(fw)) == NVMF_AUTH_FAILURE1)
				rc = nvmf_errf(err, errlen, -EACCES, "queue %u: DH-HMAC-CHAP: the "
					       "controller refused the negotiation: %s, then it ended "
					       "the connection", qid, fw);
			else
				rc = nvmf_errf(err, errlen, -EACCES, "queue %u: DH-HMAC-CHAP: the "
					       "controller refused the negotiation (it ended the "
					       "connection instead of answering it: %s): do "
					       "dhchap_digests and dhchap_dhgroups hold what the target "
					       "allows this host?", qid, why);
			goto out;
		}
		rc = nvmf_errf(err, errlen, rc, "queue %u: DH-HMAC-CHAP: Authentication Receive "
			       "(the challenge) failed: %s", qid, why);
		goto out;
	}
	rc = nvmf_auth_parse_challenge(buf, NVMF_AUTH_MSG_MAX, tid, &ci, &rce, why, sizeof(why));
	if (rc == NVMF_AUTH_FAILURE1) {
		rc = nvmf_errf(err, errlen, -EACCES, "queue %u: DH-HMAC-CHAP: the controller "
			       "refused the negotiation: %s", qid, why);
		goto out;
	}
	if (rc == 0 && ((s->hashes && !(s->hashes & (1u << ci.hash_id))) ||
			(s->dhgroups && !(s->dhgroups & (1u << ci.dhg_id))))) {
		int hash = s->hashes && !(s->hashes & (1u << ci.hash_id));

		rce = hash ? NVMF_AUTH_RCE_HASH_UNUSABLE : NVMF_AUTH_RCE_DHGROUP_UNUSABLE;
		rc = nvmf_errf(why, sizeof(why), -EPROTO, "DH-HMAC-CHAP_Challenge names %s %s, which "
			       "the host did not offer (%s)", hash ? "hash function" : "DH group",
			       hash ? nvmf_auth_hash_name(ci.hash_id) : nvmf_auth_dhgroup_name(ci.dhg_id),
			       hash ? "dhchap_digests" : "dhchap_dhgroups");
	}
	if (rc == 0 && nvmf_auth_s1_replayed(s, ci.seqnum)) {
		rce = NVMF_AUTH_RCE_BAD_PAYLOAD;
		rc = nvmf_errf(why, sizeof(why), -EPROTO, "DH-HMAC-CHAP_Challenge repeats sequence "
			       "number %u (a replay)", ci.seqnum);
	}
	if (rc) {
		nvmf_auth_failure2(ops, tid, rce);
		rc = nvmf_errf(err, errlen, -EPROTO, "queue %u: DH-HMAC-CHAP: %s", qid, why);
		goto out;
	}
	hl = ci.hl;
	s->hash_id = ci.hash_id;
	s->dhg_id = ci.dhg_id;
	if (ci.dhg_id) {
		publen = ci.dhvlen;
		rc = nvmf_auth_dh_new(ci.dhg_id, &dh, r->pub, publen);
		if (!rc)
			rc = nvmf_auth_dh_derive(dh, ci.dhv, ci.dhvlen, r->dhs, publen);
		if (rc) {
			if (rc == -EINVAL)
				nvmf_auth_failure2(ops, tid, NVMF_AUTH_RCE_BAD_PAYLOAD);
			rc = nvmf_errf(err, errlen, rc == -EINVAL ? -EPROTO : rc, "queue %u: "
				       "DH-HMAC-CHAP: %s with the controller's public value failed%s",
				       qid, nvmf_auth_dhgroup_name(ci.dhg_id),
				       rc == -EINVAL ? " (a value OpenSSL refuses)" : "");
			goto out;
		}
	}

	/* R1 under the host's transformed secret; C2/S2 and the expected R2 when bidirectional. */
	if ((rc = nvmf_auth_transform(&s->host, s->hostnqn, r->key, &keylen)) ||
	    (rc = nvmf_auth_response(ci.hash_id, r->key, keylen, ci.c1, ci.seqnum, tid, 0,
				     "HostHost", s->hostnqn, s->subnqn, r->dhs, publen, r->r1))) {
		rc = nvmf_errf(err, errlen, rc, "queue %u: DH-HMAC-CHAP: computing the host's "
			       "response (%s) failed", qid, nvmf_auth_hash_name(ci.hash_id));
		goto out;
	}
	if (bidi) {
		if (!(seq2 = s->next_s2++))
			seq2 = s->next_s2++;
		if (RAND_bytes(r->c2, (int)hl) != 1 ||
		    (rc = nvmf_auth_transform(&s->ctrl, s->subnqn, r->key, &keylen)) ||
		    (rc = nvmf_auth_response(ci.hash_id, r->key, keylen, r->c2, seq2, tid, 0,
					     "Controller", s->subnqn, s->hostnqn, r->dhs, publen,
					     r->r2))) {
			rc = nvmf_errf(err, errlen, rc ? rc : -EIO, "queue %u: DH-HMAC-CHAP: "
				       "computing the controller's expected response failed", qid);
			goto out;
		}
	}
	OPENSSL_cleanse(r->key, sizeof(r->key));

	/* DH-HMAC-CHAP_Reply: R1, C2 (zero unless bidirectional), the host's DH value */
	memset(&rep, 0, sizeof(rep));
	rep.auth_type = NVMF_AUTH_TYPE_DHCHAP;
	rep.auth_id = NVMF_AUTH_ID_REPLY;
	rep.t_id = htole16(tid);
	rep.hl = (uint8_t)hl;
	rep.cvalid = (uint8_t)bidi;
	rep.dhvlen = htole16((uint16_t)publen);
	rep.seqnum = htole32(seq2);
	memset(buf, 0, NVMF_AUTH_MSG_MAX);
	memcpy(buf, &rep, sizeof(rep));
	memcpy(buf + sizeof(rep), r->r1, hl);
	if (bidi)
		memcpy(buf + sizeof(rep) + hl, r->c2, hl);
	memcpy(buf + sizeof(rep) + 2 * hl, r->pub, publen);
	if ((rc = ops->send(ops->ctx, (uint32_t)(sizeof(rep) + 2 * hl + publen), why, sizeof(why)))) {
		rc = nvmf_errf(err, errlen, rc, "queue %u: DH-HMAC-CHAP: Authentication Send "
			       "(DH-HMAC-CHAP_Reply) failed: %s", qid, why);
		goto out;
	}

	/* DH-HMAC-CHAP_Success1, or Failure1 when the host's response was wrong.  A controller
	 * that refuses may also end the connection before (or instead of) answering: nvmet 6.12
	 * tears an admin queue down as it sends Failure1, so the data may land and the response
	 * not, or neither.  That is its refusal, reported as one, without waiting for a timeout. */
	memset(buf, 0, NVMF_AUTH_MSG_MAX);
	if ((rc = ops->recv(ops->ctx, NVMF_AUTH_MSG_MAX, why, sizeof(why)))) {
		if (nvmf_auth_conn_gone(rc)) {
			char fw[96];

			if (nvmf_auth_parse_success1(buf, NVMF_AUTH_MSG_MAX, tid, (uint8_t)hl, &rval,
						     &rce, fw, sizeof(fw)) == NVMF_AUTH_FAILURE1)
				rc = nvmf_errf(err, errlen, -EACCES, "queue %u: DH-HMAC-CHAP: the "
					       "controller refused the host's response (%s, then it "
					       "ended the connection): is dhchap_secret the key the "
					       "target has for this hostnqn?", qid, fw);
			else
				rc = nvmf_errf(err, errlen, -EACCES, "queue %u: DH-HMAC-CHAP: the "
					       "controller refused the host's response (it ended the "
					       "connection instead of answering it: %s): is dhchap_secret "
					       "the key the target has for this hostnqn?", qid, why);
			goto out;
		}
		rc = nvmf_errf(err, errlen, rc, "queue %u: DH-HMAC-CHAP: Authentication Receive "
			       "(the result) failed: %s", qid, why);
		goto out;
	}
	rc = nvmf_auth_parse_success1(buf, NVMF_AUTH_MSG_MAX, tid, (uint8_t)hl, &rval, &rce, why,
				      sizeof(why));
	if (rc == NVMF_AUTH_FAILURE1) {
		rc = nvmf_errf(err, errlen, -EACCES, "queue %u: DH-HMAC-CHAP: the controller refused "
			       "the host's response (%s): is dhchap_secret the key the target has "
			       "for this hostnqn?", qid, why);
		goto out;
	}
	if (rc == 0 && bidi && !rval) {
		rce = NVMF_AUTH_RCE_BAD_PAYLOAD;
		rc = nvmf_errf(why, sizeof(why), -EPROTO, "DH-HMAC-CHAP_Success1 without the "
			       "controller's response the host asked for");
	}
	if (rc) {
		nvmf_auth_failure2(ops, tid, rce);
		rc = nvmf_errf(err, errlen, -EPROTO, "queue %u: DH-HMAC-CHAP: %s", qid, why);
		goto out;
	}
	if (bidi) {
		if (CRYPTO_memcmp(rval, r->r2, hl)) {
			nvmf_auth_failure2(ops, tid, NVMF_AUTH_RCE_FAILED);
			rc = nvmf_errf(err, errlen, -EACCES, "queue %u: DH-HMAC-CHAP: the controller "
				       "failed bidirectional authentication: its response does not "
				       "match dhchap_ctrl_secret", qid);
			goto out;
		}
		memset(&s2m, 0, sizeof(s2m));
		s2m.auth_type = NVMF_AUTH_TYPE_DHCHAP;
		s2m.auth_id = NVMF_AUTH_ID_SUCCESS2;
		s2m.t_id = htole16(tid);
		memset(buf, 0, NVMF_AUTH_MSG_MAX);
		memcpy(buf, &s2m, sizeof(s2m));
		if ((rc = ops->send(ops->ctx, sizeof(s2m), why, sizeof(why)))) {
			rc = nvmf_errf(err, errlen, rc, "queue %u: DH-HMAC-CHAP: Authentication Send "
				       "(DH-HMAC-CHAP_Success2) failed: %s", qid, why);
			goto out;
		}
	}
	s->exchanges++;
	rc = 0;
out:
	nvmf_auth_dh_free(dh);
	OPENSSL_clear_free(r, sizeof(*r));
	OPENSSL_cleanse(buf, NVMF_AUTH_MSG_MAX);
	return rc;
}
