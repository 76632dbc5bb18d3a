// async_engines: SC702 no-async-engines.
//
// Uploads on one stream and downloads on another overlap only on a device
// with two copy engines (CUDA C++ Programming Guide, Concurrent Data
// Transfers).  Run it where asyncEngineCount < 2; the simulator models one
// engine with STREAMCHECK_SIM_ASYNC_ENGINES=1.  Fixed twin:
// async_engines_fixed.cu.
#include "common.h"

#define N (4 << 20)
#define REPS 3

int main(void)
{
    float *in, *out, *d_in, *d_out;
    cudaStream_t up, down;
    CHECK(cudaMallocHost(&in, N * sizeof(float)));
    CHECK(cudaMallocHost(&out, N * sizeof(float)));
    fill_host(in, N);
    CHECK(cudaMalloc(&d_in, N * sizeof(float)));
    CHECK(cudaMalloc(&d_out, N * sizeof(float)));
    CHECK(cudaStreamCreateWithFlags(&up, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&down, cudaStreamNonBlocking));
    sc_fill<<<256, 256, 0, down>>>(d_out, N, 1.5f);
    sc_spin<<<1, 1, 0, up>>>(HOLD);
    sc_spin<<<1, 1, 0, down>>>(HOLD);
    LAUNCHED();
    for (int i = 0; i < REPS; i++) {
        CHECK(cudaMemcpyAsync(d_in, in, N * sizeof(float), cudaMemcpyHostToDevice, up)); // expect: SC702 x2
        CHECK(cudaMemcpyAsync(out, d_out, N * sizeof(float), cudaMemcpyDeviceToHost, down)); // expect: SC702 x3
    }
    CHECK(cudaStreamSynchronize(up));
    // Whether down is still busy here depends on timing (both streams copy
    // after the same spin; seen idle once under a loaded make check): then
    // this sync waits for nothing, an SC402 note.
    CHECK(cudaStreamSynchronize(down)); // expect: SC402 x0+
    printf("async_engines: checksum %.6f\n", checksum(out, N));

    CHECK(cudaStreamDestroy(up));
    CHECK(cudaStreamDestroy(down));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFreeHost(in));
    CHECK(cudaFreeHost(out));
    return 0;
}
