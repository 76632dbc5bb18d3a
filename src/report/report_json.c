/* report_json.c: the versioned JSON report (schema in libstreamcheck(7)).
 *
 * Fields are written in a fixed order and every collection in a defined
 * order, so render -> read -> render gives the same bytes.  Each object's
 * members are its list in fields.h: a plain member is written by its kind
 * (put_KIND), a hook by write_OBJ_KEY below. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "json.h"
#include "report.h"

/* The writer's state: the JSON writer, and the index of the process being
   written (its "index" member). */
typedef struct wr {
    sc_jw *w;
    size_t index;
} wr;

/* ------------------------------------------------------------ kinds --- */

static void put_STR(wr *c, const char *key, char *const *v)
{
    sc_jw_key(c->w, key);
    sc_jw_string(c->w, *v);
}
#define put_STR_NULL put_STR
#define put_STR_NULL_OPT put_STR

static void put_STR_OPT(wr *c, const char *key, char *const *v)
{
    if (*v)
        put_STR(c, key, v);
}

static void put_ID(wr *c, const char *key, const char (*v)[17])
{
    sc_jw_key(c->w, key);
    sc_jw_string(c->w, **v ? *v : NULL);
}

/* A member of C type TYPE written with WRITE. */
#define PUT(KIND, TYPE, WRITE)                                              \
    static void put_##KIND(wr *c, const char *key, const TYPE *v)           \
    {                                                                       \
        sc_jw_key(c->w, key);                                               \
        WRITE(c->w, *v);                                                    \
    }
/* ... or null for a negative value. */
#define PUT_NULLABLE(KIND, TYPE)                                            \
    static void put_##KIND(wr *c, const char *key, const TYPE *v)           \
    {                                                                       \
        sc_jw_key(c->w, key);                                               \
        if (*v >= 0)                                                        \
            sc_jw_i64(c->w, *v);                                            \
        else                                                                \
            sc_jw_null(c->w);                                               \
    }
PUT(U64, uint64_t, sc_jw_u64)
PUT(U64_OPT, uint64_t, sc_jw_u64)

static void put_U64_NZ(wr *c, const char *key, const uint64_t *v)
{
    if (*v)
        put_U64_OPT(c, key, v);
}
PUT(U32, uint32_t, sc_jw_u64)
PUT(UINT, unsigned, sc_jw_u64)
PUT(PROCESS, unsigned, sc_jw_u64)
PUT(INT, int, sc_jw_i64)
PUT(NAT, int, sc_jw_i64)
PUT(LONG, long, sc_jw_i64)
PUT(BOOL, int, sc_jw_bool)
PUT_NULLABLE(INT_NULL, int)
PUT_NULLABLE(LONG_NULL, long)

static void put_LONG_OPT(wr *c, const char *key, const long *v)
{
    if (*v >= 0)
        put_LONG(c, key, v);
}

static void put_TIME(wr *c, const char *key, const double *v)
{
    sc_jw_key(c->w, key);
    sc_jw_micro(c->w, sc_seconds_to_micro(*v));
}

