/* test_spec.c - wire formats of lib/nvmf_spec.h checked byte by byte.
 *
 * Structures are built through the library's builders and then read back as
 * raw bytes at the offsets the NVMe Base / NVMe-oF / NVMe-oF RDMA transport
 * specifications give, never through the struct fields under test.  Decoders
 * are fed raw bytes written at spec offsets. */
#include "nvmf_spec.h"

#include "check.h"

/* Fill with a pattern first so "builder zeroes everything" is observable. */
static void poison(void *p, size_t n)
{
	memset(p, 0xa5, n);
}

static int all_zero(const void *base, size_t off, size_t n)
{
	const uint8_t *p = (const uint8_t *)base + off;

	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

static void test_le_helpers(void)
{
	uint8_t b[8];

	memset(b, 0, sizeof(b));
	nvmf_put_le16(b, 0x1234);
	CHECK_EQ(b[0], 0x34);
	CHECK_EQ(b[1], 0x12);
	CHECK_EQ(nvmf_get_le16(b), 0x1234);

	memset(b, 0xee, sizeof(b));
	nvmf_put_le24(b, 0xabcdef);
	CHECK_EQ(b[0], 0xef);
	CHECK_EQ(b[1], 0xcd);
	CHECK_EQ(b[2], 0xab);
	CHECK_EQ(b[3], 0xee); /* writes exactly 3 bytes */
	CHECK_EQ(nvmf_get_le24(b), 0xabcdef);
	nvmf_put_le24(b, 0x12fedcba); /* bits above 23 are dropped */
	CHECK_EQ(nvmf_get_le24(b), 0xfedcba);
	CHECK_EQ(b[3], 0xee);

	nvmf_put_le32(b, 0xdeadbeef);
	CHECK_EQ(b[0], 0xef);
	CHECK_EQ(b[1], 0xbe);
	CHECK_EQ(b[2], 0xad);
	CHECK_EQ(b[3], 0xde);
	CHECK_EQ(nvmf_get_le32(b), 0xdeadbeef);

	nvmf_put_le64(b, 0x0102030405060708ull);
	for (unsigned i = 0; i < 8; i++)
		CHECK_EQ(b[i], 8 - i);
	CHECK_EQ(nvmf_get_le64(b), 0x0102030405060708ull);
	CHECK_EQ(raw_le(b, 0, 8), 0x0102030405060708ull);
}

static void test_write_keyed(void)
{
	struct nvme_sqe c;
	const uint8_t *b = (const uint8_t *)&c;

	poison(&c, sizeof(c));
	CHECK_EQ(nvme_cmd_rw(&c, NVME_CMD_WRITE, 0x01020304, 0x0000abcd12345678ull, 8), 0);
	nvme_sqe_set_cid(&c, 0xbeef);
	CHECK_EQ(nvme_sqe_set_sgl_keyed(&c, 0x1122334455667788ull, 0xabcdef, 0xdeadbeef), 0);

	CHECK_EQ(b[0], 0x01);
	CHECK_EQ(b[1], 0x40);                       /* PSDT = 01b, FUSE = 0 */
	CHECK_EQ(b[2], 0xef);
	CHECK_EQ(b[3], 0xbe);
	CHECK_EQ(raw_le(b, 4, 4), 0x01020304);      /* NSID */
	CHECK(all_zero(b, 8, 16));                  /* CDW2, CDW3, MPTR */
	CHECK_EQ(raw_le(b, 24, 8), 0x1122334455667788ull);
	CHECK_EQ(b[24], 0x88);
	CHECK_EQ(b[32], 0xef);                      /* 24-bit length */
	CHECK_EQ(b[33], 0xcd);
	CHECK_EQ(b[34], 0xab);
	CHECK_EQ(raw_le(b, 35, 4), 0xdeadbeef);     /* key */
	CHECK_EQ(b[35], 0xef);
	CHECK_EQ(b[38], 0xde);
	CHECK_EQ(b[39], 0x40);                      /* keyed data block, address */
	CHECK_EQ(raw_le(b, 40, 8), 0x0000abcd12345678ull); /* SLBA (CDW10/11) */
	CHECK_EQ(raw_le(b, 48, 2), 7);              /* NLB, 0's based */
	CHECK(all_zero(b, 50, 14));                 /* CDW12 hi .. CDW15 */

	/* Read with max block count and a key-less max length */
	poison(&c, sizeof(c));
	CHECK_EQ(nvme_cmd_rw(&c, NVME_CMD_READ, 1, 0, NVME_RW_MAX_NLB), 0);
	CHECK_EQ(b[0], 0x02);
	CHECK_EQ(raw_le(b, 48, 4), 0xffff);
	CHECK_EQ(nvme_sqe_set_sgl_keyed(&c, 0, NVME_SGL_KEYED_MAX_LEN, 1), 0);
	CHECK_EQ(raw_le(b, 32, 3), 0xffffff);
	CHECK_EQ(raw_le(b, 35, 4), 1);

	/* Out-of-range inputs are refused, not truncated */
	CHECK_EQ(nvme_sqe_set_sgl_keyed(&c, 0, 0x1000000, 1), -EINVAL);
	CHECK_EQ(raw_le(b, 32, 3), 0xffffff);       /* unchanged */
	CHECK_EQ(nvme_cmd_rw(&c, NVME_CMD_READ, 1, 0, 0), -EINVAL);
	CHECK(all_zero(b, 0, 64));
	CHECK_EQ(nvme_cmd_rw(&c, NVME_CMD_READ, 1, 0, NVME_RW_MAX_NLB + 1), -EINVAL);
}

static void test_sgl_inline_none(void)
{
	struct nvme_sqe c;
	const uint8_t *b = (const uint8_t *)&c;

	poison(&c, sizeof(c));
	nvme_cmd_rw(&c, NVME_CMD_WRITE, 1, 5, 1);
	nvme_sqe_set_sgl_inline(&c, 0, 4096);
	CHECK_EQ(b[1], 0x40);
	CHECK_EQ(raw_le(b, 24, 8), 0);              /* offset 0 into in-capsule data */
	CHECK_EQ(raw_le(b, 32, 4), 4096);           /* 32-bit length */
	CHECK(all_zero(b, 36, 3));
	CHECK_EQ(b[39], 0x01);                      /* data block, offset */

	nvme_sqe_set_sgl_inline(&c, 0x40, 0x12345678);
	CHECK_EQ(raw_le(b, 24, 8), 0x40);
	CHECK_EQ(raw_le(b, 32, 4), 0x12345678);

	/* "No data" descriptor, also the default set by every builder */
	nvme_sqe_set_sgl_none(&c);
	CHECK_EQ(b[1], 0x40);
	CHECK(all_zero(b, 24, 15));
	CHECK_EQ(b[39], 0x40);
}

/* The I/O path's one-pass builder gives byte for byte the SQE of the composed builders, over
 * a poisoned SQE (so every byte is written), and refuses what they refuse. */
static void test_rw_sgl_one_pass(void)
{
	static const struct {
		uint8_t opc; uint32_t nsid; uint64_t slba; uint32_t nlb;
		int keyed; uint64_t addr; uint32_t len; uint32_t key;
	} v[] = {
		{ NVME_CMD_READ, 1, 0, 8, 1, 0x00007f1234567000ull, 4096, 0x2222 },
		{ NVME_CMD_READ, 0xfffffffe, 0xfedcba9876543210ull, NVME_RW_MAX_NLB, 1,
		  0xffffffffffffffffull, NVME_SGL_KEYED_MAX_LEN, 0xffffffffu },
		{ NVME_CMD_WRITE, 0x01020304, 0x0000abcd12345678ull, 1, 1, 0x1000, 512, 0x80000001u },
		{ NVME_CMD_WRITE, 7, 12345, 8, 0, 0, 4096, 0 },
		{ NVME_CMD_WRITE, 7, 1, 1, 0, 0x40, 0x12345678, 0 },
	};
	struct nvme_sqe a, b;

	for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		poison(&a, sizeof(a));
		memset(&b, 0x5a, sizeof(b));
		CHECK_EQ(nvme_cmd_rw(&a, v[i].opc, v[i].nsid, v[i].slba, v[i].nlb), 0);
		if (v[i].keyed)
			CHECK_EQ(nvme_sqe_set_sgl_keyed(&a, v[i].addr, v[i].len, v[i].key), 0);
		else
			nvme_sqe_set_sgl_inline(&a, v[i].addr, v[i].len);
		CHECK_EQ(nvme_cmd_rw_sgl(&b, v[i].opc, v[i].nsid, v[i].slba, v[i].nlb, v[i].keyed,
					 v[i].addr, v[i].len, v[i].key), 0);
		CHECK(memcmp(&a, &b, sizeof(a)) == 0);
	}
	poison(&b, sizeof(b));
	CHECK_EQ(nvme_cmd_rw_sgl(&b, NVME_CMD_READ, 1, 0, 0, 1, 0, 512, 1), -EINVAL);
	CHECK(all_zero(&b, 0, 64));
	CHECK_EQ(nvme_cmd_rw_sgl(&b, NVME_CMD_READ, 1, 0, NVME_RW_MAX_NLB + 1, 1, 0, 512, 1), -EINVAL);
	poison(&b, sizeof(b));
	CHECK_EQ(nvme_cmd_rw_sgl(&b, NVME_CMD_READ, 1, 0, 8, 1, 0, NVME_SGL_KEYED_MAX_LEN + 1, 1),
		 -EINVAL);
	CHECK(all_zero(&b, 0, 64));
}

