/* options.c: STREAMCHECK_* settings from the environment and a config file.
 * options.def is the table; each TYPE of it has a parser, a store into its
 * member of sc_options and a printer for --dump-config (opt_types). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "options.h"
#include "rules.h"
#include "sc.h"

/* What each TYPE and FLAG of options.def makes of an sc_option_info. */
#define SC_OPT_KIND_BOOL SC_OPT_T_BOOL, 0, 1, NULL
#define SC_OPT_KIND_INT(min, max) SC_OPT_T_INT, min, max, NULL
#define SC_OPT_KIND_ENUM(...) SC_OPT_T_ENUM, 0, 0, (const char *const[]){__VA_ARGS__, NULL}
#define SC_OPT_KIND_FORMATS SC_OPT_T_FORMATS, 0, 0, NULL
#define SC_OPT_KIND_RULES SC_OPT_T_RULES, 0, 0, NULL
#define SC_OPT_KIND_PATH SC_OPT_T_PATH, 0, 0, NULL
#define SC_OPT_KIND_TEXT SC_OPT_T_PATH, 0, 0, NULL
#define SC_OPT_KIND_WINDOW SC_OPT_T_WINDOW, 0, 0, NULL
#define SC_OPT_CLI_FLAG(flag, arg, help) flag, arg, help, 0
#define SC_OPT_CLI_NOFLAG NULL, NULL, NULL, 0
#define SC_OPT_CLI_INTERNAL NULL, NULL, NULL, 1

const sc_option_info sc_option_table[SC_NOPTS] = {
#define SC_OPT(NAME, MEMBER, TYPE, DEF, ACCEPTS, HELP, FLAG)                                       \
    [SC_OPT_##NAME] = {#NAME, offsetof(sc_options, MEMBER), SC_OPT_KIND_##TYPE, DEF, ACCEPTS, HELP, \
                       SC_OPT_CLI_##FLAG},
#include "options.def"
#undef SC_OPT
};

const char *sc_option_name(sc_opt_id id) { return sc_option_table[id].name; }

int sc_option_lookup(const char *name)
{
    if (!strncasecmp(name, "STREAMCHECK_", 12))
        name += 12;
    for (int i = 0; i < SC_NOPTS; i++)
        if (!strcasecmp(name, sc_option_table[i].name))
            return i;
    return -1;
}

/* Calls fn on each comma-separated, trimmed, non-empty item of s. */
static int each_item(const char *s, int (*fn)(const char *item, void *arg), void *arg)
{
    char buf[256];
    while (*s) {
        const char *comma = strchr(s, ',');
        size_t n = comma ? (size_t)(comma - s) : strlen(s);
        while (n && isspace((unsigned char)*s)) { s++; n--; }
        while (n && isspace((unsigned char)s[n - 1])) n--;
        if (n >= sizeof buf)
            return -1;
        memcpy(buf, s, n);
        buf[n] = 0;
        if (n && fn(buf, arg))
            return -1;
        s += n;
        while (*s && *s != ',') s++;
        if (*s == ',') s++;
    }
    return 0;
}

struct item_ctx { unsigned long long bits; char bad[256]; };   /* bad: as long as each_item's items */

static int rule_item(const char *item, void *arg)
{
    struct item_ctx *c = arg;
    int r = sc_rule_lookup(item);
    if (r < 0) {
        snprintf(c->bad, sizeof c->bad, "%s", item);
        return -1;
    }
    c->bits |= 1ull << r;
    return 0;
}

int sc_rules_parse(const char *s, unsigned long long *out, char *err, size_t errlen)
{
    struct item_ctx c = {0, ""};
    if (each_item(s, rule_item, &c)) {
        snprintf(err, errlen, "'%s' is not a rule id or name (see streamcheck --list-rules)",
                 c.bad[0] ? c.bad : s);
        return -1;
    }
    *out = c.bits;
    return 0;
}

/* ------------------------------------------------------------ types --- */
/* A parsed value: n for BOOL, INT and ENUM, bits for FORMATS and RULES,
   w for WINDOW. */
typedef struct parsed {
    long n;
    unsigned long long bits;
    sc_opt_window w;
} parsed;

/* Each parser returns 0, or -1 with a reason of its own in why (the caller
   says "not valid (expected ACCEPTS)" when it leaves why empty). */
static int parse_bool(const sc_option_info *t, const char *v, parsed *out, char *why, size_t len)
{
    static const char *const yes[] = {"1", "yes", "true", "on"};
    static const char *const no[] = {"0", "no", "false", "off"};
    (void)t, (void)why, (void)len;
    for (size_t i = 0; i < SC_ARRAY_LEN(yes); i++) {
        if (!strcasecmp(v, yes[i])) { out->n = 1; return 0; }
        if (!strcasecmp(v, no[i])) { out->n = 0; return 0; }
    }
    return -1;
}

static int parse_int(const sc_option_info *t, const char *v, parsed *out, char *why, size_t len)
{
    char *end;
    (void)why, (void)len;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < t->min || x > t->max)
        return -1;
    out->n = x;
    return 0;
}

