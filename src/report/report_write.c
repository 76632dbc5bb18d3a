/* report_write.c: writes a rendered report to its file, atomically (a
 * temporary file in the same directory, then renamed into place), and
 * names a process's files so that no two processes' names collide. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report.h"

/* Renders r into a new temporary file beside its final place, path; its
   name goes to tmp.  0, or -1 with errno set and nothing left behind. */
static int render_tmp(const sc_report *r, sc_format fmt, const sc_render_opts *o, const char *path,
                      char *tmp, size_t tmplen)
{
    static unsigned long serial;
    const char *slash = strrchr(path, '/');
    int m = snprintf(tmp, tmplen, "%.*s.%s.%ld.%lu.tmp", (int)(slash - path + 1), path, slash + 1,
                     (long)getpid(), __atomic_fetch_add(&serial, 1, __ATOMIC_RELAXED));
    if (m < 0 || (size_t)m >= tmplen) {
        errno = ENAMETOOLONG;
        return -1;
    }
    /* open(2) with 0666, not mkstemp's 0600: the umask decides, as for any
       file the program writes. */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0)
        return -1;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int e = errno;
        close(fd);
        unlink(tmp);
        errno = e;
        return -1;
    }
    int rc = sc_render(r, fmt, f, o);
    int e = errno;
    if (fflush(f) != 0 || ferror(f)) {
        rc = -1;
        e = errno ? errno : EIO;
    }
    if (fclose(f) != 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    if (rc != 0) {
        unlink(tmp);
        errno = e;
        return -1;
    }
    return 0;
}

/* Moves tmp to path, atomically, never over a file that is there (EEXIST
   then).  rename(2) with RENAME_NOREPLACE where the file system has it,
   else link(2); where neither is there (some network and FUSE file
   systems), path is claimed empty with O_EXCL and then replaced. */
static int place_new(const char *tmp, const char *path)
{
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno == EEXIST)
        return -1;
    if (link(tmp, path) == 0) {
        unlink(tmp);
        return 0;
    }
    if (errno == EEXIST)
        return -1;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0)
        return -1;
    close(fd);
    return rename(tmp, path);
}

/* DIR/NAME.streamcheck.EXT, with NAME-K for K > 1. */
static int file_path(char *path, size_t len, const char *dir, const char *name, unsigned k, sc_format fmt)
{
    const char *ext = sc_format_ext(fmt);
    char sfx[16] = "";
    if (!ext || !dir || !*dir || !name || !*name || strchr(name, '/')) {
        errno = EINVAL;
        return -1;
    }
    if (k > 1)
        snprintf(sfx, sizeof sfx, "-%u", k);
    int n = snprintf(path, len, "%s/%s%s.streamcheck.%s", dir, name, sfx, ext);
    if (n < 0 || (size_t)n >= len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

/* Writes DIR/NAME.streamcheck.EXT; with fresh, never over an existing
   file: the first free of NAME-2, NAME-3, ... instead. */
static int write_to(const sc_report *r, sc_format fmt, const sc_render_opts *o, const char *dir,
                    const char *name, int fresh, char *path_out, size_t path_len)
{
    char path[4096], tmp[4200];
    if (file_path(path, sizeof path, dir, name, 1, fmt) || render_tmp(r, fmt, o, path, tmp, sizeof tmp))
        return -1;
    int rc = fresh ? place_new(tmp, path) : rename(tmp, path);
    for (unsigned k = 2; fresh && rc && errno == EEXIST && k < 1000; k++)
        rc = file_path(path, sizeof path, dir, name, k, fmt) ? -1 : place_new(tmp, path);
    if (rc) {
        int e = errno;
        unlink(tmp);
        errno = e;
        return -1;
    }
    if (path_out && path_len)
        snprintf(path_out, path_len, "%s", path);
    return 0;
}

int sc_report_write_named(const sc_report *r, sc_format fmt, const sc_render_opts *o,
                          const char *dir, const char *name, char *path_out, size_t path_len)
{
    return write_to(r, fmt, o, dir, name, 0, path_out, path_len);
}

int sc_report_write_new(const sc_report *r, sc_format fmt, const sc_render_opts *o,
                        const char *dir, const char *name, char *path_out, size_t path_len)
{
    return write_to(r, fmt, o, dir, name, 1, path_out, path_len);
}

int sc_report_write_file(const sc_report *r, sc_format fmt, const char *dir,
                         const char *exe_base, long pid, char *path_out, size_t path_len)
{
    char name[1024];
    const char *base = exe_base && *exe_base ? sc_basename(exe_base) : "program";
    if (!*base || strchr(base, '/'))
        base = "program";
    if ((size_t)snprintf(name, sizeof name, "%s.%ld", base, pid) >= sizeof name) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return sc_report_write_named(r, fmt, NULL, dir, name, path_out, path_len);
}

/* Appends s to the name in buf; a '/' cannot be in a file name. */
static void name_part(char *buf, size_t len, const char *s)
{
    size_t n = strlen(buf);
    for (; *s && n + 1 < len; s++)
        buf[n++] = *s == '/' ? '_' : *s;
    buf[n] = 0;
}

void sc_report_file_base(const sc_process *p, char *buf, size_t len)
{
    char part[64];
    const char *exe = p->exe ? sc_basename(p->exe) : "";
    buf[0] = 0;
    name_part(buf, len, *exe && *exe != '.' ? exe : "program");   /* not a hidden file */
    if (p->host && *p->host) {
        name_part(buf, len, ".");
        name_part(buf, len, p->host);
    }
    snprintf(part, sizeof part, ".%ld", p->pid);
    name_part(buf, len, part);
    if (p->rank >= 0) {
        snprintf(part, sizeof part, ".r%ld", p->rank);
        name_part(buf, len, part);
    }
    time_t t = (time_t)p->start_time;
    struct tm tm;
    if (t > 0 && gmtime_r(&t, &tm) && strftime(part, sizeof part, ".%Y%m%d-%H%M%S", &tm))
        name_part(buf, len, part);
}

int sc_report_write_outputs(const sc_report *r, unsigned formats, const sc_render_opts *o, const char *dir,
                            const char *name, FILE *text, sc_wrote_fn done, void *arg)
{
    int rc = 0;
    for (int i = 0; i < SC_NFORMATS; i++) {
        sc_format f = sc_formats[i].format;
        if (!(formats & f) || f == SC_FMT_TEXT)
            continue;
        char path[4300];
        if (sc_report_write_new(r, f, o, dir, name, path, sizeof path) == 0) {
            done(arg, f, path, 0, 0);
            continue;
        }
        /* Nothing is lost: the report goes to the text stream instead. */
        rc = -1;
        done(arg, f, NULL, errno, sc_formats[i].term);
        if (sc_formats[i].term)
            sc_render(r, f, text, o);
    }
    if (formats & SC_FMT_TEXT) {
        sc_render(r, SC_FMT_TEXT, text, o);
    } else {
        char line[200];
        sc_summary_line(r, line, sizeof line);
        fprintf(text, "%s\n", line);
    }
    fflush(text);
    return rc;
}
