/* nvmf_lane.c - controller bring-up and shutdown over NVMe/RDMA: Fabrics Connect, property
 * access, enable, Identify, the I/O queue, and an orderly shutdown. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "nvmf_auth.h"
#include "nvmf_err.h"
#include "nvmf_lane.h"
#include "nvmf_mpath.h"
#include "nvmf_rdma.h"
#include "nvmf_shim.h"
#include "nvmf_tcp.h"

/* A job's event-mode wait sleeps on all of its queues: issue 43 found 256 for 512. */
_Static_assert(NVMF_TCP_WAIT_MAX >= NVMF_MAX_PATHS * NVMF_MAX_IO_QUEUES,
	       "an NVMe/TCP wait must hold every queue of a job");

#define NVMF_MAX_PATHS_WAIT 16    /* lanes one nvmf_lanes_wait sleeps on */
#define NVMF_SCRATCH_SIZE 8192      /* Identify data (4 KiB) and Connect data (1 KiB) */
#define NVMF_SHUTDOWN_MAX_MS 5000
#define NVMF_HURRIED_STEP_MS 250   /* per teardown step when the target stopped answering */

/* After bring-up the admin queue belongs to this thread: fio does not call the engine during
 * thinktime, rate pauses, verify phases or between stonewalled jobs, so the I/O path alone
 * cannot keep a controller alive.  It also watches every queue's RDMA CM channel: a target that
 * disconnects is seen at once, not when the job next looks (a disconnect does not move a user
 * QP to the error state, so posted commands would just wait); the thread shuts the I/O queue
 * pairs off, which flushes what they hold to the job's next reap.  It takes no lock the I/O
 * path takes; the I/O path only reads `failed`. */
struct nvmf_keepalive {
	pthread_t       thread;
	int             wake_fd;     /* eventfd: stop, or read the ANA log now */
	int             running;
	int             stop;        /* __atomic */
	unsigned        interval_ms; /* 0: no keep-alive (the thread only watches) */
	unsigned        timeout_ms;
	int             failed;      /* negative errno; __atomic, msg written before it */
	char            msg[NVMF_ERR_LEN];
	unsigned        ana_ms;      /* read the ANA log this often (0: the controller has no ANA) */
	int             ana_want;    /* __atomic: read it at once (a path status was seen) */
};

/* The ANA groups as the controller last reported them: the keep-alive thread writes, the I/O
 * path reads a copy when `gen` moved (checked without the lock). */
#define NVMF_ANA_MAX_GROUPS 32
struct nvmf_ana {
	pthread_mutex_t       lock;
	unsigned              gen;   /* __atomic: bumped after each successful read */
	unsigned              nr;
	struct nvme_ana_group g[NVMF_ANA_MAX_GROUPS];
	char                  err[NVMF_ERR_LEN]; /* the last read's failure, "" after a good one */
};

struct nvmf_lane {
	struct nvmf_lane_opts   opts;
	char                    traddr[256], trsvcid[32], host_traddr[256];
	char                    subnqn[NVMF_NQN_MAX + 1], hostnqn[NVMF_NQN_MAX + 1];
	struct sockaddr_storage dst, src;
	int                     have_src;
	struct ibv_pd          *pd;
	int                     pd_owned;    /* allocated here, not one of opts.pds */
	const struct nvmf_fabric *fab;       /* the transport (opts.trtype) */
	struct nvmf_queue      *aq;
	struct nvmf_queue      *ioqs[NVMF_MAX_IO_QUEUES];
	unsigned                aq_disconnect_wait_ms; /* at its destroy; 0: the transport's */
	struct nvmf_rdma_cq    *ioq_cq;      /* RDMA: shared by the I/O queues when there are several */
	unsigned                nr_ioqs;
	struct nvmf_xport_stats ioqs_gone;   /* counters of I/O queues a reconnect replaced */
	uint8_t                *scratch;
	struct ibv_mr          *scratch_mr;
	int                     enabled;
	int                     dead;        /* nvmf_lane_kill: no shutdown handshake */
	int                     discovery;   /* subnqn is the discovery NQN: admin queue only */
	struct nvmf_keepalive   ka;
	struct nvmf_ana         ana;
	struct nvmf_req        *aer;         /* the Asynchronous Event Request kept outstanding */
	unsigned                aens;        /* __atomic: ANA change notices received */
	unsigned                admin_timeout_ms;
	uint64_t                next_admin_cm_check_ms;  /* nvmf_lane_check's admin clock */
	struct nvmf_lane_info   info;
	struct nvmf_auth_session auth;       /* DH-HMAC-CHAP: keys, transaction IDs, S1s seen */
	char                    err[NVMF_ERR_LEN];
};

/* The admin buffer's key for a keyed SGL: RDMA's registration; a transport that registers
 * nothing (TCP) takes the address alone. */
static inline uint32_t nvmf_lane_scratch_rkey(const struct nvmf_lane *lane)
{
	return lane->scratch_mr ? lane->scratch_mr->rkey : 0;
}

/* The lane's first failure names it: what it caused next does not replace the reason. */
#define nvmf_lane_errf(lane, rc, ...)                                                     \
	nvmf_errf(nvmf_err_unset((lane)->err, sizeof((lane)->err)), sizeof((lane)->err), (rc), \
		  __VA_ARGS__)

const char *nvmf_lane_err(const struct nvmf_lane *lane)
{
	return lane ? lane->err : "no lane";
}

const struct nvmf_lane_info *nvmf_lane_info(const struct nvmf_lane *lane)
{
	return &lane->info;
}

int nvmf_lane_xport_stats(const struct nvmf_lane *lane, struct nvmf_xport_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!lane->fab->stats)
		return -EOPNOTSUPP;
	*st = lane->ioqs_gone;
	for (unsigned i = 0; i < lane->nr_ioqs; i++)
		if (lane->ioqs[i])
			lane->fab->stats(lane->ioqs[i], st);
	return 0;
}

struct nvmf_queue *nvmf_lane_ioq(struct nvmf_lane *lane, unsigned idx)
{
	return idx < lane->nr_ioqs ? lane->ioqs[idx] : NULL;
}

/* Every I/O queue, in the ways the lane treats them all alike. */
static void nvmf_lane_ioqs_kill(struct nvmf_lane *lane)
{
	for (unsigned i = 0; i < lane->nr_ioqs; i++)
		if (lane->ioqs[i])
			lane->fab->kill(lane->ioqs[i]);
}

static void nvmf_lane_ioqs_destroy(struct nvmf_lane *lane, unsigned disconnect_wait_ms)
{
	for (unsigned i = 0; i < lane->nr_ioqs; i++) {
		if (lane->ioqs[i] && lane->fab->stats)
			lane->fab->stats(lane->ioqs[i], &lane->ioqs_gone);
		if (lane->ioqs[i])
			lane->fab->destroy(lane->ioqs[i], disconnect_wait_ms);
		lane->ioqs[i] = NULL;
	}
	lane->nr_ioqs = 0;
	nvmf_rdma_cq_destroy(lane->ioq_cq);    /* after every QP on it */
	lane->ioq_cq = NULL;
}

static int nvmf_resolve(struct nvmf_lane *lane, const char *what, const char *host,
			const char *port, int family, struct sockaddr_storage *ss)
{
	struct addrinfo hints, *ai = NULL;
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = family;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(host, port, &hints, &ai);
	if (rc || !ai)
		return nvmf_lane_errf(lane, -EINVAL, "%s '%s': %s", what, host,
				      rc ? gai_strerror(rc) : "no address");
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	return 0;
}

/* Run one admin command synchronously; NVMe status comes back as a positive value. */
static int nvmf_admin_exec(struct nvmf_lane *lane, struct nvmf_req *req, struct nvme_cqe *cqe)
{
	struct nvmf_queue *q = lane->aq;
	int rc = nvmf_queue_exec(q, req, lane->admin_timeout_ms, cqe);

	if (rc)
		return nvmf_lane_errf(lane, rc, "%s", q->fatal_msg[0] ? q->fatal_msg : strerror(-rc));
	return nvme_status_code(le16toh(cqe->status));
}

static struct nvmf_req *nvmf_admin_req(struct nvmf_lane *lane)
{
	struct nvmf_req *req = nvmf_queue_get(lane->aq, NULL);

	if (!req)
		nvmf_lane_errf(lane, -EBUSY, "admin queue has no free slot");
	return req;
}

/* Property Get (set == 0) or Set of one controller register; Get returns it in *val. */
static int nvmf_prop(struct nvmf_lane *lane, int set, uint32_t ofst, int eight, uint64_t *val)
{
	struct nvmf_req *req = nvmf_admin_req(lane);
	struct nvme_sqe *c;
	struct nvme_cqe cqe;
	char st[128];
	int rc;

	if (!req)
		return -EBUSY;
	c = nvmf_req_sqe(lane->aq, req);
	if (set)
		nvmf_cmd_prop_set(c, ofst, eight, *val);
	else
		nvmf_cmd_prop_get(c, ofst, eight);
	rc = nvmf_admin_exec(lane, req, &cqe);
	if (rc < 0)
		return rc;
	if (rc > 0) {
		nvme_status_format_raw(st, sizeof(st), le16toh(cqe.status), 1);
		return nvmf_lane_errf(lane, -EIO, "Property %s 0x%x failed: %s", set ? "Set" : "Get",
				      ofst, st);
	}
	if (!set)
		*val = eight ? le64toh(cqe.result) : le64toh(cqe.result) & 0xffffffffu;
	return 0;
}

