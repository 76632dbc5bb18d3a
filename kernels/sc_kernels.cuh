// sc_kernels.cuh: device kernels shared by the streamcheck test apps.
//
// Include from exactly one .cu file per program: the kernels have external
// C++ linkage, so their mangled names are what the CUDA runtime registers
// and what the simulator uses to find each kernel's CPU twin
// (kernels/twins.def).  Renaming a kernel or changing its parameter list
// changes its mangled name; tests/sim/twin-names.sh then fails until the
// twin table is updated.
#ifndef SC_KERNELS_CUH
#define SC_KERNELS_CUH

// Spins for ns nanoseconds of GPU time, read from %globaltimer.  One
// thread does the waiting; every other thread returns at once, so the
// kernel's duration does not depend on the launch configuration.
__global__ void sc_spin(unsigned long long ns)
{
    if (threadIdx.x != 0 || threadIdx.y != 0 || threadIdx.z != 0 ||
        blockIdx.x != 0 || blockIdx.y != 0 || blockIdx.z != 0)
        return;
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}

// y[i] = a * x[i] + y[i] for i < n, with a grid-stride loop so any launch
// configuration covers the whole vector.  nvcc contracts the expression to
// a fused multiply-add; the CPU twin uses fmaf() to give the same bits.
__global__ void sc_saxpy(int n, float a, const float *x, float *y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}

// p[i] = v for i < n (grid-stride).
__global__ void sc_fill(float *p, int n, float v)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += blockDim.x * gridDim.x)
        p[i] = v;
}

#endif // SC_KERNELS_CUH
