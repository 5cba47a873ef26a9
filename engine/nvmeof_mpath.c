/* nvmeof_mpath.c - a lane with several paths (traddr's list, or discovery=): connecting them,
 * the path each I/O takes, a path lost (its I/O moved to another, the path reconnecting in the
 * background), ANA changes and path statuses, and the end when no path is left.  The decisions
 * themselves (policy, statuses, the failover record) are lib/nvmf_mpath.c's. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fio.h"

#include "nvmeof_lane.h"
#include "nvmeof_log.h"

/* Multipath: the path for the next I/O (mp_policy over the usable paths; queue-depth counts
 * each path's commands outstanding now), -1 when none is usable. */
int nvmeof_pick_path(struct nvmeof_data *ld, unsigned g)
{
	if (ld->mp.policy == NVMF_MP_QUEUE_DEPTH)
		for (unsigned p = 0; p < ld->nr_paths; p++) {
			const struct nvmeof_path *pa = &ld->paths[p];

			ld->mp.p[p].inflight = 0;
			for (unsigned i = pa->first_q; i < pa->first_q + pa->nr_q; i++)
				ld->mp.p[p].inflight += ld->qs[i]->nr_inflight;
		}
	return nvmf_mp_pick(&ld->mp, g);
}

/* Multipath: a completion whose status blames the path (ANA inaccessible, transition,
 * persistent loss, a pathing error), without Do Not Retry, takes the I/O to another path
 * instead of to fio: back to the head of the backlog, posted after this reap; its path takes
 * the state the status says until the ANA log (re-read at once) says otherwise.  1: moved. */
int nvmeof_mp_status_move(struct nvmeof_data *ld, struct nvmf_io *io)
{
	struct nvmf_mp_path *mpp = &ld->mp.p[io->path];
	uint8_t ana = nvmf_mp_status_ana(io->status);
	struct nvmf_mp_event *ev = NULL;
	char why[NVMF_MP_WHY_LEN], st[128];

	if (!nvmf_io_may_fail_over(io) || io->resubmits >= NVMEOF_MP_MAX_MOVES)
		return 0;
	/* The status speaks for its namespace's ANA group on this path, not for the others. */
	if (ana != NVMF_ANA_UNKNOWN && nvmf_mp_usable(mpp, io->group)) {
		nvme_status_format(st, sizeof(st), io->status, 0);
		snprintf(why, sizeof(why), "%s: ANA group %u %s", st, ld->mp.grpid[io->group],
			 nvme_ana_state_name(ana));
		mpp->ana[io->group] = ana;
		mpp->ana_moves++;
		ev = nvmf_mp_failover(&ld->mp, io->path, nvmf_now_ms(), why);
		ld->mp_last_ev[io->path] = ev;
		nvmeof_info("nvmeof: %s: path %s leaves the I/O: %s\n", ld->name, mpp->name, why);
	}
	nvmf_lane_ana_poke(ld->paths[io->path].lane);
	nvmf_mp_moved(&ld->mp, ev ? ev : ld->mp_last_ev[io->path], 1);
	io->resubmits++;
	io->status = 0;
	io->err = 0;
	nvmf_io_backlog_add(&ld->backlog, io->lim, io, 1);
	return 1;
}

static void nvmeof_path_name_line(struct nvmeof_data *ld, char *buf, size_t len);

/* The ANA groups of the job's namespaces (one each, or shared): each file's index among them.
 * Every path's state is kept per group, and each I/O follows its namespace's group. */
static int nvmeof_ana_groups(struct thread_data *td, struct nvmeof_data *ld)
{
	struct fio_file *f;
	unsigned int i;

	ld->mp.nr_groups = 0;
	for_each_file(td, f, i) {
		struct nvmeof_file *nf = FILE_ENG_DATA(f);
		unsigned g = 0;

		/* one path: nothing to choose, every file in the one table entry */
		if (ld->nr_paths == 1) {
			nf->ana_g = 0;
			continue;
		}

		while (g < ld->mp.nr_groups && ld->mp.grpid[g] != nf->ns.anagrpid)
			g++;
		if (g == ld->mp.nr_groups) {
			if (g == NVMF_MP_MAX_GROUPS) {
				nvmeof_job_err(td, "the job's namespaces are in more than %u ANA "
					       "groups: give this job fewer of them\n",
					       NVMF_MP_MAX_GROUPS);
				return -EINVAL;
			}
			ld->mp.grpid[ld->mp.nr_groups++] = nf->ns.anagrpid;
		}
		nf->ana_g = g;
	}
	if (!ld->mp.nr_groups)
		ld->mp.nr_groups = 1;
	return 0;
}

