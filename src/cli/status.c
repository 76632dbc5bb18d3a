/* status.c: the launcher's status directory: made where TMPDIR says,
 * locked while the launcher runs, read once the program has ended, then
 * removed.  The protocol is in status.h. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "status.h"

/* ------------------------------------------------------ the folder --- */
/* Removes the status folders in base that a killed launcher left: ours,
   with a .lock that nobody holds (flock's locks go with their holder, in
   any PID namespace of this kernel).  A folder without one is not ours to
   judge. */
static void sweep(const char *base)
{
    DIR *d = opendir(base);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char dir[PATH_MAX], lock[PATH_MAX];
        struct stat st;
        if (strncmp(e->d_name, "streamcheck.", 12) ||
            (size_t)snprintf(dir, sizeof dir, "%s/%s", base, e->d_name) >= sizeof dir ||
            (size_t)snprintf(lock, sizeof lock, "%s/.lock", dir) >= sizeof lock ||
            lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != getuid())
            continue;
        int fd = open(lock, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
            continue;
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            sc_remove_dir(dir);
        close(fd);
    }
    if (d)
        closedir(d);
}

/* The lock is taken under another name and then renamed to .lock, so a
   sweeping launcher never finds a .lock that is not held yet. */
static int make_in(sc_status *s, const char *base)
{
    char fresh[PATH_MAX + 16], lock[PATH_MAX + 16];
    if ((size_t)snprintf(s->dir, sizeof s->dir, "%s/streamcheck.XXXXXX", base) >= sizeof s->dir) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if (!mkdtemp(s->dir))
        return -1;
    snprintf(fresh, sizeof fresh, "%s/.lock-new", s->dir);
    snprintf(lock, sizeof lock, "%s/.lock", s->dir);
    s->lock_fd = open(fresh, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (s->lock_fd < 0 || flock(s->lock_fd, LOCK_EX) || rename(fresh, lock)) {
        int e = errno;
        if (s->lock_fd >= 0)
            close(s->lock_fd);
        s->lock_fd = -1;
        sc_remove_dir(s->dir);
        errno = e;
        return -1;
    }
    return 0;
}

int sc_status_open(sc_status *s)
{
    memset(s, 0, sizeof *s);
    s->lock_fd = -1;
    const char *tmp = getenv("TMPDIR");
    const char *base = tmp && *tmp ? tmp : "/tmp";
    sweep(base);
    if (make_in(s, base) == 0)
        return 0;
    snprintf(s->why, sizeof s->why, "%s%s: %s", tmp && *tmp ? "TMPDIR=" : "", base, strerror(errno));
    s->dir[0] = 0;
    return -1;
}

/* ----------------------------------------------------------- reading --- */
static int set_state(sc_pstatus *p, const char *v, const char *dir, size_t off)
{
    (void)dir, (void)off;
    if (!strcmp(v, "active") && p->state < SC_PS_ACTIVE)
        p->state = SC_PS_ACTIVE;
    return 0;
}

/* A count (work) or a signal number, into the long long or int at off. */
static int set_number(sc_pstatus *p, const char *v, const char *dir, size_t off)
{
    (void)dir;
    char *end;
    long long n = strtoll(v, &end, 10);
    if (end == v || *end || n < 0)
        return -1;
    if (off == offsetof(sc_pstatus, work))
        p->work = n;
    else if (n < 1000)
        *(int *)((char *)p + off) = (int)n;
    return 0;
}

static int set_string(sc_pstatus *p, const char *v, const char *dir, size_t off)
{
    (void)dir;
    char **m = (char **)((char *)p + off);
    free(*m);
    *m = strdup(v);
    return *m ? 0 : -1;
}

/* A file in the status folder, by its name there. */
static int set_deferred(sc_pstatus *p, const char *v, const char *dir, size_t off)
{
    (void)off;
    if (!*v || strchr(v, '/') || v[0] == '.')
        return -1;
    free(p->deferred);
    return asprintf(&p->deferred, "%s/%s", dir, v) < 0 ? (p->deferred = NULL, -1) : 0;
}

/* "ended signal S", "ended exec", "ended _exit": what ended the process. */
static int set_ended(sc_pstatus *p, const char *v, const char *dir, size_t off)
{
    (void)off;
    if (!strncmp(v, "signal ", 7))
        return set_number(p, v + 7, dir, offsetof(sc_pstatus, signal));
    return set_string(p, v, dir, offsetof(sc_pstatus, ended));
}

/* "partial snapshot", "partial signal S": the counts are of a report
   written while the process ran. */
static int set_partial(sc_pstatus *p, const char *v, const char *dir, size_t off)
{
    (void)off;
    p->partial = 1;
    return strncmp(v, "signal ", 7) ? 0 : set_number(p, v + 7, dir, offsetof(sc_pstatus, signal));
}

static int add_wrote(sc_pstatus *p, const char *v, const char *dir, size_t off)
{
    (void)dir, (void)off;
    char **w = realloc(p->wrote, (p->nwrote + 1) * sizeof *w);
    if (!w)
        return -1;
    p->wrote = w;
    return (w[p->nwrote] = strdup(v)) ? (p->nwrote++, 0) : -1;
}

/* The lines of status.h's protocol, by their first word. */
static const struct status_key {
    const char *key;
    int (*set)(sc_pstatus *p, const char *value, const char *dir, size_t off);
    size_t off;
} keys[] = {
    {"state", set_state, 0},
    {"exe", set_string, offsetof(sc_pstatus, exe)},
    {"work", set_number, offsetof(sc_pstatus, work)},
    {"wrote", add_wrote, 0},
    {"deferred", set_deferred, 0},
    {"name", set_string, offsetof(sc_pstatus, name)},
    {"cwd", set_string, offsetof(sc_pstatus, cwd)},
    {"snapshot", set_string, offsetof(sc_pstatus, snapshot)},
    {"ended", set_ended, 0},
    {"partial", set_partial, 0},
    {"error", set_string, offsetof(sc_pstatus, error)},
};

static void parse_line(sc_pstatus *p, char *line, const char *dir)
{
    line[strcspn(line, "\n")] = 0;
    unsigned long long c[4];
    char extra;
    if (sscanf(line, "%llu %llu %llu %llu %c", &c[0], &c[1], &c[2], &c[3], &extra) == 4) {
        p->state = SC_PS_DONE;
        p->findings = c[0], p->errors = c[1], p->warnings = c[2], p->notes = c[3];
        return;
    }
    if (!strcmp(line, "noreport")) {
        p->state = SC_PS_ACTIVE;   /* CUDA calls, and no report */
        return;
    }
    char *sp = strchr(line, ' ');
    if (!sp)
        return;
    *sp = 0;
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (!strcmp(line, keys[i].key)) {
            keys[i].set(p, sp + 1, dir, keys[i].off);
            return;
        }
}

static void read_one(sc_status *s, const char *name)
{
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", s->dir, name) >= sizeof path)
        return;
    FILE *f = fopen(path, "r");
    sc_pstatus *ps = f ? realloc(s->procs, (s->nprocs + 1) * sizeof *ps) : NULL;
    if (!ps) {
        if (f)
            fclose(f);
        return;
    }
    s->procs = ps;
    sc_pstatus *p = &ps[s->nprocs++];
    memset(p, 0, sizeof *p);
    p->pid = strtol(name, NULL, 10);
    p->work = -1;
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) > 0)
        parse_line(p, line, s->dir);
    free(line);
    fclose(f);
}

void sc_status_read(sc_status *s)
{
    DIR *d = s->dir[0] ? opendir(s->dir) : NULL;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (e->d_name[0] != '.' && n > 7 && !strcmp(e->d_name + n - 7, ".status"))
            read_one(s, e->d_name);
        s->loaded |= !strcmp(e->d_name, "loaded");
    }
    if (d)
        closedir(d);
}

void sc_status_close(sc_status *s)
{
    for (size_t i = 0; i < s->nprocs; i++) {
        sc_pstatus *p = &s->procs[i];
        for (size_t j = 0; j < p->nwrote; j++)
            free(p->wrote[j]);
        free(p->wrote);
        free(p->exe);
        free(p->ended);
        free(p->error);
        free(p->deferred);
        free(p->name);
        free(p->cwd);
        free(p->snapshot);
    }
    free(s->procs);
    s->procs = NULL;
    s->nprocs = 0;
    if (s->dir[0])
        sc_remove_dir(s->dir);
    if (s->lock_fd >= 0)
        close(s->lock_fd);
    s->lock_fd = -1;
    s->dir[0] = 0;
}
