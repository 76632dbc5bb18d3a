/* runlog.c: the recorded run (runlog.h).  Each thread appends to a log
 * of its own, so the slow path takes no lock for it; the tables of streams
 * and findings the records refer to are shared and small, behind one
 * mutex, taken by a slow call that meets a stream or finding for the first
 * time in a thread (each thread caches its last lookups).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "aggkey.h"
#include "classify.h"
#include "core.h"
#include "cupti_session.h"
#include "hb.h"
#include "kinds.h"
#include "lanes.h"
#include "occupancy.h"
#include "pyframes.h"
#include "ranges.h"
#include "real.h"
#include "runlog.h"
#include "shim.h"
#include "streams.h"
#include "thread.h"

_Atomic int sc_rl_on;
static size_t rl_max = SC_RL_MAX;   /* STREAMCHECK_TEST_RL_MAX: a test hook (a smaller bound) */
int sc_rl_events;                    /* STREAMCHECK_TEST_EVENT_ORDERS (runlog.h) */

#define RL_SEEN 4
#define RL_MAPS 4
#define RL_MAP_RECS 8
enum { MAPS_C = 1, MAPS_PY };   /* sc_rl_log.maps: a thread that mapped a shared file, and in what process */

typedef struct sc_rl_log {
    sc_pr_call *v;
    size_t n, cap;
    int cut;                  /* rl_max reached: from cut_t on, its calls are not recorded */
    int late_wait;            /* ... and one of those waited (the thread is an actor of the model) */
    uint64_t cut_t, last_t1;  /* the first call not recorded began; the last one ended */
    int own_converted;        /* own_ns is in ns (sc_rl_model), not TSC ticks */
    pid_t tid;                /* the thread it belongs to (thread records are recycled) */
    pthread_t self;           /* ... as pthread_join names it */
    unsigned lid;             /* its legacy-stream lifetime (hb.h), 0 none */
    /* the host side of the thread's last two pageable copies (a batch sent,
       a result read back), and their records: the time the thread then
       spends unmapping one is its release, which a pinned buffer kept for
       the next step would not cost (unmap.c; off the fast path's part of
       the thread) */
    struct { uintptr_t lo, hi; uint32_t rec; } src[2];
    /* the shared files it mapped after one record and before the next
       (unmap.c), with nothing submitted in between: a batch received (its
       worker's message read, its shared memory mapped), which
       pin_memory=True moves off the thread.  The receipt: from that
       record's return (map_t0) to the last mapping's end (map_end), less
       the releases timed meanwhile (map_released: counted there), and the
       thread's CPU time over it in a Python process (map_cpu0 to map_cpu;
       read at each record, rec_cpu, once the thread has mapped one).
       maps: 0 none mapped yet, MAPS_C, or MAPS_PY (told once, at the
       first: sc_py_running).  map_rec: the records then; the next upload
       from one of them takes it */
    struct { uintptr_t lo, hi; } map[RL_MAPS];
    unsigned nmap;
    uint8_t maps;
    size_t map_rec;
    uint64_t map_t0, map_end, map_released, map_cpu0, map_cpu, rec_cpu;
    uint64_t released;          /* releases timed since the last record */
    /* its last stream lookups (stream_of), so that a record takes no lock
       for a stream the thread has met: the model's index of work passed as
       (s, pt) in context ctx */
    struct { CUstream s; CUcontext ctx; uint32_t device, idx; uint8_t pt, used; } seen[RL_SEEN];
    unsigned seen_next;
    sc_agg_key named;           /* the last SC102 named (sc_rl_finding): no lock for it again */
    struct sc_rl_log *next;
} sc_rl_log;

typedef struct skey { uint64_t key, site; uint32_t device; uint8_t kind; } skey;   /* site: SC102's */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static sc_rl_log *logs;               /* every thread's, newest first */
static skey *streams; static size_t nstreams, capstreams;
static sc_agg_key *finds; static size_t nfinds, capfinds;
static uint32_t *late; static size_t caplate;   /* per finding: its calls past a log's bound */

/* --------------------------------------------------------- tables --- */
static int grow(void *pp, size_t *cap, size_t need, size_t elt)
{
    return sc_grow_cap(pp, cap, need, elt, 64);
}

