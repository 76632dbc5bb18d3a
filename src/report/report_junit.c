/* report_junit.c: JUnit XML for CI dashboards.
 *
 * One <testsuite name="streamcheck"> with one <testcase> per rule of the
 * catalogue, so a dashboard shows every rule, clean ones as passed.  A rule
 * with findings at or above the failing level (default: warning) has one
 * <failure>; findings below it (notes, by default) leave the test case
 * passed and are listed in its <system-out>.  A test case's time is the
 * host time its findings blocked. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json.h"
#include "report.h"

/* Writes s escaped for XML 1.0 text or attribute values.  Characters XML
   cannot carry (most C0 controls, U+FFFE/U+FFFF) and bytes that are not
   UTF-8 become U+FFFD, so the document always parses. */
static void xml_escape(FILE *out, const char *s, int attr)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        unsigned char c = *p;
        uint32_t cp;
        size_t n;
        switch (c) {
        case '&': fputs("&amp;", out); p++; continue;
        case '<': fputs("&lt;", out); p++; continue;
        case '>': fputs("&gt;", out); p++; continue;
        case '"': fputs(attr ? "&quot;" : "\"", out); p++; continue;
        case '\'': fputs(attr ? "&apos;" : "'", out); p++; continue;
        case '\n': fputs(attr ? "&#10;" : "\n", out); p++; continue;
        case '\t': fputs(attr ? "&#9;" : "\t", out); p++; continue;
        case '\r': fputs("&#13;", out); p++; continue;
        default: break;
        }
        if (c < 0x20) {
            fputs("\xef\xbf\xbd", out);
            p++;
            continue;
        }
        n = sc_utf8_decode(p, strnlen((const char *)p, 4), &cp);
        if (!n || cp == 0xfffe || cp == 0xffff) {
            fputs("\xef\xbf\xbd", out);
            p += n ? n : 1;
            continue;
        }
        fwrite(p, 1, n, out);
        p += n;
    }
}

static void attr(FILE *out, const char *name, const char *value)
{
    fprintf(out, " %s=\"", name);
    xml_escape(out, value, 1);
    fputc('"', out);
}

static void seconds(uint64_t ns, char *buf, size_t len)
{
    uint64_t ms = ns / 1000000 + (ns % 1000000 >= 500000);
    snprintf(buf, len, "%" PRIu64 ".%03u", ms / 1000, (unsigned)(ms % 1000));
}

static void finding_text(FILE *out, const sc_report *r, const sc_finding *f, const sc_srcroot *root)
{
    char line[1024], where[1024];
    sc_finding_line(f, line, sizeof line);
    sc_callsite_where_in(sc_report_callsite(r, f->callsite), root, where, sizeof where);
    fprintf(out, "[%s] ", sc_severity_name(f->severity));
    xml_escape(out, where, 0);
    fputs(": ", out);
    xml_escape(out, line, 0);
    if (f->detail) {
        fputs(". ", out);
        xml_escape(out, f->detail, 0);
    }
    if (r->nprocs > 1 && f->process < r->nprocs) {
        fprintf(out, " (process #%u, pid %ld on ", f->process, r->procs[f->process].pid);
        xml_escape(out, r->procs[f->process].host ? r->procs[f->process].host : "unknown host", 0);
        fputc(')', out);
    }
    if (*f->callsite)
        fprintf(out, " [call site %s]", f->callsite);
    fputc('\n', out);
}

static void property(FILE *out, const char *name, const char *value)
{
    fputs("    <property", out);
    attr(out, "name", name);
    attr(out, "value", value ? value : "");
    fputs("/>\n", out);
}

/* <testsuite ...>: the counts, the time from the first process's start to
   the last one's end, the host of a single process. */
static void suite_head(FILE *out, const sc_report *r, size_t failing_rules)
{
    char t[64];
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite", out);
    attr(out, "name", "streamcheck");
    fprintf(out, " tests=\"%d\" failures=\"%zu\" errors=\"0\" skipped=\"0\"", SC_NRULES, failing_rules);
    if (r->nprocs) {
        double start = 0, end = 0;
        for (size_t i = 0; i < r->nprocs; i++) {
            if (r->procs[i].start_time > 0 && (start == 0 || r->procs[i].start_time < start))
                start = r->procs[i].start_time;
            if (r->procs[i].end_time > end)
                end = r->procs[i].end_time;
        }
        int64_t us = end > start && start > 0 ? sc_seconds_to_micro(end) - sc_seconds_to_micro(start) : 0;
        seconds((uint64_t)us * 1000, t, sizeof t);
        attr(out, "time", t);
        struct tm tm;
        time_t s = (time_t)(start > 0 && start < 1e12 ? start : 0);
        if (s > 0 && gmtime_r(&s, &tm)) {
            strftime(t, sizeof t, "%Y-%m-%dT%H:%M:%S", &tm);
            attr(out, "timestamp", t);
        }
        if (r->nprocs == 1 && r->procs[0].host)
            attr(out, "hostname", r->procs[0].host);
    }
    fputs(">\n", out);
}

