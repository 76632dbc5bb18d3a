/* shim_report.h: the report at exit (shim_report.c): the model built from
 * what the shim saw, and the shim's own time so far.
 */
#ifndef SC_SHIM_REPORT_H
#define SC_SHIM_REPORT_H

#include <stdint.h>

#include "sc.h"

struct sc_report;
struct sc_report *sc_shim_build_report(void);   /* the model, unfiltered; NULL if no calls */
/* Exported, for benchmarks: the own time so far in ns. */
SC_EXPORT uint64_t streamcheck_self_ns(void);

#endif /* SC_SHIM_REPORT_H */