/* Path p's state of every group, as its lane last read the ANA log. */
static void nvmeof_path_ana_read(struct nvmeof_data *ld, unsigned p)
{
	/* the generation first: a log read meanwhile shows as a newer one at the next look */
	ld->paths[p].ana_gen = nvmf_lane_ana_gen(ld->paths[p].lane);
	for (unsigned g = 0; g < ld->mp.nr_groups; g++)
		ld->mp.p[p].ana[g] = (uint8_t)nvmf_lane_ana_state(ld->paths[p].lane,
								 ld->mp.grpid[g], NULL, 0);
}

/* "optimized", or per group "1 optimized, 2 inaccessible" when the namespaces are in several */
static void nvmeof_path_ana_text(const struct nvmeof_data *ld, unsigned p, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = 0;
	for (unsigned g = 0; g < ld->mp.nr_groups && o < len; g++) {
		uint8_t a = ld->mp.p[p].ana[g];
		const char *name = a ? nvme_ana_state_name(a) : "not reported";

		if (ld->mp.nr_groups == 1)
			o += (size_t)snprintf(buf + o, len - o, "%s", name);
		else
			o += (size_t)snprintf(buf + o, len - o, "%sgroup %u %s", g ? ", " : "",
					      ld->mp.grpid[g], name);
	}
}

/* The first path whose controller came up at the start: ld->lane. */
static unsigned nvmeof_first_up(const struct nvmeof_data *ld)
{
	unsigned p = 0;

	while (p + 1 < ld->nr_paths && ld->paths[p].lane != ld->lane)
		p++;
	return p;
}

/* Path p did not come up at the start (err says why): it is tried again as a lost path is,
 * every reconnect_delay until ctrl_loss_tmo from now, or (ctrl_loss_tmo 0) not at all. */
static void nvmeof_path_down_at_start(struct thread_data *td, struct nvmeof_data *ld, unsigned p,
				      const char *err)
{
	struct nvmeof_options *o = td->eo;
	struct nvmeof_path *pa = &ld->paths[p];
	struct nvmf_mp_path *mpp = &ld->mp.p[p];
	uint64_t now = nvmf_now_ms();

	mpp->connected = 0;
	pa->down_at_start = 1;
	pa->attempts = 1;
	pa->loss_ms = now;
	snprintf(pa->rc_err, sizeof(pa->rc_err), "%s", err);
	if (o->ctrl_loss_tmo) {
		pa->reconnecting = 1;
		pa->next_attempt_ms = now + o->reconnect_delay;
		snprintf(mpp->why, sizeof(mpp->why), "down at the start (%.120s); reconnecting",
			 err);
		nvmeof_err("nvmeof: %s: path %s down at the start: %s; trying again every %u ms "
			   "for up to %u ms (ctrl_loss_tmo)\n", td->o.name, mpp->name, err,
			   o->reconnect_delay, o->ctrl_loss_tmo);
	} else {
		pa->gone = 1;
		snprintf(mpp->why, sizeof(mpp->why), "down at the start (%.120s); not tried again "
			 "(ctrl_loss_tmo 0)", err);
		nvmeof_err("nvmeof: %s: path %s down at the start: %s; not tried again "
			   "(ctrl_loss_tmo 0)\n", td->o.name, mpp->name, err);
	}
}

/* Connect every path of the job (traddr's list; one path: just it).  Each path is its own
 * controller with the same host NQN and host ID, as the kernel connects them.  A path on an
 * RDMA device an earlier path is on shares that path's protection domain, so fio's buffers
 * are registered once per device (nvmeof_buffers_register). */
