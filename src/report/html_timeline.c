/* html_timeline.c: measured mode in the HTML report: a process's GPU
 * timeline, one inline SVG per device.
 *
 * The SVG's x axis is the run from the first thing drawn to the last, in
 * VBW units (one unit is a pixel at full zoom, VBW / MIN_VIEW); the y axis
 * is pixels: a row per host thread, then a row per stream of the device.
 * preserveAspectRatio="none" lets the script zoom and pan by changing the
 * viewBox's x and width alone; strokes do not scale (vector-effect), so
 * every rectangle stays at least a pixel wide at any zoom.
 *
 * Size: a training run has hundreds of thousands of GPU operations.  The
 * operations of one stream that start less than `gap` after the previous
 * one ended are drawn as one rectangle (with their count, kinds and busy
 * time for the tooltip); gap starts at one unit, a pixel at full zoom, and
 * doubles until the page's rectangles (operations, host calls, idle time)
 * fit RECT_BUDGET.  Finding events in one unit of the same finding are one
 * mark, and beyond MARK_BUDGET every k-th is drawn.  The page says both.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "report.h"

#define VBW 1000000           /* viewBox width of the whole run */
#define MIN_VIEW 1000         /* the narrowest view: VBW / MIN_VIEW is the zoom limit */
#define RECT_BUDGET 16000     /* rectangles per process (about 80 bytes each) */
#define MARK_BUDGET 2000      /* finding marks per process */
#define HOST_MIN_NS 5000      /* host CUDA calls shorter than this are not drawn */
#define MANY_MARKS 40         /* more marks: their guides and lines to the GPU on hover */
#define PITCH 20              /* pixels per row */
#define LANE 15               /* pixels of a lane within its row */

static const char *name_of(const sc_report *r, uint32_t i)
{
    return i < r->nnames && r->names[i] ? r->names[i] : "";
}

/* A mangled C++ name's qualified name, without its signature:
   "_Z9sc_matmuliPKfS0_Pf" is "sc_matmul", "_ZN2at6native4addEv"
   "at::native::add", template arguments "<...>".  0 when name is not one
   (then it is shown as it is). */
static int short_name(const char *s, char *buf, size_t len)
{
    size_t n = 0;
    int nested;
    if (strncmp(s, "_Z", 2))
        return 0;
    s += 2;
    if (*s == 'L')
        s++;
    nested = *s == 'N';
    if (nested) {
        s++;
        while (*s == 'K' || *s == 'V' || *s == 'r')
            s++;
    }
    buf[0] = '\0';
    for (;;) {
        if (*s >= '1' && *s <= '9') {
            size_t k = 0;
            while (*s >= '0' && *s <= '9' && k < 100000)
                k = k * 10 + (size_t)(*s++ - '0');
            if (strnlen(s, k) < k)
                return 0;
            int w = snprintf(buf + n, len > n ? len - n : 0, "%s%.*s", n ? "::" : "", (int)k, s);
            n += w > 0 ? (size_t)w : 0;
            s += k;
        } else if (*s == 'I' && n) {
            int w = snprintf(buf + n, len > n ? len - n : 0, "<...>");
            n += w > 0 ? (size_t)w : 0;
            break;
        } else {
            break;
        }
        if (!nested || *s == 'E')
            break;
    }
    return n > 0 && n < len;
}

/* ---------------------------------------------------------- the model --- */

typedef struct lane {
    uint32_t device, stream;
    size_t lo, hi;               /* its operations: tl.ops[lo, hi) */
} lane;

typedef struct thr {
    uint32_t id;
    int64_t first;
    const char *name;            /* a named thread's name, from its findings */
    size_t lo, hi;               /* its calls: tl.spans[lo, hi) */
} thr;

typedef struct mark {
    size_t m;                    /* index into r->marks */
    long f;                      /* the finding it belongs to */
    int drawn;
} mark;

typedef struct tl {
    FILE *out;
    const sc_report *r;
    size_t p;
    size_t *ops, nops;           /* this process's operations by device, stream, start */
    size_t *dops;                /* the same by device, start */
    lane *lanes;
    size_t nlanes;
    thr *thrs;
    size_t nthrs;
    size_t *spans, nspans;       /* host calls >= HOST_MIN_NS by thread order, start */
    mark *marks;
    size_t nmarks;
    int64_t t0, t1;
    double unit;                 /* ns per unit */
    int64_t gap;                 /* ns: closer operations are one rectangle */
    size_t rects, merged_marks, unlinked, sampled, drawn;
    int64_t kept_end;            /* the report kept no operation starting later (0: all kept) */
    unsigned char *used;         /* names the tooltips need, by r->names index */
} tl;

static const tl *sort_tl;

static int cmp_op(const void *pa, const void *pb)
{
    const sc_gpu_op *a = &sort_tl->r->gpu_ops[*(const size_t *)pa], *b = &sort_tl->r->gpu_ops[*(const size_t *)pb];
    if (a->device != b->device) return a->device < b->device ? -1 : 1;
    if (a->stream != b->stream) return a->stream < b->stream ? -1 : 1;
    if (a->start_ns != b->start_ns) return a->start_ns < b->start_ns ? -1 : 1;
    return *(const size_t *)pa < *(const size_t *)pb ? -1 : 1;
}

