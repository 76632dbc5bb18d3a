/* src/sim/drv_stream.c: stream handles, stream and event entry points,
 * host functions. */
#include "config.h"

#include "sim/drv_api.h"
#include "sim/sim.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------- per-thread --- */

/* "The per-thread default stream is not a non-blocking stream and will
 * synchronize with the legacy default stream if both are used in a
 * program" (CUDA Driver API, "Stream synchronization behavior").  One per
 * host thread and context (device), created on first use, destroyed when
 * the thread exits. */
static __thread struct CUstream_st *tls_pt_stream[SCSIM_MAX_DEVICES];
static pthread_key_t pt_key;
static pthread_once_t pt_key_once = PTHREAD_ONCE_INIT;

static void pt_stream_exit(void *p)
{
    (void)p;
    for (int d = 0; d < SCSIM_MAX_DEVICES; d++) {
        if (tls_pt_stream[d])
            scsim_stream_destroy(tls_pt_stream[d]);
        tls_pt_stream[d] = NULL;
    }
}

static void pt_key_init(void)
{
    pthread_key_create(&pt_key, pt_stream_exit);
}

static CUresult per_thread_stream(struct CUctx_st *ctx, struct CUstream_st **out)
{
    struct CUstream_st **slot = &tls_pt_stream[ctx->ordinal];
    if (!*slot) {
        pthread_once(&pt_key_once, pt_key_init);
        struct CUstream_st *s =
            scsim_stream_new(ctx, SCSIM_STREAM_PER_THREAD, 0, 0);
        if (!s)
            return CUDA_ERROR_OUT_OF_MEMORY;
        /* Any non-NULL value makes the destructor run at thread exit. */
        pthread_setspecific(pt_key, s);
        *slot = s;
    }
    *out = *slot;
    return CUDA_SUCCESS;
}

CUresult scsim_stream_resolve(CUstream h, bool pt, struct CUstream_st **out)
{
    if (h == NULL || h == CU_STREAM_LEGACY || h == CU_STREAM_PER_THREAD) {
        CUresult r = scsim_check_ctx();
        if (r != CUDA_SUCCESS)
            return r;
        bool per_thread = h == CU_STREAM_PER_THREAD || (h == NULL && pt);
        struct CUctx_st *ctx = scsim_current_ctx();
        if (per_thread)
            return per_thread_stream(ctx, out);
        *out = ctx->legacy;
        return CUDA_SUCCESS;
    }
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (h->magic != SCSIM_MAGIC_STREAM)
        return CUDA_ERROR_INVALID_HANDLE;
    *out = h;
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------ streams --- */

static CUresult stream_create(CUstream *ph, unsigned flags, int priority)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    if (!ph || (flags & ~(unsigned)CU_STREAM_NON_BLOCKING))
        return CUDA_ERROR_INVALID_VALUE;
    /* Priorities outside [greatest, least] are clamped, as documented. */
    if (priority > 0)
        priority = 0;
    if (priority < -5)
        priority = -5;
    /* The stream belongs to the current context's device. */
    struct CUstream_st *s = scsim_stream_new(scsim_current_ctx(),
                                             SCSIM_STREAM_USER, flags, priority);
    if (!s)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *ph = s;
    return CUDA_SUCCESS;
}

CUresult scsim_cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
    return stream_create(phStream, Flags, 0);
}

CUresult scsim_cuStreamCreateWithPriority(CUstream *phStream,
                                          unsigned int flags, int priority)
{
    return stream_create(phStream, flags, priority);
}

CUresult scsim_cuStreamDestroy_v2(CUstream hStream)
{
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!hStream || hStream == CU_STREAM_LEGACY ||
        hStream == CU_STREAM_PER_THREAD || hStream->magic != SCSIM_MAGIC_STREAM)
        return CUDA_ERROR_INVALID_HANDLE;
    if (atomic_load(&scsim_g.ncaptures) > 0 && scsim_capture_id_of(hStream))
        scsim_capture_invalidate_stream(hStream);
    scsim_stream_destroy(hStream);
    return CUDA_SUCCESS;
}

