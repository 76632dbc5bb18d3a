/* tests/sim/check_cupti.c: the simulator's GPU timeline as the simulated
 * libcupti.so.13 serves it: a CUPTI activity client (the way
 * streamcheck's measured mode uses CUPTI) driving the simulated driver
 * and, for runtime records, the simulated runtime.
 *
 * Overlap tests use 100 ms spin kernels; bounds are wide enough for a
 * loaded two-core machine (the twins sleep, they do not need a core). */
#include "config.h"

#include "simtest.h"

#include <cuda_runtime_api.h>
#include <cupti.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CU_OK(call)                                                           \
    do {                                                                      \
        CUptiResult cu_r_ = (call);                                           \
        ck_assert_msg(cu_r_ == CUPTI_SUCCESS, "%s returned %d", #call,       \
                      (int)cu_r_);                                            \
    } while (0)

/* ------------------------------------------------------------ client --- */

/* Every delivered record, copied (records of one union size). */
typedef union rec {
    CUpti_Activity a;
    CUpti_ActivityKernel10 k;
    CUpti_ActivityMemcpy6 m;
    CUpti_ActivityMemset4 s;
    CUpti_ActivityAPI api;
    CUpti_ActivitySynchronization2 sync;
    CUpti_ActivityExternalCorrelation ext;
} rec;

static rec recs[4096];
static int nrecs;
static int nbuffers;     /* delivered by the completion callback */
static int nrequested;   /* handed out by the request callback */
static size_t buf_size = 64 * 1024;
static bool give_null;   /* the request callback gives no buffer */

static void CUPTIAPI buf_request(uint8_t **buffer, size_t *size,
                                 size_t *maxNumRecords)
{
    nrequested++;
    *maxNumRecords = 0;
    if (give_null) {
        *buffer = NULL;
        *size = 0;
        return;
    }
    *buffer = aligned_alloc(8, (buf_size + 7) / 8 * 8);
    *size = buf_size;
}

static size_t rec_size(CUpti_ActivityKind k)
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

static void CUPTIAPI buf_complete(CUcontext ctx, uint32_t streamId,
                                  uint8_t *buffer, size_t size,
                                  size_t validSize)
{
    (void)ctx;
    (void)streamId;
    (void)size;
    nbuffers++;
    CUpti_Activity *r = NULL;
    CUptiResult st;
    while ((st = cuptiActivityGetNextRecord(buffer, validSize, &r)) ==
           CUPTI_SUCCESS) {
        size_t sz = rec_size(r->kind);
        ck_assert_msg(sz > 0, "record of kind %d", (int)r->kind);
        ck_assert_uint_eq((uintptr_t)r % 8, 0);
        ck_assert_int_lt(nrecs, (int)(sizeof recs / sizeof recs[0]));
        memcpy(&recs[nrecs++], r, sz);
    }
    ck_assert_int_eq(st, CUPTI_ERROR_MAX_LIMIT_REACHED);
    free(buffer);
}

static void client(void)
{
    CU_OK(cuptiActivityRegisterCallbacks(buf_request, buf_complete));
}

static void flush(void)
{
    CU_OK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
}

static int count_kind(CUpti_ActivityKind k)
{
    int c = 0;
    for (int i = 0; i < nrecs; i++)
        c += recs[i].a.kind == k;
    return c;
}

/* The i-th record of kind k (NULL if none). */
static rec *nth(CUpti_ActivityKind k, int i)
{
    for (int j = 0; j < nrecs; j++)
        if (recs[j].a.kind == k && i-- == 0)
            return &recs[j];
    return NULL;
}

static rec *api_by_corr(CUpti_ActivityKind k, uint32_t corr)
{
    for (int j = 0; j < nrecs; j++)
        if (recs[j].a.kind == k && recs[j].api.correlationId == corr)
            return &recs[j];
    return NULL;
}

static uint32_t stream_id(CUstream s)
{
    unsigned long long id;
    ST_OK(cuStreamGetId(s, &id));
    return (uint32_t)id;
}

static double ms(uint64_t ns)
{
    return (double)ns / 1e6;
}

/* ------------------------------------------------------------- tests --- */

