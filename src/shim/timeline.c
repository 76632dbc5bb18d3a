/* timeline.c: the GPU timeline's model (timeline.h): interval sets, the
 * indexes sc_tl_build makes over the recorded arrays, and each device's
 * busy, idle and overlap.  What finding events cost is timeline_price.c.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "sc.h"
#include "timeline.h"

/* ------------------------------------------------------ interval sets --- */
void sc_tl_spans_add(sc_tl_spans *s, int64_t a, int64_t b)
{
    if (b > a)
        SC_VEC_PUSH(*s, ((sc_tl_span){a, b}));
}

static int cmp_span(const void *pa, const void *pb)
{
    const sc_tl_span *a = pa, *b = pb;
    return a->a < b->a ? -1 : a->a > b->a ? 1 : (a->b < b->b ? -1 : a->b > b->b);
}

void sc_tl_spans_merge(sc_tl_spans *s, size_t from)
{
    size_t n = s->n - from;
    sc_tl_span *v = s->v + from;
    if (n < 2)
        return;
    qsort(v, n, sizeof *v, cmp_span);
    size_t k = 0;
    for (size_t i = 1; i < n; i++) {
        if (v[i].a <= v[k].b) {
            if (v[i].b > v[k].b)
                v[k].b = v[i].b;
        } else {
            v[++k] = v[i];
        }
    }
    s->n = from + k + 1;
}

int64_t sc_tl_spans_len(const sc_tl_span *v, size_t n)
{
    int64_t t = 0;
    for (size_t i = 0; i < n; i++)
        t += v[i].b - v[i].a;
    return t;
}

void sc_tl_spans_free(sc_tl_spans *s)
{
    free(s->v);
    *s = (sc_tl_spans){0};
}

/* ------------------------------------------------------------ sorting --- */
static int cmp_op(const void *pa, const void *pb)
{
    const sc_tl_op *a = pa, *b = pb;
    if (a->device != b->device) return a->device < b->device ? -1 : 1;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    return a->end < b->end ? -1 : a->end > b->end;
}

static int cmp_corr(const void *pa, const void *pb)
{
    const sc_tl_corr *a = pa, *b = pb;
    if (a->corr != b->corr) return a->corr < b->corr ? -1 : 1;
    return a->op < b->op ? -1 : a->op > b->op;
}

static int cmp_api_corr(const void *pa, const void *pb)
{
    const sc_tl_api *a = pa, *b = pb;
    if (a->corr != b->corr) return a->corr < b->corr ? -1 : 1;
    return a->start < b->start ? -1 : a->start > b->start;
}

/* By thread, then start; of two starting together, the longer (the
   runtime call around a driver call) first. */
static int cmp_api_thread(const void *pa, const void *pb)
{
    const sc_tl_api *a = *(const sc_tl_api *const *)pa, *b = *(const sc_tl_api *const *)pb;
    if (a->thread != b->thread) return a->thread < b->thread ? -1 : 1;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    return a->end > b->end ? -1 : a->end < b->end;
}

static int cmp_ext(const void *pa, const void *pb)
{
    const sc_tl_ext *a = pa, *b = pb;
    return a->ext < b->ext ? -1 : a->ext > b->ext;
}

/* ------------------------------------------------------------ devices --- */
/* Busy, overlap and its kinds over one device's operations: a sweep over
   their starts and ends (ends first at equal times: touching is not
   overlap).  An operation that ends before it starts counts as empty. */
typedef struct edge { int64_t t; int8_t delta; uint8_t kernel; } edge;

static int cmp_edge(const void *pa, const void *pb)
{
    const edge *a = pa, *b = pb;
    if (a->t != b->t) return a->t < b->t ? -1 : 1;
    return a->delta < b->delta ? -1 : a->delta > b->delta;
}

static void sweep(sc_gpu_device *g, const edge *e, size_t n)
{
    long all = 0, kern = 0;
    int64_t last = e[0].t;
    for (size_t i = 0; i < n; i++) {
        int64_t dt = e[i].t - last;
        if (dt > 0) {
            long copy = all - kern;
            if (all >= 1) g->busy_ns += (uint64_t)dt;
            if (all >= 2) g->overlap_ns += (uint64_t)dt;
            if (kern >= 1 && copy >= 1) g->overlap_compute_copy_ns += (uint64_t)dt;
            if (kern >= 2) g->overlap_compute_compute_ns += (uint64_t)dt;
        }
        last = e[i].t;
        all += e[i].delta;
        if (e[i].kernel)
            kern += e[i].delta;
    }
}

