// launch_overhead: launches per second of an empty kernel.
//   launch_overhead legacy|stream [LAUNCHES]
// legacy: on the legacy default stream in a one-stream program (streamcheck
// notes each launch, SC101); stream: on a created non-blocking stream (the
// shim's fast path).  Prints "launches_per_sec=N".  Run natively and under
// streamcheck, side by side, by bench/launch-overhead.sh.
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
    cudaStream_t s = 0;
    if (!strcmp(argv[1], "stream") && cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess)
        return 1;
    for (int i = 0; i < 2000; i++)
        sc_empty<<<1, 1, 0, s>>>();
    if (cudaStreamSynchronize(s) != cudaSuccess)
        return 1;
    double t0 = now();
    for (long i = 0; i < n; i++)
        sc_empty<<<1, 1, 0, s>>>();
    cudaError_t e = cudaStreamSynchronize(s);
    double t = now() - t0;
    if (e != cudaSuccess) {
        fprintf(stderr, "launch_overhead: %s\n", cudaGetErrorString(e));
        return 1;
    }
    printf("launches_per_sec=%.0f\n", n / t);
    return 0;
}
