/* nvmf_mem.h - where a lane's I/O data lives: one small memory-backend interface that host
 * memory and CUDA device memory both implement.
 *
 * The caller (the fio engine) owns a host area (fio's buffers).  A backend gives that area a
 * "wire" view: the memory the target RDMA-reads and RDMA-writes, registered on the lane, at
 * the same offsets as the host area (an io_u's offset in fio's area is its offset on the
 * wire).  Host: the wire is the host area itself.  CUDA (GPUDirect): the wire is one device
 * allocation of the area's size.  CUDA staged: the wire is a registered host staging area, and
 * the data's home is still the device allocation (copied per I/O, to measure what GPUDirect
 * buys).
 *
 * Life cycle, all in the job's own process (never in a parent that forks jobs):
 *   nvmf_mem_open      - init:       load the driver, cuInit, retain the device's primary
 *                                    context and make it current in the calling thread
 *   nvmf_mem_attach    - post_init:  the host area is known: device allocation, SYNC_MEMOPS,
 *                                    the area's initial bytes copied to the device once
 *   nvmf_mem_register  - post_init:  register the wire area (dma-buf, peermem, host)
 *   nvmf_mem_prepare_write / nvmf_mem_reads_reaped + nvmf_mem_finish_read - the I/O path
 *   nvmf_mem_close     - cleanup:    MR deregistered, then memory freed, then the context
 *                                    released; before the lane (its protection domain) goes
 * Every CUDA call first makes the lane's context current in the calling thread.
 * Every call returns 0 or a negative errno; on failure one line is in nvmf_mem_err(). */
#ifndef FIO_NVMEOF_MEM_H
#define FIO_NVMEOF_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "nvmf_lane.h"

#define NVMF_MEM_ERR_LEN 512
#define NVMF_GPU_PAGE    (64u * 1024)   /* GPUDirect RDMA pins device memory in 64 KiB pages */

enum nvmf_mem_kind {
	NVMF_MEM_HOST = 0,
	NVMF_MEM_CUDA,
};

/* How to register device memory (GPUDirect only). */
enum nvmf_mem_reg {
	NVMF_MEM_REG_AUTO = 0,     /* dma-buf, then peermem */
	NVMF_MEM_REG_DMABUF,
	NVMF_MEM_REG_PEERMEM,
};

/* Which registration was used. */
enum nvmf_mem_path {
	NVMF_MEM_PATH_NONE = 0,
	NVMF_MEM_PATH_HOST,        /* ibv_reg_mr on host memory (host backend, staged mode) */
	NVMF_MEM_PATH_DMABUF,      /* cuMemGetHandleForAddressRange + ibv_reg_dmabuf_mr */
	NVMF_MEM_PATH_PEERMEM,     /* ibv_reg_mr on the device pointer (nvidia_peermem) */
};

struct nvmf_mem_opts {
	int kind;                  /* enum nvmf_mem_kind */
	int cuda_device;           /* CUDA device ordinal */
	int reg;                   /* enum nvmf_mem_reg */
	int staged;                /* CUDA: the target moves data through registered host memory */
	int staged_fallback;       /* CUDA, not staged: stage when GPUDirect cannot register */
	const char *staged_why;    /* CUDA, staged because the fabric has no GPUDirect (NVMe/TCP):
				    * why, for the start line; NULL: the job asked for staging */
	const char *cuda_lib;      /* NULL: libcuda.so.1 (tests may name another) */
	const char *sysfs;         /* NULL: "/sys" (tests point it at a fake tree) */
};

/* The registration step, behind function pointers so that it can be replaced where no RDMA
 * device exists (tests).  Each returns 0 or a negative errno and, on failure, the reason in
 * words in why.  nvmf_mem_lane_registrar() gives the real one for a lane. */
struct nvmf_mem_registrar {
	int  (*reg_va)(void *ctx, void *addr, size_t len, struct nvmf_mr *mr, char *why,
		       size_t whylen);
	/* Register len bytes at offset 0 of the dma-buf fd, addressed by the target as iova. */
	int  (*reg_dmabuf)(void *ctx, int fd, size_t len, uint64_t iova, struct nvmf_mr *mr,
			   char *why, size_t whylen);
	void (*dereg)(void *ctx, struct nvmf_mr *mr);
	void *ctx;
};

