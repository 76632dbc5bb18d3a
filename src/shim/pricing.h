/* pricing.h: what fixing each finding would save, predicted by replaying
 * the run (replay.h) as it was and as its fix would make it.
 *
 * The model is built from what the shim recorded while the program ran:
 * - per host thread, the calls it made that the slow path saw, in order,
 *   with their start and end, how long each waited for the GPU, and how
 *   many submissions the fast path let through before each (runlog.c);
 * - per device, when the GPU had work (the union of its operations in
 *   measured mode; sampled in detect mode, gpusample.c);
 * - per device, the rate of a copy from pinned memory each way, and of
 *   copies both ways at once.
 * A thread that waits for the GPU is an actor of the model: its host time
 * between calls is replayed as it was; the GPU time between its waits,
 * shared among the actors submitting at that time in proportion to their
 * submission rates, becomes work it queues at the points it submitted.
 * Threads that never wait (PyTorch's autograd thread) are not actors:
 * their GPU work counts towards the actors' around it.
 *
 * A finding's fix changes some of its calls (pricing.c, fix_*): a host wait
 * dropped, a pageable copy made asynchronous at the pinned rate, a thread's
 * legacy-stream work moved to a stream of its own.  Its saving is the
 * replayed run's length less the fixed run's, never below 0.
 *
 * Pure: no CUDA, no shim state; tests/unit/test_pricing.c feeds it logs.
 */
#ifndef SC_PRICING_H
#define SC_PRICING_H

#include <stddef.h>
#include <stdint.h>

/* What a recorded call did, as the model needs it. */
typedef enum sc_pr_what {
    SC_PR_SUBMIT = 0,     /* queued work (a launch, an async copy, ...) and returned */
    SC_PR_OTHER,          /* neither queued work nor waited for it */
    SC_PR_WAIT_STREAM,    /* waited for a stream's work (cudaStreamSynchronize) */
    SC_PR_WAIT_DEVICE,    /* waited for the device (cudaDeviceSynchronize, an allocation that synchronized) */
    SC_PR_WAIT_EVENT,     /* waited for an event (cudaEventSynchronize): taken as the thread's last work */
    SC_PR_COPY_PAGEABLE,  /* an "async" copy of pageable memory: waits for its stream, then copies
                             while the host waits (DRV, 2. API synchronization behavior) */
    SC_PR_COPY_SYNC,      /* a synchronous copy: waits for its stream, then the copy */
    SC_PR_JOIN,           /* waited for another thread to end (pthread_join): `stream` is that
                             thread's index in the model, SC_PR_NONE when it is not an actor */
    SC_PR_EVENT_RECORD,   /* recorded an event on `stream` (cuEventRecord): `bytes` is the event's
                             handle.  Recorded in measured mode, or as STREAMCHECK_TEST_EVENT_ORDERS
                             says (runlog.c) */
    SC_PR_EVENT_WAIT,     /* made `stream` wait for an event (cuStreamWaitEvent): `bytes`, the
                             event's handle; likewise */
} sc_pr_what;

#define SC_PR_NONE 0xffffffffu

enum { SC_PR_H2D = 1, SC_PR_D2H = 2 };

