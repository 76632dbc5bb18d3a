/* suppress.h: suppression files and rule selection.
 *
 * A suppression file has one suppression per line:
 *
 *     RULE PATTERN
 *
 * RULE is a rule id (SC203), a rule name (pageable-async-copy) or '*' for
 * every rule.  PATTERN is the rest of the line (surrounding blanks
 * stripped), an fnmatch(3) glob in which '*' also matches '/'.  It matches
 * a finding when it matches, for any frame of the finding's call site, one
 * of:
 *   native frames: the function, the file, FILE:LINE, the file's basename,
 *                  BASENAME:LINE, the module path, the module's basename;
 *   Python frames: the file, FILE:LINE, the basename, BASENAME:LINE, the
 *                  function.
 * A PATTERN of exactly '*' matches every finding of the rule, including
 * findings with no call site.  '#' starts a comment line; blank lines are
 * ignored.
 */
#ifndef SC_SUPPRESS_H
#define SC_SUPPRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report.h"

#define SC_SUPPRESS_MAX_LINE 4096
#define SC_SUPPRESS_MAX_SIZE ((size_t)16 << 20)

typedef struct sc_suppressions sc_suppressions;

/* Parses text[0..len); name is used in messages.  Returns the set (maybe
   empty), or NULL with "NAME:LINE: reason" in err. */
sc_suppressions *sc_suppress_parse(const char *text, size_t len, const char *name, char *err,
                                   size_t errlen);
/* Reads and parses a file; errors as above, or "PATH: reason" when the file
   cannot be read. */
sc_suppressions *sc_suppress_load(const char *path, char *err, size_t errlen);
size_t sc_suppress_count(const sc_suppressions *s);
/* Whether any suppression matches this finding at this call site (cs may be
   NULL when the finding has none). */
bool sc_suppress_match(const sc_suppressions *s, const sc_finding *f, const sc_callsite *cs);
void sc_suppress_free(sc_suppressions *s);

/* Parses a comma-separated list of rule ids or names into sel (1 = listed).
   what names the option in messages ("--rules").  0, or -1 with a reason
   in err (an unknown or empty name). */
int sc_rule_list_parse(const char *list, const char *what, unsigned char sel[SC_NRULES], char *err,
                       size_t errlen);

typedef struct sc_filter {
    const unsigned char *only;   /* keep only these rules; NULL: all */
    const unsigned char *ignore; /* drop these rules; NULL: none */
    const sc_suppressions *supp; /* drop what these match; NULL: none */
} sc_filter;

/* Drops the findings the filter excludes, adds the number of dropped
   findings entries to each one's process (sc_process.suppressed), and
   removes call sites nothing refers to any more.  Returns the number
   dropped. */
uint64_t sc_report_filter(sc_report *r, const sc_filter *f);

#endif /* SC_SUPPRESS_H */
