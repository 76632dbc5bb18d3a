/* fsutil.h: file-system helpers shared by the launcher and the shim. */
#ifndef SC_FSUTIL_H
#define SC_FSUTIL_H

#include <stddef.h>

/* Creates directory `path` and its missing parents (mkdir -p).  0 if it
   exists as a directory afterwards, else -1 and a one-line reason; never
   through a planted link (sc_path_planted). */
int sc_mkdirs(const char *path, char *err, size_t errlen);
/* A component of path is a symbolic link in a world-writable sticky
   directory (/tmp) owned by neither us nor the directory's owner: another
   user put it there to have our files written where it points, or where
   it can read them (fs.protected_symlinks refuses to follow such links
   where it is on; not everywhere: containers).  0 when none is, else -1
   and a one-line reason. */
int sc_path_planted(const char *path, char *err, size_t errlen);

/* Removes directory dir and the files in it (not what is in its
   subdirectories: the launcher's folders have none). */
void sc_remove_dir(const char *dir);

#endif /* SC_FSUTIL_H */
