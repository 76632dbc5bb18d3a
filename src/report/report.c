/* report.c: the report model's entries -- creating and freeing a report,
 * appending processes, findings, call sites, redirects and api counts,
 * copying and clearing an entry, looking a call site up -- and the calls
 * per api the renderers list. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "model.h"
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

/* The strings an object's list in fields.h names: duplicated (after
   *d = *s; every one is set, NULL when it failed, so a failed copy clears
   like any other) or freed. */
#define DUP_STRING(m) d->m = dup_ok(s->m, &ok);
#define DUP_VALUE(m)
#define FREE_STRING(m) free(o->m);
#define FREE_VALUE(m)
#define DUP_FIELD(OBJ, KEY, KIND, MEMBER, SINCE) SC_FK_APPLY(DUP_, KIND)(MEMBER)
#define FREE_FIELD(OBJ, KEY, KIND, MEMBER, SINCE) SC_FK_APPLY(FREE_, KIND)(MEMBER)
#define NO_HOOK(OBJ, KEY, SINCE)
#define STRINGS(OBJ, TYPE, LIST)                                            \
    static int dup_##OBJ##_strings(TYPE *d, const TYPE *s)                  \
    {                                                                       \
        int ok = 1;                                                         \
        LIST(DUP_FIELD, NO_HOOK)                                            \
        return ok;                                                          \
    }                                                                       \
    static void free_##OBJ##_strings(TYPE *o)                               \
    {                                                                       \
        LIST(FREE_FIELD, NO_HOOK)                                           \
    }
/* An array of such objects: a deep copy (*nd counts the entries that
   hold copies, so that it frees like any other; 0 without memory), and
   its free. */
#define ARRAY(OBJ, TYPE)                                                    \
    static int dup_##OBJ##_array(TYPE **d, size_t *nd, const TYPE *s, size_t n) \
    {                                                                       \
        int ok = 1;                                                         \
        *d = NULL;                                                          \
        *nd = 0;                                                            \
        if (n && !(*d = calloc(n, sizeof **d)))                             \
            return 0;                                                       \
        for (size_t i = 0; i < n; i++) {                                    \
            (*d)[i] = s[i];                                                 \
            ok &= dup_##OBJ##_strings(&(*d)[i], &s[i]);                     \
            *nd = i + 1;                                                    \
        }                                                                   \
        return ok;                                                          \
    }                                                                       \
    static void free_##OBJ##_array(TYPE *a, size_t n)                       \
    {                                                                       \
        for (size_t i = 0; i < n; i++)                                      \
            free_##OBJ##_strings(&a[i]);                                    \
        free(a);                                                            \
    }

STRINGS(process, sc_process, SC_PROCESS_FIELDS)
STRINGS(device, sc_device_info, SC_DEVICE_FIELDS)
STRINGS(finding, sc_finding, SC_FINDING_FIELDS)
STRINGS(callsite, sc_callsite, SC_CALLSITE_FIELDS)
STRINGS(frame, sc_frame, SC_FRAME_FIELDS)
STRINGS(pyframe, sc_pyframe, SC_PYFRAME_FIELDS)
STRINGS(redirect, sc_redirect, SC_REDIRECT_FIELDS)
ARRAY(device, sc_device_info)
ARRAY(frame, sc_frame)
ARRAY(pyframe, sc_pyframe)

void sc_process_clear(sc_process *p)
{
    free_process_strings(p);
    sc_gpu_free(p->gpu);
    p->gpu = NULL;
    free_device_array(p->devices, p->ndevices);
}

void sc_callsite_clear(sc_callsite *cs)
{
    free_callsite_strings(cs);
    free_frame_array(cs->frames, cs->nframes);
    free_pyframe_array(cs->py, cs->npy);
}

void sc_finding_clear(sc_finding *f)
{
    free_finding_strings(f);
}

void sc_frame_clear(sc_frame *f)
{
    free_frame_strings(f);
}

/* Not an object of the JSON report (counts are maps there): by hand. */
void sc_api_count_clear(sc_api_count *c)
{
    free(c->library);
    free(c->api);
}

void sc_redirect_clear(sc_redirect *rd)
{
    free_redirect_strings(rd);
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

int sc_process_copy(sc_process *d, const sc_process *s)
{
    *d = *s;
    int ok = dup_process_strings(d, s);
    d->gpu = NULL;
    if (s->gpu && !(d->gpu = sc_gpu_dup(s->gpu)))
        ok = 0;
    ok &= dup_device_array(&d->devices, &d->ndevices, s->devices, s->ndevices);
    if (!ok) {
        sc_process_clear(d);
        return -1;
    }
    return 0;
}

int sc_callsite_copy(sc_callsite *d, const sc_callsite *s)
{
    *d = *s;
    int ok = dup_callsite_strings(d, s);
    ok &= dup_frame_array(&d->frames, &d->nframes, s->frames, s->nframes);
    ok &= dup_pyframe_array(&d->py, &d->npy, s->py, s->npy);
    if (!ok) {
        sc_callsite_clear(d);
        return -1;
    }
    return 0;
}

int sc_finding_copy(sc_finding *d, const sc_finding *s)
{
    *d = *s;
    if (!dup_finding_strings(d, s)) {
        sc_finding_clear(d);
        return -1;
    }
    return 0;
}

int sc_api_count_copy(sc_api_count *d, const sc_api_count *s)
{
    int ok = 1;
    *d = *s;
    d->library = dup_ok(s->library, &ok);
    d->api = dup_ok(s->api, &ok);
    if (!ok) {
        sc_api_count_clear(d);
        return -1;
    }
    return 0;
}

int sc_redirect_copy(sc_redirect *d, const sc_redirect *s)
{
    *d = *s;
    if (!dup_redirect_strings(d, s)) {
        sc_redirect_clear(d);
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
        sc_process_clear(&r->procs[i]);
    free(r->procs);
    for (size_t i = 0; i < r->ncounts; i++)
        sc_api_count_clear(&r->counts[i]);
    free(r->counts);
    for (size_t i = 0; i < r->nfindings; i++)
        sc_finding_clear(&r->findings[i]);
    free(r->findings);
    for (size_t i = 0; i < r->ncallsites; i++)
        sc_callsite_clear(&r->callsites[i]);
    free(r->callsites);
    for (size_t i = 0; i < r->nredirects; i++)
        sc_redirect_clear(&r->redirects[i]);
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
int sc_grow(void *arrp, size_t n, size_t sz)
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
        if (sc_grow(&(r)->arr, (r)->n + 1, sizeof *(r)->arr) < 0)      \
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
    if (p) {
        p->rank = -1;
        p->submitted = -1;
    }
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
    if (sc_grow(&r->callsites, r->ncallsites + 1, sizeof *r->callsites) < 0)
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
    if (!ok || sc_grow(&r->counts, r->ncounts + 1, sizeof *r->counts) < 0) {
        sc_api_count_clear(&c);
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
    if (!ok || sc_grow(&cs->frames, cs->nframes + 1, sizeof *cs->frames) < 0) {
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
    if (!ok || sc_grow(&cs->py, cs->npy + 1, sizeof *cs->py) < 0) {
        free(f.file);
        free(f.function);
        return -1;
    }
    cs->py[cs->npy++] = f;
    return 0;
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

/* ------------------------------------------------------- api totals --- */

static int cmp_total(const void *pa, const void *pb)
{
    const sc_api_total *a = pa, *b = pb;
    int c = (b->calls > a->calls) - (b->calls < a->calls);
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
