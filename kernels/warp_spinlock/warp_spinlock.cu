// A global spinlock taken by every thread (so lanes of the same warp contend
// with each other: correct only with independent thread scheduling, sm_70+).
// Each thread acquires the lock with atomicCAS in a loop, increments a plain
// (volatile) counter and appends its global id to a log under the lock, then
// releases with a fence and atomicExch. The counter must be exact.
extern "C" __global__ void warp_spinlock(int* lock, volatile unsigned* counter, unsigned* log) {
    unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
    bool done = false;
    while (!done) {
        if (atomicCAS(lock, 0, 1) == 0) {
            __threadfence();
            unsigned c = *counter;
            log[c] = id;
            *counter = c + 1;
            __threadfence();
            atomicExch(lock, 0);
            done = true;
        }
    }
}

// Second pass (one thread per log slot): marks which ids appeared, so the
// output does not depend on the order the lock was granted.
extern "C" __global__ void mark_seen(const unsigned* log, unsigned n, unsigned* seen) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&seen[log[i]], 1u);
}
