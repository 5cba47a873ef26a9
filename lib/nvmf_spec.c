/* nvmf_spec.c - the out-of-line parts of nvmf_spec.h: Connect data and the
 * status / reject / opcode decoders used in error messages. */
#include "nvmf_spec.h"

#include <stdio.h>

#include "nvmf_err.h"

static int nqn_ok(const char *nqn)
{
	size_t n;

	if (!nqn)
		return 0;
	n = strnlen(nqn, NVMF_NQN_MAX + 1);
	return n > 0 && n <= NVMF_NQN_MAX;
}

int nvmf_connect_data_init(struct nvmf_connect_data *d, const uint8_t hostid[16], uint16_t cntlid,
			   const char *subnqn, const char *hostnqn)
{
	if (!d || !hostid || !nqn_ok(subnqn) || !nqn_ok(hostnqn))
		return -EINVAL;
	/* Zeroing also NUL-terminates both NQN fields and clears reserved bytes. */
	memset(d, 0, sizeof(*d));
	memcpy(d->hostid, hostid, sizeof(d->hostid));
	d->cntlid = htole16(cntlid);
	memcpy(d->subnqn, subnqn, strlen(subnqn));
	memcpy(d->hostnqn, hostnqn, strlen(hostnqn));
	return 0;
}

/* Sparse tables indexed by SC; a NULL slot is a reserved/unknown code. */
static const char *const generic_names[256] = {
	[0x00] = "Successful Completion",
	[0x01] = "Invalid Command Opcode",
	[0x02] = "Invalid Field in Command",
	[0x03] = "Command ID Conflict",
	[0x04] = "Data Transfer Error",
	[0x05] = "Commands Aborted due to Power Loss Notification",
	[0x06] = "Internal Error",
	[0x07] = "Command Abort Requested",
	[0x08] = "Command Aborted due to SQ Deletion",
	[0x09] = "Command Aborted due to Failed Fused Command",
	[0x0a] = "Command Aborted due to Missing Fused Command",
	[0x0b] = "Invalid Namespace or Format",
	[0x0c] = "Command Sequence Error",
	[0x0d] = "Invalid SGL Segment Descriptor",
	[0x0e] = "Invalid Number of SGL Descriptors",
	[0x0f] = "Data SGL Length Invalid",
	[0x10] = "Metadata SGL Length Invalid",
	[0x11] = "SGL Descriptor Type Invalid",
	[0x12] = "Invalid Use of Controller Memory Buffer",
	[0x13] = "PRP Offset Invalid",
	[0x14] = "Atomic Write Unit Exceeded",
	[0x15] = "Operation Denied",
	[0x16] = "SGL Offset Invalid",
	[0x18] = "Host Identifier Inconsistent Format",
	[0x19] = "Keep Alive Timer Expired",
	[0x1a] = "Keep Alive Timeout Invalid",
	[0x1b] = "Command Aborted due to Preempt and Abort",
	[0x1c] = "Sanitize Failed",
	[0x1d] = "Sanitize In Progress",
	[0x1e] = "SGL Data Block Granularity Invalid",
	[0x1f] = "Command Not Supported for Queue in CMB",
	[0x20] = "Namespace is Write Protected",
	[0x21] = "Command Interrupted",
	[0x22] = "Transient Transport Error",
	[0x80] = "LBA Out of Range",
	[0x81] = "Capacity Exceeded",
	[0x82] = "Namespace Not Ready",
	[0x83] = "Reservation Conflict",
	[0x84] = "Format In Progress",
};

/* Command specific, 0x00-0x7f: admin commands; 0x80+: NVM command set I/O. */
static const char *const cmd_specific_names[256] = {
	[0x00] = "Completion Queue Invalid",
	[0x01] = "Invalid Queue Identifier",
	[0x02] = "Invalid Queue Size",
	[0x03] = "Abort Command Limit Exceeded",
	[0x05] = "Asynchronous Event Request Limit Exceeded",
	[0x06] = "Invalid Firmware Slot",
	[0x07] = "Invalid Firmware Image",
	[0x08] = "Invalid Interrupt Vector",
	[0x09] = "Invalid Log Page",
	[0x0a] = "Invalid Format",
	[0x0b] = "Firmware Activation Requires Conventional Reset",
	[0x0c] = "Invalid Queue Deletion",
	[0x0d] = "Feature Identifier Not Saveable",
	[0x0e] = "Feature Not Changeable",
	[0x0f] = "Feature Not Namespace Specific",
	[0x10] = "Firmware Activation Requires NVM Subsystem Reset",
	[0x11] = "Firmware Activation Requires Controller Level Reset",
	[0x12] = "Firmware Activation Requires Maximum Time Violation",
	[0x13] = "Firmware Activation Prohibited",
	[0x14] = "Overlapping Range",
	[0x15] = "Namespace Insufficient Capacity",
	[0x16] = "Namespace Identifier Unavailable",
	[0x18] = "Namespace Already Attached",
	[0x19] = "Namespace Is Private",
	[0x1a] = "Namespace Not Attached",
	[0x1b] = "Thin Provisioning Not Supported",
	[0x1c] = "Controller List Invalid",
	[0x1d] = "Device Self-test In Progress",
	[0x1e] = "Boot Partition Write Prohibited",
	[0x1f] = "Invalid Controller Identifier",
	[0x20] = "Invalid Secondary Controller State",
	[0x21] = "Invalid Number of Controller Resources",
	[0x22] = "Invalid Resource Identifier",
	[0x80] = "Conflicting Attributes",
	[0x81] = "Invalid Protection Information",
	[0x82] = "Attempted Write to Read Only Range",
};

