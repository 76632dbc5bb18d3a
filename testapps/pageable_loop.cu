// pageable_loop: SC203 pageable-async-copy, priced by what pinning saves.
//
// Each step prepares a batch on the host, copies it to the device with
// cudaMemcpyAsync and queues a kernel on it; the host waits only at the end.
// From pageable memory the copy first waits for the stream's earlier work
// and then stages the data while the host waits (CUDA Driver API, 2. API
// synchronization behavior): the host cannot prepare the next batch while
// the GPU works.  From pinned memory (mode "pinned", the fixed way) the copy
// is queued and the host goes on.  What pinning saves depends on which side
// is the bottleneck: the host (HOST_MS above GPU_MS) or the GPU.  Mode "shm":
// each batch is a shared mapping that the step unmaps after the copy, as the
// thread that copies a PyTorch DataLoader worker's batch (shared memory)
// releases it; a loader that pins (its own thread receives and releases the
// batches) saves that time too.  Mode "loader": the same batches, each
// received first, as the main thread of a DataLoader without pin_memory
// receives a worker's batch (HOST_MS waiting for the worker's message, then
// the shared memory mapped), then queues a kernel and copies the batch, and the host waits
// for each step's kernels before it receives the next (a loss read each
// step); pinning moves the receipt to the loader's thread as well.  Mode
// "loader-pinned" is loader's fix: a thread of its own receives each batch
// (the same wait and mapping), copies it into one of two pinned buffers and
// hands it over, as a DataLoader's pinning thread does with
// pin_memory=True, while the main thread copies the last one.  Modes
// "fresh" and "keep": the batches come from pinned memory, and each step
// reads the result back into host pages never written before, a new
// mapping a step, so the pageable
// read-back's host wait holds their first touch.  "keep" keeps every
// step's result (as a list of a loop's outputs copied to the CPU): pinned
// buffers for them would each be touched where allocated, so pinning saves
// none of the touches.  "fresh" unmaps each result after the step (a
// tensor's .cpu() each step, then dropped), and the next mapping is where
// the last was: one pinned buffer kept would serve every step, touched
// once.  "readback-pinned" is fresh's fix: one pinned buffer, the copy
// queued into it and waited for.  Mode "memcpy": the batch copied with
// cudaMemcpy, the kernels on the legacy stream, as C programs first write it:
// the copy waits for the last step's kernel, then holds the host while it
// copies (SC201; "pinned" is its fix too).
//
//   pageable_loop [STEPS [MIB [GPU_MS [HOST_MS [MODE]]]]]
//     MODE: pageable (default), pinned, shm, loader, loader-pinned, fresh, keep, readback-pinned, memcpy
// The elapsed time of the loop goes to stderr ("elapsed_ms=...").
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void host_work(double ms)
{
    double end = now_ms() + ms;
    volatile double x = 0;
    while (now_ms() < end)
        for (int i = 0; i < 1000; i++)
            x += i * 0.5;
}

// A batch received (HOST_MS waiting for the worker's message, off the
// CPU as a DataLoader's main thread waits on its queue, then the worker's
// shared memory mapped): the mapping, of `bytes`, or NULL.
static float *receive(double host_ms, size_t bytes)
{
    struct timespec wait = {(time_t)(host_ms / 1e3), (long)(fmod(host_ms, 1e3) * 1e6)};
    while (nanosleep(&wait, &wait) != 0 && errno == EINTR) {
    }
    int fd = memfd_create("batch", 0);
    if (fd < 0 || ftruncate(fd, (off_t)bytes) != 0)
        return NULL;
    void *b = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    return b == MAP_FAILED ? NULL : (float *)b;
}

// loader-pinned: the pinning thread and the main thread share two pinned
// buffers; made and used count the batches put in and taken out.
typedef struct feed {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int made, used, steps, failed;
    size_t bytes;
    double host_ms;
    float *slot[2];
} feed;

static void *pinning_thread(void *arg)
{
    feed *f = (feed *)arg;
    for (int i = 0; i < f->steps; i++) {
        pthread_mutex_lock(&f->mu);
        while (i - f->used >= 2)
            pthread_cond_wait(&f->cv, &f->mu);
        pthread_mutex_unlock(&f->mu);
        float *b = receive(f->host_ms, f->bytes);
        if (b) {
            memcpy(f->slot[i % 2], b, f->bytes);
            munmap(b, f->bytes);
        }
        pthread_mutex_lock(&f->mu);
        f->failed |= !b;
        f->made = i + 1;
        pthread_cond_broadcast(&f->cv);
        pthread_mutex_unlock(&f->mu);
    }
    return NULL;
}

