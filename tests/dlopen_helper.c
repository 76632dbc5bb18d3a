/* dlopen_helper.c: a library that uses the CUDA runtime, loaded late with
 * dlopen by tests/late_dlopen (RTLD_GLOBAL or RTLD_LOCAL), the way Python
 * loads PyTorch.  Its runtime calls bind to streamcheck's exported wrappers,
 * which must find the real libcudart.so.13 even when it is only in the
 * library's local scope. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <time.h>

/* Keeps the stream busy long enough that a synchronization right after it
   always has work to wait for. */
static void CUDART_CB hold(void *arg)
{
    (void)arg;
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

int sc_dlopen_work(void);
__attribute__((visibility("default"))) int sc_dlopen_work(void)
{
    cudaStream_t s;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess)
        return -1;
    int bad = 0;
    for (int i = 0; i < 3; i++)
        bad |= cudaLaunchHostFunc(0, hold, NULL) != cudaSuccess; // expect: SC101 x3
    for (int i = 0; i < 2; i++)
        bad |= cudaLaunchHostFunc(s, hold, NULL) != cudaSuccess;
    bad |= cudaStreamSynchronize(s) != cudaSuccess;
    bad |= cudaStreamSynchronize(0) != cudaSuccess;
    bad |= cudaStreamDestroy(s) != cudaSuccess;
    return bad ? -1 : 5;
}
// expect-api: cuLaunchHostFunc 5
// expect-api: cuStreamCreate 1
