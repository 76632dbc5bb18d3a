/* report_md.c: GitHub-flavoured Markdown for a CI job summary (appended to
 * $GITHUB_STEP_SUMMARY) or a merge request: a title with the counts, one
 * line about the run, a table of the findings in the report's order
 * (costliest first) with what fixing each saves and what to do, and for a
 * merged report one line per process.  Short on purpose: the text, JSON
 * and HTML reports have the rest.  No HTML: a summary shows Markdown only. */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "json.h"
#include "report.h"

/* Rows of the findings table: errors and warnings always, notes up to
   this many rows; the rest are counted in one line. */
#define MAX_ROWS 20

/* Writes s as Markdown text on one line: punctuation that Markdown would
   read as markup escaped with a backslash ('|' ends a table cell, a
   backtick opens code, '<' HTML, '*', '_' and '~' emphasis, '[' a link),
   control characters (a line break would end the row) as blanks, and
   bytes that are not UTF-8 as U+FFFD. */
static void md_text(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        uint32_t cp;
        size_t n;
        if (*p < 0x80) {
            if (strchr("\\`|*_~<[]", *p))
                fputc('\\', out);
            fputc(*p < 0x20 || *p == 0x7f ? ' ' : *p, out);
            p++;
            continue;
        }
        n = sc_utf8_decode(p, strnlen((const char *)p, 4), &cp);
        if (!n || cp < 0xa0) {   /* not UTF-8, or a C1 control */
            fputs("\xef\xbf\xbd", out);
            p += n ? n : 1;
            continue;
        }
        fwrite(p, 1, n, out);
        p += n;
    }
}

static const char *plural(uint64_t n)
{
    return n == 1 ? "" : "s";
}

static const char *proc_command(const sc_process *p)
{
    return p->cmdline ? p->cmdline : p->exe;
}

static const char *proc_mode(const sc_process *p)
{
    return p->mode;
}

/* "## streamcheck: 1 error, 3 warnings, 1 note" (errors only when any). */
static void title(const sc_report *r, FILE *out)
{
    uint64_t e = 0, w = 0, n = 0;
    sc_report_totals(r, &e, &w, &n);
    fputs("## streamcheck: ", out);
    if (e)
        fprintf(out, "%" PRIu64 " error%s, ", e, plural(e));
    fprintf(out, "%" PRIu64 " warning%s, %" PRIu64 " note%s\n\n", w, plural(w), n, plural(n));
}

/* The mode as the text header says it, and whether the GPU was measured. */
static void mode(const sc_report *r, FILE *out)
{
    char b[512];
    size_t sim = 0, measured = 0;
    for (size_t i = 0; i < r->nprocs; i++) {
        sim += r->procs[i].simulated != 0;
        measured += r->procs[i].gpu != NULL;
    }
    sc_report_distinct(r, proc_mode, b, sizeof b);
    md_text(out, b);
    if (measured)
        fprintf(out, ", measured%s", measured == r->nprocs ? "" : " in some processes");
    if (sim)
        fprintf(out, ", %son the CPU simulator", sim == r->nprocs ? "" : "some processes ");
}

/* One line: the program, the mode, the active window, what the warnings
   cost and what fixing everything is predicted to save. */
static void run_line(const sc_report *r, FILE *out)
{
    char b[1024];
    if (r->nprocs > 1)
        fprintf(out, "**%zu processes** · ", r->nprocs);
    fputs("**Program** ", out);
    sc_report_distinct(r, proc_command, b, sizeof b);
    md_text(out, b);
    fputs(" · **Mode** ", out);
    mode(r, out);
    if (r->nprocs == 1 && r->procs[0].window_ns) {
        sc_format_ns(r->procs[0].window_ns, b, sizeof b);
        fprintf(out, " · **Active window** %s", b);
        if (r->procs[0].held_ns) {
            sc_format_ns(r->procs[0].held_ns, b, sizeof b);
            fprintf(out, " (the model held its first %s; savings extrapolated)", b);
        }
        if (r->procs[0].loop_ns) {
            sc_format_ns(r->procs[0].loop_ns, b, sizeof b);
            fprintf(out, " · **Steady loop** %s", b);
        }
    }
    if (sc_report_cost_format(r, b, sizeof b) == 0) {
        fputs(" · **Estimated cost** ", out);
        md_text(out, b);
    }
    if (r->nprocs == 1 && sc_process_fixed_format(&r->procs[0], b, sizeof b) == 0) {
        fputs(" · **All fixed** ", out);
        md_text(out, b);
    }
    fputs("\n\n", out);
}