/* cuStreamQuery: CUDA_SUCCESS once all prior work is done. */
static CUresult stream_query(CUstream h, bool pt)
{
    struct CUstream_st *s;
    CUresult r = scsim_stream_resolve(h, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (atomic_load(&scsim_g.ncaptures) > 0) {
        if (s->kind == SCSIM_STREAM_LEGACY) {
            r = scsim_capture_check_legacy(true);
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
    bool done = true;
    for (unsigned i = 0; i < d.n && done; i++)
        done = scsim_done(d.v[i]);
    scsim_deps_free(&d);
    return done ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

CUresult scsim_cuStreamQuery(CUstream hStream)
{
    return stream_query(hStream, false);
}

CUresult scsim_cuStreamQuery_ptsz(CUstream hStream)
{
    return stream_query(hStream, true);
}

static CUresult stream_sync(CUstream h, bool pt)
{
    struct CUstream_st *s;
    CUresult r = scsim_stream_resolve(h, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (!scsim_tl_on())
        return scsim_stream_sync(s);
    uint64_t t0 = scsim_tl_now();
    r = scsim_stream_sync(s);
    scsim_tl_sync(SCSIM_TL_SYNC_STREAM, (uint32_t)s->id, s->ctx, t0, r);
    return r;
}

CUresult scsim_cuStreamSynchronize(CUstream hStream)
{
    SCSIM_API(cuStreamSynchronize);
    return SCSIM_API_RET(stream_sync(hStream, false));
}

CUresult scsim_cuStreamSynchronize_ptsz(CUstream hStream)
{
    SCSIM_API(cuStreamSynchronize_ptsz);
    return SCSIM_API_RET(stream_sync(hStream, true));
}

static CUresult stream_get_flags(CUstream h, unsigned *flags, bool pt)
{
    struct CUstream_st *s;
    CUresult r = scsim_stream_resolve(h, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (!flags)
        return CUDA_ERROR_INVALID_VALUE;
    *flags = s->flags;
    return CUDA_SUCCESS;
}

CUresult scsim_cuStreamGetFlags(CUstream hStream, unsigned int *flags)
{
    return stream_get_flags(hStream, flags, false);
}

CUresult scsim_cuStreamGetFlags_ptsz(CUstream hStream, unsigned int *flags)
{
    return stream_get_flags(hStream, flags, true);
}

static CUresult stream_get_priority(CUstream h, int *priority, bool pt)
{
    struct CUstream_st *s;
    CUresult r = scsim_stream_resolve(h, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (!priority)
        return CUDA_ERROR_INVALID_VALUE;
    *priority = s->priority;
    return CUDA_SUCCESS;
}

CUresult scsim_cuStreamGetPriority(CUstream hStream, int *priority)
{
    return stream_get_priority(hStream, priority, false);
}

CUresult scsim_cuStreamGetPriority_ptsz(CUstream hStream, int *priority)
{
    return stream_get_priority(hStream, priority, true);
}

static CUresult stream_get_ctx(CUstream h, CUcontext *pctx, bool pt)
{
    struct CUstream_st *s;
    CUresult r = scsim_stream_resolve(h, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    *pctx = s->ctx;
    return CUDA_SUCCESS;
}

CUresult scsim_cuStreamGetCtx(CUstream hStream, CUcontext *pctx)
{
    return stream_get_ctx(hStream, pctx, false);
}

CUresult scsim_cuStreamGetCtx_ptsz(CUstream hStream, CUcontext *pctx)
{
    return stream_get_ctx(hStream, pctx, true);
}

static CUresult stream_get_id(CUstream h, unsigned long long *id, bool pt)
{
    struct CUstream_st *s;
    CUresult r = scsim_stream_resolve(h, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (!id)
        return CUDA_ERROR_INVALID_VALUE;
    *id = s->id;
    return CUDA_SUCCESS;
}

CUresult scsim_cuStreamGetId(CUstream hStream, unsigned long long *streamId)
{
    return stream_get_id(hStream, streamId, false);
}

CUresult scsim_cuStreamGetId_ptsz(CUstream hStream,
                                  unsigned long long *streamId)
{
    return stream_get_id(hStream, streamId, true);
}

static CUresult stream_get_device(CUstream h, CUdevice *dev, bool pt)
{
    struct CUstream_st *s;
    CUresult r = scsim_stream_resolve(h, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (!dev)
        return CUDA_ERROR_INVALID_VALUE;
    *dev = s->ctx->ordinal;
    return CUDA_SUCCESS;
}

CUresult scsim_cuStreamGetDevice(CUstream hStream, CUdevice *device)
{
    return stream_get_device(hStream, device, false);
}

CUresult scsim_cuStreamGetDevice_ptsz(CUstream hStream, CUdevice *device)
{
    return stream_get_device(hStream, device, true);
}

/* ------------------------------------------------------------- events --- */

/* Event objects are recycled, never freed; all_events keeps every one
 * reachable, as a context owns the events the program did not destroy. */
static pthread_mutex_t event_pool_mu = PTHREAD_MUTEX_INITIALIZER;
static struct CUevent_st *free_events, *all_events;

void scsim_event_unref(struct CUevent_st *e)
{
    if (atomic_fetch_sub(&e->refs, 1) != 1)
        return;
    pthread_mutex_lock(&event_pool_mu);
    e->pool_next = free_events;
    free_events = e;
    pthread_mutex_unlock(&event_pool_mu);
}

static struct CUevent_st *event_check(CUevent e)
{
    return e && e->magic == SCSIM_MAGIC_EVENT ? e : NULL;
}

CUresult scsim_cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    const unsigned known = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING |
                           CU_EVENT_INTERPROCESS;
    if (!phEvent || (Flags & ~known))
        return CUDA_ERROR_INVALID_VALUE;
    /* CU_EVENT_INTERPROCESS requires CU_EVENT_DISABLE_TIMING. */
    if ((Flags & CU_EVENT_INTERPROCESS) && !(Flags & CU_EVENT_DISABLE_TIMING))
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&event_pool_mu);
    struct CUevent_st *e = free_events;
    if (e)
        free_events = e->pool_next;
    pthread_mutex_unlock(&event_pool_mu);
    if (!e) {
        e = calloc(1, sizeof *e);
        if (!e)
            return CUDA_ERROR_OUT_OF_MEMORY;
        pthread_mutex_init(&e->mu, NULL);
        pthread_mutex_lock(&event_pool_mu);
        e->all_next = all_events;
        all_events = e;
        pthread_mutex_unlock(&event_pool_mu);
    }
    e->flags = Flags;
    e->ctx = scsim_current_ctx();
    e->s = NULL;
    e->seq = 0;
    e->gen = 0;
    e->cap_id = 0;
    e->t_ns = 0;
    e->t_gen = 0;
    atomic_store(&e->refs, 1);
    e->magic = SCSIM_MAGIC_EVENT;
    *phEvent = e;
    return CUDA_SUCCESS;
}

/* cuEventRecord: captures the contents of the stream at the time of the
 * call; the event completes when that work has completed.  On the legacy
 * stream that includes prior work of all blocking streams.  The stream
 * and the event must belong to the same device: "cudaEventRecord() will
 * fail if the input event and input stream are associated to different
 * devices" (CUDA Programming Guide, Multi-Device System, Stream and Event
 * Behavior); the driver's error is CUDA_ERROR_INVALID_HANDLE. */
static CUresult event_record(CUevent h, CUstream hs, unsigned flags, bool pt)
{
    struct CUevent_st *e = event_check(h);
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!e)
        return CUDA_ERROR_INVALID_HANDLE;
    if (flags & ~(unsigned)CU_EVENT_RECORD_EXTERNAL)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUstream_st *s;
    r = scsim_stream_resolve(hs, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (e->ctx && s->ctx != e->ctx)
        return CUDA_ERROR_INVALID_HANDLE;
    if (atomic_load(&scsim_g.ncaptures) > 0) {
        if (s->kind == SCSIM_STREAM_LEGACY) {
            r = scsim_capture_check_legacy(true);
            if (r != CUDA_SUCCESS)
                return r;
        }
        uint64_t id = scsim_capture_id_of(s);
        if (id) {
            /* Recorded inside a capture: the event now names a point of
             * the capture sequence (used to fork and join streams). */
            pthread_mutex_lock(&e->mu);
            e->gen++;
            e->cap_id = id;
            e->s = NULL;
            pthread_mutex_unlock(&e->mu);
            return CUDA_SUCCESS;
        }
    }
    pthread_mutex_lock(&e->mu);
    uint64_t gen = ++e->gen;
    pthread_mutex_unlock(&e->mu);
    atomic_fetch_add(&e->refs, 1);
    scsim_work w = {.kind = SCSIM_W_EVENT};
    w.u.event.e = e;
    w.u.event.gen = gen;
    uint64_t seq;
    r = scsim_submit(s, &w, NULL, 0, true, &seq, NULL);
    if (r != CUDA_SUCCESS) {
        scsim_event_unref(e);
        return r;
    }
    pthread_mutex_lock(&e->mu);
    if (e->gen == gen) {
        e->s = s;
        e->seq = seq;
        e->cap_id = 0;
    }
    pthread_mutex_unlock(&e->mu);
    return CUDA_SUCCESS;
}

CUresult scsim_cuEventRecord(CUevent hEvent, CUstream hStream)
{
    SCSIM_API(cuEventRecord);
    return SCSIM_API_RET(event_record(hEvent, hStream, 0, false));
}

CUresult scsim_cuEventRecord_ptsz(CUevent hEvent, CUstream hStream)
{
    SCSIM_API(cuEventRecord_ptsz);
    return SCSIM_API_RET(event_record(hEvent, hStream, 0, true));
}

CUresult scsim_cuEventRecordWithFlags(CUevent hEvent, CUstream hStream,
                                      unsigned int flags)
{
    SCSIM_API(cuEventRecordWithFlags);
    return SCSIM_API_RET(event_record(hEvent, hStream, flags, false));
}

CUresult scsim_cuEventRecordWithFlags_ptsz(CUevent hEvent, CUstream hStream,
                                           unsigned int flags)
{
    SCSIM_API(cuEventRecordWithFlags_ptsz);
    return SCSIM_API_RET(event_record(hEvent, hStream, flags, true));
}

/* The event's latest record.  If that record was made in a capture, the
 * event names a point of a graph, not work: CUDA_ERROR_CAPTURED_EVENT
 * (and the capture is invalidated) while the capture is active,
 * CUDA_ERROR_INVALID_VALUE once it is invalidated or over. */
static CUresult event_latest(struct CUevent_st *e, scsim_dep *d)
{
    pthread_mutex_lock(&e->mu);
    d->s = e->s;
    d->seq = e->seq;
    uint64_t id = e->cap_id;
    pthread_mutex_unlock(&e->mu);
    if (!id)
        return CUDA_SUCCESS;
    if (scsim_capture_state(id) == 1) {
        scsim_capture_invalidate_id(id);
        return CUDA_ERROR_CAPTURED_EVENT;
    }
    return CUDA_ERROR_INVALID_VALUE;
}

CUresult scsim_cuEventQuery(CUevent hEvent)
{
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    struct CUevent_st *e = event_check(hEvent);
    if (!e)
        return CUDA_ERROR_INVALID_HANDLE;
    scsim_dep d;
    /* "the thread is still prohibited from API calls which necessarily
     * conflict with stream capture, for example, attempting cuEventQuery
     * on an event that was last recorded inside a capture sequence" */
    r = event_latest(e, &d);
    if (r != CUDA_SUCCESS)
        return r;
    /* Never recorded: CUDA_SUCCESS. */
    if (!d.s || scsim_done(d))
        return CUDA_SUCCESS;
    return CUDA_ERROR_NOT_READY;
}

static CUresult event_sync(CUevent hEvent);

CUresult scsim_cuEventSynchronize(CUevent hEvent)
{
    SCSIM_API(cuEventSynchronize);
    if (!scsim_tl_on())
        return SCSIM_API_RET(event_sync(hEvent));
    uint64_t t0 = scsim_tl_now();
    CUresult r = event_sync(hEvent);
    struct CUevent_st *e = hEvent;
    scsim_tl_sync(SCSIM_TL_SYNC_EVENT, 0,
                  r == CUDA_SUCCESS ? e->ctx : scsim_current_ctx(), t0, r);
    return SCSIM_API_RET(r);
}

static CUresult event_sync(CUevent hEvent)
{
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    struct CUevent_st *e = event_check(hEvent);
    if (!e)
        return CUDA_ERROR_INVALID_HANDLE;
    scsim_dep d;
    r = event_latest(e, &d);
    if (r != CUDA_SUCCESS)
        return r;
    if (d.s)
        scsim_wait(d);
    return CUDA_SUCCESS;
}

/* cuEventElapsedTime: CUDA_ERROR_INVALID_HANDLE if either event was
 * created with CU_EVENT_DISABLE_TIMING or never recorded, or the two
 * belong to different devices (Programming Guide, Multi-Device System),
 * CUDA_ERROR_NOT_READY if either has not completed.  The time is the
 * host's monotonic clock when each record operation ran. */
static CUresult elapsed(float *ms, CUevent a, CUevent b)
{
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    struct CUevent_st *s = event_check(a), *t = event_check(b);
    if (!s || !t)
        return CUDA_ERROR_INVALID_HANDLE;
    if (!ms)
        return CUDA_ERROR_INVALID_VALUE;
    if ((s->flags | t->flags) & CU_EVENT_DISABLE_TIMING || s->ctx != t->ctx)
        return CUDA_ERROR_INVALID_HANDLE;
    scsim_dep ds, dt;
    r = event_latest(s, &ds);
    if (r == CUDA_SUCCESS)
        r = event_latest(t, &dt);
    if (r != CUDA_SUCCESS)
        return r;
    if (!ds.s || !dt.s)
        return CUDA_ERROR_INVALID_HANDLE;
    if (!scsim_done(ds) || !scsim_done(dt))
        return CUDA_ERROR_NOT_READY;
    pthread_mutex_lock(&s->mu);
    bool ok_s = s->t_gen == s->gen;
    uint64_t ts = s->t_ns;
    pthread_mutex_unlock(&s->mu);
    pthread_mutex_lock(&t->mu);
    bool ok_t = t->t_gen == t->gen;
    uint64_t tt = t->t_ns;
    pthread_mutex_unlock(&t->mu);
    if (!ok_s || !ok_t)
        return CUDA_ERROR_NOT_READY;
    *ms = (float)(((double)tt - (double)ts) / 1e6);
    return CUDA_SUCCESS;
}

CUresult scsim_cuEventElapsedTime(float *pMilliseconds, CUevent hStart,
                                  CUevent hEnd)
{
    return elapsed(pMilliseconds, hStart, hEnd);
}

CUresult scsim_cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart,
                                     CUevent hEnd)
{
    return elapsed(pMilliseconds, hStart, hEnd);
}

/* cuEventDestroy: "In case hEvent has been recorded but has not yet been
 * completed when cuEventDestroy() is called, the function will return
 * immediately and the resources associated with hEvent will be released
 * automatically once the device has completed hEvent." */
CUresult scsim_cuEventDestroy_v2(CUevent hEvent)
{
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    struct CUevent_st *e = event_check(hEvent);
    if (!e)
        return CUDA_ERROR_INVALID_HANDLE;
    e->magic = 0;
    scsim_event_unref(e);
    return CUDA_SUCCESS;
}

/* cuStreamWaitEvent: all future work submitted to the stream waits for
 * the event's latest record at the time of the call; "hEvent may be from
 * a different context or device than hStream". */
static CUresult stream_wait_event(CUstream hs, CUevent he, unsigned flags,
                                  bool pt)
{
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    struct CUevent_st *e = event_check(he);
    if (!e)
        return CUDA_ERROR_INVALID_HANDLE;
    if (flags & ~(unsigned)CU_EVENT_WAIT_EXTERNAL)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUstream_st *s;
    r = scsim_stream_resolve(hs, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&e->mu);
    scsim_dep d = {e->s, e->seq};
    uint64_t cap = e->cap_id;
    pthread_mutex_unlock(&e->mu);
    /* Recorded in a capture that is over: no work to wait for, and no
     * capture to join (inferred from the driver's answers for query and
     * synchronize). */
    if (cap && scsim_capture_state(cap) == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (atomic_load(&scsim_g.ncaptures) > 0) {
        if (s->kind == SCSIM_STREAM_LEGACY) {
            r = scsim_capture_check_legacy(true);
            if (r != CUDA_SUCCESS)
                return r;
        }
        bool handled = false;
        r = scsim_capture_wait_event(s, cap, &handled);
        if (handled || r != CUDA_SUCCESS)
            return r;
    }
    scsim_work w = {.kind = SCSIM_W_NOP};
    return scsim_submit(s, &w, d.s ? &d : NULL, d.s ? 1 : 0, true, NULL, NULL);
}

CUresult scsim_cuStreamWaitEvent(CUstream hStream, CUevent hEvent,
                                 unsigned int Flags)
{
    SCSIM_API(cuStreamWaitEvent);
    return SCSIM_API_RET(stream_wait_event(hStream, hEvent, Flags, false));
}

CUresult scsim_cuStreamWaitEvent_ptsz(CUstream hStream, CUevent hEvent,
                                      unsigned int Flags)
{
    SCSIM_API(cuStreamWaitEvent_ptsz);
    return SCSIM_API_RET(stream_wait_event(hStream, hEvent, Flags, true));
}

/* ----------------------------------------------------- host functions --- */

static CUresult launch_host_func(CUstream hs, CUhostFn fn, void *data, bool pt)
{
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!fn)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUstream_st *s;
    r = scsim_stream_resolve(hs, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    scsim_work w = {.kind = SCSIM_W_HOSTFN};
    w.u.hostfn.fn = fn;
    w.u.hostfn.data = data;
    return scsim_submit(s, &w, NULL, 0, true, NULL, NULL);
}

CUresult scsim_cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void *userData)
{
    SCSIM_API(cuLaunchHostFunc);
    return SCSIM_API_RET(launch_host_func(hStream, fn, userData, false));
}

CUresult scsim_cuLaunchHostFunc_ptsz(CUstream hStream, CUhostFn fn,
                                     void *userData)
{
    SCSIM_API(cuLaunchHostFunc_ptsz);
    return SCSIM_API_RET(launch_host_func(hStream, fn, userData, true));
}

static CUresult add_callback(CUstream hs, CUstreamCallback cb, void *data,
                             unsigned flags, bool pt)
{
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!cb || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUstream_st *s;
    r = scsim_stream_resolve(hs, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    scsim_work w = {.kind = SCSIM_W_CALLBACK};
    w.u.callback.fn = cb;
    w.u.callback.data = data;
    w.u.callback.handle = hs;
    /* Callbacks are not allowed in graphs (cuStreamAddCallback is not
     * capturable; cuLaunchHostFunc is). */
    return scsim_submit(s, &w, NULL, 0, false, NULL, NULL);
}

CUresult scsim_cuStreamAddCallback(CUstream hStream, CUstreamCallback callback,
                                   void *userData, unsigned int flags)
{
    SCSIM_API(cuStreamAddCallback);
    return SCSIM_API_RET(add_callback(hStream, callback, userData, flags, false));
}

CUresult scsim_cuStreamAddCallback_ptsz(CUstream hStream,
                                        CUstreamCallback callback,
                                        void *userData, unsigned int flags)
{
    SCSIM_API(cuStreamAddCallback_ptsz);
    return SCSIM_API_RET(add_callback(hStream, callback, userData, flags, true));
}
