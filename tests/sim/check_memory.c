/* tests/sim/check_memory.c: copies, memsets, allocation and pointer
 * attributes of the simulated driver, with the host-side blocking of the
 * CUDA Driver API's "API synchronization behavior" page. */
#include "config.h"

#include "simtest.h"

#include <cudaTypedefs.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define N 4096

typedef struct copy_arg {
    void *dst;
    const void *src;
    size_t n;
    CUstream s;
    int kind; /* which entry point */
} copy_arg;

enum {
    HTOD_ASYNC,
    DTOH_ASYNC,
    DTOD_ASYNC,
    ANY_ASYNC,
    HTOD,
    DTOH,
    DTOD,
    ANY,
    HTOD_PTDS,
    MEMSET_D8,
};

static void do_copy(void *p)
{
    copy_arg *a = p;
    CUdeviceptr d = (CUdeviceptr)(uintptr_t)a->dst;
    CUdeviceptr s = (CUdeviceptr)(uintptr_t)a->src;
    switch (a->kind) {
    case HTOD_ASYNC:
        ST_OK(cuMemcpyHtoDAsync(d, a->src, a->n, a->s));
        break;
    case DTOH_ASYNC:
        ST_OK(cuMemcpyDtoHAsync(a->dst, s, a->n, a->s));
        break;
    case DTOD_ASYNC:
        ST_OK(cuMemcpyDtoDAsync(d, s, a->n, a->s));
        break;
    case ANY_ASYNC:
        ST_OK(cuMemcpyAsync(d, s, a->n, a->s));
        break;
    case HTOD:
        ST_OK(cuMemcpyHtoD(d, a->src, a->n));
        break;
    case DTOH:
        ST_OK(cuMemcpyDtoH(a->dst, s, a->n));
        break;
    case DTOD:
        ST_OK(cuMemcpyDtoD(d, s, a->n));
        break;
    case ANY:
        ST_OK(cuMemcpy(d, s, a->n));
        break;
    case HTOD_PTDS: {
        PFN_cuMemcpyHtoD_v7000_ptds f =
            (PFN_cuMemcpyHtoD_v7000_ptds)st_proc("cuMemcpyHtoD", 7000, 2);
        ST_OK(f(d, a->src, a->n));
        break;
    }
    case MEMSET_D8:
        ST_OK(cuMemsetD8(d, 0x5a, a->n));
        break;
    }
}

/* Holds stream s with a gate, runs the copy in a helper thread and
 * reports whether it returned while the stream was held. */
static bool returns_while_held(CUstream held, copy_arg *a)
{
    st_gate g;
    st_gate_init(&g);
    st_gate_on(&g, held);
    ck_assert(st_gate_reached(&g, ST_RETURN_MS));
    st_call c;
    st_call_start(&c, do_copy, a);
    bool returned = st_call_done_within(&c, ST_BLOCK_MS);
    st_gate_open(&g);
    ck_assert(st_call_done_within(&c, ST_RETURN_MS));
    st_call_join(&c);
    ST_OK(cuCtxSynchronize());
    return returned;
}

typedef struct bufs {
    char *dev, *dev2, *pinned, *pageable;
} bufs;

/* Ordinary (pageable) host memory. */
static char pageable_storage[N];

static void alloc_bufs(bufs *b)
{
    CUdeviceptr d, d2;
    ST_OK(cuMemAlloc(&d, N));
    ST_OK(cuMemAlloc(&d2, N));
    b->dev = (char *)(uintptr_t)d;
    b->dev2 = (char *)(uintptr_t)d2;
    ST_OK(cuMemHostAlloc((void **)&b->pinned, N, 0));
    b->pageable = pageable_storage;
    memset(b->pageable, 1, N);
    memset(b->pinned, 2, N);
    memset(b->dev, 3, N);
    memset(b->dev2, 4, N);
}

/* Async copies from pinned memory are asynchronous; from pageable memory
 * host->device waits for the stream and the copy, device->host returns
 * once the copy is done. */
