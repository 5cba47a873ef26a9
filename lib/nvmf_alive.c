/* nvmf_alive.c - the run-wide board of when each subsystem last completed a command. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "nvmf_alive.h"

struct nvmf_alive_slot {
	uint64_t key;       /* hash of the subsystem's address, port and NQN; 0: free */
	uint64_t last_ms;
};

struct nvmf_alive_board {
	struct nvmf_alive_slot slots[NVMF_ALIVE_SLOTS];
};

_Static_assert(sizeof(struct nvmf_alive_board) <= 4096, "the board is one page");

struct nvmf_alive_board *nvmf_alive_create(void)
{
	/* MAP_SHARED: the job processes fio forks later write into the same page. */
	void *p = mmap(NULL, sizeof(struct nvmf_alive_board), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void nvmf_alive_destroy(struct nvmf_alive_board *b)
{
	if (b)
		munmap(b, sizeof(*b));
}

/* FNV-1a over the strings and their terminators; 0 is kept for a free slot.  Two subsystems
 * of one run sharing a 64-bit hash would share a slot: they would only wait for each other. */
static uint64_t nvmf_alive_key(const char *traddr, const char *trsvcid, const char *subnqn)
{
	const char *parts[3] = { traddr ? traddr : "", trsvcid ? trsvcid : "4420",
				 subnqn ? subnqn : "" };
	uint64_t h = 0xcbf29ce484222325ULL;

	for (int i = 0; i < 3; i++) {
		const unsigned char *s = (const unsigned char *)parts[i];

		do {
			h ^= *s;
			h *= 0x100000001b3ULL;
		} while (*s++);
	}
	return h ? h : 1;
}

int nvmf_alive_slot(struct nvmf_alive_board *b, const char *traddr, const char *trsvcid,
		    const char *subnqn)
{
	uint64_t key = nvmf_alive_key(traddr, trsvcid, subnqn);

	if (!b)
		return -EINVAL;
	for (unsigned i = 0; i < NVMF_ALIVE_SLOTS; i++) {
		unsigned s = (unsigned)((key + i) % NVMF_ALIVE_SLOTS);
		uint64_t seen = 0;

		/* Claimed with a compare-and-swap: two lanes of a new subsystem may race here. */
		if (__atomic_compare_exchange_n(&b->slots[s].key, &seen, key, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE) || seen == key)
			return (int)s;
	}
	return -ENOSPC;
}

void nvmf_alive_mark(struct nvmf_alive_board *b, int slot, uint64_t now_ms)
{
	uint64_t seen;

	if (!b || slot < 0 || slot >= NVMF_ALIVE_SLOTS)
		return;
	seen = __atomic_load_n(&b->slots[slot].last_ms, __ATOMIC_RELAXED);
	while (seen < now_ms &&
	       !__atomic_compare_exchange_n(&b->slots[slot].last_ms, &seen, now_ms, 1,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

uint64_t nvmf_alive_last(const struct nvmf_alive_board *b, int slot)
{
	if (!b || slot < 0 || slot >= NVMF_ALIVE_SLOTS)
		return 0;
	return __atomic_load_n(&b->slots[slot].last_ms, __ATOMIC_RELAXED);
}
