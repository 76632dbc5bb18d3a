/* gpusample.c: when each device had work, sampled (gpusample.h).
 *
 * Detect mode opens no profiler, so it cannot see the GPU's operations;
 * it can ask whether a stream still has unfinished work (cuStreamQuery,
 * about 0.2 us on an H100, no synchronization).  A thread of the shim's own
 * asks, every period, the streams that may have work: the created ones
 * marked busy by a submission since they were last seen idle (lanes.c),
 * and each context's legacy stream.  A device had work at that moment when one of
 * its streams did.  The model (pricing.c) takes the device's busy time in a
 * stretch of the run from these samples, so the error of a stretch is about
 * a period at each end, and averages out over many steps.
 *
 * What cannot be asked: the per-thread default streams of other threads
 * (their handle means the asking thread's own), and nothing while a stream
 * capture is in progress (a query can invalidate it).  A device whose
 * program used per-thread default streams is reported as not sampled, and
 * the model falls back to what the waits say.  A stream the program
 * destroys is not queried while it goes: the destroy waits for the round
 * in progress (sc_gs_hold).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core.h"
#include "gpusample.h"
#include "lanes.h"
#include "real.h"
#include "shim.h"
#include "streams.h"

#define MAX_DEV 32
#define MAX_SPANS (1u << 20)

typedef struct dev {
    sc_pr_span *v;
    size_t n, cap;
    int busy;              /* at the last sample */
    uint64_t since;        /* when that stretch began (a midpoint) */
    int seen;              /* a sample found one of its streams */
} dev;

static dev devs[MAX_DEV];
static pthread_t thr;
static _Atomic int in_round;           /* a round of queries is under way (sc_gs_fence) */
static _Atomic int state;              /* 0 off, 1 running, 2 stopping, 3 ended (a futex) */
static _Atomic int abandoned;          /* it did not end in time: its samples are not used */
/* Writer-preferring: a destroy (sc_gs_hold) waits for the round under way,
   never for the next ones.  glibc's default lets readers in past a waiting
   writer: where rounds took longer than the period (a ThreadSanitizer
   build, 10 us), a loop destroying streams barely ran. */
static pthread_rwlock_t hold = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
static uint64_t period_ns = 1000000;
static uint64_t stall_ns;              /* STREAMCHECK_TEST_GS_STALL_MS: a test hook (sc_gs_stop) */
static uint64_t last_sample;
static unsigned gen0;                  /* sc_g.ctx_gen at the start: a context gone since ends the rounds */
static _Atomic uint64_t nsamples;

static void add_span(dev *d, uint64_t a, uint64_t b)
{
    if (b <= a || d->n >= MAX_SPANS)
        return;
    if (sc_grow_cap(&d->v, &d->cap, d->n + 1, sizeof *d->v, 256))
        return;
    d->v[d->n++] = (sc_pr_span){a, b};
}

/* ----------------------------------------------------------- a round --- */
typedef struct round { int busy[MAX_DEV]; CUcontext cur; } round;

static _Atomic uint64_t gone;   /* queries the driver refused a handle for (sc_gs_stop says so) */

static int query(round *r, CUcontext ctx, CUstream s)
{
    if (ctx != r->cur && sc_d.CtxSetCurrent && sc_d.CtxSetCurrent(ctx) == CUDA_SUCCESS)
        r->cur = ctx;
    CUresult q = sc_d.StreamQuery(s);
    if (q == CUDA_ERROR_INVALID_HANDLE || q == CUDA_ERROR_INVALID_CONTEXT || q == CUDA_ERROR_CONTEXT_IS_DESTROYED)
        atomic_fetch_add_explicit(&gone, 1, memory_order_relaxed);
    return q == CUDA_ERROR_NOT_READY;
}

