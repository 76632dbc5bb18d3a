/* shim.h: internal interfaces of libstreamcheck.so.
 *
 * Layers (cwrap style):  exported cuX() wrapper (hooks_driver.c)
 *                        -> sc_fast() (here) / sc_pre()/sc_post() (dispatch.c,
 *                           which calls the detectors of detect.h)
 *                        -> the real driver entry point (real.c; programs
 *                           find the wrappers through interpose.c).
 *
 * The hot path is sc_fast(): every intercepted driver call runs it, so it
 * touches only this thread's state and a few read-mostly globals, never
 * takes a lock and never calls the driver.  Anything that can be a hazard
 * leaves it for the slow path (sc_pre/sc_post), which may unwind the stack,
 * query streams and take locks.
 */
#ifndef SC_SHIM_H
#define SC_SHIM_H

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include <cuda.h>
#include <cudaTypedefs.h>

#include "config.h"
#include "options.h"
#include "rules.h"
#include "sc.h"

/* cudaTypedefs.h declares the CUDA 7.0 ABIs of these only for the driver's
   own build (__CUDA_API_VERSION_INTERNAL), yet CUDA 13's runtime asks for
   them (src/sim/cudart13-driver-lookups.txt).  Their parameters are those of the
   CUDA 11.0 successors. */
typedef PFN_cuDevicePrimaryCtxReset_v11000 PFN_cuDevicePrimaryCtxReset_v7000;
typedef PFN_cuDevicePrimaryCtxRelease_v11000 PFN_cuDevicePrimaryCtxRelease_v7000;

/* ---------------------------------------------------------------- ids --- */
typedef enum sc_api_id {
#define SC_DRV(base, abi, ver, P, A, C) SC_API_##abi,
#define SC_DRVP(base, abi, ver, pt, ptver, P, A, C) SC_API_##abi, SC_API_##abi##_##pt,
#include "hooks/all.def"
#undef SC_DRV
#undef SC_DRVP
    SC_NAPI
} sc_api_id;
#define SC_NO_API 0xffff

typedef struct sc_api_info {
    const char *name;   /* exported symbol: cuMemcpyHtoDAsync_v2, ..._v2_ptsz */
    const char *base;   /* what cuGetProcAddress is asked for */
    int ver;            /* ABI version of this entry point */
    uint16_t twin;      /* legacy <-> per-thread counterpart, or SC_NO_API */
    uint8_t pt;         /* 1 for a _ptsz/_ptds entry point */
} sc_api_info;
extern const sc_api_info sc_apis[SC_NAPI];   /* apis.c */
extern void *const sc_wrappers[SC_NAPI];      /* hooks_driver.c: our exported function per id */

/* Runtime API names for attribution (hooks_runtime.c). 0 = none. */
typedef enum sc_rt_id {
    SC_RT_NONE = 0,
#define SC_RT(name, P, A) SC_RT_##name,
#define SC_RTP(name, pt, P, A) SC_RT_##name, SC_RT_##name##_##pt,
#include "hooks/runtime.def"
#undef SC_RT
#undef SC_RTP
    SC_NRT
} sc_rt_id;
extern const char *const sc_rt_names[SC_NRT];   /* hooks_runtime.c */

/* --------------------------------------------------------------- ops --- */
typedef enum sc_kind {
    SC_K_NONE = 0,
    /* stream-ordered submissions: may stay on the fast path */
    SC_K_LAUNCH, SC_K_HOSTFN, SC_K_GRAPH, SC_K_COPYBATCH, SC_K_EVENT_RECORD, SC_K_WAIT_EVENT,
    SC_K_ALLOC_ASYNC, SC_K_FREE_ASYNC,
    SC_K_COPY,      /* async copy, direction known */
    SC_K_COPY_U,    /* async copy, unified addresses: direction from the pointers */
    SC_K_MEMSET,    /* async memset */
    /* always slow */
    SC_K_COPY2D, SC_K_COPY3D,            /* async 2D/3D: memory types in the struct */
    SC_K_SCOPY, SC_K_SCOPY_U, SC_K_SCOPY2D, SC_K_SCOPY3D, SC_K_SMEMSET,
    SC_K_ALLOC_DEV, SC_K_ALLOC_MANAGED, SC_K_FREE_DEV,
    SC_K_ALLOC_HOST, SC_K_FREE_HOST, SC_K_REGISTER, SC_K_UNREGISTER,
    SC_K_STREAM_CREATE, SC_K_STREAM_DESTROY, SC_K_STREAM_QUERY, SC_K_STREAM_SYNC,
    SC_K_CAPTURE_BEGIN, SC_K_CAPTURE_END,
    SC_K_EVENT_SYNC, SC_K_CTX_SYNC, SC_K_CACHE_CONFIG, SC_K_INIT,
    SC_K_CTX_GONE,  /* a context destroyed or reset: its streams are gone */
} sc_kind;

typedef enum sc_dir {
    SC_DIR_UNKNOWN = 0, SC_DIR_H2D, SC_DIR_D2H, SC_DIR_D2D, SC_DIR_H2H, SC_DIR_PEER,
} sc_dir;

