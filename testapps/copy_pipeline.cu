// copy_pipeline: SC703 copies-serialize-compute.
//
// PIECES pieces of MIB MiB each go up to the device and back, with GPU_MS
// of kernels between (a spin), on one stream ("one", the default): each
// piece's upload waits for the previous piece's kernels and download, though
// the copy engines could run the copies beside the kernels.  "streams" (the fix) gives the copies
// an upload and a download stream, ordered with the kernels by events
// (cudaEventRecord, cudaStreamWaitEvent): piece i+1 uploads while piece i
// computes and piece i-1 downloads.  Each piece has a buffer of its own.
//
//   copy_pipeline [PIECES [MIB [GPU_MS [MODE]]]]   MODE: one (default) or streams
// The pieces' elapsed time goes to stderr ("elapsed_ms=..."), a checksum to
// stdout (the same either way).  The pieces are inside the NVTX range
// "pipeline": streamcheck --range=pipeline prices what that time covers
// (the self-test does; a GPU's copies and kernels of these sizes take a
// few milliseconds, its context and pinned buffers hundreds).
#include <time.h>

#include <nvtx3/nvToolsExt.h>

#include "common.h"

#define MAX_PIECES 64

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    int pieces = argc > 1 ? atoi(argv[1]) : 8;
    double mib = argc > 2 ? atof(argv[2]) : 16, gpu_ms = argc > 3 ? atof(argv[3]) : 0.5;
    int streams = argc > 4 && !strcmp(argv[4], "streams");
    if (pieces < 1 || pieces > MAX_PIECES || !(mib > 0 && mib <= 256) || !(gpu_ms >= 0) ||
        (argc > 4 && !streams && strcmp(argv[4], "one"))) {
        fprintf(stderr, "usage: %s [PIECES(1-%d) [MIB(0-256] [GPU_MS [one|streams]]]]\n", argv[0], MAX_PIECES);
        return 2;
    }
    size_t n = (size_t)(mib * 1048576.0 / sizeof(float)), bytes = n * sizeof(float);
    // Written before the first CUDA call, then pinned where they are.
    float *h_in = (float *)malloc(pieces * bytes), *h_out = (float *)calloc(pieces * n, sizeof(float)), *d;
    if (!h_in || !h_out) {
        fprintf(stderr, "copy_pipeline: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < pieces * n; i++)
        h_in[i] = (float)(i % 1000) * 0.5f;
    CHECK(cudaHostRegister(h_in, pieces * bytes, cudaHostRegisterDefault));
    CHECK(cudaHostRegister(h_out, pieces * bytes, cudaHostRegisterDefault));
    CHECK(cudaMalloc((void **)&d, pieces * bytes));
    cudaStream_t s, up, down;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&up, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&down, cudaStreamNonBlocking));
    cudaEvent_t uploaded[MAX_PIECES], computed[MAX_PIECES];
    for (int i = 0; i < pieces; i++) {
        CHECK(cudaEventCreateWithFlags(&uploaded[i], cudaEventDisableTiming));
        CHECK(cudaEventCreateWithFlags(&computed[i], cudaEventDisableTiming));
    }
    sc_spin<<<1, 1, 0, s>>>(0);   // warm up outside the timed part: a kernel, a copy each way
    LAUNCHED();
    CHECK(cudaMemcpyAsync(d, h_in, bytes, cudaMemcpyHostToDevice, up));
    CHECK(cudaMemcpyAsync(h_out, d, bytes, cudaMemcpyDeviceToHost, up));
    CHECK(cudaStreamSynchronize(up)); // expect: SC402 x0+
    CHECK(cudaStreamSynchronize(s)); // expect: SC402 x0+
    double t0 = now_ms();
    nvtxRangePushA("pipeline");
    for (int i = 0; i < pieces; i++) {
        float *hi = h_in + i * n, *ho = h_out + i * n, *di = d + i * n;
        CHECK(cudaMemcpyAsync(di, hi, bytes, cudaMemcpyHostToDevice, streams ? up : s)); // expect: SC703 x1 warning
        if (streams) {
            CHECK(cudaEventRecord(uploaded[i], up));
            CHECK(cudaStreamWaitEvent(s, uploaded[i], 0));
        }
        sc_spin<<<1, 1, 0, s>>>((unsigned long long)(gpu_ms * 1e6));
        LAUNCHED();
        if (streams) {
            CHECK(cudaEventRecord(computed[i], s));
            CHECK(cudaStreamWaitEvent(down, computed[i], 0));
        }
        CHECK(cudaMemcpyAsync(ho, di, bytes, cudaMemcpyDeviceToHost, streams ? down : s));
    }
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaStreamSynchronize(up)); // expect: SC402 x0+
    CHECK(cudaStreamSynchronize(down)); // expect: SC402 x0+
    nvtxRangePop();
    fprintf(stderr, "elapsed_ms=%.3f\n", now_ms() - t0);
    double sum = 0;
    for (size_t i = 0; i < pieces * n; i++)
        sum += h_out[i];
    printf("copy_pipeline: %d pieces of %zu floats, checksum %.1f\n", pieces, n, sum);
    for (int i = 0; i < pieces; i++) {
        CHECK(cudaEventDestroy(uploaded[i]));
        CHECK(cudaEventDestroy(computed[i]));
    }
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaStreamDestroy(up));
    CHECK(cudaStreamDestroy(down));
    CHECK(cudaFree(d));
    CHECK(cudaHostUnregister(h_in));
    CHECK(cudaHostUnregister(h_out));
    free(h_in);
    free(h_out);
    return 0;
}
