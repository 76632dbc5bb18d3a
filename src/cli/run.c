/* run.c: runs the program under the shim, as a good parent.  The launcher
 * exports the settings the command line gave, preloads libstreamcheck.so
 * (and the simulator with --simulate), gives the program a status
 * directory (status.h), passes on the signals meant for it and takes it
 * down if the launcher itself is killed; afterwards it says what the
 * processes found, or why it cannot know, and applies --fail-on. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "finish.h"
#include "gpu.h"
#include "inject.h"
#include "locate.h"
#include "options.h"
#include "report.h"
#include "rules.h"
#include "run.h"
#include "sc.h"
#include "status.h"

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

/* The settings as the program's processes will read them (the command
   line's, the environment's and the config file's); the shim says what is
   wrong with a bad one. */
static sc_options eff;
static char *launch_cwd;   /* where the launcher was started */

static void ignore_warning(const char *msg) { (void)msg; }

/* The report files go where the settings say (the launcher's --output,
   STREAMCHECK_OUTPUT or a config file), a relative directory, the default
   "." included, meaning the one the launcher was started in: the program
   may change directory before it writes them. */
static void export_output(void)
{
    char *abs = NULL;
    const char *dir = eff.output[0] ? eff.output : ".";
    if (dir[0] != '/' && launch_cwd && asprintf(&abs, "%s/%s", launch_cwd, dir) >= 0) {
        sc_path_normalize(abs);
        setenv("STREAMCHECK_OUTPUT", abs, 1);
        snprintf(eff.output, sizeof eff.output, "%s", abs);
    }
    free(abs);
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
    sc_options_load(&eff, ignore_warning);
    export_output();
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

/* ---------------------------------------------------------- the child --- */
/* The requests to end or to act that the launcher passes on. */
static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

static void on_sigchld(int sig) { (void)sig; }

/* In the child: taken down with the launcher (even when a SIGKILL ends
   it: the program must not run on, orphaned, on a GPU nobody watches),
   then the program with the launcher's own signal mask.  An exec that
   fails sends its errno up the pipe. */
__attribute__((noreturn)) static void exec_child(char **argv, const sigset_t *mask, pid_t parent, int errfd)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);   /* the launcher died before prctl */
    sigprocmask(SIG_SETMASK, mask, NULL);
    execvp(argv[0], argv);
    int e = errno;
    if (write(errfd, &e, sizeof e) < 0)
        _exit(127);
    _exit(e == ENOENT ? 127 : 126);
}

/* Whether sig is pending in the process already (a signal sent to the
   whole process group, that the launcher got too): passing it on would
   only merge into it. */
static int pending_in(pid_t pid, int sig)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
    FILE *f = fopen(path, "r");
    int pending = 0;
    while (f && !pending && fgets(line, sizeof line, f))
        if (!strncmp(line, "SigPnd:", 7) || !strncmp(line, "ShdPnd:", 7))
            pending = (strtoull(line + 7, NULL, 16) >> (sig - 1)) & 1;
    if (f)
        fclose(f);
    return pending;
}

/* Waits for the child, passing on each forwarded signal a process sent to
   the launcher.  The terminal's ^C, ^\ and hang-up come from the kernel
   to the whole foreground process group, the program included: those are
   not sent twice.  Returns the wait status. */
static int wait_child(pid_t pid, const sigset_t *set)
{
    int st = 0;
    for (;;) {
        siginfo_t si;
        int sig = sigwaitinfo(set, &si);
        if (sig < 0 && errno == EINTR)
            continue;
        if (sig < 0)
            break;
        if (sig != SIGCHLD) {
            if (si.si_code != SI_KERNEL && !pending_in(pid, sig))
                kill(pid, sig);
            continue;
        }
        pid_t w;
        while ((w = waitpid(pid, &st, WNOHANG)) < 0 && errno == EINTR)
            ;
        if (w == pid)
            return st;
    }
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    return st;
}

/* Runs argv; *ws gets its wait status.  Returns its exit status as a shell
   would give it (128 + N for signal N); 2 if it cannot fork, 127 or 126
   after saying why it cannot be run (*ran is then 0).  The forwarded
   signals stay blocked in the launcher afterwards: a late one must not end
   it while it finishes the reports. */