/* Command specific codes of Fabrics commands (Connect, Property Get/Set...). */
static const char *const fabrics_names[256] = {
	[0x80] = "Incompatible Format",
	[0x81] = "Controller Busy",
	[0x82] = "Connect Invalid Parameters",
	[0x83] = "Connect Restart Discovery",
	[0x84] = "Connect Invalid Host",
	[0x85] = "Invalid Queue Type",
	[0x90] = "Discover Restart",
	[0x91] = "Authentication Required",
};

static const char *const media_names[256] = {
	[0x80] = "Write Fault",
	[0x81] = "Unrecovered Read Error",
	[0x82] = "End-to-end Guard Check Error",
	[0x83] = "End-to-end Application Tag Check Error",
	[0x84] = "End-to-end Reference Tag Check Error",
	[0x85] = "Compare Failure",
	[0x86] = "Access Denied",
	[0x87] = "Deallocated or Unwritten Logical Block",
};

static const char *const path_names[256] = {
	[0x00] = "Internal Path Error",
	[0x01] = "Asymmetric Access Persistent Loss",
	[0x02] = "Asymmetric Access Inaccessible",
	[0x03] = "Asymmetric Access Transition",
	[0x60] = "Controller Pathing Error",
	[0x70] = "Host Pathing Error",
	[0x71] = "Command Aborted By Host",
};

const char *nvme_status_name(unsigned sct, unsigned sc, int fabrics_cmd)
{
	const char *name = NULL;

	if (sc > 0xff)
		return "Unknown status";
	switch (sct) {
	case NVME_SCT_GENERIC:
		name = generic_names[sc];
		break;
	case NVME_SCT_CMD_SPECIFIC:
		/* 0x80+ is command-set specific; for Fabrics commands that range
		 * belongs to Fabrics, so never fall back to the NVM meanings. */
		if (fabrics_cmd && sc >= 0x80)
			name = fabrics_names[sc];
		else
			name = cmd_specific_names[sc];
		break;
	case NVME_SCT_MEDIA:
		name = media_names[sc];
		break;
	case NVME_SCT_PATH:
		name = path_names[sc];
		break;
	case NVME_SCT_VENDOR:
		name = "Vendor Specific";
		break;
	default:
		break;
	}
	return name ? name : "Unknown status";
}

int nvme_status_format(char *buf, size_t len, uint16_t status_code, int fabrics_cmd)
{
	unsigned sct = (status_code >> 8) & 0x7u;
	unsigned sc = status_code & 0xffu;

	return snprintf(buf, len, "NVMe status 0x%x/0x%02x: %s", sct, sc,
			nvme_status_name(sct, sc, fabrics_cmd));
}

int nvme_status_format_raw(char *buf, size_t len, uint16_t raw_status, int fabrics_cmd)
{
	char flags[32];
	int n = 0;

	/* DNR says a retry is pointless, More that the Error log has details: both matter to
	 * whoever reads the message, so they are named rather than dropped. */
	flags[0] = 0;
	if (nvme_status_dnr(raw_status))
		n += snprintf(flags + n, sizeof(flags) - (size_t)n, "DNR");
	if (nvme_status_more(raw_status))
		n += snprintf(flags + n, sizeof(flags) - (size_t)n, "%sMore", n ? ", " : "");
	if (nvme_status_crd(raw_status))
		n += snprintf(flags + n, sizeof(flags) - (size_t)n, "%sCRD %u", n ? ", " : "",
			      nvme_status_crd(raw_status));
	return snprintf(buf, len, "NVMe status 0x%x/0x%02x: %s%s%s%s", nvme_status_sct(raw_status),
			nvme_status_sc(raw_status),
			nvme_status_name(nvme_status_sct(raw_status), nvme_status_sc(raw_status),
					 fabrics_cmd),
			n ? " (" : "", flags, n ? ")" : "");
}

const char *nvmf_rdma_cm_status_name(uint16_t sts)
{
	switch (sts) {
	case NVMF_RDMA_CM_INVALID_LEN:
		return "invalid private data length";
	case NVMF_RDMA_CM_INVALID_RECFMT:
		return "invalid record format";
	case NVMF_RDMA_CM_INVALID_QID:
		return "invalid queue ID";
	case NVMF_RDMA_CM_INVALID_HSQSIZE:
		return "invalid host SQ size";
	case NVMF_RDMA_CM_INVALID_HRQSIZE:
		return "invalid host RQ size";
	case NVMF_RDMA_CM_NO_RESOURCES:
		return "no resources";
	case NVMF_RDMA_CM_INVALID_IRD:
		return "invalid IRD";
	case NVMF_RDMA_CM_INVALID_ORD:
		return "invalid ORD";
	case NVMF_RDMA_CM_INVALID_CNTLID:
		return "invalid controller ID";
	default:
		return "unknown reject status";
	}
}

