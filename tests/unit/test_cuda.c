/* test_cuda.c - the CUDA loader (lib/nvmf_cuda.c) and the memory backends (lib/nvmf_mem.c)
 * without RDMA: registration goes to a fake registrar.
 *
 * By default it runs against the stand-in driver (tests/cuda-standin/, built by make): it
 * re-executes itself with LD_LIBRARY_PATH naming the stand-in's directory, as the engine's
 * tests load it, and then also checks what only the stand-in can show: the call log (flush
 * before the device->host copy, teardown order, no copy in benchmark mode), every CUDA call
 * failing in turn (fault injection: one clear line, nothing leaked), drivers too old, device
 * memory the CPU cannot touch (NVMF_STANDIN_DEVMEM=none).
 *
 * With NVMF_TEST_REAL_DRIVER=1 it runs against whatever libcuda.so.1 the system has (a real
 * GPU: tests/gpu/device-check.sh) and checks what does not need the stand-in: contexts in
 * threads and forked children, allocation and alignment, dma-buf export, the copies byte for
 * byte in GPUDirect and staged modes, the flush.  No driver there: exit 77. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nvmf_cuda.h"
#include "nvmf_mem.h"
#include "nvmf_shim.h"

#include "check.h"

#ifndef NVMF_STANDIN_DIR
#define NVMF_STANDIN_DIR ""
#endif

#if __has_include("standin.h")
#include "standin.h"
#define HAVE_STANDIN_H 1
#else
struct nvmf_standin_stats {
	int                live_allocs;
	unsigned long long live_bytes;
	int                ctx_refs[8];
	int                open_dmabufs;
	int                violations;
	unsigned long      calls;
	int                init_pid;
};
typedef int nvmf_standin_stats_fn(struct nvmf_standin_stats *st);
#define NVMF_STANDIN_STATS_SYM "nvmf_standin_stats"
#define NVMF_STANDIN_MAX_DEVICES 8
#endif

#ifndef VERBOSE_FAULTS
#define VERBOSE_FAULTS 0
#endif

static int real;                          /* against the system's real driver */
static char tmpdir[256], logpath[300], sysroot[300];
static const struct nvmf_cuda *cu;
static nvmf_standin_stats_fn *stats_fn;
static int expected_violations;

/* ---- helpers ---- */

static void test_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void test_log(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int fd, n;

	if (real)
		return;
	n = snprintf(line, sizeof(line), "[%d] TEST ", (int)getpid());
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	line[n++] = '\n';
	fd = open(logpath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (write(fd, line, (size_t)n) < 0)
			perror("log");
		close(fd);
	}
}

/* The call log as lines; log_mark() is the current end. */
static char **log_lines;
static int log_n;

static void log_load(void)
{
	FILE *f;
	char buf[2048];

	for (int i = 0; i < log_n; i++)
		free(log_lines[i]);
	free(log_lines);
	log_lines = NULL;
	log_n = 0;
	f = fopen(logpath, "r");
	if (!f)
		return;
	while (fgets(buf, sizeof(buf), f)) {
		log_lines = realloc(log_lines, sizeof(*log_lines) * (size_t)(log_n + 1));
		log_lines[log_n++] = strdup(buf);
	}
	fclose(f);
}

static int log_mark(void)
{
	if (real)
		return 0;
	log_load();
	return log_n;
}

/* Index of the first line at or after `from` containing s (and this pid), or -1. */
static int log_find(int from, const char *s)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "[%d] ", (int)getpid());
	for (int i = from; i < log_n; i++)
		if (!strncmp(log_lines[i], pid, strlen(pid)) && strstr(log_lines[i], s))
			return i;
	return -1;
}

static int log_count(int from, const char *s)
{
	int n = 0;

	for (int i = from; (i = log_find(i, s)) >= 0; i++)
		n++;
	return n;
}

static int one_line(const char *s)
{
	return s && s[0] && !strchr(s, '\n');
}

static void get_stats(struct nvmf_standin_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (stats_fn)
		stats_fn(st);
}

/* Nothing of the driver's left: no allocation, no dma-buf, no context reference. */
static int check_clean(const char *when)
{
	struct nvmf_standin_stats st;
	int bad = 0;

	if (!stats_fn)
		return 1;
	get_stats(&st);
	bad |= st.live_allocs != 0 || st.open_dmabufs != 0 || st.violations != expected_violations;
	for (int i = 0; i < NVMF_STANDIN_MAX_DEVICES; i++)
		bad |= st.ctx_refs[i] != 0;
	if (bad)
		fprintf(stderr, "%s: driver state not clean: %d allocations, %d dma-bufs, "
			"refs %d/%d, %d violations (expected %d)\n", when, st.live_allocs,
			st.open_dmabufs, st.ctx_refs[0], st.ctx_refs[1], st.violations,
			expected_violations);
	CHECK(!bad);
	return !bad;
}

static int dereg_seq;                     /* deregistrations so far, across fakes */

struct fake_reg {
	int      va_rc, dmabuf_rc;
	int      va_calls, dmabuf_calls, dereg_calls;
	int      dereg_at;                 /* dereg_seq at its last deregistration */
	void    *va_addr;
	size_t   va_len;
	int      fd, fd_was_valid;
	size_t   dlen;
	uint64_t iova;
};

static int fake_reg_va(void *ctx, void *addr, size_t len, struct nvmf_mr *mr, char *why,
		       size_t whylen)
{
	struct fake_reg *f = ctx;

	f->va_calls++;
	f->va_addr = addr;
	f->va_len = len;
	test_log("reg_va addr=%p len=%zu", addr, len);
	if (f->va_rc) {
		snprintf(why, whylen, "fake: %s", strerror(-f->va_rc));
		return f->va_rc;
	}
	mr->addr = addr;
	mr->len = len;
	mr->lkey = 0x1111;
	mr->rkey = 0x2222;
	mr->ibv_mr = f;
	return 0;
}

static int fake_reg_dmabuf(void *ctx, int fd, size_t len, uint64_t iova, struct nvmf_mr *mr,
			   char *why, size_t whylen)
{
	struct fake_reg *f = ctx;
	struct stat st;

	f->dmabuf_calls++;
	f->fd = fd;
	f->fd_was_valid = fstat(fd, &st) == 0;
	f->dlen = len;
	f->iova = iova;
	test_log("reg_dmabuf fd=%d len=%zu", fd, len);
	if (f->dmabuf_rc) {
		snprintf(why, whylen, "fake: %s", strerror(-f->dmabuf_rc));
		return f->dmabuf_rc;
	}
	mr->addr = (void *)(uintptr_t)iova;
	mr->len = len;
	mr->lkey = 0x3333;
	mr->rkey = 0x4444;
	mr->ibv_mr = f;
	return 0;
}

static void fake_dereg(void *ctx, struct nvmf_mr *mr)
{
	struct fake_reg *f = ctx;

	f->dereg_calls++;
	f->dereg_at = ++dereg_seq;
	test_log("dereg");
	mr->ibv_mr = NULL;
}

static struct nvmf_mem_registrar fake(struct fake_reg *f)
{
	struct nvmf_mem_registrar r = { fake_reg_va, fake_reg_dmabuf, fake_dereg, f };

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	return r;
}

static int open_mem(struct nvmf_mem **m, int kind, int dev, int reg, int staged, char *err,
		    size_t errlen)
{
	struct nvmf_mem_opts o;

	memset(&o, 0, sizeof(o));
	o.kind = kind;
	o.cuda_device = dev;
	o.reg = reg;
	o.staged = staged;
	o.sysfs = sysroot;
	err[0] = 0;
	return nvmf_mem_open(m, &o, err, errlen);
}

static void fill(void *p, size_t len, unsigned seed)
{
	uint8_t *b = p;
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		b[i] = (uint8_t)x;
	}
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p) {
		perror("malloc");
		exit(2);
	}
	return p;
}

/* Read device memory directly through the driver (what a GPU kernel would see). */
static int dev_read(const struct nvmf_mem *m, size_t off, void *dst, size_t len)
{
	return cu->cuMemcpyDtoH_v2(dst, nvmf_mem_info(m)->dev + off, len) == NVMF_CUDA_SUCCESS;
}

/* Write device memory directly (what the target's RDMA WRITE does under GPUDirect). */
static int dev_write(const struct nvmf_mem *m, size_t off, const void *src, size_t len)
{
	return cu->cuMemcpyHtoD_v2(nvmf_mem_info(m)->dev + off, src, len) == NVMF_CUDA_SUCCESS;
}