static int parse_enum(const sc_option_info *t, const char *v, parsed *out, char *why, size_t len)
{
    (void)why, (void)len;
    for (long i = 0; t->values[i]; i++)
        if (!strcasecmp(v, t->values[i])) {
            out->n = i;
            return 0;
        }
    return -1;
}

static int parse_format_list(const sc_option_info *t, const char *v, parsed *out, char *why, size_t len)
{
    unsigned f;
    (void)t;
    if (sc_formats_parse(v, &f, why, len))
        return -1;
    out->bits = f;
    return 0;
}

static int parse_rule_list(const sc_option_info *t, const char *v, parsed *out, char *why, size_t len)
{
    (void)t;
    out->bits = 0;
    return *v && sc_rules_parse(v, &out->bits, why, len) ? -1 : 0;
}

static int parse_path(const sc_option_info *t, const char *v, parsed *out, char *why, size_t len)
{
    (void)t, (void)out, (void)why, (void)len;
    return strlen(v) < SC_OPT_PATH_MAX ? 0 : -1;
}

/* START:LENGTH seconds (decimals), or START: (or START) to the end; START
   at least 0, LENGTH above 0, both below a year; empty for none. */
static int parse_window(const sc_option_info *t, const char *v, parsed *out, char *why, size_t len)
{
    (void)t, (void)why, (void)len;
    char *end;
    out->w = (sc_opt_window){0, 0, 0};
    if (!*v)
        return 0;
    errno = 0;
    double a = strtod(v, &end), b = 0;
    if (errno || end == v || !(a >= 0 && a < 3.2e7) || (*end && *end != ':'))
        return -1;
    if (*end == ':' && end[1]) {
        const char *l = end + 1;
        b = strtod(l, &end);
        if (errno || end == l || *end || !(b > 0 && b < 3.2e7))
            return -1;
    }
    out->w = (sc_opt_window){1, a, b};
    return 0;
}

/* Stores a parsed value (v as given, for PATH) into the member at m. */
static void store_int(void *m, const char *v, const parsed *x) { (void)v; *(int *)m = (int)x->n; }
static void store_long(void *m, const char *v, const parsed *x) { (void)v; *(long *)m = x->n; }
static void store_unsigned(void *m, const char *v, const parsed *x) { (void)v; *(unsigned *)m = (unsigned)x->bits; }
static void store_bits(void *m, const char *v, const parsed *x) { (void)v; *(unsigned long long *)m = x->bits; }
static void store_path(void *m, const char *v, const parsed *x) { (void)x; snprintf(m, SC_OPT_PATH_MAX, "%s", v); }
static void store_window(void *m, const char *v, const parsed *x) { (void)v; *(sc_opt_window *)m = x->w; }

/* Prints the member at m as --dump-config shows it. */
static void show_int(const sc_option_info *t, const void *m, char *buf, size_t len)
{
    (void)t;
    snprintf(buf, len, "%d", *(const int *)m);
}

static void show_long(const sc_option_info *t, const void *m, char *buf, size_t len)
{
    (void)t;
    snprintf(buf, len, "%ld", *(const long *)m);
}

static void show_enum(const sc_option_info *t, const void *m, char *buf, size_t len)
{
    snprintf(buf, len, "%s", t->values[*(const int *)m]);
}

/* name(i) for each bit i of bits below n, comma-separated. */
static void show_list(unsigned long long bits, const char *(*name)(unsigned i), unsigned n, char *buf, size_t len)
{
    buf[0] = 0;
    for (unsigned i = 0; i < n; i++)
        if (bits & (1ull << i))
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", *buf ? "," : "", name(i));
}

/* Bit i of sc_format is sc_formats[i] (formats.def lists them by bit). */

