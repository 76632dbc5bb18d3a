// framework_loop: what a framework's training loop asks of the shim, in
// one program that runs on a GPU and on the simulator (bench/local.mk,
// tools/overhead-probe.sh).  Like PyTorch: 128 idle non-blocking pool
// streams exist, every launch goes to the legacy stream, a pinned batch
// is copied in asynchronously, a loss is read back with a synchronous copy
// every step, and a second thread (autograd's) launches the backward half.
// At the end it forks children that never use CUDA (DataLoader workers).
//
//   framework_loop [STEPS] [LAUNCHES_PER_STEP] [FORKS]
//
// stdout: steps_per_s=..., us_per_launch=... (host side, including the
// submission), fork_us=... (fork, child _exit, wait).
#include <pthread.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../testapps/common.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int launches = 50;
static float *d_x;
static const int N = 256;

struct half { pthread_mutex_t m; pthread_cond_t c; int go, done, quit; };
static struct half bw = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0};

static void *autograd(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&bw.m);
        while (!bw.go && !bw.quit)
            pthread_cond_wait(&bw.c, &bw.m);
        if (bw.quit) {
            pthread_mutex_unlock(&bw.m);
            return NULL;
        }
        bw.go = 0;
        pthread_mutex_unlock(&bw.m);
        for (int i = 0; i < launches; i++)
            sc_fill<<<1, 32>>>(d_x, N, 2.0f);   // backward, legacy stream
        pthread_mutex_lock(&bw.m);
        bw.done = 1;
        pthread_cond_broadcast(&bw.c);
        pthread_mutex_unlock(&bw.m);
    }
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 200;
    launches = argc > 2 ? atoi(argv[2]) : 50;
    int forks = argc > 3 ? atoi(argv[3]) : 20;
    cudaStream_t pool[128];
    for (int i = 0; i < 128; i++)
        CHECK(cudaStreamCreateWithFlags(&pool[i], cudaStreamNonBlocking));
    float *h_in, loss = 0;
    CHECK(cudaMallocHost(&h_in, N * sizeof(float)));
    memset(h_in, 0, N * sizeof(float));
    CHECK(cudaMalloc(&d_x, N * sizeof(float)));
    pthread_t th;
    pthread_create(&th, NULL, autograd, NULL);
    double t0 = 0;
    int warm = steps / 10;
    for (int s = 0; s < steps + warm; s++) {
        if (s == warm)
            t0 = now();
        CHECK(cudaMemcpyAsync(d_x, h_in, N * sizeof(float), cudaMemcpyHostToDevice, 0));
        for (int i = 0; i < launches; i++)
            sc_fill<<<1, 32>>>(d_x, N, 1.0f);   // forward, legacy stream
        pthread_mutex_lock(&bw.m);
        bw.go = 1;
        bw.done = 0;
        pthread_cond_broadcast(&bw.c);
        while (!bw.done)
            pthread_cond_wait(&bw.c, &bw.m);
        pthread_mutex_unlock(&bw.m);
        CHECK(cudaMemcpy(&loss, d_x, sizeof(float), cudaMemcpyDeviceToHost));   // loss.item()
    }
    double dt = now() - t0;
    pthread_mutex_lock(&bw.m);
    bw.quit = 1;
    pthread_cond_broadcast(&bw.c);
    pthread_mutex_unlock(&bw.m);
    pthread_join(th, NULL);
    printf("steps_per_s=%.1f\n", steps / dt);
    printf("us_per_launch=%.3f\n", dt / ((double)steps * 2 * launches) * 1e6);

    double f0 = now();
    for (int k = 0; k < forks; k++) {
        pid_t p = fork();
        if (p == 0) {
            // A worker that never uses CUDA: Python's leave with os._exit;
            // FORK_EXIT=1 leaves with exit (the shim's exit handler runs).
            if (getenv("FORK_EXIT"))
                exit(0);
            _exit(0);
        }
        int st;
        waitpid(p, &st, 0);
    }
    if (forks)
        printf("fork_us=%.1f\n", (now() - f0) / forks * 1e6);
    printf("loss=%g\n", loss);
    for (int i = 0; i < 128; i++)
        CHECK(cudaStreamDestroy(pool[i]));
    CHECK(cudaFree(d_x));
    CHECK(cudaFreeHost(h_in));
    return 0;
}
