/* report_sarif.c: SARIF 2.1.0 (OASIS) for code-scanning services.
 *
 * One run; the rule metadata comes from the catalogue, so ruleIndex is the
 * rule's position in it.  Each finding is a result located at the frame a
 * person would open (Python first), with the whole stack under "stacks"
 * and the call-site id as a partial fingerprint, which is what lets GitHub
 * code scanning match a result across runs. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json.h"
#include "report.h"

#define SARIF_SCHEMA \
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
#define SC_INFORMATION_URI "https://github.com/streamcheck/streamcheck"

/* RFC 3986 path characters that need no escaping; the rest become %XX,
   which also keeps a ':' in a relative path from reading as a scheme. */
static int uri_plain(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '.' || c == '_' || c == '~' || c == '/';
}

static char *uri_encode(const char *prefix, const char *path)
{
    size_t n = strlen(prefix), m = strlen(path);
    char *s = malloc(n + 3 * m + 1), *o;
    if (!s)
        return NULL;
    memcpy(s, prefix, n);
    o = s + n;
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (uri_plain(*p)) {
            *o++ = (char)*p;
        } else {
            static const char hex[] = "0123456789ABCDEF";
            *o++ = '%';
            *o++ = hex[*p >> 4];
            *o++ = hex[*p & 15];
        }
    }
    *o = '\0';
    return s;
}

/* The artifactLocation for a file path: below the source root, relative
   to it (uriBaseId SRCROOT); elsewhere absolute; a relative path as the
   compiler recorded it is taken as relative to the root, unless it climbs
   out of it (../sysdeps/... of a distribution's libc). */
static int write_artifact(sc_jw *w, const char *file, const sc_srcroot *root)
{
    char *uri;
    int base = 0;
    char rb[4096];
    const char *rel = sc_srcroot_rel(root, file, rb, sizeof rb);
    if (rel) {
        uri = uri_encode("", rel);
        base = 1;
    } else if (file[0] == '/') {
        uri = uri_encode("file://", file);
    } else {
        uri = uri_encode("", file);
        base = root && root->lex && strncmp(file, "../", 3);
    }
    if (!uri)
        return -1;
    sc_jw_key(w, "artifactLocation");
    sc_jw_begin_object(w);
    sc_jw_key(w, "uri");
    sc_jw_string(w, uri);
    if (base) {
        sc_jw_key(w, "uriBaseId");
        sc_jw_string(w, "SRCROOT");
    }
    sc_jw_end_object(w);
    free(uri);
    return 0;
}

static void multiformat(sc_jw *w, const char *key, const char *text)
{
    sc_jw_key(w, key);
    sc_jw_begin_object(w);
    sc_jw_key(w, "text");
    sc_jw_string(w, text);
    sc_jw_end_object(w);
}

static int write_rules(sc_jw *w)
{
    sc_jw_key(w, "rules");
    sc_jw_begin_array(w);
    for (int i = 0; i < SC_NRULES; i++) {
        const sc_rule_info *ri = &sc_rules[i];
        char *text = NULL, *md = NULL;
        if (asprintf(&text, "%s\n\nBefore:\n%s\n\nAfter:\n%s", ri->advice, ri->before, ri->after) < 0)
            return -1;
        if (asprintf(&md, "%s\n\nBefore:\n\n```c\n%s\n```\n\nAfter:\n\n```c\n%s\n```", ri->advice, ri->before,
                     ri->after) < 0) {
            free(text);
            return -1;
        }
        sc_jw_begin_object(w);
        sc_jw_key(w, "id");
        sc_jw_string(w, ri->id);
        sc_jw_key(w, "name");
        sc_jw_string(w, ri->name);
        multiformat(w, "shortDescription", ri->summary);
        multiformat(w, "fullDescription", ri->detail);
        sc_jw_key(w, "help");
        sc_jw_begin_object(w);
        sc_jw_key(w, "text");
        sc_jw_string(w, text);
        sc_jw_key(w, "markdown");
        sc_jw_string(w, md);
        sc_jw_end_object(w);
        sc_jw_key(w, "defaultConfiguration");
        sc_jw_begin_object(w);
        sc_jw_key(w, "level");
        sc_jw_string(w, sc_severity_name(ri->severity));
        sc_jw_end_object(w);
        sc_jw_key(w, "properties");
        sc_jw_begin_object(w);
        sc_jw_key(w, "doc");
        sc_jw_string(w, ri->doc);
        sc_jw_key(w, "tags");
        sc_jw_begin_array(w);
        sc_jw_string(w, "cuda");
        sc_jw_string(w, "performance");
        sc_jw_string(w, "synchronization");
        sc_jw_end_array(w);
        sc_jw_end_object(w);
        sc_jw_end_object(w);
        free(text);
        free(md);
    }
    sc_jw_end_array(w);
    return 0;
}

