/* streams.c: the streams the program created, by handle.
 *
 * Lookups run on the fast path (every submission to a created stream), so
 * the table is open addressing over atomic pointers, read without locks.
 * Records are never freed: a destroyed stream's record is marked dead and
 * reused if the driver hands out the same handle again, so a pointer a
 * thread cached can never dangle.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"
#include "real.h"
#include "streams.h"

#define SLOTS 16384          /* power of two; far above what programs create */
#define MAX_RECORDS (SLOTS / 2)

static _Atomic(sc_stream *) slots[SLOTS];
static sc_stream *records[MAX_RECORDS];
static _Atomic size_t nrecords;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned slot_of(CUstream h)
{
    uint64_t x = (uint64_t)(uintptr_t)h;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (unsigned)x & (SLOTS - 1);
}

sc_stream *sc_stream_find(CUstream h)
{
    for (unsigned i = slot_of(h), probes = 0; probes < SLOTS; i = (i + 1) & (SLOTS - 1), probes++) {
        sc_stream *r = atomic_load_explicit(&slots[i], memory_order_acquire);
        if (!r)
            return NULL;
        if (r->handle == h)
            return atomic_load_explicit(&r->alive, memory_order_relaxed) ? r : NULL;
    }
    return NULL;
}

sc_stream *sc_stream_add(CUstream h, CUcontext ctx, unsigned flags, int prio, uint64_t site)
{
    static int full_warned;
    pthread_mutex_lock(&lock);
    sc_stream *r = NULL;
    unsigned i = slot_of(h);
    for (unsigned probes = 0; probes < SLOTS; i = (i + 1) & (SLOTS - 1), probes++) {
        r = atomic_load_explicit(&slots[i], memory_order_relaxed);
        if (!r || r->handle == h)
            break;
    }
    if (r && r->handle == h) {
        if (atomic_load(&r->alive)) {
            /* Created twice without a destroy we saw: keep the count right. */
            atomic_fetch_sub(&sc_g.n_live, 1);
            if (!(r->flags & CU_STREAM_NON_BLOCKING))
                atomic_fetch_sub(&sc_g.n_blocking, 1);
            if (atomic_load(&r->internal))
                atomic_fetch_sub(&sc_g.n_internal, 1);
        }
    } else {
        size_t n = atomic_load(&nrecords);
        if (r || n >= MAX_RECORDS || !(r = calloc(1, sizeof *r))) {
            pthread_mutex_unlock(&lock);
            sc_warn_once(&full_warned, "too many streams to track (%d); later ones are treated "
                         "as unknown", MAX_RECORDS);
            return NULL;
        }
        r->handle = h;
        records[n] = r;
        atomic_store_explicit(&nrecords, n + 1, memory_order_release);
        atomic_store_explicit(&slots[i], r, memory_order_release);
    }
    r->ctx = ctx;
    r->flags = flags;
    r->prio = prio;
    r->creator = (pid_t)gettid();
    r->create_site = site;
    atomic_store(&r->active, 0);
    atomic_store(&r->capturing, 0);
    atomic_store(&r->last_copy, SC_DIR_UNKNOWN);
    atomic_store(&r->internal, 0);
    atomic_store(&r->launched, 0);
    atomic_store_explicit(&r->alive, 1, memory_order_release);
    atomic_fetch_add(&sc_g.n_live, 1);
    if (!(flags & CU_STREAM_NON_BLOCKING))
        atomic_fetch_add(&sc_g.n_blocking, 1);
    pthread_mutex_unlock(&lock);
    return r;
}

/* A handle we never saw created (a library created it before we were
   loaded, or through an entry point we do not wrap): ask the driver. */
sc_stream *sc_stream_learn(CUstream h)
{
    sc_drv_resolve();
    unsigned flags = 0;
    int prio = 0;
    CUcontext ctx = NULL;
    if (!sc_d.StreamGetFlags || sc_d.StreamGetFlags(h, &flags) != CUDA_SUCCESS)
        return NULL;
    if (sc_d.StreamGetPriority)
        sc_d.StreamGetPriority(h, &prio);
    if (sc_d.StreamGetCtx)
        sc_d.StreamGetCtx(h, &ctx);
    return sc_stream_add(h, ctx, flags, prio, 0);
}

void sc_stream_remove(CUstream h)
{
    pthread_mutex_lock(&lock);
    sc_stream *r = sc_stream_find(h);
    if (r) {
        atomic_store(&r->alive, 0);
        if (atomic_exchange(&r->active, 0))
            atomic_fetch_sub(&sc_g.n_active, 1);
        if (atomic_exchange(&r->capturing, 0))
            atomic_fetch_sub(&sc_g.n_capturing, 1);
        atomic_fetch_sub(&sc_g.n_live, 1);
        if (!(r->flags & CU_STREAM_NON_BLOCKING))
            atomic_fetch_sub(&sc_g.n_blocking, 1);
        if (atomic_exchange(&r->internal, 0))
            atomic_fetch_sub(&sc_g.n_internal, 1);
    }
    pthread_mutex_unlock(&lock);
}

void sc_streams_foreach(void (*fn)(sc_stream *, void *), void *arg)
{
    size_t n = atomic_load_explicit(&nrecords, memory_order_acquire);
    for (size_t i = 0; i < n; i++)
        if (atomic_load_explicit(&records[i]->alive, memory_order_acquire))
            fn(records[i], arg);
}

static void streams_lock(void) { pthread_mutex_lock(&lock); }
static void streams_unlock(void) { pthread_mutex_unlock(&lock); }

/* In a forked child: the parent's streams do not exist there. */
static void streams_child(void)
{
    pthread_mutex_init(&lock, NULL);
    size_t n = atomic_load(&nrecords);
    for (size_t i = 0; i < n; i++) {
        atomic_store(&records[i]->alive, 0);
        atomic_store(&records[i]->active, 0);
        atomic_store(&records[i]->capturing, 0);
    }
    atomic_store(&sc_g.n_live, 0);
    atomic_store(&sc_g.n_blocking, 0);
    atomic_store(&sc_g.n_active, 0);
    atomic_store(&sc_g.n_capturing, 0);
}

static const sc_part part = {"streams", 20, streams_lock, streams_unlock, streams_child, NULL, NULL};
SC_PART_REGISTER(part)
