/* notes.h: which of a thread's SC101 and SC601 notes go to the slow path.
 * The fast path keeps the others (fast.h, sc_fast_legacy; redirect.c,
 * sc_fast_redirect); the slow path counts the samples with their weight
 * (dispatch.c, sc_post).
 */
#ifndef SC_NOTES_H
#define SC_NOTES_H

#include <stdint.h>

/* SC101 notes (and SC601 notes) of a thread: the first SC_NOTES_EXACT go
   to the slow path and get their call site; after that one in
   SC_NOTE_SAMPLE does and is counted for SC_NOTE_SAMPLE, 64 such samples,
   and past SC_NOTES_SAMPLED one in SC_NOTE_SAMPLE_LONG (dispatch.c,
   sc_post).  The others are counted here, on the fast path
   (sc_fast_legacy).  A sample costs a stack walk and the Python frames,
   about 20 us on a GPU host: a Hugging Face GPT-2 step makes 330 notes a
   thread, so one in 64 for 256 samples (until the 16,640th note) was 50
   steps at 5 samples a step and thread, 40% of the shim's time there;
   64 samples put the long period at the 4,352nd note, the 14th step. */
#define SC_NOTES_EXACT 256
#define SC_NOTE_SAMPLE 64
#define SC_NOTES_SAMPLED (SC_NOTES_EXACT + 64 * SC_NOTE_SAMPLE)
#define SC_NOTE_SAMPLE_LONG 1024
_Static_assert((SC_NOTES_SAMPLED - SC_NOTES_EXACT) % SC_NOTE_SAMPLE_LONG == 0,
               "the long sampling period starts on one of its own multiples");
_Static_assert(!(SC_NOTE_SAMPLE & (SC_NOTE_SAMPLE - 1)) && !(SC_NOTE_SAMPLE_LONG & (SC_NOTE_SAMPLE_LONG - 1)),
               "sampling periods are powers of two");

/* Whether the nth note of a thread goes to the slow path (a sample). */
static inline int sc_note_sampled(uint64_t n)
{
    if (n <= SC_NOTES_EXACT)
        return 1;
    uint64_t every = n > SC_NOTES_SAMPLED ? SC_NOTE_SAMPLE_LONG : SC_NOTE_SAMPLE;
    return ((n - SC_NOTES_EXACT) & (every - 1)) == 0;
}

#endif /* SC_NOTES_H */
