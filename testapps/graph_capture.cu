// graph_capture: a CUDA graph captured on a created stream and launched on
// the legacy stream, with legacy-stream work before, during and after the
// capture.  Under --redirect=per-thread the work outside the capture moves
// to the per-thread stream; the call made during the capture must not move
// (nothing is redirected while a capture is in progress).  Output is
// identical with and without redirect.
//
// The legacy-stream memset during the global-mode capture is accepted: the
// capturing stream is non-blocking, so the legacy stream does not
// synchronize with it (CUDA C++ Programming Guide, Graphs > Stream Capture,
// cross-stream dependencies; seen on an H100 with CUDA 13.0, and modelled
// the same way by the simulator).
#include "common.h"

#define N (1 << 16)
#define REPLAYS 4

int main(void)
{
    float *h, *d;
    cudaStream_t s;
    cudaGraph_t g = NULL;
    cudaGraphExec_t exec;
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    sc_fill<<<64, 256>>>(d, N, 1.0f); // expect: SC101 x1
    LAUNCHED();

    /* A capture during which the program also uses the legacy stream. */
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    sc_saxpy<<<64, 256, 0, s>>>(N, 2.0f, d, d);
    cudaError_t during = cudaMemsetAsync(d, 0, N * sizeof(float), 0); /* no barrier: s is non-blocking */
    cudaError_t ended = cudaStreamEndCapture(s, &g);
    printf("graph_capture: legacy work during capture %s; capture %s\n",
           during == cudaSuccess ? "accepted" : "rejected", ended == cudaSuccess ? "kept" : "invalidated");
    if (g)
        CHECK(cudaGraphDestroy(g));
    g = NULL;
    (void)cudaGetLastError();

    /* The real capture: three updates, replayed on the legacy stream. */
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    for (int i = 0; i < 3; i++)
        sc_saxpy<<<64, 256, 0, s>>>(N, 0.5f, d, d);
    LAUNCHED();
    CHECK(cudaStreamEndCapture(s, &g));
    CHECK(cudaGraphInstantiate(&exec, g, 0));
    for (int r = 0; r < REPLAYS; r++)
        CHECK(cudaGraphLaunch(exec, 0)); // expect: SC101 x4
    sc_spin<<<1, 1>>>(HOLD); // expect: SC101 x1
    LAUNCHED();
    CHECK(cudaStreamSynchronize(0));
    CHECK(cudaMemcpy(h, d, N * sizeof(float), cudaMemcpyDeviceToHost)); // expect: SC201 x1
    printf("graph_capture: checksum %.6f\n", checksum(h, N));

    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    return 0;
}