/* Two 100 ms kernels on two non-blocking streams overlap by ~100 ms. */
START_TEST(nonblocking_streams_overlap)
{
    st_init();
    client();
    CU_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    CUstream a, b;
    ST_OK(cuStreamCreate(&a, CU_STREAM_NON_BLOCKING));
    ST_OK(cuStreamCreate(&b, CU_STREAM_NON_BLOCKING));
    st_spin(a, 100000000ull);
    st_spin(b, 100000000ull);
    ST_OK(cuCtxSynchronize());
    flush();
    ck_assert_int_eq(count_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 2);
    CUpti_ActivityKernel10 *k1 = &nth(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 0)->k;
    CUpti_ActivityKernel10 *k2 = &nth(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 1)->k;
    if (k1->streamId != stream_id(a)) {
        CUpti_ActivityKernel10 *t = k1;
        k1 = k2;
        k2 = t;
    }
    ck_assert_uint_eq(k1->streamId, stream_id(a));
    ck_assert_uint_eq(k2->streamId, stream_id(b));
    ck_assert_uint_ne(k1->streamId, k2->streamId);
    ck_assert_str_eq(k1->name, ST_SPIN);
    ck_assert_str_eq(k2->name, ST_SPIN);
    ck_assert_int_eq(k1->gridX, 1);
    ck_assert_int_eq(k1->blockX, 1);
    ck_assert_uint_eq(k1->contextId, 1);
    ck_assert_uint_eq(k1->deviceId, 0);
    ck_assert_uint_ne(k1->correlationId, 0);
    ck_assert_uint_gt(k2->correlationId, k1->correlationId);
    for (int i = 0; i < 2; i++) {
        CUpti_ActivityKernel10 *k = i ? k2 : k1;
        double d = ms(k->end - k->start);
        ck_assert_msg(d >= 95.0 && d < 200.0, "kernel %d took %.1f ms", i, d);
    }
    uint64_t s = k1->start > k2->start ? k1->start : k2->start;
    uint64_t e = k1->end < k2->end ? k1->end : k2->end;
    ck_assert_msg(e > s, "the kernels do not overlap");
    double overlap = ms(e - s);
    ck_assert_msg(overlap > 50.0 && overlap < 125.0, "overlap %.1f ms",
                  overlap);
}
END_TEST

/* A tiny legacy-stream kernel between two 100 ms kernels on two blocking
 * streams serializes them. */
START_TEST(legacy_kernel_serializes_blocking_streams)
{
    st_init();
    client();
    CU_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    CUstream a, b;
    ST_OK(cuStreamCreate(&a, 0));
    ST_OK(cuStreamCreate(&b, 0));
    st_spin(a, 100000000ull);
    st_spin(NULL, 1000ull);
    st_spin(b, 100000000ull);
    ST_OK(cuCtxSynchronize());
    flush();
    ck_assert_int_eq(count_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 3);
    CUpti_ActivityKernel10 *ka = NULL, *kl = NULL, *kb = NULL;
    uint32_t legacy = stream_id(CU_STREAM_LEGACY);
    for (int i = 0; i < 3; i++) {
        CUpti_ActivityKernel10 *k = &nth(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, i)->k;
        if (k->streamId == stream_id(a))
            ka = k;
        else if (k->streamId == stream_id(b))
            kb = k;
        else if (k->streamId == legacy)
            kl = k;
    }
    ck_assert_ptr_nonnull(ka);
    ck_assert_ptr_nonnull(kl);
    ck_assert_ptr_nonnull(kb);
    ck_assert_msg(kl->start >= ka->end, "legacy kernel started before a ended");
    ck_assert_msg(kb->start >= kl->end, "b started before the legacy kernel ended");
    ck_assert_msg(kb->start >= ka->end, "b overlaps a");
    ck_assert_msg(ms(kb->end - ka->start) >= 190.0, "a..b took %.1f ms",
                  ms(kb->end - ka->start));
}
END_TEST

