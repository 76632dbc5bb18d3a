// sc_seed_kernels.cuh: device kernels of the seed-exercise apps
// (testapps/seed*.cu), the lessons of shared/seeds/ written as CUDA C.
//
// Include once per program, after sc_kernels.cuh (testapps/seed_common.h
// does both).  As for sc_kernels.cuh, each kernel's mangled name keys its
// CPU twin in kernels/twins.def, so renaming a kernel or changing its
// parameters needs the table updated (tests/sim/twin-names.sh checks the
// names).
#ifndef SC_SEED_KERNELS_CUH
#define SC_SEED_KERNELS_CUH

// y[i] = sinf(x[i]) for i < n (grid-stride; x == y is allowed).  Seed 003's
// nested sine is four launches of it, as torch.sin is one kernel per call.
__global__ void sc_sin(int n, const float *x, float *y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += blockDim.x * gridDim.x)
        y[i] = sinf(x[i]);
}

// y[i] = powf(x[i], e) for i < n (grid-stride): seed 001's torch.pow(x, 3),
// element-wise work for the CUDA cores beside a tensor-core matmul.
__global__ void sc_pow(int n, const float *x, float *y, float e)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += blockDim.x * gridDim.x)
        y[i] = powf(x[i], e);
}

// C = A * B for n x n row-major matrices, in SC_MM_TILE x SC_MM_TILE tiles
// staged through shared memory: launch with blockDim (SC_MM_TILE,
// SC_MM_TILE) and a grid covering n x n.  Each output sums its products in
// increasing k, which nvcc contracts to fused multiply-adds; the CPU twin
// does the same with fmaf, so both give the same bits.  A matmul of our own
// rather than cuBLAS where the lesson is about copies and streams, so the
// report holds only what the lesson is about.
#define SC_MM_TILE 16
__global__ void sc_matmul(int n, const float *a, const float *b, float *c)
{
    __shared__ float as[SC_MM_TILE][SC_MM_TILE];
    __shared__ float bs[SC_MM_TILE][SC_MM_TILE];
    int row = blockIdx.y * SC_MM_TILE + threadIdx.y;
    int col = blockIdx.x * SC_MM_TILE + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += SC_MM_TILE) {
        int ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
        as[threadIdx.y][threadIdx.x] = row < n && ka < n ? a[(size_t)row * n + ka] : 0.0f;
        bs[threadIdx.y][threadIdx.x] = kb < n && col < n ? b[(size_t)kb * n + col] : 0.0f;
        __syncthreads();
        int kmax = n - k0 < SC_MM_TILE ? n - k0 : SC_MM_TILE;
        for (int k = 0; k < kmax; k++)
            acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < n && col < n)
        c[(size_t)row * n + col] = acc;
}

// Every block's first thread spins ns of GPU time (%globaltimer); the rest
// of the block returns at once.  A grid of many such blocks holds the SMs'
// block slots for ns per wave: the low-priority backlog of seed 001's
// stream-priority experiment, which a high-priority stream's blocks may
// overtake.  The CPU twin sleeps ns once (the simulator has no SMs).
__global__ void sc_spin_blocks(unsigned long long ns)
{
    if (threadIdx.x != 0 || threadIdx.y != 0 || threadIdx.z != 0)
        return;
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}

#endif // SC_SEED_KERNELS_CUH
