/* src/sim/drv_sched.c: streams as worker-served FIFO queues, dependencies,
 * submission and waiting.
 *
 * Implicit synchronization (CUDA Driver API, "Stream synchronization
 * behavior"):
 *  - an operation on the legacy NULL stream waits for all prior work of
 *    every blocking stream of the context;
 *  - an operation on a blocking stream (created without
 *    CU_STREAM_NON_BLOCKING, or a per-thread default stream) waits for all
 *    prior work of the legacy stream;
 *  - non-blocking streams take part in neither rule.
 * Each device's context has its own legacy stream, and the rules hold
 * within a context: "each device has its own default stream, so commands
 * issued to the default stream of a device may execute out of order or
 * concurrently with respect to commands issued to the default stream of
 * any other device" (CUDA Programming Guide, Multi-Device System, Stream
 * and Event Behavior).
 * Both rules become dependencies when the operation is submitted.  A
 * legacy submission snapshots the blocking streams before it takes its
 * sequence number, and a blocking submission reads the legacy stream's
 * number before taking its own, so of two concurrent submissions at most
 * one depends on the other and no cycle can form. */
#include "config.h"

#include "sim/sim.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------- dependencies --- */

void scsim_deps_init(scsim_deps *d)
{
    d->n = 0;
    d->cap = sizeof d->inline_v / sizeof d->inline_v[0];
    d->v = d->inline_v;
}

void scsim_deps_add(scsim_deps *d, struct CUstream_st *s, uint64_t seq)
{
    if (seq == 0 || atomic_load(&s->completed) >= seq)
        return;
    for (unsigned i = 0; i < d->n; i++) {
        if (d->v[i].s == s) {
            if (d->v[i].seq < seq)
                d->v[i].seq = seq;
            return;
        }
    }
    if (d->n == d->cap) {
        unsigned ncap = d->cap * 2;
        scsim_dep *nv = malloc(ncap * sizeof *nv);
        if (!nv) {
            /* Out of memory: keep the order by waiting here instead. */
            scsim_wait((scsim_dep){s, seq});
            return;
        }
        memcpy(nv, d->v, d->n * sizeof *nv);
        if (d->v != d->inline_v)
            free(d->v);
        d->v = nv;
        d->cap = ncap;
    }
    d->v[d->n++] = (scsim_dep){s, seq};
}

void scsim_deps_free(scsim_deps *d)
{
    if (d->v != d->inline_v)
        free(d->v);
    scsim_deps_init(d);
}

static bool is_blocking(const struct CUstream_st *t)
{
    return t->kind != SCSIM_STREAM_LEGACY &&
           !(t->flags & CU_STREAM_NON_BLOCKING);
}

/* Prior work of every blocking stream of ctx; ctx->mu held. */
static void blocking_prior_locked(struct CUctx_st *ctx, scsim_deps *out)
{
    for (struct CUstream_st *t = ctx->streams; t; t = t->next)
        if (is_blocking(t))
            scsim_deps_add(out, t, atomic_load(&t->submitted));
}

void scsim_stream_prior(struct CUstream_st *s, scsim_deps *out)
{
    if (s->kind == SCSIM_STREAM_LEGACY) {
        pthread_mutex_lock(&s->ctx->mu);
        blocking_prior_locked(s->ctx, out);
        scsim_deps_add(out, s, atomic_load(&s->submitted));
        pthread_mutex_unlock(&s->ctx->mu);
    } else {
        scsim_deps_add(out, s, atomic_load(&s->submitted));
    }
}

void scsim_device_prior(struct CUctx_st *ctx, scsim_deps *out)
{
    for (int d = 0; d < scsim_g.ndevices; d++) {
        struct CUctx_st *c = &scsim_g.ctx[d];
        if (ctx && c != ctx)
            continue;
        pthread_mutex_lock(&c->mu);
        for (struct CUstream_st *t = c->streams; t; t = t->next)
            scsim_deps_add(out, t, atomic_load(&t->submitted));
        pthread_mutex_unlock(&c->mu);
    }
}

bool scsim_done(scsim_dep d)
{
    return atomic_load(&d.s->completed) >= d.seq;
}

