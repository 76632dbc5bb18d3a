/* shim_report.c: at exit, turn what the shim saw into an sc_report (the
 * model every renderer shares) and write it: text on the shim's stderr,
 * other formats to files, the summary line CI greps, and a status file
 * for the launcher.
 *
 * Nothing here calls CUDA: the driver may already be torn down when the
 * library destructors run.  Everything the report needs about the device was
 * captured after cuInit.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "apis.h"
#include "callsites.h"
#include "core.h"
#include "filter.h"
#include "findings.h"
#include "fsutil.h"
#include "hb.h"
#include "hooks_cublas.h"
#include "hooks_runtime.h"
#include "lanes.h"
#include "measure.h"
#include "modules.h"
#include "names.h"
#include "options.h"
#include "price.h"
#include "ranges.h"
#include "real.h"
#include "report.h"
#include "settle.h"
#include "shim_report.h"
#include "status.h"
#include "symbols.h"
#include "thread.h"
#include "track.h"


static char *xstrdup(const char *s) { return s ? strdup(s) : NULL; }

/* Arrays of the model grow by doubling from 16; n is the current count.
   Returns 0 when out of memory (the entry is then dropped). */
static int grow(void *arrp, size_t n, size_t elt)
{
    void **arr = arrp;
    if (n != 0 && (n < 16 || (n & (n - 1))))
        return 1;
    void *p = realloc(*arr, (n ? n * 2 : 16) * elt);
    if (!p)
        return 0;
    *arr = p;
    return 1;
}
#define GROW(arr, n) grow(&(arr), (n), sizeof *(arr))

/* ------------------------------------------------------- process --- */
static char *read_cmdline(void)
{
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    char buf[8192];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return NULL;
    for (ssize_t i = 0; i < n - 1; i++)
        if (!buf[i])
            buf[i] = ' ';
    buf[n] = 0;
    return strdup(buf);
}

/* The process's rank in a parallel job, from the launcher's environment:
   torchrun and most launchers set RANK, Open MPI OMPI_COMM_WORLD_RANK, MPICH
   and Intel MPI PMI_RANK, Slurm SLURM_PROCID; LOCAL_RANK alone (one node)
   is the last resort.  -1 when none is set to a number. */
static long job_rank(void)
{
    static const char *const vars[] = {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID",
                                       "LOCAL_RANK"};
    for (size_t i = 0; i < SC_ARRAY_LEN(vars); i++) {
        const char *v = getenv(vars[i]);
        char *end;
        if (!v || !*v)
            continue;
        errno = 0;
        long r = strtol(v, &end, 10);
        if (!*end && !errno && r >= 0)
            return r;
    }
    return -1;
}

static void add_device(int ordinal, const char *name, void *arg)
{
    sc_process_add_device(arg, ordinal, name);
}

static void fill_process(sc_process *p, uint64_t calls, uint64_t shim_ns)
{
    char exe[4096];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[k > 0 ? k : 0] = 0;
    p->exe = strdup(exe);
    p->cmdline = read_cmdline();
    p->pid = (long)getpid();
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    p->host = strdup(host);
    /* The devices its contexts were on (lanes.c learned them as calls were
       made); without any, device 0's, the one asked about at cuInit. */
    sc_devices_foreach(add_device, p);
    if (!p->ndevices && sc_device_name[0])
        sc_process_add_device(p, 0, sc_device_name);
    const char *first = p->ndevices && p->devices[0].name ? p->devices[0].name : sc_device_name;
    p->device = first[0] ? strdup(first) : NULL;
    p->rank = job_rank();
    p->driver_version = sc_driver_version;
    p->async_engines = atomic_load(&sc_g.async_engines);
    p->max_connections = (int)sc_g.max_conn;
    static const char *const modes[] = {[SC_RDM_ENTRY] = "redirect=per-thread (entry)",
                                        [SC_RDM_HANDLE] = "redirect=per-thread (handle)",
                                        [SC_RDM_STREAM] = "redirect=per-thread (stream)"};
    int m = sc_g.redirect_method;
    p->mode = strdup(!sc_g.redirect ? "detect" : modes[m >= 0 && m < (int)SC_ARRAY_LEN(modes) ? m : 0]);
    const char *sim = getenv("STREAMCHECK_SIMULATED");
    p->simulated = sim && *sim == '1';
    p->start_time = sc_start_time;
    p->end_time = sc_start_time + (double)(sc_now_ns() - sc_start_ns) / 1e9;
    p->calls = calls;
    p->shim_ns = shim_ns;
    p->range = xstrdup(sc_range_scope());
    p->range_ns = p->range ? sc_range_scope_ns() : 0;
    uint64_t kept = 0;   /* counted per call site with the redirects (SC_RD_HANDOFF) */
    sc_hb_stats(&p->handoffs, &p->handoff_waits, &kept);
}

/* ----------------------------------------------------- own time now --- */
static void add_own(sc_thread *t, void *arg)
{
    *(uint64_t *)arg += atomic_load(&t->own_ticks);
}

