/* nvmeof_files.c - fio files to namespaces: where each file connects (options or an SPDK-style
 * transport ID), the namespace probe that tells fio the sizes, and the job shapes refused. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fio.h"

#include "nvmeof_engine.h"
#include "nvmf_discovery.h"
#include "nvmeof_log.h"
#include "nvmf_host.h"
#include "nvmf_trid.h"

/* fio frees its file structures before the engine's cleanup runs, so per-file state is kept
 * on a list of the engine's own and freed per job at cleanup. */
static struct nvmeof_file *nvmeof_files;
static pthread_mutex_t nvmeof_files_lock = PTHREAD_MUTEX_INITIALIZER;

struct nvmeof_file *nvmeof_file_alloc(struct thread_data *td)
{
	struct nvmeof_file *nf = calloc(1, sizeof(*nf));

	if (!nf)
		return NULL;
	nf->owner = td;
	pthread_mutex_lock(&nvmeof_files_lock);
	nf->next = nvmeof_files;
	nvmeof_files = nf;
	pthread_mutex_unlock(&nvmeof_files_lock);
	return nf;
}

void nvmeof_files_free(struct thread_data *td)
{
	struct nvmeof_file **pp, *nf;

	pthread_mutex_lock(&nvmeof_files_lock);
	for (pp = &nvmeof_files; (nf = *pp);) {
		if (nf->owner == td) {
			*pp = nf->next;
			free(nf);
		} else {
			pp = &nf->next;
		}
	}
	pthread_mutex_unlock(&nvmeof_files_lock);
}


/* A value given both in a transport-ID filename and as an option must agree: which one wins
 * would otherwise be a silent guess about where the job writes. */
static int nvmeof_trid_agrees(const struct thread_data *td, const struct fio_file *f,
			      const char *key, const char *in_id, const char *name, const char *opt)
{
	if (!*in_id || !opt || !*opt || !strcmp(in_id, opt))
		return 0;
	nvmeof_job_err(td, "filename '%s' says %s=%s but %s=%s: give it once, or the same in "
		   "both\n", f->file_name, key, in_id, name, opt);
	return -EINVAL;
}

