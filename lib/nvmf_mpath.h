/* nvmf_mpath.h - the decisions of a lane with several paths to one subsystem (one controller
 * per path): which path takes the next I/O (mp_policy and each path's ANA state), which NVMe
 * statuses mean "this path, not this I/O" (the I/O moves to another path), and the record of
 * every failover: when a path was declared lost and why, how many I/Os moved, and how long it
 * took until another path completed one.  Plain data: no I/O, no clock of its own (callers
 * pass NOW in ms), so the unit tests drive every case. */
#ifndef FIO_NVMEOF_MPATH_H
#define FIO_NVMEOF_MPATH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define NVMF_MAX_PATHS     8
#define NVMF_MP_MAX_EVENTS 64      /* failovers recorded per lane (counted past it) */
#define NVMF_MP_WHY_LEN    192
#define NVMF_MP_MAX_GROUPS 8       /* ANA groups a lane's namespaces may be in */

/* The kernel's iopolicy names and meanings. */
enum nvmf_mp_policy {
	NVMF_MP_NUMA = 0,          /* the first usable path takes everything; others stand by */
	NVMF_MP_ROUND_ROBIN,       /* usable paths of the best ANA state in turn */
	NVMF_MP_QUEUE_DEPTH,       /* the usable path of the best ANA state with least in flight */
};
const char *nvmf_mp_policy_name(int policy);

/* ANA state of a path as the policy ranks it: 0 = unknown (a controller without ANA
 * reporting) counts as optimized.  enum nvme_ana_state values otherwise. */
#define NVMF_ANA_UNKNOWN 0

struct nvmf_mp_path {
	char     name[300];        /* "traddr:trsvcid" */
	int      connected;        /* the controller is up (not lost, not reconnecting) */
	uint8_t  ana[NVMF_MP_MAX_GROUPS]; /* each ANA group's state on this path (mp.grpid's) */
	unsigned inflight;         /* I/Os staged or posted on it (the caller keeps it) */
	uint64_t ios;              /* I/Os completed on it */
	uint64_t last_done_ms;     /* its last completion */
	unsigned losses;           /* times declared lost */
	unsigned ana_moves;        /* times I/O left it for an ANA or path status */
	unsigned aens;             /* ANA change notices its controller sent (the caller's) */
	char     why[NVMF_MP_WHY_LEN]; /* the last reason it was not usable */
};

struct nvmf_mp_event {
	unsigned path;             /* the path I/O left */
	uint64_t lost_ms;          /* when it was declared lost (or its ANA state said go) */
	uint64_t quiet_ms;         /* from its last completion to then (0: it had none) */
	unsigned moved;            /* I/Os re-issued elsewhere because of it */
	int      recovered;        /* another path completed an I/O since */
	unsigned to_path;          /* that path */
	uint64_t recovery_ms;      /* lost_ms to that completion */
	unsigned cqt_wait_ms;      /* I/O held back for the lost controller's Command Quiesce
				    * Time before any moved write went elsewhere (0: none) */
	char     why[NVMF_MP_WHY_LEN];
};

struct nvmf_mp {
	unsigned             nr;
	int                  policy;
	unsigned             nr_groups;      /* the ANA groups of the job's namespaces (>= 1) */
	uint32_t             grpid[NVMF_MP_MAX_GROUPS]; /* their ANAGRPIDs: ana[g] is grpid[g]'s */
	unsigned             rr_next;
	struct nvmf_mp_path  p[NVMF_MAX_PATHS];
	struct nvmf_mp_event ev[NVMF_MP_MAX_EVENTS];
	unsigned             nr_ev;          /* recorded */
	uint64_t             nr_failovers;   /* all, recorded or not */
	uint64_t             moved;          /* I/Os moved, all failovers */
};

/* Usable for I/O of ANA group g (mp.grpid's index): connected and that group optimized,
 * non-optimized or unknown on it. */
int  nvmf_mp_usable(const struct nvmf_mp_path *p, unsigned g);
/* Usable for some group's I/O. */
int  nvmf_mp_usable_any(const struct nvmf_mp *mp, const struct nvmf_mp_path *p);

/* The path for the next I/O of ANA group g under the policy: of the paths usable for it, only
 * those of the best ANA rank (optimized and unknown before non-optimized) are candidates.
 * -1: none is usable. */
int  nvmf_mp_pick(struct nvmf_mp *mp, unsigned g);

/* A completion on path (the caller counts inflight itself): counts it, and closes each open
 * failover of another path (its recovery time: now - lost_ms). */
void nvmf_mp_completed(struct nvmf_mp *mp, unsigned path, uint64_t now_ms);

/* Path stops taking I/O (lost, or its ANA state or a path status says so): a failover is
 * recorded with why.  Returns the event to count moved I/Os on (NULL past
 * NVMF_MP_MAX_EVENTS: still counted in nr_failovers and moved). */
struct nvmf_mp_event *nvmf_mp_failover(struct nvmf_mp *mp, unsigned path, uint64_t now_ms,
				       const char *why);
void nvmf_mp_moved(struct nvmf_mp *mp, struct nvmf_mp_event *ev, unsigned n);

/* A completion status that says the path, not the I/O, failed (Status Code Type 3h: ANA
 * inaccessible, persistent loss or transition, internal path error, controller or host
 * pathing error, aborted by host): retry it on another path.  status = (SCT << 8) | SC. */
int  nvmf_mp_status_is_path(uint16_t status);
/* The ANA state a path status implies for the path (NVMF_ANA_UNKNOWN: none implied, the path
 * stays as it is and only the I/O moves). */
uint8_t nvmf_mp_status_ana(uint16_t status);

/* One closing line per lane (no newline): "paths: A 1234 I/Os, B 567 I/Os (lost 1x);
 * failovers: N, I/Os moved M, recovery max X ms, ..." */
void nvmf_mp_summary(const struct nvmf_mp *mp, char *buf, size_t len);
/* The same as JSON, one object (for mp_stats=FILE); job names the fio job. */
int  nvmf_mp_write_json(const struct nvmf_mp *mp, const char *job, FILE *f);

#endif
