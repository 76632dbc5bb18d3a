/* runlog.h: the run as the pricing model needs it (pricing.h), recorded
 * while the program runs.
 *
 * Every call the slow path sees is recorded in its thread's log with its
 * start and end, how long it waited for the GPU, what it did (queued work,
 * waited for a stream, the device or an event, copied pageable memory,
 * copied synchronously), where, and the findings it counted in.  The fast
 * path only counts the submissions it lets through (and where the last one
 * went), so each record also says how many came since the one before.
 * After a call that waited, the thread's next submission takes the slow
 * path (watch), so the model knows when the GPU got work again.
 *
 * The fast path's part is in thread_parts.h (sc_rl_hot) and fast.h.
 * Memory is bounded: a thread records at most SC_RL_MAX calls.  Past that
 * its log is cut: the model takes every actor's calls up to the earliest
 * cut (sc_rl_cut), and price.c extrapolates its savings to the whole run.
 */
#ifndef SC_RUNLOG_H
#define SC_RUNLOG_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda.h>

#include "pricing.h"

#define SC_RL_MAX (1u << 18)

struct sc_thread;
struct sc_op;
struct sc_agg_key;

/* Whether runs are recorded (detect and measured mode; not under
   redirect, which changes the run the model would replay).  Atomic: a
   thread's pthread_join may read it while another thread's first call
   initializes the shim (a plain load on x86). */
extern _Atomic int sc_rl_on;
/* Event records and stream waits for events recorded too (SC_PR_EVENT_RECORD,
   SC_PR_EVENT_WAIT): the fast path lets the run log record them
   (sc_fast_watch).  In measured mode (GPU runs showed them move no price
   but SC601's, which they make possible); STREAMCHECK_TEST_EVENT_ORDERS=1
   or 0 overrides either mode.  Set once, at start. */
extern int sc_rl_events;

/* Records a slow-path call once it returned: t0/t1 its start and end,
   wait_ns the part spent waiting for earlier GPU work.  Returns the
   record's number + 1 in the thread's log, 0 when not recorded. */
uint32_t sc_rl_record(struct sc_thread *t, struct sc_op *op, uint64_t t0, uint64_t t1, uint64_t wait_ns);
/* Whether thread t's log reached its bound: its calls are judged as
   before (SC403 too, which a recorded wait needs otherwise) and their
   findings counted, for the model's extrapolation (price.c). */
int sc_rl_full(const struct sc_thread *t);
/* The fast path kept a call while t->rl.watch is on.  sc_rl_watches: 1
   when it is to be recorded (0 for a capture, which gives the GPU no work:
   the watch stays on); then the wrapper reads the clock (t0), makes the
   real call, and sc_rl_watched records it as the slow path would, with
   none of the slow path's judging (the fast path found nothing to judge),
   when it succeeded. */
int sc_rl_watches(const struct sc_thread *t, const struct sc_op *op);
void sc_rl_watched(struct sc_thread *t, struct sc_op *op, uint64_t t0, CUresult r);
/* Async copies from or to pinned memory of SC_RL_COPY_MIN bytes or more
   are recorded (fast.h), with their device side, so the model knows what a
   stream's kernels wait for (SC703).  sc_rl_piped: whether the copy's stream
   (as passed) already had its first such copy this way, which takes the
   slow path (the first of the stream for SC703's candidate, the first each
   way to time the pinned rate; again inside each range of --range's name);
   sc_rl_pipe_mark, on the slow path, notes
   that an async copy of pinned memory of that size had, and returns 1 for
   the stream's first. */
#define SC_RL_COPY_MIN SC_PR_PIPE_MIN
/* Whether runs are recorded and op, an async copy of pinned memory (the
   caller knows it is pinned), is one the run log records: SC_RL_COPY_MIN
   bytes or more, to or from the device. */
int sc_rl_copy_recorded(const struct sc_op *op);
int sc_rl_piped(struct sc_thread *t, const struct sc_op *op);
int sc_rl_pipe_mark(struct sc_thread *t, const struct sc_op *op);
/* How many threads alive have calls recorded (the program's threads that
   use CUDA). */
unsigned sc_rl_threads(void);
/* The slow path's own time around record `rec` of thread t, in TSC ticks
   (the model takes it out of the host time around the call). */
void sc_rl_own(struct sc_thread *t, uint32_t rec, uint64_t ticks);
/* The calling thread waited from t0 to t1 for thread `other` to end
   (pthread_join; hb_pthread.c). */
void sc_rl_join(pthread_t other, uint64_t t0, uint64_t t1);
/* Whether [addr, addr + len) holds the host side of one of thread t's
   last two pageable copies (its index in t's list, else -1),
   and: the thread spent ns unmapping it (unmap.c). */
int sc_rl_src_of(const struct sc_thread *t, const void *addr, size_t len);
void sc_rl_unmapped(struct sc_thread *t, const void *addr, size_t len, uint64_t ns);
/* Thread t mapped [addr, addr + len) of file fd, shared (unmap.c): where a
   regular file (shared memory: not a device's, as the CUDA driver maps its
   own), a batch received from a DataLoader worker, which a pageable copy
   may send next */
void sc_rl_mapped(struct sc_thread *t, const void *addr, size_t len, int fd);
/* The finding an aggregate key names counts the recorded call `rec` of
   thread t (sc_rl_record's number); rec 0: a call not recorded, counted
   where the thread's log is full. */
void sc_rl_finding(struct sc_thread *t, uint32_t rec, const struct sc_agg_key *k);

/* At report time, after every thread left the shim: the model, with one
   finding per aggregate key the calls counted in (sc_rl_key gives each
   finding's key).  The model's arrays stay valid until sc_rl_model_free. */
int sc_rl_model(sc_pr_model *m);
const struct sc_agg_key *sc_rl_key(uint16_t finding);   /* index + 1 */
/* After sc_rl_model (and sc_rl_hold): 1 where an actor's log reached its
   bound, or the model holds less than the logs, with when the first call
   left out began (*at: the model holds the calls begun before it) and when
   the actors' last call ended (*end); else 0. */
int sc_rl_cut(uint64_t *at, uint64_t *end);
/* Holds at most `max` of the model's calls (the replays at exit take a
   time in proportion to the calls and the scenarios, price.c): where it
   has more, the horizon moves to the latest time before which at most max
   began, and the model's threads keep those, as a cut log's would
   (sc_rl_cut then says so). */
void sc_rl_hold(sc_pr_model *m, size_t max);
/* The calls counted in each of the first nfind findings (n[index]), in
   the model or not: those recorded, and those past a log's bound
   (sc_rl_finding with rec 0). */
void sc_rl_calls(uint64_t *n, size_t nfind);
void sc_rl_model_free(sc_pr_model *m);

#endif /* SC_RUNLOG_H */
