/* tests/sim/check_capture.c: stream capture, graph replay and the
 * capture rules of the simulated driver. */
#include "config.h"

#include "simtest.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void CUDA_CB count_fn(void *p)
{
    atomic_fetch_add((atomic_int *)p, 1);
}

/* Captured operations do not run; each launch of the graph replays them
 * in order, as one operation of the launch stream. */
START_TEST(capture_and_replay)
{
    st_init();
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_DEFAULT));
    enum { n = 256 };
    CUdeviceptr x, y;
    ST_OK(cuMemAlloc(&x, n * sizeof(float)));
    ST_OK(cuMemAlloc(&y, n * sizeof(float)));
    float *hx = (float *)(uintptr_t)x, *hy = (float *)(uintptr_t)y;
    for (int i = 0; i < n; i++)
        hx[i] = (float)i, hy[i] = -1;
    atomic_int count = 0;
    ST_OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CUstreamCaptureStatus st;
    ST_OK(cuStreamIsCapturing(s, &st));
    ck_assert_int_eq(st, CU_STREAM_CAPTURE_STATUS_ACTIVE);
    ST_OK(cuMemsetD32Async(y, 0x3f800000u, n, s)); /* 1.0f */
    int nn = n;
    float a = 2.0f;
    void *args[] = {&nn, &a, &x, &y};
    ST_OK(cuLaunchKernel(st_func(ST_SAXPY), 1, 1, 1, 32, 1, 1, 0, s, args, NULL));
    a = 100.0f; /* arguments were captured by value */
    ST_OK(cuLaunchHostFunc(s, count_fn, &count));
    CUgraph g;
    ST_OK(cuStreamEndCapture(s, &g));
    ck_assert_ptr_nonnull(g);
    ST_OK(cuStreamIsCapturing(s, &st));
    ck_assert_int_eq(st, CU_STREAM_CAPTURE_STATUS_NONE);
    ST_OK(cuStreamSynchronize(s));
    ck_assert_int_eq(atomic_load(&count), 0);
    ck_assert(hy[3] == -1.0f);

    CUgraphExec e;
    ST_OK(cuGraphInstantiateWithFlags(&e, g, 0));
    ST_OK(cuGraphDestroy(g)); /* the executable graph keeps the work */
    ST_OK(cuGraphLaunch(e, s));
    ST_OK(cuGraphLaunch(e, s));
    ST_OK(cuStreamSynchronize(s));
    ck_assert_int_eq(atomic_load(&count), 2);
    for (int i = 0; i < n; i++)
        ck_assert(hy[i] == 2.0f * (float)i + 1.0f);
    ST_OK(cuGraphExecDestroy(e));
}
END_TEST

/* A graph launch is stream-ordered and non-blocking for the host. */
START_TEST(graph_launch_is_stream_ordered)
{
    st_init();
    CUstream s, c;
    ST_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    ST_OK(cuStreamCreate(&c, CU_STREAM_NON_BLOCKING));
    atomic_int count = 0;
    ST_OK(cuStreamBeginCapture(c, CU_STREAM_CAPTURE_MODE_RELAXED));
    ST_OK(cuLaunchHostFunc(c, count_fn, &count));
    CUgraph g;
    ST_OK(cuStreamEndCapture(c, &g));
    CUgraphExec e;
    ST_OK(cuGraphInstantiateWithFlags(&e, g, 0));
    st_gate gate;
    st_gate_init(&gate);
    st_gate_on(&gate, s);
    ST_OK(cuGraphLaunch(e, s));
    st_sleep_ms(ST_BLOCK_MS);
    ck_assert_int_eq(atomic_load(&count), 0);
    st_gate_open(&gate);
    ST_OK(cuStreamSynchronize(s));
    ck_assert_int_eq(atomic_load(&count), 1);
}
END_TEST

/* Using the legacy stream while a blocking stream captures fails with
 * CUDA_ERROR_STREAM_CAPTURE_IMPLICIT and invalidates the capture. */
