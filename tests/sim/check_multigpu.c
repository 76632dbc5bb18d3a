/* tests/sim/check_multigpu.c: the simulator with several devices
 * (STREAMCHECK_SIM_DEVICES=2): devices, a primary context and a legacy
 * stream each, per-device streams and memory, peer access and peer
 * copies, events and stream waits across devices, the runtime's current
 * device, and the CUPTI timeline's device ids and peer-to-peer copies.
 *
 * Each test sets the variable before cuInit (tests run in forked
 * children, so each initializes the simulator anew).  The rules are the
 * CUDA Programming Guide's "Multi-Device System" section (Stream and
 * Event Behavior, Peer-to-Peer Memory Access and Copy) and the driver
 * API's peer access and copy functions. */
#include "config.h"

#include "simtest.h"

#include <cuda_runtime_api.h>
#include <cudaTypedefs.h>
#include <cupti.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RT_OK(call)                                                           \
    do {                                                                      \
        cudaError_t rt_e_ = (call);                                           \
        ck_assert_msg(rt_e_ == cudaSuccess, "%s returned %d", #call,         \
                      (int)rt_e_);                                            \
    } while (0)

/* Both devices' primary contexts; device 0's is made current. */
static CUcontext ctx[2];

static void init2(void)
{
    setenv("STREAMCHECK_SIM_DEVICES", "2", 1);
    ST_OK(cuInit(0));
    for (int d = 0; d < 2; d++) {
        CUdevice dev;
        ST_OK(cuDeviceGet(&dev, d));
        ST_OK(cuDevicePrimaryCtxRetain(&ctx[d], dev));
    }
    ST_OK(cuCtxSetCurrent(ctx[0]));
}

static void use(int d)
{
    ST_OK(cuCtxSetCurrent(ctx[d]));
}

/* ------------------------------------------------------------ devices --- */

START_TEST(one_device_by_default)
{
    unsetenv("STREAMCHECK_SIM_DEVICES");
    ST_OK(cuInit(0));
    int n = 0;
    ST_OK(cuDeviceGetCount(&n));
    ck_assert_int_eq(n, 1);
    char name[64];
    ST_OK(cuDeviceGetName(name, sizeof name, 0));
    ck_assert_str_eq(name, "streamcheck simulated GPU");
    CUdevice d;
    ST_EXPECT(CUDA_ERROR_INVALID_DEVICE, cuDeviceGet(&d, 1));
}
END_TEST

START_TEST(devices_and_attributes)
{
    init2();
    int n = 0;
    ST_OK(cuDeviceGetCount(&n));
    ck_assert_int_eq(n, 2);
    char name[64];
    ST_OK(cuDeviceGetName(name, sizeof name, 0));
    ck_assert_str_eq(name, "streamcheck simulated GPU 0");
    ST_OK(cuDeviceGetName(name, sizeof name, 1));
    ck_assert_str_eq(name, "streamcheck simulated GPU 1");
    CUdevice d;
    ST_OK(cuDeviceGet(&d, 1));
    ck_assert_int_eq(d, 1);
    ST_EXPECT(CUDA_ERROR_INVALID_DEVICE, cuDeviceGet(&d, 2));
    ST_EXPECT(CUDA_ERROR_INVALID_DEVICE, cuDeviceGetName(name, sizeof name, 2));
    int bus0, bus1, sm1;
    ST_OK(cuDeviceGetAttribute(&bus0, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, 0));
    ST_OK(cuDeviceGetAttribute(&bus1, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, 1));
    ck_assert_int_ne(bus0, bus1);
    ST_OK(cuDeviceGetAttribute(&sm1, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 1));
    ck_assert_int_eq(sm1, 132);
    CUuuid u0, u1;
    ST_OK(cuDeviceGetUuid(&u0, 0));
    ST_OK(cuDeviceGetUuid(&u1, 1));
    ck_assert(memcmp(u0.bytes, u1.bytes, sizeof u0.bytes) != 0);
    size_t total;
    ST_OK(cuDeviceTotalMem(&total, 1));
    ck_assert_uint_eq(total, 80ull << 30);
}
END_TEST

