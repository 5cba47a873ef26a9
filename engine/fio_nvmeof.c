/* fio_nvmeof.c - the fio callbacks: fio's queue/commit/getevents/event onto a lane (one
 * controller connection per fio job), fio's error conventions, and the engine's entry point.
 * Everything NVMe/RDMA lives in lib/; options are in nvmeof_options.c, files and the
 * namespace probe in nvmeof_files.c. */
#include <dlfcn.h>
#include <pthread.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fio.h"
#include "optgroup.h"
#include "fio_compat.h"

#include "nvmeof_engine.h"
#include "nvmeof_lane.h"
#include "nvmeof_log.h"
#include "nvmf_cpuq.h"
#include "nvmf_host.h"
#include "nvmf_io.h"
#include "nvmf_lane.h"
#include "nvmf_trid.h"
#include "nvmf_alive.h"

#ifndef FIO_NVMEOF_BUILT_FOR
#error "FIO_NVMEOF_BUILT_FOR must name the fio version the headers come from"
#endif

#define NVMEOF_EXPORT __attribute__((visibility("default")))

/* When each subsystem last completed a command, across the run's lanes (lib/nvmf_alive.h).
 * Mapped when fio loads the engine, before it forks the job processes; NULL: each lane goes
 * by its own completions. */
static struct nvmf_alive_board *nvmeof_alive;

__attribute__((constructor)) static void nvmeof_alive_load(void)
{
	nvmeof_alive = nvmf_alive_create();
}

__attribute__((destructor)) static void nvmeof_alive_unload(void)
{
	nvmf_alive_destroy(nvmeof_alive);
	nvmeof_alive = NULL;
}


unsigned long long nvmeof_max_bs(struct thread_data *td)
{
	unsigned long long m = 0;

	for (int d = DDIR_READ; d < DDIR_RWDIR_CNT; d++)
		if (td->o.max_bs[d] > m)
			m = td->o.max_bs[d];
	return m;
}

/* The lane's I/O queues, again after a reconnect or a path's loss (they are new ones, or
 * fewer): every connected path's, completions of every queue to the same hand-out. */
void nvmeof_queues_attach(struct nvmeof_data *ld)
{
	struct nvmf_queue *q;

	ld->nr_q = 0;
	for (unsigned p = 0; p < ld->nr_paths; p++) {
		struct nvmeof_path *pa = &ld->paths[p];

		pa->first_q = ld->nr_q;
		pa->nr_q = 0;
		if (pa->reconnecting || pa->gone)
			continue;
		while (pa->nr_q < NVMF_MAX_IO_QUEUES && (q = nvmf_lane_ioq(pa->lane, pa->nr_q))) {
			nvmf_queue_set_complete(q, nvmf_io_complete_req, &ld->cpl);
			if (ld->bufs.path_mr[p])
				nvmf_queue_set_data_keys(q, ld->bufs.path_mr[p]->lkey,
							 ld->bufs.path_mr[p]->rkey);
			ld->qs[ld->nr_q++] = q;
			pa->nr_q++;
		}
	}
	if (ld->pick_cpu) {
		const char *t = nvmeof_test_knob("FIO_NVMEOF_TEST_CPU");
		cpu_set_t set;

		if (sched_getaffinity(0, sizeof(set), &set))
			CPU_ZERO(&set);
		nvmf_cpu_queues_init(&ld->cpuq, &set, ld->nr_q);
		/* test knob: a job that posts as if from this CPU, wherever it runs */
		ld->test_cpu = t && *t ? atoi(t) : -1;
	}
}

/* Where the next I/O goes: the queue with the fewest commands outstanding (staged or posted),
 * of all queues or (pick_cpu) of those of the CPU the job runs on now; all parts of a split
 * I/O go there together.  Multipath: of the queues of the path mp_policy picks for the I/O's
 * ANA group; NULL when no path is usable for it now (the I/O waits in the backlog). */
static struct nvmf_queue *nvmeof_pick_queue(struct nvmeof_data *ld, unsigned group)
{
	unsigned i = 0, step = 1, end = ld->nr_q;
	struct nvmf_queue *best;

	if (ld->nr_paths > 1) {
		int p = nvmeof_pick_path(ld, group);

		if (p < 0 || !ld->paths[p].nr_q)
			return NULL;
		ld->pump_path = (unsigned)p;
		i = ld->paths[p].first_q;
		end = i + ld->paths[p].nr_q;
	} else if (ld->pick_cpu) {
		nvmf_cpu_queues_of(&ld->cpuq, ld->test_cpu >= 0 ? ld->test_cpu : sched_getcpu(),
				   &i, &step);
	}
	best = ld->qs[i];
	for (i += step; i < end; i += step)
		if (ld->qs[i]->nr_inflight < best->nr_inflight)
			best = ld->qs[i];
	return best;
}

static unsigned nvmeof_nr_inflight(const struct nvmeof_data *ld)
{
	unsigned n = 0;

	for (unsigned i = 0; i < ld->nr_q; i++)
		n += ld->qs[i]->nr_inflight;
	return n;
}

/* Commands posted and not completed: the ones a later getevents will find. */
static unsigned nvmeof_nr_posted(const struct nvmeof_data *ld)
{
	unsigned n = 0;

	for (unsigned i = 0; i < ld->nr_q; i++)
		n += ld->qs[i]->nr_inflight - ld->qs[i]->nr_staged;
	return n;
}

/* Why the lane failed, in the words of the first queue that says; NULL: none does. */
static const char *nvmeof_fatal_msg(const struct nvmeof_data *ld)
{
	/* A lane its keep-alive thread found lost: its words (the queues it shut off only
	 * report a flushed transfer). */
	const char *why = ld->nr_paths == 1 ? nvmf_lane_lost_why(ld->lane) : NULL;

	if (why)
		return why;
	for (unsigned i = 0; i < ld->nr_q; i++)
		if (ld->qs[i]->fatal_msg[0])
			return ld->qs[i]->fatal_msg;
	return NULL;
}

/* Give every queue up: the first one's result (the error it keeps). */
int nvmeof_abandon_all(struct nvmeof_data *ld, int err, const char *msg)
{
	int rc = err;

	for (unsigned i = ld->nr_q; i-- > 0;)
		rc = nvmf_queue_abandon(ld->qs[i], err, msg);
	return rc;
}

static void nvmeof_io_done(struct nvmf_io *io, void *arg)
{
	struct nvmeof_data *ld = arg;
	struct io_u *io_u = io->user;

	if (ld->nr_paths > 1) {
		if (io->status && nvmeof_mp_status_move(ld, io))
			return;
		if (!io->err && !io->status)
			nvmf_mp_completed(&ld->mp, io->path, nvmf_now_ms());
	}
	if (io->err)
		io_u->error = -io->err;
	else if (io->status)
		io_u->error = EIO;
	else
		io_u->error = 0;
	ld->events[ld->nr_events++] = io_u;
	ld->nr_done++;
}

/* NVMe/TCP: what the job's data path cost in system calls and copies, per I/O completed (one
 * line the tools can read; RDMA lanes keep no such counters and print none). */
