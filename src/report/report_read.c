/* report_read.c: reads a JSON report back into the model.
 *
 * Reports come from other machines and other versions, so the reader is
 * strict about what it uses -- every field of its schema version (1, 2 or 3)
 * must be there with its type -- and quiet about what it does not: unknown members
 * are ignored (adding fields does not bump the version), and the derived
 * members (summary, api_counts, process) are type-checked and recomputed.
 * Each object's members are its list in fields.h, read in the order the
 * writer writes them: a plain member by its kind (get_KIND), a hook by
 * read_OBJ_KEY below.  Every error is one line: "FILE: where: what". */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "json.h"
#include "report.h"

typedef struct ctx {
    uint64_t version;   /* the report's schema_version */
    size_t nprocs;      /* its processes, once read (PROCESS members index them) */
    const char *name;
    char *err;
    size_t errlen;
    int failed;
} ctx;

__attribute__((format(printf, 3, 4)))
static int bad(ctx *c, const char *where, const char *fmt, ...)
{
    if (c->failed)
        return -1;
    c->failed = 1;
    if (!c->err || !c->errlen)
        return -1;
    int n = snprintf(c->err, c->errlen, "%s: %s%s", c->name, where ? where : "", where ? ": " : "");
    if (n >= 0 && (size_t)n < c->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    sc_one_line(c->err);
    return -1;
}

static int nomem(ctx *c)
{
    return bad(c, NULL, "out of memory");
}

/* "what was found", for messages: the type, or the number as written. */
static const char *found(const sc_json *v, char *buf, size_t len)
{
    if (v->type == SC_JSON_NUMBER) {
        snprintf(buf, len, "%s", v->s);
        return buf;
    }
    return sc_json_type_desc(v->type);
}

typedef struct where {
    char s[160];
} where;

__attribute__((format(printf, 2, 3)))
static void at(where *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->s, sizeof w->s, fmt, ap);
    va_end(ap);
}

static const sc_json *member(ctx *c, const sc_json *obj, const char *path, const char *key)
{
    const sc_json *v = sc_json_get(obj, key);
    char p[200];
    if (!v) {
        snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", key);
        bad(c, p, "missing");
    }
    return v;
}

static void path_of(char *p, size_t len, const char *path, const char *key)
{
    snprintf(p, len, "%s%s%s", path, *path ? "." : "", key);
}

static int get_u64(ctx *c, const sc_json *obj, const char *path, const char *key, uint64_t *out)
{
    char p[200], b[80];
    const sc_json *v = member(c, obj, path, key);
    if (!v)
        return -1;
    if (sc_json_u64(v, out) < 0) {
        path_of(p, sizeof p, path, key);
        return bad(c, p, "expected a non-negative integer below 2^64, found %s", found(v, b, sizeof b));
    }
    return 0;
}

static int get_int(ctx *c, const sc_json *obj, const char *path, const char *key, int64_t min,
                   int64_t max, int64_t *out)
{
    char p[200], b[80];
    const sc_json *v = member(c, obj, path, key);
    if (!v)
        return -1;
    if (sc_json_i64(v, out) < 0 || *out < min || *out > max) {
        path_of(p, sizeof p, path, key);
        return bad(c, p, "expected an integer from %" PRId64 " to %" PRId64 ", found %s", min, max,
                   found(v, b, sizeof b));
    }
    return 0;
}

/* A string (copied into *out) or, when nullable, null (*out = NULL). */
static int get_str(ctx *c, const sc_json *obj, const char *path, const char *key, int nullable,
                   char **out)
{
    char p[200], b[80];
    const sc_json *v = member(c, obj, path, key);
    *out = NULL;
    if (!v)
        return -1;
    if (v->type == SC_JSON_NULL && nullable)
        return 0;
    path_of(p, sizeof p, path, key);
    if (v->type != SC_JSON_STRING)
        return bad(c, p, "expected %s, found %s", nullable ? "a string or null" : "a string",
                   found(v, b, sizeof b));
    if (strlen(v->s) != v->len)
        return bad(c, p, "string contains a NUL character");
    if (!(*out = strdup(v->s)))
        return nomem(c);
    return 0;
}

