/* pricing.c: the pricing model's replay of one scenario (pricing.h says
 * what the model is built from and what a fix changes): after
 * pricing_attribute.c has given the GPU's busy time to the actors'
 * submissions, stretch by stretch between their waits, the replay graph of
 * the run with nothing fixed, one finding fixed, or a set of them, and its
 * end (sc_pr_replay).  Which replays price which finding is
 * pricing_savings.c's (sc_pr_price); the steady loop, where a hazard of
 * every step shows it, and the findings of the "everything fixed" run are
 * pricing_loop.c's.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pricing.h"
#include "replay.h"
#include "sc.h"

/* Fast-path submissions between two recorded calls are spread over the
   host time between them in at most this many pieces (but for the part a
   wait after them found queued: backlog, below). */
#define PIECES 8
/* What queuing a copy costs the host once it need not wait (an async
   copy's submission). */
#define SUBMIT_NS 5000

/* ------------------------------------------------------------ build --- */
typedef struct scen {
    const sc_pr_model *m;

    uint64_t origin;
    long only;           /* the finding fixed; -1: none; -2: every in_all one */
    sc_rp *g;
    int *stream;         /* model stream -> replay stream */
    int *own;            /* per thread x device: its own stream, or -1 */
    int *copy;           /* per thread: the stream its fixed synchronous copies go to, or -1 */
    uint64_t *pipe;      /* per model stream: its pinned copies from this time on go to copy streams
                            (SC_PR_FIX_PIPELINE: from the first call of a fixed finding there; UINT64_MAX none) */
    int *up, *down;      /* per thread x device: the copy streams they go to, or -1 */
    sc_pr_events *ev;    /* the events' records so far (NULL: the model has none) */
    int *spread;         /* per device x SPREAD_MAX: a handle's streams (SC_PR_FIX_SPREAD), or -1 */
    unsigned *turn;      /* per device: the kernels spread so far */
    uint32_t nshadow;    /* waits the fixes took along (shadowed) */
    const sc_pr_work *w0; /* the first thread's first call's, for the index of a call */
    uint8_t *taken;      /* per call, or NULL: 1 where a finding's own fix took it along */
} scen;

/* only: the finding fixed; -1 none; -2 every in_all one; -3 every joint one */
static int fixed(const scen *s, uint16_t f)
{
    if (!f || f > s->m->nfindings || s->m->findings[f - 1].fix == SC_PR_FIX_NONE)
        return 0;
    if (s->only == -2)
        return s->m->findings[f - 1].in_all;
    if (s->only == -3)
        return s->m->findings[f - 1].joint;
    return s->only == (long)f - 1;
}

/* Which fixes apply to a call: a bit per sc_pr_fix. */
static unsigned fixes(const scen *s, const sc_pr_call *c)
{
    unsigned f = 0;
    for (int k = 0; k < 2; k++)
        if (fixed(s, c->finding[k]))
            f |= 1u << s->m->findings[c->finding[k] - 1].fix;
    return f;
}

/* SC_PR_FIX_SPREAD's stream for the next kernel a handle left on legacy
   stream st launched: the next of as many streams as the program created
   on its device (1 to SPREAD_MAX), in turn. */
#define SPREAD_MAX 8
static int spread_stream(scen *s, uint32_t st)
{
    const sc_pr_model *m = s->m;
    uint32_t d = st < m->nstreams ? m->streams[st].device : 0;
    unsigned k = 0;
    for (size_t i = 0; i < m->nstreams && k < SPREAD_MAX; i++)
        k += m->streams[i].device == d && (m->streams[i].kind == SC_PR_BLOCKING ||
                                           m->streams[i].kind == SC_PR_NONBLOCKING);
    if (d >= m->ndevices)
        d = 0;
    int *x = &s->spread[d * SPREAD_MAX + s->turn[d]++ % (k ? k : 1)];
    if (*x < 0)
        *x = sc_rp_stream(s->g, d, SC_RP_BLOCKING);
    return *x;
}

/* Thread t's own stream on legacy stream st's device, made on first use:
   blocking, so ordered with the legacy stream, as a per-thread one is. */
static int own_of(scen *s, size_t t, uint32_t st)
{
    int *o = &s->own[t * s->m->ndevices + s->m->streams[st].device];
    if (*o < 0)
        *o = sc_rp_stream(s->g, s->m->streams[st].device, SC_RP_BLOCKING);
    return *o;
}

/* The replay stream for model stream `st` used by thread t: its own when
   its legacy-stream work is moved. */
static int stream_for(scen *s, size_t t, uint32_t st)
{
    const sc_pr_model *m = s->m;
    if (st >= m->nstreams)
        st = 0;
    if (m->streams[st].kind != SC_PR_LEGACY || !fixed(s, m->threads[t].legacy_finding))
        return s->stream[st];
    return own_of(s, t, st);
}

/* The same for call c's work on `st` (its own stream, or the fast path's
   before it): the thread's own where c's fix is SC_PR_FIX_UNBARRIER. */
static int stream_of_call(scen *s, size_t t, const sc_pr_call *c, uint32_t st)
{
    if (st < s->m->nstreams && st == c->stream && s->m->streams[st].kind == SC_PR_LEGACY &&
        (fixes(s, c) & (1u << SC_PR_FIX_UNBARRIER)))
        return own_of(s, t, st);
    return stream_for(s, t, st);
}

/* A call's kernels' demand (its own, or of the fast path's before it: 0
   unknown): by their occupancy where the model takes it and it is known. */
static double demand_of(const sc_pr_model *m, const sc_pr_call *c, int fast)
{
    double occ = fast ? c->fast_occ_demand : c->occ_demand;
    return m->occupancy && occ > 0 ? occ : fast ? c->fast_demand : c->demand;
}

