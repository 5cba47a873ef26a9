/* nvmf_rdma.h - one NVMe/RDMA queue on rdma-core: CM connection with the NVMe/RDMA private
 * data, QP/CQ, registered capsule and response buffers, and the verbs side of the seam. */
#ifndef FIO_NVMEOF_RDMA_H
#define FIO_NVMEOF_RDMA_H

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "nvmf_fabric.h"
#include "nvmf_policy.h"
#include "nvmf_queue.h"
#include "nvmf_sysfs.h"

/* A completion queue, its channel (event mode) and its arming state: a queue's own, or one a
 * lane's I/O queues share, so that one poll reaps all of them and one channel wakes a sleeping
 * job, as SPDK's initiator polls one CQ per poll group.  From a shared one, completions are
 * handed to their queue by QP number; each queue keeps what was reaped for it until it
 * processes them. */
struct nvmf_rdma_queue;
struct nvmf_rdma_cq {
	struct ibv_cq           *cq;
	struct ibv_comp_channel *cc;       /* NULL: poll mode */
	struct ibv_wc           *ibwcs;
	int                      cap;      /* CQ entries: every queue's sends and receives */
	int                      armed;    /* a notification was requested, not yet seen */
	unsigned                 unacked;  /* events taken, not yet acked (acked in batches) */
	int                      reaped;   /* nvmf_rdma_queues_process reaped it: queues only drain */
	struct nvmf_rdma_queue  *queues[64];
	unsigned                 nr_queues;
};
/* entries: the sum of its queues' 2 x depth. */
int  nvmf_rdma_cq_create(struct nvmf_rdma_cq **out, struct ibv_context *ctx, int entries,
			 int use_events, char *err, size_t errlen);
/* After every queue on it is destroyed; tolerates NULL. */
void nvmf_rdma_cq_destroy(struct nvmf_rdma_cq *scq);

struct nvmf_rdma_params {
	const struct sockaddr *src;   /* NULL: any local address */
	const struct sockaddr *dst;
	uint16_t               qid;
	unsigned               entries;
	unsigned               timeout_ms;
	uint8_t                ack_timeout;  /* 0: the RDMA CM's default */
	int                    use_events;
	struct nvmf_rdma_cq   *shared_cq;    /* NULL: the queue's own CQ */
	struct ibv_pd *const  *pds;          /* with *pd NULL: take the one on the resolved */
	unsigned               nr_pds;       /* device, if any, before allocating */
};

struct nvmf_rdma_queue {
	struct nvmf_queue          q;
	struct rdma_event_channel *ch;
	struct rdma_cm_id         *id;
	struct ibv_pd             *pd;       /* shared by the lane's queues; not owned */
	struct nvmf_rdma_cq       *cq;       /* its own (owned), or scq */
	struct ibv_mr             *sqe_mr;
	struct ibv_mr             *rsp_mr;
	struct ibv_mr             *dsm_mr;
	struct ibv_send_wr        *wrs;
	struct ibv_sge            *sges;     /* two per slot: capsule, in-capsule data */
	struct ibv_recv_wr        *rwrs;
	struct ibv_sge            *rsges;
	struct nvmf_rdma_cq       *scq;      /* shared with the lane's other I/O queues, not owned */
	struct nvmf_wc            *pend;     /* reaped from the shared CQ for this queue */
	unsigned                   nr_pend;
	uint32_t                   qp_num;
	int                        use_events;
	int                        qp_created;
	int                        connected;
	uint16_t                   crqsize;
	unsigned                   disconnect_wait_ms; /* at destroy; 0: the default (1 s) */
	int                        kill_err;  /* __atomic: shut off on purpose (kill_why written first) */
	char                       kill_why[160];
	char                      *err;
	size_t                     errlen;
};

/* *pd: NULL to take p->pds' one on the resolved device or allocate one (returned), or the
 * lane's to share. */
int  nvmf_rdma_queue_create(struct nvmf_rdma_queue **out, const struct nvmf_rdma_params *p,
			    struct ibv_pd **pd, char *err, size_t errlen);