START_TEST(primary_context_per_device)
{
    init2();
    ck_assert_ptr_ne(ctx[0], ctx[1]);
    CUcontext again;
    ST_OK(cuDevicePrimaryCtxRetain(&again, 1));
    ck_assert_ptr_eq(again, ctx[1]);
    CUdevice d = -1;
    ST_OK(cuCtxGetDevice(&d));
    ck_assert_int_eq(d, 0);
    use(1);
    CUcontext cur;
    ST_OK(cuCtxGetCurrent(&cur));
    ck_assert_ptr_eq(cur, ctx[1]);
    ST_OK(cuCtxGetDevice(&d));
    ck_assert_int_eq(d, 1);
    PFN_cuCtxGetDevice_v13000 get2 =
        (PFN_cuCtxGetDevice_v13000)st_proc("cuCtxGetDevice", 13000, 0);
    ST_OK(get2(&d, ctx[0]));
    ck_assert_int_eq(d, 0);
    /* The context stack holds either device's context. */
    ST_OK(cuCtxPushCurrent(ctx[0]));
    ST_OK(cuCtxGetDevice(&d));
    ck_assert_int_eq(d, 0);
    ST_OK(cuCtxPopCurrent(&cur));
    ck_assert_ptr_eq(cur, ctx[0]);
    ST_OK(cuCtxGetDevice(&d));
    ck_assert_int_eq(d, 1);
    unsigned flags;
    int active;
    ST_OK(cuDevicePrimaryCtxGetState(1, &flags, &active));
    ck_assert_int_eq(active, 1);
}
END_TEST

/* ------------------------------------------------------------ streams --- */

START_TEST(streams_belong_to_the_current_device)
{
    init2();
    CUstream s0, s1;
    ST_OK(cuStreamCreate(&s0, CU_STREAM_DEFAULT));
    use(1);
    ST_OK(cuStreamCreate(&s1, CU_STREAM_DEFAULT));
    CUcontext c;
    ST_OK(cuStreamGetCtx(s0, &c));
    ck_assert_ptr_eq(c, ctx[0]);
    ST_OK(cuStreamGetCtx(s1, &c));
    ck_assert_ptr_eq(c, ctx[1]);
    CUdevice d;
    PFN_cuStreamGetDevice_v12080 getdev =
        (PFN_cuStreamGetDevice_v12080)st_proc("cuStreamGetDevice", 12080, 0);
    ST_OK(getdev(s0, &d));
    ck_assert_int_eq(d, 0);
    ST_OK(getdev(s1, &d));
    ck_assert_int_eq(d, 1);
    /* The legacy stream is the current device's. */
    ST_OK(getdev(NULL, &d));
    ck_assert_int_eq(d, 1);
    use(0);
    ST_OK(getdev(NULL, &d));
    ck_assert_int_eq(d, 0);
    ST_OK(cuStreamDestroy(s0));
    ST_OK(cuStreamDestroy(s1));
}
END_TEST

/* "Each device has its own default stream": a blocking stream of device 0
 * holds device 0's legacy stream, not device 1's. */
START_TEST(legacy_stream_per_device)
{
    init2();
    CUstream s0;
    ST_OK(cuStreamCreate(&s0, CU_STREAM_DEFAULT));
    st_gate g;
    st_gate_init(&g);
    st_gate_on(&g, s0);
    ck_assert(st_gate_reached(&g, ST_RETURN_MS));
    atomic_int ran0 = 0, ran1 = 0;
    st_flag_on(&ran0, NULL); /* device 0's legacy stream: waits for s0 */
    use(1);
    st_flag_on(&ran1, NULL); /* device 1's: does not */
    ST_OK(cuStreamSynchronize(NULL));
    ck_assert_int_eq(atomic_load(&ran1), 1);
    ST_OK(cuCtxSynchronize()); /* device 1 only */
    ST_OK(cuStreamQuery(CU_STREAM_LEGACY));
    use(0);
    ck_assert_int_eq(atomic_load(&ran0), 0);
    ST_EXPECT(CUDA_ERROR_NOT_READY, cuStreamQuery(NULL));
    st_gate_open(&g);
    ST_OK(cuCtxSynchronize());
    ck_assert_int_eq(atomic_load(&ran0), 1);
}
END_TEST

