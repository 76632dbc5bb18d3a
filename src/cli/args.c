/* args.c: the launcher's command line.  Its long options are the flags of
 * the settings (options.def: each sets its STREAMCHECK_* variable) and its
 * own (args.def); --help lists both from the same tables.  A flag whose
 * value has a syntax of its own, or must be checked before the program
 * starts, has a converter in convert[]; the others pass their value on as
 * given, once options.c has validated it.  Bad options exit 2 before the
 * program starts. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "cli_report.h"
#include "filter.h"
#include "fsutil.h"
#include "report.h"
#include "rules.h"

__attribute__((format(printf, 1, 2), noreturn)) static void die_usage(const char *fmt, ...);
static void die_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", SC_PROG);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see streamcheck --help)\n");
    exit(2);
}

/* ---------------------------------------------------------- settings --- */
static void set_option(sc_launch *l, sc_opt_id id, const char *value)
{
    char err[400];
    if (sc_option_check(id, value, err, sizeof err)) {
        /* Name the command-line flag, not the variable, in the message. */
        const char *why = strstr(err, "(expected");
        fprintf(stderr, "%s: --%s '%s' is not valid %s (see streamcheck --help)\n", SC_PROG,
                sc_option_table[id].flag, value, why ? why : err);
        exit(2);
    }
    l->set[id] = value;
}

/* --output: made, with its parents, if missing. */
static void set_output(sc_launch *l, sc_opt_id id, const char *v)
{
    char err[4200];
    if (sc_mkdirs(v, err, sizeof err))
        die_usage("--output: %s", err);
    set_option(l, id, v);
}

/* --suppressions: read and checked now, as the shim will read it. */
static void set_suppressions(sc_launch *l, sc_opt_id id, const char *v)
{
    char err[512];
    if (access(v, R_OK))
        die_usage("--suppressions '%s' cannot be read", v);
    if (sc_filter_check_suppressions(v, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", SC_PROG, err);
        exit(2);
    }
    set_option(l, id, v);
}

/* --source-root: absolute, as the program may change directory before it
   exits. */
static void set_source_root(sc_launch *l, sc_opt_id id, const char *v)
{
    struct stat sb;
    char *abs;
    if (stat(v, &sb) || !S_ISDIR(sb.st_mode) || !(abs = realpath(v, NULL)))
        die_usage("--source-root '%s' is not a directory", v);
    set_option(l, id, abs);   /* kept until exec */
}

/* "--top N" or "--top all" (0 is all). */
static void set_top(sc_launch *l, sc_opt_id id, const char *v)
{
    set_option(l, id, !strcmp(v, "all") ? "0" : v);
}

/* "--warn-cost 1ms" (ns, us, ms or s; a bare number is microseconds) as
   STREAMCHECK_WARN_COST_US. */
static void set_warn_cost(sc_launch *l, sc_opt_id id, const char *v)
{
    static const struct { const char *unit; double us; } units[] = {
        {"ns", 1e-3}, {"us", 1}, {"ms", 1e3}, {"s", 1e6}, {"", 1},
    };
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    for (size_t i = 0; !errno && end != v && x >= 0 && i < sizeof units / sizeof *units; i++)
        if (!strcmp(end, units[i].unit) && x * units[i].us <= 3.6e9) {
            char *b;
            if (asprintf(&b, "%.0f", x * units[i].us) < 0)
                die_usage("out of memory");
            set_option(l, id, b);   /* kept until exec */
            return;
        }
    die_usage("--warn-cost '%s' is not a duration (e.g. 1ms, 500us, 2s)", v);
}

/* "--warn-share 0.5%" (or 0.5) as STREAMCHECK_WARN_SHARE_BP. */
static void set_warn_share(sc_launch *l, sc_opt_id id, const char *v)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (!errno && end != v && (!*end || !strcmp(end, "%")) && x >= 0 && x <= 100) {
        char *b;
        if (asprintf(&b, "%.0f", x * 100) < 0)
            die_usage("out of memory");
        set_option(l, id, b);   /* kept until exec */
        return;
    }
    die_usage("--warn-share '%s' is not a percentage from 0 to 100 (e.g. 0.5%%)", v);
}

/* The flags that do more than pass their value on. */
static void (*const convert[SC_NOPTS])(sc_launch *l, sc_opt_id id, const char *v) = {
    [SC_OPT_OUTPUT] = set_output,
    [SC_OPT_SUPPRESSIONS] = set_suppressions,
    [SC_OPT_SOURCE_ROOT] = set_source_root,
    [SC_OPT_TOP] = set_top,
    [SC_OPT_WARN_COST_US] = set_warn_cost,
    [SC_OPT_WARN_SHARE_BP] = set_warn_share,
};

static void set_flag(sc_launch *l, sc_opt_id id, const char *v)
{
    if (convert[id])
        convert[id](l, id, v);
    else
        set_option(l, id, sc_option_table[id].flag_arg ? v : "1");
}

/* ------------------------------------------------ the launcher's own --- */
/* Each returns -1 to go on, or the launcher's exit status. */
static void usage(FILE *out);

static int act_simulate(sc_launch *l, const char *v)
{
    (void)v;
    l->simulate = 1;
    return -1;
}

static int act_fail_on(sc_launch *l, const char *v)
{
    sc_severity s;
    if (!strcmp(v, "never"))
        l->fail_on = -1;
    else if (sc_severity_parse(v, &s))
        die_usage("--fail-on '%s' is not valid (expected error, warning, note or never)", v);
    else
        l->fail_on = (int)s;
    l->fail_on_given = 1;
    return -1;
}

static int act_error_exitcode(sc_launch *l, const char *v)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (!*v || *end || n < 0 || n > 255)
        die_usage("--error-exitcode '%s' is not valid (expected an integer from 0 to 255)", v);
    l->error_exitcode = (int)n;
    l->error_exitcode_given = 1;
    return -1;
}

