/* nvmeof_engine.h - what the engine's files share: the job options, the per-file state, and
 * the calls between the callbacks (fio_nvmeof.c), the option table (nvmeof_options.c) and
 * file resolution and probing (nvmeof_files.c). */
#ifndef FIO_NVMEOF_ENGINE_H
#define FIO_NVMEOF_ENGINE_H

#include <stddef.h>

#include "fio.h"

#include "nvmf_lane.h"
#include "nvmf_mpath.h"
#include "nvmf_trid.h"

enum { NVMEOF_ADRFAM_AUTO = 0, NVMEOF_ADRFAM_IPV4, NVMEOF_ADRFAM_IPV6 };
enum { NVMEOF_COMPLETION_POLL = 0, NVMEOF_COMPLETION_EVENT, NVMEOF_COMPLETION_HYBRID };
enum { NVMEOF_MEM_HOST = 0, NVMEOF_MEM_CUDA };
enum { NVMEOF_GPU_REG_AUTO = 0, NVMEOF_GPU_REG_DMABUF, NVMEOF_GPU_REG_PEERMEM };
/* gpudirect=: 1 GPUDirect or fail, 0 staged, auto GPUDirect where it registers, else staged */
enum { NVMEOF_GPUDIRECT_OFF = 0, NVMEOF_GPUDIRECT_ON, NVMEOF_GPUDIRECT_AUTO };
enum { NVMEOF_PICK_AUTO = 0, NVMEOF_PICK_BALANCE, NVMEOF_PICK_CPU };

/* Test knobs (environment variables the suites set) exist in the test build of the engine
 * only (build/tests/libfio_nvmeof_knobs.so, -DFIO_NVMEOF_TEST_KNOBS): the engine users load
 * reads no environment and carries no knob's name. */
#ifdef FIO_NVMEOF_TEST_KNOBS
#define nvmeof_test_knob(name) getenv(name)
#else
#define nvmeof_test_knob(name) ((const char *)NULL)
#endif

struct nvmeof_options {
	void        *pad;              /* fio: an option's off1 must not be 0 */
	char        *traddr;
	char        *trsvcid;          /* NULL unless given: 4420 */
	int          adrfam;
	char        *subnqn;
	unsigned int nsid;             /* 0 unless given: 1 */
	char        *host_traddr;
	char        *hostnqn;
	char        *hostid;
	char        *dhchap_secret;     /* DH-HMAC-CHAP: the host's secret (DHHC-1:XX:...:) */
	char        *dhchap_ctrl_secret; /* and the controller's (bidirectional) */
	char        *dhchap_secret_file; /* both from a file instead */
	char        *dhchap_digests;    /* the hashes offered (comma list; NULL: all) */
	char        *dhchap_dhgroups;   /* the DH groups offered (comma list; NULL: all) */
	unsigned int connect_timeout;
	unsigned int ack_timeout;      /* RDMA ACK timeout exponent; 0: the RDMA CM's */
	int          inline_data;     /* enum nvmf_inline (lib/nvmf_lane.h) */
	int          completion;
	unsigned int poll_us;          /* hybrid: spin this long after the last activity */
	unsigned int delay_submit;     /* a commit with commands in flight posts at getevents */
	unsigned int submit_batch;     /* delay_submit: post once this many wait; 0: the policy's */
	int          mem;
	unsigned int io_timeout;       /* ms without a response before a command fails */
	unsigned int stop_grace;       /* ms commands in flight get after fio stops; 0: auto */
	unsigned int kato;             /* ms; 0: no keep-alive asked for */
	unsigned int ctrl_loss_tmo;    /* ms to keep reconnecting after a loss; 0: never reconnect */
	unsigned int reconnect_delay;  /* ms between reconnect attempts */
	unsigned int retry_on_reconnect;
	char        *cuda_device;      /* "N", "N,M,..." or "N:M:...": job i takes entry i mod n */
	int          gpu_reg;
	int          gpudirect;        /* NVMEOF_GPUDIRECT_* */
	char        *io_queues;        /* "N" (1..NVMF_MAX_IO_QUEUES) or "auto" */
	int          io_queue_pick;    /* NVMEOF_PICK_*: which queue an I/O goes to */
	int          mp_policy;        /* enum nvmf_mp_policy */
	char        *mp_stats;         /* append the failover record here (JSON lines) */
	char        *discovery;        /* ADDR[:PORT] of a discovery service: the paths from it */
	unsigned int bad_opts;         /* options refused while parsing (nvmeof_options.c) */
	int          transport;        /* NVMF_TRTYPE_RDMA or _TCP; 0: as the filename says, else
					* RDMA */
	unsigned int hdr_digest;       /* NVMe/TCP header digests */
	unsigned int data_digest;      /* NVMe/TCP data digests */
};

/* Per fio file: the namespace it names. */
struct nvmeof_file {
	int                  trtype;         /* NVMF_TRTYPE_*: transport= or the filename's */
	char                 traddr[256];
	char                 trsvcid[32];
	char                 subnqn[256];
	int                  adrfam;
	struct nvmf_addr     paths[NVMF_MAX_PATHS]; /* traddr's list; [0] is traddr/trsvcid */
	unsigned             nr_paths;
	char                 disc_note[256]; /* discovery=: what the log gave, for the start line */
	char                 disc_subnqn[256]; /* discovery=: the subsystem it found */
	int                  discovered;     /* paths, subnqn and note come from discovery */
	struct nvmf_ns_info  ns;
	unsigned             lba_shift;
	struct nvmf_io_limits lim;
	unsigned             ana_g;      /* multipath: its namespace's ANA group (mp.grpid's index) */
	struct thread_data  *owner;      /* freed with the owner's cleanup */
	struct nvmeof_file  *next;
};

