/* hostmem.h: pinned and registered host ranges, and device allocations
 * (hostmem.c): interval sets readable without locks, asked on the fast
 * path before the driver is.
 */
#ifndef SC_HOSTMEM_H
#define SC_HOSTMEM_H

#include <stddef.h>

int sc_pinned_contains(const void *p, size_t n);     /* 1 pinned, 0 not known pinned */
void sc_pinned_add(const void *p, size_t n);
void sc_pinned_remove(const void *p);
int sc_devmem_contains(const void *p);               /* known device allocation */
void sc_devmem_add(const void *p, size_t n);
void sc_devmem_remove(const void *p);

#endif /* SC_HOSTMEM_H */
