/* test_cuda_decls.c - lib/nvmf_cuda_api.h against a real cuda.h, at compile time: every
 * function type compatible with the real prototype of the symbol we resolve, every type
 * compatible, every value equal.  At run time: the API names cuda.h maps to a versioned
 * symbol are the ones the loader resolves (cuMemAlloc -> cuMemAlloc_v2, ...).
 * The Makefile passes -DHAVE_REAL_CUDA_H and the include path only when $(CUDA_INC)/cuda.h
 * exists; otherwise this test skips (exit 77) and says so. */
#include "check.h"

#ifndef HAVE_REAL_CUDA_H

int main(void)
{
	return check_skip("test_cuda_decls", "no real cuda.h found (the Makefile looks in "
			  "CUDA_INC, default /usr/local/cuda/include): lib/nvmf_cuda_api.h is "
			  "not checked against NVIDIA's declarations here");
}

#else

#include <cuda.h>

#include "nvmf_cuda_api.h"

#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM) || defined(__CUDA_API_VERSION_INTERNAL)
#error "check against the default (legacy default stream, public) declarations"
#endif

static int static_checks;

/* Each function type vs the real declaration of the same exported symbol. */
#define SAME_FN(name, params)                                                             \
	_Static_assert(__builtin_types_compatible_p(nvmf_##name##_fn, __typeof__(name)),  \
		       #name ": nvmf_cuda_api.h's type differs from cuda.h's");
NVMF_CUDA_API(SAME_FN)
#undef SAME_FN
#define COUNT_FN(name, params) +1
enum { NVMF_DECLS_FNS = 0 NVMF_CUDA_API(COUNT_FN) };
#undef COUNT_FN

/* Types. */
#define SAME_TYPE(ours, real)                                                             \
	_Static_assert(__builtin_types_compatible_p(ours, real) && sizeof(ours) == sizeof(real), \
		       #ours " is not " #real);
#define TYPES(X)                                                                          \
	X(nvmf_CUresult, CUresult)                                                        \
	X(nvmf_CUdevice, CUdevice)                                                        \
	X(nvmf_CUdeviceptr, CUdeviceptr)                                                  \
	X(nvmf_CUcontext, CUcontext)                                                      \
	X(nvmf_CUdevice_attribute, CUdevice_attribute)                                    \
	X(nvmf_CUpointer_attribute, CUpointer_attribute)                                  \
	X(nvmf_CUmemRangeHandleType, CUmemRangeHandleType)                                \
	X(nvmf_CUflushGPUDirectRDMAWritesTarget, CUflushGPUDirectRDMAWritesTarget)        \
	X(nvmf_CUflushGPUDirectRDMAWritesScope, CUflushGPUDirectRDMAWritesScope)
TYPES(SAME_TYPE)
#define COUNT2(a, b) +1
enum { NVMF_DECLS_TYPES = 0 TYPES(COUNT2) };

/* Values. */
#define SAME_VAL(name) _Static_assert((long long)NVMF_##name == (long long)name, #name " differs");
#define VALUES(X)                                                                         \
	X(CUDA_SUCCESS) X(CUDA_ERROR_INVALID_VALUE) X(CUDA_ERROR_OUT_OF_MEMORY)           \
	X(CUDA_ERROR_NOT_INITIALIZED) X(CUDA_ERROR_DEINITIALIZED) X(CUDA_ERROR_STUB_LIBRARY) \
	X(CUDA_ERROR_NO_DEVICE) X(CUDA_ERROR_INVALID_DEVICE) X(CUDA_ERROR_DEVICE_NOT_LICENSED) \
	X(CUDA_ERROR_INVALID_CONTEXT) X(CUDA_ERROR_OPERATING_SYSTEM)                      \
	X(CUDA_ERROR_INVALID_HANDLE) X(CUDA_ERROR_NOT_FOUND) X(CUDA_ERROR_ILLEGAL_ADDRESS) \
	X(CUDA_ERROR_CONTEXT_IS_DESTROYED) X(CUDA_ERROR_NOT_PERMITTED)                    \
	X(CUDA_ERROR_NOT_SUPPORTED) X(CUDA_ERROR_SYSTEM_NOT_READY)                        \
	X(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH) X(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE) \
	X(CUDA_ERROR_TIMEOUT) X(CUDA_ERROR_UNKNOWN)                                       \
	X(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID) X(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID)            \
	X(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING) X(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID)    \
	X(CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED)                                  \
	X(CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS)                       \
	X(CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING)                            \
	X(CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED)                                          \
	X(CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST)                                    \
	X(CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_MEMOPS)                                  \
	X(CU_GPU_DIRECT_RDMA_WRITES_ORDERING_NONE) X(CU_GPU_DIRECT_RDMA_WRITES_ORDERING_OWNER) \
	X(CU_GPU_DIRECT_RDMA_WRITES_ORDERING_ALL_DEVICES)                                 \
	X(CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX)                             \
	X(CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER)                                       \
	X(CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_ALL_DEVICES)                                 \
	X(CU_POINTER_ATTRIBUTE_CONTEXT) X(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS)               \
	X(CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD)                                            \
	X(CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE)
VALUES(SAME_VAL)
#define COUNT1(a) +1
enum { NVMF_DECLS_VALUES = 0 VALUES(COUNT1) };

/* The declarations were written against CUDA 12.0; the header must be that or newer. */
_Static_assert(CUDA_VERSION >= NVMF_CUDA_API_VERSION, "cuda.h older than the declarations");
/* The signed/unsigned choice for CUresult: all its values are non-negative. */
_Static_assert((CUresult)-1 > 0, "CUresult is not unsigned here");

#define STR_(x) #x
#define STR(x) STR_(x)

int main(void)
{
	/* What each public API name means in this cuda.h, and what the loader resolves. */
	static const struct { const char *api, *maps_to, *ours; } names[] = {
		{ "cuGetErrorName",            STR(cuGetErrorName),            "cuGetErrorName" },
		{ "cuGetErrorString",          STR(cuGetErrorString),          "cuGetErrorString" },
		{ "cuInit",                    STR(cuInit),                    "cuInit" },
		{ "cuDriverGetVersion",        STR(cuDriverGetVersion),        "cuDriverGetVersion" },
		{ "cuDeviceGetCount",          STR(cuDeviceGetCount),          "cuDeviceGetCount" },
		{ "cuDeviceGet",               STR(cuDeviceGet),               "cuDeviceGet" },
		{ "cuDeviceGetAttribute",      STR(cuDeviceGetAttribute),      "cuDeviceGetAttribute" },
		{ "cuDeviceGetPCIBusId",       STR(cuDeviceGetPCIBusId),       "cuDeviceGetPCIBusId" },
		{ "cuDevicePrimaryCtxRetain",  STR(cuDevicePrimaryCtxRetain),  "cuDevicePrimaryCtxRetain" },
		{ "cuDevicePrimaryCtxRelease", STR(cuDevicePrimaryCtxRelease), "cuDevicePrimaryCtxRelease_v2" },
		{ "cuCtxSetCurrent",           STR(cuCtxSetCurrent),           "cuCtxSetCurrent" },
		{ "cuCtxGetCurrent",           STR(cuCtxGetCurrent),           "cuCtxGetCurrent" },
		{ "cuCtxGetDevice",            STR(cuCtxGetDevice),            "cuCtxGetDevice" },
		{ "cuMemAlloc",                STR(cuMemAlloc),                "cuMemAlloc_v2" },
		{ "cuMemFree",                 STR(cuMemFree),                 "cuMemFree_v2" },
		{ "cuMemcpyHtoD",              STR(cuMemcpyHtoD),              "cuMemcpyHtoD_v2" },
		{ "cuMemcpyDtoH",              STR(cuMemcpyDtoH),              "cuMemcpyDtoH_v2" },
		{ "cuPointerSetAttribute",     STR(cuPointerSetAttribute),     "cuPointerSetAttribute" },
		{ "cuMemGetHandleForAddressRange", STR(cuMemGetHandleForAddressRange),
		  "cuMemGetHandleForAddressRange" },
		{ "cuFlushGPUDirectRDMAWrites", STR(cuFlushGPUDirectRDMAWrites),
		  "cuFlushGPUDirectRDMAWrites" },
	};
#define NAME_STR(name, params) #name,
	static const char *resolved[] = { NVMF_CUDA_API(NAME_STR) };
#undef NAME_STR
	unsigned n = sizeof(names) / sizeof(names[0]);

	static_checks = NVMF_DECLS_FNS + NVMF_DECLS_TYPES + NVMF_DECLS_VALUES + 2;
	printf("test_cuda_decls: cuda.h CUDA_VERSION %d; checked at compile time: %d function "
	       "types, %d types, %d values\n", CUDA_VERSION, NVMF_DECLS_FNS, NVMF_DECLS_TYPES,
	       NVMF_DECLS_VALUES);
	/* Every entry point the loader resolves is in the table above. */
	CHECK_EQ(n, NVMF_DECLS_FNS);
	for (unsigned i = 0; i < n; i++) {
		if (strcmp(names[i].maps_to, names[i].ours))
			fprintf(stderr, "cuda.h maps %s to %s but the loader resolves %s\n",
				names[i].api, names[i].maps_to, names[i].ours);
		CHECK_STR(names[i].maps_to, names[i].ours);
		CHECK_STR(resolved[i], names[i].ours);   /* same order as the X list */
	}
	check_count += static_checks;
	return check_done("test_cuda_decls");
}

#endif
