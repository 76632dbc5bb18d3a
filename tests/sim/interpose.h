/* tests/sim/interpose.h: a miniature of what streamcheck does to reach
 * the driver, for testing how the simulated runtime and cuBLAS reach it.
 *
 * ip_install() redirects the dlsym calls of the loaded libcudart.so.13 and
 * libcublas.so.13: dlsym(h, "cuGetProcAddress_v2") returns a recording
 * wrapper; asked for "cuGetProcAddress" itself, the wrapper returns a
 * second recording wrapper, and for a few entry points it returns
 * wrappers that record each call (the name of the ABI symbol reached and
 * the stream argument). */
#ifndef SC_INTERPOSE_H
#define SC_INTERPOSE_H

#include <cuda.h>
#include <stdatomic.h>

typedef struct ip_lookup {
    char name[64];
    int version;
    unsigned long long flags;
    int via_dlsym; /* 1: through the pointer dlsym returned */
} ip_lookup;

#define IP_MAX_LOOKUPS 1024
extern ip_lookup ip_lookups[IP_MAX_LOOKUPS];
extern atomic_int ip_nlookups;
extern atomic_int ip_dlsym_count; /* dlsym(h, "cuGetProcAddress_v2") */

typedef struct ip_call {
    const char *symbol; /* ABI name of the entry point reached */
    CUstream stream;
} ip_call;

#define IP_MAX_CALLS 256
extern ip_call ip_calls[IP_MAX_CALLS];
extern atomic_int ip_ncalls;

/* Redirects the libraries' dlsym; returns how many GOT slots it changed. */
int ip_install(void);

void ip_reset_calls(void);
/* Index of the lookup (name, version, flags), or -1. */
int ip_find_lookup(const char *name, int version, unsigned long long flags);
/* The last recorded call, or NULL. */
const ip_call *ip_last_call(void);

#endif /* SC_INTERPOSE_H */
