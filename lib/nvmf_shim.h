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

/* ---- CUDA driver API (lib/nvmf_cuda.c): a CUresult, CUDA_SUCCESS (0) for success.  Messages
 * carry the driver's own cuGetErrorName text (nvmf_cuda_errf); this is only the errno. */
#include "nvmf_cuda_api.h"

static inline int nvmf_rc_cuda(nvmf_CUresult r)
{
	switch (r) {
	case NVMF_CUDA_SUCCESS:
		return 0;
	case NVMF_CUDA_ERROR_INVALID_VALUE:
	case NVMF_CUDA_ERROR_INVALID_HANDLE:
	case NVMF_CUDA_ERROR_INVALID_CONTEXT:
	case NVMF_CUDA_ERROR_CONTEXT_IS_DESTROYED:
		return -EINVAL;
	case NVMF_CUDA_ERROR_OUT_OF_MEMORY:
		return -ENOMEM;
	case NVMF_CUDA_ERROR_NOT_INITIALIZED:
	case NVMF_CUDA_ERROR_DEINITIALIZED:
		return -ENXIO;
	case NVMF_CUDA_ERROR_NO_DEVICE:
	case NVMF_CUDA_ERROR_INVALID_DEVICE:
	case NVMF_CUDA_ERROR_DEVICE_NOT_LICENSED:
		return -ENODEV;
	case NVMF_CUDA_ERROR_NOT_SUPPORTED:
	case NVMF_CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
		return -EOPNOTSUPP;
	case NVMF_CUDA_ERROR_NOT_PERMITTED:
		return -EPERM;
	case NVMF_CUDA_ERROR_NOT_FOUND:
		return -ENOENT;
	case NVMF_CUDA_ERROR_ILLEGAL_ADDRESS:
		return -EFAULT;
	case NVMF_CUDA_ERROR_STUB_LIBRARY:
	case NVMF_CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
		return -ELIBBAD;
	case NVMF_CUDA_ERROR_SYSTEM_NOT_READY:
		return -EAGAIN;
	case NVMF_CUDA_ERROR_TIMEOUT:
		return -ETIMEDOUT;
	default:
		return -EIO;
	}
}

#endif
