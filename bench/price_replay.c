/* price_replay: the pricing model (src/shim/pricing.c) run again on a model
 * a program left with STREAMCHECK_TEST_PRICE_DUMP=PREFIX (price.c, dump):
 * every recorded call of every thread, the GPU's busy time, the copy rates
 * and each finding's fix.  So a change to the model can be tried on runs
 * recorded on a GPU without the GPU, and set against what the fixes gained
 * there (bench/price_check.py's table).
 *
 *   price_replay [--together] [--no-events] [--occupancy 0|1] [--unbarrier] [--tool-cost A,O]
 *                [--gaps | --no-gaps | --gaps-ns K2K,C2K,K2C,C2C] [--receipt-cpu 0|1] [--duplex R] DUMP
 *                         the dump's first line and its finding lines, as
 *                         the current model prices them; --duplex R: the
 *                         rate of pinned copies both ways at once, bytes
 *                         per ns in all, in place of the dump's (a dump
 *                         from before it was timed has none); --together:
 *                         also a line per finding that shares its fix with
 *                         others of the everything-fixed run, "together F of
 *                         N saving NS" (what fixing them at once saves);
 *                         --tool-cost A,O: CUPTI's host time between two
 *                         calls (measured mode's dumps: "tool NS APIS OPS",
 *                         which the replay takes out of the gap) counted
 *                         again as A ns per API record and O per GPU
 *                         operation queued in the gap; --no-events: the
 *                         dump's event records and waits ordering nothing
 *                         (host calls, each keeping the submissions the
 *                         fast path let through before it), to
 *                         set the events' orders against their absence on
 *                         the same run; --occupancy 1: the kernels'
 *                         demand by their occupancy, where the dump has it
 *                         ("occ", src/shim/occupancy.h), 0: by their
 *                         threads (without it: as the dump's run priced);
 *                         --unbarrier: SC101's fix is SC_PR_FIX_UNBARRIER
 *                         (STREAMCHECK_TEST_UNBARRIER's, pricing.h).  A
 *                         device line's "connections N" (a run under
 *                         --measure with SC701 findings)
 *                         shares its N hardware queues in the replay;
 *                         --gaps: the replays keep each device line's
 *                         "gaps" (measured mode's dumps since the
 *                         seventeenth session), --no-gaps: they do not
 *                         (without either: as the dump's first line says
 *                         its run priced, "gaps 1" in measured mode's
 *                         dumps since the eighteenth, else without),
 *                         --gaps-ns: these, in ns, kernel to kernel, copy
 *                         to kernel, kernel to copy and copy to copy, on
 *                         every device (older dumps); --receipt-cpu 1: a
 *                         Python thread's batch receipts count their CPU
 *                         time too ("receive NS T0 CPU", dumps since the
 *                         nineteenth session), 0: only their time off the
 *                         CPU (without it: as the first line's
 *                         "receipt_cpu" says, else 0)
 *
 * Each finding's flags are the ones price.c gives it: a finding (not an
 * allocation site) is in the all-fixed run, and is priced jointly when its
 * fix drops a wait; the report's bar ("keep", what a candidate must save
 * to be kept and to be in the all-fixed run) and the range's time shares
 * are of ("scope") come from the dump where it has them, and its demands
 * and rates are written to round-trip, so that a dump replays to the
 * report's own prices.  Exit status 0; 1 when the model cannot be priced;
 * 2 for a file that cannot be read or is not a dump.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pricing.h"
#include "sc.h"

typedef struct tcalls { sc_pr_thread th; sc_pr_call *v; size_t n, cap; } tcalls;
typedef struct dbusy { sc_pr_device dev; sc_pr_span *v; size_t n, cap; } dbusy;
typedef struct dfind { sc_pr_finding f; char rule[16]; } dfind;

static int no_events;   /* --no-events */
static int occupancy = -1;   /* --occupancy 1 or 0; -1: as the dump's run priced */
static int unbarrier;        /* --unbarrier */
static int gaps = -1;        /* --gaps or --gaps-ns 1, --no-gaps 0: the replays keep the devices' gaps; -1: as the
                                dump's run priced (its first line's "gaps", else without) */