static int run_child(void (*fn)(void), int *sig)
{
	pid_t p;
	int st = 0;

	fflush(stdout);
	fflush(stderr);
	p = fork();
	if (p == 0) {
		check_failures = 0;
		alarm(120);             /* a child that hangs in the driver fails, not the suite */
		fn();
		fflush(stdout);
		fflush(stderr);
		_exit(check_failures ? 1 : 0);
	}
	if (p < 0 || waitpid(p, &st, 0) != p)
		return -1;
	if (sig)
		*sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* ---- in children with a fresh loader (run before the parent loads the driver) ---- */

static void child_no_driver(void)
{
	const struct nvmf_cuda *c = NULL;
	struct nvmf_mem_opts o;
	struct nvmf_mem *m = (void *)1;
	char err[NVMF_MEM_ERR_LEN];
	int rc;

	rc = nvmf_cuda_load_lib("libcuda-not-installed-here.so.1", &c, err, sizeof(err));
	CHECK_EQ(rc, -ENOENT);
	CHECK(c == NULL);
	CHECK(one_line(err));
	CHECK(strstr(err, "cannot load the CUDA driver") != NULL);
	CHECK(strstr(err, "libcuda.so.1") != NULL);
	printf("no driver: %s\n", err);

	memset(&o, 0, sizeof(o));
	o.kind = NVMF_MEM_CUDA;
	o.cuda_lib = "/nonexistent/libcuda.so.1";
	rc = nvmf_mem_open(&m, &o, err, sizeof(err));
	CHECK_EQ(rc, -ENOENT);
	CHECK(m == NULL);
	CHECK(one_line(err));
	CHECK(strstr(err, "cannot load the CUDA driver") != NULL);
}

static void child_cuda10(void)
{
	const struct nvmf_cuda *c = NULL;
	char err[NVMF_MEM_ERR_LEN];
	int rc = nvmf_cuda_load_lib(NVMF_STANDIN_DIR "/cuda10/libcuda.so.1", &c, err, sizeof(err));

	CHECK_EQ(rc, -ELIBBAD);
	CHECK(c == NULL);
	CHECK(one_line(err));
	CHECK(strstr(err, "cuDevicePrimaryCtxRelease_v2") != NULL);
	printf("old driver: %s\n", err);
}

static void child_cuda11_2(void)
{
	struct nvmf_mem *m = NULL;
	struct fake_reg f;
	struct nvmf_mem_registrar r = fake(&f);
	const struct nvmf_mem_info *in;
	char err[NVMF_MEM_ERR_LEN], *host = xmalloc(65536);
	struct nvmf_mem_opts o;
	int rc;

	memset(&o, 0, sizeof(o));
	o.kind = NVMF_MEM_CUDA;
	o.sysfs = sysroot;
	o.cuda_lib = NVMF_STANDIN_DIR "/cuda11.2/libcuda.so.1";
	rc = nvmf_mem_open(&m, &o, err, sizeof(err));
	CHECK_EQ(rc, 0);
	if (rc) {
		fprintf(stderr, "%s\n", err);
		free(host);
		return;
	}
	in = nvmf_mem_info(m);
	CHECK_EQ(in->flush, 0);
	CHECK(strstr(in->flush_note, "no cuFlushGPUDirectRDMAWrites") != NULL);
	CHECK_EQ(nvmf_mem_attach(m, host, 65536), 0);
	CHECK_EQ(nvmf_mem_register(m, &r), 0);
	CHECK_EQ(in->path, NVMF_MEM_PATH_PEERMEM);
	CHECK_EQ(f.dmabuf_calls, 0);
	CHECK(strstr(in->reg_note, "no cuMemGetHandleForAddressRange") != NULL);
	CHECK_EQ(nvmf_mem_reads_reaped(m), 0);        /* no flush to call: nothing fails */
	CHECK_EQ(nvmf_mem_close(m, err, sizeof(err)), 0);
	free(host);
}

/* The legacy ABI entry points must never be used: the stand-in aborts on them. */
static void child_legacy(void)
{
	void *dl = dlopen("libcuda.so.1", RTLD_NOW);
	nvmf_CUresult (*legacy_alloc)(unsigned int *, unsigned int);
	unsigned int p = 0;

	if (!dl)
		_exit(3);
	legacy_alloc = (nvmf_CUresult (*)(unsigned int *, unsigned int))dlsym(dl, "cuMemAlloc");
	if (!legacy_alloc)
		_exit(4);
	legacy_alloc(&p, 4096);
	_exit(5);   /* not reached */
}

/* ---- with the driver loaded ---- */

static void test_rc_mapping(void)
{
	CHECK_EQ(nvmf_rc_cuda(NVMF_CUDA_SUCCESS), 0);
	CHECK_EQ(nvmf_rc_cuda(NVMF_CUDA_ERROR_OUT_OF_MEMORY), -ENOMEM);
	CHECK_EQ(nvmf_rc_cuda(NVMF_CUDA_ERROR_INVALID_VALUE), -EINVAL);
	CHECK_EQ(nvmf_rc_cuda(NVMF_CUDA_ERROR_NOT_INITIALIZED), -ENXIO);
	CHECK_EQ(nvmf_rc_cuda(NVMF_CUDA_ERROR_NO_DEVICE), -ENODEV);
	CHECK_EQ(nvmf_rc_cuda(NVMF_CUDA_ERROR_NOT_SUPPORTED), -EOPNOTSUPP);
	CHECK_EQ(nvmf_rc_cuda(NVMF_CUDA_ERROR_INVALID_CONTEXT), -EINVAL);
	CHECK_EQ(nvmf_rc_cuda(12345), -EIO);
}

static void test_pci_and_sysfs(void)
{
	char b[32];

	CHECK_EQ(nvmf_pci_normalize("00000000:3B:00.0", b, sizeof(b)), 0);
	CHECK_STR(b, "0000:3b:00.0");
	CHECK_EQ(nvmf_pci_normalize("0001:af:1f.7", b, sizeof(b)), 0);
	CHECK_STR(b, "0001:af:1f.7");
	CHECK_EQ(nvmf_pci_normalize("3b:00.0", b, sizeof(b)), -EINVAL);
	CHECK_EQ(nvmf_pci_normalize("0000:3b:00.0x", b, sizeof(b)), -EINVAL);
	CHECK_EQ(nvmf_pci_normalize("0000:3b:20.0", b, sizeof(b)), -EINVAL);
	CHECK_EQ(nvmf_pci_normalize("0000:3b:00.8", b, sizeof(b)), -EINVAL);
	CHECK_EQ(nvmf_pci_normalize("0000:3B:00.0 ", b, sizeof(b)), -EINVAL);
	CHECK_EQ(nvmf_pci_normalize("10000:01:00.0", b, sizeof(b)), 0);   /* VMD domains */
	CHECK_STR(b, "10000:01:00.0");
	CHECK_EQ(nvmf_pci_normalize(NULL, b, sizeof(b)), -EINVAL);
	CHECK_EQ(nvmf_sysfs_pci_numa(sysroot, "0000:3b:00.0"), 0);
	CHECK_EQ(nvmf_sysfs_pci_numa(sysroot, "0000:99:00.0"), -1);
	CHECK_EQ(nvmf_sysfs_rdma_pci(sysroot, "mlx5_0", b, sizeof(b)), 0);
	CHECK_STR(b, "0000:3c:00.0");
	CHECK_EQ(nvmf_sysfs_rdma_pci(sysroot, "rxe0", b, sizeof(b)), -ENOENT);
	CHECK_STR(b, "");
	CHECK_EQ(nvmf_sysfs_rdma_pci(sysroot, "../x", b, sizeof(b)), -EINVAL);
}

static void test_host_backend(void)
{
	struct nvmf_mem *m = NULL;
	struct fake_reg f;
	struct nvmf_mem_registrar r = fake(&f);
	struct nvmf_standin_stats before, after;
	char err[NVMF_MEM_ERR_LEN], desc[1024], *host = xmalloc(100000);

	get_stats(&before);
	CHECK_EQ(open_mem(&m, NVMF_MEM_HOST, 0, 0, 0, err, sizeof(err)), 0);
	if (!m) {
		free(host);
		return;
	}
	CHECK_EQ(nvmf_mem_register(m, &r), -EINVAL);          /* before attach */
	CHECK(one_line(nvmf_mem_err(m)));
	CHECK_EQ(nvmf_mem_attach(m, NULL, 10), -EINVAL);
	CHECK_EQ(nvmf_mem_attach(m, host, 100000), 0);
	CHECK_EQ(nvmf_mem_attach(m, host, 100000), -EBUSY);
	CHECK_EQ(nvmf_mem_register(m, &r), 0);
	CHECK_EQ(nvmf_mem_register(m, &r), -EBUSY);
	CHECK_EQ(f.va_calls, 1);
	CHECK(f.va_addr == host);
	CHECK_EQ(f.va_len, 100000);
	CHECK(nvmf_mem_wire(m, 100) == host + 100);
	CHECK(nvmf_mem_mr(m)->addr == host);
	CHECK_EQ(nvmf_mem_mr(m)->rkey, 0x2222);
	CHECK_EQ(nvmf_mem_info(m)->path, NVMF_MEM_PATH_HOST);
	CHECK_EQ(nvmf_mem_offset(m, host + 4096, 4096), 4096);
	CHECK_EQ(nvmf_mem_offset(m, host + 99999, 2), -1);
	CHECK_EQ(nvmf_mem_offset(m, host - 1, 1), -1);
	CHECK_EQ(nvmf_mem_prepare_write(m, 0, 4096, 1), 0);
	CHECK_EQ(nvmf_mem_reads_reaped(m), 0);
	CHECK_EQ(nvmf_mem_finish_read(m, 0, 4096, 1), 0);
	nvmf_mem_describe(m, "mlx5_0", desc, sizeof(desc));
	CHECK(strstr(desc, "host memory") == desc);
	CHECK(strstr(desc, "RDMA device mlx5_0 (0000:3c:00.0, NUMA 1)") != NULL);
	CHECK(strstr(desc, "WARNING") == NULL);
	CHECK_EQ(nvmf_mem_close(m, err, sizeof(err)), 0);
	CHECK_EQ(f.dereg_calls, 1);
	CHECK_EQ(nvmf_mem_close(NULL, err, sizeof(err)), 0);
	get_stats(&after);
	CHECK_EQ(after.calls, before.calls);                  /* host memory never calls CUDA */
	free(host);
}

/* Open, attach, copies byte for byte, flush before the device->host copy, teardown order. */
static void test_gpudirect_basic(void)
{
	enum { LEN = (1 << 20) + 4096 + 512 };
	struct nvmf_mem *m = NULL;
	struct fake_reg f;
	struct nvmf_mem_registrar r = fake(&f);
	const struct nvmf_mem_info *in;
	nvmf_CUcontext cur = NULL;
	char err[NVMF_MEM_ERR_LEN], desc[1024];
	uint8_t *host = xmalloc(LEN), *chk = xmalloc(LEN), *ref = xmalloc(LEN);
	int mark, i1, i2, i3, rc;

	fill(host, LEN, 1);
	memcpy(ref, host, LEN);
	mark = log_mark();
	rc = open_mem(&m, NVMF_MEM_CUDA, 0, NVMF_MEM_REG_AUTO, 0, err, sizeof(err));
	CHECK_EQ(rc, 0);
	if (rc) {
		fprintf(stderr, "open: %s\n", err);
		goto out;
	}
	in = nvmf_mem_info(m);
	CHECK(in->ctx != NULL);
	CHECK_EQ(cu->cuCtxGetCurrent(&cur), NVMF_CUDA_SUCCESS);
	CHECK(cur == in->ctx);                               /* current in the calling thread */
	CHECK(in->driver_version > 0);
	CHECK(in->gpu_pci[0] != 0);
	if (!real) {
		CHECK_STR(in->gpu_pci, "0000:3b:00.0");          /* NVMF_STANDIN_PCI, normalized */
		CHECK_EQ(in->driver_version, 12080);
		CHECK_EQ(in->flush, 1);
	}
	printf("device 0: %s, driver %d, dma-buf %d, GPUDirect RDMA %d, flush %d %s\n",
	       in->gpu_pci, in->driver_version, in->dmabuf_supported, in->gdr_supported, in->flush,
	       in->flush_note);

	CHECK_EQ(nvmf_mem_attach(m, host, LEN), 0);
	CHECK_EQ(in->len, LEN);
	CHECK_EQ(in->dev_alloc_len % NVMF_GPU_PAGE, 0);
	CHECK(in->dev_alloc_len >= LEN);
	CHECK_EQ(in->dev % NVMF_GPU_PAGE, 0);
	CHECK(in->dev >= in->dev_alloc);
	CHECK(in->dev + LEN <= in->dev_alloc + in->dev_alloc_len);
	CHECK_EQ(in->wire, in->dev);
	CHECK(nvmf_mem_wire(m, 4096) == (void *)(uintptr_t)(in->dev + 4096));
	if (!real) {
		CHECK_EQ(in->dev_alloc_len, (LEN + 65535) / 65536 * 65536);
		CHECK_EQ(in->dev_alloc % (2u << 20), 0);         /* the stand-in's 2 MiB */
	}
	/* The initial bytes went to the device once. */
	memset(chk, 0, LEN);
	CHECK(dev_read(m, 0, chk, LEN));
	CHECK(memcmp(chk, ref, LEN) == 0);

	/* host -> device, at odd offsets and lengths */
	fill(host + 777, 12345, 2);
	CHECK_EQ(nvmf_mem_to_device(m, 777, 12345), 0);
	CHECK(dev_read(m, 0, chk, LEN));
	CHECK(memcmp(chk, host, LEN) == 0);
	/* write path, benchmark mode: nothing copied, the device keeps its bytes */
	memcpy(ref, host, LEN);
	fill(host, 8192, 3);
	i1 = log_mark();
	CHECK_EQ(nvmf_mem_prepare_write(m, 0, 8192, 0), 0);
	if (!real) {
		log_load();
		CHECK_EQ(log_count(i1, "cuMemcpy"), 0);
	}
	CHECK(dev_read(m, 0, chk, 8192));
	CHECK(memcmp(chk, ref, 8192) == 0);
	/* write path with fio's data: one host->device copy */
	i1 = log_mark();
	CHECK_EQ(nvmf_mem_prepare_write(m, 0, 8192, 1), 0);
	if (!real) {
		log_load();
		CHECK_EQ(log_count(i1, "cuMemcpyHtoD_v2 dst=d"), 1);
		CHECK_EQ(log_count(i1, "cuMemcpy"), 1);
		CHECK(log_find(i1, "len=8192 sync=1") >= 0);
	}
	CHECK(dev_read(m, 0, chk, 8192));
	CHECK(memcmp(chk, host, 8192) == 0);

	/* read path: the "target" writes device memory, then flush, then device -> host */
	fill(ref, 65536, 4);
	CHECK(dev_write(m, 131072, ref, 65536));
	i2 = log_mark();
	CHECK_EQ(nvmf_mem_reads_reaped(m), 0);
	CHECK_EQ(nvmf_mem_finish_read(m, 131072, 65536, 1), 0);
	CHECK(memcmp(host + 131072, ref, 65536) == 0);
	if (!real) {
		int fl, d2h;

		log_load();
		fl = log_find(i2, "cuFlushGPUDirectRDMAWrites target=current scope=owner");
		d2h = log_find(i2, "cuMemcpyDtoH_v2");
		CHECK(fl >= 0 && d2h > fl);                       /* flush, then the copy */
		CHECK(d2h >= 0 && strstr(log_lines[d2h], "+131072 len=65536 sync=1") != NULL);
		CHECK_EQ(log_count(i2, "cuFlushGPUDirectRDMAWrites"), 1);
		CHECK_EQ(log_count(i2, "cuMemcpy"), 1);
	}
	/* benchmark mode read: the flush, no copy */
	memset(host + 131072, 0, 65536);
	i3 = log_mark();
	CHECK_EQ(nvmf_mem_reads_reaped(m), 0);
	CHECK_EQ(nvmf_mem_finish_read(m, 131072, 65536, 0), 0);
	CHECK(host[131072] == 0 && !memcmp(host + 131072, host + 131073, 65535));
	if (!real) {
		log_load();
		CHECK_EQ(log_count(i3, "cuFlushGPUDirectRDMAWrites"), 1);
		CHECK_EQ(log_count(i3, "cuMemcpy"), 0);
	}
	/* the last bytes of the area */
	fill(host + LEN - 100, 100, 5);
	CHECK_EQ(nvmf_mem_to_device(m, LEN - 100, 100), 0);
	memset(host + LEN - 100, 0, 100);
	CHECK_EQ(nvmf_mem_to_host(m, LEN - 100, 100), 0);
	fill(ref, 100, 5);
	CHECK(memcmp(host + LEN - 100, ref, 100) == 0);
	/* outside the area */
	CHECK_EQ(nvmf_mem_to_device(m, LEN - 100, 101), -EINVAL);
	CHECK(one_line(nvmf_mem_err(m)));
	CHECK(strstr(nvmf_mem_err(m), "outside") != NULL);
	CHECK_EQ(nvmf_mem_to_host(m, (size_t)-4096, 8192), -EINVAL);

	CHECK_EQ(nvmf_mem_register(m, &r), 0);
	printf("registration: %s%s%s\n", nvmf_mem_path_name(in->path),
	       in->reg_note[0] ? ", " : "", in->reg_note);
	if (in->path == NVMF_MEM_PATH_DMABUF) {
		CHECK(f.fd_was_valid);
		CHECK_EQ(f.iova, in->dev);
		CHECK(nvmf_mem_mr(m)->addr == (void *)(uintptr_t)in->dev);
	} else {
		CHECK_EQ(in->path, NVMF_MEM_PATH_PEERMEM);
		CHECK(f.va_addr == (void *)(uintptr_t)in->dev);
		CHECK_EQ(f.va_len % NVMF_GPU_PAGE, 0);
		CHECK(in->reg_note[0] != 0);                    /* why not dma-buf */
	}
	nvmf_mem_describe(m, "mlx5_0", desc, sizeof(desc));
	printf("describe: %s\n", desc);
	CHECK(strstr(desc, "CUDA device 0") == desc);
	CHECK(strstr(desc, "GPUDirect via") != NULL);
	if (!real) {
		CHECK(strstr(desc, "(0000:3b:00.0, NUMA 0)") != NULL);
		CHECK(strstr(desc, "cuFlushGPUDirectRDMAWrites after reads") != NULL);
		CHECK(strstr(desc, "WARNING: the GPU is on NUMA node 0 and the RDMA device on node 1")
		      != NULL);
	}

	if (!real) {
		int sync, h2d;

		log_load();
		sync = log_find(mark, "cuPointerSetAttribute attr=SYNC_MEMOPS");
		h2d = log_find(mark, "cuMemcpyHtoD_v2");
		CHECK(sync >= 0 && h2d > sync);
		CHECK_EQ(log_count(mark, "sync=0"), 0);          /* every copy under SYNC_MEMOPS */
	}
	mark = log_mark();
	CHECK_EQ(nvmf_mem_close(m, err, sizeof(err)), 0);
	CHECK_EQ(f.dereg_calls, 1);
	if (!real) {
		int dr, fr, rl;

		log_load();
		dr = log_find(mark, "TEST dereg");
		fr = log_find(mark, "cuMemFree_v2");
		rl = log_find(mark, "cuDevicePrimaryCtxRelease_v2");
		CHECK(dr >= 0 && fr > dr && rl > fr);             /* MR, memory, context */
	}
	check_clean("gpudirect basic");
out:
	free(host);
	free(chk);
	free(ref);
}

/* An allocation the driver returns off a 64 KiB boundary is replaced by a larger one. */
static void test_realign(void)
{
	enum { LEN = 300000 };
	struct nvmf_mem *m = NULL;
	const struct nvmf_mem_info *in;
	char err[NVMF_MEM_ERR_LEN];
	uint8_t *host = xmalloc(LEN), *chk = xmalloc(LEN);

	setenv("NVMF_STANDIN_ALLOC_OFFSET", "4096", 1);
	fill(host, LEN, 9);
	CHECK_EQ(open_mem(&m, NVMF_MEM_CUDA, 0, 0, 0, err, sizeof(err)), 0);
	if (m) {
		in = nvmf_mem_info(m);
		CHECK_EQ(nvmf_mem_attach(m, host, LEN), 0);
		CHECK_EQ(in->dev_alloc % (2u << 20), 4096);
		CHECK_EQ(in->dev_alloc_len, (LEN + 65535) / 65536 * 65536 + 65536);
		CHECK_EQ(in->dev % NVMF_GPU_PAGE, 0);
		CHECK(in->dev > in->dev_alloc && in->dev - in->dev_alloc < NVMF_GPU_PAGE);
		CHECK(in->dev + (LEN + 65535) / 65536 * 65536 <= in->dev_alloc + in->dev_alloc_len);
		CHECK(dev_read(m, 0, chk, LEN));
		CHECK(memcmp(chk, host, LEN) == 0);
		CHECK_EQ(nvmf_mem_close(m, err, sizeof(err)), 0);
	}
	unsetenv("NVMF_STANDIN_ALLOC_OFFSET");
	check_clean("realign");
	free(host);
	free(chk);
}

/* Staged mode: the target moves data through registered host memory; every I/O copies. */
static void test_staged(void)
{
	enum { LEN = 512 * 1024 };
	struct nvmf_mem *m = NULL;
	struct fake_reg f;
	struct nvmf_mem_registrar r = fake(&f);
	const struct nvmf_mem_info *in;
	char err[NVMF_MEM_ERR_LEN], desc[1024];
	uint8_t *host = xmalloc(LEN), *chk = xmalloc(LEN), *ref = xmalloc(LEN), *wire;
	int mark;

	fill(host, LEN, 11);
	CHECK_EQ(open_mem(&m, NVMF_MEM_CUDA, 0, NVMF_MEM_REG_AUTO, 1, err, sizeof(err)), 0);
	if (!m) {
		fprintf(stderr, "%s\n", err);
		goto out;
	}
	in = nvmf_mem_info(m);
	CHECK_EQ(in->staged, 1);
	CHECK_EQ(in->flush, 0);
	CHECK_EQ(nvmf_mem_attach(m, host, LEN), 0);
	CHECK_EQ(nvmf_mem_register(m, &r), 0);
	CHECK_EQ(in->path, NVMF_MEM_PATH_HOST);
	CHECK_EQ(f.va_calls, 1);
	CHECK_EQ(f.dmabuf_calls, 0);
	wire = nvmf_mem_wire(m, 0);
	CHECK(f.va_addr == wire);
	CHECK(wire != host && (uint64_t)(uintptr_t)wire != in->dev);
	CHECK_EQ((uintptr_t)wire % NVMF_GPU_PAGE, 0);

	/* write, fio's data: host -> device -> staging */
	fill(host + 8192, 65536, 12);
	mark = log_mark();
	CHECK_EQ(nvmf_mem_prepare_write(m, 8192, 65536, 1), 0);
	CHECK(memcmp(wire + 8192, host + 8192, 65536) == 0);
	CHECK(dev_read(m, 8192, chk, 65536));
	CHECK(memcmp(chk, host + 8192, 65536) == 0);
	/* write, benchmark: device -> staging only (the device's bytes, not the host's) */
	fill(ref, 4096, 13);
	CHECK(dev_write(m, 0, ref, 4096));
	memset(host, 0, 4096);
	CHECK_EQ(nvmf_mem_prepare_write(m, 0, 4096, 0), 0);
	CHECK(memcmp(wire, ref, 4096) == 0);
	/* read: the target wrote staging; staging -> device -> host */
	fill(wire + 65536, 131072, 14);
	CHECK_EQ(nvmf_mem_reads_reaped(m), 0);
	CHECK_EQ(nvmf_mem_finish_read(m, 65536, 131072, 1), 0);
	CHECK(memcmp(host + 65536, wire + 65536, 131072) == 0);
	CHECK(dev_read(m, 65536, chk, 131072));
	CHECK(memcmp(chk, wire + 65536, 131072) == 0);
	/* read, benchmark: staging -> device only */
	fill(wire, 4096, 15);
	memset(host, 0, 4096);
	CHECK_EQ(nvmf_mem_finish_read(m, 0, 4096, 0), 0);
	CHECK(host[0] == 0 && !memcmp(host, host + 1, 4095));
	CHECK(dev_read(m, 0, chk, 4096));
	CHECK(memcmp(chk, wire, 4096) == 0);
	{
		/* every copy above counted, by kind, with its bytes; the closing line's text */
		const struct nvmf_mem_copies *c = nvmf_mem_copies(m);

		CHECK_EQ(c->to_device.n, 1);
		CHECK_EQ(c->to_device.bytes, 65536);
		CHECK_EQ(c->stage_out.n, 2);
		CHECK_EQ(c->stage_out.bytes, 65536 + 4096);
		CHECK_EQ(c->stage_in.n, 2);
		CHECK_EQ(c->stage_in.bytes, 131072 + 4096);
		CHECK_EQ(c->to_host.n, 1);
		CHECK_EQ(c->to_host.bytes, 131072);
		CHECK_EQ(c->flush.n, 0);
		CHECK(c->stage_out.ns > 0 && c->stage_in.ns > 0);
		nvmf_mem_copies_describe(m, desc, sizeof(desc));
		printf("staged copies: %s\n", desc);
		CHECK(strncmp(desc, "data host->device 1 (65536 bytes, ", 34) == 0);
		CHECK(strstr(desc, ", data device->host 1 (131072 bytes, ") != NULL);
		CHECK(strstr(desc, ", staged device->host 2 (69632 bytes, ") != NULL);
		CHECK(strstr(desc, ", staged host->device 2 (135168 bytes, ") != NULL);
		CHECK(strstr(desc, ", flushes 0 (0.000 ms)") != NULL);
	}
	if (!real) {
		log_load();
		CHECK_EQ(log_count(mark, "cuFlushGPUDirectRDMAWrites"), 0);
		/* negative control: device->host copies dropped, so the host misses the data */
		setenv("NVMF_STANDIN_DROP_DTOH", "1", 1);
		fill(wire, 4096, 16);
		memset(host, 0, 4096);
		CHECK_EQ(nvmf_mem_finish_read(m, 0, 4096, 1), 0);
		CHECK(memcmp(host, wire, 4096) != 0);
		unsetenv("NVMF_STANDIN_DROP_DTOH");
		log_load();
		CHECK(log_find(mark, "DROPPED") >= 0);
	}
	nvmf_mem_describe(m, NULL, desc, sizeof(desc));
	CHECK(strstr(desc, "staged through registered host memory") != NULL);
	printf("staged: %s\n", desc);
	CHECK_EQ(nvmf_mem_close(m, err, sizeof(err)), 0);
	CHECK_EQ(f.dereg_calls, 1);
	check_clean("staged");
out:
	free(host);
	free(chk);
	free(ref);
}

/* gpudirect=auto: where GPU memory cannot be registered, the backend stages instead and says
 * why; where it can, nothing changes. */
static void test_staged_fallback(void)
{
	enum { LEN = 256 * 1024 };
	struct nvmf_mem *m = NULL;
	struct nvmf_mem_opts o;
	struct fake_reg f;
	struct nvmf_mem_registrar r;
	const struct nvmf_mem_info *in;
	char err[NVMF_MEM_ERR_LEN], desc[2048];
	uint8_t *host = xmalloc(LEN), *ref = xmalloc(LEN), *wire;

	memset(&o, 0, sizeof(o));
	o.kind = NVMF_MEM_CUDA;
	o.reg = NVMF_MEM_REG_DMABUF;
	o.staged_fallback = 1;
	o.sysfs = sysroot;
	fill(host, LEN, 21);

	/* dma-buf only and failing: staged, with dma-buf's reason */
	r = fake(&f);
	f.dmabuf_rc = -EOPNOTSUPP;
	CHECK_EQ(nvmf_mem_open(&m, &o, err, sizeof(err)), 0);
	if (!m) {
		fprintf(stderr, "%s\n", err);
		goto out;
	}
	in = nvmf_mem_info(m);
	CHECK_EQ(in->staged, 0);
	CHECK_EQ(nvmf_mem_attach(m, host, LEN), 0);
	CHECK_EQ(nvmf_mem_register(m, &r), 0);
	CHECK_EQ(in->staged, 1);
	CHECK_EQ(in->path, NVMF_MEM_PATH_HOST);
	CHECK_EQ(in->flush, 0);
	CHECK_EQ(f.va_calls, 1);                 /* the staging area, not the device pointer */
	wire = nvmf_mem_wire(m, 0);
	CHECK(f.va_addr == wire);
	CHECK((uint64_t)(uintptr_t)wire != in->dev && wire != host);
	CHECK(strncmp(in->fallback_note, "cannot register ", 16) == 0);
	CHECK(strstr(in->fallback_note, "dma-buf: ") != NULL);
	CHECK(one_line(in->fallback_note));
	nvmf_mem_describe(m, NULL, desc, sizeof(desc));
	printf("fallback: %s\n", desc);
	CHECK(strstr(desc, "staged through registered host memory (gpudirect=auto, GPUDirect "
		     "unavailable: cannot register ") != NULL);
	/* it really stages: a write's bytes go device -> staging */
	fill(ref, 8192, 22);
	CHECK(dev_write(m, 4096, ref, 8192));
	CHECK_EQ(nvmf_mem_prepare_write(m, 4096, 8192, 0), 0);
	CHECK(memcmp(wire + 4096, ref, 8192) == 0);
	CHECK_EQ(nvmf_mem_copies(m)->stage_out.n, 1);
	CHECK_EQ(nvmf_mem_close(m, err, sizeof(err)), 0);
	CHECK_EQ(f.dereg_calls, 1);
	check_clean("fallback to staged");

	/* GPUDirect registers: the fallback is not taken */
	o.reg = NVMF_MEM_REG_PEERMEM;
	r = fake(&f);
	CHECK_EQ(nvmf_mem_open(&m, &o, err, sizeof(err)), 0);
	CHECK_EQ(nvmf_mem_attach(m, host, LEN), 0);
	CHECK_EQ(nvmf_mem_register(m, &r), 0);
	in = nvmf_mem_info(m);
	CHECK_EQ(in->staged, 0);
	CHECK_EQ(in->path, NVMF_MEM_PATH_PEERMEM);
	CHECK_EQ(in->fallback_note[0], 0);
	CHECK(f.va_addr == (void *)(uintptr_t)in->dev);
	CHECK_EQ(nvmf_mem_close(m, err, sizeof(err)), 0);
	check_clean("fallback not taken");

	/* nothing registers, not even the staging area: one line with every reason */
	o.reg = NVMF_MEM_REG_AUTO;
	r = fake(&f);
	f.va_rc = -EINVAL;
	f.dmabuf_rc = -EOPNOTSUPP;
	CHECK_EQ(nvmf_mem_open(&m, &o, err, sizeof(err)), 0);
	CHECK_EQ(nvmf_mem_attach(m, host, LEN), 0);
	CHECK(nvmf_mem_register(m, &r) < 0);
	printf("fallback failing: %s\n", nvmf_mem_err(m));
	CHECK(one_line(nvmf_mem_err(m)));
	CHECK(strstr(nvmf_mem_err(m), "dma-buf: ") != NULL);
	CHECK(strstr(nvmf_mem_err(m), "; staging instead: registering the 262144-byte host staging "
		     "area: fake: Invalid argument") != NULL);
	CHECK_EQ(f.va_calls, 2);                 /* peermem, then the staging area */
	CHECK_EQ(nvmf_mem_close(m, err, sizeof(err)), 0);
	check_clean("fallback failing");
out:
	free(host);
	free(ref);
}

/* The dma-buf -> peermem decision, each path's reason in words. */
static void test_registration_paths(void)
{
	enum { LEN = 256 * 1024 };
	struct nvmf_mem *m = NULL;
	struct fake_reg f;
	struct nvmf_mem_registrar r;
	const struct nvmf_mem_info *in;
	char err[NVMF_MEM_ERR_LEN], *host = xmalloc(LEN);
	int udmabuf = access("/dev/udmabuf", R_OK | W_OK) == 0;
	const char *e;

	memset(host, 0x5a, LEN);
	/* dma-buf only, the export or the fake registration fails: no peermem attempt */
	r = fake(&f);
	f.dmabuf_rc = -EOPNOTSUPP;
	CHECK_EQ(open_mem(&m, NVMF_MEM_CUDA, 0, NVMF_MEM_REG_DMABUF, 0, err, sizeof(err)), 0);
	if (!m)
		goto out;
	CHECK_EQ(nvmf_mem_attach(m, host, LEN), 0);
	CHECK(nvmf_mem_register(m, &r) < 0);
	e = nvmf_mem_err(m);
	printf("dma-buf only: %s\n", e);
	CHECK(one_line(e));
	CHECK(strstr(e, "cannot register") != NULL);
	CHECK(strstr(e, "dma-buf: ") != NULL);
	CHECK(strstr(e, "peermem") == NULL);
	CHECK_EQ(f.va_calls, 0);
	if (!real && udmabuf) {
		CHECK_EQ(f.dmabuf_calls, 1);
		CHECK(strstr(e, "ibv_reg_dmabuf_mr: fake:") != NULL);
	} else if (!real) {
		CHECK_EQ(f.dmabuf_calls, 0);
		CHECK(strstr(e, "cuMemGetHandleForAddressRange: CUDA_ERROR_NOT_SUPPORTED") != NULL);
	}
	if (real && f.dmabuf_calls) {
		/* a real GPU exported a dma-buf of its memory: that is what ibv_reg_dmabuf_mr gets */
		CHECK(f.fd_was_valid);
		printf("dma-buf export: fd of %zu bytes at 0x%llx\n", f.dlen,
		       (unsigned long long)f.iova);
	}
	CHECK_EQ(nvmf_mem_close(m, err, sizeof(err)), 0);
	CHECK_EQ(f.dereg_calls, 0);
	check_clean("dma-buf only");

	/* peermem only, failing: the reason says whether nvidia_peermem is loaded */
	r = fake(&f);
	f.va_rc = -EFAULT;
	CHECK_EQ(open_mem(&m, NVMF_MEM_CUDA, 0, NVMF_MEM_REG_PEERMEM, 0, err, sizeof(err)), 0);
	CHECK_EQ(nvmf_mem_attach(m, host, LEN), 0);
	CHECK_EQ(nvmf_mem_register(m, &r), -EFAULT);
	e = nvmf_mem_err(m);
	printf("peermem only: %s\n", e);
	CHECK(one_line(e));
	CHECK(strstr(e, "peermem: ibv_reg_mr on device memory: fake: Bad address "
		     "(nvidia_peermem is not loaded)") != NULL);
	CHECK(strstr(e, "dma-buf") == NULL);
	CHECK_EQ(f.dmabuf_calls, 0);
	CHECK_EQ(nvmf_mem_close(m, err, sizeof(err)), 0);
	check_clean("peermem only");

	/* auto, everything fails: one line with both reasons */
	r = fake(&f);
	f.va_rc = -EINVAL;
	f.dmabuf_rc = -EOPNOTSUPP;
	CHECK_EQ(open_mem(&m, NVMF_MEM_CUDA, 0, NVMF_MEM_REG_AUTO, 0, err, sizeof(err)), 0);
	CHECK_EQ(nvmf_mem_attach(m, host, LEN), 0);
	CHECK(nvmf_mem_register(m, &r) < 0);
	e = nvmf_mem_err(m);
	printf("auto, all failing: %s\n", e);
	CHECK(one_line(e));
	CHECK(strstr(e, "dma-buf: ") != NULL && strstr(e, "; peermem: ") != NULL);
	CHECK_EQ(f.va_calls, 1);
	CHECK_EQ(nvmf_mem_close(m, err, sizeof(err)), 0);
	check_clean("auto failing");

	if (!real) {
		/* the device says no dma-buf: not even tried, the reason says why */
		setenv("NVMF_STANDIN_DMABUF", "0", 1);
		r = fake(&f);
		CHECK_EQ(open_mem(&m, NVMF_MEM_CUDA, 0, NVMF_MEM_REG_AUTO, 0, err, sizeof(err)), 0);
		in = nvmf_mem_info(m);
		CHECK_EQ(in->dmabuf_supported, 0);
		CHECK_EQ(nvmf_mem_attach(m, host, LEN), 0);
		CHECK_EQ(nvmf_mem_register(m, &r), 0);
		CHECK_EQ(in->path, NVMF_MEM_PATH_PEERMEM);
		CHECK(strstr(in->reg_note, "does not support dma-buf") != NULL);
		CHECK_EQ(nvmf_mem_close(m, err, sizeof(err)), 0);
		unsetenv("NVMF_STANDIN_DMABUF");
		check_clean("no dma-buf");
		/* the device cannot flush: said once, no flush calls */
		setenv("NVMF_STANDIN_FLUSH_OPTIONS", "0", 1);
		setenv("NVMF_STANDIN_ORDERING", "100", 1);
		CHECK_EQ(open_mem(&m, NVMF_MEM_CUDA, 0, NVMF_MEM_REG_AUTO, 0, err, sizeof(err)), 0);
		{
			int mark = log_mark();
			char desc[1024];

			in = nvmf_mem_info(m);
			CHECK_EQ(in->flush, 0);
			CHECK(strstr(in->flush_note, "does not support cuFlushGPUDirectRDMAWrites") != NULL);
			CHECK(strstr(in->flush_note, "ordering: owner") != NULL);
			CHECK_EQ(nvmf_mem_reads_reaped(m), 0);
			log_load();
			CHECK_EQ(log_count(mark, "cuFlushGPUDirectRDMAWrites"), 0);
			nvmf_mem_describe(m, NULL, desc, sizeof(desc));
			CHECK(strstr(desc, "no flush after reads: the device does not support") != NULL);
		}
		CHECK_EQ(nvmf_mem_close(m, err, sizeof(err)), 0);
		unsetenv("NVMF_STANDIN_FLUSH_OPTIONS");
		unsetenv("NVMF_STANDIN_ORDERING");
		check_clean("no flush");
	}
out:
	free(host);
}

/* The area registered once more per extra RDMA device: the same bytes the first registration
 * took, by the same path; the extra ones go first at close; failures leave nothing behind. */
static void register_more_case(int kind, int reg, int staged, const char *what)
{
	enum { LEN = 128 * 1024 };
	struct nvmf_mem *m = NULL;
	struct fake_reg f, g[NVMF_MEM_MAX_MORE + 1];
	struct nvmf_mem_registrar r = fake(&f), rg[NVMF_MEM_MAX_MORE + 1];
	const struct nvmf_mr *mr = (const void *)1;
	char err[NVMF_MEM_ERR_LEN], *host = xmalloc(LEN);
	const struct nvmf_mem_info *in;

	for (unsigned i = 0; i <= NVMF_MEM_MAX_MORE; i++)
		rg[i] = fake(&g[i]);
	CHECK_EQ(open_mem(&m, kind, 0, reg, staged, err, sizeof(err)), 0);
	if (!m) {
		free(host);
		return;
	}
	CHECK_EQ(nvmf_mem_attach(m, host, LEN), 0);
	CHECK_EQ(nvmf_mem_register_more(m, &rg[0], &mr), -EINVAL);   /* before register */
	CHECK(mr == NULL);
	CHECK(one_line(nvmf_mem_err(m)));
	CHECK_EQ(nvmf_mem_register(m, &r), 0);
	in = nvmf_mem_info(m);
	/* a failing device: one line naming the path, nothing kept */
	g[0].va_rc = g[0].dmabuf_rc = -ENOMEM;
	CHECK_EQ(nvmf_mem_register_more(m, &rg[0], &mr), -ENOMEM);
	CHECK(mr == NULL);
	CHECK(one_line(nvmf_mem_err(m)));
	CHECK(strstr(nvmf_mem_err(m), "on another RDMA device") != NULL);
	CHECK(strstr(nvmf_mem_err(m), nvmf_mem_path_name(in->path)) != NULL);
	g[0].va_rc = g[0].dmabuf_rc = 0;
	for (unsigned i = 0; i < NVMF_MEM_MAX_MORE; i++) {
		CHECK_EQ(nvmf_mem_register_more(m, &rg[i], &mr), 0);
		CHECK(mr != NULL && mr != nvmf_mem_mr(m));
	}
	CHECK_EQ(nvmf_mem_register_more(m, &rg[NVMF_MEM_MAX_MORE], &mr), -ENOSPC);
	/* the same registration path, the same bytes */
	if (in->path == NVMF_MEM_PATH_DMABUF) {
		CHECK_EQ(g[1].dmabuf_calls, 1);
		CHECK_EQ(g[1].va_calls, 0);
		CHECK_EQ(g[1].fd, f.fd);               /* the one export, still open */
		CHECK(g[1].fd_was_valid);
		CHECK_EQ(g[1].dlen, f.dlen);
		CHECK_EQ(g[1].iova, f.iova);
	} else {
		CHECK_EQ(g[1].va_calls, 1);
		CHECK_EQ(g[1].dmabuf_calls, 0);
		CHECK(g[1].va_addr == f.va_addr);      /* host area, staging or device pointer */
		CHECK_EQ(g[1].va_len, f.va_len);
		if (kind == NVMF_MEM_HOST)
			CHECK(g[1].va_addr == host);
		else if (in->path == NVMF_MEM_PATH_PEERMEM)
			CHECK(g[1].va_addr == (void *)(uintptr_t)in->dev);
		else
			CHECK(g[1].va_addr != host && g[1].va_addr != (void *)(uintptr_t)in->dev);
	}
	printf("register more (%s): path %s, %d extra devices\n", what,
	       nvmf_mem_path_name(in->path), NVMF_MEM_MAX_MORE);
	dereg_seq = 0;
	CHECK_EQ(nvmf_mem_close(m, err, sizeof(err)), 0);
	CHECK_EQ(f.dereg_calls, 1);
	CHECK_EQ(f.dereg_at, NVMF_MEM_MAX_MORE + 1);   /* the first registration last */
	for (unsigned i = 0; i < NVMF_MEM_MAX_MORE; i++) {
		CHECK_EQ(g[i].dereg_calls, 1);
		CHECK(g[i].dereg_at <= NVMF_MEM_MAX_MORE);
	}
	CHECK_EQ(g[NVMF_MEM_MAX_MORE].dereg_calls, 0);
	if (kind == NVMF_MEM_CUDA)
		check_clean(what);
	free(host);
}

static void test_register_more(void)
{
	register_more_case(NVMF_MEM_HOST, 0, 0, "host memory");
	if (real)
		return;
	register_more_case(NVMF_MEM_CUDA, NVMF_MEM_REG_PEERMEM, 0, "GPUDirect, peermem");
	register_more_case(NVMF_MEM_CUDA, NVMF_MEM_REG_AUTO, 1, "staged");
	if (access("/dev/udmabuf", R_OK | W_OK) == 0)
		register_more_case(NVMF_MEM_CUDA, NVMF_MEM_REG_DMABUF, 0, "GPUDirect, dma-buf");
	else
		printf("register more, dma-buf: not run (no /dev/udmabuf for the stand-in's export)\n");
}

/* ---- threads: every lane's context current in its own thread ---- */

static pthread_barrier_t bar;

struct lane_thread {
	struct nvmf_mem *m;
	int dev, rc, current_ok, refs_seen;
	char err[NVMF_MEM_ERR_LEN];
};

static void *lane_main(void *arg)
{
	struct lane_thread *t = arg;
	uint8_t *host = xmalloc(131072), *chk = xmalloc(131072);
	nvmf_CUcontext cur = NULL;
	struct nvmf_standin_stats st;

	fill(host, 131072, (unsigned)t->dev + 20);
	t->rc = open_mem(&t->m, NVMF_MEM_CUDA, t->dev, 0, 0, t->err, sizeof(t->err));
	if (!t->rc)
		t->rc = nvmf_mem_attach(t->m, host, 131072);
	if (!t->rc)
		t->current_ok = cu->cuCtxGetCurrent(&cur) == NVMF_CUDA_SUCCESS &&
				cur == nvmf_mem_info(t->m)->ctx;
	pthread_barrier_wait(&bar);       /* both lanes open */
	get_stats(&st);
	t->refs_seen = st.ctx_refs[0];
	pthread_barrier_wait(&bar);       /* the checker thread runs */
	pthread_barrier_wait(&bar);
	if (!t->rc) {
		memset(host, 0, 131072);
		t->rc = nvmf_mem_to_host(t->m, 0, 131072);
		fill(chk, 131072, (unsigned)t->dev + 20);
		if (!t->rc && memcmp(host, chk, 131072))
			t->rc = -EIO;
	}
	if (t->m) {
		int rc = nvmf_mem_close(t->m, t->err, sizeof(t->err));

		if (!t->rc)
			t->rc = rc;
	}
	free(host);
	free(chk);
	return NULL;
}

struct other_thread {
	struct nvmf_mem *m;
	int no_ctx_rc, raw_alloc_rc, backend_rc, current_after;
};

static void *other_main(void *arg)
{
	struct other_thread *o = arg;
	nvmf_CUcontext cur = (void *)1;
	nvmf_CUdeviceptr p = 0;
	uint8_t buf[4096];

	/* A thread that made no context current: the driver refuses memory calls. */
	o->no_ctx_rc = cu->cuCtxGetCurrent(&cur) == NVMF_CUDA_SUCCESS && cur == NULL;
	o->raw_alloc_rc = (int)cu->cuMemAlloc_v2(&p, 4096);
	if (o->raw_alloc_rc == NVMF_CUDA_SUCCESS)
		cu->cuMemFree_v2(p);
	/* The backend makes its context current first. */
	memset(buf, 0, sizeof(buf));
	o->backend_rc = o->m ? nvmf_mem_to_host(o->m, 0, sizeof(buf)) : -1;
	o->current_after = cu->cuCtxGetCurrent(&cur) == NVMF_CUDA_SUCCESS && o->m &&
			   cur == nvmf_mem_info(o->m)->ctx;
	return NULL;
}

static void test_threads(int devs)
{
	struct lane_thread t[2];
	struct other_thread o;
	pthread_t th[2], oth;

	memset(t, 0, sizeof(t));
	memset(&o, 0, sizeof(o));
	pthread_barrier_init(&bar, NULL, 3);
	for (int i = 0; i < 2; i++) {
		t[i].dev = devs > 1 ? i : 0;
		pthread_create(&th[i], NULL, lane_main, &t[i]);
	}
	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar);
	o.m = t[0].m;
	pthread_create(&oth, NULL, other_main, &o);
	pthread_join(oth, NULL);
	pthread_barrier_wait(&bar);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&bar);
	for (int i = 0; i < 2; i++) {
		if (t[i].rc)
			fprintf(stderr, "lane thread %d (device %d): %s\n", i, t[i].dev, t[i].err);
		CHECK_EQ(t[i].rc, 0);
		CHECK(t[i].current_ok);
		if (!real && devs == 1)
			CHECK_EQ(t[i].refs_seen, 2);      /* one primary context, two references */
	}
	CHECK(o.no_ctx_rc);
	if (!real)
		CHECK_EQ(o.raw_alloc_rc, NVMF_CUDA_ERROR_INVALID_CONTEXT);
	else
		printf("threads: cuMemAlloc_v2 in a thread with no current context: %d\n",
		       o.raw_alloc_rc);
	CHECK_EQ(o.backend_rc, 0);
	CHECK(o.current_after);
	check_clean("threads");
}