static double pinned_ns(const scen *s, const sc_pr_call *c)
{
    uint32_t d = sc_pr_device_of(s->m, c->stream);
    double r = d < s->m->ndevices && c->dir <= SC_PR_D2H ? s->m->devices[d].rate[c->dir] : 0;
    uint64_t copy = c->t1 - c->t0 - c->wait_ns;
    /* a synchronous copy of pinned memory already ran at its rate */
    return sc_pr_no_slower(c, r > 0 ? (double)c->bytes / r : (double)copy);
}

/* What a thread's build keeps: its last operation, the stream it went to,
   its last operation on each of the model's streams, its kernels' demand,
   the host time the fix spares it after a pinned copy (the source's
   release, which the replay takes from the host time that follows), and
   the orders its dropped waits leave to the GPU: the operation each waited
   for (dep, the newest DEPS), numbered (gen), and per model stream the
   number of the last one its work was ordered after (applied). */
#define DEPS 8
typedef struct tstate {
    int last_op, last_stream, last_d2h;
    int *last_on;
    unsigned char *d2h_on;   /* per model stream: its last operation is a copy to the host */
    unsigned *applied;
    double demand;
    uint64_t spared;
    uint64_t shadow_until;   /* a wait called by then goes too (shadowed): 0, or after a dropped wait */
    uint64_t shadow_of;      /* the longest wait of the dropped ones it follows, as recorded */
    int read_shadowed;       /* the read just before, dropped, was shadowed */
    struct { int op, stream; } dep[DEPS];
    unsigned gen;
} tstate;

/* A thread's copies under SC_PR_FIX_PIPELINE (piped_copy): per call, the
   replay operation of a copy and, of an upload, its stream's last
   operation when the next upload of that stream came; per model stream,
   its last upload. */
typedef struct copyst { int *op, *front; int32_t *last_up; } copyst;

/* The stream's later work waits for operation op (of replay stream st), as
   cudaStreamWaitEvent would order it. */
static void order_after(tstate *ts, int op, int st)
{
    ts->dep[ts->gen % DEPS].op = op;
    ts->dep[ts->gen % DEPS].stream = st;
    ts->gen++;
}

/* A host wait the fix drops, for operation op on replay stream `stream`:
   the thread's later work on other streams, which the wait ordered after
   op, is ordered after it on the GPU, as an event would order it (the
   seed's upload, compute and download streams: cudaEventRecord and
   cudaStreamWaitEvent instead of each cudaStreamSynchronize).  A wait
   whose result the host reads (loss.item()) orders nothing on one stream,
   and a wait for a copy to the host orders nothing on the GPU: no later
   GPU work reads what it wrote (the seed's download, then the next chunk's
   upload: with events the upload does not wait for it). */
static void dropped_wait(tstate *ts, int op, int stream, int d2h)
{
    if (op >= 0 && !d2h)
        order_after(ts, op, stream);
}

static int submit(scen *s, int t, tstate *ts, int stream, sc_rp_engine e, double ns, double demand,
                  uint32_t model_stream)
{
    if (model_stream < s->m->nstreams && ts->applied[model_stream] < ts->gen) {
        unsigned from = ts->gen - ts->applied[model_stream] > DEPS ? ts->gen - DEPS : ts->applied[model_stream];
        for (unsigned g = from; g < ts->gen; g++)
            if (ts->dep[g % DEPS].stream != stream && sc_rp_stream_wait_op(s->g, t, stream, ts->dep[g % DEPS].op) < 0)
                return -1;
        ts->applied[model_stream] = ts->gen;
    }
    int op = sc_rp_submit(s->g, t, stream, e, (uint64_t)(ns + 0.5), demand, 0);
    if (op >= 0) {
        ts->last_op = op;
        ts->last_stream = stream;
        ts->last_d2h = e == SC_RP_COPY_D2H;
        if (model_stream < s->m->nstreams) {
            ts->last_on[model_stream] = op;
            ts->d2h_on[model_stream] = e == SC_RP_COPY_D2H;
        }
    }
    return op;
}

/* A wait for the legacy stream waits for the thread's own stream too where
   SC_PR_FIX_UNBARRIER moved work there. */
static int wait_own(scen *s, int t, const sc_pr_call *c, int st)
{
    if (c->stream >= s->m->nstreams || s->m->streams[c->stream].kind != SC_PR_LEGACY)
        return 0;
    int o = s->own[(size_t)t * s->m->ndevices + s->m->streams[c->stream].device];
    return o >= 0 && o != st ? sc_rp_wait_stream(s->g, t, o) : 0;
}

/* A copy of the model's pageable or synchronous copy, as its fixes make it. */
static int copy_call(scen *s, int t, tstate *ts, const sc_pr_call *c, int st, unsigned fx)
{
    uint64_t own = c->t1 - c->t0 - c->wait_ns;
    sc_rp_engine e = c->dir == SC_PR_D2H ? SC_RP_COPY_D2H : c->dir == SC_PR_H2D ? SC_RP_COPY_H2D : SC_RP_COPY_OTHER;
    int nowait = fx & (1u << SC_PR_FIX_NO_WAIT), pin = fx & (1u << SC_PR_FIX_PIN);
    if (!nowait && !pin) {   /* a copy on the legacy stream waits for what SC_PR_FIX_UNBARRIER moved */
        int rc = sc_rp_wait_stream(s->g, t, st) < 0 || wait_own(s, t, c, st) < 0;
        return rc | (sc_rp_cpu(s->g, t, own) < 0);
    }
    uint64_t host = own < SUBMIT_NS ? own : SUBMIT_NS;
    if (pin && c->what == SC_PR_COPY_PAGEABLE)
        ts->spared += c->release_ns;
    if (nowait && !pin)            /* the read is not made at all */
        return sc_rp_cpu(s->g, t, host) < 0;
    if (c->what == SC_PR_COPY_SYNC) {
        /* cudaMemcpyAsync on a non-blocking stream of its own, after the
           thread's own work on the stream the copy was ordered with (what
           made the data): not after every blocking stream's work, as the
           legacy stream's synchronous copy waited */
        int *cs = &s->copy[t], dep = c->stream < s->m->nstreams ? ts->last_on[c->stream] : -1;
        if (*cs < 0 && (*cs = sc_rp_stream(s->g, sc_pr_device_of(s->m, c->stream), SC_RP_NONBLOCKING)) < 0)
            return -1;
        if (dep >= 0 && sc_rp_stream_wait_op(s->g, t, *cs, dep) < 0)
            return -1;
        st = *cs;
    }
    int op = submit(s, t, ts, st, e, pinned_ns(s, c), 1, SC_PR_NONE);
    if (op < 0)
        return -1;
    /* A synchronous copy's result is used when the call returns: the fix
       (cudaMemcpyAsync, then a sync) still waits for it.  An async call's
       is used where the program waits next (PyTorch's .cpu() syncs the
       stream right after it), which the replay has: a pinned async copy to
       the host returns at once (DRV, 2. API synchronization behavior:
       "for transfers between device memory and pinned host memory, the
       function is fully asynchronous") */
    if (c->dir == SC_PR_D2H && !nowait && c->what == SC_PR_COPY_SYNC && sc_rp_wait_op(s->g, t, op) < 0)
        return -1;
    return sc_rp_cpu(s->g, t, host) < 0;
}