static int nvmeof_file_target(struct thread_data *td, struct fio_file *f, struct nvmeof_file *nf)
{
	struct nvmeof_options *o = td->eo;
	struct nvmf_trid t;
	char err[256] = "", nsbuf[16] = "", onsbuf[16] = "";
	int rc = nvmf_trid_parse(f->file_name, &t, err, sizeof(err));
	int oaf = o->adrfam == NVMEOF_ADRFAM_IPV4 ? AF_INET :
		o->adrfam == NVMEOF_ADRFAM_IPV6 ? AF_INET6 : AF_UNSPEC;
	unsigned char addr[sizeof(struct in6_addr)];

	nf->adrfam = AF_UNSPEC;
	if (rc < 0) {
		/* fio splits filename at every unescaped ':', NQNs included. */
		nvmeof_job_err(td, "filename '%s': %s%s\n", f->file_name, err, td->o.nr_files > 1 ?
			   " (fio cuts filename at ':': write '\\:' inside a transport ID)" : "");
		return rc;
	}
	if (rc) {
		if (t.nsid)
			snprintf(nsbuf, sizeof(nsbuf), "%u", t.nsid);
		if (o->nsid)
			snprintf(onsbuf, sizeof(onsbuf), "%u", o->nsid);
		if (nvmeof_trid_agrees(td, f, "traddr", t.traddr, "traddr", o->traddr) ||
		    nvmeof_trid_agrees(td, f, "trsvcid", t.trsvcid, "trsvcid", o->trsvcid) ||
		    nvmeof_trid_agrees(td, f, "subnqn", t.subnqn, "subnqn", o->subnqn) ||
		    nvmeof_trid_agrees(td, f, "ns", nsbuf, "nsid", onsbuf))
			return -EINVAL;
		if (t.adrfam != AF_UNSPEC && oaf != AF_UNSPEC && t.adrfam != oaf) {
			nvmeof_job_err(td, "filename '%s' says adrfam=%s but adrfam=%s: give it once, "
				   "or the same in both\n", f->file_name,
				   t.adrfam == AF_INET ? "IPv4" : "IPv6", oaf == AF_INET ? "ipv4" : "ipv6");
			return -EINVAL;
		}
	}
	if (rc && t.trtype && o->transport && t.trtype != o->transport) {
		nvmeof_job_err(td, "filename '%s' says trtype=%s but transport=%s: give it once, or "
			       "the same in both\n", f->file_name, t.trtype == NVMF_TRTYPE_TCP ? "TCP" :
			       "RDMA", o->transport == NVMF_TRTYPE_TCP ? "tcp" : "rdma");
		return -EINVAL;
	}
	nf->trtype = rc && t.trtype ? t.trtype : o->transport ? o->transport : NVMF_TRTYPE_RDMA;
	if (nf->trtype != NVMF_TRTYPE_TCP && (o->hdr_digest || o->data_digest)) {
		nvmeof_job_err(td, "%s=1 needs transport=tcp (NVMe/RDMA has no digests)\n",
			       o->hdr_digest ? "hdr_digest" : "data_digest");
		return -EINVAL;
	}
	/* The kernel and SPDK initiators always put a write that fits in the capsule; the
	 * kernel target (6.1, in the testbed) never answered one sent for R2T instead. */
	if (nf->trtype == NVMF_TRTYPE_TCP && o->inline_data == NVMF_INLINE_OFF) {
		nvmeof_job_err(td, "inline_data=off with transport=tcp: NVMe/TCP writes that fit the "
			       "capsule go in it; larger ones go by R2T\n");
		return -EINVAL;
	}
	snprintf(nf->traddr, sizeof(nf->traddr), "%s", rc && t.traddr[0] ? t.traddr :
		 o->traddr ? o->traddr : "");
	snprintf(nf->trsvcid, sizeof(nf->trsvcid), "%s", rc && t.trsvcid[0] ? t.trsvcid :
		 o->trsvcid && *o->trsvcid ? o->trsvcid : "4420");
	nf->nr_paths = 1;
	/* discovery=: the paths (and maybe the subsystem) come from the probe's discovery read */
	if (o->discovery && *o->discovery) {
		struct nvmf_addr d;
		unsigned n;

		if ((rc && t.traddr[0]) || (o->traddr && *o->traddr)) {
			nvmeof_job_err(td, "discovery=%s and traddr=%s: the paths come from one of them, "
				       "give one\n", o->discovery, rc && t.traddr[0] ? t.traddr : o->traddr);
			return -EINVAL;
		}
		nf->ns.nsid = rc && t.nsid ? t.nsid : o->nsid ? o->nsid : 1;
		nf->adrfam = rc && t.adrfam != AF_UNSPEC ? t.adrfam : oaf;
		/* setup again (fio calls it more than once): what discovery found stays */
		if (nf->discovered) {
			memcpy(nf->traddr, nf->paths[0].traddr, sizeof(nf->traddr));
			memcpy(nf->trsvcid, nf->paths[0].trsvcid, sizeof(nf->trsvcid));
			memcpy(nf->subnqn, nf->disc_subnqn, sizeof(nf->subnqn));
			return 0;
		}
		if (nvmf_addr_list_parse("discovery", o->discovery, &d, 1, &n, err, sizeof(err))) {
			nvmeof_job_err(td, "%s\n", err);
			return -EINVAL;
		}
		if (strlen(o->subnqn ? o->subnqn : "") > NVMF_NQN_MAX) {
			nvmeof_job_err(td, "subnqn is %zu characters long: an NQN has at most %d\n",
				       strlen(o->subnqn), NVMF_NQN_MAX);
			return -EINVAL;
		}
		nf->nr_paths = 0;
		return 0;
	}
	/* traddr= may list several paths (multipath); a transport ID names one. */
	if (!(rc && t.traddr[0]) && nf->traddr[0]) {
		if (nvmf_addr_list_parse("traddr", o->traddr, nf->paths, NVMF_MAX_PATHS, &nf->nr_paths,
					 err, sizeof(err))) {
			nvmeof_job_err(td, "%s\n", err);
			return -EINVAL;
		}
		for (unsigned i = 0; i < nf->nr_paths; i++)
			if (!nf->paths[i].trsvcid[0])
				snprintf(nf->paths[i].trsvcid, sizeof(nf->paths[i].trsvcid), "%s",
					 nf->trsvcid);
		snprintf(nf->traddr, sizeof(nf->traddr), "%s", nf->paths[0].traddr);
		snprintf(nf->trsvcid, sizeof(nf->trsvcid), "%s", nf->paths[0].trsvcid);
	} else {
		snprintf(nf->paths[0].traddr, sizeof(nf->paths[0].traddr), "%s", nf->traddr);
		snprintf(nf->paths[0].trsvcid, sizeof(nf->paths[0].trsvcid), "%s", nf->trsvcid);
	}
	if (o->host_traddr && strchr(o->host_traddr, ',')) {
		unsigned commas = 0;

		for (const char *c = o->host_traddr; *c; c++)
			commas += *c == ',';
		if (commas + 1 != nf->nr_paths) {
			nvmeof_job_err(td, "host_traddr lists %u addresses but traddr %u path(s): give "
				       "one for all paths or one per path\n", commas + 1, nf->nr_paths);
			return -EINVAL;
		}
	}
	snprintf(nf->subnqn, sizeof(nf->subnqn), "%s", rc && t.subnqn[0] ? t.subnqn :
		 o->subnqn ? o->subnqn : "");
	nf->adrfam = rc && t.adrfam != AF_UNSPEC ? t.adrfam : oaf;
	nf->ns.nsid = rc && t.nsid ? t.nsid : o->nsid ? o->nsid : 1;
	if (!nf->traddr[0]) {
		nvmeof_job_err(td, "traddr is required (set traddr=, discovery= or a transport ID as "
			       "filename)\n");
		return -EINVAL;
	}
	if (!nf->subnqn[0]) {
		nvmeof_job_err(td, "subnqn is required (set subnqn= or a transport ID as filename)\n");
		return -EINVAL;
	}
	/* nf->subnqn would hold a cut one: measure what was given. */
	if (strlen(rc && t.subnqn[0] ? t.subnqn : o->subnqn) > NVMF_NQN_MAX) {
		nvmeof_job_err(td, "subnqn is %zu characters long: an NQN has at most %d\n",
			   strlen(rc && t.subnqn[0] ? t.subnqn : o->subnqn), NVMF_NQN_MAX);
		return -EINVAL;
	}
	if (!nvmf_port_valid(nf->trsvcid)) {
		nvmeof_job_err(td, "trsvcid '%s' is not a port number (1..65535)\n", nf->trsvcid);
		return -EINVAL;
	}
	/* A literal address of the other family: say so, not getaddrinfo's "Address family for
	 * hostname not supported". */
	if (nf->adrfam == AF_INET6 && inet_pton(AF_INET, nf->traddr, addr) == 1) {
		nvmeof_job_err(td, "traddr '%s' is an IPv4 address but adrfam is ipv6\n", nf->traddr);
		return -EINVAL;
	}
	if (nf->adrfam == AF_INET && inet_pton(AF_INET6, nf->traddr, addr) == 1) {
		nvmeof_job_err(td, "traddr '%s' is an IPv6 address but adrfam is ipv4\n", nf->traddr);
		return -EINVAL;
	}
	return 0;
}

