// Thread 0 of each CTA takes a global spin lock with atomicCAS, bumps a
// plain counter, and releases the lock with atomicExch.
extern "C" __global__ void at_lock_no_fence_racy(int* lock, int* counter) {
    if (threadIdx.x != 0) return;
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    *counter = *counter + 1; // <- finding [U]
    atomicExch(lock, 0);
}
