/* shim_cost.c: the shim's own cost per intercepted call, measured against
 * the fake driver of the unit tests (whose launch does nothing), so what is
 * timed is streamcheck alone.  Not a test: a benchmark (make bench).
 *   shim_cost [CALLS]
 * Redirected launches are timed in a child process per method (the options
 * are read once, at the first call).
 * Each case runs five times, CALLS calls each (thread CPU time): the best
 * run, the median and the worst are shown.
 * The PyTorch case: every launch goes to the legacy stream while the
 * program's 128 pool streams (non-blocking, idle) exist.  CUDA graphs: a
 * graph launch (also right after a wait, which the run log records), a
 * launch recorded into a capturing stream, and a capture
 * begun and ended (cudaGraphsPerfScaling's API times).  A pageable copy:
 * SC203's slow path, with the waits for its stream the shim adds
 * (dispatch.c) counted per copy.  An event recorded on one stream and
 * waited for by another (a pair): the run log records both where it
 * records events' orders (measured mode; STREAMCHECK_TEST_EVENT_ORDERS=1
 * here, where no CUPTI runs).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <dlfcn.h>
#include <pthread.h>

#include "../tests/unit/fake_driver.h"
#include "core.h"
#include "fsutil.h"
#include "hb.h"
#include "real.h"
#include "runlog.h"
#include "thread.h"

/* CPU time of the calling thread: a loaded machine does not inflate it. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A case's figure: ns per call over RUNS runs, the best (the least
   disturbed by the rest of the machine) and the spread. */
#define RUNS 5
typedef struct ns3 { double best, med, worst; } ns3;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* body(arg, n) makes n calls (per: calls each of them stands for). */
static ns3 timed(void (*body)(void *, long), void *arg, long n, double per)
{
    double d[RUNS];
    for (int rep = 0; rep < RUNS; rep++) {
        double t0 = cpu_now();
        body(arg, n);
        d[rep] = (cpu_now() - t0) / ((double)n * per) * 1e9;
    }
    qsort(d, RUNS, sizeof d[0], cmp_double);
    return (ns3){d[0], d[RUNS / 2], d[RUNS - 1]};
}

static void row(const char *label, ns3 v, const char *note)
{
    printf("  %-50s %7.1f %7.1f %7.1f%s%s\n", label, v.best, v.med, v.worst, *note ? "  " : "", note);
}

static void launches(void *s, long n)
{
    for (long i = 0; i < n; i++)
        cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, (CUstream)s, NULL, NULL);
}

static ns3 per_call(CUstream s, long n)
{
    return timed(launches, s, n, 1);
}

static void graph_launches(void *s, long n)
{
    for (long i = 0; i < n; i++)
        cuGraphLaunch(NULL, (CUstream)s);
}

/* Graph launches, each as if right after a wait: the run log records it
   (runlog.h, the watch), as cudaGraphsPerfScaling's launch into an idle
   stream after its synchronization.  At most SC_RL_MAX records a thread:
   n is kept under that over the runs. */
static void watched_graph_launches(void *s, long n)
{
    for (long i = 0; i < n; i++) {
        if (sc_tls_self)
            sc_tls_self->rl.watch = 1;
        cuGraphLaunch(NULL, (CUstream)s);
    }
}

/* Launches recorded into s while it captures (the capture's ends outside
   the timing's share: one pair per n launches). */
static void captured_launches(void *s, long n)
{
    CUgraph g;
    cuStreamBeginCapture((CUstream)s, CU_STREAM_CAPTURE_MODE_GLOBAL);
    launches(s, n);
    cuStreamEndCapture((CUstream)s, &g);
}

/* n captures begun and ended. */
static void capture_pairs(void *s, long n)
{
    CUgraph g;
    for (long i = 0; i < n; i++) {
        cuStreamBeginCapture((CUstream)s, CU_STREAM_CAPTURE_MODE_GLOBAL);
        cuStreamEndCapture((CUstream)s, &g);
    }
}

/* An event recorded on s and waited for by its pair stream (evs[1]), as
   DDP joins its NCCL stream to the compute stream: n pairs. */
static CUevent ev;
static CUstream evs[2];
static void event_pairs(void *s, long n)
{
    for (long i = 0; i < n; i++) {
        cuEventRecord(ev, (CUstream)s);
        cuStreamWaitEvent(evs[1], ev, 0);
    }
}

/* Pageable copies of 64 KiB, and the cuStreamSynchronize calls the shim
   makes itself before them. */
static char pageable[64 << 10];
static long shim_syncs;
static CUresult counting_sync(CUstream s)
{
    (void)s;
    shim_syncs++;
    return CUDA_SUCCESS;
}

static void pageable_copies(void *s, long n)
{
    for (long i = 0; i < n; i++)
        cuMemcpyHtoDAsync((CUdeviceptr)0x1000, pageable, sizeof pageable, (CUstream)s);
}

/* Pageable copies to the host of 16 MiB, into pages already written: the
   slow path asks mincore whether any is fresh (touch.c), and finds none. */