START_TEST(async_copy_blocking)
{
    st_init();
    bufs b;
    alloc_bufs(&b);
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    struct {
        int kind;
        char **dst, **src;
        bool returns;
        const char *what;
    } cases[] = {
        {HTOD_ASYNC, &b.dev, &b.pinned, true, "pinned host->device"},
        {HTOD_ASYNC, &b.dev, &b.pageable, false, "pageable host->device"},
        {DTOH_ASYNC, &b.pinned, &b.dev, true, "device->pinned host"},
        {DTOH_ASYNC, &b.pageable, &b.dev, false, "device->pageable host"},
        {DTOD_ASYNC, &b.dev2, &b.dev, true, "device->device"},
        {ANY_ASYNC, &b.dev, &b.pinned, true, "unified pinned->device"},
        {ANY_ASYNC, &b.dev, &b.pageable, false, "unified pageable->device"},
        {ANY_ASYNC, &b.pageable, &b.pinned, false, "host->host"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        copy_arg a = {*cases[i].dst, *cases[i].src, N, s, cases[i].kind};
        ck_assert_msg(returns_while_held(s, &a) == cases[i].returns,
                      "async %s: %s the host", cases[i].what,
                      cases[i].returns ? "blocked" : "did not block");
        ck_assert_msg(memcmp(*cases[i].dst, *cases[i].src, N) == 0,
                      "async %s: data not copied", cases[i].what);
        memset(*cases[i].src, (int)i + 10, N);
    }
}
END_TEST

/* The same with a spin kernel and the clock: the pageable copy returns
 * only after the kernel (lower bound), with the data in place. */
START_TEST(async_pageable_copy_waits_for_kernel)
{
    st_init();
    bufs b;
    alloc_bufs(&b);
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    double t0 = st_now_ms();
    st_spin(s, 150000000ull);
    ST_OK(cuMemcpyHtoDAsync((CUdeviceptr)(uintptr_t)b.dev, b.pageable, N, s));
    double t1 = st_now_ms();
    ck_assert_msg(t1 - t0 >= 140, "pageable H2D returned after %.1f ms", t1 - t0);
    ck_assert(memcmp(b.dev, b.pageable, N) == 0);
    t0 = st_now_ms();
    st_spin(s, 150000000ull);
    ST_OK(cuMemcpyDtoHAsync(b.pageable, (CUdeviceptr)(uintptr_t)b.dev2, N, s));
    t1 = st_now_ms();
    ck_assert_msg(t1 - t0 >= 140, "pageable D2H returned after %.1f ms", t1 - t0);
    ck_assert(memcmp(b.dev2, b.pageable, N) == 0);
}
END_TEST

/* Synchronous copies go to the legacy stream: pinned H2D and any D2H
 * wait for completion, pageable H2D waits for the stream, D2D does not
 * block the host, H2H is fully synchronous. */
START_TEST(sync_copy_blocking)
{
    st_init();
    bufs b;
    alloc_bufs(&b);
    struct {
        int kind;
        char **dst, **src;
        bool returns;
        const char *what;
    } cases[] = {
        {HTOD, &b.dev, &b.pinned, false, "pinned host->device"},
        {HTOD, &b.dev, &b.pageable, false, "pageable host->device"},
        {DTOH, &b.pinned, &b.dev, false, "device->pinned host"},
        {DTOH, &b.pageable, &b.dev, false, "device->pageable host"},
        {DTOD, &b.dev2, &b.dev, true, "device->device"},
        {ANY, &b.dev2, &b.dev, true, "unified device->device"},
        {ANY, &b.dev, &b.pinned, false, "unified pinned->device"},
        {ANY, &b.pageable, &b.pinned, false, "host->host"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        copy_arg a = {*cases[i].dst, *cases[i].src, N, NULL, cases[i].kind};
        ck_assert_msg(returns_while_held(NULL, &a) == cases[i].returns,
                      "%s: %s the host", cases[i].what,
                      cases[i].returns ? "blocked" : "did not block");
        ck_assert_msg(memcmp(*cases[i].dst, *cases[i].src, N) == 0,
                      "%s: data not copied", cases[i].what);
        memset(*cases[i].src, (int)i + 10, N);
    }
}
END_TEST

/* A synchronous device-to-device copy returns before it has run. */
START_TEST(sync_dtod_completes_later)
{
    st_init();
    bufs b;
    alloc_bufs(&b);
    st_gate g;
    st_gate_init(&g);
    st_gate_on(&g, NULL);
    ST_OK(cuMemcpyDtoD((CUdeviceptr)(uintptr_t)b.dev2,
                       (CUdeviceptr)(uintptr_t)b.dev, N));
    ck_assert_int_eq(b.dev2[0], 4); /* not yet copied */
    st_gate_open(&g);
    ST_OK(cuCtxSynchronize());
    ck_assert_int_eq(b.dev2[0], 3);
}
END_TEST

/* Pageable host->device: the source is staged when the call returns, so
 * reusing the buffer at once does not change what reaches the device. */
START_TEST(sync_pageable_htod_is_staged)
{
    st_init();
    bufs b;
    alloc_bufs(&b);
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_DEFAULT));
    double t0 = st_now_ms();
    st_spin(s, 150000000ull); /* a blocking stream: the legacy sync covers it */
    ST_OK(cuMemcpyHtoD((CUdeviceptr)(uintptr_t)b.dev, b.pageable, N));
    double t1 = st_now_ms();
    ck_assert_msg(t1 - t0 >= 140, "returned after %.1f ms", t1 - t0);
    memset(b.pageable, 0x77, N);
    ST_OK(cuCtxSynchronize());
    ck_assert_int_eq(b.dev[0], 1);
    ck_assert_int_eq(b.dev[N - 1], 1);
}
END_TEST

