/* nvmeof_lane.h - the engine's per-job state (a fio job's lane: its paths, their queues, the
 * backlog, the stop and loss bookkeeping), shared by the fio callbacks (fio_nvmeof.c) and the
 * multipath handling (nvmeof_mpath.c).  Private to engine/. */
#ifndef FIO_NVMEOF_ENGINE_LANE_H
#define FIO_NVMEOF_ENGINE_LANE_H

#include <pthread.h>

#include "nvmeof_engine.h"
#include "nvmf_cpuq.h"
#include "nvmf_io.h"
#include "nvmf_lane.h"
#include "nvmf_mpath.h"

/* One path of a multipath lane: its own controller (traddr's list). */
struct nvmeof_path {
	struct nvmf_lane   *lane;
	unsigned            first_q;     /* its I/O queues: ld->qs[first_q .. first_q + nr_q) */
	unsigned            nr_q;
	int                 reconnecting;/* lost; reconnecting until ctrl_loss_tmo */
	int                 gone;        /* lost for good (ctrl_loss_tmo passed, or 0) */
	int                 down_at_start; /* never up yet: its controller did not answer at init */
	uint64_t            loss_ms;
	uint64_t            next_attempt_ms;
	unsigned            attempts;
	unsigned            ana_gen;     /* nvmf_lane_ana_gen when its state was last taken */
	pthread_t           rc_thread;   /* a reconnect attempt in the background */
	int                 rc_running;  /* rc_thread started, not joined */
	int                 rc_done;     /* __atomic: the attempt finished (rc_rc, rc_err) */
	int                 rc_rc;
	char                rc_err[NVMF_ERR_LEN];
};

/* A path's I/O moves to another this many times at most (a path status or a lost path); the
 * bound stops an I/O that every path refuses from circling for ever. */
#define NVMEOF_MP_MAX_MOVES 8

struct nvmeof_data {
	struct nvmf_lane   *lane;        /* paths[0].lane: the one path, or the first */
	struct nvmeof_path  paths[NVMF_MAX_PATHS];
	unsigned            nr_paths;    /* > 1: multipath */
	struct ibv_pd      *pds[NVMF_MAX_PATHS]; /* the paths' protection domains, one per RDMA
					   * device (a lane on a device here shares its one) */
	unsigned            nr_pds;
	struct nvmf_mp      mp;          /* the paths' states, policy and failover record */
	struct nvmf_mp_event *mp_last_ev[NVMF_MAX_PATHS]; /* each path's latest failover */
	uint64_t            cqt_until_ms; /* nothing is posted before (a lost path's Command
					   * Quiesce Time, its writes moved); 0: no hold */
	const char         *name;        /* the job's */
	unsigned            pump_path;   /* the path nvmeof_post is staging on */
	struct nvmf_queue  *qs[NVMF_MAX_IO_QUEUES * NVMF_MAX_PATHS]; /* the I/O queues of every
					   * connected path (io_queues each) */
	unsigned            nr_q;
	uint64_t            nr_posted[NVMF_MAX_IO_QUEUES * NVMF_MAX_PATHS]; /* commands posted
					   * per queue (reported for one path) */
	int                 pick_cpu;    /* io_queue_pick: the queues of the CPU the job runs on */
	int                 test_cpu;    /* >= 0: the CPU pick_cpu takes (FIO_NVMEOF_TEST_CPU) */
	char                queues_why[NVMF_POLICY_WHY_LEN]; /* io_queues=auto: what bounded it */
	struct nvmf_cpu_queues cpuq;
	struct nvmeof_buffers bufs;
	unsigned            nr_finished; /* events[0..nr_finished) passed the buffers' reaping */
	struct io_u       **events;      /* completed, not yet handed to fio */
	unsigned            nr_events;
	unsigned            ev_handed;   /* events[0..ev_handed) given out by the last getevents */
	struct nvmf_io    **unstamped;   /* staged, not yet posted and stamped */
	unsigned            nr_unstamped;
	struct nvmf_io_backlog backlog;  /* queued I/Os waiting for free slots */
	uint64_t            stop_seen_ms; /* when getevents first saw fio stopping the job */
	uint64_t            nr_done;     /* I/Os completed (or failed) so far */
	uint64_t            done_seen;   /* nr_done at the last stop check that saw it move */
	uint64_t            progress_ms; /* when a stop check last saw completions */
	uint64_t            max_gap_ms;  /* longest time without completions while I/O waited */
	uint64_t            max_age_ms;  /* oldest command's age seen while others completed */
	uint64_t            next_stop_check_ms;
	int                 alive_slot;  /* the subsystem's slot on nvmeof_alive (< 0: none) */
	pid_t               parent;      /* process mode: fio's pid (0 in thread mode) */
	unsigned            uncommitted; /* queued since fio's last commit */
	int                 delay_submit;/* delay_submit=1: see fio_nvmeof_commit */
	int                 post_due;    /* committed, staged, not posted yet: getevents posts */
	unsigned            submit_batch;/* delay_submit: held I/Os go out once this many wait */
	uint64_t            nr_queued;   /* I/Os taken from fio */
	uint64_t            nr_waited;   /* of those, how many waited in the backlog */
	unsigned            max_backlog;
	unsigned            depth;
	struct nvmf_io_completer cpl;
	int                 use_events;
	unsigned            hybrid_us;   /* completion=hybrid: spin window (0: not hybrid) */
	uint64_t            active_us;   /* last completion or submission (hybrid) */
	uint64_t            reaped_us;   /* hybrid: when completions were last reaped */
	unsigned            gap_us;      /* hybrid: moving average of the time between reaps */
	int                 failed_logged;
	int                 lost;        /* negative errno: the lane is gone, I/O fails at once */
	int                 reconnecting;/* lost, and reconnecting (ctrl_loss_tmo) */
	uint64_t            loss_ms;     /* when the connection went */
	uint64_t            next_attempt_ms;
	unsigned            attempts;
	unsigned            nr_resubmit; /* I/Os put back for resubmission at this loss */
	uint64_t            nr_lost_ios; /* I/Os failed when it went */
	unsigned            io_timeout_ms;
	unsigned            stop_grace_ms; /* stop_grace; 0: auto */
};

