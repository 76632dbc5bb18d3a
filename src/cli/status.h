/* status.h: the launcher's status directory (status.c), where every process
 * the shim is loaded into leaves what the launcher needs once the program
 * has ended: whether the shim was there, whether the process used CUDA,
 * what its report found and where it went.
 *
 * The protocol (the shim writes, src/shim/status.c; the launcher reads).
 * The launcher makes the directory and exports its path as
 * STREAMCHECK_STATUS_DIR.  Every process the shim is loaded into leaves
 * an empty file "loaded" there, from its constructor.  A process that
 * makes a CUDA call keeps one file PID.status (PID-2.status, ... for the
 * program an exec put in its place, with the same PID), which it replaces
 * atomically (a temporary file renamed into place) as it goes.  One item
 * a line; a line the launcher does not know is ignored, so either side
 * may add lines:
 *
 *   state active        the process made a CUDA call; no report yet
 *   state ended         it ended with no CUDA call to report
 *   F E W N             its report was written: findings, errors, warnings
 *                       and notes after the filters (four numbers)
 *   noreport            instead of them: no report could be written
 *   exe NAME            the program's file name
 *   work N              stream-ordered work it submitted (launches, copies,
 *                       memsets); 0: none (a torchrun parent)
 *   ended signal S      what ended it: signal S, or exec or _exit (after
 *   ended exec          the report when the counts line is there; before
 *   ended _exit         it, after "noreport")
 *   partial snapshot    the counts are of a report written while it ran
 *   partial signal S    (--snapshot; a signal its own handler took)
 *   error WORD          it could not be checked: static-cudart, NVIDIA's
 *                       runtime linked statically, which every CUDA call
 *                       of the simulator refuses
 *   wrote PATH          a report file it wrote (one line each)
 *   deferred FILE       its report, unsymbolized, for the launcher to
 *                       finish (FILE in the directory)
 *   name BASE           the base name of its report files
 *   cwd PATH            its current directory when it wrote the report
 *   snapshot PATH       a --snapshot JSON the finished report replaces
 *
 * A process image that leaves no file at all never had the shim: a
 * set-user-ID or statically linked program, where the loader ignores
 * LD_PRELOAD.  One still "active" after the program ended used CUDA and
 * ended before its report (a signal, _exit, a crash).
 *
 * While the launcher runs, it holds a lock on the directory's .lock file; a
 * later launcher removes the directories whose lock nobody holds (their
 * launcher was killed), so none is left behind for long.
 */
#ifndef SC_STATUS_H
#define SC_STATUS_H

#include <limits.h>
#include <stddef.h>

typedef enum sc_pstate {
    SC_PS_LOADED = 0,   /* the shim was there; no CUDA call */
    SC_PS_ACTIVE,       /* CUDA calls, no report */
    SC_PS_DONE,         /* its report was written (counts valid) */
    SC_PS_LOST,         /* its report was left to the launcher, which could
                           not read it (said when found) */
} sc_pstate;

/* What one process image left. */
typedef struct sc_pstatus {
    long pid;
    sc_pstate state;
    unsigned long long findings, errors, warnings, notes;
    long long work;     /* stream-ordered submissions; -1 when not said */
    int signal;         /* the signal that ended it, when it said; else 0 */
    char *ended;        /* "exec" or "_exit" when that ended it; NULL */
    char *error;        /* why it could not be checked ("static-cudart"); NULL */
    int partial;        /* its counts are of a report written while it ran */
    char *exe;          /* NULL when not said */
    char *deferred;     /* path of its unfinished report, or NULL */
    char *name, *cwd;   /* NULL when not said */
    char *snapshot;     /* a --snapshot JSON its finished report replaces; NULL */
    char **wrote;       /* the files its shim wrote */
    size_t nwrote;
} sc_pstatus;

typedef struct sc_status {
    char dir[PATH_MAX]; /* "" when none could be made */
    int loaded;         /* the directory has "loaded": the shim was in a process */
    char why[1024];     /* then why not */
    int lock_fd;
    sc_pstatus *procs;
    size_t nprocs;
} sc_status;

/* Makes the directory in $TMPDIR (/tmp when it is not set) and takes its
   lock, after removing the directories of launchers that were killed.  0,
   or -1 with the reason in s->why (s->dir is then ""). */
int sc_status_open(sc_status *s);
/* Reads every process image's file, in no particular order. */
void sc_status_read(sc_status *s);
/* Removes the directory with what is in it, and frees what was read. */
void sc_status_close(sc_status *s);

#endif /* SC_STATUS_H */