/* What a backend is, for the start line and for checks. */
struct nvmf_mem_info {
	int         kind;             /* enum nvmf_mem_kind */
	int         staged;
	int         path;             /* enum nvmf_mem_path, after nvmf_mem_register */
	size_t      len;              /* the host area's (and the wire's) usable length */
	void       *host;             /* the host area */
	uint64_t    wire;             /* the wire area's address: what the target is given */
	/* CUDA */
	int         cuda_device;      /* ordinal */
	int         driver_version;
	void       *ctx;              /* the primary context (CUcontext) */
	uint64_t    dev_alloc;        /* what cuMemAlloc_v2 returned */
	size_t      dev_alloc_len;    /* its size (len rounded to 64 KiB, + 64 KiB if realigned) */
	uint64_t    dev;              /* the 64 KiB-aligned device area used (offset 0 = host 0) */
	char        gpu_pci[32];      /* cuDeviceGetPCIBusId, lower case, 4-digit domain */
	int         dmabuf_supported; /* CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED (-1 unknown) */
	int         gdr_supported;    /* CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED */
	int         flush;            /* cuFlushGPUDirectRDMAWrites is called after reads */
	char        flush_note[128];  /* why not, when it is not */
	char        reg_note[NVMF_MEM_ERR_LEN];  /* why earlier registration paths failed */
	/* GPUDirect could not register and staged_fallback allowed staging: why (else "") */
	char        fallback_note[NVMF_MEM_ERR_LEN];
	char        staged_why[96];   /* opts.staged_why */
};

/* What the copies between host and device memory cost a job (not the one initial copy of
 * fio's buffer contents at attach): per kind, how many, their bytes and the time spent in
 * them, so a report can say how much of a run went to copying. */
struct nvmf_mem_copy_stat {
	uint64_t n;
	uint64_t bytes;
	uint64_t ns;
};
struct nvmf_mem_copies {
	struct nvmf_mem_copy_stat to_device;   /* fio's data, host area -> device */
	struct nvmf_mem_copy_stat to_host;     /* fio's data, device -> host area */
	struct nvmf_mem_copy_stat stage_out;   /* staged: device -> staging, before writes */
	struct nvmf_mem_copy_stat stage_in;    /* staged: staging -> device, after reads */
	struct nvmf_mem_copy_stat flush;       /* cuFlushGPUDirectRDMAWrites calls (bytes 0) */
};

struct nvmf_mem;

int  nvmf_mem_open(struct nvmf_mem **out, const struct nvmf_mem_opts *o, char *err,
		   size_t errlen);
/* Adopt the caller's host area (it stays the caller's).  CUDA: allocate the device area,
 * set CU_POINTER_ATTRIBUTE_SYNC_MEMOPS on it, copy the host area's bytes to it once (so that
 * writes carry the caller's data even when nothing is copied per I/O), and in staged mode
 * allocate the host staging area. */
int  nvmf_mem_attach(struct nvmf_mem *m, void *host, size_t len);
/* Register the wire area.  CUDA GPUDirect tries the paths opts->reg allows in order; when
 * all fail, one line gives each path's reason, unless opts->staged_fallback allows staging:
 * then the backend stages from here on (info.staged) and info.fallback_note says why.  The registrar is kept for the deregistration. */
int  nvmf_mem_register(struct nvmf_mem *m, const struct nvmf_mem_registrar *r);
/* The wire area registered once more, with another registrar (another RDMA device: a path of
 * the job on a second NIC or port), the way nvmf_mem_register succeeded (host area, staging,
 * the same dma-buf, or the device pointer).  *out is that registration, valid until close,
 * which deregisters it before the first.  At most NVMF_MEM_MAX_MORE. */
#define NVMF_MEM_MAX_MORE 7
int  nvmf_mem_register_more(struct nvmf_mem *m, const struct nvmf_mem_registrar *r,
			    const struct nvmf_mr **out);
/* The wire MR (addr is the wire area's start) and the wire address of host offset off. */
const struct nvmf_mr *nvmf_mem_mr(const struct nvmf_mem *m);
void *nvmf_mem_wire(const struct nvmf_mem *m, size_t off);
/* Offset of a pointer into the host area, or -1 when [p, p+len) is not inside it. */
long long nvmf_mem_offset(const struct nvmf_mem *m, const void *p, size_t len);

/* The primitives (each a no-op where it has nothing to do):
 * to_device: host area [off, off+len) -> device (CUDA).
 * flush:     make the target's RDMA writes into device memory visible to its owner
 *            (GPUDirect with cuFlushGPUDirectRDMAWrites support; once per reaped batch).
 * to_host:   device [off, off+len) -> host area (CUDA).
 * stage_out: device -> staging before the target reads it (staged mode).
 * stage_in:  staging -> device after the target wrote it (staged mode). */