static int is_callsite_id(const char *s)
{
    size_t n = 0;
    for (; s[n]; n++)
        if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
            return 0;
    return n == 16;
}

/* A call-site id or null (""). */
static int get_id(ctx *c, const sc_json *obj, const char *path, const char *key, char out[17])
{
    char *s, p[200];
    out[0] = '\0';
    if (get_str(c, obj, path, key, 1, &s) < 0)
        return -1;
    if (!s)
        return 0;
    if (!is_callsite_id(s)) {
        path_of(p, sizeof p, path, key);
        bad(c, p, "\"%.40s\" is not a call-site id (16 lowercase hex digits)", s);
        free(s);
        return -1;
    }
    memcpy(out, s, 17);
    free(s);
    return 0;
}

/* An optional integer member added after schema 2 (adding is free): absent
   or null gives def. */
static int get_opt_int(ctx *c, const sc_json *obj, const char *path, const char *key, int64_t min,
                       int64_t max, int64_t def, int64_t *out)
{
    const sc_json *v = sc_json_get(obj, key);
    *out = def;
    if (!v || v->type == SC_JSON_NULL)
        return 0;
    return get_int(c, obj, path, key, min, max, out);
}

static const sc_json *get_typed(ctx *c, const sc_json *obj, const char *path, const char *key,
                                sc_json_type t)
{
    char p[200], b[80];
    const sc_json *v = member(c, obj, path, key);
    if (!v)
        return NULL;
    if (v->type != t) {
        path_of(p, sizeof p, path, key);
        bad(c, p, "expected %s, found %s", sc_json_type_desc(t), found(v, b, sizeof b));
        return NULL;
    }
    return v;
}

static int expect_object(ctx *c, const sc_json *v, const char *path)
{
    char b[80];
    if (v->type != SC_JSON_OBJECT)
        return bad(c, path, "expected an object, found %s", found(v, b, sizeof b));
    return 0;
}

/* ------------------------------------------------------------ kinds --- */

static int get_STR(ctx *c, const sc_json *o, const char *path, const char *key, char **out)
{
    return get_str(c, o, path, key, 0, out);
}

static int get_STR_NULL(ctx *c, const sc_json *o, const char *path, const char *key, char **out)
{
    return get_str(c, o, path, key, 1, out);
}

static int get_STR_OPT(ctx *c, const sc_json *o, const char *path, const char *key, char **out)
{
    *out = NULL;
    return sc_json_get(o, key) ? get_str(c, o, path, key, 1, out) : 0;
}

static int get_STR_NULL_OPT(ctx *c, const sc_json *o, const char *path, const char *key, char **out)
{
    return get_STR_OPT(c, o, path, key, out);
}

static int get_ID(ctx *c, const sc_json *o, const char *path, const char *key, char (*out)[17])
{
    return get_id(c, o, path, key, *out);
}

#define get_U64 get_u64

static int get_U64_OPT(ctx *c, const sc_json *o, const char *path, const char *key, uint64_t *out)
{
    return sc_json_get(o, key) ? get_u64(c, o, path, key, out) : 0;
}
#define get_U64_NZ get_U64_OPT

/* A non-negative integer up to max. */
static int get_u64_to(ctx *c, const sc_json *o, const char *path, const char *key, uint64_t max, uint64_t *out)
{
    char p[200];
    if (get_u64(c, o, path, key, out) < 0)
        return -1;
    if (*out > max) {
        path_of(p, sizeof p, path, key);
        return bad(c, p, "%s %" PRIu64 " is out of range", key, *out);
    }
    return 0;
}

/* A member read as an integer from MIN to MAX into a TYPE. */
#define GET_INTEGER(KIND, TYPE, MIN, MAX)                                   \
    static int get_##KIND(ctx *c, const sc_json *o, const char *path, const char *key, TYPE *out) \
    {                                                                       \
        int64_t v;                                                          \
        if (get_int(c, o, path, key, MIN, MAX, &v) < 0)                     \
            return -1;                                                      \
        *out = (TYPE)v;                                                     \
        return 0;                                                           \
    }
