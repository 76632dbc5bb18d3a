// alloc_loop_fixed: alloc_loop.cu with the temporary buffer hoisted out of
// the loop.
#include "common.h"

#define N (1 << 18)
#define ITERS 12

int main(void)
{
    float *h, *acc, *tmp;
    cudaStream_t s;
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    CHECK(cudaMalloc(&acc, N * sizeof(float)));
    CHECK(cudaMalloc(&tmp, N * sizeof(float)));
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaMemsetAsync(acc, 0, N * sizeof(float), s));
    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    CHECK(cudaStreamSynchronize(s));   /* nothing in flight when the loop starts */
    for (int i = 0; i < ITERS; i++) {
        sc_fill<<<64, 256, 0, s>>>(tmp, N, (float)i);
        sc_saxpy<<<64, 256, 0, s>>>(N, 0.5f, tmp, acc);
        sc_spin<<<1, 1, 0, s>>>(SPIN);
        LAUNCHED();
        CHECK(cudaStreamSynchronize(s));
    }
    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    CHECK(cudaMemcpyAsync(h, acc, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    printf("alloc_loop: checksum %.6f\n", checksum(h, N));

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(tmp));
    CHECK(cudaFree(acc));
    CHECK(cudaFreeHost(h));
    return 0;
}