int nvmeof_job_trtype(struct thread_data *td)
{
	struct nvmeof_options *o = td->eo;
	struct fio_file *f;
	unsigned int i;

	for_each_file(td, f, i)
		if (FILE_ENG_DATA(f))
			return ((struct nvmeof_file *)FILE_ENG_DATA(f))->trtype;
	return o->transport ? o->transport : NVMF_TRTYPE_RDMA;
}

int nvmeof_lane_opts(struct thread_data *td, const struct nvmeof_file *nf,
			    struct nvmf_lane_opts *lo, char *hostnqn, size_t nqnlen)
{
	struct nvmeof_options *o = td->eo;
	char err[256] = "";
	int rc;

	memset(lo, 0, sizeof(*lo));
	rc = nvmf_host_identity(o->hostnqn, o->hostid, "/etc/nvme", "/etc/machine-id", hostnqn,
				nqnlen, lo->hostid, err, sizeof(err));
	if (rc) {
		nvmeof_job_err(td, "%s\n", err);
		return rc;
	}
	lo->trtype = nf->trtype;
	lo->hdr_digest = (int)o->hdr_digest;
	lo->data_digest = (int)o->data_digest;
	lo->traddr = nf->traddr;
	lo->trsvcid = nf->trsvcid;
	lo->adrfam = nf->adrfam;
	lo->host_traddr = o->host_traddr && *o->host_traddr && !strchr(o->host_traddr, ',') ?
			  o->host_traddr : NULL;
	lo->subnqn = nf->subnqn;
	lo->hostnqn = hostnqn;
	lo->dhchap_secret = o->dhchap_secret;
	lo->dhchap_ctrl_secret = o->dhchap_ctrl_secret;
	lo->dhchap_secret_file = o->dhchap_secret_file;
	lo->dhchap_digests = o->dhchap_digests;
	lo->dhchap_dhgroups = o->dhchap_dhgroups;
	lo->connect_timeout_ms = o->connect_timeout;
	lo->ack_timeout = (uint8_t)o->ack_timeout;
	lo->inline_data = o->inline_data;    /* the option's values are enum nvmf_inline */
	lo->io_depth = td->o.iodepth;
	/* fio's jobs in this run, numjobs' clones included (a clone's o.numjobs is 1): the lanes
	 * that share this host's CPUs, for inline_data=auto. */
	lo->host_jobs = thread_number;
	lo->use_events = o->completion != NVMEOF_COMPLETION_POLL;   /* hybrid sleeps too */
	lo->kato_ms = o->kato;
	/* Tests only: a lane that asks for keep-alive and never sends it (to see it lost). */
	lo->keepalive_off = nvmeof_test_knob("FIO_NVMEOF_TEST_KEEPALIVE_OFF") != NULL;
	return 0;
}

