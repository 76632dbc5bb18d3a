/* replay.c: the replay of a run's dependency graph (replay.h says what is
 * replayed).  A discrete-event simulation: host threads execute their steps,
 * operations start when their stream's previous operation and their other
 * predecessors are done, running operations progress at the rate their
 * engine's sharing gives them, and the clock jumps from one event (a step
 * ending, an operation ending or becoming able to start) to the next.
 * Every event does work in the number of running operations, blocked
 * threads and non-empty streams, which stay small in real programs.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "sc.h"

enum { ST_CPU, ST_SUBMIT, ST_WAIT_STREAM, ST_WAIT_DEVICE, ST_WAIT_OP, ST_STREAM_WAIT, ST_AFTER };
enum { OP_NEW, OP_QUEUED, OP_RUNNING, OP_DONE };
enum { W_NONE, W_OP, W_DEVICE, W_AFTER };

typedef struct step {
    uint8_t kind;
    int32_t a;      /* stream, device, operation or thread */
    int64_t b;      /* ns, operation or step */
} step;

typedef struct op {
    int32_t stream;
    uint8_t engine, state;
    double demand, work, dur, rate;
    double submit, start, end;
    int32_t next;            /* the next operation queued on its stream, -1 */
    uint32_t dep_off, ndep;  /* predecessors other than the stream's previous operation */
    uint32_t tag;
    uint32_t qseq;           /* its place in its hardware queue's order (sc_rp_set_queues) */
} rop;

typedef struct stream {
    unsigned device;
    uint8_t kind;
    int32_t head, tail;      /* queued, not yet started: a list through op.next */
    int32_t last;            /* the last operation submitted to it, -1 */
    int32_t prev_running;    /* an operation of it still running, -1 */
    int32_t *pend;           /* stream waits since its last submission: the next submitted */
    size_t npend, cappend;   /* operation waits for every one of them (cuStreamWaitEvent adds up) */
    int32_t queue;           /* its hardware queue (sc_rp_run), -1 none */
    double last_end;         /* when its last operation with time on its engine ended */
    int8_t last_copy;        /* that one a copy (1) or not (0); -1: none yet */
} rstream;

typedef struct thread {
    step *s;
    size_t n, cap;
    size_t pc;               /* next step */
    double start, end;
    uint8_t wait;            /* W_*: what it is blocked on */
    uint8_t sleeping;        /* in its CPU step pc, until the heap wakes it */
    int32_t target;          /* W_OP: an operation; W_AFTER: a thread */
    unsigned dev;            /* W_DEVICE */
    int done;
} hthread;

struct sc_rp {
    rop *ops; size_t nops, capops;
    rstream *st; size_t nst, capst;
    hthread *th; size_t nth, capth;
    int32_t *deps; size_t ndeps, capdeps;
    int32_t *legacy_last; size_t nlegacy;   /* per device: the last legacy-stream operation */
    double *duplex;                         /* per device: copies' rate while both ways copy */
    unsigned *nqueues;                      /* per device: hardware queues (0: as many as streams) */
    uint32_t (*gaps)[4];                    /* per device: sc_rp_set_gaps */
    uint32_t *qnext, *qstarted;             /* per queue: operations submitted to it, and started */
    int queued;                             /* some device shares hardware queues */
    double latency;
    int ran;
};

static uint64_t ns_of(double t)
{
    return t > 0 ? (uint64_t)(t + 0.5) : 0;
}

static int grow(void *pp, size_t *cap, size_t need, size_t elt)
{
    return sc_grow_cap(pp, cap, need, elt, 16);
}

sc_rp *sc_rp_new(void)
{
    return calloc(1, sizeof(sc_rp));
}

void sc_rp_free(sc_rp *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->nth; i++)
        free(g->th[i].s);
    free(g->th);
    free(g->ops);
    for (size_t i = 0; i < g->nst; i++)
        free(g->st[i].pend);
    free(g->st);
    free(g->deps);
    free(g->legacy_last);
    free(g->duplex);
    free(g->nqueues);
    free(g->gaps);
    free(g->qnext);
    free(g);
}

void sc_rp_set_latency(sc_rp *g, uint64_t ns)
{
    g->latency = (double)ns;
}

