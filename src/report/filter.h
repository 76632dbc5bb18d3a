/* filter.h: --rules, --ignore and --suppressions applied to a report. */
#ifndef SC_FILTER_H
#define SC_FILTER_H

#include <stddef.h>
#include "report.h"

/* Drops findings not in `rules` (0 = all), in `ignore`, or matched by the
   suppressions file (NULL = none); counts them in sc_process.suppressed.
   Returns 0, or -1 with a one-line reason (FILE:LINE for a bad line). */
int sc_filter_apply(sc_report *r, unsigned long long rules, unsigned long long ignore,
                    const char *suppressions, char *err, size_t errlen);
/* Parses a suppressions file only: 0, or -1 with "FILE:LINE: reason" (the
   launcher's --suppressions and the shim's start-up both check with it). */
int sc_filter_check_suppressions(const char *path, char *err, size_t errlen);

#endif
