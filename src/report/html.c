/* html.c: what every part of the HTML report writes text with: escaping
 * for HTML (and XML) text and attributes, percentages without a locale,
 * plurals. */
#include "config.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "html.h"
#include "json.h"

/* Writes at most n bytes of s (up to a NUL) as HTML text or attribute
   content.  Markup characters become entities; controls other than tab and
   newline, U+FFFE/U+FFFF and bytes that are not UTF-8 become U+FFFD. */
void sc_html_escn(FILE *out, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)(s ? s : ""), *end = p + (s ? n : 0);
    while (p < end && *p) {
        unsigned char c = *p;
        uint32_t cp;
        size_t k;
        switch (c) {
        case '&': fputs("&amp;", out); p++; continue;
        case '<': fputs("&lt;", out); p++; continue;
        case '>': fputs("&gt;", out); p++; continue;
        case '"': fputs("&quot;", out); p++; continue;
        case '\'': fputs("&#39;", out); p++; continue;
        case '\n': case '\t': fputc(c, out); p++; continue;
        default: break;
        }
        if (c < 0x20 || c == 0x7f) {
            fputs("\xef\xbf\xbd", out);
            p++;
            continue;
        }
        if (c < 0x80) {
            fputc(c, out);
            p++;
            continue;
        }
        k = sc_utf8_decode(p, (size_t)(end - p), &cp);
        if (!k || cp < 0xa0 || cp == 0xfffe || cp == 0xffff) {
            fputs("\xef\xbf\xbd", out);
            p += k ? k : 1;
            continue;
        }
        fwrite(p, 1, k, out);
        p += k;
    }
}

void sc_html_esc(FILE *out, const char *s)
{
    sc_html_escn(out, s, s ? strlen(s) : 0);
}

/* A path or command line: sc_html_esc(), with a break opportunity (<wbr/>) after
   each '/' so that a narrow column wraps it between components. */
void sc_html_esc_path(FILE *out, const char *s)
{
    const char *p = s ? s : "";
    for (;;) {
        const char *slash = strchr(p, '/');
        if (!slash) {
            sc_html_esc(out, p);
            return;
        }
        sc_html_escn(out, p, (size_t)(slash - p) + 1);
        if (slash[1] && slash[1] != '/')
            fputs("<wbr/>", out);
        p = slash + 1;
    }
}

/* part of whole as "12.34%", in integers (no locale); "" when whole is 0. */
void sc_html_percent(uint64_t part, uint64_t whole, char *buf, size_t len)
{
    if (!whole) {
        snprintf(buf, len, "%s", "");
        return;
    }
    unsigned __int128 bp = (unsigned __int128)part * 10000 / whole;
    uint64_t v = bp > 100000000 ? 100000000 : (uint64_t)bp;
    snprintf(buf, len, "%" PRIu64 ".%02u%%", v / 100, (unsigned)(v % 100));
}

const char *sc_html_plural(uint64_t n)
{
    return n == 1 ? "" : "s";
}
