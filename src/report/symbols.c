/* symbols.c: function, file and line for the native frames of a report,
 * from module + offset, after the fact (as mpiP and HPCToolkit symbolize
 * after the run, from module offsets).
 *
 * libdw is opened with dlopen, so nothing needs it to run: without it a
 * frame keeps its module, offset and what the shim named from the dynamic
 * symbol table.  Each module is read from its file, offline: a frame's
 * offset is pc - 1 less the module's load bias, which is the ELF virtual
 * address in a shared object and a position-independent executable alike
 * (and the address itself in a fixed-address one, whose bias is 0), so a
 * module reported at bias 0 answers for it.  A module whose file has
 * another build ID than the process saw (rebuilt since, another machine)
 * is not read.
 *
 * The function a frame lies in comes from the module's symbol table, as
 * libdw's dwfl_module_addrname would name it; but that reads the whole
 * table for each address (4.9 ms a frame for the 258,000 symbols of a
 * libLLVM, and PyTorch's libtorch_cuda.so has more), so each module's
 * table is read once into an index sorted by address (45 ms for that
 * libLLVM), and each frame is a bisection (0.1 us).
 */
#include "config.h"

#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model.h"
#include "report.h"
#include "symbols.h"

/* libdw's functions, looked up at open. */
typedef struct dwapi {
    Dwfl *(*begin)(const Dwfl_Callbacks *);
    Dwfl_Module *(*report_elf)(Dwfl *, const char *, const char *, int, GElf_Addr, bool);
    int (*report_end)(Dwfl *, int (*)(Dwfl_Module *, void *, const char *, Dwarf_Addr, void *), void *);
    int (*build_id)(Dwfl_Module *, const unsigned char **, GElf_Addr *);
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
    /* The symbol index (optional: without them, libdw searches its table
       for each frame, and past the limit a frame gets no name). */
    int (*getsymtab)(Dwfl_Module *);
    int (*first_global)(Dwfl_Module *);
    const char *(*getsym_info)(Dwfl_Module *, int, GElf_Sym *, GElf_Addr *, GElf_Word *, Elf **, Dwarf_Addr *);
    Elf *(*getelf)(Dwfl_Module *, GElf_Addr *);
    Elf_Scn *(*nextscn)(Elf *, Elf_Scn *);
    GElf_Shdr *(*getshdr)(Elf_Scn *, GElf_Shdr *);
    size_t (*ndxscn)(Elf_Scn *);
} dwapi;

/* A frame looked up before: the call sites of a program share most of
   their frames (an interpreter's, a framework's dispatch), and libdw reads
   a compile unit's scopes again for each (about 1 ms a frame in a
   libpython built with -g). */
typedef struct sym_memo {
    uint64_t offset;
    unsigned n, max;                  /* frames found, with out's size; max 0: a free slot */
    sc_symframe *f;                   /* n of them, the strings owned here */
} sym_memo;

/* A symbol of the index: one dwfl_module_addrname may answer with (named,
   defined, not a section, file or thread-local symbol).  24 bytes, as the
   largest tables have hundreds of thousands. */
typedef struct sym_name {
    uint64_t value;                   /* its address */
    uint64_t maxend;                  /* the highest value + size of it and of all before it in the index */
    uint32_t size;
    uint32_t info;                    /* table index << 3 | absolute (libdw: a section index >= SHN_LORESERVE)
                                         << 2 | binding rank (GLOBAL 3, WEAK 2, LOCAL 1, others 0) */
} sym_name;

/* An allocated section of a module's file, which libdw compares a
   symbol without a size and the address with. */
typedef struct sym_section {
    uint64_t start, end;
    size_t ndx;
} sym_section;

/* A module read once: its file's debug information, or NULL when it
   cannot be read or is another build. */
typedef struct sym_module {
    char *path;
    Dwfl *dwfl;
    Dwfl_Module *mod;
    char build_id[SC_BUILD_ID_MAX];   /* its file's, "" when it has none */
    sym_memo *memo;                   /* open addressing by offset; cap a power of 2 */
    size_t nmemo, capmemo;
    int names_state;                  /* the index: 0 not built yet, 1 built, -1 none (libdw searches) */
    uint32_t first_global;            /* the table index of the first symbol that is not local */
    sym_name *names;                  /* by value, then table index */
    size_t nnames;
    const sym_name **held;            /* scratch: the symbols holding one address */
    size_t capheld;
    sym_section *secs;                /* sorted as libdw sorts them */
    size_t nsecs;
} sym_module;

