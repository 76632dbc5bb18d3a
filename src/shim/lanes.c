/* lanes.c: the state the detectors ask about.  Contexts and their legacy
 * streams, the lane (stream) a call's work lands on, busy marks, and which
 * other streams have unfinished work at this moment.
 *
 * "Other streams had unfinished work" is measured, not assumed
 * (docs/ARCHITECTURE.md, "Fast path and slow path"): the streams marked busy by
 * earlier submissions are asked with cuStreamQuery, which also clears the
 * marks of those that have drained.  Nothing is queried while a stream
 * capture is in progress, since a query can invalidate a capture.
 * Per-thread default streams of other threads cannot be queried from here;
 * they count as busy until their thread synchronizes.
 *
 * Several devices: every question is asked about one context (the call's,
 * and for a peer copy its two ends' too), so a busy stream of device 1 does
 * not make a legacy-stream launch of device 0 a hazard.  Each context's
 * device is learned once (cuCtxGetDevice) for the findings and the report.
 * A thread's per-thread stream mark belongs to the context of the
 * submission that made it busy, learned on the slow path once the process
 * has used two contexts (sc_g.multi_ctx); before that it counts everywhere.
 */
#include "config.h"

#include <pthread.h>

#include "core.h"
#include "lanes.h"
#include "real.h"
#include "streams.h"
#include "thread.h"

/* --------------------------------------------------------- contexts --- */
#define MAX_CTX 32
static sc_ctx ctxs[MAX_CTX];
static _Atomic int nctx;
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;

sc_ctx *sc_ctx_get(CUcontext c)
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
            atomic_store(&sc_g.n_ctx, (unsigned)n + 1);
        }
        /* A second real context: from now on the per-thread marks learn
           their context (sc_fast), and queries filter by it. */
        for (int i = 0; c && i < n; i++)
            if (atomic_load(&ctxs[i].ctx) && atomic_load(&ctxs[i].ctx) != c)
                atomic_store(&sc_g.multi_ctx, 1);
    }
    pthread_mutex_unlock(&ctx_lock);
    return r;
}

void sc_ctxs_foreach(void (*fn)(sc_ctx *, void *), void *arg)
{
    int n = atomic_load(&nctx);
    for (int i = 0; i < n; i++)
        fn(&ctxs[i], arg);
}

CUcontext sc_device_ctx(unsigned ordinal)
{
    int n = atomic_load(&nctx);
    for (int i = 0; i < n; i++)
        if (atomic_load(&ctxs[i].device) == (int)ordinal + 1 && atomic_load(&ctxs[i].ctx))
            return atomic_load(&ctxs[i].ctx);
    return NULL;
}

/* The device of c, which must be the calling thread's current context:
   asked once, with the device's name for the report (the driver may be
   gone at exit). */
static void learn_device(sc_ctx *x)
{
    CUdevice d = 0;
    if (!sc_d.CtxGetDevice || sc_d.CtxGetDevice(&d) != CUDA_SUCCESS || d < 0 || d >= 0xff)
        return;
    pthread_mutex_lock(&ctx_lock);
    if (!atomic_load(&x->device)) {
        if (sc_d.DeviceGetName)
            sc_d.DeviceGetName(x->name, (int)sizeof x->name, d);
        atomic_store(&x->device, (int)d + 1);
    }
    pthread_mutex_unlock(&ctx_lock);
}

unsigned sc_ctx_device(CUcontext c)
{
    int n = atomic_load(&nctx);
    for (int i = 0; c && i < n; i++)
        if (atomic_load(&ctxs[i].ctx) == c) {
            int d = atomic_load(&ctxs[i].device);
            return d ? (unsigned)(d - 1) : SC_DEV_UNKNOWN;
        }
    return SC_DEV_UNKNOWN;
}

unsigned sc_op_device(sc_op *op)
{
    CUcontext c = sc_op_ctx(op);
    return c ? sc_ctx_device(c) : SC_DEV_UNKNOWN;
}

