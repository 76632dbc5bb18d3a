/* report.c: the report model -- building, sorting, merging, totals, file
 * output -- and the small formatting helpers every renderer shares. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"

/* strdup for copies: *ok drops to 0 when a non-NULL string fails. */
static char *dup_ok(const char *s, int *ok)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        *ok = 0;
    return d;
}

/* ------------------------------------------------------- free/copy --- */

static void process_free(sc_process *p)
{
    free(p->exe);
    free(p->cmdline);
    free(p->host);
    free(p->device);
    free(p->mode);
    sc_gpu_free(p->gpu);
    p->gpu = NULL;
    for (size_t i = 0; i < p->ndevices; i++)
        free(p->devices[i].name);
    free(p->devices);
}

void sc_callsite_clear(sc_callsite *cs)
{
    for (size_t i = 0; i < cs->nframes; i++) {
        free(cs->frames[i].module);
        free(cs->frames[i].function);
        free(cs->frames[i].file);
    }
    free(cs->frames);
    for (size_t i = 0; i < cs->npy; i++) {
        free(cs->py[i].file);
        free(cs->py[i].function);
    }
    free(cs->py);
    free(cs->thread_name);
}

void sc_finding_clear(sc_finding *f)
{
    free(f->api);
    free(f->driver_api);
    free(f->detail);
}

static void count_free(sc_api_count *c)
{
    free(c->library);
    free(c->api);
}

static void redirect_free(sc_redirect *rd)
{
    free(rd->api);
    free(rd->outcome);
}

sc_gpu *sc_gpu_dup(const sc_gpu *g)
{
    if (!g)
        return NULL;
    sc_gpu *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    *d = *g;
    d->devices = NULL;
    d->streams = NULL;
    if (g->ndevices && !(d->devices = malloc(g->ndevices * sizeof *d->devices)))
        goto fail;
    if (g->nstreams && !(d->streams = malloc(g->nstreams * sizeof *d->streams)))
        goto fail;
    if (g->ndevices)
        memcpy(d->devices, g->devices, g->ndevices * sizeof *d->devices);
    if (g->nstreams)
        memcpy(d->streams, g->streams, g->nstreams * sizeof *d->streams);
    return d;
fail:
    sc_gpu_free(d);
    errno = ENOMEM;
    return NULL;
}

void sc_gpu_free(sc_gpu *g)
{
    if (!g)
        return;
    free(g->devices);
    free(g->streams);
    free(g);
}

static int process_copy(sc_process *d, const sc_process *s)
{
    int ok = 1;
    *d = *s;
    d->gpu = NULL;
    if (s->gpu && !(d->gpu = sc_gpu_dup(s->gpu)))
        ok = 0;
    d->exe = dup_ok(s->exe, &ok);
    d->cmdline = dup_ok(s->cmdline, &ok);
    d->host = dup_ok(s->host, &ok);
    d->device = dup_ok(s->device, &ok);
    d->mode = dup_ok(s->mode, &ok);
    d->devices = NULL;
    d->ndevices = 0;
    if (s->ndevices && !(d->devices = calloc(s->ndevices, sizeof *d->devices)))
        ok = 0;
    for (size_t i = 0; ok && i < s->ndevices; i++) {
        d->devices[i].ordinal = s->devices[i].ordinal;
        d->devices[i].name = dup_ok(s->devices[i].name, &ok);
        d->ndevices = i + 1;
    }
    if (!ok) {
        process_free(d);
        return -1;
    }
    return 0;
}

static int callsite_copy(sc_callsite *d, const sc_callsite *s)
{
    int ok = 1;
    memset(d, 0, sizeof *d);
    memcpy(d->id, s->id, sizeof d->id);
    d->thread_name = dup_ok(s->thread_name, &ok);
    if (s->nframes) {
        d->frames = calloc(s->nframes, sizeof *d->frames);
        if (!d->frames)
            return -1;
        d->nframes = s->nframes;
        for (size_t i = 0; i < s->nframes; i++) {
            d->frames[i] = s->frames[i];
            d->frames[i].module = dup_ok(s->frames[i].module, &ok);
            d->frames[i].function = dup_ok(s->frames[i].function, &ok);
            d->frames[i].file = dup_ok(s->frames[i].file, &ok);
        }
    }
    if (s->npy) {
        d->py = calloc(s->npy, sizeof *d->py);
        if (!d->py)
            ok = 0;
        else {
            d->npy = s->npy;
            for (size_t i = 0; i < s->npy; i++) {
                d->py[i] = s->py[i];
                d->py[i].file = dup_ok(s->py[i].file, &ok);
                d->py[i].function = dup_ok(s->py[i].function, &ok);
            }
        }
    }
    if (!ok) {
        sc_callsite_clear(d);
        return -1;
    }
    return 0;
}

static int finding_copy(sc_finding *d, const sc_finding *s)
{
    int ok = 1;
    *d = *s;
    d->api = dup_ok(s->api, &ok);
    d->driver_api = dup_ok(s->driver_api, &ok);
    d->detail = dup_ok(s->detail, &ok);
    if (!ok) {
        sc_finding_clear(d);
        return -1;
    }
    return 0;
}