/* A copy SC_PR_FIX_PIPELINE can move (a known rate, 64 KiB or more), and
   one it moves (from the finding's first call on: scen.pipe). */
static int pipeable(const scen *s, const sc_pr_call *c)
{
    return c->bytes >= SC_PR_PIPE_MIN && sc_pr_copy_ns(s->m, c) > 0 && c->stream < s->m->nstreams;
}

static int piped(const scen *s, const sc_pr_call *c)
{
    return pipeable(s, c) && c->t0 >= s->pipe[c->stream];
}

/* An upload's place in its stream's order (copyst.front, last_up), kept for
   the copies left in place too, as is their operation (copyst.op): a piped
   upload whose buffer a copy before the finding used (a warm-up pass) waits
   for that copy, or for the kernels that used the buffer then, not for all
   the stream's work since. */
static void note_upload(const tstate *ts, copyst *cs, const sc_pr_call *c, size_t i)
{
    int32_t lu = cs->last_up[c->stream];
    if (lu >= 0 && cs->front[lu] < 0)
        cs->front[lu] = ts->last_on[c->stream];
    cs->last_up[c->stream] = (int32_t)i;
}

/* Thread t's copy streams for c's device: their index in scen.up, .down. */
static size_t copy_slot(const scen *s, int t, const sc_pr_call *c)
{
    uint32_t dev = sc_pr_device_of(s->m, c->stream);
    return (size_t)t * s->m->ndevices + (dev < s->m->ndevices ? dev : 0);
}

/* A pinned async copy of a stream whose copies go to copy streams
   (SC_PR_FIX_PIPELINE, sc_pr_plan_copies), as cudaEventRecord and
   cudaStreamWaitEvent would order them.  An upload goes to the thread's
   upload stream, after what last used its buffer, and the stream's later
   work waits for it; a download goes to its download stream, after the
   stream's work so far (what made its data).  Then the downloads whose
   buffers the stream's later work may overwrite hold that work back.
   wk: the thread's work array, i the call's index in it; cs: its copy
   state (op, the replay operation of each copy; front, for each upload,
   the stream's last operation when the next upload came). */
static int piped_copy(scen *s, int t, tstate *ts, const sc_pr_call *c, const sc_pr_work *wk, size_t i, copyst *cs)
{
    uint32_t dev = sc_pr_device_of(s->m, c->stream);
    size_t k = copy_slot(s, t, c);
    int d2h = c->dir == SC_PR_D2H, *x = d2h ? &s->down[k] : &s->up[k];
    if (*x < 0 && (*x = sc_rp_stream(s->g, dev, SC_RP_NONBLOCKING)) < 0)
        return -1;
    int last = ts->last_on[c->stream], dep = last;
    if (!d2h) {
        note_upload(ts, cs, c, i);
        int32_t p = wk[i].ru.prev;
        if (p == -1)
            dep = -1;
        else if (p >= 0)   /* what last used its buffer (note_upload); where unknown, the stream so far */
            dep = s->m->threads[t].calls[p].dir == SC_PR_D2H && cs->op[p] >= 0 ? cs->op[p]
                : s->m->threads[t].calls[p].dir != SC_PR_D2H && cs->front[p] >= 0 ? cs->front[p] : last;
    }
    if (dep >= 0 && sc_rp_stream_wait_op(s->g, t, *x, dep) < 0)
        return -1;
    int op = sc_rp_submit(s->g, t, *x, d2h ? SC_RP_COPY_D2H : SC_RP_COPY_H2D, (uint64_t)(wk[i].self + 0.5), 1, 0);
    if (op < 0)
        return -1;
    cs->op[i] = op;
    ts->last_op = op;
    ts->last_stream = *x;
    ts->last_d2h = d2h;
    if (!d2h)
        order_after(ts, op, *x);
    for (int32_t d = wk[i].ru.war_head; d >= 0; d = wk[d].ru.war_link)
        if (cs->op[d] >= 0 && piped(s, &s->m->threads[t].calls[d]))   /* one left in place is in stream order */
            order_after(ts, cs->op[d], s->down[k]);
    return 0;
}

/* A wait for a stream whose copies went to copy streams waits for them too
   (the fixed program waits for its copies where it waited for the stream). */
static int wait_piped(scen *s, int t, const sc_pr_call *c)
{
    if (c->stream >= s->m->nstreams || s->pipe[c->stream] == UINT64_MAX)
        return 0;
    size_t k = copy_slot(s, t, c);
    return (s->up[k] >= 0 && sc_rp_wait_stream(s->g, t, s->up[k]) < 0) ||
           (s->down[k] >= 0 && sc_rp_wait_stream(s->g, t, s->down[k]) < 0) ? -1 : 0;
}

