/* pricing_attribute.c: the pricing model's first part (pricing.c is the
 * rest): the GPU's busy time, recorded or sampled, to the actors' calls,
 * and in measured mode how long a submission took to reach an idle GPU.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pricing.h"
#include "sc.h"

/* ------------------------------------------------------ attribution --- */
/* Per call of every actor (pricing.h, work): the GPU work of the
   submissions the fast path let through before it, and of its own
   submission.

   A stream runs its work in submission order, so a wait that began at s
   and ended at e says the work submitted before s was done by e, and the
   work submitted after s began after e.  With the actors' waits on a
   device ordered by their ends, e1 < e2 < ..., the GPU's busy time between
   e(k-1) and e(k) is the work submitted between s(k-1) and s(k) (the
   starts made monotone): it is shared by the submissions made then, in
   proportion to their number.  That is exact for one stream, whoever
   submits to it (threads taking turns on the legacy stream), and an
   approximation where several streams drain apart.  Busy time of a stretch
   in which no actor submitted (work of threads that never wait, or of
   earlier submissions that outlived their wait) goes to the last stretch
   that had submissions.  The copies' own times (a pageable or synchronous
   copy's staging, [t0 + wait, t1]) belong to the copies, not to work.
   Where measured mode recorded what each submission queued (gpu_known),
   a stretch's time is shared in proportion to those GPU times, not to the
   submissions' number: a 2 ms kernel after sixty of 3 us each (seed003's
   settling spin after its chunks) keeps its 2 ms, where shared by number
   each would have had 30 us, work a pipeline then overlaps with copies.
   The stretch's total stays its busy time: kernels that ran at once
   (NCCL's beside compute) count once. */
typedef struct wpt { uint64_t s, e; } wpt;                 /* a wait */
/* submissions: n of them in [a, b]; g, the GPU time they get; fix, a pinned
   copy's own time at this machine's pinned rate, which it gets first */
typedef struct spt { uint64_t a, b; double n, g, fix, wt; size_t w; uint8_t self; } spt;
typedef struct dev_in {
    wpt *w; size_t nw;
    spt *p; size_t np;
    sc_pr_span *x; size_t nx;   /* the copies' own times */
    uint8_t own_times;          /* kernels that ran at once keep their recorded times (below) */
} dev_in;

static int cmp_wpt(const void *pa, const void *pb)
{
    const wpt *a = pa, *b = pb;
    return a->e < b->e ? -1 : a->e > b->e ? 1 : (a->s > b->s) - (a->s < b->s);
}

static int cmp_spt(const void *pa, const void *pb)
{
    const spt *a = pa, *b = pb;
    return (a->a > b->a) - (a->a < b->a);
}

static int cmp_span(const void *pa, const void *pb)
{
    const sc_pr_span *a = pa, *b = pb;
    return (a->a > b->a) - (a->a < b->a);
}

#define PUSH(v, n, cap, item)                                                  \
    do {                                                                       \
        if (sc_grow_cap(&(v), &(cap), (n) + 1, sizeof *(v), 64)) {             \
            free(cw);                                                          \
            return -1;                                                         \
        }                                                                      \
        (v)[(n)++] = (item);                                                   \
    } while (0)

/* Where a stream's work is attributed: its device's group when the
   device's busy time is known (the waits order all its streams' work, as
   far as that goes), else a group of its own (each stream's waits say when
   its own work ran; per-thread default streams run side by side). */
static size_t group_of(const sc_pr_model *m, uint32_t stream)
{
    uint32_t d = sc_pr_device_of(m, stream);
    return d < m->ndevices && m->devices[d].known ? d : m->ndevices + (stream < m->nstreams ? stream : 0);
}

