/* report_text.c: the report for a person, in the manner of mpiP: an
 * "@ key : value" header, findings grouped by severity with what to do
 * about each, then numbered call sites, api counts, overhead, redirects and
 * the one summary line CI greps last. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json.h"
#include "report.h"
#include "text_layout.h"

#define WIDTH SC_TEXT_WIDTH

#define FIELD "  %-15s: "     /* a finding's "  Label          : " */
#define FIELD_COL 19

static uint64_t span_ns(double start, double end)
{
    if (!(end > start) || start <= 0)
        return 0;
    double d = (end - start) * 1e9;
    return d >= 1.8e19 ? UINT64_MAX : (uint64_t)(d + 0.5);
}



static const char *sev_color(sc_severity s)
{
    switch (s) {
    case SC_SEV_ERROR: return "\033[1;31m";
    case SC_SEV_WARNING: return "\033[1;33m";
    case SC_SEV_NOTE: return "\033[1;36m";
    }
    return "";
}

static const char *proc_exe(const sc_process *p) { return p->exe; }
static const char *proc_host(const sc_process *p) { return p->host; }
static const char *proc_device(const sc_process *p) { return p->device; }
static const char *proc_mode(const sc_process *p) { return p->mode; }
static const char *proc_range(const sc_process *p) { return p->range; }

/* The devices a process used: "0 NVIDIA H100, 1 NVIDIA H100" (compact, for
   a table: "NVIDIA H100 (devices 0, 1)" when they have one name); a
   process with one device says its name as it always did (with its
   ordinal when that is not 0). */
static void format_devices(const sc_process *p, const char *none, int compact, char *buf, size_t len)
{
    if (p->ndevices <= 1) {
        const char *n = p->ndevices ? p->devices[0].name : NULL;
        if (!n)
            n = p->device;
        if (p->ndevices && p->devices[0].ordinal != 0)
            snprintf(buf, len, "%s (device %d)", n ? n : "not queried", p->devices[0].ordinal);
        else
            snprintf(buf, len, "%s", n ? n : none);
        return;
    }
    size_t used = 0;
    int same = 1;
    for (size_t i = 1; i < p->ndevices; i++)
        same &= !strcmp(sc_or_unknown(p->devices[i].name), sc_or_unknown(p->devices[0].name));
    buf[0] = '\0';
    if (compact && same) {
        int n = snprintf(buf, len, "%s (devices ", sc_or_unknown(p->devices[0].name));
        used = n > 0 ? (size_t)n : 0;
        for (size_t i = 0; i < p->ndevices && used < len; i++) {
            n = snprintf(buf + used, len - used, "%s%d", i ? ", " : "", p->devices[i].ordinal);
            used += n > 0 ? (size_t)n : 0;
        }
        if (used < len)
            snprintf(buf + used, len - used, ")");
        return;
    }
    for (size_t i = 0; i < p->ndevices && used < len; i++) {
        int n = snprintf(buf + used, len - used, "%s%d %s", i ? ", " : "", p->devices[i].ordinal,
                         sc_or_unknown(p->devices[i].name));
        used += n > 0 ? (size_t)n : 0;
    }
}

static int any_rank(const sc_report *r)
{
    for (size_t i = 0; i < r->nprocs; i++)
        if (r->procs[i].rank >= 0)
            return 1;
    return 0;
}

/* ---------------------------------------------------------- header --- */

/* --range: whose time the shares are of. */
static void render_range(const sc_report *r, FILE *out)
{
    uint64_t inside = 0;
    const char *name = NULL;
    size_t n = 0;
    for (size_t i = 0; i < r->nprocs; i++)
        if (r->procs[i].range) {
            name = name ? name : r->procs[i].range;
            inside += r->procs[i].range_ns;
            n++;
        }
    if (!n)
        return;
    char b[64], names[512];
    sc_report_distinct(r, proc_range, names, sizeof names);
    sc_format_ns(inside, b, sizeof b);
    sc_text_header(out, "NVTX range", "%s: findings inside it only; %s inside it%s (what shares are of)",
           r->nprocs == 1 ? name : names, b, n > 1 ? ", summed" : "");
}

/* The first thing a person reads: what the warnings cost, in all. */
static void render_cost_total(const sc_report *r, FILE *out)
{
    char b[256];
    sc_report_cost_format(r, b, sizeof b);
    sc_text_header(out, "Estimated cost", "%s", b);
}