static int wait_call(scen *s, int t, tstate *ts, const sc_pr_call *c, int st, unsigned fx)
{
    int rc = 0;
    if (fx & (1u << SC_PR_FIX_NO_WAIT)) {
        if (c->what == SC_PR_WAIT_STREAM && c->stream < s->m->nstreams)
            dropped_wait(ts, ts->last_on[c->stream], st, ts->d2h_on[c->stream]);
        else if (c->what == SC_PR_WAIT_EVENT)
            dropped_wait(ts, ts->last_op, ts->last_stream, ts->last_d2h);
        else if (c->what == SC_PR_WAIT_DEVICE)   /* what it waited for on each of the thread's streams */
            for (uint32_t j = 0; j < s->m->nstreams; j++)
                if (ts->last_on[j] >= 0 && sc_pr_device_of(s->m, j) == sc_pr_device_of(s->m, c->stream))
                    dropped_wait(ts, ts->last_on[j], stream_for(s, (size_t)t, j), ts->d2h_on[j]);
    } else {
        if (c->what == SC_PR_WAIT_STREAM)
            rc = sc_rp_wait_stream(s->g, t, st) < 0 || wait_piped(s, t, c) < 0 || wait_own(s, t, c, st) < 0
                     ? -1 : 0;
        else if (c->what == SC_PR_WAIT_EVENT && ts->last_op >= 0)
            rc = sc_rp_wait_op(s->g, t, ts->last_op);
        else if (c->what == SC_PR_WAIT_DEVICE && (fx & (1u << SC_PR_FIX_STREAM)))
            rc = ts->last_stream >= 0 ? sc_rp_wait_stream(s->g, t, ts->last_stream) : 0;
        else if (c->what == SC_PR_WAIT_DEVICE)
            rc = sc_rp_wait_device(s->g, t, sc_pr_device_of(s->m, c->stream));
    }
    return rc < 0 || sc_rp_cpu(s->g, t, c->t1 - c->t0 - c->wait_ns) < 0;
}

/* Of the GPU work the fast path let through before a wait, the part still
   queued when the wait began: the wait says how much was left (what it
   waited for), so that much of the work goes in at the end of the host
   time before it, the rest spread over it.  Spread evenly, work the
   program queued late (a backward pass's kernels just before loss.item())
   would be done by the wait, and the replay would miss the wait's time. */
static double backlog(const sc_pr_model *m, const sc_pr_call *c, double fast)
{
    if (!sc_pr_waits(c) || !c->wait_ns || (c->what != SC_PR_WAIT_DEVICE && c->stream != c->sub_stream) ||
        sc_pr_device_of(m, c->stream) != sc_pr_device_of(m, c->sub_stream))
        return 0;   /* it waited for other work than theirs */
    return (double)c->wait_ns < fast ? (double)c->wait_ns : fast;
}

/* The first touch of the pages that the thread's pinned copies write
   (touch_ns): the pinned buffers of the fix are allocated, pages touched
   and locked, before the thread's work, so the fix saves none of it.
   Where the program mapped a destination anew (touch_again), one buffer
   kept serves: those touches are in the copy's own time, saved. */
static int first_touch(scen *s, const sc_pr_thread *th, int rt)
{
    uint64_t ns = 0;
    for (size_t i = 0; i < th->n; i++) {
        const sc_pr_call *c = &th->calls[i];
        unsigned fx = c->touch_ns && c->what == SC_PR_COPY_PAGEABLE ? fixes(s, c) : 0;
        if ((fx & (1u << SC_PR_FIX_PIN)) && !(fx & (1u << SC_PR_FIX_DROP)))
            ns += c->touch_ns;
    }
    return ns && sc_rp_cpu(s->g, rt, ns) < 0 ? -1 : 0;
}

/* A recorded submission, w[i] its work: an async copy to or from pinned
   memory runs on its copy engine, beside kernels and the other direction's
   copies (or goes to a copy stream: piped_copy); a kernel on the device. */
static int submit_call(scen *s, int rt, tstate *ts, const sc_pr_work *w, size_t i, int st, copyst *cs)
{
    const sc_pr_call *c = &s->m->threads[rt].calls[i];
    int rc = 0;
    if (w[i].self > 0 && piped(s, c))
        rc = piped_copy(s, rt, ts, c, w, i, cs) < 0;
    else if (w[i].self > 0 && (c->dir == SC_PR_H2D || c->dir == SC_PR_D2H)) {
        /* a piece's copy left in place (before the finding): a 4 KiB
           parameter's upload between a piece's upload and its kernels is
           no next piece's */
        int kept = pipeable(s, c) && sc_pr_is_copy(c);
        if (kept && c->dir == SC_PR_H2D)
            note_upload(ts, cs, c, i);
        int op = submit(s, rt, ts, st, c->dir == SC_PR_D2H ? SC_RP_COPY_D2H : SC_RP_COPY_H2D, w[i].self, 1, c->stream);
        rc = op < 0;
        if (kept)
            cs->op[i] = op;
    } else if (w[i].self > 0) {
        double dm = demand_of(s->m, c, 0);
        rc = submit(s, rt, ts, st, SC_RP_COMPUTE, w[i].self, dm > 0 ? dm : ts->demand, c->stream) < 0;
    } else
        ts->last_stream = st;
    return rc | (sc_rp_cpu(s->g, rt, c->t1 - c->t0) < 0);
}

/* A wait the program makes right after one the fix drops (within
   SHADOW_GAP_NS of host time, no wait kept between), which found its work
   done or nearly (under SHADOW_WAIT_NS, or a tenth of the dropped wait's:
   a tiny kernel's own time): the step's second .item() (a loop reads its
   loss, then its accuracy).  It found the GPU idle only
   because the wait before drained it; with that one gone it would wait in
   its place, and the fix, which keeps the step's results on the GPU until
   they are used, makes neither.  A read of more than SC_PR_READ_MAX
   (pricing.h) is data the host works on, not a metric: it
   stays, as does every wait after a wait kept, and a call another fix
   prices (cudaFree's wait for the device, an allocation site's: dropping
   the sync before it leaves that wait). */
