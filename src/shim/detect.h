/* detect.h: what the rule detectors share.
 *
 * The slow path is split by rule family, so that each rule's decision is
 * found from a file name:
 *   dispatch.c       sc_pre/sc_post: one switch on the call's kind that calls
 *                    the detectors below, then commits their findings
 *   detect_legacy.c  SC101, SC102, SC103 (counting), SC601: work on the
 *                    legacy stream, blocking streams, cuBLAS on the legacy stream
 *   detect_copy.c    SC201, SC202, SC203, SC204, SC702: copies and memsets
 *   detect_alloc.c   SC301, SC302, SC303 (counting): allocation and freeing
 *   detect_sync.c    SC401, SC402: synchronization calls
 *   detect_queue.c   SC701 (hardware queues), SC501 (cache configuration)
 *   redirect.c       --redirect: moving legacy-stream work to per-thread streams
 *   lanes.c          state the detectors ask about: contexts, lanes, busy
 *                    marks, which other streams have unfinished work
 *   memclass.c       memory classification: device, pinned or pageable
 *   track.c          state kept after each call: streams, captures,
 *                    allocations, marks cleared by synchronizations
 * The rules themselves (ids, titles, documentation) are in rules.def.
 */
#ifndef SC_DETECT_H
#define SC_DETECT_H

#include "shim.h"

/* --------------------------------------------------------- lanes.c --- */
/* A context, the mark of its legacy stream, and its device.  State is per
   context, and a context is one device's (the primary context, or one the
   program made): the rules are judged per device. */
typedef struct sc_ctx {
    _Atomic(CUcontext) ctx;
    _Atomic uint64_t legacy_active;   /* token: the legacy stream has work */
    _Atomic int device;               /* ordinal + 1; 0 until learned */
    char name[128];                   /* the device's name, once learned */
} sc_ctx;
sc_ctx *sc_ctx_get(CUcontext c);
CUcontext sc_current_ctx(void);
CUcontext sc_op_ctx(sc_op *op);   /* the current context, asked at most once per call */
/* The device of the call's context (cuCtxGetDevice, once per context), or
   SC_DEV_UNKNOWN. */
unsigned sc_op_device(sc_op *op);
/* The device of a context seen before, or SC_DEV_UNKNOWN (no driver call). */
unsigned sc_ctx_device(CUcontext c);


/* Busy marks: a nonzero token says the stream got work since it was last
   seen idle. */
void sc_unmark(_Atomic uint64_t *a, uint64_t tok);   /* clears it unless marked again */
int sc_query_mark(_Atomic uint64_t *mark, CUstream h);   /* 1 busy; clears the mark when idle */
int sc_query_ptds(sc_thread *t);   /* the calling thread's per-thread lane */
void sc_mark_lane(sc_thread *t, sc_op *op);   /* the call gives its lane work */

/* Which streams other than the caller's have unfinished work right now. */
typedef struct sc_busy_q {
    CUcontext ctx;           /* only this context; NULL: all */
    CUcontext also[2];       /* and these (a peer copy's two ends); NULL: none */
    const sc_stream *skip;   /* the caller's own stream */
    int skip_legacy, skip_ptds;
    uint8_t dir;             /* SC702: count only streams whose last copy went this way */
    uint8_t blocking_only;   /* only streams the legacy stream orders with: blocking
                                streams and per-thread streams, not non-blocking ones */
    uint8_t program_only;    /* not the streams NCCL made for itself */
    sc_thread *self;
    unsigned busy;
    unsigned unverified;     /* busy by mark only (other threads' per-thread streams) */
    unsigned marked;         /* marks left after the queries */
} sc_busy_q;
unsigned sc_busy_others(sc_thread *t, sc_busy_q *q);