/* The pricing model's window and its prediction with everything fixed. */
static void render_window(const sc_process *p, FILE *out)
{
    char a[64], m[64], f[256];
    if (!p->window_ns)
        return;
    sc_format_ns(p->window_ns, a, sizeof a);
    sc_format_ns(p->model_ns, m, sizeof m);
    sc_text_header(out, "Active window", "%s, the first to the last CUDA call of the threads that wait for the GPU "
                  "(modelled: %s)", a, m);
    if (p->held_ns) {
        sc_format_ns(p->held_ns, a, sizeof a);
        sc_text_header(out, "Model held", "its first %s (a long run: a thread's calls reached the record's bound, "
                      "or replaying more would take too long at exit); the savings are extrapolated: a "
                      "finding's by its calls in all over those held", a);
    }
    if (p->loop_ns) {
        sc_format_ns(p->loop_ns, a, sizeof a);
        sc_text_header(out, "Steady loop", "%s, from a step before a hazard of every step first repeats (after the "
                      "first steps' warm-up) to a step after it last does; shares are of it (of a finding "
                      "only in the set-up or the teardown: of the window)", a);
    }
    if (sc_process_fixed_format(p, f, sizeof f) == 0)
        sc_text_header(out, "All fixed", "%s", f);
}

/* The run's machine in one line: "NAME; driver 13.0, 2 copy engines, 8
   connections" (a device list for several). */
static void format_machine(const sc_process *p, char *buf, size_t len)
{
    char dev[512], drv[64], eng[32];
    format_devices(p, "not queried", 0, dev, sizeof dev);
    sc_format_driver(p->driver_version, drv, sizeof drv);
    if (p->async_engines >= 0)
        snprintf(eng, sizeof eng, "%d copy engine%s", p->async_engines, p->async_engines == 1 ? "" : "s");
    else
        snprintf(eng, sizeof eng, "copy engines unknown");
    snprintf(buf, len, "%s; driver %s, %s, %d connections", dev, drv, eng, p->max_connections);
}

#define SIMULATED_NOTE "on the CPU simulator (its times are not GPU performance)"

/* One process: what ran where in a few lines, so the first finding is on
   the first screen; then the GPU, the window and the cost. */
static void render_header_one(const sc_report *r, const sc_process *p, FILE *out)
{
    char b[1024], t[64], d[64];
    sc_text_header(out, "Program", "%s", sc_or_unknown(p->exe));
    sc_text_header(out, "Command line", "%s", sc_or_unknown(p->cmdline));
    if (p->rank >= 0)
        sc_text_header(out, "Process", "pid %ld on %s, rank %ld", p->pid, sc_or_unknown(p->host), p->rank);
    else
        sc_text_header(out, "Process", "pid %ld on %s", p->pid, sc_or_unknown(p->host));
    format_machine(p, b, sizeof b);
    sc_text_header(out, p->ndevices > 1 ? "Devices" : "Device", "%s", b);
    /* measured mode is the GPU block (the HTML page's Mode says it too) */
    const char *measured = p->gpu ? ", measured (the GPU's timeline)" : "";
    if (p->simulated)
        sc_text_header(out, "Mode", "%s%s, " SIMULATED_NOTE, sc_or_unknown(p->mode), measured);
    else
        sc_text_header(out, "Mode", "%s%s", sc_or_unknown(p->mode), measured);
    sc_format_time(p->start_time, t, sizeof t);
    sc_format_ns(span_ns(p->start_time, p->end_time), d, sizeof d);
    sc_text_header(out, "Run time", "%s from %s", d, t);
    render_range(r, out);
    if (p->gpu) {
        sc_gpu_line(p->gpu, b, sizeof b);
        sc_text_header(out, "GPU", "%s", b + strlen("GPU: "));
    }
    render_window(p, out);
    render_cost_total(r, out);
}

