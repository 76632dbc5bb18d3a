/* suppress.c: suppression files, --rules/--ignore, and the report filter
 * (format in suppress.h and libstreamcheck(7)). */
#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suppress.h"

typedef struct sc_suppression {
    int rule;          /* index into sc_rules, or -1 for '*' */
    char *pattern;
    unsigned line;     /* in the file, for messages */
} sc_suppression;

struct sc_suppressions {
    sc_suppression *v;
    size_t n;
};

void sc_suppress_free(sc_suppressions *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i].pattern);
    free(s->v);
    free(s);
}

size_t sc_suppress_count(const sc_suppressions *s)
{
    return s ? s->n : 0;
}

__attribute__((format(printf, 5, 6)))
static sc_suppressions *fail(sc_suppressions *s, char *err, size_t errlen, const char *where,
                             const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sc_parse_error(err, errlen, where, fmt, ap);
    va_end(ap);
    sc_suppress_free(s);
    return NULL;
}

sc_suppressions *sc_suppress_parse(const char *text, size_t len, const char *name, char *err,
                                   size_t errlen)
{
    sc_suppressions *s = calloc(1, sizeof *s);
    size_t cap = 0;
    unsigned lineno = 0;
    char where[512];
    if (!name)
        name = "<suppressions>";
    if (!s)
        return fail(NULL, err, errlen, name, "out of memory");
    if (len > SC_SUPPRESS_MAX_SIZE)
        return fail(s, err, errlen, name, "larger than %zu bytes", SC_SUPPRESS_MAX_SIZE);
    for (size_t pos = 0; pos < len;) {
        const char *line = text + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - line) : len - pos;
        pos += n + (nl != NULL);
        lineno++;
        snprintf(where, sizeof where, "%s:%u", name, lineno);
        if (n > SC_SUPPRESS_MAX_LINE)
            return fail(s, err, errlen, where, "line longer than %d bytes", SC_SUPPRESS_MAX_LINE);
        if (memchr(line, '\0', n))
            return fail(s, err, errlen, where, "NUL byte in line (not a text file?)");
        /* Trim, then split RULE from the rest. */
        while (n && sc_blank(*line)) {
            line++;
            n--;
        }
        while (n && sc_blank(line[n - 1]))
            n--;
        if (!n || *line == '#')
            continue;
        size_t rl = 0;
        while (rl < n && !sc_blank(line[rl]))
            rl++;
        size_t ps = rl;
        while (ps < n && sc_blank(line[ps]))
            ps++;
        char rule[128];
        if (rl >= sizeof rule)
            return fail(s, err, errlen, where, "unknown rule '%.40s...' (see streamcheck --list-rules)", line);
        memcpy(rule, line, rl);
        rule[rl] = '\0';
        if (ps >= n)
            return fail(s, err, errlen, where, "expected 'RULE PATTERN', found only '%s'", rule);
        int idx = -1;
        if (strcmp(rule, "*") && (idx = sc_rule_lookup(rule)) < 0)
            return fail(s, err, errlen, where, "unknown rule '%s' (an id such as SC203, a name such as "
                        "pageable-async-copy, or '*'; see streamcheck --list-rules)", rule);
        if (s->n == cap) {
            size_t ncap = cap ? cap * 2 : 8;
            sc_suppression *v = realloc(s->v, ncap * sizeof *v);
            if (!v)
                return fail(s, err, errlen, where, "out of memory");
            s->v = v;
            cap = ncap;
        }
        char *pat = strndup(line + ps, n - ps);
        if (!pat)
            return fail(s, err, errlen, where, "out of memory");
        s->v[s->n++] = (sc_suppression){idx, pat, lineno};
    }
    return s;
}

sc_suppressions *sc_suppress_load(const char *path, char *err, size_t errlen)
{
    char *buf;
    size_t len;
    if (sc_read_file(path, SC_SUPPRESS_MAX_SIZE, &buf, &len, err, errlen) < 0)
        return NULL;
    sc_suppressions *s = sc_suppress_parse(buf, len, path, err, errlen);
    free(buf);
    return s;
}

static bool glob(const char *pat, const char *s)
{
    return s && fnmatch(pat, s, 0) == 0;
}

