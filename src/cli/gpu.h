/* gpu.h: whether this machine can run CUDA (gpu.c). */
#ifndef SC_GPU_H
#define SC_GPU_H

#include <stddef.h>

/* Whether a CUDA device answers here (the driver loaded, cuInit, at least
   one device); its name in name when it does. */
int sc_cli_gpu_name(char *name, size_t len);

/* Whether CUDA cannot run here at all: 1 with a reason in why when there
   is no NVIDIA device node, or no driver the loader can find; else 0. */
int sc_cli_gpu_missing(char *why, size_t len);

#endif /* SC_GPU_H */