/* How a finding's fix changes its calls. */
typedef enum sc_pr_fix {
    SC_PR_FIX_NONE = 0,   /* not modelled: the finding keeps its other price */
    SC_PR_FIX_NO_WAIT,    /* the wait goes (moved to where its result is used, or dropped) */
    SC_PR_FIX_PIN,        /* the copy comes from pinned memory: queued, at the pinned rate;
                             a synchronous one to the host still waited for, an async one
                             waited for where the program waits (its next sync); its host side
                             not released (release_ns); a batch the thread received (receive_ns)
                             received, staged and released by a pinning thread of the replay's
                             instead, which the thread waits for there; its destination's first touch
                             (touch_ns) made at the thread's start, where the pinned buffer is
                             allocated; pages touched again (touch_again) not touched at all */
    SC_PR_FIX_STREAM,     /* waits for the thread's own stream, not the whole device */
    SC_PR_FIX_OWN_STREAM, /* the thread's legacy-stream work goes to a stream of its own */
    SC_PR_FIX_DROP,       /* the call goes (an allocation hoisted out of the loop) */
    SC_PR_FIX_PIPELINE,   /* the pinned copies of the stream of the finding's calls go to a stream
                             per direction (per thread), ordered with the stream's kernels as
                             events would order them: an upload before the kernels after it, a
                             download after the kernels before it; a copy whose device range
                             another copy of the thread's uses (a reused buffer, `reused`) also
                             after the stream's work before it, and the kernels after a reused
                             download after it */
    SC_PR_FIX_SPREAD,     /* a handle per stream (SC601): the kernels a library handle left on the
                             legacy stream launched go, in turn, to as many streams as the program
                             created on the device (at most 8), blocking ones, so that the legacy
                             stream's work before them and after them (an event that joins them
                             back) still orders with them; consecutive ones overlap.  Priced only
                             under --measure (each kernel's time) where the run recorded events'
                             orders (runlog.h, sc_rl_events): programs join a handle's work to
                             their streams with events (price.c) */
    SC_PR_FIX_UNBARRIER,  /* the call's legacy-stream work goes to the thread's own stream, ordered
                             with the legacy stream but not with the other blocking streams (a
                             per-thread default stream: --default-stream per-thread), and so do the
                             submissions the fast path let through to that stream just before it;
                             the thread's waits for the legacy stream wait for that stream too.
                             SC101's under --measure (price.c), priced together (pricing_savings.c):
                             an event recorded there still joins the thread's blocking streams
                             (keep_join), and a synchronous copy there still waits for what moved;
                             other data the barrier ordered would need events the replay does
                             not add */
    SC_PR_FIX_NONBLOCK,   /* the blocking streams created at the finding's site (sc_pr_stream.finding)
                             are non-blocking: the legacy stream's work no longer orders with them.
                             SC102's (cudaStreamNonBlocking), the other fix of its commands' SC101:
                             under --measure (price.c; STREAMCHECK_TEST_NONBLOCK=0 turns it off).
                             Under either fix an event recorded on the legacy stream still joins
                             the thread's blocking streams (pricing.c, keep_join); other data the
                             barrier ordered would need events the replay does not add */
    SC_PR_FIX_QUEUES,     /* every device has 32 hardware queues (CUDA_DEVICE_MAX_CONNECTIONS=32,
                             the most), not sc_pr_device.connections: SC701's, under --measure
                             (price.c; STREAMCHECK_TEST_QUEUES=0 turns it off), where the replay
                             shares the queues (sc_rp_set_queues) */
} sc_pr_fix;

/* At most this many SC_PR_FIX_UNBARRIER findings are priced together (a
   replay without each, pricing_savings.c); more keep their own savings. */
#define SC_PR_UNBARRIER_MAX 16

/* The smallest copy SC_PR_FIX_PIPELINE moves (the recorder records the
   pinned copies of this size or more, runlog.h; smaller ones it counts among
   a stretch's submissions, as kernels, and they stay where they were). */
#define SC_PR_PIPE_MIN 65536

/* A copy to the host of a result's few bytes (this many or less: a loss, a
   count, a flag), which the program could keep on the GPU: SC403's read
   (detect.h, sc_detect_small_read), and a read the fix of a wait before it
   takes along (pricing.c, shadowed).  A larger one is data the host works
   on. */
#define SC_PR_READ_MAX 4096