static int cmp_dop(const void *pa, const void *pb)
{
    const sc_gpu_op *a = &sort_tl->r->gpu_ops[*(const size_t *)pa], *b = &sort_tl->r->gpu_ops[*(const size_t *)pb];
    if (a->device != b->device) return a->device < b->device ? -1 : 1;
    if (a->start_ns != b->start_ns) return a->start_ns < b->start_ns ? -1 : 1;
    return *(const size_t *)pa < *(const size_t *)pb ? -1 : 1;
}

static long thr_of(const tl *t, uint32_t id)
{
    for (size_t k = 0; k < t->nthrs; k++)
        if (t->thrs[k].id == id)
            return (long)k;
    return -1;
}

static int cmp_span(const void *pa, const void *pb)
{
    const sc_host_span *a = &sort_tl->r->host_spans[*(const size_t *)pa],
                       *b = &sort_tl->r->host_spans[*(const size_t *)pb];
    long ka = thr_of(sort_tl, a->thread), kb = thr_of(sort_tl, b->thread);
    if (ka != kb) return ka < kb ? -1 : 1;
    if (a->start_ns != b->start_ns) return a->start_ns < b->start_ns ? -1 : 1;
    return *(const size_t *)pa < *(const size_t *)pb ? -1 : 1;
}

