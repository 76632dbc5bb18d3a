// cublas_default_stream_fixed: the handle of cublas_default_stream.cu is
// bound to the program's stream.  cublasDestroy still synchronizes the
// device (cuBLAS Library, cublasDestroy): that note stays.
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
    cublasSetStream(handle, s);
    sc_fill<<<16, 256, 0, s>>>(a, M * M, 0.5f);
    sc_fill<<<16, 256, 0, s>>>(b, M * M, 0.25f);
    LAUNCHED();

    for (int i = 0; i < REPS; i++)
        cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, M, M, M, &one, a, M, b, M, &zero, c, M);
    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    CHECK(cudaMemcpyAsync(h, c, M * M * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    printf("cublas_default_stream: checksum %.6f\n", checksum(h, M * M));

    cublasDestroy(handle); // expect: SC402 x1+
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(c));
    CHECK(cudaFreeHost(h));
    return 0;
}
