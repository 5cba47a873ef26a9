/* nvmf_lane.h - one controller connection (an admin queue and up to NVMF_MAX_IO_QUEUES I/O
 * queues) to an NVMe/RDMA subsystem: the library's API for the fio engine.  Every call returns
 * 0 or a negative errno; on failure a one-line reason is in lane->err (or the err buffer given
 * to the connect). */
#ifndef FIO_NVMEOF_LANE_H
#define FIO_NVMEOF_LANE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "nvmf_fabric.h"
#include "nvmf_io.h"
#include "nvmf_policy.h"
#include "nvmf_queue.h"
#include "nvmf_spec.h"

#define NVMF_ADMIN_QUEUE_DEPTH 32  /* nvmet refuses an admin hsqsize above 31 */
#define NVMF_ERR_LEN 256
#define NVMF_MAX_IO_QUEUES 64      /* I/O queue pairs one lane may hold */

/* In-capsule writes.  AUTO: when the controller offers them, except where the fabric policy
 * says keyed (nvmf_policy.h); ON: whenever the controller offers them. */
enum nvmf_inline { NVMF_INLINE_OFF = 0, NVMF_INLINE_AUTO, NVMF_INLINE_ON };

struct ibv_pd;

struct nvmf_lane_opts {
	int         trtype;           /* NVMF_TRTYPE_RDMA or _TCP; 0: RDMA */
	int         hdr_digest;       /* NVMe/TCP: header digests (CRC32C) */
	int         data_digest;      /* NVMe/TCP: data digests (CRC32C) */
	const char *traddr;
	const char *trsvcid;          /* default "4420" */
	int         adrfam;           /* AF_UNSPEC (infer), AF_INET, AF_INET6 */
	const char *host_traddr;      /* bind the local side to this address; NULL: any */
	const char *subnqn;
	const char *hostnqn;
	uint8_t     hostid[16];
	unsigned    connect_timeout_ms;
	uint8_t     ack_timeout;      /* QP ACK timeout exponent (4.096 us x 2^N); 0: RDMA CM's */
	unsigned    io_queue_entries; /* wanted I/O queue size (entries), clamped to the target's */
	uint64_t    io_max_bytes;     /* largest I/O: the queue gets room for all its commands */
	int         inline_data;      /* enum nvmf_inline: in-capsule writes when the controller
				       * offers them (OFF: never) */
	unsigned    io_depth;         /* I/Os the caller keeps in flight at most (AUTO's choice;
				       * 0: not known) */
	unsigned    host_jobs;        /* the caller's jobs running lanes on this host (fio's jobs
				       * in the run; AUTO's choice; 0: not known, taken as 1) */
	int         use_events;       /* I/O completions by completion channel instead of polling */
	int         no_io_queue;      /* admin queue only (probing) */
	unsigned    io_queues;        /* I/O queue pairs wanted (0: 1), at most NVMF_MAX_IO_QUEUES */
	int         io_queues_auto;   /* take what the controller grants, up to io_queues; else
				       * fewer granted than io_queues fails the connect */
	unsigned    kato_ms;          /* Keep Alive Timeout asked for in the admin Connect; 0: none */
	int         keepalive_off;    /* tests only: never send Keep Alive (to see it lost) */
	int         port_down_lost;   /* the port's link going down (the device's asynchronous
				       * event, then its port state) loses the lane at once;
				       * 0: the queue pairs' own timers decide (nvmf_policy) */
	/* Protection domains of other lanes (a job's earlier paths; they must outlive this lane):
	 * the lane takes the one on the RDMA device its address resolves to, so memory
	 * registered on it serves this lane too, and allocates its own on another device. */
	struct ibv_pd *const *pds;
	unsigned      nr_pds;
	/* In-band authentication (DH-HMAC-CHAP), as nvme-cli's options: the host's secret and,
	 * for bidirectional authentication, the controller's, each "DHHC-1:XX:<base64>:".  Decoded
	 * at connect (the texts are not kept); used on each queue whose Connect asks for it
	 * (AUTHREQ), at every reconnect too.  NULL: none (a controller that asks fails the
	 * connect). */
	const char   *dhchap_secret;
	const char   *dhchap_ctrl_secret;
	const char   *dhchap_secret_file;  /* both from a file instead (nvmf_auth_secret_file) */
	const char   *dhchap_digests;      /* the hashes offered, a comma list (NULL: all) */
	const char   *dhchap_dhgroups;     /* the DH groups offered, a comma list (NULL: all) */
};