/* Which stream a submission really lands on. */
typedef enum sc_lane {
    SC_LANE_NONE = 0,   /* not stream-ordered */
    SC_LANE_LEGACY,     /* the legacy NULL stream */
    SC_LANE_PTDS,       /* the calling thread's per-thread default stream */
    SC_LANE_CREATED,    /* a stream the program created */
} sc_lane;

struct sc_stream;

/* A finding produced by one call, committed in sc_post with the call's
   blocked time and call site. */
typedef struct sc_event {
    uint8_t rule;
    uint8_t sev;
    uint8_t pending;      /* another stream had unfinished work */
    uint8_t own_site;     /* use `site` instead of the call's site (SC102) */
    uint64_t site;
} sc_event;
#define SC_MAX_EVENTS 4

enum {
    SC_M_CHECK701 = 1,    /* a stream turned busy past the hardware queues */
    SC_M_SC102 = 2,       /* legacy work while blocking streams exist */
    SC_M_DRAINS = 4,      /* a synchronous copy that leaves its stream idle */
    SC_M_ALLOCSITE = 8,   /* count the call site for SC303 */
    SC_M_LEGACY = 16,     /* count the call site's legacy-stream work (SC103) */
};

typedef struct sc_op {
    uint16_t id;          /* sc_api_id of the entry point called */
    uint8_t pt;           /* called through a per-thread entry point */
    uint8_t kind;         /* sc_kind */
    uint8_t dir;          /* sc_dir, copies */
    uint8_t lane;         /* sc_lane, set by the fast path */
    uint8_t nev;
    uint8_t redirected;   /* redirect outcome index, 0 = not considered */
    uint8_t pageable;     /* copies: the host side is pageable */
    uint8_t marks;        /* SC_M_*: work the slow path still owes this call */
    uint8_t timed;        /* the call can block the host: measure it */
    uint8_t bypass;       /* the shim stopped judging (exit): pass through */
    uint8_t rd_where;     /* redirected: where the work went (SC_HB_OWN or SC_HB_PTDS, hb.h) */
    struct sc_own *rd_chain; /* redirected to the per-thread stream beside this
                             own stream: order the two after the call (sc_post) */
    CUstream stream;      /* as passed; NULL for implicit-stream calls */
    CUstream *streamp;    /* the wrapper's own stream parameter (redirect by handle) */
    const CUlaunchConfig **cfgp; /* cuLaunchKernelEx's config parameter (redirect to a stream) */
    CUlaunchConfig cfg;   /* the copy *cfgp points to once redirected */
    const void *host;     /* host side of a copy */
    const void *p1;       /* other pointer: destination, out-pointer, struct, event */
    const void *p2;       /* source of unified copies */
    size_t bytes;
    unsigned flags;
    int prio;
    void *ra;             /* return address into the caller */
    struct sc_stream *srec;
    void *call;           /* redirect: the entry point to call instead */
    uint64_t t0;          /* slow path: start of the real call */
    uint64_t drain_ns;    /* SC203: the wait for the stream's earlier work, done before the call */
    uint64_t drain_tk;    /* the same in TSC ticks: the driver's wait, not our time */
    uint64_t tin;         /* slow path: TSC at entry into sc_pre, then ticks spent in it */
    int saved_errno;
    CUcontext ctx;        /* slow path: the current context, once looked up */
    uint8_t has_ctx;
    CUcontext peer_ctx[2]; /* dir SC_DIR_PEER: the contexts of the two ends (NULL: unknown) */
    sc_event ev[SC_MAX_EVENTS];
} sc_op;

/* What the fast path reads is set here; sc_pre clears the rest, so the
   common call does not zero the whole record. */
#define SC_OP_INIT(op, ID, PT, RA)                                               \
    do {                                                                         \
        (op).id = (ID); (op).pt = (PT); (op).kind = 0; (op).dir = 0;             \
        (op).lane = 0; (op).marks = 0; (op).stream = NULL; (op).streamp = NULL;  \
        (op).cfgp = NULL; (op).call = NULL;                                      \
        (op).host = NULL; (op).p1 = NULL; (op).p2 = NULL; (op).bytes = 0;        \
        (op).flags = 0; (op).prio = 0; (op).ra = (RA); (op).srec = NULL;         \
    } while (0)

/* ------------------------------------------------------------ streams --- */
/* A record is reused when the driver hands out a destroyed stream's handle
   again, while another thread may still be reading it through an earlier
   lookup: what a reuse rewrites is atomic (ThreadSanitizer found it). */
typedef struct sc_stream {
    CUstream handle;           /* set once */
    _Atomic(CUcontext) ctx;
    _Atomic uint64_t active;   /* nonzero token: work submitted since last seen idle */
    _Atomic int alive;
    _Atomic int capturing;
    _Atomic unsigned flags;    /* CU_STREAM_NON_BLOCKING or default */
    _Atomic int prio;
    _Atomic pid_t creator;
    _Atomic uint64_t create_site; /* call site that created it (SC102) */
    _Atomic uint8_t last_copy; /* sc_dir of the last async copy (SC702) */
    _Atomic uint8_t internal;  /* NCCL's: made inside NCCL, or its first kernel was NCCL's
                                  (a framework's communication stream, as ProcessGroupNCCL's):
                                  the program's own work does not go there */
    _Atomic uint8_t launched;  /* its first kernel launch was looked at (track.c) */
} sc_stream;

