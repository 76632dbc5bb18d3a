/* src/sim/drv_copy.c: copies and memsets, with the host-side blocking of
 * the CUDA Driver API's "API synchronization behavior" page.
 *
 * Synchronous copies (cuMemcpy*, queued on the legacy stream, or the
 * calling thread's per-thread stream for _ptds):
 *  1. pageable host -> device: a stream sync is performed before the copy
 *     is initiated; the call returns once the data is staged, the copy to
 *     the device may complete later.  The driver stages through pinned
 *     buffers of its own, each reused once its part reached the device, so
 *     a copy larger than them returns about when it is done: here the
 *     source is copied into a staging buffer at once, and the call returns
 *     when the copy from it is done if it is over STAGE_BUFFER bytes;
 *  2. pinned host -> device: synchronous with respect to the host;
 *  3. device -> host (pageable or pinned): returns once the copy is done;
 *  4. device -> device: no host-side synchronization;
 *  5. host -> host: fully synchronous.
 * Asynchronous copies (cuMemcpy*Async):
 *  1. device <-> pageable host: may be synchronous; modelled as what the
 *     driver does, staging through the stream: host -> device waits for
 *     the stream's prior work and the copy, device -> host returns once the
 *     copy is done;
 *  2. host -> host: fully synchronous;
 *  3. everything else (pinned host, device -> device): fully asynchronous.
 * Memsets: "asynchronous with respect to the host except when the target
 * is pinned host memory" (the synchronous forms); the Async forms are
 * asynchronous.
 *
 * A copy takes its memmove's time on the stream's worker, or, with
 * STREAMCHECK_SIM_COPY_GBPS=R, at least n / R ns, and one with a pageable
 * end n / P with STREAMCHECK_SIM_PAGEABLE_GBPS=P (drv_sched.c, paced_copy).
 *
 * Measured on an H100 (driver 580): pageable host->device cudaMemcpyAsync
 * of up to 1 MiB returns at once (the driver stages it without waiting
 * for the stream); 16 MiB waits.  STREAMCHECK_SIM_PAGEABLE_STAGE_MAX=N
 * stages async pageable host->device copies of up to N bytes that way;
 * the default, 0, always waits as documented.
 *
 * Peer copies (device memory of two devices: cuMemcpyPeer*, or any copy
 * whose ends unified addressing places on two devices): the async forms
 * are queued like device-to-device copies; the synchronous ones are
 * "serialized with respect to all pending and future asynchronous work in
 * to the current device, srcDevice, and dstDevice" (CUDA Runtime API,
 * cudaMemcpyPeer) and "exhibit synchronous behavior for most use cases"
 * (CUDA Driver API, cuMemcpyPeer): queued on the current context's legacy
 * stream behind all work of the three devices, and the call returns once
 * the copy is done.
 *
 * During stream capture nothing runs, so nothing blocks the host: copies
 * and memsets, pageable ones included (the driver captures those too),
 * are recorded into the graph. */
#include "config.h"

#include "sim/drv_api.h"
#include "sim/sim.h"

#include <stdlib.h>
#include <string.h>

/* The driver's staging buffer, as the CUDA docs' 64 KB limit for pageable
 * copies that return once staged suggests. */
#define STAGE_BUFFER 65536

enum host_wait {
    WAIT_NONE,   /* enqueue and return */
    WAIT_DONE,   /* return when the copy has completed */
    WAIT_STAGED, /* stream sync, stage, enqueue, return (when done, past STAGE_BUFFER) */
    STAGE_ONLY,  /* stage, enqueue, return */
};

/* How a copy of n bytes blocks the host, from the memory kinds of its
 * ends. */
