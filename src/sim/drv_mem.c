/* src/sim/drv_mem.c: device memory, page-locked host memory, pointer
 * attributes.
 *
 * Device memory is host memory (256-byte aligned, like cudaMalloc); a
 * CUdeviceptr is its address, so kernels' CPU twins dereference it.  Every
 * allocation and registration is an interval of one map, which classifies
 * pointers (device, pinned, pageable) without scanning.  Under unified
 * addressing one address space holds every device's memory: a device
 * allocation's interval carries its device (the current context's when it
 * was made), which is what tells a peer copy from a device-to-device one
 * and what cuPointerGetAttribute reports. */
#include "config.h"

#include "sim/drv_api.h"
#include "sim/sim.h"

#include <stdlib.h>
#include <string.h>

#define KIND_BIT(k) (1u << (k))

int scsim_mem_classify(const void *p, size_t n, scsim_interval *r)
{
    scsim_interval iv;
    uintptr_t a = (uintptr_t)p;
    if (!scsim_imap_find(a, &iv))
        return SCSIM_MEM_PAGEABLE;
    /* A range running past its allocation is not that kind of memory as
     * a whole; the callers treat it as pageable host memory (or reject a
     * device operand). */
    if (n > iv.size - (a - iv.base))
        return SCSIM_MEM_PAGEABLE;
    if (r)
        *r = iv;
    return iv.kind;
}

/* -------------------------------------------- release without sync --- */

/* With STREAMCHECK_SIM_ALLOC_SYNC=0 a free does not wait for the device;
 * the memory is then released only once the work that was queued when it
 * was freed has completed, so no CPU twin touches freed memory. */
typedef struct deferred {
    void *p;
    scsim_deps deps;
    struct deferred *next;
} deferred;

static pthread_mutex_t deferred_mu = PTHREAD_MUTEX_INITIALIZER;
static deferred *deferred_list;

static void reclaim_deferred(void)
{
    if (!__atomic_load_n(&deferred_list, __ATOMIC_RELAXED))
        return;
    pthread_mutex_lock(&deferred_mu);
    for (deferred **pp = &deferred_list; *pp;) {
        deferred *d = *pp;
        bool done = true;
        for (unsigned i = 0; i < d->deps.n && done; i++)
            done = scsim_done(d->deps.v[i]);
        if (done) {
            *pp = d->next;
            free(d->p);
            scsim_deps_free(&d->deps);
            free(d);
        } else {
            pp = &d->next;
        }
    }
    pthread_mutex_unlock(&deferred_mu);
}

/* synced: the caller synchronized the device first. */
static void release(void *p, bool synced)
{
    if (synced) {
        free(p);
        return;
    }
    /* Any device may still use it (peer access): wait for all of them. */
    deferred *d = malloc(sizeof *d);
    if (!d) {
        scsim_device_sync(NULL);
        free(p);
        return;
    }
    d->p = p;
    scsim_deps_init(&d->deps);
    scsim_device_prior(NULL, &d->deps);
    pthread_mutex_lock(&deferred_mu);
    d->next = deferred_list;
    deferred_list = d;
    pthread_mutex_unlock(&deferred_mu);
}

/* ------------------------------------------------------ device memory --- */

