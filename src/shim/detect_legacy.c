/* detect_legacy.c: work on the legacy (NULL) stream.
 *   SC101  work submitted to the legacy stream while other streams exist
 *          (a note when it is the only stream)
 *   SC102  legacy-stream work while blocking streams exist: it waits for
 *          them and they for it; reported at the streams' creation sites
 *   SC103  counted here (which threads and sites used the legacy stream),
 *          judged at report time
 *   SC601  a library (cuBLAS) launching on the legacy stream: its handle
 *          was given no stream
 * DRV, 3. Stream synchronization behavior (Legacy default stream): the
 * legacy stream waits for all blocking streams of its context, and they wait
 * for it; PG, Asynchronous Concurrent Execution > Streams > Default Stream
 * (SC103: per-thread default streams).  Each rule's full citation is its
 * DOC field in rules.def.
 */
#include "config.h"

#include "core.h"
#include "detect.h"
#include "findings.h"
#include "kinds.h"
#include "lanes.h"
#include "measure.h"
#include "streams.h"

/* Everything that lands on the legacy stream (kinds.def: submitted work,
   synchronous copies and memsets).  Memsets report SC202 and waits are not
   work; the rest is SC101, or SC601 when cuBLAS launched it.  A warning
   only while a stream the legacy stream orders with exists; detect mode
   cannot price it, so the report keeps it a warning only if that stream
   was busy (pending, sc_facts.held_back).  SC102 and SC103 are about all
   of them but waits. */
void sc_detect_legacy(sc_op *op, const sc_facts *f)
{
    if (sc_kind_is(op->kind, SC_KF_NOTE)) {
        /* An event recorded on the legacy stream is a point after all the
           blocking streams' work: how programs time or join several
           streams (NVIDIA's samples: "record in stream 0 to ensure that
           all previous CUDA calls have completed").  The program asked for
           that order; a note. */
        int asked = sc_kind_is(op->kind, SC_KF_JOIN);
        /* cuBLAS on the legacy stream while the program has streams of
           its own: SC601, a warning when the legacy stream orders with them
           (blocking streams), else a note (its work could have gone to
           them: PyTorch's idle pool streams make it a note).  NCCL's own
           streams are not the program's: its collectives run beside the
           legacy stream, and the program could not put its GEMMs there
           (DDP's gradient all-reduce during the backward pass). */
        if (f->cublas && (f->cq.program > 0 || atomic_load(&sc_g.ptds_used)))
            sc_event_add(op, SC_RULE_SC601, f->orders ? SC_SEV_WARNING : SC_SEV_NOTE, f->held_back);
        else
            sc_event_add(op, SC_RULE_SC101, f->orders && !asked ? SC_SEV_WARNING : SC_SEV_NOTE,
                         f->held_back);
    }
    if (sc_kind_is(op->kind, SC_KF_WAIT))
        return;
    /* SC103 is judged at report time, over the threads found submitting
       concurrently (hb.h, sc_hb_legacy_concurrent, asked in sc_post); here
       the call's site is counted. */
    op->marks |= SC_M_LEGACY;
    /* SC102: every blocking stream of the context must drain first; the
       finding belongs to the call that created it. */
    if (f->cq.blocking)
        op->marks |= SC_M_SC102;
}

/* SC102, after the call's other rules: one finding per blocking stream of
   the context, at the site that created it. */
struct sc102_q { sc_thread *t; sc_op *op; CUcontext ctx; uint8_t device; };
static void sc102_stream(sc_stream *r, void *arg)
{
    struct sc102_q *q = arg;
    if (r->flags & CU_STREAM_NON_BLOCKING || !sc_ctx_in(r->ctx, q->ctx, NULL))
        return;
    int busy = atomic_load(&sc_g.n_capturing) == 0 && !atomic_load(&r->capturing) &&
               sc_query_mark(&r->active, r->handle);
    /* A note: the barrier is the legacy-stream call's finding (SC101,
       SC202, ...), at the line that made it; this one says where the
       stream that made it a barrier was created. */
    sc_hit h = {.rule = SC_RULE_SC102, .sev = SC_SEV_NOTE, .pending = (uint8_t)busy, .device = q->device,
                .api = q->op->id, .rt = sc_tls_rt, .site = r->create_site, .mid = sc_measure_tls_mid};
    sc_finding_add(q->t, &h, 1);
}

void sc_detect_sc102(sc_thread *t, sc_op *op)
{
    struct sc102_q q = {t, op, sc_op_ctx(op), (uint8_t)sc_op_device(op)};
    sc_streams_foreach(sc102_stream, &q);
}
