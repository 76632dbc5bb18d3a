/* thread_parts.h: the parts of the per-thread block (thread.h) that each
 * belong to one module, for the fields the fast path reads.  Their types
 * are here, apart from the code that owns them, so that thread.h can embed
 * them while that code includes thread.h.
 */
#ifndef SC_THREAD_PARTS_H
#define SC_THREAD_PARTS_H

#include <stdint.h>

#include "shim.h"

/* settle.c's: a finding held until the thread's next slow call, which
   decides what it cost.  The fast path sends every call of a thread that
   holds one to the slow path. */
typedef struct sc_held {
    uint8_t live;
    uint8_t lane;              /* sc_lane of the call held */
    uint8_t mode;              /* SC_HELD_* (rules.h): what will decide */
    CUstream stream;           /* its stream, as passed */
    uint64_t seq;              /* sc_thread.seq when held: a later submission changes it */
    sc_hit hit;
    uint64_t reads;            /* held copies that turned out synchronous reads (no finding) */
} sc_held;

/* redirect.c's: what the thread's last redirect on the slow path found, so
   that the fast path can redirect its next calls the same way
   (sc_fast_redirect): the context (NULL: none yet), sc_g.ctx_gen then, and
   the own stream it used (method stream; one of sc_thread.own). */
typedef struct sc_rd_last {
    unsigned gen;
    CUcontext ctx;
    sc_own *own;
} sc_rd_last;

/* runlog.c's: what the fast path keeps for the run log (runlog.h). */
enum { SC_RL_WATCH_WAIT = 1, SC_RL_WATCH_COPY = 2 };
typedef struct sc_rl_hot {
    uint32_t nsub;        /* submissions the fast path let through since the last recorded call */
    uint32_t captured;    /* of them, work into a capturing stream: no GPU work (runlog.c) */
    uint8_t watch;        /* after a wait (SC_RL_WATCH_WAIT): the next call is recorded (runlog.h,
                             sc_rl_watched); a pinned copy the fast path kept (SC_RL_WATCH_COPY) too */
    uint8_t last_pt;      /* the last of those submissions was passed to a per-thread entry point */
    CUstream last;        /* ... on this stream, as passed */
    uint32_t kernels;     /* of them, kernel launches ... */
    uint64_t threads;     /* ... and their threads (grid x block), summed: their demand */
    float occ;            /* ... their shares of the device by occupancy, summed (occupancy.h), */
    uint32_t occ_n;       /* of so many of them */
    /* the streams (as passed) whose first pinned copy each way took the
       slow path (runlog.h, sc_rl_piped), the newest four: the directions
       (bits 0 and 1), and the per-thread entry point (bit 2) */
    CUstream piped[4];
    uint8_t piped_dirs[4];
    uint8_t npiped, piped_next;
    unsigned piped_scope;   /* sc_range_scope_entries() when they were noted */
} sc_rl_hot;

#endif /* SC_THREAD_PARTS_H */
