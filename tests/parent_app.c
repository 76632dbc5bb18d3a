/* parent_app.c: a program for tests/parent.sh.  It makes one CUDA driver
 * call (cuInit, through dlopen and dlsym as Python's ctypes would), then
 * ends as its argument says:
 *   exit    returns from main
 *   _exit   _exit(0): no exit handlers, so no report
 *   kill    SIGKILL to itself: no report either
 *   none    makes no CUDA call, and returns
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "exit";
    if (strcmp(how, "none")) {
        void *h = dlopen("libcuda.so.1", RTLD_NOW);
        int (*init)(unsigned) = h ? (int (*)(unsigned))dlsym(h, "cuInit") : NULL;
        if (!init || init(0) != 0) {
            fprintf(stderr, "parent_app: no CUDA driver\n");
            return 1;
        }
    }
    fflush(stdout);
    if (!strcmp(how, "_exit"))
        _exit(0);
    if (!strcmp(how, "kill"))
        kill(getpid(), SIGKILL);
    return 0;
}
