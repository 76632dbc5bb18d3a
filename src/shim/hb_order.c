/* hb_order.c: redirect's waits (hb.h, "Redirect").  Before a thread's
 * redirected call, its stream waits for the redirected work of every thread
 * it synchronized with since its last one, where that work may be
 * unfinished: an event recorded on the other thread's own stream
 * (--redirect-method=stream), or the one that thread recorded on its
 * per-thread stream at its release (hb_clock.c, sc_hb_record_ptds_event).
 * Synchronizations that drain a thread's work (its stream, the context)
 * say so here, so nobody waits for it again.  The clocks themselves are
 * hb_clock.c's.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "core.h"
#include "hb_clock.h"
#include "real.h"
#include "thread.h"

void sc_hb_own_stream(sc_thread *t, CUcontext ctx, CUstream s, unsigned gen)
{
    (void)t;
    hb_thr *h = sc_hb_self;
    if (!h || h->slot < 0)
        return;
    hb_slot *sl = &sc_hb_slots[h->slot];
    hb_spin_lock(&sl->lock);
    int free_i = -1, i;
    for (i = 0; i < SC_OWN_MAX; i++) {
        if (sl->own[i].stream && sl->own[i].ctx == ctx)
            break;
        if (free_i < 0 && (!sl->own[i].stream || sl->own[i].gen != gen))
            free_i = i;
    }
    if (i == SC_OWN_MAX)
        i = free_i;
    if (i >= 0) {
        sl->own[i].ctx = ctx;
        sl->own[i].stream = s;
        sl->own[i].gen = gen;
    }
    hb_spin_unlock(&sl->lock);
}

static CUstream own_of(hb_slot *sl, CUcontext ctx, unsigned gen)
{
    CUstream s = NULL;
    hb_spin_lock(&sl->lock);
    for (unsigned i = 0; i < SC_OWN_MAX; i++)
        if (sl->own[i].stream && sl->own[i].ctx == ctx && sl->own[i].gen == gen)
            s = sl->own[i].stream;
    hb_spin_unlock(&sl->lock);
    return s;
}

/* This thread's event for pulling other threads' streams in ctx. */
static CUevent pull_event(hb_thr *h, CUcontext ctx, unsigned gen)
{
    int slot = -1;
    for (int i = 0; i < HB_PULL; i++) {
        if (h->pull[i].ev && h->pull[i].ctx == ctx && h->pull[i].gen == gen)
            return h->pull[i].ev;
        if (slot < 0 && (!h->pull[i].ev || h->pull[i].gen != gen))
            slot = i;
    }
    if (slot < 0 || !sc_d.EventCreate)
        return NULL;
    CUevent ev = NULL;
    if (sc_d.EventCreate(&ev, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS)
        return NULL;
    h->pull[slot].ctx = ctx;
    h->pull[slot].ev = ev;
    h->pull[slot].gen = gen;
    return ev;
}

/* Makes target wait for slot s's redirected work up to v.  0 done, -1 no. */
static int pull(hb_thr *h, unsigned s, uint64_t v, CUcontext ctx, CUstream target)
{
    hb_slot *sl = &sc_hb_slots[s];
    unsigned gen = atomic_load(&sc_g.ctx_gen);
    uint64_t lo = h->waited[s], idle = atomic_load_explicit(&sl->idle, memory_order_acquire);
    if (idle > lo)
        lo = idle;
    /* Its own stream in this context (method stream): record there now; the
       event covers at least everything it queued before its release. */
    CUstream os = atomic_load_explicit(&sl->own_last, memory_order_acquire) > lo ? own_of(sl, ctx, gen) : NULL;
    if (os) {
        CUevent ev = pull_event(h, ctx, gen);
        if (!ev || sc_d.EventRecord(ev, os) != CUDA_SUCCESS || sc_d.StreamWaitEvent(target, ev, 0) != CUDA_SUCCESS)
            return -1;
        atomic_fetch_add_explicit(&sc_hb_n_waits, 1, memory_order_relaxed);
    }
    /* Its per-thread stream: only its own event can reach it. */
    uint64_t pl = atomic_load_explicit(&sl->ptds_last, memory_order_acquire);
    if (atomic_load(&sl->stale) > lo)
        return -1;   /* an earlier occupant's, not covered by any event */
    if (pl > lo) {
        CUcontext wctx = atomic_load(&sl->ctx);
        if (atomic_load(&sl->multi))
            return -1;
        if (wctx != ctx)
            return 0;   /* another context's: the legacy stream never ordered it with ours */
        uint64_t need = pl < v ? pl : v;
        uint64_t eu = atomic_load_explicit(&sl->ev_upto, memory_order_acquire);
        CUevent ev = atomic_load(&sl->ev);
        if (eu < need || !ev || atomic_load(&sl->ev_ctx) != ctx || atomic_load(&sl->ev_gen) != gen)
            return -1;
        if (sc_d.StreamWaitEvent(target, ev, 0) != CUDA_SUCCESS)
            return -1;
        atomic_fetch_add_explicit(&sc_hb_n_waits, 1, memory_order_relaxed);
    }
    return 0;
}

int sc_hb_order(sc_thread *t, CUcontext ctx, CUstream target)
{
    (void)t;
    hb_thr *h = sc_hb_self;
    if (!h || !hb_on())
        return 0;
    sc_hb_take_pending();
    uint32_t others = h->mask & ~(h->slot >= 0 ? 1u << h->slot : 0u);
    if (!others)
        return 0;
    if (h->waited_ctx != ctx) {
        memset(h->waited, 0, sizeof h->waited);
        h->waited_ctx = ctx;
    }
    if (atomic_load(&sc_g.n_capturing) > 0)
        return 0;   /* nothing is redirected during a capture */
    if (!sc_d.EventRecord || !sc_d.StreamWaitEvent)
        return -1;
    int saved = errno, rc = 0;
    sc_hb_in = 1;
    for (uint32_t m = others; m; m &= m - 1) {
        unsigned s = (unsigned)__builtin_ctz(m);
        uint64_t v = h->c[s];
        if (v <= h->waited[s])
            continue;
        atomic_fetch_add_explicit(&sc_hb_n_handoffs, 1, memory_order_relaxed);
        if (!atomic_load_explicit(&sc_hb_no_order, memory_order_relaxed) &&
            v > atomic_load_explicit(&sc_hb_slots[s].idle, memory_order_acquire) &&
            pull(h, s, v, ctx, target) != 0) {
            rc = -1;
            break;
        }
        h->waited[s] = v;
    }
    sc_hb_in = 0;
    errno = saved;
    return rc;
}

int sc_hb_fast_submit(int where, CUcontext ctx)
{
    hb_thr *h = sc_hb_self;
    if (!h || h->slot < 0 || sc_hb_in || SC_UNLIKELY(sc_hb_pending != NULL) || !hb_on())
        return 1;
    uint32_t others = h->mask & ~(1u << h->slot);
    if (others && h->waited_ctx != ctx)
        return 1;
    for (uint32_t m = others; m; m &= m - 1) {
        unsigned s = (unsigned)__builtin_ctz(m);
        if (h->c[s] > h->waited[s])
            return 1;   /* a hand-off to look at: sc_hb_order, on the slow path */
    }
    if (where >= 0)
        sc_hb_submitted(NULL, where, ctx);
    return 0;
}

void sc_hb_kept_legacy(sc_thread *t)
{
    (void)t;
    hb_thr *h = sc_hb_self;
    if (!h)
        return;
    /* The legacy stream waits for every blocking stream's earlier work, and
       this thread's streams wait for it: everything seen so far is covered. */
    memcpy(h->waited, h->c, sizeof h->waited);
    atomic_fetch_add_explicit(&sc_hb_n_kept, 1, memory_order_relaxed);
}

void sc_hb_drained(sc_thread *t, CUcontext ctx)
{
    (void)t;
    hb_thr *h = sc_hb_self;
    if (!h || h->slot < 0)
        return;
    hb_slot *sl = &sc_hb_slots[h->slot];
    if (atomic_load(&sl->multi) || (atomic_load(&sl->ctx) && atomic_load(&sl->ctx) != ctx))
        return;
    if (atomic_load(&sl->stale) > atomic_load(&sl->idle))
        return;   /* a predecessor's per-thread stream is not this thread's to drain */
    atomic_store_explicit(&sl->idle, h->c[h->slot], memory_order_release);
}

void sc_hb_ctx_sync_begin(void)
{
    hb_thr *h = sc_hb_self;
    if (!h || !hb_on())
        return;
    uint32_t used = atomic_load(&sc_hb_slots_used);
    for (uint32_t m = used; m; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctz(m);
        h->snap[i] = atomic_load_explicit(&sc_hb_slots[i].nsub, memory_order_acquire);
    }
    h->snap_mask = used;
}

void sc_hb_ctx_sync_end(CUcontext ctx)
{
    hb_thr *h = sc_hb_self;
    if (!h || !hb_on())
        return;
    for (uint32_t m = h->snap_mask; m; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctz(m);
        hb_slot *sl = &sc_hb_slots[i];
        CUcontext c = atomic_load(&sl->ctx);
        if (atomic_load(&sl->multi) || (c && c != ctx))
            continue;
        uint64_t idle = atomic_load(&sl->idle);
        while (idle < h->snap[i] && !atomic_compare_exchange_weak(&sl->idle, &idle, h->snap[i]))
            ;
    }
    h->snap_mask = 0;
}

void sc_hb_stats(uint64_t *handoffs, uint64_t *waits, uint64_t *kept)
{
    *handoffs = atomic_load(&sc_hb_n_handoffs);
    *waits = atomic_load(&sc_hb_n_waits);
    *kept = atomic_load(&sc_hb_n_kept);
}