/* A blocking stream of device 1 waits for device 1's legacy stream only. */
START_TEST(blocking_stream_waits_for_its_own_legacy_stream)
{
    init2();
    st_gate g;
    st_gate_init(&g);
    st_gate_on(&g, NULL); /* device 0's legacy stream */
    ck_assert(st_gate_reached(&g, ST_RETURN_MS));
    use(1);
    CUstream s1;
    ST_OK(cuStreamCreate(&s1, CU_STREAM_DEFAULT));
    atomic_int ran = 0;
    st_flag_on(&ran, s1);
    ST_OK(cuStreamSynchronize(s1));
    ck_assert_int_eq(atomic_load(&ran), 1);
    st_gate_open(&g);
    use(0);
    ST_OK(cuStreamSynchronize(NULL));
}
END_TEST

/* Per-thread default streams are per device too. */
START_TEST(per_thread_stream_per_device)
{
    init2();
    st_gate g;
    st_gate_init(&g);
    st_gate_on_pt(&g, NULL); /* device 0's per-thread stream */
    ck_assert(st_gate_reached(&g, ST_RETURN_MS));
    use(1);
    PFN_cuStreamSynchronize_v7000_ptsz sync_pt =
        (PFN_cuStreamSynchronize_v7000_ptsz)st_proc("cuStreamSynchronize",
                                                    7000, 2);
    atomic_int ran = 0;
    st_flag_on(&ran, CU_STREAM_PER_THREAD); /* device 1's */
    ST_OK(sync_pt(NULL));
    ck_assert_int_eq(atomic_load(&ran), 1);
    use(0);
    ST_EXPECT(CUDA_ERROR_NOT_READY, cuStreamQuery(CU_STREAM_PER_THREAD));
    st_gate_open(&g);
    ST_OK(sync_pt(NULL));
}
END_TEST

/* "A kernel launch will fail if it is issued to a stream that is not
 * associated to the current device." */
START_TEST(launch_on_another_devices_stream_fails)
{
    init2();
    CUstream s1;
    use(1);
    ST_OK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
    use(0);
    unsigned long long ns = 1000;
    void *args[] = {&ns};
    ST_EXPECT(CUDA_ERROR_INVALID_HANDLE,
              cuLaunchKernel(st_func(ST_SPIN), 1, 1, 1, 1, 1, 1, 0, s1, args,
                             NULL));
    use(1);
    ST_OK(cuLaunchKernel(st_func(ST_SPIN), 1, 1, 1, 1, 1, 1, 0, s1, args, NULL));
    ST_OK(cuStreamSynchronize(s1));
}
END_TEST

/* ------------------------------------------------------------- events --- */

/* An event recorded on device 1's stream, waited for by device 0's. */
START_TEST(stream_waits_for_event_of_another_device)
{
    init2();
    use(1);
    CUstream s1;
    CUevent e1;
    ST_OK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
    ST_OK(cuEventCreate(&e1, CU_EVENT_DISABLE_TIMING));
    st_gate g;
    st_gate_init(&g);
    st_gate_on(&g, s1);
    ST_OK(cuEventRecord(e1, s1));
    use(0);
    CUstream s0;
    ST_OK(cuStreamCreate(&s0, CU_STREAM_NON_BLOCKING));
    ST_OK(cuStreamWaitEvent(s0, e1, 0));
    atomic_int ran = 0;
    st_flag_on(&ran, s0);
    ck_assert(st_gate_reached(&g, ST_RETURN_MS));
    st_sleep_ms(ST_BLOCK_MS);
    ck_assert_int_eq(atomic_load(&ran), 0);
    /* Querying the other device's event from device 0 works. */
    ST_EXPECT(CUDA_ERROR_NOT_READY, cuEventQuery(e1));
    st_gate_open(&g);
    ST_OK(cuEventSynchronize(e1));
    ST_OK(cuStreamSynchronize(s0));
    ck_assert_int_eq(atomic_load(&ran), 1);
}
END_TEST