struct sc_symbols {
    dwapi dw;
    int inline_ok;                    /* the optional inline functions are there */
    int index_ok;                     /* the optional symbol index functions are there */
    sc_dlsym_fn lookup;
    Dwfl_Callbacks cb;
    char *debuginfo_path;
    sym_module *mods;
    size_t nmods;
    uint64_t deadline;                /* CLOCK_MONOTONIC ns; 0: none */
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------ opening --- */
/* C++ names are demangled with the C++ runtime's own demangler: the
   program's when it has one, else libstdc++ loaded here (Python loads
   PyTorch, and with it libstdc++, RTLD_LOCAL: the global scope has none).
   Looked up once. */
static char *(*find_demangler(sc_dlsym_fn lookup))(const char *, char *, size_t *, int *)
{
    static int tried;
    static char *(*demangle)(const char *, char *, size_t *, int *);
    if (tried)
        return demangle;
    tried = 1;
    *(void **)&demangle = lookup(RTLD_DEFAULT, "__cxa_demangle");
    if (demangle)
        return demangle;
    void *cxx = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
    if (!cxx)
        cxx = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
    if (cxx)
        *(void **)&demangle = lookup(cxx, "__cxa_demangle");
    return demangle;
}

char *sc_demangle(const char *sym, sc_dlsym_fn lookup)
{
    if (!sym)
        return NULL;
    char *(*demangle)(const char *, char *, size_t *, int *) = find_demangler(lookup ? lookup : dlsym);
    if (demangle && sym[0] == '_' && sym[1] == 'Z') {
        int st = -1;
        char *d = demangle(sym, NULL, NULL, &st);
        if (d && st == 0)
            return d;
        free(d);
    }
    return strdup(sym);
}

sc_symbols *sc_symbols_open(sc_dlsym_fn lookup)
{
    if (!lookup)
        lookup = dlsym;
    void *h = dlopen("libdw.so.1", RTLD_LAZY | RTLD_LOCAL);
    sc_symbols *s = h ? calloc(1, sizeof *s) : NULL;
    if (!s)
        return NULL;
    dwapi *d = &s->dw;
#define GET(f, name) (*(void **)&(f) = lookup(h, name))
    GET(d->begin, "dwfl_begin");
    GET(d->report_elf, "dwfl_report_elf");
    GET(d->report_end, "dwfl_report_end");
    GET(d->build_id, "dwfl_module_build_id");
    GET(d->addrname, "dwfl_module_addrname");
    GET(d->getsrc, "dwfl_module_getsrc");
    GET(d->lineinfo, "dwfl_lineinfo");
    GET(d->line_comp_dir, "dwfl_line_comp_dir");
    GET(d->end, "dwfl_end");
    GET(d->addrdie, "dwfl_module_addrdie");
    GET(d->getscopes, "dwarf_getscopes");
    GET(d->tag, "dwarf_tag");
    GET(d->attr_integrate, "dwarf_attr_integrate");
    GET(d->attr, "dwarf_attr");
    GET(d->formstring, "dwarf_formstring");
    GET(d->formudata, "dwarf_formudata");
    GET(d->getsrcfiles, "dwarf_getsrcfiles");
    GET(d->filesrc, "dwarf_filesrc");
    GET(d->getsymtab, "dwfl_module_getsymtab");
    GET(d->first_global, "dwfl_module_getsymtab_first_global");
    GET(d->getsym_info, "dwfl_module_getsym_info");
    GET(d->getelf, "dwfl_module_getelf");
    GET(d->nextscn, "elf_nextscn");          /* libelf's, which libdw loaded: a handle's lookup reaches it */
    GET(d->getshdr, "gelf_getshdr");
    GET(d->ndxscn, "elf_ndxscn");
    GET(s->cb.find_elf, "dwfl_build_id_find_elf");
    GET(s->cb.find_debuginfo, "dwfl_standard_find_debuginfo");
    GET(s->cb.section_address, "dwfl_offline_section_address");
#undef GET
    if (!d->begin || !d->report_elf || !d->report_end || !d->addrname || !d->getsrc || !d->lineinfo ||
        !d->end || !s->cb.find_elf || !s->cb.find_debuginfo || !s->cb.section_address) {
        free(s);
        return NULL;   /* libdw stays loaded: it is harmless, and another user may come */
    }
    s->inline_ok = d->addrdie && d->getscopes && d->tag && d->attr_integrate && d->attr && d->formstring &&
                   d->formudata && d->getsrcfiles && d->filesrc;
    s->index_ok = d->getsymtab && d->first_global && d->getsym_info && d->getelf && d->nextscn && d->getshdr &&
                  d->ndxscn;
    s->cb.debuginfo_path = &s->debuginfo_path;
    s->lookup = lookup;
    return s;
}

/* ------------------------------------------------------------- memo --- */
static void symframes_free(sc_symframe *f, unsigned n)
{
    for (unsigned j = 0; f && j < n; j++) {
        free(f[j].function);
        free(f[j].file);
    }
    free(f);
}

static void memo_free(sym_module *m)
{
    for (size_t i = 0; i < m->capmemo; i++)
        symframes_free(m->memo[i].f, m->memo[i].n);
    free(m->memo);
}

static size_t memo_slot(const sym_module *m, uint64_t offset)
{
    size_t i = (size_t)((offset * 0x9e3779b97f4a7c15ull) >> 32) & (m->capmemo - 1);
    while (m->memo[i].max && m->memo[i].offset != offset)
        i = (i + 1) & (m->capmemo - 1);
    return i;
}

/* The frame at offset as looked up before with out's size max: copied into
   out; -1 when it was not. */
static int memo_get(const sym_module *m, uint64_t offset, sc_symframe *out, unsigned max)
{
    if (!m->capmemo)
        return -1;
    const sym_memo *e = &m->memo[memo_slot(m, offset)];
    if (!e->max || e->max != max)
        return -1;
    memset(out, 0, max * sizeof *out);
    for (unsigned j = 0; j < e->n; j++) {
        out[j].function = e->f[j].function ? strdup(e->f[j].function) : NULL;
        out[j].file = e->f[j].file ? strdup(e->f[j].file) : NULL;
        out[j].line = e->f[j].line;
    }
    return (int)e->n;
}

/* Keeps a copy of out[0..n) for offset; nothing when out of memory. */
static void memo_put(sym_module *m, uint64_t offset, const sc_symframe *out, unsigned n, unsigned max)
{
    if (2 * (m->nmemo + 1) > m->capmemo) {   /* at most half full */
        size_t cap = m->capmemo ? 2 * m->capmemo : 64;
        sym_memo *old = m->memo, *v = calloc(cap, sizeof *v);
        if (!v)
            return;
        size_t oldcap = m->capmemo;
        m->memo = v;
        m->capmemo = cap;
        for (size_t i = 0; i < oldcap; i++)
            if (old[i].max)
                m->memo[memo_slot(m, old[i].offset)] = old[i];
        free(old);
    }
    sym_memo *e = &m->memo[memo_slot(m, offset)];
    if (e->max)
        return;
    sc_symframe *f = n ? calloc(n, sizeof *f) : NULL;
    if (n && !f)
        return;
    for (unsigned j = 0; j < n; j++) {
        f[j].function = out[j].function ? strdup(out[j].function) : NULL;
        f[j].file = out[j].file ? strdup(out[j].file) : NULL;
        f[j].line = out[j].line;
        if ((out[j].function && !f[j].function) || (out[j].file && !f[j].file)) {
            symframes_free(f, j + 1);
            return;
        }
    }
    *e = (sym_memo){.offset = offset, .n = n, .max = max, .f = f};
    m->nmemo++;
}

void sc_symbols_close(sc_symbols *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nmods; i++) {
        if (s->mods[i].dwfl)
            s->dw.end(s->mods[i].dwfl);
        free(s->mods[i].path);
        memo_free(&s->mods[i]);
        free(s->mods[i].names);
        free(s->mods[i].held);
        free(s->mods[i].secs);
    }
    free(s->mods);
    free(s);
}