typedef struct sc_pr_call {
    uint64_t t0, t1;      /* when it was called and returned, ns */
    uint64_t wait_ns;     /* of that, waiting for earlier GPU work (from t0) */
    uint64_t own_ns;      /* the recorder's own time around the call, outside [t0, t1]: in
                             the host time between it and its neighbours, not the program's */
    uint64_t release_ns;  /* pageable copies: host time the thread spent after it unmapping the copy's
                             host side (a DataLoader's batch in shared memory, a result read back into
                             a new mapping): the pinned buffer of the fix is not released each step
                             (SC_PR_FIX_PIN) */
    uint64_t receive_ns;  /* pageable uploads: host time the thread spent receiving the copy's host
                             side (a DataLoader's batch from a worker: up to mapping its shared memory,
                             unmap.c), from receive_t0, the return of an earlier call of its, on: the
                             pinning thread's work with pin_memory=True (SC_PR_FIX_PIN).  In a
                             Python process, the part of it off the thread's CPU; receive_cpu_ns, the
                             rest (its CPU time less the releases timed within it), which the replay
                             adds where sc_pr_model.receipt_cpu says so */
    uint64_t receive_t0;
    uint64_t receive_cpu_ns;
    uint64_t cpu_ns;      /* a receipt's call in a Python thread: the thread's CPU clock at the
                             record (CLOCK_THREAD_CPUTIME_ID), else 0 */
    uint64_t touch_ns;    /* pageable copies to the host: the part of the call (after its wait) spent
                             faulting in destination pages never written before; the fix's pinned
                             buffer has them touched where it is allocated, before the thread's work */
    uint64_t bytes;       /* copies */
    uint64_t dev;         /* copies: the device side's address ([dev, dev + bytes) on the device); 0 unknown */
    uint32_t stream;      /* index into the model's streams; where it submitted or what it waited for */
    uint32_t nsub;        /* submissions the thread made since its previous recorded call, not recorded */
    uint32_t sub_stream;  /* where the last of them went */
    uint16_t finding[2];  /* the findings it counts in: index + 1, 0 none */
    uint8_t what;         /* sc_pr_what */
    uint8_t dir;          /* copies: SC_PR_H2D or SC_PR_D2H */
    uint8_t touch_again;  /* its destination has cold pages where the thread's earlier copies touched:
                             the program unmapped and mapped it again (a tensor's .cpu() each step),
                             where one pinned buffer, kept, is touched once.  The copy faulted them
                             in its own time (touch_ns 0), all of which the fix saves */
    float demand;         /* launches: the share of the device it asks for (0: unknown) */
    float fast_demand;    /* the same for the kernels among the nsub submissions before it */
    float occ_demand;     /* demand by the kernel's occupancy (occupancy.h; 0: not asked, unknown) */
    float fast_occ_demand; /* fast_demand so; the model takes both where sc_pr_model.occupancy */
    uint8_t gpu_known;    /* measured mode recorded the GPU operations of the thread around it: */
    uint64_t gpu_ns;      /* the GPU time of what the call itself queued, and ... */
    uint64_t fast_gpu_ns; /* ... of what the nsub submissions before it queued (CUPTI's durations:
                             the weights by which a stretch's busy time is shared, pricing_attribute.c) */
    uint64_t tool_ns;     /* measured mode: host time CUPTI's records of the thread's API calls since
                             the previous recorded call took (their number times the cost of one,
                             timed amid the program's work): in the gap before the call, not the
                             program's, so the replay takes it out as it does own_ns */
    uint32_t tool_apis;   /* those API records, and the GPU operations those calls queued (tool_ns's */
    uint32_t tool_ops;    /* counts, kept in price.c's dump) */
} sc_pr_call;

typedef struct sc_pr_thread {
    const sc_pr_call *calls;
    size_t n;
    uint32_t id;              /* the recorder's name for it */
    uint16_t legacy_finding;  /* an SC103-style finding covering its legacy-stream work: index + 1 */
    uint32_t pthread;         /* pthread_self() in 32 bits, as CUPTI's records name the thread */
} sc_pr_thread;

typedef enum sc_pr_stream_kind {
    SC_PR_LEGACY = 0, SC_PR_BLOCKING, SC_PR_NONBLOCKING, SC_PR_PTDS,
} sc_pr_stream_kind;

typedef struct sc_pr_stream {
    uint32_t device;
    uint8_t kind;         /* sc_pr_stream_kind */
    uint16_t finding;     /* a blocking stream: the SC102 finding at the site that created it (its
                             SC_PR_FIX_NONBLOCK makes the stream non-blocking), 0 none */
} sc_pr_stream;

typedef struct sc_pr_span { uint64_t a, b; } sc_pr_span;

