/* nvtx.h: libstreamcheck.so as an NVTX injection library (nvtx.c). */
#ifndef SC_NVTX_H
#define SC_NVTX_H

#include <stdint.h>

#include "sc.h"

/* What NVTX calls in each NVTX instance (every library built with NVTX's
   headers has its own) at its first NVTX call, when NVTX_INJECTION64_PATH
   names this library: getExportTable is that instance's
   nvtxGetExportTable.  1: attached; 0: not (the shim is disabled, or the
   tables are not what we know), and NVTX's calls stay no-ops. */
SC_EXPORT int InitializeInjectionNvtx2(const void *(*getExportTable)(uint32_t exportTableId));

/* What NVTX calls for each extension module an instance uses
   (nvtxDetail/nvtxExtInit.h): the payload extension's range calls come to
   the same stacks.  0: the shim is disabled. */
struct nvtxExtModuleInfo_t;
SC_EXPORT int InitializeInjectionNvtxExtension(struct nvtxExtModuleInfo_t *info);

#endif /* SC_NVTX_H */
