// launch_overhead: launches per second of an empty kernel.
//   launch_overhead legacy|stream [LAUNCHES [BATCHES]]
// legacy: on the legacy default stream in a one-stream program (streamcheck
// notes each launch, SC101); stream: on a created non-blocking stream (the
// shim's fast path).  The launches go in BATCHES (default 10) timed batches,
// each ended by a stream synchronize; prints the best batch's rate as
// "launches_per_sec=N" (the least disturbed by the rest of the machine) and
// the median batch's as "median_launches_per_sec=N".  Run natively and under
// streamcheck, side by side, by bench/side-by-side.sh.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

__global__ void sc_empty(void) {}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "legacy") && strcmp(argv[1], "stream"))) {
        fprintf(stderr, "usage: %s legacy|stream [LAUNCHES]\n", argv[0]);
        return 2;
    }
    long n = argc > 2 ? atol(argv[2]) : 200000;
    int batches = argc > 3 ? atoi(argv[3]) : 10;
    if (n < 1 || batches < 1 || batches > 1000) {
        fprintf(stderr, "usage: %s legacy|stream [LAUNCHES [BATCHES(1-1000)]]\n", argv[0]);
        return 2;
    }
    cudaStream_t s = 0;
    if (!strcmp(argv[1], "stream") && cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess)
        return 1;
    for (int i = 0; i < 2000; i++)
        sc_empty<<<1, 1, 0, s>>>();
    if (cudaStreamSynchronize(s) != cudaSuccess)
        return 1;
    static double rate[1000];
    long per = n / batches > 0 ? n / batches : 1;
    for (int b = 0; b < batches; b++) {
        double t0 = now();
        for (long i = 0; i < per; i++)
            sc_empty<<<1, 1, 0, s>>>();
        cudaError_t e = cudaStreamSynchronize(s);
        double t = now() - t0;
        if (e != cudaSuccess) {
            fprintf(stderr, "launch_overhead: %s\n", cudaGetErrorString(e));
            return 1;
        }
        rate[b] = per / t;
    }
    // Sort ascending (insertion sort: at most 1000 values).
    for (int i = 1; i < batches; i++)
        for (int j = i; j > 0 && rate[j - 1] > rate[j]; j--) {
            double x = rate[j];
            rate[j] = rate[j - 1];
            rate[j - 1] = x;
        }
    printf("launches_per_sec=%.0f\nmedian_launches_per_sec=%.0f\n", rate[batches - 1], rate[batches / 2]);
    return 0;
}
