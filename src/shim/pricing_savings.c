/* pricing_savings.c: what each finding's fix saves (sc_pr_price,
 * pricing.h), from replays of the model with findings fixed (sc_pr_replay,
 * pricing.c): each alone; then those priced together, where one fix saves
 * only beside others of its kind (what they save at once, shared among
 * them); the groups a report keeps though each alone saves too little; the
 * run with everything fixed; and what the findings that share a fix save
 * at once.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "pricing.h"

/* The joint findings fixed together; each gets the larger of its own
   saving and its share of theirs by the time its calls held the host: a
   wait's, or a blocking copy's whole call, whose copy the fix may not
   make at all (a read of a result kept on the GPU), not only its wait for
   the stream.  A call another finding's fix took along (taken: shadowed)
   is in that one's saving already, and counts for none. */
static int price_joint(const sc_pr_model *m, const sc_pr_work *w, const size_t *base, uint64_t origin, int64_t b,
                       const uint8_t *taken, sc_pr_result *out)
{
    double *waited = calloc(m->nfindings + 1, sizeof *waited), total = 0;
    if (!waited)
        return -1;
    for (size_t t = 0; t < m->nthreads; t++)
        for (size_t i = 0; i < m->threads[t].n; i++) {
            const sc_pr_call *c = &m->threads[t].calls[i];
            for (int k = 0; k < 2; k++)
                if (c->finding[k] && c->finding[k] <= m->nfindings && m->findings[c->finding[k] - 1].joint &&
                    !(taken && taken[base[t] + i]))
                    waited[c->finding[k] - 1] += (double)(sc_pr_copies(c) ? c->t1 - c->t0 : c->wait_ns);
        }
    for (size_t f = 0; f < m->nfindings; f++)
        total += waited[f];
    int rc = 0;
    if (total > 0) {
        int64_t e = sc_pr_replay(m, w, base, origin, -3, &out->stalled, NULL, NULL);
        rc = e < 0;
        double joint = !rc && e < b ? (double)(b - e) : 0;
        for (size_t f = 0; f < m->nfindings; f++) {
            uint64_t share = (uint64_t)(joint * waited[f] / total + 0.5);
            if (m->findings[f].joint && share > out->saving[f])
                out->saving[f] = share;
        }
    }
    free(waited);
    return rc;
}

/* The findings of the everything-fixed run (kept) that share a fix, two or
   more with some saving, fixed together: each gets what they save at once
   (out->together, together_n).  0, or -1 when out of memory. */
static int price_together(const sc_pr_model *m, const sc_pr_finding *kept, const sc_pr_work *w, const size_t *base,
                          uint64_t origin, int64_t b, sc_pr_result *out)
{
    if (!out->together)   /* zeroed by sc_pr_price */
        return 0;
    sc_pr_finding *g = malloc((m->nfindings + 1) * sizeof *g);
    if (!g)
        return -1;
    int rc = 0;
    for (unsigned fix = SC_PR_FIX_NONE + 1; fix <= SC_PR_FIX_PIPELINE && !rc; fix++) {
        size_t n = 0;
        uint64_t alone = 0;
        for (size_t f = 0; f < m->nfindings; f++) {
            g[f] = kept[f];
            g[f].in_all = kept[f].in_all && kept[f].fix == fix;
            n += g[f].in_all;
            alone += g[f].in_all ? out->saving[f] : 0;
        }
        if (n < 2 || !alone)
            continue;
        sc_pr_model gm = *m;
        gm.findings = g;
        int64_t e = sc_pr_replay(&gm, w, base, origin, -2, &out->stalled, NULL, NULL);
        rc = e < 0;
        for (size_t f = 0; !rc && f < m->nfindings; f++)
            if (g[f].in_all) {
                out->together[f] = e < b ? (uint64_t)(b - e) : 0;
                if (out->together_n)
                    out->together_n[f] = (uint32_t)n;
            }
    }
    free(g);
    return rc ? -1 : 0;
}

