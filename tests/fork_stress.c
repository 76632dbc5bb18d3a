/* fork_stress.c: fork while other threads hold the shim's locks.
 *   fork_stress [FORKS]
 * Worker threads create and destroy streams, events, device and pinned
 * allocations and cuBLAS handles without pause, so at each fork some of
 * them are inside the shim, often holding one of its locks.  Each child
 * makes one CUDA call (which fails in a child, as in CUDA, but goes through
 * the shim's slow path: contexts, streams, call sites) and exits, which
 * writes its report (findings, call sites, the cuBLAS summary).  A lock the
 * fork handler did not take can be inherited held: the child then hangs.
 * The parent waits for each child at most 20 s (FORK_STRESS_TIMEOUT_S), says
 * where a child that did not exit in time is (each thread's kernel wait
 * channel and state, from /proc), then kills it; exits 0 only if every
 * child exited 0 in time.  Run under the shim on the simulator
 * (tests/fork.sh). */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WORKERS 4
#define CHILD_TIMEOUT_S 20

/* Where each thread of a hung child waits (/proc/PID/task/TID/wchan and
   the state in stat): a lock inherited held shows as futex_wait. */
static void show_threads(pid_t pid)
{
    char path[512], buf[256];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        const char *what[] = {"wchan", "stat"};
        fprintf(stderr, "fork_stress:   thread %s:", e->d_name);
        for (int k = 0; k < 2; k++) {
            snprintf(path, sizeof path, "/proc/%d/task/%s/%s", (int)pid, e->d_name, what[k]);
            FILE *f = fopen(path, "r");
            size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
            if (f)
                fclose(f);
            buf[n] = 0;
            buf[strcspn(buf, "\n")] = 0;
            fprintf(stderr, " %s=%.60s", what[k], buf);
        }
        fputc('\n', stderr);
    }
    if (d)
        closedir(d);
}

static atomic_int stop;
static cudaStream_t parent_stream;

static void *worker(void *arg)
{
    unsigned k = (unsigned)(uintptr_t)arg;
    while (!atomic_load(&stop)) {
        cudaStream_t s;
        cudaEvent_t e;
        void *d = NULL, *h = NULL;
        cublasHandle_t b;
        switch (k++ % 4) {
        case 0:
            if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess) {
                cudaStreamQuery(s);
                cudaStreamDestroy(s);
            }
            break;
        case 1:
            if (cudaEventCreateWithFlags(&e, cudaEventDisableTiming) == cudaSuccess) {
                cudaEventRecord(e, parent_stream);
                cudaEventDestroy(e);
            }
            break;
        case 2:
            if (cudaMalloc(&d, 4096) == cudaSuccess)
                cudaFree(d);
            if (cudaMallocHost(&h, 4096) == cudaSuccess)
                cudaFreeHost(h);
            break;
        case 3:
            if (cublasCreate(&b) == CUBLAS_STATUS_SUCCESS) {
                cublasSetStream(b, parent_stream);
                cublasSetStream(b, NULL);
                cublasDestroy(b);
            }
            break;
        }
    }
    return NULL;
}

/* 1 if the child exited 0 within the timeout; kills it otherwise. */
static int wait_child(pid_t pid, int i)
{
    struct timespec tick = {0, 2 * 1000 * 1000};
    const char *env = getenv("FORK_STRESS_TIMEOUT_S");
    int limit = env && atoi(env) > 0 ? atoi(env) : CHILD_TIMEOUT_S;
    for (long waited = 0; waited < limit * 500L; waited++) {
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid) {
            if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
                return 1;
            fprintf(stderr, "fork_stress: child %d failed (status 0x%x)\n", i, st);
            return 0;
        }
        if (r < 0) {
            perror("fork_stress: waitpid");
            return 0;
        }
        nanosleep(&tick, NULL);
    }
    fprintf(stderr, "fork_stress: child %d hung (no exit in %d s): killed\n", i, limit);
    show_threads(pid);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return 0;
}

int main(int argc, char **argv)
{
    int forks = argc > 1 ? atoi(argv[1]) : 60;
    if (cudaStreamCreateWithFlags(&parent_stream, cudaStreamNonBlocking) != cudaSuccess) {
        fprintf(stderr, "fork_stress: no CUDA device\n");
        return 2;
    }
    pthread_t th[WORKERS];
    for (int i = 0; i < WORKERS; i++)
        pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)i);
    int good = 0;
    struct timespec gap = {0, 3 * 1000 * 1000};
    for (int i = 0; i < forks; i++) {
        nanosleep(&gap, NULL);   /* let the workers get back into the shim */
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork_stress: fork");
            break;
        }
        if (pid == 0) {
            /* CUDA is not usable in a forked child: these fail, through the
               shim's slow path, and make the child's report non-empty. */
            cudaStreamQuery(parent_stream);
            cudaDeviceSynchronize();
            exit(0);
        }
        good += wait_child(pid, i);
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < WORKERS; i++)
        pthread_join(th[i], NULL);
    cudaStreamDestroy(parent_stream);
    printf("fork_stress: %d of %d children exited in time\n", good, forks);
    return good == forks ? 0 : 1;
}
