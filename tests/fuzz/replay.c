/* replay: runs fuzz inputs through a fuzz target's LLVMFuzzerTestOneInput
 * without libFuzzer, so 'make check' replays the corpus with the ordinary
 * compiler (and the sanitizers of --enable-sanitizers, if any).
 *
 *     replay-TARGET FILE|DIR...
 *
 * Directories are read in name order.  Exits 0 when every input ran; a
 * crash or a violated property aborts. */
#include "config.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    char *buf, err[512];
    size_t len;
    if (sc_read_file(path, (size_t)64 << 20, &buf, &len, err, sizeof err) < 0) {
        fprintf(stderr, "replay: %s\n", err);
        return -1;
    }
    /* libFuzzer hands the target a buffer of exactly len bytes; copying
       keeps ASan able to see reads past the end. */
    uint8_t *exact = malloc(len ? len : 1);
    if (!exact) {
        free(buf);
        return -1;
    }
    memcpy(exact, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
    size_t runs = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) < 0) {
            perror(argv[i]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            if (run_file(argv[i]) < 0)
                return 1;
            runs++;
            continue;
        }
        struct dirent **ents;
        int n = scandir(argv[i], &ents, NULL, by_name);
        if (n < 0) {
            perror(argv[i]);
            return 1;
        }
        for (int k = 0; k < n; k++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], ents[k]->d_name);
            if (ents[k]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                if (run_file(path) < 0)
                    return 1;
                runs++;
            }
            free(ents[k]);
        }
        free(ents);
    }
    printf("replayed %zu inputs\n", runs);
    return runs ? 0 : 1;
}
