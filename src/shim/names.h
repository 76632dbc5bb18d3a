/* names.h: a native frame's function from the dynamic symbol table
 * (dladdr), each pc asked once (names.c). */
#ifndef SC_NAMES_H
#define SC_NAMES_H

#include <stddef.h>
#include <stdint.h>

typedef struct sc_names {
    uintptr_t *pc;   /* open addressing; 0: a free slot */
    char **name;
    size_t cap;
} sc_names;

/* Room for about `frames` pcs (without memory, each pc asks dladdr). */
void sc_names_init(sc_names *m, size_t frames);
/* pc's name, demangled, malloc'd (NULL when it has none). */
char *sc_names_get(sc_names *m, uintptr_t pc);
void sc_names_free(sc_names *m);

#endif /* SC_NAMES_H */
