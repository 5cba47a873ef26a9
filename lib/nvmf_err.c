/* nvmf_err.c - the reason formatter every part of lib/ reports failures with (nvmf_err.h). */
#include <stdarg.h>
#include <stdio.h>

#include "nvmf_err.h"

int nvmf_errf(char *err, size_t len, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return rc;
}