static enum host_wait copy_policy(int dst, int src, bool async, size_t n)
{
    bool dh = scsim_mem_is_host(dst), sh = scsim_mem_is_host(src);
    if (dh && sh)
        return WAIT_DONE; /* host -> host */
    if (!dh && !sh)
        return WAIT_NONE; /* device -> device */
    if (!dh) {            /* host -> device */
        if (src == SCSIM_MEM_PAGEABLE) {
            if (!async)
                return WAIT_STAGED;
            return n <= scsim_g.pageable_stage_max ? STAGE_ONLY : WAIT_DONE;
        }
        return async ? WAIT_NONE : WAIT_DONE;
    }
    /* device -> host */
    if (async && dst != SCSIM_MEM_PAGEABLE)
        return WAIT_NONE;
    return WAIT_DONE;
}

/* Whether s is capturing: then nothing blocks, everything is recorded. */
static bool capturing(struct CUstream_st *s)
{
    return atomic_load(&scsim_g.ncaptures) > 0 && scsim_capture_id_of(s) != 0;
}

/* Queues w on s and blocks the host as the policy says.  For WAIT_STAGED
 * and STAGE_ONLY the source is copied to a staging buffer
 * (w->u.copy.src, n bytes).  extra: more dependencies (peer copies). */
static CUresult copy_submit(struct CUstream_st *s, scsim_work *w,
                            enum host_wait how, const scsim_deps *extra)
{
    CUresult r;
    if (how != WAIT_NONE && capturing(s))
        how = WAIT_NONE;
    bool staged = how == WAIT_STAGED || how == STAGE_ONLY;
    if (staged) {
        if (how == WAIT_STAGED) {
            r = scsim_stream_sync(s);
            if (r != CUDA_SUCCESS)
                return r;
        }
        void *stage = malloc(w->u.copy.n ? w->u.copy.n : 1);
        if (!stage)
            return CUDA_ERROR_OUT_OF_MEMORY;
        memcpy(stage, w->u.copy.src, w->u.copy.n);
        w->u.copy.src = stage;
        w->u.copy.owned = stage;
    }
    uint64_t seq;
    bool captured;
    /* An operation that blocks the host cannot be captured. */
    r = scsim_submit(s, w, extra ? extra->v : NULL, extra ? extra->n : 0,
                     how == WAIT_NONE, &seq, &captured);
    if (r != CUDA_SUCCESS) {
        if (staged) {
            free(w->u.copy.owned);
            w->u.copy.owned = NULL;
        }
        return r;
    }
    if ((how == WAIT_DONE || (how == WAIT_STAGED && w->u.copy.n > STAGE_BUFFER)) && !captured)
        scsim_wait((scsim_dep){s, seq});
    return CUDA_SUCCESS;
}

/* Which end must be device-accessible (device or pinned host memory,
 * which is mapped under unified addressing). */
enum { NEED_DST_DEV = 1, NEED_SRC_DEV = 2 };

static bool device_accessible(int kind)
{
    return kind != SCSIM_MEM_PAGEABLE;
}

static CUresult copy1d(void *dst, const void *src, size_t n, CUstream h,
                       bool pt, bool async, unsigned need)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    struct CUstream_st *s;
    r = scsim_stream_resolve(h, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (n == 0)
        return CUDA_SUCCESS;
    if (!dst || !src)
        return CUDA_ERROR_INVALID_VALUE;
    scsim_interval di = {.dev = -1}, si = {.dev = -1};
    int dk = scsim_mem_classify(dst, n, &di);
    int sk = scsim_mem_classify(src, n, &si);
    if (((need & NEED_DST_DEV) && !device_accessible(dk)) ||
        ((need & NEED_SRC_DEV) && !device_accessible(sk)))
        return CUDA_ERROR_INVALID_VALUE;
    scsim_work w = {.kind = SCSIM_W_COPY};
    w.u.copy.dst = dst;
    w.u.copy.src = src;
    w.u.copy.n = n;
    w.u.copy.dkind = dk;
    w.u.copy.skind = sk;
    w.u.copy.peer = dk == SCSIM_MEM_DEVICE && sk == SCSIM_MEM_DEVICE &&
                    di.dev != si.dev;
    if (!w.u.copy.peer || async)
        return copy_submit(s, &w, copy_policy(dk, sk, async, n), NULL);
    /* A synchronous peer copy: behind all work of the current device and
     * both ends' devices, and the host waits for it. */
    scsim_deps d;
    scsim_deps_init(&d);
    if (!capturing(s)) {
        scsim_device_prior(s->ctx, &d);
        if (di.dev >= 0 && di.dev < scsim_g.ndevices)
            scsim_device_prior(&scsim_g.ctx[di.dev], &d);
        if (si.dev >= 0 && si.dev < scsim_g.ndevices)
            scsim_device_prior(&scsim_g.ctx[si.dev], &d);
    }
    r = copy_submit(s, &w, WAIT_DONE, &d);
    scsim_deps_free(&d);
    return r;
}

