/* core.c: the shim's leaf module: globals, the log, per-thread state,
 * start-up, fork and exit.  It names no other module of the shim: those
 * register an sc_part (core.h) for their locks and hooks.
 *
 * Nothing happens in a constructor (but keeping a duplicate of stderr, see
 * "the shim's stderr"): PyTorch and CuPy load CUDA at import or later, and
 * a library constructor may run before the program can take a lock
 * (docs/ARCHITECTURE.md, "Initialization").  The first intercepted call
 * initializes, once, under a small state machine that also stops recursion
 * (options loading may call malloc, which may call dlsym, which is ours).
 */
#include "config.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core.h"
#include "options.h"
#include "thread.h"

sc_globals sc_g = {.max_conn = 8, .async_engines = -1};
SC_TLS sc_thread *sc_tls_self;
SC_TLS uint16_t sc_tls_rt;
sc_options sc_opt;
int sc_log_level = SC_LOG_WARNING;
double sc_start_time;     /* seconds since the epoch */
uint64_t sc_start_ns;
int sc_prof_on;
uint64_t sc_tsc_overhead;
_Atomic uint64_t sc_proc_own_ticks;
static uint64_t start_tsc;   /* sc_tsc() at sc_start_ns */

/* ------------------------------------------------------------ own time --- */
/* ns per TSC tick: measured over the run so far against CLOCK_MONOTONIC
   (one pair of reads at start, one now), waiting a millisecond first if
   the run is shorter than that. */
double sc_tsc_ns(void)
{
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
    uint64_t ns = sc_now_ns(), tk = sc_tsc();
    while (ns - sc_start_ns < 1000000 && sc_start_ns) {
        ns = sc_now_ns();
        tk = sc_tsc();
    }
    return tk > start_tsc && sc_start_ns ? (double)(ns - sc_start_ns) / (double)(tk - start_tsc) : 1.0;
#else
    return 1.0;
#endif
}

/* Profile cells of phases outside any thread's calls: initialization,
   fork, exit. */
static _Atomic uint64_t proc_cells[SC_PH_N][3];

void sc_prof_proc(unsigned ph, uint64_t ticks, uint64_t items)
{
    atomic_fetch_add_explicit(&proc_cells[ph][0], ticks, memory_order_relaxed);
    atomic_fetch_add_explicit(&proc_cells[ph][1], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&proc_cells[ph][2], items, memory_order_relaxed);
}

void sc_proc_cell(unsigned ph, sc_prof_cell *out)
{
    out->ticks = atomic_load(&proc_cells[ph][0]);
    out->calls = atomic_load(&proc_cells[ph][1]);
    out->items = atomic_load(&proc_cells[ph][2]);
}

void sc_prof_add_slow(sc_thread *t, unsigned ph, uint64_t t0, uint64_t items)
{
    uint64_t dt = sc_tsc() - t0;
    dt = dt > sc_tsc_overhead ? dt - sc_tsc_overhead : 0;
    if (!t) {
        sc_prof_proc(ph, dt, items);
        return;
    }
    t->prof[ph].ticks += dt;
    t->prof[ph].calls++;
    t->prof[ph].items += items;
}

/* The cost of reading the counter twice, taken off every timed interval. */
static void tsc_calibrate(void)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 200; i++) {
        uint64_t a = sc_tsc(), b = sc_tsc();
        if (b - a < best)
            best = b - a;
    }
    sc_tsc_overhead = best == UINT64_MAX ? 0 : best;
}

/* ------------------------------------------------- the shim's stderr --- */
/* What the shim says goes to a duplicate of the stderr the process started
   with, never to whatever fd 2 is later: a daemon closes fd 2 and opens its
   results file, which takes fd 2, and the report was appended to it.  The
   duplicate is taken in a constructor (the one thing the shim does there:
   later the program may have closed or reused fd 2), or at the first use
   if that comes earlier, at a high number so that a program's own files do
   not land on it, close-on-exec.  Before each use it must still be the
   same file (a program that closes every descriptor may have reused the
   number): otherwise, and where fd 2 was closed at start, the shim has no
   stderr (the text report then goes to a file, shim_report.c). */