static void render_header(const sc_report *r, FILE *out)
{
    char b[1024];
    fprintf(out, "@ streamcheck %s report\n", sc_or_unknown(r->tool_version));
    if (r->nprocs == 1) {
        render_header_one(r, &r->procs[0], out);
        return;
    }
    sc_text_header(out, "Processes", "%zu", r->nprocs);
    if (!r->nprocs)
        return;
    sc_report_distinct(r, proc_exe, b, sizeof b);
    sc_text_header(out, "Programs", "%s", b);
    sc_report_distinct(r, proc_host, b, sizeof b);
    sc_text_header(out, "Hosts", "%s", b);
    sc_report_distinct(r, proc_device, b, sizeof b);
    sc_text_header(out, "Devices", "%s", b);
    size_t sim = 0;
    double start = 0, end = 0;
    for (size_t i = 0; i < r->nprocs; i++) {
        sim += r->procs[i].simulated != 0;
        if (r->procs[i].start_time > 0 && (start == 0 || r->procs[i].start_time < start))
            start = r->procs[i].start_time;
        if (r->procs[i].end_time > end)
            end = r->procs[i].end_time;
    }
    char mode[512];
    sc_report_distinct(r, proc_mode, mode, sizeof mode);
    if (sim)
        sc_text_header(out, "Mode", "%s, %s" SIMULATED_NOTE, mode, sim == r->nprocs ? "" : "some processes ");
    else
        sc_text_header(out, "Mode", "%s", mode);
    char t[64];
    sc_format_time(start, t, sizeof t);
    sc_format_ns(span_ns(start, end), b, sizeof b);
    sc_text_header(out, "Run time", "%s from %s (the first start to the last end)", b, t);
    render_range(r, out);
    sc_gpu g = {0};
    size_t measured = 0, handed = 0, windowed = 0;
    for (size_t i = 0; i < r->nprocs; i++) {
        const sc_gpu *x = r->procs[i].gpu;
        if (!x)
            continue;
        measured++;
        g.span_ns += x->span_ns;
        g.busy_ns += x->busy_ns;
        g.idle_ns += x->idle_ns;
        g.overlap_ns += x->overlap_ns;
        g.overlap_compute_copy_ns += x->overlap_compute_copy_ns;
        g.overlap_compute_compute_ns += x->overlap_compute_compute_ns;
        g.ops += x->ops;
        g.ops_kept += x->ops_kept;
        g.dropped += x->dropped;
        handed += x->handed_over != 0;
        windowed += x->windowed != 0;
    }
    if (measured) {
        sc_gpu_line(&g, b, sizeof b);
        sc_text_header(out, "GPU", "%s (summed over %zu measured process%s)", b + strlen("GPU: "), measured,
               measured == 1 ? "" : "es");
        if (handed)
            sc_text_header(out, "GPU timeline", "cut short in %zu process%s: the program's own profiler took CUPTI",
                   handed, handed == 1 ? "" : "es");
        if (windowed)
            sc_text_header(out, "GPU timeline", "a window of the run in %zu process%s (--measure-window): each "
                   "finding's GPU cost scaled from its calls there to all of them", windowed,
                   windowed == 1 ? "" : "es");
    }
    render_cost_total(r, out);
}

static int render_processes(const sc_report *r, FILE *out)
{
    sc_text_table t;
    char b[64], d[32], dv[512];
    /* A Rank column when the processes are ranks of a job. */
    int ranks = any_rank(r);
    sc_text_section(out, "Processes (%zu)", r->nprocs);
    sc_text_table_init(&t, ranks ? 9 : 8, ranks ? 1u << 1 | 1u << 2 : 1u << 1);
    sc_text_cellf(&t, "#");
    if (ranks)
        sc_text_cellf(&t, "Rank");
    sc_text_cellf(&t, "PID"); sc_text_cellf(&t, "Host"); sc_text_cellf(&t, "Device");
    sc_text_cellf(&t, "Driver"); sc_text_cellf(&t, "Mode"); sc_text_cellf(&t, "Run time"); sc_text_cellf(&t, "Command");
    for (size_t i = 0; i < r->nprocs; i++) {
        const sc_process *p = &r->procs[i];
        sc_format_ns(span_ns(p->start_time, p->end_time), b, sizeof b);
        sc_format_driver(p->driver_version, d, sizeof d);
        sc_text_cellf(&t, "%zu", i);
        if (ranks && p->rank >= 0)
            sc_text_cellf(&t, "%ld", p->rank);
        else if (ranks)
            sc_text_cellf(&t, "-");
        sc_text_cellf(&t, "%ld", p->pid);
        sc_text_cellf(&t, "%s", sc_or_unknown(p->host));
        format_devices(p, "-", 1, dv, sizeof dv);
        sc_text_cellf(&t, "%s", dv);
        sc_text_cellf(&t, "%s", d);
        sc_text_cellf(&t, "%s%s", sc_or_unknown(p->mode), p->simulated ? " (sim)" : "");
        sc_text_cellf(&t, "%s", b);
        sc_text_cellf(&t, "%s", p->cmdline ? p->cmdline : sc_or_unknown(p->exe));
    }
    return sc_text_table_print(&t, out, "  ");
}

/* ---------------------------------------------------------- findings --- */

/* The frames of a finding's call site, from the one it is shown at (the
   launch line, not nvcc's glue nor NVIDIA's libraries): Python frames,
   then native ones from the primary frame.  The call-sites table has them
   all. */
