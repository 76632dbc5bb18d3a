/* html_finding.c: the findings of the HTML report: the ranked table of a
 * process's findings, and a card per finding with the source lines around
 * its call site when the file is readable now, the rule's explanation and
 * fix, its numbers and its call stack. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "html.h"
#include "report.h"

#define SC_HTML_CARDS 200          /* findings of a report shown as cards */
#define SRC_CONTEXT 3              /* source lines shown either side */
#define SRC_MAX_BYTES (8u << 20)   /* larger source files are not read */
#define SRC_MAX_LINE 400           /* characters of a source line shown */

typedef sc_html html;
typedef sc_html_src srcfile;

/* ---------------------------------------------------------- sources --- */

/* Reads a regular file of at most SRC_MAX_BYTES; NULL otherwise.  O_NONBLOCK
   so that a FIFO named in a report does not hang the renderer. */
static char *read_source(const char *path, size_t *len)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 ||
        (uint64_t)st.st_size > SRC_MAX_BYTES) {
        close(fd);
        return NULL;
    }
    size_t cap = (size_t)st.st_size, n = 0;
    char *buf = malloc(cap + 1);
    while (buf && n < cap) {
        ssize_t k = read(fd, buf + n, cap - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        n += (size_t)k;
    }
    close(fd);
    if (!buf)
        return NULL;
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* The text of a source file named by a frame: an absolute path as it is, a
   relative one below the source root (then the current directory). */
static const srcfile *source(html *h, const char *path)
{
    for (size_t i = 0; i < h->nfiles; i++)
        if (!strcmp(h->files[i].path, path))
            return &h->files[i];
    if (h->nfiles == SC_HTML_SRC_FILES)
        return NULL;
    srcfile *f = &h->files[h->nfiles];
    if (!(f->path = strdup(path)))
        return NULL;
    f->text = NULL;
    f->len = 0;
    if (path[0] == '/') {
        f->text = read_source(path, &f->len);
    } else {
        const char *dir = h->root.lex ? h->root.lex : NULL;
        if (dir) {
            size_t n = strlen(dir) + strlen(path) + 2;
            char *full = malloc(n);
            if (full) {
                snprintf(full, n, "%s/%s", dir, path);
                f->text = read_source(full, &f->len);
                free(full);
            }
        }
        if (!f->text)
            f->text = read_source(path, &f->len);
    }
    h->nfiles++;
    return f;
}

void sc_html_sources_free(html *h)
{
    for (size_t i = 0; i < h->nfiles; i++) {
        free(h->files[i].path);
        free(h->files[i].text);
    }
    h->nfiles = 0;
}

/* Lines first..last of a file (1-based) with `line` marked; 0 when the file
   has no such line. */
static int snippet(html *h, const char *path, unsigned line)
{
    const srcfile *f = source(h, path);
    if (!f || !f->text || !line)
        return 0;
    unsigned first = line > SRC_CONTEXT ? line - SRC_CONTEXT : 1, last = line + SRC_CONTEXT;
    /* find the start of line `first` */
    const char *p = f->text, *end = f->text + f->len;
    unsigned at = 1;
    while (at < first && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            return 0;
        p = nl + 1;
        at++;
    }
    /* the marked line must exist */
    const char *q = p;
    for (unsigned k = at; k < line; k++) {
        const char *nl = memchr(q, '\n', (size_t)(end - q));
        if (!nl)
            return 0;
        q = nl + 1;
    }
    if (q >= end)
        return 0;
    FILE *out = h->out;
    fputs("<pre class=\"src\">", out);
    for (; at <= last && p < end; at++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        size_t shown = n;
        if (shown && p[shown - 1] == '\r')
            shown--;
        int cut = shown > SRC_MAX_LINE;
        if (cut) {
            shown = SRC_MAX_LINE;
            while (shown && ((unsigned char)p[shown] & 0xc0) == 0x80)
                shown--;   /* not inside a UTF-8 sequence */
        }
        fprintf(out, "<span class=\"l%s\"><span class=\"n\">%u</span>", at == line ? " hl" : "", at);
        sc_html_escn(out, p, shown);
        if (cut)
            fputs("\xe2\x80\xa6", out);
        fputs("</span>", out);   /* the spans are blocks: no newline between them */
        if (!nl)
            break;
        p = nl + 1;
    }
    fputs("</pre>\n", out);
    return 1;
}

/* ---------------------------------------------------------- frames --- */

static void frame_html(html *h, const sc_frame *f, int shown)
{
    FILE *out = h->out;
    char rb[4096];
    fprintf(out, "<li%s><span class=\"fn\">", shown ? " class=\"shown\"" : "");
    sc_html_esc(out, f->function ? f->function : "??");
    fputs("</span> <span class=\"loc\">", out);
    if (f->file) {
        sc_html_esc(out, sc_srcroot_show(&h->root, f->file, rb, sizeof rb));
        if (f->line)
            fprintf(out, ":%u", f->line);
    } else if (f->module) {
        sc_html_esc(out, sc_basename(f->module));
        fprintf(out, "+0x%" PRIx64, f->offset);
    } else {
        fprintf(out, "0x%" PRIx64, f->offset);
    }
    fputs("</span></li>\n", out);
}

static void pyframe_html(html *h, const sc_pyframe *f, int shown)
{
    FILE *out = h->out;
    char rb[4096];
    fprintf(out, "<li class=\"py%s\"><span class=\"fn\">", shown ? " shown" : "");
    sc_html_esc(out, f->function ? f->function : "??");
    fputs("</span> <span class=\"loc\">", out);
    sc_html_esc(out, f->file ? sc_srcroot_show(&h->root, f->file, rb, sizeof rb) : "<unknown>");
    fprintf(out, ":%u</span> <span class=\"tag\">Python</span></li>\n", f->line);
}

/* A name of at most max bytes (cut at a character boundary, with an
   ellipsis; the whole name in a tooltip). */
static void name_html(FILE *out, const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n <= max) {
        sc_html_esc(out, s);
        return;
    }
    while (max && ((unsigned char)s[max] & 0xc0) == 0x80)
        max--;
    fputs("<span title=\"", out);
    sc_html_esc(out, s);
    fputs("\">", out);
    sc_html_escn(out, s, max);
    fputs("&#8230;</span>", out);
}

