/* settle.c: findings held until the thread's next slow call, which
 * decides what they cost (rules.def, HELD: which rules, and what decides).
 * A thread holds one at a time (sc_thread.held); its next slow call, or
 * the report, settles it.
 */
#include "config.h"

#include "detect.h"
#include "findings.h"
#include "kinds.h"
#include "settle.h"
#include "thread.h"

/* What came next decides some findings (rules.def, HELD): the call is
   held until the thread's next slow call (thread_parts.h, sc_held).
   - READ: a device-to-host copy into pageable memory followed by a
     synchronization of the same stream (or the device) with nothing
     submitted since is a deliberate synchronous read (PyTorch's .item()).
     Its wait is an SC403 candidate when it reads a result's few bytes
     (SC_PR_READ_MAX: a loss, a count, which the program could keep on the
     GPU; the pricing model says whether the GPU idled for it), not data the
     host works on (a tensor's .cpu(), which it cannot do without); the
     copy is SC203 only when pinning it is worth it:
     above SC_READ_PIN_MIN bytes (a scalar's 4 bytes copy in the time the
     call takes anyway; 4 MiB do not).
   - HOST: a call that blocked the host while other streams were busy cost
     that time only if the host had more work to submit right after: a
     final read of the results before a wait or the end of the program
     costs nothing an asynchronous call would have saved.
   - BARRIER: a barrier on the legacy stream while blocking streams were
     busy holds back only work submitted to other streams after it: a join
     before the host waits (a sum kernel over every stream's output, then a
     copy of the result) holds back nothing.
   t->seq moves with every submission the fast path marks (created and
   per-thread streams) and with slow-path ones after this check. */
#define SC_READ_PIN_MIN 65536

static unsigned held_mode(unsigned rule, int d2h)
{
    unsigned held = sc_rule_props[rule].held;
    return held == SC_HELD_READ && !d2h ? SC_HELD_NO : held;
}

int sc_held_settle(sc_thread *t, const sc_op *op)
{
    int read = 0, moved = t->seq != t->held.seq;
    sc_hit *h = &t->held.hit;
    t->held.live = 0;
    switch (t->held.mode) {
    case SC_HELD_READ:
        if (!moved && op->kind == SC_K_CTX_SYNC) {
            read = 1;
        } else if (!moved && op->kind == SC_K_STREAM_SYNC) {
            read = op->lane == t->held.lane && (op->lane != SC_LANE_CREATED || op->stream == t->held.stream);
        }
        break;
    case SC_HELD_HOST:
        if (!moved && !sc_kind_is(op->kind, SC_KF_WORK))
            h->cost_ns = 0;
        break;
    case SC_HELD_BARRIER:
        if (!moved && !(sc_kind_is(op->kind, SC_KF_WORK) && (op->stream || op->pt) && op->stream != CU_STREAM_LEGACY))
            h->pending = 0;
        break;
    }
    if (read)
        t->held.reads++;
    if (read && h->bytes <= SC_PR_READ_MAX) {
        sc_hit w = *h;
        w.rule = SC_RULE_SC403;
        w.sev = SC_SEV_WARNING;
        w.also = 0;
        w.cost_ns = 0;
        sc_finding_add(t, &w, 1);
    }
    if (!read || h->bytes > SC_READ_PIN_MIN)
        sc_finding_add(t, h, 1);
    return read;
}

void sc_held_flush(sc_thread *t)
{
    if (!t->held.live)
        return;
    t->held.live = 0;
    int moved = t->seq != t->held.seq;
    if (t->held.mode == SC_HELD_HOST && !moved)
        t->held.hit.cost_ns = 0;
    else if (t->held.mode == SC_HELD_BARRIER && !moved)
        t->held.hit.pending = 0;
    sc_finding_add(t, &t->held.hit, 1);
}

int sc_held_keep(sc_thread *t, const sc_op *op, const sc_hit *h)
{
    unsigned mode = held_mode(h->rule, op->dir == SC_DIR_D2H);
    if (!mode || !(mode == SC_HELD_READ || h->pending))
        return 0;
    sc_held_flush(t);
    t->held.mode = (uint8_t)mode;
    t->held.hit = *h;
    t->held.lane = op->lane;
    t->held.stream = op->stream;
    t->held.seq = t->seq;
    t->held.live = 1;
    return 1;
}