/* "cudaEventRecord() will fail if the input event and input stream are
 * associated to different devices"; so does cudaEventElapsedTime with
 * events of two devices. */
START_TEST(event_and_stream_of_different_devices)
{
    init2();
    CUevent e0, t0;
    ST_OK(cuEventCreate(&e0, 0));
    ST_OK(cuEventCreate(&t0, 0));
    use(1);
    CUstream s1;
    CUevent e1;
    ST_OK(cuStreamCreate(&s1, CU_STREAM_DEFAULT));
    ST_OK(cuEventCreate(&e1, 0));
    ST_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuEventRecord(e0, s1));
    ST_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuEventRecord(e0, NULL));
    ST_OK(cuEventRecord(e1, s1));
    ST_OK(cuEventSynchronize(e1));
    use(0);
    ST_OK(cuEventRecord(e0, NULL));
    ST_OK(cuEventRecord(t0, NULL));
    ST_OK(cuCtxSynchronize());
    float ms;
    ST_OK(cuEventElapsedTime(&ms, e0, t0));
    ST_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuEventElapsedTime(&ms, e0, e1));
}
END_TEST

/* ------------------------------------------------------------- memory --- */

START_TEST(memory_belongs_to_its_device)
{
    init2();
    CUdeviceptr p0, p1;
    ST_OK(cuMemAlloc(&p0, 1 << 20));
    use(1);
    ST_OK(cuMemAlloc(&p1, 3 << 20));
    int ord = -1;
    ST_OK(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p0));
    ck_assert_int_eq(ord, 0);
    ST_OK(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p1));
    ck_assert_int_eq(ord, 1);
    CUcontext c;
    ST_OK(cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, p1));
    ck_assert_ptr_eq(c, ctx[1]);
    ST_OK(cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, p0));
    ck_assert_ptr_eq(c, ctx[0]);
    /* Free memory is counted per device. */
    size_t free1, total1, free0, total0;
    ST_OK(cuMemGetInfo(&free1, &total1));
    use(0);
    ST_OK(cuMemGetInfo(&free0, &total0));
    ck_assert_uint_eq(total0 - free0, 1 << 20);
    ck_assert_uint_eq(total1 - free1, 3 << 20);
    /* Memory of device 1 can be freed from device 0's context. */
    ST_OK(cuMemFree(p1));
    use(1);
    ST_OK(cuMemGetInfo(&free1, &total1));
    ck_assert_uint_eq(free1, total1);
    ST_OK(cuMemFree(p0));
}
END_TEST

static void alloc_on_device0(void *arg)
{
    (void)arg;
    ST_OK(cuCtxSetCurrent(ctx[0]));
    CUdeviceptr p;
    ST_OK(cuMemAlloc(&p, 4096));
    ST_OK(cuMemFree(p));
    ST_OK(cuCtxSynchronize());
}

/* Allocation synchronizes its own device, not the others. */
START_TEST(allocation_synchronizes_one_device)
{
    init2();
    use(1);
    CUstream s1;
    ST_OK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
    st_gate g;
    st_gate_init(&g);
    st_gate_on(&g, s1);
    ck_assert(st_gate_reached(&g, ST_RETURN_MS));
    st_call c;
    st_call_start(&c, alloc_on_device0, NULL);
    ck_assert(st_call_done_within(&c, ST_RETURN_MS));
    st_call_join(&c);
    st_gate_open(&g);
    ST_OK(cuStreamSynchronize(s1));
}
END_TEST

/* -------------------------------------------------------- peer access --- */

