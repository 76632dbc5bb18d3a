/* track.c: the state kept after each call (sc_post), for the detectors of
 * later calls: streams created and destroyed, captures begun and ended,
 * device and pinned allocations, busy marks cleared by synchronizations,
 * contexts that went away, and the device's facts once cuInit succeeded.
 */
#include "config.h"

#include <string.h>

#include "callsites.h"
#include "core.h"
#include "findings.h"
#include "gpusample.h"
#include "hb.h"
#include "hostmem.h"
#include "kinds.h"
#include "lanes.h"
#include "measure.h"
#include "modules.h"
#include "real.h"
#include "runlog.h"
#include "streams.h"
#include "thread.h"
#include "track.h"

/* Device facts learned after cuInit, for the report. */
char sc_device_name[256];
int sc_driver_version;

static void on_init_done(void)
{
    static _Atomic int done;
    if (atomic_exchange(&done, 1))
        return;
    sc_drv_resolve();
    if (sc_d.DriverGetVersion)
        sc_d.DriverGetVersion(&sc_driver_version);
    CUdevice dev;
    if (sc_d.DeviceGet && sc_d.DeviceGet(&dev, 0) == CUDA_SUCCESS) {
        if (sc_d.DeviceGetName)
            sc_d.DeviceGetName(sc_device_name, sizeof sc_device_name, dev);
        int eng = -1;
        if (sc_d.DeviceGetAttribute &&
            sc_d.DeviceGetAttribute(&eng, CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, dev) == CUDA_SUCCESS) {
            atomic_store(&sc_g.async_engines, eng);
            if (eng < 2)
                atomic_store(&sc_g.slow_copies, 1);   /* SC702 needs every copy */
        }
    }
    sc_measure_start();   /* measured mode: before any context has work */
    /* detect mode: when each device has work, sampled for the pricing model */
    if (!sc_measure_active && sc_rl_on && sc_opt.gpu_sample_us)
        sc_gs_start((uint64_t)sc_opt.gpu_sample_us * 1000);
}

/* Whether the calling code, the first frame outside the shim and the CUDA
   runtime and driver, is NCCL (libnccl.so, which links the runtime
   statically, or a build that loads it dynamically).  NCCL's streams are
   NCCL's: the ones it creates (non-blocking, for its own kernels), and a
   framework's communication stream, whose first kernel is NCCL's
   (PyTorch's ProcessGroupNCCL takes one from its pool and hands it to
   ncclAllReduce).  Asked at a stream's creation and at its first kernel
   launch: a short walk, twice per stream. */
static int from_nccl(void)
{
    void *pcs[32];
    int n = sc_backtrace(pcs, 32);
    for (int i = 0; i < n; i++) {
        uintptr_t pc = (uintptr_t)pcs[i] - 1, base;
        if (pc >= sc_g.self_lo && pc < sc_g.self_hi)
            continue;
        unsigned idx = sc_module_find(pc, &base);
        const char *b = idx == SC_MOD_UNKNOWN ? NULL : sc_module_base(idx);
        if (!b)
            return 0;
        if (!strncmp(b, "libcuda.so", 10) || !strncmp(b, "libcudart.so", 12))
            continue;
        return !strncmp(b, "libnccl", 7);
    }
    return 0;
}

struct clear_q { CUcontext ctx; };
static void clear_stream(sc_stream *r, void *arg)
{
    struct clear_q *c = arg;
    if (c->ctx && r->ctx && r->ctx != c->ctx)
        return;
    uint64_t tok = atomic_load(&r->active);
    sc_unmark(&r->active, tok);
}
static void clear_thread(sc_thread *t, void *arg)
{
    struct clear_q *c = arg;
    /* Another device's per-thread stream did not drain. */
    CUcontext pc = atomic_load(&t->ptds_ctx);
    if (c->ctx && pc && pc != c->ctx)
        return;
    uint64_t tok = atomic_load(&t->ptds_active);
    sc_unmark(&t->ptds_active, tok);
}

/* The state kept after each kind of call (kinds.def, TRACK). */
static void track_none(sc_thread *t, sc_op *op, CUresult r)
{
    (void)t;
    (void)op;
    (void)r;
}

/* A created stream's first kernel: whose is it? (NCCL's, fast.h) */
static void track_launch(sc_thread *t, sc_op *op, CUresult r)
{
    (void)t;
    if (op->lane == SC_LANE_CREATED && op->srec && !atomic_exchange(&op->srec->launched, 1) &&
        r == CUDA_SUCCESS && from_nccl() && !atomic_exchange(&op->srec->internal, 1))
        atomic_fetch_add(&sc_g.n_internal, 1);
}

static void track_init(sc_thread *t, sc_op *op, CUresult r)
{
    (void)t;
    (void)op;
    if (r == CUDA_SUCCESS)
        on_init_done();
}

/* The streams --redirect-method=stream made may be gone with the context:
   threads make new ones (redirect.c).  A release (flags 1) ends the
   primary context only when it was the last one. */
static void track_ctx_gone(sc_thread *t, sc_op *op, CUresult r)
{
    (void)t;
    unsigned flags = 0;
    int active = 0;
    if (r == CUDA_SUCCESS &&
        !(op->flags == 1 && sc_d.PrimaryCtxGetState &&
          sc_d.PrimaryCtxGetState((CUdevice)op->prio, &flags, &active) == CUDA_SUCCESS && active))
        atomic_fetch_add(&sc_g.ctx_gen, 1);
}

