/* report_html.c: the report as one self-contained HTML page, for a person
 * with a browser and no network (a cluster's shared filesystem).
 *
 * Everything is inside the file: CSS in a <style> element, SVG inline, one
 * small script (the timeline's zoom and tooltips, opening the collapsed
 * parts before printing) in a CDATA section.  There is no URL in it but
 * fragment links (#finding-3).
 * The markup is also well-formed XML (void elements closed, attributes
 * quoted, only the XML entities), so XHTML tools and strict parsers read it.
 *
 * Layout: the run summary (program, devices, run time, the estimated cost of
 * the findings); for several processes a table of them; then one section per
 * process with its findings, ranked as the model is (sc_report_sort): a
 * table of all of them, then a card per finding with the source lines
 * around its call site when the file is readable now, the rule's
 * explanation and fix, its numbers and its call stack (html_finding.c).
 * The first SC_HTML_CARDS findings of the report get cards; the table row
 * is the anchor of the others.  A measured process also gets its GPU
 * numbers and timeline (html_gpu.c, html_timeline.c).
 *
 * Program text (paths, command lines, function names, source lines) may hold
 * anything: every string goes through sc_html_esc(), which escapes markup and
 * replaces what neither HTML nor XML can carry with U+FFFD. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "html_assets.h"   /* generated from html/ by html/embed.sh */
#include "report.h"

typedef sc_html html;

/* sc_html_esc() of a printf result. */
__attribute__((format(printf, 2, 3)))
static void escf(FILE *out, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    sc_html_esc(out, buf);
}

/* ---------------------------------------------------------- summary --- */

static void counts_html(FILE *out, uint64_t e, uint64_t w, uint64_t n)
{
    fprintf(out, "<span class=\"badge sev-error%s\">%" PRIu64 " error%s</span> ", e ? "" : " zero", e, sc_html_plural(e));
    fprintf(out, "<span class=\"badge sev-warning%s\">%" PRIu64 " warning%s</span> ", w ? "" : " zero", w,
            sc_html_plural(w));
    fprintf(out, "<span class=\"badge sev-note%s\">%" PRIu64 " note%s</span>", n ? "" : " zero", n, sc_html_plural(n));
}

/* Findings of one process (or of all, process < 0) by severity, and what the
   warnings and errors cost. */
static void tally(const sc_report *r, long process, uint64_t *e, uint64_t *w, uint64_t *n, uint64_t *cost)
{
    *e = *w = *n = *cost = 0;
    for (size_t i = 0; i < r->nfindings; i++) {
        const sc_finding *f = &r->findings[i];
        if (process >= 0 && f->process != (unsigned long)process)
            continue;
        switch (f->severity) {
        case SC_SEV_ERROR: (*e)++; break;
        case SC_SEV_WARNING: (*w)++; break;
        default: (*n)++; break;
        }
    }
    *cost = sc_report_cost_of(r, process);
}

/* The headline: what the findings worth fixing cost. */
/* The cost of the process's (or, for -1, every process's) warnings, and
   its share of `run`, which is `of`. */
static void cost_html(html *h, long process, uint64_t run, const char *of)
{
    FILE *out = h->out;
    uint64_t e, w, n, cost;
    char b[64], pc[32];
    tally(h->r, process, &e, &w, &n, &cost);
    fputs("<div class=\"cost\">", out);
    if (!e && !w) {
        fputs("<span class=\"big ok\">No finding worth fixing</span>", out);
        fputs("<span class=\"sub\">estimated cost: none</span>", out);
    } else {
        sc_format_ns(cost, b, sizeof b);
        sc_html_percent(cost, run, pc, sizeof pc);
        fprintf(out, "<span class=\"big\">%s</span><span class=\"sub\">estimated cost", b);
        if (*pc)
            fprintf(out, ", %s of %s", pc, of);
        fprintf(out, ", in %" PRIu64 " warning%s</span>", e + w, sc_html_plural(e + w));
    }
    fputs("<span class=\"counts\">", out);
    counts_html(out, e, w, n);
    fputs("</span></div>\n", out);
}

static void fact(FILE *out, const char *key, const char *value, const char *cls)
{
    int path = cls && !strcmp(cls, "path");
    fprintf(out, "<div class=\"f%s\"><dt>%s</dt><dd%s%s%s>", path ? " wide" : "", key, cls ? " class=\"" : "",
            cls ? cls : "", cls ? "\"" : "");
    if (path)
        sc_html_esc_path(out, value);
    else
        sc_html_esc(out, value);
    fputs("</dd></div>\n", out);
}

