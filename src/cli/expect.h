/* expect.h: checks a report against an expectation file, exactly.
 *
 * Used by the test harness and `streamcheck --selftest`.  An expectation
 * file has one expectation per line:
 *
 *     finding RULE FILE:LINE COUNT   COUNT events of RULE at call sites that
 *                                    have a frame (native or Python) at
 *                                    FILE:LINE; FILE is matched by basename
 *     finding RULE - COUNT           ... at call sites with no source location
 *     finding ... COUNT SEVERITY     ... counting only findings of SEVERITY
 *                                    (error, warning or note)
 *     finding ... COUNT device=N     ... counting only findings made on the
 *                                    device with ordinal N (after COUNT, with
 *                                    or without SEVERITY, in either order)
 *     api NAME COUNT                 NAME was called COUNT times in all
 *                                    (api_counts, summed over libraries)
 *
 * COUNT may be written N+ for "at least N": for counts a library decides
 * (cuBLAS synchronizes as often as it likes in cublasDestroy) or that depend
 * on scheduling.
 * RULE is an id or a name; '#' starts a comment line; blank lines are
 * ignored.  The check is exact both ways: each expected finding must be
 * there with exactly that count (summed over every aggregate that matches),
 * every finding of the report must be matched by some expectation line --
 * so a file without finding lines demands a report without findings -- and
 * each api line must match exactly.  An api that is not listed is not
 * checked.
 */
#ifndef SC_EXPECT_H
#define SC_EXPECT_H

#include <stdio.h>

#include "report.h"

#define SC_EXPECT_MAX_SIZE ((size_t)16 << 20)

typedef struct sc_expect sc_expect;

/* NULL with "NAME:LINE: reason" in err on a bad line. */
sc_expect *sc_expect_parse(const char *text, size_t len, const char *name, char *err, size_t errlen);
sc_expect *sc_expect_load(const char *path, char *err, size_t errlen);
void sc_expect_free(sc_expect *e);

/* Checks r against e and prints the outcome to out (NULL: silent): on a
   mismatch a diff, '-' lines as expected and '+' lines as found (the '+'
   lines are valid expectation lines), then one verdict line.  Returns 0
   when every expectation holds, 1 when not, -1 when out of memory. */
int sc_expect_check(const sc_expect *e, const sc_report *r, FILE *out);

#endif /* SC_EXPECT_H */
