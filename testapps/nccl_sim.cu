// nccl_sim.cu: libnccl-sim.so, a stand-in for NCCL as PyTorch's
// ProcessGroupNCCL drives it, for ddp_step.  The library's name starts with
// libnccl, which is how streamcheck knows NCCL's own streams.  Like NCCL it
// makes its stream non-blocking ("NCCL creates its internal streams
// non-blocking"), launches its collectives there, and like
// ProcessGroupNCCL orders them with the caller's stream through events:
// the comm stream waits for the caller's work, the caller's stream waits
// for the collective (work.wait()), and the host never waits.  Built
// with -cudart shared so the simulator can run it (NCCL links the runtime
// statically; streamcheck knows it either way).  The "all-reduce" of a
// rank alone: a spin for the time a ring step takes, then buf *= 1.
#include <cuda_runtime.h>
#include <stdio.h>

#include "sc_kernels.cuh"

#define EXPORT extern "C" __attribute__((visibility("default")))

static cudaStream_t comm;
static cudaEvent_t ready, done;
static int inited;

EXPORT int ncclSimInit(void)
{
    if (inited)
        return 0;
    if (cudaStreamCreateWithFlags(&comm, cudaStreamNonBlocking) != cudaSuccess ||
        cudaEventCreateWithFlags(&ready, cudaEventDisableTiming) != cudaSuccess ||
        cudaEventCreateWithFlags(&done, cudaEventDisableTiming) != cudaSuccess)
        return 1;
    inited = 1;
    return 0;
}

EXPORT int ncclSimAllReduce(float *buf, size_t n, unsigned long long ring_ns, cudaStream_t caller)
{
    if (!inited)
        return 1;
    cudaEventRecord(ready, caller);
    cudaStreamWaitEvent(comm, ready, 0);
    sc_spin<<<1, 1, 0, comm>>>(ring_ns);
    sc_saxpy<<<64, 256, 0, comm>>>((int)n, 0.0f, buf, buf);
    cudaEventRecord(done, comm);
    cudaStreamWaitEvent(caller, done, 0);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

EXPORT void ncclSimFinalize(void)
{
    if (!inited)
        return;
    cudaEventDestroy(done);
    cudaEventDestroy(ready);
    cudaStreamDestroy(comm);
    inited = 0;
}
