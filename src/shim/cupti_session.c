/* cupti_session.c: measured mode's CUPTI session (cupti_session.h).
 * CUPTI's activity API, loaded with dlopen, records the GPU's kernels,
 * copies and memsets and the host's CUDA API calls; the buffers it
 * completes are parsed into plain records (timeline.h's types) for
 * measure.c to analyse at exit.
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
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core.h"
#include "cupti_session.h"
#include "real.h"
#include "shim.h"
#include "timeline.h"
#include "vec.h"

_Atomic int sc_measure_active;

#define OPS_MAX 2000000u           /* GPU operations analysed; more are counted */
#define APIS_MAX 2000000u          /* API records kept */
#define BUF_SIZE (4u << 20)

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

const char *sc_cupti_api_name(int runtime, uint32_t cbid)
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

static int have_ts_cb;            /* CUPTI timestamps are sc_now_ns() */
static int64_t ts_offset;         /* else: CUPTI time - sc_now_ns() */
static int have_ext;              /* external correlation records enabled */
static _Atomic int closed;        /* after the last flush: records are ignored */
static int stopped;
static int started;               /* subscribed, our buffers registered: the session is ours */
static int windowed;              /* recording only inside a window ... */
static int64_t window_a = -1, window_b = -1;   /* ... which opened and closed then */
/* Start, a window's ends, hand-over and stop, one at a time. */
static pthread_mutex_t cupti_mu = PTHREAD_MUTEX_INITIALIZER;
static CUpti_SubscriberHandle our_sub;
static int subscribed;
static int handed;                /* the program's own profiler took CUPTI ... */
static int64_t handed_ns;         /* ... this long after the shim started */
static char lib_path[4200];       /* a directory of dirs below and the file name */

/* ----------------------------------------------------------- records --- */
static pthread_mutex_t rec_mu = PTHREAD_MUTEX_INITIALIZER;   /* records */
static SC_VEC(sc_tl_op) ops;
static SC_VEC(sc_tl_api) apis;
static SC_VEC(sc_tl_ext) exts;
static SC_VEC(char *) names;
static uint64_t ops_seen, dropped;

/* Kernel names: CUPTI shares one string per kernel; interned by pointer
   (checked by content), copied because CUPTI may free it. */
#define NAME_TAB 4096
static struct { const char *p; uint32_t idx; } name_tab[NAME_TAB];

/* A copy of s appended to names: its index, or 0 when out of memory. */
static uint32_t add_name(const char *s)
{
    char *c = strdup(s);
    if (!c || !SC_VEC_PUSH(names, c)) {
        free(c);
        return 0;
    }
    return (uint32_t)(names.n - 1);
}

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
            uint32_t idx = add_name(s);
            if (!idx)
                return 0;
            name_tab[k].p = s;
            name_tab[k].idx = idx;
            return idx;
        }
    }
    for (size_t i = 1; i < names.n; i++)   /* table crowded: look it up by content */
        if (!strcmp(names.v[i], s))
            return (uint32_t)i;
    return add_name(s);
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

static void add_op(const sc_tl_op *o)
{
    ops_seen++;
    if (ops.n < OPS_MAX)
        (void)SC_VEC_PUSH(ops, *o);
}

/* Reads the leading fields of each record only: they keep their place
   when CUPTI adds fields (Kernel10 in 13.0, Kernel11 in 13.2), and records
   are walked with cuptiActivityGetNextRecord, never by sizeof. */
