extern "C" __global__ void mc_bad_free(int* out, int off) {
    int* p = (int*)malloc(64);
    p[0] = 5;
    out[0] = p[0];
    free(p + off); // <- finding [F]
}
