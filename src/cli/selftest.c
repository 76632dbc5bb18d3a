/* selftest.c: `streamcheck --selftest`.
 *
 * Runs the installed test apps (selftest.list) on this machine's GPU, or on
 * the simulator when there is none, each twice: plainly and under
 * streamcheck.  An app passes when both runs exit alike with byte-identical
 * output and its report holds exactly what the app declares (APP.expect).
 * An app that exits 77 both times is skipped: it needs what the machine
 * lacks (two devices), and says so in its first line of output.
 * A user runs this on a new cluster or driver to know the tool can be
 * trusted there; make check runs it on the simulator.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "expect.h"
#include "fsutil.h"
#include "gpu.h"
#include "locate.h"
#include "report.h"
#include "selftest.h"

#define MAX_ARGS 64
#define MAX_ENV 16

typedef struct app {
    char name[128];
    char label[160];       /* name, with its arguments if any: host_sync_loop[6,4,4,cpu] (one word) */
    char where[8];         /* any, gpu, sim */
    char expect[PATH_MAX + 256]; /* "" = none required (expect=-) */
    char *env[MAX_ENV];
    int nenv;
    char *args[MAX_ARGS];
    int nargs;
} app;

/* -------------------------------------------------------- manifest --- */
static int parse_line(char *line, app *a, const char *dir)
{
    memset(a, 0, sizeof *a);
    char *save = NULL, *tok = strtok_r(line, " \t\r\n", &save);
    if (!tok || tok[0] == '#')
        return 0;
    snprintf(a->name, sizeof a->name, "%s", tok);
    tok = strtok_r(NULL, " \t\r\n", &save);
    if (!tok || (strcmp(tok, "any") && strcmp(tok, "gpu") && strcmp(tok, "sim")))
        return -1;
    snprintf(a->where, sizeof a->where, "%s", tok);
    snprintf(a->expect, sizeof a->expect, "%s/%s.expect", dir, a->name);
    int in_args = 0;
    while ((tok = strtok_r(NULL, " \t\r\n", &save))) {
        if (in_args) {
            if (a->nargs < MAX_ARGS - 1)
                a->args[a->nargs++] = strdup(tok);
        } else if (!strcmp(tok, "--")) {
            in_args = 1;
        } else if (!strncmp(tok, "expect=", 7)) {
            if (!strcmp(tok + 7, "-"))
                a->expect[0] = 0;
            else if ((size_t)snprintf(a->expect, sizeof a->expect, "%s/%s", dir, tok + 7) >= sizeof a->expect)
                return -1;
        } else if (strchr(tok, '=') && a->nenv < MAX_ENV) {
            a->env[a->nenv++] = strdup(tok);
        } else {
            return -1;
        }
    }
    /* An app listed twice with other arguments: its lines told apart. */
    size_t n = (size_t)snprintf(a->label, sizeof a->label, "%s", a->name);
    for (int i = 0; i < a->nargs && n < sizeof a->label; i++)
        n += (size_t)snprintf(a->label + n, sizeof a->label - n, "%c%s", i ? ',' : '[', a->args[i]);
    if (a->nargs && n < sizeof a->label)
        snprintf(a->label + n, sizeof a->label - n, "]");
    return 1;
}

static void free_app(app *a)
{
    for (int i = 0; i < a->nenv; i++)
        free(a->env[i]);
    for (int i = 0; i < a->nargs; i++)
        free(a->args[i]);
}

/* ---------------------------------------------------------- running --- */
/* Runs argv with the app's environment, stdout and stderr to files;
   returns the wait status (or -1), killing it after timeout seconds. */