void sc_devices_foreach(void (*fn)(int ordinal, const char *name, void *), void *arg)
{
    int n = atomic_load(&nctx);
    for (int i = 0; i < n; i++) {
        int d = atomic_load(&ctxs[i].device);
        if (atomic_load(&ctxs[i].ctx) && d)
            fn(d - 1, ctxs[i].name[0] ? ctxs[i].name : NULL, arg);
    }
}

/* Fork: ctx_lock is held only to add a context. */
static void ctx_lock_all(void) { pthread_mutex_lock(&ctx_lock); }
static void ctx_unlock_all(void) { pthread_mutex_unlock(&ctx_lock); }
/* In a forked child: contexts do not survive fork (CUDA is not usable in
   the child until it makes its own), so the parent's are dropped. */
static void ctx_child(void)
{
    pthread_mutex_init(&ctx_lock, NULL);
    int n = atomic_load(&nctx);
    for (int i = 0; i < n; i++) {
        atomic_store(&ctxs[i].ctx, NULL);
        atomic_store(&ctxs[i].legacy_active, 0);
        atomic_store(&ctxs[i].device, 0);
    }
    atomic_store(&nctx, 0);
    atomic_store(&sc_g.n_ctx, 0);
}

static const sc_part part = {"contexts", 60, ctx_lock_all, ctx_unlock_all, ctx_child, NULL, NULL};
SC_PART_REGISTER(part)

CUcontext sc_current_ctx(void)
{
    CUcontext c = NULL;
    uint64_t p0 = sc_prof_t0();
    if (sc_d.CtxGetCurrent)
        sc_d.CtxGetCurrent(&c);
    sc_prof_add(sc_tls_self, SC_PH_CTX, p0, 1);
    return c;
}

CUcontext sc_op_ctx(sc_op *op)
{
    if (!op->has_ctx) {
        op->ctx = sc_current_ctx();
        op->has_ctx = 1;
        /* Each context is registered, and its device learned, the first
           time a call is made in it. */
        if (op->ctx) {
            sc_ctx *x = sc_ctx_get(op->ctx);
            if (!atomic_load_explicit(&x->device, memory_order_relaxed))
                learn_device(x);
        }
    }
    return op->ctx;
}

/* ------------------------------------------------------------ marks --- */
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

void sc_unmark(_Atomic uint64_t *a, uint64_t tok)
{
    if (tok && atomic_compare_exchange_strong(a, &tok, 0))
        active_dec();
}

/* h may be CU_STREAM_LEGACY or CU_STREAM_PER_THREAD (the calling thread's). */
static int query_mark(_Atomic uint64_t *mark, CUstream h, int *finished)
{
    uint64_t tok = atomic_load(mark);
    if (!tok)
        return 0;
    if (SC_UNLIKELY(sc_prof_on) && sc_tls_self)
        sc_tls_self->prof[SC_PH_BUSY].items++;   /* a cuStreamQuery */
    CUresult r = sc_d.StreamQuery ? sc_d.StreamQuery(h) : CUDA_ERROR_NOT_INITIALIZED;
    if (r == CUDA_ERROR_NOT_READY)
        return 1;
    sc_unmark(mark, tok);
    if (finished)
        *finished = 1;
    return 0;
}

int sc_query_mark(_Atomic uint64_t *mark, CUstream h)
{
    return query_mark(mark, h, NULL);
}

/* The calling thread's per-thread lane: its per-thread stream and, with
   --redirect-method=stream, the streams its legacy work went to. */
static int query_ptds(sc_thread *t, int *finished)
{
    uint64_t tok = atomic_load(&t->ptds_active);
    if (!tok)
        return 0;
    unsigned gen = atomic_load(&sc_g.ctx_gen);
    for (unsigned i = 0; i < SC_OWN_MAX; i++)
        if (t->own[i].stream && t->own[i].gen == gen && sc_d.StreamQuery &&
            sc_d.StreamQuery(t->own[i].stream) == CUDA_ERROR_NOT_READY)
            return 1;
    return query_mark(&t->ptds_active, CU_STREAM_PER_THREAD, finished);
}

