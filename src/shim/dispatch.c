/* dispatch.c: the slow path's entry points.  sc_pre() runs before the real
 * driver call and sc_post() after it.  sc_pre hands the call to its kind's
 * handler (kinds.def, PRE), which calls the detector of each rule family
 * (detect.h lists them and their rules); sc_post keeps the state for later
 * calls (track.c) and commits the call's findings with its blocked time
 * and call site.
 */
#include "config.h"

#include "calibrate.h"
#include "callsites.h"
#include "classify.h"
#include "core.h"
#include "detect.h"
#include "dispatch.h"
#include "drain.h"
#include "findings.h"
#include "gpusample.h"
#include "hb.h"
#include "kinds.h"
#include "lanes.h"
#include "measure.h"
#include "notes.h"
#include "ranges.h"
#include "real.h"
#include "redirect.h"
#include "runlog.h"
#include "settle.h"
#include "streams.h"
#include "thread.h"
#include "track.h"

/* Profile mode: the phase of one detector call (shim.h, sc_phase). */
#define PH(ph, call)                        \
    do {                                    \
        uint64_t p0_ = sc_prof_t0();        \
        call;                               \
        sc_prof_add(t, (ph), p0_, 0);       \
    } while (0)

/* --------------------------------------------------------------- acts --- */
/* What the dispatcher does to the program's streams and its own state,
   beside the detectors, which only judge. */

/* The thread's legacy-stream work: SC103 counts the thread (it is judged
   at report time, over the threads found submitting concurrently, hb.h),
   and the first legacy-stream work of the process, or of a thread while
   the tracker rests, turns the order tracker on. */
static void legacy_thread(sc_thread *t)
{
    if (!t->used_legacy) {
        t->used_legacy = 1;
        atomic_fetch_add(&sc_g.legacy_threads, 1);
        sc_hb_new_legacy_thread();
    }
    sc_hb_thread_legacy(t);
}

/* Work that lands on the legacy stream: judged there, then, under
   --redirect, moved where redirect.c decides. */
static void legacy_work(sc_thread *t, sc_op *op, const sc_facts *f)
{
    sc_detect_legacy(op, f);
    if (!sc_kind_is(op->kind, SC_KF_WAIT))
        legacy_thread(t);
    sc_redirect(t, op, f->counted ? &f->cq : NULL);
}

/* An async copy, once routed and its lane marked: SC203 (then, on a
   sample, the wait for the stream's earlier work: drain.h), SC702, SC703's
   candidate (and the pinned rate: calibrate_pinned), and the direction its
   stream copied last, which SC702 asks about later copies. */
static void calibrate_pinned(sc_thread *t, sc_op *op, const sc_facts *f);
static void copy_routed(sc_thread *t, sc_op *op, const sc_facts *f)
{
    if (f->pageable) {
        sc_detect_pageable_copy(t, op);
        sc_drain_before(op, f->lane_idle);
    }
    sc_detect_copy_engines(t, op);
    if (!f->pageable && sc_rl_pipe_mark(t, op))
        sc_detect_pipeline(op);
    calibrate_pinned(t, op, f);
    if (op->srec && (op->dir == SC_DIR_H2D || op->dir == SC_DIR_D2H))
        atomic_store(&op->srec->last_copy, op->dir);
}

/* --------------------------------------------------------------- pre --- */
/* What the slow path does before the call, per kind (kinds.def, PRE), once
   the call is classified (sc_facts). */
static void pre_none(sc_thread *t, sc_op *op, const sc_facts *f)
{
    (void)t;
    (void)op;
    (void)f;
}

/* Work for a lane: what is submitted to a stream, and synchronous copies
   and memsets.  Judged where the program sent it, then routed, then its
   lane marked busy, then what depends on where it went. */
