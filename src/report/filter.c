/* filter.c: what the settings (STREAMCHECK_*) make of one process's report:
 * --rules, --ignore and --suppressions through the report library's filter
 * (suppress.c), the judgement of what is worth fixing, the order, and the
 * options it is rendered with.  The shim at exit and the launcher after it
 * (for a report left to it) do the same through here. */
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

int sc_report_apply_settings(sc_report *r, const sc_options *opt, char *err, size_t errlen)
{
    int rc = sc_filter_apply(r, opt->rules, opt->ignore, opt->suppressions[0] ? opt->suppressions : NULL, err,
                             errlen);
    sc_judge_opts j = {(uint64_t)opt->warn_cost_us * 1000, (unsigned)opt->warn_share_bp};
    sc_report_judge(r, &j);
    sc_report_sort(r);
    return rc;
}

sc_render_opts sc_render_opts_for(const sc_options *opt, const char *srcroot)
{
    sc_render_opts o = {.top = opt->top ? (unsigned)opt->top : SC_TOP_ALL,
                        .verbose = opt->verbose,
                        .srcroot = opt->source_root[0] ? opt->source_root : srcroot};
    return o;
}
