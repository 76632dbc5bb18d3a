// pinned_roundtrip: a pinned buffer uploaded, waited for, read back, waited
// for, on an idle device.  No hazard, no finding: each synchronization waits
// for the copy just queued, which the host then needs.  The shim times the
// pinned rate before each direction's first such copy (dispatch.c,
// calibrate_pinned); a query of the copy's own stream there once cleared the
// mark the copy had just set, and each synchronization was reported as
// finding nothing to wait for (SC402).
#include "common.h"

#define N (1 << 22)   // 16 MiB of floats: over the run log's 64 KiB

int main(void)
{
    float *h, *d;
    cudaStream_t s;
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    fill_host(h, N);
    CHECK(cudaMemcpyAsync(d, h, N * sizeof(float), cudaMemcpyHostToDevice, s));
    CHECK(cudaStreamSynchronize(s));
    sc_saxpy<<<64, 256, 0, s>>>(N, 2.0f, d, d);
    LAUNCHED();
    CHECK(cudaMemcpyAsync(h, d, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    printf("pinned_roundtrip: checksum %.6f\n", checksum(h, N));

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    return 0;
}