struct nvmf_lane_info {
	uint16_t cntlid;
	char     mn[41], sn[21], fr[9];
	char     subnqn[257];
	uint64_t cap;
	uint32_t vs;
	uint32_t mdts_bytes;          /* 0: no limit */
	uint16_t maxcmd;
	uint32_t nn;
	uint16_t oncs;
	uint8_t  vwc;
	uint32_t ioccsz_bytes;        /* capsule size the controller takes on I/O queues */
	uint16_t icdoff;
	uint32_t sgls;
	unsigned io_queue_entries;    /* negotiated, per I/O queue */
	unsigned io_queues;           /* I/O queue pairs connected */
	unsigned io_queues_granted;   /* Set Features Number of Queues' answer (1 when not asked) */
	uint32_t inline_max;          /* in-capsule write bytes used (0: off) */
	uint32_t inline_offered;      /* in-capsule write bytes the controller takes (IOCCSZ) */
	struct nvmf_policy_facts fabric; /* the RDMA device and the target, as the policy saw them */
	struct nvmf_policy policy;    /* the fabric-dependent defaults, each with its reason */
	uint32_t kato_ms;             /* the KATO in force (Get Features), 0: no keep-alive timer */
	unsigned keepalive_ms;        /* Keep Alive sent this often (0: not sent) */
	char     keepalive_why[NVMF_POLICY_WHY_LEN]; /* set when the interval is not KATO/2 */
	char     transport[8];        /* "rdma", "tcp" */
	char     rdma_dev[64];        /* RDMA only: "" on TCP */
	uint8_t  rdma_port;
	uint8_t  ack_timeout;          /* the admin QP's local ACK timeout exponent (ibv_query_qp) */
	char     local_addr[64];
	char     remote_addr[64];
	int      ana_reporting;       /* CMIC bit 3: the ANA log is read, then polled */
	uint16_t cqt_ms;              /* Command Quiesce Time: how long a command it was given
				       * may still run after the host lost it (0: not reported) */
	char     auth[48];            /* "DH-HMAC-CHAP sha256 ffdhe2048[ bidirectional]"; "": none */
	unsigned auth_exchanges;      /* queues authenticated over the lane's life (reconnects too) */
};

struct nvmf_ns_info {
	uint32_t nsid;
	uint64_t nsze;                /* blocks */
	uint32_t lba_size;
	uint16_t ms;                  /* metadata bytes per block */
	uint8_t  flbas;
	uint8_t  dps;
	uint8_t  nsfeat;
	uint32_t anagrpid;            /* ANA group (0: none) */
};

struct nvmf_lane;

struct nvmf_mr {
	void    *addr;
	size_t   len;
	uint32_t lkey;
	uint32_t rkey;
	void    *ibv_mr;
};

int  nvmf_lane_connect(struct nvmf_lane **out, const struct nvmf_lane_opts *opts,
		       char *err, size_t errlen);
/* nvmf_lane_connect for a path of several: the options are checked and the addresses
 * resolved (an error there: negative errno, *out NULL), then the controller is brought up.  A
 * controller that does not come up leaves *out a lane that is down, as after a loss:
 * nvmf_lane_reconnect brings it up later.  1 then, with err saying why; 0 when up. */
int  nvmf_lane_connect_or_down(struct nvmf_lane **out, const struct nvmf_lane_opts *opts,
			       char *err, size_t errlen);
/* Orderly shutdown (CC.SHN, CSTS.SHST) and disconnect; tolerates NULL. */
void nvmf_lane_destroy(struct nvmf_lane *lane);
const struct nvmf_lane_info *nvmf_lane_info(const struct nvmf_lane *lane);
const char *nvmf_lane_err(const struct nvmf_lane *lane);

int  nvmf_lane_identify_ns(struct nvmf_lane *lane, uint32_t nsid, struct nvmf_ns_info *ns);

/* Get Log Page: len bytes (a multiple of 4, under 4 GiB) of log lid with log specific field lsp
 * (4 bits) for nsid from byte offset (a multiple of 4) into buf, in as many commands as the
 * lane's admin buffer and MDTS need.  For a lane without a keep-alive thread (no_io_queue, or
 * no KATO in force): that thread owns the admin queue otherwise, and the call fails -EBUSY.
 * 0; -EIO when the controller answered with an error status (named in lane->err, as every
 * other failure is). */
int  nvmf_lane_get_log(struct nvmf_lane *lane, uint8_t lid, uint8_t lsp, uint32_t nsid,
		       uint64_t offset, void *buf, size_t len);

/* Deregister what a memory backend registered on the lane (lib/nvmf_mem_lane.c registers:
 * memory for remote access by the target and local access by the capsule SGE). */
void nvmf_lane_dereg_mem(struct nvmf_mr *mr);

/* The transport's counters (nvmf_fabric.h) summed over the lane's I/O queues, those a
 * reconnect replaced included (the admin queue's keep-alive is not the data path): 0 with *st
 * filled; -EOPNOTSUPP, *st zeroed, where the transport keeps none (RDMA). */
int  nvmf_lane_xport_stats(const struct nvmf_lane *lane, struct nvmf_xport_stats *st);

/* The I/O queues (idx from 0; NULL past the last), and the limits for a namespace of the given
 * LBA size (the same on every I/O queue). */
