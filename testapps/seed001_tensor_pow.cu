// seed001_tensor_pow: seed 001 ("Swimming in streams"), "Can Tensor cores
// and CUDA cores be used simultaneously on different streams?": matrix
// products on tensor cores (cuBLAS in TF32, as torch.backends.cuda.matmul.
// allow_tf32 = True asks for) on stream s1, and the element-wise cube of the
// same matrices (torch.pow(x, 3), a kernel of CUDA-core arithmetic) on s2.
// Kernels of different streams may run concurrently when resources allow
// (PG, Concurrent Kernel Execution); mode "serial" puts both on s1 for the
// comparison.  No hazard, so no twin: the only finding is cublasDestroy's
// device synchronization with nothing left to wait for (cuBLAS Library,
// cublasDestroy), SC402, as many times as cuBLAS chooses.
//
//   seed001_tensor_pow [concurrent|serial [COUNT [SIZE]]]     default concurrent 4 64
// Checksums on stdout (the same in both modes); elapsed_ms= on stderr.
#include <cublas_v2.h>

#include "seed_common.h"

#define USAGE "[concurrent|serial [COUNT(1-1024) [SIZE(16-8192)]]]"

static const char *const modes[] = {"concurrent", "serial", NULL};

int main(int argc, char **argv)
{
    int serial = seed_mode(argc, argv, 1, modes, USAGE);
    int count = (int)seed_arg(argc, argv, 2, 4, 1, 1024, USAGE);
    int n = (int)seed_arg(argc, argv, 3, 64, 16, 8192, USAGE);
    size_t nn = (size_t)n * n, mats = count * nn;
    const float one = 1.0f, zero = 0.0f;

    // Handle, memory and streams while nothing runs (SC301 otherwise).
    cublasHandle_t h;
    CHECK_BLAS(cublasCreate(&h));
    // TF32 tensor-core math for FP32 products (cuBLAS Library,
    // cublasSetMathMode); on devices without it cuBLAS uses FP32.
    CHECK_BLAS(cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH));
    float *stage, *dM, *dP, *dQ;
    CHECK(cudaMallocHost(&stage, 2 * mats * sizeof(float)));
    CHECK(cudaMalloc(&dM, 3 * mats * sizeof(float)));
    dP = dM + mats;
    dQ = dP + mats;
    cudaStream_t s1, s2;
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    CHECK_BLAS(cublasSetStream(h, s1));
    cudaStream_t spow = serial ? s1 : s2;
    cudaEvent_t ev;
    CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    seed_timer t;
    seed_timer_init(&t);

    // torch.rand((1024, 1024)) per matrix in the seed.
    seed_fill_random(stage, mats, 1001, 0.0f, 1.0f);
    CHECK(cudaMemcpyAsync(dM, stage, mats * sizeof(float), cudaMemcpyHostToDevice, s1));
    seed_settle(s1);

    int blocks = (int)((nn + 255) / 256 < 1024 ? (nn + 255) / 256 : 1024);
    float ms = 0;
    for (int p = 0; p < 2; p++) { // a warm-up pass, then the measured one
        if (p)
            seed_timed_begin();
        CHECK(cudaEventRecord(t.start, s1));
        CHECK(cudaStreamWaitEvent(s2, t.start, 0));
        for (int i = 0; i < count; i++)
            CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, dM + i * nn, n,
                                   dM + i * nn, n, &zero, dP + i * nn, n));
        for (int i = 0; i < count; i++)
            sc_pow<<<blocks, 256, 0, spow>>>((int)nn, dM + i * nn, dQ + i * nn, 3.0f);
        LAUNCHED();
        seed_join(s1, s2, ev);
        CHECK(cudaEventRecord(t.stop, s1));
        seed_settle(s1);
        ms = seed_timer_ms(&t);
        if (p)
            seed_timed_end();
    }

    CHECK(cudaMemcpyAsync(stage, dP, 2 * mats * sizeof(float), cudaMemcpyDeviceToHost, s1));
    seed_settle(s1);
    printf("seed001_tensor_pow: %d matrices %dx%d, checksum products %.6f cubes %.6f\n", count, n,
           n, seed_checksum(stage, mats), seed_checksum(stage + mats, mats));
    fprintf(stderr, "seed001_tensor_pow: %s\nelapsed_ms=%.3f\n", modes[serial], ms);

    cublasDestroy(h); // expect: SC402 x1+
    seed_timer_free(&t);
    CHECK(cudaEventDestroy(ev));
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaStreamDestroy(s2));
    CHECK(cudaFree(dM));
    CHECK(cudaFreeHost(stage));
    return 0;
}
