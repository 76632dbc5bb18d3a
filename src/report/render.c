/* render.c: renders a report in one format: the dispatch to the renderers
 * (report_text.c, report_json.c, ...). */
#include "config.h"

#include <errno.h>

#include "report.h"

int sc_render(const sc_report *r, sc_format fmt, FILE *out, const sc_render_opts *o)
{
    static const sc_render_opts defaults;
    if (!o)
        o = &defaults;
    switch (fmt) {
    case SC_FMT_TEXT: return sc_render_text(r, out, o);
    case SC_FMT_JSON: return sc_render_json(r, out);
    case SC_FMT_SARIF: return sc_render_sarif_opts(r, out, o);
    case SC_FMT_JUNIT: return sc_render_junit_opts(r, out, o);
    case SC_FMT_TRACE: return sc_render_trace(r, out);
    case SC_FMT_HTML: return sc_render_html(r, out, o);
    }
    errno = EINVAL;
    return -1;
}

int sc_render_sarif(const sc_report *r, FILE *out)
{
    return sc_render_sarif_opts(r, out, NULL);
}

int sc_render_junit(const sc_report *r, FILE *out)
{
    return sc_render_junit_opts(r, out, NULL);
}
