// seed003_nested_sin: seed 003 ("GPU Performance: Parallel Processing vs
// Overhead"): the nested sine, y = sin(sin(sin(sin(x)))), four launches as
// torch.sin makes, on chunks of an input that go through an upload stream, a
// compute stream and a download stream (the seed's nested_sin_gpu_streams).
//
// Modes:
//   events    (default) the stages are ordered with events
//             (cudaEventRecord + cudaStreamWaitEvent): the host never waits,
//             and chunk i+1 uploads while chunk i computes and chunk i-1
//             downloads.  No finding.
//   one       everything on one stream, in order (the seed's nested_sin_gpu
//             without its synchronizations).  No finding.
//   hostsync  the seed's literal order: the host synchronizes the upload
//             stream before computing and the compute stream before
//             downloading.  Each synchronization holds the host, so chunks do
//             not overlap; one that comes after its copy has finished waits
//             for nothing (SC402, a note whose count depends on timing), so
//             this mode is for bench/seeds.py, not for the self-test.
//
// Warm-up: iteration 0 is the first use of the sine kernel and of the copy
// paths, so it pays for loading them (seed 003, "Warmup for nested sine");
// its time and the median of the later ones are printed.
//
//   seed003_nested_sin [events|one|hostsync [ITERS [CHUNK]]]   default events 6 16384
// Checksum on stdout (the same in every mode); first_ms=, later_ms=,
// iter_ms= and elapsed_ms= (all chunks) on stderr.
#include "seed_common.h"

#define USAGE "[events|one|hostsync [ITERS(2-256) [CHUNK(256-67108864)]]]"
#define MAX_ITERS 256

static const char *const modes[] = {"events", "one", "hostsync", NULL};
enum { EVENTS, ONE, HOSTSYNC };

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int mode = seed_mode(argc, argv, 1, modes, USAGE);
    int iters = (int)seed_arg(argc, argv, 2, 6, 2, MAX_ITERS, USAGE);
    size_t chunk = (size_t)seed_arg(argc, argv, 3, 16384, 256, 64l << 20, USAGE);
    size_t total = (size_t)iters * chunk;

    float *x, *y, *dx, *dy;
    CHECK(cudaMallocHost(&x, total * sizeof(float)));
    CHECK(cudaMallocHost(&y, total * sizeof(float)));
    CHECK(cudaMalloc(&dx, 2 * total * sizeof(float)));
    dy = dx + total;
    cudaStream_t up, co, dn;
    CHECK(cudaStreamCreateWithFlags(&up, cudaStreamNonBlocking));
    if (mode == ONE) {
        co = dn = up;
    } else {
        CHECK(cudaStreamCreateWithFlags(&co, cudaStreamNonBlocking));
        CHECK(cudaStreamCreateWithFlags(&dn, cudaStreamNonBlocking));
    }
    cudaEvent_t uploaded, computed, start[MAX_ITERS], stop[MAX_ITERS];
    CHECK(cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&computed, cudaEventDisableTiming));
    for (int i = 0; i < iters; i++) {
        CHECK(cudaEventCreate(&start[i]));
        CHECK(cudaEventCreate(&stop[i]));
    }
    seed_fill_random(x, total, 3, -3.0f, 3.0f);

    int blocks = (int)((chunk + 255) / 256 < 1024 ? (chunk + 255) / 256 : 1024);
    seed_timed_begin(); // elapsed_ms= is every chunk's
    for (int i = 0; i < iters; i++) {
        float *xi = x + i * chunk, *yi = y + i * chunk, *dxi = dx + i * chunk, *dyi = dy + i * chunk;
        CHECK(cudaEventRecord(start[i], up));
        CHECK(cudaMemcpyAsync(dxi, xi, chunk * sizeof(float), cudaMemcpyHostToDevice, up)); // expect: SC703 x0+
        if (mode == HOSTSYNC)
            CHECK(cudaStreamSynchronize(up)); // upload_stream.synchronize()
        else
            seed_join(co, up, uploaded);
        sc_sin<<<blocks, 256, 0, co>>>((int)chunk, dxi, dyi);
        sc_sin<<<blocks, 256, 0, co>>>((int)chunk, dyi, dyi);
        sc_sin<<<blocks, 256, 0, co>>>((int)chunk, dyi, dyi);
        sc_sin<<<blocks, 256, 0, co>>>((int)chunk, dyi, dyi);
        LAUNCHED();
        if (mode == HOSTSYNC)
            CHECK(cudaStreamSynchronize(co)); // compute_stream.synchronize()
        else
            seed_join(dn, co, computed);
        CHECK(cudaMemcpyAsync(yi, dyi, chunk * sizeof(float), cudaMemcpyDeviceToHost, dn));
        CHECK(cudaEventRecord(stop[i], dn));
        if (mode == HOSTSYNC)
            CHECK(cudaStreamSynchronize(dn)); // download_stream.synchronize()
    }
    // The download stream's last copy comes after everything else.
    seed_settle(dn);
    seed_timed_end();

    printf("seed003_nested_sin: %d chunks of %zu, checksum %.6f\n", iters, chunk,
           seed_checksum(y, total));
    float ms[MAX_ITERS];
    fprintf(stderr, "seed003_nested_sin: %s\niter_ms=", modes[mode]);
    for (int i = 0; i < iters; i++) {
        CHECK(cudaEventElapsedTime(&ms[i], start[i], stop[i]));
        fprintf(stderr, "%s%.3f", i ? "," : "", ms[i]);
    }
    float all;
    CHECK(cudaEventElapsedTime(&all, start[0], stop[iters - 1]));
    float first = ms[0];
    qsort(ms + 1, (size_t)iters - 1, sizeof ms[0], cmp_float);
    float later = iters % 2 ? (ms[iters / 2] + ms[iters / 2 + 1]) / 2 : ms[iters / 2];
    fprintf(stderr, "\nfirst_ms=%.3f\nlater_ms=%.3f\nelapsed_ms=%.3f\n", first, later, all);

    for (int i = 0; i < iters; i++) {
        CHECK(cudaEventDestroy(start[i]));
        CHECK(cudaEventDestroy(stop[i]));
    }
    CHECK(cudaEventDestroy(uploaded));
    CHECK(cudaEventDestroy(computed));
    CHECK(cudaStreamDestroy(up));
    if (mode != ONE) {
        CHECK(cudaStreamDestroy(co));
        CHECK(cudaStreamDestroy(dn));
    }
    CHECK(cudaFree(dx));
    CHECK(cudaFreeHost(x));
    CHECK(cudaFreeHost(y));
    return 0;
}