static void *gate_pt_and_wait(void *p)
{
    st_gate **gs = p;
    st_thread_ctx();
    st_gate_on_pt(gs[0], NULL);
    pthread_mutex_lock(&gs[1]->mu);
    while (!gs[1]->open)
        pthread_cond_wait(&gs[1]->cv, &gs[1]->mu);
    pthread_mutex_unlock(&gs[1]->mu);
    return NULL;
}

/* _ptds copies use the calling thread's per-thread stream: another
 * thread's held per-thread stream does not block them, but it does
 * block the legacy stream. */
START_TEST(ptds_copy_uses_per_thread_stream)
{
    st_init();
    bufs b;
    alloc_bufs(&b);
    st_gate g, hold;
    st_gate_init(&g);
    st_gate_init(&hold);
    st_gate *gs[] = {&g, &hold};
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, gate_pt_and_wait, gs), 0);
    ck_assert(st_gate_reached(&g, ST_RETURN_MS));
    copy_arg pt = {b.dev, b.pinned, N, NULL, HTOD_PTDS};
    st_call c;
    st_call_start(&c, do_copy, &pt);
    ck_assert(st_call_done_within(&c, ST_RETURN_MS));
    st_call_join(&c);
    ck_assert(memcmp(b.dev, b.pinned, N) == 0);
    copy_arg legacy = {b.dev, b.pageable, N, NULL, HTOD};
    st_call_start(&c, do_copy, &legacy);
    ck_assert(!st_call_done_within(&c, ST_BLOCK_MS));
    st_gate_open(&g);
    ck_assert(st_call_done_within(&c, ST_RETURN_MS));
    st_call_join(&c);
    st_gate_open(&hold);
    pthread_join(t, NULL);
}
END_TEST

/* Synchronous memsets are asynchronous to the host except into pinned
 * host memory. */
START_TEST(sync_memset_blocking)
{
    st_init();
    bufs b;
    alloc_bufs(&b);
    copy_arg dev = {b.dev, NULL, N, NULL, MEMSET_D8};
    ck_assert(returns_while_held(NULL, &dev));
    ck_assert_int_eq((unsigned char)b.dev[N - 1], 0x5a);
    copy_arg pinned = {b.pinned, NULL, N, NULL, MEMSET_D8};
    ck_assert(!returns_while_held(NULL, &pinned));
    ck_assert_int_eq((unsigned char)b.pinned[N - 1], 0x5a);
    /* Pageable memory is not device accessible. */
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE,
              cuMemsetD8((CUdeviceptr)(uintptr_t)b.pageable, 0, N));
}
END_TEST

