/* nvmf_mem_lane.c - the memory backends' registration on a lane's protection domain with
 * rdma-core: ibv_reg_mr for host memory and for device memory under nvidia_peermem,
 * ibv_reg_dmabuf_mr for a dma-buf exported by the GPU driver.  Kept apart from nvmf_mem.c so
 * that the backends build (and are tested on a GPU machine) without rdma-core. */
#include <errno.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "nvmf_err.h"
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

/* Both registrations: by address (host memory, or device memory under nvidia_peermem), or of
 * a dma-buf (fd, addressed as iova), on the lane's protection domain.  mr is cleared first and
 * filled on success; on failure the reason goes to why. */
static int nvmf_lane_reg(const struct nvmf_mem_lane_ctx *c, int dmabuf, void *addr, int fd,
			 uint64_t iova, size_t len, struct nvmf_mr *mr, char *why, size_t whylen)
{
	struct ibv_pd *pd = nvmf_lane_pd(c->lane);
	int access = nvmf_mem_ibv_access(c->access);
	struct ibv_mr *m;
	int rc;

	memset(mr, 0, sizeof(*mr));
	/* NVMe/TCP registers nothing: the transport reads and writes the memory itself, so only
	 * host memory can be on its wire (device memory is staged: nvmf_mem_opts.staged_why). */
	if (!pd && c->lane && !strcmp(nvmf_lane_info(c->lane)->transport, "tcp")) {
		if (dmabuf)
			return nvmf_errf(why, whylen, -EOPNOTSUPP, "NVMe/TCP cannot take a dma-buf: "
					 "there is no RDMA device to map it");
		mr->addr = addr;
		mr->len = len;
		return 0;
	}
	if (!pd)
		return nvmf_errf(why, whylen, -EINVAL, "the lane has no protection domain");
	m = dmabuf ? ibv_reg_dmabuf_mr(pd, 0, len, iova, fd, access)
		   : ibv_reg_mr(pd, addr, len, access);
	if ((rc = nvmf_rc_ptr(m)) && dmabuf)
		return nvmf_errf(why, whylen, rc, "%zu bytes of dma-buf fd %d: %s%s", len, fd,
				 strerror(-rc), rc == -EOPNOTSUPP || rc == -EPROTONOSUPPORT ?
				 " (the RDMA device or its driver cannot map dma-bufs)" : "");
	if (rc)
		return nvmf_errf(why, whylen, rc, "ibv_reg_mr of %zu bytes at %p: %s", len, addr,
				 strerror(-rc));
	nvmf_mr_fill(mr, m, dmabuf ? (void *)(uintptr_t)iova : addr, len);
	return 0;
}

static int nvmf_lane_reg_va(void *ctx, void *addr, size_t len, struct nvmf_mr *mr, char *why,
			    size_t whylen)
{
	return nvmf_lane_reg(ctx, 0, addr, -1, 0, len, mr, why, whylen);
}

static int nvmf_lane_reg_dmabuf(void *ctx, int fd, size_t len, uint64_t iova, struct nvmf_mr *mr,
				char *why, size_t whylen)
{
	return nvmf_lane_reg(ctx, 1, NULL, fd, iova, len, mr, why, whylen);
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
