/* src/sim/rt_core.c: runtime initialization, errors, device management. */
#include "config.h"

#include "sim/rt.h"
#include "sim/stubs.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

scrt_driver scrt_drv;

static const scsim_bind binds[] = {
#define SC_RT_DRV(name, ver) {#name, ver, 0, &scrt_drv.p_##name, NULL},
#define SC_RT_DRV_PT(name, ver, ptver, suffix)                                \
    {#name, ver, ptver, &scrt_drv.p_##name, &scrt_drv.pt_##name},
#include "sim/rt_drv.def"
#undef SC_RT_DRV
#undef SC_RT_DRV_PT
};

/* ------------------------------------------------------------- errors --- */

/* "cudaGetLastError: Returns the last error that has been produced by
 * any of the runtime calls in the same instance of the CUDA Runtime
 * library in the host thread and resets it to cudaSuccess." */
static __thread cudaError_t tls_last;

cudaError_t scrt_ret(cudaError_t e)
{
    if (e != cudaSuccess && e != cudaErrorNotReady)
        tls_last = e;
    return e;
}

cudaError_t scrt_err(CUresult r)
{
    switch (r) {
    case CUDA_SUCCESS: return cudaSuccess;
    case CUDA_ERROR_INVALID_VALUE: return cudaErrorInvalidValue;
    case CUDA_ERROR_OUT_OF_MEMORY: return cudaErrorMemoryAllocation;
    case CUDA_ERROR_NOT_INITIALIZED: return cudaErrorInitializationError;
    case CUDA_ERROR_DEINITIALIZED: return cudaErrorCudartUnloading;
    case CUDA_ERROR_NO_DEVICE: return cudaErrorNoDevice;
    case CUDA_ERROR_INVALID_DEVICE: return cudaErrorInvalidDevice;
    case CUDA_ERROR_INVALID_IMAGE: return cudaErrorInvalidKernelImage;
    case CUDA_ERROR_INVALID_CONTEXT: return cudaErrorDeviceUninitialized;
    case CUDA_ERROR_INVALID_HANDLE: return cudaErrorInvalidResourceHandle;
    case CUDA_ERROR_NOT_FOUND: return cudaErrorSymbolNotFound;
    case CUDA_ERROR_NOT_READY: return cudaErrorNotReady;
    case CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED:
        return cudaErrorHostMemoryAlreadyRegistered;
    case CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED:
        return cudaErrorHostMemoryNotRegistered;
    case CUDA_ERROR_NOT_SUPPORTED: return cudaErrorNotSupported;
    case CUDA_ERROR_ILLEGAL_STATE: return cudaErrorIllegalState;
    case CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED:
        return cudaErrorStreamCaptureUnsupported;
    case CUDA_ERROR_STREAM_CAPTURE_INVALIDATED:
        return cudaErrorStreamCaptureInvalidated;
    case CUDA_ERROR_STREAM_CAPTURE_MERGE: return cudaErrorStreamCaptureMerge;
    case CUDA_ERROR_STREAM_CAPTURE_UNMATCHED:
        return cudaErrorStreamCaptureUnmatched;
    case CUDA_ERROR_STREAM_CAPTURE_UNJOINED:
        return cudaErrorStreamCaptureUnjoined;
    case CUDA_ERROR_STREAM_CAPTURE_ISOLATION:
        return cudaErrorStreamCaptureIsolation;
    case CUDA_ERROR_STREAM_CAPTURE_IMPLICIT:
        return cudaErrorStreamCaptureImplicit;
    case CUDA_ERROR_CAPTURED_EVENT: return cudaErrorCapturedEvent;
    case CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD:
        return cudaErrorStreamCaptureWrongThread;
    default:
        /* The remaining codes share their numbers. */
        return (cudaError_t)r;
    }
}

cudaError_t scrt_drv_ret(CUresult r)
{
    return scrt_ret(scrt_err(r));
}

int scsim_stub_called(atomic_int *once, const char *name)
{
    scsim_report_unsupported(once, name);
    return scrt_ret(cudaErrorNotSupported);
}

SCSIM_EXPORT cudaError_t cudaGetLastError(void)
{
    cudaError_t e = tls_last;
    tls_last = cudaSuccess;
    return e;
}

SCSIM_EXPORT cudaError_t cudaPeekAtLastError(void)
{
    return tls_last;
}

SCSIM_EXPORT const char *cudaGetErrorName(cudaError_t error)
{
    switch ((int)error) {
#define SC_CUDAERR(name, value, desc)                                         \
    case value:                                                               \
        return #name;
#include "sim/cudaerr.def"
#undef SC_CUDAERR
    default:
        return "unrecognized error code";
    }
}

SCSIM_EXPORT const char *cudaGetErrorString(cudaError_t error)
{
    switch ((int)error) {
#define SC_CUDAERR(name, value, desc)                                         \
    case value:                                                               \
        return desc;
#include "sim/cudaerr.def"
#undef SC_CUDAERR
    default:
        return "unrecognized error code";
    }
}

/* --------------------------------------------------------------- init --- */

const scsim_tl_table *scrt_tl;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static cudaError_t init_error;
/* Each device's primary context, retained once by the runtime (device 0's
 * at initialization, the others at their first cudaSetDevice). */
#define SCRT_MAX_DEVICES 64
static _Atomic(CUcontext) primaries[SCRT_MAX_DEVICES];
static pthread_mutex_t primary_mu = PTHREAD_MUTEX_INITIALIZER;
static __thread bool tls_ready;

static void init_process(void)
{
    const char *missing = NULL;
    switch (scsim_drvbind(binds, sizeof binds / sizeof binds[0], &missing)) {
    case SCSIM_BIND_OK:
        break;
    case SCSIM_BIND_NO_DRIVER:
        init_error = cudaErrorInsufficientDriver;
        return;
    case SCSIM_BIND_MISSING:
        scsim_msg("the CUDA driver does not provide %s", missing);
        init_error = cudaErrorInsufficientDriver;
        return;
    }
    CUresult r = DRV(cuInit)(0);
    CUcontext primary = NULL;
    if (r == CUDA_SUCCESS)
        r = DRV(cuDevicePrimaryCtxRetain)(&primary, 0);
    atomic_store(&primaries[0], primary);
    init_error = scrt_err(r);
    /* The simulated driver's timeline, when the driver is the simulator's
     * (another driver answers the id with an error). */
    static const CUuuid tl_id = {SCSIM_TL_UUID_BYTES};
    const void *t = NULL;
    if (DRV(cuGetExportTable)(&t, &tl_id) == CUDA_SUCCESS && t &&
        ((const scsim_tl_table *)t)->size >= sizeof(scsim_tl_table))
        __atomic_store_n(&scrt_tl, (const scsim_tl_table *)t, __ATOMIC_RELEASE);
}

cudaError_t scrt_init(void)
{
    if (tls_ready)
        return cudaSuccess;
    pthread_once(&init_once, init_process);
    if (init_error != cudaSuccess)
        return init_error;
    /* Like the real runtime, use the thread's current context if the
     * program set one through the driver API, else the primary one. */
    CUcontext cur = NULL;
    CUresult r = DRV(cuCtxGetCurrent)(&cur);
    if (r == CUDA_SUCCESS && !cur)
        r = DRV(cuCtxSetCurrent)(atomic_load(&primaries[0]));
    if (r != CUDA_SUCCESS)
        return scrt_err(r);
    tls_ready = true;
    return cudaSuccess;
}

CUcontext scrt_primary(int dev, cudaError_t *err)
{
    int n = 0;
    CUresult r = DRV(cuDeviceGetCount)(&n);
    if (r != CUDA_SUCCESS) {
        *err = scrt_err(r);
        return NULL;
    }
    if (dev < 0 || dev >= n || dev >= SCRT_MAX_DEVICES) {
        *err = cudaErrorInvalidDevice;
        return NULL;
    }
    CUcontext c = atomic_load(&primaries[dev]);
    if (c)
        return c;
    pthread_mutex_lock(&primary_mu);
    c = atomic_load(&primaries[dev]);
    if (!c) {
        r = DRV(cuDevicePrimaryCtxRetain)(&c, dev);
        if (r == CUDA_SUCCESS)
            atomic_store(&primaries[dev], c);
        else
            *err = scrt_err(r);
    }
    pthread_mutex_unlock(&primary_mu);
    return c;
}

/* The calling thread's device (that of its current context). */
static cudaError_t current_device(int *dev)
{
    CUdevice d = 0;
    CUresult r = DRV(cuCtxGetDevice)(&d);
    *dev = (int)d;
    return scrt_err(r);
}

/* ------------------------------------------------------------ devices --- */

SCSIM_EXPORT cudaError_t cudaGetDeviceCount(int *count)
{
    if (!count)
        return scrt_ret(cudaErrorInvalidValue);
    *count = 0;
    cudaError_t e = scrt_init();
    if (e != cudaSuccess)
        return scrt_ret(e);
    return scrt_drv_ret(DRV(cuDeviceGetCount)(count));
}

/* The current device is the calling thread's: the device of its current
 * context, which cudaSetDevice makes the device's primary context. */
SCSIM_EXPORT cudaError_t cudaGetDevice(int *device)
{
    SCRT_INIT();
    if (!device)
        return scrt_ret(cudaErrorInvalidValue);
    return scrt_ret(current_device(device));
}

SCSIM_EXPORT cudaError_t cudaSetDevice(int device)
{
    SCRT_INIT();
    cudaError_t e = cudaSuccess;
    CUcontext c = scrt_primary(device, &e);
    if (!c)
        return scrt_ret(e);
    return scrt_drv_ret(DRV(cuCtxSetCurrent)(c));
}

static int attr_of(CUdevice_attribute a, int dev)
{
    int v = 0;
    DRV(cuDeviceGetAttribute)(&v, a, dev);
    return v;
}

SCSIM_EXPORT cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop,
                                                 int device)
{
    SCRT_INIT();
    if (!prop)
        return scrt_ret(cudaErrorInvalidValue);
    int n = 0;
    CUresult r = DRV(cuDeviceGetCount)(&n);
    if (r != CUDA_SUCCESS)
        return scrt_drv_ret(r);
    if (device < 0 || device >= n)
        return scrt_ret(cudaErrorInvalidDevice);
#define attr(a) attr_of((a), device)
    memset(prop, 0, sizeof *prop);
    r = DRV(cuDeviceGetName)(prop->name, sizeof prop->name, device);
    if (r == CUDA_SUCCESS)
        r = DRV(cuDeviceTotalMem)(&prop->totalGlobalMem, device);
    if (r == CUDA_SUCCESS) {
        CUuuid u;
        r = DRV(cuDeviceGetUuid)(&u, device);
        memcpy(prop->uuid.bytes, u.bytes, sizeof prop->uuid.bytes);
    }
    if (r != CUDA_SUCCESS)
        return scrt_drv_ret(r);
    prop->sharedMemPerBlock =
        (size_t)attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    prop->regsPerBlock = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    prop->warpSize = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    prop->memPitch = (size_t)attr(CU_DEVICE_ATTRIBUTE_MAX_PITCH);
    prop->maxThreadsPerBlock = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    prop->maxThreadsDim[0] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
    prop->maxThreadsDim[1] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
    prop->maxThreadsDim[2] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
    prop->maxGridSize[0] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
    prop->maxGridSize[1] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
    prop->maxGridSize[2] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
    prop->totalConstMem = (size_t)attr(CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY);
    prop->major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    prop->minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    prop->textureAlignment = (size_t)attr(CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT);
    prop->texturePitchAlignment =
        (size_t)attr(CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT);
    prop->multiProcessorCount = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    prop->integrated = attr(CU_DEVICE_ATTRIBUTE_INTEGRATED);
    prop->canMapHostMemory = attr(CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY);
    prop->surfaceAlignment = (size_t)attr(CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT);
    prop->concurrentKernels = attr(CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS);
    prop->ECCEnabled = attr(CU_DEVICE_ATTRIBUTE_ECC_ENABLED);
    prop->pciBusID = attr(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
    prop->pciDeviceID = attr(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
    prop->pciDomainID = attr(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID);
    prop->tccDriver = attr(CU_DEVICE_ATTRIBUTE_TCC_DRIVER);
    prop->asyncEngineCount = attr(CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT);
    prop->unifiedAddressing = attr(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING);
    prop->memoryBusWidth = attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
    prop->l2CacheSize = attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    prop->persistingL2CacheMaxSize =
        attr(CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE);
    prop->maxThreadsPerMultiProcessor =
        attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    prop->streamPrioritiesSupported =
        attr(CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED);
    prop->globalL1CacheSupported =
        attr(CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED);
    prop->localL1CacheSupported =
        attr(CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED);
    prop->sharedMemPerMultiprocessor =
        (size_t)attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    prop->regsPerMultiprocessor =
        attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
    prop->managedMemory = attr(CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY);
    prop->isMultiGpuBoard = attr(CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD);
    prop->concurrentManagedAccess =
        attr(CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS);
    prop->computePreemptionSupported =
        attr(CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED);
    prop->canUseHostPointerForRegisteredMem =
        attr(CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM);
    prop->cooperativeLaunch = attr(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH);
    prop->sharedMemPerBlockOptin =
        (size_t)attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    prop->maxBlocksPerMultiProcessor =
        attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
    prop->accessPolicyMaxWindowSize =
        attr(CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE);
    prop->reservedSharedMemPerBlock =
        (size_t)attr(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
    prop->hostRegisterSupported = attr(CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED);
    prop->hostRegisterReadOnlySupported =
        attr(CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED);
    prop->memoryPoolsSupported = attr(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED);
    prop->clusterLaunch = attr(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH);
    prop->hostNumaId = attr(CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID);
#undef attr
    return cudaSuccess;
}

/* cudaDeviceAttr values are the driver's CUdevice_attribute values. */
SCSIM_EXPORT cudaError_t cudaDeviceGetAttribute(int *value,
                                                enum cudaDeviceAttr attr_,
                                                int device)
{
    SCRT_INIT();
    return scrt_drv_ret(
        DRV(cuDeviceGetAttribute)(value, (CUdevice_attribute)attr_, device));
}

SCSIM_EXPORT cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority,
                                                          int *greatestPriority)
{
    SCRT_INIT();
    return scrt_drv_ret(
        DRV(cuCtxGetStreamPriorityRange)(leastPriority, greatestPriority));
}

SCSIM_EXPORT cudaError_t cudaDeviceSynchronize(void)
{
    SCRT_INIT();
    SCRT_API(cudaDeviceSynchronize_v3020);
    return SCRT_API_RET(scrt_drv_ret(DRV(cuCtxSynchronize)()));
}

SCSIM_EXPORT cudaError_t cudaDeviceReset(void)
{
    SCRT_INIT();
    int dev = 0;
    cudaError_t e = current_device(&dev);
    if (e != cudaSuccess)
        return scrt_ret(e);
    return scrt_drv_ret(DRV(cuDevicePrimaryCtxReset)(dev));
}

/* ------------------------------------------------------- peer access --- */

SCSIM_EXPORT cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device,
                                                 int peerDevice)
{
    SCRT_INIT();
    return scrt_drv_ret(
        DRV(cuDeviceCanAccessPeer)(canAccessPeer, device, peerDevice));
}

/* Between the current device's primary context and the peer's: the
 * driver's CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED and _NOT_ENABLED are
 * cudaErrorPeerAccessAlreadyEnabled and cudaErrorPeerAccessNotEnabled
 * (the same numbers); the current device itself is cudaErrorInvalidDevice. */
static cudaError_t peer_ctx(int peerDevice, CUcontext *out)
{
    cudaError_t e = cudaSuccess;
    *out = scrt_primary(peerDevice, &e);
    if (!*out)
        return e;
    int cur = 0;
    e = current_device(&cur);
    if (e == cudaSuccess && cur == peerDevice)
        e = cudaErrorInvalidDevice;
    return e;
}

SCSIM_EXPORT cudaError_t cudaDeviceEnablePeerAccess(int peerDevice,
                                                    unsigned int flags)
{
    SCRT_INIT();
    CUcontext c;
    cudaError_t e = peer_ctx(peerDevice, &c);
    if (e != cudaSuccess)
        return scrt_ret(e);
    return scrt_drv_ret(DRV(cuCtxEnablePeerAccess)(c, flags));
}

SCSIM_EXPORT cudaError_t cudaDeviceDisablePeerAccess(int peerDevice)
{
    SCRT_INIT();
    CUcontext c;
    cudaError_t e = peer_ctx(peerDevice, &c);
    if (e != cudaSuccess)
        return scrt_ret(e);
    return scrt_drv_ret(DRV(cuCtxDisablePeerAccess)(c));
}

/* enum cudaFuncCache and cudaSharedMemConfig use the driver's values. */
SCSIM_EXPORT cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig)
{
    SCRT_INIT();
    return scrt_drv_ret(DRV(cuCtxSetCacheConfig)((CUfunc_cache)cacheConfig));
}

