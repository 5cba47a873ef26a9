/* test_logpages.c - Get Log Page, the ANA log and the discovery log (lib/nvmf_spec.h).
 *
 * The SQE is read back as raw bytes at the NVMe Base 1.4 offsets; the logs are built by hand
 * as raw bytes at the offsets of NVMe Base 1.4 5.14.1.12 (ANA) and NVMe-oF 1.1 5.3 (discovery),
 * never through the structs under test. */
#include "nvmf_spec.h"

#include <errno.h>

#include "check.h"

static void put16(uint8_t *b, size_t off, uint16_t v) { b[off] = (uint8_t)v; b[off + 1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *b, size_t off, uint32_t v) { put16(b, off, (uint16_t)v); put16(b, off + 2, (uint16_t)(v >> 16)); }
static void put64(uint8_t *b, size_t off, uint64_t v) { put32(b, off, (uint32_t)v); put32(b, off + 4, (uint32_t)(v >> 32)); }

static void test_get_log_page_sqe(void)
{
	struct nvme_sqe c;
	const uint8_t *b = (const uint8_t *)&c;

	/* 128 KiB: NUMD = 32768 - 1 = 0x7fff fits NUMDL; 256 KiB + 4: 0x10000 needs NUMDU */
	memset(&c, 0xa5, sizeof(c));
	nvme_cmd_get_log_page(&c, NVME_LOG_ANA, NVME_ANA_LSP_RGO, 0xffffffffu, 128 * 1024,
			      0x0000000123456788ull, 1);
	CHECK_EQ(b[0], 0x02);                       /* opcode Get Log Page */
	CHECK_EQ(b[1], 0x40);                       /* PSDT SGL */
	CHECK_EQ(raw_le(b, 4, 4), 0xffffffffu);     /* NSID */
	CHECK_EQ(b[40], 0x0c);                      /* CDW10 7:0 LID */
	CHECK_EQ(b[41], 0x81);                      /* CDW10 11:8 LSP 1, bit 15 RAE */
	CHECK_EQ(raw_le(b, 42, 2), 0x7fff);         /* CDW10 31:16 NUMDL */
	CHECK_EQ(raw_le(b, 44, 4), 0);              /* CDW11 NUMDU */
	CHECK_EQ(raw_le(b, 48, 4), 0x23456788u);    /* CDW12 LPOL */
	CHECK_EQ(raw_le(b, 52, 4), 0x1);            /* CDW13 LPOU */
	CHECK_EQ(raw_le(b, 56, 8), 0);              /* CDW14, CDW15 */
	CHECK_EQ(b[39], 0x40);                      /* no-data keyed descriptor until the caller sets one */

	nvme_cmd_get_log_page(&c, NVME_LOG_DISCOVERY, 0, 0, 256 * 1024 + 4, 4096, 0);
	CHECK_EQ(b[40], 0x70);
	CHECK_EQ(b[41], 0x00);                      /* no LSP, no RAE */
	CHECK_EQ(raw_le(b, 42, 2), 0x0000);         /* NUMD 0x10000: NUMDL 0 ... */
	CHECK_EQ(raw_le(b, 44, 4), 0x0001);         /* ... NUMDU 1 */
	CHECK_EQ(raw_le(b, 4, 4), 0);
	CHECK_EQ(raw_le(b, 48, 8), 4096);

	/* 64 KiB + 4 bytes: 16385 dwords, NUMD 0x4000 */
	nvme_cmd_get_log_page(&c, NVME_LOG_DISCOVERY, 0xff, 0, 65536 + 4, 0, 0);
	CHECK_EQ(raw_le(b, 42, 2), 0x4000);
	CHECK_EQ(b[41] & 0x0f, 0x0f);               /* LSP masked to 4 bits: bit 15 (RAE) untouched */
	CHECK_EQ(b[41] & 0x80, 0);
	CHECK_EQ(b[41] & 0x70, 0);

	/* whole 32 bits: NUMD 0xffffffff (16 GiB) */
	nvme_cmd_get_log_page(&c, NVME_LOG_ANA, 0, 0, 0xfffffffcu, 0, 0);
	CHECK_EQ(raw_le(b, 42, 2), 0xfffe);
	CHECK_EQ(raw_le(b, 44, 4), 0x3fff);
	CHECK_STR(nvme_opcode_name(b[0], 1), "Get Log Page");
}

/* One ANA group descriptor at off: returns the offset past it and its NSID list. */
static size_t ana_desc(uint8_t *b, size_t off, uint32_t grpid, uint32_t nnsids, uint64_t chgcnt,
		       uint8_t state, int list)
{
	put32(b, off, grpid);
	put32(b, off + 4, nnsids);
	put64(b, off + 8, chgcnt);
	b[off + 16] = state;
	off += 32;
	if (list)
		for (uint32_t i = 0; i < nnsids; i++, off += 4)
			put32(b, off, 100 + i);
	return off;
}

static void test_ana_log(void)
{
	uint8_t b[512];
	struct nvme_ana_group g[4];
	uint64_t chg;
	unsigned n;
	uint8_t st;
	char why[160];
	size_t end;

	/* Three groups with NSID lists (2, 0, 3 NSIDs); reserved state bits 7:4 ignored */
	memset(b, 0, sizeof(b));
	put64(b, 0, 0x1122334455667788ull);
	put16(b, 8, 3);
	end = ana_desc(b, 16, 1, 2, 7, NVME_ANA_OPTIMIZED, 1);
	end = ana_desc(b, end, 2, 0, 8, 0xf0 | NVME_ANA_INACCESSIBLE, 1);
	end = ana_desc(b, end, 0x80000001u, 3, 9, NVME_ANA_CHANGE, 1);
	CHECK_EQ(end, 16 + 32 + 8 + 32 + 32 + 12);
	memset(g, 0xee, sizeof(g));
	CHECK_EQ(nvme_ana_log_parse(b, end, &chg, g, 4, &n, why, sizeof(why)), 0);
	CHECK_STR(why, "");
	CHECK_EQ(chg, 0x1122334455667788ull);
	CHECK_EQ(n, 3);
	CHECK_EQ(g[0].grpid, 1);
	CHECK_EQ(g[0].nr_nsids, 2);
	CHECK_EQ(g[0].chgcnt, 7);
	CHECK_EQ(g[0].state, NVME_ANA_OPTIMIZED);
	CHECK_EQ(g[1].grpid, 2);
	CHECK_EQ(g[1].state, NVME_ANA_INACCESSIBLE);
	CHECK_EQ(g[2].grpid, 0x80000001u);
	CHECK_EQ(g[2].nr_nsids, 3);
	CHECK_EQ(g[2].chgcnt, 9);
	CHECK_EQ(g[2].state, NVME_ANA_CHANGE);
	CHECK_EQ(nvme_ana_log_state_of(g, n, 2, &st), 0);
	CHECK_EQ(st, NVME_ANA_INACCESSIBLE);
	CHECK_EQ(nvme_ana_log_state_of(g, n, 0x80000001u, &st), 0);
	CHECK_EQ(st, NVME_ANA_CHANGE);
	CHECK_EQ(nvme_ana_log_state_of(g, n, 3, &st), -ENOENT);
	CHECK_EQ(nvme_ana_log_state_of(g, 0, 1, &st), -ENOENT);

	/* The same log read with RGO: NNSIDS 0 and no lists, descriptors back to back */
	memset(b, 0, sizeof(b));
	put64(b, 0, 5);
	put16(b, 8, 2);
	end = ana_desc(b, 16, 1, 0, 7, NVME_ANA_NON_OPTIMIZED, 0);
	end = ana_desc(b, end, 2, 0, 8, NVME_ANA_PERSISTENT_LOSS, 0);
	CHECK_EQ(end, 80);
	CHECK_EQ(nvme_ana_log_parse(b, end, &chg, g, 2, &n, why, sizeof(why)), 0);
	CHECK_EQ(n, 2);
	CHECK_EQ(chg, 5);
	CHECK_EQ(g[0].state, NVME_ANA_NON_OPTIMIZED);
	CHECK_EQ(g[1].grpid, 2);
	CHECK_EQ(g[1].state, NVME_ANA_PERSISTENT_LOSS);
	/* a bigger buffer (the transfer rounded up) is fine: bytes past the last group unread */
	CHECK_EQ(nvme_ana_log_parse(b, sizeof(b), &chg, g, 2, &n, why, sizeof(why)), 0);
	CHECK_EQ(n, 2);

	/* No groups at all */
	memset(b, 0, sizeof(b));
	CHECK_EQ(nvme_ana_log_parse(b, 16, &chg, NULL, 0, &n, why, sizeof(why)), 0);
	CHECK_EQ(n, 0);

	/* Short header */
	CHECK_EQ(nvme_ana_log_parse(b, 15, &chg, g, 4, &n, why, sizeof(why)), -EINVAL);
	CHECK_STR(why, "ANA log of 15 bytes (the header needs 16)");
	CHECK_EQ(n, 0);

	/* NGRPS larger than the buffer holds: 2 groups, bytes for 1 */
	put16(b, 8, 2);
	end = ana_desc(b, 16, 1, 0, 0, NVME_ANA_OPTIMIZED, 0);
	CHECK_EQ(nvme_ana_log_parse(b, end, &chg, g, 4, &n, why, sizeof(why)), -EINVAL);
	CHECK_STR(why, "ANA log NGRPS 2: group descriptor 1 at byte 48 is cut short (48 bytes read)");
	CHECK_EQ(n, 0);

	/* A descriptor cut short inside its 32 bytes */
	put16(b, 8, 1);
	CHECK_EQ(nvme_ana_log_parse(b, 47, &chg, g, 4, &n, why, sizeof(why)), -EINVAL);
	CHECK_STR(why, "ANA log NGRPS 1: group descriptor 0 at byte 16 is cut short (47 bytes read)");

	/* NNSIDS running past the buffer (and a huge one that must not wrap) */
	ana_desc(b, 16, 9, 2, 0, NVME_ANA_OPTIMIZED, 0);
	CHECK_EQ(nvme_ana_log_parse(b, 16 + 32 + 4, &chg, g, 4, &n, why, sizeof(why)), -EINVAL);
	CHECK_STR(why, "ANA log group 9 (descriptor 0 at byte 16): NNSIDS 2 runs past the 52 bytes read");
	put32(b, 20, 0xffffffffu);
	CHECK_EQ(nvme_ana_log_parse(b, sizeof(b), &chg, g, 4, &n, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "NNSIDS 4294967295 runs past") != NULL);

	/* ANAGRPID 0 */
	ana_desc(b, 16, 0, 0, 0, NVME_ANA_OPTIMIZED, 0);
	CHECK_EQ(nvme_ana_log_parse(b, 48, &chg, g, 4, &n, why, sizeof(why)), -EINVAL);
	CHECK_STR(why, "ANA log group descriptor 0 at byte 16: ANAGRPID 0 (reserved)");

	/* More groups than the caller has room for */
	put16(b, 8, 5);
	CHECK_EQ(nvme_ana_log_parse(b, sizeof(b), &chg, g, 4, &n, why, sizeof(why)), -EOVERFLOW);
	CHECK_STR(why, "ANA log NGRPS 5 (room for 4 groups)");
	CHECK_EQ(n, 0);
	/* a tiny why buffer stays terminated; NULL why is fine */
	CHECK_EQ(nvme_ana_log_parse(b, sizeof(b), &chg, g, 4, &n, why, 6), -EOVERFLOW);
	CHECK_EQ(strlen(why), 5);
	CHECK_EQ(nvme_ana_log_parse(b, sizeof(b), &chg, g, 4, &n, NULL, 0), -EOVERFLOW);

	CHECK_STR(nvme_ana_state_name(0x1), "optimized");
	CHECK_STR(nvme_ana_state_name(0x2), "non-optimized");
	CHECK_STR(nvme_ana_state_name(0x3), "inaccessible");
	CHECK_STR(nvme_ana_state_name(0x4), "persistent-loss");
	CHECK_STR(nvme_ana_state_name(0xf), "change");
	CHECK_STR(nvme_ana_state_name(0x0), "reserved");
	CHECK_STR(nvme_ana_state_name(0x5), "reserved");
	CHECK_STR(nvme_ana_state_name(0x13), "reserved");
}

/* The lane reads the ANA log in one 4096-byte command into a zeroed buffer and parses all of
 * it (lib/nvmf_lane.c nvmf_ana_refresh), so a controller that sends fewer descriptors than
 * NGRPS leaves zeros where the rest would be: refused at the first one, never published as a
 * group.  (The lane does not compare CHGCNT between reads: one command is one snapshot.) */
static void test_ana_log_short_transfer(void)
{
	static uint8_t b[4096];
	struct nvme_ana_group g[32];
	uint64_t chg;
	unsigned n = 9;
	char why[160];

	memset(b, 0, sizeof(b));
	put64(b, 0, 3);
	put16(b, 8, 3);
	ana_desc(b, 16, 1, 0, 3, NVME_ANA_OPTIMIZED, 0);  /* one of three sent */
	CHECK_EQ(nvme_ana_log_parse(b, sizeof(b), &chg, g, 32, &n, why, sizeof(why)), -EINVAL);
	CHECK_STR(why, "ANA log group descriptor 1 at byte 48: ANAGRPID 0 (reserved)");
	CHECK_EQ(n, 0);
}

/* A discovery log entry at e (1024 bytes) the way nvmet writes one for an RDMA port. */
static void disc_raw(uint8_t *e, uint8_t subtype, const char *trsvcid, const char *subnqn,
		     const char *traddr)
{
	memset(e, 0, 1024);
	e[0] = 1;                          /* TRTYPE rdma */
	e[1] = 1;                          /* ADRFAM ipv4 */
	e[2] = subtype;
	e[3] = 0x04;                       /* TREQ: not specified, SQ flow control disable */
	put16(e, 4, 0x0102);               /* PORTID */
	put16(e, 6, 0xffff);               /* CNTLID */
	put16(e, 8, 32);                   /* ASQSZ */
	put16(e, 10, 0x0003);              /* EFLAGS */
	memcpy(e + 32, trsvcid, strlen(trsvcid));
	memcpy(e + 256, subnqn, strlen(subnqn));
	memcpy(e + 512, traddr, strlen(traddr));
	e[768] = 1;                        /* RDMA QPTYPE connected */
	e[769] = 4;                        /* PRTYPE roce-v2 */
	e[770] = 1;                        /* CMS rdma-cm */
	put16(e, 776, 0x8001);             /* PKEY */
}

static void test_disc_hdr(void)
{
	uint8_t h[1024];
	uint64_t gen, num;
	char why[160];

	memset(h, 0xff, sizeof(h));        /* reserved bytes are not looked at */
	put64(h, 0, 0xa1a2a3a4a5a6a7a8ull);
	put64(h, 8, 3);
	put16(h, 16, 0);
	CHECK_EQ(nvmf_disc_log_parse_hdr(h, sizeof(h), &gen, &num, why, sizeof(why)), 0);
	CHECK_EQ(gen, 0xa1a2a3a4a5a6a7a8ull);
	CHECK_EQ(num, 3);
	CHECK_STR(why, "");

	CHECK_EQ(nvmf_disc_log_parse_hdr(h, 1023, &gen, &num, why, sizeof(why)), -EINVAL);
	CHECK_STR(why, "discovery log header of 1023 bytes (it is 1024)");
	CHECK_EQ(nvmf_disc_log_parse_hdr(NULL, 1024, &gen, &num, why, sizeof(why)), -EINVAL);

	put16(h, 16, 1);
	CHECK_EQ(nvmf_disc_log_parse_hdr(h, sizeof(h), &gen, &num, why, sizeof(why)), -EINVAL);
	CHECK_STR(why, "discovery log RECFMT 1 (only 0 is defined)");
	put16(h, 16, 0);

	put64(h, 8, NVMF_DISC_MAX_RECORDS);
	CHECK_EQ(nvmf_disc_log_parse_hdr(h, sizeof(h), &gen, &num, why, sizeof(why)), 0);
	put64(h, 8, (uint64_t)NVMF_DISC_MAX_RECORDS + 1);
	CHECK_EQ(nvmf_disc_log_parse_hdr(h, sizeof(h), &gen, &num, why, sizeof(why)), -EOVERFLOW);
	CHECK_STR(why, "discovery log NUMREC 4097 (more than the 4096 records this host reads)");
	put64(h, 8, UINT64_MAX);
	CHECK_EQ(nvmf_disc_log_parse_hdr(h, sizeof(h), &gen, &num, why, sizeof(why)), -EOVERFLOW);
}

static void test_disc_entry(void)
{
	uint8_t e[1024];
	struct nvmf_disc_entry d;
	char why[160], full[257];

	disc_raw(e, NVMF_SUBTYPE_NVME, "4420", "nqn.2026-12.io.example:t1", "192.168.1.10");
	CHECK_EQ(nvmf_disc_entry_decode(e, &d, why, sizeof(why)), 0);
	CHECK_STR(why, "");
	CHECK_EQ(d.trtype, 1);
	CHECK_EQ(d.adrfam, 1);
	CHECK_EQ(d.subtype, 2);
	CHECK_EQ(d.treq, 4);
	CHECK_EQ(d.portid, 0x0102);
	CHECK_EQ(d.cntlid, 0xffff);
	CHECK_EQ(d.asqsz, 32);
	CHECK_EQ(d.eflags, 3);
	CHECK_STR(d.trsvcid, "4420");
	CHECK_STR(d.subnqn, "nqn.2026-12.io.example:t1");
	CHECK_STR(d.traddr, "192.168.1.10");
	CHECK_EQ(d.rdma_qptype, 1);
	CHECK_EQ(d.rdma_prtype, 4);
	CHECK_EQ(d.rdma_cms, 1);
	CHECK_EQ(d.rdma_pkey, 0x8001);
	CHECK_EQ(d.tcp_sectype, 0);        /* byte 768 of an RDMA entry is its QPTYPE */
	CHECK_EQ(d.from_referral, 0);

	/* space padding (as some targets pad TRSVCID/TRADDR) is dropped */
	disc_raw(e, NVMF_SUBTYPE_REFERRAL, "8009", NVMF_DISCOVERY_NQN, "10.0.0.2");
	memset(e + 36, ' ', 28);
	memset(e + 512 + 8, ' ', 248);
	CHECK_EQ(nvmf_disc_entry_decode(e, &d, why, sizeof(why)), 0);
	CHECK_STR(d.trsvcid, "8009");
	CHECK_STR(d.traddr, "10.0.0.2");
	CHECK_STR(d.subnqn, "nqn.2014-08.org.nvmexpress.discovery");
	CHECK_EQ(d.subtype, NVMF_SUBTYPE_REFERRAL);

	/* fields filled to their end with no NUL: all 32 / 256 bytes kept, nothing read past */
	memset(e + 32, '7', 32);
	memset(e + 512, 'a', 256);
	memset(full, 'a', 256);
	full[256] = 0;
	CHECK_EQ(nvmf_disc_entry_decode(e, &d, why, sizeof(why)), 0);
	CHECK_EQ(strlen(d.trsvcid), 32);
	CHECK_STR(d.traddr, full);
	memset(e + 256, 'q', 256);
	memset(full, 'q', 256);
	CHECK_EQ(nvmf_disc_entry_decode(e, &d, why, sizeof(why)), 0);
	CHECK_STR(d.subnqn, full);

	/* a TCP entry: TSAS is not read as RDMA's; its byte 0 (entry byte 768) is SECTYPE */
	disc_raw(e, NVMF_SUBTYPE_CURRENT, "4420", NVMF_DISCOVERY_NQN, "10.0.0.1");
	e[0] = 3;                          /* tcp */
	e[768] = 2;                        /* SECTYPE TLS 1.3 */
	CHECK_EQ(nvmf_disc_entry_decode(e, &d, why, sizeof(why)), 0);
	CHECK_EQ(d.trtype, 3);
	CHECK_EQ(d.tcp_sectype, 2);
	CHECK_EQ(d.rdma_qptype, 0);
	CHECK_EQ(d.rdma_prtype, 0);
	CHECK_EQ(d.rdma_pkey, 0);
	e[768] = 0;                        /* none, as nvmet writes it */
	CHECK_EQ(nvmf_disc_entry_decode(e, &d, why, sizeof(why)), 0);
	CHECK_EQ(d.tcp_sectype, 0);
	/* another transport (FC): neither TSAS is read */
	e[0] = 2;
	e[768] = 1;
	CHECK_EQ(nvmf_disc_entry_decode(e, &d, why, sizeof(why)), 0);
	CHECK_EQ(d.tcp_sectype, 0);
	CHECK_EQ(d.rdma_qptype, 0);

	/* bad values: each named, and the entry left zeroed */
	disc_raw(e, 0, "4420", "nqn.x", "10.0.0.1");
	CHECK_EQ(nvmf_disc_entry_decode(e, &d, why, sizeof(why)), -EINVAL);
	CHECK_STR(why, "discovery log entry: SUBTYPE 0 (not 1 referral, 2 NVMe subsystem or 3 "
		  "current discovery subsystem)");
	CHECK_EQ(d.trtype, 0);
	CHECK_STR(d.subnqn, "");
	disc_raw(e, 4, "4420", "nqn.x", "10.0.0.1");
	CHECK_EQ(nvmf_disc_entry_decode(e, &d, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "SUBTYPE 4 ") != NULL);

	disc_raw(e, 2, "4420", "", "10.0.0.1");
	CHECK_EQ(nvmf_disc_entry_decode(e, &d, why, sizeof(why)), -EINVAL);
	CHECK_STR(why, "discovery log entry: SUBNQN is empty");
	disc_raw(e, 2, "4420", "nqn.x", "   ");
	CHECK_EQ(nvmf_disc_entry_decode(e, &d, why, sizeof(why)), -EINVAL);
	CHECK_STR(why, "discovery log entry: TRADDR is empty");

	disc_raw(e, 2, "44\n20", "nqn.x", "10.0.0.1");
	CHECK_EQ(nvmf_disc_entry_decode(e, &d, why, sizeof(why)), -EINVAL);
	CHECK_STR(why, "discovery log entry: TRSVCID byte 2 is 0x0a (not printable ASCII)");
	disc_raw(e, 2, "4420", "nqn.x", "10.0.0.1");
	e[256 + 3] = 0xc3;
	CHECK_EQ(nvmf_disc_entry_decode(e, &d, why, sizeof(why)), -EINVAL);
	CHECK_STR(why, "discovery log entry: SUBNQN byte 3 is 0xc3 (not printable ASCII)");
	CHECK_STR(d.trsvcid, "");          /* zeroed, not half filled */
	disc_raw(e, 2, "4420", "nqn.x", "10.0.0.1");
	e[512 + 255] = 0x7f;
	memset(e + 512 + 8, 'x', 247);     /* no NUL before the bad last byte */
	CHECK_EQ(nvmf_disc_entry_decode(e, &d, why, sizeof(why)), -EINVAL);
	CHECK_STR(why, "discovery log entry: TRADDR byte 255 is 0x7f (not printable ASCII)");
	/* bytes after the NUL are not looked at */
	disc_raw(e, 2, "4420", "nqn.x", "10.0.0.1");
	e[512 + 20] = 0x01;
	CHECK_EQ(nvmf_disc_entry_decode(e, &d, why, sizeof(why)), 0);

	/* names, as nvme-cli prints them */
	CHECK_STR(nvmf_trtype_name(1), "rdma");
	CHECK_STR(nvmf_trtype_name(2), "fc");
	CHECK_STR(nvmf_trtype_name(3), "tcp");
	CHECK_STR(nvmf_trtype_name(254), "loop");
	CHECK_STR(nvmf_trtype_name(0), "unrecognized");
	CHECK_STR(nvmf_trtype_name(4), "unrecognized");
	CHECK_STR(nvmf_adrfam_name(1), "ipv4");
	CHECK_STR(nvmf_adrfam_name(2), "ipv6");
	CHECK_STR(nvmf_adrfam_name(3), "infiniband");
	CHECK_STR(nvmf_adrfam_name(4), "fibre-channel");
	CHECK_STR(nvmf_adrfam_name(254), "intra-host");
	CHECK_STR(nvmf_adrfam_name(5), "unrecognized");
	CHECK_STR(nvmf_subtype_name(1), "discovery subsystem referral");
	CHECK_STR(nvmf_subtype_name(2), "nvme subsystem");
	CHECK_STR(nvmf_subtype_name(3), "current discovery subsystem");
	CHECK_STR(nvmf_subtype_name(0), "unrecognized");
	CHECK_STR(nvmf_treq_secure_name(0x04), "not specified");
	CHECK_STR(nvmf_treq_secure_name(0x01), "required");
	CHECK_STR(nvmf_treq_secure_name(0x06), "not required");
	CHECK_STR(nvmf_treq_secure_name(0x03), "unrecognized");
	CHECK_STR(nvmf_rdma_qptype_name(1), "connected");
	CHECK_STR(nvmf_rdma_qptype_name(2), "datagram");
	CHECK_STR(nvmf_rdma_qptype_name(0), "unrecognized");
	CHECK_STR(nvmf_rdma_prtype_name(1), "not specified");
	CHECK_STR(nvmf_rdma_prtype_name(2), "infiniband");
	CHECK_STR(nvmf_rdma_prtype_name(3), "roce");
	CHECK_STR(nvmf_rdma_prtype_name(4), "roce-v2");
	CHECK_STR(nvmf_rdma_prtype_name(5), "iwarp");
	CHECK_STR(nvmf_rdma_prtype_name(6), "unrecognized");
	CHECK_STR(nvmf_rdma_cms_name(1), "rdma-cm");
	CHECK_STR(nvmf_rdma_cms_name(0), "unrecognized");
	CHECK_STR(nvmf_tcp_sectype_name(0), "none");
	CHECK_STR(nvmf_tcp_sectype_name(1), "tls");
	CHECK_STR(nvmf_tcp_sectype_name(2), "tls13");
	CHECK_STR(nvmf_tcp_sectype_name(3), "unrecognized");
	CHECK_STR(NVMF_DISCOVERY_NQN, "nqn.2014-08.org.nvmexpress.discovery");
	CHECK_EQ(NVME_LOG_ANA, 0x0c);
	CHECK_EQ(NVME_LOG_DISCOVERY, 0x70);
	CHECK_EQ(NVME_ANA_LSP_RGO, 0x01);
}

int main(void)
{
	test_get_log_page_sqe();
	test_ana_log();
	test_ana_log_short_transfer();
	test_disc_hdr();
	test_disc_entry();
	return check_done("test_logpages");
}
