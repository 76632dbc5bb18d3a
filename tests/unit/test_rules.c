/* test_rules.c: every rule, redirect decision and interception policy of
 * the shim, driven through its real wrappers against a fake driver whose
 * stream and memory state each test sets.  Check runs each test in a fork,
 * so each starts from a fresh shim.
 */
#include "config.h"

#include <check.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "callsites.h"
#include "core.h"
#include "drain.h"
#include "fake_driver.h"
#include "findings.h"
#include "hb.h"
#include "real.h"
#include "report.h"
#include "settle.h"
#include "shim_report.h"
#include "thread.h"

/* Declared by cuda.h only in per-thread-default-stream builds. */
extern __typeof__(*(PFN_cuLaunchKernel_v7000_ptsz)0) cuLaunchKernel_ptsz;

/* -------------------------------------------------------- helpers --- */
struct sum { unsigned rule; int sev; uint64_t count, pending; unsigned entries; uint64_t cost; };

static void add_up(const sc_agg_key *k, const sc_agg_val *v, void *arg)
{
    struct sum *s = arg;
    if (k->rule != s->rule || (s->sev >= 0 && k->sev != s->sev))
        return;
    s->count += v->count;
    s->pending += v->pending;
    s->cost += v->cost_ns;
    s->entries++;
}

/* Events of rule (any severity when sev < 0) seen so far. */
/* A finding the shim holds until it sees what the thread does next
   (settle.c) is committed as at the end of a run. */
static void flush_held(void)
{
    if (sc_tls_self)
        sc_held_flush(sc_tls_self);
}

static uint64_t seen(unsigned rule, int sev)
{
    struct sum s = {rule, sev, 0, 0, 0, 0};
    flush_held();
    sc_aggs_foreach(SC_AGG_FINDING, add_up, &s);
    return s.count;
}

static uint64_t seen_pending(unsigned rule)
{
    struct sum s = {rule, -1, 0, 0, 0, 0};
    flush_held();
    sc_aggs_foreach(SC_AGG_FINDING, add_up, &s);
    return s.pending;
}

static uint64_t seen_cost(unsigned rule)
{
    struct sum s = {rule, -1, 0, 0, 0, 0};
    flush_held();
    sc_aggs_foreach(SC_AGG_FINDING, add_up, &s);
    return s.cost;
}

/* The report the shim would write now: count of rule in it. */
static uint64_t reported(unsigned rule, int sev, unsigned *entries)
{
    sc_report *r = sc_shim_build_report();
    uint64_t n = 0;
    unsigned e = 0;
    for (size_t i = 0; r && i < r->nfindings; i++)
        if (r->findings[i].rule == (sc_rule_id)rule && (sev < 0 || (int)r->findings[i].severity == sev)) {
            n += r->findings[i].count;
            e++;
        }
    if (entries)
        *entries = e;
    sc_report_free(r);
    return n;
}

static void setup(void)
{
    unsetenv("STREAMCHECK_PROFILE");
    unsetenv("STREAMCHECK_REDIRECT");
    unsetenv("STREAMCHECK_REDIRECT_METHOD");
    unsetenv("STREAMCHECK_DISABLE");
    unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
    setenv("STREAMCHECK_FORMAT", "json", 1);
    /* The GPU sampler's queries would count in the fake driver's. */
    setenv("STREAMCHECK_GPU_SAMPLE_US", "0", 1);
    fake_install();
}

static void teardown(void)
{
    /* No report from a test process. */
    atomic_store(&sc_g.mode, SC_MODE_DISABLED);
}

static CUresult launch(CUstream s)
{
    return cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL);
}

static CUresult launch_pt(CUstream s)
{
    return cuLaunchKernel_ptsz(NULL, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL);
}

static CUstream make_stream(unsigned flags)
{
    CUstream s = NULL;
    ck_assert_int_eq(cuStreamCreate(&s, flags), CUDA_SUCCESS);
    return s;
}

/* Events of rule on device dev. */
struct dsum { unsigned rule; int sev; int dev; uint64_t count, pending; };
static void add_up_dev(const sc_agg_key *k, const sc_agg_val *v, void *arg)
{
    struct dsum *s = arg;
    if (k->rule != s->rule || (s->sev >= 0 && k->sev != s->sev) || k->device != s->dev)
        return;
    s->count += v->count;
    s->pending += v->pending;
}

static uint64_t seen_on(unsigned rule, int sev, int dev)
{
    struct dsum s = {rule, sev, dev, 0, 0};
    flush_held();
    sc_aggs_foreach(SC_AGG_FINDING, add_up_dev, &s);
    return s.count;
}

/* ---------------------------------------------------------- SC101 --- */
START_TEST(sc101_note_when_alone)
{
    cuInit(0);
    launch(NULL);
    launch(NULL);
    ck_assert_uint_eq(seen(SC_RULE_SC101, SC_SEV_NOTE), 2);
    ck_assert_uint_eq(seen(SC_RULE_SC101, SC_SEV_WARNING), 0);
}
END_TEST

static void add_sampled(const sc_agg_key *k, const sc_agg_val *v, void *arg)
{
    if (k->rule == SC_RULE_SC101 && k->sev == SC_SEV_NOTE)
        *(uint64_t *)arg += v->sampled;
}

/* A one-stream program's notes: exact for a thread's first 256, then one
   in 64 counted for 64, and past 256 + 64 * 64 = 4352 one in 1024 counted
   for 1024 (notes.h).  20000 launches: 4352 + 15 * 1024 counted (the last
   288 wait for a sample that does not come). */
START_TEST(sc101_note_sites_sampled)
{
    cuInit(0);
    for (int i = 0; i < 20000; i++)
        launch(NULL);
    ck_assert_uint_eq(seen(SC_RULE_SC101, SC_SEV_NOTE), 4352 + 15 * 1024);
    uint64_t sampled = 0;
    sc_aggs_foreach(SC_AGG_FINDING, add_sampled, &sampled);
    ck_assert_uint_eq(sampled, 64 * 64 + 15 * 1024);
}
END_TEST

/* PyTorch: every launch on the legacy stream, 128 idle non-blocking pool
   streams beside it.  The notes are counted on the fast path; only the
   sampled ones (256 + 64 + 15 of 20000) take the slow path, each with one
   context lookup and no stream query; the counts are those of the slow
   path alone (sc101_note_sites_sampled). */
START_TEST(sc101_notes_of_pytorch_stay_on_the_fast_path)
{
    setenv("STREAMCHECK_PROFILE", "1", 1);
    cuInit(0);
    for (int i = 0; i < 128; i++)
        make_stream(CU_STREAM_NON_BLOCKING);
    int q0 = fake.queries, c0 = fake.ctx_queries;
    for (int i = 0; i < 20000; i++)
        launch(i % 2 ? NULL : CU_STREAM_LEGACY);
    ck_assert_int_eq(fake.launches, 20000);
    ck_assert_int_eq(fake.queries - q0, 0);
    ck_assert_int_eq(fake.ctx_queries - c0, 256 + 64 + 15);
    ck_assert_uint_eq(seen(SC_RULE_SC101, SC_SEV_NOTE), 4352 + 15 * 1024);
    ck_assert_uint_eq(seen(SC_RULE_SC101, SC_SEV_WARNING), 0);
    uint64_t sampled = 0;
    sc_aggs_foreach(SC_AGG_FINDING, add_sampled, &sampled);
    ck_assert_uint_eq(sampled, 64 * 64 + 15 * 1024);
    /* Waits on the legacy stream are no note: never the slow path. */
    for (int i = 0; i < 100; i++)
        cuStreamWaitEvent(NULL, NULL, 0);
    ck_assert_int_eq(fake.ctx_queries - c0, 256 + 64 + 15);
    /* The profile counts every call on the fast path, and the slow ones:
       cuInit, the 128 creations and the sampled notes. */
    sc_thread *t = sc_tls_self;
    ck_assert_uint_eq(t->prof[SC_PH_FAST].calls, 1 + 128 + 20000 + 100);
    ck_assert_uint_eq(t->prof[SC_PH_SLOW].calls, 1 + 128 + 256 + 64 + 15);
    ck_assert_uint_eq(t->prof[SC_PH_BUSY].items, 0);   /* no cuStreamQuery */
    ck_assert_uint_eq(t->prof[SC_PH_COUNT].calls, 0);  /* no stream-table walk */
    ck_assert_uint_gt(atomic_load(&t->own_ticks), 0);
}
END_TEST