/* Room for device d in the per-device arrays: 0, or -1. */
static int device_room(sc_rp *g, unsigned device)
{
    if (device < g->nlegacy)
        return 0;
    int32_t *l = realloc(g->legacy_last, (device + 1) * sizeof *l);
    if (!l)
        return -1;
    g->legacy_last = l;
    double *f = realloc(g->duplex, (device + 1) * sizeof *f);
    if (!f)
        return -1;
    g->duplex = f;
    unsigned *q = realloc(g->nqueues, (device + 1) * sizeof *q);
    if (!q)
        return -1;
    g->nqueues = q;
    uint32_t(*gp)[4] = realloc(g->gaps, (device + 1) * sizeof *gp);
    if (!gp)
        return -1;
    g->gaps = gp;
    for (size_t i = g->nlegacy; i <= device; i++) {
        l[i] = -1;
        f[i] = 1;
        q[i] = 0;
        memset(gp[i], 0, sizeof gp[i]);
    }
    g->nlegacy = device + 1;
    return 0;
}

int sc_rp_set_duplex(sc_rp *g, unsigned device, double f)
{
    if (!(f > 0 && f <= 1) || device_room(g, device))
        return -1;
    g->duplex[device] = f;
    return 0;
}

int sc_rp_set_gaps(sc_rp *g, unsigned device, const uint32_t ns[4])
{
    if (device_room(g, device))
        return -1;
    memcpy(g->gaps[device], ns, sizeof g->gaps[device]);
    return 0;
}

int sc_rp_set_queues(sc_rp *g, unsigned device, unsigned n)
{
    if (device_room(g, device))
        return -1;
    g->nqueues[device] = n;
    return 0;
}

/* Each stream of a device with hardware queues takes one, round robin in
   the order the streams were made; the legacy stream none.  0, or -1. */
static int assign_queues(sc_rp *g)
{
    size_t total = 0;
    for (size_t d = 0; d < g->nlegacy; d++)
        total += g->nqueues[d];
    g->qnext = calloc(2 * total + 1, sizeof *g->qnext);
    if (!g->qnext)
        return -1;
    g->qstarted = g->qnext + total;
    size_t base = 0;
    for (size_t d = 0; d < g->nlegacy; d++) {
        unsigned k = 0;
        for (size_t i = 0; i < g->nst; i++)
            if (g->st[i].device == d)
                g->st[i].queue = g->nqueues[d] && g->st[i].kind != SC_RP_LEGACY
                                     ? (int32_t)(base + k++ % g->nqueues[d]) : -1;
        base += g->nqueues[d];
    }
    g->queued = total > 0;
    return 0;
}

int sc_rp_stream(sc_rp *g, unsigned device, sc_rp_stream_kind kind)
{
    if (grow(&g->st, &g->capst, g->nst + 1, sizeof *g->st) || device_room(g, device))
        return -1;
    g->st[g->nst] = (rstream){.device = device, .kind = (uint8_t)kind, .head = -1, .tail = -1, .last = -1,
                             .prev_running = -1, .queue = -1, .last_copy = -1};
    return (int)g->nst++;
}

int sc_rp_thread(sc_rp *g, uint64_t start_ns)
{
    if (grow(&g->th, &g->capth, g->nth + 1, sizeof *g->th))
        return -1;
    g->th[g->nth] = (hthread){.start = (double)start_ns, .end = (double)start_ns, .target = -1};
    return (int)g->nth++;
}

static int add_step(sc_rp *g, int t, uint8_t kind, int32_t a, int64_t b)
{
    if (t < 0 || (size_t)t >= g->nth)
        return -1;
    hthread *h = &g->th[t];
    if (grow(&h->s, &h->cap, h->n + 1, sizeof *h->s))
        return -1;
    h->s[h->n] = (step){.kind = kind, .a = a, .b = b};
    return (int)h->n++;
}

int sc_rp_cpu(sc_rp *g, int thread, uint64_t ns)
{
    return add_step(g, thread, ST_CPU, 0, (int64_t)ns);
}

