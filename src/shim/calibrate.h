/* calibrate.h: how long this machine takes to copy from or to pinned
 * memory, measured at report time (the pricing model's rate of a pageable
 * copy's fix). */
#ifndef SC_CALIBRATE_H
#define SC_CALIBRATE_H

#include <stdint.h>

#include <cuda.h>

/* Times a copy of `bytes` (capped at 64 MiB) between pinned host memory
   and the device of context ctx, host to device (d2h 0) or back, best of
   three: the ns it took, or 0 when it could not be measured (the driver
   gone at exit, no memory). */
uint64_t sc_cal_pinned_ns(CUcontext ctx, int d2h, uint64_t bytes);

#endif
