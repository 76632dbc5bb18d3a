// handoff: one thread queues work on the legacy default stream and hands
// over to another thread, which queues work reading the first thread's
// result on the legacy stream too: the pattern of PyTorch's autograd
// engine (the main thread queues the forward pass, then waits while the
// engine's thread queues the backward pass).  The legacy stream orders
// the two threads' work; the hand-off itself is the program's own
// synchronization.
//
// The producer's work is slow (a 20 ms spin, or a 20 ms host function,
// before a host-to-device copy of the round's data), so a consumer whose
// work is not ordered after it reads the previous round's data.  The app
// checks every element and exits 1 on a mismatch.  The consumer's first
// work after the hand-off is a kernel launch, as the backward pass's is: past
// a thread's first 256 legacy-stream submissions, redirect sends launches
// down the fast path, which must still see the hand-off (300 rounds do).
//
// Under streamcheck --redirect=per-thread each thread's legacy work moves
// to a stream of its own; redirect must keep the order the hand-off gives
// (every method).  Variants, by how the threads hand over:
//   cond    a mutex and a condition variable (default)
//   join    the producer is a thread of its own each round; the main
//           thread joins it, then consumes
//   sem     two semaphores
//   hostfn  as cond, with a host function instead of the spin kernel
//   cxx     std::thread, std::mutex and std::condition_variable (waiting
//           with a timeout, which libstdc++ turns into
//           pthread_cond_clockwait), as PyTorch's autograd engine does
//
//   handoff [cond|join|sem|hostfn|cxx [ROUNDS [SPIN_MS]]]
// The checksum goes to stdout.  The expectations are those of the default
// run (cond, 5 rounds): SC101 notes, and no SC103, since the threads take
// turns rather than race.
#include <pthread.h>
#include <semaphore.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "common.h"

#define N (1 << 16)

static int rounds = 5;
static unsigned long long spin_ns = MS(20);
static float *d_in, *d_out, *h_src, *h_dst;
static double sum;
static int bad;

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready = -1, consumed = -1;
static sem_t full, empty;
static int use_hostfn;

static void CUDART_CB slow_host(void *arg)
{
    (void)arg;
    struct timespec ts = {0, (long)spin_ns};
    nanosleep(&ts, NULL);
}

// Queues round r's data: slow work first, then the copy of the data.
static void produce(int r)
{
    for (int i = 0; i < N; i++)
        h_src[i] = (float)(r + 1) + (float)(i % 7);
    if (use_hostfn)
        CHECK(cudaLaunchHostFunc(0, slow_host, NULL));
    else
        sc_spin<<<1, 1>>>(spin_ns); // expect: SC101 x5
    LAUNCHED();
    CHECK(cudaMemcpyAsync(d_in, h_src, N * sizeof(float), cudaMemcpyHostToDevice, 0)); // expect: SC101 x5
}

// Reads round r's data on the device and checks it on the host.
static void consume(int r)
{
    sc_fill<<<64, 256>>>(d_out, N, 0.0f); // expect: SC101 x5
    sc_saxpy<<<64, 256>>>(N, 2.0f, d_in, d_out); // expect: SC101 x5
    LAUNCHED();
    CHECK(cudaMemcpyAsync(h_dst, d_out, N * sizeof(float), cudaMemcpyDeviceToHost, 0)); // expect: SC101 x5
    CHECK(cudaStreamSynchronize(0)); // expect: SC403 x0+
    for (int i = 0; i < N; i++) {
        float want = 2.0f * ((float)(r + 1) + (float)(i % 7));
        if (h_dst[i] != want) {
            if (!bad)
                fprintf(stderr, "handoff: round %d element %d is %g, not %g: the consumer ran before the "
                        "producer's work\n", r, i, (double)h_dst[i], (double)want);
            bad = 1;
            break;
        }
    }
    sum += checksum(h_dst, N);
}

// ---- mutex and condition variable
static void *cond_producer(void *arg)
{
    (void)arg;
    for (int r = 0; r < rounds; r++) {
        pthread_mutex_lock(&m);
        while (consumed != r - 1)
            pthread_cond_wait(&cv, &m);
        pthread_mutex_unlock(&m);
        produce(r);
        pthread_mutex_lock(&m);
        ready = r;
        pthread_cond_broadcast(&cv);
        pthread_mutex_unlock(&m);
    }
    return NULL;
}

