// default_stream: SC101 legacy-default-stream.
//
// Independent work runs on a created stream s while a second chain of
// kernels goes to the legacy default stream (stream 0).  Every command on
// the legacy stream is a device-wide barrier for the blocking streams of
// the context and serializes with the per-thread streams, so s cannot be
// relied on to overlap with it (CUDA Driver API, Stream synchronization
// behavior).  Fixed twin: default_stream_fixed.cu.
#include "common.h"

#define N (1 << 16)
#define LAUNCHES 10

int main(void)
{
    float *h, *d;
    cudaStream_t s;
    cudaEvent_t uploaded;
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    fill_host(h, N);
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming));

    CHECK(cudaMemcpyAsync(d, h, N * sizeof(float), cudaMemcpyHostToDevice, s));
    CHECK(cudaEventRecord(uploaded, s));
    CHECK(cudaStreamWaitEvent(0, uploaded, 0));
    for (int i = 0; i < LAUNCHES; i++) {
        sc_spin<<<1, 1, 0, s>>>(SPIN);
        sc_saxpy<<<64, 256>>>(N, 0.5f, d, d); // expect: SC101 x10
        LAUNCHED();
    }
    sc_spin<<<1, 1>>>(HOLD); // expect: SC101 x1
    LAUNCHED();
    CHECK(cudaMemcpyAsync(h, d, N * sizeof(float), cudaMemcpyDeviceToHost, 0)); // expect: SC101 x1
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaStreamSynchronize(0));
    printf("default_stream: checksum %.6f\n", checksum(h, N));

    CHECK(cudaEventDestroy(uploaded));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    return 0;
}
// expect-api: cuLaunchKernel 21
