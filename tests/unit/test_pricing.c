/* test_pricing.c: the pricing model (src/shim/pricing.c) on recorded runs
 * written by hand, whose fixed versions are worked out by hand: a loop that
 * waits for the GPU each step, threads taking turns on the legacy stream,
 * pageable copies in GPU-bound and host-bound loops (with a pinned rate
 * that gains and one that does not), their batches' receipts handed to a
 * pinning thread; the steady loop after a long set-up;
 * a stream's copies moved beside its kernels, with buffers of their own,
 * one buffer, and two in turn.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>

#include "pricing.h"

#define MS 1000000ull

/* A run of one actor on one device, built call by call. */
typedef struct run {
    sc_pr_call calls[4][256];
    size_t n[4];
    sc_pr_span busy[1024];
    size_t nbusy;
} run;

static sc_pr_call *add(run *r, int t, uint8_t what, uint64_t t0, uint64_t t1, uint64_t wait, uint32_t stream)
{
    sc_pr_call *c = &r->calls[t][r->n[t]++];
    *c = (sc_pr_call){.t0 = t0, .t1 = t1, .wait_ns = wait, .what = what, .stream = stream, .sub_stream = stream};
    return c;
}

static void busy(run *r, uint64_t a, uint64_t b)
{
    if (r->nbusy && r->busy[r->nbusy - 1].b >= a)
        r->busy[r->nbusy - 1].b = b;
    else
        r->busy[r->nbusy++] = (sc_pr_span){a, b};
}

/* The device's rate of pinned copies both ways at once for price(), bytes
   per ns in all (0: unknown, the default). */
static double duplex_rate;
/* price()'s model takes the kernels' demand by occupancy (sc_pr_model.occupancy). */
static int occupancy;
/* Whether price() counts a Python thread's receipts' CPU time by the GIL's free share (sc_pr_model.receipt_cpu). */
static int receipt_cpu;

/* The last price()'s verdicts (sc_pr_result.dropped) and its findings'
   fixes at once (together, together_n), per finding. */
static uint8_t dropped[8];
static uint64_t together[8];
static uint32_t together_n[8];

static sc_pr_result price(run *r, int nthreads, const sc_pr_stream *st, size_t nst, sc_pr_finding *f,
                          size_t nf, uint16_t legacy_finding, double pinned_rate, uint64_t *saving)
{
    sc_pr_thread th[4];
    for (int t = 0; t < nthreads; t++)
        th[t] = (sc_pr_thread){.calls = r->calls[t], .n = r->n[t], .legacy_finding = legacy_finding};
    sc_pr_device dev = {.busy = r->busy, .nbusy = r->nbusy, .known = 1, .rate = {0, pinned_rate, pinned_rate},
                        .duplex = duplex_rate};
    sc_pr_model m = {.threads = th, .nthreads = (size_t)nthreads, .streams = st, .nstreams = nst,
                     .devices = &dev, .ndevices = 1, .findings = f, .nfindings = nf,
                     .occupancy = (uint8_t)occupancy, .receipt_cpu = (uint8_t)receipt_cpu};
    ck_assert_uint_le(nf, sizeof dropped);
    sc_pr_result res = {.saving = saving, .dropped = dropped, .together = together, .together_n = together_n};
    ck_assert_int_eq(sc_pr_price(&m, &res), 0);
    ck_assert_int_eq(res.stalled, 0);
    return res;
}

#define near(a, b) ck_assert_msg(((a) > (b) ? (a) - (b) : (b) - (a)) <= 20000, \
                                 "%s = %llu, expected %llu", #a, (unsigned long long)(a), (unsigned long long)(b))

/* Ten steps: a 10 ms kernel, a wait for it (finding 1), 8 ms of host work. */
static run *wait_steps(void)
{
    static run r;
    r = (run){0};
    for (uint64_t k = 0; k < 10; k++) {
        uint64_t t = k * 18 * MS;
        add(&r, 0, SC_PR_SUBMIT, t, t + 10000, 0, 0);
        sc_pr_call *w = add(&r, 0, SC_PR_WAIT_STREAM, t + 10000, t + 10 * MS, 10 * MS - 10000, 0);
        w->finding[0] = 1;
        busy(&r, t, t + 10 * MS);
    }
    add(&r, 0, SC_PR_OTHER, 180 * MS, 180 * MS + 10000, 0, 0);
    return &r;
}

/* Ten steps: a 10 ms kernel, a wait for it, 8 ms of host work.  As run:
   180 ms.  Without the waits the host queues a step every 8 ms and the GPU
   is the bottleneck: 100 ms, so the waits cost 80 (_i 0).  The same steps
   recorded in measured mode (_i 1), where CUPTI's records made 3 ms of each
   step's 8 ms of host work (tool_ns): the program's own host work is 5 ms,
   so as it runs without CUPTI a step takes 15 ms (150 ms), and without the
   waits the GPU is the bottleneck still (100 ms): the waits cost 50, not 80
   (as they would where that time were the program's). */
START_TEST(wait_each_step)
{
    run *r = wait_steps();
    for (size_t i = 1; _i && i < r->n[0]; i++)
        if (r->calls[0][i].what != SC_PR_WAIT_STREAM)
            r->calls[0][i].tool_ns = 3 * MS;
    sc_pr_stream st = {0, SC_PR_NONBLOCKING, 0};
    sc_pr_finding f = {.fix = SC_PR_FIX_NO_WAIT, .in_all = 1};
    uint64_t saving;
    sc_pr_result res = price(r, 1, &st, 1, &f, 1, 0, 0, &saving);
    near(res.window_ns, 180 * MS + 10000);
    near(res.model_ns, (_i ? 150 : 180) * MS + 10000);
    near(res.fixed_ns, 100 * MS);
    near(saving, (_i ? 50 : 80) * MS + 10000);
}
END_TEST

/* The same steps, the waits a candidate that the report keeps only where
   it saves keep_bp of the window: 80 ms of 180 (44%) is kept at a 40% bar,
   and is then in the "everything fixed" run (100 ms), but not at a 50% bar
   (the run as it was), nor at an absolute bar of 90 ms, where the result
   says it is dropped, as the report then does.  Its own saving is priced
   either way. */
START_TEST(all_fixed_keeps_what_the_report_keeps)
{
    static const struct { uint16_t bp; uint64_t ns; int kept; } bar[] = {
        {4000, 0, 1}, {5000, 0, 0}, {4000, 90 * MS, 0}};
    run *r = wait_steps();
    sc_pr_stream st = {0, SC_PR_NONBLOCKING, 0};
    sc_pr_finding f = {.fix = SC_PR_FIX_NO_WAIT, .in_all = 1, .keep_bp = bar[_i].bp, .keep_ns = bar[_i].ns};
    uint64_t saving;
    sc_pr_result res = price(r, 1, &st, 1, &f, 1, 0, 0, &saving);
    near(saving, 80 * MS + 10000);
    near(res.fixed_ns, bar[_i].kept ? 100 * MS : 180 * MS + 10000);
    ck_assert_int_eq(dropped[0], !bar[_i].kept);   /* what the report keeps (price.c, sc_price_keeps) */
}
END_TEST

/* Three waits a step, each a candidate of its own line (seed 003's host
   syncs where events would do): a 3 ms kernel, its wait, 1 ms of host work,
   three times; 12 ms a step, 120 ms.  Without one wait its 1 ms of host
   work overlaps the next kernel: 10 ms each.  Without all three the GPU is
   the bottleneck, 9 ms a step: 30 ms at once.  At a 15 ms bar (_i 0) none
   is worth a line alone and all three are together: each is kept, priced
   10 ms, and together 30 ms of 3; at a 40 ms bar (_i 1) all three are
   dropped, as one alone at 15 ms (_i 2: the other two no candidates, which
   keep_groups leaves alone).  Where the first's bar is 5 ms (_i 3), worth a
   line alone, the two others are kept with it. */
START_TEST(candidates_kept_by_their_group)
{
    static run r;
    r = (run){0};
    for (uint64_t k = 0; k < 10; k++)
        for (uint64_t j = 0; j < 3; j++) {
            uint64_t t = k * 12 * MS + j * 4 * MS;
            add(&r, 0, SC_PR_SUBMIT, t, t + 10000, 0, 0);
            sc_pr_call *w = add(&r, 0, SC_PR_WAIT_STREAM, t + 10000, t + 3 * MS, 3 * MS - 10000, 0);
            w->finding[0] = (uint16_t)(j + 1);
            busy(&r, t, t + 3 * MS);
        }
    add(&r, 0, SC_PR_OTHER, 120 * MS, 120 * MS + 10000, 0, 0);
    sc_pr_stream st = {0, SC_PR_NONBLOCKING, 0};
    uint64_t bar = _i == 1 ? 40 * MS : 15 * MS, saving[3];
    sc_pr_finding f[3];
    for (int j = 0; j < 3; j++)
        f[j] = (sc_pr_finding){.fix = SC_PR_FIX_NO_WAIT, .in_all = 1, .joint = 1,
                               .keep_bp = (uint16_t)(_i == 2 && j ? 0 : 100),
                               .keep_ns = _i == 3 && !j ? 5 * MS : bar};
    sc_pr_result res = price(&r, 1, &st, 1, f, 3, 0, 0, saving);
    for (int j = 0; j < 3; j++) {
        near(saving[j], 10 * MS);
        ck_assert_int_eq(dropped[j], _i == 0 || _i == 3 || (_i == 2 && j) ? 0 : 1);
    }
    if (_i == 0 || _i == 3) {
        near(res.fixed_ns, 90 * MS);
        for (int j = 0; j < 3; j++) {
            near(together[j], 30 * MS + 10000);
            ck_assert_uint_eq(together_n[j], 3);
        }
    }
}
END_TEST

/* The same steps, the wait PyTorch's .item(): a 4-byte copy into pageable
   memory, which waits for the kernel and returns once done, then a stream
   sync (or, _i 1, a device sync) that finds nothing left.  The fix (the result kept on the GPU)
   makes neither call: 100 ms as above, less the reads' own 10 us of GPU
   time a step (the busy spans hold them): 99.9 ms.  Without the sync going
   with the read, it would wait in the read's place and the fix would save
   next to nothing. */
