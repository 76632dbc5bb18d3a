// pageable_copy_fixed: the copies of pageable_copy.cu from pinned memory;
// the host waits once, at the end.  The work is pageable_copy.cu's, its
// HOLD spin before the download included.
#include "common.h"

#define N (1 << 20)
#define CHUNKS 4

int main(void)
{
    float *p, *d;
    cudaStream_t s;
    CHECK(cudaHostAlloc((void **)&p, N * sizeof(float), cudaHostAllocDefault));
    fill_host(p, N);
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    const int chunk = N / CHUNKS;
    for (int c = 0; c < CHUNKS; c++) {
        sc_spin<<<1, 1, 0, s>>>(SPIN);
        LAUNCHED();
        CHECK(cudaMemcpyAsync(d + c * chunk, p + c * chunk, chunk * sizeof(float), cudaMemcpyHostToDevice, s));
    }
    sc_saxpy<<<256, 256, 0, s>>>(N, 2.0f, d, d);
    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    CHECK(cudaMemcpyAsync(p, d, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    printf("pageable_copy: checksum %.6f\n", checksum(p, N));

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(p));
    return 0;
}