void scsim_wait(scsim_dep d)
{
    if (scsim_done(d))
        return;
    struct CUstream_st *s = d.s;
    pthread_mutex_lock(&s->mu);
    s->waiters++;
    while (atomic_load(&s->completed) < d.seq)
        pthread_cond_wait(&s->done_cv, &s->mu);
    s->waiters--;
    pthread_mutex_unlock(&s->mu);
}

static void wait_all(scsim_deps *d)
{
    for (unsigned i = 0; i < d->n; i++)
        scsim_wait(d->v[i]);
}

CUresult scsim_stream_sync(struct CUstream_st *s)
{
    if (atomic_load(&scsim_g.ncaptures) > 0) {
        /* CUDA Programming Guide, "Prohibited and Unhandled Operations":
         * synchronizing a capturing stream, or the legacy stream while a
         * blocking stream captures, is invalid and invalidates the
         * capture. */
        if (s->kind == SCSIM_STREAM_LEGACY) {
            CUresult r = scsim_capture_check_legacy(true);
            if (r != CUDA_SUCCESS)
                return r;
        }
        if (scsim_capture_id_of(s)) {
            scsim_capture_invalidate_stream(s);
            return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
        }
    }
    scsim_deps d;
    scsim_deps_init(&d);
    scsim_stream_prior(s, &d);
    wait_all(&d);
    scsim_deps_free(&d);
    return CUDA_SUCCESS;
}

void scsim_device_sync(struct CUctx_st *ctx)
{
    scsim_deps d;
    scsim_deps_init(&d);
    scsim_device_prior(ctx, &d);
    wait_all(&d);
    scsim_deps_free(&d);
}

bool scsim_alloc_sync(bool release)
{
    /* CUDA Runtime API, "Stream Ordered Memory Allocator" and Driver API
     * "API synchronization behavior": allocation and release of device
     * and page-locked memory synchronize the device.  (Measured on an
     * H100 with driver 580, only the releases do; STREAMCHECK_SIM_ALLOC_
     * SYNC=free models that.)  The device is the current context's. */
    if (scsim_g.alloc_sync == SCSIM_ALLOC_SYNC_ALL ||
        (scsim_g.alloc_sync == SCSIM_ALLOC_SYNC_FREE && release)) {
        scsim_device_sync(scsim_current_ctx());
        return true;
    }
    return false;
}

/* ------------------------------------------------------------ workers --- */

typedef struct scsim_worker {
    pthread_cond_t cv;
    struct CUstream_st *s; /* assigned stream, NULL while idle */
    struct scsim_worker *next;
} scsim_worker;

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static scsim_worker *idle_workers;
static struct CUstream_st *free_streams;

static void stream_recycle(struct CUstream_st *s)
{
    struct CUctx_st *c = s->ctx;
    pthread_mutex_lock(&c->mu);
    if (s->prev)
        s->prev->next = s->next;
    else if (c->streams == s)
        c->streams = s->next;
    if (s->next)
        s->next->prev = s->prev;
    s->prev = s->next = NULL;
    pthread_mutex_unlock(&c->mu);

    pthread_mutex_lock(&pool_mu);
    s->pool_next = free_streams;
    free_streams = s;
    pthread_mutex_unlock(&pool_mu);
}

static void op_free(scsim_op *op)
{
    if (op->deps != op->inline_deps)
        free(op->deps);
    free(op);
}

/* Runs s's operations in order.  A worker serves until the stream is
 * destroyed and drained; the fallback (no worker thread could be
 * started) serves until the queue is empty. */
static void serve(struct CUstream_st *s, bool until_empty)
{
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (!s->head && !s->dying && !until_empty)
            pthread_cond_wait(&s->work_cv, &s->mu);
        scsim_op *op = s->head;
        if (!op)
            break;
        s->head = op->next;
        if (!s->head)
            s->tail = NULL;
        pthread_mutex_unlock(&s->mu);

        for (unsigned i = 0; i < op->ndeps; i++)
            scsim_wait(op->deps[i]);
        SCSIM_TRACE("run    op %d on stream %llu seq %llu", op->w.kind,
                    s->id, (unsigned long long)op->seq);
        if (scsim_tl_on())
            scsim_tl_run(&op->w, s, op->corr);
        else
            scsim_work_run(&op->w, s);
        scsim_work_release(&op->w);
        uint64_t seq = op->seq;
        op_free(op);

        pthread_mutex_lock(&s->mu);
        atomic_store(&s->completed, seq);
        if (s->waiters)
            pthread_cond_broadcast(&s->done_cv);
    }
    /* Drained; a destroyed stream goes back to the pool. */
    bool recycle = s->dying;
    s->has_worker = false;
    pthread_mutex_unlock(&s->mu);
    if (recycle)
        stream_recycle(s);
}

