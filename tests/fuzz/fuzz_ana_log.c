/* fuzz_ana_log.c - libFuzzer target: an Asymmetric Namespace Access log as a controller returns
 * it, through nvme_ana_log_parse and nvme_ana_log_state_of.
 *
 * Input: the log itself, any length, in a buffer of exactly its size (reading past it is an
 * ASan error).  Whatever parses must describe a log that fits the bytes given: each group's
 * descriptor and NSID list inside the buffer, no ANAGRPID 0, at most max_groups groups. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmf_spec.h"

#include "fuzz_assert.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_GROUPS 64

static void check_why(const char *why, size_t len, int rc)
{
	size_t n = strnlen(why, len);

	FUZZ_ASSERT(n < len);
	FUZZ_ASSERT(strchr(why, '\n') == NULL);
	FUZZ_ASSERT(rc == 0 ? n == 0 : n > 0 || len == 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nvme_ana_group g[MAX_GROUPS];
	char why[160], tiny[5];
	uint64_t chg, chg2;
	unsigned n, n2, max = size ? 1u + data[0] % MAX_GROUPS : MAX_GROUPS;
	size_t need = NVME_ANA_LOG_HDR_SIZE;
	int rc, rc2;

	rc = nvme_ana_log_parse(size ? data : NULL, size, &chg, g, max, &n, why, sizeof(why));
	FUZZ_ASSERT(rc == 0 || rc == -EINVAL || rc == -EOVERFLOW);
	check_why(why, sizeof(why), rc);
	rc2 = nvme_ana_log_parse(size ? data : NULL, size, &chg2, g, max, &n2, tiny, sizeof(tiny));
	FUZZ_ASSERT(rc2 == rc);
	check_why(tiny, sizeof(tiny), rc2);
	FUZZ_ASSERT(nvme_ana_log_parse(size ? data : NULL, size, &chg2, g, max, &n2, NULL, 0) == rc);
	if (rc) {
		FUZZ_ASSERT(n == 0);
		return 0;
	}
	FUZZ_ASSERT(size >= NVME_ANA_LOG_HDR_SIZE);
	FUZZ_ASSERT(n == nvmf_get_le16(data + 8) && n <= max);
	FUZZ_ASSERT(chg == nvmf_get_le64(data));
	for (unsigned i = 0; i < n; i++) {
		uint8_t st;

		/* the descriptor the parser read is where the NNSIDS before it put it */
		FUZZ_ASSERT(need + NVME_ANA_GROUP_DESC_SIZE <= size);
		FUZZ_ASSERT(g[i].grpid == nvmf_get_le32(data + need) && g[i].grpid != 0);
		FUZZ_ASSERT(g[i].nr_nsids == nvmf_get_le32(data + need + 4));
		FUZZ_ASSERT(g[i].state <= 0xf);
		need += NVME_ANA_GROUP_DESC_SIZE + (size_t)g[i].nr_nsids * 4;
		FUZZ_ASSERT(need <= size);
		FUZZ_ASSERT(nvme_ana_log_state_of(g, n, g[i].grpid, &st) == 0);
		FUZZ_ASSERT(nvme_ana_state_name(st)[0] != 0);
	}
	return 0;
}