void sc_symbols_limit(sc_symbols *s, unsigned long ms)
{
    if (s)
        s->deadline = ms ? now_ns() + (uint64_t)ms * 1000000u : 0;
}

/* ------------------------------------------------------------ modules --- */
static void read_build_id(sc_symbols *s, sym_module *m)
{
    const unsigned char *bits = NULL;
    GElf_Addr vaddr;
    int n = s->dw.build_id ? s->dw.build_id(m->mod, &bits, &vaddr) : 0;
    m->build_id[0] = 0;
    for (int i = 0; i < n && 2 * (size_t)i + 2 < sizeof m->build_id; i++)
        snprintf(m->build_id + 2 * i, 3, "%02x", bits[i]);
}

static sym_module *module_find(sc_symbols *s, const char *path)
{
    for (size_t i = 0; i < s->nmods; i++)
        if (!strcmp(s->mods[i].path, path))
            return &s->mods[i];
    return NULL;
}

static sym_module *module_get(sc_symbols *s, const char *path)
{
    sym_module *found = module_find(s, path);
    if (found)
        return found;
    sym_module *ms = realloc(s->mods, (s->nmods + 1) * sizeof *ms);
    if (!ms)
        return NULL;
    s->mods = ms;
    sym_module *m = &ms[s->nmods];
    memset(m, 0, sizeof *m);
    if (!(m->path = strdup(path)))
        return NULL;
    s->nmods++;
    if (path[0] != '/' || !(m->dwfl = s->dw.begin(&s->cb)))
        return m;
    /* Reported at 0 with p_vaddr added: its addresses are its virtual
       addresses, which are the frames' offsets. */
    m->mod = s->dw.report_elf(m->dwfl, sc_basename(path), path, -1, 0, true);
    if (s->dw.report_end(m->dwfl, NULL, NULL) != 0)
        m->mod = NULL;
    if (m->mod)
        read_build_id(s, m);
    return m;
}

