/* html_gpu.c: measured mode in the HTML report: a process's GPU numbers --
 * a bar of busy, overlap and idle time, the figures, each device and each
 * stream. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "html.h"
#include "report.h"

int sc_html_any_gpu(const sc_report *r)
{
    for (size_t i = 0; i < r->nprocs; i++)
        if (r->procs[i].gpu)
            return 1;
    return 0;
}

/* A bar of the span: busy alone, busy with overlap, idle. */
static void gpu_bar(FILE *out, uint64_t span, uint64_t busy, uint64_t overlap, uint64_t idle)
{
    char a[32], b[32], c[32];
    uint64_t alone = busy > overlap ? busy - overlap : 0;
    sc_html_percent(alone, span, a, sizeof a);
    sc_html_percent(overlap, span, b, sizeof b);
    sc_html_percent(idle, span, c, sizeof c);
    if (!span)
        return;
    fprintf(out, "<div class=\"gbar\" role=\"img\" aria-label=\"busy %s, overlapping %s, idle %s\">"
            "<span class=\"g-busy\" style=\"width:%s\"></span><span class=\"g-over\" style=\"width:%s\"></span>"
            "<span class=\"g-idle\" style=\"width:%s\"></span></div>\n", a, b, c, a, b, c);
}

static void figure(FILE *out, const char *key, uint64_t ns, uint64_t of, const char *note)
{
    char b[32], pc[32];
    sc_format_ns(ns, b, sizeof b);
    sc_html_percent(ns, of, pc, sizeof pc);
    fprintf(out, "<div class=\"f\"><dt>%s</dt><dd><b>%s</b>%s%s%s%s</dd></div>\n", key, b, *pc ? " (" : "", pc,
            *pc ? ")" : "", note ? note : "");
}

void sc_html_gpu_numbers(FILE *out, const sc_report *r, size_t process)
{
    const sc_gpu *g = process < r->nprocs ? r->procs[process].gpu : NULL;
    char b[64], c[64];
    if (!g)
        return;
    fputs("<div class=\"gpu\">\n", out);
    gpu_bar(out, g->span_ns, g->busy_ns, g->overlap_ns, g->idle_ns);
    fputs("<dl class=\"facts\">\n", out);
    figure(out, "GPU busy", g->busy_ns, g->span_ns, NULL);
    sc_format_ns(g->overlap_compute_copy_ns, b, sizeof b);
    sc_format_ns(g->overlap_compute_compute_ns, c, sizeof c);
    char note[256];
    snprintf(note, sizeof note, "<br/><span class=\"basis\">compute+copy %s, compute+compute %s</span>", b, c);
    figure(out, "Overlap", g->overlap_ns, g->span_ns, note);
    figure(out, "GPU idle", g->idle_ns, g->span_ns, NULL);
    figure(out, "GPU span", g->span_ns, 0, "<br/><span class=\"basis\">first operation to last</span>");
    fprintf(out, "<div class=\"f\"><dt>Operations</dt><dd><b>%" PRIu64 "</b>", g->ops);
    if (g->ops_kept < g->ops)
        fprintf(out, "<br/><span class=\"basis\">the timeline has the first %" PRIu64 "</span>", g->ops_kept);
    fputs("</dd></div>\n", out);
    if (g->dropped)
        fprintf(out, "<div class=\"f\"><dt>Dropped</dt><dd class=\"warn\">CUPTI dropped %" PRIu64 " record%s: the "
                "numbers are low</dd></div>\n", g->dropped, sc_html_plural(g->dropped));
    if (g->windowed) {
        sc_format_ns(g->window_start_ns, b, sizeof b);
        sc_format_ns(g->window_end_ns, c, sizeof c);
        fprintf(out, "<div class=\"f\"><dt>Measured</dt><dd>a window, <b>%s</b> to <b>%s</b> into the run"
                "<br/><span class=\"basis\">each finding's GPU cost is scaled from its calls in the window to "
                "all of them</span></dd></div>\n", b, c);
    }
    if (g->handed_over) {
        sc_format_ns(g->handed_over_ns, b, sizeof b);
        fprintf(out, "<div class=\"f\"><dt>Measured</dt><dd class=\"warn\">the first <b>%s</b> of the run only"
                "<br/><span class=\"basis\">the program's own profiler took CUPTI then; later findings are "
                "priced in detect mode</span></dd></div>\n", b);
    }
    fputs("</dl>\n", out);
    if (g->ndevices > 1 || g->nstreams) {
        fprintf(out, "<details class=\"streams\"><summary>%zu device%s, %zu stream%s</summary>\n<div class=\"scroll\">"
                "<table><thead><tr><th>Device</th><th>Stream</th><th class=\"num\">Busy</th><th class=\"num\">"
                "Share of span</th><th class=\"num\">Operations</th></tr></thead>\n<tbody>\n", g->ndevices,
                sc_html_plural(g->ndevices), g->nstreams, sc_html_plural(g->nstreams));
        for (size_t d = 0; d < g->ndevices; d++) {
            const sc_gpu_device *dv = &g->devices[d];
            sc_format_ns(dv->busy_ns, b, sizeof b);
            sc_html_percent(dv->busy_ns, dv->span_ns, c, sizeof c);
            fprintf(out, "<tr class=\"dev\"><td>GPU %u</td><td>all</td><td class=\"num\">%s</td><td class=\"num\">%s"
                    "</td><td class=\"num\">%" PRIu64 "</td></tr>\n", dv->device, b, c, dv->ops);
            for (size_t s = 0; s < g->nstreams; s++) {
                const sc_gpu_stream *st = &g->streams[s];
                if (st->device != dv->device)
                    continue;
                sc_format_ns(st->busy_ns, b, sizeof b);
                sc_html_percent(st->busy_ns, dv->span_ns, c, sizeof c);
                fprintf(out, "<tr><td>GPU %u</td><td>stream %u</td><td class=\"num\">%s</td><td class=\"num\">%s"
                        "</td><td class=\"num\">%" PRIu64 "</td></tr>\n", st->device, st->stream, b, c, st->ops);
            }
        }
        fputs("</tbody></table></div>\n</details>\n", out);
    }
    fputs("</div>\n", out);
}