static void nvmeof_tcp_report(struct thread_data *td, const struct nvmeof_data *ld)
{
	struct nvmf_xport_stats sum, st;
	double n = (double)ld->nr_done, rx;
	int any = 0;

	memset(&sum, 0, sizeof(sum));
	for (unsigned p = 0; p < ld->nr_paths; p++) {
		if (!ld->paths[p].lane || nvmf_lane_xport_stats(ld->paths[p].lane, &st))
			continue;
		sum.rx_calls += st.rx_calls;
		sum.tx_calls += st.tx_calls;
		sum.rx_copied += st.rx_copied;
		sum.rx_direct += st.rx_direct;
		sum.rx_spec_miss += st.rx_spec_miss;
		sum.tx_copied += st.tx_copied;
		sum.tx_spliced += st.tx_spliced;
		sum.ddgst_errors += st.ddgst_errors;
		any = 1;
	}
	/* A fabric error the job's error count alone would not name. */
	if (sum.ddgst_errors)
		nvmeof_err("nvmeof: %s: NVMe/TCP: %llu C2HData PDU(s) arrived with a wrong data "
			   "digest: each failed its read (Data Transfer Error); the connection went "
			   "on\n", td->o.name, (unsigned long long)sum.ddgst_errors);
	if (!any || !ld->nr_done)
		return;
	rx = (double)(sum.rx_copied + sum.rx_direct);
	nvmeof_info("nvmeof: %s: NVMe/TCP: %.2f receive calls, %.2f send calls per I/O; %.2f KiB "
		    "per I/O copied from the receive buffer, %.2f KiB read straight in (%.0f%% of "
		    "received data copied), %.2f KiB per I/O moved back after a wrong guess; %.2f "
		    "KiB per I/O sent by reference (spliced), %.2f KiB copied into the socket; %llu "
		    "I/Os\n", td->o.name, (double)sum.rx_calls / n,
		    (double)sum.tx_calls / n, (double)sum.rx_copied / 1024.0 / n,
		    (double)sum.rx_direct / 1024.0 / n,
		    rx > 0 ? 100.0 * (double)sum.rx_copied / rx : 0.0,
		    (double)sum.rx_spec_miss / 1024.0 / n, (double)sum.tx_spliced / 1024.0 / n,
		    (double)sum.tx_copied / 1024.0 / n, (unsigned long long)ld->nr_done);
}

static void nvmeof_data_free(struct thread_data *td)
{
	struct nvmeof_data *ld = td->io_ops_data;

	if (!ld)
		return;
	/* No reconnect attempt may still run on a path's lane past here. */
	nvmeof_paths_quiesce(ld);
	/* Worth knowing when comparing initiators: these I/Os were held back by queue size. */
	if (ld->nr_waited)
		nvmeof_info("nvmeof: %s: %llu of %llu I/Os waited for free queue slots (at most %u "
			    "at once; the I/O queue takes %u commands)\n", td->o.name,
			    (unsigned long long)ld->nr_waited, (unsigned long long)ld->nr_queued,
			    ld->max_backlog, ld->nr_q ? ld->qs[0]->max_inflight : 0);
	/* Several paths: where the I/O went and every failover, on one line and (mp_stats) in
	 * a file tools read. */
	if (ld->nr_paths > 1) {
		struct nvmeof_options *o = td->eo;
		char line[2048];

		for (unsigned p = 0; p < ld->nr_paths; p++)
			ld->mp.p[p].aens = nvmf_lane_aens(ld->paths[p].lane);

		nvmf_mp_summary(&ld->mp, line, sizeof(line));
		nvmeof_info("nvmeof: %s: multipath %s\n", td->o.name, line);
		if (o->mp_stats && *o->mp_stats) {
			FILE *f = fopen(o->mp_stats, "a");

			if (!f || nvmf_mp_write_json(&ld->mp, td->o.name, f))
				nvmeof_err("nvmeof: %s: mp_stats=%s: %s\n", td->o.name, o->mp_stats,
					   strerror(errno));
			if (f)
				fclose(f);
		}
	}
	/* Several queues: how the work spread over them. */
	if (ld->nr_q > 1 && ld->nr_paths == 1) {
		char per[NVMF_MAX_IO_QUEUES * 21 + 1];
		size_t len = 0;

		per[0] = 0;
		for (unsigned i = 0; i < ld->nr_q && len < sizeof(per); i++)
			len += (size_t)snprintf(per + len, sizeof(per) - len, " %llu",
						(unsigned long long)ld->nr_posted[i]);
		nvmeof_info("nvmeof: %s: commands posted per I/O queue:%s\n", td->o.name, per);
	}
	nvmeof_buffers_report(td, &ld->bufs);
	nvmeof_tcp_report(td, ld);
	/* The buffers' MR and device memory go before the lane's protection domain. */
	nvmeof_buffers_close(td, &ld->bufs);
	/* The first lane up (ld->lane) owns the protection domain the others share: it goes
	 * last. */
	for (unsigned p = ld->nr_paths; p-- > 0;)
		if (ld->paths[p].lane != ld->lane)
			nvmf_lane_destroy(ld->paths[p].lane);
	nvmf_lane_destroy(ld->lane);
	free(ld->events);
	free(ld->unstamped);
	free(ld);
	td->io_ops_data = NULL;
}

/* fio calls cleanup also after a failed init. */
static void fio_nvmeof_cleanup(struct thread_data *td)
{
	nvmeof_data_free(td);
	nvmeof_files_free(td);
}

static int fio_nvmeof_init(struct thread_data *td)
{
	struct nvmeof_options *o = td->eo;
	struct nvmeof_data *ld;
	struct nvmeof_file *nf0;
	struct nvmf_lane_opts lo;
	const struct nvmf_lane_info *in;
	char hostnqn[NVMF_NQN_MAX + 1];
	unsigned long long max_bs = nvmeof_max_bs(td);
	unsigned parts = 1;
	struct fio_file *f;
	unsigned int i;
	int rc;

	if (!td->o.nr_files || !td->files || !td->files[0]) {
		nvmeof_job_err(td, "the job has no file\n");
		return 1;
	}
	/* With create_serialize=0, fio runs setup after init: resolve files here then. */
	for_each_file(td, f, i)
		if (!FILE_ENG_DATA(f) && fio_nvmeof_setup(td))
			return 1;
	nf0 = FILE_ENG_DATA(td->files[0]);

	ld = calloc(1, sizeof(*ld));
	if (!ld)
		return 1;
	td->io_ops_data = ld;
	ld->alive_slot = -1;
	if (nvmeof_lane_opts(td, nf0, &lo, hostnqn, sizeof(hostnqn)))
		goto fail;
	/* The memory backend first: a GPU that cannot be used fails the job before it connects.
	 * This runs in the job's own process or thread, never in fio's parent. */
	if ((rc = nvmeof_buffers_open(td, &ld->bufs))) {
		td_verror(td, -rc, "nvmeof buffers");
		goto fail;
	}

	/* Connect first: MDTS decides how many commands the largest I/O needs. */
	lo.io_queue_entries = td->o.iodepth + 1;
	lo.io_max_bytes = max_bs;
	if ((rc = nvmeof_io_queues_want(td, &lo.io_queues, &lo.io_queues_auto, ld->queues_why,
					 sizeof(ld->queues_why))))
		goto fail;
	ld->use_events = lo.use_events;
	ld->delay_submit = o->delay_submit != 0;
	if (o->completion == NVMEOF_COMPLETION_HYBRID)
		ld->hybrid_us = o->poll_us;
	if ((rc = nvmeof_paths_connect(td, ld, nf0, &lo))) {
		td_verror(td, -rc, "nvmeof connect");
		goto fail;
	}
	in = nvmf_lane_info(ld->lane);
	ld->alive_slot = nvmf_alive_slot(nvmeof_alive, lo.traddr, lo.trsvcid, lo.subnqn);
	ld->cpl.done = nvmeof_io_done;
	ld->cpl.arg = ld;
	ld->pick_cpu = in->io_queues > 1 && ld->nr_paths == 1 &&
		       (o->io_queue_pick == NVMEOF_PICK_CPU ||
			(o->io_queue_pick == NVMEOF_PICK_AUTO && in->policy.pick_cpu.value));
	nvmeof_queues_attach(ld);
	if ((rc = nvmeof_check_depth(td, in))) {
		td_verror(td, -rc, "nvmeof init");
		goto fail;
	}
	for_each_file(td, f, i) {
		struct nvmeof_file *nf = FILE_ENG_DATA(f);

		if ((rc = nvmeof_check_shapes(td, nf))) {
			td_verror(td, -rc, "nvmeof init");
			goto fail;
		}
		nvmeof_paths_limits(ld, nf);
		if (nvmf_io_cmds_for_bytes(max_bs, &nf->lim) > parts)
			parts = nvmf_io_cmds_for_bytes(max_bs, &nf->lim);
	}
	if (td_trim(td) && !(in->oncs & NVME_ID_CTRL_ONCS_DSM)) {
		nvmeof_job_err(td, "the controller does not support Dataset Management (ONCS 0x%04x): "
			"trims are not possible\n", in->oncs);
		td_verror(td, EOPNOTSUPP, "nvmeof init");
		goto fail;
	}
	if (parts > ld->qs[0]->max_inflight) {
		nvmeof_job_err(td, "bs %llu needs %u commands (MDTS %u bytes) but the I/O queue holds "
			"%u: lower bs\n", max_bs, parts, in->mdts_bytes, ld->qs[0]->max_inflight);
		td_verror(td, EINVAL, "nvmeof init");
		goto fail;
	}
	ld->depth = td->o.iodepth;
	ld->submit_batch = o->submit_batch ? o->submit_batch : in->policy.submit_batch.value;
	ld->io_timeout_ms = o->io_timeout;
	ld->stop_grace_ms = o->stop_grace;
	ld->events = calloc(ld->depth + 1, sizeof(*ld->events));
	ld->unstamped = calloc(ld->depth + 1, sizeof(*ld->unstamped));
	if (!ld->events || !ld->unstamped)
		goto fail;
	/* A job process must not outlive the fio that forked it (fio's SIGTERM handler then
	 * stops the job); getevents also checks the parent, for a parent gone before this. */
	if (!td->o.use_thread) {
		ld->parent = getppid();
		prctl(PR_SET_PDEATHSIG, SIGTERM);
	}
	return 0;
fail:
	/* Per-file state stays for fio's cleanup call: the files still point at it. */
	nvmeof_data_free(td);
	return 1;
}