const char *nvme_opcode_name(uint8_t opc, int admin)
{
	if (opc == NVME_FABRICS_OPC)
		return "Fabrics";
	if (admin) {
		switch (opc) {
		case NVME_ADMIN_GET_LOG_PAGE:
			return "Get Log Page";
		case NVME_ADMIN_IDENTIFY:
			return "Identify";
		case NVME_ADMIN_ABORT:
			return "Abort";
		case NVME_ADMIN_SET_FEATURES:
			return "Set Features";
		case NVME_ADMIN_GET_FEATURES:
			return "Get Features";
		case NVME_ADMIN_ASYNC_EVENT:
			return "Asynchronous Event Request";
		case NVME_ADMIN_KEEP_ALIVE:
			return "Keep Alive";
		default:
			return "Unknown";
		}
	}
	switch (opc) {
	case NVME_CMD_FLUSH:
		return "Flush";
	case NVME_CMD_WRITE:
		return "Write";
	case NVME_CMD_READ:
		return "Read";
	case NVME_CMD_COMPARE:
		return "Compare";
	case NVME_CMD_WRITE_ZEROES:
		return "Write Zeroes";
	case NVME_CMD_DSM:
		return "Dataset Management";
	default:
		return "Unknown";
	}
}

/* ---- checks on what a target sends ---------------------------------------------------- */

uint32_t nvmf_mdts_bytes(uint8_t mdts, uint64_t cap)
{
	unsigned shift = 12u + nvme_cap_mpsmin(cap) + mdts;

	if (!mdts || shift >= 32)
		return 0;
	return (uint32_t)1 << shift;
}

int nvmf_id_ctrl_check(const struct nvme_id_ctrl *id, uint64_t cap, char *why, size_t len)
{
	unsigned page_shift = 12u + nvme_cap_mpsmin(cap);
	uint32_t ioccsz = le32toh(id->ioccsz);

	if (why && len)
		why[0] = 0;
	/* MQES is 0's based and 0 is reserved: a one-entry queue holds no command at all. */
	if (nvme_cap_mqes(cap) == 0)
		return nvmf_errf(why, len, -EPROTO, "CAP.MQES 0 (a one-entry queue)");
	/* 2^32..2^63 bytes is only "no limit that matters" (nvmf_mdts_bytes); past 64 bits the
	 * controller is not describing a transfer size at all. */
	if (id->mdts && page_shift + id->mdts >= 64)
		return nvmf_errf(why, len, -EPROTO, "MDTS %u (2^%u pages of %u bytes overflows 64 "
				 "bits)", id->mdts, id->mdts, 1u << page_shift);
	if (le32toh(id->nn) == 0)
		return nvmf_errf(why, len, -EPROTO, "NN 0 (the controller has no namespace IDs)");
	if (ioccsz < NVME_SQE_SIZE / 16)
		return nvmf_errf(why, len, -EPROTO, "IOCCSZ %u (%u bytes: less than the 64-byte "
				 "command)", ioccsz, ioccsz * 16);
	if (ioccsz > UINT32_MAX / 16)
		return nvmf_errf(why, len, -EPROTO, "IOCCSZ %u (%llu bytes: overflows 32 bits)",
				 ioccsz, (unsigned long long)ioccsz * 16);
	return 0;
}

int nvmf_id_ns_check(const struct nvme_id_ns *ns, uint32_t mdts_bytes, char *why, size_t len)
{
	uint64_t nsze = le64toh(ns->nsze);
	unsigned idx, lbads;

	if (why && len)
		why[0] = 0;
	if (!nsze)
		return nvmf_errf(why, len, -ENODEV, "NSZE 0 (not an active namespace)");
	if (ns->nlbaf > 63)
		return nvmf_errf(why, len, -EPROTO, "NLBAF %u (more than 64 LBA formats)", ns->nlbaf);
	idx = nvme_id_ns_flbas_index(ns);
	if (idx > ns->nlbaf)
		return nvmf_errf(why, len, -EPROTO, "FLBAS 0x%02x (LBA format %u of %u)", ns->flbas,
				 idx, ns->nlbaf + 1u);
	/* 512 B is the spec's minimum; above 64 KiB no real device exists and the byte
	 * arithmetic downstream (size, offsets, transfer splits) stops being trustworthy. */
	lbads = ns->lbaf[idx].lbads;
	if (lbads < 9 || lbads > 16)
		return nvmf_errf(why, len, -EPROTO, "LBA format %u: LBADS %u (2^%u-byte blocks, not "
				"512 B..64 KiB)", idx, lbads, lbads);
	if (nsze > UINT64_MAX >> lbads)
		return nvmf_errf(why, len, -EPROTO, "NSZE %llu (blocks of %u bytes overflow 64 bits)",
				 (unsigned long long)nsze, 1u << lbads);
	if (mdts_bytes && (1u << lbads) > mdts_bytes)
		return nvmf_errf(why, len, -EPROTO, "LBA format %u: %u-byte blocks (larger than MDTS, "
				"%u bytes: no command can carry one)", idx, 1u << lbads, mdts_bytes);
	return 0;
}

