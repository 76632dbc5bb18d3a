/* shim_report.h: the report at exit (shim_report.c): the model built from
 * what the shim saw, and the shim's own time so far.
 */
#ifndef SC_SHIM_REPORT_H
#define SC_SHIM_REPORT_H

#include <stdint.h>

#include "sc.h"

struct sc_report;
struct sc_report *sc_shim_build_report(void);   /* the model, unfiltered; NULL if no calls */
/* A report while the program goes on (the reporter thread, reporter.c),
   read in a pause (core.h) and written whole in place of the last: sig 0,
   a snapshot (--snapshot), the JSON report; else the signal a handler of
   the program's own took, every file format asked for.  The text report
   is only the final one's. */
void sc_shim_write_partial(int sig);
/* Exported, for benchmarks: the own time so far in ns. */
SC_EXPORT uint64_t streamcheck_self_ns(void);

#endif /* SC_SHIM_REPORT_H */
