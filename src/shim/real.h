/* real.h: the real driver (real.c): its entry points by API id, resolved
 * once and read lock-free (sc_real_get, on every wrapped call), the driver
 * functions the shim calls for itself (sc_d), the real dlsym and
 * cuGetProcAddress, and the shim's own address range.
 */
#ifndef SC_REAL_H
#define SC_REAL_H

#include <stdatomic.h>

#include "shim.h"

void *sc_real_slow(unsigned id);              /* resolve a real driver entry point */
extern _Atomic(void *) sc_real[SC_NAPI];
static inline void *sc_real_get(unsigned id)
{
    void *p = atomic_load_explicit(&sc_real[id], memory_order_acquire);
    return SC_LIKELY(p != NULL) ? p : sc_real_slow(id);
}
CUresult sc_unresolved(unsigned id);
void *sc_real_set(unsigned id, void *p);   /* records p unless one is there; returns the slot's */
void sc_self_range(void);   /* fills sc_g.self_lo/self_hi */
int sc_is_ours(const void *p);   /* inside the shim itself */
void *sc_libcuda_handle(void);
void sc_note_libcuda(void *handle);   /* a handle the program got on the driver */
void *sc_dlsym_real(void *handle, const char *name);   /* the real dlsym */
void *sc_dlsym_default(const char *name);   /* the real dlsym, in the global scope */
SC_HIDDEN extern void *sc_real_dlsym;         /* read by dlsym_tramp.S */
SC_HIDDEN void *sc_resolve_real_dlsym(void);  /* called by dlsym_tramp.S */
/* The real cuGetProcAddress, either ABI, once found. */
extern PFN_cuGetProcAddress_v12000 sc_real_gpa_v2;
extern PFN_cuGetProcAddress_v11030 sc_real_gpa_v1;
void sc_real_gpa_resolve(void);
CUresult sc_real_lookup(const char *sym, void **pfn, int ver, cuuint64_t flags);
/* Real driver functions the shim calls for itself (never the wrappers). */
typedef struct sc_drv {
    PFN_cuCtxGetCurrent_v4000 CtxGetCurrent;
    PFN_cuStreamQuery_v2000 StreamQuery;
    PFN_cuStreamGetFlags_v5050 StreamGetFlags;
    PFN_cuStreamGetPriority_v5050 StreamGetPriority;
    PFN_cuStreamGetCtx_v9020 StreamGetCtx;
    PFN_cuEventQuery_v2000 EventQuery;
    PFN_cuStreamSynchronize_v2000 StreamSynchronize;   /* SC203: the wait before a pageable copy */
    PFN_cuPointerGetAttributes_v7000 PointerGetAttributes;
    PFN_cuDriverGetVersion_v2020 DriverGetVersion;
    PFN_cuDeviceGet_v2000 DeviceGet;
    PFN_cuDeviceGetName_v2000 DeviceGetName;
    PFN_cuDeviceGetAttribute_v2000 DeviceGetAttribute;
    PFN_cuStreamIsCapturing_v10000 StreamIsCapturing;
    PFN_cuStreamCreate_v2000 StreamCreate;         /* --redirect-method=stream */
    PFN_cuStreamDestroy_v4000 StreamDestroy;
    PFN_cuEventCreate_v2000 EventCreate;
    PFN_cuEventRecord_v2000 EventRecord;
    PFN_cuStreamWaitEvent_v3020 StreamWaitEvent;
    PFN_cuDevicePrimaryCtxGetState_v7000 PrimaryCtxGetState;
    PFN_cuCtxGetDevice_v2000 CtxGetDevice;         /* findings' device, per context */
    PFN_cuCtxSetCurrent_v4000 CtxSetCurrent;       /* the GPU sampler's own thread (gpusample.c) */
    /* a pinned copy timed at report time (calibrate.c) */
    PFN_cuCtxPushCurrent_v4000 CtxPushCurrent;
    PFN_cuCtxPopCurrent_v4000 CtxPopCurrent;
    PFN_cuMemAlloc_v3020 MemAlloc;
    PFN_cuMemFree_v3020 MemFree;
    PFN_cuMemAllocHost_v3020 MemAllocHost;
    PFN_cuMemFreeHost_v2000 MemFreeHost;
    PFN_cuMemcpyHtoD_v3020 MemcpyHtoD;
    PFN_cuMemcpyDtoH_v3020 MemcpyDtoH;
    PFN_cuMemcpyHtoDAsync_v3020 MemcpyHtoDAsync;   /* copies both ways at once, timed (calibrate.c) */
    PFN_cuMemcpyDtoHAsync_v3020 MemcpyDtoHAsync;
    /* a launch's share of its device (occupancy.c) */
    PFN_cuOccupancyMaxActiveBlocksPerMultiprocessor_v6050 OccupancyMaxActiveBlocksPerMultiprocessor;
} sc_drv;
extern sc_drv sc_d;
void sc_drv_resolve(void);   /* fills sc_d once libcuda is loaded */

#endif /* SC_REAL_H */
