/* nvmf_shim.h - one place that turns the return conventions of rdma-core (and later the CUDA
 * driver API) into this library's: a negative errno, 0 for success. */
#ifndef FIO_NVMEOF_SHIM_H
#define FIO_NVMEOF_SHIM_H

#include <errno.h>

/* librdmacm and most ibv_* setters: -1 with errno set (0 on success). */
static inline int nvmf_rc_minus1(int rc)
{
	if (rc == 0)
		return 0;
	return errno > 0 ? -errno : -EIO;
}

/* ibv_post_send/recv, ibv_modify_qp, ibv_query_*: a positive errno (0 on success). */
static inline int nvmf_rc_positive(int rc)
{
	if (rc == 0)
		return 0;
	return rc > 0 ? -rc : -EIO;
}

/* Allocating calls (ibv_alloc_pd, ibv_reg_mr, rdma_create_event_channel, ...): NULL + errno. */
static inline int nvmf_rc_ptr(const void *p)
{
	if (p)
		return 0;
	return errno > 0 ? -errno : -ENOMEM;
}

#endif
