/* nvmf_policy.h - every default that depends on the fabric (what the RDMA device is, where the
 * target is) or on the job's shape, decided in one place, each with the reason the start line
 * prints.  The lane fills the facts at bring-up and acts on the decisions; the engine reads
 * them from the lane's info.  Plain data in and out: no verbs, no sysfs, no fio.
 *
 * The anchor: a hardware RDMA device or a remote target gets what SPDK's initiator does (writes
 * in the capsule when the controller offers it, held commands posted at every poll, the least
 * busy queue).  Only a software RDMA device (Soft-RoCE, siw) with the target on this host, the
 * one fabric the project has measured (docs/benchmarks.md), gets the rules measured there. */
#ifndef FIO_NVMEOF_POLICY_H
#define FIO_NVMEOF_POLICY_H

#include <stddef.h>
#include <stdint.h>

#define NVMF_POLICY_WHY_LEN 112

/* Vendor IDs the kernel's software RDMA drivers report (ibv_query_device): rxe's since Linux
 * 5.x (0 before), siw's ASCII "bmt". */
#define NVMF_VENDOR_RXE 0xffffffu
#define NVMF_VENDOR_SIW 0x626d74u

/* What the verbs device says about itself, and where sysfs puts it. */
struct nvmf_dev_facts {
	const char *name;          /* ibv_get_device_name */
	uint32_t    vendor_id;     /* ibv_device_attr.vendor_id; 0: unknown */
	int         vendor_known;  /* the query answered */
	const char *parent;        /* the device's parent in sysfs (realpath of .../device), or
				    * NULL: it has none (a software device hangs off no bus) */
};

/* 1: software (Soft-RoCE, siw), 0: hardware; why says how it was told.  The verbs vendor ID
 * first: a hardware function that is not a plain PCI device (an mlx5 sub-function on the
 * auxiliary bus) is still hardware.  Only an unknown vendor falls back to sysfs: a device with
 * no parent device is software. */
int nvmf_policy_classify_device(const struct nvmf_dev_facts *f, char *why, size_t len);

/* 1: the target answers from this host (its address is a loopback one, or this side's own);
 * why names the address. */
struct sockaddr;
int nvmf_policy_target_local(const struct sockaddr *local, const struct sockaddr *peer,
			     char *why, size_t len);

/* What is known once the admin queue is up, and what the job asked for. */
struct nvmf_policy_facts {
	int      tcp;                           /* NVMe/TCP: no RDMA device at all */
	int      rdma_software;                 /* nvmf_policy_classify_device */
	char     device_why[NVMF_POLICY_WHY_LEN];
	int      target_local;                  /* the target answers from this host */
	char     target_why[NVMF_POLICY_WHY_LEN];
	unsigned io_depth;                      /* the job's I/Os in flight */
	unsigned host_jobs;                     /* lanes fio runs on this host (1: this one) */
};

/* Each decision: the value and the reason, short enough to print in the start line. */
struct nvmf_policy_choice {
	unsigned value;
	char     why[NVMF_POLICY_WHY_LEN];
};

struct nvmf_policy {
	/* inline_data=auto: 1 sends writes keyed although the controller offers in-capsule data */
	struct nvmf_policy_choice inline_keyed;
	/* submit_batch=0: held I/Os go out once this many wait */
	struct nvmf_policy_choice submit_batch;
	/* io_queue_pick=auto: 1 posts to the queue of the submitting CPU, 0 to the least busy.
	 * With a software RDMA device and the target on this host, the transport's and the
	 * target's work for a queue's commands runs on the CPU that posts them: posting on the
	 * current CPU's queue, as the kernel initiator does, keeps each queue's work on one CPU.
	 * A NIC and a remote target work each queue apart, whichever CPU posts. */
	struct nvmf_policy_choice pick_cpu;
};

/* In-capsule writes with a software RDMA device and a local target: the initiator's post runs
 * the target's receive in the same system call, and a multi-packet SEND hands it to ksoftirqd,
 * which then preempts the job once per write; deep jobs went faster keyed.  For one job,
 * in-capsule was ahead at 2, level at 4 and behind from 8 on; with several jobs on the host's
 * CPUs, ahead at 8 and level at 32, so they keep the earlier line, 16 (docs/benchmarks.md
 * "In-capsule writes with Soft-RoCE and a local target"). */
#define NVMF_INLINE_LOCAL_MAX_DEPTH      4
#define NVMF_INLINE_LOCAL_MAX_DEPTH_JOBS 16
/* The submit batch there, as a divisor of io_depth: each post is a system call that also runs
 * the target's receive, and fewer, longer chains were faster in every mode (docs/benchmarks.md
 * "submit_batch").  Elsewhere a post is a doorbell write: 1, as SPDK's delay_cmd_submit. */
#define NVMF_SUBMIT_BATCH_DIV_LOCAL 2

/* io_queues=auto takes at most this many queues: one job thread polls every queue of its lane,
 * so queues past a few add polls, not parallelism on this side. */
#define NVMF_AUTO_IO_QUEUES_MAX 4

void nvmf_policy_decide(const struct nvmf_policy_facts *f, struct nvmf_policy *out);

/* io_queues=auto: the queues to ask for, given the CPUs the job may run on; why says what
 * bounded it. */
unsigned nvmf_policy_auto_io_queues(unsigned cpus, char *why, size_t len);

/* Keep Alive goes out every KATO/2, as the kernel initiator sends it: a late one still arrives
 * in time.  Never more often than every NVMF_KEEPALIVE_MIN_INTERVAL_MS, whatever KATO a
 * controller sets (a KATO of a few ms would otherwise turn the thread into a busy loop); why
 * says so when the floor applies, and is empty otherwise. */
#define NVMF_KEEPALIVE_MIN_INTERVAL_MS 100
unsigned nvmf_policy_keepalive_interval(unsigned kato_ms, char *why, size_t len);

/* A path whose port goes down (link down: the device's port leaves the active state) is lost
 * at once when the job has another path to move its I/O to, without waiting for keep-alive or
 * the queue pairs' retries (seconds; with commands outstanding and none posted, nothing else
 * notices).  A job's only path keeps waiting on those: a brief flap the queue pairs outlive
 * must not fail the job or force a reconnect. */
static inline int nvmf_policy_port_down_lost(unsigned nr_paths)
{
	return nr_paths > 1;
}

#endif
