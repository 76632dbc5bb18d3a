/* intern.h: strings kept for the life of the process, one copy each
 * (intern.c). */
#ifndef SC_INTERN_H
#define SC_INTERN_H

/* The tables: names of Python frames and threads; NVTX range names
   (ranges.c), which are named by their id in the table. */
enum { SC_STRS_NAMES = 0, SC_STRS_RANGES, SC_STRS_N };

/* s's id in table tab (1 + its slot), a copy added the first time; 0 when
   the table is full or memory is short.  No lock unless s is new. */
unsigned sc_str_id(unsigned tab, const char *s);
/* The string of an id of sc_str_id; NULL for 0. */
const char *sc_str_at(unsigned tab, unsigned id);
/* One copy of s for the process's life, from the names table ("?" for
   NULL, or when the table is full): names of frames and threads. */
const char *sc_intern(const char *s);

#endif /* SC_INTERN_H */