/* The shim's own time so far, as the report's "Time in streamcheck" counts
   it (every thread's, with initialization and the fork handlers), in ns.
   For benchmarks: a program that finds it (dlsym(RTLD_DEFAULT,
   "streamcheck_self_ns")) reads it at both ends of a timed window, so the
   estimate can be held against that window's measured slowdown. */
SC_EXPORT uint64_t streamcheck_self_ns(void)
{
    int saved = errno;
    uint64_t ticks = atomic_load(&sc_proc_own_ticks);
    sc_threads_foreach(add_own, &ticks);
    errno = saved;
    return (uint64_t)((double)ticks * sc_tsc_ns());
}

/* ------------------------------------------------------ api counts --- */
typedef struct count_acc {
    uint64_t c[SC_MAX_MODS][SC_NAPI];
    uint64_t total, own_ticks;
    uint64_t work;   /* calls that submitted work to a stream (sc_api_work) */
} count_acc;

static void flush_held(sc_thread *t, void *arg)
{
    (void)arg;
    if (!t->late)   /* still in its bookkeeping: its tables are left out (core.h) */
        sc_held_flush(t);
}

static void add_thread(sc_thread *t, void *arg)
{
    count_acc *a = arg;
    for (unsigned s = 0; s < SC_MAX_MODS; s++)
        for (unsigned i = 0; i < SC_NAPI; i++) {
            uint64_t v = atomic_load_explicit(&t->counts[s][i], memory_order_relaxed);
            a->c[s][i] += v;
            a->total += v;
            a->work += sc_api_work[i] ? v : 0;
        }
    a->own_ticks += atomic_load(&t->own_ticks);
}

static void fill_counts(sc_report *r, const count_acc *a)
{
    for (unsigned s = 0; s < SC_MAX_MODS; s++) {
        unsigned idx = sc_module_slot_index(s);
        const char *lib = idx == SC_MOD_UNKNOWN ? "other" : sc_module_base(idx);
        for (unsigned i = 0; i < SC_NAPI; i++) {
            if (!a->c[s][i])
                continue;
            if (!GROW(r->counts, r->ncounts))
                return;
            r->counts[r->ncounts++] = (sc_api_count){xstrdup(lib), xstrdup(sc_apis[i].name), a->c[s][i], 0};
        }
    }
}

/* ------------------------------------------------------- findings --- */
typedef struct build {
    uint64_t churn[2][2];   /* [host][free]: calls, for SC303 */
    sc_report *r;
    uint64_t *sites;      /* call sites referenced, to emit */
    size_t nsites;
    int raw;              /* frames as module + offset only: a report while the program runs, or one
                             the launcher names (sends_to_launcher) */
} build;

static void want_site(build *b, uint64_t h)
{
    if (!h)
        return;
    for (size_t i = 0; i < b->nsites; i++)
        if (b->sites[i] == h)
            return;
    if (GROW(b->sites, b->nsites))
        b->sites[b->nsites++] = h;
}

static void site_id(uint64_t h, char out[17])
{
    if (h)
        snprintf(out, 17, "%016llx", (unsigned long long)h);
    else
        out[0] = 0;
}

static const char *api_name(unsigned rt, unsigned api)
{
    return rt && rt < SC_NRT ? sc_rt_names[rt] : sc_apis[api].name;
}

static sc_finding *new_finding(build *b, unsigned rule, unsigned sev, const sc_agg_key *k)
{
    unsigned api = k->api, rt = k->rt;
    uint64_t site = k->site;
    sc_report *r = b->r;
    if (!GROW(r->findings, r->nfindings))
        return NULL;
    sc_finding *f = &r->findings[r->nfindings++];
    memset(f, 0, sizeof *f);
    f->rule = (sc_rule_id)rule;
    f->severity = (sc_severity)sev;
    f->api = xstrdup(api_name(rt, api));
    f->driver_api = xstrdup(sc_apis[api].name);
    f->device = -1;
    f->nvtx_range = xstrdup(sc_range_name(k->range));
    site_id(site, f->callsite);
    want_site(b, site);
    return f;
}

/* Measured mode: the GPU's own account of what the calls cost.  A call
   that blocked the host costs the program at least the host time detect
   mode priced (the copy itself, for SC203): in a program the host paces,
   the GPU idles anyway and the time lost is the host's (seen on an H100:
   PyTorch's seed 001 with pageable copies lost 66 ms of 72 to them while
   the GPU was idle 79% of the run).  So the cost is the larger of the
   two, with the basis of the one taken. */
static void measured_cost(const sc_agg_key *k, sc_finding *f)
{
    uint64_t lost;
    if (!sc_measure_price(k, f->count, &lost))
        return;
    f->measured = 1;
    f->gpu_lost_ns = lost;
    if (f->basis != SC_COST_UNMEASURED && f->cost_ns > lost)
        return;
    f->cost_ns = lost;
    f->basis = SC_COST_GPU;
}

