/* fake_driver.c: a CUDA driver for the shim's unit tests.
 *
 * The shim's wrappers are linked into the test program; their "real" entry
 * points are these fakes, and the shim's own queries (cuStreamQuery,
 * cuPointerGetAttributes...) are answered from state the test sets: which
 * streams are busy, which events are done, what memory a pointer is.  So a
 * test decides exactly what the shim must find, and checks that it does.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fake_driver.h"
#include "real.h"

fake_state fake;

#define FAKE_STREAM(i) ((CUstream)(uintptr_t)(0x10000 + 0x100 * (i)))

static int stream_index(CUstream h)
{
    uintptr_t v = (uintptr_t)h;
    if (v < 0x10000 || (v - 0x10000) % 0x100)
        return -1;
    size_t i = (v - 0x10000) / 0x100;
    return i < FAKE_MAX_STREAMS ? (int)i : -1;
}

CUstream fake_stream(int i) { return FAKE_STREAM(i); }

/* ---------------------------------------------------- entry points --- */
static CUresult f_ok0(void) { return CUDA_SUCCESS; }
static CUresult f_init(unsigned flags) { (void)flags; return CUDA_SUCCESS; }

static CUresult f_stream_create(CUstream *ph, unsigned flags)
{
    (void)flags;
    if (fake.nstreams >= FAKE_MAX_STREAMS)
        return CUDA_ERROR_OUT_OF_MEMORY;
    int i = fake.nstreams++;
    fake.flags[i] = flags;
    fake.stream_device[i] = fake.device;
    *ph = FAKE_STREAM(i);
    return CUDA_SUCCESS;
}
static CUresult f_stream_create_prio(CUstream *ph, unsigned flags, int prio)
{
    (void)prio;
    return f_stream_create(ph, flags);
}
static CUresult f_stream_destroy(CUstream h) { return stream_index(h) >= 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE; }

static void log_op(char op, CUstream s, CUevent e)
{
    if (fake.nlog < (int)(sizeof fake.log / sizeof fake.log[0]))
        fake.log[fake.nlog++] = (__typeof__(fake.log[0])){op, s, e};
}

static CUresult f_launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                         unsigned bz, unsigned shmem, CUstream s, void **params, void **extra)
{
    (void)f; (void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)shmem; (void)params; (void)extra;
    fake.last_launch_stream = s;
    fake.launches++;
    return fake.fail_next ? (fake.fail_next = 0, CUDA_ERROR_INVALID_VALUE) : CUDA_SUCCESS;
}
static CUresult f_launch_pt(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                            unsigned bz, unsigned shmem, CUstream s, void **params, void **extra)
{
    fake.launches_pt++;
    return f_launch(f, gx, gy, gz, bx, by, bz, shmem, s, params, extra);
}
static CUresult f_copy_async(CUdeviceptr dst, const void *src, size_t n, CUstream s)
{
    (void)dst; (void)src; (void)n; (void)s;
    return CUDA_SUCCESS;
}
static CUresult f_copy_d2h_async(void *dst, CUdeviceptr src, size_t n, CUstream s)
{
    (void)dst; (void)src; (void)n; (void)s;
    return CUDA_SUCCESS;
}
static CUresult f_copy_h2d(CUdeviceptr dst, const void *src, size_t n) { (void)dst; (void)src; (void)n; return CUDA_SUCCESS; }
static CUresult f_copy_h2d_pt(CUdeviceptr dst, const void *src, size_t n)
{
    fake.sync_pt++;
    log_op('c', CU_STREAM_PER_THREAD, NULL);
    return f_copy_h2d(dst, src, n);
}
static CUresult f_launch_ex(const CUlaunchConfig *cfg, CUfunction f, void **params, void **extra)
{
    (void)f; (void)params; (void)extra;
    fake.last_launch_stream = cfg->hStream;
    fake.launches++;
    return CUDA_SUCCESS;
}
static CUresult f_ctx_reset(CUdevice d) { (void)d; return CUDA_SUCCESS; }
static CUresult f_copy_d2h(void *dst, CUdeviceptr src, size_t n) { (void)dst; (void)src; (void)n; return CUDA_SUCCESS; }
static CUresult f_copy_d2d(CUdeviceptr dst, CUdeviceptr src, size_t n) { (void)dst; (void)src; (void)n; return CUDA_SUCCESS; }
static CUresult f_memset(CUdeviceptr d, unsigned char v, size_t n) { (void)d; (void)v; (void)n; return CUDA_SUCCESS; }
static CUresult f_memset_async(CUdeviceptr d, unsigned char v, size_t n, CUstream s) { (void)d; (void)v; (void)n; (void)s; return CUDA_SUCCESS; }