#define SHADOW_GAP_NS 1000000
#define SHADOW_WAIT_NS 50000
static int shadowed(const scen *s, const tstate *ts, const sc_pr_call *c)
{
    if (!sc_pr_waits(c) || c->t0 > ts->shadow_until ||
        (c->wait_ns >= SHADOW_WAIT_NS && c->wait_ns * 10 >= ts->shadow_of))
        return 0;
    for (int k = 0; k < 2; k++)
        if (c->finding[k] && c->finding[k] <= s->m->nfindings &&
            s->m->findings[c->finding[k] - 1].fix != SC_PR_FIX_NO_WAIT)
            return 0;
    return !sc_pr_copies(c) || (c->dir == SC_PR_D2H && c->bytes <= SC_PR_READ_MAX);
}

/* An event recorded on the legacy stream marks a point after every blocking
   stream's work so far, and programs record one there to join their streams
   and then wait for it (NVIDIA's simpleStreams: "record in stream-0, to
   ensure that all previous CUDA calls have completed").  A fix that takes
   the barrier away (SC101's SC_PR_FIX_UNBARRIER, SC102's
   SC_PR_FIX_NONBLOCK) keeps that join, as the fixed program would write it:
   the event after the work the thread itself submitted to its blocking
   streams (an event recorded on each, waited for).  Without a fix the
   legacy stream's order already holds it.  0, or -1 (out of memory). */
static int keep_join(scen *s, int t, const tstate *ts, const sc_pr_call *c, int st)
{
    const sc_pr_model *m = s->m;
    if (c->stream >= m->nstreams || m->streams[c->stream].kind != SC_PR_LEGACY)
        return 0;
    for (uint32_t k = 0; k < m->nstreams; k++)
        if (k != c->stream && ts->last_on[k] >= 0 && m->streams[k].device == m->streams[c->stream].device &&
            (m->streams[k].kind == SC_PR_BLOCKING || m->streams[k].kind == SC_PR_PTDS) &&
            sc_rp_stream_wait_op(s->g, t, st, ts->last_on[k]) < 0)
            return -1;
    return 0;
}

/* Call i of thread t, as the scenario's fixes make it (after the host time
   and the fast path's work before it).  read_gone: the stream + 1 of a read
   to the host the fix dropped just before, else 0. */
static int call_step(scen *s, size_t t, tstate *ts, const sc_pr_work *w, size_t i, copyst *cs, uint64_t *read_gone)
{
    const sc_pr_call *c = &s->m->threads[t].calls[i];
    int rt = (int)t, rc = 0;
    int st = stream_of_call(s, t, c, c->stream);
    unsigned fx = fixes(s, c);
    if ((fx & (1u << SC_PR_FIX_SPREAD)) && c->what == SC_PR_SUBMIT && c->stream < s->m->nstreams &&
        s->m->streams[c->stream].kind == SC_PR_LEGACY && (st = spread_stream(s, c->stream)) < 0)
        return -1;
    /* PyTorch's .item() is an "async" copy into pageable memory, which
       returns once done, then a cudaStreamSynchronize that finds it done:
       the read the fix does not make takes that wait along.  A wait for its
       stream or the device with nothing submitted since, as settle.c tells
       such a read (SC_HELD_READ) */
    int shadow = 0;
    if (*read_gone && !c->nsub &&
        ((c->what == SC_PR_WAIT_STREAM && *read_gone == c->stream + 1) || c->what == SC_PR_WAIT_DEVICE)) {
        fx |= 1u << SC_PR_FIX_NO_WAIT;
        shadow = ts->read_shadowed;
    }
    if (!(fx & (1u << SC_PR_FIX_NO_WAIT)) && shadowed(s, ts, c)) {
        fx |= 1u << SC_PR_FIX_NO_WAIT;
        s->nshadow++;
        shadow = 1;
    }
    if (shadow && s->taken)
        s->taken[&w[i] - s->w0] = 1;
    ts->read_shadowed = shadow;
    int gone = (fx & (1u << SC_PR_FIX_NO_WAIT)) && !(fx & (1u << SC_PR_FIX_PIN));
    if (sc_pr_waits(c) && gone)
        ts->shadow_of = c->t0 <= ts->shadow_until && ts->shadow_of > c->wait_ns ? ts->shadow_of : c->wait_ns;
    if (sc_pr_waits(c))
        ts->shadow_until = gone ? c->t1 + SHADOW_GAP_NS : 0;
    *read_gone = gone && c->dir == SC_PR_D2H &&
                 (c->what == SC_PR_COPY_PAGEABLE || c->what == SC_PR_COPY_SYNC) ? c->stream + 1 : 0;
    if (fx & (1u << SC_PR_FIX_DROP))
        return 0;
    switch ((sc_pr_what)c->what) {
    case SC_PR_SUBMIT:
        rc = submit_call(s, rt, ts, w, i, st, cs);
        break;
    case SC_PR_OTHER:
        rc = sc_rp_cpu(s->g, rt, c->t1 - c->t0) < 0;
        break;
    case SC_PR_WAIT_STREAM: case SC_PR_WAIT_DEVICE: case SC_PR_WAIT_EVENT:
        rc = wait_call(s, rt, ts, c, st, fx);
        break;
    case SC_PR_COPY_PAGEABLE: case SC_PR_COPY_SYNC:
        rc = copy_call(s, rt, ts, c, st, fx);
        break;
    case SC_PR_EVENT_RECORD: {   /* a mark on the stream, after its work so far */
        /* It is done when the stream's last operation is: a wait for it is a
           wait for that one, a copy to the host included (dropped_wait). */
        int d2h = c->stream < s->m->nstreams && ts->d2h_on[c->stream];
        int op = keep_join(s, rt, ts, c, st) < 0 ? -1 : submit(s, rt, ts, st, SC_RP_COMPUTE, 0, 0, c->stream);
        ts->last_d2h = d2h;
        if (c->stream < s->m->nstreams)
            ts->d2h_on[c->stream] = (unsigned char)d2h;
        rc = op < 0 || sc_pr_events_put(s->ev, c->bytes, c->t0, op) < 0 || sc_rp_cpu(s->g, rt, c->t1 - c->t0) < 0;
        break;
    }
    case SC_PR_EVENT_WAIT: {
        int op = sc_pr_events_get(s->ev, c->bytes, c->t0);
        rc = (op >= 0 && sc_rp_stream_wait_op(s->g, rt, st, op) < 0) || sc_rp_cpu(s->g, rt, c->t1 - c->t0) < 0;
        break;
    }
    case SC_PR_JOIN:   /* the wait inside is for the other thread's end */
        if (c->stream < s->m->nthreads && c->stream != t && s->m->threads[c->stream].n)
            rc = sc_rp_after(s->g, rt, (int)c->stream, INT32_MAX) < 0;
        else
            rc = sc_rp_cpu(s->g, rt, c->t1 - c->t0) < 0;
        break;
    }
    return rc;
}