int nvmeof_paths_connect(struct thread_data *td, struct nvmeof_data *ld,
				const struct nvmeof_file *nf0, struct nvmf_lane_opts *lo)
{
	struct nvmeof_options *o = td->eo;
	char err[NVMF_ERR_LEN], host[256];
	int rc;

	ld->nr_paths = nf0->nr_paths ? nf0->nr_paths : 1;
	ld->name = td->o.name;
	ld->mp.nr = ld->nr_paths;
	ld->mp.policy = o->mp_policy;
	if ((rc = nvmeof_ana_groups(td, ld)))
		return rc;
	for (unsigned p = 0; p < ld->nr_paths; p++) {
		const char *a = nf0->paths[p].traddr;

		snprintf(ld->mp.p[p].name, sizeof(ld->mp.p[p].name), "%s%s%s:%s",
			 strchr(a, ':') ? "[" : "", a, strchr(a, ':') ? "]" : "",
			 nf0->paths[p].trsvcid);
	}
	for (unsigned p = 0; p < ld->nr_paths; p++) {
		struct nvmf_lane_opts po = *lo;
		const struct nvmf_lane_info *pin;
		struct ibv_pd *pd;
		unsigned i;

		po.traddr = nf0->paths[p].traddr;
		po.trsvcid = nf0->paths[p].trsvcid;
		if (ld->nr_paths > 1)
			po.host_traddr = nvmeof_path_host_traddr(td, p, host, sizeof(host));
		po.port_down_lost = nvmf_policy_port_down_lost(ld->nr_paths);
		/* The whole array: a path down now takes, when it comes up, the protection
		 * domain of a path on its device (the array is written here only). */
		po.pds = ld->pds;
		po.nr_pds = NVMF_MAX_PATHS;
		if (ld->nr_paths == 1) {
			if ((rc = nvmf_lane_connect(&ld->paths[p].lane, &po, err, sizeof(err)))) {
				nvmeof_job_err(td, "%s\n", err);
				return rc;
			}
		} else if ((rc = nvmf_lane_connect_or_down(&ld->paths[p].lane, &po, err,
							   sizeof(err))) < 0) {
			nvmeof_job_err(td, "path %u (%s): %s\n", p + 1, ld->mp.p[p].name, err);
			return rc;
		} else if (rc) {
			/* Down at the start: a lost path from the start (ctrl_loss_tmo decides
			 * whether it is tried again); the job starts on the paths that answer. */
			nvmeof_path_down_at_start(td, ld, p, err);
			continue;
		}
		if (!ld->lane)
			ld->lane = ld->paths[p].lane;   /* the first path up: its facts are the job's */
		pd = nvmf_lane_pd(ld->paths[p].lane);
		for (i = 0; i < ld->nr_pds && ld->pds[i] != pd; i++)
			;
		if (i == ld->nr_pds)
			ld->pds[ld->nr_pds++] = pd;  /* a device no earlier path is on */
		pin = nvmf_lane_info(ld->paths[p].lane);
		ld->mp.p[p].connected = 1;
		nvmeof_path_ana_read(ld, p);
		if (ld->lane != ld->paths[p].lane &&
		    strcmp(pin->subnqn, nvmf_lane_info(ld->lane)->subnqn)) {
			nvmeof_job_err(td, "path %u (%s) reaches subsystem %s, path %s %s: every path "
				       "must reach the same subsystem\n", p + 1, ld->mp.p[p].name,
				       pin->subnqn, ld->mp.p[nvmeof_first_up(ld)].name,
				       nvmf_lane_info(ld->lane)->subnqn);
			return -EINVAL;
		}
	}
	if (!ld->lane) {
		char line[NVMF_MAX_PATHS * (NVMF_MP_WHY_LEN + 320)];

		nvmeof_path_name_line(ld, line, sizeof(line));
		nvmeof_job_err(td, "no path answered: %s\n", line);
		return -ENOTCONN;
	}
	return 0;
}

/* A file's limits: the smallest any path's controller allows (one I/O may go to any). */
void nvmeof_paths_limits(struct nvmeof_data *ld, struct nvmeof_file *nf)
{
	nvmf_lane_io_limits(ld->lane, nf->ns.lba_size, &nf->lim);
	for (unsigned p = 0; p < ld->nr_paths; p++) {
		struct nvmf_io_limits l;

		if (ld->paths[p].reconnecting || ld->paths[p].gone || ld->paths[p].lane == ld->lane)
			continue;
		nvmf_lane_io_limits(ld->paths[p].lane, nf->ns.lba_size, &l);
		if (l.max_xfer < nf->lim.max_xfer)
			nf->lim.max_xfer = l.max_xfer;
		if (l.inline_max < nf->lim.inline_max)
			nf->lim.inline_max = l.inline_max;
	}
}

/* Multipath: one more line, each path with its controller and ANA state. */
void nvmeof_paths_line(struct thread_data *td, struct nvmeof_data *ld)
{
	char line[NVMF_MAX_PATHS * 420], regs[64];
	size_t o = 0;

	line[0] = 0;
	for (unsigned p = 0; p < ld->nr_paths && o < sizeof(line); p++) {
		const struct nvmf_lane_info *in = nvmf_lane_info(ld->paths[p].lane);
		char ana[160];

		if (!ld->mp.p[p].connected) {
			o += (size_t)snprintf(line + o, sizeof(line) - o, "%s%s not connected (%s)",
					      p ? "; " : "", ld->mp.p[p].name, ld->mp.p[p].why);
			continue;
		}
		nvmeof_path_ana_text(ld, p, ana, sizeof(ana));
		o += (size_t)snprintf(line + o, sizeof(line) - o, "%s%s cntlid %u via %s (%s, ANA %s)",
				      p ? "; " : "", ld->mp.p[p].name, in->cntlid,
				      in->rdma_dev[0] ? in->rdma_dev : "TCP", in->local_addr, ana);
	}
	if (!strcmp(nvmf_lane_info(ld->lane)->transport, "tcp"))
		snprintf(regs, sizeof(regs), "NVMe/TCP: nothing registered");
	else
		snprintf(regs, sizeof(regs), "buffers registered on %u RDMA device%s",
			 ld->bufs.nr_devices, ld->bufs.nr_devices == 1 ? "" : "s");
	{
		char groups[NVMF_MP_MAX_GROUPS * 12] = "";
		size_t g_o = 0;

		for (unsigned g = 0; g < ld->mp.nr_groups && g_o < sizeof(groups); g++)
			g_o += (size_t)snprintf(groups + g_o, sizeof(groups) - g_o, "%s%u",
						g ? ", " : "", ld->mp.grpid[g]);
		nvmeof_info("nvmeof: %s: %u paths, mp_policy %s, ANA group%s %s: %s; %s\n",
			    td->o.name, ld->nr_paths, nvmf_mp_policy_name(ld->mp.policy),
			    ld->mp.nr_groups > 1 ? "s" : "", groups, line, regs);
	}
}