/* The model's index of a stream (few: a linear search under the lock). */
static uint32_t stream_index(uint64_t key, uint32_t device, uint8_t kind, uint64_t site)
{
    pthread_mutex_lock(&lock);
    size_t i = 0;
    while (i < nstreams && streams[i].key != key)
        i++;
    if (i == nstreams) {
        if (grow(&streams, &capstreams, nstreams + 1, sizeof *streams)) {
            pthread_mutex_unlock(&lock);
            return 0;
        }
        streams[nstreams++] = (skey){key, site, device, kind};
    }
    pthread_mutex_unlock(&lock);
    return (uint32_t)i;
}

/* Where work passed as (s, pt) in context ctx lands, as a model stream. */
static uint32_t stream_lookup(sc_thread *t, CUstream s, int pt, CUcontext ctx, uint32_t device)
{
    if ((s == NULL && !pt) || s == CU_STREAM_LEGACY)
        return stream_index((uintptr_t)ctx | 1, device, SC_PR_LEGACY, 0);
    if (s == NULL || s == CU_STREAM_PER_THREAD)
        return stream_index(((uint64_t)t->idx << 48) ^ (uintptr_t)ctx ^ 2, device, SC_PR_PTDS, 0);
    sc_stream *r = sc_stream_find(s);
    unsigned flags = r ? atomic_load(&r->flags) : CU_STREAM_NON_BLOCKING;
    int nb = (flags & CU_STREAM_NON_BLOCKING) != 0;
    return stream_index((uintptr_t)s, device, nb ? SC_PR_NONBLOCKING : SC_PR_BLOCKING,
                        nb ? 0 : atomic_load(&r->create_site));
}

/* The same through the thread's last lookups.  A stream's index never
   changes (the table keeps the first kind it saw for a handle). */
static uint32_t stream_of(sc_thread *t, sc_rl_log *l, CUstream s, int pt, CUcontext ctx, uint32_t device)
{
    for (unsigned i = 0; i < RL_SEEN; i++)
        if (l->seen[i].used && l->seen[i].s == s && l->seen[i].ctx == ctx && l->seen[i].pt == (uint8_t)!!pt &&
            l->seen[i].device == device)
            return l->seen[i].idx;
    uint32_t idx = stream_lookup(t, s, pt, ctx, device);
    unsigned k = l->seen_next++ % RL_SEEN;
    l->seen[k].s = s;
    l->seen[k].ctx = ctx;
    l->seen[k].device = device;
    l->seen[k].pt = (uint8_t)!!pt;
    l->seen[k].idx = idx;
    l->seen[k].used = 1;
    return idx;
}

/* ------------------------------------------------------- recording --- */
static sc_rl_log *log_of(sc_thread *t)
{
    sc_rl_log *l = t->rlog;
    if (l && l->tid == t->tid)
        return l;
    l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->tid = t->tid;
    l->self = pthread_self();
    pthread_mutex_lock(&lock);
    l->next = logs;
    logs = l;
    pthread_mutex_unlock(&lock);
    t->rlog = l;
    return l;
}

/* What a call was, for the model. */
static uint8_t what_of(const sc_op *op, uint64_t wait_ns)
{
    switch ((sc_kind)op->kind) {
    case SC_K_STREAM_SYNC: return SC_PR_WAIT_STREAM;
    case SC_K_CTX_SYNC: return SC_PR_WAIT_DEVICE;
    case SC_K_EVENT_SYNC: return SC_PR_WAIT_EVENT;
    case SC_K_EVENT_RECORD: return sc_rl_events ? SC_PR_EVENT_RECORD : SC_PR_OTHER;
    case SC_K_WAIT_EVENT: return sc_rl_events ? SC_PR_EVENT_WAIT : SC_PR_OTHER;
    default: break;
    }
    if (sc_kind_is(op->kind, SC_KF_COPY) && !sc_kind_is(op->kind, SC_KF_SYNC))
        return op->pageable && (op->dir == SC_DIR_H2D || op->dir == SC_DIR_D2H) ? SC_PR_COPY_PAGEABLE
                                                                                : SC_PR_SUBMIT;
    /* a synchronous copy from pageable memory to the device waits for its
       stream and stages as an async one does (classify.h, sc_staged_copy) */
    if (sc_staged_copy(op))
        return SC_PR_COPY_PAGEABLE;
    if (sc_kind_is(op->kind, SC_KF_SYNC))
        return (op->marks & SC_M_DRAINS) ? SC_PR_COPY_SYNC : SC_PR_SUBMIT;
    if (sc_kind_is(op->kind, SC_KF_WAIT | SC_KF_JOIN))
        return SC_PR_OTHER;
    if (sc_kind_is(op->kind, SC_KF_WORK | SC_KF_SUBMIT))
        return SC_PR_SUBMIT;
    /* a free synchronizes the device (RT, cudaFree: "implicitly synchronizes
       the device"; cudaFreeHost likewise), an allocation when it had to wait
       (SC301, SC302: NVIDIA documents that it does, users see it not always) */
    if (sc_kind_is(op->kind, SC_KF_BLOCKS) && (wait_ns || sc_kind_is(op->kind, SC_KF_FREES)))
        return SC_PR_WAIT_DEVICE;
    return SC_PR_OTHER;
}