/* One finding event (or weight sampled ones); cost_ns as the rule's basis
   prices it (sc_rule_cost_basis), also: other rules the same call broke. */
typedef struct sc_hit {
    uint8_t rule, sev, pending;
    uint8_t device;            /* ordinal of the call's device; SC_DEV_UNKNOWN */
    uint16_t api, rt;
    uint32_t also;
    uint64_t site, blocked_ns, bytes, cost_ns;
    uint32_t mid;         /* measured mode: the call's event (measure.h), 0: none */
} sc_hit;

#define SC_DEV_UNKNOWN 0xff    /* sc_hit.device, sc_agg_key.device: not known */
/* ----------------------------------------------------- own time, TSC --- */
/* The shim times itself with the time-stamp counter (a few ns, never a
   system call), converted to ns at report time against CLOCK_MONOTONIC
   over the whole run (core.c, sc_tsc_ns).  Always: the slow path, every
   call (sc_pre to the end of sc_post, less the real call and the wait
   drain_first does for the driver); the fast path, one call in
   SC_FAST_SAMPLE; initialization, the fork handlers and the report's own
   building at exit.  With STREAMCHECK_PROFILE=1 every phase below is timed
   and counted per thread and a table is printed at exit (prof.c). */
static inline uint64_t sc_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
    uint64_t v;
    __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
    return v;
#else
    return sc_now_ns();
#endif
}

typedef enum sc_phase {
    SC_PH_FAST,        /* sc_fast (profile mode: every call) */
    SC_PH_SLOW,        /* sc_pre + sc_post, less the real call and the drain */
    SC_PH_PRE,         /* sc_pre */
    SC_PH_POST,        /* sc_post */
    SC_PH_HELD,        /* settling a held finding */
    SC_PH_LEGACY,      /* detect_legacy.c (SC101, SC601, SC103 counting) */
    SC_PH_SC102,       /* SC102, per blocking stream */
    SC_PH_COPY,        /* detect_copy.c */
    SC_PH_ALLOC,       /* detect_alloc.c */
    SC_PH_SYNC,        /* detect_sync.c */
    SC_PH_QUEUE,       /* detect_queue.c */
    SC_PH_REDIRECT,    /* redirect.c */
    SC_PH_BUSY,        /* busy-stream queries; items: cuStreamQuery calls */
    SC_PH_COUNT,       /* stream-table walks; items: streams visited */
    SC_PH_CTX,         /* cuCtxGetCurrent */
    SC_PH_MEMCLASS,    /* pointer classification misses; items: cuPointerGetAttributes */
    SC_PH_DRAIN,       /* drain_first: the driver's own wait, not ours (excluded) */
    SC_PH_TRACK,       /* track.c after the call */
    SC_PH_COMMIT,      /* findings and sites committed */
    SC_PH_WALK,        /* call-site walks; items: native frames walked */
    SC_PH_PYFRAMES,    /* Python frames; items: frames read */
    SC_PH_INIT,        /* initialization */
    SC_PH_FORK,        /* fork handlers (prepare to parent, or to child) */
    SC_PH_QUIESCE,     /* exit handshake */
    SC_PH_BUILD,       /* report model at exit (symbolization included) */
    SC_PH_SYMBOLIZE,   /* of which symbolization */
    SC_PH_JUDGE,       /* filters, judgement, sorting at exit */
    SC_PH_WRITE,       /* rendering and writing the report (not in the estimate) */
    SC_PH_HB,          /* hb_pthread.c: pthread acquires and releases that touch a clock */
    SC_PH_HBREL,       /* hb_pthread.c: of SC_PH_HB, the releases; items: clocks published */
    SC_PH_HBACQ,       /* hb_pthread.c: of SC_PH_HB, the acquires; items: clocks joined */
    SC_PH_HBMOD,       /* hb_clock.c: caller checks the thread's cache did not answer */
    SC_PH_HBEV,        /* hb_clock.c: events recorded on the per-thread stream at releases */
    SC_PH_MODSCAN,     /* module map: dl_iterate_phdr on an unknown address; items: rebuilds */
    SC_PH_N
} sc_phase;

typedef struct sc_prof_cell { uint64_t ticks, calls, items; } sc_prof_cell;

/* ------------------------------------------------------------ threads --- */
#define SC_MAX_MODS 32        /* calling libraries counted separately; the last is "other" */
#define SC_RACACHE 64

struct sc_aggtab;

#define SC_OWN_MAX 4
typedef struct sc_own {
    CUstream stream;           /* blocking (CU_STREAM_DEFAULT), made by the shim */
    CUevent event;             /* orders it and the per-thread stream */
    CUcontext ctx;             /* the context both belong to */
    unsigned gen;              /* sc_g.ctx_gen when they were made */
} sc_own;

