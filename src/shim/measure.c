/* measure.c: measured mode.  CUPTI's activity API, loaded with dlopen,
 * records the GPU's kernels, copies and memsets and the host's CUDA API
 * calls; each slow-path call that carries a finding pushes an external
 * correlation id around its real driver call and records its own host
 * interval.  At exit the records are analysed per device (busy, idle,
 * overlap) and per finding (gpu_lost_ns), as libstreamcheck(7), "MEASURED
 * MODE", describes.
 *
 * Rules of the house kept here: no link-time dependency on CUPTI (dlopen,
 * dlsym); the activity callbacks never call back into the activity API;
 * nothing here runs unless measured mode is on and CUPTI started; a missing
 * or busy CUPTI is one line on stderr and detect mode goes on.
 */
#include "config.h"

#include <cupti.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core.h"
#include "aggkey.h"
#include "measure.h"
#include "options.h"
#include "report.h"
#include "shim.h"


int sc_measure_active;
SC_TLS uint32_t sc_measure_tls_mid;
static SC_TLS uint64_t tls_ext;      /* id pushed for the current call */
static SC_TLS int64_t tls_c0;

#define OPS_MAX 2000000u           /* GPU operations analysed; more are counted */
#define APIS_MAX 2000000u          /* API records kept */
#define MODEL_OPS_MAX 200000u      /* GPU operations kept in the report's timeline */
#define MODEL_SPANS_MAX 200000u
#define MODEL_MARKS_MAX 50000u
#define BUF_SIZE (4u << 20)
#define TOL_NS 1000                /* timestamps of dependent operations may touch */
#define CHAIN_MAX 256              /* ops followed behind a held-back one on its stream */
#define COVER_MAX 4096             /* busy intervals of another stream looked at per tail */

/* ------------------------------------------------------------- CUPTI --- */
static struct {
    void *lib;
    CUptiResult (*Subscribe)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *);
    CUptiResult (*Subscribe2)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *, CUpti_SubscriberParams *);
    CUptiResult (*Unsubscribe)(CUpti_SubscriberHandle);
    CUptiResult (*RegisterCallbacks)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
    CUptiResult (*RegisterTimestampCallback)(CUpti_TimestampCallbackFunc);
    CUptiResult (*Enable)(CUpti_ActivityKind);
    CUptiResult (*Disable)(CUpti_ActivityKind);
    CUptiResult (*FlushAll)(uint32_t);
    CUptiResult (*GetNextRecord)(uint8_t *, size_t, CUpti_Activity **);
    CUptiResult (*GetNumDropped)(CUcontext, uint32_t, size_t *);
    CUptiResult (*Push)(CUpti_ExternalCorrelationKind, uint64_t);
    CUptiResult (*Pop)(CUpti_ExternalCorrelationKind, uint64_t *);
    CUptiResult (*GetTimestamp)(uint64_t *);
    CUptiResult (*GetResultString)(CUptiResult, const char **);
} F;

/* API record names, from CUPTI's own cbid headers (generated at build
   time: cbid_names.h).  Runtime names lose their _vNNNN suffix. */
typedef struct cbid_name { uint8_t runtime; uint16_t cbid; const char *name; } cbid_name;
static const cbid_name cbid_names[] = {
#define SC_CBID(rt, id, name) {rt, id, name},
#include "cbid_names.h"
#undef SC_CBID
};

static const char *sc_cbid_name(int runtime, uint32_t cbid)
{
    static const cbid_name *ix[2][1024];
    static int built;
    if (!built) {
        for (size_t i = 0; i < SC_ARRAY_LEN(cbid_names); i++)
            if (cbid_names[i].cbid < 1024)
                ix[cbid_names[i].runtime][cbid_names[i].cbid] = &cbid_names[i];
        built = 1;
    }
    return cbid < 1024 && ix[runtime != 0][cbid] ? ix[runtime != 0][cbid]->name : NULL;
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int have_ts_cb;            /* CUPTI timestamps are sc_now_ns() */
static int64_t ts_offset;         /* else: CUPTI time - sc_now_ns() */
static int have_ext;              /* external correlation records enabled */
static _Atomic uint64_t next_ext = 1;
static _Atomic int closed;        /* after the last flush: records are ignored */
static int stopped;
/* Start, hand-over and stop, one at a time. */
static pthread_mutex_t cupti_mu = PTHREAD_MUTEX_INITIALIZER;
static CUpti_SubscriberHandle our_sub;
static int subscribed;
static int handed;                /* the program's own profiler took CUPTI ... */
static int64_t handed_ns;         /* ... this long after the shim started */
static char lib_path[4096];

/* ----------------------------------------------------------- records --- */
typedef struct mop {
    int64_t start, end;
    uint64_t bytes;
    uint32_t corr, stream, name, device;
    uint8_t kind, copy, src, dst;
} mop;

typedef struct mapi {
    int64_t start, end;
    uint32_t corr, thread, cbid;
    uint8_t runtime;
} mapi;

typedef struct mext { uint64_t ext; uint32_t corr; } mext;

typedef struct mev {
    uint64_t ext;
    int64_t c0, c1, drain;
    uint32_t pthread, tid;
    uint16_t api, rt;
    uint8_t timed;
    uint32_t rules;        /* rules of the aggregates it was counted in, and their also */
    int main_commit;       /* index into commits of its main finding, -1 */
    unsigned ncommits;     /* aggregates it was counted in (0: sampled out, or a read) */
    /* analysis */
    int64_t lost;
    long target;           /* op it held back most */
    uint32_t corr;         /* its own GPU work */
    size_t iv0, niv;       /* its lost intervals in ev_ivs */
} mev;

typedef struct mcommit { uint32_t mid; sc_agg_key key; unsigned weight; } mcommit;

#define VEC(T) struct { T *v; size_t n, cap; }
static int vec_grow(void *vp, size_t elt)
{
    VEC(char) *vec = vp;
    if (vec->n < vec->cap)
        return 1;
    size_t nc = vec->cap ? vec->cap * 2 : 1024;
    void *p = realloc(vec->v, nc * elt);
    if (!p)
        return 0;
    vec->v = p;
    vec->cap = nc;
    return 1;
}
#define PUSH(vec, x) (vec_grow(&(vec), sizeof *(vec).v) ? ((vec).v[(vec).n++] = (x), 1) : 0)

static pthread_mutex_t rec_mu = PTHREAD_MUTEX_INITIALIZER;   /* records */
static VEC(mop) ops;
static VEC(mapi) apis;
static VEC(mext) exts;
static VEC(char *) names;
static uint64_t ops_seen, apis_seen, dropped;
static pthread_mutex_t ev_mu = PTHREAD_MUTEX_INITIALIZER;    /* events and commits */
static VEC(mev) evs;
static VEC(mcommit) commits;

/* Kernel names: CUPTI shares one string per kernel; interned by pointer
   (checked by content), copied because CUPTI may free it. */
#define NAME_TAB 4096
static struct { const char *p; uint32_t idx; } name_tab[NAME_TAB];

static uint32_t intern(const char *s)
{
    if (!s || !*s)
        return 0;
    size_t h = ((uintptr_t)s >> 4) & (NAME_TAB - 1);
    for (unsigned i = 0; i < 16; i++) {
        size_t k = (h + i) & (NAME_TAB - 1);
        if (name_tab[k].p == s && !strcmp(names.v[name_tab[k].idx], s))
            return name_tab[k].idx;
        if (!name_tab[k].p) {
            char *c = strdup(s);
            if (!c || !PUSH(names, c)) {
                free(c);
                return 0;
            }
            name_tab[k].p = s;
            name_tab[k].idx = (uint32_t)(names.n - 1);
            return name_tab[k].idx;
        }
    }
    for (size_t i = 1; i < names.n; i++)   /* table crowded: look it up by content */
        if (!strcmp(names.v[i], s))
            return (uint32_t)i;
    char *c = strdup(s);
    if (!c || !PUSH(names, c)) {
        free(c);
        return 0;
    }
    return (uint32_t)(names.n - 1);
}

static int64_t rel(uint64_t t)
{
    int64_t v = (int64_t)t;
    if (!have_ts_cb)
        v -= ts_offset;
    return v - (int64_t)sc_start_ns;
}

static uint8_t copy_kind(uint8_t k)
{
    switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return SC_GPU_HTOD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return SC_GPU_DTOH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return SC_GPU_DTOD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return SC_GPU_HTOH;
    default: return SC_GPU_COPY_OTHER;
    }
}

