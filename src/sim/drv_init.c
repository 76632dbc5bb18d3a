/* src/sim/drv_init.c: initialization, the simulated devices, their
 * primary contexts, peer access, error strings.
 *
 * STREAMCHECK_SIM_DEVICES=N (default 1, at most SCSIM_MAX_DEVICES)
 * simulated GPUs, alike but for their names, UUIDs and PCI bus ids; each
 * has one primary context (the only kind of context the simulator has),
 * with its own legacy stream, streams and memory. */
#include "config.h"

#include "sim/drv_api.h"
#include "sim/sim.h"
#include "sim/stubs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

scsim_global scsim_g = {
    .ndevices = 1,
    .cap_mu = PTHREAD_MUTEX_INITIALIZER,
    .next_stream_id = 1,
    .next_capture_id = 1,
};

/* Like an 80 GB H100. */
#define SCSIM_TOTAL_MEM (80ull << 30)

int scsim_stub_called(atomic_int *once, const char *name)
{
    scsim_report_unsupported(once, name);
    return CUDA_ERROR_NOT_SUPPORTED;
}

/* ----------------------------------------------------------- contexts --- */

/* The calling thread's context stack (cuCtxPushCurrent/PopCurrent); the
 * top is the current context.  Only primary contexts exist, so a small
 * fixed stack is plenty. */
#define SCSIM_CTX_STACK 16
static __thread CUcontext tls_ctx[SCSIM_CTX_STACK];
static __thread unsigned tls_ctx_depth;

CUcontext scsim_current_ctx(void)
{
    return tls_ctx_depth ? tls_ctx[tls_ctx_depth - 1] : NULL;
}

