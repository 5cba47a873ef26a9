/* nvmf_tcp.h - one NVMe/TCP queue: the TCP connection and its ICReq/ICResp set-up, and the
 * PDU stream behind struct nvmf_xport_ops (capsules, R2T/H2CData, C2HData, responses), with
 * header and data digests.  The lane reaches it through nvmf_fabric_tcp (nvmf_fabric.h). */
#ifndef FIO_NVMEOF_TCP_H
#define FIO_NVMEOF_TCP_H

#include <stddef.h>

#include "nvmf_queue.h"
#include "nvmf_fabric.h"

/* The sockets one event-mode wait sleeps on: every I/O queue of a job, 8 paths of 64 queues
 * (nvmf_lane.c asserts it holds NVMF_MAX_PATHS x NVMF_MAX_IO_QUEUES). */
#define NVMF_TCP_WAIT_MAX 512

/* The queue over fd, a stream socket already connected to the controller (the tests' end of a
 * socketpair; nvmf_fabric_tcp.create connects one and comes here): the fd is made non-blocking
 * and taken over (closed by destroy, or at once on failure), ICReq sent, ICResp awaited for up
 * to p->timeout_ms and checked.  p->src and p->dst only name the connection in messages (NULL:
 * what getpeername says).  0 with *out; a negative errno with one line in err. */
int nvmf_tcp_queue_create_fd(struct nvmf_queue **out, int fd, const struct nvmf_fabric_params *p,
			     char *err, size_t errlen);

/* The queue's socket (negative errno for NULL). */
int nvmf_tcp_queue_fd(struct nvmf_queue *q);

/* What ICResp granted (for tests and the start line): data alignment (CPDA), MAXH2CDATA and
 * the digests in force. */
struct nvmf_tcp_negotiated {
	unsigned cpda;
	unsigned maxh2cdata;
	int      hdgst;
	int      ddgst;
};
void nvmf_tcp_queue_negotiated(struct nvmf_queue *q, struct nvmf_tcp_negotiated *n);

#endif
