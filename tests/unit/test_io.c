/* test_io.c - one user I/O as NVMe commands (lib/nvmf_io.c): splitting, the SQE bytes of each
 * part at NVMe spec offsets (as posted, copied by the scripted peer), in-capsule vs keyed
 * data, trim via the per-slot DSM range, flush, all-or-nothing staging (also when a command
 * builder refuses a part), collecting the parts' completions, a lost connection's I/O sorted
 * for a reconnect, and which queue the CPU a job runs on posts to (io_queue_pick=cpu,
 * lib/nvmf_cpuq.c). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nvmf_cpuq.h"
#include "nvmf_io.h"
#include "nvmf_lane.h"
#include "nvmf_queue.h"
#include "nvmf_spec.h"

#include "check.h"
#include "scripted_peer.h"

#define KiB 1024u
#define MiB (1024u * 1024u)

static struct scripted_peer peer;

static int all_zero(const uint8_t *b, size_t off, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[off + i])
			return 0;
	return 1;
}

static void setup(struct nvmf_queue *q, unsigned depth)
{
	CHECK_EQ(nvmf_queue_init(q, 1, depth), 0);
	sp_attach(&peer, q);
	CHECK_EQ(nvmf_queue_post_recvs(q), 0);
}

static struct nvmf_io mk_io(uint8_t op, uint8_t lba_shift, uint32_t nsid, uint64_t slba,
			    uint64_t nlb, void *buf)
{
	struct nvmf_io io;

	memset(&io, 0, sizeof(io));
	io.op = op;
	io.lba_shift = lba_shift;
	io.nsid = nsid;
	io.slba = slba;
	io.nlb = nlb;
	io.buf = buf;
	io.lkey = 0x1111aaaa;
	io.rkey = 0xc0ffee42;
	return io;
}

static void test_nr_cmds(void)
{
	struct nvmf_io_limits lim = { .max_xfer = 1 * MiB, .inline_max = 0 };
	struct nvmf_io io;

	io = mk_io(NVMF_IO_READ, 9, 1, 0, (4 * MiB) >> 9, NULL);
	CHECK_EQ(nvmf_io_nr_cmds(&io, &lim), 4);
	io.nlb = ((4 * MiB) >> 9) + 1;                 /* not a multiple: ceil */
	CHECK_EQ(nvmf_io_nr_cmds(&io, &lim), 5);
	io.nlb = ((1 * MiB) >> 9) - 1;
	CHECK_EQ(nvmf_io_nr_cmds(&io, &lim), 1);
	io.nlb = (1 * MiB) >> 9;
	CHECK_EQ(nvmf_io_nr_cmds(&io, &lim), 1);
	io.nlb = 1;
	CHECK_EQ(nvmf_io_nr_cmds(&io, &lim), 1);
	io.op = NVMF_IO_WRITE;
	io.nlb = ((3 * MiB) >> 9) + 7;
	CHECK_EQ(nvmf_io_nr_cmds(&io, &lim), 4);
	/* 4 KiB LBAs */
	io = mk_io(NVMF_IO_READ, 12, 1, 0, (4 * MiB) >> 12, NULL);
	CHECK_EQ(nvmf_io_nr_cmds(&io, &lim), 4);
	io.nlb = ((4 * MiB) >> 12) - 1;
	CHECK_EQ(nvmf_io_nr_cmds(&io, &lim), 4);
	/* max_xfer smaller than one block: unusable */
	lim.max_xfer = 256;
	io = mk_io(NVMF_IO_READ, 9, 1, 0, 8, NULL);
	CHECK_EQ(nvmf_io_nr_cmds(&io, &lim), 0);
	lim.max_xfer = 1 * MiB;
	/* nothing to transfer */
	io.nlb = 0;
	CHECK_EQ(nvmf_io_nr_cmds(&io, &lim), 0);
	/* flush is always one command; trim counts 32-bit ranges, ignoring max_xfer */
	io = mk_io(NVMF_IO_FLUSH, 9, 1, 0, 0, NULL);
	CHECK_EQ(nvmf_io_nr_cmds(&io, &lim), 1);
	io = mk_io(NVMF_IO_TRIM, 9, 1, 0, 1ull << 30, NULL);
	CHECK_EQ(nvmf_io_nr_cmds(&io, &lim), 1);
	io.nlb = 0xffffffffull;
	CHECK_EQ(nvmf_io_nr_cmds(&io, &lim), 1);
	io.nlb = 0x100000000ull;
	CHECK_EQ(nvmf_io_nr_cmds(&io, &lim), 2);
}

/* Per command: NLB is 16 bits (at most 65536 blocks) AND the keyed SGL length is 24 bits
 * (at most 16 MiB - 1), whatever max_xfer says. */
static void test_nr_cmds_caps(void)
{
	struct nvmf_io_limits lim = { .max_xfer = 0x80000000u, .inline_max = 0 };
	struct nvmf_io io;
	/* 512-byte LBA: 16 MiB - 1 byte holds 32767 blocks; 4 KiB LBA: 4095 */
	io = mk_io(NVMF_IO_READ, 9, 1, 0, 32767, NULL);
	CHECK_EQ(nvmf_io_nr_cmds(&io, &lim), 1);
	io.nlb = 32768;
	CHECK_EQ(nvmf_io_nr_cmds(&io, &lim), 2);
	io.nlb = 65536;
	CHECK_EQ(nvmf_io_nr_cmds(&io, &lim), 3);
	io = mk_io(NVMF_IO_WRITE, 12, 1, 0, 4095, NULL);
	CHECK_EQ(nvmf_io_nr_cmds(&io, &lim), 1);
	io.nlb = 4096;
	CHECK_EQ(nvmf_io_nr_cmds(&io, &lim), 2);
	/* the 16-bit NLB cap binds when the block is small enough for it to matter */
	io = mk_io(NVMF_IO_READ, 7, 1, 0, 65536, NULL);
	CHECK_EQ(nvmf_io_nr_cmds(&io, &lim), 1);
	io.nlb = 65537;
	CHECK_EQ(nvmf_io_nr_cmds(&io, &lim), 2);
	io.nlb = 3 * 65536;
	CHECK_EQ(nvmf_io_nr_cmds(&io, &lim), 3);
}

/* Check every posted part of a keyed read/write covering [slba, slba+nlb) from buf. */
static void check_keyed_parts(const struct nvmf_io *io, unsigned first, unsigned n,
			      uint8_t opc, uint64_t max_blocks_per_part)
{
	uint64_t next_lba = io->slba;
	uint64_t next_addr = (uint64_t)(uintptr_t)io->buf;
	uint64_t total = 0;

	for (unsigned i = first; i < first + n && i < peer.nr_sends; i++) {
		const uint8_t *b = peer.sends[i].sqe;
		uint64_t nlb = raw_le(b, 48, 2) + 1;
		uint64_t len = raw_le(b, 32, 3);

		CHECK_EQ(b[0], opc);
		CHECK_EQ(b[1], 0x40);                          /* PSDT: SGL */
		CHECK_EQ(raw_le(b, 4, 4), io->nsid);
		CHECK_EQ(raw_le(b, 40, 8), next_lba);          /* SLBA, CDW10..11 */
		CHECK_EQ(raw_le(b, 50, 2), 0);                 /* CDW12 upper: no FUA/LR/PRINFO */
		CHECK(nlb <= max_blocks_per_part);
		CHECK(nlb <= 65536);
		CHECK_EQ(raw_le(b, 24, 8), next_addr);         /* keyed SGL address */
		CHECK_EQ(len, nlb << io->lba_shift);            /* 24-bit length */
		CHECK(len > 0 && len <= 0xffffff);
		CHECK_EQ(raw_le(b, 35, 4), io->rkey);          /* key */
		CHECK_EQ(b[39], 0x40);                         /* keyed data block, address */
		CHECK_EQ(raw_le(b, 16, 8), 0);                 /* MPTR */
		CHECK(all_zero(b, 52, 12));                    /* CDW13..15 */
		CHECK(peer.sends[i].inline_addr == NULL);
		CHECK_EQ(peer.sends[i].inline_len, 0);
		next_lba += nlb;
		next_addr += len;
		total += nlb;
	}
	CHECK_EQ(total, io->nlb);
}