/* ------------------------------------------------------- symbol index --- */
/* What follows answers as dwfl_module_addrname does (elfutils 0.158 and
   later, dwfl_module_addrsym.c), which reads the table in order, the
   symbols that are not local first, and keeps or replaces a candidate by
   rules that depend on that order: the index replays them on the few
   symbols that can matter.  Function descriptors (ppc64 ELFv1), where
   libdw also tries a second address per symbol, are not followed. */
static uint32_t binding_rank(unsigned char st_info)
{
    switch (GELF_ST_BIND(st_info)) {
    case STB_GLOBAL:
        return 3;
    case STB_WEAK:
        return 2;
    case STB_LOCAL:
        return 1;
    default:
        return 0;
    }
}

static uint32_t name_ndx(const sym_name *e) { return e->info >> 3; }
static uint32_t name_rank(const sym_name *e) { return e->info & 3; }
static int name_global(const sym_module *m, const sym_name *e) { return name_ndx(e) >= m->first_global; }

static int cmp_sym_name(const void *pa, const void *pb)
{
    const sym_name *a = pa, *b = pb;
    if (a->value != b->value)
        return a->value < b->value ? -1 : 1;
    return (name_ndx(a) > name_ndx(b)) - (name_ndx(a) < name_ndx(b));
}

static int cmp_section(const void *pa, const void *pb)
{
    const sym_section *a = pa, *b = pb;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    if (a->end != b->end)
        return a->end < b->end ? -1 : 1;
    return (a->ndx > b->ndx) - (a->ndx < b->ndx);
}

/* The allocated sections of the module's file, as libdw lists them to
   place an address (derelocate.c); none when they cannot be read, as
   there. */
static void sections_read(const sc_symbols *s, sym_module *m)
{
    GElf_Addr bias = 0;
    Elf *elf = s->dw.getelf(m->mod, &bias);
    Elf_Scn *scn = NULL;
    size_t cap = 0;
    while (elf && (scn = s->dw.nextscn(elf, scn))) {
        GElf_Shdr sh;
        if (!s->dw.getshdr(scn, &sh)) {
            m->nsecs = 0;
            return;
        }
        if (!(sh.sh_flags & SHF_ALLOC))
            continue;
        if (m->nsecs == cap) {
            sym_section *v = realloc(m->secs, (cap = cap ? 2 * cap : 32) * sizeof *v);
            if (!v) {
                m->nsecs = 0;
                return;
            }
            m->secs = v;
        }
        m->secs[m->nsecs++] = (sym_section){sh.sh_addr + bias, sh.sh_addr + bias + sh.sh_size, s->dw.ndxscn(scn)};
    }
    qsort(m->secs, m->nsecs, sizeof *m->secs, cmp_section);
}

/* The section index of a, as libdw finds it: a section's end belongs to it
   unless the next one starts there; 0 (SHN_UNDEF) in none. */
static size_t section_of(const sym_module *m, uint64_t a)
{
    size_t lo = 0, hi = m->nsecs;
    while (lo < hi) {
        size_t i = lo + (hi - lo) / 2;
        if (a < m->secs[i].start)
            hi = i;
        else if (a > m->secs[i].end)
            lo = i + 1;
        else
            return m->secs[i + (a == m->secs[i].end && i + 1 < m->nsecs && a == m->secs[i + 1].start)].ndx;
    }
    return SHN_UNDEF;
}

