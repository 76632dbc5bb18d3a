/* cli_report.c: `streamcheck report`, which merges the JSON reports of many
 * processes (all ranks of a Slurm job, say), filters them and renders them
 * again, or checks them against an expectation file. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_report.h"
#include "expect.h"
#include "report.h"
#include "suppress.h"
#include "symbols.h"

#define PROG "streamcheck report"
#define EXIT_USAGE 2

void sc_cli_report_usage(FILE *out)
{
    fputs(
        "Usage: streamcheck report [OPTION]... FILE.json...\n"
        "Merge streamcheck JSON reports (one per process) and render them again.\n"
        "\n"
        "  -f, --format LIST        text, json, sarif, junit (or xml), html,\n"
        "                           comma-separated, or all (default: text)\n"
        "  -o, --output DIR         write NAME.streamcheck.EXT into DIR (default: text\n"
        "                           to standard output, other formats into the\n"
        "                           current directory)\n"
        "  -n, --name NAME          base name of the files written (default: merged)\n"
        "      --rules LIST         keep only these rules (ids or names, comma-separated)\n"
        "      --ignore LIST        drop these rules\n"
        "      --suppressions FILE  drop the findings a line of FILE matches\n"
        "      --fail-on LEVEL      error, warning, note or never (default: error, or\n"
        "                           warning with --error-exitcode); also the level at\n"
        "                           which JUnit test cases fail (default there: warning)\n"
        "      --error-exitcode N   exit status when findings reach LEVEL (default: 1);\n"
        "                           given alone, a warning reaches it\n"
        "      --expect FILE        check the merged report against FILE instead of\n"
        "                           rendering it; exit 0 if it matches, 1 if not\n"
        "      --source-root DIR    source files below DIR shown relative to it, in\n"
        "                           text, SARIF (uriBaseId SRCROOT) and HTML, which\n"
        "                           also shows the source lines of each call site\n"
        "                           read from there; default: the current directory\n"
        "                           (--srcroot: the same)\n"
        "      --max-frames N       text: frames shown per finding (default: 4)\n"
        "      --top N|all          text: findings shown in full, ranked by cost\n"
        "                           (default: 10); the rest get one line per rule\n"
        "  -v, --verbose            text: also api counts per calling library\n"
        "      --color WHEN         text: auto, always or never (default: auto)\n"
        "      --list-rules         list the rules and exit\n"
        "  -h, --help               show this help and exit\n"
        "\n"
        "Exit status: 0; N (--error-exitcode) when findings at or above --fail-on\n"
        "remain; 2 for a usage error, an unreadable or malformed report or one of\n"
        "another schema version (the others are merged and rendered all the same),\n"
        "or a bad suppressions or expectations file.  A file named twice is read\n"
        "once.\n"
        "\n"
        "Example, all ranks of a Slurm job (one JSON report per process):\n"
        "  streamcheck report --format text,sarif,junit --output merged \\\n"
        "      --fail-on warning reports/*.streamcheck.json\n"
        "\n"
        "The rules, the file formats and the JSON schema: man libstreamcheck\n",
        out);
}

void sc_print_rules(FILE *out)
{
    int wid = 2, wname = 4;
    for (int i = 0; i < SC_NRULES; i++) {
        int a = (int)strlen(sc_rules[i].id), b = (int)strlen(sc_rules[i].name);
        wid = a > wid ? a : wid;
        wname = b > wname ? b : wname;
    }
    fprintf(out, "%-*s  %-*s  %-8s  %s\n", wid, "ID", wname, "NAME", "SEVERITY", "SUMMARY");
    for (int i = 0; i < SC_NRULES; i++)
        fprintf(out, "%-*s  %-*s  %-8s  %s\n", wid, sc_rules[i].id, wname, sc_rules[i].name,
                sc_severity_name(sc_rules[i].severity), sc_rules[i].summary);
}

__attribute__((format(printf, 1, 2)))
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs(PROG ": ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (see 'streamcheck report --help')\n", stderr);
    return EXIT_USAGE;
}

static int parse_formats(const char *list, unsigned *out)
{
    char err[256];
    if (sc_formats_parse(list, out, err, sizeof err) < 0)
        return usage_error("--format: %s", err);
    return 0;
}

static int parse_number(const char *opt, const char *s, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < min || v > max)
        return usage_error("%s: '%s' is not a number from %ld to %ld", opt, s, min, max);
    *out = v;
    return 0;
}

typedef struct cli {
    unsigned formats;
    const char *output, *name, *rules, *ignore, *supp, *expect, *srcroot, *color;
    sc_fail_level fail_on;
    int fail_on_given;
    long exitcode;
    int exitcode_given;
    long max_frames;
    long top;           /* 0: the default; -1: all */
    int verbose;
} cli;

