/* price.c: prices the report's findings by what their fixes would save
 * (pricing.h), at report time.
 *
 * It stops the GPU sampler, builds the model from the recorded run
 * (runlog.c), gives each device its busy time (measured mode's timeline,
 * else the samples) and its pinned copy rates (calibrate.c, timed at the
 * first copy a pinning fix would change), says how each rule's fix changes
 * the model (rules.def, FIX), replays, and keeps each aggregate key's saving for the
 * report builder (sc_price_of).  SC103 is judged at report time, per call
 * site over thread lifetimes: its fix moves the legacy-stream work of every
 * thread found racing to streams of their own, and its saving is shared by
 * its findings in proportion to their counts (sc_price_sc103).
 */
#include "config.h"

#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aggkey.h"
#include "calibrate.h"
#include "core.h"
#include "findings.h"
#include "gpusample.h"
#include "hb.h"
#include "lanes.h"
#include "measure.h"
#include "occupancy.h"
#include "price.h"
#include "pricing.h"
#include "ranges.h"
#include "runlog.h"
#include "shim.h"

static struct {
    int done, ok;
    sc_pr_model m;
    uint64_t *saving;          /* per model finding; the last one is SC103's */
    uint8_t *off_loop;         /* per model finding: all its calls before the steady loop or after it */
    uint32_t *shadowed;        /* per model finding: the waits its fix took along */
    uint8_t *dropped;          /* per model finding: under its keep bar (sc_price_keep_bp) */
    uint64_t *together;        /* per model finding: its fix's findings fixed at once (sc_pr_result) */
    uint32_t *together_n;
    uint16_t *alias;           /* per model finding: an SC102 priced as this finding + 1, its stream's */
    sc_pr_result res;
    int source;                /* SC_PRICE_* */
    uint64_t held_ns;          /* a long run's: the window the model held (X below), else 0 */
} P;

/* How a rule's fix changes the run: rules.def's FIX column, whose values
   are the model's. */
_Static_assert((int)SC_FIX_NONE == (int)SC_PR_FIX_NONE && (int)SC_FIX_NO_WAIT == (int)SC_PR_FIX_NO_WAIT &&
                   (int)SC_FIX_PIN == (int)SC_PR_FIX_PIN && (int)SC_FIX_STREAM == (int)SC_PR_FIX_STREAM &&
                   (int)SC_FIX_OWN_STREAM == (int)SC_PR_FIX_OWN_STREAM && (int)SC_FIX_DROP == (int)SC_PR_FIX_DROP &&
                   (int)SC_FIX_PIPELINE == (int)SC_PR_FIX_PIPELINE && (int)SC_FIX_SPREAD == (int)SC_PR_FIX_SPREAD &&
                   (int)SC_FIX_UNBARRIER == (int)SC_PR_FIX_UNBARRIER && (int)SC_FIX_NONBLOCK == (int)SC_PR_FIX_NONBLOCK &&
                   (int)SC_FIX_QUEUES == (int)SC_PR_FIX_QUEUES,
               "rules.h's SC_FIX_* are pricing.h's sc_pr_fix");

/* ------------------------------------------------------------- rates --- */
static void rates(sc_pr_device *dev, uint32_t d)
{
    dev->rate[SC_PR_H2D] = sc_cal_rate(d, 0);
    dev->rate[SC_PR_D2H] = sc_cal_rate(d, 1);
    dev->duplex = sc_cal_duplex(d);
}

/* The device's busy time less the shim's own copies that timed its rates
   (calibrate.h): they were no program's work.  v (n spans, sorted, not
   overlapping) is copied without them into a new array (NULL: out of
   memory; v then stands). */
static sc_pr_span *less_calibration(const sc_pr_span *v, size_t *n, uint32_t d)
{
    uint64_t a[2], b[2];
    int k = 0;
    for (int d2h = 0; d2h < 2; d2h++)
        k += sc_cal_span(d, d2h, &a[k], &b[k]);
    sc_pr_span *out = malloc((*n + 2 * (size_t)k + 1) * sizeof *out);
    if (!out)
        return NULL;
    size_t m = 0;
    for (size_t i = 0; i < *n; i++) {
        sc_pr_span x[3] = {v[i]};
        int nx = 1;
        for (int j = 0; j < k; j++)   /* cut [a, b) out of each piece so far */
            for (int q = nx; q-- > 0;) {
                sc_pr_span y = x[q];
                if (y.b <= a[j] || y.a >= b[j])
                    continue;
                x[q] = x[--nx];
                if (y.a < a[j])
                    x[nx++] = (sc_pr_span){y.a, a[j]};
                if (y.b > b[j])
                    x[nx++] = (sc_pr_span){b[j], y.b};
            }
        for (int q = 1; q < nx; q++)   /* the pieces in order (three at most) */
            for (int r = q; r > 0 && x[r - 1].a > x[r].a; r--) {
                sc_pr_span tmp = x[r];
                x[r] = x[r - 1];
                x[r - 1] = tmp;
            }
        for (int q = 0; q < nx; q++)
            out[m++] = x[q];
    }
    *n = m;
    return out;
}