static int cmp_thr(const void *pa, const void *pb)
{
    const thr *a = pa, *b = pb;
    if (a->first != b->first) return a->first < b->first ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

static int cmp_mark(const void *pa, const void *pb)
{
    const sc_finding_mark *a = &sort_tl->r->marks[((const mark *)pa)->m],
                          *b = &sort_tl->r->marks[((const mark *)pb)->m];
    if (a->start_ns != b->start_ns) return a->start_ns < b->start_ns ? -1 : 1;
    return ((const mark *)pa)->m < ((const mark *)pb)->m ? -1 : 1;
}

/* The finding a mark was counted in: same process, rule and call site,
   and the same API when several findings share those. */
static long finding_of(const sc_report *r, const sc_finding_mark *m)
{
    long any = -1;
    const char *api = name_of(r, m->api);
    for (size_t i = 0; i < r->nfindings; i++) {
        const sc_finding *f = &r->findings[i];
        if (f->process != m->process || f->rule != m->rule || strcmp(f->callsite, m->callsite))
            continue;
        if ((f->api && !strcmp(f->api, api)) || (f->driver_api && !strcmp(f->driver_api, api)))
            return (long)i;
        if (any < 0)
            any = (long)i;
    }
    return any;
}

/* A thread's name that is the program's (Linux gives a new thread its
   creator's name, the executable's first 15 bytes): nothing to show. */
static int same_as_program(const char *exe, const char *name)
{
    const char *base = exe ? sc_basename(exe) : "";
    size_t n = strlen(name);
    return n && (!strcmp(base, name) || (n == 15 && !strncmp(base, name, 15)));
}

static int add_thr(tl *t, uint32_t id, int64_t at)
{
    long k = thr_of(t, id);
    if (k >= 0) {
        if (at < t->thrs[k].first)
            t->thrs[k].first = at;
        return 0;
    }
    thr *v = realloc(t->thrs, (t->nthrs + 1) * sizeof *v);
    if (!v)
        return -1;
    t->thrs = v;
    t->thrs[t->nthrs++] = (thr){.id = id, .first = at};
    return 0;
}

static void tl_free(tl *t)
{
    free(t->ops);
    free(t->dops);
    free(t->lanes);
    free(t->thrs);
    free(t->spans);
    free(t->marks);
}

static void widen(int64_t *lo, int64_t *hi, int64_t a, int64_t b)
{
    *lo = a < *lo ? a : *lo;
    *hi = b > *hi ? b : *hi;
}

/* The process's GPU operations by stream and by device, and a lane per
   stream. */
static int gather_ops(tl *t, int64_t *lo, int64_t *hi)
{
    const sc_report *r = t->r;
    size_t n = 0;
    for (size_t i = 0; i < r->ngpu_ops; i++)
        n += r->gpu_ops[i].process == t->p;
    t->ops = malloc((n ? n : 1) * sizeof *t->ops);
    t->dops = malloc((n ? n : 1) * sizeof *t->dops);
    if (!t->ops || !t->dops)
        return -1;
    for (size_t i = 0; i < r->ngpu_ops; i++)
        if (r->gpu_ops[i].process == t->p) {
            t->ops[t->nops] = t->dops[t->nops] = i;
            t->nops++;
        }
    if (t->nops > 1)   /* the array is NULL when empty */
        qsort(t->ops, t->nops, sizeof *t->ops, cmp_op);
    if (t->nops > 1)   /* the array is NULL when empty */
        qsort(t->dops, t->nops, sizeof *t->dops, cmp_dop);
    for (size_t i = 0; i < t->nops; i++) {
        const sc_gpu_op *op = &r->gpu_ops[t->ops[i]];
        if (!t->nlanes || t->lanes[t->nlanes - 1].device != op->device || t->lanes[t->nlanes - 1].stream != op->stream) {
            lane *v = realloc(t->lanes, (t->nlanes + 1) * sizeof *v);
            if (!v)
                return -1;
            t->lanes = v;
            t->lanes[t->nlanes++] = (lane){op->device, op->stream, i, i};
        }
        t->lanes[t->nlanes - 1].hi = i + 1;
        widen(lo, hi, op->start_ns, op->end_ns);
    }
    return 0;
}

/* The host threads with calls drawn or findings, and the finding events
   of findings the report has. */
static int gather_threads(tl *t, int64_t *lo, int64_t *hi)
{
    const sc_report *r = t->r;
    size_t ns = 0, nm = 0;
    for (size_t i = 0; i < r->nhost_spans; i++) {
        const sc_host_span *s = &r->host_spans[i];
        if (s->process != t->p || s->end_ns - s->start_ns < HOST_MIN_NS)
            continue;
        ns++;
        if (add_thr(t, s->thread, s->start_ns) < 0)
            return -1;
        widen(lo, hi, s->start_ns, s->end_ns);
    }
    for (size_t i = 0; i < r->nmarks; i++)
        nm += r->marks[i].process == t->p;
    t->marks = calloc(nm ? nm : 1, sizeof *t->marks);
    t->spans = malloc((ns ? ns : 1) * sizeof *t->spans);
    if (!t->marks || !t->spans)
        return -1;
    for (size_t i = 0; i < r->nmarks; i++) {
        const sc_finding_mark *m = &r->marks[i];
        if (m->process != t->p)
            continue;
        long f = finding_of(r, m);
        if (f < 0) {
            t->unlinked++;
            continue;
        }
        t->marks[t->nmarks++] = (mark){i, f, 0};
        if (add_thr(t, m->thread, m->start_ns) < 0)
            return -1;
        widen(lo, hi, m->start_ns, m->end_ns);
    }
    return 0;
}

/* Threads by first call, their calls by start, the marks by start; a
   thread's name, when one of its findings' call sites has one. */
static void order_threads(tl *t)
{
    const sc_report *r = t->r;
    if (t->nthrs > 1)   /* the array is NULL when empty */
        qsort(t->thrs, t->nthrs, sizeof *t->thrs, cmp_thr);
    for (size_t i = 0; i < r->nhost_spans; i++) {
        const sc_host_span *s = &r->host_spans[i];
        if (s->process == t->p && s->end_ns - s->start_ns >= HOST_MIN_NS)
            t->spans[t->nspans++] = i;
    }
    if (t->nspans > 1)   /* the array is NULL when empty */
        qsort(t->spans, t->nspans, sizeof *t->spans, cmp_span);
    for (size_t k = 0; k < t->nthrs; k++)
        t->thrs[k].lo = t->thrs[k].hi = t->nspans;
    for (size_t i = 0; i < t->nspans; i++) {
        long k = thr_of(t, r->host_spans[t->spans[i]].thread);
        if (t->thrs[k].lo == t->nspans)
            t->thrs[k].lo = i;
        t->thrs[k].hi = i + 1;
    }
    if (t->nmarks > 1)   /* the array is NULL when empty */
        qsort(t->marks, t->nmarks, sizeof *t->marks, cmp_mark);
    for (size_t i = 0; i < t->nmarks; i++) {
        const sc_finding_mark *m = &r->marks[t->marks[i].m];
        const sc_callsite *cs = sc_report_callsite(r, r->findings[t->marks[i].f].callsite);
        long k = thr_of(t, m->thread);
        if (k >= 0 && cs && cs->thread_name && !t->thrs[k].name && !same_as_program(r->procs[t->p].exe, cs->thread_name))
            t->thrs[k].name = cs->thread_name;
    }
}

/* Gathers process p's part of the timeline; 0, or -1 (ENOMEM). */
static int tl_init(tl *t, FILE *out, const sc_report *r, size_t p)
{
    memset(t, 0, sizeof *t);
    t->out = out;
    t->r = r;
    t->p = p;
    sort_tl = t;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    if (gather_ops(t, &lo, &hi) < 0 || gather_threads(t, &lo, &hi) < 0)
        return -1;
    order_threads(t);
    if (lo == INT64_MAX) {
        lo = 0;
        hi = 0;
    }
    if (hi - lo < 1000)
        hi = lo + 1000;
    t->t0 = lo;
    t->t1 = hi;
    t->unit = (double)(hi - lo) / VBW;
    t->used = calloc(r->nnames ? r->nnames : 1, 1);
    return t->used ? 0 : -1;
}

/* ---------------------------------------------------------- rectangles --- */

/* One rectangle: operations or calls of one lane merged. */
typedef struct item {
    int64_t a, b;
    uint64_t busy[3];            /* by kind */
    uint32_t n[3];
    size_t first;                /* the first operation or call */
    uint64_t longest;            /* host: the longest call's index and length */
    size_t longest_i;
} item;

/* Calls fn for each rectangle of a lane, ix[lo..hi) indexing the GPU
   operations of a stream or (host) the calls of a host thread, merged where
   less than t->gap apart; returns their number. */
static size_t merged_items(const tl *t, const size_t *ix, size_t lo, size_t hi, int host,
                           void (*fn)(const tl *, const item *, void *), void *arg)
{
    size_t n = 0;
    item cur;
    int have = 0;
    for (size_t i = lo; i < hi; i++) {
        int64_t a, b;
        unsigned k = 0;
        if (host) {
            const sc_host_span *s = &t->r->host_spans[ix[i]];
            a = s->start_ns;
            b = s->end_ns;
        } else {
            const sc_gpu_op *op = &t->r->gpu_ops[ix[i]];
            a = op->start_ns;
            b = op->end_ns;
            k = op->kind < 3 ? op->kind : 0;
        }
        if (b < a)
            b = a;
        if (have && a - cur.b < t->gap) {
            cur.b = b > cur.b ? b : cur.b;
        } else {
            if (have) {
                if (fn)
                    fn(t, &cur, arg);
                n++;
            }
            memset(&cur, 0, sizeof cur);
            cur.a = a;
            cur.b = b;
            cur.first = ix[i];
            have = 1;
        }
        cur.busy[k] += (uint64_t)(b - a);
        cur.n[k]++;
        if (host && (uint64_t)(b - a) > cur.longest) {
            cur.longest = (uint64_t)(b - a);
            cur.longest_i = ix[i];
        }
    }
    if (have) {
        if (fn)
            fn(t, &cur, arg);
        n++;
    }
    return n;
}

static size_t lane_items(const tl *t, const lane *l, void (*fn)(const tl *, const item *, void *), void *arg)
{
    return merged_items(t, t->ops, l->lo, l->hi, 0, fn, arg);
}

static size_t host_items(const tl *t, const thr *h, void (*fn)(const tl *, const item *, void *), void *arg)
{
    return merged_items(t, t->spans, h->lo, h->hi, 1, fn, arg);
}

/* The device's idle time: gaps of at least `gap` between the union of its
   operations, from its first operation to its last. */
static size_t idle_items(const tl *t, uint32_t device, void (*fn)(const tl *, const item *, void *), void *arg)
{
    size_t n = 0;
    int have = 0;
    int64_t end = 0;
    for (size_t i = 0; i < t->nops; i++) {
        const sc_gpu_op *op = &t->r->gpu_ops[t->dops[i]];
        if (op->device != device)
            continue;
        if (have && op->start_ns - end >= t->gap && op->start_ns - end > 0) {
            if (fn) {
                item it = {.a = end, .b = op->start_ns};
                fn(t, &it, arg);
            }
            n++;
        }
        if (!have || op->end_ns > end)
            end = op->end_ns;
        have = 1;
    }
    return n;
}

static size_t count_rects(const tl *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->nlanes; i++) {
        n += lane_items(t, &t->lanes[i], NULL, NULL);
        if (!i || t->lanes[i].device != t->lanes[i - 1].device)
            n += idle_items(t, t->lanes[i].device, NULL, NULL);
    }
    for (size_t k = 0; k < t->nthrs; k++)
        n += host_items(t, &t->thrs[k], NULL, NULL);
    return n;
}

