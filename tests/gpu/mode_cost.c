/* mode_cost.c - what each GPU buffer mode costs the host per I/O, measured on whatever
 * libcuda.so.1 is loaded (the real driver on a GPU machine, the stand-in elsewhere): the
 * memory backend's own I/O-path steps (lib/nvmf_mem.c: the copies and the flush), no RDMA
 * device and no target.  For 4 KiB and 128 KiB I/Os, half writes and half reads, in
 *   gpudirect-benchmark  nothing copied (the target would move the data to and from the GPU)
 *   gpudirect-data       fio's bytes: host->device before writes, flush + device->host after reads
 *   staged-benchmark     device->staging before writes, staging->device after reads
 *   staged-data          both
 * it prints microseconds per I/O and the engine's own closing-line copy counts.  Registration
 * goes through a registrar that accepts everything: this measures copies, not GPUDirect.
 * Exit 0, 1 on a backend error, 77 when no driver loads. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nvmf_mem.h"

#define AREA   (8u << 20)
#define BATCH  32            /* reads reaped together: one flush per batch, as the engine */

static int accept_va(void *ctx, void *addr, size_t len, struct nvmf_mr *mr, char *why,
		     size_t whylen)
{
	(void)ctx; (void)why; (void)whylen;
	mr->addr = addr;
	mr->len = len;
	mr->ibv_mr = mr;
	return 0;
}

static int accept_dmabuf(void *ctx, int fd, size_t len, uint64_t iova, struct nvmf_mr *mr,
			 char *why, size_t whylen)
{
	(void)ctx; (void)fd; (void)why; (void)whylen;
	mr->addr = (void *)(uintptr_t)iova;
	mr->len = len;
	mr->ibv_mr = mr;
	return 0;
}

static void forget(void *ctx, struct nvmf_mr *mr)
{
	(void)ctx;
	mr->ibv_mr = NULL;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* One mode, one block size: n I/Os (n/2 writes, then n/2 reads); 0 or -1. */
static int run(int staged, int data, size_t bs, unsigned n, void *host)
{
	struct nvmf_mem_registrar r = { accept_va, accept_dmabuf, forget, NULL };
	struct nvmf_mem_opts o;
	struct nvmf_mem *m = NULL;
	char err[NVMF_MEM_ERR_LEN], copies[512];
	unsigned slots = AREA / bs, i;
	double t0, t1;
	int rc;

	memset(&o, 0, sizeof(o));
	o.kind = NVMF_MEM_CUDA;
	o.staged = staged;
	o.cuda_device = getenv("CUDA_DEVICE") ? atoi(getenv("CUDA_DEVICE")) : 0;
	rc = nvmf_mem_open(&m, &o, err, sizeof(err));
	if (rc) {
		if (strstr(err, "cannot load")) {
			printf("SKIP: %s\n", err);
			return 77;
		}
		fprintf(stderr, "mode_cost: %s\n", err);
		return -1;
	}
	if ((rc = nvmf_mem_attach(m, host, AREA)) || (rc = nvmf_mem_register(m, &r)))
		goto fail;
	t0 = now_us();
	for (i = 0; i < n / 2; i++)
		if ((rc = nvmf_mem_prepare_write(m, (i % slots) * bs, bs, data)))
			goto fail;
	for (i = 0; i < n / 2; i++) {
		if (i % BATCH == 0 && (rc = nvmf_mem_reads_reaped(m)))
			goto fail;
		if ((rc = nvmf_mem_finish_read(m, (i % slots) * bs, bs, data)))
			goto fail;
	}
	t1 = now_us();
	nvmf_mem_copies_describe(m, copies, sizeof(copies));
	printf("%-20s %7zu %8.2f   %s\n", staged ? (data ? "staged-data" : "staged-benchmark") :
	       (data ? "gpudirect-data" : "gpudirect-benchmark"), bs, (t1 - t0) / n, copies);
	return nvmf_mem_close(m, err, sizeof(err)) ? -1 : 0;
fail:
	fprintf(stderr, "mode_cost: %s\n", nvmf_mem_err(m));
	nvmf_mem_close(m, err, sizeof(err));
	return -1;
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 4096, 131072 };
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 20000;
	void *host;
	int rc;

	if (n < 2 || posix_memalign(&host, 65536, AREA))
		return 1;
	memset(host, 0x5a, AREA);
	printf("%-20s %7s %8s   %s\n", "mode", "bs", "us/IO", "the engine's closing line: copies");
	for (unsigned s = 0; s < 2; s++)
		for (int staged = 0; staged < 2; staged++)
			for (int data = 0; data < 2; data++) {
				rc = run(staged, data, sizes[s], sizes[s] > 4096 ? n / 8 : n, host);
				if (rc) {
					free(host);
					return rc == 77 ? 77 : 1;
				}
			}
	free(host);
	return 0;
}
