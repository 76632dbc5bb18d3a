// redundant_sync: SC402 redundant-sync.
//
// Synchronizations that find nothing left to wait for: the work they would
// wait for was already waited for (CUDA Runtime API, cudaStreamSynchronize,
// cudaEventSynchronize, cudaDeviceSynchronize).  Fixed twin:
// redundant_sync_fixed.cu.
#include "common.h"

#define N (1 << 16)

int main(void)
{
    float *h, *d;
    cudaStream_t s;
    cudaEvent_t done;
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));

    sc_fill<<<64, 256, 0, s>>>(d, N, 3.0f);
    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    CHECK(cudaMemcpyAsync(h, d, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaEventRecord(done, s));
    CHECK(cudaEventSynchronize(done));
    CHECK(cudaEventSynchronize(done)); // expect: SC402 x1
    CHECK(cudaStreamSynchronize(s)); // expect: SC402 x1
    CHECK(cudaDeviceSynchronize()); // expect: SC402 x1
    printf("redundant_sync: checksum %.6f\n", checksum(h, N));

    CHECK(cudaEventDestroy(done));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    return 0;
}
