/* test_timeline.c: the GPU timeline (src/shim/timeline.c) and what finding
 * events cost on it (timeline_price.c), on small hand-made timelines whose
 * answers are worked out in the comments: interval unions, a device's
 * busy, idle and overlap, records out of order or broken, the GPU idle a
 * blocking host call caused, the GPU's gaps between a stream's operations,
 * a legacy-stream barrier that held back another stream's work, records
 * that were dropped, and how a finding event is tied to its own GPU work.
 * Every answer is exact, in ns.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "timeline.h"

/* ------------------------------------------------------------ fixture --- */
typedef struct fx {
    sc_tl_op ops[32]; size_t nops;
    sc_tl_api apis[32]; size_t napis;
    sc_tl_ext exts[8]; size_t nexts;
    sc_tl_event ev[16]; size_t nev;
    sc_tl_cost cost[16];
    sc_timeline tl;
} fx;

static void op(fx *f, uint32_t dev, uint32_t stream, uint8_t kind, int64_t start, int64_t end, uint32_t corr)
{
    ck_assert_uint_lt(f->nops, 32);
    f->ops[f->nops++] = (sc_tl_op){.start = start, .end = end, .corr = corr, .stream = stream, .device = dev,
                                   .kind = kind};
}

static void api(fx *f, uint32_t thread, int64_t start, int64_t end, uint32_t corr)
{
    ck_assert_uint_lt(f->napis, 32);
    f->apis[f->napis++] = (sc_tl_api){.start = start, .end = end, .corr = corr, .thread = thread};
}

static void ext(fx *f, uint64_t id, uint32_t corr)
{
    ck_assert_uint_lt(f->nexts, 8);
    f->exts[f->nexts++] = (sc_tl_ext){id, corr};
}

/* A finding event to price, on thread `thread` (both of its ids). */
static sc_tl_event *event(fx *f, uint32_t thread, int64_t c0, int64_t c1)
{
    ck_assert_uint_lt(f->nev, 16);
    sc_tl_event *e = &f->ev[f->nev++];
    *e = (sc_tl_event){.c0 = c0, .c1 = c1, .pthread = thread, .tid = thread, .price = 1};
    return e;
}

static void build(fx *f)
{
    ck_assert_int_eq(sc_tl_build(&f->tl, f->ops, f->nops, f->apis, f->napis, f->exts, f->nexts), 0);
}

static void price(fx *f)
{
    build(f);
    sc_tl_price(&f->tl, f->ev, f->nev, f->cost);
}

/* The index, after sc_tl_build sorted them, of the operation that starts
   at `start` on `stream`. */
static long op_at(const fx *f, uint32_t stream, int64_t start)
{
    for (size_t i = 0; i < f->tl.nops; i++)
        if (f->tl.ops[i].stream == stream && f->tl.ops[i].start == start)
            return (long)i;
    ck_abort_msg("no operation at %lld on stream %u", (long long)start, stream);
    return -1;
}

/* Event i cost exactly the intervals given as pairs a0, b0, a1, b1, ... */
static void lost_is(const fx *f, size_t i, int64_t lost, size_t niv, const int64_t *iv)
{
    const sc_tl_cost *c = &f->cost[i];
    ck_assert_msg(c->lost_ns == lost, "event %zu lost %lld ns, not %lld", i, (long long)c->lost_ns,
                  (long long)lost);
    ck_assert_uint_eq(c->niv, niv);
    for (size_t k = 0; k < niv; k++) {
        ck_assert_int_eq(f->tl.lost.v[c->iv0 + k].a, iv[2 * k]);
        ck_assert_int_eq(f->tl.lost.v[c->iv0 + k].b, iv[2 * k + 1]);
    }
}

