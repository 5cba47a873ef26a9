/* cost_provider.c - run by tools/nvmeof/cost.py in the testbed guest: where the RDMA provider's
 * poll, post and notify functions are.  Debian's providers are stripped, so callgrind names
 * their (static) functions by address alone ("0x0000000000002500"); ibv_poll_cq() and friends
 * are inline calls through the context's ops table, which this reads for the first device.
 * Prints one line per op: "OBJECT-BASENAME OFFSET NAME", OFFSET as callgrind spells it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <string.h>

static void show(const char *name, void *fn)
{
	Dl_info di;

	if (!fn || !dladdr(fn, &di) || !di.dli_fname) {
		printf("? 0 %s\n", name);
		return;
	}
	const char *base = strrchr(di.dli_fname, '/');
	printf("%s 0x%016lx %s\n", base ? base + 1 : di.dli_fname,
	       (unsigned long)((char *)fn - (char *)di.dli_fbase), name);
}

int main(void)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	struct ibv_context *ctx = l && l[0] ? ibv_open_device(l[0]) : NULL;

	if (!ctx) {
		fprintf(stderr, "cost: no RDMA device to open\n");
		return 1;
	}
	show("poll_cq", (void *)ctx->ops.poll_cq);
	show("post_send", (void *)ctx->ops.post_send);
	show("post_recv", (void *)ctx->ops.post_recv);
	show("post_srq_recv", (void *)ctx->ops.post_srq_recv);
	show("req_notify_cq", (void *)ctx->ops.req_notify_cq);
	ibv_close_device(ctx);
	ibv_free_device_list(l);
	return 0;
}