/* Candidates that share a fix (three host syncs of one loop where events
   would do), two or more, at least one of them saving too little alone:
   where they, fixed at once, save enough for the first of them, each whose
   own saving is a 2n-th of that or more is kept (kept[f] = 1), with its own
   saving, and price_together says what they save at once (the report's
   judge, judge.c, does as this).  One of them may be worth fixing alone:
   seed 003's three syncs saved 1.06, 0.73 and 0.30 ms alone and 1.46 at
   once in a detect-mode run on an H200, where events gained 2.12; the first
   alone was a warning and the two others were dropped (0.50 of the gain).
   0, or -1 when out of memory. */
static int keep_groups(const sc_pr_model *m, const sc_pr_work *w, const size_t *base, uint64_t origin, int64_t b,
                       sc_pr_result *out, uint8_t *kept)
{
    sc_pr_finding *g = malloc((m->nfindings + 1) * sizeof *g);
    if (!g)
        return -1;
    int rc = 0;
    for (unsigned fix = SC_PR_FIX_NONE + 1; fix <= SC_PR_FIX_PIPELINE && !rc; fix++) {
        size_t n = 0, low = 0, first = SIZE_MAX;
        for (size_t f = 0; f < m->nfindings; f++) {
            g[f] = m->findings[f];
            g[f].in_all = g[f].in_all && g[f].keep_bp && g[f].fix == fix && out->saving[f] > 0;
            n += g[f].in_all;
            low += g[f].in_all && sc_pr_below_bar(m, out, f, out->saving[f]);
            first = g[f].in_all && first == SIZE_MAX ? f : first;
        }
        if (n < 2 || !low)
            continue;
        sc_pr_model gm = *m;
        gm.findings = g;
        int64_t e = sc_pr_replay(&gm, w, base, origin, -2, &out->stalled, NULL, NULL);
        rc = e < 0;
        if (rc || e >= b || sc_pr_below_bar(m, out, first, (uint64_t)(b - e)))
            continue;
        for (size_t f = 0; f < m->nfindings; f++)
            kept[f] |= g[f].in_all && (unsigned __int128)out->saving[f] * 2 * n >= (uint64_t)(b - e);
    }
    free(g);
    return rc ? -1 : 0;
}

/* The SC_PR_FIX_UNBARRIER findings (SC101's, measured mode): the legacy
   stream's barrier holds the blocking streams back at every call of the
   thread's left on it, so that one site moved alone saves little where
   the others still wait (blocking_stream: 0.6, 0 and 0 ms alone, 6.3 at
   once on the simulator).  Two or more are moved at once, and share what
   that saves by what each adds to it: the run with all of them but it
   moved, less the run with all moved (a site that costs nothing once the
   others are moved, the last copy before a sync, gets nothing).  Each gets
   the larger of its own saving and its share.  0, or -1 when out of
   memory. */
static int price_unbarrier(const sc_pr_model *m, const sc_pr_work *w, const size_t *base, uint64_t origin, int64_t b,
                           sc_pr_result *out)
{
    size_t n = 0;
    for (size_t f = 0; f < m->nfindings; f++)
        n += m->findings[f].fix == SC_PR_FIX_UNBARRIER;
    if (n < 2 || n > SC_PR_UNBARRIER_MAX)
        return 0;
    sc_pr_finding *g = malloc(m->nfindings * sizeof *g);
    int64_t *without = calloc(m->nfindings, sizeof *without);
    if (!g || !without) {
        free(g);
        free(without);
        return -1;
    }
    for (size_t f = 0; f < m->nfindings; f++) {
        g[f] = m->findings[f];
        g[f].in_all = g[f].fix == SC_PR_FIX_UNBARRIER;
    }
    sc_pr_model gm = *m;
    gm.findings = g;
    int64_t all = sc_pr_replay(&gm, w, base, origin, -2, &out->stalled, NULL, NULL);
    int rc = all < 0;
    double added = 0;
    for (size_t f = 0; !rc && all < b && f < m->nfindings; f++) {
        if (!g[f].in_all)
            continue;
        g[f].in_all = 0;
        without[f] = sc_pr_replay(&gm, w, base, origin, -2, &out->stalled, NULL, NULL);
        g[f].in_all = 1;
        rc = without[f] < 0;
        added += without[f] > all ? (double)(without[f] - all) : 0;
    }
    for (size_t f = 0; !rc && added > 0 && f < m->nfindings; f++) {
        if (!g[f].in_all || without[f] <= all)
            continue;
        uint64_t share = (uint64_t)((double)(b - all) * (double)(without[f] - all) / added + 0.5);
        if (share > out->saving[f])
            out->saving[f] = share;
    }
    free(g);
    free(without);
    return rc ? -1 : 0;
}

