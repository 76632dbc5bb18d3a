// multigpu_legacy_fixed: multigpu_legacy.cu with a non-blocking stream per
// device, pinned host memory and asynchronous copies; device 0 waits for
// device 1's result through an event (cudaStreamWaitEvent across devices)
// and reads both back with one synchronization.  No findings.
#include "common.h"

#define N (1 << 16)

int main(void)
{
    need_devices(2);
    float *h0, *h1, *d0, *d1;
    cudaStream_t s0, s1;
    cudaEvent_t done1;
    CHECK(cudaMallocHost(&h0, N * sizeof(float)));
    CHECK(cudaMallocHost(&h1, N * sizeof(float)));
    fill_host(h1, N);

    CHECK(cudaSetDevice(1));
    CHECK(cudaMalloc(&d1, N * sizeof(float)));
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&done1, cudaEventDisableTiming));
    CHECK(cudaSetDevice(0));
    CHECK(cudaMalloc(&d0, N * sizeof(float)));
    CHECK(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));

    CHECK(cudaSetDevice(1));
    CHECK(cudaMemcpyAsync(d1, h1, N * sizeof(float), cudaMemcpyHostToDevice, s1));
    sc_spin<<<1, 1, 0, s1>>>(HOLD);
    sc_saxpy<<<64, 256, 0, s1>>>(N, 0.5f, d1, d1);
    LAUNCHED();
    CHECK(cudaMemcpyAsync(h1, d1, N * sizeof(float), cudaMemcpyDeviceToHost, s1));
    CHECK(cudaEventRecord(done1, s1));

    CHECK(cudaSetDevice(0));
    sc_fill<<<64, 256, 0, s0>>>(d0, N, 2.0f);
    LAUNCHED();
    CHECK(cudaMemcpyAsync(h0, d0, N * sizeof(float), cudaMemcpyDeviceToHost, s0));
    CHECK(cudaStreamWaitEvent(s0, done1, 0));
    CHECK(cudaStreamSynchronize(s0));
    printf("multigpu_legacy: device 0 checksum %.6f, device 1 checksum %.6f\n", checksum(h0, N),
           checksum(h1, N));

    CHECK(cudaStreamDestroy(s0));
    CHECK(cudaFree(d0));
    CHECK(cudaSetDevice(1));
    CHECK(cudaEventDestroy(done1));
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaFree(d1));
    CHECK(cudaFreeHost(h1));
    CHECK(cudaFreeHost(h0));
    return 0;
}
