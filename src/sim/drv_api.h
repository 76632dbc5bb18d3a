/* src/sim/drv_api.h: declarations of the implemented driver entry points.
 *
 * Each entry of drv_api.def becomes
 *     extern PFN-type scsim_<symbol> __asm__("<symbol>");
 * so the function the simulator defines as scsim_<symbol> is exported
 * under the real ABI name, whatever cuda.h's renaming macros do to that
 * name, and its definition must match NVIDIA's typedef exactly. */
#ifndef SC_SIM_DRV_API_H
#define SC_SIM_DRV_API_H

#include <cuda.h>
#include <cudaTypedefs.h>

#include "sim/util.h"

#define SC_DRV(base, ver, variant, sym)                                       \
    extern __typeof__(*(PFN_##base##_v##ver##variant)0) scsim_##sym           \
        __asm__(#sym) SCSIM_EXPORT;
#include "sim/drv_api.def"
#undef SC_DRV

#endif /* SC_SIM_DRV_API_H */
