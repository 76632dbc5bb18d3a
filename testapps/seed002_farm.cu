// seed002_farm: seed 002 ("Nvidia MPS"), Exercise 4: one instance of a
// small GPU job, too small to fill a GPU by itself, for GPU farming:
// testapps/mps/mps-farm.sh starts N of them at once, without and then with
// the MPS control daemon.  Without MPS the processes' contexts take turns on
// the GPU (time slicing); with it their kernels can run at the same time
// (NVIDIA Multi-Process Service documentation, "Introduction").
//
// Each work item is a chain of matrix products on one created stream; the
// job uploads its matrices, runs ITEMS items and reads the result back.  No
// finding.
//
//   seed002_farm [ITEMS [SIZE [CHAIN]]]     default 4 48 4
// Checksum on stdout; items= and elapsed_ms= (the items, CUDA events) on
// stderr.
#include "seed_common.h"

#define USAGE "[ITEMS(1-100000) [SIZE(16-4096) [CHAIN(1-1000)]]]"

int main(int argc, char **argv)
{
    int items = (int)seed_arg(argc, argv, 1, 4, 1, 100000, USAGE);
    int n = (int)seed_arg(argc, argv, 2, 48, 16, 4096, USAGE);
    int chain = (int)seed_arg(argc, argv, 3, 4, 1, 1000, USAGE);
    size_t nn = (size_t)n * n;

    float *h, *d;
    CHECK(cudaMallocHost(&h, 2 * nn * sizeof(float)));
    CHECK(cudaMalloc(&d, 3 * nn * sizeof(float)));
    float *a = d, *b = d + nn, *c = d + 2 * nn;
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    seed_timer t;
    seed_timer_init(&t);

    // torch.randn(matrix_size, matrix_size) in the seed; values near 1/sqrt(n)
    // keep the chained products bounded.
    float r = 1.0f / (float)n;
    seed_fill_random(h, 2 * nn, 2002, -r, 3 * r);
    CHECK(cudaMemcpyAsync(a, h, 2 * nn * sizeof(float), cudaMemcpyHostToDevice, s));
    dim3 block(SC_MM_TILE, SC_MM_TILE), grid((n + SC_MM_TILE - 1) / SC_MM_TILE, (n + SC_MM_TILE - 1) / SC_MM_TILE);
    seed_timed_begin();
    CHECK(cudaEventRecord(t.start, s));
    for (int i = 0; i < items; i++) {
        // c = a b, then b = a c, ...: a chain whose result depends on every step.
        for (int k = 0; k < chain; k++) {
            sc_matmul<<<grid, block, 0, s>>>(n, a, b, c);
            float *x = b;
            b = c;
            c = x;
        }
    }
    LAUNCHED();
    CHECK(cudaEventRecord(t.stop, s));
    CHECK(cudaMemcpyAsync(h, b, nn * sizeof(float), cudaMemcpyDeviceToHost, s));
    seed_settle(s);
    seed_timed_end();

    printf("seed002_farm: %d items of %d products %dx%d, checksum %.6e\n", items, chain, n, n,
           seed_checksum(h, nn));
    fprintf(stderr, "items=%d\nelapsed_ms=%.3f\n", items, seed_timer_ms(&t));

    seed_timer_free(&t);
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    return 0;
}