/* "file:line in function" of the frame a call site is shown at, as markup;
   a function name longer than max is cut (C++ signatures). */
void sc_html_where(html *h, const sc_callsite *cs, size_t max)
{
    FILE *out = h->out;
    char rb[4096];
    int py;
    long i = cs ? sc_callsite_shown(cs, &py) : -1;
    if (i < 0) {
        fputs("<span class=\"none\">no call site recorded</span>", out);
        return;
    }
    const char *fn = py ? cs->py[i].function : cs->frames[i].function;
    const char *file = py ? cs->py[i].file : cs->frames[i].file;
    unsigned line = py ? cs->py[i].line : cs->frames[i].line;
    fputs("<code class=\"where\">", out);
    if (file) {
        fputs("<span class=\"loc\">", out);
        sc_html_esc_path(out, sc_srcroot_show(&h->root, file, rb, sizeof rb));
        if (line)
            fprintf(out, ":%u", line);
        fputs("</span>", out);
    } else if (!py && cs->frames[i].module) {
        fputs("<span class=\"loc\">", out);
        sc_html_esc(out, sc_basename(cs->frames[i].module));
        fprintf(out, "+0x%" PRIx64 "</span>", cs->frames[i].offset);
    }
    if (fn) {
        fputs(" <span class=\"in\">in</span> <span class=\"fn\">", out);
        name_html(out, fn, max);
        fputs(py ? "()</span>" : "</span>", out);
    }
    fputs("</code>", out);
    char via[1100];
    sc_callsite_via_format(cs, via, sizeof via);   /* the library frame that made the call */
    if (via[0]) {
        fputs(" <code class=\"where via\">", out);
        sc_html_esc(out, via);
        fputs("</code>", out);
    }
}

/* Rows of one process and rule shown at the same place (the PyTorch line
   that launches many kernels, a helper called from two lines) look alike in
   the table; each such row says what tells it apart: its API, when the
   group's differ, and the first of the program's native frames, counted
   from the innermost, where the group's stacks differ. */
typedef struct { uint64_t key; size_t i; } place_key;
typedef struct { long frame; int api; } row_apart;   /* frame: index in the call site's frames, or -1 */

