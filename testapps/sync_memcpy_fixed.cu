// sync_memcpy_fixed: the copies of sync_memcpy.cu, asynchronous on a
// created stream from pinned memory; the host waits once, where it needs
// the data.
#include "common.h"

#define N (2 << 20)
#define SMALL (4096 / sizeof(float))

int main(void)
{
    float *h, *p, *d;
    cudaStream_t s;
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    CHECK(cudaMallocHost(&p, N * sizeof(float)));
    fill_host(h, N);
    fill_host(p, N);
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    CHECK(cudaMemcpyAsync(d, h, N * sizeof(float), cudaMemcpyHostToDevice, s));
    CHECK(cudaMemcpyAsync(d, p, SMALL * sizeof(float), cudaMemcpyHostToDevice, s));
    CHECK(cudaMemcpyAsync(d + SMALL, p, (N - SMALL) * sizeof(float), cudaMemcpyHostToDevice, s));
    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    CHECK(cudaMemcpyAsync(h, d, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    printf("sync_memcpy: checksum %.6f\n", checksum(h, N));

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    CHECK(cudaFreeHost(p));
    return 0;
}
