/* src/sim/cupti.c: the simulated libcupti.so.13, the activity API subset a
 * tracing client (streamcheck's measured mode) needs, serving the
 * simulator's GPU timeline (timeline.h) in CUPTI's own record structs.
 *
 * The driver hands every finished record to emit(); it is converted to
 * the CUDA 13.0 struct of its kind and appended, under one mutex, to the
 * buffer the client gave through its request callback.  Full buffers are
 * kept until cuptiActivityFlushAll, which hands them to the completion
 * callback; with CUPTI_ACTIVITY_FLAG_FLUSH_FORCED also the partially
 * filled one.  Everything libcupti.so.13 exports beyond this subset is a
 * stub (libcupti.exports, gen-stubs.awk) returning
 * CUPTI_ERROR_NOT_SUPPORTED after one message. */
#include "config.h"

#include <cudaTypedefs.h>
#include <cupti.h>

#include "sim/drvbind.h"
#include "sim/stubs.h"
#include "sim/timeline.h"
#include "sim/util.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EXPORT SCSIM_EXPORT

int scsim_stub_called(atomic_int *once, const char *name)
{
    scsim_report_unsupported(once, name);
    return CUPTI_ERROR_NOT_SUPPORTED;
}

/* ------------------------------------------------------------ driver --- */

static const scsim_tl_table *tl;
static pthread_once_t bind_once = PTHREAD_ONCE_INIT;

static void bind_driver(void)
{
    PFN_cuGetExportTable_v3000 get = NULL;
    scsim_bind b[] = {{"cuGetExportTable", 3000, 0, &get, NULL}};
    const char *missing = NULL;
    if (scsim_drvbind(b, 1, &missing) != SCSIM_BIND_OK || !get)
        return;
    static const CUuuid id = {SCSIM_TL_UUID_BYTES};
    const void *t = NULL;
    if (get(&t, &id) != CUDA_SUCCESS || !t)
        return;
    const scsim_tl_table *tt = t;
    if (tt->size < sizeof *tt)
        return;
    tl = tt;
}

static bool driver(void)
{
    pthread_once(&bind_once, bind_driver);
    return tl != NULL;
}

static bool taken(void)
{
    return scsim_env_long("STREAMCHECK_SIM_CUPTI_TAKEN", 0) != 0;
}

/* ------------------------------------------------------------- state --- */

typedef struct done_buf {
    uint8_t *buf;
    size_t size, valid;
    struct done_buf *next;
} done_buf;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static CUpti_BuffersCallbackRequestFunc req_fn;
static CUpti_BuffersCallbackCompleteFunc complete_fn;
static uint8_t *cur_buf;
static size_t cur_size, cur_used, cur_nrec, cur_maxrec;
static done_buf *done_head, *done_tail;
static size_t dropped;
static uint64_t nemitted; /* for STREAMCHECK_SIM_CUPTI_DROP */
static long drop_every = -1;
static int64_t grid_id;
/* CUPTI kinds enabled (index: CUpti_ActivityKind, the ones we know). */
static bool kind_on[CUPTI_ACTIVITY_KIND_COUNT];
static bool subscribed;
static CUpti_TimestampCallbackFunc ts_fn;

static bool is_supported_kind(CUpti_ActivityKind k)
{
    switch (k) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_MEMCPY:
    case CUPTI_ACTIVITY_KIND_MEMSET:
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
    case CUPTI_ACTIVITY_KIND_DRIVER:
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
        return true;
    default:
        return false;
    }
}

