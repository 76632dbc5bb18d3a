/* judge.c: what findings cost and which ones count -- cost bases, the
 * severity a finding's cost earns it (sc_report_judge), totals by severity
 * and the summary line, and the levels that fail a run. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static const char *const basis_names[SC_NCOST_BASES] = {
    [SC_COST_UNMEASURED] = "unmeasured",
    [SC_COST_COPY_BLOCKED] = "copy-blocked",
    [SC_COST_HOST_BLOCKED] = "host-blocked",
    [SC_COST_PENDING_BLOCKED] = "blocked-while-pending",
    [SC_COST_GPU] = "gpu-timeline",
    [SC_COST_REPLAY] = "replay",
    [SC_COST_REPLAY_MEASURED] = "replay-measured",
};

const char *sc_cost_basis_name(sc_cost_basis b)
{
    return (unsigned)b < SC_NCOST_BASES ? basis_names[b] : "unmeasured";
}

const char *sc_unmeasured_why(const sc_report *r, const sc_finding *f)
{
    const sc_gpu *g = f->process < r->nprocs ? r->procs[f->process].gpu : NULL;
    if (!g)
        return "run with --measure for its cost on the GPU";
    if (g->handed_over)
        return "not measured: the program's own profiler took CUPTI before these calls";
    if (g->windowed)
        return "not measured: none of its calls fell in the measured window";
    return "not measured: the GPU timeline ties none of its calls to GPU work";
}

int sc_cost_basis_parse(const char *s, sc_cost_basis *out)
{
    for (unsigned i = 0; i < SC_NCOST_BASES; i++)
        if (!strcmp(s, basis_names[i])) {
            *out = (sc_cost_basis)i;
            return 0;
        }
    return -1;
}

uint64_t sc_process_run_ns(const sc_process *p)
{
    return p->range ? p->range_ns : sc_process_span_ns(p);
}

uint64_t sc_process_span_ns(const sc_process *p)
{
    if (!(p->end_time > p->start_time) || p->start_time <= 0)
        return 0;
    double d = (p->end_time - p->start_time) * 1e9;
    return d >= 1.8e19 ? UINT64_MAX : (uint64_t)(d + 0.5);
}

uint64_t sc_process_window_ns(const sc_process *p)
{
    if (p->range || !p->window_ns)
        return sc_process_run_ns(p);
    return p->loop_ns ? p->loop_ns : p->window_ns;
}

const char *sc_process_window_name(const sc_process *p)
{
    if (p->range)
        return "the time in the range";
    return !p->window_ns ? "run time" : p->loop_ns ? "the steady loop" : "the active window";
}

uint64_t sc_finding_window_ns(const sc_report *r, const sc_finding *f)
{
    if (f->process >= r->nprocs)
        return 0;
    const sc_process *p = &r->procs[f->process];
    return f->window_ns && !p->range ? f->window_ns : sc_process_window_ns(p);
}

const char *sc_finding_window_name(const sc_report *r, const sc_finding *f)
{
    if (f->process >= r->nprocs)
        return "";
    const sc_process *p = &r->procs[f->process];
    return f->window_ns && !p->range ? "the active window" : sc_process_window_name(p);
}

int sc_cost_is_replay(sc_cost_basis b)
{
    return b == SC_COST_REPLAY || b == SC_COST_REPLAY_MEASURED;
}

/* Findings fixed together (sc_together_phrase): one group, their process's
   with the same together_n and together_ns. */
static int same_group(const sc_finding *a, const sc_finding *b)
{
    return a->process == b->process && a->together_n == b->together_n && a->together_ns == b->together_ns;
}

static int worth_cost(const sc_report *r, const sc_finding *f, const sc_judge_opts *j, uint64_t c)
{
    uint64_t run = sc_finding_window_ns(r, f);
    unsigned __int128 share = (unsigned __int128)run * j->min_share_bp / 10000;
    return c >= j->min_cost_ns && c >= share;
}

/* One of two or more lines that one fix changes (three host syncs where
   events would do) is worth what they save at once, where its own part of
   it is not a crumb (a 2n-th or more): a redundant sync beside a costly one
   is not lifted by it.  Another of them may be worth fixing alone (the
   pricing model's keep_groups keeps such a group's lines as this does). */
static int worth_by_group(const sc_report *r, const sc_finding *f, const sc_judge_opts *j)
{
    return sc_cost_is_replay(f->basis) && f->together_n >= 2 && f->together_ns > f->cost_ns &&
           (unsigned __int128)f->cost_ns * 2 * f->together_n >= f->together_ns && worth_cost(r, f, j, f->together_ns);
}

void sc_report_judge(sc_report *r, const sc_judge_opts *j)
{
    static const sc_judge_opts defaults = SC_JUDGE_DEFAULTS;
    if (!j)
        j = &defaults;
    for (size_t i = 0; i < r->nfindings; i++) {
        sc_finding *f = &r->findings[i];
        /* A predicted saving decides both ways: a warning is worth fixing,
           and no note saves as much as one.  Other costs only keep or lose
           a warning. */
        int replay = sc_cost_is_replay(f->basis) && f->severity != SC_SEV_ERROR;
        if (f->severity != SC_SEV_WARNING && !replay)
            continue;
        int worth;
        if (f->basis == SC_COST_UNMEASURED)
            worth = f->pending > 0;
        else
            worth = worth_cost(r, f, j, f->cost_ns) || (replay && worth_by_group(r, f, j));
        f->severity = worth ? SC_SEV_WARNING : SC_SEV_NOTE;
    }
}