SCSIM_EXPORT cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig)
{
    SCRT_INIT();
    if (!pCacheConfig)
        return scrt_ret(cudaErrorInvalidValue);
    CUfunc_cache c;
    CUresult r = DRV(cuCtxGetCacheConfig)(&c);
    if (r == CUDA_SUCCESS)
        *pCacheConfig = (enum cudaFuncCache)c;
    return scrt_drv_ret(r);
}

SCSIM_EXPORT cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config)
{
    SCRT_INIT();
    return scrt_drv_ret(DRV(cuCtxSetSharedMemConfig)((CUsharedconfig)config));
}

SCSIM_EXPORT cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *pConfig)
{
    SCRT_INIT();
    if (!pConfig)
        return scrt_ret(cudaErrorInvalidValue);
    CUsharedconfig c;
    CUresult r = DRV(cuCtxGetSharedMemConfig)(&c);
    if (r == CUDA_SUCCESS)
        *pConfig = (enum cudaSharedMemConfig)c;
    return scrt_drv_ret(r);
}

SCSIM_EXPORT cudaError_t cudaFuncSetCacheConfig(const void *func,
                                                enum cudaFuncCache cacheConfig)
{
    SCRT_INIT();
    CUkernel k;
    cudaError_t e = scrt_kernel_of(func, &k);
    if (e != cudaSuccess)
        return scrt_ret(e);
    CUfunction f;
    CUresult r = DRV(cuKernelGetFunction)(&f, k);
    if (r == CUDA_SUCCESS)
        r = DRV(cuFuncSetCacheConfig)(f, (CUfunc_cache)cacheConfig);
    return scrt_drv_ret(r);
}

