/* pricing.c: the pricing model (pricing.h says what it is built from and
 * what a fix changes).  Three parts:
 * - attribute: the GPU's busy time to the actors' segments (a segment of a
 *   thread ends where it waited for the GPU), shared by submission rate
 *   where several actors submit at once, then to the submission points of
 *   each segment by their counts;
 * - build: the replay graph of one scenario (nothing fixed, one finding
 *   fixed, every in_all finding fixed);
 * - sc_pr_price: the replays, and the savings.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "pricing.h"
#include "replay.h"

/* Fast-path submissions between two recorded calls are spread over the
   host time between them in at most this many pieces. */
#define PIECES 8
/* What queuing a copy costs the host once it need not wait (an async
   copy's submission). */
#define SUBMIT_NS 5000

/* ------------------------------------------------------ attribution --- */
/* Per call of every actor: the GPU work of the submissions the fast path
   let through before it, and of its own submission. */
typedef struct work { double fast, self; } work;

typedef struct seg {
    uint64_t a, b;          /* its window, relative to the run's origin */
    double rate;            /* submissions per ns in it */
    double g;               /* the GPU time attributed to it */
    size_t th, c0, c1;      /* thread and its calls [c0, c1] */
    uint32_t device;
} seg;

static int waits(const sc_pr_call *c)
{
    return c->what == SC_PR_WAIT_STREAM || c->what == SC_PR_WAIT_DEVICE || c->what == SC_PR_WAIT_EVENT ||
           c->what == SC_PR_COPY_PAGEABLE || c->what == SC_PR_COPY_SYNC;
}

static uint32_t subs(const sc_pr_call *c)
{
    return c->nsub + (c->what == SC_PR_SUBMIT);
}

static uint32_t device_of(const sc_pr_model *m, uint32_t stream)
{
    return stream < m->nstreams ? m->streams[stream].device : 0;
}

