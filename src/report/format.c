/* format.c: the small formatting helpers every renderer shares -- times,
 * sizes, frames and call sites as one line, a finding's numbers, the GPU
 * line -- and the one-line error messages of the parsers.  No locale is
 * involved: the host program may have set LC_NUMERIC. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "report.h"

void sc_one_line(char *s)
{
    for (; s && *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
}

void sc_parse_error(char *err, size_t errlen, const char *where, const char *fmt, va_list ap)
{
    if (!err || !errlen)
        return;
    int n = snprintf(err, errlen, "%s: ", where);
    if (n >= 0 && (size_t)n < errlen)
        vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
    sc_one_line(err);
}

int sc_callsite_source(const sc_callsite *cs, const char **file, unsigned *line,
                       const char **function)
{
    int py;
    long i = sc_callsite_shown(cs, &py);
    if (i < 0)
        return -1;
    if (py && cs->py[i].file && cs->py[i].line) {
        *file = cs->py[i].file;
        *line = cs->py[i].line;
        *function = cs->py[i].function;
        return 0;
    }
    if (!py && cs->frames[i].file && cs->frames[i].line) {
        *file = cs->frames[i].file;
        *line = cs->frames[i].line;
        *function = cs->frames[i].function;
        return 0;
    }
    return -1;
}

void sc_frame_format_in(const sc_frame *f, const sc_srcroot *root, char *buf, size_t len)
{
    char where[512], rb[512];
    const char *file = f->file ? sc_srcroot_show(root, f->file, rb, sizeof rb) : NULL;
    if (file && f->line)
        snprintf(where, sizeof where, "%s:%u", file, f->line);
    else if (file)
        snprintf(where, sizeof where, "%s", file);
    else if (f->module)
        snprintf(where, sizeof where, "%s+0x%" PRIx64, sc_basename(f->module), f->offset);
    else
        snprintf(where, sizeof where, "0x%" PRIx64, f->offset);
    if (f->function)
        snprintf(buf, len, "%s (%s)", f->function, where);
    else
        snprintf(buf, len, "%s", where);
}

void sc_frame_format(const sc_frame *f, char *buf, size_t len)
{
    sc_frame_format_in(f, NULL, buf, len);
}

void sc_pyframe_format_in(const sc_pyframe *f, const sc_srcroot *root, char *buf, size_t len)
{
    char rb[512];
    const char *file = f->file ? sc_srcroot_show(root, f->file, rb, sizeof rb) : "<unknown>";
    if (f->function)
        snprintf(buf, len, "%s:%u in %s()", file, f->line, f->function);
    else
        snprintf(buf, len, "%s:%u", file, f->line);
}

void sc_pyframe_format(const sc_pyframe *f, char *buf, size_t len)
{
    sc_pyframe_format_in(f, NULL, buf, len);
}

/* What a finding costs, as one clause: what its fix saves, or the cost and
   how it was estimated, or why there is none. */
static void cost_clause(const sc_finding *f, char *buf, size_t len)
{
    char c[32];
    sc_format_ns(f->cost_ns, c, sizeof c);
    char t[160];
    if (sc_cost_is_replay(f->basis) && sc_together_phrase(f, t, sizeof t))
        snprintf(buf, len, "fixing this saves %s (predicted by replaying the run with the fix, %s); %s", c,
                 sc_cost_basis_name(f->basis), t);
    else if (sc_cost_is_replay(f->basis))
        snprintf(buf, len, "fixing this saves %s (predicted by replaying the run with the fix, %s)", c,
                 sc_cost_basis_name(f->basis));
    else if (f->basis == SC_COST_UNMEASURED)
        snprintf(buf, len, "cost not seen from the host (unmeasured)");
    else
        snprintf(buf, len, "cost %s (%s)", c, sc_cost_basis_name(f->basis));
}

int sc_together_phrase(const sc_finding *f, char *buf, size_t len)
{
    char t[32];
    if (f->together_n < 2) {
        if (len)
            buf[0] = '\0';
        return 0;
    }
    sc_format_ns(f->together_ns, t, sizeof t);
    snprintf(buf, len, "fixed with the %" PRIu64 " other finding%s whose fix is the same, they save %s at once, "
             "not their savings added up", f->together_n - 1, f->together_n > 2 ? "s" : "", t);
    return 1;
}

