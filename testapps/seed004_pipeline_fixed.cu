// seed004_pipeline_fixed: seed 004 ("CPU-GPU Interactions in PyTorch"),
// sequential against streamed processing of independent inputs, with
// page-locked host memory.  Each input goes host -> device, through a matrix
// product, and back.  "streamed" gives each input its own stream (the seed's
// streamed_data_processing), so the copies of one input overlap the product
// of another (PG, Overlap of Data Transfer and Kernel Execution); that needs
// pinned host memory, allocated here with cudaHostAlloc.  "sequential" runs
// every input on one stream, one stage after another.  No finding.
// Hazard twin: seed004_pipeline.cu (the same with malloc'd buffers).
//
// At most 8 inputs: one stream each, and more busy streams than
// CUDA_DEVICE_MAX_CONNECTIONS (8 by default) share hardware queues (SC701,
// testapps/queue_limit.cu).
//
//   seed004_pipeline_fixed [streamed|sequential [ITERS [SIZE]]]   default streamed 8 48
// Checksum on stdout (the same in both modes and for the hazard twin);
// elapsed_ms= on stderr.
#include "seed_common.h"

#define USAGE "[streamed|sequential [ITERS(1-8) [SIZE(16-8192)]]]"
#define MAX_ITERS 8

static const char *const modes[] = {"streamed", "sequential", NULL};

static int iters, n;
static cudaStream_t s[MAX_ITERS];
static float *in, *out; // host: inputs and results
static float *dA, *dC;  // device: inputs and products

static float pass(seed_timer *t, cudaEvent_t ev, int nstreams)
{
    size_t nn = (size_t)n * n;
    dim3 block(SC_MM_TILE, SC_MM_TILE), grid((n + SC_MM_TILE - 1) / SC_MM_TILE, (n + SC_MM_TILE - 1) / SC_MM_TILE);
    CHECK(cudaEventRecord(t->start, s[0]));
    for (int k = 1; k < nstreams; k++)
        CHECK(cudaStreamWaitEvent(s[k], t->start, 0));
    for (int i = 0; i < iters; i++) {
        cudaStream_t si = s[i % nstreams];
        size_t at = (size_t)i * nn;
        CHECK(cudaMemcpyAsync(dA + at, in + at, nn * sizeof(float), cudaMemcpyHostToDevice, si)); // expect: SC703 x0+
        sc_matmul<<<grid, block, 0, si>>>(n, dA + i * nn, dA + i * nn, dC + i * nn);
        LAUNCHED();
        CHECK(cudaMemcpyAsync(out + i * nn, dC + i * nn, nn * sizeof(float), cudaMemcpyDeviceToHost, si));
    }
    for (int k = 1; k < nstreams; k++)
        seed_join(s[0], s[k], ev);
    CHECK(cudaEventRecord(t->stop, s[0]));
    seed_settle(s[0]);
    return seed_timer_ms(t);
}

int main(int argc, char **argv)
{
    int sequential = seed_mode(argc, argv, 1, modes, USAGE);
    iters = (int)seed_arg(argc, argv, 2, 8, 1, MAX_ITERS, USAGE);
    n = (int)seed_arg(argc, argv, 3, 48, 16, 8192, USAGE);
    size_t nn = (size_t)n * n, all = iters * nn;
    int nstreams = sequential ? 1 : iters;

    CHECK(cudaHostAlloc(&in, all * sizeof(float), cudaHostAllocDefault));
    CHECK(cudaHostAlloc(&out, all * sizeof(float), cudaHostAllocDefault));
    CHECK(cudaMalloc(&dA, 2 * all * sizeof(float)));
    dC = dA + all;
    for (int k = 0; k < nstreams; k++)
        CHECK(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking));
    cudaEvent_t ev;
    CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    seed_timer t;
    seed_timer_init(&t);
    seed_fill_random(in, all, 4, -1.0f, 1.0f);

    pass(&t, ev, nstreams); // warm-up: kernels loaded, copy paths set up
    seed_timed_begin();
    float ms = pass(&t, ev, nstreams);
    seed_timed_end();

    printf("seed004_pipeline: %d inputs %dx%d, checksum %.6f\n", iters, n, n, seed_checksum(out, all));
    fprintf(stderr, "seed004_pipeline_fixed: %s, pinned\nelapsed_ms=%.3f\n", modes[sequential], ms);

    seed_timer_free(&t);
    CHECK(cudaEventDestroy(ev));
    for (int k = 0; k < nstreams; k++)
        CHECK(cudaStreamDestroy(s[k]));
    CHECK(cudaFree(dA));
    CHECK(cudaFreeHost(in));
    CHECK(cudaFreeHost(out));
    return 0;
}
