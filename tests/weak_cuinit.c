/* weak_cuinit.c: a program that does not link CUDA but asks for it weakly,
 * and takes its CUDA path only where a driver is there (tests/faults.sh):
 * prints "cpu path" without libcuda, under the shim too. */
#include <cuda.h>
#include <stdio.h>

extern CUresult cuInit(unsigned flags) __attribute__((weak));

int main(void)
{
    if (cuInit) {
        printf("cuda path: cuInit returned %d\n", (int)cuInit(0));
        return 1;
    }
    printf("cpu path\n");
    return 0;
}
