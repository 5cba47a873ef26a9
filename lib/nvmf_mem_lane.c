/* nvmf_mem_lane.c - the memory backends' registration on a lane's protection domain with
 * rdma-core: ibv_reg_mr for host memory and for device memory under nvidia_peermem,
 * ibv_reg_dmabuf_mr for a dma-buf exported by the GPU driver.  Kept apart from nvmf_mem.c so
 * that the backends build (and are tested on a GPU machine) without rdma-core. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "nvmf_mem.h"
#include "nvmf_shim.h"

/* LOCAL_WRITE: reads land in the area (and verbs require it with REMOTE_WRITE). */
int nvmf_mem_ibv_access(int access)
{
	int f = IBV_ACCESS_LOCAL_WRITE;

	if (access & NVMF_MEM_REMOTE_READ)
		f |= IBV_ACCESS_REMOTE_READ;
	if (access & NVMF_MEM_REMOTE_WRITE)
		f |= IBV_ACCESS_REMOTE_WRITE;
	return f;
}

static void nvmf_mr_fill(struct nvmf_mr *mr, struct ibv_mr *m, void *addr, size_t len)
{
	mr->addr = addr;
	mr->len = len;
	mr->lkey = m->lkey;
	mr->rkey = m->rkey;
	mr->ibv_mr = m;
}

static int nvmf_lane_reg_va(void *ctx, void *addr, size_t len, struct nvmf_mr *mr, char *why,
			    size_t whylen)
{
	const struct nvmf_mem_lane_ctx *c = ctx;
	struct ibv_pd *pd = nvmf_lane_pd(c->lane);
	struct ibv_mr *m;
	int rc;

	memset(mr, 0, sizeof(*mr));
	if (!pd) {
		snprintf(why, whylen, "the lane has no protection domain");
		return -EINVAL;
	}
	m = ibv_reg_mr(pd, addr, len, nvmf_mem_ibv_access(c->access));
	if ((rc = nvmf_rc_ptr(m))) {
		snprintf(why, whylen, "ibv_reg_mr of %zu bytes at %p: %s", len, addr, strerror(-rc));
		return rc;
	}
	nvmf_mr_fill(mr, m, addr, len);
	return 0;
}

static int nvmf_lane_reg_dmabuf(void *ctx, int fd, size_t len, uint64_t iova, struct nvmf_mr *mr,
				char *why, size_t whylen)
{
	const struct nvmf_mem_lane_ctx *c = ctx;
	struct ibv_pd *pd = nvmf_lane_pd(c->lane);
	struct ibv_mr *m;
	int rc;

	memset(mr, 0, sizeof(*mr));
	if (!pd) {
		snprintf(why, whylen, "the lane has no protection domain");
		return -EINVAL;
	}
	m = ibv_reg_dmabuf_mr(pd, 0, len, iova, fd, nvmf_mem_ibv_access(c->access));
	if ((rc = nvmf_rc_ptr(m))) {
		snprintf(why, whylen, "%zu bytes of dma-buf fd %d: %s%s", len, fd, strerror(-rc),
			 rc == -EOPNOTSUPP || rc == -EPROTONOSUPPORT ?
			 " (the RDMA device or its driver cannot map dma-bufs)" : "");
		return rc;
	}
	nvmf_mr_fill(mr, m, (void *)(uintptr_t)iova, len);
	return 0;
}

static void nvmf_lane_dereg(void *ctx, struct nvmf_mr *mr)
{
	(void)ctx;
	nvmf_lane_dereg_mem(mr);
}

void nvmf_mem_lane_registrar(struct nvmf_mem_lane_ctx *c, struct nvmf_lane *lane, int access,
			     struct nvmf_mem_registrar *r)
{
	c->lane = lane;
	c->access = access;
	memset(r, 0, sizeof(*r));
	r->reg_va = nvmf_lane_reg_va;
	r->reg_dmabuf = nvmf_lane_reg_dmabuf;
	r->dereg = nvmf_lane_dereg;
	r->ctx = c;
}
