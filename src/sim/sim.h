/* src/sim/sim.h: internals of the simulated libcuda.so.1.
 *
 * Model (docs/ARCHITECTURE.md, "The simulator"): N devices
 * (STREAMCHECK_SIM_DEVICES, default 1), each with one primary context and
 * its own legacy stream.  Every
 * stream is a FIFO of operations served by a worker thread.  Each
 * operation carries a sequence number in its stream and a list of
 * dependencies, (stream, sequence number) pairs that must have completed
 * before it runs; the implicit synchronization rules of the CUDA Driver
 * API ("Stream synchronization behavior") become such dependencies when
 * an operation is submitted.  Sequence numbers never restart, not even
 * when a stream object is recycled, so a dependency on an old stream stays
 * satisfied.  Host-side blocking ("API synchronization behavior") is
 * modelled by waiting for a dependency in the calling thread.
 */
#ifndef SC_SIM_SIM_H
#define SC_SIM_SIM_H

#include <cuda.h>
#include <cupti_driver_cbid.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/imap.h"
#include "sim/timeline.h"
#include "sim/util.h"
#include "twins.h"

/* Devices: STREAMCHECK_SIM_DEVICES (default 1) simulated GPUs, each with
 * its primary context, legacy stream and memory. */
#define SCSIM_MAX_DEVICES 16

/* ------------------------------------------------------------ handles --- */

/* Objects handed out as handles start with a magic word, cleared when the
 * handle is destroyed; objects are recycled, never freed, so a stale
 * handle reads a cleared word rather than freed memory. */
enum {
    SCSIM_MAGIC_CTX = 0x43545831,    /* "CTX1" */
    SCSIM_MAGIC_STREAM = 0x53545231, /* "STR1" */
    SCSIM_MAGIC_EVENT = 0x45564e31,  /* "EVN1" */
    SCSIM_MAGIC_FUNC = 0x46554e31,   /* "FUN1" */
    SCSIM_MAGIC_MODULE = 0x4d4f4431, /* "MOD1" */
    SCSIM_MAGIC_GRAPH = 0x47525031,  /* "GRP1" */
    SCSIM_MAGIC_EXEC = 0x45584531,   /* "EXE1" */
};

/* -------------------------------------------------------------- state --- */

typedef struct scsim_capture scsim_capture;
typedef struct scsim_body scsim_body;

enum scsim_stream_kind {
    SCSIM_STREAM_LEGACY,     /* the legacy NULL stream of the context */
    SCSIM_STREAM_PER_THREAD, /* one per host thread, blocking */
    SCSIM_STREAM_USER,       /* cuStreamCreate* */
};

typedef struct scsim_dep {
    struct CUstream_st *s;
    uint64_t seq;
} scsim_dep;

/* What an operation does, independent of where it is queued: the same
 * record is queued on a stream or kept in a captured graph. */
enum scsim_work_kind {
    SCSIM_W_NOP,      /* ordering only (cuStreamWaitEvent) */
    SCSIM_W_KERNEL,   /* CPU twin of a kernel, or nothing */
    SCSIM_W_COPY,     /* 1D copy; src may be a staging buffer we own */
    SCSIM_W_COPY2D,   /* pitched copy */
    SCSIM_W_MEMSET,   /* 8/16/32-bit memset, 1D or 2D */
    SCSIM_W_HOSTFN,   /* cuLaunchHostFunc */
    SCSIM_W_CALLBACK, /* cuStreamAddCallback */
    SCSIM_W_EVENT,    /* cuEventRecord: timestamp */
    SCSIM_W_GRAPH,    /* cuGraphLaunch: a captured body, in order */
    SCSIM_W_FREE,     /* cuMemFreeAsync */
};

typedef struct scsim_work {
    int kind;
    union {
        struct {
            struct CUfunc_st *f;
            unsigned grid[3], block[3], shmem;
            void **args; /* pointer array + argument copies, one block */
        } kernel;
        struct {
            void *dst;
            const void *src;
            size_t n;
            void *owned; /* staging buffer to free after the copy */
            int dkind, skind; /* scsim_mem_kind of each end (timeline) */
            bool peer;        /* device memory of two devices (timeline) */
        } copy;
        struct {
            char *dst;
            const char *src;
            size_t dpitch, spitch, width, height;
            void *owned; /* staging buffer to free after the copy */
            int dkind, skind; /* scsim_mem_kind of each end (timeline) */
        } copy2d;
        struct {
            char *dst;
            size_t pitch, width, height; /* width in elements */
            unsigned elem;               /* 1, 2 or 4 bytes */
            uint32_t value;
            int mkind; /* scsim_mem_kind of the target (timeline) */
        } memset;
        struct {
            CUhostFn fn;
            void *data;
        } hostfn;
        struct {
            CUstreamCallback fn;
            void *data;
            CUstream handle; /* as the caller named the stream */
        } callback;
        struct {
            struct CUevent_st *e;
            uint64_t gen;
        } event;
        struct {
            scsim_body *body;
        } graph;
        struct {
            void *ptr;
        } free;
    } u;
} scsim_work;