/* What fixing a finding saves: its cost, its share of what its process's
   shares are of (sc_process_window_ns), and how the cost was estimated. */
static void saving(const sc_report *r, const sc_finding *f, char *buf, size_t len)
{
    const sc_process *p = f->process < r->nprocs ? &r->procs[f->process] : NULL;
    uint64_t whole = p ? sc_finding_window_ns(r, f) : 0;
    char c[32], s[32];
    if (f->basis == SC_COST_UNMEASURED || (unsigned)f->basis >= SC_NCOST_BASES) {
        snprintf(buf, len, "not seen from the host: %s", sc_unmeasured_why(r, f));
        return;
    }
    sc_format_ns(f->cost_ns, c, sizeof c);
    if (!whole) {
        snprintf(buf, len, "%s (%s)", c, sc_cost_basis_name(f->basis));
        return;
    }
    sc_format_share(f->cost_ns, whole, s, sizeof s);
    int n = snprintf(buf, len, "%s (%s of %s; %s)", c, s, sc_finding_window_name(r, f),
                     sc_cost_basis_name(f->basis));
    char t[160];
    if (n > 0 && (size_t)n < len && sc_together_phrase(f, t, sizeof t))
        snprintf(buf + n, len - (size_t)n, "; %s", t);
}

static void row(const sc_report *r, const sc_finding *f, const sc_srcroot *root, FILE *out)
{
    const sc_rule_info *ri = &sc_rules[f->rule];
    char b[2048];
    fprintf(out, "| %s | %s %s | ", sc_severity_name(f->severity), ri->id, ri->name);
    sc_callsite_where_in(sc_report_callsite(r, f->callsite), root, b, sizeof b);
    md_text(out, b);
    fprintf(out, " | %" PRIu64 " | ", f->count);
    saving(r, f, b, sizeof b);
    md_text(out, b);
    fputs(" | ", out);
    md_text(out, ri->advice);
    fputs(" |\n", out);
}

/* The findings in the report's order: every error and warning, the notes
   while there is room. */
static void findings(const sc_report *r, const sc_srcroot *root, FILE *out)
{
    size_t rows = 0, more = 0;
    if (!r->nfindings)
        return;
    fputs("| Severity | Rule | Where | Count | Fixing it saves | What to do |\n", out);
    fputs("|---|---|---|--:|---|---|\n", out);
    for (size_t i = 0; i < r->nfindings; i++) {
        const sc_finding *f = &r->findings[i];
        if (f->severity == SC_SEV_NOTE && rows >= MAX_ROWS) {
            more++;
            continue;
        }
        row(r, f, root, out);
        rows++;
    }
    if (more)
        fprintf(out, "\nand %zu more note%s (see the JSON or text report)\n", more, plural(more));
}

/* A merged report: which process is which. */
static void processes(const sc_report *r, FILE *out)
{
    if (r->nprocs < 2)
        return;
    fputs("\nProcesses:\n\n", out);
    for (size_t i = 0; i < r->nprocs; i++) {
        const sc_process *p = &r->procs[i];
        if (p->rank >= 0)
            fprintf(out, "- #%zu: rank %ld, pid %ld on ", i, p->rank, p->pid);
        else
            fprintf(out, "- #%zu: pid %ld on ", i, p->pid);
        md_text(out, sc_or_unknown(p->host));
        fputc('\n', out);
    }
}

int sc_render_md(const sc_report *r, FILE *out, const sc_render_opts *o)
{
    char b[256];
    sc_srcroot root;
    if (sc_srcroot_init(&root, o ? o->srcroot : NULL) < 0)
        return -1;
    title(r, out);
    run_line(r, out);
    if (sc_report_cost_format(r, b, sizeof b) < 0)
        fputs(r->nfindings ? "No finding is worth fixing in this run.\n\n" : "No findings.\n", out);
    findings(r, &root, out);
    processes(r, out);
    sc_srcroot_free(&root);
    return sc_render_done(out);
}
