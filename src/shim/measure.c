/* measure.c: measured mode's glue.  Each slow-path call that carries a
 * finding becomes a finding event: it pushes an external correlation id
 * around its real driver call and records its own host interval; the
 * aggregates it is counted in are noted.  At exit the CUPTI session's
 * records (cupti_session.c) become a timeline (timeline.c), which prices
 * every event (timeline_price.c); then the report gets each device's busy,
 * idle and overlap, each finding's gpu_lost_ns and the timeline for the
 * trace and HTML renderers, as libstreamcheck(7), "MEASURED MODE",
 * describes.
 *
 * What a rule means for the analysis (a barrier for other streams) is
 * decided here; the timeline knows no rules.
 */
#include "config.h"

#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"
#include "aggkey.h"
#include "apis.h"
#include "calibrate.h"
#include "cupti_session.h"
#include "hooks_runtime.h"
#include "measure.h"
#include "measure_window.h"
#include "options.h"
#include "pricing.h"
#include "report.h"
#include "shim.h"
#include "timeline.h"
#include "vec.h"

SC_TLS uint32_t sc_measure_tls_mid;
static SC_TLS uint64_t tls_ext;      /* id pushed for the current call */
static SC_TLS int64_t tls_c0;

#define MODEL_OPS_MAX 200000u      /* GPU operations kept in the report's timeline */
#define MODEL_SPANS_MAX 200000u
#define MODEL_MARKS_MAX 50000u

/* ------------------------------------------------------------ events --- */
/* A finding event: what the timeline prices it by is in tev (same index),
   what the report needs of it here. */
typedef struct mev {
    uint16_t api, rt;
    uint32_t rules;        /* rules of the aggregates it was counted in, and their also */
    uint8_t unordered;     /* legacy-stream work no other stream waits for (sc_measure_pre) */
    int main_commit;       /* index into commits of its main finding, -1 */
    unsigned ncommits;     /* aggregates it was counted in (0: sampled out, or a read) */
} mev;

typedef struct mcommit { uint32_t mid; sc_agg_key key; unsigned weight; } mcommit;

static _Atomic uint64_t next_ext = 1;
static pthread_mutex_t ev_mu = PTHREAD_MUTEX_INITIALIZER;    /* events and commits */
static SC_VEC(sc_tl_event) tev;
static SC_VEC(mev) evs;
static SC_VEC(mcommit) commits;

/* What the analysis at exit made. */
static struct {
    sc_cupti_records rec;
    sc_timeline tl;
    sc_tl_cost *cost;     /* per event, the first ncost of them */
    size_t ncost;
    int done;
} M;

/* The fork handler takes the events' lock (core.c, registered parts). */
static void measure_lock(void)
{
    pthread_mutex_lock(&ev_mu);
}

static void measure_unlock(void)
{
    pthread_mutex_unlock(&ev_mu);
}

static void child_after_fork(void)
{
    pthread_mutex_init(&ev_mu, NULL);   /* the session stops recording in the child */
}

static const sc_part part = {"measure", 86, measure_lock, measure_unlock, child_after_fork, NULL, NULL};
SC_PART_REGISTER(part)

/* ---------------------------------------------------------- the calls --- */
static void measure_at_exit(void)
{
    sc_measure_stop();
}

void sc_measure_start(void)
{
    static _Atomic int once;
    const sc_opt_window *w = &sc_opt.measure_window;
    if (!sc_opt_measured() || atomic_exchange(&once, 1))
        return;
    if (!sc_cupti_start(measure_at_exit, !w->set) && w->set)
        sc_measure_window_start(w);
}

