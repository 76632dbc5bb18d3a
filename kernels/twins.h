/* kernels/twins.h: CPU twins of device kernels, for the simulator.
 *
 * A twin computes what its kernel computes (or, for sc_spin, takes as
 * long as it would), running on the simulated stream's worker thread.
 * The table is kernels/twins.def. */
#ifndef SC_TWINS_H
#define SC_TWINS_H

#include <stddef.h>

/* What a twin sees of its launch: the execution configuration and the
 * kernel's arguments, copied when the kernel was launched.  args[i]
 * points at argument i, like cuLaunchKernel's kernelParams. */
typedef struct sc_twin_launch {
    unsigned grid[3];
    unsigned block[3];
    unsigned shared_bytes;
    void *const *args;
} sc_twin_launch;

typedef void (*sc_twin_fn)(const sc_twin_launch *launch);

typedef struct sc_twin_param {
    size_t size;
    size_t align;
} sc_twin_param;

typedef struct sc_twin {
    const char *name; /* mangled device name */
    sc_twin_fn fn;
    unsigned nparams;
    const sc_twin_param *params;
} sc_twin;

/* Argument i of a launch, as the kernel's parameter type. */
#define SC_TWIN_ARG(launch, i, type) (*(__typeof__(type) *)(launch)->args[(i)])

/* The twin for a mangled kernel name, or NULL. */
const sc_twin *sc_twin_find(const char *name);

/* The i-th entry of the table, NULL past the end (for listing). */
const sc_twin *sc_twin_at(size_t i);

/* Every twin function of the table. */
#define SC_TWIN(name, fn, params) void fn(const sc_twin_launch *launch);
#include "twins.def"
#undef SC_TWIN

#endif /* SC_TWINS_H */