START_TEST(item_read_then_sync)
{
    static run r;
    r = (run){0};
    sc_pr_stream st = {0, SC_PR_NONBLOCKING, 0};
    for (uint64_t k = 0; k < 10; k++) {
        uint64_t t = k * 18 * MS;
        add(&r, 0, SC_PR_SUBMIT, t, t + 10000, 0, 0);
        sc_pr_call *c = add(&r, 0, SC_PR_COPY_PAGEABLE, t + 10000, t + 10 * MS, 10 * MS - 20000, 0);
        c->dir = SC_PR_D2H;
        c->bytes = 4;
        c->finding[0] = 1;
        add(&r, 0, _i ? SC_PR_WAIT_DEVICE : SC_PR_WAIT_STREAM, t + 10 * MS, t + 10 * MS + 2000, 0, 0);
        busy(&r, t, t + 10 * MS);
    }
    add(&r, 0, SC_PR_OTHER, 180 * MS, 180 * MS + 10000, 0, 0);
    sc_pr_finding f = {.fix = SC_PR_FIX_NO_WAIT, .in_all = 1};
    uint64_t saving;
    sc_pr_result res = price(&r, 1, &st, 1, &f, 1, 0, 0, &saving);
    near(res.model_ns, 180 * MS + 10000);
    near(res.fixed_ns, 100 * MS - 100000);
    near(saving, 80 * MS + 110000);
}
END_TEST

/* Ten steps of 18 ms: a 10 ms kernel and its wait (finding 1: loss.item()),
   then 100 us later a 10 us kernel and a second wait that found it done
   (accuracy.item(): no finding, the first wait drained the GPU), then the
   host's work.  With the first wait gone the second would wait in its
   place; the fix keeps both results on the GPU: 100 ms, as without the
   second read (_i 0).  A second read of 1 MiB is data the host works on
   (_i 1), and a wait 2 ms of host work later is no part of the first
   (_i 2): they stay and wait for the step's kernel; the fix saves only
   the host work between the two waits, which now overlaps the kernel (100
   us a step, 1.1 ms; 2 ms a step, 20.1 ms).  A second wait of 200 us (_i
   3: a simulator's tiny kernel), a fiftieth of the first's, goes as in the
   first case.  A cudaFree (_i 4: a device wait at an allocation site,
   finding 2, whose fix is to hoist it) stays as the read of _i 1 does:
   the sync's fix does not drop it. */
START_TEST(second_item_waits_in_its_place)
{
    static run r;
    r = (run){0};
    sc_pr_stream st = {0, SC_PR_NONBLOCKING, 0};
    uint64_t later = _i == 2 ? 2 * MS : 100000;
    for (uint64_t k = 0; k < 10; k++) {
        uint64_t t = k * 18 * MS, u = t + 10 * MS + later;
        add(&r, 0, SC_PR_SUBMIT, t, t + 10000, 0, 0);
        add(&r, 0, SC_PR_WAIT_STREAM, t + 10000, t + 10 * MS, 10 * MS - 10000, 0)->finding[0] = 1;
        busy(&r, t, t + 10 * MS);
        add(&r, 0, SC_PR_SUBMIT, u, u + 5000, 0, 0);
        busy(&r, u + 5000, u + 15000);
        uint64_t w = _i == 3 ? 200000 : 3000;
        uint8_t what = _i == 1 ? SC_PR_COPY_PAGEABLE : _i == 4 ? SC_PR_WAIT_DEVICE : SC_PR_WAIT_STREAM;
        sc_pr_call *c = add(&r, 0, what, u + 20000, u + 22000 + w, w, 0);
        c->dir = _i == 1 ? SC_PR_D2H : 0;
        c->bytes = _i == 1 ? 1 << 20 : 0;
        c->finding[0] = _i == 4 ? 2 : 0;
    }
    add(&r, 0, SC_PR_OTHER, 180 * MS, 180 * MS + 10000, 0, 0);
    sc_pr_finding f[2] = {{.fix = SC_PR_FIX_NO_WAIT, .in_all = 1, .joint = 1}, {.fix = SC_PR_FIX_DROP}};
    uint64_t sv[2], saving;
    sc_pr_result res = price(&r, 1, &st, 1, f, 2, 0, 0, sv);
    saving = sv[0];
    ck_assert_uint_gt(res.model_ns, 177 * MS);   /* as run: 18 ms a step */
    ck_assert_uint_lt(res.model_ns, 181 * MS);
    if (_i == 0 || _i == 3) {
        ck_assert_uint_lt(res.fixed_ns, 101 * MS);
        ck_assert_uint_gt(saving, res.model_ns - 101 * MS);
    } else {
        ck_assert_uint_gt(saving, _i == 2 ? 19 * MS : MS);
        ck_assert_uint_lt(saving, _i == 2 ? 21 * MS : 3 * MS / 2);
    }
}
END_TEST

/* Four threads queue five 5 ms kernels each on the legacy stream at once
   and wait: they take turns, 100 ms.  On streams of their own their small
   kernels overlap: 25 ms. */
START_TEST(threads_on_the_legacy_stream)
{
    static run r;
    r = (run){0};
    sc_pr_stream st = {0, SC_PR_LEGACY, 0};
    for (int t = 0; t < 4; t++) {
        for (uint64_t k = 0; k < 5; k++) {
            uint64_t at = (k * 4 + (uint64_t)t) * 10000;
            sc_pr_call *c = add(&r, t, SC_PR_SUBMIT, at, at + 5000, 0, 0);
            c->demand = 0.001f;
        }
        add(&r, t, SC_PR_WAIT_STREAM, 200000, 100 * MS, 100 * MS - 200000, 0);
    }
    busy(&r, 0, 100 * MS);
    sc_pr_finding f = {.fix = SC_PR_FIX_OWN_STREAM, .in_all = 1};
    uint64_t saving;
    sc_pr_result res = price(&r, 4, &st, 1, &f, 1, 1, 0, &saving);
    near(res.model_ns, 100 * MS);
    ck_assert_uint_lt(res.fixed_ns, 26 * MS);
    ck_assert_uint_gt(saving, 74 * MS);
}
END_TEST

/* A 10 ms kernel (CUPTI's time, as under --measure) queued by thread t at
   `at` on stream st. */
static void kernel_10ms(run *r, int t, uint64_t at, uint32_t st)
{
    sc_pr_call *c = add(r, t, SC_PR_SUBMIT, at, at + 5000, 0, st);
    c->gpu_known = 1, c->gpu_ns = 10 * MS, c->demand = 0.1f;
}

/* Kernel A (10 ms) on stream 1, an event recorded after it, stream 2 made
   to wait for the event (cuStreamWaitEvent), kernel B (10 ms) on stream 2,
   and the host waits for stream 2: 20 ms, B after A.  A wait for an event
   never recorded orders nothing: B beside A, 10 ms.  With two threads,
   thread 0 queues A, records the event and waits for stream 1, and thread
   1, 1 ms later, makes stream 2 wait, queues B and waits for stream 2:
   20 ms again.  Recorded by a thread the replay builds after the waiting
   one (swapped), the event orders nothing (pricing.h, sc_pr_events_get):
   10 ms. */
static uint64_t event_ordered(int nthreads, int swapped, uint64_t waited_for)
{
    static run r;
    r = (run){0};
    int rec = nthreads == 2 && swapped, wt = nthreads == 2 && !swapped;
    uint64_t t = nthreads == 2 ? MS : 20000;   /* the wait for the event */
    sc_pr_stream st[3] = {{0, SC_PR_LEGACY, 0}, {0, SC_PR_NONBLOCKING, 0}, {0, SC_PR_NONBLOCKING, 0}};
    kernel_10ms(&r, rec, 0, 1);
    add(&r, rec, SC_PR_EVENT_RECORD, 10000, 12000, 0, 1)->bytes = 0xe1;
    if (nthreads == 2)
        add(&r, rec, SC_PR_WAIT_STREAM, 20000, 10 * MS, 10 * MS - 20000, 1);
    add(&r, wt, SC_PR_EVENT_WAIT, t, t + 2000, 0, 2)->bytes = waited_for;
    kernel_10ms(&r, wt, t + 10000, 2);
    add(&r, wt, SC_PR_WAIT_STREAM, t + 20000, 20 * MS, 20 * MS - t - 20000, 2);
    busy(&r, 0, 20 * MS);
    sc_pr_finding f = {0};
    uint64_t saving;
    return price(&r, nthreads, st, 3, &f, 1, 0, 0, &saving).model_ns;
}

START_TEST(events_order_streams)
{
    near(event_ordered(1, 0, 0xe1), 20 * MS);
    uint64_t apart = event_ordered(1, 0, 0xe2);
    ck_assert_msg(apart > 10 * MS && apart < 10 * MS + 100000, "apart %llu", (unsigned long long)apart);
}
END_TEST

START_TEST(events_across_threads)
{
    near(event_ordered(2, 0, 0xe1), 20 * MS);
    uint64_t apart = event_ordered(2, 1, 0xe1);
    ck_assert_msg(apart < 12 * MS, "apart %llu", (unsigned long long)apart);
}
END_TEST

/* One cuBLAS handle on the legacy stream (SC601, finding 1) in a program
   that created `created` non-blocking streams: eight 1 ms products, each a
   tenth of the device, queued at once; an event recorded on the legacy
   stream after them, stream 1 made to wait for it, a 5 ms kernel there,
   and the host waits for stream 1.  One after another: 13 ms.  A handle
   per stream: with 4 streams, 4 products at a time, 7 ms; with 2, 9 ms;
   with 1, a stream of the handle's own, 13 ms as before.  The join holds:
   the last kernel waits for every product. */
static uint64_t handle_on_legacy_occ(int created, float occ, uint64_t *fixed)
{
    static run r;
    r = (run){0};
    sc_pr_stream st[5] = {{0, SC_PR_LEGACY, 0}};
    for (int k = 1; k <= created; k++)
        st[k] = (sc_pr_stream){0, SC_PR_NONBLOCKING, 0};
    for (uint64_t k = 0; k < 8; k++) {
        sc_pr_call *c = add(&r, 0, SC_PR_SUBMIT, k * 10000, k * 10000 + 5000, 0, 0);
        c->demand = 0.1f;
        c->occ_demand = occ;
        c->finding[0] = 1;
        c->gpu_known = 1, c->gpu_ns = MS;   /* CUPTI's durations, as under --measure */
    }
    add(&r, 0, SC_PR_EVENT_RECORD, 90000, 92000, 0, 0)->bytes = 0xe1;
    add(&r, 0, SC_PR_EVENT_WAIT, 95000, 97000, 0, 1)->bytes = 0xe1;
    sc_pr_call *c = add(&r, 0, SC_PR_SUBMIT, 100000, 105000, 0, 1);
    c->gpu_known = 1, c->gpu_ns = 5 * MS, c->demand = 0.1f;
    add(&r, 0, SC_PR_WAIT_STREAM, 110000, 13 * MS, 13 * MS - 110000, 1);
    busy(&r, 0, 13 * MS);
    sc_pr_finding f = {.fix = SC_PR_FIX_SPREAD, .in_all = 1};
    uint64_t saving;
    sc_pr_result res = price(&r, 1, st, (size_t)created + 1, &f, 1, 0, 0, &saving);
    near(res.model_ns, 13 * MS);
    *fixed = res.fixed_ns;
    return saving;
}