START_TEST(memset_values)
{
    st_init();
    CUdeviceptr d;
    ST_OK(cuMemAlloc(&d, 1024));
    uint8_t *p = (uint8_t *)(uintptr_t)d;
    ST_OK(cuMemsetD32(d, 0xdeadbeefu, 256));
    ST_OK(cuCtxSynchronize());
    uint32_t w;
    memcpy(&w, p + 1020, 4);
    ck_assert_uint_eq(w, 0xdeadbeefu);
    ST_OK(cuMemsetD16Async(d + 2, 0x1234, 3, NULL));
    ST_OK(cuCtxSynchronize());
    uint16_t h;
    memcpy(&h, p + 6, 2);
    ck_assert_uint_eq(h, 0x1234);
    memcpy(&h, p + 8, 2);
    ck_assert_uint_eq(h, 0xbeef);
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemsetD32(d + 2, 0, 4));
    /* 2D: 3 rows of 4 bytes at pitch 16. */
    ST_OK(cuMemsetD8(d, 0, 64));
    ST_OK(cuMemsetD2D8(d, 16, 0xab, 4, 3));
    ST_OK(cuCtxSynchronize());
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 16; c++)
            ck_assert_uint_eq(p[r * 16 + c], r < 3 && c < 4 ? 0xab : 0);
    ST_OK(cuMemsetD2D32Async(d, 16, 7u, 2, 2, NULL));
    ST_OK(cuCtxSynchronize());
    memcpy(&w, p + 20, 4);
    ck_assert_uint_eq(w, 7u);
}
END_TEST

START_TEST(copy_2d)
{
    st_init();
    size_t pitch;
    CUdeviceptr d;
    ST_OK(cuMemAllocPitch(&d, &pitch, 10, 4, 4));
    ck_assert_uint_ge(pitch, 10);
    char host[40], back[40];
    for (int i = 0; i < 40; i++)
        host[i] = (char)i;
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = host;
    c.srcPitch = 10;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = d;
    c.dstPitch = pitch;
    c.WidthInBytes = 10;
    c.Height = 4;
    ST_OK(cuMemcpy2D(&c));
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
    c.srcDevice = d;
    c.srcPitch = pitch;
    c.dstMemoryType = CU_MEMORYTYPE_HOST;
    c.dstHost = back;
    c.dstPitch = 10;
    c.WidthInBytes = 10;
    c.Height = 4;
    ST_OK(cuMemcpy2DAsync(&c, NULL));
    ST_OK(cuStreamSynchronize(NULL));
    ck_assert(memcmp(host, back, 40) == 0);
    c.dstPitch = 5; /* narrower than a row */
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemcpy2DUnaligned(&c));
    c.dstPitch = 10;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    int saved = st_stderr_begin();
    CUresult r = cuMemcpy2D(&c);
    char *err = st_stderr_end(saved);
    ck_assert_int_eq(r, CUDA_ERROR_NOT_SUPPORTED);
    ck_assert_int_eq(st_count(err, "CUDA arrays are not supported"), 1);
    free(err);
}
END_TEST

/* ------------------------------------------------------- allocation sync --- */

typedef struct alloc_arg {
    int op;
    void *p;
} alloc_arg;

enum { A_ALLOC, A_FREE, A_HOSTALLOC, A_FREEHOST, A_REGISTER, A_UNREGISTER,
       A_ALLOCHOST, A_PITCH, A_ALLOC_ASYNC, A_FREE_ASYNC };

static CUstream async_stream;

static void do_alloc(void *p)
{
    alloc_arg *a = p;
    CUdeviceptr d;
    size_t pitch;
    switch (a->op) {
    case A_ALLOC:
        ST_OK(cuMemAlloc(&d, 256));
        a->p = (void *)(uintptr_t)d;
        break;
    case A_FREE:
        ST_OK(cuMemFree((CUdeviceptr)(uintptr_t)a->p));
        break;
    case A_HOSTALLOC:
        ST_OK(cuMemHostAlloc(&a->p, 256, CU_MEMHOSTALLOC_PORTABLE));
        break;
    case A_ALLOCHOST:
        ST_OK(cuMemAllocHost(&a->p, 256));
        break;
    case A_FREEHOST:
        ST_OK(cuMemFreeHost(a->p));
        break;
    case A_REGISTER:
        ST_OK(cuMemHostRegister(a->p, 4096, 0));
        break;
    case A_UNREGISTER:
        ST_OK(cuMemHostUnregister(a->p));
        break;
    case A_PITCH:
        ST_OK(cuMemAllocPitch(&d, &pitch, 100, 10, 4));
        break;
    case A_ALLOC_ASYNC:
        ST_OK(cuMemAllocAsync(&d, 256, async_stream));
        a->p = (void *)(uintptr_t)d;
        break;
    case A_FREE_ASYNC:
        ST_OK(cuMemFreeAsync((CUdeviceptr)(uintptr_t)a->p, async_stream));
        break;
    }
}

