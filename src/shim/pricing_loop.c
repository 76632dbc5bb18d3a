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
#include "sc.h"

/* A hazard of every step shows where the program's loop is: a finding
   whose calls repeat SC_PR_LOOP_MIN times or more, evenly (their span is
   at most twice their count times the period, the median time between
   them: a burst of calls while the program sets up is not).  Its part of
   the loop runs from one period before the first of them to one period
   after the last.  The first steps of a loop can be long (cuDNN's
   autotuning, kernels loaded on first use, torch.compile's graphs): where
   a gap in the first quarter of the calls is over SC_PR_LOOP_WARM periods,
   the loop starts at the call that ends the last such gap, and the steps
   before it are the set-up's.  Of those findings, the ones whose calls
   span half the longest span or more (a hazard of a few early steps only
   is not one of every step) make the loop: their earliest start to their
   latest end.  It counts only where it leaves a quarter of the window and
   a second or more out (building a model on the GPU, NCCL's
   initialization, the first steps' compilation, and after the loop the
   process group's teardown), and is 1/SC_PR_LOOP_SHARE of the window or
   more: six redundant syncs in 0.4 ms of a JAX run's 5 s are no loop,
   where torch.compile's 70 fast steps in 69 ms of a 24 s run, most of it
   compiling, are one.  Shares are then of the loop.  A short program's
   phases (a C sample timing one way, then another) are not a set-up.  A
   finding whose calls all end before the loop or start after it is the
   set-up's or the teardown's, and keeps the whole window. */
#define SC_PR_LOOP_MIN 5
#define SC_PR_LOOP_SETUP_NS 1000000000ull
#define SC_PR_LOOP_WARM 4
#define SC_PR_LOOP_SHARE 1000

/* Each call of finding f (index + 1) in the model, in turn. */
#define FOR_CALLS_OF(m, c, k, f)                                               \
    for (size_t t_ = 0; t_ < (m)->nthreads; t_++)                              \
        for (size_t i_ = 0; i_ < (m)->threads[t_].n; i_++)                     \
            for (int k = 0; k < 2; k++)                                        \
                if ((c = &(m)->threads[t_].calls[i_], f = c->finding[k]) &&    \
                    f <= (m)->nfindings)

/* Finding f's part of the loop, from its sorted call starts s[0..n): 1 and
   *from, *to where it is a hazard of every step (above), with *span its
   calls' span; else 0.  gap: room for n - 1 values. */
static int steps_of(const uint64_t *s, size_t n, uint64_t origin, uint64_t end, uint64_t *gap,
                    uint64_t *from, uint64_t *to, uint64_t *span)
{
    if (n < SC_PR_LOOP_MIN)
        return 0;
    for (size_t i = 0; i + 1 < n; i++)
        gap[i] = s[i + 1] - s[i];
    qsort(gap, n - 1, sizeof *gap, sc_cmp_u64);
    uint64_t period = gap[(n - 1) / 2];
    size_t j = 0;   /* the first call after the warm-up's long steps */
    for (size_t i = 0; i < (n - 1) / 4; i++)
        if (s[i + 1] - s[i] > SC_PR_LOOP_WARM * period)
            j = i + 1;
    *span = s[n - 1] - s[j];
    if (n - j < SC_PR_LOOP_MIN || *span > 2 * (n - 1 - j) * period)
        return 0;
    /* within [origin, end], whatever calls lie outside it */
    *from = s[j] > origin + period ? s[j] - period : origin;
    *to = s[n - 1] + period < end ? s[n - 1] + period : end;
    return *from < *to;
}

/* The loop, [*start, *stop), where one is recognized: 1; else 0. */
static int loop_of(const sc_pr_model *m, uint64_t origin, uint64_t end, const size_t *first, const uint64_t *t0,
                   uint64_t *start, uint64_t *stop)
{
    size_t nf = m->nfindings;
    uint64_t *gap = malloc((first[nf] + 1) * sizeof *gap), *from = malloc((nf + 1) * 3 * sizeof *from);
    if (!gap || !from) {
        free(gap), free(from);
        return 0;
    }
    uint64_t *to = from + nf, *span = to + nf, longest = 0;
    for (size_t f = 0; f < nf; f++) {
        if (!steps_of(t0 + first[f], first[f + 1] - first[f], origin, end, gap, &from[f], &to[f], &span[f]))
            span[f] = 0, to[f] = 0;   /* to 0: not a hazard of every step */
        else if (span[f] > longest)
            longest = span[f];
    }
    *start = end, *stop = origin;
    for (size_t f = 0; f < nf; f++)
        if (to[f] && span[f] * 2 >= longest) {
            *start = from[f] < *start ? from[f] : *start;
            *stop = to[f] > *stop ? to[f] : *stop;
        }
    free(gap), free(from);
    uint64_t off = *start < *stop ? (*start - origin) + (end - *stop) : 0;
    return off && off * 4 >= end - origin && off >= SC_PR_LOOP_SETUP_NS &&
           (*stop - *start) * SC_PR_LOOP_SHARE >= end - origin;
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
        qsort(t0 + first[i], first[i + 1] - first[i], sizeof *t0, sc_cmp_u64);
    uint64_t start, stop;
    int loop = loop_of(m, origin, end, first, t0, &start, &stop);
    out->loop_ns = loop ? stop - start : 0;
    for (size_t i = 0; out->off_loop && i < nf; i++)
        out->off_loop[i] = loop && first[i + 1] > first[i] && (last[i] <= start || t0[first[i]] >= stop);
    free(first), free(t0), free(last), free(fill);
    return 0;
}

int sc_pr_below_bar(const sc_pr_model *m, const sc_pr_result *out, size_t i, uint64_t saving)
{
    const sc_pr_finding *f = &m->findings[i];
    uint64_t of = m->scope_ns ? m->scope_ns
                : out->loop_ns && !(out->off_loop && out->off_loop[i]) ? out->loop_ns : out->window_ns;
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
