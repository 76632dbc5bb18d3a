// ddp_step: one rank of a data-parallel training loop as PyTorch's
// DistributedDataParallel runs it: the model on the default (legacy)
// stream, its GEMMs through a cuBLAS handle on that stream, a pinned batch
// (pin_memory=True), and the gradient all-reduce of each bucket started
// during the backward pass the way ProcessGroupNCCL starts it: on a
// communication stream from the framework's pool (non-blocking), which
// waits for the default stream through an event, NCCL's kernels there
// (libnccl-sim.so, nccl_sim.cu), and the default stream waiting for them
// through another (work.wait()); loss.item() at the end of each step.
//
// A clean loop: nothing but notes.  The all-reduce runs beside the
// backward GEMMs, and that is the point: the legacy stream does not wait
// for a non-blocking stream (CUDA Driver API, Stream synchronization
// behavior), so the launches stay SC101 notes, and a stream whose kernels
// are NCCL's is not one the program's GEMMs could go to: no SC601 (which
// it would be if a stream of the program's own were busy).  The event
// records on the default stream are legacy-stream work too (notes); the
// waits are not work.  The device is LOCAL_RANK's, modulo the devices
// there are.
#include <cublas_v2.h>

// cuBLAS's kernels load lazily: eagerly, at cublasCreate, inside the timer's
// main_ms, they took 2.4 s of it on an H200 (common.h).
#define SC_TIMER_LAZY_MODULES
#include "common.h"

extern "C" {
int ncclSimInit(void);
int ncclSimAllReduce(float *buf, size_t n, unsigned long long ring_ns, cudaStream_t stream);
void ncclSimFinalize(void);
}

// ProcessGroupNCCL::allreduce(bucket) and work.wait(), on the current
// (default) stream.
static cudaStream_t pg_stream;
static cudaEvent_t pg_ready, pg_done;

static int allreduce(float *buf, size_t n, unsigned long long ring_ns)
{
    CHECK(cudaEventRecord(pg_ready, 0));
    CHECK(cudaStreamWaitEvent(pg_stream, pg_ready, 0));
    if (ncclSimAllReduce(buf, n, ring_ns, pg_stream))
        return 1;
    CHECK(cudaEventRecord(pg_done, pg_stream));
    CHECK(cudaStreamWaitEvent(0, pg_done, 0));
    return 0;
}

#define M 64
#define STEPS 3

int main(void)
{
    int n = 0, dev = 0;
    CHECK(cudaGetDeviceCount(&n));
    const char *lr = getenv("LOCAL_RANK");
    if (lr && n > 0)
        dev = atoi(lr) % n;
    CHECK(cudaSetDevice(dev));
    cublasHandle_t handle;
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "ddp_step: cublasCreate failed\n");
        return 1;
    }
    float *batch, *x, *w1, *w2, *h1, *g1, *g2, *dloss, loss;
    const size_t mm = M * M * sizeof(float);
    CHECK(cudaMallocHost(&batch, mm));
    fill_host(batch, M * M);
    CHECK(cudaMalloc(&x, mm));
    CHECK(cudaMalloc(&w1, mm));
    CHECK(cudaMalloc(&w2, mm));
    CHECK(cudaMalloc(&h1, mm));
    CHECK(cudaMalloc(&g1, mm));
    CHECK(cudaMalloc(&g2, mm));
    CHECK(cudaMalloc(&dloss, sizeof(float)));
    CHECK(cudaMemsetAsync(dloss, 0, sizeof(float), 0));
    CHECK(cudaMemcpyAsync(w1, batch, mm, cudaMemcpyHostToDevice, 0)); // expect: SC101 x1 note
    CHECK(cudaMemcpyAsync(w2, batch, mm, cudaMemcpyHostToDevice, 0)); // expect: SC101 x1 note
    if (ncclSimInit()) {
        fprintf(stderr, "ddp_step: ncclSimInit failed\n");
        return 1;
    }
    CHECK(cudaStreamCreateWithFlags(&pg_stream, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&pg_ready, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&pg_done, cudaEventDisableTiming));
    // DDP's constructor broadcasts the parameters from rank 0 (a collective
    // on the communication stream before the first step).
    if (allreduce(w1, M * M, SPIN) || allreduce(w2, M * M, SPIN)) // expect: SC101 x2 note
        return 1;
    const float one = 1.0f, zero = 0.0f, lr_ = -0.01f;
    double sum = 0;
    for (int step = 0; step < STEPS; step++) {
        CHECK(cudaMemcpyAsync(x, batch, mm, cudaMemcpyHostToDevice, 0)); // expect: SC101 x3 note
        // forward
        cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, M, M, M, &one, w1, M, x, M, &zero, h1, M); // expect: SC101 x3+ note
        // backward: bucket 2's gradient, then its all-reduce on NCCL's stream
        cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, M, M, M, &one, h1, M, x, M, &zero, g2, M); // expect: SC101 x3+ note
        if (allreduce(g2, M * M, HOLD)) // expect: SC101 x3 note
            return 1;
        // bucket 1's gradient while bucket 2's all-reduce runs
        cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, M, M, M, &one, w2, M, h1, M, &zero, g1, M); // expect: SC101 x3+ note
        if (allreduce(g1, M * M, SPIN)) // expect: SC101 x3 note
            return 1;
        // optimizer step, after the all-reduces (the default stream waited)
        sc_saxpy<<<64, 256>>>(M * M, lr_, g1, w1); // expect: SC101 x3 note
        sc_saxpy<<<64, 256>>>(M * M, lr_, g2, w2); // expect: SC101 x3 note
        sc_saxpy<<<1, 1>>>(1, 1.0f, h1, dloss); // expect: SC101 x3 note
        LAUNCHED();
        // loss.item(): a copy into pageable memory and a sync of the stream (an SC403 where the host
        // is slow after the wait, as in a sanitized build under load: x0+)
        CHECK(cudaMemcpyAsync(&loss, dloss, sizeof(float), cudaMemcpyDeviceToHost, 0)); // expect: SC403 x0+
        CHECK(cudaStreamSynchronize(0));
        sum += loss;
    }
    printf("ddp_step: device %d, loss sum %.6f\n", dev, sum);
    ncclSimFinalize();
    CHECK(cudaEventDestroy(pg_done));
    CHECK(cudaEventDestroy(pg_ready));
    CHECK(cudaStreamDestroy(pg_stream));
    cublasDestroy(handle); // expect: SC402 x0+
    CHECK(cudaFree(dloss));
    CHECK(cudaFree(g2));
    CHECK(cudaFree(g1));
    CHECK(cudaFree(h1));
    CHECK(cudaFree(w2));
    CHECK(cudaFree(w1));
    CHECK(cudaFree(x));
    CHECK(cudaFreeHost(batch));
    return 0;
}
