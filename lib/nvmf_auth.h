/* nvmf_auth.h - in-band authentication, DH-HMAC-CHAP (NVMe Base 2.0, TP 8006): the secret
 * format nvme-cli writes (DHHC-1), its transformation, the responses, the DH exchange and the
 * host's side of the protocol on one queue.  HMAC, hashes and DH are OpenSSL's (libcrypto);
 * every key, transformed key and DH secret is cleansed once used.  No message ever holds a
 * secret. */
#ifndef FIO_NVMEOF_AUTH_H
#define FIO_NVMEOF_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include "nvmf_queue.h"

#define NVMF_AUTH_KEY_MAX   64    /* secret bytes (32, 48 or 64) */
#define NVMF_AUTH_HASH_MAX  64    /* SHA-512 */
#define NVMF_AUTH_DH_MAX    1024  /* ffdhe8192 public value */
#define NVMF_AUTH_MSG_MAX   4096  /* the buffer an exchange works in (Receive's AL) */
#define NVMF_AUTH_S1_SEEN   256   /* S1 values a session remembers (replays are refused) */

/* A host or controller secret, decoded: len key bytes and the hash its DHHC-1 form names for
 * the transformation (0: used as it is). */
struct nvmf_auth_key {
	uint8_t key[NVMF_AUTH_KEY_MAX];
	uint8_t len;
	uint8_t hash;
};

/* "DHHC-1:XX:<base64 of key and its CRC-32, little-endian>:" (XX 00..03; a 32, 48 or 64-byte
 * key), surrounding blanks ignored: 0, or -EINVAL with a line naming what (the option "what")
 * and never the secret. */
int  nvmf_auth_secret_parse(const char *text, struct nvmf_auth_key *k, const char *what,
			    char *err, size_t errlen);
void nvmf_auth_key_clear(struct nvmf_auth_key *k);
/* dhchap_secret_file: the host's secret on the file's first line and, optionally, the
 * controller's (bidirectional) on the second; blank lines and lines starting with '#' are
 * skipped.  ctrl->len 0 when there is none.  0, or a negative errno with a line naming the
 * file (never its contents). */
int  nvmf_auth_secret_file(const char *path, struct nvmf_auth_key *host,
			   struct nvmf_auth_key *ctrl, char *err, size_t errlen);
/* The IEEE CRC-32 the DHHC-1 format carries (as zlib's crc32(0, buf, len)). */
uint32_t nvmf_auth_crc32(const uint8_t *buf, size_t len);

/* Hash IDs 1..3: its digest length and name ("sha256"...); 0 / NULL for any other ID. */
size_t      nvmf_auth_hash_len(unsigned hash_id);
const char *nvmf_auth_hash_name(unsigned hash_id);
/* DH group IDs 0..5: the public value's bytes (0 for the null group) and the name ("null",
 * "ffdhe2048"...); NULL for any other ID. */
size_t      nvmf_auth_dhgroup_len(unsigned dhg_id);
const char *nvmf_auth_dhgroup_name(unsigned dhg_id);

/* The secret transformation (TP 8006; the kernel's nvme_auth_transform_key): a key whose
 * hash is 0 as it is, else HMAC-<hash>(key, nqn || "NVMe-over-Fabrics").  out holds
 * NVMF_AUTH_KEY_MAX bytes; *outlen gets its length.  0 or -EIO. */
int  nvmf_auth_transform(const struct nvmf_auth_key *k, const char *nqn, uint8_t *out,
			 size_t *outlen);
/* The augmented challenge (a DH exchange took place): HMAC-<hash>(H(dh), challenge). */
int  nvmf_auth_augment(unsigned hash_id, const uint8_t *chal, const uint8_t *dh, size_t dhlen,
		       uint8_t *out);
/* A response: HMAC-<hash_id>(key, Ca || le32(seq) || le16(tid) || scc || role || nqn1 || 00h
 * || nqn2), Ca the challenge (augmented with dh when dhlen > 0), role "HostHost" (R1: nqn1
 * the host's, nqn2 the subsystem's) or "Controller" (R2: the other way round); key the
 * transformed secret.  out: hash_len bytes.  0 or -EINVAL/-EIO. */
int  nvmf_auth_response(unsigned hash_id, const uint8_t *key, size_t keylen, const uint8_t *chal,
			uint32_t seq, uint16_t tid, uint8_t scc, const char *role,
			const char *nqn1, const char *nqn2, const uint8_t *dh, size_t dhlen,
			uint8_t *out);

/* Finite-field DH (RFC 7919 groups 1..5): a key pair and its public value (padded to the
 * group's size); then the shared secret with the peer's public value (padded likewise).
 * 0 or a negative errno (-EINVAL: a peer value OpenSSL refuses). */
struct nvmf_auth_dh;
int  nvmf_auth_dh_new(unsigned dhg_id, struct nvmf_auth_dh **dh, uint8_t *pub, size_t publen);
int  nvmf_auth_dh_derive(struct nvmf_auth_dh *dh, const uint8_t *peer, size_t peerlen,
			 uint8_t *secret, size_t seclen);
void nvmf_auth_dh_free(struct nvmf_auth_dh *dh);