void sc_finding_line(const sc_finding *f, char *buf, size_t len)
{
    char blocked[32], cost[384], bytes[32] = "";
    sc_format_ns(f->blocked_ns, blocked, sizeof blocked);
    cost_clause(f, cost, sizeof cost);
    if (f->bytes) {
        bytes[0] = ',';
        bytes[1] = ' ';
        sc_format_bytes(f->bytes, bytes + 2, sizeof bytes - 2);
    }
    const char *api = f->api ? f->api : f->driver_api ? f->driver_api : "unknown api";
    int two = f->api && f->driver_api && strcmp(f->api, f->driver_api);
    snprintf(buf, len,
             "%s%s%s: %" PRIu64 " call%s, host blocked %s, other streams busy at %" PRIu64 " of %" PRIu64
             ", %s%s",
             api, two ? " -> " : "", two ? f->driver_api : "", f->count, f->count == 1 ? "" : "s",
             blocked, f->pending, f->count, cost, bytes);
}

void sc_callsite_via_format(const sc_callsite *cs, char *buf, size_t len)
{
    long v = sc_callsite_via(cs);
    buf[0] = '\0';
    if (v < 0)
        return;
    sc_pyframe f = cs->py[v];
    f.file = (char *)sc_pyframe_libpath(f.file);
    char b[1024];
    sc_pyframe_format(&f, b, sizeof b);
    snprintf(buf, len, "via %s", b);
}

/* The shown frame, and the library frame beside it. */
void sc_callsite_where_in(const sc_callsite *cs, const sc_srcroot *root, char *buf, size_t len)
{
    int py;
    long i = sc_callsite_shown(cs, &py);
    char via[1100];
    if (i < 0) {
        snprintf(buf, len, "no call site");
    } else if (py) {
        sc_pyframe_format_in(&cs->py[i], root, buf, len);
        sc_callsite_via_format(cs, via, sizeof via);
        size_t n = strlen(buf);
        if (via[0] && n < len)
            snprintf(buf + n, len - n, " %s", via);
    } else {
        sc_frame_format_in(&cs->frames[i], root, buf, len);
    }
}

void sc_callsite_where(const sc_callsite *cs, char *buf, size_t len)
{
    sc_callsite_where_in(cs, NULL, buf, len);
}

/* v / unit with three decimals, rounded half up, without floating point
   (printf's %f follows LC_NUMERIC, which the host program may have set). */
static void fixed3(uint64_t v, uint64_t unit, const char *suffix, char *buf, size_t len)
{
    uint64_t d = unit / 1000;
    uint64_t q = v / d + ((v % d) >= d - d / 2);
    snprintf(buf, len, "%" PRIu64 ".%03u %s", q / 1000, (unsigned)(q % 1000), suffix);
}

