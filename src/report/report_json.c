/* report_json.c: the versioned JSON report (schema in libstreamcheck(7)).
 *
 * Fields are written in a fixed order and every collection in a defined
 * order, so render -> read -> render gives the same bytes. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report.h"

static void write_overlaps(sc_jw *w, uint64_t span, uint64_t busy, uint64_t idle, uint64_t ov,
                           uint64_t cc, uint64_t kk)
{
    sc_jw_key(w, "span_ns");
    sc_jw_u64(w, span);
    sc_jw_key(w, "busy_ns");
    sc_jw_u64(w, busy);
    sc_jw_key(w, "idle_ns");
    sc_jw_u64(w, idle);
    sc_jw_key(w, "overlap_ns");
    sc_jw_u64(w, ov);
    sc_jw_key(w, "overlap_compute_copy_ns");
    sc_jw_u64(w, cc);
    sc_jw_key(w, "overlap_compute_compute_ns");
    sc_jw_u64(w, kk);
}

/* process.gpu: null unless the process ran in measured mode. */
static void write_gpu(sc_jw *w, const sc_gpu *g)
{
    if (!g) {
        sc_jw_null(w);
        return;
    }
    sc_jw_begin_object(w);
    write_overlaps(w, g->span_ns, g->busy_ns, g->idle_ns, g->overlap_ns, g->overlap_compute_copy_ns,
                   g->overlap_compute_compute_ns);
    sc_jw_key(w, "ops");
    sc_jw_u64(w, g->ops);
    sc_jw_key(w, "ops_kept");
    sc_jw_u64(w, g->ops_kept);
    sc_jw_key(w, "dropped_records");
    sc_jw_u64(w, g->dropped);
    sc_jw_key(w, "handed_over_ns");
    if (g->handed_over)
        sc_jw_u64(w, g->handed_over_ns);
    else
        sc_jw_null(w);
    sc_jw_key(w, "devices");
    sc_jw_begin_array(w);
    for (size_t i = 0; i < g->ndevices; i++) {
        const sc_gpu_device *d = &g->devices[i];
        sc_jw_begin_object(w);
        sc_jw_key(w, "device");
        sc_jw_u64(w, d->device);
        write_overlaps(w, d->span_ns, d->busy_ns, d->idle_ns, d->overlap_ns, d->overlap_compute_copy_ns,
                       d->overlap_compute_compute_ns);
        sc_jw_key(w, "ops");
        sc_jw_u64(w, d->ops);
        sc_jw_end_object(w);
    }
    sc_jw_end_array(w);
    sc_jw_key(w, "streams");
    sc_jw_begin_array(w);
    for (size_t i = 0; i < g->nstreams; i++) {
        const sc_gpu_stream *st = &g->streams[i];
        sc_jw_begin_object(w);
        sc_jw_key(w, "device");
        sc_jw_u64(w, st->device);
        sc_jw_key(w, "stream");
        sc_jw_u64(w, st->stream);
        sc_jw_key(w, "busy_ns");
        sc_jw_u64(w, st->busy_ns);
        sc_jw_key(w, "ops");
        sc_jw_u64(w, st->ops);
        sc_jw_end_object(w);
    }
    sc_jw_end_array(w);
    sc_jw_end_object(w);
}

