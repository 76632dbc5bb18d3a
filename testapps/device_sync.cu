// device_sync: SC401 device-synchronize.
//
// The host needs one stream's result but waits for the whole device; with
// only one stream busy, cudaStreamSynchronize would have waited for exactly
// the same work (CUDA Runtime API, cudaDeviceSynchronize).  Fixed twin:
// device_sync_fixed.cu.
#include "common.h"

#define N (1 << 16)

int main(void)
{
    float *h, *d;
    cudaStream_t s, t;
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking));
    sc_fill<<<64, 256, 0, s>>>(d, N, 1.0f);
    for (int i = 0; i < 3; i++) {
        sc_saxpy<<<64, 256, 0, s>>>(N, 1.0f, d, d);
        sc_spin<<<1, 1, 0, s>>>(MS(10));
        LAUNCHED();
        CHECK(cudaDeviceSynchronize()); // expect: SC401 x3
    }
    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    CHECK(cudaMemcpyAsync(h, d, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    printf("device_sync: checksum %.6f\n", checksum(h, N));

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaStreamDestroy(t));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    return 0;
}
