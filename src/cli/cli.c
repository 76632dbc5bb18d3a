/* cli.c: the streamcheck launcher.
 *
 *   streamcheck [options] [--] program [args...]
 *   streamcheck report [options] FILE.json...
 *   streamcheck --selftest [--simulate]
 *   streamcheck --list-rules | --version | --help
 *
 * It never loads CUDA itself.  It turns its options into STREAMCHECK_*
 * variables, preloads libstreamcheck.so (found relative to the launcher, so
 * an installed tree can be moved), runs the program, passes its exit status
 * through, and applies --fail-on to the counts each process leaves in a
 * private status directory.  Bad options exit 2 before the program starts.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cli_report.h"
#include "filter.h"
#include "fsutil.h"
#include "options.h"
#include "report.h"
#include "rules.h"

#ifndef SC_BINDIR
#define SC_BINDIR "/usr/local/bin"
#endif
#ifndef SC_LIBDIR
#define SC_LIBDIR "/usr/local/lib"
#endif
#ifndef SC_PKGLIBEXECDIR
#define SC_PKGLIBEXECDIR "/usr/local/libexec/streamcheck"
#endif

static const char *prog = "streamcheck";

static void usage(FILE *out)
{
    fprintf(out,
"Usage: streamcheck [OPTIONS] [--] PROGRAM [ARGS...]\n"
"       streamcheck report [OPTIONS] FILE.json...\n"
"       streamcheck --selftest [--simulate]\n"
"       streamcheck --list-rules | --version | --help\n"
"\n"
"Runs PROGRAM with libstreamcheck.so preloaded and reports the hidden\n"
"synchronizations that serialize its CUDA streams.\n"
"\n"
"Options:\n"
"  --format LIST          text, json, sarif, junit, trace, html (comma-separated;\n"
"                         default text).  Text goes to stderr, the others to\n"
"                         files in --output; trace is a Chrome trace (implies\n"
"                         --measure), html one page for a browser\n"
"  --measure              measured mode: record the GPU timeline with CUPTI;\n"
"                         report overlap, idle time and each finding's GPU cost\n"
"  --output DIR           directory for report files (default: the current one)\n"
"  --simulate             run on streamcheck's CPU simulator (no GPU needed;\n"
"                         for programs built with nvcc -cudart shared)\n"
"  --redirect MODE        per-thread: move legacy-default-stream work to\n"
"                         per-thread streams without recompiling; off (default)\n"
"  --redirect-method M    stream (a blocking stream of each thread's own,\n"
"                         default), entry (call the per-thread entry point)\n"
"                         or handle (pass CU_STREAM_PER_THREAD)\n"
"  --rules LIST           report only these rules (ids or names)\n"
"  --ignore LIST          do not report these rules\n"
"  --suppressions FILE    drop findings matched by FILE (libstreamcheck(7))\n"
"  --source-root DIR      show source files below DIR relative to it (SARIF:\n"
"                         uriBaseId SRCROOT); default: the current directory\n"
"  --fail-on LEVEL        error, warning, note or never (default never): exit\n"
"                         with --error-exitcode when findings reach LEVEL\n"
"  --error-exitcode N     exit status for --fail-on (default 1)\n"
"  --top N|all            findings shown in full in the text report, ranked\n"
"                         by cost (default 10); the rest get a line per rule\n"
"  --warn-cost TIME       a finding is a warning only if it cost this much\n"
"                         (default 1ms) ...\n"
"  --warn-share PCT       ... and this share of the run time (default 0.5%%)\n"
"  --stack-depth N        native frames of the program per call site (1-64,\n"
"                         default 8; NVIDIA's libraries not counted)\n"
"  --python-depth N       Python frames per call site (0-32, default 4)\n"
"  --config FILE          settings file (STREAMCHECK_CONFIG)\n"
"  --log-level LEVEL      quiet, warning, info or debug\n"
"  --list-rules           list the rules and exit\n"
"  --selftest             run the bundled test apps and check their reports\n"
"  --version              print the version and exit\n"
"  --help                 print this help and exit\n"
"\n"
"Exit status: the program's own, unless findings reach --fail-on; 2 for a\n"
"usage error; 127 if the program cannot be run.  See streamcheck(1).\n");
}

__attribute__((format(printf, 1, 2), noreturn)) static void die_usage(const char *fmt, ...);
static void die_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see streamcheck --help)\n");
    exit(2);
}

/* ------------------------------------------------------------ paths --- */
/* Where the launcher lives, resolved through symlinks. */
static int self_dir(char *out, size_t len)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    char *slash = strrchr(buf, '/');
    if (!slash)
        return -1;
    *slash = 0;
    snprintf(out, len, "%s", buf);
    return 0;
}

