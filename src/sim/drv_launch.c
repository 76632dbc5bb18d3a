/* src/sim/drv_launch.c: modules, libraries, functions and kernel launches.
 *
 * Images are not parsed: a module or library stands for "some device
 * code", and every kernel name resolves to a function object.  A launch
 * runs the kernel's CPU twin (kernels/twins.def), found by mangled name,
 * on the stream's worker; a kernel without a twin runs as a no-op after a
 * one-time note.  CUkernel and CUfunction handles are the same objects
 * (cuLaunchKernel accepts both). */
#include "config.h"

#include "sim/drv_api.h"
#include "sim/sim.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ images --- */

/* What cuModuleLoadData accepts: a cubin (ELF), a fatbinary, the fat
 * binary wrapper nvcc emits, or PTX text. */
static bool image_ok(const void *image)
{
    if (!image)
        return false;
    const unsigned char *b = image;
    /* None of the binary magics has a zero byte in its first four, so a
     * short string is rejected before reading past its end. */
    for (int i = 0; i < 4; i++)
        if (b[i] == 0)
            return false;
    uint32_t magic;
    memcpy(&magic, b, sizeof magic);
    if (magic == 0xba55ed50u || magic == 0x466243b1u) /* fatbin, wrapper */
        return true;
    if (b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F')
        return true;
    /* PTX: text, typically starting with comments or directives. */
    for (int i = 0; i < 4; i++)
        if (b[i] < 0x20 && b[i] != '\n' && b[i] != '\t' && b[i] != '\r')
            return false;
    return true;
}

/* Module objects are never freed (unloading only kills the handle);
 * the context keeps them all. */
static pthread_mutex_t module_mu = PTHREAD_MUTEX_INITIALIZER;
static struct CUmod_st *all_modules;

static CUresult module_new(const void *image, bool library,
                           struct CUmod_st **out)
{
    if (!image_ok(image))
        return CUDA_ERROR_INVALID_IMAGE;
    struct CUmod_st *m = calloc(1, sizeof *m);
    if (!m)
        return CUDA_ERROR_OUT_OF_MEMORY;
    m->magic = SCSIM_MAGIC_MODULE;
    m->is_library = library;
    pthread_mutex_lock(&module_mu);
    m->all_next = all_modules;
    all_modules = m;
    pthread_mutex_unlock(&module_mu);
    *out = m;
    return CUDA_SUCCESS;
}

static struct CUmod_st *module_check(struct CUmod_st *m, bool library)
{
    return m && m->magic == SCSIM_MAGIC_MODULE && m->is_library == library
               ? m
               : NULL;
}

CUresult scsim_cuModuleLoadData(CUmodule *module, const void *image)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    if (!module)
        return CUDA_ERROR_INVALID_VALUE;
    return module_new(image, false, module);
}

CUresult scsim_cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin)
{
    return scsim_cuModuleLoadData(module, fatCubin);
}

CUresult scsim_cuModuleUnload(CUmodule hmod)
{
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    struct CUmod_st *m = module_check(hmod, false);
    if (!m)
        return CUDA_ERROR_INVALID_HANDLE;
    /* Functions outlive their module in the simulator; the handle dies. */
    m->magic = 0;
    return CUDA_SUCCESS;
}

CUresult scsim_cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod,
                                   const char *name)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    if (!module_check(hmod, false))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!hfunc || !name)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUfunc_st *f = scsim_func_get(name);
    if (!f)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *hfunc = f;
    return CUDA_SUCCESS;
}

CUresult scsim_cuLibraryLoadData(CUlibrary *library, const void *code,
                                 CUjit_option *jitOptions,
                                 void **jitOptionsValues,
                                 unsigned int numJitOptions,
                                 CUlibraryOption *libraryOptions,
                                 void **libraryOptionValues,
                                 unsigned int numLibraryOptions)
{
    (void)jitOptions;
    (void)jitOptionsValues;
    (void)numJitOptions;
    (void)libraryOptions;
    (void)libraryOptionValues;
    (void)numLibraryOptions;
    /* Libraries are context-independent: no current context needed. */
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!library)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUmod_st *m;
    r = module_new(code, true, &m);
    if (r == CUDA_SUCCESS)
        *library = (CUlibrary)(void *)m;
    return r;
}

CUresult scsim_cuLibraryUnload(CUlibrary library)
{
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    struct CUmod_st *m = module_check((struct CUmod_st *)(void *)library, true);
    if (!m)
        return CUDA_ERROR_INVALID_HANDLE;
    m->magic = 0;
    return CUDA_SUCCESS;
}