/* The waits, submission points and copies of every actor, per group. */
static int gather(const sc_pr_model *m, dev_in *dv, size_t ng)
{
    size_t *cw = calloc(3 * ng, sizeof *cw), *cp = cw + ng, *cx = cp + ng, k = 0;
    if (!cw)
        return -1;
    for (size_t t = 0; t < m->nthreads; t++) {
        const sc_pr_thread *th = &m->threads[t];
        for (size_t i = 0; i < th->n; i++, k++) {
            const sc_pr_call *c = &th->calls[i];
            size_t d = group_of(m, c->stream), ds = group_of(m, c->sub_stream);
            if (c->nsub) {   /* made between the previous call and this one, before its start */
                uint64_t b = c->t0 ? c->t0 - 1 : 0, a = i ? th->calls[i - 1].t1 : b;
                double wt = c->gpu_known ? (double)c->fast_gpu_ns : -1;
                PUSH(dv[ds].p, dv[ds].np, cp[ds], ((spt){a < b ? a : b, b, c->nsub, 0, 0, wt, k, 0}));
            }
            if (c->what == SC_PR_SUBMIT)
                PUSH(dv[d].p, dv[d].np, cp[d], ((spt){c->t0, c->t0, 1, 0, sc_pr_copy_ns(m, c),
                                                      c->gpu_known ? (double)c->gpu_ns : -1, k, 1}));
            if (sc_pr_waits(c) && c->wait_ns)
                PUSH(dv[d].w, dv[d].nw, cw[d], ((wpt){c->t0, c->t0 + c->wait_ns}));
            if (sc_pr_copies(c) && c->t1 > c->t0 + c->wait_ns)
                PUSH(dv[d].x, dv[d].nx, cx[d], ((sc_pr_span){c->t0 + c->wait_ns, c->t1}));
        }
    }
    free(cw);
    return 0;
}

/* The busy spans less the copies' own times, sorted. */
static sc_pr_span *less_copies(const sc_pr_device *d, dev_in *in, size_t *n)
{
    if (in->nx)   /* qsort's array may not be NULL, even empty */
        qsort(in->x, in->nx, sizeof *in->x, cmp_span);
    sc_pr_span *v = malloc((d->nbusy * 2 + in->nx + 1) * sizeof *v);
    size_t k = 0, j = 0;
    for (size_t i = 0; v && i < d->nbusy; i++) {
        uint64_t a = d->busy[i].a, b = d->busy[i].b;
        while (j < in->nx && in->x[j].b <= a)
            j++;
        for (size_t q = j; q < in->nx && in->x[q].a < b && a < b; q++) {
            if (in->x[q].a > a)
                v[k++] = (sc_pr_span){a, in->x[q].a};
            if (in->x[q].b > a)
                a = in->x[q].b;
        }
        if (a < b)
            v[k++] = (sc_pr_span){a, b};
    }
    *n = k;
    return v;
}

static double busy_in(const sc_pr_span *v, size_t n, size_t *i, uint64_t x, uint64_t y)
{
    while (*i < n && v[*i].b <= x)
        (*i)++;
    double sum = 0;
    for (size_t k = *i; k < n && v[k].a < y; k++) {
        uint64_t a = v[k].a > x ? v[k].a : x, b = v[k].b < y ? v[k].b : y;
        if (b > a)
            sum += (double)(b - a);
    }
    return sum;
}

/* The part of a submission point's count made in [lo, hi). */
static double in_range(const spt *p, uint64_t lo, uint64_t hi)
{
    if (p->a == p->b)
        return p->a >= lo && p->a < hi ? p->n : 0;
    uint64_t a = p->a > lo ? p->a : lo, b = p->b < hi ? p->b : hi;
    return b > a ? p->n * (double)(b - a) / (double)(p->b - p->a) : 0;
}

/* Shares one stretch's busy time among the submissions of [lo, hi), or
   returns 0 when there were none.  Pinned copies whose own time is known
   get it first (all of them together no more than the stretch's busy
   time); the rest is shared by count. */
