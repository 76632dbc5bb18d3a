// multigpu_legacy: the legacy-stream rules are judged per device.
//
// "Each device has its own default stream" (CUDA Programming Guide,
// Multi-Device System, Stream and Event Behavior): device 1's blocking
// stream orders device 1's legacy stream, not device 0's.  So while s1 (a
// blocking stream of device 1) is busy:
// - on device 0, an allocation, a legacy-stream launch and a synchronous
//   copy serialize nothing: no SC301, the SC101 and SC201 stay notes;
// - on device 1, the same launch and copy wait for s1, and the host queues
//   more work on s1 after each: SC101 and SC201 are warnings there, and
//   SC102 (at s1's creation) counts device 1's two legacy-stream commands
//   only.
// Each finding names its device.  Needs two devices (exit 77 with one).
// Fixed twin: multigpu_legacy_fixed.cu.
#include "common.h"

#define N (1 << 16)

int main(void)
{
    need_devices(2);
    float *h, *d0, *d1, *d0b;
    cudaStream_t s1;
    h = (float *)malloc(N * sizeof(float));
    fill_host(h, N);

    CHECK(cudaSetDevice(1));
    CHECK(cudaMalloc(&d1, N * sizeof(float)));
    CHECK(cudaMemcpy(d1, h, N * sizeof(float), cudaMemcpyHostToDevice)); // expect: SC201 x1 note device=1
    CHECK(cudaStreamCreate(&s1)); // expect: SC102 x2 device=1
    CHECK(cudaSetDevice(0));
    CHECK(cudaMalloc(&d0, N * sizeof(float)));

    // Device 1's blocking stream is busy from here ...
    CHECK(cudaSetDevice(1));
    sc_spin<<<1, 1, 0, s1>>>(HOLD);
    LAUNCHED();

    // ... which is nothing to device 0.
    CHECK(cudaSetDevice(0));
    CHECK(cudaMalloc(&d0b, N * sizeof(float)));
    sc_fill<<<64, 256>>>(d0, N, 2.0f); // expect: SC101 x1 note device=0
    LAUNCHED();
    CHECK(cudaMemcpy(h, d0, N * sizeof(float), cudaMemcpyDeviceToHost)); // expect: SC201 x1 note device=0
    double c0 = checksum(h, N);

    // On device 1 the legacy stream waits for s1, and holds back the work
    // s1 gets next; the copy blocks the host while s1 works, before the host
    // queues more.  (What making the copy asynchronous would save is the
    // pricing model's answer: the frees that follow wait for the device
    // anyway, so its severity is not pinned here.)
    CHECK(cudaSetDevice(1));
    sc_saxpy<<<64, 256>>>(N, 0.5f, d1, d1); // expect: SC101 x1 warning device=1
    LAUNCHED();
    sc_spin<<<1, 1, 0, s1>>>(SPIN);
    LAUNCHED();
    CHECK(cudaMemcpy(h, d1, N * sizeof(float), cudaMemcpyDeviceToHost)); // expect: SC201 x1 device=1
    sc_spin<<<1, 1, 0, s1>>>(SPIN);
    LAUNCHED();
    double c1 = checksum(h, N);
    printf("multigpu_legacy: device 0 checksum %.6f, device 1 checksum %.6f\n", c0, c1);

    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaFree(d1));
    CHECK(cudaSetDevice(0));
    CHECK(cudaFree(d0b));
    CHECK(cudaFree(d0));
    free(h);
    return 0;
}