static void device_metrics(const sc_timeline *tl, sc_tl_device *d)
{
    size_t n = d->o1 - d->o0;
    d->g.device = d->id;
    d->g.ops = n;
    if (!n)
        return;
    edge *e = malloc(2 * n * sizeof *e);
    if (!e)
        return;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        const sc_tl_op *o = &tl->ops[d->o0 + i];
        int64_t end = o->end < o->start ? o->start : o->end;
        uint8_t k = o->kind == SC_GPU_KERNEL;
        e[2 * i] = (edge){o->start, 1, k};
        e[2 * i + 1] = (edge){end, -1, k};
        lo = o->start < lo ? o->start : lo;
        hi = end > hi ? end : hi;
        sc_tl_spans_add(&d->busy, o->start, end);
    }
    sc_tl_spans_merge(&d->busy, 0);
    qsort(e, 2 * n, sizeof *e, cmp_edge);
    sweep(&d->g, e, 2 * n);
    free(e);
    d->g.span_ns = (uint64_t)(hi - lo);
    d->g.idle_ns = d->g.span_ns - d->g.busy_ns;
}

/* One device per run of equal device ids in the sorted operations. */
static int build_devices(sc_timeline *tl)
{
    for (size_t i = 0; i < tl->nops; i++) {
        if (i && tl->ops[i].device == tl->ops[i - 1].device)
            continue;
        sc_tl_device *nd = realloc(tl->devices, (tl->ndevices + 1) * sizeof *nd);
        if (!nd)
            return -1;
        tl->devices = nd;
        nd[tl->ndevices] = (sc_tl_device){.id = tl->ops[i].device, .o0 = i};
        if (tl->ndevices)
            nd[tl->ndevices - 1].o1 = i;
        tl->ndevices++;
    }
    if (tl->ndevices)
        tl->devices[tl->ndevices - 1].o1 = tl->nops;
    for (size_t i = 0; i < tl->ndevices; i++)
        device_metrics(tl, &tl->devices[i]);
    return 0;
}

/* ------------------------------------------------------- correlations --- */
/* Each operation's submission: the earliest API call with its correlation
   id, when that began before the operation did; and the operations by
   correlation id. */
static void build_correlations(sc_timeline *tl)
{
    if (tl->napis > 1)
        qsort(tl->apis, tl->napis, sizeof *tl->apis, cmp_api_corr);
    for (size_t i = 0; i < tl->nops; i++) {
        const sc_tl_op *o = &tl->ops[i];
        tl->by_corr[i] = (sc_tl_corr){o->corr, (uint32_t)i};
        tl->submit[i] = o->start;
        size_t lo = SC_FIRST(m, 0, tl->napis, tl->apis[m].corr < o->corr);
        if (lo < tl->napis && tl->apis[lo].corr == o->corr && o->corr && tl->apis[lo].start < tl->submit[i])
            tl->submit[i] = tl->apis[lo].start;
    }
    if (tl->nops > 1)
        qsort(tl->by_corr, tl->nops, sizeof *tl->by_corr, cmp_corr);
    if (tl->nexts > 1)
        qsort(tl->exts, tl->nexts, sizeof *tl->exts, cmp_ext);
}

/* ------------------------------------------------------------ streams --- */
static int find_streams(sc_timeline *tl)
{
    for (size_t i = 0; i < tl->nops; i++) {
        const sc_tl_op *o = &tl->ops[i];
        size_t k;
        for (k = 0; k < tl->nstreams; k++)
            if (tl->streams[k].device == o->device && tl->streams[k].id == o->stream)
                break;
        if (k == tl->nstreams) {
            sc_tl_stream *ns = realloc(tl->streams, (tl->nstreams + 1) * sizeof *ns);
            if (!ns)
                return -1;
            tl->streams = ns;
            ns[tl->nstreams++] = (sc_tl_stream){.device = o->device, .id = o->stream};
        }
        tl->stream_of[i] = (uint32_t)k;
        tl->streams[k].n++;
    }
    return 0;
}

/* Every stream's operations in start order (the order of ops within a
   device), each one's place and its predecessor's end, the stream's busy
   union. */
static int build_streams(sc_timeline *tl)
{
    if (find_streams(tl))
        return -1;
    for (size_t k = 0; k < tl->nstreams; k++) {
        sc_tl_stream *s = &tl->streams[k];
        if (!(s->ops = malloc((s->n ? s->n : 1) * sizeof *s->ops)))
            return -1;
        s->n = 0;
    }
    for (size_t i = 0; i < tl->nops; i++) {
        sc_tl_stream *s = &tl->streams[tl->stream_of[i]];
        s->ops[s->n++] = i;
    }
    for (size_t k = 0; k < tl->nstreams; k++) {
        sc_tl_stream *s = &tl->streams[k];
        for (size_t j = 0; j < s->n; j++) {
            size_t i = s->ops[j];
            tl->pos[i] = (uint32_t)j;
            tl->prev_end[i] = j ? tl->ops[s->ops[j - 1]].end : INT64_MIN;
            sc_tl_spans_add(&s->busy, tl->ops[i].start, tl->ops[i].end);
        }
        sc_tl_spans_merge(&s->busy, 0);
    }
    return 0;
}

