/* test_replay.c: the replay of a run's dependency graph (src/shim/replay.c)
 * on small graphs whose answers are known by hand: stream order, the
 * legacy stream's barrier, event waits, host waits, the device (by demand)
 * and the copy engines served first come, first served, copies both ways
 * sharing the link (duplex), submission latency, the GPU's gaps between a
 * stream's operations, orders between host threads.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>

#include "replay.h"

static sc_rp_result run(sc_rp *g)
{
    sc_rp_result r;
    ck_assert_int_eq(sc_rp_run(g, &r), 0);
    return r;
}

/* Hardware queues, as simpleHyperQ meets them: four streams on two
   queues (streams 0 and 2 share queue 0), each running a kernel A then a
   kernel B of 10 ns, submitted stream by stream.  B waits for its A, and
   queue 0 starts nothing behind it: stream 2's A only once stream 0's B
   starts (10), so stream 2 ends at 30, not 20.  With a queue each (_i 1),
   every stream ends at 20.  Small demands: the kernels fit side by side. */
START_TEST(hardware_queues)
{
    sc_rp *g = sc_rp_new();
    int s[4], t = sc_rp_thread(g, 0), a[4], b[4];
    for (int i = 0; i < 4; i++)
        s[i] = sc_rp_stream(g, 0, SC_RP_NONBLOCKING);
    ck_assert_int_eq(sc_rp_set_queues(g, 0, _i ? 0 : 2), 0);
    for (int i = 0; i < 4; i++) {
        a[i] = sc_rp_submit(g, t, s[i], SC_RP_COMPUTE, 10, 0.01, 0);
        b[i] = sc_rp_submit(g, t, s[i], SC_RP_COMPUTE, 10, 0.01, 0);
    }
    sc_rp_wait_device(g, t, 0);
    sc_rp_result r = run(g);
    ck_assert_uint_eq(sc_rp_op_end(g, b[0]), 20);
    ck_assert_uint_eq(sc_rp_op_end(g, b[1]), 20);
    ck_assert_uint_eq(sc_rp_op_start(g, a[2]), _i ? 0 : 10);
    ck_assert_uint_eq(sc_rp_op_end(g, b[3]), _i ? 20 : 30);
    ck_assert_uint_eq(r.end_ns, _i ? 20 : 30);
    sc_rp_free(g);
}
END_TEST

/* The GPU's gaps between a stream's operations (sc_rp_set_gaps): an
   upload of 100 ns, a kernel of 10, a marker of no time, a download of 100,
   all queued at 0 on one stream, beside a kernel of 10 on another.  With
   gaps of 1, 6, 4 and 8 ns (kernel to kernel, copy to kernel, kernel to
   copy, copy to copy) the kernel starts 6 after the upload (106), the
   download 4 after the kernel (120: the marker neither waits nor counts),
   the end at 220; the other stream's kernel, first on its stream, at 0.
   Without gaps (_i 1), back to back: 210. */
START_TEST(gaps_within_a_stream)
{
    sc_rp *g = sc_rp_new();
    int s = sc_rp_stream(g, 0, SC_RP_NONBLOCKING), s2 = sc_rp_stream(g, 0, SC_RP_NONBLOCKING);
    int t = sc_rp_thread(g, 0);
    static const uint32_t gaps[4] = {1, 6, 4, 8};
    if (!_i)
        ck_assert_int_eq(sc_rp_set_gaps(g, 0, gaps), 0);
    int up = sc_rp_submit(g, t, s, SC_RP_COPY_H2D, 100, 1, 0);
    int k = sc_rp_submit(g, t, s, SC_RP_COMPUTE, 10, 0.01, 0);
    int mark = sc_rp_submit(g, t, s, SC_RP_COMPUTE, 0, 0, 0);
    int down = sc_rp_submit(g, t, s, SC_RP_COPY_D2H, 100, 1, 0);
    int other = sc_rp_submit(g, t, s2, SC_RP_COMPUTE, 10, 0.01, 0);
    sc_rp_wait_device(g, t, 0);
    sc_rp_result r = run(g);
    ck_assert_uint_eq(sc_rp_op_end(g, up), 100);
    ck_assert_uint_eq(sc_rp_op_start(g, k), _i ? 100 : 106);
    ck_assert_uint_eq(sc_rp_op_start(g, mark), _i ? 110 : 116);
    ck_assert_uint_eq(sc_rp_op_start(g, down), _i ? 110 : 120);
    ck_assert_uint_eq(sc_rp_op_start(g, other), 0);
    ck_assert_uint_eq(r.end_ns, _i ? 210 : 220);
    sc_rp_free(g);
}
END_TEST

