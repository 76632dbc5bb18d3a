// queue_limit_fixed: the twelve kernels of queue_limit.cu on six streams,
// joined through events on a seventh: never more busy streams than queues.
#include "common.h"

#define STREAMS 6
#define KERNELS 12

int main(void)
{
    cudaStream_t s[STREAMS], join;
    cudaEvent_t e[STREAMS];
    for (int i = 0; i < STREAMS; i++) {
        CHECK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
        CHECK(cudaEventCreateWithFlags(&e[i], cudaEventDisableTiming));
    }
    CHECK(cudaStreamCreateWithFlags(&join, cudaStreamNonBlocking));
    for (int k = 0; k < KERNELS; k++)
        sc_spin<<<1, 1, 0, s[k % STREAMS]>>>(MS(50));
    LAUNCHED();
    for (int i = 0; i < STREAMS; i++) {
        CHECK(cudaEventRecord(e[i], s[i]));
        CHECK(cudaStreamWaitEvent(join, e[i], 0));
    }
    sc_spin<<<1, 1, 0, join>>>(SPIN);
    LAUNCHED();
    CHECK(cudaStreamSynchronize(join));
    for (int i = 0; i < STREAMS; i++) {
        CHECK(cudaStreamDestroy(s[i]));
        CHECK(cudaEventDestroy(e[i]));
    }
    CHECK(cudaStreamDestroy(join));
    printf("queue_limit: %d streams done\n", STREAMS * 2);
    return 0;
}
