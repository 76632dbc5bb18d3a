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
#include "hb.h"
#include "kinds.h"
#include "lanes.h"
#include "measure.h"
#include "modules.h"
#include "redirect.h"
#include "streams.h"
#include "thread.h"

/* Everything that lands on the legacy stream: launches, async copies and
   memsets, and the synchronous copies and memsets that run there.  SC102
   and SC103 are about all of them; redirect may move them. */
void sc_detect_legacy_common(sc_thread *t, sc_op *op, sc_count_q *cq)
{
    if (sc_kind_is(op->kind, SC_KF_WAIT)) {
        sc_redirect(t, op, cq);
        return;
    }
    /* SC103 is judged at report time, over the threads found submitting
       concurrently (hb.h, sc_hb_legacy_concurrent, asked in sc_post); here
       we count where its work came from.  The first legacy-stream work of
       the process turns the order tracker on. */
    if (!t->used_legacy) {
        t->used_legacy = 1;
        atomic_fetch_add(&sc_g.legacy_threads, 1);
        sc_hb_new_legacy_thread();
    }
    sc_hb_thread_legacy(t);
    op->marks |= SC_M_LEGACY;
    /* SC102: every blocking stream of the context must drain first; the
       finding belongs to the call that created it. */
    if (cq->blocking)
        op->marks |= SC_M_SC102;
    sc_redirect(t, op, cq);
}

/* Whether the legacy stream orders this work with another stream, and
   whether one of those had unfinished work: then the legacy-stream work
   really serialized something.  Only blocking streams and per-thread
   streams count: the legacy stream does not synchronize with streams
   created cudaStreamNonBlocking (DRV, 3. Stream synchronization behavior),
   such as PyTorch's 128 pool streams, which are idle most of the time
   anyway.  others: such a stream exists; returns 1 when one was busy. */
int sc_legacy_serializes(sc_thread *t, const sc_count_q *cq, int *others)
{
    *others = cq->blocking > 0 || atomic_load(&sc_g.ptds_used);
    if (!*others)
        return 0;
    sc_busy_q q = {.ctx = cq->ctx, .skip_legacy = 1, .blocking_only = 1};
    return sc_busy_others(t, &q) > 0;
}

/* Stream-ordered work (launches, async copies and memsets, waits, ...) on
   the legacy stream. */
void sc_detect_legacy_submission(sc_thread *t, sc_op *op)
{
    int is_cublas = sc_module_slot_is_cublas(sc_module_of(t, (uintptr_t)op->ra));
    /* The common case of a one-stream program, or of one whose streams are
       all non-blocking (every launch of a default PyTorch program): no
       context lookup, no stream walk. */
    sc_count_q cq;
    sc_count_op_streams(op, &cq);
    /* Memsets report SC202 and waits are not work; the rest is SC101, or
       SC601 when cuBLAS launched it.  A warning only while a stream the
       legacy stream orders with exists; detect mode cannot price it, so the
       report keeps it a warning only if that stream was busy (pending). */
    if (sc_kind_is(op->kind, SC_KF_NOTE)) {
        int others = 0;
        int pending = sc_legacy_serializes(t, &cq, &others);
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
        if (is_cublas && (cq.program > 0 || atomic_load(&sc_g.ptds_used)))
            sc_event_add(op, SC_RULE_SC601, others ? SC_SEV_WARNING : SC_SEV_NOTE, pending);
        else
            sc_event_add(op, SC_RULE_SC101, others && !asked ? SC_SEV_WARNING : SC_SEV_NOTE, pending);
    }
    sc_detect_legacy_common(t, op, &cq);
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
