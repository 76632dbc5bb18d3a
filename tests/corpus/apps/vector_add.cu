// vector_add: a vectorAdd-style program, as NVIDIA's samples teach it (our
// code): host arrays from malloc, cudaMalloc, cudaMemcpy in, one kernel,
// cudaMemcpy out, verify, free.  One stream, nothing can overlap, and the
// host needs the result: a correct tool gives no warnings.  The legacy
// stream with no other stream is SC101's documented note; each synchronous
// copy is SC201's note: it blocked the host, but nothing else had work, so
// it cost nothing an asynchronous copy would have saved.
#include "common.h"

#define N (1 << 20)

int main(void)
{
    size_t bytes = N * sizeof(float);
    float *h_x = (float *)malloc(bytes), *h_y = (float *)malloc(bytes);
    float *d_x, *d_y;
    if (!h_x || !h_y) {
        fprintf(stderr, "vector_add: out of host memory\n");
        return 1;
    }
    for (int i = 0; i < N; i++) {
        h_x[i] = (float)(i % 100) / 100.0f;
        h_y[i] = 1.0f;
    }
    CHECK(cudaMalloc(&d_x, bytes));
    CHECK(cudaMalloc(&d_y, bytes));
    CHECK(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice)); // expect: SC201 x1 note
    CHECK(cudaMemcpy(d_y, h_y, bytes, cudaMemcpyHostToDevice)); // expect: SC201 x1 note

    int threads = 256, blocks = (N + threads - 1) / threads;
    sc_saxpy<<<blocks, threads>>>(N, 2.0f, d_x, d_y); // expect: SC101 x1 note
    LAUNCHED();
    CHECK(cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost)); // expect: SC201 x1 note

    int bad = 0;
    for (int i = 0; i < N; i++)
        if (h_y[i] != 2.0f * ((float)(i % 100) / 100.0f) + 1.0f)
            bad++;
    printf("vector_add: %s (%d mismatches), checksum %.6f\n", bad ? "FAILED" : "PASSED", bad, checksum(h_y, N));
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    free(h_x);
    free(h_y);
    return bad != 0;
}