static void test_devices(void)
{
	struct nvmf_mem *m = NULL;
	char err[NVMF_MEM_ERR_LEN];
	int count = 0;

	CHECK_EQ(cu->cuDeviceGetCount(&count), NVMF_CUDA_SUCCESS);
	CHECK_EQ(open_mem(&m, NVMF_MEM_CUDA, count, 0, 0, err, sizeof(err)), -ENODEV);
	CHECK(m == NULL);
	CHECK(one_line(err));
	CHECK(strstr(err, "does not exist") != NULL);
	printf("device %d: %s\n", count, err);
	CHECK_EQ(open_mem(&m, NVMF_MEM_CUDA, -1, 0, 0, err, sizeof(err)), -ENODEV);
	if (!real) {
		setenv("NVMF_STANDIN_DEVICES", "2", 1);
		setenv("NVMF_STANDIN_PCI", "0000:3B:00.0,0000:86:00.0", 1);
		CHECK_EQ(open_mem(&m, NVMF_MEM_CUDA, 1, 0, 0, err, sizeof(err)), 0);
		if (m) {
			CHECK_STR(nvmf_mem_info(m)->gpu_pci, "0000:86:00.0");
			CHECK_EQ(nvmf_mem_close(m, err, sizeof(err)), 0);
		}
		test_threads(2);
		unsetenv("NVMF_STANDIN_DEVICES");
		setenv("NVMF_STANDIN_PCI", "0000:3B:00.0", 1);
	}
	check_clean("devices");
}

