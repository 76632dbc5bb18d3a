/* detect_queue.c: the device's queues and configuration.
 *   SC701  more busy streams than hardware queues
 *          (CUDA_DEVICE_MAX_CONNECTIONS): streams share queues and their
 *          work serializes.  The fast path and sc_mark_lane (lanes.c) flag
 *          a stream turning busy past the limit (SC_M_CHECK701); the
 *          streams are counted exactly here.  A queue starts its work in
 *          the order it was queued, so a stream's work waits behind
 *          another's only where that work cannot start yet: a submission
 *          behind its own stream's unfinished work.  A created stream
 *          turning busy past the limit is an SC701 that says nothing yet
 *          (pending 0: a note where nothing measures it), and is watched:
 *          its next submission while it is marked busy comes here too, and
 *          if the stream still has work (cuStreamQuery, before the call)
 *          and the streams are still past the limit, that is the SC701
 *          that costs (pending 1).  Twelve streams of one kernel each gain
 *          nothing from more queues (an H200: 100.6 and 100.8 ms); 32 of two
 *          kernels each, NVIDIA's simpleHyperQ, run twice as fast.  The
 *          legacy and per-thread streams keep the count alone.  Behind the
 *          test hook STREAMCHECK_TEST_QUEUE_DEPTH=1 until a GPU judges it
 *          (simpleHyperQ and queue_limit in detect mode): without it every
 *          stream keeps the count alone, an SC701 with pending 1.
 *   SC501  a cache or shared-memory configuration change while other
 *          streams have unfinished work: it waits for them
 * SC701: PG, CUDA Environment Variables (CUDA_DEVICE_MAX_CONNECTIONS); PG,
 * Asynchronous Concurrent Execution > Concurrent Kernel Execution.
 * SC501: PG, Asynchronous Concurrent Execution > Streams > Implicit
 * Synchronization (a switch between the L1/shared memory configurations).
 */
#include "config.h"

#include "core.h"
#include "detect.h"
#include "lanes.h"
#include "real.h"

/* Whether created stream s has work from before this call (not yet made),
   asked without touching its busy mark, which the call has just set.  Not
   while a capture is under way: a query can invalidate it. */
static int earlier_work(CUstream s)
{
    if (atomic_load(&sc_g.n_capturing) > 0 || !sc_d.StreamQuery)
        return 0;
    return sc_d.StreamQuery(s) == CUDA_ERROR_NOT_READY;
}

void sc_detect_queues(sc_thread *t, sc_op *op)
{
    static _Atomic int depth = -1;
    if (SC_UNLIKELY(atomic_load_explicit(&depth, memory_order_relaxed) < 0))
        atomic_store(&depth, sc_test_switch("STREAMCHECK_TEST_QUEUE_DEPTH", 0));
    sc_stream *r = op->lane == SC_LANE_CREATED && atomic_load_explicit(&depth, memory_order_relaxed) ? op->srec
                                                                                                        : NULL;
    /* a watched stream's submission: behind its own unfinished work, or,
       where that is done, the stream turning busy again */
    int behind = r && atomic_exchange(&r->watch701, 0) && earlier_work(op->stream);
    /* Count every busy stream (ours included: it is about to get work).
       The hardware queues are each device's own: with several devices, the
       streams of the call's device are counted (after a count of all, which
       makes the global mark count exact again). */
    sc_busy_q q = {.ctx = NULL, .skip = op->lane == SC_LANE_CREATED ? op->srec : NULL,
                   .skip_legacy = op->lane == SC_LANE_LEGACY, .skip_ptds = op->lane == SC_LANE_PTDS};
    unsigned busy = sc_busy_recount(t, &q) + 1;
    if (busy > sc_g.max_conn && atomic_load(&sc_g.multi_ctx)) {
        sc_busy_q d = {.ctx = sc_op_ctx(op), .skip = q.skip, .skip_legacy = q.skip_legacy,
                       .skip_ptds = q.skip_ptds};
        busy = sc_busy_others(t, &d) + 1;
    }
    if (busy <= sc_g.max_conn)
        return;
    if (r && !behind)
        atomic_store(&r->watch701, 1);
    sc_event_add(op, SC_RULE_SC701, SC_SEV_WARNING, !r || behind);
}

void sc_detect_cache_config(sc_thread *t, sc_op *op)
{
    /* Against the streams the legacy stream orders with, like the other
       legacy-stream barriers. */
    sc_busy_q q = {.ctx = sc_op_ctx(op), .blocking_only = 1};
    if (sc_busy_others(t, &q) > 0)
        sc_event_add(op, SC_RULE_SC501, SC_SEV_WARNING, 1);
}
