/* nvmf_alive.h - when a subsystem last completed a command, as every lane of one fio run sees
 * it.  After fio stops its jobs, the target drains the lanes' commands in turn: a lane can get
 * nothing back for a second while other lanes of the same subsystem still complete, and that
 * is a live target, not a silent one.  The board is one shared page, mapped before fio forks
 * its job processes, so threads and processes of the run see the same times. */
#ifndef FIO_NVMEOF_ALIVE_H
#define FIO_NVMEOF_ALIVE_H

#include <stdint.h>

#define NVMF_ALIVE_SLOTS 64     /* subsystems one run can track; more share nothing */

struct nvmf_alive_board;

/* A board shared with the processes forked after this call; NULL when it cannot be mapped
 * (lanes then go by their own completions alone). */
struct nvmf_alive_board *nvmf_alive_create(void);
void nvmf_alive_destroy(struct nvmf_alive_board *b);   /* NULL: nothing */

/* The slot of the subsystem SUBNQN at TRADDR:TRSVCID (NULL trsvcid: 4420), claimed on first
 * use: >= 0; -EINVAL without a board, -ENOSPC when all slots hold other subsystems. */
int nvmf_alive_slot(struct nvmf_alive_board *b, const char *traddr, const char *trsvcid,
		    const char *subnqn);

/* The subsystem completed a command at NOW_MS (nvmf_now_ms(): CLOCK_MONOTONIC, one clock for
 * every process of the host); a later time already there stays.  No board or slot: nothing. */
void nvmf_alive_mark(struct nvmf_alive_board *b, int slot, uint64_t now_ms);

/* The latest time marked for the slot; 0 when none, or without a board or slot. */
uint64_t nvmf_alive_last(const struct nvmf_alive_board *b, int slot);

#endif