static int64_t ux(const tl *t, int64_t ns)
{
    double v = (double)(ns - t->t0) / t->unit;
    return v < 0 ? 0 : v > VBW ? VBW : (int64_t)(v + 0.5);
}

/* x and width attributes (width at least one unit: a rectangle of width 0
   is not drawn at all). */
static void xw(const tl *t, int64_t a, int64_t b)
{
    int64_t x = ux(t, a), x2 = ux(t, b);
    fprintf(t->out, " x=\"%" PRId64 "\" width=\"%" PRId64 "\"", x, x2 > x ? x2 - x : 1);
}

static const char *const copy_names[] = {"copy", "HtoD", "DtoH", "DtoD", "HtoH", "copy"};
static const char *const mem_names[] = {"?", "pageable", "pinned", "device", "managed", "other"};

static void op_rect(const tl *t, const item *it, void *arg)
{
    (void)arg;
    FILE *out = t->out;
    const sc_gpu_op *op = &t->r->gpu_ops[it->first];
    uint32_t total = it->n[0] + it->n[1] + it->n[2];
    static const char kinds[] = "kcs";
    char cls = 'x';
    for (unsigned k = 0; k < 3; k++)
        if (it->n[k] == total)
            cls = kinds[k];
    fprintf(out, "<rect class=\"%c\" height=\"%d\"", cls, LANE);
    xw(t, it->a, it->b);
    if (total == 1)
        fprintf(out, " data-ns=\"%" PRId64 "\"", it->b - it->a);
    if (total > 1) {
        fprintf(out, " data-c=\"%u,%u,%u\" data-b=\"%" PRIu64 "\"", it->n[0], it->n[1], it->n[2],
                it->busy[0] + it->busy[1] + it->busy[2]);
    } else if (op->kind == SC_GPU_KERNEL) {
        if (op->name && op->name < t->r->nnames) {
            fprintf(out, " data-n=\"%u\"", op->name);
            t->used[op->name] = 1;
        }
    } else {
        char b[32];
        sc_format_bytes(op->bytes, b, sizeof b);
        if (op->kind == SC_GPU_MEMCPY)
            fprintf(out, " data-d=\"Copy %s, %s to %s, %s\"", copy_names[op->copy < 6 ? op->copy : 5],
                    mem_names[op->src < 6 ? op->src : 5], mem_names[op->dst < 6 ? op->dst : 5], b);
        else
            fprintf(out, " data-d=\"Memset of %s memory, %s\"", mem_names[op->dst < 6 ? op->dst : 5], b);
    }
    fputs("/>\n", out);
}