/* ---------------------------------------------------- busy streams --- */
static void q_stream(sc_stream *r, void *arg)
{
    sc_busy_q *q = arg;
    if (r == q->skip || !sc_ctx_in(r->ctx, q->ctx, q->also))
        return;
    if (atomic_load(&r->capturing) || !atomic_load(&r->active))
        return;
    if (q->dir && atomic_load(&r->last_copy) != q->dir)
        return;
    if (q->blocking_only && (r->flags & CU_STREAM_NON_BLOCKING))
        return;
    if (q->program_only && atomic_load_explicit(&r->internal, memory_order_relaxed))
        return;
    if (query_mark(&r->active, r->handle, &q->finished)) {
        q->busy++;
        q->marked++;
    }
}

static void q_thread(sc_thread *t, void *arg)
{
    sc_busy_q *q = arg;
    if (!atomic_load(&t->in_use) || !atomic_load(&t->ptds_active) || q->dir)
        return;
    /* Another device's per-thread stream (its context learned when it
       turned busy) is not this query's business. */
    if (atomic_load_explicit(&sc_g.multi_ctx, memory_order_relaxed) &&
        !sc_ctx_in(atomic_load(&t->ptds_ctx), q->ctx, q->also))
        return;
    if (t == q->self) {
        if (q->skip_ptds || t->capturing_ptds)
            return;
        if (query_ptds(t, &q->finished)) {
            q->busy++;
            q->marked++;
        }
    } else {
        q->busy++;
        q->unverified++;
        q->marked++;
    }
}

unsigned sc_busy_others(sc_thread *t, sc_busy_q *q)
{
    q->self = t;
    if (atomic_load(&sc_g.n_capturing) > 0 || !sc_d.StreamQuery)
        return 0;
    uint64_t p0 = sc_prof_t0();
    sc_streams_foreach(q_stream, q);
    sc_threads_foreach(q_thread, q);
    if (!q->skip_legacy && !q->dir) {
        CUcontext cur = sc_current_ctx();
        sc_ctx *c = sc_ctx_get(q->ctx ? q->ctx : cur);
        /* CU_STREAM_LEGACY is the current context's legacy stream. */
        if ((!q->ctx || q->ctx == cur) && query_mark(&c->legacy_active, CU_STREAM_LEGACY, &q->finished)) {
            q->busy++;
            q->marked++;
        } else if (q->ctx && q->ctx != cur && atomic_load(&c->legacy_active)) {
            q->busy++;
            q->unverified++;
            q->marked++;
        }
        /* The other ends of a peer copy: their legacy streams cannot be
           queried from this context; marked counts as busy. */
        for (int i = 0; i < 2; i++) {
            if (!q->also[i] || q->also[i] == q->ctx || (i && q->also[1] == q->also[0]))
                continue;
            if (atomic_load(&sc_ctx_get(q->also[i])->legacy_active)) {
                q->busy++;
                q->unverified++;
                q->marked++;
            }
        }
    }
    sc_prof_add(t, SC_PH_BUSY, p0, 0);
    return q->busy;
}

unsigned sc_busy_recount(sc_thread *t, sc_busy_q *q)
{
    unsigned busy = sc_busy_others(t, q);
    atomic_store(&sc_g.n_active, q->marked + 1);   /* exact again after the queries */
    return busy;
}

static void count_stream(sc_stream *r, void *arg)
{
    sc_count_q *c = arg;
    if (!sc_ctx_in(r->ctx, c->ctx, NULL))
        return;
    c->all++;
    if (!(r->flags & CU_STREAM_NON_BLOCKING))
        c->blocking++;
    if (!atomic_load_explicit(&r->internal, memory_order_relaxed))
        c->program++;
}

void sc_count_streams(sc_count_q *cq)
{
    uint64_t p0 = sc_prof_t0();
    sc_streams_foreach(count_stream, cq);
    sc_prof_add(sc_tls_self, SC_PH_COUNT, p0, atomic_load(&sc_g.n_live));
}