static uint64_t handle_on_legacy(int created, uint64_t *fixed)
{
    return handle_on_legacy_occ(created, 0, fixed);
}

START_TEST(a_handle_per_stream)
{
    uint64_t fixed, saving = handle_on_legacy(4, &fixed);
    ck_assert_msg(fixed > 69 * MS / 10 && fixed < 73 * MS / 10, "fixed %llu", (unsigned long long)fixed);
    ck_assert_msg(saving > 57 * MS / 10 && saving < 61 * MS / 10, "saving %llu", (unsigned long long)saving);
    saving = handle_on_legacy(2, &fixed);
    ck_assert_msg(saving > 37 * MS / 10 && saving < 41 * MS / 10, "saving %llu", (unsigned long long)saving);
    saving = handle_on_legacy(1, &fixed);
    ck_assert_msg(saving < MS / 10, "saving %llu", (unsigned long long)saving);
}
END_TEST

/* The same products on 4 streams, each asking a tenth of the device by its
   threads but half of it by its occupancy (its registers or shared memory
   let a multiprocessor hold fewer of its blocks): two run at once, so the
   8 products take 4 ms, then the 5 ms kernel: 9 ms, a saving of 4 (_i 1).
   By the threads, as before (a model that does not take the occupancy, or
   one that has none: _i 0, 2), 5.9.  A product that fills the device by
   occupancy runs alone: no saving (_i 3). */
START_TEST(demand_by_occupancy)
{
    static const struct { int on; float occ; uint64_t lo, hi; } c[] = {
        {0, 0.5f, 57, 61}, {1, 0.5f, 38, 42}, {1, 0, 57, 61}, {1, 1, 0, 1}};
    uint64_t fixed;
    occupancy = c[_i].on;
    uint64_t saving = handle_on_legacy_occ(4, c[_i].occ, &fixed);
    occupancy = 0;
    ck_assert_msg(saving >= c[_i].lo * MS / 10 && saving <= c[_i].hi * MS / 10, "saving %llu",
                  (unsigned long long)saving);
}
END_TEST

/* Legacy-stream kernels between the spins of a blocking stream (SC101):
   three 10 ms spins on the blocking stream, each followed by a 1 ms kernel
   on the legacy stream, then a 40 ms one there, a wait for the legacy
   stream and 5 ms of host work.  As run (CUPTI's times), everything in
   turn: 73 ms, and 78 with the host's.  Fixed (SC_PR_FIX_UNBARRIER: the
   legacy work on a per-thread stream), the spins run beside the kernels
   (30 ms against 43), the wait waits for the moved work, then the host's
   5 ms: 48, a saving of 30 (_i 0).  Without the fix's finding, the same
   run saves nothing (_i 1). */
/* The three steps of 10 ms on stream 1 and 1 ms on the legacy stream 0
   (finding 1), then the 40 ms legacy kernel (finding `hold`); the time
   after the last call's start. */
static uint64_t legacy_steps(run *r, uint16_t hold)
{
    *r = (run){0};
    uint64_t at = 0;
    for (int k = 0; k < 3; k++, at += 20000) {
        sc_pr_call *c = add(r, 0, SC_PR_SUBMIT, at, at + 5000, 0, 1);
        c->gpu_known = 1, c->gpu_ns = 10 * MS, c->demand = 0.001f;
        c = add(r, 0, SC_PR_SUBMIT, at + 10000, at + 15000, 0, 0);
        c->gpu_known = 1, c->gpu_ns = MS, c->demand = 0.1f;
        c->finding[0] = 1;
    }
    sc_pr_call *c = add(r, 0, SC_PR_SUBMIT, at, at + 5000, 0, 0);
    c->gpu_known = 1, c->gpu_ns = 40 * MS, c->demand = 0.1f;
    c->finding[0] = hold;
    return at;
}

/* legacy_steps' run (its 40 ms kernel finding 1 too), then a wait for the
   legacy stream to 73 ms and 5 ms of host work: 78 ms as run. */
static void legacy_barrier_run(run *r)
{
    uint64_t at = legacy_steps(r, 1);
    add(r, 0, SC_PR_WAIT_STREAM, at + 10000, 73 * MS, 73 * MS - at - 10000, 0);
    add(r, 0, SC_PR_OTHER, 78 * MS, 78 * MS + 1000, 0, 0);
    busy(r, 0, 73 * MS);
}

START_TEST(legacy_work_off_the_barrier)
{
    static run r;
    sc_pr_stream st[2] = {{0, SC_PR_LEGACY, 0}, {0, SC_PR_BLOCKING, 0}};
    legacy_barrier_run(&r);
    sc_pr_finding f = {.fix = _i ? SC_PR_FIX_NONE : SC_PR_FIX_UNBARRIER, .in_all = 1};
    uint64_t saving;
    sc_pr_result res = price(&r, 1, st, 2, &f, 1, 0, 0, &saving);
    ck_assert_msg(res.model_ns > 77 * MS && res.model_ns < 79 * MS, "model %llu", (unsigned long long)res.model_ns);
    if (_i) {
        ck_assert_msg(saving < MS / 10, "saving %llu", (unsigned long long)saving);
        return;
    }
    ck_assert_msg(res.fixed_ns > 47 * MS && res.fixed_ns < 49 * MS, "fixed %llu", (unsigned long long)res.fixed_ns);
    ck_assert_msg(saving > 29 * MS && saving < 31 * MS, "saving %llu", (unsigned long long)saving);
}
END_TEST

/* The same run, the other fix: the blocking stream created non-blocking
   (SC_PR_FIX_NONBLOCK, its SC102 finding 2 named by the stream): the
   legacy kernels no longer wait for the 10 ms ones, 30 ms saved, as moving
   them off the barrier saves; not fixed (_i 1), nothing. */
START_TEST(blocking_stream_made_nonblocking)
{
    static run r;
    sc_pr_stream st[2] = {{0, SC_PR_LEGACY, 0}, {0, SC_PR_BLOCKING, 2}};
    legacy_barrier_run(&r);
    sc_pr_finding f[2] = {{.fix = SC_PR_FIX_NONE, .in_all = 1}, {.fix = _i ? SC_PR_FIX_NONE : SC_PR_FIX_NONBLOCK}};
    uint64_t saving[2];
    sc_pr_result res = price(&r, 1, st, 2, f, 2, 0, 0, saving);
    ck_assert_msg(res.model_ns > 77 * MS && res.model_ns < 79 * MS, "model %llu", (unsigned long long)res.model_ns);
    if (_i) {
        ck_assert_msg(saving[1] < MS / 10, "saving %llu", (unsigned long long)saving[1]);
        return;
    }
    ck_assert_msg(saving[1] > 29 * MS && saving[1] < 31 * MS, "saving %llu", (unsigned long long)saving[1]);
}
END_TEST

/* NVIDIA's simpleStreams joins its streams with an event on the legacy
   stream ("record in stream-0, to ensure that all previous CUDA calls have
   completed"), waits for it, then reads what they made: a 30 ms kernel on a
   blocking stream, the event (finding 1), its synchronize, 20 ms of host
   work; 50 ms as run.  Neither fix saves anything, as the fixed program
   still joins its streams there: the event moved off the barrier (_i 0,
   SC101's fix), or the stream made non-blocking (_i 1, SC102's, the
   stream's finding 2).  Before they kept the join, each saved 20 ms (the
   host work beside the kernel, on data not yet made). */
START_TEST(legacy_event_still_joins)
{
    static run r;
    r = (run){0};
    sc_pr_stream st[2] = {{0, SC_PR_LEGACY, 0}, {0, SC_PR_BLOCKING, 2}};
    sc_pr_call *c = add(&r, 0, SC_PR_SUBMIT, 0, 5000, 0, 1);
    c->gpu_known = 1, c->gpu_ns = 30 * MS, c->demand = 1;
    c = add(&r, 0, SC_PR_EVENT_RECORD, 10000, 12000, 0, 0);
    c->bytes = 0xe1, c->finding[0] = 1;
    add(&r, 0, SC_PR_WAIT_EVENT, 15000, 30 * MS, 30 * MS - 15000, 0);
    add(&r, 0, SC_PR_OTHER, 50 * MS, 50 * MS + 1000, 0, 0);
    busy(&r, 0, 30 * MS);
    sc_pr_finding f[2] = {{.fix = _i ? SC_PR_FIX_NONE : SC_PR_FIX_UNBARRIER, .in_all = 1},
                          {.fix = _i ? SC_PR_FIX_NONBLOCK : SC_PR_FIX_NONE, .in_all = 1}};
    uint64_t saving[2];
    sc_pr_result res = price(&r, 1, st, 2, f, 2, 0, 0, saving);
    ck_assert_msg(res.model_ns > 49 * MS && res.model_ns < 51 * MS, "model %llu", (unsigned long long)res.model_ns);
    ck_assert_msg(saving[_i] < MS / 10, "saving %llu", (unsigned long long)saving[_i]);
    ck_assert_uint_le(res.fixed_ns, res.model_ns);
}
END_TEST

/* simpleStreams' "non-streamed" loop: five steps of a 1 ms kernel on the
   legacy stream (finding 1) and a synchronous 64 MiB copy to the host that
   the recorder counted as waiting throughout (1.3 ms), 1.2 ms of it the
   copy, as measured mode timed it (gpu_ns).  No blocking stream exists:
   moving the kernels off the barrier saves nothing, as the copy (the
   thread's wait for the legacy stream) still waits for them (_i 0).  The
   copy made asynchronous at a calibrated rate below the one it ran at
   (finding 2, _i 1) costs no more than it did. */
START_TEST(sync_copies_after_legacy_kernels)
{
    static run r;
    r = (run){0};
    sc_pr_stream st[2] = {{0, SC_PR_LEGACY, 0}, {0, SC_PR_BLOCKING, 0}};
    uint64_t at = 0, step = 2300000;
    for (int k = 0; k < 5; k++, at += step) {
        sc_pr_call *c = add(&r, 0, SC_PR_SUBMIT, at, at + 5000, 0, 0);
        c->gpu_known = 1, c->gpu_ns = MS, c->demand = 1, c->finding[0] = 1;
        c = add(&r, 0, SC_PR_COPY_SYNC, at + 10000, at + 10000 + 2200000, 2200000, 0);
        c->dir = SC_PR_D2H, c->bytes = 64ull << 20, c->finding[0] = 2;
        c->gpu_known = 1, c->gpu_ns = 1200000;
        sc_pr_cap_copy_wait(c);
        ck_assert_uint_eq(c->wait_ns, 1000000);
        busy(&r, at + 10000, at + 10000 + 2200000);
    }
    add(&r, 0, SC_PR_OTHER, at, at + 1000, 0, 0);
    sc_pr_finding f[2] = {{.fix = _i ? SC_PR_FIX_NONE : SC_PR_FIX_UNBARRIER, .in_all = 1},
                          {.fix = _i ? SC_PR_FIX_PIN : SC_PR_FIX_NONE, .in_all = 1}};
    uint64_t saving[2];
    sc_pr_result res = price(&r, 1, st, 2, f, 2, 0, 50.0 * 0.9, saving);
    ck_assert_msg(saving[_i] < MS / 10, "saving %llu", (unsigned long long)saving[_i]);
    ck_assert_msg(res.fixed_ns <= res.model_ns + MS / 10, "fixed %llu, model %llu",
                  (unsigned long long)res.fixed_ns, (unsigned long long)res.model_ns);
}
END_TEST