static void pre_work(sc_thread *t, sc_op *op, const sc_facts *f)
{
    unsigned k = op->kind;
    if (f->capturing && sc_kind_is(k, SC_KF_SUBMIT))
        return;     /* recorded into a graph: its cost comes with the graph launch */
    if (sc_kind_is(k, SC_KF_MEMSET))
        PH(SC_PH_COPY, sc_detect_memset(op, f));
    if (sc_kind_is(k, SC_KF_COPY) && sc_kind_is(k, SC_KF_SYNC))
        PH(SC_PH_COPY, sc_detect_copy_sync(t, op, f));
    if (op->lane == SC_LANE_LEGACY)
        PH(SC_PH_LEGACY, legacy_work(t, op, f));
    /* its wait for the stream and its staging told apart, as an async one's,
       once redirect has decided where it goes (drain.c waits for no
       redirected call) */
    if (f->staged)
        PH(SC_PH_COPY, sc_drain_before(op, f->lane_idle));
    if (!sc_kind_is(k, SC_KF_WAIT))
        sc_mark_lane(t, op);
    if (sc_kind_is(k, SC_KF_COPY) && sc_kind_is(k, SC_KF_SUBMIT))
        PH(SC_PH_COPY, copy_routed(t, op, f));
}

static void pre_alloc(sc_thread *t, sc_op *op, const sc_facts *f)
{
    (void)f;
    PH(SC_PH_ALLOC, sc_detect_alloc(t, op));
}

static void pre_stream_query(sc_thread *t, sc_op *op, const sc_facts *f)
{
    (void)f;
    if (op->lane == SC_LANE_LEGACY)
        PH(SC_PH_REDIRECT, sc_redirect(t, op, NULL));
}

static void pre_stream_sync(sc_thread *t, sc_op *op, const sc_facts *f)
{
    if (op->lane == SC_LANE_LEGACY)
        PH(SC_PH_REDIRECT, sc_redirect(t, op, NULL));
    PH(SC_PH_SYNC, sc_detect_stream_sync(t, op, f));
}

static void pre_event_sync(sc_thread *t, sc_op *op, const sc_facts *f)
{
    (void)f;
    PH(SC_PH_SYNC, sc_detect_event_sync(op));
}

static void pre_ctx_sync(sc_thread *t, sc_op *op, const sc_facts *f)
{
    (void)f;
    PH(SC_PH_SYNC, sc_detect_ctx_sync(t, op));
    sc_hb_ctx_sync_begin();   /* what every thread had submitted by now drains */
}

static void pre_cache_config(sc_thread *t, sc_op *op, const sc_facts *f)
{
    (void)f;
    PH(SC_PH_QUEUE, sc_detect_cache_config(t, op));
}

static void (*const pre_of[SC_NKINDS])(sc_thread *, sc_op *, const sc_facts *) = {
#define SC_KIND(NAME, FAST, PRE, TRACK, FLAGS) [SC_K_##NAME] = pre_##PRE,
#include "kinds.def"
#undef SC_KIND
};