static void test_read_split(void)
{
	struct nvmf_queue q;
	struct nvmf_io_limits lim = { .max_xfer = 1 * MiB, .inline_max = 16 * KiB };
	uint8_t *buf = malloc(4 * MiB + 4 * KiB);
	struct nvmf_io io;

	setup(&q, 16);
	/* 4 MiB at 512 B: 4 parts of 2048 blocks */
	io = mk_io(NVMF_IO_READ, 9, 0x01020304, 0x0000123456789000ull, (4 * MiB) >> 9, buf);
	CHECK_EQ(nvmf_io_stage(&q, &lim, &io), 0);
	CHECK_EQ(io.parts_left, 4);
	CHECK_EQ(nvmf_queue_available(&q), 15 - 4);
	CHECK_EQ(nvmf_queue_flush(&q), 4);
	CHECK_EQ(peer.post_sends_calls, 1);
	CHECK_EQ(peer.nr_sends, 4);
	check_keyed_parts(&io, 0, 4, 0x02, 2048);
	for (unsigned i = 0; i < 4 && i < peer.nr_sends; i++) {
		CHECK_EQ(raw_le(peer.sends[i].sqe, 48, 2), 2047);
		CHECK_EQ(raw_le(peer.sends[i].sqe, 40, 8), 0x0000123456789000ull + 2048ull * i);
		CHECK_EQ(raw_le(peer.sends[i].sqe, 24, 8), (uint64_t)(uintptr_t)(buf + i * MiB));
		CHECK_EQ(raw_le(peer.sends[i].sqe, 32, 3), 1 * MiB);
		CHECK_EQ(raw_le(peer.sends[i].sqe, 35, 4), 0xc0ffee42);
		/* CIDs: distinct, stamped */
		for (unsigned j = 0; j < i; j++)
			CHECK(sp_send_cid(&peer, i) != sp_send_cid(&peer, j));
	}
	nvmf_queue_fini(&q);

	/* 4 KiB LBAs, not a multiple: 4 MiB + 4 KiB -> 5 parts, the last one block */
	setup(&q, 16);
	io = mk_io(NVMF_IO_READ, 12, 9, 1000, ((4 * MiB) >> 12) + 1, buf);
	CHECK_EQ(nvmf_io_stage(&q, &lim, &io), 0);
	CHECK_EQ(nvmf_queue_flush(&q), 5);
	CHECK_EQ(peer.nr_sends, 5);
	check_keyed_parts(&io, 0, 5, 0x02, 256);
	if (peer.nr_sends == 5) {
		CHECK_EQ(raw_le(peer.sends[4].sqe, 48, 2), 0);
		CHECK_EQ(raw_le(peer.sends[4].sqe, 32, 3), 4096);
		CHECK_EQ(raw_le(peer.sends[4].sqe, 40, 8), 1000 + 1024);
	}
	nvmf_queue_fini(&q);

	/* reads are never in-capsule, however small */
	setup(&q, 4);
	io = mk_io(NVMF_IO_READ, 9, 1, 5, 1, buf);
	CHECK_EQ(nvmf_io_stage(&q, &lim, &io), 0);
	CHECK_EQ(nvmf_queue_flush(&q), 1);
	if (peer.nr_sends == 1) {
		CHECK_EQ(peer.sends[0].sqe[39], 0x40);
		CHECK(peer.sends[0].inline_addr == NULL);
		CHECK_EQ(peer.sends[0].inline_len, 0);
	}
	nvmf_queue_fini(&q);
	free(buf);
}

/* max_xfer beyond what one keyed SGL can describe: every part must still be a well-formed
 * command whose SGL length matches its NLB. */
static void test_split_huge_max_xfer(void)
{
	struct nvmf_queue q;
	struct nvmf_io_limits lim = { .max_xfer = 64 * MiB, .inline_max = 0 };
	uint8_t *buf = malloc(64 * MiB);
	struct nvmf_io io;
	unsigned n;

	setup(&q, 32);
	io = mk_io(NVMF_IO_READ, 9, 1, 0, (64 * MiB) >> 9, buf);
	n = nvmf_io_nr_cmds(&io, &lim);
	CHECK_EQ(n, (131072 + 32766) / 32767);
	CHECK_EQ(nvmf_io_stage(&q, &lim, &io), 0);
	CHECK_EQ(nvmf_queue_flush(&q), (int)n);
	CHECK_EQ(peer.nr_sends, n);
	check_keyed_parts(&io, 0, n, 0x02, 32767);
	nvmf_queue_fini(&q);

	setup(&q, 32);
	io = mk_io(NVMF_IO_WRITE, 12, 1, 77, (64 * MiB) >> 12, buf);
	n = nvmf_io_nr_cmds(&io, &lim);
	CHECK_EQ(n, (16384 + 4094) / 4095);
	CHECK_EQ(nvmf_io_stage(&q, &lim, &io), 0);
	CHECK_EQ(nvmf_queue_flush(&q), (int)n);
	check_keyed_parts(&io, 0, n, 0x01, 4095);
	nvmf_queue_fini(&q);
	free(buf);
}

static void check_inline_part(unsigned i, const void *addr, uint32_t len, uint32_t lkey)
{
	const uint8_t *b = peer.sends[i].sqe;

	CHECK_EQ(b[0], 0x01);
	CHECK_EQ(b[1], 0x40);
	CHECK_EQ(b[39], 0x01);                 /* data block, offset into in-capsule data */
	CHECK_EQ(raw_le(b, 24, 8), 0);         /* offset 0 */
	CHECK_EQ(raw_le(b, 32, 4), len);       /* 32-bit length */
	CHECK_EQ(raw_le(b, 36, 3), 0);         /* reserved */
	CHECK(peer.sends[i].inline_addr == addr);
	CHECK_EQ(peer.sends[i].inline_len, len);
	CHECK_EQ(peer.sends[i].inline_lkey, lkey);
}

static void test_write_inline_vs_keyed(void)
{
	struct nvmf_queue q;
	struct nvmf_io_limits lim = { .max_xfer = 128 * KiB, .inline_max = 8 * KiB };
	uint8_t *buf = malloc(512 * KiB);
	struct nvmf_io io;

	setup(&q, 16);
	/* 4 KiB: in-capsule */
	io = mk_io(NVMF_IO_WRITE, 9, 3, 0x4242, 8, buf);
	CHECK_EQ(nvmf_io_stage(&q, &lim, &io), 0);
	/* exactly inline_max: in-capsule */
	io = mk_io(NVMF_IO_WRITE, 9, 3, 0x5000, 16, buf + 64 * KiB);
	CHECK_EQ(nvmf_io_stage(&q, &lim, &io), 0);
	/* one block over inline_max: keyed */
	io = mk_io(NVMF_IO_WRITE, 9, 3, 0x6000, 17, buf + 128 * KiB);
	CHECK_EQ(nvmf_io_stage(&q, &lim, &io), 0);
	CHECK_EQ(nvmf_queue_flush(&q), 3);
	CHECK_EQ(peer.nr_sends, 3);
	if (peer.nr_sends == 3) {
		check_inline_part(0, buf, 4096, 0x1111aaaa);
		CHECK_EQ(raw_le(peer.sends[0].sqe, 4, 4), 3);
		CHECK_EQ(raw_le(peer.sends[0].sqe, 40, 8), 0x4242);
		CHECK_EQ(raw_le(peer.sends[0].sqe, 48, 2), 7);
		check_inline_part(1, buf + 64 * KiB, 8192, 0x1111aaaa);
		CHECK_EQ(raw_le(peer.sends[1].sqe, 48, 2), 15);
		io = mk_io(NVMF_IO_WRITE, 9, 3, 0x6000, 17, buf + 128 * KiB);
		check_keyed_parts(&io, 2, 1, 0x01, 17);
	}
	nvmf_queue_fini(&q);

	/* inline_max 0: never in-capsule */
	lim.inline_max = 0;
	setup(&q, 4);
	io = mk_io(NVMF_IO_WRITE, 9, 3, 1, 1, buf);
	CHECK_EQ(nvmf_io_stage(&q, &lim, &io), 0);
	CHECK_EQ(nvmf_queue_flush(&q), 1);
	if (peer.nr_sends == 1)
		check_keyed_parts(&io, 0, 1, 0x01, 1);
	nvmf_queue_fini(&q);

	/* split write: full parts keyed, a small tail part in-capsule at its own offset */
	lim.inline_max = 8 * KiB;
	setup(&q, 8);
	io = mk_io(NVMF_IO_WRITE, 9, 3, 100, ((256 + 4) * KiB) >> 9, buf);
	CHECK_EQ(nvmf_io_stage(&q, &lim, &io), 0);
	CHECK_EQ(nvmf_queue_flush(&q), 3);
	if (peer.nr_sends == 3) {
		struct nvmf_io head = io;

		head.nlb = (256 * KiB) >> 9;
		check_keyed_parts(&head, 0, 2, 0x01, 256);
		check_inline_part(2, buf + 256 * KiB, 4096, 0x1111aaaa);
		CHECK_EQ(raw_le(peer.sends[2].sqe, 40, 8), 100 + 512);
		CHECK_EQ(raw_le(peer.sends[2].sqe, 48, 2), 7);
	}
	nvmf_queue_fini(&q);
	free(buf);
}