static int cmp_place(const void *a, const void *b)
{
    const place_key *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key ? 1 : (x->i > y->i) - (x->i < y->i);
}

/* The k-th of the program's frames of cs, or NULL. */
static const sc_frame *own_frame(const sc_callsite *cs, size_t k, long *index)
{
    for (size_t i = 0; cs && i < cs->nframes; i++)
        if (sc_frame_is_programs(&cs->frames[i]) && k-- == 0) {
            *index = (long)i;
            return &cs->frames[i];
        }
    return NULL;
}

/* The first k at which the program's frames of two call sites differ
   (one running out counts), or -1 when they never do. */
static long first_difference(const sc_callsite *x, const sc_callsite *y)
{
    for (size_t k = 0; k < 64; k++) {
        long i;
        const sc_frame *a = own_frame(x, k, &i), *b = own_frame(y, k, &i);
        if (!a && !b)
            return -1;
        if (!a || !b || a->offset != b->offset || strcmp(a->module ? a->module : "", b->module ? b->module : ""))
            return (long)k;
    }
    return -1;
}

/* A group of rows shown alike: each names its API when theirs differ, and
   the frame where its stack parts from the last of the others with the
   same API (the deepest first difference: what it takes to tell it from
   every one of them).  Each row is compared with at most 64 others. */
static void set_apart(const sc_report *r, const place_key *g, size_t n, row_apart *out)
{
    const char *api0 = r->findings[g[0].i].api ? r->findings[g[0].i].api : "";
    int api = 0;
    for (size_t m = 1; m < n; m++)
        api |= strcmp(r->findings[g[m].i].api ? r->findings[g[m].i].api : "", api0) != 0;
    for (size_t x = 0; x < n; x++) {
        const sc_finding *fx = &r->findings[g[x].i];
        const sc_callsite *cx = sc_report_callsite(r, fx->callsite);
        long deepest = -1;
        for (size_t y = 0, seen = 0; y < n && seen < 64; y++) {
            const sc_finding *fy = &r->findings[g[y].i];
            if (y == x || (api && strcmp(fx->api ? fx->api : "", fy->api ? fy->api : "")))
                continue;
            seen++;
            long d = first_difference(cx, sc_report_callsite(r, fy->callsite));
            if (d > deepest)
                deepest = d;
        }
        long idx = -1;
        if (deepest >= 0)
            own_frame(cx, (size_t)deepest, &idx);
        out[g[x].i] = (row_apart){idx, api};
    }
}

/* Per finding, what its row says besides its place; NULL without memory. */
static row_apart *rows_apart(const sc_report *r)
{
    size_t n = r->nfindings;
    row_apart *out = n ? malloc(n * sizeof *out) : NULL;
    place_key *k = n ? malloc(n * sizeof *k) : NULL;
    if (!out || !k) {
        free(k);
        free(out);
        return NULL;
    }
    char where[1024];
    for (size_t i = 0; i < n; i++) {
        const sc_finding *f = &r->findings[i];
        const sc_callsite *cs = sc_report_callsite(r, f->callsite);
        out[i] = (row_apart){-1, 0};
        sc_callsite_where(cs, where, sizeof where);
        uint64_t h = 1469598103934665603ull;
        uint64_t parts[2] = {(uint64_t)f->process, (uint64_t)f->rule};
        for (size_t j = 0; j < 2; j++)
            h = (h ^ parts[j]) * 1099511628211ull;
        for (const char *c = where; *c; c++)
            h = (h ^ (unsigned char)*c) * 1099511628211ull;
        k[i] = (place_key){cs ? h : 0, i};
    }
    qsort(k, n, sizeof *k, cmp_place);
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && k[j].key == k[i].key; j++)
            ;
        if (k[i].key && j - i > 1)
            set_apart(r, &k[i], j - i, out);
    }
    free(k);
    return out;
}

