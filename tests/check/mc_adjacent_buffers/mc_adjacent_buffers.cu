extern "C" __global__ void mc_adjacent_buffers(int* a, int* b, int n) {
    int t = threadIdx.x;
    if (t < n) a[t + 1] = -1; // <- finding [W]
    b[t] = t;
}
