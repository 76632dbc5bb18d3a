// queue_depth: SC701 hardware-queue-limit where it costs.
//
// Twelve streams, each running two spins in turn, as NVIDIA's simpleHyperQ
// runs kernel_A then kernel_B on each of its streams, with
// CUDA_DEVICE_MAX_CONNECTIONS at its default of 8 (CUDA C++ Programming
// Guide, CUDA Environment Variables): streams beyond the eighth share a
// hardware queue with an earlier one, and a queue starts its work in the
// order it was queued, so a second spin, which cannot start before its own
// stream's first, holds up the other stream's work behind it.  The first
// spin of each of the last four streams makes more streams busy than queues
// (an SC701 that costs nothing yet: queue_limit's case); their second spin
// is the one that waits behind its own stream's work (that grading is
// behind the test hook STREAMCHECK_TEST_QUEUE_DEPTH=1, which selftest.list
// sets; without it the second spins find nothing).  Fixed twin: raise the
// variable to 32, or queue_limit_fixed.cu's fewer streams.
#include "common.h"

#define STREAMS 12

int main(void)
{
    cudaStream_t s[STREAMS];
    for (int i = 0; i < STREAMS; i++)
        CHECK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
    for (int i = 0; i < STREAMS; i++) {
        sc_spin<<<1, 1, 0, s[i]>>>(MS(20)); // expect: SC701 x4
        sc_spin<<<1, 1, 0, s[i]>>>(MS(20)); // expect: SC701 x4
    }
    LAUNCHED();
    CHECK(cudaDeviceSynchronize()); // expect: SC401 x1
    for (int i = 0; i < STREAMS; i++)
        CHECK(cudaStreamDestroy(s[i]));
    printf("queue_depth: %d streams done\n", STREAMS);
    return 0;
}
