/* nvmf_cpuq.h - which of a lane's I/O queues the CPU a job runs on posts to (io_queue_pick=cpu),
 * as the kernel initiator maps its queues to CPUs.  A pure map from the job's CPU set: the
 * caller passes the CPU (sched_getcpu()), so tests need no particular machine. */
#ifndef FIO_NVMEOF_CPUQ_H
#define FIO_NVMEOF_CPUQ_H

#include <sched.h>
#include <stdint.h>

#define NVMF_CPUQ_MAX_CPUS CPU_SETSIZE
#define NVMF_CPUQ_NOT_IN_SET UINT16_MAX

struct nvmf_cpu_queues {
	unsigned nr_q;                          /* the lane's I/O queues */
	unsigned ncpus;                         /* CPUs in the job's set (at least 1) */
	uint16_t rank[NVMF_CPUQ_MAX_CPUS];      /* CPU -> its place in the set, or NOT_IN_SET */
};

/* The k-th CPU of SET (in CPU number order) is homed on queues k, k + ncpus, k + 2 ncpus, ...
 * (below nr_q), or on queue k % nr_q when there are fewer queues than CPUs.  An empty SET
 * counts as CPU 0 alone. */
void nvmf_cpu_queues_init(struct nvmf_cpu_queues *m, const cpu_set_t *set, unsigned nr_q);

/* CPU's queues: *first, *first + *stride, ... below nr_q (the caller picks the least busy
 * of them).  A CPU outside the set (the affinity changed since) or a negative one (no
 * sched_getcpu) is taken as the set's CPU of its number modulo the set's size. */
void nvmf_cpu_queues_of(const struct nvmf_cpu_queues *m, int cpu, unsigned *first,
			unsigned *stride);

#endif