static void utc(double t, char *buf, size_t len)
{
    struct tm tm;
    time_t s = (time_t)(t > 0 && t < 1e12 ? t : 0);
    int64_t ms = sc_seconds_to_micro(t) / 1000 % 1000;
    buf[0] = '\0';
    if (s > 0 && gmtime_r(&s, &tm)) {
        size_t n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(buf + n, len - n, ".%03dZ", (int)ms);
    }
}

static void write_invocation(sc_jw *w, const sc_process *p, size_t index)
{
    char b[64];
    sc_jw_begin_object(w);
    sc_jw_key(w, "executionSuccessful");
    sc_jw_bool(w, 1);
    if (p->cmdline) {
        sc_jw_key(w, "commandLine");
        sc_jw_string(w, p->cmdline);
    }
    if (p->host) {
        sc_jw_key(w, "machine");
        sc_jw_string(w, p->host);
    }
    sc_jw_key(w, "processId");
    sc_jw_i64(w, p->pid);
    utc(p->start_time, b, sizeof b);
    if (*b) {
        sc_jw_key(w, "startTimeUtc");
        sc_jw_string(w, b);
    }
    utc(p->end_time, b, sizeof b);
    if (*b) {
        sc_jw_key(w, "endTimeUtc");
        sc_jw_string(w, b);
    }
    sc_jw_key(w, "properties");
    sc_jw_begin_object(w);
    sc_jw_key(w, "process");
    sc_jw_u64(w, index);
    sc_jw_key(w, "exe");
    sc_jw_string(w, p->exe);
    sc_jw_key(w, "device");
    sc_jw_string(w, p->device);
    sc_jw_key(w, "driverVersion");
    sc_jw_i64(w, p->driver_version);
    sc_jw_key(w, "mode");
    sc_jw_string(w, p->mode);
    sc_jw_key(w, "simulated");
    sc_jw_bool(w, p->simulated);
    sc_jw_key(w, "interceptedCalls");
    sc_jw_u64(w, p->calls);
    sc_jw_key(w, "suppressed");
    sc_jw_u64(w, p->suppressed);
    sc_jw_end_object(w);
    sc_jw_end_object(w);
}

static void logical(sc_jw *w, const char *function)
{
    sc_jw_key(w, "logicalLocations");
    sc_jw_begin_array(w);
    sc_jw_begin_object(w);
    sc_jw_key(w, "name");
    sc_jw_string(w, function);
    sc_jw_key(w, "kind");
    sc_jw_string(w, "function");
    sc_jw_end_object(w);
    sc_jw_end_array(w);
}

/* A location object for one frame (the stack) or the result's own; id >= 0
   and a message for a related location. */
static int frame_location(sc_jw *w, const char *file, unsigned line, const char *module,
                          const char *function, const sc_srcroot *root, long id, const char *message)
{
    sc_jw_begin_object(w);
    if (id >= 0) {
        sc_jw_key(w, "id");
        sc_jw_i64(w, id);
    }
    if (file || module) {
        sc_jw_key(w, "physicalLocation");
        sc_jw_begin_object(w);
        if (write_artifact(w, file ? file : module, root) < 0)
            return -1;
        if (file && line) {
            sc_jw_key(w, "region");
            sc_jw_begin_object(w);
            sc_jw_key(w, "startLine");
            sc_jw_u64(w, line);
            sc_jw_end_object(w);
        }
        sc_jw_end_object(w);
    }
    if (message)
        multiformat(w, "message", message);
    if (function)
        logical(w, function);
    sc_jw_end_object(w);
    return 0;
}

static int write_stack(sc_jw *w, const sc_callsite *cs, const sc_srcroot *root)
{
    char off[64];
    sc_jw_key(w, "stacks");
    sc_jw_begin_array(w);
    sc_jw_begin_object(w);
    sc_jw_key(w, "message");
    sc_jw_begin_object(w);
    sc_jw_key(w, "text");
    sc_jw_string(w, cs->npy ? "Python frames, then native frames, innermost first" : "Native frames, innermost first");
    sc_jw_end_object(w);
    sc_jw_key(w, "frames");
    sc_jw_begin_array(w);
    for (size_t i = 0; i < cs->npy; i++) {
        sc_jw_begin_object(w);
        sc_jw_key(w, "location");
        if (frame_location(w, cs->py[i].file, cs->py[i].line, NULL, cs->py[i].function, root, -1, NULL) < 0)
            return -1;
        sc_jw_end_object(w);
    }
    for (size_t i = 0; i < cs->nframes; i++) {
        const sc_frame *f = &cs->frames[i];
        sc_jw_begin_object(w);
        sc_jw_key(w, "location");
        if (frame_location(w, f->file, f->line, f->module, f->function, root, -1, NULL) < 0)
            return -1;
        if (f->module) {
            snprintf(off, sizeof off, "%s+0x%" PRIx64, sc_basename(f->module), f->offset);
            sc_jw_key(w, "module");
            sc_jw_string(w, off);
        }
        sc_jw_end_object(w);
    }
    sc_jw_end_array(w);
    sc_jw_end_object(w);
    sc_jw_end_array(w);
    return 0;
}