/* An object of a list of fields.h: its members in the list's order. */
#define W_FIELD(OBJ, KEY, KIND, MEMBER, SINCE) put_##KIND(c, #KEY, &o->MEMBER);
#define W_HOOK(OBJ, KEY, SINCE)                                             \
    sc_jw_key(c->w, #KEY);                                                  \
    write_##OBJ##_##KEY(c, o);
#define W_OBJECT(OBJ, TYPE, LIST)                                           \
    static void write_##OBJ(wr *c, const TYPE *o)                           \
    {                                                                       \
        sc_jw_begin_object(c->w);                                           \
        LIST(W_FIELD, W_HOOK)                                               \
        sc_jw_end_object(c->w);                                             \
    }

/* An array of the objects of list OBJ. */
#define W_ARRAY(OBJ, items, n)                                              \
    do {                                                                    \
        sc_jw_begin_array(c->w);                                            \
        for (size_t i_ = 0; i_ < (n); i_++)                                 \
            write_##OBJ(c, &(items)[i_]);                                   \
        sc_jw_end_array(c->w);                                              \
    } while (0)

/* ------------------------------------------------------------ hooks --- */

W_OBJECT(device, sc_device_info, SC_DEVICE_FIELDS)
W_OBJECT(gpu_device, sc_gpu_device, SC_GPU_DEVICE_FIELDS)
W_OBJECT(gpu_stream, sc_gpu_stream, SC_GPU_STREAM_FIELDS)

static void write_gpu_handed_over_ns(wr *c, const sc_gpu *g)
{
    if (g->handed_over)
        sc_jw_u64(c->w, g->handed_over_ns);
    else
        sc_jw_null(c->w);
}

/* Added later: null when the whole run was recorded. */
static void write_gpu_measure_window(wr *c, const sc_gpu *g)
{
    if (!g->windowed) {
        sc_jw_null(c->w);
        return;
    }
    sc_jw_begin_object(c->w);
    sc_jw_key(c->w, "start_ns");
    sc_jw_u64(c->w, g->window_start_ns);
    sc_jw_key(c->w, "end_ns");
    sc_jw_u64(c->w, g->window_end_ns);
    sc_jw_end_object(c->w);
}

static void write_gpu_devices(wr *c, const sc_gpu *g)
{
    W_ARRAY(gpu_device, g->devices, g->ndevices);
}

static void write_gpu_streams(wr *c, const sc_gpu *g)
{
    W_ARRAY(gpu_stream, g->streams, g->nstreams);
}

W_OBJECT(gpu, sc_gpu, SC_GPU_FIELDS)

static void write_process_index(wr *c, const sc_process *p)
{
    (void)p;
    sc_jw_u64(c->w, c->index);
}

/* process.gpu: null unless the process ran in measured mode. */
static void write_process_gpu(wr *c, const sc_process *p)
{
    if (p->gpu)
        write_gpu(c, p->gpu);
    else
        sc_jw_null(c->w);
}

static void write_process_devices(wr *c, const sc_process *p)
{
    W_ARRAY(device, p->devices, p->ndevices);
}

W_OBJECT(process, sc_process, SC_PROCESS_FIELDS)

static void write_finding_rule(wr *c, const sc_finding *f)
{
    sc_jw_string(c->w, sc_rules[f->rule].id);
}

static void write_finding_name(wr *c, const sc_finding *f)
{
    sc_jw_string(c->w, sc_rules[f->rule].name);
}

static void write_finding_severity(wr *c, const sc_finding *f)
{
    sc_jw_string(c->w, sc_severity_name(f->severity));
}

static void write_finding_cost_basis(wr *c, const sc_finding *f)
{
    sc_jw_string(c->w, sc_cost_basis_name(f->basis));
}

static void write_finding_also(wr *c, const sc_finding *f)
{
    sc_jw_begin_array(c->w);
    for (unsigned k = 0; k < SC_NRULES; k++)
        if (f->also & (1u << k))
            sc_jw_string(c->w, sc_rules[k].id);
    sc_jw_end_array(c->w);
}

static void write_finding_gpu_lost_ns(wr *c, const sc_finding *f)
{
    if (f->measured)
        sc_jw_u64(c->w, f->gpu_lost_ns);
    else
        sc_jw_null(c->w);
}

W_OBJECT(finding, sc_finding, SC_FINDING_FIELDS)

/* A string: JSON numbers above 2^53 lose bits in most readers. */
static void write_frame_offset(wr *c, const sc_frame *f)
{
    char off[24];
    snprintf(off, sizeof off, "0x%" PRIx64, f->offset);
    sc_jw_string(c->w, off);
}

W_OBJECT(frame, sc_frame, SC_FRAME_FIELDS)
W_OBJECT(pyframe, sc_pyframe, SC_PYFRAME_FIELDS)

static void write_callsite_id(wr *c, const sc_callsite *cs)
{
    sc_jw_string(c->w, cs->id);
}

/* Derived (sc_callsite_primary), for readers of the file: the index in
   frames of the frame the call site is shown at when it has no Python
   frame with a line. */
static void write_callsite_primary(wr *c, const sc_callsite *cs)
{
    long primary = sc_callsite_primary(cs);
    if (primary < 0)
        sc_jw_string(c->w, NULL);
    else
        sc_jw_u64(c->w, (uint64_t)primary);
}

/* Derived (sc_callsite_via): the index in python of the library frame
   that made the call, beside the program's frame the site is shown at. */
static void write_callsite_via(wr *c, const sc_callsite *cs)
{
    long via = sc_callsite_via(cs);
    if (via < 0)
        sc_jw_null(c->w);
    else
        sc_jw_u64(c->w, (uint64_t)via);
}

static void write_callsite_frames(wr *c, const sc_callsite *cs)
{
    W_ARRAY(frame, cs->frames, cs->nframes);
}

static void write_callsite_python(wr *c, const sc_callsite *cs)
{
    W_ARRAY(pyframe, cs->py, cs->npy);
}

W_OBJECT(callsite, sc_callsite, SC_CALLSITE_FIELDS)
W_OBJECT(redirect, sc_redirect, SC_REDIRECT_FIELDS)

/* ------------------------------------------------------------ counts --- */

static int cmp_row_key(const void *pa, const void *pb)
{
    const sc_api_count *a = *(const sc_api_count *const *)pa, *b = *(const sc_api_count *const *)pb;
    int c = strcmp(a->library, b->library);
    return c ? c : strcmp(a->api, b->api);
}

typedef struct lib_row {
    const char *library, *api;
    uint64_t calls;
} lib_row;

static int cmp_lib_row(const void *pa, const void *pb)
{
    const lib_row *a = pa, *b = pb;
    int c = strcmp(a->library, b->library);
    if (c)
        return c;
    if (a->calls != b->calls)
        return a->calls < b->calls ? 1 : -1;
    return strcmp(a->api, b->api);
}

/* library -> {api -> calls}: libraries by name, apis by calls descending.
   Rows of the same (library, api) are summed. */
static int write_by_library(sc_jw *w, const sc_report *r)
{
    const sc_api_count **p = malloc((r->ncounts ? r->ncounts : 1) * sizeof *p);
    lib_row *rows = malloc((r->ncounts ? r->ncounts : 1) * sizeof *rows);
    size_t n = 0;
    if (!p || !rows) {
        free(p);
        free(rows);
        return -1;
    }
    for (size_t i = 0; i < r->ncounts; i++)
        p[i] = &r->counts[i];
    qsort(p, r->ncounts, sizeof *p, cmp_row_key);
    for (size_t i = 0; i < r->ncounts; i++) {
        if (n && !strcmp(rows[n - 1].library, p[i]->library) && !strcmp(rows[n - 1].api, p[i]->api)) {
            rows[n - 1].calls += p[i]->calls;
            continue;
        }
        rows[n++] = (lib_row){p[i]->library, p[i]->api, p[i]->calls};
    }
    qsort(rows, n, sizeof *rows, cmp_lib_row);
    sc_jw_begin_object(w);
    for (size_t i = 0; i < n; i++) {
        if (!i || strcmp(rows[i - 1].library, rows[i].library)) {
            if (i)
                sc_jw_end_object(w);
            sc_jw_key(w, rows[i].library);
            sc_jw_begin_object(w);
        }
        sc_jw_key(w, rows[i].api);
        sc_jw_u64(w, rows[i].calls);
    }
    if (n)
        sc_jw_end_object(w);
    sc_jw_end_object(w);
    free(p);
    free(rows);
    return 0;
}

/* summary: derived, for readers of the file (the reader recomputes it). */
static void write_summary(wr *c, const sc_report *r)
{
    uint64_t e, w, n;
    sc_report_totals(r, &e, &w, &n);
    sc_jw_begin_object(c->w);
    sc_jw_key(c->w, "findings");
    sc_jw_u64(c->w, r->nfindings);
    sc_jw_key(c->w, "errors");
    sc_jw_u64(c->w, e);
    sc_jw_key(c->w, "warnings");
    sc_jw_u64(c->w, w);
    sc_jw_key(c->w, "notes");
    sc_jw_u64(c->w, n);
    sc_jw_end_object(c->w);
}

/* api_counts: calls per api over all libraries (derived as well). */
static int write_api_counts(wr *c, const sc_report *r)
{
    size_t ntot;
    sc_api_total *tot = sc_api_totals(r, &ntot);
    if (!tot)
        return -1;
    sc_jw_begin_object(c->w);
    for (size_t i = 0; i < ntot; i++) {
        sc_jw_key(c->w, tot[i].api);
        sc_jw_u64(c->w, tot[i].calls);
    }
    sc_jw_end_object(c->w);
    free(tot);
    return 0;
}

int sc_render_json(const sc_report *r, FILE *out, const sc_render_opts *o)
{
    (void)o; /* the JSON report is the whole model: nothing to choose */
    sc_jw w;
    wr state = {&w, 0}, *c = &state;
    sc_jw_init(&w, out);
    sc_jw_begin_object(&w);
    sc_jw_key(&w, "schema_version");
    sc_jw_u64(&w, SC_SCHEMA_VERSION);
    sc_jw_key(&w, "tool");
    sc_jw_begin_object(&w);
    sc_jw_key(&w, "name");
    sc_jw_string(&w, "streamcheck");
    sc_jw_key(&w, "version");
    sc_jw_string(&w, r->tool_version);
    sc_jw_end_object(&w);
    sc_jw_key(&w, "summary");
    write_summary(c, r);
    if (r->nprocs == 1) {
        sc_jw_key(&w, "process");
        write_process(c, &r->procs[0]);
    }
    sc_jw_key(&w, "processes");
    sc_jw_begin_array(&w);
    for (c->index = 0; c->index < r->nprocs; c->index++)
        write_process(c, &r->procs[c->index]);
    sc_jw_end_array(&w);
    sc_jw_key(&w, "findings");
    W_ARRAY(finding, r->findings, r->nfindings);
    sc_jw_key(&w, "callsites");
    W_ARRAY(callsite, r->callsites, r->ncallsites);
    sc_jw_key(&w, "redirects");
    W_ARRAY(redirect, r->redirects, r->nredirects);
    sc_jw_key(&w, "api_counts");
    if (write_api_counts(c, r) < 0)
        return -1;
    sc_jw_key(&w, "api_counts_by_library");
    if (write_by_library(&w, r) < 0)
        return -1;
    sc_jw_end_object(&w);
    return sc_jw_finish(&w);
}