static void host_rect(const tl *t, const item *it, void *arg)
{
    (void)arg;
    FILE *out = t->out;
    const sc_host_span *s = &t->r->host_spans[it->longest_i];
    fprintf(out, "<rect class=\"h\" height=\"%d\"", LANE);
    xw(t, it->a, it->b);
    if (it->n[0] == 1)
        fprintf(out, " data-ns=\"%" PRId64 "\"", it->b - it->a);
    if (s->name && s->name < t->r->nnames) {
        fprintf(out, " data-n=\"%u\"", s->name);
        t->used[s->name] = 1;
    }
    if (it->n[0] > 1)
        fprintf(out, " data-c=\"%u\" data-b=\"%" PRIu64 "\"", it->n[0], it->longest);
    fputs("/>\n", out);
}

typedef struct rows {
    int top, bottom;             /* the stream lanes' extent, pixels */
} rows;

static void idle_rect(const tl *t, const item *it, void *arg)
{
    const rows *rw = arg;
    fprintf(t->out, "<rect class=\"i\" y=\"%d\" height=\"%d\"", rw->top, rw->bottom - rw->top);
    xw(t, it->a, it->b);
    fprintf(t->out, " data-ns=\"%" PRId64 "\"/>\n", it->b - it->a);
}

/* ---------------------------------------------------------- marks --- */

/* Chooses the marks to draw: one per finding and unit; past MARK_BUDGET,
   one per MARK_BUDGET-th of the run, the one that held GPU work back
   longest (so that every part of the run keeps a mark, and the costly
   ones stay). */
static void choose_marks(tl *t)
{
    size_t nf = t->r->nfindings;
    int64_t *last = malloc((nf ? nf : 1) * sizeof *last);
    size_t kept = 0;
    if (!last)
        return;
    for (size_t i = 0; i < nf; i++)
        last[i] = INT64_MIN;
    for (size_t i = 0; i < t->nmarks; i++) {
        mark *mk = &t->marks[i];
        int64_t x = ux(t, t->r->marks[mk->m].start_ns);
        if (last[mk->f] != INT64_MIN && x - last[mk->f] < 1) {
            t->merged_marks++;
            continue;
        }
        last[mk->f] = x;
        mk->drawn = 1;
        kept++;
    }
    free(last);
    if (kept > MARK_BUDGET) {
        long *best = malloc(MARK_BUDGET * sizeof *best);
        if (!best)
            return;
        for (size_t b = 0; b < MARK_BUDGET; b++)
            best[b] = -1;
        for (size_t i = 0; i < t->nmarks; i++) {
            if (!t->marks[i].drawn)
                continue;
            const sc_finding_mark *m = &t->r->marks[t->marks[i].m];
            size_t b = (size_t)(ux(t, m->start_ns) * (int64_t)MARK_BUDGET / (VBW + 1));
            if (best[b] < 0 || m->lost_ns > t->r->marks[t->marks[best[b]].m].lost_ns)
                best[b] = (long)i;
        }
        for (size_t i = 0; i < t->nmarks; i++)
            t->marks[i].drawn = 0;
        for (size_t b = 0; b < MARK_BUDGET; b++)
            if (best[b] >= 0)
                t->marks[best[b]].drawn = 1;
        free(best);
        for (size_t i = 0; i < t->nmarks; i++)
            t->sampled += !t->marks[i].drawn;
        t->sampled -= t->merged_marks;
    }
}

/* The device a mark is drawn on: that of the operation it held back, else
   the first. */
static uint32_t mark_device(const tl *t, const sc_finding_mark *m)
{
    if (m->op >= 0 && (size_t)m->op < t->r->ngpu_ops && t->r->gpu_ops[m->op].process == t->p)
        return t->r->gpu_ops[m->op].device;
    return t->nlanes ? t->lanes[0].device : 0;
}

static long lane_of(const tl *t, uint32_t device, uint32_t stream)
{
    for (size_t i = 0; i < t->nlanes; i++)
        if (t->lanes[i].device == device && t->lanes[i].stream == stream)
            return (long)i;
    return -1;
}

/* ---------------------------------------------------------- one device --- */

static void axis_ticks(const tl *t)
{
    FILE *out = t->out;
    int64_t span = t->t1 - t->t0, step = 1;
    while (step * 8 < span) {
        if (step * 2 * 8 >= span) { step *= 2; break; }
        if (step * 5 * 8 >= span) { step *= 5; break; }
        step *= 10;
    }
    for (int64_t v = (t->t0 + step - 1) / step * step; (v - t->t0) * 100 <= span * 95; v += step) {
        char b[32], pc[32];
        sc_format_ns((uint64_t)v, b, sizeof b);
        sc_html_percent((uint64_t)(v - t->t0), (uint64_t)span, pc, sizeof pc);
        fprintf(out, "<span style=\"left:%s\">%s</span>", pc, b);
    }
}

/* One device's picture: its lanes d0..d1 (streams) below a row per host
   thread, in pixels. */
typedef struct geom {
    uint32_t dev;
    const sc_gpu_device *gd;     /* its numbers, when the report has them */
    size_t d0, d1;
    int stream_top, height;
} geom;

