/* render.c: renders a report in one format, through the table of
 * renderers that formats.def makes: sc_render_<ID> for each row. */
#include "config.h"

#include <errno.h>

#include "report.h"

static sc_renderer *const renderers[SC_NFORMATS] = {
#define SC_FORMAT(NAME, BIT, ID, LABEL, EXT, ALIAS, ALL, TERM, TIMELINE, DESCRIPTION) [SC_FMT_INDEX_##NAME] = sc_render_##ID,
#include "formats.def"
#undef SC_FORMAT
};

int sc_render(const sc_report *r, sc_format fmt, FILE *out, const sc_render_opts *o)
{
    static const sc_render_opts defaults;
    int i = sc_format_index(fmt);
    if (i < 0) {
        errno = EINVAL;
        return -1;
    }
    return renderers[i](r, out, o ? o : &defaults);
}
