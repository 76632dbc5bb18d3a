/* dispatch.c: the slow path's entry points.  sc_pre() runs before the real
 * driver call and sc_post() after it.  sc_pre switches on the kind of call
 * and hands it to the detector of each rule family (detect.h lists them and
 * their rules); sc_post keeps the state for later calls (track.c) and
 * commits the call's findings with its blocked time and call site.
 */
#include "config.h"

#include "callsites.h"
#include "detect.h"
#include "findings.h"
#include "hb.h"

/* Work submitted to a stream: launches, async copies and memsets, host
   functions, graphs, event records and waits, stream-ordered allocation. */
static void submission(sc_thread *t, sc_op *op)
{
    sc_resolve_lane(t, op);
    if (sc_lane_capturing(t, op))
        return;     /* recorded into a graph: its cost comes with the graph launch */
    if (op->lane == SC_LANE_LEGACY)
        sc_detect_legacy_submission(t, op);
    if (op->kind != SC_K_WAIT_EVENT)
        sc_mark_lane(t, op);
}

/* --------------------------------------------------------------- pre --- */
/* Calls that can keep the host waiting: only these are timed (a clock read
   costs as much as the rest of a note's slow path). */
static int can_block(unsigned kind)
{
    switch (kind) {
    case SC_K_COPY: case SC_K_COPY_U: case SC_K_COPY2D: case SC_K_COPY3D:
    case SC_K_SCOPY: case SC_K_SCOPY_U: case SC_K_SCOPY2D: case SC_K_SCOPY3D: case SC_K_SMEMSET:
    case SC_K_ALLOC_DEV: case SC_K_ALLOC_MANAGED: case SC_K_FREE_DEV:
    case SC_K_ALLOC_HOST: case SC_K_FREE_HOST: case SC_K_REGISTER: case SC_K_UNREGISTER:
    case SC_K_STREAM_SYNC: case SC_K_EVENT_SYNC: case SC_K_CTX_SYNC: case SC_K_CACHE_CONFIG:
        return 1;
    default:
        return 0;
    }
}

/* SC101 notes: exact call sites for the first of a thread, then sampled. */
#define SC_NOTES_EXACT 256        /* a thread's first SC101 notes: exact sites */
#define SC_NOTE_SAMPLE 64         /* then one in 64 ... */
#define SC_NOTES_SAMPLED (SC_NOTES_EXACT + 256 * SC_NOTE_SAMPLE)
#define SC_NOTE_SAMPLE_LONG 1024  /* ... and after 256 such samples, one in 1024 */
_Static_assert((SC_NOTES_SAMPLED - SC_NOTES_EXACT) % SC_NOTE_SAMPLE_LONG == 0,
               "the long sampling period starts on one of its own multiples");

/* Our own time is sampled too: one slow call in SC_SLOW_SAMPLE is timed. */
#define SC_SLOW_SAMPLE 64

int sc_fast_timed(sc_thread *t, sc_op *op)
{
    t->nfast = 0;
    uint64_t t0 = sc_now_ns();
    int slow = sc_fast(t, op);
    atomic_fetch_add_explicit(&t->shim_ns, (sc_now_ns() - t0) * SC_FAST_SAMPLE, memory_order_relaxed);
    return slow;
}