static void *worker_main(void *arg)
{
    scsim_worker *w = arg;
    pthread_mutex_lock(&pool_mu);
    for (;;) {
        while (!w->s)
            pthread_cond_wait(&w->cv, &pool_mu);
        struct CUstream_st *s = w->s;
        pthread_mutex_unlock(&pool_mu);
        serve(s, false);
        pthread_mutex_lock(&pool_mu);
        w->s = NULL;
        w->next = idle_workers;
        idle_workers = w;
    }
    return NULL;
}

/* Gives s a worker thread: an idle one, or a new one.  Threads are never
 * created per operation, only when more streams have work than ever
 * before. */
static bool worker_attach(struct CUstream_st *s)
{
    pthread_mutex_lock(&pool_mu);
    scsim_worker *w = idle_workers;
    if (w) {
        idle_workers = w->next;
    } else {
        w = calloc(1, sizeof *w);
        if (!w) {
            pthread_mutex_unlock(&pool_mu);
            return false;
        }
        pthread_cond_init(&w->cv, NULL);
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        /* The application's signals belong to its own threads. */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        pthread_t th;
        int rc = pthread_create(&th, &attr, worker_main, w);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        pthread_attr_destroy(&attr);
        if (rc != 0) {
            pthread_cond_destroy(&w->cv);
            free(w);
            pthread_mutex_unlock(&pool_mu);
            return false;
        }
    }
    w->s = s;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&pool_mu);
    return true;
}

/* ------------------------------------------------------------ streams --- */

struct CUstream_st *scsim_stream_new(struct CUctx_st *ctx, int kind,
                                     unsigned flags, int priority)
{
    pthread_mutex_lock(&pool_mu);
    struct CUstream_st *s = free_streams;
    if (s)
        free_streams = s->pool_next;
    pthread_mutex_unlock(&pool_mu);
    if (!s) {
        s = calloc(1, sizeof *s);
        if (!s)
            return NULL;
        pthread_mutex_init(&s->mu, NULL);
        pthread_cond_init(&s->work_cv, NULL);
        pthread_cond_init(&s->done_cv, NULL);
    }
    /* submitted/completed keep counting across reuse (see sim.h). */
    s->kind = kind;
    s->ctx = ctx;
    s->flags = flags;
    s->priority = priority;
    s->id = atomic_fetch_add(&scsim_g.next_stream_id, 1);
    s->head = s->tail = NULL;
    s->has_worker = false;
    s->dying = false;
    s->cap = NULL;
    s->pool_next = NULL;
    s->magic = SCSIM_MAGIC_STREAM;

    pthread_mutex_lock(&ctx->mu);
    s->prev = NULL;
    s->next = ctx->streams;
    if (s->next)
        s->next->prev = s;
    ctx->streams = s;
    pthread_mutex_unlock(&ctx->mu);
    SCSIM_TRACE("create stream %llu on device %d (%s%s)", s->id, ctx->ordinal,
                kind == SCSIM_STREAM_LEGACY       ? "legacy"
                : kind == SCSIM_STREAM_PER_THREAD ? "per-thread"
                                                  : "user",
                flags & CU_STREAM_NON_BLOCKING ? ", non-blocking" : "");
    return s;
}

/* cuStreamDestroy: "in case the device is still doing work in the stream
 * when cuStreamDestroy() is called, the function will return immediately
 * and the resources associated with hStream will be released
 * automatically once the device has completed all work". */
void scsim_stream_destroy(struct CUstream_st *s)
{
    pthread_mutex_lock(&s->mu);
    s->magic = 0;
    s->dying = true;
    bool has_worker = s->has_worker;
    pthread_cond_signal(&s->work_cv);
    pthread_mutex_unlock(&s->mu);
    SCSIM_TRACE("destroy stream %llu", s->id);
    if (!has_worker)
        stream_recycle(s);
}

