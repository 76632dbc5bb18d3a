/* memclass.h: memory classification (memclass.c): whether an address is
 * device, pinned host or pageable host memory, and the direction and host
 * side of a copy.
 */
#ifndef SC_MEMCLASS_H
#define SC_MEMCLASS_H

#include <stddef.h>

#include "shim.h"

/* Memory kind of an address: device (or managed), pinned host, pageable host. */
enum { SC_MEM_UNKNOWN, SC_MEM_DEVICE, SC_MEM_PINNED, SC_MEM_PAGEABLE };
int sc_mem_classify(const void *p, size_t n);
void sc_classify_copy(sc_op *op);   /* op->dir, op->host, op->pageable */

#endif /* SC_MEMCLASS_H */