static int nvmf_prop_get(struct nvmf_lane *lane, uint32_t ofst, int eight, uint64_t *val)
{
	return nvmf_prop(lane, 0, ofst, eight, val);
}

static int nvmf_prop_set(struct nvmf_lane *lane, uint32_t ofst, uint32_t val)
{
	uint64_t v = val;

	return nvmf_prop(lane, 1, ofst, 0, &v);
}

/* Connect Invalid Parameters names the offending field: say which one in words. */
static const char *nvmf_connect_bad_field(uint32_t dw0)
{
	unsigned ipo = dw0 & 0xffff, iattr = (dw0 >> 16) & 1;

	if (iattr) {
		if (ipo >= 256 && ipo < 512)
			return " (the target does not know subnqn)";
		if (ipo >= 512 && ipo < 768)
			return " (the target refused hostnqn)";
		if (ipo >= 16 && ipo < 18)
			return " (controller ID)";
		if (ipo < 16)
			return " (hostid)";
		return " (in the Connect data)";
	}
	if (ipo == 42)
		return " (queue ID)";
	if (ipo == 44)
		return " (queue size)";
	return "";
}

static int nvmf_auth_queue(struct nvmf_lane *lane, struct nvmf_queue *q, uint32_t dw0);

/* How often a bring-up command's wait asks the transport whether the connection still stands. */
#define NVMF_BRINGUP_CONN_CHECK_MS 20

/* A bring-up command's wait (Connect, authentication) on one queue, run by the thread that
 * brings the lane up, before any keep-alive thread watches the queue's connection: it reaps
 * and asks the transport whether the target ended the connection, so a target that tears the
 * queue down instead of answering (nvmet after a refused DH-HMAC-CHAP reply, over RDMA, where
 * nothing completes) is told at once, not after the command's timeout. */
struct nvmf_bringup_wait {
	struct nvmf_lane  *lane;
	struct nvmf_queue *q;
	uint64_t           next_check_ms;
};

static int nvmf_bringup_wait(void *ctx, int timeout_ms)
{
	struct nvmf_bringup_wait *w = ctx;
	struct timespec ts = { 0, 20000 };
	char why[NVMF_ERR_LEN];
	uint64_t now;
	int rc;

	(void)timeout_ms;    /* one short round: nvmf_queue_exec_wait keeps the deadline */
	rc = w->lane->fab->process(&w->q, 1);
	if (rc)
		return rc;
	now = nvmf_now_ms();
	if (now >= w->next_check_ms) {
		w->next_check_ms = now + NVMF_BRINGUP_CONN_CHECK_MS;
		rc = w->lane->fab->conn_check(w->q, why, sizeof(why));
		if (rc)
			return nvmf_queue_abandon(w->q, rc, why);
	}
	nanosleep(&ts, NULL);
	return 0;
}

static int nvmf_bringup_exec(struct nvmf_lane *lane, struct nvmf_queue *q, struct nvmf_req *req,
			     unsigned timeout_ms, struct nvme_cqe *cqe)
{
	struct nvmf_bringup_wait w = { lane, q, 0 };

	return nvmf_queue_exec_wait(q, req, timeout_ms, cqe, nvmf_bringup_wait, &w);
}

static int nvmf_fabrics_connect(struct nvmf_lane *lane, struct nvmf_queue *q,
				uint16_t cntlid, uint16_t *cntlid_out)
{
	struct nvmf_connect_data *cd = (struct nvmf_connect_data *)lane->scratch;
	struct nvmf_req *req = nvmf_queue_get(q, NULL);
	struct nvme_sqe *c;
	struct nvme_cqe cqe;
	char st[128];
	int rc;

	if (!req)
		return nvmf_lane_errf(lane, -EBUSY, "queue %u has no free slot", q->qid);
	rc = nvmf_connect_data_init(cd, lane->opts.hostid, cntlid, lane->subnqn, lane->hostnqn);
	if (rc) {
		nvmf_queue_put(q, req);
		return nvmf_lane_errf(lane, rc, "subnqn/hostnqn must be 1..%d characters", NVMF_NQN_MAX);
	}
	c = nvmf_req_sqe(q, req);
	/* KATO on the admin queue only; 0: the target runs no keep-alive timer (unless it
	 * insists on one: the lane asks which KATO is in force after bring-up). */
	nvmf_cmd_connect(c, q->qid, (uint16_t)(q->depth - 1), q->qid ? 0 : lane->opts.kato_ms);
	nvme_sqe_set_sgl_keyed(c, (uintptr_t)cd, sizeof(*cd), nvmf_lane_scratch_rkey(lane));
	rc = nvmf_bringup_exec(lane, q, req, lane->admin_timeout_ms, &cqe);
	if (rc)
		return nvmf_lane_errf(lane, rc, "Fabrics Connect (queue %u): %s", q->qid,
				      q->fatal_msg[0] ? q->fatal_msg : strerror(-rc));
	rc = nvme_status_code(le16toh(cqe.status));
	if (rc) {
		/* Code only: the bad-field words follow the status name (the testbed's
		 * engine_errors matches "Connect Invalid Parameters (the target does not ...)"). */
		nvme_status_format(st, sizeof(st), (uint16_t)rc, 1);
		return nvmf_lane_errf(lane, -ECONNREFUSED, "Fabrics Connect to %s (queue %u) failed: %s%s",
				      lane->subnqn, q->qid, st,
				      rc == 0x182 ? nvmf_connect_bad_field(le32toh((uint32_t)le64toh(cqe.result))) : "");
	}
	if (cntlid_out)
		*cntlid_out = (uint16_t)(le64toh(cqe.result) & 0xffff);
	/* AUTHREQ: the controller wants the host authenticated before anything else. */
	return nvmf_auth_queue(lane, q, le32toh((uint32_t)le64toh(cqe.result)));
}

/* ---- in-band authentication (DH-HMAC-CHAP, lib/nvmf_auth.c) --------------------------------- */

/* DH over ffdhe8192 under an emulator takes the target a while: the auth commands wait at
 * least this long. */
#define NVMF_AUTH_TIMEOUT_MS 10000

/* After queue q's Connect (DW0 its answer): authenticate when AUTHREQ asks. */
static int nvmf_auth_queue(struct nvmf_lane *lane, struct nvmf_queue *q, uint32_t dw0)
{
	struct nvmf_lane_info *in = &lane->info;
	struct nvmf_bringup_wait w = { lane, q, 0 };
	char err[NVMF_ERR_LEN];
	unsigned tmo = lane->admin_timeout_ms > NVMF_AUTH_TIMEOUT_MS ? lane->admin_timeout_ms :
		       NVMF_AUTH_TIMEOUT_MS;
	int rc;

	if (!(dw0 & (NVMF_CONNECT_AUTHREQ_ATR | NVMF_CONNECT_AUTHREQ_ASCR)))
		return 0;
	rc = nvmf_auth_after_connect(&lane->auth, q, dw0, lane->scratch,
				     nvmf_lane_scratch_rkey(lane), tmo, nvmf_bringup_wait, &w, err,
				     sizeof(err));
	if (rc)
		return nvmf_lane_errf(lane, rc, "authentication to %s failed on %s", lane->subnqn, err);
	snprintf(in->auth, sizeof(in->auth), "DH-HMAC-CHAP %s %s%s",
		 nvmf_auth_hash_name(lane->auth.hash_id), nvmf_auth_dhgroup_name(lane->auth.dhg_id),
		 lane->auth.ctrl.len ? " bidirectional" : "");
	in->auth_exchanges = lane->auth.exchanges;
	return 0;
}

/* *status: the raw CQE status word (nonzero nvme_status_code() means the command failed). */
static int nvmf_identify(struct nvmf_lane *lane, uint8_t cns, uint32_t nsid, uint16_t *status)
{
	struct nvmf_req *req = nvmf_admin_req(lane);
	struct nvme_sqe *c;
	struct nvme_cqe cqe;
	int rc;

	if (!req)
		return -EBUSY;
	c = nvmf_req_sqe(lane->aq, req);
	memset(lane->scratch, 0, NVME_IDENTIFY_SIZE);
	nvme_cmd_identify(c, cns, nsid, 0);
	nvme_sqe_set_sgl_keyed(c, (uintptr_t)lane->scratch, NVME_IDENTIFY_SIZE, nvmf_lane_scratch_rkey(lane));
	rc = nvmf_admin_exec(lane, req, &cqe);
	if (rc < 0)
		return rc;
	*status = le16toh(cqe.status);
	return 0;
}

static int nvmf_keepalive_wait(void *ctx, int timeout_ms);

static void nvmf_keepalive_wake(struct nvmf_keepalive *ka)
{
	uint64_t one = 1;

	if (write(ka->wake_fd, &one, sizeof(one)) < 0) {
		/* the counter is already set (EAGAIN): the thread wakes anyway */
	}
}

/* ---- ANA ---------------------------------------------------------------------------------- */
#define NVMF_ANA_LOG_MAX  4096      /* header + 32 groups (read groups only) */
#define NVMF_ANA_POLL_MS  1000      /* also polled: for a controller that sends no notices */

/* Get Log Page, ANA (0Ch), into the scratch buffer at offset 4096 (Identify uses the first
 * 4 KiB; the keep-alive thread is the only user once the lane is up).  threaded: the keep-alive
 * thread, which sleeps while it waits; 0: bring-up, which polls. */
