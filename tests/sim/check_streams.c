/* tests/sim/check_streams.c: stream semantics of the simulated driver
 * (CUDA Driver API, "Stream synchronization behavior"): the legacy NULL
 * stream, blocking and non-blocking streams, per-thread default streams,
 * events, host functions, callbacks. */
#include "config.h"

#include "simtest.h"

#include <cudaTypedefs.h>
#include <stdlib.h>
#include <string.h>

/* The legacy stream waits for prior work of every blocking stream. */
START_TEST(legacy_waits_for_blocking_stream)
{
    st_init();
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_DEFAULT));
    st_gate g;
    st_gate_init(&g);
    st_gate_on(&g, s);
    atomic_int ran = 0;
    st_flag_on(&ran, NULL);
    ck_assert(st_gate_reached(&g, ST_RETURN_MS));
    st_sleep_ms(ST_BLOCK_MS);
    ck_assert_int_eq(atomic_load(&ran), 0);
    ST_EXPECT(CUDA_ERROR_NOT_READY, cuStreamQuery(NULL));
    ST_EXPECT(CUDA_ERROR_NOT_READY, cuStreamQuery(CU_STREAM_LEGACY));
    st_gate_open(&g);
    ST_OK(cuStreamSynchronize(NULL));
    ck_assert_int_eq(atomic_load(&ran), 1);
    ST_OK(cuStreamQuery(s));
}
END_TEST

static void sync_legacy(void *arg)
{
    (void)arg;
    ST_OK(cuStreamSynchronize(CU_STREAM_LEGACY));
}

/* Non-blocking streams never synchronize with the legacy stream. */
START_TEST(legacy_ignores_non_blocking_stream)
{
    st_init();
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    st_gate g;
    st_gate_init(&g);
    st_gate_on(&g, s);
    atomic_int ran = 0;
    st_flag_on(&ran, NULL);
    st_call c;
    st_call_start(&c, sync_legacy, NULL);
    ck_assert(st_call_done_within(&c, ST_RETURN_MS));
    ck_assert_int_eq(atomic_load(&ran), 1);
    ST_OK(cuStreamQuery(NULL));
    ST_EXPECT(CUDA_ERROR_NOT_READY, cuStreamQuery(s));
    st_gate_open(&g);
    st_call_join(&c);
    ST_OK(cuStreamSynchronize(s));
}
END_TEST

/* Later work of a blocking stream waits for prior legacy work; work of a
 * non-blocking stream does not. */
START_TEST(blocking_stream_waits_for_legacy)
{
    st_init();
    CUstream blocking, nonblocking;
    ST_OK(cuStreamCreate(&blocking, CU_STREAM_DEFAULT));
    ST_OK(cuStreamCreate(&nonblocking, CU_STREAM_NON_BLOCKING));
    st_gate g;
    st_gate_init(&g);
    st_gate_on(&g, NULL);
    atomic_int ran_b = 0, ran_n = 0;
    st_flag_on(&ran_b, blocking);
    st_flag_on(&ran_n, nonblocking);
    ck_assert(st_gate_reached(&g, ST_RETURN_MS));
    ST_OK(cuStreamSynchronize(nonblocking));
    ck_assert_int_eq(atomic_load(&ran_n), 1);
    st_sleep_ms(ST_BLOCK_MS);
    ck_assert_int_eq(atomic_load(&ran_b), 0);
    ST_EXPECT(CUDA_ERROR_NOT_READY, cuStreamQuery(blocking));
    st_gate_open(&g);
    ST_OK(cuStreamSynchronize(blocking));
    ck_assert_int_eq(atomic_load(&ran_b), 1);
}
END_TEST

/* A blocking stream created after a legacy operation still waits for
 * it, and so transitively for what that operation waits for. */
START_TEST(new_blocking_stream_waits_for_earlier_legacy_work)
{
    st_init();
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_DEFAULT));
    atomic_int ran = 0;
    st_gate g;
    st_gate_init(&g);
    st_gate_on(&g, s);
    st_flag_on(&ran, NULL); /* legacy, after the gate */
    CUstream t;
    ST_OK(cuStreamCreate(&t, CU_STREAM_DEFAULT));
    atomic_int ran_t = 0;
    st_flag_on(&ran_t, t);
    st_sleep_ms(ST_BLOCK_MS);
    ck_assert_int_eq(atomic_load(&ran_t), 0);
    st_gate_open(&g);
    ST_OK(cuCtxSynchronize());
    ck_assert_int_eq(atomic_load(&ran), 1);
    ck_assert_int_eq(atomic_load(&ran_t), 1);
}
END_TEST

