/* shim_cost.c: the shim's own cost per intercepted call, measured against
 * the fake driver of the unit tests (whose launch does nothing), so what is
 * timed is streamcheck alone.  Not a test: a benchmark (make bench).
 *   shim_cost [CALLS]
 * Redirected launches are timed in a child process per method (the options
 * are read once, at the first call).
 * Each case is the best of three runs of CALLS calls (thread CPU time).
 * The PyTorch case: every launch goes to the legacy stream while the
 * program's 128 pool streams (non-blocking, idle) exist.  CUDA graphs: a
 * graph launch, a launch recorded into a capturing stream, and a capture
 * begun and ended (cudaGraphsPerfScaling's API times).  A pageable copy:
 * SC203's slow path, with the waits for its stream the shim adds
 * (dispatch.c) counted per copy.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <dlfcn.h>
#include <pthread.h>

#include "../tests/unit/fake_driver.h"
#include "core.h"
#include "hb.h"
#include "real.h"

/* CPU time of the calling thread: a loaded machine does not inflate it. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ns per call of body(s, n), which makes n calls: the best of three. */
static double best_of3(void (*body)(CUstream, long), CUstream s, long n)
{
    double best = 1e9;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = cpu_now();
        body(s, n);
        double d = (cpu_now() - t0) / n * 1e9;
        if (d < best)
            best = d;
    }
    return best;
}

static void launches(CUstream s, long n)
{
    for (long i = 0; i < n; i++)
        cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL);
}

static double per_call(CUstream s, long n)
{
    return best_of3(launches, s, n);
}

static void graph_launches(CUstream s, long n)
{
    for (long i = 0; i < n; i++)
        cuGraphLaunch(NULL, s);
}

/* Launches recorded into s while it captures (the capture's ends outside
   the timing's share: one pair per n launches). */
static void captured_launches(CUstream s, long n)
{
    CUgraph g;
    cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL);
    launches(s, n);
    cuStreamEndCapture(s, &g);
}

/* n / 2 captures begun and ended: ns per call. */
static void capture_pairs(CUstream s, long n)
{
    CUgraph g;
    for (long i = 0; i < n / 2; i++) {
        cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL);
        cuStreamEndCapture(s, &g);
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

static void pageable_copies(CUstream s, long n)
{
    for (long i = 0; i < n; i++)
        cuMemcpyHtoDAsync((CUdeviceptr)0x1000, pageable, sizeof pageable, s);
}

/* ns per pthread_mutex_lock + unlock pair of the program (this one holds
   the shim, so its calls go through the interposers). */
static double mutex_pair(pthread_mutex_t *m, long n)
{
    double t0 = cpu_now();
    for (long i = 0; i < n; i++) {
        pthread_mutex_lock(m);
        pthread_mutex_unlock(m);
    }
    return (cpu_now() - t0) / n * 1e9;
}

static pthread_mutex_t bench_m = PTHREAD_MUTEX_INITIALIZER;
static double other_ns;
static void *untracked_thread(void *arg)
{
    other_ns = mutex_pair(&bench_m, *(long *)arg);
    return NULL;
}

/* A PyTorch step between two launches: a submission, then lock and unlock
   pairs of the program's mutexes at as many call sites of its own (32, as a
   libtorch step has; a call site's address is what the tracker's caller
   cache is keyed by).  ns per pair, the submission's share included. */
static pthread_mutex_t site_m[8] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                    PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                    PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                    PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER};
#define PAIR(j) do { pthread_mutex_lock(&site_m[(j) & 7]); pthread_mutex_unlock(&site_m[(j) & 7]); } while (0)
#define PAIR4(j) PAIR(j); PAIR((j) + 1); PAIR((j) + 2); PAIR((j) + 3)
#define PAIR16(j) PAIR4(j); PAIR4((j) + 4); PAIR4((j) + 8); PAIR4((j) + 12)
static double step_pairs(sc_thread *t, long n)
{
    long rounds = n / 32 + 1;
    double t0 = cpu_now();
    for (long i = 0; i < rounds; i++) {
        if (t)
            sc_hb_submitted(t, SC_HB_LEGACY, NULL);
        PAIR16(0);
        PAIR16(16);
    }
    return (cpu_now() - t0) / (rounds * 32) * 1e9;
}

/* The tracker's cost on the calls PyTorch makes around every allocation:
   off (no legacy work yet), on for a thread with no clock, on for a thread
   that submits legacy work (its clock goes into the mutex each time). */