static void test_flush_keepalive_identify(void)
{
	struct nvme_sqe c;
	const uint8_t *b = (const uint8_t *)&c;

	poison(&c, sizeof(c));
	nvme_cmd_flush(&c, 0xffffffff);
	nvme_sqe_set_cid(&c, 3);
	CHECK_EQ(b[0], 0x00);
	CHECK_EQ(b[1], 0x40);
	CHECK_EQ(raw_le(b, 2, 2), 3);
	CHECK_EQ(raw_le(b, 4, 4), 0xffffffff);
	CHECK(all_zero(b, 8, 31));
	CHECK_EQ(b[39], 0x40);
	CHECK(all_zero(b, 40, 24));

	poison(&c, sizeof(c));
	nvme_cmd_keep_alive(&c);
	CHECK_EQ(b[0], 0x18);
	CHECK_EQ(b[1], 0x40);
	CHECK(all_zero(b, 2, 37));
	CHECK_EQ(b[39], 0x40);
	CHECK(all_zero(b, 40, 24));

	poison(&c, sizeof(c));
	nvme_cmd_identify(&c, NVME_IDENTIFY_CNS_CTRL, 0, 0x1234);
	CHECK_EQ(b[0], 0x06);
	CHECK_EQ(raw_le(b, 4, 4), 0);
	CHECK_EQ(b[40], 0x01);                      /* CNS */
	CHECK_EQ(b[41], 0x00);
	CHECK_EQ(raw_le(b, 42, 2), 0x1234);         /* CNTID */
	CHECK(all_zero(b, 44, 20));

	nvme_cmd_identify(&c, NVME_IDENTIFY_CNS_NS, 7, 0);
	CHECK_EQ(raw_le(b, 4, 4), 7);
	CHECK_EQ(raw_le(b, 40, 4), 0);

	/* Get Features, Keep Alive Timer (FID 0Fh), current value: opcode 0Ah, CDW10 at 40 */
	poison(&c, sizeof(c));
	nvme_cmd_get_features(&c, NVME_FEAT_KATO, NVME_FEAT_SEL_CURRENT);
	CHECK_EQ(b[0], 0x0a);
	CHECK_EQ(b[1], 0x40);
	CHECK(all_zero(b, 2, 37));
	CHECK_EQ(b[39], 0x40);
	CHECK_EQ(raw_le(b, 40, 4), 0x0f);
	CHECK(all_zero(b, 44, 20));
	nvme_cmd_get_features(&c, 0x0f, 3);         /* SEL 3 (supported capabilities) */
	CHECK_EQ(raw_le(b, 40, 4), 0x30f);

	/* Set Features, Number of Queues (FID 07h): opcode 09h, CDW10 FID at 40, CDW11 at 44 with
	 * NSQR in bits 15:0 and NCQR in 31:16, both 0-based */
	poison(&c, sizeof(c));
	nvme_cmd_set_features_nr_queues(&c, 3, 0x1234);
	CHECK_EQ(b[0], 0x09);
	CHECK_EQ(b[1], 0x40);
	CHECK(all_zero(b, 2, 37));
	CHECK_EQ(raw_le(b, 40, 4), 0x07);
	CHECK_EQ(raw_le(b, 44, 2), 3);
	CHECK_EQ(raw_le(b, 46, 2), 0x1234);
	CHECK(all_zero(b, 48, 16));
	/* its answer: the smaller of NSQA and NCQA, each 0-based, a full 16 bits without wrapping */
	CHECK_EQ(nvme_nr_queues_granted(0x00030007), 4);
	CHECK_EQ(nvme_nr_queues_granted(0x00070003), 4);
	CHECK_EQ(nvme_nr_queues_granted(0), 1);
	CHECK_EQ(nvme_nr_queues_granted(0xffffffffu), 65536);
}

static void test_dsm(void)
{
	struct nvme_sqe c;
	struct nvme_dsm_range r[2];
	const uint8_t *b = (const uint8_t *)&c;
	const uint8_t *rb = (const uint8_t *)r;

	poison(&c, sizeof(c));
	CHECK_EQ(nvme_cmd_dsm_deallocate(&c, 9, 2), 0);
	CHECK_EQ(b[0], 0x09);
	CHECK_EQ(raw_le(b, 4, 4), 9);
	CHECK_EQ(raw_le(b, 40, 4), 1);              /* NR, 0's based */
	CHECK_EQ(raw_le(b, 44, 4), 0x4);            /* AD = bit 2 */
	CHECK(all_zero(b, 48, 16));
	CHECK_EQ(nvme_cmd_dsm_deallocate(&c, 9, 256), 0);
	CHECK_EQ(raw_le(b, 40, 4), 0xff);
	CHECK_EQ(nvme_cmd_dsm_deallocate(&c, 9, 0), -EINVAL);
	CHECK_EQ(nvme_cmd_dsm_deallocate(&c, 9, 257), -EINVAL);

	poison(r, sizeof(r));
	nvme_dsm_range_set(&r[0], 0x1122334455667788ull, 0x100);
	nvme_dsm_range_set(&r[1], 42, 1);
	CHECK_EQ(sizeof(r), 32);
	CHECK_EQ(raw_le(rb, 0, 4), 0);              /* context attributes */
	CHECK_EQ(raw_le(rb, 4, 4), 0x100);          /* NLB, not 0's based */
	CHECK_EQ(raw_le(rb, 8, 8), 0x1122334455667788ull);
	CHECK_EQ(raw_le(rb, 16, 4), 0);
	CHECK_EQ(raw_le(rb, 20, 4), 1);
	CHECK_EQ(raw_le(rb, 24, 8), 42);
}