static void process_facts(html *h, const sc_process *p)
{
    FILE *out = h->out;
    char b[128];
    fputs("<dl class=\"facts\">\n", out);
    fact(out, "Program", sc_or_unknown(p->exe), "path");
    fact(out, "Command line", sc_or_unknown(p->cmdline), "path");
    snprintf(b, sizeof b, "%ld", p->pid);
    fact(out, "PID", b, NULL);
    fact(out, "Host", sc_or_unknown(p->host), NULL);
    fact(out, "Device", p->device ? p->device : "not queried", NULL);
    sc_format_driver(p->driver_version, b, sizeof b);
    fact(out, "Driver", b, NULL);
    if (p->async_engines >= 0)
        snprintf(b, sizeof b, "%d copy engine%s, %d connection%s", p->async_engines, sc_html_plural((uint64_t)p->async_engines),
                 p->max_connections, sc_html_plural((uint64_t)p->max_connections));
    else
        snprintf(b, sizeof b, "copy engines unknown, %d connection%s", p->max_connections,
                 sc_html_plural((uint64_t)p->max_connections));
    fact(out, "Engines", b, NULL);
    snprintf(b, sizeof b, "%s%s", sc_or_unknown(p->mode), p->gpu ? ", measured (the GPU's timeline)" : "");
    fact(out, "Mode", b, NULL);
    if (p->simulated)
        fact(out, "Simulated", "yes: the CPU simulator ran it, so times are not GPU performance", "warn");
    sc_format_time(p->start_time, b, sizeof b);
    fact(out, "Started", b, NULL);
    sc_format_ns(sc_process_span_ns(p), b, sizeof b);
    fact(out, "Run time", b, NULL);
    if (p->range) {
        char in[64], v[400];
        sc_format_ns(p->range_ns, in, sizeof in);
        snprintf(v, sizeof v, "%s: findings inside it only; %s inside it (what shares are of)", p->range, in);
        fact(out, "NVTX range", v, NULL);
    }
    if (p->window_ns) {
        char w[64], v[300];
        sc_format_ns(p->window_ns, w, sizeof w);
        snprintf(v, sizeof v, "%s, the first to the last CUDA call of the threads that wait for the GPU%s", w,
                 p->range || p->loop_ns ? "" : " (what shares are of)");
        fact(out, "Active window", v, NULL);
    }
    if (p->window_ns && p->held_ns) {
        char held[64], v[400];
        sc_format_ns(p->held_ns, held, sizeof held);
        snprintf(v, sizeof v, "its first %s (a long run: a thread's calls reached the record's bound, or "
                 "replaying more would take too long at exit); the savings are extrapolated: a finding's by "
                 "its calls in all over those held", held);
        fact(out, "Model held", v, NULL);
    }
    if (p->window_ns && p->loop_ns) {
        char l[64], v[300];
        sc_format_ns(p->loop_ns, l, sizeof l);
        snprintf(v, sizeof v, "%s, from a step before a hazard of every step first repeats%s", l,
                 p->range ? "" : " (what shares are of)");
        fact(out, "Steady loop", v, NULL);
    }
    fputs("</dl>\n", out);
}

/* One distinct value, escaped; a path as its base name with the whole
   path as its title. */
typedef struct distinct_out {
    FILE *out;
    int base;
} distinct_out;

static void put_value(const char *v, size_t k, void *arg)
{
    const distinct_out *d = arg;
    if (k)
        fputs(", ", d->out);
    if (d->base) {
        fputs("<span title=\"", d->out);
        sc_html_esc(d->out, v);
        fputs("\">", d->out);
        sc_html_esc(d->out, sc_basename(v));
        fputs("</span>", d->out);
    } else {
        sc_html_esc(d->out, v);
    }
}

/* The distinct values of a per-process string, the first four of them. */
static void distinct(html *h, const char *(*get)(const sc_process *), const char *key, int base, int wide)
{
    FILE *out = h->out;
    distinct_out d = {out, base};
    fprintf(out, "<div class=\"f%s\"><dt>%s</dt><dd>", wide ? " wide" : "", key);
    size_t total = sc_report_distinct_each(h->r, get, 4, put_value, &d);
    if (total > 4)
        fprintf(out, ", &#8230; (%zu in all)", total);
    fputs("</dd></div>\n", out);
}

static const char *proc_exe(const sc_process *p) { return p->exe; }
static const char *proc_host(const sc_process *p) { return p->host; }
static const char *proc_device(const sc_process *p) { return p->device; }
static const char *proc_mode(const sc_process *p) { return p->mode; }