/* Every frame but the one the result is located at, Python frames first,
   numbered from 1 in that order. */
static int write_related(sc_jw *w, const sc_callsite *cs, int py, long at, const sc_srcroot *root)
{
    char b[1200], fmt[1024];
    long id = 0, via = sc_callsite_via(cs);
    sc_jw_key(w, "relatedLocations");
    sc_jw_begin_array(w);
    for (size_t i = 0; i < cs->npy; i++) {
        const sc_pyframe *f = &cs->py[i];
        id++;
        if (py && (long)i == at)
            continue;
        sc_pyframe_format_in(f, root, fmt, sizeof fmt);
        snprintf(b, sizeof b, "Python frame %zu%s: %s", i,
                 (long)i == via ? ", the library code that made the call (via)" : "", fmt);
        if (frame_location(w, f->file, f->line, NULL, f->function, root, id, b) < 0)
            return -1;
    }
    for (size_t i = 0; i < cs->nframes; i++) {
        const sc_frame *f = &cs->frames[i];
        id++;
        if (!py && (long)i == at)
            continue;
        sc_frame_format_in(f, root, fmt, sizeof fmt);
        snprintf(b, sizeof b, "Native frame %zu: %s", i, fmt);
        if (frame_location(w, f->file, f->line, f->module, f->function, root, id, b) < 0)
            return -1;
    }
    sc_jw_end_array(w);
    return 0;
}

static int write_result(sc_jw *w, const sc_report *r, const sc_finding *f, const sc_srcroot *root)
{
    const sc_rule_info *ri = &sc_rules[f->rule];
    const sc_callsite *cs = sc_report_callsite(r, f->callsite);
    char line[1024], where[1024], proc[256] = "";
    char *msg;

    sc_finding_line(f, line, sizeof line);
    sc_callsite_where_in(cs, root, where, sizeof where);
    if (r->nprocs > 1 && f->process < r->nprocs)
        snprintf(proc, sizeof proc, " Process #%u, pid %ld on %s.", f->process, r->procs[f->process].pid,
                 r->procs[f->process].host ? r->procs[f->process].host : "unknown host");
    /* Sentences: the rule, where, the numbers, the detail, the thread, the process. */
    size_t dl = f->detail ? strlen(f->detail) : 0;
    int stop = dl && f->detail[dl - 1] != '.';
    char thread[200] = "";
    if (cs && cs->thread_name)
        snprintf(thread, sizeof thread, " Thread %s.", cs->thread_name);
    if (asprintf(&msg, "%s at %s. %s.%s%s%s%s%s", ri->summary, where, line, dl ? " " : "",
                 dl ? f->detail : "", stop ? "." : "", thread, proc) < 0)
        return -1;

    sc_jw_begin_object(w);
    sc_jw_key(w, "ruleId");
    sc_jw_string(w, ri->id);
    sc_jw_key(w, "ruleIndex");
    sc_jw_u64(w, (uint64_t)f->rule);
    sc_jw_key(w, "level");
    sc_jw_string(w, sc_severity_name(f->severity));
    multiformat(w, "message", msg);
    free(msg);

    int py = 0;
    long at = cs ? sc_callsite_shown(cs, &py) : -1;
    if (cs && at >= 0) {
        /* The primary frame: the launch line rather than nvcc's glue or an
           offset inside NVIDIA's libraries (sc_callsite_primary). */
        sc_jw_key(w, "locations");
        sc_jw_begin_array(w);
        if (py) {
            const sc_pyframe *p = &cs->py[at];
            if (frame_location(w, p->file, p->line, NULL, p->function, root, -1, NULL) < 0)
                return -1;
        } else {
            const sc_frame *n = &cs->frames[at];
            if (frame_location(w, n->file, n->file ? n->line : 0, n->file ? NULL : n->module, n->function,
                               root, -1, NULL) < 0)
                return -1;
        }
        sc_jw_end_array(w);
        if (cs->npy + cs->nframes > 1 && write_related(w, cs, py, at, root) < 0)
            return -1;
    }
    if (cs) {
        if (write_stack(w, cs, root) < 0)
            return -1;
        sc_jw_key(w, "partialFingerprints");
        sc_jw_begin_object(w);
        sc_jw_key(w, "streamcheck/callsite/v1");
        sc_jw_string(w, cs->id);
        sc_jw_end_object(w);
    }
    sc_jw_key(w, "properties");
    sc_jw_begin_object(w);
    sc_jw_key(w, "name");
    sc_jw_string(w, ri->name);
    sc_jw_key(w, "api");
    sc_jw_string(w, f->api);
    sc_jw_key(w, "driverApi");
    sc_jw_string(w, f->driver_api);
    sc_jw_key(w, "count");
    sc_jw_u64(w, f->count);
    sc_jw_key(w, "blockedNs");
    sc_jw_u64(w, f->blocked_ns);
    sc_jw_key(w, "pending");
    sc_jw_u64(w, f->pending);
    sc_jw_key(w, "bytes");
    sc_jw_u64(w, f->bytes);
    sc_jw_key(w, "lostNsUpperBound");
    sc_jw_u64(w, f->lost_ns);
    sc_jw_key(w, "costNs");
    sc_jw_u64(w, f->cost_ns);
    sc_jw_key(w, "costBasis");
    sc_jw_string(w, sc_cost_basis_name(f->basis));
    sc_jw_key(w, "process");
    sc_jw_u64(w, f->process);
    if (cs && cs->thread_name) {
        sc_jw_key(w, "threadName");
        sc_jw_string(w, cs->thread_name);
    }
    if (f->nvtx_range) {
        sc_jw_key(w, "nvtxRange");
        sc_jw_string(w, f->nvtx_range);
    }
    sc_jw_end_object(w);
    sc_jw_end_object(w);
    return 0;
}

