/* weakrefs.c: the shim never lends the program a CUDA it does not have.
 *
 * The shim exports the driver API's names (interpose.c): a program linked
 * with -lcuda must bind to them.  A program that does not link CUDA but
 * asks for it weakly,
 *     extern CUresult cuInit(unsigned) __attribute__((weak));
 *     if (cuInit) ... CUDA path ... else ... CPU path ...
 * finds nothing without the shim and takes its CPU path; with the shim
 * preloaded the loader bound its weak references to the shim's exports,
 * and it took its CUDA path, without a driver.  So, when no libcuda is
 * loaded at start, every weak undefined reference to a cu* name of the
 * objects loaded at start that the loader bound to the shim is set back
 * to NULL, when nothing else loaded defines the name: that is what it is
 * without the shim.  A program that links libcuda has it loaded at start
 * and keeps the shim's wrappers.
 *
 * This runs in a constructor, the one place it can: after the loader's
 * relocations (they bound the references), before main reads them.  It
 * reads each object's dynamic section (its relocations and symbols) and
 * writes only GOT slots that point into the shim, making a RELRO page
 * writable for the moment.  Objects loaded later, with dlopen, are not
 * covered: their references stay bound to the shim.
 */
#include "config.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "real.h"

#if defined(__x86_64__)
#define SC_R_GLOB_DAT R_X86_64_GLOB_DAT
#define SC_R_JUMP_SLOT R_X86_64_JUMP_SLOT
#define SC_R_ABS R_X86_64_64
#elif defined(__aarch64__)
#define SC_R_GLOB_DAT R_AARCH64_GLOB_DAT
#define SC_R_JUMP_SLOT R_AARCH64_JUMP_SLOT
#define SC_R_ABS R_AARCH64_ABS64
#endif

#ifdef SC_R_GLOB_DAT
static int is_libcuda(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    if (!strncmp(base, "libcuda.so", 10))
        *(int *)arg = 1;
    return 0;
}

/* A dynamic-section address: the loader made most of them absolute, not
   all (and the main program of a non-PIE build has base 0). */
static uintptr_t dyn_addr(const struct dl_phdr_info *info, ElfW(Addr) p)
{
    return p < info->dlpi_addr ? info->dlpi_addr + p : p;
}

/* Sets *slot to NULL, making its page writable for the moment when it is
   in the object's RELRO segment (read-only after relocation). */
static void clear_slot(void **slot, uintptr_t relro_lo, uintptr_t relro_hi)
{
    uintptr_t at = (uintptr_t)slot;
    long pg = sysconf(_SC_PAGESIZE);
    void *page = (void *)(at & ~(uintptr_t)(pg - 1));
    int ro = at >= relro_lo && at < relro_hi;
    if (ro && mprotect(page, (size_t)pg, PROT_READ | PROT_WRITE) != 0)
        return;
    *slot = NULL;
    if (ro)
        mprotect(page, (size_t)pg, PROT_READ);
}

static void clear_weak(const struct dl_phdr_info *info, const ElfW(Rela) *rel, size_t n, const ElfW(Sym) *sym,
                       const char *str, uintptr_t relro_lo, uintptr_t relro_hi)
{
    for (size_t i = 0; i < n; i++) {
        unsigned long type = ELF64_R_TYPE(rel[i].r_info);
        const ElfW(Sym) *s = &sym[ELF64_R_SYM(rel[i].r_info)];
        if ((type != SC_R_GLOB_DAT && type != SC_R_JUMP_SLOT && type != SC_R_ABS) || !ELF64_R_SYM(rel[i].r_info) ||
            s->st_shndx != SHN_UNDEF || ELF64_ST_BIND(s->st_info) != STB_WEAK)
            continue;
        const char *name = str + s->st_name;
        void **slot = (void **)(info->dlpi_addr + rel[i].r_offset);
        /* Bound to the shim, and nothing else loaded defines it (libcudart
           defines the cuda* names a program may reference weakly). */
        if (name[0] == 'c' && name[1] == 'u' && *slot && sc_is_ours(*slot) && !sc_dlsym_real(RTLD_NEXT, name))
            clear_slot(slot, relro_lo, relro_hi);
    }
}

static int unbind_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size, (void)arg;
    const ElfW(Dyn) *dyn = NULL;
    uintptr_t relro_lo = 0, relro_hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
        if (ph->p_type == PT_GNU_RELRO) {
            relro_lo = info->dlpi_addr + ph->p_vaddr;
            relro_hi = relro_lo + ph->p_memsz;
        }
    }
    if (!dyn || sc_is_ours((const void *)dyn))
        return 0;
    uintptr_t symtab = 0, strtab = 0, rela = 0, jmprel = 0;
    size_t relasz = 0, pltsz = 0;
    int pltrela = 0;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        switch (dyn->d_tag) {
        case DT_SYMTAB: symtab = dyn_addr(info, dyn->d_un.d_ptr); break;
        case DT_STRTAB: strtab = dyn_addr(info, dyn->d_un.d_ptr); break;
        case DT_RELA: rela = dyn_addr(info, dyn->d_un.d_ptr); break;
        case DT_RELASZ: relasz = dyn->d_un.d_val; break;
        case DT_JMPREL: jmprel = dyn_addr(info, dyn->d_un.d_ptr); break;
        case DT_PLTRELSZ: pltsz = dyn->d_un.d_val; break;
        case DT_PLTREL: pltrela = dyn->d_un.d_val == DT_RELA; break;
        default: break;
        }
    }
    if (!symtab || !strtab)
        return 0;
    const ElfW(Sym) *sym = (const ElfW(Sym) *)symtab;
    if (rela)
        clear_weak(info, (const ElfW(Rela) *)rela, relasz / sizeof(ElfW(Rela)), sym, (const char *)strtab,
                   relro_lo, relro_hi);
    if (jmprel && pltrela)
        clear_weak(info, (const ElfW(Rela) *)jmprel, pltsz / sizeof(ElfW(Rela)), sym, (const char *)strtab,
                   relro_lo, relro_hi);
    return 0;
}

__attribute__((constructor)) static void unbind_weak_cuda(void)
{
    int saved = errno, libcuda = 0;
    dl_iterate_phdr(is_libcuda, &libcuda);
    if (!libcuda)
        dl_iterate_phdr(unbind_object, NULL);
    errno = saved;
}
#endif