/* ---- message parsers (what the controller sends; fuzzed by tests/fuzz/fuzz_auth.c) ------- */

/* A received message: 0 when it is a well-formed one of the kind wanted; NVMF_AUTH_FAILURE1
 * when it is an AUTH_Failure1 (*rce its explanation); a negative errno (-EPROTO) when it is
 * neither, with *rce the explanation for the host's AUTH_Failure2 and why in words. */
#define NVMF_AUTH_FAILURE1 1
struct nvmf_auth_challenge_info {
	uint8_t  hash_id, dhg_id, hl;
	uint16_t dhvlen;
	uint32_t seqnum;
	const uint8_t *c1;     /* hl bytes in the buffer */
	const uint8_t *dhv;    /* dhvlen bytes in the buffer (NULL: none) */
};
int nvmf_auth_parse_challenge(const uint8_t *buf, size_t len, uint16_t tid,
			      struct nvmf_auth_challenge_info *ci, uint8_t *rce,
			      char *why, size_t whylen);
/* Success1 for a transaction using hash hl bytes long: *rval its R2 (NULL when RVALID is
 * clear). */
int nvmf_auth_parse_success1(const uint8_t *buf, size_t len, uint16_t tid, uint8_t hl,
			     const uint8_t **rval, uint8_t *rce, char *why, size_t whylen);
/* The words for an AUTH_Failure reason code explanation. */
const char *nvmf_auth_rce_str(unsigned rce);

/* ---- the exchange on one queue ----------------------------------------------------------- */

/* The lane's part: each message is composed in buf (NVMF_AUTH_MSG_MAX bytes the transport can
 * reach: the lane's registered scratch); send issues Authentication Send of len bytes from it,
 * recv Authentication Receive of at most al bytes into it.  0, or a negative errno with a
 * line in why (the command's status, a transport failure). */
struct nvmf_auth_ops {
	uint8_t *buf;
	int    (*send)(void *ctx, uint32_t len, char *why, size_t whylen);
	int    (*recv)(void *ctx, uint32_t al, char *why, size_t whylen);
	void    *ctx;
};

/* What one controller connection (all its queues, and its reconnects) shares. */
struct nvmf_auth_session {
	const char *hostnqn, *subnqn;
	struct nvmf_auth_key host;     /* len 0: none given */
	struct nvmf_auth_key ctrl;     /* len 0: unidirectional */
	uint8_t  hashes;               /* bit N: hash ID N offered (0: all) */
	uint8_t  dhgroups;             /* bit N: DH group ID N offered (0: all) */
	uint16_t next_tid;             /* transaction IDs, one per exchange */
	uint32_t next_s2;              /* S2 sequence numbers (never 0) */
	uint32_t s1_seen[NVMF_AUTH_S1_SEEN];
	unsigned s1_n;
	/* the last exchange: what was negotiated (for the job's report) */
	uint8_t  hash_id, dhg_id;
	unsigned exchanges;
};

/* dhchap_digests / dhchap_dhgroups: comma lists of names ("sha256,sha512"; "null,ffdhe2048")
 * into the bit masks above; NULL or "" leaves the mask 0 (all).  0 or -EINVAL with a line. */
int  nvmf_auth_parse_lists(const char *digests, const char *dhgroups, uint8_t *hashes,
			   uint8_t *groups, char *err, size_t errlen);

/* Seed the session's counters (random); the keys are the caller's to fill. */
int  nvmf_auth_session_init(struct nvmf_auth_session *s, const char *hostnqn, const char *subnqn);
void nvmf_auth_session_clear(struct nvmf_auth_session *s);

/* DH-HMAC-CHAP on queue qid after its Connect asked for it: AUTH_Negotiate, Challenge,
 * Reply, Success1 (and Success2 when bidirectional).  0 once authenticated; a negative errno
 * with one line in err (-EACCES: the controller refused the host, or the host the controller;
 * -EPROTO: a malformed or unexpected message; else what send/recv returned).  A connection
 * the controller ends while the host waits for Success1 is its refusal (-EACCES). */
int  nvmf_auth_exchange(struct nvmf_auth_session *s, uint16_t qid, const struct nvmf_auth_ops *ops,
			char *err, size_t errlen);

/* After queue q's Connect, whose answer's DW0 is dw0: DH-HMAC-CHAP when AUTHREQ.ATR asks for
 * it, with Authentication Send/Receive on q (each waits up to timeout_ms), the messages in buf
 * (NVMF_AUTH_MSG_MAX bytes the target reaches with key rkey: the lane's registered scratch),
 * sleeping in wait(wait_ctx) as nvmf_queue_exec_wait does (NULL: polling q; the lane's wait
 * also notices a target that ended the connection).  0 (authenticated, or not asked);
 * -EPROTONOSUPPORT for ASCR (secure channel concatenation); else nvmf_auth_exchange's errors.
 * One line in err. */
int  nvmf_auth_after_connect(struct nvmf_auth_session *s, struct nvmf_queue *q, uint32_t dw0,
			     uint8_t *buf, uint32_t rkey, unsigned timeout_ms,
			     nvmf_exec_wait_fn wait, void *wait_ctx, char *err, size_t errlen);

#endif
