/* nvmf_cpuq.c - the CPU -> I/O queue map of io_queue_pick=cpu (see nvmf_cpuq.h). */

#include "nvmf_cpuq.h"

void nvmf_cpu_queues_init(struct nvmf_cpu_queues *m, const cpu_set_t *set, unsigned nr_q)
{
	unsigned k = 0;

	m->nr_q = nr_q ? nr_q : 1;
	for (unsigned c = 0; c < NVMF_CPUQ_MAX_CPUS; c++)
		m->rank[c] = CPU_ISSET(c, set) ? (uint16_t)k++ : NVMF_CPUQ_NOT_IN_SET;
	if (!k)
		m->rank[0] = (uint16_t)k++;
	m->ncpus = k;
}

void nvmf_cpu_queues_of(const struct nvmf_cpu_queues *m, int cpu, unsigned *first,
			unsigned *stride)
{
	unsigned r = 0;

	if (cpu >= 0 && (unsigned)cpu < NVMF_CPUQ_MAX_CPUS && m->rank[cpu] != NVMF_CPUQ_NOT_IN_SET)
		r = m->rank[cpu];
	else if (cpu >= 0)
		r = (unsigned)cpu % m->ncpus;
	/* fewer queues than CPUs: several CPUs share one; more: each CPU has every ncpus-th */
	*first = r % m->nr_q;
	*stride = m->ncpus;
}
