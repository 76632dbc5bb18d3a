/* symbolize.c: function and file:line for call-site frames, at report time.
 *
 * Never on the hot path (mpiP: symbolize when writing the report).  libdw is
 * opened with dlopen only now, so the shim runs where libdw is missing and
 * then reports functions from the dynamic symbol table (dladdr) and
 * module+offset.
 */
#include "config.h"

#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "real.h"
#include "report.h"
#include "symbolize.h"


static struct {
    Dwfl *(*begin)(const Dwfl_Callbacks *);
    int (*proc_report)(Dwfl *, pid_t);
    int (*report_end)(Dwfl *, int (*)(Dwfl_Module *, void *, const char *, Dwarf_Addr, void *), void *);
    Dwfl_Module *(*addrmodule)(Dwfl *, Dwarf_Addr);
    const char *(*addrname)(Dwfl_Module *, GElf_Addr);
    Dwfl_Line *(*getsrc)(Dwfl_Module *, Dwarf_Addr);
    const char *(*lineinfo)(Dwfl_Line *, Dwarf_Addr *, int *, int *, Dwarf_Word *, Dwarf_Word *);
    const char *(*line_comp_dir)(Dwfl_Line *);   /* optional: paths stay as recorded */
    void (*end)(Dwfl *);
    /* Inline expansion (optional: without them, one frame per pc). */
    Dwarf_Die *(*addrdie)(Dwfl_Module *, Dwarf_Addr, Dwarf_Addr *);
    int (*getscopes)(Dwarf_Die *, Dwarf_Addr, Dwarf_Die **);
    int (*tag)(Dwarf_Die *);
    Dwarf_Attribute *(*attr_integrate)(Dwarf_Die *, unsigned, Dwarf_Attribute *);
    Dwarf_Attribute *(*attr)(Dwarf_Die *, unsigned, Dwarf_Attribute *);
    const char *(*formstring)(Dwarf_Attribute *);
    int (*formudata)(Dwarf_Attribute *, Dwarf_Word *);
    int (*getsrcfiles)(Dwarf_Die *, Dwarf_Files **, size_t *);
    const char *(*filesrc)(Dwarf_Files *, size_t, Dwarf_Word *, Dwarf_Word *);
    Dwfl_Callbacks cb;
    char *debuginfo_path;
    Dwfl *dwfl;
} dw;

static char *(*demangle)(const char *, char *, size_t *, int *);

/* A time limit for libdw (sc_symbolize_deadline): past it, frames are named
   from the dynamic symbol table only.  Reading the line tables and symbol
   tables of a framework's libraries can take seconds at exit (6.3 s for 70
   PyTorch call sites, seen on an H100). */
static uint64_t deadline;
static unsigned late;

void sc_symbolize_deadline(uint64_t ns)
{
    deadline = ns;
    late = 0;
}

unsigned sc_symbolize_late(void)
{
    return late;
}

static int use_dw(void)
{
    if (!dw.dwfl)
        return 0;
    if (deadline && sc_now_ns() >= deadline) {
        late++;
        return 0;
    }
    return 1;
}