int sc_pr_price(const sc_pr_model *model, sc_pr_result *out)
{
    sc_pr_model lm = *model;
    lm.latency_ns = sc_pr_latency(model);
    const sc_pr_model *m = &lm;
    uint64_t origin = UINT64_MAX, end = 0;
    for (size_t t = 0; t < m->nthreads; t++) {
        const sc_pr_thread *th = &m->threads[t];
        if (!th->n)
            continue;
        if (th->calls[0].t0 < origin)
            origin = th->calls[0].t0;
        if (th->calls[th->n - 1].t1 > end)
            end = th->calls[th->n - 1].t1;
    }
    for (size_t f = 0; f < m->nfindings; f++) {
        out->saving[f] = 0;
        if (out->off_loop)
            out->off_loop[f] = 0;
        if (out->shadowed)
            out->shadowed[f] = 0;
        if (out->dropped)   /* unpriced: left out (sc_pr_all_fixed says once priced) */
            out->dropped[f] = m->findings[f].keep_bp != 0;
        if (out->together)
            out->together[f] = 0;
        if (out->together_n)
            out->together_n[f] = 0;
    }
    out->window_ns = out->model_ns = out->fixed_ns = out->loop_ns = 0;
    out->stalled = 0;
    if (origin == UINT64_MAX || !m->nstreams)
        return 0;
    out->window_ns = end - origin;
    if (sc_pr_find_loop(m, origin, end, out))
        return -1;
    size_t ncalls = 0;
    sc_pr_work *w = sc_pr_attribute(m, &ncalls);
    size_t *base = calloc(m->nthreads + 1, sizeof *base);
    uint8_t *taken = calloc(ncalls + 1, 1), *grouped = calloc(m->nfindings + 1, 1);
    if (!w || !base || !taken || !grouped) {
        free(w);
        free(base);
        free(taken);
        free(grouped);
        return -1;
    }
    int rc = 0;
    for (size_t t = 0; t < m->nthreads; t++) {
        base[t + 1] = base[t] + m->threads[t].n;
        sc_pr_reuse *ru = m->threads[t].n ? sc_pr_plan_copies(&m->threads[t]) : NULL;
        rc |= m->threads[t].n && !ru;
        for (size_t i = 0; ru && i < m->threads[t].n; i++)
            w[base[t] + i].ru = ru[i];
        free(ru);
    }
    int64_t b = rc ? -1 : sc_pr_replay(m, w, base, origin, -1, &out->stalled, NULL, NULL);
    rc = b < 0;
    out->model_ns = b > 0 ? (uint64_t)b : 0;
    for (size_t f = 0; !rc && f < m->nfindings; f++) {
        if (m->findings[f].fix == SC_PR_FIX_NONE)
            continue;
        int64_t e = sc_pr_replay(m, w, base, origin, (long)f, &out->stalled, out->shadowed ? &out->shadowed[f] : NULL,
                           taken);
        rc = e < 0;
        out->saving[f] = !rc && e < b ? (uint64_t)(b - e) : 0;
    }
    if (!rc)
        rc = price_joint(m, w, base, origin, b, taken, out);
    if (!rc)
        rc = price_unbarrier(m, w, base, origin, b, out);
    if (!rc)
        rc = keep_groups(m, w, base, origin, b, out, grouped);
    sc_pr_finding *kept = rc ? NULL : sc_pr_all_fixed(m, out, grouped);
    sc_pr_model km = *m;
    km.findings = kept;
    rc |= !kept;
    int64_t all = rc ? -1 : sc_pr_replay(&km, w, base, origin, -2, &out->stalled, NULL, NULL);
    if (!rc && all >= 0)
        rc = price_together(m, kept, w, base, origin, b, out);
    free(kept);
    rc |= all < 0;
    out->fixed_ns = all > 0 ? (uint64_t)all : 0;
    free(w);
    free(base);
    free(taken);
    free(grouped);
    return rc ? -1 : 0;
}