/* A copy's device side, for the model's ranges: 0 where unknown (an
   array, a 2D or 3D copy). */
static uint64_t dev_end(const sc_op *op)
{
    if (op->dir != SC_DIR_H2D && op->dir != SC_DIR_D2H)
        return 0;
    if (sc_kind_is(op->kind, SC_KF_UNIFIED))
        return (uintptr_t)(op->dir == SC_DIR_H2D ? op->p1 : op->p2);
    return op->kind == SC_K_COPY ? (uintptr_t)op->p2 : 0;
}

/* Threads alive that made a call the run log recorded: the threads of the
   program that use CUDA (a driver's or the shim's own threads, which take
   the program's mutexes but make no CUDA call of the program's, have none). */
static void count_actor(sc_thread *t, void *arg)
{
    /* the log's own fields are its thread's alone: asked of another thread,
       only the flag the thread sets when its log holds a call */
    if (atomic_load_explicit(&t->in_use, memory_order_relaxed) &&
        atomic_load_explicit(&t->rl_actor, memory_order_relaxed))
        ++*(unsigned *)arg;
}

static void became_actor(sc_thread *t)
{
    if (!atomic_load_explicit(&t->rl_actor, memory_order_relaxed))
        atomic_store_explicit(&t->rl_actor, 1, memory_order_relaxed);
}

unsigned sc_rl_threads(void)
{
    unsigned n = 0;
    sc_threads_foreach(count_actor, &n);
    return n;
}

/* The thread's entry for the copy's stream (as passed), or -1.  Where a
   range of --range's name opened since they were noted, the streams start
   over: their first copies inside it are the candidates the report counts. */
static int piped_at(sc_thread *t, const sc_op *op)
{
    unsigned scope = sc_range_scope_entries();
    if (SC_UNLIKELY(t->rl.piped_scope != scope)) {
        t->rl.piped_scope = scope;
        t->rl.npiped = t->rl.piped_next = 0;
    }
    for (unsigned i = 0; i < t->rl.npiped; i++)
        if (t->rl.piped[i] == op->stream && (t->rl.piped_dirs[i] >> 2) == op->pt)
            return (int)i;
    return -1;
}

/* A direction's bit in piped_dirs: 1 to the device, 2 to the host. */
static unsigned dir_bit(const sc_op *op)
{
    return op->dir == SC_DIR_D2H ? 2 : 1;
}

int sc_rl_piped(sc_thread *t, const sc_op *op)
{
    int i = piped_at(t, op);
    return i >= 0 && (t->rl.piped_dirs[i] & dir_bit(op));
}

int sc_rl_copy_recorded(const sc_op *op)
{
    return op->bytes >= SC_RL_COPY_MIN && (op->dir == SC_DIR_H2D || op->dir == SC_DIR_D2H) &&
           atomic_load_explicit(&sc_rl_on, memory_order_relaxed);
}

int sc_rl_pipe_mark(sc_thread *t, const sc_op *op)
{
    if (op->pageable || !sc_rl_copy_recorded(op) || sc_rl_piped(t, op))
        return 0;
    int i = piped_at(t, op);
    if (i < 0) {
        i = (int)(t->rl.piped_next++ % 4);
        t->rl.piped[i] = op->stream;
        t->rl.piped_dirs[i] = (uint8_t)(op->pt << 2);
        if (t->rl.npiped < 4)
            t->rl.npiped++;
    }
    int first = !(t->rl.piped_dirs[i] & 3);
    t->rl.piped_dirs[i] |= (uint8_t)dir_bit(op);
    return first;
}

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Whether log l is full (its bound, rl_max, reached: a long run keeps
   the calls of its first part, and the model extrapolates, price.c), or
   has no room for the call [t0, t1]: then it says when its record stops,
   and when the thread's last call ended. */