CUresult scsim_check_ctx(void)
{
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    return scsim_current_ctx() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

bool scsim_ctx_valid(CUcontext c)
{
    return c && c >= &scsim_g.ctx[0] && c < &scsim_g.ctx[scsim_g.ndevices] &&
           c->magic == SCSIM_MAGIC_CTX;
}

#define ctx_valid scsim_ctx_valid


/* --------------------------------------------------------------- init --- */

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static atomic_int forked;

/* A child of fork() has none of the parent's stream workers; like CUDA,
 * the simulator is then unusable in the child (calls fail with
 * CUDA_ERROR_NOT_INITIALIZED) instead of waiting forever. */
static void child_after_fork(void)
{
    atomic_store(&forked, 1);
    atomic_store(&scsim_g.initialized, 0);
}

static void init_global(void)
{
    long engines = scsim_env_long("STREAMCHECK_SIM_ASYNC_ENGINES", 2);
    scsim_g.async_engines = engines < 0 ? 0 : engines > 64 ? 64 : (int)engines;
    const char *as = getenv("STREAMCHECK_SIM_ALLOC_SYNC");
    scsim_g.alloc_sync = !as || !*as             ? SCSIM_ALLOC_SYNC_ALL
                         : strcmp(as, "0") == 0    ? SCSIM_ALLOC_SYNC_NONE
                         : strcmp(as, "free") == 0 ? SCSIM_ALLOC_SYNC_FREE
                                                   : SCSIM_ALLOC_SYNC_ALL;
    long stage = scsim_env_long("STREAMCHECK_SIM_PAGEABLE_STAGE_MAX", 0);
    scsim_g.pageable_stage_max = stage > 0 ? (size_t)stage : 0;
    long ndev = scsim_env_long("STREAMCHECK_SIM_DEVICES", 1);
    scsim_g.ndevices = ndev < 1                   ? 1
                       : ndev > SCSIM_MAX_DEVICES ? SCSIM_MAX_DEVICES
                                                  : (int)ndev;
    scsim_g.total_mem = SCSIM_TOTAL_MEM;
    for (int d = 0; d < scsim_g.ndevices; d++) {
        struct CUctx_st *c = &scsim_g.ctx[d];
        pthread_mutex_init(&c->mu, NULL);
        c->ordinal = d;
        c->magic = SCSIM_MAGIC_CTX;
        c->legacy = scsim_stream_new(c, SCSIM_STREAM_LEGACY, 0, 0);
        if (!c->legacy)
            return;
    }
    pthread_atfork(NULL, NULL, child_after_fork);
    atomic_store_explicit(&scsim_g.initialized, 1, memory_order_release);
    SCSIM_TRACE("initialized: %d device(s), async engines %d, allocation "
                "sync %d, pageable staging up to %zu bytes",
                scsim_g.ndevices, scsim_g.async_engines, scsim_g.alloc_sync,
                scsim_g.pageable_stage_max);
}

CUresult scsim_cuInit(unsigned int flags)
{
    if (flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_once(&init_once, init_global);
    if (atomic_load(&forked))
        return CUDA_ERROR_NOT_INITIALIZED;
    return scsim_check_init() == CUDA_SUCCESS ? CUDA_SUCCESS
                                              : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult scsim_cuDriverGetVersion(int *driverVersion)
{
    if (!driverVersion)
        return CUDA_ERROR_INVALID_VALUE;
    *driverVersion = CUDA_VERSION; /* 13000 */
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------- device --- */

static CUresult check_dev(CUdevice dev)
{
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    return dev >= 0 && dev < scsim_g.ndevices ? CUDA_SUCCESS
                                              : CUDA_ERROR_INVALID_DEVICE;
}

CUresult scsim_cuDeviceGet(CUdevice *device, int ordinal)
{
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    if (ordinal < 0 || ordinal >= scsim_g.ndevices)
        return CUDA_ERROR_INVALID_DEVICE;
    *device = ordinal;
    return CUDA_SUCCESS;
}

CUresult scsim_cuDeviceGetCount(int *count)
{
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!count)
        return CUDA_ERROR_INVALID_VALUE;
    *count = scsim_g.ndevices;
    return CUDA_SUCCESS;
}

CUresult scsim_cuDeviceGetName(char *name, int len, CUdevice dev)
{
    CUresult r = check_dev(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!name || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    /* One device keeps the name it always had; with several, each is
     * numbered. */
    if (scsim_g.ndevices == 1)
        snprintf(name, (size_t)len, "%s", "streamcheck simulated GPU");
    else
        snprintf(name, (size_t)len, "streamcheck simulated GPU %d", (int)dev);
    return CUDA_SUCCESS;
}

CUresult scsim_cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    CUresult r = check_dev(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!bytes)
        return CUDA_ERROR_INVALID_VALUE;
    *bytes = scsim_g.total_mem;
    return CUDA_SUCCESS;
}

/* Values of an H100 SXM5 (compute capability 9.0, 132 SMs). */
int scsim_device_attribute(CUdevice_attribute attr)
{
    switch (attr) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: return 64;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: return 2147483647;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: return 65535;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: return 65535;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: return 49152;
    case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: return 65536;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: return 32;
    case CU_DEVICE_ATTRIBUTE_MAX_PITCH: return 2147483647;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: return 65536;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: return 1980000;
    case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT: return 512;
    case CU_DEVICE_ATTRIBUTE_GPU_OVERLAP: return 1;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: return 132;
    case CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT: return 0;
    case CU_DEVICE_ATTRIBUTE_INTEGRATED: return 0;
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: return 1;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE: return CU_COMPUTEMODE_DEFAULT;
    case CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT: return 512;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: return 1;
    case CU_DEVICE_ATTRIBUTE_ECC_ENABLED: return 1;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: return 0x1b;
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: return 0;
    case CU_DEVICE_ATTRIBUTE_TCC_DRIVER: return 0;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: return 2619000;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: return 5120;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: return 52428800;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: return 2048;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: return scsim_g.async_engines;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: return 1;
    case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: return 0;
    case CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT: return 32;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: return 9;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: return 0;
    case CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: return 233472;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: return 65536;
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: return 1;
    case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD: return 0;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: return 1;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM: return 1;
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: return 1;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: return 232448;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: return 32;
    case CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE: return 32505856;
    case CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE: return 134213632;
    case CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK: return 1024;
    case CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH: return 1;
    case CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID: return -1;
    default: return 0;
    }
}

CUresult scsim_cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib,
                                    CUdevice dev)
{
    CUresult r = check_dev(dev);
    if (r != CUDA_SUCCESS)
        return r;
    /* Outside the enum: CUDA_ERROR_INVALID_VALUE, as the driver answers. */
    if (!pi || (int)attrib < 1 || attrib >= CU_DEVICE_ATTRIBUTE_MAX)
        return CUDA_ERROR_INVALID_VALUE;
    /* Attributes the table does not know read as 0 (and succeed), so a
     * program asking about features of newer GPUs sees "unsupported".
     * Devices differ in their PCI bus id only. */
    *pi = scsim_device_attribute(attrib);
    if (attrib == CU_DEVICE_ATTRIBUTE_PCI_BUS_ID)
        *pi += (int)dev;
    return CUDA_SUCCESS;
}

static CUresult get_uuid(CUuuid *uuid, CUdevice dev)
{
    CUresult r = check_dev(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!uuid)
        return CUDA_ERROR_INVALID_VALUE;
    static const char id[16] = "streamcheck-sim";
    memcpy(uuid->bytes, id, sizeof uuid->bytes);
    /* Device 0 keeps the UUID it always had (its last byte is the NUL). */
    uuid->bytes[15] = (char)dev;
    return CUDA_SUCCESS;
}

CUresult scsim_cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
    return get_uuid(uuid, dev);
}

