/* tests/sim/interpose.c: see interpose.h. */
#include "config.h"

#include "interpose.h"

#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

ip_lookup ip_lookups[IP_MAX_LOOKUPS];
atomic_int ip_nlookups;
atomic_int ip_dlsym_count;
ip_call ip_calls[IP_MAX_CALLS];
atomic_int ip_ncalls;

static PFN_cuGetProcAddress_v12000 real_gpa;

static void record_call(const char *symbol, CUstream s)
{
    int i = atomic_fetch_add(&ip_ncalls, 1);
    if (i < IP_MAX_CALLS)
        ip_calls[i] = (ip_call){symbol, s};
}

void ip_reset_calls(void)
{
    atomic_store(&ip_ncalls, 0);
}

const ip_call *ip_last_call(void)
{
    int n = atomic_load(&ip_ncalls);
    return n > 0 && n <= IP_MAX_CALLS ? &ip_calls[n - 1] : NULL;
}

int ip_find_lookup(const char *name, int version, unsigned long long flags)
{
    int n = atomic_load(&ip_nlookups);
    for (int i = 0; i < n && i < IP_MAX_LOOKUPS; i++)
        if (strcmp(ip_lookups[i].name, name) == 0 &&
            ip_lookups[i].version == version && ip_lookups[i].flags == flags)
            return i;
    return -1;
}

/* ----------------------------------------------------------- wrappers --- */

/* One wrapper per (entry point, variant): the real pointer and a
 * function recording the call, then forwarding it. */