/* ------------------------------------------------------- long runs --- */
/* A long run's model holds the first part of it (a thread's log reached
   its bound; runlog.h, sc_rl_cut), and its savings are extrapolated to the
   whole run: a finding's by its calls in all over those the model held (a
   hazard of every step saves as much in each step; the set-up's, whose
   calls the model holds, is not scaled), SC103's and the window's by the
   time.  X.scale: per model finding. */
static struct { int on; uint64_t at, end, last; double *scale; uint8_t *unheld; } X;

/* The replays at exit take a time in proportion to the calls the model
   holds and the scenarios replayed: one as run, one per finding with a
   fix, the joint waits, the all-fixed run, and per kind of fix a group of
   candidates and one of findings fixed together (pricing.c).  About 0.25
   us a call and scenario on a 2-core VM: at most REPLAY_CALLS of them
   (about 2 s); a larger model holds its first part (sc_rl_hold), whose
   savings are extrapolated as a long run's.
   STREAMCHECK_TEST_REPLAY_CALLS: a test hook (a smaller budget). */
#define REPLAY_CALLS 8000000ull

static void bound_replays(sc_pr_model *m)
{
    unsigned kinds = 0;
    uint64_t fixes = 0, unbarrier = 0, budget = REPLAY_CALLS;
    const char *env = getenv("STREAMCHECK_TEST_REPLAY_CALLS");
    if (env && strtoull(env, NULL, 10) > 0)
        budget = strtoull(env, NULL, 10);
    for (size_t i = 0; i < m->nfindings; i++)
        if (m->findings[i].fix != SC_PR_FIX_NONE) {
            fixes++;
            unbarrier += m->findings[i].fix == SC_PR_FIX_UNBARRIER;
            kinds |= 1u << m->findings[i].fix;
        }
    /* and SC101's sites priced together, one replay without each */
    uint64_t scenarios = fixes + 3 + 2 * (uint64_t)__builtin_popcount(kinds) +
                         (unbarrier >= 2 && unbarrier <= SC_PR_UNBARRIER_MAX ? unbarrier : 0);
    sc_rl_hold(m, (size_t)(budget / scenarios));
}

/* Before the replay: each finding's scale, and its bar in ns lowered by
   it (the scaled saving must reach the bar).  A finding all of whose calls
   came after the part held is not priced (unheld: the report keeps it, at
   its other cost, where a candidate the model priced under its bar goes). */
static void extrapolate_setup(const sc_pr_model *m, sc_pr_finding *f, size_t nf, const uint64_t *calls)
{
    uint64_t *held;
    if (!sc_rl_cut(&X.at, &X.end) || !(X.scale = calloc(nf, sizeof *X.scale)))
        return;
    if (!(held = calloc(nf, sizeof *held)) || !(X.unheld = calloc(nf, 1))) {
        free(held);
        free(X.scale);
        X.scale = NULL;
        return;
    }
    X.on = 1;
    for (size_t t = 0; t < m->nthreads; t++)
        if (m->threads[t].n && m->threads[t].calls[m->threads[t].n - 1].t1 > X.last)
            X.last = m->threads[t].calls[m->threads[t].n - 1].t1;
    for (size_t t = 0; t < m->nthreads; t++)
        for (size_t i = 0; i < m->threads[t].n; i++)
            for (int k = 0; k < 2; k++) {
                uint16_t id = m->threads[t].calls[i].finding[k];
                if (id && id < nf)
                    held[id - 1]++;
            }
    for (size_t i = 0; i + 1 < nf; i++) {
        uint64_t all = calls[i];
        if (!held[i]) {
            X.unheld[i] = f[i].fix != SC_PR_FIX_NONE;
            f[i].fix = SC_PR_FIX_NONE;
            f[i].in_all = 0;
            continue;
        }
        X.scale[i] = all > held[i] ? (double)all / (double)held[i] : 1.0;
        f[i].keep_ns = (uint64_t)((double)f[i].keep_ns / X.scale[i]);
    }
    free(held);
}