static int nvmf_ana_get_log(struct nvmf_lane *lane, int threaded, int rae, uint8_t **log)
{
	struct nvmf_queue *q = lane->aq;
	struct nvmf_req *req = nvmf_queue_get(q, NULL);
	uint8_t *buf = lane->scratch + NVME_IDENTIFY_SIZE;
	struct nvme_sqe *c;
	struct nvme_cqe cqe;
	int rc;

	if (!req)
		return -EBUSY;
	c = nvmf_req_sqe(q, req);
	memset(buf, 0, NVMF_ANA_LOG_MAX);
	/* groups only (RGO: no NSID lists, so many namespaces still fit; a controller that sends
	 * them anyway is parsed as well); RAE 0 only after an ANA change notice: reading the log
	 * then clears the event, so the controller sends the next one */
	nvme_cmd_get_log_page(c, NVME_LOG_ANA, NVME_ANA_LSP_RGO, 0xffffffffu, NVMF_ANA_LOG_MAX, 0,
			      rae);
	nvme_sqe_set_sgl_keyed(c, (uintptr_t)buf, NVMF_ANA_LOG_MAX, nvmf_lane_scratch_rkey(lane));
	if (threaded)
		rc = nvmf_queue_exec_wait(q, req, lane->ka.timeout_ms, &cqe, nvmf_keepalive_wait, lane);
	else
		rc = nvmf_queue_exec(q, req, lane->admin_timeout_ms, &cqe);
	if (rc)
		return rc;
	if (nvme_status_code(le16toh(cqe.status)))
		return (int)nvme_status_code(le16toh(cqe.status));
	*log = buf;
	return 0;
}

/* Read the ANA log and publish it (a failure is kept in ana.err; the states stay). */
static int nvmf_ana_refresh(struct nvmf_lane *lane, int threaded, int rae)
{
	struct nvme_ana_group g[NVMF_ANA_MAX_GROUPS];
	uint8_t *log = NULL;
	char why[NVMF_ERR_LEN] = "";
	uint64_t chgcnt;
	unsigned n = 0;
	int rc = nvmf_ana_get_log(lane, threaded, rae, &log);

	if (rc > 0)
		snprintf(why, sizeof(why), "ANA log: Get Log Page failed with status 0x%03x", rc);
	else if (rc < 0)
		snprintf(why, sizeof(why), "ANA log: %s", strerror(-rc));
	else
		rc = nvme_ana_log_parse(log, NVMF_ANA_LOG_MAX, &chgcnt, g, NVMF_ANA_MAX_GROUPS, &n,
					why, sizeof(why));
	pthread_mutex_lock(&lane->ana.lock);
	if (!rc) {
		lane->ana.nr = n;
		memcpy(lane->ana.g, g, n * sizeof(g[0]));
		lane->ana.err[0] = 0;
	} else {
		snprintf(lane->ana.err, sizeof(lane->ana.err), "%s", why);
	}
	pthread_mutex_unlock(&lane->ana.lock);
	if (!rc)
		__atomic_add_fetch(&lane->ana.gen, 1, __ATOMIC_RELEASE);
	return rc;
}

unsigned nvmf_lane_ana_gen(const struct nvmf_lane *lane)
{
	return __atomic_load_n(&lane->ana.gen, __ATOMIC_ACQUIRE);
}

int nvmf_lane_ana_state(struct nvmf_lane *lane, uint32_t grpid, char *err, size_t errlen)
{
	uint8_t st = 0;

	if (!lane->info.ana_reporting)
		return 0;
	pthread_mutex_lock(&lane->ana.lock);
	if (nvme_ana_log_state_of(lane->ana.g, lane->ana.nr, grpid, &st))
		st = 0;
	if (err && errlen)
		snprintf(err, errlen, "%s", lane->ana.err);
	pthread_mutex_unlock(&lane->ana.lock);
	return st;
}

void nvmf_lane_ana_poke(struct nvmf_lane *lane)
{
	struct nvmf_keepalive *ka = &lane->ka;

	if (!ka->running || !ka->ana_ms)
		return;
	__atomic_store_n(&ka->ana_want, 1, __ATOMIC_RELEASE);
	nvmf_keepalive_wake(ka);
}

static void nvmf_copy_trim(char *dst, const void *src, size_t n)
{
	memcpy(dst, src, n);
	dst[n] = 0;
	/* Identify strings are space padded; unprintable bytes become '?'. */
	for (size_t i = 0; i < n && dst[i]; i++)
		if ((unsigned char)dst[i] < 0x20 || (unsigned char)dst[i] > 0x7e)
			dst[i] = '?';
	while (n && (dst[n - 1] == ' ' || dst[n - 1] == 0))
		dst[--n] = 0;
}

int nvmf_csts_wait(nvmf_csts_read_fn read_csts, void *ctx, uint32_t mask, uint32_t want,
		   unsigned timeout_ms, uint32_t *last)
{
	uint64_t deadline = nvmf_now_ms() + timeout_ms;
	struct timespec ts = { 0, 1000000 };
	uint32_t csts;
	int rc;

	for (;;) {
		if ((rc = read_csts(ctx, &csts)))
			return rc;
		if (last)
			*last = csts;
		/* CFS before the wanted bits: a controller in fatal state may show RDY too (or
		 * all ones, like a device that is gone), and must not pass for ready. */
		if (nvme_csts_cfs(csts))
			return -EIO;
		if ((csts & mask) == want)
			return 0;
		if (nvmf_now_ms() > deadline)
			return -ETIMEDOUT;
		nanosleep(&ts, NULL);
	}
}

static int nvmf_read_csts(void *ctx, uint32_t *csts)
{
	uint64_t v = 0;
	int rc = nvmf_prop_get(ctx, NVME_REG_CSTS, 0, &v);

	*csts = (uint32_t)v;
	return rc;
}

static int nvmf_wait_csts(struct nvmf_lane *lane, uint32_t mask, uint32_t want,
			  unsigned timeout_ms, uint32_t *last)
{
	return nvmf_csts_wait(nvmf_read_csts, lane, mask, want, timeout_ms, last);
}

/* Get Log Page of len bytes (a multiple of 4) from byte offset (dword aligned) of log lid into
 * buf, through the scratch buffer one Get Log Page per NVMF_SCRATCH_SIZE bytes (or per MDTS,
 * when smaller), at increasing offsets.  RAE is 0: reading a log clears the event that
 * announced it.  0 with *status 0 when every page was read; 0 with the first non-zero raw CQE
 * status in *status (buf then holds what came before it); a negative errno when a command got
 * no answer.  Whoever owns the admin queue calls it (bring-up, the caller of a lane without
 * keep-alive, or the keep-alive thread). */
static int nvmf_get_log(struct nvmf_lane *lane, uint8_t lid, uint8_t lsp, uint32_t nsid,
			uint64_t offset, void *buf, uint32_t len, uint16_t *status)
{
	uint32_t page = NVMF_SCRATCH_SIZE;
	uint32_t done = 0;

	*status = 0;
	if ((len | offset) & 3)
		return nvmf_lane_errf(lane, -EINVAL, "Get Log Page 0x%02x: %u bytes at offset %llu "
				      "(both must be multiples of 4)", lid, len,
				      (unsigned long long)offset);
	if (lane->info.mdts_bytes && lane->info.mdts_bytes < page)
		page = lane->info.mdts_bytes;
	while (done < len) {
		uint32_t n = len - done < page ? len - done : page;
		struct nvmf_req *req = nvmf_admin_req(lane);
		struct nvme_sqe *c;
		struct nvme_cqe cqe;
		int rc;

		if (!req)
			return -EBUSY;
		c = nvmf_req_sqe(lane->aq, req);
		/* a short transfer leaves zeros, never the previous page's bytes */
		memset(lane->scratch, 0, n);
		nvme_cmd_get_log_page(c, lid, lsp, nsid, n, offset + done, 0);
		nvme_sqe_set_sgl_keyed(c, (uintptr_t)lane->scratch, n, nvmf_lane_scratch_rkey(lane));
		rc = nvmf_admin_exec(lane, req, &cqe);
		if (rc < 0)
			return rc;
		if (rc > 0) {
			*status = le16toh(cqe.status);
			return 0;
		}
		memcpy((uint8_t *)buf + done, lane->scratch, n);
		done += n;
	}
	return 0;
}

int nvmf_lane_get_log(struct nvmf_lane *lane, uint8_t lid, uint8_t lsp, uint32_t nsid,
		      uint64_t offset, void *buf, size_t len)
{
	uint16_t st;
	char s[128];
	int rc;

	lane->err[0] = 0;
	if (lane->ka.running)
		return nvmf_lane_errf(lane, -EBUSY, "Get Log Page 0x%02x: the keep-alive thread owns "
				      "the admin queue", lid);
	if (len > UINT32_MAX - 3)
		return nvmf_lane_errf(lane, -EINVAL, "Get Log Page 0x%02x: %zu bytes (at most 4 GiB "
				      "per call)", lid, len);
	if ((rc = nvmf_get_log(lane, lid, lsp, nsid, offset, buf, (uint32_t)len, &st)))
		return rc;
	if (nvme_status_code(st)) {
		nvme_status_format_raw(s, sizeof(s), st, 0);
		return nvmf_lane_errf(lane, -EIO, "Get Log Page 0x%02x (offset %llu) failed: %s", lid,
				      (unsigned long long)offset, s);
	}
	return 0;
}

