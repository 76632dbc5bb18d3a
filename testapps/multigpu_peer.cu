// multigpu_peer: peer copies between two devices, counted and judged.
//
// Peer access both ways, then:
// - cudaMemcpyPeerAsync on a non-blocking stream: no finding (counted);
// - cudaMemcpyPeer, cudaMemcpy(cudaMemcpyDefault) and cudaMemcpy(DeviceToDevice)
//   between the two devices' memory while nothing else runs: synchronous
//   peer copies, SC201 notes (the host waits, but for nothing else);
// - cudaMemcpyPeer while device 1 is busy: "serialized with respect to all
//   pending and future asynchronous work in to the current device,
//   srcDevice, and dstDevice" (CUDA Runtime API, cudaMemcpyPeer), so the
//   host waits for device 1's work: SC201, a warning, on device 0 (the
//   current device).
// Needs two devices (exit 77 with one).
#include "common.h"

#define N (1 << 16)

int main(void)
{
    need_devices(2);
    float *h, *d0, *d1;
    cudaStream_t s0, s1;
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    fill_host(h, N);
    int can01 = 0, can10 = 0;
    CHECK(cudaDeviceCanAccessPeer(&can01, 0, 1));
    CHECK(cudaDeviceCanAccessPeer(&can10, 1, 0));

    CHECK(cudaSetDevice(1));
    CHECK(cudaMalloc(&d1, N * sizeof(float)));
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    if (can10)
        CHECK(cudaDeviceEnablePeerAccess(0, 0));
    CHECK(cudaSetDevice(0));
    CHECK(cudaMalloc(&d0, N * sizeof(float)));
    CHECK(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
    if (can01)
        CHECK(cudaDeviceEnablePeerAccess(1, 0));

    // Asynchronous: ordered on s0, nothing to report.
    CHECK(cudaMemcpyAsync(d0, h, N * sizeof(float), cudaMemcpyHostToDevice, s0));
    sc_spin<<<1, 1, 0, s0>>>(HOLD);
    LAUNCHED();
    for (int i = 0; i < 3; i++)
        CHECK(cudaMemcpyPeerAsync(d1, 1, d0, 0, N * sizeof(float), s0)); // expect-api: cuMemcpyPeerAsync 3
    CHECK(cudaStreamSynchronize(s0));

    // Synchronous peer copies with nothing else running.
    CHECK(cudaMemcpyPeer(d0, 0, d1, 1, N * sizeof(float))); // expect: SC201 x1 note device=0
    CHECK(cudaMemcpy(d1, d0, N * sizeof(float), cudaMemcpyDefault)); // expect: SC201 x1 note device=0
    CHECK(cudaMemcpy(d0, d1, N * sizeof(float), cudaMemcpyDeviceToDevice)); // expect: SC201 x1 note device=0

    // A synchronous peer copy while device 1 works: it waits for that work
    // (whose result it copies: what an asynchronous copy would save is the
    // pricing model's answer, so its severity is not pinned here).
    CHECK(cudaSetDevice(1));
    sc_spin<<<1, 1, 0, s1>>>(HOLD);
    sc_saxpy<<<64, 256, 0, s1>>>(N, 2.0f, d1, d1);
    LAUNCHED();
    CHECK(cudaSetDevice(0));
    CHECK(cudaMemcpyPeer(d0, 0, d1, 1, N * sizeof(float))); // expect: SC201 x1 device=0
    CHECK(cudaMemcpyAsync(h, d0, N * sizeof(float), cudaMemcpyDeviceToHost, s0));
    sc_spin<<<1, 1, 0, s0>>>(HOLD);
    LAUNCHED();
    CHECK(cudaStreamSynchronize(s0));
    printf("multigpu_peer: checksum %.6f\n", checksum(h, N));
    // expect-api: cuMemcpyPeer 2
    // expect-api: cuMemcpy 1
    // expect-api: cuMemcpyDtoD_v2 1

    CHECK(cudaStreamDestroy(s0));
    CHECK(cudaFree(d0));
    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaFree(d1));
    CHECK(cudaFreeHost(h));
    return 0;
}
