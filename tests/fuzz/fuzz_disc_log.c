/* fuzz_disc_log.c - libFuzzer target: a discovery log page as a discovery controller returns
 * it, through nvmf_disc_log_parse_hdr and nvmf_disc_entry_decode, record by record as
 * nvmf_discover reads it.
 *
 * Input: the log itself (a 1024-byte header, then 1024-byte entries), any length, in a buffer of
 * exactly its size.  Entries past the input's end are not decoded; a short last entry is
 * decoded from a zero-padded copy (what a short transfer leaves in the host's buffer).  Whatever
 * decodes must be printable: NUL-terminated strings of printable ASCII inside their fields, no
 * trailing space, a known subtype, a name for every value. */
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

	FUZZ_ASSERT(n < len);
	FUZZ_ASSERT(strchr(why, '\n') == NULL);
	FUZZ_ASSERT(rc == 0 ? n == 0 : n > 0 || len == 1);
}

static void check_str(const char *s, size_t field)
{
	size_t n = strnlen(s, field + 1);

	FUZZ_ASSERT(n <= field);
	FUZZ_ASSERT(n > 0 ? s[n - 1] != ' ' : 1);
	for (size_t i = 0; i < n; i++)
		FUZZ_ASSERT(s[i] >= 0x20 && s[i] <= 0x7e);
}

static void decode_one(const uint8_t *raw)
{
	struct nvmf_disc_entry e;
	char why[160], tiny[7];
	int rc;

	rc = nvmf_disc_entry_decode(raw, &e, why, sizeof(why));
	FUZZ_ASSERT(rc == 0 || rc == -EINVAL);
	check_why(why, sizeof(why), rc);
	{
		struct nvmf_disc_entry e2;
		int rc2 = nvmf_disc_entry_decode(raw, &e2, tiny, sizeof(tiny));

		FUZZ_ASSERT(rc2 == rc);
		check_why(tiny, sizeof(tiny), rc2);
		FUZZ_ASSERT(nvmf_disc_entry_decode(raw, &e2, NULL, 0) == rc);
	}
	if (rc) {
		FUZZ_ASSERT(e.subnqn[0] == 0 && e.traddr[0] == 0 && e.trtype == 0);
		return;
	}
	check_str(e.trsvcid, NVMF_TRSVCID_SIZE);
	check_str(e.subnqn, NVMF_NQN_FIELD_SIZE);
	check_str(e.traddr, NVMF_TRADDR_SIZE);
	FUZZ_ASSERT(e.subnqn[0] && e.traddr[0]);
	FUZZ_ASSERT(e.subtype >= NVMF_SUBTYPE_REFERRAL && e.subtype <= NVMF_SUBTYPE_CURRENT);
	FUZZ_ASSERT(strcmp(nvmf_subtype_name(e.subtype), "unrecognized") != 0);
	FUZZ_ASSERT(e.trtype == raw[0] && e.portid == nvmf_get_le16(raw + 4));
	FUZZ_ASSERT(e.trtype == NVMF_TRTYPE_RDMA || (e.rdma_qptype == 0 && e.rdma_pkey == 0));
	FUZZ_ASSERT(e.trtype == NVMF_TRTYPE_TCP ? e.tcp_sectype == raw[768] : e.tcp_sectype == 0);
	FUZZ_ASSERT(nvmf_tcp_sectype_name(e.tcp_sectype)[0]);
	FUZZ_ASSERT(nvmf_trtype_name(e.trtype)[0] && nvmf_adrfam_name(e.adrfam)[0]);
	FUZZ_ASSERT(nvmf_treq_secure_name(e.treq)[0] && nvmf_rdma_qptype_name(e.rdma_qptype)[0]);
	FUZZ_ASSERT(nvmf_rdma_prtype_name(e.rdma_prtype)[0] && nvmf_rdma_cms_name(e.rdma_cms)[0]);
	FUZZ_ASSERT(e.from_referral == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t gen, num;
	char why[160], tiny[3];
	uint8_t *last;
	size_t have;
	int rc;

	rc = nvmf_disc_log_parse_hdr(size ? data : NULL, size, &gen, &num, why, sizeof(why));
	FUZZ_ASSERT(rc == 0 || rc == -EINVAL || rc == -EOVERFLOW);
	check_why(why, sizeof(why), rc);
	FUZZ_ASSERT(nvmf_disc_log_parse_hdr(size ? data : NULL, size, &gen, &num, tiny,
					    sizeof(tiny)) == rc);
	check_why(tiny, sizeof(tiny), rc);
	if (rc) {
		FUZZ_ASSERT(gen == 0 || rc == -EOVERFLOW);
		return 0;
	}
	FUZZ_ASSERT(num <= NVMF_DISC_MAX_RECORDS);
	have = (size - NVMF_DISC_LOG_HDR_SIZE) / NVMF_DISC_ENTRY_SIZE;
	for (size_t i = 0; i < num && i < have; i++)
		decode_one(data + NVMF_DISC_LOG_HDR_SIZE + i * NVMF_DISC_ENTRY_SIZE);
	/* a short last entry, as a short transfer leaves it: zero-padded */
	if (have < num && (size - NVMF_DISC_LOG_HDR_SIZE) % NVMF_DISC_ENTRY_SIZE) {
		size_t part = (size - NVMF_DISC_LOG_HDR_SIZE) % NVMF_DISC_ENTRY_SIZE;

		last = calloc(1, NVMF_DISC_ENTRY_SIZE);
		FUZZ_ASSERT(last != NULL);
		memcpy(last, data + size - part, part);
		decode_one(last);
		free(last);
	}
	return 0;
}
