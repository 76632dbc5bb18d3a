/* gpu.h: whether this machine can run CUDA (gpu.c). */
#ifndef SC_GPU_H
#define SC_GPU_H

#include <stddef.h>

/* Whether a CUDA device answers here (the driver loaded, cuInit, at least
   one device); its name in name when it does. */
int sc_cli_gpu_name(char *name, size_t len);

#endif /* SC_GPU_H */
