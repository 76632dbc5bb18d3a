/* redirect.c: --redirect.  Work the program sends to the legacy stream goes
 * to the calling thread's per-thread default stream instead (by handle, by
 * the entry point's per-thread twin, or through a blocking stream of the
 * thread's own with --redirect-method=stream), unless that would drop an
 * ordering the program relies on.  The outcome of each decision is counted
 * for the report (op->redirected, an SC_RD_* index).
 */
#include "config.h"

#include "apis.h"
#include "core.h"
#include "findings.h"
#include "hb.h"
#include "kinds.h"
#include "lanes.h"
#include "notes.h"
#include "options.h"
#include "real.h"
#include "redirect.h"
#include "thread.h"

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
    sc_hb_own_stream(t, ctx, s, gen);   /* other threads record on it to wait for it */
    return free_slot;
}

/* Orders waiter's next work after the work `after` holds now, through ev
   (a record on `after`, a wait on waiter).  Nothing is queued when `after`
   has nothing unfinished: the record and the wait would keep both streams
   busy a moment after the program's own work is done, and a query of
   either right after completed work (cudaStreamQuery after a synchronous
   cudaMemcpy) would answer cudaErrorNotReady where the program, without
   redirect, gets cudaSuccess.  0 when ordered or nothing was to order. */
static int order_after(CUstream after, CUevent ev, CUstream waiter)
{
    if (sc_d.StreamQuery && sc_d.StreamQuery(after) == CUDA_SUCCESS)
        return 0;
    if (sc_d.EventRecord(ev, after) != CUDA_SUCCESS || sc_d.StreamWaitEvent(waiter, ev, 0) != CUDA_SUCCESS)
        return -1;
    return 0;
}

/* A thread with a redirect stream also sends work to its per-thread stream
   itself (code built with --default-stream per-thread, or naming
   cudaStreamPerThread).  The per-thread stream would have kept that work
   in order with the thread's legacy work, and the recompile would too:
   order it after the redirect stream's work here, and the redirect
   stream's next work after it in sc_post.  Not during a capture, where
   nothing is redirected and a wait would pull outside work into a graph. */
void sc_order_with_own(sc_thread *t, sc_op *op)
{
    if (atomic_load(&sc_g.n_capturing) > 0)
        return;
    CUcontext ctx = sc_op_ctx(op);
    unsigned gen = atomic_load(&sc_g.ctx_gen);
    for (unsigned i = 0; i < SC_OWN_MAX; i++) {
        sc_own *o = &t->own[i];
        if (o->stream && o->gen == gen && o->ctx == ctx) {
            /* The own stream's next work then follows this call's, unless
               it left nothing to follow: an event record is a point on
               the per-thread stream, not work, and a query or a
               synchronization submits nothing. */
            if (order_after(o->stream, o->event, CU_STREAM_PER_THREAD) == 0 &&
                (sc_kind_is(op->kind, SC_KF_SUBMIT) || sc_kind_is(op->kind, SC_KF_WORK)) &&
                !sc_kind_is(op->kind, SC_KF_JOIN))
                op->rd_chain = o;
            return;
        }
    }
}

/* Where redirect sends a call, by the method and what the call names: the
   own stream in its stream parameter or launch config (method stream), the
   per-thread stream by handle (method handle), or the per-thread entry
   point (method entry, and calls with no stream to rename).  route_of
   decides and changes nothing; route_apply rewrites the call. */
enum { RT_NONE, RT_OWN_ARG, RT_OWN_CFG, RT_HANDLE, RT_ENTRY };

static int route_of(const sc_op *op, const sc_own *own, void **fn)
{
    if (own && op->streamp)
        return RT_OWN_ARG;
    if (own && op->cfgp && *op->cfgp)
        return RT_OWN_CFG;
    if (sc_g.redirect_method == SC_RDM_HANDLE && op->streamp)
        return RT_HANDLE;
    unsigned twin = sc_apis[op->id].twin;
    *fn = twin != SC_NO_API ? sc_real_get(twin) : NULL;
    return *fn ? RT_ENTRY : RT_NONE;
}

static void route_apply(sc_op *op, int route, const sc_own *own, void *fn)
{
    switch (route) {
    case RT_OWN_ARG:
        *op->streamp = own->stream;
        break;
    case RT_OWN_CFG:
        op->cfg = **op->cfgp;
        op->cfg.hStream = own->stream;
        *op->cfgp = &op->cfg;
        break;
    case RT_HANDLE:
        *op->streamp = CU_STREAM_PER_THREAD;
        break;
    case RT_ENTRY:
        op->call = fn;
        break;
    }
}

