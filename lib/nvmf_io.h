/* nvmf_io.h - one user I/O (read, write, flush, trim) as one or more NVMe commands on a
 * queue: splitting at the transfer limit, keyed SGL vs in-capsule data, and collecting the
 * parts' completions.  Pure protocol logic: works on any nvmf_queue transport. */
#ifndef FIO_NVMEOF_IO_H
#define FIO_NVMEOF_IO_H

#include <stdint.h>

#include "nvmf_queue.h"

enum nvmf_io_op {
	NVMF_IO_READ = 0,
	NVMF_IO_WRITE,
	NVMF_IO_FLUSH,
	NVMF_IO_TRIM,
};

struct nvmf_io_limits {
	uint32_t max_xfer;    /* bytes per read/write command: a multiple of the LBA size */
	uint32_t inline_max;  /* largest write sent as in-capsule data; 0: never */
	uint32_t dsm_rkey;    /* key of the queue's per-slot DSM range buffers */
};

struct nvmf_io;
typedef void (*nvmf_io_done_fn)(struct nvmf_io *io, void *arg);

struct nvmf_io {
	void     *user;        /* the caller's (fio: the io_u) */
	uint8_t   op;          /* enum nvmf_io_op */
	uint8_t   lba_shift;
	uint32_t  nsid;
	uint64_t  slba;
	uint64_t  nlb;         /* blocks; 0 for flush */
	void     *buf;
	uint32_t  lkey;
	uint32_t  rkey;
	/* completion state */
	unsigned  parts_left;
	uint16_t  status;      /* first failing NVMe status, (SCT << 8) | SC; 0: success */
	uint8_t   status_opc;  /* opcode of the command that failed */
	int       err;         /* negative errno: the command never completed */
};

/* Commands this I/O needs under the limits. */
unsigned nvmf_io_nr_cmds(const struct nvmf_io *io, const struct nvmf_io_limits *lim);

/* Read/write commands an I/O of `bytes` needs under the limits (at least 1). */
unsigned nvmf_io_cmds_for_bytes(uint64_t bytes, const struct nvmf_io_limits *lim);

/* Build and stage every command of io (all or nothing).  -EBUSY: not enough free slots now;
 * -EINVAL: the I/O is malformed for these limits. */
int nvmf_io_stage(struct nvmf_queue *q, const struct nvmf_io_limits *lim, struct nvmf_io *io);

/* Install the queue completion handler that retires parts and calls done() per whole I/O. */
struct nvmf_io_completer {
	nvmf_io_done_fn done;
	void           *arg;
};
void nvmf_io_complete_req(struct nvmf_queue *q, struct nvmf_req *req, void *completer);

#endif
