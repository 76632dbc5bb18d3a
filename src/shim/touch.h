/* touch.h: the first touch of a pageable copy's destination (touch.c).
 * A device-to-host copy into host pages never written before faults each
 * of them in while the host waits (four times as long as the copy itself
 * for a fresh 16 MiB buffer, H200 and this machine's kernel alike).
 * Pinning (SC203's fix) does not save that: cudaMallocHost touches and
 * locks every page where the buffer is allocated.  So the slow path faults
 * the pages in itself just before the real copy, timed apart.
 *
 * Not where the thread's copies touched the same addresses before: there
 * the program maps its destination anew each time (a .cpu() of 64 MiB a
 * step), one pinned buffer kept would be touched once, and the fix saves
 * every later touch.  Those are left to the copy, as natively: on an H200
 * a 64 MiB read-back into a new mapping took 42 ms a step without the
 * shim and 20 ms with its pages faulted in first (16 ms of it faulting),
 * so faulting them first would make the run faster than the program is,
 * and the fix's saving smaller.
 */
#ifndef SC_TOUCH_H
#define SC_TOUCH_H

#include <stddef.h>
#include <stdint.h>

/* Whether any page of [addr, addr + len) is not resident: a device-to-host
   copy of at least SC_TOUCH_MIN bytes into it would fault them in. */
#define SC_TOUCH_MIN ((size_t)1 << 20)
int sc_touch_cold(const void *addr, size_t len);
/* Faults in, writable, every page of [addr, addr + len) without changing
   a byte (MADV_POPULATE_WRITE), as the copy would have: the time it took
   in ns, 0 where the system cannot (the copy then faults as before).
   errno is kept. */
uint64_t sc_touch_populate(const void *addr, size_t len);
/* Whether [addr, addr + len) overlaps the destination of one of the
   calling thread's last 8 cold copies to the host; if not, it is
   remembered (the oldest forgotten). */
int sc_touch_seen(const void *addr, size_t len);

#endif /* SC_TOUCH_H */