static _Atomic int err_taken;
static int err_fd = -1;
static dev_t err_dev;
static ino_t err_ino;

static void take_stderr(void)
{
    if (atomic_exchange(&err_taken, 1))
        return;
    struct stat st;
    struct rlimit rl;
    int lo = 3;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur > 64)
        lo = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 1024 ? 1000 : (int)(rl.rlim_cur * 3 / 4);
    int saved = errno;
    if (fstat(2, &st) == 0) {
        int fd = fcntl(2, F_DUPFD_CLOEXEC, lo);
        if (fd < 0)
            fd = fcntl(2, F_DUPFD_CLOEXEC, 3);
        err_dev = st.st_dev;
        err_ino = st.st_ino;
        err_fd = fd;
    }
    errno = saved;
}

__attribute__((constructor)) static void keep_stderr(void)
{
    take_stderr();
}

int sc_err_fd(void)
{
    take_stderr();
    struct stat st;
    int saved = errno;
    int ok = err_fd >= 0 && fstat(err_fd, &st) == 0 && st.st_dev == err_dev && st.st_ino == err_ino;
    errno = saved;
    return ok ? err_fd : -1;
}

FILE *sc_err_open(void)
{
    int fd = sc_err_fd();
    int saved = errno;
    int d = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, fd) : -1;
    FILE *f = d >= 0 ? fdopen(d, "w") : NULL;
    if (!f && d >= 0)
        close(d);
    errno = saved;
    return f;
}

/* --------------------------------------------------------------- log --- */
void sc_log(int level, const char *fmt, ...)
{
    if (level > sc_log_level)
        return;
    int saved = errno;
    static const char *const what[] = {"", "warning: ", "", "debug: "};
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "streamcheck[%ld]: %s", (long)getpid(), what[level & 3]);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof buf)
        n += vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    if ((size_t)n >= sizeof buf - 1)
        n = (int)sizeof buf - 2;
    buf[n++] = '\n';
    int fd = sc_err_fd();
    if (fd >= 0) {
        ssize_t w = write(fd, buf, (size_t)n);   /* one write: lines from threads do not interleave */
        (void)w;
    }
    errno = saved;
}

static void option_warning(const char *msg)
{
    sc_log(SC_LOG_WARNING, "%s", msg);
}

/* ----------------------------------------------------------- threads --- */
static _Atomic(sc_thread *) thread_list;
static _Atomic unsigned nthreads;
static pthread_key_t thread_key;

static void thread_exit(void *p)
{
    sc_thread *t = p;
    if (atomic_exchange(&t->ptds_active, 0))
        atomic_fetch_sub(&sc_g.n_active, 1);
    atomic_store(&t->ptds_ctx, NULL);
    t->used_legacy = 0;
    t->capturing_ptds = 0;
    t->last_handle = NULL;
    t->last_rec = NULL;
    atomic_store_explicit(&t->rl_actor, 0, memory_order_relaxed);
    sc_tls_self = NULL;
    /* Counts stay: they are the process's; the next thread reuses the block. */
    atomic_store_explicit(&t->in_use, 0, memory_order_release);
}

sc_thread *sc_thread_new(void)
{
    int saved = errno;
    sc_thread *t;
    for (t = atomic_load(&thread_list); t; t = t->next) {
        int expect = 0;
        if (atomic_compare_exchange_strong(&t->in_use, &expect, 1))
            break;
    }
    if (!t) {
        t = calloc(1, sizeof *t);
        if (!t) {
            errno = saved;
            return NULL;
        }
        t->idx = atomic_fetch_add(&nthreads, 1);
        atomic_store(&t->in_use, 1);
        sc_thread *head = atomic_load(&thread_list);
        do
            t->next = head;
        while (!atomic_compare_exchange_weak(&thread_list, &head, t));
    }
    t->tid = (pid_t)gettid();
    t->nfast = sc_prof_on ? SC_FAST_SAMPLE - 1 : 0;   /* profile mode times every fast call */
    sc_tls_self = t;
    pthread_setspecific(thread_key, t);
    errno = saved;
    return t;
}

