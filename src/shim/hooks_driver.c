/* hooks_driver.c: the exported driver-API wrappers, expanded from the
 * X-macro tables in hooks/.  This is the authoritative layer: every count,
 * every finding and every redirect happens here, once (docs/ARCHITECTURE.md,
 * "Layers of interception").
 *
 * Each wrapper is declared from NVIDIA's PFN typedef of its ABI version
 * before it is defined, so a parameter list that drifts from cudaTypedefs.h
 * does not compile.
 */
#include "config.h"

#include "core.h"
#include "dispatch.h"
#include "fast.h"
#include "hooks_driver.h"
#include "kinds.h"
#include "real.h"
#include "runlog.h"
#include "track.h"

/* cuda.h renames these to their newest ABI (cuMemcpyBatchAsync ->
   cuMemcpyBatchAsync_v2).  We define the older ABI too, under its own
   exported name, so the rename must not apply here.  (ABIs older than the
   typedefs cudaTypedefs.h still declares, such as cuMemHostRegister of CUDA
   4.0, are passed through.) */
#undef cuMemcpyBatchAsync
#undef cuMemcpy3DBatchAsync
#undef cuCtxDestroy
#undef cuDevicePrimaryCtxReset
#undef cuDevicePrimaryCtxRelease

/* Deprecated entry points (cuCtxSetSharedMemConfig, ...) are still called
   by old programs and still synchronize; we wrap them like the rest. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* ------------------------------------------------ classification --- */
/* CLASSIFY statements of the tables: they tell the shim what a call does.
   `op_` is the wrapper's sc_op; the other names are the wrapper's own
   parameters, so redirect-by-handle can rewrite the stream argument. */
#define SC_PTR(x) ((const void *)(uintptr_t)(x))
#define SC_C_SUBMIT(K, s) (op_.kind = (K), op_.stream = (s), op_.streamp = &(s))
#define SC_C_LAUNCH(s, f, gx, gy, gz, bx, by, bz, sm)                                             \
    (SC_C_SUBMIT(SC_K_LAUNCH, s), op_.grid = (gx) * (gy) * (gz), op_.block = (bx) * (by) * (bz),   \
     op_.fn = (const void *)(f), op_.shmem = (sm))
#define SC_C_LAUNCH_EX(cfg, f)                                                                      \
    (op_.kind = SC_K_LAUNCH, op_.stream = (cfg) ? (cfg)->hStream : NULL, op_.p1 = (cfg), op_.cfgp = &(cfg), \
     op_.grid = (cfg) ? (cfg)->gridDimX * (cfg)->gridDimY * (cfg)->gridDimZ : 0,                   \
     op_.block = (cfg) ? (cfg)->blockDimX * (cfg)->blockDimY * (cfg)->blockDimZ : 0,               \
     op_.fn = (const void *)(f), op_.shmem = (cfg) ? (cfg)->sharedMemBytes : 0)
/* An async copy: its direction, host side and device side (dev: 0 for an
   array or where there is none), which the run log keeps (runlog.h). */
#define SC_C_COPY(d, s, n, h, dev)                                                                   \
    (op_.kind = SC_K_COPY, op_.dir = (d), op_.stream = (s), op_.streamp = &(s), op_.bytes = (n), op_.host = (h), \
     op_.p2 = SC_PTR(dev))
#define SC_C_COPY_U(s, n, dst, src)                                                          \
    (op_.kind = SC_K_COPY_U, op_.stream = (s), op_.streamp = &(s), op_.bytes = (n),          \
     op_.p1 = SC_PTR(dst), op_.p2 = SC_PTR(src))
#define SC_C_SCOPY(d, n, h) (op_.kind = SC_K_SCOPY, op_.dir = (d), op_.bytes = (n), op_.host = (h))
/* Device to device: the ends, to tell a peer copy between two devices. */
#define SC_C_SCOPY_D2D(n, dst, src) \
    (SC_C_SCOPY(SC_DIR_D2D, n, NULL), op_.p1 = SC_PTR(dst), op_.p2 = SC_PTR(src))