static uint32_t gaps_ns[4];  /* --gaps-ns K2K,C2K,K2C,C2C: every device's, in place of the dump's */
static int receipt_cpu = -1; /* --receipt-cpu 1 or 0; -1: as the dump's run priced (its first line's "receipt_cpu") */
static int gaps_given;

typedef struct dump {
    uint64_t scope_ns;
    int gaps_field;          /* the first line says whether the run replayed the GPU's gaps */
    int receipt_field;       /* and whether its receipts counted their CPU time */
    sc_pr_stream *streams; size_t nstreams, cstreams;
    dbusy *devs; size_t ndevs, cdevs;
    dfind *finds; size_t nfinds, cfinds;
    tcalls *threads; size_t nthreads, cthreads;
} dump;

/* Room for element i of an array of *n used, *cap allocated, elements of
   elt bytes, the new ones zeroed: 0, or -1. */
static int room(void *pp, size_t *n, size_t *cap, size_t i, size_t elt)
{
    if (i >= 1u << 26 || sc_grow_cap(pp, cap, i + 1, elt, 16))
        return -1;
    if (i >= *n) {
        memset(*(char **)pp + *n * elt, 0, (i + 1 - *n) * elt);
        *n = i + 1;
    }
    return 0;
}

static int call_line(dump *d, const char *l)
{
    unsigned long long t0, dur, wait, bytes, own = 0, release = 0, touch = 0, dev = 0;
    unsigned long long gself = 0, gfast = 0, tool = 0;
    unsigned what, stream, nsub, sub, f0, f1, dir, again = 0, gknown = 0;
    float d1, d2;
    if (!d->nthreads || sscanf(l, " %llu +%llu wait %llu what %u stream %u nsub %u sub %u f %u,%u dir %u bytes "
                               "%llu demand %f %f own %llu release %llu touch %llu %u dev %llx", &t0, &dur, &wait,
                               &what, &stream, &nsub, &sub, &f0, &f1, &dir, &bytes, &d1, &d2, &own, &release, &touch,
                               &again, &dev) < 13)
        return -1;
    const char *g = strstr(l, " gpu ");   /* measured mode's GPU times, in dumps since they were recorded */
    if (g && sscanf(g, " gpu %u %llu %llu", &gknown, &gself, &gfast) != 3)
        return -1;
    unsigned apis = 0, ops = 0;
    const char *tl = strstr(l, " tool ");   /* CUPTI's host time, likewise, and its counts */
    if (tl && sscanf(tl, " tool %llu %u %u", &tool, &apis, &ops) < 1)
        return -1;
    unsigned long long receive = 0, receive_t0 = 0, receive_cpu = 0;
    const char *rv = strstr(l, " receive ");   /* a batch's receipt, in dumps since it was recorded; its */
    if (rv && sscanf(rv, " receive %llu %llu %llu", &receive, &receive_t0, &receive_cpu) < 2)   /* CPU time */
        return -1;
    float o1 = 0, o2 = 0;
    const char *oc = strstr(l, " occ ");   /* the kernels' demand by occupancy, likewise */
    if (oc && sscanf(oc, " occ %f %f", &o1, &o2) != 2)
        return -1;
    unsigned long long cpu = 0;
    const char *cp = strstr(l, " cpu ");   /* the thread's CPU clock, in dumps since the nineteenth session */
    if (cp && sscanf(cp, " cpu %llu", &cpu) != 1)
        return -1;
    if (no_events && (what == SC_PR_EVENT_RECORD || what == SC_PR_EVENT_WAIT))
        what = SC_PR_OTHER;   /* its host time, and the submissions made before it, kept */
    tcalls *t = &d->threads[d->nthreads - 1];
    if (room(&t->v, &t->n, &t->cap, t->n, sizeof *t->v))
        return -1;
    t->v[t->n - 1] = (sc_pr_call){.t0 = t0, .t1 = t0 + dur, .wait_ns = wait, .own_ns = own,
                                  .release_ns = release, .receive_ns = receive, .receive_t0 = receive_t0,
                                  .receive_cpu_ns = receive_cpu, .cpu_ns = cpu,
                                  .touch_ns = touch, .bytes = bytes, .dev = dev,
                                  .stream = stream, .nsub = nsub, .sub_stream = sub,
                                  .finding = {(uint16_t)f0, (uint16_t)f1}, .what = (uint8_t)what,
                                  .dir = (uint8_t)dir, .touch_again = (uint8_t)!!again, .demand = d1,
                                  .gpu_known = (uint8_t)!!gknown, .gpu_ns = gself, .fast_gpu_ns = gfast,
                                  .tool_ns = tool, .tool_apis = apis, .tool_ops = ops,
                                  .fast_demand = d2, .occ_demand = o1, .fast_occ_demand = o2};
    sc_pr_cap_copy_wait(&t->v[t->n - 1]);   /* as measure.c does, for dumps from before it did */
    return 0;
}

