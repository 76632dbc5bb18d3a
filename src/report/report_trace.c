/* report_trace.c: the GPU timeline of measured mode in the Chrome trace
 * event format (the JSON Object Format: {"traceEvents": [...]}), which the
 * Perfetto UI and chrome://tracing open.
 *
 *   - a process per device (pid = device ordinal, as Kineto does), a track
 *     per stream (tid = CUPTI stream id): each kernel, copy and memset is a
 *     complete event ("ph":"X") with its name, bytes, stream and
 *     correlation id;
 *   - the host process (pid = its pid): per host thread a track for its
 *     runtime API calls and one for its driver API calls (CUPTI's API
 *     records), and a "streamcheck findings" track with each finding event
 *     as an instant ("ph":"i") and its call as a complete event, from which
 *     a flow arrow ("ph":"s" ... "ph":"f", "bp":"e", same id) leads to the
 *     GPU operation it held back most;
 *   - metadata events ("ph":"M") name every process and track.
 *
 * ts and dur are microseconds (with ns decimals) since the process started.
 * A viewer cannot show complete events that overlap on one track, so each
 * track's events are sorted and an event that starts before the previous
 * one ended is moved to that end (args.clipped_ns says by how much).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report.h"

static void put_us(FILE *out, int64_t ns)
{
    if (ns < 0)
        ns = 0;
    fprintf(out, "%" PRId64 ".%03d", ns / 1000, (int)(ns % 1000));
}

static void put_str(FILE *out, const char *s)
{
    fputc('"', out);
    sc_json_escape(out, s ? s : "");
    fputc('"', out);
}

static const char *name_of(const sc_report *r, uint32_t i)
{
    return i < r->nnames && r->names[i] ? r->names[i] : "";
}

static const char *const copy_names[] = {"", "HtoD", "DtoH", "DtoD", "HtoH", "copy"};
static const char *const mem_names[] = {"?", "Pageable", "Pinned", "Device", "Managed", "other"};

static void op_name(const sc_report *r, const sc_gpu_op *op, char *buf, size_t len)
{
    switch (op->kind) {
    case SC_GPU_KERNEL:
        snprintf(buf, len, "%s", *name_of(r, op->name) ? name_of(r, op->name) : "kernel");
        break;
    case SC_GPU_MEMCPY:
        snprintf(buf, len, "Memcpy %s (%s -> %s)", copy_names[op->copy < 6 ? op->copy : 5],
                 mem_names[op->src < 6 ? op->src : 5], mem_names[op->dst < 6 ? op->dst : 5]);
        break;
    default:
        snprintf(buf, len, "Memset (%s)", mem_names[op->dst < 6 ? op->dst : 5]);
        break;
    }
}

/* ------------------------------------------------------------ sorting --- */
static const sc_report *sort_r;

static int cmp_op(const void *pa, const void *pb)
{
    const sc_gpu_op *a = &sort_r->gpu_ops[*(const size_t *)pa], *b = &sort_r->gpu_ops[*(const size_t *)pb];
    if (a->process != b->process) return a->process < b->process ? -1 : 1;
    if (a->device != b->device) return a->device < b->device ? -1 : 1;
    if (a->stream != b->stream) return a->stream < b->stream ? -1 : 1;
    if (a->start_ns != b->start_ns) return a->start_ns < b->start_ns ? -1 : 1;
    if (a->end_ns != b->end_ns) return a->end_ns < b->end_ns ? -1 : 1;
    return *(const size_t *)pa < *(const size_t *)pb ? -1 : 1;
}

/* Host threads: CUPTI thread ids of one process, in order of first use,
   so their tracks get small numbers. */
typedef struct thr { unsigned process; uint32_t id; } thr;
typedef struct thrs { thr *v; size_t n, cap; } thrs;

static long thr_index(thrs *t, unsigned process, uint32_t id, int add)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i].process == process && t->v[i].id == id)
            return (long)i;
    if (!add)
        return -1;
    if (t->n == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 16;
        thr *nv = realloc(t->v, nc * sizeof *nv);
        if (!nv)
            return -1;
        t->v = nv;
        t->cap = nc;
    }
    t->v[t->n] = (thr){process, id};
    return (long)t->n++;
}

/* Track ids of a host thread k: runtime 3k+1, driver 3k+2, findings 3k+3. */
enum { TR_RUNTIME = 1, TR_DRIVER = 2, TR_FINDINGS = 3 };
static long tid_of(long k, int which) { return 3 * k + which; }