static void write_process(sc_jw *w, const sc_process *p, size_t index)
{
    sc_jw_begin_object(w);
    sc_jw_key(w, "index");
    sc_jw_u64(w, index);
    sc_jw_key(w, "exe");
    sc_jw_string(w, p->exe);
    sc_jw_key(w, "cmdline");
    sc_jw_string(w, p->cmdline);
    sc_jw_key(w, "pid");
    sc_jw_i64(w, p->pid);
    sc_jw_key(w, "host");
    sc_jw_string(w, p->host);
    sc_jw_key(w, "device");
    sc_jw_string(w, p->device);
    sc_jw_key(w, "driver_version");
    sc_jw_i64(w, p->driver_version);
    sc_jw_key(w, "async_engines");
    sc_jw_i64(w, p->async_engines);
    sc_jw_key(w, "max_connections");
    sc_jw_i64(w, p->max_connections);
    sc_jw_key(w, "mode");
    sc_jw_string(w, p->mode);
    sc_jw_key(w, "simulated");
    sc_jw_bool(w, p->simulated);
    sc_jw_key(w, "start_time");
    sc_jw_micro(w, sc_seconds_to_micro(p->start_time));
    sc_jw_key(w, "end_time");
    sc_jw_micro(w, sc_seconds_to_micro(p->end_time));
    sc_jw_key(w, "calls");
    sc_jw_u64(w, p->calls);
    sc_jw_key(w, "shim_ns");
    sc_jw_u64(w, p->shim_ns);
    sc_jw_key(w, "suppressed");
    sc_jw_u64(w, p->suppressed);
    sc_jw_key(w, "gpu");
    write_gpu(w, p->gpu);
    sc_jw_key(w, "devices");
    sc_jw_begin_array(w);
    for (size_t i = 0; i < p->ndevices; i++) {
        sc_jw_begin_object(w);
        sc_jw_key(w, "ordinal");
        sc_jw_i64(w, p->devices[i].ordinal);
        sc_jw_key(w, "name");
        sc_jw_string(w, p->devices[i].name);
        sc_jw_end_object(w);
    }
    sc_jw_end_array(w);
    sc_jw_key(w, "rank");
    if (p->rank >= 0)
        sc_jw_i64(w, p->rank);
    else
        sc_jw_null(w);
    sc_jw_key(w, "handoffs");
    sc_jw_u64(w, p->handoffs);
    sc_jw_key(w, "handoff_waits");
    sc_jw_u64(w, p->handoff_waits);
    sc_jw_end_object(w);
}

static void write_finding(sc_jw *w, const sc_finding *f)
{
    sc_jw_begin_object(w);
    sc_jw_key(w, "rule");
    sc_jw_string(w, sc_rules[f->rule].id);
    sc_jw_key(w, "name");
    sc_jw_string(w, sc_rules[f->rule].name);
    sc_jw_key(w, "severity");
    sc_jw_string(w, sc_severity_name(f->severity));
    sc_jw_key(w, "api");
    sc_jw_string(w, f->api);
    sc_jw_key(w, "driver_api");
    sc_jw_string(w, f->driver_api);
    sc_jw_key(w, "count");
    sc_jw_u64(w, f->count);
    sc_jw_key(w, "blocked_ns");
    sc_jw_u64(w, f->blocked_ns);
    sc_jw_key(w, "pending");
    sc_jw_u64(w, f->pending);
    sc_jw_key(w, "bytes");
    sc_jw_u64(w, f->bytes);
    sc_jw_key(w, "lost_ns");
    sc_jw_u64(w, f->lost_ns);
    sc_jw_key(w, "cost_ns");
    sc_jw_u64(w, f->cost_ns);
    sc_jw_key(w, "cost_basis");
    sc_jw_string(w, sc_cost_basis_name(f->basis));
    sc_jw_key(w, "also");
    sc_jw_begin_array(w);
    for (unsigned k = 0; k < SC_NRULES; k++)
        if (f->also & (1u << k))
            sc_jw_string(w, sc_rules[k].id);
    sc_jw_end_array(w);
    sc_jw_key(w, "callsite");
    sc_jw_string(w, *f->callsite ? f->callsite : NULL);
    sc_jw_key(w, "detail");
    sc_jw_string(w, f->detail);
    sc_jw_key(w, "process");
    sc_jw_u64(w, f->process);
    sc_jw_key(w, "gpu_lost_ns");
    if (f->measured)
        sc_jw_u64(w, f->gpu_lost_ns);
    else
        sc_jw_null(w);
    sc_jw_key(w, "device");
    if (f->device >= 0)
        sc_jw_i64(w, f->device);
    else
        sc_jw_null(w);
    sc_jw_end_object(w);
}