/* The fast path keeps only notes: a blocking stream, a per-thread stream
   in use, makes every legacy launch exact again (a warning each). */
START_TEST(sc101_fast_notes_stop_when_the_legacy_stream_orders_others)
{
    cuInit(0);
    for (int i = 0; i < 1000; i++)
        launch(NULL);
    ck_assert_uint_eq(seen(SC_RULE_SC101, SC_SEV_NOTE), 256 + 11 * 64);   /* 960 of 1000: estimated */
    CUstream b = make_stream(0);
    for (int i = 0; i < 300; i++)
        launch(NULL);
    ck_assert_uint_eq(seen(SC_RULE_SC101, SC_SEV_WARNING), 300);
    ck_assert_int_eq(cuStreamDestroy(b), CUDA_SUCCESS);
    int c0 = fake.ctx_queries;
    for (int i = 0; i < 64; i++)    /* notes 961..1024: one sample (1024) */
        launch(NULL);
    ck_assert_int_eq(fake.ctx_queries - c0, 1);
    ck_assert_uint_eq(seen(SC_RULE_SC101, SC_SEV_NOTE), 256 + 12 * 64);
    launch_pt(NULL);                /* a per-thread stream is in use */
    for (int i = 0; i < 100; i++)
        launch(NULL);
    ck_assert_uint_eq(seen(SC_RULE_SC101, SC_SEV_WARNING), 400);
}
END_TEST

/* SC103 counts from the fast path's notes as from the slow path's: the
   sampled ones carry their weight, from both threads. */
static void *legacy_thread_1000(void *arg)
{
    (void)arg;
    for (int i = 0; i < 1000; i++)
        launch(NULL);
    return NULL;
}

START_TEST(sc103_counts_fast_notes)
{
    cuInit(0);
    make_stream(CU_STREAM_NON_BLOCKING);
    legacy_thread_1000(NULL);
    pthread_t t;
    pthread_create(&t, NULL, legacy_thread_1000, NULL);
    pthread_join(t, NULL);
    ck_assert_uint_eq(reported(SC_RULE_SC103, SC_SEV_WARNING, NULL), 2 * (256 + 11 * 64));
}
END_TEST

/* The legacy stream orders with blocking streams: legacy work is a barrier
   for them, and pending when one was busy. */
START_TEST(sc101_warning_with_another_stream)
{
    cuInit(0);
    CUstream s = make_stream(0);
    launch(s);
    fake.busy[0] = 1;
    launch(NULL);                /* legacy: s is busy ... */
    launch(s);                   /* ... and this work on s waits for it */
    fake.busy[0] = 0;
    launch(CU_STREAM_LEGACY);    /* legacy by name: s has drained */
    launch_pt(NULL);             /* per-thread stream: no finding */
    launch(CU_STREAM_PER_THREAD);
    launch(s);
    ck_assert_uint_eq(seen(SC_RULE_SC101, SC_SEV_WARNING), 2);
    ck_assert_uint_eq(seen(SC_RULE_SC101, SC_SEV_NOTE), 0);
    ck_assert_uint_eq(seen_pending(SC_RULE_SC101), 1);
}
END_TEST

/* A barrier that holds nothing back: the legacy-stream work joins the
   busy stream's, and the next thing the thread does is wait (a sum over
   every stream's output, then the result read back). */
START_TEST(sc101_join_before_a_wait_holds_nothing_back)
{
    cuInit(0);
    CUstream s = make_stream(0);
    launch(s);
    fake.busy[0] = 1;
    launch(NULL);                /* the join */
    cuCtxSynchronize();          /* the host waits: nothing was held back */
    fake.busy[0] = 0;
    ck_assert_uint_eq(seen(SC_RULE_SC101, SC_SEV_WARNING), 1);
    ck_assert_uint_eq(seen_pending(SC_RULE_SC101), 0);
}
END_TEST

START_TEST(rejected_call_is_no_finding)
{
    cuInit(0);
    make_stream(CU_STREAM_NON_BLOCKING);
    fake.fail_next = 1;
    ck_assert_int_eq(launch(NULL), CUDA_ERROR_INVALID_VALUE);   /* the real result comes back */
    ck_assert_uint_eq(seen(SC_RULE_SC101, -1), 0);
    launch(NULL);
    ck_assert_uint_eq(seen(SC_RULE_SC101, -1), 1);
}
END_TEST

/* ... not with non-blocking ones (PyTorch's pool streams): a note, whether
   they are busy or not. */
START_TEST(sc101_non_blocking_streams_do_not_count)
{
    cuInit(0);
    CUstream s = make_stream(CU_STREAM_NON_BLOCKING);
    launch(s);
    fake.busy[0] = 1;
    launch(NULL);
    fake.busy[0] = 0;
    ck_assert_uint_eq(seen(SC_RULE_SC101, SC_SEV_WARNING), 0);
    ck_assert_uint_eq(seen(SC_RULE_SC101, SC_SEV_NOTE), 1);
    ck_assert_uint_eq(seen_pending(SC_RULE_SC101), 0);
}
END_TEST

/* ---------------------------------------------------------- SC102 --- */
START_TEST(sc102_blocking_stream_counts_legacy_commands)
{
    cuInit(0);
    CUstream s = make_stream(0);    /* blocking */
    launch(s);
    fake.busy[0] = 1;
    launch(NULL);
    fake.busy[0] = 0;
    cuMemsetD8(0x1000, 0, 16);      /* a legacy memset counts too */
    ck_assert_uint_eq(seen(SC_RULE_SC102, SC_SEV_NOTE), 2);   /* the barrier is the call's finding */
    ck_assert_uint_eq(seen_pending(SC_RULE_SC102), 1);
    make_stream(CU_STREAM_NON_BLOCKING);
    launch(NULL);                   /* the non-blocking one does not */
    ck_assert_uint_eq(seen(SC_RULE_SC102, -1), 3);
}
END_TEST

/* ---------------------------------------------------------- SC103 --- */
static void *legacy_thread(void *arg)
{
    (void)arg;
    launch(NULL);
    launch(NULL);
    return NULL;
}

/* Two threads that submit while neither waits for the other, as far as
   the order tracker can see: they take turns through an atomic counter
   (which the tracker does not follow; the fake driver is not thread-safe,
   so its calls must not overlap). */
static _Atomic int racers_at;
static void *racer(void *arg)
{
    int me = (int)(long)arg;
    for (int k = 0; k < 2; k++) {
        while (atomic_load(&racers_at) != 2 * k + me)
            sched_yield();
        launch(NULL);
        atomic_fetch_add(&racers_at, 1);
    }
    return NULL;
}

START_TEST(sc103_only_for_threads_that_race)
{
    /* This program holds the shim's code: follow its own pthread calls. */
    sc_hb_test_follow_all(1);
    cuInit(0);
    legacy_thread(NULL);
    ck_assert_uint_eq(reported(SC_RULE_SC103, -1, NULL), 0);
    /* Taking turns: a thread created after the main thread's work and
       joined before its next shares the legacy stream with nobody. */
    pthread_t t, u;
    pthread_create(&t, NULL, legacy_thread, NULL);
    pthread_join(t, NULL);
    legacy_thread(NULL);
    ck_assert_uint_eq(reported(SC_RULE_SC103, -1, NULL), 0);
    /* Racing: every legacy submission of both racers, none of the main
       thread's (it created them after its work and joins them). */
    pthread_create(&t, NULL, racer, (void *)0L);
    pthread_create(&u, NULL, racer, (void *)1L);
    pthread_join(t, NULL);
    pthread_join(u, NULL);
    ck_assert_uint_eq(reported(SC_RULE_SC103, SC_SEV_WARNING, NULL), 4);
}
END_TEST

