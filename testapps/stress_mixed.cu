// stress_mixed: 32 host threads x 100,000 CUDA calls of mixed kinds, for the
// interception tests.  Every count below is exact: streamcheck must report
// exactly these driver calls, and exactly the pageable copies as SC203 (a
// pinned copy classified as pageable, or the reverse, breaks the count).
//
// Each thread, every 16 calls: 6 launches, 2 pinned and 1 pageable
// host-to-device copies, 2 pinned and 1 pageable device-to-host copies,
// 2 memsets, 2 event records; all on its own non-blocking stream.
#include <pthread.h>

#include "common.h"

#define THREADS 32
#define CALLS 100000
#define BYTES 128

static float *dev, *pinned;
static char *pageable;

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    float *d = dev + t * 64;
    float *pin = pinned + t * 64;
    char *pg = pageable + t * 4096;
    cudaStream_t s;
    cudaEvent_t ev;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    for (int i = 0; i < CALLS; i++) {
        switch (i % 16) {
        case 0: case 4: case 7: case 8: case 12: case 15:
            sc_fill<<<1, 32, 0, s>>>(d, 32, (float)(i & 7));
            break;
        case 1: case 9:
            cudaMemcpyAsync(d, pin, BYTES, cudaMemcpyHostToDevice, s);
            break;
        case 3:
            cudaMemcpyAsync(d, pg, BYTES, cudaMemcpyHostToDevice, s); // expect: SC203 x200000
            break;
        case 5: case 13:
            cudaMemcpyAsync(pin, d, BYTES, cudaMemcpyDeviceToHost, s);
            break;
        case 11:
            cudaMemcpyAsync(pg + 2048, d, BYTES, cudaMemcpyDeviceToHost, s); // expect: SC203 x200000
            break;
        case 2: case 10:
            cudaMemsetAsync(d, 0, BYTES, s);
            break;
        case 6: case 14:
            cudaEventRecord(ev, s);
            break;
        }
    }
    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    /* Normally busy, but a thread descheduled longer than HOLD finds its
       stream done (seen on a 16-core host running 32 threads). */
    CHECK(cudaStreamSynchronize(s)); // expect: SC402 x0+
    CHECK(cudaEventDestroy(ev));
    CHECK(cudaStreamDestroy(s));
    return NULL;
}

int main(void)
{
    pthread_t th[THREADS];
    CHECK(cudaMalloc(&dev, THREADS * 64 * sizeof(float)));
    CHECK(cudaMallocHost(&pinned, THREADS * 64 * sizeof(float)));
    pageable = (char *)malloc(THREADS * 4096);
    memset(pageable, 1, THREADS * 4096);
    for (long t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    printf("stress_mixed: %d threads x %d calls done\n", THREADS, CALLS);
    CHECK(cudaFree(dev));
    CHECK(cudaFreeHost(pinned));
    free(pageable);
    return 0;
}
// expect-api: cuLaunchKernel 1200032
// expect-api: cuMemcpyHtoDAsync_v2 600000
// expect-api: cuMemcpyDtoHAsync_v2 600000
// expect-api: cuEventRecord 400000