void sc_measure_pre(const sc_op *op, int unordered)
{
    if (!sc_measure_active)
        return;
    uint64_t ext = atomic_fetch_add_explicit(&next_ext, 1, memory_order_relaxed);
    sc_tl_event t = {.ext = ext, .drain = (int64_t)op->drain_ns, .pthread = (uint32_t)(uintptr_t)pthread_self(),
                     .tid = (uint32_t)gettid(), .timed = op->timed};
    mev e = {.api = op->id, .rt = sc_tls_rt, .main_commit = -1, .unordered = (uint8_t)!!unordered};
    uint32_t mid = 0;
    pthread_mutex_lock(&ev_mu);
    if (evs.n < UINT32_MAX - 1 && SC_VEC_PUSH(tev, t)) {
        if (SC_VEC_PUSH(evs, e))
            mid = (uint32_t)evs.n;
        else
            tev.n--;
    }
    pthread_mutex_unlock(&ev_mu);
    if (!mid)
        return;
    sc_measure_tls_mid = mid;
    sc_cupti_push(ext);
    tls_ext = ext;
    tls_c0 = (int64_t)(sc_now_ns() - sc_start_ns);
}

void sc_measure_post(void)
{
    if (!tls_ext)
        return;
    int64_t c1 = (int64_t)(sc_now_ns() - sc_start_ns);
    tls_ext = 0;
    sc_cupti_pop();
    uint32_t mid = sc_measure_tls_mid;
    pthread_mutex_lock(&ev_mu);
    if (mid && mid <= tev.n) {
        tev.v[mid - 1].c0 = tls_c0;
        tev.v[mid - 1].c1 = c1;
    }
    pthread_mutex_unlock(&ev_mu);
}

void sc_measure_commit(uint32_t mid, const sc_agg_key *k, uint32_t also, unsigned weight)
{
    if (!mid)
        return;
    pthread_mutex_lock(&ev_mu);
    if (mid <= evs.n && SC_VEC_PUSH(commits, ((mcommit){mid, *k, weight}))) {
        mev *e = &evs.v[mid - 1];
        e->ncommits++;
        if (k->table == SC_AGG_FINDING) {
            e->rules |= also | 1u << k->rule;
            e->main_commit = (int)(commits.n - 1);
        }
    }
    pthread_mutex_unlock(&ev_mu);
}

/* ----------------------------------------------------------- analysis --- */
/* Rules whose call is a barrier for other streams' later work (rules.def).
   Not on the legacy stream where it orders with no stream: there the
   timeline's other streams (created cudaStreamNonBlocking, as seed 000's
   and PyTorch's) started late only for what the program ordered them
   after, an event (DRV, 3. Stream synchronization behavior). */
static uint32_t barrier_rules(void)
{
    uint32_t m = 0;
    for (unsigned r = 0; r < SC_NRULES; r++)
        if (sc_rule_props[r].traits & SC_RF_BARRIER)
            m |= 1u << r;
    return m;
}

/* A copy between pinned host memory and the device, all of it inside a time
   the pinned rate of its device was being timed (calibrate.h): the
   timing's, the calling thread being inside the shim then (another
   thread's pinned copy wholly inside that millisecond or so goes too).
   Its copies are no work of the program's, its streams none of its
   streams.  (An external correlation id of the shim's own pushed around
   the timing did not take them out on an H200, 2^64 - 1 nor 2^62.) */
static int calibration_copy(const sc_tl_op *o)
{
    if (o->kind != SC_GPU_MEMCPY || (o->copy != SC_GPU_HTOD && o->copy != SC_GPU_DTOH) ||
        (o->src != SC_GPU_MEM_PINNED && o->dst != SC_GPU_MEM_PINNED))
        return 0;
    for (int d2h = 0; d2h < 2; d2h++) {
        uint64_t a, b;
        if (sc_cal_span(o->device, d2h, &a, &b) && o->start >= (int64_t)(a - sc_start_ns) &&
            o->end <= (int64_t)(b - sc_start_ns))
            return 1;
    }
    return 0;
}

static void drop_calibration(sc_cupti_records *r)
{
    size_t j = 0;
    for (size_t i = 0; i < r->nops; i++)
        if (!calibration_copy(&r->ops[i]))
            r->ops[j++] = r->ops[i];
    r->nops = j;
}