static int nvmf_enable(struct nvmf_lane *lane)
{
	struct nvmf_lane_info *in = &lane->info;
	unsigned to_ms;
	uint32_t csts = 0;
	uint64_t v;
	int rc;

	if ((rc = nvmf_prop_get(lane, NVME_REG_CAP, 1, &in->cap)))
		return rc;
	if ((rc = nvmf_prop_get(lane, NVME_REG_VS, 0, &v)))
		return rc;
	in->vs = (uint32_t)v;
	if ((rc = nvmf_prop_set(lane, NVME_REG_CC, nvme_cc_build(1, 0, 0, 0, 0, 6, 4))))
		return rc;
	lane->enabled = 1;
	to_ms = nvme_cap_to(in->cap) * 500;
	if (to_ms < 500)
		to_ms = 500;
	rc = nvmf_wait_csts(lane, 0x1 /* RDY */, 0x1, to_ms, &csts);
	if (rc == -EIO)
		return nvmf_lane_errf(lane, rc, "controller reports fatal status (CSTS.CFS, CSTS "
				      "0x%08x) while enabling", csts);
	if (rc == -ETIMEDOUT)
		return nvmf_lane_errf(lane, rc, "controller not ready (CSTS.RDY) within "
				      "CAP.TO = %u ms (CSTS 0x%08x)", to_ms, csts);
	return rc;
}

static int nvmf_identify_ctrl(struct nvmf_lane *lane)
{
	struct nvmf_lane_info *in = &lane->info;
	const struct nvme_id_ctrl *id = (const struct nvme_id_ctrl *)lane->scratch;
	uint16_t st;
	char s[128];
	int rc;

	if ((rc = nvmf_identify(lane, NVME_IDENTIFY_CNS_CTRL, 0, &st)))
		return rc;
	if (nvme_status_code(st)) {
		nvme_status_format_raw(s, sizeof(s), st, 0);
		return nvmf_lane_errf(lane, -EIO, "Identify Controller failed: %s", s);
	}
	nvmf_copy_trim(in->mn, id->mn, sizeof(id->mn));
	nvmf_copy_trim(in->sn, id->sn, sizeof(id->sn));
	nvmf_copy_trim(in->fr, id->fr, sizeof(id->fr));
	nvmf_copy_trim(in->subnqn, id->subnqn, sizeof(id->subnqn));
	/* A discovery controller has no namespaces and no I/O queues: NN and IOCCSZ are 0 there
	 * (nvmet leaves them so), and only what an I/O controller needs is checked. */
	if (!lane->discovery && (rc = nvmf_id_ctrl_check(id, in->cap, s, sizeof(s))))
		return nvmf_lane_errf(lane, rc, "controller %s: invalid Identify Controller data: %s",
				      lane->subnqn, s);
	in->mdts_bytes = nvmf_mdts_bytes(id->mdts, in->cap);
	in->maxcmd = le16toh(id->maxcmd);
	in->nn = le32toh(id->nn);
	in->oncs = le16toh(id->oncs);
	in->vwc = id->vwc;
	in->ioccsz_bytes = le32toh(id->ioccsz) * 16;
	in->icdoff = le16toh(id->icdoff);
	in->sgls = le32toh(id->sgls);
	in->ana_reporting = (id->cmic & NVME_ID_CTRL_CMIC_ANA) != 0;
	in->cqt_ms = le16toh(id->cqt);
	/* RDMA moves data by keyed SGLs; NVMe/TCP by the transport's own data block descriptor,
	 * which every NVMe/TCP controller takes. */
	if (lane->fab->trtype == NVMF_TRTYPE_RDMA && !(in->sgls & 0x4))
		return nvmf_lane_errf(lane, -EOPNOTSUPP, "controller does not support keyed SGL data "
				      "blocks (SGLS 0x%08x)", in->sgls);
	return 0;
}

int nvmf_lane_identify_ns(struct nvmf_lane *lane, uint32_t nsid, struct nvmf_ns_info *ns)
{
	const struct nvme_id_ns *id = (const struct nvme_id_ns *)lane->scratch;
	uint16_t st;
	char s[128];
	int rc;

	lane->err[0] = 0;
	if (nsid == 0 || nsid == 0xffffffffu)
		return nvmf_lane_errf(lane, -EINVAL, "nsid %u is not a valid namespace ID", nsid);
	if ((rc = nvmf_identify(lane, NVME_IDENTIFY_CNS_NS, nsid, &st)))
		return rc;
	if (nvme_status_code(st)) {
		nvme_status_format_raw(s, sizeof(s), st, 0);
		return nvmf_lane_errf(lane, -ENODEV, "namespace %u of %s: Identify failed: %s", nsid,
				      lane->subnqn, s);
	}
	memset(ns, 0, sizeof(*ns));
	rc = nvmf_id_ns_check(id, lane->info.mdts_bytes, s, sizeof(s));
	if (rc == -ENODEV)
		return nvmf_lane_errf(lane, rc, "namespace %u is not active on %s (the controller "
				      "has %u namespace IDs)", nsid, lane->subnqn, lane->info.nn);
	if (rc)
		return nvmf_lane_errf(lane, rc, "namespace %u of %s: invalid Identify Namespace data: %s",
				      nsid, lane->subnqn, s);
	ns->nsid = nsid;
	ns->nsze = le64toh(id->nsze);
	ns->lba_size = nvme_id_ns_lba_size(id);
	ns->ms = nvme_id_ns_ms(id);
	ns->flbas = id->flbas;
	ns->dps = id->dps;
	ns->nsfeat = id->nsfeat;
	ns->anagrpid = le32toh(id->anagrpid);
	return 0;
}

void nvmf_lane_io_limits(const struct nvmf_lane *lane, uint32_t lba_size, struct nvmf_io_limits *lim)
{
	uint32_t max = NVME_SGL_KEYED_MAX_LEN;

	if (lane->info.mdts_bytes && lane->info.mdts_bytes < max)
		max = lane->info.mdts_bytes;
	lim->max_xfer = max / lba_size * lba_size;
	lim->inline_max = lane->info.inline_max;
}

int nvmf_lane_wait(struct nvmf_lane *lane, int timeout_ms)
{
	return lane->fab->wait(lane->ioqs, lane->nr_ioqs, timeout_ms);
}

int nvmf_lanes_wait(struct nvmf_lane *const *lanes, unsigned n, int timeout_ms)
{
	struct nvmf_queue *const *sets[NVMF_MAX_PATHS_WAIT];
	unsigned ns[NVMF_MAX_PATHS_WAIT], k = 0;

	for (unsigned i = 0; i < n && k < NVMF_MAX_PATHS_WAIT; i++) {
		if (!lanes[i]->nr_ioqs)
			continue;
		sets[k] = lanes[i]->ioqs;
		ns[k++] = lanes[i]->nr_ioqs;
	}
	/* A job's paths share its transport= (one option per job). */
	return k ? lanes[0]->fab->sets_wait(sets, ns, k, timeout_ms) : 0;
}

int nvmf_lane_reap(struct nvmf_lane *lane)
{
	return lane->fab->process(lane->ioqs, lane->nr_ioqs);
}

void nvmf_lane_dereg_mem(struct nvmf_mr *mr)
{
	if (!mr || !mr->ibv_mr)
		return;
	ibv_dereg_mr(mr->ibv_mr);
	mr->ibv_mr = NULL;
}

