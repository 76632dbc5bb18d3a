/* analyze.c: the slow path.  sc_pre() runs before the real driver call,
 * sc_post() after it; together they apply the rules of rules.def, measure
 * the host time blocked in the call and whether other streams had unfinished
 * work at that moment, decide redirects, and keep the stream state.
 *
 * "Other streams had unfinished work" is measured, not assumed
 * (ARCHITECTURE.md §3): the streams marked busy by earlier submissions are
 * asked with cuStreamQuery, which also clears the marks of those that have
 * drained.  Nothing is queried while a stream capture is in progress, since
 * a query can invalidate a capture.  Per-thread default streams of other
 * threads cannot be queried from here; they count as busy until their
 * thread synchronizes.
 */
#include "config.h"

#include <pthread.h>
#include <string.h>

#include "callsites.h"
#include "findings.h"
#include "options.h"
#include "shim.h"

extern sc_options sc_opt;

/* Device facts learned after cuInit, for the report. */
char sc_device_name[256];
int sc_driver_version;

/* --------------------------------------------------------- contexts --- */
typedef struct sc_ctx {
    _Atomic(CUcontext) ctx;
    _Atomic uint64_t legacy_active;   /* token: the legacy stream has work */
} sc_ctx;

#define MAX_CTX 32
static sc_ctx ctxs[MAX_CTX];
static _Atomic int nctx;
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;

static sc_ctx *ctx_get(CUcontext c)
{
    int n = atomic_load(&nctx);
    for (int i = 0; i < n; i++)
        if (atomic_load(&ctxs[i].ctx) == c)
            return &ctxs[i];
    pthread_mutex_lock(&ctx_lock);
    n = atomic_load(&nctx);
    sc_ctx *r = NULL;
    for (int i = 0; i < n && !r; i++)
        if (atomic_load(&ctxs[i].ctx) == c)
            r = &ctxs[i];
    if (!r) {
        /* Beyond MAX_CTX contexts, the last slot stands for all the rest. */
        r = &ctxs[n < MAX_CTX ? n : MAX_CTX - 1];
        if (n < MAX_CTX) {
            atomic_store(&r->ctx, c);
            atomic_store(&nctx, n + 1);
        }
    }
    pthread_mutex_unlock(&ctx_lock);
    return r;
}

int sc_module_slot_is_cublas(unsigned slot);

static CUcontext current_ctx(void)
{
    CUcontext c = NULL;
    if (sc_d.CtxGetCurrent)
        sc_d.CtxGetCurrent(&c);
    return c;
}

/* The current context, asked of the driver at most once per call. */
static CUcontext op_ctx(sc_op *op)
{
    if (!op->has_ctx) {
        op->ctx = current_ctx();
        op->has_ctx = 1;
    }
    return op->ctx;
}

static uint64_t new_token(sc_thread *t)
{
    return ((uint64_t)(t->idx + 1) << 40) | (++t->seq & ((1ull << 40) - 1));
}

static void active_dec(void)
{
    unsigned n = atomic_load(&sc_g.n_active);
    while (n && !atomic_compare_exchange_weak(&sc_g.n_active, &n, n - 1))
        ;
}

/* Clears a busy mark if nobody marked it again since we read tok. */
static void unmark(_Atomic uint64_t *a, uint64_t tok)
{
    if (tok && atomic_compare_exchange_strong(a, &tok, 0))
        active_dec();
}

/* 1 if the stream is busy; clears its mark when it is not.  h may be
   CU_STREAM_LEGACY or CU_STREAM_PER_THREAD (the calling thread's). */
static int query(_Atomic uint64_t *mark, CUstream h)
{
    uint64_t tok = atomic_load(mark);
    if (!tok)
        return 0;
    CUresult r = sc_d.StreamQuery ? sc_d.StreamQuery(h) : CUDA_ERROR_NOT_INITIALIZED;
    if (r == CUDA_ERROR_NOT_READY)
        return 1;
    unmark(mark, tok);
    return 0;
}

/* The calling thread's per-thread lane: its per-thread stream and, with
   --redirect-method=stream, the streams its legacy work went to. */
static int query_ptds(sc_thread *t)
{
    uint64_t tok = atomic_load(&t->ptds_active);
    if (!tok)
        return 0;
    unsigned gen = atomic_load(&sc_g.ctx_gen);
    for (unsigned i = 0; i < SC_OWN_MAX; i++)
        if (t->own[i].stream && t->own[i].gen == gen && sc_d.StreamQuery &&
            sc_d.StreamQuery(t->own[i].stream) == CUDA_ERROR_NOT_READY)
            return 1;
    return query(&t->ptds_active, CU_STREAM_PER_THREAD);
}

/* ---------------------------------------------------- busy streams --- */
typedef struct busy_q {
    CUcontext ctx;           /* only this context; NULL: all */
    const sc_stream *skip;   /* the caller's own stream */
    int skip_legacy, skip_ptds;
    uint8_t dir;             /* SC702: count only streams whose last copy went this way */
    sc_thread *self;
    unsigned busy;
    unsigned unverified;     /* busy by mark only (other threads' per-thread streams) */
    unsigned marked;         /* marks left after the queries */
} busy_q;

static void q_stream(sc_stream *r, void *arg)
{
    busy_q *q = arg;
    if (r == q->skip || (q->ctx && r->ctx && r->ctx != q->ctx))
        return;
    if (atomic_load(&r->capturing) || !atomic_load(&r->active))
        return;
    if (q->dir && atomic_load(&r->last_copy) != q->dir)
        return;
    if (query(&r->active, r->handle)) {
        q->busy++;
        q->marked++;
    }
}