/* Allocation and release of device and page-locked memory wait until
 * every stream of the context is idle, non-blocking streams included;
 * the stream-ordered allocator does not. */
static void check_allocation_sync(bool alloc_syncs, bool release_syncs)
{
    st_init();
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    async_stream = s;
    void *reg = aligned_alloc(4096, 4096);
    alloc_arg dev = {A_ALLOC, NULL}, host = {A_HOSTALLOC, NULL},
              host2 = {A_ALLOCHOST, NULL}, r = {A_REGISTER, reg},
              pitch = {A_PITCH, NULL}, aa = {A_ALLOC_ASYNC, NULL};
    alloc_arg *seq[] = {&dev, &host, &host2, &r, &pitch};
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        st_gate g;
        st_gate_init(&g);
        st_gate_on(&g, s);
        ck_assert(st_gate_reached(&g, ST_RETURN_MS));
        st_call c;
        st_call_start(&c, do_alloc, seq[i]);
        bool returned = st_call_done_within(&c, ST_BLOCK_MS);
        ck_assert_msg(returned != alloc_syncs, "allocation %d: %s", seq[i]->op,
                      returned ? "did not synchronize" : "synchronized");
        st_gate_open(&g);
        ck_assert(st_call_done_within(&c, ST_RETURN_MS));
        st_call_join(&c);
        ST_OK(cuStreamSynchronize(s)); /* the gate is done with g */
    }
    alloc_arg f = {A_FREE, dev.p}, fh = {A_FREEHOST, host.p},
              fh2 = {A_FREEHOST, host2.p}, u = {A_UNREGISTER, reg};
    alloc_arg *rel[] = {&f, &fh, &fh2, &u};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        st_gate g;
        st_gate_init(&g);
        st_gate_on(&g, s);
        ck_assert(st_gate_reached(&g, ST_RETURN_MS));
        st_call c;
        st_call_start(&c, do_alloc, rel[i]);
        bool returned = st_call_done_within(&c, ST_BLOCK_MS);
        ck_assert_msg(returned != release_syncs, "release %d: %s", rel[i]->op,
                      returned ? "did not synchronize" : "synchronized");
        st_gate_open(&g);
        ck_assert(st_call_done_within(&c, ST_RETURN_MS));
        st_call_join(&c);
        ST_OK(cuStreamSynchronize(s)); /* the gate is done with g */
    }
    /* Stream-ordered allocation never waits, even on its own stream. */
    st_gate g;
    st_gate_init(&g);
    st_gate_on(&g, s);
    st_call c;
    st_call_start(&c, do_alloc, &aa);
    ck_assert(st_call_done_within(&c, ST_RETURN_MS));
    st_call_join(&c);
    alloc_arg fa = {A_FREE_ASYNC, aa.p};
    st_call_start(&c, do_alloc, &fa);
    ck_assert(st_call_done_within(&c, ST_RETURN_MS));
    st_call_join(&c);
    /* Released when the stream reaches the free. */
    CUdeviceptr base;
    size_t size;
    ST_OK(cuMemGetAddressRange(&base, &size, (CUdeviceptr)(uintptr_t)aa.p));
    st_gate_open(&g);
    ST_OK(cuStreamSynchronize(s));
    ST_EXPECT(CUDA_ERROR_NOT_FOUND,
              cuMemGetAddressRange(&base, &size, (CUdeviceptr)(uintptr_t)aa.p));
    free(reg);
}

START_TEST(allocation_synchronizes_device)
{
    check_allocation_sync(true, true);
}
END_TEST