int nvmf_rdma_cm_accept_parse(const void *priv, size_t len, uint16_t *crqsize, char *why,
			      size_t whylen)
{
	const uint8_t *p = priv;
	uint16_t recfmt;

	*crqsize = 0;
	if (why && whylen)
		why[0] = 0;
	/* No private data at all: nothing learned, the host's own sizes stand (Linux's host
	 * does not read it either). */
	if (!p || !len)
		return 0;
	if (len < 4)
		return nvmf_errf(why, whylen, -EPROTO, "accept private data of %zu bytes (RECFMT and "
				"CRQSIZE need 4)", len);
	recfmt = nvmf_get_le16(p);
	if (recfmt != 0)
		return nvmf_errf(why, whylen, -EPROTO, "accept private data RECFMT %u (only 0 is "
				"defined)", recfmt);
	*crqsize = nvmf_get_le16(p + 2);
	return 0;
}

/* ---- log pages -------------------------------------------------------------------------- */

const char *nvme_ana_state_name(uint8_t state)
{
	switch (state) {
	case NVME_ANA_OPTIMIZED:
		return "optimized";
	case NVME_ANA_NON_OPTIMIZED:
		return "non-optimized";
	case NVME_ANA_INACCESSIBLE:
		return "inaccessible";
	case NVME_ANA_PERSISTENT_LOSS:
		return "persistent-loss";
	case NVME_ANA_CHANGE:
		return "change";
	default:
		return "reserved";
	}
}

int nvme_ana_log_parse(const void *buf, size_t len, uint64_t *chgcnt, struct nvme_ana_group *groups,
		       unsigned max_groups, unsigned *nr_groups, char *why, size_t whylen)
{
	const uint8_t *p = buf;
	size_t off = NVME_ANA_LOG_HDR_SIZE;
	unsigned ngrps;

	*nr_groups = 0;
	*chgcnt = 0;
	if (why && whylen)
		why[0] = 0;
	if (!p || len < NVME_ANA_LOG_HDR_SIZE)
		return nvmf_errf(why, whylen, -EINVAL, "ANA log of %zu bytes (the header needs %d)",
				 p ? len : 0, NVME_ANA_LOG_HDR_SIZE);
	*chgcnt = nvmf_get_le64(p);
	ngrps = nvmf_get_le16(p + 8);
	if (ngrps > max_groups)
		return nvmf_errf(why, whylen, -EOVERFLOW, "ANA log NGRPS %u (room for %u groups)",
				 ngrps, max_groups);
	for (unsigned i = 0; i < ngrps; i++) {
		const uint8_t *d = p + off;
		uint32_t nnsids, grpid;

		/* Compare against what is left, never compute an end that could wrap. */
		if (len - off < NVME_ANA_GROUP_DESC_SIZE)
			return nvmf_errf(why, whylen, -EINVAL, "ANA log NGRPS %u: group descriptor %u "
					 "at byte %zu is cut short (%zu bytes read)", ngrps, i, off, len);
		grpid = nvmf_get_le32(d);
		nnsids = nvmf_get_le32(d + 4);
		if (grpid == 0)
			return nvmf_errf(why, whylen, -EINVAL, "ANA log group descriptor %u at byte %zu: "
					 "ANAGRPID 0 (reserved)", i, off);
		if ((len - off - NVME_ANA_GROUP_DESC_SIZE) / 4 < nnsids)
			return nvmf_errf(why, whylen, -EINVAL, "ANA log group %u (descriptor %u at byte "
					 "%zu): NNSIDS %u runs past the %zu bytes read", grpid, i,
					 off, nnsids, len);
		groups[i].grpid = grpid;
		groups[i].nr_nsids = nnsids;
		groups[i].chgcnt = nvmf_get_le64(d + 8);
		groups[i].state = d[16] & 0xfu;
		off += NVME_ANA_GROUP_DESC_SIZE + (size_t)nnsids * 4;
	}
	*nr_groups = ngrps;
	return 0;
}

int nvme_ana_log_state_of(const struct nvme_ana_group *g, unsigned n, uint32_t grpid,
			  uint8_t *state)
{
	for (unsigned i = 0; i < n; i++)
		if (g[i].grpid == grpid) {
			*state = g[i].state;
			return 0;
		}
	return -ENOENT;
}

int nvmf_disc_log_parse_hdr(const void *buf, size_t len, uint64_t *genctr, uint64_t *numrec,
			    char *why, size_t whylen)
{
	const uint8_t *p = buf;
	uint16_t recfmt;

	*genctr = 0;
	*numrec = 0;
	if (why && whylen)
		why[0] = 0;
	if (!p || len < NVMF_DISC_LOG_HDR_SIZE)
		return nvmf_errf(why, whylen, -EINVAL, "discovery log header of %zu bytes (it is %d)",
				 p ? len : 0, NVMF_DISC_LOG_HDR_SIZE);
	recfmt = nvmf_get_le16(p + 16);
	if (recfmt != 0)
		return nvmf_errf(why, whylen, -EINVAL, "discovery log RECFMT %u (only 0 is defined)",
				 recfmt);
	*genctr = nvmf_get_le64(p);
	*numrec = nvmf_get_le64(p + 8);
	if (*numrec > NVMF_DISC_MAX_RECORDS)
		return nvmf_errf(why, whylen, -EOVERFLOW, "discovery log NUMREC %llu (more than the "
				 "%u records this host reads)", (unsigned long long)*numrec,
				 NVMF_DISC_MAX_RECORDS);
	return 0;
}

