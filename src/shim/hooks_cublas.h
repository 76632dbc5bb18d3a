/* hooks_cublas.h: the cuBLAS handle map (hooks_cublas.c). */
#ifndef SC_HOOKS_CUBLAS_H
#define SC_HOOKS_CUBLAS_H

/* What dlsym hands out for a cuBLAS name (interpose.c): as
   sc_runtime_dlsym_filter (hooks_runtime.h). */
void *sc_cublas_dlsym_filter(void *handle, const char *name, void *p);
/* cuBLAS handles created so far, and how many are bound to the legacy stream. */
void sc_cublas_summary(unsigned *all, unsigned *legacy);

#endif /* SC_HOOKS_CUBLAS_H */