/* The start line, once the buffers are registered (it says how). */
static void nvmeof_start_line(struct thread_data *td, struct nvmeof_data *ld)
{
	struct nvmeof_options *o = td->eo;
	const struct nvmf_lane_info *in = nvmf_lane_info(ld->lane);
	char bufs[1024], ka[320] = "", queues[384], ack[48] = "", icd[160] = "", batch[160] = "";
	char via[160], fabric[2 * NVMF_POLICY_WHY_LEN + 16];
	int tcp = !strcmp(in->transport, "tcp");
	struct fio_file *f;
	unsigned int i;

	nvmeof_buffers_describe(&ld->bufs, tcp ? NULL : in->rdma_dev, bufs, sizeof(bufs));
	if (tcp) {
		snprintf(via, sizeof(via), "NVMe/TCP (header digest %s, data digest %s)",
			 o->hdr_digest ? "on" : "off", o->data_digest ? "on" : "off");
		snprintf(fabric, sizeof(fabric), "NVMe/TCP, %s", in->fabric.target_why);
	} else {
		snprintf(via, sizeof(via), "%s port %u", in->rdma_dev, in->rdma_port);
		snprintf(fabric, sizeof(fabric), "%s, %s", in->fabric.device_why,
			 in->fabric.target_why);
	}
	if (in->keepalive_ms)
		snprintf(ka, sizeof(ka), ", keep-alive every %u ms (KATO %u ms%s%s%s)%s",
			 in->keepalive_ms, in->kato_ms,
			 o->kato ? "" : ", which the target set: kato=0 was asked for",
			 in->keepalive_why[0] ? "; " : "", in->keepalive_why,
			 nvmeof_test_knob("FIO_NVMEOF_TEST_KEEPALIVE_OFF") ?
			 " NOT SENT (test knob)" : "");
	/* The ACK timeout the queue pairs got (ack_timeout, or the RDMA CM's). */
	if (in->ack_timeout) {
		double ns = (double)(4096ull << in->ack_timeout);

		if (ns >= 1e9)
			snprintf(ack, sizeof(ack), ", ACK timeout %.1f s", ns / 1e9);
		else if (ns >= 1e6)
			snprintf(ack, sizeof(ack), ", ACK timeout %.0f ms", ns / 1e6);
		else
			snprintf(ack, sizeof(ack), ", ACK timeout %.0f us", ns / 1e3);
	}
	/* Each default the fabric policy decided, with its reason (lib/nvmf_policy.h). */
	if (in->inline_offered && !in->inline_max && o->inline_data == NVMF_INLINE_AUTO)
		snprintf(icd, sizeof(icd), " of %u offered (%s)", in->inline_offered,
			 in->policy.inline_keyed.why);
	if (ld->delay_submit && !o->submit_batch)
		snprintf(batch, sizeof(batch), " (submit batch %u = %s)", ld->submit_batch,
			 in->policy.submit_batch.why);
	/* Several queues: how many the controller granted (Set Features Number of Queues). */
	if (in->io_queues > 1 || in->io_queues_granted != 1) {
		/* io_queue_pick=auto says the policy's reason; io_queues=auto what bounded it */
		int pick_auto = o->io_queue_pick == NVMEOF_PICK_AUTO && in->io_queues > 1;

		snprintf(queues, sizeof(queues), "%u I/O queues of %u (controller grants %u)%s%s%s%s"
			 "%s%s%s",
			 in->io_queues, in->io_queue_entries, in->io_queues_granted,
			 in->io_queues < 2 ? "" : ld->pick_cpu ? ", by CPU" : ", least busy first",
			 pick_auto ? " (" : "", pick_auto ? in->policy.pick_cpu.why : "",
			 pick_auto ? ")" : "",
			 ld->pick_cpu && ld->test_cpu >= 0 ? " AS IF ON ONE CPU (test knob)" : "",
			 ld->queues_why[0] ? ", io_queues=auto: " : "", ld->queues_why);
	} else {
		snprintf(queues, sizeof(queues), "queue %u", in->io_queue_entries);
	}
	for_each_file(td, f, i) {
		struct nvmeof_file *nf = FILE_ENG_DATA(f);
		char mdts[32];

		if (in->mdts_bytes)
			snprintf(mdts, sizeof(mdts), "%u KiB", in->mdts_bytes / 1024);
		else
			snprintf(mdts, sizeof(mdts), "unlimited");
		nvmeof_info("nvmeof: %s: %s cntlid %u (%s, fw %s), ns %u: %llu x %u B = %llu MiB, "
			 "MDTS %s, %s, in-capsule %u B%s, %s%s via %s (%s -> %s:%s)%s%s%s%s%s; "
			 "fabric: %s\n",
			 td->o.name, nf->subnqn, in->cntlid, in->mn, in->fr, nf->ns.nsid,
			 (unsigned long long)nf->ns.nsze, nf->ns.lba_size,
			 (unsigned long long)((nf->ns.nsze * nf->ns.lba_size) >> 20), mdts,
			 queues, in->inline_max, icd,
			 o->completion == NVMEOF_COMPLETION_EVENT ? "event" :
			 o->completion == NVMEOF_COMPLETION_HYBRID ? "hybrid" : "poll", batch, via,
			 in->local_addr, in->remote_addr, nf->trsvcid, ack, ka,
			 in->auth[0] ? ", authenticated: " : "", in->auth, bufs, fabric);
	}
}

