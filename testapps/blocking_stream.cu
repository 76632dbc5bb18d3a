// blocking_stream: SC102 blocking-stream (and the SC101 that comes with it).
//
// s is created without cudaStreamNonBlocking, so every command the program
// sends to the legacy stream waits for s to drain and s waits for it
// (CUDA Driver API, Stream synchronization behavior).  The finding belongs to
// the line that created s.  Fixed twin: blocking_stream_fixed.cu.
#include "common.h"

#define N (1 << 16)

int main(void)
{
    float *h, *d;
    cudaStream_t s;
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    fill_host(h, N);
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaStreamCreate(&s)); // expect: SC102 x5

    CHECK(cudaMemcpyAsync(d, h, N * sizeof(float), cudaMemcpyHostToDevice, s));
    for (int i = 0; i < 3; i++) {
        sc_spin<<<1, 1, 0, s>>>(SPIN);
        sc_saxpy<<<64, 256>>>(N, 0.5f, d, d); // expect: SC101 x3
        LAUNCHED();
    }
    sc_spin<<<1, 1>>>(HOLD); // expect: SC101 x1
    LAUNCHED();
    CHECK(cudaMemcpyAsync(h, d, N * sizeof(float), cudaMemcpyDeviceToHost, 0)); // expect: SC101 x1
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaStreamSynchronize(0));
    printf("blocking_stream: checksum %.6f\n", checksum(h, N));

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    return 0;
}