/* The device's name and numbers, and the zoom buttons. */
static void device_head(const tl *t, const geom *g)
{
    FILE *out = t->out;
    const sc_process *p = &t->r->procs[t->p];
    char b[64], c[64], e[64];
    fprintf(out, "<div class=\"tl\" id=\"timeline-%zu-%u\">\n<div class=\"tl-head\"><b>GPU %u</b>", t->p, g->dev,
            g->dev);
    if (p->device) {
        fputs(" ", out);
        sc_html_esc(out, p->device);
    }
    if (g->gd) {
        sc_html_percent(g->gd->busy_ns, g->gd->span_ns, b, sizeof b);
        sc_html_percent(g->gd->overlap_ns, g->gd->span_ns, c, sizeof c);
        sc_html_percent(g->gd->idle_ns, g->gd->span_ns, e, sizeof e);
        fprintf(out, " <span class=\"basis\">busy %s, overlap %s, idle %s of its span</span>", b, c, e);
    }
    fputs("</div>\n<div class=\"tl-bar noprint\"><button type=\"button\" data-z=\"in\" title=\"Zoom in\">+</button>"
          "<button type=\"button\" data-z=\"out\" title=\"Zoom out\">&#8722;</button>"
          "<button type=\"button\" data-z=\"left\" title=\"Earlier\">&#9664;</button>"
          "<button type=\"button\" data-z=\"right\" title=\"Later\">&#9654;</button>"
          "<button type=\"button\" data-z=\"fit\" title=\"The whole run\">Fit</button>"
          "<span class=\"tl-range\"></span><span class=\"tl-help\">double-click or Ctrl+wheel zooms, drag pans; "
          "a finding's mark links to it</span></div>\n", out);
}

/* The rows' labels: host threads, then streams with their busy share. */
static void device_labels(const tl *t, const geom *g)
{
    FILE *out = t->out;
    const sc_process *p = &t->r->procs[t->p];
    char b[64];
    fprintf(out, "<div class=\"tl-body\">\n<div class=\"tl-labels\" style=\"height:%dpx\">", g->height);
    if (t->nthrs) {
        fputs("<div class=\"tl-sec\">Host threads</div>", out);
        for (size_t k = 0; k < t->nthrs; k++) {
            fprintf(out, "<div title=\"CUPTI thread id %u\">thread %zu", t->thrs[k].id, k + 1);
            if (t->thrs[k].name) {
                fputs(" <i>", out);
                sc_html_esc(out, t->thrs[k].name);
                fputs("</i>", out);
            }
            fputs("</div>", out);
        }
    }
    fprintf(out, "<div class=\"tl-sec\">GPU %u streams</div>", g->dev);
    for (size_t i = g->d0; i < g->d1; i++) {
        const lane *l = &t->lanes[i];
        uint64_t busy = 0;
        if (p->gpu)
            for (size_t s = 0; s < p->gpu->nstreams; s++)
                if (p->gpu->streams[s].device == l->device && p->gpu->streams[s].stream == l->stream)
                    busy = p->gpu->streams[s].busy_ns;
        fprintf(out, "<div>stream %u", l->stream);
        if (g->gd && busy) {
            sc_html_percent(busy, g->gd->span_ns, b, sizeof b);
            fprintf(out, " <span class=\"pct\">%s</span>", b);
        }
        fputs("</div>", out);
    }
    fputs("</div>\n", out);
}

/* A stream's lane: the time the findings held its operations back, then
   the operations. */
static void lane_html(const tl *t, const geom *g, size_t i)
{
    FILE *out = t->out;
    const sc_report *r = t->r;
    const lane *l = &t->lanes[i];
    fprintf(out, "<g class=\"tl-lane\" data-stream=\"%u\" transform=\"translate(0,%d)\">\n", l->stream,
            g->stream_top + (int)(i - g->d0) * PITCH + (PITCH - LANE) / 2);
    for (size_t j = 0; j < t->nmarks; j++) {
        const sc_finding_mark *m = &r->marks[t->marks[j].m];
        if (!t->marks[j].drawn || m->op < 0 || (size_t)m->op >= r->ngpu_ops || !m->lost_ns)
            continue;
        const sc_gpu_op *op = &r->gpu_ops[m->op];
        if (op->process != t->p || op->device != l->device || op->stream != l->stream)
            continue;
        int64_t a = op->start_ns - (int64_t)m->lost_ns;
        fprintf(out, "<rect class=\"l\" height=\"%d\"", LANE);
        xw(t, a < t->t0 ? t->t0 : a, op->start_ns);
        fprintf(out, " data-ns=\"%" PRIu64 "\" data-f=\"%ld\"/>\n", m->lost_ns, t->marks[j].f + 1);
    }
    fputs("<g>\n", out);
    lane_items(t, l, op_rect, NULL);
    fputs("</g>\n</g>\n", out);
}

/* A finding event's mark: a line across the picture, a tick on its
   thread's row, a line to the operation it held back, a tooltip. */
