/* detect_copy.c: copies and memsets.
 *   SC201  a synchronous copy that blocks the host while other streams work
 *   SC202  a memset on the legacy stream (of memory not pinned): a barrier
 *          between the streams' commands
 *   SC203  an "async" copy of pageable host memory: it waits
 *   SC204  a synchronous device-to-device copy on the legacy stream
 *   SC702  copies both ways at once with a single copy engine
 * Memory kinds come from memclass.c.  The sections each decision rests on
 * are cited at the decision; each rule's full citation is in rules.def.
 */
#include "config.h"

#include "core.h"
#include "detect.h"
#include "lanes.h"
#include "memclass.h"
#include "real.h"

/* SC202, async memsets (cuMemsetD*Async).  PG Implicit Synchronization: a
   device memory set on the legacy stream is a barrier between the streams'
   commands. */
void sc_detect_memset_async(sc_thread *t, sc_op *op)
{
    sc_resolve_lane(t, op);
    if (op->lane == SC_LANE_LEGACY) {
        sc_count_q cq;
        sc_count_op_streams(op, &cq);
        sc_detect_memset_sync(t, op, &cq);
    }
}

/* The cost of SC203 is the copy, not the wait for the stream's earlier
   work: that work runs on the GPU either way, and the wait is what the
   driver does first anyway (DRV, 2. API synchronization behavior: "for
   transfers from pageable host memory to device memory, a stream sync is
   performed before the copy is initiated"; device to host returns once
   the copy, which follows the earlier work, has completed).  So wait here,
   timed, and the call's own blocked time is the copy alone: the time
   pinned memory gives back.  Not for redirected calls (their stream is
   another), nor during a capture. */
static void drain_first(sc_op *op)
{
    if (op->redirected || op->call || !sc_d.StreamSynchronize || atomic_load(&sc_g.n_capturing) > 0)
        return;
    CUstream s = op->lane == SC_LANE_LEGACY ? CU_STREAM_LEGACY
               : op->lane == SC_LANE_PTDS ? CU_STREAM_PER_THREAD : op->stream;
    if (op->lane == SC_LANE_CREATED && !s)
        return;
    uint64_t p0 = sc_prof_t0(), k0 = sc_tsc(), t0 = sc_now_ns();
    if (sc_d.StreamSynchronize(s) == CUDA_SUCCESS)
        op->drain_ns = sc_now_ns() - t0;
    /* The driver's own wait (it drains the stream before a pageable copy
       anyway): not the shim's time (sc_pre takes it off). */
    op->drain_tk = sc_tsc() - k0;
    sc_prof_add(sc_tls_self, SC_PH_DRAIN, p0, 0);
}

/* SC203 and SC702, async copies, once submitted (pageable: the host side
   is pageable and the copy goes to or from the device). */
void sc_detect_copy_async(sc_thread *t, sc_op *op, int pageable)
{
    if (sc_lane_capturing(t, op))
        return;
    /* DRV, 2. API synchronization behavior (Memcpy, Asynchronous):
       pageable memory makes the "async" copy wait for its stream
       (host to device) or for the copy itself (device to host). */
    if (pageable) {
        sc_busy_q q = {.ctx = sc_op_ctx(op), .skip = op->srec, .skip_legacy = op->lane == SC_LANE_LEGACY,
                       .skip_ptds = op->lane == SC_LANE_PTDS};
        sc_event_add(op, SC_RULE_SC203, SC_SEV_WARNING, sc_busy_others(t, &q) > 0);
        drain_first(op);
    }
    /* SC702: copies both ways at once need two copy engines (PG,
       Overlap of Data Transfer and Kernel Execution); a device's own. */
    int eng = atomic_load(&sc_g.async_engines);
    if (eng >= 0 && eng < 2 && (op->dir == SC_DIR_H2D || op->dir == SC_DIR_D2H)) {
        sc_busy_q q = {.ctx = sc_op_ctx(op), .skip = op->srec, .skip_legacy = 1, .skip_ptds = 1,
                       .dir = op->dir == SC_DIR_H2D ? SC_DIR_D2H : SC_DIR_H2D};
        if (sc_busy_others(t, &q) > 0)
            sc_event_add(op, SC_RULE_SC702, SC_SEV_WARNING, 1);
    }
    if (op->srec && (op->dir == SC_DIR_H2D || op->dir == SC_DIR_D2H))
        atomic_store(&op->srec->last_copy, op->dir);
}

/* SC201 and SC204, synchronous copies (cuMemcpy*, not Async); cq counts
   the created streams of the call's context.

   A synchronous peer copy (cuMemcpyPeer, or a synchronous copy between two
   devices' memory under unified addressing) is SC201: the driver API says
   cuMemcpyPeer "exhibits synchronous behavior for most use cases" (DRV,
   cuMemcpyPeer, and 2. API synchronization behavior), and the runtime API
   that cudaMemcpyPeer "is serialized with respect to all pending and future
   asynchronous work in to the current device, srcDevice, and dstDevice
   (use cudaMemcpyPeerAsync to avoid this synchronization)" (RT,
   cudaMemcpyPeer).  So the host waits, behind the work of three devices:
   other work pending on any of them is what makes it cost. */
void sc_detect_copy_sync(sc_thread *t, sc_op *op, const sc_count_q *cq)
{
    int pageable = op->pageable;
    sc_busy_q q = {.ctx = cq->ctx, .skip_legacy = op->lane == SC_LANE_LEGACY,
                   .skip_ptds = op->lane == SC_LANE_PTDS};
    if (op->dir == SC_DIR_PEER) {
        q.also[0] = op->peer_ctx[0];
        q.also[1] = op->peer_ctx[1];
    }
    /* DRV, 2. API synchronization behavior (Memcpy, Synchronous), and
       PG Concurrent Execution between Host and Device: device-to-device
       copies do not block the host, pageable host-to-device copies of
       64 KiB or less return once staged.  Everything else blocks. */
    if (op->dir == SC_DIR_D2D) {
        /* A barrier for the streams the legacy stream orders with. */
        int others = 0;
        int pending = op->lane == SC_LANE_LEGACY ? sc_legacy_serializes(t, cq, &others) : 0;
        if (others)
            sc_event_add(op, SC_RULE_SC204, SC_SEV_WARNING, pending);
    } else if (!(op->dir == SC_DIR_H2D && pageable && op->bytes <= 65536)) {
        sc_event_add(op, SC_RULE_SC201, SC_SEV_WARNING, sc_busy_others(t, &q) > 0);
    }
    /* Remember whether the host waits for the lane to drain (post). */
    if (op->dir == SC_DIR_D2H || op->dir == SC_DIR_H2H || op->dir == SC_DIR_PEER ||
        (op->dir == SC_DIR_H2D && !pageable))
        op->marks |= SC_M_DRAINS;
}

/* SC202, synchronous memsets (cuMemsetD*, not Async): as the async ones. */
void sc_detect_memset_sync(sc_thread *t, sc_op *op, const sc_count_q *cq)
{
    if (op->lane != SC_LANE_LEGACY)
        return;
    /* A barrier for the streams the legacy stream orders with. */
    int others = 0;
    int pending = sc_legacy_serializes(t, cq, &others);
    if (others && sc_mem_classify(op->p1, op->bytes) != SC_MEM_PINNED)
        sc_event_add(op, SC_RULE_SC202, SC_SEV_WARNING, pending);
}