typedef struct sc_pr_device {
    const sc_pr_span *busy;  /* when the GPU had work, sorted, not overlapping */
    size_t nbusy;
    int known;               /* busy is known (else: the waits are all the model knows) */
    double rate[3];          /* [SC_PR_H2D], [SC_PR_D2H]: pinned copy rate, bytes per ns (0: unknown) */
    double duplex;           /* pinned copies both ways at once: bytes per ns in all (0: unknown);
                                under rate[H2D] + rate[D2H], the replay slows copies that overlap
                                one the other way by duplex / (rate[H2D] + rate[D2H]) */
    unsigned connections;    /* its hardware queues (CUDA_DEVICE_MAX_CONNECTIONS), which the replay
                                shares among the streams; 0: not modelled (a queue per stream) */
    uint32_t gap_ns[4];      /* measured mode: the GPU's idle gap from an operation's end to the
                                start of its stream's next, queued before it ended (median), by
                                replay.h's SC_RP_GAP(prev_copy, next_copy); 0: unknown.  Replayed where
                                sc_pr_model.gaps says so */
} sc_pr_device;

typedef struct sc_pr_finding {
    uint8_t fix;             /* sc_pr_fix */
    uint8_t in_all;          /* part of the "everything fixed" run */
    uint8_t joint;           /* priced with the other joint findings (see sc_pr_price) */
    uint16_t keep_bp;        /* a candidate the report keeps only where its saving is keep_bp
                                (hundredths of a percent) of its share's time or more, and keep_ns:
                                left out of the "everything fixed" run where it saves less */
    uint64_t keep_ns;
} sc_pr_finding;

typedef struct sc_pr_model {
    const sc_pr_thread *threads; size_t nthreads;
    const sc_pr_stream *streams; size_t nstreams;
    const sc_pr_device *devices; size_t ndevices;
    const sc_pr_finding *findings; size_t nfindings;
    uint64_t scope_ns;       /* the time shares are of where the report's are of a range; 0: the
                                steady loop for findings in it, else the window (keep_bp) */
    uint8_t gaps;            /* the replays keep each device's gap_ns between a stream's operations
                                (measured mode, unless STREAMCHECK_TEST_GAPS=0; sc_rp_set_gaps) */
    uint64_t latency_ns;     /* from a submission to its work's earliest start in the replays:
                                sc_pr_price sets it on its copy of the model (sc_pr_latency) */
    uint8_t occupancy;       /* the kernels' demand is their occupancy's where known (occupancy.h) */
    uint8_t receipt_cpu;     /* a Python thread's receipts count the part of their CPU time
                                (receive_cpu_ns) the pinning thread can do while the thread leaves
                                the GIL free: the share of the thread's time off its CPU or waiting
                                in a call (its cpu_ns); unless STREAMCHECK_TEST_RECEIPT_CPU=0 */
} sc_pr_model;

typedef struct sc_pr_result {
    uint64_t window_ns;   /* the actors' first call to their last call's end, as recorded */
    uint64_t model_ns;    /* the same window replayed as it was */
    uint64_t fixed_ns;    /* replayed with every in_all finding fixed */
    uint64_t loop_ns;     /* the steady loop, its start to its end, where findings repeated
                             through the run show one (sc_pr_price); else 0 */
    uint64_t *saving;     /* per finding (caller's array of nfindings) */
    uint8_t *off_loop;    /* per finding (caller's array, or NULL): 1 where all its calls end
                             before the loop or start after it (the set-up's, the teardown's) */
    uint32_t *shadowed;   /* per finding (caller's array, or NULL): the waits right after its
                             calls that its own fix took along (found the GPU drained by them) */
    uint8_t *dropped;     /* per finding (caller's array, or NULL): 1 where it saves less than
                             its keep_bp or keep_ns (or the run has no model): the report leaves
                             it out, and "everything fixed" does not fix it */
    uint64_t *together;   /* per finding (caller's array, or NULL): where two or more findings of
                             the "everything fixed" run have its fix (pinning, a wait moved, ...),
                             what fixing all of those at once saves (their savings overlap: two
                             copy lines of one pipeline, pinned, save less than each alone added
                             up); else 0 */
    uint32_t *together_n; /* per finding (with together): how many findings that is */
    int stalled;          /* a replay could not finish (a wait for work never queued) */
} sc_pr_result;