static void expect_device(const sc_tl_device *d, uint32_t id, uint64_t span, uint64_t busy, uint64_t idle,
                          uint64_t overlap, uint64_t compute_copy, uint64_t compute_compute, uint64_t ops)
{
    ck_assert_uint_eq(d->id, id);
    ck_assert_uint_eq(d->g.device, id);
    ck_assert_uint_eq(d->g.span_ns, span);
    ck_assert_uint_eq(d->g.busy_ns, busy);
    ck_assert_uint_eq(d->g.idle_ns, idle);
    ck_assert_uint_eq(d->g.overlap_ns, overlap);
    ck_assert_uint_eq(d->g.overlap_compute_copy_ns, compute_copy);
    ck_assert_uint_eq(d->g.overlap_compute_compute_ns, compute_compute);
    ck_assert_uint_eq(d->g.ops, ops);
}

/* ------------------------------------------------------ interval sets --- */
START_TEST(spans_merge_overlapping_and_touching)
{
    sc_tl_spans s = {0};
    sc_tl_spans_add(&s, 100, 200);
    sc_tl_spans_add(&s, 10, 20);
    sc_tl_spans_add(&s, 15, 30);
    sc_tl_spans_add(&s, 30, 40);    /* touches [15, 30): one interval */
    sc_tl_spans_add(&s, 50, 50);    /* empty: dropped */
    sc_tl_spans_add(&s, 60, 55);    /* backwards: dropped */
    sc_tl_spans_add(&s, 0, 5);
    ck_assert_uint_eq(s.n, 5);
    sc_tl_spans_merge(&s, 1);       /* leaves the first one alone */
    ck_assert_uint_eq(s.n, 3);
    ck_assert(s.v[0].a == 100 && s.v[0].b == 200);
    ck_assert(s.v[1].a == 0 && s.v[1].b == 5);
    ck_assert(s.v[2].a == 10 && s.v[2].b == 40);
    sc_tl_spans_add(&s, 150, 250);
    sc_tl_spans_merge(&s, 0);
    ck_assert_uint_eq(s.n, 3);
    ck_assert(s.v[2].a == 100 && s.v[2].b == 250);
    ck_assert_int_eq(sc_tl_spans_len(s.v, s.n), 5 + 30 + 150);
    sc_tl_spans_free(&s);
    ck_assert(!s.v && !s.n);
}
END_TEST

/* ------------------------------------------------------------ devices --- */
/* Device 0: kernels [0, 100) on stream 1 and [50, 150) on stream 2 overlap
   by 50 (compute with compute); a copy [120, 200) on stream 3 overlaps the
   second by 30 (compute with copy); idle [200, 300); a kernel [300, 350) on
   stream 1.  Busy is the union: 200 + 50 = 250 of a 350 span.
   Device 1: a memset [1000, 1010) and a kernel [1010, 1030) that only
   touch: busy 30, no overlap.  Given out of order, twice, in two orders. */
static void two_devices(fx *f, int reversed)
{
    struct { uint32_t dev, stream; uint8_t kind; int64_t a, b; } o[] = {
        {1, 8, SC_GPU_KERNEL, 1010, 1030}, {0, 3, SC_GPU_MEMCPY, 120, 200}, {0, 1, SC_GPU_KERNEL, 300, 350},
        {0, 2, SC_GPU_KERNEL, 50, 150},    {1, 9, SC_GPU_MEMSET, 1000, 1010}, {0, 1, SC_GPU_KERNEL, 0, 100}};
    size_t n = sizeof o / sizeof o[0];
    for (size_t i = 0; i < n; i++) {
        size_t k = reversed ? n - 1 - i : i;
        op(f, o[k].dev, o[k].stream, o[k].kind, o[k].a, o[k].b, (uint32_t)k + 1);
    }
    build(f);
}