/* The share of thread th's time, from its first receipt to its last, that
   leaves the GIL to another thread: off its CPU (waiting for backward's
   GPU work, for its workers) or waiting in a call (a sync releases it);
   the recorder's and CUPTI's time left out of both.  The pinning thread
   that pin_memory=True adds receives the batches in Python, so its CPU work
   there saves the thread's only as far as it finds the GIL free.  A proxy:
   PyTorch releases the GIL around its ops too, but a thread on its CPU
   takes it back between them.  Judged on two H200s (the DDP pair and
   train_resnet, 0.34-0.48 free): the receipts' CPU time in full priced the
   DDP pair at 1.30-1.51 of its gain, their time off the CPU alone at
   0.60-0.86, this share at 0.93-1.14.  1 where the thread's CPU clock was
   not read (C: no GIL) or it received fewer than two batches. */
static double gil_free(const sc_pr_thread *th)
{
    size_t a = th->n, b = 0;
    for (size_t i = 0; i < th->n; i++)
        if (th->calls[i].receive_ns && th->calls[i].cpu_ns) {
            a = a < i ? a : i;
            b = i;
        }
    if (a >= b)
        return 1;
    const sc_pr_call *x = &th->calls[a], *y = &th->calls[b];
    uint64_t waits = 0, ours = 0;
    for (size_t i = a + 1; i <= b; i++)
        waits += th->calls[i].wait_ns, ours += th->calls[i].own_ns + th->calls[i].tool_ns;
    if (y->t1 <= x->t1 + ours || y->cpu_ns < x->cpu_ns)
        return 1;
    double wall = (double)(y->t1 - x->t1 - ours), held = (double)(y->cpu_ns - x->cpu_ns) - (double)(waits + ours);
    return held <= 0 ? 1 : held >= wall ? 0 : 1 - held / wall;
}

/* The time pinning takes off a call's receipt: its time off the CPU, and,
   where the model says so, the share free of the GIL of its CPU time. */
static uint64_t receipt_of(const scen *s, const sc_pr_call *c, double free_share)
{
    return c->receive_ns + (s->m->receipt_cpu ? (uint64_t)(free_share * (double)c->receive_cpu_ns) : 0);
}

/* The host time the fixes take out of the gap before each of thread th's
   calls for receiving batches: a pageable upload pinned (SC_PR_FIX_PIN)
   leaves its batch's receipt (receive_ns, after the call it began after,
   less that call's recorder's time) to the DataLoader's pinning thread
   (hand_over), which the thread then waits for there.  The pinning thread
   also copies the batch into pinned memory, the staging the pageable copy
   did (its time after its wait), and releases its shared memory (the
   copy's release_ns, which the fix takes off the thread): the second
   th->n of the array, what it spends on each batch.  An array of 2 * th->n (and room for the
   receipts, sorted), or NULL. */
static uint64_t *receipts(const scen *s, const sc_pr_thread *th)
{
    uint64_t *cut = calloc(3 * th->n + 1, sizeof *cut), *svc = cut + th->n, *v = svc + th->n, cap;
    size_t nv = 0;
    if (!cut)
        return NULL;
    double free_share = gil_free(th);
    for (size_t i = 0; i < th->n; i++)
        if (th->calls[i].receive_ns)
            v[nv++] = receipt_of(s, &th->calls[i], free_share);
    if (!nv)
        return cut;
    /* a receipt far above the thread's usual one waited for the workers
       themselves (a new epoch's first batch: they start), as a pinning
       thread's would: counted at twice the median */
    qsort(v, nv, sizeof *v, sc_cmp_u64);
    cap = 2 * v[nv / 2];
    for (size_t i = 0; i < th->n; i++) {
        const sc_pr_call *c = &th->calls[i];
        if (!c->receive_ns || c->what != SC_PR_COPY_PAGEABLE || !(fixes(s, c) & (1u << SC_PR_FIX_PIN)))
            continue;
        size_t k = i;
        while (k > 0 && th->calls[k - 1].t0 >= c->receive_t0)
            k--;
        uint64_t pre = k ? th->calls[k - 1].own_ns : 0, ns = receipt_of(s, c, free_share);
        ns = ns < cap ? ns : cap;
        /* the pinning thread spends the receipt's CPU time in full */
        uint64_t rest = receipt_of(s, c, 1) - receipt_of(s, c, free_share);
        uint64_t staged = c->t1 - c->t0 > c->wait_ns ? c->t1 - c->t0 - c->wait_ns : 0;
        cut[k] += ns > pre ? ns - pre : 0;
        svc[k] += (ns > pre ? ns - pre : 0) + rest + staged + c->release_ns;
    }
    return cut;
}

