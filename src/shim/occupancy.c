/* occupancy.c: the share of a device a kernel launch holds (occupancy.h),
 * by its threads and by its occupancy.
 *
 * A device's multiprocessors and their threads are asked once.  A table of
 * (function, block size, dynamic shared memory) -> the blocks the device
 * holds at once is filled by the first launch of each: it claims a slot
 * (compare-and-swap of its tag), writes the key, asks the driver, and
 * publishes the answer (release); readers take no lock and read a slot
 * whose answer is not yet published as unknown.  A full table answers
 * unknown: the run log falls back to the threads' demand.
 */
#include "config.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "core.h"
#include "occupancy.h"
#include "real.h"
#include "thread_parts.h"

int sc_occ_on;
int sc_occ_price;

#define SLOTS 4096u   /* a power of two */
#define PROBES 32u
#define MAX_DEV 64

typedef struct slot {
    _Atomic uint64_t tag;      /* 0: free; else the key's hash, odd */
    const void *fn;
    uint32_t block, shmem;
    int32_t per;               /* blocks a multiprocessor holds, written before room is published */
    _Atomic int64_t room;      /* 0: not yet known; -1: the driver cannot say; else blocks */
} slot;

/* The share of a multiprocessor a block on its own uses, where a grid
   spreads its blocks over more multiprocessors than its occupancy needs
   (on by default; the test hook STREAMCHECK_TEST_SMSHARE=0 turns it off). */
static int share_on;
#define SM_SHARE 0.5

static slot table[SLOTS];

/* A device's multiprocessors and threads per multiprocessor: 0 not asked,
   -1 the driver could not say. */
typedef struct devinfo {
    _Atomic int sms, per;
} devinfo;
static devinfo devs[MAX_DEV];

static uint64_t key_hash(const void *fn, uint32_t block, uint32_t shmem)
{
    uint64_t h = (uint64_t)(uintptr_t)fn * 0x9e3779b97f4a7c15ull;
    h ^= ((uint64_t)block << 32 | shmem) * 0xc2b2ae3d27d4eb4full;
    h ^= h >> 29;
    return h | 1;
}

/* Device dev's multiprocessors and threads per multiprocessor, asked once
   (a second asker may ask again, for the same answer): 1, or 0 where the
   driver cannot say. */
static int dev_info(unsigned dev, int *sms, int *per)
{
    if (dev >= MAX_DEV)
        return 0;
    devinfo *x = &devs[dev];
    int s = atomic_load_explicit(&x->sms, memory_order_relaxed);
    int p = atomic_load_explicit(&x->per, memory_order_relaxed);
    if (!s || !p) {
        CUdevice d;
        s = p = -1;
        int a = 0, b = 0;
        if (sc_d.DeviceGet && sc_d.DeviceGetAttribute && sc_d.DeviceGet(&d, (int)dev) == CUDA_SUCCESS &&
            sc_d.DeviceGetAttribute(&a, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d) == CUDA_SUCCESS &&
            sc_d.DeviceGetAttribute(&b, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, d) == CUDA_SUCCESS &&
            a > 0 && b > 0)
            s = a, p = b;
        atomic_store_explicit(&x->per, p, memory_order_relaxed);
        atomic_store_explicit(&x->sms, s, memory_order_relaxed);
    }
    *sms = s;
    *per = p;
    return s > 0 && p > 0;
}

float sc_occ_threads(unsigned dev, double threads)
{
    int sms, per;
    double room = dev_info(dev, &sms, &per) ? (double)sms * per : 0;
    return room > 0 && threads < room ? (float)(threads / room) : 1.0f;
}

/* The multiprocessors of the current context's device, or 0. */
static long device_sms(void)
{
    CUdevice dev;
    int sms, per;
    if (!sc_d.CtxGetDevice || sc_d.CtxGetDevice(&dev) != CUDA_SUCCESS || dev < 0)
        return 0;
    return dev_info((unsigned)dev, &sms, &per) ? sms : 0;
}

/* What the driver says of a key: blocks the device holds at once, or -1;
   *per_sm, those a multiprocessor holds. */