/* ---------------------------------------------------------- SC201 --- */
START_TEST(sc201_blocking_copies_and_the_small_pageable_exception)
{
    cuInit(0);
    static char pageable[1 << 20];
    void *pinned = NULL;
    CUdeviceptr d = 0;
    cuMemAlloc(&d, 1 << 20);
    cuMemHostAlloc(&pinned, 1 << 20, 0);
    cuMemcpyHtoD(d, pinned, 1 << 20);       /* pinned: synchronous */
    cuMemcpyHtoD(d, pageable, 65536);       /* pageable <= 64 KiB: returns once staged */
    cuMemcpyHtoD(d, pageable, 65537);       /* pageable, larger: blocks */
    cuMemcpyDtoH(pageable, d, 16);          /* device to host: always blocks */
    cuMemcpyDtoD(d, d, 16);                 /* device to device: never blocks (SC204 instead) */
    ck_assert_uint_eq(seen(SC_RULE_SC201, SC_SEV_WARNING), 3);
}
END_TEST

/* A synchronous copy that blocked the host while another stream worked
   cost that time only if the host had more work to submit after it. */
START_TEST(sc201_costs_only_when_work_follows)
{
    cuInit(0);
    static char host[4096];
    CUstream s = make_stream(CU_STREAM_NON_BLOCKING);
    CUdeviceptr d = 0;
    cuMemAlloc(&d, 4096);
    launch(s);
    fake.busy[0] = 1;
    cuMemcpyDtoH(host, d, 16);   /* the final read: the host waits next */
    cuCtxSynchronize();
    fake.busy[0] = 0;
    ck_assert_uint_eq(seen(SC_RULE_SC201, SC_SEV_WARNING), 1);
    ck_assert_uint_eq(seen_cost(SC_RULE_SC201), 0);
    launch(s);
    fake.busy[0] = 1;
    cuMemcpyDtoH(host, d, 16);   /* in a loop: the next step's work waited */
    launch(s);
    fake.busy[0] = 0;
    ck_assert_uint_eq(seen(SC_RULE_SC201, SC_SEV_WARNING), 2);
    ck_assert_uint_gt(seen_cost(SC_RULE_SC201), 0);
}
END_TEST

/* ---------------------------------------------------------- SC202 --- */
START_TEST(sc202_memset_on_the_legacy_stream)
{
    cuInit(0);
    CUdeviceptr d = 0;
    cuMemAlloc(&d, 4096);
    cuMemsetD8(d, 0, 4096);                 /* no other stream: no barrier to speak of */
    ck_assert_uint_eq(seen(SC_RULE_SC202, -1), 0);
    make_stream(CU_STREAM_NON_BLOCKING);
    cuMemsetD8(d, 0, 4096);                 /* the legacy stream does not order with it */
    ck_assert_uint_eq(seen(SC_RULE_SC202, -1), 0);
    CUstream s = make_stream(0);
    cuMemsetD8(d, 0, 4096);
    cuMemsetD8Async(d, 0, 4096, NULL);
    cuMemsetD8Async(d, 0, 4096, s);         /* on its own stream: fine */
    ck_assert_uint_eq(seen(SC_RULE_SC202, SC_SEV_WARNING), 2);
    ck_assert_uint_eq(seen(SC_RULE_SC101, -1), 0);   /* SC202 replaces SC101 for memsets */
}
END_TEST

/* ---------------------------------------------------------- SC203 --- */
START_TEST(sc203_classifies_pinned_and_pageable_exactly)
{
    cuInit(0);
    static char pageable[4096], registered[8192];
    void *pinned = NULL;
    CUdeviceptr d = 0;
    cuMemAlloc(&d, 8192);
    cuMemHostAlloc(&pinned, 8192, 0);
    CUstream s = make_stream(CU_STREAM_NON_BLOCKING);
    cuMemcpyHtoDAsync(d, pageable, 4096, s);
    cuMemcpyDtoHAsync(pageable, d, 4096, s);
    cuMemcpyHtoDAsync(d, pinned, 4096, s);
    cuMemcpyHtoDAsync(d, (char *)pinned + 4096, 4096, s);
    /* Pinned where the shim could not see it: the driver says so. */
    fake.registered = registered;
    fake.registered_len = sizeof registered;
    cuMemcpyHtoDAsync(d, registered + 100, 100, s);
    cuMemcpyDtoHAsync(registered, d, 8192, s);
    ck_assert_uint_eq(seen(SC_RULE_SC203, SC_SEV_WARNING), 2);
    /* A copy that runs past the end of a pinned block is not pinned. */
    cuMemcpyHtoDAsync(d, (char *)pinned + 4096, 8192, s);
    ck_assert_uint_eq(seen(SC_RULE_SC203, -1), 3);
}
END_TEST

START_TEST(pinned_memory_freed_becomes_pageable)
{
    cuInit(0);
    void *pinned = NULL;
    CUdeviceptr d = 0;
    cuMemAlloc(&d, 4096);
    cuMemHostAlloc(&pinned, 4096, 0);
    CUstream s = make_stream(CU_STREAM_NON_BLOCKING);
    cuMemcpyHtoDAsync(d, pinned, 4096, s);
    ck_assert_uint_eq(seen(SC_RULE_SC203, -1), 0);
    static char buf[4096];
    cuMemHostRegister(buf, sizeof buf, 0);
    cuMemcpyHtoDAsync(d, buf, 4096, s);
    ck_assert_uint_eq(seen(SC_RULE_SC203, -1), 0);
    cuMemHostUnregister(buf);
    cuMemcpyHtoDAsync(d, buf, 4096, s);
    ck_assert_uint_eq(seen(SC_RULE_SC203, -1), 1);
}
END_TEST

/* The shim's own waits before pageable copies (drain.c): on a sample of
   each direction and size class, never for a stream it saw drain. */
static int shim_syncs;
static CUresult counting_sync(CUstream s)
{
    (void)s;
    shim_syncs++;
    return CUDA_SUCCESS;
}

START_TEST(sc203_waits_for_the_stream_on_a_sample)
{
    cuInit(0);
    sc_d.StreamSynchronize = counting_sync;
    static char small[4096], large[1 << 20];
    CUstream s = make_stream(CU_STREAM_NON_BLOCKING);
    launch(s);
    for (int i = 0; i < 100; i++)    /* the first 8, then the 32nd, 64th and 96th */
        cuMemcpyHtoDAsync((CUdeviceptr)0x1000, small, sizeof small, s);
    ck_assert_int_eq(shim_syncs, 8 + 3);
    for (int i = 0; i < 20; i++)     /* another size class: its own first 8 */
        cuMemcpyHtoDAsync((CUdeviceptr)0x1000, large, sizeof large, s);
    ck_assert_int_eq(shim_syncs, 8 + 3 + 8);
    for (int i = 0; i < 10; i++)     /* the other direction: its own too */
        cuMemcpyDtoHAsync(small, (CUdeviceptr)0x1000, sizeof small, s);
    ck_assert_int_eq(shim_syncs, 8 + 3 + 8 + 8);
    cuStreamSynchronize(s);          /* the program waits: the stream is idle */
    cuMemcpyHtoDAsync((CUdeviceptr)0x1000, small, sizeof small, s);
    ck_assert_int_eq(shim_syncs, 8 + 3 + 8 + 8);
    for (int i = 0; i < 28; i++)     /* busy again: the class's 101st to 128th, which waits */
        cuMemcpyHtoDAsync((CUdeviceptr)0x1000, small, sizeof small, s);
    ck_assert_int_eq(shim_syncs, 8 + 3 + 8 + 8 + 1);
    /* The last read back, then the wait for it, is a deliberate read (settle.c). */
    ck_assert_uint_eq(seen(SC_RULE_SC203, SC_SEV_WARNING), 100 + 20 + 9 + 1 + 28);
}
END_TEST

