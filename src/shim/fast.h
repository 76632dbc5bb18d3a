/* fast.h: the fast path.  Every intercepted driver call runs sc_fast()
 * (through sc_fast_sampled): it counts the call and decides whether the
 * slow path (dispatch.h) must see it.  It reads the calling thread's
 * block and a few read-mostly globals, asks the lock-free stream table and
 * interval sets, never takes a lock, never calls the driver, never
 * allocates and never reads a clock (one call in SC_FAST_SAMPLE is timed:
 * fast.c).
 */
#ifndef SC_FAST_H
#define SC_FAST_H

#include <stdatomic.h>
#include <stdint.h>

#include "core.h"
#include "hostmem.h"
#include "kinds.h"
#include "lanes.h"
#include "modules.h"
#include "notes.h"
#include "occupancy.h"
#include "redirect.h"
#include "runlog.h"
#include "shim.h"
#include "streams.h"
#include "thread.h"
#include "track.h"

/* Work on the legacy stream while no stream it orders with exists (no
   blocking created stream, no per-thread stream used, no capture; under
   redirect sc_fast_redirect decides): every launch of a default PyTorch
   program, whose 128 pool streams are non-blocking.  The slow path would
   find an SC101 note (or an SC601 note, for cuBLAS) and nothing else, so
   the fast path counts it as the slow path would and sends only the
   sampled notes there.  It marks the legacy stream busy as the slow path
   would, through the mark the thread's last slow legacy call found (one
   context only: with several, a thread's current context needs a driver
   call).  Anything the slow path must see first takes it: the thread's
   first legacy work (SC103 counts the thread), a held finding to settle,
   stream-ordered allocation (tracked after the call). */
static inline int sc_fast_legacy(sc_thread *t, sc_op *op)
{
    op->lane = SC_LANE_LEGACY;
    _Atomic uint64_t *m = t->legacy_mark;
    if (!t->used_legacy || t->held.live || sc_kind_is(op->kind, SC_KF_TRACKED))
        return 1;
    if (sc_g.redirect)
        return sc_fast_redirect(t, op);
    if (!m || atomic_load_explicit(&sc_g.n_blocking, memory_order_relaxed) ||
        atomic_load_explicit(&sc_g.ptds_used, memory_order_relaxed) ||
        atomic_load_explicit(&sc_g.n_capturing, memory_order_relaxed) ||
        atomic_load_explicit(&sc_g.n_ctx, memory_order_relaxed) != 1)
        return 1;
    if (sc_kind_is(op->kind, SC_KF_WAIT))
        return 0;                   /* neither a note nor work */
    uint64_t n = t->nnotes + 1;
    if (sc_note_sampled(n))
        return 1;                   /* the slow path counts it */
    if (SC_UNLIKELY(sc_mark(t, m))) {
        op->marks |= SC_M_CHECK701;
        return 1;                   /* ditto */
    }
    t->nnotes = n;
    return 0;
}

/* A capture begun or ended on a created stream the shim knows (kinds.def,
   FAST CAPTURE): the slow path would judge nothing and only keep the
   stream's capture state after the call, which sc_fast_after does.  Not
   while a finding is held: the thread's next slow call settles it.  A
   stream made behind our back, or a per-thread stream's capture (the
   thread's own state), takes the slow path.  (cudaGraphsPerfScaling
   times a capture from the host: its begin, its launches, its end.) */
static inline int sc_fast_capture(sc_thread *t, sc_op *op)
{
    CUstream s = op->stream;
    if (s == NULL || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD || t->held.live)
        return 1;
    sc_stream *r = sc_stream_lookup(t, s);
    if (SC_UNLIKELY(!r))
        return 1;
    op->srec = r;
    op->lane = SC_LANE_CREATED;
    return 0;
}

/* After the real call of a call the fast path kept whose kind keeps state
   (kinds.def, FAST CAPTURE): that state, as sc_post would keep it. */
