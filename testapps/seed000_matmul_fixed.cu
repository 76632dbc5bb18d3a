// seed000_matmul_fixed: seed 000, Exercises 1 and 2 ("CUDA streams"):
// independent matrix multiplications spread over 1, 2 or 4 streams, one
// cuBLAS handle per stream.
//
// Four independent products C_j = A_j B_j, REPS times each, pair j on stream
// j % STREAMS.  cuBLAS runs a handle's kernels on the stream given to it with
// cublasSetStream (cuBLAS Library, "Parallelism with Streams"): one handle
// per stream, each bound right after it is created.  Small products leave
// most SMs idle, so on a GPU they can run side by side; the seed's 10000 x
// 10000 products fill the GPU by themselves and gain nothing (seed 000, "Will
// my code always be faster with the use of CUDA streams?").
//
// cublasDestroy synchronizes the device (cuBLAS Library, cublasDestroy): SC402
// where nothing was queued since the last wait, none where the other streams'
// work merely finished before it (as many times as cuBLAS chooses).
// Hazard twin: seed000_matmul.cu (one handle, left on stream 0).
//
//   seed000_matmul_fixed [STREAMS(1|2|4) [SIZE [REPS]]]     default 4 96 2
// Checksum on stdout (the same for any STREAMS, and for the hazard twin);
// elapsed_ms= (the timed pass, after a warm-up pass) on stderr.
#include <cublas_v2.h>

#include "seed_common.h"

#define PAIRS 4
#define USAGE "[STREAMS(1|2|4) [SIZE(16-8192) [REPS(1-1000)]]]"

static int nstreams, n, reps;
static cudaStream_t s[PAIRS];
static cublasHandle_t h[PAIRS];
static float *dA[PAIRS], *dB[PAIRS], *dC[PAIRS];

// One pass of the work: every product REPS times, timed on s[0].
static float pass(seed_timer *t, cudaEvent_t ev)
{
    const float one = 1.0f, zero = 0.0f;
    CHECK(cudaEventRecord(t->start, s[0]));
    for (int k = 1; k < nstreams; k++)
        CHECK(cudaStreamWaitEvent(s[k], t->start, 0));
    for (int r = 0; r < reps; r++)
        for (int j = 0; j < PAIRS; j++) {
            int k = j % nstreams;
            CHECK_BLAS(cublasSgemm(h[k], CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, dA[j], n, dB[j], n,
                                   &zero, dC[j], n));
        }
    for (int k = 1; k < nstreams; k++)
        seed_join(s[0], s[k], ev);
    CHECK(cudaEventRecord(t->stop, s[0]));
    seed_settle(s[0]);
    return seed_timer_ms(t);
}

int main(int argc, char **argv)
{
    nstreams = (int)seed_arg(argc, argv, 1, 4, 1, 4, USAGE);
    n = (int)seed_arg(argc, argv, 2, 96, 16, 8192, USAGE);
    reps = (int)seed_arg(argc, argv, 3, 2, 1, 1000, USAGE);
    if (nstreams == 3) {
        fprintf(stderr, "usage: %s %s\n", argv[0], USAGE);
        return 2;
    }
    size_t nn = (size_t)n * n;

    // Handles, memory and streams first, while nothing runs: cublasCreate
    // allocates its workspace, and an allocation while streams are busy would
    // be SC301 (PG, Implicit Synchronization).
    // One statement per handle rather than a loop: cuBLAS allocates several
    // times in each cublasCreate and cublasDestroy (3 with CUDA 13.0 on an
    // H100), and ten or more allocations from one call site are SC303.  All
    // four handles and streams exist whatever STREAMS is; STREAMS says how
    // many of them get products.
    CHECK_BLAS(cublasCreate(&h[0]));
    CHECK_BLAS(cublasCreate(&h[1]));
    CHECK_BLAS(cublasCreate(&h[2]));
    CHECK_BLAS(cublasCreate(&h[3]));
    float *host, *dev;
    CHECK(cudaMallocHost(&host, 3 * PAIRS * nn * sizeof(float)));
    CHECK(cudaMalloc(&dev, 3 * PAIRS * nn * sizeof(float)));
    for (int j = 0; j < PAIRS; j++) {
        dA[j] = dev + (3 * j) * nn;
        dB[j] = dev + (3 * j + 1) * nn;
        dC[j] = dev + (3 * j + 2) * nn;
    }
    for (int k = 0; k < PAIRS; k++) {
        CHECK(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking));
        CHECK_BLAS(cublasSetStream(h[k], s[k]));
    }
    cudaEvent_t ev;
    CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    seed_timer t;
    seed_timer_init(&t);

    // The operands, uploaded on the stream of their product (seed 000:
    // torch.randn(..., device=device)).
    seed_fill_random(host, 3 * PAIRS * nn, 2024, -1.0f, 1.0f);
    for (int j = 0; j < PAIRS; j++)
        CHECK(cudaMemcpyAsync(dA[j], host + 3 * j * nn, 2 * nn * sizeof(float),
                              cudaMemcpyHostToDevice, s[j % nstreams]));

    // The first pass loads the kernels and warms the handles (seed 003:
    // "always warm up before profiling"); the second is the measurement.
    pass(&t, ev);
    seed_timed_begin();
    float ms = pass(&t, ev);
    seed_timed_end();

    for (int j = 0; j < PAIRS; j++)
        CHECK(cudaMemcpyAsync(host + j * nn, dC[j], nn * sizeof(float), cudaMemcpyDeviceToHost,
                              s[0]));
    seed_settle(s[0]);
    printf("seed000_matmul: %d products of %dx%d, checksum %.6f\n", PAIRS, n, n,
           seed_checksum(host, PAIRS * nn));
    fprintf(stderr, "seed000_matmul_fixed: %d stream(s), %d reps\nelapsed_ms=%.3f\n", nstreams,
            reps, ms);

    cublasDestroy(h[0]); // expect: SC402 x0+
    cublasDestroy(h[1]); // expect: SC402 x0+
    cublasDestroy(h[2]); // expect: SC402 x0+
    cublasDestroy(h[3]); // expect: SC402 x0+
    seed_timer_free(&t);
    CHECK(cudaEventDestroy(ev));
    for (int k = 0; k < PAIRS; k++)
        CHECK(cudaStreamDestroy(s[k]));
    CHECK(cudaFree(dev));
    CHECK(cudaFreeHost(host));
    return 0;
}