/* Copy records: direction, bytes, and pageable vs pinned source. */
START_TEST(memcpy_records_memory_kinds)
{
    st_init();
    client();
    CU_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY));
    enum { N = 4096 };
    CUdeviceptr d;
    ST_OK(cuMemAlloc(&d, N));
    char *pageable = malloc(N);
    void *pinned;
    ST_OK(cuMemAllocHost(&pinned, N));
    memset(pageable, 1, N);
    ST_OK(cuMemcpyHtoD(d, pageable, N));
    ST_OK(cuMemcpyHtoDAsync(d, pinned, N / 2, NULL));
    ST_OK(cuMemcpyDtoHAsync(pinned, d, N / 4, NULL));
    ST_OK(cuCtxSynchronize());
    flush();
    ck_assert_int_eq(count_kind(CUPTI_ACTIVITY_KIND_MEMCPY), 3);
    CUpti_ActivityMemcpy6 *m0 = &nth(CUPTI_ACTIVITY_KIND_MEMCPY, 0)->m;
    CUpti_ActivityMemcpy6 *m1 = &nth(CUPTI_ACTIVITY_KIND_MEMCPY, 1)->m;
    CUpti_ActivityMemcpy6 *m2 = &nth(CUPTI_ACTIVITY_KIND_MEMCPY, 2)->m;
    ck_assert_int_eq(m0->copyKind, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD);
    ck_assert_int_eq(m0->srcKind, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE);
    ck_assert_int_eq(m0->dstKind, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
    ck_assert_uint_eq(m0->bytes, N);
    ck_assert_int_eq(m1->copyKind, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD);
    ck_assert_int_eq(m1->srcKind, CUPTI_ACTIVITY_MEMORY_KIND_PINNED);
    ck_assert_uint_eq(m1->bytes, N / 2);
    ck_assert_int_eq(m2->copyKind, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH);
    ck_assert_int_eq(m2->srcKind, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
    ck_assert_int_eq(m2->dstKind, CUPTI_ACTIVITY_MEMORY_KIND_PINNED);
    ck_assert_uint_eq(m2->streamId, stream_id(CU_STREAM_LEGACY));
    ck_assert_uint_le(m0->start, m0->end);
    ck_assert_uint_le(m0->end, m1->start);
    free(pageable);
}
END_TEST

START_TEST(memset_record)
{
    st_init();
    client();
    CU_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET));
    CUdeviceptr d;
    ST_OK(cuMemAlloc(&d, 1024));
    ST_OK(cuMemsetD32Async(d, 7, 100, NULL));
    ST_OK(cuCtxSynchronize());
    flush();
    ck_assert_int_eq(count_kind(CUPTI_ACTIVITY_KIND_MEMSET), 1);
    CUpti_ActivityMemset4 *s = &nth(CUPTI_ACTIVITY_KIND_MEMSET, 0)->s;
    ck_assert_uint_eq(s->bytes, 400);
    ck_assert_uint_eq(s->value, 7);
    ck_assert_int_eq(s->memoryKind, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
}
END_TEST

/* Driver API records and GPU records share the correlation id. */
START_TEST(api_and_gpu_records_correlate)
{
    st_init();
    client();
    CU_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER));
    CU_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    CU_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY));
    CUdeviceptr d;
    ST_OK(cuMemAlloc(&d, 256));
    void *pinned;
    ST_OK(cuMemAllocHost(&pinned, 256));
    st_spin(NULL, 1000ull);
    ST_OK(cuMemcpyHtoDAsync(d, pinned, 256, NULL));
    st_spin(NULL, 1000ull);
    ST_OK(cuCtxSynchronize());
    flush();
    ck_assert_int_eq(count_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 2);
    ck_assert_int_eq(count_kind(CUPTI_ACTIVITY_KIND_MEMCPY), 1);
    uint32_t prev = 0;
    for (int i = 0; i < 2; i++) {
        CUpti_ActivityKernel10 *k = &nth(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, i)->k;
        rec *a = api_by_corr(CUPTI_ACTIVITY_KIND_DRIVER, k->correlationId);
        ck_assert_ptr_nonnull(a);
        ck_assert_uint_eq(a->api.cbid, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
        ck_assert_uint_eq(a->api.returnValue, CUDA_SUCCESS);
        ck_assert_uint_le(a->api.start, a->api.end);
        ck_assert_uint_le(a->api.start, k->start);
        ck_assert_uint_gt(k->correlationId, prev);
        prev = k->correlationId;
    }
    CUpti_ActivityMemcpy6 *m = &nth(CUPTI_ACTIVITY_KIND_MEMCPY, 0)->m;
    rec *a = api_by_corr(CUPTI_ACTIVITY_KIND_DRIVER, m->correlationId);
    ck_assert_ptr_nonnull(a);
    ck_assert_uint_eq(a->api.cbid, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2);
    /* The synchronization is traced too; nothing untraced has an id. */
    bool sync_seen = false;
    for (int i = 0; i < nrecs; i++)
        if (recs[i].a.kind == CUPTI_ACTIVITY_KIND_DRIVER &&
            recs[i].api.cbid == CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize)
            sync_seen = true;
    ck_assert(sync_seen);
}
END_TEST

