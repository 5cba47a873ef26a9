/* nvmf_spec.h - NVMe / NVMe-oF / NVMe-oF RDMA wire formats.
 *
 * Everything the initiator puts on or reads off the wire: SQE/CQE layouts,
 * Fabrics command overlays, Connect data, RDMA CM private data, Identify
 * data, register field accessors and SQE builders.
 *
 * Conventions: every multi-byte field is little-endian on the wire; struct
 * fields hold wire (LE) values, so write them with htole*() and read them
 * with le*toh().  Sizes and offsets come from the NVM Express Base, NVMe over
 * Fabrics and NVMe-oF RDMA Transport specifications and are pinned with
 * _Static_assert so a layout mistake breaks the build instead of the wire.
 */
#ifndef NVMF_SPEC_H
#define NVMF_SPEC_H

#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define NVMF_SPEC_ASSERT_SIZE(type, size) \
	_Static_assert(sizeof(type) == (size), "sizeof(" #type ") != " #size)
#define NVMF_SPEC_ASSERT_OFF(type, field, off) \
	_Static_assert(offsetof(type, field) == (off), #type "." #field " not at " #off)

/* ------------------------------------------------------------------------ */
/* Byte-wise little-endian helpers: alignment- and host-order independent.   */

static inline void nvmf_put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

/* 24-bit: the keyed SGL length field is 3 bytes. Bits above 23 are dropped. */
static inline void nvmf_put_le24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
}

static inline void nvmf_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline void nvmf_put_le64(uint8_t *p, uint64_t v)
{
	nvmf_put_le32(p, (uint32_t)v);
	nvmf_put_le32(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t nvmf_get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t nvmf_get_le24(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16);
}

static inline uint32_t nvmf_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}

static inline uint64_t nvmf_get_le64(const uint8_t *p)
{
	return (uint64_t)nvmf_get_le32(p) | ((uint64_t)nvmf_get_le32(p + 4) << 32);
}

/* ------------------------------------------------------------------------ */
/* Constants                                                                  */

#define NVME_SQE_SIZE 64
#define NVME_CQE_SIZE 16

/* Admin opcodes */
#define NVME_ADMIN_GET_LOG_PAGE 0x02
#define NVME_ADMIN_IDENTIFY     0x06
#define NVME_ADMIN_ABORT        0x08
#define NVME_ADMIN_SET_FEATURES 0x09
#define NVME_ADMIN_GET_FEATURES 0x0a
#define NVME_ADMIN_ASYNC_EVENT  0x0c
#define NVME_ADMIN_KEEP_ALIVE   0x18
/* Fabrics commands use one opcode on admin and I/O queues; fctype selects. */
#define NVME_FABRICS_OPC        0x7f

/* NVM command set I/O opcodes */
#define NVME_CMD_FLUSH        0x00
#define NVME_CMD_WRITE        0x01
#define NVME_CMD_READ         0x02
#define NVME_CMD_COMPARE      0x05
#define NVME_CMD_WRITE_ZEROES 0x08
#define NVME_CMD_DSM          0x09

/* Fabrics command types (SQE byte 4) */
#define NVMF_FCTYPE_PROP_SET 0x00
#define NVMF_FCTYPE_CONNECT  0x01
#define NVMF_FCTYPE_PROP_GET 0x04
#define NVMF_FCTYPE_AUTH_SEND 0x05 /* in-band authentication (TP 8006): host to controller */
#define NVMF_FCTYPE_AUTH_RECV 0x06 /* controller to host */

/* SQE byte 1: FUSE bits 1:0, PSDT bits 7:6.  PSDT=01b means SGL for data and
 * an MPTR that is a plain buffer address; NVMe-oF requires SGLs, and nvmet
 * rejects any other PSDT value (including for Fabrics commands). */
#define NVME_CMD_FLAGS_PSDT_SGL  0x40
#define NVME_CMD_FLAGS_PSDT_MASK 0xc0

/* SGL descriptor identifier (byte 15): type bits 7:4, subtype bits 3:0. */
#define NVME_SGL_TYPE_KEYED_ADDR    0x40 /* keyed data block, address; not 0x4f (invalidate key) */
#define NVME_SGL_TYPE_INLINE_OFFSET 0x01 /* data block, offset into in-capsule data */
#define NVME_SGL_KEYED_MAX_LEN      0xffffffu /* 24-bit length field */

/* Identify CNS (CDW10 bits 7:0) */
#define NVME_IDENTIFY_CNS_NS   0x00
#define NVME_IDENTIFY_CNS_CTRL 0x01
#define NVME_IDENTIFY_SIZE     4096

/* Log pages (Get Log Page CDW10 LID) */
#define NVME_LOG_ANA       0x0c /* Asymmetric Namespace Access */
#define NVME_LOG_DISCOVERY 0x70 /* NVMe-oF discovery log (discovery controllers only) */
#define NVME_ANA_LSP_RGO   0x01 /* ANA log LSP bit 0: return groups only, no NSID lists */

/* Controller register offsets (Property Get/Set OFST) */
#define NVME_REG_CAP  0x00 /* 8 bytes */
#define NVME_REG_VS   0x08
#define NVME_REG_CC   0x14
#define NVME_REG_CSTS 0x1c

/* Connect */
#define NVMF_CONNECT_DATA_SIZE 1024
#define NVMF_NQN_MAX           223 /* characters, excluding the NUL */
#define NVMF_NQN_FIELD_SIZE    256
#define NVMF_CNTLID_DYNAMIC    0xffff /* admin Connect: "any controller" (dynamic model) */
#define NVMF_DISCOVERY_NQN     "nqn.2014-08.org.nvmexpress.discovery"

/* Read/Write: NLB is a 16-bit 0's based field. */
#define NVME_RW_MAX_NLB 65536u

/* Dataset Management */
#define NVME_DSM_ATTR_DEALLOCATE (1u << 2) /* CDW11 AD */
#define NVME_DSM_MAX_RANGES      256u      /* CDW10 NR is 8-bit, 0's based */

/* CC.SHN and CSTS.SHST */
#define NVME_CC_SHN_NONE           0
#define NVME_CC_SHN_NORMAL         1
#define NVME_CC_SHN_ABRUPT         2
#define NVME_CSTS_SHST_NORMAL      0
#define NVME_CSTS_SHST_OCCURRING   1
#define NVME_CSTS_SHST_COMPLETE    2

/* Status code types */
#define NVME_SCT_GENERIC        0
#define NVME_SCT_CMD_SPECIFIC   1
#define NVME_SCT_MEDIA          2
#define NVME_SCT_PATH           3
#define NVME_SCT_VENDOR         7

/* Generic command status (Status Code Type 0h) */
#define NVME_SC_DATA_XFER_ERROR      0x04

/* Path related status codes (Status Code Type 3h) */
#define NVME_SC_INTERNAL_PATH_ERROR  0x00
#define NVME_SC_ANA_PERSISTENT_LOSS  0x01
#define NVME_SC_ANA_INACCESSIBLE     0x02
#define NVME_SC_ANA_TRANSITION       0x03
#define NVME_SC_CTRL_PATH_ERROR      0x60
#define NVME_SC_HOST_PATH_ERROR      0x70
#define NVME_SC_HOST_ABORTED_CMD     0x71

/* Identify Controller CMIC: bit 3, the controller reports ANA */
#define NVME_ID_CTRL_CMIC_ANA      (1u << 3)


/* Identify Controller bits the initiator looks at */
#define NVME_ID_CTRL_ONCS_DSM      (1u << 2)
#define NVME_ID_CTRL_VWC_PRESENT   (1u << 0)
#define NVME_ID_CTRL_SGLS_SUPPORT  0x3u       /* bits 1:0: 0 = SGLs not supported */
#define NVME_ID_CTRL_SGLS_KEYED    (1u << 2)
#define NVME_ID_CTRL_SGLS_OFFSET   (1u << 20) /* data block address may be an offset */
#define NVME_ID_CTRL_FCATT_STATIC  (1u << 0)  /* 0 = dynamic controller model */

/* ------------------------------------------------------------------------ */
/* SGL descriptor (16 bytes)                                                  */

struct nvme_sgl_desc {
	uint64_t addr; /* keyed: remote address; in-capsule: offset */
	union {
		/* keyed data block: 24-bit length then a 4-byte key, both unaligned */
		struct {
			uint8_t length[3];
			uint8_t key[4];
		};
		/* (unkeyed) data block: 32-bit length; packed so the union stays 7
		 * bytes instead of being padded to 8 by the uint32_t alignment */
		struct __attribute__((packed)) {
			uint32_t data_len;
			uint8_t rsvd12[3];
		};
	};
	uint8_t type; /* identifier: type 7:4, subtype 3:0 */
};
NVMF_SPEC_ASSERT_SIZE(struct nvme_sgl_desc, 16);
NVMF_SPEC_ASSERT_OFF(struct nvme_sgl_desc, addr, 0);
NVMF_SPEC_ASSERT_OFF(struct nvme_sgl_desc, length, 8);
NVMF_SPEC_ASSERT_OFF(struct nvme_sgl_desc, key, 11);
NVMF_SPEC_ASSERT_OFF(struct nvme_sgl_desc, data_len, 8);
NVMF_SPEC_ASSERT_OFF(struct nvme_sgl_desc, rsvd12, 12);
NVMF_SPEC_ASSERT_OFF(struct nvme_sgl_desc, type, 15);

/* ------------------------------------------------------------------------ */
/* Fabrics command overlays (64 bytes each)                                   */

struct nvmf_connect_cmd {
	uint8_t opcode;   /* 0x7f */
	uint8_t rsvd1;    /* FUSE/PSDT position in a normal SQE */
	uint16_t cid;
	uint8_t fctype;   /* 0x01 */
	uint8_t rsvd5[19];
	struct nvme_sgl_desc sgl1; /* points at the 1024-byte Connect data */
	uint16_t recfmt;  /* 0 */
	uint16_t qid;     /* 0 = admin queue */
	uint16_t sqsize;  /* 0's based */
	uint8_t cattr;
	uint8_t rsvd47;
	uint32_t kato;    /* ms; only meaningful for the admin queue */
	uint8_t rsvd52[12];
};
NVMF_SPEC_ASSERT_SIZE(struct nvmf_connect_cmd, 64);
NVMF_SPEC_ASSERT_OFF(struct nvmf_connect_cmd, opcode, 0);
NVMF_SPEC_ASSERT_OFF(struct nvmf_connect_cmd, rsvd1, 1);
NVMF_SPEC_ASSERT_OFF(struct nvmf_connect_cmd, cid, 2);
NVMF_SPEC_ASSERT_OFF(struct nvmf_connect_cmd, fctype, 4);
NVMF_SPEC_ASSERT_OFF(struct nvmf_connect_cmd, sgl1, 24);
NVMF_SPEC_ASSERT_OFF(struct nvmf_connect_cmd, recfmt, 40);
NVMF_SPEC_ASSERT_OFF(struct nvmf_connect_cmd, qid, 42);
NVMF_SPEC_ASSERT_OFF(struct nvmf_connect_cmd, sqsize, 44);
NVMF_SPEC_ASSERT_OFF(struct nvmf_connect_cmd, cattr, 46);
NVMF_SPEC_ASSERT_OFF(struct nvmf_connect_cmd, rsvd47, 47);
NVMF_SPEC_ASSERT_OFF(struct nvmf_connect_cmd, kato, 48);
NVMF_SPEC_ASSERT_OFF(struct nvmf_connect_cmd, rsvd52, 52);

struct nvmf_prop_get_cmd {
	uint8_t opcode;   /* 0x7f */
	uint8_t rsvd1;
	uint16_t cid;
	uint8_t fctype;   /* 0x04 */
	uint8_t rsvd5[35];
	uint8_t attrib;   /* bits 2:0 size: 0 = 4 bytes, 1 = 8 bytes */
	uint8_t rsvd41[3];
	uint32_t ofst;    /* register offset */
	uint8_t rsvd48[16];
};
NVMF_SPEC_ASSERT_SIZE(struct nvmf_prop_get_cmd, 64);
NVMF_SPEC_ASSERT_OFF(struct nvmf_prop_get_cmd, cid, 2);
NVMF_SPEC_ASSERT_OFF(struct nvmf_prop_get_cmd, fctype, 4);
NVMF_SPEC_ASSERT_OFF(struct nvmf_prop_get_cmd, attrib, 40);
NVMF_SPEC_ASSERT_OFF(struct nvmf_prop_get_cmd, ofst, 44);
NVMF_SPEC_ASSERT_OFF(struct nvmf_prop_get_cmd, rsvd48, 48);

struct nvmf_prop_set_cmd {
	uint8_t opcode;   /* 0x7f */
	uint8_t rsvd1;
	uint16_t cid;
	uint8_t fctype;   /* 0x00 */
	uint8_t rsvd5[35];
	uint8_t attrib;   /* bits 2:0 size: 0 = 4 bytes, 1 = 8 bytes */
	uint8_t rsvd41[3];
	uint32_t ofst;
	uint64_t value;   /* only the low 4 bytes are used for 4-byte properties */
	uint8_t rsvd56[8];
};
NVMF_SPEC_ASSERT_SIZE(struct nvmf_prop_set_cmd, 64);
NVMF_SPEC_ASSERT_OFF(struct nvmf_prop_set_cmd, cid, 2);
NVMF_SPEC_ASSERT_OFF(struct nvmf_prop_set_cmd, fctype, 4);
NVMF_SPEC_ASSERT_OFF(struct nvmf_prop_set_cmd, attrib, 40);
NVMF_SPEC_ASSERT_OFF(struct nvmf_prop_set_cmd, ofst, 44);
NVMF_SPEC_ASSERT_OFF(struct nvmf_prop_set_cmd, value, 48);
NVMF_SPEC_ASSERT_OFF(struct nvmf_prop_set_cmd, rsvd56, 56);

/* Authentication Send (fctype 05h) and Receive (06h): SECP E9h (NVMe), SPSP0 = SPSP1 = 01h
 * (DH-HMAC-CHAP), TL (Send: bytes sent) or AL (Receive: bytes the host takes) in CDW11. */
#define NVMF_AUTH_SECP 0xe9
#define NVMF_AUTH_SPSP 0x01
struct nvmf_auth_cmd {
	uint8_t opcode;   /* 0x7f */
	uint8_t rsvd1;
	uint16_t cid;
	uint8_t fctype;   /* 0x05 send, 0x06 receive */
	uint8_t rsvd5[19];
	struct nvme_sgl_desc sgl1;
	uint8_t rsvd40;
	uint8_t spsp0;
	uint8_t spsp1;
	uint8_t secp;
	uint32_t len;     /* TL (send) / AL (receive) */
	uint8_t rsvd48[16];
};
NVMF_SPEC_ASSERT_SIZE(struct nvmf_auth_cmd, 64);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_cmd, cid, 2);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_cmd, fctype, 4);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_cmd, sgl1, 24);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_cmd, rsvd40, 40);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_cmd, spsp0, 41);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_cmd, spsp1, 42);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_cmd, secp, 43);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_cmd, len, 44);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_cmd, rsvd48, 48);