CUresult scsim_cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
    return get_uuid(uuid, dev);
}

/* ---------------------------------------------------- primary context --- */

CUresult scsim_cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    CUresult r = check_dev(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    atomic_fetch_add(&scsim_g.ctx[dev].retains, 1);
    *pctx = &scsim_g.ctx[dev];
    return CUDA_SUCCESS;
}

CUresult scsim_cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    CUresult r = check_dev(dev);
    if (r != CUDA_SUCCESS)
        return r;
    struct CUctx_st *c = &scsim_g.ctx[dev];
    int old = atomic_load(&c->retains);
    while (old > 0 && !atomic_compare_exchange_weak(&c->retains, &old, old - 1))
        ;
    return old > 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

CUresult scsim_cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags,
                                          int *active)
{
    CUresult r = check_dev(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!flags || !active)
        return CUDA_ERROR_INVALID_VALUE;
    *flags = scsim_g.ctx[dev].flags;
    *active = atomic_load(&scsim_g.ctx[dev].retains) > 0;
    return CUDA_SUCCESS;
}

CUresult scsim_cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags)
{
    CUresult r = check_dev(dev);
    if (r != CUDA_SUCCESS)
        return r;
    const unsigned known = CU_CTX_SCHED_MASK | CU_CTX_MAP_HOST |
                           CU_CTX_LMEM_RESIZE_TO_MAX | CU_CTX_COREDUMP_ENABLE |
                           CU_CTX_USER_COREDUMP_ENABLE | CU_CTX_SYNC_MEMOPS;
    if (flags & ~known)
        return CUDA_ERROR_INVALID_VALUE;
    scsim_g.ctx[dev].flags = flags;
    return CUDA_SUCCESS;
}

/* Destroys nothing: pointers and handles stay usable in the simulator
 * (the real reset frees them), but all work is finished first and the
 * context's settings go back to their defaults. */
CUresult scsim_cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
    CUresult r = check_dev(dev);
    if (r != CUDA_SUCCESS)
        return r;
    struct CUctx_st *c = &scsim_g.ctx[dev];
    scsim_device_sync(c);
    c->flags = 0;
    c->cache_config = CU_FUNC_CACHE_PREFER_NONE;
    c->shmem_config = CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE;
    atomic_store(&c->peers, 0);
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------ context stack --- */

CUresult scsim_cuCtxGetCurrent(CUcontext *pctx)
{
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    *pctx = scsim_current_ctx();
    return CUDA_SUCCESS;
}

