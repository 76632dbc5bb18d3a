/* apis.c: the driver entry points the shim wraps, by id (hooks/all.def):
 * names, ABI versions and legacy/per-thread twins.  Plain data, used by
 * resolution (real.c, interpose.c), redirect and the report.
 */
#include "config.h"

#include "apis.h"

const sc_api_info sc_apis[SC_NAPI] = {
#define SC_DRV(base, abi, ver, P, A, CLS) \
    [SC_API_##abi] = {#abi, #base, ver, SC_NO_API, 0},
#define SC_DRVP(base, abi, ver, pt, ptver, P, A, CLS)                                           \
    [SC_API_##abi] = {#abi, #base, ver, SC_API_##abi##_##pt, 0},                               \
    [SC_API_##abi##_##pt] = {#abi "_" #pt, #base, ptver, SC_API_##abi, 1},
#include "hooks/all.def"
#undef SC_DRV
#undef SC_DRVP
};

/* Work a stream runs (kernels, host functions, graphs, copies, memsets):
   the entry points of the launch, copy and memset families, whose kinds
   kinds.def marks SC_KF_WORK.  A process that called none of them
   submitted no work (a torchrun parent asking for the device count). */
const unsigned char sc_api_work[SC_NAPI] = {
#define SC_DRV(base, abi, ver, P, A, CLS) [SC_API_##abi] = 1,
#define SC_DRVP(base, abi, ver, pt, ptver, P, A, CLS) [SC_API_##abi] = 1, [SC_API_##abi##_##pt] = 1,
#include "hooks/launch.def"
#include "hooks/copy.def"
#include "hooks/memset.def"
#undef SC_DRV
#undef SC_DRVP
};
