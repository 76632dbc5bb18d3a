/* classify.h: what the slow path knows about a call before it judges it
 * (classify.c), worked out once, in one place, before any detector runs:
 * the lane its work lands on, whether that lane is being captured, the
 * memory a copy or memset touches, the created streams of its context, and
 * whether the legacy stream orders it with a stream that had unfinished
 * work.  Detectors read these facts and add events; none asks the driver
 * again for a fact another has.
 */
#ifndef SC_CLASSIFY_H
#define SC_CLASSIFY_H

#include <stdint.h>

#include "kinds.h"
#include "lanes.h"
#include "shim.h"

typedef struct sc_facts {
    sc_count_q cq;         /* created streams of the call's context, when counted */
    uint8_t counted;       /* cq is set: legacy-lane work, and synchronous copies and memsets */
    uint8_t capturing;     /* its lane is being captured: its work goes into a graph */
    /* Legacy-lane work the rules judge as a barrier (SC101, SC601, SC202,
       SC204): the legacy stream orders it with another stream (a blocking
       one, or a per-thread stream), and one of those had unfinished work,
       so the call really held something back.  Only blocking streams and
       per-thread streams count: the legacy stream does not synchronize
       with streams created cudaStreamNonBlocking (DRV, 3. Stream
       synchronization behavior), such as PyTorch's 128 pool streams. */
    uint8_t orders;
    uint8_t held_back;
    uint8_t unordered;     /* such work, and the legacy stream orders it with no stream */
    uint8_t cublas;        /* legacy-lane work that cuBLAS submitted */
    uint8_t pageable;      /* an async copy between the device and pageable host memory */
    uint8_t lane_idle;     /* ... whose lane the shim saw drain since its last work (drain.h) */
    uint8_t staged;        /* a synchronous copy from pageable memory to the device: it waits
                              for its stream, then stages, as a pageable async copy (drain.h);
                              sc_staged_copy */
    uint8_t mem;           /* a legacy-lane memset that orders: SC_MEM_* of its destination */
} sc_facts;

/* A synchronous copy from pageable memory to the device of over 64 KiB: "a
   stream sync is performed before the copy is initiated" (DRV, 2. API
   synchronization behavior), and the driver's staging holds the host about
   as long as the copy; 64 KiB or less return once staged (detect_copy.c). */
#define SC_STAGED_MIN 65536
static inline int sc_staged_copy(const sc_op *op)
{
    return sc_kind_is(op->kind, SC_KF_COPY) && sc_kind_is(op->kind, SC_KF_SYNC) && op->pageable &&
           op->dir == SC_DIR_H2D && op->bytes > SC_STAGED_MIN;
}

/* Sets op->lane and op->srec, a copy's direction and memory (op->dir,
   op->host, op->pageable), SC_M_DRAINS for a synchronous copy the host
   waits for, and f. */
void sc_classify(sc_thread *t, sc_op *op, sc_facts *f);

#endif /* SC_CLASSIFY_H */
