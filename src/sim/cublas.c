/* src/sim/cublas.c: the simulated libcublas.so.13 subset.
 *
 * Like NVIDIA's cuBLAS, which carries its own static CUDA runtime, it
 * reaches the driver by itself (drvbind.h) and launches its kernels with
 * cuLaunchKernel on the handle's stream, so a tool hooking the driver sees
 * a cuBLAS launch on the right stream.  SGEMM is computed on the CPU, in
 * stream order, by the twin of sc_sim_sgemm (kernels/sc_sim_kernels.cuh).
 *
 * cublasCreate allocates a workspace and cublasDestroy synchronizes the
 * device and frees it, as the cuBLAS documentation describes ("the
 * release of those resources by calling cublasDestroy() will implicitly
 * call cudaDeviceSynchronize()"), so both show their implicit
 * synchronization to the driver layer. */
#include "config.h"

#include <cublas_api.h>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "sim/drvbind.h"
#include "sim/stubs.h"
#include "sim/util.h"

/* Mangled name of sc_sim_sgemm (checked by tests/sim/twin-names.sh). */
#define SGEMM_KERNEL "_Z12sc_sim_sgemmiiiiifPKfiS0_ifPfi"
/* Image handed to cuModuleLoadData: PTX text naming the kernel. */
static const char sgemm_image[] =
    "// streamcheck simulated cuBLAS\n"
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry " SGEMM_KERNEL "()\n{\n\tret;\n}\n";

#define WORKSPACE_BYTES (4u << 20)
#define HANDLE_MAGIC 0x43424c31u /* "CBL1" */

struct cublasContext {
    uint32_t magic;
    CUstream stream;
    cublasMath_t math;
    CUdeviceptr workspace;
    struct cublasContext *pool_next;
    struct cublasContext *all_next;
};

/* Handles are recycled, never freed, so a destroyed handle is recognised
 * (CUBLAS_STATUS_NOT_INITIALIZED) instead of read after free; all_handles
 * keeps the ones a program never destroys reachable. */
static pthread_mutex_t handles_mu = PTHREAD_MUTEX_INITIALIZER;
static struct cublasContext *free_handles, *all_handles;

static struct {
    PFN_cuInit_v2000 cuInit;
    PFN_cuDevicePrimaryCtxRetain_v7000 cuDevicePrimaryCtxRetain;
    PFN_cuCtxGetCurrent_v4000 cuCtxGetCurrent;
    PFN_cuCtxSetCurrent_v4000 cuCtxSetCurrent;
    PFN_cuCtxSynchronize_v2000 cuCtxSynchronize;
    PFN_cuMemAlloc_v3020 cuMemAlloc;
    PFN_cuMemFree_v3020 cuMemFree;
    PFN_cuModuleLoadData_v2000 cuModuleLoadData;
    PFN_cuModuleGetFunction_v2000 cuModuleGetFunction;
    PFN_cuLaunchKernel_v4000 cuLaunchKernel;
} drv;

static const scsim_bind binds[] = {
    {"cuInit", 2000, 0, &drv.cuInit, NULL},
    {"cuDevicePrimaryCtxRetain", 7000, 0, &drv.cuDevicePrimaryCtxRetain, NULL},
    {"cuCtxGetCurrent", 4000, 0, &drv.cuCtxGetCurrent, NULL},
    {"cuCtxSetCurrent", 4000, 0, &drv.cuCtxSetCurrent, NULL},
    {"cuCtxSynchronize", 2000, 0, &drv.cuCtxSynchronize, NULL},
    {"cuMemAlloc", 3020, 0, &drv.cuMemAlloc, NULL},
    {"cuMemFree", 3020, 0, &drv.cuMemFree, NULL},
    {"cuModuleLoadData", 2000, 0, &drv.cuModuleLoadData, NULL},
    {"cuModuleGetFunction", 2000, 0, &drv.cuModuleGetFunction, NULL},
    {"cuLaunchKernel", 4000, 0, &drv.cuLaunchKernel, NULL},
};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static cublasStatus_t init_status = CUBLAS_STATUS_NOT_INITIALIZED;
static CUcontext primary;
static CUmodule module;
static CUfunction sgemm;
static __thread bool tls_ready;