/* Prices the events that were counted in an aggregate. */
static void analyse(void)
{
    sc_cupti_take(&M.rec);
    drop_calibration(&M.rec);
    pthread_mutex_lock(&ev_mu);
    if (!sc_tl_build(&M.tl, M.rec.ops, M.rec.nops, M.rec.apis, M.rec.napis, M.rec.exts, M.rec.nexts) &&
        (M.cost = malloc((tev.n ? tev.n : 1) * sizeof *M.cost))) {
        for (size_t i = 0; i < tev.n; i++) {
            tev.v[i].price = evs.v[i].ncommits != 0;
            tev.v[i].barrier = (evs.v[i].rules & barrier_rules()) != 0 && !evs.v[i].unordered;
        }
        sc_tl_price(&M.tl, tev.v, tev.n, M.cost);
        M.ncost = tev.n;
        M.done = 1;
    }
    pthread_mutex_unlock(&ev_mu);
}

void sc_measure_stop(void)
{
    if (sc_cupti_stop())
        analyse();
}

/* When a device had work, for the pricing model (price.c): the union of
   its operations, moved from the timeline's origin to sc_now_ns's, in a
   new array.  Not when the program's profiler took CUPTI: the record stops
   there. */
int sc_measure_busy(unsigned device, sc_pr_span **v, size_t *n)
{
    *v = NULL;
    *n = 0;
    /* A timeline cut short, or only a window's, is no busy time of the run:
       the model takes the samples then (track.c starts them when measured
       mode does not record from the start). */
    if (!M.done || M.rec.handed || M.rec.windowed)
        return 0;
    for (size_t i = 0; i < M.tl.ndevices; i++) {
        const sc_tl_device *d = &M.tl.devices[i];
        if (d->id != device)
            continue;
        sc_pr_span *b = malloc((d->busy.n ? d->busy.n : 1) * sizeof *b);
        if (!b)
            return 0;
        for (size_t k = 0; k < d->busy.n; k++)
            b[k] = (sc_pr_span){(uint64_t)(d->busy.v[k].a + (int64_t)sc_start_ns),
                                (uint64_t)(d->busy.v[k].b + (int64_t)sc_start_ns)};
        *v = b;
        *n = d->busy.n;
        return 1;
    }
    return 1;   /* measured, and no work at all on it */
}

/* The GPU time of the operations queued by the API calls of `th` that
   began in [a, b) (relative to sc_start_ns) and ended before `before`
   (own 0) or at `before` or later (own 1: the recorded call's own, whose
   record, a runtime call around the driver call the shim saw, may begin
   before it); how many operations those were. */
static size_t queued_in(const sc_tl_thread *th, int64_t a, int64_t b, int64_t before, int own, uint64_t *ns)
{
    const sc_timeline *tl = &M.tl;
    size_t lo = SC_FIRST(m, th->a0, th->a0 + th->n, tl->by_thread[m]->start < a), nops = 0;
    for (size_t i = lo; i < th->a0 + th->n && tl->by_thread[i]->start < b; i++) {
        uint32_t corr = tl->by_thread[i]->corr;
        if ((tl->by_thread[i]->end >= before) != own || !corr)
            continue;
        size_t k = SC_FIRST(m, 0, tl->nops, tl->by_corr[m].corr < corr);
        for (; k < tl->nops && tl->by_corr[k].corr == corr; k++, nops++) {
            const sc_tl_op *o = &tl->ops[tl->by_corr[k].op];
            *ns += o->end > o->start ? (uint64_t)(o->end - o->start) : 0;
        }
    }
    return nops;
}