static void q_thread(sc_thread *t, void *arg)
{
    busy_q *q = arg;
    if (!atomic_load(&t->in_use) || !atomic_load(&t->ptds_active) || q->dir)
        return;
    if (t == q->self) {
        if (q->skip_ptds || t->capturing_ptds)
            return;
        if (query_ptds(t)) {
            q->busy++;
            q->marked++;
        }
    } else {
        q->busy++;
        q->unverified++;
        q->marked++;
    }
}

/* Streams other than the caller's that have unfinished work right now. */
static unsigned busy_others(sc_thread *t, busy_q *q)
{
    q->self = t;
    if (atomic_load(&sc_g.n_capturing) > 0 || !sc_d.StreamQuery)
        return 0;
    sc_streams_foreach(q_stream, q);
    sc_threads_foreach(q_thread, q);
    if (!q->skip_legacy && !q->dir) {
        sc_ctx *c = ctx_get(q->ctx ? q->ctx : current_ctx());
        if (query(&c->legacy_active, CU_STREAM_LEGACY)) {
            q->busy++;
            q->marked++;
        }
    }
    return q->busy;
}

/* ---------------------------------------------------------- helpers --- */
static void event(sc_op *op, unsigned rule, unsigned sev, int pending)
{
    if (op->nev < SC_MAX_EVENTS)
        op->ev[op->nev++] = (sc_event){(uint8_t)rule, (uint8_t)sev, (uint8_t)(pending != 0), 0, 0};
}

static void resolve_lane(sc_thread *t, sc_op *op)
{
    if (op->lane)
        return;
    CUstream s = op->stream;
    if (s == NULL)
        op->lane = op->pt ? SC_LANE_PTDS : SC_LANE_LEGACY;
    else if (s == CU_STREAM_LEGACY)
        op->lane = SC_LANE_LEGACY;
    else if (s == CU_STREAM_PER_THREAD)
        op->lane = SC_LANE_PTDS;
    else {
        op->lane = SC_LANE_CREATED;
        op->srec = sc_stream_lookup(t, s);
        if (!op->srec)
            op->srec = sc_stream_learn(s);
    }
}

static int lane_capturing(sc_thread *t, const sc_op *op)
{
    if (op->lane == SC_LANE_CREATED)
        return op->srec && atomic_load(&op->srec->capturing);
    if (op->lane == SC_LANE_PTDS)
        return t->capturing_ptds;
    return 0;
}

static _Atomic uint64_t *lane_mark(sc_thread *t, sc_op *op)
{
    if (op->lane == SC_LANE_CREATED)
        return op->srec ? &op->srec->active : NULL;
    if (op->lane == SC_LANE_PTDS)
        return &t->ptds_active;
    if (op->lane == SC_LANE_LEGACY)
        return &ctx_get(op_ctx(op))->legacy_active;
    return NULL;
}

/* Created streams alive in ctx, and how many of them are blocking. */
struct count_q { CUcontext ctx; unsigned all, blocking; };
static void count_stream(sc_stream *r, void *arg)
{
    struct count_q *c = arg;
    if (c->ctx && r->ctx && r->ctx != c->ctx)
        return;
    c->all++;
    if (!(r->flags & CU_STREAM_NON_BLOCKING))
        c->blocking++;
}

/* Memory kind of an address: device (or managed), pinned host, pageable host. */
enum { MEM_UNKNOWN, MEM_DEVICE, MEM_PINNED, MEM_PAGEABLE };

static int classify(const void *p, size_t n)
{
    if (!p)
        return MEM_UNKNOWN;
    if (sc_devmem_contains(p))
        return MEM_DEVICE;
    if (sc_pinned_contains(p, n))
        return MEM_PINNED;
    if (!sc_d.PointerGetAttributes)
        return MEM_UNKNOWN;
    /* cuPointerGetAttributes, not the singular: it succeeds for pageable
       memory (type 0) instead of failing slowly (ARCHITECTURE.md §2). */
    unsigned type = 0;
    int managed = 0;
    uintptr_t start = 0;
    size_t size = 0;
    CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                   CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE};
    void *vals[] = {&type, &managed, &start, &size};
    if (sc_d.PointerGetAttributes(4, attrs, vals, (CUdeviceptr)(uintptr_t)p) != CUDA_SUCCESS)
        return MEM_PAGEABLE;
    if (managed || type == CU_MEMORYTYPE_DEVICE || type == CU_MEMORYTYPE_ARRAY)
        return MEM_DEVICE;
    if (type == CU_MEMORYTYPE_HOST) {
        /* Pinned behind our back (before we were loaded, or by an API we do
           not wrap): remember it so the fast path knows next time. */
        if (start && size)
            sc_pinned_add((const void *)start, size);
        return MEM_PINNED;
    }
    return MEM_PAGEABLE;
}

/* Direction and host side of a 2D/3D copy description. */
static void classify_memtypes(sc_op *op, CUmemorytype st, const void *sh, CUdeviceptr sd,
                              CUmemorytype dt, const void *dh, CUdeviceptr dd, size_t bytes)
{
    int s = st == CU_MEMORYTYPE_HOST ? MEM_PAGEABLE : st == CU_MEMORYTYPE_UNIFIED ? MEM_UNKNOWN : MEM_DEVICE;
    int d = dt == CU_MEMORYTYPE_HOST ? MEM_PAGEABLE : dt == CU_MEMORYTYPE_UNIFIED ? MEM_UNKNOWN : MEM_DEVICE;
    const void *sp = st == CU_MEMORYTYPE_HOST ? sh : (const void *)(uintptr_t)sd;
    const void *dp = dt == CU_MEMORYTYPE_HOST ? dh : (const void *)(uintptr_t)dd;
    if (s != MEM_DEVICE)
        s = classify(sp, bytes);
    if (d != MEM_DEVICE)
        d = classify(dp, bytes);
    op->bytes = bytes;
    int sh_ = s == MEM_PINNED || s == MEM_PAGEABLE, dh_ = d == MEM_PINNED || d == MEM_PAGEABLE;
    op->dir = sh_ && dh_ ? SC_DIR_H2H : sh_ ? SC_DIR_H2D : dh_ ? SC_DIR_D2H : SC_DIR_D2D;
    op->host = op->dir == SC_DIR_H2D ? sp : op->dir == SC_DIR_D2H ? dp : op->dir == SC_DIR_H2H ? sp : NULL;
    op->pageable = s == MEM_PAGEABLE || d == MEM_PAGEABLE;
}