static void test_connect(void)
{
	struct nvme_sqe c;
	const uint8_t *b = (const uint8_t *)&c;

	poison(&c, sizeof(c));
	nvmf_cmd_connect(&c, 3, 127, 0);
	nvme_sqe_set_cid(&c, 0x0a0b);
	CHECK_EQ(nvme_sqe_set_sgl_keyed(&c, 0xfeedf00d00001000ull, NVMF_CONNECT_DATA_SIZE, 0x55aa), 0);
	CHECK_EQ(b[0], 0x7f);
	CHECK_EQ(b[1], 0x40);
	CHECK_EQ(raw_le(b, 2, 2), 0x0a0b);
	CHECK_EQ(b[4], 0x01);                       /* FCTYPE Connect */
	CHECK(all_zero(b, 5, 19));
	CHECK_EQ(raw_le(b, 24, 8), 0xfeedf00d00001000ull);
	CHECK_EQ(raw_le(b, 32, 3), 1024);
	CHECK_EQ(raw_le(b, 35, 4), 0x55aa);
	CHECK_EQ(b[39], 0x40);
	CHECK_EQ(raw_le(b, 40, 2), 0);              /* RECFMT */
	CHECK_EQ(raw_le(b, 42, 2), 3);              /* QID */
	CHECK_EQ(raw_le(b, 44, 2), 127);            /* SQSIZE */
	CHECK_EQ(b[46], 0);                         /* CATTR */
	CHECK_EQ(b[47], 0);
	CHECK_EQ(raw_le(b, 48, 4), 0);              /* KATO */
	CHECK(all_zero(b, 52, 12));

	poison(&c, sizeof(c));
	nvmf_cmd_connect(&c, 0, 31, 120000);
	nvme_sqe_set_sgl_inline(&c, 0, NVMF_CONNECT_DATA_SIZE);
	CHECK_EQ(b[0], 0x7f);
	CHECK_EQ(b[4], 0x01);
	CHECK_EQ(raw_le(b, 32, 4), 1024);
	CHECK_EQ(b[39], 0x01);
	CHECK_EQ(raw_le(b, 42, 2), 0);
	CHECK_EQ(raw_le(b, 44, 2), 31);
	CHECK_EQ(raw_le(b, 48, 4), 120000);
	CHECK(all_zero(b, 52, 12));
}

static void test_connect_data(void)
{
	struct nvmf_connect_data d;
	const uint8_t *b = (const uint8_t *)&d;
	uint8_t hostid[16];
	char nqn[NVMF_NQN_MAX + 2];
	const char *sub = "nqn.2024-01.io.example:subsys";
	const char *host = "nqn.2014-08.org.nvmexpress:uuid:00000000-0000-0000-0000-000000000001";

	for (unsigned i = 0; i < 16; i++)
		hostid[i] = (uint8_t)(0x10 + i);

	CHECK_EQ(sizeof(d), 1024);
	poison(&d, sizeof(d));
	CHECK_EQ(nvmf_connect_data_init(&d, hostid, NVMF_CNTLID_DYNAMIC, sub, host), 0);
	for (unsigned i = 0; i < 16; i++)
		CHECK_EQ(b[i], 0x10 + i);
	CHECK_EQ(raw_le(b, 16, 2), 0xffff);
	CHECK(all_zero(b, 18, 238));
	CHECK(memcmp(b + 256, sub, strlen(sub)) == 0);
	CHECK(all_zero(b, 256 + strlen(sub), 256 - strlen(sub)));  /* NUL + padding */
	CHECK(memcmp(b + 512, host, strlen(host)) == 0);
	CHECK(all_zero(b, 512 + strlen(host), 256 - strlen(host)));
	CHECK(all_zero(b, 768, 256));

	CHECK_EQ(nvmf_connect_data_init(&d, hostid, 0x0102, sub, host), 0);
	CHECK_EQ(b[16], 0x02);
	CHECK_EQ(b[17], 0x01);

	/* NQN length limits: 223 characters fit, 224 do not */
	memset(nqn, 'a', sizeof(nqn));
	nqn[NVMF_NQN_MAX] = '\0';
	CHECK_EQ(nvmf_connect_data_init(&d, hostid, 1, nqn, host), 0);
	CHECK_EQ(b[256 + 222], 'a');
	CHECK_EQ(b[256 + 223], 0);
	CHECK_EQ(nvmf_connect_data_init(&d, hostid, 1, sub, nqn), 0);
	CHECK_EQ(b[512 + 222], 'a');
	CHECK_EQ(b[512 + 223], 0);

	nqn[NVMF_NQN_MAX] = 'a';
	nqn[NVMF_NQN_MAX + 1] = '\0';
	CHECK_EQ(strlen(nqn), 224);
	poison(&d, sizeof(d));
	CHECK_EQ(nvmf_connect_data_init(&d, hostid, 1, nqn, host), -EINVAL);
	CHECK_EQ(b[0], 0xa5);                       /* untouched on error */
	CHECK_EQ(nvmf_connect_data_init(&d, hostid, 1, sub, nqn), -EINVAL);
	CHECK_EQ(nvmf_connect_data_init(&d, hostid, 1, NULL, host), -EINVAL);
	CHECK_EQ(nvmf_connect_data_init(&d, hostid, 1, sub, NULL), -EINVAL);
	CHECK_EQ(nvmf_connect_data_init(&d, hostid, 1, "", host), -EINVAL);
	CHECK_EQ(nvmf_connect_data_init(&d, hostid, 1, sub, ""), -EINVAL);
	CHECK_EQ(nvmf_connect_data_init(&d, NULL, 1, sub, host), -EINVAL);
}

static void test_property(void)
{
	struct nvme_sqe c;
	const uint8_t *b = (const uint8_t *)&c;

	poison(&c, sizeof(c));
	nvmf_cmd_prop_get(&c, NVME_REG_CAP, 1);
	nvme_sqe_set_cid(&c, 1);
	CHECK_EQ(b[0], 0x7f);
	CHECK_EQ(b[1], 0x40);
	CHECK_EQ(raw_le(b, 2, 2), 1);
	CHECK_EQ(b[4], 0x04);                       /* FCTYPE Property Get */
	CHECK(all_zero(b, 5, 19));
	CHECK_EQ(b[40], 0x01);                      /* ATTRIB size: 8 bytes */
	CHECK(all_zero(b, 41, 3));
	CHECK_EQ(raw_le(b, 44, 4), 0x00);
	CHECK(all_zero(b, 48, 16));

	nvmf_cmd_prop_get(&c, NVME_REG_CSTS, 0);
	CHECK_EQ(b[4], 0x04);
	CHECK_EQ(b[40], 0x00);                      /* 4 bytes */
	CHECK_EQ(raw_le(b, 44, 4), 0x1c);

	poison(&c, sizeof(c));
	nvmf_cmd_prop_set(&c, NVME_REG_CC, 0, 0x00460001);
	CHECK_EQ(b[0], 0x7f);
	CHECK_EQ(b[1], 0x40);
	CHECK_EQ(b[4], 0x00);                       /* FCTYPE Property Set */
	CHECK(all_zero(b, 5, 19));
	CHECK_EQ(b[40], 0x00);
	CHECK(all_zero(b, 41, 3));
	CHECK_EQ(raw_le(b, 44, 4), 0x14);
	CHECK_EQ(raw_le(b, 48, 8), 0x00460001);
	CHECK(all_zero(b, 56, 8));

	/* 4-byte property: upper half of VALUE stays zero */
	nvmf_cmd_prop_set(&c, NVME_REG_CC, 0, 0xffffffff00000001ull);
	CHECK_EQ(raw_le(b, 48, 8), 1);
	nvmf_cmd_prop_set(&c, 0x20, 1, 0x0102030405060708ull);
	CHECK_EQ(b[40], 0x01);
	CHECK_EQ(raw_le(b, 44, 4), 0x20);
	CHECK_EQ(raw_le(b, 48, 8), 0x0102030405060708ull);
}