/* "cudaDriverGetVersion: If no driver is installed, then 0 is returned
 * as the driver version." */
SCSIM_EXPORT cudaError_t cudaDriverGetVersion(int *driverVersion)
{
    if (!driverVersion)
        return scrt_ret(cudaErrorInvalidValue);
    pthread_once(&init_once, init_process);
    *driverVersion = 0;
    if (!DRV(cuDriverGetVersion))
        return cudaSuccess;
    return scrt_drv_ret(DRV(cuDriverGetVersion)(driverVersion));
}

SCSIM_EXPORT cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)
{
    if (!runtimeVersion)
        return scrt_ret(cudaErrorInvalidValue);
    *runtimeVersion = CUDART_VERSION;
    return cudaSuccess;
}

/* --------------------------------------------------- driver entry points --- */

static cudaError_t entry_point(const char *symbol, void **funcPtr,
                               unsigned int version, unsigned long long flags,
                               enum cudaDriverEntryPointQueryResult *status)
{
    SCRT_INIT();
    PFN_cuGetProcAddress_v12000 gpa;
    void *p = scsim_drvbind_getproc();
    memcpy(&gpa, &p, sizeof gpa);
    CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult r = gpa(symbol, funcPtr, (int)version, flags, &st);
    if (status)
        *status = (enum cudaDriverEntryPointQueryResult)st;
    return scrt_drv_ret(r);
}

SCSIM_EXPORT cudaError_t
cudaGetDriverEntryPoint(const char *symbol, void **funcPtr,
                        unsigned long long flags,
                        enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return entry_point(symbol, funcPtr, CUDART_VERSION, flags, driverStatus);
}

SCSIM_EXPORT cudaError_t cudaGetDriverEntryPointByVersion(
    const char *symbol, void **funcPtr, unsigned int cudaVersion,
    unsigned long long flags, enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return entry_point(symbol, funcPtr, cudaVersion, flags, driverStatus);
}