void sc_measure_queued(sc_pr_model *m)
{
    if (!M.done || M.rec.handed || M.rec.windowed)
        return;
    const sc_timeline *tl = &M.tl;
    for (size_t t = 0; t < m->nthreads; t++) {
        size_t j = SC_FIRST(q, 0, tl->nthreads, tl->threads[q].id < m->threads[t].pthread);
        if (j >= tl->nthreads || tl->threads[j].id != m->threads[t].pthread)
            continue;
        sc_pr_call *c = (sc_pr_call *)m->threads[t].calls;
        int64_t o = (int64_t)sc_start_ns;
        uint64_t ncold;
        double cold = sc_cupti_cold_ns(&ncold), record_ns = ncold ? cold : sc_cupti_record_ns();
        /* where records were timed, each recorded call made one more, in
           the gap after it: the call's own_ns has its time already */
        size_t sampled = ncold > 0;
        for (size_t i = 0; i < m->threads[t].n; i++) {
            int64_t a = i ? (int64_t)c[i - 1].t1 - o : INT64_MIN, t0 = (int64_t)c[i].t0 - o;
            uint64_t fast = 0, own = 0;
            size_t nfast = queued_in(&tl->threads[j], a, t0, t0, 0, &fast);
            queued_in(&tl->threads[j], a, (int64_t)c[i].t1 - o + 1, t0, 1, &own);
            /* submissions the fast path let through, and none of them found,
               are not this thread's as CUPTI saw it: the weights stay unknown */
            c[i].gpu_known = !c[i].nsub || nfast > 0;
            c[i].gpu_ns = own;
            c[i].fast_gpu_ns = fast;
            sc_pr_cap_copy_wait(&c[i]);
            size_t lo = SC_FIRST(q, tl->threads[j].a0, tl->threads[j].a0 + tl->threads[j].n,
                                 tl->by_thread[q]->start < a),
                   hi = SC_FIRST(q, lo, tl->threads[j].a0 + tl->threads[j].n, tl->by_thread[q]->start < t0);
            size_t napi = hi - lo > (i ? sampled : 0) ? hi - lo - (i ? sampled : 0) : 0;
            c[i].tool_apis = (uint32_t)napi;
            c[i].tool_ops = (uint32_t)nfast;
            c[i].tool_ns = (uint64_t)((double)napi * record_ns + 0.5);
        }
    }
}

/* ------------------------------------------------------------- report --- */
int sc_measure_price(const sc_agg_key *k, uint64_t count, uint64_t *lost_ns)
{
    if (!M.done)
        return 0;
    sc_tl_spans u = {0};
    uint64_t events = 0, weight = 0;
    for (size_t i = 0; i < commits.n; i++) {
        const mcommit *c = &commits.v[i];
        if (memcmp(&c->key, k, sizeof *k))
            continue;
        events++;
        weight += c->weight;
        if (c->mid > M.ncost)   /* came after the analysis */
            continue;
        const sc_tl_cost *e = &M.cost[c->mid - 1];
        for (size_t j = 0; j < e->niv; j++)
            sc_tl_spans_add(&u, M.tl.lost.v[e->iv0 + j].a, M.tl.lost.v[e->iv0 + j].b);
    }
    if (!events) {
        sc_tl_spans_free(&u);
        return 0;
    }
    sc_tl_spans_merge(&u, 0);
    uint64_t lost = (uint64_t)sc_tl_spans_len(u.v, u.n);
    sc_tl_spans_free(&u);
    /* sampled events (SC101 notes) stand for `weight` events each; in a
       window, the events there for the aggregate's calls over the run */
    uint64_t stand_for = M.rec.windowed ? count : weight;
    if (stand_for > events)
        lost = (uint64_t)((double)lost * (double)stand_for / (double)events);
    *lost_ns = lost;
    return 1;
}

static uint32_t name_index(sc_report *r, const char *s)
{
    for (size_t i = 0; i < r->nnames; i++)
        if (!strcmp(r->names[i], s))
            return (uint32_t)i;
    char **nn = realloc(r->names, (r->nnames + 1) * sizeof *nn);
    if (!nn)
        return 0;
    r->names = nn;
    if (!(nn[r->nnames] = strdup(s)))
        return 0;
    return (uint32_t)r->nnames++;
}