static void frame_lines(const sc_callsite *cs, unsigned max, FILE *out, long number,
                        const sc_srcroot *root)
{
    char b[1024];
    unsigned shown = 0;
    size_t total = cs->npy + cs->nframes;
    int py;
    long at = sc_callsite_shown(cs, &py);
    size_t p0 = py && at > 0 ? (size_t)at : 0;
    long prim = sc_callsite_primary(cs);
    size_t n0 = prim > 0 ? (size_t)prim : 0;
    for (size_t i = p0; i < cs->npy && shown < max; i++, shown++) {
        sc_pyframe_format_in(&cs->py[i], root, b, sizeof b);
        fprintf(out, "%*s%s\n", shown ? FIELD_COL : 0, "", b);
        if (!shown && py) {
            sc_callsite_via_format(cs, b, sizeof b);   /* the library frame that made the call */
            if (b[0])
                fprintf(out, "%*s%s\n", FIELD_COL, "", b);
        }
    }
    for (size_t i = n0; i < cs->nframes && shown < max; i++, shown++) {
        sc_frame_format_in(&cs->frames[i], root, b, sizeof b);
        fprintf(out, "%*s%s\n", shown ? FIELD_COL : 0, "", b);
    }
    if (total > shown)
        fprintf(out, "%*s... %zu more (call site #%ld)\n", shown ? FIELD_COL : 0, "",
                total - shown, number + 1);
    else if (!shown)
        fprintf(out, "(no frames)\n");
}

/* How the pricing model knew when the GPU had work (process.busy_source). */
static const char *busy_how(const sc_report *r, const sc_finding *f)
{
    const char *s = f->process < r->nprocs ? r->procs[f->process].busy_source : NULL;
    if (s && !strcmp(s, "measured"))
        return "the GPU timeline measured";
    if (s && !strcmp(s, "sampled"))
        return "the GPU's busy time sampled";
    return "the GPU's busy time inferred from the waits";
}

/* A predicted saving: how much, of what, and how it was predicted. */
static void render_saving(const sc_report *r, const sc_finding *f, FILE *out)
{
    char b[64], line[512];
    uint64_t win = sc_finding_window_ns(r, f);
    sc_format_ns(f->cost_ns, b, sizeof b);
    unsigned __int128 bp = win ? (unsigned __int128)f->cost_ns * 10000 / win : 0;
    uint64_t v = bp > 1000000 ? 1000000 : (uint64_t)bp;
    int held = f->process < r->nprocs && r->procs[f->process].held_ns;
    snprintf(line, sizeof line, "fixing this saves %s (%" PRIu64 ".%02u%% of %s), predicted by "
             "replaying the run with the fix applied (%s)%s", b, v / 100, (unsigned)(v % 100),
             sc_finding_window_name(r, f), busy_how(r, f),
             held ? ", extrapolated from the part of the run the model held" : "");
    fprintf(out, FIELD, "Saves");
    sc_text_wrap(out, line, FIELD_COL, FIELD_COL);
    if (sc_together_phrase(f, line, sizeof line)) {
        fprintf(out, FIELD, "Together");
        sc_text_wrap(out, line, FIELD_COL, FIELD_COL);
    }
}

/* What a finding cost, and how we know. */
static void render_cost(const sc_report *r, const sc_finding *f, FILE *out)
{
    if (sc_cost_is_replay(f->basis)) {
        render_saving(r, f, out);
        return;
    }
    static const char *const how[SC_NCOST_BASES] = {
        [SC_COST_COPY_BLOCKED] = "host time inside the copies, less their wait for earlier work "
                                 "on the same stream: the time pinned memory gives back",
        [SC_COST_HOST_BLOCKED] = "host time inside the calls",
        [SC_COST_PENDING_BLOCKED] = "host time inside the calls that found other streams busy "
                                    "(an upper bound)",
        [SC_COST_GPU] = "GPU time lost, from the GPU timeline",
    };
    char b[64], line[512];
    if (f->basis == SC_COST_UNMEASURED || (unsigned)f->basis >= SC_NCOST_BASES) {
        snprintf(line, sizeof line, "not seen from the host: other work was pending at %" PRIu64
                 " of %" PRIu64 " calls; %s", f->pending, f->count, sc_unmeasured_why(r, f));
    } else {
        sc_format_ns(f->cost_ns, b, sizeof b);
        snprintf(line, sizeof line, "%s (%s)", b, how[f->basis]);
    }
    fprintf(out, FIELD, "Cost");
    sc_text_wrap(out, line, FIELD_COL, FIELD_COL);
    if (f->measured && f->basis != SC_COST_GPU) {
        sc_format_ns(f->gpu_lost_ns, b, sizeof b);
        snprintf(line, sizeof line, "%s lost on the GPU (measured)", b);
        fprintf(out, FIELD, "GPU cost");
        sc_text_wrap(out, line, FIELD_COL, FIELD_COL);
    }
}

