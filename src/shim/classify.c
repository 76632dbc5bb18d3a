/* classify.c: the facts of a call the slow path judges (classify.h),
 * worked out once, before any detector runs.  What each costs decides
 * when it is asked: the lane and a copy's memory always (kinds.def says
 * which calls have them), the stream counts and the legacy stream's
 * barrier only for the calls whose rules need them, since a busy query
 * calls the driver and clears the marks of drained streams.
 */
#include "config.h"

#include <string.h>

#include "classify.h"
#include "core.h"
#include "kinds.h"
#include "lanes.h"
#include "memclass.h"
#include "modules.h"
#include "thread.h"

/* Legacy-lane work: does the legacy stream order it with another stream,
   and did one of those have unfinished work (classify.h, orders)? */
static void legacy_barrier(sc_thread *t, sc_facts *f)
{
    f->orders = f->cq.blocking > 0 || atomic_load(&sc_g.ptds_used);
    f->unordered = !f->orders;
    if (!f->orders)
        return;
    sc_busy_q q = {.ctx = f->cq.ctx, .skip_legacy = 1, .blocking_only = 1};
    f->held_back = sc_busy_others(t, &q) > 0;
}

/* Whether the host waits for a synchronous copy's lane to drain (track.c
   then clears its mark).  DRV, 2. API synchronization behavior (Memcpy,
   Synchronous), and PG Concurrent Execution between Host and Device:
   device-to-device copies do not block the host, pageable host-to-device
   copies return once staged. */
static int copy_drains(const sc_op *op)
{
    return op->dir == SC_DIR_D2H || op->dir == SC_DIR_H2H || op->dir == SC_DIR_PEER ||
           (op->dir == SC_DIR_H2D && !op->pageable);
}

/* The rules that judge legacy-lane work as a barrier: SC101 and SC601 (a
   note's kinds), SC202 (memsets), SC204 (synchronous device-to-device
   copies). */
static int judged_as_barrier(const sc_op *op)
{
    unsigned k = op->kind;
    return sc_kind_is(k, SC_KF_NOTE) || sc_kind_is(k, SC_KF_MEMSET) ||
           (sc_kind_is(k, SC_KF_SYNC) && sc_kind_is(k, SC_KF_COPY) && op->dir == SC_DIR_D2D);
}

/* Whether the lane's busy mark is clear: no work since the shim last saw
   it drain (a synchronization, a query).  Not a per-thread stream that
   redirect orders with a stream of the thread's own. */
static int lane_idle(sc_thread *t, sc_op *op)
{
    if (op->lane == SC_LANE_PTDS && t->has_own)
        return 0;
    _Atomic uint64_t *m = sc_lane_mark(t, op);
    return m && !atomic_load_explicit(m, memory_order_relaxed);
}

void sc_classify(sc_thread *t, sc_op *op, sc_facts *f)
{
    unsigned k = op->kind;
    memset(f, 0, sizeof *f);
    if (sc_kind_is(k, SC_KF_COPY))
        sc_classify_copy(op);
    if (sc_kind_is(k, SC_KF_LANE)) {
        sc_resolve_lane(t, op);
        f->capturing = (uint8_t)sc_lane_capturing(t, op);
    }
    if (sc_kind_is(k, SC_KF_COPY) && sc_kind_is(k, SC_KF_SYNC) && copy_drains(op))
        op->marks |= SC_M_DRAINS;
    if (sc_kind_is(k, SC_KF_COPY) && sc_kind_is(k, SC_KF_SUBMIT))
        f->pageable = op->pageable && (op->dir == SC_DIR_H2D || op->dir == SC_DIR_D2H);
    f->staged = (uint8_t)sc_staged_copy(op);
    if (f->pageable || f->staged)
        f->lane_idle = (uint8_t)lane_idle(t, op);
    int legacy = op->lane == SC_LANE_LEGACY;
    if (legacy && sc_kind_is(k, SC_KF_NOTE))
        f->cublas = (uint8_t)sc_module_slot_is_cublas(sc_module_of(t, (uintptr_t)op->ra));
    /* The common case of a one-stream program, or of one whose streams are
       all non-blocking (every launch of a default PyTorch program), counts
       without a context lookup or a stream walk (sc_count_op_streams). */
    if (sc_kind_is(k, SC_KF_SYNC) || (legacy && sc_kind_is(k, SC_KF_SUBMIT))) {
        sc_count_op_streams(op, &f->cq);
        f->counted = 1;
    }
    if (legacy && judged_as_barrier(op))
        legacy_barrier(t, f);
    if (legacy && f->orders && sc_kind_is(k, SC_KF_MEMSET))
        f->mem = (uint8_t)sc_mem_classify(op->p1, op->bytes);
}
