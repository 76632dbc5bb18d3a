/* report_write.c: writes a rendered report to its file, atomically (a
 * temporary file in the same directory, then rename(2)). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "report.h"

int sc_report_write_named(const sc_report *r, sc_format fmt, const sc_render_opts *o,
                          const char *dir, const char *name, char *path_out, size_t path_len)
{
    static unsigned long serial;
    const char *ext = sc_format_ext(fmt);
    char path[4096], tmp[4096];
    if (!ext || !dir || !*dir || !name || !*name || strchr(name, '/')) {
        errno = EINVAL;
        return -1;
    }
    int n = snprintf(path, sizeof path, "%s/%s.streamcheck.%s", dir, name, ext);
    /* The temporary file sits in the same directory, so rename(2) is
       atomic: a reader sees the old file or the whole new one. */
    int m = snprintf(tmp, sizeof tmp, "%s/.%s.streamcheck.%s.%ld.%lu.tmp", dir, name, ext,
                     (long)getpid(), __atomic_fetch_add(&serial, 1, __ATOMIC_RELAXED));
    if (n < 0 || m < 0 || (size_t)n >= sizeof path || (size_t)m >= sizeof tmp) {
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
    if (rc == 0 && rename(tmp, path) != 0) {
        rc = -1;
        e = errno;
    }
    if (rc != 0) {
        unlink(tmp);
        errno = e;
        return -1;
    }
    if (path_out && path_len)
        snprintf(path_out, path_len, "%s", path);
    return 0;
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