/* Device memory of the current context's device. */
static CUresult alloc_device(CUdeviceptr *dptr, size_t size)
{
    reclaim_deferred();
    struct CUctx_st *c = scsim_current_ctx();
    unsigned long long used = atomic_fetch_add(&c->used_mem, size);
    if (used + size > scsim_g.total_mem || used + size < used) {
        atomic_fetch_sub(&c->used_mem, size);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    void *p = NULL;
    if (posix_memalign(&p, 256, size) != 0) {
        atomic_fetch_sub(&c->used_mem, size);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    scsim_interval iv = {(uintptr_t)p, size, SCSIM_MEM_DEVICE, 0, c->ordinal};
    if (!scsim_imap_insert(&iv)) {
        free(p);
        atomic_fetch_sub(&c->used_mem, size);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *dptr = (CUdeviceptr)(uintptr_t)p;
    SCSIM_TRACE("alloc device %p (%zu bytes) on device %d", p, size,
                c->ordinal);
    return CUDA_SUCCESS;
}

static void unaccount(const scsim_interval *iv)
{
    if (iv->dev >= 0 && iv->dev < scsim_g.ndevices)
        atomic_fetch_sub(&scsim_g.ctx[iv->dev].used_mem, iv->size);
}

void scsim_mem_free_device(void *p)
{
    scsim_interval iv;
    if (!scsim_imap_remove((uintptr_t)p, KIND_BIT(SCSIM_MEM_DEVICE), &iv))
        return;
    unaccount(&iv);
    SCSIM_TRACE("free device %p", p);
    /* Stream-ordered: everything before the free on its stream is done,
     * but other streams may still use the memory. */
    release(p, false);
}

/* The checks every synchronous (de)allocation makes: context, capture
 * rules (cuThreadExchangeStreamCaptureMode: allocation is a potentially
 * unsafe call), then the allocation-time device synchronization;
 * *synced says whether it synchronized. */
static CUresult alloc_prologue(bool release_call, bool *synced)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    if (atomic_load(&scsim_g.ncaptures) > 0) {
        r = scsim_capture_check_unsafe();
        if (r != CUDA_SUCCESS)
            return r;
    }
    bool s = scsim_alloc_sync(release_call);
    if (synced)
        *synced = s;
    return CUDA_SUCCESS;
}

CUresult scsim_cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    if (!dptr || bytesize == 0)
        return CUDA_ERROR_INVALID_VALUE;
    r = alloc_prologue(false, NULL);
    if (r != CUDA_SUCCESS)
        return r;
    return alloc_device(dptr, bytesize);
}

CUresult scsim_cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch,
                                  size_t WidthInBytes, size_t Height,
                                  unsigned int ElementSizeBytes)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    if (!dptr || !pPitch || WidthInBytes == 0 || Height == 0 ||
        (ElementSizeBytes != 4 && ElementSizeBytes != 8 &&
         ElementSizeBytes != 16))
        return CUDA_ERROR_INVALID_VALUE;
    size_t pitch = (WidthInBytes + 511) / 512 * 512;
    if (pitch < WidthInBytes || Height > SIZE_MAX / pitch)
        return CUDA_ERROR_OUT_OF_MEMORY;
    r = alloc_prologue(false, NULL);
    if (r != CUDA_SUCCESS)
        return r;
    r = alloc_device(dptr, pitch * Height);
    if (r == CUDA_SUCCESS)
        *pPitch = pitch;
    return r;
}

CUresult scsim_cuMemFree_v2(CUdeviceptr dptr)
{
    /* Freeing 0 does nothing and succeeds (measured on the driver). */
    if (dptr == 0)
        return scsim_check_ctx();
    bool synced;
    CUresult r = alloc_prologue(true, &synced);
    if (r != CUDA_SUCCESS)
        return r;
    scsim_interval iv;
    void *p = (void *)(uintptr_t)dptr;
    if (!scsim_imap_remove((uintptr_t)p, KIND_BIT(SCSIM_MEM_DEVICE), &iv))
        return CUDA_ERROR_INVALID_VALUE;
    unaccount(&iv);
    SCSIM_TRACE("free device %p", p);
    release(p, synced);
    return CUDA_SUCCESS;
}

CUresult scsim_cuMemGetInfo_v2(size_t *free_bytes, size_t *total)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    if (!free_bytes || !total)
        return CUDA_ERROR_INVALID_VALUE;
    unsigned long long used = atomic_load(&scsim_current_ctx()->used_mem);
    *total = scsim_g.total_mem;
    *free_bytes = used < scsim_g.total_mem ? scsim_g.total_mem - used : 0;
    return CUDA_SUCCESS;
}

/* ------------------------------------------- stream-ordered allocator --- */

static CUresult stream_ordered_unsupported_in_capture(struct CUstream_st *s)
{
    if (atomic_load(&scsim_g.ncaptures) > 0 && scsim_capture_id_of(s)) {
        static atomic_int once;
        scsim_msg_once(&once, "stream-ordered allocation during stream "
                              "capture is not supported by the simulator");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    return CUDA_SUCCESS;
}

/* cuMemAllocAsync: the memory is usable by work queued after the
 * allocation on hStream; it is an operation of that stream (on the legacy
 * stream, with the legacy stream's implicit synchronization), but it
 * does not synchronize the device. */
static CUresult mem_alloc_async(CUdeviceptr *dptr, size_t bytesize,
                                CUstream hStream, bool pt)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    if (!dptr || bytesize == 0)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUstream_st *s;
    r = scsim_stream_resolve(hStream, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    r = stream_ordered_unsupported_in_capture(s);
    if (r != CUDA_SUCCESS)
        return r;
    r = alloc_device(dptr, bytesize);
    if (r != CUDA_SUCCESS)
        return r;
    scsim_work w = {.kind = SCSIM_W_NOP};
    r = scsim_submit(s, &w, NULL, 0, false, NULL, NULL);
    if (r != CUDA_SUCCESS)
        scsim_mem_free_device((void *)(uintptr_t)*dptr);
    return r;
}

CUresult scsim_cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize,
                               CUstream hStream)
{
    SCSIM_API(cuMemAllocAsync);
    return SCSIM_API_RET(mem_alloc_async(dptr, bytesize, hStream, false));
}

CUresult scsim_cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize,
                                    CUstream hStream)
{
    SCSIM_API(cuMemAllocAsync_ptsz);
    return SCSIM_API_RET(mem_alloc_async(dptr, bytesize, hStream, true));
}