static int cmp_u64(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

/* The busy time of spans v[0..n) within [x, y), less the copies' own
   times: spans are sorted; *i is a cursor that only moves forward. */
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

/* The segments of every actor, in order of thread and time. */
static seg *segments(const sc_pr_model *m, uint64_t origin, size_t *nseg)
{
    size_t cap = 16, n = 0;
    seg *v = malloc(cap * sizeof *v);
    for (size_t t = 0; v && t < m->nthreads; t++) {
        const sc_pr_thread *th = &m->threads[t];
        uint64_t start = th->n ? th->calls[0].t0 - origin : 0;
        size_t c0 = 0;
        uint64_t count = 0;
        for (size_t i = 0; i < th->n; i++) {
            const sc_pr_call *c = &th->calls[i];
            count += subs(c);
            if (!waits(c) && i + 1 < th->n)
                continue;
            if (n == cap) {
                seg *nv = realloc(v, (cap *= 2) * sizeof *v);
                if (!nv) {
                    free(v);
                    return NULL;
                }
                v = nv;
            }
            uint64_t end = (waits(c) ? c->t0 + c->wait_ns : c->t1) - origin;
            if (end < start)
                end = start;
            v[n++] = (seg){.a = start, .b = end, .rate = end > start ? (double)count / (double)(end - start) : 0,
                           .th = t, .c0 = c0, .c1 = i,
                           .device = device_of(m, c->nsub && !waits(c) ? c->sub_stream : c->stream)};
            /* a copy's own time belongs to no segment: the next starts after it */
            start = (c->what == SC_PR_COPY_PAGEABLE || c->what == SC_PR_COPY_SYNC ? c->t1 : c->t0 + c->wait_ns) -
                    origin;
            c0 = i + 1;
            count = 0;
        }
    }
    *nseg = n;
    return v;
}

/* Shares the busy time of device d among its segments: every stretch
   between two segment boundaries goes to the segments covering it, by
   their submission rates. */
static int share_device(const sc_pr_model *m, uint32_t d, seg *sg, size_t ns, uint64_t origin)
{
    const sc_pr_device *dev = &m->devices[d];
    size_t nb = 0;
    uint64_t *bounds = malloc(2 * ns * sizeof *bounds);
    size_t *act = malloc(ns * sizeof *act);
    if (!bounds || !act) {
        free(bounds);
        free(act);
        return -1;
    }
    for (size_t i = 0; i < ns; i++)
        if (sg[i].device == d && sg[i].b > sg[i].a) {
            bounds[nb++] = sg[i].a;
            bounds[nb++] = sg[i].b;
        }
    qsort(bounds, nb, sizeof *bounds, cmp_u64);
    size_t cur = 0;
    for (size_t k = 0; k + 1 < nb; k++) {
        uint64_t x = bounds[k], y = bounds[k + 1];
        if (y <= x)
            continue;
        size_t na = 0;
        double total = 0;
        for (size_t i = 0; i < ns; i++)
            if (sg[i].device == d && sg[i].a <= x && sg[i].b >= y && sg[i].rate > 0) {
                act[na++] = i;
                total += sg[i].rate;
            }
        if (!na)
            continue;
        double busy = busy_in(dev->busy, dev->nbusy, &cur, x + origin, y + origin);
        for (size_t j = 0; j < na; j++)
            sg[act[j]].g += busy * sg[act[j]].rate / total;
    }
    free(bounds);
    free(act);
    return 0;
}

/* Without a busy record: the GPU worked from the segment's first
   submission to the end of a wait that found work (the waits are all
   that is known). */
static void infer_from_waits(const sc_pr_model *m, seg *s, uint64_t origin)
{
    const sc_pr_thread *th = &m->threads[s->th];
    const sc_pr_call *last = &th->calls[s->c1];
    if (!waits(last) || !last->wait_ns)
        return;
    uint64_t first = s->b;
    for (size_t i = s->c0; i <= s->c1; i++) {
        const sc_pr_call *c = &th->calls[i];
        uint64_t t = (c->nsub ? (i ? th->calls[i - 1].t1 : c->t0) : c->t0) - origin;
        if (subs(c) && t < first)
            first = t;
    }
    if (first < s->b)
        s->g = (double)(s->b - first);
}

static work *attribute(const sc_pr_model *m, uint64_t origin, size_t *ncalls_out)
{
    size_t total = 0;
    for (size_t t = 0; t < m->nthreads; t++)
        total += m->threads[t].n;
    work *w = calloc(total ? total : 1, sizeof *w);
    size_t ns = 0;
    seg *sg = w ? segments(m, origin, &ns) : NULL;
    if (!sg) {
        free(w);
        return NULL;
    }
    for (uint32_t d = 0; d < m->ndevices; d++)
        if (m->devices[d].known && share_device(m, d, sg, ns, origin)) {
            free(sg);
            free(w);
            return NULL;
        }
    size_t *base = calloc(m->nthreads + 1, sizeof *base);
    for (size_t t = 0; base && t < m->nthreads; t++)
        base[t + 1] = base[t] + m->threads[t].n;
    for (size_t i = 0; base && i < ns; i++) {
        seg *s = &sg[i];
        if (s->device >= m->ndevices || !m->devices[s->device].known)
            infer_from_waits(m, s, origin);
        const sc_pr_call *calls = m->threads[s->th].calls;
        double count = 0;
        for (size_t c = s->c0; c <= s->c1; c++)
            count += subs(&calls[c]);
        for (size_t c = s->c0; c <= s->c1 && count > 0; c++) {
            w[base[s->th] + c].fast = s->g * calls[c].nsub / count;
            w[base[s->th] + c].self = calls[c].what == SC_PR_SUBMIT ? s->g / count : 0;
        }
    }
    free(sg);
    if (!base) {
        free(w);
        return NULL;
    }
    free(base);
    *ncalls_out = total;
    return w;
}

/* ------------------------------------------------------------ build --- */
typedef struct scen {
    const sc_pr_model *m;

    uint64_t origin;
    long only;           /* the finding fixed; -1: none; -2: every in_all one */
    sc_rp *g;
    int *stream;         /* model stream -> replay stream */
    int *own;            /* per thread x device: its own stream, or -1 */
} scen;

static int fixed(const scen *s, uint16_t f)
{
    if (!f || f > s->m->nfindings || s->m->findings[f - 1].fix == SC_PR_FIX_NONE)
        return 0;
    return s->only == -2 ? s->m->findings[f - 1].in_all : s->only == (long)f - 1;
}

/* Which fixes apply to a call: a bit per sc_pr_fix. */
static unsigned fixes(const scen *s, const sc_pr_call *c)
{
    unsigned f = 0;
    for (int k = 0; k < 2; k++)
        if (fixed(s, c->finding[k]))
            f |= 1u << s->m->findings[c->finding[k] - 1].fix;
    return f;
}

/* The replay stream for model stream `st` used by thread t: its own when
   its legacy-stream work is moved. */
static int stream_for(scen *s, size_t t, uint32_t st)
{
    const sc_pr_model *m = s->m;
    if (st >= m->nstreams)
        st = 0;
    if (m->streams[st].kind != SC_PR_LEGACY || !fixed(s, m->threads[t].legacy_finding))
        return s->stream[st];
    int *o = &s->own[t * m->ndevices + m->streams[st].device];
    if (*o < 0)
        *o = sc_rp_stream(s->g, m->streams[st].device, SC_RP_BLOCKING);
    return *o;
}

static double pinned_ns(const scen *s, const sc_pr_call *c)
{
    uint32_t d = device_of(s->m, c->stream);
    double r = d < s->m->ndevices && c->dir <= SC_PR_D2H ? s->m->devices[d].rate[c->dir] : 0;
    uint64_t copy = c->t1 - c->t0 - c->wait_ns;
    return r > 0 ? (double)c->bytes / r : (double)copy;
}

typedef struct tstate { int last_op, last_stream; double demand; } tstate;

static int submit(scen *s, int t, tstate *ts, int stream, sc_rp_engine e, double ns, double demand)
{
    int op = sc_rp_submit(s->g, t, stream, e, (uint64_t)(ns + 0.5), demand, 0);
    if (op >= 0) {
        ts->last_op = op;
        ts->last_stream = stream;
    }
    return op;
}

/* A copy of the model's pageable or synchronous copy, as its fixes make it. */
static int copy_call(scen *s, int t, tstate *ts, const sc_pr_call *c, int st, unsigned fx)
{
    uint64_t own = c->t1 - c->t0 - c->wait_ns;
    sc_rp_engine e = c->dir == SC_PR_D2H ? SC_RP_COPY_D2H : c->dir == SC_PR_H2D ? SC_RP_COPY_H2D : SC_RP_COPY_OTHER;
    int nowait = fx & (1u << SC_PR_FIX_NO_WAIT), pin = fx & (1u << SC_PR_FIX_PIN);
    if (!nowait && !pin) {
        int rc = sc_rp_wait_stream(s->g, t, st) < 0;
        return rc | (sc_rp_cpu(s->g, t, own) < 0);
    }
    uint64_t host = own < SUBMIT_NS ? own : SUBMIT_NS;
    if (nowait && !pin)            /* the read is not made at all */
        return sc_rp_cpu(s->g, t, host) < 0;
    int op = submit(s, t, ts, st, e, pinned_ns(s, c), 1);
    if (op < 0)
        return -1;
    if (c->dir == SC_PR_D2H && !nowait && sc_rp_wait_op(s->g, t, op) < 0)
        return -1;
    return sc_rp_cpu(s->g, t, host) < 0;
}

static int wait_call(scen *s, int t, tstate *ts, const sc_pr_call *c, int st, unsigned fx)
{
    int rc = 0;
    if (!(fx & (1u << SC_PR_FIX_NO_WAIT))) {
        if (c->what == SC_PR_WAIT_STREAM)
            rc = sc_rp_wait_stream(s->g, t, st);
        else if (c->what == SC_PR_WAIT_EVENT && ts->last_op >= 0)
            rc = sc_rp_wait_op(s->g, t, ts->last_op);
        else if (c->what == SC_PR_WAIT_DEVICE && (fx & (1u << SC_PR_FIX_STREAM)))
            rc = ts->last_stream >= 0 ? sc_rp_wait_stream(s->g, t, ts->last_stream) : 0;
        else if (c->what == SC_PR_WAIT_DEVICE)
            rc = sc_rp_wait_device(s->g, t, device_of(s->m, c->stream));
    }
    return rc < 0 || sc_rp_cpu(s->g, t, c->t1 - c->t0 - c->wait_ns) < 0;
}

static int build_thread(scen *s, size_t t, const work *w)
{
    const sc_pr_thread *th = &s->m->threads[t];
    if (!th->n)
        return 0;
    int rt = sc_rp_thread(s->g, th->calls[0].t0 - s->origin);
    tstate ts = {.last_op = -1, .last_stream = -1, .demand = 0};
    double dsum = 0, dn = 0;
    for (size_t i = 0; i < th->n; i++)
        if (th->calls[i].demand > 0) {
            dsum += th->calls[i].demand;
            dn++;
        }
    ts.demand = dn ? dsum / dn : 1;
    uint64_t prev = th->calls[0].t0;
    int rc = rt < 0;
    for (size_t i = 0; i < th->n && !rc; i++) {
        const sc_pr_call *c = &th->calls[i];
        uint64_t gap = c->t0 > prev ? c->t0 - prev : 0;
        if (c->nsub && w[i].fast > 0) {
            unsigned k = c->nsub < PIECES ? c->nsub : PIECES;
            int st = stream_for(s, t, c->sub_stream);
            for (unsigned j = 0; j < k && !rc; j++)
                rc = submit(s, rt, &ts, st, SC_RP_COMPUTE, w[i].fast / k, ts.demand) < 0 ||
                     sc_rp_cpu(s->g, rt, gap / k + (j == k - 1 ? gap % k : 0)) < 0;
        } else {
            rc = sc_rp_cpu(s->g, rt, gap) < 0;
        }
        int st = stream_for(s, t, c->stream);
        unsigned fx = fixes(s, c);
        if (fx & (1u << SC_PR_FIX_DROP)) {
            prev = c->t1;
            continue;
        }
        switch ((sc_pr_what)c->what) {
        case SC_PR_SUBMIT:
            if (w[i].self > 0)
                rc |= submit(s, rt, &ts, st, SC_RP_COMPUTE, w[i].self, c->demand > 0 ? c->demand : ts.demand) < 0;
            else
                ts.last_stream = st;
            rc |= sc_rp_cpu(s->g, rt, c->t1 - c->t0) < 0;
            break;
        case SC_PR_OTHER:
            rc |= sc_rp_cpu(s->g, rt, c->t1 - c->t0) < 0;
            break;
        case SC_PR_WAIT_STREAM: case SC_PR_WAIT_DEVICE: case SC_PR_WAIT_EVENT:
            rc |= wait_call(s, rt, &ts, c, st, fx);
            break;
        case SC_PR_COPY_PAGEABLE: case SC_PR_COPY_SYNC:
            rc |= copy_call(s, rt, &ts, c, st, fx);
            break;
        }
        prev = c->t1;
    }
    return rc ? -1 : 0;
}

static const sc_rp_stream_kind kinds[] = {
    [SC_PR_LEGACY] = SC_RP_LEGACY, [SC_PR_BLOCKING] = SC_RP_BLOCKING,
    [SC_PR_NONBLOCKING] = SC_RP_NONBLOCKING, [SC_PR_PTDS] = SC_RP_BLOCKING,
};

/* Replays one scenario; its end relative to the origin, or -1. */
static int64_t replay(const sc_pr_model *m, const work *w, const size_t *base, uint64_t origin, long only,
                      int *stalled)
{
    scen s = {.m = m, .origin = origin, .only = only, .g = sc_rp_new()};
    s.stream = malloc((m->nstreams + 1) * sizeof *s.stream);
    s.own = malloc((m->nthreads * m->ndevices + 1) * sizeof *s.own);
    int rc = !s.g || !s.stream || !s.own;
    for (size_t i = 0; !rc && i < m->nstreams; i++) {
        uint8_t k = m->streams[i].kind;
        s.stream[i] = sc_rp_stream(s.g, m->streams[i].device, kinds[k <= SC_PR_PTDS ? k : SC_PR_BLOCKING]);
        rc = s.stream[i] < 0;
    }
    for (size_t i = 0; !rc && i < m->nthreads * m->ndevices; i++)
        s.own[i] = -1;
    for (size_t t = 0; !rc && t < m->nthreads; t++)
        rc = build_thread(&s, t, w + base[t]);
    sc_rp_result r = {0};
    if (!rc)
        rc = sc_rp_run(s.g, &r);
    sc_rp_free(s.g);
    free(s.stream);
    free(s.own);
    if (rc)
        return -1;
    *stalled |= r.stalled;
    return (int64_t)r.end_ns;
}

int sc_pr_price(const sc_pr_model *m, sc_pr_result *out)
{
    uint64_t origin = UINT64_MAX, end = 0;
    for (size_t t = 0; t < m->nthreads; t++) {
        const sc_pr_thread *th = &m->threads[t];
        if (!th->n)
            continue;
        if (th->calls[0].t0 < origin)
            origin = th->calls[0].t0;
        if (th->calls[th->n - 1].t1 > end)
            end = th->calls[th->n - 1].t1;
    }
    for (size_t f = 0; f < m->nfindings; f++)
        out->saving[f] = 0;
    out->window_ns = out->model_ns = out->fixed_ns = 0;
    out->stalled = 0;
    if (origin == UINT64_MAX || !m->nstreams)
        return 0;
    out->window_ns = end - origin;
    size_t ncalls = 0;
    work *w = attribute(m, origin, &ncalls);
    size_t *base = calloc(m->nthreads + 1, sizeof *base);
    if (!w || !base) {
        free(w);
        free(base);
        return -1;
    }
    for (size_t t = 0; t < m->nthreads; t++)
        base[t + 1] = base[t] + m->threads[t].n;
    int rc = 0;
    int64_t b = replay(m, w, base, origin, -1, &out->stalled);
    rc = b < 0;
    out->model_ns = b > 0 ? (uint64_t)b : 0;
    for (size_t f = 0; !rc && f < m->nfindings; f++) {
        if (m->findings[f].fix == SC_PR_FIX_NONE)
            continue;
        int64_t e = replay(m, w, base, origin, (long)f, &out->stalled);
        rc = e < 0;
        out->saving[f] = !rc && e < b ? (uint64_t)(b - e) : 0;
    }
    int64_t all = rc ? -1 : replay(m, w, base, origin, -2, &out->stalled);
    rc |= all < 0;
    out->fixed_ns = all > 0 ? (uint64_t)all : 0;
    free(w);
    free(base);
    return rc ? -1 : 0;
}