/* Created streams alive in ctx (NULL: all), and how many are blocking. */
typedef struct sc_count_q {
    CUcontext ctx;
    unsigned all, blocking;
    unsigned program;        /* of all, those not internal to NCCL (sc_stream.internal) */
} sc_count_q;
/* Whether a state of context c (a stream's, a per-thread stream's) counts
   for a query about ctx (NULL: every context) and also[]; unknown (NULL)
   contexts count. */
static inline int sc_ctx_in(CUcontext c, CUcontext ctx, CUcontext const *also)
{
    return !ctx || !c || c == ctx || (also && ((also[0] && c == also[0]) || (also[1] && c == also[1])));
}
void sc_count_streams(sc_count_q *cq);
void sc_count_op_streams(sc_op *op, sc_count_q *cq);   /* of the call's context, walking only if needed */

/* The stream a call's work really lands on (op->lane, op->srec). */
void sc_resolve_lane(sc_thread *t, sc_op *op);
int sc_lane_capturing(sc_thread *t, const sc_op *op);
_Atomic uint64_t *sc_lane_mark(sc_thread *t, sc_op *op);

/* A finding of this call, committed in sc_post. */
static inline void sc_event_add(sc_op *op, unsigned rule, unsigned sev, int pending)
{
    if (op->nev < SC_MAX_EVENTS)
        op->ev[op->nev++] = (sc_event){(uint8_t)rule, (uint8_t)sev, (uint8_t)(pending != 0), 0, 0};
}

/* ------------------------------------------------------- memclass.c --- */
/* Memory kind of an address: device (or managed), pinned host, pageable host. */
enum { SC_MEM_UNKNOWN, SC_MEM_DEVICE, SC_MEM_PINNED, SC_MEM_PAGEABLE };
int sc_mem_classify(const void *p, size_t n);
void sc_classify_copy(sc_op *op);   /* op->dir, op->host, op->pageable */

/* ------------------------------------------------------- redirect.c --- */
void sc_redirect(sc_thread *t, sc_op *op, sc_count_q *cq);   /* cq NULL: counted here */
void sc_order_with_own(sc_thread *t, sc_op *op);
void sc_redirect_post(sc_op *op);   /* after the call: op->rd_chain */

/* ------------------------------------------------------ detectors --- */
/* detect_legacy.c */
void sc_detect_legacy_submission(sc_thread *t, sc_op *op);   /* SC101, SC601, then the next */
void sc_detect_legacy_common(sc_thread *t, sc_op *op, sc_count_q *cq);   /* SC103, SC102 */
void sc_detect_sc102(sc_thread *t, sc_op *op);   /* the SC102 findings, per blocking stream */
int sc_legacy_serializes(sc_thread *t, const sc_count_q *cq, int *others);
/* detect_copy.c */
void sc_detect_memset_async(sc_thread *t, sc_op *op);   /* SC202 */
void sc_detect_copy_async(sc_thread *t, sc_op *op, int pageable);   /* SC203, SC702 */
void sc_detect_copy_sync(sc_thread *t, sc_op *op, const sc_count_q *cq);   /* SC201, SC204 */
void sc_detect_memset_sync(sc_thread *t, sc_op *op, const sc_count_q *cq);   /* SC202 */
/* detect_alloc.c */
void sc_detect_alloc(sc_thread *t, sc_op *op);   /* SC301, SC302, SC303 */
/* detect_sync.c */
void sc_detect_stream_sync(sc_thread *t, sc_op *op);   /* SC402 */
void sc_detect_event_sync(sc_op *op);   /* SC402 */
void sc_detect_ctx_sync(sc_thread *t, sc_op *op);   /* SC401, SC402 */
/* detect_queue.c */
void sc_detect_queues(sc_thread *t, sc_op *op);   /* SC701 */
void sc_detect_cache_config(sc_thread *t, sc_op *op);   /* SC501 */

/* ---------------------------------------------------------- track.c --- */
void sc_track_post(sc_thread *t, sc_op *op, CUresult r);

#endif /* SC_DETECT_H */
