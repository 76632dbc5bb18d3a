// host_sync_loop: SC403 sync-starves-gpu.
//
// Each step queues GPU work, waits for it, then does host work before it
// queues the next step: the GPU idles while the host works, and the host
// idles while the GPU works.  Waiting once, at the end (mode "end", the
// fixed way), lets the two overlap: the run takes the longer of the two
// instead of their sum.  PyTorch's loss.item() in every step is this hazard.
// The wait, as programs write it (MODE): each, cudaStreamSynchronize (the
// default); device, cudaDeviceSynchronize; event, cudaEventRecord after the
// work, then cudaEventSynchronize;
//   read    the step's 4-byte result read back with cudaMemcpy, the work on
//           the legacy stream (C's loss.item())
//   free    a scratch buffer allocated with cudaMalloc before the work and
//           released with cudaFree after it (cudaFree waits for the device)
//   item    the result read with cudaMemcpyAsync into pageable memory, then
//           cudaStreamSynchronize (PyTorch's .item()); item2, two so; cpu, 4 MiB so (.cpu())
//   late    each's wait, in the second half of the steps only: the first
//           half waits on an idle stream and queues nothing (a phase before
//           the hazard's, which a long run's bounded record may end in)
//   host_sync_loop [STEPS [GPU_MS [HOST_MS [MODE [SETUP_MS]]]]]
// The loop's elapsed time goes to stderr ("elapsed_ms=..."); SETUP_MS of host work come first (a set-up).
#include <time.h>

#include "common.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// Host work that keeps the CPU busy (preparing the next batch, say).
static void host_work(double ms)
{
    double end = now_ms() + ms;
    volatile double x = 0;
    while (now_ms() < end)
        for (int i = 0; i < 1000; i++)
            x += i * 0.5;
}

static const char *const modes[] = {"each", "end", "device", "event", "read", "free", "item", "cpu", "item2", "late",
                                    NULL};
enum { EACH, END, DEVICE, EVENT, READ, FREE, ITEM, CPU, ITEM2, LATE };

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 10;
    double gpu_ms = argc > 2 ? atof(argv[2]) : 10, host_ms = argc > 3 ? atof(argv[3]) : 8, setup_ms = argc > 5 ? atof(argv[5]) : 0;
    int mode = -1;
    for (int m = 0; modes[m]; m++)
        if (!strcmp(argc > 4 ? argv[4] : "each", modes[m]))
            mode = m;
    if (steps < 1 || gpu_ms < 0 || host_ms < 0 || setup_ms < 0 || mode < 0) {
        fprintf(stderr, "usage: %s [STEPS [GPU_MS [HOST_MS [MODE [SETUP_MS]]]]]\n"
                "  MODE: each|end|device|event|read|free|item|cpu|item2|late\n", argv[0]);
        return 2;
    }
    cudaStream_t s;
    cudaEvent_t done;
    float *d, *scratch, result = 0; void *big = NULL; char *host_big = NULL;   // big: mode cpu's
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    CHECK(cudaMalloc(&d, sizeof(float)));
    CHECK(cudaMemset(d, 0, sizeof(float)));
    cudaStream_t work = mode == READ ? 0 : s;   // cudaMemcpy orders with the legacy stream's work
    sc_spin<<<1, 1, 0, work>>>(0);   // warm up outside the timed loop
    LAUNCHED();
    CHECK(cudaStreamSynchronize(work)); // expect: SC402 x0+
    host_work(setup_ms);   // NCCL's initialization, building a model, ...
    double t0 = now_ms();
    for (int i = 0; i < steps; i++) {
        if (mode == LATE && i < steps / 2) {   // a first phase that only waits on an idle stream
            CHECK(cudaStreamSynchronize(s)); // expect: SC402 x0+
            host_work(host_ms);
            continue;
        }
        if (mode == FREE)
            CHECK(cudaMalloc(&scratch, 1 << 20)); // expect: SC303 x0+
        sc_spin<<<1, 1, 0, work>>>((unsigned long long)(gpu_ms * 1e6)); // expect: SC101 x0+
        LAUNCHED();
        switch (mode) {
        case EACH:
        case LATE:
            CHECK(cudaStreamSynchronize(s)); // expect: SC403 x10 warning
            break;
        case DEVICE:
            CHECK(cudaDeviceSynchronize()); // expect: SC401 x0+, SC403 x0+
            break;
        case EVENT:
            CHECK(cudaEventRecord(done, s));
            CHECK(cudaEventSynchronize(done)); // expect: SC403 x0+
            break;
        case READ:
            CHECK(cudaMemcpy(&result, d, sizeof(float), cudaMemcpyDeviceToHost)); // expect: SC201 x0+, SC403 x0+
            break;
        case FREE:
            CHECK(cudaFree(scratch)); // expect: SC301 x0+, SC303 x0+, SC403 x0+
            break;
        case ITEM:   // the copy returns once done: the sync after finds nothing left
            CHECK(cudaMemcpyAsync(&result, d, sizeof(float), cudaMemcpyDeviceToHost, s)); // expect: SC403 x0+
            CHECK(cudaStreamSynchronize(s)); // expect: SC402 x0+, SC403 x0+
            break;
        case CPU:   // a 4 MiB result read back to work on (.cpu()): data the host needs, not a metric
            if (!big && (cudaMalloc(&big, 4 << 20) != cudaSuccess || !(host_big = (char *)malloc(4 << 20))))
                return 1;
            CHECK(cudaMemcpyAsync(host_big, big, 4 << 20, cudaMemcpyDeviceToHost, s)); // expect: SC203 x0+, SC403 x0
            CHECK(cudaStreamSynchronize(s)); // expect: SC402 x0+, SC403 x0
            break;
        case ITEM2:   // item's read, then a second: a loop's loss.item(), then its accuracy's, of a tiny kernel
            CHECK(cudaMemcpyAsync(&result, d, sizeof(float), cudaMemcpyDeviceToHost, s)); // expect: SC403 x0+
            CHECK(cudaStreamSynchronize(s)); // expect: SC402 x0+, SC403 x0+
            sc_spin<<<1, 1, 0, s>>>(0);
            LAUNCHED();
            host_work(0.3);   // Python's time around it: the tiny kernel is done when the read comes
            CHECK(cudaMemcpyAsync(&result, d, sizeof(float), cudaMemcpyDeviceToHost, s)); // expect: SC403 x0+
            CHECK(cudaStreamSynchronize(s)); // expect: SC402 x0+, SC403 x0+
            break;
        }
        host_work(host_ms);
    }
    CHECK(cudaStreamSynchronize(work)); // expect: SC402 x1
    fprintf(stderr, "elapsed_ms=%.3f\n", now_ms() - t0);
    printf("host_sync_loop: %d steps, result %g\n", steps, result);
    CHECK(cudaFree(d));
    CHECK(cudaEventDestroy(done));
    CHECK(cudaStreamDestroy(s));
    return 0;
}