typedef struct pt_arg {
    st_gate *gate;
    atomic_int *ran;
    st_gate hold; /* keeps the thread alive until the test is done */
} pt_arg;

static void *gate_own_per_thread_stream(void *p)
{
    pt_arg *a = p;
    st_thread_ctx();
    st_gate_on_pt(a->gate, NULL);
    pthread_mutex_lock(&a->hold.mu);
    while (!a->hold.open)
        pthread_cond_wait(&a->hold.cv, &a->hold.mu);
    pthread_mutex_unlock(&a->hold.mu);
    /* The gate lives on the test's stack: let the host function that waits
       on it finish before the test can return. */
    PFN_cuStreamSynchronize_v7000_ptsz sync =
        (PFN_cuStreamSynchronize_v7000_ptsz)st_proc("cuStreamSynchronize", 7000, 2);
    ST_OK(sync(NULL));
    return NULL;
}

static void *flag_own_per_thread_stream(void *p)
{
    pt_arg *a = p;
    st_thread_ctx();
    PFN_cuLaunchHostFunc_v10000_ptsz host =
        (PFN_cuLaunchHostFunc_v10000_ptsz)st_proc("cuLaunchHostFunc", 10000, 2);
    PFN_cuStreamSynchronize_v7000_ptsz sync =
        (PFN_cuStreamSynchronize_v7000_ptsz)st_proc("cuStreamSynchronize", 7000, 2);
    ST_OK(host(NULL, st_flag_fn, a->ran));
    ST_OK(sync(NULL));
    return NULL;
}

/* Per-thread default streams of two threads are independent. */
START_TEST(per_thread_streams_run_concurrently)
{
    st_init();
    st_gate g;
    st_gate_init(&g);
    atomic_int ran = 0;
    pt_arg a = {.gate = &g, .ran = &ran};
    st_gate_init(&a.hold);
    pthread_t ta, tb;
    ck_assert_int_eq(pthread_create(&ta, NULL, gate_own_per_thread_stream, &a), 0);
    ck_assert(st_gate_reached(&g, ST_RETURN_MS));
    ck_assert_int_eq(pthread_create(&tb, NULL, flag_own_per_thread_stream, &a), 0);
    double t0 = st_now_ms();
    while (!atomic_load(&ran) && st_now_ms() - t0 < ST_RETURN_MS)
        st_sleep_ms(1);
    ck_assert_int_eq(atomic_load(&ran), 1);
    pthread_join(tb, NULL);
    st_gate_open(&g);
    st_gate_open(&a.hold);
    pthread_join(ta, NULL);
}
END_TEST

/* The per-thread stream is blocking with respect to the legacy stream,
 * both ways. */
START_TEST(per_thread_stream_orders_with_legacy)
{
    st_init();
    st_gate g;
    st_gate_init(&g);
    pt_arg a = {.gate = &g};
    st_gate_init(&a.hold);
    pthread_t ta;
    ck_assert_int_eq(pthread_create(&ta, NULL, gate_own_per_thread_stream, &a), 0);
    ck_assert(st_gate_reached(&g, ST_RETURN_MS));
    atomic_int ran = 0;
    st_flag_on(&ran, CU_STREAM_LEGACY);
    st_sleep_ms(ST_BLOCK_MS);
    ck_assert_int_eq(atomic_load(&ran), 0);
    st_gate_open(&g);
    ST_OK(cuStreamSynchronize(NULL));
    ck_assert_int_eq(atomic_load(&ran), 1);
    st_gate_open(&a.hold);
    pthread_join(ta, NULL);

    /* Legacy work held: this thread's per-thread stream waits for it. */
    st_gate g2;
    st_gate_init(&g2);
    st_gate_on(&g2, NULL);
    atomic_int ran_pt = 0;
    PFN_cuLaunchHostFunc_v10000_ptsz host =
        (PFN_cuLaunchHostFunc_v10000_ptsz)st_proc("cuLaunchHostFunc", 10000, 2);
    ST_OK(host(NULL, st_flag_fn, &ran_pt));
    st_sleep_ms(ST_BLOCK_MS);
    ck_assert_int_eq(atomic_load(&ran_pt), 0);
    st_gate_open(&g2);
    ST_OK(cuStreamSynchronize(CU_STREAM_PER_THREAD));
    ck_assert_int_eq(atomic_load(&ran_pt), 1);
}
END_TEST

