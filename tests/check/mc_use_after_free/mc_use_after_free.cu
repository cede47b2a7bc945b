extern "C" __global__ void mc_use_after_free(int* out) {
    volatile int* p = (volatile int*)malloc(16);
    p[0] = 1;
    out[0] = p[0];
    free((void*)p);
    p[1] = 2; // <- finding [W]
}
