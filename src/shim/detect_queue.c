/* detect_queue.c: the device's queues and configuration.
 *   SC701  more busy streams than hardware queues
 *          (CUDA_DEVICE_MAX_CONNECTIONS): streams share queues and their
 *          work serializes.  The fast path and sc_mark_lane (lanes.c) flag
 *          a stream turning busy past the limit (SC_M_CHECK701); the
 *          streams are counted exactly here.
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

void sc_detect_queues(sc_thread *t, sc_op *op)
{
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
    if (busy > sc_g.max_conn)
        sc_event_add(op, SC_RULE_SC701, SC_SEV_WARNING, 1);
}

void sc_detect_cache_config(sc_thread *t, sc_op *op)
{
    /* Against the streams the legacy stream orders with, like the other
       legacy-stream barriers. */
    sc_busy_q q = {.ctx = sc_op_ctx(op), .blocking_only = 1};
    if (sc_busy_others(t, &q) > 0)
        sc_event_add(op, SC_RULE_SC501, SC_SEV_WARNING, 1);
}