/* Replays the model as it was, once per finding with a fix, and once with
   every in_all finding fixed (but candidates that save less than their
   keep_bp, keep_ns).  Joint findings (waits: one removed alone
   moves the wait to the next, as a loss.item() then an accuracy .item()
   each step) are also replayed fixed together; each one's saving is the
   larger of its own and its share of theirs, by the time its calls waited.
   So are SC_PR_FIX_UNBARRIER's (the legacy stream's barrier holds the
   blocking streams back until every site is moved), sharing what they
   save at once by what each adds to it (pricing_savings.c).
   The findings of the everything-fixed run that share a fix, two or more,
   are replayed fixed together too (together, together_n).
   Also the steady loop: findings whose calls repeat evenly at least 5
   times and span half the longest such span or more make it, from one
   period (the median time between a finding's calls) before their first
   (after the warm-up's long steps) to one period after their last, where
   it leaves out a quarter of the window or more, and a second or more,
   and is 0.1% of it or more (pricing_loop.c).
   0, or -1 when out of memory. */
int sc_pr_price(const sc_pr_model *m, sc_pr_result *out);

/* The orders events give streams in a replay (pricing_events.c): the
   replay operation each record of an event followed, so that a stream's
   wait for the event orders its later work after the work the event's
   latest record before the wait captured (DRV, cuStreamWaitEvent; RT,
   cudaStreamWaitEvent: "the stream waits on the most recent call to
   cudaEventRecord").  A wait for an event recorded by a thread the replay
   builds later finds no record, and orders nothing.  sc_pr_events_new:
   NULL where the model has no event records (*oom 0) or out of memory
   (*oom 1); put: 0, or -1 when out of memory; get: the operation, or -1. */
typedef struct sc_pr_events sc_pr_events;
sc_pr_events *sc_pr_events_new(const sc_pr_model *m, int *oom);
int sc_pr_events_put(sc_pr_events *e, uint64_t event, uint64_t t0, int op);
int sc_pr_events_get(const sc_pr_events *e, uint64_t event, uint64_t t0);
void sc_pr_events_free(sc_pr_events *e);

/* The steady loop (pricing_loop.c), for sc_pr_price: sets out->loop_ns and
   out->off_loop from the findings' calls in [origin, end].  0, or -1
   when out of memory. */
int sc_pr_find_loop(const sc_pr_model *m, uint64_t origin, uint64_t end, sc_pr_result *out);
/* 1 where finding i, saving this much, is a candidate the report leaves
   out for saving too little: under keep_bp of the time its share is of
   (the range's, the steady loop's where it is in it, else the window's),
   or under keep_ns (pricing_loop.c). */
int sc_pr_below_bar(const sc_pr_model *m, const sc_pr_result *out, size_t i, uint64_t saving);
/* The findings of the "everything fixed" run (pricing_loop.c): a copy of
   m's, without the candidates the report leaves out for saving too little,
   but those whose group_kept is set (NULL: none); NULL when out of
   memory. */
sc_pr_finding *sc_pr_all_fixed(const sc_pr_model *m, sc_pr_result *out, const uint8_t *group_kept);

/* A copy's buffer (pricing_copies.c), for SC_PR_FIX_PIPELINE: prev, the
   thread's latest earlier copy whose device range overlaps this one's (its
   index in the thread; -1 none, -2 the range is unknown); war_head, the
   downloads whose buffer the stream's later work may overwrite from this
   call on (a list through war_link). */
typedef struct sc_pr_reuse {
    int32_t prev, war_head, war_link;
} sc_pr_reuse;

/* 1 if c is a copy between host and device (async, pageable or synchronous). */
int sc_pr_is_copy(const sc_pr_call *c);

/* Each of th's calls' sc_pr_reuse (malloc'd, th->n of them), or NULL when
   out of memory. */
sc_pr_reuse *sc_pr_plan_copies(const sc_pr_thread *th);

/* pricing.c and pricing_attribute.c, the model's two parts: */
/* Per call of every actor: the GPU work of the submissions the fast path
   let through before it (fast), and of its own submission (self), in ns. */