/* The device's busy time ends with the part held: the GPU's work after it
   belongs to calls the model does not hold.  The model keeps the copy
   (and frees the spans it had where they were its own: owned). */
static void extrapolate_busy(sc_pr_device *dev, int owned)
{
    size_t n = 0;
    if (!X.on || !dev->known)
        return;
    while (n < dev->nbusy && dev->busy[n].a < X.last)
        n++;
    sc_pr_span *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return;
    memcpy(v, dev->busy, n * sizeof *v);
    if (n && v[n - 1].b > X.last)
        v[n - 1].b = X.last;
    if (owned)
        free((void *)dev->busy);
    dev->busy = v;
    dev->nbusy = n;
}

static uint64_t scaled(uint64_t ns, double by)
{
    return (uint64_t)((double)ns * by + 0.5);
}

/* After it: the window goes on to the actors' last call (held_ns: what the
   model held of it), the replays' lengths with it, and the savings are
   scaled. */
static void extrapolate(const sc_pr_model *m, sc_pr_result *r)
{
    if (!X.on || !r->window_ns)
        return;
    uint64_t extra = X.end > X.last ? X.end - X.last : 0;
    double by = (double)(r->window_ns + extra) / (double)r->window_ns;
    P.held_ns = r->window_ns;
    r->window_ns += extra;
    uint64_t saved = r->model_ns > r->fixed_ns ? r->model_ns - r->fixed_ns : 0;
    r->model_ns = scaled(r->model_ns, by);
    r->fixed_ns = r->model_ns - (scaled(saved, by) < r->model_ns ? scaled(saved, by) : r->model_ns);
    if (r->loop_ns)
        r->loop_ns += extra;
    for (size_t i = 0; i < m->nfindings; i++) {
        double k = i + 1 < m->nfindings ? X.scale[i] : by;
        r->saving[i] = scaled(r->saving[i], k);
        r->together[i] = scaled(r->together[i], k);
    }
}

/* ------------------------------------------------------------- dump --- */
/* STREAMCHECK_TEST_PRICE_DUMP=PREFIX: the model and what it predicted, as
   text in PREFIX.PID, for a person checking the model against a run (a test
   hook, not an option). */
static const char *dump_path(void)
{
    const char *path = getenv("STREAMCHECK_TEST_PRICE_DUMP");
    return path && *path ? path : NULL;
}

