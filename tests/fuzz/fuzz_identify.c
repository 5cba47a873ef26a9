/* fuzz_identify.c - libFuzzer target: Identify Controller and Identify Namespace data and the
 * CAP register as a target reports them, through the checks the lane runs
 * (nvmf_id_ctrl_check, nvmf_mdts_bytes, nvmf_id_ns_check) and the spec accessors behind them.
 *
 * Input: CAP (8 bytes, little-endian), then the Identify Controller page, then the Identify
 * Namespace page (4096 bytes each; missing bytes are zero).  Whatever passes the checks must
 * be usable the way the lane and the engine use it: a block of 512 B..64 KiB that a command
 * can carry, a namespace size in bytes that fits 64 bits, an in-capsule size that fits. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmf_spec.h"

#include "fuzz_assert.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_why(const char *why, size_t len, int rc)
{
	size_t n = strnlen(why, len);

	FUZZ_ASSERT(n < len);                        /* terminated inside the buffer */
	FUZZ_ASSERT(strchr(why, '\n') == NULL);      /* one line */
	FUZZ_ASSERT(rc == 0 ? n == 0 : n > 0 || len == 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct nvme_id_ctrl ctrl;
	static struct nvme_id_ns ns;
	uint8_t capb[8] = { 0 };
	char why[160], tiny[6];
	uint32_t mdts_bytes;
	uint64_t cap;
	size_t n;
	int rc, rc2;

	n = size < 8 ? size : 8;
	memcpy(capb, data, n);
	data += n;
	size -= n;
	cap = nvmf_get_le64(capb);
	memset(&ctrl, 0, sizeof(ctrl));
	n = size < sizeof(ctrl) ? size : sizeof(ctrl);
	memcpy(&ctrl, data, n);
	data += n;
	size -= n;
	memset(&ns, 0, sizeof(ns));
	memcpy(&ns, data, size < sizeof(ns) ? size : sizeof(ns));

	/* Identify Controller */
	rc = nvmf_id_ctrl_check(&ctrl, cap, why, sizeof(why));
	FUZZ_ASSERT(rc == 0 || rc == -EPROTO);
	check_why(why, sizeof(why), rc);
	rc2 = nvmf_id_ctrl_check(&ctrl, cap, tiny, sizeof(tiny));
	FUZZ_ASSERT(rc2 == rc);
	check_why(tiny, sizeof(tiny), rc2);
	FUZZ_ASSERT(nvmf_id_ctrl_check(&ctrl, cap, NULL, 0) == rc);
	mdts_bytes = nvmf_mdts_bytes(ctrl.mdts, cap);
	FUZZ_ASSERT(mdts_bytes == 0 || (mdts_bytes & (mdts_bytes - 1)) == 0);
	FUZZ_ASSERT(mdts_bytes == 0 || mdts_bytes >= 8192);   /* MDTS >= 1 page of >= 4 KiB */
	if (rc == 0) {
		uint32_t ioccsz = le32toh(ctrl.ioccsz);

		FUZZ_ASSERT(nvme_cap_mqes(cap) >= 1);
		FUZZ_ASSERT(le32toh(ctrl.nn) >= 1);
		FUZZ_ASSERT(ioccsz >= 4 && ioccsz <= UINT32_MAX / 16);
		FUZZ_ASSERT(nvmf_id_ctrl_inline_data_size(&ctrl) == ioccsz * 16 - 64);
	}

	/* Identify Namespace, against this controller's limit */
	rc = nvmf_id_ns_check(&ns, mdts_bytes, why, sizeof(why));
	FUZZ_ASSERT(rc == 0 || rc == -EPROTO || rc == -ENODEV);
	check_why(why, sizeof(why), rc);
	rc2 = nvmf_id_ns_check(&ns, mdts_bytes, tiny, sizeof(tiny));
	FUZZ_ASSERT(rc2 == rc);
	check_why(tiny, sizeof(tiny), rc2);
	FUZZ_ASSERT((rc == -ENODEV) == (le64toh(ns.nsze) == 0));
	FUZZ_ASSERT(nvme_id_ns_flbas_index(&ns) < 64);
	(void)nvme_id_ns_ms(&ns);
	(void)nvme_id_ns_extended_lba(&ns);
	if (rc == 0) {
		uint32_t lba = nvme_id_ns_lba_size(&ns);
		uint64_t bytes;
		uint32_t max_xfer;

		FUZZ_ASSERT(lba >= 512 && lba <= 65536 && (lba & (lba - 1)) == 0);
		FUZZ_ASSERT(nvme_id_ns_flbas_index(&ns) <= ns.nlbaf);
		FUZZ_ASSERT(!__builtin_mul_overflow(le64toh(ns.nsze), (uint64_t)lba, &bytes));
		/* the lane's per-command limit (nvmf_lane_io_limits) holds at least one block */
		max_xfer = NVME_SGL_KEYED_MAX_LEN;
		if (mdts_bytes && mdts_bytes < max_xfer)
			max_xfer = mdts_bytes;
		FUZZ_ASSERT(max_xfer / lba * lba >= lba);
	}
	return 0;
}
