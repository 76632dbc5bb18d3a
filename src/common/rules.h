/* rules.h: the rule catalogue (rules.def) as C data. */
#ifndef SC_RULES_H
#define SC_RULES_H

#include <stddef.h>

typedef enum sc_severity {
    SC_SEV_NOTE = 0,
    SC_SEV_WARNING = 1,
    SC_SEV_ERROR = 2,
} sc_severity;

typedef enum sc_rule_id {
#define SC_RULE(ID, NAME, SEV, DOC, SUMMARY, DETAIL, ADVICE, BEFORE, AFTER) SC_RULE_##ID,
#include "rules.def"
#undef SC_RULE
    SC_NRULES
} sc_rule_id;

typedef struct sc_rule_info {
    const char *id;       /* "SC101" */
    const char *name;     /* "legacy-default-stream" */
    sc_severity severity; /* default */
    const char *doc;
    const char *summary;
    const char *detail;
    const char *advice;
    const char *before;
    const char *after;
} sc_rule_info;

extern const sc_rule_info sc_rules[SC_NRULES];

/* By "SC101" or "legacy-default-stream" (case-insensitive); -1 if unknown. */
int sc_rule_lookup(const char *id_or_name);
const char *sc_severity_name(sc_severity s);          /* "note", "warning", "error" */
int sc_severity_parse(const char *s, sc_severity *out); /* 0 or -1 */

#endif /* SC_RULES_H */
