/* src/sim/rt_register.c: the registration and launch entry points nvcc
 * emits (crt/host_runtime.h, crt/device_functions.h).
 *
 * A program's static constructors register each fat binary and, per
 * kernel, its host stub address and mangled device name.  Nothing reaches
 * the driver then: on a kernel's first launch __cudaGetKernel loads the
 * module's fat binary as a library (cuLibraryLoadData) and looks the
 * kernel up by name (cuLibraryGetKernel); in CUDA 13 kernel<<<...>>>
 * compiles to __cudaPushCallConfiguration, the host stub's
 * __cudaPopCallConfiguration, __cudaGetKernel (once per call site) and
 * __cudaLaunchKernel (or _ptsz), which calls cuLaunchKernel. */
#include "config.h"

#include "sim/rt.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------- registration --- */

/* The fat binary wrapper nvcc emits (__fatDeviceText). */
typedef struct fatbin_wrapper {
    int magic; /* 0x466243b1 */
    int version;
    const unsigned long long *data;
    void *filename_or_fatbins;
} fatbin_wrapper;

typedef struct module {
    void *fatbin;  /* first member: the handle is used as a void ** */
    const void *image;
    CUlibrary lib; /* loaded on first use */
    bool live;
} module;

typedef struct function {
    const void *host; /* host stub address */
    char *name;       /* mangled device name */
    module *mod;
    CUkernel kernel; /* looked up on first use */
    struct function *next;
} function;

#define FUNC_BUCKETS 512
static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static function *funcs[FUNC_BUCKETS];

static unsigned hash_ptr(const void *p)
{
    uintptr_t x = (uintptr_t)p;
    x ^= x >> 17;
    x *= 0xed5ad4bbu;
    x ^= x >> 11;
    return (unsigned)(x % FUNC_BUCKETS);
}

void **__cudaRegisterFatBinary(void *fatCubin)
{
    module *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->fatbin = fatCubin;
    const fatbin_wrapper *w = fatCubin;
    m->image = w && w->magic == 0x466243b1 ? (const void *)w->data : fatCubin;
    m->live = true;
    return (void **)m;
}

void __cudaRegisterFatBinaryEnd(void **fatCubinHandle)
{
    (void)fatCubinHandle;
}

/* Runs from atexit: forget the module's kernels (a dlclose'd library's
 * addresses may be reused) without calling the driver, whose workers may
 * still be finishing work while the process exits. */
void __cudaUnregisterFatBinary(void **fatCubinHandle)
{
    module *m = (module *)fatCubinHandle;
    if (!m)
        return;
    pthread_mutex_lock(&reg_mu);
    m->live = false;
    for (unsigned b = 0; b < FUNC_BUCKETS; b++) {
        for (function **pp = &funcs[b]; *pp;) {
            function *f = *pp;
            if (f->mod == m) {
                *pp = f->next;
                free(f->name);
                free(f);
            } else {
                pp = &f->next;
            }
        }
    }
    pthread_mutex_unlock(&reg_mu);
}

void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun,
                            char *deviceFun, const char *deviceName,
                            int thread_limit, uint3 *tid, uint3 *bid,
                            dim3 *bDim, dim3 *gDim, int *wSize)
{
    (void)deviceFun;
    (void)thread_limit;
    (void)tid;
    (void)bid;
    (void)bDim;
    (void)gDim;
    (void)wSize;
    module *m = (module *)fatCubinHandle;
    if (!m || !hostFun || !deviceName)
        return;
    function *f = calloc(1, sizeof *f);
    if (!f)
        return;
    f->name = strdup(deviceName);
    if (!f->name) {
        free(f);
        return;
    }
    f->host = hostFun;
    f->mod = m;
    unsigned b = hash_ptr(hostFun);
    pthread_mutex_lock(&reg_mu);
    f->next = funcs[b];
    funcs[b] = f;
    pthread_mutex_unlock(&reg_mu);
    SCSIM_TRACE("register kernel %s", deviceName);
}

/* __device__ variables: the simulator has no device copy to bind them to
 * (twins cannot see them); registering succeeds. */
void __cudaRegisterVar(void **fatCubinHandle, char *hostVar,
                       char *deviceAddress, const char *deviceName, int ext,
                       size_t size, int constant, int global)
{
    (void)fatCubinHandle;
    (void)hostVar;
    (void)deviceAddress;
    (void)deviceName;
    (void)ext;
    (void)size;
    (void)constant;
    (void)global;
}

/* __managed__ variables: host code reaches them through
 * *hostVarPtrAddress, which the runtime points at the managed allocation
 * (here: zeroed host memory, as managed memory starts zeroed). */
void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress,
                              char *deviceAddress, const char *deviceName,
                              int ext, size_t size, int constant, int global)
{
    (void)fatCubinHandle;
    (void)deviceAddress;
    (void)deviceName;
    (void)ext;
    (void)constant;
    (void)global;
    if (hostVarPtrAddress && !*hostVarPtrAddress)
        *hostVarPtrAddress = calloc(1, size ? size : 1);
}

char __cudaInitModule(void **fatCubinHandle)
{
    (void)fatCubinHandle;
    return 1;
}

