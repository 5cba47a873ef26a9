/* nvmeof_options.c - the engine's job options, as fio's --enghelp lists them, and the checks
 * fio's parser cannot make itself. */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fio.h"
#include "optgroup.h"

#include "nvmeof_engine.h"
#include "nvmeof_log.h"

#define NVMEOF_CUDA_DEVICES_MAX 64
#define NVMEOF_CUDA_ORDINAL_MAX 1023

int nvmeof_cuda_device_pick(const char *list, unsigned job_index, int *dev, char *err,
			    size_t errlen)
{
	int devs[NVMEOF_CUDA_DEVICES_MAX];
	unsigned n = 0;
	const char *p = list;

	if (!p || !*p) {
		snprintf(err, errlen, "cuda_device is empty: give a device ordinal (0) or a list "
			 "(0,1,2,3)");
		return -EINVAL;
	}
	for (;;) {
		char *end;
		long v;

		if (*p < '0' || *p > '9') {
			snprintf(err, errlen, "cuda_device '%s': entry %u is not a device ordinal "
				 "(a number 0..%d; a list is 0,1,2,3)", list, n + 1,
				 NVMEOF_CUDA_ORDINAL_MAX);
			return -EINVAL;
		}
		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || v > NVMEOF_CUDA_ORDINAL_MAX) {
			snprintf(err, errlen, "cuda_device '%s': entry %u is larger than %d", list,
				 n + 1, NVMEOF_CUDA_ORDINAL_MAX);
			return -EINVAL;
		}
		if (n == NVMEOF_CUDA_DEVICES_MAX) {
			snprintf(err, errlen, "cuda_device '%s': more than %d entries", list,
				 NVMEOF_CUDA_DEVICES_MAX);
			return -EINVAL;
		}
		devs[n++] = (int)v;
		if (!*end)
			break;
		/* ':' as fio's libcufile engine separates its gpu_dev_ids */
		if (*end != ',' && *end != ':') {
			snprintf(err, errlen, "cuda_device '%s': unexpected '%c' after entry %u "
				 "(a list is 0,1,2,3 or 0:1:2:3)", list, *end, n);
			return -EINVAL;
		}
		p = end + 1;
	}
	*dev = devs[job_index % n];
	return 0;
}

/* fio's parser calls this when the option is given: a bad list fails the job file at once,
 * before any job starts. */
static int nvmeof_cuda_device_cb(void *data, const char *str)
{
	char err[160];
	int dev;

	(void)data;
	if (nvmeof_cuda_device_pick(str, 0, &dev, err, sizeof(err))) {
		nvmeof_err("nvmeof: %s\n", err);
		return 1;
	}
	return 0;
}

/* "N" or "auto": *n and *autom, or -EINVAL with the reason in err. */
static int nvmeof_io_queues_parse(const char *str, unsigned *n, int *autom, char *err, size_t errlen)
{
	char *end;
	long v;

	*autom = 0;
	if (str && !strcmp(str, "auto")) {
		*autom = 1;
		*n = NVMF_MAX_IO_QUEUES;
		return 0;
	}
	errno = 0;
	v = str && *str >= '0' && *str <= '9' ? strtol(str, &end, 10) : -1;
	if (v < 1 || v > NVMF_MAX_IO_QUEUES || errno || *end) {
		snprintf(err, errlen, "io_queues=%s: give 1..%d I/O queue pairs, or auto (one per CPU "
			 "the job may use, at most 4, as the controller grants)", str ? str : "",
			 NVMF_MAX_IO_QUEUES);
		return -EINVAL;
	}
	*n = (unsigned)v;
	return 0;
}

static int nvmeof_io_queues_cb(void *data, const char *str)
{
	char err[200];
	unsigned n;
	int autom;

	(void)data;
	if (nvmeof_io_queues_parse(str, &n, &autom, err, sizeof(err))) {
		nvmeof_err("nvmeof: %s\n", err);
		return 1;
	}
	return 0;
}

