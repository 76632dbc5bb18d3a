// pinned_alloc_sync_fixed: pinned buffers are set up before any work is in
// flight and released after the last synchronization.
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
    CHECK(cudaMemcpyAsync(d, p, N * sizeof(float), cudaMemcpyHostToDevice, s));
    sc_saxpy<<<64, 256, 0, s>>>(N, 1.0f, d, d);
    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    CHECK(cudaMemcpyAsync(h, d, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    printf("pinned_alloc_sync: checksum %.6f\n", checksum(h, N));

    CHECK(cudaHostUnregister(p));
    CHECK(cudaFreeHost(h));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d));
    free(p);
    return 0;
}
