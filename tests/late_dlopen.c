/* late_dlopen.c: loads tests' CUDA-using library only at run time.
 *   late_dlopen LIBRARY global|local
 * The program itself never links the CUDA runtime; streamcheck must still
 * see every call the library makes. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[2], "global") && strcmp(argv[2], "local"))) {
        fprintf(stderr, "usage: %s LIBRARY global|local\n", argv[0]);
        return 2;
    }
    int mode = RTLD_NOW | (strcmp(argv[2], "global") ? RTLD_LOCAL : RTLD_GLOBAL);
    void *h = dlopen(argv[1], mode);
    if (!h) {
        fprintf(stderr, "late_dlopen: %s\n", dlerror());
        return 1;
    }
    int (*work)(void) = (int (*)(void))dlsym(h, "sc_dlopen_work");
    if (!work) {
        fprintf(stderr, "late_dlopen: %s\n", dlerror());
        return 1;
    }
    int n = work();
    printf("late_dlopen: %s, %d host functions\n", argv[2], n);
    return n == 5 ? 0 : 1;
}