/* ---- fork: a child of a CUDA-initialized process cannot use CUDA ---- */

static struct nvmf_mem *fork_m;

static void child_after_init(void)
{
	struct nvmf_mem *m2 = NULL;
	char err[NVMF_MEM_ERR_LEN];
	int rc;

	rc = nvmf_mem_to_host(fork_m, 0, 4096);
	printf("forked child, parent's lane: rc %d: %s\n", rc, nvmf_mem_err(fork_m));
	CHECK(rc < 0);
	CHECK(one_line(nvmf_mem_err(fork_m)));
	if (strstr(nvmf_mem_err(fork_m), "CUDA_ERROR_NOT_INITIALIZED"))
		CHECK(strstr(nvmf_mem_err(fork_m), "forked") != NULL);
	else
		CHECK(real);   /* the stand-in answers as the real driver is documented to */
	rc = open_mem(&m2, NVMF_MEM_CUDA, 0, 0, 0, err, sizeof(err));
	printf("forked child, new lane: rc %d: %s\n", rc, err);
	CHECK(rc < 0);
	CHECK(m2 == NULL);
	CHECK(one_line(err));
	if (!real) {
		CHECK(strstr(err, "cuInit: CUDA_ERROR_NOT_INITIALIZED") != NULL);
		CHECK(strstr(err, "was forked from it") != NULL);
	}
	if (m2)
		nvmf_mem_close(m2, err, sizeof(err));
}

