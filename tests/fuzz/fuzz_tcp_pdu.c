/* fuzz_tcp_pdu.c - libFuzzer target: the byte stream an NVMe/TCP controller sends, into a queue
 * (lib/nvmf_tcp.c over a socketpair) with four commands outstanding: a read of 1024 bytes, a
 * write of 8192 bytes by R2T, a read of 512 bytes and an in-capsule write of 512 bytes.
 * While a read expects data, each read of a new PDU is a speculative one (a C2HData header's
 * worth, then the oldest such read's buffer): right guesses, wrong ones (other PDU types, the
 * other read's data, padded or short PDUs) and the bytes moved back are fuzzed with the rest.
 *
 * Input: byte 0 picks the digests (bit 0 header, bit 1 data) and CPDA (bits 2-3: 0, 1, 3, 31);
 * then segments: a length byte L and L bytes written to the queue's socket, each segment
 * followed by a reap (L 0: a reap alone).  So the fuzzer chooses where the stream is cut.
 * The first commands take slots 0..3, so their command IDs are 0x0008..0x000b (depth 8).
 * Checked:
 *   - no crash, no read or write outside the buffers (ASan), no byte written outside the two
 *     read buffers (guard bytes around each), the write sources never changed;
 *   - every reap returns commands completed or a negative errno; once negative, the queue is
 *     fatal with that error and a one-line message, and it sticks;
 *   - a command completes at most once, with its own CID. */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nvmf_queue.h"
#include "nvmf_spec.h"
#include "nvmf_tcp.h"

#include "fuzz_assert.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define DEPTH  8
#define GUARD  64
#define NCMDS  4

static const uint32_t cmd_len[NCMDS] = { 1024, 8192, 512, 512 };
static const uint8_t  cmd_opc[NCMDS] = { NVME_CMD_READ, NVME_CMD_WRITE, NVME_CMD_READ,
					 NVME_CMD_WRITE };
static const int      cmd_inline[NCMDS] = { 0, 0, 0, 1 };

struct cmd_buf {
	uint8_t *base;     /* guard, buffer, guard */
	uint8_t *p;
	uint16_t cid;
	int      completed;
};

static struct cmd_buf bufs[NCMDS];
static unsigned completions;

static void on_complete(struct nvmf_queue *q, struct nvmf_req *req, void *arg)
{
	struct cmd_buf *b = req->ctx;

	(void)arg;
	FUZZ_ASSERT(b >= bufs && b < bufs + NCMDS);
	FUZZ_ASSERT(!b->completed);
	FUZZ_ASSERT(req->cid == b->cid);
	/* failed ones (fail_all) carry no CQE */
	if (!req->err)
		FUZZ_ASSERT(le16toh(req->cqe.cid) == b->cid);
	b->completed = 1;
	completions++;
	nvmf_queue_put(q, req);
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 13 + seed);
}

static void check_buffers(void)
{
	for (unsigned i = 0; i < NCMDS; i++) {
		struct cmd_buf *b = &bufs[i];

		for (unsigned g = 0; g < GUARD; g++) {
			FUZZ_ASSERT(b->base[g] == 0xa5);
			FUZZ_ASSERT(b->p[cmd_len[i] + g] == 0xa5);
		}
		if (cmd_opc[i] == NVME_CMD_WRITE)
			for (unsigned k = 0; k < cmd_len[i]; k++)
				FUZZ_ASSERT(b->p[k] == (uint8_t)(k * 13 + i));
	}
}

static void reap(struct nvmf_queue *q, int *fatal_seen)
{
	int rc = nvmf_queue_process(q);

	if (rc < 0) {
		FUZZ_ASSERT(rc > -4096);
		FUZZ_ASSERT(q->fatal == rc);
		FUZZ_ASSERT(q->fatal_msg[0] != 0);
		FUZZ_ASSERT(strchr(q->fatal_msg, '\n') == NULL);
		FUZZ_ASSERT(strlen(q->fatal_msg) < sizeof(q->fatal_msg));
		if (*fatal_seen)
			FUZZ_ASSERT(rc == *fatal_seen);
		*fatal_seen = rc;
	} else {
		FUZZ_ASSERT(rc <= NCMDS);
		FUZZ_ASSERT(!*fatal_seen);
	}
	FUZZ_ASSERT(q->nr_free + q->nr_inflight == q->depth);
}