static void test_cqe(void)
{
	uint8_t raw[16];
	struct nvme_cqe cqe;
	uint16_t st;

	CHECK_EQ(sizeof(cqe), 16);
	/* Property Get response for CAP: DW0/DW1 carry the 8-byte value */
	memset(raw, 0, sizeof(raw));
	nvmf_put_le64(raw, 0x000008200f00007full);
	nvmf_put_le16(raw + 8, 0x0011);             /* SQHD */
	nvmf_put_le16(raw + 10, 0x0002);            /* SQID */
	nvmf_put_le16(raw + 12, 0xabcd);            /* CID */
	nvmf_put_le16(raw + 14, 0x4101);            /* status */
	memcpy(&cqe, raw, sizeof(cqe));
	CHECK_EQ(le64toh(cqe.result), 0x000008200f00007full);
	CHECK_EQ(le32toh(cqe.dw0), 0x0f00007f);
	CHECK_EQ(le32toh(cqe.dw1), 0x00000820);
	CHECK_EQ(le16toh(cqe.sqhd), 0x11);
	CHECK_EQ(le16toh(cqe.sqid), 2);
	CHECK_EQ(le16toh(cqe.cid), 0xabcd);
	st = le16toh(cqe.status);
	CHECK_EQ(st, 0x4101);
	CHECK_EQ(nvme_status_phase(st), 1);
	CHECK_EQ(nvme_status_sc(st), 0x80);
	CHECK_EQ(nvme_status_sct(st), 0);
	CHECK_EQ(nvme_status_crd(st), 0);
	CHECK_EQ(nvme_status_more(st), 1);          /* bit 14 */
	CHECK_EQ(nvme_status_dnr(st), 0);           /* bit 15 is clear in 0x4101 */
	CHECK_EQ(nvme_status_code(st), 0x0080);
	CHECK_STR(nvme_status_name(nvme_status_sct(st), nvme_status_sc(st), 0), "LBA Out of Range");

	/* LBA Out of Range with DNR, phase 1: bits 15 | (0x80 << 1) | 1 */
	nvmf_put_le16(raw + 14, 0x8101);
	memcpy(&cqe, raw, sizeof(cqe));
	st = le16toh(cqe.status);
	CHECK_EQ(nvme_status_dnr(st), 1);
	CHECK_EQ(nvme_status_more(st), 0);
	CHECK_EQ(nvme_status_code(st), 0x0080);

	/* Connect Invalid Parameters: SCT 1, SC 0x82, DNR, phase 0 */
	nvmf_put_le16(raw + 14, (uint16_t)(0x8000 | (1u << 9) | (0x82u << 1)));
	CHECK_EQ(raw[14], 0x04);
	CHECK_EQ(raw[15], 0x83);
	memcpy(&cqe, raw, sizeof(cqe));
	st = le16toh(cqe.status);
	CHECK_EQ(nvme_status_phase(st), 0);
	CHECK_EQ(nvme_status_sc(st), 0x82);
	CHECK_EQ(nvme_status_sct(st), 1);
	CHECK_EQ(nvme_status_dnr(st), 1);
	CHECK_EQ(nvme_status_code(st), 0x0182);
	CHECK_STR(nvme_status_name(1, 0x82, 1), "Connect Invalid Parameters");
	CHECK_STR(nvme_status_name(1, 0x82, 0), "Attempted Write to Read Only Range");

	/* CRD field, bits 13:12 */
	CHECK_EQ(nvme_status_crd(0x3000), 3);
	CHECK_EQ(nvme_status_crd(0x1000), 1);
	CHECK_EQ(nvme_status_sct(0x0e00), 7);
	CHECK_EQ(nvme_status_sc(0x01fe), 0xff);
	CHECK_EQ(nvme_status_code(0x0001), 0);      /* success with phase set */

	/* Connect response DW0: IPO in bytes 1:0, IATTR in byte 2 */
	memset(raw, 0, sizeof(raw));
	raw[0] = 0x2c;                              /* offset 0x002c */
	raw[2] = 0x01;                              /* in the Connect data */
	memcpy(&cqe, raw, sizeof(cqe));
	CHECK_EQ(nvmf_connect_rsp_ipo(le32toh(cqe.dw0)), 0x2c);
	CHECK_EQ(nvmf_connect_rsp_iattr(le32toh(cqe.dw0)), 1);
	raw[0] = 0x05;
	raw[1] = 0x00;
	raw[2] = 0x00;
	memcpy(&cqe, raw, sizeof(cqe));
	CHECK_EQ(nvmf_connect_rsp_cntlid(le32toh(cqe.dw0)), 5);
}

static void test_rdma_cm(void)
{
	struct nvmf_rdma_cm_req req;
	struct nvmf_rdma_cm_rep rep;
	struct nvmf_rdma_cm_rej rej;
	const uint8_t *b = (const uint8_t *)&req;
	uint8_t raw[32];

	CHECK_EQ(sizeof(req), 32);
	CHECK_EQ(sizeof(rep), 32);
	CHECK_EQ(sizeof(rej), 4);

	poison(&req, sizeof(req));
	nvmf_rdma_cm_req_init(&req, 4, 128, 127, 0x0102);
	CHECK_EQ(raw_le(b, 0, 2), 0);               /* RECFMT */
	CHECK_EQ(raw_le(b, 2, 2), 4);               /* QID */
	CHECK_EQ(raw_le(b, 4, 2), 128);             /* HRQSIZE */
	CHECK_EQ(raw_le(b, 6, 2), 127);             /* HSQSIZE */
	CHECK_EQ(b[8], 0x02);                       /* CNTLID */
	CHECK_EQ(b[9], 0x01);
	CHECK(all_zero(b, 10, 22));

	memset(raw, 0, sizeof(raw));
	nvmf_put_le16(raw + 2, 0x0080);             /* CRQSIZE */
	memcpy(&rep, raw, sizeof(rep));
	CHECK_EQ(le16toh(rep.recfmt), 0);
	CHECK_EQ(le16toh(rep.crqsize), 128);

	memset(raw, 0, sizeof(raw));
	raw[2] = 0x06;                              /* STS: No Resources */
	memcpy(&rej, raw, sizeof(rej));
	CHECK_EQ(le16toh(rej.recfmt), 0);
	CHECK_EQ(le16toh(rej.sts), NVMF_RDMA_CM_NO_RESOURCES);
	CHECK_STR(nvmf_rdma_cm_status_name(le16toh(rej.sts)), "no resources");

	CHECK_STR(nvmf_rdma_cm_status_name(1), "invalid private data length");
	CHECK_STR(nvmf_rdma_cm_status_name(2), "invalid record format");
	CHECK_STR(nvmf_rdma_cm_status_name(3), "invalid queue ID");
	CHECK_STR(nvmf_rdma_cm_status_name(4), "invalid host SQ size");
	CHECK_STR(nvmf_rdma_cm_status_name(5), "invalid host RQ size");
	CHECK_STR(nvmf_rdma_cm_status_name(6), "no resources");
	CHECK_STR(nvmf_rdma_cm_status_name(7), "invalid IRD");
	CHECK_STR(nvmf_rdma_cm_status_name(8), "invalid ORD");
	CHECK_STR(nvmf_rdma_cm_status_name(9), "invalid controller ID");
	CHECK_STR(nvmf_rdma_cm_status_name(0), "unknown reject status");
	CHECK_STR(nvmf_rdma_cm_status_name(10), "unknown reject status");
	CHECK_STR(nvmf_rdma_cm_status_name(0xffff), "unknown reject status");
}

