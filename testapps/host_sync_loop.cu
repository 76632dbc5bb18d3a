// host_sync_loop: SC403 sync-starves-gpu.
//
// Each step queues GPU work, waits for it (cudaStreamSynchronize), then
// does host work before it queues the next step: the GPU idles while the
// host works, and the host idles while the GPU works.  Waiting once, at the
// end (mode "end", the fixed way), lets the two overlap: the run takes the
// longer of the two instead of their sum.  PyTorch's loss.item() in every
// step is this hazard.
//
//   host_sync_loop [STEPS [GPU_MS [HOST_MS [MODE [SETUP_MS]]]]]   MODE: each (default) or end
// The loop's elapsed time goes to stderr ("elapsed_ms=..."); SETUP_MS of host work come first (a set-up).
#include <time.h>

#include "common.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// Host work that keeps the CPU busy (preparing the next batch, say).
static void host_work(double ms)
{
    double end = now_ms() + ms;
    volatile double x = 0;
    while (now_ms() < end)
        for (int i = 0; i < 1000; i++)
            x += i * 0.5;
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 10;
    double gpu_ms = argc > 2 ? atof(argv[2]) : 10, host_ms = argc > 3 ? atof(argv[3]) : 8, setup_ms = argc > 5 ? atof(argv[5]) : 0;
    int each = argc > 4 ? strcmp(argv[4], "end") != 0 : 1;
    if (steps < 1 || gpu_ms < 0 || host_ms < 0 || setup_ms < 0) {
        fprintf(stderr, "usage: %s [STEPS [GPU_MS [HOST_MS [each|end [SETUP_MS]]]]]\n", argv[0]);
        return 2;
    }
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    sc_spin<<<1, 1, 0, s>>>(0);   // warm up outside the timed loop
    LAUNCHED();
    CHECK(cudaStreamSynchronize(s)); // expect: SC402 x0+
    host_work(setup_ms);   // NCCL's initialization, building a model, ...
    double t0 = now_ms();
    for (int i = 0; i < steps; i++) {
        sc_spin<<<1, 1, 0, s>>>((unsigned long long)(gpu_ms * 1e6));
        LAUNCHED();
        if (each)
            CHECK(cudaStreamSynchronize(s)); // expect: SC403 x10 warning
        host_work(host_ms);
    }
    CHECK(cudaStreamSynchronize(s)); // expect: SC402 x1
    fprintf(stderr, "elapsed_ms=%.3f\n", now_ms() - t0);
    printf("host_sync_loop: %d steps\n", steps);
    CHECK(cudaStreamDestroy(s));
    return 0;
}
