/* src/sim/drv_timeline.c: the GPU timeline (timeline.h) and
 * cuGetExportTable, through which the simulated libcupti.so.13 and
 * libcudart.so.13 reach it.
 *
 * Correlation ids are assigned in traced driver entry points (and in the
 * runtime's, through api_begin): the outermost traced call of a thread
 * owns the id, nested calls (the runtime calling the driver) share it, and
 * every operation submitted during the call carries it to the record its
 * execution produces.  The stream worker takes the start and end
 * timestamps around the operation's execution. */
#include "config.h"

#include "sim/drv_api.h"
#include "sim/sim.h"
#include "sim/stubs.h"

#include <pthread.h>
#include <string.h>
#include <time.h>

atomic_uint scsim_tl_mask;
__thread uint32_t scsim_tl_corr;

static _Atomic(const scsim_tl_sink *) tl_sink;
static _Atomic(uint64_t (*)(void)) tl_clock;
static atomic_uint tl_next_corr;

static void set_sink(const scsim_tl_sink *s)
{
    atomic_store(&tl_sink, s);
}

static void set_kinds(unsigned mask)
{
    atomic_store(&scsim_tl_mask, mask);
}

static unsigned kinds(void)
{
    return atomic_load(&scsim_tl_mask);
}

static void set_clock(uint64_t (*fn)(void))
{
    atomic_store(&tl_clock, fn);
}

