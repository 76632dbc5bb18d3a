/* hooks_runtime.h: the runtime API's attribution wrappers
 * (hooks_runtime.c): their names by id, what dlsym hands out for them, and
 * the runtime entry points no header that C can include declares.
 */
#ifndef SC_HOOKS_RUNTIME_H
#define SC_HOOKS_RUNTIME_H

#include <cuda_runtime_api.h>

#include "shim.h"

extern const char *const sc_rt_names[SC_NRT];
/* What dlsym hands out for a runtime name (interpose.c): our export p only
   if the real function exists, so a program probing for the library still
   sees NULL when none is loaded. */
void *sc_runtime_dlsym_filter(void *handle, const char *name, void *p);

/* What nvcc's <<<>>> calls. */
extern cudaError_t __cudaLaunchKernel(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t);

#endif /* SC_HOOKS_RUNTIME_H */