static int run(char *const argv[], const app *a, const char *simdir, const char *out, const char *err,
               int timeout, int plain)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        setpgid(0, 0);
        int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0)
            _exit(126);
        dup2(fo, 1);
        dup2(fe, 2);
        for (int i = 0; i < a->nenv; i++)
            putenv(a->env[i]);
        if (simdir) {
            const char *old = getenv("LD_LIBRARY_PATH");
            char buf[8192];
            snprintf(buf, sizeof buf, "%s%s%s", simdir, old && *old ? ":" : "", old ? old : "");
            setenv("LD_LIBRARY_PATH", buf, 1);
        }
        /* Our sanitizer builds: the plain run loads the sanitizer's runtime
           first too (a sanitized simulator needs it; ThreadSanitizer's
           crashes the process without it).  The launcher does the same for
           the run under streamcheck. */
        const char *san = getenv("STREAMCHECK_PRELOAD_FIRST");
        if (!san || !*san)
            san = getenv("STREAMCHECK_PRELOAD_AFTER");
        if (plain && san && *san) {
            const char *old = getenv("LD_PRELOAD");
            char buf[8192];
            snprintf(buf, sizeof buf, "%s%s%s", san, old && *old ? ":" : "", old ? old : "");
            setenv("LD_PRELOAD", buf, 1);
        }
        execv(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int st = 0;
    time_t t0 = time(NULL);
    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            return st;
        if (w < 0 && errno != EINTR)
            return -1;
        if (time(NULL) - t0 > timeout) {
            kill(-pid, SIGKILL);
            waitpid(pid, &st, 0);
            return -2;
        }
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

static int same_file(const char *a, const char *b)
{
    char err[256];
    char *x = NULL, *y = NULL;
    size_t nx = 0, ny = 0;
    int same = sc_read_file(a, (size_t)64 << 20, &x, &nx, err, sizeof err) == 0 &&
               sc_read_file(b, (size_t)64 << 20, &y, &ny, err, sizeof err) == 0 && nx == ny &&
               !memcmp(x, y, nx);
    free(x);
    free(y);
    return same;
}

/* Every JSON report in dir, merged. */
static sc_report *read_reports(const char *dir, int *nfiles, char *err, size_t errlen)
{
    sc_report *r = sc_report_new();
    DIR *d = opendir(dir);
    *nfiles = 0;
    if (!r || !d) {
        if (d)
            closedir(d);
        snprintf(err, errlen, "cannot read %s", dir);
        sc_report_free(r);
        return NULL;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 5, ".json"))
            continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (sc_report_read_json(r, path, err, errlen)) {
            closedir(d);
            sc_report_free(r);
            return NULL;
        }
        (*nfiles)++;
    }
    closedir(d);
    return r;
}

/* "SC101x12 SC203x5" from an expectation file, or "none". */
static void expected_summary(const char *path, char *buf, size_t len)
{
    unsigned long long n[SC_NRULES] = {0};
    FILE *f = path[0] ? fopen(path, "r") : NULL;
    char line[1024], rule[64], where[1024];
    unsigned long long count;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "finding %63s %1023s %llu", rule, where, &count) == 3) {
            int id = sc_rule_lookup(rule);
            if (id >= 0)
                n[id] += count;
        }
    if (f)
        fclose(f);
    buf[0] = 0;
    for (int i = 0; i < SC_NRULES; i++)
        if (n[i])
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%sx%llu", *buf ? " " : "", sc_rules[i].id, n[i]);
    if (!buf[0])
        snprintf(buf, len, "none");
}

static void found_summary(const sc_report *r, char *buf, size_t len)
{
    unsigned long long n[SC_NRULES] = {0};
    for (size_t i = 0; r && i < r->nfindings; i++)
        n[r->findings[i].rule] += r->findings[i].count;
    buf[0] = 0;
    for (int i = 0; i < SC_NRULES; i++)
        if (n[i])
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%sx%llu", *buf ? " " : "", sc_rules[i].id, n[i]);
    if (!buf[0])
        snprintf(buf, len, "none");
}

static void show_file(const char *path, const char *prefix, int max_lines)
{
    FILE *f = fopen(path, "r");
    char line[512];
    int n = 0;
    while (f && fgets(line, sizeof line, f) && n++ < max_lines)
        printf("%s%s%s", prefix, line, strchr(line, '\n') ? "" : "\n");
    if (f)
        fclose(f);
}

/* The app run plainly (plain) and under the launcher (shim), its report
   going to dir; outopt holds the launcher's --output. */
static void command_lines(const app *a, char *exe, const char *self, const char *simdir, char *outopt,
                          size_t outlen, const char *dir, char **plain, char **shim)
{
    int k = 0;
    plain[k++] = exe;
    for (int i = 0; i < a->nargs; i++)
        plain[k++] = a->args[i];
    plain[k] = NULL;
    snprintf(outopt, outlen, "--output=%s", dir);
    k = 0;
    shim[k++] = (char *)self;
    shim[k++] = (char *)"--format=json";
    shim[k++] = outopt;
    if (simdir)
        shim[k++] = (char *)"--simulate";
    shim[k++] = (char *)"--";
    shim[k++] = exe;
    for (int i = 0; i < a->nargs; i++)
        shim[k++] = a->args[i];
    shim[k] = NULL;
}