typedef struct sc_pr_work {
    double fast, self;
    sc_pr_reuse ru;   /* its copy's buffer, for SC_PR_FIX_PIPELINE (sc_pr_plan_copies) */
} sc_pr_work;

static inline int sc_pr_waits(const sc_pr_call *c)
{
    return c->what == SC_PR_WAIT_STREAM || c->what == SC_PR_WAIT_DEVICE || c->what == SC_PR_WAIT_EVENT ||
           c->what == SC_PR_COPY_PAGEABLE || c->what == SC_PR_COPY_SYNC;
}

static inline int sc_pr_copies(const sc_pr_call *c)
{
    return c->what == SC_PR_COPY_PAGEABLE || c->what == SC_PR_COPY_SYNC;
}

/* A copy's wait for earlier work is at most its time less its own copy's
   on the GPU, where measured mode timed that (gpu_ns): the recorder counts
   a synchronous copy called with work pending as waiting throughout
   (simpleStreams' 64 MiB cudaMemcpy after an 82 us kernel: 1.31 ms of
   waiting, 1.21 ms of it the copy itself, which the model then lost). */
static inline void sc_pr_cap_copy_wait(sc_pr_call *c)
{
    uint64_t d = c->t1 - c->t0;
    if (sc_pr_copies(c) && c->gpu_known && c->gpu_ns && c->wait_ns + c->gpu_ns > d)
        c->wait_ns = d > c->gpu_ns ? d - c->gpu_ns : 0;
}

static inline uint32_t sc_pr_device_of(const sc_pr_model *m, uint32_t stream)
{
    return stream < m->nstreams ? m->streams[stream].device : 0;
}

/* A copy's time ns, no longer than measured mode's record of it (gpu_ns),
   where it has one: a calibration may undershoot the rate a copy ran at. */
static inline double sc_pr_no_slower(const sc_pr_call *c, double ns)
{
    return c->gpu_known && c->gpu_ns && (double)c->gpu_ns < ns ? (double)c->gpu_ns : ns;
}

/* A recorded async copy's own time at the device's pinned rate, where it
   is known (else 0: it shares the GPU's time by count, as work).  Where the
   replays keep the GPU's gaps (sc_pr_model.gaps: measured mode), no slower
   than measured mode timed it: seed 003's 4 MiB copies ran in 78 us on an
   H200 where the calibrated rate gives 87, which made up for the gaps the
   replay left out. */
static inline double sc_pr_copy_ns(const sc_pr_model *m, const sc_pr_call *c)
{
    uint32_t d = sc_pr_device_of(m, c->stream);
    if ((c->dir != SC_PR_H2D && c->dir != SC_PR_D2H) || !c->bytes || d >= m->ndevices)
        return 0;
    double r = m->devices[d].rate[c->dir], ns = r > 0 ? (double)c->bytes / r : 0;
    return m->gaps && ns > 0 ? sc_pr_no_slower(c, ns) : ns;
}

/* The GPU's busy time to every actor's calls (pricing_attribute.c): an
   array of one work per call, threads one after another; NULL when out of
   memory. */
sc_pr_work *sc_pr_attribute(const sc_pr_model *m, size_t *ncalls_out);

/* One scenario replayed (pricing.c), for sc_pr_price (pricing_savings.c):
   only, the finding fixed (its index), -1 none, -2 every in_all one, -3
   every joint one; w and base, each call's work and each thread's first
   call's index in it (sc_pr_attribute); nshadow, the waits the fix took
   along, and taken, the calls it did (per call; both may be NULL).  The
   run's end relative to origin, or -1 when out of memory. */
int64_t sc_pr_replay(const sc_pr_model *m, const sc_pr_work *w, const size_t *base, uint64_t origin, long only,
                     int *stalled, uint32_t *nshadow, uint8_t *taken);

/* Measured mode's time from a submission's call to its work's start on an
   idle GPU, the median of the run's own (pricing_attribute.c); 0 where
   the run does not show it (detect mode, too few). */
uint64_t sc_pr_latency(const sc_pr_model *m);

#endif /* SC_PRICING_H */