static void mark_html(const tl *t, const geom *g, const sc_finding_mark *m, long f)
{
    FILE *out = t->out;
    const sc_report *r = t->r;
    const sc_finding *fd = &r->findings[f];
    const sc_rule_info *ri = &sc_rules[fd->rule];
    char b[64], c[64];
    long k = thr_of(t, m->thread);
    int64_t x = ux(t, m->start_ns);
    int hy = (int)(k + 1) * PITCH + (PITCH - LANE) / 2;
    fprintf(out, "<a href=\"#finding-%ld\" class=\"mk sev-%s\" data-finding=\"%ld\" data-rule=\"%s\" "
            "data-t=\"%" PRId64 "\" data-thread=\"%u\"", f + 1, sc_severity_name(fd->severity), f + 1, ri->id,
            m->start_ns, m->thread);
    long ol = -1;
    if (m->op >= 0 && (size_t)m->op < r->ngpu_ops) {
        const sc_gpu_op *op = &r->gpu_ops[m->op];
        ol = op->process == t->p ? lane_of(t, op->device, op->stream) : -1;
        if (ol >= 0)
            fprintf(out, " data-stream=\"%u\"", op->stream);
    }
    fprintf(out, ">\n<line class=\"ml\" x1=\"%" PRId64 "\" y1=\"0\" x2=\"%" PRId64 "\" y2=\"%d\"/>\n", x, x,
            g->height);
    if (k >= 0)
        fprintf(out, "<line class=\"mh\" x1=\"%" PRId64 "\" y1=\"%d\" x2=\"%" PRId64 "\" y2=\"%d\"/>\n", x, hy, x,
                hy + LANE);
    if (ol >= 0 && (size_t)ol >= g->d0 && (size_t)ol < g->d1 && k >= 0) {
        const sc_gpu_op *op = &r->gpu_ops[m->op];
        int sy = g->stream_top + (int)((size_t)ol - g->d0) * PITCH + PITCH / 2;
        fprintf(out, "<line class=\"mc\" x1=\"%" PRId64 "\" y1=\"%d\" x2=\"%" PRId64 "\" y2=\"%d\"/>\n", x,
                hy + LANE, ux(t, op->start_ns), sy);
    }
    sc_format_ns((uint64_t)(m->start_ns > 0 ? m->start_ns : 0), b, sizeof b);
    sc_format_ns(m->lost_ns, c, sizeof c);
    fprintf(out, "<title>#%ld %s %s: ", f + 1, ri->id, ri->name);
    sc_html_esc(out, name_of(r, m->api));
    fprintf(out, " at %s", b);
    if (m->lost_ns)
        fprintf(out, ", held GPU work back %s", c);
    fputs(" (click for the finding)</title>\n</a>\n", out);
}

static void device_html(tl *t, size_t d0, size_t d1)
{
    FILE *out = t->out;
    const sc_report *r = t->r;
    const sc_process *p = &r->procs[t->p];
    geom g = {.dev = t->nlanes ? t->lanes[d0].device : 0, .d0 = d0, .d1 = d1};
    if (p->gpu)
        for (size_t i = 0; i < p->gpu->ndevices; i++)
            if (p->gpu->devices[i].device == g.dev)
                g.gd = &p->gpu->devices[i];
    int host_rows = t->nthrs ? 1 + (int)t->nthrs : 0;
    g.stream_top = (host_rows + 1) * PITCH;
    g.height = g.stream_top + (int)(d1 - d0) * PITCH;
    device_head(t, &g);
    device_labels(t, &g);

    /* the picture */
    fprintf(out, "<div class=\"tl-view\">\n<svg class=\"tl-svg%s\" viewBox=\"0 0 %d %d\" preserveAspectRatio=\"none\" "
            "width=\"100%%\" height=\"%d\" data-device=\"%u\" data-t0=\"%" PRId64 "\" data-unit=\"%.6f\" "
            "data-vbw=\"%d\" data-minw=\"%d\" data-h=\"%d\" role=\"img\" aria-label=\"GPU %u timeline\">\n",
            t->drawn > MANY_MARKS ? " many" : "", VBW, g.height, g.height, g.dev, t->t0, t->unit, VBW, MIN_VIEW,
            g.height, g.dev);
    for (int row = 0; row * PITCH < g.height; row++)
        if (row % 2)
            fprintf(out, "<rect class=\"bg\" x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n", row * PITCH, VBW, PITCH);
    rows rw = {g.stream_top, g.height};
    fputs("<g class=\"tl-idle\">\n", out);
    idle_items(t, g.dev, idle_rect, &rw);
    if (t->kept_end && t->kept_end < t->t1) {
        fprintf(out, "<rect class=\"nk\" y=\"%d\" height=\"%d\"", g.stream_top, g.height - g.stream_top);
        xw(t, t->kept_end, t->t1);
        fprintf(out, " data-ns=\"%" PRId64 "\" data-c=\"%" PRIu64 "\"/>\n", t->t1 - t->kept_end,
                p->gpu->ops_kept);
    }
    fputs("</g>\n", out);
    for (size_t k = 0; k < t->nthrs; k++) {
        fprintf(out, "<g class=\"tl-host\" data-thread=\"%u\" transform=\"translate(0,%d)\">\n", t->thrs[k].id,
                (int)(k + 1) * PITCH + (PITCH - LANE) / 2);
        fprintf(out, "<rect class=\"hb\" x=\"0\" width=\"%d\" height=\"%d\"/>\n", VBW, LANE);
        host_items(t, &t->thrs[k], host_rect, NULL);
        fputs("</g>\n", out);
    }
    for (size_t i = d0; i < d1; i++)
        lane_html(t, &g, i);
    fputs("<g class=\"tl-marks\">\n", out);
    for (size_t j = 0; j < t->nmarks; j++) {
        const sc_finding_mark *m = &r->marks[t->marks[j].m];
        if (t->marks[j].drawn && (!t->nlanes || mark_device(t, m) == g.dev))
            mark_html(t, &g, m, t->marks[j].f);
    }
    fputs("</g>\n</svg>\n<div class=\"tl-axis\">", out);
    axis_ticks(t);
    fputs("</div>\n</div>\n</div>\n<div class=\"tl-tip\" hidden=\"\"></div>\n</div>\n", out);
}