/* A runtime call's record shares its id with the GPU record; the driver
 * call the runtime makes inside it gets no record of its own. */
START_TEST(runtime_records_correlate)
{
    ck_assert_int_eq(cudaFree(NULL), cudaSuccess); /* initialize */
    client();
    CU_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME));
    CU_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER));
    CU_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY));
    void *d;
    ck_assert_int_eq(cudaMalloc(&d, 64), cudaSuccess);
    char host[64] = {0};
    ck_assert_int_eq(cudaMemcpy(d, host, sizeof host, cudaMemcpyHostToDevice),
                     cudaSuccess);
    /* A pageable copy returns once staged, before it has run. */
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    flush();
    ck_assert_int_eq(count_kind(CUPTI_ACTIVITY_KIND_MEMCPY), 1);
    ck_assert_ptr_nonnull(nth(CUPTI_ACTIVITY_KIND_RUNTIME, 1));
    ck_assert_uint_eq(nth(CUPTI_ACTIVITY_KIND_RUNTIME, 1)->api.cbid,
                      CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020);
    CUpti_ActivityMemcpy6 *m = &nth(CUPTI_ACTIVITY_KIND_MEMCPY, 0)->m;
    rec *a = api_by_corr(CUPTI_ACTIVITY_KIND_RUNTIME, m->correlationId);
    ck_assert_ptr_nonnull(a);
    ck_assert_uint_eq(a->api.cbid, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020);
    ck_assert_ptr_null(api_by_corr(CUPTI_ACTIVITY_KIND_DRIVER, m->correlationId));
    ck_assert_int_eq(m->srcKind, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE);
}
END_TEST

/* Push/pop of external ids: a record ties the id to the next API call. */
START_TEST(external_correlation)
{
    st_init();
    client();
    CU_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION));
    CU_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    uint64_t last = 0;
    ck_assert_int_eq(cuptiActivityPopExternalCorrelationId(
                         CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last),
                     CUPTI_ERROR_QUEUE_EMPTY);
    CU_OK(cuptiActivityPushExternalCorrelationId(
        CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 42));
    st_spin(NULL, 1000ull);
    CU_OK(cuptiActivityPopExternalCorrelationId(
        CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last));
    ck_assert_uint_eq(last, 42);
    st_spin(NULL, 1000ull);
    ST_OK(cuCtxSynchronize());
    flush();
    ck_assert_int_eq(count_kind(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION), 1);
    CUpti_ActivityExternalCorrelation *e =
        &nth(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, 0)->ext;
    ck_assert_int_eq(e->externalKind, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0);
    ck_assert_uint_eq(e->externalId, 42);
    CUpti_ActivityKernel10 *k = &nth(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 0)->k;
    ck_assert_uint_eq(e->correlationId, k->correlationId);
}
END_TEST

/* Small buffers: records spread over several, walked one by one. */
START_TEST(records_over_several_buffers)
{
    st_init();
    buf_size = 3 * sizeof(CUpti_ActivityKernel10);
    client();
    CU_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    CU_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER));
    for (int i = 0; i < 20; i++)
        st_spin(NULL, 1000ull);
    ST_OK(cuCtxSynchronize());
    flush();
    ck_assert_int_eq(count_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 20);
    ck_assert_int_ge(count_kind(CUPTI_ACTIVITY_KIND_DRIVER), 20);
    ck_assert_int_gt(nbuffers, 5);
    ck_assert_int_eq(nbuffers, nrequested);
    size_t dropped = 1;
    CU_OK(cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped));
    ck_assert_uint_eq(dropped, 0);
    /* Walking: first record, then the end of the valid part. */
    uint8_t buf[sizeof(CUpti_ActivityAPI)] __attribute__((aligned(8)));
    CUpti_ActivityAPI api = {.kind = CUPTI_ACTIVITY_KIND_DRIVER};
    memcpy(buf, &api, sizeof api);
    CUpti_Activity *r = NULL;
    CU_OK(cuptiActivityGetNextRecord(buf, sizeof buf, &r));
    ck_assert_ptr_eq(r, (void *)buf);
    ck_assert_int_eq(cuptiActivityGetNextRecord(buf, sizeof buf, &r),
                     CUPTI_ERROR_MAX_LIMIT_REACHED);
}
END_TEST