typedef struct sc_thread {
    _Atomic uint8_t busy;      /* inside our own slow path: pass calls through */
    uint8_t used_legacy;       /* has submitted to the legacy stream (SC103) */
    uint8_t capturing_ptds;    /* its per-thread stream is being captured */
    _Atomic uint64_t ptds_active; /* token: its per-thread stream has work */
    _Atomic(CUcontext) ptds_ctx;  /* context of that per-thread stream, when the
                                     process uses several (lanes.c) */
    pid_t tid;
    unsigned idx;              /* stable small index */
    uint64_t seq;              /* token source */
    CUstream last_handle;      /* one-entry cache for stream lookups */
    struct sc_stream *last_rec;
    uint32_t nfast;            /* sampling counter for the fast path's own time */
    uint64_t nnotes;           /* SC101 notes seen (their call sites are sampled) */
    /* The busy mark of the legacy stream of the thread's context, as its
       last slow call on the legacy stream found it (lanes.c): the fast path
       marks it for the notes it keeps (sc_fast_legacy). */
    _Atomic uint64_t *legacy_mark;
    _Atomic uint64_t own_ticks; /* time in our own code, TSC ticks (slow path exact, fast path sampled) */
    sc_prof_cell prof[SC_PH_N]; /* STREAMCHECK_PROFILE: per phase */
    struct sc_aggtab *agg;     /* this thread's findings (findings.c) */
    struct { uintptr_t ra; unsigned mod; } racache[SC_RACACHE];
    struct { uintptr_t pc, base; unsigned idx; } pccache[SC_RACACHE];   /* frames -> module */
    pid_t name_tid;            /* tid the name below was read for (callsites.c) */
    const char *name;          /* the thread's name (interned), read at its first walk */
    _Atomic uint64_t counts[SC_MAX_MODS][SC_NAPI];
    /* --redirect-method=stream: the blocking streams this thread's legacy
       work goes to, one per context, made on first use and kept with the
       block when the thread exits (the next thread to take it reuses them). */
    sc_own own[SC_OWN_MAX];
    uint8_t has_own;           /* made one: its per-thread-stream work is ordered with it */
    /* --redirect: what the thread's last redirect on the slow path found,
       so the fast path can redirect the next ones the same way
       (sc_fast_redirect).  rd_ctx: its context (NULL: none yet); rd_gen:
       sc_g.ctx_gen then; rd_own: the own stream it used (method stream). */
    unsigned rd_gen;
    CUcontext rd_ctx;
    sc_own *rd_own;
    /* A finding that waits for the thread's next slow call to decide what
       it cost (dispatch.c, settle_held): an SC203 that may be a deliberate
       synchronous read (PyTorch's .item()), a host-blocking call or a
       legacy-stream barrier that may have held nothing back. */
    struct {
        uint8_t live, lane, mode;
        CUstream stream;
        uint64_t seq;          /* t->seq when held: a later submission changes it */
        sc_hit hit;
    } held;
    uint64_t sync_reads;       /* such reads seen */
    struct sc_thread *next;    /* global list; never unlinked, recycled */
    _Atomic int in_use;
} sc_thread;

/* ------------------------------------------------- core.c (globals) --- */
enum { SC_MODE_UNINIT = 0, SC_MODE_ACTIVE = 1, SC_MODE_DISABLED = 2 };

typedef struct sc_globals {
    _Atomic int mode;
    int redirect;              /* 0 off, 1 per-thread */
    int redirect_method;       /* SC_RDM_* (options.h) */
    _Atomic unsigned ctx_gen;  /* bumped when a context is destroyed or reset */
    unsigned max_conn;         /* CUDA_DEVICE_MAX_CONNECTIONS in effect */
    _Atomic int async_engines; /* -1 unknown */
    _Atomic int slow_copies;   /* send async copies to the slow path (SC702 possible) */
    _Atomic unsigned n_active; /* streams marked busy (approximate, verified before reporting) */
    _Atomic int ptds_used;     /* some thread submitted to its per-thread stream */
    _Atomic int n_capturing;   /* captures in progress */
    _Atomic unsigned n_live;   /* created streams alive */
    _Atomic unsigned n_blocking; /* of which blocking */
    _Atomic int legacy_threads;  /* threads that submitted to the legacy stream */
    _Atomic int multi_ctx;     /* calls seen in two or more contexts (devices) */
    _Atomic unsigned n_ctx;    /* contexts the slow path has seen (lanes.c) */
    _Atomic unsigned n_internal; /* live created streams that are NCCL's (sc_stream.internal) */
    pid_t pid;
    int asym_fence;            /* membarrier(PRIVATE_EXPEDITED) is registered */
    uintptr_t self_lo, self_hi; /* our own text, to skip our frames */
    unsigned ablate;           /* STREAMCHECK_TEST_ABLATE: SC_ABLATE_* (a test hook) */
} sc_globals;
/* STREAMCHECK_TEST_ABLATE=hb,slow,walk,rt,api,...: switch a part of the shim
   off to see what it costs on a real program (tools/overhead-probe.sh).
   A test hook, not an option: the findings are wrong while it is set. */