static int run_child(char **argv, pid_t *child, int *ws, int *ran)
{
    sigset_t set, old;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof forwarded / sizeof *forwarded; i++)
        sigaddset(&set, forwarded[i]);
    sigaddset(&set, SIGCHLD);
    signal(SIGCHLD, on_sigchld);   /* not ignored: sigwaitinfo must see it */
    sigprocmask(SIG_BLOCK, &set, &old);
    int pfd[2] = {-1, -1};
    *ran = 0;
    fflush(NULL);
    pid_t parent = getpid(), pid = pipe2(pfd, O_CLOEXEC) ? -1 : fork();
    if (pid < 0) {
        fprintf(stderr, "%s: cannot start the program: %s\n", SC_PROG, strerror(errno));
        if (pfd[0] >= 0)
            close(pfd[0]), close(pfd[1]);
        return 2;
    }
    if (pid == 0) {
        close(pfd[0]);
        exec_child(argv, &old, parent, pfd[1]);
    }
    close(pfd[1]);
    *child = pid;
    int e = 0;
    ssize_t n;
    while ((n = read(pfd[0], &e, sizeof e)) < 0 && errno == EINTR)
        ;
    close(pfd[0]);
    *ws = wait_child(pid, &set);
    if (n == (ssize_t)sizeof e) {
        fprintf(stderr, "%s: cannot run '%s': %s\n", SC_PROG, argv[0], strerror(e));
        return e == ENOENT ? 127 : 126;
    }
    *ran = 1;
    return WIFEXITED(*ws) ? WEXITSTATUS(*ws) : WIFSIGNALED(*ws) ? 128 + WTERMSIG(*ws) : 1;
}

/* ----------------------------------------------------------- verdict --- */
typedef struct outcome {
    unsigned long long findings, errors, warnings, notes;
    unsigned long long reported;   /* processes whose report was written */
    unsigned long long idle;       /* ... of which submitted no CUDA work */
    int shim_seen;                 /* some process had the shim */
    int cuda;                      /* some process made CUDA calls */
    int unknown;                   /* some findings cannot be known */
    int unchecked;                 /* a process could not be checked at all */
} outcome;

typedef struct context {
    const sc_launch *o;
    const char *prog;              /* argv[0] */
    pid_t child;
    int ws;                        /* its wait status */
    int quiet;
} context;