static void nvmeof_path_name_line(struct nvmeof_data *ld, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = 0;
	for (unsigned p = 0; p < ld->nr_paths && o < len; p++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s: %s", p ? "; " : "", ld->mp.p[p].name,
				      ld->mp.p[p].why[0] ? ld->mp.p[p].why : "usable");
}

/* No path is left (each gone: lost with ctrl_loss_tmo 0 or past it): everything waiting
 * fails and the job ends with one line naming each path's reason. */
void nvmeof_mp_all_lost(struct thread_data *td, struct nvmeof_data *ld)
{
	char line[NVMF_MAX_PATHS * (NVMF_MP_WHY_LEN + 320)];

	ld->lost = -ENOTCONN;
	nvmf_io_backlog_fail(&ld->backlog, ld->lost, &ld->cpl);
	ld->nr_unstamped = 0;
	nvmeof_path_name_line(ld, line, sizeof(line));
	nvmeof_err("nvmeof: %s: lane failed: all %u paths lost: %s\n", td->o.name, ld->nr_paths,
		   line);
	if (!ld->failed_logged) {
		ld->failed_logged = 1;
		td_verror(td, -ld->lost, "nvmeof lane");
	}
	fio_mark_td_terminate(td);
}

static int nvmeof_mp_any_left(const struct nvmeof_data *ld)
{
	for (unsigned p = 0; p < ld->nr_paths; p++)
		if (!ld->paths[p].gone)
			return 1;
	return 0;
}

/* The Command Quiesce Time of path p's controller in ms (the test build's knob stands in for
 * a target that reports one; the testbed's does not). */
static unsigned nvmeof_path_cqt(const struct nvmeof_path *pa)
{
	const char *t = nvmeof_test_knob("FIO_NVMEOF_TEST_CQT_MS");

	if (t && *t)
		return (unsigned)atoi(t);
	return nvmf_lane_info(pa->lane)->cqt_ms;
}

/* Whether the first n I/Os of the backlog (the lost path's posted ones, moved to its head)
 * hold a write or a trim: a command that changes blocks. */
static int nvmeof_moved_writes(const struct nvmeof_data *ld, unsigned n)
{
	const struct nvmf_io *io = ld->backlog.head;

	for (unsigned i = 0; i < n && io; i++, io = io->next)
		if (io->op == NVMF_IO_WRITE || io->op == NVMF_IO_TRIM)
			return 1;
	return 0;
}

/* Path p is lost: its controller is shut off, every I/O it held goes to the head of the
 * backlog (posted ones too: another path re-issues them, as the kernel's multipath does; at
 * most NVMEOF_MP_MAX_MOVES times each), and it reconnects in the background (ctrl_loss_tmo)
 * or is gone. */
