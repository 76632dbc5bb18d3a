/* findings.c: aggregation of findings, allocations, legacy-stream work and
 * redirects per call site.
 *
 * Each thread aggregates into its own table, so the slow path takes no
 * lock: in a one-stream program every launch is an SC101 note, and a
 * shared table would make threads queue for it.  Tables are merged when
 * the report is built, after the shim has stopped (or paused) judging
 * calls and every thread has left its bookkeeping (core.c, quiesce).
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "findings.h"
#include "runlog.h"
#include "measure.h"
#include "report.h"
#include "thread.h"

const char *const sc_redirect_outcomes[SC_RD_NOUTCOMES] = {
    [SC_RD_REDIRECTED] = "redirected",
    [SC_RD_CAPTURE] = "not redirected: a stream capture was in progress",
    [SC_RD_BLOCKING] = "not redirected: blocking streams exist, which the legacy stream orders "
                       "with this work",
    [SC_RD_EXPLICIT_LEGACY] = "not redirected: the program named cudaStreamLegacy explicitly",
    [SC_RD_NO_ENTRY] = "not redirected: the driver has no per-thread entry point for it",
    [SC_RD_NO_ORDER] = "not redirected: it could not be ordered after the thread's redirect stream",
    [SC_RD_UNTRACKED] = "not redirected: more threads use the legacy stream than streamcheck can keep "
                        "in order (32)",
    [SC_RD_HANDOFF] = "not redirected: it follows another thread's work (the program synchronized the "
                      "two threads), and no event of that thread's stream could order it",
};

typedef struct ent {
    sc_agg_key k;
    sc_agg_val v;
    int used;
} ent;

typedef struct sc_aggtab {
    ent *v;
    size_t cap, n;
} sc_aggtab;

static uint64_t key_hash(const sc_agg_key *k)
{
    uint64_t h = sc_mix(SC_HASH_INIT, k->site);
    h = sc_mix(h, k->range);
    return sc_mix(h, (uint64_t)k->device << 48 | (uint64_t)k->api << 32 | (uint64_t)k->rt << 16 |
                         (uint64_t)k->rule << 8 | (uint64_t)k->sev << 4 | k->table);
}

static ent *slot(ent *t, size_t c, const sc_agg_key *k)
{
    size_t i = (size_t)key_hash(k) & (c - 1);
    while (t[i].used && memcmp(&t[i].k, k, sizeof *k))
        i = (i + 1) & (c - 1);
    return &t[i];
}

static int grow(sc_aggtab *tab)
{
    size_t nc = tab->cap ? tab->cap * 2 : 256;
    ent *nt = calloc(nc, sizeof *nt);
    if (!nt)
        return -1;
    for (size_t i = 0; i < tab->cap; i++)
        if (tab->v[i].used)
            *slot(nt, nc, &tab->v[i].k) = tab->v[i];
    free(tab->v);
    tab->v = nt;
    tab->cap = nc;
    return 0;
}

static void tab_add(sc_aggtab *tab, const sc_agg_key *k, const sc_agg_val *add)
{
    if ((tab->n + 1) * 2 > tab->cap && grow(tab))
        return;
    ent *e = slot(tab->v, tab->cap, k);
    if (!e->used) {
        e->used = 1;
        e->k = *k;
        tab->n++;
    }
    e->v.count += add->count;
    e->v.blocked_ns += add->blocked_ns;
    e->v.pending += add->pending;
    e->v.bytes += add->bytes;
    e->v.lost_ns += add->lost_ns;
    e->v.cost_ns += add->cost_ns;
    e->v.also |= add->also;
    e->v.sampled += add->sampled;
}

/* weight > 1: a sampled event standing for that many (see dispatch.c). */
static void add(sc_thread *t, const sc_agg_key *k, uint64_t blocked, int pending, uint64_t bytes,
                unsigned weight, uint64_t cost, uint32_t also)
{
    if (!t->agg && !(t->agg = calloc(1, sizeof *t->agg)))
        return;
    sc_agg_val v = {.count = weight, .blocked_ns = blocked, .pending = pending ? weight : 0,
                    .bytes = bytes * weight, .lost_ns = pending ? blocked : 0,
                    .cost_ns = cost * weight, .also = also, .sampled = weight > 1 ? weight : 0};
    tab_add(t->agg, k, &v);
}

void sc_finding_add(sc_thread *t, const sc_hit *h, unsigned weight)
{
    sc_agg_key k = {.site = h->site, .api = h->api, .rt = h->rt, .rule = h->rule, .sev = h->sev,
                    .table = SC_AGG_FINDING, .device = h->device, .range = h->range};
    add(t, &k, h->blocked_ns, h->pending, h->bytes, weight, h->cost_ns, h->also);
    if (h->mid)
        sc_measure_commit(h->mid, &k, h->also, weight);
    if (sc_rl_on)
        sc_rl_finding(t, h->rl, &k);   /* rec 0: counted past a full log */
}

