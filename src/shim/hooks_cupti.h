/* hooks_cupti.h: the CUPTI calls hooks_cupti.c interposes. */
#ifndef SC_HOOKS_CUPTI_H
#define SC_HOOKS_CUPTI_H

/* What dlsym hands out for them (interpose.c): as sc_runtime_dlsym_filter
   (hooks_runtime.h), and ours too where the lookup found the real one
   (measured mode must see the call). */
void *sc_cupti_dlsym_filter(void *handle, const char *name, void *p);

#endif /* SC_HOOKS_CUPTI_H */
