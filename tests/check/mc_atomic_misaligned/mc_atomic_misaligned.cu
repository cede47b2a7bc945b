extern "C" __global__ void mc_atomic_misaligned(int* ctr, int off) {
    int* p = (int*)((char*)ctr + off);
    atomicAdd(p, 1); // <- finding [A]
}
