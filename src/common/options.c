/* options.c: STREAMCHECK_* settings from the environment and a config file. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "options.h"
#include "rules.h"
#include "sc.h"

enum sc_opt_type { SC_T_BOOL, SC_T_INT, SC_T_ENUM, SC_T_FORMATS, SC_T_RULES, SC_T_PATH };

static const struct {
    const char *name;
    enum sc_opt_type type;
    const char *def;
    const char *accepts;
    const char *help;
} opt_tab[SC_NOPTS] = {
#define SC_OPT(NAME, TYPE, DEF, ACCEPTS, HELP) [SC_OPT_##NAME] = {#NAME, SC_T_##TYPE, DEF, ACCEPTS, HELP},
#include "options.def"
#undef SC_OPT
};

/* Integer limits and enum values, next to the table they refine. */
static void int_range(sc_opt_id id, long *lo, long *hi)
{
    switch (id) {
    case SC_OPT_STACK_DEPTH: *lo = 1; *hi = 64; break;
    case SC_OPT_PYTHON_DEPTH: *lo = 0; *hi = 32; break;
    case SC_OPT_ALLOC_LOOP_MIN: *lo = 2; *hi = 1000000; break;
    case SC_OPT_SYNC_FREQUENT: *lo = 2; *hi = 1000000000; break;
    case SC_OPT_TOP: *lo = 0; *hi = 1000000; break;
    case SC_OPT_SYMBOLIZE_MS: *lo = 0; *hi = 3600000; break;
    case SC_OPT_WARN_COST_US: *lo = 0; *hi = 3600000000L; break;
    case SC_OPT_WARN_SHARE_BP: *lo = 0; *hi = 10000; break;
    default: *lo = LONG_MIN; *hi = LONG_MAX; break;
    }
}

static const char *const *enum_values(sc_opt_id id)
{
    static const char *const log_levels[] = {"quiet", "warning", "info", "debug", NULL};
    static const char *const redirects[] = {"off", "per-thread", NULL};
    static const char *const methods[] = {"entry", "handle", "stream", NULL};
    switch (id) {
    case SC_OPT_LOG_LEVEL: return log_levels;
    case SC_OPT_REDIRECT: return redirects;
    case SC_OPT_REDIRECT_METHOD: return methods;
    default: return NULL;
    }
}

const char *sc_option_name(sc_opt_id id) { return opt_tab[id].name; }

int sc_option_lookup(const char *name)
{
    if (!strncasecmp(name, "STREAMCHECK_", 12))
        name += 12;
    for (int i = 0; i < SC_NOPTS; i++)
        if (!strcasecmp(name, opt_tab[i].name))
            return i;
    return -1;
}

static int parse_bool(const char *v, int *out)
{
    static const char *const yes[] = {"1", "yes", "true", "on"};
    static const char *const no[] = {"0", "no", "false", "off"};
    for (size_t i = 0; i < SC_ARRAY_LEN(yes); i++) {
        if (!strcasecmp(v, yes[i])) { *out = 1; return 0; }
        if (!strcasecmp(v, no[i])) { *out = 0; return 0; }
    }
    return -1;
}

static int parse_long(const char *v, long *out)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end)
        return -1;
    *out = x;
    return 0;
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