/* Which queues a CPU posts to (io_queue_pick=cpu): the job's set as a bit mask, the queues, the
 * CPU asked for, and its queues (first, first + stride, ...). */
static void test_cpu_queues(void)
{
	static struct nvmf_cpu_queues m;
	static const struct {
		unsigned long cpus;
		unsigned nr_q;
		int cpu;
		unsigned first, stride;
	} cases[] = {
		{ 0x3, 2, 0, 0, 2 }, { 0x3, 2, 1, 1, 2 },   /* one queue per CPU: CPU k on queue k */
		{ 0xa, 2, 1, 0, 2 }, { 0xa, 2, 3, 1, 2 },   /* the set's place, not the CPU's number */
		{ 0xf, 2, 2, 0, 4 }, { 0xf, 2, 3, 1, 4 },   /* fewer queues than CPUs: shared, */
		{ 0xf, 3, 3, 0, 4 }, { 0xff, 1, 7, 0, 8 },  /* round robin */
		{ 0x3, 4, 0, 0, 2 }, { 0x3, 4, 1, 1, 2 },   /* more: every ncpus-th (0, 2 and 1, 3) */
		{ 0x1, 4, 0, 0, 1 },                         /* one CPU: all of them */
		{ 0xa, 2, 2, 0, 2 }, { 0x6, 4, 5, 1, 2 },   /* outside the set: number mod set size */
		{ 0x6, 2, -1, 0, 2 },                        /* no sched_getcpu: the first */
		{ 0x3, 2, NVMF_CPUQ_MAX_CPUS + 1, 1, 2 },    /* past the map */
		{ 0x0, 3, 0, 0, 1 }, { 0x0, 3, 5, 0, 1 },   /* an empty set is CPU 0 alone */
		{ 0x3, 0, 1, 0, 2 },                         /* zero queues is one */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned first = 99, stride = 99;
		cpu_set_t set;

		CPU_ZERO(&set);
		for (unsigned c = 0; c < 64; c++)
			if (cases[i].cpus >> c & 1)
				CPU_SET(c, &set);
		nvmf_cpu_queues_init(&m, &set, cases[i].nr_q);
		nvmf_cpu_queues_of(&m, cases[i].cpu, &first, &stride);
		if (first != cases[i].first || stride != cases[i].stride)
			fprintf(stderr, "cpus 0x%lx, %u queues, CPU %d: queues %u+%u*k, want %u+%u*k\n",
				cases[i].cpus, cases[i].nr_q, cases[i].cpu, first, stride,
				cases[i].first, cases[i].stride);
		CHECK_EQ(first, cases[i].first);
		CHECK_EQ(stride, cases[i].stride);
	}
}

static void test_trim(void)
{
	struct nvmf_queue q;
	struct nvmf_io_limits lim = { .max_xfer = 128 * KiB, .inline_max = 8 * KiB };
	struct nvmf_io io;

	setup(&q, 8);
	q.dsm_rkey = 0xd5d5d5d5;   /* the transport's key for the range buffers */
	memset(q.dsm, 0xee, 8 * 16); /* the builder must write every byte of the range */
	io = mk_io(NVMF_IO_TRIM, 9, 5, 0x0000abcd00001000ull, 0x80000, NULL);
	CHECK_EQ(nvmf_io_stage(&q, &lim, &io), 0);
	CHECK_EQ(nvmf_queue_flush(&q), 1);
	CHECK_EQ(peer.nr_sends, 1);
	if (peer.nr_sends == 1) {
		const uint8_t *b = peer.sends[0].sqe;
		unsigned slot = peer.sends[0].slot;
		const uint8_t *r = (const uint8_t *)&q.dsm[slot];

		CHECK_EQ(b[0], 0x09);
		CHECK_EQ(b[1], 0x40);
		CHECK_EQ(raw_le(b, 4, 4), 5);
		CHECK_EQ(raw_le(b, 40, 4), 0);             /* NR: one range, 0's based */
		CHECK_EQ(raw_le(b, 44, 4) & 0x4, 0x4);     /* AD */
		CHECK_EQ(raw_le(b, 44, 4), 0x4);           /* and no IDR/IDW */
		CHECK(all_zero(b, 48, 16));
		CHECK_EQ(raw_le(b, 24, 8), (uint64_t)(uintptr_t)r);
		CHECK_EQ(raw_le(b, 32, 3), 16);
		CHECK_EQ(raw_le(b, 35, 4), 0xd5d5d5d5);
		CHECK_EQ(b[39], 0x40);
		CHECK(peer.sends[0].inline_addr == NULL);
		CHECK_EQ(raw_le(r, 0, 4), 0);              /* context attributes */
		CHECK_EQ(raw_le(r, 4, 4), 0x80000);        /* NLB, not 0's based */
		CHECK_EQ(raw_le(r, 8, 8), 0x0000abcd00001000ull);
	}
	nvmf_queue_fini(&q);

	/* beyond one 32-bit range: two commands, each with its own slot's range */
	setup(&q, 8);
	io = mk_io(NVMF_IO_TRIM, 12, 5, 10, 0x100000005ull, NULL);
	CHECK_EQ(nvmf_io_stage(&q, &lim, &io), 0);
	CHECK_EQ(nvmf_queue_flush(&q), 2);
	if (peer.nr_sends == 2) {
		const uint8_t *r0 = (const uint8_t *)&q.dsm[peer.sends[0].slot];
		const uint8_t *r1 = (const uint8_t *)&q.dsm[peer.sends[1].slot];

		CHECK(peer.sends[0].slot != peer.sends[1].slot);
		CHECK_EQ(raw_le(peer.sends[0].sqe, 24, 8), (uint64_t)(uintptr_t)r0);
		CHECK_EQ(raw_le(peer.sends[1].sqe, 24, 8), (uint64_t)(uintptr_t)r1);
		CHECK_EQ(raw_le(r0, 4, 4), 0xffffffffu);
		CHECK_EQ(raw_le(r0, 8, 8), 10);
		CHECK_EQ(raw_le(r1, 4, 4), 6);
		CHECK_EQ(raw_le(r1, 8, 8), 10 + 0xffffffffull);
	}
	nvmf_queue_fini(&q);
}