/* post_init: fio's I/O buffers exist now; the backend registers the whole area once per RDMA
 * device the paths are on. */
static int fio_nvmeof_post_init(struct thread_data *td)
{
	struct nvmeof_data *ld = td->io_ops_data;
	struct nvmf_lane *lanes[NVMF_MAX_PATHS];
	int rc;

	for (unsigned p = 0; p < ld->nr_paths; p++)
		lanes[p] = ld->paths[p].reconnecting || ld->paths[p].gone ? NULL : ld->paths[p].lane;
	rc = nvmeof_buffers_register(td, &ld->bufs, lanes, ld->nr_paths);
	if (rc) {
		td_verror(td, -rc, "nvmeof register buffers");
		return 1;
	}
	nvmeof_queues_attach(ld);       /* each queue takes its device's keys */
	nvmeof_start_line(td, ld);
	if (FILE_ENG_DATA(td->files[0]) &&
	    ((struct nvmeof_file *)FILE_ENG_DATA(td->files[0]))->disc_note[0])
		nvmeof_info("nvmeof: %s: %s\n", td->o.name,
			    ((struct nvmeof_file *)FILE_ENG_DATA(td->files[0]))->disc_note);
	if (ld->nr_paths > 1)
		nvmeof_paths_line(td, ld);
	return 0;
}

static int fio_nvmeof_io_u_init(struct thread_data *td, struct io_u *io_u)
{
	(void)td;
	io_u->engine_data = calloc(1, sizeof(struct nvmf_io));
	return io_u->engine_data ? 0 : 1;
}

static void fio_nvmeof_io_u_free(struct thread_data *td, struct io_u *io_u)
{
	(void)td;
	free(io_u->engine_data);
	io_u->engine_data = NULL;
}

static int fio_nvmeof_open_file(struct thread_data *td, struct fio_file *f)
{
	(void)td;
	return FILE_ENG_DATA(f) ? 0 : 1;
}

static int fio_nvmeof_close_file(struct thread_data *td, struct fio_file *f)
{
	(void)td;
	(void)f;
	return 0;
}

static enum fio_q_status fio_nvmeof_queue(struct thread_data *td, struct io_u *io_u)
{
	struct nvmeof_data *ld = td->io_ops_data;
	struct nvmeof_file *nf = FILE_ENG_DATA(io_u->file);
	struct nvmf_io *io = io_u->engine_data;
	struct nvmf_queue *q;
	int rc;

	/* fio_ro_check() asserts on the trims of trim_percentage verify jobs; refuse writes
	 * and trims only where fio was told the target is read-only. */
	if (read_only && (io_u->ddir == DDIR_WRITE || io_u->ddir == DDIR_TRIM)) {
		io_u->error = EROFS;
		return FIO_Q_COMPLETED;
	}
	if (ld->lost) {
		io_u->error = -ld->lost;
		return FIO_Q_COMPLETED;
	}
	memset(io, 0, sizeof(*io));
	io->user = io_u;
	io->nsid = nf->ns.nsid;
	io->group = (uint8_t)nf->ana_g;
	io->lba_shift = (uint8_t)nf->lba_shift;
	switch (io_u->ddir) {
	case DDIR_READ:
		io->op = NVMF_IO_READ;
		break;
	case DDIR_WRITE:
		io->op = NVMF_IO_WRITE;
		break;
	case DDIR_TRIM:
		io->op = NVMF_IO_TRIM;
		break;
	case DDIR_SYNC:
	case DDIR_DATASYNC:
	case DDIR_SYNC_FILE_RANGE:
		io->op = NVMF_IO_FLUSH;
		break;
	default:
		io_u->error = EINVAL;
		return FIO_Q_COMPLETED;
	}
	if (io->op != NVMF_IO_FLUSH) {
		uint64_t mask = nf->ns.lba_size - 1;

		if ((io_u->offset & mask) || (io_u->xfer_buflen & mask) || !io_u->xfer_buflen) {
			io_u->error = EINVAL;
			return FIO_Q_COMPLETED;
		}
		io->slba = io_u->offset >> nf->lba_shift;
		io->nlb = io_u->xfer_buflen >> nf->lba_shift;
	}
	if (io->op == NVMF_IO_READ || io->op == NVMF_IO_WRITE) {
		rc = nvmeof_buffers_map(td, &ld->bufs, io_u, io);
		if (rc < 0) {
			io_u->error = -rc;
			return FIO_Q_COMPLETED;
		}
	}
	/* Never FIO_Q_BUSY: an I/O whose commands do not fit now waits in the engine's backlog
	 * and is posted (and stamped) as slots free up; fio re-queueing it would redraw the
	 * verify seed of a write in fio 3.33.  While reconnecting, every I/O waits there. */
	if (ld->reconnecting || !(q = nvmeof_pick_queue(ld, io->group))) {
		/* (multipath: no path is usable now; the I/O waits for one) */
		nvmf_io_backlog_add(&ld->backlog, &nf->lim, io, 0);
		rc = 0;
	} else {
		io->path = (uint8_t)ld->pump_path;
		rc = nvmf_io_submit(q, &nf->lim, &ld->backlog, io);
	}
	if (rc < 0) {
		io_u->error = -rc;
		return FIO_Q_COMPLETED;
	}
	ld->uncommitted++;
	ld->nr_queued++;
	if (rc == 0) {
		ld->nr_waited++;
		if (ld->backlog.nr > ld->max_backlog)
			ld->max_backlog = ld->backlog.nr;
	}
	if (rc == 1)
		ld->unstamped[ld->nr_unstamped++] = io;
	return FIO_Q_QUEUED;
}

int nvmeof_stop_requested(struct thread_data *td, struct nvmeof_data *ld);

/* ctrl_loss_tmo: the connection went, and the lane will try to come back.  I/O the target
 * never saw (held by delay_submit, or waiting for slots) waits to be posted after the
 * reconnect; I/O in flight fails with the loss's error, or (retry_on_reconnect) waits at the
 * head of the backlog to be resubmitted once; new I/O waits too. */
static void nvmeof_lane_suspend(struct thread_data *td, struct nvmeof_data *ld, int rc,
				const char *why)
{
	struct nvmeof_options *o = td->eo;
	struct nvmf_io_lost lost;
	const char *msg;

	ld->reconnecting = 1;
	ld->loss_ms = nvmf_now_ms();
	ld->next_attempt_ms = ld->loss_ms + o->reconnect_delay;
	ld->attempts = 0;
	ld->nr_resubmit = 0;
	nvmf_lane_kill(ld->lane);
	nvmeof_abandon_all(ld, rc, why ? why : strerror(-rc));
	msg = nvmeof_fatal_msg(ld);
	if (nvmf_io_requeue_lost(ld->qs, ld->nr_q, &ld->backlog, o->retry_on_reconnect,
				 ld->qs[0]->fatal, &ld->cpl, &lost)) {
		/* no memory to sort them: everything the queues held fails, as without a reconnect */
		memset(&lost, 0, sizeof(lost));
		for (unsigned qi = 0; qi < ld->nr_q; qi++)
			nvmf_queue_fail_all(ld->qs[qi], ld->qs[qi]->fatal, ld->qs[qi]->fatal_msg);
	}
	ld->nr_resubmit = lost.resubmitted;
	ld->nr_unstamped = 0;     /* the held ones are back in the backlog, stamped when posted */
	nvmeof_err("nvmeof: %s: connection lost: %s; %u I/O(s) failed, %u to resubmit, %u "
		   "waiting; reconnecting every %u ms for up to %u ms (ctrl_loss_tmo)\n",
		   td->o.name, msg ? msg : strerror(-rc), lost.failed, ld->nr_resubmit,
		   ld->backlog.nr - ld->nr_resubmit, o->reconnect_delay, o->ctrl_loss_tmo);
}