/* In the job's own thread at init: fio has applied cpus_allowed by then. */
int nvmeof_io_queues_want(struct thread_data *td, unsigned *n, int *autom, char *why,
			  size_t whylen)
{
	struct nvmeof_options *o = td->eo;
	char err[200];
	cpu_set_t set;
	int rc, cpus;

	if ((rc = nvmeof_io_queues_parse(o->io_queues ? o->io_queues : "1", n, autom, err,
					 sizeof(err)))) {
		nvmeof_job_err(td, "%s\n", err);
		td_verror(td, -rc, "nvmeof io_queues");
		return rc;
	}
	why[0] = 0;
	if (*autom) {
		cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
		*n = nvmf_policy_auto_io_queues(cpus < 1 ? 1 : (unsigned)cpus, why, whylen);
	}
	return 0;
}

/* Whole-number options, range-checked here rather than with fio's minval/maxval: fio casts an
 * int option to int before comparing (kato=-1 passed as 4294967295 ms), and it splits a value
 * at '-' and keeps the last part that parses, so connect_timeout=-5 printed fio's "min value"
 * line and then ran with the default (nsid=-3 ran on namespace 1).  A value refused here stays
 * refused for the rest of that option's parse: the split-off "5" cannot undo it. */
struct nvmeof_int_opt {
	const char *name;
	size_t      off;
	long long   min, max;
	const char *unit;
	unsigned    bit;
};

static int nvmeof_int_store(void *data, const long long *val, const struct nvmeof_int_opt *d)
{
	struct nvmeof_options *o = data;

	if (o->bad_opts & d->bit)
		return 1;
	if (*val < d->min || *val > d->max) {
		nvmeof_err("nvmeof: %s=%lld is out of range: give %lld..%lld%s\n", d->name, *val,
			   d->min, d->max, d->unit);
		o->bad_opts |= d->bit;
		return 1;
	}
	*(unsigned int *)((char *)o + d->off) = (unsigned int)*val;
	return 0;
}

#define NVMEOF_INT_OPT(field, bitno, lo, hi, unit_)					\
	static int nvmeof_##field##_cb(void *data, long long *val)			\
	{										\
		static const struct nvmeof_int_opt d = {				\
			.name = #field, .off = offsetof(struct nvmeof_options, field),	\
			.min = (lo), .max = (hi), .unit = (unit_), .bit = 1u << (bitno),	\
		};									\
		return nvmeof_int_store(data, val, &d);				\
	}

/* 0xffffffff is the broadcast NSID, never one namespace. */
NVMEOF_INT_OPT(nsid, 0, 1, 0xfffffffeLL, " (a namespace ID)")
NVMEOF_INT_OPT(poll_us, 6, 0, 1000000, " microseconds")
NVMEOF_INT_OPT(ack_timeout, 7, 0, 31, " (4.096 us x 2^N; 0: the RDMA CM's)")
NVMEOF_INT_OPT(submit_batch, 8, 0, 65536, " I/Os (0: auto)")

/* Times: milliseconds, or a number with a unit as fio's own time options take them (ms, s, m,
 * h), so that nvme-cli's seconds can be written as meant: ctrl_loss_tmo=600s.  These options
 * are strings to fio, which hands this the text: its integer parser reads "10s" as 10 and "10m"
 * as 10 MiB, silently. */
static int nvmeof_ms_parse(const char *str, long long *ms)
{
	static const struct { const char *suffix; long long mult; } units[] = {
		{ "", 1 }, { "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 },
	};
	const char *p = str;
	char *end;
	long long v;
	size_t i;

	if (!p)
		return -EINVAL;
	if (*p == '-')
		p++;
	if (*p < '0' || *p > '9')
		return -EINVAL;
	errno = 0;
	v = strtoll(str, &end, 10);
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(end, units[i].suffix))
			continue;
		if (errno == ERANGE || v > LLONG_MAX / units[i].mult)
			*ms = LLONG_MAX;	/* out of any range */
		else
			*ms = v * units[i].mult;
		return 0;
	}
	return -EINVAL;
}

struct nvmeof_ms_opt {
	const char *name;
	size_t      off;
	long long   min, max;
	const char *unit;
};