/* The pricing model's answer, where its fix is modelled: what the fix
   saves (libstreamcheck(7), PRICING).  It replaces the cost of either
   mode, and the severity follows it (sc_report_judge). */
static sc_cost_basis replay_basis(void)
{
    uint64_t window, model, fixed;
    int source = SC_PRICE_WAITS;
    sc_price_window(&window, &model, &fixed, &source);
    return source == SC_PRICE_MEASURED ? SC_COST_REPLAY_MEASURED : SC_COST_REPLAY;
}

static void priced_cost(const sc_agg_key *k, sc_finding *f)
{
    uint64_t saving, model, fixed;
    int source;
    if (!sc_price_of(k, &saving))
        return;
    f->cost_ns = saving;
    f->basis = replay_basis();
    uint32_t n = 0;
    if (sc_price_together(k, &f->together_ns, &n))
        f->together_n = n;
    if (sc_price_off_loop(k))   /* the set-up's or teardown's: its share is of the active window */
        sc_price_window(&f->window_ns, &model, &fixed, &source);
}

/* An SC403 candidate is a finding only when its call site waited three
   times or more (a wait in a loop: once or twice is set-up or the end) and
   not waiting there saves as much as a warning must (--warn-cost,
   --warn-share of the range, the steady loop or the active window): most waits are
   where the results are needed, and a note for each would say nothing
   (libstreamcheck(7), SC403). */
static int sc403_drops(const sc_agg_key *k, const sc_agg_val *v)
{
    return k->rule == SC_RULE_SC403 && (v->count < SC_FEW_CALLS || !sc_price_keeps(k));
}

/* An SC703 candidate (a stream's first pinned copy) is a finding only where
   copy streams save 5% or more of the time its share is of (or
   --warn-share, if higher) and --warn-cost: a restructuring, worth
   proposing only where the model says it pays (libstreamcheck(7), SC703). */
static int sc703_drops(const sc_agg_key *k)
{
    return k->rule == SC_RULE_SC703 && !sc_price_keeps(k);
}

static void add_finding(const sc_agg_key *k, const sc_agg_val *v, void *arg)
{
    build *b = arg;
    unsigned sev = k->sev;
    if (sc403_drops(k, v) || sc703_drops(k))
        return;
    /* a buffer copied once or twice is not worth pinning (price.c,
       few_calls_unfixed): what the copy cost stays, as a note */
    if (sc_rule_props[k->rule].fix == SC_FIX_PIN && v->count < SC_FEW_CALLS && sev == SC_SEV_WARNING)
        sev = SC_SEV_NOTE;
    /* SC401: frequent device synchronization from one call site is a
       warning whatever was pending each time. */
    if (k->rule == SC_RULE_SC401 && sev == SC_SEV_NOTE && (long)v->count >= sc_opt.sync_frequent)
        sev = SC_SEV_WARNING;
    sc_finding *f = new_finding(b, k->rule, sev, k);
    if (!f)
        return;
    f->device = k->device == SC_DEV_UNKNOWN ? -1 : k->device;
    f->count = v->count;
    f->blocked_ns = v->blocked_ns;
    f->pending = v->pending;
    f->bytes = v->bytes;
    f->lost_ns = v->lost_ns;
    f->basis = (sc_cost_basis)sc_rule_cost_basis(k->rule);
    f->cost_ns = v->cost_ns;
    f->also = v->also;
    measured_cost(k, f);
    priced_cost(k, f);
    char d[384] = "";
    switch (k->rule) {
    case SC_RULE_SC101:
        if (sev == SC_SEV_NOTE && !strncmp(sc_apis[k->api].name, "cuEventRecord", 13))
            snprintf(d, sizeof d, "an event recorded on the legacy stream: a point after all the blocking "
                     "streams' work, as programs use to time or join streams; --measure shows whether it "
                     "held anything back");
        else if (sev == SC_SEV_NOTE)
            snprintf(d, sizeof d, "no stream the legacy stream orders with existed (streams created "
                     "cudaStreamNonBlocking do not count): harmless now, a barrier once the program "
                     "creates a blocking stream%s",
                     v->sampled ? "; call sites sampled (1 in 64 after a thread's first 256, 1 in 1024 after 16640), "
                                  "count estimated" : "");
        break;
    case SC_RULE_SC102:
        snprintf(d, sizeof d, "stream created here without cudaStreamNonBlocking; %llu legacy-stream "
                 "command(s) were ordered with it (each is a finding at its own line)%s",
                 (unsigned long long)v->count,
                 sc_price_alias(k) ? "; created non-blocking, what it saves is priced at this site's first "
                                     "SC102 finding: one fix"
                 : sc_cost_is_replay(f->basis) ? "; created non-blocking it saves what moving those commands "
                                               "off the legacy stream saves: one fix or the other, counted once" : "");
        break;
    case SC_RULE_SC401:
        if (sev == SC_SEV_WARNING && (long)v->count >= sc_opt.sync_frequent)
            snprintf(d, sizeof d, "%llu device synchronizations from this call site",
                     (unsigned long long)v->count);
        break;
    case SC_RULE_SC403: {
        uint32_t n = sc_price_shadowed(k);
        if (n)
            snprintf(d, sizeof d, "the price takes along %u wait(s) right after these (another read of the step, "
                     "which found the GPU drained by this one and would wait in its place): it is saved only with "
                     "those results kept on the GPU too", n);
        break;
    }
    case SC_RULE_SC601: {
        unsigned all = 0, legacy = 0;
        sc_cublas_summary(&all, &legacy);
        snprintf(d, sizeof d, "%u of %u cuBLAS handle(s) bound to the legacy stream", legacy, all);
        break;
    }
    case SC_RULE_SC701:
        snprintf(d, sizeof d, "more than %u streams busy at once (CUDA_DEVICE_MAX_CONNECTIONS=%u)",
                 sc_g.max_conn, sc_g.max_conn);
        break;
    default:
        break;
    }
    f->detail = d[0] ? strdup(d) : NULL;
}