#define DPTR(p) ((void *)(uintptr_t)(p))

/* ---------------------------------------------------------- 1D copies --- */

CUresult scsim_cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n)
{
    SCSIM_API(cuMemcpy);
    return SCSIM_API_RET(copy1d(DPTR(dst), DPTR(src), n, NULL, false, false, 0));
}

CUresult scsim_cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t n)
{
    SCSIM_API(cuMemcpy_ptds);
    return SCSIM_API_RET(copy1d(DPTR(dst), DPTR(src), n, NULL, true, false, 0));
}

CUresult scsim_cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n,
                             CUstream h)
{
    SCSIM_API(cuMemcpyAsync);
    return SCSIM_API_RET(copy1d(DPTR(dst), DPTR(src), n, h, false, true, 0));
}

CUresult scsim_cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t n,
                                  CUstream h)
{
    SCSIM_API(cuMemcpyAsync_ptsz);
    return SCSIM_API_RET(copy1d(DPTR(dst), DPTR(src), n, h, true, true, 0));
}

CUresult scsim_cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n)
{
    SCSIM_API(cuMemcpyHtoD_v2);
    return SCSIM_API_RET(copy1d(DPTR(dst), src, n, NULL, false, false, NEED_DST_DEV));
}

CUresult scsim_cuMemcpyHtoD_v2_ptds(CUdeviceptr dst, const void *src, size_t n)
{
    SCSIM_API(cuMemcpyHtoD_v2_ptds);
    return SCSIM_API_RET(copy1d(DPTR(dst), src, n, NULL, true, false, NEED_DST_DEV));
}

CUresult scsim_cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n)
{
    SCSIM_API(cuMemcpyDtoH_v2);
    return SCSIM_API_RET(copy1d(dst, DPTR(src), n, NULL, false, false, NEED_SRC_DEV));
}

CUresult scsim_cuMemcpyDtoH_v2_ptds(void *dst, CUdeviceptr src, size_t n)
{
    SCSIM_API(cuMemcpyDtoH_v2_ptds);
    return SCSIM_API_RET(copy1d(dst, DPTR(src), n, NULL, true, false, NEED_SRC_DEV));
}

CUresult scsim_cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n)
{
    SCSIM_API(cuMemcpyDtoD_v2);
    return SCSIM_API_RET(copy1d(DPTR(dst), DPTR(src), n, NULL, false, false,
                  NEED_DST_DEV | NEED_SRC_DEV));
}

CUresult scsim_cuMemcpyDtoD_v2_ptds(CUdeviceptr dst, CUdeviceptr src, size_t n)
{
    SCSIM_API(cuMemcpyDtoD_v2_ptds);
    return SCSIM_API_RET(copy1d(DPTR(dst), DPTR(src), n, NULL, true, false,
                  NEED_DST_DEV | NEED_SRC_DEV));
}

CUresult scsim_cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n,
                                    CUstream h)
{
    SCSIM_API(cuMemcpyHtoDAsync_v2);
    return SCSIM_API_RET(copy1d(DPTR(dst), src, n, h, false, true, NEED_DST_DEV));
}