/* Reads the module's symbol table into its index: 0, or -1 when it cannot
   be indexed (out of memory, a symbol over 4 GiB), and libdw is asked. */
static int names_build(const sc_symbols *s, sym_module *m)
{
    int n = s->dw.getsymtab(m->mod), fg = n > 0 ? s->dw.first_global(m->mod) : -1;
    if (n <= 0 || fg < 0)
        return 0;   /* no table: libdw names nothing either */
    sym_name *v = n < (1 << 28) ? malloc((size_t)n * sizeof *v) : NULL;
    size_t k = 0;
    if (!v)
        return -1;
    for (int i = 1; i < n; i++) {   /* 0 is the null symbol, which libdw skips too */
        GElf_Sym sym;
        GElf_Addr value;
        GElf_Word shndx;
        const char *name = s->dw.getsym_info(m->mod, i, &sym, &value, &shndx, NULL, NULL);
        if (!name || !name[0] || sym.st_shndx == SHN_UNDEF || GELF_ST_TYPE(sym.st_info) == STT_SECTION ||
            GELF_ST_TYPE(sym.st_info) == STT_FILE || GELF_ST_TYPE(sym.st_info) == STT_TLS)
            continue;
        if (sym.st_size > UINT32_MAX) {
            free(v);
            return -1;
        }
        v[k++] = (sym_name){.value = value, .size = (uint32_t)sym.st_size,
                            .info = (uint32_t)i << 3 | (uint32_t)(shndx >= SHN_LORESERVE) << 2 |
                                    binding_rank(sym.st_info)};
    }
    qsort(v, k, sizeof *v, cmp_sym_name);
    uint64_t top = 0;
    for (size_t j = 0; j < k; j++) {
        uint64_t end = v[j].value + v[j].size;
        v[j].maxend = top = end > top ? end : top;
    }
    m->names = v;
    m->nnames = k;
    m->first_global = (uint32_t)fg;   /* 0 (a table found without sections): none is local */
    sections_read(s, m);
    return 0;
}

static int cmp_held(const void *pa, const void *pb)
{
    uint32_t a = name_ndx(*(const sym_name *const *)pa), b = name_ndx(*(const sym_name *const *)pb);
    return (a > b) - (a < b);
}

/* Of the sized symbols in h that hold the address, the one libdw keeps,
   reading them in table order: a later one replaces it when it starts
   higher or binds more strongly, or starts at the same address, is
   smaller and binds as strongly. */
static const sym_name *closest(const sym_name **h, size_t n)
{
    qsort(h, n, sizeof *h, cmp_held);
    const sym_name *c = NULL;
    for (size_t i = 0; i < n; i++) {
        const sym_name *e = h[i];
        if (!c || c->value < e->value || name_rank(c) < name_rank(e) ||
            (c->value == e->value && c->size > e->size && name_rank(c) <= name_rank(e)))
            c = e;
    }
    return c;
}

/* Keeps the sized symbols of one part of the table (global: those that
   are not local) among the n in m->held; returns how many. */
static size_t held_part(sym_module *m, size_t n, int global)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (name_global(m, m->held[i]) == global)
            m->held[k++] = m->held[i];
    return k;
}

/* Where no sized symbol holds a (assembly labels, _init, padding): the
   last symbol without a size, in libdw's reading order, at the highest
   address that any symbol at or below a reaches, when it lies in a's
   section.  The end of the entries at or below a is lo. */
static const sym_name *sizeless(const sym_module *m, uint64_t a, size_t lo)
{
    const sym_name *v = m->names, *best = NULL;
    uint64_t top = v[lo - 1].maxend;
    if (top != v[lo - 1].value)
        return NULL;   /* a sized symbol ends above the last label: libdw names nothing */
    for (size_t i = lo; i-- > 0 && v[i].value == top;) {
        int same = v[i].info & 4 ? top == a : section_of(m, top) == section_of(m, a);
        uint64_t key = (uint64_t)!name_global(m, &v[i]) << 32 | name_ndx(&v[i]);
        if (same && (!best || key > ((uint64_t)!name_global(m, best) << 32 | name_ndx(best))))
            best = &v[i];
    }
    return best;
}

/* The index's entry for the symbol dwfl_module_addrname names a with:
   sized symbols that are not local and hold a; else the last such symbol
   without a size at a itself, which ends libdw's search before the
   locals; else local sized ones holding a; else a label (sizeless).  0,
   with *out NULL when none names a; -1 out of memory. */