/* SC303 is judged over the whole run: one call site that allocated or freed
   at least ALLOC_LOOP_MIN times. */
/* SC303 is churn: memory allocated and freed over and over.  A site that
   only allocates (a caching allocator growing its pool, buffers made up
   front in a loop) is not, unless the process also freed about as much
   memory of that kind.  Kind: 0 device, 1 pinned host; index 2: frees. */
static void alloc_kind(unsigned api, int *host, int *is_free)
{
    const char *n = sc_apis[api].name;
    *host = strstr(n, "Host") != NULL;
    *is_free = strstr(n, "Free") != NULL || strstr(n, "Unregister") != NULL;
}

static void count_churn(const sc_agg_key *k, const sc_agg_val *v, void *arg)
{
    uint64_t (*n)[2] = arg;
    int host, is_free;
    alloc_kind(k->api, &host, &is_free);
    n[host][is_free] += v->count;
}

static void add_alloc_site(const sc_agg_key *k, const sc_agg_val *v, void *arg)
{
    build *b = arg;
    if ((long)v->count < sc_opt.alloc_loop_min)
        return;
    int host, is_free;
    alloc_kind(k->api, &host, &is_free);
    if (b->churn[host][!is_free] * 2 < v->count)
        return;   /* allocations without as many frees (or the reverse): growth, not churn */
    sc_finding *f = new_finding(b, SC_RULE_SC303, SC_SEV_WARNING, k);
    if (!f)
        return;
    f->device = k->device == SC_DEV_UNKNOWN ? -1 : k->device;
    f->count = v->count;
    f->bytes = v->bytes;
    f->blocked_ns = v->blocked_ns;
    f->basis = (sc_cost_basis)sc_rule_cost_basis(SC_RULE_SC303);
    f->cost_ns = v->blocked_ns;
    measured_cost(k, f);
    priced_cost(k, f);
    char d[128];
    snprintf(d, sizeof d, "%llu calls from this call site", (unsigned long long)v->count);
    f->detail = strdup(d);
}

/* SC103 is judged over the whole run: the legacy-stream work of every
   thread found submitting while another thread's latest submission was not
   ordered before it (hb.h: threads racing to submit, not taking turns)
   shares the one stream with theirs (DRV, 3. Stream synchronization
   behavior).  Sites are counted per thread lifetime; the lifetimes of one
   site are summed into one finding here. */
static void add_legacy_site(const sc_agg_key *k, const sc_agg_val *v, void *arg)
{
    build *b = arg;
    int threads = atomic_load(&sc_g.legacy_threads);
    unsigned lid = k->rule | (unsigned)k->sev << 8;
    if (threads < 2 || !sc_hb_lifetime_concurrent(lid))
        return;
    char id[17];
    site_id(k->site, id);
    const char *drv = sc_apis[k->api].name;
    const char *api = api_name(k->rt, k->api);
    const char *range = sc_range_name(k->range);
    for (size_t i = 0; i < b->r->nfindings; i++) {
        sc_finding *f = &b->r->findings[i];
        if (f->rule == SC_RULE_SC103 && !strcmp(f->callsite, id) && f->driver_api && !strcmp(f->driver_api, drv) &&
            f->api && api && !strcmp(f->api, api) && !f->nvtx_range == !range &&
            (!range || !strcmp(f->nvtx_range, range))) {
            f->count += v->count;
            return;
        }
    }
    sc_finding *f = new_finding(b, SC_RULE_SC103, SC_SEV_WARNING, k);
    if (!f)
        return;
    f->device = k->device == SC_DEV_UNKNOWN ? -1 : k->device;
    f->count = v->count;
    char d[200];
    snprintf(d, sizeof d, "%d host threads submitted to the legacy stream, this one while another one's "
             "work was not ordered before it by the program", threads);
    f->detail = strdup(d);
}

/* SC103's fix moves every racing thread's legacy-stream work at once: the
   model prices that, and each of its findings (call sites) gets the share
   of its count. */
