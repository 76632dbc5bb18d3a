/* timeline_price.c: what each finding event cost on the GPU timeline
 * (timeline.h, sc_tl_price), by the two questions of libstreamcheck(7),
 * MEASURED MODE: did the call hold the host while the GPU starved for
 * work, and did work start later than it could have?
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "timeline.h"

#define TOL_NS 1000      /* timestamps of dependent operations may touch */
#define CHAIN_MAX 256    /* operations followed behind a held-back one on its stream */
#define COVER_MAX 4096   /* busy intervals of another stream looked at per tail */
#define MAXC 16          /* correlation ids of an event's own work */
#define OWN_MAX 64       /* operations of an event's own work */

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* The busy interval of d that holds t, or -1. */
static long busy_at(const sc_tl_device *d, int64_t t)
{
    size_t lo = SC_FIRST(m, 0, d->busy.n, d->busy.v[m].b <= t);
    return lo < d->busy.n && d->busy.v[lo].a <= t ? (long)lo : -1;
}

/* The first operation of d starting at or after t (index into ops), or d->o1. */
static size_t first_from(const sc_timeline *tl, const sc_tl_device *d, int64_t t)
{
    return SC_FIRST(m, d->o0, d->o1, tl->ops[m].start < t);
}

static const sc_tl_device *device_of(const sc_timeline *tl, uint32_t id)
{
    for (size_t i = 0; i < tl->ndevices; i++)
        if (tl->devices[i].id == id)
            return &tl->devices[i];
    return NULL;
}

/* ------------------------------------------------------- its own work --- */
/* The API calls of thread `tid` that contain the event's call (the runtime
   call around our driver wrapper) or lie inside it (the driver call
   itself): their correlation ids into c[n..MAXC); returns the new n. */
static size_t thread_corrs(const sc_timeline *tl, const sc_tl_event *e, uint32_t tid, uint32_t *c, size_t n)
{
    /* just past the thread's last call starting at or before c1 */
    size_t lo = SC_FIRST(m, 0, tl->napis,
                         tl->by_thread[m]->thread < tid ||
                             (tl->by_thread[m]->thread == tid && tl->by_thread[m]->start <= e->c1));
    for (size_t k = lo, steps = 0; k-- > 0 && steps < 64 && n < MAXC; steps++) {
        const sc_tl_api *a = tl->by_thread[k];
        if (a->thread != tid)
            break;
        int inside = a->start >= e->c0 && a->end <= e->c1;
        int around = a->start <= e->c0 && a->end >= e->c1;
        if ((inside || around) && a->corr)
            c[n++] = a->corr;
    }
    return n;
}

/* Correlation ids of an event's own GPU work: its external id's, then its
   thread's calls' (by either id). */
static size_t event_corrs(const sc_timeline *tl, const sc_tl_event *e, uint32_t *c)
{
    size_t n = 0, lo = SC_FIRST(m, 0, tl->nexts, tl->exts[m].ext < e->ext);
    for (; lo < tl->nexts && tl->exts[lo].ext == e->ext && n < MAXC; lo++)
        c[n++] = tl->exts[lo].corr;
    n = thread_corrs(tl, e, e->pthread, c, n);
    if (e->tid != e->pthread)
        n = thread_corrs(tl, e, e->tid, c, n);
    return n;
}

/* The event's own operations, each once, into own[]; cost->corr is the id
   of the last one found. */
static size_t own_ops(const sc_timeline *tl, const sc_tl_event *e, sc_tl_cost *cost, size_t *own)
{
    uint32_t corr[MAXC];
    size_t nc = event_corrs(tl, e, corr), nown = 0;
    for (size_t i = 0; i < nc; i++) {
        size_t lo = SC_FIRST(m, 0, tl->nops, tl->by_corr[m].corr < corr[i]);
        for (; lo < tl->nops && tl->by_corr[lo].corr == corr[i] && nown < OWN_MAX; lo++) {
            size_t o = tl->by_corr[lo].op, k;
            for (k = 0; k < nown && own[k] != o; k++)
                ;
            if (k == nown) {
                own[nown++] = o;
                cost->corr = corr[i];
            }
        }
    }
    return nown;
}

/* ----------------------------------------------------- the held host --- */
/* The host was held inside the call: the GPU idle time it caused, from the
   call's start (with a wait for its stream before it) until the device's
   next work started, if the device was busy when the call began and work
   followed; at most the time the host was held. */
static void held_host(sc_timeline *tl, const sc_tl_event *e, const sc_tl_device *d)
{
    int64_t w0 = e->c0 - e->drain, held = e->c1 - w0;
    long b = busy_at(d, w0);
    size_t nx = first_from(tl, d, e->c1);
    if (b < 0 || held <= 0 || nx >= d->o1)   /* idle at the start, or no work after it */
        return;
    int64_t w1 = tl->ops[nx].start, total = 0;
    for (size_t k = (size_t)b; k < d->busy.n && total < held; k++) {
        int64_t ia = d->busy.v[k].b, ib = k + 1 < d->busy.n ? d->busy.v[k + 1].a : INT64_MAX;
        if (ia >= w1)
            break;
        ib = min64(ib, w1);
        ib = min64(ib, ia + (held - total));
        sc_tl_spans_add(&tl->lost, ia, ib);
        total += ib > ia ? ib - ia : 0;
    }
}