/* The driver's mask for the enabled kinds; mu held. */
static unsigned tl_mask_locked(void)
{
    unsigned m = 0;
    if (kind_on[CUPTI_ACTIVITY_KIND_KERNEL] ||
        kind_on[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL])
        m |= SCSIM_TL_BIT(SCSIM_TL_KERNEL);
    if (kind_on[CUPTI_ACTIVITY_KIND_MEMCPY])
        m |= SCSIM_TL_BIT(SCSIM_TL_MEMCPY);
    if (kind_on[CUPTI_ACTIVITY_KIND_MEMSET])
        m |= SCSIM_TL_BIT(SCSIM_TL_MEMSET);
    if (kind_on[CUPTI_ACTIVITY_KIND_SYNCHRONIZATION])
        m |= SCSIM_TL_BIT(SCSIM_TL_SYNC);
    if (kind_on[CUPTI_ACTIVITY_KIND_DRIVER])
        m |= SCSIM_TL_BIT(SCSIM_TL_DRIVER);
    if (kind_on[CUPTI_ACTIVITY_KIND_RUNTIME])
        m |= SCSIM_TL_BIT(SCSIM_TL_RUNTIME);
    if (kind_on[CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION])
        m |= SCSIM_TL_BIT(SCSIM_TL_EXTCORR);
    return m;
}

/* --------------------------------------------------------- buffering --- */

#define ALIGN8(n) (((n) + 7u) & ~(size_t)7u)

/* mu held: the current buffer joins the completed ones. */
static void retire_locked(void)
{
    if (!cur_buf)
        return;
    done_buf *d = malloc(sizeof *d);
    if (!d) {
        dropped += cur_nrec;
    } else {
        d->buf = cur_buf;
        d->size = cur_size;
        d->valid = cur_used;
        d->next = NULL;
        if (done_tail)
            done_tail->next = d;
        else
            done_head = d;
        done_tail = d;
    }
    cur_buf = NULL;
    cur_size = cur_used = cur_nrec = cur_maxrec = 0;
}

static void append(const void *rec, size_t size)
{
    size_t need = ALIGN8(size);
    pthread_mutex_lock(&mu);
    nemitted++;
    if (drop_every > 0 && nemitted % (uint64_t)drop_every == 0) {
        dropped++;
        pthread_mutex_unlock(&mu);
        return;
    }
    bool full = !cur_buf || cur_used + need > cur_size ||
                (cur_maxrec && cur_nrec >= cur_maxrec);
    if (full) {
        retire_locked();
        if (req_fn) {
            uint8_t *b = NULL;
            size_t sz = 0, maxrec = 0;
            req_fn(&b, &sz, &maxrec);
            if (b && sz >= need) {
                cur_buf = b;
                cur_size = sz;
                cur_maxrec = maxrec;
            } else if (b) {
                /* Too small for one record: given back empty. */
                cur_buf = b;
                cur_size = sz;
                retire_locked();
            }
        }
    }
    if (!cur_buf) {
        dropped++;
        pthread_mutex_unlock(&mu);
        return;
    }
    memcpy(cur_buf + cur_used, rec, size);
    if (need > size)
        memset(cur_buf + cur_used + size, 0, need - size);
    cur_used += need;
    cur_nrec++;
    pthread_mutex_unlock(&mu);
}

static bool on(CUpti_ActivityKind k)
{
    return __atomic_load_n(&kind_on[k], __ATOMIC_RELAXED);
}

/* ---------------------------------------------------- record making --- */

static uint8_t copy_kind(int k)
{
    switch (k) {
    case SCSIM_TL_HTOD: return CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
    case SCSIM_TL_DTOH: return CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
    case SCSIM_TL_DTOD: return CUPTI_ACTIVITY_MEMCPY_KIND_DTOD;
    case SCSIM_TL_HTOH: return CUPTI_ACTIVITY_MEMCPY_KIND_HTOH;
    case SCSIM_TL_PTOP: return CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
    default: return CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN;
    }
}

static uint8_t mem_kind(int k)
{
    switch (k) {
    case SCSIM_TL_MEM_PAGEABLE: return CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
    case SCSIM_TL_MEM_PINNED: return CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
    case SCSIM_TL_MEM_DEVICE: return CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    default: return CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN;
    }
}