CUresult scsim_cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library,
                                  const char *name)
{
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!module_check((struct CUmod_st *)(void *)library, true))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!pKernel || !name)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUfunc_st *f = scsim_func_get(name);
    if (!f)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *pKernel = (CUkernel)(void *)f;
    return CUDA_SUCCESS;
}

CUresult scsim_cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    struct CUfunc_st *f = scsim_func_check((CUfunction)(void *)kernel);
    if (!f)
        return CUDA_ERROR_INVALID_HANDLE;
    if (!pFunc)
        return CUDA_ERROR_INVALID_VALUE;
    *pFunc = f;
    return CUDA_SUCCESS;
}

/* --------------------------------------------------------- functions --- */

/* Function objects by name, interned forever (handles stay valid). */
#define FUNC_BUCKETS 256
static struct CUfunc_st *func_table[FUNC_BUCKETS];
static pthread_mutex_t func_mu = PTHREAD_MUTEX_INITIALIZER;

static unsigned hash_name(const char *s)
{
    unsigned h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h % FUNC_BUCKETS;
}

/* Checked under the table's lock: a handle can reach another thread with no
   synchronization the simulator sees (nvcc's launch stubs cache it in a
   plain static variable), and the lock orders this thread's reads of the
   function after the thread that made it (ThreadSanitizer found it). */
struct CUfunc_st *scsim_func_check(CUfunction f)
{
    if (!f)
        return NULL;
    pthread_mutex_lock(&func_mu);
    int ok = f->magic == SCSIM_MAGIC_FUNC;
    pthread_mutex_unlock(&func_mu);
    return ok ? f : NULL;
}

struct CUfunc_st *scsim_func_get(const char *name)
{
    unsigned b = hash_name(name);
    pthread_mutex_lock(&func_mu);
    struct CUfunc_st *f;
    for (f = func_table[b]; f; f = f->hash_next)
        if (strcmp(f->name, name) == 0)
            break;
    if (!f) {
        f = calloc(1, sizeof *f);
        if (f)
            f->name = strdup(name);
        if (f && f->name) {
            f->twin = sc_twin_find(name);
            f->cache_config = CU_FUNC_CACHE_PREFER_NONE;
            f->max_dynamic_shared = 49152;
            f->carveout = -1;
            f->magic = SCSIM_MAGIC_FUNC;
            f->hash_next = func_table[b];
            func_table[b] = f;
        } else if (f) {
            free(f);
            f = NULL;
        }
    }
    pthread_mutex_unlock(&func_mu);
    return f;
}

CUresult scsim_cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    struct CUfunc_st *f = scsim_func_check(hfunc);
    if (!f)
        return CUDA_ERROR_INVALID_HANDLE;
    if ((unsigned)config > CU_FUNC_CACHE_PREFER_EQUAL)
        return CUDA_ERROR_INVALID_VALUE;
    f->cache_config = config;
    return CUDA_SUCCESS;
}

CUresult scsim_cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib,
                                  int value)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    struct CUfunc_st *f = scsim_func_check(hfunc);
    if (!f)
        return CUDA_ERROR_INVALID_HANDLE;
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        if (value < 0 || value > scsim_device_attribute(
                                     CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN))
            return CUDA_ERROR_INVALID_VALUE;
        f->max_dynamic_shared = value;
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        if (value < -1 || value > 100)
            return CUDA_ERROR_INVALID_VALUE;
        f->carveout = value;
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult scsim_cuFuncGetAttribute(int *pi, CUfunction_attribute attrib,
                                  CUfunction hfunc)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    struct CUfunc_st *f = scsim_func_check(hfunc);
    if (!f)
        return CUDA_ERROR_INVALID_HANDLE;
    if (!pi)
        return CUDA_ERROR_INVALID_VALUE;
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = 1024; break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *pi = 32; break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION: *pi = 90; break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *pi = 90; break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        *pi = f->max_dynamic_shared;
        break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        *pi = f->carveout;
        break;
    default:
        if ((unsigned)attrib >= CU_FUNC_ATTRIBUTE_MAX)
            return CUDA_ERROR_INVALID_VALUE;
        *pi = 0; /* sizes of static memory, cache mode, cluster data */
        break;
    }
    return CUDA_SUCCESS;
}

