/* src/sim/rt_mem.c: runtime memory management, copies and memsets, each
 * mapped to the driver call NVIDIA's runtime uses (docs/ARCHITECTURE.md, "The simulator"):
 * cudaMemcpy(Async) host->device is cuMemcpyHtoD(Async)_v2, device->host
 * cuMemcpyDtoH(Async)_v2, device->device cuMemcpyDtoD(Async)_v2,
 * cudaMemcpyDefault and host->host the unified cuMemcpy(Async);
 * cudaMemcpy2D is cuMemcpy2DUnaligned_v2; cudaMemset is cuMemsetD8_v2.
 * The _ptds/_ptsz entry points call the driver's per-thread variants. */
#include "config.h"

#include "sim/rt.h"

#include <string.h>

#define DPTR(p) ((CUdeviceptr)(uintptr_t)(p))

/* ---------------------------------------------------------- allocation --- */

SCSIM_EXPORT cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    SCRT_INIT();
    if (!devPtr)
        return scrt_ret(cudaErrorInvalidValue);
    /* cudaMalloc(&p, 0) succeeds with a null pointer. */
    if (size == 0) {
        *devPtr = NULL;
        return cudaSuccess;
    }
    CUdeviceptr d = 0;
    CUresult r = DRV(cuMemAlloc)(&d, size);
    if (r == CUDA_SUCCESS)
        *devPtr = (void *)(uintptr_t)d;
    return scrt_drv_ret(r);
}

SCSIM_EXPORT cudaError_t cudaFree(void *devPtr)
{
    /* cudaFree(NULL) only initializes the runtime. */
    SCRT_INIT();
    if (!devPtr)
        return cudaSuccess;
    return scrt_drv_ret(DRV(cuMemFree)(DPTR(devPtr)));
}

SCSIM_EXPORT cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch,
                                         size_t width, size_t height)
{
    SCRT_INIT();
    if (!devPtr || !pitch)
        return scrt_ret(cudaErrorInvalidValue);
    if (width == 0 || height == 0) {
        *devPtr = NULL;
        *pitch = 0;
        return cudaSuccess;
    }
    CUdeviceptr d = 0;
    CUresult r = DRV(cuMemAllocPitch)(&d, pitch, width, height, 4);
    if (r == CUDA_SUCCESS)
        *devPtr = (void *)(uintptr_t)d;
    return scrt_drv_ret(r);
}

SCSIM_EXPORT cudaError_t cudaHostAlloc(void **pHost, size_t size,
                                       unsigned int flags)
{
    SCRT_INIT();
    if (!pHost)
        return scrt_ret(cudaErrorInvalidValue);
    if (size == 0) {
        *pHost = NULL;
        return cudaSuccess;
    }
    /* cudaHostAlloc* flags are the driver's CU_MEMHOSTALLOC_* values. */
    return scrt_drv_ret(DRV(cuMemHostAlloc)(pHost, size, flags));
}

SCSIM_EXPORT cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    return cudaHostAlloc(ptr, size, cudaHostAllocDefault);
}

SCSIM_EXPORT cudaError_t cudaFreeHost(void *ptr)
{
    SCRT_INIT();
    if (!ptr)
        return cudaSuccess;
    return scrt_drv_ret(DRV(cuMemFreeHost)(ptr));
}

SCSIM_EXPORT cudaError_t cudaHostRegister(void *ptr, size_t size,
                                          unsigned int flags)
{
    SCRT_INIT();
    return scrt_drv_ret(DRV(cuMemHostRegister)(ptr, size, flags));
}

SCSIM_EXPORT cudaError_t cudaHostUnregister(void *ptr)
{
    SCRT_INIT();
    return scrt_drv_ret(DRV(cuMemHostUnregister)(ptr));
}

SCSIM_EXPORT cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost,
                                                  unsigned int flags)
{
    SCRT_INIT();
    if (!pDevice)
        return scrt_ret(cudaErrorInvalidValue);
    CUdeviceptr d = 0;
    CUresult r = DRV(cuMemHostGetDevicePointer)(&d, pHost, flags);
    if (r == CUDA_SUCCESS)
        *pDevice = (void *)(uintptr_t)d;
    return scrt_drv_ret(r);
}