void sc_redirect(sc_thread *t, sc_op *op, const sc_count_q *cq)
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
    sc_count_q local = {sc_op_ctx(op), 0, 0, 0};
    if (!cq) {
        sc_count_streams(&local);
        cq = &local;
    }
    if (cq->blocking) {
        /* DRV, 3. Stream synchronization behavior: the legacy stream waits
           for blocking streams and they wait for it; the per-thread stream
           does not.  Moving this work would drop that ordering. */
        op->redirected = SC_RD_BLOCKING;
        return;
    }
    /* Orders between threads (hb.h): a thread the tracker cannot follow
       keeps its work on the legacy stream, which orders it with everyone. */
    if (sc_hb_thread_legacy(t) < 0) {
        op->redirected = SC_RD_UNTRACKED;
        return;
    }
    CUcontext ctx = sc_op_ctx(op);
    sc_own *own = sc_g.redirect_method == SC_RDM_STREAM ? own_stream(t, ctx) : NULL;
    /* The legacy stream ordered this work after other threads' work that
       the program put before it (a mutex, a condition variable, join...):
       wait for theirs first.  When no event can say so, the work stays on
       the legacy stream, which waits for every blocking stream's work (and
       the thread's own streams then wait for it). */
    if (sc_hb_order(t, ctx, own ? own->stream : CU_STREAM_PER_THREAD) != 0) {
        sc_hb_kept_legacy(t);
        op->redirected = SC_RD_HANDOFF;
        return;
    }
    op->rd_where = own ? SC_HB_OWN : SC_HB_PTDS;
    void *fn = NULL;
    int route = route_of(op, own, &fn);
    if (route == RT_NONE) {
        op->redirected = SC_RD_NO_ENTRY;
        return;
    }
    if (route == RT_ENTRY) {
        if (own) {
            /* A synchronous copy or memset (no stream parameter) goes to
               the per-thread stream: after the own stream's work, and
               before its next (sc_post).  If that cannot be arranged it
               stays on the legacy stream, which orders it with the own
               stream (blocking) anyway. */
            if (order_after(own->stream, own->event, CU_STREAM_PER_THREAD) != 0) {
                op->redirected = SC_RD_NO_ORDER;
                return;
            }
            op->rd_chain = own;
        }
    }
    route_apply(op, route, own, fn);
    op->redirected = SC_RD_REDIRECTED;
    op->lane = SC_LANE_PTDS;
    /* The thread's next legacy work in ctx may take the fast path. */
    t->rd.ctx = ctx;
    t->rd.gen = atomic_load(&sc_g.ctx_gen);
    t->rd.own = own;
}

/* The fast path under --redirect (sc_fast_legacy): a launch, async copy or
   memset, event record or wait of a thread whose last legacy work the slow
   path redirected, with nothing changed since that could make the slow
   path decide otherwise: the shim judging, no capture, no blocking stream,
   one context and the same one, no hand-off to order (sc_hb_fast_submit).
   Sends it where the slow path would, counts it as the slow path counts a
   note (sampled ones go there, for their call sites), and returns 0;
   anything else returns 1 with the call untouched.  About 2 us a call less
   on a PyTorch training loop, where every launch is one
   (docs/PERFORMANCE.md, "Redirect's cost"). */
int sc_fast_redirect(sc_thread *t, sc_op *op)
{
    /* A wait is not work (kinds.def, SC_KF_WAIT): no submission to count
       for the tracker, and no stream turning busy; but it goes where the
       thread's work goes, after any hand-off, and the redirect table counts
       it as it counts the rest (sc_post's note sampling). */
    int wait = sc_kind_is(op->kind, SC_KF_WAIT);
    if (!sc_kind_is(op->kind, SC_KF_RDFAST))
        return 1;
    if (!t->rd.ctx || op->stream != NULL || op->pt ||
        atomic_load_explicit(&sc_g.mode, memory_order_relaxed) != SC_MODE_ACTIVE ||
        atomic_load_explicit(&sc_g.n_capturing, memory_order_relaxed) ||
        atomic_load_explicit(&sc_g.n_blocking, memory_order_relaxed) ||
        atomic_load_explicit(&sc_g.ptds_used, memory_order_relaxed) ||   /* SC101 would warn */
        atomic_load_explicit(&sc_g.n_ctx, memory_order_relaxed) != 1 ||
        t->rd.gen != atomic_load_explicit(&sc_g.ctx_gen, memory_order_relaxed))
        return 1;
    sc_own *own = t->rd.own;
    if (own && (!own->stream || own->ctx != t->rd.ctx || own->gen != t->rd.gen))
        return 1;
    void *fn = NULL;
    int route = route_of(op, own, &fn);
    if (route == RT_NONE || (route == RT_ENTRY && own))
        return 1;                   /* none, or the slow path's chained per-thread-stream call */
    uint64_t n = t->nnotes + 1;
    if (sc_note_sampled(n))
        return 1;                   /* the slow path counts it, with its call site */
    /* The current context: the one the slow path redirected in. */
    int saved = errno;
    CUcontext cur = NULL;
    int same = sc_d.CtxGetCurrent && sc_d.CtxGetCurrent(&cur) == CUDA_SUCCESS && cur == t->rd.ctx;
    errno = saved;
    if (!same)
        return 1;
    if (!wait && SC_UNLIKELY(sc_mark(t, &t->ptds_active))) {
        op->marks |= SC_M_CHECK701;
        return 1;                   /* the per-thread stream turned busy: count the queues */
    }
    if (sc_hb_fast_submit(wait ? -1 : own ? SC_HB_OWN : SC_HB_PTDS, cur) != 0)
        return 1;
    errno = saved;
    t->nnotes = n;
    op->lane = SC_LANE_PTDS;
    route_apply(op, route, own, fn);
    return 0;
}

void sc_redirect_post(sc_op *op)
{
    if (op->rd_chain) {
        /* --redirect-method=stream sent a synchronous copy or memset to the
           per-thread stream: the thread's own stream continues after it. */
        sc_own *o = op->rd_chain;
        order_after(CU_STREAM_PER_THREAD, o->event, o->stream);
    }
}
