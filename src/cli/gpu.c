/* gpu.c: whether this machine can run CUDA: a device that answers.  The
 * launcher may load the driver itself for this: it is not the program
 * under test. */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>

#include "gpu.h"

int sc_cli_gpu_name(char *name, size_t len)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return 0;
    int (*init)(unsigned) = (int (*)(unsigned))dlsym(h, "cuInit");
    int (*count)(int *) = (int (*)(int *))dlsym(h, "cuDeviceGetCount");
    int (*get)(int *, int) = (int (*)(int *, int))dlsym(h, "cuDeviceGet");
    int (*getname)(char *, int, int) = (int (*)(char *, int, int))dlsym(h, "cuDeviceGetName");
    int n = 0, dev = 0;
    int ok = init && count && init(0) == 0 && count(&n) == 0 && n > 0;
    if (ok && get && getname && get(&dev, 0) == 0)
        getname(name, (int)len, dev);
    dlclose(h);
    return ok;
}
