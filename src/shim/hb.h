/* hb.h: happens-before between host threads: the tracker (hb_clock.c),
 * redirect's waits (hb_order.c) and the interposed pthread functions
 * (hb_pthread.c).
 *
 * The legacy default stream orders the work of every thread that uses it.
 * Redirect gives each thread a stream of its own, which keeps the order
 * within a thread but not between threads; where the host program orders
 * two threads itself (a mutex, a condition variable, a semaphore, a barrier,
 * create, join), that order must survive on the GPU too.  The tracker
 * follows the pthread synchronization the program does, as vector clocks
 * (the model of ThreadSanitizer: a release joins the thread's clock into
 * the sync object, an acquire joins the object's clock into the thread's),
 * and answers two questions:
 *   - redirect: before a thread's redirected call, which other threads'
 *     redirected work must it wait for (sc_hb_order);
 *   - SC103: is another thread's latest legacy-stream work ordered before
 *     this point, or are the threads racing to submit
 *     (sc_hb_legacy_concurrent).
 *
 * A clock has one component per "tracked thread": a thread that submitted
 * legacy-stream work (SC_HB_SLOTS of them at most; the rest are untracked and
 * handled conservatively).  A component counts that thread's legacy-stream
 * submissions.  Threads that never submit still carry clocks from one thread
 * to another (A -> C -> B).  Everything is off, and the interposed pthread
 * functions are a load and a branch, until some thread submits legacy work.
 */
#ifndef SC_HB_H
#define SC_HB_H

#include <stdint.h>

#include <cuda.h>

struct sc_thread;

#define SC_HB_SLOTS 32       /* tracked threads (clock components) */
#define SC_HB_TABLE 4096     /* sync objects with a clock; the rest share one */

/* Where a legacy-stream submission went (sc_hb_submitted). */
enum {
    SC_HB_LEGACY = 0,   /* stayed on the legacy stream */
    SC_HB_OWN = 1,      /* the thread's own stream, or ordered before its next work there */
    SC_HB_PTDS = 2,     /* the thread's per-thread default stream */
};

/* The calling thread is about to submit work to the legacy stream: turns the
   tracker on (first time) and gives the thread its clock component.  Returns
   the component, or -1 when the thread cannot be tracked (more than
   SC_HB_SLOTS threads, or no memory): its work must then stay on the legacy
   stream under redirect. */
int sc_hb_thread_legacy(struct sc_thread *t);

/* SC103: 1 if some other thread's latest legacy-stream submission does not
   happen before the calling thread's current point (the threads race to
   submit), 0 if every one does (they take turns).  A racing pair marks both
   threads' lifetimes concurrent (sc_hb_lifetime_concurrent), so a thread
   that raced once, at its start or its end, has all its legacy work counted
   whatever the timing of the run. */
int sc_hb_legacy_concurrent(struct sc_thread *t);
/* A thread's first legacy-stream work: in detect mode the tracker rests
   after judging enough submissions (hb_clock.c, HB_JUDGED); a thread new to the
   legacy stream wakes it.  sc_hb_rests: how often it went to rest. */
void sc_hb_new_legacy_thread(void);
uint64_t sc_hb_rests(void);
/* The calling thread's lifetime id (nonzero once it submitted legacy work)
   and whether a lifetime was ever found racing another. */
unsigned sc_hb_lifetime(void);
int sc_hb_lifetime_concurrent(unsigned lid);

/* After a successful legacy-stream submission (redirected or not): advances
   the thread's component.  `where` is SC_HB_*, ctx the context it went to. */
void sc_hb_submitted(struct sc_thread *t, int where, CUcontext ctx);

/* Redirect, before a redirected call of the calling thread whose work goes
   to `target` (its own stream, or CU_STREAM_PER_THREAD) in ctx: makes target
   wait for the redirected work of every thread this one has synchronized
   with since its last redirected call, where that work may be unfinished.
   Returns 0 when done (waits added or none needed), -1 when an order could
   not be arranged: the call must then stay on the legacy stream, which
   orders it after every blocking stream's work (and the thread's later
   redirected work after it). */
int sc_hb_order(struct sc_thread *t, CUcontext ctx, CUstream target);
/* The fast path's redirect (sc_fast_redirect): when sc_hb_order would find
   nothing to wait for (no hand-off since the thread's last redirected call
   in ctx), counts the submission as sc_hb_submitted would and returns 0;
   else 1, and the call takes the slow path.  Counted before the real call:
   the release that could hand it over comes after the call returns.
   where -1: a wait, which is not a submission: only the check. */
int sc_hb_fast_submit(int where, CUcontext ctx);
/* The call stayed on the legacy stream after sc_hb_order returned -1. */
void sc_hb_kept_legacy(struct sc_thread *t);
/* A stream the thread's redirected work goes to in ctx (--redirect-method=
   stream), for other threads to record events on; gen is sc_g.ctx_gen. */
void sc_hb_own_stream(struct sc_thread *t, CUcontext ctx, CUstream s, unsigned gen);
/* The calling thread synchronized its redirected work in ctx (its stream
   drained): other threads need not wait for it. */
void sc_hb_drained(struct sc_thread *t, CUcontext ctx);
/* A context synchronization by the calling thread: begin before the call,
   end after it succeeded.  Every thread's work in ctx until begin drained. */
void sc_hb_ctx_sync_begin(void);
void sc_hb_ctx_sync_end(CUcontext ctx);

/* What redirect kept (the report): hand-offs seen (a thread's redirected
   call that followed, through the program's synchronization, another
   thread's unfinished or unknown redirected work), waits added (events
   recorded and waited for), and calls kept on the legacy stream to keep an
   order no event covered. */
void sc_hb_stats(uint64_t *handoffs, uint64_t *waits, uint64_t *kept);
/* Profile mode: each caller (return address) whose releases published a
   clock (pub) or recorded the per-thread stream's event (ev). */
void sc_hb_prof_callers(void (*fn)(uintptr_t ra, uint64_t pub, uint64_t ev, void *arg), void *arg);

/* Fork: the child starts from nothing (a part of core.h's fork handler). */
void sc_hb_atfork_child(void);

/* ---- the vector-clock core, for the interposers and the unit tests ---- */
void sc_hb_acquire(const void *obj);
void sc_hb_release(const void *obj);
int sc_hb_on(void);
/* Tests: follow every call, also those from the test program itself (which
   holds the shim's code, so it counts as "ours" and would be skipped). */
void sc_hb_test_follow_all(int on);
/* Tests: the components of the calling thread's clock (0 for none). */
uint64_t sc_hb_test_clock(int slot);
/* Tests: sync objects that did not fit the table (they share one clock). */
unsigned sc_hb_test_overflowed(void);

#endif /* SC_HB_H */