START_TEST(allocation_sync_can_be_disabled)
{
    setenv("STREAMCHECK_SIM_ALLOC_SYNC", "0", 1);
    check_allocation_sync(false, false);
}
END_TEST

/* What an H100 with driver 580 does: only releases synchronize. */
START_TEST(allocation_sync_on_release_only)
{
    setenv("STREAMCHECK_SIM_ALLOC_SYNC", "free", 1);
    check_allocation_sync(false, true);
}
END_TEST

/* STREAMCHECK_SIM_PAGEABLE_STAGE_MAX: small pageable host-to-device async
 * copies are staged without waiting for the stream, larger ones wait. */
START_TEST(pageable_staging_threshold)
{
    setenv("STREAMCHECK_SIM_PAGEABLE_STAGE_MAX", "1024", 1);
    st_init();
    bufs b;
    alloc_bufs(&b);
    CUstream s;
    ST_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    copy_arg small = {b.dev, b.pageable, 1024, s, HTOD_ASYNC};
    st_gate g;
    st_gate_init(&g);
    st_gate_on(&g, s);
    ck_assert(st_gate_reached(&g, ST_RETURN_MS));
    st_call c;
    st_call_start(&c, do_copy, &small);
    ck_assert(st_call_done_within(&c, ST_RETURN_MS));
    st_call_join(&c);
    memset(b.pageable, 0x55, 1024); /* staged: the copy keeps the old bytes */
    st_gate_open(&g);
    ST_OK(cuStreamSynchronize(s));
    ck_assert_int_eq(b.dev[0], 1);
    copy_arg large = {b.dev, b.pageable, 1025, s, HTOD_ASYNC};
    ck_assert(!returns_while_held(s, &large));
}
END_TEST

/* STREAMCHECK_SIM_COPY_GBPS and STREAMCHECK_SIM_PAGEABLE_GBPS: a copy of N
 * bytes takes N / rate, a pageable one at the pageable rate (10 and 40 ms
 * here); the bytes arrive as without pacing. */
static double copy_ms(void *dst, const void *src)
{
    double t0 = st_now_ms();
    ST_OK(cuMemcpyHtoD((CUdeviceptr)(uintptr_t)dst, src, N));
    ST_OK(cuCtxSynchronize());
    return st_now_ms() - t0;
}

START_TEST(paced_copies)
{
    setenv("STREAMCHECK_SIM_COPY_GBPS", "0.0004096", 1);
    setenv("STREAMCHECK_SIM_PAGEABLE_GBPS", "0.0001024", 1);
    st_init();
    bufs b;
    alloc_bufs(&b);
    double pinned = copy_ms(b.dev, b.pinned);
    ck_assert_int_eq(b.dev[N - 1], 2);
    double pageable = copy_ms(b.dev2, b.pageable);
    ck_assert_int_eq(b.dev2[N - 1], 1);
    ck_assert_msg(pinned >= 10 && pinned < 35, "pinned copy %.1f ms, not 10", pinned);
    ck_assert_msg(pageable >= 40, "pageable copy %.1f ms, not 40", pageable);
}
END_TEST

/* ------------------------------------------------------------ pointers --- */