int sc_symbolize_begin(void)
{
    demangle = (char *(*)(const char *, char *, size_t *, int *))sc_dlsym_default("__cxa_demangle");
    if (!demangle) {
        /* Python loads PyTorch, and with it libstdc++, RTLD_LOCAL: look in
           the library itself (loading it here is harmless at exit). */
        void *cxx = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
        if (!cxx)
            cxx = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
        if (cxx)
            demangle = (char *(*)(const char *, char *, size_t *, int *))sc_dlsym_real(cxx, "__cxa_demangle");
    }
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
    GET(line_comp_dir, "dwfl_line_comp_dir");
    GET(end, "dwfl_end");
    GET(addrdie, "dwfl_module_addrdie");
    GET(getscopes, "dwarf_getscopes");
    GET(tag, "dwarf_tag");
    GET(attr_integrate, "dwarf_attr_integrate");
    GET(attr, "dwarf_attr");
    GET(formstring, "dwarf_formstring");
    GET(formudata, "dwarf_formudata");
    GET(getsrcfiles, "dwarf_getsrcfiles");
    GET(filesrc, "dwarf_filesrc");
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

/* A source path as a person finds it: relative paths (nvcc records
   testapps/app.cu as given on its command line) joined to the compile
   unit's directory, and ./ and dir/../ taken out, so that report time can
   place it below the source root.  A path relative to a directory that is
   not absolute either (a distribution's -fdebug-prefix-map) stays as
   recorded. */
static char *source_path(const char *file, const char *comp_dir)
{
    char *s = NULL;
    if (file[0] != '/' && comp_dir && comp_dir[0] == '/') {
        if (asprintf(&s, "%s/%s", comp_dir, file) < 0)
            s = NULL;
    } else {
        s = strdup(file);
    }
    if (s && s[0] == '/')
        sc_path_normalize(s);
    return s;
}

void sc_symbolize(uintptr_t pc, char **function, char **file, unsigned *line)
{
    *function = *file = NULL;
    *line = 0;
    if (use_dw()) {
        Dwfl_Module *m = dw.addrmodule(dw.dwfl, pc);
        if (m) {
            *function = pretty(dw.addrname(m, pc));
            Dwfl_Line *l = dw.getsrc(m, pc);
            if (l) {
                Dwarf_Addr a;
                int ln = 0, col = 0;
                const char *f = dw.lineinfo(l, &a, &ln, &col, NULL, NULL);
                if (f && ln > 0) {
                    *file = source_path(f, dw.line_comp_dir ? dw.line_comp_dir(l) : NULL);
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

/* The name a scope (subprogram or inlined subroutine) was declared with:
   the linkage name when there is one (C++), through its abstract origin. */
static const char *scope_name(Dwarf_Die *d)
{
    Dwarf_Attribute a;
    const char *n = NULL;
    if (dw.attr_integrate(d, DW_AT_linkage_name, &a))
        n = dw.formstring(&a);
    if (!n && dw.attr_integrate(d, DW_AT_MIPS_linkage_name, &a))
        n = dw.formstring(&a);
    if (!n && dw.attr_integrate(d, DW_AT_name, &a))
        n = dw.formstring(&a);
    return n;
}

unsigned sc_symbolize_inline(uintptr_t pc, sc_symframe *out, unsigned max)
{
    if (!max)
        return 0;
    unsigned was_late = late;
    sc_symbolize(pc, &out[0].function, &out[0].file, &out[0].line);
    if (late != was_late || !dw.dwfl || !dw.addrdie || !dw.getscopes || !dw.tag || !dw.attr_integrate || !dw.attr ||
        !dw.formstring || !dw.formudata || !dw.getsrcfiles || !dw.filesrc)
        return 1;
    Dwfl_Module *m = dw.addrmodule(dw.dwfl, pc);
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = m ? dw.addrdie(m, pc, &bias) : NULL;
    Dwarf_Die *scopes = NULL;
    int ns = cu ? dw.getscopes(cu, pc - bias, &scopes) : 0;
    Dwarf_Files *files = NULL;
    size_t nfiles = 0;
    if (ns <= 0 || dw.getsrcfiles(cu, &files, &nfiles) != 0) {
        free(scopes);
        return 1;
    }
    Dwarf_Attribute cda;
    const char *comp_dir = dw.attr(cu, DW_AT_comp_dir, &cda) ? dw.formstring(&cda) : NULL;
    /* scopes[0] is innermost.  Each inlined subroutine names the function
       the instruction belongs to, and its call_file/call_line say where the
       next outer function called it. */
    unsigned n = 0;
    for (int i = 0; i < ns && n < max; i++) {
        int t = dw.tag(&scopes[i]);
        if (t != DW_TAG_inlined_subroutine && t != DW_TAG_subprogram)
            continue;
        const char *name = scope_name(&scopes[i]);
        if (n == 0) {
            if (name) {             /* the innermost function, at the instruction's line */
                free(out[0].function);
                out[0].function = pretty(name);
            }
        } else {
            out[n].function = name ? pretty(name) : NULL;
        }
        if (t == DW_TAG_subprogram)
            break;
        /* Where the caller (the next scope out) made this inlined call. */
        Dwarf_Attribute a;
        Dwarf_Word fidx = 0, line = 0;
        if (n + 1 >= max || !dw.attr(&scopes[i], DW_AT_call_file, &a) || dw.formudata(&a, &fidx) ||
            !dw.attr(&scopes[i], DW_AT_call_line, &a) || dw.formudata(&a, &line))
            break;
        const char *f = fidx < nfiles ? dw.filesrc(files, fidx, NULL, NULL) : NULL;
        n++;
        out[n].function = NULL;
        out[n].file = f ? source_path(f, comp_dir) : NULL;
        out[n].line = (unsigned)line;
    }
    free(scopes);
    /* The outermost frame is the function the instruction lies in, which
       the symbol table names even where the scope chain stops at the
       compile unit (seen with nvcc's host code). */
    if (n > 0 && !out[n].function)
        out[n].function = pretty(dw.addrname(m, pc));
    return n + 1;
}