static void classify_copy(sc_op *op)
{
    switch (op->kind) {
    case SC_K_COPY2D:
    case SC_K_SCOPY2D: {
        const CUDA_MEMCPY2D *p = op->p1;
        if (p)
            classify_memtypes(op, p->srcMemoryType, p->srcHost, p->srcDevice, p->dstMemoryType,
                              p->dstHost, p->dstDevice, p->WidthInBytes * p->Height);
        return;
    }
    case SC_K_COPY3D:
    case SC_K_SCOPY3D: {
        const CUDA_MEMCPY3D *p = op->p1;
        if (p)
            classify_memtypes(op, p->srcMemoryType, p->srcHost, p->srcDevice, p->dstMemoryType,
                              p->dstHost, p->dstDevice, p->WidthInBytes * p->Height * p->Depth);
        return;
    }
    case SC_K_COPY_U:
    case SC_K_SCOPY_U:
        classify_memtypes(op, CU_MEMORYTYPE_UNIFIED, NULL, (CUdeviceptr)(uintptr_t)op->p2,
                          CU_MEMORYTYPE_UNIFIED, NULL, (CUdeviceptr)(uintptr_t)op->p1, op->bytes);
        return;
    default:
        /* Direction known from the entry point; only the host side to classify. */
        op->pageable = op->host && classify(op->host, op->bytes) == MEM_PAGEABLE;
        return;
    }
}

/* --------------------------------------------------------- redirect --- */
/* --redirect-method=stream: the thread's own blocking stream in ctx, and
   the event that orders it with the per-thread stream, made on first use.
   NULL when none can be had (the caller then uses the per-thread entry
   point).  Driver API, cuStreamCreate: CU_STREAM_DEFAULT makes a stream
   that synchronizes with the legacy stream both ways, as the per-thread
   default stream does (Driver API, 3. Stream synchronization behavior). */