#define IP_WRAP(id, sym, ret, params, args, stream)                          \
    static ret(*real_##id) params;                                            \
    static ret wrap_##id params                                               \
    {                                                                         \
        record_call(sym, stream);                                             \
        return real_##id args;                                                \
    }

#define LAUNCH_PARAMS                                                         \
    (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,        \
     unsigned by, unsigned bz, unsigned sh, CUstream s, void **p, void **e)
#define LAUNCH_ARGS (f, gx, gy, gz, bx, by, bz, sh, s, p, e)
IP_WRAP(launch, "cuLaunchKernel", CUresult, LAUNCH_PARAMS, LAUNCH_ARGS, s)
IP_WRAP(launch_pt, "cuLaunchKernel_ptsz", CUresult, LAUNCH_PARAMS, LAUNCH_ARGS, s)
IP_WRAP(htod_async, "cuMemcpyHtoDAsync_v2", CUresult,
        (CUdeviceptr d, const void *h, size_t n, CUstream s), (d, h, n, s), s)
IP_WRAP(htod_async_pt, "cuMemcpyHtoDAsync_v2_ptsz", CUresult,
        (CUdeviceptr d, const void *h, size_t n, CUstream s), (d, h, n, s), s)
IP_WRAP(dtoh_async, "cuMemcpyDtoHAsync_v2", CUresult,
        (void *h, CUdeviceptr d, size_t n, CUstream s), (h, d, n, s), s)
IP_WRAP(dtod_async, "cuMemcpyDtoDAsync_v2", CUresult,
        (CUdeviceptr d, CUdeviceptr e, size_t n, CUstream s), (d, e, n, s), s)
IP_WRAP(any_async, "cuMemcpyAsync", CUresult,
        (CUdeviceptr d, CUdeviceptr e, size_t n, CUstream s), (d, e, n, s), s)
IP_WRAP(htod, "cuMemcpyHtoD_v2", CUresult,
        (CUdeviceptr d, const void *h, size_t n), (d, h, n), NULL)
IP_WRAP(htod_pt, "cuMemcpyHtoD_v2_ptds", CUresult,
        (CUdeviceptr d, const void *h, size_t n), (d, h, n), NULL)
IP_WRAP(any, "cuMemcpy", CUresult, (CUdeviceptr d, CUdeviceptr e, size_t n),
        (d, e, n), NULL)
IP_WRAP(memset_async, "cuMemsetD8Async", CUresult,
        (CUdeviceptr d, unsigned char v, size_t n, CUstream s), (d, v, n, s), s)
IP_WRAP(sync, "cuStreamSynchronize", CUresult, (CUstream s), (s), s)
IP_WRAP(sync_pt, "cuStreamSynchronize_ptsz", CUresult, (CUstream s), (s), s)
IP_WRAP(lib_load, "cuLibraryLoadData", CUresult,
        (CUlibrary * l, const void *c, CUjit_option *o, void **ov, unsigned no,
         CUlibraryOption *lo, void **lov, unsigned nlo),
        (l, c, o, ov, no, lo, lov, nlo), NULL)

static const struct wrap {
    const char *name;
    int pt; /* wrap the flags-2 lookup, else flags 0 */
    void **real;
    void *wrapper;
} wraps[] = {
#define W(name, pt, id) {name, pt, (void **)&real_##id, (void *)wrap_##id}
    W("cuLaunchKernel", 0, launch),
    W("cuLaunchKernel", 1, launch_pt),
    W("cuMemcpyHtoDAsync", 0, htod_async),
    W("cuMemcpyHtoDAsync", 1, htod_async_pt),
    W("cuMemcpyDtoHAsync", 0, dtoh_async),
    W("cuMemcpyDtoDAsync", 0, dtod_async),
    W("cuMemcpyAsync", 0, any_async),
    W("cuMemcpyHtoD", 0, htod),
    W("cuMemcpyHtoD", 1, htod_pt),
    W("cuMemcpy", 0, any),
    W("cuMemsetD8Async", 0, memset_async),
    W("cuStreamSynchronize", 0, sync),
    W("cuStreamSynchronize", 1, sync_pt),
    W("cuLibraryLoadData", 0, lib_load),
#undef W
};

static CUresult lookup(const char *symbol, void **pfn, int version,
                       cuuint64_t flags, CUdriverProcAddressQueryResult *st,
                       int via_dlsym);

static CUresult gpa_returned(const char *symbol, void **pfn, int version,
                             cuuint64_t flags,
                             CUdriverProcAddressQueryResult *st)
{
    return lookup(symbol, pfn, version, flags, st, 0);
}

static CUresult gpa_dlsym(const char *symbol, void **pfn, int version,
                          cuuint64_t flags, CUdriverProcAddressQueryResult *st)
{
    return lookup(symbol, pfn, version, flags, st, 1);
}

static CUresult lookup(const char *symbol, void **pfn, int version,
                       cuuint64_t flags, CUdriverProcAddressQueryResult *st,
                       int via_dlsym)
{
    int i = atomic_fetch_add(&ip_nlookups, 1);
    if (i < IP_MAX_LOOKUPS) {
        snprintf(ip_lookups[i].name, sizeof ip_lookups[i].name, "%s",
                 symbol ? symbol : "(null)");
        ip_lookups[i].version = version;
        ip_lookups[i].flags = flags;
        ip_lookups[i].via_dlsym = via_dlsym;
    }
    CUresult r = real_gpa(symbol, pfn, version, flags, st);
    if (r != CUDA_SUCCESS || !symbol)
        return r;
    /* Asked for itself: return the wrapper, as streamcheck must. */
    if (strcmp(symbol, "cuGetProcAddress") == 0 && version >= 12000) {
        *pfn = (void *)gpa_returned;
        return r;
    }
    int pt = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
    for (size_t w = 0; w < sizeof wraps / sizeof wraps[0]; w++) {
        if (strcmp(wraps[w].name, symbol) == 0 && wraps[w].pt == pt) {
            *wraps[w].real = *pfn;
            *pfn = wraps[w].wrapper;
            break;
        }
    }
    return r;
}

/* ------------------------------------------------------------- dlsym --- */

/* Only the simulated runtime's and cuBLAS's own calls of dlsym are
 * redirected, by rewriting their GOT entries for dlsym: defining dlsym in
 * the program would also catch the sanitizer runtimes, which look up
 * their real functions with dlsym(RTLD_NEXT) before they are initialized
 * and need that lookup relative to themselves. */
static void *ip_dlsym(void *handle, const char *name)
{
    void *p = dlsym(handle, name);
    if (p && strcmp(name, "cuGetProcAddress_v2") == 0) {
        atomic_fetch_add(&ip_dlsym_count, 1);
        memcpy(&real_gpa, &p, sizeof p);
        return (void *)gpa_dlsym;
    }
    return p;
}

/* A d_ptr of the dynamic section, relocated if the loader did not. */
static uintptr_t dyn_ptr(const struct dl_phdr_info *info, ElfW(Addr) v)
{
    return v < info->dlpi_addr ? info->dlpi_addr + v : v;
}

static void patch_relocs(const struct dl_phdr_info *info, const ElfW(Rela) *r,
                         size_t size, const ElfW(Sym) *symtab,
                         const char *strtab, int *patched)
{
    for (size_t i = 0; i < size / sizeof *r; i++) {
        const ElfW(Sym) *sym = &symtab[ELF64_R_SYM(r[i].r_info)];
        if (strcmp(strtab + sym->st_name, "dlsym") != 0)
            continue;
        void **slot = (void **)(info->dlpi_addr + r[i].r_offset);
        long page = sysconf(_SC_PAGESIZE);
        void *start = (void *)((uintptr_t)slot & ~((uintptr_t)page - 1));
        /* The GOT may be read-only after relocation (RELRO). */
        if (mprotect(start, (size_t)page, PROT_READ | PROT_WRITE) == 0) {
            void *w = (void *)ip_dlsym;
            memcpy(slot, &w, sizeof w);
            (*patched)++;
        }
    }
}

static int patch_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    const char *name = info->dlpi_name;
    if (!strstr(name, "/libcudart.so") && !strstr(name, "/libcublas.so"))
        return 0;
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr +
                                      info->dlpi_phdr[i].p_vaddr);
    if (!dyn)
        return 0;
    const ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    const ElfW(Rela) *jmprel = NULL, *rela = NULL;
    size_t jmprelsz = 0, relasz = 0;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        switch (dyn->d_tag) {
        case DT_SYMTAB: symtab = (const void *)dyn_ptr(info, dyn->d_un.d_ptr); break;
        case DT_STRTAB: strtab = (const void *)dyn_ptr(info, dyn->d_un.d_ptr); break;
        case DT_JMPREL: jmprel = (const void *)dyn_ptr(info, dyn->d_un.d_ptr); break;
        case DT_PLTRELSZ: jmprelsz = dyn->d_un.d_val; break;
        case DT_RELA: rela = (const void *)dyn_ptr(info, dyn->d_un.d_ptr); break;
        case DT_RELASZ: relasz = dyn->d_un.d_val; break;
        default: break;
        }
    }
    if (!symtab || !strtab)
        return 0;
    if (jmprel)
        patch_relocs(info, jmprel, jmprelsz, symtab, strtab, data);
    if (rela)
        patch_relocs(info, rela, relasz, symtab, strtab, data);
    return 0;
}

int ip_install(void)
{
    int patched = 0;
    dl_iterate_phdr(patch_object, &patched);
    return patched;
}