static void parse_one(const CUpti_Activity *r)
{
    switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const CUpti_ActivityKernel10 *k = (const void *)r;
        add_op(&(sc_tl_op){.start = rel(k->start), .end = rel(k->end), .corr = k->correlationId,
                           .stream = k->streamId, .name = intern(k->name), .device = k->deviceId,
                           .kind = SC_GPU_KERNEL});
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy6 *m = (const void *)r;
        add_op(&(sc_tl_op){.start = rel(m->start), .end = rel(m->end), .bytes = m->bytes,
                           .corr = m->correlationId, .stream = m->streamId, .device = m->deviceId,
                           .kind = SC_GPU_MEMCPY, .copy = copy_kind(m->copyKind), .src = mem_kind(m->srcKind),
                           .dst = mem_kind(m->dstKind)});
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *m = (const void *)r;
        add_op(&(sc_tl_op){.start = rel(m->start), .end = rel(m->end), .bytes = m->bytes,
                           .corr = m->correlationId, .stream = m->streamId, .device = m->deviceId,
                           .kind = SC_GPU_MEMSET, .dst = mem_kind((uint8_t)m->memoryKind)});
        break;
    }
    case CUPTI_ACTIVITY_KIND_DRIVER:
    case CUPTI_ACTIVITY_KIND_RUNTIME: {
        const CUpti_ActivityAPI *a = (const void *)r;
        sc_tl_api x = {.start = rel(a->start), .end = rel(a->end), .corr = a->correlationId,
                       .thread = a->threadId, .cbid = a->cbid, .runtime = r->kind == CUPTI_ACTIVITY_KIND_RUNTIME};
        if (apis.n < APIS_MAX)
            (void)SC_VEC_PUSH(apis, x);
        break;
    }
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        const CUpti_ActivityExternalCorrelation *e = (const void *)r;
        if (e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2)
            (void)SC_VEC_PUSH(exts, ((sc_tl_ext){e->externalId, e->correlationId}));
        break;
    }
    default:
        break;
    }
}

static void CUPTIAPI buf_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *max_records = 0;
    *buffer = aligned_alloc(8, BUF_SIZE);
    *size = *buffer ? BUF_SIZE : 0;
}

static void parse(uint8_t *buf, size_t valid)
{
    CUpti_Activity *r = NULL;
    while (F.GetNextRecord(buf, valid, &r) == CUPTI_SUCCESS)
        parse_one(r);
}

/* After the last flush records are ignored: closed is looked at again
   under the lock, which sc_cupti_take holds while it takes the records. */
static void CUPTIAPI buf_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                   size_t valid)
{
    (void)size;
    (void)ctx;
    (void)stream;
    int saved = errno;
    if (buffer && valid && !atomic_load(&closed) && !(sc_g.ablate & SC_ABLATE_PARSE)) {
        pthread_mutex_lock(&rec_mu);
        if (!atomic_load(&closed))
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

/* The directory of a loaded library whose file name begins with want. */
static void add_dir_of(dirs *ds, const char *path, const char *want)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    if (slash && !strncmp(slash + 1, want, strlen(want)))
        add_dir(ds, path, (size_t)(slash - path));
}

/* Directories of the CUDA runtime the program loaded, then of cuBLAS (a
   pip nvidia/cu13/lib holds CUPTI beside them). */
static int loaded_dirs(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    add_dir_of(arg, info->dlpi_name, "libcudart.so");
    return 0;
}

static int loaded_dirs_cublas(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    add_dir_of(arg, info->dlpi_name, "libcublas.so");
    return 0;
}

static void candidate_dirs(dirs *ds)
{
    /* 1. next to the CUDA runtime the program loaded (a CUDA toolkit, or a
          pip wheel's nvidia/cu13/lib) */
    dl_iterate_phdr(loaded_dirs, ds);
    /* 2. $CUDA_HOME */
    const char *home = getenv("CUDA_HOME");
    const char *more[] = {"lib64", "targets/x86_64-linux/lib", "extras/CUPTI/lib64"};
    char p[4200];
    if (home && *home)
        for (size_t i = 0; i < SC_ARRAY_LEN(more); i++) {
            snprintf(p, sizeof p, "%s/%s", home, more[i]);
            add_dir(ds, p, strlen(p));
        }
    /* 3. the toolkit's usual places */
    add_dir(ds, "/usr/local/cuda/extras/CUPTI/lib64", strlen("/usr/local/cuda/extras/CUPTI/lib64"));
    add_dir(ds, "/usr/local/cuda/targets/x86_64-linux/lib", strlen("/usr/local/cuda/targets/x86_64-linux/lib"));
    /* 4. next to cuBLAS (pip wheels) */
    dl_iterate_phdr(loaded_dirs_cublas, ds);
}

static void *open_cupti(void)
{
    dirs ds = {.n = 0};
    char p[4200];
    candidate_dirs(&ds);
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

/* The fork handler takes the records' lock (core.c, registered parts). */
static void session_lock(void)
{
    pthread_mutex_lock(&rec_mu);
}

static void session_unlock(void)
{
    pthread_mutex_unlock(&rec_mu);
}

static void child_after_fork(void)
{
    /* CUPTI does not follow a fork: the child reports in detect mode. */
    pthread_mutex_init(&rec_mu, NULL);
    pthread_mutex_init(&cupti_mu, NULL);
    sc_measure_active = 0;
    stopped = 1;
}

/* Order 85: before fork the records' lock is taken before measure.c's
   events' lock (86), the order measured mode's one part had. */
static const sc_part part = {"cupti", 85, session_lock, session_unlock, child_after_fork, NULL, NULL};
SC_PART_REGISTER(part)

/* ---------------------------------------------------------- starting --- */
#define TAKEN "CUPTI is in use by another tool (a profiler such as Nsight Systems or torch.profiler)"

static int load_symbols(void)
{
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
        return -1;
    }
    return 0;
}

/* One CUPTI client per process (CUDA 13.0 to 13.2): a profiler that holds
   it keeps it.  Ours is named, so a tool that finds CUPTI taken can say by
   whom; the program's own profiler gets it from us when it asks
   (hooks_cupti.c, sc_cupti_handover). */
static int subscribe(void)
{
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
        return -1;
    }
    if (r != CUPTI_SUCCESS) {
        off("cuptiSubscribe failed: %s", why(r));
        return -1;
    }
    subscribed = F.Subscribe2 || F.Subscribe;
    return 0;
}