static int cut(sc_rl_log *l, uint64_t t0, uint64_t t1)
{
    if (!l->cut && l->n < rl_max && !grow(&l->v, &l->cap, l->n + 1, sizeof *l->v))
        return 0;
    if (!l->cut)
        l->cut_t = t0;
    l->cut = 1;
    l->last_t1 = t1;
    return 1;
}

int sc_rl_full(const sc_thread *t)
{
    const sc_rl_log *l = t->rlog;
    return l && l->tid == t->tid && l->cut;
}

/* The host time pinning saves the thread of its receipt of the host side
   [lo, lo + bytes) of a pageable upload, and when the receipt began
   (*from): where it is one of the shared files mapped at most RL_MAP_RECS
   records ago; 0 otherwise.  Taken once.  In C, the receipt's time (less
   its releases); in Python, the part of it off the CPU (waiting for the
   worker's messages), and in *cpu the rest less the releases: whether the
   pinning thread's CPU work, which holds the GIL, saves the thread that
   too is the replay's choice (sc_pr_model.receipt_cpu). */
static uint64_t received(sc_rl_log *l, uintptr_t lo, uint64_t bytes, uint64_t *from, uint64_t *cpu)
{
    if (l->n - l->map_rec > RL_MAP_RECS)
        l->nmap = 0;
    for (unsigned i = 0; i < l->nmap; i++)
        if (lo >= l->map[i].lo && lo + bytes <= l->map[i].hi) {
            uint64_t ns = l->map_end - l->map_t0, off = l->map_released;
            l->nmap = 0;
            *from = l->map_t0;
            if (l->maps == MAPS_PY) {
                if (!l->map_cpu0 || l->map_cpu < l->map_cpu0)
                    return 0;
                off = l->map_cpu - l->map_cpu0;
                *cpu = off > l->map_released ? off - l->map_released : 0;
            }
            return ns > off ? ns - off : 0;
        }
    return 0;
}

uint32_t sc_rl_record(sc_thread *t, sc_op *op, uint64_t t0, uint64_t t1, uint64_t wait_ns)
{
    if (!sc_rl_on)
        return 0;
    sc_rl_log *l = log_of(t);
    if (!l)
        return 0;
    if (cut(l, t0, t1)) {
        l->late_wait |= what_of(op, wait_ns) >= SC_PR_WAIT_STREAM;
        return 0;
    }
    if (SC_UNLIKELY(sc_measure_active))
        sc_cupti_sample_record();
    /* launches captured into a graph ran nothing: the graph's launch does */
    t->rl.nsub = t->rl.nsub > t->rl.captured ? t->rl.nsub - t->rl.captured : 0;
    t->rl.captured = 0;
    uint8_t what = what_of(op, wait_ns);
    CUcontext ctx = sc_op_ctx(op);
    unsigned dev = sc_op_device(op);
    uint32_t device = dev < SC_DEV_UNKNOWN ? dev : 0;
    sc_pr_call *c = &l->v[l->n];
    uint64_t bytes = what == SC_PR_EVENT_RECORD || what == SC_PR_EVENT_WAIT ? (uint64_t)(uintptr_t)op->p1
                                                                              : op->bytes;
    *c = (sc_pr_call){.t0 = t0, .t1 = t1 > t0 ? t1 : t0, .wait_ns = wait_ns, .bytes = bytes,
                      .touch_ns = op->touch_ns, .touch_again = op->touch_again,
                      .nsub = t->rl.nsub, .what = what, .dev = dev_end(op),
                      .dir = op->dir == SC_DIR_H2D ? SC_PR_H2D : op->dir == SC_DIR_D2H ? SC_PR_D2H : 0};
    if (c->wait_ns > c->t1 - c->t0)
        c->wait_ns = c->t1 - c->t0;
    c->stream = stream_of(t, l, op->stream, op->pt, ctx, device);
    c->sub_stream = t->rl.nsub ? stream_of(t, l, t->rl.last, t->rl.last_pt, ctx, device) : c->stream;
    if (sc_kind_is(op->kind, SC_KF_KERNEL) && op->grid && op->block) {
        c->demand = sc_occ_threads(dev, (double)op->grid * op->block);
        if (sc_occ_on)
            c->occ_demand = sc_occ_demand(op->fn, op->grid, op->block, op->shmem);
    }
    if (t->rl.kernels)
        c->fast_demand = sc_occ_threads(dev, (double)t->rl.threads / t->rl.kernels);
    if (t->rl.occ_n)
        c->fast_occ_demand = t->rl.occ / (float)t->rl.occ_n;
    t->rl.nsub = t->rl.kernels = t->rl.occ_n = 0;
    t->rl.threads = 0;
    t->rl.occ = 0;
    if (what == SC_PR_COPY_PAGEABLE && c->dir && op->host && op->bytes) {
        l->src[1] = l->src[0];
        l->src[0].lo = (uintptr_t)op->host;
        l->src[0].hi = (uintptr_t)op->host + op->bytes;
        l->src[0].rec = (uint32_t)l->n + 1;
        if (c->dir == SC_PR_H2D)
            c->receive_ns = received(l, (uintptr_t)op->host, op->bytes, &c->receive_t0, &c->receive_cpu_ns);
    }
    l->released = 0;
    if (l->maps == MAPS_PY) {
        l->rec_cpu = thread_cpu_ns();
        c->cpu_ns = c->receive_ns ? l->rec_cpu : 0;   /* what the GIL's free share reads (pricing.c) */
    }
    /* after a wait, the next submission says when the GPU got work again */
    t->rl.watch = wait_ns > 0 || ((t->rl.watch & SC_RL_WATCH_WAIT) && what != SC_PR_SUBMIT) ? SC_RL_WATCH_WAIT : 0;
    if (!l->lid)
        l->lid = sc_hb_lifetime();
    became_actor(t);
    return (uint32_t)++l->n;
}

