/* fsutil.c: file-system helpers shared by the launcher and the shim. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"

int sc_path_planted(const char *path, char *err, size_t errlen)
{
    char p[4096];
    if (!path || strlen(path) >= sizeof p)
        return 0;
    snprintf(p, sizeof p, "%s", path);
    /* Each prefix ending before a '/', then the whole path: a link there is
       followed when the prefixes after it are used. */
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        struct stat l, d;
        char *slash = strrchr(p, '/');
        if (lstat(p, &l) == 0 && S_ISLNK(l.st_mode) && l.st_uid != geteuid()) {
            char parent[4096];
            snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash - p) + (slash == p) : 1, slash ? p : ".");
            if (stat(parent, &d) == 0 && (d.st_mode & S_ISVTX) && (d.st_mode & S_IWOTH) && l.st_uid != d.st_uid) {
                snprintf(err, errlen, "'%s' is a symbolic link of another user (uid %ld) in the shared directory "
                         "'%s': not followed", p, (long)l.st_uid, parent);
                return -1;
            }
        }
        *s = c;
        if (!c)
            return 0;
    }
}

int sc_mkdirs(const char *path, char *err, size_t errlen)
{
    char p[4096];
    struct stat sb;
    if (!path || !*path || strlen(path) >= sizeof p) {
        snprintf(err, errlen, "'%s': bad directory name", path ? path : "");
        return -1;
    }
    if (sc_path_planted(path, err, errlen))
        return -1;
    snprintf(p, sizeof p, "%s", path);
    /* Each prefix ending before a '/', then the whole path. */
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "cannot create '%s': %s", p, strerror(errno));
            return -1;
        }
        *s = c;
        if (!c)
            break;
    }
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        snprintf(err, errlen, "'%s' is not a directory", path);
        return -1;
    }
    return 0;
}

void sc_remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char p[4096];
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            (size_t)snprintf(p, sizeof p, "%s/%s", dir, e->d_name) < sizeof p)
            unlink(p);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}
