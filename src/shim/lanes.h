/* lanes.h: the state the slow path asks about (lanes.c): contexts and
 * their legacy streams, the lane (stream) a call's work lands on, busy
 * marks, and which other streams have unfinished work right now.  sc_mark
 * is the fast path's way to mark a stream busy.
 */
#ifndef SC_LANES_H
#define SC_LANES_H

#include <stdatomic.h>
#include <stdint.h>

#include "core.h"
#include "shim.h"
#include "thread.h"

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
/* Every context seen so far (the GPU sampler asks their legacy streams). */
void sc_ctxs_foreach(void (*fn)(sc_ctx *, void *), void *arg);
/* The first context seen on a device (by ordinal), or NULL. */
CUcontext sc_device_ctx(unsigned ordinal);
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
    int finished;            /* a marked stream's work was found finished (its mark cleared) */
} sc_busy_q;
unsigned sc_busy_others(sc_thread *t, sc_busy_q *q);
/* The same over every context, for a call about to give its own lane work
   (q skips it): the busy marks left, that lane's included, are then the
   exact count of busy streams again (sc_g.n_active, which sc_mark keeps
   approximately). */
unsigned sc_busy_recount(sc_thread *t, sc_busy_q *q);

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
/* Whether op's lane has work unfinished (a query, which clears its mark
   when it has none): 1 busy, 0 idle, -1 no lane. */
int sc_lane_busy(sc_thread *t, sc_op *op);
/* The same, telling idle apart: 0 nothing queued since the lane was last
   known drained (its mark clear), 2 work queued since, found finished. */
int sc_lane_state(sc_thread *t, sc_op *op);

/* Every device a context of the process was seen on (report time). */
void sc_devices_foreach(void (*fn)(int ordinal, const char *name, void *), void *arg);

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

#endif /* SC_LANES_H */