/* ------------------------------------------------------------------------ */
/* Submission queue entry (64 bytes)                                          */

/* The Fabrics overlays live in a union with the common layout so builders can
 * write either view of the same object without breaking strict aliasing. */
struct nvme_sqe {
	union {
		struct {
			uint8_t opcode;
			uint8_t flags; /* FUSE 1:0, PSDT 7:6 */
			uint16_t cid;
			uint32_t nsid;
			uint32_t cdw2;
			uint32_t cdw3;
			uint64_t mptr;
			struct nvme_sgl_desc dptr;
			uint32_t cdw10;
			uint32_t cdw11;
			uint32_t cdw12;
			uint32_t cdw13;
			uint32_t cdw14;
			uint32_t cdw15;
		};
		struct nvmf_connect_cmd connect;
		struct nvmf_prop_get_cmd prop_get;
		struct nvmf_prop_set_cmd prop_set;
		struct nvmf_auth_cmd auth;
		uint8_t bytes[NVME_SQE_SIZE];
	};
};
NVMF_SPEC_ASSERT_SIZE(struct nvme_sqe, NVME_SQE_SIZE);
NVMF_SPEC_ASSERT_OFF(struct nvme_sqe, opcode, 0);
NVMF_SPEC_ASSERT_OFF(struct nvme_sqe, flags, 1);
NVMF_SPEC_ASSERT_OFF(struct nvme_sqe, cid, 2);
NVMF_SPEC_ASSERT_OFF(struct nvme_sqe, nsid, 4);
NVMF_SPEC_ASSERT_OFF(struct nvme_sqe, cdw2, 8);
NVMF_SPEC_ASSERT_OFF(struct nvme_sqe, cdw3, 12);
NVMF_SPEC_ASSERT_OFF(struct nvme_sqe, mptr, 16);
NVMF_SPEC_ASSERT_OFF(struct nvme_sqe, dptr, 24);
NVMF_SPEC_ASSERT_OFF(struct nvme_sqe, cdw10, 40);
NVMF_SPEC_ASSERT_OFF(struct nvme_sqe, cdw11, 44);
NVMF_SPEC_ASSERT_OFF(struct nvme_sqe, cdw12, 48);
NVMF_SPEC_ASSERT_OFF(struct nvme_sqe, cdw13, 52);
NVMF_SPEC_ASSERT_OFF(struct nvme_sqe, cdw14, 56);
NVMF_SPEC_ASSERT_OFF(struct nvme_sqe, cdw15, 60);
NVMF_SPEC_ASSERT_OFF(struct nvme_sqe, connect, 0);
NVMF_SPEC_ASSERT_OFF(struct nvme_sqe, prop_get, 0);
NVMF_SPEC_ASSERT_OFF(struct nvme_sqe, prop_set, 0);
NVMF_SPEC_ASSERT_OFF(struct nvme_sqe, auth, 0);

/* ------------------------------------------------------------------------ */
/* Completion queue entry (16 bytes)                                          */

struct nvme_cqe {
	union {
		uint64_t result; /* Property Get returns an 8-byte value here */
		struct {
			uint32_t dw0;
			uint32_t dw1;
		};
	};
	uint16_t sqhd;
	uint16_t sqid;
	uint16_t cid;
	uint16_t status; /* bit 0 phase, 8:1 SC, 11:9 SCT, 13:12 CRD, 14 M, 15 DNR */
};
NVMF_SPEC_ASSERT_SIZE(struct nvme_cqe, NVME_CQE_SIZE);
NVMF_SPEC_ASSERT_OFF(struct nvme_cqe, result, 0);
NVMF_SPEC_ASSERT_OFF(struct nvme_cqe, dw0, 0);
NVMF_SPEC_ASSERT_OFF(struct nvme_cqe, dw1, 4);
NVMF_SPEC_ASSERT_OFF(struct nvme_cqe, sqhd, 8);
NVMF_SPEC_ASSERT_OFF(struct nvme_cqe, sqid, 10);
NVMF_SPEC_ASSERT_OFF(struct nvme_cqe, cid, 12);
NVMF_SPEC_ASSERT_OFF(struct nvme_cqe, status, 14);

/* Status field accessors on the raw 16-bit status word, host order. */
static inline unsigned nvme_status_phase(uint16_t st) { return st & 1u; }
static inline unsigned nvme_status_sc(uint16_t st) { return (st >> 1) & 0xffu; }
static inline unsigned nvme_status_sct(uint16_t st) { return (st >> 9) & 0x7u; }
static inline unsigned nvme_status_crd(uint16_t st) { return (st >> 12) & 0x3u; }
static inline unsigned nvme_status_more(uint16_t st) { return (st >> 14) & 1u; }
static inline unsigned nvme_status_dnr(uint16_t st) { return (st >> 15) & 1u; }
/* (SCT << 8) | SC: 0 means success; phase, CRD, M and DNR are dropped. */
static inline uint16_t nvme_status_code(uint16_t st)
{
	return (uint16_t)((nvme_status_sct(st) << 8) | nvme_status_sc(st));
}

/* Connect response DW0: CNTLID on success; on Connect Invalid Parameters,
 * IPO (bytes 1:0, offset of the bad field) and IATTR (byte 2, bit 0 set: the
 * offset is into the Connect data rather than the SQE). */
static inline uint16_t nvmf_connect_rsp_cntlid(uint32_t dw0) { return (uint16_t)dw0; }
static inline uint16_t nvmf_connect_rsp_ipo(uint32_t dw0) { return (uint16_t)dw0; }
static inline uint8_t nvmf_connect_rsp_iattr(uint32_t dw0) { return (uint8_t)(dw0 >> 16); }

/* ------------------------------------------------------------------------ */
/* Connect data (1024 bytes)                                                  */

struct nvmf_connect_data {
	uint8_t hostid[16];
	uint16_t cntlid;
	uint8_t rsvd18[238];
	char subnqn[NVMF_NQN_FIELD_SIZE];  /* NUL-terminated UTF-8 */
	char hostnqn[NVMF_NQN_FIELD_SIZE];
	uint8_t rsvd768[256];
};
NVMF_SPEC_ASSERT_SIZE(struct nvmf_connect_data, NVMF_CONNECT_DATA_SIZE);
NVMF_SPEC_ASSERT_OFF(struct nvmf_connect_data, hostid, 0);
NVMF_SPEC_ASSERT_OFF(struct nvmf_connect_data, cntlid, 16);
NVMF_SPEC_ASSERT_OFF(struct nvmf_connect_data, rsvd18, 18);
NVMF_SPEC_ASSERT_OFF(struct nvmf_connect_data, subnqn, 256);
NVMF_SPEC_ASSERT_OFF(struct nvmf_connect_data, hostnqn, 512);
NVMF_SPEC_ASSERT_OFF(struct nvmf_connect_data, rsvd768, 768);

/* ------------------------------------------------------------------------ */
/* Dataset Management range (16 bytes)                                        */

struct nvme_dsm_range {
	uint32_t cattr;
	uint32_t nlb;  /* length in logical blocks, NOT 0's based */
	uint64_t slba;
};
NVMF_SPEC_ASSERT_SIZE(struct nvme_dsm_range, 16);
NVMF_SPEC_ASSERT_OFF(struct nvme_dsm_range, cattr, 0);
NVMF_SPEC_ASSERT_OFF(struct nvme_dsm_range, nlb, 4);
NVMF_SPEC_ASSERT_OFF(struct nvme_dsm_range, slba, 8);