/* The pinning thread the fix gives thread rt's receipts (receipts(),
   SC_PR_FIX_PIN): it receives and pins batch j (ns) once rt took
   batch j - RECV_DEPTH (the batches in flight: two buffers), and rt takes
   batch j once it is received, where it received it itself.  Made at the
   first receipt, from rt's start on.  So pinning saves the receipts only as
   far as rt's other work hides them: a loop whose steps wait for their
   batches' receipt is as slow as the receipts. */
#define RECV_DEPTH 2
typedef struct recvst { int thread, n, took[RECV_DEPTH]; } recvst;

static int hand_over(scen *s, int rt, recvst *r, uint64_t ns, uint64_t start)
{
    if (r->thread < 0 && (r->thread = sc_rp_thread(s->g, start)) < 0)
        return -1;
    int slot = r->n % RECV_DEPTH;
    if (r->n >= RECV_DEPTH && sc_rp_after(s->g, r->thread, rt, r->took[slot]) < 0)
        return -1;
    int got = sc_rp_cpu(s->g, r->thread, ns);
    if (got < 0 || (r->took[slot] = sc_rp_after(s->g, rt, r->thread, got)) < 0)
        return -1;
    r->n++;
    return 0;
}

/* Thread t's steps; its replay thread is t (made beforehand, so that a
   join can name a thread built later). */
static int build_thread(scen *s, size_t t, const sc_pr_work *w)
{
    const sc_pr_thread *th = &s->m->threads[t];
    if (!th->n)
        return 0;
    int rt = (int)t;
    tstate ts = {.last_op = -1, .last_stream = -1, .demand = 0,
                 .last_on = malloc((s->m->nstreams + 1) * sizeof *ts.last_on),
                 .applied = calloc(s->m->nstreams + 1, sizeof *ts.applied),
                 .d2h_on = calloc(s->m->nstreams + 1, sizeof *ts.d2h_on)};
    copyst cs = {.op = malloc(th->n * sizeof *cs.op), .front = malloc(th->n * sizeof *cs.front),
                 .last_up = malloc((s->m->nstreams + 1) * sizeof *cs.last_up)};
    uint64_t *cut = receipts(s, th);
    if (!ts.last_on || !ts.applied || !ts.d2h_on || !cs.op || !cs.front || !cs.last_up || !cut) {
        free(cut);
        free(ts.last_on);
        free(ts.applied);
        free(ts.d2h_on);
        free(cs.op);
        free(cs.front);
        free(cs.last_up);
        return -1;
    }
    for (size_t i = 0; i < s->m->nstreams; i++)
        ts.last_on[i] = cs.last_up[i] = -1;
    for (size_t i = 0; i < th->n; i++)
        cs.op[i] = cs.front[i] = -1;
    double dsum = 0, dn = 0;
    for (size_t i = 0; i < th->n; i++) {
        double own = demand_of(s->m, &th->calls[i], 0), fast = demand_of(s->m, &th->calls[i], 1);
        if (own > 0) {
            dsum += own;
            dn++;
        }
        if (fast > 0) {
            dsum += fast;
            dn++;
        }
    }
    ts.demand = dn ? dsum / dn : 1;
    uint64_t prev = th->calls[0].t0;
    uint64_t read_gone = 0;   /* the stream + 1 of a read to the host the fix dropped, just before */
    recvst recv = {.thread = -1};
    int rc = first_touch(s, th, rt);
    for (size_t i = 0; i < th->n && !rc; i++) {
        const sc_pr_call *c = &th->calls[i];
        uint64_t gap = c->t0 > prev ? c->t0 - prev : 0;
        /* the recorder's own time (after the call before, before this
           one) is not the program's: the fixed program would not have it;
           nor is CUPTI's, in measured mode (tool_ns) */
        uint64_t own = (i ? th->calls[i - 1].own_ns : 0) + c->tool_ns;
        gap = gap > own ? gap - own : 0;
        uint64_t spare = gap < ts.spared ? gap : ts.spared;
        gap -= spare;
        ts.spared -= spare;
        uint64_t moved = gap < cut[i] ? gap : cut[i];
        gap -= moved;
        if (moved)
            rc = hand_over(s, rt, &recv, cut[th->n + i] - (cut[i] - moved), th->calls[0].t0 - s->origin);
        if (rc)
            break;
        if (c->nsub && w[i].fast > 0) {
            unsigned k = c->nsub < PIECES ? c->nsub : PIECES;
            int st = stream_of_call(s, t, c, c->sub_stream);
            double dm = demand_of(s->m, c, 1) > 0 ? demand_of(s->m, c, 1) : ts.demand;
            double late = backlog(s->m, c, w[i].fast), early = w[i].fast - late;
            for (unsigned j = 0; j < k && !rc; j++)
                rc = (early > 0 && submit(s, rt, &ts, st, SC_RP_COMPUTE, early / k, dm, c->sub_stream) < 0) ||
                     sc_rp_cpu(s->g, rt, gap / k + (j == k - 1 ? gap % k : 0)) < 0;
            if (!rc && late > 0)
                rc = submit(s, rt, &ts, st, SC_RP_COMPUTE, late, dm, c->sub_stream) < 0;
        } else {
            rc = sc_rp_cpu(s->g, rt, gap) < 0;
        }
        rc |= call_step(s, t, &ts, w, i, &cs, &read_gone);
        prev = c->t1;
    }
    free(cut);
    free(ts.last_on);
    free(ts.applied);
    free(ts.d2h_on);
    free(cs.op);
    free(cs.front);
    free(cs.last_up);
    return rc ? -1 : 0;
}

/* What a copy each way runs at while one runs the other way (replay.h,
   sc_rp_set_duplex): the rate both ways at once over the sum of the rates
   each way alone, 1 where the copies do not slow each other or a rate is
   unknown.  Both ways at once move at least what the faster way moves
   alone: a lower rate is a timing gone wrong (the host busy), and counts
   as that. */