static void summary_html(html *h)
{
    FILE *out = h->out;
    const sc_report *r = h->r;
    char b[128];
    uint64_t run = 0, windows = 0;
    for (size_t i = 0; i < r->nprocs; i++) {
        run += sc_process_run_ns(&r->procs[i]);
        windows += sc_process_window_ns(&r->procs[i]);
    }
    fputs("<section id=\"summary\" class=\"summary\">\n", out);
    cost_html(h, -1, windows, r->nprocs == 1 ? sc_process_window_name(&r->procs[0]) : "the processes' windows");
    if (r->nprocs == 1) {
        process_facts(h, &r->procs[0]);
        sc_html_gpu_numbers(out, r, 0);
    } else {
        fputs("<dl class=\"facts\">\n", out);
        snprintf(b, sizeof b, "%zu", r->nprocs);
        fact(out, "Processes", b, NULL);
        if (r->nprocs) {
            distinct(h, proc_exe, "Programs", 1, 1);
            distinct(h, proc_host, "Hosts", 0, 0);
            distinct(h, proc_device, "Devices", 0, 0);
            distinct(h, proc_mode, "Mode", 0, 0);
            size_t sim = 0;
            double start = 0, end = 0;
            for (size_t i = 0; i < r->nprocs; i++) {
                sim += r->procs[i].simulated != 0;
                if (r->procs[i].start_time > 0 && (start == 0 || r->procs[i].start_time < start))
                    start = r->procs[i].start_time;
                if (r->procs[i].end_time > end)
                    end = r->procs[i].end_time;
            }
            if (sim)
                fact(out, "Simulated", sim == r->nprocs
                                           ? "yes: the CPU simulator ran them, so times are not GPU performance"
                                           : "some processes ran on the CPU simulator",
                     "warn");
            sc_format_time(start, b, sizeof b);
            fact(out, "Started", b, NULL);
            sc_process p = {.start_time = start, .end_time = end};
            sc_format_ns(sc_process_run_ns(&p), b, sizeof b);
            fact(out, "Wall time", b, NULL);
            fputs("<div class=\"f\"><dt>Run time, summed</dt><dd>", out);
            sc_format_ns(run, b, sizeof b);
            sc_html_esc(out, b);
            fputs("</dd></div>\n", out);
            fputs("<div class=\"f\"><dt>Windows, summed</dt><dd>", out);
            sc_format_ns(windows, b, sizeof b);
            sc_html_esc(out, b);
            fputs(" (what the cost's share is of: each process's steady loop, active window or run time)</dd></div>\n",
                  out);
        }
        fputs("</dl>\n", out);
    }
    fputs("</section>\n", out);
}

/* ---------------------------------------------------------- processes --- */

static void processes_html(html *h)
{
    FILE *out = h->out;
    const sc_report *r = h->r;
    char b[64];
    fprintf(out, "<section id=\"processes\">\n<h2>Processes <span class=\"n\">(%zu)</span></h2>\n", r->nprocs);
    int gpu = sc_html_any_gpu(r);
    fputs("<div class=\"scroll\"><table class=\"procs\">\n<thead><tr><th>#</th><th>PID</th><th>Host</th>"
          "<th>Device</th><th class=\"num\">Run time</th><th class=\"num\">Errors</th><th class=\"num\">Warnings</th>"
          "<th class=\"num\">Notes</th><th class=\"num\">Est. cost</th>", out);
    if (gpu)
        fputs("<th class=\"num\">GPU busy</th><th class=\"num\">GPU idle</th>", out);
    fputs("<th>Command</th></tr></thead>\n<tbody>\n", out);
    for (size_t i = 0; i < r->nprocs; i++) {
        const sc_process *p = &r->procs[i];
        uint64_t e, w, n, cost;
        tally(r, (long)i, &e, &w, &n, &cost);
        fprintf(out, "<tr><td><a href=\"#process-%zu\">%zu</a></td><td>%ld</td><td>", i, i, p->pid);
        sc_html_esc(out, sc_or_unknown(p->host));
        fputs("</td><td>", out);
        sc_html_esc(out, p->device ? p->device : "-");
        if (p->simulated)
            fputs(" <span class=\"tag\">sim</span>", out);
        sc_format_ns(sc_process_span_ns(p), b, sizeof b);
        fprintf(out, "</td><td class=\"num\">%s</td>", b);
        fprintf(out, "<td class=\"num%s\">%" PRIu64 "</td>", e ? " c-error" : " zero", e);
        fprintf(out, "<td class=\"num%s\">%" PRIu64 "</td>", w ? " c-warning" : " zero", w);
        fprintf(out, "<td class=\"num%s\">%" PRIu64 "</td>", n ? " c-note" : " zero", n);
        if (e + w)
            sc_format_ns(cost, b, sizeof b);
        else
            snprintf(b, sizeof b, "-");
        fprintf(out, "<td class=\"num\">%s</td>", b);
        if (gpu && p->gpu) {
            char pb[32], pi[32];
            sc_html_percent(p->gpu->busy_ns, p->gpu->span_ns, pb, sizeof pb);
            sc_html_percent(p->gpu->idle_ns, p->gpu->span_ns, pi, sizeof pi);
            fprintf(out, "<td class=\"num\">%s</td><td class=\"num\">%s</td>", *pb ? pb : "-", *pi ? pi : "-");
        } else if (gpu) {
            fputs("<td class=\"num zero\">-</td><td class=\"num zero\">-</td>", out);
        }
        fputs("<td class=\"path\">", out);
        sc_html_esc_path(out, p->cmdline ? p->cmdline : sc_or_unknown(p->exe));
        fputs("</td></tr>\n", out);
    }
    fputs("</tbody></table></div>\n</section>\n", out);
}