/* A queued operation. */
typedef struct scsim_op {
    struct scsim_op *next;
    uint64_t seq;
    uint32_t corr; /* correlation id of the submitting call (timeline) */
    unsigned ndeps;
    scsim_dep *deps; /* inline_deps or heap */
    scsim_dep inline_deps[3];
    scsim_work w;
} scsim_op;

struct CUstream_st {
    uint32_t magic;
    int kind;
    struct CUctx_st *ctx; /* the context (device) it belongs to */
    unsigned flags; /* CU_STREAM_NON_BLOCKING */
    int priority;
    unsigned long long id;
    pthread_mutex_t mu;
    pthread_cond_t work_cv; /* the worker waits for operations */
    pthread_cond_t done_cv; /* waiters for completions */
    scsim_op *head, *tail;
    _Atomic uint64_t submitted; /* seq of the last queued operation */
    _Atomic uint64_t completed; /* seq of the last finished operation */
    unsigned waiters;           /* threads in done_cv */
    bool has_worker;
    bool dying; /* destroyed: drain, then recycle */
    /* Capture sequence this stream takes part in; guarded by the
     * capture lock. */
    scsim_capture *cap;
    /* The context's list of streams; guarded by ctx->mu. */
    struct CUstream_st *prev, *next;
    struct CUstream_st *pool_next;
};

struct CUevent_st {
    uint32_t magic;
    unsigned flags;
    struct CUctx_st *ctx; /* current context when it was created */
    pthread_mutex_t mu;
    /* Latest record: the stream and sequence number of its operation; s
     * is NULL before the first record. */
    struct CUstream_st *s;
    uint64_t seq;
    uint64_t gen;    /* count of records, for matching timestamps */
    uint64_t cap_id; /* capture sequence of the latest record, or 0 */
    uint64_t t_ns;   /* host clock when the latest record executed */
    uint64_t t_gen;  /* which record t_ns belongs to */
    atomic_uint refs; /* the handle + queued record operations */
    struct CUevent_st *pool_next;
    struct CUevent_st *all_next; /* every event object, for the context */
};

struct CUfunc_st {
    uint32_t magic;
    char *name;
    const sc_twin *twin;
    atomic_int noted; /* "no CPU twin" note printed */
    int cache_config;
    int max_dynamic_shared;
    int carveout;
    struct CUfunc_st *hash_next;
};

/* Modules and libraries are the same object: images are not parsed, any
 * kernel name resolves (its twin, if there is one, runs at launch). */
struct CUmod_st {
    uint32_t magic;
    bool is_library;
    struct CUmod_st *all_next; /* every module object, for the context */
};

/* Graphs and executable graphs live in lists of the context until they
 * are destroyed (the context owns what the program did not release). */
struct CUgraph_st {
    uint32_t magic;
    scsim_body *body;
    struct CUgraph_st *prev, *next;
};

struct CUgraphExec_st {
    uint32_t magic;
    scsim_body *body;
    pthread_mutex_t mu;
    scsim_dep last; /* latest launch; a graph never overlaps itself */
    struct CUgraphExec_st *prev, *next;
};

/* A captured graph: works in capture order, shared by the graph, its
 * executable graphs and queued launches. */
struct scsim_body {
    atomic_uint refs;
    size_t n;
    scsim_work w[];
};

struct scsim_capture {
    uint64_t id;
    CUstreamCaptureMode mode;
    pthread_t thread; /* began the capture */
    struct CUstream_st *origin;
    bool invalidated;
    size_t n, cap;
    scsim_work *works;
    size_t nmembers;
    struct CUstream_st *members[16]; /* origin + joined streams */
    scsim_capture *next;             /* list of active captures */
};

struct CUctx_st {
    uint32_t magic;
    int ordinal;               /* the device: 0 .. ndevices - 1 */
    pthread_mutex_t mu;        /* stream list, legacy submissions */
    struct CUstream_st *streams; /* every stream with possible work */
    struct CUstream_st *legacy;
    atomic_int retains;
    unsigned flags; /* cuDevicePrimaryCtxSetFlags */
    int cache_config;
    int shmem_config;
    atomic_uint peers;  /* bit d: peer access to device d's context enabled */
    atomic_ullong used_mem;
};

/* STREAMCHECK_SIM_ALLOC_SYNC: which allocation calls synchronize. */
enum {
    SCSIM_ALLOC_SYNC_NONE, /* "0": none */
    SCSIM_ALLOC_SYNC_FREE, /* "free": releases only, as measured on H100 */
    SCSIM_ALLOC_SYNC_ALL,  /* default: allocation and release (CUDA docs) */
};