START_TEST(sc203_never_waits_when_ablated)
{
    setenv("STREAMCHECK_TEST_ABLATE", "drain", 1);
    cuInit(0);
    sc_d.StreamSynchronize = counting_sync;
    static char small[4096];
    CUstream s = make_stream(CU_STREAM_NON_BLOCKING);
    launch(s);
    for (int i = 0; i < 20; i++)
        cuMemcpyHtoDAsync((CUdeviceptr)0x1000, small, sizeof small, s);
    ck_assert_int_eq(shim_syncs, 0);
    ck_assert_uint_eq(seen(SC_RULE_SC203, SC_SEV_WARNING), 20);
}
END_TEST

/* A copy that did not wait first: its copy is its bytes at the rate of
   its class's copies that did, the rest of its time the wait. */
START_TEST(sc203_split_by_the_sampled_rate)
{
    sc_op exact = {.dir = SC_DIR_H2D, .bytes = 1 << 20, .marks = SC_M_SPLIT};
    ck_assert_uint_eq(sc_drain_after(&exact, 100000), 100000);
    ck_assert_uint_eq(sc_drain_after(&exact, 300000), 300000);   /* 2 MiB in 400 us so far */
    sc_op est = {.dir = SC_DIR_H2D, .bytes = 3 << 19, .marks = SC_M_SPLIT | SC_M_SPLIT_EST};
    ck_assert_uint_eq(sc_drain_after(&est, 1000000), 300000);
    ck_assert_uint_eq(est.drain_ns, 700000);
    est.drain_ns = 0;
    ck_assert_uint_eq(sc_drain_after(&est, 250000), 250000);    /* never more than the call */
    ck_assert_uint_eq(est.drain_ns, 0);
    sc_op other = {.dir = SC_DIR_D2H, .bytes = 3 << 19, .marks = SC_M_SPLIT | SC_M_SPLIT_EST};
    ck_assert_uint_eq(sc_drain_after(&other, 1000000), 1000000); /* nothing learned that way */
    ck_assert_uint_eq(other.drain_ns, 0);
}
END_TEST

/* ---------------------------------------------------------- SC204 --- */
START_TEST(sc204_device_to_device_through_the_sync_api)
{
    cuInit(0);
    CUdeviceptr a = 0, b = 0;
    cuMemAlloc(&a, 64);
    cuMemAlloc(&b, 64);
    cuMemcpyDtoD(b, a, 64);
    ck_assert_uint_eq(seen(SC_RULE_SC204, -1), 0);   /* no other stream */
    make_stream(CU_STREAM_NON_BLOCKING);
    cuMemcpyDtoD(b, a, 64);
    ck_assert_uint_eq(seen(SC_RULE_SC204, -1), 0);   /* one the legacy stream does not order with */
    make_stream(0);
    cuMemcpyDtoD(b, a, 64);
    cuMemcpy(b, a, 64);                              /* unified: both ends are device memory */
    ck_assert_uint_eq(seen(SC_RULE_SC204, SC_SEV_WARNING), 2);
}
END_TEST

/* ---------------------------------------------------- SC301 SC302 --- */
/* ------------------------------------------------------ per device --- */
/* A blocking stream of device 1, busy: device 0's legacy stream does not
   order with it (each device has its own), device 1's does. */
START_TEST(legacy_rules_per_device)
{
    cuInit(0);
    fake.device = 1;
    CUstream s1 = make_stream(0);
    launch(s1);
    fake.busy[0] = 1;
    fake.device = 0;
    launch(NULL);                        /* device 0: only its own streams count */
    CUdeviceptr d = 0;
    cuMemAlloc(&d, 64);                  /* device 0 synchronizes: nothing of its own busy */
    fake.device = 1;
    launch(NULL);                        /* device 1: s1 is busy */
    cuMemAlloc(&d, 64);
    ck_assert_uint_eq(seen_on(SC_RULE_SC101, SC_SEV_NOTE, 0), 1);
    ck_assert_uint_eq(seen_on(SC_RULE_SC101, SC_SEV_WARNING, 0), 0);
    ck_assert_uint_eq(seen_on(SC_RULE_SC101, SC_SEV_WARNING, 1), 1);
    ck_assert_uint_eq(seen_on(SC_RULE_SC301, -1, 0), 0);
    ck_assert_uint_eq(seen_on(SC_RULE_SC301, SC_SEV_WARNING, 1), 1);
    /* SC102 counts device 1's legacy work only, at s1's creation. */
    ck_assert_uint_eq(seen(SC_RULE_SC102, -1), 1);
    ck_assert_uint_eq(seen_on(SC_RULE_SC102, -1, 1), 1);
    /* The report lists both devices, and each finding its own. */
    sc_report *r = sc_shim_build_report();
    ck_assert_ptr_nonnull(r);
    ck_assert_uint_eq(r->procs[0].ndevices, 2);
    ck_assert_int_eq(r->procs[0].devices[0].ordinal, 0);
    ck_assert_int_eq(r->procs[0].devices[1].ordinal, 1);
    for (size_t i = 0; i < r->nfindings; i++)
        if (r->findings[i].rule == SC_RULE_SC301)
            ck_assert_int_eq(r->findings[i].device, 1);
    sc_report_free(r);
}
END_TEST

/* The hardware queues are each device's: eight busy streams on each of two
   devices are not nine on one. */
START_TEST(sc701_counts_per_device)
{
    cuInit(0);
    for (int dev = 0; dev < 2; dev++) {
        fake.device = dev;
        for (int i = 0; i < 8; i++) {
            CUstream s = make_stream(CU_STREAM_NON_BLOCKING);
            launch(s);
            fake.busy[fake.nstreams - 1] = 1;
        }
    }
    ck_assert_uint_eq(seen(SC_RULE_SC701, -1), 0);
    CUstream s = make_stream(CU_STREAM_NON_BLOCKING);   /* a ninth on device 1 */
    launch(s);
    ck_assert_uint_eq(seen_on(SC_RULE_SC701, -1, 1), 1);
}
END_TEST

START_TEST(sc301_only_while_work_is_pending)
{
    cuInit(0);
    CUstream s = make_stream(CU_STREAM_NON_BLOCKING);
    CUdeviceptr d = 0;
    cuMemAlloc(&d, 64);                  /* nothing submitted yet */
    launch(s);
    fake.busy[0] = 1;
    CUdeviceptr e = 0;
    cuMemAlloc(&e, 64);
    fake.busy[0] = 0;
    cuMemFree(e);                        /* s has drained */
    ck_assert_uint_eq(seen(SC_RULE_SC301, SC_SEV_WARNING), 1);
    ck_assert_uint_eq(seen_pending(SC_RULE_SC301), 1);
}
END_TEST

START_TEST(sc302_pinned_alloc_while_work_is_pending)
{
    cuInit(0);
    CUstream s = make_stream(CU_STREAM_NON_BLOCKING);
    launch(s);
    fake.busy[0] = 1;
    void *p = NULL;
    static char buf[4096];
    cuMemHostAlloc(&p, 64, 0);
    cuMemHostRegister(buf, sizeof buf, 0);
    cuMemHostUnregister(buf);
    cuMemFreeHost(p);
    ck_assert_uint_eq(seen(SC_RULE_SC302, SC_SEV_WARNING), 4);
    ck_assert_uint_eq(seen(SC_RULE_SC301, -1), 0);
}
END_TEST

/* ---------------------------------------------------------- SC303 --- */
static void alloc_free(int n)
{
    for (int i = 0; i < n; i++) {
        CUdeviceptr d = 0;
        cuMemAlloc(&d, 64);
        cuMemFree(d);
    }
}

START_TEST(sc303_alloc_in_loop_at_the_threshold)
{
    cuInit(0);
    for (int round = 0; round < 2; round++) {
        alloc_free(round ? 1 : 9);      /* one call site for both rounds */
        if (!round)
            ck_assert_uint_eq(reported(SC_RULE_SC303, -1, NULL), 0);
    }
    unsigned entries = 0;
    /* Ten at each of two call sites: the alloc and the free. */
    ck_assert_uint_eq(reported(SC_RULE_SC303, SC_SEV_WARNING, &entries), 20);
    ck_assert_uint_eq(entries, 2);
}
END_TEST