/* CUDA Driver API, Occupancy: the blocks of hfunc one multiprocessor holds
 * at once.  Every function uses 32 registers and no static shared memory
 * (cuFuncGetAttribute above), so the limits are the multiprocessor's
 * threads (in whole warps), its blocks, its registers and its shared
 * memory, each block's dynamic shared memory plus the reserved 1 KiB. */
CUresult scsim_cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func, int blockSize,
                                                           size_t dynamicSMemSize)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    if (!scsim_func_check(func))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!numBlocks || blockSize <= 0 ||
        blockSize > scsim_device_attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK) ||
        dynamicSMemSize > (size_t)scsim_device_attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN))
        return CUDA_ERROR_INVALID_VALUE;
    long warp = scsim_device_attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    long threads = (blockSize + warp - 1) / warp * warp;
    long n = scsim_device_attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
    long by_threads = scsim_device_attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR) / threads;
    long by_regs = scsim_device_attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR) / (32 * threads);
    long per_block = (long)dynamicSMemSize +
                     scsim_device_attribute(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
    long by_smem = (long)scsim_device_attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR) / per_block;
    n = by_threads < n ? by_threads : n;
    n = by_regs < n ? by_regs : n;
    n = by_smem < n ? by_smem : n;
    *numBlocks = (int)n;
    return CUDA_SUCCESS;
}

CUresult scsim_cuFuncGetName(const char **name, CUfunction hfunc)
{
    CUresult r = scsim_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    struct CUfunc_st *f = scsim_func_check(hfunc);
    if (!f)
        return CUDA_ERROR_INVALID_HANDLE;
    if (!name)
        return CUDA_ERROR_INVALID_VALUE;
    *name = f->name;
    return CUDA_SUCCESS;
}

/* ----------------------------------------------------------- launches --- */

/* Copies the arguments now: kernelParams point at the caller's stack.
 * The copy is packed at natural alignment, the layout CUDA uses for a
 * parameter buffer, so the extra (CU_LAUNCH_PARAM_BUFFER_POINTER) form is
 * copied as is. */
static CUresult copy_args(const struct CUfunc_st *f, void **params,
                          void **extra, void **out)
{
    *out = NULL;
    if (params && extra)
        return CUDA_ERROR_INVALID_VALUE;
    const sc_twin *t = f->twin;
    if (!t)
        return CUDA_SUCCESS; /* a no-op needs no arguments */
    size_t size = 0;
    for (unsigned i = 0; i < t->nparams; i++) {
        size_t a = t->params[i].align;
        size = (size + a - 1) / a * a + t->params[i].size;
    }
    if (t->nparams == 0)
        return CUDA_SUCCESS;
    char *buf = malloc(size);
    if (!buf)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (params) {
        size_t off = 0;
        for (unsigned i = 0; i < t->nparams; i++) {
            size_t a = t->params[i].align;
            off = (off + a - 1) / a * a;
            if (!params[i]) {
                free(buf);
                return CUDA_ERROR_INVALID_VALUE;
            }
            memcpy(buf + off, params[i], t->params[i].size);
            off += t->params[i].size;
        }
    } else if (extra) {
        void *ptr = NULL;
        size_t *psize = NULL;
        for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
            if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
                ptr = extra[i + 1];
            else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
                psize = extra[i + 1];
            else {
                free(buf);
                return CUDA_ERROR_INVALID_VALUE;
            }
        }
        if (!ptr || !psize || *psize < size) {
            free(buf);
            return CUDA_ERROR_INVALID_VALUE;
        }
        memcpy(buf, ptr, size);
    } else {
        free(buf);
        return CUDA_ERROR_INVALID_VALUE;
    }
    *out = buf;
    return CUDA_SUCCESS;
}

