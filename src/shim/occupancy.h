/* occupancy.h: the share of a device a kernel launch holds, from the
 * blocks its multiprocessors can hold at once (occupancy.c).
 *
 * The run log's demand (runlog.c) is a grid's threads over the device's:
 * a 1024x1024 cuBLAS product asks for 6% of an H100 that way, so the
 * replay runs four at once where the GPU ran them 1.3 times faster.  A
 * kernel's registers and shared memory limit how many of its blocks a
 * multiprocessor holds (CUDA Driver API, Occupancy:
 * cuOccupancyMaxActiveBlocksPerMultiprocessor); the grid's blocks over the
 * device's room for them is the share the block scheduler gives it.
 *
 * Measured mode asks the driver (once per function, block size and
 * dynamic shared memory) and prices with it: on an H200, four cuBLAS
 * products of 2048 on streams of their own gained 0.45 ms of 13.7, priced
 * 10 ms by threads and 0.40 by occupancy (docs/PRICES.md); a grid spread
 * over more multiprocessors than its occupancy needs asks half of what the
 * spread adds too (occupancy.c).  Detect mode
 * keeps the threads' demand.  STREAMCHECK_TEST_OCCUPANCY=1 or 0 turns it
 * on or off in either mode; with STREAMCHECK_TEST_PRICE_DUMP it is asked
 * and dumped beside the threads' demand, for bench/price_replay
 * --occupancy.
 */
#ifndef SC_OCCUPANCY_H
#define SC_OCCUPANCY_H

#include <stdint.h>

#include "sc.h"

SC_HIDDEN extern int sc_occ_on;      /* asked at launches (priced with, or a dump): the fast path tests it */
extern int sc_occ_price;             /* the model prices with it (measured mode, or the hook) */

/* The share of device `dev` (an ordinal) a grid of `threads` threads asks
   for: all its multiprocessors' threads (asked once per device), at most 1;
   1 where the driver cannot say.  The run log's demand (runlog.c). */
float sc_occ_threads(unsigned dev, double threads);

/* The share of the current context's device that `grid` blocks of `block`
   threads of function fn with `shmem` bytes of dynamic shared memory
   hold: grid over the blocks the device holds at once, at most 1; 0 when
   the driver cannot say.  The first launch of each (fn, block, shmem) asks
   the driver; the rest read a table without a lock (so a context-less
   kernel, a CUkernel, launched on devices of other sizes keeps the first
   one's answer). */
float sc_occ_demand(const void *fn, uint32_t grid, uint32_t block, uint32_t shmem);

/* A launch the fast path kept: its demand added to the thread's (its run
   log's counters, thread_parts.h), out of the fast path's line. */
struct sc_rl_hot;
void sc_occ_kept(struct sc_rl_hot *rl, const void *fn, uint32_t grid, uint32_t block, uint32_t shmem)
    __attribute__((cold, noinline));

#endif /* SC_OCCUPANCY_H */