static void test_flush(void)
{
	struct nvmf_queue q;
	struct nvmf_io_limits lim = { .max_xfer = 128 * KiB, .inline_max = 8 * KiB };
	struct nvmf_io io;

	setup(&q, 4);
	memset(q.sqes, 0xee, 4 * 64);
	io = mk_io(NVMF_IO_FLUSH, 9, 0xfeedf00d, 0, 0, NULL);
	CHECK_EQ(nvmf_io_stage(&q, &lim, &io), 0);
	CHECK_EQ(io.parts_left, 1);
	CHECK_EQ(nvmf_queue_flush(&q), 1);
	if (peer.nr_sends == 1) {
		const uint8_t *b = peer.sends[0].sqe;

		CHECK_EQ(b[0], 0x00);
		CHECK_EQ(b[1], 0x40);
		CHECK_EQ(raw_le(b, 4, 4), 0xfeedf00d);
		CHECK(all_zero(b, 8, 16));
		CHECK_EQ(raw_le(b, 24, 8), 0);             /* no data */
		CHECK_EQ(raw_le(b, 32, 7), 0);
		CHECK_EQ(raw_le(b, 40, 8), 0);
		CHECK(all_zero(b, 48, 16));
		CHECK(peer.sends[0].inline_addr == NULL);
	}
	nvmf_queue_fini(&q);
}

static void test_busy_and_invalid(void)
{
	struct nvmf_queue q;
	struct nvmf_io_limits lim = { .max_xfer = 1 * MiB, .inline_max = 0 };
	uint8_t *buf = malloc(4 * MiB);
	struct nvmf_io io;
	struct nvmf_req *held;

	/* depth 4 holds 3: a 4-part I/O never fits (-E2BIG: not busy, which would wait for ever) */
	setup(&q, 4);
	io = mk_io(NVMF_IO_READ, 9, 1, 0, (4 * MiB) >> 9, buf);
	CHECK_EQ(nvmf_io_stage(&q, &lim, &io), -E2BIG);
	CHECK_EQ(nvmf_queue_available(&q), 3);
	CHECK_EQ(q.nr_staged, 0);
	CHECK_EQ(q.nr_inflight, 0);
	CHECK_EQ(nvmf_queue_flush(&q), 0);
	CHECK_EQ(peer.nr_sends, 0);
	nvmf_queue_fini(&q);

	/* 3 parts, 2 free slots */
	setup(&q, 4);
	held = nvmf_queue_get(&q, NULL);
	CHECK(held != NULL);
	io = mk_io(NVMF_IO_READ, 9, 1, 0, (3 * MiB) >> 9, buf);
	CHECK_EQ(nvmf_io_stage(&q, &lim, &io), -EBUSY);
	CHECK_EQ(nvmf_queue_available(&q), 2);
	CHECK_EQ(q.nr_staged, 0);
	/* 2 parts fit exactly */
	io = mk_io(NVMF_IO_READ, 9, 1, 0, (2 * MiB) >> 9, buf);
	CHECK_EQ(nvmf_io_stage(&q, &lim, &io), 0);
	CHECK_EQ(nvmf_queue_available(&q), 0);
	CHECK_EQ(q.nr_staged, 2);
	nvmf_queue_fini(&q);

	/* malformed */
	setup(&q, 8);
	io = mk_io(NVMF_IO_READ, 9, 1, 0, 0, buf);
	CHECK_EQ(nvmf_io_stage(&q, &lim, &io), -EINVAL);
	io = mk_io(NVMF_IO_TRIM, 9, 1, 0, 0, buf);
	CHECK_EQ(nvmf_io_stage(&q, &lim, &io), -EINVAL);
	io = mk_io(7, 9, 1, 0, 8, buf);
	CHECK_EQ(nvmf_io_stage(&q, &lim, &io), -EINVAL);
	lim.max_xfer = 256;
	io = mk_io(NVMF_IO_READ, 9, 1, 0, 8, buf);
	CHECK_EQ(nvmf_io_stage(&q, &lim, &io), -EINVAL);
	CHECK_EQ(nvmf_queue_available(&q), 7);
	CHECK_EQ(q.nr_staged, 0);

	/* a fatal queue reports its error */
	lim.max_xfer = 1 * MiB;
	peer.poll_rc = -EIO;
	CHECK_EQ(nvmf_queue_process(&q), -EIO);
	io = mk_io(NVMF_IO_READ, 9, 1, 0, 8, buf);
	CHECK_EQ(nvmf_io_stage(&q, &lim, &io), -EIO);
	nvmf_queue_fini(&q);
	free(buf);
}

/* A split a command builder refuses (the limits never give one: a wrong clamp one day would)
 * fails the I/O with -EINVAL and stages none of its commands, instead of posting the zeroed
 * SQE the builder leaves, whose opcode 0 is Flush.  Staged commands of other I/Os stay, and
 * the queue's slots are as before. */
static void test_builder_refuses(void)
{
	struct nvmf_queue q;
	struct nvmf_io_limits lim = { .max_xfer = 1 * MiB, .inline_max = 0 };
	uint8_t *buf = malloc(16 * MiB);
	unsigned free_before[16], nr_free, avail;
	struct nvmf_io good, io;
	uint16_t good_cid;

	setup(&q, 16);
	good = mk_io(NVMF_IO_READ, 9, 1, 0x10, 8, buf);
	CHECK_EQ(nvmf_io_stage(&q, &lim, &good), 0);
	good_cid = q.reqs[q.send_descs[0].slot].cid;
	nr_free = q.nr_free;
	avail = nvmf_queue_available(&q);
	memcpy(free_before, q.free_slots, nr_free * sizeof(free_before[0]));

	/* NLB 0x10001 does not fit CDW12's 16 bits (byte-sized blocks: the length fits 24 bits) */
	io = mk_io(NVMF_IO_READ, 0, 1, 0, 0x10001, buf);
	CHECK_EQ(nvmf_io_stage_split(&q, &lim, &io, 1, 0x10001), -EINVAL);
	CHECK_EQ(q.nr_staged, 1);
	CHECK_EQ(q.nr_inflight, 1);
	CHECK_EQ(nvmf_queue_available(&q), avail);
	/* the same as a write, in-capsule (no length check there) and keyed */
	io = mk_io(NVMF_IO_WRITE, 0, 1, 0, 0x10001, buf);
	lim.inline_max = 1 * MiB;
	CHECK_EQ(nvmf_io_stage_split(&q, &lim, &io, 1, 0x10001), -EINVAL);
	lim.inline_max = 0;
	CHECK_EQ(nvmf_io_stage_split(&q, &lim, &io, 1, 0x10001), -EINVAL);
	CHECK_EQ(q.nr_staged, 1);

	/* 4096 blocks of 4 KiB: NLB fits, but 16 MiB does not fit a keyed SGL's 24-bit length */
	io = mk_io(NVMF_IO_READ, 12, 1, 0, 4096, buf);
	CHECK_EQ(nvmf_io_stage_split(&q, &lim, &io, 1, 4096), -EINVAL);
	CHECK_EQ(q.nr_staged, 1);

	/* the third part refused (a part of no blocks) after two were staged: both given back */
	io = mk_io(NVMF_IO_READ, 9, 1, 0, 16, buf);
	CHECK_EQ(nvmf_io_stage_split(&q, &lim, &io, 3, 8), -EINVAL);
	CHECK_EQ(q.nr_staged, 1);
	CHECK_EQ(q.nr_inflight, 1);
	CHECK_EQ(nvmf_queue_available(&q), avail);
	CHECK_EQ(io.parts_left, 0);

	/* the free slots are as before, in the same order (the next I/O takes the same slot) */
	CHECK_EQ(q.nr_free, nr_free);
	CHECK(!memcmp(free_before, q.free_slots, nr_free * sizeof(free_before[0])));

	/* only the good read goes out: opcode 02h, NLB 7, SLBA 10h, its CID */
	CHECK_EQ(nvmf_queue_flush(&q), 1);
	CHECK_EQ(peer.nr_sends, 1);
	if (peer.nr_sends == 1) {
		CHECK_EQ(raw_le(peer.sends[0].sqe, 0, 1), 0x02);
		CHECK_EQ(raw_le(peer.sends[0].sqe, 2, 2), good_cid);
		CHECK_EQ(raw_le(peer.sends[0].sqe, 40, 8), 0x10);
		CHECK_EQ(raw_le(peer.sends[0].sqe, 48, 2), 7);
	}
	for (unsigned i = 0; i < peer.nr_sends; i++)
		CHECK(peer.sends[i].sqe[0] != 0x00);   /* never a Flush nobody asked for */

	/* the split the limits give still stages */
	io = mk_io(NVMF_IO_READ, 9, 1, 0, 16, buf);
	CHECK_EQ(nvmf_io_stage_split(&q, &lim, &io, 2, 8), 0);
	CHECK_EQ(q.nr_staged, 2);
	CHECK_EQ(io.parts_left, 2);
	nvmf_queue_fini(&q);
	free(buf);
}