static void *cond_consumer(void *arg)
{
    (void)arg;
    for (int r = 0; r < rounds; r++) {
        pthread_mutex_lock(&m);
        while (ready != r)
            pthread_cond_wait(&cv, &m);
        pthread_mutex_unlock(&m);
        consume(r);
        pthread_mutex_lock(&m);
        consumed = r;
        pthread_cond_broadcast(&cv);
        pthread_mutex_unlock(&m);
    }
    return NULL;
}

// ---- semaphores
static void *sem_producer(void *arg)
{
    (void)arg;
    for (int r = 0; r < rounds; r++) {
        while (sem_wait(&empty) != 0)
            ;
        produce(r);
        sem_post(&full);
    }
    return NULL;
}

static void *sem_consumer(void *arg)
{
    (void)arg;
    for (int r = 0; r < rounds; r++) {
        while (sem_wait(&full) != 0)
            ;
        consume(r);
        sem_post(&empty);
    }
    return NULL;
}

// ---- C++: std::mutex and std::condition_variable, std::thread
static std::mutex cxx_m;
static std::condition_variable cxx_cv;

static void cxx_producer()
{
    for (int r = 0; r < rounds; r++) {
        {
            std::unique_lock<std::mutex> l(cxx_m);
            while (consumed != r - 1)
                cxx_cv.wait_for(l, std::chrono::milliseconds(50));
        }
        produce(r);
        std::lock_guard<std::mutex> l(cxx_m);
        ready = r;
        cxx_cv.notify_all();
    }
}

static void cxx_consumer()
{
    for (int r = 0; r < rounds; r++) {
        {
            std::unique_lock<std::mutex> l(cxx_m);
            while (ready != r)
                cxx_cv.wait_for(l, std::chrono::milliseconds(50));
        }
        consume(r);
        std::lock_guard<std::mutex> l(cxx_m);
        consumed = r;
        cxx_cv.notify_all();
    }
}

// ---- join: a producer thread per round
static void *join_producer(void *arg)
{
    produce((int)(long)arg);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "cond";
    if (argc > 2)
        rounds = atoi(argv[2]);
    if (argc > 3)
        spin_ns = MS(atoi(argv[3]));
    if (rounds < 1 || rounds > 1000 ||
        (strcmp(how, "cond") && strcmp(how, "join") && strcmp(how, "sem") && strcmp(how, "hostfn") &&
         strcmp(how, "cxx"))) {
        fprintf(stderr, "usage: %s [cond|join|sem|hostfn|cxx [ROUNDS(1-1000) [SPIN_MS]]]\n", argv[0]);
        return 2;
    }
    use_hostfn = !strcmp(how, "hostfn");
    CHECK(cudaMallocHost(&h_src, N * sizeof(float)));
    CHECK(cudaMallocHost(&h_dst, N * sizeof(float)));
    CHECK(cudaMalloc(&d_in, N * sizeof(float)));
    CHECK(cudaMalloc(&d_out, N * sizeof(float)));

    pthread_t p, c;
    if (!strcmp(how, "join")) {
        for (int r = 0; r < rounds; r++) {
            pthread_create(&p, NULL, join_producer, (void *)(long)r);
            pthread_join(p, NULL);
            consume(r);
        }
    } else if (!strcmp(how, "cxx")) {
        std::thread tp(cxx_producer), tc(cxx_consumer);
        tp.join();
        tc.join();
    } else if (!strcmp(how, "sem")) {
        sem_init(&full, 0, 0);
        sem_init(&empty, 0, 1);
        pthread_create(&p, NULL, sem_producer, NULL);
        pthread_create(&c, NULL, sem_consumer, NULL);
        pthread_join(p, NULL);
        pthread_join(c, NULL);
    } else {
        pthread_create(&p, NULL, cond_producer, NULL);
        pthread_create(&c, NULL, cond_consumer, NULL);
        pthread_join(p, NULL);
        pthread_join(c, NULL);
    }
    printf("handoff: %s, %d rounds, checksum %.6f%s\n", how, rounds, sum, bad ? " WRONG" : "");
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFreeHost(h_src));
    CHECK(cudaFreeHost(h_dst));
    return bad;
}
