extern "C" __global__ void sy_deadlock(int* out) {
    int t = threadIdx.x;
    if (t < 32)
        asm volatile("bar.sync 1, 64;" ::: "memory"); // <- finding [A]
    else
        asm volatile("bar.sync 2, 64;" ::: "memory"); // <- finding [B]
    out[t] = t;
}
