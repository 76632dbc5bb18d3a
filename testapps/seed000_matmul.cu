// seed000_matmul: seed 000, Exercises 1 and 2, as first written in C: the
// program creates streams for its products but uses one cuBLAS handle that
// was never given a stream.  cuBLAS then launches every kernel on the legacy
// default stream (cuBLAS Library, cublasSetStream: "if the stream is not
// set, all kernels use the default NULL stream"), so the products run one
// after another whatever the number of streams: SC601 at each call, as many
// times as cuBLAS launches kernels for it.  The legacy stream does not wait
// for the non-blocking streams that upload the operands, so it is ordered
// after them with events; the event recorded on stream 0 to join it back is
// legacy-stream work too (SC101).
//
// cublasDestroy synchronizes the device: SC402 where nothing was queued since
// the last wait, none where other streams' work merely finished before it
// (as many times as cuBLAS chooses).
// Fixed twin: seed000_matmul_fixed.cu (one handle per stream).
//
//   seed000_matmul [STREAMS(1|2|4) [SIZE [REPS]]]     default 4 96 2
// Checksum on stdout (the fixed twin's); elapsed_ms= on stderr.
#include <cublas_v2.h>

#include "seed_common.h"

#define PAIRS 4
#define USAGE "[STREAMS(1|2|4) [SIZE(16-8192) [REPS(1-1000)]]]"

static int nstreams, n, reps;
static cudaStream_t s[PAIRS];
static cublasHandle_t h;
static float *dA[PAIRS], *dB[PAIRS], *dC[PAIRS];

// One pass of the work: every product REPS times on stream 0, timed on s[0].
static float pass(seed_timer *t, cudaEvent_t ev)
{
    const float one = 1.0f, zero = 0.0f;
    CHECK(cudaEventRecord(t->start, s[0]));
    CHECK(cudaStreamWaitEvent(0, t->start, 0));
    for (int r = 0; r < reps; r++)
        for (int j = 0; j < PAIRS; j++)
            CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, dA[j], n, dB[j], n, &zero, dC[j], n)); // expect: SC601 x16+
    CHECK(cudaEventRecord(ev, 0)); // expect: SC101 x2
    CHECK(cudaStreamWaitEvent(s[0], ev, 0));
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
    CHECK_BLAS(cublasCreate(&h));
    float *host, *dev;
    CHECK(cudaMallocHost(&host, 3 * PAIRS * nn * sizeof(float)));
    CHECK(cudaMalloc(&dev, 3 * PAIRS * nn * sizeof(float)));
    for (int j = 0; j < PAIRS; j++) {
        dA[j] = dev + (3 * j) * nn;
        dB[j] = dev + (3 * j + 1) * nn;
        dC[j] = dev + (3 * j + 2) * nn;
    }
    for (int k = 0; k < nstreams; k++)
        CHECK(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking));
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
    // Stream 0 does not wait for non-blocking streams (CUDA Driver API,
    // Stream synchronization behavior): order the products after the uploads.
    for (int k = 0; k < nstreams; k++) {
        CHECK(cudaEventRecord(ev, s[k]));
        CHECK(cudaStreamWaitEvent(0, ev, 0));
    }

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
    fprintf(stderr, "seed000_matmul: %d stream(s), %d reps\nelapsed_ms=%.3f\n", nstreams,
            reps, ms);

    cublasDestroy(h); // expect: SC402 x0+
    seed_timer_free(&t);
    CHECK(cudaEventDestroy(ev));
    for (int k = 0; k < nstreams; k++)
        CHECK(cudaStreamDestroy(s[k]));
    CHECK(cudaFree(dev));
    CHECK(cudaFreeHost(host));
    return 0;
}