struct done_log {
	unsigned        calls;
	struct nvmf_io *io;
	unsigned        parts_left_at_done;
};

static void io_done(struct nvmf_io *io, void *arg)
{
	struct done_log *d = arg;

	d->calls++;
	d->io = io;
	d->parts_left_at_done = io->parts_left;
}

/* Answer part i (of the recorded sends) with status st. */
static void answer(unsigned i, uint16_t st)
{
	sp_send_done(&peer, peer.sends[i].slot, 0);
	sp_respond(&peer, sp_send_cid(&peer, i), st, 0);
}

static void test_completion(void)
{
	struct nvmf_queue q;
	struct nvmf_io_limits lim = { .max_xfer = 1 * MiB, .inline_max = 0 };
	uint8_t *buf = malloc(4 * MiB);
	struct nvmf_io_completer cpl;
	struct done_log dl;
	struct nvmf_io io;

	/* all parts succeed (one with the phase bit set, which is not an error) */
	memset(&dl, 0, sizeof(dl));
	cpl.done = io_done;
	cpl.arg = &dl;
	setup(&q, 8);
	nvmf_queue_set_complete(&q, nvmf_io_complete_req, &cpl);
	io = mk_io(NVMF_IO_READ, 9, 1, 0, (4 * MiB) >> 9, buf);
	io.status = 0x1234; /* stale values from a previous use are reset */
	io.err = -5;
	CHECK_EQ(nvmf_io_stage(&q, &lim, &io), 0);
	CHECK_EQ(io.status, 0);
	CHECK_EQ(io.err, 0);
	CHECK_EQ(nvmf_queue_flush(&q), 4);
	answer(2, 0);
	answer(0, 0x0001);
	answer(3, 0);
	CHECK_EQ(nvmf_queue_process(&q), 3);
	CHECK_EQ(dl.calls, 0);
	CHECK_EQ(io.parts_left, 1);
	answer(1, 0);
	CHECK_EQ(nvmf_queue_process(&q), 1);
	CHECK_EQ(dl.calls, 1);
	CHECK(dl.io == &io);
	CHECK_EQ(dl.parts_left_at_done, 0);
	CHECK_EQ(io.status, 0);
	CHECK_EQ(nvmf_queue_available(&q), 7); /* every part's slot was given back */
	CHECK_EQ(nvmf_queue_process(&q), 0);
	CHECK_EQ(dl.calls, 1);
	nvmf_queue_fini(&q);

	/* failures: the first failing part (in completion order) wins, later ones and later
	 * successes do not overwrite it */
	memset(&dl, 0, sizeof(dl));
	setup(&q, 8);
	nvmf_queue_set_complete(&q, nvmf_io_complete_req, &cpl);
	io = mk_io(NVMF_IO_WRITE, 9, 1, 0, (4 * MiB) >> 9, buf);
	CHECK_EQ(nvmf_io_stage(&q, &lim, &io), 0);
	CHECK_EQ(nvmf_queue_flush(&q), 4);
	answer(1, 0);
	answer(2, sp_status(NVME_SCT_MEDIA, 0x81, 1) | 1);     /* unrecovered read error, DNR */
	CHECK_EQ(nvmf_queue_process(&q), 2);
	CHECK_EQ(io.status, 0x281);
	CHECK_EQ(io.status_opc, 0x01);
	answer(0, sp_status(NVME_SCT_GENERIC, 0x04, 0));       /* data transfer error */
	answer(3, 0);
	CHECK_EQ(nvmf_queue_process(&q), 2);
	CHECK_EQ(dl.calls, 1);
	CHECK_EQ(io.status, 0x281);
	CHECK_EQ(io.status_opc, 0x01);
	CHECK_EQ(io.status_dnr, 1);
	CHECK(!nvmf_io_may_fail_over(&io));    /* not a path's status */
	CHECK_EQ(io.parts_left, 0);
	CHECK_EQ(nvmf_queue_available(&q), 7);
	nvmf_queue_fini(&q);

	/* a failing trim records the DSM opcode; generic SC with SCT 0 */
	memset(&dl, 0, sizeof(dl));
	setup(&q, 8);
	nvmf_queue_set_complete(&q, nvmf_io_complete_req, &cpl);
	io = mk_io(NVMF_IO_TRIM, 9, 1, 0, 8, NULL);
	CHECK_EQ(nvmf_io_stage(&q, &lim, &io), 0);
	CHECK_EQ(nvmf_queue_flush(&q), 1);
	answer(0, sp_status(NVME_SCT_GENERIC, 0x02, 0));       /* invalid field */
	CHECK_EQ(nvmf_queue_process(&q), 1);
	CHECK_EQ(dl.calls, 1);
	CHECK_EQ(io.status, 0x002);
	CHECK_EQ(io.status_opc, 0x09);
	nvmf_queue_fini(&q);

	/* two I/Os in flight at once, completions interleaved: each done() once, its own */
	{
		struct nvmf_io a, b;

		memset(&dl, 0, sizeof(dl));
		setup(&q, 8);
		nvmf_queue_set_complete(&q, nvmf_io_complete_req, &cpl);
		a = mk_io(NVMF_IO_READ, 9, 1, 0, (2 * MiB) >> 9, buf);
		b = mk_io(NVMF_IO_WRITE, 9, 1, 8192, (2 * MiB) >> 9, buf + 2 * MiB);
		CHECK_EQ(nvmf_io_stage(&q, &lim, &a), 0);
		CHECK_EQ(nvmf_io_stage(&q, &lim, &b), 0);
		CHECK_EQ(nvmf_queue_flush(&q), 4);
		answer(3, sp_status(NVME_SCT_PATH, 0x01, 0));
		answer(0, 0);
		answer(2, 0);
		CHECK_EQ(nvmf_queue_process(&q), 3);
		CHECK_EQ(dl.calls, 1);
		CHECK(dl.io == &b);
		CHECK_EQ(b.status, 0x301);
		CHECK_EQ(b.status_opc, 0x01);
		CHECK_EQ(b.status_dnr, 0);
		CHECK(nvmf_io_may_fail_over(&b));
		answer(1, 0);
		CHECK_EQ(nvmf_queue_process(&q), 1);
		CHECK_EQ(dl.calls, 2);
		CHECK(dl.io == &a);
		CHECK_EQ(a.status, 0);
		nvmf_queue_fini(&q);
	}
	/* a path's status with Do Not Retry (issue 43, item 6): completed to the caller, not moved
	 * to another path; the same without DNR, after a resubmit resets it, may move */
	memset(&dl, 0, sizeof(dl));
	setup(&q, 8);
	nvmf_queue_set_complete(&q, nvmf_io_complete_req, &cpl);
	io = mk_io(NVMF_IO_WRITE, 9, 1, 0, 8, buf);
	CHECK_EQ(nvmf_io_stage(&q, &lim, &io), 0);
	CHECK_EQ(nvmf_queue_flush(&q), 1);
	answer(0, sp_status(NVME_SCT_PATH, 0x02, 1));          /* ANA persistent loss, DNR */
	CHECK_EQ(nvmf_queue_process(&q), 1);
	CHECK_EQ(io.status, 0x302);
	CHECK_EQ(io.status_dnr, 1);
	CHECK(!nvmf_io_may_fail_over(&io));
	CHECK_EQ(nvmf_io_stage(&q, &lim, &io), 0);
	CHECK_EQ(io.status_dnr, 0);
	CHECK_EQ(nvmf_queue_flush(&q), 1);
	answer(1, sp_status(NVME_SCT_PATH, 0x03, 0));          /* ANA inaccessible */
	CHECK_EQ(nvmf_queue_process(&q), 1);
	CHECK_EQ(io.status, 0x303);
	CHECK(nvmf_io_may_fail_over(&io));
	nvmf_queue_fini(&q);
	CHECK_EQ(peer.overflow, 0);
	free(buf);
}