const char *nvmeof_path_host_traddr(struct thread_data *td, unsigned i, char *buf, size_t len)
{
	struct nvmeof_options *o = td->eo;
	const char *p = o->host_traddr;

	if (!p || !*p)
		return NULL;
	while (i && (p = strchr(p, ',')))
		p++, i--;
	if (!p)
		return NULL;
	snprintf(buf, len, "%.*s", (int)strcspn(p, ","), p);
	return buf[0] ? buf : NULL;
}

static int nvmeof_same_subsystem(const struct nvmeof_file *a, const struct nvmeof_file *b)
{
	return !strcmp(a->traddr, b->traddr) && !strcmp(a->trsvcid, b->trsvcid) &&
		!strcmp(a->subnqn, b->subnqn);
}

/* The namespace probe runs in a child process: librdmacm opens the RDMA devices once per
 * process and keeps them, and the kernel refuses a uverbs file used across fork.  fio forks
 * jobs from this process, so it must never touch the devices itself.
 *
 * Why the child may call getaddrinfo, librdmacm and malloc although fio's process has other
 * threads by now (its helper thread starts before setup): it is in the position of every fio
 * job process, which fio forks from this same process, with the same threads running, after
 * setup, and in which every engine's init runs (fio's own rdma engine calls gethostbyname and
 * librdmacm there).  glibc's fork resets, in the child, the locks those calls take that another
 * thread could hold (malloc's arenas, the stdio list, the dynamic loader's: libibverbs dlopens
 * its providers); librdmacm and libibverbs were never initialised in this process, so their
 * own state is fresh in the child; and the child ends in _exit, running no exit handler and
 * flushing no stdio of the parent's.  engine_output runs 32 probes while fio's helper thread
 * prints the ETA every 250 ms. */
struct nvmeof_probe_result {
	int                 rc;
	char                err[NVMF_ERR_LEN];
	struct nvmf_ns_info ns;
};

/* discovery=: what the child's discovery read gave, sent before the namespaces. */
struct nvmeof_disc_result {
	int              rc;
	char             err[NVMF_ERR_LEN];
	char             subnqn[NVMF_NQN_MAX + 1];
	struct nvmf_addr paths[NVMF_MAX_PATHS];
	unsigned         nr_paths;
	char             note[256];
};

/* Every file of the job takes the paths and subsystem discovery found. */
static void nvmeof_disc_apply(struct thread_data *td, const struct nvmeof_disc_result *d)
{
	struct fio_file *f;
	unsigned int i;

	for_each_file(td, f, i) {
		struct nvmeof_file *nf = FILE_ENG_DATA(f);

		memcpy(nf->paths, d->paths, sizeof(nf->paths));
		nf->nr_paths = d->nr_paths;
		/* same-sized fields: plain copies */
		memcpy(nf->subnqn, d->subnqn, sizeof(nf->subnqn) < sizeof(d->subnqn) ?
		       sizeof(nf->subnqn) : sizeof(d->subnqn));
		nf->subnqn[sizeof(nf->subnqn) - 1] = 0;
		memcpy(nf->traddr, d->paths[0].traddr, sizeof(nf->traddr));
		memcpy(nf->trsvcid, d->paths[0].trsvcid, sizeof(nf->trsvcid));
		memcpy(nf->disc_note, d->note, sizeof(nf->disc_note));
		memcpy(nf->disc_subnqn, nf->subnqn, sizeof(nf->disc_subnqn));
		nf->discovered = 1;
	}
}