static void apart_html(html *h, const sc_finding *f, const sc_callsite *cs, row_apart a)
{
    FILE *out = h->out;
    char rb[4096];
    if (!a.api && a.frame < 0)
        return;
    fputs(" <span class=\"via\">", out);
    if (a.api)
        sc_html_esc(out, f->api ? f->api : "?");
    if (a.frame >= 0) {
        const sc_frame *fr = &cs->frames[a.frame];
        fputs(a.api ? ", via " : "via ", out);
        if (fr->function)
            name_html(out, fr->function, 60);
        fputs(fr->function ? " (" : "", out);
        if (fr->file) {
            sc_html_esc_path(out, sc_srcroot_show(&h->root, fr->file, rb, sizeof rb));
            if (fr->line)
                fprintf(out, ":%u", fr->line);
        } else {
            sc_html_esc(out, sc_basename(fr->module ? fr->module : "?"));
            fprintf(out, "+0x%" PRIx64, fr->offset);
        }
        fputs(fr->function ? ")" : "", out);
    }
    fputs("</span>", out);
}

/* ---------------------------------------------------------- findings --- */

static const char *const cost_how[SC_NCOST_BASES] = {
    [SC_COST_COPY_BLOCKED] = "host time inside the copies, less their wait for earlier work on the "
                             "same stream: the time pinned memory gives back",
    [SC_COST_HOST_BLOCKED] = "host time inside the calls",
    [SC_COST_PENDING_BLOCKED] = "host time inside the calls that found other streams busy (an upper bound)",
    [SC_COST_GPU] = "GPU time lost, from the GPU timeline",
};

static void cost_text(const sc_finding *f, char *buf, size_t len)
{
    if (f->basis == SC_COST_UNMEASURED || (unsigned)f->basis >= SC_NCOST_BASES)
        snprintf(buf, len, "not measured");
    else
        sc_format_ns(f->cost_ns, buf, len);
}

static void rule_html(FILE *out, const sc_finding *f)
{
    const sc_rule_info *ri = &sc_rules[f->rule];
    fprintf(out, "<span class=\"rule\">%s</span> <span class=\"rname\">%s</span>", ri->id, ri->name);
}

static void api_html(FILE *out, const sc_finding *f)
{
    if (f->driver_api && f->api && strcmp(f->api, f->driver_api)) {
        sc_html_esc(out, f->api);
        fputs(" &#8594; ", out);
        sc_html_esc(out, f->driver_api);
    } else {
        sc_html_esc(out, f->api ? f->api : sc_or_unknown(f->driver_api));
    }
}

/* The NVTX range a finding's calls were in, beside its call site. */
static void range_tag(FILE *out, const sc_finding *f)
{
    if (!f->nvtx_range)
        return;
    fputs(" <span class=\"tag\">NVTX range ", out);
    sc_html_esc(out, f->nvtx_range);
    fputs("</span>", out);
}

/* Attributes that tie an element to its finding (the tests match them
   against the JSON report). */
static void finding_attrs(FILE *out, size_t i, const sc_finding *f)
{
    fprintf(out, " id=\"finding-%zu\" data-rule=\"%s\" data-severity=\"%s\" data-process=\"%u\" "
            "data-callsite=\"", i + 1, sc_rules[f->rule].id, sc_severity_name(f->severity), f->process);
    sc_html_esc(out, f->callsite);
    fprintf(out, "\" data-count=\"%" PRIu64 "\" data-api=\"", f->count);
    sc_html_esc(out, f->api ? f->api : "");
    fputc('"', out);
}

/* The ranked table of one process's findings: every finding, each row
   linking to its card (or being the anchor, past the cards). */
static void findings_table(html *h, long process)
{
    FILE *out = h->out;
    const sc_report *r = h->r;
    char b[64];
    fputs("<div class=\"scroll\"><table class=\"findings\">\n<thead><tr><th class=\"num\">#</th><th>Severity</th>"
          "<th>Rule</th><th>Where</th><th class=\"num\">Calls</th><th class=\"num\">Cost</th></tr></thead>\n<tbody>\n",
          out);
    size_t cards = SC_HTML_CARDS;
    row_apart *apart = rows_apart(r);
    for (size_t i = 0; i < r->nfindings; i++) {
        const sc_finding *f = &r->findings[i];
        if (process >= 0 && f->process != (unsigned long)process)
            continue;
        const char *sev = sc_severity_name(f->severity);
        fputs("<tr", out);
        if (i >= cards)
            finding_attrs(out, i, f);
        fprintf(out, " class=\"sev-%s\"><td class=\"num\"><a href=\"#finding-%zu\">%zu</a></td>"
                "<td><span class=\"sev\">%s</span></td><td>", sev, i + 1, i + 1, sev);
        rule_html(out, f);
        fputs("</td><td>", out);
        sc_html_where(h, sc_report_callsite(r, f->callsite), 60);
        range_tag(out, f);
        if (apart)
            apart_html(h, f, sc_report_callsite(r, f->callsite), apart[i]);
        cost_text(f, b, sizeof b);
        fprintf(out, "</td><td class=\"num\">%" PRIu64 "</td><td class=\"num\">%s</td></tr>\n", f->count, b);
    }
    free(apart);
    fputs("</tbody></table></div>\n", out);
}