int  nvmf_mem_to_device(struct nvmf_mem *m, size_t off, size_t len);
int  nvmf_mem_flush(struct nvmf_mem *m);
int  nvmf_mem_to_host(struct nvmf_mem *m, size_t off, size_t len);
int  nvmf_mem_stage_out(struct nvmf_mem *m, size_t off, size_t len);
int  nvmf_mem_stage_in(struct nvmf_mem *m, size_t off, size_t len);

/* The I/O path.  host_data: the caller (fio) produces or consumes the bytes in the host area
 * (verify, buffer patterns, ...); 0 is the benchmark mode, where GPUDirect copies nothing.
 * Before a write is posted: to_device if host_data, then stage_out. */
int  nvmf_mem_prepare_write(struct nvmf_mem *m, size_t off, size_t len, int host_data);
/* Once per reaped batch that holds reads, before any read of it is finished: flush. */
int  nvmf_mem_reads_reaped(struct nvmf_mem *m);
/* Per completed read, after nvmf_mem_reads_reaped: stage_in, then to_host if host_data. */
int  nvmf_mem_finish_read(struct nvmf_mem *m, size_t off, size_t len, int host_data);

/* Teardown in order: deregister, free device and staging memory, release the context.  Goes
 * on past failures; returns the first error (one line in err) and frees m.  Tolerates NULL. */
int  nvmf_mem_close(struct nvmf_mem *m, char *err, size_t errlen);

const char *nvmf_mem_err(const struct nvmf_mem *m);
const struct nvmf_mem_info *nvmf_mem_info(const struct nvmf_mem *m);
const char *nvmf_mem_path_name(int path);
/* The copies made so far (all zero for host memory). */
const struct nvmf_mem_copies *nvmf_mem_copies(const struct nvmf_mem *m);
/* One phrase for a job's closing line: "data host->device N (B bytes, T ms), data
 * device->host ..., staged device->host ..., staged host->device ..., flushes N (T ms)". */
void nvmf_mem_copies_describe(const struct nvmf_mem *m, char *buf, size_t len);

/* Locality: the GPU's and the RDMA device's PCI addresses and NUMA nodes. */
struct nvmf_mem_locality {
	char gpu_pci[32];          /* "" where not a GPU backend */
	int  gpu_numa;             /* -1: unknown / no NUMA */
	char rdma_pci[32];         /* "" for a software RDMA device (rxe, siw) */
	int  rdma_numa;
	int  differs;              /* both NUMA nodes known and different */
};
/* rdma_dev: the verbs device name (nvmf_lane_info()->rdma_dev); may be NULL. */
void nvmf_mem_locality(const struct nvmf_mem *m, const char *rdma_dev,
		       struct nvmf_mem_locality *loc);
/* One phrase for the start line: memory, registration path, flush, locality (and a warning
 * when the GPU and the RDMA device are on different NUMA nodes). */
void nvmf_mem_describe(const struct nvmf_mem *m, const char *rdma_dev, char *buf, size_t len);

/* sysfs helpers (root: "/sys" or a test tree).  NUMA node of a PCI function, -1 if unknown. */
int  nvmf_sysfs_pci_numa(const char *root, const char *pci);
/* PCI address of a verbs device into buf; -ENOENT when it has none (software RDMA). */
int  nvmf_sysfs_rdma_pci(const char *root, const char *dev, char *buf, size_t len);
/* "00000000:3B:00.0" -> "0000:3b:00.0" (sysfs's spelling); 0 or -EINVAL. */
int  nvmf_pci_normalize(const char *in, char *out, size_t len);

/* What the target may do to the registered area: the least the workload needs. */
#define NVMF_MEM_REMOTE_READ  0x1    /* RDMA-read it (the data of writes) */
#define NVMF_MEM_REMOTE_WRITE 0x2    /* RDMA-write it (the data of reads) */

/* The real registration on a lane's protection domain (lib/nvmf_mem_lane.c, rdma-core), with
 * the remote access given (NVMF_MEM_REMOTE_*; local access is always there: in-capsule
 * writes send from the area).  c is the registrar's context: the caller keeps it as long as
 * the registration. */
struct nvmf_mem_lane_ctx {
	struct nvmf_lane *lane;
	int               access;
};
void nvmf_mem_lane_registrar(struct nvmf_mem_lane_ctx *c, struct nvmf_lane *lane, int access,
			     struct nvmf_mem_registrar *r);
/* The ibv access flags for NVMF_MEM_REMOTE_* (exposed for tests). */
int  nvmf_mem_ibv_access(int access);

#endif