struct nvmf_queue *nvmf_lane_ioq(struct nvmf_lane *lane, unsigned idx);
void nvmf_lane_io_limits(const struct nvmf_lane *lane, uint32_t lba_size,
			 struct nvmf_io_limits *lim);
/* Wait up to timeout_ms for completions on any I/O queue (event mode sleeps; poll mode
 * reaps once); returns the commands completed on all of them. */
int  nvmf_lane_wait(struct nvmf_lane *lane, int timeout_ms);
/* Reap every I/O queue once, never sleeping (busy-poll): as nvmf_lane_wait returns. */
int  nvmf_lane_reap(struct nvmf_lane *lane);

/* Is the connection still there?  Checks, without blocking, the queues' RDMA CM events
 * (the target disconnected, the device went away), the keep-alive thread, and the oldest
 * posted command of the I/O queues against io_timeout_ms (-ETIMEDOUT naming it; 0: no
 * bound): 0, or a negative errno with one line in why.  *oldest_age gets that command's age
 * in ms (0: none posted).  NOW_MS is nvmf_now_ms().  Cheap enough for every few
 * milliseconds: while the queues complete their commands it makes no system call (an I/O
 * queue's CM events are read once its oldest command has waited NVMF_LANE_CM_QUIET_MS, the
 * admin queue's every NVMF_LANE_ADMIN_CM_CHECK_MS). */
#define NVMF_LANE_CM_QUIET_MS       50
#define NVMF_LANE_ADMIN_CM_CHECK_MS 1000
int  nvmf_lane_check(struct nvmf_lane *lane, uint64_t now_ms, unsigned io_timeout_ms,
		     uint64_t *oldest_age, char *why, size_t whylen);
/* Why the lane's keep-alive thread found it lost (a target that disconnected, a device that
 * went away, keep-alive unanswered), NULL while it has not: a queue the thread shut off fails
 * with a transport status, and this is the reason to report instead. */
const char *nvmf_lane_lost_why(const struct nvmf_lane *lane);

/* The lane is lost: stop keep-alive, shut every queue pair off (the target can no longer
 * reach the lane's memory), and make nvmf_lane_destroy skip the shutdown handshake. */
void nvmf_lane_kill(struct nvmf_lane *lane);
/* Connect again after the lane was lost (nvmf_lane_kill): new admin and I/O queues on the
 * same protection domain (memory registered on it stays valid), the controller enabled and
 * identified again, keep-alive restarted.  The I/O queues are new ones (nvmf_lane_ioq), and
 * nvmf_lane_io_limits must be asked again.  0, or a negative errno with why in err. */
int  nvmf_lane_reconnect(struct nvmf_lane *lane, char *err, size_t errlen);

/* Wait for (CSTS & mask) == want, reading CSTS with read_csts(ctx, &csts) about every
 * millisecond: 0; -EIO as soon as CSTS.CFS is set, whatever else CSTS shows; -ETIMEDOUT once
 * timeout_ms passed; or read_csts's error.  *last (if not NULL): the last CSTS read. */
typedef int (*nvmf_csts_read_fn)(void *ctx, uint32_t *csts);
int  nvmf_csts_wait(nvmf_csts_read_fn read_csts, void *ctx, uint32_t mask, uint32_t want,
		    unsigned timeout_ms, uint32_t *last);

/* ANA (a controller with ana_reporting): the keep-alive thread reads the ANA log at bring-up,
 * every second, and at once after an ANA change notice (an Asynchronous Event Request is
 * kept outstanding) or nvmf_lane_ana_poke (a path status seen).  ana_gen moves
 * after each read (cheap: no lock); ana_state is grpid's state then (enum nvme_ana_state; 0:
 * not reported), with the last read's failure in err ("" when it succeeded). */
unsigned nvmf_lane_ana_gen(const struct nvmf_lane *lane);
int  nvmf_lane_ana_state(struct nvmf_lane *lane, uint32_t grpid, char *err, size_t errlen);
void nvmf_lane_ana_poke(struct nvmf_lane *lane);
/* ANA change notices the controller sent (an Asynchronous Event Request is kept outstanding
 * on a lane with ANA; each notice makes the keep-alive thread read the log at once). */
unsigned nvmf_lane_aens(const struct nvmf_lane *lane);

/* Wait up to timeout_ms for completions on the I/O queues of n lanes (the paths of one job):
 * as nvmf_lane_wait, sleeping on all of them at once. */
int  nvmf_lanes_wait(struct nvmf_lane *const *lanes, unsigned n, int timeout_ms);

/* The lane's protection domain (struct ibv_pd *): memory backends register on it
 * (lib/nvmf_mem_lane.c).  Valid until nvmf_lane_destroy: deregister first. */
struct ibv_pd *nvmf_lane_pd(struct nvmf_lane *lane);

#endif