static inline CUresult sc_fast_after(sc_thread *t, sc_op *op, CUresult r)
{
    sc_track_post(t, op, r);
    return r;
}

/* An async copy from or to pinned memory of SC_RL_COPY_MIN bytes or more,
   while runs are recorded: the run log records it (its bytes, direction and
   device side: runlog.h), so the pricing model knows the copies a stream's
   kernels wait for (SC703).  The first such copy each way of each of the
   thread's streams takes the slow path (SC703's candidate, the pinned
   rate: dispatch.c); the others are handed to the wrapper as a watched call
   is, by SC_RL_WATCH_COPY in the thread's watch (a copy into a capturing
   stream runs nothing: the wrapper then counts it and clears the bit).
   Only the copy wrappers' branch of sc_fast pays for this.  1: the slow
   path. */
int sc_fast_copy_recorded(sc_thread *t, sc_op *op);
/* A unified copy (cuMemcpyAsync): both ends classified without the driver
   (device memory, or pinned memory), its direction set, and the above; 1:
   the slow path.  Both out of line (fast.c), so that the other calls' fast
   path keeps its registers. */
int sc_fast_copy_u(sc_thread *t, sc_op *op);

/* The fast path: counts the call and decides whether it needs the slow
   path.  Returns nonzero for the slow path. */
static inline __attribute__((always_inline)) int sc_fast(sc_thread *t, sc_op *op)
{
    unsigned mod = sc_module_of(t, (uintptr_t)op->ra);
    _Atomic uint64_t *c = &t->counts[mod][op->id];
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1, memory_order_relaxed);
    /* What the kind lets the fast path keep (kinds.def, FAST). */
    if (SC_UNLIKELY(!sc_kind_is(op->kind, SC_KFAST_WORK))) {
        if (sc_kind_is(op->kind, SC_KFAST_COPY)) {
            if (op->host && !sc_pinned_contains(op->host, op->bytes))
                return 1;       /* pageable: SC203 */
            if (op->bytes >= SC_RL_COPY_MIN && sc_fast_copy_recorded(t, op))
                return 1;       /* the first of its stream this way */
        } else if (sc_kind_is(op->kind, SC_KFAST_COPY_U)) {
            if (sc_fast_copy_u(t, op))
                return 1;
        } else if (sc_kind_is(op->kind, SC_KFAST_CAPTURE)) {
            return sc_fast_capture(t, op);
        } else {
            return 1;
        }
        if (atomic_load_explicit(&sc_g.slow_copies, memory_order_relaxed))
            return 1;
    }

    CUstream s = op->stream;
    if (s == NULL) {
        if (!op->pt)
            return sc_fast_legacy(t, op);
        goto ptds;
    }
    if (s == CU_STREAM_LEGACY)
        return sc_fast_legacy(t, op);
    if (s == CU_STREAM_PER_THREAD)
        goto ptds;
    {
        sc_stream *r = sc_stream_lookup(t, s);
        if (SC_UNLIKELY(!r))
            return 1;               /* a stream we have not seen created */
        op->srec = r;
        op->lane = SC_LANE_CREATED;
        if (SC_UNLIKELY(!atomic_load_explicit(&r->launched, memory_order_relaxed)) &&
            sc_kind_is(op->kind, SC_KF_KERNEL))
            return 1;               /* its first kernel: whose? (NCCL's streams, track.c) */
        if (atomic_load_explicit(&r->capturing, memory_order_relaxed)) {
            if (sc_kind_is(op->kind, SC_KF_WORK))
                t->rl.captured++;   /* counted by sc_fast_kept, taken off by the run log */
            return 0;               /* recorded into a graph, not executed */
        }
        if (SC_UNLIKELY(atomic_load_explicit(&r->watch701, memory_order_relaxed)) &&
            atomic_load_explicit(&r->active, memory_order_relaxed)) {
            op->marks |= SC_M_CHECK701;
            return 1;               /* behind its own work, past the queues? (SC701) */
        }
        if (SC_LIKELY(!sc_mark(t, &r->active)))
            return 0;
        op->marks |= SC_M_CHECK701;
        return 1;
    }
