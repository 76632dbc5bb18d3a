/* exec.c: exec* and _exit end the program without exit(): no atexit
 * handler and no destructor runs, and the report was lost.  They are
 * interposed: the final report first, then the real call.
 *
 * Before exec* the report is written only when the exec can run at all
 * (the file, or one on PATH for the p variants, is executable): a failed
 * exec returns to the program, which goes on, but the shim stops judging
 * once its report is written.  Nothing is done in a child of vfork (it
 * shares the parent's memory; its PID is not the shim's) nor in a process
 * that never initialized the shim.  Called from a signal handler (a
 * handler of the program's, which may exec or _exit), the report is the
 * reporter thread's, as for a signal (reporter.c).
 */
#include "config.h"

#include <alloca.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core.h"
#include "real.h"
#include "reporter.h"
#include "signals.h"

/* The real functions, found once in a constructor (an exec may come from
   a child of vfork, where the loader's lock is better left alone). */
enum { R_EXECVE, R_EXECV, R_EXECVP, R_EXECVPE, R_FEXECVE, R_EXIT, R_EXIT2, R_QUICK_EXIT, R_N };
static const char *const real_names[R_N] = {"execve", "execv", "execvp", "execvpe", "fexecve", "_exit", "_Exit",
                                            "quick_exit"};
static void *_Atomic reals[R_N];

static void *real_fn(unsigned i)
{
    void *p = atomic_load(&reals[i]);
    if (!p) {
        typedef void *(*dlsym_fn)(void *, const char *);
        dlsym_fn f = (dlsym_fn)sc_resolve_real_dlsym();
        p = f ? f(RTLD_NEXT, real_names[i]) : NULL;
        atomic_store(&reals[i], p);
    }
    return p;
}

__attribute__((constructor)) static void find_reals(void)
{
    for (unsigned i = 0; i < R_N; i++)
        real_fn(i);
}

/* The file an exec of `file` would run is there and executable; search:
   looked up on PATH as execvp does, unless it names a directory. */
static int runnable(const char *file, int search)
{
    if (!file || !*file)
        return 0;
    if (!search || strchr(file, '/'))
        return access(file, X_OK) == 0;
    const char *path = getenv("PATH");
    if (!path)
        path = "/bin:/usr/bin";
    size_t flen = strlen(file);
    for (const char *p = path;; p++) {
        const char *colon = strchr(p, ':');
        size_t dlen = colon ? (size_t)(colon - p) : strlen(p);
        char buf[PATH_MAX];
        if (dlen + flen + 2 <= sizeof buf) {
            memcpy(buf, dlen ? p : ".", dlen ? dlen : 1);
            size_t n = dlen ? dlen : 1;
            buf[n++] = '/';
            memcpy(buf + n, file, flen + 1);
            if (access(buf, X_OK) == 0)
                return 1;
        }
        if (!colon)
            return 0;
        p = colon;
    }
}

/* The final report, before the process image ends (why: SC_WHY_*). */
static void report_first(int why)
{
    if (sc_g.pid != getpid() || !sc_judging())
        return;
    if (sc_in_program_handler())
        sc_reporter_request(SC_REQ_FINAL, why, SC_END_WAIT_NS);
    else
        sc_final_report(why == SC_WHY_EXEC ? "exec" : "_exit");
}

static void before_exec(const char *file, int search)
{
    int saved = errno;
    if (sc_g.pid == getpid() && sc_judging() && runnable(file, search))
        report_first(SC_WHY_EXEC);
    errno = saved;
}

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);

SC_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    before_exec(path, 0);
    return ((execve_fn)real_fn(R_EXECVE))(path, argv, envp);
}

SC_EXPORT int execv(const char *path, char *const argv[])
{
    before_exec(path, 0);
    return ((execv_fn)real_fn(R_EXECV))(path, argv);
}

SC_EXPORT int execvp(const char *file, char *const argv[])
{
    before_exec(file, 1);
    return ((execv_fn)real_fn(R_EXECVP))(file, argv);
}

SC_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    before_exec(file, 1);
    return ((execve_fn)real_fn(R_EXECVPE))(file, argv, envp);
}

SC_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    before_exec("/proc/self/fd", 0);   /* a descriptor: assume it runs */
    return ((fexecve_fn)real_fn(R_FEXECVE))(fd, argv, envp);
}

/* The l variants: their arguments made into an array on the stack, as the
   C library does (no malloc: a child of vfork may call them), and passed to the v variant (through the real one, so the report
   is written once). */
#define COLLECT_ARGS(arg, last, av)                                      \
    size_t n_ = 1;                                                       \
    va_list ap_;                                                         \
    va_start(ap_, arg);                                                  \
    while (va_arg(ap_, char *))                                          \
        n_++;                                                            \
    va_end(ap_);                                                         \
    char **av = alloca((n_ + 1) * sizeof *av);                           \
    av[0] = (char *)(arg);                                               \
    va_start(ap_, arg);                                                  \
    for (size_t i_ = 1; i_ <= n_; i_++)                                  \
        av[i_] = va_arg(ap_, char *);                                    \
    last;                                                                \
    va_end(ap_)

SC_EXPORT int execl(const char *path, const char *arg, ...)
{
    COLLECT_ARGS(arg, (void)0, av);
    before_exec(path, 0);
    return ((execv_fn)real_fn(R_EXECV))(path, av);
}

SC_EXPORT int execlp(const char *file, const char *arg, ...)
{
    COLLECT_ARGS(arg, (void)0, av);
    before_exec(file, 1);
    return ((execv_fn)real_fn(R_EXECVP))(file, av);
}

SC_EXPORT int execle(const char *path, const char *arg, ...)
{
    char *const *envp;
    COLLECT_ARGS(arg, envp = va_arg(ap_, char *const *), av);
    before_exec(path, 0);
    return ((execve_fn)real_fn(R_EXECVE))(path, av, envp);
}

/* ----------------------------------------------------------- _exit --- */
typedef void (*exit_fn)(int);

__attribute__((noreturn)) static void end_now(unsigned which, int status)
{
    int saved = errno;
    report_first(SC_WHY_EXIT);
    errno = saved;
    exit_fn real = (exit_fn)real_fn(which);
    if (real)
        real(status);
    for (;;)
        syscall(SYS_exit_group, status);
}

SC_EXPORT void _exit(int status)
{
    end_now(R_EXIT, status);
}

SC_EXPORT void _Exit(int status)
{
    end_now(R_EXIT2, status);
}

/* quick_exit runs the at_quick_exit handlers, then _exit inside the C
   library, past the interposed one: the report goes first. */
SC_EXPORT void quick_exit(int status)
{
    end_now(R_QUICK_EXIT, status);
}