START_TEST(legacy_stream_during_capture)
{
    st_init();
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_DEFAULT));
    CUdeviceptr d;
    ST_OK(cuMemAlloc(&d, 64));
    ST_OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CUstreamCaptureStatus st;
    /* Asking the legacy stream is an error but does not invalidate. */
    ST_EXPECT(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, cuStreamIsCapturing(NULL, &st));
    ST_OK(cuStreamIsCapturing(s, &st));
    ck_assert_int_eq(st, CU_STREAM_CAPTURE_STATUS_ACTIVE);
    ST_EXPECT(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, cuMemsetD8Async(d, 0, 64, NULL));
    ST_OK(cuStreamIsCapturing(s, &st));
    ck_assert_int_eq(st, CU_STREAM_CAPTURE_STATUS_INVALIDATED);
    ST_EXPECT(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, cuMemsetD8Async(d, 0, 64, s));
    CUgraph g = (CUgraph)1;
    ST_EXPECT(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, cuStreamEndCapture(s, &g));
    ck_assert_ptr_null(g);
    /* Capture over: the legacy stream is usable again. */
    ST_OK(cuMemsetD8Async(d, 0, 64, NULL));
    ST_OK(cuStreamSynchronize(NULL));
}
END_TEST

/* A non-blocking stream's capture does not involve the legacy stream. */
START_TEST(legacy_stream_during_non_blocking_capture)
{
    st_init();
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUdeviceptr d;
    ST_OK(cuMemAlloc(&d, 64));
    ST_OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    ST_OK(cuMemsetD8Async(d, 0, 64, NULL));
    ST_OK(cuStreamSynchronize(NULL));
    CUgraph g;
    ST_OK(cuStreamEndCapture(s, &g));
    ck_assert_ptr_nonnull(g);
}
END_TEST

typedef struct alloc_try {
    CUresult r;
} alloc_try;

static void try_alloc(void *p)
{
    CUdeviceptr d;
    ((alloc_try *)p)->r = cuMemAlloc(&d, 64);
}

/* Global mode: synchronous allocation is prohibited in the capturing
 * thread and in every other thread; the capture is invalidated. */
START_TEST(global_mode_prohibits_unsafe_calls)
{
    st_init();
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    ST_OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    alloc_try t = {CUDA_SUCCESS};
    st_call c;
    st_call_start(&c, try_alloc, &t);
    ck_assert(st_call_done_within(&c, ST_RETURN_MS));
    st_call_join(&c);
    ck_assert_int_eq(t.r, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    CUdeviceptr d;
    ST_EXPECT(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, cuMemAlloc(&d, 64));
    CUgraph g;
    ST_EXPECT(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, cuStreamEndCapture(s, &g));
    ST_OK(cuMemAlloc(&d, 64));
}
END_TEST

/* Thread-local mode: only the capturing thread is restricted. */
START_TEST(thread_local_mode)
{
    st_init();
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    ST_OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    alloc_try t = {CUDA_ERROR_UNKNOWN};
    st_call c;
    st_call_start(&c, try_alloc, &t);
    ck_assert(st_call_done_within(&c, ST_RETURN_MS));
    st_call_join(&c);
    ck_assert_int_eq(t.r, CUDA_SUCCESS);
    CUgraph g;
    ST_OK(cuStreamEndCapture(s, &g));
    ST_OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    CUdeviceptr d;
    ST_EXPECT(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, cuMemAlloc(&d, 64));
    ST_EXPECT(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, cuStreamEndCapture(s, &g));
}
END_TEST

/* Relaxed mode, or a thread switched to relaxed interaction, may make
 * potentially unsafe calls. */
START_TEST(relaxed_mode_allows_unsafe_calls)
{
    st_init();
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    ST_OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED));
    CUdeviceptr d;
    ST_OK(cuMemAlloc(&d, 64));
    CUgraph g;
    ST_OK(cuStreamEndCapture(s, &g));
    ST_OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    ST_OK(cuThreadExchangeStreamCaptureMode(&mode));
    ck_assert_int_eq(mode, CU_STREAM_CAPTURE_MODE_GLOBAL);
    ST_OK(cuMemAlloc(&d, 64));
    ST_OK(cuThreadExchangeStreamCaptureMode(&mode));
    ST_OK(cuStreamEndCapture(s, &g));
}
END_TEST

/* Synchronizing or querying a capturing stream is invalid. */
START_TEST(synchronizing_capturing_stream)
{
    st_init();
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUgraph g;
    ST_OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED));
    ST_EXPECT(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, cuStreamSynchronize(s));
    ST_EXPECT(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, cuStreamEndCapture(s, &g));
    ST_OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED));
    ST_EXPECT(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, cuStreamQuery(s));
    ST_EXPECT(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, cuStreamEndCapture(s, &g));
    ST_OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED));
    ST_EXPECT(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, cuCtxSynchronize());
    ST_EXPECT(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, cuStreamEndCapture(s, &g));
}
END_TEST

/* A copy from pageable memory does not block the host during capture:
 * it is captured (as the driver does) and reads the memory when the graph
 * runs. */
