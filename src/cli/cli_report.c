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
        "      --fail-on LEVEL      error, warning, note or never (default: error); also\n"
        "                           the level at which JUnit test cases fail (default\n"
        "                           there: warning)\n"
        "      --error-exitcode N   exit status when findings reach LEVEL (default: 1)\n"
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
        "remain; 2 for a usage error, an unreadable or malformed report, a report\n"
        "of another schema version, or a bad suppressions or expectations file.\n"
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

enum {
    OPT_RULES = 256, OPT_IGNORE, OPT_SUPP, OPT_FAIL_ON, OPT_EXITCODE, OPT_EXPECT,
    OPT_SRCROOT, OPT_MAX_FRAMES, OPT_TOP, OPT_COLOR, OPT_LIST_RULES,
};

typedef struct cli {
    unsigned formats;
    const char *output, *name, *rules, *ignore, *supp, *expect, *srcroot, *color;
    sc_fail_level fail_on;
    int fail_on_given;
    long exitcode;
    long max_frames;
    long top;           /* 0: the default; -1: all */
    int verbose;
} cli;

static int parse_args(int argc, char **argv, cli *c, int *done)
{
    static const struct option opts[] = {
        {"format", required_argument, NULL, 'f'},
        {"output", required_argument, NULL, 'o'},
        {"name", required_argument, NULL, 'n'},
        {"rules", required_argument, NULL, OPT_RULES},
        {"ignore", required_argument, NULL, OPT_IGNORE},
        {"suppressions", required_argument, NULL, OPT_SUPP},
        {"fail-on", required_argument, NULL, OPT_FAIL_ON},
        {"error-exitcode", required_argument, NULL, OPT_EXITCODE},
        {"expect", required_argument, NULL, OPT_EXPECT},
        {"source-root", required_argument, NULL, OPT_SRCROOT},
        {"srcroot", required_argument, NULL, OPT_SRCROOT},
        {"max-frames", required_argument, NULL, OPT_MAX_FRAMES},
        {"top", required_argument, NULL, OPT_TOP},
        {"verbose", no_argument, NULL, 'v'},
        {"color", required_argument, NULL, OPT_COLOR},
        {"list-rules", no_argument, NULL, OPT_LIST_RULES},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int rc;
    /* The launcher may have run getopt already: start afresh, and print
       our own one-line messages instead of getopt's. */
    optind = 0;
    opterr = 0;
    for (;;) {
        int o = getopt_long(argc, argv, ":f:o:n:vh", opts, NULL);
        if (o == -1)
            break;
        switch (o) {
        case 'f':
            if ((rc = parse_formats(optarg, &c->formats)))
                return rc;
            break;
        case 'o':
            if (!*optarg)
                return usage_error("--output: empty directory name");
            c->output = optarg;
            break;
        case 'n':
            if (!*optarg || strchr(optarg, '/') || !strcmp(optarg, ".") || !strcmp(optarg, ".."))
                return usage_error("--name: '%s' is not a file name", optarg);
            c->name = optarg;
            break;
        case OPT_RULES:
            c->rules = optarg;
            break;
        case OPT_IGNORE:
            c->ignore = optarg;
            break;
        case OPT_SUPP:
            if (c->supp)
                return usage_error("--suppressions given twice (put all suppressions in one file)");
            c->supp = optarg;
            break;
        case OPT_FAIL_ON:
            if (sc_fail_level_parse(optarg, &c->fail_on) < 0)
                return usage_error("--fail-on: '%s' is not error, warning, note or never", optarg);
            c->fail_on_given = 1;
            break;
        case OPT_EXITCODE:
            if ((rc = parse_number("--error-exitcode", optarg, 0, 255, &c->exitcode)))
                return rc;
            break;
        case OPT_EXPECT:
            c->expect = optarg;
            break;
        case OPT_SRCROOT:
            c->srcroot = optarg;
            break;
        case OPT_MAX_FRAMES:
            if ((rc = parse_number("--max-frames", optarg, 1, 1000, &c->max_frames)))
                return rc;
            break;
        case OPT_TOP:
            if (!strcmp(optarg, "all"))
                c->top = -1;
            else if ((rc = parse_number("--top", optarg, 1, 1000000, &c->top)))
                return rc;
            break;
        case 'v':
            c->verbose = 1;
            break;
        case OPT_COLOR:
            if (strcmp(optarg, "auto") && strcmp(optarg, "always") && strcmp(optarg, "never"))
                return usage_error("--color: '%s' is not auto, always or never", optarg);
            c->color = optarg;
            break;
        case OPT_LIST_RULES:
            sc_print_rules(stdout);
            *done = 1;
            return 0;
        case 'h':
            sc_cli_report_usage(stdout);
            *done = 1;
            return 0;
        /* GNU getopt has stepped past a long option and permuted argv so
           that argv[optind - 1] is it; optopt is 0 for an unknown long
           option and the option's character otherwise. */
        case ':':
            if (optopt < 256 && strncmp(argv[optind - 1], "--", 2))
                return usage_error("option '-%c' needs an argument", optopt);
            return usage_error("option '%s' needs an argument", argv[optind - 1]);
        default:
            if (!optopt)
                return usage_error("unknown option '%s'", argv[optind - 1]);
            if (!strncmp(argv[optind - 1], "--", 2) && strchr(argv[optind - 1], '='))
                return usage_error("option '%s' takes no argument", argv[optind - 1]);
            return usage_error("unknown option '-%c'", optopt);
        }
    }
    return 0;
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
    if (!(r = sc_report_new())) {
        fprintf(stderr, PROG ": out of memory\n");
        goto out;
    }
    for (int i = optind; i < argc; i++)
        if (sc_report_read_json(r, argv[i], err, sizeof err) < 0) {
            fprintf(stderr, PROG ": %s\n", err);
            goto out;
        }

    sc_filter flt = {c.rules ? only : NULL, c.ignore ? ignore : NULL, supp};
    sc_report_filter(r, &flt);
    sc_report_sort(r);
    /* The merged report is this tool's output. */
    free(r->tool_version);
    if (!(r->tool_version = strdup(PACKAGE_VERSION))) {
        fprintf(stderr, PROG ": out of memory\n");
        goto out;
    }

    if (exp) {
        int x = sc_expect_check(exp, r, stdout);
        rc = x == 0 ? 0 : 1;
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
    if (c.output && ensure_dir(c.output) < 0)
        goto out;
    for (unsigned f = SC_FMT_TEXT; f <= SC_FMT_HTML; f <<= 1) {
        if (!(c.formats & f))
            continue;
        if (f == SC_FMT_TEXT && !c.output) {
            sc_render_opts to = o;
            to.color = c.color ? !strcmp(c.color, "always") ||
                                     (!strcmp(c.color, "auto") && isatty(STDOUT_FILENO) && !getenv("NO_COLOR"))
                               : isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
            const char *term = getenv("TERM");
            if (to.color && (!c.color || strcmp(c.color, "always")) && term && !strcmp(term, "dumb"))
                to.color = 0;
            if (sc_render_text(r, stdout, &to) < 0 || fflush(stdout) != 0) {
                fprintf(stderr, PROG ": standard output: %s\n", strerror(errno));
                goto out;
            }
            continue;
        }
        char path[4096];
        if (sc_report_write_named(r, (sc_format)f, &o, c.output ? c.output : ".", c.name, path, sizeof path) < 0) {
            fprintf(stderr, PROG ": %s/%s.streamcheck.%s: %s\n", c.output ? c.output : ".", c.name,
                    sc_format_ext((sc_format)f), strerror(errno));
            goto out;
        }
        fprintf(stderr, PROG ": wrote %s\n", path);
    }

    rc = 0;
    for (size_t i = 0; i < r->nfindings; i++)
        if (sc_severity_fails(r->findings[i].severity, c.fail_on)) {
            rc = (int)c.exitcode;
            break;
        }
out:
    free(cwd);
    sc_report_free(r);
    sc_suppress_free(supp);
    sc_expect_free(exp);
    return rc;
}