static void hb_cost(long n)
{
    typedef int (*fn)(pthread_mutex_t *);
    fn lock = (fn)dlsym(RTLD_NEXT, "pthread_mutex_lock"), unlock = (fn)dlsym(RTLD_NEXT, "pthread_mutex_unlock");
    double t0 = cpu_now();
    for (long i = 0; i < n; i++) {
        lock(&bench_m);
        unlock(&bench_m);
    }
    double libc = (cpu_now() - t0) / n * 1e9;
    double off = mutex_pair(&bench_m, n);
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
    double tracked = mutex_pair(&bench_m, n);
    double steps_before = step_pairs(NULL, n);   /* sites cached, clock unchanged */
    double steps = step_pairs(t, n);
    printf("ns per pthread_mutex_lock + unlock pair (%ld pairs each, thread CPU time):\n", n);
    printf("  libc, not interposed                %7.1f\n", libc);
    printf("  tracker off (no legacy work yet)    %7.1f\n", off);
    printf("  tracker on, thread without a clock  %7.1f\n", other_ns);
    printf("  tracker on, thread that submits     %7.1f\n", tracked);
    printf("  32 call sites, 8 mutexes            %7.1f\n", steps_before);
    printf("  the same, a submission each 32      %7.1f  (each mutex gets the new clock)\n", steps);
}

/* Legacy-stream launches under --redirect=per-thread --redirect-method=m,
   in a child; prints one line. */
static void redirected(const char *m, long n)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("STREAMCHECK_REDIRECT", "per-thread", 1);
        setenv("STREAMCHECK_REDIRECT_METHOD", m, 1);
        setenv("STREAMCHECK_OUTPUT", "/dev/null", 1);
        fake_install();
        cuInit(0);
        per_call(NULL, 1000);
        double ns = per_call(NULL, n);
        printf("  legacy stream, redirected (%s)%*s %7.1f\n", m, (int)(6 - strlen(m)), "", ns);
        fflush(stdout);
        _exit(0);
    }
    if (pid > 0)
        waitpid(pid, NULL, 0);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 2000000;
    setenv("STREAMCHECK_FORMAT", "json", 1);
    printf("ns per cuLaunchKernel through the shim (fake driver, %ld calls each, thread CPU time):\n", n);
    for (const char *m = "stream"; m; m = !strcmp(m, "stream") ? "entry" : !strcmp(m, "entry") ? "handle" : NULL)
        redirected(m, n);
    fake_install();
    cuInit(0);
    per_call(NULL, 1000);   /* warm: call site registered, caches filled */
    double legacy_alone = per_call(NULL, n);
    CUstream s = NULL;
    for (int i = 0; i < 128; i++) {   /* PyTorch's pool streams */
        CUstream p;
        cuStreamCreate(&p, CU_STREAM_NON_BLOCKING);
        if (!s)
            s = p;
    }
    double created = per_call(s, n);
    double graph = best_of3(graph_launches, s, n);
    CUstream cs;
    cuStreamCreate(&cs, CU_STREAM_NON_BLOCKING);
    launches(cs, 1);   /* its first kernel looked at */
    double captured = best_of3(captured_launches, cs, n);
    double capture = best_of3(capture_pairs, cs, n / 10 + 2) * 2;
    sc_d.StreamSynchronize = counting_sync;
    long copies = n / 100 + 1;
    double pageable_ns = best_of3(pageable_copies, s, copies);
    double syncs = (double)shim_syncs / (3.0 * copies);
    int q0 = fake.queries, c0 = fake.ctx_queries;
    double legacy_pytorch = per_call(NULL, n);
    int q1 = fake.queries, c1 = fake.ctx_queries;
    CUstream b;
    cuStreamCreate(&b, 0);
    double legacy_blocking = per_call(NULL, n / 100 + 1);   /* every call walks its stack */
    atomic_store(&sc_g.mode, SC_MODE_DISABLED);
    double disabled = per_call(s, n);
    printf("  created stream (fast path)                          %7.1f\n", created);
    printf("  graph launch, created stream                        %7.1f\n", graph);
    printf("  launch into a capturing stream                      %7.1f\n", captured);
    printf("  capture begun and ended (a pair)                    %7.1f\n", capture);
    printf("  pageable copy, created stream                       %7.1f  (SC203; %.3f of the shim's own "
           "stream syncs per copy)\n", pageable_ns, syncs);
    printf("  legacy stream, no other stream                      %7.1f  (SC101 note)\n", legacy_alone);
    printf("  legacy stream, 128 non-blocking streams (PyTorch)   %7.1f  (SC101 note; %.4f stream queries, "
           "%.4f context lookups per call)\n", legacy_pytorch, (double)(q1 - q0) / (3.0 * n),
           (double)(c1 - c0) / (3.0 * n));
    printf("  legacy stream, a blocking stream                    %7.1f  (SC101 warning)\n", legacy_blocking);
    printf("  disabled (pass-through)                             %7.1f\n", disabled);
    fflush(stdout);
    hb_cost(n);
    return 0;
}
