/* readfile.c: reads a whole input file (a report, a suppression or an
 * expectation file) into memory, with a one-line error. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report.h"

int sc_read_file(const char *path, size_t max, char **out, size_t *outlen, char *err, size_t errlen)
{
    struct stat st;
    FILE *f = fopen(path, "rb");
    *out = NULL;
    *outlen = 0;
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        snprintf(err, errlen, "%s: is a directory", path);
        return -1;
    }
    /* Read to the end rather than trusting st_size: pipes and /proc files
       say 0.  One byte more than max tells "too large" from "exactly max". */
    size_t cap = S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size < max ? (size_t)st.st_size + 1 : 65536;
    size_t len = 0;
    char *buf = NULL;
    for (;;) {
        if (len == cap || !buf) {
            if (buf)
                cap = cap > max / 2 ? max + 1 : cap * 2;
            char *nb = realloc(buf, cap + 1);
            if (!nb) {
                free(buf);
                fclose(f);
                snprintf(err, errlen, "%s: out of memory", path);
                return -1;
            }
            buf = nb;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (len > max) {
            free(buf);
            fclose(f);
            snprintf(err, errlen, "%s: larger than %zu bytes", path, max);
            return -1;
        }
        if (n == 0) {
            if (ferror(f)) {
                int e = errno;
                free(buf);
                fclose(f);
                snprintf(err, errlen, "%s: read error: %s", path, strerror(e));
                return -1;
            }
            break;
        }
    }
    fclose(f);
    buf[len] = '\0';
    *out = buf;
    *outlen = len;
    return 0;
}