/* The same for the call's context, without the walk or the context lookup
   when no created stream is blocking and one context exists (PyTorch's 128
   non-blocking pool streams): then every live stream is the context's and
   none is blocking. */
void sc_count_op_streams(sc_op *op, sc_count_q *cq)
{
    cq->all = cq->blocking = cq->program = 0;
    cq->ctx = NULL;
    unsigned live = atomic_load_explicit(&sc_g.n_live, memory_order_relaxed);
    if (!live)
        return;
    if (!atomic_load_explicit(&sc_g.n_blocking, memory_order_relaxed) &&
        atomic_load_explicit(&sc_g.n_ctx, memory_order_relaxed) <= 1) {
        unsigned nccl = atomic_load_explicit(&sc_g.n_internal, memory_order_relaxed);
        cq->all = live;
        cq->program = live > nccl ? live - nccl : 0;
        return;
    }
    cq->ctx = sc_op_ctx(op);
    sc_count_streams(cq);
}

/* ------------------------------------------------------------ lanes --- */
void sc_resolve_lane(sc_thread *t, sc_op *op)
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

int sc_lane_capturing(sc_thread *t, const sc_op *op)
{
    if (op->lane == SC_LANE_CREATED)
        return op->srec && atomic_load(&op->srec->capturing);
    if (op->lane == SC_LANE_PTDS)
        return t->capturing_ptds;
    return 0;
}

_Atomic uint64_t *sc_lane_mark(sc_thread *t, sc_op *op)
{
    if (op->lane == SC_LANE_CREATED)
        return op->srec ? &op->srec->active : NULL;
    if (op->lane == SC_LANE_PTDS)
        return &t->ptds_active;
    if (op->lane == SC_LANE_LEGACY) {
        /* Remembered for the fast path's notes (sc_fast_legacy). */
        _Atomic uint64_t *m = &sc_ctx_get(sc_op_ctx(op))->legacy_active;
        t->legacy_mark = m;
        return m;
    }
    return NULL;
}

/* A stream turning busy may push the busy streams past the hardware
   queues: SC_M_CHECK701 asks detect_queue.c to count them. */
void sc_mark_lane(sc_thread *t, sc_op *op)
{
    if (sc_lane_capturing(t, op))
        return;
    _Atomic uint64_t *m = sc_lane_mark(t, op);
    if (!m)
        return;
    /* Several devices: the per-thread mark belongs to this context. */
    if (op->lane == SC_LANE_PTDS && atomic_load_explicit(&sc_g.multi_ctx, memory_order_relaxed))
        atomic_store(&t->ptds_ctx, sc_op_ctx(op));
    uint64_t old = atomic_load_explicit(m, memory_order_relaxed);
    atomic_store_explicit(m, new_token(t), memory_order_relaxed);
    if (!old) {
        unsigned n = atomic_fetch_add(&sc_g.n_active, 1) + 1;
        if (n > sc_g.max_conn)
            op->marks |= SC_M_CHECK701;   /* check the hardware queues after the rules */
    } else if (op->lane == SC_LANE_CREATED && op->srec && atomic_load_explicit(&op->srec->watch701,
                                                                                 memory_order_relaxed)) {
        op->marks |= SC_M_CHECK701;       /* behind its own work, past the queues? */
    }
}

int sc_lane_state(sc_thread *t, sc_op *op)
{
    _Atomic uint64_t *m = sc_lane_mark(t, op);
    int finished = 0, busy;
    if (!m)
        return -1;
    if (op->lane == SC_LANE_PTDS)
        busy = query_ptds(t, &finished);
    else
        busy = query_mark(m, op->lane == SC_LANE_CREATED ? op->stream : CU_STREAM_LEGACY, &finished);
    return busy ? 1 : finished ? 2 : 0;
}

int sc_lane_busy(sc_thread *t, sc_op *op)
{
    int s = sc_lane_state(t, op);
    return s == 2 ? 0 : s;
}