CUresult scsim_cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dst, const void *src,
                                         size_t n, CUstream h)
{
    SCSIM_API(cuMemcpyHtoDAsync_v2_ptsz);
    return SCSIM_API_RET(copy1d(DPTR(dst), src, n, h, true, true, NEED_DST_DEV));
}

CUresult scsim_cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n,
                                    CUstream h)
{
    SCSIM_API(cuMemcpyDtoHAsync_v2);
    return SCSIM_API_RET(copy1d(dst, DPTR(src), n, h, false, true, NEED_SRC_DEV));
}

CUresult scsim_cuMemcpyDtoHAsync_v2_ptsz(void *dst, CUdeviceptr src, size_t n,
                                         CUstream h)
{
    SCSIM_API(cuMemcpyDtoHAsync_v2_ptsz);
    return SCSIM_API_RET(copy1d(dst, DPTR(src), n, h, true, true, NEED_SRC_DEV));
}

CUresult scsim_cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src,
                                    size_t n, CUstream h)
{
    SCSIM_API(cuMemcpyDtoDAsync_v2);
    return SCSIM_API_RET(copy1d(DPTR(dst), DPTR(src), n, h, false, true,
                  NEED_DST_DEV | NEED_SRC_DEV));
}

CUresult scsim_cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dst, CUdeviceptr src,
                                         size_t n, CUstream h)
{
    SCSIM_API(cuMemcpyDtoDAsync_v2_ptsz);
    return SCSIM_API_RET(copy1d(DPTR(dst), DPTR(src), n, h, true, true,
                  NEED_DST_DEV | NEED_SRC_DEV));
}

/* cuMemcpyPeer*: device memory of dctx's device from sctx's; within one
 * context a device-to-device copy.  Peer access need not be enabled
 * (the driver then stages the copy). */
static CUresult peer(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src,
                     CUcontext sctx, size_t n, CUstream h, bool pt,
                     bool async)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    if (!scsim_ctx_valid(dctx) || !scsim_ctx_valid(sctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    return copy1d(DPTR(dst), DPTR(src), n, h, pt, async,
                  NEED_DST_DEV | NEED_SRC_DEV);
}

CUresult scsim_cuMemcpyPeer(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src,
                            CUcontext sctx, size_t n)
{
    SCSIM_API(cuMemcpyPeer);
    return SCSIM_API_RET(peer(dst, dctx, src, sctx, n, NULL, false, false));
}

CUresult scsim_cuMemcpyPeer_ptds(CUdeviceptr dst, CUcontext dctx,
                                 CUdeviceptr src, CUcontext sctx, size_t n)
{
    SCSIM_API(cuMemcpyPeer_ptds);
    return SCSIM_API_RET(peer(dst, dctx, src, sctx, n, NULL, true, false));
}

CUresult scsim_cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dctx,
                                 CUdeviceptr src, CUcontext sctx, size_t n,
                                 CUstream h)
{
    SCSIM_API(cuMemcpyPeerAsync);
    return SCSIM_API_RET(peer(dst, dctx, src, sctx, n, h, false, true));
}

CUresult scsim_cuMemcpyPeerAsync_ptsz(CUdeviceptr dst, CUcontext dctx,
                                      CUdeviceptr src, CUcontext sctx,
                                      size_t n, CUstream h)
{
    SCSIM_API(cuMemcpyPeerAsync_ptsz);
    return SCSIM_API_RET(peer(dst, dctx, src, sctx, n, h, true, true));
}

/* ---------------------------------------------------------- 2D copies --- */

/* The address of one end of a 2D copy and the memory kind of its whole
 * extent. */
