/* nvmeof_engine.h - what the engine's files share: the job options, the per-file state, and
 * the calls between the callbacks (fio_nvmeof.c), the option table (nvmeof_options.c) and
 * file resolution and probing (nvmeof_files.c). */
#ifndef FIO_NVMEOF_ENGINE_H
#define FIO_NVMEOF_ENGINE_H

#include <stddef.h>

#include "fio.h"

#include "nvmf_lane.h"

enum { NVMEOF_ADRFAM_AUTO = 0, NVMEOF_ADRFAM_IPV4, NVMEOF_ADRFAM_IPV6 };
enum { NVMEOF_INLINE_AUTO = 0, NVMEOF_INLINE_OFF };
enum { NVMEOF_COMPLETION_POLL = 0, NVMEOF_COMPLETION_EVENT };
enum { NVMEOF_MEM_HOST = 0 };

struct nvmeof_options {
	void        *pad;              /* fio: an option's off1 must not be 0 */
	char        *traddr;
	char        *trsvcid;
	int          adrfam;
	char        *subnqn;
	unsigned int nsid;
	char        *host_traddr;
	char        *hostnqn;
	char        *hostid;
	unsigned int connect_timeout;
	int          inline_data;
	int          completion;
	int          mem;
};

/* Per fio file: the namespace it names. */
struct nvmeof_file {
	char                 traddr[256];
	char                 trsvcid[32];
	char                 subnqn[256];
	int                  adrfam;
	struct nvmf_ns_info  ns;
	unsigned             lba_shift;
	struct nvmf_io_limits lim;
	struct thread_data  *owner;      /* freed with the owner's cleanup */
	struct nvmeof_file  *next;
};

extern struct fio_option nvmeof_fio_options[];

struct nvmeof_file *nvmeof_file_alloc(struct thread_data *td);
/* Frees every per-file state td allocated. */
void nvmeof_files_free(struct thread_data *td);
int  nvmeof_lane_opts(struct thread_data *td, const struct nvmeof_file *nf,
		      struct nvmf_lane_opts *lo, char *hostnqn, size_t nqnlen);
/* fio's setup callback: resolve each file to a namespace (probed in a child process). */
int  fio_nvmeof_setup(struct thread_data *td);
/* Refuse job shapes the engine does not carry (bs/offset vs LBA size, metadata, past end). */
int  nvmeof_check_shapes(struct thread_data *td, const struct nvmeof_file *nf);
/* 0 when the running fio's thread_options matches the engine's headers (nvmeof_layout.c);
 * else -1 with the first difference in why. */
int  nvmeof_layout_check(char *why, size_t len);

#endif