START_TEST(device_busy_idle_and_overlap)
{
    static fx f, g;
    two_devices(&f, 0);
    const sc_timeline *tl = &f.tl;
    ck_assert_uint_eq(tl->ndevices, 2);
    expect_device(&tl->devices[0], 0, 350, 250, 100, 80, 30, 50, 4);
    expect_device(&tl->devices[1], 1, 30, 30, 0, 0, 0, 0, 2);
    ck_assert(tl->devices[0].o0 == 0 && tl->devices[0].o1 == 4 && tl->devices[1].o1 == 6);
    ck_assert_uint_eq(tl->devices[0].busy.n, 2);
    ck_assert(tl->devices[0].busy.v[0].a == 0 && tl->devices[0].busy.v[0].b == 200);
    /* streams in the order met (device, then first start), each one's busy union */
    static const uint32_t sid[] = {1, 2, 3, 9, 8};
    static const int64_t sbusy[] = {150, 100, 80, 10, 20};
    ck_assert_uint_eq(tl->nstreams, 5);
    for (size_t k = 0; k < 5; k++) {
        ck_assert_uint_eq(tl->streams[k].id, sid[k]);
        ck_assert_int_eq(sc_tl_spans_len(tl->streams[k].busy.v, tl->streams[k].busy.n), sbusy[k]);
    }
    /* stream 1's operations in start order, each knowing the one before */
    const sc_tl_stream *s1 = &tl->streams[0];
    ck_assert_uint_eq(s1->n, 2);
    ck_assert_int_eq(tl->ops[s1->ops[0]].start, 0);
    ck_assert_int_eq(tl->ops[s1->ops[1]].start, 300);
    ck_assert_int_eq(tl->prev_end[s1->ops[0]], INT64_MIN);
    ck_assert_int_eq(tl->prev_end[s1->ops[1]], 100);
    ck_assert_uint_eq(tl->pos[s1->ops[1]], 1);
    ck_assert_uint_eq(tl->stream_of[s1->ops[1]], 0);
    /* the same records in the other order: the same timeline */
    two_devices(&g, 1);
    for (size_t i = 0; i < 2; i++)
        ck_assert(!memcmp(&f.tl.devices[i].g, &g.tl.devices[i].g, sizeof f.tl.devices[i].g));
    for (size_t i = 0; i < f.tl.nops; i++)
        ck_assert(f.tl.ops[i].start == g.tl.ops[i].start && f.tl.ops[i].stream == g.tl.ops[i].stream);
    sc_tl_free(&f.tl);
    sc_tl_free(&g.tl);
}
END_TEST

/* An operation whose end came before its start (a record with a broken
   clock) is empty: inside [0, 1000) on another stream it takes nothing
   away; device 2 spans [0, 1300), busy [0, 1000) and [1200, 1300). */
START_TEST(an_operation_that_ends_before_it_starts_is_empty)
{
    static fx f;
    op(&f, 2, 1, SC_GPU_KERNEL, 1200, 1300, 1);
    op(&f, 2, 2, SC_GPU_KERNEL, 500, 400, 2);
    op(&f, 2, 1, SC_GPU_KERNEL, 0, 1000, 3);
    build(&f);
    ck_assert_uint_eq(f.tl.ndevices, 1);
    expect_device(&f.tl.devices[0], 2, 1300, 1100, 200, 0, 0, 0, 3);
    sc_tl_free(&f.tl);
}
END_TEST

/* The GPU's gaps between a stream's operations (sc_tl_gaps), device 0,
   stream 1, each operation's call made long before the one before it
   ended: an upload [0, 100000), a kernel 6000 later (copy to kernel), one
   1000 after it (kernel to kernel), a download 4000 after that (kernel to
   copy), another copy 8000 after it (copy to copy).  Not counted: a kernel
   whose call began only 9000 before the copy before it ended (the host's
   gap, 20000), a kernel 60000 after the one before it (a wait, not the
   GPU's), and device 1's copy to kernel of 3000.  Gaps 1000, 6000, 4000,
   8000; on device 1, 3000 copy to kernel, no other. */