static void price_sc103(sc_report *r)
{
    uint64_t saving = sc_price_sc103(), n = 0;
    uint64_t window, model, fixed;
    int source;
    if (!sc_price_window(&window, &model, &fixed, &source))
        return;
    for (size_t i = 0; i < r->nfindings; i++)
        if (r->findings[i].rule == SC_RULE_SC103)
            n += r->findings[i].count;
    for (size_t i = 0; i < r->nfindings && n; i++) {
        sc_finding *f = &r->findings[i];
        if (f->rule != SC_RULE_SC103)
            continue;
        f->cost_ns = (uint64_t)((double)saving * (double)f->count / (double)n + 0.5);
        f->basis = source == SC_PRICE_MEASURED ? SC_COST_REPLAY_MEASURED : SC_COST_REPLAY;
    }
}

/* The pricing model's window: shares are of it (sc_process_window_ns). */
static void fill_window(sc_process *p)
{
    static const char *const sources[] = {[SC_PRICE_WAITS] = "waits", [SC_PRICE_SAMPLED] = "sampled",
                                          [SC_PRICE_MEASURED] = "measured"};
    uint64_t window, model, fixed;
    int source;
    if (!sc_price_window(&window, &model, &fixed, &source))
        return;
    p->window_ns = window;
    p->loop_ns = sc_price_loop();
    p->model_ns = model;
    p->fixed_ns = fixed;
    p->held_ns = sc_price_held();
    p->busy_source = strdup(sources[source >= 0 && source <= SC_PRICE_MEASURED ? source : 0]);
}

static void add_redirect(const sc_agg_key *k, const sc_agg_val *v, void *arg)
{
    build *b = arg;
    sc_report *r = b->r;
    if (!GROW(r->redirects, r->nredirects))
        return;
    sc_redirect *d = &r->redirects[r->nredirects++];
    memset(d, 0, sizeof *d);
    d->api = xstrdup(api_name(k->rt, k->api));
    site_id(k->site, d->callsite);
    want_site(b, k->site);
    d->outcome = xstrdup(k->rule < SC_RD_NOUTCOMES ? sc_redirect_outcomes[k->rule] : "unknown");
    d->count = v->count;
}

/* Each call site's frames as module (path and build ID), offset and, but
   in a report while the program runs (built while its slow paths wait: not
   even dladdr, which takes the loader's lock) or one the launcher names,
   the dynamic-symbol name (names.h); file:line comes later (symbolize_here,
   or the launcher, or `streamcheck report`), from module + offset. */
static void fill_callsites(build *b)
{
    sc_report *r = b->r;
    r->callsites = calloc(b->nsites ? b->nsites : 1, sizeof *r->callsites);
    if (!r->callsites)
        return;
    r->ncallsites = b->nsites;
    sc_names names = {0};
    if (!b->raw) {
        size_t frames = 0;
        for (size_t i = 0; i < b->nsites; i++) {
            const sc_site *s = sc_site_get(b->sites[i]);
            frames += s ? s->nframes : 0;
        }
        sc_names_init(&names, frames);
    }
    for (size_t i = 0; i < b->nsites; i++) {
        const sc_site *s = sc_site_get(b->sites[i]);
        sc_callsite *c = &r->callsites[i];
        site_id(b->sites[i], c->id);
        if (!s)
            continue;
        c->thread_name = xstrdup(atomic_load_explicit(&s->thread, memory_order_relaxed));
        c->frames = calloc(s->nframes ? s->nframes : 1, sizeof *c->frames);
        c->py = calloc(s->npy ? s->npy : 1, sizeof *c->py);
        if (!c->frames || !c->py)
            continue;
        for (unsigned k = 0; k < s->nframes; k++) {
            sc_frame *f = &c->frames[c->nframes++];
            f->module = xstrdup(sc_module_path(s->frames[k].mod));
            f->build_id = xstrdup(sc_module_build_id(s->frames[k].mod));
            f->offset = s->frames[k].off;
            f->function = b->raw ? NULL : sc_names_get(&names, s->frames[k].pc);
        }
        for (unsigned k = 0; k < s->npy; k++) {
            sc_pyframe *p = &c->py[c->npy++];
            p->file = xstrdup(s->py[k].file);
            p->function = xstrdup(s->py[k].func);
            p->line = s->py[k].line;
        }
    }
    sc_names_free(&names);
}

/* Names the frames with file:line here, at exit, the costliest call sites
   first, for at most STREAMCHECK_SYMBOLIZE_MS (reading a framework's
   libraries can take seconds): without a launcher to do it after the
   program, or for a report the launcher cannot take. */
static void symbolize_here(sc_report *r)
{
    uint64_t k0 = sc_tsc();
    sc_symbols *syms = sc_symbols_open(sc_dlsym_real);
    sc_symbols_limit(syms, (unsigned long)sc_opt.symbolize_ms);
    long late = sc_report_symbolize(r, syms, 0);
    sc_symbols_close(syms);
    if (late > 0)
        sc_warn("symbolization stopped after %ld ms (STREAMCHECK_SYMBOLIZE_MS): %ld native frames of the "
                "least costly call sites are named from their module's symbol table only, without file:line",
                sc_opt.symbolize_ms, late);
    sc_prof_proc(SC_PH_SYMBOLIZE, sc_tsc() - k0, r->ncallsites);
}

