// async_engines_fixed: async_engines.cu with the downloads ordered after the
// uploads, so the one copy engine never has both directions pending.
#include "common.h"

#define N (4 << 20)
#define REPS 3

int main(void)
{
    float *in, *out, *d_in, *d_out;
    cudaStream_t up, down;
    cudaEvent_t uploaded;
    CHECK(cudaMallocHost(&in, N * sizeof(float)));
    CHECK(cudaMallocHost(&out, N * sizeof(float)));
    fill_host(in, N);
    CHECK(cudaMalloc(&d_in, N * sizeof(float)));
    CHECK(cudaMalloc(&d_out, N * sizeof(float)));
    CHECK(cudaStreamCreateWithFlags(&up, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&down, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming));
    sc_fill<<<256, 256, 0, down>>>(d_out, N, 1.5f);
    sc_spin<<<1, 1, 0, up>>>(HOLD);
    LAUNCHED();
    for (int i = 0; i < REPS; i++)
        CHECK(cudaMemcpyAsync(d_in, in, N * sizeof(float), cudaMemcpyHostToDevice, up));
    CHECK(cudaEventRecord(uploaded, up));
    CHECK(cudaStreamSynchronize(up));
    sc_spin<<<1, 1, 0, down>>>(HOLD);
    LAUNCHED();
    for (int i = 0; i < REPS; i++)
        CHECK(cudaMemcpyAsync(out, d_out, N * sizeof(float), cudaMemcpyDeviceToHost, down));
    CHECK(cudaStreamSynchronize(down));
    printf("async_engines: checksum %.6f\n", checksum(out, N));

    CHECK(cudaEventDestroy(uploaded));
    CHECK(cudaStreamDestroy(up));
    CHECK(cudaStreamDestroy(down));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFreeHost(in));
    CHECK(cudaFreeHost(out));
    return 0;
}
