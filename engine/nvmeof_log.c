/* nvmeof_log.c - see nvmeof_log.h for where the engine's lines go, and why. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>
#include <unistd.h>

#include "fio.h"

#include "nvmeof_log.h"

static void nvmeof_stderr(const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(STDERR_FILENO, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

static void nvmeof_vlog(int is_err, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void nvmeof_vlog(int is_err, const char *fmt, va_list ap)
{
	char buf[1024];
	int len = vsnprintf(buf, sizeof(buf), fmt, ap);

	if (len < 0)
		return;
	if ((size_t)len >= sizeof(buf)) {
		len = sizeof(buf) - 1;
		buf[len - 1] = '\n';
	}
	if (is_backend) {
		/* fio --server: fio sends log_info/log_err text to the client, which prints all of it
		 * on its stdout ahead of its JSON.  An error still goes there (fio's own errors do
		 * too); an informational line stays on this server: its stderr, or syslog where
		 * --daemonize made stderr /dev/null (as fio's own lines do when not sent). */
		if (is_err)
			log_err("%s", buf);
		else if (log_syslog)
			syslog(LOG_INFO, "%s", buf);
		else
			nvmeof_stderr(buf, (size_t)len);
		return;
	}
	/* Normal format: errors also reach fio's --output file, as fio's own errors do. */
	if (is_err && output_format == FIO_OUTPUT_NORMAL) {
		log_err("%s", buf);
		return;
	}
	nvmeof_stderr(buf, (size_t)len);
}

void nvmeof_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	nvmeof_vlog(1, fmt, ap);
	va_end(ap);
}

void nvmeof_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	nvmeof_vlog(0, fmt, ap);
	va_end(ap);
}

void nvmeof_job_err(const struct thread_data *td, const char *fmt, ...)
{
	char msg[960];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	nvmeof_err("nvmeof: %s: %s", td->o.name, msg);
}
