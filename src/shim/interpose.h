/* interpose.h: what interpose.c exports under CUDA's and glibc's names.
 * cuda.h maps cuGetProcAddress to cuGetProcAddress_v2; we export both ABIs,
 * so the mapping must not apply where this header is included.
 */
#ifndef SC_INTERPOSE_H
#define SC_INTERPOSE_H

#include <cuda.h>
#include <cudaTypedefs.h>

#include "sc.h"

#undef cuGetProcAddress
SC_EXPORT __typeof__(*(PFN_cuGetProcAddress_v11030)0) cuGetProcAddress;
SC_EXPORT __typeof__(*(PFN_cuGetProcAddress_v12000)0) cuGetProcAddress_v2;

/* Our dlsym, past the RTLD_NEXT check of dlsym_tramp.S. */
SC_HIDDEN void *sc_dlsym_impl(void *handle, const char *name);

#endif /* SC_INTERPOSE_H */
