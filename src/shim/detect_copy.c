/* detect_copy.c: copies and memsets.
 *   SC201  a synchronous copy that blocks the host while other streams work
 *   SC202  a memset on the legacy stream (of memory not pinned): a barrier
 *          between the streams' commands
 *   SC203  an "async" copy of pageable host memory: it waits
 *   SC204  a synchronous device-to-device copy on the legacy stream
 *   SC702  copies both ways at once with a single copy engine
 *   SC703  a stream's pinned copies in order with its kernels (a candidate:
 *          the pricing model says whether copy streams would save time)
 * Memory kinds come from the call's facts (classify.h).  The sections each
 * decision rests on are cited at the decision; each rule's full citation
 * is in rules.def.
 */
#include "config.h"

#include "classify.h"
#include "core.h"
#include "detect.h"
#include "lanes.h"
#include "memclass.h"
#include "real.h"

/* SC202, memsets (cuMemsetD*, async or not).  PG Implicit
   Synchronization: a device memory set on the legacy stream is a barrier
   between the streams' commands; a barrier for the streams the legacy
   stream orders with (sc_facts.orders).  Not of pinned host memory. */
void sc_detect_memset(sc_op *op, const sc_facts *f)
{
    if (op->lane == SC_LANE_LEGACY && f->orders && f->mem != SC_MEM_PINNED)
        sc_event_add(op, SC_RULE_SC202, SC_SEV_WARNING, f->held_back);
}

/* SC203, an async copy between the device and pageable host memory
   (sc_facts.pageable), once routed: DRV, 2. API synchronization behavior
   (Memcpy, Asynchronous): pageable memory makes the "async" copy wait for
   its stream (host to device) or for the copy itself (device to host).
   Pending when a stream other than its own had unfinished work.  Its cost
   is the copy alone: the dispatcher tells the wait for the stream's
   earlier work apart (drain.h). */
void sc_detect_pageable_copy(sc_thread *t, sc_op *op)
{
    sc_busy_q q = {.ctx = sc_op_ctx(op), .skip = op->srec, .skip_legacy = op->lane == SC_LANE_LEGACY,
                   .skip_ptds = op->lane == SC_LANE_PTDS};
    sc_event_add(op, SC_RULE_SC203, SC_SEV_WARNING, sc_busy_others(t, &q) > 0);
}

/* SC702, an async copy to or from the device while another stream copies
   the other way, with fewer than two copy engines: copies both ways at
   once need two (PG, Overlap of Data Transfer and Kernel Execution); a
   device's own. */
void sc_detect_copy_engines(sc_thread *t, sc_op *op)
{
    int eng = atomic_load(&sc_g.async_engines);
    if (eng >= 0 && eng < 2 && (op->dir == SC_DIR_H2D || op->dir == SC_DIR_D2H)) {
        sc_busy_q q = {.ctx = sc_op_ctx(op), .skip = op->srec, .skip_legacy = 1, .skip_ptds = 1,
                       .dir = op->dir == SC_DIR_H2D ? SC_DIR_D2H : SC_DIR_H2D};
        if (sc_busy_others(t, &q) > 0)
            sc_event_add(op, SC_RULE_SC702, SC_SEV_WARNING, 1);
    }
}

/* SC703, the first async copy of pinned memory (SC_RL_COPY_MIN bytes or
   more) of a thread's stream while runs are recorded (the dispatcher asks
   the run log, runlog.h: sc_rl_pipe_mark): its stream may queue copies in
   order with kernels that they could overlap (PG, Overlap of Data Transfer
   and Kernel Execution: copies and kernels of different streams run at once
   on a device with copy engines, those of one stream in order).  A
   candidate at the copy's own line, which the report keeps only where the
   pricing model predicts that copy streams save enough (shim_report.c). */
void sc_detect_pipeline(sc_op *op)
{
    if (op->nev < SC_MAX_EVENTS)
        op->ev[op->nev++] = (sc_event){SC_RULE_SC703, SC_SEV_WARNING, 0, 1, 0};
}

/* SC201 and SC204, synchronous copies (cuMemcpy*, not Async).

   A synchronous peer copy (cuMemcpyPeer, or a synchronous copy between two
   devices' memory under unified addressing) is SC201: the driver API says
   cuMemcpyPeer "exhibits synchronous behavior for most use cases" (DRV,
   cuMemcpyPeer, and 2. API synchronization behavior), and the runtime API
   that cudaMemcpyPeer "is serialized with respect to all pending and future
   asynchronous work in to the current device, srcDevice, and dstDevice
   (use cudaMemcpyPeerAsync to avoid this synchronization)" (RT,
   cudaMemcpyPeer).  So the host waits, behind the work of three devices:
   other work pending on any of them is what makes it cost. */
void sc_detect_copy_sync(sc_thread *t, sc_op *op, const sc_facts *f)
{
    sc_busy_q q = {.ctx = f->cq.ctx, .skip_legacy = op->lane == SC_LANE_LEGACY,
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
        if (f->orders)
            sc_event_add(op, SC_RULE_SC204, SC_SEV_WARNING, f->held_back);
    } else if (!(op->dir == SC_DIR_H2D && op->pageable && op->bytes <= SC_STAGED_MIN)) {
        sc_event_add(op, SC_RULE_SC201, SC_SEV_WARNING, sc_busy_others(t, &q) > 0);
    }
    /* A read of a result (C's loss.item(): cudaMemcpy of a few bytes to
       the host each step) waits for its lane's queued work as a
       synchronization does: an SC403 candidate, once the call says how long
       it waited (dispatch.c).  Not a program's output, which it needs where
       it reads it: its fix is SC201's. */
    if (sc_detect_small_read(op) && !f->capturing && atomic_load(&sc_g.n_capturing) == 0 && sc_lane_busy(t, op) > 0)
        op->marks |= SC_M_READ_WAITS;
}
