/* kinds.h: the kinds of intercepted call (kinds.def) as C: the sc_kind
 * enum, and each fact of the table as a bit mask over the kinds, so that
 * asking whether a kind has a fact (sc_kind_is) is a shift and a test of
 * constants: no table to load, on the fast path or off it.
 */
#ifndef SC_KINDS_H
#define SC_KINDS_H

#include <stdint.h>

typedef enum sc_kind {
#define SC_KIND(NAME, FAST, PRE, TRACK, FLAGS) SC_K_##NAME,
#include "kinds.def"
#undef SC_KIND
    SC_NKINDS
} sc_kind;
_Static_assert(SC_NKINDS <= 64, "a kind is a bit of a 64-bit mask");

/* What a kind is (kinds.def, FLAGS). */
enum {
    SC_KF_LANE = 1 << 0,     /* its work lands on a lane: the stream it names, or the
                                thread's default one (lanes.c resolves it) */
    SC_KF_WORK = 1 << 1,     /* GPU work: a kernel, a copy, a memset (a held finding
                                sees whether more came, dispatch.c) */
    SC_KF_NOTE = 1 << 2,     /* on the legacy stream it is an SC101 (or SC601) event:
                                memsets report SC202, waits are not work */
    SC_KF_BLOCKS = 1 << 3,   /* it can keep the host waiting: the slow path times it */
    SC_KF_RDFAST = 1 << 4,   /* the fast path may redirect it (sc_fast_redirect) */
    SC_KF_TRACKED = 1 << 5,  /* stream-ordered allocation, tracked after the call: on the
                                legacy stream the slow path must see it */
    SC_KF_WAIT = 1 << 6,     /* a wait for an event: orders the stream, no work of its own */
    SC_KF_JOIN = 1 << 7,     /* an event record: on the legacy stream a point after every
                                blocking stream's work, an order the program asked for */
    SC_KF_KERNEL = 1 << 8,   /* runs a kernel: a stream's first says whose it is (track.c) */
    SC_KF_QUERY = 1 << 9,    /* a query: CUDA_ERROR_NOT_READY is an answer, not a rejection */
    SC_KF_SYNC = 1 << 10,    /* a synchronous copy or memset */
    SC_KF_UNIFIED = 1 << 11, /* a copy between unified addresses: direction from the pointers */
    SC_KF_2D = 1 << 12,      /* a 2D copy: memory types in its CUDA_MEMCPY2D */
    SC_KF_3D = 1 << 13,      /* a 3D copy: memory types in its CUDA_MEMCPY3D */
    SC_KF_DEVMEM = 1 << 14,  /* allocates or frees device (or managed) memory: SC301,
                                else page-locked host memory: SC302 */
    SC_KF_FREES = 1 << 15,   /* frees (or unregisters) a pointer: NULL does nothing */
    SC_KF_SUBMIT = 1 << 16,  /* work submitted to its lane, asynchronously: in a capture
                                it goes into a graph and is judged with the graph launch */
    SC_KF_COPY = 1 << 17,    /* a copy: its memory is classified (memclass.c) */
    SC_KF_MEMSET = 1 << 18,  /* a memset: on the legacy stream SC202, not SC101 */
    /* What the fast path may do with it (kinds.def, FAST; SLOW: none of these). */
    SC_KFAST_WORK = 1 << 19,
    SC_KFAST_COPY = 1 << 20,
    SC_KFAST_COPY_U = 1 << 21,
    SC_KFAST_CAPTURE = 1 << 22,
    SC_KFAST_SLOW = 0,
    SC_KF_NBITS = 23
};

/* sc_kind_masks[b]: the kinds whose facts (FLAGS and FAST) have bit b. */
#define SC_KIND(NAME, FAST, PRE, TRACK, FLAGS) \
    | ((uint64_t)((((unsigned)(FLAGS) | (unsigned)SC_KFAST_##FAST) >> SC_KIND_BIT) & 1u) << SC_K_##NAME)
static const uint64_t sc_kind_masks[SC_KF_NBITS] = {
#define SC_KIND_BIT 0
    [0] = 0
#include "kinds.def"
    ,
#undef SC_KIND_BIT
#define SC_KIND_BIT 1
    [1] = 0
#include "kinds.def"
    ,
#undef SC_KIND_BIT
#define SC_KIND_BIT 2
    [2] = 0
#include "kinds.def"
    ,
#undef SC_KIND_BIT
#define SC_KIND_BIT 3
    [3] = 0
#include "kinds.def"
    ,
#undef SC_KIND_BIT
#define SC_KIND_BIT 4
    [4] = 0
#include "kinds.def"
    ,
#undef SC_KIND_BIT
#define SC_KIND_BIT 5
    [5] = 0
#include "kinds.def"
    ,
#undef SC_KIND_BIT
#define SC_KIND_BIT 6
    [6] = 0
#include "kinds.def"
    ,
#undef SC_KIND_BIT
#define SC_KIND_BIT 7
    [7] = 0
#include "kinds.def"
    ,
#undef SC_KIND_BIT
#define SC_KIND_BIT 8
    [8] = 0
#include "kinds.def"
    ,
#undef SC_KIND_BIT
#define SC_KIND_BIT 9
    [9] = 0
#include "kinds.def"
    ,
#undef SC_KIND_BIT
#define SC_KIND_BIT 10
    [10] = 0
#include "kinds.def"
    ,
#undef SC_KIND_BIT
#define SC_KIND_BIT 11
    [11] = 0
#include "kinds.def"
    ,
#undef SC_KIND_BIT
#define SC_KIND_BIT 12
    [12] = 0
#include "kinds.def"
    ,
#undef SC_KIND_BIT
#define SC_KIND_BIT 13
    [13] = 0
#include "kinds.def"
    ,
#undef SC_KIND_BIT
#define SC_KIND_BIT 14
    [14] = 0
#include "kinds.def"
    ,
#undef SC_KIND_BIT
#define SC_KIND_BIT 15
    [15] = 0
#include "kinds.def"
    ,
#undef SC_KIND_BIT
#define SC_KIND_BIT 16
    [16] = 0
#include "kinds.def"
    ,
#undef SC_KIND_BIT
#define SC_KIND_BIT 17
    [17] = 0
#include "kinds.def"
    ,
#undef SC_KIND_BIT
#define SC_KIND_BIT 18
    [18] = 0
#include "kinds.def"
    ,
#undef SC_KIND_BIT
#define SC_KIND_BIT 19
    [19] = 0
#include "kinds.def"
    ,
#undef SC_KIND_BIT
#define SC_KIND_BIT 20
    [20] = 0
#include "kinds.def"
    ,
#undef SC_KIND_BIT
#define SC_KIND_BIT 21
    [21] = 0
#include "kinds.def"
    ,
#undef SC_KIND_BIT
#define SC_KIND_BIT 22
    [22] = 0
#include "kinds.def"
    ,
#undef SC_KIND_BIT
};
#undef SC_KIND

/* Whether kind has the fact f: one SC_KF_ or SC_KFAST_ bit, a constant. */
static inline int sc_kind_is(unsigned kind, unsigned f)
{
    return (sc_kind_masks[__builtin_ctz(f)] >> kind) & 1;
}

#endif /* SC_KINDS_H */