static char *readback;
static void readback_copies(void *s, long n)
{
    for (long i = 0; i < n; i++)
        cuMemcpyDtoHAsync(readback, (CUdeviceptr)0x1000, 16 << 20, (CUstream)s);
}

/* mmap + munmap pairs of 64 KiB by a thread that made CUDA calls: through
   the shim's munmap (unmap.c, not a copy's source: passed on), or libc's. */
typedef int (*munmap_fn)(void *, size_t);
static munmap_fn libc_munmap;
static void map_pairs(void *via_libc, long n)
{
    for (long i = 0; i < n; i++) {
        void *p = mmap(NULL, 64 << 10, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED)
            via_libc ? libc_munmap(p, 64 << 10) : munmap(p, 64 << 10);
    }
}

/* pthread_mutex_lock + unlock pairs of the program (this one holds the
   shim, so its calls go through the interposers), or of libc's own
   functions. */
static void mutex_pairs(void *m, long n)
{
    for (long i = 0; i < n; i++) {
        pthread_mutex_lock(m);
        pthread_mutex_unlock(m);
    }
}

static pthread_mutex_t bench_m = PTHREAD_MUTEX_INITIALIZER;
typedef int (*mutex_fn)(pthread_mutex_t *);
static mutex_fn libc_lock, libc_unlock;
static void libc_pairs(void *m, long n)
{
    for (long i = 0; i < n; i++) {
        libc_lock(m);
        libc_unlock(m);
    }
}

static ns3 other_ns;
static void *untracked_thread(void *arg)
{
    other_ns = timed(mutex_pairs, &bench_m, *(long *)arg, 1);
    return NULL;
}

/* A PyTorch step between two launches: a submission, then lock and unlock
   pairs of the program's mutexes at as many call sites of its own (32, as a
   libtorch step has; a call site's address is what the tracker's caller
   cache is keyed by).  n / 32 + 1 steps: per pair, the submission's share
   included. */
static pthread_mutex_t site_m[8] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                    PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                    PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                    PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER};
#define PAIR(j) do { pthread_mutex_lock(&site_m[(j) & 7]); pthread_mutex_unlock(&site_m[(j) & 7]); } while (0)
#define PAIR4(j) PAIR(j); PAIR((j) + 1); PAIR((j) + 2); PAIR((j) + 3)
#define PAIR16(j) PAIR4(j); PAIR4((j) + 4); PAIR4((j) + 8); PAIR4((j) + 12)
static void step_pairs(void *t, long steps)
{
    for (long i = 0; i < steps; i++) {
        if (t)
            sc_hb_submitted(t, SC_HB_LEGACY, NULL);
        PAIR16(0);
        PAIR16(16);
    }
}

/* The tracker's cost on the calls PyTorch makes around every allocation:
   off (no legacy work yet), on for a thread with no clock, on for a thread
   that submits legacy work (its clock goes into the mutex each time). */
static void hb_cost(long n)
{
    libc_lock = (mutex_fn)dlsym(RTLD_NEXT, "pthread_mutex_lock");
    libc_unlock = (mutex_fn)dlsym(RTLD_NEXT, "pthread_mutex_unlock");
    ns3 libc = timed(libc_pairs, &bench_m, n, 1);
    ns3 off = timed(mutex_pairs, &bench_m, n, 1);
    /* The program's own calls must count as the program's: this program
       holds the shim's code, so say that the shim's range is empty. */
    sc_self_range();
    sc_g.self_lo = sc_g.self_hi = 1;
    sc_thread *t = sc_enter();
    sc_hb_thread_legacy(t);
    pthread_t th;
    pthread_create(&th, NULL, untracked_thread, &n);
    pthread_join(th, NULL);
    sc_hb_submitted(t, SC_HB_LEGACY, NULL);
    ns3 tracked = timed(mutex_pairs, &bench_m, n, 1);
    ns3 steps_before = timed(step_pairs, NULL, n / 32 + 1, 32);   /* sites cached, clock unchanged */
    ns3 steps = timed(step_pairs, t, n / 32 + 1, 32);
    printf("ns per pthread_mutex_lock + unlock pair (%ld pairs each; best, median, worst of %d runs):\n", n, RUNS);
    row("libc, not interposed", libc, "");
    row("tracker off (no legacy work yet)", off, "");
    row("tracker on, thread without a clock", other_ns, "");
    row("tracker on, thread that submits", tracked, "");
    row("32 call sites, 8 mutexes", steps_before, "");
    row("the same, a submission each 32", steps, "(each mutex gets the new clock)");
}

/* Legacy-stream launches under --redirect=per-thread --redirect-method=m,
   in a child; prints one line.  The child's _exit writes its report (the
   shim interposes it): into a folder of its own, removed after. */