/* ------------------------------------------------------------- submit --- */

static const char *work_name(int kind)
{
    static const char *const names[] = {
        "nop", "kernel", "copy", "copy2d", "memset",
        "hostfn", "callback", "event", "graph", "free",
    };
    return kind >= 0 && kind < (int)(sizeof names / sizeof names[0])
               ? names[kind]
               : "?";
}

CUresult scsim_submit(struct CUstream_st *s, const scsim_work *w,
                      const scsim_dep *extra, unsigned nextra,
                      bool capturable, uint64_t *seq_out, bool *captured)
{
    if (captured)
        *captured = false;
    if (seq_out)
        *seq_out = 0;
    if (atomic_load(&scsim_g.ncaptures) > 0) {
        /* The legacy stream cannot be used while a blocking stream
         * captures (CUDA_ERROR_STREAM_CAPTURE_IMPLICIT). */
        if (s->kind == SCSIM_STREAM_LEGACY) {
            CUresult r = scsim_capture_check_legacy(true);
            if (r != CUDA_SUCCESS)
                return r;
        }
        CUresult err = CUDA_SUCCESS;
        int rc = scsim_capture_record(s, w, capturable, &err);
        if (rc < 0)
            return err;
        if (rc > 0) {
            if (captured)
                *captured = true;
            SCSIM_TRACE("capture %s on stream %llu", work_name(w->kind),
                        s->id);
            return CUDA_SUCCESS;
        }
    }

    scsim_op *op = malloc(sizeof *op);
    if (!op)
        return CUDA_ERROR_OUT_OF_MEMORY;
    op->next = NULL;
    op->w = *w;
    op->corr = scsim_tl_corr;

    scsim_deps d;
    scsim_deps_init(&d);
    for (unsigned i = 0; i < nextra; i++)
        scsim_deps_add(&d, extra[i].s, extra[i].seq);

    bool attach = false;
    uint64_t seq;
    if (s->kind == SCSIM_STREAM_LEGACY) {
        pthread_mutex_lock(&s->ctx->mu);
        blocking_prior_locked(s->ctx, &d);
        pthread_mutex_lock(&s->mu);
    } else {
        pthread_mutex_lock(&s->mu);
        if (is_blocking(s)) {
            struct CUstream_st *l = s->ctx->legacy;
            scsim_deps_add(&d, l, atomic_load(&l->submitted));
        }
    }
    /* Move the dependencies into the operation. */
    unsigned ndeps = d.n;
    if (ndeps <= sizeof op->inline_deps / sizeof op->inline_deps[0]) {
        memcpy(op->inline_deps, d.v, ndeps * sizeof *d.v);
        op->deps = op->inline_deps;
        scsim_deps_free(&d);
    } else if (d.v != d.inline_v) {
        op->deps = d.v; /* the operation owns the heap array now */
    } else {
        op->deps = malloc(ndeps * sizeof *d.v);
        if (op->deps) {
            memcpy(op->deps, d.v, ndeps * sizeof *d.v);
        } else {
            /* Keep the order by waiting now. */
            for (unsigned i = 0; i < ndeps; i++)
                scsim_wait(d.v[i]);
            op->deps = op->inline_deps;
            ndeps = 0;
        }
    }
    op->ndeps = ndeps;

    seq = atomic_load(&s->submitted) + 1;
    op->seq = seq;
    if (s->tail)
        s->tail->next = op;
    else
        s->head = op;
    s->tail = op;
    atomic_store(&s->submitted, seq);
    if (!s->has_worker) {
        s->has_worker = true;
        attach = true;
    } else {
        pthread_cond_signal(&s->work_cv);
    }
    pthread_mutex_unlock(&s->mu);
    if (s->kind == SCSIM_STREAM_LEGACY)
        pthread_mutex_unlock(&s->ctx->mu);

    /* Not op->ndeps: the worker may have run and freed op by now (ASan
       found it, with the trace on). */
    SCSIM_TRACE("submit %s on stream %llu seq %llu (%u deps)",
                work_name(w->kind), s->id, (unsigned long long)seq, ndeps);
    if (attach && !worker_attach(s)) {
        static atomic_int once;
        scsim_msg_once(&once, "cannot start a stream worker thread (%s); "
                              "running stream work in the calling thread",
                       strerror(errno));
        serve(s, true);
    }
    if (seq_out)
        *seq_out = seq;
    return CUDA_SUCCESS;
}