/* A string field of an entry: up to the first NUL, trailing spaces dropped, into out (n + 1
 * bytes).  Printable ASCII only: 0, or the offset of the first other byte + 1. */
static size_t disc_str(char *out, const char *field, size_t n)
{
	size_t len = strnlen(field, n);

	for (size_t i = 0; i < len; i++)
		if ((unsigned char)field[i] < 0x20 || (unsigned char)field[i] > 0x7e)
			return i + 1;
	while (len && field[len - 1] == ' ')
		len--;
	memcpy(out, field, len);
	out[len] = 0;
	return 0;
}

int nvmf_disc_entry_decode(const void *raw1024, struct nvmf_disc_entry *e, char *why, size_t whylen)
{
	const uint8_t *p = raw1024;
	static const struct {
		const char *name;
		size_t off, len, out;
	} str[] = {
		{ "TRSVCID", 32, NVMF_TRSVCID_SIZE, offsetof(struct nvmf_disc_entry, trsvcid) },
		{ "SUBNQN", 256, NVMF_NQN_FIELD_SIZE, offsetof(struct nvmf_disc_entry, subnqn) },
		{ "TRADDR", 512, NVMF_TRADDR_SIZE, offsetof(struct nvmf_disc_entry, traddr) },
	};

	memset(e, 0, sizeof(*e));
	if (why && whylen)
		why[0] = 0;
	for (unsigned i = 0; i < sizeof(str) / sizeof(str[0]); i++) {
		const char *field = (const char *)p + str[i].off;
		size_t bad = disc_str((char *)e + str[i].out, field, str[i].len);

		if (bad) {
			unsigned char b = (unsigned char)field[bad - 1];

			memset(e, 0, sizeof(*e));
			return nvmf_errf(why, whylen, -EINVAL, "discovery log entry: %s byte %zu is "
					 "0x%02x (not printable ASCII)", str[i].name, bad - 1, b);
		}
	}
	e->trtype = p[0];
	e->adrfam = p[1];
	e->subtype = p[2];
	e->treq = p[3];
	e->portid = nvmf_get_le16(p + 4);
	e->cntlid = nvmf_get_le16(p + 6);
	e->asqsz = nvmf_get_le16(p + 8);
	e->eflags = nvmf_get_le16(p + 10);
	if (e->trtype == NVMF_TRTYPE_RDMA) {
		e->rdma_qptype = p[768];
		e->rdma_prtype = p[769];
		e->rdma_cms = p[770];
		e->rdma_pkey = nvmf_get_le16(p + 776);
	} else if (e->trtype == NVMF_TRTYPE_TCP) {
		e->tcp_sectype = p[768];
	}
	/* A referral read as a subsystem (or the reverse) sends the host to the wrong place. */
	if (e->subtype < NVMF_SUBTYPE_REFERRAL || e->subtype > NVMF_SUBTYPE_CURRENT) {
		unsigned st = e->subtype;

		memset(e, 0, sizeof(*e));
		return nvmf_errf(why, whylen, -EINVAL, "discovery log entry: SUBTYPE %u (not 1 "
				 "referral, 2 NVMe subsystem or 3 current discovery subsystem)", st);
	}
	if (!e->subnqn[0] || !e->traddr[0]) {
		const char *f = !e->subnqn[0] ? "SUBNQN" : "TRADDR";

		memset(e, 0, sizeof(*e));
		return nvmf_errf(why, whylen, -EINVAL, "discovery log entry: %s is empty", f);
	}
	return 0;
}

const char *nvmf_trtype_name(uint8_t trtype)
{
	switch (trtype) {
	case NVMF_TRTYPE_RDMA: return "rdma";
	case NVMF_TRTYPE_FC: return "fc";
	case NVMF_TRTYPE_TCP: return "tcp";
	case NVMF_TRTYPE_LOOP: return "loop";
	default: return "unrecognized";
	}
}

const char *nvmf_adrfam_name(uint8_t adrfam)
{
	switch (adrfam) {
	case NVMF_ADRFAM_IPV4: return "ipv4";
	case NVMF_ADRFAM_IPV6: return "ipv6";
	case NVMF_ADRFAM_IB: return "infiniband";
	case NVMF_ADRFAM_FC: return "fibre-channel";
	case NVMF_ADRFAM_LOOP: return "intra-host";
	default: return "unrecognized";
	}
}

const char *nvmf_subtype_name(uint8_t subtype)
{
	switch (subtype) {
	case NVMF_SUBTYPE_REFERRAL: return "discovery subsystem referral";
	case NVMF_SUBTYPE_NVME: return "nvme subsystem";
	case NVMF_SUBTYPE_CURRENT: return "current discovery subsystem";
	default: return "unrecognized";
	}
}

const char *nvmf_treq_secure_name(uint8_t treq)
{
	switch (treq & NVMF_TREQ_SECURE_MASK) {
	case 0: return "not specified";
	case 1: return "required";
	case 2: return "not required";
	default: return "unrecognized";
	}
}