/* cuMemFreeAsync: released when the stream reaches the operation. */
static CUresult mem_free_async(CUdeviceptr dptr, CUstream hStream, bool pt)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    scsim_interval iv;
    if (!scsim_imap_find((uintptr_t)dptr, &iv) ||
        iv.kind != SCSIM_MEM_DEVICE || iv.base != (uintptr_t)dptr)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUstream_st *s;
    r = scsim_stream_resolve(hStream, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    r = stream_ordered_unsupported_in_capture(s);
    if (r != CUDA_SUCCESS)
        return r;
    scsim_work w = {.kind = SCSIM_W_FREE};
    w.u.free.ptr = (void *)(uintptr_t)dptr;
    return scsim_submit(s, &w, NULL, 0, false, NULL, NULL);
}

CUresult scsim_cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
    SCSIM_API(cuMemFreeAsync);
    return SCSIM_API_RET(mem_free_async(dptr, hStream, false));
}

CUresult scsim_cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream)
{
    SCSIM_API(cuMemFreeAsync_ptsz);
    return SCSIM_API_RET(mem_free_async(dptr, hStream, true));
}

/* ------------------------------------------------- page-locked memory --- */

static CUresult host_alloc(void **pp, size_t bytesize, unsigned flags)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    if (!pp || bytesize == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (flags & ~(unsigned)(CU_MEMHOSTALLOC_PORTABLE |
                            CU_MEMHOSTALLOC_DEVICEMAP |
                            CU_MEMHOSTALLOC_WRITECOMBINED))
        return CUDA_ERROR_INVALID_VALUE;
    r = alloc_prologue(false, NULL);
    if (r != CUDA_SUCCESS)
        return r;
    reclaim_deferred();
    void *p = NULL;
    if (posix_memalign(&p, 4096, bytesize) != 0)
        return CUDA_ERROR_OUT_OF_MEMORY;
    scsim_interval iv = {(uintptr_t)p, bytesize, SCSIM_MEM_PINNED, flags,
                         scsim_current_ctx()->ordinal};
    if (!scsim_imap_insert(&iv)) {
        free(p);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *pp = p;
    SCSIM_TRACE("alloc pinned %p (%zu bytes)", p, bytesize);
    return CUDA_SUCCESS;
}

CUresult scsim_cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    return host_alloc(pp, bytesize, Flags);
}

CUresult scsim_cuMemAllocHost_v2(void **pp, size_t bytesize)
{
    return host_alloc(pp, bytesize, 0);
}

CUresult scsim_cuMemFreeHost(void *p)
{
    bool synced;
    CUresult r = alloc_prologue(true, &synced);
    if (r != CUDA_SUCCESS)
        return r;
    if (!scsim_imap_remove((uintptr_t)p, KIND_BIT(SCSIM_MEM_PINNED), NULL))
        return CUDA_ERROR_INVALID_VALUE;
    SCSIM_TRACE("free pinned %p", p);
    release(p, synced);
    return CUDA_SUCCESS;
}

CUresult scsim_cuMemHostRegister_v2(void *p, size_t bytesize,
                                    unsigned int Flags)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    if (!p || bytesize == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (Flags & ~(unsigned)(CU_MEMHOSTREGISTER_PORTABLE |
                            CU_MEMHOSTREGISTER_DEVICEMAP |
                            CU_MEMHOSTREGISTER_IOMEMORY |
                            CU_MEMHOSTREGISTER_READ_ONLY))
        return CUDA_ERROR_INVALID_VALUE;
    r = alloc_prologue(false, NULL);
    if (r != CUDA_SUCCESS)
        return r;
    scsim_interval iv = {(uintptr_t)p, bytesize, SCSIM_MEM_REGISTERED, Flags,
                         scsim_current_ctx()->ordinal};
    if (!scsim_imap_insert(&iv))
        return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
    SCSIM_TRACE("register %p (%zu bytes)", p, bytesize);
    return CUDA_SUCCESS;
}

CUresult scsim_cuMemHostUnregister(void *p)
{
    CUresult r = alloc_prologue(true, NULL);
    if (r != CUDA_SUCCESS)
        return r;
    if (!scsim_imap_remove((uintptr_t)p, KIND_BIT(SCSIM_MEM_REGISTERED), NULL))
        return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
    SCSIM_TRACE("unregister %p", p);
    return CUDA_SUCCESS;
}

CUresult scsim_cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p,
                                            unsigned int Flags)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    if (!pdptr || Flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    int kind = scsim_mem_classify(p, 1, NULL);
    if (!scsim_mem_is_pinned_host(kind))
        return CUDA_ERROR_INVALID_VALUE;
    /* Unified addressing: the device sees pinned memory at its host
     * address. */
    *pdptr = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}