static CUresult f_alloc(CUdeviceptr *p, size_t n)
{
    *p = (CUdeviceptr)(uintptr_t)malloc(n ? n : 1);
    return CUDA_SUCCESS;
}
static CUresult f_free(CUdeviceptr p) { free((void *)(uintptr_t)p); return CUDA_SUCCESS; }
static CUresult f_host_alloc(void **pp, size_t n, unsigned flags) { (void)flags; *pp = malloc(n); return CUDA_SUCCESS; }
static CUresult f_free_host(void *p) { free(p); return CUDA_SUCCESS; }
static CUresult f_register(void *p, size_t n, unsigned flags) { (void)p; (void)n; (void)flags; return CUDA_SUCCESS; }
static CUresult f_unregister(void *p) { (void)p; return CUDA_SUCCESS; }

static CUresult f_stream_sync(CUstream s) { fake.last_sync_stream = s; return CUDA_SUCCESS; }
static CUresult f_stream_sync_pt(CUstream s) { fake.sync_pt++; return f_stream_sync(s); }
static CUresult f_event_record(CUevent e, CUstream s) { (void)e; (void)s; return CUDA_SUCCESS; }
static CUresult f_wait_event(CUstream s, CUevent e, unsigned flags) { (void)s; (void)e; (void)flags; return CUDA_SUCCESS; }
static CUresult f_event_sync(CUevent e) { (void)e; return CUDA_SUCCESS; }
static CUresult f_cache(CUfunc_cache c) { (void)c; return CUDA_SUCCESS; }
static CUresult f_capture_begin(CUstream s, CUstreamCaptureMode m)
{
    (void)s; (void)m;
    return fake.fail_next ? (fake.fail_next = 0, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED) : CUDA_SUCCESS;
}
static CUresult f_capture_end(CUstream s, CUgraph *g) { (void)s; *g = NULL; return CUDA_SUCCESS; }
static CUresult f_graph_launch(CUgraphExec g, CUstream s) { (void)g; fake.last_launch_stream = s; return CUDA_SUCCESS; }

/* ------------------------------------------------ the shim's queries --- */
/* One context per device: device 0's is 0xc0ffee. */
static CUcontext ctx_of(int device) { return (CUcontext)(uintptr_t)(0xc0ffee + 0x100 * device); }
static CUresult q_ctx(CUcontext *c) { fake.ctx_queries++; *c = ctx_of(fake.device); return CUDA_SUCCESS; }

static CUresult q_stream(CUstream h)
{
    fake.queries++;
    if (h == CU_STREAM_LEGACY)
        return fake.legacy_busy ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
    if (h == CU_STREAM_PER_THREAD)
        return fake.ptds_busy ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
    int i = stream_index(h);
    if (i < 0)
        return CUDA_ERROR_INVALID_HANDLE;
    return fake.busy[i] ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}
static CUresult q_flags(CUstream h, unsigned *f)
{
    int i = stream_index(h);
    if (i < 0)
        return CUDA_ERROR_INVALID_HANDLE;
    *f = fake.flags[i];
    return CUDA_SUCCESS;
}
static CUresult q_prio(CUstream h, int *p) { (void)h; *p = 0; return CUDA_SUCCESS; }
static CUresult q_sctx(CUstream h, CUcontext *c)
{
    int i = stream_index(h);
    *c = ctx_of(i >= 0 ? fake.stream_device[i] : fake.device);
    return CUDA_SUCCESS;
}
static CUresult q_event(CUevent e) { (void)e; return fake.event_done ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY; }
static CUresult q_ptr(unsigned n, CUpointer_attribute *attrs, void **vals, CUdeviceptr p)
{
    fake.ptr_queries++;
    for (unsigned i = 0; i < n; i++) {
        switch (attrs[i]) {
        case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
            *(unsigned *)vals[i] = (uintptr_t)p >= (uintptr_t)fake.registered &&
                                           (uintptr_t)p < (uintptr_t)fake.registered + fake.registered_len
                                       ? CU_MEMORYTYPE_HOST : 0;
            break;
        case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
            *(uintptr_t *)vals[i] = (uintptr_t)fake.registered;
            break;
        case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
            *(size_t *)vals[i] = fake.registered_len;
            break;
        default:
            memset(vals[i], 0, sizeof(int));
            break;
        }
    }
    return CUDA_SUCCESS;
}
static CUresult q_version(int *v) { *v = 13000; return CUDA_SUCCESS; }
static CUresult q_dev(CUdevice *d, int ord) { (void)ord; *d = 0; return CUDA_SUCCESS; }
static CUresult q_ctx_dev(CUdevice *d) { *d = fake.device; return CUDA_SUCCESS; }
static CUresult q_name(char *n, int len, CUdevice d) { (void)d; snprintf(n, (size_t)len, "fake GPU"); return CUDA_SUCCESS; }
static CUresult q_attr(int *v, CUdevice_attribute a, CUdevice d)
{
    (void)d;
    *v = a == CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT ? fake.async_engines : 0;
    return CUDA_SUCCESS;
}
static CUresult q_capturing(CUstream s, CUstreamCaptureStatus *st) { (void)s; *st = CU_STREAM_CAPTURE_STATUS_NONE; return CUDA_SUCCESS; }
static CUresult o_stream_create(CUstream *ph, unsigned flags)
{
    CUresult r = f_stream_create(ph, flags);
    if (r == CUDA_SUCCESS)
        fake.own_streams++;
    return r;
}
static CUresult o_event_create(CUevent *pe, unsigned flags)
{
    (void)flags;
    static uintptr_t next = 0xe0000;
    *pe = (CUevent)(next += 0x10);
    return CUDA_SUCCESS;
}
static CUresult q_primary(CUdevice d, unsigned *flags, int *active)
{
    (void)d;
    *flags = 0;
    *active = fake.primary_active;
    return CUDA_SUCCESS;
}
static CUresult o_event_record(CUevent e, CUstream s) { log_op('r', s, e); return CUDA_SUCCESS; }
static CUresult o_wait_event(CUstream s, CUevent e, unsigned flags) { (void)flags; log_op('w', s, e); return CUDA_SUCCESS; }

