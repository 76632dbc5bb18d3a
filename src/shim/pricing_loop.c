/* pricing_loop.c: the pricing model's steady loop (pricing.h,
 * sc_pr_find_loop): where a hazard of every step shows the program's loop,
 * so that shares are of the loop rather than of a long set-up; and the
 * findings the "everything fixed" run fixes, by their shares of it
 * (sc_pr_all_fixed).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "pricing.h"

/* A hazard of every step shows where the program's loop is: a finding
   whose calls repeat SC_PR_LOOP_MIN times or more, the last of them in the
   window's second half (a burst of calls while the program sets up ends
   earlier).  Its loop starts one period (the median time between its calls)
   before the first of them; the loop is the earliest such start to the
   window's end.  It counts only where it leaves a quarter of the window and
   a second or more out (building a model on the GPU, NCCL's
   initialization, the first steps' compilation): shares are then of the
   loop.  A short program's phases (a C sample timing one way, then
   another) are not a set-up.  A finding whose calls all end before the
   loop is the set-up's, and keeps the whole window. */
#define SC_PR_LOOP_MIN 5
#define SC_PR_LOOP_SETUP_NS 1000000000ull

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Each call of finding f (index + 1) in the model, in turn. */
#define FOR_CALLS_OF(m, c, k, f)                                               \
    for (size_t t_ = 0; t_ < (m)->nthreads; t_++)                              \
        for (size_t i_ = 0; i_ < (m)->threads[t_].n; i_++)                     \
            for (int k = 0; k < 2; k++)                                        \
                if ((c = &(m)->threads[t_].calls[i_], f = c->finding[k]) &&    \
                    f <= (m)->nfindings)

/* The loop's start, where one is recognized; else origin. */
static uint64_t loop_start(const sc_pr_model *m, uint64_t origin, uint64_t end, const size_t *first,
                           const uint64_t *t0)
{
    uint64_t start = end, half = origin + (end - origin) / 2;
    uint64_t *gap = malloc((first[m->nfindings] + 1) * sizeof *gap);
    if (!gap)
        return origin;
    for (size_t f = 0; f < m->nfindings; f++) {
        size_t n = first[f + 1] - first[f];
        const uint64_t *s = t0 + first[f];
        if (n < SC_PR_LOOP_MIN || s[n - 1] < half)
            continue;
        for (size_t i = 0; i + 1 < n; i++)
            gap[i] = s[i + 1] - s[i];
        qsort(gap, n - 1, sizeof *gap, cmp_u64);
        uint64_t period = gap[(n - 1) / 2];
        uint64_t at = s[0] - origin > period ? s[0] - period : origin;
        if (at < start)
            start = at;
    }
    free(gap);
    return start < end && (start - origin) * 4 >= end - origin && start - origin >= SC_PR_LOOP_SETUP_NS ? start
                                                                                                     : origin;
}

int sc_pr_find_loop(const sc_pr_model *m, uint64_t origin, uint64_t end, sc_pr_result *out)
{
    size_t nf = m->nfindings, *first = calloc(nf + 1, sizeof *first);
    const sc_pr_call *c;
    uint16_t f;
    if (!first)
        return -1;
    FOR_CALLS_OF(m, c, k, f)
        first[f]++;   /* f is the index + 1: counts at first[index + 1] */
    for (size_t i = 0; i < nf; i++)
        first[i + 1] += first[i];
    uint64_t *t0 = malloc((first[nf] + 1) * sizeof *t0), *last = calloc(nf + 1, sizeof *last);
    size_t *fill = calloc(nf + 1, sizeof *fill);
    if (!t0 || !last || !fill) {
        free(first), free(t0), free(last), free(fill);
        return -1;
    }
    FOR_CALLS_OF(m, c, k, f) {
        t0[first[f - 1] + fill[f - 1]++] = c->t0;
        if (c->t1 > last[f - 1])
            last[f - 1] = c->t1;
    }
    for (size_t i = 0; i < nf; i++)
        qsort(t0 + first[i], first[i + 1] - first[i], sizeof *t0, cmp_u64);
    uint64_t start = loop_start(m, origin, end, first, t0);
    out->loop_ns = start > origin ? end - start : 0;
    for (size_t i = 0; out->before_loop && i < nf; i++)
        out->before_loop[i] = out->loop_ns && first[i + 1] > first[i] && last[i] <= start;
    free(first), free(t0), free(last), free(fill);
    return 0;
}

int sc_pr_below_bar(const sc_pr_model *m, const sc_pr_result *out, size_t i, uint64_t saving)
{
    const sc_pr_finding *f = &m->findings[i];
    uint64_t of = m->scope_ns ? m->scope_ns
                : out->loop_ns && !(out->before_loop && out->before_loop[i]) ? out->loop_ns : out->window_ns;
    return f->keep_bp && (!of || saving < f->keep_ns ||
                          (unsigned __int128)saving * 10000 < (unsigned __int128)of * f->keep_bp);
}

/* The findings of the "everything fixed" run: a candidate the report
   leaves out for saving too little (sc_pr_below_bar), but where its group
   of candidates with its fix saves enough at once (group_kept), is not in
   it, and is out->dropped.  A copy of m's, or NULL. */
sc_pr_finding *sc_pr_all_fixed(const sc_pr_model *m, sc_pr_result *out, const uint8_t *group_kept)
{
    sc_pr_finding *f = malloc((m->nfindings + 1) * sizeof *f);
    for (size_t i = 0; f && i < m->nfindings; i++) {
        f[i] = m->findings[i];
        int drop = sc_pr_below_bar(m, out, i, out->saving[i]) && !(group_kept && group_kept[i]);
        if (drop)
            f[i].in_all = 0;
        if (out->dropped)
            out->dropped[i] = (uint8_t)drop;
    }
    return f;
}