static void render_finding(const sc_report *r, const sc_finding *f, FILE *out,
                           const sc_render_opts *o, const sc_srcroot *root)
{
    const sc_rule_info *ri = &sc_rules[f->rule];
    char b[128];
    unsigned max = o->max_frames ? o->max_frames : 4;

    fputc('\n', out);
    fprintf(out, "[%s] ", sc_severity_name(f->severity));
    fprintf(out, "%s %s\n", ri->id, ri->name);
    fprintf(out, FIELD, "What");
    sc_text_wrap(out, ri->summary, FIELD_COL, FIELD_COL);
    fprintf(out, FIELD, "API");
    if (f->driver_api && f->api && strcmp(f->api, f->driver_api))
        fprintf(out, "%s -> %s\n", f->api, f->driver_api);
    else
        fprintf(out, "%s\n", f->api ? f->api : sc_or_unknown(f->driver_api));
    fprintf(out, FIELD "%" PRIu64 " call%s\n", "Count", f->count, f->count == 1 ? "" : "s");
    render_cost(r, f, out);
    sc_format_ns(f->blocked_ns, b, sizeof b);
    fprintf(out, FIELD "%s of host time inside the calls\n", "Blocked", b);
    fprintf(out, FIELD "busy at %" PRIu64 " of %" PRIu64 " calls\n", "Other streams", f->pending,
            f->count);
    if (f->bytes) {
        sc_format_bytes(f->bytes, b, sizeof b);
        fprintf(out, FIELD "%s (%" PRIu64 " bytes)\n", "Bytes", b, f->bytes);
    }
    if (f->also) {
        char also[512];
        size_t used = 0;
        for (unsigned k = 0; k < SC_NRULES && used < sizeof also; k++)
            if (f->also & (1u << k)) {
                int n = snprintf(also + used, sizeof also - used, "%s%s %s", used ? ", " : "",
                                 sc_rules[k].id, sc_rules[k].name);
                used += n > 0 ? (size_t)n : 0;
            }
        if (used < sizeof also)
            snprintf(also + used, sizeof also - used, " (the same calls, reported once under the most "
                     "specific rule)");
        fprintf(out, FIELD, "Also");
        sc_text_wrap(out, also, FIELD_COL, FIELD_COL);
    }
    if (f->detail) {
        fprintf(out, FIELD, "Detail");
        sc_text_wrap(out, f->detail, FIELD_COL, FIELD_COL);
    }
    if (r->nprocs > 1 && f->process < r->nprocs) {
        const sc_process *p = &r->procs[f->process];
        if (p->rank >= 0)
            fprintf(out, FIELD "rank %ld, pid %ld on %s\n", "Process", p->rank, p->pid, sc_or_unknown(p->host));
        else
            fprintf(out, FIELD "#%u, pid %ld on %s\n", "Process", f->process, p->pid, sc_or_unknown(p->host));
    }
    /* Which device, when its process used more than one. */
    if (f->process < r->nprocs && r->procs[f->process].ndevices > 1 && f->device >= 0) {
        const char *n = sc_process_device_name(&r->procs[f->process], f->device);
        fprintf(out, FIELD "%d (%s)\n", "Device", f->device, sc_or_unknown(n));
    }
    if (f->nvtx_range)
        fprintf(out, FIELD "%s\n", "NVTX range", f->nvtx_range);
    long k = sc_report_callsite_index(r, f->callsite);
    if (k < 0) {
        fprintf(out, FIELD "none recorded\n", "Call site");
    } else {
        if (r->callsites[k].thread_name)
            fprintf(out, FIELD "%s\n", "Thread", r->callsites[k].thread_name);
        fprintf(out, FIELD "#%ld (%s)\n", "Call site", k + 1, f->callsite);
        fprintf(out, "%*s", FIELD_COL, "");
        frame_lines(&r->callsites[k], max, out, k, root);
    }
    fprintf(out, FIELD, "Fix");
    sc_text_wrap(out, ri->advice, FIELD_COL, FIELD_COL);
}

static unsigned top_of(const sc_render_opts *o)
{
    return o->top ? o->top : SC_TOP_DEFAULT;
}

/* The first top findings in full, in the report's order (ranked by cost:
   sc_report_sort); the rest one line per rule and severity. */