static void test_id_ctrl(void)
{
	static uint8_t raw[4096];
	static struct nvme_id_ctrl id;

	CHECK_EQ(sizeof(id), 4096);
	memset(raw, 0, sizeof(raw));
	nvmf_put_le16(raw + 0, 0x15b3);             /* VID */
	nvmf_put_le16(raw + 2, 0x1af4);             /* SSVID */
	memcpy(raw + 4, "SN0123456789        ", 20);
	memcpy(raw + 24, "Linux", 5);
	memcpy(raw + 64, "6.1.0   ", 8);
	raw[72] = 6;                                /* RAB */
	raw[76] = 0x0b;                             /* CMIC */
	raw[77] = 5;                                /* MDTS */
	nvmf_put_le16(raw + 78, 0x0007);            /* CNTLID */
	nvmf_put_le32(raw + 80, 0x00010400);        /* VER 1.4.0 */
	nvmf_put_le16(raw + 256, 0x0008);           /* OACS */
	nvmf_put_le16(raw + 320, 100);              /* KAS */
	nvmf_put_le16(raw + 386, 2500);             /* CQT: 2.5 s */
	raw[512] = 0x66;                            /* SQES */
	raw[513] = 0x44;                            /* CQES */
	nvmf_put_le16(raw + 514, 128);              /* MAXCMD */
	nvmf_put_le32(raw + 516, 1024);             /* NN */
	nvmf_put_le16(raw + 520, 0x0004);           /* ONCS: DSM */
	nvmf_put_le16(raw + 522, 0x0001);           /* FUSES */
	raw[524] = 0x03;                            /* FNA */
	raw[525] = 0x01;                            /* VWC */
	nvmf_put_le16(raw + 526, 7);                /* AWUN */
	nvmf_put_le16(raw + 528, 3);                /* AWUPF */
	nvmf_put_le32(raw + 536, 0x00100005);       /* SGLS: supported, keyed, offset */
	memcpy(raw + 768, "nqn.2024-01.io.example:subsys", 29);
	nvmf_put_le32(raw + 1792, 260);             /* IOCCSZ: 64 + 4096 bytes */
	nvmf_put_le32(raw + 1796, 1);               /* IORCSZ */
	nvmf_put_le16(raw + 1800, 0);               /* ICDOFF */
	raw[1802] = 0x00;                           /* FCATT: dynamic */
	raw[1803] = 1;                              /* MSDBD */
	nvmf_put_le16(raw + 1804, 0x0001);          /* OFCS */
	raw[4095] = 0x77;
	memcpy(&id, raw, sizeof(id));

	CHECK_EQ(le16toh(id.vid), 0x15b3);
	CHECK_EQ(le16toh(id.ssvid), 0x1af4);
	CHECK(memcmp(id.sn, "SN0123456789", 12) == 0);
	CHECK(memcmp(id.mn, "Linux", 5) == 0);
	CHECK(memcmp(id.fr, "6.1.0", 5) == 0);
	CHECK_EQ(id.rab, 6);
	CHECK_EQ(id.cmic, 0x0b);
	CHECK_EQ(id.mdts, 5);
	CHECK_EQ(le16toh(id.cntlid), 7);
	CHECK_EQ(le32toh(id.ver), 0x00010400);
	CHECK_EQ(nvme_vs_mjr(le32toh(id.ver)), 1);
	CHECK_EQ(nvme_vs_mnr(le32toh(id.ver)), 4);
	CHECK_EQ(le16toh(id.oacs), 8);
	CHECK_EQ(le16toh(id.kas), 100);
	CHECK_EQ(le16toh(id.cqt), 2500);
	CHECK_EQ(id.sqes, 0x66);
	CHECK_EQ(id.cqes, 0x44);
	CHECK_EQ(le16toh(id.maxcmd), 128);
	CHECK_EQ(le32toh(id.nn), 1024);
	CHECK(le16toh(id.oncs) & NVME_ID_CTRL_ONCS_DSM);
	CHECK_EQ(le16toh(id.fuses), 1);
	CHECK_EQ(id.fna, 3);
	CHECK(id.vwc & NVME_ID_CTRL_VWC_PRESENT);
	CHECK_EQ(le16toh(id.awun), 7);
	CHECK_EQ(le16toh(id.awupf), 3);
	CHECK_EQ(le32toh(id.sgls) & NVME_ID_CTRL_SGLS_SUPPORT, 1);
	CHECK(le32toh(id.sgls) & NVME_ID_CTRL_SGLS_KEYED);
	CHECK(le32toh(id.sgls) & NVME_ID_CTRL_SGLS_OFFSET);
	CHECK_STR(id.subnqn, "nqn.2024-01.io.example:subsys");
	CHECK_EQ(le32toh(id.ioccsz), 260);
	CHECK_EQ(le32toh(id.iorcsz), 1);
	CHECK_EQ(le16toh(id.icdoff), 0);
	CHECK_EQ(id.fcatt & NVME_ID_CTRL_FCATT_STATIC, 0);
	CHECK_EQ(id.msdbd, 1);
	CHECK_EQ(le16toh(id.ofcs), 1);
	CHECK_EQ(id.vs[1023], 0x77);
	CHECK_EQ(nvmf_id_ctrl_inline_data_size(&id), 4096);

	raw[1792] = 4;                              /* IOCCSZ = SQE only */
	raw[1793] = 0;
	memcpy(&id, raw, sizeof(id));
	CHECK_EQ(nvmf_id_ctrl_inline_data_size(&id), 0);
	raw[1792] = 0;                              /* bogus, below the SQE size */
	memcpy(&id, raw, sizeof(id));
	CHECK_EQ(nvmf_id_ctrl_inline_data_size(&id), 0);
}