/* Validates and, when o is not NULL, applies one value. */
static int apply(sc_options *o, sc_opt_id id, const char *v, char *err, size_t errlen)
{
    const char *name = opt_tab[id].name;
    int b = 0;
    long l = 0;
    unsigned f = 0;
    unsigned long long bits = 0;
    char why[200];

    switch (opt_tab[id].type) {
    case SC_T_BOOL:
        if (parse_bool(v, &b))
            goto bad;
        break;
    case SC_T_INT: {
        long lo, hi;
        int_range(id, &lo, &hi);
        if (parse_long(v, &l) || l < lo || l > hi)
            goto bad;
        break;
    }
    case SC_T_ENUM: {
        const char *const *vals = enum_values(id);
        for (l = 0; vals[l]; l++)
            if (!strcasecmp(v, vals[l]))
                break;
        if (!vals[l])
            goto bad;
        break;
    }
    case SC_T_FORMATS:
        if (sc_formats_parse(v, &f, why, sizeof why)) {
            snprintf(err, errlen, "STREAMCHECK_%s: %s", name, why);
            return -1;
        }
        break;
    case SC_T_RULES:
        if (*v && sc_rules_parse(v, &bits, why, sizeof why)) {
            snprintf(err, errlen, "STREAMCHECK_%s: %s", name, why);
            return -1;
        }
        break;
    case SC_T_PATH:
        if (strlen(v) >= sizeof o->output)
            goto bad;
        break;
    }
    if (!o)
        return 0;

    switch (id) {
    case SC_OPT_DISABLE: o->disable = b; break;
    case SC_OPT_OUTPUT: snprintf(o->output, sizeof o->output, "%s", v); break;
    case SC_OPT_FORMAT: o->formats = f; break;
    case SC_OPT_STACK_DEPTH: o->stack_depth = (int)l; break;
    case SC_OPT_PYTHON_DEPTH: o->python_depth = (int)l; break;
    case SC_OPT_LOG_LEVEL: o->log_level = (int)l; break;   /* same order as SC_LOG_* */
    case SC_OPT_DUMP_CONFIG: o->dump_config = b; break;
    case SC_OPT_MEASURE: o->measure = b; break;
    case SC_OPT_PROFILE: o->profile = b; break;
    case SC_OPT_REDIRECT: o->redirect = (int)l; break;
    case SC_OPT_REDIRECT_METHOD: o->redirect_method = (int)l; break;
    case SC_OPT_RULES: o->rules = bits; break;
    case SC_OPT_IGNORE: o->ignore = bits; break;
    case SC_OPT_SUPPRESSIONS: snprintf(o->suppressions, sizeof o->suppressions, "%s", v); break;
    case SC_OPT_SOURCE_ROOT: snprintf(o->source_root, sizeof o->source_root, "%s", v); break;
    case SC_OPT_ALLOC_LOOP_MIN: o->alloc_loop_min = l; break;
    case SC_OPT_SYNC_FREQUENT: o->sync_frequent = l; break;
    case SC_OPT_TOP: o->top = l; break;
    case SC_OPT_SYMBOLIZE_MS: o->symbolize_ms = l; break;
    case SC_OPT_WARN_COST_US: o->warn_cost_us = l; break;
    case SC_OPT_WARN_SHARE_BP: o->warn_share_bp = l; break;
    case SC_OPT_STATUS_DIR: snprintf(o->status_dir, sizeof o->status_dir, "%s", v); break;
    case SC_NOPTS: break;
    }
    return 0;
bad:
    snprintf(err, errlen, "STREAMCHECK_%s='%s' is not valid (expected %s)", name, v,
             opt_tab[id].accepts);
    return -1;
}

int sc_option_check(sc_opt_id id, const char *value, char *err, size_t errlen)
{
    return apply(NULL, id, value, err, errlen);
}

static void load_file(sc_options *o, const char *path, void (*warn)(const char *))
{
    static char srcbuf[4096 + 8];
    char msg[600];
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(msg, sizeof msg, "STREAMCHECK_CONFIG: cannot read '%s': %s; using defaults",
                 path, strerror(errno));
        warn(msg);
        return;
    }
    snprintf(srcbuf, sizeof srcbuf, "%s", path);
    char line[8192];
    for (unsigned lineno = 1; fgets(line, sizeof line, f); lineno++) {
        char *s = line, *e;
        while (isspace((unsigned char)*s)) s++;
        if (!*s || *s == '#')
            continue;
        for (e = s + strlen(s); e > s && isspace((unsigned char)e[-1]); e--) ;
        *e = 0;
        char *eq = strchr(s, '=');
        if (!eq) {
            snprintf(msg, sizeof msg, "%s:%u: expected NAME = VALUE", path, lineno);
            warn(msg);
            continue;
        }
        char *k = s, *ke = eq, *v = eq + 1;
        while (ke > k && isspace((unsigned char)ke[-1])) ke--;
        *ke = 0;
        while (isspace((unsigned char)*v)) v++;
        int id = sc_option_lookup(k);
        if (id < 0 || id == SC_OPT_STATUS_DIR) {
            snprintf(msg, sizeof msg, "%s:%u: unknown setting '%s'", path, lineno, k);
            warn(msg);
            continue;
        }
        char err[400];
        if (apply(o, (sc_opt_id)id, v, err, sizeof err)) {
            snprintf(msg, sizeof msg, "%s:%u: %s; line ignored", path, lineno, err);
            warn(msg);
            continue;
        }
        o->source[id] = srcbuf;
    }
    fclose(f);
}