static CUresult end2d(CUmemorytype type, const void *host, CUdeviceptr dev,
                      size_t x, size_t y, size_t pitch, size_t width,
                      size_t height, char **addr, int *kind)
{
    const char *base;
    switch (type) {
    case CU_MEMORYTYPE_HOST:
        base = host;
        break;
    case CU_MEMORYTYPE_DEVICE:
    case CU_MEMORYTYPE_UNIFIED:
        base = DPTR(dev);
        break;
    case CU_MEMORYTYPE_ARRAY: {
        static atomic_int once;
        scsim_msg_once(&once, "CUDA arrays are not supported by the "
                              "simulator (2D copy to or from an array)");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (!base)
        return CUDA_ERROR_INVALID_VALUE;
    *addr = (char *)base + x + y * pitch;
    size_t extent = (height - 1) * pitch + width;
    *kind = scsim_mem_classify(*addr, extent, NULL);
    if (type == CU_MEMORYTYPE_DEVICE && !device_accessible(*kind))
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

static CUresult copy2d(const CUDA_MEMCPY2D *p, CUstream h, bool pt, bool async)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUstream_st *s;
    r = scsim_stream_resolve(h, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (p->WidthInBytes == 0 || p->Height == 0)
        return CUDA_SUCCESS;
    if (p->Height > 1 &&
        (p->srcPitch < p->WidthInBytes || p->dstPitch < p->WidthInBytes))
        return CUDA_ERROR_INVALID_VALUE;
    if (p->srcPitch > (size_t)scsim_device_attribute(CU_DEVICE_ATTRIBUTE_MAX_PITCH) ||
        p->dstPitch > (size_t)scsim_device_attribute(CU_DEVICE_ATTRIBUTE_MAX_PITCH))
        return CUDA_ERROR_INVALID_VALUE;
    char *dst, *src;
    int dk, sk;
    r = end2d(p->dstMemoryType, p->dstHost, p->dstDevice, p->dstXInBytes,
              p->dstY, p->dstPitch, p->WidthInBytes, p->Height, &dst, &dk);
    if (r != CUDA_SUCCESS)
        return r;
    r = end2d(p->srcMemoryType, p->srcHost, p->srcDevice, p->srcXInBytes,
              p->srcY, p->srcPitch, p->WidthInBytes, p->Height, &src, &sk);
    if (r != CUDA_SUCCESS)
        return r;
    enum host_wait how =
        copy_policy(dk, sk, async, p->WidthInBytes * p->Height);
    if (how != WAIT_NONE && capturing(s))
        how = WAIT_NONE;
    scsim_work w;
    if (how == WAIT_STAGED || how == STAGE_ONLY) {
        /* Stage the rows densely. */
        if (how == WAIT_STAGED) {
            r = scsim_stream_sync(s);
            if (r != CUDA_SUCCESS)
                return r;
        }
        size_t total = p->WidthInBytes * p->Height;
        char *stage = malloc(total);
        if (!stage)
            return CUDA_ERROR_OUT_OF_MEMORY;
        for (size_t i = 0; i < p->Height; i++)
            memcpy(stage + i * p->WidthInBytes, src + i * p->srcPitch,
                   p->WidthInBytes);
        w = (scsim_work){.kind = SCSIM_W_COPY2D};
        w.u.copy2d.dst = dst;
        w.u.copy2d.src = stage;
        w.u.copy2d.dpitch = p->dstPitch;
        w.u.copy2d.spitch = p->WidthInBytes;
        w.u.copy2d.width = p->WidthInBytes;
        w.u.copy2d.height = p->Height;
        w.u.copy2d.owned = stage;
        w.u.copy2d.dkind = dk;
        w.u.copy2d.skind = sk;
        r = scsim_submit(s, &w, NULL, 0, false, NULL, NULL);
        if (r != CUDA_SUCCESS)
            free(stage);
        return r;
    }
    w = (scsim_work){.kind = SCSIM_W_COPY2D};
    w.u.copy2d.dst = dst;
    w.u.copy2d.src = src;
    w.u.copy2d.dpitch = p->dstPitch;
    w.u.copy2d.spitch = p->srcPitch;
    w.u.copy2d.width = p->WidthInBytes;
    w.u.copy2d.height = p->Height;
    w.u.copy2d.dkind = dk;
    w.u.copy2d.skind = sk;
    uint64_t seq;
    bool captured;
    r = scsim_submit(s, &w, NULL, 0, how == WAIT_NONE, &seq, &captured);
    if (r == CUDA_SUCCESS && how == WAIT_DONE && !captured)
        scsim_wait((scsim_dep){s, seq});
    return r;
}

CUresult scsim_cuMemcpy2D_v2(const CUDA_MEMCPY2D *pCopy)
{
    SCSIM_API(cuMemcpy2D_v2);
    return SCSIM_API_RET(copy2d(pCopy, NULL, false, false));
}

CUresult scsim_cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D *pCopy)
{
    SCSIM_API(cuMemcpy2D_v2_ptds);
    return SCSIM_API_RET(copy2d(pCopy, NULL, true, false));
}

CUresult scsim_cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *pCopy)
{
    SCSIM_API(cuMemcpy2DUnaligned_v2);
    return SCSIM_API_RET(copy2d(pCopy, NULL, false, false));
}

CUresult scsim_cuMemcpy2DUnaligned_v2_ptds(const CUDA_MEMCPY2D *pCopy)
{
    SCSIM_API(cuMemcpy2DUnaligned_v2_ptds);
    return SCSIM_API_RET(copy2d(pCopy, NULL, true, false));
}

CUresult scsim_cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *pCopy, CUstream h)
{
    SCSIM_API(cuMemcpy2DAsync_v2);
    return SCSIM_API_RET(copy2d(pCopy, h, false, true));
}