static void nvmeof_lane_lost(struct thread_data *td, struct nvmeof_data *ld, int rc,
			     const char *why);
static int nvmeof_reconnect_give_up(struct thread_data *td, struct nvmeof_data *ld,
				    const char *why);

/* One reconnect attempt when it is due: 1 reconnected, 0 not yet, negative errno: given up
 * (ctrl_loss_tmo passed, or fio is stopping the job). */
static int nvmeof_reconnect_step(struct thread_data *td, struct nvmeof_data *ld)
{
	struct nvmeof_options *o = td->eo;
	char err[NVMF_ERR_LEN], why[NVMF_ERR_LEN + 128];
	uint64_t now = nvmf_now_ms();
	struct fio_file *f;
	unsigned int i;
	int rc, stopping = nvmeof_stop_requested(td, ld);

	if (!stopping && now < ld->next_attempt_ms)
		return 0;
	if (stopping) {
		rc = -ENOTCONN;
		snprintf(err, sizeof(err), "fio stopped the job while reconnecting");
	} else {
		ld->attempts++;
		rc = nvmf_lane_reconnect(ld->lane, err, sizeof(err));
		now = nvmf_now_ms();
		/* The old queues are gone with the attempt; a failed one may have left fewer. */
		nvmeof_queues_attach(ld);
	}
	if (!rc) {
		const struct nvmf_lane_info *in = nvmf_lane_info(ld->lane);
		unsigned parts = 1, entries, most = nvmeof_depth_limit(in, &entries);

		for_each_file(td, f, i) {
			struct nvmeof_file *nf = FILE_ENG_DATA(f);
			unsigned n;

			nvmf_lane_io_limits(ld->lane, nf->ns.lba_size, &nf->lim);
			n = nvmf_io_cmds_for_bytes(nvmeof_max_bs(td), &nf->lim);
			if (n > parts)
				parts = n;
		}
		/* What init checked must hold for the controller that came back: one back with a
		 * smaller queue or MDTS would leave an I/O waiting for slots for ever. */
		if (td->o.iodepth > most || parts > ld->qs[0]->max_inflight) {
			snprintf(why, sizeof(why), "controller lost: back (cntlid %u) with smaller "
				 "limits: iodepth %u needs %u, the controller takes %u (CAP.MQES+1 %u, "
				 "MAXCMD %u); bs %llu needs %u command(s) (MDTS %u bytes), the queue "
				 "holds %u", in->cntlid, td->o.iodepth, td->o.iodepth, most, entries,
				 in->maxcmd, nvmeof_max_bs(td), parts, in->mdts_bytes,
				 ld->qs[0]->max_inflight);
			return nvmeof_reconnect_give_up(td, ld, why);
		}
		ld->reconnecting = 0;
		{
			const struct nvmf_lane_info *li = nvmf_lane_info(ld->lane);
			char auth[96] = "";

			/* in-band authentication ran again on the new queues (the count grows) */
			if (li->auth[0])
				snprintf(auth, sizeof(auth), ", %s, %u queue authentications so far",
					 li->auth, li->auth_exchanges);
			nvmeof_info("nvmeof: %s: reconnected after %llu ms (attempt %u, cntlid %u%s); "
				    "%u I/O(s) resubmitted\n", td->o.name,
				    (unsigned long long)(now - ld->loss_ms), ld->attempts, li->cntlid,
				    auth, ld->nr_resubmit);
		}
		return 1;
	}
	if (!stopping && now - ld->loss_ms < o->ctrl_loss_tmo) {
		ld->next_attempt_ms = now + o->reconnect_delay;
		return 0;
	}
	snprintf(why, sizeof(why), "controller lost: not back within ctrl_loss_tmo %u ms after "
		 "%u attempt(s) (last: %s)", o->ctrl_loss_tmo, ld->attempts, err);
	return nvmeof_reconnect_give_up(td, ld, why);
}

/* Give up the reconnect: everything waiting fails, the job ends with why. */
static int nvmeof_reconnect_give_up(struct thread_data *td, struct nvmeof_data *ld,
				    const char *why)
{
	ld->reconnecting = 0;
	ld->lost = -ENOTCONN;     /* whatever the last attempt met, the controller is gone */
	nvmf_io_backlog_fail(&ld->backlog, ld->lost, &ld->cpl);
	nvmeof_err("nvmeof: %s: lane failed: %s\n", td->o.name, why);
	if (!ld->failed_logged) {
		ld->failed_logged = 1;
		td_verror(td, -ld->lost, "nvmeof lane");
	}
	fio_mark_td_terminate(td);
	return ld->lost;
}

/* The lane is gone (the target disconnected, a command timed out, keep-alive lost, the
 * transport failed, or fio stopped the job on a silent target): shut its queue pairs off so
 * the target can no longer reach fio's buffers, then fail every I/O it held, so that fio
 * counts each as an error (never as done) and nothing waits on it.  Later I/Os fail at once. */
static void nvmeof_lane_lost(struct thread_data *td, struct nvmeof_data *ld, int rc,
			     const char *why)
{
	struct nvmeof_options *o = td->eo;
	unsigned before = ld->nr_events;

	if (ld->lost || ld->reconnecting)
		return;
	if (ld->nr_paths > 1 && !nvmeof_stop_requested(td, ld)) {
		nvmeof_mp_fault(td, ld, rc, why);
		return;
	}
	if (o->ctrl_loss_tmo && ld->nr_paths == 1 && !nvmeof_stop_requested(td, ld)) {
		nvmeof_lane_suspend(td, ld, rc, why);
		return;
	}
	ld->lost = rc;
	/* A path whose reconnect attempt still runs is that thread's until it is joined
	 * (nvmeof_paths_quiesce): its lane holds no I/O of the job, and a kill from here would
	 * be a second thread on it.  Once joined, it is destroyed with the others. */
	for (unsigned p = 0; p < ld->nr_paths; p++)
		if (!ld->paths[p].rc_running)
			nvmf_lane_kill(ld->paths[p].lane);
	if (!ld->nr_q) {       /* multipath: every path was already down */
		nvmf_io_backlog_fail(&ld->backlog, rc, &ld->cpl);
		ld->nr_unstamped = 0;
		if (!ld->failed_logged) {
			ld->failed_logged = 1;
			nvmeof_err("nvmeof: %s: lane failed: %s\n", td->o.name,
				   why ? why : strerror(-rc));
			td_verror(td, -rc, "nvmeof lane");
		}
		fio_mark_td_terminate(td);
		return;
	}
	for (unsigned i = 0; i < ld->nr_q; i++)
		nvmf_queue_fail_all(ld->qs[i], rc, why ? why : strerror(-rc));
	nvmf_io_backlog_fail(&ld->backlog, ld->qs[0]->fatal, &ld->cpl);
	ld->nr_unstamped = 0;     /* they are failed above, never posted */
	ld->nr_lost_ios = ld->nr_events - before;
	if (!ld->failed_logged) {
		ld->failed_logged = 1;
		nvmeof_err("nvmeof: %s: lane failed: %s (%llu I/O(s) failed with it)\n", td->o.name,
			   nvmeof_fatal_msg(ld), (unsigned long long)ld->nr_lost_ios);
		td_verror(td, -ld->qs[0]->fatal, "nvmeof lane");
	}
	/* Nothing more can succeed on this lane: end the job (also under continue_on_error or a
	 * time_based runtime, which would otherwise spin on failing I/O). */
	fio_mark_td_terminate(td);
}