/* Whether the app skipped itself (exit 77 both times, its reason in its
   first line of output); prints its row if so. */
static int skipped_itself(const app *a, const char *simdir, const char *expected, int st1, int st2,
                          const char *pout)
{
    if (st1 != st2 || st1 < 0 || !WIFEXITED(st1) || WEXITSTATUS(st1) != 77)
        return 0;
    char line[160] = "";
    FILE *f = fopen(pout, "r");
    if (!f || !fgets(line, sizeof line, f))
        snprintf(line, sizeof line, "the app skipped itself");
    if (f)
        fclose(f);
    line[strcspn(line, "\r\n")] = 0;
    const char *why = !strncmp(line, "SKIP: ", 6) ? line + 6 : line;
    printf("%-32s %-5s %-28s %-28s skip (%s)\n", a->label, simdir ? "sim" : "gpu", expected, "-", why);
    return 1;
}

/* What the two runs (wait statuses st1 plain, st2 under the launcher) and
   the report r made of files JSON files (NULL: err says why) show: why the
   app fails, or "" when it passes.  An expectation file's diff goes to
   diff. */
static void judge(const app *a, int st1, int st2, int timeout, const char *pout, const char *sout,
                  const sc_report *r, int files, const char *err, FILE *diff, char *why, size_t len)
{
    why[0] = 0;
    if (st1 == -2 || st2 == -2)
        snprintf(why, len, "timed out after %d s", timeout);
    else if (st1 != st2)
        snprintf(why, len, "exit status differs: plain %d, under streamcheck %d",
                 WIFEXITED(st1) ? WEXITSTATUS(st1) : -1, WIFEXITED(st2) ? WEXITSTATUS(st2) : -1);
    else if (!WIFEXITED(st1) || WEXITSTATUS(st1) != 0)
        snprintf(why, len, "the app failed (exit %d)", WIFEXITED(st1) ? WEXITSTATUS(st1) : -1);
    else if (!same_file(pout, sout))
        snprintf(why, len, "output differs with streamcheck");
    else if (!r)
        snprintf(why, len, "no report: %s", err);
    else if (files == 0)
        snprintf(why, len, "no report was written");
    else if (a->expect[0]) {
        char eerr[512];
        sc_expect *e = sc_expect_load(a->expect, eerr, sizeof eerr);
        if (!e)
            snprintf(why, len, "%s", eerr);
        else if (sc_expect_check(e, r, diff) != 0)
            snprintf(why, len, "the report differs from %s", sc_basename(a->expect));
        sc_expect_free(e);
    } else if (r->nfindings) {
        snprintf(why, len, "findings where none are expected");
    }
}

/* Under a failed app's row: why, the diff, the launcher's stderr. */
static void print_failure(const char *why, FILE *diff, const char *serr)
{
    printf("    %s\n", why);
    if (diff) {
        rewind(diff);
        char line[512];
        int n = 0;
        while (fgets(line, sizeof line, diff) && n++ < 20)
            printf("    %s", line);
    }
    printf("    stderr under streamcheck:\n");
    show_file(serr, "      ", 12);
}

