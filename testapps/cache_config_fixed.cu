// cache_config_fixed: cache_config.cu setting its preferences once, before
// any work is in flight.
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
    CHECK(cudaDeviceSetCacheConfig(cudaFuncCachePreferShared));
    CHECK(cudaFuncSetCacheConfig(sc_saxpy, cudaFuncCachePreferL1));

    sc_fill<<<64, 256, 0, s>>>(d, N, 1.0f);
    sc_spin<<<1, 1, 0, s>>>(HOLD);
    sc_spin<<<1, 1, 0, t>>>(SPIN);
    sc_saxpy<<<64, 256, 0, s>>>(N, 2.0f, d, d);
    LAUNCHED();
    CHECK(cudaMemcpyAsync(h, d, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    printf("cache_config: checksum %.6f\n", checksum(h, N));

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaStreamDestroy(t));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    return 0;
}