/* --------------------------------------------------------------- work --- */

/* STREAMCHECK_SIM_KERNEL_MIN_US=U: a kernel with a twin takes at least U
 * microseconds, the worker sleeping out what its twin did not take, so
 * that kernels on different streams overlap whatever else shares the CPU
 * (as a GPU's small kernels do beside each other); unset, a kernel takes
 * its twin's time on the CPU. */
static uint64_t kernel_min_ns(void)
{
    static _Atomic int read;
    static _Atomic uint64_t ns;
    if (!atomic_load_explicit(&read, memory_order_acquire)) {
        long us = scsim_env_long("STREAMCHECK_SIM_KERNEL_MIN_US", 0);
        atomic_store(&ns, us > 0 ? (uint64_t)us * 1000u : 0);
        atomic_store_explicit(&read, 1, memory_order_release);
    }
    return atomic_load(&ns);
}

static void sleep_until(uint64_t end)
{
    struct timespec ts = {.tv_sec = (time_t)(end / 1000000000ull), .tv_nsec = (long)(end % 1000000000ull)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

static void run_kernel(scsim_work *w)
{
    struct CUfunc_st *f = w->u.kernel.f;
    if (!f->twin)
        return;
    uint64_t min = kernel_min_ns();
    struct timespec t0;
    if (min)
        clock_gettime(CLOCK_MONOTONIC, &t0);
    const sc_twin *t = f->twin;
    void *small[32];
    void **ptrs = small;
    if (t->nparams > sizeof small / sizeof small[0]) {
        ptrs = malloc(t->nparams * sizeof *ptrs);
        if (!ptrs)
            return;
    }
    /* Arguments were packed at their natural alignment, the layout of a
     * CUDA parameter buffer (CUDA Driver API, cuLaunchKernel). */
    size_t off = 0;
    for (unsigned i = 0; i < t->nparams; i++) {
        size_t a = t->params[i].align;
        off = (off + a - 1) / a * a;
        ptrs[i] = (char *)w->u.kernel.args + off;
        off += t->params[i].size;
    }
    sc_twin_launch l = {
        .grid = {w->u.kernel.grid[0], w->u.kernel.grid[1],
                 w->u.kernel.grid[2]},
        .block = {w->u.kernel.block[0], w->u.kernel.block[1],
                  w->u.kernel.block[2]},
        .shared_bytes = w->u.kernel.shmem,
        .args = ptrs,
    };
    t->fn(&l);
    if (ptrs != small)
        free(ptrs);
    if (min)
        sleep_until((uint64_t)t0.tv_sec * 1000000000ull + (uint64_t)t0.tv_nsec + min);
}

static void run_memset(scsim_work *w)
{
    for (size_t r = 0; r < w->u.memset.height; r++) {
        char *row = w->u.memset.dst + r * w->u.memset.pitch;
        size_t n = w->u.memset.width;
        uint32_t v = w->u.memset.value;
        switch (w->u.memset.elem) {
        case 1:
            memset(row, (int)(v & 0xff), n);
            break;
        case 2: {
            uint16_t x = (uint16_t)v;
            for (size_t i = 0; i < n; i++)
                memcpy(row + 2 * i, &x, 2);
            break;
        }
        default:
            for (size_t i = 0; i < n; i++)
                memcpy(row + 4 * i, &v, 4);
            break;
        }
    }
}

/* STREAMCHECK_SIM_COPY_GBPS=R: a one-dimensional copy of n bytes takes at
 * least n / R ns, as over a link of R GB/s (the worker sleeps the rest out),
 * so that every copy of a size takes the same time, as a GPU's DMA copies do.
 * STREAMCHECK_SIM_PAGEABLE_GBPS=P: one with an end in pageable host memory
 * takes n / P (the driver stages it through its pinned buffers, slower than
 * a pinned copy's DMA); unset, such a copy goes at R too.
 * Unset (the default) a copy takes its memmove's time, which the CPU's caches
 * and first touches of pages make vary with what was copied before: a
 * pinned rate timed on a warm buffer (what streamcheck's pricing model
 * calibrates, src/shim/calibrate.c) is then several times what a program's
 * copies of cold memory get. */
static double env_gbps(const char *name)
{
    const char *e = getenv(name);
    double r = e && *e ? strtod(e, NULL) : 0;
    return r > 0 ? r : 0;
}

static double copy_gbps(bool pageable)
{
    static _Atomic int read;
    static _Atomic double rate, pageable_rate;
    if (!atomic_load_explicit(&read, memory_order_acquire)) {
        double r = env_gbps("STREAMCHECK_SIM_COPY_GBPS"), p = env_gbps("STREAMCHECK_SIM_PAGEABLE_GBPS");
        atomic_store(&rate, r);
        atomic_store(&pageable_rate, p > 0 ? p : r);
        atomic_store_explicit(&read, 1, memory_order_release);
    }
    return atomic_load(pageable ? &pageable_rate : &rate);
}

static void paced_copy(void *dst, const void *src, size_t n, bool pageable)
{
    double r = copy_gbps(pageable);
    struct timespec t0;
    if (r > 0)
        clock_gettime(CLOCK_MONOTONIC, &t0);
    memmove(dst, src, n);
    if (r <= 0)
        return;
    sleep_until((uint64_t)t0.tv_sec * 1000000000ull + (uint64_t)t0.tv_nsec + (uint64_t)((double)n / r));
}

void scsim_work_run(scsim_work *w, struct CUstream_st *s)
{
    switch (w->kind) {
    case SCSIM_W_NOP:
        break;
    case SCSIM_W_KERNEL:
        run_kernel(w);
        break;
    case SCSIM_W_COPY:
        if (w->u.copy.n)
            paced_copy(w->u.copy.dst, w->u.copy.src, w->u.copy.n,
                       w->u.copy.dkind == SCSIM_MEM_PAGEABLE || w->u.copy.skind == SCSIM_MEM_PAGEABLE);
        break;
    case SCSIM_W_COPY2D:
        for (size_t r = 0; r < w->u.copy2d.height; r++)
            memmove(w->u.copy2d.dst + r * w->u.copy2d.dpitch,
                    w->u.copy2d.src + r * w->u.copy2d.spitch,
                    w->u.copy2d.width);
        break;
    case SCSIM_W_MEMSET:
        run_memset(w);
        break;
    case SCSIM_W_HOSTFN:
        w->u.hostfn.fn(w->u.hostfn.data);
        break;
    case SCSIM_W_CALLBACK:
        w->u.callback.fn(w->u.callback.handle, CUDA_SUCCESS,
                         w->u.callback.data);
        break;
    case SCSIM_W_EVENT: {
        /* Event timestamps are the host's monotonic clock when the record
         * operation runs; only the event's latest record keeps one. */
        struct CUevent_st *e = w->u.event.e;
        uint64_t now = scsim_now_ns();
        pthread_mutex_lock(&e->mu);
        if (e->gen == w->u.event.gen) {
            e->t_ns = now;
            e->t_gen = w->u.event.gen;
        }
        pthread_mutex_unlock(&e->mu);
        break;
    }
    case SCSIM_W_GRAPH: {
        /* A graph launch is one stream operation replaying the captured
         * work in capture order. */
        scsim_body *b = w->u.graph.body;
        for (size_t i = 0; i < b->n; i++)
            scsim_work_run(&b->w[i], s);
        break;
    }
    case SCSIM_W_FREE:
        scsim_mem_free_device(w->u.free.ptr);
        break;
    }
}

void scsim_work_release(scsim_work *w)
{
    switch (w->kind) {
    case SCSIM_W_KERNEL:
        free(w->u.kernel.args);
        w->u.kernel.args = NULL;
        break;
    case SCSIM_W_COPY:
        free(w->u.copy.owned);
        w->u.copy.owned = NULL;
        break;
    case SCSIM_W_COPY2D:
        free(w->u.copy2d.owned);
        w->u.copy2d.owned = NULL;
        break;
    case SCSIM_W_EVENT:
        scsim_event_unref(w->u.event.e);
        break;
    case SCSIM_W_GRAPH:
        scsim_body_unref(w->u.graph.body);
        break;
    default:
        break;
    }
}