/* A recorded pinned copy's own time (sc_pr_copy_ns): 4 MiB to the device
   at 48 bytes a ns, 87381 ns by the calibrated rate; measured mode timed it
   at 78560 (seed 003's on an H200).  The rate's time, unless the replays
   keep the GPU's gaps (sc_pr_model.gaps), where the shorter recorded time
   stands; a recorded time longer than the rate's (copies both ways at
   once) never does. */
START_TEST(recorded_copy_time_with_gaps)
{
    sc_pr_stream st = {0, SC_PR_NONBLOCKING, 0};
    sc_pr_device dev = {.known = 1, .rate = {0, 48, 48}};
    sc_pr_model m = {.streams = &st, .nstreams = 1, .devices = &dev, .ndevices = 1};
    sc_pr_call c = {.what = SC_PR_SUBMIT, .dir = SC_PR_H2D, .bytes = 4 << 20, .gpu_known = 1, .gpu_ns = 78560};
    ck_assert_uint_eq((uint64_t)sc_pr_copy_ns(&m, &c), 87381);
    m.gaps = 1;
    ck_assert_uint_eq((uint64_t)sc_pr_copy_ns(&m, &c), 78560);
    c.gpu_ns = 95000;
    ck_assert_uint_eq((uint64_t)sc_pr_copy_ns(&m, &c), 87381);
    c.gpu_known = 0, c.gpu_ns = 78560;
    ck_assert_uint_eq((uint64_t)sc_pr_copy_ns(&m, &c), 87381);
}
END_TEST

/* SC701's fix, CUDA_DEVICE_MAX_CONNECTIONS=32 (SC_PR_FIX_QUEUES): four
   streams on two hardware queues, each running a kernel A then a kernel B
   of 10 ms (CUPTI's times), as NVIDIA's simpleHyperQ does with 32 on 8:
   30 ms of busy GPU as run.  The kernels ran at once (80 ms of them in 30)
   and keep their times where the queues are modelled, so streams 3 and 4
   start behind streams 1 and 2's B, at 10 ms: 30 ms replayed, 20 with a
   queue per stream, 10 saved (_i 0).  Without the device's connections
   known (_i 1), no queue is shared and nothing is saved. */
START_TEST(streams_share_hardware_queues)
{
    static run r;
    r = (run){0};
    sc_pr_stream st[5] = {{0, SC_PR_LEGACY, 0}, {0, SC_PR_NONBLOCKING, 0}, {0, SC_PR_NONBLOCKING, 0},
                          {0, SC_PR_NONBLOCKING, 0}, {0, SC_PR_NONBLOCKING, 0}};
    uint64_t at = 0;
    for (uint32_t k = 1; k <= 4; k++)
        for (int ab = 0; ab < 2; ab++, at += 10000) {
            sc_pr_call *c = add(&r, 0, SC_PR_SUBMIT, at, at + 5000, 0, k);
            c->gpu_known = 1, c->gpu_ns = 10 * MS, c->demand = 0.01f;
            c->finding[0] = k > 2 ? 1 : 0;
        }
    add(&r, 0, SC_PR_WAIT_DEVICE, at, 30 * MS, 30 * MS - at, 0);
    add(&r, 0, SC_PR_OTHER, 31 * MS, 31 * MS + 1000, 0, 0);
    busy(&r, 0, 30 * MS);
    sc_pr_finding f = {.fix = SC_PR_FIX_QUEUES, .in_all = 1};
    sc_pr_thread th = {.calls = r.calls[0], .n = r.n[0]};
    sc_pr_device dev = {.busy = r.busy, .nbusy = r.nbusy, .known = 1, .connections = _i ? 0 : 2};
    sc_pr_model m = {.threads = &th, .nthreads = 1, .streams = st, .nstreams = 5, .devices = &dev, .ndevices = 1,
                     .findings = &f, .nfindings = 1};
    uint64_t saving;
    sc_pr_result res = {.saving = &saving, .dropped = dropped, .together = together, .together_n = together_n};
    ck_assert_int_eq(sc_pr_price(&m, &res), 0);
    if (_i) {
        ck_assert_uint_eq(saving, 0);
        return;
    }
    ck_assert_msg(saving > 9 * MS && saving < 11 * MS, "saving %llu", (unsigned long long)saving);
    ck_assert_uint_eq(res.model_ns - res.fixed_ns, saving);
    ck_assert_msg(res.model_ns > 29 * MS && res.model_ns < 31 * MS + MS / 2, "model %llu",
                  (unsigned long long)res.model_ns);
}
END_TEST

/* legacy_work_off_the_barrier's run, its legacy calls three sites: the
   three 1 ms kernels (finding 1), the 40 ms one (2), and a 0.1 ms one
   after it (3).  As run 73 ms.  Moved alone, the 1 ms kernels no longer
   hold the 10 ms ones back (3 ms saved), but the 40 ms one still waits for
   them; the 40 ms one alone still starts after the third 1 ms one, which
   waits for the 10 ms ones (0 saved); the last saves nothing.  Moved at
   once: 30 ms (43 ms on the thread's own stream beside 30 on the blocking
   one), shared by what each adds to it: without the first, the run takes
   73 ms (30 more), without the second 70 (27 more), without the third 43
   (0): 15.8, 14.2 and 0 ms. */
START_TEST(legacy_sites_priced_together)
{
    static run r;
    sc_pr_stream st[2] = {{0, SC_PR_LEGACY, 0}, {0, SC_PR_BLOCKING, 0}};
    uint64_t at = legacy_steps(&r, 2);
    sc_pr_call *c = add(&r, 0, SC_PR_SUBMIT, at + 10000, at + 15000, 0, 0);
    c->gpu_known = 1, c->gpu_ns = MS / 10, c->demand = 0.1f;
    c->finding[0] = 3;
    add(&r, 0, SC_PR_WAIT_STREAM, at + 20000, 73 * MS + MS / 10, 73 * MS + MS / 10 - at - 20000, 0);
    add(&r, 0, SC_PR_OTHER, 78 * MS, 78 * MS + 1000, 0, 0);
    busy(&r, 0, 73 * MS + MS / 10);
    sc_pr_finding f[3];
    for (int i = 0; i < 3; i++)
        f[i] = (sc_pr_finding){.fix = SC_PR_FIX_UNBARRIER, .in_all = 1};
    uint64_t saving[3];
    sc_pr_result res = price(&r, 1, st, 2, f, 3, 0, 0, saving);
    ck_assert_msg(res.fixed_ns > 47 * MS && res.fixed_ns < 49 * MS, "fixed %llu", (unsigned long long)res.fixed_ns);
    ck_assert_msg(saving[0] > 14 * MS && saving[0] < 17 * MS + MS / 2, "first %llu", (unsigned long long)saving[0]);
    ck_assert_msg(saving[1] > 12 * MS + MS / 2 && saving[1] < 16 * MS, "second %llu", (unsigned long long)saving[1]);
    ck_assert_msg(saving[2] < MS / 2, "third %llu", (unsigned long long)saving[2]);
    ck_assert_uint_le(saving[0] + saving[1] + saving[2], res.model_ns - res.fixed_ns + MS / 10);
}
END_TEST

/* Steps of host work, a pageable copy (a wait for the stream, then 2 ms
   of staging), a kernel.  GPU-bound (4 ms host, 10 ms kernel): each step
   takes 12 ms; pinned at 1 ms a copy the GPU does 11 a step, at 2 ms 12:
   no gain.  Host-bound (10 ms host, 4 ms kernel): 12 ms a step; pinned,
   the host's 10. */
static uint64_t pageable_released(uint64_t host, uint64_t kernel, double rate, uint64_t release,
                                  uint64_t *window)
{
    static run r;
    r = (run){0};
    sc_pr_stream st = {0, SC_PR_NONBLOCKING, 0};
    uint64_t now = 0, gpu_free = 0;
    for (int k = 0; k < 20; k++) {
        now += host * MS;
        uint64_t drained = gpu_free > now ? gpu_free : now;
        sc_pr_call *c = add(&r, 0, SC_PR_COPY_PAGEABLE, now, drained + 2 * MS, drained - now, 0);
        c->dir = SC_PR_H2D;
        c->bytes = 2 * MS;   /* so that rate 1 byte/ns is 2 ms and 2 bytes/ns is 1 ms */
        c->finding[0] = 1;
        busy(&r, drained, drained + 2 * MS);   /* the staged copy itself */
        c->release_ns = release * MS;          /* then the host unmaps the copy's source */
        now = drained + 2 * MS + release * MS;
        add(&r, 0, SC_PR_SUBMIT, now, now + 10000, 0, 0);
        busy(&r, now, now + kernel * MS);
        gpu_free = now + kernel * MS;
        now += 10000;
    }
    add(&r, 0, SC_PR_WAIT_STREAM, now, gpu_free, gpu_free - now, 0);
    sc_pr_finding f = {.fix = SC_PR_FIX_PIN, .in_all = 1};
    uint64_t saving;
    sc_pr_result res = price(&r, 1, &st, 1, &f, 1, 0, rate, &saving);
    near(res.model_ns, res.window_ns);
    *window = res.window_ns;
    return saving;
}

static uint64_t pageable(uint64_t host, uint64_t kernel, double rate, uint64_t *window)
{
    return pageable_released(host, kernel, rate, 0, window);
}

START_TEST(pageable_copies)
{
    uint64_t w;
    /* GPU-bound: from the first copy on, 12 ms a step on the GPU, then
       the last kernel; pinned at 1 ms a copy, the GPU does 11 a step */
    uint64_t s = pageable(4, 10, 2.0, &w);
    near(w, 2 * MS + 19 * 12 * MS + 10 * MS);
    ck_assert_uint_gt(s, 19 * MS);
    ck_assert_uint_lt(s, 21 * MS);
    /* pinned at the rate the staging had: nothing to gain */
    s = pageable(4, 10, 1.0, &w);
    ck_assert_uint_lt(s, 1 * MS);
    /* host-bound: each step's 2 ms of staging goes (the host's 10 ms stay) */
    s = pageable(10, 4, 1.0, &w);
    ck_assert_uint_gt(s, 37 * MS);
    ck_assert_uint_lt(s, 39 * MS);
}
END_TEST

