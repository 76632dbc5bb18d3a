// cublas_default_stream: SC601 cublas-default-stream.
//
// A cuBLAS handle never given a stream runs its kernels on the legacy
// stream, a barrier for the program's other streams (cuBLAS Library,
// cublasSetStream).  cublasDestroy synchronizes the device (cuBLAS Library,
// cublasDestroy), here with nothing left to wait for: SC402, as many times as
// cuBLAS chooses (4 on an H100 with CUDA 13.0, 1 on the simulator).
// Fixed twin: cublas_default_stream_fixed.cu.
#include <cublas_v2.h>

// cuBLAS's kernels load lazily: eagerly, at cublasCreate, inside the timer's
// main_ms, they took 2.4 s of it on an H200 (common.h).
#define SC_TIMER_LAZY_MODULES
#include "common.h"

#define M 64
#define REPS 3

int main(void)
{
    cublasHandle_t handle;
    cudaStream_t s;
    float *a, *b, *c, *h;
    const float one = 1.0f, zero = 0.0f;
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cublasCreate failed\n");
        return 1;
    }
    CHECK(cudaMallocHost(&h, M * M * sizeof(float)));
    CHECK(cudaMalloc(&a, M * M * sizeof(float)));
    CHECK(cudaMalloc(&b, M * M * sizeof(float)));
    CHECK(cudaMalloc(&c, M * M * sizeof(float)));
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    sc_fill<<<16, 256, 0, s>>>(a, M * M, 0.5f);
    sc_fill<<<16, 256, 0, s>>>(b, M * M, 0.25f);
    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    CHECK(cudaStreamSynchronize(s));

    for (int i = 0; i < REPS; i++)
        cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, M, M, M, &one, a, M, b, M, &zero, c, M); // expect: SC601 x3
    CHECK(cudaMemcpy(h, c, M * M * sizeof(float), cudaMemcpyDeviceToHost)); // expect: SC201 x1
    printf("cublas_default_stream: checksum %.6f\n", checksum(h, M * M));

    cublasDestroy(handle); // expect: SC402 x1+
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(c));
    CHECK(cudaFreeHost(h));
    return 0;
}
