// nccl_sim.cu: libnccl-sim.so, a stand-in for NCCL as PyTorch's
// ProcessGroupNCCL drives it, for ddp_step.  The library's name starts with
// libnccl, which is how streamcheck knows NCCL.  Like NCCL it makes a
// stream of its own at initialization, non-blocking ("NCCL creates its
// internal streams non-blocking"), and launches each collective's kernels
// on the stream the caller passes (ProcessGroupNCCL's communication stream,
// taken from PyTorch's pool), after ordering that stream after its own.
// Built with -cudart shared so the simulator can run it (NCCL links the
// runtime statically; streamcheck knows it either way).  The "all-reduce"
// of a rank alone: a spin for the time a ring step takes, then buf *= 1.
#include <cuda_runtime.h>
#include <stdio.h>

#include "sc_kernels.cuh"

#define EXPORT extern "C" __attribute__((visibility("default")))

static cudaStream_t internal;
static cudaEvent_t order;
static int inited;

EXPORT int ncclSimInit(void)
{
    if (inited)
        return 0;
    if (cudaStreamCreateWithFlags(&internal, cudaStreamNonBlocking) != cudaSuccess ||
        cudaEventCreateWithFlags(&order, cudaEventDisableTiming) != cudaSuccess)
        return 1;
    inited = 1;
    return 0;
}

/* ncclAllReduce(buf, buf, n, ncclFloat, ncclSum, comm, stream). */
EXPORT int ncclSimAllReduce(float *buf, size_t n, unsigned long long ring_ns, cudaStream_t stream)
{
    if (!inited)
        return 1;
    cudaEventRecord(order, internal);
    cudaStreamWaitEvent(stream, order, 0);
    sc_spin<<<1, 1, 0, stream>>>(ring_ns);
    sc_saxpy<<<64, 256, 0, stream>>>((int)n, 0.0f, buf, buf);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

EXPORT void ncclSimFinalize(void)
{
    if (!inited)
        return;
    cudaEventDestroy(order);
    cudaStreamDestroy(internal);
    inited = 0;
}