static int count_copy(sc_api_count *d, const sc_api_count *s)
{
    int ok = 1;
    *d = *s;
    d->library = dup_ok(s->library, &ok);
    d->api = dup_ok(s->api, &ok);
    if (!ok) {
        count_free(d);
        return -1;
    }
    return 0;
}

static int redirect_copy(sc_redirect *d, const sc_redirect *s)
{
    int ok = 1;
    *d = *s;
    d->api = dup_ok(s->api, &ok);
    d->outcome = dup_ok(s->outcome, &ok);
    if (!ok) {
        redirect_free(d);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------- new/free --- */

sc_report *sc_report_new(void)
{
    return calloc(1, sizeof(sc_report));
}

void sc_report_free(sc_report *r)
{
    if (!r)
        return;
    free(r->tool_version);
    for (size_t i = 0; i < r->nprocs; i++)
        process_free(&r->procs[i]);
    free(r->procs);
    for (size_t i = 0; i < r->ncounts; i++)
        count_free(&r->counts[i]);
    free(r->counts);
    for (size_t i = 0; i < r->nfindings; i++)
        sc_finding_clear(&r->findings[i]);
    free(r->findings);
    for (size_t i = 0; i < r->ncallsites; i++)
        sc_callsite_clear(&r->callsites[i]);
    free(r->callsites);
    for (size_t i = 0; i < r->nredirects; i++)
        redirect_free(&r->redirects[i]);
    free(r->redirects);
    free(r->gpu_ops);
    free(r->host_spans);
    free(r->marks);
    for (size_t i = 0; i < r->nnames; i++)
        free(r->names[i]);
    free(r->names);
    free(r);
}

/* Grows *arr to hold n elements of size sz.  Exact sizes: reports are
   built once and merged a few times, so amortization buys little. */
static int reserve(void *arrp, size_t n, size_t sz)
{
    void **arr = arrp;
    if (n == 0)
        return 0;
    if (n > SIZE_MAX / sz) {
        errno = ENOMEM;
        return -1;
    }
    void *p = realloc(*arr, n * sz);
    if (!p)
        return -1;
    *arr = p;
    return 0;
}

/* ------------------------------------------------------- building --- */

#define APPEND(r, arr, n)                                              \
    do {                                                               \
        if (reserve(&(r)->arr, (r)->n + 1, sizeof *(r)->arr) < 0)      \
            return NULL;                                               \
        memset(&(r)->arr[(r)->n], 0, sizeof *(r)->arr);                \
        return &(r)->arr[(r)->n++];                                    \
    } while (0)

static sc_process *append_process(sc_report *r)
{
    APPEND(r, procs, nprocs);
}

sc_process *sc_report_add_process(sc_report *r)
{
    sc_process *p = append_process(r);
    if (p)
        p->rank = -1;
    return p;
}

static sc_finding *append_finding(sc_report *r)
{
    APPEND(r, findings, nfindings);
}

sc_finding *sc_report_add_finding(sc_report *r)
{
    sc_finding *f = append_finding(r);
    if (f)
        f->device = -1;
    return f;
}

int sc_process_add_device(sc_process *p, int ordinal, const char *name)
{
    size_t i = 0;
    while (i < p->ndevices && p->devices[i].ordinal < ordinal)
        i++;
    if (i < p->ndevices && p->devices[i].ordinal == ordinal) {
        if (!p->devices[i].name && name && !(p->devices[i].name = strdup(name)))
            return -1;
        return 0;
    }
    char *n = NULL;
    if (name && !(n = strdup(name)))
        return -1;
    sc_device_info *v = realloc(p->devices, (p->ndevices + 1) * sizeof *v);
    if (!v) {
        free(n);
        errno = ENOMEM;
        return -1;
    }
    memmove(&v[i + 1], &v[i], (p->ndevices - i) * sizeof *v);
    v[i] = (sc_device_info){ordinal, n};
    p->devices = v;
    p->ndevices++;
    return 0;
}

const char *sc_process_device_name(const sc_process *p, int ordinal)
{
    for (size_t i = 0; i < p->ndevices; i++)
        if (p->devices[i].ordinal == ordinal)
            return p->devices[i].name;
    return NULL;
}

sc_redirect *sc_report_add_redirect(sc_report *r)
{
    APPEND(r, redirects, nredirects);
}

sc_callsite *sc_report_add_callsite(sc_report *r, const char *id)
{
    if (!id || strlen(id) >= sizeof r->callsites[0].id) {
        errno = EINVAL;
        return NULL;
    }
    if (sc_report_callsite_index(r, id) >= 0) {
        errno = EEXIST;
        return NULL;
    }
    if (reserve(&r->callsites, r->ncallsites + 1, sizeof *r->callsites) < 0)
        return NULL;
    sc_callsite *cs = &r->callsites[r->ncallsites++];
    memset(cs, 0, sizeof *cs);
    strcpy(cs->id, id);
    return cs;
}

int sc_report_add_count(sc_report *r, const char *library, const char *api, uint64_t calls,
                        unsigned process)
{
    if (!library || !api) {
        errno = EINVAL;
        return -1;
    }
    for (size_t i = 0; i < r->ncounts; i++)
        if (!strcmp(r->counts[i].library, library) && !strcmp(r->counts[i].api, api)) {
            r->counts[i].calls += calls;
            return 0;
        }
    sc_api_count c = {.calls = calls, .process = process};
    int ok = 1;
    c.library = dup_ok(library, &ok);
    c.api = dup_ok(api, &ok);
    if (!ok || reserve(&r->counts, r->ncounts + 1, sizeof *r->counts) < 0) {
        count_free(&c);
        return -1;
    }
    r->counts[r->ncounts++] = c;
    return 0;
}

int sc_callsite_add_frame(sc_callsite *cs, const char *module, uint64_t offset,
                          const char *function, const char *file, unsigned line)
{
    sc_frame f = {.offset = offset, .line = line};
    int ok = 1;
    f.module = dup_ok(module, &ok);
    f.function = dup_ok(function, &ok);
    f.file = dup_ok(file, &ok);
    if (!ok || reserve(&cs->frames, cs->nframes + 1, sizeof *cs->frames) < 0) {
        free(f.module);
        free(f.function);
        free(f.file);
        return -1;
    }
    cs->frames[cs->nframes++] = f;
    return 0;
}

int sc_callsite_add_pyframe(sc_callsite *cs, const char *file, unsigned line,
                            const char *function)
{
    sc_pyframe f = {.line = line};
    int ok = 1;
    f.file = dup_ok(file, &ok);
    f.function = dup_ok(function, &ok);
    if (!ok || reserve(&cs->py, cs->npy + 1, sizeof *cs->py) < 0) {
        free(f.file);
        free(f.function);
        return -1;
    }
    cs->py[cs->npy++] = f;
    return 0;
}

/* ------------------------------------------------------- id map --- */

static uint64_t id_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ull;
    }
    return h;
}