static sc_own *own_stream(sc_thread *t, CUcontext ctx)
{
    unsigned gen = atomic_load(&sc_g.ctx_gen);
    sc_own *free_slot = NULL;
    for (unsigned i = 0; i < SC_OWN_MAX; i++) {
        sc_own *o = &t->own[i];
        if (o->stream && o->gen != gen)
            *o = (sc_own){0};   /* went with its context: nothing to destroy */
        if (o->stream && o->ctx == ctx)
            return o;
        if (!o->stream && !free_slot)
            free_slot = o;
    }
    if (!free_slot || !ctx || !sc_d.StreamCreate || !sc_d.StreamDestroy || !sc_d.EventCreate ||
        !sc_d.EventRecord || !sc_d.StreamWaitEvent)
        return NULL;
    CUstream s = NULL;
    CUevent e = NULL;
    if (sc_d.StreamCreate(&s, CU_STREAM_DEFAULT) != CUDA_SUCCESS)
        return NULL;
    if (sc_d.EventCreate(&e, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS) {
        sc_d.StreamDestroy(s);
        return NULL;
    }
    *free_slot = (sc_own){s, e, ctx, gen};
    t->has_own = 1;
    return free_slot;
}

/* A thread with a redirect stream also sends work to its per-thread stream
   itself (code built with --default-stream per-thread, or naming
   cudaStreamPerThread).  The per-thread stream would have kept that work
   in order with the thread's legacy work, and the recompile would too:
   order it after the redirect stream's work here, and the redirect
   stream's next work after it in sc_post.  Not during a capture, where
   nothing is redirected and a wait would pull outside work into a graph. */
static void order_with_own(sc_thread *t, sc_op *op)
{
    if (atomic_load(&sc_g.n_capturing) > 0)
        return;
    CUcontext ctx = op_ctx(op);
    unsigned gen = atomic_load(&sc_g.ctx_gen);
    for (unsigned i = 0; i < SC_OWN_MAX; i++) {
        sc_own *o = &t->own[i];
        if (o->stream && o->gen == gen && o->ctx == ctx) {
            if (sc_d.EventRecord(o->event, o->stream) == CUDA_SUCCESS &&
                sc_d.StreamWaitEvent(CU_STREAM_PER_THREAD, o->event, 0) == CUDA_SUCCESS)
                op->rd_chain = o;
            return;
        }
    }
}

static void redirect(sc_thread *t, sc_op *op, struct count_q *cq)
{
    if (!sc_g.redirect || op->lane != SC_LANE_LEGACY)
        return;
    if (op->stream == CU_STREAM_LEGACY) {
        op->redirected = SC_RD_EXPLICIT_LEGACY;
        return;
    }
    if (atomic_load(&sc_g.n_capturing) > 0) {
        /* PG, Graphs > Stream Capture: legacy-stream work during a capture
           is an error the program must keep seeing; never touch it. */
        op->redirected = SC_RD_CAPTURE;
        return;
    }
    struct count_q local = {op_ctx(op), 0, 0};
    if (!cq) {
        sc_streams_foreach(count_stream, &local);
        cq = &local;
    }
    if (cq->blocking) {
        /* DRV, 3. Stream synchronization behavior: the legacy stream waits
           for blocking streams and they wait for it; the per-thread stream
           does not.  Moving this work would drop that ordering. */
        op->redirected = SC_RD_BLOCKING;
        return;
    }
    sc_own *own = sc_g.redirect_method == SC_RDM_STREAM ? own_stream(t, op_ctx(op)) : NULL;
    if (own && op->streamp) {
        *op->streamp = own->stream;
    } else if (own && op->cfgp && *op->cfgp) {
        op->cfg = **op->cfgp;
        op->cfg.hStream = own->stream;
        *op->cfgp = &op->cfg;
    } else if (sc_g.redirect_method == SC_RDM_HANDLE && op->streamp) {
        *op->streamp = CU_STREAM_PER_THREAD;
    } else {
        unsigned twin = sc_apis[op->id].twin;
        void *fn = twin != SC_NO_API ? sc_real_get(twin) : NULL;
        if (!fn) {
            op->redirected = SC_RD_NO_ENTRY;
            return;
        }
        if (own) {
            /* A synchronous copy or memset (no stream parameter) goes to
               the per-thread stream: after the own stream's work, and
               before its next (sc_post).  If that cannot be arranged it
               stays on the legacy stream, which orders it with the own
               stream (blocking) anyway. */
            if (sc_d.EventRecord(own->event, own->stream) != CUDA_SUCCESS ||
                sc_d.StreamWaitEvent(CU_STREAM_PER_THREAD, own->event, 0) != CUDA_SUCCESS) {
                op->redirected = SC_RD_NO_ORDER;
                return;
            }
            op->rd_chain = own;
        }
        op->call = fn;
    }
    op->redirected = SC_RD_REDIRECTED;
    op->lane = SC_LANE_PTDS;
}

/* -------------------------------------------------------- SC701 etc --- */
static void check_queues(sc_thread *t, sc_op *op)
{
    /* Count every busy stream (ours included: it is about to get work). */
    busy_q q = {.ctx = NULL, .skip = op->lane == SC_LANE_CREATED ? op->srec : NULL,
                .skip_legacy = op->lane == SC_LANE_LEGACY, .skip_ptds = op->lane == SC_LANE_PTDS};
    unsigned busy = busy_others(t, &q) + 1;
    atomic_store(&sc_g.n_active, q.marked + 1);   /* exact again after the queries */
    if (busy > sc_g.max_conn)
        event(op, SC_RULE_SC701, SC_SEV_WARNING, 1);
}

static void mark_lane(sc_thread *t, sc_op *op)
{
    if (lane_capturing(t, op))
        return;
    _Atomic uint64_t *m = lane_mark(t, op);
    if (!m)
        return;
    uint64_t old = atomic_load_explicit(m, memory_order_relaxed);
    atomic_store_explicit(m, new_token(t), memory_order_relaxed);
    if (!old) {
        unsigned n = atomic_fetch_add(&sc_g.n_active, 1) + 1;
        if (n > sc_g.max_conn)
            op->marks |= SC_M_CHECK701;   /* check the hardware queues after the rules */
    }
}

/* ------------------------------------------------- legacy submissions --- */
/* Everything that lands on the legacy stream: launches, async copies and
   memsets, and the synchronous copies and memsets that run there.  SC102
   and SC103 are about all of them; redirect may move them. */
static void legacy_common(sc_thread *t, sc_op *op, struct count_q *cq)
{
    if (op->kind == SC_K_WAIT_EVENT) {
        redirect(t, op, cq);
        return;
    }
    /* SC103 is judged at report time, once we know how many threads
       shared the legacy stream; here we count where its work came from. */
    if (!t->used_legacy) {
        t->used_legacy = 1;
        atomic_fetch_add(&sc_g.legacy_threads, 1);
    }
    op->marks |= SC_M_LEGACY;
    /* SC102: every blocking stream of the context must drain first; the
       finding belongs to the call that created it. */
    if (cq->blocking)
        op->marks |= SC_M_SC102;
    redirect(t, op, cq);
}

static void legacy_submission(sc_thread *t, sc_op *op, int is_cublas)
{
    /* The common case of a one-stream program (every launch of a default
       PyTorch program): no context lookup, no stream walk. */
    CUcontext ctx = NULL;
    struct count_q cq = {NULL, 0, 0};
    if (atomic_load_explicit(&sc_g.n_live, memory_order_relaxed)) {
        ctx = op_ctx(op);
        cq.ctx = ctx;
        sc_streams_foreach(count_stream, &cq);
    }
    int others = cq.all > 0 || atomic_load(&sc_g.ptds_used);

    /* Memsets report SC202 and waits are not work; the rest is SC101, or
       SC601 when cuBLAS launched it. */
    if (op->kind != SC_K_WAIT_EVENT && op->kind != SC_K_MEMSET) {
        int pending = 0;
        if (others) {
            busy_q q = {.ctx = ctx, .skip_legacy = 1};
            pending = busy_others(t, &q) > 0;
        }
        if (is_cublas && others)
            event(op, SC_RULE_SC601, SC_SEV_WARNING, pending);
        else
            event(op, SC_RULE_SC101, others ? SC_SEV_WARNING : SC_SEV_NOTE, pending);
    }
    legacy_common(t, op, &cq);
}

struct sc102_q { sc_thread *t; sc_op *op; CUcontext ctx; };
static void sc102_stream(sc_stream *r, void *arg)
{
    struct sc102_q *q = arg;
    if (r->flags & CU_STREAM_NON_BLOCKING || (q->ctx && r->ctx && r->ctx != q->ctx))
        return;
    int busy = atomic_load(&sc_g.n_capturing) == 0 && !atomic_load(&r->capturing) &&
               query(&r->active, r->handle);
    sc_finding_add(q->t, SC_RULE_SC102, SC_SEV_WARNING, q->op->id, sc_tls_rt, r->create_site, 0, busy, 0, 1);
}

/* Work submitted to a stream: launches, async copies and memsets, host
   functions, graphs, event records and waits, stream-ordered allocation. */
static void submission(sc_thread *t, sc_op *op)
{
    resolve_lane(t, op);
    if (lane_capturing(t, op))
        return;     /* recorded into a graph: its cost comes with the graph launch */
    if (op->lane == SC_LANE_LEGACY)
        legacy_submission(t, op, sc_module_slot_is_cublas(sc_module_of(t, (uintptr_t)op->ra)));
    if (op->kind != SC_K_WAIT_EVENT)
        mark_lane(t, op);
}

/* --------------------------------------------------------------- pre --- */
/* Calls that can keep the host waiting: only these are timed (a clock read
   costs as much as the rest of a note's slow path). */
static int can_block(unsigned kind)
{
    switch (kind) {
    case SC_K_COPY: case SC_K_COPY_U: case SC_K_COPY2D: case SC_K_COPY3D:
    case SC_K_SCOPY: case SC_K_SCOPY_U: case SC_K_SCOPY2D: case SC_K_SCOPY3D: case SC_K_SMEMSET:
    case SC_K_ALLOC_DEV: case SC_K_ALLOC_MANAGED: case SC_K_FREE_DEV:
    case SC_K_ALLOC_HOST: case SC_K_FREE_HOST: case SC_K_REGISTER: case SC_K_UNREGISTER:
    case SC_K_STREAM_SYNC: case SC_K_EVENT_SYNC: case SC_K_CTX_SYNC: case SC_K_CACHE_CONFIG:
        return 1;
    default:
        return 0;
    }
}

/* SC101 notes: exact call sites for the first of a thread, then sampled. */
#define SC_NOTES_EXACT 256        /* a thread's first SC101 notes: exact sites */
#define SC_NOTE_SAMPLE 64         /* then one in 64 ... */
#define SC_NOTES_SAMPLED (SC_NOTES_EXACT + 256 * SC_NOTE_SAMPLE)
#define SC_NOTE_SAMPLE_LONG 1024  /* ... and after 256 such samples, one in 1024 */
_Static_assert((SC_NOTES_SAMPLED - SC_NOTES_EXACT) % SC_NOTE_SAMPLE_LONG == 0,
               "the long sampling period starts on one of its own multiples");

/* Our own time is sampled too: one slow call in SC_SLOW_SAMPLE is timed. */
#define SC_SLOW_SAMPLE 64

int sc_fast_timed(sc_thread *t, sc_op *op)
{
    t->nfast = 0;
    uint64_t t0 = sc_now_ns();
    int slow = sc_fast(t, op);
    atomic_fetch_add_explicit(&t->shim_ns, (sc_now_ns() - t0) * SC_FAST_SAMPLE, memory_order_relaxed);
    return slow;
}

void sc_pre(sc_thread *t, sc_op *op)
{
    /* Announce ourselves before looking at the mode: the report (at exit)
       turns the mode off, then waits for every thread to leave its slow
       path.  One of the two always sees the other's store: with membarrier
       the report pays for the fence (threads.c), otherwise this store does. */
    op->nev = op->redirected = op->pageable = op->timed = op->bypass = op->has_ctx = 0;
    op->call = NULL;
    op->rd_chain = NULL;
    op->t0 = op->tin = 0;
    op->ctx = NULL;
    sc_busy_enter(t);
    if (atomic_load_explicit(&sc_g.mode, memory_order_relaxed) != SC_MODE_ACTIVE) {
        op->bypass = 1;
        return;
    }
    op->saved_errno = errno;
    if (++t->nslow == SC_SLOW_SAMPLE) {
        t->nslow = 0;
        op->tin = sc_now_ns();
    }
    op->timed = (uint8_t)can_block(op->kind);
    sc_drv_resolve();

    switch ((sc_kind)op->kind) {
    case SC_K_LAUNCH: case SC_K_HOSTFN: case SC_K_GRAPH: case SC_K_COPYBATCH:
    case SC_K_EVENT_RECORD: case SC_K_WAIT_EVENT: case SC_K_ALLOC_ASYNC: case SC_K_FREE_ASYNC:
        submission(t, op);
        break;

    case SC_K_MEMSET: {
        /* PG Implicit Synchronization: a device memory set on the legacy
           stream is a barrier between the streams' commands. */
        resolve_lane(t, op);
        if (op->lane == SC_LANE_LEGACY) {
            struct count_q cq = {op_ctx(op), 0, 0};
            sc_streams_foreach(count_stream, &cq);
            if ((cq.all || atomic_load(&sc_g.ptds_used)) && classify(op->p1, op->bytes) != MEM_PINNED) {
                busy_q q = {.ctx = cq.ctx, .skip_legacy = 1};
                event(op, SC_RULE_SC202, SC_SEV_WARNING, busy_others(t, &q) > 0);
            }
        }
        submission(t, op);
        break;
    }

    case SC_K_COPY: case SC_K_COPY_U: case SC_K_COPY2D: case SC_K_COPY3D: {
        classify_copy(op);
        resolve_lane(t, op);
        int pageable = op->pageable && (op->dir == SC_DIR_H2D || op->dir == SC_DIR_D2H);
        submission(t, op);
        if (lane_capturing(t, op))
            break;
        /* DRV, 2. API synchronization behavior (Memcpy, Asynchronous):
           pageable memory makes the "async" copy wait for its stream
           (host to device) or for the copy itself (device to host). */
        if (pageable) {
            busy_q q = {.ctx = NULL, .skip = op->srec, .skip_legacy = op->lane == SC_LANE_LEGACY,
                        .skip_ptds = op->lane == SC_LANE_PTDS};
            event(op, SC_RULE_SC203, SC_SEV_WARNING, busy_others(t, &q) > 0);
        }
        /* SC702: copies both ways at once need two copy engines (PG,
           Overlap of Data Transfer and Kernel Execution). */
        int eng = atomic_load(&sc_g.async_engines);
        if (eng >= 0 && eng < 2 && (op->dir == SC_DIR_H2D || op->dir == SC_DIR_D2H)) {
            busy_q q = {.ctx = NULL, .skip = op->srec, .skip_legacy = 1, .skip_ptds = 1,
                        .dir = op->dir == SC_DIR_H2D ? SC_DIR_D2H : SC_DIR_H2D};
            if (busy_others(t, &q) > 0)
                event(op, SC_RULE_SC702, SC_SEV_WARNING, 1);
        }
        if (op->srec && (op->dir == SC_DIR_H2D || op->dir == SC_DIR_D2H))
            atomic_store(&op->srec->last_copy, op->dir);
        break;
    }

    case SC_K_SCOPY: case SC_K_SCOPY_U: case SC_K_SCOPY2D: case SC_K_SCOPY3D: {
        classify_copy(op);
        int pageable = op->pageable;
        resolve_lane(t, op);
        CUcontext ctx = op_ctx(op);
        struct count_q cq = {ctx, 0, 0};
        sc_streams_foreach(count_stream, &cq);
        int others = cq.all || atomic_load(&sc_g.ptds_used);
        busy_q q = {.ctx = ctx, .skip_legacy = op->lane == SC_LANE_LEGACY, .skip_ptds = op->lane == SC_LANE_PTDS};
        /* DRV, 2. API synchronization behavior (Memcpy, Synchronous), and
           PG Concurrent Execution between Host and Device: device-to-device
           copies do not block the host, pageable host-to-device copies of
           64 KiB or less return once staged.  Everything else blocks. */
        if (op->dir == SC_DIR_D2D) {
            if (op->lane == SC_LANE_LEGACY && others)
                event(op, SC_RULE_SC204, SC_SEV_WARNING, busy_others(t, &q) > 0);
        } else if (!(op->dir == SC_DIR_H2D && pageable && op->bytes <= 65536)) {
            event(op, SC_RULE_SC201, SC_SEV_WARNING, busy_others(t, &q) > 0);
        }
        if (op->lane == SC_LANE_LEGACY)
            legacy_common(t, op, &cq);
        mark_lane(t, op);
        /* Remember whether the host waits for the lane to drain (post). */
        if (op->dir == SC_DIR_D2H || op->dir == SC_DIR_H2H || (op->dir == SC_DIR_H2D && !pageable))
            op->marks |= SC_M_DRAINS;
        break;
    }

    case SC_K_SMEMSET: {
        resolve_lane(t, op);
        CUcontext ctx = op_ctx(op);
        struct count_q cq = {ctx, 0, 0};
        sc_streams_foreach(count_stream, &cq);
        if (op->lane == SC_LANE_LEGACY && (cq.all || atomic_load(&sc_g.ptds_used)) &&
            classify(op->p1, op->bytes) != MEM_PINNED) {
            busy_q q = {.ctx = ctx, .skip_legacy = 1};
            event(op, SC_RULE_SC202, SC_SEV_WARNING, busy_others(t, &q) > 0);
        }
        if (op->lane == SC_LANE_LEGACY)
            legacy_common(t, op, &cq);
        mark_lane(t, op);
        break;
    }

    case SC_K_ALLOC_DEV: case SC_K_ALLOC_MANAGED: case SC_K_FREE_DEV:
    case SC_K_ALLOC_HOST: case SC_K_FREE_HOST: case SC_K_REGISTER: case SC_K_UNREGISTER: {
        if ((op->kind == SC_K_FREE_DEV || op->kind == SC_K_FREE_HOST || op->kind == SC_K_UNREGISTER) && !op->p1)
            break;   /* freeing NULL does nothing */
        busy_q q = {.ctx = NULL};
        if (busy_others(t, &q) > 0) {
            int dev = op->kind == SC_K_ALLOC_DEV || op->kind == SC_K_ALLOC_MANAGED || op->kind == SC_K_FREE_DEV;
            /* PG Stream Ordered Memory Allocator (cudaMalloc/cudaFree
               synchronize) and PG Implicit Synchronization (page-locked
               host allocation, device allocation). */
            event(op, dev ? SC_RULE_SC301 : SC_RULE_SC302, SC_SEV_WARNING, 1);
        }
        op->marks |= SC_M_ALLOCSITE;
        break;
    }

    case SC_K_STREAM_CREATE: case SC_K_STREAM_DESTROY: case SC_K_CAPTURE_END: case SC_K_CTX_GONE:
    case SC_K_INIT:
        break;

    case SC_K_CAPTURE_BEGIN:
        resolve_lane(t, op);
        break;

    case SC_K_STREAM_QUERY:
        resolve_lane(t, op);
        if (op->lane == SC_LANE_LEGACY)
            redirect(t, op, NULL);
        break;

    case SC_K_STREAM_SYNC: {
        resolve_lane(t, op);
        if (op->lane == SC_LANE_LEGACY)
            redirect(t, op, NULL);
        _Atomic uint64_t *m = lane_mark(t, op);
        int busy = 0;
        if (m && atomic_load(&sc_g.n_capturing) == 0 && !lane_capturing(t, op)) {
            if (op->lane == SC_LANE_PTDS)
                busy = query_ptds(t);
            else
                busy = query(m, op->lane == SC_LANE_CREATED ? op->stream : CU_STREAM_LEGACY);
            if (!busy)
                event(op, SC_RULE_SC402, SC_SEV_NOTE, 0);
        }
        break;
    }

    case SC_K_EVENT_SYNC:
        if (sc_d.EventQuery && op->p1 && sc_d.EventQuery((CUevent)op->p1) == CUDA_SUCCESS)
            event(op, SC_RULE_SC402, SC_SEV_NOTE, 0);
        break;

    case SC_K_CTX_SYNC: {
        busy_q q = {.ctx = op_ctx(op)};
        unsigned busy = busy_others(t, &q);
        if (atomic_load(&sc_g.n_capturing) > 0)
            break;
        if (!busy)
            event(op, SC_RULE_SC402, SC_SEV_NOTE, 0);
        else
            /* One busy stream: a stream or event synchronization would have
               waited for exactly the same work, and no more. */
            event(op, SC_RULE_SC401, busy == 1 ? SC_SEV_WARNING : SC_SEV_NOTE, busy > 1);
        break;
    }

    case SC_K_CACHE_CONFIG: {
        busy_q q = {.ctx = NULL};
        if (busy_others(t, &q) > 0)
            event(op, SC_RULE_SC501, SC_SEV_WARNING, 1);
        break;
    }

    case SC_K_NONE:
        break;
    }

    if (t->has_own && op->lane == SC_LANE_PTDS && !op->redirected && !op->rd_chain)
        order_with_own(t, op);
    if (op->marks & SC_M_CHECK701)
        check_queues(t, op);
    if (op->marks & SC_M_SC102) {
        struct sc102_q q = {t, op, op_ctx(op)};
        sc_streams_foreach(sc102_stream, &q);
    }
    if (op->tin)
        op->tin = sc_now_ns() - op->tin;   /* now: time spent in here */
    errno = op->saved_errno;
}

/* -------------------------------------------------------------- post --- */
struct clear_q { CUcontext ctx; };
static void clear_stream(sc_stream *r, void *arg)
{
    struct clear_q *c = arg;
    if (c->ctx && r->ctx && r->ctx != c->ctx)
        return;
    uint64_t tok = atomic_load(&r->active);
    unmark(&r->active, tok);
}
static void clear_thread(sc_thread *t, void *arg)
{
    (void)arg;
    uint64_t tok = atomic_load(&t->ptds_active);
    unmark(&t->ptds_active, tok);
}

static void on_init_done(void)
{
    static _Atomic int done;
    if (atomic_exchange(&done, 1))
        return;
    sc_drv_resolve();
    if (sc_d.DriverGetVersion)
        sc_d.DriverGetVersion(&sc_driver_version);
    CUdevice dev;
    if (sc_d.DeviceGet && sc_d.DeviceGet(&dev, 0) == CUDA_SUCCESS) {
        if (sc_d.DeviceGetName)
            sc_d.DeviceGetName(sc_device_name, sizeof sc_device_name, dev);
        int eng = -1;
        if (sc_d.DeviceGetAttribute &&
            sc_d.DeviceGetAttribute(&eng, CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, dev) == CUDA_SUCCESS) {
            atomic_store(&sc_g.async_engines, eng);
            if (eng < 2)
                atomic_store(&sc_g.slow_copies, 1);   /* SC702 needs every copy */
        }
    }
}

void sc_on_init_done(void) { on_init_done(); }

void sc_post(sc_thread *t, sc_op *op, CUresult r)
{
    if (op->bypass) {
        atomic_store(&t->busy, 0);
        return;
    }
    uint64_t t1 = op->timed || op->tin ? sc_now_ns() : 0;
    uint64_t walks0 = t->walk_ns;   /* counted in full by sc_callsite_capture */
    int err = errno;
    uint64_t blocked = op->timed ? t1 - op->t0 : 0;

    if (op->rd_chain) {
        /* --redirect-method=stream sent a synchronous copy or memset to the
           per-thread stream: the thread's own stream continues after it. */
        sc_own *o = op->rd_chain;
        if (sc_d.EventRecord(o->event, CU_STREAM_PER_THREAD) == CUDA_SUCCESS)
            sc_d.StreamWaitEvent(o->stream, o->event, 0);
    }

    switch ((sc_kind)op->kind) {
    case SC_K_INIT:
        if (r == CUDA_SUCCESS)
            on_init_done();
        break;
    case SC_K_CTX_GONE: {
        /* The streams --redirect-method=stream made may be gone with it:
           threads make new ones (own_stream).  A release (flags 1) ends the
           primary context only when it was the last one. */
        unsigned flags = 0;
        int active = 0;
        if (r == CUDA_SUCCESS &&
            !(op->flags == 1 && sc_d.PrimaryCtxGetState &&
              sc_d.PrimaryCtxGetState((CUdevice)op->prio, &flags, &active) == CUDA_SUCCESS && active))
            atomic_fetch_add(&sc_g.ctx_gen, 1);
        break;
    }
    case SC_K_STREAM_CREATE:
        if (r == CUDA_SUCCESS && op->p1) {
            CUstream h = *(CUstream const *)op->p1;
            uint64_t site = sc_callsite_capture(t);
            sc_stream_add(h, op_ctx(op), op->flags, op->prio, site);
        }
        break;
    case SC_K_STREAM_DESTROY:
        if (r == CUDA_SUCCESS)
            sc_stream_remove(op->stream);
        break;
    case SC_K_STREAM_QUERY:
    case SC_K_STREAM_SYNC:
        if (r == CUDA_SUCCESS) {
            _Atomic uint64_t *m = lane_mark(t, op);
            if (m)
                unmark(m, atomic_load(m));
        }
        break;
    case SC_K_CTX_SYNC:
        if (r == CUDA_SUCCESS) {
            /* Every stream of the context has drained, other threads'
               per-thread streams included. */
            struct clear_q c = {op_ctx(op)};
            sc_streams_foreach(clear_stream, &c);
            sc_threads_foreach(clear_thread, NULL);
            _Atomic uint64_t *m = &ctx_get(c.ctx)->legacy_active;
            unmark(m, atomic_load(m));
        }
        break;
    case SC_K_SCOPY: case SC_K_SCOPY_U: case SC_K_SCOPY2D: case SC_K_SCOPY3D:
        if (r == CUDA_SUCCESS && (op->marks & SC_M_DRAINS)) {
            _Atomic uint64_t *m = lane_mark(t, op);
            if (m)
                unmark(m, atomic_load(m));
        }
        break;
    case SC_K_CAPTURE_BEGIN:
        if (r == CUDA_SUCCESS) {
            if (op->lane == SC_LANE_CREATED && op->srec) {
                if (!atomic_exchange(&op->srec->capturing, 1))
                    atomic_fetch_add(&sc_g.n_capturing, 1);
            } else if (op->lane == SC_LANE_PTDS && !t->capturing_ptds) {
                t->capturing_ptds = 1;
                atomic_fetch_add(&sc_g.n_capturing, 1);
            }
        }
        break;
    case SC_K_CAPTURE_END:
        resolve_lane(t, op);
        if (op->lane == SC_LANE_CREATED && op->srec) {
            if (atomic_exchange(&op->srec->capturing, 0))
                atomic_fetch_sub(&sc_g.n_capturing, 1);
        } else if (op->lane == SC_LANE_PTDS && t->capturing_ptds) {
            t->capturing_ptds = 0;
            atomic_fetch_sub(&sc_g.n_capturing, 1);
        }
        break;
    case SC_K_ALLOC_DEV: case SC_K_ALLOC_MANAGED: case SC_K_ALLOC_ASYNC:
        if (r == CUDA_SUCCESS && op->p1)
            sc_devmem_add((const void *)(uintptr_t)*(CUdeviceptr const *)op->p1, op->bytes);
        break;
    case SC_K_FREE_DEV: case SC_K_FREE_ASYNC:
        if (r == CUDA_SUCCESS && op->p1)
            sc_devmem_remove(op->p1);
        break;
    case SC_K_ALLOC_HOST:
        if (r == CUDA_SUCCESS && op->p1)
            sc_pinned_add(*(void *const *)op->p1, op->bytes);
        break;
    case SC_K_REGISTER:
        if (r == CUDA_SUCCESS)
            sc_pinned_add(op->p1, op->bytes);
        break;
    case SC_K_FREE_HOST: case SC_K_UNREGISTER:
        if (r == CUDA_SUCCESS && op->p1)
            sc_pinned_remove(op->p1);
        break;
    default:
        break;
    }

    /* A call the driver rejected did nothing: no finding, and nothing to
       count for SC103 or SC303.  (A query's NOT_READY is not a rejection.) */
    if (r != CUDA_SUCCESS && !(r == CUDA_ERROR_NOT_READY && op->kind == SC_K_STREAM_QUERY)) {
        op->nev = 0;
        op->marks &= (uint8_t)~(SC_M_ALLOCSITE | SC_M_LEGACY);
    }
    /* The SC101 note of a one-stream program comes with every launch (every
       default PyTorch launch): the first SC_NOTES_EXACT of a thread get
       their call site exactly, after that one in SC_NOTE_SAMPLE is walked
       and counted for SC_NOTE_SAMPLE, and past SC_NOTES_SAMPLED one in
       SC_NOTE_SAMPLE_LONG (the report says the counts are estimates).  A
       stack walk through CUDA's libraries costs microseconds on a GPU host,
       against about 3 us for a launch: one in 1024 keeps it under 1%.
       Everything else is exact. */
    unsigned weight = 1;
    if (op->nev || (op->marks & (SC_M_ALLOCSITE | SC_M_LEGACY)) || op->redirected) {
        int note_only = !(op->marks & SC_M_ALLOCSITE) && !op->redirected;
        for (unsigned i = 0; i < op->nev; i++)
            if (!(op->ev[i].rule == SC_RULE_SC101 && op->ev[i].sev == SC_SEV_NOTE))
                note_only = 0;
        if (note_only && ++t->nnotes > SC_NOTES_EXACT) {
            unsigned every = t->nnotes > SC_NOTES_SAMPLED ? SC_NOTE_SAMPLE_LONG : SC_NOTE_SAMPLE;
            if ((t->nnotes - SC_NOTES_EXACT) % every) {
                op->nev = 0;
                op->marks &= (uint8_t)~SC_M_LEGACY;
            } else {
                weight = every;
            }
        }
    }
    if (op->nev || (op->marks & (SC_M_ALLOCSITE | SC_M_LEGACY)) || op->redirected) {
        /* Python frames cost 0.1-0.4 us (pyframes.c) and notes are already
           sampled above, so every reported site carries them: in PyTorch the
           Python line is the only useful part of an SC101 site. */
        uint64_t site = sc_callsite_capture(t);
        unsigned rt = sc_tls_rt;
        for (unsigned i = 0; i < op->nev; i++)
            sc_finding_add(t, op->ev[i].rule, op->ev[i].sev, op->id, rt,
                           op->ev[i].own_site ? op->ev[i].site : site, blocked, op->ev[i].pending,
                           op->bytes, weight);
        if (op->marks & SC_M_ALLOCSITE)
            sc_alloc_site_add(t, op->id, rt, site, op->bytes);
        if (op->marks & SC_M_LEGACY)
            sc_legacy_site_add(t, op->id, rt, site, weight);
        if (op->redirected)
            sc_redirect_add(t, op->id, rt, site, op->redirected);
    }

    if (op->tin) {   /* a sampled call: count our time in pre and post, less its walks */
        uint64_t in = op->tin + (sc_now_ns() - t1), walks = t->walk_ns - walks0;
        atomic_fetch_add_explicit(&t->shim_ns, (in > walks ? in - walks : 0) * SC_SLOW_SAMPLE,
                                  memory_order_relaxed);
    }
    atomic_store_explicit(&t->busy, 0, memory_order_release);
    errno = err;
}