/* A card's numbers: API, count, cost and how it was estimated, blocked
   time, bytes, the other rules the calls broke, the detail. */
static void card_numbers(html *h, const sc_finding *f)
{
    FILE *out = h->out;
    char b[128];
    fputs("<dl class=\"nums\">\n<dt>API</dt><dd><code>", out);
    api_html(out, f);
    fprintf(out, "</code></dd>\n<dt>Count</dt><dd>%" PRIu64 " call%s", f->count, sc_html_plural(f->count));
    if (f->pending)
        fprintf(out, "; other streams busy at %" PRIu64, f->pending);
    fputs("</dd>\n<dt>Cost</dt><dd>", out);
    if (f->basis == SC_COST_UNMEASURED || (unsigned)f->basis >= SC_NCOST_BASES) {
        fprintf(out, "not seen from the host: other work was pending at %" PRIu64 " of %" PRIu64 " calls; ",
                f->pending, f->count);
        sc_html_esc(out, sc_unmeasured_why(h->r, f));
    } else {
        sc_format_ns(f->cost_ns, b, sizeof b);
        fprintf(out, "<b>%s</b> <span class=\"basis\">(%s)</span>", b, cost_how[f->basis]);
    }
    char t[160];
    if (sc_together_phrase(f, t, sizeof t)) {
        fputs("</dd>\n<dt>Together</dt><dd>", out);
        sc_html_esc(out, t);
    }
    sc_format_ns(f->blocked_ns, b, sizeof b);
    fprintf(out, "</dd>\n<dt>Blocked</dt><dd>%s of host time inside the calls</dd>\n", b);
    if (f->bytes) {
        sc_format_bytes(f->bytes, b, sizeof b);
        fprintf(out, "<dt>Bytes</dt><dd>%s (%" PRIu64 " bytes)</dd>\n", b, f->bytes);
    }
    if (f->also) {
        fputs("<dt>Also</dt><dd>", out);
        int any = 0;
        for (unsigned k = 0; k < SC_NRULES; k++)
            if (f->also & (1u << k)) {
                fprintf(out, "%s<span class=\"rule\">%s</span> %s", any ? ", " : "", sc_rules[k].id,
                        sc_rules[k].name);
                any = 1;
            }
        fputs(" <span class=\"basis\">(the same calls, reported once under the most specific rule)</span></dd>\n",
              out);
    }
    if (f->detail) {
        fputs("<dt>Detail</dt><dd>", out);
        sc_html_esc(out, f->detail);
        fputs("</dd>\n", out);
    }
    fputs("</dl>\n", out);
}

/* The rule's fix, and its explanation and example collapsed. */
static void card_rule(FILE *out, const sc_rule_info *ri)
{
    fputs("<div class=\"fix\"><b>Fix.</b> ", out);
    sc_html_esc(out, ri->advice);
    fputs("</div>\n<details class=\"why\"><summary>Why, and an example</summary>\n<p>", out);
    sc_html_esc(out, ri->detail);
    fputs("</p>\n<div class=\"ba\"><div><div class=\"cap\">Before</div><pre class=\"code bad\">", out);
    sc_html_esc(out, ri->before);
    fputs("</pre></div><div><div class=\"cap\">After</div><pre class=\"code good\">", out);
    sc_html_esc(out, ri->after);
    fputs("</pre></div></div>\n<p class=\"doc\">CUDA documentation: ", out);
    sc_html_esc(out, ri->doc);
    fputs("</p>\n</details>\n", out);
}