/* Timestamps on our own clock, so host and GPU times line up (else the
   offset between the two clocks); this must come before any kind is
   enabled. */
static void use_our_clock(void)
{
    if (!(sc_g.ablate & SC_ABLATE_TS) && F.RegisterTimestampCallback &&
        F.RegisterTimestampCallback(timestamp) == CUPTI_SUCCESS) {
        have_ts_cb = 1;
    } else if (F.GetTimestamp) {
        uint64_t a = sc_now_ns(), c = 0, b;
        F.GetTimestamp(&c);
        b = sc_now_ns();
        ts_offset = (int64_t)c - (int64_t)(a + (b - a) / 2);
    }
}

static int enable_kinds(void)
{
    /* Concurrent kernels, never CUPTI_ACTIVITY_KIND_KERNEL: that one
       serializes kernels and would change what we measure. */
    static const CUpti_ActivityKind need[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                              CUPTI_ACTIVITY_KIND_MEMSET};
    /* Not CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: nothing read its records
       (the API records hold the host side of a synchronization).  On an
       H100 training loop, leaving it off measured 0.910x native against
       0.867x, inside the machine's spread (docs/PERFORMANCE.md). */
    static const CUpti_ActivityKind want[] = {CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_RUNTIME,
                                              CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};
    CUptiResult r;
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
        return -1;
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
    return 0;
}

static void disable_kinds(void)
{
    static const CUpti_ActivityKind kinds[] = {
        CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
        CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_RUNTIME,
        CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};
    for (size_t i = 0; i < SC_ARRAY_LEN(kinds); i++)
        F.Disable(kinds[i]);
}

static int64_t now_rel(void)
{
    return (int64_t)(sc_now_ns() - sc_start_ns);
}

/* What an API record costs the calling thread: k calls of a cheap driver
   function (cuCtxGetCurrent) timed without records and with them, the
   best of three each.  Measured mode's host time between two calls is
   longer by that much for each record made in it, which the pricing model
   takes out.  The timed calls' own records stay: they are the calling
   thread's, before its first call the model records, and are taken out of
   that gap like any other. */
static double record_ns;
static double off_call_ns;                          /* the call without records; 0: not timed */
static _Atomic uint64_t cold_sum, cold_n;           /* sc_cupti_sample_record's */