START_TEST(gaps_between_a_streams_operations)
{
    static fx f;
    static const struct { uint32_t dev; uint8_t kind; int64_t start, end, call; } o[] = {
        {0, SC_GPU_MEMCPY, 0, 100000, -1000},      {0, SC_GPU_KERNEL, 106000, 116000, 1000},
        {0, SC_GPU_KERNEL, 117000, 127000, 2000},  {0, SC_GPU_MEMCPY, 131000, 231000, 3000},
        {0, SC_GPU_MEMCPY, 239000, 339000, 4000},  {0, SC_GPU_KERNEL, 359000, 369000, 330000},
        {0, SC_GPU_KERNEL, 429000, 439000, 5000},  {1, SC_GPU_MEMCPY, 0, 100000, 0},
        {1, SC_GPU_KERNEL, 103000, 113000, 1000}};
    for (uint32_t i = 0; i < sizeof o / sizeof *o; i++) {
        op(&f, o[i].dev, 1, o[i].kind, o[i].start, o[i].end, i + 1);
        api(&f, 1, o[i].call, o[i].call + 500, i + 1);
    }
    build(&f);
    uint32_t g[4] = {9, 9, 9, 9};
    sc_tl_gaps(&f.tl, 0, g);
    ck_assert_uint_eq(g[0], 1000);
    ck_assert_uint_eq(g[1], 6000);
    ck_assert_uint_eq(g[2], 4000);
    ck_assert_uint_eq(g[3], 8000);
    sc_tl_gaps(&f.tl, 1, g);
    ck_assert_uint_eq(g[0], 0);
    ck_assert_uint_eq(g[1], 3000);
    ck_assert_uint_eq(g[2], 0);
    ck_assert_uint_eq(g[3], 0);
    sc_tl_free(&f.tl);
}
END_TEST

START_TEST(an_empty_timeline_prices_nothing)
{
    static fx f;
    sc_tl_event *e = event(&f, 1, 0, 1000);
    e->timed = e->barrier = 1;
    price(&f);
    ck_assert_uint_eq(f.tl.ndevices, 0);
    ck_assert_uint_eq(f.tl.nstreams, 0);
    ck_assert(!sc_tl_thread_known(&f.tl, 1));
    ck_assert(f.cost[0].lost_ns == 0 && f.cost[0].op == -1 && f.cost[0].corr == 0 && f.cost[0].niv == 0);
    sc_tl_free(&f.tl);
}
END_TEST

/* ------------------------------------------------------ the held host --- */
/* Device 3 runs [0, 1.0 ms), [1.6, 2.0), [2.1, 2.2) and [3.0, 3.1) (ms);
   device 0 has one operation, at the start: an event with no GPU work of
   its own is priced on the device with the most work.  Timed calls: */
