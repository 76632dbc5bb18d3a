// default_stream_fixed: the work of default_stream.cu without SC101.
//
// The chain that used the legacy stream runs on a second created,
// non-blocking stream t, ordered after the upload by an event.
#include "common.h"

#define N (1 << 16)
#define LAUNCHES 10

int main(void)
{
    float *h, *d;
    cudaStream_t s, t;
    cudaEvent_t uploaded;
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    fill_host(h, N);
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming));

    CHECK(cudaMemcpyAsync(d, h, N * sizeof(float), cudaMemcpyHostToDevice, s));
    CHECK(cudaEventRecord(uploaded, s));
    CHECK(cudaStreamWaitEvent(t, uploaded, 0));
    for (int i = 0; i < LAUNCHES; i++) {
        sc_spin<<<1, 1, 0, s>>>(SPIN);
        sc_saxpy<<<64, 256, 0, t>>>(N, 0.5f, d, d);
        LAUNCHED();
    }
    sc_spin<<<1, 1, 0, t>>>(HOLD);
    LAUNCHED();
    CHECK(cudaMemcpyAsync(h, d, N * sizeof(float), cudaMemcpyDeviceToHost, t));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaStreamSynchronize(t));
    printf("default_stream: checksum %.6f\n", checksum(h, N));

    CHECK(cudaEventDestroy(uploaded));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaStreamDestroy(t));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    return 0;
}
// expect-api: cuLaunchKernel 21