static int share(dev_in *in, uint64_t lo, uint64_t hi, double busy, uint64_t span)
{
    double total = 0, fixed = 0;
    size_t first = 0, last = in->np;
    /* points are sorted by start, and none is longer than span */
    size_t l = 0, r = in->np;
    while (l < r) {
        size_t mid = (l + r) / 2;
        if (in->p[mid].a + span < lo)
            l = mid + 1;
        else
            r = mid;
    }
    first = l;
    double wtotal = 0;
    int weighed = 1;   /* every point's GPU time is known */
    for (size_t i = first; i < last && in->p[i].a < hi; i++) {
        double part = in_range(&in->p[i], lo, hi);
        if (in->p[i].fix > 0) {
            fixed += part > 0 ? in->p[i].fix : 0;
        } else if (part > 0) {
            total += part;
            weighed &= in->p[i].wt >= 0;
            wtotal += in->p[i].wt > 0 ? in->p[i].wt * part / in->p[i].n : 0;
        }
    }
    if (total <= 0 && fixed <= 0)
        return 0;
    weighed &= wtotal > 0;
    double scale = fixed > busy || total <= 0 ? busy / fixed : 1, rest = busy - fixed * scale;
    for (size_t i = first; i < last && in->p[i].a < hi; i++) {
        double part = in_range(&in->p[i], lo, hi);
        if (in->p[i].fix > 0)
            in->p[i].g += part > 0 ? in->p[i].fix * scale : 0;
        else if (weighed && in->own_times && wtotal > rest)
            in->p[i].g += in->p[i].wt > 0 ? in->p[i].wt * part / in->p[i].n : 0;
        else if (weighed)
            in->p[i].g += in->p[i].wt > 0 ? rest * in->p[i].wt * part / in->p[i].n / wtotal : 0;
        else if (total > 0)
            in->p[i].g += rest * part / total;
    }
    return 1;
}

/* A group's busy time to its submission points: a device's, or without a
   busy record (dev NULL) one stream's, whose waits are all that is known: a
   stretch's GPU time is from its first submission to the end of the wait
   that found work. */
static int attribute_device(const sc_pr_device *dev, dev_in *in)
{
    static const sc_pr_device unknown = {0};
    if (!dev)
        dev = &unknown;
    if (in->nw)
        qsort(in->w, in->nw, sizeof *in->w, cmp_wpt);
    if (in->np)
        qsort(in->p, in->np, sizeof *in->p, cmp_spt);
    for (size_t i = in->nw; i-- > 1;)   /* starts made monotone */
        if (in->w[i - 1].s > in->w[i].s)
            in->w[i - 1].s = in->w[i].s;
    uint64_t span = 0;
    for (size_t i = 0; i < in->np; i++)
        if (in->p[i].b - in->p[i].a > span)
            span = in->p[i].b - in->p[i].a;
    size_t nb = 0, cur = 0;
    sc_pr_span *busy = dev->known ? less_copies(dev, in, &nb) : NULL;
    if (dev->known && !busy)
        return -1;
    double carry = 0;
    uint64_t plo = 0, phi = 0;   /* the last stretch with submissions */
    for (size_t k = 0; k <= in->nw; k++) {
        uint64_t lo = k ? in->w[k - 1].s : 0, hi = k < in->nw ? in->w[k].s : UINT64_MAX;
        uint64_t e0 = k ? in->w[k - 1].e : 0, e1 = k < in->nw ? in->w[k].e : UINT64_MAX;
        double b;
        if (dev->known) {
            b = busy_in(busy, nb, &cur, e0, e1);
        } else {
            b = 0;
            for (size_t i = 0; k < in->nw && i < in->np; i++)
                if (in->p[i].b >= lo && in->p[i].a < hi) {
                    uint64_t first = in->p[i].a > lo ? in->p[i].a : lo;
                    b = first < e1 ? (double)(e1 - first) : 0;
                    break;
                }
        }
        if (share(in, lo, hi, b + carry, span)) {
            carry = 0;
            plo = lo;
            phi = hi;
        } else {
            carry += b;
        }
    }
    if (carry > 0 && phi > plo)
        share(in, plo, phi, carry, span);
    free(busy);
    return 0;
}