/* A capture's begin or end and a launch into a capturing stream give the
   GPU no work (CUDA Programming Guide, CUDA Graphs > Creating a Graph Using
   Stream Capture: work captured is not executed): the watch goes on to the
   thread's next call. */
int sc_rl_watches(const sc_thread *t, const sc_op *op)
{
    return !(sc_kind_is(op->kind, SC_KFAST_CAPTURE) ||
             (op->srec && atomic_load_explicit(&op->srec->capturing, memory_order_relaxed)) ||
             (op->lane == SC_LANE_PTDS && t->capturing_ptds));
}

void sc_rl_watched(sc_thread *t, sc_op *op, uint64_t t0, CUresult r)
{
    if (r != CUDA_SUCCESS) {   /* it did nothing: the slow path records no such call either */
        t->rl.watch &= SC_RL_WATCH_WAIT;
        return;
    }
    int err = errno;
    uint64_t tin = sc_tsc(), t1 = sc_now_ns();
    sc_busy_enter(t);
    if (atomic_load_explicit(&sc_g.mode, memory_order_relaxed) != SC_MODE_ACTIVE && !sc_busy_begin(t)) {
        t->rl.watch &= SC_RL_WATCH_WAIT;
        errno = err;
        return;
    }
    /* what sc_pre would have cleared for sc_rl_record */
    op->has_ctx = 0;
    op->ctx = NULL;
    op->pageable = op->touch_again = 0;
    op->touch_ns = 0;
    sc_rl_record(t, op, t0, t1, 0);
    atomic_fetch_add_explicit(&t->own_ticks, sc_tsc() - tin, memory_order_relaxed);
    sc_busy_done(t);
    errno = err;
}

void sc_rl_own(sc_thread *t, uint32_t rec, uint64_t ticks)
{
    sc_rl_log *l = t->rlog;
    if (rec && l && l->tid == t->tid && rec <= l->n)
        l->v[rec - 1].own_ns = ticks;   /* ticks until the model converts them (sc_rl_model) */
}

void sc_rl_join(pthread_t other, uint64_t t0, uint64_t t1)
{
    sc_thread *t = sc_tls_self;
    /* Once the final report has begun the run is over: its own joins (the
       GPU sampler's thread, at exit) are not the program's. */
    if (!sc_rl_on || !t || atomic_load_explicit(&t->busy, memory_order_relaxed) || sc_final_state())
        return;
    sc_rl_log *l = t->rlog;
    if (!l || l->tid != t->tid)
        return;   /* a thread that never called CUDA is no actor of the model */
    int saved = errno;
    if (cut(l, t0, t1)) {
        l->late_wait = 1;
        errno = saved;
        return;
    }
    /* bytes: the joined thread, until the model names it (sc_rl_model) */
    l->v[l->n++] = (sc_pr_call){.t0 = t0, .t1 = t1, .what = SC_PR_JOIN, .stream = SC_PR_NONE,
                                .bytes = (uint64_t)(uintptr_t)other,
                                .nsub = t->rl.nsub > t->rl.captured ? t->rl.nsub - t->rl.captured : 0};
    t->rl.nsub = t->rl.kernels = t->rl.captured = t->rl.occ_n = 0;
    t->rl.threads = 0;
    t->rl.occ = 0;
    became_actor(t);
    errno = saved;
}