static double duplex_fraction(const sc_pr_device *d)
{
    double up = d->rate[SC_PR_H2D], down = d->rate[SC_PR_D2H], both = d->duplex;
    if (!(both > 0) || !(up > 0) || !(down > 0) || both >= up + down)
        return 1;
    if (both < (up > down ? up : down))
        both = up > down ? up : down;
    return both / (up + down);
}

/* The device's hardware queues in the scenario: 32 (the most) where SC701's
   fix is applied, else the program's (0: not modelled). */
#define QUEUES_MAX 32
static unsigned queues_of(const scen *s, const sc_pr_device *d)
{
    for (size_t f = 0; d->connections && f < s->m->nfindings; f++)
        if (s->m->findings[f].fix == SC_PR_FIX_QUEUES && fixed(s, (uint16_t)(f + 1)))
            return QUEUES_MAX;
    return d->connections;
}

static const sc_rp_stream_kind kinds[] = {
    [SC_PR_LEGACY] = SC_RP_LEGACY, [SC_PR_BLOCKING] = SC_RP_BLOCKING,
    [SC_PR_NONBLOCKING] = SC_RP_NONBLOCKING, [SC_PR_PTDS] = SC_RP_BLOCKING,
};

int64_t sc_pr_replay(const sc_pr_model *m, const sc_pr_work *w, const size_t *base, uint64_t origin, long only,
                     int *stalled, uint32_t *nshadow, uint8_t *taken)
{
    scen s = {.m = m, .origin = origin, .only = only, .g = sc_rp_new(), .w0 = w, .taken = taken};
    if (s.g)
        sc_rp_set_latency(s.g, m->latency_ns);
    s.stream = malloc((m->nstreams + 1) * sizeof *s.stream);
    s.own = malloc((m->nthreads * m->ndevices + 1) * sizeof *s.own);
    s.copy = malloc((m->nthreads + 1) * sizeof *s.copy);
    s.pipe = malloc((m->nstreams + 1) * sizeof *s.pipe);
    s.up = malloc((m->nthreads * m->ndevices + 1) * sizeof *s.up);
    s.down = malloc((m->nthreads * m->ndevices + 1) * sizeof *s.down);
    int oom = 0;
    s.ev = sc_pr_events_new(m, &oom);
    s.spread = malloc((m->ndevices * SPREAD_MAX + 1) * sizeof *s.spread);
    s.turn = calloc(m->ndevices + 1, sizeof *s.turn);
    int rc = !s.g || !s.stream || !s.own || !s.copy || !s.pipe || !s.up || !s.down || oom || !s.spread || !s.turn;
    for (size_t i = 0; !rc && i < m->ndevices * SPREAD_MAX; i++)
        s.spread[i] = -1;
    for (size_t i = 0; !rc && i < m->nthreads * m->ndevices; i++)
        s.up[i] = s.down[i] = -1;
    for (size_t i = 0; !rc && i <= m->nstreams; i++)
        s.pipe[i] = UINT64_MAX;
    /* the streams whose copies a fixed SC_PR_FIX_PIPELINE finding moves,
       from its first call there on (a finding of a --range's range moves
       the copies of its range, not the warm-up's before it) */
    for (size_t t = 0; !rc && t < m->nthreads; t++)
        for (size_t i = 0; i < m->threads[t].n; i++) {
            const sc_pr_call *c = &m->threads[t].calls[i];
            for (int k = 0; k < 2; k++)
                if (c->stream < m->nstreams && fixed(&s, c->finding[k]) &&
                    m->findings[c->finding[k] - 1].fix == SC_PR_FIX_PIPELINE && c->t0 < s.pipe[c->stream])
                    s.pipe[c->stream] = c->t0;
        }
    for (size_t i = 0; !rc && i < m->nthreads; i++)
        s.copy[i] = -1;
    for (size_t i = 0; !rc && i < m->nstreams; i++) {
        uint8_t k = m->streams[i].kind;
        if (k == SC_PR_BLOCKING && fixed(&s, m->streams[i].finding) &&
            m->findings[m->streams[i].finding - 1].fix == SC_PR_FIX_NONBLOCK)
            k = SC_PR_NONBLOCKING;   /* created cudaStreamNonBlocking */
        s.stream[i] = sc_rp_stream(s.g, m->streams[i].device, kinds[k <= SC_PR_PTDS ? k : SC_PR_BLOCKING]);
        rc = s.stream[i] < 0;
    }
    for (size_t i = 0; !rc && i < m->nthreads * m->ndevices; i++)
        s.own[i] = -1;
    for (size_t i = 0; !rc && i < m->ndevices; i++)
        rc = sc_rp_set_duplex(s.g, (unsigned)i, duplex_fraction(&m->devices[i])) < 0 ||
             sc_rp_set_queues(s.g, (unsigned)i, queues_of(&s, &m->devices[i])) < 0 ||
             (m->gaps && sc_rp_set_gaps(s.g, (unsigned)i, m->devices[i].gap_ns) < 0);
    /* sc_pr_device.gap_ns comes from the timeline (timeline.h, sc_tl_gaps), in SC_RP_GAP's order */
    for (size_t t = 0; !rc && t < m->nthreads; t++)
        rc = sc_rp_thread(s.g, m->threads[t].n ? m->threads[t].calls[0].t0 - origin : 0) != (int)t;
    for (size_t t = 0; !rc && t < m->nthreads; t++)
        rc = build_thread(&s, t, w + base[t]);
    sc_rp_result r = {0};
    if (!rc)
        rc = sc_rp_run(s.g, &r);
    sc_rp_free(s.g);
    free(s.stream);
    free(s.own);
    free(s.copy);
    free(s.pipe);
    free(s.up);
    free(s.down);
    sc_pr_events_free(s.ev);
    free(s.spread);
    free(s.turn);
    if (rc)
        return -1;
    *stalled |= r.stalled;
    if (nshadow)
        *nshadow = s.nshadow;
    return (int64_t)r.end_ns;
}
