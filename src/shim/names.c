/* names.c: a native frame's function from the dynamic symbol table
 * (names.h), for the report's call sites at exit (shim_report.c).
 */
#include "config.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "real.h"
#include "symbols.h"

/* A frame's function from the dynamic symbol table (dladdr: no file is
   read), the name it keeps where its module's debug information cannot
   be read, or is read too late. */
static char *dynamic_name(uintptr_t pc)
{
    Dl_info info;
    return dladdr((void *)pc, &info) && info.dli_sname ? sc_demangle(info.dli_sname, sc_dlsym_real) : NULL;
}

/* The frames' dynamic-symbol names, each pc looked up once: a program's
   call sites share most of their frames (an interpreter's, a framework's
   dispatch), and glibc's dladdr scans the library's whole dynamic symbol
   table (about 2.3 ns a symbol, measured here: a millisecond in a library
   of hundreds of thousands, as PyTorch's are).  Open addressing by pc,
   never more than half full; without memory, each frame asks dladdr. */
void sc_names_init(sc_names *m, size_t frames)
{
    size_t cap = 16;
    while (cap < 2 * frames)
        cap *= 2;
    m->pc = calloc(cap, sizeof *m->pc);
    m->name = calloc(cap, sizeof *m->name);
    m->cap = m->pc && m->name ? cap : 0;
}

/* pc's name, malloc'd (NULL when it has none). */
char *sc_names_get(sc_names *m, uintptr_t pc)
{
    if (!m->cap || !pc)
        return dynamic_name(pc);
    size_t i = (size_t)((pc * 0x9e3779b97f4a7c15ull) >> 32) & (m->cap - 1);
    while (m->pc[i] && m->pc[i] != pc)
        i = (i + 1) & (m->cap - 1);
    if (!m->pc[i]) {
        m->pc[i] = pc;
        m->name[i] = dynamic_name(pc);
    }
    return m->name[i] ? strdup(m->name[i]) : NULL;
}

void sc_names_free(sc_names *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->name[i]);
    free(m->pc);
    free(m->name);
}