START_TEST(pointer_attributes)
{
    st_init();
    CUdeviceptr d;
    ST_OK(cuMemAlloc(&d, 1000));
    ck_assert_uint_eq(d % 256, 0);
    void *pinned;
    ST_OK(cuMemHostAlloc(&pinned, 100, CU_MEMHOSTALLOC_DEVICEMAP));
    char *reg = aligned_alloc(4096, 8192);
    ST_OK(cuMemHostRegister(reg, 8192, CU_MEMHOSTREGISTER_PORTABLE));
    char pageable[64];

    unsigned type = 99;
    ST_OK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d + 10));
    ck_assert_uint_eq(type, CU_MEMORYTYPE_DEVICE);
    ST_OK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                (CUdeviceptr)(uintptr_t)pinned));
    ck_assert_uint_eq(type, CU_MEMORYTYPE_HOST);
    ST_OK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                (CUdeviceptr)(uintptr_t)(reg + 100)));
    ck_assert_uint_eq(type, CU_MEMORYTYPE_HOST);
    /* Pageable memory: an error from the singular call... */
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE,
              cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                    (CUdeviceptr)(uintptr_t)pageable));
    /* ...and success with memory type 0 from the plural one. */
    CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                   CU_POINTER_ATTRIBUTE_CONTEXT};
    CUcontext ctx = (CUcontext)1;
    type = 99;
    void *data[] = {&type, &ctx};
    ST_OK(cuPointerGetAttributes(2, attrs, data, (CUdeviceptr)(uintptr_t)pageable));
    ck_assert_uint_eq(type, 0);
    ck_assert_ptr_null(ctx);
    ST_OK(cuPointerGetAttributes(2, attrs, data, d));
    ck_assert_uint_eq(type, CU_MEMORYTYPE_DEVICE);
    ck_assert_ptr_nonnull(ctx);

    CUdeviceptr base;
    size_t size;
    ST_OK(cuMemGetAddressRange(&base, &size, d + 999));
    ck_assert_uint_eq(base, d);
    ck_assert_uint_eq(size, 1000);
    ST_EXPECT(CUDA_ERROR_NOT_FOUND, cuMemGetAddressRange(&base, &size, d + 1000));
    CUdeviceptr mapped;
    ST_OK(cuMemHostGetDevicePointer(&mapped, pinned, 0));
    ck_assert_uint_eq(mapped, (CUdeviceptr)(uintptr_t)pinned);
    unsigned flags;
    ST_OK(cuMemHostGetFlags(&flags, pinned));
    ck_assert_uint_eq(flags, CU_MEMHOSTALLOC_DEVICEMAP);
    /* All page-locked memory is mapped under unified addressing. */
    ST_OK(cuMemHostGetFlags(&flags, reg));
    ck_assert_uint_eq(flags, CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP);
    void *plain;
    ST_OK(cuMemAllocHost(&plain, 16));
    ST_OK(cuMemHostGetFlags(&flags, plain));
    ck_assert_uint_eq(flags, CU_MEMHOSTALLOC_DEVICEMAP);
    ST_OK(cuMemFreeHost(plain));
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemHostGetFlags(&flags, pageable));
    ST_EXPECT(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
              cuMemHostRegister(reg + 4096, 4096, 0));
    ST_EXPECT(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, cuMemHostUnregister(pageable));
    ST_OK(cuMemHostUnregister(reg));
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE,
              cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                    (CUdeviceptr)(uintptr_t)reg));
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemFree(d + 8));
    ST_OK(cuMemFree(0));
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemFreeHost(pageable));
    ST_OK(cuMemFree(d));
    ST_OK(cuMemFreeHost(pinned));
    free(reg);
}
END_TEST

START_TEST(memory_info)
{
    st_init();
    size_t free0, total, free1;
    ST_OK(cuMemGetInfo(&free0, &total));
    ck_assert_uint_eq(total, 80ull << 30);
    CUdeviceptr d;
    ST_OK(cuMemAlloc(&d, 1 << 20));
    ST_OK(cuMemGetInfo(&free1, &total));
    ck_assert_uint_eq(free0 - free1, 1 << 20);
    ST_EXPECT(CUDA_ERROR_OUT_OF_MEMORY, cuMemAlloc(&d, 81ull << 30));
    ST_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemAlloc(&d, 0));
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("sim-memory");
    TCase *t = tcase_create("copies");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, async_copy_blocking);
    tcase_add_test(t, async_pageable_copy_waits_for_kernel);
    tcase_add_test(t, sync_copy_blocking);
    tcase_add_test(t, sync_dtod_completes_later);
    tcase_add_test(t, sync_pageable_htod_is_staged);
    tcase_add_test(t, ptds_copy_uses_per_thread_stream);
    tcase_add_test(t, sync_memset_blocking);
    tcase_add_test(t, memset_values);
    tcase_add_test(t, copy_2d);
    suite_add_tcase(s, t);
    t = tcase_create("allocation");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, allocation_synchronizes_device);
    tcase_add_test(t, allocation_sync_can_be_disabled);
    tcase_add_test(t, allocation_sync_on_release_only);
    tcase_add_test(t, pageable_staging_threshold);
    tcase_add_test(t, paced_copies);
    tcase_add_test(t, pointer_attributes);
    tcase_add_test(t, memory_info);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return st_run(suite());
}