int sc_rp_submit(sc_rp *g, int thread, int stream, sc_rp_engine engine, uint64_t dur_ns,
                 double demand, uint32_t tag)
{
    if (stream < 0 || (size_t)stream >= g->nst || grow(&g->ops, &g->capops, g->nops + 1, sizeof *g->ops))
        return -1;
    if (!(demand > 0))
        demand = 1e-6;
    if (demand > 1)
        demand = 1;
    int id = (int)g->nops;
    if (add_step(g, thread, ST_SUBMIT, id, 0) < 0)
        return -1;
    g->ops[g->nops++] = (rop){.stream = stream, .engine = (uint8_t)engine, .demand = demand,
                             .work = (double)dur_ns, .dur = (double)dur_ns, .submit = -1, .start = -1,
                             .end = -1, .next = -1, .tag = tag};
    return id;
}

int sc_rp_wait_stream(sc_rp *g, int thread, int stream)
{
    if (stream < 0 || (size_t)stream >= g->nst)
        return -1;
    return add_step(g, thread, ST_WAIT_STREAM, stream, 0);
}

int sc_rp_wait_device(sc_rp *g, int thread, unsigned device)
{
    return add_step(g, thread, ST_WAIT_DEVICE, (int32_t)device, 0);
}

int sc_rp_wait_op(sc_rp *g, int thread, int o)
{
    if (o < 0 || (size_t)o >= g->nops)
        return -1;
    return add_step(g, thread, ST_WAIT_OP, o, 0);
}

int sc_rp_stream_wait_op(sc_rp *g, int thread, int stream, int o)
{
    if (stream < 0 || (size_t)stream >= g->nst || o < 0 || (size_t)o >= g->nops)
        return -1;
    return add_step(g, thread, ST_STREAM_WAIT, stream, o);
}

int sc_rp_after(sc_rp *g, int thread, int other, int stp)
{
    if (other < 0 || (size_t)other >= g->nth || other == thread || stp < 0)
        return -1;
    return add_step(g, thread, ST_AFTER, other, stp);
}

/* ------------------------------------------------------------ the run --- */
typedef struct sim {
    sc_rp *g;
    double now;
    int32_t *running; size_t nrun, caprun;
    /* threads ready to go on: a binary heap by time */
    struct wake { double t; int32_t th; } *heap; size_t nheap, capheap;
    int32_t *busy_streams; size_t nbusy, capbusy;   /* streams with queued operations */
    double busy_since;               /* union of run times: start of the current busy stretch */
    double busy_sum;
    double *scratch;                 /* rates(): per device, a demand and a count per engine */
} sim;

static int heap_push(sim *s, double t, int32_t th)
{
    if (grow(&s->heap, &s->capheap, s->nheap + 1, sizeof *s->heap))
        return -1;
    size_t i = s->nheap++;
    while (i) {
        size_t p = (i - 1) / 2;
        if (s->heap[p].t <= t)
            break;
        s->heap[i] = s->heap[p];
        i = p;
    }
    s->heap[i] = (struct wake){t, th};
    return 0;
}

static struct wake heap_pop(sim *s)
{
    struct wake top = s->heap[0], last = s->heap[--s->nheap];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= s->nheap)
            break;
        if (c + 1 < s->nheap && s->heap[c + 1].t < s->heap[c].t)
            c++;
        if (s->heap[c].t >= last.t)
            break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (s->nheap)
        s->heap[i] = last;
    return top;
}

static int op_done(const sc_rp *g, int32_t o)
{
    return o < 0 || g->ops[o].state == OP_DONE;
}

static int add_dep(sc_rp *g, int32_t o)
{
    if (op_done(g, o))
        return 0;
    if (grow(&g->deps, &g->capdeps, g->ndeps + 1, sizeof *g->deps))
        return -1;
    g->deps[g->ndeps++] = o;
    return 0;
}

/* A submission: its predecessors besides its stream's previous operation
   are fixed now, by what was submitted before it. */
static int submit(sim *s, int32_t id)
{
    sc_rp *g = s->g;
    rop *o = &g->ops[id];
    rstream *st = &g->st[o->stream];
    o->submit = s->now;
    o->state = OP_QUEUED;
    if (st->queue >= 0)
        o->qseq = g->qnext[st->queue]++;
    o->dep_off = (uint32_t)g->ndeps;
    int rc = 0;
    for (size_t i = 0; i < st->npend; i++)
        rc |= add_dep(g, st->pend[i]);
    st->npend = 0;
    if (st->kind == SC_RP_LEGACY) {
        for (size_t i = 0; i < g->nst; i++)
            if (g->st[i].device == st->device && g->st[i].kind == SC_RP_BLOCKING)
                rc |= add_dep(g, g->st[i].last);
        g->legacy_last[st->device] = id;
    } else if (st->kind == SC_RP_BLOCKING) {
        rc |= add_dep(g, g->legacy_last[st->device]);
    }
    o->ndep = (uint32_t)g->ndeps - o->dep_off;
    if (st->tail >= 0) {
        g->ops[st->tail].next = id;
    } else {
        st->head = id;
        if (grow(&s->busy_streams, &s->capbusy, s->nbusy + 1, sizeof *s->busy_streams))
            return -1;
        s->busy_streams[s->nbusy++] = o->stream;
    }
    st->tail = id;
    st->last = id;
    return rc;
}