static const char *format_name(unsigned i) { return sc_formats[i].name; }

static const char *rule_id(unsigned i) { return sc_rules[i].id; }

static void show_formats(const sc_option_info *t, const void *m, char *buf, size_t len)
{
    (void)t;
    show_list(*(const unsigned *)m, format_name, SC_NFORMATS, buf, len);
}

static void show_rules(const sc_option_info *t, const void *m, char *buf, size_t len)
{
    (void)t;
    show_list(*(const unsigned long long *)m, rule_id, SC_NRULES, buf, len);
}

static void show_path(const sc_option_info *t, const void *m, char *buf, size_t len)
{
    (void)t;
    snprintf(buf, len, "%s", (const char *)m);
}

static void show_window(const sc_option_info *t, const void *m, char *buf, size_t len)
{
    const sc_opt_window *w = m;
    (void)t;
    if (!w->set)
        snprintf(buf, len, "%s", "");
    else if (w->length > 0)
        snprintf(buf, len, "%g:%g", w->start, w->length);
    else
        snprintf(buf, len, "%g:", w->start);
}

static const struct opt_type {
    int (*parse)(const sc_option_info *t, const char *v, parsed *out, char *why, size_t len);
    void (*store)(void *m, const char *v, const parsed *x);
    void (*show)(const sc_option_info *t, const void *m, char *buf, size_t len);
} opt_types[] = {
    [SC_OPT_T_BOOL] = {parse_bool, store_int, show_int},
    [SC_OPT_T_INT] = {parse_int, store_long, show_long},
    [SC_OPT_T_ENUM] = {parse_enum, store_int, show_enum},
    [SC_OPT_T_FORMATS] = {parse_format_list, store_unsigned, show_formats},
    [SC_OPT_T_RULES] = {parse_rule_list, store_bits, show_rules},
    [SC_OPT_T_PATH] = {parse_path, store_path, show_path},
    [SC_OPT_T_WINDOW] = {parse_window, store_window, show_window},
};

/* Validates and, when o is not NULL, applies one value. */
static int apply(sc_options *o, sc_opt_id id, const char *v, char *err, size_t errlen)
{
    const sc_option_info *t = &sc_option_table[id];
    const struct opt_type *ty = &opt_types[t->type];
    char why[200] = "";
    parsed x = {0, 0, {0, 0, 0}};
    if (ty->parse(t, v, &x, why, sizeof why)) {
        if (why[0])
            snprintf(err, errlen, "STREAMCHECK_%s: %s", t->name, why);
        else
            snprintf(err, errlen, "STREAMCHECK_%s='%s' is not valid (expected %s)", t->name, v, t->accepts);
        return -1;
    }
    if (o)
        ty->store((char *)o + t->offset, v, &x);
    return 0;
}

int sc_option_check(sc_opt_id id, const char *value, char *err, size_t errlen)
{
    return apply(NULL, id, value, err, errlen);
}

/* A settings file is a few lines of text.  What is read is bounded, and a
   file that is not one is refused whole instead of read a line at a time:
   /dev/zero never ends (the program hung before main), a FIFO blocks, and
   a binary file made a warning per line (3,905 for 1 MB). */
#define SC_CONFIG_MAX (64 * 1024)
#define SC_CONFIG_WARNINGS 5   /* problems said one by one; the rest in one line */

/* The file's text, NUL-ended, or NULL after a warning. */
static char *read_config(const char *path, void (*warn)(const char *))
{
    char msg[600];
    struct stat st;
    char *text = NULL;
    size_t n = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(msg, sizeof msg, "STREAMCHECK_CONFIG: cannot read '%s': %s; using defaults", path, strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        snprintf(msg, sizeof msg, "STREAMCHECK_CONFIG: '%s' is not a regular file; using defaults", path);
    } else if (!(text = malloc(SC_CONFIG_MAX + 1))) {
        snprintf(msg, sizeof msg, "STREAMCHECK_CONFIG: cannot read '%s': %s; using defaults", path, strerror(ENOMEM));
    } else {
        ssize_t k;
        while (n <= SC_CONFIG_MAX && (k = read(fd, text + n, SC_CONFIG_MAX + 1 - n)) != 0) {
            if (k < 0 && errno != EINTR)
                break;
            n += k > 0 ? (size_t)k : 0;
        }
        const char *nul = memchr(text, 0, n);
        if (n > SC_CONFIG_MAX)
            snprintf(msg, sizeof msg, "STREAMCHECK_CONFIG: '%s' is larger than %d KiB, not a settings file; "
                     "using defaults", path, SC_CONFIG_MAX / 1024);
        else if (nul)
            snprintf(msg, sizeof msg, "STREAMCHECK_CONFIG: '%s' is not a text file (a NUL byte at offset %zu); "
                     "using defaults", path, (size_t)(nul - text));
        else
            msg[0] = 0;
    }
    if (fd >= 0)
        close(fd);
    if (text && !msg[0]) {
        text[n] = 0;
        return text;
    }
    free(text);
    warn(msg);
    return NULL;
}