static int render_findings(const sc_report *r, FILE *out, const sc_render_opts *o,
                           const sc_srcroot *root)
{
    if (!r->nfindings) {
        sc_text_section(out, "Findings");
        fprintf(out, "No findings.\n");
        return 0;
    }
    size_t shown = r->nfindings < top_of(o) ? r->nfindings : top_of(o);
    if (shown == r->nfindings)
        sc_text_section(out, "Findings (%zu, ranked by cost)", r->nfindings);
    else
        sc_text_section(out, "Findings (top %zu of %zu, ranked by cost)", shown, r->nfindings);
    for (size_t i = 0; i < shown; i++)
        render_finding(r, &r->findings[i], out, o, root);
    if (shown == r->nfindings)
        return 0;

    sc_text_section(out, "Other findings (%zu)", r->nfindings - shown);
    sc_text_table t;
    char b[64];
    sc_text_table_init(&t, 5, 1u << 2 | 1u << 3);
    sc_text_cellf(&t, "Rule"); sc_text_cellf(&t, "Severity"); sc_text_cellf(&t, "Calls"); sc_text_cellf(&t, "Sites"); sc_text_cellf(&t, "Cost");
    for (int sev = SC_SEV_ERROR; sev >= SC_SEV_NOTE; sev--)
        for (unsigned rule = 0; rule < SC_NRULES; rule++) {
            uint64_t calls = 0, cost = 0, sites = 0, unmeasured = 0;
            for (size_t i = shown; i < r->nfindings; i++) {
                const sc_finding *f = &r->findings[i];
                if (f->rule != rule || (int)f->severity != sev)
                    continue;
                sites++;
                calls += f->count;
                cost += f->cost_ns;
                unmeasured += f->basis == SC_COST_UNMEASURED;
            }
            if (!sites)
                continue;
            sc_format_ns(cost, b, sizeof b);
            sc_text_cellf(&t, "%s %s", sc_rules[rule].id, sc_rules[rule].name);
            sc_text_cellf(&t, "%s", sc_severity_name((sc_severity)sev));
            sc_text_cellf(&t, "%" PRIu64, calls);
            sc_text_cellf(&t, "%" PRIu64, sites);
            if (unmeasured == sites)
                sc_text_cellf(&t, "not seen from the host");
            else
                sc_text_cellf(&t, "%s", b);
        }
    if (sc_text_table_print(&t, out, "  ") < 0)
        return -1;
    fprintf(out, "  (--top all shows every finding in full; the JSON report has them all)\n");
    return 0;
}

/* ---------------------------------------------------------- tables --- */

/* The call sites the findings shown in full and the redirects name (all
   of them with --verbose), every frame; '>' marks the one the call site
   is shown at.  Sites are numbered in the order the report first names
   them (sc_report_sort), so these are a prefix of the table. */
static void render_callsites(const sc_report *r, FILE *out, const sc_render_opts *o,
                             const sc_srcroot *root)
{
    char b[1024];
    if (!r->ncallsites)
        return;
    size_t n = r->ncallsites;
    if (!o->verbose) {
        long last = -1;
        size_t shown = r->nfindings < top_of(o) ? r->nfindings : top_of(o);
        for (size_t i = 0; i < shown; i++) {
            long k = sc_report_callsite_index(r, r->findings[i].callsite);
            if (k > last)
                last = k;
        }
        for (size_t i = 0; i < r->nredirects; i++) {
            long k = sc_report_callsite_index(r, r->redirects[i].callsite);
            if (k > last)
                last = k;
        }
        n = (size_t)(last + 1);
    }
    if (!n)
        return;
    if (n == r->ncallsites)
        sc_text_section(out, "Call sites (%zu)", r->ncallsites);
    else
        sc_text_section(out, "Call sites (%zu of %zu; --verbose shows all)", n, r->ncallsites);
    for (size_t i = 0; i < n; i++) {
        const sc_callsite *cs = &r->callsites[i];
        int py;
        long at = sc_callsite_shown(cs, &py);
        fprintf(out, "%s%3zu  %s", i ? "\n" : "", i + 1, cs->id);
        if (cs->thread_name)
            fprintf(out, "  thread: %s", cs->thread_name);
        fputc('\n', out);
        for (size_t j = 0; j < cs->npy; j++) {
            sc_pyframe_format_in(&cs->py[j], root, b, sizeof b);
            fprintf(out, "    %c  py  %s\n", py && (long)j == at ? '>' : ' ', b);
        }
        for (size_t j = 0; j < cs->nframes; j++) {
            sc_frame_format_in(&cs->frames[j], root, b, sizeof b);
            fprintf(out, "    %c %3zu  %s\n", !py && (long)j == at ? '>' : ' ', j, b);
        }
        if (!cs->npy && !cs->nframes)
            fprintf(out, "           (no frames)\n");
    }
}

static int cmp_lib_row(const void *pa, const void *pb)
{
    const sc_api_count *a = *(const sc_api_count *const *)pa, *b = *(const sc_api_count *const *)pb;
    int c = strcmp(a->library, b->library);
    if (c)
        return c;
    if (a->calls != b->calls)
        return a->calls < b->calls ? 1 : -1;
    return strcmp(a->api, b->api);
}

