// sync_memset: SC202 sync-memset.
//
// A device memory set on the legacy stream (cudaMemset, or cudaMemsetAsync
// on stream 0) keeps commands of other streams from overlapping it (CUDA C++
// Programming Guide, Implicit Synchronization) that the legacy stream orders
// with: blocking streams, like the one here (Driver API, Stream
// synchronization behavior; a stream created cudaStreamNonBlocking would not
// wait).  Fixed twin: sync_memset_fixed.cu.
#include "common.h"

#define N (1 << 20)

int main(void)
{
    float *h, *a, *b;
    cudaStream_t s;
    cudaEvent_t cleared;
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    CHECK(cudaMalloc(&a, N * sizeof(float)));
    CHECK(cudaMalloc(&b, N * sizeof(float)));
    CHECK(cudaStreamCreate(&s)); // expect: SC102 x3
    CHECK(cudaEventCreateWithFlags(&cleared, cudaEventDisableTiming));

    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    CHECK(cudaMemset(a, 0, N * sizeof(float))); // expect: SC202 x1
    CHECK(cudaMemsetAsync(b, 0, N * sizeof(float), 0)); // expect: SC202 x1
    CHECK(cudaEventRecord(cleared, 0)); // expect: SC101 x1
    CHECK(cudaStreamWaitEvent(s, cleared, 0));
    sc_fill<<<256, 256, 0, s>>>(a, N, 2.0f);
    sc_saxpy<<<256, 256, 0, s>>>(N, 3.0f, a, b);
    LAUNCHED();
    CHECK(cudaMemcpyAsync(h, b, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    printf("sync_memset: checksum %.6f\n", checksum(h, N));

    CHECK(cudaEventDestroy(cleared));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFreeHost(h));
    return 0;
}