static bool glob_file_line(const char *pat, const char *file, unsigned line)
{
    char b[4096];
    if (!file)
        return false;
    if (glob(pat, file) || glob(pat, sc_basename(file)))
        return true;
    if (!line)
        return false;
    snprintf(b, sizeof b, "%s:%u", file, line);
    if (glob(pat, b))
        return true;
    snprintf(b, sizeof b, "%s:%u", sc_basename(file), line);
    return glob(pat, b);
}

static bool pattern_matches(const char *pat, const sc_callsite *cs)
{
    if (!strcmp(pat, "*"))
        return true;
    if (!cs)
        return false;
    for (size_t i = 0; i < cs->npy; i++)
        if (glob(pat, cs->py[i].function) || glob_file_line(pat, cs->py[i].file, cs->py[i].line))
            return true;
    for (size_t i = 0; i < cs->nframes; i++) {
        const sc_frame *f = &cs->frames[i];
        if (glob(pat, f->function) || glob_file_line(pat, f->file, f->line) || glob(pat, f->module) ||
            (f->module && glob(pat, sc_basename(f->module))))
            return true;
    }
    return false;
}

bool sc_suppress_match(const sc_suppressions *s, const sc_finding *f, const sc_callsite *cs)
{
    if (!s)
        return false;
    for (size_t i = 0; i < s->n; i++)
        if ((s->v[i].rule < 0 || s->v[i].rule == (int)f->rule) && pattern_matches(s->v[i].pattern, cs))
            return true;
    return false;
}

int sc_rule_list_parse(const char *list, const char *what, unsigned char sel[SC_NRULES], char *err,
                       size_t errlen)
{
    memset(sel, 0, SC_NRULES);
    if (!what)
        what = "rule list";
    const char *p = list ? list : "";
    for (;;) {
        size_t n = strcspn(p, ",");
        const char *a = p, *b = p + n;
        while (a < b && sc_blank(*a))
            a++;
        while (b > a && sc_blank(b[-1]))
            b--;
        char name[128];
        if (a == b) {
            snprintf(err, errlen, "%s: empty rule name in '%s'", what, list ? list : "");
            return -1;
        }
        if ((size_t)(b - a) >= sizeof name) {
            snprintf(err, errlen, "%s: unknown rule '%.40s...' (see streamcheck --list-rules)", what, a);
            return -1;
        }
        memcpy(name, a, (size_t)(b - a));
        name[b - a] = '\0';
        int idx = sc_rule_lookup(name);
        if (idx < 0) {
            snprintf(err, errlen, "%s: unknown rule '%s' (see streamcheck --list-rules)", what, name);
            return -1;
        }
        sel[idx] = 1;
        if (!p[n])
            return 0;
        p += n + 1;
    }
}

uint64_t sc_report_filter(sc_report *r, const sc_filter *flt)
{
    uint64_t dropped = 0;
    size_t k = 0;
    for (size_t i = 0; i < r->nfindings; i++) {
        sc_finding *f = &r->findings[i];
        bool drop = (flt->only && !flt->only[f->rule]) || (flt->ignore && flt->ignore[f->rule]) ||
                    (flt->supp && sc_suppress_match(flt->supp, f, sc_report_callsite(r, f->callsite)));
        if (drop) {
            if (f->process < r->nprocs)
                r->procs[f->process].suppressed++;
            sc_finding_clear(f);
            dropped++;
        } else {
            r->findings[k++] = *f;
        }
    }
    r->nfindings = k;
    if (!dropped)
        return 0;

    /* Call sites only the dropped findings named would be noise in the
       call-site table. */
    k = 0;
    for (size_t i = 0; i < r->ncallsites; i++) {
        sc_callsite *cs = &r->callsites[i];
        bool used = false;
        for (size_t j = 0; j < r->nfindings && !used; j++)
            used = !strcmp(r->findings[j].callsite, cs->id);
        for (size_t j = 0; j < r->nredirects && !used; j++)
            used = !strcmp(r->redirects[j].callsite, cs->id);
        if (used) {
            r->callsites[k++] = *cs;
            continue;
        }
        sc_callsite_clear(cs);
    }
    r->ncallsites = k;
    return dropped;
}
