// queue_limit: SC701 hardware-queue-limit.
//
// Twelve streams busy at once, with CUDA_DEVICE_MAX_CONNECTIONS at its
// default of 8: streams beyond the eighth share hardware queues and wait for
// each other (CUDA C++ Programming Guide, CUDA Environment Variables).
// Fixed twin: queue_limit_fixed.cu.
#include "common.h"

#define STREAMS 12

int main(void)
{
    cudaStream_t s[STREAMS];
    for (int i = 0; i < STREAMS; i++)
        CHECK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
    for (int i = 0; i < STREAMS; i++)
        sc_spin<<<1, 1, 0, s[i]>>>(MS(100)); // expect: SC701 x4
    LAUNCHED();
    CHECK(cudaDeviceSynchronize()); // expect: SC401 x1
    for (int i = 0; i < STREAMS; i++)
        CHECK(cudaStreamDestroy(s[i]));
    printf("queue_limit: %d streams done\n", STREAMS);
    return 0;
}