/* ----------------------------------------------------------- options --- */
/* Each takes its option's value (NULL for one that takes none) and returns
   0 to go on, DONE when the command has done its work (--help), or the
   exit status of a usage error it has reported. */
#define DONE (-1)

static int opt_format(cli *c, const char *v) { return parse_formats(v, &c->formats); }

static int opt_output(cli *c, const char *v)
{
    if (!*v)
        return usage_error("--output: empty directory name");
    c->output = v;
    return 0;
}

static int opt_name(cli *c, const char *v)
{
    if (!*v || strchr(v, '/') || !strcmp(v, ".") || !strcmp(v, ".."))
        return usage_error("--name: '%s' is not a file name", v);
    c->name = v;
    return 0;
}

static int opt_rules(cli *c, const char *v) { c->rules = v; return 0; }
static int opt_ignore(cli *c, const char *v) { c->ignore = v; return 0; }

static int opt_suppressions(cli *c, const char *v)
{
    if (c->supp)
        return usage_error("--suppressions given twice (put all suppressions in one file)");
    c->supp = v;
    return 0;
}

static int opt_fail_on(cli *c, const char *v)
{
    if (sc_fail_level_parse(v, &c->fail_on) < 0)
        return usage_error("--fail-on: '%s' is not error, warning, note or never", v);
    c->fail_on_given = 1;
    return 0;
}

static int opt_error_exitcode(cli *c, const char *v)
{
    c->exitcode_given = 1;
    return parse_number("--error-exitcode", v, 0, 255, &c->exitcode);
}

static int opt_expect(cli *c, const char *v) { c->expect = v; return 0; }
static int opt_source_root(cli *c, const char *v) { c->srcroot = v; return 0; }

static int opt_max_frames(cli *c, const char *v)
{
    return parse_number("--max-frames", v, 1, 1000, &c->max_frames);
}

static int opt_top(cli *c, const char *v)
{
    if (!strcmp(v, "all")) {
        c->top = -1;
        return 0;
    }
    return parse_number("--top", v, 1, 1000000, &c->top);
}

static int opt_verbose(cli *c, const char *v) { (void)v; c->verbose = 1; return 0; }

static int opt_color(cli *c, const char *v)
{
    if (strcmp(v, "auto") && strcmp(v, "always") && strcmp(v, "never"))
        return usage_error("--color: '%s' is not auto, always or never", v);
    c->color = v;
    return 0;
}

static int opt_list_rules(cli *c, const char *v)
{
    (void)c, (void)v;
    sc_print_rules(stdout);
    return DONE;
}

static int opt_help(cli *c, const char *v)
{
    (void)c, (void)v;
    sc_cli_report_usage(stdout);
    return DONE;
}

/* The options; short_name is the one-letter form, if any (--srcroot is
   --source-root by another name). */
static const struct report_opt {
    const char *name;
    int has_arg;
    char short_name;
    int (*act)(cli *c, const char *v);
} report_opts[] = {
    {"format", required_argument, 'f', opt_format},
    {"output", required_argument, 'o', opt_output},
    {"name", required_argument, 'n', opt_name},
    {"rules", required_argument, 0, opt_rules},
    {"ignore", required_argument, 0, opt_ignore},
    {"suppressions", required_argument, 0, opt_suppressions},
    {"fail-on", required_argument, 0, opt_fail_on},
    {"error-exitcode", required_argument, 0, opt_error_exitcode},
    {"expect", required_argument, 0, opt_expect},
    {"source-root", required_argument, 0, opt_source_root},
    {"srcroot", required_argument, 0, opt_source_root},
    {"max-frames", required_argument, 0, opt_max_frames},
    {"top", required_argument, 0, opt_top},
    {"verbose", no_argument, 'v', opt_verbose},
    {"color", required_argument, 0, opt_color},
    {"list-rules", no_argument, 0, opt_list_rules},
    {"help", no_argument, 'h', opt_help},
};
#define NOPTS (sizeof report_opts / sizeof *report_opts)
#define LONG_ONLY 256   /* getopt_long's value for report_opts[i] without a short form: 256 + i */

