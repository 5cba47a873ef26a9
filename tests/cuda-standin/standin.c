/* standin.c - a stand-in libcuda.so.1 for machines without a GPU: exactly the subset of the
 * CUDA driver API that lib/nvmf_cuda_api.h declares, over host memory, and strict where the
 * real driver is strict:
 *  - a current context per thread; calls that need one fail CUDA_ERROR_INVALID_CONTEXT;
 *  - primary contexts are reference counted (retain/release); a context released to zero
 *    frees its allocations (reported as a VIOLATION: free memory before releasing);
 *  - nothing works before cuInit, nor in a process forked after cuInit
 *    (CUDA_ERROR_NOT_INITIALIZED, as the real driver);
 *  - allocations are 2 MiB aligned (NVMF_STANDIN_ALLOC_OFFSET shifts them for tests) and live
 *    in a memfd; with NVMF_STANDIN_DEVMEM=none the device address is PROT_NONE, so the CPU
 *    cannot touch device memory except through the copy calls;
 *  - dma-buf export through /dev/udmabuf where the kernel has it, else
 *    CUDA_ERROR_NOT_SUPPORTED; freeing memory whose dma-buf is still open is a VIOLATION;
 *  - the unversioned legacy entry points (32-bit sizes) print and abort;
 *  - an optional call log, fault injection, and a knob that drops device->host copies.
 * Knobs: tests/cuda-standin/standin.h.  Build variants: -DNVMF_STANDIN_CUDA11_2 lacks the
 * entry points newer than CUDA 11.2; -DNVMF_STANDIN_CUDA10 also lacks
 * cuDevicePrimaryCtxRelease_v2. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "nvmf_cuda_api.h"
#include "standin.h"

#ifdef NVMF_STANDIN_CUDA10
#define NVMF_STANDIN_CUDA11_2
#endif

/* /dev/udmabuf's interface (linux/udmabuf.h), spelled out so no kernel header is needed. */
struct standin_udmabuf_create {
	uint32_t memfd;
	uint32_t flags;
	uint64_t offset;
	uint64_t size;
};
#define STANDIN_UDMABUF_FLAGS_CLOEXEC 0x01
#define STANDIN_UDMABUF_CREATE _IOW('u', 0x42, struct standin_udmabuf_create)

#define STANDIN_ALIGN   (2u << 20)
#define STANDIN_PAGE    4096u
#define MAX_DMABUFS     8
#define MAX_FAILS       32

/* Prototypes of every exported entry point (the real library's ABI, from our declarations). */
#define STANDIN_PROTO(name, params) nvmf_CUresult name params;
NVMF_CUDA_API(STANDIN_PROTO)
#undef STANDIN_PROTO
/* The legacy ABI: 32-bit device pointers and sizes. */
nvmf_CUresult cuMemAlloc(unsigned int *dptr, unsigned int bytesize);
nvmf_CUresult cuMemFree(unsigned int dptr);
nvmf_CUresult cuMemcpyHtoD(unsigned int dst, const void *src, unsigned int n);
nvmf_CUresult cuMemcpyDtoH(void *dst, unsigned int src, unsigned int n);
nvmf_CUresult cuDevicePrimaryCtxRelease(nvmf_CUdevice dev);
nvmf_CUresult cuDevicePrimaryCtxReset(nvmf_CUdevice dev);
nvmf_CUresult cuGetProcAddress(const char *symbol, void **pfn, int ver, unsigned long long fl);
nvmf_CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int ver,
				  unsigned long long fl, void *status);
int nvmf_standin_stats(struct nvmf_standin_stats *st);

struct CUctx_st {
	int dev;
	int magic;
};

struct standin_dev {
	int             refs;
	char            pci[32];
	struct CUctx_st ctx;
};

struct standin_alloc {
	struct standin_alloc *next;
	int                   id;
	int                   dev;
	uint64_t              dptr;      /* what cuMemAlloc_v2 returned */
	size_t                size;
	char                 *devmap;    /* the mapping at the device address (may be PROT_NONE) */
	char                 *rw;        /* the stand-in's own view of the same pages */
	size_t                maplen;    /* both mappings; devmap + (dptr - devmap) = dptr */
	int                   memfd;
	int                   sync_memops;
	struct { int fd; dev_t dev; ino_t ino; } dmabuf[MAX_DMABUFS];
};