static uint64_t timed_calls(unsigned k)
{
    uint64_t best = UINT64_MAX;
    CUcontext ctx;
    for (int r = 0; r < 3; r++) {
        uint64_t t0 = sc_now_ns();
        for (unsigned i = 0; i < k; i++)
            sc_d.CtxGetCurrent(&ctx);
        uint64_t dt = sc_now_ns() - t0;
        best = dt < best ? dt : best;
    }
    return best;
}

static int enable_timed(void)
{
    enum { K = 500 };
    uint64_t off_ns = sc_d.CtxGetCurrent ? timed_calls(K) : 0;
    if (enable_kinds())
        return -1;
    if (!off_ns)
        return 0;
    uint64_t on_ns = timed_calls(K);
    off_call_ns = (double)off_ns / K;
    record_ns = on_ns > off_ns ? (double)(on_ns - off_ns) / K : 0;
    sc_log(SC_LOG_INFO, "measured mode: an API record costs the calling thread %.0f ns", record_ns);
    return 0;
}

double sc_cupti_record_ns(void)
{
    return record_ns;
}

/* One record's cost amid the program's work, where its caches have been
   the program's: one call timed, with its record (a preempted one, over
   100 us, left out). */
void sc_cupti_sample_record(void)
{
    if (!off_call_ns || !sc_measure_active)   /* a record may cost too little to see in the loop */
        return;
    CUcontext ctx;
    uint64_t t0 = sc_now_ns();
    sc_d.CtxGetCurrent(&ctx);
    uint64_t dt = sc_now_ns() - t0;
    if (dt < 100000) {
        atomic_fetch_add_explicit(&cold_sum, dt, memory_order_relaxed);
        atomic_fetch_add_explicit(&cold_n, 1, memory_order_relaxed);
    }
}

double sc_cupti_cold_ns(uint64_t *samples)
{
    uint64_t n = atomic_load(&cold_n), s = atomic_load(&cold_sum);
    *samples = n;
    double v = n ? (double)s / (double)n - off_call_ns : 0;
    return v > 0 ? v : 0;
}

static void start_locked(void (*at_exit)(void), int record)
{
    if (!(F.lib = open_cupti())) {
        off("libcupti.so.13 was not found (next to the CUDA runtime, in $CUDA_HOME, "
            "/usr/local/cuda/extras/CUPTI/lib64, /usr/local/cuda/targets/x86_64-linux/lib, next to "
            "cuBLAS or on the library path)");
        return;
    }
    if (load_symbols() || subscribe())
        return;
    use_our_clock();
    CUptiResult r = F.RegisterCallbacks(buf_requested, buf_completed);
    if (r != CUPTI_SUCCESS) {
        off("cuptiActivityRegisterCallbacks failed: %s", why(r));
        return;
    }
    pthread_mutex_lock(&rec_mu);
    if (!names.n)
        add_name("");   /* index 0: no name */
    pthread_mutex_unlock(&rec_mu);
    if (record) {
        if (enable_timed())
            return;
        sc_measure_active = 1;
        sc_log(SC_LOG_INFO, "measured mode: recording the GPU timeline with %s", lib_path);
    } else {
        windowed = 1;
        sc_log(SC_LOG_INFO, "measured mode: %s loaded; the GPU timeline is recorded in a window", lib_path);
    }
    started = 1;
    /* CUPTI registers an exit handler of its own when it is loaded, after
       the shim's (core.c): exit handlers run in reverse, so CUPTI would be
       torn down before the report asked it for the last records (a crash
       inside cuptiActivityDisable, seen on an H100).  Ours, registered now,
       runs before CUPTI's; the report's call then finds it stopped. */
    atexit(at_exit);
}

int sc_cupti_start(void (*at_exit)(void), int record)
{
    pthread_mutex_lock(&cupti_mu);
    start_locked(at_exit, record);
    int r = started ? 0 : -1;
    pthread_mutex_unlock(&cupti_mu);
    return r;
}

/* A window's ends (cupti_window.c).  Kinds enabled part-way and disabled
   again, as a profiler with a schedule does (torch.profiler's warm-up and
   active steps); the records already taken wait in their buffers for the
   last flush.  The first opening and the last closing are the window. */
