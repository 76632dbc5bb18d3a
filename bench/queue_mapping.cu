// queue_mapping: how streams land on the GPU's hardware queues.
//
// T host threads each run K spin kernels of SPIN_MS on "their" stream; the
// ideal time is K*SPIN_MS when every stream has a queue of its own, and
// ceil(T/queues)*K*SPIN_MS when they must share.  Which stream a thread
// uses decides how the driver spreads them over CUDA_DEVICE_MAX_CONNECTIONS
// queues; this measures it, to choose what --redirect=per-thread sends
// legacy-stream work to.
//
//   queue_mapping MODE THREADS [SPIN_MS [KERNELS [POOL]]]
//   MODE: ptds      the per-thread default stream (what --default-stream
//                   per-thread and redirect by entry point or handle give)
//         lazy      a blocking stream each thread creates for itself
//         upfront   blocking streams created together before the threads
//         pool      POOL (default 8) blocking streams created together,
//                   thread i uses stream i % POOL
// Prints elapsed_ms (and the mode) on stdout.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <pthread.h>
#include <ctime>

#include "sc_kernels.cuh"

static int T = 16, K = 10, POOL = 8;
static unsigned long long spin_ns = 5000000ull;
static const char *mode;
static cudaStream_t streams[64];

static void *worker(void *arg)
{
    long i = (long)arg;
    cudaStream_t s;
    if (!strcmp(mode, "ptds"))
        s = cudaStreamPerThread;
    else if (!strcmp(mode, "lazy")) {
        cudaStreamCreate(&s);
    } else if (!strcmp(mode, "pool"))
        s = streams[i % POOL];
    else
        s = streams[i];
    for (int k = 0; k < K; k++)
        sc_spin<<<1, 1, 0, s>>>(spin_ns);
    cudaStreamSynchronize(s);
    return NULL;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s ptds|lazy|upfront|pool THREADS [SPIN_MS [KERNELS [POOL]]]\n", argv[0]);
        return 2;
    }
    mode = argv[1];
    T = atoi(argv[2]);
    if (argc > 3) spin_ns = strtoull(argv[3], NULL, 10) * 1000000ull;
    if (argc > 4) K = atoi(argv[4]);
    if (argc > 5) POOL = atoi(argv[5]);
    if (T < 1 || T > 64 || POOL < 1 || POOL > 64)
        return 2;
    sc_spin<<<1, 1>>>(1000);   // context and module
    cudaDeviceSynchronize();
    if (!strcmp(mode, "upfront") || !strcmp(mode, "pool"))
        for (int i = 0; i < (strcmp(mode, "pool") ? T : POOL); i++)
            cudaStreamCreate(&streams[i]);
    pthread_t th[64];
    double t0 = now_ms();
    for (long i = 0; i < T; i++)
        pthread_create(&th[i], NULL, worker, (void *)i);
    for (int i = 0; i < T; i++)
        pthread_join(th[i], NULL);
    printf("elapsed_ms=%.3f mode=%s threads=%d\n", now_ms() - t0, mode, T);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