/* Process-wide simulator state. */
typedef struct scsim_global {
    atomic_int initialized;
    int ndevices;                            /* STREAMCHECK_SIM_DEVICES */
    struct CUctx_st ctx[SCSIM_MAX_DEVICES];  /* primary context of each */
    int async_engines;
    int alloc_sync;           /* SCSIM_ALLOC_SYNC_* */
    size_t pageable_stage_max; /* see drv_copy.c */
    uint64_t total_mem; /* per device */
    atomic_ullong next_stream_id;
    /* Capture bookkeeping: active captures count is read without the
     * lock on every submission. */
    pthread_mutex_t cap_mu;
    scsim_capture *captures;
    atomic_int ncaptures;
    atomic_int blocking_capturing; /* blocking streams in a capture */
    atomic_ullong next_capture_id;
} scsim_global;

extern scsim_global scsim_g;

/* ------------------------------------------------------------- checks --- */

/* CUDA_ERROR_NOT_INITIALIZED before cuInit. */
static inline CUresult scsim_check_init(void)
{
    return atomic_load_explicit(&scsim_g.initialized, memory_order_acquire)
               ? CUDA_SUCCESS
               : CUDA_ERROR_NOT_INITIALIZED;
}

/* Also CUDA_ERROR_INVALID_CONTEXT when the thread has no current
 * context. */
CUresult scsim_check_ctx(void);
CUcontext scsim_current_ctx(void);
/* Whether c is one of the simulator's contexts. */
bool scsim_ctx_valid(CUcontext c);

/* ------------------------------------------------------------ streams --- */

/* The stream an entry point means by a handle: 0 is the legacy stream in
 * a legacy entry point and the calling thread's per-thread stream in a
 * _ptsz/_ptds one (pt); CU_STREAM_LEGACY and CU_STREAM_PER_THREAD mean
 * those anywhere. */
CUresult scsim_stream_resolve(CUstream h, bool pt, struct CUstream_st **out);

struct CUstream_st *scsim_stream_new(struct CUctx_st *ctx, int kind,
                                     unsigned flags, int priority);
void scsim_stream_destroy(struct CUstream_st *s);

/* Queues w on s behind its implicit dependencies and extra ones.  If s
 * is capturing, w is recorded into the capture instead (*captured set);
 * capturable false makes that an error, for operations that would block
 * the host.  On success the operation owns w's resources; on failure the
 * caller still does.  *seq (may be NULL) is the operation's sequence
 * number, 0 when captured. */
CUresult scsim_submit(struct CUstream_st *s, const scsim_work *w,
                      const scsim_dep *extra, unsigned nextra,
                      bool capturable, uint64_t *seq, bool *captured);

/* Blocks until the dependency has completed. */
void scsim_wait(scsim_dep d);
bool scsim_done(scsim_dep d);

/* The dependencies of "everything already submitted to s": for the
 * legacy stream that includes prior work of every blocking stream. */
typedef struct scsim_deps {
    unsigned n, cap;
    scsim_dep *v;
    scsim_dep inline_v[8];
} scsim_deps;
void scsim_deps_init(scsim_deps *d);
void scsim_deps_add(scsim_deps *d, struct CUstream_st *s, uint64_t seq);
void scsim_deps_free(scsim_deps *d);
void scsim_stream_prior(struct CUstream_st *s, scsim_deps *out);
/* Every stream's prior work in ctx (device-wide synchronization); NULL:
 * in every context. */
void scsim_device_prior(struct CUctx_st *ctx, scsim_deps *out);

/* cuStreamSynchronize semantics for s, with the capture rules. */
CUresult scsim_stream_sync(struct CUstream_st *s);
/* Waits until all work of the context has completed (NULL: of every
 * context). */
void scsim_device_sync(struct CUctx_st *ctx);

/* Allocation-time device synchronization (CUDA Runtime API, "Stream
 * Ordered Memory Allocator": cudaMalloc/cudaFree synchronize the
 * device), as STREAMCHECK_SIM_ALLOC_SYNC says; release says whether the
 * call releases memory.  Returns whether it synchronized. */
bool scsim_alloc_sync(bool release);

/* Releases a work record's resources (staging buffer, arguments, refs). */
void scsim_work_release(scsim_work *w);
/* Runs a work record (on a worker thread). */
void scsim_work_run(scsim_work *w, struct CUstream_st *s);

void scsim_event_unref(struct CUevent_st *e);
void scsim_body_unref(scsim_body *b);

/* ------------------------------------------------------------ capture --- */

/* Potentially unsafe calls during capture (cuThreadExchangeStreamCaptureMode):
 * returns CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and invalidates the
 * captures that forbid the call. */
