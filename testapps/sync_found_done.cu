// sync_found_done: a loop that queues a short kernel, lets the host work
// past its end, then synchronizes the stream before it reads the result, as
// NVIDIA's jacobiCudaGraphs waits for each small graph before it reads the
// sum the graph copied back.  The work was queued since the last wait and
// merely finished before the call: the program needs the synchronization
// to know that, so it is no SC402 ("nothing to wait for"), and it waited
// for no GPU work, so it is no SC403 either.  The wait at the end, with
// nothing queued since the loop's last one, is SC402.
#include <time.h>

#include "common.h"

#define STEPS 20

int main(void)
{
    float *h, *d;
    cudaStream_t s;
    CHECK(cudaMallocHost(&h, sizeof(float)));
    CHECK(cudaMalloc(&d, sizeof(float)));
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float sum = 0;
    for (int i = 0; i < STEPS; i++) {
        sc_fill<<<1, 1, 0, s>>>(d, 1, (float)i);
        LAUNCHED();
        CHECK(cudaMemcpyAsync(h, d, sizeof(float), cudaMemcpyDeviceToHost, s));
        struct timespec ts = {0, 5 * 1000 * 1000};   // the host's work: the GPU is done long before
        nanosleep(&ts, NULL);
        CHECK(cudaStreamSynchronize(s));
        sum += *h;
    }
    CHECK(cudaStreamSynchronize(s)); // expect: SC402 x1
    printf("sync_found_done: sum %.1f\n", sum);

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    return 0;
}