/* The call stack, collapsed, the frame the call site is shown at marked. */
static void card_stack(html *h, const sc_callsite *cs)
{
    FILE *out = h->out;
    if (!cs || (!cs->nframes && !cs->npy))
        return;
    int py;
    long at = sc_callsite_shown(cs, &py);
    fprintf(out, "<details class=\"stack\"><summary>Call stack (%zu frame%s, call site <code>", cs->npy + cs->nframes,
            sc_html_plural(cs->npy + cs->nframes));
    sc_html_esc(out, cs->id);
    fputs("</code>)</summary>\n<ol>\n", out);
    for (size_t k = 0; k < cs->npy; k++)
        pyframe_html(h, &cs->py[k], py && (long)k == at);
    for (size_t k = 0; k < cs->nframes; k++)
        frame_html(h, &cs->frames[k], !py && (long)k == at);
    fputs("</ol>\n</details>\n", out);
}

static void card_html(html *h, size_t i)
{
    FILE *out = h->out;
    const sc_report *r = h->r;
    const sc_finding *f = &r->findings[i];
    const sc_rule_info *ri = &sc_rules[f->rule];
    const sc_callsite *cs = sc_report_callsite(r, f->callsite);
    const char *sev = sc_severity_name(f->severity);
    char b[128];

    fputs("<article class=\"finding sev-", out);
    fputs(sev, out);
    fputc('"', out);
    finding_attrs(out, i, f);
    fprintf(out, ">\n<header><a class=\"num\" href=\"#finding-%zu\">#%zu</a> <span class=\"sev\">%s</span> ", i + 1,
            i + 1, sev);
    rule_html(out, f);
    cost_text(f, b, sizeof b);
    fprintf(out, "<span class=\"hcost\">%s</span></header>\n", b);
    fputs("<p class=\"what\">", out);
    sc_html_esc(out, ri->summary);
    fputs("</p>\n<p class=\"at\">at ", out);
    sc_html_where(h, cs, 200);
    if (cs && cs->thread_name) {
        fputs(" <span class=\"tag\">thread ", out);
        sc_html_esc(out, cs->thread_name);
        fputs("</span>", out);
    }
    range_tag(out, f);
    if (r->nprocs > 1 && f->process < r->nprocs) {
        fprintf(out, " <a class=\"tag\" href=\"#process-%u\">process #%u, pid %ld</a>", f->process, f->process,
                r->procs[f->process].pid);
    }
    fputs("</p>\n", out);
    const char *file, *fn;
    unsigned line;
    if (cs && sc_callsite_source(cs, &file, &line, &fn) == 0)
        snippet(h, file, line);
    card_numbers(h, f);
    card_rule(out, ri);
    card_stack(h, cs);
    fputs("</article>\n", out);
}

void sc_html_findings(html *h, long process)
{
    FILE *out = h->out;
    const sc_report *r = h->r;
    size_t n = 0, cards = 0, limit = SC_HTML_CARDS;
    for (size_t i = 0; i < r->nfindings; i++)
        if (process < 0 || r->findings[i].process == (unsigned long)process) {
            n++;
            cards += i < limit;
        }
    fprintf(out, "<h3 id=\"findings-%ld\">Findings <span class=\"n\">(%zu, ranked by cost)</span></h3>\n",
            process < 0 ? 0 : process, n);
    if (!n) {
        const sc_process *p = process >= 0 && (size_t)process < r->nprocs ? &r->procs[process] : NULL;
        fputs("<p class=\"empty\">No findings: ", out);
        if (p && p->calls)
            fprintf(out, "streamcheck saw %" PRIu64 " CUDA driver call%s and none of them serialized the streams.",
                    p->calls, sc_html_plural(p->calls));
        else
            fputs("nothing serialized the streams.", out);
        if (p && p->suppressed)
            fprintf(out, " (%" PRIu64 " suppressed.)", p->suppressed);
        fputs("</p>\n", out);
        return;
    }
    findings_table(h, process);
    if (cards < n)
        fprintf(out, "<p class=\"note\">The first %zu findings of the report are shown in full below; the table "
                "has the other %zu of this process (the JSON report has every detail).</p>\n",
                (size_t)SC_HTML_CARDS, n - cards);
    for (size_t i = 0; i < r->nfindings && i < limit; i++)
        if (process < 0 || r->findings[i].process == (unsigned long)process)
            card_html(h, i);
}