static void test_id_ns(void)
{
	static uint8_t raw[4096];
	static struct nvme_id_ns ns;

	CHECK_EQ(sizeof(ns), 4096);
	memset(raw, 0, sizeof(raw));
	nvmf_put_le64(raw + 0, 0x200000);           /* NSZE */
	nvmf_put_le64(raw + 8, 0x1f0000);           /* NCAP */
	nvmf_put_le64(raw + 16, 0x100);             /* NUSE */
	raw[24] = 0x04;                             /* NSFEAT */
	raw[25] = 1;                                /* NLBAF: 2 formats */
	raw[26] = 0x01;                             /* FLBAS: format 1 */
	raw[33] = 0x09;                             /* DLFEAT */
	raw[128 + 2] = 9;                           /* LBAF0: 512, no metadata */
	nvmf_put_le16(raw + 132, 8);                /* LBAF1.MS */
	raw[132 + 2] = 12;                          /* LBAF1.LBADS: 4096 */
	raw[132 + 3] = 0x02;                        /* LBAF1.RP */
	memcpy(&ns, raw, sizeof(ns));

	CHECK_EQ(le64toh(ns.nsze), 0x200000);
	CHECK_EQ(le64toh(ns.ncap), 0x1f0000);
	CHECK_EQ(le64toh(ns.nuse), 0x100);
	CHECK_EQ(ns.nsfeat, 4);
	CHECK_EQ(ns.nlbaf, 1);
	CHECK_EQ(ns.dlfeat, 9);
	CHECK_EQ(ns.lbaf[1].rp, 2);
	CHECK_EQ(nvme_id_ns_flbas_index(&ns), 1);
	CHECK_EQ(nvme_id_ns_lba_size(&ns), 4096);
	CHECK_EQ(nvme_id_ns_ms(&ns), 8);
	CHECK_EQ(nvme_id_ns_extended_lba(&ns), 0);

	raw[26] = 0x10;                             /* format 0, extended LBA */
	memcpy(&ns, raw, sizeof(ns));
	CHECK_EQ(nvme_id_ns_flbas_index(&ns), 0);
	CHECK_EQ(nvme_id_ns_lba_size(&ns), 512);
	CHECK_EQ(nvme_id_ns_ms(&ns), 0);
	CHECK_EQ(nvme_id_ns_extended_lba(&ns), 1);

	/* Bits 6:5 are ignored with <= 16 formats ... */
	raw[26] = 0x21;
	memcpy(&ns, raw, sizeof(ns));
	CHECK_EQ(nvme_id_ns_flbas_index(&ns), 1);
	CHECK_EQ(nvme_id_ns_lba_size(&ns), 4096);

	/* ... and are index bits 5:4 with more: 0x21 -> index 0x11 = 17 */
	raw[25] = 17;                               /* 18 formats */
	raw[128 + 17 * 4 + 2] = 13;                 /* LBAF17: 8192 */
	nvmf_put_le16(raw + 128 + 17 * 4, 64);
	memcpy(&ns, raw, sizeof(ns));
	CHECK_EQ(nvme_id_ns_flbas_index(&ns), 17);
	CHECK_EQ(nvme_id_ns_lba_size(&ns), 8192);
	CHECK_EQ(nvme_id_ns_ms(&ns), 64);
	raw[26] = 0x6f;                             /* index 63, the last one */
	raw[128 + 63 * 4 + 2] = 9;
	memcpy(&ns, raw, sizeof(ns));
	CHECK_EQ(nvme_id_ns_flbas_index(&ns), 63);
	CHECK_EQ(nvme_id_ns_lba_size(&ns), 512);

	/* LBADS outside 9..31 -> 0 */
	raw[25] = 1;
	raw[26] = 0x01;
	raw[132 + 2] = 8;
	memcpy(&ns, raw, sizeof(ns));
	CHECK_EQ(nvme_id_ns_lba_size(&ns), 0);
	raw[132 + 2] = 32;
	memcpy(&ns, raw, sizeof(ns));
	CHECK_EQ(nvme_id_ns_lba_size(&ns), 0);
	raw[132 + 2] = 31;
	memcpy(&ns, raw, sizeof(ns));
	CHECK_EQ(nvme_id_ns_lba_size(&ns), 0x80000000u);
}

static void test_registers(void)
{
	const uint64_t cap = 0x000008200f00007full;
	uint64_t cap2;

	CHECK_EQ(nvme_cap_mqes(cap), 127);          /* 0's based: 128 entries */
	CHECK_EQ(nvme_cap_mqes(cap) + 1, 128);
	CHECK_EQ(nvme_cap_cqr(cap), 0);
	CHECK_EQ(nvme_cap_ams(cap), 0);
	CHECK_EQ(nvme_cap_to(cap), 0x0f);           /* 7.5 s */
	CHECK_EQ(nvme_cap_dstrd(cap), 0);
	CHECK_EQ(nvme_cap_css(cap), 0x41);          /* NVM (bit 37) + bit 43 */
	CHECK_EQ(nvme_cap_css(cap) & 1, 1);
	CHECK_EQ(nvme_cap_mpsmin(cap), 0);
	CHECK_EQ(nvme_cap_mpsmax(cap), 0);

	/* CQR bit 16, AMS 18:17, DSTRD 35:32, MPSMIN 51:48, MPSMAX 55:52 */
	cap2 = (1ull << 16) | (3ull << 17) | (0xaull << 32) | (0x2ull << 48) | (0x5ull << 52);
	CHECK_EQ(nvme_cap_cqr(cap2), 1);
	CHECK_EQ(nvme_cap_ams(cap2), 3);
	CHECK_EQ(nvme_cap_dstrd(cap2), 0xa);
	CHECK_EQ(nvme_cap_mpsmin(cap2), 2);
	CHECK_EQ(nvme_cap_mpsmax(cap2), 5);
	CHECK_EQ(nvme_cap_mqes(cap2), 0);
	CHECK_EQ(nvme_cap_to(cap2), 0);

	CHECK_EQ(nvme_vs_mjr(0x00020001), 2);
	CHECK_EQ(nvme_vs_mnr(0x00020001), 0);
	CHECK_EQ(nvme_vs_ter(0x00020001), 1);
	CHECK_EQ(nvme_vs_mnr(0x00010300), 3);

	CHECK_EQ(nvme_cc_build(1, 0, 0, 0, 0, 6, 4), 0x00460001);
	CHECK_EQ(nvme_cc_build(0, 0, 0, 0, NVME_CC_SHN_NORMAL, 6, 4), 0x00464000);
	CHECK_EQ(nvme_cc_build(1, 0, 0, 0, NVME_CC_SHN_ABRUPT, 6, 4), 0x00468001);
	CHECK_EQ(nvme_cc_build(0, 7, 0, 0, 0, 0, 0), 0x70);
	CHECK_EQ(nvme_cc_build(0, 0, 0xf, 0, 0, 0, 0), 0x780);
	CHECK_EQ(nvme_cc_build(0, 0, 0, 7, 0, 0, 0), 0x3800);
	CHECK_EQ(nvme_cc_en(0x00460001), 1);
	CHECK_EQ(nvme_cc_en(0x00464000), 0);
	CHECK_EQ(nvme_cc_shn(0x00464000), NVME_CC_SHN_NORMAL);
	CHECK_EQ(nvme_cc_shn(0x00468001), NVME_CC_SHN_ABRUPT);
	CHECK_EQ(nvme_cc_iosqes(0x00460001), 6);
	CHECK_EQ(nvme_cc_iocqes(0x00460001), 4);

	CHECK_EQ(nvme_csts_rdy(0x1), 1);
	CHECK_EQ(nvme_csts_rdy(0x2), 0);
	CHECK_EQ(nvme_csts_cfs(0x2), 1);
	CHECK_EQ(nvme_csts_shst(0x0), NVME_CSTS_SHST_NORMAL);
	CHECK_EQ(nvme_csts_shst(0x4), NVME_CSTS_SHST_OCCURRING);
	CHECK_EQ(nvme_csts_shst(0x8), NVME_CSTS_SHST_COMPLETE);
	CHECK_EQ(nvme_csts_shst(0x9), NVME_CSTS_SHST_COMPLETE);
	CHECK_EQ(nvme_csts_pp(0x20), 1);
	CHECK_EQ(nvme_csts_pp(0x10), 0);

	CHECK_EQ(NVME_REG_CAP, 0x00);
	CHECK_EQ(NVME_REG_VS, 0x08);
	CHECK_EQ(NVME_REG_CC, 0x14);
	CHECK_EQ(NVME_REG_CSTS, 0x1c);
}