static void process_html(html *h, size_t k)
{
    FILE *out = h->out;
    const sc_report *r = h->r;
    const sc_process *p = &r->procs[k];
    fprintf(out, "<section class=\"process\" id=\"process-%zu\">\n", k);
    if (r->nprocs > 1) {
        fprintf(out, "<h2>Process #%zu: <span class=\"path\">", k);
        sc_html_esc(out, sc_basename(sc_or_unknown(p->exe)));
        fprintf(out, "</span> <span class=\"n\">pid %ld on ", p->pid);
        sc_html_esc(out, sc_or_unknown(p->host));
        fputs("</span></h2>\n", out);
        cost_html(h, (long)k, sc_process_window_ns(p), sc_process_window_name(p));
        fputs("<details class=\"facts\"><summary>Process details</summary>\n", out);
        process_facts(h, p);
        fputs("</details>\n", out);
        sc_html_gpu_numbers(out, r, k);
    }
    if (p->gpu) {
        fprintf(out, "<h3 id=\"timeline-%zu\">GPU timeline</h3>\n", k);
        sc_html_timeline(out, r, k);
    }
    sc_html_findings(h, (long)k);
    fputs("</section>\n", out);
}

/* ---------------------------------------------------------- the rest --- */

static int calls_html(html *h)
{
    FILE *out = h->out;
    const sc_report *r = h->r;
    size_t n;
    uint64_t sum = 0, calls = 0, shim = 0, run = 0, supp = 0;
    char b[64], pc[32];
    sc_api_total *tot = sc_api_totals(r, &n);
    if (!tot)
        return -1;
    for (size_t i = 0; i < n; i++)
        sum += tot[i].calls;
    for (size_t i = 0; i < r->nprocs; i++) {
        calls += r->procs[i].calls;
        shim += r->procs[i].shim_ns;
        run += sc_process_span_ns(&r->procs[i]);
        supp += r->procs[i].suppressed;
    }
    fputs("<section id=\"calls\">\n<h2>Calls and overhead</h2>\n<dl class=\"facts\">\n", out);
    fprintf(out, "<div class=\"f\"><dt>Calls intercepted</dt><dd>%" PRIu64 "</dd></div>\n", calls);
    fputs("<div class=\"f\"><dt>Time in streamcheck</dt><dd>", out);
    if (calls && !shim) {
        fputs("too few calls to estimate", out);
    } else {
        sc_format_ns(shim, b, sizeof b);
        sc_html_percent(shim, run, pc, sizeof pc);
        fprintf(out, "%s (estimate%s%s%s)", b, *pc ? "; " : "", pc, *pc ? " of the run time" : "");
    }
    fprintf(out, "</dd></div>\n<div class=\"f\"><dt>Findings suppressed</dt><dd>%" PRIu64 "</dd></div>\n</dl>\n",
            supp);
    if (n) {
        fprintf(out, "<details><summary>Driver API calls (%zu entry point%s, %" PRIu64 " call%s)</summary>\n"
                "<div class=\"scroll\"><table class=\"apis\"><thead><tr><th>API</th><th class=\"num\">Calls</th></tr>"
                "</thead>\n<tbody>\n", n, sc_html_plural(n), sum, sc_html_plural(sum));
        for (size_t i = 0; i < n; i++) {
            fputs("<tr><td><code>", out);
            sc_html_esc(out, tot[i].api);
            fprintf(out, "</code></td><td class=\"num\">%" PRIu64 "</td></tr>\n", tot[i].calls);
        }
        fputs("</tbody></table></div>\n</details>\n", out);
    }
    free(tot);
    if (r->nredirects) {
        fprintf(out, "<details><summary>Redirects (%zu)</summary>\n<div class=\"scroll\"><table><thead><tr><th>API</th>"
                "<th>Call site</th><th>Outcome</th><th class=\"num\">Calls</th></tr></thead>\n<tbody>\n",
                r->nredirects);
        for (size_t i = 0; i < r->nredirects; i++) {
            const sc_redirect *rd = &r->redirects[i];
            fputs("<tr><td><code>", out);
            sc_html_esc(out, sc_or_unknown(rd->api));
            fputs("</code></td><td>", out);
            sc_html_where(h, sc_report_callsite(r, rd->callsite), 60);
            fputs("</td><td>", out);
            sc_html_esc(out, sc_or_unknown(rd->outcome));
            fprintf(out, "</td><td class=\"num\">%" PRIu64 "</td></tr>\n", rd->count);
        }
        fputs("</tbody></table></div>\n</details>\n", out);
    }
    fputs("</section>\n", out);
    return 0;
}

