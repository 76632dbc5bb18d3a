/* status.c: what a process tells the launcher (src/cli/run.c), in its
 * private status directory (STREAMCHECK_STATUS_DIR): a file PID.status
 * (PID-2.status, ... for the program an exec put in its place, whose PID
 * is the same), written whole (a temporary file renamed into place),
 * replaced by each later report of the process; an empty one for the
 * moment between its name being claimed and its first text.  Lines:
 *
 *   F E W N          the report's findings, errors, warnings and notes: the
 *                    first line whenever a report was written
 *   noreport         the first line instead, when none could be written
 *   then, each where it applies:
 *   ended signal S   the report was written because signal S was ending the
 *   ended exec       process (it then died of it, unless a handler of the
 *   ended _exit      program's own took it), or before exec* or _exit; no
 *                    such line at an ordinary exit.  After "noreport": what
 *                    ended the process before a report could be written
 *   partial snapshot the counts are of a report written while the program
 *   partial signal S ran (--snapshot; a signal its own handler took); the
 *                    process may since have been killed (SIGKILL)
 *   error static-cudart  the program carries NVIDIA's CUDA runtime linked
 *                    statically, which cannot run on the simulator: every
 *                    CUDA call failed (rebuild with nvcc -cudart shared)
 *
 * and, for the launcher's messages and its finishing of the reports
 * (src/cli/status.h has the whole protocol):
 *   state active     the process made its first CUDA call (no report yet:
 *   exe NAME         an end without one is a report lost); its program
 *   state ended      it ended with no CUDA call to report, after "active"
 *   work N           calls that submitted work to a stream (0: none)
 *   wrote PATH       a report file it wrote, a line each
 *   deferred FILE    its report, unsymbolized, in the status directory
 *   name BASE        for the launcher to finish under this base name, and
 *   cwd PATH         with this current directory as the source root
 *
 * A process in which the shim was loaded also leaves an empty file named
 * "loaded" there, from its constructor (the one thing it does there: it
 * must be done before the program can end in any way): a status directory
 * without it once the program has ended means the shim never loaded, as
 * for a setuid program, whose loader ignores LD_PRELOAD.  A process with
 * "loaded" but no PID.status made no CUDA call, or was killed (SIGKILL)
 * before any report.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"
#include "options.h"
#include "report.h"
#include "sigsafe.h"
#include "status.h"

/* The errors noted, each "error WORD\n"; read from signal handlers, so
   only appended to, before the NUL that ends what is there. */
static char errors[128];

/* The status file of this process image: PID.status, or PID-K.status when
   an earlier image of the same process (the program before it called
   exec) has that name, claimed with O_EXCL at the first write so neither
   replaces the other's counts.  Async-signal-safe; 0 when none is had. */
static char claimed[SC_OPT_PATH_MAX + 64];
static _Atomic int claim_state;   /* 0 none yet, 1 being claimed, 2 claimed */

static int claim(void)
{
    int expect = 0;
    if (!atomic_compare_exchange_strong(&claim_state, &expect, 1)) {
        for (int i = 0; i < 10000 && atomic_load(&claim_state) == 1; i++)
            sched_yield();
        return atomic_load(&claim_state) == 2;
    }
    for (long k = 1; k < 100; k++) {
        char path[sizeof claimed] = "";
        sc_ss_put(path, sizeof path, sc_opt.status_dir);
        sc_ss_put(path, sizeof path, "/");
        sc_ss_put_num(path, sizeof path, (uint64_t)getpid(), 0);
        if (k > 1) {
            sc_ss_put(path, sizeof path, "-");
            sc_ss_put_num(path, sizeof path, (uint64_t)k, 0);
        }
        sc_ss_put(path, sizeof path, ".status");
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd >= 0) {
            close(fd);
            memcpy(claimed, path, sizeof claimed);
            atomic_store(&claim_state, 2);
            return 1;
        }
        if (errno != EEXIST)
            break;
    }
    atomic_store(&claim_state, 0);
    return 0;
}

/* Writes text as this image's status file, whole (a temporary file
   renamed over the claimed one); async-signal-safe.  tmp_tag keeps a
   signal handler's temporary file apart from the reporter's. */
