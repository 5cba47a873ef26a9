/* check.h - the unit tests' tiny assertion kit.
 * Each test executable counts its failed checks and exits 0 (all passed), 1 (any failed)
 * or 77 (skipped: call check_skip() with the reason). */
#ifndef FIO_NVMEOF_TESTS_CHECK_H
#define FIO_NVMEOF_TESTS_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures;
static int check_count;

#define CHECK(cond)                                                               \
	do {                                                                      \
		check_count++;                                                    \
		if (!(cond)) {                                                    \
			check_failures++;                                         \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__,    \
				__LINE__, #cond);                                 \
		}                                                                 \
	} while (0)

#define CHECK_EQ(a, b)                                                            \
	do {                                                                      \
		unsigned long long check_a_ = (unsigned long long)(a);            \
		unsigned long long check_b_ = (unsigned long long)(b);            \
		check_count++;                                                    \
		if (check_a_ != check_b_) {                                       \
			check_failures++;                                         \
			fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %s "       \
				"(0x%llx != 0x%llx)\n", __FILE__, __LINE__, #a,   \
				#b, check_a_, check_b_);                          \
		}                                                                 \
	} while (0)

#define CHECK_STR(a, b)                                                           \
	do {                                                                      \
		const char *check_sa_ = (a), *check_sb_ = (b);                    \
		check_count++;                                                    \
		if (!check_sa_ || !check_sb_ || strcmp(check_sa_, check_sb_)) {  \
			check_failures++;                                         \
			fprintf(stderr, "%s:%d: CHECK_STR failed: %s == %s "      \
				"(\"%s\" != \"%s\")\n", __FILE__, __LINE__, #a,   \
				#b, check_sa_ ? check_sa_ : "(null)",             \
				check_sb_ ? check_sb_ : "(null)");                \
		}                                                                 \
	} while (0)

/* Raw little-endian reads at spec offsets: independent of the structs under test. */
static inline uint64_t raw_le(const void *base, size_t off, unsigned nbytes)
{
	const uint8_t *p = (const uint8_t *)base + off;
	uint64_t v = 0;

	for (unsigned i = 0; i < nbytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static inline int check_done(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
	return check_failures ? 1 : 0;
}

static inline int check_skip(const char *name, const char *why)
{
	printf("%s: SKIP: %s\n", name, why);
	return 77;
}

#endif
