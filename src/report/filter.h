/* filter.h: the settings applied to one process's report (filter.c). */
#ifndef SC_FILTER_H
#define SC_FILTER_H

#include <stddef.h>

#include "options.h"
#include "report.h"

/* Drops findings not in `rules` (0 = all), in `ignore`, or matched by the
   suppressions file (NULL = none); counts them in sc_process.suppressed.
   Returns 0, or -1 with a one-line reason (FILE:LINE for a bad line). */
int sc_filter_apply(sc_report *r, unsigned long long rules, unsigned long long ignore,
                    const char *suppressions, char *err, size_t errlen);
/* Parses a suppressions file only: 0, or -1 with "FILE:LINE: reason" (the
   launcher's --suppressions and the shim's start-up both check with it). */
int sc_filter_check_suppressions(const char *path, char *err, size_t errlen);

/* What the settings make of a process's report before it is shown: the
   filters above, the judgement (--warn-cost, --warn-share), the order.
   0, or -1 with why the suppressions could not be used (the rest is done
   without them). */
int sc_report_apply_settings(sc_report *r, const sc_options *opt, char *err, size_t errlen);
/* The options it is rendered with (--top, --verbose, --source-root);
   srcroot is the source root when the settings give none. */
sc_render_opts sc_render_opts_for(const sc_options *opt, const char *srcroot);

#endif