void sc_threads_foreach(void (*fn)(sc_thread *, void *), void *arg)
{
    for (sc_thread *t = atomic_load(&thread_list); t; t = t->next)
        fn(t, arg);
}

/* ------------------------------------------------------------ parts --- */
/* The registered modules, sorted by lock order.  Registration happens in
   constructors, one at a time; parts_lock covers a late one anyway. */
#define MAX_PARTS 32
static const sc_part *parts[MAX_PARTS];
static unsigned nparts;
static pthread_mutex_t parts_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int inited;   /* the init hooks have run */

void sc_part_register(const sc_part *p)
{
    pthread_mutex_lock(&parts_lock);
    if (nparts == MAX_PARTS) {
        pthread_mutex_unlock(&parts_lock);
        sc_warn("too many parts registered; %s is not covered at fork", p->name);
        return;
    }
    unsigned i = nparts++;
    for (; i > 0 && parts[i - 1]->order > p->order; i--)
        parts[i] = parts[i - 1];
    parts[i] = p;
    int late = atomic_load(&inited);
    pthread_mutex_unlock(&parts_lock);
    /* A library's constructor may have called into us (dlsym) before our
       own constructors ran: initialization is then already done. */
    if (late && p->init)
        p->init();
}

/* Calls the hook at `offset` (init or at_exit) of every part, in lock
   order, outside parts_lock (a hook may call dl_iterate_phdr or dlsym). */
static void parts_call(size_t offset)
{
    const sc_part *copy[MAX_PARTS];
    pthread_mutex_lock(&parts_lock);
    unsigned n = nparts;
    memcpy(copy, parts, n * sizeof *copy);
    pthread_mutex_unlock(&parts_lock);
    for (unsigned k = 0; k < n; k++) {
        const sc_part *p = copy[k];
        void (*fn)(void) = *(void (*const *)(void))((const char *)p + offset);
        if (fn)
            fn();
    }
}

/* The report's state (see "pauses" and "exit" below), which a forked
   child starts again from.  reading: who reads the tables, 0 no one, 1 a
   pause (reporter.c), 2 the final report; a pause never starts once the
   final report has, the final report waits for a pause to end.
   final_state: 0 no final report yet, 1 being written (by final_tid), 2
   written. */
static _Atomic int reading;
static _Atomic int final_state;
static _Atomic pid_t final_tid;

/* ------------------------------------------------------------- fork --- */
static void reset_times(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    sc_start_time = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
    sc_start_ns = sc_now_ns();
    start_tsc = sc_tsc();
}

/* The fork handlers' own time, not fork's: the prepare handler's, plus
   the parent's handler in the parent, the child's in the child (its own
   report). */
static uint64_t fork_t0, fork_prepare;

static void atfork_prepare(void)
{
    fork_t0 = sc_tsc();
    /* Hold every lock so the child never inherits one mid-update: the
       registry's first (so no part comes or goes), then every part's, in
       lock order. */
    pthread_mutex_lock(&parts_lock);
    for (unsigned i = 0; i < nparts; i++)
        if (parts[i]->lock)
            parts[i]->lock();
    fork_prepare = sc_tsc() - fork_t0;
}

static void atfork_parent(void)
{
    uint64_t t0 = sc_tsc();
    for (unsigned i = nparts; i-- > 0;)
        if (parts[i]->unlock)
            parts[i]->unlock();
    pthread_mutex_unlock(&parts_lock);
    uint64_t dt = fork_prepare + (sc_tsc() - t0);
    sc_prof_proc(SC_PH_FORK, dt, 0);
    atomic_fetch_add_explicit(&sc_proc_own_ticks, dt, memory_order_relaxed);
}