static uint8_t mem_kind(uint8_t k)
{
    switch (k) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return SC_GPU_MEM_PAGEABLE;
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return SC_GPU_MEM_PINNED;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE: return SC_GPU_MEM_DEVICE;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED: return SC_GPU_MEM_MANAGED;
    case CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN: return SC_GPU_MEM_UNKNOWN;
    default: return SC_GPU_MEM_OTHER;
    }
}

static void add_op(const mop *o)
{
    ops_seen++;
    if (ops.n < OPS_MAX)
        PUSH(ops, *o);
}

/* Reads the leading fields of each record only: they keep their place
   when CUPTI adds fields (Kernel10 in 13.0, Kernel11 in 13.2), and records
   are walked with cuptiActivityGetNextRecord, never by sizeof. */
static void parse(uint8_t *buf, size_t valid)
{
    CUpti_Activity *r = NULL;
    while (F.GetNextRecord(buf, valid, &r) == CUPTI_SUCCESS) {
        switch (r->kind) {
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
            const CUpti_ActivityKernel10 *k = (const void *)r;
            mop o = {rel(k->start), rel(k->end), 0, k->correlationId, k->streamId, intern(k->name),
                     k->deviceId, SC_GPU_KERNEL, 0, 0, 0};
            add_op(&o);
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
            const CUpti_ActivityMemcpy6 *m = (const void *)r;
            mop o = {rel(m->start), rel(m->end), m->bytes, m->correlationId, m->streamId, 0, m->deviceId,
                     SC_GPU_MEMCPY, copy_kind(m->copyKind), mem_kind(m->srcKind), mem_kind(m->dstKind)};
            add_op(&o);
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
            const CUpti_ActivityMemset4 *m = (const void *)r;
            mop o = {rel(m->start), rel(m->end), m->bytes, m->correlationId, m->streamId, 0, m->deviceId,
                     SC_GPU_MEMSET, 0, 0, mem_kind((uint8_t)m->memoryKind)};
            add_op(&o);
            break;
        }
        case CUPTI_ACTIVITY_KIND_DRIVER:
        case CUPTI_ACTIVITY_KIND_RUNTIME: {
            const CUpti_ActivityAPI *a = (const void *)r;
            apis_seen++;
            mapi x = {rel(a->start), rel(a->end), a->correlationId, a->threadId, a->cbid,
                      r->kind == CUPTI_ACTIVITY_KIND_RUNTIME};
            if (apis.n < APIS_MAX)
                PUSH(apis, x);
            break;
        }
        case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
            const CUpti_ActivityExternalCorrelation *e = (const void *)r;
            if (e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2) {
                mext x = {e->externalId, e->correlationId};
                PUSH(exts, x);
            }
            break;
        }
        default:
            break;
        }
    }
}

static void CUPTIAPI buf_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *max_records = 0;
    *buffer = aligned_alloc(8, BUF_SIZE);
    *size = *buffer ? BUF_SIZE : 0;
}

static void CUPTIAPI buf_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                   size_t valid)
{
    (void)size;
    (void)ctx;
    (void)stream;
    int saved = errno;
    if (buffer && valid && !atomic_load(&closed) && !(sc_g.ablate & SC_ABLATE_PARSE)) {
        pthread_mutex_lock(&rec_mu);
        parse(buffer, valid);
        pthread_mutex_unlock(&rec_mu);
    }
    free(buffer);
    errno = saved;
}

static uint64_t CUPTIAPI timestamp(void) { return sc_now_ns(); }

static void CUPTIAPI no_callback(void *ud, CUpti_CallbackDomain d, CUpti_CallbackId id, const void *data)
{
    (void)ud; (void)d; (void)id; (void)data;
}

/* ----------------------------------------------------------- loading --- */
typedef struct dirs { char d[8][4096]; int n; } dirs;

static void add_dir(dirs *ds, const char *d, size_t len)
{
    if (ds->n >= 8 || !len || len >= sizeof ds->d[0])
        return;
    for (int i = 0; i < ds->n; i++)
        if (strlen(ds->d[i]) == len && !strncmp(ds->d[i], d, len))
            return;
    memcpy(ds->d[ds->n], d, len);
    ds->d[ds->n++][len] = 0;
}

/* Directories of the CUDA runtime the program loaded, then of cuBLAS (a
   pip nvidia/cu13/lib holds CUPTI beside them). */
static int loaded_dirs(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    dirs *ds = arg;
    const char *n = info->dlpi_name;
    const char *slash = n ? strrchr(n, '/') : NULL;
    if (slash && !strncmp(slash + 1, "libcudart.so", 12))
        add_dir(ds, n, (size_t)(slash - n));
    return 0;
}

static int loaded_dirs_cublas(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    dirs *ds = arg;
    const char *n = info->dlpi_name;
    const char *slash = n ? strrchr(n, '/') : NULL;
    if (slash && !strncmp(slash + 1, "libcublas.so", 12))
        add_dir(ds, n, (size_t)(slash - n));
    return 0;
}

static void *open_cupti(void)
{
    dirs ds = {.n = 0};
    char p[4200];
    /* 1. next to the CUDA runtime the program loaded (a CUDA toolkit, or a
          pip wheel's nvidia/cu13/lib) */
    dl_iterate_phdr(loaded_dirs, &ds);
    /* 2. $CUDA_HOME */
    const char *home = getenv("CUDA_HOME");
    const char *more[] = {"lib64", "targets/x86_64-linux/lib", "extras/CUPTI/lib64"};
    if (home && *home)
        for (size_t i = 0; i < SC_ARRAY_LEN(more); i++) {
            snprintf(p, sizeof p, "%s/%s", home, more[i]);
            add_dir(&ds, p, strlen(p));
        }
    /* 3. the toolkit's usual places */
    add_dir(&ds, "/usr/local/cuda/extras/CUPTI/lib64", strlen("/usr/local/cuda/extras/CUPTI/lib64"));
    add_dir(&ds, "/usr/local/cuda/targets/x86_64-linux/lib", strlen("/usr/local/cuda/targets/x86_64-linux/lib"));
    /* 4. next to cuBLAS (pip wheels) */
    dl_iterate_phdr(loaded_dirs_cublas, &ds);
    for (int i = 0; i < ds.n; i++) {
        snprintf(p, sizeof p, "%s/libcupti.so.13", ds.d[i]);
        if (access(p, R_OK))
            continue;
        void *h = dlopen(p, RTLD_NOW | RTLD_LOCAL);
        if (h) {
            snprintf(lib_path, sizeof lib_path, "%s", p);
            return h;
        }
    }
    /* 5. the library path */
    void *h = dlopen("libcupti.so.13", RTLD_NOW | RTLD_LOCAL);
    if (h)
        snprintf(lib_path, sizeof lib_path, "libcupti.so.13");
    return h;
}