CUresult scsim_cuCtxSetCurrent(CUcontext ctx)
{
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (ctx && !ctx_valid(ctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    /* Replaces the top of the stack; NULL pops it. */
    if (!ctx) {
        if (tls_ctx_depth)
            tls_ctx_depth--;
        return CUDA_SUCCESS;
    }
    if (tls_ctx_depth == 0)
        tls_ctx_depth = 1;
    tls_ctx[tls_ctx_depth - 1] = ctx;
    return CUDA_SUCCESS;
}

CUresult scsim_cuCtxPushCurrent_v2(CUcontext ctx)
{
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!ctx_valid(ctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    if (tls_ctx_depth == SCSIM_CTX_STACK)
        return CUDA_ERROR_OUT_OF_MEMORY;
    tls_ctx[tls_ctx_depth++] = ctx;
    return CUDA_SUCCESS;
}

CUresult scsim_cuCtxPopCurrent_v2(CUcontext *pctx)
{
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (tls_ctx_depth == 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    CUcontext c = tls_ctx[--tls_ctx_depth];
    if (pctx)
        *pctx = c;
    return CUDA_SUCCESS;
}

CUresult scsim_cuCtxGetDevice(CUdevice *device)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    *device = scsim_current_ctx()->ordinal;
    return CUDA_SUCCESS;
}

CUresult scsim_cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx)
{
    if (!ctx)
        return scsim_cuCtxGetDevice(device);
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!ctx_valid(ctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    *device = ctx->ordinal;
    return CUDA_SUCCESS;
}

CUresult scsim_cuCtxGetApiVersion(CUcontext ctx, unsigned int *version)
{
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!ctx) {
        ctx = scsim_current_ctx();
        if (!ctx)
            return CUDA_ERROR_INVALID_CONTEXT;
    }
    if (!ctx_valid(ctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!version)
        return CUDA_ERROR_INVALID_VALUE;
    *version = 3020; /* what primary contexts report */
    return CUDA_SUCCESS;
}

CUresult scsim_cuCtxGetFlags(unsigned int *flags)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    if (!flags)
        return CUDA_ERROR_INVALID_VALUE;
    *flags = scsim_current_ctx()->flags;
    return CUDA_SUCCESS;
}

CUresult scsim_cuCtxGetStreamPriorityRange(int *leastPriority,
                                           int *greatestPriority)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    /* H100: priorities 0 (least) to -5 (greatest). */
    if (leastPriority)
        *leastPriority = 0;
    if (greatestPriority)
        *greatestPriority = -5;
    return CUDA_SUCCESS;
}

/* Cache and shared-memory configuration are recorded, not enforced.  The
 * CUDA Programming Guide lists an L1/shared-memory configuration switch
 * among the operations that serialize streams on the device; the
 * simulator's streams are not affected. */
CUresult scsim_cuCtxSetCacheConfig(CUfunc_cache config)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    if ((unsigned)config > CU_FUNC_CACHE_PREFER_EQUAL)
        return CUDA_ERROR_INVALID_VALUE;
    scsim_current_ctx()->cache_config = config;
    return CUDA_SUCCESS;
}

CUresult scsim_cuCtxGetCacheConfig(CUfunc_cache *pconfig)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    if (!pconfig)
        return CUDA_ERROR_INVALID_VALUE;
    *pconfig = (CUfunc_cache)scsim_current_ctx()->cache_config;
    return CUDA_SUCCESS;
}

CUresult scsim_cuCtxSetSharedMemConfig(CUsharedconfig config)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    if ((unsigned)config > CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE)
        return CUDA_ERROR_INVALID_VALUE;
    scsim_current_ctx()->shmem_config = config;
    return CUDA_SUCCESS;
}

CUresult scsim_cuCtxGetSharedMemConfig(CUsharedconfig *pConfig)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    if (!pConfig)
        return CUDA_ERROR_INVALID_VALUE;
    *pConfig = (CUsharedconfig)scsim_current_ctx()->shmem_config;
    return CUDA_SUCCESS;
}

/* cuCtxSynchronize: blocks until the device has completed all preceding
 * requested tasks. */
static CUresult ctx_sync(struct CUctx_st *ctx)
{
    /* It would synchronize capturing streams: invalid during any
     * capture (CUDA Programming Guide, "Prohibited and Unhandled
     * Operations"). */
    if (atomic_load(&scsim_g.ncaptures) > 0) {
        CUresult r = scsim_capture_check_any();
        if (r != CUDA_SUCCESS)
            return r;
    }
    if (!scsim_tl_on()) {
        scsim_device_sync(ctx);
        return CUDA_SUCCESS;
    }
    uint64_t t0 = scsim_tl_now();
    scsim_device_sync(ctx);
    scsim_tl_sync(SCSIM_TL_SYNC_CONTEXT, 0, ctx, t0, CUDA_SUCCESS);
    return CUDA_SUCCESS;
}

