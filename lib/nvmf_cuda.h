/* nvmf_cuda.h - the CUDA driver API loaded at run time: dlopen("libcuda.so.1"), never linked.
 * Builds and runs where no CUDA header, library, driver or GPU exists; only nvmeof_mem=cuda
 * ever loads it.  Errors are a negative errno (lib/nvmf_shim.h's nvmf_rc_cuda) with one line
 * in the caller's buffer naming the call and the driver's cuGetErrorName text. */
#ifndef FIO_NVMEOF_CUDA_H
#define FIO_NVMEOF_CUDA_H

#include <stddef.h>

#include "nvmf_cuda_api.h"

#define NVMF_CUDA_LIB "libcuda.so.1"

/* The resolved entry points.  Members of NVMF_CUDA_API_OPTIONAL may be NULL. */
struct nvmf_cuda {
#define NVMF_CUDA_MEMBER(name, params) nvmf_##name##_fn *name;
	NVMF_CUDA_API(NVMF_CUDA_MEMBER)
#undef NVMF_CUDA_MEMBER
	int  driver_version;    /* cuDriverGetVersion: 12040 is CUDA 12.4 */
	char lib[256];          /* the file the dynamic linker loaded */
};

/* Load the driver once per process (thread-safe) and resolve the versioned entry points.
 * Calls no CUDA function other than cuDriverGetVersion (which needs no cuInit): loading in
 * fio's parent would be harmless, but nothing here does it before a job runs. */
int nvmf_cuda_load(const struct nvmf_cuda **out, char *err, size_t errlen);
/* The same with another library name or path (tests: a name that does not exist).  Once a
 * library is loaded, every later call returns it, whatever the name. */
int nvmf_cuda_load_lib(const char *lib, const struct nvmf_cuda **out, char *err, size_t errlen);

/* cuInit(0), remembering which process initialized the driver: a process forked from an
 * initialized one cannot use CUDA, and the errors then say so. */
int nvmf_cuda_init(const struct nvmf_cuda *cu, char *err, size_t errlen);

/* Make ctx current in the calling thread unless it already is (every CUDA call of a lane
 * goes through this first: fio's thread mode runs many lanes in one process). */
int nvmf_cuda_make_current(const struct nvmf_cuda *cu, nvmf_CUcontext ctx, char *err,
			   size_t errlen);

/* Format "<what>: CUDA_ERROR_X (driver's description)" into err; returns nvmf_rc_cuda(r).
 * CUDA_ERROR_NOT_INITIALIZED in a forked child gets the reason appended. */
int nvmf_cuda_errf(const struct nvmf_cuda *cu, nvmf_CUresult r, char *err, size_t errlen,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* "CUDA_ERROR_OUT_OF_MEMORY" (or "CUresult 1234" for a value the driver does not name). */
const char *nvmf_cuda_name(const struct nvmf_cuda *cu, nvmf_CUresult r, char *buf, size_t len);

/* The pid that called cuInit successfully (0: none in this process's history). */
int nvmf_cuda_init_pid(void);

#endif