void sc_pre(sc_thread *t, sc_op *op)
{
    /* Announce ourselves before looking at the mode: the report (at exit)
       turns the mode off, then waits for every thread to leave its slow
       path.  One of the two always sees the other's store: with membarrier
       the report pays for the fence (core.c), otherwise this store does. */
    op->nev = op->redirected = op->pageable = op->timed = op->bypass = op->has_ctx = 0;
    op->call = NULL;
    op->rd_chain = NULL;
    op->rd_where = 0;
    op->t0 = op->tin = 0;
    op->ctx = NULL;
    sc_busy_enter(t);
    if (atomic_load_explicit(&sc_g.mode, memory_order_relaxed) != SC_MODE_ACTIVE) {
        op->bypass = 1;
        return;
    }
    op->saved_errno = errno;
    if (++t->nslow == SC_SLOW_SAMPLE) {
        t->nslow = 0;
        op->tin = sc_now_ns();
    }
    op->timed = (uint8_t)can_block(op->kind);
    sc_drv_resolve();

    switch ((sc_kind)op->kind) {
    case SC_K_LAUNCH: case SC_K_HOSTFN: case SC_K_GRAPH: case SC_K_COPYBATCH:
    case SC_K_EVENT_RECORD: case SC_K_WAIT_EVENT: case SC_K_ALLOC_ASYNC: case SC_K_FREE_ASYNC:
        submission(t, op);
        break;

    case SC_K_MEMSET:
        sc_detect_memset_async(t, op);
        submission(t, op);
        break;

    case SC_K_COPY: case SC_K_COPY_U: case SC_K_COPY2D: case SC_K_COPY3D: {
        sc_classify_copy(op);
        sc_resolve_lane(t, op);
        int pageable = op->pageable && (op->dir == SC_DIR_H2D || op->dir == SC_DIR_D2H);
        submission(t, op);
        sc_detect_copy_async(t, op, pageable);
        break;
    }

    case SC_K_SCOPY: case SC_K_SCOPY_U: case SC_K_SCOPY2D: case SC_K_SCOPY3D: {
        sc_classify_copy(op);
        sc_resolve_lane(t, op);
        sc_count_q cq = {sc_op_ctx(op), 0, 0};
        sc_count_streams(&cq);
        sc_detect_copy_sync(t, op, &cq);
        if (op->lane == SC_LANE_LEGACY)
            sc_detect_legacy_common(t, op, &cq);
        sc_mark_lane(t, op);
        break;
    }

    case SC_K_SMEMSET: {
        sc_resolve_lane(t, op);
        sc_count_q cq = {sc_op_ctx(op), 0, 0};
        sc_count_streams(&cq);
        sc_detect_memset_sync(t, op, &cq);
        if (op->lane == SC_LANE_LEGACY)
            sc_detect_legacy_common(t, op, &cq);
        sc_mark_lane(t, op);
        break;
    }

    case SC_K_ALLOC_DEV: case SC_K_ALLOC_MANAGED: case SC_K_FREE_DEV:
    case SC_K_ALLOC_HOST: case SC_K_FREE_HOST: case SC_K_REGISTER: case SC_K_UNREGISTER:
        sc_detect_alloc(t, op);
        break;

    case SC_K_STREAM_CREATE: case SC_K_STREAM_DESTROY: case SC_K_CAPTURE_END: case SC_K_CTX_GONE:
    case SC_K_INIT:
        break;

    case SC_K_CAPTURE_BEGIN:
        sc_resolve_lane(t, op);
        break;

    case SC_K_STREAM_QUERY:
        sc_resolve_lane(t, op);
        if (op->lane == SC_LANE_LEGACY)
            sc_redirect(t, op, NULL);
        break;

    case SC_K_STREAM_SYNC:
        sc_resolve_lane(t, op);
        if (op->lane == SC_LANE_LEGACY)
            sc_redirect(t, op, NULL);
        sc_detect_stream_sync(t, op);
        break;

    case SC_K_EVENT_SYNC:
        sc_detect_event_sync(op);
        break;

    case SC_K_CTX_SYNC:
        sc_detect_ctx_sync(t, op);
        sc_hb_ctx_sync_begin();   /* what every thread had submitted by now drains */
        break;

    case SC_K_CACHE_CONFIG:
        sc_detect_cache_config(t, op);
        break;

    case SC_K_NONE:
        break;
    }

    if (t->has_own && op->lane == SC_LANE_PTDS && !op->redirected && !op->rd_chain)
        sc_order_with_own(t, op);
    if (op->marks & SC_M_CHECK701)
        sc_detect_queues(t, op);
    if (op->marks & SC_M_SC102)
        sc_detect_sc102(t, op);
    if (op->tin)
        op->tin = sc_now_ns() - op->tin;   /* now: time spent in here */
    errno = op->saved_errno;
}