uint64_t scsim_tl_now(void)
{
    uint64_t (*fn)(void) = atomic_load_explicit(&tl_clock, memory_order_acquire);
    if (fn)
        return fn();
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void scsim_tl_emit(scsim_tl_rec *r)
{
    const scsim_tl_sink *s = atomic_load_explicit(&tl_sink, memory_order_acquire);
    if (!s || !s->emit)
        return;
    s->emit(r);
}

void scsim_tl_api_begin_slow(scsim_tl_api *a, int kind, uint32_t cbid)
{
    a->active = 0;
    if (scsim_tl_corr)
        return; /* nested: the outer call owns the correlation id */
    uint32_t c = atomic_fetch_add(&tl_next_corr, 1) + 1;
    if (c == 0) /* 0 means "none" */
        c = atomic_fetch_add(&tl_next_corr, 1) + 1;
    scsim_tl_corr = c;
    a->correlation = c;
    a->cbid = cbid;
    a->kind = kind;
    a->active = 1;
    const scsim_tl_sink *s = atomic_load_explicit(&tl_sink, memory_order_acquire);
    if (s && s->api_enter)
        s->api_enter(c);
    a->start = scsim_tl_now();
}

void scsim_tl_api_end(scsim_tl_api *a, int result)
{
    if (!a->active)
        return;
    uint64_t end = scsim_tl_now();
    scsim_tl_corr = 0;
    a->active = 0;
    if (!(atomic_load_explicit(&scsim_tl_mask, memory_order_relaxed) &
          SCSIM_TL_BIT(a->kind)))
        return;
    scsim_tl_rec r = {.kind = a->kind};
    r.start = a->start;
    r.end = end;
    r.correlation = a->correlation;
    r.cbid = a->cbid;
    r.thread_id = (uint32_t)(uintptr_t)pthread_self();
    r.result = result;
    scsim_tl_emit(&r);
}

static void api_begin(scsim_tl_api *a, int kind, uint32_t cbid)
{
    a->active = 0;
    if (atomic_load_explicit(&scsim_tl_mask, memory_order_relaxed))
        scsim_tl_api_begin_slow(a, kind, cbid);
}

/* Context ids are the device ordinal + 1 (one primary context each). */
static void rec_ctx(scsim_tl_rec *r, const struct CUctx_st *c)
{
    r->device_id = c ? (uint32_t)c->ordinal : 0;
    r->context_id = r->device_id + 1;
}

void scsim_tl_sync(int type, uint32_t stream_id, const struct CUctx_st *ctx,
                   uint64_t start, CUresult r)
{
    if (!(atomic_load_explicit(&scsim_tl_mask, memory_order_relaxed) &
          SCSIM_TL_BIT(SCSIM_TL_SYNC)))
        return;
    scsim_tl_rec rec = {.kind = SCSIM_TL_SYNC};
    rec.start = start;
    rec.end = scsim_tl_now();
    rec.correlation = scsim_tl_corr;
    rec.stream_id = stream_id;
    rec_ctx(&rec, ctx);
    rec.sync_type = type;
    rec.result = (int32_t)r;
    scsim_tl_emit(&rec);
}

static int tl_mem_kind(int k)
{
    switch (k) {
    case SCSIM_MEM_DEVICE:
        return SCSIM_TL_MEM_DEVICE;
    case SCSIM_MEM_PINNED:
    case SCSIM_MEM_REGISTERED:
        return SCSIM_TL_MEM_PINNED;
    default:
        return SCSIM_TL_MEM_PAGEABLE;
    }
}

static void copy_kinds(scsim_tl_rec *r, int dk, int sk, bool peer)
{
    r->dst_kind = tl_mem_kind(dk);
    r->src_kind = tl_mem_kind(sk);
    bool dd = dk == SCSIM_MEM_DEVICE, sd = sk == SCSIM_MEM_DEVICE;
    r->copy_kind = sd ? (dd ? (peer ? SCSIM_TL_PTOP : SCSIM_TL_DTOD)
                            : SCSIM_TL_DTOH)
                      : (dd ? SCSIM_TL_HTOD : SCSIM_TL_HTOH);
}

void scsim_tl_run(scsim_work *w, struct CUstream_st *s, uint32_t corr)
{
    unsigned mask = atomic_load_explicit(&scsim_tl_mask, memory_order_relaxed);
    int kind;
    switch (w->kind) {
    case SCSIM_W_KERNEL:
        kind = SCSIM_TL_KERNEL;
        break;
    case SCSIM_W_COPY:
    case SCSIM_W_COPY2D:
        kind = SCSIM_TL_MEMCPY;
        break;
    case SCSIM_W_MEMSET:
        kind = SCSIM_TL_MEMSET;
        break;
    case SCSIM_W_GRAPH: {
        /* Each replayed operation is its own record, with the launch's
         * correlation id. */
        scsim_body *b = w->u.graph.body;
        for (size_t i = 0; i < b->n; i++)
            scsim_tl_run(&b->w[i], s, corr);
        return;
    }
    default:
        scsim_work_run(w, s);
        return;
    }
    if (!(mask & SCSIM_TL_BIT(kind))) {
        scsim_work_run(w, s);
        return;
    }
    scsim_tl_rec r = {.kind = kind};
    r.start = scsim_tl_now();
    scsim_work_run(w, s);
    r.end = scsim_tl_now();
    r.correlation = corr;
    r.stream_id = (uint32_t)s->id;
    rec_ctx(&r, s->ctx);
    switch (w->kind) {
    case SCSIM_W_KERNEL: {
        const struct CUfunc_st *f = w->u.kernel.f;
        r.name = f->name;
        for (int i = 0; i < 3; i++) {
            r.grid[i] = w->u.kernel.grid[i];
            r.block[i] = w->u.kernel.block[i];
        }
        r.shmem = w->u.kernel.shmem;
        break;
    }
    case SCSIM_W_COPY:
        r.bytes = w->u.copy.n;
        copy_kinds(&r, w->u.copy.dkind, w->u.copy.skind, w->u.copy.peer);
        break;
    case SCSIM_W_COPY2D:
        r.bytes = (uint64_t)w->u.copy2d.width * w->u.copy2d.height;
        copy_kinds(&r, w->u.copy2d.dkind, w->u.copy2d.skind, false);
        break;
    case SCSIM_W_MEMSET:
        r.bytes = (uint64_t)w->u.memset.width * w->u.memset.elem *
                  w->u.memset.height;
        r.value = w->u.memset.value;
        r.mem_kind = scsim_mem_is_host(w->u.memset.mkind) ? SCSIM_TL_MEM_PINNED
                                                         : SCSIM_TL_MEM_DEVICE;
        break;
    }
    scsim_tl_emit(&r);
}

static int stream_id(void *h, int per_thread, uint32_t *id)
{
    struct CUstream_st *s;
    if (scsim_stream_resolve((CUstream)h, per_thread != 0, &s) != CUDA_SUCCESS)
        return -1;
    *id = (uint32_t)s->id;
    return 0;
}

/* The current context's id (1 without one, as before there were
 * several). */
static uint32_t context_id(void)
{
    CUcontext c = scsim_current_ctx();
    return c ? (uint32_t)c->ordinal + 1 : 1;
}

/* A context's id and device; -1 for a context that is not one of ours. */
static int context_info(void *ctx, uint32_t *id, uint32_t *device)
{
    struct CUctx_st *c = ctx ? (struct CUctx_st *)ctx : scsim_current_ctx();
    if (!c || !scsim_ctx_valid(c))
        return -1;
    if (id)
        *id = (uint32_t)c->ordinal + 1;
    if (device)
        *device = (uint32_t)c->ordinal;
    return 0;
}

static const scsim_tl_table tl_table = {
    .size = sizeof(scsim_tl_table),
    .set_sink = set_sink,
    .set_kinds = set_kinds,
    .kinds = kinds,
    .mask = &scsim_tl_mask,
    .set_clock = set_clock,
    .now = scsim_tl_now,
    .api_begin = api_begin,
    .api_end = scsim_tl_api_end,
    .stream_id = stream_id,
    .context_id = context_id,
    .context_info = context_info,
};

/* cuGetExportTable: only the simulator's timeline table; any other id is
 * what it was before there was one, an unsupported call. */
CUresult scsim_cuGetExportTable(const void **ppExportTable,
                                const CUuuid *pExportTableId)
{
    static const char id[16] = SCSIM_TL_UUID_BYTES;
    if (ppExportTable && pExportTableId &&
        memcmp(pExportTableId->bytes, id, sizeof id) == 0) {
        *ppExportTable = &tl_table;
        return CUDA_SUCCESS;
    }
    static atomic_int once;
    return (CUresult)scsim_stub_called(&once, "cuGetExportTable");
}