CUresult scsim_cuMemHostGetFlags(unsigned int *pFlags, void *p)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    scsim_interval iv;
    if (!pFlags || !scsim_mem_is_pinned_host(scsim_mem_classify(p, 1, &iv)))
        return CUDA_ERROR_INVALID_VALUE;
    /* With unified addressing all page-locked memory is mapped: the driver
     * reports DEVICEMAP (measured on H100: also for cudaMallocHost and
     * cudaHostRegister memory allocated without it). */
    *pFlags = iv.flags | CU_MEMHOSTALLOC_DEVICEMAP;
    return CUDA_SUCCESS;
}

CUresult scsim_cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize,
                                       CUdeviceptr dptr)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    scsim_interval iv;
    if (scsim_mem_classify((void *)(uintptr_t)dptr, 1, &iv) !=
        SCSIM_MEM_DEVICE)
        return CUDA_ERROR_NOT_FOUND;
    if (pbase)
        *pbase = (CUdeviceptr)iv.base;
    if (psize)
        *psize = iv.size;
    return CUDA_SUCCESS;
}

/* ------------------------------------------------- pointer attributes --- */

static void put_bool(void *data, bool v)
{
    /* The documented type is "a boolean": one byte. */
    *(unsigned char *)data = v;
}

/* One attribute of a pointer; known says whether the driver knows it.
 * Its context and device are those that allocated it (page-locked memory
 * too: the context that allocated or registered it). */
static CUresult pointer_attribute(void *data, CUpointer_attribute a,
                                  CUdeviceptr ptr, bool known,
                                  const scsim_interval *iv)
{
    bool device = known && iv->kind == SCSIM_MEM_DEVICE;
    int dev = known && iv->dev >= 0 && iv->dev < scsim_g.ndevices ? iv->dev : 0;
    switch (a) {
    case CU_POINTER_ATTRIBUTE_CONTEXT:
        *(CUcontext *)data = known ? &scsim_g.ctx[dev] : NULL;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
        *(unsigned int *)data = !known ? 0u
                                : device ? (unsigned)CU_MEMORYTYPE_DEVICE
                                         : (unsigned)CU_MEMORYTYPE_HOST;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
        *(CUdeviceptr *)data = known ? ptr : 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        if (device)
            return CUDA_ERROR_INVALID_VALUE; /* not host accessible */
        *(void **)data = known ? (void *)(uintptr_t)ptr : NULL;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
    case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
    case CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE:
        put_bool(data, false);
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MAPPED:
        put_bool(data, known);
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID:
        *(unsigned long long *)data = known ? (unsigned long long)iv->base : 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
        *(int *)data = known ? dev : -2;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
        *(CUdeviceptr *)data = known ? (CUdeviceptr)iv->base : 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
        *(size_t *)data = known ? iv->size : 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
        *(unsigned int *)data = known ? 3u : 0u; /* read-write */
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
        *(unsigned long long *)data = 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
        *(CUmemoryPool *)data = NULL;
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

/* cuPointerGetAttribute on memory the driver does not know (pageable host
 * memory) fails with CUDA_ERROR_INVALID_VALUE. */
CUresult scsim_cuPointerGetAttribute(void *data, CUpointer_attribute attribute,
                                     CUdeviceptr ptr)
{
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!data)
        return CUDA_ERROR_INVALID_VALUE;
    scsim_interval iv;
    if (!scsim_imap_find((uintptr_t)ptr, &iv))
        return CUDA_ERROR_INVALID_VALUE;
    return pointer_attribute(data, attribute, ptr, true, &iv);
}

/* cuPointerGetAttributes: "Unlike cuPointerGetAttribute, this function
 * will not return an error when the ptr encountered is not a valid CUDA
 * pointer. Instead, the attributes are assigned default NULL values and
 * CUDA_SUCCESS is returned." */
CUresult scsim_cuPointerGetAttributes(unsigned int numAttributes,
                                      CUpointer_attribute *attributes,
                                      void **data, CUdeviceptr ptr)
{
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (numAttributes && (!attributes || !data))
        return CUDA_ERROR_INVALID_VALUE;
    scsim_interval iv = {0, 0, 0, 0, -1};
    bool known = scsim_imap_find((uintptr_t)ptr, &iv);
    for (unsigned i = 0; i < numAttributes; i++) {
        if (!data[i])
            return CUDA_ERROR_INVALID_VALUE;
        r = pointer_attribute(data[i], attributes[i], ptr, known, &iv);
        if (r != CUDA_SUCCESS) {
            if (attributes[i] == CU_POINTER_ATTRIBUTE_HOST_POINTER) {
                *(void **)data[i] = NULL;
                continue;
            }
            return r;
        }
    }
    return CUDA_SUCCESS;
}