static void nvmf_addr_str(const struct sockaddr *sa, char *buf, size_t len)
{
	const void *a = sa->sa_family == AF_INET6 ?
		(const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr :
		(const void *)&((const struct sockaddr_in *)sa)->sin_addr;

	if (!inet_ntop(sa->sa_family, a, buf, (socklen_t)len))
		snprintf(buf, len, "?");
}

static unsigned nvmf_io_entries(struct nvmf_lane *lane)
{
	const struct nvmf_lane_info *in = &lane->info;
	unsigned n = lane->opts.io_queue_entries;
	unsigned mqes = nvme_cap_mqes(in->cap) + 1u;
	struct nvmf_io_limits lim;

	/* An I/O larger than the transfer limit takes several commands: size for all of them. */
	nvmf_lane_io_limits(lane, 4096, &lim);
	if (n > 1) {
		uint64_t parts = nvmf_io_cmds_for_bytes(lane->opts.io_max_bytes, &lim);

		n = (unsigned)((n - 1) * parts + 1 < 65536 ? (n - 1) * parts + 1 : 65536);
	}

	if (n > mqes)
		n = mqes;
	if (in->maxcmd && n > in->maxcmd)
		n = in->maxcmd;
	if (n > 4096)
		n = 4096;
	/* Last: MAXCMD 1 still allows one command in flight, i.e. a queue of 2 (CAP.MQES 0,
	 * the other way to get below 2, is refused at Identify). */
	if (n < 2)
		n = 2;
	return n;
}

/* Set Features, Number of Queues: ask for `want` I/O submission and completion queues; the
 * controller answers how many it allocated (both 0-based).  info.io_queues_granted: the
 * smaller of the two, as the controller said it (the lane uses at most what it asked for). */
static int nvmf_set_nr_queues(struct nvmf_lane *lane, unsigned want)
{
	struct nvmf_req *req = nvmf_admin_req(lane);
	struct nvme_cqe cqe;
	int rc;

	if (!req)
		return -EBUSY;
	nvme_cmd_set_features_nr_queues(nvmf_req_sqe(lane->aq, req), (uint16_t)(want - 1),
					(uint16_t)(want - 1));
	rc = nvmf_admin_exec(lane, req, &cqe);
	if (rc < 0)
		return rc;
	if (rc > 0) {
		char st[128];

		nvme_status_format(st, sizeof(st), (uint16_t)rc, 0);
		return nvmf_lane_errf(lane, -EIO, "Set Features Number of Queues (%u) failed: %s",
				      want, st);
	}
	lane->info.io_queues_granted = nvme_nr_queues_granted((uint32_t)le64toh(cqe.result));
	return 0;
}

/* The KATO in force: Get Features, Keep Alive Timer.  0 when the controller does not say. */
static uint32_t nvmf_get_kato(struct nvmf_lane *lane)
{
	struct nvmf_req *req = nvmf_admin_req(lane);
	struct nvme_cqe cqe;

	if (!req)
		return 0;
	nvme_cmd_get_features(nvmf_req_sqe(lane->aq, req), NVME_FEAT_KATO, NVME_FEAT_SEL_CURRENT);
	if (nvmf_admin_exec(lane, req, &cqe))
		return 0;
	return (uint32_t)le64toh(cqe.result);
}

/* The keep-alive thread's wait for an answer: asleep on the admin queue's channel. */
static int nvmf_keepalive_wait(void *ctx, int timeout_ms)
{
	struct nvmf_lane *lane = ctx;

	return lane->fab->wait(&lane->aq, 1, timeout_ms);
}

static int nvmf_keepalive_once(struct nvmf_lane *lane)
{
	struct nvmf_keepalive *ka = &lane->ka;
	struct nvmf_queue *q = lane->aq;
	struct nvmf_req *req = nvmf_queue_get(q, NULL);
	struct nvme_cqe cqe;
	char st[128];
	int rc;

	if (!req) {
		snprintf(ka->msg, sizeof(ka->msg), "keep-alive: the admin queue has no free slot");
		return -EBUSY;
	}
	nvme_cmd_keep_alive(nvmf_req_sqe(q, req));
	rc = nvmf_queue_exec_wait(q, req, ka->timeout_ms, &cqe, nvmf_keepalive_wait, lane);
	if (rc) {
		snprintf(ka->msg, sizeof(ka->msg), "keep-alive lost: %s",
			 q->fatal_msg[0] ? q->fatal_msg : strerror(-rc));
		return rc;
	}
	rc = nvme_status_code(le16toh(cqe.status));
	if (rc) {
		nvme_status_format(st, sizeof(st), (uint16_t)rc, 1);
		snprintf(ka->msg, sizeof(ka->msg), "keep-alive refused by the controller: %s", st);
		return -ECONNRESET;
	}
	return 0;
}

/* ---- Asynchronous Event Request: ANA change notices --------------------------------------- */
#define NVME_FEAT_ASYNC_EVENT      0x0b
#define NVME_AEC_ANA_CHANGE        (1u << 11)  /* Asynchronous Event Configuration: ANA change */
#define NVME_AER_TYPE_NOTICE       0x2
#define NVME_AER_NOTICE_ANA_CHANGE 0x03

/* Keep one AER outstanding on the admin queue (the keep-alive thread's; its answer stays in
 * the slot until nvmf_aer_check takes it, whichever wait reaped it). */
static void nvmf_aer_post(struct nvmf_lane *lane)
{
	struct nvmf_queue *q = lane->aq;
	struct nvmf_req *req = nvmf_queue_get(q, NULL);

	if (!req)
		return;
	nvme_sqe_init(nvmf_req_sqe(q, req), NVME_ADMIN_ASYNC_EVENT);
	nvmf_queue_stage(q, req, NULL, 0, 0);
	if (nvmf_queue_flush(q) < 0)
		return;             /* the queue failed: keep-alive and the CM watch report it */
	lane->aer = req;
}

/* Ask for ANA change notices (a controller that refuses still gets the AER: some send them
 * anyway) and post the first AER. */
static void nvmf_aer_start(struct nvmf_lane *lane)
{
	struct nvmf_queue *q = lane->aq;
	struct nvmf_req *req = nvmf_queue_get(q, NULL);
	struct nvme_cqe cqe;

	lane->aer = NULL;
	if (!req)
		return;
	nvme_sqe_init(nvmf_req_sqe(q, req), NVME_ADMIN_SET_FEATURES);
	nvmf_req_sqe(q, req)->cdw10 = htole32(NVME_FEAT_ASYNC_EVENT);
	nvmf_req_sqe(q, req)->cdw11 = htole32(NVME_AEC_ANA_CHANGE);
	if (nvmf_queue_exec_wait(q, req, lane->ka.timeout_ms, &cqe, nvmf_keepalive_wait, lane))
		return;
	nvmf_aer_post(lane);
}

/* The AER answered: 1 for an ANA change notice (read the ANA log, clearing the event), 0
 * otherwise; posted again unless it failed (a controller that aborts it, or refuses more,
 * leaves the lane to its ANA polls). */
static int nvmf_aer_check(struct nvmf_lane *lane)
{
	struct nvmf_req *r = lane->aer;
	uint32_t dw0;
	uint16_t st;

	if (!r || r->state != NVMF_REQ_COMPLETE)
		return 0;
	st = le16toh(r->cqe.status);
	dw0 = (uint32_t)le64toh(r->cqe.result);
	nvmf_queue_put(lane->aq, r);
	lane->aer = NULL;
	if (nvme_status_code(st))
		return 0;
	nvmf_aer_post(lane);
	if ((dw0 & 0x7) != NVME_AER_TYPE_NOTICE || ((dw0 >> 8) & 0xff) != NVME_AER_NOTICE_ANA_CHANGE)
		return 0;
	__atomic_add_fetch(&lane->aens, 1, __ATOMIC_RELAXED);
	return 1;
}

unsigned nvmf_lane_aens(const struct nvmf_lane *lane)
{
	return lane ? __atomic_load_n(&lane->aens, __ATOMIC_RELAXED) : 0;
}

/* The lane is lost (rc, why): the reason is kept and every I/O queue pair shut off now. */
static void nvmf_keepalive_lost(struct nvmf_lane *lane, int rc, const char *why)
{
	struct nvmf_keepalive *ka = &lane->ka;

	snprintf(ka->msg, sizeof(ka->msg), "%s", why);
	__atomic_store_n(&ka->failed, rc, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < lane->nr_ioqs; i++)
		if (lane->ioqs[i])
			lane->fab->kill_why(lane->ioqs[i], rc, why);
}

/* The RDMA CM channels the keep-alive thread watches: the admin queue's and each I/O queue's.
 * A fatal event (disconnect, device removal): the lane's reason is kept and every I/O queue
 * pair is shut off now.  0, or the event's negative errno. */
static int nvmf_keepalive_cm(struct nvmf_lane *lane, struct pollfd *pfd, unsigned n)
{
	char why[NVMF_ERR_LEN];
	int rc = 0;

	for (unsigned i = 0; i < n && !rc; i++) {
		struct nvmf_queue *q = i ? lane->ioqs[i - 1] : lane->aq;

		if (q && pfd[i].revents & (pfd[i].events | POLLERR | POLLHUP))
			rc = lane->fab->conn_check(q, why, sizeof(why));
		/* A hang-up that is no loss: a TCP queue shut off or failed on this side (its
		 * reap says why); the descriptor would wake the thread for ever. */
		if (!rc && pfd[i].revents & (POLLERR | POLLHUP))
			pfd[i].fd = -1;
	}
	if (rc)
		nvmf_keepalive_lost(lane, rc, why);
	return rc;
}

/* The path's port (port_down_lost): a link gone down loses the lane as a disconnect does.
 * Asked when the device's event descriptor wakes the thread, and at each keep-alive: the
 * descriptor is the device's, shared with every lane of this process on it, and a lane
 * busy when another took the event learns it at its next keep-alive. */
static int nvmf_keepalive_port(struct nvmf_lane *lane)
{
	char why[NVMF_ERR_LEN];
	int rc = nvmf_rdma_queue_port_check(nvmf_rdma_of(lane->aq), why, sizeof(why));

	if (rc)
		nvmf_keepalive_lost(lane, rc, why);
	return rc;
}

/* Keep-alive every interval_ms (0: none asked for); where the controller reports ANA, an AER
 * kept outstanding and the ANA log read on each notice, every ana_ms, or at once when asked
 * (nvmf_lane_ana_poke); in between, asleep on the queues' RDMA CM channels, the admin queue's
 * completions (while an AER waits) and the wake-up descriptor. */
static void *nvmf_keepalive_thread(void *arg)
{
	struct nvmf_lane *lane = arg;
	struct nvmf_keepalive *ka = &lane->ka;
	struct pollfd pfd[NVMF_MAX_IO_QUEUES + 4];
	uint64_t now = nvmf_now_ms();
	uint64_t ka_due = ka->interval_ms ? now + ka->interval_ms : UINT64_MAX;
	uint64_t ana_due = ka->ana_ms ? now + ka->ana_ms : UINT64_MAX;
	unsigned ncm = 1 + lane->nr_ioqs;
	int rc = 0, aen = 0;      /* aen: a notice not yet answered by a clearing read */

	for (unsigned i = 0; i < ncm; i++) {
		struct nvmf_queue *q = i ? lane->ioqs[i - 1] : lane->aq;

		pfd[i].events = POLLIN;
		pfd[i].fd = q ? lane->fab->watch(q, &pfd[i].events) : -1;
		if (pfd[i].fd < 0)
			pfd[i].fd = -1;                         /* poll skips a negative fd */
	}
	pfd[ncm].fd = -1;              /* the admin queue's completions, while an AER waits */
	pfd[ncm].events = POLLIN;
	pfd[ncm + 1].fd = ka->wake_fd;
	pfd[ncm + 1].events = POLLIN;
	pfd[ncm + 2].fd = lane->opts.port_down_lost && nvmf_rdma_of(lane->aq) ?
			  nvmf_rdma_queue_async_fd(nvmf_rdma_of(lane->aq)) : -1;
	pfd[ncm + 2].events = POLLIN;
	if (pfd[ncm + 2].fd < 0)
		pfd[ncm + 2].fd = -1;
	if (ka->ana_ms)
		nvmf_aer_start(lane);
	while (!__atomic_load_n(&ka->stop, __ATOMIC_ACQUIRE)) {
		uint64_t due = ka_due < ana_due ? ka_due : ana_due;
		int timeout = due == UINT64_MAX ? -1 : due <= now ? 0 :
			      due - now > 60000 ? 60000 : (int)(due - now);
		uint64_t cnt;

		for (unsigned i = 0; i <= ncm + 2; i++)
			pfd[i].revents = 0;
		pfd[ncm].fd = -1;
		if (lane->aer) {
			int fd = lane->fab->arm(lane->aq);

			pfd[ncm].fd = fd >= 0 ? fd : -1;
			aen |= nvmf_aer_check(lane);
		}
		if (!aen && poll(pfd, ncm + 3, timeout) > 0) {
			if (pfd[ncm + 1].revents & POLLIN && read(ka->wake_fd, &cnt, sizeof(cnt)) < 0) {
				/* nothing to read: woken by someone else's read */
			}
			if (__atomic_load_n(&ka->stop, __ATOMIC_ACQUIRE))
				break;
			if (nvmf_keepalive_cm(lane, pfd, ncm))
				break;
			if (pfd[ncm + 2].revents & POLLIN && nvmf_keepalive_port(lane))
				break;
			if (pfd[ncm].fd >= 0 && pfd[ncm].revents & POLLIN)
				lane->fab->event(lane->aq);
			aen |= nvmf_aer_check(lane);
		}
		now = nvmf_now_ms();
		rc = 0;
		if (now >= ka_due) {
			ka_due = now + ka->interval_ms;
			if (pfd[ncm + 2].fd >= 0 && nvmf_keepalive_port(lane))
				break;
			rc = lane->opts.keepalive_off ? 0 : nvmf_keepalive_once(lane);
		}
		/* an AER answered inside the keep-alive's wait */
		aen |= nvmf_aer_check(lane);
		if (!rc && ka->ana_ms && (aen || now >= ana_due ||
					   __atomic_exchange_n(&ka->ana_want, 0, __ATOMIC_ACQ_REL))) {
			ana_due = now + ka->ana_ms;
			/* A lost admin queue shows in keep-alive and the CM check; a failed read
			 * only leaves the states as they were (ana.err says why).  After a notice
			 * the read clears it (RAE 0). */
			int cleared = aen;

			nvmf_ana_refresh(lane, 1, !cleared);
			if (cleared)
				aen = 0;
			/* a notice that came during this read needs a read of its own */
			aen |= nvmf_aer_check(lane);
		}
		if (rc) {
			__atomic_store_n(&ka->failed, rc, __ATOMIC_RELEASE);
			break;
		}
		now = nvmf_now_ms();
	}
	return NULL;
}

static int nvmf_keepalive_start(struct nvmf_lane *lane, uint32_t kato_ms)
{
	struct nvmf_keepalive *ka = &lane->ka;
	int rc;

	ka->interval_ms = kato_ms ? nvmf_policy_keepalive_interval(kato_ms, lane->info.keepalive_why,
								   sizeof(lane->info.keepalive_why)) : 0;
	/* An ANA read is an admin command, and a target takes any as a sign of life (nvmet
	 * restarts its keep-alive timer on each): the test knob that withholds keep-alive
	 * withholds the polls too, or the controller would never be seen to expire. */
	ka->ana_ms = lane->info.ana_reporting && !lane->opts.keepalive_off ? NVMF_ANA_POLL_MS : 0;
	ka->timeout_ms = kato_ms && kato_ms < lane->admin_timeout_ms ? kato_ms : lane->admin_timeout_ms;
	if (ka->timeout_ms < 1000)
		ka->timeout_ms = 1000;
	__atomic_store_n(&ka->stop, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&ka->failed, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&ka->ana_want, 0, __ATOMIC_RELEASE);
	ka->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ka->wake_fd < 0)
		return nvmf_lane_errf(lane, -errno, "starting the keep-alive thread: eventfd: %s",
				      strerror(errno));
	rc = pthread_create(&ka->thread, NULL, nvmf_keepalive_thread, lane);
	if (rc) {
		close(ka->wake_fd);
		return nvmf_lane_errf(lane, -rc, "starting the keep-alive thread: %s", strerror(rc));
	}
	pthread_setname_np(ka->thread, "nvmf-keepalive");
	ka->running = 1;
	lane->info.keepalive_ms = ka->interval_ms;
	return 0;
}