/* ... from 0 to MAX, or null (or absent) for -1. */
#define GET_NULLABLE(KIND, TYPE, MAX)                                       \
    static int get_##KIND(ctx *c, const sc_json *o, const char *path, const char *key, TYPE *out) \
    {                                                                       \
        int64_t v;                                                          \
        if (get_opt_int(c, o, path, key, 0, MAX, -1, &v) < 0)               \
            return -1;                                                      \
        *out = (TYPE)v;                                                     \
        return 0;                                                           \
    }
/* ... as a non-negative integer up to MAX (larger: "KEY N is out of
   range"). */
#define GET_UNSIGNED(KIND, TYPE, MAX)                                       \
    static int get_##KIND(ctx *c, const sc_json *o, const char *path, const char *key, TYPE *out) \
    {                                                                       \
        uint64_t v;                                                         \
        if (get_u64_to(c, o, path, key, MAX, &v) < 0)                       \
            return -1;                                                      \
        *out = (TYPE)v;                                                     \
        return 0;                                                           \
    }
GET_INTEGER(INT, int, INT_MIN, INT_MAX)
GET_INTEGER(NAT, int, 0, INT_MAX)
GET_INTEGER(LONG, long, LONG_MIN, LONG_MAX)
GET_NULLABLE(INT_NULL, int, INT_MAX)
GET_NULLABLE(LONG_NULL, long, LONG_MAX)
#define get_LONG_OPT get_LONG_NULL
GET_UNSIGNED(U32, uint32_t, UINT32_MAX)
GET_UNSIGNED(UINT, unsigned, UINT_MAX)

static int get_PROCESS(ctx *c, const sc_json *o, const char *path, const char *key, unsigned *out)
{
    char p[200];
    uint64_t v;
    if (get_u64(c, o, path, key, &v) < 0)
        return -1;
    if (v >= c->nprocs) {
        path_of(p, sizeof p, path, key);
        return bad(c, p, "process %" PRIu64 " does not exist (the report has %zu)", v, c->nprocs);
    }
    *out = (unsigned)v;
    return 0;
}

static int get_BOOL(ctx *c, const sc_json *o, const char *path, const char *key, int *out)
{
    char p[200], b[80];
    const sc_json *v = member(c, o, path, key);
    if (!v)
        return -1;
    if (v->type != SC_JSON_TRUE && v->type != SC_JSON_FALSE) {
        path_of(p, sizeof p, path, key);
        return bad(c, p, "expected a boolean, found %s", found(v, b, sizeof b));
    }
    *out = v->type == SC_JSON_TRUE;
    return 0;
}

static int get_TIME(ctx *c, const sc_json *o, const char *path, const char *key, double *out)
{
    char p[200], b[80];
    const sc_json *v = member(c, o, path, key);
    int64_t us;
    if (!v)
        return -1;
    path_of(p, sizeof p, path, key);
    if (sc_json_micro(v, &us) < 0)
        return bad(c, p, "expected seconds as a decimal number, found %s", found(v, b, sizeof b));
    /* Beyond 2^53 microseconds (the year 2255) a double no longer holds
       every microsecond, and the report would not read back the same. */
    if (us < 0 || us >= (int64_t)1 << 53)
        return bad(c, p, "%s is not a time in seconds since the epoch", v->s);
    *out = (double)us / 1e6;
    return 0;
}

/* An object of a list of fields.h at path: its members from the schema
   version that added them, each checked as its kind or hook says. */
