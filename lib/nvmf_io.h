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
	const struct nvmf_io_limits *lim;  /* set by nvmf_io_submit */
	struct nvmf_io *next;  /* in a backlog */
	unsigned  parts_left;
	uint16_t  status;      /* first failing NVMe status, (SCT << 8) | SC; 0: success */
	uint8_t   status_opc;  /* opcode of the command that failed */
	uint8_t   status_dnr;  /* that status had Do Not Retry set */
	int       err;         /* negative errno: the command never completed */
	uint8_t   resubmits;   /* times resubmitted after a reconnect or moved to another path */
	uint8_t   path;        /* the caller's: the path it was staged on (multipath) */
	uint8_t   group;       /* the caller's: its namespace's ANA group (multipath) */
	struct nvmf_queue *q;  /* the queue its commands were last staged on */
};

/* Whether a failed I/O may go to another path: its status blames the path (SCT 3h) and the
 * controller did not set Do Not Retry (the kernel completes those to the caller too). */
int nvmf_io_may_fail_over(const struct nvmf_io *io);

/* Commands this I/O needs under the limits. */
unsigned nvmf_io_nr_cmds(const struct nvmf_io *io, const struct nvmf_io_limits *lim);

/* Read/write commands an I/O of `bytes` needs under the limits (at least 1). */
unsigned nvmf_io_cmds_for_bytes(uint64_t bytes, const struct nvmf_io_limits *lim);

/* Build and stage every command of io (all or nothing).  -EBUSY: not enough free slots now;
 * -E2BIG: more commands than the queue ever holds; -EINVAL: the I/O is malformed for these
 * limits, or a command builder refused a part. */
int nvmf_io_stage(struct nvmf_queue *q, const struct nvmf_io_limits *lim, struct nvmf_io *io);

/* nvmf_io_stage with the split given: n commands of up to per blocks each, instead of the split
 * the limits give.  The limits never give one that a command builder refuses (NLB over 16 bits,
 * a keyed length over 24 bits, a part of no blocks), so tests reach that refusal here: -EINVAL,
 * and none of io's commands staged. */
int nvmf_io_stage_split(struct nvmf_queue *q, const struct nvmf_io_limits *lim, struct nvmf_io *io,
			unsigned n, uint64_t per);

/* I/Os waiting for free slots, in arrival order.  An I/O whose commands do not all fit in
 * the free slots waits here instead of going back to the caller as busy (fio would re-queue
 * it, and fio 3.33 draws a new verify seed for a re-queued write); everything behind a
 * waiting I/O waits too, so order is kept and a large I/O is not starved by small ones. */
struct nvmf_io_backlog {
	struct nvmf_io *head;
	struct nvmf_io *tail;
	unsigned        nr;
};

/* Stage io now when nothing waits before it and its commands fit, else append it to bl.
 * 1: staged; 0: waiting in bl; negative errno: malformed (-EINVAL, also when a command
 * builder refused a part: nothing staged), larger than the whole queue (-E2BIG), or the queue
 * is fatal. */
int nvmf_io_submit(struct nvmf_queue *q, const struct nvmf_io_limits *lim,
		   struct nvmf_io_backlog *bl, struct nvmf_io *io);

/* Stage waiting I/Os, oldest first, while their commands fit; staged(io, arg) is called for
 * each.  Returns how many were staged, or a negative errno: the queue's fatal error, or
 * nvmf_io_stage's for the I/O at the head (which stays there: -E2BIG when it needs more
 * commands than the queue ever holds). */
int nvmf_io_backlog_pump(struct nvmf_queue *q, struct nvmf_io_backlog *bl,
			 void (*staged)(struct nvmf_io *io, void *arg), void *arg);

/* nvmf_io_backlog_pump for the waiting I/Os of one ANA group (nvmf_io.group) only, oldest
 * first; the others keep their places.  It stops at the first of that group that does not fit.
 * group < 0: every group (nvmf_io_backlog_pump). */
int nvmf_io_backlog_pump_group(struct nvmf_queue *q, struct nvmf_io_backlog *bl, int group,
			       void (*staged)(struct nvmf_io *io, void *arg), void *arg);

/* Install the queue completion handler that retires parts and calls done() per whole I/O. */
struct nvmf_io_completer {
	nvmf_io_done_fn done;
	void           *arg;
};
void nvmf_io_complete_req(struct nvmf_queue *q, struct nvmf_req *req, void *completer);

/* Put io in bl to wait for free slots (or a new queue): at the tail, or at the head (an I/O
 * that was in flight when the connection went, resubmitted before anything newer). */
void nvmf_io_backlog_add(struct nvmf_io_backlog *bl, const struct nvmf_io_limits *lim,
			 struct nvmf_io *io, int at_head);

/* The connection went and a reconnect (or another path) may follow: every I/O with commands
 * on the queues qs[0..nq) leaves them.  One never posted (every command staged: the target
 * never saw it) goes back to bl, to be posted after the reconnect.  One with a command posted
 * (the target may have run it) goes back too while it was resubmitted fewer than resubmit
 * times (counted in io->resubmits; 1: once, as retry_on_reconnect), else it completes with
 * err through cpl.  Those going back go to bl's head,
 * posted ones first, before anything already waiting.  The queues' slots are freed without
 * completions.  0, or -ENOMEM with nothing changed. */
struct nvmf_io_lost {
	unsigned failed;       /* completed with err */
	unsigned resubmitted;  /* posted, back in bl */
	unsigned requeued;     /* never posted, back in bl */
};
int nvmf_io_requeue_lost(struct nvmf_queue *const *qs, unsigned nq, struct nvmf_io_backlog *bl,
			 int resubmit, int err, const struct nvmf_io_completer *cpl,
			 struct nvmf_io_lost *out);

/* Post what each of the nq queues has staged (one chain a queue), every queue even after one
 * fails, and order ios (I/Os staged since the last post) so that those whose commands went out
 * come first, in their order: *nr_posted of them.  Those on a queue whose post failed follow;
 * that queue is fatal and its owner hands them back.  cmds[i] grows by the commands queue i
 * posted.  0, or the first failing queue's error. */
int nvmf_io_post(struct nvmf_queue *const *qs, unsigned nq, uint64_t *cmds, struct nvmf_io **ios,
		 unsigned nr_ios, unsigned *nr_posted);

/* The queue is gone: every I/O still waiting in bl completes with err, in order. */
void nvmf_io_backlog_fail(struct nvmf_io_backlog *bl, int err, const struct nvmf_io_completer *cpl);

#endif