void sc_pre(sc_thread *t, sc_op *op)
{
    /* Announce ourselves before looking at the mode: the report (at exit)
       turns the mode off, then waits for every thread to leave its slow
       path.  One of the two always sees the other's store: with membarrier
       the report pays for the fence (core.c), otherwise this store does. */
    uint64_t tin = sc_tsc();
    op->nev = op->redirected = op->pageable = op->timed = op->bypass = op->has_ctx = 0;
    op->call = NULL;
    op->rd_chain = NULL;
    op->rd_where = 0;
    op->t0 = op->tin = op->drain_ns = op->drain_tk = op->touch_ns = 0;
    op->ctx = NULL;
    op->rl = 0;
    op->gs_hold = op->touch_again = op->found_done = 0;
    sc_busy_enter(t);
    if (atomic_load_explicit(&sc_g.mode, memory_order_relaxed) != SC_MODE_ACTIVE && !sc_busy_begin(t)) {
        op->bypass = 1;
        return;
    }
    op->saved_errno = errno;
    /* The GPU sampler does not query a stream while it is destroyed. */
    if (op->kind == SC_K_STREAM_DESTROY || op->kind == SC_K_CTX_GONE) {
        sc_gs_hold();
        op->gs_hold = 1;
    }
    /* Only calls that can keep the host waiting are timed: a clock read
       costs as much as the rest of a note's slow path. */
    op->timed = sc_kind_is(op->kind, SC_KF_BLOCKS);
    sc_drv_resolve();
    sc_facts f;
    sc_classify(t, op, &f);
    int sync_read = 0;
    if (SC_UNLIKELY(t->held.live)) {
        uint64_t p0 = sc_prof_t0();
        sync_read = sc_held_settle(t, op);
        sc_prof_add(t, SC_PH_HELD, p0, 0);
    }
    pre_of[op->kind](t, op, &f);
    if (op->bypass) {
        errno = op->saved_errno;   /* a report began while the driver waited (drain.c) */
        return;
    }

    if (sync_read) {
        /* The copy of the read has completed: the synchronization finds
           nothing to wait for, by design, not redundantly (no SC402). */
        unsigned k = 0;
        for (unsigned i = 0; i < op->nev; i++)
            if (!(sc_rule_props[op->ev[i].rule].traits & SC_RF_IDLE))
                op->ev[k++] = op->ev[i];
        op->nev = (uint8_t)k;
    }
    if (t->has_own && op->lane == SC_LANE_PTDS && !op->redirected && !op->rd_chain)
        sc_order_with_own(t, op);
    /* Measured mode: tie this call's GPU work to its findings (SC102's
       are committed right below). */
    if (SC_UNLIKELY(sc_measure_active) &&
        (op->nev || (op->marks & (SC_M_ALLOCSITE | SC_M_SC102 | SC_M_CHECK701))))
        sc_measure_pre(op, f.unordered);
    if (op->marks & SC_M_CHECK701)
        PH(SC_PH_QUEUE, sc_detect_queues(t, op));
    if (op->marks & SC_M_SC102)
        PH(SC_PH_SC102, sc_detect_sc102(t, op));
    /* Ticks spent in here, less the wait drain.c did for the driver. */
    uint64_t dt = sc_tsc() - tin;
    op->tin = dt > op->drain_tk ? dt - op->drain_tk : 0;
    sc_busy_driver(t);
    errno = op->saved_errno;
}

/* ------------------------------------------------------ one finding --- */
/* One call, one finding: when a call breaks several rules (an async copy
   from pageable memory on the legacy stream is SC203 and SC101), it is
   reported under the most specific (rules.def, SPECIFICITY), the others
   listed under it. */
static unsigned specificity(unsigned rule)
{
    return sc_rule_props[rule].specificity;
}

/* -------------------------------------------------------------- post --- */
/* The call's findings: events at another site (SC102's creation sites)
   each on their own; of the rest, the most specific, with the others in
   its also bits.  blocked is the real call's time: for SC203 the wait for
   earlier work, done before it or told from it (drain.h), is added back to
   the blocked time here, not to the cost. */