static void dump(const sc_pr_model *m, const sc_pr_result *res)
{
    const char *path = dump_path();
    char name[4200];
    if (!path)
        return;
    snprintf(name, sizeof name, "%s.%ld", path, (long)getpid());   /* one per process */
    FILE *f = fopen(name, "w");
    if (!f)
        return;
    fprintf(f, "window %llu model %llu fixed %llu loop %llu stalled %d occupancy %u scope %llu gaps %u "
            "receipt_cpu %u\n",
            (unsigned long long)res->window_ns, (unsigned long long)res->model_ns, (unsigned long long)res->fixed_ns,
            (unsigned long long)res->loop_ns, res->stalled, m->occupancy, (unsigned long long)m->scope_ns,
            m->gaps, m->receipt_cpu);
    for (size_t i = 0; i < m->nstreams; i++)
        fprintf(f, "stream %zu device %u kind %u finding %u\n", i, m->streams[i].device, m->streams[i].kind,
                m->streams[i].finding);
    for (size_t i = 0; i < m->ndevices; i++)
        fprintf(f, "device %zu known %d spans %zu h2d %.17g d2h %.17g duplex %.17g gaps %u %u %u %u connections %u\n",
                i, m->devices[i].known, m->devices[i].nbusy, m->devices[i].rate[SC_PR_H2D],
                m->devices[i].rate[SC_PR_D2H], m->devices[i].duplex, m->devices[i].gap_ns[0],
                m->devices[i].gap_ns[1], m->devices[i].gap_ns[2], m->devices[i].gap_ns[3], m->devices[i].connections);
    uint64_t ncold;
    double cold = sc_cupti_cold_ns(&ncold);
    fprintf(f, "tool record_ns %.1f cold_ns %.1f samples %llu\n", sc_cupti_record_ns(), cold,
            (unsigned long long)ncold);
    for (size_t i = 0; i < m->nfindings; i++) {
        const sc_agg_key *k = sc_rl_key((uint16_t)(i + 1));
        fprintf(f, "finding %zu rule %s fix %u saving %llu keep %u %llu\n", i + 1,
                k && k->table == SC_AGG_FINDING ? sc_rules[k->rule].id : k ? "alloc" : "SC103",
                m->findings[i].fix, (unsigned long long)res->saving[i], m->findings[i].keep_bp,
                (unsigned long long)m->findings[i].keep_ns);
    }
    for (size_t t = 0; t < m->nthreads; t++) {
        const sc_pr_thread *th = &m->threads[t];
        fprintf(f, "thread %zu id %u legacy_finding %u calls %zu\n", t, th->id, th->legacy_finding, th->n);
        for (size_t i = 0; i < th->n; i++) {
            const sc_pr_call *c = &th->calls[i];
            fprintf(f, "  %llu +%llu wait %llu what %u stream %u nsub %u sub %u f %u,%u dir %u bytes %llu "
                    "demand %.9g %.9g own %llu release %llu touch %llu %u dev %llx gpu %u %llu %llu tool %llu %u %u "
                    "receive %llu %llu %llu occ %.9g %.9g cpu %llu\n",
                    (unsigned long long)c->t0,
                    (unsigned long long)(c->t1 - c->t0), (unsigned long long)c->wait_ns, c->what, c->stream,
                    c->nsub, c->sub_stream, c->finding[0], c->finding[1], c->dir, (unsigned long long)c->bytes,
                    c->demand, c->fast_demand,
                    (unsigned long long)c->own_ns, (unsigned long long)c->release_ns,
                    (unsigned long long)c->touch_ns, c->touch_again, (unsigned long long)c->dev, c->gpu_known,
                    (unsigned long long)c->gpu_ns, (unsigned long long)c->fast_gpu_ns,
                    (unsigned long long)c->tool_ns, c->tool_apis, c->tool_ops,
                    (unsigned long long)c->receive_ns, (unsigned long long)c->receive_t0,
                    (unsigned long long)c->receive_cpu_ns, c->occ_demand,
                    c->fast_occ_demand, (unsigned long long)c->cpu_ns);
        }
    }
    for (size_t d = 0; d < m->ndevices; d++)
        for (size_t i = 0; i < m->devices[d].nbusy; i++)
            fprintf(f, "busy %zu %llu %llu\n", d, (unsigned long long)m->devices[d].busy[i].a,
                    (unsigned long long)m->devices[d].busy[i].b);
    fclose(f);
}

/* An SC403 event is a wait the host need not make before it queues more
   work: one that no later submission of its thread follows (the last wait
   before the results are read, the end) is not one, and its fix is not
   applied there. */
static void sc403_needs_work_after(sc_pr_model *m)
{
    for (size_t t = 0; t < m->nthreads; t++) {
        sc_pr_call *c = (sc_pr_call *)m->threads[t].calls;
        int later = 0;
        for (size_t i = m->threads[t].n; i-- > 0;) {
            for (int k = 0; k < 2 && !later; k++) {
                const sc_agg_key *key = sc_rl_key(c[i].finding[k]);
                if (key && key->table == SC_AGG_FINDING && key->rule == SC_RULE_SC403)
                    c[i].finding[k] = 0;
            }
            later |= c[i].what == SC_PR_SUBMIT || c[i].what == SC_PR_COPY_PAGEABLE || c[i].nsub;
        }
    }
}

/* Findings of fewer than 3 calls that no fix is priced for, nor applied in
   the all-fixed replay (the header's prediction is of the findings the
   report keeps):
   - a pinning fix pays where a buffer is copied again and again (a batch
     each step): pinning one copied once or twice (an input uploaded at the
     start, a result read at the end) costs about what it saves, as
     cudaHostAlloc touches and locks every page of it; such a finding keeps
     its detect-mode estimate, as a note (shim_report.c; libstreamcheck(7),
     PRICING);
   - an SC403 candidate is reported only at a call site that waited 3 times
     or more (shim_report.c, sc403_drops): a wait once or twice is set-up or
     the end, where the results are needed.
   Counted over all of a finding's calls (`calls`), held by the model or not
   (a long run's, extrapolated: 2 calls held of 1000 are no set-up). */
static void few_calls_unfixed(sc_pr_model *m, const uint64_t *calls)
{
    sc_pr_finding *f = (sc_pr_finding *)m->findings;
    for (size_t i = 0; i < m->nfindings; i++) {
        const sc_agg_key *k = sc_rl_key((uint16_t)(i + 1));
        if (calls[i] < SC_FEW_CALLS && (f[i].fix == SC_PR_FIX_PIN || (k && k->rule == SC_RULE_SC403)))
            f[i] = (sc_pr_finding){.fix = SC_PR_FIX_NONE};
    }
}