/* A peer copy between the contexts dctx and sctx. */
#define SC_C_SCOPY_PEER(n, dctx, sctx) \
    (SC_C_SCOPY(SC_DIR_PEER, n, NULL), op_.peer_ctx[0] = (dctx), op_.peer_ctx[1] = (sctx))
#define SC_C_COPY_PEER(s, n) (SC_C_COPY(SC_DIR_PEER, s, n, NULL, 0), op_.peer_ctx[0] = op_.peer_ctx[1] = NULL)
#define SC_C_SCOPY_U(n, dst, src) \
    (op_.kind = SC_K_SCOPY_U, op_.bytes = (n), op_.p1 = SC_PTR(dst), op_.p2 = SC_PTR(src))
#define SC_C_COPY2D(p, s) (op_.kind = SC_K_COPY2D, op_.stream = (s), op_.streamp = &(s), op_.p1 = (p))
#define SC_C_SCOPY2D(p) (op_.kind = SC_K_SCOPY2D, op_.p1 = (p))
#define SC_C_COPY3D(p, s) (op_.kind = SC_K_COPY3D, op_.stream = (s), op_.streamp = &(s), op_.p1 = (p))
#define SC_C_SCOPY3D(p) (op_.kind = SC_K_SCOPY3D, op_.p1 = (p))
#define SC_C_MEMSET(s, d, n) \
    (op_.kind = SC_K_MEMSET, op_.stream = (s), op_.streamp = &(s), op_.p1 = SC_PTR(d), op_.bytes = (n))
#define SC_C_SMEMSET(d, n) (op_.kind = SC_K_SMEMSET, op_.p1 = SC_PTR(d), op_.bytes = (n))
#define SC_C_ALLOC(K, out, n) (op_.kind = (K), op_.p1 = (out), op_.bytes = (n))
#define SC_C_FREE(K, p) (op_.kind = (K), op_.p1 = SC_PTR(p))
#define SC_C_REGISTER(p, n) (op_.kind = SC_K_REGISTER, op_.p1 = (p), op_.bytes = (n))
#define SC_C_ALLOC_ASYNC(out, n, s) \
    (op_.kind = SC_K_ALLOC_ASYNC, op_.p1 = (out), op_.bytes = (n), op_.stream = (s), op_.streamp = &(s))
#define SC_C_FREE_ASYNC(d, s) \
    (op_.kind = SC_K_FREE_ASYNC, op_.p1 = SC_PTR(d), op_.stream = (s), op_.streamp = &(s))
#define SC_C_STREAM_CREATE(ph, f, pr) \
    (op_.kind = SC_K_STREAM_CREATE, op_.p1 = (ph), op_.flags = (f), op_.prio = (pr))
#define SC_C_STREAM(K, s) (op_.kind = (K), op_.stream = (s), op_.streamp = &(s))
/* A capture's beginning: announced before the real call (track.c). */
#define SC_C_CAPTURE_BEGIN(s) (SC_C_STREAM(SC_K_CAPTURE_BEGIN, s), sc_track_capture_announce())
#define SC_C_EVENT(K, ev, s) (op_.kind = (K), op_.p1 = (ev), op_.stream = (s), op_.streamp = &(s))
#define SC_C_EVENT_SYNC(ev) (op_.kind = SC_K_EVENT_SYNC, op_.p1 = (ev))
#define SC_C_SIMPLE(K) (op_.kind = (K))
#define SC_C_CTX_RELEASE(dev) (op_.kind = SC_K_CTX_GONE, op_.flags = 1, op_.prio = (int)(dev))

/* ------------------------------------------------------- wrappers --- */
/* The wrapper: count and classify on the fast path; hazards, redirects
   and state changes on the slow path, around the real call.  The kind is
   a constant of each wrapper (CLS), so whether the fast path keeps state
   after the call (kinds.def, FAST CAPTURE) is decided at compile time: the
   other wrappers do not test it. */