static void test_fork(void)
{
	char err[NVMF_MEM_ERR_LEN], *host = xmalloc(65536);
	int rc;

	memset(host, 1, 65536);
	CHECK_EQ(open_mem(&fork_m, NVMF_MEM_CUDA, 0, 0, 0, err, sizeof(err)), 0);
	if (fork_m) {
		CHECK_EQ(nvmf_mem_attach(fork_m, host, 65536), 0);
		rc = run_child(child_after_init, NULL);
		CHECK_EQ(rc, 0);
		/* the parent is unaffected */
		CHECK_EQ(nvmf_mem_to_host(fork_m, 0, 4096), 0);
		CHECK_EQ(nvmf_mem_close(fork_m, err, sizeof(err)), 0);
	}
	check_clean("fork");
	free(host);
}

/* ---- fault injection: every CUDA call of a lane's life failing in turn ---- */

struct scenario {
	int  staged;
	int  step;                 /* the first step that failed (0: none) */
	int  rc;
	int  close_rc;
	char err[NVMF_MEM_ERR_LEN];
	char reg_note[NVMF_MEM_ERR_LEN];
};

static const char *step_names[] = { "none", "open", "attach", "register", "prepare_write",
				    "reads_reaped", "finish_read", "close" };

static void scenario_body(struct scenario *s);

