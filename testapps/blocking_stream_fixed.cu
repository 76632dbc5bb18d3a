// blocking_stream_fixed: blocking_stream.cu with non-blocking streams and no
// legacy-stream work; the ordering the legacy stream gave is explicit.
#include "common.h"

#define N (1 << 16)

int main(void)
{
    float *h, *d;
    cudaStream_t s, t;
    cudaEvent_t e;
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    fill_host(h, N);
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));

    CHECK(cudaMemcpyAsync(d, h, N * sizeof(float), cudaMemcpyHostToDevice, s));
    CHECK(cudaEventRecord(e, s));
    CHECK(cudaStreamWaitEvent(t, e, 0));
    for (int i = 0; i < 3; i++) {
        sc_spin<<<1, 1, 0, s>>>(SPIN);
        sc_saxpy<<<64, 256, 0, t>>>(N, 0.5f, d, d);
        LAUNCHED();
    }
    sc_spin<<<1, 1, 0, t>>>(HOLD);
    LAUNCHED();
    CHECK(cudaMemcpyAsync(h, d, N * sizeof(float), cudaMemcpyDeviceToHost, t));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaStreamSynchronize(t));
    printf("blocking_stream: checksum %.6f\n", checksum(h, N));

    CHECK(cudaEventDestroy(e));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaStreamDestroy(t));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    return 0;
}