START_TEST(a_blocking_call_costs_the_idle_it_caused)
{
    static fx f;
    op(&f, 0, 5, SC_GPU_KERNEL, 0, 10, 0);
    op(&f, 3, 1, SC_GPU_KERNEL, 0, 1000000, 0);
    op(&f, 3, 1, SC_GPU_KERNEL, 1600000, 2000000, 0);
    op(&f, 3, 1, SC_GPU_KERNEL, 2100000, 2200000, 0);
    op(&f, 3, 1, SC_GPU_KERNEL, 3000000, 3100000, 0);
    /* 0: held [0.5, 1.5) while the device ran out of work at 1.0; the next
       work starts at 1.6: idle [1.0, 1.6) */
    event(&f, 1, 500000, 1500000)->timed = 1;
    /* 1: the same host time, from a wait for its stream that began at 0.5 */
    sc_tl_event *e = event(&f, 1, 1200000, 1500000);
    e->timed = 1;
    e->drain = 700000;
    /* 2: began while the device was idle: it starved anyway, no cost */
    event(&f, 1, 1050000, 1500000)->timed = 1;
    /* 3: held 0.2 ms only: [1.0, 1.2) */
    event(&f, 1, 900000, 1100000)->timed = 1;
    /* 4: as 0, but it cannot hold the host */
    event(&f, 1, 500000, 1500000);
    /* 5: no work after it (the program's last synchronization): no cost */
    event(&f, 1, 3050000, 3500000)->timed = 1;
    /* 6: held [1.7, 2.9): the gaps [2.0, 2.1) and [2.2, 2.9) until the
       next work after the call, [3.0, ...) */
    event(&f, 1, 1700000, 2900000)->timed = 1;
    /* 7: like 6 but held 0.5 ms: the gaps until the held time is used up */
    event(&f, 1, 1700000, 2200000)->timed = 1;
    price(&f);
    lost_is(&f, 0, 600000, 1, (const int64_t[]){1000000, 1600000});
    lost_is(&f, 1, 600000, 1, (const int64_t[]){1000000, 1600000});
    lost_is(&f, 2, 0, 0, NULL);
    lost_is(&f, 3, 200000, 1, (const int64_t[]){1000000, 1200000});
    lost_is(&f, 4, 0, 0, NULL);
    lost_is(&f, 5, 0, 0, NULL);
    lost_is(&f, 6, 900000, 2, (const int64_t[]){2000000, 2100000, 2200000, 3000000});
    lost_is(&f, 7, 500000, 2, (const int64_t[]){2000000, 2100000, 2200000, 2600000});
    for (size_t i = 0; i < f.nev; i++)
        ck_assert(f.cost[i].op == -1 && f.cost[i].corr == 0);
    sc_tl_free(&f.tl);
}
END_TEST

/* ---------------------------------------------------- held-back work --- */
/* The legacy stream's barrier (tests/measure.sh's measure_barrier in
   small).  Thread 1, device 0, in us:
     stream 1 (blocking):  a  [0, 100)            submitted at 0
     stream 7 (legacy):    L  [100, 101)          submitted at 10: waits for a
     stream 2 (blocking):  b1 [101, 201)          submitted at 20: waits for L
                           b2 [201, 301)          submitted at 30
   The finding event is L's launch, [10, 10.5), external id 1.
   L itself could have started at 10: its chain's tail [11, 101) less a's
   busy time leaves [100, 101).  As a barrier it held b1 back from 20 to
   101 (81 us), and b2 behind it: without the barrier stream 2 would have
   ended 81 us sooner, [220, 301).  82 us in all; the op it held back most
   is b1. */
static void barrier_timeline(fx *f, int with_b1_call)
{
    op(f, 0, 1, SC_GPU_KERNEL, 0, 100000, 1);
    op(f, 0, 7, SC_GPU_KERNEL, 100000, 101000, 2);
    op(f, 0, 2, SC_GPU_KERNEL, 101000, 201000, 3);
    op(f, 0, 2, SC_GPU_KERNEL, 201000, 301000, 4);
    api(f, 1, 0, 500, 1);
    api(f, 1, 10000, 10500, 2);
    if (with_b1_call)
        api(f, 1, 20000, 20500, 3);
    api(f, 1, 30000, 30500, 4);
    ext(f, 1, 2);
    sc_tl_event *e = event(f, 1, 10000, 10500);
    e->ext = 1;
    e->barrier = 1;
}

START_TEST(a_barrier_costs_the_chain_it_held_back)
{
    static fx f;
    barrier_timeline(&f, 1);
    price(&f);
    lost_is(&f, 0, 82000, 2, (const int64_t[]){100000, 101000, 220000, 301000});
    ck_assert_int_eq(f.cost[0].op, op_at(&f, 2, 101000));
    ck_assert_uint_eq(f.cost[0].corr, 2);
    /* b1 and b2 are the chain, stream 2 holds it */
    ck_assert_uint_eq(f.tl.stamp[op_at(&f, 2, 101000)], 1);
    ck_assert_uint_eq(f.tl.stamp[op_at(&f, 2, 201000)], 1);
    ck_assert_uint_eq(f.tl.stamp[op_at(&f, 1, 0)], 0);
    ck_assert_uint_eq(f.tl.chained[f.tl.stream_of[op_at(&f, 2, 101000)]], 1);
    sc_tl_free(&f.tl);
}
END_TEST

