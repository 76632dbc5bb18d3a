/* symbolize.c: function and file:line for call-site frames, at report time.
 *
 * Never on the hot path (mpiP: symbolize when writing the report).  libdw is
 * opened with dlopen only now, so the shim runs where libdw is missing and
 * then reports functions from the dynamic symbol table (dladdr) and
 * module+offset.
 */
#include "config.h"

#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"
#include "symbolize.h"

void *sc_dlsym_real(void *handle, const char *name);
void *sc_dlsym_default(const char *name);

static struct {
    Dwfl *(*begin)(const Dwfl_Callbacks *);
    int (*proc_report)(Dwfl *, pid_t);
    int (*report_end)(Dwfl *, int (*)(Dwfl_Module *, void *, const char *, Dwarf_Addr, void *), void *);
    Dwfl_Module *(*addrmodule)(Dwfl *, Dwarf_Addr);
    const char *(*addrname)(Dwfl_Module *, GElf_Addr);
    Dwfl_Line *(*getsrc)(Dwfl_Module *, Dwarf_Addr);
    const char *(*lineinfo)(Dwfl_Line *, Dwarf_Addr *, int *, int *, Dwarf_Word *, Dwarf_Word *);
    void (*end)(Dwfl *);
    Dwfl_Callbacks cb;
    char *debuginfo_path;
    Dwfl *dwfl;
} dw;

static char *(*demangle)(const char *, char *, size_t *, int *);

int sc_symbolize_begin(void)
{
    demangle = (char *(*)(const char *, char *, size_t *, int *))sc_dlsym_default("__cxa_demangle");
    void *h = dlopen("libdw.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!h)
        return 0;
#define GET(f, s) (*(void **)&dw.f = sc_dlsym_real(h, s))
    GET(begin, "dwfl_begin");
    GET(proc_report, "dwfl_linux_proc_report");
    GET(report_end, "dwfl_report_end");
    GET(addrmodule, "dwfl_addrmodule");
    GET(addrname, "dwfl_module_addrname");
    GET(getsrc, "dwfl_module_getsrc");
    GET(lineinfo, "dwfl_lineinfo");
    GET(end, "dwfl_end");
    GET(cb.find_elf, "dwfl_linux_proc_find_elf");
    GET(cb.find_debuginfo, "dwfl_standard_find_debuginfo");
#undef GET
    if (!dw.begin || !dw.proc_report || !dw.report_end || !dw.addrmodule || !dw.addrname ||
        !dw.getsrc || !dw.lineinfo || !dw.end || !dw.cb.find_elf || !dw.cb.find_debuginfo)
        return 0;
    dw.cb.debuginfo_path = &dw.debuginfo_path;
    dw.dwfl = dw.begin(&dw.cb);
    if (!dw.dwfl)
        return 0;
    if (dw.proc_report(dw.dwfl, getpid()) != 0 || dw.report_end(dw.dwfl, NULL, NULL) != 0) {
        dw.end(dw.dwfl);
        dw.dwfl = NULL;
        return 0;
    }
    return 1;
}

void sc_symbolize_end(void)
{
    if (dw.dwfl)
        dw.end(dw.dwfl);
    dw.dwfl = NULL;
}

static char *pretty(const char *sym)
{
    if (!sym)
        return NULL;
    if (demangle && sym[0] == '_' && sym[1] == 'Z') {
        int st = -1;
        char *d = demangle(sym, NULL, NULL, &st);
        if (d && st == 0)
            return d;
        free(d);
    }
    return strdup(sym);
}

void sc_symbolize(uintptr_t pc, char **function, char **file, unsigned *line)
{
    *function = *file = NULL;
    *line = 0;
    if (dw.dwfl) {
        Dwfl_Module *m = dw.addrmodule(dw.dwfl, pc);
        if (m) {
            *function = pretty(dw.addrname(m, pc));
            Dwfl_Line *l = dw.getsrc(m, pc);
            if (l) {
                Dwarf_Addr a;
                int ln = 0, col = 0;
                const char *f = dw.lineinfo(l, &a, &ln, &col, NULL, NULL);
                if (f && ln > 0) {
                    *file = strdup(f);
                    *line = (unsigned)ln;
                }
            }
        }
    }
    if (!*function) {
        Dl_info info;
        if (dladdr((void *)pc, &info) && info.dli_sname)
            *function = pretty(info.dli_sname);
    }
}