/* ---------------------------------------------------- SC401 SC402 --- */
START_TEST(sc401_severity_follows_the_busy_streams)
{
    cuInit(0);
    CUstream s = make_stream(CU_STREAM_NON_BLOCKING), t = make_stream(CU_STREAM_NON_BLOCKING);
    launch(s);
    fake.busy[0] = 1;
    cuCtxSynchronize();                  /* one stream busy: a stream sync would do */
    ck_assert_uint_eq(seen(SC_RULE_SC401, SC_SEV_WARNING), 1);
    launch(s);
    launch(t);
    fake.busy[1] = 1;
    cuCtxSynchronize();                  /* two busy: a note */
    ck_assert_uint_eq(seen(SC_RULE_SC401, SC_SEV_NOTE), 1);
    cuCtxSynchronize();                  /* marks cleared by the last sync: nothing pending */
    ck_assert_uint_eq(seen(SC_RULE_SC402, SC_SEV_NOTE), 1);
}
END_TEST

START_TEST(sc401_frequent_becomes_a_warning)
{
    setenv("STREAMCHECK_SYNC_FREQUENT", "5", 1);
    cuInit(0);
    CUstream s = make_stream(CU_STREAM_NON_BLOCKING), t = make_stream(CU_STREAM_NON_BLOCKING);
    fake.busy[0] = fake.busy[1] = 1;
    for (int i = 0; i < 5; i++) {
        launch(s);
        launch(t);
        cuCtxSynchronize();
    }
    unsetenv("STREAMCHECK_SYNC_FREQUENT");
    ck_assert_uint_eq(seen(SC_RULE_SC401, SC_SEV_NOTE), 5);
    ck_assert_uint_eq(reported(SC_RULE_SC401, SC_SEV_WARNING, NULL), 5);
    ck_assert_uint_eq(reported(SC_RULE_SC401, SC_SEV_NOTE, NULL), 0);
}
END_TEST

START_TEST(sc402_redundant_stream_and_event_syncs)
{
    cuInit(0);
    CUstream s = make_stream(CU_STREAM_NON_BLOCKING);
    cuStreamSynchronize(s);              /* nothing ever submitted */
    launch(s);
    fake.busy[0] = 1;
    cuStreamSynchronize(s);              /* busy: fine */
    fake.busy[0] = 0;
    cuStreamSynchronize(s);              /* the last sync cleared it */
    CUevent e = (CUevent)(uintptr_t)0xe1;
    fake.event_done = 0;
    cuEventSynchronize(e);
    fake.event_done = 1;
    cuEventSynchronize(e);
    ck_assert_uint_eq(seen(SC_RULE_SC402, SC_SEV_NOTE), 3);
}
END_TEST

/* ---------------------------------------------------------- SC501 --- */
START_TEST(sc501_cache_config_while_busy)
{
    cuInit(0);
    CUstream s = make_stream(0);
    cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_SHARED);
    launch(s);
    fake.busy[0] = 1;
    cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_L1);
    ck_assert_uint_eq(seen(SC_RULE_SC501, SC_SEV_WARNING), 1);
}
END_TEST

/* ---------------------------------------------------------- SC701 --- */
/* Ten non-blocking streams (two past the 8 queues), a kernel each, left busy. */
static void ten_busy_streams(CUstream s[10])
{
    cuInit(0);
    for (int i = 0; i < 10; i++)
        s[i] = make_stream(CU_STREAM_NON_BLOCKING);
    for (int i = 0; i < 10; i++) {
        launch(s[i]);
        fake.busy[i] = 1;
    }
}

START_TEST(sc701_more_busy_streams_than_queues)
{
    CUstream s[10];
    ten_busy_streams(s);
    ck_assert_uint_eq(seen(SC_RULE_SC701, SC_SEV_WARNING), 2);
    ck_assert_uint_eq(seen_pending(SC_RULE_SC701), 2);   /* the count alone, without the depth hook */
    /* Busy marks that turn out idle do not count. */
    for (int i = 0; i < 10; i++)
        fake.busy[i] = 0;
    cuCtxSynchronize();
    for (int i = 0; i < 9; i++) {
        launch(s[i]);
        fake.busy[i] = i < 4;
    }
    ck_assert_uint_eq(seen(SC_RULE_SC701, -1), 2);
}
END_TEST

/* A stream turning busy past the queues is an SC701 that says nothing yet
   (pending 0); a second submission to it while it still has work, past
   the queues, is the one that waits behind another stream's (pending 1),
   once.  One kernel a stream (testapps/queue_limit) gets none.  Behind the
   test hook STREAMCHECK_TEST_QUEUE_DEPTH=1 (this test runs in a process of
   its own, as the others). */
START_TEST(sc701_behind_its_own_work)
{
    setenv("STREAMCHECK_TEST_QUEUE_DEPTH", "1", 1);
    CUstream s[10];
    ten_busy_streams(s);
    ck_assert_uint_eq(seen(SC_RULE_SC701, -1), 2);
    ck_assert_uint_eq(seen_pending(SC_RULE_SC701), 0);
    launch(s[9]);                       /* behind its own kernel, 10 streams busy */
    ck_assert_uint_eq(seen(SC_RULE_SC701, -1), 3);
    ck_assert_uint_eq(seen_pending(SC_RULE_SC701), 1);
    launch(s[9]);                       /* looked at once */
    launch(s[3]);                       /* never past the queues when it turned busy */
    ck_assert_uint_eq(seen(SC_RULE_SC701, -1), 3);
    fake.busy[8] = 0;                   /* its kernel done: busy again, not behind */
    launch(s[8]);
    ck_assert_uint_eq(seen(SC_RULE_SC701, -1), 4);
    ck_assert_uint_eq(seen_pending(SC_RULE_SC701), 1);
}
END_TEST

START_TEST(sc701_respects_max_connections)
{
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "12", 1);
    cuInit(0);
    for (int i = 0; i < 10; i++) {
        launch(make_stream(CU_STREAM_NON_BLOCKING));
        fake.busy[i] = 1;
    }
    ck_assert_uint_eq(seen(SC_RULE_SC701, -1), 0);
}
END_TEST

/* ---------------------------------------------------------- SC702 --- */
START_TEST(sc702_both_directions_on_one_engine)
{
    fake.async_engines = 1;
    cuInit(0);
    void *h = NULL;
    CUdeviceptr d = 0;
    cuMemAlloc(&d, 4096);
    cuMemHostAlloc(&h, 4096, 0);
    CUstream up = make_stream(CU_STREAM_NON_BLOCKING), down = make_stream(CU_STREAM_NON_BLOCKING);
    cuMemcpyHtoDAsync(d, h, 4096, up);
    fake.busy[0] = 1;
    cuMemcpyDtoHAsync(h, d, 4096, down);
    cuMemcpyDtoHAsync(h, d, 4096, down);
    ck_assert_uint_eq(seen(SC_RULE_SC702, SC_SEV_WARNING), 2);
}
END_TEST

START_TEST(sc702_not_with_two_engines)
{
    cuInit(0);
    void *h = NULL;
    CUdeviceptr d = 0;
    cuMemAlloc(&d, 4096);
    cuMemHostAlloc(&h, 4096, 0);
    CUstream up = make_stream(CU_STREAM_NON_BLOCKING), down = make_stream(CU_STREAM_NON_BLOCKING);
    cuMemcpyHtoDAsync(d, h, 4096, up);
    fake.busy[0] = 1;
    cuMemcpyDtoHAsync(h, d, 4096, down);
    ck_assert_uint_eq(seen(SC_RULE_SC702, -1), 0);
}
END_TEST