void fake_install(void)
{
    memset(&fake, 0, sizeof fake);
    fake.async_engines = 2;
#define SET(id, fn) atomic_store(&sc_real[id], (void *)(fn))
    SET(SC_API_cuInit, f_init);
    SET(SC_API_cuStreamCreate, f_stream_create);
    SET(SC_API_cuStreamCreateWithPriority, f_stream_create_prio);
    SET(SC_API_cuStreamDestroy_v2, f_stream_destroy);
    SET(SC_API_cuLaunchKernel, f_launch);
    SET(SC_API_cuLaunchKernel_ptsz, f_launch_pt);
    SET(SC_API_cuMemcpyHtoDAsync_v2, f_copy_async);
    SET(SC_API_cuMemcpyHtoDAsync_v2_ptsz, f_copy_async);
    SET(SC_API_cuMemcpyDtoHAsync_v2, f_copy_d2h_async);
    SET(SC_API_cuMemcpyDtoHAsync_v2_ptsz, f_copy_d2h_async);
    SET(SC_API_cuMemcpyHtoD_v2, f_copy_h2d);
    SET(SC_API_cuMemcpyHtoD_v2_ptds, f_copy_h2d_pt);
    SET(SC_API_cuMemcpyDtoH_v2, f_copy_d2h);
    SET(SC_API_cuMemcpyDtoD_v2, f_copy_d2d);
    SET(SC_API_cuMemcpy, f_copy_d2d);
    SET(SC_API_cuMemsetD8_v2, f_memset);
    SET(SC_API_cuMemsetD8Async, f_memset_async);
    SET(SC_API_cuMemAlloc_v2, f_alloc);
    SET(SC_API_cuMemFree_v2, f_free);
    SET(SC_API_cuMemHostAlloc, f_host_alloc);
    SET(SC_API_cuMemFreeHost, f_free_host);
    SET(SC_API_cuMemHostRegister_v2, f_register);
    SET(SC_API_cuMemHostUnregister, f_unregister);
    SET(SC_API_cuStreamSynchronize, f_stream_sync);
    SET(SC_API_cuStreamSynchronize_ptsz, f_stream_sync_pt);
    SET(SC_API_cuStreamQuery, q_stream);
    SET(SC_API_cuEventRecord, f_event_record);
    SET(SC_API_cuEventSynchronize, f_event_sync);
    SET(SC_API_cuStreamWaitEvent, f_wait_event);
    SET(SC_API_cuCtxSynchronize, f_ok0);
    SET(SC_API_cuCtxSetCacheConfig, f_cache);
    SET(SC_API_cuStreamBeginCapture_v2, f_capture_begin);
    SET(SC_API_cuStreamEndCapture, f_capture_end);
    SET(SC_API_cuGraphLaunch, f_graph_launch);
    SET(SC_API_cuLaunchKernelEx, f_launch_ex);
    SET(SC_API_cuLaunchKernelEx_ptsz, f_launch_ex);
    SET(SC_API_cuDevicePrimaryCtxReset_v2, f_ctx_reset);
    SET(SC_API_cuDevicePrimaryCtxRelease_v2, f_ctx_reset);
#undef SET
    sc_d.CtxGetCurrent = q_ctx;
    sc_d.StreamQuery = q_stream;
    sc_d.StreamGetFlags = q_flags;
    sc_d.StreamGetPriority = q_prio;
    sc_d.StreamGetCtx = q_sctx;
    sc_d.EventQuery = q_event;
    sc_d.PointerGetAttributes = q_ptr;
    sc_d.DriverGetVersion = q_version;
    sc_d.DeviceGet = q_dev;
    sc_d.DeviceGetName = q_name;
    sc_d.DeviceGetAttribute = q_attr;
    sc_d.StreamIsCapturing = q_capturing;
    sc_d.StreamCreate = o_stream_create;
    sc_d.StreamDestroy = f_stream_destroy;
    sc_d.EventCreate = o_event_create;
    sc_d.EventRecord = o_event_record;
    sc_d.StreamWaitEvent = o_wait_event;
    sc_d.PrimaryCtxGetState = q_primary;
    sc_d.CtxGetDevice = q_ctx_dev;
}
