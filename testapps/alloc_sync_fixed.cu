// alloc_sync_fixed: the temporary buffer of alloc_sync.cu comes from the
// stream-ordered allocator, so nothing waits for the device.  The stream's
// work is alloc_sync.cu's, its spins included (the last one, after the free,
// gives the synchronization something to wait for), so that what
// bench/seeds.py measures between the two is the fix's gain alone.
#include "common.h"

#define N (1 << 18)

int main(void)
{
    float *h, *d, *tmp;
    cudaStream_t s;
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    sc_fill<<<64, 256, 0, s>>>(d, N, 1.0f);
    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    CHECK(cudaMallocAsync((void **)&tmp, N * sizeof(float), s));
    sc_fill<<<64, 256, 0, s>>>(tmp, N, 2.0f);
    sc_saxpy<<<64, 256, 0, s>>>(N, 1.0f, tmp, d);
    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    CHECK(cudaMemcpyAsync(h, d, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(tmp, s));
    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    CHECK(cudaStreamSynchronize(s));
    printf("alloc_sync: checksum %.6f\n", checksum(h, N));

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    return 0;
}
