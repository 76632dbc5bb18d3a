/* symbolize.h: report-time symbolization (symbolize.c). */
#ifndef SC_SYMBOLIZE_H
#define SC_SYMBOLIZE_H
#include <stdint.h>
int sc_symbolize_begin(void);   /* 1 when file:line is available */
/* Past ns (sc_now_ns; 0: no limit), frames are named without libdw; how
   many were, since the deadline was set. */
void sc_symbolize_deadline(uint64_t ns);
unsigned sc_symbolize_late(void);
void sc_symbolize_end(void);
/* function/file are malloc'd or NULL; line 0 if unknown. */
void sc_symbolize(uintptr_t pc, char **function, char **file, unsigned *line);

/* The same with inlining unfolded, innermost first, as addr2line -i: the
   inlined function at the instruction's line, then each function it was
   inlined into, at the line of that call.  Returns how many of out were
   filled (at least 1). */
typedef struct sc_symframe {
    char *function, *file;
    unsigned line;
} sc_symframe;
unsigned sc_symbolize_inline(uintptr_t pc, sc_symframe *out, unsigned max);
#endif