#define SC_WRAP(abi, PFN, ID, PT, P, A, CLS)                                       \
    extern __typeof__(*(PFN)0) abi;                                                \
    SC_EXPORT CUresult abi P                                                       \
    {                                                                              \
        PFN real_ = (PFN)sc_real_get(ID);                                          \
        if (SC_UNLIKELY(!real_))                                                   \
            return sc_unresolved(ID);                                              \
        sc_thread *t_ = sc_enter();                                                \
        if (SC_UNLIKELY(!t_))                                                      \
            return real_ A;                                                        \
        sc_op op_;                                                                 \
        SC_OP_INIT(op_, ID, PT, __builtin_return_address(0));                      \
        CLS;                                                                       \
        const unsigned k_ = op_.kind;                                              \
        const int s_ = sc_fast_sampled(t_, &op_);                                  \
        if (SC_LIKELY(!s_) || SC_UNLIKELY(sc_g.ablate & SC_ABLATE_SLOW)) {         \
            PFN f_ = SC_UNLIKELY(op_.call != NULL) ? (PFN)op_.call : real_;         \
            if (!sc_kind_is(k_, SC_KFAST_CAPTURE))                                 \
                return f_ A;                                                       \
            return sc_fast_after(t_, &op_, f_ A);                                  \
        }                                                                          \
        if (s_ == SC_FAST_WATCHED) {   /* kept: after a wait, a pinned copy */      \
            PFN f_ = SC_UNLIKELY(op_.call != NULL) ? (PFN)op_.call : real_;         \
            if (sc_rl_watches(t_, &op_)) {                                         \
                uint64_t w0_ = sc_now_ns();                                        \
                CUresult wr_ = f_ A;                                               \
                sc_rl_watched(t_, &op_, w0_, wr_);                                 \
                return wr_;                                                        \
            }                                                                      \
            t_->rl.watch &= SC_RL_WATCH_WAIT; /* a capture's call: counted */       \
            sc_fast_kept(t_, &op_);                                                \
            if (!sc_kind_is(k_, SC_KFAST_CAPTURE))                                 \
                return f_ A;                                                       \
            return sc_fast_after(t_, &op_, f_ A);                                  \
        }                                                                          \
        sc_pre(t_, &op_);                                                          \
        if (op_.call)                                                              \
            real_ = (PFN)op_.call;                                                 \
        if (op_.timed || sc_rl_on)                                                 \
            op_.t0 = sc_now_ns();                                                  \
        CUresult r_ = real_ A;                                                     \
        sc_post(t_, &op_, r_);                                                     \
        return r_;                                                                 \
    }

#define SC_DRV(base, abi, ver, P, A, CLS) \
    SC_WRAP(abi, PFN_##base##_v##ver, SC_API_##abi, 0, P, A, CLS)
#define SC_DRVP(base, abi, ver, pt, ptver, P, A, CLS)                                     \
    SC_WRAP(abi, PFN_##base##_v##ver, SC_API_##abi, 0, P, A, CLS)                        \
    SC_WRAP(abi##_##pt, PFN_##base##_v##ptver##_##pt, SC_API_##abi##_##pt, 1, P, A, CLS)
#include "hooks/all.def"
#undef SC_DRV
#undef SC_DRVP

/* ------------------------------------------------------ wrappers --- */
/* Our function for each id: what interpose.c hands out. */
void *const sc_wrappers[SC_NAPI] = {
#define SC_DRV(base, abi, ver, P, A, CLS) [SC_API_##abi] = (void *)abi,
#define SC_DRVP(base, abi, ver, pt, ptver, P, A, CLS) \
    [SC_API_##abi] = (void *)abi, [SC_API_##abi##_##pt] = (void *)abi##_##pt,
#include "hooks/all.def"
#undef SC_DRV
#undef SC_DRVP
};