static void zero_thread(sc_thread *t, void *arg)
{
    sc_thread *self = arg;
    memset((void *)t->counts, 0, sizeof t->counts);
    atomic_store(&t->own_ticks, 0);
    memset(t->prof, 0, sizeof t->prof);
    atomic_store(&t->busy, 0);
    atomic_store(&t->ptds_active, 0);
    atomic_store(&t->ptds_ctx, NULL);
    t->used_legacy = 0;
    t->capturing_ptds = 0;
    t->last_handle = NULL;
    t->last_rec = NULL;
    t->legacy_mark = NULL;   /* the parent's contexts are gone */
    atomic_store(&t->rl_actor, 0);   /* the child's run log starts empty (runlog.c) */
    memset(t->own, 0, sizeof t->own);   /* the parent's streams are not the child's */
    t->has_own = 0;
    t->late = 0;
    t->pending_sig = 0;
    if (t != self)
        atomic_store(&t->in_use, 0);   /* that thread does not exist in the child */
}

static void atfork_child(void)
{
    /* The child is a new process with its own report: it starts from zero.
       Its locks are re-initialized, not unlocked (POSIX leaves unlocking a
       mutex another thread owned undefined). */
    uint64_t t0 = sc_tsc();
    pthread_mutex_init(&parts_lock, NULL);
    for (unsigned i = 0; i < nparts; i++)
        if (parts[i]->child_reset)
            parts[i]->child_reset();
    sc_threads_foreach(zero_thread, sc_tls_self);
    /* A pause or a final report of the parent's is not the child's. */
    int paused = SC_MODE_PAUSED;
    atomic_compare_exchange_strong(&sc_g.mode, &paused, SC_MODE_ACTIVE);
    atomic_store(&reading, 0);
    atomic_store(&final_state, 0);
    atomic_store(&final_tid, 0);
    atomic_store(&sc_g.legacy_threads, 0);
    atomic_store(&sc_g.ptds_used, 0);
    sc_g.pid = getpid();
    for (unsigned i = 0; i < SC_PH_N; i++)
        for (unsigned k = 0; k < 3; k++)
            atomic_store(&proc_cells[i][k], 0);
    reset_times();
    /* The child's clock starts at the fork: its handlers' time is its own. */
    uint64_t dt = fork_prepare + (sc_tsc() - t0);
    atomic_store(&sc_proc_own_ticks, dt);
    sc_prof_proc(SC_PH_FORK, dt, 0);
}

/* ------------------------------------------------------ handshake --- */
void sc_futex_wait(_Atomic int *word, int val, uint64_t ns)
{
    int saved = errno;
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    syscall(SYS_futex, (int *)word, FUTEX_WAIT_PRIVATE, val, ns ? &ts : NULL, NULL, 0);
    errno = saved;
}

