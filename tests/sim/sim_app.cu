// tests/sim/sim_app.cu: an ordinary CUDA program, built by nvcc with
// -cudart shared, that tests/sim/e2e.sh runs unchanged on the simulator
// (LD_LIBRARY_PATH=$SC_SIMDIR).  It uses <<<>>>, streams, copies, events
// and a captured graph and prints what it observed; built twice, with the
// legacy default stream (sim_app) and with --default-stream per-thread
// (sim_app_pt), whose default stream does not wait for other streams.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "sc_kernels.cuh"

#define CHECK(call)                                                          \
    do {                                                                     \
        cudaError_t e_ = (call);                                             \
        if (e_ != cudaSuccess) {                                             \
            printf("FAIL %s: %s\n", #call, cudaGetErrorName(e_));            \
            return 1;                                                        \
        }                                                                    \
    } while (0)

static double now_ms()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main()
{
    const int n = 1 << 16;
    const size_t bytes = n * sizeof(float);
    float *x, *y, *pinned;
    CHECK(cudaMalloc(&x, bytes));
    CHECK(cudaMalloc(&y, bytes));
    CHECK(cudaMallocHost(&pinned, bytes));
    float *pageable = (float *)malloc(bytes), *want = (float *)malloc(bytes);
    for (int i = 0; i < n; i++) {
        pageable[i] = pinned[i] = i * 0.25f;
        want[i] = fmaf(2.0f, pageable[i], 1.0f);
    }

    // Kernels and copies on a created (blocking) stream.
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMemcpyAsync(x, pinned, bytes, cudaMemcpyHostToDevice, s));
    sc_fill<<<64, 256, 0, s>>>(y, n, 1.0f);
    sc_saxpy<<<64, 256, 0, s>>>(n, 2.0f, x, y);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(pinned, y, bytes, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    printf("saxpy: %s\n", memcmp(pinned, want, bytes) == 0 ? "ok" : "MISMATCH");

    // Events around a 100 ms kernel.
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    CHECK(cudaEventRecord(a, s));
    sc_spin<<<1, 1, 0, s>>>(100000000ull);
    CHECK(cudaEventRecord(b, s));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    printf("event elapsed >= 95 ms: %s\n", ms >= 95.0f ? "yes" : "no");

    // A synchronous copy on the default stream after a 150 ms kernel on
    // the blocking stream s: the legacy default stream waits for it, a
    // per-thread default stream does not.
    double t0 = now_ms();
    sc_spin<<<1, 1, 0, s>>>(150000000ull);
    CHECK(cudaMemcpy(pageable, y, sizeof(float), cudaMemcpyDeviceToHost));
    double waited = now_ms() - t0;
    printf("sync copy waited for blocking stream: %s\n",
           waited >= 140.0 ? "yes" : "no");
    CHECK(cudaStreamSynchronize(s));

    // No default stream waits for a non-blocking stream.
    cudaStream_t nb;
    CHECK(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));
    sc_spin<<<1, 1, 0, nb>>>(1000000000ull);
    CHECK(cudaMemcpy(pageable, y, sizeof(float), cudaMemcpyDeviceToHost));
    printf("sync copy waited for non-blocking stream: %s\n",
           cudaStreamQuery(nb) == cudaErrorNotReady ? "no" : "yes");
    CHECK(cudaStreamSynchronize(nb));

    // Capture one saxpy into a graph and replay it twice: y = 0 + x + x.
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    sc_saxpy<<<64, 256, 0, s>>>(n, 1.0f, x, y);
    CHECK(cudaStreamEndCapture(s, &g));
    CHECK(cudaGraphInstantiate(&ge, g, 0));
    CHECK(cudaMemsetAsync(y, 0, bytes, s));
    CHECK(cudaGraphLaunch(ge, s));
    CHECK(cudaGraphLaunch(ge, s));
    CHECK(cudaMemcpyAsync(pinned, y, bytes, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    bool ok = true;
    for (int i = 0; i < n; i++)
        ok = ok && pinned[i] == 2.0f * (i * 0.25f);
    printf("graph replay: %s\n", ok ? "ok" : "MISMATCH");

    // The default stream.
    sc_fill<<<1, 32>>>(y, 8, 5.0f);
    CHECK(cudaMemcpy(pageable, y, 8 * sizeof(float), cudaMemcpyDeviceToHost));
    printf("default stream: %s\n", pageable[7] == 5.0f ? "ok" : "MISMATCH");

    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    printf("device: %s (%d SMs, compute capability %d.%d)\n", p.name,
           p.multiProcessorCount, p.major, p.minor);

    CHECK(cudaGraphExecDestroy(ge));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaStreamDestroy(nb));
    CHECK(cudaFreeHost(pinned));
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    free(pageable);
    free(want);
    printf("done\n");
    return 0;
}