/* In the probe child: read the discovery log over the job's transport, take that transport's
 * paths to subnqn (or to the one subsystem it lists); what another transport offered is
 * skipped and counted on the start line. */
static void nvmeof_discover_paths(struct thread_data *td, struct nvmeof_disc_result *d)
{
	struct nvmeof_options *o = td->eo;
	struct nvmf_lane_opts lo;
	struct nvmf_disc_entry *e = NULL;
	struct nvmf_addr at;
	char hostnqn[NVMF_NQN_MAX + 1];
	uint64_t genctr = 0;
	unsigned nr = 0, n, other = 0, refs = 0;
	char other_s[48], refs_s[64];

	memset(d, 0, sizeof(*d));
	d->rc = nvmeof_lane_opts(td, FILE_ENG_DATA(td->files[0]), &lo, hostnqn, sizeof(hostnqn));
	if (d->rc) {
		snprintf(d->err, sizeof(d->err), "host identity");
		return;
	}
	nvmf_addr_list_parse("discovery", o->discovery, &at, 1, &n, d->err, sizeof(d->err));
	lo.traddr = at.traddr;
	lo.trsvcid = at.trsvcid[0] ? at.trsvcid : NULL;
	d->rc = nvmf_discover(&lo, &e, &nr, &genctr, d->err, sizeof(d->err));
	if (!d->rc) {
		d->rc = nvmf_disc_paths(e, nr, lo.trtype, o->subnqn, d->paths, NVMF_MAX_PATHS,
					&d->nr_paths, d->subnqn, sizeof(d->subnqn), &other, d->err,
					sizeof(d->err));
		refs = nvmf_disc_referrals_other(e, nr, lo.trtype);
	}
	snprintf(other_s, sizeof(other_s), ", %u entr%s of other transports skipped", other,
		 other == 1 ? "y" : "ies");
	snprintf(refs_s, sizeof(refs_s), ", %u referral%s over other transports not followed",
		 refs, refs == 1 ? "" : "s");
	if (!d->rc)
		snprintf(d->note, sizeof(d->note), "discovery %.64s:%.8s (generation %llu): %u %s "
			 "path(s) of %u record(s)%s%s", at.traddr,
			 at.trsvcid[0] ? at.trsvcid : NVMF_DISCOVERY_PORT,
			 (unsigned long long)genctr, d->nr_paths, nvmf_disc_transport_word(lo.trtype),
			 nr, other ? other_s : "", refs ? refs_s : "");
	free(e);
}