/* The copies' sources unmapped after each copy (a DataLoader's batches in
   shared memory), 3 ms a step: the fix keeps a pinned buffer, so the
   host-bound loop saves those too, 5 ms a step.  GPU-bound (4 ms host, 12
   ms kernels): as run 17 ms a step (the 2 ms copy, the release while the
   GPU waits for the kernel, the kernel); pinned at 1 ms a copy the GPU
   does 13, the host's 4 hidden: 4 ms a step. */
START_TEST(released_sources)
{
    uint64_t w;
    uint64_t s = pageable_released(10, 4, 1.0, 3, &w);
    near(w, 20 * 15 * MS - 10 * MS + 19 * 10000 + 4 * MS);   /* from the first copy to the last kernel */
    ck_assert_uint_gt(s, 97 * MS);
    ck_assert_uint_lt(s, 99 * MS);
    s = pageable_released(4, 12, 2.0, 3, &w);
    near(w, 20 * 17 * MS);
    ck_assert_uint_gt(s, 76 * MS);
    ck_assert_uint_lt(s, 81 * MS);
    /* the release is spared only where the copy is pinned: without it the
       model is the run as recorded */
    s = pageable_released(10, 4, 1.0, 0, &w);
    ck_assert_uint_lt(s, 39 * MS);
}
END_TEST

/* Twenty steps, each receiving its batch first (`recv` ms after the last
   step's wait returned: a DataLoader's batch from a worker, receive_ns),
   then copying it from pageable memory (2 ms, at the pinned rate too: the
   copy gains nothing), then a `kernel` ms kernel, waited for: recv + 2 +
   kernel ms a step.  Pinned, a pinning thread receives the batches and
   copies each into pinned memory (the 2 ms of staging the pageable copy
   did), two in flight, while the thread copies and computes: the loop runs
   as fast as the slower of the two.  Receipts of 5 ms, a 2 ms kernel: 9 ms
   a step as run (180 ms); pinned, a batch every 7 ms, the last step's 4
   after the last: 144 ms, 36 saved (not the 100 that dropping the receipts
   would give).  Receipts of 1 ms, an 8 ms kernel: 11 a step (220); pinned,
   the first batch at 3, then 10 a step: 203, 17 saved. */
static uint64_t received(uint64_t recv, uint64_t kernel)
{
    static run r;
    r = (run){0};
    sc_pr_stream st = {0, SC_PR_NONBLOCKING, 0};
    uint64_t now = 0;
    add(&r, 0, SC_PR_OTHER, 0, 10000, 0, 0);
    now = 10000;
    for (int k = 0; k < 20; k++) {
        uint64_t from = now;
        now += recv * MS;
        sc_pr_call *c = add(&r, 0, SC_PR_COPY_PAGEABLE, now, now + 2 * MS, 0, 0);
        c->dir = SC_PR_H2D;
        c->bytes = 2 * MS;
        c->finding[0] = 1;
        c->receive_ns = recv * MS;
        c->receive_t0 = from;
        busy(&r, now, now + 2 * MS);
        now += 2 * MS;
        add(&r, 0, SC_PR_SUBMIT, now, now + 10000, 0, 0);
        busy(&r, now, now + kernel * MS);
        add(&r, 0, SC_PR_WAIT_STREAM, now + 10000, now + kernel * MS, kernel * MS - 10000, 0);
        now += kernel * MS;
    }
    sc_pr_finding f = {.fix = SC_PR_FIX_PIN, .in_all = 1};
    uint64_t saving;
    sc_pr_result res = price(&r, 1, &st, 1, &f, 1, 0, 1.0, &saving);
    near(res.model_ns, res.window_ns);
    return saving;
}

START_TEST(receipts_to_a_pinning_thread)
{
    uint64_t s = received(5, 2);
    ck_assert_uint_gt(s, 35 * MS);
    ck_assert_uint_lt(s, 37 * MS);
    s = received(1, 8);
    ck_assert_uint_gt(s, 16 * MS);
    ck_assert_uint_lt(s, 18 * MS);
}
END_TEST

/* A Python loop's twenty steps of 10 ms: each receives its batch (1 ms off
   the thread's CPU, then 2 ms on it: receive_ns, receive_cpu_ns), copies it
   from pageable memory (2 ms on the CPU, as fast as pinned), then waits for
   a 5 ms kernel (spinning).  The thread's CPU clock (cpu_ns) runs 2 + 2 + 5
   ms a step, 5 of them waiting in a call: it holds the GIL 4 ms of 10, so
   0.6 of the receipts' CPU time is the pinning thread's to take, and a
   receipt is priced 1 + 0.6 x 2 = 2.2 ms (1 with the CPU time left out).
   Pinned, the thread spends the rest of the receipt, then waits for the
   copy and the kernel on the GPU (7 ms): 7.8 ms a step, or 9 with the CPU
   time left out; the pinning thread's 5 ms a batch (receipt and staging; 3
   with the CPU time left out) keep ahead but for the first batch, which the
   thread waits for longer (4.2 ms; 1 without).  So the share saves about
   1.2 ms a step more, a little less for that wait: 22 ms over the run (the
   replay: 38.97 against 17.01). */
static uint64_t received_py(int with_cpu)
{
    static run r;
    r = (run){0};
    receipt_cpu = with_cpu;
    sc_pr_stream st = {0, SC_PR_NONBLOCKING, 0};
    uint64_t now = 10000, cpu = 10000;
    add(&r, 0, SC_PR_OTHER, 0, now, 0, 0)->cpu_ns = cpu;
    for (int k = 0; k < 20; k++) {
        uint64_t from = now;
        now += 3 * MS;
        cpu += 2 * MS;
        sc_pr_call *c = add(&r, 0, SC_PR_COPY_PAGEABLE, now, now + 2 * MS, 0, 0);
        c->dir = SC_PR_H2D;
        c->bytes = 2 * MS;
        c->finding[0] = 1;
        c->receive_ns = 1 * MS;
        c->receive_cpu_ns = 2 * MS;
        c->receive_t0 = from;
        busy(&r, now, now + 2 * MS);
        now += 2 * MS;
        c->cpu_ns = cpu += 2 * MS;
        add(&r, 0, SC_PR_SUBMIT, now, now + 10000, 0, 0)->cpu_ns = cpu += 10000;
        busy(&r, now, now + 5 * MS);
        add(&r, 0, SC_PR_WAIT_STREAM, now + 10000, now + 5 * MS, 5 * MS - 10000, 0)->cpu_ns = cpu += 5 * MS - 10000;
        now += 5 * MS;
    }
    sc_pr_finding f = {.fix = SC_PR_FIX_PIN, .in_all = 1};
    uint64_t saving;
    sc_pr_result res = price(&r, 1, &st, 1, &f, 1, 0, 1.0, &saving);
    receipt_cpu = 0;
    near(res.model_ns, res.window_ns);
    return saving;
}

START_TEST(receipts_cpu_by_the_gils_free_share)
{
    uint64_t off = received_py(0), share = received_py(1);
    ck_assert_uint_gt(share, off + 21 * MS);
    ck_assert_uint_lt(share, off + 23 * MS);
    ck_assert_uint_gt(off, 16 * MS);
    ck_assert_uint_lt(off, 18 * MS);
}
END_TEST

/* Steps of 10 ms of host work, a 4 ms kernel and its result read back to
   the host through a pageable async copy that waits for the kernel, then
   spends 3 ms faulting in the fresh pages it writes (touch_ns) and 2 ms
   copying, then a sync of the stream (as PyTorch's .cpu()): 19 ms a step.
   Pinned (1 ms a copy, waited for at the sync): 15 ms a step, and the
   pages touched once, 60 ms, where the buffers are allocated before the
   loop: 20 ms saved, not the 80 that counting the touch as the copy's
   would claim.  Where each step's destination is mapped anew where the
   last was (again), the copies after the first fault the pages in their
   own time (touch_ns 0), and one pinned buffer kept is touched once: 77 ms.
   Without the sync the pinned copy is waited for nowhere: the result is
   used where the program next waits, and the host goes on at once. */
static uint64_t read_back(uint64_t touch, int again, int sync)
{
    static run r;
    r = (run){0};
    sc_pr_stream st = {0, SC_PR_NONBLOCKING, 0};
    uint64_t now = 0;
    for (int k = 0; k < 20; k++) {
        now += 10 * MS;
        add(&r, 0, SC_PR_SUBMIT, now, now + 10000, 0, 0);
        busy(&r, now, now + 4 * MS);
        uint64_t done = now + 4 * MS;
        sc_pr_call *c = add(&r, 0, SC_PR_COPY_PAGEABLE, now + 10000, done + 5 * MS, done - now - 10000, 0);
        c->dir = SC_PR_D2H;
        c->bytes = 2 * MS;
        c->finding[0] = 1;
        c->touch_again = (uint8_t)(again && k > 0);
        c->touch_ns = c->touch_again ? 0 : touch * MS;
        busy(&r, done + 3 * MS, done + 5 * MS);
        now = done + 5 * MS;
        if (sync) {
            add(&r, 0, SC_PR_WAIT_STREAM, now, now + 10000, 0, 0);
            now += 10000;
        }
    }
    add(&r, 0, SC_PR_OTHER, now, now + 10000, 0, 0);
    sc_pr_finding f = {.fix = SC_PR_FIX_PIN, .in_all = 1};
    uint64_t saving;
    price(&r, 1, &st, 1, &f, 1, 0, 2.0, &saving);
    return saving;
}

START_TEST(first_touch_not_saved)
{
    uint64_t s = read_back(3, 0, 1);
    ck_assert_uint_gt(s, 19 * MS);
    ck_assert_uint_lt(s, 21 * MS);
    /* the same run with the touch not told apart: the fix is credited with it */
    s = read_back(0, 0, 1);
    ck_assert_uint_gt(s, 79 * MS);
    ck_assert_uint_lt(s, 81 * MS);
    /* the destination mapped anew each step: the touches after the first saved */
    s = read_back(3, 1, 1);
    ck_assert_uint_gt(s, 76 * MS);
    ck_assert_uint_lt(s, 78 * MS);
    /* no sync after the copy: the fixed loop is host-bound, 10 ms a step,
       its GPU work (5 ms a step) behind the host's: 175 ms of the 380 saved */
    s = read_back(0, 0, 0);
    ck_assert_uint_gt(s, 170 * MS);
    ck_assert_uint_lt(s, 180 * MS);
}
END_TEST

