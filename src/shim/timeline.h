/* timeline.h: a run's GPU timeline, and what finding events cost on it.
 *
 * Plain arrays in, numbers out.  The input is what measured mode records
 * (cupti_session.c) or what a unit test writes by hand: GPU operations,
 * host API calls and external correlations.  sc_tl_build orders and
 * indexes them into
 *   - devices: each one's operations in start order, the union of their
 *     busy time, and its span, busy, idle and overlap (sc_gpu_device);
 *   - streams: each one's operations in start order, every operation with
 *     the time it was submitted and the end of the one before it;
 *   - host threads: each one's API calls in start order;
 *   - correlations: the operations each API call submitted, and the API
 *     calls each external id (a finding event's) was pushed around.
 * sc_tl_price then prices finding events, the intercepted calls that
 * carried a finding: the GPU time each one cost as a set of intervals,
 * the operation it held back most and the correlation id of its own GPU
 * work (libstreamcheck(7), MEASURED MODE, says how).
 *
 * Nothing here knows CUPTI or the shim's state: everything comes in
 * through the arguments, so tests/unit/test_timeline.c feeds it arrays.
 * Times are ns since the run's start, on one clock for host and GPU;
 * intervals are half open, [a, b).
 */
#ifndef SC_TIMELINE_H
#define SC_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"   /* sc_gpu_device and the SC_GPU_* kinds */
#include "vec.h"

/* ------------------------------------------------------ interval sets --- */
typedef struct sc_tl_span { int64_t a, b; } sc_tl_span;
/* A growable array of intervals: {0} is empty; sc_tl_spans_free frees it. */
typedef SC_VEC(sc_tl_span) sc_tl_spans;

/* Appends [a, b) unless it is empty (b <= a); dropped when out of memory. */
void sc_tl_spans_add(sc_tl_spans *s, int64_t a, int64_t b);
/* Sorts v[from..n) and merges what overlaps or touches, in place. */
void sc_tl_spans_merge(sc_tl_spans *s, size_t from);
/* The summed length of n intervals. */
int64_t sc_tl_spans_len(const sc_tl_span *v, size_t n);
void sc_tl_spans_free(sc_tl_spans *s);

/* ------------------------------------------------------------- input --- */
/* A GPU operation: a kernel, copy or memset. */
typedef struct sc_tl_op {
    int64_t start, end;
    uint64_t bytes;          /* copies and memsets */
    uint32_t corr;           /* the submitting API call's correlation id; 0: unknown */
    uint32_t stream, name, device;   /* name: the caller's index for a kernel's name */
    uint8_t kind;            /* sc_gpu_op_kind */
    uint8_t copy;            /* sc_gpu_copy (memcpy) */
    uint8_t src, dst;        /* sc_gpu_mem of a memcpy's ends; memset: dst */
} sc_tl_op;

/* A host thread's CUDA API call, driver or runtime. */
typedef struct sc_tl_api {
    int64_t start, end;
    uint32_t corr;           /* shared with the operations it submitted */
    uint32_t thread;         /* as the recorder names threads */
    uint32_t cbid;           /* which call (CUPTI's callback id) */
    uint8_t runtime;         /* 1 runtime API, 0 driver API */
} sc_tl_api;

/* An API call made while a finding event's external id was pushed. */
typedef struct sc_tl_ext { uint64_t ext; uint32_t corr; } sc_tl_ext;

/* A finding event: an intercepted call that carried a finding. */
typedef struct sc_tl_event {
    uint64_t ext;            /* the external id pushed around its real call */
    int64_t c0, c1;          /* the intercepted call's start and end */
    int64_t drain;           /* a wait for its stream's earlier work, just before c0 */
    uint32_t pthread, tid;   /* its thread, by either id the API records may use */
    uint8_t price;           /* price it (else its cost stays empty) */
    uint8_t timed;           /* it could hold the host: charge the GPU idle it caused */
    uint8_t barrier;         /* it is a barrier for other streams' later work */
} sc_tl_event;

/* --------------------------------------------------------- the model --- */
typedef struct sc_tl_device {
    uint32_t id;
    size_t o0, o1;           /* its operations: ops[o0..o1), by start */
    sc_tl_spans busy;        /* the union of its operations */
    sc_gpu_device g;         /* span, busy, idle, overlap, ops */
} sc_tl_device;