CUresult scsim_cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D *pCopy, CUstream h)
{
    SCSIM_API(cuMemcpy2DAsync_v2_ptsz);
    return SCSIM_API_RET(copy2d(pCopy, h, true, true));
}

/* ------------------------------------------------------------ memsets --- */

static CUresult memset_any(CUdeviceptr dst, size_t pitch, uint32_t value,
                           unsigned elem, size_t width, size_t height,
                           CUstream h, bool pt, bool async)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    struct CUstream_st *s;
    r = scsim_stream_resolve(h, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (width == 0 || height == 0)
        return CUDA_SUCCESS;
    if (dst % elem != 0 || (height > 1 && (pitch < width * elem ||
                                           pitch % elem != 0)))
        return CUDA_ERROR_INVALID_VALUE;
    size_t extent = (height - 1) * pitch + width * elem;
    int kind = scsim_mem_classify(DPTR(dst), extent, NULL);
    if (!device_accessible(kind))
        return CUDA_ERROR_INVALID_VALUE;
    scsim_work w = {.kind = SCSIM_W_MEMSET};
    w.u.memset.dst = DPTR(dst);
    w.u.memset.pitch = height > 1 ? pitch : width * elem;
    w.u.memset.width = width;
    w.u.memset.height = height;
    w.u.memset.elem = elem;
    w.u.memset.value = value;
    w.u.memset.mkind = kind;
    bool block = !async && scsim_mem_is_pinned_host(kind) && !capturing(s);
    uint64_t seq;
    bool captured;
    r = scsim_submit(s, &w, NULL, 0, !block, &seq, &captured);
    if (r == CUDA_SUCCESS && block && !captured)
        scsim_wait((scsim_dep){s, seq});
    return r;
}

#define SCSIM_MEMSET1D(name, elem, type, async, pt)                           \
    CUresult scsim_##name(CUdeviceptr d, type v, size_t n)                    \
    {                                                                         \
        SCSIM_API(name);                                                      \
        return SCSIM_API_RET(memset_any(d, 0, v, elem, n, 1, NULL, pt,        \
                                        async));                              \
    }