static void commit_events(sc_thread *t, sc_op *op, uint64_t site, unsigned rt, uint64_t blocked,
                          unsigned weight, unsigned device, unsigned range)
{
    int main_ev = -1;
    uint32_t also = 0;
    int pending = 0;
    for (unsigned i = 0; i < op->nev; i++) {
        const sc_event *e = &op->ev[i];
        if (e->own_site) {
            sc_hit h = {.rule = e->rule, .sev = e->sev, .pending = e->pending, .device = (uint8_t)device,
                        .api = op->id, .rt = (uint16_t)rt, .site = e->site ? e->site : site,
                        .blocked_ns = blocked, .bytes = op->bytes, .mid = sc_measure_tls_mid, .range = range,
                        .rl = op->rl};
            sc_finding_add(t, &h, weight);
            continue;
        }
        pending |= e->pending;
        if (main_ev < 0 || specificity(e->rule) < specificity(op->ev[main_ev].rule)) {
            if (main_ev >= 0)
                also |= 1u << op->ev[main_ev].rule;
            main_ev = (int)i;
        } else {
            also |= 1u << e->rule;
        }
    }
    if (main_ev < 0)
        return;
    const sc_event *e = &op->ev[main_ev];
    sc_hit h = {.rule = e->rule, .sev = e->sev, .pending = (uint8_t)pending, .device = (uint8_t)device,
                .api = op->id, .rt = (uint16_t)rt,
                .also = also, .site = site, .blocked_ns = blocked + op->drain_ns + op->touch_ns, .bytes = op->bytes,
                .cost_ns = sc_rule_cost(e->rule, blocked, pending), .mid = sc_measure_tls_mid, .range = range,
                .rl = op->rl};
    /* Some findings wait for what the thread does next (settle.c). */
    if (weight == 1 && !op->redirected && sc_held_keep(t, op, &h))
        return;
    sc_finding_add(t, &h, weight);
}

/* After the call: the state it left (track.c), and for legacy-stream
   work SC103's question, whether it raced another thread's latest
   submission (marking both threads' lifetimes; the report counts their
   sites), then the thread's clock component advances (hb.h). */
static void track_after(sc_thread *t, sc_op *op, CUresult r)
{
    uint64_t q0 = sc_prof_t0();
    sc_track_post(t, op, r);
    if ((op->marks & SC_M_LEGACY) && r == CUDA_SUCCESS) {
        sc_hb_legacy_concurrent(t);
        int rd = op->redirected == SC_RD_REDIRECTED;
        sc_hb_submitted(t, rd ? op->rd_where : SC_HB_LEGACY, rd ? sc_op_ctx(op) : NULL);
    }
    sc_prof_add(t, SC_PH_TRACK, q0, 0);
}

/* The SC101 note of a one-stream program comes with every launch (every
   default PyTorch launch; SC601 notes with cuBLAS's): the first
   SC_NOTES_EXACT of a thread get their call site exactly, after that one
   in SC_NOTE_SAMPLE is walked and counted for SC_NOTE_SAMPLE, and past
   SC_NOTES_SAMPLED one in SC_NOTE_SAMPLE_LONG (the report says the counts
   are estimates; rules.def, SC_RF_SAMPLED, says which rules).  A stack
   walk through CUDA's libraries costs microseconds on a GPU host, against
   about 3 us for a launch: one in 1024 keeps it under 1%.  Where nothing
   else can be found the fast path keeps the unsampled ones
   (sc_fast_legacy) and counts them in t->nnotes; the samples come here.
   Redirected calls are counted the same way: under redirect every
   legacy-stream launch is one, and the redirect table of the report needs
   their call sites, not a walk per launch.  Everything else is exact.
   Returns the weight the call is counted with, 0 when it is not counted:
   then only what the fast path would have counted is left of it. */
static unsigned note_weight(sc_thread *t, sc_op *op)
{
    int note_only = !(op->marks & SC_M_ALLOCSITE) && (!op->redirected || op->redirected == SC_RD_REDIRECTED);
    for (unsigned i = 0; i < op->nev; i++)
        if (!((sc_rule_props[op->ev[i].rule].traits & SC_RF_SAMPLED) && op->ev[i].sev == SC_SEV_NOTE))
            note_only = 0;
    if (!note_only || ++t->nnotes <= SC_NOTES_EXACT)
        return 1;
    if (!sc_note_sampled(t->nnotes)) {
        op->nev = 0;
        op->marks &= (uint8_t)~SC_M_LEGACY;
        return 0;
    }
    return t->nnotes > SC_NOTES_SAMPLED ? SC_NOTE_SAMPLE_LONG : SC_NOTE_SAMPLE;
}

/* What the call leaves in the tables: its findings, its allocation
   (SC303), its legacy-stream work (SC103), each under the innermost NVTX
   range it was in, and its redirect.  With --range, a call outside that
   range leaves only its redirect (ranges.h). */
