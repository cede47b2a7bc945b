// Thread 0 of each CTA takes a global spin lock with atomicCAS, bumps a
// plain counter, and releases the lock with atomicExch.
extern "C" __global__ void at_lock_fence_ok(int* lock, int* counter) {
    if (threadIdx.x != 0) return;
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    __threadfence();
    *counter = *counter + 1;
    __threadfence();
    atomicExch(lock, 0);
}