static int act_config(sc_launch *l, const char *v)
{
    (void)l;
    if (access(v, R_OK))
        die_usage("--config '%s' cannot be read", v);
    setenv("STREAMCHECK_CONFIG", v, 1);
    return -1;
}

static int act_list_rules(sc_launch *l, const char *v)
{
    (void)l, (void)v;
    sc_print_rules(stdout);
    return 0;
}

static int act_selftest(sc_launch *l, const char *v)
{
    (void)v;
    l->selftest = 1;
    return -1;
}

static int act_version(sc_launch *l, const char *v)
{
    (void)l, (void)v;
    printf("streamcheck %s\n", PACKAGE_VERSION);
    return 0;
}

static int act_help(sc_launch *l, const char *v)
{
    (void)l, (void)v;
    usage(stdout);
    return 0;
}

enum {
#define SC_ARG(NAME, FLAG, ARG, AFTER, HELP) SC_ARG_##NAME,
#include "args.def"
#undef SC_ARG
    SC_NARGS
};

static const struct launcher_arg {
    const char *flag, *arg;
    int after;                 /* an sc_opt_id, or SC_NOPTS: the end */
    int (*act)(sc_launch *l, const char *v);
    const char *help;
} launcher_args[SC_NARGS] = {
#define SC_ARG(NAME, FLAG, ARG, AFTER, HELP) [SC_ARG_##NAME] = {FLAG, ARG, AFTER, act_##NAME, HELP},
#include "args.def"
#undef SC_ARG
};

/* -------------------------------------------------------------- help --- */
/* "  --flag ARG             first line", the next lines under the first. */
static void print_flag(FILE *out, const char *flag, const char *arg, const char *help)
{
    char head[64];
    snprintf(head, sizeof head, "--%s%s%s", flag, arg ? " " : "", arg ? arg : "");
    fprintf(out, "  %-22s ", head);
    for (const char *p = help; *p; p++)
        if (*p == '\n')
            fprintf(out, "\n%25s", "");
        else
            fputc(*p, out);
    fputc('\n', out);
}

static void print_launcher_args(FILE *out, int after)
{
    for (int j = 0; j < SC_NARGS; j++)
        if (launcher_args[j].after == after)
            print_flag(out, launcher_args[j].flag, launcher_args[j].arg, launcher_args[j].help);
}

static void usage(FILE *out)
{
    fputs("Usage: streamcheck [OPTIONS] [--] PROGRAM [ARGS...]\n"
          "       streamcheck report [OPTIONS] FILE.json...\n"
          "       streamcheck --selftest [--simulate]\n"
          "       streamcheck --list-rules | --version | --help\n"
          "\n"
          "Runs PROGRAM with libstreamcheck.so preloaded and reports the hidden\n"
          "synchronizations that serialize its CUDA streams.\n"
          "\n"
          "Options:\n",
          out);
    for (int i = 0; i < SC_NOPTS; i++) {
        const sc_option_info *t = &sc_option_table[i];
        if (!t->flag)
            continue;
        print_flag(out, t->flag, t->flag_arg, t->flag_help);
        print_launcher_args(out, i);
    }
    print_launcher_args(out, SC_NOPTS);
    fputs("\n"
          "Exit status: the program's own (128+N when signal N ended it), unless\n"
          "--fail-on is reached; 2 for a usage error; 127 if the program cannot be\n"
          "run.  See streamcheck(1).\n",
          out);
}

/* ----------------------------------------------------------- parsing --- */
/* getopt_long's values: a setting's id, or a launcher option's index,
   above the short options. */
#define SC_VAL_SETTING 256
#define SC_VAL_ARG (SC_VAL_SETTING + SC_NOPTS)

static void make_longopts(struct option *opts)
{
    int n = 0;
    for (int i = 0; i < SC_NOPTS; i++)
        if (sc_option_table[i].flag)
            opts[n++] = (struct option){sc_option_table[i].flag,
                                        sc_option_table[i].flag_arg ? required_argument : no_argument, NULL,
                                        SC_VAL_SETTING + i};
    for (int j = 0; j < SC_NARGS; j++)
        opts[n++] = (struct option){launcher_args[j].flag,
                                    launcher_args[j].arg ? required_argument : no_argument, NULL, SC_VAL_ARG + j};
    opts[n] = (struct option){NULL, 0, NULL, 0};
}

int sc_launch_parse(int argc, char **argv, sc_launch *l, int *prog)
{
    struct option opts[SC_NOPTS + SC_NARGS + 1];
    make_longopts(opts);
    *l = (sc_launch){.fail_on = -1, .error_exitcode = 1};
    opterr = 0;
    int c;
    /* "+": stop at the program's name; its own options are its own. */
    while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
        int rc = -1;
        if (c >= SC_VAL_SETTING && c < SC_VAL_ARG)
            set_flag(l, (sc_opt_id)(c - SC_VAL_SETTING), optarg);
        else if (c >= SC_VAL_ARG && c < SC_VAL_ARG + SC_NARGS)
            rc = launcher_args[c - SC_VAL_ARG].act(l, optarg);
        else if (c == 'h')
            rc = act_help(l, NULL);
        else if (c == ':')
            die_usage("option '%s' needs a value", argv[optind - 1]);
        else
            die_usage("unknown option '%s'", argv[optind - 1]);
        if (rc >= 0)
            return rc;
    }
    /* compute-sanitizer's habit: --error-exitcode alone fails the run on
       what it finds (a warning here). */
    if (l->error_exitcode_given && !l->fail_on_given)
        l->fail_on = SC_SEV_WARNING;
    *prog = optind;
    return -1;
}