/* ---------------------------------------------------- held-back work --- */
/* How much later than it could have x started: after its submission and
   its stream's previous operation. */
static int64_t late_by(const sc_timeline *tl, size_t x)
{
    return tl->ops[x].start - max64(tl->submit[x], tl->prev_end[x]);
}

/* x was held back by `shift`: the operations after it on its stream move
   earlier too, as far as their own submission allows, while each started
   when the one before it ended (it waited for it; one that started later
   was held by something else, in a loop another step's barrier).  Marks
   the chain (stamp) and returns the lost tail [end - shift, end) of its
   last moved operation. */
static sc_tl_span chain(sc_timeline *tl, size_t x, int64_t shift, uint32_t stamp)
{
    const sc_tl_stream *s = &tl->streams[tl->stream_of[x]];
    size_t last = x;
    int64_t sh = shift;
    tl->stamp[x] = stamp;
    tl->chained[tl->stream_of[x]] = stamp;
    for (size_t k = tl->pos[x] + 1, steps = 0; k < s->n && steps < CHAIN_MAX; k++, steps++) {
        size_t y = s->ops[k];
        if (tl->ops[y].start > tl->ops[last].end + TOL_NS)
            break;
        int64_t could = max64(tl->submit[y], tl->ops[last].end - sh);
        int64_t sy = min64(tl->ops[y].start - could, sh);
        if (sy <= TOL_NS)
            break;
        sh = sy;
        last = y;
        tl->stamp[y] = stamp;
    }
    return (sc_tl_span){tl->ops[last].end - sh, tl->ops[last].end};
}

/* The event's own operations that started late, with their chains; the
   latest end of its own work (the call's end when it has none). */
static int64_t own_chains(sc_timeline *tl, const size_t *own, size_t nown, sc_tl_cost *cost,
                          uint32_t stamp, sc_tl_spans *tails, int64_t c1)
{
    int64_t release = INT64_MIN;
    for (size_t i = 0; i < nown; i++) {
        size_t x = own[i];
        release = max64(release, tl->ops[x].end);
        int64_t dx = late_by(tl, x);
        if (dx > TOL_NS) {
            sc_tl_span t = chain(tl, x, dx, stamp);
            sc_tl_spans_add(tails, t.a, t.b);
        } else {
            tl->stamp[x] = stamp;
        }
        if (cost->op < 0)
            cost->op = (long)x;
    }
    return release == INT64_MIN ? c1 : release;
}

/* A barrier: on every other stream of the device, the first operation
   submitted at or after the call began, before its work was released,
   that started only when it was released and later than it could have. */
static void barrier_chains(sc_timeline *tl, const sc_tl_event *e, const sc_tl_device *d, const size_t *own,
                           size_t nown, int64_t release, sc_tl_cost *cost, uint32_t stamp, sc_tl_spans *tails)
{
    int64_t best = 0;
    for (size_t k = 0; k < tl->nstreams; k++) {
        const sc_tl_stream *s = &tl->streams[k];
        if (s->device != d->id)
            continue;
        int mine = 0;
        for (size_t i = 0; i < nown; i++)
            mine |= tl->stream_of[own[i]] == k;
        if (mine)
            continue;
        /* its first operation starting at or after c0 */
        size_t lo = SC_FIRST(m, 0, s->n, tl->ops[s->ops[m]].start < e->c0);
        for (size_t steps = 0; lo < s->n && steps < 8 && tl->submit[s->ops[lo]] < e->c0; lo++, steps++)
            ;
        if (lo >= s->n)
            continue;
        size_t x = s->ops[lo];
        int64_t dx = late_by(tl, x);
        if (tl->submit[x] >= release || tl->ops[x].start < release - TOL_NS || dx <= TOL_NS)
            continue;
        sc_tl_span t = chain(tl, x, dx, stamp);
        sc_tl_spans_add(tails, t.a, t.b);
        if (dx > best) {
            best = dx;
            cost->op = (long)x;
        }
    }
}

/* ---------------------------------------------------- other work ran --- */
/* What ran on a chained stream during cur, outside this event's chains. */
static void chained_cover(const sc_timeline *tl, const sc_tl_stream *s, sc_tl_span cur, uint32_t stamp,
                          sc_tl_spans *cover)
{
    /* a stream's operations are in order: the first ending after cur.a */
    size_t lo = SC_FIRST(m, 0, s->n, tl->ops[s->ops[m]].end <= cur.a);
    for (size_t c = 0; lo < s->n && tl->ops[s->ops[lo]].start < cur.b && c < COVER_MAX; lo++, c++) {
        const sc_tl_op *o = &tl->ops[s->ops[lo]];
        if (tl->stamp[s->ops[lo]] != stamp)
            sc_tl_spans_add(cover, max64(o->start, cur.a), min64(o->end, cur.b));
    }
}