static void test_status_names(void)
{
	char buf[128];
	int n;

	CHECK_STR(nvme_status_name(0, 0x00, 0), "Successful Completion");
	CHECK_STR(nvme_status_name(0, 0x01, 0), "Invalid Command Opcode");
	CHECK_STR(nvme_status_name(0, 0x02, 0), "Invalid Field in Command");
	CHECK_STR(nvme_status_name(0, 0x03, 0), "Command ID Conflict");
	CHECK_STR(nvme_status_name(0, 0x04, 0), "Data Transfer Error");
	CHECK_STR(nvme_status_name(0, 0x05, 0), "Commands Aborted due to Power Loss Notification");
	CHECK_STR(nvme_status_name(0, 0x06, 0), "Internal Error");
	CHECK_STR(nvme_status_name(0, 0x07, 0), "Command Abort Requested");
	CHECK_STR(nvme_status_name(0, 0x08, 0), "Command Aborted due to SQ Deletion");
	CHECK_STR(nvme_status_name(0, 0x09, 0), "Command Aborted due to Failed Fused Command");
	CHECK_STR(nvme_status_name(0, 0x0a, 0), "Command Aborted due to Missing Fused Command");
	CHECK_STR(nvme_status_name(0, 0x0b, 0), "Invalid Namespace or Format");
	CHECK_STR(nvme_status_name(0, 0x0c, 0), "Command Sequence Error");
	CHECK_STR(nvme_status_name(0, 0x0d, 0), "Invalid SGL Segment Descriptor");
	CHECK_STR(nvme_status_name(0, 0x0e, 0), "Invalid Number of SGL Descriptors");
	CHECK_STR(nvme_status_name(0, 0x0f, 0), "Data SGL Length Invalid");
	CHECK_STR(nvme_status_name(0, 0x10, 0), "Metadata SGL Length Invalid");
	CHECK_STR(nvme_status_name(0, 0x11, 0), "SGL Descriptor Type Invalid");
	CHECK_STR(nvme_status_name(0, 0x12, 0), "Invalid Use of Controller Memory Buffer");
	CHECK_STR(nvme_status_name(0, 0x13, 0), "PRP Offset Invalid");
	CHECK_STR(nvme_status_name(0, 0x14, 0), "Atomic Write Unit Exceeded");
	CHECK_STR(nvme_status_name(0, 0x15, 0), "Operation Denied");
	CHECK_STR(nvme_status_name(0, 0x16, 0), "SGL Offset Invalid");
	CHECK_STR(nvme_status_name(0, 0x17, 0), "Unknown status");
	CHECK_STR(nvme_status_name(0, 0x18, 0), "Host Identifier Inconsistent Format");
	CHECK_STR(nvme_status_name(0, 0x19, 0), "Keep Alive Timer Expired");
	CHECK_STR(nvme_status_name(0, 0x1a, 0), "Keep Alive Timeout Invalid");
	CHECK_STR(nvme_status_name(0, 0x1b, 0), "Command Aborted due to Preempt and Abort");
	CHECK_STR(nvme_status_name(0, 0x1c, 0), "Sanitize Failed");
	CHECK_STR(nvme_status_name(0, 0x1d, 0), "Sanitize In Progress");
	CHECK_STR(nvme_status_name(0, 0x1e, 0), "SGL Data Block Granularity Invalid");
	CHECK_STR(nvme_status_name(0, 0x1f, 0), "Command Not Supported for Queue in CMB");
	CHECK_STR(nvme_status_name(0, 0x22, 0), "Transient Transport Error");
	CHECK_STR(nvme_status_name(0, 0x80, 0), "LBA Out of Range");
	CHECK_STR(nvme_status_name(0, 0x80, 1), "LBA Out of Range"); /* generic: no fabrics meaning */
	CHECK_STR(nvme_status_name(0, 0x81, 0), "Capacity Exceeded");
	CHECK_STR(nvme_status_name(0, 0x82, 0), "Namespace Not Ready");
	CHECK_STR(nvme_status_name(0, 0x83, 0), "Reservation Conflict");
	CHECK_STR(nvme_status_name(0, 0x84, 0), "Format In Progress");
	CHECK_STR(nvme_status_name(0, 0xff, 0), "Unknown status");

	CHECK_STR(nvme_status_name(1, 0x00, 0), "Completion Queue Invalid");
	CHECK_STR(nvme_status_name(1, 0x01, 0), "Invalid Queue Identifier");
	CHECK_STR(nvme_status_name(1, 0x02, 0), "Invalid Queue Size");
	CHECK_STR(nvme_status_name(1, 0x03, 0), "Abort Command Limit Exceeded");
	CHECK_STR(nvme_status_name(1, 0x04, 0), "Unknown status");
	CHECK_STR(nvme_status_name(1, 0x05, 0), "Asynchronous Event Request Limit Exceeded");
	CHECK_STR(nvme_status_name(1, 0x06, 0), "Invalid Firmware Slot");
	CHECK_STR(nvme_status_name(1, 0x07, 0), "Invalid Firmware Image");
	CHECK_STR(nvme_status_name(1, 0x08, 0), "Invalid Interrupt Vector");
	CHECK_STR(nvme_status_name(1, 0x09, 0), "Invalid Log Page");
	CHECK_STR(nvme_status_name(1, 0x0a, 0), "Invalid Format");
	CHECK_STR(nvme_status_name(1, 0x0b, 0), "Firmware Activation Requires Conventional Reset");
	CHECK_STR(nvme_status_name(1, 0x02, 1), "Invalid Queue Size"); /* < 0x80 shared */
	CHECK_STR(nvme_status_name(1, 0x80, 0), "Conflicting Attributes");
	CHECK_STR(nvme_status_name(1, 0x81, 0), "Invalid Protection Information");
	CHECK_STR(nvme_status_name(1, 0x82, 0), "Attempted Write to Read Only Range");
	CHECK_STR(nvme_status_name(1, 0x80, 1), "Incompatible Format");
	CHECK_STR(nvme_status_name(1, 0x81, 1), "Controller Busy");
	CHECK_STR(nvme_status_name(1, 0x82, 1), "Connect Invalid Parameters");
	CHECK_STR(nvme_status_name(1, 0x83, 1), "Connect Restart Discovery");
	CHECK_STR(nvme_status_name(1, 0x84, 1), "Connect Invalid Host");
	CHECK_STR(nvme_status_name(1, 0x85, 1), "Invalid Queue Type");
	CHECK_STR(nvme_status_name(1, 0x90, 1), "Discover Restart");
	CHECK_STR(nvme_status_name(1, 0x91, 1), "Authentication Required");
	CHECK_STR(nvme_status_name(1, 0x86, 1), "Unknown status");
	CHECK_STR(nvme_status_name(1, 0x90, 0), "Unknown status");

	CHECK_STR(nvme_status_name(2, 0x80, 0), "Write Fault");
	CHECK_STR(nvme_status_name(2, 0x81, 0), "Unrecovered Read Error");
	CHECK_STR(nvme_status_name(2, 0x82, 0), "End-to-end Guard Check Error");
	CHECK_STR(nvme_status_name(2, 0x83, 0), "End-to-end Application Tag Check Error");
	CHECK_STR(nvme_status_name(2, 0x84, 0), "End-to-end Reference Tag Check Error");
	CHECK_STR(nvme_status_name(2, 0x85, 0), "Compare Failure");
	CHECK_STR(nvme_status_name(2, 0x86, 0), "Access Denied");
	CHECK_STR(nvme_status_name(2, 0x87, 0), "Deallocated or Unwritten Logical Block");
	CHECK_STR(nvme_status_name(2, 0x00, 0), "Unknown status");

	CHECK_STR(nvme_status_name(3, 0x00, 0), "Internal Path Error");
	/* NVMe Base 2.0, Path Related Status Values: 01h-03h ANA, 60h, 70h, 71h */
	CHECK_STR(nvme_status_name(3, 0x01, 0), "Asymmetric Access Persistent Loss");
	CHECK_STR(nvme_status_name(3, 0x02, 0), "Asymmetric Access Inaccessible");
	CHECK_STR(nvme_status_name(3, 0x03, 0), "Asymmetric Access Transition");
	CHECK_STR(nvme_status_name(3, 0x60, 0), "Controller Pathing Error");
	CHECK_STR(nvme_status_name(3, 0x70, 0), "Host Pathing Error");
	CHECK_STR(nvme_status_name(3, 0x71, 0), "Command Aborted By Host");
	CHECK_STR(nvme_status_name(3, 0x04, 0), "Unknown status");

	CHECK_STR(nvme_status_name(7, 0x00, 0), "Vendor Specific");
	CHECK_STR(nvme_status_name(7, 0xc3, 1), "Vendor Specific");
	CHECK_STR(nvme_status_name(4, 0x00, 0), "Unknown status");
	CHECK_STR(nvme_status_name(6, 0x80, 0), "Unknown status");
	CHECK_STR(nvme_status_name(8, 0x00, 0), "Unknown status");
	CHECK_STR(nvme_status_name(0, 0x100, 0), "Unknown status");

	n = nvme_status_format(buf, sizeof(buf), 0x0080, 0);
	CHECK_STR(buf, "NVMe status 0x0/0x80: LBA Out of Range");
	CHECK_EQ(n, strlen("NVMe status 0x0/0x80: LBA Out of Range"));
	nvme_status_format(buf, sizeof(buf), 0x0182, 1);
	CHECK_STR(buf, "NVMe status 0x1/0x82: Connect Invalid Parameters");
	nvme_status_format(buf, sizeof(buf), 0x0002, 0);
	CHECK_STR(buf, "NVMe status 0x0/0x02: Invalid Field in Command");
	nvme_status_format(buf, sizeof(buf), nvme_status_code(0x8101), 0);
	CHECK_STR(buf, "NVMe status 0x0/0x80: LBA Out of Range");
	nvme_status_format(buf, sizeof(buf), 0x0281, 0);
	CHECK_STR(buf, "NVMe status 0x2/0x81: Unrecovered Read Error");
	/* truncation behaves like snprintf */
	n = nvme_status_format(buf, 12, 0x0080, 0);
	CHECK_STR(buf, "NVMe status");
	CHECK_EQ(n, strlen("NVMe status 0x0/0x80: LBA Out of Range"));

	CHECK_STR(nvme_opcode_name(NVME_CMD_READ, 0), "Read");
	CHECK_STR(nvme_opcode_name(NVME_CMD_WRITE, 0), "Write");
	CHECK_STR(nvme_opcode_name(NVME_CMD_FLUSH, 0), "Flush");
	CHECK_STR(nvme_opcode_name(NVME_CMD_DSM, 0), "Dataset Management");
	CHECK_STR(nvme_opcode_name(NVME_ADMIN_IDENTIFY, 1), "Identify");
	CHECK_STR(nvme_opcode_name(NVME_ADMIN_KEEP_ALIVE, 1), "Keep Alive");
	CHECK_STR(nvme_opcode_name(NVME_FABRICS_OPC, 1), "Fabrics");
	CHECK_STR(nvme_opcode_name(NVME_FABRICS_OPC, 0), "Fabrics");
	CHECK_STR(nvme_opcode_name(0x18, 0), "Unknown");
	CHECK_STR(nvme_opcode_name(0x01, 1), "Unknown");
	CHECK_STR(nvme_opcode_name(0xee, 1), "Unknown");
	CHECK_STR(nvme_opcode_name(0xee, 0), "Unknown");
}