/* Threads the program makes take turns on the legacy stream (PyTorch's
   autograd thread runs the backward pass while the main thread waits for
   it) are one actor, not several: replayed apart, each would keep its own
   times while the other got faster.  Of those that took turns (their
   lifetimes never raced, hb.h), the one that waited longest is the actor;
   the others are folded into it (their GPU work counts in its stretches,
   their host time is in its own). */
static void fold_turn_takers(sc_pr_model *m)
{
    sc_pr_thread *th = (sc_pr_thread *)m->threads;
    size_t keep = SIZE_MAX;
    uint64_t most = 0;
    for (size_t t = 0; t < m->nthreads; t++) {
        if (!th[t].id || sc_hb_lifetime_concurrent(th[t].id))
            continue;
        uint64_t w = 0;
        for (size_t i = 0; i < th[t].n; i++)
            w += th[t].calls[i].wait_ns;
        if (keep == SIZE_MAX || w > most) {
            keep = t;
            most = w;
        }
    }
    for (size_t t = 0; t < m->nthreads; t++)
        if (t != keep && th[t].id && !sc_hb_lifetime_concurrent(th[t].id))
            th[t].n = 0;
}

unsigned sc_price_keep_bp(unsigned rule)
{
    unsigned share = (unsigned)sc_opt.warn_share_bp;
    if (rule == SC_RULE_SC403)
        return share;
    if (rule == SC_RULE_SC703)
        return share > SC703_MIN_BP ? share : SC703_MIN_BP;
    return 0;
}

/* -------------------------------------------------------------- run --- */
/* The allocation sites called often enough to be an SC303 finding
   (--alloc-loop-min; shim_report.c, add_alloc_site): only those are
   replayed with their calls dropped.  A program's caching allocator has
   many sites called a few times at its start (21 in a PyTorch loop's
   model), each a replay of the whole run that no report shows. */
typedef struct sites { sc_agg_key *k; size_t n, cap; } sites;

static void frequent_site(const sc_agg_key *k, const sc_agg_val *v, void *arg)
{
    sites *s = arg;
    if ((long)v->count < sc_opt.alloc_loop_min)
        return;
    if (s->n == s->cap && sc_grow_cap(&s->k, &s->cap, s->n + 1, sizeof *s->k, 16))
        return;   /* out of memory: the site goes unpriced, as one called too few times */
    s->k[s->n++] = *k;
}

static int frequent(const sites *s, const sc_agg_key *k)
{
    for (size_t i = 0; i < s->n; i++)
        if (!memcmp(&s->k[i], k, sizeof *k))
            return 1;
    return 0;
}

/* The findings of few calls unfixed, the turn-takers folded, and a long
   run's model bounded and its extrapolation set up, all by each finding's
   calls in all, held or not. */
static void few_calls_and_long_runs(sc_pr_model *m, sc_pr_finding *f, size_t nf)
{
    uint64_t *calls = calloc(nf, sizeof *calls);
    if (calls) {
        sc_rl_calls(calls, nf - 1);
        few_calls_unfixed(m, calls);
    }
    fold_turn_takers(m);
    bound_replays(m);
    if (calls)
        extrapolate_setup(m, f, nf, calls);
    free(calls);
}

/* A handle per stream (SC_PR_FIX_SPREAD, pricing.h) needs the events'
   orders and each kernel's time, which only CUPTI gives: sampled, the busy
   time of a stretch is shared by number, and seed 000's 60 ms settling
   spin went to the products beside it.  Else not priced. */
static void spread_needs(sc_pr_finding *f, size_t nf, int measured)
{
    for (size_t i = 0; i < nf; i++)
        if (f[i].fix == SC_PR_FIX_SPREAD && !(sc_rl_events && measured))
            f[i].fix = SC_PR_FIX_NONE;
}

/* Legacy-stream work moved off its barrier (SC_PR_FIX_UNBARRIER, SC101's)
   needs each kernel's time: detect mode shares a stretch's busy time among
   its submissions by count, and gave each 2 ms spin beside a 60 ms one 8 ms
   of it (blocking_stream 28 ms where its fix gained 3.8).  Else not
   priced.  STREAMCHECK_TEST_UNBARRIER=1 or 0 turns it on or off in either
   mode. */
static void unbarrier_needs(sc_pr_finding *f, size_t nf, int measured)
{
    int on = sc_test_switch("STREAMCHECK_TEST_UNBARRIER", measured);
    for (size_t i = 0; i < nf && !on; i++)
        if (f[i].fix == SC_PR_FIX_UNBARRIER)
            f[i].fix = SC_PR_FIX_NONE;
}

