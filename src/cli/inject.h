/* inject.h: the shim as the program's NVTX injection library (inject.c). */
#ifndef SC_INJECT_H
#define SC_INJECT_H

#include "args.h"

/* Exports NVTX_INJECTION64_PATH=lib (an absolute path) for the program,
   unless it names another library already: then that tool keeps NVTX,
   findings name no NVTX range, and this says so on stderr (not with
   --log-level quiet). */
void sc_cli_nvtx_inject(const char *lib, const sc_launch *l);

#endif /* SC_INJECT_H */