static void write_callsite(sc_jw *w, const sc_callsite *cs)
{
    char off[24];
    sc_jw_begin_object(w);
    sc_jw_key(w, "id");
    sc_jw_string(w, cs->id);
    if (cs->thread_name) {
        sc_jw_key(w, "thread_name");
        sc_jw_string(w, cs->thread_name);
    }
    /* Derived (sc_callsite_primary), for readers of the file: the index in
       frames of the frame the call site is shown at when it has no Python
       frame with a line. */
    long primary = sc_callsite_primary(cs);
    sc_jw_key(w, "primary");
    if (primary < 0)
        sc_jw_string(w, NULL);
    else
        sc_jw_u64(w, (uint64_t)primary);
    sc_jw_key(w, "frames");
    sc_jw_begin_array(w);
    for (size_t i = 0; i < cs->nframes; i++) {
        const sc_frame *f = &cs->frames[i];
        sc_jw_begin_object(w);
        sc_jw_key(w, "module");
        sc_jw_string(w, f->module);
        /* A string: JSON numbers above 2^53 lose bits in most readers. */
        snprintf(off, sizeof off, "0x%" PRIx64, f->offset);
        sc_jw_key(w, "offset");
        sc_jw_string(w, off);
        sc_jw_key(w, "function");
        sc_jw_string(w, f->function);
        sc_jw_key(w, "file");
        sc_jw_string(w, f->file);
        sc_jw_key(w, "line");
        sc_jw_u64(w, f->line);
        sc_jw_end_object(w);
    }
    sc_jw_end_array(w);
    sc_jw_key(w, "python");
    sc_jw_begin_array(w);
    for (size_t i = 0; i < cs->npy; i++) {
        const sc_pyframe *f = &cs->py[i];
        sc_jw_begin_object(w);
        sc_jw_key(w, "file");
        sc_jw_string(w, f->file);
        sc_jw_key(w, "line");
        sc_jw_u64(w, f->line);
        sc_jw_key(w, "function");
        sc_jw_string(w, f->function);
        sc_jw_end_object(w);
    }
    sc_jw_end_array(w);
    sc_jw_end_object(w);
}

static int cmp_row_key(const void *pa, const void *pb)
{
    const sc_api_count *a = *(const sc_api_count *const *)pa, *b = *(const sc_api_count *const *)pb;
    int c = strcmp(a->library, b->library);
    return c ? c : strcmp(a->api, b->api);
}

typedef struct lib_row {
    const char *library, *api;
    uint64_t calls;
} lib_row;

static int cmp_lib_row(const void *pa, const void *pb)
{
    const lib_row *a = pa, *b = pb;
    int c = strcmp(a->library, b->library);
    if (c)
        return c;
    if (a->calls != b->calls)
        return a->calls < b->calls ? 1 : -1;
    return strcmp(a->api, b->api);
}

/* library -> {api -> calls}: libraries by name, apis by calls descending.
   Rows of the same (library, api) are summed. */
static int write_by_library(sc_jw *w, const sc_report *r)
{
    const sc_api_count **p = malloc((r->ncounts ? r->ncounts : 1) * sizeof *p);
    lib_row *rows = malloc((r->ncounts ? r->ncounts : 1) * sizeof *rows);
    size_t n = 0;
    if (!p || !rows) {
        free(p);
        free(rows);
        return -1;
    }
    for (size_t i = 0; i < r->ncounts; i++)
        p[i] = &r->counts[i];
    qsort(p, r->ncounts, sizeof *p, cmp_row_key);
    for (size_t i = 0; i < r->ncounts; i++) {
        if (n && !strcmp(rows[n - 1].library, p[i]->library) && !strcmp(rows[n - 1].api, p[i]->api)) {
            rows[n - 1].calls += p[i]->calls;
            continue;
        }
        rows[n++] = (lib_row){p[i]->library, p[i]->api, p[i]->calls};
    }
    qsort(rows, n, sizeof *rows, cmp_lib_row);
    sc_jw_begin_object(w);
    for (size_t i = 0; i < n; i++) {
        if (!i || strcmp(rows[i - 1].library, rows[i].library)) {
            if (i)
                sc_jw_end_object(w);
            sc_jw_key(w, rows[i].library);
            sc_jw_begin_object(w);
        }
        sc_jw_key(w, rows[i].api);
        sc_jw_u64(w, rows[i].calls);
    }
    if (n)
        sc_jw_end_object(w);
    sc_jw_end_object(w);
    free(p);
    free(rows);
    return 0;
}