static void emit(const scsim_tl_rec *r)
{
    switch (r->kind) {
    case SCSIM_TL_KERNEL: {
        CUpti_ActivityKind k = on(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
                                   ? CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL
                                   : CUPTI_ACTIVITY_KIND_KERNEL;
        if (!on(k))
            return;
        CUpti_ActivityKernel10 a;
        memset(&a, 0, sizeof a);
        a.kind = k;
        a.start = r->start;
        a.end = r->end;
        a.completed = r->end;
        a.deviceId = r->device_id;
        a.contextId = r->context_id;
        a.streamId = r->stream_id;
        a.gridX = (int32_t)r->grid[0];
        a.gridY = (int32_t)r->grid[1];
        a.gridZ = (int32_t)r->grid[2];
        a.blockX = (int32_t)r->block[0];
        a.blockY = (int32_t)r->block[1];
        a.blockZ = (int32_t)r->block[2];
        a.dynamicSharedMemory = (int32_t)r->shmem;
        a.correlationId = r->correlation;
        a.gridId = __atomic_add_fetch(&grid_id, 1, __ATOMIC_RELAXED);
        a.name = r->name;
        a.queued = CUPTI_TIMESTAMP_UNKNOWN;
        a.submitted = CUPTI_TIMESTAMP_UNKNOWN;
        a.launchType = CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR;
        append(&a, sizeof a);
        return;
    }
    case SCSIM_TL_MEMCPY: {
        if (!on(CUPTI_ACTIVITY_KIND_MEMCPY))
            return;
        CUpti_ActivityMemcpy6 a;
        memset(&a, 0, sizeof a);
        a.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
        a.copyKind = copy_kind(r->copy_kind);
        a.srcKind = mem_kind(r->src_kind);
        a.dstKind = mem_kind(r->dst_kind);
        a.bytes = r->bytes;
        a.start = r->start;
        a.end = r->end;
        a.deviceId = r->device_id;
        a.contextId = r->context_id;
        a.streamId = r->stream_id;
        a.correlationId = r->correlation;
        a.copyCount = 1;
        append(&a, sizeof a);
        return;
    }
    case SCSIM_TL_MEMSET: {
        if (!on(CUPTI_ACTIVITY_KIND_MEMSET))
            return;
        CUpti_ActivityMemset4 a;
        memset(&a, 0, sizeof a);
        a.kind = CUPTI_ACTIVITY_KIND_MEMSET;
        a.value = r->value;
        a.bytes = r->bytes;
        a.start = r->start;
        a.end = r->end;
        a.deviceId = r->device_id;
        a.contextId = r->context_id;
        a.streamId = r->stream_id;
        a.correlationId = r->correlation;
        a.memoryKind = mem_kind(r->mem_kind);
        append(&a, sizeof a);
        return;
    }
    case SCSIM_TL_DRIVER:
    case SCSIM_TL_RUNTIME: {
        CUpti_ActivityKind k = r->kind == SCSIM_TL_DRIVER
                                   ? CUPTI_ACTIVITY_KIND_DRIVER
                                   : CUPTI_ACTIVITY_KIND_RUNTIME;
        if (!on(k))
            return;
        CUpti_ActivityAPI a;
        memset(&a, 0, sizeof a);
        a.kind = k;
        a.cbid = r->cbid;
        a.start = r->start;
        a.end = r->end;
        a.processId = (uint32_t)getpid();
        a.threadId = r->thread_id;
        a.correlationId = r->correlation;
        a.returnValue = (uint32_t)r->result;
        append(&a, sizeof a);
        return;
    }
    case SCSIM_TL_SYNC: {
        if (!on(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION))
            return;
        CUpti_ActivitySynchronization2 a;
        memset(&a, 0, sizeof a);
        a.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
        a.type = r->sync_type == SCSIM_TL_SYNC_EVENT
                     ? CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE
                 : r->sync_type == SCSIM_TL_SYNC_STREAM
                     ? CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE
                     : CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
        a.start = r->start;
        a.end = r->end;
        a.correlationId = r->correlation;
        a.contextId = r->context_id;
        a.streamId = r->sync_type == SCSIM_TL_SYNC_STREAM
                         ? r->stream_id
                         : CUPTI_SYNCHRONIZATION_INVALID_VALUE;
        a.cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
        a.cudaEventSyncId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
        a.returnValue = (uint32_t)r->result;
        append(&a, sizeof a);
        return;
    }
    default:
        return;
    }
}

/* External correlation: per thread, one stack per kind. */
#define EXT_DEPTH 64
static __thread uint64_t ext_stack[CUPTI_EXTERNAL_CORRELATION_KIND_SIZE][EXT_DEPTH];
static __thread unsigned ext_depth[CUPTI_EXTERNAL_CORRELATION_KIND_SIZE];

static void api_enter(uint32_t correlation)
{
    if (!on(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION))
        return;
    for (int k = 0; k < CUPTI_EXTERNAL_CORRELATION_KIND_SIZE; k++) {
        if (!ext_depth[k])
            continue;
        CUpti_ActivityExternalCorrelation a;
        memset(&a, 0, sizeof a);
        a.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
        a.externalKind = (CUpti_ExternalCorrelationKind)k;
        a.externalId = ext_stack[k][ext_depth[k] - 1];
        a.correlationId = correlation;
        append(&a, sizeof a);
    }
}

static const scsim_tl_sink sink = {.emit = emit, .api_enter = api_enter};

/* ------------------------------------------------------ activity API --- */

static CUptiResult enable(CUpti_ActivityKind kind, bool value)
{
    if ((unsigned)kind >= CUPTI_ACTIVITY_KIND_COUNT)
        return CUPTI_ERROR_INVALID_KIND;
    if (!is_supported_kind(kind)) {
        static atomic_int once;
        scsim_msg_once(&once, "cuptiActivityEnable/Disable of activity kind "
                              "%d is not supported by the simulator",
                       (int)kind);
        return CUPTI_ERROR_NOT_SUPPORTED;
    }
    if (value && taken())
        return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
    if (!driver())
        return CUPTI_ERROR_NOT_INITIALIZED;
    pthread_mutex_lock(&mu);
    if (drop_every < 0)
        drop_every = scsim_env_long("STREAMCHECK_SIM_CUPTI_DROP", 0);
    __atomic_store_n(&kind_on[kind], value, __ATOMIC_RELAXED);
    unsigned m = tl_mask_locked();
    tl->set_sink(m ? &sink : NULL);
    if (ts_fn)
        tl->set_clock(ts_fn);
    tl->set_kinds(m);
    pthread_mutex_unlock(&mu);
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind)
{
    return enable(kind, true);
}

EXPORT CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind)
{
    return enable(kind, false);
}