/* Process 0's gpu block: each device, their sums, each stream. */
static sc_gpu *gpu_block(void)
{
    const sc_timeline *tl = &M.tl;
    sc_gpu *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->devices = calloc(tl->ndevices ? tl->ndevices : 1, sizeof *g->devices);
    g->streams = calloc(tl->nstreams ? tl->nstreams : 1, sizeof *g->streams);
    if (!g->devices || !g->streams) {
        sc_gpu_free(g);
        return NULL;
    }
    for (size_t i = 0; i < tl->ndevices; i++) {
        const sc_gpu_device *x = &tl->devices[i].g;
        g->devices[g->ndevices++] = *x;
        g->span_ns += x->span_ns;
        g->busy_ns += x->busy_ns;
        g->idle_ns += x->idle_ns;
        g->overlap_ns += x->overlap_ns;
        g->overlap_compute_copy_ns += x->overlap_compute_copy_ns;
        g->overlap_compute_compute_ns += x->overlap_compute_compute_ns;
    }
    for (size_t k = 0; k < tl->nstreams; k++) {   /* met in device, then start order */
        const sc_tl_stream *s = &tl->streams[k];
        g->streams[g->nstreams++] =
            (sc_gpu_stream){s->device, s->id, (uint64_t)sc_tl_spans_len(s->busy.v, s->busy.n), s->n};
    }
    g->ops = M.rec.ops_seen;
    g->dropped = M.rec.dropped;
    g->handed_over = M.rec.handed;
    g->handed_over_ns = M.rec.handed ? (uint64_t)M.rec.handed_ns : 0;
    if (M.rec.windowed && M.rec.window_a >= 0) {
        g->windowed = 1;
        g->window_start_ns = (uint64_t)M.rec.window_a;
        g->window_end_ns = (uint64_t)(M.rec.window_b > M.rec.window_a ? M.rec.window_b : M.rec.window_a);
    }
    return g;
}

