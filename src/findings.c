/* findings.c: aggregation of findings, allocations and redirects per call
 * site.  Only the slow path adds here, under one lock; entries are keyed by
 * (table, rule, severity, driver API, runtime API, call site). */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "shim.h"

const char *const sc_redirect_outcomes[SC_RD_NOUTCOMES] = {
    [SC_RD_REDIRECTED] = "redirected",
    [SC_RD_CAPTURE] = "not redirected: a stream capture was in progress",
    [SC_RD_BLOCKING] = "not redirected: blocking streams exist, which the legacy stream orders "
                       "with this work",
    [SC_RD_EXPLICIT_LEGACY] = "not redirected: the program named cudaStreamLegacy explicitly",
    [SC_RD_NO_ENTRY] = "not redirected: the driver has no per-thread entry point for it",
};

typedef struct ent {
    sc_agg_key k;
    sc_agg_val v;
    int used;
} ent;

static ent *tab;
static size_t cap, used;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t key_hash(const sc_agg_key *k)
{
    return sc_hash_bytes(SC_HASH_INIT, k, sizeof *k);
}

static ent *slot(ent *t, size_t c, const sc_agg_key *k)
{
    size_t i = (size_t)key_hash(k) & (c - 1);
    while (t[i].used && memcmp(&t[i].k, k, sizeof *k))
        i = (i + 1) & (c - 1);
    return &t[i];
}

static int grow(void)
{
    size_t nc = cap ? cap * 2 : 1024;
    ent *nt = calloc(nc, sizeof *nt);
    if (!nt)
        return -1;
    for (size_t i = 0; i < cap; i++)
        if (tab[i].used)
            *slot(nt, nc, &tab[i].k) = tab[i];
    free(tab);
    tab = nt;
    cap = nc;
    return 0;
}

static void add(const sc_agg_key *k, uint64_t blocked, int pending, uint64_t bytes)
{
    pthread_mutex_lock(&lock);
    if ((used + 1) * 2 > cap && grow()) {
        pthread_mutex_unlock(&lock);
        return;
    }
    ent *e = slot(tab, cap, k);
    if (!e->used) {
        e->used = 1;
        e->k = *k;
        used++;
    }
    e->v.count++;
    e->v.blocked_ns += blocked;
    e->v.bytes += bytes;
    if (pending) {
        e->v.pending++;
        e->v.lost_ns += blocked;
    }
    pthread_mutex_unlock(&lock);
}

void sc_finding_add(unsigned rule, unsigned sev, unsigned api, unsigned rt, uint64_t site,
                    uint64_t blocked_ns, int pending, uint64_t bytes)
{
    sc_agg_key k = {.site = site, .api = (uint16_t)api, .rt = (uint16_t)rt, .rule = (uint8_t)rule,
                    .sev = (uint8_t)sev, .table = SC_AGG_FINDING};
    add(&k, blocked_ns, pending, bytes);
}

void sc_alloc_site_add(unsigned api, unsigned rt, uint64_t site, uint64_t bytes)
{
    sc_agg_key k = {.site = site, .api = (uint16_t)api, .rt = (uint16_t)rt, .table = SC_AGG_ALLOC};
    add(&k, 0, 0, bytes);
}

void sc_redirect_add(unsigned api, unsigned rt, uint64_t site, unsigned outcome)
{
    sc_agg_key k = {.site = site, .api = (uint16_t)api, .rt = (uint16_t)rt, .rule = (uint8_t)outcome,
                    .table = SC_AGG_REDIRECT};
    add(&k, 0, 0, 0);
}

void sc_legacy_site_add(unsigned api, unsigned rt, uint64_t site)
{
    sc_agg_key k = {.site = site, .api = (uint16_t)api, .rt = (uint16_t)rt, .table = SC_AGG_LEGACY};
    add(&k, 0, 0, 0);
}

void sc_aggs_foreach(int table, void (*fn)(const sc_agg_key *, const sc_agg_val *, void *), void *arg)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < cap; i++)
        if (tab[i].used && tab[i].k.table == table)
            fn(&tab[i].k, &tab[i].v, arg);
    pthread_mutex_unlock(&lock);
}

void sc_findings_lock(void) { pthread_mutex_lock(&lock); }
void sc_findings_unlock(void) { pthread_mutex_unlock(&lock); }

void sc_findings_reset(void)
{
    pthread_mutex_init(&lock, NULL);
    if (tab)
        memset(tab, 0, cap * sizeof *tab);
    used = 0;
}
