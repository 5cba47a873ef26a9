/* nvmf_cuda_api.h - the small subset of the CUDA driver API this project uses, declared by
 * the project so that nothing here needs NVIDIA's headers to build.  The driver is loaded at
 * run time (lib/nvmf_cuda.c); this header has types, the constants used, and one function
 * type per entry point.
 *
 * Every name is the driver's own with an nvmf_ / NVMF_ prefix, so that this header and a real
 * cuda.h can be included together: tests/unit/test_cuda_decls.c checks each declaration and
 * value here against the real header at compile time.  The declarations follow the CUDA 12/13
 * ABI of the *versioned* entry points the library exports (cuMemAlloc_v2 and so on): the
 * unversioned names of the same functions are the old 32-bit-size ABI.
 *
 * The struct tags (struct CUctx_st) are the driver's own on purpose: a pointer to a struct is
 * compatible only with a pointer to the same tag, and the tag is no typedef name that could
 * clash with cuda.h. */
#ifndef FIO_NVMEOF_CUDA_API_H
#define FIO_NVMEOF_CUDA_API_H

#include <stddef.h>

/* CUresult is an enum of non-negative values in cuda.h: its type is unsigned int. */
typedef unsigned int nvmf_CUresult;
typedef int nvmf_CUdevice;                      /* an ordinal's device handle */
typedef unsigned long long nvmf_CUdeviceptr;    /* 64-bit hosts only (x86-64, aarch64) */
typedef struct CUctx_st *nvmf_CUcontext;
typedef unsigned int nvmf_CUdevice_attribute;
typedef unsigned int nvmf_CUpointer_attribute;
typedef unsigned int nvmf_CUmemRangeHandleType;
typedef unsigned int nvmf_CUflushGPUDirectRDMAWritesTarget;
typedef unsigned int nvmf_CUflushGPUDirectRDMAWritesScope;

/* The CUDA release these declarations were written against (cuda.h's CUDA_VERSION form). */
#define NVMF_CUDA_API_VERSION 12000

/* CUresult values the code names (others are only ever printed via cuGetErrorName). */
enum {
	NVMF_CUDA_SUCCESS                              = 0,
	NVMF_CUDA_ERROR_INVALID_VALUE                  = 1,
	NVMF_CUDA_ERROR_OUT_OF_MEMORY                  = 2,
	NVMF_CUDA_ERROR_NOT_INITIALIZED                = 3,
	NVMF_CUDA_ERROR_DEINITIALIZED                  = 4,
	NVMF_CUDA_ERROR_STUB_LIBRARY                   = 34,
	NVMF_CUDA_ERROR_NO_DEVICE                      = 100,
	NVMF_CUDA_ERROR_INVALID_DEVICE                 = 101,
	NVMF_CUDA_ERROR_DEVICE_NOT_LICENSED            = 102,
	NVMF_CUDA_ERROR_INVALID_CONTEXT                = 201,
	NVMF_CUDA_ERROR_OPERATING_SYSTEM               = 304,
	NVMF_CUDA_ERROR_INVALID_HANDLE                 = 400,
	NVMF_CUDA_ERROR_NOT_FOUND                      = 500,
	NVMF_CUDA_ERROR_ILLEGAL_ADDRESS                = 700,
	NVMF_CUDA_ERROR_CONTEXT_IS_DESTROYED           = 709,
	NVMF_CUDA_ERROR_NOT_PERMITTED                  = 800,
	NVMF_CUDA_ERROR_NOT_SUPPORTED                  = 801,
	NVMF_CUDA_ERROR_SYSTEM_NOT_READY               = 802,
	NVMF_CUDA_ERROR_SYSTEM_DRIVER_MISMATCH         = 803,
	NVMF_CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804,
	NVMF_CUDA_ERROR_TIMEOUT                        = 909,
	NVMF_CUDA_ERROR_UNKNOWN                        = 999,
};

/* CUdevice_attribute values queried. */
enum {
	NVMF_CU_DEVICE_ATTRIBUTE_PCI_BUS_ID                       = 33,
	NVMF_CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID                    = 34,
	NVMF_CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING               = 41,
	NVMF_CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID                    = 50,
	NVMF_CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED        = 116,
	NVMF_CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS = 117,
	NVMF_CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING  = 118,
	NVMF_CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED                = 124,
};

/* CUflushGPUDirectRDMAWritesOptions: bits of attribute 117. */
enum {
	NVMF_CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST   = 1 << 0,
	NVMF_CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_MEMOPS = 1 << 1,
};

