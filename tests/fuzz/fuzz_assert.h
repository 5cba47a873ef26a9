/* fuzz_assert.h - the fuzz targets' invariant check: a failed one aborts (libFuzzer and the
 * corpus replay both report an abort as a crash), naming the file, line and condition. */
#ifndef FIO_NVMEOF_FUZZ_ASSERT_H
#define FIO_NVMEOF_FUZZ_ASSERT_H

#include <stdio.h>
#include <stdlib.h>

#define FUZZ_ASSERT(c)                                                                        \
	do {                                                                                  \
		if (!(c)) {                                                                   \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__,  \
				#c);                                                          \
			abort();                                                              \
		}                                                                             \
	} while (0)

#endif
