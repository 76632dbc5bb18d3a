/* fsutil.h: file-system helpers shared by the launcher and the shim. */
#ifndef SC_FSUTIL_H
#define SC_FSUTIL_H

#include <stddef.h>

/* Creates directory `path` and its missing parents (mkdir -p).  0 if it
   exists as a directory afterwards, else -1 and a one-line reason. */
int sc_mkdirs(const char *path, char *err, size_t errlen);

#endif /* SC_FSUTIL_H */
