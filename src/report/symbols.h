/* symbols.h: function, file and line for the native frames of a report,
 * from each frame's module and offset (symbols.c).  The shim uses it at
 * exit when no launcher is there to do it later; the launcher, after the
 * program has exited; `streamcheck report`, for frames still without a
 * line. */
#ifndef SC_SYMBOLS_H
#define SC_SYMBOLS_H

#include <stdint.h>

#include "report.h"

/* A GNU build ID as lowercase hex: 20 bytes for ld's default (SHA-1), at
   most 64 kept. */
#define SC_BUILD_ID_MAX 129

typedef struct sc_symbols sc_symbols;

/* Looks a symbol up in a library handle (dlsym's signature): the shim
   passes its real dlsym, the others dlsym itself. */
typedef void *(*sc_dlsym_fn)(void *handle, const char *name);

/* Loads libdw (dlopen); NULL when it is not there, and then frames keep
   what they have.  lookup NULL means dlsym. */
sc_symbols *sc_symbols_open(sc_dlsym_fn lookup);
void sc_symbols_close(sc_symbols *s);

/* sym demangled when it is a C++ name (with the C++ runtime's demangler,
   looked up through lookup, NULL: dlsym), else copied; malloc'd, NULL for
   NULL. */
char *sc_demangle(const char *sym, sc_dlsym_fn lookup);

/* Reading debug information can take seconds for a framework's libraries
   (6.3 s for 70 PyTorch call sites, on an H100 host): after ms from now
   (0: no limit) no frame's file:line, inlining or DWARF name is read any
   more; a frame not looked up before gets only its function, from its
   module's symbol table (sc_symbols_frame). */
void sc_symbols_limit(sc_symbols *s, unsigned long ms);

/* One frame of an inline chain; strings are malloc'd (or NULL). */
typedef struct sc_symframe {
    char *function, *file;
    unsigned line;
} sc_symframe;

/* The frame at offset in module (a path), with inlining unfolded,
   innermost first, as addr2line -i does: the inlined function at the
   instruction's line, then each function it was inlined into, at the line
   of that call.  The module's file must have build_id when both are known
   (NULL or "": not checked).  Returns how many of out were filled, 0 when
   the frame cannot be named (no such file, another build, no symbol).  A
   frame is read once: asked again, even past the limit, it is copied from
   what the first lookup found.  Past the limit, a frame not looked up
   before is named from its module's symbol table alone (the module is
   opened if it was not; no line table or other DWARF is read, though
   libdw may open a separate debug file for its full symbol table): one
   frame with only its function, no file:line nor inline chain, and *late
   set, also when no symbol names it (then 0 is returned).  A frame whose
   module cannot be read or is another build is never late. */
unsigned sc_symbols_frame(sc_symbols *s, const char *module, const char *build_id, uint64_t offset,
                          sc_symframe *out, unsigned max, int *late);

/* The symbol table's name for offset in module, raw (not demangled), as
   libdw's dwfl_module_addrname gives it, from the module's index of its
   symbols (built at the first call; NULL when the module cannot be read,
   no symbol names offset, or this libdw lacks what the index needs).  The
   limit does not apply.  Valid until sc_symbols_close. */
const char *sc_symbols_symbol(sc_symbols *s, const char *module, uint64_t offset);

/* Names every native frame of r that has a module and no file:line (one
   frame becomes its inline chain), the call sites of the costliest
   findings first, so a limit leaves the least important ones as they
   were.  With need_id, only frames with a build ID, which a file must
   match: a report read on another machine than it was made on, where a
   library of the same path may be another build.  Returns how many frames
   the limit left so; -1 when out of memory (r keeps what it had). */
long sc_report_symbolize(sc_report *r, sc_symbols *s, int need_id);

#endif /* SC_SYMBOLS_H */
