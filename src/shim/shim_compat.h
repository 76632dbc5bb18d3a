/* shim_compat.h: what measure.c and hooks_cupti.c still find through
 * shim.h, which declares no module's functions otherwise.  Another change
 * rewrites those two files; once they include apis.h, real.h,
 * hooks_runtime.h and hooks_cupti.h this header goes.  The same
 * declarations are in those headers.
 */
#ifndef SC_SHIM_COMPAT_H
#define SC_SHIM_COMPAT_H

extern const sc_api_info sc_apis[SC_NAPI];
extern const char *const sc_rt_names[SC_NRT];
void *sc_dlsym_real(void *handle, const char *name);
int sc_is_ours(const void *p);
void *sc_cupti_dlsym_filter(void *handle, const char *name, void *p);

#endif /* SC_SHIM_COMPAT_H */
