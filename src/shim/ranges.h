/* ranges.h: the NVTX ranges each thread is in (ranges.c).  nvtx.c's
 * callbacks open and close them; the slow path asks which one a call is in
 * (a finding names it) and whether --range lets the call count; the report
 * asks how long the program spent inside --range's range. */
#ifndef SC_RANGES_H
#define SC_RANGES_H

#include <stdint.h>

/* Range names are ids of intern.c's range table.  0: a range without a
   name (it names no finding); SC_RANGE_FULL: a name the table had no room
   for (reported as "?"). */
#define SC_RANGE_NONE 0u
#define SC_RANGE_FULL 0xffffffffu

/* Every function here keeps the caller's errno (NVTX's calls are the
   program's). */

/* --range's name, read once before the first range opens (the shim may
   not be initialized yet: its settings are read quietly).  0 when the
   shim is disabled: then NVTX should not call in at all. */
int sc_ranges_configure(void);

/* The id of a range name (NULL or "": SC_RANGE_NONE). */
unsigned sc_range_intern(const char *name);
/* A range of the calling thread opens (nvtxRangePush*) or closes
   (nvtxRangePop): the level NVTX returns, -1 for a pop without a push. */
int sc_range_push(unsigned name);
int sc_range_pop(void);
/* A range that may end on another thread (nvtxRangeStart*, nvtxRangeEnd):
   it counts for the thread that started it.  Ids are never 0. */
uint64_t sc_range_start(unsigned name);
void sc_range_end(uint64_t id);

/* The innermost named range of the calling thread (SC_RANGE_NONE: none). */
unsigned sc_range_current(void);
/* Whether a call of the calling thread counts: always without --range;
   with it, when a range of that name is open on the thread (innermost or
   enclosing). */
int sc_range_in_scope(void);
/* The name of an id (NULL for SC_RANGE_NONE). */
const char *sc_range_name(unsigned id);
/* --range's name (NULL without it), and the time spent inside ranges of
   that name so far: the union over threads of the time one was open. */
const char *sc_range_scope(void);
uint64_t sc_range_scope_ns(void);
/* How many ranges of --range's name have opened so far (0 without it): a
   count that changes where the scope begins again (runlog.c starts its
   per-stream firsts over there). */
unsigned sc_range_scope_entries(void);

#endif /* SC_RANGES_H */
