/* gpu.c: whether this machine can run CUDA: an NVIDIA device node, a
 * driver the loader finds, a device that answers.  The launcher may load
 * the driver itself for this: it is not the program under test. */
#include "config.h"

#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

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

/* /dev/nvidia0, /dev/nvidiactl, ...: the driver's device nodes. */
static int have_device_node(void)
{
    DIR *d = opendir("/dev");
    struct dirent *e;
    int found = 0;
    while (d && !found && (e = readdir(d)))
        found = !strncmp(e->d_name, "nvidia", 6);
    if (d)
        closedir(d);
    return found;
}

int sc_cli_gpu_missing(char *why, size_t len)
{
    if (!have_device_node()) {
        snprintf(why, len, "this machine has no NVIDIA GPU (no /dev/nvidia* device)");
        return 1;
    }
    void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, len, "the CUDA driver cannot be loaded here (%s)", e ? e : "libcuda.so.1 not found");
        return 1;
    }
    dlclose(h);
    return 0;
}