static const char *why(CUptiResult r)
{
    const char *s = NULL;
    if (F.GetResultString && F.GetResultString(r, &s) == CUPTI_SUCCESS && s)
        return s;
    return "CUPTI error";
}

__attribute__((format(printf, 1, 2))) static void off(const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sc_log(SC_LOG_WARNING, "measured mode is off: %s; reporting in detect mode", msg);
}

/* The fork handler takes both locks (core.c, registered parts). */
static void measure_lock(void)
{
    pthread_mutex_lock(&rec_mu);
    pthread_mutex_lock(&ev_mu);
}

static void measure_unlock(void)
{
    pthread_mutex_unlock(&ev_mu);
    pthread_mutex_unlock(&rec_mu);
}

static void child_after_fork(void)
{
    /* CUPTI does not follow a fork: the child reports in detect mode. */
    pthread_mutex_init(&rec_mu, NULL);
    pthread_mutex_init(&ev_mu, NULL);
    pthread_mutex_init(&cupti_mu, NULL);
    sc_measure_active = 0;
    stopped = 1;
}

static const sc_part part = {"measure", 85, measure_lock, measure_unlock, child_after_fork, NULL, NULL};
SC_PART_REGISTER(part)

static void measure_at_exit(void)
{
    sc_measure_stop();
}

#define TAKEN "CUPTI is in use by another tool (a profiler such as Nsight Systems or torch.profiler)"

static void start_locked(void);

void sc_measure_start(void)
{
    static _Atomic int once;
    if (!(sc_opt.measure || (sc_opt.formats & SC_FMT_TRACE)) || atomic_exchange(&once, 1))
        return;
    pthread_mutex_lock(&cupti_mu);
    start_locked();
    pthread_mutex_unlock(&cupti_mu);
}