static int names_find(sym_module *m, uint64_t a, const sym_name **out)
{
    const sym_name *v = m->names;
    size_t lo = 0, hi = m->nnames, n = 0;
    *out = NULL;
    while (lo < hi) {
        size_t i = lo + (hi - lo) / 2;
        if (v[i].value <= a)
            lo = i + 1;
        else
            hi = i;
    }
    /* Entries below lo hold a only where the highest end so far is above
       it: code's symbols do not nest, so this stops within a few. */
    for (size_t i = lo; i-- > 0 && v[i].maxend > a;) {
        if (!v[i].size || a - v[i].value >= v[i].size)
            continue;
        if (n == m->capheld) {
            size_t cap = m->capheld ? 2 * m->capheld : 16;
            const sym_name **h = realloc(m->held, cap * sizeof *h);
            if (!h)
                return -1;
            m->held = h;
            m->capheld = cap;
        }
        m->held[n++] = &v[i];
    }
    /* held_part keeps the globals in place, which moves nothing when there
       is none: the locals are still all there for the second call. */
    size_t k = held_part(m, n, 1);
    if (k) {
        *out = closest(m->held, k);
        return 0;
    }
    for (size_t i = lo; i-- > 0 && v[i].value == a;)
        if (name_global(m, &v[i]) && (!*out || name_ndx(&v[i]) > name_ndx(*out)))
            *out = &v[i];
    if (*out)
        return 0;
    if ((k = held_part(m, n, 0)) > 0)
        *out = closest(m->held, k);
    else if (lo)
        *out = sizeless(m, a, lo);
    return 0;
}

/* The raw name of the symbol a lies in, as dwfl_module_addrname gives it,
   from the module's index (built at the first call); by libdw's own
   search where the module has no index and scan is set.  NULL: none. */
static const char *symbol_name(const sc_symbols *s, sym_module *m, uint64_t a, int scan)
{
    if (!m->names_state)
        m->names_state = s->index_ok && names_build(s, m) == 0 ? 1 : -1;
    const sym_name *e = NULL;
    if (m->names_state < 0 || names_find(m, a, &e) < 0)
        return scan ? s->dw.addrname(m->mod, (GElf_Addr)a) : NULL;
    GElf_Sym sym;
    GElf_Addr value;
    GElf_Word shndx;
    return e ? s->dw.getsym_info(m->mod, (int)name_ndx(e), &sym, &value, &shndx, NULL, NULL) : NULL;
}

/* ---------------------------------------------------------- frames --- */
static char *pretty(const sc_symbols *s, const char *sym)
{
    return sc_demangle(sym, s->lookup);
}

/* A source path as a person finds it: relative paths (nvcc records
   testapps/app.cu as given on its command line) joined to the compile
   unit's directory, and ./ and dir/../ taken out, so that report time can
   place it below the source root.  A path relative to a directory that is
   not absolute either (a distribution's -fdebug-prefix-map) stays as
   recorded. */
static char *source_path(const char *file, const char *comp_dir)
{
    char *p = NULL;
    if (file[0] != '/' && comp_dir && comp_dir[0] == '/') {
        if (asprintf(&p, "%s/%s", comp_dir, file) < 0)
            p = NULL;
    } else {
        p = strdup(file);
    }
    if (p && p[0] == '/')
        sc_path_normalize(p);
    return p;
}

/* The innermost frame: the function, and the instruction's file:line. */
static void lookup_one(const sc_symbols *s, sym_module *m, Dwarf_Addr a, sc_symframe *out)
{
    Dwfl_Module *mod = m->mod;
    out->function = pretty(s, symbol_name(s, m, a, 1));
    Dwfl_Line *l = s->dw.getsrc(mod, a);
    Dwarf_Addr la;
    int ln = 0, col = 0;
    const char *f = l ? s->dw.lineinfo(l, &la, &ln, &col, NULL, NULL) : NULL;
    if (f && ln > 0) {
        out->file = source_path(f, s->dw.line_comp_dir ? s->dw.line_comp_dir(l) : NULL);
        out->line = (unsigned)ln;
    }
}

/* The name a scope (subprogram or inlined subroutine) was declared with:
   the linkage name when there is one (C++), through its abstract origin. */