static void commit(sc_thread *t, sc_op *op, uint64_t blocked, unsigned weight, int rd_record)
{
    int scoped = sc_range_in_scope();
    if (!scoped && !rd_record)
        return;
    /* Python frames cost 0.1-0.4 us (pyframes.c) and notes are already
       sampled, so every reported site carries them: in PyTorch the Python
       line is the only useful part of an SC101 site. */
    uint64_t site = sc_callsite_capture(t);
    unsigned range = sc_range_current();
    unsigned rt = sc_tls_rt;
    /* The call's device: its context's (asked once per call, cached per
       context), after the call so a context the call made counts. */
    unsigned device = sc_op_device(op);
    uint64_t c0 = sc_prof_t0();
    if (scoped)
        commit_events(t, op, site, rt, blocked, weight, device, range);
    if (scoped && (op->marks & SC_M_ALLOCSITE))
        sc_alloc_site_add(t, op->id, rt, site, op->bytes, blocked, device, range, op->rl);
    if (scoped && (op->marks & SC_M_LEGACY))
        sc_legacy_site_add(t, op->id, rt, site, weight, device, sc_hb_lifetime(), range);
    if (rd_record)
        sc_redirect_add(t, op->id, rt, site, op->redirected, weight);
    sc_prof_add(t, SC_PH_COMMIT, c0, 0);
}

/* Our time in pre and post, walks included, the real call not. */
static void own_time(sc_thread *t, const sc_op *op, uint64_t p0)
{
    uint64_t post = sc_tsc() - p0;
    atomic_fetch_add_explicit(&t->own_ticks, op->tin + post, memory_order_relaxed);
    if (op->rl)
        sc_rl_own(t, op->rl, op->tin + post);
    if (SC_UNLIKELY(sc_prof_on)) {
        sc_prof_cell *c = t->prof;
        c[SC_PH_PRE].ticks += op->tin;
        c[SC_PH_PRE].calls++;
        c[SC_PH_POST].ticks += post;
        c[SC_PH_POST].calls++;
        c[SC_PH_SLOW].ticks += op->tin + post;
        c[SC_PH_SLOW].calls++;
    }
}

/* How long the call waited for earlier GPU work, for the run log: a
   synchronization's whole time, a pageable copy's drain (timed apart
   before it), a synchronous copy that drains its lane, an allocation that
   synchronized the device (an SC301 or SC302 event found work pending). */
static uint64_t waited(const sc_op *op, uint64_t blocked)
{
    if (op->kind == SC_K_STREAM_SYNC || op->kind == SC_K_CTX_SYNC || op->kind == SC_K_EVENT_SYNC)
        return blocked;
    if (op->drain_ns)
        return op->drain_ns;
    if (sc_kind_is(op->kind, SC_KF_SYNC))
        return (op->marks & SC_M_DRAINS) ? blocked : 0;
    for (unsigned i = 0; i < op->nev; i++)
        if ((op->ev[i].rule == SC_RULE_SC301 || op->ev[i].rule == SC_RULE_SC302) && op->ev[i].pending)
            return blocked;
    return 0;
}

/* The pinned rate a copy's fix would have (calibrate.h): timed after the
   first copy of a device and direction that a pinning fix would change,
   large enough to say a rate (a scalar's copy is all latency).  The timing
   is the driver's part of the call (core.h, the handshake: its pinned
   allocation waits for the device): 0 when a report began meanwhile and
   the tables are the report's. */
static int calibrate(sc_thread *t, unsigned dev, int d2h, uint64_t bytes)
{
    uint64_t p0 = sc_prof_t0();
    sc_busy_driver(t);
    sc_cal_note(dev, d2h, bytes);   /* its copies are left out of measured mode's timeline (measure.c) */
    int back = sc_busy_back(t);
    sc_prof_add(t, SC_PH_CALIBRATE, p0, 0);
    return back;
}