/* Whether a thread blocked in a wait may go on. */
static int wait_over(const sc_rp *g, const hthread *h)
{
    if (h->wait == W_AFTER) {
        const hthread *o = &g->th[h->target];
        return o->pc > (size_t)h->s[h->pc].b || o->done;
    }
    if (h->wait == W_OP)
        return op_done(g, h->target);
    for (size_t i = 0; i < g->nst; i++)
        if (g->st[i].device == h->dev && !op_done(g, g->st[i].last))
            return 0;
    return 1;
}

/* Runs thread t's steps from now until it blocks, sleeps or ends. */
static int run_thread(sim *s, int32_t t)
{
    sc_rp *g = s->g;
    hthread *h = &g->th[t];
    h->wait = W_NONE;
    if (h->sleeping) {
        h->sleeping = 0;
        h->pc++;
    }
    while (h->pc < h->n) {
        const step *p = &h->s[h->pc];
        switch (p->kind) {
        case ST_CPU:
            if (p->b > 0) {
                h->sleeping = 1;
                return heap_push(s, s->now + (double)p->b, t);
            }
            h->pc++;
            continue;
        case ST_SUBMIT:
            h->pc++;
            if (submit(s, p->a))
                return -1;
            continue;
        case ST_STREAM_WAIT:
            h->pc++;
            if (g->ops[p->b].state != OP_NEW) {   /* a wait for an event not yet recorded waits for nothing */
                rstream *w = &g->st[p->a];
                if (w->npend == w->cappend && grow(&w->pend, &w->cappend, w->npend + 1, sizeof *w->pend))
                    return -1;
                w->pend[w->npend++] = (int32_t)p->b;
            }
            continue;
        case ST_WAIT_STREAM:
            h->wait = W_OP;
            h->target = g->st[p->a].last;
            break;
        case ST_WAIT_OP:
            h->wait = W_OP;
            h->target = g->ops[p->a].state == OP_NEW ? -1 : p->a;
            break;
        case ST_WAIT_DEVICE:
            h->wait = W_DEVICE;
            h->dev = (unsigned)p->a;
            break;
        case ST_AFTER:
            h->wait = W_AFTER;
            h->target = p->a;
            break;
        }
        if (!wait_over(g, h))
            return 0;     /* woken when an operation ends or the other thread goes on */
        h->wait = W_NONE;
        h->pc++;
    }
    h->done = 1;
    h->end = s->now;
    return 0;
}

/* The earliest an operation with time on its engine may start after its
   stream's last such one (sc_rp_set_gaps); -1 where no gap holds it. */
static double gap_ready(const sc_rp *g, const rop *o)
{
    const rstream *st = &g->st[o->stream];
    if (st->last_copy < 0 || !(o->dur > 0))
        return -1;
    uint32_t gap = g->gaps[st->device][SC_RP_GAP(st->last_copy, o->engine != SC_RP_COMPUTE)];
    return gap ? st->last_end + gap : -1;
}

static int can_start(const sim *s, const rop *o)
{
    const sc_rp *g = s->g;
    if (g->st[o->stream].prev_running >= 0 || o->submit + g->latency > s->now + 1e-9 ||
        gap_ready(g, o) > s->now + 1e-9)
        return 0;
    /* a hardware queue dispatches in order: behind one that cannot start yet,
       another stream's operation waits too (a false dependency) */
    int32_t q = g->st[o->stream].queue;
    if (q >= 0 && o->qseq != g->qstarted[q])
        return 0;
    for (uint32_t i = 0; i < o->ndep; i++)
        if (!op_done(g, g->deps[o->dep_off + i]))
            return 0;
    return 1;
}