START_TEST(one_op_then_wait)
{
    sc_rp *g = sc_rp_new();
    int s = sc_rp_stream(g, 0, SC_RP_NONBLOCKING), t = sc_rp_thread(g, 0);
    sc_rp_cpu(g, t, 10);
    int o = sc_rp_submit(g, t, s, SC_RP_COMPUTE, 100, 1, 0);
    sc_rp_wait_stream(g, t, s);
    sc_rp_cpu(g, t, 5);
    sc_rp_result r = run(g);
    ck_assert_uint_eq(sc_rp_op_start(g, o), 10);
    ck_assert_uint_eq(sc_rp_op_end(g, o), 110);
    ck_assert_uint_eq(sc_rp_thread_end(g, t), 115);
    ck_assert_uint_eq(r.end_ns, 115);
    ck_assert_uint_eq(r.gpu_busy_ns, 100);
    ck_assert_int_eq(r.stalled, 0);
    sc_rp_free(g);
}
END_TEST

/* A loop of 50 ns of host work and a 100 ns kernel: waiting each step
   takes 3 x 150; one wait at the end lets the host run ahead: the GPU is
   the bottleneck after the first step, 50 + 3 x 100. */
static uint64_t loop(int wait_each)
{
    sc_rp *g = sc_rp_new();
    int s = sc_rp_stream(g, 0, SC_RP_LEGACY), t = sc_rp_thread(g, 0);
    for (int i = 0; i < 3; i++) {
        sc_rp_cpu(g, t, 50);
        sc_rp_submit(g, t, s, SC_RP_COMPUTE, 100, 1, 0);
        if (wait_each)
            sc_rp_wait_stream(g, t, s);
    }
    sc_rp_wait_stream(g, t, s);
    uint64_t end = run(g).end_ns;
    sc_rp_free(g);
    return end;
}

START_TEST(host_wait_each_step)
{
    ck_assert_uint_eq(loop(1), 450);
    ck_assert_uint_eq(loop(0), 350);
}
END_TEST

/* A blocking stream's kernel, a legacy-stream kernel, another blocking
   stream's kernel: the legacy one waits for the first and the last waits
   for it (DRV, 3. Stream synchronization behavior). */
static uint64_t barrier(sc_rp_stream_kind k, int *ops)
{
    sc_rp *g = sc_rp_new();
    int a = sc_rp_stream(g, 0, k), b = sc_rp_stream(g, 0, k), l = sc_rp_stream(g, 0, SC_RP_LEGACY);
    int t = sc_rp_thread(g, 0);
    ops[0] = sc_rp_submit(g, t, a, SC_RP_COMPUTE, 100, 0.1, 0);
    ops[1] = sc_rp_submit(g, t, l, SC_RP_COMPUTE, 10, 0.1, 0);
    ops[2] = sc_rp_submit(g, t, b, SC_RP_COMPUTE, 100, 0.1, 0);
    sc_rp_wait_device(g, t, 0);
    uint64_t end = run(g).end_ns;
    ck_assert_uint_eq(sc_rp_thread_end(g, t), end);
    for (int i = 0; i < 3; i++)
        ops[3 + i] = (int)sc_rp_op_start(g, ops[i]);
    sc_rp_free(g);
    return end;
}

START_TEST(legacy_barrier)
{
    int ops[6];
    ck_assert_uint_eq(barrier(SC_RP_BLOCKING, ops), 210);
    ck_assert_int_eq(ops[3], 0);
    ck_assert_int_eq(ops[4], 100);
    ck_assert_int_eq(ops[5], 110);
    ck_assert_uint_eq(barrier(SC_RP_NONBLOCKING, ops), 100);
    ck_assert_int_eq(ops[4], 0);
    ck_assert_int_eq(ops[5], 0);
}
END_TEST

/* Two threads, five 20 ns kernels each, then a wait: on one legacy
   stream they take turns (200); on two streams they overlap as far as
   their demands let them: 100 when small, 200 when each fills it.  When
   each asks for 0.6 of the device, the one that started first runs at
   full speed and the other at 0.4 / 0.6 of it, then takes the lead when
   the first ends: 125, where sharing the device evenly (each at 1 / 1.2)
   would have ended at 120. */