static int nvmeof_ms_store(void *data, const char *str, const struct nvmeof_ms_opt *d)
{
	struct nvmeof_options *o = data;
	long long ms;

	if (nvmeof_ms_parse(str, &ms)) {
		nvmeof_err("nvmeof: %s=%s is not a time: give milliseconds (%s=5000) or a number "
			   "with a unit: ms, s, m or h (%s=5s)\n", d->name, str ? str : "",
			   d->name, d->name);
		return 1;
	}
	if (ms < d->min || ms > d->max) {
		nvmeof_err("nvmeof: %s=%s is out of range: give %lld..%lld%s\n", d->name, str,
			   d->min, d->max, d->unit);
		return 1;
	}
	*(unsigned int *)((char *)o + d->off) = (unsigned int)ms;
	return 0;
}

#define NVMEOF_MS_OPT(field, lo, hi, unit_)						\
	static int nvmeof_##field##_cb(void *data, const char *str)			\
	{										\
		static const struct nvmeof_ms_opt d = {					\
			.name = #field, .off = offsetof(struct nvmeof_options, field),	\
			.min = (lo), .max = (hi), .unit = (unit_),			\
		};									\
		return nvmeof_ms_store(data, str, &d);					\
	}

NVMEOF_MS_OPT(connect_timeout, 1, 3600000, " milliseconds")
NVMEOF_MS_OPT(io_timeout, 10, 86400000, " milliseconds")
NVMEOF_MS_OPT(kato, 0, 3600000, " milliseconds (0: no keep-alive)")
NVMEOF_MS_OPT(ctrl_loss_tmo, 0, 86400000, " milliseconds (0: never reconnect)")
NVMEOF_MS_OPT(reconnect_delay, 10, 3600000, " milliseconds")
NVMEOF_MS_OPT(stop_grace, 0, 86400000, " milliseconds (0: auto)")

