/* replay.h: a run of a CUDA program as a dependency graph, and its replay.
 *
 * The pricing model (pricing.c) describes what the program did -- each
 * host thread's steps in order (CPU time, submissions, waits) and each
 * stream's GPU operations with their durations -- and replays it here; then
 * it describes the same run with a hazard's fix applied (a wait dropped, a
 * copy made asynchronous at the pinned rate, work moved off the legacy
 * stream) and replays that.  The difference of the two is what the fix
 * saves.  This is how Daydream (USENIX ATC '20) and dPRO predict what an
 * optimization gains from a trace.
 *
 * The semantics replayed are CUDA's (CUDA C++ Programming Guide,
 * Asynchronous Concurrent Execution > Streams; Driver API, 3. Stream
 * synchronization behavior):
 * - a stream runs its operations in submission order;
 * - an operation on the legacy stream waits for every operation submitted
 *   before it to the blocking streams of its device (created without
 *   CU_STREAM_NON_BLOCKING, and per-thread default streams), and operations
 *   submitted to those streams after it wait for it; non-blocking streams
 *   are not ordered with it;
 * - a stream wait on an event: the stream's next operation waits for the
 *   operation the event follows (for every one, after several waits);
 * - host waits (stream, device or event synchronization, and the implicit
 *   ones of blocking copies and allocations) return when what they wait for
 *   is done, as submitted when the wait began;
 * - one host thread may wait for a step of another (the program's own
 *   orders: a join, a mutex taken after another thread released it).
 * Operations run as soon as their predecessors are done.  Kernels running at
 * once share the device first come, first served: each asks for a fraction
 * of it (its demand, 1 for a kernel that fills the device) and gets what
 * the kernels that started before it left, as the block scheduler hands
 * out the first kernel's blocks before the next one's (two grids that each
 * fill the device run one after the other).  A copy engine (one per
 * direction) serves its copies one at a time, in the order they started;
 * where copies both ways at once share the link between
 * host and device (sc_rp_set_duplex), those each way run slower while the
 * other way copies too.  Nothing here knows CUDA's types: streams, threads and
 * operations are indices, times are nanoseconds.
 */
#ifndef SC_REPLAY_H
#define SC_REPLAY_H

#include <stddef.h>
#include <stdint.h>

/* What an operation occupies while it runs. */
typedef enum sc_rp_engine {
    SC_RP_COMPUTE = 0,   /* kernels, memsets: share the device by demand */
    SC_RP_COPY_H2D,      /* the host-to-device copy engine */
    SC_RP_COPY_D2H,      /* the device-to-host copy engine */
    SC_RP_COPY_OTHER,    /* device-to-device, peer, host-to-host */
    SC_RP_NENGINES
} sc_rp_engine;

typedef enum sc_rp_stream_kind {
    SC_RP_LEGACY = 0,    /* the legacy default stream of its device */
    SC_RP_BLOCKING,      /* ordered with the legacy stream (a per-thread default stream too) */
    SC_RP_NONBLOCKING,   /* not ordered with it */
} sc_rp_stream_kind;

typedef struct sc_rp sc_rp;

sc_rp *sc_rp_new(void);
void sc_rp_free(sc_rp *g);

/* Streams and threads; each returns its index, or -1 (out of memory). */
int sc_rp_stream(sc_rp *g, unsigned device, sc_rp_stream_kind kind);
int sc_rp_thread(sc_rp *g, uint64_t start_ns);

/* Steps of a thread, appended in its order.  Each returns the step's index
   in its thread (sc_rp_submit: the operation's index), or -1.  tag is the
   caller's, carried to the results. */
int sc_rp_cpu(sc_rp *g, int thread, uint64_t ns);
int sc_rp_submit(sc_rp *g, int thread, int stream, sc_rp_engine engine, uint64_t dur_ns,
                 double demand, uint32_t tag);
int sc_rp_wait_stream(sc_rp *g, int thread, int stream);     /* stream synchronize */
int sc_rp_wait_device(sc_rp *g, int thread, unsigned device); /* context synchronize */
int sc_rp_wait_op(sc_rp *g, int thread, int op);            /* event synchronize */
int sc_rp_stream_wait_op(sc_rp *g, int thread, int stream, int op);  /* stream wait event */
int sc_rp_after(sc_rp *g, int thread, int other, int step);  /* until `other` has done `step` */

/* How long an operation takes from its submission to its earliest start
   (default 0). */
void sc_rp_set_latency(sc_rp *g, uint64_t ns);

/* While copies run both ways at once on a device (SC_RP_COPY_H2D and
   SC_RP_COPY_D2H), each runs at `f` of the rate it has alone (0 < f <= 1;
   default 1: the two copy engines do not slow each other).  The rates of
   a copy each way alone and of copies both ways at once give it
   (calibrate.h, sc_cal_duplex).  0, or -1 (out of memory, f out of
   range). */
int sc_rp_set_duplex(sc_rp *g, unsigned device, double f);

/* A device's hardware queues (CUDA_DEVICE_MAX_CONNECTIONS, 8 by default;
   CUDA C++ Programming Guide, CUDA Environment Variables): its streams
   share them round robin, in the order they were made (the legacy stream
   apart), and a queue starts its operations in the order they were
   submitted, so an operation waits behind another stream's that cannot
   start yet.  0 (the default): a queue per stream.  0, or -1. */
int sc_rp_set_queues(sc_rp *g, unsigned device, unsigned n);

/* The GPU's idle gap between two operations of one stream on a device: an
   operation that has time on its engine starts no earlier than `ns` after
   the stream's last such operation ended, ns[SC_RP_GAP(prev_copy,
   next_copy)]: kernel to kernel, copy to kernel, kernel to copy, copy to
   copy (memsets count as kernels).  Default 0: at its end.  0, or -1. */
#define SC_RP_GAP(prev_copy, next_copy) ((prev_copy) + 2 * (next_copy))
int sc_rp_set_gaps(sc_rp *g, unsigned device, const uint32_t ns[4]);

typedef struct sc_rp_result {
    uint64_t end_ns;      /* the last thread's end or the last operation's, whichever is later */
    uint64_t gpu_busy_ns; /* union of the operations' run times, over every device */
    int stalled;          /* a thread waited for something that never came (its end is then
                             where it stopped) */
} sc_rp_result;

/* Replays the graph.  0, or -1 (out of memory).  It may be run once. */
int sc_rp_run(sc_rp *g, sc_rp_result *out);

/* After the run: when a thread ended, when an operation started and ended,
   when a thread reached a step. */
uint64_t sc_rp_thread_end(const sc_rp *g, int thread);
uint64_t sc_rp_op_start(const sc_rp *g, int op);
uint64_t sc_rp_op_end(const sc_rp *g, int op);
size_t sc_rp_nops(const sc_rp *g);

#endif /* SC_REPLAY_H */