START_TEST(pageable_copy_during_capture)
{
    st_init();
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUdeviceptr d;
    ST_OK(cuMemAlloc(&d, 64));
    char *dev = (char *)(uintptr_t)d;
    memset(dev, 0, 64);
    static char host[64];
    memset(host, 1, sizeof host);
    st_gate g;
    st_gate_init(&g);
    st_gate_on(&g, s); /* would block a pageable copy outside capture */
    ST_OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    ST_OK(cuMemcpyHtoDAsync(d, host, sizeof host, s));
    CUgraph graph;
    ST_OK(cuStreamEndCapture(s, &graph));
    st_gate_open(&g);
    ST_OK(cuStreamSynchronize(s));
    ck_assert_int_eq(dev[0], 0);
    memset(host, 7, sizeof host);
    CUgraphExec e;
    ST_OK(cuGraphInstantiateWithFlags(&e, graph, 0));
    ST_OK(cuGraphLaunch(e, s));
    ST_OK(cuStreamSynchronize(s));
    ck_assert_int_eq(dev[63], 7);
}
END_TEST

static void CUDA_CB noop_callback(CUstream h, CUresult st, void *p)
{
    (void)h;
    (void)st;
    (void)p;
}

START_TEST(callback_during_capture)
{
    st_init();
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUgraph graph;
    ST_OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    ST_EXPECT(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
              cuStreamAddCallback(s, noop_callback, NULL, 0));
    ST_EXPECT(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, cuStreamEndCapture(s, &graph));
}
END_TEST

/* An event recorded in a capture names a point of the graph: querying or
 * synchronizing it fails and invalidates the capture; once the capture is
 * invalidated or over, the event is invalid until recorded again. */
START_TEST(captured_event_rules)
{
    st_init();
    CUstream s, t;
    ST_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    ST_OK(cuStreamCreate(&t, CU_STREAM_NON_BLOCKING));
    CUevent e;
    ST_OK(cuEventCreate(&e, 0));
    CUgraph g;
    ST_OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    ST_OK(cuEventRecord(e, s));
    ST_EXPECT(CUDA_ERROR_CAPTURED_EVENT, cuEventQuery(e));
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE, cuEventSynchronize(e));
    ST_EXPECT(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, cuStreamEndCapture(s, &g));
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE, cuEventQuery(e));

    ST_OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    ST_OK(cuEventRecord(e, s));
    ST_EXPECT(CUDA_ERROR_CAPTURED_EVENT, cuEventSynchronize(e));
    ST_EXPECT(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, cuStreamEndCapture(s, &g));

    ST_OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    ST_OK(cuEventRecord(e, s));
    ST_OK(cuStreamEndCapture(s, &g));
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE, cuEventQuery(e));
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE, cuEventSynchronize(e));
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE, cuStreamWaitEvent(t, e, 0));
    /* Recorded again outside a capture, it is an ordinary event. */
    ST_OK(cuEventRecord(e, t));
    ST_OK(cuEventSynchronize(e));
    ST_OK(cuEventQuery(e));
}
END_TEST

static void end_capture_elsewhere(void *p)
{
    CUgraph g;
    ST_EXPECT(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD,
              cuStreamEndCapture((CUstream)p, &g));
}