static void q_stream(sc_stream *s, void *arg)
{
    round *r = arg;
    if (!atomic_load(&s->alive) || !atomic_load(&s->active) || atomic_load(&s->capturing))
        return;
    CUcontext c = atomic_load(&s->ctx);
    unsigned d = sc_ctx_device(c);
    if (d < MAX_DEV && !r->busy[d] && query(r, c, s->handle))
        r->busy[d] = 1;
}

static void q_legacy(sc_ctx *x, void *arg)
{
    round *r = arg;
    CUcontext c = atomic_load(&x->ctx);
    unsigned d = sc_ctx_device(c);
    /* Always asked: its busy mark is the context's, and one thread's
       synchronization clears it while other threads' work is still queued. */
    if (c && d < MAX_DEV && !r->busy[d] && query(r, c, CU_STREAM_LEGACY))
        r->busy[d] = 1;
}

static void sample(uint64_t now)
{
    round r = {.cur = NULL};
    /* A context destroyed or reset (cudaDeviceReset, as NVIDIA's samples end)
       took its streams along, and its legacy stream: no round asks about
       anything after that, and the samples so far stand.  The destroy held
       rounds off until it counted (dispatch.c, sc_gs_hold), so it is read
       under the hold. */
    pthread_rwlock_rdlock(&hold);
    if (atomic_load(&sc_g.ctx_gen) != gen0) {
        pthread_rwlock_unlock(&hold);
        return;
    }
    /* Against a capture's announcement (sc_gs_fence): both sides store,
       then load the other's flag, sequentially consistent, so either the
       round sees the capture or the capture waits for the round. */
    atomic_store(&in_round, 1);
    if (!atomic_load(&sc_g.n_capturing)) {
        sc_streams_foreach(q_stream, &r);
        sc_ctxs_foreach(q_legacy, &r);
    }
    atomic_store(&in_round, 0);
    pthread_rwlock_unlock(&hold);
    uint64_t mid = last_sample ? last_sample + (now - last_sample) / 2 : now;
    for (unsigned i = 0; i < MAX_DEV; i++) {
        dev *d = &devs[i];
        if (r.busy[i] && !d->busy) {
            d->busy = 1;
            d->since = mid;
            d->seen = 1;
        } else if (!r.busy[i] && d->busy) {
            d->busy = 0;
            add_span(d, d->since, mid);
        }
    }
    last_sample = now;
    atomic_fetch_add_explicit(&nsamples, 1, memory_order_relaxed);
}

static void *loop(void *arg)
{
    (void)arg;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    while (atomic_load(&state) == 1) {
        sample(sc_now_ns());
        next.tv_nsec += (long)period_ns;
        while (next.tv_nsec >= 1000000000L) {
            next.tv_nsec -= 1000000000L;
            next.tv_sec++;
        }
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
            ;
    }
    if (stall_ns) {   /* a last round held up in the driver, for tests/faults.sh */
        struct timespec st = {(time_t)(stall_ns / 1000000000u), (long)(stall_ns % 1000000000u)};
        while (nanosleep(&st, &st) == EINTR)
            ;
    }
    atomic_store(&state, 3);
    sc_futex_wake(&state);
    return NULL;
}

/* ------------------------------------------------------------- API --- */
static void stop_at_exit(void);