/* CU_STREAM_PER_THREAD in a legacy entry point and NULL in a _ptsz one
 * name the same stream; CU_STREAM_LEGACY in a _ptsz one is the legacy
 * stream. */
START_TEST(stream_handles)
{
    st_init();
    PFN_cuStreamGetId_v12000_ptsz id_pt =
        (PFN_cuStreamGetId_v12000_ptsz)st_proc("cuStreamGetId", 12000, 2);
    unsigned long long a, b, c, d;
    ST_OK(cuStreamGetId(CU_STREAM_PER_THREAD, &a));
    ST_OK(id_pt(NULL, &b));
    ck_assert_uint_eq(a, b);
    ST_OK(cuStreamGetId(NULL, &c));
    ST_OK(id_pt(CU_STREAM_LEGACY, &d));
    ck_assert_uint_eq(c, d);
    ck_assert_uint_ne(a, c);
    CUstream s;
    ST_OK(cuStreamCreate(&s, 0));
    ST_OK(cuStreamGetId(s, &d));
    ck_assert_uint_ne(d, a);
    ck_assert_uint_ne(d, c);
}
END_TEST

START_TEST(stream_properties)
{
    st_init();
    CUstream s, n, p;
    ST_OK(cuStreamCreate(&s, CU_STREAM_DEFAULT));
    ST_OK(cuStreamCreate(&n, CU_STREAM_NON_BLOCKING));
    ST_OK(cuStreamCreateWithPriority(&p, CU_STREAM_NON_BLOCKING, -10));
    unsigned flags = 9;
    ST_OK(cuStreamGetFlags(s, &flags));
    ck_assert_uint_eq(flags, 0);
    ST_OK(cuStreamGetFlags(n, &flags));
    ck_assert_uint_eq(flags, CU_STREAM_NON_BLOCKING);
    int prio = 1;
    ST_OK(cuStreamGetPriority(p, &prio));
    ck_assert_int_eq(prio, -5); /* clamped to the greatest priority */
    ST_OK(cuStreamGetPriority(s, &prio));
    ck_assert_int_eq(prio, 0);
    CUcontext ctx, cur;
    ST_OK(cuStreamGetCtx(s, &ctx));
    ST_OK(cuCtxGetCurrent(&cur));
    ck_assert_ptr_eq(ctx, cur);
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE, cuStreamCreate(&s, 4));
    ST_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuStreamDestroy(NULL));
}
END_TEST

/* Destroying a stream with queued work returns at once; the work still
 * completes; the handle is dead. */
START_TEST(destroy_with_pending_work)
{
    st_init();
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    st_gate g;
    st_gate_init(&g);
    st_gate_on(&g, s);
    atomic_int ran = 0;
    st_flag_on(&ran, s);
    ST_OK(cuStreamDestroy(s));
    ST_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuStreamQuery(s));
    ST_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuLaunchHostFunc(s, st_flag_fn, &ran));
    ck_assert_int_eq(atomic_load(&ran), 0);
    st_gate_open(&g);
    ST_OK(cuCtxSynchronize());
    ck_assert_int_eq(atomic_load(&ran), 1);
}
END_TEST

/* ----------------------------------------------------------------- events --- */

START_TEST(event_query_and_synchronize)
{
    st_init();
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUevent e;
    ST_OK(cuEventCreate(&e, CU_EVENT_DEFAULT));
    ST_OK(cuEventQuery(e)); /* never recorded */
    ST_OK(cuEventSynchronize(e));
    st_gate g;
    st_gate_init(&g);
    st_gate_on(&g, s);
    ST_OK(cuEventRecord(e, s));
    ST_EXPECT(CUDA_ERROR_NOT_READY, cuEventQuery(e));
    st_gate_open(&g);
    ST_OK(cuEventSynchronize(e));
    ST_OK(cuEventQuery(e));
    ST_OK(cuEventDestroy(e));
    ST_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuEventQuery(e));
}
END_TEST

