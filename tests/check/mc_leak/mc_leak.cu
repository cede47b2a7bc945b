extern "C" __global__ void mc_leak(int* out) {
    int* p = (int*)malloc(64); // <- finding [M]
    for (int i = 0; i < 16; ++i) ((volatile int*)p)[i] = i;
    out[0] = ((volatile int*)p)[15];
}