/* ------------------------------------------------------------------------ */
/* RDMA CM private data (NVMe-oF RDMA transport)                              */

struct nvmf_rdma_cm_req {
	uint16_t recfmt;  /* 0 */
	uint16_t qid;
	uint16_t hrqsize; /* host RQ entries (1's based, normally SQSIZE + 1) */
	uint16_t hsqsize; /* host SQ size, 0's based (= Connect SQSIZE) */
	uint16_t cntlid;
	uint8_t rsvd10[22];
};
NVMF_SPEC_ASSERT_SIZE(struct nvmf_rdma_cm_req, 32);
NVMF_SPEC_ASSERT_OFF(struct nvmf_rdma_cm_req, recfmt, 0);
NVMF_SPEC_ASSERT_OFF(struct nvmf_rdma_cm_req, qid, 2);
NVMF_SPEC_ASSERT_OFF(struct nvmf_rdma_cm_req, hrqsize, 4);
NVMF_SPEC_ASSERT_OFF(struct nvmf_rdma_cm_req, hsqsize, 6);
NVMF_SPEC_ASSERT_OFF(struct nvmf_rdma_cm_req, cntlid, 8);
NVMF_SPEC_ASSERT_OFF(struct nvmf_rdma_cm_req, rsvd10, 10);

struct nvmf_rdma_cm_rep {
	uint16_t recfmt;
	uint16_t crqsize; /* controller RQ entries */
	uint8_t rsvd4[28];
};
NVMF_SPEC_ASSERT_SIZE(struct nvmf_rdma_cm_rep, 32);
NVMF_SPEC_ASSERT_OFF(struct nvmf_rdma_cm_rep, recfmt, 0);
NVMF_SPEC_ASSERT_OFF(struct nvmf_rdma_cm_rep, crqsize, 2);
NVMF_SPEC_ASSERT_OFF(struct nvmf_rdma_cm_rep, rsvd4, 4);

struct nvmf_rdma_cm_rej {
	uint16_t recfmt;
	uint16_t sts;     /* enum nvmf_rdma_cm_status */
};
NVMF_SPEC_ASSERT_SIZE(struct nvmf_rdma_cm_rej, 4);
NVMF_SPEC_ASSERT_OFF(struct nvmf_rdma_cm_rej, recfmt, 0);
NVMF_SPEC_ASSERT_OFF(struct nvmf_rdma_cm_rej, sts, 2);

enum nvmf_rdma_cm_status {
	NVMF_RDMA_CM_INVALID_LEN = 0x01,
	NVMF_RDMA_CM_INVALID_RECFMT = 0x02,
	NVMF_RDMA_CM_INVALID_QID = 0x03,
	NVMF_RDMA_CM_INVALID_HSQSIZE = 0x04,
	NVMF_RDMA_CM_INVALID_HRQSIZE = 0x05,
	NVMF_RDMA_CM_NO_RESOURCES = 0x06,
	NVMF_RDMA_CM_INVALID_IRD = 0x07,
	NVMF_RDMA_CM_INVALID_ORD = 0x08,
	NVMF_RDMA_CM_INVALID_CNTLID = 0x09,
};

/* ------------------------------------------------------------------------ */
/* Identify Controller (4096 bytes)                                           */

struct nvme_id_ctrl {
	uint16_t vid;
	uint16_t ssvid;
	char sn[20];      /* ASCII, space padded, not NUL-terminated */
	char mn[40];
	char fr[8];
	uint8_t rab;
	uint8_t ieee[3];
	uint8_t cmic;
	uint8_t mdts;     /* 2^mdts * CAP.MPSMIN page; 0 = no limit */
	uint16_t cntlid;
	uint32_t ver;
	uint32_t rtd3r;
	uint32_t rtd3e;
	uint32_t oaes;
	uint32_t ctratt;
	uint16_t rrls;
	uint8_t rsvd102[9];
	uint8_t cntrltype;
	uint8_t fguid[16];
	uint16_t crdt1;
	uint16_t crdt2;
	uint16_t crdt3;
	uint8_t rsvd134[106];
	uint8_t nvmi[16];  /* NVMe-MI region */
	uint16_t oacs;
	uint8_t acl;
	uint8_t aerl;
	uint8_t frmw;
	uint8_t lpa;
	uint8_t elpe;
	uint8_t npss;
	uint8_t avscc;
	uint8_t apsta;
	uint16_t wctemp;
	uint16_t cctemp;
	uint16_t mtfa;
	uint32_t hmpre;
	uint32_t hmmin;
	uint8_t tnvmcap[16];
	uint8_t unvmcap[16];
	uint32_t rpmbs;
	uint16_t edstt;
	uint8_t dsto;
	uint8_t fwug;
	uint16_t kas;     /* keep alive granularity, 100 ms units */
	uint16_t hctma;
	uint16_t mntmt;
	uint16_t mxtmt;
	uint32_t sanicap;
	uint32_t hmminds;
	uint16_t hmmaxd;
	uint16_t nsetidmax;
	uint16_t endgidmax;
	uint8_t anatt;
	uint8_t anacap;
	uint32_t anagrpmax;
	uint32_t nanagrpid;
	uint32_t pels;
	uint8_t rsvd356[12];
	uint8_t megcap[16];
	uint8_t tmpthha;
	uint8_t rsvd385;
	uint16_t cqt;     /* Command Quiesce Time (TP 4129), ms; 0: not reported */
	uint8_t rsvd388[124];
	uint8_t sqes;
	uint8_t cqes;
	uint16_t maxcmd;
	uint32_t nn;
	uint16_t oncs;
	uint16_t fuses;
	uint8_t fna;
	uint8_t vwc;
	uint16_t awun;
	uint16_t awupf;
	uint8_t icsvscc;
	uint8_t nwpc;
	uint16_t acwu;
	uint8_t rsvd534[2];
	uint32_t sgls;
	uint32_t mnan;
	uint8_t rsvd544[224];
	char subnqn[256];
	uint8_t rsvd1024[768];
	/* NVMe over Fabrics */
	uint32_t ioccsz;  /* I/O command capsule size, 16-byte units (SQE included) */
	uint32_t iorcsz;  /* I/O response capsule size, 16-byte units */
	uint16_t icdoff;  /* in-capsule data offset, 16-byte units */
	uint8_t fcatt;
	uint8_t msdbd;    /* max SGL data block descriptors per command */
	uint16_t ofcs;
	uint8_t rsvd1806[242];
	uint8_t psd[32][32];
	uint8_t vs[1024];
};
NVMF_SPEC_ASSERT_SIZE(struct nvme_id_ctrl, NVME_IDENTIFY_SIZE);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, vid, 0);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, ssvid, 2);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, sn, 4);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, mn, 24);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, fr, 64);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, rab, 72);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, ieee, 73);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, cmic, 76);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, mdts, 77);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, cntlid, 78);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, ver, 80);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, ctratt, 96);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, cntrltype, 111);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, fguid, 112);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, crdt1, 128);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, nvmi, 240);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, oacs, 256);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, aerl, 259);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, npss, 263);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, wctemp, 266);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, hmpre, 272);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, tnvmcap, 280);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, rpmbs, 312);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, kas, 320);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, sanicap, 328);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, anatt, 342);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, anagrpmax, 344);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, pels, 352);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, megcap, 368);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, cqt, 386);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, sqes, 512);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, cqes, 513);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, maxcmd, 514);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, nn, 516);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, oncs, 520);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, fuses, 522);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, fna, 524);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, vwc, 525);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, awun, 526);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, awupf, 528);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, acwu, 532);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, sgls, 536);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, mnan, 540);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, subnqn, 768);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, ioccsz, 1792);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, iorcsz, 1796);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, icdoff, 1800);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, fcatt, 1802);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, msdbd, 1803);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, ofcs, 1804);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, psd, 2048);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ctrl, vs, 3072);

/* ------------------------------------------------------------------------ */
/* Identify Namespace (4096 bytes)                                            */

struct nvme_lbaf {
	uint16_t ms;    /* metadata bytes per block */
	uint8_t lbads;  /* log2(block size); 0 = format not available */
	uint8_t rp;     /* bits 1:0 relative performance */
};
NVMF_SPEC_ASSERT_SIZE(struct nvme_lbaf, 4);
NVMF_SPEC_ASSERT_OFF(struct nvme_lbaf, ms, 0);
NVMF_SPEC_ASSERT_OFF(struct nvme_lbaf, lbads, 2);
NVMF_SPEC_ASSERT_OFF(struct nvme_lbaf, rp, 3);

struct nvme_id_ns {
	uint64_t nsze;
	uint64_t ncap;
	uint64_t nuse;
	uint8_t nsfeat;
	uint8_t nlbaf;   /* 0's based count of LBA formats */
	uint8_t flbas;
	uint8_t mc;
	uint8_t dpc;
	uint8_t dps;
	uint8_t nmic;
	uint8_t rescap;
	uint8_t fpi;
	uint8_t dlfeat;
	uint16_t nawun;
	uint16_t nawupf;
	uint16_t nacwu;
	uint16_t nabsn;
	uint16_t nabo;
	uint16_t nabspf;
	uint16_t noiob;
	uint8_t nvmcap[16];
	uint16_t npwg;
	uint16_t npwa;
	uint16_t npdg;
	uint16_t npda;
	uint16_t nows;
	uint8_t rsvd74[18];
	uint32_t anagrpid;
	uint8_t rsvd96[3];
	uint8_t nsattr;
	uint16_t nvmsetid;
	uint16_t endgid;
	uint8_t nguid[16];
	uint8_t eui64[8];
	struct nvme_lbaf lbaf[64];
	uint8_t rsvd384[3328];
	uint8_t vs[384];
};
NVMF_SPEC_ASSERT_SIZE(struct nvme_id_ns, NVME_IDENTIFY_SIZE);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ns, nsze, 0);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ns, ncap, 8);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ns, nuse, 16);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ns, nsfeat, 24);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ns, nlbaf, 25);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ns, flbas, 26);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ns, mc, 27);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ns, dpc, 28);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ns, dps, 29);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ns, nmic, 30);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ns, rescap, 31);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ns, fpi, 32);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ns, dlfeat, 33);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ns, nawun, 34);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ns, noiob, 46);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ns, nvmcap, 48);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ns, npwg, 64);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ns, nows, 72);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ns, anagrpid, 92);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ns, nsattr, 99);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ns, nvmsetid, 100);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ns, endgid, 102);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ns, nguid, 104);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ns, eui64, 120);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ns, lbaf, 128);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ns, rsvd384, 384);
NVMF_SPEC_ASSERT_OFF(struct nvme_id_ns, vs, 3712);

/* Index of the LBA format in use: FLBAS bits 3:0, with bits 6:5 as index
 * bits 5:4 once more than 16 formats exist (NLBAF is 0's based, so >= 16);
 * below that bits 6:5 are reserved and ignored. */
static inline unsigned nvme_id_ns_flbas_index(const struct nvme_id_ns *ns)
{
	unsigned idx = ns->flbas & 0xfu;

	if (ns->nlbaf >= 16)
		idx |= ((ns->flbas >> 5) & 0x3u) << 4;
	return idx;
}

/* Block size of the format in use; 0 if LBADS is outside 9..31 (the spec
 * minimum is 512 bytes and the result must fit in 32 bits). */