static void sync_event(void *e)
{
    ST_OK(cuEventSynchronize((CUevent)e));
}

START_TEST(event_synchronize_blocks)
{
    st_init();
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUevent e;
    ST_OK(cuEventCreate(&e, CU_EVENT_BLOCKING_SYNC));
    st_gate g;
    st_gate_init(&g);
    st_gate_on(&g, s);
    ST_OK(cuEventRecord(e, s));
    st_call c;
    st_call_start(&c, sync_event, e);
    ck_assert(!st_call_done_within(&c, ST_BLOCK_MS));
    st_gate_open(&g);
    ck_assert(st_call_done_within(&c, ST_RETURN_MS));
    st_call_join(&c);
}
END_TEST

/* Elapsed time is the host clock between the records' execution. */
START_TEST(event_elapsed_time)
{
    st_init();
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUevent a, b, never, notiming;
    ST_OK(cuEventCreate(&a, 0));
    ST_OK(cuEventCreate(&b, 0));
    ST_OK(cuEventCreate(&never, 0));
    ST_OK(cuEventCreate(&notiming, CU_EVENT_DISABLE_TIMING));
    float ms = -1;
    ST_OK(cuEventRecord(a, s));
    st_spin(s, 120000000ull); /* 120 ms */
    ST_OK(cuEventRecord(b, s));
    ST_OK(cuEventRecord(notiming, s));
    ST_EXPECT(CUDA_ERROR_NOT_READY, cuEventElapsedTime(&ms, a, b));
    ST_OK(cuEventSynchronize(b));
    ST_OK(cuEventElapsedTime(&ms, a, b));
    ck_assert_msg(ms >= 115.0f, "elapsed %.3f ms for a 120 ms kernel", ms);
    ST_OK(cuEventElapsedTime_v2(&ms, a, b));
    ck_assert(ms >= 115.0f);
    ST_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuEventElapsedTime(&ms, a, never));
    ST_OK(cuStreamSynchronize(s));
    ST_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuEventElapsedTime(&ms, a, notiming));
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE, cuEventCreate(&a, CU_EVENT_INTERPROCESS));
}
END_TEST

/* cuStreamWaitEvent: later work of the waiting stream waits for the
 * event's record in another stream. */
START_TEST(wait_event_across_streams)
{
    st_init();
    CUstream s1, s2;
    ST_OK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
    ST_OK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
    CUevent e;
    ST_OK(cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));
    st_gate g;
    st_gate_init(&g);
    st_gate_on(&g, s1);
    ST_OK(cuEventRecord(e, s1));
    ST_OK(cuStreamWaitEvent(s2, e, 0));
    atomic_int ran = 0;
    st_flag_on(&ran, s2);
    st_sleep_ms(ST_BLOCK_MS);
    ck_assert_int_eq(atomic_load(&ran), 0);
    st_gate_open(&g);
    ST_OK(cuStreamSynchronize(s2));
    ck_assert_int_eq(atomic_load(&ran), 1);
}
END_TEST

/* The wait captures the event's latest record at call time: recording
 * the event again later does not change what the earlier wait waits for,
 * and a wait issued after the new record waits for that one only. */
START_TEST(wait_event_uses_record_at_call_time)
{
    st_init();
    CUstream s1, s2, s3, s4;
    ST_OK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
    ST_OK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
    ST_OK(cuStreamCreate(&s3, CU_STREAM_NON_BLOCKING));
    ST_OK(cuStreamCreate(&s4, CU_STREAM_NON_BLOCKING));
    CUevent e;
    ST_OK(cuEventCreate(&e, 0));
    st_gate g;
    st_gate_init(&g);
    st_gate_on(&g, s1);
    ST_OK(cuEventRecord(e, s1));
    ST_OK(cuStreamWaitEvent(s2, e, 0));
    ST_OK(cuEventRecord(e, s3)); /* s3 is idle: completes at once */
    ST_OK(cuStreamWaitEvent(s4, e, 0));
    atomic_int ran2 = 0, ran4 = 0;
    st_flag_on(&ran2, s2);
    st_flag_on(&ran4, s4);
    ST_OK(cuStreamSynchronize(s4));
    ck_assert_int_eq(atomic_load(&ran4), 1);
    st_sleep_ms(ST_BLOCK_MS);
    ck_assert_int_eq(atomic_load(&ran2), 0);
    st_gate_open(&g);
    ST_OK(cuStreamSynchronize(s2));
    ck_assert_int_eq(atomic_load(&ran2), 1);
}
END_TEST

