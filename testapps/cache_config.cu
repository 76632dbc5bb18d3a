// cache_config: SC501 cache-config-switch.
//
// Switching the L1/shared-memory configuration while a stream has work keeps
// commands issued before and after the switch in different streams from
// overlapping (CUDA C++ Programming Guide, Implicit Synchronization).  The
// streams are blocking, which the legacy stream orders with.  Fixed twin:
// cache_config_fixed.cu.
#include "common.h"

#define N (1 << 16)

int main(void)
{
    float *h, *d;
    cudaStream_t s, t;
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaStreamCreate(&t));

    sc_fill<<<64, 256, 0, s>>>(d, N, 1.0f);
    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    CHECK(cudaDeviceSetCacheConfig(cudaFuncCachePreferShared)); // expect: SC501 x1
    sc_spin<<<1, 1, 0, t>>>(SPIN);
    LAUNCHED();
    CHECK(cudaFuncSetCacheConfig(sc_saxpy, cudaFuncCachePreferL1)); // expect: SC501 x1
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
