// measure_barrier: a tiny legacy-stream kernel between two 100 ms kernels
// on two blocking streams.  The legacy kernel waits for the first and the
// second waits for it (CUDA Driver API, Stream synchronization behavior),
// so the phase takes 200 ms instead of 100: measured mode (--measure)
// prices the SC101 at about 100 ms of GPU time (tests/measure.sh).
#include "common.h"

int main(void)
{
    cudaStream_t a, b;
    CHECK(cudaStreamCreate(&a)); // expect: SC102 x1
    CHECK(cudaStreamCreate(&b)); // expect: SC102 x1
    sc_spin<<<1, 1, 0, a>>>(MS(100));
    LAUNCHED();
    sc_spin<<<1, 1>>>(0); // expect: SC101 x1
    LAUNCHED();
    sc_spin<<<1, 1, 0, b>>>(MS(100));
    LAUNCHED();
    CHECK(cudaStreamSynchronize(a));
    CHECK(cudaStreamSynchronize(b));
    printf("measure_barrier: done\n");
    CHECK(cudaStreamDestroy(a));
    CHECK(cudaStreamDestroy(b));
    return 0;
}
