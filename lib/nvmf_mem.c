/* nvmf_mem.c - memory backends: host memory (fio's own buffers) and CUDA device memory
 * (GPUDirect RDMA or staged through host memory), behind the interface in nvmf_mem.h.
 * No RDMA calls here: registration goes through a struct nvmf_mem_registrar
 * (lib/nvmf_mem_lane.c is the real one), so this file builds and runs with gcc alone. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nvmf_cuda.h"
#include "nvmf_err.h"
#include "nvmf_mem.h"
#include "nvmf_sysfs.h"
#include "nvmf_shim.h"

enum nvmf_mem_copy {
	NVMF_COPY_TO_DEVICE,     /* host area -> device */
	NVMF_COPY_TO_HOST,       /* device -> host area */
	NVMF_COPY_STAGE_OUT,     /* device -> staging */
	NVMF_COPY_STAGE_IN,      /* staging -> device */
};

/* Why a staged backend never flushes (its start line says so). */
#define STAGED_NO_FLUSH "staged: the target writes host memory"

struct nvmf_mem;

struct nvmf_mem_ops {
	const char *name;
	int  (*open)(struct nvmf_mem *m);
	int  (*attach)(struct nvmf_mem *m, void *host, size_t len);
	int  (*reg)(struct nvmf_mem *m, const struct nvmf_mem_registrar *r);
	int  (*copy)(struct nvmf_mem *m, int dir, size_t off, size_t len);
	int  (*flush)(struct nvmf_mem *m);
	/* Releases everything but m itself; returns the first error, text in m->err. */
	int  (*release)(struct nvmf_mem *m);
};

struct nvmf_mem {
	const struct nvmf_mem_ops *ops;
	struct nvmf_mem_opts       opts;
	char                       sysfs[256];
	char                       cuda_lib[256];
	struct nvmf_mem_info       info;
	struct nvmf_mr             mr;
	int                        registered;
	struct nvmf_mem_registrar  reg;
	struct {                                   /* nvmf_mem_register_more's */
		struct nvmf_mr            mr;
		struct nvmf_mem_registrar reg;
	}                          more[NVMF_MEM_MAX_MORE];
	unsigned                   nr_more;
	int                        dmabuf_fd;
	size_t                     wire_len;       /* registered length (rounded for the GPU) */
	/* CUDA */
	const struct nvmf_cuda    *cu;
	nvmf_CUdevice              dev;
	nvmf_CUcontext             ctx;
	int                        ctx_retained;
	void                      *staging;
	struct nvmf_mem_copies     copies;
	char                       err[NVMF_MEM_ERR_LEN];
};

/* The backend's latest failure: nvmf_mem_err() reports what went wrong last. */
#define nvmf_mem_errf(m, rc, ...) nvmf_errf((m)->err, sizeof((m)->err), (rc), __VA_ARGS__)

const char *nvmf_mem_err(const struct nvmf_mem *m)
{
	return m ? m->err : "no memory backend";
}

const struct nvmf_mem_info *nvmf_mem_info(const struct nvmf_mem *m)
{
	return &m->info;
}

const struct nvmf_mem_copies *nvmf_mem_copies(const struct nvmf_mem *m)
{
	return &m->copies;
}

static void nvmf_copy_stat_str(const char *name, const struct nvmf_mem_copy_stat *st, int bytes,
			       char *buf, size_t len)
{
	if (bytes)
		snprintf(buf, len, "%s %llu (%llu bytes, %.3f ms)", name, (unsigned long long)st->n,
			 (unsigned long long)st->bytes, (double)st->ns / 1e6);
	else
		snprintf(buf, len, "%s %llu (%.3f ms)", name, (unsigned long long)st->n,
			 (double)st->ns / 1e6);
}

void nvmf_mem_copies_describe(const struct nvmf_mem *m, char *buf, size_t len)
{
	const struct nvmf_mem_copies *c = &m->copies;
	char a[96], b[96], d[96], e[96], f[96];

	nvmf_copy_stat_str("data host->device", &c->to_device, 1, a, sizeof(a));
	nvmf_copy_stat_str("data device->host", &c->to_host, 1, b, sizeof(b));
	nvmf_copy_stat_str("staged device->host", &c->stage_out, 1, d, sizeof(d));
	nvmf_copy_stat_str("staged host->device", &c->stage_in, 1, e, sizeof(e));
	nvmf_copy_stat_str("flushes", &c->flush, 0, f, sizeof(f));
	snprintf(buf, len, "%s, %s, %s, %s, %s", a, b, d, e, f);
}

static uint64_t nvmf_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void nvmf_copy_count(struct nvmf_mem_copy_stat *st, size_t bytes, uint64_t t0)
{
	st->n++;
	st->bytes += bytes;
	st->ns += nvmf_now_ns() - t0;
}

const struct nvmf_mr *nvmf_mem_mr(const struct nvmf_mem *m)
{
	return &m->mr;
}

void *nvmf_mem_wire(const struct nvmf_mem *m, size_t off)
{
	return (void *)(uintptr_t)(m->info.wire + off);
}

long long nvmf_mem_offset(const struct nvmf_mem *m, const void *p, size_t len)
{
	const char *b = m->info.host, *c = p;

	if (!b || c < b || len > m->info.len || (size_t)(c - b) > m->info.len - len)
		return -1;
	return (long long)(c - b);
}