/* Ends before anything else uses the admin queue (shutdown) or tears it down. */
static void nvmf_keepalive_stop(struct nvmf_lane *lane)
{
	struct nvmf_keepalive *ka = &lane->ka;

	if (!ka->running)
		return;
	__atomic_store_n(&ka->stop, 1, __ATOMIC_RELEASE);
	nvmf_keepalive_wake(ka);
	pthread_join(ka->thread, NULL);
	close(ka->wake_fd);
	ka->running = 0;
}

const char *nvmf_lane_lost_why(const struct nvmf_lane *lane)
{
	return lane && __atomic_load_n(&lane->ka.failed, __ATOMIC_ACQUIRE) ? lane->ka.msg : NULL;
}

int nvmf_lane_check(struct nvmf_lane *lane, uint64_t now_ms, unsigned io_timeout_ms,
		    uint64_t *oldest_age, char *why, size_t whylen)
{
	const struct nvmf_req *oldest = NULL;
	struct nvmf_queue *oq = NULL;
	int rc;

	*oldest_age = 0;
	/* The CM says why in the clearest words: ask it first, but only where a disconnect can
	 * hide (each read is a system call, on the job thread): an I/O queue whose oldest
	 * command has waited NVMF_LANE_CM_QUIET_MS (a queue that completes is connected; an idle
	 * one shows its loss at its next command), and the admin queue on a slower clock (its
	 * loss also fails keep-alive, and a target going away takes the I/O queues too). */
	for (unsigned i = 0; i < lane->nr_ioqs; i++) {
		const struct nvmf_req *old = nvmf_queue_oldest(lane->ioqs[i]);

		if (!old)
			continue;
		if (now_ms - old->posted_ms >= NVMF_LANE_CM_QUIET_MS &&
		    (rc = lane->fab->conn_check(lane->ioqs[i], why, whylen)))
			return rc;
		if (!oldest || old->posted_ms < oldest->posted_ms) {
			oldest = old;
			oq = lane->ioqs[i];
		}
	}
	if (now_ms >= lane->next_admin_cm_check_ms) {
		lane->next_admin_cm_check_ms = now_ms + NVMF_LANE_ADMIN_CM_CHECK_MS;
		if (lane->aq && (rc = lane->fab->conn_check(lane->aq, why, whylen)))
			return rc;
	}
	rc = __atomic_load_n(&lane->ka.failed, __ATOMIC_ACQUIRE);
	if (rc) {
		snprintf(why, whylen, "%s", lane->ka.msg);
		return rc;
	}
	if (oldest)
		*oldest_age = now_ms - oldest->posted_ms;
	if (oldest && io_timeout_ms && *oldest_age >= io_timeout_ms) {
		const struct nvme_sqe *c = nvmf_req_sqe(oq, oldest);

		snprintf(why, whylen, "no response to %s command 0x%04x (nsid %u) within %u ms "
			 "(io_timeout)", nvme_opcode_name(c->opcode, 0), oldest->cid,
			 le32toh(c->nsid), io_timeout_ms);
		return -ETIMEDOUT;
	}
	return 0;
}

void nvmf_lane_kill(struct nvmf_lane *lane)
{
	if (!lane)
		return;
	lane->dead = 1;
	/* The keep-alive thread's command is flushed by the QP's error state: it ends now. */
	if (lane->aq)
		lane->fab->kill(lane->aq);
	nvmf_keepalive_stop(lane);
	nvmf_lane_ioqs_kill(lane);
}

static void nvmf_lane_shutdown(struct nvmf_lane *lane, unsigned max_ms)
{
	if (!lane->enabled || lane->dead || !lane->aq || lane->aq->fatal)
		return;
	if (nvmf_prop_set(lane, NVME_REG_CC, nvme_cc_build(1, 0, 0, 0, NVME_CC_SHN_NORMAL, 6, 4)))
		return;
	/* Best effort: a controller that never reports completion is disconnected anyway. */
	if (nvmf_wait_csts(lane, 0xc /* SHST */, NVME_CSTS_SHST_COMPLETE << 2, max_ms, NULL) == 0)
		lane->enabled = 0;
}