#define R_FIELD(OBJ, KEY, KIND, MEMBER, SINCE)                              \
    if (c->version >= SINCE && get_##KIND(c, v, path, #KEY, &o->MEMBER) < 0) \
        return -1;
#define R_HOOK(OBJ, KEY, SINCE)                                             \
    if (c->version >= SINCE && read_##OBJ##_##KEY(c, v, path, o) < 0)       \
        return -1;
#define R_OBJECT(OBJ, TYPE, LIST)                                           \
    static int read_##OBJ(ctx *c, const sc_json *v, const char *path, TYPE *o) \
    {                                                                       \
        if (expect_object(c, v, path) < 0)                                  \
            return -1;                                                      \
        LIST(R_FIELD, R_HOOK)                                               \
        return 0;                                                           \
    }
/* Array KEY of v into *items (allocated), an object of list OBJ each; *n
   counts the elements begun, so that a failure frees what they got. */
#define R_ARRAY(OBJ, TYPE)                                                  \
    static int read_##OBJ##_array(ctx *c, const sc_json *v, const char *path, const char *key, \
                                  TYPE **items, size_t *n)                  \
    {                                                                       \
        const sc_json *a = get_typed(c, v, path, key, SC_JSON_ARRAY);       \
        where w;                                                            \
        if (!a)                                                             \
            return -1;                                                      \
        if (a->len && !(*items = calloc(a->len, sizeof **items)))           \
            return nomem(c);                                                \
        for (size_t i = 0; i < a->len; i++) {                               \
            at(&w, "%s.%s[%zu]", path, key, i);                             \
            *n = i + 1;                                                     \
            if (read_##OBJ(c, &a->items[i], w.s, &(*items)[i]) < 0)         \
                return -1;                                                  \
        }                                                                   \
        return 0;                                                           \
    }

/* ------------------------------------------------------------ hooks --- */

R_OBJECT(device, sc_device_info, SC_DEVICE_FIELDS)
R_OBJECT(gpu_device, sc_gpu_device, SC_GPU_DEVICE_FIELDS)
R_OBJECT(gpu_stream, sc_gpu_stream, SC_GPU_STREAM_FIELDS)
R_ARRAY(gpu_device, sc_gpu_device)
R_ARRAY(gpu_stream, sc_gpu_stream)

/* Added later, optional: null or absent when measured to the end. */
static int read_gpu_handed_over_ns(ctx *c, const sc_json *v, const char *path, sc_gpu *g)
{
    int64_t handed;
    if (get_opt_int(c, v, path, "handed_over_ns", 0, INT64_MAX, -1, &handed) < 0)
        return -1;
    g->handed_over = handed >= 0;
    g->handed_over_ns = handed >= 0 ? (uint64_t)handed : 0;
    return 0;
}

/* Added later, optional: null or absent when the whole run was recorded. */
static int read_gpu_measure_window(ctx *c, const sc_json *v, const char *path, sc_gpu *g)
{
    const sc_json *w = sc_json_get(v, "measure_window");
    where wp;
    if (!w || w->type == SC_JSON_NULL)
        return 0;
    if (!(w = get_typed(c, v, path, "measure_window", SC_JSON_OBJECT)))
        return -1;
    at(&wp, "%s.measure_window", path);
    if (get_u64(c, w, wp.s, "start_ns", &g->window_start_ns) < 0 ||
        get_u64(c, w, wp.s, "end_ns", &g->window_end_ns) < 0)
        return -1;
    if (g->window_end_ns < g->window_start_ns)
        return bad(c, wp.s, "end_ns %" PRIu64 " is before start_ns %" PRIu64, g->window_end_ns,
                   g->window_start_ns);
    g->windowed = 1;
    return 0;
}

static int read_gpu_devices(ctx *c, const sc_json *v, const char *path, sc_gpu *g)
{
    return read_gpu_device_array(c, v, path, "devices", &g->devices, &g->ndevices);
}

static int read_gpu_streams(ctx *c, const sc_json *v, const char *path, sc_gpu *g)
{
    return read_gpu_stream_array(c, v, path, "streams", &g->streams, &g->nstreams);
}

R_OBJECT(gpu, sc_gpu, SC_GPU_FIELDS)

/* Written as the process's place in the array; checked, not kept. */
static int read_process_index(ctx *c, const sc_json *v, const char *path, sc_process *p)
{
    int64_t i;
    (void)p;
    return sc_json_get(v, "index") ? get_int(c, v, path, "index", 0, INT64_MAX, &i) : 0;
}

/* process.gpu (version 3): null, or the measured GPU block. */
static int read_process_gpu(ctx *c, const sc_json *v, const char *path, sc_process *p)
{
    const sc_json *g = member(c, v, path, "gpu");
    char gp[200];
    if (!g)
        return -1;
    if (g->type == SC_JSON_NULL)
        return 0;
    path_of(gp, sizeof gp, path, "gpu");
    if (g->type != SC_JSON_OBJECT)
        return bad(c, gp, "expected an object or null, found %s", sc_json_type_desc(g->type));
    if (!(p->gpu = calloc(1, sizeof *p->gpu)))
        return nomem(c);
    return read_gpu(c, g, gp, p->gpu);
}

/* Added later, optional: the devices the process used, each once. */
static int read_process_devices(ctx *c, const sc_json *v, const char *path, sc_process *p)
{
    const sc_json *devs = sc_json_get(v, "devices");
    char dp[200];
    if (!devs || devs->type == SC_JSON_NULL)
        return 0;
    path_of(dp, sizeof dp, path, "devices");
    if (!(devs = get_typed(c, v, path, "devices", SC_JSON_ARRAY)))
        return -1;
    for (size_t k = 0; k < devs->len; k++) {
        where w;
        sc_device_info d = {0, NULL};
        at(&w, "%s[%zu]", dp, k);
        if (read_device(c, &devs->items[k], w.s, &d) < 0) {
            free(d.name);
            return -1;
        }
        int twice = 0;
        for (size_t j = 0; j < p->ndevices; j++)
            twice |= p->devices[j].ordinal == d.ordinal;
        int rc = twice ? bad(c, w.s, "device %d appears twice", d.ordinal)
                       : sc_process_add_device(p, d.ordinal, d.name) < 0 ? nomem(c) : 0;
        free(d.name);
        if (rc < 0)
            return -1;
    }
    return 0;
}

R_OBJECT(process, sc_process, SC_PROCESS_FIELDS)

static int read_finding_rule(ctx *c, const sc_json *v, const char *path, sc_finding *f)
{
    char *s, p[200];
    if (get_str(c, v, path, "rule", 0, &s) < 0)
        return -1;
    int rule = sc_rule_lookup(s);
    if (rule < 0 || strcmp(s, sc_rules[rule].id)) {
        path_of(p, sizeof p, path, "rule");
        bad(c, p, "unknown rule \"%.40s\" (this streamcheck knows %s to %s)", s, sc_rules[0].id,
            sc_rules[SC_NRULES - 1].id);
        free(s);
        return -1;
    }
    free(s);
    f->rule = (sc_rule_id)rule;
    return 0;
}

static int read_finding_name(ctx *c, const sc_json *v, const char *path, sc_finding *f)
{
    char *s, p[200];
    if (get_str(c, v, path, "name", 0, &s) < 0)
        return -1;
    int rc = 0;
    if (strcmp(s, sc_rules[f->rule].name)) {
        path_of(p, sizeof p, path, "name");
        rc = bad(c, p, "\"%.40s\" is not the name of %s (%s)", s, sc_rules[f->rule].id, sc_rules[f->rule].name);
    }
    free(s);
    return rc;
}

static int read_finding_severity(ctx *c, const sc_json *v, const char *path, sc_finding *f)
{
    char *s, p[200];
    if (get_str(c, v, path, "severity", 0, &s) < 0)
        return -1;
    int rc = 0;
    if (sc_severity_parse(s, &f->severity) < 0) {
        path_of(p, sizeof p, path, "severity");
        rc = bad(c, p, "\"%.40s\" is not error, warning or note", s);
    }
    free(s);
    return rc;
}

static int read_finding_cost_basis(ctx *c, const sc_json *v, const char *path, sc_finding *f)
{
    char *s, p[200];
    if (get_str(c, v, path, "cost_basis", 0, &s) < 0)
        return -1;
    int rc = 0;
    if (sc_cost_basis_parse(s, &f->basis) < 0) {
        path_of(p, sizeof p, path, "cost_basis");
        rc = bad(c, p, "\"%.40s\" is not a cost basis", s);
    }
    free(s);
    return rc;
}

static int read_finding_also(ctx *c, const sc_json *v, const char *path, sc_finding *f)
{
    char p[200];
    const sc_json *also = get_typed(c, v, path, "also", SC_JSON_ARRAY);
    if (!also)
        return -1;
    for (size_t i = 0; i < also->len; i++) {
        const sc_json *a = &also->items[i];
        int ar = a->type == SC_JSON_STRING ? sc_rule_lookup(a->s) : -1;
        if (ar < 0 || strcmp(a->s, sc_rules[ar].id)) {
            path_of(p, sizeof p, path, "also");
            return bad(c, p, "item %zu is not a rule id", i);
        }
        f->also |= 1u << ar;
    }
    return 0;
}

/* Version 3: null when the finding was not measured. */
static int read_finding_gpu_lost_ns(ctx *c, const sc_json *v, const char *path, sc_finding *f)
{
    const sc_json *g = member(c, v, path, "gpu_lost_ns");
    if (!g)
        return -1;
    if (g->type == SC_JSON_NULL)
        return 0;
    if (get_u64(c, v, path, "gpu_lost_ns", &f->gpu_lost_ns) < 0)
        return -1;
    f->measured = 1;
    return 0;
}

R_OBJECT(finding, sc_finding, SC_FINDING_FIELDS)

static int parse_offset(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    size_t n = 0;
    if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
        return -1;
    for (s += 2; *s; s++, n++) {
        int d;
        if (*s >= '0' && *s <= '9')
            d = *s - '0';
        else if (*s >= 'a' && *s <= 'f')
            d = *s - 'a' + 10;
        else if (*s >= 'A' && *s <= 'F')
            d = *s - 'A' + 10;
        else
            return -1;
        if (v >> 60)
            return -1;
        v = v << 4 | (uint64_t)d;
    }
    if (!n)
        return -1;
    *out = v;
    return 0;
}

static int read_frame_offset(ctx *c, const sc_json *v, const char *path, sc_frame *f)
{
    char *off, p[200];
    if (get_str(c, v, path, "offset", 0, &off) < 0)
        return -1;
    int rc = 0;
    if (parse_offset(off, &f->offset) < 0) {
        path_of(p, sizeof p, path, "offset");
        rc = bad(c, p, "\"%.40s\" is not a hex offset such as \"0x1a2b\"", off);
    }
    free(off);
    return rc;
}

R_OBJECT(frame, sc_frame, SC_FRAME_FIELDS)
R_OBJECT(pyframe, sc_pyframe, SC_PYFRAME_FIELDS)
R_ARRAY(frame, sc_frame)
R_ARRAY(pyframe, sc_pyframe)

static int read_callsite_id(ctx *c, const sc_json *v, const char *path, sc_callsite *cs)
{
    char p[200];
    if (get_id(c, v, path, "id", cs->id) < 0)
        return -1;
    if (!cs->id[0]) {
        path_of(p, sizeof p, path, "id");
        return bad(c, p, "expected a call-site id, found null");
    }
    return 0;
}

/* Derived from the frames: not read. */
static int read_callsite_primary(ctx *c, const sc_json *v, const char *path, sc_callsite *cs)
{
    (void)c, (void)v, (void)path, (void)cs;
    return 0;
}
#define read_callsite_via read_callsite_primary

static int read_callsite_frames(ctx *c, const sc_json *v, const char *path, sc_callsite *cs)
{
    return read_frame_array(c, v, path, "frames", &cs->frames, &cs->nframes);
}

static int read_callsite_python(ctx *c, const sc_json *v, const char *path, sc_callsite *cs)
{
    return read_pyframe_array(c, v, path, "python", &cs->py, &cs->npy);
}

R_OBJECT(callsite, sc_callsite, SC_CALLSITE_FIELDS)
R_OBJECT(redirect, sc_redirect, SC_REDIRECT_FIELDS)

/* Derived members: checked for shape only; the model recomputes them. */
static int check_derived(ctx *c, const sc_json *root)
{
    const sc_json *v;
    where w;
    char b[80];
    uint64_t u;
    if ((v = sc_json_get(root, "summary"))) {
        if (expect_object(c, v, "summary") < 0)
            return -1;
        static const char *const keys[] = {"findings", "errors", "warnings", "notes"};
        for (size_t i = 0; i < 4; i++)
            if (get_u64(c, v, "summary", keys[i], &u) < 0)
                return -1;
    }
    if ((v = sc_json_get(root, "api_counts"))) {
        if (expect_object(c, v, "api_counts") < 0)
            return -1;
        for (size_t i = 0; i < v->len; i++)
            if (sc_json_u64(&v->members[i].value, &u) < 0) {
                at(&w, "api_counts.%.100s", v->members[i].key);
                return bad(c, w.s, "expected a non-negative integer, found %s",
                           found(&v->members[i].value, b, sizeof b));
            }
    }
    if ((v = sc_json_get(root, "process")) && expect_object(c, v, "process") < 0)
        return -1;
    return 0;
}

static int read_counts(ctx *c, const sc_json *root, sc_report *r)
{
    const sc_json *bl = get_typed(c, root, "", "api_counts_by_library", SC_JSON_OBJECT);
    where w;
    char b[80];
    if (!bl)
        return -1;
    for (size_t i = 0; i < bl->len; i++) {
        const sc_json_member *lib = &bl->members[i];
        at(&w, "api_counts_by_library.%.100s", lib->key);
        if (expect_object(c, &lib->value, w.s) < 0)
            return -1;
        if (strlen(lib->key) != lib->keylen)
            return bad(c, w.s, "library name contains a NUL character");
        for (size_t j = 0; j < lib->value.len; j++) {
            const sc_json_member *api = &lib->value.members[j];
            uint64_t calls;
            if (sc_json_u64(&api->value, &calls) < 0 || strlen(api->key) != api->keylen) {
                at(&w, "api_counts_by_library.%.60s.%.60s", lib->key, api->key);
                return bad(c, w.s, "expected a non-negative integer, found %s", found(&api->value, b, sizeof b));
            }
            if (sc_report_add_count(r, lib->key, api->key, calls, 0) < 0)
                return nomem(c);
        }
    }
    return 0;
}

/* ------------------------------------------------------------ entry --- */

/* schema_version, tool and the derived members. */
static int read_head(ctx *c, const sc_json *root, sc_report *r)
{
    const sc_json *v;
    uint64_t ver;
    char b[80];
    if (root->type != SC_JSON_OBJECT)
        return bad(c, NULL, "not a streamcheck report: the JSON value is %s, not an object",
                   sc_json_type_desc(root->type));
    if (!(v = sc_json_get(root, "schema_version")))
        return bad(c, NULL, "no schema_version member: not a streamcheck JSON report");
    if (sc_json_u64(v, &ver) < 0)
        return bad(c, "schema_version", "expected an integer, found %s", found(v, b, sizeof b));
    c->version = ver;
    if (ver != SC_SCHEMA_VERSION && ver != 2 && ver != 1)
        return bad(c, NULL, "schema_version %" PRIu64 " is not supported (this streamcheck reads version %d)%s",
                   ver, SC_SCHEMA_VERSION, ver > SC_SCHEMA_VERSION ? "; use a newer streamcheck" : "");

    if (!(v = get_typed(c, root, "", "tool", SC_JSON_OBJECT)))
        return -1;
    char *name = NULL;
    if (get_str(c, v, "tool", "name", 0, &name) < 0)
        return -1;
    free(name);
    if (get_str(c, v, "tool", "version", 1, &r->tool_version) < 0)
        return -1;
    return check_derived(c, root);
}

static int read_processes(ctx *c, const sc_json *root, sc_report *r)
{
    const sc_json *arr = get_typed(c, root, "", "processes", SC_JSON_ARRAY);
    where w;
    if (!arr)
        return -1;
    if (arr->len > UINT_MAX)
        return bad(c, "processes", "too many processes");
    for (size_t i = 0; i < arr->len; i++) {
        sc_process *p = sc_report_add_process(r);
        if (!p)
            return nomem(c);
        at(&w, "processes[%zu]", i);
        if (read_process(c, &arr->items[i], w.s, p) < 0)
            return -1;
    }
    c->nprocs = r->nprocs;
    return 0;
}

/* The call sites, each id once (m maps them for the references). */
static int read_callsites(ctx *c, const sc_json *root, sc_report *r, sc_idmap *m)
{
    const sc_json *arr = get_typed(c, root, "", "callsites", SC_JSON_ARRAY);
    where w;
    if (!arr)
        return -1;
    if (arr->len && !(r->callsites = calloc(arr->len, sizeof *r->callsites)))
        return nomem(c);
    for (size_t i = 0; i < arr->len; i++) {
        at(&w, "callsites[%zu]", i);
        r->ncallsites = i + 1;
        if (read_callsite(c, &arr->items[i], w.s, &r->callsites[i]) < 0)
            return -1;
    }
    if (sc_idmap_init(m, r->ncallsites) < 0)
        return nomem(c);
    for (size_t i = 0; i < r->ncallsites; i++)
        if (sc_idmap_add(m, r->callsites, i) < 0) {
            at(&w, "callsites[%zu].id", i);
            return bad(c, w.s, "call site %s appears twice", r->callsites[i].id);
        }
    return 0;
}

/* A reference to a call site (entry i of key) that callsites lacks. */
static int check_ref(ctx *c, const sc_report *r, const sc_idmap *m, const char *key, size_t i, const char *id)
{
    where w;
    if (!*id || sc_idmap_find(m, r->callsites, id) >= 0)
        return 0;
    at(&w, "%s[%zu].callsite", key, i);
    return bad(c, w.s, "call site %s is not in callsites", id);
}

static int read_findings(ctx *c, const sc_json *root, sc_report *r, const sc_idmap *m)
{
    const sc_json *arr = get_typed(c, root, "", "findings", SC_JSON_ARRAY);
    where w;
    if (!arr)
        return -1;
    for (size_t i = 0; i < arr->len; i++) {
        sc_finding *f = sc_report_add_finding(r);
        if (!f)
            return nomem(c);
        at(&w, "findings[%zu]", i);
        if (read_finding(c, &arr->items[i], w.s, f) < 0 || check_ref(c, r, m, "findings", i, f->callsite) < 0)
            return -1;
        if (c->version < 2) {
            /* Version 1 had no cost: its upper bound is the closest figure. */
            f->cost_ns = f->lost_ns;
            f->basis = f->lost_ns ? SC_COST_PENDING_BLOCKED : SC_COST_UNMEASURED;
        }
    }
    return 0;
}

static int read_redirects(ctx *c, const sc_json *root, sc_report *r, const sc_idmap *m)
{
    const sc_json *arr = get_typed(c, root, "", "redirects", SC_JSON_ARRAY);
    where w;
    if (!arr)
        return -1;
    for (size_t i = 0; i < arr->len; i++) {
        sc_redirect *rd = sc_report_add_redirect(r);
        if (!rd)
            return nomem(c);
        at(&w, "redirects[%zu]", i);
        if (read_redirect(c, &arr->items[i], w.s, rd) < 0 ||
            check_ref(c, r, m, "redirects", i, rd->callsite) < 0)
            return -1;
    }
    return 0;
}

static int read_report(ctx *c, const sc_json *root, sc_report *r)
{
    sc_idmap m = {0};
    int rc = -1;
    if (read_head(c, root, r) == 0 && read_processes(c, root, r) == 0 && read_callsites(c, root, r, &m) == 0 &&
        read_findings(c, root, r, &m) == 0 && read_redirects(c, root, r, &m) == 0)
        rc = read_counts(c, root, r);
    sc_idmap_free(&m);
    return rc;
}

int sc_report_parse_json(sc_report *r, const char *text, size_t len, const char *name,
                         char *err, size_t errlen)
{
    ctx c = {.name = name ? name : "<report>", .err = err, .errlen = errlen};
    char jerr[256];
    if (err && errlen)
        err[0] = '\0';
    if (len == 0)
        return bad(&c, NULL, "empty file: not a streamcheck report");
    sc_json *root = sc_json_parse(text, len, NULL, jerr, sizeof jerr);
    if (!root)
        return bad(&c, NULL, "not valid JSON: %s", jerr);
    sc_report *tmp = sc_report_new();
    if (!tmp) {
        sc_json_free(root);
        return nomem(&c);
    }
    int rc = read_report(&c, root, tmp);
    sc_json_free(root);
    if (rc == 0 && sc_report_merge(r, tmp) < 0)
        rc = nomem(&c);
    sc_report_free(tmp);
    return rc;
}

int sc_report_read_json(sc_report *r, const char *path, char *err, size_t errlen)
{
    char *buf;
    size_t len;
    if (sc_read_file(path, SC_JSON_MAX_SIZE, &buf, &len, err, errlen) < 0)
        return -1;
    int rc = sc_report_parse_json(r, buf, len, path, err, errlen);
    free(buf);
    return rc;
}
