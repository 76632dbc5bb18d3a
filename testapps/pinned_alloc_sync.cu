// pinned_alloc_sync: SC302 pinned-alloc-sync.
//
// Allocating, registering or freeing page-locked host memory while a stream
// has work keeps commands issued before and after it from overlapping (CUDA
// C++ Programming Guide, Implicit Synchronization).  Fixed twin:
// pinned_alloc_sync_fixed.cu.
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

    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    CHECK(cudaHostAlloc((void **)&h, N * sizeof(float), cudaHostAllocDefault)); // expect: SC302 x1
    sc_spin<<<1, 1, 0, s>>>(HOLD);   // the allocation may have drained s (it did on the simulator)
    LAUNCHED();
    CHECK(cudaHostRegister(p, N * sizeof(float), cudaHostRegisterDefault)); // expect: SC302 x1
    CHECK(cudaMemcpyAsync(d, p, N * sizeof(float), cudaMemcpyHostToDevice, s));
    sc_saxpy<<<64, 256, 0, s>>>(N, 1.0f, d, d);
    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    CHECK(cudaMemcpyAsync(h, d, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaHostUnregister(p)); // expect: SC302 x1
    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    CHECK(cudaStreamSynchronize(s));
    printf("pinned_alloc_sync: checksum %.6f\n", checksum(h, N));
    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    CHECK(cudaFreeHost(h)); // expect: SC302 x1
    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    CHECK(cudaStreamSynchronize(s));

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d));
    free(p);
    return 0;
}