enum {
    SC_ABLATE_HB = 1,      /* the happens-before tracker never turns on */
    SC_ABLATE_SLOW = 2,    /* no call takes the slow path (nothing is judged) */
    SC_ABLATE_WALK = 4,    /* call sites are not walked */
    SC_ABLATE_RT = 8,      /* measured mode: no runtime API records */
    SC_ABLATE_API = 16,    /* measured mode: no driver or runtime API records */
    SC_ABLATE_EXT = 32,    /* measured mode: no external correlation */
    SC_ABLATE_TS = 64,     /* measured mode: CUPTI's own clock, not our callback */
    SC_ABLATE_COPY = 128,  /* measured mode: no memcpy or memset records */
    SC_ABLATE_PARSE = 256, /* measured mode: buffers are freed unread */
};
extern sc_globals sc_g;

extern SC_TLS sc_thread *sc_tls_self;
extern SC_TLS uint16_t sc_tls_rt;     /* current runtime API (attribution) */
extern sc_options sc_opt;             /* the settings, loaded at initialization */
extern double sc_start_time;          /* seconds since the epoch, at start (or fork) */
extern int sc_prof_on;                /* STREAMCHECK_PROFILE=1 */
extern uint64_t sc_tsc_overhead;      /* ticks of an empty sc_tsc() pair (subtracted) */
double sc_tsc_ns(void);               /* ns per tick, calibrated over the run */
void sc_prof_add_slow(sc_thread *t, unsigned ph, uint64_t t0, uint64_t items);
void sc_prof_proc(unsigned ph, uint64_t ticks, uint64_t items);   /* process-wide phases */
extern _Atomic uint64_t sc_proc_own_ticks;   /* init, fork handlers, exit: in the estimate */
/* Exported, for benchmarks: the own time so far in ns (shim_report.c). */
uint64_t streamcheck_self_ns(void);
void sc_proc_cell(unsigned ph, sc_prof_cell *out);
/* Timing a phase in profile mode: one predictable branch when off. */
static inline uint64_t sc_prof_t0(void)
{
    return SC_UNLIKELY(sc_prof_on) ? sc_tsc() : 0;
}
static inline void sc_prof_add(sc_thread *t, unsigned ph, uint64_t t0, uint64_t items)
{
    if (SC_UNLIKELY(t0))
        sc_prof_add_slow(t, ph, t0, items);
}
extern uint64_t sc_start_ns;          /* sc_now_ns() then */

/* ------------------------------------------------------------ real.c --- */
void *sc_real_slow(unsigned id);              /* resolve a real driver entry point */
extern _Atomic(void *) sc_real[SC_NAPI];
static inline void *sc_real_get(unsigned id)
{
    void *p = atomic_load_explicit(&sc_real[id], memory_order_acquire);
    return SC_LIKELY(p != NULL) ? p : sc_real_slow(id);
}
CUresult sc_unresolved(unsigned id);
void *sc_real_set(unsigned id, void *p);   /* records p unless one is there; returns the slot's */
void sc_self_range(void);   /* fills sc_g.self_lo/self_hi */
int sc_is_ours(const void *p);   /* inside the shim itself */
void *sc_libcuda_handle(void);
void sc_note_libcuda(void *handle);   /* a handle the program got on the driver */
void *sc_dlsym_real(void *handle, const char *name);   /* the real dlsym */
void *sc_dlsym_default(const char *name);   /* the real dlsym, in the global scope */
SC_HIDDEN extern void *sc_real_dlsym;         /* read by dlsym_tramp.S */
SC_HIDDEN void *sc_resolve_real_dlsym(void);  /* called by dlsym_tramp.S */
/* The real cuGetProcAddress, either ABI, once found. */
extern PFN_cuGetProcAddress_v12000 sc_real_gpa_v2;
extern PFN_cuGetProcAddress_v11030 sc_real_gpa_v1;
void sc_real_gpa_resolve(void);
CUresult sc_real_lookup(const char *sym, void **pfn, int ver, cuuint64_t flags);
/* Real driver functions the shim calls for itself (never the wrappers). */
typedef struct sc_drv {
    PFN_cuCtxGetCurrent_v4000 CtxGetCurrent;
    PFN_cuStreamQuery_v2000 StreamQuery;
    PFN_cuStreamGetFlags_v5050 StreamGetFlags;
    PFN_cuStreamGetPriority_v5050 StreamGetPriority;
    PFN_cuStreamGetCtx_v9020 StreamGetCtx;
    PFN_cuEventQuery_v2000 EventQuery;
    PFN_cuStreamSynchronize_v2000 StreamSynchronize;   /* SC203: the wait before a pageable copy */
    PFN_cuPointerGetAttributes_v7000 PointerGetAttributes;
    PFN_cuDriverGetVersion_v2020 DriverGetVersion;
    PFN_cuDeviceGet_v2000 DeviceGet;
    PFN_cuDeviceGetName_v2000 DeviceGetName;
    PFN_cuDeviceGetAttribute_v2000 DeviceGetAttribute;
    PFN_cuStreamIsCapturing_v10000 StreamIsCapturing;
    PFN_cuStreamCreate_v2000 StreamCreate;         /* --redirect-method=stream */
    PFN_cuStreamDestroy_v4000 StreamDestroy;
    PFN_cuEventCreate_v2000 EventCreate;
    PFN_cuEventRecord_v2000 EventRecord;
    PFN_cuStreamWaitEvent_v3020 StreamWaitEvent;
    PFN_cuDevicePrimaryCtxGetState_v7000 PrimaryCtxGetState;
    PFN_cuCtxGetDevice_v2000 CtxGetDevice;         /* findings' device, per context */
} sc_drv;
extern sc_drv sc_d;
void sc_drv_resolve(void);   /* fills sc_d once libcuda is loaded */

