/* test_err.c - failure reasons (lib/nvmf_err.c): nvmf_errf formats into the caller's buffer,
 * cut to fit and terminated, and returns the code it was given; no buffer, nothing written;
 * nvmf_err_unset keeps a first reason from being replaced.  And the one opening both
 * registrations on a lane share (lib/nvmf_mem_lane.c): a lane without a protection domain
 * refuses with its reason, the MR cleared. */
#include <errno.h>
#include <string.h>

#include "nvmf_err.h"
#include "nvmf_mem.h"

#include "check.h"

static void test_errf(void)
{
	char buf[16];

	/* formatted, and the code handed back as is (a failure path is one statement) */
	memset(buf, 0x5a, sizeof(buf));
	CHECK_EQ(nvmf_errf(buf, sizeof(buf), -EINVAL, "key %s, %d", "ns", 7), -EINVAL);
	CHECK_STR(buf, "key ns, 7");
	CHECK_EQ(nvmf_errf(buf, sizeof(buf), 0, "ok"), 0);
	CHECK_STR(buf, "ok");
	CHECK_EQ(nvmf_errf(buf, sizeof(buf), 42, "x"), 42);

	/* cut to fit: len - 1 characters and the terminator, nothing past len */
	memset(buf, 0x5a, sizeof(buf));
	CHECK_EQ(nvmf_errf(buf, 8, -ENOMEM, "%s", "0123456789abcdef"), -ENOMEM);
	CHECK_STR(buf, "0123456");
	for (unsigned i = 8; i < sizeof(buf); i++)
		CHECK_EQ(buf[i], 0x5a);

	/* no buffer: nothing written, the code still returned */
	memset(buf, 0x5a, sizeof(buf));
	CHECK_EQ(nvmf_errf(NULL, 64, -EIO, "lost"), -EIO);
	CHECK_EQ(nvmf_errf(buf, 0, -EIO, "lost"), -EIO);
	CHECK_EQ(buf[0], 0x5a);
}

static void test_first_reason_kept(void)
{
	char buf[32];

	CHECK(nvmf_err_unset(NULL, sizeof(buf)) == NULL);
	buf[0] = 0;
	CHECK(nvmf_err_unset(buf, 0) == NULL);
	CHECK(nvmf_err_unset(buf, sizeof(buf)) == buf);

	/* the first failure names itself; what it caused next does not replace it */
	CHECK_EQ(nvmf_errf(nvmf_err_unset(buf, sizeof(buf)), sizeof(buf), -ETIMEDOUT,
			   "keep-alive %u ms", 5000u), -ETIMEDOUT);
	CHECK_STR(buf, "keep-alive 5000 ms");
	CHECK(nvmf_err_unset(buf, sizeof(buf)) == NULL);
	CHECK_EQ(nvmf_errf(nvmf_err_unset(buf, sizeof(buf)), sizeof(buf), -ENOTCONN,
			   "disconnected"), -ENOTCONN);
	CHECK_STR(buf, "keep-alive 5000 ms");
}

/* Both registrations (host or device memory by address, a dma-buf) on a lane that has no
 * protection domain: -EINVAL, the reason, and the MR cleared, as before they shared it. */
static void test_registration_without_pd(void)
{
	struct nvmf_mem_lane_ctx c;
	struct nvmf_mem_registrar r;
	struct nvmf_mr mr;
	char why[128], area[64];

	nvmf_mem_lane_registrar(&c, NULL, NVMF_MEM_REMOTE_READ, &r);
	CHECK(r.reg_va != NULL && r.reg_dmabuf != NULL && r.dereg != NULL);
	if (!r.reg_va || !r.reg_dmabuf)
		return;

	memset(&mr, 0xa5, sizeof(mr));
	why[0] = 0;
	CHECK_EQ(r.reg_va(r.ctx, area, sizeof(area), &mr, why, sizeof(why)), -EINVAL);
	CHECK_STR(why, "the lane has no protection domain");
	CHECK(mr.addr == NULL && mr.len == 0 && mr.lkey == 0 && mr.rkey == 0 && mr.ibv_mr == NULL);

	memset(&mr, 0xa5, sizeof(mr));
	why[0] = 0;
	CHECK_EQ(r.reg_dmabuf(r.ctx, 3, 4096, 0x10000, &mr, why, sizeof(why)), -EINVAL);
	CHECK_STR(why, "the lane has no protection domain");
	CHECK(mr.addr == NULL && mr.len == 0 && mr.lkey == 0 && mr.rkey == 0 && mr.ibv_mr == NULL);

	/* no reason buffer: still refused, nothing written */
	CHECK_EQ(r.reg_va(r.ctx, area, sizeof(area), &mr, NULL, 0), -EINVAL);
}

int main(void)
{
	test_errf();
	test_first_reason_kept();
	test_registration_without_pd();
	return check_done("test_err");
}