static void redirected(const char *m, long n)
{
    char dir[4096];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/sc-shim-cost.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("STREAMCHECK_REDIRECT", "per-thread", 1);
        setenv("STREAMCHECK_REDIRECT_METHOD", m, 1);
        setenv("STREAMCHECK_OUTPUT", dir, 1);
        fake_install();
        cuInit(0);
        launches(NULL, 1000);
        char label[64];
        snprintf(label, sizeof label, "legacy stream, redirected (%s)", m);
        row(label, per_call(NULL, n), "");
        fflush(stdout);
        _exit(0);
    }
    if (pid > 0)
        waitpid(pid, NULL, 0);
    sc_remove_dir(dir);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 2000000;
    setenv("STREAMCHECK_FORMAT", "json", 1);
    printf("ns per call through the shim (fake driver, %ld calls each, thread CPU time; best, median, worst "
           "of %d runs):\n", n, RUNS);
    for (const char *m = "stream"; m; m = !strcmp(m, "stream") ? "entry" : !strcmp(m, "entry") ? "handle" : NULL)
        redirected(m, n);
    fake_install();
    cuInit(0);
    launches(NULL, 1000);   /* warm: call site registered, caches filled */
    ns3 legacy_alone = per_call(NULL, n);
    CUstream s = NULL;
    for (int i = 0; i < 128; i++) {   /* PyTorch's pool streams */
        CUstream p;
        cuStreamCreate(&p, CU_STREAM_NON_BLOCKING);
        if (!s)
            s = p;
    }
    ns3 created = per_call(s, n);
    ns3 graph = timed(graph_launches, s, n, 1);
    long nw = n / 20 + 1 < 40000 ? n / 20 + 1 : 40000;
    ns3 watched = timed(watched_graph_launches, s, nw, 1);
    CUstream cs;
    cuStreamCreate(&cs, CU_STREAM_NON_BLOCKING);
    launches(cs, 1);   /* its first kernel looked at */
    ns3 captured = timed(captured_launches, cs, n, 1);
    ns3 capture = timed(capture_pairs, cs, n / 20 + 1, 1);
    sc_d.EventCreate(&ev, CU_EVENT_DISABLE_TIMING);   /* not intercepted: the fake's own */
    cuStreamCreate(&evs[1], CU_STREAM_NON_BLOCKING);
    ns3 events = timed(event_pairs, cs, nw / 2, 1);   /* under the run log's bound, as above */
    sc_d.StreamSynchronize = counting_sync;
    long copies = n / 100 + 1;
    ns3 pageable_ns = timed(pageable_copies, s, copies, 1);
    char syncs[96];
    snprintf(syncs, sizeof syncs, "(SC203; %.3f of the shim's own stream syncs per copy)",
             (double)shim_syncs / ((double)RUNS * copies));
    readback = malloc(16 << 20);
    if (readback)
        memset(readback, 1, 16 << 20);
    ns3 readback_ns = readback ? timed(readback_copies, s, copies, 1) : (ns3){0};
    libc_munmap = (munmap_fn)dlsym(RTLD_NEXT, "munmap");
    ns3 map_shim = timed(map_pairs, NULL, n / 20 + 1, 1);
    ns3 map_libc = libc_munmap ? timed(map_pairs, (void *)1, n / 20 + 1, 1) : (ns3){0};
    int q0 = fake.queries, c0 = fake.ctx_queries;
    ns3 legacy_pytorch = per_call(NULL, n);
    int q1 = fake.queries, c1 = fake.ctx_queries;
    char pytorch[128];
    snprintf(pytorch, sizeof pytorch, "(SC101 note; %.4f stream queries, %.4f context lookups per call)",
             (double)(q1 - q0) / ((double)RUNS * n), (double)(c1 - c0) / ((double)RUNS * n));
    CUstream b;
    cuStreamCreate(&b, 0);
    ns3 legacy_blocking = per_call(NULL, n / 100 + 1);   /* every call walks its stack */
    atomic_store(&sc_g.mode, SC_MODE_DISABLED);
    ns3 disabled = per_call(s, n);
    row("created stream (fast path)", created, "");
    row("graph launch, created stream", graph, "");
    row("graph launch after a wait (recorded)", watched, "");
    row("launch into a capturing stream", captured, "");
    row("capture begun and ended (a pair)", capture, "");
    row("event recorded and waited for (a pair)", events,
        sc_rl_events ? "(events' orders recorded: measured mode)" : "(events' orders not recorded: detect mode)");
    row("pageable copy, created stream", pageable_ns, syncs);
    row("pageable copy to the host, 16 MiB written before", readback_ns, "(SC203; its pages asked of mincore)");
    row("mmap + munmap of 64 KiB, the shim's munmap", map_shim, "");
    row("mmap + munmap of 64 KiB, libc's munmap", map_libc, "");
    row("legacy stream, no other stream", legacy_alone, "(SC101 note)");
    row("legacy stream, 128 non-blocking streams (PyTorch)", legacy_pytorch, pytorch);
    row("legacy stream, a blocking stream", legacy_blocking, "(SC101 warning)");
    row("disabled (pass-through)", disabled, "");
    fflush(stdout);
    hb_cost(n);
    return 0;
}
