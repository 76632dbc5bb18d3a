// async_api: an asyncAPI-style program on two created streams (our code):
// pinned host memory (cudaMallocHost), copy in, kernel and copy out
// queued on one stream, independent work on a second, events recorded on
// both, and the host polling cudaEventQuery (counting what it could do
// meanwhile) instead of blocking.  Everything is asynchronous: a correct
// tool gives nothing.
#include "common.h"

#define N (1 << 20)

int main(void)
{
    size_t bytes = N * sizeof(float);
    float *h, *d_a, *d_b;
    cudaStream_t copy_s, other_s;
    cudaEvent_t done, other_done;
    CHECK(cudaMallocHost(&h, bytes));
    for (int i = 0; i < N; i++)
        h[i] = (float)(i % 7);
    CHECK(cudaMalloc(&d_a, bytes));
    CHECK(cudaMalloc(&d_b, bytes));
    CHECK(cudaStreamCreateWithFlags(&copy_s, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&other_s, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&other_done, cudaEventDisableTiming));

    int threads = 256, blocks = (N + threads - 1) / threads;
    sc_fill<<<blocks, threads, 0, other_s>>>(d_b, N, 1.0f);
    LAUNCHED();
    sc_spin<<<1, 1, 0, other_s>>>(SPIN);
    LAUNCHED();
    CHECK(cudaEventRecord(other_done, other_s));

    CHECK(cudaMemcpyAsync(d_a, h, bytes, cudaMemcpyHostToDevice, copy_s));
    CHECK(cudaStreamWaitEvent(copy_s, other_done, 0));
    sc_saxpy<<<blocks, threads, 0, copy_s>>>(N, 3.0f, d_b, d_a);
    LAUNCHED();
    CHECK(cudaMemcpyAsync(h, d_a, bytes, cudaMemcpyDeviceToHost, copy_s));
    CHECK(cudaEventRecord(done, copy_s));

    unsigned long polls = 0;
    cudaError_t q;
    while ((q = cudaEventQuery(done)) == cudaErrorNotReady)
        polls++;
    CHECK(q);

    int bad = 0;
    for (int i = 0; i < N; i++)
        if (h[i] != (float)(i % 7) + 3.0f)
            bad++;
    printf("async_api: %s (%d mismatches), checksum %.6f\n", bad ? "FAILED" : "PASSED", bad, checksum(h, N));
    fprintf(stderr, "async_api: %lu polls while the GPU worked\n", polls);
    CHECK(cudaEventDestroy(done));
    CHECK(cudaEventDestroy(other_done));
    CHECK(cudaStreamDestroy(copy_s));
    CHECK(cudaStreamDestroy(other_s));
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFreeHost(h));
    return bad != 0;
}
