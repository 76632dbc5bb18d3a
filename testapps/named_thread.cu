// named_thread: SC101 from a named worker thread.
//
// The main thread keeps a non-blocking stream busy while a worker thread,
// named "sc_worker" with pthread_setname_np, launches on the legacy default
// stream.  The finding's call site names the thread: that is how a thread
// without Python frames (PyTorch's autograd engine thread, pt_autograd_0)
// is told apart in a report.  tests/callsites.sh checks the name in every
// format.
#include <pthread.h>

#include "common.h"

#define N (1 << 16)

static float *dw;
static cudaEvent_t filled;

static void *worker(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "sc_worker");
    sc_fill<<<64, 256>>>(dw, N, 2.0f); // expect: SC101 x1
    LAUNCHED();
    CHECK(cudaEventRecord(filled, 0)); // expect: SC101 x1
    return NULL;
}

int main(void)
{
    float *h, *d;
    cudaStream_t s;
    pthread_t th;
    CHECK(cudaMallocHost(&h, 2 * N * sizeof(float)));
    fill_host(h, N);
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaMalloc(&dw, N * sizeof(float)));
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&filled, cudaEventDisableTiming));

    CHECK(cudaMemcpyAsync(d, h, N * sizeof(float), cudaMemcpyHostToDevice, s));
    sc_spin<<<1, 1, 0, s>>>(HOLD);
    LAUNCHED();
    if (pthread_create(&th, NULL, worker, NULL) || pthread_join(th, NULL)) {
        fprintf(stderr, "named_thread: cannot run the worker thread\n");
        return 1;
    }
    CHECK(cudaStreamWaitEvent(s, filled, 0));
    CHECK(cudaMemcpyAsync(h + N, dw, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    printf("named_thread: checksum %.6f\n", checksum(h, 2 * N));

    CHECK(cudaEventDestroy(filled));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(dw));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    return 0;
}
// expect-api: cuLaunchKernel 2