static int nvmeof_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int nvmeof_read_all(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

static void nvmeof_probe_child(struct thread_data *td, int fd)
{
	struct nvmf_lane *probe = NULL;
	struct nvmf_lane_opts lo;
	struct nvmeof_probe_result r;
	char hostnqn[NVMF_NQN_MAX + 1];
	struct fio_file *f;
	unsigned int i;
	int rc;

	memset(&r, 0, sizeof(r));
	if (((struct nvmeof_options *)td->eo)->discovery &&
	    *((struct nvmeof_options *)td->eo)->discovery) {
		struct nvmeof_disc_result d;

		nvmeof_discover_paths(td, &d);
		if (nvmeof_write_all(fd, &d, sizeof(d)) || d.rc)
			_exit(0);
		nvmeof_disc_apply(td, &d);
	}
	rc = nvmeof_lane_opts(td, FILE_ENG_DATA(td->files[0]), &lo, hostnqn, sizeof(hostnqn));
	if (!rc) {
		const struct nvmeof_file *nf0 = FILE_ENG_DATA(td->files[0]);
		unsigned nr = nf0->nr_paths > 1 ? nf0->nr_paths : 1;
		char host[256], perr[NVMF_ERR_LEN];
		size_t o = 0;

		/* Multipath: the first path that answers tells the namespaces; the job starts on
		 * the paths that answer then.  None: each path's reason. */
		lo.no_io_queue = 1;
		for (unsigned p = 0; p < nr; p++) {
			if (nr > 1) {
				lo.traddr = nf0->paths[p].traddr;
				lo.trsvcid = nf0->paths[p].trsvcid;
				lo.host_traddr = nvmeof_path_host_traddr(td, p, host, sizeof(host));
			}
			rc = nvmf_lane_connect(&probe, &lo, perr, sizeof(perr));
			if (!rc || rc == -EINVAL || nr == 1) {
				snprintf(r.err, sizeof(r.err), "%s", perr);
				break;
			}
			if (o < sizeof(r.err))
				o += (size_t)snprintf(r.err + o, sizeof(r.err) - o, "%spath %u (%s:%s): "
						      "%.300s", p ? "; " : "no path answered: ",
						      p + 1, nf0->paths[p].traddr,
						      nf0->paths[p].trsvcid, perr);
		}
	} else {
		snprintf(r.err, sizeof(r.err), "host identity");
	}
	for_each_file(td, f, i) {
		struct nvmeof_file *nf = FILE_ENG_DATA(f);

		if (!rc) {
			rc = nvmf_lane_identify_ns(probe, nf->ns.nsid, &r.ns);
			if (rc)
				snprintf(r.err, sizeof(r.err), "%s", nvmf_lane_err(probe));
		}
		r.rc = rc;
		if (nvmeof_write_all(fd, &r, sizeof(r)))
			break;
	}
	nvmf_lane_destroy(probe);
	close(fd);
	_exit(0);
}

static int nvmeof_probe(struct thread_data *td)
{
	struct nvmeof_probe_result r;
	struct fio_file *f;
	unsigned int i;
	int pfd[2], status, rc = 0;
	pid_t pid;

	if (pipe(pfd))
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		rc = -errno;
		close(pfd[0]);
		close(pfd[1]);
		return rc;
	}
	if (pid == 0) {
		close(pfd[0]);
		nvmeof_probe_child(td, pfd[1]);
	}
	close(pfd[1]);
	if (((struct nvmeof_options *)td->eo)->discovery &&
	    *((struct nvmeof_options *)td->eo)->discovery) {
		struct nvmeof_disc_result d;

		if (nvmeof_read_all(pfd[0], &d, sizeof(d))) {
			nvmeof_job_err(td, "the namespace probe process ended early\n");
			rc = -EIO;
		} else if (d.rc) {
			nvmeof_job_err(td, "%s\n", d.err);
			rc = d.rc;
		} else {
			nvmeof_disc_apply(td, &d);
		}
		if (rc)
			goto done;
	}
	for_each_file(td, f, i) {
		struct nvmeof_file *nf = FILE_ENG_DATA(f);

		if (nvmeof_read_all(pfd[0], &r, sizeof(r))) {
			nvmeof_job_err(td, "the namespace probe process ended early\n");
			rc = -EIO;
			break;
		}
		if (r.rc) {
			nvmeof_job_err(td, "%s\n", r.err);
			rc = r.rc;
			break;
		}
		nf->ns = r.ns;
		nf->lba_shift = (unsigned)__builtin_ctz(nf->ns.lba_size);
		f->filetype = FIO_TYPE_BLOCK;
		f->real_file_size = nf->ns.nsze * nf->ns.lba_size;
		fio_file_set_size_known(f);
	}
done:
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return rc;
}

/* setup: runs before the job's files are sized (in fio's main process by default).  Each
 * file is resolved to a namespace over a short admin-only connection, so fio knows sizes. */
int fio_nvmeof_setup(struct thread_data *td)
{
	struct nvmeof_file *first = NULL;
	struct fio_file *f;
	unsigned int i;
	int rc = 0;

	if (nvmeof_hide_secrets(td))
		return 1;
	for_each_file(td, f, i) {
		struct nvmeof_file *nf = FILE_ENG_DATA(f);

		if (!nf) {
			nf = nvmeof_file_alloc(td);
			if (!nf) {
				rc = -ENOMEM;
				break;
			}
			FILE_SET_ENG_DATA(f, nf);
		}
		if ((rc = nvmeof_file_target(td, f, nf)))
			break;
		if (!first) {
			first = nf;
		} else if (!nvmeof_same_subsystem(first, nf)) {
			nvmeof_job_err(td, "names two subsystems (%s at %s:%s and %s at %s:%s): "
				"one job is one controller connection; use one job per subsystem\n",
				first->subnqn, first->traddr, first->trsvcid, nf->subnqn,
				nf->traddr, nf->trsvcid);
			rc = -EINVAL;
			break;
		}
	}
	/* The host identity is checked here, where its error is the job's one line (in the
	 * probe process it would be followed by the probe's own). */
	if (!rc && first) {
		struct nvmf_lane_opts lo;
		char hostnqn[NVMF_NQN_MAX + 1];

		rc = nvmeof_lane_opts(td, first, &lo, hostnqn, sizeof(hostnqn));
	}
	if (!rc)
		rc = nvmeof_probe(td);
	/* A fabric namespace has no page cache here to invalidate (fio would try a block ioctl). */
	td->o.invalidate_cache = 0;
	if (rc)
		td_verror(td, -rc, "nvmeof setup");
	return rc ? 1 : 0;
}

