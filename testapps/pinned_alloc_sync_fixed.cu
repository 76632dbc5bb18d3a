// pinned_alloc_sync_fixed: pinned buffers are set up before any work is in
// flight and released after the last synchronization.  The stream's work is
// pinned_alloc_sync.cu's, its six spins included, in the same places
// relative to the copies and kernels (there they keep the stream busy at
// each allocation and free), so that what bench/seeds.py measures between
// the two is the fix's gain alone.
#include "common.h"

#define N (1 << 18)

int main(void)
{
    float *h, *d, *p;
    cudaStream_t s;
    p = (float *)malloc(N * sizeof(float));
    fill_host(p, N);
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaHostAlloc((void **)&h, N * sizeof(float), cudaHostAllocDefault));
    CHECK(cudaHostRegister(p, N * sizeof(float), cudaHostRegisterDefault));

    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    CHECK(cudaMemcpyAsync(d, p, N * sizeof(float), cudaMemcpyHostToDevice, s));
    sc_saxpy<<<64, 256, 0, s>>>(N, 1.0f, d, d);
    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    CHECK(cudaMemcpyAsync(h, d, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    CHECK(cudaStreamSynchronize(s));
    printf("pinned_alloc_sync: checksum %.6f\n", checksum(h, N));
    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    CHECK(cudaStreamSynchronize(s));

    CHECK(cudaHostUnregister(p));
    CHECK(cudaFreeHost(h));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d));
    free(p);
    return 0;
}