static uint64_t two_threads(int shared, double demand)
{
    sc_rp *g = sc_rp_new();
    int s[2];
    s[0] = sc_rp_stream(g, 0, shared ? SC_RP_LEGACY : SC_RP_NONBLOCKING);
    s[1] = shared ? s[0] : sc_rp_stream(g, 0, SC_RP_NONBLOCKING);
    for (int i = 0; i < 2; i++) {
        int t = sc_rp_thread(g, 0);
        for (int k = 0; k < 5; k++)
            sc_rp_submit(g, t, s[i], SC_RP_COMPUTE, 20, demand, 0);
        sc_rp_wait_stream(g, t, s[i]);
    }
    uint64_t end = run(g).end_ns;
    sc_rp_free(g);
    return end;
}

START_TEST(threads_share_the_legacy_stream)
{
    ck_assert_uint_eq(two_threads(1, 0.01), 200);
    ck_assert_uint_eq(two_threads(0, 0.01), 100);
    ck_assert_uint_eq(two_threads(0, 0.6), 125);
    ck_assert_uint_eq(two_threads(0, 1), 200);
}
END_TEST

START_TEST(copy_engines)
{
    /* two host-to-device copies take their engine in turn; one each way
       do not wait for each other */
    for (int other = 0; other < 2; other++) {
        sc_rp *g = sc_rp_new();
        int a = sc_rp_stream(g, 0, SC_RP_NONBLOCKING), b = sc_rp_stream(g, 0, SC_RP_NONBLOCKING);
        int t = sc_rp_thread(g, 0);
        int first = sc_rp_submit(g, t, a, SC_RP_COPY_H2D, 100, 1, 0);
        sc_rp_cpu(g, t, 50);
        int o = sc_rp_submit(g, t, b, other ? SC_RP_COPY_D2H : SC_RP_COPY_H2D, 100, 1, 0);
        sc_rp_wait_device(g, t, 0);
        sc_rp_result r = run(g);
        /* the first keeps its engine until it ends at 100 (shared by count,
           it would have run at half rate from 50 and ended at 150); the
           second then copies at full rate until 200 */
        ck_assert_uint_eq(sc_rp_op_end(g, first), 100);
        ck_assert_uint_eq(sc_rp_op_end(g, o), other ? 150 : 200);
        ck_assert_uint_eq(r.end_ns, other ? 150 : 200);
        ck_assert_uint_eq(r.gpu_busy_ns, other ? 150 : 200);
        sc_rp_free(g);
    }
}
END_TEST

/* Seed 004's streamed pipeline, two pieces: each stream uploads its input
   (10 ns), runs a kernel that fills the device (20 ns) and downloads its
   result (10 ns).  The uploads take the engine in turn (10, 20), the
   first kernel runs alone from 10 to 30 and the second, which began at 20
   without room, from 30 to 50; the first result comes down beside the
   second kernel: 60 in all.  Shared evenly, both uploads would end at 20,
   both kernels at 60 and both downloads at 80. */
START_TEST(pieces_first_come)
{
    sc_rp *g = sc_rp_new();
    int t = sc_rp_thread(g, 0), k[2], down[2];
    for (int i = 0; i < 2; i++) {
        int s = sc_rp_stream(g, 0, SC_RP_NONBLOCKING);
        sc_rp_submit(g, t, s, SC_RP_COPY_H2D, 10, 1, 0);
        k[i] = sc_rp_submit(g, t, s, SC_RP_COMPUTE, 20, 1, 0);
        down[i] = sc_rp_submit(g, t, s, SC_RP_COPY_D2H, 10, 1, 0);
    }
    sc_rp_wait_device(g, t, 0);
    sc_rp_result r = run(g);
    ck_assert_uint_eq(sc_rp_op_start(g, k[0]), 10);
    ck_assert_uint_eq(sc_rp_op_end(g, k[0]), 30);
    ck_assert_uint_eq(sc_rp_op_end(g, k[1]), 50);
    ck_assert_uint_eq(sc_rp_op_end(g, down[0]), 40);
    ck_assert_uint_eq(sc_rp_op_end(g, down[1]), 60);
    ck_assert_uint_eq(r.end_ns, 60);
    sc_rp_free(g);
}
END_TEST

/* A stream that waits for two events before its next work (a join of two
   streams, cuStreamWaitEvent twice) waits for both: the kernel on c starts
   when the 100 ns one on a ends, not when the 10 ns one on b does, as it
   did when the second wait took the first one's place. */
