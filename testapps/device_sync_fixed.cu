// device_sync_fixed: device_sync.cu waiting for the one stream it needs.
//
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
        CHECK(cudaStreamSynchronize(s));
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
