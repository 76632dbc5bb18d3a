// alloc_sync: SC301 device-alloc-sync.
//
// cudaMalloc and cudaFree while another stream is busy: NVIDIA documents
// that they synchronize the device (CUDA C++ Programming Guide, Stream
// Ordered Memory Allocator); the report's blocked time shows whether they
// did.  Fixed twin: alloc_sync_fixed.cu.
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
    CHECK(cudaMalloc(&tmp, N * sizeof(float))); // expect: SC301 x1
    sc_fill<<<64, 256, 0, s>>>(tmp, N, 2.0f);
    sc_saxpy<<<64, 256, 0, s>>>(N, 1.0f, tmp, d);
    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    CHECK(cudaMemcpyAsync(h, d, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaFree(tmp)); // expect: SC301 x1
    sc_spin<<<1, 1, 0, s>>>(HOLD);   /* the free may have drained s (it does on the simulator) */
    LAUNCHED();
    CHECK(cudaStreamSynchronize(s));
    printf("alloc_sync: checksum %.6f\n", checksum(h, N));

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    return 0;
}