START_TEST(stream_waits_add_up)
{
    sc_rp *g = sc_rp_new();
    int a = sc_rp_stream(g, 0, SC_RP_NONBLOCKING), b = sc_rp_stream(g, 0, SC_RP_NONBLOCKING);
    int c = sc_rp_stream(g, 0, SC_RP_NONBLOCKING), t = sc_rp_thread(g, 0);
    int long_op = sc_rp_submit(g, t, a, SC_RP_COMPUTE, 100, 0.1, 0);
    int short_op = sc_rp_submit(g, t, b, SC_RP_COMPUTE, 10, 0.1, 0);
    sc_rp_stream_wait_op(g, t, c, long_op);
    sc_rp_stream_wait_op(g, t, c, short_op);
    int k = sc_rp_submit(g, t, c, SC_RP_COMPUTE, 20, 0.1, 0);
    int after = sc_rp_submit(g, t, c, SC_RP_COMPUTE, 5, 0.1, 0);
    sc_rp_wait_device(g, t, 0);
    sc_rp_result r = run(g);
    ck_assert_uint_eq(sc_rp_op_start(g, k), 100);
    ck_assert_uint_eq(sc_rp_op_start(g, after), 120);   /* the waits were for the next work only */
    ck_assert_uint_eq(r.end_ns, 125);
    sc_rp_free(g);
}
END_TEST

START_TEST(duplex_copies)
{
    /* a copy each way, the second from 50: with a duplex fraction of 0.5
       the first copies alone until 50 (half its work done), then both at
       half rate, so the first ends at 150 and the second, with 50 done
       then, alone at full rate until 200; a third on another device is not
       slowed; 1 (the default) leaves the engines independent */
    static const double f[] = {0.5, 1};
    static const uint64_t want[][2] = {{150, 200}, {100, 150}};
    for (int k = 0; k < 2; k++) {
        sc_rp *g = sc_rp_new();
        int a = sc_rp_stream(g, 0, SC_RP_NONBLOCKING), b = sc_rp_stream(g, 0, SC_RP_NONBLOCKING);
        int c = sc_rp_stream(g, 1, SC_RP_NONBLOCKING);
        ck_assert_int_eq(sc_rp_set_duplex(g, 0, f[k]), 0);
        int t = sc_rp_thread(g, 0);
        int x = sc_rp_submit(g, t, a, SC_RP_COPY_H2D, 100, 1, 0);
        int z = sc_rp_submit(g, t, c, SC_RP_COPY_H2D, 100, 1, 0);
        sc_rp_cpu(g, t, 50);
        int y = sc_rp_submit(g, t, b, SC_RP_COPY_D2H, 100, 1, 0);
        sc_rp_wait_device(g, t, 0);
        sc_rp_wait_device(g, t, 1);
        sc_rp_result r = run(g);
        ck_assert_uint_eq(sc_rp_op_end(g, x), want[k][0]);
        ck_assert_uint_eq(sc_rp_op_end(g, y), want[k][1]);
        ck_assert_uint_eq(sc_rp_op_end(g, z), 100);
        ck_assert_uint_eq(r.end_ns, want[k][1]);
        sc_rp_free(g);
    }
    /* out of range, and a device with no stream yet */
    sc_rp *g = sc_rp_new();
    ck_assert_int_eq(sc_rp_set_duplex(g, 0, 0), -1);
    ck_assert_int_eq(sc_rp_set_duplex(g, 0, 1.5), -1);
    ck_assert_int_eq(sc_rp_set_duplex(g, 3, 0.25), 0);
    sc_rp_free(g);
}
END_TEST

START_TEST(event_wait_and_sync)
{
    sc_rp *g = sc_rp_new();
    int a = sc_rp_stream(g, 0, SC_RP_NONBLOCKING), b = sc_rp_stream(g, 0, SC_RP_NONBLOCKING);
    int t = sc_rp_thread(g, 0);
    int x = sc_rp_submit(g, t, a, SC_RP_COMPUTE, 100, 0.1, 0);
    sc_rp_stream_wait_op(g, t, b, x);
    int y = sc_rp_submit(g, t, b, SC_RP_COMPUTE, 10, 0.1, 0);
    int z = sc_rp_submit(g, t, b, SC_RP_COMPUTE, 10, 0.1, 0);
    sc_rp_wait_op(g, t, x);
    sc_rp_cpu(g, t, 1);
    sc_rp_result r = run(g);
    ck_assert_uint_eq(sc_rp_op_start(g, y), 100);
    ck_assert_uint_eq(sc_rp_op_start(g, z), 110);
    ck_assert_uint_eq(sc_rp_thread_end(g, t), 101);
    ck_assert_uint_eq(r.end_ns, 120);
    sc_rp_free(g);
}
END_TEST