static CUresult launch(CUfunction hf, unsigned gx, unsigned gy, unsigned gz,
                       unsigned bx, unsigned by, unsigned bz, unsigned shmem,
                       CUstream hs, void **params, void **extra, bool pt)
{
    CUresult r = scsim_check_ctx();
    if (r != CUDA_SUCCESS)
        return r;
    struct CUfunc_st *f = scsim_func_check(hf);
    if (!f)
        return CUDA_ERROR_INVALID_HANDLE;
    /* Launch configuration limits of the simulated device. */
    if (!gx || !gy || !gz || !bx || !by || !bz)
        return CUDA_ERROR_INVALID_VALUE;
    if (gy > 65535 || gz > 65535 || bx > 1024 || by > 1024 || bz > 64 ||
        (unsigned long long)bx * by * bz > 1024)
        return CUDA_ERROR_INVALID_VALUE;
    if (shmem > (unsigned)f->max_dynamic_shared)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUstream_st *s;
    r = scsim_stream_resolve(hs, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    /* "A kernel launch will fail if it is issued to a stream that is not
     * associated to the current device" (CUDA Programming Guide,
     * Multi-Device System, Stream and Event Behavior). */
    if (s->ctx != scsim_current_ctx())
        return CUDA_ERROR_INVALID_HANDLE;
    void *args;
    r = copy_args(f, params, extra, &args);
    if (r != CUDA_SUCCESS)
        return r;
    if (!f->twin)
        scsim_msg_once(&f->noted,
                       "note: kernel %s has no CPU twin; it runs as a no-op",
                       f->name);
    scsim_work w = {.kind = SCSIM_W_KERNEL};
    w.u.kernel.f = f;
    w.u.kernel.grid[0] = gx;
    w.u.kernel.grid[1] = gy;
    w.u.kernel.grid[2] = gz;
    w.u.kernel.block[0] = bx;
    w.u.kernel.block[1] = by;
    w.u.kernel.block[2] = bz;
    w.u.kernel.shmem = shmem;
    w.u.kernel.args = args;
    SCSIM_TRACE("launch %s <<<(%u,%u,%u),(%u,%u,%u)>>> on stream %llu",
                f->name, gx, gy, gz, bx, by, bz, s->id);
    r = scsim_submit(s, &w, NULL, 0, true, NULL, NULL);
    if (r != CUDA_SUCCESS)
        free(args);
    return r;
}

CUresult scsim_cuLaunchKernel(CUfunction f, unsigned int gridDimX,
                              unsigned int gridDimY, unsigned int gridDimZ,
                              unsigned int blockDimX, unsigned int blockDimY,
                              unsigned int blockDimZ,
                              unsigned int sharedMemBytes, CUstream hStream,
                              void **kernelParams, void **extra)
{
    SCSIM_API(cuLaunchKernel);
    return SCSIM_API_RET(launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY,
                  blockDimZ, sharedMemBytes, hStream, kernelParams, extra,
                  false));
}

CUresult scsim_cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX,
                                   unsigned int gridDimY, unsigned int gridDimZ,
                                   unsigned int blockDimX,
                                   unsigned int blockDimY,
                                   unsigned int blockDimZ,
                                   unsigned int sharedMemBytes,
                                   CUstream hStream, void **kernelParams,
                                   void **extra)
{
    SCSIM_API(cuLaunchKernel_ptsz);
    return SCSIM_API_RET(launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY,
                  blockDimZ, sharedMemBytes, hStream, kernelParams, extra,
                  true));
}

/* Launch attributes (clusters, priorities, programmatic serialization) do
 * not change what the simulator runs. */
static CUresult launch_ex(const CUlaunchConfig *c, CUfunction f, void **params,
                          void **extra, bool pt)
{
    if (!c)
        return CUDA_ERROR_INVALID_VALUE;
    if (c->numAttrs && !c->attrs)
        return CUDA_ERROR_INVALID_VALUE;
    return launch(f, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX,
                  c->blockDimY, c->blockDimZ, c->sharedMemBytes, c->hStream,
                  params, extra, pt);
}

CUresult scsim_cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f,
                                void **kernelParams, void **extra)
{
    SCSIM_API(cuLaunchKernelEx);
    return SCSIM_API_RET(launch_ex(config, f, kernelParams, extra, false));
}

CUresult scsim_cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction f,
                                     void **kernelParams, void **extra)
{
    SCSIM_API(cuLaunchKernelEx_ptsz);
    return SCSIM_API_RET(launch_ex(config, f, kernelParams, extra, true));
}

CUresult scsim_cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX,
                                         unsigned int gridDimY,
                                         unsigned int gridDimZ,
                                         unsigned int blockDimX,
                                         unsigned int blockDimY,
                                         unsigned int blockDimZ,
                                         unsigned int sharedMemBytes,
                                         CUstream hStream, void **kernelParams)
{
    SCSIM_API(cuLaunchCooperativeKernel);
    return SCSIM_API_RET(launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY,
                  blockDimZ, sharedMemBytes, hStream, kernelParams, NULL,
                  false));
}

CUresult scsim_cuLaunchCooperativeKernel_ptsz(
    CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
    unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
    unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
    void **kernelParams)
{
    SCSIM_API(cuLaunchCooperativeKernel_ptsz);
    return SCSIM_API_RET(launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY,
                  blockDimZ, sharedMemBytes, hStream, kernelParams, NULL,
                  true));
}