/* Seed 003's chunks with the host synchronizing each stage: a 2 ms upload
   on stream 0, a wait for it, a 1 ms kernel that fills the device on
   stream 1, a wait, a 2 ms download on stream 2, a wait: 5 ms a chunk, ten
   chunks.  With events instead of the waits the compute waits for its
   upload and the download for its compute on the GPU, and the next
   upload, on its own copy engine, waits for the last compute only (the
   download's wait ordered nothing on the GPU): a chunk every 3 ms, about
   18 ms saved of 50.  Replayed with no order at all the kernels would run
   before their uploads (30 saved); with the copies on the compute engine
   nothing would overlap (about 0).  The same with a device synchronization
   after each stage (_i 1), and with the seed's events recorded for its
   timing (_i 2: before each upload and after each download, under
   measured mode, which records them): a wait for a stream whose last mark
   follows a download orders no more than the download did. */
static int marked;   /* host_synced_stages records the seed's timing events */

static sc_pr_result host_synced_stages(uint64_t *saving, int joint, uint8_t wait)
{
    static run r;
    r = (run){0};
    static const sc_pr_stream st[3] = {{0, SC_PR_NONBLOCKING, 0}, {0, SC_PR_NONBLOCKING, 0}, {0, SC_PR_NONBLOCKING, 0}};
    static const struct { uint8_t dir; uint64_t ms; } stage[3] = {{SC_PR_H2D, 2}, {0, 1}, {SC_PR_D2H, 2}};
    uint64_t now = MS;
    for (int k = 0; k < 10; k++)
        for (uint32_t j = 0; j < 3; j++) {
            if (marked && j == 0)
                add(&r, 0, SC_PR_EVENT_RECORD, now, now + 1000, 0, j)->bytes = 0x100 + (uint64_t)k;
            sc_pr_call *c = add(&r, 0, SC_PR_SUBMIT, now, now + 10000, 0, j);
            c->dir = stage[j].dir;
            c->bytes = stage[j].dir ? 4 * MS : 0;
            c->demand = stage[j].dir ? 0 : 1;
            uint64_t end = now + stage[j].ms * MS;
            busy(&r, now + 5000, end - 5000);
            if (marked && j == 2)
                add(&r, 0, SC_PR_EVENT_RECORD, now + 10000, now + 11000, 0, j)->bytes = 0x200 + (uint64_t)k;
            add(&r, 0, wait, now + 10000, end, end - now - 10000, j)->finding[0] = (uint16_t)(j + 1);
            now = end;
        }
    add(&r, 0, SC_PR_OTHER, now, now + 10000, 0, 0);
    sc_pr_finding f[3];
    for (int j = 0; j < 3; j++)
        f[j] = (sc_pr_finding){.fix = SC_PR_FIX_NO_WAIT, .in_all = 1, .joint = (uint8_t)joint};
    return price(&r, 1, st, 3, f, 3, 0, 2.0, saving);
}

START_TEST(host_syncs_become_events)
{
    uint8_t wait = _i == 1 ? SC_PR_WAIT_DEVICE : SC_PR_WAIT_STREAM;
    marked = _i == 2;
    uint64_t saving[3];
    sc_pr_result res = host_synced_stages(saving, 1, wait);
    uint64_t all = res.model_ns - res.fixed_ns;
    ck_assert_uint_gt(all, 16 * MS);
    ck_assert_uint_lt(all, 20 * MS);
    /* alone, dropping the download's wait lets the next upload run beside
       it (the whole saving); the upload's or the compute's alone saves
       nothing, their order kept on the GPU and the host still waiting at
       the next stage */
    /* the three waits share their fix: fixed at once they save what the
       everything-fixed run does */
    for (int k = 0; k < 3; k++) {
        ck_assert_uint_eq(together_n[k], 3);
        ck_assert_uint_eq(together[k], all);
    }
    host_synced_stages(saving, 0, wait);
    ck_assert_uint_lt(saving[0], MS / 10);
    ck_assert_uint_lt(saving[1], MS / 10);
    ck_assert_uint_gt(saving[2], all - MS);
    ck_assert_uint_lt(saving[2], all + MS / 10);
}
END_TEST

/* Two waits a step, as a loss.item() then an accuracy .item(): the first
   waits for the step's 10 ms kernel, the second, after a tiny kernel, for
   almost nothing -- but without the first it would wait in its place.
   Alone each saves about nothing; together they save what one wait a step
   did (80 ms), and the one that waited gets it. */
START_TEST(joint_waits)
{
    static run r;
    r = (run){0};
    sc_pr_stream st = {0, SC_PR_LEGACY, 0};
    for (uint64_t k = 0; k < 10; k++) {
        uint64_t t = k * 18 * MS;
        add(&r, 0, SC_PR_SUBMIT, t, t + 10000, 0, 0);
        add(&r, 0, SC_PR_WAIT_STREAM, t + 10000, t + 10 * MS, 10 * MS - 10000, 0)->finding[0] = 1;
        add(&r, 0, SC_PR_SUBMIT, t + 10 * MS, t + 10 * MS + 5000, 0, 0);
        add(&r, 0, SC_PR_WAIT_STREAM, t + 10 * MS + 5000, t + 10 * MS + 15000, 10000, 0)->finding[0] = 2;
        busy(&r, t, t + 10 * MS);
        busy(&r, t + 10 * MS + 5000, t + 10 * MS + 10000);
    }
    add(&r, 0, SC_PR_OTHER, 180 * MS, 180 * MS + 10000, 0, 0);
    sc_pr_finding f[2] = {{.fix = SC_PR_FIX_NO_WAIT, .in_all = 1, .joint = 1},
                          {.fix = SC_PR_FIX_NO_WAIT, .in_all = 1, .joint = 1}};
    uint64_t saving[2];
    sc_pr_result res = price(&r, 1, &st, 1, f, 2, 0, 0, saving);
    ck_assert_uint_gt(saving[0], 78 * MS);
    ck_assert_uint_lt(saving[0], 82 * MS);
    ck_assert_uint_lt(saving[1], 1 * MS);
    /* all fixed: both waits gone, what the two shares add up to (the
       second's own saving is its 10 us a step) */
    ck_assert_uint_lt(saving[0] + saving[1] - (res.model_ns - res.fixed_ns) + 200000, 400000);
    /* not joint: the first alone takes the second along, a wait found all
       but done right after it (pricing.c, shadowed); the second alone
       leaves the first's wait */
    f[0].joint = f[1].joint = 0;
    price(&r, 1, &st, 1, f, 2, 0, 0, saving);
    ck_assert_uint_gt(saving[0], 78 * MS);
    ck_assert_uint_lt(saving[1], 1 * MS);
}
END_TEST

/* A thread joins another (pthread_join): its wait is for that thread's end,
   so when the other ends sooner (its own wait dropped), so does it. */
START_TEST(join_follows_the_other_thread)
{
    static run r;
    r = (run){0};
    sc_pr_stream st = {0, SC_PR_NONBLOCKING, 0};
    add(&r, 1, SC_PR_SUBMIT, 0, 10000, 0, 0);
    add(&r, 1, SC_PR_WAIT_STREAM, 10000, 50 * MS, 50 * MS - 10000, 0)->finding[0] = 1;
    add(&r, 1, SC_PR_OTHER, 80 * MS, 80 * MS + 1000, 0, 0);   /* 30 ms of work after the wait */
    add(&r, 0, SC_PR_SUBMIT, 0, 1000, 0, 0);
    add(&r, 0, SC_PR_WAIT_STREAM, 1000, 2000, 0, 0);          /* an actor: it waits */
    sc_pr_call *j = add(&r, 0, SC_PR_JOIN, 2000, 80 * MS + 2000, 0, 0);
    j->stream = 1;
    add(&r, 0, SC_PR_OTHER, 80 * MS + 2000, 80 * MS + 3000, 0, 0);
    busy(&r, 0, 50 * MS);
    sc_pr_finding f = {.fix = SC_PR_FIX_NO_WAIT, .in_all = 1};
    uint64_t saving;
    sc_pr_result res = price(&r, 2, &st, 1, &f, 1, 0, 0, &saving);
    near(res.model_ns, 80 * MS + 3000);
    /* without the wait the worker's 30 ms of host work overlap its kernel */
    ck_assert_uint_gt(saving, 29 * MS);
    ck_assert_uint_lt(saving, 31 * MS);
}
END_TEST

/* Work the program queues late, before a wait.  Ten steps of 20 ms: 10 ms
   of host work that queues 100 kernels through the fast path (counted, not
   recorded), a wait of 6 ms for them (the GPU ran 10 ms of them, the last
   6 after the wait began), 4 ms of host work.  Spread evenly over the host
   time, the kernels would have been done by the wait (about 1.25 ms left)
   and the replay would run 140 ms; the wait says 6 ms were left, and the
   replay is the run's 200 ms.  Without the waits the host sets the pace,
   14 ms a step: about 54 ms saved. */
START_TEST(late_work_before_a_wait)
{
    static run r;
    r = (run){0};
    sc_pr_stream st = {0, SC_PR_NONBLOCKING, 0};
    for (uint64_t k = 0; k < 10; k++) {
        uint64_t t = k * 20 * MS;
        add(&r, 0, SC_PR_OTHER, t, t + 1000, 0, 0);
        sc_pr_call *w = add(&r, 0, SC_PR_WAIT_STREAM, t + 10 * MS, t + 16 * MS, 6 * MS, 0);
        w->nsub = 100;
        w->finding[0] = 1;
        busy(&r, t + 6 * MS, t + 16 * MS);
    }
    add(&r, 0, SC_PR_OTHER, 200 * MS, 200 * MS + 1000, 0, 0);
    sc_pr_finding f = {.fix = SC_PR_FIX_NO_WAIT, .in_all = 1};
    uint64_t saving;
    sc_pr_result res = price(&r, 1, &st, 1, &f, 1, 0, 0, &saving);
    near(res.window_ns, 200 * MS + 1000);
    ck_assert_msg(res.model_ns > 196 * MS && res.model_ns < 204 * MS, "model %llu", (unsigned long long)res.model_ns);
    ck_assert_msg(saving > 50 * MS && saving < 60 * MS, "saving %llu", (unsigned long long)saving);
}
END_TEST

