/* nvmeof_log.h - the engine's own lines (start lines, errors).
 *
 * fio writes what people parse (--output-format=json, json+, terse) to stdout or to the
 * --output file, and with --output its log_err() copies every error line into that file too;
 * a forked job's buffered stdout may also never be flushed.  So the engine's lines go to
 * stderr, one write(2) each (never interleaved, never lost), and into fio's stream only
 * where that is plain text (normal format).  Under fio --server an error is forwarded to the
 * client (log_err), an informational line stays on the server (its stderr, or syslog): the
 * client prints forwarded text on the same stdout as its JSON. */
#ifndef FIO_NVMEOF_LOG_H
#define FIO_NVMEOF_LOG_H

void nvmeof_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void nvmeof_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* An error of one job: "nvmeof: JOB: ..." like every other line a job prints, so that a run
 * of many jobs says which one failed. */
struct thread_data;
void nvmeof_job_err(const struct thread_data *td, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