const char *nvmf_rdma_qptype_name(uint8_t qptype)
{
	switch (qptype) {
	case 1: return "connected";
	case 2: return "datagram";
	default: return "unrecognized";
	}
}

const char *nvmf_rdma_prtype_name(uint8_t prtype)
{
	switch (prtype) {
	case 1: return "not specified";
	case 2: return "infiniband";
	case 3: return "roce";
	case 4: return "roce-v2";
	case 5: return "iwarp";
	default: return "unrecognized";
	}
}

const char *nvmf_rdma_cms_name(uint8_t cms)
{
	return cms == 1 ? "rdma-cm" : "unrecognized";
}

const char *nvmf_tcp_sectype_name(uint8_t sectype)
{
	switch (sectype) {
	case 0: return "none";
	case 1: return "tls";
	case 2: return "tls13";
	default: return "unrecognized";
	}
}

/* ---- NVMe/TCP ---------------------------------------------------------------------------- */

const char *nvme_tcp_pdu_type_name(uint8_t type)
{
	switch (type) {
	case NVME_TCP_PDU_ICREQ:    return "ICReq";
	case NVME_TCP_PDU_ICRESP:   return "ICResp";
	case NVME_TCP_PDU_H2C_TERM: return "H2CTermReq";
	case NVME_TCP_PDU_C2H_TERM: return "C2HTermReq";
	case NVME_TCP_PDU_CMD:      return "CapsuleCmd";
	case NVME_TCP_PDU_RSP:      return "CapsuleResp";
	case NVME_TCP_PDU_H2C_DATA: return "H2CData";
	case NVME_TCP_PDU_C2H_DATA: return "C2HData";
	case NVME_TCP_PDU_R2T:      return "R2T";
	default:                    return "unknown";
	}
}

const char *nvme_tcp_fes_name(uint16_t fes)
{
	switch (fes) {
	case NVME_TCP_FES_INVALID_PDU_HDR:     return "invalid PDU header field";
	case NVME_TCP_FES_PDU_SEQ_ERR:         return "PDU sequence error";
	case NVME_TCP_FES_HDR_DIGEST_ERR:      return "header digest error";
	case NVME_TCP_FES_DATA_OUT_OF_RANGE:   return "data transfer out of range";
	case NVME_TCP_FES_DATA_LIMIT_EXCEEDED: return "data transfer limit exceeded";
	case NVME_TCP_FES_UNSUPPORTED_PARAM:   return "unsupported parameter";
	default:                               return "unknown fatal error status";
	}
}

static const char *nvme_tcp_dgst_words(int hdgst, int ddgst)
{
	return hdgst ? ddgst ? "header and data digests" : "header digests only" :
		       ddgst ? "data digests only" : "no digests";
}

int nvme_tcp_icresp_parse(const void *buf, size_t len, int want_hdgst, int want_ddgst,
			  struct nvme_tcp_icresp_info *out, char *why, size_t whylen)
{
	const uint8_t *p = buf;
	uint32_t plen, maxh2c;
	int hdgst, ddgst;

	memset(out, 0, sizeof(*out));
	if (why && whylen)
		why[0] = 0;
	if (len < sizeof(struct nvme_tcp_ch))
		return nvmf_errf(why, whylen, -EPROTO, "%zu bytes (not even a PDU header)", len);
	if (p[0] != NVME_TCP_PDU_ICRESP)
		return nvmf_errf(why, whylen, -EPROTO, "PDU type 0x%02x (%s), not ICResp", p[0],
				 nvme_tcp_pdu_type_name(p[0]));
	if (p[2] != NVME_TCP_IC_LEN)
		return nvmf_errf(why, whylen, -EPROTO, "HLEN %u (expected %u)", p[2], NVME_TCP_IC_LEN);
	if (p[3] != 0)
		return nvmf_errf(why, whylen, -EPROTO, "PDO %u (an ICResp has no data)", p[3]);
	plen = nvmf_get_le32(p + 4);
	if (plen != NVME_TCP_IC_LEN)
		return nvmf_errf(why, whylen, -EPROTO, "PLEN %u (expected %u)", plen, NVME_TCP_IC_LEN);
	if (len < NVME_TCP_IC_LEN)
		return nvmf_errf(why, whylen, -EPROTO, "%zu bytes (an ICResp has %u)", len,
				 NVME_TCP_IC_LEN);
	if (nvmf_get_le16(p + 8) != NVME_TCP_PFV_1_0)
		return nvmf_errf(why, whylen, -EPROTO, "PFV %u (only 0, NVMe/TCP 1.0, is known)",
				 nvmf_get_le16(p + 8));
	if (p[10] > NVME_TCP_MAX_CPDA)
		return nvmf_errf(why, whylen, -EPROTO, "CPDA %u (at most %u)", p[10],
				 NVME_TCP_MAX_CPDA);
	maxh2c = nvmf_get_le32(p + 12);
	if (maxh2c < NVME_TCP_MIN_MAXH2CDATA || maxh2c % 4)
		return nvmf_errf(why, whylen, -EPROTO, "MAXH2CDATA %u (must be at least %u and a "
				 "multiple of 4)", maxh2c, NVME_TCP_MIN_MAXH2CDATA);
	hdgst = !!(p[11] & NVME_TCP_DGST_HDGST_ENABLE);
	ddgst = !!(p[11] & NVME_TCP_DGST_DDGST_ENABLE);
	if (hdgst != !!want_hdgst || ddgst != !!want_ddgst)
		return nvmf_errf(why, whylen, -EPROTO, "DGST 0x%02x grants %s, but the host asked "
				 "for %s", p[11], nvme_tcp_dgst_words(hdgst, ddgst),
				 nvme_tcp_dgst_words(want_hdgst, want_ddgst));
	out->cpda = p[10];
	out->hdgst = hdgst;
	out->ddgst = ddgst;
	out->maxh2cdata = maxh2c;
	return 0;
}