static void *scenario_thread(void *arg)
{
	scenario_body(arg);
	return NULL;
}

/* Each run in a fresh thread: no context current yet, as in a new fio job thread. */
static void scenario_run(struct scenario *s)
{
	pthread_t t;

	if (pthread_create(&t, NULL, scenario_thread, s)) {
		scenario_body(s);
		return;
	}
	pthread_join(t, NULL);
}

static void scenario_body(struct scenario *s)
{
	enum { LEN = 200000 };
	struct nvmf_mem *m = NULL;
	struct fake_reg f;
	struct nvmf_mem_registrar r = fake(&f);
	char err[NVMF_MEM_ERR_LEN], *host = xmalloc(LEN);
	int rc;

	memset(host, 0x33, LEN);
	s->step = 0;
	s->rc = 0;
	s->err[0] = s->reg_note[0] = 0;
	rc = open_mem(&m, NVMF_MEM_CUDA, 0, NVMF_MEM_REG_AUTO, s->staged, s->err, sizeof(s->err));
	if (rc) {
		s->step = 1;
		s->rc = rc;
		free(host);
		return;
	}
#define STEP(n, call)                                                                     \
	if (!s->step && (rc = (call))) {                                                  \
		s->step = n;                                                              \
		s->rc = rc;                                                               \
		snprintf(s->err, sizeof(s->err), "%s", nvmf_mem_err(m));                  \
	}
	STEP(2, nvmf_mem_attach(m, host, LEN));
	STEP(3, nvmf_mem_register(m, &r));
	snprintf(s->reg_note, sizeof(s->reg_note), "%s", nvmf_mem_info(m)->reg_note);
	STEP(4, nvmf_mem_prepare_write(m, 4096, 8192, 1));
	STEP(5, nvmf_mem_reads_reaped(m));
	STEP(6, nvmf_mem_finish_read(m, 4096, 8192, 1));
#undef STEP
	s->close_rc = nvmf_mem_close(m, err, sizeof(err));
	if (s->close_rc && !s->step) {
		s->step = 7;
		s->rc = s->close_rc;
		snprintf(s->err, sizeof(s->err), "%s", err);
	}
	free(host);
}