int scsim_stub_called(atomic_int *once, const char *name)
{
    scsim_report_unsupported(once, name);
    return CUBLAS_STATUS_NOT_SUPPORTED;
}

static void init_process(void)
{
    const char *missing = NULL;
    if (scsim_drvbind(binds, sizeof binds / sizeof binds[0], &missing) !=
        SCSIM_BIND_OK)
        return;
    if (drv.cuInit(0) != CUDA_SUCCESS ||
        drv.cuDevicePrimaryCtxRetain(&primary, 0) != CUDA_SUCCESS)
        return;
    init_status = CUBLAS_STATUS_SUCCESS;
}

/* Binds the driver once, makes a context current in this thread, and
 * loads the kernel module once. */
static cublasStatus_t ready(void)
{
    if (tls_ready)
        return CUBLAS_STATUS_SUCCESS;
    pthread_once(&init_once, init_process);
    if (init_status != CUBLAS_STATUS_SUCCESS)
        return init_status;
    CUcontext cur = NULL;
    if (drv.cuCtxGetCurrent(&cur) != CUDA_SUCCESS)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!cur && drv.cuCtxSetCurrent(primary) != CUDA_SUCCESS)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&mu);
    CUresult r = CUDA_SUCCESS;
    if (!sgemm) {
        r = drv.cuModuleLoadData(&module, sgemm_image);
        if (r == CUDA_SUCCESS)
            r = drv.cuModuleGetFunction(&sgemm, module, SGEMM_KERNEL);
    }
    pthread_mutex_unlock(&mu);
    if (r != CUDA_SUCCESS)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    tls_ready = true;
    return CUBLAS_STATUS_SUCCESS;
}

static struct cublasContext *handle_check(cublasHandle_t h)
{
    return h && h->magic == HANDLE_MAGIC ? h : NULL;
}

SCSIM_EXPORT cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)
{
    if (!handle)
        return CUBLAS_STATUS_INVALID_VALUE;
    cublasStatus_t st = ready();
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    pthread_mutex_lock(&handles_mu);
    struct cublasContext *h = free_handles;
    if (h)
        free_handles = h->pool_next;
    pthread_mutex_unlock(&handles_mu);
    if (!h) {
        h = calloc(1, sizeof *h);
        if (!h)
            return CUBLAS_STATUS_ALLOC_FAILED;
        pthread_mutex_lock(&handles_mu);
        h->all_next = all_handles;
        all_handles = h;
        pthread_mutex_unlock(&handles_mu);
    }
    if (drv.cuMemAlloc(&h->workspace, WORKSPACE_BYTES) != CUDA_SUCCESS) {
        pthread_mutex_lock(&handles_mu);
        h->pool_next = free_handles;
        free_handles = h;
        pthread_mutex_unlock(&handles_mu);
        return CUBLAS_STATUS_ALLOC_FAILED;
    }
    h->stream = NULL;
    h->math = CUBLAS_DEFAULT_MATH;
    h->magic = HANDLE_MAGIC;
    *handle = h;
    return CUBLAS_STATUS_SUCCESS;
}

SCSIM_EXPORT cublasStatus_t cublasDestroy_v2(cublasHandle_t handle)
{
    struct cublasContext *h = handle_check(handle);
    if (!h)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    cublasStatus_t st = ready();
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    h->magic = 0;
    drv.cuCtxSynchronize();
    drv.cuMemFree(h->workspace);
    pthread_mutex_lock(&handles_mu);
    h->pool_next = free_handles;
    free_handles = h;
    pthread_mutex_unlock(&handles_mu);
    return CUBLAS_STATUS_SUCCESS;
}

SCSIM_EXPORT cublasStatus_t cublasSetStream_v2(cublasHandle_t handle,
                                               cudaStream_t streamId)
{
    struct cublasContext *h = handle_check(handle);
    if (!h)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    h->stream = streamId;
    return CUBLAS_STATUS_SUCCESS;
}