/* --------------------------------------------------------- redirect --- */
START_TEST(redirect_calls_the_per_thread_entry_point)
{
    setenv("STREAMCHECK_REDIRECT", "per-thread", 1);
    setenv("STREAMCHECK_REDIRECT_METHOD", "entry", 1);
    cuInit(0);
    make_stream(CU_STREAM_NON_BLOCKING);
    launch(NULL);
    ck_assert_int_eq(fake.launches_pt, 1);
    ck_assert_ptr_eq(fake.last_launch_stream, NULL);
    cuMemcpyHtoD(0x1000, "x", 1);               /* synchronous copies move to _ptds */
    ck_assert_int_eq(fake.sync_pt, 1);
    cuStreamSynchronize(NULL);                 /* and so does waiting on stream 0 */
    ck_assert_int_eq(fake.sync_pt, 2);
    launch(CU_STREAM_LEGACY);                  /* named explicitly: left alone */
    ck_assert_int_eq(fake.launches_pt, 1);
    ck_assert_ptr_eq(fake.last_launch_stream, CU_STREAM_LEGACY);
}
END_TEST

START_TEST(redirect_by_handle)
{
    setenv("STREAMCHECK_REDIRECT", "per-thread", 1);
    setenv("STREAMCHECK_REDIRECT_METHOD", "handle", 1);
    cuInit(0);
    launch(NULL);
    ck_assert_int_eq(fake.launches_pt, 0);
    ck_assert_ptr_eq(fake.last_launch_stream, CU_STREAM_PER_THREAD);
}
END_TEST

/* --redirect-method=stream: a blocking stream of the thread's own, made
   once; handles and cuLaunchKernelEx's config rewritten (the caller's copy
   untouched); synchronous copies through the per-thread entry point,
   ordered after the own stream and before its next work by an event. */
static void *launch_twice(void *arg)
{
    CUstream *seen_here = arg;
    launch(NULL);
    seen_here[0] = fake.last_launch_stream;
    launch(NULL);
    seen_here[1] = fake.last_launch_stream;
    return NULL;
}

