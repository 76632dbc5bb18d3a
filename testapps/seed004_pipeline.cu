// seed004_pipeline: seed 004 ("CPU-GPU Interactions in PyTorch"), the
// streamed pipeline with pageable host memory: the inputs and results are
// malloc'd.  An asynchronous copy from pageable memory first waits for its
// stream and stages the data, and one to pageable memory returns only when
// it is done (CUDA Driver API, API synchronization behavior, Memcpy), so the
// host waits at every download and the streams cannot overlap: SC203 at both
// copies.  In PyTorch: .to("cuda", non_blocking=True) and
// .copy_(..., non_blocking=True) on tensors that are not pinned.
// Fixed twin: seed004_pipeline_fixed.cu (the same with pinned buffers).
//
//   seed004_pipeline [streamed|sequential [ITERS [SIZE]]]   default streamed 8 48
// Checksum on stdout (the fixed twin's); elapsed_ms= on stderr.
#include "seed_common.h"

#define USAGE "[streamed|sequential [ITERS(1-8) [SIZE(16-8192)]]]"
#define MAX_ITERS 8

static const char *const modes[] = {"streamed", "sequential", NULL};

static int iters, n;
static cudaStream_t s[MAX_ITERS];
static float *in, *out; // host: inputs and results (pageable)
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
        CHECK(cudaMemcpyAsync(dA + i * nn, in + i * nn, nn * sizeof(float), cudaMemcpyHostToDevice, si)); // expect: SC203 x16
        sc_matmul<<<grid, block, 0, si>>>(n, dA + i * nn, dA + i * nn, dC + i * nn);
        LAUNCHED();
        CHECK(cudaMemcpyAsync(out + i * nn, dC + i * nn, nn * sizeof(float), cudaMemcpyDeviceToHost, si)); // expect: SC203 x16
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

    in = (float *)malloc(all * sizeof(float));
    out = (float *)malloc(all * sizeof(float));
    if (!in || !out) {
        fprintf(stderr, "seed004_pipeline: out of memory\n");
        return 1;
    }
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
    fprintf(stderr, "seed004_pipeline: %s, pageable\nelapsed_ms=%.3f\n", modes[sequential], ms);

    seed_timer_free(&t);
    CHECK(cudaEventDestroy(ev));
    for (int k = 0; k < nstreams; k++)
        CHECK(cudaStreamDestroy(s[k]));
    CHECK(cudaFree(dA));
    free(in);
    free(out);
    return 0;
}
