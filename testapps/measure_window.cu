// measure_window: STEPS steps (default 6) of about 100 ms, each a tiny
// legacy-stream kernel between two 50 ms kernels on two blocking streams,
// as measure_barrier's one: each legacy kernel costs about 50 ms of GPU
// time.  The streams swap places every step, so a step's held-back kernel
// is never the first on its stream in the next step.  Run with
// --measure-window so that the window holds some of the steps: the
// report's GPU numbers cover the window, and the SC101's cost is scaled
// from its calls there to all six (tests/measure.sh).
#include "common.h"

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 6;
    cudaStream_t a, b;
    CHECK(cudaStreamCreate(&a)); // expect: SC102 x1
    CHECK(cudaStreamCreate(&b)); // expect: SC102 x1
    for (int i = 0; i < steps; i++) {
        cudaStream_t first = i % 2 ? b : a, then = i % 2 ? a : b;
        sc_spin<<<1, 1, 0, first>>>(MS(50));
        LAUNCHED();
        sc_spin<<<1, 1>>>(0); // expect: SC101 x6
        LAUNCHED();
        sc_spin<<<1, 1, 0, then>>>(MS(50));
        LAUNCHED();
        CHECK(cudaStreamSynchronize(then));
    }
    printf("measure_window: %d steps\n", steps);
    CHECK(cudaStreamDestroy(a));
    CHECK(cudaStreamDestroy(b));
    return 0;
}