static cudaError_t malloc_async(void **devPtr, size_t size,
                                cudaStream_t stream, bool pt)
{
    SCRT_INIT();
    if (!devPtr)
        return scrt_ret(cudaErrorInvalidValue);
    CUdeviceptr d = 0;
    CUresult r = DRVPT(pt, cuMemAllocAsync)(&d, size, stream);
    if (r == CUDA_SUCCESS)
        *devPtr = (void *)(uintptr_t)d;
    return scrt_drv_ret(r);
}

SCSIM_EXPORT cudaError_t cudaMallocAsync(void **devPtr, size_t size,
                                         cudaStream_t hStream)
{
    return malloc_async(devPtr, size, hStream, false);
}

cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size,
                                 cudaStream_t hStream)
{
    return malloc_async(devPtr, size, hStream, true);
}

static cudaError_t free_async(void *devPtr, cudaStream_t stream, bool pt)
{
    SCRT_INIT();
    return scrt_drv_ret(DRVPT(pt, cuMemFreeAsync)(DPTR(devPtr), stream));
}

SCSIM_EXPORT cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream)
{
    return free_async(devPtr, hStream, false);
}

cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t hStream)
{
    return free_async(devPtr, hStream, true);
}

SCSIM_EXPORT cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
    SCRT_INIT();
    return scrt_drv_ret(DRV(cuMemGetInfo)(free_bytes, total));
}

/* Since CUDA 11, memory the driver does not know is reported as
 * cudaMemoryTypeUnregistered with success (device -2, hostPointer the
 * pointer itself, as the CUDA 13.0 runtime answers on an H100). */
SCSIM_EXPORT cudaError_t
cudaPointerGetAttributes(struct cudaPointerAttributes *attributes,
                         const void *ptr)
{
    SCRT_INIT();
    if (!attributes)
        return scrt_ret(cudaErrorInvalidValue);
    unsigned int type = 0;
    CUdeviceptr dptr = 0;
    void *hptr = NULL;
    int ordinal = -2;
    CUpointer_attribute a[] = {
        CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
        CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
        CU_POINTER_ATTRIBUTE_HOST_POINTER,
        CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
    };
    void *data[] = {&type, &dptr, &hptr, &ordinal};
    CUresult r = DRV(cuPointerGetAttributes)(4, a, data, DPTR(ptr));
    if (r != CUDA_SUCCESS)
        return scrt_drv_ret(r);
    memset(attributes, 0, sizeof *attributes);
    switch (type) {
    case CU_MEMORYTYPE_DEVICE:
        attributes->type = cudaMemoryTypeDevice;
        break;
    case CU_MEMORYTYPE_HOST:
        attributes->type = cudaMemoryTypeHost;
        break;
    default:
        attributes->type = cudaMemoryTypeUnregistered;
        hptr = (void *)ptr;
        break;
    }
    attributes->device = ordinal;
    attributes->devicePointer = (void *)(uintptr_t)dptr;
    attributes->hostPointer = hptr;
    return cudaSuccess;
}

/* --------------------------------------------------------------- copies --- */

static cudaError_t memcpy_any(void *dst, const void *src, size_t count,
                              enum cudaMemcpyKind kind, cudaStream_t stream,
                              bool async, bool pt)
{
    SCRT_INIT();
    CUresult r;
    switch (kind) {
    case cudaMemcpyHostToDevice:
        r = async ? DRVPT(pt, cuMemcpyHtoDAsync)(DPTR(dst), src, count, stream)
                  : DRVPT(pt, cuMemcpyHtoD)(DPTR(dst), src, count);
        break;
    case cudaMemcpyDeviceToHost:
        r = async ? DRVPT(pt, cuMemcpyDtoHAsync)(dst, DPTR(src), count, stream)
                  : DRVPT(pt, cuMemcpyDtoH)(dst, DPTR(src), count);
        break;
    case cudaMemcpyDeviceToDevice:
        r = async ? DRVPT(pt, cuMemcpyDtoDAsync)(DPTR(dst), DPTR(src), count,
                                                 stream)
                  : DRVPT(pt, cuMemcpyDtoD)(DPTR(dst), DPTR(src), count);
        break;
    case cudaMemcpyHostToHost:
    case cudaMemcpyDefault:
        r = async ? DRVPT(pt, cuMemcpyAsync)(DPTR(dst), DPTR(src), count, stream)
                  : DRVPT(pt, cuMemcpy)(DPTR(dst), DPTR(src), count);
        break;
    default:
        return scrt_ret(cudaErrorInvalidMemcpyDirection);
    }
    return scrt_drv_ret(r);
}