START_TEST(peer_access)
{
    init2();
    int can = -1;
    ST_OK(cuDeviceCanAccessPeer(&can, 0, 1));
    ck_assert_int_eq(can, 1);
    ST_OK(cuDeviceCanAccessPeer(&can, 1, 0));
    ck_assert_int_eq(can, 1);
    ST_OK(cuDeviceCanAccessPeer(&can, 0, 0));
    ck_assert_int_eq(can, 0);
    ST_EXPECT(CUDA_ERROR_INVALID_DEVICE, cuDeviceCanAccessPeer(&can, 0, 2));
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE, cuCtxEnablePeerAccess(ctx[1], 1));
    ST_OK(cuCtxEnablePeerAccess(ctx[1], 0));
    ST_EXPECT(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED,
              cuCtxEnablePeerAccess(ctx[1], 0));
    ST_EXPECT(CUDA_ERROR_INVALID_CONTEXT, cuCtxEnablePeerAccess(ctx[0], 0));
    /* One direction: device 1 has not enabled access to device 0. */
    use(1);
    ST_EXPECT(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, cuCtxDisablePeerAccess(ctx[0]));
    ST_OK(cuCtxEnablePeerAccess(ctx[0], 0));
    use(0);
    ST_OK(cuCtxDisablePeerAccess(ctx[1]));
    ST_EXPECT(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, cuCtxDisablePeerAccess(ctx[1]));
    int v = -1;
    ST_OK(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 1));
    ck_assert_int_eq(v, 1);
    ST_EXPECT(CUDA_ERROR_INVALID_DEVICE,
              cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 1, 1));
}
END_TEST

/* -------------------------------------------------------- peer copies --- */

#define N 4096

static int can_not_be_a_context;

static void fill(CUdeviceptr p, unsigned v)
{
    ST_OK(cuMemsetD32(p, v, N));
}

static unsigned first_word(CUdeviceptr p)
{
    unsigned v = 0;
    ST_OK(cuMemcpyDtoH(&v, p, sizeof v));
    return v;
}

START_TEST(peer_copies_move_data)
{
    init2();
    CUdeviceptr a0, b0, a1;
    ST_OK(cuMemAlloc(&a0, N * 4));
    ST_OK(cuMemAlloc(&b0, N * 4));
    use(1);
    ST_OK(cuMemAlloc(&a1, N * 4));
    fill(a1, 0x11);
    ST_OK(cuCtxSynchronize());
    use(0);
    /* cuMemcpyPeer, synchronous. */
    ST_OK(cuMemcpyPeer(a0, ctx[0], a1, ctx[1], N * 4));
    ck_assert_uint_eq(first_word(a0), 0x11);
    /* cuMemcpyPeerAsync on a stream of device 0: a blocking one, so it
       follows the memset fill() leaves on the legacy stream (a non-blocking
       stream would race it: ThreadSanitizer saw the simulator do so). */
    CUstream s0;
    ST_OK(cuStreamCreate(&s0, CU_STREAM_DEFAULT));
    fill(a0, 0x22);
    ST_OK(cuMemcpyPeerAsync(a1, ctx[1], a0, ctx[0], N * 4, s0));
    ST_OK(cuStreamSynchronize(s0));
    ck_assert_uint_eq(first_word(a1), 0x22);
    /* Unified addressing: cuMemcpy and cuMemcpyAsync between devices. */
    fill(b0, 0x33);
    ST_OK(cuMemcpy(a1, b0, N * 4));
    ck_assert_uint_eq(first_word(a1), 0x33);
    fill(b0, 0x44);
    ST_OK(cuMemcpyAsync(a1, b0, N * 4, s0));
    ST_OK(cuStreamSynchronize(s0));
    ck_assert_uint_eq(first_word(a1), 0x44);
    /* "A memory copy will succeed even if it is issued to a stream that is
     * not associated to the current device." */
    use(1);
    ST_OK(cuMemcpyDtoDAsync(b0, a1, N * 4, s0));
    ST_OK(cuStreamSynchronize(s0));
    ck_assert_uint_eq(first_word(b0), 0x44);
    ST_EXPECT(CUDA_ERROR_INVALID_CONTEXT,
              cuMemcpyPeer(a0, (CUcontext)&can_not_be_a_context, a1, ctx[1], 4));
}
END_TEST

