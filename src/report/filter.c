/* filter.c: --rules, --ignore and --suppressions for the shim's report,
 * through the report library's filter (suppress.c). */
#include "config.h"

#include "filter.h"
#include "suppress.h"

int sc_filter_apply(sc_report *r, unsigned long long rules, unsigned long long ignore,
                    const char *suppressions, char *err, size_t errlen)
{
    unsigned char only[SC_NRULES], ign[SC_NRULES];
    for (int i = 0; i < SC_NRULES; i++) {
        only[i] = (rules >> i) & 1;
        ign[i] = (ignore >> i) & 1;
    }
    int rc = 0;
    sc_suppressions *s = NULL;
    if (suppressions) {
        s = sc_suppress_load(suppressions, err, errlen);
        if (!s)
            rc = -1;   /* still apply the rule selection */
    }
    sc_filter f = {rules ? only : NULL, ignore ? ign : NULL, s};
    sc_report_filter(r, &f);
    sc_suppress_free(s);
    return rc;
}

int sc_filter_check_suppressions(const char *path, char *err, size_t errlen)
{
    sc_suppressions *s = sc_suppress_load(path, err, errlen);
    if (!s)
        return -1;
    sc_suppress_free(s);
    return 0;
}