ptds:
    op->lane = SC_LANE_PTDS;
    if (SC_UNLIKELY(!atomic_load_explicit(&sc_g.ptds_used, memory_order_relaxed)))
        atomic_store_explicit(&sc_g.ptds_used, 1, memory_order_relaxed);
    if (SC_UNLIKELY(t->has_own))
        return 1;                   /* ordered with its redirect stream (redirect.c) */
    /* Several devices: the per-thread stream turning busy learns its
       context on the slow path, so other devices' queries can skip it. */
    if (SC_UNLIKELY(atomic_load_explicit(&sc_g.multi_ctx, memory_order_relaxed)) &&
        !atomic_load_explicit(&t->ptds_active, memory_order_relaxed) && !t->capturing_ptds)
        return 1;
    if (t->capturing_ptds) {
        if (sc_kind_is(op->kind, SC_KF_WORK))
            t->rl.captured++;
        return 0;
    }
    if (SC_LIKELY(!sc_mark(t, &t->ptds_active)))
        return 0;
    op->marks |= SC_M_CHECK701;
    return 1;
}

/* A call the fast path kept, for the run log (runlog.h): how many since
   the last recorded call, and where the last one went.  Only GPU work:
   an event recorded or waited for has no time of its own to be given
   (the GPU's busy time is shared among the submissions, pricing.c). */
static inline void sc_fast_kept(sc_thread *t, const sc_op *op)
{
    if (!sc_kind_is(op->kind, SC_KF_WORK))
        return;
    t->rl.nsub++;
    t->rl.last = op->stream;
    t->rl.last_pt = op->pt;
    if (sc_kind_is(op->kind, SC_KF_KERNEL)) {   /* op->grid, op->block, op->fn and op->shmem are set */
        t->rl.kernels++;
        t->rl.threads += (uint64_t)op->grid * op->block;
        if (SC_UNLIKELY(sc_occ_on))
            sc_occ_kept(&t->rl, op->fn, op->grid, op->block, op->shmem);
    }
}

/* The run log records the call the fast path kept: after a wait, a
   pinned copy, and an event's record or a wait for one where events are
   recorded (runlog.h, sc_rl_events).  GPU work is tested first: a launch
   or a copy pays for no more than the test sc_fast_kept makes anyway. */
static inline int sc_fast_watch(const sc_thread *t, const sc_op *op)
{
    return t->rl.watch || (!sc_kind_is(op->kind, SC_KF_WORK) && SC_UNLIKELY(sc_rl_events) &&
                           (op->kind == SC_K_EVENT_RECORD || op->kind == SC_K_WAIT_EVENT));
}

/* The fast path, timed once every SC_FAST_SAMPLE calls of a thread so the
   report can say what the shim cost without reading a clock per call (in
   profile mode, every call: sc_fast_timed sets the count back). */
int sc_fast_timed(sc_thread *t, sc_op *op);
enum { SC_FAST_WATCHED = 2 };
/* 0: the fast path keeps the call (counted for the run log); 1: the slow
   path; SC_FAST_WATCHED: kept, not counted: after a wait, or a pinned copy,
   the run log records the call instead (runlog.h: the wrapper asks
   sc_rl_watches, then sc_rl_watched records it or sc_fast_kept counts it). */
static inline int sc_fast_sampled(sc_thread *t, sc_op *op)
{
    if (SC_UNLIKELY(++t->nfast == SC_FAST_SAMPLE))
        return sc_fast_timed(t, op);
    int slow = sc_fast(t, op);
    if (SC_LIKELY(!slow)) {
        if (SC_UNLIKELY(sc_fast_watch(t, op)))
            return SC_FAST_WATCHED;
        sc_fast_kept(t, op);
    }
    return slow;
}

#endif /* SC_FAST_H */
