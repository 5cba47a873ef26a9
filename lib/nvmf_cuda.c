/* nvmf_cuda.c - load the CUDA driver API at run time and format its errors.
 * Only the versioned entry points the driver exports are resolved by dlsym (cuMemAlloc_v2,
 * not cuMemAlloc: the plain name is the old 32-bit-size ABI).  cuGetProcAddress is not used:
 * it resolves per requested CUDA version, and asking with the driver's own version would give
 * CUDA 13 variants of some calls (cuCtxGetDevice takes an extra argument there). */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "nvmf_cuda.h"
#include "nvmf_shim.h"

static pthread_mutex_t nvmf_cuda_lock = PTHREAD_MUTEX_INITIALIZER;
static struct nvmf_cuda nvmf_cuda_api;
static int nvmf_cuda_loaded;
static volatile int nvmf_cuda_pid;     /* who called cuInit successfully */

int nvmf_cuda_init_pid(void)
{
	return __atomic_load_n(&nvmf_cuda_pid, __ATOMIC_ACQUIRE);
}

const char *nvmf_cuda_name(const struct nvmf_cuda *cu, nvmf_CUresult r, char *buf, size_t len)
{
	const char *s = NULL;

	if (cu && cu->cuGetErrorName && cu->cuGetErrorName(r, &s) == NVMF_CUDA_SUCCESS && s)
		return s;
	snprintf(buf, len, "CUresult %u", r);
	return buf;
}

int nvmf_cuda_errf(const struct nvmf_cuda *cu, nvmf_CUresult r, char *err, size_t errlen,
		   const char *fmt, ...)
{
	const char *desc = NULL;
	char what[192], nbuf[32];
	int pid = nvmf_cuda_init_pid();
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (cu && cu->cuGetErrorString && cu->cuGetErrorString(r, &desc) != NVMF_CUDA_SUCCESS)
		desc = NULL;
	if (err && errlen) {
		int n = snprintf(err, errlen, "%s: %s%s%s%s", what, nvmf_cuda_name(cu, r, nbuf, sizeof(nbuf)),
				 desc ? " (" : "", desc ? desc : "", desc ? ")" : "");

		if (r == NVMF_CUDA_ERROR_NOT_INITIALIZED && pid && pid != (int)getpid() && n >= 0 &&
		    (size_t)n < errlen)
			snprintf(err + n, errlen - (size_t)n, ": process %d initialized CUDA and this "
				 "process (%d) was forked from it; the driver cannot be used in a "
				 "child forked after cuInit", pid, (int)getpid());
	}
	return nvmf_rc_cuda(r);
}

static int nvmf_cuda_resolve(void *dl, const char *lib, struct nvmf_cuda *cu, char *err,
			     size_t errlen)
{
	int ver = 0;

	/* Required entry points first: the first one missing is named. */
#define NVMF_CUDA_SYM_REQ(name, params)                                                    \
	cu->name = (nvmf_##name##_fn *)dlsym(dl, #name);                                  \
	if (!cu->name) {                                                                  \
		snprintf(err, errlen, "the CUDA driver %s does not export %s: a CUDA 11.0 "  \
			 "or newer driver is needed", lib, #name);                         \
		return -ELIBBAD;                                                          \
	}
	NVMF_CUDA_API_REQUIRED(NVMF_CUDA_SYM_REQ)
#undef NVMF_CUDA_SYM_REQ
#define NVMF_CUDA_SYM_OPT(name, params) cu->name = (nvmf_##name##_fn *)dlsym(dl, #name);
	NVMF_CUDA_API_OPTIONAL(NVMF_CUDA_SYM_OPT)
#undef NVMF_CUDA_SYM_OPT
	if (cu->cuDriverGetVersion(&ver) == NVMF_CUDA_SUCCESS)
		cu->driver_version = ver;
	return 0;
}

int nvmf_cuda_load_lib(const char *lib, const struct nvmf_cuda **out, char *err, size_t errlen)
{
	struct nvmf_cuda cu;
	struct link_map *lm = NULL;
	void *dl;
	int rc;

	*out = NULL;
	pthread_mutex_lock(&nvmf_cuda_lock);
	if (nvmf_cuda_loaded) {
		*out = &nvmf_cuda_api;
		pthread_mutex_unlock(&nvmf_cuda_lock);
		return 0;
	}
	memset(&cu, 0, sizeof(cu));
	dl = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		const char *why = dlerror();

		snprintf(err, errlen, "cannot load the CUDA driver: %s: GPU memory needs the NVIDIA "
			 "driver (%s on the library search path)", why ? why : lib, NVMF_CUDA_LIB);
		pthread_mutex_unlock(&nvmf_cuda_lock);
		return -ENOENT;
	}
	if (dlinfo(dl, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && lm->l_name[0])
		snprintf(cu.lib, sizeof(cu.lib), "%s", lm->l_name);
	else
		snprintf(cu.lib, sizeof(cu.lib), "%s", lib);
	rc = nvmf_cuda_resolve(dl, cu.lib, &cu, err, errlen);
	if (rc) {
		dlclose(dl);
		pthread_mutex_unlock(&nvmf_cuda_lock);
		return rc;
	}
	/* The library stays loaded for the life of the process (the driver expects that). */
	nvmf_cuda_api = cu;
	nvmf_cuda_loaded = 1;
	*out = &nvmf_cuda_api;
	pthread_mutex_unlock(&nvmf_cuda_lock);
	return 0;
}

int nvmf_cuda_load(const struct nvmf_cuda **out, char *err, size_t errlen)
{
	return nvmf_cuda_load_lib(NVMF_CUDA_LIB, out, err, errlen);
}

int nvmf_cuda_init(const struct nvmf_cuda *cu, char *err, size_t errlen)
{
	nvmf_CUresult r = cu->cuInit(0);

	if (r != NVMF_CUDA_SUCCESS)
		return nvmf_cuda_errf(cu, r, err, errlen, "cuInit");
	__atomic_store_n(&nvmf_cuda_pid, (int)getpid(), __ATOMIC_RELEASE);
	return 0;
}

int nvmf_cuda_make_current(const struct nvmf_cuda *cu, nvmf_CUcontext ctx, char *err,
			   size_t errlen)
{
	nvmf_CUcontext cur = NULL;
	nvmf_CUresult r = cu->cuCtxGetCurrent(&cur);

	if (r != NVMF_CUDA_SUCCESS)
		return nvmf_cuda_errf(cu, r, err, errlen, "cuCtxGetCurrent");
	if (cur == ctx)
		return 0;
	r = cu->cuCtxSetCurrent(ctx);
	if (r != NVMF_CUDA_SUCCESS)
		return nvmf_cuda_errf(cu, r, err, errlen, "cuCtxSetCurrent");
	return 0;
}
