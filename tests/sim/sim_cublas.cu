// tests/sim/sim_cublas.cu: an nvcc-built program linked with -lcublas
// (and -cudart shared) that tests/sim/e2e.sh runs on the simulator.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <cublas_v2.h>

#define CHECK(call)                                                          \
    do {                                                                     \
        cudaError_t e_ = (call);                                             \
        if (e_ != cudaSuccess) {                                             \
            printf("FAIL %s: %s\n", #call, cudaGetErrorName(e_));            \
            return 1;                                                        \
        }                                                                    \
    } while (0)
#define CHECK_BLAS(call)                                                     \
    do {                                                                     \
        cublasStatus_t s_ = (call);                                          \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                   \
            printf("FAIL %s: %s\n", #call, cublasGetStatusName(s_));         \
            return 1;                                                        \
        }                                                                    \
    } while (0)

int main()
{
    const int m = 64, n = 48, k = 32;
    float *A = (float *)malloc(m * k * sizeof(float));
    float *B = (float *)malloc(k * n * sizeof(float));
    float *C = (float *)malloc(m * n * sizeof(float));
    for (int i = 0; i < m * k; i++)
        A[i] = (float)(i % 7) - 3.0f;
    for (int i = 0; i < k * n; i++)
        B[i] = (float)(i % 5) * 0.5f;
    float *dA, *dB, *dC;
    CHECK(cudaMalloc(&dA, m * k * sizeof(float)));
    CHECK(cudaMalloc(&dB, k * n * sizeof(float)));
    CHECK(cudaMalloc(&dC, m * n * sizeof(float)));
    cublasHandle_t h;
    CHECK_BLAS(cublasCreate(&h));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK_BLAS(cublasSetStream(h, s));
    CHECK(cudaMemcpyAsync(dA, A, m * k * sizeof(float), cudaMemcpyHostToDevice, s));
    CHECK(cudaMemcpyAsync(dB, B, k * n * sizeof(float), cudaMemcpyHostToDevice, s));
    const float alpha = 2.0f, beta = 0.0f;
    CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA, m,
                           dB, k, &beta, dC, m));
    CHECK(cudaMemcpyAsync(C, dC, m * n * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    double max_err = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double acc = 0;
            for (int p = 0; p < k; p++)
                acc += (double)A[i + p * m] * B[p + j * k];
            max_err = fmax(max_err, fabs(alpha * acc - C[i + j * m]));
        }
    printf("sgemm: %s\n", max_err < 1e-3 ? "ok" : "MISMATCH");
    int version = 0;
    CHECK_BLAS(cublasGetVersion(h, &version));
    printf("cublas version: %d\n", version);
    CHECK_BLAS(cublasDestroy(h));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
    free(A);
    free(B);
    free(C);
    printf("done\n");
    return 0;
}
