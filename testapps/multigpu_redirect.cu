// multigpu_redirect: redirect_mixed on two devices.  Host thread i works on
// device i % 2 with its own slice there: it hands its data back and forth
// between the device's legacy stream and its per-thread stream
// (cudaStreamPerThread), then reads it back with a synchronous copy.
//
// The legacy stream and the per-thread stream of a device order each other
// implicitly (CUDA Runtime API, "Stream synchronization behavior"); under
// streamcheck --redirect=per-thread the legacy work moves to the thread's
// per-thread stream of the same device (each context has its own), and
// every method must keep that order: the app checks its own results and
// exits 1 on a mismatch.  Run by tests/multigpu.sh (plain and under each
// redirect method, on the simulator with two devices); needs two devices
// (exit 77 with one).
//
//   multigpu_redirect [THREADS [ROUNDS [SPIN_MS]]]
#include <pthread.h>

#include "common.h"

#define SLICE (1 << 14)
#define MAX_THREADS 64

static int threads = 4, rounds = 3;
static unsigned long long spin_ns = MS(2);
static float *dx[2], *dy[2], *h;

static void *worker(void *arg)
{
    int i = (int)(long)arg, dev = i % 2, slot = i / 2;
    CHECK(cudaSetDevice(dev));
    float *x = dx[dev] + (size_t)slot * SLICE, *y = dy[dev] + (size_t)slot * SLICE;
    sc_fill<<<16, 256>>>(y, SLICE, 0.0f);
    for (int r = 0; r < rounds; r++) {
        sc_spin<<<1, 1>>>(spin_ns);
        sc_fill<<<16, 256>>>(x, SLICE, (float)(1 + r + i));
        sc_saxpy<<<16, 256, 0, cudaStreamPerThread>>>(SLICE, 1.0f, x, y);
        sc_spin<<<1, 1, 0, cudaStreamPerThread>>>(spin_ns);
        sc_fill<<<16, 256, 0, cudaStreamPerThread>>>(x, SLICE, (float)(100 + r));
        sc_saxpy<<<16, 256>>>(SLICE, 0.5f, x, y);
    }
    LAUNCHED();
    sc_spin<<<1, 1, 0, cudaStreamPerThread>>>(spin_ns);
    sc_fill<<<16, 256, 0, cudaStreamPerThread>>>(x, SLICE, 1000.0f);
    sc_saxpy<<<16, 256>>>(SLICE, 1.0f, x, y);
    CHECK(cudaMemcpy(h + (size_t)i * SLICE, y, SLICE * sizeof(float), cudaMemcpyDeviceToHost));
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        threads = atoi(argv[1]);
    if (argc > 2)
        rounds = atoi(argv[2]);
    if (argc > 3)
        spin_ns = MS(atoi(argv[3]));
    if (threads < 2 || threads > MAX_THREADS || rounds < 1 || rounds > 1000) {
        fprintf(stderr, "usage: %s [THREADS(2-%d) [ROUNDS(1-1000) [SPIN_MS]]]\n", argv[0], MAX_THREADS);
        return 2;
    }
    need_devices(2);
    pthread_t th[MAX_THREADS];
    CHECK(cudaMallocHost(&h, (size_t)threads * SLICE * sizeof(float)));
    size_t per = (size_t)(threads + 1) / 2 * SLICE * sizeof(float);
    for (int d = 0; d < 2; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaMalloc(&dx[d], per));
        CHECK(cudaMalloc(&dy[d], per));
    }
    for (long i = 0; i < threads; i++)
        pthread_create(&th[i], NULL, worker, (void *)i);
    for (int i = 0; i < threads; i++)
        pthread_join(th[i], NULL);

    int bad = 0;
    for (int i = 0; i < threads && !bad; i++) {
        float want = 1000.0f;
        for (int r = 0; r < rounds; r++)
            want += (float)(1 + r + i) + 0.5f * (float)(100 + r);
        for (int k = 0; k < SLICE; k++)
            if (h[(size_t)i * SLICE + k] != want) {
                fprintf(stderr, "multigpu_redirect: thread %d element %d is %g, not %g: the streams lost their order\n",
                        i, k, (double)h[(size_t)i * SLICE + k], (double)want);
                bad = 1;
                break;
            }
    }
    printf("multigpu_redirect: %d threads on 2 devices, %d rounds, checksum %.6f%s\n", threads, rounds,
           checksum(h, threads * SLICE), bad ? " WRONG" : "");
    for (int d = 0; d < 2; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaFree(dx[d]));
        CHECK(cudaFree(dy[d]));
    }
    CHECK(cudaFreeHost(h));
    return bad;
}