static void start_locked(void)
{
    if (!(F.lib = open_cupti())) {
        off("libcupti.so.13 was not found (next to the CUDA runtime, in $CUDA_HOME, "
            "/usr/local/cuda/extras/CUPTI/lib64, /usr/local/cuda/targets/x86_64-linux/lib, next to "
            "cuBLAS or on the library path)");
        return;
    }
#define SYM(f, name) (*(void **)&F.f = sc_dlsym_real(F.lib, name))
    SYM(Subscribe, "cuptiSubscribe");
    SYM(Subscribe2, "cuptiSubscribe_v2");
    SYM(Unsubscribe, "cuptiUnsubscribe");
    SYM(RegisterCallbacks, "cuptiActivityRegisterCallbacks");
    SYM(RegisterTimestampCallback, "cuptiActivityRegisterTimestampCallback");
    SYM(Enable, "cuptiActivityEnable");
    SYM(Disable, "cuptiActivityDisable");
    SYM(FlushAll, "cuptiActivityFlushAll");
    SYM(GetNextRecord, "cuptiActivityGetNextRecord");
    SYM(GetNumDropped, "cuptiActivityGetNumDroppedRecords");
    SYM(Push, "cuptiActivityPushExternalCorrelationId");
    SYM(Pop, "cuptiActivityPopExternalCorrelationId");
    SYM(GetTimestamp, "cuptiGetTimestamp");
    SYM(GetResultString, "cuptiGetResultString");
#undef SYM
    if (!F.RegisterCallbacks || !F.Enable || !F.Disable || !F.FlushAll || !F.GetNextRecord) {
        off("%s lacks the CUPTI activity API", lib_path);
        return;
    }
    /* One CUPTI client per process (CUDA 13.0 to 13.2): a profiler that
       holds it keeps it.  Ours is named, so a tool that finds CUPTI taken
       can say by whom; the program's own profiler gets it from us when it
       asks (hooks_cupti.c, sc_measure_handover). */
    CUptiResult r = CUPTI_SUCCESS;
    char holder[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = "";
    if (F.Subscribe2) {
        CUpti_SubscriberParams sp = {.structSize = CUpti_SubscriberParams_STRUCT_SIZE,
                                     .subscriberName = "streamcheck --measure",
                                     .oldSubscriberName = holder,
                                     .oldSubscriberSize = sizeof holder - 1};
        r = F.Subscribe2(&our_sub, no_callback, NULL, &sp);
    } else if (F.Subscribe) {
        r = F.Subscribe(&our_sub, no_callback, NULL);
    }
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        if (*holder)
            off("CUPTI is in use by another tool (%s)", holder);
        else
            off(TAKEN);
        return;
    }
    if (r != CUPTI_SUCCESS) {
        off("cuptiSubscribe failed: %s", why(r));
        return;
    }
    subscribed = F.Subscribe2 || F.Subscribe;
    /* Timestamps on our own clock, so host and GPU times line up; this
       must come before any kind is enabled. */
    if (!(sc_g.ablate & SC_ABLATE_TS) && F.RegisterTimestampCallback &&
        F.RegisterTimestampCallback(timestamp) == CUPTI_SUCCESS) {
        have_ts_cb = 1;
    } else if (F.GetTimestamp) {
        uint64_t a = sc_now_ns(), c = 0, b;
        F.GetTimestamp(&c);
        b = sc_now_ns();
        ts_offset = (int64_t)c - (int64_t)(a + (b - a) / 2);
    }
    if ((r = F.RegisterCallbacks(buf_requested, buf_completed)) != CUPTI_SUCCESS) {
        off("cuptiActivityRegisterCallbacks failed: %s", why(r));
        return;
    }
    pthread_mutex_lock(&rec_mu);
    if (!names.n) {
        char *e = strdup("");
        if (e && !PUSH(names, e))
            free(e);
    }
    pthread_mutex_unlock(&rec_mu);
    /* Concurrent kernels, never CUPTI_ACTIVITY_KIND_KERNEL: that one
       serializes kernels and would change what we measure. */
    static const CUpti_ActivityKind need[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                              CUPTI_ACTIVITY_KIND_MEMSET};
    /* Not CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: nothing read its records
       (the API records hold the host side of a synchronization).  On an
       H100 training loop, leaving it off measured 0.910x native against
       0.867x, inside the machine's spread (docs/ARCHITECTURE.md). */
    static const CUpti_ActivityKind want[] = {CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_RUNTIME,
                                              CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};
    for (size_t i = 0; i < SC_ARRAY_LEN(need); i++) {
        if ((sc_g.ablate & SC_ABLATE_COPY) && need[i] != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
            continue;
        r = F.Enable(need[i]);
        if (r == CUPTI_SUCCESS)
            continue;
        for (size_t k = 0; k < i; k++)
            F.Disable(need[k]);
        if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
            off(TAKEN);
        else
            off("cuptiActivityEnable failed: %s", why(r));
        return;
    }
    for (size_t i = 0; i < SC_ARRAY_LEN(want); i++) {
        if (((sc_g.ablate & SC_ABLATE_RT) && want[i] == CUPTI_ACTIVITY_KIND_RUNTIME) ||
            ((sc_g.ablate & SC_ABLATE_API) &&
             (want[i] == CUPTI_ACTIVITY_KIND_RUNTIME || want[i] == CUPTI_ACTIVITY_KIND_DRIVER)) ||
            ((sc_g.ablate & SC_ABLATE_EXT) && want[i] == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION))
            continue;
        r = F.Enable(want[i]);
        if (r != CUPTI_SUCCESS)
            sc_log(SC_LOG_WARNING, "measured mode: activity kind %d is not available (%s); findings are "
                   "tied to the GPU work by fewer records", (int)want[i], why(r));
        else if (want[i] == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION)
            have_ext = F.Push && F.Pop;
    }
    sc_log(SC_LOG_INFO, "measured mode: recording the GPU timeline with %s", lib_path);
    sc_measure_active = 1;
    /* CUPTI registers an exit handler of its own when it is loaded, after
       the shim's (core.c): exit handlers run in reverse, so CUPTI would be
       torn down before the report asked it for the last records (a crash
       inside cuptiActivityDisable, seen on an H100).  Ours, registered now,
       runs before CUPTI's; the report's call then finds it stopped. */
    atexit(measure_at_exit);
}

/* ---------------------------------------------------------- the calls --- */
void sc_measure_pre(const sc_op *op)
{
    if (!sc_measure_active)
        return;
    uint64_t ext = atomic_fetch_add_explicit(&next_ext, 1, memory_order_relaxed);
    mev e = {.ext = ext, .drain = (int64_t)op->drain_ns, .pthread = (uint32_t)(uintptr_t)pthread_self(),
             .tid = (uint32_t)gettid(), .api = op->id, .rt = sc_tls_rt, .timed = op->timed,
             .main_commit = -1, .target = -1};
    pthread_mutex_lock(&ev_mu);
    uint32_t mid = evs.n < UINT32_MAX - 1 && PUSH(evs, e) ? (uint32_t)evs.n : 0;
    pthread_mutex_unlock(&ev_mu);
    if (!mid)
        return;
    sc_measure_tls_mid = mid;
    if (have_ext)
        F.Push(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, ext);
    tls_ext = ext;
    tls_c0 = (int64_t)(sc_now_ns() - sc_start_ns);
}

void sc_measure_post(void)
{
    if (!tls_ext)
        return;
    int64_t c1 = (int64_t)(sc_now_ns() - sc_start_ns);
    tls_ext = 0;
    if (have_ext) {
        uint64_t popped;
        F.Pop(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, &popped);
    }
    uint32_t mid = sc_measure_tls_mid;
    pthread_mutex_lock(&ev_mu);
    if (mid && mid <= evs.n) {
        evs.v[mid - 1].c0 = tls_c0;
        evs.v[mid - 1].c1 = c1;
    }
    pthread_mutex_unlock(&ev_mu);
}

void sc_measure_commit(uint32_t mid, const sc_agg_key *k, uint32_t also, unsigned weight)
{
    if (!mid)
        return;
    pthread_mutex_lock(&ev_mu);
    if (mid <= evs.n) {
        mcommit c = {mid, *k, weight};
        if (PUSH(commits, c)) {
            mev *e = &evs.v[mid - 1];
            e->ncommits++;
            if (k->table == SC_AGG_FINDING) {
                e->rules |= also | 1u << k->rule;
                e->main_commit = (int)(commits.n - 1);
            }
        }
    }
    pthread_mutex_unlock(&ev_mu);
}

/* ---------------------------------------------------------- intervals --- */
typedef struct iv { int64_t a, b; } iv;
typedef VEC(iv) ivs;

static void iv_add(ivs *s, int64_t a, int64_t b)
{
    if (b > a) {
        iv x = {a, b};
        PUSH(*s, x);
    }
}

static int cmp_iv(const void *pa, const void *pb)
{
    const iv *a = pa, *b = pb;
    return a->a < b->a ? -1 : a->a > b->a ? 1 : (a->b < b->b ? -1 : a->b > b->b);
}

/* Sorts and merges v[from..n) in place. */
static void iv_norm(ivs *s, size_t from)
{
    size_t n = s->n - from;
    iv *v = s->v + from;
    if (n < 2)
        return;
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_iv);
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

static int64_t iv_len(const iv *v, size_t n)
{
    int64_t t = 0;
    for (size_t i = 0; i < n; i++)
        t += v[i].b - v[i].a;
    return t;
}

/* ----------------------------------------------------------- analysis --- */
typedef struct dev {
    uint32_t id;
    size_t o0, o1;        /* its ops in `ops` (sorted by device, start) */
    int64_t maxdur;
    ivs busy;             /* union of its ops */
    sc_gpu_device g;
} dev;

typedef struct strm {
    uint32_t device, id;
    size_t *ix; size_t n;  /* ops by start */
    ivs busy;
} strm;

static struct {
    dev *d; size_t nd;
    strm *s; size_t ns;
    int64_t *submit;      /* per op: when its API call began (or its start) */
    int64_t *prev_end;    /* per op: end of the op before it on its stream */
    uint32_t *spos;       /* per op: stream index */
    uint32_t *sidx;       /* per op: position in its stream */
    uint32_t *stamp;      /* per op: chain membership, per event */
    uint32_t *chained;    /* per stream: it holds a chain of the event */
    struct cidx { uint32_t corr; uint32_t op; } *byc;   /* ops by correlation */
    mapi **byt; size_t nbyt;                            /* api records by thread, start */
    ivs ev_ivs;
    int done;
} A;

static int cmp_op_dev(const void *pa, const void *pb)
{
    const mop *a = pa, *b = pb;
    if (a->device != b->device) return a->device < b->device ? -1 : 1;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    return a->end < b->end ? -1 : a->end > b->end;
}

static int cmp_cidx(const void *pa, const void *pb)
{
    const struct cidx *a = pa, *b = pb;
    if (a->corr != b->corr) return a->corr < b->corr ? -1 : 1;
    return a->op < b->op ? -1 : a->op > b->op;
}

static int cmp_api_corr(const void *pa, const void *pb)
{
    const mapi *a = pa, *b = pb;
    if (a->corr != b->corr) return a->corr < b->corr ? -1 : 1;
    return a->start < b->start ? -1 : a->start > b->start;
}

static int cmp_apip_thread(const void *pa, const void *pb)
{
    const mapi *a = *(mapi *const *)pa, *b = *(mapi *const *)pb;
    if (a->thread != b->thread) return a->thread < b->thread ? -1 : 1;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    return a->end > b->end ? -1 : a->end < b->end;
}

static int cmp_ext(const void *pa, const void *pb)
{
    const mext *a = pa, *b = pb;
    return a->ext < b->ext ? -1 : a->ext > b->ext;
}

/* Whether CUPTI's API records name any thread by this id. */
static int thread_known(uint32_t id)
{
    size_t lo = 0, hi = A.nbyt;
    while (lo < hi) {
        size_t m = (lo + hi) / 2;
        if (A.byt[m]->thread < id)
            lo = m + 1;
        else
            hi = m;
    }
    return lo < A.nbyt && A.byt[lo]->thread == id;
}

static int cmp_stream_ix(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    if (ops.v[a].start != ops.v[b].start) return ops.v[a].start < ops.v[b].start ? -1 : 1;
    return a < b ? -1 : a > b;
}

static dev *dev_of(uint32_t id)
{
    for (size_t i = 0; i < A.nd; i++)
        if (A.d[i].id == id)
            return &A.d[i];
    return NULL;
}

/* Busy, overlap and its kinds over one device's ops: a sweep over their
   starts and ends (ends first at equal times: touching is not overlap). */
typedef struct edge { int64_t t; int8_t delta; uint8_t kernel; } edge;
static int cmp_edge(const void *pa, const void *pb)
{
    const edge *a = pa, *b = pb;
    if (a->t != b->t) return a->t < b->t ? -1 : 1;
    return a->delta < b->delta ? -1 : a->delta > b->delta;
}

static void device_metrics(dev *d)
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
        const mop *o = &ops.v[d->o0 + i];
        int64_t end = o->end < o->start ? o->start : o->end;
        uint8_t k = o->kind == SC_GPU_KERNEL;
        e[2 * i] = (edge){o->start, 1, k};
        e[2 * i + 1] = (edge){end, -1, k};
        lo = o->start < lo ? o->start : lo;
        hi = end > hi ? end : hi;
        if (end - o->start > d->maxdur)
            d->maxdur = end - o->start;
        iv_add(&d->busy, o->start, end);
    }
    iv_norm(&d->busy, 0);
    qsort(e, 2 * n, sizeof *e, cmp_edge);
    long all = 0, kern = 0;
    int64_t last = e[0].t;
    for (size_t i = 0; i < 2 * n; i++) {
        int64_t dt = e[i].t - last;
        if (dt > 0) {
            long copy = all - kern;
            if (all >= 1) d->g.busy_ns += (uint64_t)dt;
            if (all >= 2) d->g.overlap_ns += (uint64_t)dt;
            if (kern >= 1 && copy >= 1) d->g.overlap_compute_copy_ns += (uint64_t)dt;
            if (kern >= 2) d->g.overlap_compute_compute_ns += (uint64_t)dt;
        }
        last = e[i].t;
        all += e[i].delta;
        if (e[i].kernel)
            kern += e[i].delta;
    }
    free(e);
    d->g.span_ns = (uint64_t)(hi - lo);
    d->g.idle_ns = d->g.span_ns - d->g.busy_ns;
}