static int line_of(dump *d, const char *l)
{
    unsigned a, b, c;
    unsigned long long x, y;
    double h2d, d2h, duplex = 0;
    int known;
    char rule[16];
    size_t n;
    if (l[0] == ' ')
        return call_line(d, l);
    if (sscanf(l, "stream %u device %u kind %u", &a, &b, &c) == 3) {
        unsigned f = 0;   /* SC102's finding, in dumps since the fifteenth session */
        const char *p = strstr(l, " finding ");
        if (p && sscanf(p, " finding %u", &f) != 1)
            f = 0;
        if (room(&d->streams, &d->nstreams, &d->cstreams, a, sizeof *d->streams))
            return -1;
        d->streams[a] = (sc_pr_stream){b, (uint8_t)c, (uint16_t)f};
    } else if (sscanf(l, "device %u known %d spans %zu h2d %lf d2h %lf duplex %lf", &a, &known, &n, &h2d, &d2h,
                      &duplex) >= 5) {
        if (room(&d->devs, &d->ndevs, &d->cdevs, a, sizeof *d->devs))
            return -1;
        d->devs[a].dev.known = known;
        d->devs[a].dev.rate[SC_PR_H2D] = h2d;
        d->devs[a].dev.rate[SC_PR_D2H] = d2h;
        d->devs[a].dev.duplex = duplex;
        const char *q = strstr(l, " connections ");   /* SC701's queues, in dumps since they were modelled */
        if (q && sscanf(q, " connections %u", &d->devs[a].dev.connections) != 1)
            return -1;
        uint32_t *gp = d->devs[a].dev.gap_ns;   /* the GPU's gaps, in dumps since they were measured */
        const char *g = strstr(l, " gaps ");
        if (g && sscanf(g, " gaps %u %u %u %u", &gp[0], &gp[1], &gp[2], &gp[3]) != 4)
            return -1;
        if (gaps_given)
            memcpy(gp, gaps_ns, sizeof gaps_ns);
    } else if (sscanf(l, "finding %u rule %15s fix %u saving %llu", &a, rule, &b, &x) == 4 && a > 0) {
        if (room(&d->finds, &d->nfinds, &d->cfinds, a - 1, sizeof *d->finds))
            return -1;
        int finding = strcmp(rule, "alloc") != 0;
        unsigned keep_bp = 0;
        unsigned long long keep_ns = 0;
        const char *k = strstr(l, " keep ");   /* the report's bar (sc_pr_below_bar), in dumps since it was */
        if (k && sscanf(k, " keep %u %llu", &keep_bp, &keep_ns) != 2)
            return -1;
        d->finds[a - 1].f = (sc_pr_finding){.fix = (uint8_t)b, .in_all = (uint8_t)finding,
                                            .joint = (uint8_t)(finding && b == SC_PR_FIX_NO_WAIT),
                                            .keep_bp = (uint16_t)keep_bp, .keep_ns = keep_ns};
        snprintf(d->finds[a - 1].rule, sizeof d->finds[a - 1].rule, "%s", rule);
        if (unbarrier && !strcmp(rule, "SC101"))
            d->finds[a - 1].f.fix = SC_PR_FIX_UNBARRIER;
    } else if (sscanf(l, "thread %u id %u legacy_finding %u calls %zu", &a, &b, &c, &n) == 4) {
        if (a != d->nthreads || room(&d->threads, &d->nthreads, &d->cthreads, a, sizeof *d->threads))
            return -1;
        d->threads[a].th = (sc_pr_thread){.id = b, .legacy_finding = (uint16_t)c};
    } else if (sscanf(l, "busy %u %llu %llu", &a, &x, &y) == 3) {
        dbusy *v = a < d->ndevs ? &d->devs[a] : NULL;
        if (!v || room(&v->v, &v->n, &v->cap, v->n, sizeof *v->v))
            return -1;
        v->v[v->n - 1] = (sc_pr_span){x, y};
    } else if (!strncmp(l, "window ", 7)) {
        const char *o = strstr(l, " occupancy ");   /* the run priced with its kernels' occupancy */
        if (o && sscanf(o, " occupancy %u", &a) == 1 && a && occupancy < 0)
            occupancy = 1;
        const char *sc = strstr(l, " scope ");   /* what shares were of, under --range */
        if (sc && sscanf(sc, " scope %llu", &x) != 1)
            return -1;
        d->scope_ns = sc ? x : 0;
        const char *gp = strstr(l, " gaps ");   /* the run replayed the GPU's gaps (dumps since the default) */
        d->gaps_field = gp && sscanf(gp, " gaps %u", &a) == 1;
        if (d->gaps_field && gaps < 0)
            gaps = a != 0;
        const char *rc = strstr(l, " receipt_cpu ");   /* the run's receipts with their CPU time */
        d->receipt_field = rc && sscanf(rc, " receipt_cpu %u", &a) == 1;
        if (d->receipt_field && receipt_cpu < 0)
            receipt_cpu = a != 0;
    } else if (strncmp(l, "tool ", 5)) {
        return -1;
    }
    return 0;
}