static const char *scope_name(const sc_symbols *s, Dwarf_Die *d)
{
    Dwarf_Attribute a;
    const char *n = NULL;
    if (s->dw.attr_integrate(d, DW_AT_linkage_name, &a))
        n = s->dw.formstring(&a);
    if (!n && s->dw.attr_integrate(d, DW_AT_MIPS_linkage_name, &a))
        n = s->dw.formstring(&a);
    if (!n && s->dw.attr_integrate(d, DW_AT_name, &a))
        n = s->dw.formstring(&a);
    return n;
}

/* Walks the scopes around a (innermost first): each inlined subroutine
   names the function the instruction belongs to, and its call_file and
   call_line say where the next outer function called it.  out[0] is
   filled already; returns how many are filled. */
static unsigned unfold(const sc_symbols *s, sym_module *m, Dwarf_Addr a, sc_symframe *out, unsigned max)
{
    Dwfl_Module *mod = m->mod;
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = s->dw.addrdie(mod, a, &bias), *scopes = NULL;
    int ns = cu ? s->dw.getscopes(cu, a - bias, &scopes) : 0;
    Dwarf_Files *files = NULL;
    size_t nfiles = 0;
    if (ns <= 0 || s->dw.getsrcfiles(cu, &files, &nfiles) != 0) {
        free(scopes);
        return 1;
    }
    Dwarf_Attribute cda;
    const char *comp_dir = s->dw.attr(cu, DW_AT_comp_dir, &cda) ? s->dw.formstring(&cda) : NULL;
    unsigned n = 0;
    for (int i = 0; i < ns && n < max; i++) {
        int t = s->dw.tag(&scopes[i]);
        if (t != DW_TAG_inlined_subroutine && t != DW_TAG_subprogram)
            continue;
        const char *name = scope_name(s, &scopes[i]);
        if (n > 0)
            out[n].function = name ? pretty(s, name) : NULL;
        else if (name) {             /* the innermost function, at the instruction's line */
            free(out[0].function);
            out[0].function = pretty(s, name);
        }
        if (t == DW_TAG_subprogram)
            break;
        Dwarf_Attribute at;
        Dwarf_Word fidx = 0, line = 0;
        if (n + 1 >= max || !s->dw.attr(&scopes[i], DW_AT_call_file, &at) || s->dw.formudata(&at, &fidx) ||
            !s->dw.attr(&scopes[i], DW_AT_call_line, &at) || s->dw.formudata(&at, &line))
            break;
        const char *f = fidx < nfiles ? s->dw.filesrc(files, fidx, NULL, NULL) : NULL;
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
        out[n].function = pretty(s, symbol_name(s, m, a, 1));
    return n + 1;
}

/* Past the limit: the function alone, from the module's symbol index (no
   line table or other DWARF is read, nor the table searched by libdw),
   and the frame counts as late.  The memo is not given it, as it keeps
   frames looked up in full. */
static unsigned late_frame(const sc_symbols *s, sym_module *m, uint64_t offset, sc_symframe *out, unsigned max,
                           int *late)
{
    *late = 1;
    const char *name = symbol_name(s, m, offset, 0);
    memset(out, 0, max * sizeof *out);
    out[0].function = name ? pretty(s, name) : NULL;
    return out[0].function ? 1 : 0;
}

unsigned sc_symbols_frame(sc_symbols *s, const char *module, const char *build_id, uint64_t offset,
                          sc_symframe *out, unsigned max, int *late)
{
    *late = 0;
    if (!s || !module || !max)
        return 0;
    /* Opening a module only maps its file and reads its headers, so it is
       done past the limit too, for the symbol table. */
    sym_module *m = module_get(s, module);
    int n;
    if (!m || !m->mod || (build_id && *build_id && strcmp(build_id, m->build_id)))
        return 0;
    if ((n = memo_get(m, offset, out, max)) >= 0)
        return (unsigned)n;
    if (s->deadline && now_ns() >= s->deadline)
        return late_frame(s, m, offset, out, max, late);
    memset(out, 0, max * sizeof *out);
    lookup_one(s, m, (Dwarf_Addr)offset, out);
    unsigned got = s->inline_ok ? unfold(s, m, (Dwarf_Addr)offset, out, max) : 1;
    memo_put(m, offset, out, got, max);
    return got;
}

const char *sc_symbols_symbol(sc_symbols *s, const char *module, uint64_t offset)
{
    sym_module *m = s && module ? module_get(s, module) : NULL;
    return m && m->mod ? symbol_name(s, m, offset, 0) : NULL;
}

/* ------------------------------------------------------------ report --- */
/* Call sites ranked by the most severe, then costliest, finding at each. */
typedef struct site_rank {
    uint64_t key;
    size_t i;
} site_rank;

static int cmp_site_rank(const void *pa, const void *pb)
{
    const site_rank *a = pa, *b = pb;
    return a->key != b->key ? (a->key < b->key ? 1 : -1) : (a->i > b->i) - (a->i < b->i);
}

static site_rank *rank_sites(const sc_report *r)
{
    site_rank *o = calloc(r->ncallsites ? r->ncallsites : 1, sizeof *o);
    if (!o)
        return NULL;
    for (size_t i = 0; i < r->ncallsites; i++)
        o[i] = (site_rank){0, i};
    for (size_t j = 0; j < r->nfindings; j++) {
        const sc_finding *f = &r->findings[j];
        long k = sc_report_callsite_index(r, f->callsite);
        uint64_t key = (uint64_t)f->severity << 62 | (f->cost_ns >> 2);
        if (k >= 0 && key > o[k].key)
            o[k].key = key;
    }
    qsort(o, r->ncallsites, sizeof *o, cmp_site_rank);
    return o;
}

/* Whether frame k is to be looked up: it has a module (and a build ID
   when need_id) and no line, and is not the outer part of an inline chain
   unfolded before (the frame before it, at the same module and offset,
   has its line). */
static int wants_lookup(const sc_callsite *cs, size_t k, int need_id)
{
    const sc_frame *f = &cs->frames[k], *p = k ? &cs->frames[k - 1] : NULL;
    if (f->file || !f->module || (need_id && !f->build_id))
        return 0;
    return !(p && p->file && p->module && p->offset == f->offset && !strcmp(p->module, f->module));
}

/* One frame as its inline chain sf[0..n) into out[]; 0, or -1 out of
   memory (out then holds what it got, to free). */
static int unfolded(const sc_frame *f, sc_symframe *sf, unsigned n, sc_frame *out)
{
    int ok = 1;
    for (unsigned j = 0; j < n; j++) {
        sc_frame *o = &out[j];
        memset(o, 0, sizeof *o);
        o->offset = f->offset;
        o->module = strdup(f->module);
        o->build_id = f->build_id ? strdup(f->build_id) : NULL;
        /* libdw may not name what the dynamic symbol table did */
        o->function = sf[j].function ? sf[j].function : j == 0 && f->function ? strdup(f->function) : NULL;
        o->file = sf[j].file;
        o->line = sf[j].line;
        ok &= o->module && (!f->build_id || o->build_id) &&
              (o->function || (!sf[j].function && (j || !f->function)));
    }
    return ok ? 0 : -1;
}

enum { MAX_INLINE = 8 };

/* Replaces a call site's frames by their symbolized ones; *late counts the
   frames past the limit. */
static int symbolize_site(sc_symbols *s, sc_callsite *cs, int need_id, long *late)
{
    sc_frame *nf = cs->nframes ? calloc(cs->nframes * MAX_INLINE, sizeof *nf) : NULL;
    size_t n = 0;
    if (!nf)
        return cs->nframes ? -1 : 0;
    for (size_t k = 0; k < cs->nframes; k++) {
        sc_frame *f = &cs->frames[k];
        sc_symframe sf[MAX_INLINE];
        unsigned m = 0;
        int lt = 0;
        if (wants_lookup(cs, k, need_id))
            m = sc_symbols_frame(s, f->module, f->build_id, f->offset, sf, MAX_INLINE, &lt);
        *late += lt;
        if (m == 0) {
            nf[n++] = *f;          /* moved, strings and all */
            memset(f, 0, sizeof *f);
            continue;
        }
        int rc = unfolded(f, sf, m, &nf[n]);
        n += m;
        if (rc) {
            for (size_t j = 0; j < n; j++)
                sc_frame_clear(&nf[j]);
            free(nf);
            return -1;
        }
    }
    for (size_t k = 0; k < cs->nframes; k++)
        sc_frame_clear(&cs->frames[k]);
    free(cs->frames);
    cs->frames = nf;
    cs->nframes = n;
    return 0;
}

long sc_report_symbolize(sc_report *r, sc_symbols *s, int need_id)
{
    if (!s || !r->ncallsites)
        return 0;
    site_rank *order = rank_sites(r);
    long late = 0;
    if (!order)
        return -1;
    for (size_t i = 0; i < r->ncallsites; i++)
        if (symbolize_site(s, &r->callsites[order[i].i], need_id, &late)) {
            free(order);
            return -1;
        }
    free(order);
    return late;
}
