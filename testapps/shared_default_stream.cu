// shared_default_stream: SC103 shared-default-stream-threads.
//
// Four host threads each work on their own slice, but all of them submit to
// the one legacy stream at the same time, so their kernels run one thread
// after another (CUDA C++ Programming Guide, Default Stream).  No other
// stream exists, so the legacy-stream launches themselves are SC101 notes.
// The main thread's work after joining the threads shares the stream with
// nobody: it is ordered after theirs by the joins (no SC103 there; threads
// taking turns: turn_taking.cu).
// Fixed twin: shared_default_stream_fixed.cu.
#include <pthread.h>

#include "common.h"

#define THREADS 4
#define K 5
#define SLICE (1 << 14)

static float *x, *y;

static void *worker(void *arg)
{
    int i = (int)(long)arg;
    float *xs = x + i * SLICE, *ys = y + i * SLICE;
    sc_fill<<<16, 256>>>(xs, SLICE, 1.0f + i); // expect: SC101 x4, SC103 x4
    sc_fill<<<16, 256>>>(ys, SLICE, 0.5f); // expect: SC101 x4, SC103 x4
    for (int k = 0; k < K; k++)
        sc_saxpy<<<16, 256>>>(SLICE, 1.5f, xs, ys); // expect: SC101 x20, SC103 x20
    LAUNCHED();
    return NULL;
}

int main(void)
{
    float *h;
    pthread_t th[THREADS];
    CHECK(cudaMallocHost(&h, THREADS * SLICE * sizeof(float)));
    CHECK(cudaMalloc(&x, THREADS * SLICE * sizeof(float)));
    CHECK(cudaMalloc(&y, THREADS * SLICE * sizeof(float)));
    for (long i = 0; i < THREADS; i++)
        pthread_create(&th[i], NULL, worker, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    sc_spin<<<1, 1>>>(HOLD); // expect: SC101 x1
    LAUNCHED();
    CHECK(cudaMemcpyAsync(h, y, THREADS * SLICE * sizeof(float), cudaMemcpyDeviceToHost, 0)); // expect: SC101 x1
    CHECK(cudaStreamSynchronize(0));
    printf("shared_default_stream: checksum %.6f\n", checksum(h, THREADS * SLICE));
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    CHECK(cudaFreeHost(h));
    return 0;
}
