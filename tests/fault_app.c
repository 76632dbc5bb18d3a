/* fault_app.c: a CUDA program that ends in the ways jobs end, for
 * tests/faults.sh.
 *   fault_app MODE [ARG]
 * Every mode first makes a known finding: an asynchronous copy from
 * pageable memory on a created stream (SC203, a warning), then:
 *   wait [handler|early|signal|keep|busy]  prints "ready PID" and loops making
 *                 CUDA calls until a signal ends it (90 s at most, then exit
 *                 3).  handler: a handler of its own, installed with
 *                 sigaction after CUDA started, for SIGTERM, SIGINT,
 *                 SIGHUP, SIGQUIT and SIGXCPU, makes the loop end and the
 *                 program exit with 100 + the signal; early: the same,
 *                 installed before any CUDA call (before the shim starts);
 *                 signal: with signal() after CUDA started; keep: the
 *                 handler takes the signal and the loop goes on; busy: no
 *                 handler, the loop inside CUDA calls nearly all the time
 *   abort         calls abort()
 *   segv          writes through a null pointer
 *   exec          execs /bin/sh -c 'exit 7'
 *   _exit         _exit(9)
 *   threads N     N threads each inside a CUDA call (a stream
 *                 synchronization waiting for a host function that sleeps
 *                 20 s), then exit(0) from main
 *   stderr FILE   closes fd 2, opens FILE for its results (it gets fd 2,
 *                 as in a daemon), writes them there, exits 0
 *   churn N       N times: a stream created, a memset queued on it, the
 *                 stream destroyed at once (its memset still queued):
 *                 the GPU sampler must never ask about a destroyed one
 *   quiet         nothing more (fd 2 may be closed by the caller)
 */
#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define N (1 << 20)

static volatile sig_atomic_t got;

static void on_signal(int sig)
{
    got = sig;
}

static const int requests[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGXCPU};

static void install(int with_signal)
{
    for (size_t i = 0; i < sizeof requests / sizeof requests[0]; i++) {
        if (with_signal) {
            signal(requests[i], on_signal);
            continue;
        }
        struct sigaction a;
        memset(&a, 0, sizeof a);
        a.sa_handler = on_signal;
        sigemptyset(&a.sa_mask);
        sigaction(requests[i], &a, NULL);
    }
}

/* The finding every mode makes: SC203 (the sync after finds its copies done: none). */
static int hazard(void)
{
    float *host = calloc(N, sizeof(float)), *dev = NULL;
    cudaStream_t s;
    if (!host || cudaMalloc((void **)&dev, N * sizeof(float)) != cudaSuccess ||
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess)
        return -1;
    for (int i = 0; i < 3; i++)
        cudaMemcpyAsync(dev, host, N * sizeof(float), cudaMemcpyHostToDevice, s);
    cudaStreamSynchronize(s);
    return 0;
}

static int wait_for_signal(const char *how)
{
    int keep = how && !strcmp(how, "keep");
    if (how && (!strcmp(how, "handler") || keep))
        install(0);
    else if (how && !strcmp(how, "signal"))
        install(1);
    printf("ready %ld\n", (long)getpid());
    fflush(stdout);
    int busy = how && !strcmp(how, "busy");
    for (int i = 0; i < 9000 && (keep || !got); i++) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        cudaStreamQuery(0);
        for (int k = 0; busy && k < 100000; k++)   /* inside the driver most of the time */
            cudaStreamQuery(0);
        nanosleep(&ts, NULL);
    }
    return got ? 100 + got : 3;
}

static void CUDART_CB sleepy(void *arg)
{
    (void)arg;
    sleep(20);
}

static void *inside_cuda(void *arg)
{
    cudaStream_t s;
    (void)arg;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess)
        return NULL;
    cudaLaunchHostFunc(s, sleepy, NULL);
    cudaStreamSynchronize(s);
    return NULL;
}

static int threads_in_cuda(int n)
{
    pthread_t th;
    for (int i = 0; i < n; i++)
        if (pthread_create(&th, NULL, inside_cuda, NULL))
            return 2;
    struct timespec ts = {0, 300 * 1000 * 1000};   /* they are all in cudaStreamSynchronize */
    nanosleep(&ts, NULL);
    printf("exiting\n");
    fflush(stdout);
    exit(0);
}

static int results_on_fd2(const char *file)
{
    close(2);
    int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd != 2)
        return 2;
    for (int i = 0; i < 3; i++)
        dprintf(2, "result %d\n", i);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "quiet", *arg = argc > 2 ? argv[2] : NULL;
    /* SIGINT and SIGQUIT as a program started from a terminal has them (sh
       starts a background job with both ignored). */
    signal(SIGINT, SIG_DFL);
    signal(SIGQUIT, SIG_DFL);
    if (!strcmp(mode, "wait") && arg && !strcmp(arg, "early"))
        install(0);
    if (!strcmp(mode, "exit7"))
        return 7;   /* what "exec" runs */
    if (hazard())
        return 2;
    if (!strcmp(mode, "wait"))
        return wait_for_signal(arg);
    if (!strcmp(mode, "abort"))
        abort();
    if (!strcmp(mode, "churn")) {   /* each memset its own 4 KiB: the streams run at once */
        int n = arg && atoi(arg) > 0 ? atoi(arg) : 1000;
        char *d = NULL;
        if (cudaMalloc((void **)&d, (size_t)n << 12) != cudaSuccess)
            return 2;
        for (int i = 0; i < n; i++) {
            cudaStream_t s;
            if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess ||
                cudaMemsetAsync(d + ((size_t)i << 12), i & 0xff, 1 << 12, s) != cudaSuccess ||
                cudaStreamDestroy(s) != cudaSuccess)
                return 3;
        }
        return cudaDeviceSynchronize() == cudaSuccess ? 0 : 4;
    }
    if (!strcmp(mode, "segv")) {
        /* A store to a page with no access: a real fault, which UBSan's
         * null-pointer check (a sanitized build) cannot turn into its own
         * exit first. */
        volatile int *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED)
            *p = 1;
        return 0;
    }
    if (!strcmp(mode, "exec")) {
        /* Itself, not a shell: a sanitized build's runtime stays preloaded
         * across the exec, and an uninstrumented shell crashes under
         * ThreadSanitizer's. */
        execl("/proc/self/exe", argv[0], "exit7", (char *)NULL);
        return 2;
    }
    if (!strcmp(mode, "_exit"))
        _exit(9);
    if (!strcmp(mode, "threads"))
        return threads_in_cuda(arg ? atoi(arg) : 30);
    if (!strcmp(mode, "stderr"))
        return arg ? results_on_fd2(arg) : 2;
    return 0;
}