static inline uint32_t nvme_id_ns_lba_size(const struct nvme_id_ns *ns)
{
	unsigned lbads = ns->lbaf[nvme_id_ns_flbas_index(ns)].lbads;

	if (lbads < 9 || lbads > 31)
		return 0;
	return (uint32_t)1 << lbads;
}

static inline uint16_t nvme_id_ns_ms(const struct nvme_id_ns *ns)
{
	return le16toh(ns->lbaf[nvme_id_ns_flbas_index(ns)].ms);
}

/* FLBAS bit 4: metadata is interleaved with data (extended LBA). */
static inline int nvme_id_ns_extended_lba(const struct nvme_id_ns *ns)
{
	return (ns->flbas >> 4) & 1;
}

/* Largest in-capsule data an I/O command can carry: IOCCSZ covers the SQE. */
static inline uint32_t nvmf_id_ctrl_inline_data_size(const struct nvme_id_ctrl *id)
{
	uint32_t ioccsz = le32toh(id->ioccsz);

	if (ioccsz < NVME_SQE_SIZE / 16)
		return 0;
	return ioccsz * 16 - NVME_SQE_SIZE;
}

/* ------------------------------------------------------------------------ */
/* Asymmetric Namespace Access log (NVMe Base 1.4, 5.14.1.12)                 */

/* Header (16 bytes): CHGCNT u64 @0, NGRPS u16 @8, 6 reserved.  Each group descriptor: ANAGRPID
 * u32 @0, NNSIDS u32 @4, CHGCNT u64 @8, ANA state (bits 3:0) @16, 15 reserved, then NNSIDS
 * NSIDs (u32 each).  Read with LSP RGO the controller clears NNSIDS to 0 and lists no NSIDs,
 * so NNSIDS alone says how long each descriptor is, with or without RGO. */
#define NVME_ANA_LOG_HDR_SIZE  16
#define NVME_ANA_GROUP_DESC_SIZE 32

enum nvme_ana_state {
	NVME_ANA_OPTIMIZED = 0x1,
	NVME_ANA_NON_OPTIMIZED = 0x2,
	NVME_ANA_INACCESSIBLE = 0x3,
	NVME_ANA_PERSISTENT_LOSS = 0x4,
	NVME_ANA_CHANGE = 0xf,
};

/* One group descriptor, decoded (host order). */
struct nvme_ana_group {
	uint32_t grpid;
	uint8_t  state;     /* enum nvme_ana_state; other values are reserved */
	uint32_t nr_nsids;  /* NNSIDS (0 when read with RGO) */
	uint64_t chgcnt;
};

/* ------------------------------------------------------------------------ */
/* Discovery log page (NVMe over Fabrics 1.1, 5.3; Linux struct nvmf_disc_rsp_page_entry)    */

#define NVMF_DISC_LOG_HDR_SIZE   1024
#define NVMF_DISC_ENTRY_SIZE     1024
#define NVMF_TRSVCID_SIZE        32
#define NVMF_TRADDR_SIZE         256
#define NVMF_TSAS_SIZE           256
/* A discovery log this host reads at most (4 MiB): more is not a real fabric's listing. */
#define NVMF_DISC_MAX_RECORDS    4096u

/* TRTYPE, ADRFAM, SUBTYPE, TREQ values */
#define NVMF_TRTYPE_RDMA 1
#define NVMF_TRTYPE_FC   2
#define NVMF_TRTYPE_TCP  3
#define NVMF_TRTYPE_LOOP 254
#define NVMF_ADRFAM_IPV4 1
#define NVMF_ADRFAM_IPV6 2
#define NVMF_ADRFAM_IB   3
#define NVMF_ADRFAM_FC   4
#define NVMF_ADRFAM_LOOP 254
#define NVMF_SUBTYPE_REFERRAL  1 /* another discovery service */
#define NVMF_SUBTYPE_NVME      2 /* an NVM subsystem */
#define NVMF_SUBTYPE_CURRENT   3 /* this discovery subsystem itself (newer targets list it) */
#define NVMF_TREQ_SECURE_MASK  0x3 /* 0 not specified, 1 required, 2 not required */
#define NVMF_TREQ_DISABLE_SQFLOW (1u << 2)

struct nvmf_disc_log_hdr {
	uint64_t genctr;
	uint64_t numrec;
	uint16_t recfmt;
	uint8_t  rsvd18[1006];
};
NVMF_SPEC_ASSERT_SIZE(struct nvmf_disc_log_hdr, NVMF_DISC_LOG_HDR_SIZE);
NVMF_SPEC_ASSERT_OFF(struct nvmf_disc_log_hdr, genctr, 0);
NVMF_SPEC_ASSERT_OFF(struct nvmf_disc_log_hdr, numrec, 8);
NVMF_SPEC_ASSERT_OFF(struct nvmf_disc_log_hdr, recfmt, 16);
NVMF_SPEC_ASSERT_OFF(struct nvmf_disc_log_hdr, rsvd18, 18);

/* The RDMA transport's TSAS (NVMe-oF RDMA transport 1.0, 4.3) */
struct nvmf_tsas_rdma {
	uint8_t  qptype;  /* 1 reliable connected, 2 reliable datagram */
	uint8_t  prtype;  /* 1 not specified, 2 InfiniBand, 3 RoCE, 4 RoCE v2, 5 iWARP */
	uint8_t  cms;     /* 1 RDMA CM */
	uint8_t  rsvd3[5];
	uint16_t pkey;
	uint8_t  rsvd10[246];
};
NVMF_SPEC_ASSERT_SIZE(struct nvmf_tsas_rdma, NVMF_TSAS_SIZE);
NVMF_SPEC_ASSERT_OFF(struct nvmf_tsas_rdma, qptype, 0);
NVMF_SPEC_ASSERT_OFF(struct nvmf_tsas_rdma, prtype, 1);
NVMF_SPEC_ASSERT_OFF(struct nvmf_tsas_rdma, cms, 2);
NVMF_SPEC_ASSERT_OFF(struct nvmf_tsas_rdma, pkey, 8);

/* One log entry as it is on the wire.  Strings are ASCII, NUL- or space-padded, and may fill
 * their field with no NUL at all. */
struct nvmf_disc_log_raw_entry {
	uint8_t  trtype;
	uint8_t  adrfam;
	uint8_t  subtype;
	uint8_t  treq;
	uint16_t portid;
	uint16_t cntlid;
	uint16_t asqsz;
	uint16_t eflags;  /* NVMe-oF 1.1+ (TP 8013); 0 from older targets */
	uint8_t  rsvd12[20];
	char     trsvcid[NVMF_TRSVCID_SIZE];
	uint8_t  rsvd64[192];
	char     subnqn[NVMF_NQN_FIELD_SIZE];
	char     traddr[NVMF_TRADDR_SIZE];
	union {
		uint8_t common[NVMF_TSAS_SIZE];
		struct nvmf_tsas_rdma rdma;
	} tsas;
};
NVMF_SPEC_ASSERT_SIZE(struct nvmf_disc_log_raw_entry, NVMF_DISC_ENTRY_SIZE);
NVMF_SPEC_ASSERT_OFF(struct nvmf_disc_log_raw_entry, trtype, 0);
NVMF_SPEC_ASSERT_OFF(struct nvmf_disc_log_raw_entry, adrfam, 1);
NVMF_SPEC_ASSERT_OFF(struct nvmf_disc_log_raw_entry, subtype, 2);
NVMF_SPEC_ASSERT_OFF(struct nvmf_disc_log_raw_entry, treq, 3);
NVMF_SPEC_ASSERT_OFF(struct nvmf_disc_log_raw_entry, portid, 4);
NVMF_SPEC_ASSERT_OFF(struct nvmf_disc_log_raw_entry, cntlid, 6);
NVMF_SPEC_ASSERT_OFF(struct nvmf_disc_log_raw_entry, asqsz, 8);
NVMF_SPEC_ASSERT_OFF(struct nvmf_disc_log_raw_entry, eflags, 10);
NVMF_SPEC_ASSERT_OFF(struct nvmf_disc_log_raw_entry, rsvd12, 12);
NVMF_SPEC_ASSERT_OFF(struct nvmf_disc_log_raw_entry, trsvcid, 32);
NVMF_SPEC_ASSERT_OFF(struct nvmf_disc_log_raw_entry, rsvd64, 64);
NVMF_SPEC_ASSERT_OFF(struct nvmf_disc_log_raw_entry, subnqn, 256);
NVMF_SPEC_ASSERT_OFF(struct nvmf_disc_log_raw_entry, traddr, 512);
NVMF_SPEC_ASSERT_OFF(struct nvmf_disc_log_raw_entry, tsas, 768);

/* A decoded entry (host order; strings NUL-terminated, trailing spaces dropped). */
struct nvmf_disc_entry {
	uint8_t  trtype, adrfam, subtype, treq;
	uint16_t portid, cntlid, asqsz, eflags;
	char     trsvcid[NVMF_TRSVCID_SIZE + 1];
	char     subnqn[NVMF_NQN_FIELD_SIZE + 1];
	char     traddr[NVMF_TRADDR_SIZE + 1];
	/* the TSAS of an RDMA entry (trtype 1); zero otherwise */
	uint8_t  rdma_qptype, rdma_prtype, rdma_cms;
	uint16_t rdma_pkey;
	/* the TSAS of a TCP entry (trtype 3): SECTYPE (0 none, 1 TLS 1.2, 2 TLS 1.3); zero
	 * otherwise */
	uint8_t  tcp_sectype;
	/* nvmf_discover: 0 from the discovery controller asked; n > 0 from the one the referral
	 * entry at index n - 1 named */
	unsigned from_referral;
};

/* ------------------------------------------------------------------------ */
/* Controller registers (host-order values from Property Get)                 */

static inline uint32_t nvme_cap_mqes(uint64_t cap) { return (uint32_t)(cap & 0xffff); } /* 0's based */
static inline unsigned nvme_cap_cqr(uint64_t cap) { return (unsigned)(cap >> 16) & 1u; }
static inline unsigned nvme_cap_ams(uint64_t cap) { return (unsigned)(cap >> 17) & 0x3u; }
static inline unsigned nvme_cap_to(uint64_t cap) { return (unsigned)(cap >> 24) & 0xffu; } /* 500 ms units */
static inline unsigned nvme_cap_dstrd(uint64_t cap) { return (unsigned)(cap >> 32) & 0xfu; }
static inline unsigned nvme_cap_css(uint64_t cap) { return (unsigned)(cap >> 37) & 0xffu; }
static inline unsigned nvme_cap_mpsmin(uint64_t cap) { return (unsigned)(cap >> 48) & 0xfu; } /* 2^(12+n) bytes */
static inline unsigned nvme_cap_mpsmax(uint64_t cap) { return (unsigned)(cap >> 52) & 0xfu; }

static inline unsigned nvme_vs_mjr(uint32_t vs) { return vs >> 16; }
static inline unsigned nvme_vs_mnr(uint32_t vs) { return (vs >> 8) & 0xffu; }
static inline unsigned nvme_vs_ter(uint32_t vs) { return vs & 0xffu; }