/* The path of `to` relative to `from` (both absolute, as configured). */
static void relpath(const char *from, const char *to, char *out, size_t len)
{
    size_t common = 0, i = 0;
    while (from[i] && to[i] && from[i] == to[i]) {
        if (from[i] == '/')
            common = i;
        i++;
    }
    if ((!from[i] || from[i] == '/') && (!to[i] || to[i] == '/'))
        common = i;
    out[0] = 0;
    for (const char *p = from + common; *p; p++)
        if (*p == '/')
            strncat(out, "../", len - strlen(out) - 1);
    const char *rest = to + common;
    if (*rest == '/')
        rest++;
    strncat(out, *rest ? rest : ".", len - strlen(out) - 1);
}

/* An installed file: relative to the launcher first (relocatable tree),
   then where configure put it. */
static int find_installed(const char *dir, const char *name, char *out, size_t len)
{
    char self[PATH_MAX], rel[PATH_MAX];
    if (self_dir(self, sizeof self) == 0) {
        relpath(SC_BINDIR, dir, rel, sizeof rel);
        snprintf(out, len, "%s/%s/%s", self, rel, name);
        if (access(out, F_OK) == 0)
            return 0;
    }
    snprintf(out, len, "%s/%s", dir, name);
    return access(out, F_OK);
}

/* Run from the build tree (src/streamcheck): the library built beside it,
   never an older installed one. */
static int find_built(const char *rel, char *out, size_t len)
{
    char self[PATH_MAX];
    if (self_dir(self, sizeof self) < 0)
        return -1;
    snprintf(out, len, "%s/%s", self, rel);
    return access(out, R_OK);
}

int sc_cli_find_lib(char *out, size_t len)
{
    const char *e = getenv("STREAMCHECK_LIB");
    if (e && *e) {
        snprintf(out, len, "%s", e);
        return access(out, R_OK);
    }
    if (find_built(".libs/libstreamcheck.so", out, len) == 0)
        return 0;
    return find_installed(SC_LIBDIR, "libstreamcheck.so", out, len);
}

int sc_cli_find_simdir(char *out, size_t len)
{
    const char *e = getenv("STREAMCHECK_SIMDIR");
    if (e && *e) {
        snprintf(out, len, "%s", e);
        return access(out, R_OK);
    }
    if (find_built("sim/.libs/libcuda.so.1", out, len) == 0) {
        out[strlen(out) - strlen("/libcuda.so.1")] = 0;
        return 0;
    }
    return find_installed(SC_PKGLIBEXECDIR, "sim", out, len);
}

int sc_cli_find_libexec(char *out, size_t len)
{
    const char *e = getenv("STREAMCHECK_LIBEXECDIR");
    if (e && *e) {
        snprintf(out, len, "%s", e);
        return access(out, R_OK);
    }
    return find_installed(SC_PKGLIBEXECDIR, ".", out, len);
}

/* ----------------------------------------------------------- options --- */
typedef struct run_opts {
    int simulate;
    int fail_on;          /* -1 never, else sc_severity */
    int error_exitcode;
    const char *set[SC_NOPTS];   /* STREAMCHECK_* values to export */
} run_opts;

static void set_option(run_opts *o, sc_opt_id id, const char *value, const char *flag)
{
    char err[400];
    if (sc_option_check(id, value, err, sizeof err)) {
        /* Name the command-line flag, not the variable, in the message. */
        const char *why = strstr(err, "(expected");
        fprintf(stderr, "%s: %s '%s' is not valid %s (see streamcheck --help)\n", prog, flag, value,
                why ? why : err);
        exit(2);
    }
    o->set[id] = value;
}