/* SC102's fix, its streams created non-blocking (SC_PR_FIX_NONBLOCK): like
   SC101's, it needs each kernel's time, so measured mode only
   (blocking_stream on an H200: 5.81 ms against a gain of 6.14).
   STREAMCHECK_TEST_NONBLOCK=0, a test hook, turns it off.
   It is the other fix of the legacy-stream commands its streams held back,
   not a fix beside theirs: never in the run with every finding fixed.
   Each stream names the first SC102 finding of the site that created it
   (runlog.c); the site's others (one a legacy-stream API each) are priced
   there (alias): they save nothing more (sc_price_alias). */
static void nonblock_needs(const sc_pr_model *m, sc_pr_finding *f, size_t nf, int measured)
{
    int on = measured && sc_test_switch("STREAMCHECK_TEST_NONBLOCK", 1);
    for (size_t i = 0; i < nf; i++) {
        if (f[i].fix != SC_PR_FIX_NONBLOCK)
            continue;
        f[i].in_all = 0;
        const sc_agg_key *k = sc_rl_key((uint16_t)(i + 1));
        for (size_t s = 0; on && k && s < m->nstreams; s++) {
            const sc_agg_key *r = sc_rl_key(m->streams[s].finding);
            if (r && r->site == k->site && r->device == k->device && m->streams[s].finding != i + 1)
                P.alias[i] = m->streams[s].finding;
        }
        if (!on || P.alias[i])
            f[i].fix = SC_PR_FIX_NONE;
    }
}

/* SC701's fix, CUDA_DEVICE_MAX_CONNECTIONS=32 (SC_PR_FIX_QUEUES): the
   false dependencies of streams that share a hardware queue are as long as
   the kernels they wait behind, so measured mode only.  NVIDIA's
   simpleHyperQ (32 streams, 10 ms kernels, 8 queues) ran in 60 ms, 30 with
   32 queues, on an H200; our queue_limit, whose 12 streams each run one
   kernel, gained nothing.  Replayed offline on their H200 dumps, with the
   queues modelled and the kernels that ran at once keeping their recorded
   times (pricing_attribute.c, own_times), SC701 prices 29.6 and 0 ms;
   live on an H200, 29.566 ms (a warning) and 0 (a note).  Measured mode's
   default; STREAMCHECK_TEST_QUEUES=0, a test hook, turns it off.  Returns
   whether it is priced: then the model's devices share their queues
   (sc_pr_device.connections). */
static int queues_needs(sc_pr_finding *f, size_t nf, int measured)
{
    int on = measured && sc_test_switch("STREAMCHECK_TEST_QUEUES", 1), any = 0;
    for (size_t i = 0; i < nf; i++)
        if (f[i].fix == SC_PR_FIX_QUEUES) {
            if (!on)
                f[i].fix = SC_PR_FIX_NONE;
            any |= on;
        }
    return any;
}

/* The fixes that only measured mode's kernel times price; whether the
   devices' hardware queues are modelled (queues_needs). */
static int mode_needs(const sc_pr_model *m, sc_pr_finding *f, size_t nf, int measured)
{
    unbarrier_needs(f, nf, measured);
    nonblock_needs(m, f, nf, measured);
    spread_needs(f, nf, measured);
    return queues_needs(f, nf, measured);
}

/* SC101's sites on a thread whose legacy-stream work SC103's fix moves
   (legacy_finding: a per-thread default stream for every thread) are that
   fix's too: their saving is in SC103's, and priced again it would be
   counted twice (multithread_default_stream on an H200: SC103 147 ms, its
   SC101 sites 134 more, where the fix gained 145). */
static void unbarrier_in_threads_fix(const sc_pr_model *m, sc_pr_finding *f)
{
    for (size_t t = 0; t < m->nthreads; t++)
        for (size_t i = 0; m->threads[t].legacy_finding && i < m->threads[t].n; i++)
            for (int k = 0; k < 2; k++) {
                uint16_t g = m->threads[t].calls[i].finding[k];
                if (g && g <= m->nfindings && f[g - 1].fix == SC_PR_FIX_UNBARRIER)
                    f[g - 1].fix = SC_PR_FIX_NONE;
            }
}

/* The model's devices: when each had work (measured mode's timeline, else
   the samples), less the shim's own copies; their copy rates, hardware
   queues and gaps (sc_price_run). */