static uint64_t sqe_slba(const uint8_t *sqe)   /* CDW10-11 at byte 40 */
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | sqe[40 + i];
	return v;
}

struct staged_log {
	unsigned        n;
	struct nvmf_io *order[16];
};

static void note_staged(struct nvmf_io *io, void *arg)
{
	struct staged_log *l = arg;

	if (l->n < 16)
		l->order[l->n] = io;
	l->n++;
}

/* I/Os whose commands do not fit wait in the backlog, in order, and are staged as slots free
 * up; a small I/O behind a waiting large one waits too. */
static void test_backlog(void)
{
	struct nvmf_queue q;
	struct nvmf_io_limits lim = { .max_xfer = 1 * MiB, .inline_max = 0 };
	uint8_t *buf = malloc(8 * MiB);
	struct nvmf_io_backlog bl = { NULL, NULL, 0 };
	struct nvmf_io_completer cpl;
	struct done_log dl;
	struct staged_log sl;
	struct nvmf_io a, b, c, huge;

	memset(&dl, 0, sizeof(dl));
	memset(&sl, 0, sizeof(sl));
	cpl.done = io_done;
	cpl.arg = &dl;
	setup(&q, 5);                                   /* 4 commands in flight at most */
	nvmf_queue_set_complete(&q, nvmf_io_complete_req, &cpl);
	a = mk_io(NVMF_IO_WRITE, 12, 1, 0, (3 * MiB) >> 12, buf);     /* 3 commands */
	b = mk_io(NVMF_IO_WRITE, 12, 1, 1000, (2 * MiB) >> 12, buf + 3 * MiB); /* 2: waits */
	c = mk_io(NVMF_IO_READ, 12, 1, 2000, 1, buf + 5 * MiB);       /* 1: would fit, waits */
	CHECK_EQ(nvmf_io_submit(&q, &lim, &bl, &a), 1);
	CHECK_EQ(nvmf_io_submit(&q, &lim, &bl, &b), 0);
	CHECK_EQ(nvmf_io_submit(&q, &lim, &bl, &c), 0);
	CHECK_EQ(bl.nr, 2);
	CHECK_EQ(q.nr_staged, 3);
	CHECK_EQ(nvmf_queue_available(&q), 1);          /* c did not jump the queue */
	CHECK_EQ(nvmf_queue_flush(&q), 3);
	CHECK_EQ(nvmf_io_backlog_pump(&q, &bl, note_staged, &sl), 0);  /* still no room */
	CHECK_EQ(sl.n, 0);
	/* one of a's parts completes: 2 free, b fits, c then needs 1 more: not yet */
	answer(1, 0);
	CHECK_EQ(nvmf_queue_process(&q), 1);
	CHECK_EQ(nvmf_io_backlog_pump(&q, &bl, note_staged, &sl), 1);
	CHECK_EQ(sl.n, 1);
	CHECK(sl.order[0] == &b);
	CHECK_EQ(bl.nr, 1);
	CHECK_EQ(nvmf_queue_flush(&q), 2);
	CHECK_EQ(peer.nr_sends, 5);
	CHECK_EQ(sqe_slba(peer.sends[3].sqe), 1000);    /* b's parts, in order */
	CHECK_EQ(sqe_slba(peer.sends[4].sqe), 1000 + ((1 * MiB) >> 12));
	CHECK_EQ(peer.sends[3].sqe[0], NVME_CMD_WRITE);
	answer(0, 0);
	answer(2, 0);
	CHECK_EQ(nvmf_queue_process(&q), 2);
	CHECK_EQ(dl.calls, 1);
	CHECK(dl.io == &a);
	CHECK_EQ(nvmf_io_backlog_pump(&q, &bl, note_staged, &sl), 1);
	CHECK(sl.order[1] == &c);
	CHECK(bl.head == NULL && bl.tail == NULL && bl.nr == 0);
	CHECK_EQ(nvmf_queue_flush(&q), 1);
	CHECK_EQ(sqe_slba(peer.sends[5].sqe), 2000);
	CHECK_EQ(peer.sends[5].sqe[0], NVME_CMD_READ);
	/* with the backlog empty an I/O that fits is staged at once */
	answer(3, 0);
	answer(4, 0);
	answer(5, 0);
	CHECK_EQ(nvmf_queue_process(&q), 3);
	CHECK_EQ(dl.calls, 3);
	CHECK_EQ(nvmf_io_submit(&q, &lim, &bl, &a), 1);
	/* an I/O larger than the whole queue can never fit: refused, not left waiting */
	huge = mk_io(NVMF_IO_READ, 12, 1, 0, (5 * MiB) >> 12, buf);
	CHECK_EQ(nvmf_io_submit(&q, &lim, &bl, &huge), -E2BIG);
	huge = mk_io(NVMF_IO_READ, 12, 1, 0, 0, buf);
	CHECK_EQ(nvmf_io_submit(&q, &lim, &bl, &huge), -EINVAL);
	CHECK_EQ(bl.nr, 0);
	/* a fatal queue: submit and pump report it; waiting I/Os stay the caller's */
	b = mk_io(NVMF_IO_WRITE, 12, 1, 1000, (4 * MiB) >> 12, buf);
	CHECK_EQ(nvmf_io_submit(&q, &lim, &bl, &b), 0);
	peer.poll_rc = -EIO;
	CHECK_EQ(nvmf_queue_process(&q), -EIO);
	CHECK_EQ(nvmf_io_backlog_pump(&q, &bl, note_staged, &sl), -EIO);
	CHECK_EQ(nvmf_io_submit(&q, &lim, &bl, &c), -EIO);
	CHECK_EQ(bl.nr, 1);
	peer.poll_rc = 0;
	nvmf_queue_fini(&q);
	free(buf);
}

/* A lost lane: every I/O it holds comes back with the error, never as done data. */
struct fail_log {
	unsigned        calls;
	struct nvmf_io *order[8];
	int             err[8];
	unsigned        parts_left[8];
};

static void fail_done(struct nvmf_io *io, void *arg)
{
	struct fail_log *f = arg;

	if (f->calls < 8) {
		f->order[f->calls] = io;
		f->err[f->calls] = io->err;
		f->parts_left[f->calls] = io->parts_left;
	}
	f->calls++;
}