void sc_gs_start(uint64_t period)
{
    int expect = 0;
    if (!sc_d.StreamQuery || !atomic_compare_exchange_strong(&state, &expect, 1))
        return;
    if (period)
        period_ns = period;
    const char *stall = getenv("STREAMCHECK_TEST_GS_STALL_MS");
    stall_ns = stall ? strtoull(stall, NULL, 10) * 1000000ull : 0;
    gen0 = atomic_load(&sc_g.ctx_gen);
    /* The thread takes no signal meant for the program (sc_internal_mask) */
    sigset_t all, old;
    sc_internal_mask(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    if (pthread_create(&thr, NULL, loop, NULL) != 0)
        atomic_store(&state, 0);
    else
        atexit(stop_at_exit);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* The report waits this long for the sampler's last round.  A round asks
   the driver, and a signal may have stopped a thread of the program inside
   a driver call holding a lock that the round's query needs, the thread
   then waiting for this report (signals.c): the samples are given up
   rather than the report (the model then takes the GPU's busy time from
   the waits). */
#define SC_GS_STOP_NS (200 * 1000 * 1000ull)

void sc_gs_stop(void)
{
    int expect = 1;
    if (!atomic_compare_exchange_strong(&state, &expect, 2))
        return;
    uint64_t now = sc_now_ns(), deadline = now + SC_GS_STOP_NS;
    int s;
    while ((s = atomic_load(&state)) == 2 && now < deadline) {
        sc_futex_wait(&state, 2, deadline - now);
        now = sc_now_ns();
    }
    if (s != 3) {
        atomic_store(&abandoned, 1);
        sc_info("the GPU sampler did not end its last round in %llu ms (a driver call held up); the pricing model "
                "takes the GPU's busy time from the waits", SC_GS_STOP_NS / 1000000);
        return;
    }
    pthread_join(thr, NULL);
    /* a stream or context the program had destroyed, asked about: on a GPU
       that can be a freed handle, and a crash (dispatch.c, sc_gs_hold) */
    if (atomic_load(&gone))
        sc_info("the GPU sampler asked the driver about %llu stream(s) or context(s) already gone",
                (unsigned long long)atomic_load(&gone));
    uint64_t end = last_sample;
    for (unsigned i = 0; i < MAX_DEV; i++)
        if (devs[i].busy) {
            add_span(&devs[i], devs[i].since, end);
            devs[i].busy = 0;
        }
}

/* The sampler ends as the program's exit begins: registered after the CUDA
   runtime's own exit handlers (it starts at the first driver call), it
   runs before them, so no round queries a stream or context they tear
   down, as a round once queried a stream the program was destroying
   (dispatch.c: one seed 004 run in 80 on an H200 died of it in
   cuStreamQuery).  The final report, later, finds it ended. */
static void stop_at_exit(void)
{
    sc_gs_stop();   /* a forked child's sampler is off (gs_child): nothing to do */
}

int sc_gs_busy(unsigned device, const sc_pr_span **v, size_t *n)
{
    if (device >= MAX_DEV || !atomic_load(&nsamples) || atomic_load(&sc_g.ptds_used) || atomic_load(&abandoned)) {
        *v = NULL;
        *n = 0;
        return 0;
    }
    *v = devs[device].v;
    *n = devs[device].n;
    return 1;
}

uint64_t sc_gs_period(void)
{
    return period_ns;
}

void sc_gs_hold(void) { pthread_rwlock_wrlock(&hold); }
void sc_gs_release(void) { pthread_rwlock_unlock(&hold); }

void sc_gs_fence(void)
{
    while (atomic_load(&in_round))
        sched_yield();
}

/* ------------------------------------------------------------ fork --- */
static void gs_lock(void) { pthread_rwlock_wrlock(&hold); }
static void gs_unlock(void) { pthread_rwlock_unlock(&hold); }
/* The child has no sampler thread, and the parent's samples are not its. */
static void gs_child(void)
{
    pthread_rwlockattr_t a;
    pthread_rwlockattr_init(&a);
    pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&hold, &a);
    pthread_rwlockattr_destroy(&a);
    atomic_store(&in_round, 0);
    atomic_store(&state, 0);
    atomic_store(&abandoned, 0);
    atomic_store(&gone, 0);
    for (unsigned i = 0; i < MAX_DEV; i++)
        devs[i].n = 0, devs[i].busy = 0;
    last_sample = 0;
    atomic_store(&nsamples, 0);
}

static const sc_part part = {"gpusample", 15, gs_lock, gs_unlock, gs_child, NULL, NULL};
SC_PART_REGISTER(part)
