// sync_memset_fixed: the memsets of sync_memset.cu on the stream that uses
// the buffers.
#include "common.h"

#define N (1 << 20)

int main(void)
{
    float *h, *a, *b;
    cudaStream_t s;
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    CHECK(cudaMalloc(&a, N * sizeof(float)));
    CHECK(cudaMalloc(&b, N * sizeof(float)));
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    CHECK(cudaMemsetAsync(a, 0, N * sizeof(float), s));
    CHECK(cudaMemsetAsync(b, 0, N * sizeof(float), s));
    sc_fill<<<256, 256, 0, s>>>(a, N, 2.0f);
    sc_saxpy<<<256, 256, 0, s>>>(N, 3.0f, a, b);
    LAUNCHED();
    CHECK(cudaMemcpyAsync(h, b, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    printf("sync_memset: checksum %.6f\n", checksum(h, N));

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFreeHost(h));
    return 0;
}