START_TEST(redirect_to_own_stream)
{
    setenv("STREAMCHECK_REDIRECT", "per-thread", 1);   /* the default method: stream */
    cuInit(0);
    launch(NULL);
    ck_assert_int_eq(fake.own_streams, 1);
    CUstream own = fake.last_launch_stream;
    ck_assert_ptr_eq(own, fake_stream(0));
    ck_assert_uint_eq(fake.flags[0], CU_STREAM_DEFAULT);       /* blocking, like the per-thread stream */
    launch(NULL);                                               /* the same one, and still redirected: */
    ck_assert_ptr_eq(fake.last_launch_stream, own);             /* our stream is not the program's */
    ck_assert_int_eq(fake.own_streams, 1);
    ck_assert_int_eq(fake.launches_pt, 0);

    CUlaunchConfig cfg = {.gridDimX = 1, .gridDimY = 1, .gridDimZ = 1, .blockDimX = 1,
                          .blockDimY = 1, .blockDimZ = 1, .hStream = NULL};
    ck_assert_int_eq(cuLaunchKernelEx(&cfg, NULL, NULL, NULL), CUDA_SUCCESS);
    ck_assert_ptr_eq(fake.last_launch_stream, own);
    ck_assert_ptr_null(cfg.hStream);

    cuStreamSynchronize(NULL);
    ck_assert_ptr_eq(fake.last_sync_stream, own);

    /* A synchronous copy goes to the per-thread stream.  Both streams idle:
       nothing else is queued (a query after it must find them idle, as
       without redirect). */
    fake.nlog = 0;
    cuMemcpyHtoD(0x1000, "x", 1);
    ck_assert_int_eq(fake.sync_pt, 1);
    ck_assert_int_eq(fake.nlog, 1);
    ck_assert(fake.log[0].op == 'c');
    /* With unfinished work on them: after the own stream's work, and
       before its next, a record and a wait each way through its event. */
    ck_assert_ptr_eq(fake_stream(0), own);
    fake.busy[0] = fake.ptds_busy = 1;
    fake.nlog = 0;
    cuMemcpyHtoD(0x1000, "x", 1);
    ck_assert_int_eq(fake.sync_pt, 2);
    ck_assert_int_eq(fake.nlog, 5);
    CUevent e = fake.log[0].event;
    ck_assert(fake.log[0].op == 'r' && fake.log[0].stream == own);
    ck_assert(fake.log[1].op == 'w' && fake.log[1].stream == CU_STREAM_PER_THREAD && fake.log[1].event == e);
    ck_assert(fake.log[2].op == 'c');
    ck_assert(fake.log[3].op == 'r' && fake.log[3].stream == CU_STREAM_PER_THREAD && fake.log[3].event == e);
    ck_assert(fake.log[4].op == 'w' && fake.log[4].stream == own && fake.log[4].event == e);
    fake.busy[0] = fake.ptds_busy = 0;

    /* Another thread gets a stream of its own; a thread that takes its
       place after it exits reuses that one. */
    CUstream a[2], b[2];
    pthread_t th;
    pthread_create(&th, NULL, launch_twice, a);
    pthread_join(th, NULL);
    ck_assert_ptr_eq(a[0], a[1]);
    ck_assert_ptr_ne(a[0], own);
    ck_assert_int_eq(fake.own_streams, 2);
    pthread_create(&th, NULL, launch_twice, b);
    pthread_join(th, NULL);
    ck_assert_ptr_eq(b[0], a[0]);
    ck_assert_int_eq(fake.own_streams, 2);

    /* Work the thread sends to its per-thread stream itself stays in order
       with the redirected work, both ways. */
    fake.busy[0] = fake.ptds_busy = 1;
    fake.nlog = 0;
    launch_pt(NULL);
    ck_assert_int_eq(fake.launches_pt, 1);
    ck_assert_int_eq(fake.nlog, 4);
    ck_assert(fake.log[0].op == 'r' && fake.log[0].stream == own);
    ck_assert(fake.log[1].op == 'w' && fake.log[1].stream == CU_STREAM_PER_THREAD);
    ck_assert(fake.log[2].op == 'r' && fake.log[2].stream == CU_STREAM_PER_THREAD);
    ck_assert(fake.log[3].op == 'w' && fake.log[3].stream == own);
    /* Idle streams need no order; an event record on the per-thread stream
       follows the own stream's work but orders nothing after it. */
    fake.busy[0] = fake.ptds_busy = 0;
    fake.nlog = 0;
    launch_pt(NULL);
    ck_assert_int_eq(fake.launches_pt, 2);
    ck_assert_int_eq(fake.nlog, 0);
    fake.busy[0] = fake.ptds_busy = 1;
    CUevent mine = (CUevent)(uintptr_t)0xe7e7;
    fake.nlog = 0;
    ck_assert_int_eq(cuEventRecord(mine, CU_STREAM_PER_THREAD), CUDA_SUCCESS);
    ck_assert_int_ge(fake.nlog, 2);
    ck_assert(fake.log[0].op == 'r' && fake.log[0].stream == own);
    ck_assert(fake.log[1].op == 'w' && fake.log[1].stream == CU_STREAM_PER_THREAD);
    for (int i = 2; i < fake.nlog; i++)
        ck_assert(fake.log[i].stream != own);
    fake.busy[0] = fake.ptds_busy = 0;

    /* A reset destroys the context's streams: a new one is made. */
    ck_assert_int_eq(cuDevicePrimaryCtxReset_v2(0), CUDA_SUCCESS);
    launch(NULL);
    ck_assert_int_eq(fake.own_streams, 3);
    ck_assert_ptr_eq(fake.last_launch_stream, fake_stream(2));
    /* A release that leaves the primary context retained changes nothing;
       the last one ends it. */
    fake.primary_active = 1;
    ck_assert_int_eq(cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
    launch(NULL);
    ck_assert_int_eq(fake.own_streams, 3);
    fake.primary_active = 0;
    ck_assert_int_eq(cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
    launch(NULL);
    ck_assert_int_eq(fake.own_streams, 4);
}
END_TEST

START_TEST(redirect_refuses_with_blocking_streams_or_capture)
{
    setenv("STREAMCHECK_REDIRECT", "per-thread", 1);
    setenv("STREAMCHECK_REDIRECT_METHOD", "entry", 1);
    cuInit(0);
    CUstream s = make_stream(CU_STREAM_NON_BLOCKING);
    ck_assert_int_eq(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
    launch(s);                                 /* captured: no marks, no findings */
    launch(NULL);
    ck_assert_int_eq(fake.launches_pt, 0);     /* never during a capture */
    CUgraph g;
    cuStreamEndCapture(s, &g);
    launch(NULL);
    ck_assert_int_eq(fake.launches_pt, 1);
    CUstream b = make_stream(0);               /* a blocking stream appears */
    (void)b;
    launch(NULL);
    ck_assert_int_eq(fake.launches_pt, 1);     /* the legacy stream orders it: left alone */
}
END_TEST

/* ------------------------------------------------- graphs, capture --- */
/* Slow calls of the calling thread so far (profile mode counts them). */
static uint64_t slow_calls(void)
{
    return sc_tls_self->prof[SC_PH_SLOW].calls;
}

/* cudaGraphsPerfScaling's API times: graph launches, launches recorded
   into a capturing stream, and the capture's two ends all stay on the fast
   path, which keeps the capture's state itself (kinds.def, FAST CAPTURE). */
START_TEST(graphs_and_captures_stay_on_the_fast_path)
{
    setenv("STREAMCHECK_PROFILE", "1", 1);
    cuInit(0);
    CUstream s = make_stream(CU_STREAM_NON_BLOCKING);
    launch(s);                        /* its first kernel: whose? (slow) */
    uint64_t slow0 = slow_calls();
    for (int i = 0; i < 10; i++)
        ck_assert_int_eq(cuGraphLaunch(NULL, s), CUDA_SUCCESS);
    ck_assert_int_eq(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
    ck_assert_int_eq(atomic_load(&sc_g.n_capturing), 1);
    for (int i = 0; i < 20; i++)
        launch(s);
    cuEventRecord(NULL, s);
    CUgraph g;
    ck_assert_int_eq(cuStreamEndCapture(s, &g), CUDA_SUCCESS);
    ck_assert_int_eq(atomic_load(&sc_g.n_capturing), 0);
    ck_assert_uint_eq(slow_calls(), slow0);
    ck_assert_int_eq(fake.launches, 21);
    /* The legacy stream's fast notes stop while a capture is in progress,
       as when the slow path kept the state. */
    launch(NULL);
    cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL);
    uint64_t slow1 = slow_calls();
    launch(NULL);
    ck_assert_uint_eq(slow_calls(), slow1 + 1);
    cuStreamEndCapture(s, &g);
    ck_assert_uint_eq(seen(SC_RULE_SC101, -1), 2);
}
END_TEST

/* What the fast path leaves to the slow path: a capture that failed keeps
   no state; a stream created behind the shim's back is learned there; a
   held finding is settled by the capture's call, as by any slow call. */
START_TEST(captures_the_fast_path_leaves_alone)
{
    setenv("STREAMCHECK_PROFILE", "1", 1);
    cuInit(0);
    CUstream s = make_stream(CU_STREAM_NON_BLOCKING);
    CUgraph g;
    fake.fail_next = 1;
    ck_assert_int_ne(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
    ck_assert_int_eq(atomic_load(&sc_g.n_capturing), 0);
    uint64_t slow0 = slow_calls();
    CUstream unknown = fake_stream(FAKE_MAX_STREAMS - 1);
    cuStreamBeginCapture(unknown, CU_STREAM_CAPTURE_MODE_GLOBAL);
    ck_assert_int_eq(atomic_load(&sc_g.n_capturing), 1);
    cuStreamEndCapture(unknown, &g);
    ck_assert_int_eq(atomic_load(&sc_g.n_capturing), 0);
    ck_assert_uint_eq(slow_calls(), slow0 + 1);   /* the end: learned by then */
    /* A legacy-stream barrier while a blocking stream is busy is held
       until the thread's next slow call. */
    CUstream b = make_stream(0);
    launch(b);
    fake.busy[1] = 1;
    launch(NULL);
    ck_assert_int_eq(sc_tls_self->held.live, 1);
    slow0 = slow_calls();
    cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL);
    ck_assert_int_eq(sc_tls_self->held.live, 0);
    ck_assert_uint_eq(slow_calls(), slow0 + 1);
    cuStreamEndCapture(s, &g);
    ck_assert_uint_eq(slow_calls(), slow0 + 1);
    ck_assert_int_eq(atomic_load(&sc_g.n_capturing), 0);
}
END_TEST

/* Work recorded into a graph is never judged; the graph's launch is, where
   it runs. */
START_TEST(captured_work_is_judged_at_the_graph_launch)
{
    cuInit(0);
    static char pageable[4096];
    CUstream s = make_stream(CU_STREAM_NON_BLOCKING);
    CUgraph g;
    cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL);
    cuMemcpyHtoDAsync((CUdeviceptr)0x1000, pageable, sizeof pageable, s);
    cuStreamEndCapture(s, &g);
    ck_assert_uint_eq(seen(SC_RULE_SC203, -1), 0);
    cuMemcpyHtoDAsync((CUdeviceptr)0x1000, pageable, sizeof pageable, s);
    ck_assert_uint_eq(seen(SC_RULE_SC203, -1), 1);
    cuGraphLaunch(NULL, s);           /* a created stream: nothing to find */
    cuGraphLaunch(NULL, NULL);        /* the legacy stream, alone: a note */
    ck_assert_uint_eq(seen(SC_RULE_SC101, SC_SEV_NOTE), 1);
    CUstream b = make_stream(0);
    launch(b);
    fake.busy[1] = 1;
    cuGraphLaunch(NULL, NULL);        /* a barrier for the busy blocking stream ... */
    launch(b);                        /* ... and this work waits for it */
    ck_assert_uint_eq(seen(SC_RULE_SC101, SC_SEV_WARNING), 1);
    ck_assert_uint_eq(seen_pending(SC_RULE_SC101), 1);
}
END_TEST

/* ---------------------------------------------------------- policy --- */
START_TEST(disable_is_a_pure_pass_through)
{
    setenv("STREAMCHECK_DISABLE", "1", 1);
    make_stream(CU_STREAM_NON_BLOCKING);
    launch(NULL);
    ck_assert_int_eq(fake.launches, 1);
    ck_assert_uint_eq(seen(SC_RULE_SC101, -1), 0);
    ck_assert_ptr_null(sc_shim_build_report());
}
END_TEST

START_TEST(errno_is_preserved)
{
    cuInit(0);
    make_stream(CU_STREAM_NON_BLOCKING);
    errno = 4242;
    launch(NULL);                  /* slow path: a finding, a stack walk */
    ck_assert_int_eq(errno, 4242);
    errno = 77;
    launch(CU_STREAM_PER_THREAD);  /* fast path */
    ck_assert_int_eq(errno, 77);
}
END_TEST

static uint64_t api_count(const sc_report *r, const char *api)
{
    uint64_t n = 0;
    for (size_t i = 0; i < r->ncounts; i++)
        if (!strcmp(r->counts[i].api, api))
            n += r->counts[i].calls;
    return n;
}

START_TEST(api_counts_are_exact_per_entry_point)
{
    cuInit(0);
    CUstream s = make_stream(CU_STREAM_NON_BLOCKING);
    for (int i = 0; i < 7; i++)
        launch(s);
    for (int i = 0; i < 3; i++)
        launch_pt(NULL);
    sc_report *r = sc_shim_build_report();
    ck_assert_ptr_nonnull(r);
    ck_assert_uint_eq(api_count(r, "cuLaunchKernel"), 7);
    ck_assert_uint_eq(api_count(r, "cuLaunchKernel_ptsz"), 3);
    ck_assert_uint_eq(api_count(r, "cuStreamCreate"), 1);
    ck_assert_uint_eq(api_count(r, "cuInit"), 1);
    sc_report_free(r);
}
END_TEST

/* ------------------------------------------------------- call sites --- */

/* The frames a walk keeps, from synthetic module names: the kinds the
   shim gives them (callsites.c), then sc_frames_select. */
static unsigned select_named(const char *const *mods, unsigned n, unsigned depth, unsigned *keep,
                             unsigned *own)
{
    uint8_t kind[128];
    ck_assert_uint_le(n, 128);
    for (unsigned i = 0; i < n; i++)
        kind[i] = !strcmp(mods[i], "libstreamcheck.so") ? SC_FK_SELF
                  : sc_nvidia_library(mods[i])          ? SC_FK_NVIDIA
                                                        : SC_FK_OWN;
    return sc_frames_select(kind, n, depth, keep, 64, own);
}

START_TEST(nvidia_frames_are_skipped_and_not_counted)
{
    /* PyTorch's autograd thread on an H100: the shim, the driver, a deep
       cuDNN stack, then libtorch_cuda and the rest of the framework. */
    const char *mods[80];
    unsigned n = 0, keep[64], own = 0;
    mods[n++] = "libstreamcheck.so";
    mods[n++] = "libcuda.so.1";
    mods[n++] = "libstreamcheck.so";       /* runtime -> driver wrapper -> driver */
    mods[n++] = "libcudart.so.12";
    for (int i = 0; i < 24; i++)
        mods[n++] = i < 20 ? "/venv/site-packages/nvidia/cudnn/lib/libcudnn_engines_precompiled.so.9"
                           : "libcudnn_graph.so.9";
    unsigned first_own = n;
    for (int i = 0; i < 4; i++)
        mods[n++] = "/venv/site-packages/torch/lib/libtorch_cuda.so";
    mods[n++] = "libcublasLt.so.12";       /* NVIDIA's, after the program: kept, not counted */
    for (int i = 0; i < 10; i++)
        mods[n++] = i < 6 ? "/venv/site-packages/torch/lib/libtorch_cpu.so" : "libstdc++.so.6";
    unsigned nk = select_named(mods, n, 8, keep, &own);
    ck_assert_uint_eq(own, 8);
    ck_assert_uint_eq(nk, 9);
    ck_assert_uint_eq(keep[0], first_own);                  /* libtorch_cuda.so, not cuDNN */
    ck_assert_str_eq(mods[keep[4]], "libcublasLt.so.12");
    ck_assert_str_eq(mods[keep[8]], "/venv/site-packages/torch/lib/libtorch_cpu.so");
    for (unsigned k = 0; k < nk; k++)
        ck_assert_uint_ge(keep[k], first_own);

    /* A stack of nothing but NVIDIA's frames (one of their threads) keeps
       them, up to the depth; the shim's own frames never. */
    const char *theirs[] = {"libstreamcheck.so", "libcuda.so.1", "libcudnn.so.9", "libcudnn.so.9", "libcuda.so.1"};
    nk = select_named(theirs, 5, 3, keep, &own);
    ck_assert_uint_eq(own, 0);
    ck_assert_uint_eq(nk, 3);
    ck_assert_uint_eq(keep[0], 1);
    ck_assert_uint_eq(keep[2], 3);

    /* An ordinary program: its frames from the first one on. */
    const char *app[] = {"libstreamcheck.so", "libcudart.so.13", "libstreamcheck.so", "app", "app",
                         "libc.so.6", "libc.so.6", "app"};
    nk = select_named(app, 8, 8, keep, &own);
    ck_assert_uint_eq(nk, 5);
    ck_assert_uint_eq(own, 5);
    ck_assert_uint_eq(keep[0], 3);
    nk = select_named(app, 8, 2, keep, &own);
    ck_assert_uint_eq(nk, 2);
}
END_TEST

static void *autograd_like(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "pt_autograd_0");
    launch(NULL);
    return NULL;
}

/* A call site reached from a named thread carries its name; the main
   thread's do not. */
START_TEST(callsite_names_its_thread)
{
    cuInit(0);
    make_stream(CU_STREAM_NON_BLOCKING);
    launch(NULL);
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, autograd_like, NULL), 0);
    pthread_join(t, NULL);
    sc_report *r = sc_shim_build_report();
    ck_assert_ptr_nonnull(r);
    unsigned named = 0, unnamed = 0;
    for (size_t i = 0; i < r->nfindings; i++) {
        if (r->findings[i].rule != SC_RULE_SC101)
            continue;
        const sc_callsite *cs = sc_report_callsite(r, r->findings[i].callsite);
        ck_assert_ptr_nonnull(cs);
        if (cs->thread_name) {
            ck_assert_str_eq(cs->thread_name, "pt_autograd_0");
            named++;
        } else {
            unnamed++;
        }
    }
    ck_assert_uint_eq(named, 1);
    ck_assert_uint_eq(unnamed, 1);
    sc_report_free(r);
}
END_TEST

