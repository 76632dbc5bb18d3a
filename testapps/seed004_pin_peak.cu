// seed004_pin_peak: seed 004 ("CPU-GPU Interactions in PyTorch"), "Peak
// CPU Host Memory Usage with Pinning": the host-RAM peak of a pinned buffer
// made two ways, each measured in its own process.
//   alloc  pinned at allocation (torch.randn(size, pin_memory=True)):
//          cudaHostAlloc, then fill;
//   later  pinned later (tensor.pin_memory()): allocate pageable memory and
//          fill it, then allocate a new pinned buffer, copy into it and free
//          the pageable one, so both exist at once and the peak is about
//          twice the size (the seed measured +515 MiB against +1028 MiB for
//          512 MiB).
// The peak is the kernel's high-water mark of resident memory (VmHWM in
// /proc/self/status), reset just before (writing 5 to /proc/self/clear_refs,
// proc(5)) so CUDA's own start-up does not count.  The pinned buffer is then
// used: uploaded, scaled on the GPU, and a slice read back.  No finding.
//
//   seed004_pin_peak [alloc|later [MIB]]      default alloc 32
// Checksum on stdout (the same in both modes); delta_mib= (peak minus the
// resident size before), peak_mib=, base_mib= and elapsed_ms= (the pinning
// step, host clock) on stderr.
#include <time.h>

#include "seed_common.h"

#define USAGE "[alloc|later [MIB(1-65536)]]"
#define SLICE (1 << 18)

static const char *const modes[] = {"alloc", "later", NULL};

// A "VmRSS:"-style field of /proc/self/status, in KiB, or -1.
static long status_kib(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t k = strlen(field);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, field, k)) {
            v = strtol(line + k, NULL, 10);
            break;
        }
    if (f)
        fclose(f);
    return v;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    int later = seed_mode(argc, argv, 1, modes, USAGE);
    size_t mib = (size_t)seed_arg(argc, argv, 2, 32, 1, 65536, USAGE);
    size_t bytes = mib << 20, n = bytes / sizeof(float);

    // CUDA's context and the device buffers first: only the pinning step
    // should move the high-water mark.
    float *d, *back;
    CHECK(cudaMalloc(&d, bytes));
    CHECK(cudaMallocHost(&back, SLICE * sizeof(float)));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    FILE *f = fopen("/proc/self/clear_refs", "w");
    int reset = f && fputs("5", f) >= 0;
    if (f && fclose(f) != 0)
        reset = 0;
    if (!reset)
        fprintf(stderr, "seed004_pin_peak: cannot reset VmHWM; the peak may include start-up\n");
    long base = status_kib("VmRSS:");

    seed_timed_begin();
    double t0 = now_ms();
    float *pinned;
    if (!later) {
        CHECK(cudaHostAlloc(&pinned, bytes, cudaHostAllocDefault));
        seed_fill_random(pinned, n, 4004, -1.0f, 1.0f);
    } else {
        float *pageable = (float *)malloc(bytes);
        if (!pageable) {
            fprintf(stderr, "seed004_pin_peak: out of memory\n");
            return 1;
        }
        seed_fill_random(pageable, n, 4004, -1.0f, 1.0f);
        CHECK(cudaHostAlloc(&pinned, bytes, cudaHostAllocDefault));
        memcpy(pinned, pageable, bytes);
        free(pageable);
    }
    double t1 = now_ms();
    seed_timed_end();
    long peak = status_kib("VmHWM:");

    CHECK(cudaMemcpyAsync(d, pinned, bytes, cudaMemcpyHostToDevice, s));
    sc_saxpy<<<1024, 256, 0, s>>>((int)(n < SLICE ? n : SLICE), 1.0f, d, d);
    LAUNCHED();
    CHECK(cudaMemcpyAsync(back, d, (n < SLICE ? n : SLICE) * sizeof(float), cudaMemcpyDeviceToHost, s));
    seed_settle(s);

    printf("seed004_pin_peak: %zu MiB, checksum %.6f slice %.6f\n", mib, seed_checksum(pinned, n),
           seed_checksum(back, n < SLICE ? n : SLICE));
    fprintf(stderr, "seed004_pin_peak: pinned %s\ndelta_mib=%.1f\npeak_mib=%.1f\nbase_mib=%.1f\nelapsed_ms=%.3f\n",
            later ? "later (pageable, then copied)" : "at allocation", (peak - base) / 1024.0, peak / 1024.0,
            base / 1024.0, t1 - t0);

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(back));
    CHECK(cudaFreeHost(pinned));
    return 0;
}