int sc_idmap_init(sc_idmap *m, size_t n)
{
    size_t cap = 16;
    while (cap < 2 * n + 1) {
        if (cap > SIZE_MAX / 4) {
            errno = ENOMEM;
            return -1;
        }
        cap *= 2;
    }
    m->slot = calloc(cap, sizeof *m->slot);
    if (!m->slot)
        return -1;
    m->cap = cap;
    m->n = 0;
    return 0;
}

void sc_idmap_free(sc_idmap *m)
{
    free(m->slot);
    m->slot = NULL;
    m->cap = m->n = 0;
}

long sc_idmap_find(const sc_idmap *m, const sc_callsite *cs, const char *id)
{
    size_t mask = m->cap - 1;
    for (size_t i = (size_t)id_hash(id) & mask;; i = (i + 1) & mask) {
        size_t s = m->slot[i];
        if (!s)
            return -1;
        if (!strcmp(cs[s - 1].id, id))
            return (long)(s - 1);
    }
}

int sc_idmap_add(sc_idmap *m, const sc_callsite *cs, size_t idx)
{
    if (2 * (m->n + 1) >= m->cap) {
        errno = ENOSPC; /* callers size the map up front */
        return -1;
    }
    size_t mask = m->cap - 1;
    for (size_t i = (size_t)id_hash(cs[idx].id) & mask;; i = (i + 1) & mask) {
        size_t s = m->slot[i];
        if (!s) {
            m->slot[i] = idx + 1;
            m->n++;
            return 0;
        }
        if (!strcmp(cs[s - 1].id, cs[idx].id)) {
            errno = EEXIST;
            return -1;
        }
    }
}

/* ------------------------------------------------------- lookup --- */

long sc_report_callsite_index(const sc_report *r, const char *id)
{
    if (!id || !*id)
        return -1;
    for (size_t i = 0; i < r->ncallsites; i++)
        if (!strcmp(r->callsites[i].id, id))
            return (long)i;
    return -1;
}

const sc_callsite *sc_report_callsite(const sc_report *r, const char *id)
{
    long i = sc_report_callsite_index(r, id);
    return i < 0 ? NULL : &r->callsites[i];
}

/* ------------------------------------------------------- sorting --- */

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
   events (what detect mode cannot price but saw happen).  keyed_finding
   carries the sums. */
