/* memclass.c: what kind of memory a copy or memset touches (device or
 * managed, pinned host, pageable host), and so a copy's direction.  The
 * copy and memset rules (detect_copy.c) depend on it.
 */
#include "config.h"

#include "core.h"
#include "hostmem.h"
#include "kinds.h"
#include "memclass.h"
#include "real.h"

static int classify_miss(const void *p);

int sc_mem_classify(const void *p, size_t n)
{
    if (!p)
        return SC_MEM_UNKNOWN;
    if (sc_devmem_contains(p))
        return SC_MEM_DEVICE;
    if (sc_pinned_contains(p, n))
        return SC_MEM_PINNED;
    if (!sc_d.PointerGetAttributes)
        return SC_MEM_UNKNOWN;
    uint64_t p0 = sc_prof_t0();
    int r = classify_miss(p);
    sc_prof_add(sc_tls_self, SC_PH_MEMCLASS, p0, 1);
    return r;
}

/* Not in our interval sets: ask the driver. */
static int classify_miss(const void *p)
{
    /* cuPointerGetAttributes, not the singular: it succeeds for pageable
       memory (type 0) instead of failing slowly (docs/ARCHITECTURE.md, "Why the driver layer"). */
    unsigned type = 0;
    int managed = 0;
    uintptr_t start = 0;
    size_t size = 0;
    CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                   CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE};
    void *vals[] = {&type, &managed, &start, &size};
    if (sc_d.PointerGetAttributes(4, attrs, vals, (CUdeviceptr)(uintptr_t)p) != CUDA_SUCCESS)
        return SC_MEM_PAGEABLE;
    if (managed || type == CU_MEMORYTYPE_DEVICE || type == CU_MEMORYTYPE_ARRAY)
        return SC_MEM_DEVICE;
    if (type == CU_MEMORYTYPE_HOST) {
        /* Pinned behind our back (before we were loaded, or by an API we do
           not wrap): remember it so the fast path knows next time. */
        if (start && size)
            sc_pinned_add((const void *)start, size);
        return SC_MEM_PINNED;
    }
    return SC_MEM_PAGEABLE;
}

/* Direction and host side of a 2D/3D copy description. */
static void classify_memtypes(sc_op *op, CUmemorytype st, const void *sh, CUdeviceptr sd,
                              CUmemorytype dt, const void *dh, CUdeviceptr dd, size_t bytes)
{
    int s = st == CU_MEMORYTYPE_HOST ? SC_MEM_PAGEABLE : st == CU_MEMORYTYPE_UNIFIED ? SC_MEM_UNKNOWN : SC_MEM_DEVICE;
    int d = dt == CU_MEMORYTYPE_HOST ? SC_MEM_PAGEABLE : dt == CU_MEMORYTYPE_UNIFIED ? SC_MEM_UNKNOWN : SC_MEM_DEVICE;
    const void *sp = st == CU_MEMORYTYPE_HOST ? sh : (const void *)(uintptr_t)sd;
    const void *dp = dt == CU_MEMORYTYPE_HOST ? dh : (const void *)(uintptr_t)dd;
    if (s != SC_MEM_DEVICE)
        s = sc_mem_classify(sp, bytes);
    if (d != SC_MEM_DEVICE)
        d = sc_mem_classify(dp, bytes);
    op->bytes = bytes;
    int sh_ = s == SC_MEM_PINNED || s == SC_MEM_PAGEABLE, dh_ = d == SC_MEM_PINNED || d == SC_MEM_PAGEABLE;
    op->dir = sh_ && dh_ ? SC_DIR_H2H : sh_ ? SC_DIR_H2D : dh_ ? SC_DIR_D2H : SC_DIR_D2D;
    op->host = op->dir == SC_DIR_H2D ? sp : op->dir == SC_DIR_D2H ? dp : op->dir == SC_DIR_H2H ? sp : NULL;
    op->pageable = s == SC_MEM_PAGEABLE || d == SC_MEM_PAGEABLE;
}

/* A synchronous device-to-device copy between two devices' memory (unified
   addressing lets cuMemcpy, cuMemcpyDtoD and cudaMemcpy take them) is a
   peer copy.  Asked only once the process has used two contexts, and only
   for synchronous copies, which are the ones the rules treat apart. */
static void classify_peer(sc_op *op)
{
    if (!atomic_load_explicit(&sc_g.multi_ctx, memory_order_relaxed) || !sc_d.PointerGetAttributes ||
        !op->p1 || !op->p2)
        return;
    CUcontext c[2] = {NULL, NULL};
    int dev[2] = {-1, -1};
    const void *p[2] = {op->p1, op->p2};
    for (int i = 0; i < 2; i++) {
        CUpointer_attribute a[] = {CU_POINTER_ATTRIBUTE_CONTEXT, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
        void *v[] = {&c[i], &dev[i]};
        if (sc_d.PointerGetAttributes(2, a, v, (CUdeviceptr)(uintptr_t)p[i]) != CUDA_SUCCESS)
            return;
    }
    if (c[0] && c[1] && dev[0] >= 0 && dev[1] >= 0 && dev[0] != dev[1]) {
        op->dir = SC_DIR_PEER;
        op->peer_ctx[0] = c[0];
        op->peer_ctx[1] = c[1];
    }
}

void sc_classify_copy(sc_op *op)
{
    unsigned k = op->kind;
    if (sc_kind_is(k, SC_KF_2D)) {
        const CUDA_MEMCPY2D *p = op->p1;
        if (p)
            classify_memtypes(op, p->srcMemoryType, p->srcHost, p->srcDevice, p->dstMemoryType,
                              p->dstHost, p->dstDevice, p->WidthInBytes * p->Height);
    } else if (sc_kind_is(k, SC_KF_3D)) {
        const CUDA_MEMCPY3D *p = op->p1;
        if (p)
            classify_memtypes(op, p->srcMemoryType, p->srcHost, p->srcDevice, p->dstMemoryType,
                              p->dstHost, p->dstDevice, p->WidthInBytes * p->Height * p->Depth);
    } else if (sc_kind_is(k, SC_KF_UNIFIED)) {
        classify_memtypes(op, CU_MEMORYTYPE_UNIFIED, NULL, (CUdeviceptr)(uintptr_t)op->p2,
                          CU_MEMORYTYPE_UNIFIED, NULL, (CUdeviceptr)(uintptr_t)op->p1, op->bytes);
        if (sc_kind_is(k, SC_KF_SYNC) && op->dir == SC_DIR_D2D)
            classify_peer(op);
    } else if (sc_kind_is(k, SC_KF_SYNC) && op->dir == SC_DIR_D2D) {
        classify_peer(op);
    } else {
        /* Direction known from the entry point; only the host side to classify. */
        op->pageable = op->host && sc_mem_classify(op->host, op->bytes) == SC_MEM_PAGEABLE;
    }
}