/* Arguments are masked to their field widths. */
static inline uint32_t nvme_cc_build(unsigned en, unsigned css, unsigned mps, unsigned ams,
				     unsigned shn, unsigned iosqes, unsigned iocqes)
{
	return ((uint32_t)(en & 0x1u) << 0) | ((uint32_t)(css & 0x7u) << 4) |
	       ((uint32_t)(mps & 0xfu) << 7) | ((uint32_t)(ams & 0x7u) << 11) |
	       ((uint32_t)(shn & 0x3u) << 14) | ((uint32_t)(iosqes & 0xfu) << 16) |
	       ((uint32_t)(iocqes & 0xfu) << 20);
}
static inline unsigned nvme_cc_en(uint32_t cc) { return cc & 1u; }
static inline unsigned nvme_cc_css(uint32_t cc) { return (cc >> 4) & 0x7u; }
static inline unsigned nvme_cc_mps(uint32_t cc) { return (cc >> 7) & 0xfu; }
static inline unsigned nvme_cc_ams(uint32_t cc) { return (cc >> 11) & 0x7u; }
static inline unsigned nvme_cc_shn(uint32_t cc) { return (cc >> 14) & 0x3u; }
static inline unsigned nvme_cc_iosqes(uint32_t cc) { return (cc >> 16) & 0xfu; }
static inline unsigned nvme_cc_iocqes(uint32_t cc) { return (cc >> 20) & 0xfu; }

static inline unsigned nvme_csts_rdy(uint32_t csts) { return csts & 1u; }
static inline unsigned nvme_csts_cfs(uint32_t csts) { return (csts >> 1) & 1u; }
static inline unsigned nvme_csts_shst(uint32_t csts) { return (csts >> 2) & 0x3u; }
static inline unsigned nvme_csts_pp(uint32_t csts) { return (csts >> 5) & 1u; }

/* ------------------------------------------------------------------------ */
/* SQE builders                                                               */

static inline void nvme_sgl_set_keyed(struct nvme_sgl_desc *d, uint64_t addr, uint32_t len,
				      uint32_t key)
{
	d->addr = htole64(addr);
	nvmf_put_le24(d->length, len);
	nvmf_put_le32(d->key, key);
	d->type = NVME_SGL_TYPE_KEYED_ADDR;
}

static inline void nvme_sqe_set_psdt_sgl(struct nvme_sqe *c)
{
	c->flags = (uint8_t)((c->flags & ~NVME_CMD_FLAGS_PSDT_MASK) | NVME_CMD_FLAGS_PSDT_SGL);
}

/* Every command builder starts here: zero the SQE, and default the data
 * pointer to the "no data" keyed descriptor with PSDT=SGL, since nvmet rejects
 * a command whose PSDT is not SGL even when it carries no data.  The data
 * setters below override the descriptor afterwards. */
static inline void nvme_sqe_init(struct nvme_sqe *c, uint8_t opcode)
{
	memset(c, 0, sizeof(*c));
	c->opcode = opcode;
	nvme_sqe_set_psdt_sgl(c);
	nvme_sgl_set_keyed(&c->dptr, 0, 0, 0);
}

static inline void nvme_sqe_set_cid(struct nvme_sqe *c, uint16_t cid)
{
	c->cid = htole16(cid);
}

/* Remote (host memory) data: the target RDMA READs/WRITEs [addr, addr+len)
 * with rkey `key`.  Returns -EINVAL, leaving the SQE unchanged, if len does
 * not fit the 24-bit length field. */
static inline int nvme_sqe_set_sgl_keyed(struct nvme_sqe *c, uint64_t addr, uint32_t len,
					 uint32_t key)
{
	if (len > NVME_SGL_KEYED_MAX_LEN)
		return -EINVAL;
	nvme_sqe_set_psdt_sgl(c);
	nvme_sgl_set_keyed(&c->dptr, addr, len, key);
	return 0;
}

/* In-capsule data at `offset` bytes past the start of the capsule's data
 * area (ID_CTRL.ICDOFF); the data follows the SQE in the same RDMA SEND. */
static inline void nvme_sqe_set_sgl_inline(struct nvme_sqe *c, uint64_t offset, uint32_t len)
{
	nvme_sqe_set_psdt_sgl(c);
	memset(&c->dptr, 0, sizeof(c->dptr));
	c->dptr.addr = htole64(offset);
	c->dptr.data_len = htole32(len);
	c->dptr.type = NVME_SGL_TYPE_INLINE_OFFSET;
}

static inline void nvme_sqe_set_sgl_none(struct nvme_sqe *c)
{
	nvme_sqe_set_psdt_sgl(c);
	nvme_sgl_set_keyed(&c->dptr, 0, 0, 0);
}

/* Read/Write of nlb blocks (1..NVME_RW_MAX_NLB).  On bad nlb the SQE is left
 * zeroed and -EINVAL returned.  Call nvme_sqe_set_cid/set_sgl_* afterwards. */
static inline int nvme_cmd_rw(struct nvme_sqe *c, uint8_t opc, uint32_t nsid, uint64_t slba,
			      uint32_t nlb)
{
	if (nlb == 0 || nlb > NVME_RW_MAX_NLB) {
		memset(c, 0, sizeof(*c));
		return -EINVAL;
	}
	nvme_sqe_init(c, opc);
	c->nsid = htole32(nsid);
	c->cdw10 = htole32((uint32_t)slba);
	c->cdw11 = htole32((uint32_t)(slba >> 32));
	c->cdw12 = htole32(nlb - 1); /* 0's based */
	return 0;
}

/* Eight SQE bytes at off (a multiple of 8), little endian, as one store. */
static inline void nvme_sqe_put64(struct nvme_sqe *c, unsigned off, uint64_t v)
{
	v = htole64(v);
	memcpy(&c->bytes[off], &v, sizeof(v));
}

/* The I/O path's Read/Write: the same SQE as nvme_cmd_rw followed by nvme_sqe_set_sgl_keyed
 * (keyed: the target transfers [addr, addr+len) with key) or nvme_sqe_set_sgl_inline (else:
 * len bytes of in-capsule data at offset addr), CID 0, but every byte written once, eight at
 * a time: no memset of the SQE and no field written twice.  Bad nlb, or a keyed len over
 * 24 bits: SQE zeroed, -EINVAL. */
static inline int nvme_cmd_rw_sgl(struct nvme_sqe *c, uint8_t opc, uint32_t nsid, uint64_t slba,
				  uint32_t nlb, int keyed, uint64_t addr, uint32_t len, uint32_t key)
{
	if (nlb == 0 || nlb > NVME_RW_MAX_NLB || (keyed && len > NVME_SGL_KEYED_MAX_LEN)) {
		memset(c, 0, sizeof(*c));
		return -EINVAL;
	}
	/* opcode, flags (PSDT = SGL), CID, NSID */
	nvme_sqe_put64(c, 0, opc | (uint64_t)NVME_CMD_FLAGS_PSDT_SGL << 8 | (uint64_t)nsid << 32);
	nvme_sqe_put64(c, 8, 0);                  /* CDW2, CDW3 */
	nvme_sqe_put64(c, 16, 0);                 /* MPTR */
	nvme_sqe_put64(c, 24, addr);              /* DPTR: address / offset */
	nvme_sqe_put64(c, 32, keyed ?             /* DPTR: length, key, type */
		       (len | (uint64_t)key << 24 | (uint64_t)NVME_SGL_TYPE_KEYED_ADDR << 56) :
		       (len | (uint64_t)NVME_SGL_TYPE_INLINE_OFFSET << 56));
	nvme_sqe_put64(c, 40, slba);              /* CDW10, CDW11 */
	nvme_sqe_put64(c, 48, nlb - 1);           /* CDW12: NLB, 0's based; CDW13 */
	nvme_sqe_put64(c, 56, 0);                 /* CDW14, CDW15 */
	return 0;
}

static inline void nvme_cmd_flush(struct nvme_sqe *c, uint32_t nsid)
{
	nvme_sqe_init(c, NVME_CMD_FLUSH);
	c->nsid = htole32(nsid);
}

/* Deallocate nr_ranges (1..NVME_DSM_MAX_RANGES) struct nvme_dsm_range
 * entries sent as the data buffer.  Bad count: SQE zeroed, -EINVAL. */
static inline int nvme_cmd_dsm_deallocate(struct nvme_sqe *c, uint32_t nsid, uint32_t nr_ranges)
{
	if (nr_ranges == 0 || nr_ranges > NVME_DSM_MAX_RANGES) {
		memset(c, 0, sizeof(*c));
		return -EINVAL;
	}
	nvme_sqe_init(c, NVME_CMD_DSM);
	c->nsid = htole32(nsid);
	c->cdw10 = htole32(nr_ranges - 1); /* 0's based */
	c->cdw11 = htole32(NVME_DSM_ATTR_DEALLOCATE);
	return 0;
}

static inline void nvme_dsm_range_set(struct nvme_dsm_range *r, uint64_t slba, uint32_t nlb)
{
	r->cattr = 0;
	r->nlb = htole32(nlb);
	r->slba = htole64(slba);
}

static inline void nvme_cmd_identify(struct nvme_sqe *c, uint8_t cns, uint32_t nsid, uint16_t cntid)
{
	nvme_sqe_init(c, NVME_ADMIN_IDENTIFY);
	c->nsid = htole32(nsid);
	c->cdw10 = htole32((uint32_t)cns | ((uint32_t)cntid << 16));
}

/* Get Log Page (NVMe Base 1.4, 5.14): len_bytes (4..) of log lid from byte `offset` (a multiple
 * of 4).  NUMD is the dword count, 0's based, split NUMDL = CDW10[31:16], NUMDU = CDW11[15:0];
 * LSP (log specific field) CDW10[11:8], 4 bits as NVMe 1.4 defines it; RAE (retain
 * asynchronous event) CDW10 bit 15; LPOL/LPOU = CDW12/CDW13.  The data pointer stays "no data"
 * (nvme_sqe_init): the caller points it at its buffer (nvme_sqe_set_sgl_keyed), as for
 * Identify.  len_bytes below 4 is sent as one dword (NUMD 0). */
static inline void nvme_cmd_get_log_page(struct nvme_sqe *c, uint8_t lid, uint8_t lsp, uint32_t nsid,
					 uint32_t len_bytes, uint64_t offset, int rae)
{
	uint32_t numd = len_bytes >= 4 ? len_bytes / 4 - 1 : 0;

	nvme_sqe_init(c, NVME_ADMIN_GET_LOG_PAGE);
	c->nsid = htole32(nsid);
	c->cdw10 = htole32((uint32_t)lid | ((uint32_t)(lsp & 0xfu) << 8) | (rae ? 1u << 15 : 0) |
			   ((numd & 0xffffu) << 16));
	c->cdw11 = htole32(numd >> 16);
	c->cdw12 = htole32((uint32_t)offset);
	c->cdw13 = htole32((uint32_t)(offset >> 32));
}

static inline void nvme_cmd_keep_alive(struct nvme_sqe *c)
{
	nvme_sqe_init(c, NVME_ADMIN_KEEP_ALIVE);
}

/* Feature identifiers (Get/Set Features CDW10 bits 7:0) */
#define NVME_FEAT_NR_QUEUES 0x07 /* Number of Queues: CDW11 and CQE DW0 are NSQ (15:0) | NCQ (31:16), 0-based */
#define NVME_FEAT_KATO 0x0f     /* Keep Alive Timer: CQE DW0 is KATO in milliseconds */
#define NVME_FEAT_SEL_CURRENT 0

