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

/* SC402 is a synchronization with nothing queued to wait for since its
   work was last waited for: it can go.  One whose queued work merely
   finished before the call is no finding: the program may need it (a graph
   launch, then a sync before the host reads what the graph copied back:
   NVIDIA's jacobiCudaGraphs, whose small graph is done by the time the
   sync comes), and without it the host would not know the work is done.

   cuStreamSynchronize (after a legacy-lane call was considered for
   redirect: the lane it then waits for). */
void sc_detect_stream_sync(sc_thread *t, sc_op *op, const sc_facts *f)
{
    if (atomic_load(&sc_g.n_capturing) > 0 || f->capturing)
        return;
    int state = sc_lane_state(t, op);
    if (state == 0)
        sc_event_add(op, SC_RULE_SC402, SC_SEV_NOTE, 0);
    op->found_done = state == 2;
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
    if (!busy && q.finished)
        op->found_done = 1;
    else if (!busy)
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
   driver's round trip, as is the wait of a synchronization whose queued
   work had finished before it (found_done): the host was behind the GPU. */
#define SC403_MIN_WAIT_NS 1000
void sc_detect_waited(sc_op *op, uint64_t waited_ns)
{
    if (waited_ns < SC403_MIN_WAIT_NS || op->nev >= SC_MAX_EVENTS || op->found_done)
        return;
    for (unsigned i = 0; i < op->nev; i++)
        if (sc_rule_props[op->ev[i].rule].traits & SC_RF_IDLE)
            return;   /* it found nothing to wait for */
    /* a finding of its own at the call's site (the call may also be SC401) */
    op->ev[op->nev++] = (sc_event){SC_RULE_SC403, SC_SEV_WARNING, 0, 1, 0};
}