/* ------------------------------------------- core.c (threads, init) --- */
sc_thread *sc_thread_new(void);
void sc_init_slow(void);
static inline sc_thread *sc_enter(void)
{
    if (SC_UNLIKELY(atomic_load_explicit(&sc_g.mode, memory_order_relaxed) != SC_MODE_ACTIVE)) {
        if (atomic_load_explicit(&sc_g.mode, memory_order_acquire) == SC_MODE_UNINIT)
            sc_init_slow();
        if (atomic_load_explicit(&sc_g.mode, memory_order_acquire) != SC_MODE_ACTIVE)
            return NULL;
    }
    sc_thread *t = sc_tls_self;
    if (SC_UNLIKELY(!t))
        t = sc_thread_new();
    return (t && !atomic_load_explicit(&t->busy, memory_order_relaxed)) ? t : NULL;
}
void sc_threads_foreach(void (*fn)(sc_thread *, void *), void *arg);
void sc_quiesce(void);   /* after the mode is off: waits for slow paths to end */
/* The thread's half of the exit handshake (sc_quiesce is the other). */
static inline void sc_busy_enter(sc_thread *t)
{
    if (SC_LIKELY(sc_g.asym_fence)) {
        atomic_store_explicit(&t->busy, 1, memory_order_relaxed);
        atomic_signal_fence(memory_order_seq_cst);   /* the reporter's membarrier does the rest */
    } else {
        atomic_store(&t->busy, 1);                   /* a full fence, every slow call */
    }
}

/* ---------------------------------------------------------- modules.c --- */
unsigned sc_module_of_slow(sc_thread *t, uintptr_t ra);
static inline unsigned sc_module_of(sc_thread *t, uintptr_t ra)
{
    unsigned i = (unsigned)(ra >> 4) & (SC_RACACHE - 1);
    if (SC_LIKELY(t->racache[i].ra == ra))
        return t->racache[i].mod;
    return sc_module_of_slow(t, ra);
}
/* Module registry: index -> path, basename hash. */
typedef struct sc_module {
    uintptr_t lo, hi;       /* address range of its loaded segments */
    uintptr_t base;         /* load bias (dlpi_addr) */
    unsigned idx;           /* stable index into the name registry */
} sc_module;
unsigned sc_module_find(uintptr_t pc, uintptr_t *base_out);   /* registry index or SC_MOD_UNKNOWN */
#define SC_MOD_UNKNOWN 0xffffu
const char *sc_module_path(unsigned idx);
const char *sc_module_base(unsigned idx);  /* basename */
uint64_t sc_module_hash(unsigned idx);
unsigned sc_module_count(void);
int sc_module_is_nvidia(unsigned idx);     /* NVIDIA's libraries: sc_nvidia_library (report.h) */
int sc_module_is_cublas(unsigned idx);
int sc_module_slot_is_cublas(unsigned slot);   /* a counting slot (sc_module_of) is cuBLAS's */
unsigned sc_module_slot_index(unsigned slot);   /* registry index of a counting slot */

/* ---------------------------------------------------------- streams.c --- */
sc_stream *sc_stream_find(CUstream h);
sc_stream *sc_stream_learn(CUstream h);     /* create a record for a stream created behind our back */
sc_stream *sc_stream_add(CUstream h, CUcontext ctx, unsigned flags, int prio, uint64_t site);
void sc_stream_remove(CUstream h);
void sc_streams_foreach(void (*fn)(sc_stream *, void *), void *arg);
static inline sc_stream *sc_stream_lookup(sc_thread *t, CUstream h)
{
    if (SC_LIKELY(t->last_handle == h && t->last_rec))
        return t->last_rec;
    sc_stream *r = sc_stream_find(h);
    if (r) {
        t->last_handle = h;
        t->last_rec = r;
    }
    return r;
}

/* -------------------------------------------------------- hostmem.c --- */
/* Pinned and registered host ranges, and device allocations: interval sets
   readable without locks. */
int sc_pinned_contains(const void *p, size_t n);     /* 1 pinned, 0 not known pinned */
void sc_pinned_add(const void *p, size_t n);
void sc_pinned_remove(const void *p);
int sc_devmem_contains(const void *p);               /* known device allocation */
void sc_devmem_add(const void *p, size_t n);
void sc_devmem_remove(const void *p);

/* ------------------------------------------------------- dispatch.c --- */
void sc_pre(sc_thread *t, sc_op *op);
void sc_post(sc_thread *t, sc_op *op, CUresult r);
void sc_held_flush(sc_thread *t);   /* commits a held SC203 (dispatch.c; at report time) */
/* track.c */
extern char sc_device_name[256];   /* device facts learned after cuInit, for the report */
/* lanes.c: every device a context of the process was seen on (report time). */
void sc_devices_foreach(void (*fn)(int ordinal, const char *name, void *), void *arg);
extern int sc_driver_version;

/* Marks a created stream busy; returns 1 when that may push the number of
   busy streams past the hardware queues (the slow path then checks SC701). */