START_TEST(latency_and_thread_order)
{
    sc_rp *g = sc_rp_new();
    sc_rp_set_latency(g, 5);
    int s = sc_rp_stream(g, 0, SC_RP_NONBLOCKING);
    int t1 = sc_rp_thread(g, 0), t2 = sc_rp_thread(g, 20);
    int st = sc_rp_cpu(g, t1, 100);
    int o = sc_rp_submit(g, t1, s, SC_RP_COMPUTE, 10, 1, 0);
    sc_rp_wait_stream(g, t1, s);
    ck_assert_int_ge(sc_rp_after(g, t2, t1, st), 0);
    sc_rp_cpu(g, t2, 10);
    ck_assert_int_lt(sc_rp_after(g, t2, t2, 0), 0);   /* not itself */
    sc_rp_result r = run(g);
    ck_assert_uint_eq(sc_rp_op_start(g, o), 105);
    ck_assert_uint_eq(sc_rp_thread_end(g, t1), 115);
    ck_assert_uint_eq(sc_rp_thread_end(g, t2), 110);
    ck_assert_uint_eq(r.end_ns, 115);
    ck_assert_int_eq(sc_rp_run(g, &r), -1);   /* once */
    sc_rp_free(g);
}
END_TEST

/* A wait for an event never recorded waits for nothing; a wait for a
   device waits for every stream of that device and no other. */
START_TEST(waits_on_nothing_and_devices)
{
    sc_rp *g = sc_rp_new();
    int a = sc_rp_stream(g, 0, SC_RP_NONBLOCKING), b = sc_rp_stream(g, 1, SC_RP_NONBLOCKING);
    int t = sc_rp_thread(g, 0), u = sc_rp_thread(g, 0);
    sc_rp_submit(g, u, b, SC_RP_COMPUTE, 500, 1, 0);
    sc_rp_cpu(g, t, 1);
    int late = sc_rp_submit(g, t, a, SC_RP_COMPUTE, 30, 1, 0);
    sc_rp_wait_device(g, t, 0);
    int t3 = sc_rp_thread(g, 0);
    sc_rp_wait_op(g, t3, late);   /* at time 0 it is not submitted yet */
    sc_rp_result r = run(g);
    ck_assert_uint_eq(sc_rp_thread_end(g, t), 31);
    ck_assert_uint_eq(sc_rp_thread_end(g, t3), 0);
    ck_assert_uint_eq(r.end_ns, 500);
    ck_assert_uint_eq(r.gpu_busy_ns, 500);
    sc_rp_free(g);
}
END_TEST

/* A long graph stays fast and exact: 100k steps of a host-bound loop. */
START_TEST(long_run)
{
    sc_rp *g = sc_rp_new();
    int s = sc_rp_stream(g, 0, SC_RP_LEGACY), t = sc_rp_thread(g, 0);
    for (int i = 0; i < 50000; i++) {
        sc_rp_cpu(g, t, 30);
        sc_rp_submit(g, t, s, SC_RP_COMPUTE, 20, 1, 0);
    }
    sc_rp_wait_stream(g, t, s);
    sc_rp_result r = run(g);
    ck_assert_uint_eq(r.end_ns, 50000 * 30 + 20);
    ck_assert_uint_eq(r.gpu_busy_ns, 50000 * 20);
    sc_rp_free(g);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("replay");
    TCase *tc = tcase_create("replay");
    tcase_add_test(tc, one_op_then_wait);
    tcase_add_loop_test(tc, hardware_queues, 0, 2);
    tcase_add_loop_test(tc, gaps_within_a_stream, 0, 2);
    tcase_add_test(tc, host_wait_each_step);
    tcase_add_test(tc, legacy_barrier);
    tcase_add_test(tc, threads_share_the_legacy_stream);
    tcase_add_test(tc, copy_engines);
    tcase_add_test(tc, pieces_first_come);
    tcase_add_test(tc, stream_waits_add_up);
    tcase_add_test(tc, duplex_copies);
    tcase_add_test(tc, event_wait_and_sync);
    tcase_add_test(tc, latency_and_thread_order);
    tcase_add_test(tc, waits_on_nothing_and_devices);
    tcase_add_test(tc, long_run);
    suite_add_tcase(su, tc);
    SRunner *sr = srunner_create(su);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
