// shared_default_stream_fixed: each thread gets its own non-blocking stream
// and waits for it; nothing goes to the legacy stream.
#include <pthread.h>

#include "common.h"

#define THREADS 4
#define K 5
#define SLICE (1 << 14)

static float *x, *y, *h;

static void *worker(void *arg)
{
    int i = (int)(long)arg;
    float *xs = x + i * SLICE, *ys = y + i * SLICE;
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    sc_fill<<<16, 256, 0, s>>>(xs, SLICE, 1.0f + i);
    sc_fill<<<16, 256, 0, s>>>(ys, SLICE, 0.5f);
    for (int k = 0; k < K; k++)
        sc_saxpy<<<16, 256, 0, s>>>(SLICE, 1.5f, xs, ys);
    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    CHECK(cudaMemcpyAsync(h + i * SLICE, ys, SLICE * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaStreamDestroy(s));
    return NULL;
}

int main(void)
{
    pthread_t th[THREADS];
    CHECK(cudaMallocHost(&h, THREADS * SLICE * sizeof(float)));
    CHECK(cudaMalloc(&x, THREADS * SLICE * sizeof(float)));
    CHECK(cudaMalloc(&y, THREADS * SLICE * sizeof(float)));
    for (long i = 0; i < THREADS; i++)
        pthread_create(&th[i], NULL, worker, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    printf("shared_default_stream: checksum %.6f\n", checksum(h, THREADS * SLICE));
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    CHECK(cudaFreeHost(h));
    return 0;
}