static void fill_devices(sc_pr_model *m, sc_pr_device *dev, int measured, int queues)
{
    sc_pr_span *v;
    /* The GPU's own gaps between a stream's operations (seed 003's chunks:
       about 25 of 190 us a chunk under CUPTI on an H200), which the replay
       would otherwise leave out: measured mode's default since an H200
       judged them (the seeds' estimates, median of 3 runs: seed003-one
       0.71 -> 0.77 of its gain, seed004-pageable 1.10 -> 0.95, no row out
       of its bound that was in it); the test hook STREAMCHECK_TEST_GAPS=0
       turns them off.  A measured run's dump carries them either way. */
    m->gaps = (uint8_t)(measured && sc_test_switch("STREAMCHECK_TEST_GAPS", 1));
    P.source = measured ? SC_PRICE_MEASURED : SC_PRICE_SAMPLED;
    for (uint32_t d = 0; d < m->ndevices; d++) {
        if (measured) {   /* kept with the model, which lives to the end */
            dev[d].known = sc_measure_busy(d, &v, &dev[d].nbusy);
            dev[d].busy = v;
        } else {
            dev[d].known = sc_gs_busy(d, &dev[d].busy, &dev[d].nbusy);
        }
        sc_pr_span *cut = dev[d].known ? less_calibration(dev[d].busy, &dev[d].nbusy, d) : NULL;
        if (cut) {
            if (measured)
                free((void *)dev[d].busy);
            dev[d].busy = cut;
        }
        if (!dev[d].known)
            P.source = SC_PRICE_WAITS;
        extrapolate_busy(&dev[d], measured || cut);
        rates(&dev[d], d);
        dev[d].connections = queues ? sc_g.max_conn : 0;
        if (m->gaps || (measured && dump_path()))
            sc_measure_gaps(d, dev[d].gap_ns);
    }
    m->devices = dev;
}

/* Once, at report time, after every thread left the slow path. */
void sc_price_run(void)
{
    if (P.done)
        return;
    P.done = 1;
    sc_gs_stop();
    if (!sc_rl_on || sc_rl_model(&P.m))
        return;
    sc_pr_model *m = &P.m;
    /* one more finding: SC103's, a fix of threads rather than calls */
    size_t nf = m->nfindings + 1;
    sc_pr_finding *f = realloc((void *)m->findings, nf * sizeof *f);
    sc_pr_device *dev = calloc(m->ndevices ? m->ndevices : 1, sizeof *dev);
    P.saving = calloc(nf, sizeof *P.saving);
    P.off_loop = calloc(nf, sizeof *P.off_loop);
    P.shadowed = calloc(nf, sizeof *P.shadowed);
    P.dropped = calloc(nf, sizeof *P.dropped);
    P.together = calloc(nf, sizeof *P.together);
    P.together_n = calloc(nf, sizeof *P.together_n);
    P.alias = calloc(nf, sizeof *P.alias);
    if (!f || !dev || !P.saving || !P.off_loop || !P.shadowed || !P.dropped || !P.together || !P.together_n ||
        !P.alias) {
        free(dev);
        if (f)
            m->findings = f;
        return;
    }
    sites often = {0};
    sc_aggs_foreach(SC_AGG_ALLOC, frequent_site, &often);
    for (size_t i = 0; i + 1 < nf; i++) {
        const sc_agg_key *k = sc_rl_key((uint16_t)(i + 1));
        int finding = k && k->table == SC_AGG_FINDING;
        f[i] = (sc_pr_finding){.fix = finding ? sc_rule_props[k->rule].fix : SC_PR_FIX_NONE, .in_all = finding,
                               .joint = finding && sc_rule_props[k->rule].fix == SC_FIX_NO_WAIT,
                               .keep_bp = (uint16_t)(finding ? sc_price_keep_bp(k->rule) : 0),
                               .keep_ns = (uint64_t)sc_opt.warn_cost_us * 1000};
        if (k && k->table == SC_AGG_ALLOC && frequent(&often, k))   /* an SC303 site, if the report makes one */
            f[i].fix = sc_rule_props[SC_RULE_SC303].fix;
    }
    free(often.k);
    f[nf - 1] = (sc_pr_finding){.fix = sc_rule_props[SC_RULE_SC103].fix, .in_all = 1};
    m->findings = f;
    m->nfindings = nf;
    m->scope_ns = sc_range_scope() ? sc_range_scope_ns() : 0;   /* as shim_report.c's shares */
    m->occupancy = (uint8_t)sc_occ_price;
    /* a Python thread's receipts with the GIL-free share of their CPU time
       (pricing.c gil_free): the default since two H200s judged it;
       STREAMCHECK_TEST_RECEIPT_CPU=0, their time off the CPU alone */
    m->receipt_cpu = (uint8_t)sc_test_switch("STREAMCHECK_TEST_RECEIPT_CPU", 1);
    /* measured mode's timeline when it has one (sc_measure_stop ran), else
       the samples */
    sc_pr_span *v;
    size_t nv;
    int measured = sc_measure_busy(0, &v, &nv);
    free(v);
    int queues = mode_needs(m, f, nf, measured);   /* before a long run's findings are told held or not */
    sc403_needs_work_after(m);
    few_calls_and_long_runs(m, f, nf);
    sc_pr_thread *th = (sc_pr_thread *)m->threads;
    for (size_t t = 0; t < m->nthreads; t++)
        th[t].legacy_finding = th[t].id && sc_hb_lifetime_concurrent(th[t].id) ? (uint16_t)nf : 0;
    unbarrier_in_threads_fix(m, f);
    fill_devices(m, dev, measured, queues);
    if (measured)
        sc_measure_queued(m);
    P.res.saving = P.saving;
    P.res.off_loop = P.off_loop;
    P.res.shadowed = P.shadowed;
    P.res.dropped = P.dropped;
    P.res.together = P.together;
    P.res.together_n = P.together_n;
    P.ok = sc_pr_price(m, &P.res) == 0;
    if (P.ok)
        dump(m, &P.res);
    /* A model that replays the run to less than half or more than twice its
       length has missed something: its prices are not given. */
    if (P.ok && (P.res.model_ns > 2 * P.res.window_ns || 2 * P.res.model_ns < P.res.window_ns)) {
        sc_info("the pricing model replays the active window (%.3f ms) to %.3f ms: findings keep their "
                "measured costs", P.res.window_ns / 1e6, P.res.model_ns / 1e6);
        P.ok = 0;
    }
    if (P.ok)
        extrapolate(m, &P.res);
}