static inline int sc_mark(sc_thread *t, _Atomic uint64_t *active)
{
    uint64_t tok = ((uint64_t)(t->idx + 1) << 40) | (++t->seq & ((1ull << 40) - 1));
    /* A plain load and store, not an exchange: two submitters racing on an
       idle stream can count it twice, which only makes the slow path
       re-count the busy streams sooner (sc_busy_streams resets n_active). */
    uint64_t old = atomic_load_explicit(active, memory_order_relaxed);
    atomic_store_explicit(active, tok, memory_order_relaxed);
    if (SC_LIKELY(old != 0))
        return 0;
    unsigned n = atomic_fetch_add_explicit(&sc_g.n_active, 1, memory_order_relaxed) + 1;
    return n > sc_g.max_conn;
}

/* SC101 notes (and SC601 notes) of a thread: the first SC_NOTES_EXACT go
   to the slow path and get their call site; after that one in
   SC_NOTE_SAMPLE does and is counted for SC_NOTE_SAMPLE, and past
   SC_NOTES_SAMPLED one in SC_NOTE_SAMPLE_LONG (dispatch.c, sc_post).  The
   others are counted here, on the fast path (sc_fast_legacy). */
#define SC_NOTES_EXACT 256
#define SC_NOTE_SAMPLE 64
#define SC_NOTES_SAMPLED (SC_NOTES_EXACT + 256 * SC_NOTE_SAMPLE)
#define SC_NOTE_SAMPLE_LONG 1024
_Static_assert((SC_NOTES_SAMPLED - SC_NOTES_EXACT) % SC_NOTE_SAMPLE_LONG == 0,
               "the long sampling period starts on one of its own multiples");
_Static_assert(!(SC_NOTE_SAMPLE & (SC_NOTE_SAMPLE - 1)) && !(SC_NOTE_SAMPLE_LONG & (SC_NOTE_SAMPLE_LONG - 1)),
               "sampling periods are powers of two");

/* Whether the nth note of a thread goes to the slow path (a sample). */
static inline int sc_note_sampled(uint64_t n)
{
    if (n <= SC_NOTES_EXACT)
        return 1;
    uint64_t every = n > SC_NOTES_SAMPLED ? SC_NOTE_SAMPLE_LONG : SC_NOTE_SAMPLE;
    return ((n - SC_NOTES_EXACT) & (every - 1)) == 0;
}

/* Work on the legacy stream while no stream it orders with exists (no
   blocking created stream, no per-thread stream used, no capture; under
   redirect sc_fast_redirect decides): every launch of a default PyTorch
   program, whose 128 pool streams are non-blocking.  The slow path would
   find an SC101 note (or an SC601 note, for cuBLAS) and nothing else, so
   the fast path counts it as the slow path would and sends only the
   sampled notes there.  It marks the legacy stream busy as the slow path
   would, through the mark the thread's last slow legacy call found (one
   context only: with several, a thread's current context needs a driver
   call).  Anything the slow path must see first takes it: the thread's
   first legacy work (SC103 counts the thread), a held finding to settle,
   stream-ordered allocation (tracked after the call). */
int sc_fast_redirect(sc_thread *t, sc_op *op);   /* redirect.c */
static inline int sc_fast_legacy(sc_thread *t, sc_op *op)
{
    op->lane = SC_LANE_LEGACY;
    _Atomic uint64_t *m = t->legacy_mark;
    if (!t->used_legacy || t->held.live || op->kind == SC_K_ALLOC_ASYNC || op->kind == SC_K_FREE_ASYNC)
        return 1;
    if (sc_g.redirect)
        return sc_fast_redirect(t, op);
    if (!m || atomic_load_explicit(&sc_g.n_blocking, memory_order_relaxed) ||
        atomic_load_explicit(&sc_g.ptds_used, memory_order_relaxed) ||
        atomic_load_explicit(&sc_g.n_capturing, memory_order_relaxed) ||
        atomic_load_explicit(&sc_g.n_ctx, memory_order_relaxed) != 1)
        return 1;
    if (op->kind == SC_K_WAIT_EVENT)
        return 0;                   /* neither a note nor work */
    uint64_t n = t->nnotes + 1;
    if (sc_note_sampled(n))
        return 1;                   /* the slow path counts it */
    if (SC_UNLIKELY(sc_mark(t, m))) {
        op->marks |= SC_M_CHECK701;
        return 1;                   /* ditto */
    }
    t->nnotes = n;
    return 0;
}

/* The fast path: counts the call and decides whether it needs the slow
   path.  Returns nonzero for the slow path. */