__attribute__((format(printf, 2, 3))) static void say(const context *c, const char *fmt, ...)
{
    if (c->quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", SC_PROG);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* "signal 9 (Killed)" */
static void signal_words(int sig, char *buf, size_t len)
{
    const char *s = strsignal(sig);
    snprintf(buf, len, "signal %d%s%s%s", sig, s ? " (" : "", s ? s : "", s ? ")" : "");
}

/* A process that used CUDA and left no report: why, as far as known. */
static void lost_report(const context *c, const sc_pstatus *p)
{
    char why[128];
    int sig = p->signal ? p->signal
              : p->pid == (long)c->child && WIFSIGNALED(c->ws) ? WTERMSIG(c->ws) : 0;
    if (sig)
        signal_words(sig, why, sizeof why);
    else if (p->ended)
        snprintf(why, sizeof why, "it called %.60s", p->ended);
    else
        snprintf(why, sizeof why, "it left without the usual exit (_exit) or crashed");
    say(c, "process %ld (%s) used CUDA but ended before streamcheck could write its report: %s; "
        "its findings are unknown", p->pid, p->exe ? p->exe : c->prog, why);
}

/* What a process's "error WORD" (status.h) means. */
static const struct status_error {
    const char *word, *says;
} status_errors[] = {
    {"static-cudart", "it carries NVIDIA's CUDA runtime linked statically (nvcc's default), which cannot run on "
                      "the simulator: every CUDA call failed; rebuild it with nvcc -cudart shared"},
};

/* A process that could not be checked: why, in a line. */
static void unchecked(const context *c, const sc_pstatus *p)
{
    const char *says = p->error;
    for (size_t i = 0; i < sizeof status_errors / sizeof *status_errors; i++)
        if (!strcmp(p->error, status_errors[i].word))
            says = status_errors[i].says;
    say(c, "process %ld (%s) was not checked: %s", p->pid, p->exe ? p->exe : c->prog, says);
}

static void tally(const context *c, const sc_status *st, outcome *out)
{
    out->shim_seen = st->loaded;
    for (size_t i = 0; i < st->nprocs; i++) {
        const sc_pstatus *p = &st->procs[i];
        out->shim_seen = 1;
        if (p->error) {
            out->unchecked = 1;
            unchecked(c, p);
        }
        if (p->state == SC_PS_DONE) {
            out->cuda = 1;
            out->reported++;
            out->idle += p->work == 0;
            out->findings += p->findings;
            out->errors += p->errors;
            out->warnings += p->warnings;
            out->notes += p->notes;
        } else if (p->state == SC_PS_ACTIVE || p->state == SC_PS_LOST) {
            out->cuda = 1;
            out->unknown = 1;
            if (p->state == SC_PS_ACTIVE)
                lost_report(c, p);
        }
    }
}

/* No report at all: why not, in a line or two. */
static void no_report(const context *c, const outcome *out)
{
    char why[600], sig[128] = "";
    if (WIFSIGNALED(c->ws))
        signal_words(WTERMSIG(c->ws), sig, sizeof sig);
    if (!out->shim_seen) {
        say(c, "%s ran without streamcheck: libstreamcheck.so was not loaded into it (the loader ignores "
            "LD_PRELOAD for set-user-ID and statically linked programs); nothing was checked", c->prog);
        return;
    }
    say(c, "no CUDA calls were seen in %s%s%s", c->prog, sig[0] ? " before " : "", sig);
    if (!c->o->simulate && sc_cli_gpu_missing(why, sizeof why))
        say(c, "%s; to check how a program uses CUDA without a GPU, run it on streamcheck's CPU simulator: "
            "streamcheck --simulate [OPTIONS] %s (programs built with nvcc -cudart shared)", why, c->prog);
}

/* What the processes found, said in a line where it helps; the exit status
   is the program's unless --fail-on is reached, or set while the findings
   cannot be known. */
static int verdict(const context *c, const sc_status *st, int code)
{
    outcome out = {0};
    if (!st->dir[0]) {
        say(c, "cannot know what %s found: no status directory (%s)", c->prog, st->why);
        out.unknown = 1;
    } else {
        tally(c, st, &out);
        if (!out.cuda)
            no_report(c, &out);
        out.unknown |= !out.shim_seen;
    }
    /* A process that submitted no work to the GPU (a torchrun parent) is
       not one of the job's: it is counted apart. */
    unsigned long long busy = out.reported - out.idle;
    char apart[100] = "";
    if (out.idle)
        snprintf(apart, sizeof apart, "; left out: %llu that submitted no work to the GPU", out.idle);
    if (out.reported > 1)
        say(c, "%llu process%s: %llu findings (%llu errors, %llu warnings, %llu notes)%s", busy,
            busy == 1 ? "" : "es", out.findings, out.errors, out.warnings, out.notes, apart);
    const sc_launch *o = c->o;
    /* A run that could not be checked never passes: no false clean. */
    out.unknown |= out.unchecked;
    if (o->fail_on < 0)
        return out.unchecked && !code ? 1 : code;
    if (out.unknown) {
        fprintf(stderr, "%s: --fail-on %s: the findings are unknown (see above); exit status %d\n", SC_PROG,
                sc_severity_name((sc_severity)o->fail_on), o->error_exitcode);
        return o->error_exitcode;
    }
    unsigned long long reach = out.errors;
    if (o->fail_on <= SC_SEV_WARNING)
        reach += out.warnings;
    if (o->fail_on <= SC_SEV_NOTE)
        reach += out.notes;
    return reach ? o->error_exitcode : code;
}

static int by_pid(const void *a, const void *b)
{
    long x = ((const sc_pstatus *)a)->pid, y = ((const sc_pstatus *)b)->pid;
    return (x > y) - (x < y);
}

/* The files each process wrote, and the reports left to the launcher
   finished, in the order the processes were made (by PID, mostly). */
static void finish_all(const context *c, sc_status *st)
{
    sc_finish f = {&eff, launch_cwd, c->quiet, NULL, 0};
    if (st->nprocs)
        qsort(st->procs, st->nprocs, sizeof *st->procs, by_pid);
    for (size_t i = 0; i < st->nprocs; i++) {
        sc_pstatus *p = &st->procs[i];
        for (size_t j = 0; j < p->nwrote; j++)
            sc_finish_wrote(&f, p->wrote[j]);
        if (p->deferred && p->state != SC_PS_DONE && sc_finish_report(&f, p))
            p->state = SC_PS_LOST;
    }
    sc_finish_end(&f);
}

int sc_cli_run(char **argv, const sc_launch *o)
{
    char lib[PATH_MAX];
    launch_cwd = getcwd(NULL, 0);
    int rc = prepare(o, lib, sizeof lib);
    if (rc)
        return rc;
    /* Each process leaves its state there, and its report for the launcher
       to finish after the program (finish.c). */
    sc_status st;
    if (sc_status_open(&st) == 0) {
        setenv("STREAMCHECK_STATUS_DIR", st.dir, 1);
        setenv("STREAMCHECK_DEFER_SYMBOLS", "1", 1);
    } else {
        unsetenv("STREAMCHECK_STATUS_DIR");
        unsetenv("STREAMCHECK_DEFER_SYMBOLS");
    }
    preload(lib);
    sc_cli_nvtx_inject(lib, o);
    context c = {o, argv[0], 0, 0, eff.log_level == SC_LOG_QUIET};
    int ran;
    int code = run_child(argv, &c.child, &c.ws, &ran);
    if (!ran) {
        sc_status_close(&st);
        return code;
    }
    sc_status_read(&st);
    finish_all(&c, &st);
    rc = verdict(&c, &st, code);
    sc_status_close(&st);
    return rc;
}