/* What a connection holds, in the order it must go: the I/O queues (waiting up to io_wait_ms
 * for their disconnect), the admin buffer's registration, the admin queue (aq_wait_ms), then
 * the protection domain where the lane owns it.  The lane is left as before its first
 * bring-up. */
static void nvmf_lane_release(struct nvmf_lane *lane, unsigned io_wait_ms, unsigned aq_wait_ms)
{
	nvmf_lane_ioqs_destroy(lane, io_wait_ms);
	if (lane->scratch_mr)
		ibv_dereg_mr(lane->scratch_mr);
	lane->scratch_mr = NULL;
	if (lane->aq)
		lane->fab->destroy(lane->aq, aq_wait_ms);
	lane->aq = NULL;
	if (lane->pd && lane->pd_owned)
		ibv_dealloc_pd(lane->pd);
	lane->pd = NULL;
	lane->pd_owned = 0;
}

void nvmf_lane_destroy(struct nvmf_lane *lane)
{
	unsigned shutdown_ms = NVMF_SHUTDOWN_MAX_MS, io_wait_ms = 0;
	int hurried;

	if (!lane)
		return;
	/* I/O the target never answered (or a queue given up on): the target may not answer
	 * the shutdown either, and whoever stops the run is waiting, so every step is short. */
	hurried = lane->dead;
	for (unsigned i = 0; i < lane->nr_ioqs; i++)
		if (lane->ioqs[i] && (lane->ioqs[i]->fatal || lane->ioqs[i]->nr_inflight))
			hurried = 1;
	if (hurried) {
		shutdown_ms = NVMF_HURRIED_STEP_MS;
		if (lane->admin_timeout_ms > NVMF_HURRIED_STEP_MS)
			lane->admin_timeout_ms = NVMF_HURRIED_STEP_MS;
		io_wait_ms = NVMF_HURRIED_STEP_MS / 2;
		lane->aq_disconnect_wait_ms = NVMF_HURRIED_STEP_MS / 2;
	}
	nvmf_keepalive_stop(lane);
	nvmf_lane_shutdown(lane, shutdown_ms);
	nvmf_lane_release(lane, io_wait_ms, lane->aq_disconnect_wait_ms);
	pthread_mutex_destroy(&lane->ana.lock);
	free(lane->scratch);
	nvmf_auth_session_clear(&lane->auth);
	free(lane);
}

/* Connect the admin queue, enable the controller, identify it, connect the I/O queue and
 * start keep-alive: at first connect and again at each reconnect (the protection domain, and
 * so every registration on it, is kept). */
static int nvmf_lane_bring_up(struct nvmf_lane *lane)
{
	const struct nvmf_lane_opts *opts = &lane->opts;
	struct nvmf_lane_info *in = &lane->info;
	struct nvmf_fabric_params fp;
	struct sockaddr_storage local, peer;
	struct nvmf_rdma_queue *rq;
	uint16_t cntlid = 0;
	int rc, fresh_pd;

	memset(&fp, 0, sizeof(fp));
	fp.src = lane->have_src ? (struct sockaddr *)&lane->src : NULL;
	fp.dst = (struct sockaddr *)&lane->dst;
	fp.qid = 0;
	fp.entries = NVMF_ADMIN_QUEUE_DEPTH;
	/* A completion channel the keep-alive thread sleeps on while it waits for an answer
	 * (armed by it only: bring-up and shutdown poll). */
	fp.use_events = 1;
	fp.timeout_ms = opts->connect_timeout_ms ? opts->connect_timeout_ms : 3000;
	fp.ack_timeout = opts->ack_timeout;
	fp.pds = opts->pds;
	fp.nr_pds = opts->nr_pds;
	fp.pd = &lane->pd;
	fp.hdr_digest = opts->hdr_digest;
	fp.data_digest = opts->data_digest;
	/* NVMe/TCP: the admin queue takes 8 KiB in the capsule (the transport binding fixes it). */
	fp.incapsule_max = NVMF_TCP_ADMIN_INCAPSULE;
	fresh_pd = !lane->pd;       /* the first bring-up; a reconnect keeps the lane's */
	rc = lane->fab->create(&lane->aq, &fp, lane->err, sizeof(lane->err));
	if (fresh_pd) {
		lane->pd_owned = lane->pd != NULL;  /* unless the queue took one of opts->pds */
		for (unsigned i = 0; i < opts->nr_pds; i++)
			if (lane->pd == opts->pds[i])
				lane->pd_owned = 0;
	}
	if (rc)
		return rc;
	if (!lane->scratch && posix_memalign((void **)&lane->scratch, 4096, NVMF_SCRATCH_SIZE))
		return nvmf_lane_errf(lane, -ENOMEM, "out of memory");
	/* Only RDMA has memory to register: the target reaches the admin buffer by its key. */
	if (!lane->scratch_mr && lane->pd) {
		memset(lane->scratch, 0, NVMF_SCRATCH_SIZE);
		lane->scratch_mr = ibv_reg_mr(lane->pd, lane->scratch, NVMF_SCRATCH_SIZE,
					      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
					      IBV_ACCESS_REMOTE_WRITE);
		if ((rc = nvmf_rc_ptr(lane->scratch_mr))) {
			lane->scratch_mr = NULL;
			return nvmf_lane_errf(lane, rc, "registering the admin buffer: %s",
					      strerror(-rc));
		}
	}
	if ((rc = nvmf_fabrics_connect(lane, lane->aq, 0xffff, &cntlid)))
		return rc;
	in->cntlid = cntlid;
	if ((rc = nvmf_enable(lane)) || (rc = nvmf_identify_ctrl(lane)))
		return rc;

	snprintf(in->transport, sizeof(in->transport), "%s", lane->fab->name);
	lane->fab->addrs(lane->aq, &local, &peer);
	nvmf_addr_str((struct sockaddr *)&local, in->local_addr, sizeof(in->local_addr));
	nvmf_addr_str((struct sockaddr *)&peer, in->remote_addr, sizeof(in->remote_addr));
	in->fabric.target_local = nvmf_policy_target_local((struct sockaddr *)&local,
							   (struct sockaddr *)&peer,
							   in->fabric.target_why,
							   sizeof(in->fabric.target_why));
	if ((rq = nvmf_rdma_of(lane->aq))) {
		struct nvmf_dev_facts dev;
		char parent[512];

		snprintf(in->rdma_dev, sizeof(in->rdma_dev), "%s",
			 ibv_get_device_name(rq->id->verbs->device));
		in->rdma_port = rq->id->port_num;
		in->ack_timeout = nvmf_rdma_queue_ack_timeout(rq);
		nvmf_rdma_queue_dev_facts(rq, NULL, &dev, parent, sizeof(parent));
		in->fabric.rdma_software = nvmf_policy_classify_device(&dev, in->fabric.device_why,
								       sizeof(in->fabric.device_why));
	}
	in->fabric.tcp = lane->fab->trtype == NVMF_TRTYPE_TCP;
	/* The fabric, once: every default that depends on it comes from nvmf_policy_decide. */
	in->fabric.io_depth = opts->io_depth;
	in->fabric.host_jobs = opts->host_jobs;
	nvmf_policy_decide(&in->fabric, &in->policy);

	if (!opts->no_io_queue) {
		unsigned want = opts->io_queues ? opts->io_queues : 1;

		if (want > NVMF_MAX_IO_QUEUES)
			want = NVMF_MAX_IO_QUEUES;
		in->io_queues_granted = 1;
		/* One queue needs no negotiation: every controller has at least one. */
		if ((want > 1 || opts->io_queues_auto) && (rc = nvmf_set_nr_queues(lane, want)))
			return rc;
		if (in->io_queues_granted < want) {
			if (!opts->io_queues_auto)
				return nvmf_lane_errf(lane, -EINVAL, "io_queues=%u: the controller grants "
						      "%u I/O queue(s) (Set Features Number of "
						      "Queues)", want, in->io_queues_granted);
			want = in->io_queues_granted;
		}
		fp.entries = nvmf_io_entries(lane);
		fp.use_events = opts->use_events;
		/* The Connect data (1 KiB) always goes in the capsule, which IOCCSZ bounds. */
		fp.incapsule_max = in->ioccsz_bytes > sizeof(struct nvme_sqe) ?
				   in->ioccsz_bytes - (uint32_t)sizeof(struct nvme_sqe) : 0;
		/* RDMA: several queues share one CQ: the job's thread reaps all of them with one poll
		 * (and sleeps on one channel) instead of one per queue. */
		if (want > 1 && lane->pd) {
			if ((rc = nvmf_rdma_cq_create(&lane->ioq_cq, lane->pd->context,
						      (int)(want * 2 * fp.entries), opts->use_events,
						      lane->err, sizeof(lane->err))))
				return rc;
			fp.shared_cq = lane->ioq_cq;
		}
		for (unsigned i = 0; i < want; i++) {
			fp.qid = (uint16_t)(i + 1);
			lane->nr_ioqs = i + 1;
			if ((rc = lane->fab->create(&lane->ioqs[i], &fp, lane->err, sizeof(lane->err))))
				return rc;
			if ((rc = nvmf_fabrics_connect(lane, lane->ioqs[i], cntlid, NULL)))
				return rc;
		}
		in->io_queues = lane->nr_ioqs;
		in->io_queue_entries = lane->ioqs[0]->max_inflight + 1;
		/* In-capsule writes need room past the SQE, at offset 0, with offset SGLs. */
		in->inline_offered = in->icdoff == 0 && in->ioccsz_bytes > sizeof(struct nvme_sqe) &&
				     (in->sgls & (1u << 20)) ?
				     in->ioccsz_bytes - (uint32_t)sizeof(struct nvme_sqe) : 0;
		in->inline_max = in->inline_offered;
		if (opts->inline_data == NVMF_INLINE_OFF ||
		    (opts->inline_data == NVMF_INLINE_AUTO && in->policy.inline_keyed.value))
			in->inline_max = 0;
		/* Whatever was asked for, a controller with a keep-alive timer in force gets its
		 * keep-alives (some targets insist on a minimum KATO even when the host sends 0). */
		in->kato_ms = nvmf_get_kato(lane);
		if (!in->kato_ms && opts->kato_ms)
			in->kato_ms = opts->kato_ms;   /* the controller did not say: trust the ask */
		/* ANA: the states now; then the keep-alive thread follows the controller's notices
		 * and polls. */
		if (in->ana_reporting && (rc = nvmf_ana_refresh(lane, 0, 1)))
			return nvmf_lane_errf(lane, rc < 0 ? rc : -EIO, "%s", lane->ana.err);
		/* The thread also watches the queues' RDMA CM channels: it runs for every lane. */
		if ((rc = nvmf_keepalive_start(lane, in->kato_ms)))
			return rc;
	}
	return 0;
}