/* One app; prints its row.  Returns 0 pass, 1 fail, 2 skipped. */
static int one(const app *a, const char *appdir, const char *self, const char *simdir, int timeout)
{
    char exe[PATH_MAX + 128], dir[512];
    snprintf(exe, sizeof exe, "%s/%s", appdir, a->name);
    const char *tmp = getenv("TMPDIR");
    if ((size_t)snprintf(dir, sizeof dir, "%s/streamcheck-selftest.XXXXXX", tmp && *tmp ? tmp : "/tmp") >=
        sizeof dir)
        dir[0] = 0;   /* mkdtemp fails below, and says so */
    char expected[256];
    expected_summary(a->expect, expected, sizeof expected);
    if ((!strcmp(a->where, "gpu") && simdir) || (!strcmp(a->where, "sim") && !simdir)) {
        printf("%-32s %-5s %-28s %-28s %s\n", a->label, a->where, expected, "-",
               simdir ? "skip (needs a GPU)" : "skip (simulator only)");
        return 2;
    }
    if (!mkdtemp(dir)) {
        printf("%-32s cannot create a temporary directory: %s\n", a->label, strerror(errno));
        return 1;
    }
    char pout[PATH_MAX], perr[PATH_MAX], sout[PATH_MAX], serr[PATH_MAX];
    snprintf(pout, sizeof pout, "%s/plain.out", dir);
    snprintf(perr, sizeof perr, "%s/plain.err", dir);
    snprintf(sout, sizeof sout, "%s/shim.out", dir);
    snprintf(serr, sizeof serr, "%s/shim.err", dir);

    char *plain[MAX_ARGS + 2], *shim[MAX_ARGS + 8], outopt[PATH_MAX + 16];
    command_lines(a, exe, self, simdir, outopt, sizeof outopt, dir, plain, shim);
    int st1 = run(plain, a, simdir, pout, perr, timeout, 1);
    int st2 = run(shim, a, NULL, sout, serr, timeout, 0);
    if (skipped_itself(a, simdir, expected, st1, st2, pout)) {
        sc_remove_dir(dir);
        return 2;
    }
    char why[512], err[512] = "", found[256];
    int files = 0;
    sc_report *r = read_reports(dir, &files, err, sizeof err);
    found_summary(r, found, sizeof found);
    FILE *diff = tmpfile();
    judge(a, st1, st2, timeout, pout, sout, r, files, err, diff, why, sizeof why);
    printf("%-32s %-5s %-28s %-28s %s\n", a->label, simdir ? "sim" : "gpu", expected, found,
           why[0] ? "FAIL" : "pass");
    if (why[0])
        print_failure(why, diff, serr);
    if (diff)
        fclose(diff);
    sc_report_free(r);
    const char *keep = getenv("STREAMCHECK_SELFTEST_KEEP");
    if (keep && *keep == '1')
        printf("    kept %s\n", dir);
    else
        sc_remove_dir(dir);
    return why[0] ? 1 : 0;
}

int sc_cli_selftest(int simulate)
{
    char appdir[PATH_MAX], list[PATH_MAX], self[PATH_MAX], simbuf[PATH_MAX], gpu[256] = "";
    if (sc_cli_find_testapps(appdir, sizeof appdir, list, sizeof list)) {
        fprintf(stderr, "streamcheck: cannot find the test apps (looked in %s); set STREAMCHECK_TESTAPPS\n",
                appdir);
        return 2;
    }
    sc_path_normalize(appdir);
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "streamcheck: cannot find the launcher itself\n");
        return 2;
    }
    self[n] = 0;

    const char *simdir = NULL;
    if (!simulate && !sc_cli_gpu_name(gpu, sizeof gpu)) {
        printf("streamcheck selftest: no CUDA device found here; using the simulator\n");
        simulate = 1;
    }
    if (simulate) {
        if (sc_cli_find_simdir(simbuf, sizeof simbuf)) {
            fprintf(stderr, "streamcheck: cannot find the simulator; set STREAMCHECK_SIMDIR\n");
            return 2;
        }
        simdir = simbuf;
    }
    FILE *f = fopen(list, "r");
    if (!f) {
        fprintf(stderr, "streamcheck: cannot read %s: %s\n", list, strerror(errno));
        return 2;
    }
    const char *t = getenv("STREAMCHECK_SELFTEST_TIMEOUT");
    int timeout = t && atoi(t) > 0 ? atoi(t) : 300;
    printf("streamcheck %s selftest on %s (apps in %s)\n", PACKAGE_VERSION,
           simdir ? "the CPU simulator" : gpu, appdir);
    printf("%-32s %-5s %-28s %-28s %s\n", "app", "where", "expected", "found", "result");
    int pass = 0, fail = 0, skip = 0;
    char line[4096];
    unsigned lineno = 0;
    const char *only = getenv("STREAMCHECK_SELFTEST_ONLY");
    while (fgets(line, sizeof line, f)) {
        lineno++;
        app a;
        int k = parse_line(line, &a, appdir);
        if (k < 0) {
            fprintf(stderr, "streamcheck: %s:%u: expected NAME any|gpu|sim [expect=FILE] [VAR=VALUE...] [-- ARGS]\n",
                    list, lineno);
            fail++;
            continue;
        }
        if (k == 0)
            continue;
        if (only && *only && strcmp(only, a.name)) {
            free_app(&a);
            continue;
        }
        int r = one(&a, appdir, self, simdir, timeout);
        pass += r == 0;
        fail += r == 1;
        skip += r == 2;
        fflush(stdout);
        free_app(&a);
    }
    fclose(f);
    printf("selftest: %d passed, %d failed, %d skipped\n", pass, fail, skip);
    return fail ? 1 : 0;
}