/* The rate of every running operation, in the order they started (the
   running array keeps it): per device, kernels take the device's room by
   demand, first come first served, as its block scheduler hands out the
   blocks of the kernel that came first before the next one's (a later
   kernel gets what is left, or waits for the room: two grids that each
   fill the device run one after the other, not each at half speed); a
   copy engine serves its copies one at a time, in the order they came.
   Copies each way run at the device's duplex fraction while the other way
   copies too. */
static int rates(sim *s)
{
    sc_rp *g = s->g;
    size_t nd = g->nlegacy;
    double *room = s->scratch, *count = room + nd;
    memset(room, 0, nd * (1 + SC_RP_NENGINES) * sizeof *room);
    for (size_t d = 0; d < nd; d++)
        room[d] = 1;
    for (size_t i = 0; i < s->nrun; i++) {
        const rop *o = &g->ops[s->running[i]];
        count[g->st[o->stream].device * SC_RP_NENGINES + o->engine] += 1;
    }
    for (size_t i = 0; i < s->nrun; i++) {
        rop *o = &g->ops[s->running[i]];
        unsigned d = g->st[o->stream].device;
        double *c = count + d * SC_RP_NENGINES;
        if (o->engine == SC_RP_COMPUTE) {
            o->rate = o->demand <= room[d] ? 1 : room[d] / o->demand;
            room[d] = o->demand <= room[d] ? room[d] - o->demand : 0;
            continue;
        }
        /* c[engine] counts down to 0: the first of this engine's copies
           runs, the others wait (a count of -1 marks the engine taken) */
        o->rate = c[o->engine] > 0 ? 1 : 0;
        c[o->engine] = -1;
        if (o->rate > 0 && (o->engine == SC_RP_COPY_H2D || o->engine == SC_RP_COPY_D2H) &&
            c[SC_RP_COPY_H2D] != 0 && c[SC_RP_COPY_D2H] != 0)
            o->rate *= g->duplex[d];
    }
    return 0;
}

/* Starts every operation that may start now; with hardware queues, in
   passes over the busy streams until one starts nothing (an operation may
   wait for another of its queue that a pass starts after it); how many
   did, or -1. */
static int start_ready(sim *s)
{
    sc_rp *g = s->g;
    int started = 0, before;
    do {
        before = started;
        for (size_t i = 0; i < s->nbusy;) {
            rstream *st = &g->st[s->busy_streams[i]];
            rop *o = &g->ops[st->head];
            if (!can_start(s, o)) {
                i++;
                continue;
            }
            if (grow(&s->running, &s->caprun, s->nrun + 1, sizeof *s->running))
                return -1;
            if (!s->nrun)
                s->busy_since = s->now;
            s->running[s->nrun++] = st->head;
            o->state = OP_RUNNING;
            o->start = s->now;
            if (st->queue >= 0)
                g->qstarted[st->queue]++;
            st->prev_running = st->head;
            st->head = o->next;
            if (st->head < 0) {
                st->tail = -1;
                s->busy_streams[i] = s->busy_streams[--s->nbusy];
            } else {
                i++;
            }
            started++;
        }
    } while (g->queued && started > before);
    if (started && rates(s))
        return -1;
    return started;
}

/* The time of the next event after now: a thread waking, an operation
   ending, or a queued one whose submission latency or stream's gap runs
   out. */
static double next_event(const sim *s)
{
    const sc_rp *g = s->g;
    double t = s->nheap ? s->heap[0].t : INFINITY;
    for (size_t i = 0; i < s->nrun; i++) {
        const rop *o = &g->ops[s->running[i]];
        if (!(o->rate > 0) && o->work > 0)
            continue;   /* waiting for its engine or the device's room */
        double e = o->rate > 0 ? s->now + o->work / o->rate : s->now;
        if (e < t)
            t = e;
    }
    for (size_t i = 0; i < s->nbusy; i++) {
        const rop *o = &g->ops[g->st[s->busy_streams[i]].head];
        double r = gap_ready(g, o);
        if (g->latency > 0 && o->submit + g->latency > r)
            r = o->submit + g->latency;
        if (r > s->now && r < t)
            t = r;
    }
    return t;
}

/* Moves the clock to t: running operations progress, those that finish
   end (and wake the threads waiting for them). */
