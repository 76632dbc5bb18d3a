// d2d_copy: SC204 same-device-copy.
//
// cudaMemcpy between two device buffers does not block the host, but it
// runs on the legacy stream and keeps the commands of other streams from
// overlapping it (CUDA C++ Programming Guide, Implicit Synchronization), if
// the legacy stream orders with them: blocking streams, like the one here
// (Driver API, Stream synchronization behavior).  Fixed twin: d2d_copy_fixed.cu.
#include "common.h"

#define N (1 << 20)

int main(void)
{
    float *h, *a, *b;
    cudaStream_t s;
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    fill_host(h, N);
    CHECK(cudaMalloc(&a, N * sizeof(float)));
    CHECK(cudaMalloc(&b, N * sizeof(float)));
    CHECK(cudaStreamCreate(&s)); // expect: SC102 x2

    CHECK(cudaMemcpyAsync(a, h, N * sizeof(float), cudaMemcpyHostToDevice, s));
    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(b, a, N * sizeof(float), cudaMemcpyDeviceToDevice)); // expect: SC204 x1
    CHECK(cudaMemcpy(h, b, N * sizeof(float), cudaMemcpyDeviceToHost)); // expect: SC201 x1
    printf("d2d_copy: checksum %.6f\n", checksum(h, N));

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFreeHost(h));
    return 0;
}
