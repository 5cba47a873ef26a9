/* nvmf_fabric.h - the lane's seam to a transport: one queue's connection (create, shut off,
 * check, destroy) and reaping or sleeping over a lane's queues.  Each transport keeps a
 * struct nvmf_queue in its own queue and hands the lane that (the protocol logic drives it
 * through struct nvmf_xport_ops); the lane never sees the transport's structures.  RDMA:
 * nvmf_rdma.c (nvmf_fabric_rdma); TCP: nvmf_tcp.c (nvmf_fabric_tcp). */
#ifndef FIO_NVMEOF_FABRIC_H
#define FIO_NVMEOF_FABRIC_H

#include <stddef.h>
#include <stdint.h>

#include "nvmf_queue.h"

/* In-capsule data an NVMe/TCP admin queue takes: the transport binding fixes it at 8 KiB. */
#define NVMF_TCP_ADMIN_INCAPSULE 8192

struct sockaddr;
struct sockaddr_storage;
struct ibv_pd;

struct nvmf_fabric_params {
	const struct sockaddr *src;   /* NULL: any local address */
	const struct sockaddr *dst;
	uint16_t               qid;
	unsigned               entries;
	unsigned               timeout_ms;   /* connection set-up, each step */
	int                    use_events;   /* the caller sleeps for completions */
	/* RDMA only */
	uint8_t                ack_timeout;  /* 0: the RDMA CM's default */
	void                  *shared_cq;    /* struct nvmf_rdma_cq; NULL: the queue's own */
	struct ibv_pd *const  *pds;
	unsigned               nr_pds;
	struct ibv_pd        **pd;           /* in/out: as nvmf_rdma_queue_create's */
	/* TCP only */
	int                    hdr_digest;   /* ask for header digests (CRC32C) */
	int                    data_digest;  /* ask for data digests (CRC32C) */
	uint32_t               incapsule_max; /* in-capsule data bytes the controller takes on this
					       * queue: the Connect data always goes in the capsule */
};

/* What a transport's data path cost in system calls and copies, for the ones that keep count
 * (NVMe/TCP, from the end of its ICReq/ICResp exchange on). */
struct nvmf_xport_stats {
	uint64_t rx_calls;    /* receive system calls (readv), the ones that found nothing too */
	uint64_t tx_calls;    /* send system calls (sendmsg; vmsplice and splice) */
	uint64_t tx_copied;   /* data bytes (in-capsule, H2CData) copied into the socket by sendmsg */
	uint64_t tx_spliced;  /* data bytes sent by reference (spliced from the buffer's pages) */
	uint64_t rx_copied;   /* C2HData bytes copied into the commands' buffers: out of the
			       * receive buffer (they arrived in a read that took their header
			       * and no guess placed them), or moved after a wrong guess */
	uint64_t rx_direct;   /* C2HData bytes the reads put straight into the commands' buffers
			       * (copied + direct: all C2HData) */
	uint64_t rx_spec;     /* speculative reads: those that guessed the next PDU a C2HData
			       * for the oldest read expecting data, and placed it */
	uint64_t rx_spec_miss; /* bytes a speculative read put into a command's buffer that were
				* not that command's data there (headers, digests, other data):
				* moved back into the stream; their data bytes also in rx_copied */
	uint64_t ddgst_errors; /* C2HData PDUs whose data digest did not match: each failed its
				* command (Data Transfer Error), the queue went on */
};

struct nvmf_fabric {
	const char *name;     /* "rdma", "tcp": the transport= value */
	uint8_t     trtype;   /* NVMF_TRTYPE_* (nvmf_spec.h, the discovery log's numbers) */
	/* Connect one queue (qid 0: admin): 0 with *out the queue attached to its transport
	 * ops, or a negative errno with one line in err. */
	int  (*create)(struct nvmf_queue **out, const struct nvmf_fabric_params *p, char *err,
		       size_t errlen);
	/* Disconnect and free; waits up to disconnect_wait_ms (0: the transport's default) for
	 * the target to see it.  Tolerates NULL. */
	void (*destroy)(struct nvmf_queue *q, unsigned disconnect_wait_ms);
	/* Shut the queue off at once: the target can no longer reach the caller's memory
	 * through it, and what it holds fails at the next reap. */
	void (*kill)(struct nvmf_queue *q);
	/* The same from another thread, with the reason the next reap reports. */
	void (*kill_why)(struct nvmf_queue *q, int err, const char *why);
	/* Without blocking: 0 while connected; else a negative errno with the reason in why
	 * (-ENOTCONN: the target disconnected). */
	int  (*conn_check)(struct nvmf_queue *q, char *why, size_t whylen);
	/* A descriptor that wakes a sleeping watcher (the keep-alive thread) when the connection
	 * may be gone, and the poll events to ask for; conn_check then says.  Negative: none. */
	int  (*watch)(struct nvmf_queue *q, short *events);
	/* One queue for a thread that sleeps in its own poll(): reap, then the fd to poll for
	 * POLLIN (negative errno: none); after POLLIN, event() reaps (commands completed). */
	int  (*arm)(struct nvmf_queue *q);
	int  (*event)(struct nvmf_queue *q);
	/* Reap n queues once without waiting; wait: sleep until one has completions or
	 * timeout_ms passed (poll mode: reap once); sets_wait: the same over several lanes'
	 * queues (sets[s][0..ns[s])).  Commands completed, or the first negative errno. */
	int  (*process)(struct nvmf_queue *const *qs, unsigned n);
	int  (*wait)(struct nvmf_queue *const *qs, unsigned n, int timeout_ms);
	int  (*sets_wait)(struct nvmf_queue *const *const *sets, const unsigned *ns, unsigned nsets,
			  int timeout_ms);
	/* The connection's two ends. */
	void (*addrs)(struct nvmf_queue *q, struct sockaddr_storage *local,
		      struct sockaddr_storage *peer);
	/* Add the queue's counters to *st.  NULL: the transport keeps none (RDMA). */
	void (*stats)(struct nvmf_queue *q, struct nvmf_xport_stats *st);
};

extern const struct nvmf_fabric nvmf_fabric_rdma;
extern const struct nvmf_fabric nvmf_fabric_tcp;

/* The transport named (case-insensitive "rdma", "tcp"), or NULL. */
const struct nvmf_fabric *nvmf_fabric_by_name(const char *name);
const struct nvmf_fabric *nvmf_fabric_by_trtype(int trtype);

#endif
