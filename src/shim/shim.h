/* shim.h: the types of libstreamcheck.so, shared by its modules; no
 * module's functions (each declares its own in its header: real.h,
 * core.h, fast.h, dispatch.h, ...).
 *
 * Layers (cwrap style):  exported cuX() wrapper (hooks_driver.c)
 *                        -> sc_fast() (fast.h) / sc_pre()/sc_post() (dispatch.c,
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

/* --------------------------------------------------------------- ops --- */
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

typedef struct sc_thread sc_thread;   /* the per-thread block: thread.h */
struct sc_stream;

/* A finding produced by one call, committed in sc_post with the call's
   blocked time and call site. */
typedef struct sc_event {
    uint8_t rule;
    uint8_t sev;
    uint8_t pending;      /* another stream had unfinished work */
    uint8_t own_site;     /* a finding of its own: at `site` (SC102), or at the call's
                             own site when site is 0 (SC403) */
    uint64_t site;
} sc_event;
#define SC_MAX_EVENTS 4

enum {
    SC_M_CHECK701 = 1,    /* a stream turned busy past the hardware queues */
    SC_M_SC102 = 2,       /* legacy work while blocking streams exist */
    SC_M_DRAINS = 4,      /* a synchronous copy that leaves its stream idle */
    SC_M_ALLOCSITE = 8,   /* count the call site for SC303 */
    SC_M_LEGACY = 16,     /* count the call site's legacy-stream work (SC103) */
    SC_M_SPLIT = 32,      /* a pageable copy: its wait and its copy are told apart (drain.h) */
    SC_M_SPLIT_EST = 64,  /* ... after the call, by the rate: it did not wait first */
    SC_M_READ_WAITS = 128, /* a synchronous copy to the host whose lane had work queued (SC403) */
};

typedef struct sc_op {
    uint16_t id;          /* sc_api_id of the entry point called */
    uint8_t pt;           /* called through a per-thread entry point */
    uint8_t kind;         /* sc_kind (kinds.h) */
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
    const void *p2;       /* source of unified copies; an async copy's device side (NULL: none) */
    size_t bytes;
    unsigned flags;
    int prio;
    void *ra;             /* return address into the caller */
    struct sc_stream *srec;
    void *call;           /* redirect: the entry point to call instead */
    uint64_t t0;          /* slow path: start of the real call */
    uint64_t drain_ns;    /* SC203: the wait for the stream's earlier work, done before the call,
                             or told from the call's own time after it (drain.h) */
    uint64_t drain_tk;    /* the same in TSC ticks: the driver's wait, not our time (and the touch's) */
    uint64_t touch_ns;    /* SC203 to the host: faulting in its destination's fresh pages, done after
                             the wait and before the call (touch.h) */
    uint8_t touch_again;  /* ... pages the thread's copies touched before: left to the copy (touch.h) */
    uint64_t tin;         /* slow path: TSC at entry into sc_pre, then ticks spent in it */
    int saved_errno;
    uint32_t grid, block; /* launches: blocks of the grid and threads of a block (the run
                             log's demand); set by the launch wrappers only */
    uint32_t shmem;       /* ... its dynamic shared memory, and its function (occupancy.h) */
    const void *fn;
    uint32_t rl;          /* its record in the thread's run log (runlog.h), 0: none */
    uint8_t gs_hold;      /* it holds the GPU sampler off while a stream or context goes */
    uint8_t found_done;   /* a synchronization whose queued work had finished before it: it
                             waited for no GPU work (no SC402, no SC403: detect_sync.c) */
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
    _Atomic uint8_t watch701;  /* it turned busy past the hardware queues (SC701): its next
                                  submission while marked busy is looked at (detect_queue.c,
                                  STREAMCHECK_TEST_QUEUE_DEPTH=1) */
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
    uint32_t rl;          /* the call's record in the thread's run log (runlog.h), 0: none */
    uint32_t range;       /* the innermost NVTX range the call was in (ranges.h) */
} sc_hit;

#define SC_DEV_UNKNOWN 0xff    /* sc_hit.device, sc_agg_key.device: not known */

/* ------------------------------------------------------------- phases --- */
/* With STREAMCHECK_PROFILE=1 every phase is timed and counted per thread
   and a table is printed at exit (prof.c; the timing itself: core.h). */
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
    SC_PH_DRAIN,       /* drain.c: the driver's own wait, not ours (excluded) */
    SC_PH_TRACK,       /* track.c after the call */
    SC_PH_COMMIT,      /* findings and sites committed */
    SC_PH_RUNLOG,      /* the pricing model's run log after the call: its record, waits, copy rates */
    SC_PH_CALIBRATE,   /* the pinned rate timed (calibrate.c), inside sc_pre or sc_post */
    SC_PH_WALK,        /* call-site walks; items: native frames walked */
    SC_PH_WALKNEED,    /* of them, the frames each needed (to the depth-th of the program's, or all);
                          items: those frames (no time) */
    SC_PH_WALKLONG,    /* of them, walks that needed more than depth + WALK_SLACK (16) frames,
                          walked again (no time) */
    SC_PH_PYFRAMES,    /* Python frames; items: frames read */
    SC_PH_INIT,        /* initialization */
    SC_PH_FORK,        /* fork handlers (prepare to parent, or to child) */
    SC_PH_QUIESCE,     /* exit handshake */
    SC_PH_BUILD,       /* report model at exit (symbolization included) */
    SC_PH_BUILDPRICE,  /* of which the pricing model (price.c) */
    SC_PH_BUILDNAMES,  /* of which the call sites' frames named by dladdr; items: call sites */
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

/* --redirect-method=stream: the blocking streams a thread's legacy work
   goes to, one per context (sc_thread.own; redirect.c makes them). */
#define SC_OWN_MAX 4
typedef struct sc_own {
    CUstream stream;           /* blocking (CU_STREAM_DEFAULT), made by the shim */
    CUevent event;             /* orders it and the per-thread stream */
    CUcontext ctx;             /* the context both belong to */
    unsigned gen;              /* sc_g.ctx_gen when they were made */
} sc_own;

#endif /* SC_SHIM_H */
