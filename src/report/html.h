/* html.h: what the two files of the HTML report share: report_html.c (the
 * page) and report_html_gpu.c (measured mode: the GPU's numbers and the
 * SVG timeline per device). */
#ifndef SC_HTML_H
#define SC_HTML_H

#include <stdint.h>
#include <stdio.h>

#include "report.h"

typedef struct sc_html sc_html;

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

/* ---- report_html_gpu.c ---- */
/* Whether any process of r was measured (has a gpu block). */
int sc_html_any_gpu(const sc_report *r);
/* A process's GPU numbers: a bar of busy, overlap and idle time over the
   GPU's span, the figures, each device, each stream's busy time
   (collapsed).  Nothing when the process was not measured. */
void sc_html_gpu_numbers(FILE *out, const sc_report *r, size_t process);
/* The timeline of a process: an SVG per device with a lane per host
   thread (its CUDA calls of 5 us and more) and per stream (kernels, copies,
   memsets to scale), the device's idle time and the time each finding held
   GPU work back shaded, and each finding event marked and linked to its
   entry (#finding-N).  Operations too close to tell apart at full zoom
   are drawn as one, and the page says how many were drawn.  When the
   process was measured but the report has no timeline (a JSON report read
   back) it says where the timeline is. */
void sc_html_timeline(FILE *out, const sc_report *r, size_t process);
/* CSS and script of the above, put in the page's <style> and <script>. */
extern const char sc_html_gpu_style[];
extern const char sc_html_gpu_script[];

#endif /* SC_HTML_H */