/* One line of a settings file, trimmed and not a comment: applied, or 0
   with the problem in msg. */
static int config_line(sc_options *o, const char *path, unsigned lineno, char *s, const char *src, char *msg,
                       size_t len)
{
    char *eq = strchr(s, '=');
    if (!eq) {
        snprintf(msg, len, "%s:%u: expected NAME = VALUE", path, lineno);
        return 0;
    }
    char *k = s, *ke = eq, *v = eq + 1;
    while (ke > k && isspace((unsigned char)ke[-1])) ke--;
    *ke = 0;
    while (isspace((unsigned char)*v)) v++;
    int id = sc_option_lookup(k);
    if (id < 0 || sc_option_table[id].internal) {
        snprintf(msg, len, "%s:%u: unknown setting '%.200s'", path, lineno, k);
        return 0;
    }
    char err[400];
    if (apply(o, (sc_opt_id)id, v, err, sizeof err)) {
        snprintf(msg, len, "%s:%u: %s; line ignored", path, lineno, err);
        return 0;
    }
    o->source[id] = src;
    return 1;
}

static void load_file(sc_options *o, const char *path, void (*warn)(const char *))
{
    static char srcbuf[4096 + 8];
    char msg[700];
    char *text = read_config(path, warn);
    if (!text)
        return;
    snprintf(srcbuf, sizeof srcbuf, "%s", path);
    unsigned problems = 0, lineno = 1;
    for (char *line = text, *next; line; line = next, lineno++) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        char *s = line, *e;
        while (isspace((unsigned char)*s)) s++;
        if (!*s || *s == '#')
            continue;
        for (e = s + strlen(s); e > s && isspace((unsigned char)e[-1]); e--) ;
        *e = 0;
        if (!config_line(o, path, lineno, s, srcbuf, msg, sizeof msg) && ++problems <= SC_CONFIG_WARNINGS)
            warn(msg);
    }
    if (problems > SC_CONFIG_WARNINGS) {
        snprintf(msg, sizeof msg, "%s: %u more lines were not understood (not shown); they were ignored", path,
                 problems - SC_CONFIG_WARNINGS);
        warn(msg);
    }
    free(text);
}

void sc_options_load(sc_options *o, void (*warn)(const char *))
{
    char err[400], msg[600];
    memset(o, 0, sizeof *o);
    for (int i = 0; i < SC_NOPTS; i++) {
        if (apply(o, (sc_opt_id)i, sc_option_table[i].def, err, sizeof err))
            warn(err);   /* a broken default is our bug; say so */
        o->source[i] = "default";
    }
    const char *cfg = getenv("STREAMCHECK_CONFIG");
    if (cfg && *cfg)
        load_file(o, cfg, warn);
    for (int i = 0; i < SC_NOPTS; i++) {
        char var[64];
        snprintf(var, sizeof var, "STREAMCHECK_%s", sc_option_table[i].name);
        const char *v = getenv(var);
        if (!v)
            continue;
        if (apply(o, (sc_opt_id)i, v, err, sizeof err)) {
            snprintf(msg, sizeof msg, "%s; using %s", err,
                     strcmp(o->source[i], "default") ? o->source[i] : "the default");
            warn(msg);
            continue;
        }
        o->source[i] = "environment";
    }
}

void sc_options_dump(const sc_options *o, FILE *out)
{
    for (int i = 0; i < SC_NOPTS; i++) {
        const sc_option_info *t = &sc_option_table[i];
        char val[SC_OPT_PATH_MAX + 100];
        opt_types[t->type].show(t, (const char *)o + t->offset, val, sizeof val);
        fprintf(out, "STREAMCHECK_%-16s = %-24s (%s)\n", t->name, val, o->source[i]);
    }
}
