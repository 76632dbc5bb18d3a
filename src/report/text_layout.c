/* text_layout.c: the text report's layout: tables whose columns are as
 * wide as their widest cell, section rules, prose wrapped at
 * SC_TEXT_WIDTH, the "@ key : value" header lines (report_text.c). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text_layout.h"

/* ---------------------------------------------------------- tables --- */

/* A table is filled cell by cell in row-major order, then printed with
   each column as wide as its widest cell.  The last non-empty cell of a
   row is not padded, so no line ends in blanks. */
void sc_text_table_init(sc_text_table *t, size_t ncols, unsigned right)
{
    if (ncols > SC_TEXT_MAXCOLS)
        ncols = SC_TEXT_MAXCOLS;   /* a programming error: widen SC_TEXT_MAXCOLS */
    memset(t, 0, sizeof *t);
    t->ncols = ncols;
    t->right = right;
}

void sc_text_cellf(sc_text_table *t, const char *fmt, ...)
{
    if (t->oom)
        return;
    if (t->ncells == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 32;
        char **c = realloc(t->cell, cap * sizeof *c);
        if (!c) {
            t->oom = 1;
            return;
        }
        t->cell = c;
        t->cap = cap;
    }
    char *s;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0) {
        t->oom = 1;
        return;
    }
    t->cell[t->ncells++] = s;
}

void sc_text_table_free(sc_text_table *t)
{
    for (size_t i = 0; i < t->ncells; i++)
        free(t->cell[i]);
    free(t->cell);
}

/* Prints and frees the table; -1 (ENOMEM) if a cell could not be made. */
int sc_text_table_print(sc_text_table *t, FILE *out, const char *indent)
{
    size_t w[SC_TEXT_MAXCOLS] = {0};
    size_t nrows = t->ncells / t->ncols;
    if (t->oom) {
        sc_text_table_free(t);
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = 0; i < nrows * t->ncols; i++) {
        size_t n = strlen(t->cell[i]);
        if (n > w[i % t->ncols])
            w[i % t->ncols] = n;
    }
    for (size_t r = 0; r < nrows; r++) {
        char **row = t->cell + r * t->ncols;
        size_t last = t->ncols;
        while (last > 1 && !*row[last - 1])
            last--;
        fputs(indent, out);
        for (size_t c = 0; c < last; c++) {
            if (c)
                fputs("  ", out);
            if (t->right & (1u << c))
                fprintf(out, "%*s", (int)w[c], row[c]);
            else if (c + 1 < last)
                fprintf(out, "%-*s", (int)w[c], row[c]);
            else
                fputs(row[c], out);
        }
        fputc('\n', out);
    }
    sc_text_table_free(t);
    return 0;
}

/* ---------------------------------------------------------- pieces --- */

void sc_text_section(FILE *out, const char *fmt, ...)
{
    char title[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(title, sizeof title, fmt, ap);
    va_end(ap);
    fprintf(out, "\n@--- %s ", title);
    for (int n = (int)strlen(title) + 6; n < SC_TEXT_WIDTH - 3; n++)
        fputc('-', out);
    fputc('\n', out);
}

/* Writes text wrapped at SC_TEXT_WIDTH; continuation lines start at column
   indent.  The first line continues wherever the caller left off (col). */
void sc_text_wrap(FILE *out, const char *text, int col, int indent)
{
    const char *p = text;
    int first = 1;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        size_t n = strcspn(p, " ");
        if (!first && col + 1 + (int)n > SC_TEXT_WIDTH) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
        } else if (!first) {
            fputc(' ', out);
            col++;
        }
        fwrite(p, 1, n, out);
        col += (int)n;
        p += n;
        first = 0;
    }
    fputc('\n', out);
}

void sc_text_header(FILE *out, const char *key, const char *fmt, ...)
{
    va_list ap;
    fprintf(out, "@ %-20s : ", key);
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fputc('\n', out);
}
