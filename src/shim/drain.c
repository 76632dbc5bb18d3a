/* drain.c: the wait before a pageable async copy (drain.h).
 *
 * The cost of SC203 is the copy, not the wait for the stream's earlier
 * work: that work runs on the GPU either way, and the wait is what the
 * driver does first anyway (DRV, 2. API synchronization behavior: "for
 * transfers from pageable host memory to device memory, a stream sync is
 * performed before the copy is initiated"; device to host returns once
 * the copy, which follows the earlier work, has completed).  Waiting for
 * the stream before the call, timed, tells the two apart exactly, but it
 * costs a cuStreamSynchronize per copy and, where the driver would not
 * have waited (it stages small host-to-device copies at once: up to 1 MiB
 * on an H100, driver 580, src/sim/drv_copy.c), a wait the program never
 * had.  So it is done on a sample: the first SAMPLE_FIRST copies of each
 * direction and size class (a power of two of bytes: a batch and its
 * labels are two classes), then one in SAMPLE_EVERY.  Their copy times
 * give the class's rate; another copy's own time is split after the call:
 * its copy is its bytes at that rate (at most the whole call), the rest
 * was the wait.  A copy to a stream the shim saw drain since its last work
 * waits for nothing: exact without a wait, and it teaches the rate too.
 * Never for redirected calls (their stream is another), nor during a
 * capture (nothing runs).  A device-to-host copy into pages never written
 * is always waited for, and its pages are then faulted in apart from the
 * copy (touch.h): neither the sample's rate nor SC203's price holds the
 * first touch, which pinning does not save.  Into pages the thread's
 * copies touched before (a mapping made anew), it is waited for too, but
 * the copy faults them itself: its time is all saved by the fix, and
 * teaches no rate.
 */
#include "config.h"

#include <stdatomic.h>

#include "core.h"
#include "drain.h"
#include "kinds.h"
#include "real.h"
#include "thread.h"
#include "touch.h"

#define SAMPLE_FIRST 8
#define SAMPLE_EVERY 32
#define NCLASS 48          /* size classes: 2^0 .. 2^47 bytes and more */

/* Per direction (host to device, device to host) and size class: the
   copies seen, and the time and bytes of those whose split is exact. */
static struct drain_class {
    _Atomic uint64_t n, ns, bytes;
} classes[2][NCLASS];

static struct drain_class *class_of(const sc_op *op)
{
    unsigned c = op->bytes ? 63u - (unsigned)__builtin_clzll((unsigned long long)op->bytes) : 0;
    return &classes[op->dir == SC_DIR_D2H][c < NCLASS ? c : NCLASS - 1];
}

/* The wait itself: the driver's (it drains the stream before a pageable
   copy anyway), not the shim's own time (sc_pre takes drain_tk off). */
static void wait_for_stream(sc_op *op)
{
    CUstream s = op->lane == SC_LANE_LEGACY ? CU_STREAM_LEGACY
               : op->lane == SC_LANE_PTDS ? CU_STREAM_PER_THREAD : op->stream;
    uint64_t p0 = sc_prof_t0(), k0 = sc_tsc(), t0 = sc_now_ns();
    /* The driver's part of the call (core.h, the handshake): a report need
       not wait for it, and one that began meanwhile has the tables. */
    sc_thread *t = sc_tls_self;
    sc_busy_driver(t);
    if (sc_d.StreamSynchronize(s) == CUDA_SUCCESS)
        op->drain_ns = sc_now_ns() - t0;
    if (!sc_busy_back(t))
        op->bypass = 1;
    op->drain_tk = sc_tsc() - k0;
    sc_prof_add(t, SC_PH_DRAIN, p0, 0);
}

/* The destination's fresh pages faulted in, after the wait, where the
   driver's copy would have faulted them: the program's time, not ours. */
static void touch(sc_op *op)
{
    sc_thread *t = sc_tls_self;
    uint64_t k0 = sc_tsc();
    sc_busy_driver(t);
    op->touch_ns = sc_touch_populate(op->host, op->bytes);
    if (!sc_busy_back(t))
        op->bypass = 1;
    op->drain_tk += sc_tsc() - k0;
}

void sc_drain_before(sc_op *op, int lane_idle)
{
    if (op->redirected || op->call || !sc_d.StreamSynchronize || atomic_load(&sc_g.n_capturing) > 0)
        return;
    if (op->lane == SC_LANE_CREATED && !op->stream)
        return;
    op->marks |= SC_M_SPLIT;
    /* A first touch is waited for exactly: after the wait, as in the
       driver's copy, not while the GPU still works.  A 2D or 3D copy writes
       its rows a pitch apart, not every page of [host, host + bytes): left
       as it is. */
    int cold = op->dir == SC_DIR_D2H && !sc_kind_is(op->kind, SC_KF_2D | SC_KF_3D) &&
               sc_touch_cold(op->host, op->bytes);
    /* Pages the thread's copies touched before, mapped anew: the copy
       faults them as natively, the whole of it saved by the fix, and its
       time, faults and all, teaches no rate (touch.h) */
    if (cold && sc_touch_seen(op->host, op->bytes)) {
        op->touch_again = 1;
        cold = 0;
    }
    if (!lane_idle) {
        uint64_t n = atomic_fetch_add_explicit(&class_of(op)->n, 1, memory_order_relaxed) + 1;
        if ((sc_g.ablate & SC_ABLATE_DRAIN) ||
            (!cold && !op->touch_again && n > SAMPLE_FIRST && n % SAMPLE_EVERY)) {
            op->marks |= SC_M_SPLIT_EST;
            return;
        }
        wait_for_stream(op);
    }
    if (cold && !op->bypass)
        touch(op);
}

uint64_t sc_drain_after(sc_op *op, uint64_t blocked)
{
    struct drain_class *c = class_of(op);
    if (!(op->marks & SC_M_SPLIT_EST)) {
        if (!op->touch_again) {
            atomic_fetch_add_explicit(&c->ns, blocked, memory_order_relaxed);
            atomic_fetch_add_explicit(&c->bytes, op->bytes, memory_order_relaxed);
        }
        return blocked;
    }
    uint64_t ns = atomic_load_explicit(&c->ns, memory_order_relaxed);
    uint64_t bytes = atomic_load_explicit(&c->bytes, memory_order_relaxed);
    if (!bytes)
        return blocked;   /* nothing to tell them apart by: all of it is the copy's, as unsplit */
    double copy = (double)op->bytes * (double)ns / (double)bytes;
    uint64_t cp = copy < (double)blocked ? (uint64_t)copy : blocked;
    op->drain_ns = blocked - cp;
    return cp;
}