/* Whatever the host sent the target: read and dropped, so its socket never fills. */
static void drain(int tfd)
{
	static uint8_t sink[65536];

	while (recv(tfd, sink, sizeof(sink), MSG_DONTWAIT) > 0)
		;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t cpdas[4] = { 0, 1, 3, 31 };
	struct nvmf_fabric_params p;
	struct nvmf_queue *q = NULL;
	uint8_t ic[128];
	char err[256];
	size_t at = 1;
	int sv[2], fatal_seen = 0, hd, dd;

	if (size < 1)
		return 0;
	hd = data[0] & 1;
	dd = (data[0] >> 1) & 1;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		abort();
	memset(ic, 0, sizeof(ic));
	ic[0] = NVME_TCP_PDU_ICRESP;
	ic[2] = 128;
	nvmf_put_le32(ic + 4, 128);
	ic[10] = cpdas[(data[0] >> 2) & 3];
	ic[11] = (uint8_t)(hd | dd << 1);
	nvmf_put_le32(ic + 12, 4096);
	if (write(sv[1], ic, sizeof(ic)) != (ssize_t)sizeof(ic))
		abort();
	memset(&p, 0, sizeof(p));
	p.qid = 1;
	p.entries = DEPTH;
	p.timeout_ms = 1000;
	p.hdr_digest = hd;
	p.data_digest = dd;
	if (nvmf_tcp_queue_create_fd(&q, sv[0], &p, err, sizeof(err))) {
		fprintf(stderr, "fuzz_tcp_pdu: %s\n", err);
		abort();
	}
	nvmf_queue_set_complete(q, on_complete, NULL);
	completions = 0;
	for (unsigned i = 0; i < NCMDS; i++) {
		struct cmd_buf *b = &bufs[i];
		struct nvmf_req *r = nvmf_queue_get(q, b);
		struct nvme_sqe *c;

		FUZZ_ASSERT(r);
		b->base = malloc(cmd_len[i] + 2 * GUARD);
		FUZZ_ASSERT(b->base);
		memset(b->base, 0xa5, cmd_len[i] + 2 * GUARD);
		b->p = b->base + GUARD;
		if (cmd_opc[i] == NVME_CMD_WRITE)
			fill(b->p, cmd_len[i], i);
		b->cid = r->cid;
		b->completed = 0;
		c = nvmf_req_sqe(q, r);
		FUZZ_ASSERT(nvme_cmd_rw_sgl(c, cmd_opc[i], 1, i * 16, cmd_len[i] / 512, !cmd_inline[i],
					    cmd_inline[i] ? 0 : (uint64_t)(uintptr_t)b->p, cmd_len[i],
					    0) == 0);
		if (cmd_inline[i])
			nvmf_queue_stage(q, r, b->p, cmd_len[i], 0);
		else
			nvmf_queue_stage(q, r, NULL, 0, 0);
	}
	FUZZ_ASSERT(nvmf_queue_flush(q) == NCMDS);
	drain(sv[1]);

	while (at < size && !fatal_seen) {
		size_t len = data[at++];

		if (len > size - at)
			len = size - at;
		if (len) {
			ssize_t w = send(sv[1], data + at, len, MSG_DONTWAIT);

			/* a full socket: the host did not read; what did not go in is dropped */
			FUZZ_ASSERT(w > 0 || errno == EAGAIN || errno == EWOULDBLOCK);
			at += len;
		}
		reap(q, &fatal_seen);
		drain(sv[1]);
	}
	reap(q, &fatal_seen);
	check_buffers();
	if (getenv("FUZZ_VERBOSE"))
		fprintf(stderr, "  cids 0x%04x..0x%04x: %u completed; %s\n", bufs[0].cid,
			bufs[NCMDS - 1].cid, completions, q->fatal ? q->fatal_msg : "queue healthy");
	/* What the engine does with a lost queue: shut it, hand every command back. */
	nvmf_fabric_tcp.kill(q);
	reap(q, &fatal_seen);
	nvmf_queue_fail_all(q, q->fatal ? q->fatal : -ECONNABORTED, "fuzz: done");
	FUZZ_ASSERT(q->nr_inflight == 0);
	FUZZ_ASSERT(completions == NCMDS);
	check_buffers();
	nvmf_fabric_tcp.destroy(q, 0);
	close(sv[1]);
	for (unsigned i = 0; i < NCMDS; i++)
		free(bufs[i].base);
	return 0;
}
