/* symbolize.h: report-time symbolization (symbolize.c). */
#ifndef SC_SYMBOLIZE_H
#define SC_SYMBOLIZE_H
#include <stdint.h>
int sc_symbolize_begin(void);   /* 1 when file:line is available */
void sc_symbolize_end(void);
/* function/file are malloc'd or NULL; line 0 if unknown. */
void sc_symbolize(uintptr_t pc, char **function, char **file, unsigned *line);
#endif