/* Get Features: CDW10 = FID (7:0) | SEL (10:8). */
static inline void nvme_cmd_get_features(struct nvme_sqe *c, uint8_t fid, uint8_t sel)
{
	nvme_sqe_init(c, NVME_ADMIN_GET_FEATURES);
	c->cdw10 = htole32((uint32_t)fid | ((uint32_t)(sel & 0x7) << 8));
}

/* Set Features, Number of Queues: ask for nsqr + 1 submission and ncqr + 1 completion I/O
 * queues (both 0-based, as on the wire). */
static inline void nvme_cmd_set_features_nr_queues(struct nvme_sqe *c, uint16_t nsqr, uint16_t ncqr)
{
	nvme_sqe_init(c, NVME_ADMIN_SET_FEATURES);
	c->cdw10 = htole32(NVME_FEAT_NR_QUEUES);
	c->cdw11 = htole32((uint32_t)nsqr | ((uint32_t)ncqr << 16));
}

/* The I/O queue pairs a Set Features Number of Queues answer grants (CQE DW0: NSQA 15:0,
 * NCQA 31:16, both 0-based): the smaller of the two, 1..65536. */
static inline unsigned nvme_nr_queues_granted(uint32_t dw0)
{
	unsigned nsqa = (dw0 & 0xffffu) + 1u, ncqa = (dw0 >> 16) + 1u;

	return nsqa < ncqa ? nsqa : ncqa;
}

/* Connect for queue qid (0 = admin).  kato_ms only matters on the admin
 * queue; pass 0 for I/O queues.  The caller then points SGL1 at the
 * struct nvmf_connect_data (keyed or in-capsule). */
static inline void nvmf_cmd_connect(struct nvme_sqe *c, uint16_t qid, uint16_t sqsize_0based,
				    uint32_t kato_ms)
{
	nvme_sqe_init(c, NVME_FABRICS_OPC);
	c->connect.fctype = NVMF_FCTYPE_CONNECT;
	c->connect.recfmt = htole16(0);
	c->connect.qid = htole16(qid);
	c->connect.sqsize = htole16(sqsize_0based);
	c->connect.cattr = 0;
	c->connect.kato = htole32(kato_ms);
}

/* ------------------------------------------------------------------------ */
/* In-band authentication messages (NVMe Base 2.0 / TP 8006, DH-HMAC-CHAP)    */

/* Connect response DW0 bits 31:16 are AUTHREQ on success: ATR (bit 17) the controller requires
 * authentication on this queue, ASCR (bit 18) authentication with secure channel (TLS)
 * concatenation. */
#define NVMF_CONNECT_AUTHREQ_ATR  (1u << 17)
#define NVMF_CONNECT_AUTHREQ_ASCR (1u << 18)

#define NVMF_AUTH_TYPE_COMMON  0x00 /* AUTH_Negotiate, AUTH_Failure1/2 */
#define NVMF_AUTH_TYPE_DHCHAP  0x01
#define NVMF_AUTH_ID_NEGOTIATE 0x00
#define NVMF_AUTH_ID_CHALLENGE 0x01
#define NVMF_AUTH_ID_REPLY     0x02
#define NVMF_AUTH_ID_SUCCESS1  0x03
#define NVMF_AUTH_ID_SUCCESS2  0x04
#define NVMF_AUTH_ID_FAILURE2  0xf0
#define NVMF_AUTH_ID_FAILURE1  0xf1
#define NVMF_AUTH_PROTO_DHCHAP 0x01 /* protocol descriptor AUTHID */

/* Hash functions (HashID) and DH groups (DHGID) */
#define NVMF_AUTH_HASH_SHA256 0x01
#define NVMF_AUTH_HASH_SHA384 0x02
#define NVMF_AUTH_HASH_SHA512 0x03
#define NVMF_AUTH_DHGROUP_NULL 0x00
#define NVMF_AUTH_DHGROUP_2048 0x01
#define NVMF_AUTH_DHGROUP_3072 0x02
#define NVMF_AUTH_DHGROUP_4096 0x03
#define NVMF_AUTH_DHGROUP_6144 0x04
#define NVMF_AUTH_DHGROUP_8192 0x05

/* AUTH_Failure reason code (RC) and its explanations (RCE) */
#define NVMF_AUTH_RC_FAILURE          0x01
#define NVMF_AUTH_RCE_FAILED          0x01
#define NVMF_AUTH_RCE_PROTO_UNUSABLE  0x02
#define NVMF_AUTH_RCE_SCC_MISMATCH    0x03
#define NVMF_AUTH_RCE_HASH_UNUSABLE   0x04
#define NVMF_AUTH_RCE_DHGROUP_UNUSABLE 0x05
#define NVMF_AUTH_RCE_BAD_PAYLOAD     0x06
#define NVMF_AUTH_RCE_BAD_MESSAGE     0x07

/* Every message starts with these 6 bytes. */
struct nvmf_auth_hdr {
	uint8_t auth_type;
	uint8_t auth_id;
	uint8_t rsvd2[2];
	uint16_t t_id;
};
NVMF_SPEC_ASSERT_SIZE(struct nvmf_auth_hdr, 6);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_hdr, auth_id, 1);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_hdr, t_id, 4);

/* AUTH_Negotiate protocol descriptor: HALEN hash IDs, DHLEN DH group IDs. */
struct nvmf_auth_protocol_desc {
	uint8_t authid;   /* 0x01 DH-HMAC-CHAP */
	uint8_t rsvd1;
	uint8_t halen;
	uint8_t dhlen;
	uint8_t hash_ids[30];
	uint8_t dh_ids[30];
};
NVMF_SPEC_ASSERT_SIZE(struct nvmf_auth_protocol_desc, 64);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_protocol_desc, halen, 2);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_protocol_desc, dhlen, 3);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_protocol_desc, hash_ids, 4);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_protocol_desc, dh_ids, 34);

/* AUTH_Negotiate (host to controller): 8 bytes and NAPD descriptors. */
struct nvmf_auth_negotiate {
	uint8_t auth_type; /* 0x00 */
	uint8_t auth_id;   /* 0x00 */
	uint8_t rsvd2[2];
	uint16_t t_id;
	uint8_t sc_c;      /* secure channel concatenation: 0, none */
	uint8_t napd;      /* number of protocol descriptors */
	struct nvmf_auth_protocol_desc desc[1];
};
NVMF_SPEC_ASSERT_SIZE(struct nvmf_auth_negotiate, 72);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_negotiate, t_id, 4);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_negotiate, sc_c, 6);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_negotiate, napd, 7);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_negotiate, desc, 8);

/* DH-HMAC-CHAP_Challenge (controller to host): 16 bytes, then HL bytes of challenge C1, then
 * DHVLEN bytes of the controller's DH public value. */
struct nvmf_auth_challenge {
	uint8_t auth_type; /* 0x01 */
	uint8_t auth_id;   /* 0x01 */
	uint8_t rsvd2[2];
	uint16_t t_id;
	uint8_t hl;
	uint8_t rsvd7;
	uint8_t hash_id;
	uint8_t dhg_id;
	uint16_t dhvlen;
	uint32_t seqnum;   /* S1 */
	uint8_t cval[];
};
NVMF_SPEC_ASSERT_SIZE(struct nvmf_auth_challenge, 16);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_challenge, t_id, 4);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_challenge, hl, 6);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_challenge, hash_id, 8);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_challenge, dhg_id, 9);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_challenge, dhvlen, 10);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_challenge, seqnum, 12);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_challenge, cval, 16);

/* DH-HMAC-CHAP_Reply (host to controller): 16 bytes, then HL bytes of response R1, HL bytes
 * of challenge C2 (zero unless CVALID), DHVLEN bytes of the host's DH public value. */
struct nvmf_auth_reply {
	uint8_t auth_type; /* 0x01 */
	uint8_t auth_id;   /* 0x02 */
	uint8_t rsvd2[2];
	uint16_t t_id;
	uint8_t hl;
	uint8_t rsvd7;
	uint8_t cvalid;    /* C2 valid: the host authenticates the controller too */
	uint8_t rsvd9;
	uint16_t dhvlen;
	uint32_t seqnum;   /* S2 (0 unless CVALID) */
	uint8_t rval[];
};
NVMF_SPEC_ASSERT_SIZE(struct nvmf_auth_reply, 16);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_reply, hl, 6);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_reply, cvalid, 8);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_reply, dhvlen, 10);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_reply, seqnum, 12);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_reply, rval, 16);

/* DH-HMAC-CHAP_Success1 (controller to host): 16 bytes, then HL bytes of response R2 when
 * RVALID. */
struct nvmf_auth_success1 {
	uint8_t auth_type; /* 0x01 */
	uint8_t auth_id;   /* 0x03 */
	uint8_t rsvd2[2];
	uint16_t t_id;
	uint8_t hl;
	uint8_t rsvd7;
	uint8_t rvalid;
	uint8_t rsvd9[7];
	uint8_t rval[];
};
NVMF_SPEC_ASSERT_SIZE(struct nvmf_auth_success1, 16);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_success1, hl, 6);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_success1, rvalid, 8);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_success1, rval, 16);

/* DH-HMAC-CHAP_Success2 (host to controller, after it verified R2). */
struct nvmf_auth_success2 {
	uint8_t auth_type; /* 0x01 */
	uint8_t auth_id;   /* 0x04 */
	uint8_t rsvd2[2];
	uint16_t t_id;
	uint8_t rsvd6[10];
};
NVMF_SPEC_ASSERT_SIZE(struct nvmf_auth_success2, 16);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_success2, t_id, 4);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_success2, rsvd6, 6);

/* AUTH_Failure1 (controller to host) and AUTH_Failure2 (host to controller). */
struct nvmf_auth_failure {
	uint8_t auth_type; /* 0x00 */
	uint8_t auth_id;   /* 0xf1 / 0xf0 */
	uint8_t rsvd2[2];
	uint16_t t_id;
	uint8_t rc;        /* reason code: 0x01 */
	uint8_t rce;       /* its explanation */
};
NVMF_SPEC_ASSERT_SIZE(struct nvmf_auth_failure, 8);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_failure, t_id, 4);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_failure, rc, 6);
NVMF_SPEC_ASSERT_OFF(struct nvmf_auth_failure, rce, 7);

/* Authentication Send of len bytes / Receive of at most len bytes; the caller then points
 * SGL1 at the message buffer (keyed or in-capsule). */
static inline void nvmf_cmd_auth(struct nvme_sqe *c, int send, uint32_t len)
{
	nvme_sqe_init(c, NVME_FABRICS_OPC);
	c->auth.fctype = send ? NVMF_FCTYPE_AUTH_SEND : NVMF_FCTYPE_AUTH_RECV;
	c->auth.spsp0 = NVMF_AUTH_SPSP;
	c->auth.spsp1 = NVMF_AUTH_SPSP;
	c->auth.secp = NVMF_AUTH_SECP;
	c->auth.len = htole32(len);
}

/* ofst is a register offset (NVME_REG_*); CAP is the only 8-byte one used. */
static inline void nvmf_cmd_prop_get(struct nvme_sqe *c, uint32_t ofst, int eight_bytes)
{
	nvme_sqe_init(c, NVME_FABRICS_OPC);
	c->prop_get.fctype = NVMF_FCTYPE_PROP_GET;
	c->prop_get.attrib = eight_bytes ? 1 : 0;
	c->prop_get.ofst = htole32(ofst);
}