static void test_faults(int staged, const char *offset)
{
	struct scenario s;
	struct { char name[48]; int n; } calls[64];
	int ncalls = 0, mark, cases = 0;

	if (offset)
		setenv("NVMF_STANDIN_ALLOC_OFFSET", offset, 1);
	memset(&s, 0, sizeof(s));
	s.staged = staged;
	/* A clean run first: which calls, how many times each. */
	mark = log_mark();
	scenario_run(&s);
	CHECK_EQ(s.step, 0);
	if (s.step)
		fprintf(stderr, "clean scenario failed at %s: %s\n", step_names[s.step], s.err);
	check_clean("clean scenario");
	log_load();
	for (int i = mark; i < log_n; i++) {
		char name[48];
		int pid, k;

		if (sscanf(log_lines[i], "[%d] %47s", &pid, name) != 2 || pid != (int)getpid() ||
		    strncmp(name, "cu", 2))
			continue;
		for (k = 0; k < ncalls; k++)
			if (!strcmp(calls[k].name, name))
				break;
		if (k == ncalls && ncalls < 64) {
			snprintf(calls[k].name, sizeof(calls[k].name), "%s", name);
			calls[k].n = 0;
			ncalls++;
		}
		if (k < ncalls)
			calls[k].n++;
	}
	CHECK(ncalls >= 12);
	for (int k = 0; k < ncalls; k++) {
		for (int n = 1; n <= calls[k].n; n++) {
			char spec[96];
			int tolerated, leaked_ref = 0;

			snprintf(spec, sizeof(spec), "%.47s:%d", calls[k].name, n);
			setenv("NVMF_STANDIN_FAIL", spec, 1);
			scenario_run(&s);
			unsetenv("NVMF_STANDIN_FAIL");
			cases++;
			/* A call of the dma-buf attempt failing in auto mode is a fallback to
			 * peermem, with the reason kept, not an error. */
			tolerated = !s.step && strstr(s.reg_note, calls[k].name) &&
				    strstr(s.reg_note, "CUDA_ERROR_UNKNOWN");
			if (!strcmp(calls[k].name, "cuMemGetHandleForAddressRange"))
				CHECK(tolerated);
			if (tolerated) {
				check_clean(spec);
				continue;
			}
			if (!s.step || !one_line(s.err) || !strstr(s.err, calls[k].name) ||
			    !strstr(s.err, "CUDA_ERROR_"))
				fprintf(stderr, "%s%s: step %s rc %d: '%s'\n", spec,
					staged ? " (staged)" : "", step_names[s.step], s.rc, s.err);
			CHECK(s.step != 0);
			CHECK(s.rc < 0);
			CHECK(one_line(s.err));
			CHECK(strstr(s.err, calls[k].name) != NULL);
			CHECK(strstr(s.err, "CUDA_ERROR_") != NULL);
			if (!strcmp(calls[k].name, "cuMemAlloc_v2"))
				CHECK_EQ(s.rc, -ENOMEM);
			if (VERBOSE_FAULTS)
				printf("  %-36s -> %s: %s\n", spec, step_names[s.step], s.err);
			/* At teardown, memory that could not be freed goes with the context;
			 * a context that could not be released keeps its reference. */
			if (!strcmp(calls[k].name, "cuMemFree_v2"))
				expected_violations++;
			if (!strcmp(calls[k].name, "cuDevicePrimaryCtxRelease_v2")) {
				struct nvmf_standin_stats st;

				get_stats(&st);
				CHECK_EQ(st.ctx_refs[0], 1);
				leaked_ref = 1;
			}
			if (leaked_ref)
				cu->cuDevicePrimaryCtxRelease_v2(0);
			if (!check_clean(spec))
				fprintf(stderr, "  (after %s%s: step %s: %s)\n", spec,
					staged ? ", staged" : "", step_names[s.step], s.err);
		}
	}
	printf("fault injection%s%s: %d cases over %d entry points\n", staged ? " (staged)" : "",
	       offset ? " (realigned allocation)" : "", cases, ncalls);
	if (offset)
		unsetenv("NVMF_STANDIN_ALLOC_OFFSET");
}

