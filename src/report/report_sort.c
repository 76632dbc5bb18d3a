/* report_sort.c: the one order every renderer prints in (sc_report_sort):
 * findings ranked by their call site's cost, call sites in the order the
 * findings name them, api counts and redirects by a total order. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* NULL sorts before every string, so the order is total. */
static int cmp_str(const char *a, const char *b)
{
    if (!a || !b)
        return (a != NULL) - (b != NULL);
    return strcmp(a, b);
}

static int cmp_u64(uint64_t a, uint64_t b)
{
    return (a > b) - (a < b);
}

/* Findings sort in groups: one group per (severity, process, call site),
   the groups ranked by their summed cost, then by their summed pending
   events (what detect mode cannot price but saw happen), then by their
   summed calls (of unpriced notes, the line that did it most first, not
   the call site's hash, which moves with the program's code layout).
   keyed_finding carries the sums. */
typedef struct keyed_finding {
    uint64_t group_cost, group_pending, group_count;
    sc_finding f;
} keyed_finding;

static int cmp_group(const sc_finding *a, const sc_finding *b)
{
    int c;
    if ((c = cmp_u64(b->severity, a->severity)) || (c = cmp_u64(a->process, b->process)))
        return c;
    return strcmp(a->callsite, b->callsite);
}

static int cmp_grouping(const void *pa, const void *pb)
{
    return cmp_group(&((const keyed_finding *)pa)->f, &((const keyed_finding *)pb)->f);
}

static int cmp_finding(const void *pa, const void *pb)
{
    const keyed_finding *ka = pa, *kb = pb;
    const sc_finding *a = &ka->f, *b = &kb->f;
    int c;
    if ((c = cmp_u64(b->severity, a->severity)))
        return c;
    if ((c = cmp_u64(kb->group_cost, ka->group_cost)) || (c = cmp_u64(kb->group_pending, ka->group_pending)) ||
        (c = cmp_u64(kb->group_count, ka->group_count)))
        return c;
    if ((c = cmp_u64(a->process, b->process)) || (c = strcmp(a->callsite, b->callsite)))
        return c;
    if ((c = cmp_u64(b->cost_ns, a->cost_ns)) || (c = cmp_u64(b->pending, a->pending)) ||
        (c = cmp_u64(b->count, a->count)))
        return c;
    if ((c = cmp_u64(a->rule, b->rule)) || (c = cmp_str(a->nvtx_range, b->nvtx_range)))
        return c;
    if (a->device != b->device)
        return a->device < b->device ? -1 : 1;
    if ((c = cmp_str(a->api, b->api)) || (c = cmp_str(a->driver_api, b->driver_api)))
        return c;
    if ((c = cmp_u64(b->lost_ns, a->lost_ns)) || (c = cmp_u64(b->blocked_ns, a->blocked_ns)) ||
        (c = cmp_u64(b->bytes, a->bytes)) || (c = cmp_u64(a->basis, b->basis)) ||
        (c = cmp_u64(a->also, b->also)))
        return c;
    return cmp_str(a->detail, b->detail);
}

/* Ranks findings by the cost of their call site's group (see above).
   Without memory, by the findings' own cost alone: still deterministic. */
static void sort_findings(sc_report *r)
{
    keyed_finding *k = malloc(r->nfindings * sizeof *k);
    if (!k)
        return;
    for (size_t i = 0; i < r->nfindings; i++)
        k[i] = (keyed_finding){0, 0, 0, r->findings[i]};
    qsort(k, r->nfindings, sizeof *k, cmp_grouping);
    for (size_t i = 0, j; i < r->nfindings; i = j) {
        uint64_t sum = 0, pend = 0, calls = 0;
        for (j = i; j < r->nfindings && !cmp_group(&k[i].f, &k[j].f); j++) {
            sum = sum + k[j].f.cost_ns < sum ? UINT64_MAX : sum + k[j].f.cost_ns;
            pend = pend + k[j].f.pending < pend ? UINT64_MAX : pend + k[j].f.pending;
            calls = calls + k[j].f.count < calls ? UINT64_MAX : calls + k[j].f.count;
        }
        for (size_t m = i; m < j; m++) {
            k[m].group_cost = sum;
            k[m].group_pending = pend;
            k[m].group_count = calls;
        }
    }
    qsort(k, r->nfindings, sizeof *k, cmp_finding);
    for (size_t i = 0; i < r->nfindings; i++)
        r->findings[i] = k[i].f;
    free(k);
}