/* -------------------------------------------------------------- post --- */
void sc_post(sc_thread *t, sc_op *op, CUresult r)
{
    if (op->bypass) {
        atomic_store(&t->busy, 0);
        return;
    }
    uint64_t t1 = op->timed || op->tin ? sc_now_ns() : 0;
    uint64_t walks0 = t->walk_ns;   /* counted in full by sc_callsite_capture */
    int err = errno;
    uint64_t blocked = op->timed ? t1 - op->t0 : 0;

    sc_redirect_post(op);
    sc_track_post(t, op, r);
    if ((op->marks & SC_M_LEGACY) && r == CUDA_SUCCESS) {
        /* SC103: does this submission race another thread's latest one?
           (Marks both threads' lifetimes; the report counts their sites.)
           Then the thread's clock component advances (hb.h). */
        sc_hb_legacy_concurrent(t);
        int rd = op->redirected == SC_RD_REDIRECTED;
        sc_hb_submitted(t, rd ? op->rd_where : SC_HB_LEGACY, rd ? sc_op_ctx(op) : NULL);
    }

    /* A call the driver rejected did nothing: no finding, and nothing to
       count for SC103 or SC303.  (A query's NOT_READY is not a rejection.) */
    if (r != CUDA_SUCCESS && !(r == CUDA_ERROR_NOT_READY && op->kind == SC_K_STREAM_QUERY)) {
        op->nev = 0;
        op->marks &= (uint8_t)~(SC_M_ALLOCSITE | SC_M_LEGACY);
    }
    /* The SC101 note of a one-stream program comes with every launch (every
       default PyTorch launch): the first SC_NOTES_EXACT of a thread get
       their call site exactly, after that one in SC_NOTE_SAMPLE is walked
       and counted for SC_NOTE_SAMPLE, and past SC_NOTES_SAMPLED one in
       SC_NOTE_SAMPLE_LONG (the report says the counts are estimates).  A
       stack walk through CUDA's libraries costs microseconds on a GPU host,
       against about 3 us for a launch: one in 1024 keeps it under 1%.
       Redirected calls are counted the same way: under redirect every
       legacy-stream launch is one, and the redirect table of the report
       needs their call sites, not a walk per launch.  Everything else is
       exact. */
    unsigned weight = 1;
    int rd_record = op->redirected != 0;   /* the redirect table gets this call */
    if (op->nev || (op->marks & (SC_M_ALLOCSITE | SC_M_LEGACY)) || op->redirected) {
        int note_only = !(op->marks & SC_M_ALLOCSITE) &&
                        (!op->redirected || op->redirected == SC_RD_REDIRECTED);
        for (unsigned i = 0; i < op->nev; i++)
            if (!(op->ev[i].rule == SC_RULE_SC101 && op->ev[i].sev == SC_SEV_NOTE))
                note_only = 0;
        if (note_only && ++t->nnotes > SC_NOTES_EXACT) {
            unsigned every = t->nnotes > SC_NOTES_SAMPLED ? SC_NOTE_SAMPLE_LONG : SC_NOTE_SAMPLE;
            if ((t->nnotes - SC_NOTES_EXACT) % every) {
                op->nev = 0;
                op->marks &= (uint8_t)~SC_M_LEGACY;
                rd_record = 0;
            } else {
                weight = every;
            }
        }
    }
    if (op->nev || (op->marks & (SC_M_ALLOCSITE | SC_M_LEGACY)) || rd_record) {
        /* Python frames cost 0.1-0.4 us (pyframes.c) and notes are already
           sampled above, so every reported site carries them: in PyTorch the
           Python line is the only useful part of an SC101 site. */
        uint64_t site = sc_callsite_capture(t);
        unsigned rt = sc_tls_rt;
        for (unsigned i = 0; i < op->nev; i++)
            sc_finding_add(t, op->ev[i].rule, op->ev[i].sev, op->id, rt,
                           op->ev[i].own_site ? op->ev[i].site : site, blocked, op->ev[i].pending,
                           op->bytes, weight);
        if (op->marks & SC_M_ALLOCSITE)
            sc_alloc_site_add(t, op->id, rt, site, op->bytes);
        if (op->marks & SC_M_LEGACY)
            sc_legacy_site_add(t, op->id, rt, site, weight, sc_hb_lifetime());
        if (rd_record)
            sc_redirect_add(t, op->id, rt, site, op->redirected, weight);
    }

    if (op->tin) {   /* a sampled call: count our time in pre and post, less its walks */
        uint64_t in = op->tin + (sc_now_ns() - t1), walks = t->walk_ns - walks0;
        atomic_fetch_add_explicit(&t->shim_ns, (in > walks ? in - walks : 0) * SC_SLOW_SAMPLE,
                                  memory_order_relaxed);
    }
    atomic_store_explicit(&t->busy, 0, memory_order_release);
    errno = err;
}