/* The kernel names, as the report's first names (names[0] is ""). */
static int fill_names(sc_report *r)
{
    const sc_cupti_records *rec = &M.rec;
    r->names = calloc(rec->nnames ? rec->nnames : 1, sizeof *r->names);
    if (!r->names)
        return -1;
    for (size_t i = 0; i < rec->nnames; i++)
        if ((r->names[i] = strdup(rec->names[i] ? rec->names[i] : "")))
            r->nnames = i + 1;
        else
            break;
    if (!r->nnames && (r->names[0] = strdup("")))
        r->nnames = 1;
    return 0;
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

void sc_measure_gaps(unsigned device, uint32_t gap_ns[4])
{
    memset(gap_ns, 0, 4 * sizeof *gap_ns);
    if (M.done && !M.rec.handed && !M.rec.windowed)
        sc_tl_gaps(&M.tl, device, gap_ns);
}

/* The start of the last operation the report keeps: the earliest
   MODEL_OPS_MAX over all devices; INT64_MAX when it keeps them all. */
static int64_t kept_until(void)
{
    const sc_timeline *tl = &M.tl;
    if (tl->nops <= MODEL_OPS_MAX)
        return INT64_MAX;
    int64_t cut = INT64_MAX, *st = malloc(tl->nops * sizeof *st);
    if (st) {
        for (size_t i = 0; i < tl->nops; i++)
            st[i] = tl->ops[i].start;
        qsort(st, tl->nops, sizeof *st, cmp64);
        cut = st[MODEL_OPS_MAX - 1];
        free(st);
    }
    return cut;
}

/* The operations the report keeps, in the timeline's order; map[i]: the
   report's index of operation i, or -1.  Returns how many it kept. */
static int fill_ops(sc_report *r, long *map)
{
    const sc_timeline *tl = &M.tl;
    size_t keep = tl->nops < MODEL_OPS_MAX ? tl->nops : MODEL_OPS_MAX;
    int64_t cut = kept_until();
    if (!(r->gpu_ops = calloc(keep ? keep : 1, sizeof *r->gpu_ops)))
        return -1;
    for (size_t i = 0; i < tl->nops; i++) {
        const sc_tl_op *o = &tl->ops[i];
        map[i] = -1;
        if (o->start > cut || r->ngpu_ops >= keep)
            continue;
        map[i] = (long)r->ngpu_ops;
        r->gpu_ops[r->ngpu_ops++] = (sc_gpu_op){0, o->device, o->stream, o->kind, o->copy, o->src, o->dst,
                                                o->name < r->nnames ? o->name : 0, o->start, o->end, o->bytes,
                                                o->corr};
    }
    return 0;
}

/* The host's API calls, by thread, then start. */
static void fill_spans(sc_report *r)
{
    const sc_timeline *tl = &M.tl;
    size_t nsp = tl->napis < MODEL_SPANS_MAX ? tl->napis : MODEL_SPANS_MAX;
    if (!(r->host_spans = calloc(nsp ? nsp : 1, sizeof *r->host_spans)))
        return;
    for (size_t i = 0; i < tl->napis && r->nhost_spans < nsp; i++) {
        const sc_tl_api *a = tl->by_thread[i];
        char buf[64];
        const char *nm = sc_cupti_api_name(a->runtime, a->cbid);
        if (!nm) {
            snprintf(buf, sizeof buf, "%s API call (cbid %u)", a->runtime ? "runtime" : "driver", a->cbid);
            nm = buf;
        }
        r->host_spans[r->nhost_spans++] =
            (sc_host_span){0, a->thread, a->runtime, name_index(r, nm), a->start, a->end, a->corr};
    }
}

/* Each finding event with a main finding, at its call. */
static void fill_marks(sc_report *r, const long *map)
{
    if (!(r->marks = calloc(MODEL_MARKS_MAX, sizeof *r->marks)))
        return;
    static const sc_tl_cost unpriced = {.op = -1};   /* an event that came after the analysis */
    for (size_t i = 0; i < evs.n && r->nmarks < MODEL_MARKS_MAX; i++) {
        const mev *e = &evs.v[i];
        const sc_tl_event *t = &tev.v[i];
        const sc_tl_cost *c = i < M.ncost ? &M.cost[i] : &unpriced;
        if (e->main_commit < 0)
            continue;
        const sc_agg_key *k = &commits.v[e->main_commit].key;
        sc_finding_mark *m = &r->marks[r->nmarks++];
        m->process = 0;
        m->rule = (sc_rule_id)k->rule;
        if (k->site)
            snprintf(m->callsite, sizeof m->callsite, "%016" PRIx64, k->site);
        const char *api = e->rt && e->rt < SC_NRT ? sc_rt_names[e->rt]
                          : e->api < SC_NAPI     ? sc_apis[e->api].name
                                                 : "";
        m->api = name_index(r, api);
        /* the thread as CUPTI names it: whichever of its ids the API
           records use */
        m->thread = !sc_tl_thread_known(&M.tl, t->pthread) && sc_tl_thread_known(&M.tl, t->tid) ? t->tid
                                                                                               : t->pthread;
        m->start_ns = t->c0;
        m->end_ns = t->c1;
        m->correlation = c->corr;
        m->op = c->op >= 0 ? map[c->op] : -1;
        m->lost_ns = (uint64_t)(c->lost_ns > 0 ? c->lost_ns : 0);
    }
}

void sc_measure_fill(sc_report *r)
{
    if (!M.done || !r->nprocs)
        return;
    sc_gpu *g = gpu_block();
    if (!g)
        return;
    r->procs[0].gpu = g;
    /* the timeline: names, GPU ops (the first MODEL_OPS_MAX by start),
       host spans, finding marks */
    if (fill_names(r))
        return;
    long *map = malloc((M.tl.nops ? M.tl.nops : 1) * sizeof *map);
    if (!map || fill_ops(r, map)) {
        free(map);
        return;
    }
    g->ops_kept = r->ngpu_ops;
    fill_spans(r);
    fill_marks(r, map);
    free(map);
}