static void put_status(const char *text, const char *tmp_tag)
{
    int saved = errno;
    if (!sc_opt.status_dir[0] || !claim()) {
        errno = saved;
        return;
    }
    char tmp[SC_OPT_PATH_MAX + 64] = "";
    sc_ss_put(tmp, sizeof tmp, sc_opt.status_dir);
    sc_ss_put(tmp, sizeof tmp, "/.");
    sc_ss_put_num(tmp, sizeof tmp, (uint64_t)getpid(), 0);
    sc_ss_put(tmp, sizeof tmp, tmp_tag);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd >= 0) {
        size_t n = strlen(text);
        ssize_t w = write(fd, text, n);
        if (close(fd) == 0 && w == (ssize_t)n)
            rename(tmp, claimed);
        else
            unlink(tmp);
    }
    errno = saved;
}

void sc_status_write(const sc_report *r, const char *why)
{
    uint64_t e = 0, w = 0, n = 0;
    sc_report_totals(r, &e, &w, &n);
    char *text = NULL;
    if (asprintf(&text, "%llu %llu %llu %llu\n%s%s%s", (unsigned long long)(e + w + n), (unsigned long long)e,
                 (unsigned long long)w, (unsigned long long)n, why && *why ? why : "", why && *why ? "\n" : "",
                 errors) >= 0)
        put_status(text, ".status.tmp");
    free(text);
}

void sc_status_lines(const char *lines)
{
    char *text = NULL;
    if (asprintf(&text, "%s%s", lines, errors) >= 0)
        put_status(text, ".status.tmp");
    free(text);
}

int sc_status_file(const char *suffix, char *path, size_t len, char **name)
{
    const char *dot = sc_opt.status_dir[0] && claim() ? strrchr(claimed, '.') : NULL;
    int n = dot ? snprintf(path, len, "%.*s.%s", (int)(dot - claimed), claimed, suffix) : -1;
    if (n < 0 || (size_t)n >= len)
        return -1;
    *name = strrchr(path, '/') + 1;
    return 0;
}

void sc_status_noreport(const char *why)
{
    char text[256] = "noreport\n";
    sc_ss_put(text, sizeof text, why);
    sc_ss_put(text, sizeof text, "\n");
    sc_ss_put(text, sizeof text, errors);
    put_status(text, ".status.sig.tmp");
}

void sc_status_error(const char *word)
{
    char line[64] = "error ";
    sc_ss_put(line, sizeof line, word);
    sc_ss_put(line, sizeof line, "\n");
    if (!strstr(errors, line))
        sc_ss_put(errors, sizeof errors, line);
}

__attribute__((constructor)) static void status_loaded(void)
{
    const char *dir = getenv("STREAMCHECK_STATUS_DIR");
    char path[SC_OPT_PATH_MAX + 16] = "";
    if (!dir || !*dir || strlen(dir) >= SC_OPT_PATH_MAX)
        return;
    sc_ss_put(path, sizeof path, dir);
    sc_ss_put(path, sizeof path, "/loaded");
    int saved = errno;
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd >= 0)
        close(fd);
    errno = saved;
}

/* At the process's first CUDA call (the shim's initialization): from now
   on an end without a report is a report lost, and the launcher says so
   (with the program's name). */
static int active;

static void status_active(void)
{
    char exe[4096], *lines = NULL;
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[k > 0 ? k : 0] = 0;
    for (char *c = exe; *c; c++)
        *c = (unsigned char)*c < ' ' ? '?' : *c;   /* one line */
    const char *slash = strrchr(exe, '/');
    if (asprintf(&lines, "state active\nexe %s\n", slash ? slash + 1 : exe) >= 0)
        sc_status_lines(lines);
    free(lines);
    active = sc_opt.status_dir[0] != 0;
}

void sc_status_ended(void)
{
    if (active)
        sc_status_lines("state ended\n");
}

/* A forked child is a process of its own: its own status file, claimed
   when it first writes one. */
static void status_child(void)
{
    atomic_store(&claim_state, 0);
    claimed[0] = 0;
    active = 0;
}

static const sc_part part = {"status", 0, NULL, NULL, status_child, status_active, NULL};
SC_PART_REGISTER(part)
