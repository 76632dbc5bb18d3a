/* expect.c: the exact expectation checker (format in expect.h). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"

typedef struct exp_line {
    int is_api;
    int rule;
    char *file;        /* basename; NULL: "-", no source location */
    unsigned line;
    char *api;
    uint64_t count;
    int at_least;      /* COUNT+: at least count (the number is a library's choice) */
    int severity;      /* -1: any; else only findings of this sc_severity */
    int device;        /* -1: any; else only findings on this device ordinal */
    unsigned lineno;
} exp_line;

struct sc_expect {
    exp_line *v;
    size_t n;
    char *name;
};

void sc_expect_free(sc_expect *e)
{
    if (!e)
        return;
    for (size_t i = 0; i < e->n; i++) {
        free(e->v[i].file);
        free(e->v[i].api);
    }
    free(e->v);
    free(e->name);
    free(e);
}

__attribute__((format(printf, 5, 6)))
static sc_expect *fail(sc_expect *e, char *err, size_t errlen, const char *where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sc_parse_error(err, errlen, where, fmt, ap);
    va_end(ap);
    sc_expect_free(e);
    return NULL;
}

static int parse_u64(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* COUNT or COUNT+ (at least COUNT). */
static int parse_count(const char *s, uint64_t *out, int *at_least)
{
    char buf[32];
    size_t n = strlen(s);
    *at_least = n > 1 && s[n - 1] == '+';
    if (!*at_least)
        return parse_u64(s, out);
    if (n > sizeof buf)
        return -1;
    memcpy(buf, s, n - 1);
    buf[n - 1] = 0;
    return parse_u64(buf, out);
}

#define MAXTOK 6
#define LINE_MAX_LEN 4096

/* Says why a line is bad; returns -1. */
__attribute__((format(printf, 4, 5)))
static int bad(char *err, size_t errlen, const char *where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sc_parse_error(err, errlen, where, fmt, ap);
    va_end(ap);
    return -1;
}

/* Splits buf at blanks into at most MAXTOK fields; -1 if there are more. */
static int split_fields(char *buf, char **tok)
{
    int nt = 0;
    for (char *p = buf; *p;) {
        while (*p && sc_blank(*p))
            p++;
        if (!*p)
            break;
        if (nt == MAXTOK)
            return -1;
        tok[nt++] = p;
        while (*p && !sc_blank(*p))
            p++;
        if (*p)
            *p++ = '\0';
    }
    return nt;
}

/* The optional fields after COUNT: SEVERITY and device=N, once each. */
static int parse_qualifiers(exp_line *x, char **tok, int nt, const char *where, char *err, size_t errlen)
{
    sc_severity sev;
    for (int k = 4; k < nt; k++) {
        uint64_t d;
        if (!strncmp(tok[k], "device=", 7)) {
            if (x->device >= 0 || parse_u64(tok[k] + 7, &d) < 0 || d > 65535)
                return bad(err, errlen, where, "'%s' is not device=ORDINAL (once)", tok[k]);
            x->device = (int)d;
        } else if (x->severity >= 0 || sc_severity_parse(tok[k], &sev) < 0) {
            return bad(err, errlen, where, "'%s' is not error, warning or note", tok[k]);
        } else {
            x->severity = (int)sev;
        }
    }
    return 0;
}

/* "finding RULE FILE:LINE COUNT [SEVERITY] [device=N]", FILE:LINE or "-". */
static int parse_finding(exp_line *x, char **tok, int nt, const char *where, char *err, size_t errlen)
{
    if (nt < 4 || nt > 6)
        return bad(err, errlen, where, "expected 'finding RULE FILE:LINE COUNT [SEVERITY] "
                   "[device=N]' or 'finding RULE - COUNT [SEVERITY] [device=N]'");
    if (parse_qualifiers(x, tok, nt, where, err, errlen) < 0)
        return -1;
    if ((x->rule = sc_rule_lookup(tok[1])) < 0)
        return bad(err, errlen, where, "unknown rule '%s' (see streamcheck --list-rules)", tok[1]);
    if (strcmp(tok[2], "-")) {
        char *colon = strrchr(tok[2], ':');
        uint64_t ln;
        if (!colon || colon == tok[2] || parse_u64(colon + 1, &ln) < 0 || ln == 0 || ln > UINT32_MAX)
            return bad(err, errlen, where, "'%s' is not FILE:LINE (or '-' for no source location)", tok[2]);
        *colon = '\0';
        x->line = (unsigned)ln;
        const char *base = sc_basename(tok[2]);
        if (!*base || strchr(base, '/'))
            return bad(err, errlen, where, "'%s' has no file name", tok[2]);
        if (!(x->file = strdup(base)))
            return bad(err, errlen, where, "out of memory");
    }
    if (parse_count(tok[3], &x->count, &x->at_least) < 0)
        return bad(err, errlen, where, "count '%s' is not a non-negative integer", tok[3]);
    return 0;
}

/* "api NAME COUNT". */
static int parse_api(exp_line *x, char **tok, int nt, const char *where, char *err, size_t errlen)
{
    x->is_api = 1;
    if (nt != 3)
        return bad(err, errlen, where, "expected 'api NAME COUNT'");
    if (parse_count(tok[2], &x->count, &x->at_least) < 0)
        return bad(err, errlen, where, "count '%s' is not a non-negative integer", tok[2]);
    if (!(x->api = strdup(tok[1])))
        return bad(err, errlen, where, "out of memory");
    return 0;
}

/* Two lines about the same thing would each take the whole sum. */
static int repeats(const sc_expect *e, const exp_line *x, const char *where, char *err, size_t errlen)
{
    for (size_t i = 0; i < e->n; i++) {
        const exp_line *y = &e->v[i];
        int same = x->is_api ? (y->is_api && !strcmp(x->api, y->api))
                             : (!y->is_api && x->rule == y->rule && x->line == y->line &&
                                (x->severity < 0 || y->severity < 0 || x->severity == y->severity) &&
                                (x->device < 0 || y->device < 0 || x->device == y->device) &&
                                ((!x->file && !y->file) || (x->file && y->file && !strcmp(x->file, y->file))));
        if (same)
            return bad(err, errlen, where, "repeats line %u", y->lineno);
    }
    return 0;
}

static int append(sc_expect *e, size_t *cap, const exp_line *x, const char *where, char *err, size_t errlen)
{
    if (e->n == *cap) {
        size_t ncap = *cap ? 2 * *cap : 16;
        exp_line *v = realloc(e->v, ncap * sizeof *v);
        if (!v)
            return bad(err, errlen, where, "out of memory");
        e->v = v;
        *cap = ncap;
    }
    e->v[e->n++] = *x;
    return 0;
}

/* Line lineno, l[0..n), into e; -1 with "NAME:LINE: reason" in err. */
static int parse_line(sc_expect *e, size_t *cap, const char *l, size_t n, unsigned lineno, char *err,
                      size_t errlen)
{
    char where[512], buf[LINE_MAX_LEN + 1];
    snprintf(where, sizeof where, "%s:%u", e->name, lineno);
    if (n > LINE_MAX_LEN)
        return bad(err, errlen, where, "line longer than %d bytes", LINE_MAX_LEN);
    if (memchr(l, '\0', n))
        return bad(err, errlen, where, "NUL byte in line (not a text file?)");
    memcpy(buf, l, n);
    buf[n] = '\0';

    const char *first = buf + strspn(buf, " \t");
    if (*first == '#')   /* a comment, however many words it has */
        return 0;
    char *tok[MAXTOK + 1];
    int nt = split_fields(buf, tok);
    if (nt < 0)
        return bad(err, errlen, where, "too many fields");
    if (!nt)
        return 0;
    exp_line x = {.lineno = lineno, .rule = -1, .severity = -1, .device = -1};
    int rc;
    if (!strcmp(tok[0], "finding"))
        rc = parse_finding(&x, tok, nt, where, err, errlen);
    else if (!strcmp(tok[0], "api"))
        rc = parse_api(&x, tok, nt, where, err, errlen);
    else
        rc = bad(err, errlen, where, "unknown directive '%.40s' (expected 'finding' or 'api')", tok[0]);
    if (rc == 0 && (rc = repeats(e, &x, where, err, errlen)) == 0)
        rc = append(e, cap, &x, where, err, errlen);
    if (rc < 0) {
        free(x.file);
        free(x.api);
    }
    return rc;
}

sc_expect *sc_expect_parse(const char *text, size_t len, const char *name, char *err, size_t errlen)
{
    sc_expect *e = calloc(1, sizeof *e);
    size_t cap = 0;
    unsigned lineno = 0;
    if (!name)
        name = "<expectations>";
    if (!e || !(e->name = strdup(name)))
        return fail(e, err, errlen, name, "out of memory");
    if (len > SC_EXPECT_MAX_SIZE)
        return fail(e, err, errlen, name, "larger than %zu bytes", SC_EXPECT_MAX_SIZE);
    for (size_t pos = 0; pos < len;) {
        const char *l = text + pos;
        const char *nl = memchr(l, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - l) : len - pos;
        pos += n + (nl != NULL);
        if (parse_line(e, &cap, l, n, ++lineno, err, errlen) < 0) {
            sc_expect_free(e);
            return NULL;
        }
    }
    return e;
}

sc_expect *sc_expect_load(const char *path, char *err, size_t errlen)
{
    char *buf;
    size_t len;
    if (sc_read_file(path, SC_EXPECT_MAX_SIZE, &buf, &len, err, errlen) < 0)
        return NULL;
    sc_expect *e = sc_expect_parse(buf, len, path, err, errlen);
    free(buf);
    return e;
}

/* Whether the finding's call site fits an expectation's location. */
static int loc_matches(const exp_line *x, const sc_callsite *cs)
{
    const char *file, *fn;
    unsigned line;
    if (!x->file)
        return !cs || sc_callsite_source(cs, &file, &line, &fn) < 0;
    if (!cs)
        return 0;
    for (size_t i = 0; i < cs->npy; i++)
        if (cs->py[i].file && cs->py[i].line == x->line && !strcmp(sc_basename(cs->py[i].file), x->file))
            return 1;
    for (size_t i = 0; i < cs->nframes; i++)
        if (cs->frames[i].file && cs->frames[i].line == x->line &&
            !strcmp(sc_basename(cs->frames[i].file), x->file))
            return 1;
    return 0;
}

static void where_of(const sc_callsite *cs, char *buf, size_t len)
{
    const char *file, *fn;
    unsigned line;
    if (cs && sc_callsite_source(cs, &file, &line, &fn) == 0)
        snprintf(buf, len, "%s:%u", sc_basename(file), line);
    else
        snprintf(buf, len, "-");
}

static void where_exp(const exp_line *x, char *buf, size_t len)
{
    if (x->file)
        snprintf(buf, len, "%s:%u", x->file, x->line);
    else
        snprintf(buf, len, "-");
}

/* Counts a difference; the first one prints the heading. */
static void head(FILE *out, const char *name, size_t *differ)
{
    if (out && !*differ)
        fprintf(out, "streamcheck: the report does not meet %s ('-' expected, '+' found):\n", name);
    ++*differ;
}

int sc_expect_check(const sc_expect *e, const sc_report *r, FILE *out)
{
    unsigned char *claimed = calloc(r->nfindings ? r->nfindings : 1, 1);
    size_t differ = 0, nfind = 0, napi = 0;
    char w[1024];
    if (!claimed)
        return -1;

    for (size_t i = 0; i < e->n; i++) {
        const exp_line *x = &e->v[i];
        uint64_t sum = 0;
        if (x->is_api) {
            napi++;
            for (size_t j = 0; j < r->ncounts; j++)
                if (!strcmp(r->counts[j].api, x->api))
                    sum += r->counts[j].calls;
            if (x->at_least ? sum < x->count : sum != x->count) {
                head(out, e->name, &differ);
                if (out)
                    fprintf(out, "- api %s %" PRIu64 "%s\n+ api %s %" PRIu64 "\n", x->api, x->count,
                            x->at_least ? "+" : "", x->api, sum);
            }
            continue;
        }
        nfind++;
        for (size_t j = 0; j < r->nfindings; j++) {
            const sc_finding *f = &r->findings[j];
            if ((int)f->rule == x->rule && (x->severity < 0 || (int)f->severity == x->severity) &&
                (x->device < 0 || f->device == x->device) &&
                loc_matches(x, sc_report_callsite(r, f->callsite))) {
                sum += f->count;
                claimed[j] = 1;
            }
        }
        if (x->at_least ? sum < x->count : sum != x->count) {
            head(out, e->name, &differ);
            where_exp(x, w, sizeof w);
            if (out) {
                const char *sv = x->severity < 0 ? "" : sc_severity_name((sc_severity)x->severity);
                char dv[32] = "";
                if (x->device >= 0)
                    snprintf(dv, sizeof dv, " device=%d", x->device);
                fprintf(out, "- finding %s %s %" PRIu64 "%s%s%s%s\n", sc_rules[x->rule].id, w, x->count,
                        x->at_least ? "+" : "", *sv ? " " : "", sv, dv);
                if (sum)
                    fprintf(out, "+ finding %s %s %" PRIu64 "%s%s%s\n", sc_rules[x->rule].id, w, sum,
                            *sv ? " " : "", sv, dv);
            }
        }
    }

    /* Findings no line asked for, summed per (rule, location) in report
       order, printed as the lines that would expect them. */
    for (size_t j = 0; j < r->nfindings; j++) {
        if (claimed[j])
            continue;
        const sc_finding *f = &r->findings[j];
        uint64_t sum = 0;
        char wj[1024];
        /* Where the process used several devices, per device. */
        int multi = f->device >= 0 && f->process < r->nprocs && r->procs[f->process].ndevices > 1;
        where_of(sc_report_callsite(r, f->callsite), w, sizeof w);
        for (size_t k = j; k < r->nfindings; k++) {
            if (claimed[k] || r->findings[k].rule != f->rule ||
                (multi && r->findings[k].device != f->device))
                continue;
            where_of(sc_report_callsite(r, r->findings[k].callsite), wj, sizeof wj);
            if (!strcmp(w, wj)) {
                sum += r->findings[k].count;
                claimed[k] = 1;
            }
        }
        head(out, e->name, &differ);
        if (out) {
            char dv[32] = "";
            if (multi)
                snprintf(dv, sizeof dv, " device=%d", f->device);
            fprintf(out, "+ finding %s %s %" PRIu64 "%s\n", sc_rules[f->rule].id, w, sum, dv);
        }
    }
    free(claimed);
    if (out) {
        if (differ)
            fprintf(out, "streamcheck: expectations not met: %zu difference%s\n", differ, differ == 1 ? "" : "s");
        else
            fprintf(out, "streamcheck: expectations met (%zu finding line%s, %zu api line%s)\n", nfind,
                    nfind == 1 ? "" : "s", napi, napi == 1 ? "" : "s");
    }
    return differ ? 1 : 0;
}
