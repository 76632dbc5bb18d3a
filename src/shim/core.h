/* core.h: the shim's leaf module (core.c): the globals, the log, per-thread
 * state, the init state machine, and the fork and exit protocol.
 *
 * core.c names no other module of the shim.  Modules that own a lock or
 * state a forked child must drop, or that need a hook at initialization or
 * exit, describe themselves with an sc_part and register it from a
 * constructor (SC_PART_REGISTER).  The fork handlers then take every
 * registered lock by construction: a module that adds a lock adds it to its
 * part, and the fork test (testapps/fork_stress) hangs if it forgets.
 */
#ifndef SC_CORE_H
#define SC_CORE_H

typedef struct sc_part {
    const char *name;
    /* Lock order: parts are locked in increasing order before fork and
       unlocked in decreasing order after it.  A module that takes another
       module's lock while it holds its own must have the smaller order.
       In use: modules 10, streams 20, hostmem 30, pyframes 35,
       callsites 40, findings 50, contexts (lanes.c) 60, cublas 70,
       hb 80 (it holds nothing: its child reset clears its spin locks),
       measure 85 (its locks are taken under findings' when a report
       prices its findings). */
    unsigned order;
    void (*lock)(void);          /* take every lock of the module */
    void (*unlock)(void);        /* in the parent after fork */
    void (*child_reset)(void);   /* in the child: locks re-initialized (never
                                    unlocked: another thread owned them),
                                    the parent's state dropped */
    void (*init)(void);          /* once, at the shim's initialization (or at
                                    registration, if that came later) */
    void (*at_exit)(void);       /* once, at exit, after the slow paths drained */
} sc_part;

/* Registers p (which must outlive the process); safe from a constructor. */
void sc_part_register(const sc_part *p);

#define SC_PART_REGISTER(part)                                            \
    __attribute__((constructor)) static void sc_part_register_##part(void) \
    {                                                                     \
        sc_part_register(&part);                                          \
    }

#endif /* SC_CORE_H */