static void nvmeof_backlog_staged(struct nvmf_io *io, void *arg)
{
	struct nvmeof_data *ld = arg;

	io->path = (uint8_t)ld->pump_path;
	ld->unstamped[ld->nr_unstamped++] = io;
}

/* Stage what waits in the backlog and fits now, post everything staged in one chain, and
 * stamp it: issue time is when the commands are posted. */
static int nvmeof_post(struct thread_data *td, struct nvmeof_data *ld)
{
	int grouped = ld->nr_paths > 1 && ld->mp.nr_groups > 1;
	struct timespec now;
	unsigned posted;
	int rc;

	/* A lost path's writes may still run on its controller: nothing goes out before its
	 * Command Quiesce Time has passed (the stop check posts then). */
	if (ld->cqt_until_ms) {
		if (nvmf_now_ms() < ld->cqt_until_ms)
			return 0;
		ld->cqt_until_ms = 0;
	}

	/* Waiting I/Os go to the least busy queues first, in arrival order.  Namespaces in
	 * several ANA groups: each group's I/Os to a path usable for that group, in arrival order
	 * within it; a group no path takes now keeps its I/Os waiting without holding up the
	 * others. */
	for (unsigned g = 0; g < (grouped ? ld->mp.nr_groups : 1) && ld->backlog.head; g++)
		for (;;) {
			struct nvmf_queue *q = nvmeof_pick_queue(ld, g);

			if (!q)
				break;      /* multipath: no path usable for it now */
			rc = nvmf_io_backlog_pump_group(q, &ld->backlog, grouped ? (int)g : -1,
							nvmeof_backlog_staged, ld);
			if (rc < 0)
				return rc;
			if (rc == 0)
				break;
		}
	if (!ld->nr_unstamped)
		return 0;
	/* One chain per queue that has commands staged; the I/Os that went out are stamped.  A
	 * queue whose post failed keeps its I/Os here (first to last: the caller's loss handling
	 * hands them back), and the error goes up once every other queue has posted. */
	rc = nvmf_io_post(ld->qs, ld->nr_q, ld->nr_posted, ld->unstamped, ld->nr_unstamped, &posted);
	if (posted) {
		if (fio_fill_issue_time(td))
			fio_gettime(&now, NULL);
		for (unsigned i = 0; i < posted; i++) {
			struct io_u *io_u = ld->unstamped[i]->user;

			if (fio_fill_issue_time(td))
				memcpy(&io_u->issue_time, &now, sizeof(now));
			io_u_queued(td, io_u);
		}
		/* An engine that sets issue times (FIO_ASYNCIO_SETS_ISSUE_TIME) owns td->last_issue
		 * too: read_iolog replay waits each logged gap from it (fio_fill_issue_time holds
		 * then). */
		if (td->o.read_iolog_file)
			memcpy(&td->last_issue, &now, sizeof(now));
		io_u_mark_submit(td, posted);
		memmove(ld->unstamped, ld->unstamped + posted,
			(ld->nr_unstamped - posted) * sizeof(ld->unstamped[0]));
		ld->nr_unstamped -= posted;
	}
	if (rc < 0)
		return rc;
	if (ld->hybrid_us)
		ld->active_us = nvmf_now_us();
	return 0;
}

static int fio_nvmeof_commit(struct thread_data *td)
{
	struct nvmeof_data *ld = td->io_ops_data;
	int rc;

	ld->uncommitted = 0;
	if (ld->lost || ld->reconnecting)
		return 0;
	/* delay_submit: with commands already in flight fio must call getevents before it can
	 * wait on anything (it reaps before thinktime and rate sleeps), so the post goes there,
	 * in one chain with whatever else fio commits meanwhile (submit_batch of them,
	 * nvmeof_post_held): one doorbell (a system call with a software RDMA device) for
	 * several I/Os, as SPDK's delay_cmd_submit.  With nothing in flight (QD1, a job's first
	 * I/O) the commit posts at once. */
	if (ld->delay_submit && nvmeof_nr_posted(ld)) {
		ld->post_due = 1;
		return 0;
	}
	ld->post_due = 0;
	rc = nvmeof_post(td, ld);
	if (rc < 0)
		nvmeof_lane_lost(td, ld, rc, nvmeof_fatal_msg(ld));
	return 0;
}

/* fio is stopping this job: Ctrl-C/SIGTERM (fio sets terminate), its runtime is over (fio
 * itself only looks between I/Os, and a job waiting on a silent target never gets there),
 * or, in process mode, the fio that forked it is gone. */
int nvmeof_stop_requested(struct thread_data *td, struct nvmeof_data *ld)
{
	if (td->terminate)
		return 1;
	if (td->o.timeout && !NVMEOF_IN_RAMP(td) && utime_since_now(&td->epoch) >= td->o.timeout) {
		fio_mark_td_terminate(td);
		return 1;
	}
	if (ld->parent && getppid() != ld->parent) {
		fio_mark_td_terminate(td);
		return 1;
	}
	return 0;
}

/* After fio stops the job, commands in flight get NVMEOF_STOP_GRACE_MS, or twice the longest
 * wait this job has seen if that is longer (a slow target, an emulated fabric): the longest
 * gap between completions, or the oldest command's age while others completed (with several
 * jobs on one target, a lane's last commands may wait for the others' to drain), counted
 * from the last completion: a target still answering is waited for, a
 * silent one is given up on.  The last completion counts every lane of the run on the same
 * subsystem (nvmeof_alive): after a stop the target drains the lanes' commands in turn, and a
 * lane whose turn has not come sees nothing while the others complete.  A stall that starts
 * only after the stop cannot otherwise be foreseen from the run, so stop_grace sets the wait
 * outright where a run must not end in an error.  io_timeout stays the outer bound.  Then
 * the lane gives the commands up and the job ends with an error. */
#define NVMEOF_STOP_CHECK_MS 50
#define NVMEOF_STOP_GRACE_MS 750