void sc_alloc_site_add(sc_thread *t, unsigned api, unsigned rt, uint64_t site, uint64_t bytes,
                       uint64_t blocked_ns, unsigned device, unsigned range, uint32_t rl)
{
    sc_agg_key k = {.site = site, .api = (uint16_t)api, .rt = (uint16_t)rt, .table = SC_AGG_ALLOC,
                    .device = (uint8_t)device, .range = range};
    add(t, &k, blocked_ns, 0, bytes, 1, 0, 0);
    if (sc_measure_tls_mid)
        sc_measure_commit(sc_measure_tls_mid, &k, 0, 1);
    if (sc_rl_on)
        sc_rl_finding(t, rl, &k);
}

/* How detect mode prices each rule's findings: rules.def's COST column,
   whose values are report.h's sc_cost_basis.  A serialization costs the
   GPU, which the host does not see: those are unmeasured here (measured
   mode prices them from the GPU timeline). */
_Static_assert(SC_RULE_COST_UNMEASURED == (int)SC_COST_UNMEASURED &&
                   SC_RULE_COST_COPY_BLOCKED == (int)SC_COST_COPY_BLOCKED &&
                   SC_RULE_COST_HOST_BLOCKED == (int)SC_COST_HOST_BLOCKED &&
                   SC_RULE_COST_PENDING_BLOCKED == (int)SC_COST_PENDING_BLOCKED,
               "rules.h's cost bases are report.h's");

unsigned sc_rule_cost_basis(unsigned rule)
{
    return sc_rule_props[rule].cost;
}

uint64_t sc_rule_cost(unsigned rule, uint64_t blocked_ns, int pending)
{
    switch (sc_rule_cost_basis(rule)) {
    case SC_COST_COPY_BLOCKED: case SC_COST_HOST_BLOCKED: return blocked_ns;
    case SC_COST_PENDING_BLOCKED: return pending ? blocked_ns : 0;
    default: return 0;
    }
}

void sc_legacy_site_add(sc_thread *t, unsigned api, unsigned rt, uint64_t site, unsigned weight,
                        unsigned device, unsigned lid, unsigned range)
{
    /* Counted per thread lifetime: SC103 keeps those found racing (hb.h).
       The lifetime takes the key's rule and severity bytes: hb_clock.c gives a
       verdict to the first 65536 (HB_LIDS); later ones count as 0, none. */
    if (lid > 0xffff)
        lid = 0;
    sc_agg_key k = {.site = site, .api = (uint16_t)api, .rt = (uint16_t)rt, .rule = (uint8_t)lid,
                    .sev = (uint8_t)(lid >> 8), .table = SC_AGG_LEGACY, .device = (uint8_t)device,
                    .range = range};
    add(t, &k, 0, 0, 0, weight, 0, 0);
}

void sc_redirect_add(sc_thread *t, unsigned api, unsigned rt, uint64_t site, unsigned outcome, unsigned weight)
{
    sc_agg_key k = {.site = site, .api = (uint16_t)api, .rt = (uint16_t)rt, .rule = (uint8_t)outcome,
                    .table = SC_AGG_REDIRECT, .device = SC_DEV_UNKNOWN};
    add(t, &k, 0, 0, 0, weight, 0, 0);
}

/* ------------------------------------------------------ merged view --- */
static pthread_mutex_t merge_lock = PTHREAD_MUTEX_INITIALIZER;

static void merge_thread(sc_thread *t, void *arg)
{
    sc_aggtab *all = arg;
    if (!t->agg || t->late)   /* late: still changing it when the report stopped waiting (core.h) */
        return;
    for (size_t i = 0; i < t->agg->cap; i++)
        if (t->agg->v[i].used)
            tab_add(all, &t->agg->v[i].k, &t->agg->v[i].v);
}

/* Calls fn for every aggregate of `table`, summed over threads.  The
   threads' tables must be quiet: at report time (after core.c's quiesce), or in
   a test with no thread in the shim. */
void sc_aggs_foreach(int table, void (*fn)(const sc_agg_key *, const sc_agg_val *, void *), void *arg)
{
    pthread_mutex_lock(&merge_lock);
    sc_aggtab all = {0};
    sc_threads_foreach(merge_thread, &all);
    for (size_t i = 0; i < all.cap; i++)
        if (all.v[i].used && all.v[i].k.table == table)
            fn(&all.v[i].k, &all.v[i].v, arg);
    free(all.v);
    pthread_mutex_unlock(&merge_lock);
}

/* In a forked child: nothing the parent saw is the child's. */
static void sc_findings_reset_thread(sc_thread *t)
{
    if (t->agg && t->agg->v) {   /* a table never grown has no array (memset(NULL, 0, 0) is undefined) */
        memset(t->agg->v, 0, t->agg->cap * sizeof *t->agg->v);
        t->agg->n = 0;
    }
}

static void reset_thread(sc_thread *t, void *arg)
{
    (void)arg;
    sc_findings_reset_thread(t);
}

static void findings_lock(void) { pthread_mutex_lock(&merge_lock); }
static void findings_unlock(void) { pthread_mutex_unlock(&merge_lock); }
static void findings_child(void)
{
    pthread_mutex_init(&merge_lock, NULL);
    sc_threads_foreach(reset_thread, NULL);
}

static const sc_part part = {"findings", 50, findings_lock, findings_unlock, findings_child, NULL, NULL};
SC_PART_REGISTER(part)