const char *nvmf_mem_path_name(int path)
{
	switch (path) {
	case NVMF_MEM_PATH_HOST:
		return "host";
	case NVMF_MEM_PATH_DMABUF:
		return "dma-buf";
	case NVMF_MEM_PATH_PEERMEM:
		return "peermem";
	default:
		return "none";
	}
}

static size_t nvmf_round_up(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

static int nvmf_mem_range(struct nvmf_mem *m, size_t off, size_t len)
{
	if (!m->info.host)
		return nvmf_mem_errf(m, -EINVAL, "memory backend has no area attached");
	if (len > m->info.len || off > m->info.len - len)
		return nvmf_mem_errf(m, -EINVAL, "range at offset %zu, %zu bytes, is outside the "
				     "%zu-byte I/O area", off, len, m->info.len);
	return 0;
}

/* ---- host memory: the wire is the caller's area ---- */

static int host_open(struct nvmf_mem *m)
{
	(void)m;
	return 0;
}

static int host_attach(struct nvmf_mem *m, void *host, size_t len)
{
	m->info.wire = (uint64_t)(uintptr_t)host;
	m->wire_len = len;
	return 0;
}

static int host_reg(struct nvmf_mem *m, const struct nvmf_mem_registrar *r)
{
	char why[NVMF_MEM_ERR_LEN / 2];
	int rc;

	why[0] = 0;
	rc = r->reg_va(r->ctx, m->info.host, m->info.len, &m->mr, why, sizeof(why));
	if (rc)
		return nvmf_mem_errf(m, rc, "registering %zu bytes of host memory at %p: %s",
				     m->info.len, m->info.host, why[0] ? why : strerror(-rc));
	m->info.path = NVMF_MEM_PATH_HOST;
	return 0;
}

static int host_copy(struct nvmf_mem *m, int dir, size_t off, size_t len)
{
	(void)m;
	(void)dir;
	(void)off;
	(void)len;
	return 0;
}

static int host_flush(struct nvmf_mem *m)
{
	(void)m;
	return 0;
}

static void nvmf_mem_dereg(struct nvmf_mem *m)
{
	while (m->nr_more) {
		m->nr_more--;
		m->more[m->nr_more].reg.dereg(m->more[m->nr_more].reg.ctx, &m->more[m->nr_more].mr);
		memset(&m->more[m->nr_more], 0, sizeof(m->more[0]));
	}
	if (m->registered && m->reg.dereg)
		m->reg.dereg(m->reg.ctx, &m->mr);
	m->registered = 0;
	memset(&m->mr, 0, sizeof(m->mr));
	if (m->dmabuf_fd >= 0)
		close(m->dmabuf_fd);
	m->dmabuf_fd = -1;
}

static int host_release(struct nvmf_mem *m)
{
	nvmf_mem_dereg(m);
	return 0;
}

static const struct nvmf_mem_ops nvmf_mem_host_ops = {
	.name    = "host",
	.open    = host_open,
	.attach  = host_attach,
	.reg     = host_reg,
	.copy    = host_copy,
	.flush   = host_flush,
	.release = host_release,
};

/* ---- CUDA device memory ---- */

/* A CUDA call failed: "CUDA device N: <what>: CUDA_ERROR_X (description)" in m->err.  fmt is a
 * literal, prefixed here, so the reason is formatted once (by nvmf_cuda_errf). */
#define cuda_fail(m, r, fmt, ...)                                                         \
	nvmf_cuda_errf((m)->cu, (r), (m)->err, sizeof((m)->err), "CUDA device %d: " fmt,  \
		       (m)->opts.cuda_device, ##__VA_ARGS__)

static int cuda_current(struct nvmf_mem *m)
{
	char e[NVMF_MEM_ERR_LEN - 32];
	int rc = nvmf_cuda_make_current(m->cu, m->ctx, e, sizeof(e));

	if (rc)
		return nvmf_mem_errf(m, rc, "CUDA device %d: %s", m->opts.cuda_device, e);
	return 0;
}

/* An attribute; an attribute this driver does not know (CUDA_ERROR_INVALID_VALUE) is -1. */
static int cuda_attr(struct nvmf_mem *m, nvmf_CUdevice_attribute a, const char *name, int *val)
{
	nvmf_CUresult r = m->cu->cuDeviceGetAttribute(val, a, m->dev);

	if (r == NVMF_CUDA_ERROR_INVALID_VALUE) {
		*val = -1;
		return 0;
	}
	if (r != NVMF_CUDA_SUCCESS)
		return cuda_fail(m, r, "cuDeviceGetAttribute(%s)", name);
	return 0;
}

static const char *cuda_ordering_name(int v)
{
	switch (v) {
	case NVMF_CU_GPU_DIRECT_RDMA_WRITES_ORDERING_NONE:
		return "none";
	case NVMF_CU_GPU_DIRECT_RDMA_WRITES_ORDERING_OWNER:
		return "owner";
	case NVMF_CU_GPU_DIRECT_RDMA_WRITES_ORDERING_ALL_DEVICES:
		return "all devices";
	default:
		return "unknown";
	}
}

static int cuda_open(struct nvmf_mem *m)
{
	struct nvmf_mem_info *in = &m->info;
	char e[NVMF_MEM_ERR_LEN - 32], bus[64];
	int rc, count = 0, flushopt = -1, order = -1;
	nvmf_CUresult r;

	rc = nvmf_cuda_load_lib(m->cuda_lib[0] ? m->cuda_lib : NVMF_CUDA_LIB, &m->cu, e, sizeof(e));
	if (rc)
		return nvmf_mem_errf(m, rc, "%s", e);
	in->driver_version = m->cu->driver_version;
	rc = nvmf_cuda_init(m->cu, e, sizeof(e));
	if (rc)
		return nvmf_mem_errf(m, rc, "%s", e);
	r = m->cu->cuDeviceGetCount(&count);
	if (r != NVMF_CUDA_SUCCESS)
		return cuda_fail(m, r, "cuDeviceGetCount");
	if (m->opts.cuda_device < 0 || m->opts.cuda_device >= count)
		return nvmf_mem_errf(m, -ENODEV, "CUDA device %d does not exist: the driver sees %d "
				     "device%s", m->opts.cuda_device, count, count == 1 ? "" : "s");
	r = m->cu->cuDeviceGet(&m->dev, m->opts.cuda_device);
	if (r != NVMF_CUDA_SUCCESS)
		return cuda_fail(m, r, "cuDeviceGet");
	memset(bus, 0, sizeof(bus));
	r = m->cu->cuDeviceGetPCIBusId(bus, (int)sizeof(bus) - 1, m->dev);
	if (r != NVMF_CUDA_SUCCESS)
		return cuda_fail(m, r, "cuDeviceGetPCIBusId");
	if (nvmf_pci_normalize(bus, in->gpu_pci, sizeof(in->gpu_pci)))
		snprintf(in->gpu_pci, sizeof(in->gpu_pci), "%.31s", bus);
	if ((rc = cuda_attr(m, NVMF_CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, "DMA_BUF_SUPPORTED",
			    &in->dmabuf_supported)) ||
	    (rc = cuda_attr(m, NVMF_CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED,
			    "GPU_DIRECT_RDMA_SUPPORTED", &in->gdr_supported)) ||
	    (rc = cuda_attr(m, NVMF_CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS,
			    "GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS", &flushopt)) ||
	    (rc = cuda_attr(m, NVMF_CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING,
			    "GPU_DIRECT_RDMA_WRITES_ORDERING", &order)))
		return rc;
	if (m->opts.staged) {
		snprintf(in->flush_note, sizeof(in->flush_note), "%s", STAGED_NO_FLUSH);
	} else if (!m->cu->cuFlushGPUDirectRDMAWrites) {
		snprintf(in->flush_note, sizeof(in->flush_note),
			 "the driver has no cuFlushGPUDirectRDMAWrites (CUDA 11.3 or newer has it)");
	} else if (flushopt >= 0 && !(flushopt & NVMF_CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST)) {
		snprintf(in->flush_note, sizeof(in->flush_note),
			 "the device does not support cuFlushGPUDirectRDMAWrites (flush options "
			 "0x%x, RDMA writes ordering: %s)", (unsigned)flushopt,
			 cuda_ordering_name(order));
	} else {
		in->flush = 1;
	}

	r = m->cu->cuDevicePrimaryCtxRetain(&m->ctx, m->dev);
	if (r != NVMF_CUDA_SUCCESS)
		return cuda_fail(m, r, "cuDevicePrimaryCtxRetain");
	m->ctx_retained = 1;
	in->ctx = m->ctx;
	return cuda_current(m);
}

/* Undo cuda_attach (on its failure paths). */
static void cuda_detach(struct nvmf_mem *m)
{
	char scratch[128];

	/* m->err keeps the failure that brought us here; free as in cuda_release. */
	if (m->info.dev_alloc) {
		nvmf_cuda_make_current(m->cu, m->ctx, scratch, sizeof(scratch));
		m->cu->cuMemFree_v2(m->info.dev_alloc);
	}
	m->info.dev_alloc = 0;
	m->info.dev_alloc_len = 0;
	m->info.dev = 0;
	free(m->staging);
	m->staging = NULL;
}

/* The zeroed, GPU-page aligned host area the target reads and writes in staged mode; NULL when
 * out of memory. */
static void *cuda_staging_alloc(struct nvmf_mem *m)
{
	if (posix_memalign(&m->staging, NVMF_GPU_PAGE, m->wire_len) || !m->staging) {
		m->staging = NULL;
		return NULL;
	}
	memset(m->staging, 0, m->wire_len);
	return m->staging;
}

static int cuda_attach(struct nvmf_mem *m, void *host, size_t len)
{
	struct nvmf_mem_info *in = &m->info;
	nvmf_CUdeviceptr p = 0;
	size_t alen = nvmf_round_up(len, NVMF_GPU_PAGE);
	unsigned int one = 1;
	nvmf_CUresult r;
	int rc;

	if ((rc = cuda_current(m)))
		return rc;
	r = m->cu->cuMemAlloc_v2(&p, alen);
	if (r != NVMF_CUDA_SUCCESS)
		return cuda_fail(m, r, "cuMemAlloc_v2 of %zu bytes", alen);
	if (p & (NVMF_GPU_PAGE - 1)) {
		/* GPUDirect pins whole 64 KiB GPU pages: allocate a page more and align. */
		r = m->cu->cuMemFree_v2(p);
		if (r != NVMF_CUDA_SUCCESS)
			return cuda_fail(m, r, "cuMemFree_v2");
		alen += NVMF_GPU_PAGE;
		p = 0;
		r = m->cu->cuMemAlloc_v2(&p, alen);
		if (r != NVMF_CUDA_SUCCESS)
			return cuda_fail(m, r, "cuMemAlloc_v2 of %zu bytes", alen);
	}
	in->dev_alloc = p;
	in->dev_alloc_len = alen;
	in->dev = (p + NVMF_GPU_PAGE - 1) & ~(nvmf_CUdeviceptr)(NVMF_GPU_PAGE - 1);
	m->wire_len = nvmf_round_up(len, NVMF_GPU_PAGE);

	/* Synchronous copies and RDMA into this memory then need no stream synchronization. */
	r = m->cu->cuPointerSetAttribute(&one, NVMF_CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, p);
	if (r != NVMF_CUDA_SUCCESS) {
		rc = cuda_fail(m, r, "cuPointerSetAttribute(SYNC_MEMOPS)");
		goto fail;
	}
	if (m->opts.staged) {
		if (!cuda_staging_alloc(m)) {
			rc = nvmf_mem_errf(m, -ENOMEM, "staging area of %zu bytes: out of memory",
					   m->wire_len);
			goto fail;
		}
		in->wire = (uint64_t)(uintptr_t)m->staging;
	} else {
		in->wire = in->dev;
	}
	/* The caller's initial bytes go to the device once: writes carry them even when
	 * nothing is copied per I/O (targets that compress or dedupe must not see zeroes). */
	r = m->cu->cuMemcpyHtoD_v2(in->dev, host, len);
	if (r != NVMF_CUDA_SUCCESS) {
		rc = cuda_fail(m, r, "cuMemcpyHtoD_v2 of the initial %zu bytes", len);
		goto fail;
	}
	return 0;
fail:
	cuda_detach(m);
	return rc;
}

static int nvmf_module_loaded(const struct nvmf_mem *m, const char *mod)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/module/%s", m->sysfs, mod);
	return stat(path, &st) == 0;
}

static int cuda_reg_dmabuf(struct nvmf_mem *m, const struct nvmf_mem_registrar *r, char *why,
			   size_t whylen)
{
	struct nvmf_mem_info *in = &m->info;
	char rwhy[NVMF_MEM_ERR_LEN / 2];
	nvmf_CUresult cr;
	int fd = -1, rc;

	if (!m->cu->cuMemGetHandleForAddressRange)
		return nvmf_errf(why, whylen, -EOPNOTSUPP, "the driver has no "
				 "cuMemGetHandleForAddressRange (CUDA 11.7 or newer has it)");
	if (in->dmabuf_supported == 0)
		return nvmf_errf(why, whylen, -EOPNOTSUPP, "the device or driver does not support "
				 "dma-buf (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED is 0: it needs the "
				 "open GPU kernel modules and Linux 5.12 or newer)");
	if ((rc = cuda_current(m)))
		return nvmf_errf(why, whylen, rc, "%.200s", m->err);
	cr = m->cu->cuMemGetHandleForAddressRange(&fd, in->dev, m->wire_len,
						  NVMF_CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
	if (cr != NVMF_CUDA_SUCCESS || fd < 0) {
		if (cr == NVMF_CUDA_SUCCESS)
			cr = NVMF_CUDA_ERROR_UNKNOWN;
		return nvmf_cuda_errf(m->cu, cr, why, whylen, "cuMemGetHandleForAddressRange");
	}
	rwhy[0] = 0;
	rc = r->reg_dmabuf(r->ctx, fd, m->wire_len, in->dev, &m->mr, rwhy, sizeof(rwhy));
	if (rc) {
		close(fd);
		return nvmf_errf(why, whylen, rc, "ibv_reg_dmabuf_mr: %s",
				 rwhy[0] ? rwhy : strerror(-rc));
	}
	m->dmabuf_fd = fd;
	return 0;
}

static int cuda_reg_peermem(struct nvmf_mem *m, const struct nvmf_mem_registrar *r, char *why,
			    size_t whylen)
{
	char rwhy[NVMF_MEM_ERR_LEN / 2];
	int rc;

	rwhy[0] = 0;
	rc = r->reg_va(r->ctx, (void *)(uintptr_t)m->info.dev, m->wire_len, &m->mr, rwhy,
		       sizeof(rwhy));
	if (rc)
		return nvmf_errf(why, whylen, rc, "ibv_reg_mr on device memory: %s (nvidia_peermem "
				 "is %s)", rwhy[0] ? rwhy : strerror(-rc),
				 nvmf_module_loaded(m, "nvidia_peermem") ? "loaded" : "not loaded");
	return 0;
}

static int cuda_reg_staging(struct nvmf_mem *m, const struct nvmf_mem_registrar *r)
{
	char why[NVMF_MEM_ERR_LEN / 2];
	int rc;

	why[0] = 0;
	rc = r->reg_va(r->ctx, m->staging, m->wire_len, &m->mr, why, sizeof(why));
	if (rc)
		return nvmf_mem_errf(m, rc, "registering the %zu-byte host staging area: %s",
				     m->wire_len, why[0] ? why : strerror(-rc));
	m->info.path = NVMF_MEM_PATH_HOST;
	return 0;
}

/* GPUDirect could not register and the caller allowed staging instead: from here on the
 * backend is in staged mode, and says why. */
static int cuda_fall_back_to_staging(struct nvmf_mem *m, const struct nvmf_mem_registrar *r,
				     const char *why)
{
	struct nvmf_mem_info *in = &m->info;
	int rc;

	if (!cuda_staging_alloc(m))
		return nvmf_mem_errf(m, -ENOMEM, "%s; staging instead: staging area of %zu bytes: "
				     "out of memory", why, m->wire_len);
	rc = cuda_reg_staging(m, r);
	if (rc) {
		char serr[NVMF_MEM_ERR_LEN];

		free(m->staging);
		m->staging = NULL;
		snprintf(serr, sizeof(serr), "%s", m->err);
		return nvmf_mem_errf(m, rc, "%.300s; staging instead: %.200s", why, serr);
	}
	m->opts.staged = in->staged = 1;
	in->wire = (uint64_t)(uintptr_t)m->staging;
	in->flush = 0;
	snprintf(in->flush_note, sizeof(in->flush_note), "%s", STAGED_NO_FLUSH);
	snprintf(in->fallback_note, sizeof(in->fallback_note), "%s", why);
	return 0;
}

static int cuda_reg(struct nvmf_mem *m, const struct nvmf_mem_registrar *r)
{
	struct nvmf_mem_info *in = &m->info;
	char dwhy[NVMF_MEM_ERR_LEN / 2], pwhy[NVMF_MEM_ERR_LEN / 2], why[NVMF_MEM_ERR_LEN];
	int rc = -EOPNOTSUPP, want = m->opts.reg;

	if (m->opts.staged)
		return cuda_reg_staging(m, r);
	dwhy[0] = pwhy[0] = 0;
	if (want == NVMF_MEM_REG_AUTO || want == NVMF_MEM_REG_DMABUF) {
		rc = cuda_reg_dmabuf(m, r, dwhy, sizeof(dwhy));
		if (!rc) {
			in->path = NVMF_MEM_PATH_DMABUF;
			return 0;
		}
	}
	if (want == NVMF_MEM_REG_AUTO || want == NVMF_MEM_REG_PEERMEM) {
		rc = cuda_reg_peermem(m, r, pwhy, sizeof(pwhy));
		if (!rc) {
			in->path = NVMF_MEM_PATH_PEERMEM;
			if (dwhy[0])
				snprintf(in->reg_note, sizeof(in->reg_note), "dma-buf: %s", dwhy);
			return 0;
		}
	}
	nvmf_errf(why, sizeof(why), rc, "cannot register %zu bytes of CUDA device %d memory for "
		  "RDMA: %s%s%s%s%s", m->wire_len, m->opts.cuda_device, dwhy[0] ? "dma-buf: " : "",
		  dwhy, dwhy[0] && pwhy[0] ? "; " : "", pwhy[0] ? "peermem: " : "", pwhy);
	if (m->opts.staged_fallback)
		return cuda_fall_back_to_staging(m, r, why);
	return nvmf_mem_errf(m, rc, "%s", why);
}

static int cuda_copy(struct nvmf_mem *m, int dir, size_t off, size_t len)
{
	struct nvmf_mem_info *in = &m->info;
	char *host, *stg;
	nvmf_CUdeviceptr d;
	nvmf_CUresult r;
	uint64_t t0;
	int rc;

	if ((dir == NVMF_COPY_STAGE_OUT || dir == NVMF_COPY_STAGE_IN) && !m->opts.staged)
		return 0;
	if ((rc = nvmf_mem_range(m, off, len)))
		return rc;
	if (!len)
		return 0;
	if ((rc = cuda_current(m)))
		return rc;
	host = (char *)in->host + off;
	stg = m->staging ? (char *)m->staging + off : NULL;
	d = in->dev + off;
	t0 = nvmf_now_ns();
	switch (dir) {
	case NVMF_COPY_TO_DEVICE:
		r = m->cu->cuMemcpyHtoD_v2(d, host, len);
		break;
	case NVMF_COPY_TO_HOST:
		r = m->cu->cuMemcpyDtoH_v2(host, d, len);
		break;
	case NVMF_COPY_STAGE_OUT:
		r = m->cu->cuMemcpyDtoH_v2(stg, d, len);
		break;
	default:
		r = m->cu->cuMemcpyHtoD_v2(d, stg, len);
		break;
	}
	if (r != NVMF_CUDA_SUCCESS)
		return cuda_fail(m, r, "%s of %zu bytes at offset %zu",
				 dir == NVMF_COPY_TO_HOST || dir == NVMF_COPY_STAGE_OUT ?
				 "cuMemcpyDtoH_v2" : "cuMemcpyHtoD_v2", len, off);
	nvmf_copy_count(dir == NVMF_COPY_TO_DEVICE ? &m->copies.to_device :
			dir == NVMF_COPY_TO_HOST ? &m->copies.to_host :
			dir == NVMF_COPY_STAGE_OUT ? &m->copies.stage_out : &m->copies.stage_in, len, t0);
	return 0;
}

static int cuda_flush(struct nvmf_mem *m)
{
	nvmf_CUresult r;
	uint64_t t0;
	int rc;

	if (!m->info.flush)
		return 0;
	if ((rc = cuda_current(m)))
		return rc;
	t0 = nvmf_now_ns();
	r = m->cu->cuFlushGPUDirectRDMAWrites(NVMF_CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
					      NVMF_CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER);
	if (r != NVMF_CUDA_SUCCESS)
		return cuda_fail(m, r, "cuFlushGPUDirectRDMAWrites");
	nvmf_copy_count(&m->copies.flush, 0, t0);
	return 0;
}

/* The MR first (the HCA may still reference the memory), then the memory, then the
 * context the memory belongs to. */
static int cuda_release(struct nvmf_mem *m)
{
	struct nvmf_mem_info *in = &m->info;
	int first = 0, rc;
	nvmf_CUresult r;

	nvmf_mem_dereg(m);
	if (in->dev_alloc) {
		/* Free even when the context could not be checked: it is most likely current
		 * still, and the memory would otherwise stay until the context goes. */
		rc = cuda_current(m);
		r = m->cu->cuMemFree_v2(in->dev_alloc);
		if (r != NVMF_CUDA_SUCCESS && !rc)
			rc = cuda_fail(m, r, "cuMemFree_v2");
		first = rc;
		in->dev_alloc = 0;
		in->dev = 0;
	}
	free(m->staging);
	m->staging = NULL;
	if (m->ctx_retained) {
		r = m->cu->cuDevicePrimaryCtxRelease_v2(m->dev);
		if (r != NVMF_CUDA_SUCCESS && !first)
			first = cuda_fail(m, r, "cuDevicePrimaryCtxRelease_v2");
		m->ctx_retained = 0;
	}
	return first;
}

static const struct nvmf_mem_ops nvmf_mem_cuda_ops = {
	.name    = "cuda",
	.open    = cuda_open,
	.attach  = cuda_attach,
	.reg     = cuda_reg,
	.copy    = cuda_copy,
	.flush   = cuda_flush,
	.release = cuda_release,
};

/* ---- the interface ---- */

int nvmf_mem_open(struct nvmf_mem **out, const struct nvmf_mem_opts *o, char *err,
		  size_t errlen)
{
	struct nvmf_mem *m;
	int rc;

	*out = NULL;
	if (o->kind != NVMF_MEM_HOST && o->kind != NVMF_MEM_CUDA)
		return nvmf_errf(err, errlen, -EINVAL, "unknown memory backend %d", o->kind);
	if (o->reg < NVMF_MEM_REG_AUTO || o->reg > NVMF_MEM_REG_PEERMEM)
		return nvmf_errf(err, errlen, -EINVAL, "unknown GPU registration mode %d", o->reg);
	m = calloc(1, sizeof(*m));
	if (!m)
		return nvmf_errf(err, errlen, -ENOMEM, "memory backend: out of memory");
	m->opts = *o;
	snprintf(m->sysfs, sizeof(m->sysfs), "%s", o->sysfs ? o->sysfs : "/sys");
	snprintf(m->cuda_lib, sizeof(m->cuda_lib), "%s", o->cuda_lib ? o->cuda_lib : "");
	m->opts.sysfs = m->sysfs;
	m->dmabuf_fd = -1;
	m->ops = o->kind == NVMF_MEM_CUDA ? &nvmf_mem_cuda_ops : &nvmf_mem_host_ops;
	m->info.kind = o->kind;
	m->info.staged = o->kind == NVMF_MEM_CUDA && o->staged;
	snprintf(m->info.staged_why, sizeof(m->info.staged_why), "%s",
		 m->info.staged && o->staged_why ? o->staged_why : "");
	m->opts.staged_why = m->info.staged_why;
	m->info.cuda_device = o->kind == NVMF_MEM_CUDA ? o->cuda_device : -1;
	m->info.dmabuf_supported = m->info.gdr_supported = -1;
	rc = m->ops->open(m);
	if (rc) {
		snprintf(err, errlen, "%s", m->err);
		m->ops->release(m);
		free(m);
		return rc;
	}
	*out = m;
	return 0;
}

int nvmf_mem_attach(struct nvmf_mem *m, void *host, size_t len)
{
	int rc;

	if (!host || !len)
		return nvmf_mem_errf(m, -EINVAL, "memory backend: no I/O area (%zu bytes at %p)",
				     len, host);
	if (m->info.host)
		return nvmf_mem_errf(m, -EBUSY, "memory backend: an I/O area is already attached");
	m->info.host = host;
	m->info.len = len;
	rc = m->ops->attach(m, host, len);
	if (rc) {
		/* The backend undid its part; the area is not attached. */
		m->info.host = NULL;
		m->info.len = 0;
		m->info.wire = 0;
		m->wire_len = 0;
	}
	return rc;
}

int nvmf_mem_register(struct nvmf_mem *m, const struct nvmf_mem_registrar *r)
{
	int rc;

	if (!m->info.host)
		return nvmf_mem_errf(m, -EINVAL, "memory backend: register before attach");
	if (m->registered)
		return nvmf_mem_errf(m, -EBUSY, "memory backend: already registered");
	if (!r || !r->reg_va || !r->reg_dmabuf || !r->dereg)
		return nvmf_mem_errf(m, -EINVAL, "memory backend: incomplete registrar");
	m->info.reg_note[0] = 0;
	rc = m->ops->reg(m, r);
	if (rc)
		return rc;
	m->reg = *r;
	m->registered = 1;
	return 0;
}

int nvmf_mem_register_more(struct nvmf_mem *m, const struct nvmf_mem_registrar *r,
			    const struct nvmf_mr **out)
{
	const struct nvmf_mem_info *in = &m->info;
	struct nvmf_mr *mr;
	char why[NVMF_MEM_ERR_LEN / 2];
	void *va;
	int rc;

	*out = NULL;
	if (!m->registered)
		return nvmf_mem_errf(m, -EINVAL, "memory backend: register more before register");
	if (!r || !r->reg_va || !r->reg_dmabuf || !r->dereg)
		return nvmf_mem_errf(m, -EINVAL, "memory backend: incomplete registrar");
	if (m->nr_more == NVMF_MEM_MAX_MORE)
		return nvmf_mem_errf(m, -ENOSPC, "memory backend: more than %d RDMA devices",
				     NVMF_MEM_MAX_MORE + 1);
	mr = &m->more[m->nr_more].mr;
	why[0] = 0;
	if (in->path == NVMF_MEM_PATH_DMABUF) {
		rc = r->reg_dmabuf(r->ctx, m->dmabuf_fd, m->wire_len, in->dev, mr, why, sizeof(why));
	} else {
		/* the same area the first registration took */
		va = in->path == NVMF_MEM_PATH_PEERMEM ? (void *)(uintptr_t)in->dev :
		     m->opts.kind == NVMF_MEM_CUDA ? m->staging : in->host;
		rc = r->reg_va(r->ctx, va, m->wire_len, mr, why, sizeof(why));
	}
	if (rc) {
		memset(mr, 0, sizeof(*mr));
		return nvmf_mem_errf(m, rc, "registering the %zu-byte %s area on another RDMA "
				     "device (%s): %s", m->wire_len, m->ops->name,
				     nvmf_mem_path_name(in->path), why[0] ? why : strerror(-rc));
	}
	m->more[m->nr_more].reg = *r;
	*out = mr;
	m->nr_more++;
	return 0;
}

int nvmf_mem_to_device(struct nvmf_mem *m, size_t off, size_t len)
{
	return m->ops->copy(m, NVMF_COPY_TO_DEVICE, off, len);
}

int nvmf_mem_to_host(struct nvmf_mem *m, size_t off, size_t len)
{
	return m->ops->copy(m, NVMF_COPY_TO_HOST, off, len);
}

int nvmf_mem_stage_out(struct nvmf_mem *m, size_t off, size_t len)
{
	return m->ops->copy(m, NVMF_COPY_STAGE_OUT, off, len);
}

int nvmf_mem_stage_in(struct nvmf_mem *m, size_t off, size_t len)
{
	return m->ops->copy(m, NVMF_COPY_STAGE_IN, off, len);
}

int nvmf_mem_flush(struct nvmf_mem *m)
{
	return m->ops->flush(m);
}

int nvmf_mem_prepare_write(struct nvmf_mem *m, size_t off, size_t len, int host_data)
{
	int rc = 0;

	if (host_data)
		rc = nvmf_mem_to_device(m, off, len);
	if (!rc)
		rc = nvmf_mem_stage_out(m, off, len);
	return rc;
}

int nvmf_mem_reads_reaped(struct nvmf_mem *m)
{
	return nvmf_mem_flush(m);
}

int nvmf_mem_finish_read(struct nvmf_mem *m, size_t off, size_t len, int host_data)
{
	int rc = nvmf_mem_stage_in(m, off, len);

	if (!rc && host_data)
		rc = nvmf_mem_to_host(m, off, len);
	return rc;
}

int nvmf_mem_close(struct nvmf_mem *m, char *err, size_t errlen)
{
	int rc;

	if (!m)
		return 0;
	m->err[0] = 0;
	rc = m->ops->release(m);
	if (rc && err && errlen)
		snprintf(err, errlen, "%s", m->err);
	free(m);
	return rc;
}

/* ---- locality ---- */

/* hex digits at *p, at least min and at most max of them; the value in *v */
static int nvmf_hex_field(const char **p, int min, int max, unsigned long *v)
{
	int n = 0;

	*v = 0;
	while (n < max && isxdigit((unsigned char)**p)) {
		char c = (char)tolower((unsigned char)**p);

		*v = *v * 16 + (unsigned long)(c <= '9' ? c - '0' : c - 'a' + 10);
		(*p)++;
		n++;
	}
	return n >= min && !isxdigit((unsigned char)**p);
}

int nvmf_pci_normalize(const char *in, char *out, size_t len)
{
	unsigned long dom, bus, dev, fn;
	const char *p = in;

	/* domain (4 or 8 digits, as sysfs and the CUDA driver print it), bus, device, function */
	if (!p || !nvmf_hex_field(&p, 4, 8, &dom) || *p++ != ':' ||
	    !nvmf_hex_field(&p, 2, 2, &bus) || *p++ != ':' ||
	    !nvmf_hex_field(&p, 2, 2, &dev) || *p++ != '.' ||
	    !nvmf_hex_field(&p, 1, 1, &fn) || *p || dev > 0x1f || fn > 7)
		return -EINVAL;
	snprintf(out, len, "%04lx:%02lx:%02lx.%lx", dom, bus, dev, fn);
	return 0;
}

static int nvmf_read_int(const char *path, int *val)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%d", val) == 1;
	fclose(f);
	return ok ? 0 : -EINVAL;
}

int nvmf_sysfs_pci_numa(const char *root, const char *pci)
{
	char path[512];
	int n;

	if (!pci || !pci[0])
		return -1;
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/numa_node", root ? root : "/sys", pci);
	if (nvmf_read_int(path, &n) || n < 0)
		return -1;
	return n;
}

int nvmf_sysfs_rdma_pci(const char *root, const char *dev, char *buf, size_t len)
{
	char target[PATH_MAX];
	const char *base;
	int rc;

	buf[0] = 0;
	if ((rc = nvmf_sysfs_rdma_parent(root, dev, target, sizeof(target))))
		return rc;
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	return nvmf_pci_normalize(base, buf, len) ? -ENOENT : 0;
}

void nvmf_mem_locality(const struct nvmf_mem *m, const char *rdma_dev,
		       struct nvmf_mem_locality *loc)
{
	char path[512];
	const char *root = m->sysfs;
	int n;

	memset(loc, 0, sizeof(*loc));
	loc->gpu_numa = loc->rdma_numa = -1;
	if (m->info.kind == NVMF_MEM_CUDA) {
		snprintf(loc->gpu_pci, sizeof(loc->gpu_pci), "%s", m->info.gpu_pci);
		loc->gpu_numa = nvmf_sysfs_pci_numa(root, loc->gpu_pci);
	}
	if (rdma_dev && rdma_dev[0] && !strchr(rdma_dev, '/')) {
		nvmf_sysfs_rdma_pci(root, rdma_dev, loc->rdma_pci, sizeof(loc->rdma_pci));
		snprintf(path, sizeof(path), "%s/class/infiniband/%s/device/numa_node", root,
			 rdma_dev);
		if (!nvmf_read_int(path, &n) && n >= 0)
			loc->rdma_numa = n;
	}
	loc->differs = loc->gpu_numa >= 0 && loc->rdma_numa >= 0 && loc->gpu_numa != loc->rdma_numa;
}

static void nvmf_numa_str(int n, char *buf, size_t len)
{
	if (n < 0)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%d", n);
}

void nvmf_mem_describe(const struct nvmf_mem *m, const char *rdma_dev, char *buf, size_t len)
{
	const struct nvmf_mem_info *in = &m->info;
	struct nvmf_mem_locality loc;
	char gn[16], rn[16], how[NVMF_MEM_ERR_LEN + 128], fl[192];
	size_t n;

	nvmf_mem_locality(m, rdma_dev, &loc);
	nvmf_numa_str(loc.gpu_numa, gn, sizeof(gn));
	nvmf_numa_str(loc.rdma_numa, rn, sizeof(rn));
	if (in->kind != NVMF_MEM_CUDA) {
		n = (size_t)snprintf(buf, len, "host memory");
	} else {
		if (in->staged && in->fallback_note[0])
			snprintf(how, sizeof(how), "staged through registered host memory "
				 "(gpudirect=auto, GPUDirect unavailable: %s)", in->fallback_note);
		else if (in->staged && in->staged_why[0])
			snprintf(how, sizeof(how), "staged through host memory (%s)", in->staged_why);
		else if (in->staged)
			snprintf(how, sizeof(how), "staged through registered host memory");
		else if (in->path == NVMF_MEM_PATH_NONE)
			snprintf(how, sizeof(how), "GPUDirect (not registered yet)");
		else
			snprintf(how, sizeof(how), "GPUDirect via %s%s%s%s",
				 nvmf_mem_path_name(in->path), in->reg_note[0] ? " (" : "",
				 in->reg_note, in->reg_note[0] ? ")" : "");
		if (in->staged)
			fl[0] = 0;
		else if (in->flush)
			snprintf(fl, sizeof(fl), ", cuFlushGPUDirectRDMAWrites after reads");
		else
			snprintf(fl, sizeof(fl), ", no flush after reads: %s", in->flush_note);
		n = (size_t)snprintf(buf, len, "CUDA device %d (%s, NUMA %s), %s%s", in->cuda_device,
				     in->gpu_pci, gn, how, fl);
	}
	if (n >= len)
		return;
	if (rdma_dev && rdma_dev[0]) {
		n += (size_t)snprintf(buf + n, len - n, "; RDMA device %s (%s, NUMA %s)", rdma_dev,
				      loc.rdma_pci[0] ? loc.rdma_pci : "no PCI device", rn);
		if (n >= len)
			return;
	}
	if (loc.differs)
		snprintf(buf + n, len - n, "; WARNING: the GPU is on NUMA node %d and the RDMA "
			 "device on node %d: cross-socket transfers can halve bandwidth",
			 loc.gpu_numa, loc.rdma_numa);
}
