/* report_merge.c: appends one report to another (sc_report_merge), the
 * step of `streamcheck report` and of reading a JSON report back. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "report.h"

/* A merge in progress.  Everything that can fail happens before dst
   changes: new entries go into the reserved tail of each array and are
   counted in only by commit(), so a failure leaves dst as it was. */
typedef struct merge {
    sc_report *dst;
    const sc_report *src;
    unsigned off;                    /* src's process 0 in dst */
    size_t np, nc, nf, nr, nn;       /* entries appended to each tail */
    char *tv;                        /* dst's tool version, when it had none */
    uint64_t *add;                   /* calls to add to each of dst's counts */
    sc_idmap m;                      /* dst's call sites and the tail's */
} merge;

static int same_str(const char *a, const char *b)
{
    return a && b ? !strcmp(a, b) : a == b;
}

static int reserve_tails(sc_report *dst, const sc_report *src)
{
    if (sc_grow(&dst->procs, dst->nprocs + src->nprocs, sizeof *dst->procs) < 0 ||
        sc_grow(&dst->callsites, dst->ncallsites + src->ncallsites, sizeof *dst->callsites) < 0 ||
        sc_grow(&dst->findings, dst->nfindings + src->nfindings, sizeof *dst->findings) < 0 ||
        sc_grow(&dst->redirects, dst->nredirects + src->nredirects, sizeof *dst->redirects) < 0 ||
        sc_grow(&dst->counts, dst->ncounts + src->ncounts, sizeof *dst->counts) < 0)
        return -1;
    return 0;
}

/* Processes, call sites dst lacks, findings and redirects, into the tails. */
static int copy_entries(merge *g)
{
    sc_report *dst = g->dst;
    const sc_report *src = g->src;
    for (; g->np < src->nprocs; g->np++)
        if (sc_process_copy(&dst->procs[dst->nprocs + g->np], &src->procs[g->np]) < 0)
            return -1;
    for (size_t i = 0; i < src->ncallsites; i++) {
        if (sc_idmap_find(&g->m, dst->callsites, src->callsites[i].id) >= 0)
            continue;
        size_t k = dst->ncallsites + g->nc;
        if (sc_callsite_copy(&dst->callsites[k], &src->callsites[i]) < 0)
            return -1;
        g->nc++;
        sc_idmap_add(&g->m, dst->callsites, k);
    }
    for (; g->nf < src->nfindings; g->nf++) {
        sc_finding *f = &dst->findings[dst->nfindings + g->nf];
        if (sc_finding_copy(f, &src->findings[g->nf]) < 0)
            return -1;
        f->process += g->off;
    }
    for (; g->nr < src->nredirects; g->nr++) {
        sc_redirect *rd = &dst->redirects[dst->nredirects + g->nr];
        if (sc_redirect_copy(rd, &src->redirects[g->nr]) < 0)
            return -1;
        rd->process += g->off;
    }
    return 0;
}

/* Api counts summed per (library, api): into g->add for dst's rows, into
   the row itself for one this merge added, else a new row in the tail. */
static int add_counts(merge *g)
{
    sc_report *dst = g->dst;
    for (size_t i = 0; i < g->src->ncounts; i++) {
        const sc_api_count *c = &g->src->counts[i];
        size_t k, total = dst->ncounts + g->nn;
        for (k = 0; k < total; k++)
            if (same_str(dst->counts[k].library, c->library) && same_str(dst->counts[k].api, c->api))
                break;
        if (k < dst->ncounts) {
            g->add[k] += c->calls;
        } else if (k < total) {
            dst->counts[k].calls += c->calls;
        } else {
            if (sc_api_count_copy(&dst->counts[total], c) < 0)
                return -1;
            dst->counts[total].process += g->off;
            g->nn++;
        }
    }
    return 0;
}

static void commit(merge *g)
{
    sc_report *dst = g->dst;
    for (size_t k = 0; k < dst->ncounts; k++)
        dst->counts[k].calls += g->add[k];
    dst->nprocs += g->np;
    dst->ncallsites += g->nc;
    dst->nfindings += g->nf;
    dst->nredirects += g->nr;
    dst->ncounts += g->nn;
    if (g->tv)
        dst->tool_version = g->tv;
    g->tv = NULL;
}

/* Frees what the tails got. */
static void undo(merge *g)
{
    sc_report *dst = g->dst;
    for (size_t i = 0; i < g->np; i++)
        sc_process_clear(&dst->procs[dst->nprocs + i]);
    for (size_t i = 0; i < g->nc; i++)
        sc_callsite_clear(&dst->callsites[dst->ncallsites + i]);
    for (size_t i = 0; i < g->nf; i++)
        sc_finding_clear(&dst->findings[dst->nfindings + i]);
    for (size_t i = 0; i < g->nr; i++)
        sc_redirect_clear(&dst->redirects[dst->nredirects + i]);
    for (size_t i = 0; i < g->nn; i++)
        sc_api_count_clear(&dst->counts[dst->ncounts + i]);
}

int sc_report_merge(sc_report *dst, const sc_report *src)
{
    if (!dst || !src || dst == src) {
        errno = EINVAL;
        return -1;
    }
    if (src->nprocs > UINT_MAX - dst->nprocs) {
        errno = EOVERFLOW;
        return -1;
    }
    merge g = {.dst = dst, .src = src, .off = (unsigned)dst->nprocs};
    if (reserve_tails(dst, src) < 0)
        return -1;
    int rc = -1;
    if (!dst->tool_version && src->tool_version && !(g.tv = strdup(src->tool_version)))
        goto out;
    if (dst->ncounts && !(g.add = calloc(dst->ncounts, sizeof *g.add)))
        goto out;
    if (sc_idmap_init(&g.m, dst->ncallsites + src->ncallsites) < 0)
        goto out;
    for (size_t i = 0; i < dst->ncallsites; i++)
        sc_idmap_add(&g.m, dst->callsites, i);
    if (copy_entries(&g) == 0 && add_counts(&g) == 0) {
        commit(&g);
        rc = 0;
    }
out:;
    int saved = errno;
    if (rc < 0)
        undo(&g);
    free(g.tv);
    free(g.add);
    sc_idmap_free(&g.m);
    if (rc < 0)
        errno = saved ? saved : ENOMEM;
    return rc;
}