struct standin_fail {
	char          name[48];
	unsigned long n;
	int           plus;
	nvmf_CUresult err;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static __thread struct CUctx_st *cur;
static struct standin_dev devs[NVMF_STANDIN_MAX_DEVICES];
static int ndevs = 1;
static struct standin_alloc *allocs;
static int next_id = 1;
static int init_pid;
static int violations;
static unsigned long calls;
/* every dma-buf ever exported, to count the ones still open */
static struct { int fd; dev_t dev; ino_t ino; } exported[64];
static int nexported;

/* knobs, re-read when the environment changes */
static char env_log[512], env_fail[1024], env_sig[2048];
static int log_fd = -1;
static struct standin_fail fails[MAX_FAILS];
static int nfails;
static struct { char name[48]; unsigned long n; } counts[64];
static int ncounts;
static int drop_dtoh, attr_dmabuf = 1, attr_gdr = 1, attr_flush = 1, attr_order, version = 12080;
static int devmem_none, legacy_error;
static size_t alloc_offset;

static const struct { nvmf_CUresult r; const char *name, *text; } errs[] = {
	{ NVMF_CUDA_SUCCESS, "CUDA_SUCCESS", "no error" },
	{ NVMF_CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument" },
	{ NVMF_CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory" },
	{ NVMF_CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error" },
	{ NVMF_CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", "driver shutting down" },
	{ NVMF_CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected" },
	{ NVMF_CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal" },
	{ NVMF_CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context" },
	{ NVMF_CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle" },
	{ NVMF_CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found" },
	{ NVMF_CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered" },
	{ NVMF_CUDA_ERROR_NOT_PERMITTED, "CUDA_ERROR_NOT_PERMITTED", "operation not permitted" },
	{ NVMF_CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported" },
	{ NVMF_CUDA_ERROR_SYSTEM_NOT_READY, "CUDA_ERROR_SYSTEM_NOT_READY", "system not yet initialized" },
	{ NVMF_CUDA_ERROR_TIMEOUT, "CUDA_ERROR_TIMEOUT", "timeout" },
	{ NVMF_CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error" },
};

static const char *err_name(nvmf_CUresult r)
{
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++)
		if (errs[i].r == r)
			return errs[i].name;
	return NULL;
}

static int env_int(const char *name, int def)
{
	const char *v = getenv(name);

	return v && *v ? (int)strtol(v, NULL, 0) : def;
}

static nvmf_CUresult parse_err(const char *s, nvmf_CUresult def)
{
	char *end;
	unsigned long v;

	if (!s || !*s)
		return def;
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++)
		if (!strcmp(errs[i].name, s))
			return errs[i].r;
	v = strtoul(s, &end, 0);
	return *end ? def : (nvmf_CUresult)v;
}

static void parse_fails(const char *spec)
{
	char buf[1024], *save = NULL, *tok;

	nfails = 0;
	ncounts = 0;
	snprintf(buf, sizeof(buf), "%s", spec);
	for (tok = strtok_r(buf, ",", &save); tok && nfails < MAX_FAILS;
	     tok = strtok_r(NULL, ",", &save)) {
		struct standin_fail *f = &fails[nfails];
		char *c1 = strchr(tok, ':'), *c2, *end;

		if (!c1)
			continue;
		*c1++ = 0;
		c2 = strchr(c1, ':');
		if (c2)
			*c2++ = 0;
		snprintf(f->name, sizeof(f->name), "%s", tok);
		f->n = strtoul(c1, &end, 10);
		f->plus = *end == '+';
		f->err = parse_err(c2, strcmp(tok, "cuMemAlloc_v2") ? NVMF_CUDA_ERROR_UNKNOWN :
				   NVMF_CUDA_ERROR_OUT_OF_MEMORY);
		if (f->n)
			nfails++;
	}
}

/* Called with the lock held, at every entry. */
static void sync_env(void)
{
	char sig[2048];
	const char *log = getenv("NVMF_STANDIN_LOG"), *fail = getenv("NVMF_STANDIN_FAIL");

	snprintf(sig, sizeof(sig), "%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s", log ? log : "",
		 fail ? fail : "", getenv("NVMF_STANDIN_DROP_DTOH") ?: "",
		 getenv("NVMF_STANDIN_DEVICES") ?: "", getenv("NVMF_STANDIN_PCI") ?: "",
		 getenv("NVMF_STANDIN_DMABUF") ?: "", getenv("NVMF_STANDIN_GDR") ?: "",
		 getenv("NVMF_STANDIN_FLUSH_OPTIONS") ?: "", getenv("NVMF_STANDIN_ORDERING") ?: "",
		 getenv("NVMF_STANDIN_VERSION") ?: "", getenv("NVMF_STANDIN_DEVMEM") ?: "",
		 getenv("NVMF_STANDIN_ALLOC_OFFSET") ?: "", getenv("NVMF_STANDIN_LEGACY") ?: "");
	if (!strcmp(sig, env_sig))
		return;
	snprintf(env_sig, sizeof(env_sig), "%s", sig);
	if (strcmp(log ? log : "", env_log)) {
		if (log_fd >= 0)
			close(log_fd);
		log_fd = -1;
		snprintf(env_log, sizeof(env_log), "%s", log ? log : "");
		if (env_log[0])
			log_fd = open(env_log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	}
	if (strcmp(fail ? fail : "", env_fail)) {
		snprintf(env_fail, sizeof(env_fail), "%s", fail ? fail : "");
		parse_fails(env_fail);
	}
	drop_dtoh = env_int("NVMF_STANDIN_DROP_DTOH", 0);
	ndevs = env_int("NVMF_STANDIN_DEVICES", 1);
	if (ndevs < 0)
		ndevs = 0;
	if (ndevs > NVMF_STANDIN_MAX_DEVICES)
		ndevs = NVMF_STANDIN_MAX_DEVICES;
	for (int i = 0; i < NVMF_STANDIN_MAX_DEVICES; i++)
		snprintf(devs[i].pci, sizeof(devs[i].pci), "0000:%02x:00.0", i);
	{
		const char *p = getenv("NVMF_STANDIN_PCI");
		char buf[512], *save = NULL, *tok;
		int i = 0;

		snprintf(buf, sizeof(buf), "%s", p ? p : "");
		for (tok = strtok_r(buf, ",", &save); tok && i < NVMF_STANDIN_MAX_DEVICES;
		     tok = strtok_r(NULL, ",", &save))
			snprintf(devs[i++].pci, sizeof(devs[0].pci), "%s", tok);
	}
	attr_dmabuf = env_int("NVMF_STANDIN_DMABUF", 1);
	attr_gdr = env_int("NVMF_STANDIN_GDR", 1);
	attr_flush = env_int("NVMF_STANDIN_FLUSH_OPTIONS", 1);
	attr_order = env_int("NVMF_STANDIN_ORDERING", 0);
	version = env_int("NVMF_STANDIN_VERSION", 12080);
	devmem_none = getenv("NVMF_STANDIN_DEVMEM") && !strcmp(getenv("NVMF_STANDIN_DEVMEM"), "none");
	alloc_offset = (size_t)env_int("NVMF_STANDIN_ALLOC_OFFSET", 0) % STANDIN_ALIGN;
	legacy_error = getenv("NVMF_STANDIN_LEGACY") && !strcmp(getenv("NVMF_STANDIN_LEGACY"), "error");
}

static void logf_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void logf_line(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	if (log_fd < 0)
		return;
	n = snprintf(line, sizeof(line), "[%d] ", (int)getpid());
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	if (write(log_fd, line, (size_t)n) < 0) {
		/* nothing to do: the log is optional */
	}
}

/* Entry: lock, knobs, count, fault injection.  Returns 0 or the injected error. */
static nvmf_CUresult enter(const char *name)
{
	unsigned long n = 0;
	int i;

	pthread_mutex_lock(&lock);
	sync_env();
	calls++;
	for (i = 0; i < ncounts; i++)
		if (!strcmp(counts[i].name, name))
			break;
	if (i == ncounts && ncounts < (int)(sizeof(counts) / sizeof(counts[0]))) {
		snprintf(counts[i].name, sizeof(counts[i].name), "%s", name);
		counts[i].n = 0;
		ncounts++;
	}
	if (i < ncounts)
		n = ++counts[i].n;
	for (int f = 0; f < nfails; f++)
		if (!strcmp(fails[f].name, name) && (n == fails[f].n || (fails[f].plus && n > fails[f].n)))
			return fails[f].err;
	return NVMF_CUDA_SUCCESS;
}

/* Exit: log "name args -> RESULT" and unlock. */
static nvmf_CUresult leave(const char *name, nvmf_CUresult r, int injected, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static nvmf_CUresult leave(const char *name, nvmf_CUresult r, int injected, const char *fmt, ...)
{
	char args[512];
	const char *en = err_name(r);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	if (en)
		logf_line("%s%s%s -> %s%s", name, args[0] ? " " : "", args, en,
			  injected ? " (injected)" : "");
	else
		logf_line("%s%s%s -> %u%s", name, args[0] ? " " : "", args, r,
			  injected ? " (injected)" : "");
	pthread_mutex_unlock(&lock);
	return r;
}

#define ENTER(name)                                                                       \
	nvmf_CUresult inj_ = enter(name);                                                 \
	const char *fn_ = name
#define INJECTED() (inj_ != NVMF_CUDA_SUCCESS)
#define RETURN(r, ...) return leave(fn_, (r), 0, __VA_ARGS__)
#define RETURN_INJECTED(...) return leave(fn_, inj_, 1, __VA_ARGS__)

static int initialized(void)
{
	return init_pid && init_pid == (int)getpid();
}

static int ctx_active(const struct CUctx_st *c)
{
	for (int i = 0; i < ndevs; i++)
		if (c == &devs[i].ctx)
			return devs[i].refs > 0;
	return 0;
}

static struct standin_alloc *find_alloc(uint64_t p, size_t len)
{
	for (struct standin_alloc *a = allocs; a; a = a->next)
		if (p >= a->dptr && p - a->dptr <= a->size && len <= a->size - (p - a->dptr))
			return a;
	return NULL;
}

static void dptr_str(uint64_t p, char *buf, size_t len)
{
	struct standin_alloc *a = find_alloc(p, 0);

	if (a)
		snprintf(buf, len, "d%d+%" PRIu64, a->id, p - a->dptr);
	else
		snprintf(buf, len, "0x%" PRIx64, p);
}

static int dmabuf_open(const struct standin_alloc *a, int i)
{
	struct stat st;

	return a->dmabuf[i].fd >= 0 && fstat(a->dmabuf[i].fd, &st) == 0 &&
	       st.st_dev == a->dmabuf[i].dev && st.st_ino == a->dmabuf[i].ino;
}

static void free_alloc(struct standin_alloc *a)
{
	struct standin_alloc **pp;

	for (pp = &allocs; *pp; pp = &(*pp)->next)
		if (*pp == a) {
			*pp = a->next;
			break;
		}
	munmap(a->devmap, a->maplen);
	munmap(a->rw, a->maplen);
	close(a->memfd);
	free(a);
}

/* ---- errors, version, init ---- */

nvmf_CUresult cuGetErrorName(nvmf_CUresult error, const char **pStr)
{
	const char *n = err_name(error);

	if (!pStr)
		return NVMF_CUDA_ERROR_INVALID_VALUE;
	*pStr = n;
	return n ? NVMF_CUDA_SUCCESS : NVMF_CUDA_ERROR_INVALID_VALUE;
}

nvmf_CUresult cuGetErrorString(nvmf_CUresult error, const char **pStr)
{
	if (!pStr)
		return NVMF_CUDA_ERROR_INVALID_VALUE;
	*pStr = NULL;
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++)
		if (errs[i].r == error) {
			*pStr = errs[i].text;
			return NVMF_CUDA_SUCCESS;
		}
	return NVMF_CUDA_ERROR_INVALID_VALUE;
}

nvmf_CUresult cuDriverGetVersion(int *driverVersion)
{
	ENTER("cuDriverGetVersion");
	if (INJECTED())
		RETURN_INJECTED("%s", "");
	if (!driverVersion)
		RETURN(NVMF_CUDA_ERROR_INVALID_VALUE, "%s", "");
	*driverVersion = version;
	RETURN(NVMF_CUDA_SUCCESS, "version=%d", version);
}

nvmf_CUresult cuInit(unsigned int Flags)
{
	ENTER("cuInit");
	if (INJECTED())
		RETURN_INJECTED("flags=%u", Flags);
	if (Flags)
		RETURN(NVMF_CUDA_ERROR_INVALID_VALUE, "flags=%u", Flags);
	if (init_pid && init_pid != (int)getpid())
		RETURN(NVMF_CUDA_ERROR_NOT_INITIALIZED, "flags=0 (forked from pid %d after its cuInit)",
		       init_pid);
	if (!ndevs)
		RETURN(NVMF_CUDA_ERROR_NO_DEVICE, "flags=0");
	init_pid = (int)getpid();
	RETURN(NVMF_CUDA_SUCCESS, "flags=0");
}

#define NEED_INIT(...)                                                                    \
	do {                                                                              \
		if (!initialized())                                                       \
			RETURN(NVMF_CUDA_ERROR_NOT_INITIALIZED, __VA_ARGS__);             \
	} while (0)
#define NEED_CTX(...)                                                                     \
	do {                                                                              \
		if (!cur || !ctx_active(cur))                                             \
			RETURN(NVMF_CUDA_ERROR_INVALID_CONTEXT, __VA_ARGS__);             \
	} while (0)

/* ---- devices ---- */

nvmf_CUresult cuDeviceGetCount(int *count)
{
	ENTER("cuDeviceGetCount");
	if (INJECTED())
		RETURN_INJECTED("%s", "");
	NEED_INIT("%s", "");
	if (!count)
		RETURN(NVMF_CUDA_ERROR_INVALID_VALUE, "%s", "");
	*count = ndevs;
	RETURN(NVMF_CUDA_SUCCESS, "count=%d", ndevs);
}

nvmf_CUresult cuDeviceGet(nvmf_CUdevice *device, int ordinal)
{
	ENTER("cuDeviceGet");
	if (INJECTED())
		RETURN_INJECTED("ordinal=%d", ordinal);
	NEED_INIT("ordinal=%d", ordinal);
	if (!device)
		RETURN(NVMF_CUDA_ERROR_INVALID_VALUE, "ordinal=%d", ordinal);
	if (ordinal < 0 || ordinal >= ndevs)
		RETURN(NVMF_CUDA_ERROR_INVALID_DEVICE, "ordinal=%d", ordinal);
	*device = ordinal;
	RETURN(NVMF_CUDA_SUCCESS, "ordinal=%d", ordinal);
}

nvmf_CUresult cuDeviceGetAttribute(int *pi, nvmf_CUdevice_attribute attrib, nvmf_CUdevice dev)
{
	unsigned dom = 0, bus = 0, d = 0, fn = 0;
	int v;

	ENTER("cuDeviceGetAttribute");
	if (INJECTED())
		RETURN_INJECTED("attr=%u dev=%d", attrib, dev);
	NEED_INIT("attr=%u dev=%d", attrib, dev);
	if (!pi)
		RETURN(NVMF_CUDA_ERROR_INVALID_VALUE, "attr=%u dev=%d", attrib, dev);
	if (dev < 0 || dev >= ndevs)
		RETURN(NVMF_CUDA_ERROR_INVALID_DEVICE, "attr=%u dev=%d", attrib, dev);
	sscanf(devs[dev].pci, "%x:%x:%x.%x", &dom, &bus, &d, &fn);
	switch (attrib) {
	case NVMF_CU_DEVICE_ATTRIBUTE_PCI_BUS_ID:
		v = (int)bus;
		break;
	case NVMF_CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID:
		v = (int)d;
		break;
	case NVMF_CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID:
		v = (int)dom;
		break;
	case NVMF_CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING:
		v = 1;
		break;
	case NVMF_CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED:
		v = attr_gdr;
		break;
	case NVMF_CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS:
		v = attr_flush;
		break;
	case NVMF_CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING:
		v = attr_order;
		break;
	case NVMF_CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED:
		v = attr_dmabuf;
		break;
	default:
		fprintf(stderr, "standin libcuda: cuDeviceGetAttribute(%u) is not implemented\n",
			attrib);
		RETURN(NVMF_CUDA_ERROR_INVALID_VALUE, "attr=%u dev=%d (not in the stand-in)", attrib,
		       dev);
	}
	*pi = v;
	RETURN(NVMF_CUDA_SUCCESS, "attr=%u dev=%d value=%d", attrib, dev, v);
}

nvmf_CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, nvmf_CUdevice dev)
{
	ENTER("cuDeviceGetPCIBusId");
	if (INJECTED())
		RETURN_INJECTED("dev=%d", dev);
	NEED_INIT("dev=%d", dev);
	if (!pciBusId || len < 13)
		RETURN(NVMF_CUDA_ERROR_INVALID_VALUE, "dev=%d len=%d", dev, len);
	if (dev < 0 || dev >= ndevs)
		RETURN(NVMF_CUDA_ERROR_INVALID_DEVICE, "dev=%d", dev);
	snprintf(pciBusId, (size_t)len, "%s", devs[dev].pci);
	RETURN(NVMF_CUDA_SUCCESS, "dev=%d bus=%s", dev, devs[dev].pci);
}

/* ---- contexts ---- */

nvmf_CUresult cuDevicePrimaryCtxRetain(nvmf_CUcontext *pctx, nvmf_CUdevice dev)
{
	ENTER("cuDevicePrimaryCtxRetain");
	if (INJECTED())
		RETURN_INJECTED("dev=%d", dev);
	NEED_INIT("dev=%d", dev);
	if (!pctx)
		RETURN(NVMF_CUDA_ERROR_INVALID_VALUE, "dev=%d", dev);
	if (dev < 0 || dev >= ndevs)
		RETURN(NVMF_CUDA_ERROR_INVALID_DEVICE, "dev=%d", dev);
	devs[dev].ctx.dev = dev;
	devs[dev].ctx.magic = 0x5ca1ab1e;
	devs[dev].refs++;
	*pctx = &devs[dev].ctx;
	RETURN(NVMF_CUDA_SUCCESS, "dev=%d refs=%d", dev, devs[dev].refs);
}

#ifndef NVMF_STANDIN_CUDA10
nvmf_CUresult cuDevicePrimaryCtxRelease_v2(nvmf_CUdevice dev)
{
	int live = 0;

	ENTER("cuDevicePrimaryCtxRelease_v2");
	if (INJECTED())
		RETURN_INJECTED("dev=%d", dev);
	NEED_INIT("dev=%d", dev);
	if (dev < 0 || dev >= ndevs)
		RETURN(NVMF_CUDA_ERROR_INVALID_DEVICE, "dev=%d", dev);
	if (devs[dev].refs <= 0)
		RETURN(NVMF_CUDA_ERROR_INVALID_CONTEXT, "dev=%d (not retained)", dev);
	if (--devs[dev].refs == 0) {
		struct standin_alloc *a = allocs, *n;

		for (; a; a = n) {
			n = a->next;
			if (a->dev == dev) {
				live++;
				free_alloc(a);
			}
		}
		if (live) {
			violations++;
			logf_line("VIOLATION: primary context of device %d released with %d live "
				  "allocation(s) (freed with it)", dev, live);
		}
	}
	RETURN(NVMF_CUDA_SUCCESS, "dev=%d refs=%d", dev, devs[dev].refs);
}
#endif

nvmf_CUresult cuCtxSetCurrent(nvmf_CUcontext ctx)
{
	ENTER("cuCtxSetCurrent");
	if (INJECTED())
		RETURN_INJECTED("ctx=%p", (void *)ctx);
	NEED_INIT("ctx=%p", (void *)ctx);
	if (ctx && !ctx_active(ctx))
		RETURN(NVMF_CUDA_ERROR_INVALID_CONTEXT, "ctx=%p", (void *)ctx);
	cur = ctx;
	RETURN(NVMF_CUDA_SUCCESS, "ctx=%s%d", ctx ? "primary:" : "none", ctx ? ctx->dev : 0);
}

nvmf_CUresult cuCtxGetCurrent(nvmf_CUcontext *pctx)
{
	ENTER("cuCtxGetCurrent");
	if (INJECTED())
		RETURN_INJECTED("%s", "");
	NEED_INIT("%s", "");
	if (!pctx)
		RETURN(NVMF_CUDA_ERROR_INVALID_VALUE, "%s", "");
	*pctx = cur;
	RETURN(NVMF_CUDA_SUCCESS, "ctx=%s%d", cur ? "primary:" : "none", cur ? cur->dev : 0);
}

nvmf_CUresult cuCtxGetDevice(nvmf_CUdevice *device)
{
	ENTER("cuCtxGetDevice");
	if (INJECTED())
		RETURN_INJECTED("%s", "");
	NEED_INIT("%s", "");
	NEED_CTX("%s", "(no current context)");
	if (!device)
		RETURN(NVMF_CUDA_ERROR_INVALID_VALUE, "%s", "");
	*device = cur->dev;
	RETURN(NVMF_CUDA_SUCCESS, "dev=%d", cur->dev);
}

/* ---- memory ---- */

nvmf_CUresult cuMemAlloc_v2(nvmf_CUdeviceptr *dptr, size_t bytesize)
{
	struct standin_alloc *a;
	size_t maplen;
	char *res, *at, name[32];
	int fd;

	ENTER("cuMemAlloc_v2");
	if (INJECTED())
		RETURN_INJECTED("size=%zu", bytesize);
	NEED_INIT("size=%zu", bytesize);
	NEED_CTX("size=%zu (no current context)", bytesize);
	if (!dptr || !bytesize)
		RETURN(NVMF_CUDA_ERROR_INVALID_VALUE, "size=%zu", bytesize);
	maplen = (alloc_offset + bytesize + STANDIN_PAGE - 1) / STANDIN_PAGE * STANDIN_PAGE;
	a = calloc(1, sizeof(*a));
	snprintf(name, sizeof(name), "standin-cuda-%d", next_id);
	fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (!a || fd < 0 || ftruncate(fd, (off_t)maplen) ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) < 0) {
		if (fd >= 0)
			close(fd);
		free(a);
		RETURN(NVMF_CUDA_ERROR_OUT_OF_MEMORY, "size=%zu (memfd: %s)", bytesize, strerror(errno));
	}
	/* Reserve room for a 2 MiB-aligned placement, then map the memfd there. */
	res = mmap(NULL, maplen + STANDIN_ALIGN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED) {
		close(fd);
		free(a);
		RETURN(NVMF_CUDA_ERROR_OUT_OF_MEMORY, "size=%zu", bytesize);
	}
	at = (char *)(((uintptr_t)res + STANDIN_ALIGN - 1) & ~(uintptr_t)(STANDIN_ALIGN - 1));
	if (at > res)
		munmap(res, (size_t)(at - res));
	if (res + maplen + STANDIN_ALIGN > at + maplen)
		munmap(at + maplen, (size_t)(res + maplen + STANDIN_ALIGN - (at + maplen)));
	a->devmap = mmap(at, maplen, devmem_none ? PROT_NONE : PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, fd, 0);
	a->rw = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (a->devmap == MAP_FAILED || a->rw == MAP_FAILED) {
		if (a->devmap != MAP_FAILED)
			munmap(a->devmap, maplen);
		else
			munmap(at, maplen);
		if (a->rw != MAP_FAILED)
			munmap(a->rw, maplen);
		close(fd);
		free(a);
		RETURN(NVMF_CUDA_ERROR_OUT_OF_MEMORY, "size=%zu", bytesize);
	}
	a->id = next_id++;
	a->dev = cur->dev;
	a->dptr = (uint64_t)(uintptr_t)a->devmap + alloc_offset;
	a->size = bytesize;
	a->maplen = maplen;
	a->memfd = fd;
	for (int i = 0; i < MAX_DMABUFS; i++)
		a->dmabuf[i].fd = -1;
	a->next = allocs;
	allocs = a;
	*dptr = a->dptr;
	RETURN(NVMF_CUDA_SUCCESS, "size=%zu -> d%d=0x%" PRIx64 " dev=%d", bytesize, a->id, a->dptr,
	       a->dev);
}

nvmf_CUresult cuMemFree_v2(nvmf_CUdeviceptr dptr)
{
	struct standin_alloc *a;
	int id;

	ENTER("cuMemFree_v2");
	if (INJECTED())
		RETURN_INJECTED("ptr=0x%llx", dptr);
	NEED_INIT("ptr=0x%llx", dptr);
	NEED_CTX("ptr=0x%llx (no current context)", dptr);
	a = find_alloc(dptr, 0);
	if (!a || a->dptr != dptr)
		RETURN(NVMF_CUDA_ERROR_INVALID_VALUE, "ptr=0x%llx (not an allocation)", dptr);
	for (int i = 0; i < MAX_DMABUFS; i++)
		if (dmabuf_open(a, i)) {
			violations++;
			logf_line("VIOLATION: cuMemFree_v2 of d%d while its dma-buf fd %d is still "
				  "open (deregister and close first)", a->id, a->dmabuf[i].fd);
		}
	id = a->id;
	free_alloc(a);
	RETURN(NVMF_CUDA_SUCCESS, "ptr=d%d", id);
}

nvmf_CUresult cuMemcpyHtoD_v2(nvmf_CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
	struct standin_alloc *a;
	char d[48];

	ENTER("cuMemcpyHtoD_v2");
	dptr_str(dstDevice, d, sizeof(d));
	if (INJECTED())
		RETURN_INJECTED("dst=%s src=%p len=%zu", d, srcHost, ByteCount);
	NEED_INIT("dst=%s len=%zu", d, ByteCount);
	NEED_CTX("dst=%s len=%zu (no current context)", d, ByteCount);
	a = find_alloc(dstDevice, ByteCount);
	if (!a || !srcHost)
		RETURN(NVMF_CUDA_ERROR_INVALID_VALUE, "dst=%s src=%p len=%zu (outside any "
		       "allocation)", d, srcHost, ByteCount);
	memcpy(a->rw + (dstDevice - (uint64_t)(uintptr_t)a->devmap), srcHost, ByteCount);
	RETURN(NVMF_CUDA_SUCCESS, "dst=%s src=%p len=%zu sync=%d", d, srcHost, ByteCount,
	       a->sync_memops);
}

nvmf_CUresult cuMemcpyDtoH_v2(void *dstHost, nvmf_CUdeviceptr srcDevice, size_t ByteCount)
{
	struct standin_alloc *a;
	char s[48];

	ENTER("cuMemcpyDtoH_v2");
	dptr_str(srcDevice, s, sizeof(s));
	if (INJECTED())
		RETURN_INJECTED("dst=%p src=%s len=%zu", dstHost, s, ByteCount);
	NEED_INIT("src=%s len=%zu", s, ByteCount);
	NEED_CTX("src=%s len=%zu (no current context)", s, ByteCount);
	a = find_alloc(srcDevice, ByteCount);
	if (!a || !dstHost)
		RETURN(NVMF_CUDA_ERROR_INVALID_VALUE, "dst=%p src=%s len=%zu (outside any "
		       "allocation)", dstHost, s, ByteCount);
	if (!drop_dtoh)
		memcpy(dstHost, a->rw + (srcDevice - (uint64_t)(uintptr_t)a->devmap), ByteCount);
	RETURN(NVMF_CUDA_SUCCESS, "dst=%p src=%s len=%zu sync=%d%s", dstHost, s, ByteCount,
	       a->sync_memops, drop_dtoh ? " DROPPED" : "");
}

nvmf_CUresult cuPointerSetAttribute(const void *value, nvmf_CUpointer_attribute attribute,
				    nvmf_CUdeviceptr ptr)
{
	struct standin_alloc *a;
	char p[48];

	ENTER("cuPointerSetAttribute");
	dptr_str(ptr, p, sizeof(p));
	if (INJECTED())
		RETURN_INJECTED("attr=%u ptr=%s", attribute, p);
	NEED_INIT("attr=%u ptr=%s", attribute, p);
	NEED_CTX("attr=%u ptr=%s (no current context)", attribute, p);
	a = find_alloc(ptr, 0);
	if (!value || !a || attribute != NVMF_CU_POINTER_ATTRIBUTE_SYNC_MEMOPS)
		RETURN(NVMF_CUDA_ERROR_INVALID_VALUE, "attr=%u ptr=%s", attribute, p);
	a->sync_memops = *(const unsigned int *)value != 0;
	RETURN(NVMF_CUDA_SUCCESS, "attr=SYNC_MEMOPS ptr=%s value=%d", p, a->sync_memops);
}

#ifndef NVMF_STANDIN_CUDA11_2
nvmf_CUresult cuMemGetHandleForAddressRange(void *handle, nvmf_CUdeviceptr dptr, size_t size,
					    nvmf_CUmemRangeHandleType handleType,
					    unsigned long long flags)
{
	struct standin_udmabuf_create c;
	struct standin_alloc *a;
	struct stat st;
	char p[48];
	int dfd, fd, slot = -1;

	ENTER("cuMemGetHandleForAddressRange");
	dptr_str(dptr, p, sizeof(p));
	if (INJECTED())
		RETURN_INJECTED("ptr=%s size=%zu", p, size);
	NEED_INIT("ptr=%s size=%zu", p, size);
	NEED_CTX("ptr=%s size=%zu (no current context)", p, size);
	a = find_alloc(dptr, size);
	if (!handle || handleType != NVMF_CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD || (flags & ~1ull) ||
	    !size || !a || (dptr % STANDIN_PAGE) || (size % STANDIN_PAGE))
		RETURN(NVMF_CUDA_ERROR_INVALID_VALUE, "ptr=%s size=%zu type=%u flags=%llu", p, size,
		       handleType, flags);
	if (!attr_dmabuf)
		RETURN(NVMF_CUDA_ERROR_NOT_SUPPORTED, "ptr=%s size=%zu (dma-buf off)", p, size);
	for (int i = 0; i < MAX_DMABUFS; i++)
		if (!dmabuf_open(a, i)) {
			slot = i;
			break;
		}
	if (slot < 0)
		RETURN(NVMF_CUDA_ERROR_OUT_OF_MEMORY, "ptr=%s size=%zu (too many dma-bufs)", p, size);
	dfd = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (dfd < 0)
		RETURN(NVMF_CUDA_ERROR_NOT_SUPPORTED, "ptr=%s size=%zu (/dev/udmabuf: %s)", p, size,
		       strerror(errno));
	memset(&c, 0, sizeof(c));
	c.memfd = (uint32_t)a->memfd;
	c.flags = STANDIN_UDMABUF_FLAGS_CLOEXEC;
	c.offset = dptr - (uint64_t)(uintptr_t)a->devmap;
	c.size = size;
	fd = ioctl(dfd, STANDIN_UDMABUF_CREATE, &c);
	close(dfd);
	if (fd < 0)
		RETURN(NVMF_CUDA_ERROR_NOT_SUPPORTED, "ptr=%s size=%zu (UDMABUF_CREATE: %s)", p, size,
		       strerror(errno));
	fstat(fd, &st);
	a->dmabuf[slot].fd = fd;
	a->dmabuf[slot].dev = st.st_dev;
	a->dmabuf[slot].ino = st.st_ino;
	if (nexported < (int)(sizeof(exported) / sizeof(exported[0]))) {
		exported[nexported].fd = fd;
		exported[nexported].dev = st.st_dev;
		exported[nexported].ino = st.st_ino;
		nexported++;
	}
	*(int *)handle = fd;
	RETURN(NVMF_CUDA_SUCCESS, "ptr=%s size=%zu -> fd %d", p, size, fd);
}

nvmf_CUresult cuFlushGPUDirectRDMAWrites(nvmf_CUflushGPUDirectRDMAWritesTarget target,
					 nvmf_CUflushGPUDirectRDMAWritesScope scope)
{
	ENTER("cuFlushGPUDirectRDMAWrites");
	if (INJECTED())
		RETURN_INJECTED("target=%u scope=%u", target, scope);
	NEED_INIT("target=%u scope=%u", target, scope);
	if (target != NVMF_CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX ||
	    (scope != NVMF_CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER &&
	     scope != NVMF_CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_ALL_DEVICES))
		RETURN(NVMF_CUDA_ERROR_INVALID_VALUE, "target=%u scope=%u", target, scope);
	NEED_CTX("target=%u scope=%u (no current context)", target, scope);
	if (!(attr_flush & NVMF_CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST))
		RETURN(NVMF_CUDA_ERROR_NOT_SUPPORTED, "target=%u scope=%u", target, scope);
	RETURN(NVMF_CUDA_SUCCESS, "target=current scope=%s dev=%d",
	       scope == NVMF_CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER ? "owner" : "all", cur->dev);
}
#endif

/* ---- the legacy ABI: never to be used ---- */

static nvmf_CUresult legacy(const char *name, const char *use)
{
	fprintf(stderr, "standin libcuda: the legacy entry point %s was called (old ABI with "
		"32-bit sizes); resolve %s instead\n", name, use);
	pthread_mutex_lock(&lock);
	sync_env();
	logf_line("LEGACY %s called", name);
	pthread_mutex_unlock(&lock);
	if (!legacy_error)
		abort();
	return NVMF_CUDA_ERROR_NOT_SUPPORTED;
}

nvmf_CUresult cuMemAlloc(unsigned int *dptr, unsigned int bytesize)
{
	(void)dptr;
	(void)bytesize;
	return legacy("cuMemAlloc", "cuMemAlloc_v2");
}

nvmf_CUresult cuMemFree(unsigned int dptr)
{
	(void)dptr;
	return legacy("cuMemFree", "cuMemFree_v2");
}

nvmf_CUresult cuMemcpyHtoD(unsigned int dst, const void *src, unsigned int n)
{
	(void)dst;
	(void)src;
	(void)n;
	return legacy("cuMemcpyHtoD", "cuMemcpyHtoD_v2");
}

nvmf_CUresult cuMemcpyDtoH(void *dst, unsigned int src, unsigned int n)
{
	(void)dst;
	(void)src;
	(void)n;
	return legacy("cuMemcpyDtoH", "cuMemcpyDtoH_v2");
}

nvmf_CUresult cuDevicePrimaryCtxRelease(nvmf_CUdevice dev)
{
	(void)dev;
	return legacy("cuDevicePrimaryCtxRelease", "cuDevicePrimaryCtxRelease_v2");
}

nvmf_CUresult cuDevicePrimaryCtxReset(nvmf_CUdevice dev)
{
	(void)dev;
	return legacy("cuDevicePrimaryCtxReset", "cuDevicePrimaryCtxReset_v2");
}

nvmf_CUresult cuGetProcAddress(const char *symbol, void **pfn, int ver, unsigned long long fl)
{
	(void)symbol;
	(void)pfn;
	(void)ver;
	(void)fl;
	return legacy("cuGetProcAddress", "the versioned symbols with dlsym (the stand-in does not "
		      "implement cuGetProcAddress)");
}

nvmf_CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int ver, unsigned long long fl,
				  void *status)
{
	(void)symbol;
	(void)pfn;
	(void)ver;
	(void)fl;
	(void)status;
	return legacy("cuGetProcAddress_v2", "the versioned symbols with dlsym (the stand-in does "
		      "not implement cuGetProcAddress)");
}

/* ---- for tests ---- */

int nvmf_standin_stats(struct nvmf_standin_stats *st)
{
	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&lock);
	for (struct standin_alloc *a = allocs; a; a = a->next) {
		st->live_allocs++;
		st->live_bytes += a->size;
	}
	for (int i = 0; i < nexported; i++) {
		struct stat sb;

		st->open_dmabufs += fstat(exported[i].fd, &sb) == 0 && sb.st_dev == exported[i].dev &&
				    sb.st_ino == exported[i].ino;
	}
	for (int i = 0; i < NVMF_STANDIN_MAX_DEVICES; i++)
		st->ctx_refs[i] = devs[i].refs;
	st->violations = violations;
	st->calls = calls;
	st->init_pid = init_pid;
	pthread_mutex_unlock(&lock);
	return 0;
}
