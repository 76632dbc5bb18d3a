/* modules.h: the loaded objects a call came from (modules.c): which
 * library called (a counting slot, through the thread's cache of return
 * addresses: sc_module_of, on every wrapped call) and the registry of
 * modules by index, for call sites and the report.
 */
#ifndef SC_MODULES_H
#define SC_MODULES_H

#include <stdint.h>

#include "thread.h"

unsigned sc_module_of_slow(sc_thread *t, uintptr_t ra);
static inline unsigned sc_module_of(sc_thread *t, uintptr_t ra)
{
    unsigned i = (unsigned)(ra >> 4) & (SC_RACACHE - 1);
    if (SC_LIKELY(t->racache[i].ra == ra))
        return t->racache[i].mod;
    return sc_module_of_slow(t, ra);
}
/* Module registry: index -> path, basename hash. */
typedef struct sc_module {
    uintptr_t lo, hi;       /* address range of its loaded segments */
    uintptr_t base;         /* load bias (dlpi_addr) */
    unsigned idx;           /* stable index into the name registry */
} sc_module;
unsigned sc_module_find(uintptr_t pc, uintptr_t *base_out);   /* registry index or SC_MOD_UNKNOWN */
#define SC_MOD_UNKNOWN 0xffffu
const char *sc_module_path(unsigned idx);
const char *sc_module_base(unsigned idx);  /* basename */
const char *sc_module_build_id(unsigned idx);  /* GNU build ID in hex; NULL if none */
uint64_t sc_module_hash(unsigned idx);
unsigned sc_module_count(void);
int sc_module_is_nvidia(unsigned idx);     /* NVIDIA's libraries: sc_nvidia_library (report.h) */
int sc_module_is_cublas(unsigned idx);
int sc_module_slot_is_cublas(unsigned slot);   /* a counting slot (sc_module_of) is cuBLAS's */
unsigned sc_module_slot_index(unsigned slot);   /* registry index of a counting slot */

#endif /* SC_MODULES_H */