struct fio_option nvmeof_fio_options[] = {
	{
		.name     = "traddr",
		.lname    = "NVMe/RDMA target address",
		.type     = FIO_OPT_STR_STORE,
		.off1     = offsetof(struct nvmeof_options, traddr),
		.help     = "Target address (IPv4/IPv6 of the target's RDMA port), or a comma list "
			    "of paths to one subsystem (ADDR, ADDR:PORT, [V6]:PORT): multipath; "
			    "required unless filename is a transport ID",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "trsvcid",
		.lname    = "NVMe/RDMA service ID",
		.type     = FIO_OPT_STR_STORE,
		.off1     = offsetof(struct nvmeof_options, trsvcid),
		.help     = "Target port (RDMA CM service ID), 1..65535 (default 4420)",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "adrfam",
		.lname    = "Address family",
		.type     = FIO_OPT_STR,
		.off1     = offsetof(struct nvmeof_options, adrfam),
		.def      = "auto",
		.help     = "Address family of traddr",
		.posval   = {
			{ .ival = "auto", .oval = NVMEOF_ADRFAM_AUTO, .help = "Infer from traddr" },
			{ .ival = "ipv4", .oval = NVMEOF_ADRFAM_IPV4, .help = "IPv4" },
			{ .ival = "ipv6", .oval = NVMEOF_ADRFAM_IPV6, .help = "IPv6" },
		},
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "subnqn",
		.lname    = "Subsystem NQN",
		.type     = FIO_OPT_STR_STORE,
		.off1     = offsetof(struct nvmeof_options, subnqn),
		.help     = "NVMe subsystem NQN to connect to; required unless filename is a "
			    "transport ID",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "nsid",
		.lname    = "Namespace ID",
		.type     = FIO_OPT_INT,
		.off1     = offsetof(struct nvmeof_options, nsid),
		.cb       = nvmeof_nsid_cb,
		.help     = "Namespace ID for files that are not transport IDs (default 1)",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "host_traddr",
		.lname    = "Host transport address",
		.type     = FIO_OPT_STR_STORE,
		.off1     = offsetof(struct nvmeof_options, host_traddr),
		.help     = "Local address to connect from (picks the HCA/port), as nvme-cli's "
			    "--host-traddr; with several paths, one address or a comma list of one "
			    "per path",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "hostnqn",
		.lname    = "Host NQN",
		.type     = FIO_OPT_STR_STORE,
		.off1     = offsetof(struct nvmeof_options, hostnqn),
		.help     = "Host NQN (default: /etc/nvme/hostnqn, else derived from /etc/machine-id)",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "hostid",
		.lname    = "Host ID",
		.type     = FIO_OPT_STR_STORE,
		.off1     = offsetof(struct nvmeof_options, hostid),
		.help     = "Host ID, a UUID (default: /etc/nvme/hostid, else from the hostnqn)",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "dhchap_secret",
		.lname    = "DH-HMAC-CHAP host secret",
		.type     = FIO_OPT_STR_STORE,
		.off1     = offsetof(struct nvmeof_options, dhchap_secret),
		.help     = "In-band authentication: the host's DH-HMAC-CHAP secret, "
			    "DHHC-1:XX:<base64>: as nvme gen-dhchap-key writes it (nvme-cli's "
			    "--dhchap-secret)",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "dhchap_ctrl_secret",
		.lname    = "DH-HMAC-CHAP controller secret",
		.type     = FIO_OPT_STR_STORE,
		.off1     = offsetof(struct nvmeof_options, dhchap_ctrl_secret),
		.help     = "Bidirectional authentication: the controller's DH-HMAC-CHAP secret "
			    "(nvme-cli's --dhchap-ctrl-secret); needs dhchap_secret",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "dhchap_secret_file",
		.lname    = "DH-HMAC-CHAP secret file",
		.type     = FIO_OPT_STR_STORE,
		.off1     = offsetof(struct nvmeof_options, dhchap_secret_file),
		.help     = "A file with the host's DH-HMAC-CHAP secret on its first line and "
			    "optionally the controller's on the second (keeps them out of job files "
			    "and ps)",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "dhchap_digests",
		.lname    = "DH-HMAC-CHAP hash functions",
		.type     = FIO_OPT_STR_STORE,
		.off1     = offsetof(struct nvmeof_options, dhchap_digests),
		.help     = "The hash functions the host offers, a comma list of sha256, sha384, "
			    "sha512 (default: all; the controller picks)",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "dhchap_dhgroups",
		.lname    = "DH-HMAC-CHAP DH groups",
		.type     = FIO_OPT_STR_STORE,
		.off1     = offsetof(struct nvmeof_options, dhchap_dhgroups),
		.help     = "The DH groups the host offers, a comma list of null, ffdhe2048, "
			    "ffdhe3072, ffdhe4096, ffdhe6144, ffdhe8192 (default: all)",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "connect_timeout",
		.lname    = "Connect timeout",
		.type     = FIO_OPT_STR,
		.off1     = offsetof(struct nvmeof_options, connect_timeout),
		.def      = "5000",
		.cb       = nvmeof_connect_timeout_cb,
		.help     = "Bound on each RDMA CM step and admin command while connecting: ms, "
			    "or with a unit (5s)",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "ack_timeout",
		.lname    = "RDMA ACK timeout",
		.type     = FIO_OPT_INT,
		.off1     = offsetof(struct nvmeof_options, ack_timeout),
		.def      = "0",
		.cb       = nvmeof_ack_timeout_cb,
		.help     = "Local ACK timeout of the queue pairs, 4.096 us x 2^N (1..31; 0: the "
			    "RDMA CM's default, 2^19 = 2.1 s on RoCE): how long a lost ACK or packet "
			    "stalls a queue before the NIC retransmits",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "io_timeout",
		.lname    = "I/O timeout",
		.type     = FIO_OPT_STR,
		.off1     = offsetof(struct nvmeof_options, io_timeout),
		.def      = "30000",
		.cb       = nvmeof_io_timeout_cb,
		.help     = "How long a command may go without a response before its I/O fails "
			    "with ETIMEDOUT and the lane is declared failed: ms, or with a unit (30s, "
			    "the kernel's default)",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "stop_grace",
		.lname    = "Stop grace",
		.type     = FIO_OPT_STR,
		.off1     = offsetof(struct nvmeof_options, stop_grace),
		.def      = "0",
		.cb       = nvmeof_stop_grace_cb,
		.help     = "How long the commands in flight when fio stops the job (runtime, "
			    "Ctrl-C) get from the last completion before the lane gives them up and "
			    "the job ends with an error: ms, or with a unit (10s); 0: 750 ms, or twice "
			    "the longest wait the job has seen; io_timeout still bounds each command",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "kato",
		.lname    = "Keep Alive Timeout",
		.type     = FIO_OPT_STR,
		.off1     = offsetof(struct nvmeof_options, kato),
		.def      = "0",
		.cb       = nvmeof_kato_cb,
		.alias    = "keep_alive_tmo",
		.help     = "Keep Alive Timeout asked for in the admin Connect: ms, or with a unit "
			    "(15s; 0: none); Keep Alive is then sent every KATO/2, also while fio is "
			    "idle",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "ctrl_loss_tmo",
		.lname    = "Controller loss timeout",
		.type     = FIO_OPT_STR,
		.off1     = offsetof(struct nvmeof_options, ctrl_loss_tmo),
		.def      = "0",
		.cb       = nvmeof_ctrl_loss_tmo_cb,
		.help     = "After the connection is lost, reconnect every reconnect_delay for up "
			    "to this long: ms, or with a unit (600s; 0: never reconnect, the job fails "
			    "at once)",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "reconnect_delay",
		.lname    = "Reconnect delay",
		.type     = FIO_OPT_STR,
		.off1     = offsetof(struct nvmeof_options, reconnect_delay),
		.def      = "1000",
		.cb       = nvmeof_reconnect_delay_cb,
		.help     = "Time between reconnect attempts (with ctrl_loss_tmo): ms, or with a "
			    "unit (10s)",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "retry_on_reconnect",
		.lname    = "Resubmit after reconnect",
		.type     = FIO_OPT_BOOL,
		.off1     = offsetof(struct nvmeof_options, retry_on_reconnect),
		.def      = "0",
		.help     = "I/O in flight when the connection was lost is resubmitted once after "
			    "the reconnect (0: it fails with the loss's error)",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "inline_data",
		.lname    = "In-capsule data",
		.type     = FIO_OPT_STR,
		.off1     = offsetof(struct nvmeof_options, inline_data),
		.def      = "auto",
		.help     = "Send small writes as in-capsule data",
		.posval   = {
			{ .ival = "auto", .oval = NVMF_INLINE_AUTO,
			  .help = "When the controller offers it (IOCCSZ, ICDOFF 0), except above "
				  "iodepth 4 (16 when fio runs several jobs) with a software RDMA "
				  "device and a target on this host" },
			{ .ival = "on", .oval = NVMF_INLINE_ON,
			  .help = "When the controller offers it, at any iodepth" },
			{ .ival = "off", .oval = NVMF_INLINE_OFF,
			  .help = "Never: the target always RDMA-reads write data" },
		},
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "transport",
		.lname    = "NVMe-oF transport",
		.type     = FIO_OPT_STR,
		.off1     = offsetof(struct nvmeof_options, transport),
		.def      = "auto",
		.help     = "The fabric: rdma or tcp (auto: the filename's trtype=, else rdma)",
		.posval   = {
			{ .ival = "auto", .oval = 0,
			  .help = "As the filename's trtype= says, else rdma" },
			{ .ival = "rdma", .oval = NVMF_TRTYPE_RDMA,
			  .help = "NVMe/RDMA (RoCE, InfiniBand, iWARP): the target moves data by RDMA" },
			{ .ival = "tcp", .oval = NVMF_TRTYPE_TCP,
			  .help = "NVMe/TCP: any IP network; data travels in the PDUs" },
		},
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "hdr_digest",
		.lname    = "NVMe/TCP header digest",
		.type     = FIO_OPT_BOOL,
		.off1     = offsetof(struct nvmeof_options, hdr_digest),
		.def      = "0",
		.help     = "transport=tcp: CRC32C over every PDU header, as nvme-cli's --hdr-digest",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "data_digest",
		.lname    = "NVMe/TCP data digest",
		.type     = FIO_OPT_BOOL,
		.off1     = offsetof(struct nvmeof_options, data_digest),
		.def      = "0",
		.help     = "transport=tcp: CRC32C over every PDU's data, as nvme-cli's --data-digest",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "completion",
		.lname    = "Completion mode",
		.type     = FIO_OPT_STR,
		.off1     = offsetof(struct nvmeof_options, completion),
		.def      = "poll",
		.help     = "How getevents waits for completions",
		.posval   = {
			{ .ival = "poll", .oval = NVMEOF_COMPLETION_POLL,
			  .help = "Busy-poll the completion queue (lowest latency)" },
			{ .ival = "event", .oval = NVMEOF_COMPLETION_EVENT,
			  .help = "Sleep on a completion channel (CPU-efficiency comparisons)" },
			{ .ival = "hybrid", .oval = NVMEOF_COMPLETION_HYBRID,
			  .help = "Spin for poll_us after the last completion or submission, then "
				  "sleep on the completion channel" },
		},
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "poll_us",
		.lname    = "Hybrid polling window (us)",
		.type     = FIO_OPT_INT,
		.off1     = offsetof(struct nvmeof_options, poll_us),
		.cb       = nvmeof_poll_us_cb,
		.def      = "100",
		.help     = "completion=hybrid: microseconds to spin on the completion queue after "
			    "the last completion or submission before sleeping",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "delay_submit",
		.lname    = "Post at getevents while commands are in flight",
		.type     = FIO_OPT_BOOL,
		.off1     = offsetof(struct nvmeof_options, delay_submit),
		.def      = "1",
		.help     = "Hold the I/Os committed while others are in flight and post them from "
			    "getevents, in one chain (one doorbell for several; see submit_batch); "
			    "0: every commit posts",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "submit_batch",
		.lname    = "I/Os held back per post",
		.type     = FIO_OPT_INT,
		.off1     = offsetof(struct nvmeof_options, submit_batch),
		.cb       = nvmeof_submit_batch_cb,
		.def      = "0",
		.help     = "With delay_submit, I/Os committed while others are in flight wait until "
			    "this many are held, or none is in flight, then go out in one chain; "
			    "0: 1 (at every getevents, as SPDK), or iodepth/2 with a software RDMA "
			    "device and a local target",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "nvmeof_mem",
		.lname    = "Buffer memory kind",
		.type     = FIO_OPT_STR,
		.off1     = offsetof(struct nvmeof_options, mem),
		.def      = "host",
		.help     = "Where I/O buffers live (fio's own mem= picks how host memory is allocated)",
		.posval   = {
			{ .ival = "host", .oval = NVMEOF_MEM_HOST,
			  .help = "Host memory from fio's buffer allocator, registered once" },
			{ .ival = "cuda", .oval = NVMEOF_MEM_CUDA,
			  .help = "CUDA device memory (driver API, loaded at run time): the target "
				  "moves data straight to and from the GPU" },
		},
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "cuda_device",
		.lname    = "CUDA device",
		.type     = FIO_OPT_STR_STORE,
		.off1     = offsetof(struct nvmeof_options, cuda_device),
		.cb       = nvmeof_cuda_device_cb,
		.def      = "0",
		.alias    = "gpu_dev_ids",
		.help     = "nvmeof_mem=cuda: device ordinal, or a list (0,1,2,3 or, as fio's "
			    "gpu_dev_ids, 0:1:2:3) that job i takes entry i mod n from",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "gpu_reg",
		.lname    = "GPU memory registration",
		.type     = FIO_OPT_STR,
		.off1     = offsetof(struct nvmeof_options, gpu_reg),
		.def      = "auto",
		.help     = "nvmeof_mem=cuda: how device memory is registered with the RDMA device",
		.posval   = {
			{ .ival = "auto", .oval = NVMEOF_GPU_REG_AUTO,
			  .help = "dma-buf, then peermem" },
			{ .ival = "dmabuf", .oval = NVMEOF_GPU_REG_DMABUF,
			  .help = "cuMemGetHandleForAddressRange + ibv_reg_dmabuf_mr only" },
			{ .ival = "peermem", .oval = NVMEOF_GPU_REG_PEERMEM,
			  .help = "ibv_reg_mr on the device pointer only (nvidia_peermem)" },
		},
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "gpudirect",
		.lname    = "GPUDirect RDMA",
		.type     = FIO_OPT_STR,
		.off1     = offsetof(struct nvmeof_options, gpudirect),
		.def      = "1",
		.help     = "nvmeof_mem=cuda: whether the target moves data to and from GPU memory",
		.posval   = {
			{ .ival = "1", .oval = NVMEOF_GPUDIRECT_ON,
			  .help = "GPUDirect RDMA; a job whose GPU memory cannot be registered fails" },
			{ .ival = "0", .oval = NVMEOF_GPUDIRECT_OFF,
			  .help = "staged: through registered host memory, copied to or from the GPU "
				  "per I/O" },
			{ .ival = "auto", .oval = NVMEOF_GPUDIRECT_AUTO,
			  .help = "GPUDirect where the memory registers, else staged; the start line "
				  "says which and why" },
			{ .ival = "yes", .oval = NVMEOF_GPUDIRECT_ON, .help = "as 1" },
			{ .ival = "no", .oval = NVMEOF_GPUDIRECT_OFF, .help = "as 0" },
			{ .ival = "on", .oval = NVMEOF_GPUDIRECT_ON, .help = "as 1" },
			{ .ival = "off", .oval = NVMEOF_GPUDIRECT_OFF, .help = "as 0" },
		},
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "io_queues",
		.lname    = "I/O queue pairs per lane",
		.type     = FIO_OPT_STR_STORE,
		.off1     = offsetof(struct nvmeof_options, io_queues),
		.cb       = nvmeof_io_queues_cb,
		.def      = "1",
		.help     = "I/O queue pairs of the job's controller: N (1..64; fewer granted fails "
			    "the job), or auto (one per CPU the job may use, at most 4: one thread "
			    "polls them all; fewer if the controller grants fewer)",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "io_queue_pick",
		.lname    = "Which I/O queue an I/O goes to",
		.type     = FIO_OPT_STR,
		.off1     = offsetof(struct nvmeof_options, io_queue_pick),
		.def      = "auto",
		.help     = "With several I/O queues (io_queues), where each I/O goes",
		.posval   = {
			{ .ival = "auto", .oval = NVMEOF_PICK_AUTO,
			  .help = "cpu with a software RDMA device and a target on this host, "
				  "else balance" },
			{ .ival = "balance", .oval = NVMEOF_PICK_BALANCE,
			  .help = "The queue with the fewest commands outstanding" },
			{ .ival = "cpu", .oval = NVMEOF_PICK_CPU,
			  .help = "The queue of the CPU the job runs on (the k-th CPU of the job's "
				  "set: queue k mod io_queues), least busy of its queues if it has "
				  "several" },
		},
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "discovery",
		.lname    = "Discovery service",
		.type     = FIO_OPT_STR_STORE,
		.off1     = offsetof(struct nvmeof_options, discovery),
		.help     = "ADDR[:PORT] (port 8009) of an NVMe-oF discovery service, read over the "
			    "job's transport: every entry of that transport of subnqn (or of the "
			    "one subsystem it lists) is a path; instead of traddr",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "mp_policy",
		.lname    = "Multipath I/O policy",
		.type     = FIO_OPT_STR,
		.off1     = offsetof(struct nvmeof_options, mp_policy),
		.def      = "numa",
		.help     = "With several paths (traddr list), which path an I/O takes (the kernel's "
			    "iopolicy names); only ANA optimized paths, non-optimized when none is",
		.posval   = {
			{ .ival = "numa", .oval = NVMF_MP_NUMA,
			  .help = "The first usable path takes all I/O, the others stand by" },
			{ .ival = "round-robin", .oval = NVMF_MP_ROUND_ROBIN,
			  .help = "Usable paths in turn" },
			{ .ival = "queue-depth", .oval = NVMF_MP_QUEUE_DEPTH,
			  .help = "The usable path with the fewest commands outstanding" },
		},
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "mp_stats",
		.lname    = "Multipath statistics file",
		.type     = FIO_OPT_STR_STORE,
		.off1     = offsetof(struct nvmeof_options, mp_stats),
		.help     = "With several paths: append each job's paths, failovers and recovery "
			    "times to this file, one JSON object per line",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name = NULL,
	},
};