static int render_counts(const sc_report *r, FILE *out, const sc_render_opts *o)
{
    size_t n;
    uint64_t sum = 0;
    sc_text_table t;
    sc_api_total *tot = sc_api_totals(r, &n);
    if (!tot)
        return -1;
    for (size_t i = 0; i < n; i++)
        sum += tot[i].calls;
    sc_text_section(out, "Driver API calls (%zu entry points, %" PRIu64 " calls)", n, sum);
    if (!n) {
        fprintf(out, "None intercepted.\n");
        free(tot);
        return 0;
    }
    sc_text_table_init(&t, 2, 1u << 1);
    sc_text_cellf(&t, "API");
    sc_text_cellf(&t, "Calls");
    for (size_t i = 0; i < n; i++) {
        sc_text_cellf(&t, "%s", tot[i].api);
        sc_text_cellf(&t, "%" PRIu64, tot[i].calls);
    }
    free(tot);
    if (sc_text_table_print(&t, out, "  ") < 0)
        return -1;
    if (!o->verbose)
        return 0;

    /* Per library: merging sums rows per (library, api), so this is a
       report-wide view too. */
    const sc_api_count **rows = malloc(r->ncounts * sizeof *rows);
    if (!rows)
        return -1;
    for (size_t i = 0; i < r->ncounts; i++)
        rows[i] = &r->counts[i];
    qsort(rows, r->ncounts, sizeof *rows, cmp_lib_row);
    sc_text_section(out, "Driver API calls by calling library");
    sc_text_table_init(&t, 3, 1u << 2);
    sc_text_cellf(&t, "Library");
    sc_text_cellf(&t, "API");
    sc_text_cellf(&t, "Calls");
    for (size_t i = 0; i < r->ncounts; i++) {
        /* Rows of one (library, api) from several processes print once. */
        uint64_t calls = rows[i]->calls;
        while (i + 1 < r->ncounts && !strcmp(rows[i + 1]->library, rows[i]->library) &&
               !strcmp(rows[i + 1]->api, rows[i]->api))
            calls += rows[++i]->calls;
        sc_text_cellf(&t, "%s", rows[i]->library);
        sc_text_cellf(&t, "%s", rows[i]->api);
        sc_text_cellf(&t, "%" PRIu64, calls);
    }
    free(rows);
    return sc_text_table_print(&t, out, "  ");
}

static void render_overhead(const sc_report *r, FILE *out)
{
    uint64_t calls = 0, shim = 0, run = 0, supp = 0;
    char b[64];
    for (size_t i = 0; i < r->nprocs; i++) {
        calls += r->procs[i].calls;
        shim += r->procs[i].shim_ns;
        run += span_ns(r->procs[i].start_time, r->procs[i].end_time);
        supp += r->procs[i].suppressed;
    }
    sc_text_section(out, "Overhead%s", r->nprocs > 1 ? " (all processes)" : "");
    fprintf(out, "  %-20s: %" PRIu64 "\n", "Calls intercepted", calls);
    if (calls && !shim) {
        /* Every slow call and one fast call in 4096 are timed (an old
           report, or one of a process that never initialized). */
        fprintf(out, "  %-20s: too few calls to estimate\n", "Time in streamcheck");
    } else {
        sc_format_ns(shim, b, sizeof b);
        fprintf(out, "  %-20s: %s (estimate", "Time in streamcheck", b);
        if (run) {
            sc_format_share(shim, run, b, sizeof b);
            /* The report's own building (naming the frames, when the
               process does it at exit) comes after the run time ends. */
            fprintf(out, "; %s of run time%s", b, shim > run ? ", the report's building at exit included" : "");
        }
        fprintf(out, ")\n");
    }
    fprintf(out, "  %-20s: %" PRIu64 "\n", "Findings suppressed", supp);
}

