// redirect_mixed: each host thread hands its data back and forth between
// the legacy default stream and its per-thread default stream
// (cudaStreamPerThread), then reads it back with a synchronous copy.
//
// In a program built as usual (legacy default stream) the two streams
// order each other implicitly: the per-thread stream waits for the legacy
// stream and the other way round (CUDA Runtime API, "Stream
// synchronization behavior").  A spin before every hand-over makes a missing
// order visible: the next kernel would read the data before it is written.
// Under streamcheck --redirect=per-thread the legacy work moves; whatever
// the method, this app must still compute what it expects.  It checks its
// own results and exits 1 on a mismatch.
//
//   redirect_mixed [THREADS [ROUNDS [SPIN_MS]]]
// The checksum goes to stdout; the elapsed time to stderr.
#include <pthread.h>
#include <time.h>

#include "common.h"

#define SLICE (1 << 14)
#define MAX_THREADS 64

static int threads = 4, rounds = 3;
static unsigned long long spin_ns = MS(2);
static float *dx, *dy, *h;

static void *worker(void *arg)
{
    int i = (int)(long)arg;
    float *x = dx + (size_t)i * SLICE, *y = dy + (size_t)i * SLICE;
    sc_fill<<<16, 256>>>(y, SLICE, 0.0f); // expect: SC101 x4, SC103 x4
    for (int r = 0; r < rounds; r++) {
        // legacy -> per-thread: the per-thread saxpy needs the legacy fill.
        sc_spin<<<1, 1>>>(spin_ns); // expect: SC101 x12, SC103 x12
        sc_fill<<<16, 256>>>(x, SLICE, (float)(1 + r + i)); // expect: SC101 x12, SC103 x12
        sc_saxpy<<<16, 256, 0, cudaStreamPerThread>>>(SLICE, 1.0f, x, y);
        // per-thread -> legacy: the legacy saxpy needs the per-thread fill.
        sc_spin<<<1, 1, 0, cudaStreamPerThread>>>(spin_ns);
        sc_fill<<<16, 256, 0, cudaStreamPerThread>>>(x, SLICE, (float)(100 + r));
        sc_saxpy<<<16, 256>>>(SLICE, 0.5f, x, y); // expect: SC101 x12, SC103 x12
    }
    LAUNCHED();
    // Per-thread -> legacy once more, then a synchronous copy on the legacy
    // stream, which must wait for both.
    sc_spin<<<1, 1, 0, cudaStreamPerThread>>>(spin_ns);
    sc_fill<<<16, 256, 0, cudaStreamPerThread>>>(x, SLICE, 1000.0f);
    sc_saxpy<<<16, 256>>>(SLICE, 1.0f, x, y); // expect: SC101 x4, SC103 x4
    CHECK(cudaMemcpy(h + (size_t)i * SLICE, y, SLICE * sizeof(float), cudaMemcpyDeviceToHost)); // expect: SC201 x4, SC103 x4
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
        rounds = atoi(argv[2]);
    if (argc > 3)
        spin_ns = MS(atoi(argv[3]));
    if (threads < 1 || threads > MAX_THREADS || rounds < 1 || rounds > 1000) {
        fprintf(stderr, "usage: %s [THREADS(1-%d) [ROUNDS(1-1000) [SPIN_MS]]]\n", argv[0], MAX_THREADS);
        return 2;
    }
    pthread_t th[MAX_THREADS];
    CHECK(cudaMallocHost(&h, (size_t)threads * SLICE * sizeof(float)));
    CHECK(cudaMalloc(&dx, (size_t)threads * SLICE * sizeof(float)));
    CHECK(cudaMalloc(&dy, (size_t)threads * SLICE * sizeof(float)));

    double t0 = now_ms();
    for (long i = 0; i < threads; i++)
        pthread_create(&th[i], NULL, worker, (void *)i);
    for (int i = 0; i < threads; i++)
        pthread_join(th[i], NULL);
    double t1 = now_ms();

    // What every element of thread i's slice must hold.
    int bad = 0;
    for (int i = 0; i < threads && !bad; i++) {
        float want = 1000.0f;
        for (int r = 0; r < rounds; r++)
            want += (float)(1 + r + i) + 0.5f * (float)(100 + r);
        for (int k = 0; k < SLICE; k++)
            if (h[(size_t)i * SLICE + k] != want) {
                fprintf(stderr, "redirect_mixed: thread %d element %d is %g, not %g: the streams lost their order\n",
                        i, k, (double)h[(size_t)i * SLICE + k], (double)want);
                bad = 1;
                break;
            }
    }
    printf("redirect_mixed: %d threads, %d rounds, checksum %.6f%s\n", threads, rounds,
           checksum(h, threads * SLICE), bad ? " WRONG" : "");
    fprintf(stderr, "elapsed_ms=%.3f\n", t1 - t0);
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy));
    CHECK(cudaFreeHost(h));
    return bad;
}