static int parse_fail_on(const char *v)
{
    if (!strcmp(v, "never"))
        return -1;
    sc_severity s;
    if (sc_severity_parse(v, &s))
        die_usage("--fail-on '%s' is not valid (expected error, warning, note or never)", v);
    return (int)s;
}

static int parse_exitcode(const char *v)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (!*v || *end || n < 0 || n > 255)
        die_usage("--error-exitcode '%s' is not valid (expected an integer from 0 to 255)", v);
    return (int)n;
}

/* ---------------------------------------------------------- running --- */
static void prepend_env(const char *var, const char *value, char sep)
{
    const char *old = getenv(var);
    if (!old || !*old) {
        setenv(var, value, 1);
        return;
    }
    size_t n = strlen(value) + strlen(old) + 2;
    char *v = malloc(n);
    if (!v)
        return;
    snprintf(v, n, "%s%c%s", value, sep, old);
    setenv(var, v, 1);
    free(v);
}

static volatile pid_t child_pid;

static void forward_signal(int sig)
{
    if (child_pid > 0)
        kill(child_pid, sig);
}

typedef struct totals { unsigned long long findings, errors, warnings, notes, processes; } totals;

static void read_status(const char *dir, totals *t)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (n > 7 && !strcmp(e->d_name + n - 7, ".status") && e->d_name[0] != '.') {
            FILE *f = fopen(path, "r");
            unsigned long long a = 0, b = 0, c = 0, x = 0;
            if (f && fscanf(f, "%llu %llu %llu %llu", &a, &b, &c, &x) == 4) {
                t->findings += a;
                t->errors += b;
                t->warnings += c;
                t->notes += x;
                t->processes++;
            }
            if (f)
                fclose(f);
        }
        if (e->d_name[0] != '.' || n > 2)
            unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

static int sc_cli_run(int argc, char **argv, const run_opts *o)
{
    (void)argc;
    char lib[PATH_MAX];
    if (sc_cli_find_lib(lib, sizeof lib)) {
        fprintf(stderr, "%s: cannot find libstreamcheck.so (looked next to the launcher and in %s); "
                "set STREAMCHECK_LIB\n", prog, SC_LIBDIR);
        return 2;
    }
    if (o->simulate) {
        char sim[PATH_MAX];
        if (sc_cli_find_simdir(sim, sizeof sim)) {
            fprintf(stderr, "%s: cannot find the simulator (looked for %s/sim); set STREAMCHECK_SIMDIR\n",
                    prog, SC_PKGLIBEXECDIR);
            return 2;
        }
        prepend_env("LD_LIBRARY_PATH", sim, ':');
        setenv("STREAMCHECK_SIMULATED", "1", 1);
    }
    for (int i = 0; i < SC_NOPTS; i++)
        if (o->set[i]) {
            char var[64];
            snprintf(var, sizeof var, "STREAMCHECK_%s", sc_option_name((sc_opt_id)i));
            setenv(var, o->set[i], 1);
        }

    char statusdir[] = "/tmp/streamcheck.XXXXXX";
    int have_status = mkdtemp(statusdir) != NULL;
    if (have_status)
        setenv("STREAMCHECK_STATUS_DIR", statusdir, 1);

    /* The shim first, after anything that must come before it (a
       sanitizer runtime in our own sanitizer builds), and before anything
       that must come right after it (ThreadSanitizer's runtime: the shim's
       pthread interposers must see the program's calls first, then hand
       them to its interceptors). */
    const char *after = getenv("STREAMCHECK_PRELOAD_AFTER");
    if (after && *after)
        prepend_env("LD_PRELOAD", after, ':');
    prepend_env("LD_PRELOAD", lib, ':');
    const char *first = getenv("STREAMCHECK_PRELOAD_FIRST");
    if (first && *first)
        prepend_env("LD_PRELOAD", first, ':');

    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "%s: fork: %s\n", prog, strerror(errno));
        return 2;
    }
    if (pid == 0) {
        execvp(argv[0], argv);
        int e = errno;
        fprintf(stderr, "%s: cannot run '%s': %s\n", prog, argv[0], strerror(e));
        _exit(e == ENOENT ? 127 : 126);
    }
    child_pid = pid;
    /* ^C reaches the program through the terminal; we wait for it to finish
       its report.  Termination requests are passed on. */
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    signal(SIGTERM, forward_signal);
    signal(SIGHUP, forward_signal);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    int code = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;

    totals t = {0};
    if (have_status)
        read_status(statusdir, &t);
    if (t.processes == 0 && code != 127 && code != 126) {
        const char *lvl = o->set[SC_OPT_LOG_LEVEL];
        if (!lvl || strcmp(lvl, "quiet"))
            fprintf(stderr, "%s: no CUDA calls were seen in %s\n", prog, argv[0]);
    } else if (t.processes > 1) {
        fprintf(stderr, "%s: %llu processes: %llu findings (%llu errors, %llu warnings, %llu notes)\n",
                prog, t.processes, t.findings, t.errors, t.warnings, t.notes);
    }
    if (o->fail_on >= 0) {
        unsigned long long reach = t.errors;
        if (o->fail_on <= SC_SEV_WARNING)
            reach += t.warnings;
        if (o->fail_on <= SC_SEV_NOTE)
            reach += t.notes;
        if (reach)
            return o->error_exitcode;
    }
    return code;
}