EXPORT CUptiResult
cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc funcBufferRequested,
                               CUpti_BuffersCallbackCompleteFunc funcBufferCompleted)
{
    if (!funcBufferRequested || !funcBufferCompleted)
        return CUPTI_ERROR_INVALID_PARAMETER;
    pthread_mutex_lock(&mu);
    req_fn = funcBufferRequested;
    complete_fn = funcBufferCompleted;
    pthread_mutex_unlock(&mu);
    return CUPTI_SUCCESS;
}

static size_t record_size(CUpti_ActivityKind k)
{
    switch (k) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        return sizeof(CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_MEMCPY:
        return sizeof(CUpti_ActivityMemcpy6);
    case CUPTI_ACTIVITY_KIND_MEMSET:
        return sizeof(CUpti_ActivityMemset4);
    case CUPTI_ACTIVITY_KIND_DRIVER:
    case CUPTI_ACTIVITY_KIND_RUNTIME:
        return sizeof(CUpti_ActivityAPI);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
        return sizeof(CUpti_ActivitySynchronization2);
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
        return sizeof(CUpti_ActivityExternalCorrelation);
    default:
        return 0;
    }
}

EXPORT CUptiResult cuptiActivityGetNextRecord(uint8_t *buffer,
                                              size_t validBufferSizeBytes,
                                              CUpti_Activity **record)
{
    if (!buffer || !record)
        return CUPTI_ERROR_INVALID_PARAMETER;
    size_t off;
    if (!*record) {
        off = 0;
    } else {
        uint8_t *p = (uint8_t *)*record;
        if (p < buffer || p >= buffer + validBufferSizeBytes)
            return CUPTI_ERROR_INVALID_PARAMETER;
        size_t sz = record_size((*record)->kind);
        if (!sz)
            return CUPTI_ERROR_INVALID_KIND;
        off = (size_t)(p - buffer) + ALIGN8(sz);
    }
    if (off + sizeof(CUpti_Activity) > validBufferSizeBytes) {
        *record = NULL;
        return CUPTI_ERROR_MAX_LIMIT_REACHED;
    }
    CUpti_Activity *a = (CUpti_Activity *)(void *)(buffer + off);
    size_t sz = record_size(a->kind);
    if (!sz)
        return CUPTI_ERROR_INVALID_KIND;
    if (off + sz > validBufferSizeBytes) {
        *record = NULL;
        return CUPTI_ERROR_MAX_LIMIT_REACHED;
    }
    *record = a;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
    pthread_mutex_lock(&mu);
    if ((flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) && cur_buf)
        retire_locked();
    done_buf *list = done_head;
    done_head = done_tail = NULL;
    CUpti_BuffersCallbackCompleteFunc fn = complete_fn;
    pthread_mutex_unlock(&mu);
    while (list) {
        done_buf *d = list;
        list = d->next;
        if (fn)
            fn(NULL, 0, d->buf, d->size, d->valid);
        free(d);
    }
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext context,
                                                     uint32_t streamId,
                                                     size_t *pdropped)
{
    (void)context;
    (void)streamId;
    if (!pdropped)
        return CUPTI_ERROR_INVALID_PARAMETER;
    pthread_mutex_lock(&mu);
    *pdropped = dropped;
    pthread_mutex_unlock(&mu);
    return CUPTI_SUCCESS;
}