#define SCSIM_MEMSET1D_ASYNC(name, elem, type, pt)                            \
    CUresult scsim_##name(CUdeviceptr d, type v, size_t n, CUstream h)        \
    {                                                                         \
        SCSIM_API(name);                                                      \
        return SCSIM_API_RET(memset_any(d, 0, v, elem, n, 1, h, pt, true));   \
    }
#define SCSIM_MEMSET2D(name, elem, type, pt)                                  \
    CUresult scsim_##name(CUdeviceptr d, size_t pitch, type v, size_t w,      \
                          size_t hgt)                                         \
    {                                                                         \
        SCSIM_API(name);                                                      \
        return SCSIM_API_RET(memset_any(d, pitch, v, elem, w, hgt, NULL, pt,  \
                                        false));                              \
    }
#define SCSIM_MEMSET2D_ASYNC(name, elem, type, pt)                            \
    CUresult scsim_##name(CUdeviceptr d, size_t pitch, type v, size_t w,      \
                          size_t hgt, CUstream h)                             \
    {                                                                         \
        SCSIM_API(name);                                                      \
        return SCSIM_API_RET(memset_any(d, pitch, v, elem, w, hgt, h, pt,     \
                                        true));                               \
    }

SCSIM_MEMSET1D(cuMemsetD8_v2, 1, unsigned char, false, false)
SCSIM_MEMSET1D(cuMemsetD8_v2_ptds, 1, unsigned char, false, true)
SCSIM_MEMSET1D(cuMemsetD16_v2, 2, unsigned short, false, false)
SCSIM_MEMSET1D(cuMemsetD16_v2_ptds, 2, unsigned short, false, true)
SCSIM_MEMSET1D(cuMemsetD32_v2, 4, unsigned int, false, false)
SCSIM_MEMSET1D(cuMemsetD32_v2_ptds, 4, unsigned int, false, true)
SCSIM_MEMSET1D_ASYNC(cuMemsetD8Async, 1, unsigned char, false)
SCSIM_MEMSET1D_ASYNC(cuMemsetD8Async_ptsz, 1, unsigned char, true)
SCSIM_MEMSET1D_ASYNC(cuMemsetD16Async, 2, unsigned short, false)
SCSIM_MEMSET1D_ASYNC(cuMemsetD16Async_ptsz, 2, unsigned short, true)
SCSIM_MEMSET1D_ASYNC(cuMemsetD32Async, 4, unsigned int, false)
SCSIM_MEMSET1D_ASYNC(cuMemsetD32Async_ptsz, 4, unsigned int, true)
SCSIM_MEMSET2D(cuMemsetD2D8_v2, 1, unsigned char, false)
SCSIM_MEMSET2D(cuMemsetD2D8_v2_ptds, 1, unsigned char, true)
SCSIM_MEMSET2D(cuMemsetD2D16_v2, 2, unsigned short, false)
SCSIM_MEMSET2D(cuMemsetD2D16_v2_ptds, 2, unsigned short, true)
SCSIM_MEMSET2D(cuMemsetD2D32_v2, 4, unsigned int, false)
SCSIM_MEMSET2D(cuMemsetD2D32_v2_ptds, 4, unsigned int, true)
SCSIM_MEMSET2D_ASYNC(cuMemsetD2D8Async, 1, unsigned char, false)
SCSIM_MEMSET2D_ASYNC(cuMemsetD2D8Async_ptsz, 1, unsigned char, true)
SCSIM_MEMSET2D_ASYNC(cuMemsetD2D16Async, 2, unsigned short, false)
SCSIM_MEMSET2D_ASYNC(cuMemsetD2D16Async_ptsz, 2, unsigned short, true)
SCSIM_MEMSET2D_ASYNC(cuMemsetD2D32Async, 4, unsigned int, false)
SCSIM_MEMSET2D_ASYNC(cuMemsetD2D32Async_ptsz, 4, unsigned int, true)