static int price(dump *d, double duplex, int together)
{
    sc_pr_thread *th = calloc(d->nthreads + 1, sizeof *th);
    sc_pr_device *dev = calloc(d->ndevs + 1, sizeof *dev);
    sc_pr_finding *f = calloc(d->nfinds + 1, sizeof *f);
    uint64_t *saving = calloc(d->nfinds + 1, sizeof *saving);
    uint8_t *before = calloc(d->nfinds + 1, sizeof *before);
    uint64_t *tog = calloc(d->nfinds + 1, sizeof *tog);
    uint32_t *tog_n = calloc(d->nfinds + 1, sizeof *tog_n);
    uint8_t *dropped = calloc(d->nfinds + 1, sizeof *dropped);
    int rc = 1;
    if (th && dev && f && saving && before && tog && tog_n && dropped) {
        for (size_t i = 0; i < d->nthreads; i++) {
            th[i] = d->threads[i].th;
            th[i].calls = d->threads[i].v;
            th[i].n = d->threads[i].n;
        }
        for (size_t i = 0; i < d->ndevs; i++) {
            dev[i] = d->devs[i].dev;
            dev[i].busy = d->devs[i].v;
            dev[i].nbusy = d->devs[i].n;
            if (duplex > 0)
                dev[i].duplex = duplex;
        }
        for (size_t i = 0; i < d->nfinds; i++)
            f[i] = d->finds[i].f;
        sc_pr_model m = {.threads = th, .nthreads = d->nthreads, .streams = d->streams, .nstreams = d->nstreams,
                         .devices = dev, .ndevices = d->ndevs, .findings = f, .nfindings = d->nfinds,
                         .occupancy = (uint8_t)(occupancy > 0), .scope_ns = d->scope_ns,
                         .gaps = (uint8_t)(gaps > 0), .receipt_cpu = (uint8_t)(receipt_cpu > 0)};
        sc_pr_result r = {.saving = saving, .off_loop = before, .together = tog, .together_n = tog_n,
                          .dropped = dropped};
        if (sc_pr_price(&m, &r) == 0) {
            printf("window %llu model %llu fixed %llu loop %llu stalled %d occupancy %u scope %llu%s%s\n",
                   (unsigned long long)r.window_ns, (unsigned long long)r.model_ns, (unsigned long long)r.fixed_ns,
                   (unsigned long long)r.loop_ns, r.stalled, m.occupancy, (unsigned long long)m.scope_ns,
                   d->gaps_field ? (m.gaps ? " gaps 1" : " gaps 0") : "",
                   d->receipt_field ? (m.receipt_cpu ? " receipt_cpu 1" : " receipt_cpu 0") : "");
            for (size_t i = 0; i < d->nfinds; i++)
                printf("finding %zu rule %s fix %u saving %llu keep %u %llu%s%s\n", i + 1, d->finds[i].rule, f[i].fix,
                       (unsigned long long)saving[i], f[i].keep_bp, (unsigned long long)f[i].keep_ns,
                       before[i] ? " set-up" : "", dropped[i] ? " dropped" : "");
            for (size_t i = 0; together && i < d->nfinds; i++)
                if (tog_n[i])
                    printf("together %zu of %u saving %llu\n", i + 1, tog_n[i], (unsigned long long)tog[i]);
            rc = 0;
        }
    }
    free(th), free(dev), free(f), free(saving), free(before), free(tog), free(tog_n), free(dropped);
    return rc;
}