static void sync_peer_copy(void *arg)
{
    CUdeviceptr *p = arg;
    ST_OK(cuCtxSetCurrent(ctx[0]));
    ST_OK(cuMemcpyPeer(p[0], ctx[0], p[1], ctx[1], N * 4));
}

static void async_peer_copy(void *arg)
{
    CUdeviceptr *p = arg;
    ST_OK(cuCtxSetCurrent(ctx[0]));
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    ST_OK(cuMemcpyPeerAsync(p[0], ctx[0], p[1], ctx[1], N * 4, s));
}

/* A synchronous peer copy is serialized with pending work of both devices
 * and returns once done; the async one returns at once. */
START_TEST(sync_peer_copy_waits_for_both_devices)
{
    init2();
    CUdeviceptr p[2];
    ST_OK(cuMemAlloc(&p[0], N * 4));
    use(1);
    ST_OK(cuMemAlloc(&p[1], N * 4));
    CUstream s1;
    ST_OK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
    st_gate g;
    st_gate_init(&g);
    st_gate_on(&g, s1);
    ck_assert(st_gate_reached(&g, ST_RETURN_MS));
    st_call a;
    st_call_start(&a, async_peer_copy, p);
    ck_assert(st_call_done_within(&a, ST_RETURN_MS));
    st_call_join(&a);
    st_call c;
    st_call_start(&c, sync_peer_copy, p);
    ck_assert(!st_call_done_within(&c, ST_BLOCK_MS));
    st_gate_open(&g);
    ck_assert(st_call_done_within(&c, ST_RETURN_MS));
    st_call_join(&c);
}
END_TEST

/* ------------------------------------------------------------ runtime --- */

static void rt_new_thread(void *arg)
{
    int *dev = arg;
    RT_OK(cudaGetDevice(dev));
}

START_TEST(runtime_current_device)
{
    setenv("STREAMCHECK_SIM_DEVICES", "2", 1);
    int n = 0;
    RT_OK(cudaGetDeviceCount(&n));
    ck_assert_int_eq(n, 2);
    int d = -1;
    RT_OK(cudaGetDevice(&d));
    ck_assert_int_eq(d, 0);
    ck_assert_int_eq(cudaSetDevice(2), cudaErrorInvalidDevice);
    RT_OK(cudaSetDevice(1));
    RT_OK(cudaGetDevice(&d));
    ck_assert_int_eq(d, 1);
    /* The current device is per host thread. */
    int other = -1;
    st_call c;
    st_call_start(&c, rt_new_thread, &other);
    ck_assert(st_call_done_within(&c, ST_RETURN_MS));
    st_call_join(&c);
    ck_assert_int_eq(other, 0);
    struct cudaDeviceProp prop;
    RT_OK(cudaGetDeviceProperties(&prop, 1));
    ck_assert_str_eq(prop.name, "streamcheck simulated GPU 1");
    ck_assert_int_eq(cudaGetDeviceProperties(&prop, 2), cudaErrorInvalidDevice);
    /* A stream created now is device 1's, and so is memory. */
    cudaStream_t s;
    RT_OK(cudaStreamCreate(&s));
    CUdevice sd;
    PFN_cuStreamGetDevice_v12080 getdev =
        (PFN_cuStreamGetDevice_v12080)st_proc("cuStreamGetDevice", 12080, 0);
    ST_OK(getdev((CUstream)s, &sd));
    ck_assert_int_eq(sd, 1);
    void *p;
    RT_OK(cudaMalloc(&p, 256));
    struct cudaPointerAttributes at;
    RT_OK(cudaPointerGetAttributes(&at, p));
    ck_assert_int_eq(at.type, cudaMemoryTypeDevice);
    ck_assert_int_eq(at.device, 1);
    RT_OK(cudaFree(p));
    RT_OK(cudaStreamDestroy(s));
}
END_TEST