static Suite *rules_suite(void)
{
    Suite *s = suite_create("rules");
    TCase *tc = tcase_create("rules");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, sc101_note_when_alone);
    tcase_add_test(tc, sc101_note_sites_sampled);
    tcase_add_test(tc, sc101_notes_of_pytorch_stay_on_the_fast_path);
    tcase_add_test(tc, sc101_fast_notes_stop_when_the_legacy_stream_orders_others);
    tcase_add_test(tc, sc103_counts_fast_notes);
    tcase_add_test(tc, sc101_warning_with_another_stream);
    tcase_add_test(tc, sc101_non_blocking_streams_do_not_count);
    tcase_add_test(tc, sc101_join_before_a_wait_holds_nothing_back);
    tcase_add_test(tc, sc201_costs_only_when_work_follows);
    tcase_add_test(tc, rejected_call_is_no_finding);
    tcase_add_test(tc, sc102_blocking_stream_counts_legacy_commands);
    tcase_add_test(tc, sc103_only_for_threads_that_race);
    tcase_add_test(tc, sc201_blocking_copies_and_the_small_pageable_exception);
    tcase_add_test(tc, sc202_memset_on_the_legacy_stream);
    tcase_add_test(tc, sc203_classifies_pinned_and_pageable_exactly);
    tcase_add_test(tc, pinned_memory_freed_becomes_pageable);
    tcase_add_test(tc, sc203_waits_for_the_stream_on_a_sample);
    tcase_add_test(tc, sc203_never_waits_when_ablated);
    tcase_add_test(tc, sc203_split_by_the_sampled_rate);
    tcase_add_test(tc, sc204_device_to_device_through_the_sync_api);
    tcase_add_test(tc, legacy_rules_per_device);
    tcase_add_test(tc, sc701_counts_per_device);
    tcase_add_test(tc, sc301_only_while_work_is_pending);
    tcase_add_test(tc, sc302_pinned_alloc_while_work_is_pending);
    tcase_add_test(tc, sc303_alloc_in_loop_at_the_threshold);
    tcase_add_test(tc, sc401_severity_follows_the_busy_streams);
    tcase_add_test(tc, sc401_frequent_becomes_a_warning);
    tcase_add_test(tc, sc402_redundant_stream_and_event_syncs);
    tcase_add_test(tc, sc501_cache_config_while_busy);
    tcase_add_test(tc, sc701_more_busy_streams_than_queues);
    tcase_add_test(tc, sc701_behind_its_own_work);
    tcase_add_test(tc, sc701_respects_max_connections);
    tcase_add_test(tc, sc702_both_directions_on_one_engine);
    tcase_add_test(tc, sc702_not_with_two_engines);
    tcase_add_test(tc, redirect_calls_the_per_thread_entry_point);
    tcase_add_test(tc, redirect_by_handle);
    tcase_add_test(tc, redirect_to_own_stream);
    tcase_add_test(tc, redirect_refuses_with_blocking_streams_or_capture);
    tcase_add_test(tc, graphs_and_captures_stay_on_the_fast_path);
    tcase_add_test(tc, captures_the_fast_path_leaves_alone);
    tcase_add_test(tc, captured_work_is_judged_at_the_graph_launch);
    tcase_add_test(tc, disable_is_a_pure_pass_through);
    tcase_add_test(tc, nvidia_frames_are_skipped_and_not_counted);
    tcase_add_test(tc, callsite_names_its_thread);
    tcase_add_test(tc, errno_is_preserved);
    tcase_add_test(tc, api_counts_are_exact_per_entry_point);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(rules_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