/* <properties>: version, summary line, failing level, each process. */
static int properties(FILE *out, const sc_report *r, sc_fail_level level)
{
    char b[256];
    fputs("  <properties>\n", out);
    property(out, "streamcheck.version", r->tool_version);
    sc_summary_line(r, b, sizeof b);
    property(out, "streamcheck.summary", b);
    property(out, "streamcheck.fail-on", level == SC_FAIL_NOTE      ? "note"
                                         : level == SC_FAIL_WARNING ? "warning"
                                         : level == SC_FAIL_ERROR   ? "error"
                                                                    : "never");
    for (size_t i = 0; i < r->nprocs; i++) {
        const sc_process *p = &r->procs[i];
        char name[64], *v;
        snprintf(name, sizeof name, "streamcheck.process.%zu", i);
        if (asprintf(&v, "pid %ld on %s: %s", p->pid, p->host ? p->host : "unknown host",
                     p->cmdline ? p->cmdline : p->exe ? p->exe : "unknown program") < 0)
            return -1;
        property(out, name, v);
        free(v);
    }
    fputs("  </properties>\n", out);
    return 0;
}

/* The <failure> of a rule: its nfail failing findings, by severity. */
static void failure(FILE *out, const sc_report *r, int k, sc_fail_level level, const sc_srcroot *root,
                    const size_t sev[3], size_t nfail, uint64_t calls, uint64_t lost)
{
    static const char *const word[3] = {"note", "warning", "error"};
    char b[256], l[32], parts[96] = "";
    size_t used = 0;
    for (int s = 2; s >= 0; s--)
        if (sev[s]) {
            int n = snprintf(parts + used, sizeof parts - used, "%s%zu %s%s", used ? ", " : "", sev[s],
                             word[s], sev[s] == 1 ? "" : "s");
            if (n > 0 && (size_t)n < sizeof parts - used)
                used += (size_t)n;
        }
    sc_format_ns(lost, l, sizeof l);
    snprintf(b, sizeof b, "%zu finding%s (%s): %" PRIu64 " call%s, estimated cost %s", nfail,
             nfail == 1 ? "" : "s", parts, calls, calls == 1 ? "" : "s", l);
    fputs("    <failure", out);
    attr(out, "message", b);
    attr(out, "type", sev[2] ? "error" : sev[1] ? "warning" : "note");
    fputs(">", out);
    for (size_t i = 0; i < r->nfindings; i++)
        if ((int)r->findings[i].rule == k && sc_severity_fails(r->findings[i].severity, level))
            finding_text(out, r, &r->findings[i], root);
    fputs("Fix: ", out);
    xml_escape(out, sc_rules[k].advice, 0);
    fputs("</failure>\n", out);
}

/* Rule k's <testcase>: a <failure> for the findings at or above level, the
   others in <system-out>. */
static void testcase(FILE *out, const sc_report *r, int k, sc_fail_level level, const sc_srcroot *root)
{
    const sc_rule_info *ri = &sc_rules[k];
    size_t nfail = 0, nother = 0, sev[3] = {0};
    uint64_t calls = 0, blocked = 0, lost = 0;
    char t[64];
    for (size_t i = 0; i < r->nfindings; i++) {
        const sc_finding *f = &r->findings[i];
        if ((int)f->rule != k)
            continue;
        if (sc_severity_fails(f->severity, level)) {
            nfail++;
            sev[f->severity]++;
            calls += f->count;
            lost += f->cost_ns;
        } else {
            nother++;
        }
        blocked += f->blocked_ns;
    }
    seconds(blocked, t, sizeof t);
    fputs("  <testcase", out);
    attr(out, "classname", ri->id);
    attr(out, "name", ri->name);
    attr(out, "time", t);
    if (!nfail && !nother) {
        fputs("/>\n", out);
        return;
    }
    fputs(">\n", out);
    if (nfail)
        failure(out, r, k, level, root, sev, nfail, calls, lost);
    if (nother) {
        fputs("    <system-out>", out);
        for (size_t i = 0; i < r->nfindings; i++)
            if ((int)r->findings[i].rule == k && !sc_severity_fails(r->findings[i].severity, level))
                finding_text(out, r, &r->findings[i], root);
        fputs("</system-out>\n", out);
    }
    fputs("  </testcase>\n", out);
}

int sc_render_junit(const sc_report *r, FILE *out, const sc_render_opts *o)
{
    sc_fail_level level = o && o->fail_on ? o->fail_on : SC_FAIL_WARNING;
    size_t failing_rules = 0;
    sc_srcroot root;
    if (sc_srcroot_init(&root, o ? o->srcroot : NULL) < 0)
        return -1;
    for (int k = 0; k < SC_NRULES; k++)
        for (size_t i = 0; i < r->nfindings; i++)
            if ((int)r->findings[i].rule == k && sc_severity_fails(r->findings[i].severity, level)) {
                failing_rules++;
                break;
            }
    suite_head(out, r, failing_rules);
    if (properties(out, r, level) < 0) {
        sc_srcroot_free(&root);
        return -1;
    }
    for (int k = 0; k < SC_NRULES; k++)
        testcase(out, r, k, level, &root);
    fputs("</testsuite>\n", out);
    sc_srcroot_free(&root);
    return sc_render_done(out);
}