/* An event recorded on the legacy stream completes only after prior work
 * of blocking streams. */
START_TEST(event_on_legacy_stream_covers_blocking_streams)
{
    st_init();
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_DEFAULT));
    CUevent e;
    ST_OK(cuEventCreate(&e, 0));
    st_gate g;
    st_gate_init(&g);
    st_gate_on(&g, s);
    ST_OK(cuEventRecord(e, NULL));
    st_sleep_ms(ST_BLOCK_MS);
    ST_EXPECT(CUDA_ERROR_NOT_READY, cuEventQuery(e));
    st_gate_open(&g);
    ST_OK(cuEventSynchronize(e));
}
END_TEST

/* ------------------------------------------------- host functions, callbacks */

typedef struct order {
    atomic_int n;
    int seen[8];
    CUstream stream_seen;
    CUresult status_seen;
} order;

typedef struct step {
    order *o;
    int id;
} step;

static void CUDA_CB record_step(void *p)
{
    step *s = p;
    s->o->seen[atomic_fetch_add(&s->o->n, 1)] = s->id;
}

static void CUDA_CB record_callback(CUstream h, CUresult status, void *p)
{
    step *s = p;
    s->o->stream_seen = h;
    s->o->status_seen = status;
    record_step(p);
}

START_TEST(host_functions_and_callbacks_in_order)
{
    st_init();
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    order o = {0};
    step a = {&o, 1}, b = {&o, 2}, c = {&o, 3};
    ST_OK(cuLaunchHostFunc(s, record_step, &a));
    ST_OK(cuStreamAddCallback(s, record_callback, &b, 0));
    ST_OK(cuLaunchHostFunc(s, record_step, &c));
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE, cuStreamAddCallback(s, record_callback, &b, 1));
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE, cuLaunchHostFunc(s, NULL, &b));
    ST_OK(cuStreamSynchronize(s));
    ck_assert_int_eq(atomic_load(&o.n), 3);
    ck_assert_int_eq(o.seen[0], 1);
    ck_assert_int_eq(o.seen[1], 2);
    ck_assert_int_eq(o.seen[2], 3);
    ck_assert_ptr_eq(o.stream_seen, s);
    ck_assert_int_eq(o.status_seen, CUDA_SUCCESS);
}
END_TEST

/* cuCtxSynchronize waits for every stream, non-blocking ones included. */
static void ctx_sync(void *arg)
{
    (void)arg;
    ST_OK(cuCtxSynchronize());
}

START_TEST(ctx_synchronize_waits_for_all_streams)
{
    st_init();
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    st_gate g;
    st_gate_init(&g);
    st_gate_on(&g, s);
    st_call c;
    st_call_start(&c, ctx_sync, NULL);
    ck_assert(!st_call_done_within(&c, ST_BLOCK_MS));
    st_gate_open(&g);
    ck_assert(st_call_done_within(&c, ST_RETURN_MS));
    st_call_join(&c);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("sim-streams");
    TCase *t = tcase_create("streams");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, legacy_waits_for_blocking_stream);
    tcase_add_test(t, legacy_ignores_non_blocking_stream);
    tcase_add_test(t, blocking_stream_waits_for_legacy);
    tcase_add_test(t, new_blocking_stream_waits_for_earlier_legacy_work);
    tcase_add_test(t, per_thread_streams_run_concurrently);
    tcase_add_test(t, per_thread_stream_orders_with_legacy);
    tcase_add_test(t, stream_handles);
    tcase_add_test(t, stream_properties);
    tcase_add_test(t, destroy_with_pending_work);
    tcase_add_test(t, ctx_synchronize_waits_for_all_streams);
    suite_add_tcase(s, t);
    t = tcase_create("events");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, event_query_and_synchronize);
    tcase_add_test(t, event_synchronize_blocks);
    tcase_add_test(t, event_elapsed_time);
    tcase_add_test(t, wait_event_across_streams);
    tcase_add_test(t, wait_event_uses_record_at_call_time);
    tcase_add_test(t, event_on_legacy_stream_covers_blocking_streams);
    tcase_add_test(t, host_functions_and_callbacks_in_order);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return st_run(suite());
}