/* FlushAll(0) delivers full buffers only; FORCED also the partial one. */
START_TEST(flush_forced_delivers_partial_buffer)
{
    st_init();
    client();
    CU_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    st_spin(NULL, 1000ull);
    ST_OK(cuCtxSynchronize());
    CU_OK(cuptiActivityFlushAll(0));
    ck_assert_int_eq(nbuffers, 0);
    CU_OK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    ck_assert_int_eq(nbuffers, 1);
    ck_assert_int_eq(nrecs, 1);
    /* Nothing left. */
    CU_OK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    ck_assert_int_eq(nbuffers, 1);
}
END_TEST

/* Records without a buffer are dropped and counted. */
START_TEST(dropped_without_buffers)
{
    st_init();
    give_null = true;
    client();
    CU_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    for (int i = 0; i < 3; i++)
        st_spin(NULL, 1000ull);
    ST_OK(cuCtxSynchronize());
    flush();
    ck_assert_int_eq(nrecs, 0);
    size_t dropped = 0;
    CU_OK(cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped));
    ck_assert_uint_eq(dropped, 3);
}
END_TEST

/* STREAMCHECK_SIM_CUPTI_DROP=N drops every N-th record. */
START_TEST(dropped_by_switch)
{
    setenv("STREAMCHECK_SIM_CUPTI_DROP", "2", 1);
    st_init();
    client();
    CU_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    for (int i = 0; i < 6; i++)
        st_spin(NULL, 1000ull);
    ST_OK(cuCtxSynchronize());
    flush();
    ck_assert_int_eq(nrecs, 3);
    size_t dropped = 0;
    CU_OK(cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped));
    ck_assert_uint_eq(dropped, 3);
}
END_TEST

/* STREAMCHECK_SIM_CUPTI_TAKEN=1: another tool holds CUPTI. */
START_TEST(taken_by_another_tool)
{
    setenv("STREAMCHECK_SIM_CUPTI_TAKEN", "1", 1);
    st_init();
    client();
    ck_assert_int_eq(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),
                     CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
    CUpti_SubscriberHandle h;
    ck_assert_int_eq(cuptiSubscribe(&h, NULL, NULL),
                     CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
    st_spin(NULL, 1000ull);
    ST_OK(cuCtxSynchronize());
    flush();
    ck_assert_int_eq(nrecs, 0);
}
END_TEST

/* One subscriber at a time. */
START_TEST(one_subscriber)
{
    CUpti_SubscriberHandle h1, h2;
    CU_OK(cuptiSubscribe(&h1, NULL, NULL));
    ck_assert_int_eq(cuptiSubscribe(&h2, NULL, NULL),
                     CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
    CU_OK(cuptiUnsubscribe(h1));
    CU_OK(cuptiSubscribe(&h2, NULL, NULL));
    CU_OK(cuptiUnsubscribe(h2));
}
END_TEST

static uint64_t fake_now = 1000;
static uint64_t CUPTIAPI fake_clock(void)
{
    return __atomic_add_fetch(&fake_now, 1, __ATOMIC_RELAXED);
}

/* A registered timestamp callback is the timeline's clock. */
START_TEST(timestamp_callback)
{
    st_init();
    client();
    uint64_t t;
    CU_OK(cuptiGetTimestamp(&t));
    ck_assert_uint_gt(t, 1000000000000000000ull); /* CLOCK_REALTIME ns */
    CU_OK(cuptiActivityRegisterTimestampCallback(fake_clock));
    CU_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    CU_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION));
    st_spin(NULL, 1000ull);
    ST_OK(cuCtxSynchronize());
    flush();
    CUpti_ActivityKernel10 *k = &nth(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 0)->k;
    ck_assert_uint_gt(k->start, 1000);
    ck_assert_uint_lt(k->end, 1100);
    ck_assert_uint_lt(k->start, k->end);
    CU_OK(cuptiGetTimestamp(&t));
    ck_assert_uint_lt(t, 1100);
}
END_TEST

