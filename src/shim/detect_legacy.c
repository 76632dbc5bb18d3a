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

#include "detect.h"
#include "findings.h"
#include "hb.h"

/* Everything that lands on the legacy stream: launches, async copies and
   memsets, and the synchronous copies and memsets that run there.  SC102
   and SC103 are about all of them; redirect may move them. */
void sc_detect_legacy_common(sc_thread *t, sc_op *op, sc_count_q *cq)
{
    if (op->kind == SC_K_WAIT_EVENT) {
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
    }
    sc_hb_thread_legacy(t);
    op->marks |= SC_M_LEGACY;
    /* SC102: every blocking stream of the context must drain first; the
       finding belongs to the call that created it. */
    if (cq->blocking)
        op->marks |= SC_M_SC102;
    sc_redirect(t, op, cq);
}

/* Stream-ordered work (launches, async copies and memsets, waits, ...) on
   the legacy stream. */
void sc_detect_legacy_submission(sc_thread *t, sc_op *op)
{
    int is_cublas = sc_module_slot_is_cublas(sc_module_of(t, (uintptr_t)op->ra));
    /* The common case of a one-stream program (every launch of a default
       PyTorch program): no context lookup, no stream walk. */
    CUcontext ctx = NULL;
    sc_count_q cq = {NULL, 0, 0};
    if (atomic_load_explicit(&sc_g.n_live, memory_order_relaxed)) {
        ctx = sc_op_ctx(op);
        cq.ctx = ctx;
        sc_count_streams(&cq);
    }
    int others = cq.all > 0 || atomic_load(&sc_g.ptds_used);

    /* Memsets report SC202 and waits are not work; the rest is SC101, or
       SC601 when cuBLAS launched it. */
    if (op->kind != SC_K_WAIT_EVENT && op->kind != SC_K_MEMSET) {
        int pending = 0;
        if (others) {
            sc_busy_q q = {.ctx = ctx, .skip_legacy = 1};
            pending = sc_busy_others(t, &q) > 0;
        }
        if (is_cublas && others)
            sc_event_add(op, SC_RULE_SC601, SC_SEV_WARNING, pending);
        else
            sc_event_add(op, SC_RULE_SC101, others ? SC_SEV_WARNING : SC_SEV_NOTE, pending);
    }
    sc_detect_legacy_common(t, op, &cq);
}

/* SC102, after the call's other rules: one finding per blocking stream of
   the context, at the site that created it. */
struct sc102_q { sc_thread *t; sc_op *op; CUcontext ctx; };
static void sc102_stream(sc_stream *r, void *arg)
{
    struct sc102_q *q = arg;
    if (r->flags & CU_STREAM_NON_BLOCKING || (q->ctx && r->ctx && r->ctx != q->ctx))
        return;
    int busy = atomic_load(&sc_g.n_capturing) == 0 && !atomic_load(&r->capturing) &&
               sc_query_mark(&r->active, r->handle);
    sc_finding_add(q->t, SC_RULE_SC102, SC_SEV_WARNING, q->op->id, sc_tls_rt, r->create_site, 0, busy, 0, 1);
}

void sc_detect_sc102(sc_thread *t, sc_op *op)
{
    struct sc102_q q = {t, op, sc_op_ctx(op)};
    sc_streams_foreach(sc102_stream, &q);
}