static void track_stream_create(sc_thread *t, sc_op *op, CUresult r)
{
    if (r != CUDA_SUCCESS || !op->p1)
        return;
    CUstream h = *(CUstream const *)op->p1;
    uint64_t site = sc_callsite_capture(t);
    sc_stream *s = sc_stream_add(h, sc_op_ctx(op), op->flags, op->prio, site);
    if (s && from_nccl() && !atomic_exchange(&s->internal, 1))
        atomic_fetch_add(&sc_g.n_internal, 1);
}

static void track_stream_destroy(sc_thread *t, sc_op *op, CUresult r)
{
    (void)t;
    if (r == CUDA_SUCCESS)
        sc_stream_remove(op->stream);
}

/* The lane drained: its mark is cleared.  A redirected one (a
   cudaStreamSynchronize(0), a synchronous copy sent to the per-thread
   stream): the thread's redirected work has finished; nobody need wait
   for it (hb.h). */
static void lane_drained(sc_thread *t, sc_op *op)
{
    _Atomic uint64_t *m = sc_lane_mark(t, op);
    if (m)
        sc_unmark(m, atomic_load(m));
    if (op->redirected == SC_RD_REDIRECTED)
        sc_hb_drained(t, sc_op_ctx(op));
}

static void track_stream_sync(sc_thread *t, sc_op *op, CUresult r)
{
    if (r == CUDA_SUCCESS)
        lane_drained(t, op);
}

/* Every stream of the context has drained, other threads' per-thread
   streams included. */
static void track_ctx_sync(sc_thread *t, sc_op *op, CUresult r)
{
    (void)t;
    if (r != CUDA_SUCCESS)
        return;
    struct clear_q c = {sc_op_ctx(op)};
    sc_streams_foreach(clear_stream, &c);
    sc_threads_foreach(clear_thread, &c);
    _Atomic uint64_t *m = &sc_ctx_get(c.ctx)->legacy_active;
    sc_unmark(m, atomic_load(m));
    sc_hb_ctx_sync_end(c.ctx);
}

static void track_scopy(sc_thread *t, sc_op *op, CUresult r)
{
    if (r == CUDA_SUCCESS && (op->marks & SC_M_DRAINS))
        lane_drained(t, op);
}

/* Before the real call that begins a capture (its classification,
   hooks_driver.c): the count of captures is raised first and a round of
   the GPU sampler in progress waited for, so that no query of the shim's
   (gpusample.c, lanes.c) runs while the capture begins -- a query from
   another thread invalidates a capture in the global mode (CUDA Runtime
   API, cudaStreamBeginCapture; PG, Prohibited and Unhandled Operations).
   Asked after the call, the count left a window in which the sampler
   invalidated a capture that had just begun (bench/graphs under
   ThreadSanitizer: 2 captures in 12 runs failed).  After the call the
   raise is the capture's count (track_capture_begin), or undone: the call
   failed, or is not judged (sc_track_capture_undo). */
void sc_track_capture_announce(void)
{
    atomic_fetch_add(&sc_g.n_capturing, 1);
    sc_gs_fence();
}

void sc_track_capture_undo(const sc_op *op)
{
    if (op->kind == SC_K_CAPTURE_BEGIN)
        atomic_fetch_sub(&sc_g.n_capturing, 1);
}

/* A capture that began keeps its announcement as its count. */
static void track_capture_begin(sc_thread *t, sc_op *op, CUresult r)
{
    int began = 0;
    if (r == CUDA_SUCCESS) {
        if (op->lane == SC_LANE_CREATED && op->srec) {
            began = !atomic_exchange(&op->srec->capturing, 1);
        } else if (op->lane == SC_LANE_PTDS && !t->capturing_ptds) {
            t->capturing_ptds = 1;
            began = 1;
        }
    }
    if (!began)
        sc_track_capture_undo(op);
}

static void track_capture_end(sc_thread *t, sc_op *op, CUresult r)
{
    (void)r;
    if (op->lane == SC_LANE_CREATED && op->srec) {
        if (atomic_exchange(&op->srec->capturing, 0))
            atomic_fetch_sub(&sc_g.n_capturing, 1);
    } else if (op->lane == SC_LANE_PTDS && t->capturing_ptds) {
        t->capturing_ptds = 0;
        atomic_fetch_sub(&sc_g.n_capturing, 1);
    }
}

static void track_alloc_dev(sc_thread *t, sc_op *op, CUresult r)
{
    (void)t;
    if (r == CUDA_SUCCESS && op->p1)
        sc_devmem_add((const void *)(uintptr_t)*(CUdeviceptr const *)op->p1, op->bytes);
}

static void track_free_dev(sc_thread *t, sc_op *op, CUresult r)
{
    (void)t;
    if (r == CUDA_SUCCESS && op->p1)
        sc_devmem_remove(op->p1);
}

static void track_alloc_host(sc_thread *t, sc_op *op, CUresult r)
{
    (void)t;
    if (r == CUDA_SUCCESS && op->p1)
        sc_pinned_add(*(void *const *)op->p1, op->bytes);
}

static void track_register(sc_thread *t, sc_op *op, CUresult r)
{
    (void)t;
    if (r == CUDA_SUCCESS)
        sc_pinned_add(op->p1, op->bytes);
}

static void track_free_host(sc_thread *t, sc_op *op, CUresult r)
{
    (void)t;
    if (r == CUDA_SUCCESS && op->p1)
        sc_pinned_remove(op->p1);
}

static void (*const track_of[SC_NKINDS])(sc_thread *, sc_op *, CUresult) = {
#define SC_KIND(NAME, FAST, PRE, TRACK, FLAGS) [SC_K_##NAME] = track_##TRACK,
#include "kinds.def"
#undef SC_KIND
};

void sc_track_post(sc_thread *t, sc_op *op, CUresult r)
{
    track_of[op->kind](t, op, r);
}