/* ------------------------------------------------------------ threads --- */
static int build_threads(sc_timeline *tl)
{
    size_t n = tl->napis;
    if (!(tl->by_thread = malloc((n ? n : 1) * sizeof *tl->by_thread)))
        return -1;
    for (size_t i = 0; i < n; i++)
        tl->by_thread[i] = &tl->apis[i];
    if (n > 1)
        qsort(tl->by_thread, n, sizeof *tl->by_thread, cmp_api_thread);
    for (size_t i = 0; i < n; i++) {
        if (i && tl->by_thread[i]->thread == tl->by_thread[i - 1]->thread) {
            tl->threads[tl->nthreads - 1].n++;
            continue;
        }
        sc_tl_thread *nt = realloc(tl->threads, (tl->nthreads + 1) * sizeof *nt);
        if (!nt)
            return -1;
        tl->threads = nt;
        nt[tl->nthreads++] = (sc_tl_thread){tl->by_thread[i]->thread, i, 1};
    }
    return 0;
}

int sc_tl_thread_known(const sc_timeline *tl, uint32_t id)
{
    size_t lo = SC_FIRST(m, 0, tl->nthreads, tl->threads[m].id < id);
    return lo < tl->nthreads && tl->threads[lo].id == id;
}

/* ------------------------------------------------------------- public --- */
int sc_tl_build(sc_timeline *tl, sc_tl_op *ops, size_t nops, sc_tl_api *apis, size_t napis,
                sc_tl_ext *exts, size_t nexts)
{
    *tl = (sc_timeline){.ops = ops, .nops = nops, .apis = apis, .napis = napis, .exts = exts, .nexts = nexts};
    size_t n = nops ? nops : 1;
    if (nops > 1)
        qsort(ops, nops, sizeof *ops, cmp_op);
    tl->submit = malloc(n * sizeof *tl->submit);
    tl->prev_end = malloc(n * sizeof *tl->prev_end);
    tl->stream_of = malloc(n * sizeof *tl->stream_of);
    tl->pos = malloc(n * sizeof *tl->pos);
    tl->stamp = calloc(n, sizeof *tl->stamp);
    tl->by_corr = malloc(n * sizeof *tl->by_corr);
    if (!tl->submit || !tl->prev_end || !tl->stream_of || !tl->pos || !tl->stamp || !tl->by_corr)
        return -1;
    if (build_devices(tl))
        return -1;
    build_correlations(tl);
    if (build_streams(tl))
        return -1;
    if (!(tl->chained = calloc(tl->nstreams ? tl->nstreams : 1, sizeof *tl->chained)))
        return -1;
    return build_threads(tl);
}

void sc_tl_free(sc_timeline *tl)
{
    for (size_t i = 0; i < tl->ndevices; i++)
        sc_tl_spans_free(&tl->devices[i].busy);
    for (size_t k = 0; k < tl->nstreams; k++) {
        free(tl->streams[k].ops);
        sc_tl_spans_free(&tl->streams[k].busy);
    }
    free(tl->devices);
    free(tl->streams);
    free(tl->by_thread);
    free(tl->threads);
    free(tl->by_corr);
    free(tl->submit);
    free(tl->prev_end);
    free(tl->stream_of);
    free(tl->pos);
    free(tl->stamp);
    free(tl->chained);
    sc_tl_spans_free(&tl->lost);
    *tl = (sc_timeline){0};
}

#define GAP_SAMPLES 65536

void sc_tl_gaps(const sc_timeline *tl, uint32_t device, uint32_t gap_ns[4])
{
    uint64_t *g = malloc(4 * GAP_SAMPLES * sizeof *g);
    size_t n[4] = {0};
    if (!g)
        return;
    for (size_t i = 0; i < tl->nops; i++) {
        const sc_tl_op *o = &tl->ops[i];
        if (o->device != device || !tl->pos[i])
            continue;
        const sc_tl_op *p = &tl->ops[tl->streams[tl->stream_of[i]].ops[tl->pos[i] - 1]];
        int64_t gap = o->start - p->end;
        if (gap < 0 || gap >= SC_TL_GAP_MAX_NS || tl->submit[i] > p->end - SC_TL_GAP_QUEUED_NS)
            continue;
        int k = (p->kind == SC_GPU_MEMCPY) + 2 * (o->kind == SC_GPU_MEMCPY);
        if (n[k] < GAP_SAMPLES)
            g[k * GAP_SAMPLES + n[k]++] = (uint64_t)gap;
    }
    for (int k = 0; k < 4; k++) {
        gap_ns[k] = 0;
        if (n[k]) {
            qsort(g + k * GAP_SAMPLES, n[k], sizeof *g, sc_cmp_u64);
            gap_ns[k] = (uint32_t)g[k * GAP_SAMPLES + n[k] / 2];
        }
    }
    free(g);
}
