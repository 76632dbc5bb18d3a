// graphs: what CUDA graphs' API calls cost the host, the figures NVIDIA's
// cudaGraphsPerfScaling sample reports for a chain of kernels that do
// nothing (sc_spin(0), which the simulator runs too).
//   graphs [KERNELS [REPS]]      (default 20 kernels, 200 repetitions)
// Each repetition, on a stream made by cudaStreamCreate (blocking, as the
// sample's), times with the host's monotonic clock:
//   capture_us      cudaStreamBeginCapture, KERNELS launches, cudaStreamEndCapture
//   instantiate_us  cudaGraphInstantiate (streamcheck does not intercept it:
//                   a control for the machine's own drift)
//   launch_us       cudaGraphLaunch into the idle stream
//   relaunch_us     cudaGraphLaunch again, right after, into the busy stream
// then waits for the stream and frees the graph.  The first 10 repetitions
// warm up; the median of the rest of each figure is printed as NAME=value.
// Run natively and under streamcheck, alternating, by bench/side-by-side.sh
// (make bench).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "sc_kernels.cuh"

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define CHECK(x)                                                                              \
    do {                                                                                      \
        cudaError_t e_ = (x);                                                                 \
        if (e_ != cudaSuccess) {                                                              \
            fprintf(stderr, "graphs: %s: %s\n", #x, cudaGetErrorString(e_));                  \
            return 1;                                                                         \
        }                                                                                     \
    } while (0)

int main(int argc, char **argv)
{
    int kernels = argc > 1 ? atoi(argv[1]) : 20, reps = argc > 2 ? atoi(argv[2]) : 200;
    const int warm = 10;
    if (kernels < 1 || reps < 1) {
        fprintf(stderr, "usage: %s [KERNELS [REPS]]\n", argv[0]);
        return 2;
    }
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    sc_spin<<<1, 1, 0, s>>>(0);
    CHECK(cudaStreamSynchronize(s));
    std::vector<double> capture, inst, launch, relaunch;
    for (int r = 0; r < warm + reps; r++) {
        cudaGraph_t g;
        cudaGraphExec_t x;
        double t0 = now_us();
        CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
        for (int k = 0; k < kernels; k++)
            sc_spin<<<1, 1, 0, s>>>(0);
        CHECK(cudaStreamEndCapture(s, &g));
        double t1 = now_us();
        CHECK(cudaGraphInstantiate(&x, g, 0));
        double t2 = now_us();
        CHECK(cudaGraphLaunch(x, s));
        double t3 = now_us();
        CHECK(cudaGraphLaunch(x, s));
        double t4 = now_us();
        CHECK(cudaStreamSynchronize(s));
        CHECK(cudaGraphExecDestroy(x));
        CHECK(cudaGraphDestroy(g));
        if (r < warm)
            continue;
        capture.push_back(t1 - t0);
        inst.push_back(t2 - t1);
        launch.push_back(t3 - t2);
        relaunch.push_back(t4 - t3);
    }
    CHECK(cudaStreamDestroy(s));
    printf("graphs: %d kernels, %d repetitions\n", kernels, reps);
    printf("capture_us=%.3f\ninstantiate_us=%.3f\nlaunch_us=%.3f\nrelaunch_us=%.3f\n", median(capture),
           median(inst), median(launch), median(relaunch));
    return 0;
}