/* Predicted savings at one call site are not added up: two rules of one call
   (cudaFree in a loop is SC301 and SC303; a read each step, SC201 and
   SC403) have fixes that each change that call, and what they save is
   mostly the same host wait.  The largest counts (the first of equal ones):
   findings sorted by process, call site, then saving. */
typedef struct site_cost { const sc_finding *f; size_t i; } site_cost;

static int cmp_site_cost(const void *pa, const void *pb)
{
    const sc_finding *a = ((const site_cost *)pa)->f, *b = ((const site_cost *)pb)->f;
    size_t ia = ((const site_cost *)pa)->i, ib = ((const site_cost *)pb)->i;
    if (a->process != b->process)
        return a->process < b->process ? -1 : 1;
    int c = strcmp(a->callsite, b->callsite);
    if (c)
        return c;
    if (a->cost_ns != b->cost_ns)
        return a->cost_ns > b->cost_ns ? -1 : 1;
    return ia < ib ? -1 : ia > ib;
}

static size_t group_size(const site_cost *v, size_t m, const sc_finding *f)
{
    size_t n = 0;
    for (size_t j = 0; j < m; j++)
        n += same_group(v[j].f, f);
    return n;
}

/* What v[k] (one of m, a call site's largest each) adds to the sum: its
   own saving; but where all the findings fixed together with it (same
   together_n and together_ns in its process: one fix, as three host syncs
   where events would do, or two copy lines pinned) are there, what they
   save at once, counted at the first of them, not their savings added up
   (the text's "Together" line). */
static uint64_t group_cost(const site_cost *v, size_t m, size_t k)
{
    const sc_finding *f = v[k].f;
    if (f->together_n < 2 || group_size(v, m, f) != f->together_n)
        return f->cost_ns;
    for (size_t j = 0; j < k; j++)
        if (same_group(v[j].f, f))
            return 0;
    return f->together_ns;
}

static int counted(const sc_finding *f, long process)
{
    return (process < 0 || f->process == (unsigned long)process) && f->severity != SC_SEV_NOTE &&
           f->rule != SC_RULE_SC102;
}

uint64_t sc_report_cost(const sc_report *r)
{
    return sc_report_cost_of(r, -1);
}

uint64_t sc_report_cost_of(const sc_report *r, long process)
{
    uint64_t sum = 0;
    /* SC102 (at a stream's creation site) is never counted (counted): its
       cost, measured, is the time the legacy-stream commands waited for
       that stream, which is the commands' own findings' (SC101, SC202,
       ...) at their call sites; priced by its own fix (the stream created
       non-blocking, measured mode) it is the other fix of that wait; in
       detect mode it is unmeasured. */
    site_cost *v = r->nfindings ? malloc(r->nfindings * sizeof *v) : NULL;
    size_t n = 0;
    for (size_t i = 0; i < r->nfindings; i++) {
        const sc_finding *f = &r->findings[i];
        if (!counted(f, process))
            continue;
        if (v && sc_cost_is_replay(f->basis) && f->callsite[0])
            v[n++] = (site_cost){f, i};
        else
            sum = sum + f->cost_ns < sum ? UINT64_MAX : sum + f->cost_ns;
    }
    if (n)
        qsort(v, n, sizeof *v, cmp_site_cost);
    size_t m = 0;   /* the largest at each site, to the front */
    for (size_t k = 0; k < n; k++)
        if (!k || v[k].f->process != v[k - 1].f->process || strcmp(v[k].f->callsite, v[k - 1].f->callsite))
            v[m++] = v[k];
    for (size_t k = 0; k < m; k++) {
        uint64_t c = group_cost(v, m, k);
        sum = sum + c < sum ? UINT64_MAX : sum + c;
    }
    free(v);
    return sum;
}

void sc_report_totals(const sc_report *r, uint64_t *errors, uint64_t *warnings, uint64_t *notes)
{
    uint64_t e = 0, w = 0, n = 0;
    for (size_t i = 0; i < r->nfindings; i++)
        switch (r->findings[i].severity) {
        case SC_SEV_ERROR: e++; break;
        case SC_SEV_WARNING: w++; break;
        case SC_SEV_NOTE: n++; break;
        }
    if (errors)
        *errors = e;
    if (warnings)
        *warnings = w;
    if (notes)
        *notes = n;
}

void sc_summary_line(const sc_report *r, char *buf, size_t len)
{
    uint64_t e, w, n;
    sc_report_totals(r, &e, &w, &n);
    snprintf(buf, len, "streamcheck: %zu findings (%" PRIu64 " errors, %" PRIu64 " warnings, %" PRIu64 " notes)",
             r->nfindings, e, w, n);
}

int sc_fail_level_parse(const char *s, sc_fail_level *out)
{
    static const struct {
        const char *name;
        sc_fail_level level;
    } t[] = {
        {"note", SC_FAIL_NOTE}, {"warning", SC_FAIL_WARNING},
        {"error", SC_FAIL_ERROR}, {"never", SC_FAIL_NEVER},
    };
    for (size_t i = 0; s && i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(s, t[i].name)) {
            *out = t[i].level;
            return 0;
        }
    return -1;
}

int sc_severity_fails(sc_severity s, sc_fail_level l)
{
    switch (l) {
    case SC_FAIL_NOTE: return 1;
    case SC_FAIL_WARNING: return s >= SC_SEV_WARNING;
    case SC_FAIL_ERROR: return s >= SC_SEV_ERROR;
    case SC_FAIL_DEFAULT:
    case SC_FAIL_NEVER: break;
    }
    return 0;
}