static void head_html(html *h)
{
    FILE *out = h->out;
    const sc_report *r = h->r;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
          "<meta charset=\"utf-8\"/>\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
          "<meta name=\"generator\" content=\"streamcheck ", out);
    sc_html_esc(out, sc_or_unknown(r->tool_version));
    fputs("\"/>\n<title>", out);
    if (r->nprocs == 1)
        escf(out, "%s (pid %ld): streamcheck", sc_basename(sc_or_unknown(r->procs[0].exe)), r->procs[0].pid);
    else
        escf(out, "%zu processes: streamcheck", r->nprocs);
    fprintf(out, "</title>\n<style>\n%s%s</style>\n</head>\n<body>\n<header>\n<h1>", SC_HTML_REPORT_CSS,
            sc_html_any_gpu(r) ? SC_HTML_GPU_CSS : "");
    if (r->nprocs == 1)
        sc_html_esc(out, sc_basename(sc_or_unknown(r->procs[0].exe)));
    else
        fprintf(out, "%zu processes", r->nprocs);
    fputs(" <span class=\"tool\">&#8212; streamcheck report</span></h1>\n", out);
    if (r->nprocs == 1 && r->procs[0].cmdline) {
        fputs("<p class=\"cmd path\">", out);
        sc_html_esc_path(out, r->procs[0].cmdline);
        fputs("</p>\n", out);
    }
    fputs("</header>\n<main>\n", out);
}

static void foot_html(html *h)
{
    FILE *out = h->out;
    char line[200];
    sc_summary_line(h->r, line, sizeof line);
    fputs("<footer>\n<p>", out);
    sc_html_esc(out, line);
    fputs(". Written by streamcheck ", out);
    sc_html_esc(out, sc_or_unknown(h->r->tool_version));
    fputs("; the rules, the cost model and the other formats: <code>man libstreamcheck</code>. "
          "This page is one file and loads nothing from elsewhere.</p>\n</footer>\n</main>\n", out);
    /* report.js opens the collapsed parts before printing, so paper has
       them; gpu.js zooms the timeline and shows its tooltips. */
    fprintf(out, "<script>//<![CDATA[\n(function(){\n%s%s})();\n//]]></script>\n</body>\n</html>\n",
            SC_HTML_REPORT_JS, sc_html_any_gpu(h->r) ? SC_HTML_GPU_JS : "");
}

int sc_render_html(const sc_report *r, FILE *out, const sc_render_opts *o)
{
    static const sc_render_opts defaults;
    html h = {.out = out, .r = r, .o = o ? o : &defaults};
    if (sc_srcroot_init(&h.root, h.o->srcroot) < 0)
        return -1;
    int rc = 0;
    head_html(&h);
    summary_html(&h);
    if (r->nprocs > 1)
        processes_html(&h);
    for (size_t k = 0; k < r->nprocs; k++)
        process_html(&h, k);
    if (!r->nprocs)
        sc_html_findings(&h, -1);
    if (calls_html(&h) < 0)
        rc = -1;
    foot_html(&h);
    sc_html_sources_free(&h);
    sc_srcroot_free(&h.root);
    if (rc == 0 && ferror(out)) {
        errno = EIO;
        rc = -1;
    }
    return rc;
}