/* The busy interval of d that holds t, or -1. */
static long busy_at(const dev *d, int64_t t)
{
    size_t lo = 0, hi = d->busy.n;
    while (lo < hi) {
        size_t m = (lo + hi) / 2;
        if (d->busy.v[m].b <= t)
            lo = m + 1;
        else
            hi = m;
    }
    return lo < d->busy.n && d->busy.v[lo].a <= t ? (long)lo : -1;
}

/* The first op of d starting at or after t (index into ops), or d->o1. */
static size_t first_from(const dev *d, int64_t t)
{
    size_t lo = d->o0, hi = d->o1;
    while (lo < hi) {
        size_t m = (lo + hi) / 2;
        if (ops.v[m].start < t)
            lo = m + 1;
        else
            hi = m;
    }
    return lo;
}

static void prepare(void)
{
    size_t n = ops.n;
    if (n > 1)
        qsort(ops.v, n, sizeof *ops.v, cmp_op_dev);
    A.submit = malloc((n ? n : 1) * sizeof *A.submit);
    A.prev_end = malloc((n ? n : 1) * sizeof *A.prev_end);
    A.spos = malloc((n ? n : 1) * sizeof *A.spos);
    A.sidx = malloc((n ? n : 1) * sizeof *A.sidx);
    A.stamp = calloc(n ? n : 1, sizeof *A.stamp);
    A.byc = malloc((n ? n : 1) * sizeof *A.byc);
    if (!A.submit || !A.prev_end || !A.spos || !A.sidx || !A.stamp || !A.byc)
        return;
    /* devices */
    for (size_t i = 0; i < n; i++) {
        if (i && ops.v[i].device == ops.v[i - 1].device)
            continue;
        dev *nd = realloc(A.d, (A.nd + 1) * sizeof *A.d);
        if (!nd)
            return;
        A.d = nd;
        memset(&A.d[A.nd], 0, sizeof *A.d);
        A.d[A.nd].id = ops.v[i].device;
        A.d[A.nd].o0 = i;
        if (A.nd)
            A.d[A.nd - 1].o1 = i;
        A.nd++;
    }
    if (A.nd)
        A.d[A.nd - 1].o1 = n;
    for (size_t i = 0; i < A.nd; i++)
        device_metrics(&A.d[i]);
    /* submit times: the earliest API record with the op's correlation id */
    if (apis.n > 1)
        qsort(apis.v, apis.n, sizeof *apis.v, cmp_api_corr);
    for (size_t i = 0; i < n; i++) {
        A.byc[i] = (struct cidx){ops.v[i].corr, (uint32_t)i};
        A.submit[i] = ops.v[i].start;
        size_t lo = 0, hi = apis.n;
        while (lo < hi) {
            size_t m = (lo + hi) / 2;
            if (apis.v[m].corr < ops.v[i].corr)
                lo = m + 1;
            else
                hi = m;
        }
        if (lo < apis.n && apis.v[lo].corr == ops.v[i].corr && ops.v[i].corr && apis.v[lo].start < A.submit[i])
            A.submit[i] = apis.v[lo].start;
    }
    if (n > 1)
        qsort(A.byc, n, sizeof *A.byc, cmp_cidx);
    /* streams */
    for (size_t i = 0; i < n; i++) {
        size_t k;
        for (k = 0; k < A.ns; k++)
            if (A.s[k].device == ops.v[i].device && A.s[k].id == ops.v[i].stream)
                break;
        if (k == A.ns) {
            strm *ns = realloc(A.s, (A.ns + 1) * sizeof *A.s);
            if (!ns)
                return;
            A.s = ns;
            memset(&A.s[A.ns], 0, sizeof *A.s);
            A.s[A.ns].device = ops.v[i].device;
            A.s[A.ns].id = ops.v[i].stream;
            A.ns++;
        }
        A.spos[i] = (uint32_t)k;
        A.s[k].n++;
    }
    if (!(A.chained = calloc(A.ns ? A.ns : 1, sizeof *A.chained)))
        return;
    for (size_t k = 0; k < A.ns; k++) {
        A.s[k].ix = malloc(A.s[k].n * sizeof *A.s[k].ix);
        if (!A.s[k].ix)
            return;
        A.s[k].n = 0;
    }
    for (size_t i = 0; i < n; i++) {
        strm *s = &A.s[A.spos[i]];
        s->ix[s->n++] = i;
    }
    for (size_t k = 0; k < A.ns; k++) {
        strm *s = &A.s[k];
        if (s->n > 1)
            qsort(s->ix, s->n, sizeof *s->ix, cmp_stream_ix);
        for (size_t j = 0; j < s->n; j++) {
            size_t i = s->ix[j];
            A.sidx[i] = (uint32_t)j;
            A.prev_end[i] = j ? ops.v[s->ix[j - 1]].end : INT64_MIN;
            iv_add(&s->busy, ops.v[i].start, ops.v[i].end);
        }
        iv_norm(&s->busy, 0);
    }
    /* API records by thread and start, for tying events to them */
    A.byt = malloc((apis.n ? apis.n : 1) * sizeof *A.byt);
    if (!A.byt)
        return;
    for (size_t i = 0; i < apis.n; i++)
        A.byt[i] = &apis.v[i];
    A.nbyt = apis.n;
    if (A.nbyt > 1)
        qsort(A.byt, A.nbyt, sizeof *A.byt, cmp_apip_thread);
    if (exts.n > 1)   /* exts.v is NULL when no record came */
        qsort(exts.v, exts.n, sizeof *exts.v, cmp_ext);
    A.done = 1;
}