SCSIM_EXPORT cublasStatus_t cublasGetStream_v2(cublasHandle_t handle,
                                               cudaStream_t *streamId)
{
    struct cublasContext *h = handle_check(handle);
    if (!h)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!streamId)
        return CUBLAS_STATUS_INVALID_VALUE;
    *streamId = h->stream;
    return CUBLAS_STATUS_SUCCESS;
}

SCSIM_EXPORT cublasStatus_t cublasGetVersion_v2(cublasHandle_t handle,
                                                int *version)
{
    (void)handle;
    if (!version)
        return CUBLAS_STATUS_INVALID_VALUE;
    *version = CUBLAS_VERSION;
    return CUBLAS_STATUS_SUCCESS;
}

SCSIM_EXPORT cublasStatus_t cublasSetMathMode(cublasHandle_t handle,
                                              cublasMath_t mode)
{
    struct cublasContext *h = handle_check(handle);
    if (!h)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    h->math = mode;
    return CUBLAS_STATUS_SUCCESS;
}

SCSIM_EXPORT cublasStatus_t cublasGetMathMode(cublasHandle_t handle,
                                              cublasMath_t *mode)
{
    struct cublasContext *h = handle_check(handle);
    if (!h)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!mode)
        return CUBLAS_STATUS_INVALID_VALUE;
    *mode = h->math;
    return CUBLAS_STATUS_SUCCESS;
}

SCSIM_EXPORT const char *cublasGetStatusName(cublasStatus_t status)
{
    switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
    default: return "CUBLAS_STATUS_UNKNOWN";
    }
}

SCSIM_EXPORT const char *cublasGetStatusString(cublasStatus_t status)
{
    switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "the library was not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED: return "the resource allocation failed";
    case CUBLAS_STATUS_INVALID_VALUE: return "an invalid numeric value was used as an argument";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "an absent device architectural feature is required";
    case CUBLAS_STATUS_MAPPING_ERROR: return "an access to GPU memory space failed";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "the GPU program failed to execute";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "an internal operation failed";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "the functionality requested is not supported";
    case CUBLAS_STATUS_LICENSE_ERROR: return "an error was detected when checking the current licensing";
    default: return "unknown error";
    }
}

static int op_of(cublasOperation_t op)
{
    /* Real data: conjugate transpose is transpose. */
    switch (op) {
    case CUBLAS_OP_N: return 0;
    case CUBLAS_OP_T:
    case CUBLAS_OP_C: return 1;
    default: return -1;
    }
}

/* C = alpha op(A) op(B) + beta C, column-major, host pointer mode. */
SCSIM_EXPORT cublasStatus_t cublasSgemm_v2(cublasHandle_t handle,
                                           cublasOperation_t transa,
                                           cublasOperation_t transb, int m,
                                           int n, int k, const float *alpha,
                                           const float *A, int lda,
                                           const float *B, int ldb,
                                           const float *beta, float *C,
                                           int ldc)
{
    struct cublasContext *h = handle_check(handle);
    if (!h)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    int ta = op_of(transa), tb = op_of(transb);
    if (ta < 0 || tb < 0 || m < 0 || n < 0 || k < 0 || !alpha || !beta)
        return CUBLAS_STATUS_INVALID_VALUE;
    int arows = ta ? k : m, brows = tb ? n : k;
    if (lda < (arows > 1 ? arows : 1) || ldb < (brows > 1 ? brows : 1) ||
        ldc < (m > 1 ? m : 1))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0)
        return CUBLAS_STATUS_SUCCESS;
    cublasStatus_t st = ready();
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    float al = *alpha, be = *beta;
    void *params[] = {&ta, &tb, &m, &n, &k, &al, &A, &lda,
                      &B, &ldb, &be, &C, &ldc};
    const unsigned bx = 16, by = 16;
    unsigned gx = ((unsigned)m + bx - 1) / bx, gy = ((unsigned)n + by - 1) / by;
    if (gy > 65535)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    CUresult r = drv.cuLaunchKernel(sgemm, gx, gy, 1, bx, by, 1, 0, h->stream,
                                    params, NULL);
    return r == CUDA_SUCCESS ? CUBLAS_STATUS_SUCCESS
                             : CUBLAS_STATUS_EXECUTION_FAILED;
}
