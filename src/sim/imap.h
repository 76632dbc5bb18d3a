/* src/sim/imap.h: a map of non-overlapping address intervals.
 *
 * The simulator classifies every pointer of every copy (device, pinned
 * host, pageable host), so lookups must be cheap with many allocations:
 * a treap (expected O(log n) per operation) behind a reader-writer lock. */
#ifndef SC_SIM_IMAP_H
#define SC_SIM_IMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct scsim_interval {
    uintptr_t base;
    size_t size; /* > 0 */
    int kind;
    unsigned flags;
    int dev; /* device memory: the ordinal of its device */
} scsim_interval;

/* Adds iv; false if it overlaps an interval of the map or memory ran out. */
bool scsim_imap_insert(const scsim_interval *iv);

/* Removes the interval starting at base if its kind is in kind_mask
 * (bit 1 << kind); copies it to *out. */
bool scsim_imap_remove(uintptr_t base, unsigned kind_mask, scsim_interval *out);

/* The interval containing addr. */
bool scsim_imap_find(uintptr_t addr, scsim_interval *out);

/* Whether any interval intersects [base, base + size). */
bool scsim_imap_overlaps(uintptr_t base, size_t size);

#endif /* SC_SIM_IMAP_H */