static int nvmeof_check_stop(struct thread_data *td, struct nvmeof_data *ld, uint64_t now)
{
	uint64_t grace, age, last, others;
	char msg[256];
	int rc;

	ld->next_stop_check_ms = now + NVMEOF_STOP_CHECK_MS;
	/* the connection: RDMA CM events, keep-alive, the oldest command against io_timeout */
	rc = nvmeof_check_paths(ld, now, &age, msg, sizeof(msg));
	if (rc < 0)
		return rc;
	/* A path usable again for a group whose I/Os wait while others' complete: they go now
	 * (nothing else would post them before the next completion). */
	if (ld->nr_paths > 1) {
		int again = nvmeof_mp_ana(td, ld);

		/* (and once a lost path's Command Quiesce Time has passed: what it held goes) */
		if (ld->cqt_until_ms && now >= ld->cqt_until_ms)
			again = 1;
		if (again && (ld->backlog.head || ld->nr_unstamped) && !ld->uncommitted &&
		    !ld->lost && !ld->reconnecting && (rc = nvmeof_post(td, ld)) < 0)
			return rc;
	}
	/* Completion gaps, on this check's clock (no clock read per I/O); an idle lane is no gap. */
	if (ld->nr_done != ld->done_seen || !nvmeof_nr_inflight(ld)) {
		if (ld->progress_ms && ld->nr_done != ld->done_seen &&
		    now - ld->progress_ms > ld->max_gap_ms)
			ld->max_gap_ms = now - ld->progress_ms;
		/* A command still waiting while others complete: this is how long the target
		 * takes under this load (several lanes sharing it drain in turn after a stop). */
		if (ld->nr_done != ld->done_seen && !ld->stop_seen_ms && age > ld->max_age_ms)
			ld->max_age_ms = age;
		if (ld->nr_done != ld->done_seen)
			nvmf_alive_mark(nvmeof_alive, ld->alive_slot, now);
		ld->done_seen = ld->nr_done;
		ld->progress_ms = now;
	}
	if (!nvmeof_stop_requested(td, ld))
		return 0;
	if (!ld->stop_seen_ms) {
		ld->stop_seen_ms = now;
		return 0;
	}
	if (ld->stop_grace_ms) {
		grace = ld->stop_grace_ms;
	} else {
		grace = ld->max_gap_ms > ld->max_age_ms ? ld->max_gap_ms : ld->max_age_ms;
		grace = 2 * grace > NVMEOF_STOP_GRACE_MS ? 2 * grace : NVMEOF_STOP_GRACE_MS;
	}
	if (grace > ld->io_timeout_ms)
		grace = ld->io_timeout_ms;
	/* The last completion: this lane's, or another lane's of the same subsystem, which the
	 * target may be draining first (none of them completes when the target is silent).
	 * Another lane may have marked it after this check read the clock: that is now. */
	last = ld->progress_ms > ld->stop_seen_ms ? ld->progress_ms : ld->stop_seen_ms;
	others = nvmf_alive_last(nvmeof_alive, ld->alive_slot);
	if (others > last)
		last = others < now ? others : now;
	if (now - last < grace || (!nvmeof_nr_inflight(ld) && !ld->backlog.nr))
		return 0;
	/* Under the queue's 160-byte fatal message even with 5-digit times. */
	if (ld->stop_grace_ms)
		snprintf(msg, sizeof(msg), "job stopped with %u command(s), %u waiting I/O(s) "
			 "unanswered %llu ms after the last completion (stop_grace%s)",
			 nvmeof_nr_inflight(ld), ld->backlog.nr, (unsigned long long)grace,
			 grace < ld->stop_grace_ms ? ", bounded by io_timeout" : "");
	else
		snprintf(msg, sizeof(msg), "job stopped with %u command(s), %u waiting I/O(s) "
			 "unanswered %llu ms after the last completion (longest seen: %llu ms "
			 "between completions, %llu ms for one)",
			 nvmeof_nr_inflight(ld), ld->backlog.nr, (unsigned long long)grace,
			 (unsigned long long)ld->max_gap_ms, (unsigned long long)ld->max_age_ms);
	return nvmeof_abandon_all(ld, -ETIMEDOUT, msg);
}

/* Hand fio up to max events: what the target placed in the buffers is made visible first
 * (failed I/Os are skipped there), then the first ones go out. */
static int nvmeof_hand_out(struct thread_data *td, struct nvmeof_data *ld, unsigned int max)
{
	unsigned n;

	if (ld->nr_finished < ld->nr_events) {
		nvmeof_buffers_reaped(td, &ld->bufs, ld->events + ld->nr_finished,
				      ld->nr_events - ld->nr_finished);
		ld->nr_finished = ld->nr_events;
	}
	n = ld->nr_events < max ? ld->nr_events : max;
	ld->ev_handed = n;
	return (int)n;
}

/* completion=hybrid spins within poll_us of the last completion or submission, but only while
 * completions come less than poll_us apart on average: where they come further apart (a slow
 * target, an emulated fabric, a deep queue's spacing) a spin cannot catch the next one and
 * would cost CPU for nothing (the testbed's poll_us sweep, docs/benchmarks.md), so it sleeps at once. */
static int nvmeof_hybrid_spin(const struct nvmeof_data *ld)
{
	return ld->hybrid_us && ld->gap_us < ld->hybrid_us &&
	       nvmf_now_us() - ld->active_us < ld->hybrid_us;
}

static void nvmeof_hybrid_reaped(struct nvmeof_data *ld)
{
	uint64_t now = nvmf_now_us(), gap = now - ld->reaped_us;

	/* An idle stretch (thinktime, a paused job) counts as no more than 4 windows, so the
	 * average comes back within a few completions once I/O flows again. */
	if (gap > 4ull * ld->hybrid_us)
		gap = 4ull * ld->hybrid_us;
	if (ld->reaped_us)
		ld->gap_us = (unsigned)((7ull * ld->gap_us + gap) / 8);
	ld->reaped_us = now;
	ld->active_us = now;
}

/* delay_submit: what fio committed while commands were in flight goes out once submit_batch
 * I/Os wait, or at once when none is in flight (the target must never sit idle while I/Os
 * wait here).  fio hands out one event per getevents by default (iodepth_batch_complete_max)
 * and commits one I/O after each, so without a batch every I/O is a post of its own; with a
 * software RDMA device each post is a system call that also runs the target's receive.
 * Returns 0 when nothing was due, else nvmeof_post's result. */
static int nvmeof_post_held(struct thread_data *td, struct nvmeof_data *ld)
{
	if (!ld->post_due || ld->uncommitted ||
	    (ld->nr_unstamped < ld->submit_batch && nvmeof_nr_posted(ld)))
		return 0;
	ld->post_due = 0;
	return nvmeof_post(td, ld);
}

