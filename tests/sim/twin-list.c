/* tests/sim/twin-list.c: prints the mangled name of every CPU twin, one a
 * line, for tests/sim/twin-names.sh. */
#include "config.h"

#include <stdio.h>

#include "twins.h"

int main(void)
{
    for (size_t i = 0; sc_twin_at(i); i++)
        printf("%s\n", sc_twin_at(i)->name);
    return 0;
}