/* A refused PDU: how an H2CTermReq reports it, and the parser's error. */
#define CH_OFF(field) offsetof(struct nvme_tcp_ch, field)

static int nvme_tcp_refused(struct nvme_tcp_pdu_info *out, uint16_t fes, uint32_t fei, int rc)
{
	out->err_fes = fes;
	out->err_fei = fei;
	return rc;
}

static int nvme_tcp_refused_f(struct nvme_tcp_pdu_fields *f, uint16_t fes, uint32_t fei, int rc)
{
	f->err_fes = fes;
	f->err_fei = fei;
	return rc;
}

size_t nvme_tcp_h2c_term_build(void *buf, uint16_t fes, uint32_t fei, const void *hdr,
			       size_t hdr_len)
{
	uint8_t *p = buf;

	if (hdr_len > NVME_TCP_TERM_MAX_DATA)
		hdr_len = NVME_TCP_TERM_MAX_DATA;
	memset(p, 0, NVME_TCP_TERM_HLEN);
	p[0] = NVME_TCP_PDU_H2C_TERM;
	p[2] = NVME_TCP_TERM_HLEN;
	nvmf_put_le32(p + 4, (uint32_t)(NVME_TCP_TERM_HLEN + hdr_len));
	nvmf_put_le16(p + 8, fes);
	/* FEI means something for these two only: elsewhere it is reserved */
	if (fes == NVME_TCP_FES_INVALID_PDU_HDR || fes == NVME_TCP_FES_UNSUPPORTED_PARAM)
		nvmf_put_le32(p + 10, fei);
	if (hdr_len)
		memcpy(p + NVME_TCP_TERM_HLEN, hdr, hdr_len);
	return NVME_TCP_TERM_HLEN + hdr_len;
}

int nvme_tcp_ch_parse(const void *ch, int hdgst, int ddgst, struct nvme_tcp_pdu_info *out,
		      char *why, size_t whylen)
{
	const uint8_t *p = ch;
	unsigned hd = hdgst ? NVME_TCP_DIGEST_LEN : 0, dd = ddgst ? NVME_TCP_DIGEST_LEN : 0;
	const char *name = nvme_tcp_pdu_type_name(p[0]);
	unsigned want_hlen;

	memset(out, 0, sizeof(*out));
	if (why && whylen)
		why[0] = 0;
	out->type = p[0];
	out->flags = p[1];
	out->hlen = p[2];
	out->pdo = p[3];
	out->plen = nvmf_get_le32(p + 4);
	switch (p[0]) {
	case NVME_TCP_PDU_RSP:
		want_hlen = NVME_TCP_RSP_HLEN;
		break;
	case NVME_TCP_PDU_C2H_DATA:
		want_hlen = NVME_TCP_DATA_HLEN;
		break;
	case NVME_TCP_PDU_R2T:
		want_hlen = NVME_TCP_R2T_HLEN;
		break;
	case NVME_TCP_PDU_C2H_TERM:
		want_hlen = NVME_TCP_TERM_HLEN;
		break;
	case NVME_TCP_PDU_ICRESP:
		return nvme_tcp_refused(out, NVME_TCP_FES_PDU_SEQ_ERR, 0,
					nvmf_errf(why, whylen, -EPROTO, "ICResp PDU after the "
						  "connection was set up"));
	case NVME_TCP_PDU_ICREQ:
	case NVME_TCP_PDU_H2C_TERM:
	case NVME_TCP_PDU_CMD:
	case NVME_TCP_PDU_H2C_DATA:
		return nvme_tcp_refused(out, NVME_TCP_FES_INVALID_PDU_HDR, CH_OFF(type),
					nvmf_errf(why, whylen, -EPROTO, "%s PDU (type 0x%02x) from "
						  "the controller (a host-to-controller type)", name,
						  p[0]));
	default:
		return nvme_tcp_refused(out, NVME_TCP_FES_INVALID_PDU_HDR, CH_OFF(type),
					nvmf_errf(why, whylen, -EPROTO, "unknown PDU type 0x%02x",
						  p[0]));
	}
	if (out->hlen != want_hlen)
		return nvme_tcp_refused(out, NVME_TCP_FES_INVALID_PDU_HDR, CH_OFF(hlen),
					nvmf_errf(why, whylen, -EPROTO, "%s PDU with HLEN %u "
						  "(expected %u)", name, out->hlen, want_hlen));
	switch (p[0]) {
	case NVME_TCP_PDU_C2H_TERM:
		/* No digests on a TermReq: the header alone says why the connection ends. */
		if (out->pdo != 0)
			return nvme_tcp_refused(out, NVME_TCP_FES_INVALID_PDU_HDR, CH_OFF(pdo),
						nvmf_errf(why, whylen, -EPROTO, "C2HTermReq PDU with "
							  "PDO %u (expected 0)", out->pdo));
		if (out->plen < want_hlen)
			return nvme_tcp_refused(out, NVME_TCP_FES_INVALID_PDU_HDR, CH_OFF(plen),
						nvmf_errf(why, whylen, -EPROTO, "C2HTermReq PDU with "
							  "PLEN %u (below HLEN %u)", out->plen,
							  want_hlen));
		out->hdr_len = want_hlen;
		return 0;
	case NVME_TCP_PDU_C2H_DATA:
		/* HPDA 0: data aligned to dwords, after the header and its digest */
		if (out->pdo < want_hlen + hd || out->pdo % 4)
			return nvme_tcp_refused(out, NVME_TCP_FES_INVALID_PDU_HDR, CH_OFF(pdo),
						nvmf_errf(why, whylen, -EPROTO, "C2HData PDU with PDO "
							  "%u (the data must start past the %u-byte "
							  "header%s, dword aligned)", out->pdo,
							  want_hlen, hd ? " and its digest" : ""));
		if (out->plen <= (uint64_t)out->pdo + dd)
			return nvme_tcp_refused(out, NVME_TCP_FES_INVALID_PDU_HDR, CH_OFF(plen),
						nvmf_errf(why, whylen, -EPROTO, "C2HData PDU with "
							  "PLEN %u (PDO %u%s leaves no data)", out->plen,
							  out->pdo, dd ? " and the data digest" : ""));
		out->hdr_len = out->pdo;
		out->data_len = out->plen - out->pdo - dd;
		return 0;
	default:
		if (out->pdo != 0)
			return nvme_tcp_refused(out, NVME_TCP_FES_INVALID_PDU_HDR, CH_OFF(pdo),
						nvmf_errf(why, whylen, -EPROTO, "%s PDU with PDO %u (it "
							  "carries no data)", name, out->pdo));
		if (out->plen != want_hlen + hd)
			return nvme_tcp_refused(out, NVME_TCP_FES_INVALID_PDU_HDR, CH_OFF(plen),
						nvmf_errf(why, whylen, -EPROTO, "%s PDU with PLEN %u "
							  "(expected %u%s)", name, out->plen,
							  want_hlen + hd,
							  hd ? ", header digest included" : ""));
		out->hdr_len = want_hlen + hd;
		return 0;
	}
}