typedef struct keyed_finding {
    uint64_t group_cost, group_pending;
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
    if ((c = cmp_u64(kb->group_cost, ka->group_cost)) || (c = cmp_u64(kb->group_pending, ka->group_pending)))
        return c;
    if ((c = cmp_u64(a->process, b->process)) || (c = strcmp(a->callsite, b->callsite)))
        return c;
    if ((c = cmp_u64(b->cost_ns, a->cost_ns)) || (c = cmp_u64(b->pending, a->pending)) ||
        (c = cmp_u64(b->count, a->count)))
        return c;
    if ((c = cmp_u64(a->rule, b->rule)))
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
        k[i] = (keyed_finding){0, 0, r->findings[i]};
    qsort(k, r->nfindings, sizeof *k, cmp_grouping);
    for (size_t i = 0, j; i < r->nfindings; i = j) {
        uint64_t sum = 0, pend = 0;
        for (j = i; j < r->nfindings && !cmp_group(&k[i].f, &k[j].f); j++) {
            sum = sum + k[j].f.cost_ns < sum ? UINT64_MAX : sum + k[j].f.cost_ns;
            pend = pend + k[j].f.pending < pend ? UINT64_MAX : pend + k[j].f.pending;
        }
        for (size_t m = i; m < j; m++) {
            k[m].group_cost = sum;
            k[m].group_pending = pend;
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

/* ------------------------------------------------------- merging --- */

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
    unsigned off = (unsigned)dst->nprocs;
    size_t np = 0, nc = 0, nf = 0, nr = 0, nn = 0;
    char *tv = NULL;
    uint64_t *add = NULL;
    sc_idmap m = {0};
    int saved;

    /* Everything that can fail happens before dst changes: new entries go
       into the reserved tail of each array and are counted in only at the
       end, so a failure leaves dst as it was. */
    if (reserve(&dst->procs, dst->nprocs + src->nprocs, sizeof *dst->procs) < 0 ||
        reserve(&dst->callsites, dst->ncallsites + src->ncallsites, sizeof *dst->callsites) < 0 ||
        reserve(&dst->findings, dst->nfindings + src->nfindings, sizeof *dst->findings) < 0 ||
        reserve(&dst->redirects, dst->nredirects + src->nredirects, sizeof *dst->redirects) < 0 ||
        reserve(&dst->counts, dst->ncounts + src->ncounts, sizeof *dst->counts) < 0)
        return -1;
    if (!dst->tool_version && src->tool_version && !(tv = strdup(src->tool_version)))
        goto fail;
    if (dst->ncounts && !(add = calloc(dst->ncounts, sizeof *add)))
        goto fail;
    if (sc_idmap_init(&m, dst->ncallsites + src->ncallsites) < 0)
        goto fail;
    for (size_t i = 0; i < dst->ncallsites; i++)
        sc_idmap_add(&m, dst->callsites, i);

    for (; np < src->nprocs; np++)
        if (process_copy(&dst->procs[dst->nprocs + np], &src->procs[np]) < 0)
            goto fail;
    for (size_t i = 0; i < src->ncallsites; i++) {
        if (sc_idmap_find(&m, dst->callsites, src->callsites[i].id) >= 0)
            continue;
        size_t k = dst->ncallsites + nc;
        if (callsite_copy(&dst->callsites[k], &src->callsites[i]) < 0)
            goto fail;
        nc++;
        sc_idmap_add(&m, dst->callsites, k);
    }
    for (; nf < src->nfindings; nf++) {
        sc_finding *f = &dst->findings[dst->nfindings + nf];
        if (finding_copy(f, &src->findings[nf]) < 0)
            goto fail;
        f->process += off;
    }
    for (; nr < src->nredirects; nr++) {
        sc_redirect *rd = &dst->redirects[dst->nredirects + nr];
        if (redirect_copy(rd, &src->redirects[nr]) < 0)
            goto fail;
        rd->process += off;
    }
    for (size_t i = 0; i < src->ncounts; i++) {
        const sc_api_count *c = &src->counts[i];
        size_t k, total = dst->ncounts + nn;
        for (k = 0; k < total; k++)
            if (!cmp_str(dst->counts[k].library, c->library) && !cmp_str(dst->counts[k].api, c->api))
                break;
        if (k < dst->ncounts) {
            add[k] += c->calls;
        } else if (k < total) {
            dst->counts[k].calls += c->calls; /* a row added by this merge */
        } else {
            if (count_copy(&dst->counts[total], c) < 0)
                goto fail;
            dst->counts[total].process += off;
            nn++;
        }
    }

    /* Commit. */
    for (size_t k = 0; k < dst->ncounts; k++)
        dst->counts[k].calls += add[k];
    dst->nprocs += np;
    dst->ncallsites += nc;
    dst->nfindings += nf;
    dst->nredirects += nr;
    dst->ncounts += nn;
    if (tv)
        dst->tool_version = tv;
    free(add);
    sc_idmap_free(&m);
    return 0;

fail:
    saved = errno;
    for (size_t i = 0; i < np; i++)
        process_free(&dst->procs[dst->nprocs + i]);
    for (size_t i = 0; i < nc; i++)
        sc_callsite_clear(&dst->callsites[dst->ncallsites + i]);
    for (size_t i = 0; i < nf; i++)
        sc_finding_clear(&dst->findings[dst->nfindings + i]);
    for (size_t i = 0; i < nr; i++)
        redirect_free(&dst->redirects[dst->nredirects + i]);
    for (size_t i = 0; i < nn; i++)
        count_free(&dst->counts[dst->ncounts + i]);
    free(tv);
    free(add);
    sc_idmap_free(&m);
    errno = saved ? saved : ENOMEM;
    return -1;
}

/* ------------------------------------------------------- totals --- */

static const char *const basis_names[SC_NCOST_BASES] = {
    [SC_COST_UNMEASURED] = "unmeasured",
    [SC_COST_COPY_BLOCKED] = "copy-blocked",
    [SC_COST_HOST_BLOCKED] = "host-blocked",
    [SC_COST_PENDING_BLOCKED] = "blocked-while-pending",
    [SC_COST_GPU] = "gpu-timeline",
};

const char *sc_cost_basis_name(sc_cost_basis b)
{
    return (unsigned)b < SC_NCOST_BASES ? basis_names[b] : "unmeasured";
}

const char *sc_unmeasured_why(const sc_report *r, const sc_finding *f)
{
    const sc_gpu *g = f->process < r->nprocs ? r->procs[f->process].gpu : NULL;
    if (!g)
        return "run with --measure for its cost on the GPU";
    if (g->handed_over)
        return "not measured: the program's own profiler took CUPTI before these calls";
    return "not measured: the GPU timeline ties none of its calls to GPU work";
}

int sc_cost_basis_parse(const char *s, sc_cost_basis *out)
{
    for (unsigned i = 0; i < SC_NCOST_BASES; i++)
        if (!strcmp(s, basis_names[i])) {
            *out = (sc_cost_basis)i;
            return 0;
        }
    return -1;
}

uint64_t sc_process_run_ns(const sc_process *p)
{
    if (!(p->end_time > p->start_time) || p->start_time <= 0)
        return 0;
    double d = (p->end_time - p->start_time) * 1e9;
    return d >= 1.8e19 ? UINT64_MAX : (uint64_t)(d + 0.5);
}

void sc_report_judge(sc_report *r, const sc_judge_opts *j)
{
    static const sc_judge_opts defaults = SC_JUDGE_DEFAULTS;
    if (!j)
        j = &defaults;
    for (size_t i = 0; i < r->nfindings; i++) {
        sc_finding *f = &r->findings[i];
        if (f->severity != SC_SEV_WARNING)
            continue;
        int worth;
        if (f->basis == SC_COST_UNMEASURED) {
            worth = f->pending > 0;
        } else {
            uint64_t run = f->process < r->nprocs ? sc_process_run_ns(&r->procs[f->process]) : 0;
            unsigned __int128 share = (unsigned __int128)run * j->min_share_bp / 10000;
            worth = f->cost_ns >= j->min_cost_ns && f->cost_ns >= share;
        }
        if (!worth)
            f->severity = SC_SEV_NOTE;
    }
}

uint64_t sc_report_cost(const sc_report *r)
{
    uint64_t sum = 0;
    /* A measured SC102 (at a stream's creation site) prices the legacy-stream
       commands that had to wait for that stream: the same GPU time is the
       commands' own finding's (SC101, SC202, ...) at their call sites, so
       it is not counted twice. */
    for (size_t i = 0; i < r->nfindings; i++)
        if (r->findings[i].severity != SC_SEV_NOTE &&
            !(r->findings[i].rule == SC_RULE_SC102 && r->findings[i].basis == SC_COST_GPU))
            sum = sum + r->findings[i].cost_ns < sum ? UINT64_MAX : sum + r->findings[i].cost_ns;
    return sum;
}

void sc_report_totals(const sc_report *r, uint64_t *errors, uint64_t *warnings, uint64_t *notes)
{
    uint64_t e = 0, w = 0, n = 0;
    for (size_t i = 0; i < r->nfindings; i++)
        switch (r->findings[i].severity) {
        case SC_SEV_ERROR: e++; break;
        case SC_SEV_WARNING: w++; break;
        case SC_SEV_NOTE: n++; break;
        }
    if (errors)
        *errors = e;
    if (warnings)
        *warnings = w;
    if (notes)
        *notes = n;
}

void sc_summary_line(const sc_report *r, char *buf, size_t len)
{
    uint64_t e, w, n;
    sc_report_totals(r, &e, &w, &n);
    snprintf(buf, len, "streamcheck: %zu findings (%" PRIu64 " errors, %" PRIu64 " warnings, %" PRIu64 " notes)",
             r->nfindings, e, w, n);
}

/* ------------------------------------------------------- helpers --- */

static int cmp_total(const void *pa, const void *pb)
{
    const sc_api_total *a = pa, *b = pb;
    int c = cmp_u64(b->calls, a->calls);
    return c ? c : strcmp(a->api, b->api);
}

/* Rows are few (one per driver entry point and calling library), so the
   quadratic grouping is fine. */
sc_api_total *sc_api_totals(const sc_report *r, size_t *n)
{
    sc_api_total *t = calloc(r->ncounts ? r->ncounts : 1, sizeof *t);
    size_t k = 0;
    if (!t)
        return NULL;
    for (size_t i = 0; i < r->ncounts; i++) {
        size_t j;
        for (j = 0; j < k; j++)
            if (!strcmp(t[j].api, r->counts[i].api))
                break;
        if (j == k)
            t[k++].api = r->counts[i].api;
        t[j].calls += r->counts[i].calls;
    }
    if (k > 1)
        qsort(t, k, sizeof *t, cmp_total);
    *n = k;
    return t;
}

int sc_fail_level_parse(const char *s, sc_fail_level *out)
{
    static const struct {
        const char *name;
        sc_fail_level level;
    } t[] = {
        {"note", SC_FAIL_NOTE}, {"warning", SC_FAIL_WARNING},
        {"error", SC_FAIL_ERROR}, {"never", SC_FAIL_NEVER},
    };
    for (size_t i = 0; s && i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(s, t[i].name)) {
            *out = t[i].level;
            return 0;
        }
    return -1;
}

int sc_severity_fails(sc_severity s, sc_fail_level l)
{
    switch (l) {
    case SC_FAIL_NOTE: return 1;
    case SC_FAIL_WARNING: return s >= SC_SEV_WARNING;
    case SC_FAIL_ERROR: return s >= SC_SEV_ERROR;
    case SC_FAIL_DEFAULT:
    case SC_FAIL_NEVER: break;
    }
    return 0;
}

void sc_one_line(char *s)
{
    for (; s && *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
}

void sc_parse_error(char *err, size_t errlen, const char *where, const char *fmt, va_list ap)
{
    if (!err || !errlen)
        return;
    int n = snprintf(err, errlen, "%s: ", where);
    if (n >= 0 && (size_t)n < errlen)
        vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
    sc_one_line(err);
}

const char *sc_basename(const char *path)
{
    const char *s = strrchr(path, '/');
    return s && s[1] ? s + 1 : path;
}

int sc_callsite_source(const sc_callsite *cs, const char **file, unsigned *line,
                       const char **function)
{
    int py;
    long i = sc_callsite_shown(cs, &py);
    if (i < 0)
        return -1;
    if (py && cs->py[i].file && cs->py[i].line) {
        *file = cs->py[i].file;
        *line = cs->py[i].line;
        *function = cs->py[i].function;
        return 0;
    }
    if (!py && cs->frames[i].file && cs->frames[i].line) {
        *file = cs->frames[i].file;
        *line = cs->frames[i].line;
        *function = cs->frames[i].function;
        return 0;
    }
    return -1;
}

void sc_frame_format_in(const sc_frame *f, const sc_srcroot *root, char *buf, size_t len)
{
    char where[512], rb[512];
    const char *file = f->file ? sc_srcroot_show(root, f->file, rb, sizeof rb) : NULL;
    if (file && f->line)
        snprintf(where, sizeof where, "%s:%u", file, f->line);
    else if (file)
        snprintf(where, sizeof where, "%s", file);
    else if (f->module)
        snprintf(where, sizeof where, "%s+0x%" PRIx64, sc_basename(f->module), f->offset);
    else
        snprintf(where, sizeof where, "0x%" PRIx64, f->offset);
    if (f->function)
        snprintf(buf, len, "%s (%s)", f->function, where);
    else
        snprintf(buf, len, "%s", where);
}

void sc_frame_format(const sc_frame *f, char *buf, size_t len)
{
    sc_frame_format_in(f, NULL, buf, len);
}

void sc_pyframe_format_in(const sc_pyframe *f, const sc_srcroot *root, char *buf, size_t len)
{
    char rb[512];
    const char *file = f->file ? sc_srcroot_show(root, f->file, rb, sizeof rb) : "<unknown>";
    if (f->function)
        snprintf(buf, len, "%s:%u in %s()", file, f->line, f->function);
    else
        snprintf(buf, len, "%s:%u", file, f->line);
}

void sc_pyframe_format(const sc_pyframe *f, char *buf, size_t len)
{
    sc_pyframe_format_in(f, NULL, buf, len);
}

void sc_finding_line(const sc_finding *f, char *buf, size_t len)
{
    char blocked[32], lost[32], bytes[32] = "";
    sc_format_ns(f->blocked_ns, blocked, sizeof blocked);
    sc_format_ns(f->lost_ns, lost, sizeof lost);
    if (f->bytes) {
        bytes[0] = ',';
        bytes[1] = ' ';
        sc_format_bytes(f->bytes, bytes + 2, sizeof bytes - 2);
    }
    const char *api = f->api ? f->api : f->driver_api ? f->driver_api : "unknown api";
    int two = f->api && f->driver_api && strcmp(f->api, f->driver_api);
    snprintf(buf, len,
             "%s%s%s: %" PRIu64 " call%s, host blocked %s, other streams busy at %" PRIu64 " of %" PRIu64
             ", est. time lost <= %s (upper bound)%s",
             api, two ? " -> " : "", two ? f->driver_api : "", f->count, f->count == 1 ? "" : "s",
             blocked, f->pending, f->count, lost, bytes);
}

void sc_callsite_where_in(const sc_callsite *cs, const sc_srcroot *root, char *buf, size_t len)
{
    int py;
    long i = sc_callsite_shown(cs, &py);
    if (i < 0) {
        snprintf(buf, len, "no call site");
    } else if (py) {
        sc_pyframe_format_in(&cs->py[i], root, buf, len);
    } else {
        sc_frame_format_in(&cs->frames[i], root, buf, len);
    }
}

void sc_callsite_where(const sc_callsite *cs, char *buf, size_t len)
{
    sc_callsite_where_in(cs, NULL, buf, len);
}

/* v / unit with three decimals, rounded half up, without floating point
   (printf's %f follows LC_NUMERIC, which the host program may have set). */
static void fixed3(uint64_t v, uint64_t unit, const char *suffix, char *buf, size_t len)
{
    uint64_t d = unit / 1000;
    uint64_t q = v / d + ((v % d) >= d - d / 2);
    snprintf(buf, len, "%" PRIu64 ".%03u %s", q / 1000, (unsigned)(q % 1000), suffix);
}

void sc_format_time(double t, char *buf, size_t len)
{
    struct tm tm;
    time_t s = (time_t)(t > 0 && t < 1e12 ? t : 0);
    if (s <= 0 || !gmtime_r(&s, &tm)) {
        snprintf(buf, len, "unknown");
        return;
    }
    strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

void sc_format_driver(int v, char *buf, size_t len)
{
    if (v <= 0)
        snprintf(buf, len, "unknown");
    else
        snprintf(buf, len, "%d.%d", v / 1000, (v % 1000) / 10);
}

const char *sc_or_unknown(const char *s)
{
    return s && *s ? s : "unknown";
}

void sc_format_ns(uint64_t ns, char *buf, size_t len)
{
    if (ns < 1000)
        snprintf(buf, len, "%" PRIu64 " ns", ns);
    else if (ns < 1000000)
        fixed3(ns, 1000, "us", buf, len);
    else if (ns < 1000000000)
        fixed3(ns, 1000000, "ms", buf, len);
    else
        fixed3(ns, 1000000000, "s", buf, len);
}

void sc_format_bytes(uint64_t b, char *buf, size_t len)
{
    static const char *const unit[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (b < 1024) {
        snprintf(buf, len, "%" PRIu64 " B", b);
        return;
    }
    int u = 0;
    uint64_t div = 1024;
    while (u < 5 && b / div >= 1024) {
        div *= 1024;
        u++;
    }
    uint64_t whole = b / div, rem = b % div;
    /* rem < div <= 2^60, so rem * 10 does not overflow below EiB; above,
       scale down first. */
    uint64_t tenth = div > (UINT64_MAX / 10) ? (rem / (div / 10)) : (rem * 10 + div / 2) / div;
    if (tenth >= 10) {
        whole++;
        tenth = 0;
    }
    snprintf(buf, len, "%" PRIu64 ".%u %s", whole, (unsigned)tenth, unit[u]);
}

/* ------------------------------------------------------- output --- */

static void pct(uint64_t part, uint64_t whole, char *buf, size_t len)
{
    /* tenths of a percent, integer arithmetic: no locale */
    uint64_t t = whole ? (part * 1000 + whole / 2) / whole : 0;
    snprintf(buf, len, "%" PRIu64 ".%u%%", t / 10, (unsigned)(t % 10));
}

void sc_gpu_line(const sc_gpu *g, char *buf, size_t len)
{
    char span[32], busy[32], ov[32], idle[32], pb[32], po[32], pi[32], cc[32], kk[32];
    sc_format_ns(g->span_ns, span, sizeof span);
    sc_format_ns(g->busy_ns, busy, sizeof busy);
    sc_format_ns(g->overlap_ns, ov, sizeof ov);
    sc_format_ns(g->idle_ns, idle, sizeof idle);
    sc_format_ns(g->overlap_compute_copy_ns, cc, sizeof cc);
    sc_format_ns(g->overlap_compute_compute_ns, kk, sizeof kk);
    pct(g->busy_ns, g->span_ns, pb, sizeof pb);
    pct(g->overlap_ns, g->span_ns, po, sizeof po);
    pct(g->idle_ns, g->span_ns, pi, sizeof pi);
    int n = snprintf(buf, len, "GPU: span %s, busy %s (%s), overlap %s (%s; compute+copy %s, "
                     "compute+compute %s), idle %s (%s); %" PRIu64 " operations",
                     span, busy, pb, ov, po, cc, kk, idle, pi, g->ops);
    if (n > 0 && (size_t)n < len && g->ops_kept < g->ops)
        n += snprintf(buf + n, len - (size_t)n, " (the timeline keeps the first %" PRIu64 ")", g->ops_kept);
    if (n > 0 && (size_t)n < len && g->dropped)
        n += snprintf(buf + n, len - (size_t)n, "; CUPTI dropped %" PRIu64 " records: numbers are low",
                      g->dropped);
    if (n > 0 && (size_t)n < len && g->handed_over) {
        char at[32];
        sc_format_ns(g->handed_over_ns, at, sizeof at);
        snprintf(buf + n, len - (size_t)n, "; measured for the first %s of the run only: the program's own "
                 "profiler took CUPTI then", at);
    }
}

const char *sc_format_ext(sc_format fmt)
{
    switch (fmt) {
    case SC_FMT_TEXT: return "txt";
    case SC_FMT_JSON: return "json";
    case SC_FMT_SARIF: return "sarif";
    case SC_FMT_JUNIT: return "xml";
    case SC_FMT_TRACE: return "trace.json";
    case SC_FMT_HTML: return "html";
    }
    return NULL;
}

int sc_render(const sc_report *r, sc_format fmt, FILE *out, const sc_render_opts *o)
{
    static const sc_render_opts defaults;
    if (!o)
        o = &defaults;
    switch (fmt) {
    case SC_FMT_TEXT: return sc_render_text(r, out, o);
    case SC_FMT_JSON: return sc_render_json(r, out);
    case SC_FMT_SARIF: return sc_render_sarif_opts(r, out, o);
    case SC_FMT_JUNIT: return sc_render_junit_opts(r, out, o);
    case SC_FMT_TRACE: return sc_render_trace(r, out);
    case SC_FMT_HTML: return sc_render_html(r, out, o);
    }
    errno = EINVAL;
    return -1;
}

int sc_render_sarif(const sc_report *r, FILE *out)
{
    return sc_render_sarif_opts(r, out, NULL);
}

int sc_render_junit(const sc_report *r, FILE *out)
{
    return sc_render_junit_opts(r, out, NULL);
}

int sc_report_write_named(const sc_report *r, sc_format fmt, const sc_render_opts *o,
                          const char *dir, const char *name, char *path_out, size_t path_len)
{
    static unsigned long serial;
    const char *ext = sc_format_ext(fmt);
    char path[4096], tmp[4096];
    if (!ext || !dir || !*dir || !name || !*name || strchr(name, '/')) {
        errno = EINVAL;
        return -1;
    }
    int n = snprintf(path, sizeof path, "%s/%s.streamcheck.%s", dir, name, ext);
    /* The temporary file sits in the same directory, so rename(2) is
       atomic: a reader sees the old file or the whole new one. */
    int m = snprintf(tmp, sizeof tmp, "%s/.%s.streamcheck.%s.%ld.%lu.tmp", dir, name, ext,
                     (long)getpid(), __atomic_fetch_add(&serial, 1, __ATOMIC_RELAXED));
    if (n < 0 || m < 0 || (size_t)n >= sizeof path || (size_t)m >= sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    /* open(2) with 0666, not mkstemp's 0600: the umask decides, as for any
       file the program writes. */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0)
        return -1;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int e = errno;
        close(fd);
        unlink(tmp);
        errno = e;
        return -1;
    }
    int rc = sc_render(r, fmt, f, o);
    int e = errno;
    if (fflush(f) != 0 || ferror(f)) {
        rc = -1;
        e = errno ? errno : EIO;
    }
    if (fclose(f) != 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        rc = -1;
        e = errno;
    }
    if (rc != 0) {
        unlink(tmp);
        errno = e;
        return -1;
    }
    if (path_out && path_len)
        snprintf(path_out, path_len, "%s", path);
    return 0;
}

int sc_report_write_file(const sc_report *r, sc_format fmt, const char *dir,
                         const char *exe_base, long pid, char *path_out, size_t path_len)
{
    char name[1024];
    const char *base = exe_base && *exe_base ? sc_basename(exe_base) : "program";
    if (!*base || strchr(base, '/'))
        base = "program";
    if ((size_t)snprintf(name, sizeof name, "%s.%ld", base, pid) >= sizeof name) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return sc_report_write_named(r, fmt, NULL, dir, name, path_out, path_len);
}

int sc_read_file(const char *path, size_t max, char **out, size_t *outlen, char *err, size_t errlen)
{
    struct stat st;
    FILE *f = fopen(path, "rb");
    *out = NULL;
    *outlen = 0;
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        snprintf(err, errlen, "%s: is a directory", path);
        return -1;
    }
    /* Read to the end rather than trusting st_size: pipes and /proc files
       say 0.  One byte more than max tells "too large" from "exactly max". */
    size_t cap = S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size < max ? (size_t)st.st_size + 1 : 65536;
    size_t len = 0;
    char *buf = NULL;
    for (;;) {
        if (len == cap || !buf) {
            if (buf)
                cap = cap > max / 2 ? max + 1 : cap * 2;
            char *nb = realloc(buf, cap + 1);
            if (!nb) {
                free(buf);
                fclose(f);
                snprintf(err, errlen, "%s: out of memory", path);
                return -1;
            }
            buf = nb;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (len > max) {
            free(buf);
            fclose(f);
            snprintf(err, errlen, "%s: larger than %zu bytes", path, max);
            return -1;
        }
        if (n == 0) {
            if (ferror(f)) {
                int e = errno;
                free(buf);
                fclose(f);
                snprintf(err, errlen, "%s: read error: %s", path, strerror(e));
                return -1;
            }
            break;
        }
    }
    fclose(f);
    buf[len] = '\0';
    *out = buf;
    *outlen = len;
    return 0;
}