static int fio_nvmeof_getevents(struct thread_data *td, unsigned int min, unsigned int max,
				const struct timespec *t)
{
	struct nvmeof_data *ld = td->io_ops_data;
	uint64_t now, deadline = 0;
	unsigned spins = 0;
	int rc;

	/* Drop what the previous call handed out. */
	if (ld->ev_handed) {
		memmove(ld->events, ld->events + ld->ev_handed,
			(ld->nr_events - ld->ev_handed) * sizeof(ld->events[0]));
		ld->nr_events -= ld->ev_handed;
		ld->nr_finished -= ld->ev_handed;
		ld->ev_handed = 0;
	}
	/* Reconnecting: attempts when due, sleeping between them (fio's stop still works);
	 * what failed at the loss is handed back meanwhile. */
	while (ld->reconnecting && !ld->lost) {
		if ((rc = nvmeof_reconnect_step(td, ld)) > 0) {
			if ((rc = nvmeof_post(td, ld)) < 0)
				goto fatal;
			break;
		}
		if (rc < 0 || ld->nr_events >= (min ? min : 1))
			break;
		if (t) {
			now = nvmf_now_ms();
			if (!deadline)
				deadline = now + (uint64_t)t->tv_sec * 1000 + (uint64_t)t->tv_nsec / 1000000;
			if (now >= deadline)
				break;
		}
		usleep(NVMEOF_STOP_CHECK_MS * 1000);
	}
	/* Multipath: lost paths reconnect in the background; while no path is usable (all lost
	 * or ANA inaccessible) I/O waits, as a single path's reconnect does. */
	if (ld->nr_paths > 1 && !ld->lost) {
		int waited = 0;

		for (;;) {
			int back = nvmeof_mp_reconnect(td, ld);

			now = nvmf_now_ms();
			/* While it waits, ANA is taken here; otherwise the stop check takes it (this
			 * must not move that check's clock: io_timeout and fio's stop run there). */
			if (!ld->lost && waited)
				back |= nvmeof_mp_ana(td, ld);
			if (ld->lost)
				break;
			if (nvmeof_mp_usable_any(ld)) {
				if ((back || waited) && ld->backlog.head && (rc = nvmeof_post(td, ld)) < 0)
					goto fatal;
				break;
			}
			if (ld->nr_events >= (min ? min : 1))
				break;
			if (t) {
				if (!deadline)
					deadline = now + (uint64_t)t->tv_sec * 1000 +
						   (uint64_t)t->tv_nsec / 1000000;
				if (now >= deadline)
					break;
			}
			if (nvmeof_stop_requested(td, ld)) {
				static const char stopped[] = "fio stopped the job while no path was "
							      "usable";

				nvmeof_mp_reconnect(td, ld);  /* gives every reconnecting path up */
				if (!ld->lost && ld->nr_q) {
					nvmeof_abandon_all(ld, -ENOTCONN, stopped);
					nvmeof_lane_lost(td, ld, -ENOTCONN, stopped);
				} else if (!ld->lost) {
					nvmeof_mp_all_lost(td, ld);
				}
				break;
			}
			/* ANA is polled by each controller's keep-alive thread */
			usleep(NVMEOF_STOP_CHECK_MS * 1000);
			waited = 1;
		}
		deadline = 0;
		if (!ld->lost && !nvmeof_mp_usable_any(ld))
			return nvmeof_hand_out(td, ld, max);
	}
	/* A lost lane holds nothing more: hand back what it failed, never wait. */
	if (ld->lost || ld->reconnecting)
		return nvmeof_hand_out(td, ld, max);
	/* What delay_submit held back goes out before anything is reaped or waited for, once a
	 * batch waits (nvmeof_post_held), but not with I/Os fio has queued and not committed
	 * (the backlog's rule below): fio commits before every getevents that may wait, so only
	 * a min 0 call finds them. */
	if ((rc = nvmeof_post_held(td, ld)) < 0)
		goto fatal;
	/* The stop check runs on a clock, not per call: fio may call often with min 0 or get
	 * its events at once, and must still notice its parent gone. */
	now = nvmf_now_ms();
	if (now >= ld->next_stop_check_ms && (rc = nvmeof_check_stop(td, ld, now)) < 0)
		goto fatal;
	if (t)
		deadline = now + (uint64_t)t->tv_sec * 1000 + (uint64_t)t->tv_nsec / 1000000;
	for (;;) {
		if (ld->use_events && ld->nr_events < min && !nvmeof_hybrid_spin(ld)) {
			int wait_ms = NVMEOF_STOP_CHECK_MS;

			if (t && (deadline <= now || deadline - now < (uint64_t)wait_ms))
				wait_ms = deadline <= now ? 0 : (int)(deadline - now);
			rc = nvmeof_reap_paths(ld, wait_ms);
		} else {
			/* poll mode, or hybrid where a spin can catch the next completion */
			rc = nvmeof_reap_paths(ld, -1);
		}
		if (rc > 0 && ld->hybrid_us)
			nvmeof_hybrid_reaped(ld);
		/* Completions freed slots: I/Os in the backlog go out now, unless fio has queued
		 * I/Os it has not committed yet (fio counts an I/O in flight from its commit on;
		 * its commit posts them all). */
		if (rc > 0 && ld->backlog.head && !ld->uncommitted)
			rc = nvmeof_post(td, ld);
		/* The last posted command completed with I/Os still held: they go now. */
		if (rc >= 0)
			rc = nvmeof_post_held(td, ld);
		if (rc < 0)
			goto fatal;
		if (ld->nr_events >= min)
			break;
		/* The clock is read every few hundred polls only: polling stays cheap. */
		if (!ld->use_events && (++spins & 255))
			continue;
		now = nvmf_now_ms();
		if (t && now >= deadline)
			break;
		if (now >= ld->next_stop_check_ms && (rc = nvmeof_check_stop(td, ld, now)) < 0)
			goto fatal;
	}
	return nvmeof_hand_out(td, ld, max);
fatal:
	/* Every I/O the lane still held comes back now, failed: fio counts them as errors.  What
	 * completed before is finished as usual by the hand-out. */
	nvmeof_lane_lost(td, ld, rc, nvmeof_fatal_msg(ld));
	return nvmeof_hand_out(td, ld, max);
}

static struct io_u *fio_nvmeof_event(struct thread_data *td, int event)
{
	struct nvmeof_data *ld = td->io_ops_data;

	return ld->events[event];
}

/* fio 3.38 added the thread as first argument (fio_compat.h); only io_u is used. */
static char *fio_nvmeof_errdetails(NVMEOF_ERRDETAILS_ARGS(td, io_u))
{
	struct nvmf_io *io = io_u->engine_data;
	char st[160], *msg;

	if (!io || (!io->status && !io->err))
		return NULL;
	if (io->status) {
		nvme_status_format(st, sizeof(st), io->status, 0);
		if (asprintf(&msg, "%s (%s, nsid %u, slba %llu, %llu blocks)", st,
			     nvme_opcode_name(io->status_opc, 0), io->nsid,
			     (unsigned long long)io->slba, (unsigned long long)io->nlb) < 0)
			return NULL;
		return msg;
	}
	/* No NVMe status: the command never completed (fio 3.33 prints "(null)" for NULL). */
	if (asprintf(&msg, "no NVMe status: %s (nsid %u, slba %llu, %llu blocks): the lane was "
		     "lost or the command timed out", strerror(-io->err), io->nsid,
		     (unsigned long long)io->slba, (unsigned long long)io->nlb) < 0)
		return NULL;
	return msg;
}

static struct ioengine_ops ioengine_nvmeof = {
	.name               = "nvmeof",
	.version            = FIO_IOOPS_VERSION,
	.flags              = FIO_RAWIO | FIO_NOEXTEND | FIO_NODISKUTIL | FIO_MEMALIGN |
			      FIO_ASYNCIO_SETS_ISSUE_TIME,
	.setup              = fio_nvmeof_setup,
	.init               = fio_nvmeof_init,
	.post_init          = fio_nvmeof_post_init,
	.queue              = fio_nvmeof_queue,
	.commit             = fio_nvmeof_commit,
	.getevents          = fio_nvmeof_getevents,
	.event              = fio_nvmeof_event,
	.errdetails         = fio_nvmeof_errdetails,
	.cleanup            = fio_nvmeof_cleanup,
	.open_file          = fio_nvmeof_open_file,
	.close_file         = fio_nvmeof_close_file,
	.io_u_init          = fio_nvmeof_io_u_init,
	.io_u_free          = fio_nvmeof_io_u_free,
	.option_struct_size = sizeof(struct nvmeof_options),
	.options            = nvmeof_fio_options,
};

/* fio looks up `get_ioengine` (this engine exports no `ioengine` symbol on purpose): the
 * engine shares fio's struct layouts, so it refuses any fio but the one it was built for. */
NVMEOF_EXPORT void get_ioengine(struct ioengine_ops **ops);
NVMEOF_EXPORT void get_ioengine(struct ioengine_ops **ops)
{
	const char *running = dlsym(RTLD_DEFAULT, "fio_version_string");
	char why[200];

	if (!running || strcmp(running, FIO_NVMEOF_BUILT_FOR)) {
		nvmeof_err("fio-nvmeof: built for %s but this fio is %s: rebuild the engine against "
			"this fio (make clean && make deps && make, or make FIO_SRC=<its source>)\n",
			FIO_NVMEOF_BUILT_FOR, running ? running : "of unknown version");
		*ops = NULL;
		return;
	}
	if (nvmeof_layout_check(why, sizeof(why))) {
		nvmeof_err("fio-nvmeof: built against a %s source whose struct layout differs from "
			   "this fio's (%s): rebuild against this fio's own source (its distribution's "
			   "source package: make clean && make deps FIO_SRC=<that tree> && make)\n",
			   FIO_NVMEOF_BUILT_FOR, why);
		*ops = NULL;
		return;
	}
	*ops = &ioengine_nvmeof;
}