SCSIM_EXPORT cudaError_t cudaMemcpy(void *dst, const void *src, size_t count,
                                    enum cudaMemcpyKind kind)
{
    SCRT_API(cudaMemcpy_v3020);
    return SCRT_API_RET(memcpy_any(dst, src, count, kind, NULL, false, false));
}

cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count,
                            enum cudaMemcpyKind kind)
{
    SCRT_API(cudaMemcpy_ptds_v7000);
    return SCRT_API_RET(memcpy_any(dst, src, count, kind, NULL, false, true));
}

SCSIM_EXPORT cudaError_t cudaMemcpyAsync(void *dst, const void *src,
                                         size_t count, enum cudaMemcpyKind kind,
                                         cudaStream_t stream)
{
    SCRT_API(cudaMemcpyAsync_v3020);
    return SCRT_API_RET(memcpy_any(dst, src, count, kind, stream, true, false));
}

cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count,
                                 enum cudaMemcpyKind kind, cudaStream_t stream)
{
    SCRT_API(cudaMemcpyAsync_ptsz_v7000);
    return SCRT_API_RET(memcpy_any(dst, src, count, kind, stream, true, true));
}

static cudaError_t memcpy2d(void *dst, size_t dpitch, const void *src,
                            size_t spitch, size_t width, size_t height,
                            enum cudaMemcpyKind kind, cudaStream_t stream,
                            bool async, bool pt)
{
    SCRT_INIT();
    if (height > 1 && (dpitch < width || spitch < width))
        return scrt_ret(cudaErrorInvalidPitchValue);
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    CUmemorytype st, dt;
    switch (kind) {
    case cudaMemcpyHostToHost:
        st = CU_MEMORYTYPE_HOST, dt = CU_MEMORYTYPE_HOST;
        break;
    case cudaMemcpyHostToDevice:
        st = CU_MEMORYTYPE_HOST, dt = CU_MEMORYTYPE_DEVICE;
        break;
    case cudaMemcpyDeviceToHost:
        st = CU_MEMORYTYPE_DEVICE, dt = CU_MEMORYTYPE_HOST;
        break;
    case cudaMemcpyDeviceToDevice:
        st = CU_MEMORYTYPE_DEVICE, dt = CU_MEMORYTYPE_DEVICE;
        break;
    case cudaMemcpyDefault:
        st = CU_MEMORYTYPE_UNIFIED, dt = CU_MEMORYTYPE_UNIFIED;
        break;
    default:
        return scrt_ret(cudaErrorInvalidMemcpyDirection);
    }
    c.srcMemoryType = st;
    c.srcHost = src;
    c.srcDevice = DPTR(src);
    c.srcPitch = spitch;
    c.dstMemoryType = dt;
    c.dstHost = dst;
    c.dstDevice = DPTR(dst);
    c.dstPitch = dpitch;
    c.WidthInBytes = width;
    c.Height = height;
    CUresult r = async ? DRVPT(pt, cuMemcpy2DAsync)(&c, stream)
                       : DRVPT(pt, cuMemcpy2DUnaligned)(&c);
    return scrt_drv_ret(r);
}

SCSIM_EXPORT cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src,
                                      size_t spitch, size_t width,
                                      size_t height, enum cudaMemcpyKind kind)
{
    return memcpy2d(dst, dpitch, src, spitch, width, height, kind, NULL, false,
                    false);
}

cudaError_t cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src,
                              size_t spitch, size_t width, size_t height,
                              enum cudaMemcpyKind kind)
{
    return memcpy2d(dst, dpitch, src, spitch, width, height, kind, NULL, false,
                    true);
}

SCSIM_EXPORT cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch,
                                           const void *src, size_t spitch,
                                           size_t width, size_t height,
                                           enum cudaMemcpyKind kind,
                                           cudaStream_t stream)
{
    return memcpy2d(dst, dpitch, src, spitch, width, height, kind, stream, true,
                    false);
}