/* The constants the rest of the library is written against. */
static void test_constants(void)
{
	CHECK_EQ(NVME_SQE_SIZE, 64);
	CHECK_EQ(NVME_CQE_SIZE, 16);
	CHECK_EQ(sizeof(struct nvme_sqe), 64);
	CHECK_EQ(sizeof(struct nvme_sgl_desc), 16);
	CHECK_EQ(sizeof(struct nvmf_connect_cmd), 64);
	CHECK_EQ(sizeof(struct nvmf_prop_get_cmd), 64);
	CHECK_EQ(sizeof(struct nvmf_prop_set_cmd), 64);
	CHECK_EQ(sizeof(struct nvme_lbaf), 4);
	CHECK_EQ(NVME_ADMIN_IDENTIFY, 0x06);
	CHECK_EQ(NVME_ADMIN_KEEP_ALIVE, 0x18);
	CHECK_EQ(NVME_FABRICS_OPC, 0x7f);
	CHECK_EQ(NVME_CMD_FLUSH, 0x00);
	CHECK_EQ(NVME_CMD_WRITE, 0x01);
	CHECK_EQ(NVME_CMD_READ, 0x02);
	CHECK_EQ(NVME_CMD_DSM, 0x09);
	CHECK_EQ(NVMF_FCTYPE_PROP_SET, 0x00);
	CHECK_EQ(NVMF_FCTYPE_CONNECT, 0x01);
	CHECK_EQ(NVMF_FCTYPE_PROP_GET, 0x04);
	CHECK_EQ(NVME_CMD_FLAGS_PSDT_SGL, 0x40);
	CHECK_EQ(NVME_SGL_TYPE_KEYED_ADDR, 0x40);
	CHECK_EQ(NVME_SGL_TYPE_INLINE_OFFSET, 0x01);
	CHECK_EQ(NVME_IDENTIFY_CNS_NS, 0x00);
	CHECK_EQ(NVME_IDENTIFY_CNS_CTRL, 0x01);
	CHECK_EQ(NVMF_CONNECT_DATA_SIZE, 1024);
	CHECK_EQ(NVMF_NQN_MAX, 223);
	CHECK_EQ(NVME_IDENTIFY_SIZE, 4096);
	CHECK_EQ(NVME_DSM_ATTR_DEALLOCATE, 4);
	CHECK_EQ(NVME_CC_SHN_NORMAL, 1);
	CHECK_EQ(NVME_CC_SHN_ABRUPT, 2);
}

int main(void)
{
	test_constants();
	test_le_helpers();
	test_write_keyed();
	test_sgl_inline_none();
	test_rw_sgl_one_pass();
	test_flush_keepalive_identify();
	test_dsm();
	test_connect();
	test_connect_data();
	test_property();
	test_cqe();
	test_rdma_cm();
	test_id_ctrl();
	test_id_ns();
	test_registers();
	test_status_names();
	return check_done("test_spec");
}