/* getopt_long's table and short options (":f:o:n:vh") from report_opts. */
static void make_getopt(struct option *longopts, char *shortopts)
{
    char *p = shortopts;
    *p++ = ':';
    for (size_t i = 0; i < NOPTS; i++) {
        const struct report_opt *r = &report_opts[i];
        longopts[i] = (struct option){r->name, r->has_arg, NULL, r->short_name ? r->short_name : LONG_ONLY + (int)i};
        if (r->short_name) {
            *p++ = r->short_name;
            if (r->has_arg == required_argument)
                *p++ = ':';
        }
    }
    longopts[NOPTS] = (struct option){NULL, 0, NULL, 0};
    *p = 0;
}

/* The message for what getopt_long returned ':' or '?' for.  GNU getopt has
   stepped past a long option and permuted argv so that argv[optind - 1] is
   it; optopt is 0 for an unknown long option and the option's character
   otherwise. */
static int getopt_error(int o, char **argv)
{
    if (o == ':') {
        if (optopt < 256 && strncmp(argv[optind - 1], "--", 2))
            return usage_error("option '-%c' needs an argument", optopt);
        return usage_error("option '%s' needs an argument", argv[optind - 1]);
    }
    if (!optopt)
        return usage_error("unknown option '%s'", argv[optind - 1]);
    if (!strncmp(argv[optind - 1], "--", 2) && strchr(argv[optind - 1], '='))
        return usage_error("option '%s' takes no argument", argv[optind - 1]);
    return usage_error("unknown option '-%c'", optopt);
}

static const struct report_opt *find_opt(int o)
{
    if (o >= LONG_ONLY && (size_t)(o - LONG_ONLY) < NOPTS)
        return &report_opts[o - LONG_ONLY];
    for (size_t i = 0; o > 0 && i < NOPTS; i++)
        if (report_opts[i].short_name == o)
            return &report_opts[i];
    return NULL;
}

static int parse_args(int argc, char **argv, cli *c, int *done)
{
    struct option longopts[NOPTS + 1];
    char shortopts[2 * NOPTS + 2];
    make_getopt(longopts, shortopts);
    /* The launcher may have run getopt already: start afresh, and print
       our own one-line messages instead of getopt's. */
    optind = 0;
    opterr = 0;
    for (;;) {
        int o = getopt_long(argc, argv, shortopts, longopts, NULL);
        if (o == -1)
            return 0;
        const struct report_opt *r = find_opt(o);
        int rc = r ? r->act(c, optarg) : getopt_error(o, argv);
        if (rc == DONE) {
            *done = 1;
            return 0;
        }
        if (rc)
            return rc;
    }
}

static int ensure_dir(const char *dir)
{
    struct stat st;
    if (mkdir(dir, 0777) == 0 || errno == EEXIST) {
        if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
            return 0;
        errno = ENOTDIR;
    }
    fprintf(stderr, PROG ": %s: %s\n", dir, strerror(errno));
    return -1;
}

/* Whether text on standard output is coloured: as --color says, by default
   on a terminal unless NO_COLOR is set; never on a dumb terminal unless
   --color always. */
static int text_color(const cli *c)
{
    int color = c->color ? !strcmp(c->color, "always") ||
                               (!strcmp(c->color, "auto") && isatty(STDOUT_FILENO) && !getenv("NO_COLOR"))
                         : isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
    const char *term = getenv("TERM");
    if (color && (!c->color || strcmp(c->color, "always")) && term && !strcmp(term, "dumb"))
        color = 0;
    return color;
}

/* Whether files[i] is a file read already (the same path twice, or another
   path to it: a link, ./x beside x): says so, and it is read once. */