/* A lane's I/O buffers: a memory backend (nvmeof_buffers.c over lib/nvmf_mem.h). */
#include "nvmf_mem.h"
struct nvmeof_buffers {
	struct nvmf_mem      *mem;
	struct nvmf_mem_lane_ctx reg_ctx;
	struct nvmf_mem_lane_ctx more_ctx[NVMF_MEM_MAX_MORE]; /* paths on other RDMA devices */
	int                   access;      /* NVMF_MEM_REMOTE_*: what the target may do */
	const struct nvmf_mr *mr;          /* the registered wire area (path 1's device) */
	const struct nvmf_mr *path_mr[NVMF_MAX_PATHS]; /* each path's (its device's) */
	unsigned              nr_devices;  /* RDMA devices the area is registered on */
	int                   cuda;        /* device memory: copies and flushes on the I/O path */
	int                   tcp;         /* NVMe/TCP: nothing registered, device memory staged */
	int                   host_data;   /* fio fills or checks the bytes: copy per I/O */
	int                   failed_logged;
};

/* init, before connecting: the backend nvmeof_mem= names (CUDA: driver, context, device). */
int  nvmeof_buffers_open(struct thread_data *td, struct nvmeof_buffers *b);
/* post_init: fio's buffer area exists; give it its wire view and register that on the lanes
 * (a job's paths): once per RDMA device, the paths on one device sharing its registration. */
int  nvmeof_buffers_register(struct thread_data *td, struct nvmeof_buffers *b,
			     struct nvmf_lane *const *lanes, unsigned nr_lanes);
/* Path p's lane came up after the registration (it was down at the start): it takes the
 * registration of a path on its device.  0, or -ENODEV: its device has none (nothing of the
 * buffers is registered there). */
int  nvmeof_buffers_path_up(struct nvmeof_buffers *b, struct nvmf_lane *const *lanes,
			    unsigned nr_lanes, unsigned p);
/* queue: point io at the wire bytes of io_u's buffer; writes: the bytes are in place. */
int  nvmeof_buffers_map(struct thread_data *td, struct nvmeof_buffers *b, struct io_u *io_u,
			struct nvmf_io *io);
/* getevents, for a reaped batch before fio sees it: flush once, then finish each read (a
 * failure sets that io_u's error). */
void nvmeof_buffers_reaped(struct thread_data *td, struct nvmeof_buffers *b, struct io_u **ev,
			   unsigned n);
/* "; buffers: ...; <copy mode>" for the start line ("" for host memory). */
void nvmeof_buffers_describe(const struct nvmeof_buffers *b, const char *rdma_dev, char *buf,
			     size_t len);
/* GPU memory: the closing "CUDA copies" line (the copies' counts, bytes and time). */
void nvmeof_buffers_report(struct thread_data *td, const struct nvmeof_buffers *b);
/* cleanup, before the lane goes: deregister, free, release.  Tolerates a closed b. */
int  nvmeof_buffers_close(struct thread_data *td, struct nvmeof_buffers *b);

extern struct fio_option nvmeof_fio_options[];

struct nvmeof_file *nvmeof_file_alloc(struct thread_data *td);
/* Frees every per-file state td allocated. */
void nvmeof_files_free(struct thread_data *td);
/* The job's transport: its first file's (setup resolved it), else transport=, else RDMA. */
int  nvmeof_job_trtype(struct thread_data *td);
int  nvmeof_lane_opts(struct thread_data *td, const struct nvmeof_file *nf,
		      struct nvmf_lane_opts *lo, char *hostnqn, size_t nqnlen);
/* Path i's local address (host_traddr: one for all, or a list of one per path) in buf; NULL
 * when none is set.  Checked by setup: a list of another length than traddr's is refused. */
const char *nvmeof_path_host_traddr(struct thread_data *td, unsigned i, char *buf, size_t len);
/* fio's setup callback: resolve each file to a namespace (probed in a child process). */
int  fio_nvmeof_setup(struct thread_data *td);
/* nvmeof_secrets.c: the DH-HMAC-CHAP secrets' values out of fio's option lists (its JSON
 * output, a client's); -EINVAL (the job's error said) where the process that prints is not
 * this one. */
int  nvmeof_hide_secrets(struct thread_data *td);
/* Refuse job shapes the engine does not carry (bs/offset vs LBA size, metadata, past end). */
int  nvmeof_check_shapes(struct thread_data *td, const struct nvmeof_file *nf);
/* io_queues: N, or auto (*autom set, *n = the CPUs this job may run on, at most
 * NVMF_MAX_IO_QUEUES).  0, or -EINVAL with one line said. */
int  nvmeof_io_queues_want(struct thread_data *td, unsigned *n, int *autom, char *why,
			   size_t whylen);
/* The most commands the controller takes on one I/O queue: CAP.MQES+1 (in *entries), or
 * MAXCMD if lower. */
unsigned nvmeof_depth_limit(const struct nvmf_lane_info *in, unsigned *entries);
/* Refuse an iodepth the controller cannot take on one I/O queue (CAP.MQES, MAXCMD). */
int  nvmeof_check_depth(struct thread_data *td, const struct nvmf_lane_info *in);
/* cuda_device: the ordinal job_index takes from the list ("0", "0,1,2,3" or "0:1:2:3": entry
 * job_index mod n); 0, or -EINVAL with the reason in err (no CUDA call: fio's parent may
 * run this). */
int  nvmeof_cuda_device_pick(const char *list, unsigned job_index, int *dev, char *err,
			     size_t errlen);
/* 0 when the running fio's thread_options matches the engine's headers (nvmeof_layout.c);
 * else -1 with the first difference in why. */
int  nvmeof_layout_check(char *why, size_t len);

#endif
