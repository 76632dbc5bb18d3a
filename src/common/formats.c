/* formats.c: the report formats' table and the one parser of format lists. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "formats.h"

const sc_format_info sc_formats[SC_NFORMATS] = {
#define SC_FORMAT(NAME, BIT, ID, LABEL, EXT, ALIAS, ALL, TERM, TIMELINE, DESCRIPTION) \
    [SC_FMT_INDEX_##NAME] = {SC_FMT_##NAME, #ID, LABEL, EXT, ALIAS, ALL, TERM, TIMELINE, DESCRIPTION},
#include "formats.def"
#undef SC_FORMAT
};

/* The bits are the indices, so that a set of formats is walked in order. */
#define SC_FORMAT(NAME, BIT, ID, LABEL, EXT, ALIAS, ALL, TERM, TIMELINE, DESCRIPTION) \
    _Static_assert(SC_FMT_INDEX_##NAME == BIT, #NAME ": its bit is its row");
#include "formats.def"
#undef SC_FORMAT

int sc_format_index(sc_format fmt)
{
    for (int i = 0; i < SC_NFORMATS; i++)
        if (sc_formats[i].format == fmt)
            return i;
    return -1;
}

const char *sc_format_ext(sc_format fmt)
{
    int i = sc_format_index(fmt);
    return i < 0 ? NULL : sc_formats[i].ext;
}

/* The bits one trimmed item names; 0 when it names none. */
static unsigned item_bits(const char *s, size_t n)
{
    unsigned bits = 0;
    if (n == 3 && !strncasecmp(s, "all", 3)) {
        for (int i = 0; i < SC_NFORMATS; i++)
            if (sc_formats[i].in_all)
                bits |= (unsigned)sc_formats[i].format;
        return bits;
    }
    for (int i = 0; i < SC_NFORMATS; i++) {
        const sc_format_info *f = &sc_formats[i];
        if ((strlen(f->name) == n && !strncasecmp(s, f->name, n)) ||
            (*f->alias && strlen(f->alias) == n && !strncasecmp(s, f->alias, n)))
            return (unsigned)f->format;
    }
    return 0;
}

/* "text, json, sarif, junit (or xml), trace, html or all" */
static void expected(char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < SC_NFORMATS && at < len; i++) {
        int n = snprintf(buf + at, len - at, "%s%s%s%s%s", i ? ", " : "", sc_formats[i].name,
                         *sc_formats[i].alias ? " (or " : "", sc_formats[i].alias,
                         *sc_formats[i].alias ? ")" : "");
        at += n > 0 ? (size_t)n : 0;
    }
    if (at < len)
        snprintf(buf + at, len - at, " or all");
}

int sc_formats_parse(const char *s, unsigned *out, char *err, size_t errlen)
{
    char exp[200];
    unsigned bits = 0;
    const char *p = s;
    while (*p) {
        size_t n = strcspn(p, ",");
        const char *item = p;
        size_t len = n;
        while (len && isspace((unsigned char)*item)) {
            item++;
            len--;
        }
        while (len && isspace((unsigned char)item[len - 1]))
            len--;
        unsigned b = len ? item_bits(item, len) : 0;
        if (len && !b) {
            expected(exp, sizeof exp);
            snprintf(err, errlen, "unknown format '%.*s' (expected %s)", (int)(len > 40 ? 40 : len), item, exp);
            return -1;
        }
        bits |= b;
        p += n;
        if (*p == ',')
            p++;
    }
    if (!bits) {
        expected(exp, sizeof exp);
        snprintf(err, errlen, "no format given (expected %s)", exp);
        return -1;
    }
    *out = bits;
    return 0;
}