static int read_before(char **files, int i, const struct stat *ids, const int *have)
{
    struct stat st;
    if (stat(files[i], &st))
        return 0;
    for (int j = 0; j < i; j++)
        if (have[j] && ids[j].st_dev == st.st_dev && ids[j].st_ino == st.st_ino) {
            fprintf(stderr, PROG ": %s is %s again; read once\n", files[i], files[j]);
            return 1;
        }
    return 0;
}

/* The processes left out of the merge, said in a line afterwards. */
typedef struct left_out {
    unsigned long n;
    char names[400];
} left_out;

/* Reads one file and merges it into r, unless its one process made CUDA
   calls, submitted no work to a stream and found nothing: a torchrun or
   mpirun parent that asked for the device count is not one of the job's
   GPU processes, and is left out (counted in *out).  0, or -1 with err. */
static int merge_file(sc_report *r, const char *path, left_out *out, char *err, size_t errlen)
{
    sc_report *one = sc_report_new();
    if (!one || sc_report_read_json(one, path, err, errlen) < 0) {
        if (!one)
            snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
        sc_report_free(one);
        return -1;
    }
    int rc = 0;
    const sc_process *p = one->nprocs == 1 ? &one->procs[0] : NULL;
    if (p && p->submitted == 0 && !one->nfindings) {
        size_t k = strlen(out->names);
        if (out->n++ < 3)
            snprintf(out->names + k, sizeof out->names - k, "%s%s (pid %ld%s%s)", k ? ", " : "",
                     p->exe ? sc_basename(p->exe) : "?", p->pid, p->host ? " on " : "", p->host ? p->host : "");
    } else if (sc_report_merge(r, one) < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        rc = -1;
    }
    sc_report_free(one);
    return rc;
}

/* Reads and merges the files, keeps the findings the filter lets through,
   sorted.  A file that cannot be read is said in a line and skipped
   (*skipped counts them): one bad rank does not lose a job's report.  NULL
   when no file could be read (said above), or out of memory. */
static sc_report *load_reports(char **files, int n, const sc_filter *flt, int *skipped)
{
    char err[1024];
    sc_report *r = sc_report_new();
    struct stat *ids = calloc((size_t)n, sizeof *ids);
    int *have = calloc((size_t)n, sizeof *have);
    int nread = 0;
    left_out idle = {0, ""};
    if (!r || !ids || !have) {
        fprintf(stderr, PROG ": out of memory\n");
        goto fail;
    }
    for (int i = 0; i < n; i++) {
        if (read_before(files, i, ids, have))
            continue;
        if (merge_file(r, files[i], &idle, err, sizeof err) < 0) {
            fprintf(stderr, PROG ": %s; skipped\n", err);
            (*skipped)++;
            continue;
        }
        have[i] = stat(files[i], &ids[i]) == 0;
        nread++;
    }
    free(ids);
    free(have);
    ids = NULL, have = NULL;
    if (idle.n)
        fprintf(stderr, PROG ": left out %lu process%s that submitted no work to the GPU: %s%s\n", idle.n,
                idle.n > 1 ? "es" : "", idle.names, idle.n > 3 ? ", ..." : "");
    if (!nread)
        goto fail;
    /* Frames the process left without file:line (its launcher did not
       finish them, or ran out of time) are named here where their module
       is the same build; the filter below may match on what they say. */
    sc_symbols *syms = sc_symbols_open(NULL);
    sc_report_symbolize(r, syms, 1);
    sc_symbols_close(syms);
    sc_report_filter(r, flt);
    sc_report_sort(r);
    /* The merged report is this tool's output. */
    free(r->tool_version);
    if (!(r->tool_version = strdup(PACKAGE_VERSION))) {
        fprintf(stderr, PROG ": out of memory\n");
        goto fail;
    }
    return r;
fail:
    free(ids);
    free(have);
    sc_report_free(r);
    return NULL;
}

/* Renders r in each format asked for: text to standard output unless
   --output is given, the others into files.  0, or EXIT_USAGE after
   saying why. */
