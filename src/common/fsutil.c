/* fsutil.c: file-system helpers shared by the launcher and the shim. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "fsutil.h"

int sc_mkdirs(const char *path, char *err, size_t errlen)
{
    char p[4096];
    struct stat sb;
    if (!path || !*path || strlen(path) >= sizeof p) {
        snprintf(err, errlen, "'%s': bad directory name", path ? path : "");
        return -1;
    }
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