static uint64_t realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

EXPORT CUptiResult cuptiGetTimestamp(uint64_t *timestamp)
{
    if (!timestamp)
        return CUPTI_ERROR_INVALID_PARAMETER;
    CUpti_TimestampCallbackFunc fn = __atomic_load_n(&ts_fn, __ATOMIC_ACQUIRE);
    *timestamp = fn ? fn() : realtime_ns();
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc funcTimestamp)
{
    if (!funcTimestamp)
        return CUPTI_ERROR_INVALID_PARAMETER;
    __atomic_store_n(&ts_fn, funcTimestamp, __ATOMIC_RELEASE);
    if (driver())
        tl->set_clock(funcTimestamp);
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind kind,
                                       uint64_t id)
{
    if (kind <= CUPTI_EXTERNAL_CORRELATION_KIND_INVALID ||
        kind >= CUPTI_EXTERNAL_CORRELATION_KIND_SIZE)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (ext_depth[kind] == EXT_DEPTH)
        return CUPTI_ERROR_OUT_OF_MEMORY;
    ext_stack[kind][ext_depth[kind]++] = id;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiActivityPopExternalCorrelationId(CUpti_ExternalCorrelationKind kind,
                                      uint64_t *lastId)
{
    if (kind <= CUPTI_EXTERNAL_CORRELATION_KIND_INVALID ||
        kind >= CUPTI_EXTERNAL_CORRELATION_KIND_SIZE)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (!ext_depth[kind])
        return CUPTI_ERROR_QUEUE_EMPTY;
    uint64_t id = ext_stack[kind][--ext_depth[kind]];
    if (lastId)
        *lastId = id;
    return CUPTI_SUCCESS;
}

/* ------------------------------------------------------ callback API --- */

/* One subscriber; its callback is never called (the simulator does not
 * implement the callback API's domains). */
static CUpti_CallbackFunc sub_fn;
static void *sub_data;

EXPORT CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *subscriber,
                                  CUpti_CallbackFunc callback, void *userdata)
{
    if (!subscriber)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (taken())
        return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
    pthread_mutex_lock(&mu);
    if (subscribed) {
        pthread_mutex_unlock(&mu);
        return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
    }
    subscribed = true;
    sub_fn = callback;
    sub_data = userdata;
    pthread_mutex_unlock(&mu);
    *subscriber = (CUpti_SubscriberHandle)(void *)&sub_fn;
    return CUPTI_SUCCESS;
}

/* The same, with a name: "CUPTI for <name>" is what a later client that
   finds CUPTI taken is told. */
static char sub_name[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN];

