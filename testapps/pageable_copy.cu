// pageable_copy: SC203 pageable-async-copy.
//
// cudaMemcpyAsync from malloc'd (pageable) memory is not asynchronous: a
// host-to-device copy first waits for its stream, a device-to-host copy
// returns only once it is done (CUDA Driver API, API synchronization
// behavior).  Fixed twin: pageable_copy_fixed.cu.  The HOLD spin before the
// download is the twin's (there it gives the final synchronization work to
// wait for; here the download waits for it): the two do the same work, so
// that what bench/seeds.py measures between them is the fix's gain alone.
#include "common.h"

#define N (1 << 20)
#define CHUNKS 4

int main(void)
{
    float *p, *d;
    cudaStream_t s;
    p = (float *)malloc(N * sizeof(float));
    fill_host(p, N);
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    const int chunk = N / CHUNKS;
    for (int c = 0; c < CHUNKS; c++) {
        sc_spin<<<1, 1, 0, s>>>(SPIN);
        LAUNCHED();
        CHECK(cudaMemcpyAsync(d + c * chunk, p + c * chunk, chunk * sizeof(float), cudaMemcpyHostToDevice, s)); // expect: SC203 x4
    }
    sc_saxpy<<<256, 256, 0, s>>>(N, 2.0f, d, d);
    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    CHECK(cudaMemcpyAsync(p, d, N * sizeof(float), cudaMemcpyDeviceToHost, s)); // expect: SC203 x1
    printf("pageable_copy: checksum %.6f\n", checksum(p, N));

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d));
    free(p);
    return 0;
}