/* What a barrier holds back: on stream 4, d1 was submitted before the
   call (at 5 us) and is not its doing; d2, submitted at 25 us, waited for
   it until 101 us: its tail [26, 102) adds [101, 102) beyond L's own.  On
   stream 3, work submitted after L had finished (150 us) owes it nothing,
   though it started 10 us after its submission.  83 us in all; b1, held
   back longer than d2, stays the op held back most. */
START_TEST(a_barrier_holds_back_only_work_submitted_while_it_held)
{
    static fx f;
    barrier_timeline(&f, 1);
    op(&f, 0, 4, SC_GPU_KERNEL, 12000, 13000, 6);
    op(&f, 0, 4, SC_GPU_KERNEL, 101000, 102000, 7);
    op(&f, 0, 3, SC_GPU_KERNEL, 160000, 170000, 5);
    api(&f, 1, 5000, 5500, 6);
    api(&f, 1, 25000, 25500, 7);
    api(&f, 1, 150000, 150500, 5);
    price(&f);
    lost_is(&f, 0, 83000, 2, (const int64_t[]){100000, 102000, 220000, 301000});
    ck_assert_int_eq(f.cost[0].op, op_at(&f, 2, 101000));
    ck_assert_uint_eq(f.tl.stamp[op_at(&f, 4, 101000)], 1);
    ck_assert_uint_eq(f.tl.stamp[op_at(&f, 4, 12000)], 0);
    ck_assert_uint_eq(f.tl.stamp[op_at(&f, 3, 160000)], 0);
    sc_tl_free(&f.tl);
}
END_TEST

/* A loop: the host waits for stream 2 at 301 us, then a second step does
   the same (in us):
     stream 1:  a'  [310, 410)   submitted at 310
     stream 7:  L'  [410, 411)   submitted at 311: waits for a'
     stream 2:  b'  [411, 511)   submitted at 312: waits for L'
   L' and b' start late, but not for L: they were submitted after L's
   chains had run (L ended at 101, b2 at 301), so L's chains end there and
   L costs what it cost alone.  L' costs its own step: its tail [312, 411)
   and b''s [412, 511), less a''s busy time: [410, 411) and [412, 511). */
START_TEST(a_chain_ends_where_its_work_stopped_waiting)
{
    static fx f;
    barrier_timeline(&f, 1);
    op(&f, 0, 1, SC_GPU_KERNEL, 310000, 410000, 5);
    op(&f, 0, 7, SC_GPU_KERNEL, 410000, 411000, 6);
    op(&f, 0, 2, SC_GPU_KERNEL, 411000, 511000, 7);
    api(&f, 1, 310000, 310500, 5);
    api(&f, 1, 311000, 311500, 6);
    api(&f, 1, 312000, 312500, 7);
    ext(&f, 2, 6);
    sc_tl_event *e = event(&f, 1, 311000, 311500);
    e->ext = 2;
    e->barrier = 1;
    price(&f);
    lost_is(&f, 0, 82000, 2, (const int64_t[]){100000, 101000, 220000, 301000});
    ck_assert_uint_eq(f.tl.stamp[op_at(&f, 2, 411000)], 2);
    ck_assert_uint_eq(f.tl.stamp[op_at(&f, 7, 410000)], 2);
    lost_is(&f, 1, 100000, 2, (const int64_t[]){410000, 411000, 412000, 511000});
    sc_tl_free(&f.tl);
}
END_TEST

