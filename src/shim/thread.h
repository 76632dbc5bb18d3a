/* thread.h: the per-thread block (sc_thread), what each thread that calls
 * CUDA keeps: one TLS load away (core.h, sc_tls_self), recycled with the
 * thread (core.c).  It holds what the fast path reads and what several
 * modules share.  State only one module uses lives with that module
 * (findings.c's tables and callsites.c's caches, reached from here by a
 * pointer; hb_clock.c's clocks), or, where the fast path reads it, is a
 * part of its own here (thread_parts.h).  The fields the fast path reads
 * most come first.
 */
#ifndef SC_THREAD_H
#define SC_THREAD_H

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "shim.h"
#include "thread_parts.h"

#define SC_MAX_MODS 32        /* calling libraries counted separately; the last is "other" */
#define SC_RACACHE 64         /* return address -> calling library, per thread (modules.h) */
/* The fast path is timed once every SC_FAST_SAMPLE calls of a thread
   (fast.h, sc_fast_sampled; nfast counts them). */
#define SC_FAST_SAMPLE 4096

struct sc_aggtab;
struct sc_sites_thread;
struct sc_rl_log;

typedef struct sc_racache_ent { uintptr_t ra; unsigned mod; } sc_racache_ent;

struct sc_thread {
    _Atomic uint8_t busy;      /* inside our own slow path (SC_BUSY_*, core.h): pass calls through */
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
    sc_rl_hot rl;              /* the run log's fast-path counters (runlog.h) */
    uint64_t nnotes;           /* SC101 notes seen (their call sites are sampled) */
    /* The busy mark of the legacy stream of the thread's context, as its
       last slow call on the legacy stream found it (lanes.c): the fast path
       marks it for the notes it keeps (sc_fast_legacy). */
    _Atomic uint64_t *legacy_mark;
    _Atomic uint64_t own_ticks; /* time in our own code, TSC ticks (slow path exact, fast path sampled) */
    sc_prof_cell prof[SC_PH_N]; /* STREAMCHECK_PROFILE: per phase */
    struct sc_aggtab *agg;     /* this thread's findings (findings.c) */
    struct sc_sites_thread *sites; /* this thread's call-site caches (callsites.c) */
    struct sc_rl_log *rlog;    /* this thread's run log (runlog.c) */
    _Atomic int rl_actor;      /* it holds a call of this thread's: other threads count it (sc_rl_threads) */
    sc_racache_ent racache[SC_RACACHE];   /* calling library of a return address (modules.h) */
    _Atomic uint64_t counts[SC_MAX_MODS][SC_NAPI];
    /* --redirect-method=stream: the blocking streams this thread's legacy
       work goes to, one per context, made on first use and kept with the
       block when the thread exits (the next thread to take it reuses them). */
    sc_own own[SC_OWN_MAX];
    uint8_t has_own;           /* made one: its per-thread-stream work is ordered with it */
    sc_rd_last rd;             /* redirect.c's last route (thread_parts.h) */
    sc_held held;              /* settle.c's held finding (thread_parts.h) */
    struct sc_thread *next;    /* global list; never unlinked, recycled */
    _Atomic int in_use;
    /* A signal that came while the thread was in the shim's bookkeeping,
       raised again once it is out (core.h, sc_raise_deferred); set by the
       handler (signals.c) on this thread, read by the thread. */
    volatile sig_atomic_t pending_sig;
    uint8_t late;              /* still in its bookkeeping when the report
                                  stopped waiting (core.c, quiesce): its tables
                                  are left out */
};

#endif /* SC_THREAD_H */
