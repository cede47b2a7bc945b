extern "C" __global__ void mc_adjacent_malloc(int* out, int n) {
    int* p = (int*)malloc(64);
    int* q = (int*)malloc(64);
    for (int i = 0; i < 16; ++i) q[i] = i;
    for (int i = 0; i <= n; ++i) p[i] = -i; // <- finding [W]
    out[threadIdx.x] = q[0];
    free(p);
    free(q);
}