static int advance(sim *s, double t)
{
    sc_rp *g = s->g;
    double dt = t - s->now;
    int ended = 0;
    for (size_t i = 0; i < s->nrun;) {
        rop *o = &g->ops[s->running[i]];
        double r = o->rate;
        if (!(r > 0) && o->work > 0) {
            i++;
            continue;
        }
        if (r > 0 && s->now + o->work / r > t + 1e-9 * (t > 1 ? t : 1)) {
            o->work -= dt * r;
            i++;
            continue;
        }
        o->work = 0;
        o->state = OP_DONE;
        o->end = t;
        g->st[o->stream].prev_running = -1;
        if (o->dur > 0) {
            g->st[o->stream].last_end = t;
            g->st[o->stream].last_copy = o->engine != SC_RP_COMPUTE;
        }
        /* the rest keep the order they started in (rates) */
        memmove(&s->running[i], &s->running[i + 1], (s->nrun - i - 1) * sizeof *s->running);
        s->nrun--;
        ended = 1;
    }
    s->now = t;
    if (!ended)
        return 0;
    if (!s->nrun)
        s->busy_sum += t - s->busy_since;
    if (rates(s))
        return -1;
    for (size_t i = 0; i < g->nth; i++) {
        hthread *h = &g->th[i];
        if ((h->wait == W_OP || h->wait == W_DEVICE) && wait_over(g, h)) {
            h->wait = W_NONE;
            h->pc++;
            if (heap_push(s, t, (int32_t)i))
                return -1;
        }
    }
    return 0;
}

/* Threads waiting for another thread's step, after a thread went on. */
static int wake_after(sim *s)
{
    sc_rp *g = s->g;
    for (size_t i = 0; i < g->nth; i++) {
        hthread *h = &g->th[i];
        if (h->wait == W_AFTER && wait_over(g, h)) {
            h->wait = W_NONE;
            h->pc++;
            if (heap_push(s, s->now, (int32_t)i))
                return -1;
        }
    }
    return 0;
}

static void finish(sc_rp *g, sim *s, sc_rp_result *out)
{
    double end = 0;
    int stalled = 0;
    for (size_t i = 0; i < g->nth; i++) {
        hthread *h = &g->th[i];
        if (!h->done) {
            stalled = 1;
            h->end = s->now;
        }
        if (h->end > end)
            end = h->end;
    }
    for (size_t i = 0; i < g->nops; i++)
        if (g->ops[i].end > end)
            end = g->ops[i].end;
    out->end_ns = ns_of(end);
    out->gpu_busy_ns = ns_of(s->busy_sum);
    out->stalled = stalled;
}

int sc_rp_run(sc_rp *g, sc_rp_result *out)
{
    if (g->ran)
        return -1;
    g->ran = 1;
    sim s = {.g = g};
    s.scratch = malloc((g->nlegacy ? g->nlegacy : 1) * (1 + SC_RP_NENGINES) * sizeof *s.scratch);
    int rc = s.scratch && !assign_queues(g) ? 0 : -1;
    for (size_t i = 0; i < g->nth && !rc; i++)
        rc = heap_push(&s, g->th[i].start, (int32_t)i);
    while (!rc) {
        /* Every thread due now runs until it waits or sleeps; what they
           submitted starts; threads waiting for a step of theirs go on. */
        while (!rc && s.nheap && s.heap[0].t <= s.now) {
            struct wake w = heap_pop(&s);
            rc = run_thread(&s, w.th) || wake_after(&s);
        }
        if (rc || start_ready(&s) < 0) {
            rc = -1;
            break;
        }
        double t = next_event(&s);
        if (isinf(t))
            break;
        if (t < s.now)
            t = s.now;
        rc = advance(&s, t);
    }
    finish(g, &s, out);
    free(s.running);
    free(s.heap);
    free(s.busy_streams);
    free(s.scratch);
    return rc ? -1 : 0;
}

uint64_t sc_rp_thread_end(const sc_rp *g, int thread)
{
    return ns_of(g->th[thread].end);
}

uint64_t sc_rp_op_start(const sc_rp *g, int o)
{
    return g->ops[o].start < 0 ? 0 : ns_of(g->ops[o].start);
}

uint64_t sc_rp_op_end(const sc_rp *g, int o)
{
    return g->ops[o].end < 0 ? 0 : ns_of(g->ops[o].end);
}

size_t sc_rp_nops(const sc_rp *g)
{
    return g->nops;
}