/* CUGPUDirectRDMAWritesOrdering: values of attribute 118. */
enum {
	NVMF_CU_GPU_DIRECT_RDMA_WRITES_ORDERING_NONE        = 0,
	NVMF_CU_GPU_DIRECT_RDMA_WRITES_ORDERING_OWNER       = 100,
	NVMF_CU_GPU_DIRECT_RDMA_WRITES_ORDERING_ALL_DEVICES = 200,
};

/* CUflushGPUDirectRDMAWritesTarget / CUflushGPUDirectRDMAWritesScope */
enum {
	NVMF_CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX = 0,
	NVMF_CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER           = 100,
	NVMF_CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_ALL_DEVICES     = 200,
};

/* CUpointer_attribute */
enum {
	NVMF_CU_POINTER_ATTRIBUTE_CONTEXT    = 1,
	NVMF_CU_POINTER_ATTRIBUTE_SYNC_MEMOPS = 6,
};

/* CUmemRangeHandleType and CUmemRangeFlags */
enum {
	NVMF_CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD         = 1,
	NVMF_CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE = 1,
};

/* The entry points, as X(exported symbol, parameter list).  Every one returns CUresult.
 * REQUIRED: the loader refuses a driver that lacks one.  OPTIONAL: newer than the oldest
 * driver the project accepts; NULL in the table when absent, and the caller says so. */
#define NVMF_CUDA_API_REQUIRED(X)                                                          \
	X(cuGetErrorName,                (nvmf_CUresult error, const char **pStr))          \
	X(cuGetErrorString,              (nvmf_CUresult error, const char **pStr))          \
	X(cuInit,                        (unsigned int Flags))                              \
	X(cuDriverGetVersion,            (int *driverVersion))                              \
	X(cuDeviceGetCount,              (int *count))                                      \
	X(cuDeviceGet,                   (nvmf_CUdevice *device, int ordinal))              \
	X(cuDeviceGetAttribute,          (int *pi, nvmf_CUdevice_attribute attrib,          \
					  nvmf_CUdevice dev))                               \
	X(cuDeviceGetPCIBusId,           (char *pciBusId, int len, nvmf_CUdevice dev))      \
	X(cuDevicePrimaryCtxRetain,      (nvmf_CUcontext *pctx, nvmf_CUdevice dev))         \
	X(cuDevicePrimaryCtxRelease_v2,  (nvmf_CUdevice dev))                               \
	X(cuCtxSetCurrent,               (nvmf_CUcontext ctx))                              \
	X(cuCtxGetCurrent,               (nvmf_CUcontext *pctx))                            \
	X(cuCtxGetDevice,                (nvmf_CUdevice *device))                           \
	X(cuMemAlloc_v2,                 (nvmf_CUdeviceptr *dptr, size_t bytesize))         \
	X(cuMemFree_v2,                  (nvmf_CUdeviceptr dptr))                           \
	X(cuMemcpyHtoD_v2,               (nvmf_CUdeviceptr dstDevice, const void *srcHost,  \
					  size_t ByteCount))                                \
	X(cuMemcpyDtoH_v2,               (void *dstHost, nvmf_CUdeviceptr srcDevice,        \
					  size_t ByteCount))                                \
	X(cuPointerSetAttribute,         (const void *value,                                \
					  nvmf_CUpointer_attribute attribute,               \
					  nvmf_CUdeviceptr ptr))

#define NVMF_CUDA_API_OPTIONAL(X)                                                          \
	X(cuMemGetHandleForAddressRange, (void *handle, nvmf_CUdeviceptr dptr, size_t size,  \
					  nvmf_CUmemRangeHandleType handleType,             \
					  unsigned long long flags))         /* CUDA 11.7 */ \
	X(cuFlushGPUDirectRDMAWrites,    (nvmf_CUflushGPUDirectRDMAWritesTarget target,     \
					  nvmf_CUflushGPUDirectRDMAWritesScope scope))  /* 11.3 */

#define NVMF_CUDA_API(X) NVMF_CUDA_API_REQUIRED(X) NVMF_CUDA_API_OPTIONAL(X)

/* Function types: nvmf_cuMemAlloc_v2_fn is the type of cuMemAlloc_v2 (use a pointer to it). */
#define NVMF_CUDA_FN_TYPE(name, params) typedef nvmf_CUresult nvmf_##name##_fn params;
NVMF_CUDA_API(NVMF_CUDA_FN_TYPE)
#undef NVMF_CUDA_FN_TYPE

#endif