// Waits until *counter reaches `at`, then (next >= 0) sets f->used to it.
static void feed_wait(feed *f, int *counter, int at, int next)
{
    pthread_mutex_lock(&f->mu);
    while (*counter < at)
        pthread_cond_wait(&f->cv, &f->mu);
    if (next >= 0) {
        f->used = next;
        pthread_cond_broadcast(&f->cv);
    }
    pthread_mutex_unlock(&f->mu);
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 8;
    int mib = argc > 2 ? atoi(argv[2]) : 4;
    double gpu_ms = argc > 3 ? atof(argv[3]) : 10, host_ms = argc > 4 ? atof(argv[4]) : 4;
    int pinned = argc > 5 && strcmp(argv[5], "pinned") == 0, shm = argc > 5 && strcmp(argv[5], "shm") == 0;
    int keep = argc > 5 && strcmp(argv[5], "keep") == 0, fresh = keep || (argc > 5 && strcmp(argv[5], "fresh") == 0);
    int rb_pinned = argc > 5 && strcmp(argv[5], "readback-pinned") == 0;
    int sync_copy = argc > 5 && strcmp(argv[5], "memcpy") == 0;
    int loader = argc > 5 && strcmp(argv[5], "loader") == 0;
    int fed = argc > 5 && strcmp(argv[5], "loader-pinned") == 0;
    shm = shm || loader;
    if (steps < 1 || mib < 1 || gpu_ms < 0 || host_ms < 0) {
        fprintf(stderr, "usage: %s [STEPS [MIB [GPU_MS [HOST_MS [MODE]]]]]\n"
                "  MODE: pageable|pinned|shm|loader|loader-pinned|fresh|keep|readback-pinned|memcpy\n", argv[0]);
        return 2;
    }
    pinned = pinned || fresh || rb_pinned || fed;   // the read-back modes' batches, and loader-pinned's two
    size_t n = (size_t)mib << 18;   // floats
    float *h, *d, *rb = NULL;
    if (pinned)
        CHECK(cudaMallocHost(&h, (fed ? 2 : 1) * n * sizeof(float)));
    else if (!(h = (float *)malloc(n * sizeof(float))))
        return 1;
    if (rb_pinned)
        CHECK(cudaMallocHost(&rb, n * sizeof(float)));
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    if (sync_copy)
        s = 0;   // cudaMemcpy orders with the legacy stream's work
    sc_spin<<<1, 1, 0, s>>>(0);
    LAUNCHED();
    CHECK(cudaStreamSynchronize(s)); // expect: SC402 x0+

    float **kept = (float **)calloc((size_t)steps, sizeof *kept);
    if (!kept)
        return 1;
    feed f = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, steps, 0, n * sizeof(float), host_ms,
              {h, h + n}};
    pthread_t pin;
    double t0 = now_ms();
    if (fed && pthread_create(&pin, NULL, pinning_thread, &f) != 0)
        return 1;
    float *batch = h;
    for (int i = 0; i < steps; i++) {
        if (fed) {   // the pinning thread received it: the next of its two buffers
            feed_wait(&f, &f.made, i + 1, -1);
            batch = f.slot[i % 2];
            sc_spin<<<1, 1, 0, s>>>(0);
            LAUNCHED();
        } else if (loader) {   // the batch received: a worker's shared memory, mapped
            if (!(batch = receive(host_ms, n * sizeof(float))))
                return 1;
            sc_spin<<<1, 1, 0, s>>>(0);   // work queued before the copy (the first after the wait: recorded)
            LAUNCHED();
        } else {
            host_work(host_ms);
        }
        if (shm && !loader) {   // the batch a worker filled
            batch = (float *)mmap(NULL, n * sizeof(float), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                                  -1, 0);
            if (batch == MAP_FAILED)
                return 1;
            memset(batch, 1, n * sizeof(float));
        }
        if (sync_copy)
            CHECK(cudaMemcpy(d, batch, n * sizeof(float), cudaMemcpyHostToDevice)); // expect: SC201 x0+
        else
            CHECK(cudaMemcpyAsync(d, batch, n * sizeof(float), cudaMemcpyHostToDevice, s)); // expect: SC203 x8
        if (shm)
            munmap(batch, n * sizeof(float));
        sc_spin<<<1, 1, 0, s>>>((unsigned long long)(gpu_ms * 1e6));
        LAUNCHED();
        if (loader || fed)
            CHECK(cudaStreamSynchronize(s)); // expect: SC403 x0+
        if (fed)   // the copy is done: its buffer goes back to the pinning thread
            feed_wait(&f, &f.made, 0, i + 1);
        if (fresh) {   // the result, read back into pages the program never wrote
            float *out = (float *)mmap(NULL, n * sizeof(float), PROT_READ | PROT_WRITE,
                                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (out == MAP_FAILED)
                return 1;
            CHECK(cudaMemcpyAsync(out, d, n * sizeof(float), cudaMemcpyDeviceToHost, s)); // expect: SC203 x0+
            if (keep)
                kept[i] = out;
            else
                munmap(out, n * sizeof(float));
        }
        if (rb_pinned) {   // fresh's fix: the result into one pinned buffer, waited for before its use
            CHECK(cudaMemcpyAsync(rb, d, n * sizeof(float), cudaMemcpyDeviceToHost, s));
            CHECK(cudaStreamSynchronize(s)); // expect: SC403 x0+
        }
    }
    CHECK(cudaStreamSynchronize(s));
    if (fed && (pthread_join(pin, NULL) != 0 || f.failed))
        return 1;
    for (int i = 0; keep && i < steps; i++)
        munmap(kept[i], n * sizeof(float));
    free(kept);
    fprintf(stderr, "elapsed_ms=%.3f\n", now_ms() - t0);
    printf("pageable_loop: %d steps of %d MiB\n", steps, mib);
    if (s)
        CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d));
    if (pinned)
        CHECK(cudaFreeHost(h));
    else
        free(h);
    if (rb)
        CHECK(cudaFreeHost(rb));
    return 0;
}