static int render_all(const sc_report *r, const cli *c, const sc_render_opts *o)
{
    if (c->output && ensure_dir(c->output) < 0)
        return EXIT_USAGE;
    for (int i = 0; i < SC_NFORMATS; i++) {
        unsigned f = (unsigned)sc_formats[i].format;
        if (!(c->formats & f))
            continue;
        if (f == SC_FMT_TEXT && !c->output) {
            sc_render_opts to = *o;
            to.color = text_color(c);
            if (sc_render_text(r, stdout, &to) < 0 || fflush(stdout) != 0) {
                fprintf(stderr, PROG ": standard output: %s\n", strerror(errno));
                return EXIT_USAGE;
            }
            continue;
        }
        char path[4096];
        if (sc_report_write_named(r, (sc_format)f, o, c->output ? c->output : ".", c->name, path, sizeof path) < 0) {
            fprintf(stderr, PROG ": %s/%s.streamcheck.%s: %s\n", c->output ? c->output : ".", c->name,
                    sc_format_ext((sc_format)f), strerror(errno));
            return EXIT_USAGE;
        }
        fprintf(stderr, PROG ": wrote %s\n", path);
    }
    return 0;
}

/* --error-exitcode when a finding reaches --fail-on, else 0. */
static int fail_status(const sc_report *r, const cli *c)
{
    for (size_t i = 0; i < r->nfindings; i++)
        if (sc_severity_fails(r->findings[i].severity, c->fail_on))
            return (int)c->exitcode;
    return 0;
}

int sc_cli_report(int argc, char **argv)
{
    cli c = {.formats = 0, .name = "merged", .exitcode = 1, .fail_on = SC_FAIL_ERROR};
    int done = 0, rc;
    char err[1024];
    unsigned char only[SC_NRULES], ignore[SC_NRULES];
    sc_suppressions *supp = NULL;
    sc_expect *exp = NULL;
    sc_report *r = NULL;
    char *cwd = NULL;

    if ((rc = parse_args(argc, argv, &c, &done)) || done)
        return rc;
    if (!c.formats)
        c.formats = SC_FMT_TEXT;
    /* compute-sanitizer's habit: --error-exitcode alone fails on what it
       finds (a warning here). */
    if (c.exitcode_given && !c.fail_on_given)
        c.fail_on = SC_FAIL_WARNING;
    if (optind >= argc)
        return usage_error("no report files given");
    if (c.rules && sc_rule_list_parse(c.rules, "--rules", only, err, sizeof err) < 0)
        return usage_error("%s", err);
    if (c.ignore && sc_rule_list_parse(c.ignore, "--ignore", ignore, err, sizeof err) < 0)
        return usage_error("%s", err);

    rc = EXIT_USAGE;
    if (c.supp && !(supp = sc_suppress_load(c.supp, err, sizeof err))) {
        fprintf(stderr, PROG ": %s\n", err);
        goto out;
    }
    if (c.expect && !(exp = sc_expect_load(c.expect, err, sizeof err))) {
        fprintf(stderr, PROG ": %s\n", err);
        goto out;
    }
    sc_filter flt = {c.rules ? only : NULL, c.ignore ? ignore : NULL, supp};
    int skipped = 0;
    if (!(r = load_reports(argv + optind, argc - optind, &flt, &skipped)))
        goto out;

    if (exp) {
        int x = sc_expect_check(exp, r, stdout);
        rc = skipped ? EXIT_USAGE : x == 0 ? 0 : 1;
        if (x < 0)
            fprintf(stderr, PROG ": out of memory\n");
        goto out;
    }

    sc_render_opts o = {
        .max_frames = (unsigned)c.max_frames,
        .verbose = c.verbose,
        .top = c.top < 0 ? SC_TOP_ALL : (unsigned)c.top,
        .fail_on = c.fail_on_given ? c.fail_on : SC_FAIL_DEFAULT,
    };
    if (c.srcroot) {
        o.srcroot = c.srcroot;
    } else if ((cwd = getcwd(NULL, 0))) {
        o.srcroot = cwd;
    }
    if ((rc = render_all(r, &c, &o)) == 0)
        rc = skipped ? EXIT_USAGE : fail_status(r, &c);
out:
    free(cwd);
    sc_report_free(r);
    sc_suppress_free(supp);
    sc_expect_free(exp);
    return rc;
}
