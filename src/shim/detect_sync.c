/* detect_sync.c: synchronization calls.
 *   SC401  a context (device) synchronization where a stream or event
 *          synchronization would have waited for the same work
 *   SC402  a synchronization that found nothing to wait for
 *   SC403  a synchronization that waited for the GPU (priced at report time:
 *          what not waiting there would save, libstreamcheck(7), PRICING)
 * RT, cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize;
 * DRV, cuCtxSynchronize (rules.def has each rule's citation).
 */
#include "config.h"

#include "core.h"
#include "detect.h"
#include "lanes.h"
#include "real.h"

/* cuStreamSynchronize (after a legacy-lane call was considered for
   redirect: the lane it then waits for). */
void sc_detect_stream_sync(sc_thread *t, sc_op *op, const sc_facts *f)
{
    if (atomic_load(&sc_g.n_capturing) == 0 && !f->capturing && sc_lane_busy(t, op) == 0)
        sc_event_add(op, SC_RULE_SC402, SC_SEV_NOTE, 0);
}

/* cuEventSynchronize */
void sc_detect_event_sync(sc_op *op)
{
    if (sc_d.EventQuery && op->p1 && sc_d.EventQuery((CUevent)op->p1) == CUDA_SUCCESS)
        sc_event_add(op, SC_RULE_SC402, SC_SEV_NOTE, 0);
}

/* cuCtxSynchronize */
void sc_detect_ctx_sync(sc_thread *t, sc_op *op)
{
    sc_busy_q q = {.ctx = sc_op_ctx(op)};
    unsigned busy = sc_busy_others(t, &q);
    if (atomic_load(&sc_g.n_capturing) > 0)
        return;
    if (!busy)
        sc_event_add(op, SC_RULE_SC402, SC_SEV_NOTE, 0);
    else
        /* One busy stream: a stream or event synchronization would have
           waited for exactly the same work, and no more. */
        sc_event_add(op, SC_RULE_SC401, busy == 1 ? SC_SEV_WARNING : SC_SEV_NOTE, busy > 1);
}

/* SC403, after the call: a synchronization that waited for queued GPU
   work is a candidate (PG, Concurrent Execution between Host and Device:
   the host idles while it waits, and the GPU idles while the host works
   before it queues more).  Whether it starved the GPU, and by how much, is
   the pricing model's answer at report time (shim_report.c reports only
   what saves as much as a warning must).  A short wait is a candidate too:
   it may be short only because an earlier wait of the step drained the
   GPU, and with that one gone it would wait in its place (the model prices
   waits together, pricing.h).  A wait under SC403_MIN_WAIT_NS is the
   driver's round trip. */
#define SC403_MIN_WAIT_NS 1000
void sc_detect_waited(sc_op *op, uint64_t waited_ns)
{
    if (waited_ns < SC403_MIN_WAIT_NS || op->nev >= SC_MAX_EVENTS)
        return;
    for (unsigned i = 0; i < op->nev; i++)
        if (sc_rule_props[op->ev[i].rule].traits & SC_RF_IDLE)
            return;   /* it found nothing to wait for */
    /* a finding of its own at the call's site (the call may also be SC401) */
    op->ev[op->nev++] = (sc_event){SC_RULE_SC403, SC_SEV_WARNING, 0, 1, 0};
}