void sc_format_time(double t, char *buf, size_t len)
{
    struct tm tm;
    time_t s = (time_t)(t > 0 && t < 1e12 ? t : 0);
    if (s <= 0 || !gmtime_r(&s, &tm)) {
        snprintf(buf, len, "unknown");
        return;
    }
    strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

void sc_format_driver(int v, char *buf, size_t len)
{
    if (v <= 0)
        snprintf(buf, len, "unknown");
    else
        snprintf(buf, len, "%d.%d", v / 1000, (v % 1000) / 10);
}

const char *sc_or_unknown(const char *s)
{
    return s && *s ? s : "unknown";
}

void sc_format_ns(uint64_t ns, char *buf, size_t len)
{
    if (ns < 1000)
        snprintf(buf, len, "%" PRIu64 " ns", ns);
    else if (ns < 1000000)
        fixed3(ns, 1000, "us", buf, len);
    else if (ns < 1000000000)
        fixed3(ns, 1000000, "ms", buf, len);
    else
        fixed3(ns, 1000000000, "s", buf, len);
}

void sc_format_bytes(uint64_t b, char *buf, size_t len)
{
    static const char *const unit[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (b < 1024) {
        snprintf(buf, len, "%" PRIu64 " B", b);
        return;
    }
    int u = 0;
    uint64_t div = 1024;
    while (u < 5 && b / div >= 1024) {
        div *= 1024;
        u++;
    }
    uint64_t whole = b / div, rem = b % div;
    /* rem < div <= 2^60, so rem * 10 does not overflow below EiB; above,
       scale down first. */
    uint64_t tenth = div > (UINT64_MAX / 10) ? (rem / (div / 10)) : (rem * 10 + div / 2) / div;
    if (tenth >= 10) {
        whole++;
        tenth = 0;
    }
    snprintf(buf, len, "%" PRIu64 ".%u %s", whole, (unsigned)tenth, unit[u]);
}

/* ------------------------------------------------------- output --- */

int sc_render_done(FILE *out)
{
    if (!ferror(out))
        return 0;
    if (!errno)
        errno = EIO;
    return -1;
}

static void pct(uint64_t part, uint64_t whole, char *buf, size_t len)
{
    /* tenths of a percent, integer arithmetic: no locale */
    uint64_t t = whole ? (part * 1000 + whole / 2) / whole : 0;
    snprintf(buf, len, "%" PRIu64 ".%u%%", t / 10, (unsigned)(t % 10));
}

void sc_gpu_line(const sc_gpu *g, char *buf, size_t len)
{
    char span[32], busy[32], ov[32], idle[32], pb[32], po[32], pi[32], cc[32], kk[32];
    sc_format_ns(g->span_ns, span, sizeof span);
    sc_format_ns(g->busy_ns, busy, sizeof busy);
    sc_format_ns(g->overlap_ns, ov, sizeof ov);
    sc_format_ns(g->idle_ns, idle, sizeof idle);
    sc_format_ns(g->overlap_compute_copy_ns, cc, sizeof cc);
    sc_format_ns(g->overlap_compute_compute_ns, kk, sizeof kk);
    pct(g->busy_ns, g->span_ns, pb, sizeof pb);
    pct(g->overlap_ns, g->span_ns, po, sizeof po);
    pct(g->idle_ns, g->span_ns, pi, sizeof pi);
    int n = snprintf(buf, len, "GPU: span %s, busy %s (%s), overlap %s (%s; compute+copy %s, "
                     "compute+compute %s), idle %s (%s); %" PRIu64 " operations",
                     span, busy, pb, ov, po, cc, kk, idle, pi, g->ops);
    if (n > 0 && (size_t)n < len && g->ops_kept < g->ops)
        n += snprintf(buf + n, len - (size_t)n, " (the timeline keeps the first %" PRIu64 ")", g->ops_kept);
    if (n > 0 && (size_t)n < len && g->dropped)
        n += snprintf(buf + n, len - (size_t)n, "; CUPTI dropped %" PRIu64 " records: numbers are low",
                      g->dropped);
    if (n > 0 && (size_t)n < len && g->windowed) {
        char a[32], b[32];
        sc_format_ns(g->window_start_ns, a, sizeof a);
        sc_format_ns(g->window_end_ns, b, sizeof b);
        n += snprintf(buf + n, len - (size_t)n, "; measured in a window of the run, from %s to %s: each "
                      "finding's GPU cost scaled from its calls there to all of them", a, b);
    }
    if (n > 0 && (size_t)n < len && g->handed_over) {
        char at[32];
        sc_format_ns(g->handed_over_ns, at, sizeof at);
        snprintf(buf + n, len - (size_t)n, "; measured for the first %s of the run only: the program's own "
                 "profiler took CUPTI then", at);
    }
}

/* Seconds as integer microseconds, rounded; the JSON carries 6 decimals. */
int64_t sc_seconds_to_micro(double t)
{
    double us = t * 1e6;
    if (us != us) /* NaN */
        return 0;
    if (us >= 9.2e18)
        return INT64_MAX;
    if (us <= -9.2e18)
        return INT64_MIN;
    return (int64_t)(us < 0 ? us - 0.5 : us + 0.5);
}

/* ----------------------------------------------- the run's summary --- */
/* The header's facts in words, shared by the text report and the
   Markdown summary (report_text.c, report_md.c). */

void sc_format_share(uint64_t part, uint64_t whole, char *buf, size_t len)
{
    /* hundredths of a percent, in integers */
    unsigned __int128 bp = whole ? (unsigned __int128)part * 10000 / whole : 0;
    uint64_t v = bp > 100000000 ? 100000000 : (uint64_t)bp;
    snprintf(buf, len, "%" PRIu64 ".%02u%%", v / 100, (unsigned)(v % 100));
}

int sc_report_cost_format(const sc_report *r, char *buf, size_t len)
{
    uint64_t e = 0, w = 0, run = 0;
    const char *of = NULL;
    char b[64], s[32];
    sc_report_totals(r, &e, &w, NULL);
    if (!e && !w) {
        snprintf(buf, len, "none: no finding is worth fixing in this run");
        return -1;
    }
    for (size_t i = 0; i < r->nprocs; i++) {   /* what the shares are of, if all processes say the same */
        const char *name = sc_process_window_name(&r->procs[i]);
        run += sc_process_window_ns(&r->procs[i]);
        of = !i || (of && !strcmp(of, name)) ? name : NULL;
    }
    uint64_t cost = sc_report_cost(r);
    sc_format_ns(cost, b, sizeof b);
    if (!run) {
        snprintf(buf, len, "%s in %" PRIu64 " warning%s", b, w + e, w + e == 1 ? "" : "s");
        return 0;
    }
    sc_format_share(cost, run, s, sizeof s);
    snprintf(buf, len, "%s (%s of %s) in %" PRIu64 " warning%s%s", b, s, of ? of : "the processes' windows",
             w + e, w + e == 1 ? "" : "s", r->nprocs > 1 ? " (all processes)" : "");
    return 0;
}

int sc_process_fixed_format(const sc_process *p, char *buf, size_t len)
{
    char f[64];
    buf[0] = '\0';
    if (!p->window_ns)
        return -1;
    uint64_t bp = p->fixed_ns < p->model_ns ? (p->model_ns - p->fixed_ns) * 10000 / p->model_ns : 0;
    if (bp < 10)   /* 0.1% or more: less is no prediction worth a line */
        return -1;
    sc_format_ns(p->fixed_ns, f, sizeof f);
    /* beside a steady loop, whose shares the findings give, what that saving
       is of it (a long set-up makes the window's share small) */
    char of_loop[128] = "";
    uint64_t saved = p->model_ns - p->fixed_ns;
    if (p->loop_ns && !p->range && saved <= p->loop_ns) {
        char s[64];
        uint64_t lbp = saved * 10000 / p->loop_ns;
        sc_format_ns(saved, s, sizeof s);
        snprintf(of_loop, sizeof of_loop, "; %s, %" PRIu64 ".%02u%% of the steady loop", s, lbp / 100,
                 (unsigned)(lbp % 100));
    }
    snprintf(buf, len, "%s predicted (%" PRIu64 ".%02u%% less%s) with every priced finding fixed", f, bp / 100,
             (unsigned)(bp % 100), of_loop);
    return 0;
}

size_t sc_report_distinct_each(const sc_report *r, const char *(*get)(const sc_process *), size_t max,
                               void (*each)(const char *v, size_t k, void *arg), void *arg)
{
    size_t total = 0;
    for (size_t i = 0; i < r->nprocs; i++) {
        const char *v = sc_or_unknown(get(&r->procs[i]));
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(sc_or_unknown(get(&r->procs[j])), v);
        if (seen)
            continue;
        if (total < max)
            each(v, total, arg);
        total++;
    }
    return total;
}

typedef struct strbuf {
    char *buf;
    size_t len, used;
} strbuf;

static void append_value(const char *v, size_t k, void *arg)
{
    strbuf *b = arg;
    if (b->used >= b->len)
        return;
    int n = snprintf(b->buf + b->used, b->len - b->used, "%s%s", k ? ", " : "", v);
    if (n > 0)
        b->used += (size_t)n;
}

void sc_report_distinct(const sc_report *r, const char *(*get)(const sc_process *), char *buf, size_t len)
{
    strbuf b = {buf, len, 0};
    buf[0] = '\0';
    size_t total = sc_report_distinct_each(r, get, 4, append_value, &b);
    if (total > 4 && b.used < len)
        snprintf(buf + b.used, len - b.used, ", ... (%zu in all)", total);
}