static inline void nvmf_cmd_prop_set(struct nvme_sqe *c, uint32_t ofst, int eight_bytes,
				     uint64_t value)
{
	nvme_sqe_init(c, NVME_FABRICS_OPC);
	c->prop_set.fctype = NVMF_FCTYPE_PROP_SET;
	c->prop_set.attrib = eight_bytes ? 1 : 0;
	c->prop_set.ofst = htole32(ofst);
	c->prop_set.value = htole64(eight_bytes ? value : (uint32_t)value);
}

static inline void nvmf_rdma_cm_req_init(struct nvmf_rdma_cm_req *r, uint16_t qid,
					 uint16_t hrqsize, uint16_t hsqsize, uint16_t cntlid)
{
	memset(r, 0, sizeof(*r));
	r->recfmt = htole16(0);
	r->qid = htole16(qid);
	r->hrqsize = htole16(hrqsize);
	r->hsqsize = htole16(hsqsize);
	r->cntlid = htole16(cntlid);
}

/* ------------------------------------------------------------------------ */
/* nvmf_spec.c                                                                */

/* Zero d and fill it; -EINVAL (d untouched) if hostid or an NQN is NULL, an
 * NQN is empty or longer than NVMF_NQN_MAX. */
int nvmf_connect_data_init(struct nvmf_connect_data *d, const uint8_t hostid[16], uint16_t cntlid,
			   const char *subnqn, const char *hostnqn);

/* Name of a status; fabrics_cmd selects the Fabrics meaning of command
 * specific codes >= 0x80.  Never NULL; "Unknown status" if not known. */
const char *nvme_status_name(unsigned sct, unsigned sc, int fabrics_cmd);

/* "NVMe status 0x<sct>/0x<sc>: <name>"; status_code = (sct << 8) | sc.
 * Returns snprintf()'s result. */
int nvme_status_format(char *buf, size_t len, uint16_t status_code, int fabrics_cmd);

/* Like nvme_status_format, from the raw CQE status word: the phase bit is dropped, and DNR,
 * More and CRD are named when set, e.g. "NVMe status 0x2/0x81: Unrecovered Read Error (DNR)". */
int nvme_status_format_raw(char *buf, size_t len, uint16_t raw_status, int fabrics_cmd);

/* RDMA CM reject private data status; "unknown reject status" otherwise. */
const char *nvmf_rdma_cm_status_name(uint16_t sts);

/* Opcode name for logs; "Unknown" otherwise. */
const char *nvme_opcode_name(uint8_t opc, int admin);

/* ---- What a target sends is input: checks that turn absurd values into an error.  Each
 * writes a one-line reason naming the field and its value into why (why may be NULL). ---- */

/* MDTS in bytes: 2^MDTS pages of 2^(12 + CAP.MPSMIN) bytes.  0 means no limit: MDTS 0, and
 * also a limit of 4 GiB or more (beyond any command this initiator builds; a keyed SGL carries
 * at most 16 MiB - 1).  Never shifts past the width of the type. */
uint32_t nvmf_mdts_bytes(uint8_t mdts, uint64_t cap);

/* Identify Controller data (4096 bytes) of an I/O controller, with the CAP it reported:
 * 0, or -EPROTO for CAP.MQES 0, an MDTS whose byte count overflows 64 bits, NN 0, or an
 * IOCCSZ below 4 (the 64-byte command itself) or past a 32-bit byte count. */
int nvmf_id_ctrl_check(const struct nvme_id_ctrl *id, uint64_t cap, char *why, size_t len);

/* Identify Namespace data (4096 bytes); mdts_bytes is the controller's transfer limit
 * (0: none).  0; -ENODEV for NSZE 0 (not an active namespace: a valid answer, not garbage);
 * -EPROTO for NLBAF above 63, FLBAS selecting a format past NLBAF, LBADS outside 9..16
 * (512 B..64 KiB blocks), NSZE blocks overflowing 64 bits of bytes, or a block larger than
 * MDTS (no command could carry one). */
int nvmf_id_ns_check(const struct nvme_id_ns *ns, uint32_t mdts_bytes, char *why, size_t len);

/* The private data of an RDMA CM accept (NVMe/RDMA: RECFMT, CRQSIZE), len bytes at priv.
 * *crqsize: the controller's receive queue entries, 0 when not given: no private data, or
 * zeros (IB CM pads a REP's private data with zeros).  -EPROTO for 1..3 bytes (a truncated
 * record) or a RECFMT other than 0 (a record this host cannot read). */
int nvmf_rdma_cm_accept_parse(const void *priv, size_t len, uint16_t *crqsize, char *why,
			      size_t whylen);

/* ---- log pages ------------------------------------------------------------------------- */

/* "optimized", "non-optimized", "inaccessible", "persistent-loss", "change"; else "reserved". */
const char *nvme_ana_state_name(uint8_t state);

/* The ANA log, len bytes at buf, as read (with or without RGO: the NNSIDS of each descriptor
 * says how many NSIDs follow it; RGO makes them 0).  *chgcnt: the header's CHGCNT; groups[0..
 * *nr_groups): each descriptor, in log order (NSID lists skipped).  0; -EINVAL for a header or
 * descriptor cut short by len (NGRPS more than the buffer holds included) or ANAGRPID 0;
 * -EOVERFLOW for more than max_groups groups.  One line in why on failure. */
int nvme_ana_log_parse(const void *buf, size_t len, uint64_t *chgcnt, struct nvme_ana_group *groups,
		       unsigned max_groups, unsigned *nr_groups, char *why, size_t whylen);

/* The state of group grpid among g[0..n): 0, or -ENOENT when no descriptor names it. */
int nvme_ana_log_state_of(const struct nvme_ana_group *g, unsigned n, uint32_t grpid,
			  uint8_t *state);

/* The discovery log's header, len (>= NVMF_DISC_LOG_HDR_SIZE) bytes at buf: 0; -EINVAL for
 * len short of the header or RECFMT other than 0; -EOVERFLOW for NUMREC above
 * NVMF_DISC_MAX_RECORDS.  One line in why on failure. */
int nvmf_disc_log_parse_hdr(const void *buf, size_t len, uint64_t *genctr, uint64_t *numrec,
			    char *why, size_t whylen);

/* One 1024-byte entry at raw into *e: strings copied up to their first NUL (a field filled to
 * its end needs none) with trailing spaces dropped.  -EINVAL (e zeroed) for a SUBTYPE outside
 * 1..3, an empty SUBNQN or TRADDR, or a byte outside printable ASCII in TRSVCID, SUBNQN or
 * TRADDR (what a host would connect to or print must be text), the field and byte named. */
int nvmf_disc_entry_decode(const void *raw1024, struct nvmf_disc_entry *e, char *why, size_t whylen);

/* nvme-cli's words: "rdma", "fc", "tcp", "loop"; "ipv4", "ipv6", "infiniband",
 * "fibre-channel", "intra-host"; "discovery subsystem referral", "nvme subsystem", "current
 * discovery subsystem"; "not specified", "required", "not required"; RDMA qptype
 * "connected"/"datagram", prtype "not specified"/"infiniband"/"roce"/"roce-v2"/"iwarp", cms
 * "rdma-cm".  Anything else: "unrecognized". */
const char *nvmf_trtype_name(uint8_t trtype);
const char *nvmf_adrfam_name(uint8_t adrfam);
const char *nvmf_subtype_name(uint8_t subtype);
const char *nvmf_treq_secure_name(uint8_t treq);
const char *nvmf_rdma_qptype_name(uint8_t qptype);
const char *nvmf_rdma_prtype_name(uint8_t prtype);
const char *nvmf_rdma_cms_name(uint8_t cms);
/* A TCP entry's SECTYPE as nvme-cli names it: "none", "tls", "tls13"; else "unrecognized". */
const char *nvmf_tcp_sectype_name(uint8_t sectype);

/* ======================================================================== */
/* NVMe/TCP transport (NVMe/TCP Transport Specification 1.0, TP 8000)        */
/* ======================================================================== */
/* PDUs are little-endian byte streams with no alignment: every struct is packed, and
 * _Static_assert pins each field at its spec offset. */

/* PDU types (common header byte 0) */
#define NVME_TCP_PDU_ICREQ        0x00
#define NVME_TCP_PDU_ICRESP       0x01
#define NVME_TCP_PDU_H2C_TERM     0x02
#define NVME_TCP_PDU_C2H_TERM     0x03
#define NVME_TCP_PDU_CMD          0x04   /* CapsuleCmd */
#define NVME_TCP_PDU_RSP          0x05   /* CapsuleResp */
#define NVME_TCP_PDU_H2C_DATA     0x06
#define NVME_TCP_PDU_C2H_DATA     0x07
#define NVME_TCP_PDU_R2T          0x09

/* common header flags (byte 1) */
#define NVME_TCP_F_HDGST          0x01
#define NVME_TCP_F_DDGST          0x02
#define NVME_TCP_F_DATA_LAST      0x04
#define NVME_TCP_F_DATA_SUCCESS   0x08

/* ICReq/ICResp DGST bits */
#define NVME_TCP_DGST_HDGST_ENABLE 0x01
#define NVME_TCP_DGST_DDGST_ENABLE 0x02

#define NVME_TCP_PFV_1_0          0
#define NVME_TCP_IC_LEN           128   /* ICReq and ICResp: HLEN = PLEN = 128 */
#define NVME_TCP_CMD_HLEN         72    /* CH + SQE */
#define NVME_TCP_RSP_HLEN         24    /* CH + CQE */
#define NVME_TCP_DATA_HLEN        24    /* H2CData, C2HData */
#define NVME_TCP_R2T_HLEN         24
#define NVME_TCP_TERM_HLEN        24
/* A TermReq PDU, the offending PDU's header it carries included, is at most 152 bytes
 * (as SPDK and Linux read the transport spec): up to 128 bytes of that header. */
#define NVME_TCP_TERM_MAX_PLEN    152
#define NVME_TCP_TERM_MAX_DATA    (NVME_TCP_TERM_MAX_PLEN - NVME_TCP_TERM_HLEN)
#define NVME_TCP_DIGEST_LEN       4     /* CRC32C, after the header and after the data */
#define NVME_TCP_MIN_MAXH2CDATA   4096
#define NVME_TCP_MAX_CPDA         31    /* 0's based dwords: data aligned to up to 128 bytes */

/* SGL1 of a command whose data moves by R2T/H2CData or C2HData: Transport SGL Data Block
 * (type 5), transport-specific subtype 0xA, address 0, 32-bit length at byte 8. */
#define NVME_SGL_TYPE_TCP_TRANSPORT 0x5a

/* Fatal error status of a TermReq (FES) */
#define NVME_TCP_FES_INVALID_PDU_HDR     0x01
#define NVME_TCP_FES_PDU_SEQ_ERR         0x02
#define NVME_TCP_FES_HDR_DIGEST_ERR      0x03
#define NVME_TCP_FES_DATA_OUT_OF_RANGE   0x04
#define NVME_TCP_FES_DATA_LIMIT_EXCEEDED 0x05   /* C2HTermReq's name for 05h */
#define NVME_TCP_FES_R2T_LIMIT_EXCEEDED  0x05   /* H2CTermReq's: more R2Ts than MAXR2T */
#define NVME_TCP_FES_UNSUPPORTED_PARAM   0x06