START_TEST(capture_misuse)
{
    st_init();
    CUstream s, t;
    ST_OK(cuStreamCreate(&s, CU_STREAM_DEFAULT));
    ST_OK(cuStreamCreate(&t, CU_STREAM_DEFAULT));
    CUgraph g;
    /* The legacy stream cannot be captured. */
    ST_EXPECT(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
              cuStreamBeginCapture(NULL, CU_STREAM_CAPTURE_MODE_GLOBAL));
    ST_EXPECT(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
              cuStreamBeginCapture(CU_STREAM_LEGACY, CU_STREAM_CAPTURE_MODE_GLOBAL));
    ST_EXPECT(CUDA_ERROR_ILLEGAL_STATE, cuStreamEndCapture(s, &g));
    ST_OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    ST_EXPECT(CUDA_ERROR_ILLEGAL_STATE,
              cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    /* Ending from another thread fails, but ends the capture. */
    st_call c;
    st_call_start(&c, end_capture_elsewhere, s);
    ck_assert(st_call_done_within(&c, ST_RETURN_MS));
    st_call_join(&c);
    CUstreamCaptureStatus cs;
    ST_OK(cuStreamIsCapturing(s, &cs));
    ck_assert_int_eq(cs, CU_STREAM_CAPTURE_STATUS_NONE);
    ST_EXPECT(CUDA_ERROR_ILLEGAL_STATE, cuStreamEndCapture(s, &g));
    /* The per-thread stream can be captured. */
    ST_OK(cuStreamBeginCapture(CU_STREAM_PER_THREAD, CU_STREAM_CAPTURE_MODE_GLOBAL));
    ST_OK(cuStreamEndCapture(CU_STREAM_PER_THREAD, &g));
}
END_TEST

/* Fork and join through events: a stream waiting on an event recorded
 * in the capture joins it; its work is captured, not run, and ends with
 * the capture. */
START_TEST(fork_join)
{
    st_init();
    CUstream s1, s2;
    ST_OK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
    ST_OK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
    CUevent fork, join;
    ST_OK(cuEventCreate(&fork, CU_EVENT_DISABLE_TIMING));
    ST_OK(cuEventCreate(&join, CU_EVENT_DISABLE_TIMING));
    atomic_int count = 0;
    ST_OK(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    ST_OK(cuLaunchHostFunc(s1, count_fn, &count));
    ST_OK(cuEventRecord(fork, s1));
    ST_OK(cuStreamWaitEvent(s2, fork, 0));
    CUstreamCaptureStatus st;
    ST_OK(cuStreamIsCapturing(s2, &st));
    ck_assert_int_eq(st, CU_STREAM_CAPTURE_STATUS_ACTIVE);
    ST_OK(cuLaunchHostFunc(s2, count_fn, &count));
    ST_OK(cuEventRecord(join, s2));
    ST_OK(cuStreamWaitEvent(s1, join, 0));
    /* Ending on the joined stream is not allowed. */
    CUgraph g;
    ST_EXPECT(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, cuStreamEndCapture(s2, &g));
    ST_EXPECT(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, cuStreamEndCapture(s1, &g));
    ST_OK(cuStreamIsCapturing(s2, &st));
    ck_assert_int_eq(st, CU_STREAM_CAPTURE_STATUS_NONE);

    /* Again, ended properly. */
    ST_OK(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    ST_OK(cuLaunchHostFunc(s1, count_fn, &count));
    ST_OK(cuEventRecord(fork, s1));
    ST_OK(cuStreamWaitEvent(s2, fork, 0));
    ST_OK(cuLaunchHostFunc(s2, count_fn, &count));
    ST_OK(cuEventRecord(join, s2));
    ST_OK(cuStreamWaitEvent(s1, join, 0));
    ST_OK(cuStreamEndCapture(s1, &g));
    ST_OK(cuStreamIsCapturing(s2, &st));
    ck_assert_int_eq(st, CU_STREAM_CAPTURE_STATUS_NONE);
    ck_assert_int_eq(atomic_load(&count), 0);
    CUgraphExec e;
    ST_OK(cuGraphInstantiateWithFlags(&e, g, 0));
    ST_OK(cuGraphLaunch(e, s1));
    ST_OK(cuStreamSynchronize(s1));
    ck_assert_int_eq(atomic_load(&count), 2);
}
END_TEST

/* A capturing stream waiting on work outside the capture. */
START_TEST(wait_on_uncaptured_event)
{
    st_init();
    CUstream s1, s2;
    ST_OK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
    ST_OK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
    CUevent e;
    ST_OK(cuEventCreate(&e, 0));
    ST_OK(cuEventRecord(e, s2));
    ST_OK(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    ST_EXPECT(CUDA_ERROR_STREAM_CAPTURE_ISOLATION, cuStreamWaitEvent(s1, e, 0));
    CUgraph g;
    ST_EXPECT(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, cuStreamEndCapture(s1, &g));
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("sim-capture");
    TCase *t = tcase_create("capture");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, capture_and_replay);
    tcase_add_test(t, graph_launch_is_stream_ordered);
    tcase_add_test(t, legacy_stream_during_capture);
    tcase_add_test(t, legacy_stream_during_non_blocking_capture);
    tcase_add_test(t, global_mode_prohibits_unsafe_calls);
    tcase_add_test(t, thread_local_mode);
    tcase_add_test(t, relaxed_mode_allows_unsafe_calls);
    tcase_add_test(t, synchronizing_capturing_stream);
    tcase_add_test(t, pageable_copy_during_capture);
    tcase_add_test(t, callback_during_capture);
    tcase_add_test(t, captured_event_rules);
    tcase_add_test(t, capture_misuse);
    tcase_add_test(t, fork_join);
    tcase_add_test(t, wait_on_uncaptured_event);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return st_run(suite());
}
