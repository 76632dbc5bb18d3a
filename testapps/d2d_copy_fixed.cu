// d2d_copy_fixed: the device-to-device copy of d2d_copy.cu on the stream
// that owns the data.
#include "common.h"

#define N (1 << 20)

int main(void)
{
    float *h, *a, *b;
    cudaStream_t s;
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    fill_host(h, N);
    CHECK(cudaMalloc(&a, N * sizeof(float)));
    CHECK(cudaMalloc(&b, N * sizeof(float)));
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    CHECK(cudaMemcpyAsync(a, h, N * sizeof(float), cudaMemcpyHostToDevice, s));
    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    CHECK(cudaMemcpyAsync(b, a, N * sizeof(float), cudaMemcpyDeviceToDevice, s));
    CHECK(cudaMemcpyAsync(h, b, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    printf("d2d_copy: checksum %.6f\n", checksum(h, N));

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFreeHost(h));
    return 0;
}