static int calibrate_after(sc_thread *t, sc_op *op)
{
    if (op->bytes < 65536 || (op->dir != SC_DIR_H2D && op->dir != SC_DIR_D2H))
        return 1;
    for (unsigned i = 0; i < op->nev; i++)
        if (sc_rule_props[op->ev[i].rule].fix == SC_FIX_PIN) {
            unsigned dev = sc_op_device(op);
            if (dev == SC_DEV_UNKNOWN || !sc_cal_wanted(dev, op->dir == SC_DIR_D2H))
                return 1;
            return calibrate(t, dev, op->dir == SC_DIR_D2H, op->bytes);
        }
    return 1;
}

/* Whether the program uses one context and no other thread of it has used
   CUDA (the run log's threads: one at most, this one), and no stream of the
   context has work (asked of the streams with marks, cuStreamQuery; none
   only by mark): the timing's copies (on the legacy stream) and
   allocations, which synchronize, then hold nothing of the program's back,
   and no other thread queues work meanwhile.  With two devices a pinned
   allocation waited for the other device's work: on 2 H200s
   multigpu_peer's read-back, which races its own peer copy, then read
   the copy's later result (its checksum three times the native one).
   (Counting every thread with a record, not the run log's, left the rate
   untimed on a GPU.)  The call's own stream is asked without clearing its
   mark: sc_mark_lane has just marked it for this very copy, and a query
   that found it empty (the copy not yet queued) cleared the mark, so the
   synchronization after the copy said it found nothing to wait for (SC402,
   priced at the copy's whole time). */
static int device_idle(sc_thread *t, sc_op *op)
{
    if (atomic_load(&sc_g.n_ctx) > 1 || sc_rl_threads() > 1)
        return 0;
    sc_busy_q q = {.ctx = sc_op_ctx(op), .skip = op->srec, .skip_legacy = op->lane == SC_LANE_LEGACY,
                   .skip_ptds = op->lane == SC_LANE_PTDS};
    if (sc_busy_others(t, &q) != 0 || q.unverified)
        return 0;
    if (op->lane == SC_LANE_NONE || !sc_d.StreamQuery)
        return op->lane == SC_LANE_NONE;
    CUstream own = op->lane == SC_LANE_LEGACY ? CU_STREAM_LEGACY
                 : op->lane == SC_LANE_PTDS ? CU_STREAM_PER_THREAD : op->stream;
    return sc_d.StreamQuery(own) == CUDA_SUCCESS;
}

/* The pinned rate of an async copy of pinned memory, which the run log
   records at that rate (SC703: runlog.h): timed before the call, where the
   device has no work, so that the timing's own copies and allocations
   (which synchronize) hold none of the program's work back; else left for
   a synchronization after which it has none (calibrate_idle). */
static void calibrate_pinned(sc_thread *t, sc_op *op, const sc_facts *f)
{
    if (f->pageable || !sc_rl_copy_recorded(op))
        return;
    unsigned dev = sc_op_device(op);
    int d2h = op->dir == SC_DIR_D2H;
    if (dev == SC_DEV_UNKNOWN || !sc_cal_wanted(dev, d2h))
        return;
    if (!device_idle(t, op))
        sc_cal_defer(dev, d2h, op->bytes);
    else if (!calibrate(t, dev, d2h, op->bytes))
        op->bypass = 1;
}

/* After a synchronization: the rates left for a moment when the device
   has no work (calibrate_pinned). */
static int calibrate_idle(sc_thread *t, sc_op *op)
{
    unsigned dev = sc_op_device(op);
    uint64_t bytes;
    for (int d2h = 0; d2h < 2; d2h++)
        if (dev != SC_DEV_UNKNOWN && (bytes = sc_cal_deferred(dev, d2h)) && device_idle(t, op) &&
            !calibrate(t, dev, d2h, bytes))
            return 0;
    return 1;
}

