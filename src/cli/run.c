/* run.c: runs the program under the shim.  The launcher exports the
 * settings the command line gave, preloads libstreamcheck.so (and the
 * simulator with --simulate), waits for the program while passing
 * termination requests on, and reads the finding counts each of the
 * program's processes left in a private status directory, for --fail-on. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inject.h"
#include "locate.h"
#include "options.h"
#include "rules.h"
#include "run.h"

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

/* Finds the shim (lib), puts the simulator on the library path with
   --simulate and exports the settings the command line gave; 0, or 2 when
   a piece cannot be found. */
static int prepare(const sc_launch *o, char *lib, size_t len)
{
    if (sc_cli_find_lib(lib, len)) {
        fprintf(stderr, "%s: cannot find libstreamcheck.so (looked next to the launcher and in %s); "
                "set STREAMCHECK_LIB\n", SC_PROG, SC_LIBDIR);
        return 2;
    }
    if (o->simulate) {
        char sim[PATH_MAX];
        if (sc_cli_find_simdir(sim, sizeof sim)) {
            fprintf(stderr, "%s: cannot find the simulator (looked for %s/sim); set STREAMCHECK_SIMDIR\n",
                    SC_PROG, SC_PKGLIBEXECDIR);
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
    return 0;
}

/* The shim first, after anything that must come before it (a sanitizer
   runtime in our own sanitizer builds), and before anything that must come
   right after it (ThreadSanitizer's runtime: the shim's pthread
   interposers must see the program's calls first, then hand them to its
   interceptors). */
static void preload(const char *lib)
{
    const char *after = getenv("STREAMCHECK_PRELOAD_AFTER");
    if (after && *after)
        prepend_env("LD_PRELOAD", after, ':');
    prepend_env("LD_PRELOAD", lib, ':');
    const char *first = getenv("STREAMCHECK_PRELOAD_FIRST");
    if (first && *first)
        prepend_env("LD_PRELOAD", first, ':');
}

/* Runs argv and returns its exit status as a shell would; 2 if it cannot
   fork, 127 or 126 if it cannot be run. */
static int run_child(char **argv)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "%s: fork: %s\n", SC_PROG, strerror(errno));
        return 2;
    }
    if (pid == 0) {
        execvp(argv[0], argv);
        int e = errno;
        fprintf(stderr, "%s: cannot run '%s': %s\n", SC_PROG, argv[0], strerror(e));
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
    return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
}

/* What the processes found, said in a line where it helps; the exit status
   is the program's unless the findings reach --fail-on. */
static int verdict(const sc_launch *o, const totals *t, int code, const char *name)
{
    if (t->processes == 0 && code != 127 && code != 126) {
        const char *lvl = o->set[SC_OPT_LOG_LEVEL];
        if (!lvl || strcmp(lvl, "quiet"))
            fprintf(stderr, "%s: no CUDA calls were seen in %s\n", SC_PROG, name);
    } else if (t->processes > 1) {
        fprintf(stderr, "%s: %llu processes: %llu findings (%llu errors, %llu warnings, %llu notes)\n",
                SC_PROG, t->processes, t->findings, t->errors, t->warnings, t->notes);
    }
    if (o->fail_on >= 0) {
        unsigned long long reach = t->errors;
        if (o->fail_on <= SC_SEV_WARNING)
            reach += t->warnings;
        if (o->fail_on <= SC_SEV_NOTE)
            reach += t->notes;
        if (reach)
            return o->error_exitcode;
    }
    return code;
}

int sc_cli_run(char **argv, const sc_launch *o)
{
    char lib[PATH_MAX];
    int rc = prepare(o, lib, sizeof lib);
    if (rc)
        return rc;
    char statusdir[] = "/tmp/streamcheck.XXXXXX";
    int have_status = mkdtemp(statusdir) != NULL;
    if (have_status)
        setenv("STREAMCHECK_STATUS_DIR", statusdir, 1);
    preload(lib);
    sc_cli_nvtx_inject(lib, o);
    int code = run_child(argv);
    totals t = {0};
    if (have_status)
        read_status(statusdir, &t);
    return verdict(o, &t, code, argv[0]);
}
