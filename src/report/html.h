/* html.h: what the files of the HTML report share: report_html.c (the
 * page), html_finding.c (the findings), html_gpu.c and html_timeline.c
 * (measured mode: the GPU's numbers, the SVG timeline per device) and
 * html.c (escaping and numbers). */
#ifndef SC_HTML_H
#define SC_HTML_H

#include <stdint.h>
#include <stdio.h>

#include "report.h"

/* A source file read for the snippets, each once. */
typedef struct sc_html_src {
    char *path;          /* as the frame names it */
    char *text;          /* NULL: not readable here */
    size_t len;
} sc_html_src;
#define SC_HTML_SRC_FILES 64   /* distinct source files read */

/* The page being written. */
typedef struct sc_html {
    FILE *out;
    const sc_report *r;
    const sc_render_opts *o;
    sc_srcroot root;
    sc_html_src files[SC_HTML_SRC_FILES];
    size_t nfiles;
} sc_html;

/* ---- html.c ---- */
/* At most n bytes of s (up to a NUL) as HTML text or attribute content:
   markup characters as entities; controls other than tab and newline,
   U+FFFE/U+FFFF and bytes that are not UTF-8 as U+FFFD.  The page is
   also well-formed XML. */
void sc_html_escn(FILE *out, const char *s, size_t n);
void sc_html_esc(FILE *out, const char *s);            /* NULL: nothing */
/* A path or command line: escaped, with a break opportunity after each
   '/' so that a narrow column wraps it between components. */
void sc_html_esc_path(FILE *out, const char *s);
/* part of whole as "12.34%" (integers, no locale); "" when whole is 0. */
void sc_html_percent(uint64_t part, uint64_t whole, char *buf, size_t len);
const char *sc_html_plural(uint64_t n);                /* "" or "s" */

/* ---- html_finding.c ---- */
/* The findings of one process (of all when process < 0): the ranked
   table, then a card for each of the report's first findings. */
void sc_html_findings(sc_html *h, long process);
/* "file:line in function" of the frame a call site is shown at, as markup;
   a function name longer than max is cut (C++ signatures). */
void sc_html_where(sc_html *h, const sc_callsite *cs, size_t max);
/* Frees the source files the cards read. */
void sc_html_sources_free(sc_html *h);

/* ---- html_gpu.c ---- */
/* Whether any process of r was measured (has a gpu block). */
int sc_html_any_gpu(const sc_report *r);
/* A process's GPU numbers: a bar of busy, overlap and idle time over the
   GPU's span, the figures, each device, each stream's busy time
   (collapsed).  Nothing when the process was not measured. */
void sc_html_gpu_numbers(FILE *out, const sc_report *r, size_t process);

/* ---- html_timeline.c ---- */
/* The timeline of a process: an SVG per device with a lane per host
   thread (its CUDA calls of 5 us and more) and per stream (kernels, copies,
   memsets to scale), the device's idle time and the time each finding held
   GPU work back shaded, and each finding event marked and linked to its
   entry (#finding-N).  Operations too close to tell apart at full zoom
   are drawn as one, and the page says how many were drawn.  When the
   process was measured but the report has no timeline (a JSON report read
   back) it says where the timeline is. */
void sc_html_timeline(FILE *out, const sc_report *r, size_t process);

#endif /* SC_HTML_H */