sc_pr_work *sc_pr_attribute(const sc_pr_model *m, size_t *ncalls_out)
{
    size_t total = 0;
    for (size_t t = 0; t < m->nthreads; t++)
        total += m->threads[t].n;
    sc_pr_work *w = calloc(total ? total : 1, sizeof *w);
    size_t ng = m->ndevices + m->nstreams;
    dev_in *dv = calloc(ng ? ng : 1, sizeof *dv);
    int rc = !w || !dv || gather(m, dv, ng);
    /* Where the replay shares a device's hardware queues (SC701's fix,
       measured mode: sc_pr_device.connections), a stretch whose recorded
       kernel times add up to more than its busy time ran them at once, and
       they keep those times: shared, simpleHyperQ's 32 kernels of 10 ms
       replayed at 0.94 ms each, and the queues' false dependencies with
       them (SC701 2.4 ms where the fix gained 30; 29.6 so).  Not
       elsewhere: work that outlives its stretch sums past the stretch's
       busy time too (blocking_stream's SC101 doubled so). */
    for (size_t d = 0; d < m->ndevices && dv; d++)
        dv[d].own_times = m->devices[d].connections > 0;
    for (size_t d = 0; !rc && d < ng; d++) {
        rc = attribute_device(d < m->ndevices && m->devices[d].known ? &m->devices[d] : NULL, &dv[d]);
        for (size_t i = 0; !rc && i < dv[d].np; i++) {
            sc_pr_work *x = &w[dv[d].p[i].w];
            if (dv[d].p[i].self)
                x->self += dv[d].p[i].g;
            else
                x->fast += dv[d].p[i].g;
        }
    }
    for (size_t d = 0; dv && d < ng; d++) {
        free(dv[d].w);
        free(dv[d].p);
        free(dv[d].x);
    }
    free(dv);
    if (rc) {
        free(w);
        return NULL;
    }
    *ncalls_out = total;
    return w;
}

/* ---------------------------------------------------- submission latency --- */
/* From a submission's call to its work's start on an idle GPU, as measured
   mode's timeline shows it: a launch or copy right after a wait that
   drained the GPU (the thread queued nothing between), whose device stayed
   idle from the wait's end to the call, starts where the device's next busy
   span does.  On an H100 under --measure (seed 003 with a host
   synchronization after each stage) that came to a median 7-8.5 us from the
   call's start: the replay, which queues the work at the call's start,
   otherwise starts it at once, and a fix that queues the work ahead (events
   instead of host synchronizations) hides that time each time.  The median
   of at least LAT_MIN such submissions, each under LAT_CAP_NS (a later
   start is some other work's); 0 in detect mode (the busy spans are
   sampled) or with fewer. */
#define LAT_MIN 8
#define LAT_CAP_NS 100000

/* The first span of d that ends after t, or d->nbusy. */
static size_t span_after(const sc_pr_device *d, uint64_t t)
{
    size_t lo = 0, hi = d->nbusy;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->busy[mid].b <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

uint64_t sc_pr_latency(const sc_pr_model *m)
{
    size_t n = 0, cap = 0;
    uint64_t *v = NULL, lat = 0;
    for (size_t t = 0; t < m->nthreads; t++) {
        const sc_pr_call *c = m->threads[t].calls;
        for (size_t i = 1; i < m->threads[t].n; i++) {
            const sc_pr_call *p = &c[i - 1], *x = &c[i];
            uint32_t dv = sc_pr_device_of(m, x->stream);
            if (x->what != SC_PR_SUBMIT || !x->gpu_known || !x->gpu_ns || x->nsub || !sc_pr_waits(p) ||
                !p->wait_ns || dv >= m->ndevices || !m->devices[dv].known || x->t0 < p->t1)
                continue;
            const sc_pr_device *d = &m->devices[dv];
            size_t k = span_after(d, p->t1);
            if (k >= d->nbusy || d->busy[k].a <= x->t0 || d->busy[k].a - x->t0 >= LAT_CAP_NS)
                continue;
            if (n == cap && sc_grow_cap(&v, &cap, n + 1, sizeof *v, 64)) {
                free(v);
                return 0;
            }
            v[n++] = d->busy[k].a - x->t0;
        }
    }
    if (n >= LAT_MIN) {
        qsort(v, n, sizeof *v, sc_cmp_u64);
        lat = v[n / 2];
    }
    free(v);
    return lat;
}
