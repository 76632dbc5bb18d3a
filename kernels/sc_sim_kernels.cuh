// sc_sim_kernels.cuh: device versions of the kernels the simulator's own
// libraries launch (the simulated cuBLAS launches sc_sim_sgemm).
//
// No program runs these on a GPU; they exist so that the mangled names the
// simulator uses are the names nvcc really emits (tests/sim/twin-names.sh
// compiles this header and compares its kernels with the twin table).
#ifndef SC_SIM_KERNELS_CUH
#define SC_SIM_KERNELS_CUH

// Column-major C = alpha * op(A) * op(B) + beta * C, op = identity (0) or
// transpose (1); one thread per element of C.  When beta is 0, C is not
// read (cuBLAS semantics).
__global__ void sc_sim_sgemm(int transa, int transb, int m, int n, int k,
                             float alpha, const float *A, int lda,
                             const float *B, int ldb, float beta, float *C,
                             int ldc)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= m || j >= n)
        return;
    float acc = 0.0f;
    for (int p = 0; p < k; p++) {
        float a = transa ? A[p + (size_t)i * lda] : A[i + (size_t)p * lda];
        float b = transb ? B[j + (size_t)p * ldb] : B[p + (size_t)j * ldb];
        acc += a * b;
    }
    float *c = &C[i + (size_t)j * ldc];
    *c = beta == 0.0f ? alpha * acc : alpha * acc + beta * *c;
}

#endif // SC_SIM_KERNELS_CUH
