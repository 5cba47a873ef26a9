/* standin.h - what tests can ask the stand-in libcuda.so.1 besides the CUDA API: its live
 * state, to prove that nothing leaked and that teardown went in order.  Look it up with
 * dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD) + dlsym(NVMF_STANDIN_STATS_SYM).
 *
 * Environment knobs (read again whenever they change, so a test may setenv between cases):
 *   NVMF_STANDIN_LOG=FILE        append one line per call: "[pid] name args -> RESULT"
 *   NVMF_STANDIN_FAIL=SPEC       fault injection: "name:N[+][:ERR],..." fails the Nth call of
 *                                name (N+: the Nth and every later one) with ERR (a number or a
 *                                CUDA_ERROR_ name; default CUDA_ERROR_UNKNOWN, for
 *                                cuMemAlloc_v2 CUDA_ERROR_OUT_OF_MEMORY); counts restart when
 *                                the spec changes
 *   NVMF_STANDIN_DROP_DTOH=1     device->host copies succeed but copy nothing (negative control)
 *   NVMF_STANDIN_DEVICES=N       number of devices (default 1, at most 8)
 *   NVMF_STANDIN_PCI=A,B,...     PCI bus ids per device (default 0000:0N:00.0 for device N)
 *   NVMF_STANDIN_DMABUF=0|1      CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED (default 1)
 *   NVMF_STANDIN_GDR=0|1         CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED (default 1)
 *   NVMF_STANDIN_FLUSH_OPTIONS=N CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS
 *                                (default 1: cuFlushGPUDirectRDMAWrites supported)
 *   NVMF_STANDIN_ORDERING=N      CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING (default 0)
 *   NVMF_STANDIN_VERSION=N       cuDriverGetVersion (default 12080)
 *   NVMF_STANDIN_DEVMEM=none     map device memory PROT_NONE at its device address, so any CPU
 *                                access to a device pointer faults (default rw: RDMA devices
 *                                such as rxe must be able to register it, as with peermem)
 *   NVMF_STANDIN_ALLOC_OFFSET=N  return allocations N bytes past a 2 MiB boundary (default 0)
 *   NVMF_STANDIN_LEGACY=error    the unversioned legacy entry points print and return
 *                                CUDA_ERROR_NOT_SUPPORTED (default: print and abort)
 */
#ifndef FIO_NVMEOF_STANDIN_H
#define FIO_NVMEOF_STANDIN_H

#define NVMF_STANDIN_MAX_DEVICES 8
#define NVMF_STANDIN_STATS_SYM "nvmf_standin_stats"

struct nvmf_standin_stats {
	int                live_allocs;       /* cuMemAlloc_v2 not yet freed */
	unsigned long long live_bytes;
	int                ctx_refs[NVMF_STANDIN_MAX_DEVICES]; /* primary context references */
	int                open_dmabufs;      /* exported dma-buf fds still open */
	int                violations;        /* order errors seen (logged as VIOLATION) */
	unsigned long      calls;             /* CUDA calls so far in this process */
	int                init_pid;          /* the process that called cuInit */
};

typedef int nvmf_standin_stats_fn(struct nvmf_standin_stats *st);

#endif
