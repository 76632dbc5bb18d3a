/* pricing_events.c: the orders events give streams in a replay of the
 * pricing model (pricing.h, sc_pr_events_*): each record of an event is
 * the replay operation it followed, found again by a stream's wait for the
 * event.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "pricing.h"

/* A record of an event: its handle, when it was made, the replay operation
   it followed, and the index + 1 of the record made before it whose handle
   hashes alike (0: none). */
typedef struct evrec {
    uint64_t event, t0;
    int op;
    uint32_t next;
} evrec;

struct sc_pr_events {
    uint32_t *head;   /* per bucket: its newest record's index + 1 */
    size_t mask;
    evrec *v;
    size_t n, cap;
};

/* The records a wait looks through for the latest one before it: a
   thread's own waits find theirs first, another thread's may lie further. */
#define EV_SCAN 256

static size_t bucket(const sc_pr_events *e, uint64_t event)
{
    uint64_t h = event * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 32) & e->mask;
}

sc_pr_events *sc_pr_events_new(const sc_pr_model *m, int *oom)
{
    size_t n = 0;
    *oom = 0;
    for (size_t t = 0; t < m->nthreads; t++)
        for (size_t i = 0; i < m->threads[t].n; i++)
            n += m->threads[t].calls[i].what == SC_PR_EVENT_RECORD;
    if (!n || n >= UINT32_MAX)
        return NULL;
    size_t nb = 16;
    while (nb < 2 * n)
        nb *= 2;
    sc_pr_events *e = calloc(1, sizeof *e);
    if (e) {
        e->head = calloc(nb, sizeof *e->head);
        e->v = malloc(n * sizeof *e->v);
        e->mask = nb - 1;
        e->cap = n;
    }
    if (!e || !e->head || !e->v) {
        sc_pr_events_free(e);
        *oom = 1;
        return NULL;
    }
    return e;
}

int sc_pr_events_put(sc_pr_events *e, uint64_t event, uint64_t t0, int op)
{
    if (!e || op < 0)
        return 0;
    if (e->n == e->cap)
        return -1;   /* more records than the model holds: cannot be */
    size_t b = bucket(e, event);
    e->v[e->n] = (evrec){event, t0, op, e->head[b]};
    e->head[b] = (uint32_t)++e->n;
    return 0;
}

int sc_pr_events_get(const sc_pr_events *e, uint64_t event, uint64_t t0)
{
    if (!e)
        return -1;
    int op = -1;
    uint64_t best = 0;
    unsigned seen = 0;
    for (uint32_t k = e->head[bucket(e, event)]; k && seen < EV_SCAN; k = e->v[k - 1].next, seen++) {
        const evrec *r = &e->v[k - 1];
        if (r->event == event && r->t0 <= t0 && (op < 0 || r->t0 > best)) {
            op = r->op;
            best = r->t0;
        }
    }
    return op;
}

void sc_pr_events_free(sc_pr_events *e)
{
    if (!e)
        return;
    free(e->head);
    free(e->v);
    free(e);
}