/* The steady loop.  Set-up: ten 1 ms waits for allocations (finding 2),
   then set_up_ms of host work without CUDA (NCCL's initialization,
   building the model); then 20 steps of 10 ms, each a submission and a 4 ms
   wait (finding 1), then 5 ms of host work.  After 1500 ms the loop starts
   one period before the first step's wait: 10 ms before 1510 + 1; finding 2
   is the set-up's.  Without the set-up there is no loop (it would leave out
   less than a quarter), nor after 400 ms (a quarter, but not a second: a
   short program's phases), nor after 300 s (the loop under 0.1% of the
   window).  With set_up_ms 0 steps start at 10 ms.
   warm_ms: the first step's host work takes that much more (cuDNN's
   autotuning): the loop then starts one period before the second step's
   wait.  down_ms: host work after the steps (a process group's teardown),
   then one more call, with finding 2's ten waits before it: the loop then
   ends one period after the last step's wait. */
static sc_pr_result steady_run(uint64_t set_up_ms, uint64_t warm_ms, uint64_t down_ms, uint8_t *before)
{
    static run r;
    r = (run){0};
    sc_pr_stream st = {0, SC_PR_NONBLOCKING, 0};
    for (uint64_t k = 0; k < 10; k++) {
        add(&r, 0, SC_PR_SUBMIT, k * MS, k * MS + 1000, 0, 0);
        add(&r, 0, SC_PR_WAIT_DEVICE, k * MS + 1000, k * MS + 900000, 800000, 0)->finding[0] = 2;
        busy(&r, k * MS, k * MS + 900000);
    }
    uint64_t t0 = 10 * MS + set_up_ms * MS;
    add(&r, 0, SC_PR_OTHER, t0 - 1000, t0 - 500, 0, 0);
    for (uint64_t k = 0; k < 20; k++) {
        uint64_t t = t0 + k * 10 * MS + (k ? warm_ms * MS : 0);
        add(&r, 0, SC_PR_SUBMIT, t, t + 1000, 0, 0);
        add(&r, 0, SC_PR_WAIT_STREAM, t + MS, t + 5 * MS, 4 * MS, 0)->finding[0] = 1;
        busy(&r, t, t + 5 * MS);
    }
    uint64_t t1 = t0 + (200 + warm_ms + down_ms) * MS;
    for (uint64_t k = 0; down_ms && k < 10; k++) {
        add(&r, 0, SC_PR_WAIT_DEVICE, t1 - (10 - k) * MS, t1 - (10 - k) * MS + 900000, 800000, 0)->finding[0] = 2;
        busy(&r, t1 - (10 - k) * MS, t1 - (10 - k) * MS + 900000);
    }
    add(&r, 0, SC_PR_OTHER, t1, t1 + 1000, 0, 0);
    sc_pr_finding f[2] = {{.fix = SC_PR_FIX_NO_WAIT, .in_all = 1}, {.fix = SC_PR_FIX_NO_WAIT, .in_all = 1}};
    uint64_t saving[2];
    sc_pr_thread th = {.calls = r.calls[0], .n = r.n[0]};
    sc_pr_device dev = {.busy = r.busy, .nbusy = r.nbusy, .known = 1};
    sc_pr_model m = {.threads = &th, .nthreads = 1, .streams = &st, .nstreams = 1, .devices = &dev,
                     .ndevices = 1, .findings = f, .nfindings = 2};
    sc_pr_result res = {.saving = saving, .off_loop = before};
    ck_assert_int_eq(sc_pr_price(&m, &res), 0);
    return res;
}

static sc_pr_result steady(uint64_t set_up_ms, uint8_t *before)
{
    return steady_run(set_up_ms, 0, 0, before);
}

START_TEST(steady_loop_after_set_up)
{
    uint8_t before[2] = {9, 9};
    sc_pr_result res = steady(1500, before);
    near(res.window_ns, 1710 * MS + 1000);
    near(res.loop_ns, 1710 * MS + 1000 - (1510 * MS + MS - 10 * MS));
    ck_assert_int_eq(before[0], 0);
    ck_assert_int_eq(before[1], 1);
    /* a first step 400 ms long: the loop starts at the second step's wait
       less a period (10 ms); 40 ms (4 periods) is no warm-up */
    res = steady_run(1500, 400, 0, before);
    near(res.window_ns, 2110 * MS + 1000);
    near(res.loop_ns, 2110 * MS + 1000 - (1510 * MS + 410 * MS + MS - 10 * MS));
    ck_assert_int_eq(before[0], 0);
    res = steady_run(1500, 30, 0, before);
    near(res.loop_ns, 1740 * MS + 1000 - (1510 * MS + MS - 10 * MS));
}
END_TEST

/* After the steps, 1200 ms of teardown: the loop ends one period (10 ms)
   after the last step's wait; finding 2, waiting both before the loop and
   after it, is off it neither way.  With no set-up, the teardown alone is
   left out. */
START_TEST(steady_loop_before_teardown)
{
    uint8_t before[2] = {9, 9};
    uint64_t last = 1510 * MS + 190 * MS + MS;   /* the last step's wait */
    sc_pr_result res = steady_run(1500, 0, 1200, before);
    near(res.window_ns, 2910 * MS + 1000);
    near(res.loop_ns, last + 10 * MS - (1510 * MS + MS - 10 * MS));
    ck_assert_int_eq(before[0], 0);
    ck_assert_int_eq(before[1], 0);
    res = steady_run(0, 0, 1200, before);   /* the first wait at 11 ms, the last at 201 */
    near(res.loop_ns, 210 * MS);
    ck_assert_int_eq(before[0], 0);
}
END_TEST

START_TEST(no_loop_without_set_up)
{
    uint8_t before[2] = {9, 9};
    sc_pr_result res = steady(0, before);
    near(res.window_ns, 210 * MS + 1000);
    ck_assert_uint_eq(res.loop_ns, 0);
    ck_assert_int_eq(before[0], 0);
    ck_assert_int_eq(before[1], 0);
    /* 400 ms of set-up: two thirds of the window, but under a second */
    res = steady(400, before);
    near(res.window_ns, 610 * MS + 1000);
    ck_assert_uint_eq(res.loop_ns, 0);
    /* 300 s of set-up: the 200 ms loop is under 0.1% of the window, not
       where the run's time goes; 150 s: 0.14%, a loop */
    res = steady(300000, before);
    ck_assert_uint_eq(res.loop_ns, 0);
    ck_assert_int_eq(before[1], 0);
    res = steady(150000, before);
    near(res.loop_ns, 209 * MS + 1000);
    /* no array: nothing written */
    res = steady(1500, NULL);
    ck_assert_uint_gt(res.loop_ns, 0);
}
END_TEST

/* Eight pieces queued from *at, 10 us apart: each a 2 ms upload (2 ms of
   bytes at 1 byte per ns), a kernel that fills the device and a 2 ms
   download.  Their buffers: k % buffers for piece k (buffers > 0), one a
   piece for both copies (0), or one a copy (-1).  mark: the first upload
   counts in finding 1.  known, kernel_ns: the GPU times measured mode
   records (the copies' 2 ms). */
static void eight_pieces(run *r, uint64_t *at, int buffers, int mark, int known, uint64_t kernel_ns)
{
    for (int k = 0; k < 8; k++)
        for (int j = 0; j < 3; j++, *at += 10000) {
            sc_pr_call *c = add(r, 0, SC_PR_SUBMIT, *at, *at + 5000, 0, 0);
            c->gpu_known = (uint8_t)known;
            if (j == 1) {
                c->demand = 1;
                c->gpu_ns = kernel_ns;
                continue;
            }
            int slot = buffers > 0 ? k % buffers : buffers == 0 ? k : 2 * k + !!j;
            c->gpu_ns = 2 * MS;
            c->dir = j ? SC_PR_D2H : SC_PR_H2D;
            c->bytes = 2 * MS;
            c->dev = 0x10000000ull + (uint64_t)slot * 0x1000000ull;
            c->finding[0] = mark && !k && !j;
        }
}

/* Eight pieces, each a 2 ms upload, a 3 ms kernel and a 2 ms download of
   what was uploaded, all queued on one stream at once, then a wait: 56 ms.
   With the copies on an upload and a download stream, ordered by events,
   the kernels run back to back after the first upload: 2 + 8 x 3 + 2 = 28
   ms, a saving of 28.  The pieces' buffers decide what may overlap: one
   buffer for all of them keeps the run as it was (each upload waits for the
   download before it); two, used in turn, let a piece upload while the one
   before computes: 31 ms.  With a warm-up pass before (the same pieces,
   into the same buffers, then a wait), the finding is the timed pass's:
   its uploads wait for what used their buffers in the warm-up, long done,
   and save as much as without it. */
static uint64_t pipelined(int buffers, int warm, uint64_t *fixed)
{
    static run r;
    r = (run){0};
    sc_pr_stream st = {0, SC_PR_NONBLOCKING, 0};
    uint64_t at = 0, base = 0;
    for (int pass = warm ? 0 : 1; pass < 2; pass++, base += 56 * MS) {
        at = base;
        eight_pieces(&r, &at, buffers, pass, 0, 0);
        add(&r, 0, SC_PR_WAIT_STREAM, at, base + 56 * MS, base + 56 * MS - at, 0);
        busy(&r, base + 5000, base + 56 * MS);
    }
    sc_pr_finding f = {.fix = SC_PR_FIX_PIPELINE, .in_all = 1};
    uint64_t saving;
    sc_pr_result res = price(&r, 1, &st, 1, &f, 1, 0, 1.0, &saving);
    near(res.model_ns, (warm ? 112 : 56) * MS);
    *fixed = res.fixed_ns;
    return saving;
}

START_TEST(copies_beside_kernels)
{
    int warm = _i;
    uint64_t fixed;
    uint64_t saving = pipelined(0, warm, &fixed);
    ck_assert_uint_gt(saving, 27 * MS);
    ck_assert_uint_lt(saving, 29 * MS);
    ck_assert_uint_lt(pipelined(1, warm, &fixed), MS / 10);
    saving = pipelined(2, warm, &fixed);
    ck_assert_uint_gt(saving, 24 * MS);
    ck_assert_uint_lt(saving, 26 * MS);
}
END_TEST

/* Eight pieces through one upload buffer (each piece's download to its own):
   an upload must wait for the kernels of the piece before, which read the
   buffer, so only the downloads move off the stream: a saving of 14 ms.  A
   4 KiB parameter uploaded between a piece's upload and its kernels is no
   next piece: with it the saving is the same. */
