/* text_layout.h: the text report's layout helpers (text_layout.c). */
#ifndef SC_TEXT_LAYOUT_H
#define SC_TEXT_LAYOUT_H

#include <stddef.h>
#include <stdio.h>

#define SC_TEXT_WIDTH 78        /* prose is wrapped to this many columns */

/* A table is filled cell by cell in row-major order, then printed with
   each column as wide as its widest cell.  The last non-empty cell of a
   row is not padded, so no line ends in blanks. */
#define SC_TEXT_MAXCOLS 12

typedef struct sc_text_table {
    size_t ncols, ncells, cap;
    char **cell;
    unsigned right;          /* bit i: right-align column i */
    int oom;
} sc_text_table;

void sc_text_table_init(sc_text_table *t, size_t ncols, unsigned right);
void sc_text_cellf(sc_text_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sc_text_table_free(sc_text_table *t);
/* Prints and frees the table; -1 (ENOMEM) if a cell could not be made. */
int sc_text_table_print(sc_text_table *t, FILE *out, const char *indent);
/* "\n@--- TITLE -----" to the width */
void sc_text_section(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Writes text wrapped at SC_TEXT_WIDTH; continuation lines start at column
   indent.  The first line continues wherever the caller left off (col). */
void sc_text_wrap(FILE *out, const char *text, int col, int indent);
/* "@ KEY                  : VALUE" */
void sc_text_header(FILE *out, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