static int64_t ask(const void *fn, uint32_t block, uint32_t shmem, int32_t *per_sm)
{
    int per = 0;
    int saved = errno;
    long n = device_sms();
    CUresult r = n && sc_d.OccupancyMaxActiveBlocksPerMultiprocessor
                     ? sc_d.OccupancyMaxActiveBlocksPerMultiprocessor(&per, (CUfunction)(uintptr_t)fn, (int)block,
                                                                      shmem)
                     : CUDA_ERROR_NOT_SUPPORTED;
    errno = saved;
    *per_sm = per;
    return r == CUDA_SUCCESS && per > 0 ? (int64_t)per * n : -1;
}

static int64_t room_of(const void *fn, uint32_t block, uint32_t shmem, int32_t *per)
{
    uint64_t tag = key_hash(fn, block, shmem);
    for (uint32_t i = 0; i < PROBES; i++) {
        slot *s = &table[(tag + i) & (SLOTS - 1)];
        uint64_t t = atomic_load_explicit(&s->tag, memory_order_acquire);
        if (!t) {
            uint64_t zero = 0;
            if (!atomic_compare_exchange_strong_explicit(&s->tag, &zero, tag, memory_order_acq_rel,
                                                         memory_order_acquire)) {
                t = zero;   /* another key took it first: look at it as any other */
            } else {
                s->fn = fn;
                s->block = block;
                s->shmem = shmem;
                int64_t r = ask(fn, block, shmem, &s->per);
                *per = s->per;
                atomic_store_explicit(&s->room, r, memory_order_release);
                return r;
            }
        }
        if (t != tag)
            continue;
        int64_t r = atomic_load_explicit(&s->room, memory_order_acquire);
        if (!r)
            return 0;   /* being asked by another thread: unknown for now */
        if (s->fn == fn && s->block == block && s->shmem == shmem) {
            *per = s->per;
            return r;
        }
    }
    return 0;
}

float sc_occ_demand(const void *fn, uint32_t grid, uint32_t block, uint32_t shmem)
{
    if (!fn || !grid || !block)
        return 0;
    int32_t per = 0;
    int64_t room = room_of(fn, block, shmem, &per);
    if (room <= 0)
        return 0;
    if (grid >= room)
        return 1.0f;
    double occ = (double)grid / (double)room;
    if (!share_on || per < 2)
        return (float)occ;
    /* The block scheduler spreads a grid over the multiprocessors first: a
       grid of 128 blocks that 2 a multiprocessor would hold in 64 of an
       H200's 132 takes one slot in each of 128, and a second such grid's
       blocks share those multiprocessors.  A second block on a
       multiprocessor does not double its work: four 1024x1024 cuBLAS
       products on streams of their own ran 1.3 times as fast as on one
       (seed 000, an H100 and an H200), where occupancy (0.48 of the
       device each) promised 2.  So a grid's demand is its occupancy's plus
       half of what its spread over the multiprocessors adds to it: on an
       H200, seed 000's SC601 priced at 1.08 of the fix's gain, where
       occupancy alone gave 1.90 (the seeds' estimates, median of 3 runs). */
    double spread = occ * per;   /* the grid over the multiprocessors (room is per of each) */
    if (spread > 1)
        spread = 1;
    return (float)(occ + SM_SHARE * (spread - occ));
}

void sc_occ_kept(struct sc_rl_hot *rl, const void *fn, uint32_t grid, uint32_t block, uint32_t shmem)
{
    float o = sc_occ_demand(fn, grid, block, shmem);
    rl->occ += o;
    rl->occ_n += o > 0;
}

/* Measured mode (--measure, --measure-window, a trace) asks and prices
   with it: its kernels' times are the GPU's, and their overlap is what
   occupancy decides.  Detect mode does not (a table's probe on every
   launch, for kernels it does not time).  STREAMCHECK_TEST_OCCUPANCY=1 or
   0 overrides either; a pricing dump alone asks, so that a GPU run can be
   replayed both ways. */
static void occ_init(void)
{
    sc_occ_price = sc_test_switch("STREAMCHECK_TEST_OCCUPANCY", sc_opt_measured());
    sc_occ_on = sc_occ_price || getenv("STREAMCHECK_TEST_PRICE_DUMP");
    share_on = sc_test_switch("STREAMCHECK_TEST_SMSHARE", 1);
}

static const sc_part part = {"occupancy", 56, NULL, NULL, NULL, occ_init, NULL};
SC_PART_REGISTER(part)