START_TEST(runtime_peer_access_and_copies)
{
    setenv("STREAMCHECK_SIM_DEVICES", "2", 1);
    int can = -1;
    RT_OK(cudaDeviceCanAccessPeer(&can, 0, 1));
    ck_assert_int_eq(can, 1);
    RT_OK(cudaSetDevice(0));
    RT_OK(cudaDeviceEnablePeerAccess(1, 0));
    ck_assert_int_eq(cudaDeviceEnablePeerAccess(1, 0),
                     cudaErrorPeerAccessAlreadyEnabled);
    cudaGetLastError();
    ck_assert_int_eq(cudaDeviceEnablePeerAccess(0, 0), cudaErrorInvalidDevice);
    ck_assert_int_eq(cudaDeviceEnablePeerAccess(5, 0), cudaErrorInvalidDevice);
    cudaGetLastError();
    RT_OK(cudaDeviceDisablePeerAccess(1));
    ck_assert_int_eq(cudaDeviceDisablePeerAccess(1), cudaErrorPeerAccessNotEnabled);
    cudaGetLastError();

    float host[N], back[N];
    for (int i = 0; i < N; i++)
        host[i] = (float)i;
    float *d0, *d1;
    RT_OK(cudaMalloc((void **)&d0, sizeof host));
    RT_OK(cudaSetDevice(1));
    RT_OK(cudaMalloc((void **)&d1, sizeof host));
    RT_OK(cudaMemcpy(d1, host, sizeof host, cudaMemcpyHostToDevice));
    RT_OK(cudaMemcpyPeer(d0, 0, d1, 1, sizeof host));
    RT_OK(cudaSetDevice(0));
    memset(back, 0, sizeof back);
    RT_OK(cudaMemcpy(back, d0, sizeof back, cudaMemcpyDeviceToHost));
    ck_assert(memcmp(host, back, sizeof host) == 0);
    /* cudaMemcpyDefault between devices, and the async forms. */
    RT_OK(cudaMemset(d0, 0, sizeof host));
    RT_OK(cudaMemcpy(d0, d1, sizeof host, cudaMemcpyDefault));
    memset(back, 0, sizeof back);
    RT_OK(cudaMemcpy(back, d0, sizeof back, cudaMemcpyDefault));
    ck_assert(memcmp(host, back, sizeof host) == 0);
    cudaStream_t s;   /* blocking: ordered after the legacy-stream memset */
    RT_OK(cudaStreamCreate(&s));
    RT_OK(cudaMemset(d0, 0, sizeof host));
    RT_OK(cudaMemcpyPeerAsync(d0, 0, d1, 1, sizeof host, s));
    RT_OK(cudaStreamSynchronize(s));
    RT_OK(cudaMemcpy(back, d0, sizeof back, cudaMemcpyDeviceToHost));
    ck_assert(memcmp(host, back, sizeof host) == 0);
    ck_assert_int_eq(cudaMemcpyPeer(d0, 0, d1, 7, 4), cudaErrorInvalidDevice);
    cudaGetLastError();
    RT_OK(cudaFree(d1));
    RT_OK(cudaFree(d0));
}
END_TEST

/* --------------------------------------------------------------- CUPTI --- */

static CUpti_ActivityKernel10 krecs[16];
static CUpti_ActivityMemcpy6 mrecs[16];
static int nk, nm;

static void CUPTIAPI buf_request(uint8_t **buffer, size_t *size,
                                 size_t *maxNumRecords)
{
    *maxNumRecords = 0;
    *buffer = aligned_alloc(8, 64 * 1024);
    *size = 64 * 1024;
}

static void CUPTIAPI buf_complete(CUcontext c, uint32_t streamId,
                                  uint8_t *buffer, size_t size,
                                  size_t validSize)
{
    (void)c;
    (void)streamId;
    (void)size;
    CUpti_Activity *r = NULL;
    while (cuptiActivityGetNextRecord(buffer, validSize, &r) == CUPTI_SUCCESS) {
        if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && nk < 16)
            memcpy(&krecs[nk++], r, sizeof krecs[0]);
        if (r->kind == CUPTI_ACTIVITY_KIND_MEMCPY && nm < 16)
            memcpy(&mrecs[nm++], r, sizeof mrecs[0]);
    }
    free(buffer);
}