void sc_options_load(sc_options *o, void (*warn)(const char *))
{
    char err[400], msg[600];
    memset(o, 0, sizeof *o);
    for (int i = 0; i < SC_NOPTS; i++) {
        if (apply(o, (sc_opt_id)i, opt_tab[i].def, err, sizeof err))
            warn(err);   /* a broken default is our bug; say so */
        o->source[i] = "default";
    }
    const char *cfg = getenv("STREAMCHECK_CONFIG");
    if (cfg && *cfg)
        load_file(o, cfg, warn);
    for (int i = 0; i < SC_NOPTS; i++) {
        char var[64];
        snprintf(var, sizeof var, "STREAMCHECK_%s", opt_tab[i].name);
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
    static const char *const fmt_names[] = {"text", "json", "sarif", "junit", "trace", "html"};
    static const char *const levels[] = {"quiet", "warning", "info", "debug"};
    for (int i = 0; i < SC_NOPTS; i++) {
        char val[4200] = "";
        switch ((sc_opt_id)i) {
        case SC_OPT_DISABLE: snprintf(val, sizeof val, "%d", o->disable); break;
        case SC_OPT_OUTPUT: snprintf(val, sizeof val, "%s", o->output); break;
        case SC_OPT_FORMAT:
            for (unsigned b = 0; b < SC_ARRAY_LEN(fmt_names); b++)
                if (o->formats & (1u << b))
                    snprintf(val + strlen(val), sizeof val - strlen(val), "%s%s", *val ? "," : "",
                             fmt_names[b]);
            break;
        case SC_OPT_STACK_DEPTH: snprintf(val, sizeof val, "%d", o->stack_depth); break;
        case SC_OPT_PYTHON_DEPTH: snprintf(val, sizeof val, "%d", o->python_depth); break;
        case SC_OPT_LOG_LEVEL: snprintf(val, sizeof val, "%s", levels[o->log_level & 3]); break;
        case SC_OPT_DUMP_CONFIG: snprintf(val, sizeof val, "%d", o->dump_config); break;
        case SC_OPT_MEASURE: snprintf(val, sizeof val, "%d", o->measure); break;
        case SC_OPT_PROFILE: snprintf(val, sizeof val, "%d", o->profile); break;
        case SC_OPT_REDIRECT: snprintf(val, sizeof val, "%s", o->redirect ? "per-thread" : "off"); break;
        case SC_OPT_REDIRECT_METHOD: snprintf(val, sizeof val, "%s", enum_values(SC_OPT_REDIRECT_METHOD)[o->redirect_method]); break;
        case SC_OPT_RULES:
        case SC_OPT_IGNORE: {
            unsigned long long bits = i == SC_OPT_RULES ? o->rules : o->ignore;
            for (int r = 0; r < SC_NRULES; r++)
                if (bits & (1ull << r))
                    snprintf(val + strlen(val), sizeof val - strlen(val), "%s%s", *val ? "," : "",
                             sc_rules[r].id);
            break;
        }
        case SC_OPT_SUPPRESSIONS: snprintf(val, sizeof val, "%s", o->suppressions); break;
        case SC_OPT_SOURCE_ROOT: snprintf(val, sizeof val, "%s", o->source_root); break;
        case SC_OPT_ALLOC_LOOP_MIN: snprintf(val, sizeof val, "%ld", o->alloc_loop_min); break;
        case SC_OPT_SYNC_FREQUENT: snprintf(val, sizeof val, "%ld", o->sync_frequent); break;
        case SC_OPT_TOP: snprintf(val, sizeof val, "%ld", o->top); break;
        case SC_OPT_SYMBOLIZE_MS: snprintf(val, sizeof val, "%ld", o->symbolize_ms); break;
        case SC_OPT_WARN_COST_US: snprintf(val, sizeof val, "%ld", o->warn_cost_us); break;
        case SC_OPT_WARN_SHARE_BP: snprintf(val, sizeof val, "%ld", o->warn_share_bp); break;
        case SC_OPT_STATUS_DIR: snprintf(val, sizeof val, "%s", o->status_dir); break;
        case SC_NOPTS: break;
        }
        fprintf(out, "STREAMCHECK_%-16s = %-24s (%s)\n", opt_tab[i].name, val, o->source[i]);
    }
}