/* PyTorch's DataLoader hands the main thread each batch in shared memory
   from its workers; dropping the batch after the copy unmaps it, which
   frees its pages: milliseconds for tens of MiB, on the thread that
   copied.  With pin_memory=True the pinning thread receives and releases
   the batches, so that time goes with the fix as the copy's does.  A
   result read back into a new mapping each step (.cpu() above glibc's
   mmap threshold) is unmapped when dropped: one pinned buffer kept is not. */
int sc_rl_src_of(const sc_thread *t, const void *addr, size_t len)
{
    const sc_rl_log *l = t->rlog;
    uintptr_t a = (uintptr_t)addr, b = a + len;
    if (!l || l->tid != t->tid)
        return -1;   /* a recycled record's log was another thread's */
    for (int i = 0; i < 2; i++)
        if (l->src[i].rec && a < l->src[i].hi && b > l->src[i].lo)
            return i;
    return -1;
}

void sc_rl_unmapped(sc_thread *t, const void *addr, size_t len, uint64_t ns)
{
    int i = sc_rl_src_of(t, addr, len);
    sc_rl_log *l = t->rlog;
    if (i < 0 || !sc_rl_on || atomic_load_explicit(&t->busy, memory_order_relaxed) || sc_final_state())
        return;
    uint32_t rec = l->src[i].rec;
    l->src[i].rec = 0;   /* one release a copy */
    if (rec <= l->n)
        l->v[rec - 1].release_ns += ns;
    l->released += ns;
}

void sc_rl_mapped(sc_thread *t, const void *addr, size_t len, int fd)
{
    sc_rl_log *l = t->rlog;
    struct stat st;
    if (!sc_rl_on || !l || l->tid != t->tid || atomic_load_explicit(&t->busy, memory_order_relaxed) ||
        sc_final_state() || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return;
    if (l->nmap && l->map_rec != l->n)
        l->nmap = 0;          /* a record since: another batch */
    if (t->rl.nsub || !l->n) {
        l->nmap = 0;          /* work submitted since the record: no receipt to time */
        return;
    }
    if (!l->nmap) {
        l->map_t0 = l->v[l->n - 1].t1;
        l->map_cpu0 = l->maps == MAPS_PY ? l->rec_cpu : 0;
        if (!l->maps)
            l->maps = sc_py_running() ? MAPS_PY : MAPS_C;
    }
    if (l->nmap == RL_MAPS) {
        memmove(l->map, l->map + 1, (RL_MAPS - 1) * sizeof *l->map);
        l->nmap--;
    }
    l->map[l->nmap].lo = (uintptr_t)addr;
    l->map[l->nmap++].hi = (uintptr_t)addr + len;
    l->map_rec = l->n;
    l->map_end = sc_now_ns();
    l->map_released = l->released;
    if (l->maps == MAPS_PY)
        l->map_cpu = thread_cpu_ns();
}

void sc_rl_finding(sc_thread *t, uint32_t rec, const sc_agg_key *k)
{
    sc_rl_log *l = t->rlog;
    /* SC102's, judged before its call is recorded: named for its streams'
       fix (sc102_of), with no call of its own */
    int named = !rec && k->table == SC_AGG_FINDING && k->rule == SC_RULE_SC102;
    if (!l || l->tid != t->tid || rec > l->n || (!rec && !l->cut && !named) ||
        (named && !memcmp(&l->named, k, sizeof *k)))
        return;
    if (named)
        l->named = *k;
    pthread_mutex_lock(&lock);
    size_t i = 0;
    while (i < nfinds && memcmp(&finds[i], k, sizeof *k))
        i++;
    if (i == nfinds && i < 0xfffe && !grow(&finds, &capfinds, nfinds + 1, sizeof *finds))
        finds[nfinds++] = *k;
    size_t n = nfinds, had = caplate;
    if (!rec && l->cut && i < n && !grow(&late, &caplate, n, sizeof *late)) {
        memset(late + had, 0, (caplate - had) * sizeof *late);
        late[i]++;   /* past the log's bound: counted for the extrapolation (sc_rl_calls) */
    }
    pthread_mutex_unlock(&lock);
    if (i >= n || !rec)
        return;
    sc_pr_call *c = &l->v[rec - 1];
    for (int s = 0; s < 2; s++)
        if (!c->finding[s] || c->finding[s] == i + 1) {
            c->finding[s] = (uint16_t)(i + 1);
            break;
        }
}

/* ----------------------------------------------------------- model --- */
/* Whether the thread is an actor of the model: it waited for the GPU. */
static int waited(const sc_rl_log *l)
{
    if (!l->n)
        return 0;
    if (l->late_wait)
        return 1;
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].what >= SC_PR_WAIT_STREAM)
            return 1;
    return 0;
}