static void nvmeof_path_down(struct thread_data *td, struct nvmeof_data *ld, unsigned p, int rc,
			     const char *why)
{
	struct nvmeof_options *o = td->eo;
	struct nvmeof_path *pa = &ld->paths[p];
	struct nvmf_mp_path *mpp = &ld->mp.p[p];
	struct nvmf_mp_event *ev;
	struct nvmf_io_lost lost;
	char msg[NVMF_MP_WHY_LEN], held[128] = "";
	uint64_t now = nvmf_now_ms();
	unsigned keep = 0, cqt;

	snprintf(msg, sizeof(msg), "%s", why ? why : strerror(-rc));
	for (unsigned i = pa->first_q; i < pa->first_q + pa->nr_q; i++)
		if (ld->qs[i]->fatal_msg[0]) {
			snprintf(msg, sizeof(msg), "%s", ld->qs[i]->fatal_msg);
			break;
		}
	/* the keep-alive thread's reason, where it found the path lost and shut it off */
	if (nvmf_lane_lost_why(pa->lane))
		snprintf(msg, sizeof(msg), "%s", nvmf_lane_lost_why(pa->lane));
	nvmf_lane_kill(pa->lane);
	for (unsigned i = pa->first_q; i < pa->first_q + pa->nr_q; i++)
		nvmf_queue_abandon(ld->qs[i], rc, msg);
	if (nvmf_io_requeue_lost(&ld->qs[pa->first_q], pa->nr_q, &ld->backlog, NVMEOF_MP_MAX_MOVES,
				 rc, &ld->cpl, &lost)) {
		memset(&lost, 0, sizeof(lost));
		for (unsigned i = pa->first_q; i < pa->first_q + pa->nr_q; i++)
			nvmf_queue_fail_all(ld->qs[i], ld->qs[i]->fatal, ld->qs[i]->fatal_msg);
	}
	/* Staged here and not posted: back in the backlog, stamped when posted elsewhere. */
	for (unsigned i = 0; i < ld->nr_unstamped; i++)
		if (ld->unstamped[i]->path != p)
			ld->unstamped[keep++] = ld->unstamped[i];
	ld->nr_unstamped = keep;
	mpp->connected = 0;
	mpp->losses++;
	ev = nvmf_mp_failover(&ld->mp, p, now, msg);
	ld->mp_last_ev[p] = ev;
	nvmf_mp_moved(&ld->mp, ev, lost.resubmitted + lost.requeued);
	/* A write the lost controller was given may still run there for its Command Quiesce
	 * Time; issued elsewhere before that, the old one could land after the new (or after a
	 * later write to the same blocks).  So nothing is posted until it has passed. */
	cqt = nvmeof_path_cqt(pa);
	if (cqt && nvmeof_moved_writes(ld, lost.resubmitted)) {
		if (now + cqt > ld->cqt_until_ms)
			ld->cqt_until_ms = now + cqt;
		if (ev)
			ev->cqt_wait_ms = cqt;
		snprintf(held, sizeof(held), "; I/O waits %u ms (the controller's Command Quiesce "
			 "Time) before its writes go elsewhere", cqt);
	}
	if (o->ctrl_loss_tmo) {
		pa->reconnecting = 1;
		pa->loss_ms = now;
		pa->next_attempt_ms = now + o->reconnect_delay;
		pa->attempts = 0;
	} else {
		pa->gone = 1;
	}
	nvmeof_queues_attach(ld);
	nvmeof_err("nvmeof: %s: path %s lost: %s; %u I/O(s) moved to the other paths, %u failed "
		   "(moved %u times already)%s; %s\n", td->o.name, mpp->name, msg,
		   lost.resubmitted + lost.requeued, lost.failed, NVMEOF_MP_MAX_MOVES, held,
		   pa->reconnecting ? "reconnecting in the background (ctrl_loss_tmo)" :
		   "not reconnecting (ctrl_loss_tmo=0)");
}

/* The queues that failed name the paths that are lost: each goes down; the lane lives on while
 * any path is left (or may come back). */
void nvmeof_mp_fault(struct thread_data *td, struct nvmeof_data *ld, int rc,
			    const char *why)
{
	int found = 0;

	for (unsigned p = 0; p < ld->nr_paths; p++) {
		struct nvmeof_path *pa = &ld->paths[p];
		int fatal = 0;

		if (pa->reconnecting || pa->gone)
			continue;
		for (unsigned i = pa->first_q; i < pa->first_q + pa->nr_q; i++)
			fatal |= ld->qs[i]->fatal != 0;
		if (fatal) {
			nvmeof_path_down(td, ld, p, rc, why);
			found = 1;
		}
	}
	/* An error no queue owns (should not happen): every path is suspect. */
	if (!found)
		for (unsigned p = 0; p < ld->nr_paths; p++)
			if (!ld->paths[p].reconnecting && !ld->paths[p].gone)
				nvmeof_path_down(td, ld, p, rc, why);
	if (!nvmeof_mp_any_left(ld))
		nvmeof_mp_all_lost(td, ld);
}

/* A reconnect attempt runs on a thread of its own: a full bring-up (connect, enable, identify,
 * the I/O queues) takes tens of milliseconds even when it succeeds, and the job's thread keeps
 * serving the other paths meanwhile.  The attempt touches only its path's lane, which the job
 * thread leaves alone until the attempt is joined. */
