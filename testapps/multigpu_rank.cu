// multigpu_rank: one rank of a data-parallel job, the way torchrun or
// srun starts one process per GPU: it works on device LOCAL_RANK (modulo
// the devices it sees; 0 without the variable) and copies its batch from
// pageable memory with cudaMemcpyAsync on the legacy stream (SC203, with
// SC101 under it).  tests/multigpu.sh runs two with RANK=0 and RANK=1 and
// merges their reports, which must name the ranks.
#include "common.h"

#define BATCH (1 << 20)

int main(void)
{
    int n = 0, dev = 0;
    CHECK(cudaGetDeviceCount(&n));
    const char *lr = getenv("LOCAL_RANK");
    if (lr && n > 0)
        dev = atoi(lr) % n;
    CHECK(cudaSetDevice(dev));
    float *batch = (float *)malloc(BATCH * sizeof(float)), *d;
    fill_host(batch, BATCH);
    CHECK(cudaMalloc(&d, BATCH * sizeof(float)));
    double sum = 0;
    for (int step = 0; step < 3; step++) {
        CHECK(cudaMemcpyAsync(d, batch, BATCH * sizeof(float), cudaMemcpyHostToDevice, 0)); // expect: SC203 x3
        sc_saxpy<<<256, 256>>>(BATCH, 0.5f, d, d); // expect: SC101 x3 note
        LAUNCHED();
        CHECK(cudaMemcpy(batch, d, sizeof(float), cudaMemcpyDeviceToHost)); // expect: SC201 x3 note
        sum += batch[0];
    }
    printf("multigpu_rank: device %d, sum %.6f\n", dev, sum);
    CHECK(cudaFree(d));
    free(batch);
    return 0;
}