int main(int argc, char **argv)
{
    double duplex = 0;
    char *end = NULL;
    int together = 0;
    double api_ns = -1, op_ns = -1;
    for (;;) {
        if (argc >= 3 && !strcmp(argv[1], "--together"))
            together = 1;
        else if (argc >= 3 && !strcmp(argv[1], "--no-events"))
            no_events = 1;
        else if (argc >= 3 && !strcmp(argv[1], "--unbarrier"))
            unbarrier = 1;
        else if (argc >= 4 && !strcmp(argv[1], "--occupancy") && (!strcmp(argv[2], "0") || !strcmp(argv[2], "1"))) {
            occupancy = argv[2][0] == '1';
            argv++;
            argc--;
        } else if (argc >= 4 && !strcmp(argv[1], "--tool-cost") && sscanf(argv[2], "%lf,%lf", &api_ns, &op_ns) == 2) {
            argv++;
            argc--;
        } else if (argc >= 3 && !strcmp(argv[1], "--gaps")) {
            gaps = 1;
        } else if (argc >= 3 && !strcmp(argv[1], "--no-gaps")) {
            gaps = 0;
        } else if (argc >= 4 && !strcmp(argv[1], "--receipt-cpu") &&
                   (!strcmp(argv[2], "0") || !strcmp(argv[2], "1"))) {
            receipt_cpu = argv[2][0] == '1';
            argv++;
            argc--;
        } else if (argc >= 4 && !strcmp(argv[1], "--gaps-ns") &&
                   sscanf(argv[2], "%u,%u,%u,%u", &gaps_ns[0], &gaps_ns[1], &gaps_ns[2], &gaps_ns[3]) == 4) {
            gaps = gaps_given = 1;
            argv++;
            argc--;
        } else
            break;
        argv++;
        argc--;
    }
    if (argc == 4 && !strcmp(argv[1], "--duplex")) {
        duplex = strtod(argv[2], &end);
        if (end == argv[2] || *end || !(duplex > 0)) {
            fprintf(stderr, "price_replay: --duplex: '%s' is not a rate above 0 (bytes per ns)\n", argv[2]);
            return 2;
        }
        argv += 2;
        argc -= 2;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: price_replay [--together] [--no-events] [--occupancy 0|1] [--unbarrier] "
                "[--tool-cost A,O] [--gaps | --no-gaps | --gaps-ns K2K,C2K,K2C,C2C] [--receipt-cpu 0|1] [--duplex R] "
                "DUMP  (a file "
                "STREAMCHECK_TEST_PRICE_DUMP wrote)\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "r");
    if (!in) {
        fprintf(stderr, "price_replay: %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    dump d = {0};
    char line[1024];
    unsigned long lineno = 0;
    int bad = 0;
    while (!bad && fgets(line, sizeof line, in)) {
        lineno++;
        bad = line_of(&d, line) != 0;
    }
    fclose(in);
    if (bad || !lineno) {
        fprintf(stderr, "price_replay: %s:%lu: not a line of a pricing model's dump\n", argv[1], lineno);
        return 2;
    }
    if (api_ns >= 0)
        for (size_t i = 0; i < d.nthreads; i++)
            for (size_t k = 0; k < d.threads[i].n; k++) {
                sc_pr_call *c = &d.threads[i].v[k];
                c->tool_ns = (uint64_t)(c->tool_apis * api_ns + c->tool_ops * op_ns + 0.5);
            }
    int rc = price(&d, duplex, together);
    if (rc)
        fprintf(stderr, "price_replay: %s: the model cannot be priced (out of memory)\n", argv[1]);
    for (size_t i = 0; i < d.nthreads; i++)
        free(d.threads[i].v);
    for (size_t i = 0; i < d.ndevs; i++)
        free(d.devs[i].v);
    free(d.threads), free(d.devs), free(d.finds), free(d.streams);
    return rc;
}