static inline __attribute__((always_inline)) int sc_fast(sc_thread *t, sc_op *op)
{
    unsigned mod = sc_module_of(t, (uintptr_t)op->ra);
    _Atomic uint64_t *c = &t->counts[mod][op->id];
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1, memory_order_relaxed);

    switch (op->kind) {
    case SC_K_COPY:
        if (op->host && !sc_pinned_contains(op->host, op->bytes))
            return 1;       /* pageable: SC203 */
        if (atomic_load_explicit(&sc_g.slow_copies, memory_order_relaxed))
            return 1;
        break;
    case SC_K_COPY_U:
        if (!(sc_devmem_contains(op->p1) || sc_pinned_contains(op->p1, op->bytes)) ||
            !(sc_devmem_contains(op->p2) || sc_pinned_contains(op->p2, op->bytes)))
            return 1;       /* an end we cannot classify without asking the driver */
        if (atomic_load_explicit(&sc_g.slow_copies, memory_order_relaxed))
            return 1;
        break;
    case SC_K_LAUNCH: case SC_K_HOSTFN: case SC_K_GRAPH: case SC_K_COPYBATCH:
    case SC_K_EVENT_RECORD: case SC_K_WAIT_EVENT: case SC_K_ALLOC_ASYNC: case SC_K_FREE_ASYNC:
    case SC_K_MEMSET:
        break;
    default:
        return 1;
    }

    CUstream s = op->stream;
    if (s == NULL) {
        if (!op->pt)
            return sc_fast_legacy(t, op);
        goto ptds;
    }
    if (s == CU_STREAM_LEGACY)
        return sc_fast_legacy(t, op);
    if (s == CU_STREAM_PER_THREAD)
        goto ptds;
    {
        sc_stream *r = sc_stream_lookup(t, s);
        if (SC_UNLIKELY(!r))
            return 1;               /* a stream we have not seen created */
        op->srec = r;
        op->lane = SC_LANE_CREATED;
        if (SC_UNLIKELY(!atomic_load_explicit(&r->launched, memory_order_relaxed)) &&
            op->kind == SC_K_LAUNCH)
            return 1;               /* its first kernel: whose? (NCCL's streams, track.c) */
        if (atomic_load_explicit(&r->capturing, memory_order_relaxed))
            return 0;               /* recorded into a graph, not executed */
        if (SC_LIKELY(!sc_mark(t, &r->active)))
            return 0;
        op->marks |= SC_M_CHECK701;
        return 1;
    }
ptds:
    op->lane = SC_LANE_PTDS;
    if (SC_UNLIKELY(!atomic_load_explicit(&sc_g.ptds_used, memory_order_relaxed)))
        atomic_store_explicit(&sc_g.ptds_used, 1, memory_order_relaxed);
    if (SC_UNLIKELY(t->has_own))
        return 1;                   /* ordered with its redirect stream (redirect.c) */
    /* Several devices: the per-thread stream turning busy learns its
       context on the slow path, so other devices' queries can skip it. */
    if (SC_UNLIKELY(atomic_load_explicit(&sc_g.multi_ctx, memory_order_relaxed)) &&
        !atomic_load_explicit(&t->ptds_active, memory_order_relaxed) && !t->capturing_ptds)
        return 1;
    if (t->capturing_ptds)
        return 0;
    if (SC_LIKELY(!sc_mark(t, &t->ptds_active)))
        return 0;
    op->marks |= SC_M_CHECK701;
    return 1;
}

/* The fast path, timed once every SC_FAST_SAMPLE calls of a thread so the
   report can say what the shim cost without reading a clock per call (in
   profile mode, every call: sc_fast_timed sets the count back). */
#define SC_FAST_SAMPLE 4096
int sc_fast_timed(sc_thread *t, sc_op *op);
static inline int sc_fast_sampled(sc_thread *t, sc_op *op)
{
    if (SC_UNLIKELY(++t->nfast == SC_FAST_SAMPLE))
        return sc_fast_timed(t, op);
    return sc_fast(t, op);
}

/* ------------------------------------------------------- callsites.c --- */
uint64_t sc_callsite_capture(sc_thread *t);

/* -------------------------------------------------------- findings.c --- */
void sc_finding_add(sc_thread *t, const sc_hit *h, unsigned weight);
void sc_alloc_site_add(sc_thread *t, unsigned api, unsigned rt, uint64_t site, uint64_t bytes,
                       uint64_t blocked_ns, unsigned device);
void sc_redirect_add(sc_thread *t, unsigned api, unsigned rt, uint64_t site, unsigned outcome,
                     unsigned weight);   /* weight > 1: a sampled call standing for that many */
void sc_legacy_site_add(sc_thread *t, unsigned api, unsigned rt, uint64_t site, unsigned weight,
                        unsigned device, unsigned lid);   /* lid: the thread lifetime (hb.h) */

/* ------------------------------------------------------ shim_report.c --- */
struct sc_report;
struct sc_report *sc_shim_build_report(void);   /* the model, unfiltered; NULL if no calls */

/* ------------------------------------------ hooks_runtime.c, hooks_cublas.c --- */
/* What dlsym hands out for a runtime or cuBLAS name (interpose.c): our
   export p only if the real function exists, so a program probing for the
   library still sees NULL when none is loaded. */
void *sc_runtime_dlsym_filter(void *handle, const char *name, void *p);
void *sc_cublas_dlsym_filter(void *handle, const char *name, void *p);
/* hooks_cupti.c: the same for the CUPTI calls it interposes, and ours too
   where the lookup found the real one (measured mode must see the call). */
void *sc_cupti_dlsym_filter(void *handle, const char *name, void *p);
/* cuBLAS handles created so far, and how many are bound to the legacy stream. */
void sc_cublas_summary(unsigned *all, unsigned *legacy);

#endif /* SC_SHIM_H */
