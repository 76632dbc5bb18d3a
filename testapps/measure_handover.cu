// measure_handover: a program with a CUPTI profiler of its own, started
// part-way through the run as torch.profiler starts Kineto.  Only one CUPTI
// client works at a time (CUDA 13), so under --measure streamcheck must
// hand CUPTI over when the program subscribes, or the program's profiler
// gets nothing (tests/measure.sh).  Before the hand-over: the barrier of
// measure_barrier, an SC101 that costs about 100 ms of GPU time; after it,
// the program's own session: three kernels on a stream and one on the
// legacy stream between them, all four of which its profiler must see.
// With --dlsym it looks cuptiSubscribe up in libcupti's handle, as XLA's
// CUPTI wrapper does, instead of calling the function it was linked with.
// Built with -DSC_CUPTI_PLUGIN (measure_handover_plugin) the profiler is in
// libcupti-plugin.so, loaded with RTLD_LOCAL as Python loads PyTorch's
// libraries, so libcupti is out of the global scope's reach.
#include "common.h"
#ifdef SC_CUPTI_PLUGIN
#include <dlfcn.h>
#include <limits.h>
#include <unistd.h>
#else
#include "cupti_session.h"
#endif

int main(int argc, char **argv)
{
    cudaStream_t a, b;
    CHECK(cudaStreamCreate(&a)); // expect: SC102 x2
    CHECK(cudaStreamCreate(&b)); // expect: SC102 x2
    sc_spin<<<1, 1, 0, a>>>(MS(100));
    LAUNCHED();
    sc_spin<<<1, 1>>>(0); // expect: SC101 x1
    LAUNCHED();
    sc_spin<<<1, 1, 0, b>>>(MS(100));
    LAUNCHED();
    CHECK(cudaStreamSynchronize(a));
    CHECK(cudaStreamSynchronize(b));

#ifdef SC_CUPTI_PLUGIN
    // Next to the program, by full path: a sanitizer's dlopen interceptor
    // would look with its own RUNPATH, not ours.
    char path[PATH_MAX + 32];
    ssize_t n = readlink("/proc/self/exe", path, PATH_MAX);
    char *slash = n > 0 ? (path[n] = 0, strrchr(path, '/')) : NULL;
    if (slash)
        strcpy(slash + 1, "libcupti-plugin.so");
    void *plugin = dlopen(slash ? path : "libcupti-plugin.so", RTLD_NOW | RTLD_LOCAL);
    int (*session_start)(int) = plugin ? (int (*)(int))dlsym(plugin, "session_start") : NULL;
    size_t (*session_stop)(void) = plugin ? (size_t (*)(void))dlsym(plugin, "session_stop") : NULL;
    if (!session_start || !session_stop) {
        printf("measure_handover: libcupti-plugin.so: %s\n", dlerror());
        return 1;
    }
#endif
    int profiling = session_start(argc > 1 && !strcmp(argv[1], "--dlsym"));
    sc_spin<<<1, 1, 0, a>>>(MS(10));
    LAUNCHED();
    sc_spin<<<1, 1>>>(0); // expect: SC101 x1
    LAUNCHED();
    for (int i = 0; i < 2; i++) {
        sc_spin<<<1, 1, 0, a>>>(MS(10));
        LAUNCHED();
    }
    CHECK(cudaStreamSynchronize(a)); // the legacy kernel ran before the last two
    if (profiling)
        printf("measure_handover: the profiler saw %zu kernels\n", session_stop());
    CHECK(cudaStreamDestroy(a));
    CHECK(cudaStreamDestroy(b));
    return 0;
}