/* A join names the thread it waited for by pthread_t, which the system
   reuses: the actor of that id that started last before the join ended. */
static void name_joins(sc_rl_log **of, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < of[i]->n; c++) {
            sc_pr_call *j = &of[i]->v[c];
            if (j->what != SC_PR_JOIN || j->stream != SC_PR_NONE)
                continue;
            for (size_t o = 0; o < n; o++)
                if (o != i && (uintptr_t)of[o]->self == (uintptr_t)j->bytes && of[o]->v[0].t0 <= j->t1 &&
                    (j->stream == SC_PR_NONE || of[o]->v[0].t0 > of[j->stream]->v[0].t0))
                    j->stream = (uint32_t)o;
            j->bytes = 0;
        }
}

/* A log that reached its bound stops at cut_t, and the other threads'
   records after the earliest such time (the horizon) are left out of the
   model with it, so that every actor's calls cover the same time. */
static uint64_t horizon, last_end;

/* How many of l's calls the model takes: those begun before the horizon. */
static size_t kept(const sc_rl_log *l)
{
    size_t lo = 0, hi = l->n;
    while (lo < hi) {   /* a thread's records are in the order they began */
        size_t mid = lo + (hi - lo) / 2;
        if (l->v[mid].t0 < horizon)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void find_horizon(void)
{
    horizon = UINT64_MAX;
    last_end = 0;
    for (sc_rl_log *l = logs; l; l = l->next) {
        if (!waited(l))
            continue;
        uint64_t end = l->cut ? l->last_t1 : l->v[l->n - 1].t1;
        if (l->cut && l->cut_t < horizon)
            horizon = l->cut_t;
        if (end > last_end)
            last_end = end;
    }
}

/* The model's threads' logs, in its order (sc_rl_model). */
static sc_rl_log **model_logs;

/* The calls begun before time h, over the model's threads. */
static size_t held_before(const sc_pr_model *m, uint64_t h)
{
    uint64_t keep = horizon;
    size_t n = 0;
    horizon = h;
    for (size_t t = 0; t < m->nthreads; t++)
        n += kept(model_logs[t]);
    horizon = keep;
    return n;
}

void sc_rl_hold(sc_pr_model *m, size_t max)
{
    size_t n = 0;
    uint64_t lo = UINT64_MAX, hi = 0;
    if (!model_logs)
        return;
    for (size_t t = 0; t < m->nthreads; t++) {
        n += m->threads[t].n;
        if (m->threads[t].n && m->threads[t].calls[0].t0 < lo)
            lo = m->threads[t].calls[0].t0;
        if (m->threads[t].n && m->threads[t].calls[m->threads[t].n - 1].t0 + 1 > hi)
            hi = m->threads[t].calls[m->threads[t].n - 1].t0 + 1;
    }
    if (n <= max || lo >= hi)
        return;
    while (lo + 1 < hi) {   /* the latest time before which at most max calls began */
        uint64_t mid = lo + (hi - lo) / 2;
        if (held_before(m, mid) <= max)
            lo = mid;
        else
            hi = mid;
    }
    horizon = lo;
    sc_pr_thread *th = (sc_pr_thread *)m->threads;
    for (size_t t = 0; t < m->nthreads; t++)
        th[t].n = kept(model_logs[t]);
}

int sc_rl_cut(uint64_t *at, uint64_t *end)
{
    if (horizon == UINT64_MAX || !horizon)
        return 0;
    *at = horizon;
    *end = last_end;
    return 1;
}

void sc_rl_calls(uint64_t *n, size_t nfind)
{
    for (size_t f = 0; f < nfind; f++)
        n[f] = f < caplate ? late[f] : 0;
    for (sc_rl_log *l = logs; l; l = l->next)
        for (size_t i = 0; i < l->n; i++) {
            uint16_t a = l->v[i].finding[0], b = l->v[i].finding[1];
            if (a && a <= nfind)
                n[a - 1]++;
            if (b && b != a && b <= nfind)
                n[b - 1]++;
        }
}

/* A blocking stream's SC102 finding: the first of the site that created
   it on its device (one a legacy-stream API; the others are the same fix
   and save nothing more, price.c), 0 none. */
static uint16_t sc102_of(uint64_t site, uint32_t device)
{
    for (size_t i = 0; site && i < nfinds; i++)
        if (finds[i].table == SC_AGG_FINDING && finds[i].rule == SC_RULE_SC102 && finds[i].site == site &&
            finds[i].device == device)
            return (uint16_t)(i + 1);
    return 0;
}

int sc_rl_model(sc_pr_model *m)
{
    memset(m, 0, sizeof *m);
    find_horizon();
    size_t n = 0;
    for (sc_rl_log *l = logs; l; l = l->next)
        n += waited(l);
    sc_pr_thread *th = calloc(n ? n : 1, sizeof *th);
    sc_pr_stream *st = calloc(nstreams ? nstreams : 1, sizeof *st);
    sc_pr_finding *f = calloc(nfinds ? nfinds : 1, sizeof *f);
    if (!th || !st || !f) {
        free(th);
        free(st);
        free(f);
        return -1;
    }
    /* oldest thread first: the main thread's log is the last in the list */
    size_t k = n;
    sc_rl_log **of = calloc(n ? n : 1, sizeof *of);
    for (sc_rl_log *l = logs; l && of; l = l->next)
        if (waited(l)) {
            of[--k] = l;
            th[k] = (sc_pr_thread){.calls = l->v, .n = kept(l), .id = l->lid, .pthread = (uint32_t)(uintptr_t)l->self};
        }
    if (of)
        name_joins(of, n);
    free(model_logs);
    model_logs = of;   /* for sc_rl_hold */
    double per_tick = sc_tsc_ns();
    for (sc_rl_log *l = logs; l; l = l->next)
        for (size_t i = 0; i < l->n && !l->own_converted; i++)
            l->v[i].own_ns = (uint64_t)((double)l->v[i].own_ns * per_tick);
    for (sc_rl_log *l = logs; l; l = l->next)
        l->own_converted = 1;
    uint32_t ndev = 0;
    for (size_t i = 0; i < nstreams; i++) {
        st[i] = (sc_pr_stream){.device = streams[i].device, .kind = streams[i].kind,
                               .finding = sc102_of(streams[i].site, streams[i].device)};
        if (streams[i].device + 1 > ndev)
            ndev = streams[i].device + 1;
    }
    m->threads = th;
    m->nthreads = n;
    m->streams = st;
    m->nstreams = nstreams;
    m->findings = f;
    m->nfindings = nfinds;
    m->ndevices = ndev;
    return 0;
}

const sc_agg_key *sc_rl_key(uint16_t finding)
{
    return finding && finding <= nfinds ? &finds[finding - 1] : NULL;
}

void sc_rl_model_free(sc_pr_model *m)
{
    free((void *)m->threads);
    free((void *)m->streams);
    free((void *)m->findings);
    memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------ fork --- */
static void rl_lock(void) { pthread_mutex_lock(&lock); }
static void rl_unlock(void) { pthread_mutex_unlock(&lock); }
/* The child's run starts empty (the parent's threads are not its own). */
static void rl_child(void)
{
    pthread_mutex_init(&lock, NULL);
    for (sc_rl_log *l = logs; l; l = l->next) {
        l->n = 0;
        l->cut = l->late_wait = 0;
        memset(l->seen, 0, sizeof l->seen);   /* the stream table starts over */
    }
    nstreams = nfinds = 0;
    if (late)
        memset(late, 0, caplate * sizeof *late);
}

/* Runs are recorded in detect and measured mode; under redirect the run
   is not the program's own (the pricing model would replay the moved work).
   Events' records and waits too in measured mode, whose replay has each
   kernel's time to order by them (sc_rl_events, runlog.h);
   STREAMCHECK_TEST_EVENT_ORDERS=1 or 0 overrides either mode. */
static void rl_init(void)
{
    const char *max = getenv("STREAMCHECK_TEST_RL_MAX");
    long v = max ? strtol(max, NULL, 10) : 0;
    if (v > 0 && v < SC_RL_MAX)
        rl_max = (size_t)v;
    sc_rl_events = sc_test_switch("STREAMCHECK_TEST_EVENT_ORDERS", sc_opt_measured());
    sc_rl_on = !sc_opt.redirect;
}

static const sc_part part = {"runlog", 55, rl_lock, rl_unlock, rl_child, rl_init, NULL};
SC_PART_REGISTER(part)