int sc_cupti_record(int on)
{
    int r = -1;
    pthread_mutex_lock(&cupti_mu);
    if (started && !stopped && !handed) {
        r = 0;
        if (on && !sc_measure_active) {
            if (enable_kinds()) {
                started = 0;   /* refused (another tool took CUPTI): detect mode */
                r = -1;
            } else {
                sc_measure_active = 1;
                if (window_a < 0)
                    window_a = now_rel();
            }
        } else if (!on && sc_measure_active) {
            sc_measure_active = 0;
            disable_kinds();
            window_b = now_rel();
        }
    }
    pthread_mutex_unlock(&cupti_mu);
    return r;
}

/* ------------------------------------------------------ the calls --- */
void sc_cupti_push(uint64_t ext)
{
    if (have_ext)
        F.Push(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, ext);
}

void sc_cupti_pop(void)
{
    uint64_t popped;
    if (have_ext)
        F.Pop(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, &popped);
}

/* ---------------------------------------------------------- stopping --- */
/* The last flush: every record CUPTI holds for us comes in, later ones are
   ignored, our kinds are off.  With cupti_mu held. */
static void release_locked(void)
{
    if (sc_measure_active && windowed)
        window_b = now_rel();   /* the window closes with the run */
    sc_measure_active = 0;
    F.FlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    size_t drop = 0;
    if (F.GetNumDropped && F.GetNumDropped(NULL, 0, &drop) == CUPTI_SUCCESS)
        dropped += drop;
    atomic_store(&closed, 1);
    disable_kinds();
}

/* CUPTI's own clock on Linux (cuptiActivityRegisterTimestampCallback): what
   the next client would have had if we had never asked for ours. */
static uint64_t CUPTIAPI cupti_default_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void sc_cupti_handover(const char *api)
{
    pthread_mutex_lock(&cupti_mu);
    if (!started || stopped) {
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
    started = 0;   /* the session is the other tool's now */
    handed_ns = (int64_t)(sc_now_ns() - sc_start_ns);
    pthread_mutex_unlock(&cupti_mu);
    sc_log(SC_LOG_WARNING, "measured mode: the program's own profiler asked for CUPTI (%s) %.3f s into the "
           "run; handing it over: the GPU timeline ends there, and later findings are priced in detect mode",
           api, (double)handed_ns / 1e9);
}

void *sc_cupti_sym(const char *name)
{
    return F.lib ? sc_dlsym_real(F.lib, name) : NULL;
}

int sc_cupti_stop(void)
{
    pthread_mutex_lock(&cupti_mu);
    if (stopped || !(started || handed)) {
        pthread_mutex_unlock(&cupti_mu);
        return 0;
    }
    stopped = 1;
    if (started)
        release_locked();
    int never = windowed && window_a < 0 && !handed;
    pthread_mutex_unlock(&cupti_mu);
    if (never) {
        sc_log(SC_LOG_WARNING, "measured mode: the run ended before its window (--measure-window) opened; "
               "reporting in detect mode");
        return 0;
    }
    if (dropped)
        sc_log(SC_LOG_WARNING, "measured mode: CUPTI dropped %" PRIu64 " activity records; the GPU "
               "numbers are low", dropped);
    if (ops_seen > ops.n)
        sc_log(SC_LOG_WARNING, "measured mode: %" PRIu64 " GPU operations recorded; the analysis covers "
               "the first %zu", ops_seen, ops.n);
    return 1;
}

void sc_cupti_take(sc_cupti_records *r)
{
    pthread_mutex_lock(&rec_mu);
    *r = (sc_cupti_records){ops.v, ops.n, apis.v, apis.n, exts.v, exts.n, names.v, names.n,
                            ops_seen, dropped, handed, handed_ns, windowed, window_a, window_b};
    memset(&ops, 0, sizeof ops);
    memset(&apis, 0, sizeof apis);
    memset(&exts, 0, sizeof exts);
    memset(&names, 0, sizeof names);
    pthread_mutex_unlock(&rec_mu);
}
