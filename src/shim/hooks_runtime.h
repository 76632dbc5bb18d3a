/* hooks_runtime.h: runtime entry points no header that C can include
 * declares, for the wrappers of hooks_runtime.c.
 */
#ifndef SC_HOOKS_RUNTIME_H
#define SC_HOOKS_RUNTIME_H

#include <cuda_runtime_api.h>

/* What nvcc's <<<>>> calls. */
extern cudaError_t __cudaLaunchKernel(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t);

#endif /* SC_HOOKS_RUNTIME_H */