void nvmf_rdma_queue_destroy(struct nvmf_rdma_queue *rq);
/* Shut the queue off at once: the QP goes to the error state, so the target can no longer
 * reach the lane's memory through it and every posted work request is flushed. */
void nvmf_rdma_queue_kill(struct nvmf_rdma_queue *rq);
/* The same from another thread, with the reason: the queue's next reap fails it with err and
 * why instead of reading the flushed completions as transport errors. */
void nvmf_rdma_queue_kill_why(struct nvmf_rdma_queue *rq, int err, const char *why);
/* A connected queue's RDMA CM events, without blocking: 0 when none; otherwise the event is
 * acked, described in why, and the queue is gone: -ENOTCONN (the target disconnected),
 * -ENODEV (the RDMA device went away) or -ECONNABORTED (anything else). */
int  nvmf_rdma_queue_cm_check(struct nvmf_rdma_queue *rq, char *why, size_t whylen);
/* The queue's verbs device's asynchronous event descriptor (made non-blocking), to sleep on
 * for POLLIN; negative errno when the queue has no device yet.  The descriptor belongs to the
 * device's context, which every queue of this process on that device shares: one reader takes
 * each event, so the events are only a wake-up and nvmf_rdma_queue_port_check asks the port. */
int  nvmf_rdma_queue_async_fd(struct nvmf_rdma_queue *rq);
/* Take (and acknowledge) the device's pending asynchronous events, without blocking, then ask
 * the state of the queue's port: 0 while it is active; -ENETDOWN with why naming the device and
 * port when its link is down (or the port otherwise not active), -ENODEV when the device
 * reported a fatal error. */
int  nvmf_rdma_queue_port_check(struct nvmf_rdma_queue *rq, char *why, size_t whylen);
/* What the queue's verbs device says about itself, for nvmf_policy_classify_device: its name,
 * its vendor ID (ibv_query_device), and its parent device in sysfs (the resolved link, in
 * parent; f->parent NULL when it has none).  sysfs: NULL for /sys (tests give a tree). */
void nvmf_rdma_queue_dev_facts(struct nvmf_rdma_queue *rq, const char *sysfs,
			       struct nvmf_dev_facts *f, char *parent, size_t len);
/* A CM reject's NVMe/RDMA private data (the record format, the status) in words. */
void nvmf_reject_describe(const void *priv, uint8_t len, char *buf, size_t buflen);
/* The queue pair's local ACK timeout exponent as the device holds it (0: unknown). */
uint8_t nvmf_rdma_queue_ack_timeout(struct nvmf_rdma_queue *rq);
/* Reap each of n queues once, without waiting: the commands completed on all of them, or the
 * first negative errno. */
int  nvmf_rdma_queues_process(struct nvmf_rdma_queue *const *rqs, unsigned n);
/* Event mode, over n queues of one lane: reap all; when none had completions, yield the CPU
 * once and reap again, then arm each CQ, reap again, and sleep on all their channels at once
 * until one signals or timeout_ms passes.  Poll mode: reap once.  Commands completed on all of
 * them, or a negative errno. */
int  nvmf_rdma_queues_wait(struct nvmf_rdma_queue *const *rqs, unsigned n, int timeout_ms);
/* One queue's completions for a thread that sleeps in its own poll(): reap, then arm the CQ;
 * the channel's fd to poll for POLLIN (negative errno: no channel, or arming failed).  After
 * POLLIN, nvmf_rdma_queue_cq_event takes the event and reaps (commands completed, or negative
 * errno). */
int  nvmf_rdma_queue_arm(struct nvmf_rdma_queue *rq);
int  nvmf_rdma_queue_cq_event(struct nvmf_rdma_queue *rq);
/* The same over nsets sets of queues (each one lane's: sets[s][0..ns[s])), sleeping on all
 * their CQs at once (at most 64 channels). */
int  nvmf_rdma_sets_wait(struct nvmf_rdma_queue *const *const *sets, const unsigned *ns,
			 unsigned nsets, int timeout_ms);

/* The RDMA queue a lane's queue is (NULL: a queue of another transport), for what only RDMA
 * has: the device, its port, the queue pair's timers. */
struct nvmf_rdma_queue *nvmf_rdma_of(struct nvmf_queue *q);

#endif
