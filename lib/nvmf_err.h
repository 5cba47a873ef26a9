/* nvmf_err.h - a failure's reason, formatted into the caller's buffer, with its error code
 * returned, so that a failure path is one statement:
 *     return nvmf_errf(err, errlen, -EINVAL, "transport ID: %s is too long", key);
 * The bottom of lib/: includes no project header, so any file of lib/ may include it. */
#ifndef FIO_NVMEOF_ERR_H
#define FIO_NVMEOF_ERR_H

#include <stddef.h>

/* Format the reason into err (len bytes, cut and terminated to fit); returns rc.  err NULL or
 * len 0: nothing is written. */
int nvmf_errf(char *err, size_t len, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* err while it holds no reason yet, else NULL: nvmf_errf(nvmf_err_unset(err, len), len, ...)
 * keeps the first failure's reason, not that of what the first failure caused next. */
static inline char *nvmf_err_unset(char *err, size_t len)
{
	return err && len && !err[0] ? err : NULL;
}

#endif
