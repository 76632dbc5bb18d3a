// turn_taking: two host threads take turns on the legacy default stream,
// handing the turn over under a mutex and a condition variable.  Their
// work never runs side by side whatever stream it is on: the program
// orders it, so SC103 (threads sharing the legacy stream) has nothing to
// say; shared_default_stream is the case where threads race to submit.
//
//   turn_taking [ROUNDS]
#include <pthread.h>

#include "common.h"

#define N (1 << 14)

static int rounds = 4;
static float *d, *h;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int turn;   // whose turn: 0 or 1

static void *player(void *arg)
{
    int me = (int)(long)arg;
    for (int r = 0; r < rounds; r++) {
        pthread_mutex_lock(&m);
        while (turn != me)
            pthread_cond_wait(&cv, &m);
        pthread_mutex_unlock(&m);
        sc_spin<<<1, 1>>>(SPIN); // expect: SC101 x8
        sc_saxpy<<<16, 256>>>(N, 1.0f + (float)me, d, d); // expect: SC101 x8
        LAUNCHED();
        pthread_mutex_lock(&m);
        turn = 1 - me;
        pthread_cond_broadcast(&cv);
        pthread_mutex_unlock(&m);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        rounds = atoi(argv[1]);
    if (rounds < 1 || rounds > 1000) {
        fprintf(stderr, "usage: %s [ROUNDS(1-1000)]\n", argv[0]);
        return 2;
    }
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    sc_fill<<<16, 256>>>(d, N, 1.0f); // expect: SC101 x1
    LAUNCHED();
    pthread_t t[2];
    for (long i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, player, (void *)i);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    CHECK(cudaMemcpyAsync(h, d, N * sizeof(float), cudaMemcpyDeviceToHost, 0)); // expect: SC101 x1
    CHECK(cudaStreamSynchronize(0));
    printf("turn_taking: %d rounds, checksum %.6f\n", rounds, checksum(h, N));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    return 0;
}