/* A call the shim does not judge after all: it passed through, or a report
   began while it was in the driver and the tables are the report's; only
   what the call itself needs is done (the GPU sampler's hold, the
   redirect's order after it). */
static void post_unjudged(sc_thread *t, sc_op *op, CUresult r)
{
    int err = errno;
    /* a stream destroyed is no longer asked about (gpusample.c), judged or not */
    if (op->kind == SC_K_STREAM_DESTROY && r == CUDA_SUCCESS)
        sc_stream_remove(op->stream);
    if (op->gs_hold)
        sc_gs_release();
    sc_track_capture_undo(op);
    if (!op->bypass)
        sc_redirect_post(op);
    sc_busy_done(t);
    errno = err;
}

void sc_post(sc_thread *t, sc_op *op, CUresult r)
{
    if (op->bypass || !sc_busy_back(t)) {
        post_unjudged(t, op, r);
        return;
    }
    uint64_t p0 = sc_tsc();
    uint64_t t1 = op->timed || sc_rl_on ? sc_now_ns() : 0;
    if (SC_UNLIKELY(sc_measure_active))
        sc_measure_post();   /* pops the id pushed in sc_pre (if any) first */
    int err = errno;
    uint64_t blocked = op->timed ? t1 - op->t0 : 0;

    sc_redirect_post(op);
    track_after(t, op, r);
    /* Only now, with the stream out of the table: a round between the
       driver's destroy and that queried a freed handle, and crashed in
       cuStreamQuery (seed 004 on an H200: one run in 80). */
    if (op->gs_hold)
        sc_gs_release();
    /* A call the driver rejected did nothing: no finding, and nothing to
       count for SC103 or SC303.  (A query's NOT_READY is not a rejection.) */
    if (r != CUDA_SUCCESS && !(r == CUDA_ERROR_NOT_READY && sc_kind_is(op->kind, SC_KF_QUERY))) {
        op->nev = 0;
        op->marks &= (uint8_t)~(SC_M_ALLOCSITE | SC_M_LEGACY);
    } else {
        if (op->marks & SC_M_SPLIT)
            blocked = sc_drain_after(op, blocked);   /* its wait and its copy (drain.h) */
        if (sc_rl_on) {
            uint64_t r0 = sc_prof_t0();
            uint64_t w = waited(op, blocked);
            op->rl = sc_rl_record(t, op, sc_drain_began(op), t1, w);
            int sync = op->kind == SC_K_STREAM_SYNC || op->kind == SC_K_CTX_SYNC || op->kind == SC_K_EVENT_SYNC;
            /* a read that waited for its stream's queued work: cudaMemcpy
               to the host (detect_copy.c).  Not an "async" copy into
               pageable memory (PyTorch's .item()): settle.c makes that one
               the candidate once the synchronization after it shows it is
               a read (SC_HELD_READ). */
            int read = (op->marks & SC_M_READ_WAITS) != 0;
            if ((op->rl || sc_rl_full(t)) && (sync || read))
                sc_detect_waited(op, w);
            int gone = !calibrate_after(t, op) || (sync && !calibrate_idle(t, op));
            sc_prof_add(t, SC_PH_RUNLOG, r0, 0);
            if (gone) {
                errno = err;
                sc_busy_done(t);
                return;
            }
        }
    }
    unsigned weight = 1;
    int rd_record = op->redirected != 0;   /* the redirect table gets this call */
    if (op->nev || (op->marks & (SC_M_ALLOCSITE | SC_M_LEGACY)) || op->redirected) {
        weight = note_weight(t, op);
        if (!weight) {
            weight = 1;
            rd_record = 0;
        }
    }
    if (op->nev || (op->marks & (SC_M_ALLOCSITE | SC_M_LEGACY)) || rd_record)
        commit(t, op, blocked, weight, rd_record);
    own_time(t, op, p0);
    sc_measure_done();
    sc_busy_done(t);
    errno = err;
}
