// multithread_default_stream: T host threads, each with its own data, all
// on the legacy default stream, so they serialize (SC101 notes, SC103).
//
// Built twice: as is, and with nvcc --default-stream per-thread
// (multithread_default_stream_pt), the recompile that lets the threads
// overlap.  streamcheck --redirect=per-thread should give the first build
// the speed of the second without recompiling, and the same checksum.
//
//   multithread_default_stream [THREADS [SPIN_MS [KERNELS [MIX]]]]
// With MIX 1 each round also queues what a framework's step queues beside
// its launches on the legacy stream: a memset of a scratch buffer, an event
// record and a wait on that event (the checksum is the same).
// The checksum goes to stdout; the elapsed time to stderr
// ("elapsed_ms=..."), so outputs compare byte for byte.
#include <pthread.h>
#include <time.h>

#include "common.h"

#define SLICE (1 << 14)
#define MAX_THREADS 64

static int threads = 4, kernels = 10, mix;
static unsigned long long spin_ns = MS(5);
static float *d, *h;

static void *worker(void *arg)
{
    int i = (int)(long)arg;
    float *ds = d + (size_t)i * SLICE, *scratch = NULL;
    cudaEvent_t ev = NULL;
    if (mix) {
        CHECK(cudaMalloc(&scratch, 256));
        CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    }
    sc_fill<<<16, 256>>>(ds, SLICE, 1.0f + (float)i); // expect: SC101 x4, SC103 x4
    for (int k = 0; k < kernels; k++) {
        sc_spin<<<1, 1>>>(spin_ns); // expect: SC101 x40, SC103 x40
        sc_saxpy<<<16, 256>>>(SLICE, 0.5f, ds, ds); // expect: SC101 x40, SC103 x40
        if (mix) {
            CHECK(cudaMemsetAsync(scratch, 0, 256, 0));
            CHECK(cudaEventRecord(ev, 0));
            CHECK(cudaStreamWaitEvent(0, ev, 0));
        }
    }
    LAUNCHED();
    CHECK(cudaMemcpyAsync(h + (size_t)i * SLICE, ds, SLICE * sizeof(float), cudaMemcpyDeviceToHost, 0)); // expect: SC101 x4, SC103 x4
    CHECK(cudaStreamSynchronize(0));
    if (mix) {
        CHECK(cudaEventDestroy(ev));
        CHECK(cudaFree(scratch));
    }
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
    if (argc > 1)
        threads = atoi(argv[1]);
    if (argc > 2)
        spin_ns = MS(atoi(argv[2]));
    if (argc > 3)
        kernels = atoi(argv[3]);
    if (argc > 4)
        mix = atoi(argv[4]);
    if (threads < 1 || threads > MAX_THREADS || kernels < 1 || (mix != 0 && mix != 1)) {
        fprintf(stderr, "usage: %s [THREADS(1-%d) [SPIN_MS [KERNELS [MIX(0|1)]]]]\n", argv[0], MAX_THREADS);
        return 2;
    }
    pthread_t th[MAX_THREADS];
    CHECK(cudaMallocHost(&h, (size_t)threads * SLICE * sizeof(float)));
    CHECK(cudaMalloc(&d, (size_t)threads * SLICE * sizeof(float)));
    /* Warm up the context and the kernels outside the timed region (before
       the threads exist: it shares the legacy stream with nobody). */
    sc_spin<<<1, 1>>>(MS(20)); // expect: SC101 x1
    CHECK(cudaStreamSynchronize(0));

    double t0 = now_ms();
    for (long i = 0; i < threads; i++)
        pthread_create(&th[i], NULL, worker, (void *)i);
    for (int i = 0; i < threads; i++)
        pthread_join(th[i], NULL);
    double t1 = now_ms();

    printf("multithread_default_stream: %d threads, checksum %.6f\n", threads,
           checksum(h, threads * SLICE));
    fprintf(stderr, "elapsed_ms=%.3f\n", t1 - t0);
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    return 0;
}