static int nvmf_lane_open(struct nvmf_lane **out, const struct nvmf_lane_opts *opts,
			  char *err, size_t errlen, int may_stay_down)
{
	struct nvmf_lane *lane;
	int rc;

	*out = NULL;
	if (err && errlen)
		err[0] = 0;
	lane = calloc(1, sizeof(*lane));
	if (!lane)
		return -ENOMEM;
	lane->opts = *opts;
	pthread_mutex_init(&lane->ana.lock, NULL);
	lane->fab = nvmf_fabric_by_trtype(opts->trtype ? opts->trtype : NVMF_TRTYPE_RDMA);
	if (!lane->fab) {
		lane->fab = &nvmf_fabric_rdma;   /* for the teardown below */
		rc = nvmf_lane_errf(lane, -EPROTONOSUPPORT, "transport type %d is not supported "
				    "(rdma or tcp)", opts->trtype);
		goto fail;
	}
	if (!opts->traddr || !*opts->traddr) {
		rc = nvmf_lane_errf(lane, -EINVAL, "traddr is required (the target's address)");
		goto fail;
	}
	if (!opts->subnqn || !*opts->subnqn || strlen(opts->subnqn) > NVMF_NQN_MAX) {
		rc = nvmf_lane_errf(lane, -EINVAL, "subnqn is required: 1..%d characters", NVMF_NQN_MAX);
		goto fail;
	}
	if (!opts->hostnqn || !*opts->hostnqn || strlen(opts->hostnqn) > NVMF_NQN_MAX) {
		rc = nvmf_lane_errf(lane, -EINVAL, "hostnqn must be 1..%d characters", NVMF_NQN_MAX);
		goto fail;
	}
	snprintf(lane->traddr, sizeof(lane->traddr), "%s", opts->traddr);
	snprintf(lane->trsvcid, sizeof(lane->trsvcid), "%s",
		 opts->trsvcid && *opts->trsvcid ? opts->trsvcid : "4420");
	snprintf(lane->host_traddr, sizeof(lane->host_traddr), "%s",
		 opts->host_traddr ? opts->host_traddr : "");
	snprintf(lane->subnqn, sizeof(lane->subnqn), "%s", opts->subnqn);
	lane->discovery = !strcmp(lane->subnqn, NVMF_DISCOVERY_NQN);
	if (lane->discovery && !opts->no_io_queue) {
		rc = nvmf_lane_errf(lane, -EINVAL, "%s is a discovery subsystem: it has no I/O "
				    "queues (no_io_queue)", lane->subnqn);
		goto fail;
	}
	snprintf(lane->hostnqn, sizeof(lane->hostnqn), "%s", opts->hostnqn);
	/* DH-HMAC-CHAP: the secrets decoded once; the texts are not kept. */
	if ((rc = nvmf_auth_session_init(&lane->auth, lane->hostnqn, lane->subnqn))) {
		rc = nvmf_lane_errf(lane, rc, "no random bytes for DH-HMAC-CHAP (OpenSSL)");
		goto fail;
	}
	if ((rc = nvmf_auth_parse_lists(opts->dhchap_digests, opts->dhchap_dhgroups,
					&lane->auth.hashes, &lane->auth.dhgroups, lane->err,
					sizeof(lane->err))))
		goto fail;
	lane->opts.dhchap_digests = lane->opts.dhchap_dhgroups = NULL;
	if (opts->dhchap_secret_file && *opts->dhchap_secret_file) {
		if ((opts->dhchap_secret && *opts->dhchap_secret) ||
		    (opts->dhchap_ctrl_secret && *opts->dhchap_ctrl_secret)) {
			rc = nvmf_lane_errf(lane, -EINVAL, "dhchap_secret_file and dhchap_secret / "
					    "dhchap_ctrl_secret are exclusive: give the secrets one "
					    "way");
			goto fail;
		}
		if ((rc = nvmf_auth_secret_file(opts->dhchap_secret_file, &lane->auth.host,
						&lane->auth.ctrl, lane->err, sizeof(lane->err))))
			goto fail;
	}
	if (opts->dhchap_secret && *opts->dhchap_secret &&
	    (rc = nvmf_auth_secret_parse(opts->dhchap_secret, &lane->auth.host, "dhchap_secret",
					 lane->err, sizeof(lane->err))))
		goto fail;
	if (opts->dhchap_ctrl_secret && *opts->dhchap_ctrl_secret) {
		if (!lane->auth.host.len) {
			rc = nvmf_lane_errf(lane, -EINVAL, "dhchap_ctrl_secret needs dhchap_secret too "
					    "(bidirectional authentication authenticates the host "
					    "first)");
			goto fail;
		}
		if ((rc = nvmf_auth_secret_parse(opts->dhchap_ctrl_secret, &lane->auth.ctrl,
						 "dhchap_ctrl_secret", lane->err, sizeof(lane->err))))
			goto fail;
	}
	lane->opts.dhchap_secret = lane->opts.dhchap_ctrl_secret = NULL;
	lane->opts.dhchap_secret_file = NULL;
	lane->opts.traddr = lane->traddr;
	lane->opts.trsvcid = lane->trsvcid;
	lane->opts.host_traddr = lane->host_traddr[0] ? lane->host_traddr : NULL;
	lane->opts.subnqn = lane->subnqn;
	lane->opts.hostnqn = lane->hostnqn;
	lane->admin_timeout_ms = opts->connect_timeout_ms ? opts->connect_timeout_ms : 3000;
	if (lane->admin_timeout_ms < 1000)
		lane->admin_timeout_ms = 1000;

	if ((rc = nvmf_resolve(lane, "traddr", lane->traddr, lane->trsvcid, opts->adrfam, &lane->dst)))
		goto fail;
	if (lane->opts.host_traddr) {
		if ((rc = nvmf_resolve(lane, "host_traddr", lane->host_traddr, NULL,
				       lane->dst.ss_family, &lane->src)))
			goto fail;
		lane->have_src = 1;
	}

	if ((rc = nvmf_lane_bring_up(lane))) {
		if (!may_stay_down)
			goto fail;
		if (err && errlen)
			snprintf(err, errlen, "%s", lane->err[0] ? lane->err : strerror(-rc));
		nvmf_lane_kill(lane);     /* half up: nothing may reach the target until next time */
		/* Nothing of a lane never up is kept, its protection domain included: the next
		 * bring-up takes its device's afresh from opts->pds (a path up on that device by
		 * then has one there, which fio's buffers are registered on). */
		nvmf_lane_release(lane, 0, 0);
		*out = lane;
		return 1;
	}
	*out = lane;
	return 0;

fail:
	if (err && errlen)
		snprintf(err, errlen, "%s", lane->err[0] ? lane->err : strerror(-rc));
	nvmf_lane_destroy(lane);
	return rc;
}

int nvmf_lane_connect(struct nvmf_lane **out, const struct nvmf_lane_opts *opts,
		      char *err, size_t errlen)
{
	return nvmf_lane_open(out, opts, err, errlen, 0);
}

int nvmf_lane_connect_or_down(struct nvmf_lane **out, const struct nvmf_lane_opts *opts,
			      char *err, size_t errlen)
{
	return nvmf_lane_open(out, opts, err, errlen, 1);
}

int nvmf_lane_reconnect(struct nvmf_lane *lane, char *err, size_t errlen)
{
	int rc;

	nvmf_keepalive_stop(lane);
	/* What is left of the old connection goes without waiting for the target. */
	nvmf_lane_ioqs_destroy(lane, 1);
	if (lane->aq)
		lane->fab->destroy(lane->aq, 1);
	lane->aq = NULL;
	lane->aq_disconnect_wait_ms = 0;
	lane->enabled = 0;
	lane->dead = 0;
	lane->err[0] = 0;
	rc = nvmf_lane_bring_up(lane);
	if (rc) {
		snprintf(err, errlen, "%s", lane->err[0] ? lane->err : strerror(-rc));
		nvmf_lane_kill(lane);     /* half up: nothing may reach the target until next time */
	}
	return rc;
}

struct ibv_pd *nvmf_lane_pd(struct nvmf_lane *lane)
{
	return lane ? lane->pd : NULL;
}
