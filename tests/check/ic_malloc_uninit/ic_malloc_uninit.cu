extern "C" __global__ void ic_malloc_uninit(int* out) {
    volatile int* p = (volatile int*)malloc(64);
    p[0] = 1;
    out[0] = p[0] + p[1]; // <- finding [R]
    free((void*)p);
}