/* ---------------------------------------------------------- output --- */
/* The name of the process's files, EXE.HOST.PID[.rRANK].START (report_write.c:
   no two processes' collide), taken at its first report; a file of a
   format keeps the name it got at its first write (NAME-2 where NAME was
   taken, never over another's file), and the next reports of the process
   (--snapshot, then the final one) replace it. */
static char base_name[1024];
static char format_name[SC_NFORMATS][1040];

static const char *file_name(const sc_report *r)
{
    if (!base_name[0] && r->nprocs)
        sc_report_file_base(&r->procs[0], base_name, sizeof base_name);
    return base_name[0] ? base_name : "program";
}

/* Writes one file of the process's report: the first time never over
   another file, then over its own. */
static int write_one(const sc_report *r, sc_format fmt, const sc_render_opts *o, const char *dir, char *path,
                     size_t len)
{
    char *name = format_name[sc_format_index(fmt)];
    if (name[0])
        return sc_report_write_named(r, fmt, o, dir, name, path, len);
    if (sc_report_write_new(r, fmt, o, dir, file_name(r), path, len))
        return -1;
    const char *b = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    snprintf(name, sizeof format_name[0], "%.*s", (int)(strstr(b, ".streamcheck.") - b), b);
    return 0;
}

/* The files written by the final report, for the launcher ("wrote PATH"
   lines of the status file). */
static char *wrote_lines;

static void note_wrote(const char *path)
{
    char *l = NULL;
    if (asprintf(&l, "%swrote %s\n", wrote_lines ? wrote_lines : "", path) >= 0) {
        free(wrote_lines);
        wrote_lines = l;
    }
}

/* The text report (or, without the text format, the summary line CI
   greps) goes to the shim's stderr, a duplicate of the one the process
   started with (core.c); where it has none (fd 2 was closed at start, or
   the program closed and reused the duplicate's number), the text report
   goes to a file beside the others, DIR/NAME.streamcheck.txt. */
static void write_text(const sc_report *r, const sc_render_opts *o, FILE *err, const char *dir, const char *name)
{
    if (err) {
        if (sc_opt.formats & SC_FMT_TEXT) {
            sc_render_text(r, err, o);
        } else {
            char line[200];
            sc_summary_line(r, line, sizeof line);
            fprintf(err, "%s\n", line);
        }
        return;
    }
    char path[4300];
    (void)name;
    if (dir && (sc_opt.formats & SC_FMT_TEXT) && write_one(r, SC_FMT_TEXT, o, dir, path, sizeof path) == 0)
        note_wrote(path);
}

/* The JSON a report written while the program ran left (--snapshot): the
   final report replaces it, or removes it when JSON is not one of its
   formats. */
static char partial_json[4300];

/* Writes the file formats of `formats` into the output directory as
   NAME.streamcheck.EXT.  One that cannot be written goes to err instead,
   where there is one and the format suits a terminal; partial: a report
   written while the program runs (said only at debug level). */
static void write_files(const sc_report *r, const sc_render_opts *o, unsigned formats, FILE *err, int partial,
                        int dir_ok)
{
    const char *dir = sc_opt.output[0] ? sc_opt.output : ".";
    const char *name = file_name(r);
    for (int i = 0; i < SC_NFORMATS; i++) {
        const sc_format_info *fi = &sc_formats[i];
        if (!(formats & fi->format) || fi->format == SC_FMT_TEXT)
            continue;
        char path[4300];
        errno = EPERM;   /* where the directory was refused (output_dir) */
        if (dir_ok && write_one(r, fi->format, o, dir, path, sizeof path) == 0) {
            sc_log(partial ? SC_LOG_DEBUG : SC_LOG_INFO, "%s report written to %s", fi->label, path);
            if (!partial)
                note_wrote(path);
            if (fi->format == SC_FMT_JSON)
                snprintf(partial_json, sizeof partial_json, "%s", partial ? path : "");
            continue;
        }
        /* Nothing is lost: the report goes to stderr instead where its
           format suits a terminal (formats.def, TERM). */
        sc_warn("cannot write the %s report in '%s' (%s)%s", fi->label, dir, strerror(errno),
                !fi->term || !err ? "" : "; writing it to stderr instead");
        if (fi->term && err)
            sc_render(r, fi->format, err, o);
    }
    if (!partial) {
        if (partial_json[0] && !(formats & SC_FMT_JSON))
            unlink(partial_json);
        write_text(r, o, err, dir_ok ? dir : NULL, name);
    }
}

/* The output directory, made if need be; 0 when files must not go there
   (a planted link on the way, fsutil.h): they go to stderr instead.
   Otherwise a problem is said and the writes, which then fail, say where
   the report went. */