/* The model's index of the aggregate k's finding, or -1. */
static long index_of(const sc_agg_key *k)
{
    for (size_t i = 0; P.ok && i + 1 < P.m.nfindings; i++) {
        const sc_agg_key *x = sc_rl_key((uint16_t)(i + 1));
        if (x && !memcmp(x, k, sizeof *k))
            return (long)i;
    }
    return -1;
}

static int alias_of(long i)
{
    return i >= 0 && P.alias && P.alias[i] && P.m.findings[P.alias[i] - 1].fix != SC_PR_FIX_NONE;
}

int sc_price_alias(const sc_agg_key *k)
{
    return alias_of(index_of(k));
}

int sc_price_of(const sc_agg_key *k, uint64_t *saving)
{
    long i = index_of(k);
    if (alias_of(i)) {   /* an SC102 of its stream's site: priced at the site's first */
        *saving = 0;
        return 1;
    }
    if (i < 0 || P.m.findings[i].fix == SC_PR_FIX_NONE)
        return 0;
    *saving = P.saving[i];
    return 1;
}

int sc_price_together(const sc_agg_key *k, uint64_t *saving, uint32_t *n)
{
    long i = index_of(k);
    if (i < 0 || !P.together_n[i])
        return 0;
    *saving = P.together[i];
    *n = P.together_n[i];
    return 1;
}

int sc_price_keeps(const sc_agg_key *k)
{
    long i = index_of(k);
    if (i >= 0 && X.unheld && X.unheld[i])
        return 1;   /* after the part of a long run the model held: not judged by it */
    return i >= 0 && P.m.findings[i].fix != SC_PR_FIX_NONE && !P.dropped[i];
}

uint32_t sc_price_shadowed(const sc_agg_key *k)
{
    long i = index_of(k);
    return i >= 0 ? P.shadowed[i] : 0;
}

int sc_price_off_loop(const sc_agg_key *k)
{
    long i = index_of(k);
    return i >= 0 && P.res.loop_ns && P.off_loop[i];
}

uint64_t sc_price_held(void)
{
    return P.ok ? P.held_ns : 0;
}

uint64_t sc_price_loop(void)
{
    return P.ok ? P.res.loop_ns : 0;
}

uint64_t sc_price_sc103(void)
{
    return P.ok && P.m.nfindings ? P.saving[P.m.nfindings - 1] : 0;
}

int sc_price_window(uint64_t *window, uint64_t *model, uint64_t *fixed, int *source)
{
    if (!P.ok || !P.res.window_ns)
        return 0;
    *window = P.res.window_ns;
    *model = P.res.model_ns;
    *fixed = P.res.fixed_ns;
    *source = P.source;
    return 1;
}