static int cmp_span(const void *pa, const void *pb)
{
    const sc_host_span *a = &sort_r->host_spans[*(const size_t *)pa],
                       *b = &sort_r->host_spans[*(const size_t *)pb];
    if (a->process != b->process) return a->process < b->process ? -1 : 1;
    if (a->thread != b->thread) return a->thread < b->thread ? -1 : 1;
    if (a->runtime != b->runtime) return a->runtime > b->runtime ? -1 : 1;
    if (a->start_ns != b->start_ns) return a->start_ns < b->start_ns ? -1 : 1;
    if (a->end_ns != b->end_ns) return a->end_ns > b->end_ns ? -1 : 1;
    return *(const size_t *)pa < *(const size_t *)pb ? -1 : 1;
}

static int cmp_mark(const void *pa, const void *pb)
{
    const sc_finding_mark *a = &sort_r->marks[*(const size_t *)pa], *b = &sort_r->marks[*(const size_t *)pb];
    if (a->process != b->process) return a->process < b->process ? -1 : 1;
    if (a->thread != b->thread) return a->thread < b->thread ? -1 : 1;
    if (a->start_ns != b->start_ns) return a->start_ns < b->start_ns ? -1 : 1;
    return *(const size_t *)pa < *(const size_t *)pb ? -1 : 1;
}

static size_t *index_sorted(const sc_report *r, size_t n, int (*cmp)(const void *, const void *))
{
    size_t *ix = malloc((n ? n : 1) * sizeof *ix);
    if (!ix)
        return NULL;
    for (size_t i = 0; i < n; i++)
        ix[i] = i;
    sort_r = r;
    qsort(ix, n, sizeof *ix, cmp);
    return ix;
}

/* ------------------------------------------------------------- events --- */
typedef struct em {
    FILE *out;
    int first;
} em;

static void begin_event(em *e)
{
    fputs(e->first ? "\n" : ",\n", e->out);
    e->first = 0;
}

static void meta(em *e, long pid, long tid, const char *what, const char *name)
{
    begin_event(e);
    fprintf(e->out, "{\"name\":\"%s\",\"ph\":\"M\",\"ts\":0,\"pid\":%ld,\"tid\":%ld,\"args\":{\"name\":", what,
            pid, tid);
    put_str(e->out, name);
    fputs("}}", e->out);
}

static void sort_meta(em *e, long pid, long tid, const char *what, long index)
{
    begin_event(e);
    fprintf(e->out, "{\"name\":\"%s\",\"ph\":\"M\",\"ts\":0,\"pid\":%ld,\"tid\":%ld,\"args\":{\"sort_index\":%ld}}",
            what, pid, tid, index);
}