CUresult scsim_capture_check_unsafe(void);
/* Legacy-stream use while a blocking stream captures: CUDA_ERROR_STREAM_
 * CAPTURE_IMPLICIT; invalidate says whether the captures are invalidated. */
CUresult scsim_capture_check_legacy(bool invalidate);
/* Any capture active: CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, and every
 * capture is invalidated (device-wide synchronization). */
CUresult scsim_capture_check_any(void);
/* State of a capture sequence by id: 0 over (or unknown), 1 active,
 * 2 active but invalidated. */
int scsim_capture_state(uint64_t id);
void scsim_capture_invalidate_id(uint64_t id);
/* The stream's capture id (0 if not capturing); with the capture lock. */
uint64_t scsim_capture_id_of(struct CUstream_st *s);
/* Invalidates the capture s takes part in. */
void scsim_capture_invalidate_stream(struct CUstream_st *s);
/* Records w into the capture of s if s is capturing (lock held inside). */
int scsim_capture_record(struct CUstream_st *s, const scsim_work *w,
                         bool capturable, CUresult *err);
/* cuStreamWaitEvent/cuEventRecord interplay with capture. */
CUresult scsim_capture_wait_event(struct CUstream_st *s, uint64_t ev_cap_id,
                                  bool *handled);

/* ------------------------------------------------------------- memory --- */

enum scsim_mem_kind {
    SCSIM_MEM_PAGEABLE = 0, /* not known to the driver */
    SCSIM_MEM_DEVICE,       /* cuMemAlloc*, cuMemAllocAsync */
    SCSIM_MEM_PINNED,       /* cuMemHostAlloc, cuMemAllocHost */
    SCSIM_MEM_REGISTERED,   /* cuMemHostRegister */
};

/* Kind of the memory at [p, p + n), with the containing region (whose
 * dev is the ordinal of the device that owns device memory). */
int scsim_mem_classify(const void *p, size_t n, scsim_interval *r);
static inline bool scsim_mem_is_host(int kind)
{
    return kind != SCSIM_MEM_DEVICE;
}
static inline bool scsim_mem_is_pinned_host(int kind)
{
    return kind == SCSIM_MEM_PINNED || kind == SCSIM_MEM_REGISTERED;
}
/* Releases device memory (stream-ordered free executes this). */
void scsim_mem_free_device(void *p);

/* ------------------------------------------------------------ kernels --- */

struct CUfunc_st *scsim_func_get(const char *name);
/* f if it is a function of ours, else NULL (drv_launch.c). */
struct CUfunc_st *scsim_func_check(CUfunction f);

/* ----------------------------------------------------------- timeline --- */

/* timeline.h; drv_timeline.c.  scsim_tl_mask is 0 unless a CUPTI client
 * enabled a kind; scsim_tl_corr is the correlation id of the traced API
 * call the thread is in (0: none). */
extern atomic_uint scsim_tl_mask;
extern __thread uint32_t scsim_tl_corr;
uint64_t scsim_tl_now(void);
void scsim_tl_emit(scsim_tl_rec *r);
void scsim_tl_api_begin_slow(scsim_tl_api *a, int kind, uint32_t cbid);
void scsim_tl_api_end(scsim_tl_api *a, int result);
/* Runs w on s's worker, recording it when its kind is enabled. */
void scsim_tl_run(scsim_work *w, struct CUstream_st *s, uint32_t corr);
/* A synchronization record (SCSIM_TL_SYNC_*) from start to now, in ctx. */
void scsim_tl_sync(int type, uint32_t stream_id, const struct CUctx_st *ctx,
                   uint64_t start, CUresult r);

static inline bool scsim_tl_on(void)
{
    return atomic_load_explicit(&scsim_tl_mask, memory_order_relaxed) != 0;
}

/* A traced driver entry point:
 *     SCSIM_API(cuFoo);
 *     ...
 *     return SCSIM_API_RET(expr);
 * assigns the call's correlation id and emits its API record; sym is the
 * exported symbol (its CUPTI_DRIVER_TRACE_CBID_ name). */
#define SCSIM_API(sym)                                                        \
    scsim_tl_api scsim_api_ = {.active = 0};                                  \
    if (scsim_tl_on())                                                        \
        scsim_tl_api_begin_slow(&scsim_api_, SCSIM_TL_DRIVER,                 \
                                CUPTI_DRIVER_TRACE_CBID_##sym)
#define SCSIM_API_RET(expr) scsim_tl_api_ret(&scsim_api_, (expr))
static inline CUresult scsim_tl_api_ret(scsim_tl_api *a, CUresult r)
{
    if (a->active)
        scsim_tl_api_end(a, (int)r);
    return r;
}

/* -------------------------------------------------------------- misc --- */

/* Device-attribute table lookup (every simulated device is alike). */
int scsim_device_attribute(CUdevice_attribute attr);

#endif /* SC_SIM_SIM_H */