void sc_html_timeline(FILE *out, const sc_report *r, size_t process)
{
    const sc_process *p = process < r->nprocs ? &r->procs[process] : NULL;
    tl t;
    if (!p || !p->gpu)
        return;
    if (tl_init(&t, out, r, process) < 0) {
        tl_free(&t);
        free(t.used);
        fputs("<p class=\"note\">Out of memory drawing the timeline.</p>\n", out);
        return;
    }
    if (!t.nops && !t.nmarks && !t.nspans) {
        fputs("<p class=\"note\">This report has the GPU's numbers but not its timeline: JSON reports (and so "
              "<code>streamcheck report</code>) do not carry it.  The page the measured run writes itself "
              "(<code>--measure --format=html</code>) has it.</p>\n", out);
        tl_free(&t);
        free(t.used);
        return;
    }
    t.gap = t.unit < 1 ? 1 : (int64_t)(t.unit + 0.5);
    while ((t.rects = count_rects(&t)) > RECT_BUDGET && t.gap < t.t1 - t.t0)
        t.gap *= 2;
    choose_marks(&t);
    for (size_t i = 0; i < t.nmarks; i++)
        t.drawn += t.marks[i].drawn != 0;
    if (p->gpu->ops_kept < p->gpu->ops)
        for (size_t i = 0; i < t.nops; i++)
            if (r->gpu_ops[t.ops[i]].start_ns > t.kept_end)
                t.kept_end = r->gpu_ops[t.ops[i]].start_ns;

    fputs("<div class=\"legend\"><span class=\"sw k\"></span>kernel <span class=\"sw c\"></span>copy "
          "<span class=\"sw s\"></span>memset <span class=\"sw x\"></span>several kinds "
          "<span class=\"sw h\"></span>host thread inside a CUDA call <span class=\"sw i\"></span>GPU idle "
          "<span class=\"sw l\"></span>GPU work held back by a finding "
          "<span class=\"sw mk\"></span>finding (links to it)</div>\n", out);
    if (!t.nlanes) {
        device_html(&t, 0, 0);
    } else {
        size_t d0 = 0;
        for (size_t i = 1; i <= t.nlanes; i++)
            if (i == t.nlanes || t.lanes[i].device != t.lanes[d0].device) {
                device_html(&t, d0, i);
                d0 = i;
            }
    }
    /* what was drawn, and what was left out */
    char g[32];
    sc_format_ns((uint64_t)t.gap, g, sizeof g);
    fprintf(out, "<p class=\"note\">Times from the program's start. %zu GPU operation%s on %zu stream%s", t.nops,
            sc_html_plural(t.nops), t.nlanes, sc_html_plural(t.nlanes));
    if (p->gpu->ops_kept < p->gpu->ops) {
        char k[32];
        sc_format_ns((uint64_t)(t.kept_end > 0 ? t.kept_end : 0), k, sizeof k);
        fprintf(out, " (the report keeps the first %" PRIu64 " of %" PRIu64 ": after %s the streams' lanes are "
                "shaded yellow, their operations are not in it)", p->gpu->ops_kept, p->gpu->ops, k);
    }
    fprintf(out, ", %zu host call%s of %d us or more on %zu thread%s; drawn as %zu rectangle%s: operations of a "
            "stream, or calls of a thread, less than %s apart are one rectangle (its tooltip counts them).",
            t.nspans, sc_html_plural(t.nspans), HOST_MIN_NS / 1000, t.nthrs, sc_html_plural(t.nthrs), t.rects,
            sc_html_plural(t.rects), g);
    fprintf(out, " %zu finding event%s marked", t.drawn, sc_html_plural(t.drawn));
    if (t.merged_marks)
        fprintf(out, "; %zu more of the same finding within a pixel at full zoom", t.merged_marks);
    if (t.sampled)
        fprintf(out, "; %zu more left out (past %d, one mark per %dth of the run, the one that held GPU work "
                "back longest)", t.sampled, MARK_BUDGET, MARK_BUDGET);
    if (t.unlinked)
        fprintf(out, "; %zu event%s of findings this report does not have (suppressed or filtered) not drawn",
                t.unlinked, sc_html_plural(t.unlinked));
    fputs(".</p>\n", out);
    /* the names the tooltips show */
    int any = 0;
    for (size_t i = 0; i < r->nnames; i++)
        if (t.used[i]) {
            if (!any)
                fprintf(out, "<div class=\"tl-names\" hidden=\"\" data-process=\"%zu\">", process);
            any = 1;
            char sn[256];
            fprintf(out, "<span data-i=\"%zu\">", i);
            if (short_name(r->names[i], sn, sizeof sn)) {
                sc_html_esc(out, sn);
                fputc('\n', out);
            }
            sc_html_esc(out, r->names[i]);
            fputs("</span>", out);
        }
    if (any)
        fputs("</div>\n", out);
    tl_free(&t);
    free(t.used);
}