/* fio_nvmeof.c */
unsigned long long nvmeof_max_bs(struct thread_data *td);   /* the job's largest bs */
void nvmeof_queues_attach(struct nvmeof_data *ld);
int  nvmeof_abandon_all(struct nvmeof_data *ld, int err, const char *msg);
int  nvmeof_stop_requested(struct thread_data *td, struct nvmeof_data *ld);

/* nvmeof_mpath.c: several paths (traddr's list, or discovery=) */
/* Wait for reconnect attempts still running (before the lanes go). */
void nvmeof_paths_quiesce(struct nvmeof_data *ld);
int nvmeof_pick_path(struct nvmeof_data *ld, unsigned g);
int nvmeof_mp_status_move(struct nvmeof_data *ld, struct nvmf_io *io);
int nvmeof_paths_connect(struct thread_data *td, struct nvmeof_data *ld,
				const struct nvmeof_file *nf0, struct nvmf_lane_opts *lo);
void nvmeof_paths_limits(struct nvmeof_data *ld, struct nvmeof_file *nf);
void nvmeof_paths_line(struct thread_data *td, struct nvmeof_data *ld);
void nvmeof_mp_all_lost(struct thread_data *td, struct nvmeof_data *ld);
void nvmeof_mp_fault(struct thread_data *td, struct nvmeof_data *ld, int rc,
			    const char *why);
int nvmeof_mp_reconnect(struct thread_data *td, struct nvmeof_data *ld);
int nvmeof_mp_ana(struct thread_data *td, struct nvmeof_data *ld);
int nvmeof_reap_paths(struct nvmeof_data *ld, int wait_ms);
int nvmeof_check_paths(struct nvmeof_data *ld, uint64_t now, uint64_t *age, char *why,
			      size_t whylen);
int nvmeof_mp_usable_any(const struct nvmeof_data *ld);

#endif