int sc_render_json(const sc_report *r, FILE *out, const sc_render_opts *o)
{
    (void)o; /* the JSON report is the whole model: nothing to choose */
    sc_jw w;
    uint64_t e, wn, nt;
    size_t ntot;
    sc_api_total *tot = sc_api_totals(r, &ntot);
    if (!tot)
        return -1;
    sc_report_totals(r, &e, &wn, &nt);
    sc_jw_init(&w, out);
    sc_jw_begin_object(&w);
    sc_jw_key(&w, "schema_version");
    sc_jw_u64(&w, SC_SCHEMA_VERSION);
    sc_jw_key(&w, "tool");
    sc_jw_begin_object(&w);
    sc_jw_key(&w, "name");
    sc_jw_string(&w, "streamcheck");
    sc_jw_key(&w, "version");
    sc_jw_string(&w, r->tool_version);
    sc_jw_end_object(&w);

    sc_jw_key(&w, "summary");
    sc_jw_begin_object(&w);
    sc_jw_key(&w, "findings");
    sc_jw_u64(&w, r->nfindings);
    sc_jw_key(&w, "errors");
    sc_jw_u64(&w, e);
    sc_jw_key(&w, "warnings");
    sc_jw_u64(&w, wn);
    sc_jw_key(&w, "notes");
    sc_jw_u64(&w, nt);
    sc_jw_end_object(&w);

    if (r->nprocs == 1) {
        sc_jw_key(&w, "process");
        write_process(&w, &r->procs[0], 0);
    }
    sc_jw_key(&w, "processes");
    sc_jw_begin_array(&w);
    for (size_t i = 0; i < r->nprocs; i++)
        write_process(&w, &r->procs[i], i);
    sc_jw_end_array(&w);

    sc_jw_key(&w, "findings");
    sc_jw_begin_array(&w);
    for (size_t i = 0; i < r->nfindings; i++)
        write_finding(&w, &r->findings[i]);
    sc_jw_end_array(&w);

    sc_jw_key(&w, "callsites");
    sc_jw_begin_array(&w);
    for (size_t i = 0; i < r->ncallsites; i++)
        write_callsite(&w, &r->callsites[i]);
    sc_jw_end_array(&w);

    sc_jw_key(&w, "redirects");
    sc_jw_begin_array(&w);
    for (size_t i = 0; i < r->nredirects; i++) {
        const sc_redirect *rd = &r->redirects[i];
        sc_jw_begin_object(&w);
        sc_jw_key(&w, "api");
        sc_jw_string(&w, rd->api);
        sc_jw_key(&w, "callsite");
        sc_jw_string(&w, *rd->callsite ? rd->callsite : NULL);
        sc_jw_key(&w, "outcome");
        sc_jw_string(&w, rd->outcome);
        sc_jw_key(&w, "count");
        sc_jw_u64(&w, rd->count);
        sc_jw_key(&w, "process");
        sc_jw_u64(&w, rd->process);
        sc_jw_end_object(&w);
    }
    sc_jw_end_array(&w);

    sc_jw_key(&w, "api_counts");
    sc_jw_begin_object(&w);
    for (size_t i = 0; i < ntot; i++) {
        sc_jw_key(&w, tot[i].api);
        sc_jw_u64(&w, tot[i].calls);
    }
    sc_jw_end_object(&w);
    free(tot);

    sc_jw_key(&w, "api_counts_by_library");
    if (write_by_library(&w, r) < 0)
        return -1;
    sc_jw_end_object(&w);
    return sc_jw_finish(&w);
}