cudaError_t cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src,
                                   size_t spitch, size_t width, size_t height,
                                   enum cudaMemcpyKind kind,
                                   cudaStream_t stream)
{
    return memcpy2d(dst, dpitch, src, spitch, width, height, kind, stream, true,
                    true);
}

/* cudaMemcpyPeer(Async): cuMemcpyPeer(Async) between the two devices'
 * primary contexts. */
static cudaError_t memcpy_peer(void *dst, int dstDevice, const void *src,
                               int srcDevice, size_t count,
                               cudaStream_t stream, bool async)
{
    SCRT_INIT();
    cudaError_t e = cudaSuccess;
    CUcontext dc = scrt_primary(dstDevice, &e);
    CUcontext sc = dc ? scrt_primary(srcDevice, &e) : NULL;
    if (!dc || !sc)
        return scrt_ret(e);
    CUresult r = async ? DRV(cuMemcpyPeerAsync)(DPTR(dst), dc, DPTR(src), sc,
                                                count, stream)
                       : DRV(cuMemcpyPeer)(DPTR(dst), dc, DPTR(src), sc, count);
    return scrt_drv_ret(r);
}

SCSIM_EXPORT cudaError_t cudaMemcpyPeer(void *dst, int dstDevice,
                                        const void *src, int srcDevice,
                                        size_t count)
{
    return memcpy_peer(dst, dstDevice, src, srcDevice, count, NULL, false);
}

SCSIM_EXPORT cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice,
                                             const void *src, int srcDevice,
                                             size_t count, cudaStream_t stream)
{
    return memcpy_peer(dst, dstDevice, src, srcDevice, count, stream, true);
}

/* -------------------------------------------------------------- memsets --- */

static cudaError_t memset_any(void *devPtr, size_t pitch, int value,
                              size_t width, size_t height, bool two_d,
                              cudaStream_t stream, bool async, bool pt)
{
    SCRT_INIT();
    unsigned char v = (unsigned char)value;
    CUresult r;
    if (two_d)
        r = async ? DRVPT(pt, cuMemsetD2D8Async)(DPTR(devPtr), pitch, v, width,
                                                 height, stream)
                  : DRVPT(pt, cuMemsetD2D8)(DPTR(devPtr), pitch, v, width,
                                            height);
    else
        r = async ? DRVPT(pt, cuMemsetD8Async)(DPTR(devPtr), v, width, stream)
                  : DRVPT(pt, cuMemsetD8)(DPTR(devPtr), v, width);
    return scrt_drv_ret(r);
}

SCSIM_EXPORT cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
    SCRT_API(cudaMemset_v3020);
    return SCRT_API_RET(memset_any(devPtr, 0, value, count, 1, false, NULL, false, false));
}

cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count)
{
    SCRT_API(cudaMemset_ptds_v7000);
    return SCRT_API_RET(memset_any(devPtr, 0, value, count, 1, false, NULL, false, true));
}

SCSIM_EXPORT cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count,
                                         cudaStream_t stream)
{
    SCRT_API(cudaMemsetAsync_v3020);
    return SCRT_API_RET(memset_any(devPtr, 0, value, count, 1, false, stream, true, false));
}

cudaError_t cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count,
                                 cudaStream_t stream)
{
    SCRT_API(cudaMemsetAsync_ptsz_v7000);
    return SCRT_API_RET(memset_any(devPtr, 0, value, count, 1, false, stream, true, true));
}

SCSIM_EXPORT cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value,
                                      size_t width, size_t height)
{
    return memset_any(devPtr, pitch, value, width, height, true, NULL, false,
                      false);
}

cudaError_t cudaMemset2D_ptds(void *devPtr, size_t pitch, int value,
                              size_t width, size_t height)
{
    return memset_any(devPtr, pitch, value, width, height, true, NULL, false,
                      true);
}

SCSIM_EXPORT cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch,
                                           int value, size_t width,
                                           size_t height, cudaStream_t stream)
{
    return memset_any(devPtr, pitch, value, width, height, true, stream, true,
                      false);
}

cudaError_t cudaMemset2DAsync_ptsz(void *devPtr, size_t pitch, int value,
                                   size_t width, size_t height,
                                   cudaStream_t stream)
{
    return memset_any(devPtr, pitch, value, width, height, true, stream, true,
                      true);
}