void sc_futex_wake(_Atomic int *word)
{
    int saved = errno;
    syscall(SYS_futex, (int *)word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
    errno = saved;
}

/* Waits while *word == val, until the monotonic clock reaches end; 1 if
   it changed in time.  Async-signal-safe. */
static int wait_change(_Atomic int *word, int val, uint64_t end)
{
    for (;;) {
        if (atomic_load(word) != val)
            return 1;
        uint64_t now = sc_now_ns();
        if (now >= end)
            return 0;
        sc_futex_wait(word, val, end - now);
    }
}

/* A program thread waits for a pause at most this long, then passes its
   call through unjudged: a reporter that cannot finish never holds the
   program up for longer. */
#define SC_PAUSE_WAIT_NS (2000 * 1000 * 1000ull)

int sc_enter_slow(void)
{
    int m = atomic_load_explicit(&sc_g.mode, memory_order_acquire);
    if (m == SC_MODE_UNINIT) {
        sc_init_slow();
        m = atomic_load_explicit(&sc_g.mode, memory_order_acquire);
    }
    if (m == SC_MODE_PAUSED) {
        wait_change(&sc_g.mode, SC_MODE_PAUSED, sc_now_ns() + SC_PAUSE_WAIT_NS);
        m = atomic_load_explicit(&sc_g.mode, memory_order_acquire);
    }
    return m == SC_MODE_ACTIVE;
}

int sc_busy_begin(sc_thread *t)
{
    while (atomic_load(&sc_g.mode) == SC_MODE_PAUSED) {
        atomic_store(&t->busy, SC_BUSY_NO);
        if (!wait_change(&sc_g.mode, SC_MODE_PAUSED, sc_now_ns() + SC_PAUSE_WAIT_NS))
            return 0;
        sc_busy_enter(t);
    }
    if (atomic_load(&sc_g.mode) == SC_MODE_ACTIVE)
        return 1;
    sc_busy_done(t);   /* a signal kept meanwhile is raised there */
    return 0;
}

int sc_busy_back(sc_thread *t)
{
    for (;;) {
        sc_busy_enter(t);
        int m = atomic_load(&sc_g.mode);
        if (m != SC_MODE_PAUSED)
            return m == SC_MODE_ACTIVE;
        atomic_store(&t->busy, SC_BUSY_DRIVER);
        if (!wait_change(&sc_g.mode, SC_MODE_PAUSED, sc_now_ns() + SC_PAUSE_WAIT_NS)) {
            sc_busy_enter(t);
            return 0;   /* the reader still has the tables: leave them alone */
        }
    }
}

void sc_raise_deferred(sc_thread *t)
{
    int sig = t->pending_sig;
    t->pending_sig = 0;
    if (sig > 0)
        raise(sig);   /* the handler acts now, outside the bookkeeping */
}

/* Waits for the threads in their bookkeeping (SC_BUSY_SHIM) to leave it,
   until the deadline, so the report reads their tables at rest; a thread
   inside the driver (SC_BUSY_DRIVER) is not waited for.  One still in its
   bookkeeping then is marked late: the report goes without its tables. */
typedef struct quiet { uint64_t end; unsigned late; } quiet;

static void wait_thread(sc_thread *t, void *arg)
{
    quiet *q = arg;
    t->late = 0;
    if (t == sc_tls_self)
        return;
    for (unsigned i = 0; atomic_load(&t->busy) == SC_BUSY_SHIM; i++) {
        if (sc_now_ns() >= q->end) {
            t->late = 1;
            q->late++;
            return;
        }
        if (i < 16) {
            sched_yield();
        } else {
            struct timespec ts = {0, 200 * 1000};
            nanosleep(&ts, NULL);
        }
    }
}

static unsigned quiesce(uint64_t ns)
{
    /* Make every thread's busy flag visible before we read it (the threads
       skipped their fence; see sc_busy_enter). */
    if (sc_g.asym_fence && syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0)
        atomic_thread_fence(memory_order_seq_cst);   /* cannot happen once registered */
    quiet q = {sc_now_ns() + ns, 0};
    sc_threads_foreach(wait_thread, &q);
    return q.late;
}

/* ------------------------------------------------------------ pauses --- */

static void clear_late(sc_thread *t, void *arg)
{
    (void)arg;
    t->late = 0;
}

void sc_resume(void)
{
    int expect = SC_MODE_PAUSED;
    atomic_compare_exchange_strong(&sc_g.mode, &expect, SC_MODE_ACTIVE);
    sc_futex_wake(&sc_g.mode);
    sc_threads_foreach(clear_late, NULL);
}

void sc_pause_done(void)
{
    atomic_store(&reading, 0);
    sc_futex_wake(&reading);
}

int sc_pause(uint64_t ns)
{
    int expect = 0;
    if (atomic_load(&final_state) || !atomic_compare_exchange_strong(&reading, &expect, 1))
        return 0;
    expect = SC_MODE_ACTIVE;
    if (!atomic_compare_exchange_strong(&sc_g.mode, &expect, SC_MODE_PAUSED)) {
        atomic_store(&reading, 0);
        sc_futex_wake(&reading);
        return 0;
    }
    if (quiesce(ns) || atomic_load(&final_state)) {
        sc_resume();
        sc_pause_done();
        return 0;
    }
    return 1;
}

/* ------------------------------------------------------------- exit --- */
/* The final report.  At exit it is written by an atexit handler
   registered at initialization: it runs after main returns but before the
   handlers registered earlier, among them the CUDA runtime's own teardown
   (registered when the program's kernels were registered, before main).
   From then on the shim passes every call through, so teardown is never
   judged as the program's work.  The destructor covers programs whose exit
   skips atexit handlers of libraries (it does nothing if the report was
   written).  exec*, _exit and the signals that end a process come here too
   (exec.c, signals.c).  The report is a part's at_exit hook
   (shim_report.c). */
char sc_end_reason[32];

int sc_final_state(void) { return atomic_load(&final_state); }
pid_t sc_final_writer(void) { return atomic_load(&final_tid); }

int sc_final_wait(uint64_t ns)
{
    wait_change(&final_state, 1, sc_now_ns() + ns);
    return atomic_load(&final_state) == 2;
}

/* The writing thread takes no asynchronous signal while it writes: one
   that ends the process then acts once the report is written (another
   thread's handler waits for it).  Writing to a closed stderr raises
   SIGPIPE, which must not end a program whose own output never did: it is
   taken back before the mask is. */
static void write_final(void)
{
    sigset_t all, old;
    sigfillset(&all);
    static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS};
    for (size_t i = 0; i < SC_ARRAY_LEN(faults); i++)
        sigdelset(&all, faults[i]);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    atomic_store(&sc_g.mode, SC_MODE_DISABLED);
    sc_futex_wake(&sc_g.mode);
    uint64_t t0 = sc_tsc();
    quiesce(SC_QUIESCE_NS);
    uint64_t dt = sc_tsc() - t0;
    sc_prof_proc(SC_PH_QUIESCE, dt, 0);
    atomic_fetch_add_explicit(&sc_proc_own_ticks, dt, memory_order_relaxed);
    parts_call(offsetof(sc_part, at_exit));
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    struct timespec now = {0, 0};
    if (!sigismember(&old, SIGPIPE))
        while (sigtimedwait(&pipe, NULL, &now) == SIGPIPE)
            ;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void sc_final_report(const char *why)
{
    if (!sc_judging() || sc_g.pid != getpid())
        return;
    int saved = errno, expect = 0;
    if (!atomic_compare_exchange_strong(&final_state, &expect, 1)) {
        if (atomic_load(&final_tid) != (pid_t)gettid())
            sc_final_wait(SC_END_WAIT_NS);
        errno = saved;
        return;
    }
    atomic_store(&final_tid, (pid_t)gettid());
    snprintf(sc_end_reason, sizeof sc_end_reason, "%s", why ? why : "");
    /* A pause reads the tables for a moment: the report waits for it. */
    wait_change(&reading, 1, sc_now_ns() + SC_END_WAIT_NS);
    atomic_store(&reading, 2);
    write_final();
    atomic_store(&final_tid, 0);
    atomic_store(&final_state, 2);
    sc_futex_wake(&final_state);
    errno = saved;
}

static void sc_finish(void)
{
    sc_final_report(NULL);
}

__attribute__((destructor)) static void sc_fini(void)
{
    sc_finish();
}

/* ------------------------------------------------------------- init --- */
/* STREAMCHECK_TEST_ABLATE (core.h): a comma-separated list. */
static unsigned ablate_parse(const char *v)
{
    static const struct { const char *name; unsigned bit; } parts_off[] = {
        {"hb", SC_ABLATE_HB}, {"slow", SC_ABLATE_SLOW}, {"walk", SC_ABLATE_WALK},
        {"rt", SC_ABLATE_RT}, {"api", SC_ABLATE_API}, {"ext", SC_ABLATE_EXT},
        {"ts", SC_ABLATE_TS}, {"copy", SC_ABLATE_COPY}, {"parse", SC_ABLATE_PARSE},
        {"drain", SC_ABLATE_DRAIN},
    };
    unsigned bits = 0;
    while (v && *v) {
        size_t n = strcspn(v, ",");
        unsigned i;
        for (i = 0; i < SC_ARRAY_LEN(parts_off); i++)
            if (strlen(parts_off[i].name) == n && !strncmp(v, parts_off[i].name, n))
                break;
        if (i < SC_ARRAY_LEN(parts_off))
            bits |= parts_off[i].bit;
        else
            sc_warn("STREAMCHECK_TEST_ABLATE: '%.*s' is not one of hb, slow, walk, rt, api, ext, ts, copy, "
                    "parse, drain; ignored", (int)n, v);
        v += n + (v[n] == ',');
    }
    if (bits)
        sc_warn("STREAMCHECK_TEST_ABLATE=%s: parts of the shim are off (a test hook; findings are incomplete)",
                getenv("STREAMCHECK_TEST_ABLATE"));
    return bits;
}


static void init_once(void)
{
    uint64_t t0 = sc_tsc();
    sc_options_load(&sc_opt, option_warning);
    sc_prof_on = sc_opt.profile;
    sc_log_level = sc_opt.log_level;
    FILE *err = sc_opt.dump_config ? sc_err_open() : NULL;
    if (err) {
        fprintf(err, "streamcheck[%ld]: effective settings:\n", (long)getpid());
        sc_options_dump(&sc_opt, err);
        fclose(err);
    }
    if (sc_opt.disable) {
        atomic_store(&sc_g.mode, SC_MODE_DISABLED);
        return;
    }
    sc_g.pid = getpid();
    sc_g.ablate = ablate_parse(getenv("STREAMCHECK_TEST_ABLATE"));
    reset_times();
    tsc_calibrate();

    /* CUDA_DEVICE_MAX_CONNECTIONS (PG, CUDA Environment Variables): hardware
       work queues, 8 by default, at most 32. */
    const char *mc = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    long conn = mc ? strtol(mc, NULL, 10) : 8;
    sc_g.max_conn = conn >= 1 && conn <= 32 ? (unsigned)conn : 8;
    sc_g.redirect = sc_opt.redirect;
    sc_g.redirect_method = sc_opt.redirect_method;

    /* Lets the slow path skip a full fence (sc_busy_enter); Linux 4.14+. */
    sc_g.asym_fence = syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
    if (pthread_key_create(&thread_key, thread_exit))
        sc_warn("pthread_key_create failed; per-thread state of exiting threads is not recycled");
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
    atomic_store(&inited, 1);
    parts_call(offsetof(sc_part, init));   /* our own address range, the suppressions */
    atexit(sc_finish);
    uint64_t dt = sc_tsc() - t0;
    sc_prof_proc(SC_PH_INIT, dt, 0);
    atomic_fetch_add_explicit(&sc_proc_own_ticks, dt, memory_order_relaxed);
    atomic_store(&sc_g.mode, SC_MODE_ACTIVE);
}

void sc_init_slow(void)
{
    static _Atomic int state;          /* 0 not started, 1 running, 2 done */
    static _Atomic pid_t initializer;
    int expect = 0;
    if (atomic_compare_exchange_strong(&state, &expect, 1)) {
        int saved = errno;
        atomic_store(&initializer, (pid_t)gettid());
        init_once();
        if (atomic_load(&sc_g.mode) == SC_MODE_UNINIT)
            atomic_store(&sc_g.mode, SC_MODE_DISABLED);
        atomic_store(&state, 2);
        errno = saved;
        return;
    }
    if (atomic_load(&initializer) == (pid_t)gettid())
        return;        /* re-entered from our own initialization: pass through */
    while (atomic_load(&state) != 2)
        sched_yield();
}