static int render_redirects(const sc_report *r, FILE *out)
{
    sc_text_table t;
    uint64_t moved = 0, kept = 0;
    if (!r->nredirects)
        return 0;
    sc_text_section(out, "Redirects (%zu)", r->nredirects);
    int procs = r->nprocs > 1;
    sc_text_table_init(&t, procs ? 5 : 4, 1u << 3);
    sc_text_cellf(&t, "API");
    sc_text_cellf(&t, "Call site");
    sc_text_cellf(&t, "Outcome");
    sc_text_cellf(&t, "Calls");
    if (procs)
        sc_text_cellf(&t, "Process");
    for (size_t i = 0; i < r->nredirects; i++) {
        const sc_redirect *rd = &r->redirects[i];
        long k = sc_report_callsite_index(r, rd->callsite);
        sc_text_cellf(&t, "%s", sc_or_unknown(rd->api));
        if (k >= 0)
            sc_text_cellf(&t, "#%ld", k + 1);
        else
            sc_text_cellf(&t, "-");
        sc_text_cellf(&t, "%s", sc_or_unknown(rd->outcome));
        sc_text_cellf(&t, "%" PRIu64, rd->count);
        if (procs)
            sc_text_cellf(&t, "#%u", rd->process);
        if (rd->outcome && !strcmp(rd->outcome, "redirected"))
            moved += rd->count;
        else
            kept += rd->count;
    }
    if (sc_text_table_print(&t, out, "  ") < 0)
        return -1;
    fprintf(out, "  Redirected %" PRIu64 " call%s; left %" PRIu64 " on the legacy stream", moved,
            moved == 1 ? "" : "s", kept);
    /* The reasons, summed, in the order the table shows them first. */
    int any = 0;
    for (size_t i = 0; i < r->nredirects; i++) {
        const char *why = sc_or_unknown(r->redirects[i].outcome);
        if (!strcmp(why, "redirected"))
            continue;
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(sc_or_unknown(r->redirects[j].outcome), why);
        if (seen)
            continue;
        uint64_t c = 0;
        for (size_t j = i; j < r->nredirects; j++)
            if (!strcmp(sc_or_unknown(r->redirects[j].outcome), why))
                c += r->redirects[j].count;
        fprintf(out, "%s%s %" PRIu64, any ? ", " : " (", why, c);
        any = 1;
    }
    fprintf(out, "%s.\n", any ? ")" : "");
    /* The orders between threads that redirect kept (hb.h). */
    uint64_t handoffs = 0, waits = 0;
    for (size_t i = 0; i < r->nprocs; i++) {
        handoffs += r->procs[i].handoffs;
        waits += r->procs[i].handoff_waits;
    }
    fprintf(out, "  Kept the order of %" PRIu64 " hand-off%s between threads (mutexes, condition variables, "
            "semaphores, barriers, create, join): %" PRIu64 " wait%s added.\n", handoffs, handoffs == 1 ? "" : "s",
            waits, waits == 1 ? "" : "s");
    return 0;
}

static int render_body(const sc_report *r, FILE *out, const sc_render_opts *o)
{
    char line[160];
    sc_srcroot root;
    if (sc_srcroot_init(&root, o->srcroot) < 0)
        return -1;
    render_header(r, out);
    if ((r->nprocs > 1 && render_processes(r, out) < 0) || render_findings(r, out, o, &root) < 0) {
        sc_srcroot_free(&root);
        return -1;
    }
    render_callsites(r, out, o, &root);
    sc_srcroot_free(&root);
    if (render_counts(r, out, o) < 0)
        return -1;
    render_overhead(r, out);
    if (render_redirects(r, out) < 0)
        return -1;
    sc_summary_line(r, line, sizeof line);
    fprintf(out, "\n%s\n", line);
    return 0;
}

/* Copies the rendered text to out so that a terminal shows it as text:
   file names, command lines and details come from the program and may hold
   control characters (escape sequences) or bytes that are not UTF-8.  Tabs
   become spaces, other C0/C1 controls '?', invalid UTF-8 U+FFFD.  Colour
   is added here too, to the "[severity]" tags that start finding lines
   (program text never starts a line: it is always after a label). */
static void emit(FILE *out, const char *buf, size_t len, int color)
{
    static const sc_severity sevs[] = {SC_SEV_ERROR, SC_SEV_WARNING, SC_SEV_NOTE};
    const unsigned char *p = (const unsigned char *)buf, *end = p + len;
    int bol = 1;
    while (p < end) {
        if (bol && color && *p == '[') {
            for (size_t i = 0; i < 3; i++) {
                const char *name = sc_severity_name(sevs[i]);
                size_t n = strlen(name);
                if ((size_t)(end - p) > n + 2 && !memcmp(p + 1, name, n) && p[n + 1] == ']') {
                    fprintf(out, "%s[%s]\033[0m", sev_color(sevs[i]), name);
                    p += n + 2;
                    break;
                }
            }
        }
        bol = 0;
        unsigned char c = *p;
        uint32_t cp;
        size_t n;
        if (c == '\n') {
            fputc('\n', out);
            bol = 1;
            p++;
        } else if (c == '\t') {
            fputc(' ', out);
            p++;
        } else if (c < 0x20 || c == 0x7f) {
            fputc('?', out);
            p++;
        } else if (c < 0x80) {
            fputc(c, out);
            p++;
        } else if (!(n = sc_utf8_decode(p, (size_t)(end - p), &cp))) {
            fputs("\xef\xbf\xbd", out);
            p++;
        } else {
            if (cp < 0xa0)
                fputc('?', out);
            else
                fwrite(p, 1, n, out);
            p += n;
        }
    }
}

int sc_render_text(const sc_report *r, FILE *out, const sc_render_opts *o)
{
    static const sc_render_opts defaults;
    char *buf = NULL;
    size_t len = 0;
    if (!o)
        o = &defaults;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return -1;
    int rc = render_body(r, m, o);
    if (fclose(m) != 0)
        rc = -1;
    if (rc == 0)
        emit(out, buf, len, o->color);
    free(buf);
    if (rc == 0 && ferror(out)) {
        if (!errno)
            errno = EIO;
        rc = -1;
    }
    return rc;
}