static int cmp_count(const void *pa, const void *pb)
{
    const sc_api_count *a = pa, *b = pb;
    int c;
    if ((c = cmp_u64(b->calls, a->calls)) || (c = cmp_str(a->api, b->api)) ||
        (c = cmp_str(a->library, b->library)))
        return c;
    return cmp_u64(a->process, b->process);
}

typedef struct ranked_cs {
    size_t rank;
    sc_callsite cs;
} ranked_cs;

static int cmp_ranked_cs(const void *pa, const void *pb)
{
    const ranked_cs *a = pa, *b = pb;
    int c = cmp_u64(a->rank, b->rank);
    return c ? c : strcmp(a->cs.id, b->cs.id);
}

typedef struct ranked_rd {
    long cs;              /* call-site index after sorting; -1 for none */
    sc_redirect rd;
} ranked_rd;

static int cmp_ranked_rd(const void *pa, const void *pb)
{
    const ranked_rd *a = pa, *b = pb;
    int c;
    if ((c = cmp_str(a->rd.api, b->rd.api)))
        return c;
    if ((c = (a->cs > b->cs) - (a->cs < b->cs)))
        return c;
    /* "redirected" first, then the reasons it was not, alphabetically. */
    int ar = !a->rd.outcome || strcmp(a->rd.outcome, "redirected");
    int br = !b->rd.outcome || strcmp(b->rd.outcome, "redirected");
    if ((c = ar - br) || (c = cmp_str(a->rd.outcome, b->rd.outcome)))
        return c;
    if ((c = cmp_u64(a->rd.process, b->rd.process)))
        return c;
    return cmp_u64(b->rd.count, a->rd.count);
}

void sc_report_sort(sc_report *r)
{
    if (r->nfindings > 1)
        sort_findings(r);
    if (r->ncounts > 1)
        qsort(r->counts, r->ncounts, sizeof *r->counts, cmp_count);

    /* Call sites: numbered in the order the report first mentions them.
       Without memory for the ranks, fall back to plain id order, which is
       still deterministic. */
    sc_idmap m = {0};
    ranked_cs *rc = NULL;
    if (r->ncallsites > 1 && (rc = malloc(r->ncallsites * sizeof *rc)) &&
        sc_idmap_init(&m, r->ncallsites) == 0) {
        for (size_t i = 0; i < r->ncallsites; i++) {
            rc[i].rank = SIZE_MAX;
            rc[i].cs = r->callsites[i];
            sc_idmap_add(&m, r->callsites, i); /* duplicates: first wins */
        }
        size_t rank = 0;
        for (size_t i = 0; i < r->nfindings; i++, rank++) {
            long k = *r->findings[i].callsite ? sc_idmap_find(&m, r->callsites, r->findings[i].callsite) : -1;
            if (k >= 0 && rc[k].rank == SIZE_MAX)
                rc[k].rank = rank;
        }
        for (size_t i = 0; i < r->nredirects; i++, rank++) {
            long k = *r->redirects[i].callsite ? sc_idmap_find(&m, r->callsites, r->redirects[i].callsite) : -1;
            if (k >= 0 && rc[k].rank == SIZE_MAX)
                rc[k].rank = rank;
        }
        qsort(rc, r->ncallsites, sizeof *rc, cmp_ranked_cs);
        for (size_t i = 0; i < r->ncallsites; i++)
            r->callsites[i] = rc[i].cs;
    } else if (r->ncallsites > 1) {
        if (rc) {
            for (size_t i = 0; i < r->ncallsites; i++) {
                rc[i].rank = 0;
                rc[i].cs = r->callsites[i];
            }
            qsort(rc, r->ncallsites, sizeof *rc, cmp_ranked_cs);
            for (size_t i = 0; i < r->ncallsites; i++)
                r->callsites[i] = rc[i].cs;
        }
    }
    free(rc);
    sc_idmap_free(&m);

    ranked_rd *rr;
    if (r->nredirects > 1 && (rr = malloc(r->nredirects * sizeof *rr))) {
        for (size_t i = 0; i < r->nredirects; i++) {
            rr[i].rd = r->redirects[i];
            rr[i].cs = sc_report_callsite_index(r, r->redirects[i].callsite);
        }
        qsort(rr, r->nredirects, sizeof *rr, cmp_ranked_rd);
        for (size_t i = 0; i < r->nredirects; i++)
            r->redirects[i] = rr[i].rd;
        free(rr);
    }
}