int nvme_tcp_pdu_parse(const void *hdr, const struct nvme_tcp_pdu_info *info,
		       struct nvme_tcp_pdu_fields *f, char *why, size_t whylen)
{
	const uint8_t *p = hdr;

	memset(f, 0, sizeof(*f));
	if (why && whylen)
		why[0] = 0;
	switch (info->type) {
	case NVME_TCP_PDU_C2H_DATA:
		f->cccid = nvmf_get_le16(p + 8);
		f->off = nvmf_get_le32(p + 12);
		f->len = nvmf_get_le32(p + 16);
		if (f->len != info->data_len)
			return nvme_tcp_refused_f(f, NVME_TCP_FES_INVALID_PDU_HDR,
						  offsetof(struct nvme_tcp_data_pdu, datal),
						  nvmf_errf(why, whylen, -EPROTO, "C2HData for command "
							    "0x%04x with DATAL %u, but its PLEN %u "
							    "leaves %u data bytes", f->cccid, f->len,
							    info->plen, info->data_len));
		if ((info->flags & NVME_TCP_F_DATA_SUCCESS) && !(info->flags & NVME_TCP_F_DATA_LAST))
			return nvme_tcp_refused_f(f, NVME_TCP_FES_INVALID_PDU_HDR, CH_OFF(flags),
						  nvmf_errf(why, whylen, -EPROTO, "C2HData for command "
							    "0x%04x with the SUCCESS flag but not LAST "
							    "(flags 0x%02x)", f->cccid, info->flags));
		return 0;
	case NVME_TCP_PDU_R2T:
		f->cccid = nvmf_get_le16(p + 8);
		f->ttag = nvmf_get_le16(p + 10);
		f->off = nvmf_get_le32(p + 12);
		f->len = nvmf_get_le32(p + 16);
		if (!f->len)
			return nvme_tcp_refused_f(f, NVME_TCP_FES_INVALID_PDU_HDR,
						  offsetof(struct nvme_tcp_r2t_pdu, r2tl),
						  nvmf_errf(why, whylen, -EPROTO, "R2T for command "
							    "0x%04x with R2TL 0", f->cccid));
		return 0;
	case NVME_TCP_PDU_C2H_TERM:
		f->fes = nvmf_get_le16(p + 8);
		f->fei = nvmf_get_le32(p + 10);
		return 0;
	case NVME_TCP_PDU_RSP:
		f->cccid = nvmf_get_le16(p + 8 + 12);
		return 0;
	default:
		return nvme_tcp_refused_f(f, NVME_TCP_FES_INVALID_PDU_HDR, CH_OFF(type),
					  nvmf_errf(why, whylen, -EPROTO, "unknown PDU type 0x%02x",
						    info->type));
	}
}