static uint64_t one_upload_buffer(int param)
{
    static run r;
    r = (run){0};
    sc_pr_stream st = {0, SC_PR_NONBLOCKING, 0};
    uint64_t at = 0;
    for (int k = 0; k < 8; k++)
        for (int j = 0; j < (param ? 4 : 3); j++, at += 10000) {
            int role = param ? j : j ? j + 1 : 0;   /* 0 upload, 1 parameter, 2 kernel, 3 download */
            sc_pr_call *c = add(&r, 0, SC_PR_SUBMIT, at, at + 5000, 0, 0);
            if (role == 2) {
                c->demand = 1;
                continue;
            }
            c->dir = role == 3 ? SC_PR_D2H : SC_PR_H2D;
            c->bytes = role == 1 ? 4096 : 2 * MS;
            c->dev = role == 0 ? 0x10000000ull
                   : role == 1 ? 0x30000000ull + (uint64_t)k * 0x10000ull : 0x20000000ull + (uint64_t)k * 0x1000000ull;
            c->finding[0] = k || j ? 0 : 1;
        }
    add(&r, 0, SC_PR_WAIT_STREAM, at, 56 * MS, 56 * MS - at, 0);
    busy(&r, 5000, 56 * MS);
    sc_pr_finding f = {.fix = SC_PR_FIX_PIPELINE, .in_all = 1};
    uint64_t saving;
    price(&r, 1, &st, 1, &f, 1, 0, 1.0, &saving);
    return saving;
}

START_TEST(parameters_between_pieces)
{
    uint64_t plain = one_upload_buffer(0), with = one_upload_buffer(1);
    ck_assert_uint_gt(plain, 13 * MS);
    ck_assert_uint_lt(plain, 15 * MS);
    ck_assert_uint_gt(with, 13 * MS);
    ck_assert_uint_lt(with, 15 * MS);
}
END_TEST

/* Eight pieces, each a 2 ms upload, a 0.1 ms kernel and a 2 ms download
   into buffers of its own, queued on one stream, then a wait: 32.8 ms.
   Pipelined with copies each way that do not slow each other, the uploads
   run back to back and each download after its kernel: 2 + 7 x 2 + 0.1 + 2
   = 18.1 ms, a saving of 14.7.  Where copies both ways at once move what
   one way moves alone (duplex 1, the rate each way 1 byte per ns), the
   pipeline overlaps only the kernels: 0.8 ms at most.  At 1.5 both ways,
   the 28 ms of copies after the first upload and before the last download
   move at 1.5 ms of work a ms: 2 + 28 / 1.5 + 2 = 22.7, a saving of about
   10. */
static uint64_t both_ways(double duplex)
{
    static run r;
    r = (run){0};
    sc_pr_stream st = {0, SC_PR_NONBLOCKING, 0};
    uint64_t at = 0;
    eight_pieces(&r, &at, -1, 1, 0, 0);
    uint64_t end = 5000 + 32 * MS + 8 * MS / 10;
    add(&r, 0, SC_PR_WAIT_STREAM, at, end, end - at, 0);
    busy(&r, 5000, end);
    sc_pr_finding f = {.fix = SC_PR_FIX_PIPELINE, .in_all = 1};
    uint64_t saving;
    duplex_rate = duplex;
    sc_pr_result res = price(&r, 1, &st, 1, &f, 1, 0, 1.0, &saving);
    duplex_rate = 0;
    near(res.model_ns, end);
    return saving;
}

START_TEST(copies_both_ways_share_the_link)
{
    uint64_t alone = both_ways(0), full = both_ways(2.0), one = both_ways(1.0), between = both_ways(1.5);
    ck_assert_uint_gt(alone, 14 * MS);   /* 14.7 */
    ck_assert_uint_lt(alone, 15 * MS);
    ck_assert_uint_eq(full, alone);      /* both ways at twice one way's rate: no slower */
    ck_assert_uint_eq(together_n[0], 0); /* one finding: nothing to fix together */
    ck_assert_uint_eq(together[0], 0);
    ck_assert_uint_le(one, 8 * MS / 10);
    ck_assert_uint_gt(between, 9 * MS);   /* about 10 */
    ck_assert_uint_lt(between, 11 * MS);
    /* below what one way moves alone: taken as one way's rate */
    ck_assert_uint_eq(both_ways(0.25), one);
}
END_TEST

/* Eight pieces, each a 2 ms upload, a 0.1 ms kernel and a 2 ms download
   into buffers of their own, then a 10 ms kernel, all queued on one stream,
   and a wait: 42.8 ms.  Shared by number, the 10.8 ms of kernels give each
   of the nine 1.2 ms, which a pipeline overlaps with the copies: uploads
   back to back, each download after its kernel, the last kernel after the
   eighth: 2 x 8 + 1.2 + 2 = 19.2 ms, a saving of 23.6.  With each
   submission's GPU time recorded (measured mode), the pieces' kernels keep
   0.1 ms and the last one 10: it runs after the eighth kernel, at 16.1,
   until 26.1, a saving of 16.7.  A recorded time of one submission missing
   leaves the stretch shared by number. */
static uint64_t long_last_kernel(int known, int one_unknown)
{
    static run r;
    r = (run){0};
    sc_pr_stream st = {0, SC_PR_NONBLOCKING, 0};
    uint64_t at = 0;
    eight_pieces(&r, &at, -1, 1, known, MS / 10);
    sc_pr_call *last = add(&r, 0, SC_PR_SUBMIT, at, at + 5000, 0, 0);
    last->demand = 1;
    last->gpu_known = (uint8_t)(known && !one_unknown);
    last->gpu_ns = 10 * MS;
    at += 10000;
    uint64_t end = 5000 + 42 * MS + 8 * MS / 10;
    add(&r, 0, SC_PR_WAIT_STREAM, at, end, end - at, 0);
    busy(&r, 5000, end);
    sc_pr_finding f = {.fix = SC_PR_FIX_PIPELINE, .in_all = 1};
    uint64_t saving;
    sc_pr_result res = price(&r, 1, &st, 1, &f, 1, 0, 1.0, &saving);
    near(res.model_ns, end);
    return saving;
}

START_TEST(kernels_weighed_by_their_recorded_time)
{
    uint64_t by_number = long_last_kernel(0, 0), weighed = long_last_kernel(1, 0);
    ck_assert_uint_gt(by_number, 23 * MS);   /* 23.6 */
    ck_assert_uint_lt(by_number, 24 * MS + MS / 5);
    ck_assert_uint_gt(weighed, 16 * MS);     /* 16.7 */
    ck_assert_uint_lt(weighed, 17 * MS + MS / 2);
    ck_assert_uint_eq(long_last_kernel(1, 1), by_number);
}
END_TEST

/* Measured mode's submission latency (sc_pr_latency): steps of a 50 us
   kernel queued by a 2 us call, whose work the timeline shows starting 8 us
   after the call began, a wait for it and 40 us of host work.  Each
   submission after a wait on an idle GPU is a sample of 8 us: with eight
   or more the replay starts the work that late, and the as-run replay
   takes 98 us a step, near the recorded 100 (the wait returned 2 us after
   the work ended), where without the latency it takes 90; fewer samples,
   or detect mode's sampled spans (gpu_known 0), give none. */
static sc_pr_result latency_steps(int steps, int known)
{
    static run r;
    r = (run){0};
    for (int k = 0; k < steps; k++) {
        uint64_t t = (uint64_t)k * 100000;
        sc_pr_call *c = add(&r, 0, SC_PR_SUBMIT, t, t + 2000, 0, 0);
        c->demand = 1;
        c->gpu_known = (uint8_t)known;
        c->gpu_ns = 50000;
        busy(&r, t + 8000, t + 58000);
        add(&r, 0, SC_PR_WAIT_STREAM, t + 2000, t + 60000, 58000, 0);
    }
    sc_pr_stream st = {0, SC_PR_NONBLOCKING, 0};
    sc_pr_thread th = {.calls = r.calls[0], .n = r.n[0]};
    sc_pr_device dev = {.busy = r.busy, .nbusy = r.nbusy, .known = 1};
    sc_pr_model m = {.threads = &th, .nthreads = 1, .streams = &st, .nstreams = 1, .devices = &dev, .ndevices = 1};
    uint64_t want = known && steps > 8 ? 8000 : 0;
    ck_assert_uint_eq(sc_pr_latency(&m), want);
    sc_pr_finding f = {0};
    uint64_t saving;
    return price(&r, 1, &st, 1, &f, 1, 0, 0, &saving);
}

START_TEST(submission_latency)
{
    sc_pr_result measured = latency_steps(10, 1), sampled = latency_steps(10, 0);
    near(measured.model_ns, 10 * 98000 - 40000);
    near(sampled.model_ns, 10 * 90000 - 40000);
    latency_steps(8, 1);   /* 7 samples: none */
}
END_TEST

int main(void)
{
    Suite *su = suite_create("pricing");
    TCase *tc = tcase_create("pricing");
    tcase_add_loop_test(tc, wait_each_step, 0, 2);
    tcase_add_loop_test(tc, item_read_then_sync, 0, 2);
    tcase_add_loop_test(tc, all_fixed_keeps_what_the_report_keeps, 0, 3);
    tcase_add_loop_test(tc, candidates_kept_by_their_group, 0, 4);
    tcase_add_loop_test(tc, second_item_waits_in_its_place, 0, 5);
    tcase_add_test(tc, threads_on_the_legacy_stream);
    tcase_add_test(tc, events_order_streams);
    tcase_add_test(tc, events_across_threads);
    tcase_add_test(tc, a_handle_per_stream);
    tcase_add_loop_test(tc, demand_by_occupancy, 0, 4);
    tcase_add_loop_test(tc, legacy_work_off_the_barrier, 0, 2);
    tcase_add_test(tc, legacy_sites_priced_together);
    tcase_add_loop_test(tc, blocking_stream_made_nonblocking, 0, 2);
    tcase_add_loop_test(tc, legacy_event_still_joins, 0, 2);
    tcase_add_loop_test(tc, streams_share_hardware_queues, 0, 2);
    tcase_add_test(tc, recorded_copy_time_with_gaps);
    tcase_add_loop_test(tc, sync_copies_after_legacy_kernels, 0, 2);
    tcase_add_test(tc, pageable_copies);
    tcase_add_test(tc, released_sources);
    tcase_add_test(tc, receipts_to_a_pinning_thread);
    tcase_add_test(tc, first_touch_not_saved);
    tcase_add_test(tc, joint_waits);
    tcase_add_loop_test(tc, host_syncs_become_events, 0, 3);
    tcase_add_test(tc, join_follows_the_other_thread);
    tcase_add_test(tc, late_work_before_a_wait);
    tcase_add_test(tc, steady_loop_after_set_up);
    tcase_add_test(tc, steady_loop_before_teardown);
    tcase_add_test(tc, no_loop_without_set_up);
    tcase_add_loop_test(tc, copies_beside_kernels, 0, 2);
    tcase_add_test(tc, parameters_between_pieces);
    tcase_add_test(tc, copies_both_ways_share_the_link);
    tcase_add_test(tc, kernels_weighed_by_their_recorded_time);
    tcase_add_test(tc, submission_latency);
    tcase_add_test(tc, receipts_cpu_by_the_gils_free_share);
    suite_add_tcase(su, tc);
    SRunner *sr = srunner_create(su);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
