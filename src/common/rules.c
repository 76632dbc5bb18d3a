/* rules.c: the rule catalogue as data, expanded from rules.def. */
#include "config.h"

#include <string.h>
#include <strings.h>

#include "rules.h"

const sc_rule_info sc_rules[SC_NRULES] = {
#define SC_RULE(ID, NAME, SEV, DOC, SUMMARY, DETAIL, ADVICE, BEFORE, AFTER) \
    [SC_RULE_##ID] = {#ID, NAME, SC_SEV_##SEV, DOC, SUMMARY, DETAIL, ADVICE, BEFORE, AFTER},
#include "rules.def"
#undef SC_RULE
};

const sc_rule_facts sc_rule_props[SC_NRULES] = {
#define SC_RULE_FACTS(ID, SPECIFICITY, COST, HELD, TRAITS, FIX) \
    [SC_RULE_##ID] = {SPECIFICITY, SC_RULE_COST_##COST, SC_HELD_##HELD, TRAITS, SC_FIX_##FIX},
#include "rules.def"
#undef SC_RULE_FACTS
};

/* One SC_RULE_FACTS line per rule (a second one for a rule does not
   compile: -Woverride-init). */
enum {
    SC_NRULE_FACTS = 0
#define SC_RULE_FACTS(ID, SPECIFICITY, COST, HELD, TRAITS, FIX) + 1
#include "rules.def"
#undef SC_RULE_FACTS
};
_Static_assert((int)SC_NRULE_FACTS == (int)SC_NRULES, "rules.def: every SC_RULE has its SC_RULE_FACTS");

int sc_rule_lookup(const char *s)
{
    if (!s)
        return -1;
    for (int i = 0; i < SC_NRULES; i++)
        if (!strcasecmp(s, sc_rules[i].id) || !strcasecmp(s, sc_rules[i].name))
            return i;
    return -1;
}

const char *sc_severity_name(sc_severity s)
{
    switch (s) {
    case SC_SEV_NOTE: return "note";
    case SC_SEV_WARNING: return "warning";
    case SC_SEV_ERROR: return "error";
    }
    return "unknown";
}

int sc_severity_parse(const char *s, sc_severity *out)
{
    static const sc_severity all[] = {SC_SEV_NOTE, SC_SEV_WARNING, SC_SEV_ERROR};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (s && !strcasecmp(s, sc_severity_name(all[i]))) {
            *out = all[i];
            return 0;
        }
    return -1;
}