/* Correlation ids of an event's own GPU work: its external id's records,
   and the API records of the calling thread that contain the call (the
   runtime call around our driver wrapper) or lie inside it (the driver
   call itself). */
#define MAXC 16
static size_t event_corrs(const mev *e, uint32_t *c)
{
    size_t n = 0, lo = 0, hi = exts.n;
    while (lo < hi) {   /* exts are sorted by external id (prepare) */
        size_t m = (lo + hi) / 2;
        if (exts.v[m].ext < e->ext)
            lo = m + 1;
        else
            hi = m;
    }
    for (; lo < exts.n && exts.v[lo].ext == e->ext && n < MAXC; lo++)
        c[n++] = exts.v[lo].corr;
    const uint32_t tids[2] = {e->pthread, e->tid};
    for (int t = 0; t < 2; t++) {
        /* just past the last record of this thread starting at or before c1 */
        lo = 0;
        hi = A.nbyt;
        while (lo < hi) {
            size_t m = (lo + hi) / 2;
            const mapi *a = A.byt[m];
            if (a->thread < tids[t] || (a->thread == tids[t] && a->start <= e->c1))
                lo = m + 1;
            else
                hi = m;
        }
        for (size_t k = lo, steps = 0; k-- > 0 && steps < 64 && n < MAXC; steps++) {
            const mapi *a = A.byt[k];
            if (a->thread != tids[t])
                break;
            int inside = a->start >= e->c0 && a->end <= e->c1;
            int around = a->start <= e->c0 && a->end >= e->c1;
            if ((inside || around) && a->corr)
                c[n++] = a->corr;
        }
        if (tids[0] == tids[1])
            break;
    }
    return n;
}

/* X was held back by `shift`: the ops after it on its stream move earlier
   too, as far as their own submission allows.  Marks the chain (stamp)
   and returns the lost tail [end - shift, end] of its last moved op. */
static iv chain(size_t x, int64_t shift, uint32_t stamp)
{
    const strm *s = &A.s[A.spos[x]];
    size_t j = A.sidx[x], last = x;
    int64_t sh = shift;
    A.stamp[x] = stamp;
    A.chained[A.spos[x]] = stamp;
    for (size_t k = j + 1, steps = 0; k < s->n && steps < CHAIN_MAX; k++, steps++) {
        size_t y = s->ix[k];
        int64_t could = A.submit[y] > ops.v[last].end - sh ? A.submit[y] : ops.v[last].end - sh;
        int64_t sy = ops.v[y].start - could;
        if (sy > sh)
            sy = sh;
        if (sy <= TOL_NS)
            break;
        sh = sy;
        last = y;
        A.stamp[y] = stamp;
    }
    return (iv){ops.v[last].end - sh, ops.v[last].end};
}

/* Rules whose call is a barrier for other streams' later work. */
#define BARRIER_RULES                                                                                   \
    ((1u << SC_RULE_SC101) | (1u << SC_RULE_SC102) | (1u << SC_RULE_SC103) | (1u << SC_RULE_SC202) |    \
     (1u << SC_RULE_SC204) | (1u << SC_RULE_SC501) | (1u << SC_RULE_SC601))

