/* model.h: what the model's files share inside src/report -- growing an
 * entry array, and copying and clearing the entries a merge appends
 * (report.c defines them, report_merge.c uses them). */
#ifndef SC_MODEL_H
#define SC_MODEL_H

#include <stddef.h>

#include "report.h"

/* Grows *arrp (an array pointer) to hold n elements of size sz; 0, or -1
   with errno set and the array unchanged. */
int sc_grow(void *arrp, size_t n, size_t sz);

/* Deep copies: 0, or -1 with d holding nothing to free. */
int sc_process_copy(sc_process *d, const sc_process *s);
int sc_callsite_copy(sc_callsite *d, const sc_callsite *s);
int sc_finding_copy(sc_finding *d, const sc_finding *s);
int sc_api_count_copy(sc_api_count *d, const sc_api_count *s);
int sc_redirect_copy(sc_redirect *d, const sc_redirect *s);
/* Free what an entry owns (sc_finding_clear and sc_callsite_clear are
   public: report.h). */
void sc_process_clear(sc_process *p);
void sc_frame_clear(sc_frame *f);
void sc_api_count_clear(sc_api_count *c);
void sc_redirect_clear(sc_redirect *rd);

#endif /* SC_MODEL_H */
