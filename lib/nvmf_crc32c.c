/* nvmf_crc32c.c - CRC32C: slicing-by-8 tables, or the SSE4.2 CRC32 instruction where the CPU
 * has it (the same polynomial). */
#include <pthread.h>
#include <string.h>

#include "nvmf_crc32c.h"

#define NVMF_CRC32C_POLY 0x82f63b78u   /* reflected Castagnoli */

static uint32_t nvmf_crc32c_tab[8][256];
static pthread_once_t nvmf_crc32c_once = PTHREAD_ONCE_INIT;

/* Table k advances a byte that is k positions ahead of the end of an 8-byte block. */
static void nvmf_crc32c_init_tables(void)
{
	for (unsigned i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int b = 0; b < 8; b++)
			c = (c >> 1) ^ (c & 1 ? NVMF_CRC32C_POLY : 0);
		nvmf_crc32c_tab[0][i] = c;
	}
	for (unsigned i = 0; i < 256; i++)
		for (unsigned k = 1; k < 8; k++)
			nvmf_crc32c_tab[k][i] = (nvmf_crc32c_tab[k - 1][i] >> 8) ^
						nvmf_crc32c_tab[0][nvmf_crc32c_tab[k - 1][i] & 0xff];
}

uint32_t nvmf_crc32c_update_sw(uint32_t state, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint32_t c = state;

	pthread_once(&nvmf_crc32c_once, nvmf_crc32c_init_tables);
	while (len && ((uintptr_t)p & 7)) {
		c = (c >> 8) ^ nvmf_crc32c_tab[0][(c ^ *p++) & 0xff];
		len--;
	}
	while (len >= 8) {
		uint32_t lo, hi;

		/* little-endian loads: the bytes in stream order (the CRC is reflected) */
		lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			  (uint32_t)p[3] << 24);
		hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
		c = nvmf_crc32c_tab[7][lo & 0xff] ^ nvmf_crc32c_tab[6][(lo >> 8) & 0xff] ^
		    nvmf_crc32c_tab[5][(lo >> 16) & 0xff] ^ nvmf_crc32c_tab[4][lo >> 24] ^
		    nvmf_crc32c_tab[3][hi & 0xff] ^ nvmf_crc32c_tab[2][(hi >> 8) & 0xff] ^
		    nvmf_crc32c_tab[1][(hi >> 16) & 0xff] ^ nvmf_crc32c_tab[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		c = (c >> 8) ^ nvmf_crc32c_tab[0][(c ^ *p++) & 0xff];
	return c;
}

#if defined(__x86_64__)
#include <nmmintrin.h>

__attribute__((target("sse4.2"))) static uint32_t nvmf_crc32c_update_hw(uint32_t state,
									const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint64_t c = state;

	while (len && ((uintptr_t)p & 7)) {
		c = _mm_crc32_u8((uint32_t)c, *p++);
		len--;
	}
	while (len >= 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		c = _mm_crc32_u64(c, v);
		p += 8;
		len -= 8;
	}
	while (len--)
		c = _mm_crc32_u8((uint32_t)c, *p++);
	return (uint32_t)c;
}

static int nvmf_crc32c_have_hw(void)
{
	static int have = -1;   /* racing first calls all write the same answer */
	int h = __atomic_load_n(&have, __ATOMIC_RELAXED);

	if (h < 0) {
		__builtin_cpu_init();
		h = __builtin_cpu_supports("sse4.2") ? 1 : 0;
		__atomic_store_n(&have, h, __ATOMIC_RELAXED);
	}
	return h;
}
#endif

uint32_t nvmf_crc32c_update(uint32_t state, const void *buf, size_t len)
{
#if defined(__x86_64__)
	if (nvmf_crc32c_have_hw())
		return nvmf_crc32c_update_hw(state, buf, len);
#endif
	return nvmf_crc32c_update_sw(state, buf, len);
}

uint32_t nvmf_crc32c(const void *buf, size_t len)
{
	return nvmf_crc32c_final(nvmf_crc32c_update(NVMF_CRC32C_INIT, buf, len));
}
