// measure_overlap: two 100 ms kernels on two non-blocking streams run at
// once, so measured mode (--measure) sees about 100 ms of compute-with-
// compute overlap (tests/measure.sh).
#include "common.h"

int main(void)
{
    cudaStream_t a, b;
    CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    sc_spin<<<1, 1, 0, a>>>(MS(100));
    LAUNCHED();
    sc_spin<<<1, 1, 0, b>>>(MS(100));
    LAUNCHED();
    CHECK(cudaDeviceSynchronize()); // expect: SC401 x1
    printf("measure_overlap: done\n");
    CHECK(cudaStreamDestroy(a));
    CHECK(cudaStreamDestroy(b));
    return 0;
}