START_TEST(cupti_device_ids_and_peer_copies)
{
    init2();
    ck_assert_int_eq(cuptiActivityRegisterCallbacks(buf_request, buf_complete),
                     CUPTI_SUCCESS);
    ck_assert_int_eq(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),
                     CUPTI_SUCCESS);
    ck_assert_int_eq(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY), CUPTI_SUCCESS);
    uint32_t id = 99, dev = 99;
    ck_assert_int_eq(cuptiGetContextId(ctx[1], &id), CUPTI_SUCCESS);
    ck_assert_uint_eq(id, 2);
    ck_assert_int_eq(cuptiGetDeviceId(ctx[1], &dev), CUPTI_SUCCESS);
    ck_assert_uint_eq(dev, 1);
    ck_assert_int_eq(cuptiGetDeviceId(NULL, &dev), CUPTI_SUCCESS);
    ck_assert_uint_eq(dev, 0);
    CUdeviceptr a0, a1;
    ST_OK(cuMemAlloc(&a0, 1024));
    st_spin(NULL, 1000);
    use(1);
    ST_OK(cuMemAlloc(&a1, 1024));
    st_spin(NULL, 1000);
    ST_OK(cuMemcpyDtoD(a1, a0, 1024));
    ST_OK(cuCtxSynchronize());
    use(0);
    ST_OK(cuMemcpyDtoD(a0, a0 + 512, 512));
    ST_OK(cuCtxSynchronize());
    ck_assert_int_eq(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED),
                     CUPTI_SUCCESS);
    /* Records of two devices' workers come in either order. */
    ck_assert_int_eq(nk, 2);
    int k0 = krecs[0].deviceId == 0 ? 0 : 1;
    ck_assert_uint_eq(krecs[k0].deviceId, 0);
    ck_assert_uint_eq(krecs[k0].contextId, 1);
    ck_assert_uint_eq(krecs[1 - k0].deviceId, 1);
    ck_assert_uint_eq(krecs[1 - k0].contextId, 2);
    ck_assert_int_eq(nm, 2);
    int m0 = mrecs[0].copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_PTOP ? 0 : 1;
    ck_assert_int_eq(mrecs[m0].copyKind, CUPTI_ACTIVITY_MEMCPY_KIND_PTOP);
    ck_assert_uint_eq(mrecs[m0].deviceId, 1);
    ck_assert_int_eq(mrecs[1 - m0].copyKind, CUPTI_ACTIVITY_MEMCPY_KIND_DTOD);
    ck_assert_uint_eq(mrecs[1 - m0].deviceId, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("multigpu");
    TCase *t = tcase_create("devices");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, one_device_by_default);
    tcase_add_test(t, devices_and_attributes);
    tcase_add_test(t, primary_context_per_device);
    suite_add_tcase(s, t);
    t = tcase_create("streams");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, streams_belong_to_the_current_device);
    tcase_add_test(t, legacy_stream_per_device);
    tcase_add_test(t, blocking_stream_waits_for_its_own_legacy_stream);
    tcase_add_test(t, per_thread_stream_per_device);
    tcase_add_test(t, launch_on_another_devices_stream_fails);
    suite_add_tcase(s, t);
    t = tcase_create("events");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, stream_waits_for_event_of_another_device);
    tcase_add_test(t, event_and_stream_of_different_devices);
    suite_add_tcase(s, t);
    t = tcase_create("memory");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, memory_belongs_to_its_device);
    tcase_add_test(t, allocation_synchronizes_one_device);
    tcase_add_test(t, peer_access);
    tcase_add_test(t, peer_copies_move_data);
    tcase_add_test(t, sync_peer_copy_waits_for_both_devices);
    suite_add_tcase(s, t);
    t = tcase_create("runtime");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, runtime_current_device);
    tcase_add_test(t, runtime_peer_access_and_copies);
    suite_add_tcase(s, t);
    t = tcase_create("cupti");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, cupti_device_ids_and_peer_copies);
    suite_add_tcase(s, t);
    return st_run(s);
}