EXPORT CUptiResult cuptiSubscribe_v2(CUpti_SubscriberHandle *subscriber,
                                     CUpti_CallbackFunc callback, void *userdata,
                                     CUpti_SubscriberParams *params)
{
    if (params && params->structSize < CUpti_SubscriberParams_STRUCT_SIZE)
        return CUPTI_ERROR_INVALID_PARAMETER;
    CUptiResult r = cuptiSubscribe(subscriber, callback, userdata);
    pthread_mutex_lock(&mu);
    if (r == CUPTI_SUCCESS)
        snprintf(sub_name, sizeof sub_name, "CUPTI for %.*s", CUPTI_SUBSCRIBER_NAME_MAX_LEN,
                 params && params->subscriberName ? params->subscriberName : "");
    else if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED && params && params->oldSubscriberName &&
             params->oldSubscriberSize)
        snprintf(params->oldSubscriberName, params->oldSubscriberSize, "%s",
                 taken() ? "another tool (STREAMCHECK_SIM_CUPTI_TAKEN)" : sub_name);
    pthread_mutex_unlock(&mu);
    return r;
}

EXPORT CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle subscriber)
{
    pthread_mutex_lock(&mu);
    if (!subscribed || subscriber != (CUpti_SubscriberHandle)(void *)&sub_fn) {
        pthread_mutex_unlock(&mu);
        return CUPTI_ERROR_INVALID_PARAMETER;
    }
    subscribed = false;
    sub_fn = NULL;
    sub_data = NULL;
    pthread_mutex_unlock(&mu);
    return CUPTI_SUCCESS;
}

/* -------------------------------------------------------------- misc --- */

EXPORT CUptiResult cuptiGetResultString(CUptiResult result, const char **str)
{
    if (!str)
        return CUPTI_ERROR_INVALID_PARAMETER;
    switch (result) {
#define SC_CUPTI_RESULT(n)                                                    \
    case n:                                                                   \
        *str = #n;                                                            \
        return CUPTI_SUCCESS;
#include "sim/cupti_results.def"
#undef SC_CUPTI_RESULT
    default:
        *str = NULL;
        return CUPTI_ERROR_INVALID_PARAMETER;
    }
}

EXPORT CUptiResult cuptiGetVersion(uint32_t *version)
{
    if (!version)
        return CUPTI_ERROR_INVALID_PARAMETER;
    *version = CUPTI_API_VERSION;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiFinalize(void)
{
    if (driver()) {
        tl->set_kinds(0);
        tl->set_sink(NULL);
        tl->set_clock(NULL);
    }
    pthread_mutex_lock(&mu);
    memset(kind_on, 0, sizeof kind_on);
    pthread_mutex_unlock(&mu);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    pthread_mutex_lock(&mu);
    req_fn = NULL;
    complete_fn = NULL;
    subscribed = false;
    sub_fn = NULL;
    sub_data = NULL;
    __atomic_store_n(&ts_fn, NULL, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&mu);
    return CUPTI_SUCCESS;
}

/* The device of a context (NULL: the current one). */
EXPORT CUptiResult cuptiGetDeviceId(CUcontext context, uint32_t *deviceId)
{
    if (!deviceId)
        return CUPTI_ERROR_INVALID_PARAMETER;
    *deviceId = 0;
    if (!driver())
        return CUPTI_SUCCESS;
    if (tl->context_info((void *)context, NULL, deviceId) != 0)
        return context ? CUPTI_ERROR_INVALID_CONTEXT : CUPTI_SUCCESS;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetContextId(CUcontext context, uint32_t *contextId)
{
    if (!context || !contextId)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (!driver())
        return CUPTI_ERROR_NOT_INITIALIZED;
    if (tl->context_info((void *)context, contextId, NULL) != 0)
        return CUPTI_ERROR_INVALID_CONTEXT;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetStreamIdEx(CUcontext context, CUstream stream,
                                      uint8_t perThreadStream,
                                      uint32_t *streamId)
{
    (void)context;
    if (!streamId)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (!driver())
        return CUPTI_ERROR_NOT_INITIALIZED;
    if (tl->stream_id((void *)stream, perThreadStream, streamId) != 0)
        return CUPTI_ERROR_INVALID_STREAM;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetStreamId(CUcontext context, CUstream stream,
                                    uint32_t *streamId)
{
    return cuptiGetStreamIdEx(context, stream, 0, streamId);
}