/* Error text when the driver cannot even name its error. */
static void test_unnamed_error(void)
{
	struct scenario s;

	memset(&s, 0, sizeof(s));
	setenv("NVMF_STANDIN_FAIL", "cuGetErrorName:1+,cuGetErrorString:1+,cuMemAlloc_v2:1:4242", 1);
	scenario_run(&s);
	unsetenv("NVMF_STANDIN_FAIL");
	CHECK_EQ(s.step, 2);
	CHECK(strstr(s.err, "cuMemAlloc_v2 of 262144 bytes: CUresult 4242") != NULL);
	CHECK(one_line(s.err));
	check_clean("unnamed error");
}

/* On a real machine: the GPU's place as this machine's /sys tells it. */
static void print_real_locality(void)
{
	struct nvmf_mem *m = NULL;
	struct nvmf_mem_opts o;
	struct nvmf_mem_locality loc;
	char err[NVMF_MEM_ERR_LEN], desc[1024];

	memset(&o, 0, sizeof(o));
	o.kind = NVMF_MEM_CUDA;
	CHECK_EQ(nvmf_mem_open(&m, &o, err, sizeof(err)), 0);
	if (!m) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	nvmf_mem_locality(m, NULL, &loc);
	nvmf_mem_describe(m, NULL, desc, sizeof(desc));
	printf("this machine: %s (GPU NUMA node from sysfs: %d)\n", desc, loc.gpu_numa);
	CHECK_EQ(nvmf_mem_close(m, err, sizeof(err)), 0);
}

/* ---- setup ---- */

static void mkfile(const char *rel, const char *text)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", sysroot, rel);
	for (char *p = path + strlen(sysroot) + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void make_sysfs(void)
{
	char link[600];

	snprintf(sysroot, sizeof(sysroot), "%s/sys", tmpdir);
	mkdir(sysroot, 0755);
	mkfile("bus/pci/devices/0000:3b:00.0/numa_node", "0\n");
	mkfile("devices/pci0000:3a/0000:3a:00.0/0000:3c:00.0/numa_node", "1\n");
	mkfile("class/infiniband/rxe0/node_type", "1: CA\n");
	mkfile("class/infiniband/mlx5_0/node_type", "1: CA\n");
	snprintf(link, sizeof(link), "%s/class/infiniband/mlx5_0/device", sysroot);
	if (symlink("../../../devices/pci0000:3a/0000:3a:00.0/0000:3c:00.0", link))
		perror("symlink");
}

int main(int argc, char **argv)
{
	char tmpl[] = "/tmp/fio-nvmeof-test_cuda.XXXXXX", err[NVMF_MEM_ERR_LEN], cmd[400];
	int rc, sig = 0;

	(void)argc;
	real = getenv("NVMF_TEST_REAL_DRIVER") && !strcmp(getenv("NVMF_TEST_REAL_DRIVER"), "1");
	if (!real && !getenv("NVMF_TEST_CUDA_STANDIN")) {
		/* Load the stand-in as the engine's tests do: by the library search path. */
		char path[4096];
		const char *old = getenv("LD_LIBRARY_PATH");

		if (!NVMF_STANDIN_DIR[0])
			return check_skip("test_cuda", "built without the stand-in driver "
					  "(NVMF_STANDIN_DIR); set NVMF_TEST_REAL_DRIVER=1 to test "
					  "the real driver");
		snprintf(path, sizeof(path), "%s%s%s", NVMF_STANDIN_DIR, old && *old ? ":" : "",
			 old ? old : "");
		setenv("LD_LIBRARY_PATH", path, 1);
		setenv("NVMF_TEST_CUDA_STANDIN", "1", 1);
		execv("/proc/self/exe", argv);
		perror("re-exec with LD_LIBRARY_PATH");
		return 1;
	}
	if (!mkdtemp(tmpl))
		return check_skip("test_cuda", "cannot create a temp dir");
	snprintf(tmpdir, sizeof(tmpdir), "%s", tmpl);
	snprintf(logpath, sizeof(logpath), "%s/calls.log", tmpdir);
	make_sysfs();
	if (!real) {
		setenv("NVMF_STANDIN_LOG", logpath, 1);
		setenv("NVMF_STANDIN_DEVMEM", "none", 1);   /* the CPU cannot touch device memory */
		setenv("NVMF_STANDIN_PCI", "0000:3B:00.0", 1);
	}
	test_rc_mapping();
	test_pci_and_sysfs();

	/* Children with a fresh loader first. */
	CHECK_EQ(run_child(child_no_driver, NULL), 0);
	if (!real) {
		CHECK_EQ(run_child(child_cuda10, NULL), 0);
		CHECK_EQ(run_child(child_cuda11_2, NULL), 0);
		printf("a legacy entry point (expect the stand-in's message and an abort):\n");
		rc = run_child(child_legacy, &sig);
		CHECK_EQ(sig, SIGABRT);
	}

	rc = nvmf_cuda_load(&cu, err, sizeof(err));
	if (rc) {
		if (real)
			return check_skip("test_cuda", err);
		fprintf(stderr, "loading the stand-in: %s\n", err);
		return 1;
	}
	printf("driver: %s (version %d)\n", cu->lib, cu->driver_version);
	if (real && nvmf_cuda_init(cu, err, sizeof(err)))
		return check_skip("test_cuda", err);      /* a driver but no usable GPU */
	if (!real) {
		void *dl = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);

		stats_fn = dl ? (nvmf_standin_stats_fn *)dlsym(dl, NVMF_STANDIN_STATS_SYM) : NULL;
		CHECK(stats_fn != NULL);        /* the stand-in, not a system driver */
		CHECK(strstr(cu->lib, "cuda-standin") != NULL);
		if (dl)
			dlclose(dl);
		if (!stats_fn)
			return check_done("test_cuda");
	}

	test_host_backend();
	if (real)
		print_real_locality();
	test_gpudirect_basic();
	test_staged();
	test_staged_fallback();
	test_registration_paths();
	test_register_more();
	test_threads(1);
	test_devices();
	test_fork();
	if (!real) {
		test_realign();
		test_faults(0, NULL);
		test_faults(1, NULL);
		test_faults(0, "8192");
		test_unnamed_error();
	}
	check_clean("end");

	for (int i = 0; i < log_n; i++)
		free(log_lines[i]);
	free(log_lines);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", tmpdir);
	return check_done("test_cuda");
}