static void test_fail_all_and_backlog(void)
{
	struct nvmf_queue q;
	struct nvmf_io_limits lim = { .max_xfer = 1 * MiB, .inline_max = 0 };
	uint8_t *buf = malloc(10 * MiB);
	struct nvmf_io_backlog bl = { 0 };
	struct nvmf_io_completer cpl;
	struct fail_log fl;
	struct nvmf_io a, b, c, d, e;
	struct nvmf_req *old;

	memset(&fl, 0, sizeof(fl));
	cpl.done = fail_done;
	cpl.arg = &fl;
	setup(&q, 8);                 /* 7 commands in flight at most */
	nvmf_queue_set_complete(&q, nvmf_io_complete_req, &cpl);
	/* a: 3 parts posted, one of them answered; b: 2 parts staged, not posted; c, d wait */
	a = mk_io(NVMF_IO_READ, 9, 1, 0, (3 * MiB) >> 9, buf);
	b = mk_io(NVMF_IO_WRITE, 9, 1, 100000, (2 * MiB) >> 9, buf + 3 * MiB);
	c = mk_io(NVMF_IO_READ, 9, 1, 200000, (4 * MiB) >> 9, buf + 5 * MiB);
	d = mk_io(NVMF_IO_READ, 9, 1, 300000, 8, buf + 9 * MiB);
	CHECK_EQ(nvmf_io_submit(&q, &lim, &bl, &a), 1);
	CHECK_EQ(nvmf_queue_flush(&q), 3);
	CHECK(nvmf_queue_oldest(&q) != NULL);
	old = nvmf_queue_oldest(&q);
	CHECK(old && old->state == NVMF_REQ_INFLIGHT && old->ctx == &a);
	answer(0, 0);
	CHECK_EQ(nvmf_queue_process(&q), 1);
	CHECK_EQ(a.parts_left, 2u);
	CHECK_EQ(nvmf_io_submit(&q, &lim, &bl, &b), 1);
	CHECK_EQ(nvmf_io_submit(&q, &lim, &bl, &c), 0);    /* 4 parts, 3 slots free: waits */
	CHECK_EQ(nvmf_io_submit(&q, &lim, &bl, &d), 0);    /* ... order kept: d waits too */
	CHECK_EQ(bl.nr, 2u);

	nvmf_queue_fail_all(&q, -ENOTCONN, "the target disconnected");
	CHECK_EQ(q.fatal, -ENOTCONN);
	CHECK(strstr(q.fatal_msg, "disconnected") != NULL);
	CHECK_EQ(q.nr_inflight, 0u);               /* every slot back */
	CHECK_EQ(q.nr_staged, 0u);
	CHECK_EQ(q.nr_free, q.depth);
	CHECK(nvmf_queue_oldest(&q) == NULL);
	CHECK_EQ(fl.calls, 2u);                    /* a and b, each once, with the error */
	CHECK(fl.order[0] == &a || fl.order[0] == &b);
	CHECK(fl.order[0] != fl.order[1]);
	CHECK_EQ(fl.err[0], -ENOTCONN);
	CHECK_EQ(fl.err[1], -ENOTCONN);
	CHECK_EQ(a.err, -ENOTCONN);
	CHECK_EQ(a.status, 0);                     /* no NVMe status invented */
	CHECK_EQ(nvmf_queue_flush(&q), -ENOTCONN); /* nothing is ever posted again */
	CHECK_EQ(nvmf_io_submit(&q, &lim, &bl, &d), -ENOTCONN);

	/* the backlog: an I/O put back at the head goes before those waiting, then all fail */
	e = mk_io(NVMF_IO_WRITE, 9, 1, 400000, 8, buf);
	nvmf_io_backlog_add(&bl, &lim, &e, 1);
	CHECK_EQ(bl.nr, 3u);
	CHECK(bl.head == &e && e.lim == &lim);
	nvmf_io_backlog_fail(&bl, -ETIMEDOUT, &cpl);
	CHECK_EQ(fl.calls, 5u);
	CHECK(fl.order[2] == &e && fl.order[3] == &c && fl.order[4] == &d);
	CHECK_EQ(fl.err[3], -ETIMEDOUT);
	CHECK_EQ(fl.parts_left[4], 0u);
	CHECK(bl.head == NULL && bl.tail == NULL && bl.nr == 0);
	nvmf_queue_fini(&q);
	free(buf);
}

/* A connection loss with a reconnect to come (nvmf_io_requeue_lost): the I/O the target never
 * saw (staged only) waits for the reconnect whatever retry_on_reconnect says; one posted is
 * resubmitted once when asked, else failed; the slots go back without completions. */
static void test_requeue_lost(void)
{
	struct nvmf_queue q;
	struct nvmf_io_limits lim = { .max_xfer = 1 * MiB, .inline_max = 0 };
	uint8_t *buf = malloc(10 * MiB);
	struct nvmf_io_backlog bl = { 0 };
	struct nvmf_io_completer cpl;
	struct nvmf_io_lost lost;
	struct fail_log fl;
	struct nvmf_io a, b, c, d;
	struct nvmf_queue *qs[1] = { &q };

	for (int resubmit = 0; resubmit <= 1; resubmit++) {
		memset(&fl, 0, sizeof(fl));
		memset(&bl, 0, sizeof(bl));
		cpl.done = fail_done;
		cpl.arg = &fl;
		setup(&q, 8);
		nvmf_queue_set_complete(&q, nvmf_io_complete_req, &cpl);
		/* a: 2 parts posted; b: 2 parts staged (held, as delay_submit holds them); d: posted
		 * once before, resubmitted, posted again; c waits for slots */
		a = mk_io(NVMF_IO_READ, 9, 1, 0, (2 * MiB) >> 9, buf);
		d = mk_io(NVMF_IO_READ, 9, 1, 500000, 8, buf + 9 * MiB);
		d.resubmits = 1;
		b = mk_io(NVMF_IO_WRITE, 9, 1, 100000, (2 * MiB) >> 9, buf + 3 * MiB);
		c = mk_io(NVMF_IO_READ, 9, 1, 200000, (4 * MiB) >> 9, buf + 5 * MiB);
		CHECK_EQ(nvmf_io_submit(&q, &lim, &bl, &a), 1);
		CHECK_EQ(nvmf_io_submit(&q, &lim, &bl, &d), 1);
		CHECK_EQ(nvmf_queue_flush(&q), 3);
		CHECK_EQ(nvmf_io_submit(&q, &lim, &bl, &b), 1);
		CHECK_EQ(nvmf_io_submit(&q, &lim, &bl, &c), 0);
		CHECK_EQ(q.nr_staged, 2u);
		CHECK_EQ(bl.nr, 1u);

		nvmf_queue_abandon(&q, -ENOTCONN, "the target disconnected");
		CHECK_EQ(nvmf_io_requeue_lost(qs, 1, &bl, resubmit, -ENOTCONN, &cpl, &lost), 0);
		/* the slots are free and nothing staged is left to post */
		CHECK_EQ(q.nr_inflight, 0u);
		CHECK_EQ(q.nr_staged, 0u);
		CHECK_EQ(q.nr_free, q.depth);
		CHECK_EQ(lost.requeued, 1u);                  /* b, never posted: always waits */
		CHECK_EQ(b.err, 0);
		CHECK_EQ(b.resubmits, 0);
		if (!resubmit) {
			CHECK_EQ(lost.failed, 2u);            /* a and d: posted */
			CHECK_EQ(lost.resubmitted, 0u);
			CHECK_EQ(fl.calls, 2u);
			CHECK(fl.order[0] == &a && fl.order[1] == &d);
			CHECK_EQ(fl.err[0], -ENOTCONN);
			CHECK_EQ(fl.parts_left[0], 0u);
			CHECK_EQ(bl.nr, 2u);                  /* b, then c */
			CHECK(bl.head == &b && b.next == &c && bl.tail == &c);
		} else {
			CHECK_EQ(lost.failed, 1u);            /* d was resubmitted once already */
			CHECK_EQ(lost.resubmitted, 1u);
			CHECK_EQ(fl.calls, 1u);
			CHECK(fl.order[0] == &d);
			CHECK_EQ(a.resubmits, 1);
			CHECK_EQ(a.err, 0);
			CHECK_EQ(bl.nr, 3u);                  /* a (posted) first, then b, then c */
			CHECK(bl.head == &a && a.next == &b && b.next == &c && bl.tail == &c);
		}
		/* a teardown that hands back what the queue holds completes nothing again */
		nvmf_queue_fail_all(&q, -ENOTCONN, "teardown");
		CHECK_EQ(fl.calls, resubmit ? 1u : 2u);
		nvmf_queue_fini(&q);
	}

	/* the reconnect gave a smaller queue: the waiting I/O's 4 commands never fit in its 3
	 * slots; the pump says so instead of leaving it waiting for ever (it stays in bl) */
	setup(&q, 4);
	memset(&bl, 0, sizeof(bl));
	c = mk_io(NVMF_IO_READ, 9, 1, 200000, (4 * MiB) >> 9, buf + 5 * MiB);
	nvmf_io_backlog_add(&bl, &lim, &c, 0);
	CHECK_EQ(nvmf_io_backlog_pump(&q, &bl, note_staged, &(struct staged_log){ 0 }), -E2BIG);
	CHECK(bl.head == &c && bl.nr == 1);
	nvmf_queue_fini(&q);
	free(buf);
}

