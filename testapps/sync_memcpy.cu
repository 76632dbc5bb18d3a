// sync_memcpy: SC201 sync-memcpy, with the documented exception.
//
// cudaMemcpy blocks the host for pinned host-to-device, pageable
// host-to-device over 64 KiB and every device-to-host copy; a pageable
// host-to-device copy of 64 KiB or less returns once staged (CUDA Driver
// API, API synchronization behavior; Programming Guide, Concurrent
// Execution between Host and Device).  Fixed twin: sync_memcpy_fixed.cu.
#include "common.h"

#define N (2 << 20)
#define SMALL (4096 / sizeof(float))

int main(void)
{
    float *h, *p, *d;
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    p = (float *)malloc(N * sizeof(float));
    fill_host(h, N);
    fill_host(p, N);
    CHECK(cudaMalloc(&d, N * sizeof(float)));

    CHECK(cudaMemcpy(d, h, N * sizeof(float), cudaMemcpyHostToDevice)); // expect: SC201 x1
    CHECK(cudaMemcpy(d, p, SMALL * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d + SMALL, p, (N - SMALL) * sizeof(float), cudaMemcpyHostToDevice)); // expect: SC201 x1
    CHECK(cudaMemcpy(h, d, N * sizeof(float), cudaMemcpyDeviceToHost)); // expect: SC201 x1
    printf("sync_memcpy: checksum %.6f\n", checksum(h, N));

    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    free(p);
    return 0;
}