CUresult scsim_cuCtxSynchronize(void)
{
    SCSIM_API(cuCtxSynchronize);
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return SCSIM_API_RET(r);
    return SCSIM_API_RET(ctx_sync(scsim_current_ctx()));
}

CUresult scsim_cuCtxSynchronize_v2(CUcontext ctx)
{
    if (!ctx)
        return scsim_cuCtxSynchronize();
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!ctx_valid(ctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    return ctx_sync(ctx);
}

/* -------------------------------------------------------- peer access --- */

/* Every pair of distinct simulated devices can reach each other (as on an
 * NVLink or PCIe-switch node); a device is not its own peer, as the
 * driver answers (canAccessPeer 0). */
CUresult scsim_cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev,
                                     CUdevice peerDev)
{
    CUresult r = check_dev(dev);
    if (r == CUDA_SUCCESS)
        r = check_dev(peerDev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!canAccessPeer)
        return CUDA_ERROR_INVALID_VALUE;
    *canAccessPeer = dev != peerDev;
    return CUDA_SUCCESS;
}

/* cuCtxEnablePeerAccess: one direction, from the current context to the
 * peer's memory.  Errors as documented: CUDA_ERROR_PEER_ACCESS_ALREADY_
 * ENABLED when it is, CUDA_ERROR_INVALID_VALUE for flags other than 0,
 * CUDA_ERROR_INVALID_CONTEXT without a current context, for an invalid
 * peer, or when the peer is the current context. */
CUresult scsim_cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    if (!ctx_valid(peerContext))
        return CUDA_ERROR_INVALID_CONTEXT;
    if (Flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUctx_st *c = scsim_current_ctx();
    if (c == peerContext)
        return CUDA_ERROR_INVALID_CONTEXT;
    unsigned bit = 1u << peerContext->ordinal;
    if (atomic_fetch_or(&c->peers, bit) & bit)
        return CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
    SCSIM_TRACE("peer access: device %d -> device %d", c->ordinal,
                peerContext->ordinal);
    return CUDA_SUCCESS;
}

/* cuDeviceGetP2PAttribute: CUDA_ERROR_INVALID_DEVICE for the same
 * device; every pair is a direct link with native atomics. */
CUresult scsim_cuDeviceGetP2PAttribute(int *value, CUdevice_P2PAttribute attrib,
                                       CUdevice srcDevice, CUdevice dstDevice)
{
    CUresult r = check_dev(srcDevice);
    if (r == CUDA_SUCCESS)
        r = check_dev(dstDevice);
    if (r != CUDA_SUCCESS)
        return r;
    if (srcDevice == dstDevice)
        return CUDA_ERROR_INVALID_DEVICE;
    if (!value)
        return CUDA_ERROR_INVALID_VALUE;
    switch (attrib) {
    case CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK:
        *value = 0;
        return CUDA_SUCCESS;
    case CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED:
    case CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED:
    case CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED:
        *value = 1;
        return CUDA_SUCCESS;
    case CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED:
        *value = 0;
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult scsim_cuCtxDisablePeerAccess(CUcontext peerContext)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    if (!ctx_valid(peerContext))
        return CUDA_ERROR_INVALID_CONTEXT;
    struct CUctx_st *c = scsim_current_ctx();
    unsigned bit = 1u << peerContext->ordinal;
    if (!(atomic_fetch_and(&c->peers, ~bit) & bit))
        return CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------- errors --- */

static const char *err_name(CUresult e)
{
    switch (e) {
#define SC_CUERR(name, value, desc)                                           \
    case value:                                                               \
        return #name;
#include "sim/cuerr.def"
#undef SC_CUERR
    default:
        return NULL;
    }
}

static const char *err_string(CUresult e)
{
    switch (e) {
#define SC_CUERR(name, value, desc)                                           \
    case value:                                                               \
        return desc;
#include "sim/cuerr.def"
#undef SC_CUERR
    default:
        return NULL;
    }
}

CUresult scsim_cuGetErrorString(CUresult error, const char **pStr)
{
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    *pStr = err_string(error);
    return *pStr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult scsim_cuGetErrorName(CUresult error, const char **pStr)
{
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    *pStr = err_name(error);
    return *pStr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