/* nvmf_io_backlog_pump_group: one ANA group's waiting I/Os, in their order, the others left
 * in theirs (head, middle and tail unlinked right); it stops at the first of the group that
 * does not fit. */
static void test_pump_group(void)
{
	struct nvmf_queue q;
	struct nvmf_io_limits lim = { .max_xfer = 1 * MiB, .inline_max = 0 };
	static uint8_t buf[64 * KiB];
	struct nvmf_io_backlog bl = { 0 };
	struct staged_log sl;
	struct nvmf_io io[5];
	const uint8_t grp[5] = { 1, 0, 1, 0, 1 };

	setup(&q, 4);                 /* 3 slots for I/O */
	for (unsigned i = 0; i < 5; i++) {
		io[i] = mk_io(NVMF_IO_READ, 9, 1, 100 * i, 8, buf + 4 * KiB * i);
		io[i].group = grp[i];
		nvmf_io_backlog_add(&bl, &lim, &io[i], 0);
	}
	memset(&sl, 0, sizeof(sl));
	/* group 0: the second and the fourth; the rest keep their order */
	CHECK_EQ(nvmf_io_backlog_pump_group(&q, &bl, 0, note_staged, &sl), 2);
	CHECK(sl.order[0] == &io[1] && sl.order[1] == &io[3]);
	CHECK_EQ(bl.nr, 3u);
	CHECK(bl.head == &io[0] && io[0].next == &io[2] && io[2].next == &io[4] &&
	      io[4].next == NULL && bl.tail == &io[4]);
	/* group 1: one slot left, so the first of them only; it stops there */
	memset(&sl, 0, sizeof(sl));
	CHECK_EQ(nvmf_io_backlog_pump_group(&q, &bl, 1, note_staged, &sl), 1);
	CHECK(sl.order[0] == &io[0]);
	CHECK(bl.head == &io[2] && io[2].next == &io[4] && bl.tail == &io[4] && bl.nr == 2);
	/* no group 7 waits: nothing staged */
	CHECK_EQ(nvmf_io_backlog_pump_group(&q, &bl, 7, note_staged, &sl), 0);
	CHECK_EQ(q.nr_staged, 3u);
	nvmf_queue_fini(&q);

	/* the tail of the list staged: the tail moves back */
	setup(&q, 8);
	memset(&bl, 0, sizeof(bl));
	for (unsigned i = 0; i < 3; i++) {
		io[i] = mk_io(NVMF_IO_READ, 9, 1, 100 * i, 8, buf + 4 * KiB * i);
		io[i].group = (uint8_t)(i == 2);
		nvmf_io_backlog_add(&bl, &lim, &io[i], 0);
	}
	CHECK_EQ(nvmf_io_backlog_pump_group(&q, &bl, 1, note_staged, &sl), 1);
	CHECK(bl.head == &io[0] && io[1].next == NULL && bl.tail == &io[1] && bl.nr == 2);
	nvmf_queue_fini(&q);
}

/* nvmf_io_post: the second of three queues fails its post.  The third still posts, and the
 * I/Os that went out come first, in order (the engine stamps exactly those), the failed
 * queue's after; with no failure the order is untouched. */
static struct scripted_peer peers[3];

static void test_post_partial(void)
{
	struct nvmf_queue q[3];
	struct nvmf_queue *qs[3] = { &q[0], &q[1], &q[2] };
	struct nvmf_io_limits lim = { .max_xfer = 1 * MiB, .inline_max = 0 };
	struct nvmf_io_backlog bl = { 0 };
	static uint8_t buf[64 * KiB];
	struct nvmf_io a, b, c, d, e;
	struct nvmf_io *ios[5];
	uint64_t cmds[3] = { 0, 0, 7 };
	unsigned posted = 99;

	for (int fail = 0; fail <= 1; fail++) {
		for (unsigned i = 0; i < 3; i++) {
			CHECK_EQ(nvmf_queue_init(&q[i], (uint16_t)(i + 1), 8), 0);
			sp_attach(&peers[i], &q[i]);
			CHECK_EQ(nvmf_queue_post_recvs(&q[i]), 0);
		}
		cmds[0] = cmds[1] = 0;
		cmds[2] = 7;
		if (fail)
			peers[1].post_sends_rc = -EIO;
		a = mk_io(NVMF_IO_READ, 9, 1, 0, 8, buf);
		b = mk_io(NVMF_IO_WRITE, 9, 1, 100, 8, buf + 4 * KiB);
		c = mk_io(NVMF_IO_READ, 9, 1, 200, 8, buf + 8 * KiB);
		d = mk_io(NVMF_IO_WRITE, 9, 1, 300, 8, buf + 12 * KiB);
		e = mk_io(NVMF_IO_READ, 9, 1, 400, 8, buf + 16 * KiB);
		CHECK_EQ(nvmf_io_submit(&q[0], &lim, &bl, &a), 1);
		CHECK_EQ(nvmf_io_submit(&q[1], &lim, &bl, &b), 1);
		CHECK_EQ(nvmf_io_submit(&q[2], &lim, &bl, &c), 1);
		CHECK_EQ(nvmf_io_submit(&q[1], &lim, &bl, &d), 1);
		CHECK_EQ(nvmf_io_submit(&q[0], &lim, &bl, &e), 1);
		CHECK(a.q == &q[0] && b.q == &q[1] && c.q == &q[2]);
		ios[0] = &a; ios[1] = &b; ios[2] = &c; ios[3] = &d; ios[4] = &e;
		CHECK_EQ(nvmf_io_post(qs, 3, cmds, ios, 5, &posted), fail ? -EIO : 0);
		/* every queue that could post did, the one after the failure too */
		CHECK_EQ(peers[0].nr_sends, 2u);
		CHECK_EQ(peers[2].nr_sends, 1u);
		CHECK_EQ(peers[1].nr_sends, fail ? 0u : 2u);
		CHECK_EQ(cmds[0], 2u);
		CHECK_EQ(cmds[1], fail ? 0u : 2u);
		CHECK_EQ(cmds[2], 8u);
		CHECK_EQ(q[0].nr_staged + q[1].nr_staged + q[2].nr_staged, 0u);
		if (fail) {
			CHECK_EQ(posted, 3u);
			CHECK(ios[0] == &a && ios[1] == &c && ios[2] == &e);
			CHECK(ios[3] == &b && ios[4] == &d);
			CHECK_EQ(q[1].fatal, -EIO);
			CHECK(q[0].fatal == 0 && q[2].fatal == 0);
		} else {
			CHECK_EQ(posted, 5u);
			CHECK(ios[0] == &a && ios[1] == &b && ios[2] == &c && ios[3] == &d &&
			      ios[4] == &e);
		}
		for (unsigned i = 0; i < 3; i++)
			nvmf_queue_fini(&q[i]);
	}
}

int main(void)
{
	test_nr_cmds();
	test_nr_cmds_caps();
	test_read_split();
	test_split_huge_max_xfer();
	test_write_inline_vs_keyed();
	test_cpu_queues();
	test_trim();
	test_flush();
	test_busy_and_invalid();
	test_builder_refuses();
	test_completion();
	test_backlog();
	test_fail_all_and_backlog();
	test_requeue_lost();
	test_post_partial();
	test_pump_group();
	return check_done("test_io");
}
