/* fast.c: the fast path's own time, measured on a sample (fast.h,
 * sc_fast_sampled): the rest of the fast path is inline, in the wrappers.
 */
#include "config.h"

#include "core.h"
#include "fast.h"
#include "thread.h"

/* Our own time (core.h, "own time"): the fast path is timed one call in
   SC_FAST_SAMPLE and counted for SC_FAST_SAMPLE calls; in profile mode
   every call is timed and counted once.  The slow path is timed in full,
   every call: since the fast path keeps the notes, slow calls are few, and
   a TSC read costs a few ns. */
__attribute__((noinline, cold)) int sc_fast_copy_recorded(sc_thread *t, sc_op *op)
{
    if (!sc_rl_copy_recorded(op))
        return 0;
    if (!sc_rl_piped(t, op))
        return 1;
    t->rl.watch |= SC_RL_WATCH_COPY;
    return 0;
}

__attribute__((noinline, cold)) int sc_fast_copy_u(sc_thread *t, sc_op *op)
{
    int d1 = sc_devmem_contains(op->p1), d2 = sc_devmem_contains(op->p2);
    if (!(d1 || sc_pinned_contains(op->p1, op->bytes)) || !(d2 || sc_pinned_contains(op->p2, op->bytes)))
        return 1;   /* an end we cannot classify without asking the driver */
    op->dir = d1 ? (d2 ? SC_DIR_D2D : SC_DIR_H2D) : (d2 ? SC_DIR_D2H : SC_DIR_H2H);
    return sc_fast_copy_recorded(t, op);
}

int sc_fast_timed(sc_thread *t, sc_op *op)
{
    uint64_t t0 = sc_tsc();
    int slow = sc_fast(t, op);
    if (!slow) {
        if (sc_fast_watch(t, op))
            slow = SC_FAST_WATCHED;
        else
            sc_fast_kept(t, op);
    }
    uint64_t dt = sc_tsc() - t0;
    dt = dt > sc_tsc_overhead ? dt - sc_tsc_overhead : 0;
    if (SC_UNLIKELY(sc_prof_on)) {
        t->nfast = SC_FAST_SAMPLE - 1;   /* time the next one too */
        t->prof[SC_PH_FAST].ticks += dt;
        t->prof[SC_PH_FAST].calls++;
    } else {
        t->nfast = 0;
        dt *= SC_FAST_SAMPLE;
    }
    atomic_fetch_add_explicit(&t->own_ticks, dt, memory_order_relaxed);
    return slow;
}