/* -------------------------------------------------------------- main --- */
enum {
    O_FORMAT = 256, O_OUTPUT, O_SIMULATE, O_REDIRECT, O_REDIRECT_METHOD, O_RULES, O_IGNORE,
    O_SUPPRESSIONS, O_FAIL_ON, O_ERROR_EXITCODE, O_STACK_DEPTH, O_PYTHON_DEPTH, O_CONFIG,
    O_LOG_LEVEL, O_LIST_RULES, O_SELFTEST, O_VERSION, O_HELP, O_TOP, O_WARN_COST, O_WARN_SHARE,
    O_SOURCE_ROOT, O_MEASURE,
};

/* "--top N" or "--top all" as STREAMCHECK_TOP (0 is all). */
static void set_top(run_opts *o, const char *v)
{
    set_option(o, SC_OPT_TOP, !strcmp(v, "all") ? "0" : v, "--top");
}

/* "--warn-cost 1ms" (ns, us, ms or s; a bare number is microseconds) as
   STREAMCHECK_WARN_COST_US. */
static void set_warn_cost(run_opts *o, const char *v)
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
            set_option(o, SC_OPT_WARN_COST_US, b, "--warn-cost");   /* kept until exec */
            return;
        }
    die_usage("--warn-cost '%s' is not a duration (e.g. 1ms, 500us, 2s)", v);
}