/* What ran on a stream without a chain during cur: its busy time. */
static void busy_cover(const sc_tl_stream *s, sc_tl_span cur, sc_tl_spans *cover)
{
    /* the first busy interval ending after cur.a */
    size_t lo = SC_FIRST(m, 0, s->busy.n, s->busy.v[m].b <= cur.a);
    for (size_t c = 0; lo < s->busy.n && s->busy.v[lo].a < cur.b; lo++, c++) {
        if (c == COVER_MAX) {   /* dense work: call the rest covered */
            sc_tl_spans_add(cover, max64(s->busy.v[lo].a, cur.a), cur.b);
            break;
        }
        sc_tl_spans_add(cover, max64(s->busy.v[lo].a, cur.a), min64(s->busy.v[lo].b, cur.b));
    }
}

/* A lost tail, less the time other work ran on the device (every
   operation not in this event's chains): there the device was not waiting
   for the held-back work. */
static void uncovered(sc_timeline *tl, const sc_tl_device *d, sc_tl_span cur, uint32_t stamp)
{
    sc_tl_spans cover = {0};
    for (size_t k = 0; k < tl->nstreams; k++) {
        const sc_tl_stream *s = &tl->streams[k];
        if (s->device != d->id)
            continue;
        if (tl->chained[k] == stamp)
            chained_cover(tl, s, cur, stamp, &cover);
        else
            busy_cover(s, cur, &cover);
    }
    sc_tl_spans_merge(&cover, 0);
    int64_t at = cur.a;
    for (size_t c = 0; c < cover.n; c++) {
        sc_tl_spans_add(&tl->lost, at, cover.v[c].a);
        at = max64(at, cover.v[c].b);
    }
    sc_tl_spans_add(&tl->lost, at, cur.b);
    sc_tl_spans_free(&cover);
}

/* ------------------------------------------------------------ an event --- */
/* Its device: that of its own work, else the device with the most work. */
static const sc_tl_device *event_device(const sc_timeline *tl, const size_t *own, size_t nown)
{
    const sc_tl_device *d = nown ? device_of(tl, tl->ops[own[0]].device) : NULL;
    if (d)
        return d;
    for (size_t i = 0; i < tl->ndevices; i++)
        if (!d || tl->devices[i].g.ops > d->g.ops)
            d = &tl->devices[i];
    return d;
}

/* (B) Implicit dependencies: operations that started later than they
   could have -- the call's own, and for a barrier the first of every
   other stream of the device that waited for it -- with the operations
   behind them on their streams.  Without the dependency each chain would
   end `shift` earlier; the lost time is that tail, where no other work
   ran on the device. */
static void held_work(sc_timeline *tl, const sc_tl_event *e, const sc_tl_device *d, const size_t *own,
                      size_t nown, sc_tl_cost *cost, uint32_t stamp)
{
    sc_tl_spans tails = {0};
    int64_t release = own_chains(tl, own, nown, cost, stamp, &tails, e->c1);
    if (e->barrier)
        barrier_chains(tl, e, d, own, nown, release, cost, stamp, &tails);
    sc_tl_spans_merge(&tails, 0);
    for (size_t t = 0; t < tails.n; t++)
        uncovered(tl, d, tails.v[t], stamp);
    sc_tl_spans_free(&tails);
}

static void price_event(sc_timeline *tl, const sc_tl_event *e, sc_tl_cost *cost, uint32_t stamp)
{
    size_t own[OWN_MAX];
    size_t nown = own_ops(tl, e, cost, own);
    const sc_tl_device *d = event_device(tl, own, nown);
    if (!d)
        return;
    size_t from = tl->lost.n;
    if (e->timed)
        held_host(tl, e, d);
    held_work(tl, e, d, own, nown, cost, stamp);
    sc_tl_spans_merge(&tl->lost, from);
    cost->iv0 = from;
    cost->niv = tl->lost.n - from;
    cost->lost_ns = sc_tl_spans_len(tl->lost.v + from, cost->niv);
}

void sc_tl_price(sc_timeline *tl, const sc_tl_event *ev, size_t n, sc_tl_cost *cost)
{
    tl->lost.n = 0;
    memset(tl->stamp, 0, (tl->nops ? tl->nops : 1) * sizeof *tl->stamp);
    memset(tl->chained, 0, (tl->nstreams ? tl->nstreams : 1) * sizeof *tl->chained);
    for (size_t i = 0; i < n; i++) {
        cost[i] = (sc_tl_cost){.op = -1};
        if (ev[i].price)
            price_event(tl, &ev[i], &cost[i], (uint32_t)i + 1);
    }
}