/* Shapes the engine does not carry are refused here, never at I/O time. */
int nvmeof_check_shapes(struct thread_data *td, const struct nvmeof_file *nf)
{
	struct thread_options *o = &td->o;
	uint32_t lba = nf->ns.lba_size;

	if (nf->ns.ms) {
		nvmeof_job_err(td, "namespace %u has %u bytes of metadata per block: not supported\n",
			nf->ns.nsid, nf->ns.ms);
		return -EOPNOTSUPP;
	}
	for (int d = DDIR_READ; d < DDIR_RWDIR_CNT; d++) {
		/* Only the directions the job does (a write job's verify reads use its write
		 * sizes), so the line names the one that matters. */
		if ((d == DDIR_READ && !td_read(td)) || (d == DDIR_WRITE && !td_write(td)) ||
		    (d == DDIR_TRIM && !td_trim(td)))
			continue;
		/* bssplit first: fio sets min_bs/max_bs from its entries, and this line names
		 * the entry. */
		for (unsigned j = 0; j < o->bssplit_nr[d]; j++) {
			if (o->bssplit[d][j].bs % lba) {
				nvmeof_job_err(td, "bssplit size %llu (%s) is not a multiple of namespace "
					"%u's LBA size %u\n", (unsigned long long)o->bssplit[d][j].bs,
					io_ddir_name(d), nf->ns.nsid, lba);
				return -EINVAL;
			}
		}
		if (o->min_bs[d] % lba || o->max_bs[d] % lba) {
			nvmeof_job_err(td, "bs %llu..%llu (%s) is not a multiple of namespace %u's LBA "
				"size %u\n", (unsigned long long)o->min_bs[d],
				(unsigned long long)o->max_bs[d], io_ddir_name(d), nf->ns.nsid, lba);
			return -EINVAL;
		}
		if (o->ba[d] % lba) {
			nvmeof_job_err(td, "blockalign %llu is not a multiple of namespace %u's LBA size %u\n",
				(unsigned long long)o->ba[d], nf->ns.nsid, lba);
			return -EINVAL;
		}
	}
	if (o->start_offset >= nf->ns.nsze * lba) {
		nvmeof_job_err(td, "offset %llu is past the end of namespace %u (%llu bytes)\n",
			(unsigned long long)o->start_offset, nf->ns.nsid,
			(unsigned long long)(nf->ns.nsze * lba));
		return -EINVAL;
	}
	if (o->start_offset % lba) {
		nvmeof_job_err(td, "offset %llu is not a multiple of namespace %u's LBA size %u\n",
			(unsigned long long)o->start_offset, nf->ns.nsid, lba);
		return -EINVAL;
	}
	return 0;
}

/* The rule: iodepth may not exceed the entries the controller allows one I/O queue
 * (CAP.MQES+1) nor the commands it takes at once (MAXCMD).  Below that, I/Os that do not fit
 * the queue the lane negotiated wait in the engine; above it, the depth asked for could never
 * be in flight at the target, and fio would still allocate a buffer for each. */
unsigned nvmeof_depth_limit(const struct nvmf_lane_info *in, unsigned *entries)
{
	*entries = nvme_cap_mqes(in->cap) + 1u;
	return in->maxcmd && in->maxcmd < *entries ? in->maxcmd : *entries;
}

int nvmeof_check_depth(struct thread_data *td, const struct nvmf_lane_info *in)
{
	unsigned entries, limit = nvmeof_depth_limit(in, &entries);

	if (td->o.iodepth <= limit)
		return 0;
	nvmeof_job_err(td, "iodepth %u is more than the controller takes on one I/O queue: at most "
		   "%u (CAP.MQES+1 = %u entries, MAXCMD %u); lower iodepth, or use numjobs for more "
		   "lanes\n", td->o.iodepth, limit, entries, in->maxcmd);
	return -EINVAL;
}