typedef struct sc_tl_stream {
    uint32_t device, id;
    size_t *ops, n;          /* its operations (indices into ops), by start */
    sc_tl_spans busy;        /* the union of its operations */
} sc_tl_stream;

typedef struct sc_tl_thread {
    uint32_t id;
    size_t a0, n;            /* its API calls: by_thread[a0 .. a0 + n), by start */
} sc_tl_thread;

typedef struct sc_tl_corr { uint32_t corr, op; } sc_tl_corr;

typedef struct sc_timeline {
    /* The caller's arrays, sorted in place by sc_tl_build. */
    sc_tl_op *ops; size_t nops;       /* by device, then start, then end */
    sc_tl_api *apis; size_t napis;    /* by correlation id, then start */
    sc_tl_ext *exts; size_t nexts;    /* by external id */
    sc_tl_device *devices; size_t ndevices;   /* by device id */
    sc_tl_stream *streams; size_t nstreams;   /* in the order met: by device, then first start */
    const sc_tl_api **by_thread;      /* every API call, by thread, then start (outer first) */
    sc_tl_thread *threads; size_t nthreads;   /* by thread id */
    sc_tl_corr *by_corr;              /* every operation, by correlation id */
    /* per operation */
    int64_t *submit;      /* when its API call began; its start if none is known or it began later */
    int64_t *prev_end;    /* the end of the operation before it on its stream; INT64_MIN: none */
    uint32_t *stream_of;  /* index into streams */
    uint32_t *pos;        /* its place in its stream's ops */
    /* what sc_tl_price found: every priced event's intervals (sc_tl_cost) */
    sc_tl_spans lost;
    /* sc_tl_price's working memory */
    uint32_t *stamp;      /* per operation: in a chain of this event (its number) */
    uint32_t *chained;    /* per stream: holds a chain of this event */
} sc_timeline;

/* Orders and indexes the arrays, which stay the caller's (sorted in
   place; they must outlive tl), and computes every device's metrics.
   Returns 0, or -1 when out of memory: tl is then unusable, but
   sc_tl_free frees what it holds. */
int sc_tl_build(sc_timeline *tl, sc_tl_op *ops, size_t nops, sc_tl_api *apis, size_t napis,
                sc_tl_ext *exts, size_t nexts);
void sc_tl_free(sc_timeline *tl);

/* The device's idle gaps between two operations of one stream, where the
   second's API call began at least SC_TL_GAP_QUEUED_NS before the first
   ended, so that the gap is the GPU's and not the host's: the median of
   those under SC_TL_GAP_MAX_NS (longer: a wait for another stream), in ns,
   at [prev_copy + 2 * next_copy] (kernel to kernel, copy to kernel, kernel
   to copy, copy to copy; memsets count as kernels); 0 where none was seen.
   gap_ns is left as it is where out of memory. */
#define SC_TL_GAP_QUEUED_NS 20000
#define SC_TL_GAP_MAX_NS 50000
void sc_tl_gaps(const sc_timeline *tl, uint32_t device, uint32_t gap_ns[4]);

/* Whether any API call names the thread `id`. */
int sc_tl_thread_known(const sc_timeline *tl, uint32_t id);

/* ---------------------------------------------------------- the price --- */
/* What a finding event cost. */
typedef struct sc_tl_cost {
    int64_t lost_ns;      /* the length of its intervals */
    long op;              /* the operation of another stream it held back
                             most, else its own first one; -1: none */
    uint32_t corr;        /* the correlation id of its own GPU work; 0: none */
    size_t iv0, niv;      /* its intervals: tl->lost.v[iv0 .. iv0 + niv), merged */
} sc_tl_cost;

/* Prices the events that ask for it (price) into cost[i], one per event;
   the others get {0, -1, 0, 0, 0}.  A second call starts over: tl->lost
   then holds the second call's intervals. */
void sc_tl_price(sc_timeline *tl, const sc_tl_event *ev, size_t n, sc_tl_cost *cost);

#endif /* SC_TIMELINE_H */
