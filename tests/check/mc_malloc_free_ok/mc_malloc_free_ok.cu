extern "C" __global__ void mc_malloc_free_ok(int* out) {
    int* p = (int*)malloc(64);
    for (int i = 0; i < 16; ++i) ((volatile int*)p)[i] = i;
    out[threadIdx.x] = ((volatile int*)p)[15];
    free(p);
}