/* "--warn-share 0.5%" (or 0.5) as STREAMCHECK_WARN_SHARE_BP. */
static void set_warn_share(run_opts *o, const char *v)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (!errno && end != v && (!*end || !strcmp(end, "%")) && x >= 0 && x <= 100) {
        char *b;
        if (asprintf(&b, "%.0f", x * 100) < 0)
            die_usage("out of memory");
        set_option(o, SC_OPT_WARN_SHARE_BP, b, "--warn-share");   /* kept until exec */
        return;
    }
    die_usage("--warn-share '%s' is not a percentage from 0 to 100 (e.g. 0.5%%)", v);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "report"))
        return sc_cli_report(argc - 1, argv + 1);

    static const struct option longopts[] = {
        {"format", required_argument, 0, O_FORMAT},
        {"output", required_argument, 0, O_OUTPUT},
        {"simulate", no_argument, 0, O_SIMULATE},
        {"measure", no_argument, 0, O_MEASURE},
        {"redirect", required_argument, 0, O_REDIRECT},
        {"redirect-method", required_argument, 0, O_REDIRECT_METHOD},
        {"rules", required_argument, 0, O_RULES},
        {"ignore", required_argument, 0, O_IGNORE},
        {"suppressions", required_argument, 0, O_SUPPRESSIONS},
        {"source-root", required_argument, 0, O_SOURCE_ROOT},
        {"fail-on", required_argument, 0, O_FAIL_ON},
        {"error-exitcode", required_argument, 0, O_ERROR_EXITCODE},
        {"stack-depth", required_argument, 0, O_STACK_DEPTH},
        {"python-depth", required_argument, 0, O_PYTHON_DEPTH},
        {"config", required_argument, 0, O_CONFIG},
        {"log-level", required_argument, 0, O_LOG_LEVEL},
        {"list-rules", no_argument, 0, O_LIST_RULES},
        {"selftest", no_argument, 0, O_SELFTEST},
        {"version", no_argument, 0, O_VERSION},
        {"help", no_argument, 0, O_HELP},
        {"top", required_argument, 0, O_TOP},
        {"warn-cost", required_argument, 0, O_WARN_COST},
        {"warn-share", required_argument, 0, O_WARN_SHARE},
        {0, 0, 0, 0},
    };
    run_opts o = {.fail_on = -1, .error_exitcode = 1};
    int selftest = 0;
    opterr = 0;
    int c;
    /* "+": stop at the program's name; its own options are its own. */
    while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
        switch (c) {
        case O_FORMAT: set_option(&o, SC_OPT_FORMAT, optarg, "--format"); break;
        case O_OUTPUT: {
            char err[4200];
            if (sc_mkdirs(optarg, err, sizeof err))   /* made, with its parents, if missing */
                die_usage("--output: %s", err);
            set_option(&o, SC_OPT_OUTPUT, optarg, "--output");
            break;
        }
        case O_SIMULATE: o.simulate = 1; break;
        case O_MEASURE: set_option(&o, SC_OPT_MEASURE, "1", "--measure"); break;
        case O_REDIRECT: set_option(&o, SC_OPT_REDIRECT, optarg, "--redirect"); break;
        case O_REDIRECT_METHOD: set_option(&o, SC_OPT_REDIRECT_METHOD, optarg, "--redirect-method"); break;
        case O_RULES: set_option(&o, SC_OPT_RULES, optarg, "--rules"); break;
        case O_IGNORE: set_option(&o, SC_OPT_IGNORE, optarg, "--ignore"); break;
        case O_SUPPRESSIONS: {
            char err[512];
            if (access(optarg, R_OK))
                die_usage("--suppressions '%s' cannot be read", optarg);
            if (sc_filter_check_suppressions(optarg, err, sizeof err)) {
                fprintf(stderr, "%s: %s\n", prog, err);
                return 2;
            }
            set_option(&o, SC_OPT_SUPPRESSIONS, optarg, "--suppressions");
            break;
        }
        case O_SOURCE_ROOT: {
            /* Absolute: the program may change directory before it exits. */
            struct stat sb;
            char *abs;
            if (stat(optarg, &sb) || !S_ISDIR(sb.st_mode) || !(abs = realpath(optarg, NULL)))
                die_usage("--source-root '%s' is not a directory", optarg);
            set_option(&o, SC_OPT_SOURCE_ROOT, abs, "--source-root");
            break;
        }
        case O_FAIL_ON: o.fail_on = parse_fail_on(optarg); break;
        case O_ERROR_EXITCODE: o.error_exitcode = parse_exitcode(optarg); break;
        case O_STACK_DEPTH: set_option(&o, SC_OPT_STACK_DEPTH, optarg, "--stack-depth"); break;
        case O_PYTHON_DEPTH: set_option(&o, SC_OPT_PYTHON_DEPTH, optarg, "--python-depth"); break;
        case O_CONFIG:
            if (access(optarg, R_OK))
                die_usage("--config '%s' cannot be read", optarg);
            setenv("STREAMCHECK_CONFIG", optarg, 1);
            break;
        case O_LOG_LEVEL: set_option(&o, SC_OPT_LOG_LEVEL, optarg, "--log-level"); break;
        case O_TOP: set_top(&o, optarg); break;
        case O_WARN_COST: set_warn_cost(&o, optarg); break;
        case O_WARN_SHARE: set_warn_share(&o, optarg); break;
        case O_LIST_RULES: sc_print_rules(stdout); return 0;
        case O_SELFTEST: selftest = 1; break;
        case O_VERSION: printf("streamcheck %s\n", PACKAGE_VERSION); return 0;
        case 'h':
        case O_HELP: usage(stdout); return 0;
        case ':':
            die_usage("option '%s' needs a value", argv[optind - 1]);
            break;
        default:
            die_usage("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (selftest)
        return sc_cli_selftest(o.simulate);
    if (optind >= argc) {
        fprintf(stderr, "%s: no program to run (see streamcheck --help)\n", prog);
        return 2;
    }
    return sc_cli_run(argc - optind, argv + optind, &o);
}
