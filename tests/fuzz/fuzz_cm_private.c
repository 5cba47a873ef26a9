/* fuzz_cm_private.c - libFuzzer target: the private data of an RDMA CM accept and reject as a
 * target sends it, through nvmf_rdma_cm_accept_parse and nvmf_reject_describe.
 *
 * Input: the private data itself, any length (a CM reports at most 255 bytes; longer inputs are
 * cut there for the reject).  It arrives in a buffer of exactly its size, so reading past the
 * data is an ASan error.  Byte 0 of the input, if any, also sizes the reject's text buffer
 * (1..64) to exercise truncation. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmf_rdma.h"
#include "nvmf_spec.h"

#include "fuzz_assert.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t len = (uint8_t)(size > 255 ? 255 : size);
	size_t small = size ? 1u + data[0] % 64 : 1;
	char why[160], text[256];
	char *cut;
	uint16_t crq = 0xbeef;
	int rc;

	/* accept */
	rc = nvmf_rdma_cm_accept_parse(size ? data : NULL, size, &crq, why, sizeof(why));
	FUZZ_ASSERT(rc == 0 || rc == -EPROTO);
	FUZZ_ASSERT(strnlen(why, sizeof(why)) < sizeof(why));
	if (rc == 0) {
		FUZZ_ASSERT(why[0] == 0);
		FUZZ_ASSERT(size == 0 || (size >= 4 && nvmf_get_le16(data) == 0));
		FUZZ_ASSERT(crq == (size ? nvmf_get_le16(data + 2) : 0));
	} else {
		FUZZ_ASSERT(why[0] != 0);
		FUZZ_ASSERT(crq == 0);
		FUZZ_ASSERT(size < 4 || nvmf_get_le16(data) != 0);
	}
	FUZZ_ASSERT(nvmf_rdma_cm_accept_parse(size ? data : NULL, size, &crq, NULL, 0) == rc);

	/* reject */
	memset(text, 0x5a, sizeof(text));
	nvmf_reject_describe(size ? data : NULL, len, text, sizeof(text) - 1);
	FUZZ_ASSERT(strnlen(text, sizeof(text)) < sizeof(text) - 1);
	FUZZ_ASSERT(strchr(text, '\n') == NULL);
	cut = malloc(small);
	if (cut) {
		nvmf_reject_describe(size ? data : NULL, len, cut, small);
		FUZZ_ASSERT(strnlen(cut, small) < small);
		FUZZ_ASSERT(strncmp(cut, text, small - 1) == 0);
		free(cut);
	}
	return 0;
}