static int output_dir(int quiet)
{
    char msg[4200];
    if (!sc_opt.output[0] || !sc_mkdirs(sc_opt.output, msg, sizeof msg))
        return 1;
    sc_log(quiet ? SC_LOG_DEBUG : SC_LOG_WARNING, "STREAMCHECK_OUTPUT: %s", msg);
    return !sc_path_planted(sc_opt.output, msg, sizeof msg);
}

static void write_outputs(sc_report *r, const sc_render_opts *o)
{
    FILE *err = sc_err_open();
    unsigned files = sc_opt.formats & ~(unsigned)SC_FMT_TEXT;
    int dir_ok = !(files || (!err && (sc_opt.formats & SC_FMT_TEXT))) || output_dir(0);
    write_files(r, o, sc_opt.formats, err, 0, dir_ok);
    if (err)
        fclose(err);
}

/* The formats asked for that draw measured mode's GPU timeline. */
static unsigned timeline_formats(void)
{
    unsigned drawn = 0;
    for (int i = 0; i < SC_NFORMATS; i++)
        drawn |= sc_formats[i].timeline ? (unsigned)sc_formats[i].format : 0;
    return sc_opt.formats & drawn;
}

/* Whether the final report will go to the launcher (leave_to_launcher),
   which names each frame from its module and offset after the program has
   exited: then the process asks dladdr for none (on a GPT-2 step, 172 ms
   of its exit for 303 frames of PyTorch's libraries). */
static int sends_to_launcher(void)
{
    return sc_opt.defer_symbols && !timeline_formats();
}

/* The report as it stands: what the shim saw, before filters.  NULL when
   no CUDA call went through the shim (a helper process of the program, or
   a program that never used CUDA): then there is nothing to say. */
static sc_report *build_report(int partial)
{
    count_acc *acc = calloc(1, sizeof *acc);
    if (!acc)
        return NULL;
    /* A held finding waits for its thread's next call (settle.c): only
       the final report, when no thread makes one, settles them all. */
    if (!partial)
        sc_threads_foreach(flush_held, NULL);
    sc_threads_foreach(add_thread, acc);
    if (acc->total == 0) {
        free(acc);
        return NULL;
    }
    sc_report *r = sc_report_new();
    if (!r) {
        free(acc);
        return NULL;
    }
    r->tool_version = strdup(PACKAGE_VERSION);
    r->procs = calloc(1, sizeof *r->procs);
    if (r->procs) {
        r->nprocs = 1;
        /* Our time (core.h, "own time"): every thread's, and
           initialization, the fork handlers and the exit handshake so far;
           shim_report adds the report's own building. */
        uint64_t ticks = acc->own_ticks + atomic_load(&sc_proc_own_ticks);
        fill_process(&r->procs[0], acc->total, (uint64_t)((double)ticks * sc_tsc_ns()));
        r->procs[0].submitted = acc->work > LONG_MAX ? LONG_MAX : (long)acc->work;
    }
    fill_counts(r, acc);
    free(acc);

    build b = {.r = r, .raw = partial || sends_to_launcher()};
    /* The prices (price.c): once, for the final report (the run's record
       then ends); a report while the program runs goes with detect mode's. */
    if (!partial) {
        uint64_t k0 = sc_tsc();
        sc_price_run();
        sc_prof_proc(SC_PH_BUILDPRICE, sc_tsc() - k0, 0);
        if (r->nprocs)
            fill_window(&r->procs[0]);
    }
    sc_aggs_foreach(SC_AGG_FINDING, add_finding, &b);
    sc_aggs_foreach(SC_AGG_ALLOC, count_churn, b.churn);
    sc_aggs_foreach(SC_AGG_ALLOC, add_alloc_site, &b);
    sc_aggs_foreach(SC_AGG_LEGACY, add_legacy_site, &b);
    price_sc103(r);
    sc_aggs_foreach(SC_AGG_REDIRECT, add_redirect, &b);
    uint64_t k1 = sc_tsc();
    fill_callsites(&b);
    if (!partial)
        sc_prof_proc(SC_PH_BUILDNAMES, sc_tsc() - k1, b.nsites);
    free(b.sites);
    if (!partial)
        sc_measure_fill(r);   /* the GPU timeline, once recording has stopped */
    return r;
}

sc_report *sc_shim_build_report(void)
{
    return build_report(0);
}

/* Filters, judges and sorts the model as the settings say. */
static void judge(sc_report *r, int quiet)
{
    char err[512];
    if (sc_report_apply_settings(r, &sc_opt, err, sizeof err) && !quiet)
        sc_warn("%s; reporting without suppressions", err);
}

/* The source root: STREAMCHECK_SOURCE_ROOT (the launcher's --source-root),
   else the directory the program is in now (cwd, to free). */
static sc_render_opts render_opts(char **cwd)
{
    *cwd = getcwd(NULL, 0);
    return sc_render_opts_for(&sc_opt, *cwd);
}