struct __attribute__((packed)) nvme_tcp_ch {
	uint8_t  type;
	uint8_t  flags;
	uint8_t  hlen;
	uint8_t  pdo;    /* data offset from the PDU's start; 0: no data */
	uint32_t plen;   /* the whole PDU: header, digests, padding, data */
};
NVMF_SPEC_ASSERT_SIZE(struct nvme_tcp_ch, 8);
NVMF_SPEC_ASSERT_OFF(struct nvme_tcp_ch, type, 0);
NVMF_SPEC_ASSERT_OFF(struct nvme_tcp_ch, flags, 1);
NVMF_SPEC_ASSERT_OFF(struct nvme_tcp_ch, hlen, 2);
NVMF_SPEC_ASSERT_OFF(struct nvme_tcp_ch, pdo, 3);
NVMF_SPEC_ASSERT_OFF(struct nvme_tcp_ch, plen, 4);

struct __attribute__((packed)) nvme_tcp_icreq {
	struct nvme_tcp_ch ch;
	uint16_t pfv;
	uint8_t  hpda;     /* 0's based dwords the host wants data PDUs aligned to */
	uint8_t  dgst;     /* NVME_TCP_DGST_* asked for */
	uint32_t maxr2t;   /* 0's based outstanding R2Ts per command */
	uint8_t  rsvd16[112];
};
NVMF_SPEC_ASSERT_SIZE(struct nvme_tcp_icreq, NVME_TCP_IC_LEN);
NVMF_SPEC_ASSERT_OFF(struct nvme_tcp_icreq, pfv, 8);
NVMF_SPEC_ASSERT_OFF(struct nvme_tcp_icreq, hpda, 10);
NVMF_SPEC_ASSERT_OFF(struct nvme_tcp_icreq, dgst, 11);
NVMF_SPEC_ASSERT_OFF(struct nvme_tcp_icreq, maxr2t, 12);
NVMF_SPEC_ASSERT_OFF(struct nvme_tcp_icreq, rsvd16, 16);

struct __attribute__((packed)) nvme_tcp_icresp {
	struct nvme_tcp_ch ch;
	uint16_t pfv;
	uint8_t  cpda;       /* 0's based dwords the controller wants data PDUs aligned to */
	uint8_t  dgst;       /* NVME_TCP_DGST_* granted */
	uint32_t maxh2cdata; /* bytes of data one H2CData PDU may carry */
	uint8_t  rsvd16[112];
};
NVMF_SPEC_ASSERT_SIZE(struct nvme_tcp_icresp, NVME_TCP_IC_LEN);
NVMF_SPEC_ASSERT_OFF(struct nvme_tcp_icresp, pfv, 8);
NVMF_SPEC_ASSERT_OFF(struct nvme_tcp_icresp, cpda, 10);
NVMF_SPEC_ASSERT_OFF(struct nvme_tcp_icresp, dgst, 11);
NVMF_SPEC_ASSERT_OFF(struct nvme_tcp_icresp, maxh2cdata, 12);
NVMF_SPEC_ASSERT_OFF(struct nvme_tcp_icresp, rsvd16, 16);

struct __attribute__((packed)) nvme_tcp_cmd_pdu {
	struct nvme_tcp_ch ch;
	struct nvme_sqe    sqe;
};
NVMF_SPEC_ASSERT_SIZE(struct nvme_tcp_cmd_pdu, NVME_TCP_CMD_HLEN);
NVMF_SPEC_ASSERT_OFF(struct nvme_tcp_cmd_pdu, sqe, 8);

struct __attribute__((packed)) nvme_tcp_rsp_pdu {
	struct nvme_tcp_ch ch;
	struct nvme_cqe    cqe;
};
NVMF_SPEC_ASSERT_SIZE(struct nvme_tcp_rsp_pdu, NVME_TCP_RSP_HLEN);
NVMF_SPEC_ASSERT_OFF(struct nvme_tcp_rsp_pdu, cqe, 8);

/* H2CData and C2HData (TTAG is reserved in C2HData) */
struct __attribute__((packed)) nvme_tcp_data_pdu {
	struct nvme_tcp_ch ch;
	uint16_t cccid;
	uint16_t ttag;
	uint32_t datao;
	uint32_t datal;
	uint8_t  rsvd20[4];
};
NVMF_SPEC_ASSERT_SIZE(struct nvme_tcp_data_pdu, NVME_TCP_DATA_HLEN);
NVMF_SPEC_ASSERT_OFF(struct nvme_tcp_data_pdu, cccid, 8);
NVMF_SPEC_ASSERT_OFF(struct nvme_tcp_data_pdu, ttag, 10);
NVMF_SPEC_ASSERT_OFF(struct nvme_tcp_data_pdu, datao, 12);
NVMF_SPEC_ASSERT_OFF(struct nvme_tcp_data_pdu, datal, 16);
NVMF_SPEC_ASSERT_OFF(struct nvme_tcp_data_pdu, rsvd20, 20);

struct __attribute__((packed)) nvme_tcp_r2t_pdu {
	struct nvme_tcp_ch ch;
	uint16_t cccid;
	uint16_t ttag;
	uint32_t r2to;
	uint32_t r2tl;
	uint8_t  rsvd20[4];
};
NVMF_SPEC_ASSERT_SIZE(struct nvme_tcp_r2t_pdu, NVME_TCP_R2T_HLEN);
NVMF_SPEC_ASSERT_OFF(struct nvme_tcp_r2t_pdu, cccid, 8);
NVMF_SPEC_ASSERT_OFF(struct nvme_tcp_r2t_pdu, ttag, 10);
NVMF_SPEC_ASSERT_OFF(struct nvme_tcp_r2t_pdu, r2to, 12);
NVMF_SPEC_ASSERT_OFF(struct nvme_tcp_r2t_pdu, r2tl, 16);
NVMF_SPEC_ASSERT_OFF(struct nvme_tcp_r2t_pdu, rsvd20, 20);

/* H2CTermReq and C2HTermReq; the offending PDU's header follows as data. */
struct __attribute__((packed)) nvme_tcp_term_pdu {
	struct nvme_tcp_ch ch;
	uint16_t fes;
	uint32_t fei;
	uint8_t  rsvd14[10];
};
NVMF_SPEC_ASSERT_SIZE(struct nvme_tcp_term_pdu, NVME_TCP_TERM_HLEN);
NVMF_SPEC_ASSERT_OFF(struct nvme_tcp_term_pdu, fes, 8);
NVMF_SPEC_ASSERT_OFF(struct nvme_tcp_term_pdu, fei, 10);
NVMF_SPEC_ASSERT_OFF(struct nvme_tcp_term_pdu, rsvd14, 14);

/* The H2CTermReq a host sends before it closes a connection over a PDU it refuses: FES, FEI
 * (the offset of the field in error for FES 01h and 06h; reserved, 0, otherwise) and, as
 * error data, the first hdr_len bytes of the offending PDU's header (at most
 * NVME_TCP_TERM_MAX_DATA are taken).  buf holds NVME_TCP_TERM_MAX_PLEN bytes; returns PLEN. */
size_t nvme_tcp_h2c_term_build(void *buf, uint16_t fes, uint32_t fei, const void *hdr,
			       size_t hdr_len);

/* The ICReq a host sends: PFV 1.0, the host's data alignment, the digests it asks for and
 * how many R2Ts per command it takes (0's based). */
static inline void nvme_tcp_icreq_init(struct nvme_tcp_icreq *r, uint8_t hpda, uint8_t dgst,
				       uint32_t maxr2t)
{
	memset(r, 0, sizeof(*r));
	r->ch.type = NVME_TCP_PDU_ICREQ;
	r->ch.hlen = NVME_TCP_IC_LEN;
	r->ch.plen = htole32(NVME_TCP_IC_LEN);
	r->pfv = htole16(NVME_TCP_PFV_1_0);
	r->hpda = hpda;
	r->dgst = dgst;
	r->maxr2t = htole32(maxr2t);
}

/* What an ICResp grants. */
struct nvme_tcp_icresp_info {
	uint8_t  cpda;
	int      hdgst;        /* header digests on */
	int      ddgst;        /* data digests on */
	uint32_t maxh2cdata;
};

/* The 128-byte ICResp at buf (len bytes read): 0 with *out filled; -EPROTO with the field named
 * in why for a wrong type, HLEN, PDO or PLEN, PFV other than 1.0, CPDA above 31, MAXH2CDATA
 * under 4096 or not a multiple of 4, or digests other than those asked for (want_*). */
int nvme_tcp_icresp_parse(const void *buf, size_t len, int want_hdgst, int want_ddgst,
			  struct nvme_tcp_icresp_info *out, char *why, size_t whylen);

/* A controller-to-host PDU's sizes, from its common header. */
struct nvme_tcp_pdu_info {
	uint8_t  type;
	uint8_t  flags;
	uint8_t  hlen;
	uint8_t  pdo;
	uint32_t plen;
	uint32_t hdr_len;   /* bytes from the PDU start to its data (or its end): header, header
			     * digest, padding; what to read before acting on it */
	uint32_t data_len;  /* C2HData: data bytes (the data digest not counted); else 0 */
	uint16_t err_fes;   /* refused: the FES and FEI an H2CTermReq reports it with */
	uint32_t err_fei;
};

/* The 8-byte common header of a PDU the controller sent on an established connection, with
 * hdgst/ddgst the negotiated digests: 0 with *out filled; -EPROTO naming the field for a type a
 * controller does not send there (ICResp, any host-to-controller type, unknown types), an HLEN
 * other than the type's, a PDO or PLEN that does not fit the header, digests and data, with
 * out->err_fes/err_fei set.  C2HTermReq carries no digests: its hdr_len is its HLEN. */
int nvme_tcp_ch_parse(const void *ch, int hdgst, int ddgst, struct nvme_tcp_pdu_info *out,
		      char *why, size_t whylen);

/* The fields of a received PDU header past the common header. */
struct nvme_tcp_pdu_fields {
	uint16_t cccid;     /* C2HData, R2T */
	uint16_t ttag;      /* R2T */
	uint32_t off;       /* C2HData DATAO, R2T R2TO */
	uint32_t len;       /* C2HData DATAL, R2T R2TL */
	uint16_t fes;       /* C2HTermReq */
	uint32_t fei;
	uint16_t err_fes;   /* refused: the FES and FEI an H2CTermReq reports it with */
	uint32_t err_fei;
};

/* The header at hdr (info->hlen bytes, as nvme_tcp_ch_parse described it): 0 with *f filled;
 * -EPROTO naming the field for C2HData whose DATAL differs from what PLEN leaves or whose
 * SUCCESS flag comes without LAST, and R2T with R2TL 0, with f->err_fes/err_fei set. */
int nvme_tcp_pdu_parse(const void *hdr, const struct nvme_tcp_pdu_info *info,
		       struct nvme_tcp_pdu_fields *f, char *why, size_t whylen);

/* "CapsuleResp", "C2HData", ...; "unknown" */
const char *nvme_tcp_pdu_type_name(uint8_t type);
/* A TermReq's FES in words ("invalid PDU header field", ...); "unknown fatal error status". */
const char *nvme_tcp_fes_name(uint16_t fes);

#endif /* NVMF_SPEC_H */