int sc_render_sarif(const sc_report *r, FILE *out, const sc_render_opts *o)
{
    sc_jw w;
    sc_srcroot root;
    int rc = -1;
    if (sc_srcroot_init(&root, o ? o->srcroot : NULL) < 0)
        return -1;

    sc_jw_init(&w, out);
    sc_jw_begin_object(&w);
    sc_jw_key(&w, "$schema");
    sc_jw_string(&w, SARIF_SCHEMA);
    sc_jw_key(&w, "version");
    sc_jw_string(&w, "2.1.0");
    sc_jw_key(&w, "runs");
    sc_jw_begin_array(&w);
    sc_jw_begin_object(&w);

    sc_jw_key(&w, "tool");
    sc_jw_begin_object(&w);
    sc_jw_key(&w, "driver");
    sc_jw_begin_object(&w);
    sc_jw_key(&w, "name");
    sc_jw_string(&w, "streamcheck");
    if (r->tool_version) {
        sc_jw_key(&w, "version");
        sc_jw_string(&w, r->tool_version);
    }
    sc_jw_key(&w, "informationUri");
    sc_jw_string(&w, *PACKAGE_URL ? PACKAGE_URL : SC_INFORMATION_URI);
    if (write_rules(&w) < 0)
        goto out;
    sc_jw_end_object(&w);
    sc_jw_end_object(&w);

    sc_jw_key(&w, "invocations");
    sc_jw_begin_array(&w);
    for (size_t i = 0; i < r->nprocs; i++)
        write_invocation(&w, &r->procs[i], i);
    sc_jw_end_array(&w);

    if (root.lex) {
        /* A base URI must end with a slash (SARIF 3.14.14). */
        char *dir = NULL, *uri;
        if (asprintf(&dir, "%s/", strcmp(root.lex, "/") ? root.lex : "") < 0)
            goto out;
        uri = uri_encode("file://", dir);
        free(dir);
        if (!uri)
            goto out;
        sc_jw_key(&w, "originalUriBaseIds");
        sc_jw_begin_object(&w);
        sc_jw_key(&w, "SRCROOT");
        sc_jw_begin_object(&w);
        sc_jw_key(&w, "uri");
        sc_jw_string(&w, uri);
        sc_jw_end_object(&w);
        sc_jw_end_object(&w);
        free(uri);
    }

    sc_jw_key(&w, "results");
    sc_jw_begin_array(&w);
    for (size_t i = 0; i < r->nfindings; i++)
        if (write_result(&w, r, &r->findings[i], &root) < 0)
            goto out;
    sc_jw_end_array(&w);

    sc_jw_end_object(&w);
    sc_jw_end_array(&w);
    sc_jw_end_object(&w);
    rc = sc_jw_finish(&w);
out:
    if (rc < 0 && !errno)
        errno = ENOMEM;
    sc_srcroot_free(&root);
    return rc;
}