static void *nvmeof_path_reconnect_thread(void *arg)
{
	struct nvmeof_path *pa = arg;

	pa->rc_rc = nvmf_lane_reconnect(pa->lane, pa->rc_err, sizeof(pa->rc_err));
	__atomic_store_n(&pa->rc_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

void nvmeof_paths_quiesce(struct nvmeof_data *ld)
{
	for (unsigned p = 0; p < ld->nr_paths; p++)
		if (ld->paths[p].rc_running) {
			pthread_join(ld->paths[p].rc_thread, NULL);
			ld->paths[p].rc_running = 0;
		}
}

/* A finished attempt of path p: back (1), or still lost (0), or given up (0, gone set). */
static int nvmeof_path_attempt_done(struct thread_data *td, struct nvmeof_data *ld, unsigned p)
{
	struct nvmeof_options *o = td->eo;
	struct nvmeof_path *pa = &ld->paths[p];
	struct nvmf_mp_path *mpp = &ld->mp.p[p];
	uint64_t now = nvmf_now_ms();
	char lost[NVMF_MP_WHY_LEN], last[NVMF_ERR_LEN];

	if (!pa->rc_rc) {
		const struct nvmf_lane_info *in = nvmf_lane_info(pa->lane);
		unsigned entries, most = nvmeof_depth_limit(in, &entries);

		struct nvmf_queue *q0 = nvmf_lane_ioq(pa->lane, 0);
		unsigned parts = 1;
		struct fio_file *f;
		unsigned i;

		/* The limits an I/O is split by from now on: the smallest of the connected paths'
		 * and this one's as it came back (its MDTS or in-capsule size may have shrunk). */
		for_each_file(td, f, i) {
			struct nvmeof_file *nf = FILE_ENG_DATA(f);
			struct nvmf_io_limits l;
			unsigned n;

			nvmf_lane_io_limits(pa->lane, nf->ns.lba_size, &l);
			if (nf->lim.max_xfer < l.max_xfer)
				l.max_xfer = nf->lim.max_xfer;
			n = nvmf_io_cmds_for_bytes(nvmeof_max_bs(td), &l);
			if (n > parts)
				parts = n;
		}
		/* A controller back with a smaller queue (or an MDTS that splits the largest I/O
		 * into more commands than its queue holds) would leave I/Os waiting for ever. */
		if (td->o.iodepth > most || !q0 || parts > q0->max_inflight) {
			snprintf(mpp->why, sizeof(mpp->why), "back (cntlid %u) with smaller limits: "
				 "iodepth %u, the controller takes %u; bs %llu needs %u command(s) "
				 "(MDTS %u bytes), its queue holds %u", in->cntlid, td->o.iodepth, most,
				 nvmeof_max_bs(td), parts, in->mdts_bytes, q0 ? q0->max_inflight : 0);
			nvmf_lane_kill(pa->lane);
			pa->reconnecting = 0;
			pa->gone = 1;
			nvmeof_err("nvmeof: %s: path %s given up: %s\n", td->o.name, mpp->name,
				   mpp->why);
			return 0;
		}
		if (pa->down_at_start) {
			struct nvmf_lane *lanes[NVMF_MAX_PATHS];

			/* (not a lane a reconnect thread holds: it is that thread's) */
			for (unsigned j = 0; j < ld->nr_paths; j++)
				lanes[j] = ld->paths[j].rc_running ? NULL : ld->paths[j].lane;
			/* fio's buffers were registered at the start, on the devices of the paths
			 * up then: a path on another device cannot reach them. */
			if (nvmeof_buffers_path_up(&ld->bufs, lanes, ld->nr_paths, p)) {
				snprintf(mpp->why, sizeof(mpp->why), "came up (cntlid %u) on RDMA "
					 "device %s, which no path up at the start is on: fio's "
					 "buffers are not registered there", in->cntlid,
					 in->rdma_dev);
				nvmf_lane_kill(pa->lane);
				pa->reconnecting = 0;
				pa->gone = 1;
				nvmeof_err("nvmeof: %s: path %s given up: %s\n", td->o.name,
					   mpp->name, mpp->why);
				return 0;
			}
		}
		pa->reconnecting = 0;
		for_each_file(td, f, i) {
			struct nvmeof_file *nf = FILE_ENG_DATA(f);
			struct nvmf_io_limits was = nf->lim;

			nvmeof_paths_limits(ld, nf);
			if (nf->lim.max_xfer < was.max_xfer || nf->lim.inline_max < was.inline_max)
				nvmeof_info("nvmeof: %s: path %s came back with smaller limits: %s now "
					    "splits I/O at %u bytes per command, in-capsule data up to %u "
					    "B (was %u, %u)\n", td->o.name, mpp->name, f->file_name,
					    nf->lim.max_xfer, nf->lim.inline_max, was.max_xfer,
					    was.inline_max);
		}
		mpp->connected = 1;
		nvmeof_path_ana_read(ld, p);
		snprintf(mpp->why, sizeof(mpp->why), "back after %llu ms",
			 (unsigned long long)(now - pa->loss_ms));
		nvmeof_queues_attach(ld);
		{
			char ana[160];

			nvmeof_path_ana_text(ld, p, ana, sizeof(ana));
			nvmeof_info("nvmeof: %s: path %s %s after %llu ms (attempt %u, cntlid %u, "
				    "ANA %s)\n", td->o.name, mpp->name, pa->down_at_start ?
				    "down at the start, connected" : "reconnected",
				    (unsigned long long)(now - pa->loss_ms), pa->attempts, in->cntlid,
				    ana);
		}
		pa->down_at_start = 0;
		return 1;
	}
	/* (copies: the sources live in ld, as the destination does) */
	snprintf(lost, sizeof(lost), "%s", ld->mp_last_ev[p] ? ld->mp_last_ev[p]->why :
		 pa->down_at_start ? "down at the start" : "lost");
	snprintf(last, sizeof(last), "%s", pa->rc_err);
	if (now - pa->loss_ms < o->ctrl_loss_tmo) {
		/* the closing line says so if the job ends before the path is back */
		snprintf(mpp->why, sizeof(mpp->why), "%.60s; reconnecting, %u attempt(s) failed "
			 "(last: %.80s)", lost, pa->attempts, last);
		pa->next_attempt_ms = now + o->reconnect_delay;
		return 0;
	}
	pa->reconnecting = 0;
	pa->gone = 1;
	snprintf(mpp->why, sizeof(mpp->why), "%.60s; not back within ctrl_loss_tmo %u ms after "
		 "%u attempt(s) (last: %.40s)", lost, o->ctrl_loss_tmo, pa->attempts, last);
	nvmeof_err("nvmeof: %s: path %s given up: %s\n", td->o.name, mpp->name, mpp->why);
	return 0;
}

/* Lost paths: an attempt started when due, a finished one taken in.  1: a path came back (I/O
 * may go out).  While fio stops the job every lost path is given up; an attempt still running
 * is left to finish and is joined when the job's data is freed (nvmeof_paths_quiesce): fio may
 * still have I/O to do on the other paths (a verify pass after a time-based run), and waiting
 * here held it for up to connect_timeout. */
int nvmeof_mp_reconnect(struct thread_data *td, struct nvmeof_data *ld)
{
	int back = 0, stopping = nvmeof_stop_requested(td, ld);

	for (unsigned p = 0; p < ld->nr_paths; p++) {
		struct nvmeof_path *pa = &ld->paths[p];

		if (!pa->reconnecting)
			continue;
		if (pa->rc_running) {
			if (!__atomic_load_n(&pa->rc_done, __ATOMIC_ACQUIRE)) {
				if (!stopping)
					continue;
				char was[NVMF_MP_WHY_LEN];

				pa->reconnecting = 0;
				pa->gone = 1;
				/* the loss and the attempts that failed stay: the attempt's own
				 * error is its thread's until joined */
				snprintf(was, sizeof(was), "%s", ld->mp.p[p].why);
				snprintf(ld->mp.p[p].why, sizeof(ld->mp.p[p].why), "%.150s; fio "
					 "stopped the job during attempt %u", was, pa->attempts);
				continue;
			}
			pthread_join(pa->rc_thread, NULL);
			pa->rc_running = 0;
			back |= nvmeof_path_attempt_done(td, ld, p);
			if (!pa->reconnecting || !stopping)
				continue;
		}
		if (stopping) {
			if (!pa->rc_rc)     /* came back just now: it may stay, the job ends anyway */
				continue;
			pa->reconnecting = 0;
			pa->gone = 1;
			if (pa->attempts && pa->rc_err[0])
				snprintf(ld->mp.p[p].why, sizeof(ld->mp.p[p].why),
					 "fio stopped the job while reconnecting; %u attempt(s) "
					 "failed (last: %.100s)", pa->attempts, pa->rc_err);
			else
				snprintf(ld->mp.p[p].why, sizeof(ld->mp.p[p].why),
					 "fio stopped the job while reconnecting");
			continue;
		}
		if (nvmf_now_ms() < pa->next_attempt_ms)
			continue;
		pa->attempts++;
		pa->rc_rc = -EAGAIN;
		__atomic_store_n(&pa->rc_done, 0, __ATOMIC_RELEASE);
		if (pthread_create(&pa->rc_thread, NULL, nvmeof_path_reconnect_thread, pa)) {
			nvmeof_path_reconnect_thread(pa);     /* no thread: the attempt runs here */
			back |= nvmeof_path_attempt_done(td, ld, p);
			continue;
		}
		pa->rc_running = 1;
	}
	if (!nvmeof_mp_any_left(ld))
		nvmeof_mp_all_lost(td, ld);
	return back;
}

/* Each connected path's ANA state, when its controller read a new ANA log.  1: a path became
 * usable (I/O waiting may go out). */
int nvmeof_mp_ana(struct thread_data *td, struct nvmeof_data *ld)
{
	int usable_again = 0;

	for (unsigned p = 0; p < ld->nr_paths; p++) {
		struct nvmeof_path *pa = &ld->paths[p];
		struct nvmf_mp_path *mpp = &ld->mp.p[p];
		unsigned gen;
		uint8_t st;
		int was;
		char err[NVMF_ERR_LEN], why[NVMF_MP_WHY_LEN];

		if (!mpp->connected || (gen = nvmf_lane_ana_gen(pa->lane)) == pa->ana_gen)
			continue;
		pa->ana_gen = gen;
		/* each group on its own: one namespace's group may leave a path another's joins */
		for (unsigned g = 0; g < ld->mp.nr_groups; g++) {
			st = (uint8_t)nvmf_lane_ana_state(pa->lane, ld->mp.grpid[g], err, sizeof(err));
			if (st == mpp->ana[g])
				continue;
			was = nvmf_mp_usable(mpp, g);
			mpp->ana[g] = st;
			if (was && !nvmf_mp_usable(mpp, g)) {
				snprintf(why, sizeof(why), "ANA log: group %u %s", ld->mp.grpid[g],
					 nvme_ana_state_name(st));
				ld->mp_last_ev[p] = nvmf_mp_failover(&ld->mp, p, nvmf_now_ms(), why);
				mpp->ana_moves++;
			} else if (!was && nvmf_mp_usable(mpp, g)) {
				usable_again = 1;
				snprintf(mpp->why, sizeof(mpp->why), "ANA group %u %s again",
					 ld->mp.grpid[g], nvme_ana_state_name(st));
			}
			nvmeof_info("nvmeof: %s: path %s: ANA group %u now %s%s\n", td->o.name,
				    mpp->name, ld->mp.grpid[g], nvme_ana_state_name(st),
				    nvmf_mp_usable(mpp, g) ? (was ? "" : ": rejoins") :
				    ": I/O leaves it");
		}
	}
	return usable_again;
}

/* Completions of every connected path: reap once, or (wait_ms >= 0) wait as nvmf_lane_wait. */
int nvmeof_reap_paths(struct nvmeof_data *ld, int wait_ms)
{
	struct nvmf_lane *lanes[NVMF_MAX_PATHS];
	unsigned n = 0;
	int sum = 0, c;

	if (ld->nr_paths == 1)
		return wait_ms >= 0 ? nvmf_lane_wait(ld->lane, wait_ms) : nvmf_lane_reap(ld->lane);
	for (unsigned p = 0; p < ld->nr_paths; p++)
		if (ld->mp.p[p].connected)
			lanes[n++] = ld->paths[p].lane;
	if (wait_ms >= 0)
		return n ? nvmf_lanes_wait(lanes, n, wait_ms) : 0;
	for (unsigned i = 0; i < n; i++) {
		if ((c = nvmf_lane_reap(lanes[i])) < 0)
			return c;
		sum += c;
	}
	return sum;
}

/* The connection checks of nvmf_lane_check on every connected path: the first failing one's
 * queues are given up (0, or its error with why). */
int nvmeof_check_paths(struct nvmeof_data *ld, uint64_t now, uint64_t *age, char *why,
			      size_t whylen)
{
	uint64_t a;
	int rc;

	if (ld->nr_paths == 1) {
		rc = nvmf_lane_check(ld->lane, now, ld->io_timeout_ms, age, why, whylen);
		if (rc < 0)
			nvmeof_abandon_all(ld, rc, why);
		return rc;
	}
	*age = 0;
	for (unsigned p = 0; p < ld->nr_paths; p++) {
		struct nvmeof_path *pa = &ld->paths[p];

		if (!ld->mp.p[p].connected)
			continue;
		rc = nvmf_lane_check(pa->lane, now, ld->io_timeout_ms, &a, why, whylen);
		if (rc < 0) {
			for (unsigned i = pa->first_q; i < pa->first_q + pa->nr_q; i++)
				nvmf_queue_abandon(ld->qs[i], rc, why);
			return rc;
		}
		if (a > *age)
			*age = a;
	}
	return 0;
}

int nvmeof_mp_usable_any(const struct nvmeof_data *ld)
{
	for (unsigned p = 0; p < ld->nr_paths; p++)
		if (nvmf_mp_usable_any(&ld->mp, &ld->mp.p[p]))
			return 1;
	return 0;
}