cudaError_t scrt_kernel_of(const void *hostFun, CUkernel *out)
{
    unsigned b = hash_ptr(hostFun);
    pthread_mutex_lock(&reg_mu);
    function *f;
    for (f = funcs[b]; f; f = f->next)
        if (f->host == hostFun)
            break;
    if (!f) {
        pthread_mutex_unlock(&reg_mu);
        return cudaErrorInvalidDeviceFunction;
    }
    CUresult r = CUDA_SUCCESS;
    if (!f->kernel) {
        module *m = f->mod;
        if (!m->lib)
            r = DRV(cuLibraryLoadData)(&m->lib, m->image, NULL, NULL, 0, NULL,
                                       NULL, 0);
        if (r == CUDA_SUCCESS)
            r = DRV(cuLibraryGetKernel)(&f->kernel, m->lib, f->name);
    }
    CUkernel k = f->kernel;
    pthread_mutex_unlock(&reg_mu);
    if (r != CUDA_SUCCESS)
        return r == CUDA_ERROR_NOT_FOUND ? cudaErrorInvalidDeviceFunction
                                         : scrt_err(r);
    *out = k;
    return cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun)
{
    SCRT_INIT();
    if (!kernel)
        return scrt_ret(cudaErrorInvalidValue);
    CUkernel k;
    cudaError_t e = scrt_kernel_of(hostFun, &k);
    if (e != cudaSuccess)
        return scrt_ret(e);
    *kernel = (cudaKernel_t)k;
    return cudaSuccess;
}

/* ----------------------------------------------------- configurations --- */

/* kernel<<<g, b, s, st>>>(args): the configuration is pushed before the
 * arguments are evaluated (which may launch kernels themselves), so it is
 * a stack. */
typedef struct call_config {
    dim3 grid, block;
    size_t shmem;
    struct CUstream_st *stream;
} call_config;

#define CONFIG_STACK 16
static __thread call_config tls_configs[CONFIG_STACK];
static __thread unsigned tls_nconfigs;

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim,
                                     size_t sharedMem,
                                     struct CUstream_st *stream)
{
    if (tls_nconfigs == CONFIG_STACK)
        return 1;
    tls_configs[tls_nconfigs++] =
        (call_config){gridDim, blockDim, sharedMem, stream};
    return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim,
                                       size_t *sharedMem, void *stream)
{
    if (tls_nconfigs == 0)
        return scrt_ret(cudaErrorMissingConfiguration);
    call_config c = tls_configs[--tls_nconfigs];
    *gridDim = c.grid;
    *blockDim = c.block;
    *sharedMem = c.shmem;
    memcpy(stream, &c.stream, sizeof c.stream);
    return cudaSuccess;
}

/* ----------------------------------------------------------- launches --- */

static cudaError_t launch(CUkernel k, dim3 g, dim3 b, void **args, size_t shmem,
                          cudaStream_t stream, bool pt)
{
    if (!k)
        return scrt_ret(cudaErrorInvalidDeviceFunction);
    /* The runtime checks the execution configuration itself. */
    if (!g.x || !g.y || !g.z || !b.x || !b.y || !b.z ||
        (unsigned long long)b.x * b.y * b.z > 1024 || b.z > 64 ||
        g.y > 65535 || g.z > 65535)
        return scrt_ret(cudaErrorInvalidConfiguration);
    CUresult r = DRVPT(pt, cuLaunchKernel)((CUfunction)(void *)k, g.x, g.y,
                                           g.z, b.x, b.y, b.z,
                                           (unsigned)shmem, stream, args, NULL);
    return scrt_drv_ret(r);
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                               void **args, size_t sharedMem,
                               cudaStream_t stream)
{
    SCRT_INIT();
    return launch((CUkernel)kernel, gridDim, blockDim, args, sharedMem, stream,
                  false);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim,
                                    dim3 blockDim, void **args,
                                    size_t sharedMem, cudaStream_t stream)
{
    SCRT_INIT();
    return launch((CUkernel)kernel, gridDim, blockDim, args, sharedMem, stream,
                  true);
}

static cudaError_t launch_func(const void *func, dim3 g, dim3 b, void **args,
                               size_t shmem, cudaStream_t stream, bool pt)
{
    SCRT_INIT();
    CUkernel k;
    cudaError_t e = scrt_kernel_of(func, &k);
    if (e != cudaSuccess)
        return scrt_ret(e);
    return launch(k, g, b, args, shmem, stream, pt);
}

SCSIM_EXPORT cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim,
                                          dim3 blockDim, void **args,
                                          size_t sharedMem, cudaStream_t stream)
{
    SCRT_API(cudaLaunchKernel_v7000);
    return SCRT_API_RET(launch_func(func, gridDim, blockDim, args, sharedMem, stream, false));
}

cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim,
                                  dim3 blockDim, void **args, size_t sharedMem,
                                  cudaStream_t stream)
{
    SCRT_API(cudaLaunchKernel_ptsz_v7000);
    return SCRT_API_RET(launch_func(func, gridDim, blockDim, args, sharedMem, stream, true));
}
