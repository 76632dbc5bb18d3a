/* drain.h: the wait before a pageable async copy (drain.c).  SC203 prices
 * the copy alone, not the wait for its stream's earlier work that the
 * driver does first; to tell the two apart the slow path may wait for the
 * stream itself before the call (op->drain_ns).  It does on a sample of
 * the copies; the others' wait is told from their copy after the call, by
 * the rate the sampled ones were copied at.
 */
#ifndef SC_DRAIN_H
#define SC_DRAIN_H

#include <stdint.h>

#include "shim.h"

/* Before the real call of a pageable copy, once routed: waits for the
   stream (timed into op->drain_ns and op->drain_tk), or decides that the
   split comes after the call (SC_M_SPLIT_EST), or that there is nothing
   to wait for (lane_idle: the shim saw the stream drain since its last
   work).  A device-to-host copy into pages never written waits for its
   stream always, and then has them faulted in (op->touch_ns, touch.h).
   Sets SC_M_SPLIT unless nothing is to be split (a redirected call, a
   capture). */
void sc_drain_before(sc_op *op, int lane_idle);
/* After the real call, with the call's own time (blocked): the copy's
   part, which it returns, and the wait's, into op->drain_ns, for a copy
   that did not wait first; a copy that did teaches the rate. */
uint64_t sc_drain_after(sc_op *op, uint64_t blocked);
/* When the host began waiting in the call: before the wait for its stream
   if the slow path did that wait ahead of the real call, and before the
   touch of its destination's pages (touch.h) that follows the wait (the
   run log keeps both inside the call's span). */
static inline uint64_t sc_drain_began(const sc_op *op)
{
    uint64_t before = (op->marks & (SC_M_SPLIT | SC_M_SPLIT_EST)) == SC_M_SPLIT ? op->drain_ns : 0;
    return op->t0 - before - op->touch_ns;
}

#endif /* SC_DRAIN_H */