static void analyse_event(mev *e, uint32_t stamp)
{
    uint32_t corr[MAXC];
    size_t nc = event_corrs(e, corr);
    size_t own[64], nown = 0;
    for (size_t i = 0; i < nc; i++) {
        size_t lo = 0, hi = ops.n;
        while (lo < hi) {
            size_t m = (lo + hi) / 2;
            if (A.byc[m].corr < corr[i])
                lo = m + 1;
            else
                hi = m;
        }
        for (; lo < ops.n && A.byc[lo].corr == corr[i] && nown < 64; lo++) {
            size_t o = A.byc[lo].op, k;
            for (k = 0; k < nown && own[k] != o; k++)
                ;
            if (k == nown) {
                own[nown++] = o;
                e->corr = corr[i];
            }
        }
    }
    dev *d = nown ? dev_of(ops.v[own[0]].device) : NULL;
    if (!d) {   /* no GPU work of its own: the device with the most work */
        for (size_t i = 0; i < A.nd; i++)
            if (!d || A.d[i].g.ops > d->g.ops)
                d = &A.d[i];
    }
    if (!d)
        return;
    ivs *L = &A.ev_ivs;
    size_t from = L->n;
    int64_t best = 0;

    /* (A) The host was held inside the call: the GPU idle time it caused,
       from the call's start (with SC203's wait for its stream) until the
       device's next work started, if the device was busy when the call
       began and work followed; at most the time the host was held. */
    if (e->timed) {
        int64_t w0 = e->c0 - e->drain, held = e->c1 - w0;
        long b = busy_at(d, w0);
        size_t nx = first_from(d, e->c1);
        if (b >= 0 && held > 0 && nx < d->o1) {   /* no work after it: nothing waited */
            int64_t w1 = ops.v[nx].start;
            int64_t total = 0;
            for (size_t k = (size_t)b; k < d->busy.n && total < held; k++) {
                int64_t ia = d->busy.v[k].b, ib = k + 1 < d->busy.n ? d->busy.v[k + 1].a : INT64_MAX;
                if (ia >= w1)
                    break;
                if (ib > w1)
                    ib = w1;
                if (ib - ia > held - total)
                    ib = ia + (held - total);
                iv_add(L, ia, ib);
                total += ib > ia ? ib - ia : 0;
            }
        }
    }

    /* (B) Implicit dependency: ops that started later than they could
       have -- the call's own ops, and for a barrier the first op of every
       other stream of the device submitted after the call began that
       waited for it -- with the ops behind them on their streams.  Without
       the dependency each chain would end `shift` earlier; the lost time
       is that tail, where no other work ran on the device. */
    ivs tails = {0};
    int64_t release = INT64_MIN;
    for (size_t i = 0; i < nown; i++) {
        size_t x = own[i];
        if (ops.v[x].end > release)
            release = ops.v[x].end;
        int64_t could = A.submit[x] > A.prev_end[x] ? A.submit[x] : A.prev_end[x];
        int64_t dx = ops.v[x].start - could;
        if (dx > TOL_NS) {
            iv t = chain(x, dx, stamp);
            iv_add(&tails, t.a, t.b);
        } else {
            A.stamp[x] = stamp;
        }
        if (e->target < 0)
            e->target = (long)x;
    }
    if (release == INT64_MIN)
        release = e->c1;
    if (e->rules & BARRIER_RULES) {
        for (size_t k = 0; k < A.ns; k++) {
            const strm *s = &A.s[k];
            if (s->device != d->id)
                continue;
            int mine = 0;
            for (size_t i = 0; i < nown; i++)
                mine |= A.spos[own[i]] == k;
            if (mine)
                continue;
            /* the first op of s submitted at or after the call's start */
            size_t lo = 0, hi = s->n;
            while (lo < hi) {
                size_t m = (lo + hi) / 2;
                if (ops.v[s->ix[m]].start < e->c0)
                    lo = m + 1;
                else
                    hi = m;
            }
            for (size_t steps = 0; lo < s->n && steps < 8 && A.submit[s->ix[lo]] < e->c0; lo++, steps++)
                ;
            if (lo >= s->n)
                continue;
            size_t x = s->ix[lo];
            if (A.submit[x] >= release || ops.v[x].start < release - TOL_NS)
                continue;
            int64_t could = A.submit[x] > A.prev_end[x] ? A.submit[x] : A.prev_end[x];
            int64_t dx = ops.v[x].start - could;
            if (dx <= TOL_NS)
                continue;
            iv t = chain(x, dx, stamp);
            iv_add(&tails, t.a, t.b);
            if (dx > best) {
                best = dx;
                e->target = (long)x;
            }
        }
    }
    iv_norm(&tails, 0);
    /* less the time other work ran on the device (every op not in this
       event's chains): there the device was not waiting for the held-back
       work.  Streams without a chain give their busy time; a stream with
       one, its ops outside the chain. */
    for (size_t t = 0; t < tails.n; t++) {
        iv cur = tails.v[t];
        ivs cover = {0};
        for (size_t k = 0; k < A.ns; k++) {
            const strm *s = &A.s[k];
            if (s->device != d->id)
                continue;
            if (A.chained[k] == stamp) {
                size_t lo = 0, hi = s->n;
                while (lo < hi) {   /* a stream's ops are in order: the first ending after cur.a */
                    size_t m = (lo + hi) / 2;
                    if (ops.v[s->ix[m]].end <= cur.a)
                        lo = m + 1;
                    else
                        hi = m;
                }
                for (size_t c = 0; lo < s->n && ops.v[s->ix[lo]].start < cur.b && c < COVER_MAX; lo++, c++) {
                    const mop *o = &ops.v[s->ix[lo]];
                    if (A.stamp[s->ix[lo]] != stamp)
                        iv_add(&cover, o->start > cur.a ? o->start : cur.a, o->end < cur.b ? o->end : cur.b);
                }
                continue;
            }
            size_t lo = 0, hi = s->busy.n;
            while (lo < hi) {   /* the first busy interval ending after cur.a */
                size_t m = (lo + hi) / 2;
                if (s->busy.v[m].b <= cur.a)
                    lo = m + 1;
                else
                    hi = m;
            }
            for (size_t c = 0; lo < s->busy.n && s->busy.v[lo].a < cur.b; lo++, c++) {
                if (c == COVER_MAX) {   /* dense work: call the rest covered */
                    iv_add(&cover, s->busy.v[lo].a > cur.a ? s->busy.v[lo].a : cur.a, cur.b);
                    break;
                }
                int64_t a = s->busy.v[lo].a > cur.a ? s->busy.v[lo].a : cur.a;
                int64_t b = s->busy.v[lo].b < cur.b ? s->busy.v[lo].b : cur.b;
                iv_add(&cover, a, b);
            }
        }
        iv_norm(&cover, 0);
        int64_t at = cur.a;
        for (size_t c = 0; c < cover.n; c++) {
            iv_add(L, at, cover.v[c].a);
            if (cover.v[c].b > at)
                at = cover.v[c].b;
        }
        iv_add(L, at, cur.b);
        free(cover.v);
    }
    free(tails.v);
    iv_norm(L, from);
    e->iv0 = from;
    e->niv = L->n - from;
    e->lost = iv_len(L->v + from, e->niv);
}

static void analyse(void)
{
    pthread_mutex_lock(&rec_mu);
    pthread_mutex_lock(&ev_mu);
    prepare();
    if (A.done)
        for (size_t i = 0; i < evs.n; i++)
            if (evs.v[i].ncommits)
                analyse_event(&evs.v[i], (uint32_t)i + 1);
    pthread_mutex_unlock(&ev_mu);
    pthread_mutex_unlock(&rec_mu);
}

/* The last flush: every record CUPTI holds for us comes in, later ones are
   ignored, our kinds are off.  With cupti_mu held. */
static void release_locked(void)
{
    sc_measure_active = 0;
    F.FlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    size_t drop = 0;
    if (F.GetNumDropped && F.GetNumDropped(NULL, 0, &drop) == CUPTI_SUCCESS)
        dropped += drop;
    atomic_store(&closed, 1);
    static const CUpti_ActivityKind kinds[] = {
        CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
        CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_RUNTIME,
        CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};
    for (size_t i = 0; i < SC_ARRAY_LEN(kinds); i++)
        F.Disable(kinds[i]);
}

/* CUPTI's own clock on Linux (cuptiActivityRegisterTimestampCallback): what
   the next client would have had if we had never asked for ours. */
static uint64_t CUPTIAPI cupti_default_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void sc_measure_handover(const char *api)
{
    if (!sc_measure_active)
        return;
    pthread_mutex_lock(&cupti_mu);
    if (!sc_measure_active || stopped) {
        pthread_mutex_unlock(&cupti_mu);
        return;
    }
    release_locked();
    /* Leave CUPTI as a fresh process would have it: its clock back (a NULL
       callback is refused), and no subscriber. */
    if (have_ts_cb)
        F.RegisterTimestampCallback(cupti_default_clock);
    if (subscribed && F.Unsubscribe)
        F.Unsubscribe(our_sub);
    subscribed = 0;
    handed = 1;
    handed_ns = (int64_t)(sc_now_ns() - sc_start_ns);
    pthread_mutex_unlock(&cupti_mu);
    sc_log(SC_LOG_WARNING, "measured mode: the program's own profiler asked for CUPTI (%s) %.3f s into the "
           "run; handing it over: the GPU timeline ends there, and later findings are priced in detect mode",
           api, (double)handed_ns / 1e9);
}

void *sc_measure_cupti_sym(const char *name)
{
    return F.lib ? sc_dlsym_real(F.lib, name) : NULL;
}

void sc_measure_stop(void)
{
    pthread_mutex_lock(&cupti_mu);
    if (stopped || !(sc_measure_active || handed)) {
        pthread_mutex_unlock(&cupti_mu);
        return;
    }
    stopped = 1;
    if (sc_measure_active)
        release_locked();
    pthread_mutex_unlock(&cupti_mu);
    if (dropped)
        sc_log(SC_LOG_WARNING, "measured mode: CUPTI dropped %" PRIu64 " activity records; the GPU "
               "numbers are low", dropped);
    if (ops_seen > ops.n)
        sc_log(SC_LOG_WARNING, "measured mode: %" PRIu64 " GPU operations recorded; the analysis covers "
               "the first %zu", ops_seen, ops.n);
    analyse();
}