/* Synchronization records: stream and context synchronization. */
START_TEST(synchronization_records)
{
    st_init();
    client();
    CU_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION));
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    st_spin(s, 50000000ull);
    ST_OK(cuStreamSynchronize(s));
    ST_OK(cuCtxSynchronize());
    flush();
    ck_assert_int_eq(count_kind(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION), 2);
    CUpti_ActivitySynchronization2 *a = &nth(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, 0)->sync;
    CUpti_ActivitySynchronization2 *b = &nth(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, 1)->sync;
    ck_assert_int_eq(a->type, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE);
    ck_assert_uint_eq(a->streamId, stream_id(s));
    ck_assert_msg(ms(a->end - a->start) >= 30.0, "stream sync took %.1f ms",
                  ms(a->end - a->start));
    ck_assert_uint_ne(a->correlationId, 0);
    ck_assert_int_eq(b->type, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE);
}
END_TEST

/* Disabled kinds record nothing. */
START_TEST(disabled_records_nothing)
{
    st_init();
    client();
    CU_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    CU_OK(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    st_spin(NULL, 1000ull);
    ST_OK(cuCtxSynchronize());
    flush();
    ck_assert_int_eq(nrecs, 0);
    ck_assert_int_eq(nrequested, 0);
}
END_TEST

/* Ids, version, result strings, and an unimplemented entry point. */
START_TEST(misc_entry_points)
{
    CUcontext ctx = st_init();
    CUstream s;
    ST_OK(cuStreamCreate(&s, 0));
    uint32_t id = 0;
    CU_OK(cuptiGetStreamIdEx(ctx, s, 0, &id));
    ck_assert_uint_eq(id, stream_id(s));
    CU_OK(cuptiGetContextId(ctx, &id));
    ck_assert_uint_eq(id, 1);
    CU_OK(cuptiGetDeviceId(ctx, &id));
    ck_assert_uint_eq(id, 0);
    uint32_t v = 0;
    CU_OK(cuptiGetVersion(&v));
    ck_assert_uint_eq(v, CUPTI_API_VERSION);
    const char *str = NULL;
    CU_OK(cuptiGetResultString(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, &str));
    ck_assert_str_eq(str, "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED");
    int saved = st_stderr_begin();
    CUptiResult r = cuptiActivityFlushPeriod(10);
    char *err = st_stderr_end(saved);
    ck_assert_int_eq(r, CUPTI_ERROR_NOT_SUPPORTED);
    ck_assert_int_eq(st_count(err, "cuptiActivityFlushPeriod is not supported by the simulator"), 1);
    free(err);
    CU_OK(cuptiFinalize());
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cupti");
    TCase *t = tcase_create("activity");
    tcase_set_timeout(t, 20);
    tcase_add_test(t, nonblocking_streams_overlap);
    tcase_add_test(t, legacy_kernel_serializes_blocking_streams);
    tcase_add_test(t, memcpy_records_memory_kinds);
    tcase_add_test(t, memset_record);
    tcase_add_test(t, api_and_gpu_records_correlate);
    tcase_add_test(t, runtime_records_correlate);
    tcase_add_test(t, external_correlation);
    tcase_add_test(t, records_over_several_buffers);
    tcase_add_test(t, flush_forced_delivers_partial_buffer);
    tcase_add_test(t, dropped_without_buffers);
    tcase_add_test(t, dropped_by_switch);
    tcase_add_test(t, taken_by_another_tool);
    tcase_add_test(t, one_subscriber);
    tcase_add_test(t, timestamp_callback);
    tcase_add_test(t, synchronization_records);
    tcase_add_test(t, disabled_records_nothing);
    tcase_add_test(t, misc_entry_points);
    suite_add_tcase(s, t);
    return st_run(s);
}