/* Whether measured mode's GPU timeline is in r and a format asked for draws
   it: the JSON report does not carry it, so the process renders such a
   report itself. */
static int needs_timeline(const sc_report *r)
{
    return timeline_formats() && (r->ngpu_ops || r->nhost_spans || r->nmarks);
}

/* Under the launcher (STREAMCHECK_DEFER_SYMBOLS): the report goes to the
   status directory as it stands, its frames unnamed and no setting
   applied, and the launcher finishes it after the program has exited
   (src/cli/finish.c), so the program's exit pays for none of it; the
   launcher removes a --snapshot JSON the final report replaces.  1 when
   it went. */
static int leave_to_launcher(sc_report *r, const char *cwd, const char *why)
{
    char path[4200], *file = NULL, *lines = NULL;
    if (!sc_opt.defer_symbols || needs_timeline(r) || sc_status_file("json", path, sizeof path, &file))
        return 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    int ok = f && sc_render(r, SC_FMT_JSON, f, NULL) == 0;
    ok &= f && fclose(f) == 0;
    if (!f && fd >= 0)
        close(fd);
    ok = ok && asprintf(&lines, "deferred %s\nname %s\ncwd %s\nwork %ld\n%s%s%s%s%s", file, file_name(r),
                        cwd ? cwd : "", r->procs[0].submitted, why, *why ? "\n" : "",
                        partial_json[0] ? "snapshot " : "", partial_json, partial_json[0] ? "\n" : "") >= 0;
    if (ok)
        sc_status_lines(lines);
    else if (fd >= 0)
        unlink(path);
    free(lines);
    return ok;
}

/* Without the launcher to finish it: the frames named, the settings
   applied, the report written where they say, the status file with what
   it found, the work it submitted and the files it wrote. */
static void finish_here(sc_report *r, uint64_t k0, const char *why)
{
    uint64_t k1 = sc_tsc();
    symbolize_here(r);
    judge(r, 0);
    /* The report's own building (symbolization included) is ours too;
       rendering and writing it, which follow, cannot be in it. */
    uint64_t k2 = sc_tsc();
    sc_prof_proc(SC_PH_JUDGE, k2 - k1, 0);
    r->procs[0].shim_ns += (uint64_t)((double)(k2 - k0) * sc_tsc_ns());
    char *cwd, *lines = NULL;
    sc_render_opts o = render_opts(&cwd);
    write_outputs(r, &o);
    free(cwd);
    size_t n = wrote_lines ? strlen(wrote_lines) : 0;
    if (asprintf(&lines, "%s%swork %ld%s%.*s", why, *why ? "\n" : "", r->procs[0].submitted, n ? "\n" : "",
                 n ? (int)n - 1 : 0, wrote_lines ? wrote_lines : "") >= 0)
        sc_status_write(r, lines);
    free(lines);
    sc_prof_proc(SC_PH_WRITE, sc_tsc() - k2, 0);
}

/* At exit (core.c calls it once the slow paths have drained, while CUDA
   is still up: atexit handlers run in reverse), or the reporter's final
   report (a signal ending the process, exec, _exit: sc_end_reason). */
static void shim_report(void)
{
    uint64_t k0 = sc_tsc();
    sc_measure_stop();   /* the GPU timeline's last records first */
    sc_report *r = sc_shim_build_report();
    sc_prof_proc(SC_PH_BUILD, sc_tsc() - k0, 0);
    if (!r || !r->nprocs) {
        sc_status_ended();   /* no CUDA call to report */
        sc_report_free(r);
        return;
    }
    char why[48] = "", *cwd = getcwd(NULL, 0);
    if (sc_end_reason[0])
        snprintf(why, sizeof why, "ended %s", sc_end_reason);
    if (!leave_to_launcher(r, cwd, why))
        finish_here(r, k0, why);
    free(cwd);
    sc_report_free(r);
}

void sc_shim_write_partial(int sig)
{
    if (!sc_pause(SC_QUIESCE_NS))
        return;
    sc_report *r = build_report(1);
    sc_resume();
    if (r) {
        judge(r, 1);
        char *cwd, why[48] = "partial snapshot";
        sc_render_opts o = render_opts(&cwd);
        unsigned formats = sig ? sc_opt.formats & ~(unsigned)SC_FMT_TEXT : SC_FMT_JSON;
        if (formats && output_dir(1))
            write_files(r, &o, formats, NULL, 1, 1);
        free(cwd);
        if (sig)
            snprintf(why, sizeof why, "partial signal %d", sig);
        sc_status_write(r, why);
        sc_report_free(r);
    }
    sc_pause_done();
}

/* At initialization: a broken suppressions file is said at once, not at
   exit after the whole run. */
static void check_suppressions(void)
{
    char err[512];
    if (sc_opt.suppressions[0] && sc_filter_check_suppressions(sc_opt.suppressions, err, sizeof err))
        sc_warn("%s", err);
}

static const sc_part part = {"report", 0, NULL, NULL, NULL, check_suppressions, shim_report};
SC_PART_REGISTER(part)
