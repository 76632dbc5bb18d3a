/* simcheck.c: no false clean on the simulator.  A program built the way
 * nvcc builds by default carries NVIDIA's CUDA runtime inside it
 * (-cudart static).  That runtime asks the driver for its private tables
 * (cuGetExportTable, with NVIDIA's ids), which the simulator does not
 * have: every CUDA call of the program then fails, and the report said
 * "0 findings" with exit status 0.  The simulator's own runtime and CUPTI
 * ask only for the simulator's table.  So, on the simulator only, the
 * shim hands out a watcher of cuGetExportTable: the first refusal is said
 * at once, as an error naming the fix, and in the status file
 * ("error static-cudart", status.c), from which the launcher fails the
 * run.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cudaTypedefs.h>

#include "core.h"
#include "simcheck.h"
#include "status.h"

static PFN_cuGetExportTable_v3000 real_export_table;

static CUresult export_table(const void **table, const CUuuid *id)
{
    PFN_cuGetExportTable_v3000 real = __atomic_load_n(&real_export_table, __ATOMIC_ACQUIRE);
    CUresult r = real ? real(table, id) : CUDA_ERROR_NOT_SUPPORTED;
    static _Atomic int said;
    if (r != CUDA_SUCCESS && !atomic_exchange(&said, 1)) {
        sc_status_error("static-cudart");
        sc_log(SC_LOG_QUIET, "error: this program carries NVIDIA's CUDA runtime (linked statically, as nvcc does "
               "by default), which cannot run on the simulator: every CUDA call it makes fails, and the report "
               "cannot be trusted; rebuild it with 'nvcc -cudart shared' to run it under --simulate");
    }
    return r;
}

void *sc_simcheck_filter(const char *symbol, void *p)
{
    static int simulated = -1;
    if (simulated < 0) {
        const char *v = getenv("STREAMCHECK_SIMULATED");
        simulated = v && *v == '1';
    }
    if (!simulated || !p || strcmp(symbol, "cuGetExportTable"))
        return p;
    __atomic_store_n(&real_export_table, (PFN_cuGetExportTable_v3000)p, __ATOMIC_RELEASE);
    return (void *)export_table;
}