/* ------------------------------------------------------------- report --- */
int sc_measure_price(const sc_agg_key *k, uint64_t *lost_ns)
{
    if (!A.done)
        return 0;
    ivs u = {0};
    uint64_t events = 0, weight = 0;
    for (size_t i = 0; i < commits.n; i++) {
        const mcommit *c = &commits.v[i];
        if (memcmp(&c->key, k, sizeof *k))
            continue;
        const mev *e = &evs.v[c->mid - 1];
        events++;
        weight += c->weight;
        for (size_t j = 0; j < e->niv; j++)
            iv_add(&u, A.ev_ivs.v[e->iv0 + j].a, A.ev_ivs.v[e->iv0 + j].b);
    }
    if (!events) {
        free(u.v);
        return 0;
    }
    iv_norm(&u, 0);
    uint64_t lost = (uint64_t)iv_len(u.v, u.n);
    free(u.v);
    /* sampled events (SC101 notes) stand for `weight` events each */
    if (weight > events)
        lost = (uint64_t)((double)lost * (double)weight / (double)events);
    *lost_ns = lost;
    return 1;
}

static uint32_t name_index(sc_report *r, const char *s)
{
    for (size_t i = 0; i < r->nnames; i++)
        if (!strcmp(r->names[i], s))
            return (uint32_t)i;
    char **nn = realloc(r->names, (r->nnames + 1) * sizeof *nn);
    if (!nn)
        return 0;
    r->names = nn;
    if (!(nn[r->nnames] = strdup(s)))
        return 0;
    return (uint32_t)r->nnames++;
}

void sc_measure_fill(sc_report *r)
{
    if (!A.done || !r->nprocs)
        return;
    sc_gpu *g = calloc(1, sizeof *g);
    if (!g)
        return;
    g->devices = calloc(A.nd ? A.nd : 1, sizeof *g->devices);
    g->streams = calloc(A.ns ? A.ns : 1, sizeof *g->streams);
    if (!g->devices || !g->streams) {
        sc_gpu_free(g);
        return;
    }
    for (size_t i = 0; i < A.nd; i++) {
        const sc_gpu_device *x = &A.d[i].g;
        g->devices[g->ndevices++] = *x;
        g->span_ns += x->span_ns;
        g->busy_ns += x->busy_ns;
        g->idle_ns += x->idle_ns;
        g->overlap_ns += x->overlap_ns;
        g->overlap_compute_copy_ns += x->overlap_compute_copy_ns;
        g->overlap_compute_compute_ns += x->overlap_compute_compute_ns;
    }
    for (size_t k = 0; k < A.ns; k++)   /* met in device, then start order */
        g->streams[g->nstreams++] = (sc_gpu_stream){A.s[k].device, A.s[k].id,
                                                    (uint64_t)iv_len(A.s[k].busy.v, A.s[k].busy.n), A.s[k].n};
    g->ops = ops_seen;
    g->dropped = dropped;
    g->handed_over = handed;
    g->handed_over_ns = handed ? (uint64_t)handed_ns : 0;
    r->procs[0].gpu = g;

    /* the timeline: names, GPU ops (the first MODEL_OPS_MAX by start),
       host spans, finding marks */
    r->names = calloc(names.n ? names.n : 1, sizeof *r->names);
    if (!r->names)
        return;
    for (size_t i = 0; i < names.n; i++)
        if ((r->names[i] = strdup(names.v[i] ? names.v[i] : "")))
            r->nnames = i + 1;
        else
            break;
    if (!r->nnames && (r->names[0] = strdup("")))
        r->nnames = 1;
    size_t keep = ops.n;
    int64_t cut = INT64_MAX;
    if (keep > MODEL_OPS_MAX) {   /* the earliest ones over all devices */
        int64_t *st = malloc(ops.n * sizeof *st);
        if (st) {
            for (size_t i = 0; i < ops.n; i++)
                st[i] = ops.v[i].start;
            qsort(st, ops.n, sizeof *st, cmp64);
            cut = st[MODEL_OPS_MAX - 1];
            free(st);
        }
        keep = MODEL_OPS_MAX;
    }
    long *map = malloc((ops.n ? ops.n : 1) * sizeof *map);
    r->gpu_ops = calloc(keep ? keep : 1, sizeof *r->gpu_ops);
    if (!map || !r->gpu_ops) {
        free(map);
        return;
    }
    for (size_t i = 0; i < ops.n; i++) {
        const mop *o = &ops.v[i];
        map[i] = -1;
        if (o->start > cut || r->ngpu_ops >= keep)
            continue;
        map[i] = (long)r->ngpu_ops;
        r->gpu_ops[r->ngpu_ops++] = (sc_gpu_op){0, o->device, o->stream, o->kind, o->copy, o->src, o->dst,
                                                o->name < r->nnames ? o->name : 0, o->start, o->end, o->bytes,
                                                o->corr};
    }
    g->ops_kept = r->ngpu_ops;

    size_t nsp = apis.n < MODEL_SPANS_MAX ? apis.n : MODEL_SPANS_MAX;
    r->host_spans = calloc(nsp ? nsp : 1, sizeof *r->host_spans);
    if (r->host_spans) {
        for (size_t i = 0; i < A.nbyt && r->nhost_spans < nsp; i++) {
            const mapi *a = A.byt[i];
            char buf[64];
            const char *nm = sc_cbid_name(a->runtime, a->cbid);
            if (!nm) {
                snprintf(buf, sizeof buf, "%s API call (cbid %u)", a->runtime ? "runtime" : "driver", a->cbid);
                nm = buf;
            }
            r->host_spans[r->nhost_spans++] =
                (sc_host_span){0, a->thread, a->runtime, name_index(r, nm), a->start, a->end, a->corr};
        }
    }

    r->marks = calloc(MODEL_MARKS_MAX, sizeof *r->marks);
    if (r->marks) {
        for (size_t i = 0; i < evs.n && r->nmarks < MODEL_MARKS_MAX; i++) {
            const mev *e = &evs.v[i];
            if (e->main_commit < 0)
                continue;
            const sc_agg_key *k = &commits.v[e->main_commit].key;
            sc_finding_mark *m = &r->marks[r->nmarks++];
            m->process = 0;
            m->rule = (sc_rule_id)k->rule;
            if (k->site)
                snprintf(m->callsite, sizeof m->callsite, "%016" PRIx64, k->site);
            const char *api = e->rt && e->rt < SC_NRT ? sc_rt_names[e->rt]
                              : e->api < SC_NAPI     ? sc_apis[e->api].name
                                                     : "";
            m->api = name_index(r, api);
            /* the thread as CUPTI names it: whichever of its ids the API
               records use */
            m->thread = !thread_known(e->pthread) && thread_known(e->tid) ? e->tid : e->pthread;
            m->start_ns = e->c0;
            m->end_ns = e->c1;
            m->correlation = e->corr;
            m->op = e->target >= 0 ? map[e->target] : -1;
            m->lost_ns = (uint64_t)(e->lost > 0 ? e->lost : 0);
        }
    }
    free(map);
}
