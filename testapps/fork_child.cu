// fork_child: a CUDA program that forks a helper process which does no CUDA
// work (CUDA cannot be used in a child forked after initialization).  The
// child's report must not repeat the parent's calls: only the parent
// reports, with exactly its own counts.
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

#define N (1 << 16)

int main(void)
{
    float *h, *d;
    cudaStream_t s;
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    sc_fill<<<64, 256>>>(d, N, 2.0f); // expect: SC101 x1
    LAUNCHED();

    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        printf("fork_child: child %s\n", getppid() > 1 ? "ran" : "orphaned");
        fflush(stdout);
        exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    printf("fork_child: child exited with %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);

    sc_saxpy<<<64, 256>>>(N, 1.0f, d, d); // expect: SC101 x1
    sc_spin<<<1, 1>>>(HOLD); // expect: SC101 x1
    LAUNCHED();
    CHECK(cudaMemcpyAsync(h, d, N * sizeof(float), cudaMemcpyDeviceToHost, 0)); // expect: SC101 x1
    CHECK(cudaStreamSynchronize(0));
    printf("fork_child: checksum %.6f\n", checksum(h, N));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    return 0;
}
// expect-api: cuLaunchKernel 3
