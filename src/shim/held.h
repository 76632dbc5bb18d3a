/* held.h: a finding held until the thread's next slow call, which decides
 * what it cost (dispatch.c says how).  The type alone, apart from the code
 * that settles it, so that the per-thread block (thread.h) can embed it:
 * the fast path sends every call of a thread that holds one to the slow
 * path.
 */
#ifndef SC_HELD_H
#define SC_HELD_H

#include <stdint.h>

#include "shim.h"

typedef struct sc_held {
    uint8_t live;
    uint8_t lane;              /* sc_lane of the call held */
    uint8_t mode;              /* what will decide (dispatch.c) */
    CUstream stream;           /* its stream, as passed */
    uint64_t seq;              /* sc_thread.seq when held: a later submission changes it */
    sc_hit hit;
    uint64_t reads;            /* held copies that turned out synchronous reads (no finding) */
} sc_held;

#endif /* SC_HELD_H */
