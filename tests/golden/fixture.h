/* fixture.h: a fixed, representative report for the golden and unit tests:
 * two processes of one job, every severity, Python and native frames,
 * frames without debug information, a redirect section, and strings that
 * need escaping in every format. */
#ifndef SC_FIXTURE_H
#define SC_FIXTURE_H

#include "report.h"

/* Process A alone (pid 4242 on node01), sorted. */
sc_report *fixture_process_a(void);
/* Process B alone (pid 4243 on node02), sorted. */
sc_report *fixture_process_b(void);
/* A merged with B, sorted: what `streamcheck report a.json b.json` sees. */
sc_report *fixture_merged(void);

/* Exits with a message when an allocation in a fixture fails. */
void *fixture_check(void *p);

#endif