/* The same launch when its rule is no barrier: only its own late start. */
START_TEST(a_call_that_is_no_barrier_costs_its_own_work_only)
{
    static fx f;
    barrier_timeline(&f, 1);
    f.ev[0].barrier = 0;
    price(&f);
    lost_is(&f, 0, 1000, 1, (const int64_t[]){100000, 101000});
    ck_assert_int_eq(f.cost[0].op, op_at(&f, 7, 100000));
    sc_tl_free(&f.tl);
}
END_TEST

/* b1's API record was dropped: its submission is taken as its start, so
   nothing says it waited; an API record that begins after its operation
   did (a skewed clock) is no earlier submission either. */
START_TEST(a_dropped_or_late_api_record_leaves_the_op_on_time)
{
    static fx f, g;
    barrier_timeline(&f, 0);
    price(&f);
    ck_assert_int_eq(f.tl.submit[op_at(&f, 2, 101000)], 101000);
    ck_assert_int_eq(f.tl.submit[op_at(&f, 2, 201000)], 30000);
    lost_is(&f, 0, 1000, 1, (const int64_t[]){100000, 101000});
    ck_assert_int_eq(f.cost[0].op, op_at(&f, 7, 100000));
    sc_tl_free(&f.tl);

    barrier_timeline(&g, 0);
    api(&g, 1, 150000, 150500, 3);   /* b1's call, recorded late */
    api(&g, 1, 29000, 29100, 4);     /* b2's, a second time, earlier: the earliest counts */
    price(&g);
    ck_assert_int_eq(g.tl.submit[op_at(&g, 2, 101000)], 101000);
    ck_assert_int_eq(g.tl.submit[op_at(&g, 2, 201000)], 29000);
    lost_is(&g, 0, 1000, 1, (const int64_t[]){100000, 101000});
    sc_tl_free(&g.tl);
}
END_TEST

/* An event that is not priced (sampled out) costs nothing and marks no
   chain; two events of one timeline are each priced on their own. */
START_TEST(only_the_events_asked_for_are_priced)
{
    static fx f;
    barrier_timeline(&f, 1);
    sc_tl_event *skip = event(&f, 1, 10000, 10500);
    *skip = f.ev[0];
    skip->price = 0;
    sc_tl_event *again = event(&f, 1, 10000, 10500);
    *again = f.ev[0];
    price(&f);
    lost_is(&f, 0, 82000, 2, (const int64_t[]){100000, 101000, 220000, 301000});
    ck_assert(f.cost[1].lost_ns == 0 && f.cost[1].op == -1 && f.cost[1].niv == 0 && f.cost[1].corr == 0);
    lost_is(&f, 2, 82000, 2, (const int64_t[]){100000, 101000, 220000, 301000});
    ck_assert_uint_eq(f.cost[2].iv0, 2);
    ck_assert_uint_eq(f.tl.stamp[op_at(&f, 2, 201000)], 3);
    /* pricing again starts over */
    sc_tl_price(&f.tl, f.ev, 1, f.cost);
    ck_assert_uint_eq(f.tl.lost.n, 2);
    lost_is(&f, 0, 82000, 2, (const int64_t[]){100000, 101000, 220000, 301000});
    sc_tl_free(&f.tl);
}
END_TEST

/* ------------------------------------------------------- correlations --- */
/* One op per stream, each with its own correlation id; the events find
   theirs by external id, by a runtime call of their thread around them, by
   a driver call inside them, and by the thread's other id. */