/* A complete event; *prev_end keeps the track free of overlaps. */
static void complete(em *e, long pid, long tid, const char *name, const char *cat, int64_t start, int64_t end,
                     int64_t *prev_end, const char *args)
{
    int64_t clipped = 0;
    if (end < start)
        end = start;
    if (start < *prev_end) {
        clipped = *prev_end - start;
        start = *prev_end;
        if (end < start)
            end = start;
    }
    *prev_end = end;
    begin_event(e);
    fputs("{\"name\":", e->out);
    put_str(e->out, name);
    fprintf(e->out, ",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":", cat);
    put_us(e->out, start);
    fputs(",\"dur\":", e->out);
    put_us(e->out, end - start);
    fprintf(e->out, ",\"pid\":%ld,\"tid\":%ld,\"args\":{%s", pid, tid, args);
    if (clipped)
        fprintf(e->out, "%s\"clipped_ns\":%" PRId64, *args ? "," : "", clipped);
    fputs("}}", e->out);
}

/* Process p's metadata: its host process, its devices and streams (ops
   sorted), its host threads' tracks (added to th in order of first use). */
static void process_meta(em *e, const sc_report *r, size_t p, const size_t *ops, thrs *th)
{
    const sc_process *pr = &r->procs[p];
    long hpid = pr->pid;
    char name[512];
    const char *exe = pr->exe ? strrchr(pr->exe, '/') : NULL;
    exe = exe ? exe + 1 : pr->exe ? pr->exe : "program";
    snprintf(name, sizeof name, "%s (pid %ld): host threads", exe, hpid);
    meta(e, hpid, 0, "process_name", name);
    sort_meta(e, hpid, 0, "process_sort_index", 0);
    for (size_t i = 0; i < r->ngpu_ops; i++) {
        const sc_gpu_op *op = &r->gpu_ops[ops[i]];
        if (op->process != p)
            continue;
        const sc_gpu_op *prev = i ? &r->gpu_ops[ops[i - 1]] : NULL;
        int newdev = !prev || prev->process != p || prev->device != op->device;
        if (newdev) {
            snprintf(name, sizeof name, "GPU %u%s%s", op->device, pr->device ? ": " : "",
                     pr->device ? pr->device : "");
            meta(e, op->device, 0, "process_name", name);
            sort_meta(e, op->device, 0, "process_sort_index", 1 + (long)op->device);
        }
        if (newdev || prev->stream != op->stream) {
            snprintf(name, sizeof name, "stream %u", op->stream);
            meta(e, op->device, op->stream, "thread_name", name);
            sort_meta(e, op->device, op->stream, "thread_sort_index", op->stream);
        }
    }
    for (size_t i = 0; i < r->nhost_spans; i++)
        if (r->host_spans[i].process == p)
            thr_index(th, (unsigned)p, r->host_spans[i].thread, 1);
    for (size_t i = 0; i < r->nmarks; i++)
        if (r->marks[i].process == p)
            thr_index(th, (unsigned)p, r->marks[i].thread, 1);
    for (size_t k = 0; k < th->n; k++) {
        if (th->v[k].process != p)
            continue;
        static const char *const what[] = {"", "CUDA runtime API", "CUDA driver API", "streamcheck findings"};
        for (int w = TR_RUNTIME; w <= TR_FINDINGS; w++) {
            snprintf(name, sizeof name, "thread %zu (CUPTI id %" PRIu32 "): %s", k, th->v[k].id, what[w]);
            meta(e, hpid, tid_of((long)k, w), "thread_name", name);
            sort_meta(e, hpid, tid_of((long)k, w), "thread_sort_index", tid_of((long)k, w));
        }
    }
}

/* GPU operations, track by track. */
static void op_events(em *e, const sc_report *r, const size_t *ops)
{
    char name[512], args[1024];
    int64_t prev_end = INT64_MIN;
    for (size_t i = 0; i < r->ngpu_ops; i++) {
        const sc_gpu_op *op = &r->gpu_ops[ops[i]];
        const sc_gpu_op *prev = i ? &r->gpu_ops[ops[i - 1]] : NULL;
        if (!prev || prev->process != op->process || prev->device != op->device || prev->stream != op->stream)
            prev_end = INT64_MIN;
        op_name(r, op, name, sizeof name);
        snprintf(args, sizeof args, "\"device\":%u,\"stream\":%u,\"bytes\":%" PRIu64 ",\"correlation\":%u",
                 op->device, op->stream, op->bytes, op->correlation);
        static const char *const cats[] = {"kernel", "memcpy", "memset"};
        complete(e, op->device, op->stream, name, cats[op->kind < 3 ? op->kind : 0], op->start_ns, op->end_ns,
                 &prev_end, args);
    }
}

/* Host API calls, track by track. */
static void span_events(em *e, const sc_report *r, const size_t *spans, thrs *th)
{
    char args[1024];
    int64_t prev_end = INT64_MIN;
    for (size_t i = 0; i < r->nhost_spans; i++) {
        const sc_host_span *s = &r->host_spans[spans[i]];
        const sc_host_span *prev = i ? &r->host_spans[spans[i - 1]] : NULL;
        if (!prev || prev->process != s->process || prev->thread != s->thread || prev->runtime != s->runtime)
            prev_end = INT64_MIN;
        long k = thr_index(th, s->process, s->thread, 0);
        if (k < 0 || s->process >= r->nprocs)
            continue;
        snprintf(args, sizeof args, "\"correlation\":%u", s->correlation);
        complete(e, r->procs[s->process].pid, tid_of(k, s->runtime ? TR_RUNTIME : TR_DRIVER),
                 name_of(r, s->name), s->runtime ? "cuda_runtime" : "cuda_driver", s->start_ns, s->end_ns,
                 &prev_end, args);
    }
}

/* A finding event on track (hpid, tid): its call, an instant, and a flow
   (number flow) to the GPU operation it held back. */
static void mark_events(em *e, const sc_report *r, const sc_finding_mark *m, long hpid, long tid,
                        int64_t *prev_end, unsigned long *flow)
{
    FILE *out = e->out;
    char name[512], args[1024];
    const sc_rule_info *ri = &sc_rules[m->rule < SC_NRULES ? m->rule : 0];
    snprintf(name, sizeof name, "%s %s", ri->id, ri->name);
    int n = snprintf(args, sizeof args, "\"rule\":\"%s\",\"callsite\":\"%s\",\"gpu_lost_ns\":%" PRIu64
                     ",\"correlation\":%u,\"api\":", ri->id, m->callsite, m->lost_ns, m->correlation);
    /* the api name is ours (an entry point name): no escaping needed,
       but keep it JSON-safe anyway */
    const char *api = name_of(r, m->api);
    size_t at = n > 0 ? (size_t)n : 0;
    if (at < sizeof args - 2)
        args[at++] = '"';
    for (const char *c = api; *c && at < sizeof args - 3; c++)
        if (*c != '"' && *c != '\\' && (unsigned char)*c >= 0x20)
            args[at++] = *c;
    args[at++] = '"';
    args[at] = 0;
    int64_t start = m->start_ns < *prev_end ? *prev_end : m->start_ns;
    complete(e, hpid, tid, name, "streamcheck", m->start_ns, m->end_ns, prev_end, args);
    begin_event(e);
    fputs("{\"name\":", out);
    put_str(out, name);
    fputs(",\"cat\":\"streamcheck\",\"ph\":\"i\",\"s\":\"t\",\"ts\":", out);
    put_us(out, start);
    fprintf(out, ",\"pid\":%ld,\"tid\":%ld,\"args\":{%s}}", hpid, tid, args);
    if (m->op >= 0 && (size_t)m->op < r->ngpu_ops) {
        const sc_gpu_op *op = &r->gpu_ops[m->op];
        ++*flow;
        begin_event(e);
        fputs("{\"name\":\"held back\",\"cat\":\"streamcheck\",\"ph\":\"s\",\"id\":", out);
        fprintf(out, "%lu,\"ts\":", *flow);
        put_us(out, start);
        fprintf(out, ",\"pid\":%ld,\"tid\":%ld}", hpid, tid);
        begin_event(e);
        fputs("{\"name\":\"held back\",\"cat\":\"streamcheck\",\"ph\":\"f\",\"bp\":\"e\",\"id\":", out);
        fprintf(out, "%lu,\"ts\":", *flow);
        put_us(out, op->start_ns);
        fprintf(out, ",\"pid\":%u,\"tid\":%u}", op->device, op->stream);
    }
}

int sc_render_trace(const sc_report *r, FILE *out, const sc_render_opts *o)
{
    (void)o; /* the timeline has no options */
    em e = {out, 1};
    thrs th = {0};
    size_t *ops = index_sorted(r, r->ngpu_ops, cmp_op);
    size_t *spans = index_sorted(r, r->nhost_spans, cmp_span);
    size_t *marks = index_sorted(r, r->nmarks, cmp_mark);
    int rc = -1;
    if (!ops || !spans || !marks)
        goto done;
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
    for (size_t p = 0; p < r->nprocs; p++)
        process_meta(&e, r, p, ops, &th);
    op_events(&e, r, ops);
    span_events(&e, r, spans, &th);
    int64_t prev_end = INT64_MIN;
    unsigned long flow = 0;
    for (size_t i = 0; i < r->nmarks; i++) {
        const sc_finding_mark *m = &r->marks[marks[i]];
        const sc_finding_mark *prev = i ? &r->marks[marks[i - 1]] : NULL;
        if (!prev || prev->process != m->process || prev->thread != m->thread)
            prev_end = INT64_MIN;
        long k = thr_index(&th, m->process, m->thread, 0);
        if (k >= 0 && m->process < r->nprocs)
            mark_events(&e, r, m, r->procs[m->process].pid, tid_of(k, TR_FINDINGS), &prev_end, &flow);
    }
    fputs("\n]}\n", out);
    rc = ferror(out) ? -1 : 0;
    if (rc)
        errno = EIO;
done:
    if (rc && !errno)
        errno = ENOMEM;
    free(ops);
    free(spans);
    free(marks);
    free(th.v);
    return rc;
}