START_TEST(an_event_finds_its_own_gpu_work)
{
    static fx f;
    op(&f, 0, 1, SC_GPU_KERNEL, 10000, 20000, 42);
    op(&f, 0, 2, SC_GPU_KERNEL, 30000, 40000, 43);
    op(&f, 0, 3, SC_GPU_MEMCPY, 50000, 60000, 44);
    op(&f, 0, 4, SC_GPU_MEMSET, 70000, 80000, 45);
    ext(&f, 5, 42);
    api(&f, 7, 1000, 1500, 0);        /* starts with the next one, ends first */
    api(&f, 7, 1000, 5000, 43);       /* thread 7's runtime call around event 1 */
    api(&f, 8, 1000, 5000, 47);       /* another thread's call at the same time */
    api(&f, 7, 42000, 43000, 44);     /* thread 7's driver call inside event 2 */
    api(&f, 7, 41000, 41500, 0);      /* no correlation id */
    api(&f, 1234, 60000, 65000, 45);  /* the recorder names this thread by its tid */
    event(&f, 9, 100, 200)->ext = 5;
    event(&f, 7, 2000, 3000);
    event(&f, 7, 41000, 45000);
    sc_tl_event *e = event(&f, 0xdead0, 61000, 62000);
    e->tid = 1234;
    event(&f, 9, 2000, 3000)->ext = 99;   /* nothing of its own */
    price(&f);
    static const uint32_t corr[] = {42, 43, 44, 45, 0};
    static const uint32_t stream[] = {1, 2, 3, 4, 0};
    for (size_t i = 0; i < 5; i++) {
        ck_assert_uint_eq(f.cost[i].corr, corr[i]);
        if (corr[i])
            ck_assert_uint_eq(f.tl.ops[f.cost[i].op].stream, stream[i]);
        else
            ck_assert_int_eq(f.cost[i].op, -1);
    }
    ck_assert(sc_tl_thread_known(&f.tl, 1234) && sc_tl_thread_known(&f.tl, 7) && sc_tl_thread_known(&f.tl, 8));
    ck_assert(!sc_tl_thread_known(&f.tl, 0xdead0) && !sc_tl_thread_known(&f.tl, 9));
    /* each thread's calls in start order, of two starting together the
       outer one first */
    ck_assert_uint_eq(f.tl.nthreads, 3);
    const sc_tl_thread *t7 = &f.tl.threads[0];
    ck_assert(t7->id == 7 && t7->n == 4);
    static const int64_t t7_start[] = {1000, 1000, 41000, 42000}, t7_end[] = {5000, 1500, 41500, 43000};
    for (size_t i = 0; i < 4; i++) {
        ck_assert_int_eq(f.tl.by_thread[t7->a0 + i]->start, t7_start[i]);
        ck_assert_int_eq(f.tl.by_thread[t7->a0 + i]->end, t7_end[i]);
    }
    /* the operation each API call submitted */
    ck_assert_uint_eq(f.tl.by_corr[1].corr, 43);
    ck_assert_uint_eq(f.tl.ops[f.tl.by_corr[1].op].stream, 2);
    sc_tl_free(&f.tl);
}
END_TEST

static Suite *timeline_suite(void)
{
    Suite *s = suite_create("timeline");
    TCase *tc = tcase_create("timeline");
    tcase_add_test(tc, spans_merge_overlapping_and_touching);
    tcase_add_test(tc, device_busy_idle_and_overlap);
    tcase_add_test(tc, an_operation_that_ends_before_it_starts_is_empty);
    tcase_add_test(tc, gaps_between_a_streams_operations);
    tcase_add_test(tc, an_empty_timeline_prices_nothing);
    tcase_add_test(tc, a_blocking_call_costs_the_idle_it_caused);
    tcase_add_test(tc, a_barrier_costs_the_chain_it_held_back);
    tcase_add_test(tc, a_chain_ends_where_its_work_stopped_waiting);
    tcase_add_test(tc, a_barrier_holds_back_only_work_submitted_while_it_held);
    tcase_add_test(tc, a_call_that_is_no_barrier_costs_its_own_work_only);
    tcase_add_test(tc, a_dropped_or_late_api_record_leaves_the_op_on_time);
    tcase_add_test(tc, only_the_events_asked_for_are_priced);
    tcase_add_test(tc, an_event_finds_its_own_gpu_work);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(timeline_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
